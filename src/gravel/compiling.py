"""Kernels compiled at their first use in a process: Numba's on the CPU, NVRTC's on the GPU (where
no kernel built ahead of time fits). The time they take is kept out of what an algorithm reports,
and the command line says so when it takes a while.

Both announce themselves through Numba's event system: Numba's own ``numba:compile`` events, and
``gravel:cuda-compile`` (:func:`cuda_compile`) around every NVRTC compilation of a kernel module.
The clock also counts Numba's ``numba:compiler_lock``, held while a kernel compiles and while its
compiled code loads from Numba's cache at its first call in a process (a few tenths of a second
that are no more the algorithm's than the compilation is).
"""

import sys
import threading
import time
from contextlib import ExitStack, contextmanager

#: the event kinds that mark a compilation, announced when long
KINDS = ("numba:compile", "gravel:cuda-compile")
#: the event kinds whose time stays out of an algorithm's: compilation and loading compiled code
CLOCKED = ("numba:compiler_lock", "gravel:cuda-compile")

#: seconds of compiling after which the command line says it is compiling (once a process)
ANNOUNCE_AFTER_S = 1.0


@contextmanager
def _listening(listener, kinds):
    from numba.core import event

    with ExitStack() as stack:
        for kind in kinds:
            stack.enter_context(event.install_listener(kind, listener))
        yield


def cuda_compile(what):
    """Context manager around compiling the CUDA module `what` (its file), so that clocks and the
    command line see it.

    Parameters
    ----------
    what : str
        The module's file, the event's data.

    Returns
    -------
    context manager
        Numba's ``event.trigger_event("gravel:cuda-compile", data=what)``: a start event on entry
        and an end event on exit.
    """
    from numba.core import event

    return event.trigger_event("gravel:cuda-compile", data=what)


@contextmanager
def compile_clock():
    """Yield a function that gives the seconds spent compiling kernels (or loading them from
    Numba's cache) inside the block.

    Yields
    ------
    callable
        Called with no argument, it returns the seconds (float) of the events in `CLOCKED`
        inside the block, 0.0 while none has ended.

    Examples
    --------
    >>> from gravel.compiling import compile_clock
    >>> with compile_clock() as compiling:
    ...     pass
    >>> compiling()
    0.0
    """
    from numba.core import event

    listener = event.TimingListener()
    with _listening(listener, CLOCKED):
        yield lambda: listener.duration if listener.done else 0.0


@contextmanager
def announce_compiling(file=None):
    """Inside the block, say once "compiling kernels (first run)" when compilations have run for
    ANNOUNCE_AFTER_S seconds in all.

    Parameters
    ----------
    file : file-like, optional
        Where to say it; None (the default) is ``sys.stderr``.

    Yields
    ------
    None

    Notes
    -----
    Many short NVRTC compilations add up; a compiler holding the interpreter is caught when it
    returns.
    """
    from numba.core import event

    class Announcer(event.Listener):
        depth, timer, said, total, start = 0, None, False, 0.0, 0.0
        lock = threading.Lock()  # the timer's thread and the compiling one may both say it

        def on_start(self, ev):
            self.depth += 1
            if self.depth == 1 and not self.said:
                self.start = time.perf_counter()
                self.timer = threading.Timer(max(ANNOUNCE_AFTER_S - self.total, 0.0), self.say)
                self.timer.daemon = True
                self.timer.start()

        def on_end(self, ev):
            self.depth -= 1
            if self.depth == 0 and self.timer is not None:
                self.timer.cancel()
                self.total += time.perf_counter() - self.start
                if self.total >= ANNOUNCE_AFTER_S:
                    self.say()

        def say(self):
            with self.lock:
                if self.said:
                    return
                self.said = True
                print("gravel: compiling kernels (first run)", file=file or sys.stderr, flush=True)

    announcer = Announcer()
    with _listening(announcer, KINDS):
        try:
            yield
        finally:
            if announcer.timer is not None:
                announcer.timer.cancel()
