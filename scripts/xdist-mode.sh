#!/usr/bin/env bash
# How pytest-xdist's workers share the tests: "worksteal" (xdist 3.2 and later: an idle worker
# takes queued tests from a busy one, so that a few slow tests do not leave one worker running
# alone), else "load". Used as `--dist "$(scripts/xdist-mode.sh)"`.
python3 -c "import xdist; v = tuple(map(int, xdist.__version__.split('.')[:2])); \
print('worksteal' if v >= (3, 2) else 'load')" 2>/dev/null || echo load
