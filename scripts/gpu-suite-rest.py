"""Run the GPU tests that cut-off runs of the GPU suite did not report: the device tool gives a
command 600 s at most, and the whole `-m gpu` suite can take longer. The earlier runs must have
been started with `-v` or `-rA`, so that their logs name every test they finished:

    python3 scripts/gpu-suite-rest.py build/gpu-suite.log -n 15 > build/gpu-suite-rest.log
    python3 scripts/gpu-suite-rest.py build/gpu-suite.log build/gpu-suite-rest.log -n 15 \
        > build/gpu-suite-rest2.log

The leading arguments that do not start with "-" are logs; the rest go to pytest, which takes
this process's place, so that a SIGINT at a time limit reaches it and it prints its summary.
Skipped tests are reported by location, not by name, so they run (and skip) again.
"""

import os
import re
import subprocess
import sys

REPORTED = re.compile(r"(?:^|\] )(PASSED|FAILED|ERROR|XFAIL|XPASS) (tests/\S.*?)(?: - .*)?$")
PYTEST = [sys.executable, "-m", "pytest", "-m", "gpu", "-p", "no:cacheprovider"]


def reported(log):
    """The test ids a `-v` or `-rA` log reports (-v's lines end in a space)."""
    with open(log) as lines:
        return {m.group(2) for m in map(REPORTED.search, (s.rstrip() for s in lines)) if m}


def main(*args):
    logs = []
    while args and not args[0].startswith("-"):
        logs.append(args[0])
        args = args[1:]
    listed = subprocess.run(
        [*PYTEST, "-q", "--collect-only", "tests"], capture_output=True, text=True
    )
    ids = [i for i in listed.stdout.splitlines() if i.startswith("tests/") and "::" in i]
    done = set().union(*map(reported, logs))
    rest = [i for i in ids if i not in done]
    print(f"{len(ids)} GPU tests, {len(done)} reported in {', '.join(logs)}, {len(rest)} to run")
    if not rest:
        return 0
    sys.stdout.flush()
    os.execv(sys.executable, [*PYTEST, "-rA", *args, *rest])


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
