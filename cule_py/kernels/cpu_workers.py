"""How a CPU kernel shares consoles among threads: every thread of a launch runs the kernel, and
each takes the next console from a shared counter as soon as it is free, until none is left.

    while True:
        env = claim(counter, consoles)
        if env >= consoles:
            break
        ...

The threads are the caller's and a pool's (cule_py._threads.run_on_threads, which zeroes the
counter first); the kernels are nogil, so they run at once. A console's agent step costs from one
frame to a replay of every frame with pixels, and a reset ten to a hundred frames: with a fixed
share per thread, as numba's prange deals its range out (its OpenMP and workqueue layers alike),
one thread's resets or replays left the others idle. This is how ale-py's and EnvPool's workers
take envs from a queue.
"""

import sys

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic, register_jitable

from .._jit_cache import CACHE_ENABLED


def claim_counter() -> np.ndarray:
    """A counter for `claim`, to pass to a CPU kernel: the claims made so far, then the
    launch's thread count (run_on_threads sets both)."""
    return np.zeros(2, np.int64)


@intrinsic
def _fetch_add_one(typingctx, counter):
    """counter[0] += 1 atomically; the value before."""
    if not (isinstance(counter, types.Array) and counter.dtype == types.int64):
        return None

    def codegen(context, builder, signature, args):
        array_type = signature.args[0]
        array = context.make_array(array_type)(context, builder, args[0])
        zero = context.get_constant(types.intp, 0)
        pointer = cgutils.get_item_pointer(context, builder, array_type, array, [zero])
        # monotonic: the counter orders nothing else; the threads' join publishes the work
        return builder.atomic_rmw("add", pointer, ir.Constant(ir.IntType(64), 1), "monotonic")
    return types.int64(counter), codegen


@register_jitable
def claim(counter, items):
    """The next unclaimed item of this launch's `items`, `items` once none is left; uint64 (as
    the kernels index consoles), so that the helpers they call compile once.

    Successive claims go round as many contiguous blocks of the items as the launch has threads
    (counter[1]): with 2 threads and 32 consoles, claims 0, 1, 2, 3 take consoles 0, 16, 1, 17,
    so that the consoles two threads emulate at once are far apart in every per-console array:
    neighbours emulated at once share cache lines (docs/performance-log.md, "2026-11-30
    (CPU)")."""
    blocks = np.uint64(max(counter[1], 1))
    size = (items + blocks - np.uint64(1)) // blocks
    while True:
        index = np.uint64(_fetch_add_one(counter))
        if index >= blocks * size:
            return items
        item = _round_the_blocks(index, blocks, size)
        if item < items:
            return item


@register_jitable
def _round_the_blocks(index, blocks, size):
    """The item of claim number `index` (within a pass) when claims go round `blocks` blocks of
    `size` items (claim's order)."""
    return (index % blocks) * size + index // blocks


@register_jitable
def claim_in_passes(counter, items, passes):
    """(pass, item): `claim` over `passes` passes of the same `items`, every item of a pass
    claimed before any of the next pass, each pass in claim's order; (passes, items) once none
    is left. A kernel whose items have a second part to do after the first (the agent step's
    observation after its frames) hands that part out this way, so that a thread that runs out
    of first parts takes second parts instead of waiting for the others' last first part."""
    blocks = np.uint64(max(counter[1], 1))
    size = (items + blocks - np.uint64(1)) // blocks
    span = blocks * size
    while True:
        index = np.uint64(_fetch_add_one(counter))
        stage = index // span if span > 0 else np.uint64(passes)
        if stage >= passes:
            return np.uint64(passes), items
        item = _round_the_blocks(index - stage * span, blocks, size)
        if item < items:
            return stage, item


@intrinsic
def _fetch_or_at(typingctx, array, row, column, bits):
    """array[row, column] |= bits atomically (acquire and release); the value before. For a
    hand-off between two threads: each sets its bit, and the one that sees the other's does the
    part that needs both, seeing what the other wrote before."""
    if not (isinstance(array, types.Array) and array.ndim == 2
            and isinstance(array.dtype, types.Integer) and isinstance(row, types.Integer)
            and isinstance(column, types.Integer) and isinstance(bits, types.Integer)):
        return None

    def codegen(context, builder, signature, args):
        array_type = signature.args[0]
        view = context.make_array(array_type)(context, builder, args[0])
        indices = [context.cast(builder, args[i], signature.args[i], types.intp) for i in (1, 2)]
        pointer = cgutils.get_item_pointer(context, builder, array_type, view, indices)
        value = context.cast(builder, args[3], signature.args[3], array_type.dtype)
        return builder.atomic_rmw("or", pointer, value, "acq_rel")
    return array.dtype(array, row, column, bits), codegen


