"""Issue 51: Ctrl-C and SIGTERM end a run whose time goes to GPU loops within a second, as they end
CPU runs: exact betweenness on kron:18 (a quarter of a million sources, batch after batch of
sparse products for a minute or more), one line, exit 130 or 143, no output file."""

import signal

import pytest

from .helpers import PROMPT_S, gravel, interrupt, one_line, start

#: seconds from gravel's import to the signal: past the graph's generation and upload
DELAY_S = 6.0


@pytest.mark.gpu
@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_issue_51_a_signal_ends_a_gpu_run_within_a_second(signum, tmp_path):
    # the same kernels on a small graph first: the signal then lands in the GPU loop, not in a
    # first compile of its kernels (whose promptness is not what this test measures)
    status, _, err = gravel(["run", "bc", "kron:10", "--device", "cuda"])
    assert status == 0, err
    out = tmp_path / "bc.npy"
    proc = start(["run", "bc", "kron:18", "--device", "cuda", "-o", out])
    status, _, err, late, ended = interrupt(proc, DELAY_S, signum)
    assert not ended, f"the run ended before the signal (exit {status}): {err}"
    assert status == 128 + signum, err
    assert late < PROMPT_S, f"ended {late:.2f} s after the signal"
    one_line(err, "gravel: interrupted" if signum == signal.SIGINT else "gravel: terminated")
    assert not out.exists()
