"""The operators' code generation: user functors spliced into kernel templates, and launch helpers.

A functor is a CUDA C++ expression or statement over an operator's documented names (advance:
``src, dst, edge, weight, step``; filter and compute: ``v, i``; neighbor_reduce: ``v, u, edge,
weight`` and ``a, b``) and the user's ``params``: CuPy arrays (seen as pointers) and explicit NumPy
scalars, passed by name. Each kernel takes its functor through a macro (the names below) that
common.cuh evaluates inside a small device function of its own, so user names cannot collide with a
kernel's locals. The user parameters reach the kernel prefixed ``gravel_p_`` and the functor's
function under the user's names.
"""

import functools
from typing import NamedTuple

import numpy as np

from ..errors import UnknownNameError

#: threads per block of most operator kernels
BLOCK = 256
#: lists of this many entries or more get a CTA each (pull sweeps, multi-step advances): one group
#: of lanes walking a hub's hundred thousand entries would finish long after the rest
LONG_LIST = 2048

CTYPES = {
    np.dtype(np.int32): "int",
    np.dtype(np.int64): "long long",
    np.dtype(np.float32): "float",
    np.dtype(np.float64): "double",
    np.dtype(np.uint32): "unsigned int",
    np.dtype(np.uint64): "unsigned long long",
    np.dtype(np.uint8): "unsigned char",
    np.dtype(np.int8): "signed char",
    np.dtype(np.bool_): "bool",
}

# The macros through which each kernel takes its functor (common.cuh and the operators' headers)
ADVANCE_OP = "GRAVEL_ADVANCE_OP(src, dst, edge, weight, step)"
PULL_WHERE = "GRAVEL_PULL_WHERE(v)"
FILTER_OP = "GRAVEL_FILTER_OP(v, i)"
SPLIT_OP = "GRAVEL_SPLIT_OP(v, i)"
COMPUTE_OP = "GRAVEL_COMPUTE_OP(v, i)"
SUMS_OP = "GRAVEL_SUMS_OP(v, i, gravel_s)"
NR_VALUE = "GRAVEL_NR_VALUE(v, u, edge, weight)"
NR_REDUCE = "GRAVEL_NR_REDUCE(a, b)"
NR_APPLY = "GRAVEL_NR_APPLY(v, i, acc, out)"
NR_SUMS = "GRAVEL_NR_SUMS"
NR_FIRST = "GRAVEL_NR_FIRST"
NRS_WHERE = "GRAVEL_NRS_WHERE(v, step)"
NRS_VALUE = "GRAVEL_NRS_VALUE(v, u, edge, weight, step)"
NRS_APPLY = "GRAVEL_NRS_APPLY(v, acc, step)"


class Lists(NamedTuple):
    """Neighbour lists as the traversal kernels take them: a CSR (offsets, ids, weights or None)."""

    offsets: object
    indices: object
    weights: object

    def args(self):
        """The kernels' leading arguments: offsets, ids, weights (a stand-in when there are none)
        and whether there are weights.

        Returns
        -------
        tuple
            ``(offsets, indices, weights, has_weights)``: the weights a one-element float32
            stand-in where there are none, `has_weights` a NumPy int32 (1 or 0).
        """
        import cupy

        w = self.weights if self.weights is not None else dummy(cupy.float32)
        return self.offsets, self.indices, w, np.int32(self.weights is not None)


def ctype(x):
    """The C type of an array's elements or of a NumPy scalar.

    Parameters
    ----------
    x : array or scalar
        Anything with a ``dtype``, or a value NumPy gives one.

    Returns
    -------
    str
        The C type (``"int"``, ``"long long"``, ``"float"``, ...; see `CTYPES`).

    Raises
    ------
    UnknownNameError
        A dtype the kernels take no parameter of (float16, complex, ...).

    Examples
    --------
    >>> import numpy as np
    >>> from gravel.operators.codegen import ctype
    >>> ctype(np.int32(1)), ctype(np.zeros(2, np.uint64))
    ('int', 'unsigned long long')
    """
    dt = x.dtype if hasattr(x, "dtype") else np.asarray(x).dtype
    try:
        return CTYPES[np.dtype(dt)]
    except KeyError:
        raise UnknownNameError(f"unsupported parameter dtype {dt}") from None


