"""Views of an array that count no references, for loops that call compiled functions
on row after row.

Numba keeps an array's memory alive with a reference count, changed by atomic
instructions. A view made in a loop (``states[i]``) and passed to a compiled function
costs such an increment and decrement in that function at every call, some 10 ns a
row here, and in a parallel loop every thread changes the same counter. A borrowed view
has no counter (its memory info is null, which numba's reference counting skips), so
it is only valid while the array it views is alive: the caller holds that array.

Under ``NUMBA_DISABLE_JIT`` they are plain views.
"""

from __future__ import annotations

from typing import Any

import numba
from numba import types
from numba.core import cgutils as _cgutils
from numba.extending import intrinsic
from numba.np import arrayobj

cgutils: Any = _cgutils  # numba's code generation helpers carry no type hints
make_array: Any = arrayobj.make_array
populate_array: Any = arrayobj.populate_array


@intrinsic
def _row(typingctx: Any, array: Any, index: Any) -> Any:
    if not (isinstance(array, types.Array) and array.ndim == 2 and array.layout == "C"):
        return None
    row_type = types.Array(array.dtype, 1, "C", readonly=not array.mutable)

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        whole = make_array(signature.args[0])(context, builder, args[0])
        shape = cgutils.unpack_tuple(builder, whole.shape)
        strides = cgutils.unpack_tuple(builder, whole.strides)
        start = cgutils.get_item_pointer2(
            context,
            builder,
            whole.data,
            shape,
            strides,
            "C",
            [args[1], context.get_constant(types.intp, 0)],
        )
        view = make_array(row_type)(context, builder)
        populate_array(
            view,
            data=start,
            shape=[shape[1]],
            strides=[strides[1]],
            itemsize=whole.itemsize,
            meminfo=None,
        )
        return view._getvalue()

    return row_type(array, types.intp), codegen


@intrinsic
def _whole(typingctx: Any, array: Any) -> Any:
    if not (isinstance(array, types.Array) and array.ndim == 1 and array.layout == "C"):
        return None

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        given = make_array(array)(context, builder, args[0])
        view = make_array(array)(context, builder)
        populate_array(
            view,
            data=given.data,
            shape=given.shape,
            strides=given.strides,
            itemsize=given.itemsize,
            meminfo=None,
        )
        return view._getvalue()

    return array(array), codegen


def _plain_row(array: Any, index: int) -> Any:
    return array[index]


def _plain_whole(array: Any) -> Any:
    return array


_PLAIN = bool(getattr(numba.config, "DISABLE_JIT", False))
#: ``row(a, i)``: row ``i`` of the C-contiguous 2-D array ``a``, borrowed.
row: Any = _plain_row if _PLAIN else _row
#: ``whole(a)``: the C-contiguous 1-D array ``a``, borrowed.
whole: Any = _plain_whole if _PLAIN else _whole
