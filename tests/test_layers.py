"""The layers of docs/architecture.md, held by reading every import of the source, lazy ones too.

An import points to its own layer or a lower one; ``backends/`` imports only the bottom modules;
a private name (a module, function, class, attribute or keyword that starts with one underscore)
is used only inside the package that defines it.
"""

import ast
import functools
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src"

# bottom to top; a module belongs to the first prefix that matches it (see docs/architecture.md)
LAYERS = (
    ("base", ("errors", "config", "arrays", "compiling", "arguments", "seeds")),
    ("backends", ("backends",)),
    ("layouts", ("layouts",)),
    (
        "core",
        (
            "graph",
            "construction",
            "views",
            "stats",
            "devices",
            "interop",
            "tensors",
            "placement",
            "frontier",
            "results",
            "dispatch",
        ),
    ),
    ("data", ("io", "generate", "transform")),
    ("operators", ("operators",)),
    ("programs", ("programs", "reorder")),
    ("algorithms", ("algorithms",)),
    (
        "top",
        (
            "",
            "__main__",
            "cli",
            "bench",
            "records",
            "plots",
            "prebuild",
            "prebuild_cpu",
            "nx",
            "distributed",
        ),
    ),
)


#: private attributes of other libraries' objects that gravel reads, each with its reason
FOREIGN = {
    "_adj": "a NetworkX graph's adjacency dict, read as nx-cugraph reads it (no view per node)",
    "_node": "a NetworkX graph's node dict, filled row by row by interop.networkx_graph",
    "_pred": "a NetworkX digraph's in-adjacency dict, filled by interop.networkx_graph",
    "_run_exitfuncs": "the atexit handlers, run before os._exit ends an interrupted command "
    "without the interpreter's teardown (cli/command.py)",
    "_exit": "os._exit: an interrupted command ends without the interpreter's teardown",
}


def _modules():
    """Every module of the package: dotted name -> (path, is a package's __init__)."""
    out = {}
    for path in sorted((SRC / "gravel").rglob("*.py")):
        parts = list(path.relative_to(SRC).with_suffix("").parts)
        init = parts[-1] == "__init__"
        out[".".join(parts[:-1] if init else parts)] = (path, init)
    return out


MODULES = _modules()


def layer(module):
    """Index into LAYERS of a dotted module name under gravel."""
    rest = module.split(".")[1:]
    head = rest[0] if rest else ""
    for i, (_, prefixes) in enumerate(LAYERS):
        if head in prefixes:
            return i
    raise AssertionError(f"{module} is in no layer: add it to LAYERS and docs/architecture.md")


def unit(module):
    """The package that owns a module's private names: its parent package, or a top-level module
    of gravel itself (gravel.graph and gravel.transform are units of their own)."""
    parts = module.split(".")
    if len(parts) == 2 and not MODULES[module][1]:
        return module
    return module if MODULES[module][1] else ".".join(parts[:-1])


def _resolve(module, node):
    """Absolute names a ``from ... import`` statement reaches: the module, and each imported name
    that is itself a module."""
    if node.level:
        package = module if MODULES[module][1] else module.rpartition(".")[0]
        base = package.split(".")[: len(package.split(".")) - node.level + 1]
        target = ".".join(base + ([node.module] if node.module else []))
    else:
        target = node.module or ""
    return target


def imports(module):
    """(line, imported module, imported name or None) for every gravel import in a module."""
    path, _ = MODULES[module]
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == "gravel":
                    yield node.lineno, alias.name, None
        elif isinstance(node, ast.ImportFrom):
            target = _resolve(module, node)
            if target.split(".")[0] != "gravel":
                continue
            for alias in node.names:
                sub = f"{target}.{alias.name}"
                if sub in MODULES:
                    yield node.lineno, sub, None
                else:
                    yield node.lineno, target, alias.name


def _private(name):
    return name.startswith("_") and not name.startswith("__")


