"""Per-console GPU arrays in tiles of 32 consoles, and one console's part as the kernels index it.

On the GPU the state rows live in memory as `tiles[block, FIELD, lane]` (int32, C order), console
`32 * block + lane`: the 32 consoles of a warp read one field at 32 consecutive addresses, as
field-major rows gave them, but a field is now a constant 128 bytes from the next. Each CUDA
entry point turns the tiles into its console's row with `console_row(tiles, env)`: a
(consoles, FIELDS) array whose strides are the constants (0, 128) and whose data pointer is the
console's first field. Every `st[env, L.FIELD]` in the kernels then compiles to one load at a
fixed offset from that one pointer. With field-major rows (strides (4, 4 x consoles), run-time
values) each field read first computed its 64-bit address from the stride, and under the step
kernel's register pressure the stride and the base were often spilled and reloaded.

The same holds for any per-console array `a[console, i, ..., k]` kept as `tiles[block, i, ...,
k, lane]`: console_row gives the (consoles, i, ..., k) view of console env, whose last stride
is the constant 32 items (the others are the tiles' own). The observation's work rows (the
pooled screens `raw` and the resize's `scratch`, which only the kernels read) are kept so.

The first stride is 0: whatever console index the kernels pass, `st[i, F]` is the entry point's
console. Only `env` ever indexes these arrays in the kernels (one console a thread).

On the CPU the arrays stay console-major (`state[console, FIELD]`); console_row is not used
there. numba's CUDA simulator runs `console_row` as Python: a numpy view with the same strides.
"""

import numpy as np
from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic
from numba.np.arrayobj import populate_array

from ..._simulator import simulator_enabled

TILE = 32            # consoles in a tile: a warp


def tile_count(consoles: int) -> int:
    """Tiles holding `consoles` consoles (the last one padded)."""
    return -(-consoles // TILE)


def to_tiles(rows: np.ndarray) -> np.ndarray:
    """A (consoles, ...) array as (blocks, ..., TILE) tiles (numpy; padding consoles zero)."""
    consoles, rest = rows.shape[0], rows.shape[1:]
    padded = np.zeros((tile_count(consoles) * TILE,) + rest, rows.dtype)
    padded[:consoles] = rows
    tiles = padded.reshape((-1, TILE) + rest)
    return np.ascontiguousarray(np.moveaxis(tiles, 1, -1))


def from_tiles(tiles, consoles: int):
    """The first `consoles` consoles of `tiles`, (consoles, ...) (a copy; numpy or cupy)."""
    rest = tiles.shape[1:-1]
    return tiles.transpose((0, tiles.ndim - 1) + tuple(range(1, tiles.ndim - 1))).reshape(
        (-1,) + rest)[:consoles]


def _console_row_python(tiles, env):
    """console_row for numba's CUDA simulator, which runs the kernels as Python."""
    array = getattr(tiles, "_ary", tiles)          # the simulator's device-array wrapper
    row = array[(env // TILE, Ellipsis, env % TILE)]
    return np.lib.stride_tricks.as_strided(row, shape=(array.shape[0] * TILE,) + row.shape,
                                           strides=(0,) + row.strides)


@intrinsic
def _console_row(typingctx, tiles, env):
    if not (isinstance(tiles, types.Array) and tiles.ndim >= 3 and tiles.layout == "C"
            and isinstance(env, types.Integer)):
        return None
    row_type = types.Array(tiles.dtype, tiles.ndim - 1, "A")

    def codegen(context, builder, signature, args):
        intp = context.get_value_type(types.intp)
        source = context.make_array(signature.args[0])(context, builder, args[0])
        index = context.cast(builder, args[1], signature.args[1], types.intp)
        itemsize = context.get_abi_sizeof(context.get_data_type(signature.args[0].dtype))
        shape = cgutils.unpack_tuple(builder, source.shape)
        strides = cgutils.unpack_tuple(builder, source.strides)
        # Item offset of console `index`'s first item: block * (items a tile) + lane.
        per_tile = ir.Constant(intp, 1)
        for size in shape[1:]:
            per_tile = builder.mul(per_tile, size)
        block = builder.lshr(index, ir.Constant(intp, 5))
        lane = builder.and_(index, ir.Constant(intp, TILE - 1))
        first = builder.add(builder.mul(block, per_tile), lane)
        data = builder.gep(source.data, [first], inbounds=True)
        row = context.make_array(row_type)(context, builder)
        # Console axis: stride 0. Middle axes: the tiles' own strides, the last one the
        # constant TILE items (the tiles' last axis is the lane).
        populate_array(row, data=data,
                       shape=[builder.mul(shape[0], ir.Constant(intp, TILE))] + shape[1:-1],
                       strides=[ir.Constant(intp, 0)] + strides[1:-2]
                       + [ir.Constant(intp, TILE * itemsize)],
                       itemsize=ir.Constant(intp, itemsize), meminfo=None)
        return row._getvalue()
    return row_type(tiles, env), codegen


# console_row(tiles, env): console `env`'s part of `tiles` (blocks, ..., TILE), indexed like the
# untiled (consoles, ...) array. An intrinsic in CUDA code, Python under the simulator. (An
# overload cannot stand in for both: numba refuses a jit function that returns an array it made,
# inlined or not.)
console_row = _console_row_python if simulator_enabled() else _console_row
