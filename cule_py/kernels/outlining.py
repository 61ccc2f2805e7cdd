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

from numba import types
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