@register_jitable
def hand_off(flags, row, column, bits):
    """Set `bits` in flags[row, column] (atomically); True for the second of two threads that
    meet there, which then owns what both prepared, and clears the flags for the next launch."""
    if _fetch_or_at(flags, row, column, bits) == 0:
        return False
    flags[row, column] = 0
    return True


def _element_pointer(context, builder, signature, args):
    """Codegen: the address of array[index], the intrinsic's first two arguments."""
    array_type = signature.args[0]
    view = context.make_array(array_type)(context, builder, args[0])
    position = context.cast(builder, args[1], signature.args[1], types.intp)
    return cgutils.get_item_pointer(context, builder, array_type, view, [position])


@intrinsic
def _load_acquire(typingctx, array, index):
    """array[index] (int64), loaded with acquire order: the compiler neither hoists it out of a
    loop nor moves later memory accesses before it."""
    if not (isinstance(array, types.Array) and array.dtype == types.int64
            and isinstance(index, types.Integer)):
        return None

    def codegen(context, builder, signature, args):
        pointer = _element_pointer(context, builder, signature, args)
        return builder.load_atomic(pointer, "acquire", 8)
    return types.int64(array, index), codegen


@intrinsic
def _cycle_counter(typingctx):
    """The processor's cycle counter (x86's time-stamp counter), for a wait bounded in time."""
    def codegen(context, builder, signature, args):
        function = cgutils.get_or_insert_function(
            builder.module, ir.FunctionType(ir.IntType(64), []), "llvm.readcyclecounter")
        return builder.call(function, [])
    return types.int64(), codegen


@intrinsic
def _store_release(typingctx, array, index, value):
    """array[index] = value (int64), stored with release order: a reader that sees it with an
    acquire load sees everything written before it."""
    if not (isinstance(array, types.Array) and array.dtype == types.int64
            and isinstance(index, types.Integer) and isinstance(value, types.Integer)):
        return None

    def codegen(context, builder, signature, args):
        pointer = _element_pointer(context, builder, signature, args)
        stored = context.cast(builder, args[2], signature.args[2], types.int64)
        builder.store_atomic(stored, pointer, "release", 8)
        return context.get_dummy_value()
    return types.none(array, index, value), codegen


# The call that gives the core to another runnable thread, by its C name (resolved in the process
# when the code is loaded, so the kernels that call it stay cacheable); none known on Windows.
_YIELD_SYMBOL = None if sys.platform == "win32" else "sched_yield"


@intrinsic
def _yield_core(typingctx):
    """Let another runnable thread have this core (sched_yield); returns at once when none is
    waiting. A spin on a core shared with other work would otherwise burn its time slice."""
    def codegen(context, builder, signature, args):
        if _YIELD_SYMBOL is not None:
            function = cgutils.get_or_insert_function(
                builder.module, ir.FunctionType(ir.IntType(32), []), _YIELD_SYMBOL)
            builder.call(function, [])
        return context.get_dummy_value()
    return types.none(), codegen


# A helper's signals (cule_py._threads): jobs its launcher posted, started jobs it ended.
SIGNAL_POSTED, SIGNAL_ENDED = 0, 1


@register_jitable(forceinline=True)
def _spun_out(start, cycles):
    """One turn of a spin begun at cycle-counter tick `start`: True once `cycles` ticks have
    passed, else the core yielded and False."""
    if _cycle_counter() - start > cycles:
        return True
    _yield_core()
    return False


@njit(nogil=True, cache=CACHE_ENABLED, _nrt=False)
def wait_at_least(signals, index, value, cycles):
    """Spin without the GIL until signals[index] >= value or `cycles` cycle-counter ticks have
    passed; whether the value came. A launcher about to block on its helper's lock spins here
    first: the helper's last console usually ends sooner than a blocked thread wakes up."""
    start = _cycle_counter()
    while _load_acquire(signals, index) < value:
        if _spun_out(start, cycles):
            return False
    return True


@njit(nogil=True, cache=CACHE_ENABLED, _nrt=False)
def wait_for_launch(signals, counter, fetched, ended, cycles):
    """A helper between jobs, without the GIL: publish `ended` (its started jobs ended) to
    signals[SIGNAL_ENDED], then spin until a job past the `fetched` ones is posted and the
    launcher has claimed from `counter` (it is in its kernel, and has let go of the GIL), or
    until `cycles` ticks have passed; whether both came."""
    _store_release(signals, SIGNAL_ENDED, ended)
    start = _cycle_counter()
    while _load_acquire(signals, SIGNAL_POSTED) <= fetched or _load_acquire(counter, 0) == 0:
        if _spun_out(start, cycles):
            return False
    return True
