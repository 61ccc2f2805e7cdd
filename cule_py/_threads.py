"""How many threads one env's kernel launches use, and the threads that run them.

A CPU kernel (agent step, agent reset, the emulator's drive) is a nogil function that claims
consoles from a shared counter until none is left (kernels/cpu_workers.py). `run_on_threads`
calls it on this thread and on `count - 1` helper threads of this thread's, so that consoles go
to whichever thread is free: a thread the OS has given to other work takes fewer, and a helper
that has not started by the time this thread runs out of consoles is cancelled rather than
waited for. numba's own parallel loop gave each thread a fixed share and its OpenMP threads spin
at every join without bound: on a core shared with another process, half of the CPU time a
2-thread step got went to spinning (Pong, 2 threads slower than 1).

Between launches a helper spins without the GIL for up to SPIN_CYCLES, then waits on a queue;
a launcher waiting for its helpers spins as long, then waits on a lock. A thread asleep on the
GIL or a lock takes ~25 us to wake on the other core, at each launch's start and end. Each turn
of a spin yields the core (sched_yield), which returns at once on an idle core but lets other
work run on a busy one: spinning without it slowed the 2-thread step beside a busy process
(the performance log, "two threads that do not fall asleep"). An idle env's threads block, and
take no CPU.

A parallel launch over fewer consoles than threads only adds wake-ups (measured: one console, 2
threads on a loaded 2-core box, 50 steps/s; 1 thread, 700), hence resolve_threads' rule.

Reading numba's thread count starts numba's threading layer, whose OpenMP layer sets the thread
count of the process's OpenMP runtime, which PyTorch's CPU kernels share (measured: two RLlib env
runners, each given one core, ran their policy 2.4x slower once cule_py had reset
torch.get_num_threads() from 1 to 2). So PyTorch's count is put back after each such call.
"""

from __future__ import annotations

import os
import queue
import sys
import threading
import weakref
from contextlib import contextmanager

import numba
import numpy as np

from .kernels.cpu_workers import (SIGNAL_ENDED, SIGNAL_POSTED, claim_counter, wait_at_least,
                                  wait_for_launch)


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
    available = _numba_thread_count()
    wanted = min(num_envs, available) if num_threads == 0 else num_threads
    return max(1, min(wanted, numba.config.NUMBA_NUM_THREADS))


def automatic_threads(num_envs: int) -> int:
    """resolve_threads(0, num_envs) without its argument checks: once a launch."""
    return max(1, min(num_envs, _numba_thread_count()))


def _numba_thread_count() -> int:
    """numba.get_num_threads(); PyTorch's count is kept around the call that starts numba's
    threading layer (later calls leave OpenMP alone, and skip the ~1 us the guard costs)."""
    if getattr(numba.np.ufunc.parallel, "_is_initialized", False):
        return numba.get_num_threads()
    with _torch_threads_kept():
        return numba.get_num_threads()


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


class _Handshake:
    """What a helper thread and its launcher share: the job queue, a lock released when a job
    the helper started has ended, and under `lock` whether it started the job in hand, how many
    queued jobs the launcher cancelled, and the exception a job raised. `signals` counts the
    jobs posted (SIGNAL_POSTED, by the launcher) and the started jobs ended (SIGNAL_ENDED, by
    the helper): what each side spins on before it blocks. `counter`: the launching thread's
    claim counter, which every job of its launches claims from."""

    __slots__ = ("jobs", "done", "lock", "started", "cancelled", "error", "signals", "counter")

    def __init__(self, counter: np.ndarray):
        self.jobs: queue.SimpleQueue = queue.SimpleQueue()
        self.done = threading.Lock()
        self.done.acquire()
        self.lock = threading.Lock()
        self.started = False
        self.cancelled = 0
        self.error: BaseException | None = None
        self.signals = np.zeros(2, np.int64)
        self.counter = counter


# How long a thread spins before it blocks, in cycle-counter ticks (~250 us at 2.5 GHz): a
# helper waiting for the next launch (the Python between two steps takes ~40 us, and a step may
# hold a reset launch or two of one console: at ~100 us, a quarter of the waits outlasted the
# spin), a launcher waiting for a helper's last console. Longer waits (the caller's policy)
# block, so an idle env takes no CPU.
SPIN_CYCLES = 625_000


def _serve(shake: _Handshake) -> None:
    fetched = ended = 0
    while True:
        # Publishes the last job's end, then waits until the next job is posted and the
        # launcher has claimed from it: it is then in its kernel, without the GIL, so taking
        # the GIL here does not put this thread to sleep (~25 us to wake on another core).
        wait_for_launch(shake.signals, shake.counter, fetched, ended, SPIN_CYCLES)
        job = shake.jobs.get()
        fetched += 1
        if job is None:                     # its launching thread has ended
            return
        with shake.lock:
            if shake.cancelled:
                shake.cancelled -= 1
                continue
            shake.started = True
        kernel, args = job
        try:
            kernel(*args)
        except BaseException as error:      # raised in the launcher, by join
            shake.error = error
        shake.done.release()
        ended += 1


