"""A program's CPU kernels: Numba source written from its expressions, compiled once per source.

State, messages and totals are held field by field (``st0, st1, ...``: an array per field).
``init`` and ``start`` run once; then each iteration runs ``send`` over the senders, ``pull``
(every vertex of a row range folds the values from its sending neighbours) or ``push`` (each
sender folds into its neighbours, recording which vertices it reached: :class:`.push.Push`, with
propagation blocking where it pays), and ``apply`` over the vertices that received. A hybrid run
(:mod:`.hybrid`) folds the other side's totals in with ``combine`` before the apply.
"""

import functools

import numpy as np

from ..compiling import watch
from .program import Active
from .push import Push
from .split import senders_below
from .values import VERTEX_NAMES

watch()  # this module compiles Numba kernels: long compilations are announced

_HEADER = """import numpy as np
from numba import njit, prange

@njit
def common(off, idx, a, b):
    i, j, c = off[a], off[b], 0
    while i < off[a + 1] and j < off[b + 1]:
        x, y = idx[i], idx[j]
        if x <= y:
            i += 1
        if y <= x:
            j += 1
        c += x == y
    return c

"""


#: the Python of the names every kernel holds alike
_BASE = {name: name for name in (*VERTEX_NAMES, "u", "a", "b")} | {
    "out_degree": "odeg[v]",
    "in_degree": "ideg[v]",
    "weight": "w",
}


def _fold(program, i, acc, val):
    """The code folding the value `val` into `acc` for message field i."""
    if not isinstance(program.reduce, str):
        return program.reduce.python({"a": acc, "b": val})
    return {
        "sum": f"{acc} + {val}",
        "min": f"min({acc}, {val})",
        "max": f"max({acc}, {val})",
        "or": f"{acc} or {val}",
        "and": f"{acc} and {val}",
        "any": acc,  # the first value stays
    }[program.reduce]


def _fold_into(program, value):
    """The lines folding each message field's value (`value` a pattern: ``"val{i}"``) into the
    totals of v, noting in ``reached[lo + c]`` a vertex reached for the first time."""
    nm = len(program.message)
    return [
        "if received[v]:",
        *(
            f"    tt{i}[v] = M{i}({_fold(program, i, f'tt{i}[v]', value.format(i=i))})"
            for i in range(nm)
        ),
        "else:",
        *(f"    tt{i}[v] = {value.format(i=i)}" for i in range(nm)),
        "    received[v] = True",
        "    reached[lo + c] = v",
        "    c += 1",
    ]