def prelude(decls, macros, preamble=""):
    """The source put before a kernel: the user parameters `decls`, then the operator's `macros`
    and the user's `preamble`.

    Parameters
    ----------
    decls : sequence of (str, str)
        The user parameters as (C type, name) pairs, in the order of their kernel arguments.
    macros : dict of str to str
        Macro heads (``"GRAVEL_ADVANCE_OP(src, dst, edge, weight, step)"``) and their bodies.
    preamble : str, default ""
        User source: helper functions, say.

    Returns
    -------
    str
        ``#define`` lines for the parameters (``GRAVEL_USER_PARAMS``, ``GRAVEL_USER_ARGS``,
        ``GRAVEL_USER_FN_PARAMS``) and the macros, then the preamble.

    Examples
    --------
    >>> from gravel.operators.codegen import prelude
    >>> macros = {"GRAVEL_FILTER_OP(v, i)": "(depth[v] < 0)"}
    >>> print(prelude([("int*", "depth")], macros), end="")
    #define GRAVEL_USER_PARAMS , int* gravel_p_depth
    #define GRAVEL_USER_ARGS , gravel_p_depth
    #define GRAVEL_USER_FN_PARAMS , int* depth
    #define GRAVEL_FILTER_OP(v, i) (depth[v] < 0)
    <BLANKLINE>
    """
    lines = [
        f"#define GRAVEL_USER_PARAMS {''.join(f', {t} gravel_p_{n}' for t, n in decls)}",
        f"#define GRAVEL_USER_ARGS {''.join(f', gravel_p_{n}' for _, n in decls)}",
        f"#define GRAVEL_USER_FN_PARAMS {''.join(f', {t} {n}' for t, n in decls)}",
    ]
    lines += [f"#define {k} {v}" for k, v in macros.items()]
    return "\n".join(lines) + "\n" + preamble + "\n"


def check_param_name(name):
    """A user parameter's name becomes a C parameter's: it must be an ASCII identifier.

    Parameters
    ----------
    name : object
        The key of the `params` entry.

    Raises
    ------
    ValueError
        `name` is not a str that is an ASCII Python identifier.
    """
    if not (isinstance(name, str) and name.isidentifier() and name.isascii()):
        raise ValueError(f"parameter name {name!r} is not a C identifier")


def functor(params, macros, preamble=""):
    """The prelude source and the extra kernel arguments of user parameters and operator macros.

    Parameters
    ----------
    params : dict of str to (cupy.ndarray or numpy.generic), or None
        The user parameters: a CuPy array is seen as a pointer to its elements, a NumPy scalar
        as a value of its type.
    macros : dict of str to str
        The operator's macros, as for :func:`prelude`.
    preamble : str, default ""
        User source put after the macros.

    Returns
    -------
    source : str
        The :func:`prelude` of the parameters.
    args : tuple
        The parameters' values, in order: the arguments after the kernel's own.

    Raises
    ------
    ValueError
        A name that is not a C identifier.
    TypeError
        A value that is neither a CuPy array nor a NumPy scalar (a Python int, say).
    UnknownNameError
        A dtype with no C type here.
    """
    import cupy

    decls, args = [], []
    for name, value in (params or {}).items():
        check_param_name(name)
        if isinstance(value, cupy.ndarray):
            decls.append((f"{ctype(value)}*", name))
        elif isinstance(value, np.generic):
            decls.append((ctype(value), name))
        else:
            raise TypeError(
                f"parameter {name!r}: pass a CuPy array or an explicit NumPy scalar "
                f"(np.int32(...)), not {type(value).__name__}"
            )
        args.append(value)
    return prelude(decls, macros, preamble), tuple(args)


