"""The GPU text path's piece size (io/_parse.py DEVICE_PIECE_BYTES, docs/tuning.md): a process's
first and second load of a generated edge list on the GPU, in a fresh process per size, after a
warm-up load of a small file (every kernel compiled); and, in another fresh process, the same
loads after the two pinned host buffers of that size were allocated (and freed into CuPy's pinned
pool) first, with the seconds that allocation took. The first load pays for pinning its buffers
(later loads reuse them from the pool); small pieces pay fixed costs per piece.

    python benchmarks/load_pieces.py kron:22 --sizes 256,128,64,32 --json out.json
"""

import json
import subprocess
import sys
import tempfile
from pathlib import Path

import gravel
from gravel.records import script_parser, write_record

CHILD = """
import json, sys, time
import cupy, cupyx, numpy as np
import gravel
from gravel.backends.cpu import csr
from gravel.io import _parse
path, small, piece, pin = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4] == "1"
_parse.DEVICE_PIECE_BYTES = piece
limits = _parse.SMALL_TEXT_BYTES, csr.SMALL_ARCS
_parse.SMALL_TEXT_BYTES = csr.SMALL_ARCS = -1  # the warm-up loads every kernel of a large load
gravel.load(small, cache=False, progress=False, device="cuda")
_parse.SMALL_TEXT_BYTES, csr.SMALL_ARCS = limits
got = {}
if pin:
    t = time.perf_counter()
    buffers = [cupyx.empty_pinned(piece, np.uint8) for _ in range(2)]
    got["pin_s"] = time.perf_counter() - t
    del buffers
for key in ("first_s", "second_s"):
    t = time.perf_counter()
    gravel.load(path, cache=False, progress=False, device="cuda")
    cupy.cuda.Device().synchronize()
    got[key] = time.perf_counter() - t
print(json.dumps(got))
"""


def main():
    p = script_parser(__doc__, repeat=1)
    p.add_argument("graph", help="a generator spec (kron:22)")
    p.add_argument("--sizes", default="256,128,64,32", help="piece sizes in MB, comma-separated")
    a = p.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        path, small = Path(folder) / "g.txt", Path(folder) / "small.txt"
        gravel.save(gravel.generate.from_spec(a.graph, progress=False, device="cpu"), path)
        gravel.save(gravel.generate.kronecker(10, progress=False, device="cpu"), small)
        for mb in (int(x) for x in a.sizes.split(",")):
            for pin in (False, True):
                args = [str(path), str(small), str(mb << 20), str(int(pin))]
                out = subprocess.run(
                    [sys.executable, "-c", CHILD, *args], capture_output=True, text=True, check=True
                )
                got = json.loads(out.stdout.strip().splitlines()[-1])
                rows.append({"graph": a.graph, "piece_MB": mb, "pinned_first": pin, **got})
                pinned = f", buffers pinned first in {got['pin_s']:.3f} s" if pin else ""
                print(
                    f"{a.graph} piece {mb:4} MB: first load {got['first_s']:.3f} s, second "
                    f"{got['second_s']:.3f} s{pinned}"
                )
    if a.json:
        write_record(a.json, "benchmarks/load_pieces.py", rows)


if __name__ == "__main__":
    main()