class _Helper:
    """A thread that runs one launching thread's kernel calls beside it. Raw locks and a
    SimpleQueue rather than an executor's futures: a launch is a kernel call every few
    milliseconds, and the futures were half of an empty 2-thread launch's cost (21 -> 11 us)."""

    def __init__(self, counter: np.ndarray):
        self._shake = shake = _Handshake(counter)
        self._joined = 0                    # started jobs joined
        threading.Thread(target=_serve, args=(shake,), daemon=True,
                         name="cule_py-cpu").start()
        weakref.finalize(self, _post, shake, None)

    def start(self, kernel, args: tuple) -> None:
        _post(self._shake, (kernel, args))

    def join(self) -> BaseException | None:
        """Wait for the job if the helper has started it, else cancel it (the launcher has run
        out of consoles: a helper the OS has not yet scheduled is not waited for); the job's
        exception, if it raised one."""
        shake = self._shake
        with shake.lock:
            if not shake.started:
                shake.cancelled += 1
                return None
            shake.started = False
        self._joined += 1
        wait_at_least(shake.signals, SIGNAL_ENDED, self._joined, SPIN_CYCLES)
        shake.done.acquire()
        error, shake.error = shake.error, None
        return error


def _post(shake: _Handshake, job) -> None:
    shake.jobs.put(job)
    shake.signals[SIGNAL_POSTED] += 1


class _Launcher:
    """One launching thread's claim counter and helpers. Each launching thread has its own (an
    env stepped from another thread, as send() does, never queues behind this one's launch);
    they end with it."""

    def __init__(self):
        self.counter = claim_counter()
        self.helpers: list[_Helper] = []

    def helpers_for(self, count: int) -> list[_Helper]:
        while len(self.helpers) < count:
            self.helpers.append(_Helper(self.counter))
        return self.helpers[:count]


_launchers = threading.local()


def _forget_helpers() -> None:
    """In a forked child: none of the parent's helper threads exist there; make new ones."""
    global _launchers
    _launchers = threading.local()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_helpers)


def _launcher() -> _Launcher:
    launcher = getattr(_launchers, "launcher", None)
    if launcher is None:
        launcher = _launchers.launcher = _Launcher()
    return launcher


class CompiledCalls:
    """One owner's calls of numba CPU kernels: after the first call of a kernel, which the
    dispatcher makes (compiling or loading it), the compiled function itself, without the
    dispatcher's typing of every argument at every call (1.2-1.6 us for a structure of arrays
    such as kernels/structs.Console, at each of the two kernel calls a frame of AtariEmulator's
    loop, whose frame of 16 consoles emulates in ~250-750 us).

    The owner passes arguments of the first call's types at every call: its own arrays (fixed
    dtypes, dimensions, C layout), structures of them, ints, and masks made C-contiguous where
    they come from the user. The compiled function reads whatever it is given as those types;
    tests/test_compiled_calls.py checks the owners against `signatures`."""

    __slots__ = ("_entries", "signatures")

    def __init__(self):
        self._entries: dict = {}
        self.signatures: dict = {}          # kernel: the argument types its entry takes

    def entry(self, kernel, args: tuple):
        """What to call `kernel(*args)` by: the dispatcher until it has the function for these
        types, then that function."""
        entry = self._entries.get(kernel)
        if entry is not None:
            return entry
        types = tuple(kernel.typeof_pyval(a) for a in args)
        overload = kernel.overloads.get(types)
        if overload is None:                # not compiled for these types yet: this call does
            return kernel
        self._entries[kernel] = overload.entry_point
        self.signatures[kernel] = types
        return overload.entry_point

    def __call__(self, kernel, *args):
        return self.entry(kernel, args)(*args)

    def on_threads(self, count: int, kernel, args: tuple) -> None:
        """run_on_threads through `entry` (the claim counter is an argument too)."""
        entry = self._entries.get(kernel)     # first: the tuple below is needed only before
        if entry is None:
            entry = self.entry(kernel, (*args, _launcher().counter))
        run_on_threads(count, entry, args)


def run_on_threads(count: int, kernel, args: tuple) -> None:
    """kernel(*args, counter) on this thread and `count - 1` helper threads at once, `counter`
    (this thread's cpu_workers.claim_counter) zeroed first and given the thread count; returns
    when every console is done. A kernel's exception is raised here."""
    launcher = _launcher()
    counter = launcher.counter
    counter[0] = 0
    counter[1] = max(count, 1)
    if count <= 1:
        kernel(*args, counter)
        return
    helpers = launcher.helpers_for(count - 1)
    job = (*args, counter)
    for helper in helpers:
        helper.start(kernel, job)
    try:
        kernel(*args, counter)
    finally:
        errors = [helper.join() for helper in helpers]
    for error in errors:
        if error is not None:
            raise error
