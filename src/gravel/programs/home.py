"""The state of a hybrid run (:mod:`.hybrid`) on the GPU's side, where most of the work is.

Where the GPU's part takes most of the arcs (its prior share over a half), keeping the state on the
CPU would cost the CPU a pass over every vertex twice an iteration (send and apply) and the bus
the messages and totals of the GPU's rows both ways. With the state on the GPU's side the GPU
sends, runs the SpMV over the rows it holds and reads over the bus, and applies; the CPU gets the
senders' messages (and the state, where its rows' process or listen reads it), reduces its rows
``[j, n)`` meanwhile, and sends back the totals of the vertices they reached, compressed.

:class:`CudaHome` is that side on the GPU (the vertex phases of :class:`~.cuda.CudaEngine`, the
part's SpMV over their arrays); :class:`CpuHome` plays it on the CPU (device "cpu": for tests),
its SpMV the part's (:class:`~.cpu_part.CpuPart`) over the same rows.
"""

import numpy as np

from .cpu import CpuEngine


def _reads_state(program, direction):
    """Whether the CPU's rows read the state: process reads the receiving vertex's, or a pull
    asks whether it listens (a push's apply does that, on the state's side)."""
    return program.process_uses("state") or (direction == "pull" and program.listens)


class _Home:
    """What both sides' homes do alike: the engine that holds the state starts it, counts the
    active vertices and gives the state back."""

    def init(self, state):
        """Set the starting state and actives.

        Parameters
        ----------
        state : list of numpy.ndarray or None
            One host array per state field; None: the program's `init`.
        """
        self.engine.init(state)

    def actives(self):
        """The active vertices, as the engine gives them: listed on the CPU, counted with their
        push arcs on the GPU (whose :meth:`export` lists them).

        Returns
        -------
        Active
        """
        return self.engine.actives()

    def state(self):
        """The state, on the host.

        Returns
        -------
        list of numpy.ndarray
            One array per state field.
        """
        return self.engine.state()


class CudaHome(_Home):
    """The state of a hybrid run on the GPU: send, the flags and apply as
    :class:`~gravel.programs.cuda.CudaEngine` runs them, the SpMV the part's
    (:class:`~gravel.programs.cuda_part.CudaPart`, made over this home's arrays).

    Parameters
    ----------
    G : Graph
    program : Program
    values : dict
        The run's parameter values (:meth:`Program.bind <gravel.programs.Program.bind>`).
    cpu : CpuEngine
        The engine of the CPU's rows: :meth:`export` copies into its messages and state, which
        it moves to pinned host memory (a copy at the bus's speed, into the same arrays each
        iteration).

    Attributes
    ----------
    engine : CudaEngine
        The vertex phases and arrays (:meth:`CudaEngine.vertices_only
        <gravel.programs.cuda.CudaEngine.vertices_only>`).
    part : CudaPart
        The SpMV over the GPU's rows; set by :meth:`CudaPart.with_home
        <gravel.programs.cuda_part.CudaPart.with_home>`.
    push_degree : cupy.ndarray
        The arcs a push from each vertex reads, along every way.
    way_count : int
        The ways messages travel.
    """

    def __init__(self, G, program, values, cpu):
        import cupyx

        from .cuda import CudaEngine

        self.program, self.cpu = program, cpu
        push_offsets = [push[0] for push, _ in cpu.ways]
        self.engine = CudaEngine.vertices_only(G, program, values, push_offsets)
        self.push_degree = self.engine.push_degree
        self.way_count = len(push_offsets)
        self.part = self.at = None
        for arrays in (cpu.messages, cpu.states):
            arrays[:] = [cupyx.empty_pinned(a.shape, a.dtype) for a in arrays]

    def send(self, active, iteration):
        """Every sender's message, on the GPU.

        Parameters
        ----------
        active : Active
            The active vertices (:meth:`actives`).
        iteration : int
            The iteration, 0 first.
        """
        e = self.engine
        e._compute(None, e.send_code, iteration)

    def export(self, direction, values):
        """The senders, their messages copied into the CPU engine's (and the state, where the
        CPU's rows read it).

        Parameters
        ----------
        direction : {"pull", "push"}
        values : bool
            Whether the CPU has rows to reduce: their messages (and the state) are copied only
            then.

        Returns
        -------
        numpy.ndarray or None
            The senders (int32, sorted); None: every vertex, in a pull.
        """
        import cupy

        e, cpu = self.engine, self.cpu
        if self.program.senders != "all":
            self.at = cupy.flatnonzero(e.active).astype(cupy.int32)
        else:  # a push lists every vertex as a sender
            self.at = None if direction == "pull" else cupy.arange(e.n, dtype=cupy.int32)
        ids = None if self.at is None else self.at.get()
        if values:
            for given, mine in zip(e.ms, cpu.messages, strict=True):
                if self.at is None:
                    given.get(out=mine)
                else:
                    mine[ids] = given[self.at].get()
            if _reads_state(self.program, direction):
                for given, mine in zip(e.st, cpu.states, strict=True):
                    given.get(out=mine)
        return ids

    def launch(self, direction, device, bus):
        """Start the part's SpMV over the device and the bus rows from this home's messages, a
        pull reading the lists of the vertices that listen (:meth:`CudaPart.launch
        <gravel.programs.cuda_part.CudaPart.launch>`), without waiting.

        Parameters
        ----------
        direction : {"pull", "push"}
        device, bus : list of tuple
            (graph, first, stop) as :meth:`CudaPart.launch
            <gravel.programs.cuda_part.CudaPart.launch>` takes them, over the senders
            :meth:`export` listed.
        """
        e, listeners = self.engine, None
        if direction == "pull" and self.program.listens:  # the lists of the listening only
            listeners = e._listed("g_hearing", e.listening)
        self.part.launch(direction, device, bus, self.at, None, None, listeners)

    def finish(self):
        """Wait for the part's SpMV.

        Returns
        -------
        device_s, bus_s : float
            Its seconds over the device rows and over the bus rows.
        """
        return self.part.wait()

    def combine(self, ids, totals):
        """Fold the CPU's totals into the GPU's (:meth:`Spmv.fold_in
        <gravel.programs.cuda_spmv.Spmv.fold_in>`).

        Parameters
        ----------
        ids : numpy.ndarray
            The vertices the CPU's rows reached (int32, distinct).
        totals : list of numpy.ndarray
            Their totals, one array per message field.
        """
        self.part.spmv.fold_in(ids, totals)

    def apply(self, direction, iteration):
        """The new state of every vertex that received, their activity and the flags.

        Parameters
        ----------
        direction : {"pull", "push"}
            Unused: the apply runs over every vertex.
        iteration : int
            The iteration, 0 first.
        """
        e = self.engine
        e._flagged(e.apply_code, iteration)


