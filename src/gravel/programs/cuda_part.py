"""The GPU's part of a hybrid run (:mod:`.hybrid`): :class:`CudaPart` takes the senders' messages as
a compressed sparse vector, runs the SpMV (:class:`.cuda_spmv.Spmv`) over the lists the GPU holds in
device memory and then over those it reads from pinned host memory, without the host waiting for it,
and sends the totals back compressed; :func:`vertex_bytes` says what it holds per vertex, which the
split's room is measured with.
"""

from .cuda import _ways
from .cuda_spmv import Spmv, _wide


def vertex_bytes(program, home_ways=0):
    """Device bytes per vertex of a hybrid run's GPU part (:class:`CudaPart`): messages, totals,
    the state where process reads it, the flags, and the SpMV's temporaries (a way's totals and
    marks, the compressed ids); at least what a placement plan sets aside for vertex state.

    Parameters
    ----------
    program : Program
    home_ways : int, default 0
        The ways of a part that holds the state (:class:`~gravel.programs.home.CudaHome`): the
        whole state, each way's push degrees, the in- and out-degrees and the flags' bitmaps
        come too; 0 where the state lives on the CPU.

    Returns
    -------
    int
        Bytes per vertex, at least :data:`gravel.placement.STATE_BYTES_PER_VERTEX`.
    """
    from ..placement import STATE_BYTES_PER_VERTEX

    wide = [_wide(f.dtype).itemsize for f in program.message]
    held = sum(f.dtype.itemsize for f in program.message) + sum(wide) + 1 + 4
    if home_ways or program.process_uses("state"):
        held += sum(f.dtype.itemsize for f in program.state)
    if home_ways:
        held += 8 * home_ways + 4 + 4 + 1
    return max(held + max(wide) + 4 + 4, STATE_BYTES_PER_VERTEX)


