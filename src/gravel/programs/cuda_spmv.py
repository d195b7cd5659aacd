"""A program's generalized SpMV on the GPU (:class:`Spmv`): ``neighbor_reduce`` once per
message field and way, pulling over every vertex (the non-senders masked to the identity) or
pushing from the senders' frontier (atomics: named reductions only). The first field's pass also
marks the vertices that received (a store of 1 beside each message it folds, rather than a pass of
its own over every arc; where every vertex sends, a pull's vertices receive where they have an
in-arc, marked before it). Bool and 8-bit messages reduce as int32 (the atomics' width); or and
and reduce as max and min; any is the operator's any (a pull's short lists stop at their first
sender; long lists and pushes fold as min). Every reduction runs with the program's identity,
which masks the non-senders too: "any" stops at the first value unlike it. The vertex phases
around it are :mod:`gravel.programs.cuda`'s.
"""

import re

import numpy as np

from ..operators.codegen import CTYPES

#: the operator reduction for each named one
_REDUCE = {"sum": "sum", "min": "min", "max": "max", "or": "max", "and": "min", "any": "any"}
#: each named reduction as C++ over {a} and {b}: two ways' totals folded
_FOLD = {
    "sum": "({a}) + ({b})",
    "min": "min(({a}), ({b}))",
    "max": "max(({a}), ({b}))",
    "or": "max(({a}), ({b}))",
    "and": "min(({a}), ({b}))",
    "any": "min(({a}), ({b}))",
}
#: the C++ of the names every kernel holds alike (n and iteration are the parameters gn and giter)
_BASE = {"v": "v", "u": "u", "n": "gn", "iteration": "giter", "weight": "weight"} | {
    "a": "a",
    "b": "b",
    "out_degree": "odeg[v]",
    "in_degree": "ideg[v]",
}


#: common(a, b) of process: the out-neighbours two vertices share, by a merge of sorted lists
_COMMON = """
__device__ long long gravel_common(const long long *off, const int *idx, long long a, long long b) {
    long long i = off[a], j = off[b], c = 0;
    while (i < off[a + 1] && j < off[b + 1]) {
        const int x = idx[i], y = idx[j];
        i += x <= y;
        j += y <= x;
        c += x == y;
    }
    return c;
}
"""


def _wide(dt):
    """The dtype a message field reduces in on the GPU."""
    return np.dtype(np.int32) if dt.itemsize < 4 else dt


_NAME = re.compile(r"[A-Za-z_]\w*")


def _named(arrays, *code):
    """The entries of `arrays` that `code` names: a kernel takes those only (fewer arguments to
    check and pass each launch)."""
    names = set(_NAME.findall(" ".join(code)))
    return {k: a for k, a in arrays.items() if k in names}


def _run_compute(n, arrays, frontier, statement, iteration, extra=None):
    """`statement` over v on the `frontier` (every vertex when None), with `arrays` as params."""
    from ..operators import compute

    params = _named(arrays | {"giter": np.int32(iteration)} | (extra or {}), statement)
    compute(frontier, statement, params=params, n=n)


