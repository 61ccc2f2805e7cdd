"""The agent step's CUDA kernels (cule_py.kernels.agent_step.agent_step_cuda: the whole console,
ALE's act, preprocessing; agent_reset_cuda: reset_game, fire, noops) compile to PTX for sm_90
without a GPU and assemble; registers, spills and constant memory are printed.

Same method as tests/test_cuda_compile.py (device query stubbed, NVVM from numba-cuda). Launch
types are taken from a real AtariVectorEnv's arrays, so the test follows the host code.
"""

from __future__ import annotations

import os
import re
import types as pytypes

import numpy as np
import pytest

if os.environ.get("NUMBA_ENABLE_CUDASIM", "0") not in ("", "0"):
    pytest.skip("the CUDA simulator cannot compile PTX", allow_module_level=True)

import numba  # noqa: E402
from numba import cuda  # noqa: E402

from cule_py.kernels import agent_step as K  # noqa: E402
from cule_py.vector import AtariVectorEnv  # noqa: E402

from test_cuda_compile import CC, _assemble, _nvvm_missing_reason  # noqa: E402


def _launch_args(env, which):
    return env._step_args(env._all) if which == "step" else env._reset_args(K.OP_RESET, env._all)


@pytest.mark.parametrize("which", ["step", "reset"])
def test_agent_kernels_compile_to_ptx(which, capsys):
    """agent_step_cuda (the console's frames, lazy drawing, the observation) and
    agent_reset_cuda (reset_game with mode selection, fire, noops)."""
    reason = _nvvm_missing_reason()
    if reason:
        pytest.skip(reason)
    env = AtariVectorEnv("pong", 1, seed=0)
    kernel = K.agent_step_cuda if which == "step" else K.agent_reset_cuda
    signature = tuple(numba.typeof(np.int64(a)) if isinstance(a, int) else numba.typeof(a)
                      for a in _launch_args(env, which))
    with pytest.MonkeyPatch.context() as mp:
        if not cuda.is_available():
            import numba.cuda.dispatcher as cdisp

            mp.setattr(cdisp, "get_current_device",
                       lambda: pytypes.SimpleNamespace(compute_capability=CC))
        ptx, _ = cuda.compile_ptx(kernel.py_func, signature, cc=CC)
    assert re.search(r"^\.target sm_90\b", ptx, re.M)
    body = [line.split("//", 1)[0].strip() for line in ptx.splitlines()]
    calls = [line for line in body if re.match(r"(@!?%p\d+\s+)?call(\.uni)?\b", line)]
    b64 = sum(1 for line in body if re.search(r"\.(s64|u64|b64)\b", line))
    f64 = sum(1 for line in body if re.search(r"\.f64\b", line))
    const = sum(int(n) for n in re.findall(r"^\.const\b.*\[(\d+)\]", ptx, re.M))
    stats, tool = _assemble(ptx)
    with capsys.disabled():
        print(f"\n  agent_{which}_cuda: {stats.get('registers')} registers, "
              f"{stats.get('spill_st', 0)}/{stats.get('spill_ld', 0)} bytes spill stores/loads, "
              f"{stats.get('stack', 0)} bytes stack, {const // 1024} KiB constants, "
              f"PTX {len(ptx) // 1024} kB, {len(calls)} "
              f"calls, {b64} 64-bit / {f64} f64 instructions [{tool}]")
    # The PTX must also assemble to SASS (it did not while 150 KB of constant tables
    # overflowed the 64 KB bank); calls to out-of-line device functions are allowed and counted
    # (the console's TIA, bank switching and the frame loop are kept out of line on purpose).
    if "could not assemble" in tool:
        pytest.fail(tool)
    # One copy of the console however many places run frames (kernels/outlining.py): NVVM
    # inlined it at every site of the reset kernel before, 13.8 MB of PTX and 10 minutes here.
    for helper in ("run_console_frames", "device_read", "device_write", "banked_read"):
        assert _defined_functions(ptx, helper) == 1, helper


def _defined_functions(ptx: str, name_part: str) -> int:
    """Device functions defined (not only declared) in the PTX whose name contains name_part."""
    count = 0
    for match in re.finditer(r"^(?:\.\w+\s+)*\.func\b[^\n]*%s" % name_part, ptx, re.M):
        rest = ptx[match.end():]
        body, declaration = rest.find("{"), rest.find(";")
        count += body >= 0 and (declaration < 0 or body < declaration)
    return count
