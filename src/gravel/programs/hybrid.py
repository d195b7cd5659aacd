"""Hybrid CPU-GPU execution of a vertex program: ``programs.run(..., execution=...)``.

``"hybrid-seed"`` is GraphMat on CPU-GPU (seed 003): the state, send and apply stay on the CPU, the
whole SpMV runs on the GPU over the graph as ``G.to("cuda")`` places it, and each iteration the
senders' messages cross the bus as a compressed sparse vector (their ids and values; the values
alone when every vertex sends) and the totals come back the same way (the vertices that received,
their totals).

``"hybrid"`` goes further: each set of lists is cut by rows (:mod:`.split`), the GPU holding rows
``[0, k)`` in device memory within the budget and the CPU (Numba, every core) taking the rest.
The GPU's part is launched, the CPU's runs meanwhile, and the GPU's totals are folded into the
CPU's, where the state lives. After each pull iteration (but the first over a new split) the split
moves toward the share at which both sides finish together, from the arcs each took and its time
(a push's frontier is too small a sample: it takes the split as it stands).

On device "cpu" the GPU's part runs on the CPU as well (:class:`CpuPart`, before the CPU's own):
the split, the compressed vectors and the combining, tested without a GPU. It reads lists as the
GPU does: ``"hybrid-seed"`` holds a graph per way of the program (the graph or its reverse, a push
reading its out-lists and a pull its in-lists), a split a set of lists that either reads.
"""

from dataclasses import dataclass

import numpy as np

from ..placement import resolve_budget
from ..results import Timer
from .cpu import CpuEngine, _weights, kernels
from .cuda import _ways
from .cuda_part import vertex_bytes
from .split import (
    balanced_share,
    cap_share,
    next_share,
    push_arcs,
    room_arcs,
    rows_for,
    senders_below,
    share_offsets,
)

#: how ``programs.run`` executes: on one device, as the seed's hybrid, or split between both
EXECUTIONS = ("single", "hybrid-seed", "hybrid")


@dataclass
class _Rows:
    """A set of lists, ``(offsets, ids, (weights, weighted))`` on the host, of which the GPU's
    part holds rows ``[0, k)`` (`held`: its copy)."""

    lists: tuple
    k: int = 0
    held: object = None

    @property
    def offsets(self):
        return self.lists[0]

    @property
    def arcs(self):
        return int(self.offsets[-1])

    @property
    def part_arcs(self):
        return int(self.offsets[self.k])


