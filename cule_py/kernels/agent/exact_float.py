"""Float products that no compiler fuses into a multiply-add, on every target.

The area resize (agent_step.observe) must round each product to float32 before it is added,
as ale-py's OpenCV does: a fused multiply-add rounds once instead of twice and changes some
pixels of the observation. On the CPU numba emits no contraction. On the GPU NVVM contracts a
multiply followed by an add into `fma.rn.f32` by default, and writing the product through
float64 does not stop it: LLVM shrinks `fptrunc(fpext a * fpext b)` back to a float32 multiply
(the double product is exact, so the shrink is legal) before the contraction. That is what made
the GPU's observations differ from the CPU's in the first runbook run (benchmarks/RESULTS.md,
2026-11-26), while the emulator itself was exact.

`mul_f32(a, b)` is the float32 product rounded once to nearest: on NVPTX the intrinsic
`llvm.nvvm.mul.rn.f`, whose `mul.rn.f32` has an explicit rounding mode and is never contracted;
elsewhere a plain `fmul`. Called as plain Python (numba's CUDA simulator), the same value from
numpy.
"""

import numpy as np
from llvmlite import ir
from numba import types
from numba.extending import intrinsic, overload


def mul_f32(a, b):
    """float32(a) * float32(b), rounded once to float32 and never fused into an addition."""
    # The product of two 24-bit significands is exact in float64: one rounding, to float32.
    return np.float32(np.float64(np.float32(a)) * np.float64(np.float32(b)))


@intrinsic
def _mul_rn_f32(typingctx, a, b):
    if a != types.float32 or b != types.float32:
        return None

    def codegen(context, builder, signature, args):
        if builder.module.triple.startswith("nvptx"):
            f32 = ir.FloatType()
            fnty = ir.FunctionType(f32, [f32, f32])
            function = builder.module.globals.get("llvm.nvvm.mul.rn.f")
            if function is None:
                function = ir.Function(builder.module, fnty, "llvm.nvvm.mul.rn.f")
            return builder.call(function, args)
        return builder.fmul(args[0], args[1])

    return types.float32(types.float32, types.float32), codegen


@overload(mul_f32, inline="always")
def _mul_f32_jit(a, b):
    def impl(a, b):
        return _mul_rn_f32(np.float32(a), np.float32(b))
    return impl