@functools.cache
def _defined_private_names():
    """unit -> the private names its modules define: functions, classes, parameters, module
    globals and attributes assigned on any object."""
    out = {}
    for module, (path, _) in MODULES.items():
        names = out.setdefault(unit(module), set())
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                names.add(node.name)
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                args = node.args
                for a in args.posonlyargs + args.args + args.kwonlyargs:
                    names.add(a.arg)
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                names.add(node.id)
            elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
                names.add(node.attr)
            elif isinstance(node, ast.alias):
                names.add(node.asname or node.name.split(".")[-1])
            elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
                names.add(node.target.id)
    return {k: {n for n in v if _private(n)} for k, v in out.items()}


def _crosses(own, owner):
    """Whether a private name of ``owner`` used in ``own`` leaves its package (a subpackage may
    use its parent's)."""
    return not (own == owner or own.startswith(owner + "."))


def test_every_module_has_a_layer():
    for module in MODULES:
        layer(module)


@pytest.mark.parametrize("module", sorted(MODULES))
def test_imports_point_down(module):
    """An import reaches its own layer or a lower one; backends reach only the base modules."""
    mine = layer(module)
    wrong = []
    for line, target, _ in imports(module):
        theirs = layer(target)
        if theirs > mine:
            wrong.append(f"line {line}: {target} ({LAYERS[theirs][0]} over {LAYERS[mine][0]})")
        elif LAYERS[mine][0] == "backends" and LAYERS[theirs][0] not in ("base", "backends"):
            wrong.append(f"line {line}: {target} (backends import only the base modules)")
    assert not wrong, f"{module} imports upward:\n" + "\n".join(wrong)


@pytest.mark.parametrize("module", sorted(MODULES))
def test_private_names_stay_home(module):
    """No module, function, attribute or keyword named ``_x`` is reached from another package."""
    own = unit(module)
    defined = _defined_private_names()
    wrong = []
    for line, target, name in imports(module):
        parts = target.split(".")
        private = [i for i, p in enumerate(parts) if _private(p)]
        if private and _crosses(own, ".".join(parts[: private[0]])):
            wrong.append(f"line {line}: module {target}")
        if name and _private(name) and _crosses(own, unit(target)):
            wrong.append(f"line {line}: {target}.{name}")
    tree = ast.parse(MODULES[module][0].read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and _private(node.attr):
            base = node.value
            if isinstance(base, ast.Name) and base.id in ("self", "cls"):
                continue
            if node.attr not in defined[own] and node.attr not in FOREIGN:
                wrong.append(f"line {node.lineno}: attribute .{node.attr}")
        elif isinstance(node, ast.Call):
            for kw in node.keywords:
                if kw.arg and _private(kw.arg) and kw.arg not in defined[own]:
                    wrong.append(f"line {node.lineno}: keyword {kw.arg}=")
    assert not wrong, f"{module} uses private names of other packages:\n" + "\n".join(wrong)


def test_no_import_cycles():
    """No module reaches itself through imports, lazy ones included (a lazy import closes a circle
    as surely as a top-level one)."""
    edges = {m: sorted({t for _, t, _ in imports(m) if t in MODULES and t != m}) for m in MODULES}
    state, path = {}, []

    def visit(m):
        state[m] = "open"
        path.append(m)
        for t in edges[m]:
            if state.get(t) == "open":
                cycle = path[path.index(t) :] + [t]
                raise AssertionError("import cycle: " + " -> ".join(cycle))
            if t not in state:
                visit(t)
        path.pop()
        state[m] = "done"

    for m in sorted(MODULES):
        if m not in state:
            visit(m)


#: most lines a module may hold: past it, a module is two
MAX_LINES = 500


@pytest.mark.parametrize("module", sorted(MODULES))
def test_modules_stay_under_500_lines(module):
    lines = MODULES[module][0].read_text().count("\n")
    assert lines < MAX_LINES, f"{module} holds {lines} lines: split it by job"


def test_the_rules_catch_what_they_forbid():
    """The walker sees lazy imports and relative ones: the layer of every name it resolves."""
    assert layer("gravel.backends.cuda.runtime") < layer("gravel.operators.advance")
    assert layer("gravel.algorithms.bfs") < layer("gravel.cli")
    found = {target for _, target, _ in imports("gravel.algorithms.bfs")}
    assert "gravel.operators" in found or any(t.startswith("gravel.operators.") for t in found)
