"""Fixtures of the hybrid tests: the graphs, the sides the state may live on, and a scripted
split."""

import pytest

from gravel.programs import hybrid

from .helpers import GRAPHS
from .hybrid_cases import PRIORS, RUNS, state_on


@pytest.fixture(scope="module", params=list(GRAPHS))
def graph(request):
    return GRAPHS[request.param]()


@pytest.fixture(params=list(PRIORS))
def side(request):
    """Each side the state may live on, for the test's hybrid runs."""
    with state_on(request.param):
        yield request.param


@pytest.fixture(params=RUNS, ids="-".join)
def hybrid_run(request):
    """Each hybrid execution, and each side the state may live on where it can move."""
    execution, where = request.param
    with state_on(where):
        yield execution, where


@pytest.fixture
def scripted(monkeypatch):
    """The split's measure replaced by the shares given, one per measured pull, in turn (then
    the last again): the split moves where they say, past the cap over the bus."""

    def script(*values):
        it = iter(values)
        last = [values[-1]]

        def measured(cap, device, bus, cpu, serial=0.0, current=None):
            last[0] = next(it, last[0])
            return last[0]

        monkeypatch.setattr(hybrid, "split_share", measured)

    return script
