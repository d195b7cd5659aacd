#!/usr/bin/env bash
# Installs gravel editable, without dependencies, where NetworkX does not find its backend (the
# package's entry point registers it); run from the repo root. GRAVEL_PREBUILD=0 in the caller's
# environment skips compiling the CUDA kernels at install.
python3 -c "import importlib.metadata as m; assert m.entry_points(group='networkx.backends', name='gravel')" \
  2>/dev/null || python3 -m pip install -q --no-deps --no-build-isolation -e .
