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

import numpy as np
from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic, register_jitable


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
        item = (index % blocks) * size + index // blocks
        if item < items:
            return item