class Spmv:
    """A program's generalized SpMV (pull) or SpMSpV (push) on the GPU: the totals ``tt{i}`` and
    the flags ``received`` of `arrays` from the messages ``ms{i}`` (and, pulling from active
    senders only, the sending flags ``active``). A pull writes each vertex's total in place (the
    reduction's apply); a push's totals come back as an array and are copied or folded. The
    kernels' code is written once, here.

    Parameters
    ----------
    program : Program
    n : int
        The vertices.
    arrays : dict
        The engine's named device arrays and scalars, which the kernels read and write (``st{i}``,
        ``ms{i}``, ``tt{i}``, ``active``, ``received``, the parameters ``p_k``, ...).
    blocking : str, optional
        How a pull of the message array itself over every vertex sweeps (``neighbor_reduce``'s
        `blocking`): the engine's "auto"; None for a hybrid part, whose split lists change as
        the split moves.
    stream_bus : bool, default False
        Whether a pull over every vertex of a graph whose lists are in host memory (placement
        "host": a hybrid part's bus rows) streams them through the copy engines ("streamed")
        rather than reading them where they are.
    base : dict, optional
        The code of the names every kernel holds alike (a distributed part's: global ids).
    """

    def __init__(self, program, n, arrays, blocking=None, stream_bus=False, base=None):
        p = program
        self.n, self.arrays, self.blocking, self.stream_bus = n, arrays, blocking, stream_bus
        self.all_send = p.senders == "all"
        named = isinstance(p.reduce, str)
        self.reduce = _REDUCE[p.reduce] if named else p.reduce.cuda({"a": "a", "b": "b"})
        fold = _FOLD[p.reduce] if named else p.reduce.cuda({"a": "({a})", "b": "({b})"})
        edge = p.code(base or _BASE, state="st{i}[v]", message="ms{i}[u]")
        self.fields = []
        for i, (f, e) in enumerate(zip(p.message, p.process, strict=True)):
            wide = _wide(f.dtype)
            value = f"(({CTYPES[wide]})({e.cuda(edge)}))"
            marked = f"(received[v] = 1, {value})" if i == 0 else value
            # where every vertex sends, a pull's vertex receives where it has an in-arc: marked
            # before the pull (a pass over the vertices), not on every arc
            pull = value if self.all_send else f"active[u] == 0 ? gnone : {marked}"
            tt = f"tt{i}[v]"
            # a pull of the messages themselves from every vertex reduces the message array, which
            # a sweep over every vertex may then block or stage (`blocking`)
            bare = self.all_send and e.cuda(edge) == f"(ms{i}[u])" and wide == f.dtype
            given = fold.format(a=tt, b="gpart[i]")
            code = {
                "push": marked,
                "pull": pull,
                "pull array": f"ms{i}" if bare and p.reduce in ("sum", "min", "max") else None,
                "set": f"{tt} = acc",
                "fold": f"{tt} = {fold.format(a=tt, b='acc')}",
                "fold pushed": f"{tt} = {fold.format(a=tt, b='gpart[v]')}",
                "fold given": f"{tt} = received[v] ? ({given}) : gpart[i]",
            }
            identity = wide.type(p.identity[i])
            # the arrays each direction's kernels name (an apply names tt{i} alone)
            names = {d: _named(arrays, code[d], code["fold"]) for d in ("push", "pull")}
            self.fields.append(code | {"dtype": wide, "identity": identity, "params": names})

    def __call__(self, ways, direction, listeners=None, arcs=None, folded=0):
        """Reduce along each of `ways`, folding the ways' totals vertex by vertex.

        Parameters
        ----------
        ways : list of tuple
            (graph, senders): a device graph, and a push's senders as a Frontier (None for a
            pull, or where every vertex sends).
        direction : {"pull", "push"}
        listeners : Frontier, optional
            The vertices whose lists a pull reads; None: every vertex.
        arcs : list of int, optional
            The arcs a push from way w's senders reads, ``arcs[w]``, where the caller knows
            them.
        folded : int, default 0
            The ways a call before this one reduced into the totals, which this call folds
            into (a hybrid part's bus rows after its device rows); 0: the totals start afresh.
        """
        from ..operators import neighbor_reduce

        push = direction == "push"
        if not folded:
            self.arrays["received"].fill(0)
        if not push and self.all_send:  # a vertex receives where it has an in-arc
            for graph, _ in ways:
                mark = "if (g_in[v + 1] > g_in[v]) received[v] = 1"
                _run_compute(self.n, self.arrays, None, mark, 0, {"g_in": graph.csc()[0]})
        for way, (graph, senders) in enumerate(ways):
            first = folded + way == 0
            over_bus = getattr(graph, "placement", "device") == "host"
            streams = self.stream_bus and over_bus and not push and listeners is None
            for i, f in enumerate(self.fields):
                swept = not push and listeners is None and f["pull array"] is not None
                blocking = "streamed" if streams else self.blocking if swept else None
                # a deaf vertex's total stays as it was: the apply reads none that did not receive
                part = neighbor_reduce(
                    graph,
                    senders if push else listeners,
                    self.arrays[f["pull array"]] if swept else f[direction],
                    self.reduce,
                    dtype=f["dtype"],
                    identity=f["identity"],  # gnone's: "any" stops at a value unlike it
                    direction=direction,
                    apply=None if push else f["set" if first else "fold"],
                    params=f["params"][direction] | {"gnone": f["identity"]},
                    preamble=_COMMON,
                    blocking=blocking,
                    arcs=arcs[way] if push and arcs is not None else None,
                )
                if push and first:
                    self.arrays[f"tt{i}"][:] = part
                elif push:
                    self._fold(i, part)

    def fold_in(self, ids, totals):
        """Fold totals reduced elsewhere (a hybrid run's CPU rows) into the totals, and mark their
        vertices received: ``tt{i}[v]`` folded with the given total where v had received, set to
        it where not.

        Parameters
        ----------
        ids : numpy.ndarray
            Distinct vertex ids (int32).
        totals : list of numpy.ndarray
            One host array per message field: the totals at `ids`.
        """
        import cupy

        from ..frontier import Frontier

        if not len(ids):
            return
        at = cupy.asarray(ids, dtype=cupy.int32)
        given_at = Frontier(self.n, ids=at, length=len(ids))  # distinct, in range: the caller's
        for f, given in zip(self.fields, totals, strict=True):
            part = cupy.asarray(given).astype(f["dtype"])  # the total of the i-th given vertex
            _run_compute(self.n, self.arrays, given_at, f["fold given"], 0, {"gpart": part})
        self.arrays["received"][at] = 1

    def _fold(self, i, part):
        """tt{i} folded with `part`, a second way's pushed totals, vertex by vertex."""
        _run_compute(self.n, self.arrays, None, self.fields[i]["fold pushed"], 0, {"gpart": part})
