"""Every public function, class and method of the documented API has a numpydoc docstring: a
Parameters section where it takes arguments, Returns (or Yields) where it returns a value, and
Raises where it raises. The API reference (docs/api) is generated from these docstrings.

The documented API is the modules docs/conf.py documents (``documented_paths``): every module of
``gravel`` whose path has no private part, but for the kernels of ``backends/`` (reached through
the operators and algorithms), the command line's internals (``cli/``, ``prebuild``) and the
NetworkX backend's functions (NetworkX documents them).
"""

import ast
import importlib.util
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src" / "gravel"


def _docs_conf():
    """docs/conf.py, whose documented_paths() says which modules the API reference documents."""
    spec = importlib.util.spec_from_file_location("gravel_docs_conf", ROOT / "docs" / "conf.py")
    conf = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(conf)
    return conf


def _own_nodes(node):
    """The nodes of a function's body, without those of functions and classes defined in it."""
    stack = list(node.body)
    while stack:
        n = stack.pop()
        yield n
        for child in ast.iter_child_nodes(n):
            if not isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                stack.append(child)


def _parameters(func):
    a = func.args
    names = [x.arg for x in a.posonlyargs + a.args + a.kwonlyargs]
    names += [x.arg for x in (a.vararg, a.kwarg) if x]
    return [n for n in names if n not in ("self", "cls")]


def _decorators(func):
    return {ast.unparse(d).split("(")[0].split(".")[-1] for d in func.decorator_list}


def problems(func, doc, owner=None):
    """What a function's docstring lacks."""
    out = []
    if _parameters(func) and "Parameters\n" not in doc:
        out.append("Parameters")
    body = list(_own_nodes(func))
    if any(isinstance(n, (ast.Yield, ast.YieldFrom)) for n in body):
        if "Yields\n" not in doc and "Returns\n" not in doc:
            out.append("Yields")
    elif any(
        isinstance(n, ast.Return) and n.value is not None and ast.unparse(n.value) != "None"
        for n in body
    ):
        if "Returns\n" not in doc:
            out.append("Returns")
    if any(isinstance(n, ast.Raise) and n.exc is not None for n in body) and "Raises\n" not in doc:
        out.append("Raises")
    return out


def definitions():
    """(id, node, docstring, problems) for every documented definition."""
    for path in _docs_conf().documented_paths():
        rel = path.relative_to(SRC.parent)
        tree = ast.parse(path.read_text())
        for node in tree.body:
            if not isinstance(node, (ast.FunctionDef, ast.ClassDef)) or node.name.startswith("_"):
                continue
            doc = ast.get_docstring(node) or ""
            if isinstance(node, ast.FunctionDef):
                yield f"{rel}::{node.name}", doc, problems(node, doc)
                continue
            wrong = []
            init = next(
                (m for m in node.body if isinstance(m, ast.FunctionDef) and m.name == "__init__"),
                None,
            )
            if init is not None and _parameters(init):
                init_doc = doc + (ast.get_docstring(init) or "")
                wrong += [p for p in problems(init, init_doc) if p == "Parameters"]
            yield f"{rel}::{node.name}", doc, wrong
            for m in node.body:
                if not isinstance(m, ast.FunctionDef) or m.name.startswith("_"):
                    continue
                mdoc = ast.get_docstring(m) or ""
                if "property" in _decorators(m) or "setter" in _decorators(m):
                    yield f"{rel}::{node.name}.{m.name}", mdoc, []
                else:
                    yield f"{rel}::{node.name}.{m.name}", mdoc, problems(m, mdoc)


DEFINITIONS = list(definitions())


@pytest.mark.parametrize("name,doc,missing", DEFINITIONS, ids=[d[0] for d in DEFINITIONS])
def test_public_definitions_have_numpydoc_sections(name, doc, missing):
    assert doc.strip(), f"{name} has no docstring"
    assert not missing, f"{name}'s docstring lacks its {', '.join(missing)} section"


def test_the_check_sees_a_missing_section():
    func = ast.parse("def f(x):\n    '''Summary.'''\n    return x\n").body[0]
    assert problems(func, "Summary.") == ["Parameters", "Returns"]
    assert problems(func, "Summary.\n\nParameters\n----------\nx\n\nReturns\n-------\nint\n") == []
