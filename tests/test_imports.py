"""Every `from gravel... import name`, at module level or inside a function, names something that
exists. GPU paths import lazily and CI has no GPU: a name lost in an edit would otherwise surface
only on the device."""

import ast
import importlib
import importlib.util
from pathlib import Path

import pytest

import gravel

SRC = Path(gravel.__file__).parent


def lazy_imports():
    for path in sorted(SRC.rglob("*.py")):
        module = ".".join(("gravel",) + path.relative_to(SRC).with_suffix("").parts).removesuffix(
            ".__init__"
        )
        package = module if path.name == "__init__.py" else module.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and (
                node.level or (node.module or "").startswith("gravel")
            ):
                target = importlib.util.resolve_name(
                    "." * node.level + (node.module or ""), package
                )
                for alias in node.names:
                    yield pytest.param(
                        target, alias.name, id=f"{path.relative_to(SRC)}:{node.lineno}:{alias.name}"
                    )


@pytest.mark.parametrize("target,name", list(lazy_imports()))
def test_imported_name_exists(target, name):
    mod = importlib.import_module(target)
    if not hasattr(mod, name):
        importlib.import_module(f"{target}.{name}")  # a submodule


def run_python(code):
    """Run `code` in a fresh interpreter (this one has imported everything already)."""
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr


def test_import_gravel_imports_neither_numba_nor_cupy():
    run_python(
        "import sys, gravel\n"
        "heavy = sorted(m for m in ('numba', 'cupy') if m in sys.modules)\n"
        "assert not heavy, f'import gravel imported {heavy}'"
    )


def test_kernels_and_algorithms_load_on_first_use():
    run_python(
        "import sys, gravel\n"
        "from gravel.backends.cpu import csr\n"
        "assert 'numba' not in sys.modules, 'importing a kernel module ran it'\n"
        "G = gravel.Graph.from_edges([0, 1], [1, 2])\n"
        "assert 'numba' in sys.modules and G.nnz == 2\n"
        "assert gravel.bfs(G, 0, device='cpu').depth.tolist() == [0, 1, 2]\n"
        "assert 'bfs' in dir(gravel) and gravel.generate.grid(2, 2).n == 4"
    )


def test_graph_does_not_import_transform():
    """transform builds on graph, never the reverse: no import cycle between them."""
    for node in ast.walk(ast.parse((SRC / "graph.py").read_text())):
        if isinstance(node, ast.ImportFrom):
            assert "transform" not in (node.module or "") + str([a.name for a in node.names])


def test_the_old_name_of_filter_frontier_warns():
    """``gravel.operators.filter``, renamed filter_frontier (it shadowed the builtin), still
    imports, with a DeprecationWarning; other unknown names raise AttributeError."""
    import gravel.operators as ops

    with pytest.warns(DeprecationWarning, match="filter_frontier"):
        from gravel.operators import filter as old
    assert old is ops.filter_frontier
    with pytest.raises(AttributeError, match="no_such_operator"):
        ops.no_such_operator
