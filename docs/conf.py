"""Sphinx configuration: the user guide (Markdown through MyST) and the API reference, generated
from the numpydoc docstrings of every module tests/test_docstrings.py holds to them.

Build with ``python3 -m pip install '.[docs]'`` and ``sphinx-build -W -b html docs docs/_build``.
"""

import importlib.metadata
from pathlib import Path

project = "gravel"
author = "the gravel developers"
release = importlib.metadata.version("gravel")
version = release

extensions = [
    "myst_parser",
    "numpydoc",
    "sphinx.ext.autodoc",
    "sphinx.ext.mathjax",
]
source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
exclude_patterns = ["_build"]
html_theme = "pydata_sphinx_theme"
html_title = "gravel"
myst_heading_anchors = 3
numpydoc_show_class_members = False
numpydoc_xref_param_type = False
autodoc_default_options = {"members": True, "ignore-module-all": True, "show-inheritance": True}
autodoc_member_order = "bysource"
suppress_warnings = ["myst.xref_missing"]

HERE = Path(__file__).parent
SRC = HERE.parent / "src" / "gravel"
#: what the API reference leaves out: kernels (reached through the operators and algorithms), the
#: command line's internals and the NetworkX backend's functions (NetworkX documents them)
UNDOCUMENTED = ("backends", "cli", "nx", "prebuild.py", "prebuild_cpu.py", "__main__.py")
#: the API reference's sections, in the order of the layers (docs/architecture.md), top first
SECTIONS = (
    ("The package", ("gravel",)),
    ("Algorithms", ("gravel.algorithms",)),
    ("Vertex programs", ("gravel.programs", "gravel.reorder")),
    ("Operators", ("gravel.operators",)),
    ("Graphs from files and generators", ("gravel.io", "gravel.generate", "gravel.transform")),
    (
        "The graph and its results",
        (
            "gravel.graph",
            "gravel.construction",
            "gravel.views",
            "gravel.stats",
            "gravel.devices",
            "gravel.interop",
            "gravel.tensors",
            "gravel.frontier",
            "gravel.results",
        ),
    ),
    ("Placement on the GPU", ("gravel.placement", "gravel.config")),
    ("Layouts", ("gravel.layouts",)),
    ("Several workers", ("gravel.distributed",)),
    ("Plots and benchmarks", ("gravel.plots", "gravel.bench", "gravel.records")),
    (
        "Foundations",
        (
            "gravel.dispatch",
            "gravel.errors",
            "gravel.arrays",
            "gravel.arguments",
            "gravel.compiling",
            "gravel.seeds",
        ),
    ),
)


def documented_paths():
    """The source files of the modules the API reference documents (and tests/test_docstrings.py
    holds to numpydoc): every module whose path has no private part, but for UNDOCUMENTED."""
    for path in sorted(SRC.rglob("*.py")):
        parts = path.relative_to(SRC).parts
        if parts[0] in UNDOCUMENTED:
            continue
        if any(p.startswith("_") and p != "__init__.py" for p in parts):
            continue
        yield path


def documented_modules():
    """The dotted names of the modules the API reference documents."""
    for path in documented_paths():
        parts = path.relative_to(SRC).parts
        names = ["gravel", *parts[:-1]] + ([] if parts[-1] == "__init__.py" else [path.stem])
        yield ".".join(names)


def _within(module, prefix):
    """Whether `module` is `prefix` or inside it (the package "gravel" holds only itself here)."""
    return module == prefix or prefix != "gravel" and module.startswith(prefix + ".")


def write_api_pages():
    """docs/api/: a page per module (its docstring, then its members) and an index by section."""
    out = HERE / "api"
    out.mkdir(exist_ok=True)
    modules = list(documented_modules())
    index = ["API reference", "=============", ""]
    placed = set()
    for title, prefixes in SECTIONS:
        members = [
            m
            for m in modules
            if any(m == p or m.startswith(p + ".") and p != "gravel" for p in prefixes)
        ]
        placed.update(members)
        index += [title, "-" * len(title), "", ".. toctree::", "   :maxdepth: 1", ""]
        index += [f"   {m}" for m in members] + [""]
        for m in members:
            page = [m, "=" * len(m), "", f".. automodule:: {m}", ""]
            (out / f"{m}.rst").write_text("\n".join(page))
    missing = sorted(set(modules) - placed)
    if missing:
        raise RuntimeError(f"docs/conf.py: modules in no section of the API reference: {missing}")
    (out / "index.rst").write_text("\n".join(index))


def setup(app):
    """Sphinx's hook: the API pages are written when a build starts, not when this file is read
    (tests/test_docstrings.py reads it for :func:`documented_paths`)."""
    app.connect("builder-inited", lambda app: write_api_pages())
