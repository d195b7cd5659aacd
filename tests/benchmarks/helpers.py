"""What the tests of the benchmark scripts share: the scripts' folder, a script loaded as a module
(benchmarks/ is not a package), and a stand-in for Gunrock's BFS app."""

import importlib.util
import sys
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
    if str(BENCHMARKS) not in sys.path:  # its neighbours importable, as running it makes them
        sys.path.append(str(BENCHMARKS))
    spec = importlib.util.spec_from_file_location(name, BENCHMARKS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


FAKE_BFS = """#!{python}
# Gunrock's bfs as benchmarks/gunrock.py calls it: -m FILE -n RUNS -s SOURCE; SciPy's BFS depths
import os, sys
import numpy as np, scipy.sparse
from scipy.sparse.csgraph import breadth_first_order
args = dict(zip(sys.argv[1::2], sys.argv[2::2]))
with open(args["-m"], "rb") as f:  # the binary CSR, as Gunrock's read_binary reads it
    n, _, nnz = np.fromfile(f, np.int32, 3)
    offsets, indices = np.fromfile(f, np.int32, n + 1), np.fromfile(f, np.int32, nnz)
A = scipy.sparse.csr_matrix((np.ones(nnz), indices, offsets), shape=(n, n))
s = int(args["-s"])
order, pred = breadth_first_order(A, s, directed=True)
depth = np.full(A.shape[0], 2**31 - 1)
depth[s] = 0
for v in order[1:]:
    depth[v] = depth[pred[v]] + 1
whole = os.environ.get("GUNROCK_PRINT_ALL")
k = len(depth) if whole else 40
print("Source :", s)
print(f"GPU distances[:{{k}}] =", *depth[:k], "")
ms = 0.25 * int(args["-n"])  # one digit after a whole result, as the patched print::head leaves it
print("GPU Elapsed Time :", f"{{ms:.0g}}" if whole else f"{{ms:g}}", "(ms)")
"""
