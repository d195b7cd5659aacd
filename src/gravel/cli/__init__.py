"""The ``gravel`` command: run, info, bench, plot, generate, convert.

Every subcommand takes GRAPH as a file or a generator spec (kron:SCALE[:EDGEFACTOR],
urand:SCALE[:DEGREE], grid:RxC[:diag], rgg:SCALE[:DEGREE]). What ``run`` and ``bench`` know
about each algorithm comes from its description in ``gravel.algorithms.catalog``. Plots
(``gravel plot``, ``--plot`` on ``run`` and ``bench``) need matplotlib, imported only then. Errors
print one line and exit with status 2.

The modules, one job each:

- ``command``: the parser, and :func:`main`, which runs a subcommand and reports its errors;
- ``graphs``: GRAPH (:func:`open_graph`), vertex ids, and ``info``, ``generate``, ``convert``;
- ``run``: ``gravel run``'s kinds of run and the summary each ends with;
- ``bench``: ``gravel bench`` (the timing itself is :mod:`gravel.bench`'s);
- ``plot``: ``gravel plot`` and ``--plot``;
- ``output``: summary tables and ``--output`` files;
- ``progress``: what a long call shows on stderr while it runs, and lines flushed as they come.
"""

from .command import main
from .graphs import open_graph

__all__ = ["main", "open_graph"]