class HybridEngine:
    """The phases of :func:`gravel.programs.run` with the state on the CPU and the SpMV shared
    with a part (:class:`~gravel.programs.cuda_part.CudaPart` on "cuda", :class:`CpuPart` on "cpu").

    Parameters
    ----------
    G : Graph
    program : Program
    values : dict
        The run's parameter values (:meth:`Program.bind <gravel.programs.Program.bind>`).
    execution : {"hybrid-seed", "hybrid"}
        The whole SpMV on the part, or the lists split between the part and the CPU.
    device : {"cpu", "cuda"}
        Where the part runs.
    directions : set of str
        Those the run may take (``"pull"``, ``"push"``), whose lists the split holds.

    Attributes
    ----------
    can_push : bool
        Whether a push can run: the part's (a named reduce).
    share : float
        The part's share of the arcs (1.0 for "hybrid-seed").
    cap : float
        The largest share the part's memory holds.
    """

    def __init__(self, G, program, values, *, execution, device, directions):
        self.program, self.n = program, G.n
        self.cpu = CpuEngine(G, program, values)
        whole = execution == "hybrid-seed"
        if device == "cuda":
            from .cuda_part import CudaPart

            self.part = CudaPart(G, program, values, whole=whole)
        else:
            self.part = CpuPart(G, program, values, whole=whole)
        self.can_push = self.part.can_push
        self.adjusting = not whole
        if whole:
            # the part's whole graphs are a way's (the graph or its reverse), not a set of lists:
            # each way keeps its own, though "both" ways of a directed graph read the same two sets
            self.ways = [
                tuple(
                    _Rows(lists, self.n, held)
                    for lists, held in zip(pair, self.part.whole(way, pair), strict=True)
                )
                for way, pair in enumerate(self.cpu.ways)
            ]
            self.cap = self.share = 1.0
            return
        sets = {}  # a split holds a set of lists once, whichever ways read it
        self.ways = [
            tuple(sets.setdefault(id(lists[1]), _Rows(lists)) for lists in pair)
            for pair in self.cpu.ways
        ]
        used = [pair[d == "pull"] for pair in self.ways for d in sorted(directions)]
        self.used = list({id(rows): rows for rows in used}.values())
        arc_bytes = G.indices.itemsize + (4 if G.weighted else 0)
        room = room_arcs(
            self.part.limit(), self.n, self.part.vertex_bytes, len(self.used), arc_bytes
        )
        self.cap = cap_share(room, sum(rows.arcs for rows in self.used))
        self.share = None
        self._place(min(self.part.prior_share, self.cap))

    def _place(self, share):
        """Split every used set of lists at `share` of its arcs: the part copies the rows it
        takes (its old copy dropped first, so that the two never share the device)."""
        if share == self.share:
            return
        self.share, self.settled = share, False
        for rows in self.used:
            k = rows_for(rows.offsets, share)
            if k != rows.k or rows.held is None:
                rows.held, rows.k = None, k
                rows.held = self.part.hold(rows.lists, k) if rows.part_arcs else None

    def init(self, state):
        """Set the starting state on the CPU (:meth:`CpuEngine.init
        <gravel.programs.cpu.CpuEngine.init>`).

        Parameters
        ----------
        state : list of numpy.ndarray or None
            One host array per state field; None: the program's `init`.
        """
        self.cpu.init(state)

    def actives(self):
        """The active vertices, listed by the CPU.

        Returns
        -------
        Active
            Their count and ids (int32, sorted).
        """
        return self.cpu.actives()

    @property
    def push_degree(self):
        """The arcs a push from each vertex reads, along every way (the CPU's)."""
        return self.cpu.push_degree

    def state(self):
        """The state, on the CPU.

        Returns
        -------
        list of numpy.ndarray
            One array per state field: the CPU engine's own.
        """
        return self.cpu.state()

    def step(self, active, iteration, direction):
        """One iteration: send on the CPU; the part's SpMV launched, the CPU's meanwhile; the
        part's totals combined into the CPU's; apply.

        After a pull (but the first over a new split) of a "hybrid" run, the split moves toward
        the share at which both sides finish together (:func:`~gravel.programs.split.next_share`).

        Parameters
        ----------
        active : Active
            The active vertices (:meth:`actives`).
        iteration : int
            The iteration, 0 first.
        direction : {"pull", "push"}

        Returns
        -------
        gpu_share : float
            The part's share of the iteration's arcs (0.0 where there were none).
        gpu_s : float
            The part's seconds.
        cpu_s : float
            The CPU's seconds of its share of the SpMV.
        """
        cpu, pull, active = self.cpu, direction == "pull", active.ids
        cpu.send(active, iteration)
        senders = cpu.senders(active)
        sets = [pair[pull] for pair in self.ways]
        if pull:
            counts = [None] * len(sets)
            ids = None if self.program.senders == "all" else senders
        else:
            counts = [senders_below(senders, rows.k) for rows in sets]
            ids = senders[: max(counts)]
        messages = cpu.messages if ids is None else [m[ids] for m in cpu.messages]
        ways = [
            (rows.held, c)
            for rows, c in zip(sets, counts, strict=True)
            if rows.held is not None and rows.part_arcs and (pull or c)
        ]
        self.part.launch(direction, ways, ids, messages, cpu.states)
        with Timer("cpu") as t:
            reached = cpu.reduce(active, direction, [rows.k for rows in sets])
        got, totals, part_s = self.part.finish()
        fresh = cpu.combine(got, totals)
        if not pull:
            reached = np.concatenate((reached, got[fresh]))
        cpu.apply(reached, iteration)
        if pull:
            part_arcs = sum(rows.part_arcs for rows in sets)
            cpu_arcs = sum(rows.arcs for rows in sets) - part_arcs
        else:
            split = [push_arcs(rows.offsets, senders, rows.k) for rows in sets]
            part_arcs, cpu_arcs = (sum(x) for x in zip(*split, strict=True))
        if pull and self.adjusting:
            if self.settled:
                balance = balanced_share(part_arcs, part_s, cpu_arcs, t.seconds)
                self._place(next_share(self.share, balance, self.cap))
            else:  # the first pull over a new copy builds its layouts: no fair measure
                self.settled = True
        total = part_arcs + cpu_arcs
        return (part_arcs / total if total else 0.0), part_s, t.seconds


