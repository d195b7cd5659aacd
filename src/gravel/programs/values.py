"""The values of a vertex program: the fields of its state and message dtypes, the names its
expressions see, and its parameters' names, defaults and casts.
"""

import keyword
from typing import NamedTuple

import numpy as np

from .expressions import NAMES, ProgramError

#: the dtypes a field may have (both devices hold them)
DTYPES = tuple(
    np.dtype(t) for t in (np.bool_, np.int8, np.uint8, np.int32, np.int64, np.float32, np.float64)
)
#: what every vertex-level function sees beside the state: the vertex id, the vertex count, the
#: iteration (0 first) and the vertex's degrees
VERTEX_NAMES = ("v", "n", "iteration", "out_degree", "in_degree")
#: every name the expression language gives a meaning of its own: the vertex names, the values
#: (``state``, ``old``, ``message``, ``total``, ``weight``, ``u`` the sender), ``inf`` and the
#: functions; no parameter may take one (``a`` and ``b`` are a reduce's alone, where no
#: parameter is seen)
RESERVED = (*VERTEX_NAMES, "u", "weight", "state", "old", "message", "total", *NAMES)


class Field(NamedTuple):
    """One scalar of a value: `key` its field name ("" for a scalar dtype), `dtype` its type."""

    key: str
    dtype: np.dtype

    def name(self, prefix):
        """How expressions name it: ``state`` for a scalar, ``state.rank`` for a field.

        Parameters
        ----------
        prefix : str
            The value's name: ``"state"``, ``"old"``, ``"message"`` or ``"total"``.

        Returns
        -------
        str
            `prefix`, then ``.key`` where the field has a key.

        Examples
        --------
        >>> import numpy as np
        >>> from gravel.programs.values import Field
        >>> Field("rank", np.dtype("float64")).name("state")
        'state.rank'
        >>> Field("", np.dtype("int32")).name("total")
        'total'
        """
        return f"{prefix}.{self.key}" if self.key else prefix


def fields(dtype, what):
    """The fields of `dtype`, a scalar or flat structured NumPy dtype.

    Parameters
    ----------
    dtype : numpy.dtype or object
        Anything :class:`numpy.dtype` takes: ``"int32"``, or ``[("rank", "float64"), ...]``.
    what : str
        What the dtype is (``"state"``, ``"message"``), for the error messages.

    Returns
    -------
    dt : numpy.dtype
        `dtype` as a NumPy dtype.
    fields : list of Field
        One :class:`Field` per field in order; a scalar dtype's one field has the key ``""``.

    Raises
    ------
    ProgramError
        `dtype` is not a NumPy dtype, a field's dtype is not one of :data:`DTYPES` (bool, int8,
        uint8, int32, int64, float32, float64), or a field's name is not a Python identifier or
        is a Python keyword (``state.if`` does not parse).

    Examples
    --------
    >>> from gravel.programs.values import fields
    >>> fields("int32", "state")
    (dtype('int32'), [Field(key='', dtype=dtype('int32'))])
    """
    try:
        dt = np.dtype(dtype)
    except TypeError as e:
        raise ProgramError(f"{what} dtype {dtype!r} is not a NumPy dtype: {e}") from None
    if dt.names is None:
        out = [Field("", dt)]
    else:
        out = [Field(k, dt.fields[k][0]) for k in dt.names]
    supported = ", ".join(str(d) for d in DTYPES)
    for f in out:
        if f.dtype not in DTYPES:
            where = f"{what} field {f.key!r}" if f.key else f"{what}"
            raise ProgramError(f"{where} has dtype {f.dtype}: supported are {supported}")
        if f.key and not f.key.isidentifier():
            raise ProgramError(f"{what} field {f.key!r} is not a Python identifier")
        if keyword.iskeyword(f.key):
            raise ProgramError(
                f"{what} field {f.key!r} is a Python keyword: an expression cannot name it"
            )
    return dt, out


def _check_parameter_name(name):
    """Refuse a parameter name that an expression could not use as the parameter: not an
    identifier, a Python keyword, or a name of the language (:data:`RESERVED`)."""
    if not isinstance(name, str) or not name.isidentifier() or name.startswith("gravel_"):
        raise ProgramError(f"parameter name {name!r} is not a plain identifier")
    if keyword.iskeyword(name):
        raise ProgramError(f"parameter name {name!r} is a Python keyword: no expression can use it")
    if name in RESERVED:
        raise ProgramError(
            f"parameter name {name!r} is a name of the expression language, which it would hide "
            f"(the language's names: {', '.join(RESERVED)}): rename the parameter"
        )


def _default(name, value):
    """A parameter's default as a NumPy scalar: a number or a boolean."""
    out = np.asarray(value)
    if out.ndim or out.dtype.kind not in "biuf":
        raise ProgramError(f"parameter {name!r} = {value!r}: a default must be a number or a bool")
    if out.dtype not in DTYPES:  # a kernel has no type for it (int16, float16, uint32, ...)
        supported = ", ".join(str(d) for d in DTYPES)
        raise ProgramError(
            f"parameter {name!r} = {value} has dtype {out.dtype}: supported are {supported}"
        )
    return out[()]


def _cast(what, value, dtype):
    """`value` as `dtype`, refused where that would change it (a fraction or an out-of-range number
    for an integer, an overflow to infinity for a float, a non-number); `what` names it in the
    error ("parameter 'source'", "identity")."""
    kind = np.asarray(value).dtype.kind if np.ndim(value) == 0 else "?"
    if kind not in ("b", "i", "u", "f") or (kind == "b") != (dtype.kind == "b"):
        raise ProgramError(f"{what} = {value!r}: expected a {dtype} value")
    if dtype.kind in "iu":
        limits = np.iinfo(dtype)
        if not (
            np.isfinite(value) and value == int(value) and limits.min <= int(value) <= limits.max
        ):
            raise ProgramError(f"{what} = {value!r} is not a {dtype} value")
    if dtype.kind == "f" and np.isfinite(value) and abs(value) > float(np.finfo(dtype).max):
        raise ProgramError(f"{what} = {value!r} is beyond {dtype}'s range")
    return np.asarray(value).astype(dtype)[()]
