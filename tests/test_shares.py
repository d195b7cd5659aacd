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


def test_a_shares_error_reaches_the_caller_after_the_others_finish():
    done = []

    def share(t):
        if t == 2:
            raise ValueError("share 2")
        done.append(t)

    with pytest.raises(ValueError, match="share 2"):
        shares.run(share, 4)
    assert sorted(done) == [0, 1, 3]
