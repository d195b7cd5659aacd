"""Hybrid CPU-GPU execution of a vertex program: ``programs.run(..., execution=...)``.

``"hybrid-seed"`` is GraphMat on CPU-GPU (seed 003): the state, send and apply stay on the CPU, the
whole SpMV runs on the GPU over the graph as ``G.to("cuda")`` places it, and each iteration the
senders' messages cross the bus as a compressed sparse vector (their ids and values; the values
alone when every vertex sends) and the totals come back the same way (the vertices that received,
their totals).

``"hybrid"`` goes further: each set of lists is cut by rows into three shares (:mod:`.split`):
the GPU holds rows ``[0, k)`` in device memory within the budget, reads rows ``[k, j)`` from
pinned host memory over the bus, and the CPU (Numba, every core) takes rows ``[j, n)``. The GPU's
part is launched, the CPU's runs meanwhile, and one side's totals are folded into the other's,
where the state lives: on the side expected to do most of the work (the part's prior share over
a half: the GPU's, :mod:`.home`, which then sends the CPU the senders' messages and gets its
rows' totals back), else on the CPU. After each pull iteration (but the first over a new
split) the split moves toward the share at which both sides finish together, from the arcs each
share took and its time (a push's frontier is too small a sample: it takes the split as it
stands); with the state on the GPU's side, it gives the GPU every arc where that is expected to
be clearly quicker than the balance plus the copies between the sides, which then stop. Where the
budget holds every list, there are no bus rows (j == k).

On device "cpu" the GPU's part runs on the CPU as well (:class:`~.cpu_part.CpuPart`, before the
CPU's own): the split, the compressed vectors and the combining, tested without a GPU. It reads
lists as the GPU does: ``"hybrid-seed"`` holds a graph per way of the program (the graph or its
reverse, a push reading its out-lists and a pull its in-lists), a split a set of lists that either
reads.
"""

from dataclasses import dataclass

import numpy as np

from ..results import Timer
from .cpu import CpuEngine
from .split import (
    cap_share,
    next_share,
    push_arcs,
    rate,
    room_arcs,
    rows_for,
    senders_below,
    split_share,
)

#: how ``programs.run`` executes: on one device, as the seed's hybrid, or split between both
EXECUTIONS = ("single", "hybrid-seed", "hybrid")


def _narrow_sums(program):
    """Whether a message field narrower than 4 bytes folds by sum or a custom reduce: the CPU's
    totals of such a field wrap in its type, the GPU's do not (it reduces in int32), so partial
    totals of both would mix two arithmetics; the state then stays on the CPU, whose combine
    narrows the GPU's totals as its own."""
    named = program.reduce in ("min", "max", "or", "and", "any")
    return not named and any(f.dtype.itemsize < 4 for f in program.message)


@dataclass
class _Rows:
    """A set of lists, ``(offsets, ids, (weights, weighted))`` on the host, of which the GPU's
    part holds rows ``[0, k)`` in device memory (`held`: its copy) and reads rows ``[k, j)`` over
    the bus (`bus`: its graph of them)."""

    lists: tuple
    k: int = 0
    held: object = None
    j: int = 0
    bus: object = None

    @property
    def offsets(self):
        return self.lists[0]

    @property
    def arcs(self):
        return int(self.offsets[-1])

    @property
    def part_arcs(self):
        return int(self.offsets[self.k])

    @property
    def bus_arcs(self):
        return int(self.offsets[self.j]) - self.part_arcs


