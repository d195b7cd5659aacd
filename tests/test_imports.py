"""Every `from gravel... import name`, at module level or inside a function, names something that
exists. GPU paths import lazily and CI has no GPU: a name lost in an edit would otherwise surface only
on the device."""

import ast
import importlib
import importlib.util
from pathlib import Path

import pytest

import gravel

SRC = Path(gravel.__file__).parent


def lazy_imports():
    for path in sorted(SRC.rglob("*.py")):
        module = ".".join(("gravel",) + path.relative_to(SRC).with_suffix("").parts).removesuffix(".__init__")
        package = module if path.name == "__init__.py" else module.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and (node.level or (node.module or "").startswith("gravel")):
                target = importlib.util.resolve_name("." * node.level + (node.module or ""), package)
                for alias in node.names:
                    yield pytest.param(target, alias.name, id=f"{path.relative_to(SRC)}:{node.lineno}:{alias.name}")


@pytest.mark.parametrize("target,name", list(lazy_imports()))
def test_imported_name_exists(target, name):
    mod = importlib.import_module(target)
    if not hasattr(mod, name):
        importlib.import_module(f"{target}.{name}")  # a submodule
