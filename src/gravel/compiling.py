"""Numba kernels compiled at their first call in a process (the CPU path): the time they take is
kept out of what an algorithm reports, and the command line says so when it takes a while."""

import sys
import threading
from contextlib import contextmanager

#: seconds of compiling after which the command line says it is compiling (once a process)
ANNOUNCE_AFTER_S = 1.0


@contextmanager
def compile_clock():
    """Yield a function that gives the seconds spent compiling Numba kernels inside the block."""
    from numba.core import event

    listener = event.TimingListener()
    with event.install_listener("numba:compile", listener):
        yield lambda: listener.duration if listener.done else 0.0


@contextmanager
def announce_compiling(file=None):
    """Inside the block, say once "compiling kernels (first run)" on `file` (stderr) when a
    compilation has run for ANNOUNCE_AFTER_S seconds."""
    from numba.core import event

    class Announcer(event.Listener):
        depth, timer, said = 0, None, False

        def on_start(self, ev):
            self.depth += 1
            if self.depth == 1 and not self.said:
                self.timer = threading.Timer(ANNOUNCE_AFTER_S, self.say)
                self.timer.daemon = True
                self.timer.start()

        def on_end(self, ev):
            self.depth -= 1
            if self.depth == 0 and self.timer is not None:
                self.timer.cancel()

        def say(self):
            self.said = True
            print("gravel: compiling kernels (first run)", file=file or sys.stderr, flush=True)

    announcer = Announcer()
    with event.install_listener("numba:compile", announcer):
        try:
            yield
        finally:
            if announcer.timer is not None:
                announcer.timer.cancel()
