import os
import signal
import threading

import pytest

from gravel.backends.cpu import shares


@pytest.mark.parametrize("count", [1, 2, 5, 3])
def test_every_share_runs_once_and_the_first_on_the_caller(count):
    seen, lock = [], threading.Lock()

    def share(t):
        with lock:
            seen.append((t, threading.current_thread() is threading.main_thread()))

    shares.run(share, count)
    assert sorted(t for t, _ in seen) == list(range(count))
    assert dict(seen)[0] is True and not any(main for t, main in seen if t)


def test_no_shares_call_nothing():
    shares.run(lambda t: pytest.fail("called"), 0)


def test_a_shares_error_reaches_the_caller_after_every_share_returned():
    done, slow = [], threading.Event()

    def share(t):
        if t == 2:
            raise ValueError("share 2")
        if t == 3:
            slow.wait(0.2)  # still running when share 2 has failed
        done.append(t)

    with pytest.raises(ValueError, match="share 2"):
        shares.run(share, 4)
    assert sorted(done) == [0, 1, 3]


def test_share_zeros_error_wins_over_the_others():
    def share(t):
        raise ValueError(f"share {t}")

    with pytest.raises(ValueError, match="share 0"):
        shares.run(share, 3)


def test_callers_on_several_threads_each_get_all_their_shares():
    """Four callers at once, with counts that grow the pool while others' shares are queued."""
    results, errors = {}, []

    def caller(c):
        got, lock = set(), threading.Lock()

        def share(t):
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
    shares.run(lambda t: None, 3)  # the parent has a pool
    with shares._lock:  # as if another thread were submitting at the fork
        pid = os.fork()
        if pid == 0:  # the child: a hang here ends by the alarm's signal
            signal.alarm(10)
            seen = []
            shares.run(seen.append, 3)
            os._exit(0 if sorted(seen) == [0, 1, 2] else 1)
    _, status = os.waitpid(pid, 0)
    assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0
