"""Every CUDA kernel of cule_py.kernels.cpu.flat_bus compiles to PTX for sm_90, with or without a
GPU.

The CUDA simulator type-checks nothing, so this is the test that catches typing and lowering errors
in the CUDA path on a GPU-less CI. Without a GPU the one driver query numba-cuda makes while
compiling device functions (the compute capability) is stubbed; NVVM (numba-cuda[cu13]) does the
rest. When `ptxas` or nvJitLink is at hand the registers, spills and local memory are printed too
(benchmarks/ptx_report.py gives the full report, 64-bit instruction counts included).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
import types as pytypes

import pytest

if os.environ.get("NUMBA_ENABLE_CUDASIM", "0") not in ("", "0"):
    pytest.skip("numba.cuda is the simulator in this process (NUMBA_ENABLE_CUDASIM is set), "
                "and the simulator cannot compile PTX", allow_module_level=True)

from numba import cuda, types  # noqa: E402
from numba.cuda.dispatcher import CUDADispatcher  # noqa: E402

from cule_py.kernels.cpu import flat_bus  # noqa: E402

pytestmark = pytest.mark.cuda

CC = (9, 0)
FLAT_SIGNATURE = (types.uint8[:, ::1], types.int32[:, ::1], types.int64, types.int64[::1],
                  types.bool_[::1])
# Every cuda.jit kernel of flat_bus with the signature flat6502 launches it with.
SIGNATURES = {"run_nmos_cuda": FLAT_SIGNATURE, "run_ale_cuda": FLAT_SIGNATURE}
KERNELS = sorted(name for name, value in vars(flat_bus).items()
                 if isinstance(value, CUDADispatcher))


def _nvvm_missing_reason():
    try:
        from numba.cuda.cudadrv import nvvm

        nvvm.NVVM()
    except Exception as err:  # noqa: BLE001 - any failure to load NVVM means: cannot test here
        return (f"NVVM is not installed ({type(err).__name__}: {err}); install "
                f"numba-cuda[cu13] (or [cu12]) to compile PTX")
    return None


@pytest.fixture(scope="module")
def compile_ptx():
    reason = _nvvm_missing_reason()
    if reason:
        pytest.skip(reason)
    cache = {}

    def compile_one(name):
        if name not in cache:
            with pytest.MonkeyPatch.context() as mp:
                if not cuda.is_available():
                    import numba.cuda.dispatcher as cdisp

                    mp.setattr(cdisp, "get_current_device",
                               lambda: pytypes.SimpleNamespace(compute_capability=CC))
                ptx, _ = cuda.compile_ptx(getattr(flat_bus, name).py_func, SIGNATURES[name],
                                          cc=CC)
            cache[name] = ptx
        return cache[name]

    return compile_one


def test_every_kernel_has_a_signature_here():
    assert set(flat_bus.CUDA_RUNNERS.values()) <= {getattr(flat_bus, k) for k in KERNELS}
    assert set(KERNELS) == set(SIGNATURES), (
        "a CUDA kernel was added to or removed from flat_bus: give it its launch signature in "
        "SIGNATURES")


@pytest.mark.slow
@pytest.mark.parametrize("name", KERNELS)
def test_kernel_compiles_to_ptx(name, compile_ptx, capsys):
    ptx = compile_ptx(name)
    assert re.search(r"^\.target sm_90\b", ptx, re.M), ptx[:400]
    assert len(re.findall(r"^\.(visible )?\.entry ", ptx, re.M)) == 1
    # numba emits non-inlined device functions as `.func` and calls them with `call.uni`;
    # the emulator must inline everything (no call overhead, no ABI register save/restore).
    body = [line.split("//", 1)[0].strip() for line in ptx.splitlines()]
    calls = [line for line in body if re.match(r"(@!?%p\d+\s+)?call(\.uni)?\b", line)]
    assert not calls, f"{len(calls)} calls in the PTX, e.g. {calls[0]}"
    funcs = [line for line in body if re.match(r"(\.visible |\.extern |\.weak )*\.func\b", line)]
    assert not funcs, f"device functions left un-inlined: {funcs[:3]}"
    assert not any(line.startswith(".local") for line in body), "the kernel uses local memory"
    stats, tool = _assemble(ptx)
    with capsys.disabled():
        if stats:
            print(f"\n  {name}: {stats.get('registers')} registers, "
                  f"{stats.get('spill_st', 0)}/{stats.get('spill_ld', 0)} bytes spill "
                  f"stores/loads, {stats.get('stack', 0)} bytes stack, PTX {len(ptx) // 1024} kB "
                  f"[{tool}]")
        else:
            print(f"\n  {name}: PTX {len(ptx) // 1024} kB ({tool})")
    if stats:
        assert stats.get("spill_st", 0) == 0 and stats.get("spill_ld", 0) == 0, stats


def _assemble(ptx):
    """(stats, tool) from nvJitLink (same release as NVVM) or ptxas -v; ({}, why) if neither."""
    try:
        from cuda.bindings import nvjitlink

        data = ptx.encode()
        handle = nvjitlink.create(2, [f"-arch=sm_{CC[0]}{CC[1]}", "-verbose"])
        try:
            nvjitlink.add_data(handle, nvjitlink.InputType.PTX, data, len(data), "k.ptx")
            nvjitlink.complete(handle)
            log = bytearray(nvjitlink.get_info_log_size(handle))
            nvjitlink.get_info_log(handle, log)
        finally:
            nvjitlink.destroy(handle)
        return _parse(log.decode(errors="replace")), "nvJitLink"
    except Exception:  # noqa: BLE001 - fall back to ptxas
        pass
    ptxas = shutil.which("ptxas")
    if not ptxas:
        return {}, "no ptxas or nvJitLink to count registers"
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "k.ptx")
        with open(src, "w") as f:
            f.write(ptx)
        proc = subprocess.run([ptxas, "-v", f"-arch=sm_{CC[0]}{CC[1]}", src, "-o",
                               os.path.join(tmp, "k.cubin")], capture_output=True, text=True)
    if proc.returncode != 0:   # e.g. a ptxas older than the PTX ISA NVVM wrote
        last = (proc.stderr.strip().splitlines() or ["?"])[-1]
        return {}, f"ptxas could not assemble it: {last}"
    return _parse(proc.stderr), "ptxas"


def _parse(log):
    out = {}
    for key, pattern in (("registers", r"[Uu]sed (\d+) registers"),
                         ("stack", r"(\d+) bytes stack frame"),
                         ("spill_st", r"(\d+) bytes spill stores"),
                         ("spill_ld", r"(\d+) bytes spill loads")):
        m = re.search(pattern, log)
        if m:
            out[key] = int(m.group(1))
    return out


# The console kernels (drive_cuda and the agent kernels, which hold the whole console) are
# compiled for sm_90a as the GPU backend compiles them, with link-time optimisation, by
# tests/test_gpu_model.py and tests/test_agent_step_cuda_compile.py, which also check their
# registers and spills.


def _ptx(function, signature, cc=CC) -> str:
    """`function`'s PTX for `cc` (sm_90 by default; a stand-in device where there is no GPU)."""
    with pytest.MonkeyPatch.context() as mp:
        if not cuda.is_available():
            import numba.cuda.dispatcher as cdisp

            mp.setattr(cdisp, "get_current_device",
                       lambda: pytypes.SimpleNamespace(compute_capability=cc))
        ptx, _ = cuda.compile_ptx(function, signature, cc=cc)
    return ptx


