"""UA Ltd's 8K cartridge: two 4K banks, switched by touching $0220 (bank 0) or $0240 (bank 1).

The hotspots lie in the TIA's address space (13-bit addresses exactly $0220 and $0240, reads and
writes alike); the access still reaches the TIA. Reset selects bank 0. The bank lives in CART_BANK.
"""

import numpy as np
from numba.extending import register_jitable

from .. import layout as L


@register_jitable(forceinline=True)
def read(rom, st, env, addr):
    return np.int32(rom[(np.int32(st[env, L.CART_BANK]) << 12) | (addr & 0x0FFF)])


@register_jitable(forceinline=True)
def tia_access(st, env, addr):
    a = np.int32(addr & 0x1FFF)
    if a == 0x0220:
        st[env, L.CART_BANK] = 0
    elif a == 0x0240:
        st[env, L.CART_BANK] = 1