class CudaPart:
    """The GPU's side of a hybrid run (:mod:`.hybrid`): the senders' messages arrive as a
    compressed sparse vector (their ids and values; the values alone when every vertex sends),
    the SpMV runs over the lists the GPU holds without the host waiting for it, and the totals go
    back compressed (the vertices that received, their totals). Where process reads the state of
    the vertex reached, the state comes along; where it calls ``common``, the graph's lists are
    read where ``G.to("cuda")`` placed them (in pinned host memory when split).

    Parameters
    ----------
    G : Graph
    program : Program
    values : dict
        The run's parameter values (:meth:`Program.bind <gravel.programs.Program.bind>`).
    whole : bool
        True for "hybrid-seed": the SpMV reads the whole graph as ``G.to("cuda")`` places it
        (:meth:`whole`); False: it reads the rows the split holds (:meth:`hold`).
    home : CudaHome, optional
        The state's engine where the state lives on the GPU (:mod:`.home`): the SpMV then reads
        its messages and flags and writes its totals, and :meth:`launch` uploads nothing.
    """

    #: the GPU's share of the arcs until a pull iteration has measured both sides (a prior: the
    #: GPU's pull sweeps many times the arcs a second of the CPU's; the measure replaces it)
    prior_share = 0.9
    #: the share of the card's free memory a split may fill (the pool's rounding, launches' scratch)
    free_share = 0.9
    #: the bus rows' rate over the device rows' until the bus rows are measured (a prior: a pull
    #: streams lists over the bus at a few times less than it reads them in device memory)
    bus_prior = 0.2

    def __init__(self, G, program, values, *, whole, home=None):
        import cupy

        n = G.n
        self.G, self.program, self.n, self.whole_graph = G, program, n, whole
        self.can_push = isinstance(program.reduce, str)
        if home is not None:
            e = home.engine
            self.vertex_bytes = vertex_bytes(program, home.way_count)
            self.ms, self.tt, self.st, self.arrays = e.ms, e.tt, e.st, dict(e.arrays)
        else:
            self.vertex_bytes = vertex_bytes(program)
            self.ms = [cupy.zeros(n, f.dtype) for f in program.message]
            self.tt = [cupy.zeros(n, _wide(f.dtype)) for f in program.message]
            reads_state = program.process_uses("state")
            self.st = [cupy.zeros(n, f.dtype) for f in program.state] if reads_state else []
            self.arrays = {f"st{i}": a for i, a in enumerate(self.st)}
            self.arrays |= {f"ms{i}": a for i, a in enumerate(self.ms)}
            self.arrays |= {f"tt{i}": a for i, a in enumerate(self.tt)}
            self.arrays |= {"active": cupy.zeros(n, cupy.uint8)}
            self.arrays |= {"received": cupy.zeros(n, cupy.int32)}
            self.arrays |= {f"p_{k}": x for k, x in values.items()}
        self.lists_bytes = 0  # device bytes of common's lists, besides the split's
        if program.process_uses("common"):
            dg = G.to("cuda") if whole else G.to("cuda", placement="host")
            self.arrays |= {"g_off": dg.offsets, "g_idx": dg.indices}
            self.lists_bytes = G.offsets.nbytes
        # a pull that reads every list whole streams the bus rows' lists through the copy
        # engines; one that stops early (listen, "any") reads only the lines it needs in place
        whole_lists = not program.listens and program.reduce != "any"
        self.spmv = Spmv(program, n, self.arrays, stream_bus=whole_lists)
        self.events = tuple(cupy.cuda.Event() for _ in range(3))
        self.compile_s, self.bused = (0.0, 0.0), False
        self.pins = {}  # host arrays the bus rows read, by id: (the array, its mapped view)

    @classmethod
    def with_home(cls, G, program, values, cpu):
        """A part whose SpMV reads and writes the arrays of the state's engine on the GPU, and
        that engine (:mod:`.home`).

        Parameters
        ----------
        G : Graph
        program : Program
        values : dict
            The run's parameter values.
        cpu : CpuEngine
            The engine of the CPU's rows, into whose arrays the home exports.

        Returns
        -------
        part : CudaPart
        home : CudaHome
        """
        from .home import CudaHome

        home = CudaHome(G, program, values, cpu)
        home.part = cls(G, program, values, whole=False, home=home)
        return home.part, home

    def limit(self):
        """Device bytes the split may fill with the vertex arrays and lists: the budget
        (:func:`gravel.placement.resolve_budget`) less common's lists, and a share of the free
        memory with the vertex arrays already taken.

        Returns
        -------
        int
            Bytes: the smaller of the two; the share of the free memory where no budget is set.
        """
        from ..backends.cuda.runtime import free_bytes
        from ..placement import resolve_budget

        held = sum(a.nbytes for a in self.ms + self.tt + self.st) + 5 * self.n
        free = int(self.free_share * (free_bytes() + held))
        budget = resolve_budget()
        return free if budget is None else min(budget - self.lists_bytes, free)

    def whole(self, way, lists):
        """(push graph, pull graph) of way `way` over the whole graph, as ``G.to("cuda")`` places
        it (the seed's scheme); `lists`, the CPU's, are not needed.

        Parameters
        ----------
        way : int
            The index of the way among the program's (the graph, its reverse, or both).
        lists : tuple
            The CPU's lists of that way; unused.

        Returns
        -------
        tuple of DeviceGraph
            The way's device graph, twice: a push reads its out-lists, a pull its in-lists.
        """
        graph = _ways(self.G.to("cuda"), self.program, self.G.directed)[way]
        return graph, graph

    def hold(self, lists, k):
        """Rows ``[0, k)`` of the host `lists` (offsets, ids, (weights, weighted)) in device memory,
        as a graph whose CSR and CSC are both these lists: a push reads them as out-lists, a pull
        as in-lists (the graph is marked undirected so that the device never transposes them).

        Parameters
        ----------
        lists : tuple
            ``(offsets, ids, (weights, weighted))``: a set of host lists.
        k : int
            The split row.

        Returns
        -------
        DeviceGraph
            n rows, those from k on empty, in device memory.
        """
        from ..graph import Graph
        from .split import held_lists

        offsets, targets, (weights, weighted) = held_lists(lists, k)
        share = Graph.from_csr(
            offsets, targets, weights if weighted else None, directed=False, trusted=True
        )
        return share.to("cuda", placement="device")

    def bus(self, lists, k, j):
        """Rows ``[k, j)`` of the host `lists` (offsets, ids, (weights, weighted)) read over the
        bus: their offsets (:func:`~gravel.programs.split.bus_offsets`) in device memory, their
        ids and weights where they are, in the host lists pinned and mapped whole (once for the
        part's life however the split moves, and shared with ``G.to("cuda", placement="host")``
        over the same arrays), as a graph of placement "host" whose CSR and CSC are both these
        lists (marked undirected, as :meth:`hold`'s).

        Parameters
        ----------
        lists : tuple
            ``(offsets, ids, (weights, weighted))``: a set of host lists.
        k, j : int
            The bus rows' first row and the row past their last.

        Returns
        -------
        DeviceGraph
            n rows, those outside ``[k, j)`` empty, their lists in pinned host memory.
        """
        import cupy

        from ..backends.cuda.graph import DeviceGraph
        from ..backends.cuda.pinned import mapped
        from .split import bus_offsets

        def pinned(array):
            if id(array) not in self.pins:
                self.pins[id(array)] = (array, mapped(array))
            return self.pins[id(array)][1]

        offsets, targets, (weights, weighted) = lists
        lo, hi = int(offsets[k]), int(offsets[j])
        graph = DeviceGraph.from_arrays(
            cupy.asarray(bus_offsets(offsets, k, j)),
            pinned(targets)[lo:hi],
            pinned(weights)[lo:hi] if weighted else None,
            directed=False,
        )
        graph.placement = "host"  # what the operators read over the bus (streamed sweeps)
        return graph

    def _reduce(self, ways, direction, at, folded, listeners):
        """Launch the SpMV along `ways`, (graph, first, stop of the senders `at` it pushes from),
        folding into the `folded` ways reduced before; a pull reads the `listeners`' lists."""
        from ..frontier import Frontier

        listed = []
        for graph, a, b in ways:
            senders = Frontier(self.n, ids=at[a:b], length=b - a) if direction == "push" else None
            listed.append((graph, senders))
        self.spmv(listed, direction, listeners=listeners, folded=folded)

    def launch(self, direction, device, bus, ids, messages, state, listeners=None):
        """Start the SpMV along the `device` ways, then the `bus` ways, a CUDA event between them,
        and return without waiting for it. `messages`: one host array per field, the values of
        the senders `ids` (None: every vertex, dense); `state`: the host state.

        Parameters
        ----------
        direction : {"pull", "push"}
        device, bus : list of tuple
            (held graph, first, stop): a graph of the device rows (:meth:`hold`, :meth:`whole`)
            or of the bus rows (:meth:`bus`), and the senders ``ids[first:stop]`` a push reads
            (ignored by a pull).
        ids : numpy.ndarray, cupy.ndarray or None
            The senders (int32, sorted); None: every vertex sends.
        messages : list of numpy.ndarray or None
            One host array per message field: the senders' values, in the order of `ids` (or
            one per vertex); None where the part's home holds them (`ids` then on the device).
        state : list of numpy.ndarray or None
            The host state, one array per field; copied only where process reads it.
        listeners : Frontier, optional
            The vertices whose lists a pull reads (the home's, where the program listens);
            None: every vertex.
        """
        import cupy

        from ..compiling import compile_clock

        at = None if ids is None else cupy.asarray(ids, dtype=cupy.int32)  # vertex ids: in range
        with compile_clock() as compiled:
            self.events[0].record()
            if messages is not None:
                self._upload(direction, at, messages, state)
            self._reduce(device, direction, at, 0, listeners)  # also starts the totals afresh
            self.events[1].record()
        device_compile = compiled()
        with compile_clock() as compiled:
            if bus:
                self._reduce(bus, direction, at, len(device), listeners)
            self.events[2].record()
        self.compile_s = (device_compile, compiled())
        self.bused = bool(bus)

    def _upload(self, direction, at, messages, state):
        """The senders' messages (at `at`; None: dense), their flags for a pull, and the state
        where process reads it, from the host."""
        if at is None:
            for mine, given in zip(self.ms, messages, strict=True):
                mine.set(given)
        else:
            import cupy

            for mine, given in zip(self.ms, messages, strict=True):
                mine[at] = cupy.asarray(given)
            if direction == "pull":  # only the senders' messages count
                sending = self.arrays["active"]
                sending.fill(0)
                sending[at] = 1
        for mine, given in zip(self.st, state, strict=False):
            mine.set(given)

    def wait(self):
        """Wait for the SpMV.

        Returns
        -------
        device_s, bus_s : float
            The GPU's seconds from the messages' upload to the end of the device rows' SpMV,
            and of the bus rows' SpMV (0.0 without any), compiling left out (CUDA events).
        """
        import cupy

        self.events[2].synchronize()
        spans = zip(self.events[:2], self.events[1:], self.compile_s, strict=True)
        seconds = [max(cupy.cuda.get_elapsed_time(a, b) / 1e3 - c, 0.0) for a, b, c in spans]
        if not self.bused:
            seconds[1] = 0.0
        return tuple(seconds)

    def finish(self):
        """Wait for the SpMV and bring its totals back, compressed.

        Returns
        -------
        ids : numpy.ndarray
            The vertices that received (int32, sorted).
        totals : list of numpy.ndarray
            Their totals, one host array per message field.
        device_s, bus_s : float
            As :meth:`wait` gives them.
        """
        import cupy

        seconds = self.wait()
        got = cupy.flatnonzero(self.arrays["received"] > 0).astype(cupy.int32)
        return got.get(), [tt[got].get() for tt in self.tt], *seconds
