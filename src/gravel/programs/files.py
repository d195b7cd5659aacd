"""Vertex programs written in a Python file of their own, as ``gravel run program:FILE`` runs them.

The file defines ``program``, a :class:`Program` (or a function of no arguments that returns one),
and may define ``params``, a dict of parameter values over the program's defaults.
"""

import importlib.util
from pathlib import Path

from ..errors import GravelError
from .expressions import ProgramError
from .program import Program

#: how the command line names a program file: ``program:path/to/file.py``
PREFIX = "program:"


def load_program(path):
    """The vertex program, and its parameter values, that the Python file `path` defines.

    The file is run as a module of its own: ``program`` is a :class:`Program`, or a function of
    no arguments that returns one; ``params``, optional, a dict.

    Parameters
    ----------
    path : str or os.PathLike
        A ``.py`` file.

    Returns
    -------
    program : Program
    params : dict
        A copy of the file's ``params``; empty where it defines none.

    Raises
    ------
    GravelError
        `path` is not a file.
    ProgramError
        `path` is not a ``.py`` file, raises while it runs (or its ``program()`` does: the
        error's type and message are kept), defines no ``program`` that is or returns a
        :class:`Program`, or defines ``params`` that is not a dict. Every message names the
        file.
    """
    path = Path(path)
    if not path.is_file():
        raise GravelError(f"{path}: no such program file")
    if path.suffix != ".py":
        raise ProgramError(f"{path}: a program file is a Python file (.py)")
    spec = importlib.util.spec_from_file_location(f"gravel_program_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    except ProgramError as e:
        raise ProgramError(f"{path}: {e}") from None
    except Exception as e:  # the user's code: any error, named with its file
        raise ProgramError(f"{path}: {type(e).__name__}: {e}") from None
    program = getattr(module, "program", None)
    if callable(program) and not isinstance(program, Program):
        try:
            program = program()
        except ProgramError as e:
            raise ProgramError(f"{path}: {e}") from None
        except Exception as e:  # the user's function: any error, named with its file
            raise ProgramError(f"{path}: program(): {type(e).__name__}: {e}") from None
    if not isinstance(program, Program):
        raise ProgramError(
            f"{path} defines no vertex program: it needs `program = gravel.programs.Program(...)`"
        )
    params = getattr(module, "params", {})
    if not isinstance(params, dict):
        raise ProgramError(f"{path}: params must be a dict, not {type(params).__name__}")
    return program, dict(params)
