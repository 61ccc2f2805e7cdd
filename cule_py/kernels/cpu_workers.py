"""How a CPU kernel shares consoles among threads: every thread of a launch runs the kernel, and
each takes the next console from a shared counter as soon as it is free, until none is left.

    while True:
        env = claim(counter)
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
    """A counter for `claim`: one int64, to pass to a CPU kernel."""
    return np.zeros(1, np.int64)


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
def claim(counter):
    """The next unclaimed index of this launch (counter[0] before the add), as the kernels
    index consoles: uint64, so that the helpers they call compile once."""
    return np.uint64(_fetch_add_one(counter))