def source(program):
    """The Python source of the program's kernels (the key of the compiled cache).

    Parameters
    ----------
    program : Program

    Returns
    -------
    str
        The Numba functions ``init``, ``start``, ``send``, ``pull``, ``push_owned``,
        ``bin_fill``, ``bin_fold``, ``combine`` and ``apply``, with the program's expressions
        written in; the field types (``T{i}``, ``M{i}``) and identities (``I{i}``) are left to
        the globals :func:`kernels` gives them.
    """
    ns, nm = len(program.state), len(program.message)
    st = "".join(f"st{i}, " for i in range(ns))
    ms = "".join(f"ms{i}, " for i in range(nm))
    tt = "".join(f"tt{i}, " for i in range(nm))
    params = "".join(f"p_{k}, " for k in program.params)
    vertex = f"n, iteration, odeg, ideg, {params}"
    at_v = program.code(_BASE, state="st{i}[v]")
    lines = [
        "@njit(parallel=True)",
        f"def init({vertex}{st}):",
        "    for v in prange(n):",
        *(f"        st{i}[v] = T{i}({e.python(at_v)})" for i, e in enumerate(program.init)),
        "",
        "@njit(parallel=True)",
        f"def start({vertex}{st}active):",
        "    for v in prange(n):",
        f"        active[v] = np.bool_({program.start.python(at_v)})",
        "",
        "@njit(parallel=True)",
        f"def send(ids, {vertex}{st}{ms}):",
        "    for i in prange(ids.size):",
        "        v = ids[i]",
        *(f"        ms{i}[v] = M{i}({e.python(at_v)})" for i, e in enumerate(program.send)),
        "",
    ]
    edge = program.code(_BASE, state="st{i}[v]", message="ms{i}[u]")
    values = [f"val{i} = M{i}({e.python(edge)})" for i, e in enumerate(program.process)]
    # "any" keeps the first value: a vertex that has one reads no further
    first = program.reduce == "any"

    def folded(i):
        return f"val{i}" if first else _fold(program, i, f"acc{i}", f"val{i}")

    # where every vertex sends, an arc needs no test of its sender (a load and a branch an arc)
    everyone = program.senders == "all"
    pad = " " * (12 if everyone else 16)
    lines += [
        "@njit(parallel=True)",
        f"def pull(g_off, g_idx, offsets, sources, weights, weighted, sending, lo, hi, {params}"
        f"{st}{ms}{tt}received):",
        "    for v in prange(lo, hi):",
        "        got = received[v]",
        f"        if not ({program.listen.python(at_v)}) or (got and {first}):",
        "            continue",
        *(f"        acc{i} = tt{i}[v] if got else I{i}" for i in range(nm)),
        "        for e in range(offsets[v], offsets[v + 1]):",
        "            u = sources[e]",
        *([] if everyone else ["            if sending[u]:"]),
        f"{pad}w = weights[e] if weighted else np.float32(1)",
        *(f"{pad}{x}" for x in values),
        *(f"{pad}acc{i} = M{i}({folded(i)})" for i in range(nm)),
        f"{pad}got = True",
        *([f"{pad}break"] if first else []),
        *(f"        tt{i}[v] = acc{i}" for i in range(nm)),
        "        received[v] = got",
        "",
    ]
    bm = "".join(f"bm{i}, " for i in range(nm))
    lines += [
        "@njit(parallel=True)",
        f"def push_owned(ids, width, g_off, g_idx, offsets, targets, weights, weighted, {params}"
        f"{st}{ms}{tt}received, reached, found):",
        "    for r in prange(found.size):",
        "        lo = r * width",
        "        hi = lo + width",
        "        c = 0",
        "        for i in range(ids.size):",
        "            u = ids[i]",
        "            for e in range(offsets[u], offsets[u + 1]):",
        "                v = targets[e]",
        "                if v >= lo and v < hi:",
        "                    w = weights[e] if weighted else np.float32(1)",
        *(f"                    {x}" for x in values),
        *(f"                    {x}" for x in _fold_into(program, "val{i}")),
        "        found[r] = c",
        "",
        "@njit(parallel=True)",
        f"def bin_fill(ids, cuts, shift, place, g_off, g_idx, offsets, targets, weights, weighted, "
        f"{params}{st}{ms}bv, {bm}):",
        "    for c in prange(cuts.size - 1):",
        "        for i in range(cuts[c], cuts[c + 1]):",
        "            u = ids[i]",
        "            for e in range(offsets[u], offsets[u + 1]):",
        "                v = targets[e]",
        "                w = weights[e] if weighted else np.float32(1)",
        *(f"                {x}" for x in values),
        "                b = v >> shift",
        "                p = place[c, b]",
        "                bv[p] = v",
        *(f"                bm{i}[p] = val{i}" for i in range(nm)),
        "                place[c, b] = p + 1",
        "",
        "@njit(parallel=True)",
        f"def bin_fold(starts, shift, bv, {bm}{tt}received, reached, found):",
        "    for b in prange(found.size):",
        "        lo = b << shift",
        "        c = 0",
        "        for p in range(starts[b], starts[b + 1]):",
        "            v = bv[p]",
        *(f"            {x}" for x in _fold_into(program, "bm{i}[p]")),
        "        found[b] = c",
        "",
    ]
    vs = "".join(f"vs{i}, " for i in range(nm))
    lines += [
        "@njit(parallel=True)",
        f"def combine(ids, {vs}{tt}received, fresh):",
        "    for i in prange(ids.size):",
        "        v = ids[i]",
        "        fresh[i] = not received[v]",
        "        if received[v]:",
        *(
            f"            tt{i}[v] = M{i}({_fold(program, i, f'tt{i}[v]', f'M{i}(vs{i}[i])')})"
            for i in range(nm)
        ),
        "        else:",
        *(f"            tt{i}[v] = M{i}(vs{i}[i])" for i in range(nm)),
        "        received[v] = True",
        "",
    ]
    old = program.code(_BASE, state="o{i}", total="tt{i}[v]")
    new = program.code(_BASE, state="n{i}", old="o{i}", total="tt{i}[v]")
    lines += [
        "@njit(parallel=True)",
        f"def apply(ids, {vertex}{st}{tt}received, active):",
        "    for i in prange(ids.size):",
        "        v = ids[i]",
        "        active[v] = False",
        "        if received[v]:",
        "            received[v] = False",
        *(f"            o{i} = st{i}[v]" for i in range(ns)),
        f"            if {program.listen.python(old)}:",  # a push reaches any vertex
        *(f"                n{i} = T{i}({e.python(old)})" for i, e in enumerate(program.apply)),
        *(f"                st{i}[v] = n{i}" for i in range(ns)),
        f"                active[v] = np.bool_({program.active.python(new)})",
    ]
    return "\n".join(lines) + "\n"


