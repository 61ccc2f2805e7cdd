"""Keeping the big, rarely-entered parts of the console out of line on the GPU too.

The CPU entry points inline every helper (`forceinline=True`, inherited) except the few marked
`register_jitable(forceinline=False)`: the TIA and RIOT behind `device_read`/`device_write`, the
bank-switching schemes behind `banked_read`/`banked_write` and `tia_space_read`/`_write`, and
the whole console behind `run_console_frames`. numba-cuda has no such option: it leaves the
choice to NVVM, which inlined the console at each of the ~17 frame-running sites of the reset
kernel (13.8 MB of PTX, 6 to 10 minutes of compile for `agent_reset_cuda`).

`out_of_line()`, called first in such a helper, marks the LLVM function being lowered `noinline`
when the target is NVPTX, so each helper exists once in the GPU code as on the CPU. It emits no
instruction, does nothing on the CPU (the jit options decide there, as before) and nothing when
called as plain Python (numba's CUDA simulator).
"""

from llvmlite import ir
from numba import types
from numba.np.arrayobj import populate_array
from numba.extending import intrinsic, overload


def out_of_line() -> None:
    """Keep the calling device function out of line on the GPU (see the module docstring)."""


@intrinsic
def _mark_function_noinline_on_gpu(typingctx):
    def codegen(context, builder, signature, args):
        function = builder.function
        if builder.module.triple.startswith("nvptx") and "alwaysinline" not in function.attributes:
            function.attributes.add("noinline")
        return context.get_dummy_value()
    return types.none(), codegen


# inline="always" splices the body into the caller's numba IR, so that the intrinsic is lowered
# inside the caller and `builder.function` is the caller's function.
@overload(out_of_line, inline="always")
def _out_of_line_jit():
    def impl():
        _mark_function_noinline_on_gpu()
    return impl


# Passing one console to an out-of-line function by address (CPU).
#
# numba passes an array to a function it does not inline as its whole struct, one argument word
# per field: a (consoles, fields) state array and a (consoles, 2, 250, 160) frame buffer are 22
# words, which the caller of an out-of-line TIA call pushes one by one at every call (seaquest:
# ~636 calls a frame, 15% of the kernel's time on those pushes). Passing the address of the
# console's row instead is one word per array, and the callee rebuilds a one-console array of
# constant shape, so that its strides are constants and every `st[0, FIELD]` is a fixed offset.

@intrinsic
def console_address(typingctx, array, env):
    """The address of `array[env]`, the start of console `env`'s row (jit code only)."""
    if not isinstance(array, types.Array) or not isinstance(env, types.Integer):
        return None

    def codegen(context, builder, signature, args):
        array_value = context.make_array(signature.args[0])(context, builder, args[0])
        intp = context.get_value_type(types.intp)
        base = builder.ptrtoint(array_value.data, intp)
        row = context.cast(builder, args[1], signature.args[1], types.intp)
        stride = builder.extract_value(array_value.strides, 0)
        return builder.add(base, builder.mul(row, stride))
    return types.intp(array, env), codegen


@intrinsic
def console_at(typingctx, address, dtype, shape):
    """The C-contiguous `dtype` array of `shape` (a tuple of constants, first axis 1 for the one
    console) at `address` (jit code only)."""
    # Built here rather than with numba.carray: without the NRT a jit function may not return an
    # array it made, and carray is one; an intrinsic's code lands in the caller.
    if not (isinstance(address, types.Integer) and isinstance(dtype, types.NumberClass)
            and isinstance(shape, types.BaseTuple)):
        return None
    array_type = types.Array(dtype.instance_type, len(shape), "C")

    def codegen(context, builder, signature, args):
        intp = context.get_value_type(types.intp)
        array_value = context.make_array(array_type)(context, builder)
        itemsize = context.get_abi_sizeof(context.get_data_type(array_type.dtype))
        sizes = [context.cast(builder, builder.extract_value(args[2], i), t, types.intp)
                 for i, t in enumerate(signature.args[2])]
        strides = []
        stride = ir.Constant(intp, itemsize)
        for size in reversed(sizes):
            strides.insert(0, stride)
            stride = builder.mul(stride, size)
        data = builder.inttoptr(args[0], array_value.data.type)
        populate_array(array_value, data=data, shape=sizes, strides=strides,
                       itemsize=ir.Constant(intp, itemsize), meminfo=None)
        return array_value._getvalue()
    return array_type(address, dtype, shape), codegen

