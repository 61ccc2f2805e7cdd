"""How many of numba's threads one env's kernel launches use.

A parallel launch over fewer consoles than threads only adds wake-ups, and on a busy machine each
idle thread's wake-up can cost milliseconds (measured: one console, 2 threads on a loaded 2-core
box, 50 steps/s; 1 thread, 700). numba's thread count is per calling thread, so setting it around
an env's launches leaves every other caller's alone.
"""

from __future__ import annotations

from contextlib import contextmanager

import numba


def resolve_threads(num_threads: int, num_envs: int) -> int:
    """ale-py's num_threads rule: 0 means min(num_envs, the threads available), where available
    is numba's current setting (`numba.set_num_threads` is honoured); never more than numba has."""
    if isinstance(num_threads, bool) or not isinstance(num_threads, int) or num_threads < 0:
        raise ValueError(f"num_threads must be an int >= 0 (0: automatic), got {num_threads!r}")
    wanted = min(num_envs, numba.get_num_threads()) if num_threads == 0 else num_threads
    return max(1, min(wanted, numba.config.NUMBA_NUM_THREADS))


@contextmanager
def numba_threads(count: int):
    previous = numba.get_num_threads()
    if previous == count:
        yield
        return
    numba.set_num_threads(count)
    try:
        yield
    finally:
        numba.set_num_threads(previous)
