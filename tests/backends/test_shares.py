import _thread
import inspect
import os
import signal
import subprocess
import sys
import threading
import time
import weakref

import numpy as np
import pytest

import gravel
from gravel.backends.cpu import shares


@pytest.mark.parametrize("count", [1, 2, 5, 3])
def test_every_share_runs_once_and_none_on_the_caller(count):
    seen, lock = [], threading.Lock()

    def share(t, stop):
        with lock:
            seen.append((t, threading.current_thread() is threading.main_thread()))

    shares.run(share, count)
    assert sorted(t for t, _ in seen) == list(range(count))
    assert not any(main for _, main in seen)  # the caller only waits: Ctrl-C reaches it


def test_no_shares_call_nothing():
    shares.run(lambda t, stop: pytest.fail("called"), 0)


def test_a_shares_error_reaches_the_caller_after_every_share_returned():
    done, slow = [], threading.Event()

    def share(t, stop):
        if t == 2:
            raise ValueError("share 2")
        if t == 3:
            slow.wait(0.2)  # still running when share 2 has failed
        done.append(t)

    with pytest.raises(ValueError, match="share 2"):
        shares.run(share, 4)
    assert sorted(done) == [0, 1, 3]


def test_share_zeros_error_wins_over_the_others():
    def share(t, stop):
        raise ValueError(f"share {t}")

    with pytest.raises(ValueError, match="share 0"):
        shares.run(share, 3)


def test_callers_on_several_threads_each_get_all_their_shares():
    """Four callers at once, with counts that grow the pool while others' shares are queued."""
    results, errors = {}, []

    def caller(c):
        got, lock = set(), threading.Lock()

        def share(t, stop):
            with lock:
                got.add(t)

        try:
            for _ in range(20):
                got.clear()
                shares.run(share, c)
                assert got == set(range(c))
            results[c] = True
        except Exception as e:  # reported below
            errors.append(e)

    callers = [threading.Thread(target=caller, args=(c,)) for c in (2, 7, 3, 9)]
    for th in callers:
        th.start()
    for th in callers:
        th.join()
    assert not errors and sorted(results) == [2, 3, 7, 9]


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
@pytest.mark.filterwarnings("ignore:.*multi-threaded.*fork:DeprecationWarning")
def test_a_forked_child_runs_shares_while_the_parent_holds_the_lock():
    shares.run(lambda t, stop: None, 3)  # the parent has a pool
    with shares._lock:  # as if another thread were submitting at the fork
        pid = os.fork()
        if pid == 0:  # the child: a hang here ends by the alarm's signal
            signal.alarm(10)
            seen = []
            shares.run(lambda t, stop: seen.append(t), 3)
            os._exit(0 if sorted(seen) == [0, 1, 2] else 1)
    _, status = os.waitpid(pid, 0)
    assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0


@pytest.fixture
def default_sigint():
    """Python's own Ctrl-C handler while the test runs, whatever the test process was given:
    _thread.interrupt_main does nothing where SIGINT is ignored (the caller would wait for ever)."""
    before = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, before)


def test_issue_51_an_interrupted_caller_stops_its_shares_and_raises(default_sigint):
    """Ctrl-C (here _thread.interrupt_main) reaches the waiting caller at once; it raises the stop
    flag, the shares see it and return, and KeyboardInterrupt follows them."""
    started, stopped = threading.Barrier(3), []

    def share(t, stop):
        started.wait()
        while not stop[0]:  # a kernel that would run for ever but for the flag
            time.sleep(0.001)
        stopped.append(t)

    threading.Timer(0.2, lambda: (started.wait(), _thread.interrupt_main())).start()
    begin = time.perf_counter()
    with pytest.raises(KeyboardInterrupt):
        shares.run(share, 2)
    assert sorted(stopped) == [0, 1]
    assert time.perf_counter() - begin < 1.0


