"""Parker Brothers' E0: the 8K image as eight 1K slices, the 4K window as four 1K segments.

Segments 0-2 ($1000, $1400, $1800) show the slice last selected for them, segment 3 ($1C00) always
slice 7. Touching $1FE0-$1FE7 (read or write) puts slice `addr & 7` into segment 0, $1FE8-$1FEF
into segment 1, $1FF0-$1FF7 into segment 2 (ALE's CartE0.cxx). System reset selects slices 4, 5 and
6. The slices of segments 0, 1, 2 live in the state fields CART_BANK, CART_BANK1, CART_BANK2.
"""

import numpy as np
from numba.extending import register_jitable

from .. import layout as L


@register_jitable(forceinline=True)
def _hotspot(st, env, a):
    if a >= 0x0FE0 and a < 0x0FF8:
        segment = (a - 0x0FE0) >> 3
        if segment == 0:
            st[env, L.CART_BANK] = a & 7
        elif segment == 1:
            st[env, L.CART_BANK1] = a & 7
        else:
            st[env, L.CART_BANK2] = a & 7


@register_jitable(forceinline=True)
def read(rom, st, env, addr):
    a = np.int32(addr & 0x0FFF)
    _hotspot(st, env, a)
    return segment_byte(rom, st, env, a)


@register_jitable(forceinline=True)
def plain_read(rom, st, env, addr):
    """The byte at cartridge address `addr` where reading it switches nothing (below the
    hotspots), else -1: the CPU fast path reads data in the other segments with it inline."""
    a = np.int32(addr & 0x0FFF)
    if a >= 0x0FE0:
        return np.int32(-1)
    return segment_byte(rom, st, env, a)


@register_jitable(forceinline=True)
def segment_byte(rom, st, env, a):
    """The byte at offset `a` (0..$FFF) of the 4K window, in the slices selected now."""
    segment = a >> 10
    if segment == 0:
        slice_ = np.int32(st[env, L.CART_BANK])
    elif segment == 1:
        slice_ = np.int32(st[env, L.CART_BANK1])
    elif segment == 2:
        slice_ = np.int32(st[env, L.CART_BANK2])
    else:
        slice_ = np.int32(7)
    return np.int32(rom[(slice_ << 10) | (a & 0x03FF)])


@register_jitable(forceinline=True)
def write(st, env, addr):
    _hotspot(st, env, np.int32(addr & 0x0FFF))


@register_jitable(forceinline=True)
def reset(st, env):
    st[env, L.CART_BANK] = 4
    st[env, L.CART_BANK1] = 5
    st[env, L.CART_BANK2] = 6
