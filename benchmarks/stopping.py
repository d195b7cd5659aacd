"""A benchmark run that a time limit (SIGTERM, as `timeout` and scripts/gpu-check.sh's RUN_SECONDS
send) or Ctrl-C ends early keeps what it measured: the scripts that write rows as they go
(gap.py, gunrock.py, nx_backend.py) measure inside :class:`Stoppable`, then write their record,
marked ``"cut": true`` where the run was stopped."""

import signal


class Stoppable:
    """Within it, SIGTERM and SIGINT (even where the shell ignored it) raise KeyboardInterrupt,
    which ends the block early: a line says so, ``cut`` becomes True, and the code after the block
    runs (it writes the rows measured so far). The handlers before it come back on leaving.

    Attributes
    ----------
    cut : bool
        Whether a signal ended the block early.
    """

    def __init__(self):
        self.cut = False
        self._before = {}

    def __enter__(self):
        for signum in (signal.SIGINT, signal.SIGTERM):
            self._before[signum] = signal.signal(signum, signal.default_int_handler)
        return self

    def __exit__(self, kind, value, traceback):
        for signum, handler in self._before.items():
            signal.signal(signum, handler)
        if kind is not None and issubclass(kind, KeyboardInterrupt):
            self.cut = True
            print("stopped: the rows so far are written", flush=True)
            return True
        return False
