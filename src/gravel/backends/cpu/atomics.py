"""Atomic read-modify-writes for Numba's parallel loops, which have none of their own: each is one
LLVM ``atomicrmw`` on an array element (monotonic ordering: the element alone is ordered; a
parallel loop's end is the barrier that publishes everything), returning the element's old value.
"""

from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic


def _atomic(op, dtype, doc):
    @intrinsic
    def rmw(typingctx, array, index, value):
        if not isinstance(array, types.Array) or array.dtype != dtype:
            return None

        def codegen(context, builder, signature, args):
            aryty = signature.args[0]
            ary, idx, val = args
            view = context.make_array(aryty)(context, builder, ary)
            ptr = cgutils.get_item_pointer(context, builder, aryty, view, [idx])
            return builder.atomic_rmw(op, ptr, val, "monotonic")

        return dtype(array, types.intp, dtype), codegen

    rmw.__doc__ = doc
    return rmw


@intrinsic
def min_nonnegative(typingctx, array, index, value):
    """array[index] = min(array[index], value) for a non-negative double (+inf included) or int32
    array, `value` cast to the array's type; the old value."""
    if not isinstance(array, types.Array) or array.dtype not in (types.float64, types.int32):
        return None
    if not isinstance(value, (types.Integer, types.Float)):
        return None
    dtype = array.dtype

    def codegen(context, builder, signature, args):
        aryty = signature.args[0]
        ary, idx, val = args
        view = context.make_array(aryty)(context, builder, ary)
        ptr = cgutils.get_item_pointer(context, builder, aryty, view, [idx])
        val = context.cast(builder, val, signature.args[2], dtype)
        if dtype == types.int32:
            return builder.atomic_rmw("min", ptr, val, "monotonic")
        # a double's bits, read as a signed integer, order the non-negative doubles
        bits = ir.IntType(64)
        old = builder.atomic_rmw(
            "min", builder.bitcast(ptr, bits.as_pointer()), builder.bitcast(val, bits), "monotonic"
        )
        return builder.bitcast(old, ir.DoubleType())

    return dtype(array, types.intp, value), codegen


add = _atomic("add", types.int64, "array[index] += value (int64); the old value.")
exchange = _atomic("xchg", types.int64, "array[index] = value (int64); the old value.")
bit_or = _atomic("or", types.uint64, "array[index] |= value (uint64); the old value.")


@intrinsic
def compare_exchange(typingctx, array, index, expected, value):
    """array[index] = value if it holds `expected` (int32); the old value (== expected: swapped)."""
    if not isinstance(array, types.Array) or array.dtype != types.int32:
        return None

    def codegen(context, builder, signature, args):
        aryty = signature.args[0]
        ary, idx, cmp, val = args
        view = context.make_array(aryty)(context, builder, ary)
        ptr = cgutils.get_item_pointer(context, builder, aryty, view, [idx])
        pair = builder.cmpxchg(ptr, cmp, val, "monotonic", "monotonic")
        return builder.extract_value(pair, 0)

    return types.int32(array, types.intp, types.int32, types.int32), codegen
