"""Builds the built-in algorithms' kernels into the package, so that a fresh install's first run
compiles nothing: the CPU kernels into Numba's cache beside their sources (gravel.prebuild_cpu,
where Numba is present: pyproject.toml's build requirements bring it), and the CUDA kernels when
CuPy and a GPU are present (gravel.prebuild).

With GRAVEL_PREBUILD=0 nothing is built and kernels compile at first use."""

import os
import subprocess
import sys
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

PREBUILT = Path("gravel", "backends", "cuda", "prebuilt")


def _env(path):
    """The environment with `path` first on PYTHONPATH (pip's isolated build puts its own packages
    there), and Numba's cache beside the sources, where the wheel takes it from."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(path), env.get("PYTHONPATH")]))
    env.pop("NUMBA_CACHE_DIR", None)
    return env


def cpu_kernels(root):
    """Compile the CPU kernels into Numba's cache under `root`, the built package's parent."""
    try:
        import numba  # noqa: F401
    except ImportError:  # kernels compile at first use
        return
    command = [sys.executable, "-m", "gravel.prebuild_cpu"]
    if subprocess.run(command, env=_env(root.resolve())).returncode != 0:
        sys.stderr.write("gravel: compiling CPU kernels failed: they compile at first use\n")


class BuildWithKernels(build_py):
    def run(self):
        super().run()
        if os.environ.get("GRAVEL_PREBUILD", "1") == "0":
            return
        root = Path("src") if getattr(self, "editable_mode", False) else Path(self.build_lib)
        cpu_kernels(root)
        try:
            import cupy

            cupy.cuda.Device().compute_capability
        except Exception:  # no CuPy, no driver or no GPU: kernels compile at first use
            return
        command = [sys.executable, "-m", "gravel.prebuild", "--out", root / PREBUILT]
        if subprocess.run(command, env=_env(Path("src").resolve())).returncode != 0:
            sys.stderr.write("gravel: building CUDA kernels failed: they compile at first use\n")


setup(cmdclass={"build_py": BuildWithKernels})
