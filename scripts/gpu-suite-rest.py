"""Run the GPU tests that a cut-off run of the GPU suite did not report: the device tool gives a
command 600 s at most, and the whole `-m gpu` suite can take longer. The earlier run must have
been started with `-v` or `-rA`, so that its log names every test it finished:

    python3 scripts/gpu-suite-rest.py build/gpu-suite.log -n 15 > build/gpu-suite-rest.log

Arguments after the log go to pytest. Skipped tests are reported by location, not by name, so
they run (and skip) again.
"""

import re
import subprocess
import sys

REPORTED = re.compile(r"(?:^|\] )(PASSED|FAILED|ERROR|XFAIL|XPASS) (tests/\S.*?)(?: - .*)?$")
PYTEST = [sys.executable, "-m", "pytest", "-m", "gpu", "-p", "no:cacheprovider"]


def reported(log):
    """The test ids a `-v` or `-rA` log reports."""
    with open(log) as lines:
        return {m.group(2) for m in map(REPORTED.search, (s.rstrip("\n") for s in lines)) if m}


def main(log, *args):
    listed = subprocess.run(
        [*PYTEST, "-q", "--collect-only", "tests"], capture_output=True, text=True
    )
    ids = [i for i in listed.stdout.splitlines() if i.startswith("tests/") and "::" in i]
    done = reported(log)
    rest = [i for i in ids if i not in done]
    print(f"{len(ids)} GPU tests, {len(done)} reported in {log}, {len(rest)} to run", flush=True)
    if not rest:
        return 0
    return subprocess.run([*PYTEST, "-rA", *args, *rest]).returncode


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
