"""How many of numba's threads one env's kernel launches use.

A parallel launch over fewer consoles than threads only adds wake-ups, and on a busy machine each
idle thread's wake-up can cost milliseconds (measured: one console, 2 threads on a loaded 2-core
box, 50 steps/s; 1 thread, 700). numba's thread count is per calling thread, so setting it around
an env's launches leaves every other caller's alone.

One exception: numba's OpenMP threading layer sets the thread count of the process's OpenMP
runtime, which PyTorch's CPU kernels share. Left alone, a launch would hand PyTorch numba's count
(measured: two RLlib env runners, each given one core, ran their policy 2.4x slower once
cule_py had reset torch.get_num_threads() from 1 to 2). So PyTorch's count is put back after
each launch.
"""

from __future__ import annotations

import sys
from contextlib import contextmanager

import numba


@contextmanager
def _torch_threads_kept():
    """PyTorch's thread count as it was before the body, which may touch numba's threads (the
    first call to numba's thread API starts its pool, which sets the OpenMP count too)."""
    torch = sys.modules.get("torch")
    saved = torch.get_num_threads() if torch is not None else 0
    try:
        yield
    finally:
        if saved and torch.get_num_threads() != saved:
            torch.set_num_threads(saved)


def resolve_threads(num_threads: int, num_envs: int) -> int:
    """ale-py's num_threads rule: 0 means min(num_envs, the threads available), where available
    is numba's current setting (`numba.set_num_threads` is honoured); never more than numba has."""
    if isinstance(num_threads, bool) or not isinstance(num_threads, int) or num_threads < 0:
        raise ValueError(f"num_threads must be an int >= 0 (0: automatic), got {num_threads!r}")
    with _torch_threads_kept():
        available = numba.get_num_threads()
    wanted = min(num_envs, available) if num_threads == 0 else num_threads
    return max(1, min(wanted, numba.config.NUMBA_NUM_THREADS))


@contextmanager
def numba_threads(count: int):
    """Run the body (a kernel launch) on `count` of numba's threads."""
    with _torch_threads_kept():
        previous = numba.get_num_threads()
        if previous == count:
            yield
            return
        numba.set_num_threads(count)
        try:
            yield
        finally:
            numba.set_num_threads(previous)
