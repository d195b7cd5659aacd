"""Graph construction costs: generating a Kronecker graph into CSR (time, peak memory against the
final CSR's bytes) and loading a text graph cold versus from the binary cache.

    python benchmarks/build_and_load.py --scale 24 --text USA-road-NE.pace.gr.gz

Each measurement runs in a fresh subprocess so that peak RSS belongs to it alone.
"""

import argparse
import json
import subprocess
import sys
import tempfile

GENERATE = """
import json, resource, time
import gravel
t = time.perf_counter()
G = gravel.generate.kronecker({scale}, {ef}, progress=False)
dt = time.perf_counter() - t
csr = G.offsets.nbytes + G.indices.nbytes
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
print(json.dumps({{"spec": "kron:{scale}:{ef}", "seconds": dt, "n": G.n, "edges": G.m,
                  "csr_bytes": csr, "peak_rss_bytes": peak, "peak_over_csr": peak / csr}}))
"""

LOAD = """
import json, time
import gravel
t = time.perf_counter()
G = gravel.load({path!r}, progress=False)
print(json.dumps({{"seconds": time.perf_counter() - t, "n": G.n, "edges": G.m}}))
"""

WARM = "import gravel; gravel.generate.kronecker(8); gravel.load({path!r}, cache=False)"


def run(code, env=None):
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--scale", type=int, default=24)
    p.add_argument("--edge-factor", type=int, default=16)
    p.add_argument("--text", help="a text graph to load cold and cached")
    p.add_argument("--json")
    a = p.parse_args()
    import os

    result = {}
    if a.text:
        with tempfile.TemporaryDirectory() as cache:
            env = dict(os.environ, GRAVEL_CACHE_DIR=cache)
            subprocess.run(
                [sys.executable, "-c", WARM.format(path=a.text)], check=True, env=env
            )  # JIT
            cold = run(LOAD.format(path=a.text), env)
            cached = run(LOAD.format(path=a.text), env)
        result["load"] = {
            "file": a.text,
            "cold_s": cold["seconds"],
            "cached_s": cached["seconds"],
            "speedup": cold["seconds"] / cached["seconds"],
            "n": cold["n"],
            "edges": cold["edges"],
        }
        print(result["load"])
    # warm the JIT cache with a small run so the timing is of the generator, not the compiler
    run(GENERATE.format(scale=10, ef=a.edge_factor))
    result["generate"] = run(GENERATE.format(scale=a.scale, ef=a.edge_factor))
    print(result["generate"])
    if a.json:
        with open(a.json, "w") as f:
            json.dump(result, f, indent=1)


if __name__ == "__main__":
    main()
