"""benchmarks/stopping.py: a signal ends the block and says so; the handlers come back."""

import os
import signal

import pytest

from .helpers import script

stopping = script("stopping")


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_ends_the_block_and_the_code_after_it_runs(signum, capsys):
    before = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}
    done = []
    with stopping.Stoppable() as run:
        done.append(1)
        os.kill(os.getpid(), signum)
        done.append(2)  # not reached: the signal ended the block
    assert run.cut and done == [1]
    assert "stopped: the rows so far are written" in capsys.readouterr().out
    assert {s: signal.getsignal(s) for s in before} == before


def test_a_block_that_ends_itself_is_not_cut_and_its_errors_pass():
    with stopping.Stoppable() as run:
        pass
    assert not run.cut
    with pytest.raises(ValueError), stopping.Stoppable() as run:
        raise ValueError("the block's own error")
    assert not run.cut
