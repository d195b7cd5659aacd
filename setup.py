"""Builds the built-in algorithms' CUDA kernels into the package when CuPy and a GPU are present
(gravel.prebuild), so that a fresh install's first GPU run compiles nothing.

Without CuPy (or with GRAVEL_PREBUILD=0) nothing is built and kernels compile at first use."""

import os
import subprocess
import sys
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

PREBUILT = Path("gravel", "backends", "cuda", "prebuilt")


class BuildWithKernels(build_py):
    def run(self):
        super().run()
        if os.environ.get("GRAVEL_PREBUILD", "1") == "0":
            return
        try:
            import cupy

            cupy.cuda.Device().compute_capability
        except Exception:  # no CuPy, no driver or no GPU: kernels compile at first use
            return
        root = Path("src") if getattr(self, "editable_mode", False) else Path(self.build_lib)
        env = dict(os.environ, PYTHONPATH=str(Path("src").resolve()))
        command = [sys.executable, "-m", "gravel.prebuild", "--out", root / PREBUILT]
        if subprocess.run(command, env=env).returncode != 0:
            sys.stderr.write("gravel: building CUDA kernels failed: they compile at first use\n")


setup(cmdclass={"build_py": BuildWithKernels})