def test_issue_51_ctrl_c_ends_exact_betweenness_within_a_second(tmp_path):
    """Exact BC over every source of a graph that takes many seconds: SIGINT after it starts ends
    the call with KeyboardInterrupt within a second (each share's kernel looks at the stop flag
    between sources)."""
    code = (
        "import os, signal, sys, gravel\n"
        # a process started where SIGINT is ignored (a pytest-xdist worker) inherits that
        "signal.signal(signal.SIGINT, signal.default_int_handler)\n"
        "G = gravel.generate.kronecker(14, seed=1)\n"
        "gravel.betweenness_centrality(G, sources=range(64), device='cpu')  # compiled, warm\n"
        "print('go', flush=True)\n"
        "try:\n"
        "    gravel.betweenness_centrality(G, sources=range(G.n), device='cpu')  # the warm path\n"
        "    print('finished', flush=True)\n"
        "except KeyboardInterrupt:\n"
        "    print('interrupted', flush=True)\n"
        "    os._exit(0)  # the interpreter's teardown (a second on a busy machine) is not timed\n"
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    assert proc.stdout.readline().strip() == "go"
    time.sleep(1.0)
    begin = time.perf_counter()
    proc.send_signal(signal.SIGINT)
    said = proc.stdout.readline().strip()
    late = time.perf_counter() - begin
    proc.communicate(timeout=60)
    assert said == "interrupted" and late < 1.0, f"{said} {late:.2f} s after the interrupt"


def test_issue_51_stoppable_returns_the_kernels_result_from_the_pool():
    seen = []

    def kernel(a, b, stop):
        seen.append(threading.current_thread() is threading.main_thread())
        return a + b + int(stop[0])

    assert shares.stoppable(kernel, 2, 3) == 5
    assert shares.call(lambda a, b: a * b, 4, 5) == 20
    assert seen == [False]  # on the pool: the caller stays free for Ctrl-C


def test_issue_51_an_interrupted_stoppable_kernel_returns_then_the_caller_raises(default_sigint):
    returned = []

    def kernel(stop):
        while not stop[0]:  # a Numba kernel releases the GIL; sleep does too
            time.sleep(0.001)
        returned.append(True)
        return "partial"

    threading.Timer(0.2, _thread.interrupt_main).start()
    begin = time.perf_counter()
    with pytest.raises(KeyboardInterrupt):
        shares.stoppable(kernel)
    assert returned == [True] and time.perf_counter() - begin < 1.0


def test_issue_51_interruptible_turns_a_kernels_system_error_back_into_ctrl_c():
    """A kernel that called into Python as SIGINT came returns a SystemError caused by it (seen
    from kronecker_edges); other SystemErrors, and other errors, pass unchanged."""

    class Terminated(KeyboardInterrupt):
        pass

    def kernel_error(cause):
        try:
            raise cause
        except BaseException as e:
            raise SystemError("returned a result with an exception set") from e

    sent = Terminated()
    with pytest.raises(Terminated) as got, shares.interruptible():
        kernel_error(sent)
    assert got.value is sent  # the same interruption: SIGTERM stays SIGTERM for the CLI
    with pytest.raises(SystemError), shares.interruptible():
        kernel_error(ValueError("not an interruption"))
    with pytest.raises(ValueError), shares.interruptible():
        raise ValueError("unchanged")
    assert shares.interrupted(ValueError()) is None


def _swallow(interruption):
    """Raise `interruption` where Python swallows it: in a weakref callback (as in llvmlite's
    ctypes callback during a compilation), which Python hands to sys.unraisablehook."""

    def callback(ref):
        raise interruption

    class Held:
        pass

    held = Held()
    ref = weakref.ref(held, callback)
    del held
    return ref


@pytest.mark.parametrize("then", ["fails", "finishes"])
def test_issue_51_interruptible_raises_a_ctrl_c_python_swallowed(then):
    """Ctrl-C swallowed in a block (Python printed "Exception ignored ..." and ran on): the block
    raises it, in place of the error it led to (Numba's "no compiled object yet" after llvmlite's
    callback lost it) or once it finished; the hook is the one before after the block."""
    hook = sys.unraisablehook
    sent = KeyboardInterrupt()
    with pytest.raises(KeyboardInterrupt) as got, shares.interruptible():
        _swallow(sent)
        if then == "fails":
            raise RuntimeError("no compiled object yet")
    assert got.value is sent
    assert isinstance(got.value.__cause__, RuntimeError) == (then == "fails")
    assert sys.unraisablehook is hook
    with shares.interruptible():  # the swallowed stop is taken: the next block runs
        pass


def _entry_lines():
    """The lines of code interruptible() runs before its block, its ``yield`` the last."""
    code = shares.interruptible.__wrapped__.__code__
    source, first = inspect.getsourcelines(code)
    end = first + next(i for i, line in enumerate(source) if line.strip() == "yield")
    return sorted({line for *_, line in code.co_lines() if line and first < line <= end})


@pytest.mark.parametrize("line", _entry_lines())
def test_a_ctrl_c_while_a_block_starts_leaves_nothing_behind(line):
    """A stop landing at any line of interruptible()'s entry (its hook installed or not) leaves
    Python's hook as it was, and the next block still keeps a stop swallowed in it."""
    hook, previous = sys.unraisablehook, sys.gettrace()
    code = shares.interruptible.__wrapped__.__code__

    def trace(frame, event, arg):
        if frame.f_code is not code:
            return None
        if event == "line" and frame.f_lineno == line:
            sys.settrace(previous)
            raise KeyboardInterrupt
        return trace

    body = []
    sys.settrace(trace)
    try:
        with pytest.raises(KeyboardInterrupt):
            with shares.interruptible():
                body.append(1)
    finally:
        sys.settrace(previous)
    assert sys.unraisablehook is hook and not body  # stopped before its block
    sent = KeyboardInterrupt()  # a later block works as ever
    with pytest.raises(KeyboardInterrupt) as got:
        with shares.interruptible():
            _swallow(sent)
    assert got.value is sent


def test_a_swallowed_ctrl_c_off_the_main_thread_is_left_to_python(monkeypatch):
    """Off the main thread (no signal lands there) a block changes nothing: a stop swallowed in
    it goes to the hook there was, and an error passes unchanged."""
    seen, hooked = [], []
    monkeypatch.setattr(sys, "unraisablehook", lambda u: hooked.append(type(u.exc_value)))

    def work():
        try:
            with shares.interruptible():
                _swallow(KeyboardInterrupt())
                raise ValueError("unchanged")
        except BaseException as e:
            seen.append(type(e))

    thread = threading.Thread(target=work)
    thread.start()
    thread.join()
    assert seen == [ValueError] and hooked == [KeyboardInterrupt]


def _kcore_inputs(G):
    deg = np.diff(G.offsets)
    count = np.bincount(deg, minlength=1)
    bins = np.zeros(count.shape[0] + 1, np.int64)
    np.cumsum(count[:-1], out=bins[2:])
    return deg, bins, np.empty(G.n, np.int64), np.empty(G.n, np.int64)


def test_issue_51_serial_kernels_read_their_stop_flag():
    """Each serial kernel that walks the whole graph in one call (Tarjan, the k-core peeling, the
    greedy colouring, LPA's rounds) does nothing once its flag is up, and with it down gives
    NetworkX's answer: so an interrupted caller's kernel returns at its next look."""
    import networkx as nx

    from gravel.algorithms.coloring import colour_classes
    from gravel.backends.cpu import kcore, lpa, scc

    G = gravel.generate.kronecker(10, 4, seed=3, directed=True, device="cpu", progress=False)
    n, up, down = G.n, np.ones(1, np.uint8), np.zeros(1, np.uint8)
    for stop in (up, down):
        index, comp = np.full(n, -1, np.int32), np.full(n, -1, np.int64)
        work = (np.empty(n, np.int32), np.empty(n, np.int32), np.empty(n, np.int32))
        found = scc.tarjan(
            G.offsets, G.indices, index, work[0], comp, *work[1:], np.empty(n, np.int64), 0, stop
        )
        if stop is up:
            assert found == -1 and (index == -1).all()
        else:
            nxg = nx.DiGraph(list(zip(*G.edges()[:2])))
            nxg.add_nodes_from(range(n))
            assert found == nx.number_strongly_connected_components(nxg)
    U = gravel.generate.kronecker(10, 4, seed=3, device="cpu", progress=False)
    for stop in (up, down):
        deg, *rest = _kcore_inputs(U)
        kcore._peel(U.offsets, U.indices, deg, *rest, stop)
        nxg = nx.Graph(list(zip(*U.edges()[:2])))
        nxg.add_nodes_from(range(U.n))
        core = nx.core_number(nxg)
        core = np.array([core[v] for v in range(U.n)])
        assert (deg == np.diff(U.offsets)).all() if stop is up else (deg == core).all()
        colour = np.full(U.n, -1, np.int32)
        order = np.arange(U.n)
        lpa.greedy_colour(U.offsets, U.indices, order, colour, np.full(U.n, -1, np.int32), stop)
        if stop is up:
            assert (colour == -1).all()
        else:
            expected = nx.greedy_color(nxg, strategy=lambda g, c: list(range(U.n)))
            assert colour.tolist() == [expected[v] for v in range(U.n)]
    members, starts = colour_classes(colour)
    labels = np.arange(U.n)
    rounds = lpa.kernels(U.nnz).propagate(U.offsets, U.indices, members, starts, labels, 4, up)
    assert rounds == 0 and (labels == np.arange(U.n)).all()


def test_issue_51_ctrl_c_ends_louvain_within_a_second(default_sigint):
    """Louvain's local moves loop inside one kernel (seconds on kron:17, minutes on kron:20); an
    interrupt (here _thread.interrupt_main, as SIGINT) ends the call with KeyboardInterrupt within
    a second, the first call (which loads the kernels) too."""
    G = gravel.generate.kronecker(17, seed=1, device="cpu", progress=False)  # above SMALL_ARCS
    fn, algorithm = gravel.louvain_communities, "louvain"
    for delay in (0.6, 0.3):
        timer = threading.Timer(delay, _thread.interrupt_main)
        begin = time.perf_counter()
        timer.start()
        try:
            with pytest.raises(KeyboardInterrupt):
                fn(G, device="cpu")
        finally:
            timer.cancel()  # a call that ended first must not leave an interrupt behind
        late = time.perf_counter() - begin - delay
        assert late < 1.0, f"{algorithm} took {late:.2f} s to stop"


def _os_threads():
    return len(os.listdir("/proc/self/task"))


@pytest.mark.skipif(not os.path.isdir("/proc/self/task"), reason="counts threads in /proc")
def test_a_parallel_kernel_leaves_no_thread_with_a_team_behind():
    """A kernel with parallel loops, given to call or stoppable, runs on a thread that ends with
    it, its OpenMP team too: a pool thread keeping a team would leave the process more OpenMP
    threads than cores, and every team sleeping between parallel loops from then on."""
    import numba

    @numba.njit(parallel=True, nogil=True)
    def double(x, stop):
        for i in numba.prange(x.shape[0]):
            x[i] *= 2

    x = np.ones(1000)
    double(x, np.zeros(1, np.uint8))  # this thread's own team first
    before = _os_threads()
    shares.call(double, x, np.zeros(1, np.uint8))
    shares.stoppable(double, x)
    assert np.all(x == 8)
    deadline = time.monotonic() + 5
    while _os_threads() > before and time.monotonic() < deadline:
        time.sleep(0.01)
    assert _os_threads() <= before  # a thread an earlier test left may have ended meanwhile


def test_a_parallel_kernel_runs_on_the_callers_thread_count():
    """Numba's thread count is each thread's own: the kernel's thread takes the caller's."""
    import numba

    @numba.njit(parallel=True, nogil=True)
    def threads(x, stop):
        for i in numba.prange(x.shape[0]):
            x[i] = 1
        return numba.get_num_threads()

    old = numba.get_num_threads()
    try:
        for count in sorted({1, old}):
            numba.set_num_threads(count)
            assert shares.stoppable(threads, np.zeros(4)) == count
            assert shares.call(threads, np.zeros(4), np.zeros(1, np.uint8)) == count
    finally:
        numba.set_num_threads(old)


def test_parallel_calls_within_a_block_share_one_thread_that_ends_with_it():
    """parallel_thread(): a generator's parallel blocks on one thread (one OpenMP team), not one
    each; outside it, each parallel call gets a thread of its own."""
    seen = []

    def probe():
        seen.append(threading.current_thread())

    probe.targetoptions = {"parallel": True}  # as a Numba kernel with parallel loops says
    with shares.parallel_thread():
        shares.call(probe)
        shares.call(probe)
    shares.call(probe)
    assert seen[0] is seen[1] is not threading.main_thread()
    assert seen[2] is not seen[0] and seen[2] is not threading.main_thread()
    assert not [t for t in threading.enumerate() if t.name.startswith("gravel-parallel")]


def test_a_stop_leaves_a_parallel_thread_block_without_waiting_for_its_call(default_sigint):
    """Ctrl-C while a call of a parallel_thread() block runs (a kernel loading from Numba's cache
    cannot be cut) leaves the block at once; the cut call runs on to its end, and the next call
    starts only after it (no two kernels at once)."""
    ran, release = [], threading.Event()

    def slow():
        release.wait(5)
        ran.append("slow")

    def after():
        ran.append("after")

    for kernel in (slow, after):
        kernel.targetoptions = {"parallel": True}
    threading.Timer(0.1, _thread.interrupt_main).start()
    begin = time.perf_counter()
    with pytest.raises(KeyboardInterrupt), shares.parallel_thread():
        shares.call(slow)
    assert time.perf_counter() - begin < 1.0  # the block did not wait for `slow`
    assert ran == []
    threading.Timer(0.2, release.set).start()
    shares.call(after)
    assert ran == ["slow", "after"]
