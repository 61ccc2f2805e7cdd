"""How many threads one env's kernel launches use, and the threads that run them.

A CPU kernel (agent step, agent reset, the emulator's drive) is a nogil function that claims
consoles from a shared counter until none is left (kernels/cpu_workers.py). `run_on_threads`
calls it on this thread and on `count - 1` threads of a pool, each waiting on a queue (no
spinning), so that consoles go to whichever thread is free: a thread the OS has given to other
work takes fewer, and a helper that has not started by the time this thread runs out of consoles
is cancelled rather than waited for. numba's own parallel loop gave each thread a fixed share and
its OpenMP threads spin at every join: on a core shared with another process, half of the CPU time
a 2-thread step got went to spinning (Pong, 2 threads slower than 1).

A parallel launch over fewer consoles than threads only adds wake-ups (measured: one console, 2
threads on a loaded 2-core box, 50 steps/s; 1 thread, 700), hence resolve_threads' rule.

Reading numba's thread count starts numba's threading layer, whose OpenMP layer sets the thread
count of the process's OpenMP runtime, which PyTorch's CPU kernels share (measured: two RLlib env
runners, each given one core, ran their policy 2.4x slower once cule_py had reset
torch.get_num_threads() from 1 to 2). So PyTorch's count is put back after each such call.
"""

from __future__ import annotations

import os
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
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


_pools: dict[int, ThreadPoolExecutor] = {}
_pools_lock = threading.Lock()


def _forget_pools() -> None:
    """In a forked child: none of the parent's pool threads exist there; make new ones."""
    global _pools_lock
    _pools.clear()
    _pools_lock = threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_pools)


def _pool(helpers: int) -> ThreadPoolExecutor:
    """The process's pool of `helpers` threads (made once, shared by every env asking for as
    many: each launch's unstarted helpers are cancelled, so two envs never wait on each other)."""
    with _pools_lock:
        pool = _pools.get(helpers)
        if pool is None:
            pool = _pools[helpers] = ThreadPoolExecutor(helpers, thread_name_prefix="cule_py-cpu")
        return pool


def run_on_threads(count: int, kernel, args: tuple, counter) -> None:
    """kernel(*args, counter) on this thread and `count - 1` pool threads at once, `counter`
    (cpu_workers.claim_counter) zeroed first; returns when every console is done. A kernel's
    exception is raised here."""
    counter[0] = 0
    if count <= 1:
        kernel(*args, counter)
        return
    pool = _pool(count - 1)
    helpers = [pool.submit(kernel, *args, counter) for _ in range(count - 1)]
    try:
        kernel(*args, counter)
    finally:
        for helper in helpers:
            if not helper.cancel():
                helper.result()
