"""Print NetworkX's test modules of the functions gravel's backend implements, one per line.

A function defined in ``networkx/a/b/c.py`` is tested in the files of ``networkx/a/b/tests/`` that
name it (a word of their text); scripts/nx-suite.sh runs them with NetworkX's fallback off.
"""

import re
import sys
from pathlib import Path

from networkx.utils.backends import _registered_algorithms

from gravel.nx._info import FUNCTIONS


def test_modules(names):
    """The dotted names of the test modules that call the functions `names`, sorted."""
    found = set()
    for name in names:
        func = _registered_algorithms[name].orig_func
        module = sys.modules[func.__module__]
        tests = Path(module.__file__).parent / "tests"
        word = re.compile(rf"\b{re.escape(func.__name__)}\b")
        for path in tests.glob("test_*.py"):
            if word.search(path.read_text(encoding="utf-8")):
                package = module.__name__.rpartition(".")[0]
                found.add(f"{package}.tests.{path.stem}")
    return sorted(found)


if __name__ == "__main__":
    print("\n".join(test_modules(FUNCTIONS)))
