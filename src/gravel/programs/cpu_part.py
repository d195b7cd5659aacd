"""The GPU's part of a hybrid run (:mod:`.hybrid`) played by the CPU (device "cpu"): the split,
the compressed vectors in and out and the combining, tested without a GPU. :class:`CpuPart` reads
its rows as :class:`~gravel.programs.cuda_part.CudaPart` does, the device rows and the bus rows as
graphs of their own, and times the two apart.
"""

from dataclasses import dataclass

import numpy as np

from ..placement import resolve_budget
from ..results import Timer
from .cpu import _weights, kernels
from .cuda import _ways
from .cuda_part import vertex_bytes
from .split import bus_offsets, held_lists


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
        :meth:`whole`, or :meth:`hold` and :meth:`bus`).
    """

    #: the GPU's whole share of the arcs until a pull has measured both sides
    prior_share = 0.5
    #: the bus rows' rate over the device rows' until the bus rows are measured: on the CPU both
    #: are read from the same memory
    bus_prior = 1.0

    def __init__(self, G, program, values, *, whole):
        n = G.n
        self.program, self.n, self.k = program, n, kernels(program)
        self.can_push = isinstance(program.reduce, str)  # as the GPU's atomics
        self.vertex_bytes = vertex_bytes(program)
        self.params = tuple(values.values())
        self.lists = (G.offsets, G.indices)
        out = (G.offsets, G.indices, _weights(G.weights))
        inn = G.csc()
        self.graph = _HostGraph(out, (inn[0], inn[1], _weights(inn[2])), G.directed, 0, n)
        self.ms = [np.zeros(n, f.dtype) for f in program.message]
        self.tt = [np.zeros(n, f.dtype) for f in program.message]
        self.received = np.zeros(n, np.bool_)
        self.sending = np.zeros(n, np.bool_)
        self.everyone = np.ones(n, np.bool_)
        self.touched = np.empty(n, np.int32)
        self.out = None
        self.seconds = (0.0, 0.0)

    @classmethod
    def with_home(cls, G, program, values, cpu):
        """A part and the state's engine on its side (:class:`~gravel.programs.home.CpuHome`),
        as :meth:`CudaPart.with_home <gravel.programs.cuda_part.CudaPart.with_home>` makes them.

        Parameters
        ----------
        G : Graph
        program : Program
        values : dict
            The run's parameter values.
        cpu : CpuEngine
            The engine of the CPU's rows, into whose arrays the home exports (its ways count in
            the part's bytes per vertex, as on the GPU).

        Returns
        -------
        part : CpuPart
        home : CpuHome
        """
        from .home import CpuHome

        part = cls(G, program, values, whole=False)
        part.vertex_bytes = vertex_bytes(program, len(cpu.ways))  # as the GPU's home holds
        return part, CpuHome(G, program, values, part, cpu)

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
        """Rows ``[0, k)`` of `lists`, clipped as the GPU's device copy is, as a graph whose out-
        and in-lists are both these lists (as the GPU's copy is marked undirected).

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
        held = held_lists(lists, k)
        return _HostGraph(held, held, False, 0, k)

    def bus(self, lists, k, j):
        """Rows ``[k, j)`` of `lists`, renumbered as the GPU's bus copy is
        (:func:`~gravel.programs.split.bus_offsets`), as a graph whose out- and in-lists are both
        these lists.

        Parameters
        ----------
        lists : tuple
            ``(offsets, ids, (weights, weighted))``: a set of host lists.
        k, j : int
            The bus rows' first row and the row past their last.

        Returns
        -------
        _HostGraph
            A host graph of n rows, those outside ``[k, j)`` empty; its ids and weights are views
            of `lists`.
        """
        offsets, targets, (weights, weighted) = lists
        lo, hi = int(offsets[k]), int(offsets[j])
        w = (weights[lo:hi] if weighted else weights, weighted)
        rows = (bus_offsets(offsets, k, j), targets[lo:hi], w)
        return _HostGraph(rows, rows, False, k, j)

    def _reduce(self, direction, ways, ids, arrays):
        """The SpMV along `ways`, (graph, first, stop of `ids` it pushes from), into the totals."""
        pull = direction == "pull"
        sending = self.sending if pull and ids is not None else self.everyone
        for graph, first, stop in ways:
            offsets, targets, (weights, weighted) = graph.csc if pull else graph.csr
            if pull:
                self.k["pull"](
                    *self.lists,
                    offsets,
                    targets,
                    weights,
                    weighted,
                    sending,
                    graph.lo,
                    graph.hi,
                    *arrays,
                )
            else:
                self.count = self.k["push"](
                    ids[first:stop],
                    *self.lists,
                    offsets,
                    targets,
                    weights,
                    weighted,
                    *arrays,
                    self.touched,
                    self.count,
                )

    def launch(self, direction, device, bus, ids, messages, state):
        """Run the SpMV along the `device` ways, then the `bus` ways, now (as :meth:`CudaPart.launch
        <gravel.programs.cuda_part.CudaPart.launch>` starts it), each timed apart, keeping the
        totals for :meth:`finish`.

        Parameters
        ----------
        direction : {"pull", "push"}
        device, bus : list of tuple
            (held graph, first, stop): a graph of the device rows (:meth:`hold`, :meth:`whole`)
            or of the bus rows (:meth:`bus`), and the senders ``ids[first:stop]`` a push reads
            (ignored by a pull).
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
            if direction == "pull" and ids is not None:
                self.sending[:] = False
                self.sending[ids] = True
            arrays = (*self.params, *state, *self.ms, *self.tt, self.received)
            self.count = 0
            self._reduce(direction, device, ids, arrays)
        with Timer("cpu") as b:
            self._reduce(direction, bus, ids, arrays)
        if direction == "pull":
            got = np.flatnonzero(self.received).astype(np.int32)
        else:
            got = self.touched[: self.count].copy()
        self.out = got, [tt[got] for tt in self.tt]
        self.received[got] = False
        self.seconds = (t.seconds, b.seconds if bus else 0.0)

    def finish(self):
        """The SpMV's totals, compressed, as :meth:`CudaPart.finish
        <gravel.programs.cuda_part.CudaPart.finish>` gives them.

        Returns
        -------
        ids : numpy.ndarray
            The vertices that received (int32).
        totals : list of numpy.ndarray
            Their totals, one array per message field.
        device_s, bus_s : float
            The seconds of :meth:`launch` over the device rows (the messages' upload included)
            and over the bus rows (0.0 without any), compiling left out.
        """
        return (*self.out, *self.seconds)


@dataclass(frozen=True)
class _HostGraph:
    """The host stand-in of a device graph for :class:`CpuPart`: a push reads its out-lists
    `csr`, a pull its in-lists `csc` (each ``(offsets, ids, (weights, weighted))``), as
    ``neighbor_reduce`` reads a DeviceGraph's; only rows ``[lo, hi)`` hold lists."""

    csr: tuple
    csc: tuple
    directed: bool
    lo: int
    hi: int

    def reverse(self):
        """Every arc turned around, as ``DeviceGraph.reverse``: itself when undirected."""
        if not self.directed:
            return self
        return _HostGraph(self.csc, self.csr, True, self.lo, self.hi)
