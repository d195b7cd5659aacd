"""A program's GPU phases on the operators, with its expressions written in CUDA C++.

``compute`` runs init, start, send and apply over every vertex (send for the active ones where
only they send); ``neighbor_reduce`` runs the SpMV or the SpMSpV between send and apply
(:class:`~gravel.programs.cuda_spmv.Spmv`). A vertex that does not `listen` keeps its state at
the apply, and a pull (where the engine holds the state) reads the lists of the listening vertices
only.
"""

import numpy as np

from ..operators.codegen import CTYPES
from .cuda_spmv import _BASE, Spmv, _named, _run_compute, _wide
from .program import Active


class CudaEngine:
    """The phases of :func:`gravel.programs.run` on the GPU, over CuPy arrays.

    The host reads the device once an iteration: the start and every apply also count the active
    vertices, the arcs a push from them reads along each way and the vertices that listen next (a
    sum each, in the same pass), and set the bits of the active vertices (where a push may list
    them) and of the listeners in bitmaps, from which a push's senders and a pull's listeners are
    listed without a read-back of their number.

    Parameters
    ----------
    G : Graph
        Copied to the GPU (``G.to("cuda")``) where it has no device copy.
    program : Program
    values : dict
        The run's parameter values (:meth:`Program.bind <gravel.programs.Program.bind>`).

    Attributes
    ----------
    can_push : bool
        Whether a push can run: a named reduce (the atomics').
    push_degree : cupy.ndarray
        The arcs a push from each vertex reads, along every way (int64).
    """

    def __init__(self, G, program, values):
        import cupy

        dg = G.to("cuda")
        self.ways = _ways(dg, program, G.directed)
        degrees = [cupy.diff(graph.offsets) for graph in self.ways]  # each way's, kept as g_deg{w}
        ideg = cupy.diff(dg.csc()[0]).astype(cupy.int32)
        self._vertices(G.n, program, values, degrees, dg.out_degree, ideg, dg.offsets, dg.indices)
        self.spmv = Spmv(program, G.n, self.arrays, blocking="auto")

    @classmethod
    def vertices_only(cls, G, program, values, push_offsets):
        """An engine of the vertex phases alone (init, send, apply, the flags), without a copy of
        the graph: a hybrid run's state on the GPU (:mod:`.home`), whose SpMV its part runs over
        the rows it holds. ``step`` is not available.

        Parameters
        ----------
        G : Graph
            Its host degrees are copied.
        program : Program
        values : dict
            The run's parameter values.
        push_offsets : list of numpy.ndarray
            The host offsets of the lists a push reads along each way.

        Returns
        -------
        CudaEngine
        """
        import cupy

        self = cls.__new__(cls)
        degrees = [cupy.asarray(np.diff(offsets)) for offsets in push_offsets]
        odeg = cupy.asarray(G.out_degree, dtype=cupy.int32)
        ideg = cupy.asarray(G.in_degree, dtype=cupy.int32)
        self._vertices(G.n, program, values, degrees, odeg, ideg, None, None)
        return self

    @classmethod
    def of_part(cls, graph, ids, size, n, program, values):
        """An engine over one part of a distributed graph (:mod:`gravel.distributed`), which its
        caller drives phase by phase (:meth:`send`, :meth:`reduce`, :meth:`apply`), writing the
        ghosts' messages and sending flags (``ms``, ``active`` past `size`) before each reduce.

        Parameters
        ----------
        graph : DeviceGraph
            The part: `size` own vertices, then the ghosts, whose lists are empty.
        ids : cupy.ndarray of int32
            The global id of each of its vertices: what the expressions see as ``v`` and ``u``.
        size : int
            The own vertices, which the vertex phases run over.
        n : int
            The whole graph's vertices: the expressions' ``n``.
        program : Program
        values : dict
            The run's parameter values.

        Returns
        -------
        CudaEngine
            Its vertex arrays over every vertex of `graph`; it pulls only.
        """
        import cupy

        self = cls.__new__(cls)
        self.ways = _ways(graph, program, graph.directed)
        degrees = [cupy.diff(way.offsets) for way in self.ways]
        ideg = cupy.diff(graph.csc()[0]).astype(cupy.int32)
        base = _BASE | {"v": "g_gid[v]", "u": "g_gid[u]"}
        odeg = graph.out_degree
        self._vertices(size, program, values, degrees, odeg, ideg, None, None, graph.n, base)
        self.arrays |= {"g_gid": ids, "gn": np.int32(n)}
        self.spmv = Spmv(program, size, self.arrays, blocking="auto", base=base)
        return self

    def _vertices(
        self, n, program, values, degrees, odeg, ideg, g_off, g_idx, held=None, base=_BASE
    ):
        """The vertex arrays, the flags and the code of send and apply, from each way's push
        degrees (device arrays), the out- and in-degrees and the lists common(a, b) reads; the
        vertex phases run over vertices 0..n-1, the arrays hold `held` (default n)."""
        import cupy

        self.program, self.n, self.way_count = program, n, len(degrees)
        self.held = held = held or n
        self.base = base
        self.can_push = isinstance(program.reduce, str)
        #: the arcs a push from each vertex reads, along every way
        self.push_degree = sum(degrees)
        self.st = [cupy.zeros(held, f.dtype) for f in program.state]
        self.ms = [cupy.zeros(held, f.dtype) for f in program.message]
        self.tt = [cupy.zeros(held, _wide(f.dtype)) for f in program.message]
        self.active = cupy.zeros(held, cupy.uint8)
        self.received = cupy.zeros(held, cupy.int32)
        self.arrays = {f"st{i}": a for i, a in enumerate(self.st)}
        self.arrays |= {f"ms{i}": a for i, a in enumerate(self.ms)}
        self.arrays |= {f"tt{i}": a for i, a in enumerate(self.tt)}
        self.arrays |= {"active": self.active, "received": self.received}
        self.arrays |= {"odeg": odeg, "ideg": ideg, "gn": np.int32(n)}
        self.arrays |= {"g_off": g_off, "g_idx": g_idx}
        self.arrays |= {f"g_deg{w}": d for w, d in enumerate(degrees)}
        self.arrays |= {f"p_{k}": x for k, x in values.items()}
        listing = self.can_push and program.senders != "all"
        #: the bitmaps the flags set: the senders a push lists, the vertices a pull reads
        self.bitmaps = ["g_sending"] * listing + ["g_hearing"] * program.listens
        self.arrays |= {name: cupy.zeros((held + 31) // 32, cupy.uint32) for name in self.bitmaps}
        self.send_code = _send_code(program, base, guarded=program.senders != "all")
        self.apply_code = _apply_code(program, base)
        self.flags, self.terms = _flag_code(program, base, len(degrees), listing)
        self.sums = self.way_arcs = self.listening = None

    def _compute(self, frontier, statement, iteration):
        _run_compute(self.n, self.arrays, frontier, statement, iteration)

    def _flagged(self, statement, iteration):
        """`statement` over every vertex, then the flags and their sums (kept for `actives`)."""
        from ..operators import compute_sums

        for name in self.bitmaps:
            self.arrays[name].fill(0)
        op = f"{statement} {self.flags}"
        params = _named(self.arrays | {"giter": np.int32(iteration)}, op, *self.terms)
        self.sums = compute_sums(None, self.terms, op=op, params=params, n=self.n)

    def init(self, state):
        """Set the starting state (`state`, or the program's init) and the starting actives.

        Parameters
        ----------
        state : list of numpy.ndarray or None
            One host array per state field, of the first vertices (every vertex, or a part's own
            ones); None: the program's `init`.
        """
        import cupy

        at_v = self.program.code(self.base, state="st{i}[v]")
        p = self.program
        self._compute(
            None,
            " ".join(
                f"st{i}[v] = ({CTYPES[f.dtype]})({e.cuda(at_v)});"
                for i, (f, e) in enumerate(zip(p.state, p.init, strict=True))
            ),
            0,
        )
        for mine, given in zip(self.st, state or (), strict=False):
            mine[: self.n] = cupy.asarray(given)
        self._flagged(f"active[v] = ({p.start.cuda(at_v)}) ? 1 : 0;", 0)

    def actives(self):
        """The active vertices' count and push arcs, read from the last flags' sums (the one sync
        of an iteration).

        Returns
        -------
        Active
            Their count and the arcs a push from them reads along every way; no ids.
        """
        sums = [int(x) for x in self.sums.get()]
        self.way_arcs = sums[1 : 1 + self.way_count]
        if self.program.listens:
            self.listening = sums[-1]
        return Active(sums[0], sum(self.way_arcs))

    def _listed(self, bits, count):
        """The vertices whose bits are set in the bitmap `bits` (there are `count`), as a sparse
        Frontier (in range: no check)."""
        from ..frontier import Frontier

        return Frontier(self.held, bitmap=self.arrays[bits], length=count).to_sparse()

    def step(self, active, iteration, direction):
        """One iteration from the active vertices: :meth:`send`, :meth:`reduce`, :meth:`apply`.

        Parameters
        ----------
        active : Active
            The active vertices (:meth:`actives`).
        iteration : int
            The iteration, 0 first.
        direction : {"pull", "push"}
        """
        self.send(iteration)
        self.reduce(active, direction)
        self.apply(iteration)

    def send(self, iteration):
        """Write the messages (``ms``) of the vertices that send.

        Parameters
        ----------
        iteration : int
        """
        self._compute(None, self.send_code, iteration)

    def reduce(self, active, direction):
        """The SpMV: every listening vertex's totals from its senders' messages.

        Parameters
        ----------
        active : Active or None
            The active vertices (:meth:`actives`): a push lists its senders from them; a pull
            reads none (None will do).
        direction : {"pull", "push"}
        """
        push = direction == "push"
        senders = None  # every vertex
        if push and self.program.senders != "all":
            senders = self._listed("g_sending", active.count)
        if push:
            listeners = None
        else:
            listeners = self._listed("g_hearing", self.listening) if self.program.listens else None
        ways = [(graph, senders if push else None) for graph in self.ways]
        arcs = self.way_arcs if senders is not None else None
        self.spmv(ways, direction, listeners=listeners, arcs=arcs)

    def apply(self, iteration):
        """Apply the totals, and set the flags the next :meth:`actives` reads.

        Parameters
        ----------
        iteration : int
        """
        self._flagged(self.apply_code, iteration)

    def state(self):
        """The state, copied to the host.

        Returns
        -------
        list of numpy.ndarray
            One array per state field.
        """
        return [a.get() for a in self.st]


def _flag_code(p, base, ways, listing):
    """(the statement over v that flags v where a later step lists it, the terms summed beside it:
    active vertices, each way's push arcs from them, and, where the program listens, the
    vertices that listen next). `listing`: a push lists its senders (the active vertices' bits
    in ``g_sending``); the listeners' bits go to ``g_hearing``."""
    terms = ["(double)active[v]"] + [f"active[v] ? (double)g_deg{w}[v] : 0.0" for w in range(ways)]
    code = []
    if listing:
        code.append("if (active[v]) atomicOr(&g_sending[v >> 5], 1u << (v & 31));")
    if p.listens:
        at_v = p.code(base, state="st{i}[v]")
        code.append(f"const bool g_hears = ({p.listen.cuda(at_v)});")
        code.append("if (g_hears) atomicOr(&g_hearing[v >> 5], 1u << (v & 31));")
        terms.append("g_hears ? 1.0 : 0.0")
    return " ".join(code), terms


def _send_code(p, base, guarded=False):
    """The statement over v that writes each message field ``ms{i}[v]``; `guarded`: for the
    active vertices only (the others' messages are never read)."""
    at_v = p.code(base, state="st{i}[v]")
    writes = " ".join(
        f"ms{i}[v] = ({CTYPES[f.dtype]})({e.cuda(at_v)});"
        for i, (f, e) in enumerate(zip(p.message, p.send, strict=True))
    )
    return f"if (active[v]) {{ {writes} }}" if guarded else writes


def _apply_code(p, base):
    """The statement over v that applies a vertex's totals: its state where it received and
    listens, and whether it is active next."""
    old = p.code(base, state="o{i}", total="tt{i}[v]")
    new = p.code(base, state="n{i}", old="o{i}", total="tt{i}[v]")
    olds = " ".join(f"{CTYPES[f.dtype]} o{i} = st{i}[v];" for i, f in enumerate(p.state))
    body = [
        f"{CTYPES[f.dtype]} n{i} = ({CTYPES[f.dtype]})({e.cuda(old)});"
        for i, (f, e) in enumerate(zip(p.state, p.apply, strict=True))
    ]
    body += [f"st{i}[v] = n{i};" for i in range(len(p.state))]
    body.append(f"active[v] = ({p.active.cuda(new)}) ? 1 : 0;")
    return (
        f"active[v] = 0; if (received[v]) {{ {olds} "
        f"if ({p.listen.cuda(old)}) {{ {' '.join(body)} }} }}"
    )


def _ways(dg, program, directed):
    """The device graphs messages travel along: dg, its reverse, or both (one when undirected)."""
    ways = {"out": [dg], "in": [dg.reverse()], "both": [dg, dg.reverse()]}
    return ways[program.direction][: 2 if directed else 1]
