"""Kernels compiled at their first use in a process: Numba's on the CPU, NVRTC's on the GPU (where
no kernel built ahead of time fits). The time they take is kept out of what an algorithm reports,
and gravel says so on stderr when it takes a while (:func:`watch`).

Both announce themselves through Numba's event system: Numba's own ``numba:compile`` events, and
``gravel:cuda-compile`` (:func:`cuda_compile`) around every NVRTC compilation of a kernel module.
The clock also counts Numba's ``numba:compiler_lock``, held while a kernel compiles and while its
compiled code loads from Numba's cache at its first call in a process (a few tenths of a second
that are no more the algorithm's than the compilation is).
"""

import logging
import os
import stat
import sys
import tempfile
import threading
import time
from contextlib import ExitStack, contextmanager
from pathlib import Path

#: the event kinds that mark a compilation, announced when long
KINDS = ("numba:compile", "gravel:cuda-compile")
#: the event kinds whose time stays out of an algorithm's: compilation and loading compiled code
CLOCKED = ("numba:compiler_lock", "gravel:cuda-compile")

#: seconds of compiling after which gravel says it is compiling
ANNOUNCE_AFTER_S = 1.0
#: seconds without a compilation that end a run of them: the next long run is announced again
QUIET_AFTER_S = 2.0
#: what gravel says when kernels compile for a while
NOTICE = "gravel: compiling kernels (first use; cached for later runs)"

logger = logging.getLogger(__name__)


@contextmanager
def _listening(listener, kinds):
    from numba.core import event

    with ExitStack() as stack:
        for kind in kinds:
            stack.enter_context(event.install_listener(kind, listener))
        yield


@contextmanager
def file_lock(path):
    """Hold an exclusive lock on the file `path` (created if missing) inside the block: processes
    that compile or build the same thing take turns, the later ones then finding it cached. Where
    `path` is None, there is no ``fcntl`` (Windows) or the file cannot be opened, nothing is locked.

    Parameters
    ----------
    path : path-like or None
        The lock file.

    Yields
    ------
    None
    """
    try:
        import fcntl

        lock = open(path, "a")  # noqa: SIM115 - closed below, which releases the lock
    except (ImportError, OSError, TypeError):
        yield
        return
    with lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


def compile_lock(key):
    """The lock file of the compilation named `key`, in a folder of this user's in the temporary
    directory (:func:`file_lock` it around the compilation).

    Parameters
    ----------
    key : str
        A name for what compiles, fit for a file name (a hash).

    Returns
    -------
    pathlib.Path or None
        None where the folder cannot be made or is not this user's alone (another user could
        otherwise hold the lock and stall the compilation).
    """
    if not hasattr(os, "getuid"):
        return None
    folder = Path(tempfile.gettempdir()) / f"gravel-compiling-{os.getuid()}"
    try:
        folder.mkdir(mode=0o700, exist_ok=True)
        st = folder.lstat()
    except OSError:
        return None
    if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.getuid() or st.st_mode & 0o077:
        return None
    return folder / f"{key}.lock"


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

    watch()
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

    watch()
    listener = event.TimingListener()
    with _listening(listener, CLOCKED):
        yield lambda: listener.duration if listener.done else 0.0


class _Announcer:
    """A Numba event listener that says "compiling kernels" once a run of compilations has taken
    ANNOUNCE_AFTER_S seconds (many short NVRTC compilations add up; a compiler holding the
    interpreter is caught when it returns). A run ends when no compilation starts for
    QUIET_AFTER_S seconds; the next long one is announced again. The ``gravel.compiling`` logger
    records a long run's seconds."""

    def __init__(self, file=None):
        self.file = file
        self.lock = threading.Lock()  # the timer's thread and the compiling one may both say it
        self.depth, self.timer, self.said = 0, None, False
        self.total = self.start = self.end = 0.0

    def on_start(self, ev):
        now = time.perf_counter()
        self.depth += 1
        if self.depth > 1:
            return
        if now - self.end > QUIET_AFTER_S:
            self.said, self.total = False, 0.0
        self.start = now
        if not self.said:
            self.timer = threading.Timer(max(ANNOUNCE_AFTER_S - self.total, 0.0), self.say)
            self.timer.daemon = True
            self.timer.start()

    def on_end(self, ev):
        self.depth -= 1
        if self.depth:
            return
        if self.timer is not None:
            self.timer.cancel()
        self.end = time.perf_counter()
        self.total += self.end - self.start
        if self.total >= ANNOUNCE_AFTER_S:
            self.say()
            logger.info("compiled kernels for %.1f s so far in this run", self.total)

    def say(self):
        from . import config

        with self.lock:
            if self.said:
                return
            self.said = True
            if config.compile_notice:
                from tqdm import tqdm

                out = self.file or sys.stderr
                tqdm.write(NOTICE, file=out)  # on a line of its own, below any progress bar
                out.flush()


#: the listener :func:`watch` installs for the whole process
_WATCHER = []


def watch():
    """From now on in this process, say "compiling kernels" on stderr whenever kernels compile
    for more than ANNOUNCE_AFTER_S seconds (:data:`gravel.config.compile_notice` turns it off).

    Called where gravel first loads or compiles a kernel; calling it again does nothing.
    """
    if _WATCHER:
        return
    _WATCHER.append(announcer())
    from numba.core import event

    for kind in KINDS:
        event.register(kind, _WATCHER[0])


def announcer(file=None):
    """A Numba event listener that announces long compilations on `file` (stderr by default).

    Parameters
    ----------
    file : file object, optional
        Where the notice goes; by default stderr, as it is when the notice is said.

    Returns
    -------
    numba.core.event.Listener
    """
    from numba.core import event

    return type("Announcer", (_Announcer, event.Listener), {})(file)
