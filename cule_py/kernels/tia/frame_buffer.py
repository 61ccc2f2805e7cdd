"""The frame buffers: two screens a console, stored as words of 8 pixels.

`fb[console, buffer, row, block]` is a uint64 that holds pixels 8 * block .. 8 * block + 7 of a
row, pixel 8 * block + i in byte i (its palette index). On the CPU the array is C-contiguous, so
a console's bytes are its pixels in row order, as a (2, 250, 160) uint8 screen would be. On the
GPU the console axis is innermost (batch.ConsoleBatch.zeros): the words of one block of 32
consecutive consoles are 256 contiguous bytes, and one store per lane writes 8 pixels.

Why words: with a byte per element and the console axis innermost, a run of pixels in one
colour was a loop of byte stores, and a warp ran that loop as long as its longest lane's run
(3.3x the warp instructions of identical consoles in Pong's raw frame, 75% of the excess in
the two pixel loops; docs/performance-log.md, sessions 25 and 26). Now a whole block is one
store, and a run's ragged ends are one read-modify-write each.

The TIA draws through `store_lanes` and `fill_pixels`, on one row's words (`fb[env, buf, row]`);
the observation reads whole words (agent_step.pool_row) or single pixels (`pixel`).
"""

import numpy as np
from numba.extending import register_jitable

ROW_WORDS = 20                                   # 160 pixels
ALL_PIXELS = np.uint64(0xFFFFFFFFFFFFFFFF)
PIXEL_MASK = np.uint64(0xFF)
# Each pixel's (index & 0x0F) >> 1: the grey-out of a partial frame, all 8 pixels at once.
GREY_BITS = np.uint64(0x0707070707070707)


@register_jitable(forceinline=True)
def lanes_from(first, stop):
    """The byte lanes first .. stop - 1 of a word (0 <= first < stop <= 8) as a mask."""
    return (ALL_PIXELS >> np.uint64(64 - ((stop - first) << 3))) << np.uint64(first << 3)


@register_jitable(forceinline=True)
def blend(lanes, colour, where):
    """`colour` in the lanes `where`, `lanes` elsewhere."""
    return lanes ^ ((lanes ^ colour) & where)


@register_jitable(forceinline=True)
def pixel(fb, env, buf, row, x):
    """The palette index of pixel x of a row."""
    word = fb[env, buf, row, np.uint32(x) >> np.uint32(3)]
    return np.uint8((word >> np.uint64((x & 7) << 3)) & PIXEL_MASK)


# The stores take one row's words, `fb[env, buf, row]`, made once by the caller: indexed 4-D
# in the loop, each store recomputed its address from four indices and strides (the
# whole-block fill loop ~36 SASS an iteration in gpu_line_profile's rolled compile, ~17 from a
# row view).

@register_jitable(forceinline=True)
def store_part(words, block, lanes, where):
    """The lanes `where` of word `block` from `lanes`, the others kept (a read-modify-write)."""
    at = np.uint32(block)
    words[at] = blend(words[at], lanes, where)


@register_jitable(forceinline=True)
def store_lanes(words, x, stop, lanes):
    """Pixels x .. stop - 1 of one block (x & -8 .. + 7) from the block's lanes `lanes`."""
    start = x & -8
    if stop - x == 8:
        words[np.uint32(start >> 3)] = lanes
    else:
        store_part(words, start >> 3, lanes, lanes_from(x - start, stop - start))


@register_jitable(forceinline=True)
def fill_pixels(words, x, stop, colour):
    """Pixels x .. stop - 1 of a row in one colour (`colour` in every lane): whole blocks as
    one store each, the ends as read-modify-writes."""
    if x >= stop:
        return
    block = x >> 3
    last = (stop - 1) >> 3
    if x & 7:
        end = stop if block == last else (block + 1) << 3
        store_part(words, block, colour, lanes_from(x & 7, end - (block << 3)))
        block += 1
    while block < last:
        words[np.uint32(block)] = colour
        block += 1
    if block == last:
        # The last block: whole, or its first stop - 8 * last pixels.
        count = stop - (last << 3)
        if count == 8:
            words[np.uint32(block)] = colour
        else:
            store_part(words, block, colour, lanes_from(0, count))


@register_jitable(forceinline=True)
def grey_out_row(words):
    """Every pixel of a row to (index & 0x0F) >> 1 (a partial frame's dimmed rows)."""
    for block in range(ROW_WORDS):
        at = np.uint32(block)
        words[at] = (words[at] >> np.uint64(1)) & GREY_BITS


@register_jitable(forceinline=True)
def clear_buffers(fb, env):
    """Both screens of a console to palette index 0."""
    for buf in range(fb.shape[1]):
        for row in range(fb.shape[2]):
            for block in range(fb.shape[3]):
                fb[env, buf, row, block] = np.uint64(0)