class CpuPart:
    """The GPU's side of a hybrid run played by the CPU: the same split and compressed vectors in
    and out, its kernels over the rows it holds run at launch (device "cpu": for tests).

    Parameters
    ----------
    G : Graph
    program : Program
    values : dict
        The run's parameter values (:meth:`Program.bind <gravel.programs.Program.bind>`).
    whole : bool
        Accepted as :class:`~gravel.programs.cuda_part.CudaPart` takes it; unused (the engine calls
        :meth:`whole` or :meth:`hold`).
    """

    prior_share = 0.5

    def __init__(self, G, program, values, *, whole):
        n = G.n
        self.program, self.n, self.k = program, n, kernels(program)
        self.can_push = isinstance(program.reduce, str)  # as the GPU's atomics
        self.vertex_bytes = vertex_bytes(program)
        self.params = tuple(values.values())
        self.lists = (G.offsets, G.indices)
        out = (G.offsets, G.indices, _weights(G.weights))
        inn = G.csc()
        self.graph = _HostGraph(out, (inn[0], inn[1], _weights(inn[2])), G.directed, n)
        self.ms = [np.zeros(n, f.dtype) for f in program.message]
        self.tt = [np.zeros(n, f.dtype) for f in program.message]
        self.received = np.zeros(n, np.bool_)
        self.sending = np.zeros(n, np.bool_)
        self.everyone = np.ones(n, np.bool_)
        self.touched = np.empty(n, np.int32)
        self.out = None

    def limit(self):
        """Bytes the split may fill: the device-memory budget, as on the GPU.

        Returns
        -------
        int or None
            :func:`gravel.placement.resolve_budget`'s: None where no budget is set.
        """
        return resolve_budget()

    def whole(self, way, lists):
        """(push graph, pull graph) of way `way` over the whole graph, chosen as the GPU's are
        (:func:`~gravel.programs.cuda._ways` over the host lists: the graph or its reverse, a
        push reading its out-lists and a pull its in-lists); `lists`, the CPU's, are not used.

        Parameters
        ----------
        way : int
            The index of the way among the program's.
        lists : tuple
            The CPU's lists of that way; unused.

        Returns
        -------
        tuple of _HostGraph
            The way's host graph (the graph or its reverse), twice.
        """
        graph = _ways(self.graph, self.program, self.graph.directed)[way]
        return graph, graph

    def hold(self, lists, k):
        """Rows ``[0, k)`` of `lists`, clipped as the GPU's copy is, as a graph whose out- and
        in-lists are both these lists (as the GPU's copy is marked undirected).

        Parameters
        ----------
        lists : tuple
            ``(offsets, ids, (weights, weighted))``: a set of host lists.
        k : int
            The split row.

        Returns
        -------
        _HostGraph
            A host graph of n rows, those from k on empty; its ids and weights are views of
            `lists`.
        """
        offsets, targets, (weights, weighted) = lists
        offsets = share_offsets(offsets, k)
        m = int(offsets[-1])
        clipped = (offsets, targets[:m], (weights[:m] if weighted else weights, weighted))
        return _HostGraph(clipped, clipped, False, k)

    def launch(self, direction, ways, ids, messages, state):
        """Run the SpMV along `ways` now (as :meth:`CudaPart.launch
        <gravel.programs.cuda_part.CudaPart.launch>` starts it), keeping its totals for
        :meth:`finish`.

        Parameters
        ----------
        direction : {"pull", "push"}
        ways : list of tuple
            (held graph, how many of `ids` it pushes from; None for a pull).
        ids : numpy.ndarray or None
            The senders (int32, sorted); None: every vertex sends.
        messages : list of numpy.ndarray
            One array per message field: the senders' values, in the order of `ids` (or one per
            vertex).
        state : list of numpy.ndarray
            The state, one array per field.
        """
        with Timer("cpu") as t:
            if ids is None:
                for mine, given in zip(self.ms, messages, strict=True):
                    mine[:] = given
            else:
                for mine, given in zip(self.ms, messages, strict=True):
                    mine[ids] = given
            sending = self.everyone
            if direction == "pull" and ids is not None:
                sending = self.sending
                sending[:] = False
                sending[ids] = True
            arrays = (*self.params, *state, *self.ms, *self.tt, self.received)
            count = 0
            for graph, c in ways:
                lists = graph.csc if direction == "pull" else graph.csr
                offsets, targets, (weights, weighted) = lists
                k = graph.k
                if direction == "pull":
                    self.k["pull"](
                        *self.lists, offsets, targets, weights, weighted, sending, 0, k, *arrays
                    )
                else:
                    count = self.k["push"](
                        ids[:c],
                        *self.lists,
                        offsets,
                        targets,
                        weights,
                        weighted,
                        *arrays,
                        self.touched,
                        count,
                    )
            if direction == "pull":
                got = np.flatnonzero(self.received).astype(np.int32)
            else:
                got = self.touched[:count].copy()
            self.out = got, [tt[got] for tt in self.tt]
            self.received[got] = False
        self.seconds = t.seconds

    def finish(self):
        """The SpMV's totals, compressed, as :meth:`CudaPart.finish
        <gravel.programs.cuda_part.CudaPart.finish>` gives them.

        Returns
        -------
        ids : numpy.ndarray
            The vertices that received (int32).
        totals : list of numpy.ndarray
            Their totals, one array per message field.
        seconds : float
            The seconds of :meth:`launch`, compiling left out.
        """
        return (*self.out, self.seconds)


@dataclass(frozen=True)
class _HostGraph:
    """The host stand-in of a device graph for :class:`CpuPart`: a push reads its out-lists
    `csr`, a pull its in-lists `csc` (each ``(offsets, ids, (weights, weighted))``), as
    ``neighbor_reduce`` reads a DeviceGraph's; rows from `k` on are empty."""

    csr: tuple
    csc: tuple
    directed: bool
    k: int

    def reverse(self):
        """Every arc turned around, as ``DeviceGraph.reverse``: itself when undirected."""
        if not self.directed:
            return self
        return _HostGraph(self.csc, self.csr, True, self.k)