@functools.lru_cache(maxsize=64)
def _compiled(text, constants):
    """The kernels of the source `text`, with `constants` (name, value) pairs in their globals."""
    scope = dict(constants)
    exec(compile(_HEADER + text, "<gravel program>", "exec"), scope)  # noqa: S102
    return scope


def kernels(program):
    """The program's kernels by name, and ``push``, a :class:`Push` with scratch arrays of its own.

    Parameters
    ----------
    program : Program

    Returns
    -------
    dict
        The namespace :func:`source` ran in: its kernels by name (Numba functions, compiled at
        their first call, then kept: programs of the same source and constants share them), and
        ``"push"``, a new :class:`Push` over them.
    """
    constants = [(f"T{i}", f.dtype.type) for i, f in enumerate(program.state)]
    constants += [(f"M{i}", f.dtype.type) for i, f in enumerate(program.message)]
    constants += [(f"I{i}", x) for i, x in enumerate(program.identity)]
    k = _compiled(source(program), tuple(constants))
    return k | {"push": Push(k, program)}


class CpuEngine:
    """The phases of :func:`gravel.programs.run` on the CPU, over host arrays.

    Parameters
    ----------
    G : Graph
        Its host CSR, and CSC, are read.
    program : Program
    values : dict
        The run's parameter values (:meth:`Program.bind <gravel.programs.Program.bind>`).

    Attributes
    ----------
    can_push : bool
        True: the CPU pushes with any reduce.
    push_degree : numpy.ndarray
        The arcs a push from each vertex reads, along every way.
    states, messages, totals : list of numpy.ndarray
        One array per field of the state, of the message and of the totals.
    """

    can_push = True

    def __init__(self, G, program, values):
        n = G.n
        self.program, self.n, self.kernels = program, n, kernels(program)
        self.params = tuple(values.values())
        self.degrees = (G.out_degree, G.in_degree)
        self.lists = (G.offsets, G.indices)  # what common(a, b) intersects
        out = (G.offsets, G.indices, _weights(G.weights))
        inn = G.csc()
        inn = (inn[0], inn[1], _weights(inn[2]))
        #: (push lists, pull lists) of each way messages travel
        ways = {"out": [(out, inn)], "in": [(inn, out)], "both": [(out, inn), (inn, out)]}
        self.ways = ways[program.direction][: 2 if G.directed else 1]
        #: the arcs a push from each vertex reads, along every way
        self.push_degree = sum(np.diff(push[0]) for push, _ in self.ways)
        #: the state, the messages and the totals, one array per field
        self.states = [np.zeros(n, f.dtype) for f in program.state]
        self.messages = [np.zeros(n, f.dtype) for f in program.message]
        self.totals = [np.zeros(n, f.dtype) for f in program.message]
        self.received = np.zeros(n, np.bool_)
        self.active = np.zeros(n, np.bool_)
        self.everyone = np.ones(n, np.bool_)
        self.every = np.arange(n, dtype=np.int32)
        self.touched = np.empty(n, np.int32)

    def _vertex(self, iteration):
        return (self.n, iteration, *self.degrees, *self.params)

    def init(self, state):
        """Set the starting state (`state`, or the program's init) and the starting actives.

        Parameters
        ----------
        state : list of numpy.ndarray or None
            One host array per state field; None: the program's `init`.
        """
        self.kernels["init"](*self._vertex(0), *self.states)
        for mine, given in zip(self.states, state or (), strict=False):
            mine[:] = given
        self.kernels["start"](*self._vertex(0), *self.states, self.active)

    def actives(self):
        """The active vertices, listed.

        Returns
        -------
        Active
            Their count and ids (int32, sorted); ``arcs`` None.
        """
        ids = np.flatnonzero(self.active).astype(np.int32)
        return Active(ids.size, None, ids)

    def senders(self, active):
        """The vertices that send this iteration: every vertex, or the (sorted) active ones.

        Parameters
        ----------
        active : numpy.ndarray
            The active vertices' ids (int32, sorted).

        Returns
        -------
        numpy.ndarray
            int32 ids: 0..n-1 where every vertex sends, else `active` itself.
        """
        return self.every if self.program.senders == "all" else active

    def step(self, active, iteration, direction):
        """One iteration from the active vertices: send, pull or push, apply.

        Parameters
        ----------
        active : Active
            The active vertices (:meth:`actives`).
        iteration : int
            The iteration, 0 first.
        direction : {"pull", "push"}
        """
        self.send(active.ids, iteration)
        self.apply(self.reduce(active.ids, direction), iteration)

    def send(self, active, iteration):
        """Every sender's message into ``messages``.

        Parameters
        ----------
        active : numpy.ndarray
            The active vertices' ids (int32, sorted): the senders, unless every vertex sends.
        iteration : int
            The iteration, 0 first.
        """
        self.kernels["send"](
            self.senders(active), *self._vertex(iteration), *self.states, *self.messages
        )

    def reduce(self, active, direction, first=None):
        """Fold the messages into the totals along every way.

        Parameters
        ----------
        active : numpy.ndarray
            The active vertices' ids (int32, sorted).
        direction : {"pull", "push"}
            A pull over the rows from ``first[w]`` on of way w's in-lists, or a push from the
            senders from row ``first[w]`` on. A push also clears the active vertices' flags
            (the apply sets them again where it reaches them).
        first : sequence of int, optional
            The first row of each way that the CPU takes (a hybrid run's split); None: every
            row.

        Returns
        -------
        numpy.ndarray
            The vertices that may have received (int32): every vertex after a pull, those a
            push reached for the first time after a push (a view of scratch space, valid until
            the next push).
        """
        first = first or (0,) * len(self.ways)
        arrays = (*self.params, *self.states, *self.messages, *self.totals, self.received)
        if direction == "pull":
            sending = self.everyone if self.program.senders == "all" else self.active
            for (_, (offsets, sources, (w, weighted))), lo in zip(self.ways, first, strict=True):
                self.kernels["pull"](
                    *self.lists, offsets, sources, w, weighted, sending, lo, self.n, *arrays
                )
            return self.every
        senders = self.senders(active)
        self.active[active] = False
        count = 0
        for ((offsets, targets, (w, weighted)), _), lo in zip(self.ways, first, strict=True):
            count = self.kernels["push"](
                senders[senders_below(senders, lo) :],
                *self.lists,
                offsets,
                targets,
                w,
                weighted,
                *arrays,
                self.touched,
                count,
            )
        return self.touched[:count]

    def combine(self, ids, values):
        """Fold totals reduced elsewhere into ``totals``.

        Parameters
        ----------
        ids : numpy.ndarray
            Distinct vertex ids (int32).
        values : list of numpy.ndarray
            One array per message field: the totals at `ids`.

        Returns
        -------
        numpy.ndarray
            bool, one per entry of `ids`: True where the vertex had received nothing here.
        """
        fresh = np.empty(ids.size, np.bool_)
        self.kernels["combine"](ids, *values, *self.totals, self.received, fresh)
        return fresh

    def apply(self, reached, iteration):
        """The new state of the vertices of `reached` that received; their activity.

        Parameters
        ----------
        reached : numpy.ndarray
            Vertex ids (int32), each at most once: those that may have received.
        iteration : int
            The iteration, 0 first.
        """
        vertex = self._vertex(iteration)
        self.kernels["apply"](
            reached, *vertex, *self.states, *self.totals, self.received, self.active
        )

    def state(self):
        """The state.

        Returns
        -------
        list of numpy.ndarray
            One array per state field: the engine's own, not copies.
        """
        return self.states


def _weights(w):
    """(weights, whether there are any): a one-element stand-in when the graph has none."""
    return (np.ones(1, np.float32), False) if w is None else (w, True)
