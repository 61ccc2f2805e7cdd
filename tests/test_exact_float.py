"""Products rounded once, never fused into a multiply-add (kernels/agent/exact_float.py).

The first GPU run of the agent step gave observations that differed from the CPU's in 9 of 10
games, while the emulator was exact: NVVM had fused the area resize's multiply and add into
`fma.rn.f32` (benchmarks/RESULTS.md, 2026-11-26). Replaying the resize on the CPU with fused
arithmetic reproduced the GPU's observation hashes exactly. These tests hold the fix: the value on
every target, and the resize compiled for sm_90 without a fused instruction."""

import os
import re

import numpy as np
import pytest
from numba import njit

from cule_py.kernels.agent.agent_step import compare_while_pooling, observe
from cule_py.kernels.agent.exact_float import mul_f32
from cule_py.kernels.structs import Screen

rng = np.random.default_rng(2600)
A = rng.random(2000, np.float32) * np.float32(255.0)
B = rng.random(2000, np.float32)


def test_python_value_is_the_float32_product():
    expected = A * B                      # numpy float32 multiply: one rounding
    got = np.array([mul_f32(a, b) for a, b in zip(A, B)], np.float32)
    assert got.dtype == np.float32
    assert np.array_equal(got.view(np.int32), expected.view(np.int32))


def test_cpu_jit_value_is_the_float32_product():
    @njit
    def accumulate(a, b, out):
        total = np.float32(0.0)
        for i in range(a.shape[0]):
            total = total + mul_f32(a[i], b[i])
            out[i] = total

    out = np.zeros(len(A), np.float32)
    accumulate(A, B, out)
    expected = np.zeros(len(A), np.float32)
    total = np.float32(0.0)
    for i in range(len(A)):
        total = np.float32(total + np.float32(A[i] * B[i]))
        expected[i] = total
    assert np.array_equal(out.view(np.int32), expected.view(np.int32))


@pytest.mark.cuda
def test_resize_compiles_without_fused_multiply_add_for_sm90():
    """The area resize as the agent kernels inline it, compiled offline for sm_90: PTX without
    `fma`, products as `mul.rn.f32`; SASS (when nvdisasm is there) without FFMA. Before the fix
    the same compile gave 14 `fma.rn.f32` and no float64 multiply: LLVM had shrunk the float64
    product back to float32 and NVVM fused it."""
    if os.environ.get("NUMBA_ENABLE_CUDASIM", "0") not in ("", "0"):
        pytest.skip("numba.cuda is the CUDA simulator in this process: it compiles no PTX")
    from test_cuda_compile import _nvvm_missing_reason

    reason = _nvvm_missing_reason()
    if reason:
        pytest.skip(reason)
    from numba import cuda, types

    from tools import gpu_model as G

    def kernel(fb, screen, cfg, newest, older):
        observe(fb, screen, 0, cfg, 0, newest, older, compare_while_pooling())

    def arr(dtype, ndim):
        return types.Array(dtype, ndim, "A")

    table = (arr(types.int32, 1), arr(types.int32, 1), arr(types.float32, 1))
    screen = types.NamedTuple((arr(types.uint8, 2), arr(types.uint8, 3), arr(types.float32, 3),
                               arr(types.uint8, 3), *table, *table), Screen)
    signature = (arr(types.uint64, 4), screen, arr(types.int32, 1), types.int32, types.int32)
    with G.offline_cuda():
        ptx, _ = cuda.compile_ptx(kernel, signature, cc=(9, 0))
    assert not re.search(r"\sfma\.", ptx), "the resize's products were fused into an FMA"
    assert len(re.findall(r"\smul\.rn\.f32\s", ptx)) >= 3
    nvdisasm = G.find_nvdisasm()
    if nvdisasm is None:
        return
    from cuda.bindings import nvjitlink

    handle = nvjitlink.create(1, ["-arch=sm_90a"])
    try:
        nvjitlink.add_data(handle, nvjitlink.InputType.PTX, ptx.encode(), len(ptx), "resize")
        nvjitlink.complete(handle)
        cubin = bytearray(nvjitlink.get_linked_cubin_size(handle))
        nvjitlink.get_linked_cubin(handle, cubin)
    finally:
        nvjitlink.destroy(handle)
    sass = G.disassemble(bytes(cubin))
    assert "FMUL" in sass
    assert not re.search(r"\b[FD]FMA\b", sass), "ptxas fused the resize's products"
