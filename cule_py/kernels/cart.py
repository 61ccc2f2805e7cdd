"""Cartridges: what the CPU sees at A12 = 1 ($1000-$1FFF and mirrors), one scheme per branch.

Every console of a batch runs the same ROM (one copy, read-only); the bank registers live in the
console's state row. Scheme ids are small ints chosen on the host from the ROM; the bank-switching
issue adds F8, F6, E0, FE, DPC and the rest behind the same three functions.
"""

import numpy as np
from numba.extending import register_jitable

from . import layout as L

SCHEME_2K = 0
SCHEME_4K = 1
SCHEME_IDS = {"2K": SCHEME_2K, "4K": SCHEME_4K}


@register_jitable
def cart_read(rom, scheme, st, env, addr):
    if scheme == SCHEME_2K:
        return np.int32(rom[addr & 0x07FF])
    return np.int32(rom[addr & 0x0FFF])


@register_jitable
def cart_write(rom, scheme, st, env, addr, value):
    """2K and 4K cartridges ignore writes."""
    return


@register_jitable
def cart_reset(rom, scheme, st, env):
    st[env, L.CART_BANK] = 0
