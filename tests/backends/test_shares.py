import _thread
import os
import signal
import subprocess
import sys
import threading
import time

import pytest

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


def test_issue_51_an_interrupted_caller_stops_its_shares_and_raises():
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
        "import sys, gravel\n"
        "G = gravel.generate.kronecker(14, seed=1)\n"
        "gravel.betweenness_centrality(G, sources=range(64), device='cpu')  # compiled, warm\n"
        "print('go', flush=True)\n"
        "gravel.betweenness_centrality(G, device='cpu')\n"
        "print('finished', flush=True)\n"
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    assert proc.stdout.readline().strip() == "go"
    time.sleep(1.0)
    begin = time.perf_counter()
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert time.perf_counter() - begin < 1.0, "the interrupt took more than a second"
    assert "finished" not in out and "KeyboardInterrupt" in err