def test_warp_minimum_is_one_redux_where_the_gpu_has_it():
    """The scheduled loop's warp minimum (kernels/gpu/warp_schedule.py): one redux.sync from sm_80
    on, the shuffle butterfly before it, chosen by NVVM's __nvvm_reflect("__CUDA_ARCH") so
    that older GPUs never see an instruction they cannot assemble."""
    reason = _nvvm_missing_reason()
    if reason:
        pytest.skip(reason)
    import numpy as np

    from cule_py.kernels.gpu import warp_schedule as W

    def minimum(values, out):
        lane = cuda.threadIdx.x
        out[lane] = W.warp_minimum(np.int32(values[lane]))

    signature = (types.int32[::1], types.int32[::1])
    for cc in ((8, 0), CC):
        ptx = _ptx(minimum, signature, cc)
        assert re.search(r"redux\.sync\.min\.s32", ptx) and "shfl" not in ptx, cc
    ptx = _ptx(minimum, signature, (7, 5))
    assert len(re.findall(r"shfl\.sync\.bfly", ptx)) == 5 and "redux.sync" not in ptx
    assert "nvvm_reflect" not in ptx       # resolved by NVVM, not left to the driver


def test_reset_table_tail_claims_entries_atomically_on_the_gpu():
    """On the CPU only the launch's named writer claims a tail entry; on the GPU every lane
    that misses may (kernels/ale/reset_snapshot.py), which is only safe through an atomic add: the
    CUDA overload must be the one compiled."""
    reason = _nvvm_missing_reason()
    if reason:
        pytest.skip(reason)
    import numpy as np

    from cule_py.kernels.ale import reset_snapshot as RS

    def claim(table, out):
        out[0] = RS.claim_tail_entry(table, np.int32(10), np.int32(3))

    ptx = _ptx(claim, (types.int32[::1], types.int32[::1]))
    assert re.search(r"atom\.global\.add", ptx), "the tail's claim is not an atomic add"
    # and the CPU's: the named writer only, up to the capacity
    table = np.zeros(RS.TABLE_FIELDS, np.int32)
    table[RS.TABLE_WRITER] = 3
    assert RS.claim_tail_entry(table, 10, 2) == -1
    assert [RS.claim_tail_entry(table, 2, 3) for _ in range(3)] == [0, 1, -1]


def test_reset_table_start_writer_is_the_first_miss_on_the_gpu():
    """The start region's writer: on the CPU the console the host named, on the GPU the first
    lane that misses, through an atomic compare-and-swap from -1 (open_launch's
    first_miss_writes), so that exactly one lane of a launch writes."""
    reason = _nvvm_missing_reason()
    if reason:
        pytest.skip(reason)
    import numpy as np

    from cule_py.kernels.ale import reset_snapshot as RS
    from cule_py.kernels.structs import ResetTable

    def claim(table, out):
        out[0] = RS.claim_start_writer(table, np.int32(3))

    ptx = _ptx(claim, (types.int32[::1], types.boolean[::1]))
    assert re.search(r"atom\.global\.cas", ptx), "the start writer's claim is not a CAS"
    table = np.zeros(RS.TABLE_FIELDS, np.int32)
    only_meta = ResetTable(None, None, None, None, table)       # (the rows are not read)
    RS.open_launch(only_meta, np.ones(4, np.bool_), np.array([5, 9, 2, 7]), np)
    assert table[RS.TABLE_WRITER] == 1
    assert RS.claim_start_writer(table, 1) and not RS.claim_start_writer(table, 3)
    RS.open_launch(only_meta, np.ones(4, np.bool_), np.array([5, 9, 2, 7]), np,
                   first_miss_writes=True)
    assert table[RS.TABLE_WRITER] == -1
    # (the CPU's version with nobody named, on one thread: the first console that asks)
    assert RS.claim_start_writer(table, 2) and RS.claim_start_writer(table, 2)
    assert not RS.claim_start_writer(table, 0)