class HybridEngine:
    """The phases of :func:`gravel.programs.run` with the state on the CPU and the SpMV shared
    with a part (:class:`~gravel.programs.cuda_part.CudaPart` on "cuda",
    :class:`~gravel.programs.cpu_part.CpuPart` on "cpu").

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
        The part's whole share of the arcs, device and bus rows (1.0 for "hybrid-seed").
    cap : float
        The largest share the part's device memory holds.
    """

    def __init__(self, G, program, values, *, execution, device, directions):
        self.program, self.n = program, G.n
        self.cpu = CpuEngine(G, program, values)
        whole = execution == "hybrid-seed"
        if device == "cuda":
            from .cuda_part import CudaPart as Part
        else:
            from .cpu_part import CpuPart as Part
        #: the state's engine on the GPU's side, where most of the work is (:mod:`.home`); None:
        #: the state lives on the CPU
        self.home = None
        if not whole and Part.prior_share > 0.5 and not _narrow_sums(program):
            self.part, self.home = Part.with_home(G, program, values, self.cpu)
        else:
            self.part = Part(G, program, values, whole=whole)
        self.can_push = self.part.can_push
        self.adjusting = not whole
        if whole:
            # the part's whole graphs are a way's (the graph or its reverse), not a set of lists:
            # each way keeps its own, though "both" ways of a directed graph read the same two sets
            self.ways = [
                tuple(
                    _Rows(lists, self.n, held, self.n)
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
        arcs, count, limit = sum(r.arcs for r in self.used), len(self.used), self.part.limit()
        room = room_arcs(limit, self.n, self.part.vertex_bytes, count, arc_bytes)
        if room is not None and room < arcs:  # bus rows: their graphs' offsets take the device too
            room = room_arcs(limit, self.n, self.part.vertex_bytes, 2 * count, arc_bytes)
        self.cap = cap_share(room, arcs)
        #: the last measured arcs a second of the device rows, the bus rows and the CPU's rows
        self.rates = {"device": None, "bus": None, "cpu": None}
        #: the last measured seconds per arc of the whole that a split with the state on the
        #: GPU's side adds to an iteration (the messages out, the CPU's totals back)
        self.serial = 0.0
        self.share = None
        self._place(self.part.prior_share)

    @property
    def bus_share(self):
        """The bus rows' part of `share`: what it holds past `cap`."""
        return self.share - min(self.share, self.cap)

    def _place(self, share):
        """Split every used set of lists at `share` of its arcs for the GPU: the device rows up to
        the cap, the bus rows the rest of that share. The part copies the rows it holds and maps
        the bus rows (its old copies dropped first, so that old and new never share the device)."""
        if share == self.share:
            return
        self.share, self.settled = share, False
        for rows in self.used:
            k = rows_for(rows.offsets, min(share, self.cap))
            j = rows_for(rows.offsets, share)
            if (k, j) != (rows.k, rows.j) or rows.bus is None:
                rows.bus, rows.j = None, j
            if k != rows.k or rows.held is None:
                rows.held, rows.k = None, k
                rows.held = self.part.hold(rows.lists, k) if rows.part_arcs else None
            if rows.bus is None and rows.bus_arcs:
                rows.bus = self.part.bus(rows.lists, k, j)

    def _measure(self, arcs, seconds, serial_s):
        """The next split from the arcs and seconds of the device rows, the bus rows and the CPU's
        rows of a pull, and the seconds the split added (None: not measured): each share's rate
        where it worked, the last one measured otherwise (the bus's, before any, the device's
        times the part's `bus_prior`)."""
        for side, a, s in zip(("device", "bus", "cpu"), arcs, seconds, strict=True):
            self.rates[side] = rate(a, s) or self.rates[side]
        if serial_s is not None and sum(arcs):
            self.serial = serial_s / sum(arcs)
        device, bus, cpu = self.rates.values()
        if bus is None and device is not None:
            bus = device * self.part.bus_prior
        measured = split_share(self.cap, device, bus, cpu, self.serial, self.share)
        self._place(next_share(self.share, measured))

    @property
    def state_side(self):
        """Where the state lives: ``"gpu"`` (the GPU's side: :mod:`.home`) or ``"cpu"``."""
        return "cpu" if self.home is None else "gpu"

    @property
    def _state(self):
        """The engine holding the state: the home, or the CPU's."""
        return self.cpu if self.home is None else self.home

    def init(self, state):
        """Set the starting state where it lives.

        Parameters
        ----------
        state : list of numpy.ndarray or None
            One host array per state field; None: the program's `init`.
        """
        self._state.init(state)

    def actives(self):
        """The active vertices, as the engine holding the state gives them.

        Returns
        -------
        Active
            Their count, and their ids or their push arcs.
        """
        return self._state.actives()

    @property
    def push_degree(self):
        """The arcs a push from each vertex reads, along every way."""
        return self._state.push_degree

    def state(self):
        """The state, on the host.

        Returns
        -------
        list of numpy.ndarray
            One array per state field.
        """
        return self._state.state()

    def step(self, active, iteration, direction):
        """One iteration: send where the state lives; the part's SpMV launched, the CPU's
        meanwhile; the other side's totals combined into those where the state lives; apply.
        With the state on the GPU's side (:mod:`.home`), the CPU gets the senders' messages
        (and the state, where its rows read it) and sends back its rows' totals, compressed.

        After a pull (but the first over a new split) of a "hybrid" run, the split moves toward
        the share at which both sides finish together (:func:`~gravel.programs.split.split_share`,
        :func:`~gravel.programs.split.next_share`), weighing, with the state on the GPU's side,
        the seconds of the copies between the sides (the export and the fold of the CPU's totals,
        timed where the CPU had rows).

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
            The part's share of the iteration's arcs, device and bus rows (0.0 where there were
            none).
        gpu_s : float
            The part's seconds, device and bus rows.
        cpu_s : float
            The CPU's seconds of its share of the SpMV.
        bus_share : float
            The bus rows' share of the iteration's arcs (part of `gpu_share`).
        bus_s : float
            The part's seconds over the bus rows (part of `gpu_s`).
        """
        pull = direction == "pull"
        sets = [pair[pull] for pair in self.ways]
        cpu_rows = [rows.j for rows in sets]
        if self.home is None:
            self.cpu.send(active.ids, iteration)
            senders = self.cpu.senders(active.ids)
        else:
            self.home.send(active, iteration)
            wanted = min(cpu_rows) < self.n  # whether the CPU has rows
            with Timer("cpu") as out:
                ids = self.home.export(direction, wanted)
            senders = self.cpu.every if ids is None else ids
        if pull:
            cuts = [(None, None)] * len(sets)
        else:
            cuts = [(senders_below(senders, r.k), senders_below(senders, r.j)) for r in sets]
        device = [
            (rows.held, 0, c)
            for rows, (c, _) in zip(sets, cuts, strict=True)
            if rows.held is not None and rows.part_arcs and (pull or c)
        ]
        bus = [
            (rows.bus, c, d)
            for rows, (c, d) in zip(sets, cuts, strict=True)
            if rows.bus is not None and rows.bus_arcs and (pull or d > c)
        ]
        serial_s = None  # measured with the state on the GPU's side, where the CPU has rows
        if self.home is None:
            args = (active.ids, iteration, direction, cuts, cpu_rows)
            device_s, bus_s, cpu_s = self._cpu_home(*args, device, bus)
        else:
            self.home.launch(direction, device, bus)
            with Timer("cpu") as t:
                if wanted:
                    got, totals = self._cpu_rows(ids, direction, cpu_rows)
            device_s, bus_s = self.home.finish()
            if wanted:
                with Timer("cpu") as back:
                    self.home.combine(got, totals)
                serial_s = out.seconds + back.seconds
            self.home.apply(direction, iteration)
            cpu_s = t.seconds
        if pull:
            split = [(r.part_arcs, r.bus_arcs, r.arcs - r.part_arcs - r.bus_arcs) for r in sets]
        else:
            split = [push_arcs(rows.offsets, senders, rows.k, rows.j) for rows in sets]
        arcs = [sum(x) for x in zip(*split, strict=True)]
        if pull and self.adjusting:
            if self.settled:
                self._measure(arcs, (device_s, bus_s, cpu_s), serial_s)
            else:  # the first pull over a new copy builds its layouts: no fair measure
                self.settled = True
        total = sum(arcs)
        gpu_share, bus_share = ((arcs[0] + arcs[1]) / total, arcs[1] / total) if total else (0, 0)
        return float(gpu_share), device_s + bus_s, cpu_s, float(bus_share), bus_s

    def _cpu_home(self, active, iteration, direction, cuts, first, device, bus):
        """The SpMV's rows ``[j, n)`` on the CPU, where the state lives, while the part reduces
        the rest from the messages it is sent; both sides' totals folded and applied on the CPU.
        Returns the part's seconds over the device and the bus rows, and the CPU's."""
        cpu, pull = self.cpu, direction == "pull"
        senders = cpu.senders(active)
        if pull:
            ids = None if self.program.senders == "all" else senders
        else:
            ids = senders[: max(j for _, j in cuts)]
        messages = cpu.messages if ids is None else [m[ids] for m in cpu.messages]
        self.part.launch(direction, device, bus, ids, messages, cpu.states)
        with Timer("cpu") as t:
            reached = cpu.reduce(active, direction, first)
        got, totals, device_s, bus_s = self.part.finish()
        fresh = cpu.combine(got, totals)
        if not pull:
            reached = np.concatenate((reached, got[fresh]))
        cpu.apply(reached, iteration)
        return device_s, bus_s, t.seconds

    def _cpu_rows(self, ids, direction, first):
        """The CPU's rows of a run whose state lives on the GPU's side, the senders' messages
        (`ids` None: every vertex's) and the state already exported into the CPU's arrays: a pull
        over rows ``[first[w], n)`` of each way or a push from the senders from row ``first[w]``
        on. Returns the vertices reached (int32, distinct) and their totals, which it forgets."""
        cpu, pull = self.cpu, direction == "pull"
        if pull and ids is not None:  # a pull reads the senders' flags
            cpu.active[:] = False
            cpu.active[ids] = True
        reached = cpu.reduce(cpu.every if ids is None else ids, direction, first)
        if pull:
            lo = min(first)
            got = (np.flatnonzero(cpu.received[lo:]) + lo).astype(np.int32)
        else:
            got = reached.copy()
        totals = [t[got] for t in cpu.totals]
        cpu.received[got] = False
        return got, totals
