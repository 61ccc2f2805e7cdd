"""Compile one of cule_py's kernels into the on-disk cache and report its compile time and, for the
CUDA kernels, what the GPU compiler made of it (registers, local memory, spills where numba-cuda
reports them). Separate processes can compile separate kernels at once:

    for k in cpu drive flags step reset fill; do python -m tools.gpu_warm $k & done; wait

The CUDA kernels are compiled for the types the GPU backend launches them with (field-major
views), taken from a real batch whose power-on is skipped (nothing runs, only the types matter).
"""

from __future__ import annotations

import sys
import time

import numba
import numpy as np

from cule_py._device import tuple_map
from cule_py.batch import ConsoleBatch
from cule_py.kernels.agent import agent_step as K
from cule_py.kernels.ale import environment as E
from cule_py.kernels import layout as L

GAME = "pong"


def _types(cuda, args):
    """numba's types of the launch arguments, as the launch computes them (views made once)."""
    import cupy as cp

    views = tuple_map(lambda a: cuda.as_cuda_array(a, sync=False)
                      if isinstance(a, cp.ndarray) else a, tuple(args))
    return tuple(numba.typeof(a) for a in views)


def _skip_power_on(self, mask=None):
    self.state[:, L.TIA_HEIGHT] = self.game.height


def _report(name, compiled, seconds):
    """The compiled kernel's resource use as the driver reports it (a _Kernel's attributes)."""
    line = f"{name}: compiled in {seconds:.1f} s"
    for what in ("regs_per_thread", "local_mem_per_thread", "const_mem_size",
                 "shared_mem_per_block", "max_threads_per_block"):
        try:
            line += f", {what} {getattr(compiled, what)}"
        except Exception as err:  # noqa: BLE001 - report what this numba-cuda offers
            line += f", {what} n/a ({type(err).__name__})"
    print(line, flush=True)


def kernel_and_arguments(which: str):
    """(CUDA kernel, the arguments the GPU backend launches it with) for "drive", "flags",
    "step", "step128" and "step64" (the step capped at 128 and 64 registers), "observe" (the step's observations),
    "fill", "reset" or "lanes" (the reset launch's packing), from a 2-console pong batch whose
    power-on is skipped (only the argument types matter). The state rows are passed as their
    tiles, as GpuArrays.launch passes them. Also used by tools/gpu_precompile.py."""
    from cule_py._device import StateTiles

    kernel, args = _batch_arguments(which)
    return kernel, tuple_map(lambda a: a.tiles if isinstance(a, StateTiles) else a, tuple(args))


def _batch_arguments(which: str):
    """(kernel, arguments) as the batch builds them (see kernel_and_arguments)."""
    ConsoleBatch.power_on = _skip_power_on
    if which in ("drive", "flags"):
        batch = ConsoleBatch(GAME, 2, device="cuda")
        if which == "drive":
            return E.drive_cuda, batch.drive_args(0, batch._all, 0, 1)
        xp = batch.xp
        return E.lives_and_flags_cuda, (batch.console(), xp.zeros(2, np.int32),
                                         xp.zeros(2, np.bool_), xp.zeros(2, np.bool_))
    from cule_py.vector import AtariVectorEnv

    env = AtariVectorEnv(GAME, 2, device="cuda")
    every = env._batch.table(env._all)
    if which == "step":
        return K.agent_step_cuda, env._step_args(every)
    if which == "step128":
        return K.agent_step_cuda_capped, env._step_args(every)
    if which == "step64":
        return K.agent_step_cuda_lean, env._step_args(every)
    if which == "fill":
        return K.fill_tails_cuda, env._fill_args()
    if which == "observe":
        return K.agent_observe_cuda, env._observe_args(every)
    if which == "lanes":
        return K.resetting_lanes_cuda, (K.OP_AUTORESET, env._agent, every, env._reset_lanes,
                                        env._reset_count)
    return K.agent_reset_cuda, env._reset_cuda_args(K.OP_RESET, every)


def main(which: str) -> None:
    start = time.perf_counter()
    if which == "cpu":
        from cule_py import AtariEmulator

        emulator = AtariEmulator(GAME, 2)
        emulator.act(np.zeros(2, np.int64))
        emulator.lives()
        print(f"cpu drive + flags: {time.perf_counter() - start:.1f} s", flush=True)
        return
    kernel, args = kernel_and_arguments(which)
    from numba import cuda

    signature = _types(cuda, args)
    t0 = time.perf_counter()
    compiled = kernel.compile(signature)
    _report(kernel.__name__, compiled, time.perf_counter() - t0)


if __name__ == "__main__":
    main(sys.argv[1])