class CpuHome(_Home):
    """The state of a hybrid run on the GPU's side, played by the CPU (device "cpu"): a
    :class:`~gravel.programs.cpu.CpuEngine` holds it, sends and applies; the part
    (:class:`~gravel.programs.cpu_part.CpuPart`) reduces the GPU's rows from its messages.

    Parameters
    ----------
    G : Graph
    program : Program
    values : dict
        The run's parameter values (:meth:`Program.bind <gravel.programs.Program.bind>`).
    part : CpuPart
        The SpMV over the GPU's rows.
    cpu : CpuEngine
        The engine of the CPU's rows, into whose arrays :meth:`export` copies.

    Attributes
    ----------
    push_degree : numpy.ndarray
        The arcs a push from each vertex reads, along every way.
    """

    def __init__(self, G, program, values, part, cpu):
        self.program, self.part, self.cpu = program, part, cpu
        self.engine = CpuEngine(G, program, values)
        self.push_degree = self.engine.push_degree
        self.active = self.ids = self.messages = None
        self.reached = []

    def send(self, active, iteration):
        """Every sender's message.

        Parameters
        ----------
        active : Active
            The active vertices (:meth:`actives`).
        iteration : int
            The iteration, 0 first.
        """
        self.active = active.ids
        self.engine.send(active.ids, iteration)

    def export(self, direction, values):
        """The senders, their messages copied into the CPU engine's (and the state, where the
        CPU's rows read it): :meth:`CudaHome.export`.

        Parameters
        ----------
        direction : {"pull", "push"}
        values : bool
            Whether the CPU has rows to reduce.

        Returns
        -------
        numpy.ndarray or None
            The senders (int32, sorted); None: every vertex, in a pull.
        """
        e, cpu = self.engine, self.cpu
        self.ids = self.active
        if self.program.senders == "all":  # a push lists every vertex as a sender
            self.ids = None if direction == "pull" else e.every
        self.messages = e.messages if self.ids is None else [m[self.ids] for m in e.messages]
        if values:
            for given, mine in zip(self.messages, cpu.messages, strict=True):
                if self.ids is None:
                    mine[:] = given
                else:
                    mine[self.ids] = given
            if _reads_state(self.program, direction):
                for given, mine in zip(e.states, cpu.states, strict=True):
                    mine[:] = given
        return self.ids

    def launch(self, direction, device, bus):
        """Run the part's SpMV over the device and the bus rows from this home's messages.

        Parameters
        ----------
        direction : {"pull", "push"}
        device, bus : list of tuple
            (graph, first, stop) as :meth:`CpuPart.launch
            <gravel.programs.cpu_part.CpuPart.launch>` takes them.
        """
        self.part.launch(direction, device, bus, self.ids, self.messages, self.engine.states)

    def finish(self):
        """The part's totals folded into the engine's (every one fresh: nothing has received yet).

        Returns
        -------
        device_s, bus_s : float
            The part's seconds over the device rows and over the bus rows.
        """
        got, totals, device_s, bus_s = self.part.finish()
        self.engine.combine(got, totals)
        self.reached = [got]
        return device_s, bus_s

    def combine(self, ids, totals):
        """Fold the CPU's totals into the engine's.

        Parameters
        ----------
        ids : numpy.ndarray
            The vertices the CPU's rows reached (int32, distinct).
        totals : list of numpy.ndarray
            Their totals, one array per message field.
        """
        fresh = self.engine.combine(ids, totals)
        self.reached.append(ids[fresh])

    def apply(self, direction, iteration):
        """The new state of the vertices that received: every vertex after a pull, those either
        side reached after a push (whose senders are inactive unless reached again).

        Parameters
        ----------
        direction : {"pull", "push"}
        iteration : int
            The iteration, 0 first.
        """
        e = self.engine
        if direction == "pull":
            reached = e.every
        else:
            e.active[self.active] = False
            reached = np.concatenate(self.reached)
        e.apply(reached, iteration)
