"""A pytest plugin for NetworkX's own tests run through gravel's backend: which calls gravel served.

Loaded by scripts/nx-suite.sh (``-p nx_served``), with NetworkX's fallback on. It turns the
fallback off for the functions gravel implements: NetworkX runs the others, and a call of
gravel's that it declines becomes an expected failure instead of NetworkX's own answer. It reads
the backend's ``can_run`` answers and NetworkX's dispatch log (logger ``networkx``, DEBUG) while
the tests run and, at the end, writes per function the calls gravel served and the calls it
declined, with each reason: ``can_run``'s refusals, and calls gravel accepted whose conversion or
run raised NotImplementedError (the expected failure's reason is the error's message). The table
goes to the file named by ``NX_SERVED_REPORT`` (Markdown) and its totals to the terminal. Under
pytest-xdist each worker leaves its counts in the folder ``NX_SERVED_DIR`` and the controller adds
them up.
"""

import json
import logging
import os
import re
from collections import Counter, defaultdict

import networkx as nx
import pytest

from gravel.nx._info import FUNCTIONS
from gravel.nx.interface import BackendInterface

_USING = re.compile(r"Using backend 'gravel' for call to '([^']+)'")
_RAISED = re.compile(r"Backend 'gravel' raised when calling '([^']+)': (.*?)(?:\. |$)", re.S)


class _Counts(logging.Handler):
    """Calls served and declined per function, from ``can_run``'s answers and NetworkX's log."""

    def __init__(self):
        super().__init__(logging.DEBUG)
        self.served = Counter()
        self.declined = defaultdict(Counter)  # name -> reason -> calls
        self.pending = None  # (function, served yet) of the latest call gravel accepted

    def can_run(self, name, answer):
        if answer is True:
            self.pending = (name, False)
        else:
            self.declined[name][answer if isinstance(answer, str) else "can_run: False"] += 1

    def emit(self, record):
        text = record.getMessage()
        if m := _USING.match(text):
            self.served[m[1]] += 1
            self.pending = (m[1], True)
        elif m := _RAISED.match(text):  # fallback on: NetworkX logs the error and runs its own
            self.served[m[1]] -= 1
            self.declined[m[1]][m[2]] += 1

    def raised(self, reason):
        """The call gravel accepted last raised NotImplementedError, in its conversion or its
        run (fallback off: NetworkX makes the test an expected failure)."""
        if self.pending is not None:
            name, served = self.pending
            self.served[name] -= served
            self.declined[name][reason] += 1
            self.pending = None


_counts = _Counts()


def _fallback_off_for_gravel(convert_and_call):
    """NetworkX's test-mode call, with its fallback off for gravel's functions."""

    def call(self, backend_name, args, kwargs, *, fallback_to_nx=False):
        fallback_to_nx = fallback_to_nx and self.name not in FUNCTIONS
        return convert_and_call(self, backend_name, args, kwargs, fallback_to_nx=fallback_to_nx)

    return call


def pytest_configure(config):
    dispatchable = nx.utils.backends._dispatchable
    dispatchable._convert_and_call_for_tests = _fallback_off_for_gravel(
        dispatchable._convert_and_call_for_tests
    )
    logger = logging.getLogger("networkx")
    logger.setLevel(logging.DEBUG)
    logger.addHandler(_counts)
    can_run = BackendInterface.can_run

    def counted(name, args, kwargs):
        answer = can_run(name, args, kwargs)
        _counts.can_run(name, answer)
        return answer

    BackendInterface.can_run = staticmethod(counted)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if call.when == "setup":
        _counts.pending = None
    if (
        call.when == "call"
        and getattr(report, "wasxfail", "")
        and not item.get_closest_marker("xfail")
    ):
        reason = report.wasxfail.removeprefix("reason: ")
        if "not implemented by gravel" not in reason:
            _counts.raised(reason)


def pytest_sessionfinish(session):
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    if worker and (folder := os.environ.get("NX_SERVED_DIR")):
        with open(os.path.join(folder, f"{worker}.json"), "w") as f:
            json.dump({"served": _counts.served, "declined": _counts.declined}, f)


def _add_workers():
    """Add the counts the xdist workers left (none without xdist)."""
    folder = os.environ.get("NX_SERVED_DIR")
    for name in sorted(os.listdir(folder)) if folder else ():
        with open(os.path.join(folder, name)) as f:
            counts = json.load(f)
        _counts.served.update(counts["served"])
        for function, reasons in counts["declined"].items():
            _counts.declined[function].update(reasons)


def _table():
    names = sorted(set(_counts.served) | set(_counts.declined))
    lines = ["| function | served | declined | reasons |", "| --- | ---: | ---: | --- |"]
    for name in names:
        reasons = _counts.declined[name]
        why = "; ".join(f"{r} ({k})" for r, k in reasons.most_common())
        lines.append(f"| `{name}` | {_counts.served[name]} | {sum(reasons.values())} | {why} |")
    return "\n".join(lines) + "\n"


def pytest_terminal_summary(terminalreporter):
    _add_workers()
    served = sum(_counts.served.values())
    declined = sum(sum(c.values()) for c in _counts.declined.values())
    functions = sum(1 for k in _counts.served.values() if k > 0)
    terminalreporter.write_line(
        f"gravel served {served} calls of {functions} functions; declined {declined} calls"
    )
    if path := os.environ.get("NX_SERVED_REPORT"):
        with open(path, "w") as f:
            f.write(_table())
