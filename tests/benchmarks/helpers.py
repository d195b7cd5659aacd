"""What the tests of the benchmark scripts share: the scripts' folder, and a script loaded as a
module (benchmarks/ is not a package)."""

import importlib.util
from pathlib import Path

BENCHMARKS = Path(__file__).parents[2] / "benchmarks"


def script(name):
    """The script benchmarks/NAME.py, loaded as the module `name`.

    Parameters
    ----------
    name : str
        The script's name without ``.py``.

    Returns
    -------
    module
    """
    spec = importlib.util.spec_from_file_location(name, BENCHMARKS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