def pull_functor(candidates, n, op, where, params, preamble):
    """The kernel arguments and source of a pull over `candidates`.

    Parameters
    ----------
    candidates : Frontier or None
        The vertices that pull; None: every vertex 0..n-1.
    n : int
        The number of vertices.
    op : str
        What each in-arc tests (``GRAVEL_ADVANCE_OP``).
    where : str or None
        What each candidate tests over ``v`` first; None: true.
    params : dict or None
        User parameters, as for :func:`functor`.
    preamble : str
        User source.

    Returns
    -------
    tuple
        ``(ids, count, all, source, args)``: :func:`items` of the candidates, then
        :func:`functor`'s source and arguments.

    Raises
    ------
    ValueError, TypeError, UnknownNameError
        User parameters :func:`functor` refuses.
    """
    macros = {ADVANCE_OP: f"({op})", PULL_WHERE: f"({where or 'true'})"}
    return items(candidates, n) + functor(params, macros, preamble)


def sums_op(terms, into="gravel_s"):
    """The statement that adds each of `terms` to its float64 sum in the array `into`.

    Parameters
    ----------
    terms : sequence of str
        C expressions; term k is added to ``into[k]``.
    into : str, default "gravel_s"
        The array of sums.

    Returns
    -------
    str
        A C block statement.

    Examples
    --------
    >>> from gravel.operators.codegen import sums_op
    >>> sums_op(["x[v]", "1"])
    '{ gravel_s[0] += (double)(x[v]); gravel_s[1] += (double)(1); }'
    """
    adds = " ".join(f"{into}[{k}] += (double)({t});" for k, t in enumerate(terms))
    return f"{{ {adds} }}"


def counter():
    """A zeroed device counter (an output length).

    Returns
    -------
    cupy.ndarray of uint64, shape (1,)
    """
    import cupy

    return cupy.zeros(1, dtype=cupy.uint64)


def read_count(count):
    """A counter's value on the host (a sync: 8 bytes read back).

    Parameters
    ----------
    count : cupy.ndarray of uint64, shape (1,)
        The counter.

    Returns
    -------
    int
    """
    return int(count.get()[0])  # sync: the output length, 8 bytes


class PendingCount:
    """A counter's value, copied to pinned host memory as soon as the kernel that writes it is
    queued: ``int()`` waits for that kernel and the copy only, not for launches queued after them,
    so that a loop may launch its next step before it reads this one's length.

    Parameters
    ----------
    count : cupy.ndarray of uint64, shape (1,)
        The counter, copied on the current stream once the kernels queued so far have run.
    """

    def __init__(self, count):
        import cupy
        import cupyx

        self._host = cupyx.empty_pinned(1, np.uint64)
        count.get(out=self._host, blocking=False)
        self._copied = cupy.cuda.Event()
        self._copied.record()

    def __int__(self):
        self._copied.synchronize()
        return int(self._host[0])


@functools.cache
def dummy(dtype):
    """A one-element device array for pointer arguments a kernel will not read.

    Parameters
    ----------
    dtype : numpy dtype or type
        Its element type.

    Returns
    -------
    cupy.ndarray, shape (1,)
        Zeroed, made once per dtype and shared.
    """
    import cupy

    return cupy.zeros(1, dtype=dtype)


def items(frontier, n):
    """The kernel arguments for the items of `frontier`, or every vertex 0..n-1 if None.

    Parameters
    ----------
    frontier : Frontier or None
        The items.
    n : int
        The number of vertices.

    Returns
    -------
    tuple
        ``(ids, count, all)``: the frontier's ids, its length (a sync where it is still on the
        device) and 0; or, for None, a stand-in array, `n` and 1.
    """
    import cupy

    if frontier is None:
        return dummy(cupy.int32), n, 1
    return frontier.ids, len(frontier), 0
