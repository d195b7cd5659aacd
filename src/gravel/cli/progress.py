"""What the command shows while it works: a line on stderr for a call that runs long
(:func:`working`), and lines on stdout that reach a file at once (:func:`say`).

A call that outlasts :data:`DELAY_S` seconds (loading or generating a graph, an algorithm, a
benchmark's runs of one algorithm) shows what it is doing on stderr: on a terminal, a tqdm line
with the time so far, as the generators and readers show their own bars
(:func:`gravel.io.progress`), cleared when the call returns; elsewhere (stderr redirected to a
log), one line when the call has run that long. Quick calls show nothing.
"""

import sys
import threading
from contextlib import contextmanager

#: seconds a call runs before the command says what it is doing
DELAY_S = 1.0
#: seconds between two updates of the time on a terminal
TICK_S = 0.5


def say(line, file=None):
    """Print a line and flush it, so that it reaches a file or a pipe now, not at the exit.

    Parameters
    ----------
    line : str
        The line, without its newline.
    file : file object, optional
        Where it goes (default: stdout, as it is at the call).
    """
    print(line, file=file or sys.stdout, flush=True)


@contextmanager
def working(what, *, delay=DELAY_S, file=None):
    """Show on stderr that `what` runs, once it has run `delay` seconds.

    A thread keeps the time: on a terminal it shows ``gravel: WHAT (00:05)``, updated every
    :data:`TICK_S` seconds and cleared at the end of the block; elsewhere it prints
    ``gravel: WHAT ...`` once. A kernel that holds Python's lock delays the update until it returns.

    Parameters
    ----------
    what : str
        What the block does, e.g. ``"running louvain on kron:16"``.
    delay : float, optional
        Seconds of quiet before anything is shown (default :data:`DELAY_S`).
    file : file object, optional
        Where it is shown (default: stderr, as it is on entry).

    Yields
    ------
    None
        Exceptions in the block (Ctrl-C too) pass through; the line is cleared first.
    """
    from tqdm import tqdm

    file = file or sys.stderr
    done = threading.Event()
    bar = None
    if _is_terminal(file):
        bar = tqdm(
            total=None,
            desc=f"gravel: {what}",
            bar_format="{desc} ({elapsed})",
            delay=delay,
            leave=False,
            file=file,
        )

        def keep_time():
            while not done.wait(TICK_S):
                bar.update(0)  # shown once `delay` has passed (tqdm's own rule)

    else:

        def keep_time():
            if not done.wait(delay):
                tqdm.write(f"gravel: {what} ...", file=file)
                file.flush()

    thread = threading.Thread(target=keep_time, name="gravel-working", daemon=True)
    thread.start()
    try:
        yield
    finally:
        done.set()
        thread.join()
        if bar is not None:
            bar.close()


def _is_terminal(file):
    """Whether `file` is a terminal (a captured or closed stream is not)."""
    try:
        return file.isatty()
    except (AttributeError, ValueError):
        return False
