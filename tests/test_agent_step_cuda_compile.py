"""The agent step's CUDA kernels (cule_py.kernels.agent.agent_step.agent_step_cuda: the whole
console, ALE's act, preprocessing; agent_reset_cuda: reset_game, fire, noops) compile for sm_90a
without a GPU and link to a cubin; registers, spills and the stack frame are printed and checked
against their caps (tools/gpu_model.py, CAPS: a kernel may not use more registers nor spill more).

They are compiled as the GPU backend compiles them (tools/gpu_model.compiled_kernel:
numba-cuda's kernel path, link-time optimisation, the launch types of a GPU batch with numpy
standing in for cupy), in child processes (gpu_model.in_child says why); the capped steps are
the step's compile linked under their caps (gpu_model.CAPPED_STEPS); tests/test_gpu_model.py checks drive_cuda and
lives_and_flags_cuda the same way. The device query is stubbed as in tests/test_cuda_compile.py.
"""

from __future__ import annotations

import functools
import os
import pathlib

import pytest

if os.environ.get("NUMBA_ENABLE_CUDASIM", "0") not in ("", "0"):
    pytest.skip("the CUDA simulator cannot compile PTX", allow_module_level=True)

import cule_py.kernels  # noqa: E402
from tools import gpu_model as G  # noqa: E402

pytestmark = [pytest.mark.cuda, pytest.mark.slow]

from test_cuda_compile import _nvvm_missing_reason  # noqa: E402


# The step and its capped twins from one compile (gpu_model.CAPPED_STEPS says why).
_STEP_GROUP = ("step", *G.CAPPED_STEPS)
KERNELS = pathlib.Path(cule_py.kernels.__file__).resolve().parent
FOLDERS = {p.name for p in KERNELS.iterdir() if (p / "__init__.py").is_file()}


@functools.cache
def _step_rows() -> dict:
    return G.compiled_rows(_STEP_GROUP)


@pytest.mark.parametrize("which", ["step", "step128", "step64", "observe", "reset", "fill",
                                   "lanes"])
def test_agent_kernels_compile_within_caps(which, capsys):
    """agent_step_cuda (the console's frames, lazy drawing), the same capped at 128 and 64
    registers (agent_step_cuda_capped, agent_step_cuda_lean), agent_observe_cuda (the step's observations: max-pool, resize,
    stack), agent_reset_cuda (reset_game with mode selection, fire, noops), fill_tails_cuda
    (the reset table's direct tails) and resetting_lanes_cuda (a reset launch's packing)."""
    reason = _nvvm_missing_reason()
    if reason:
        pytest.skip(reason)
    row = _step_rows()[which] if which in _STEP_GROUP else G.compiled_row(which)
    calls = sum(f["calls"] for f in row["functions"].values())
    with capsys.disabled():
        print(f"\n  {row['kernel']}: {row['registers']} registers, "
              f"{row['spill_store_bytes']}/{row['spill_load_bytes']} bytes spill stores/loads, "
              f"frame {row['frame_bytes']} B, SASS {row['sass']:,}, {calls} calls; compiled in "
              f"{row['compile_s']:.0f} s, linked in {row['link_s']:.0f} s")
    # Linking failed outright while 150 KB of constant tables overflowed the 64 KB bank.
    assert G.check_caps(row) == []
    if which in G.CAPPED_STEPS:
        # Its row is the step's compile linked under the cap: true while the kernel is the
        # step's body with that max_registers.
        from cule_py.kernels.agent import agent_step
        kernel = getattr(agent_step, G.KERNELS[which])
        assert kernel.targetoptions.get("max_registers") == G.CAPPED_STEPS[which]
        assert kernel.py_func.__code__.co_code == agent_step.agent_step_cuda.py_func.__code__.co_code
    if G.find_nvdisasm():
        # One copy of the console however many places run frames
        # (kernels/frame_loop/outlining.py): NVVM inlined it at every site of the reset kernel
        # before, 13.8 MB of PTX and 10 minutes. The observation's kernel holds none of the console.
        names = [G._short(f) for f in row["functions"]]
        # Symbols name kernel modules without their folder (kernels/gpu/cuda_compile.py), so
        # the code is that of the one-folder layout the caps were set on.
        foldered = [f for f in row["functions"] if f.startswith("cule_py.kernels.")
                    and f.split(".")[2] in FOLDERS]
        assert foldered == [], foldered[:5]
        for helper in ("run_console_frames", "device_read", "device_write", "banked_read"):
            assert names.count(helper) == (0 if which in ("observe", "lanes") else 1), (
                helper, sorted(names))
        # No product fused into an addition (kernels/agent/exact_float.py): the resize's 14 FMAs
        # made the GPU's observations differ from ale-py's in the first GPU run.
        assert row["fused_float32_products"] == 0, row["fused_multiply_adds"]
