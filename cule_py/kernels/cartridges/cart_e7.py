"""M-Network's E7 (16K): eight 2K ROM slices and 2K of RAM.

* $1000-$17FF shows ROM slice 0-6, selected by touching $1FE0-$1FE6, or with $1FE7 the 1K RAM
  bank: write port $1000-$13FF, read port $1400-$17FF.
* $1800-$19FF is a 256-byte window into one of four RAM banks, selected by $1FE8-$1FEB: write
  port $1800-$18FF, read port $1900-$19FF.
* $1A00-$1FFF is the rest of ROM slice 7.

Hotspots act on reads and writes. Reset selects slice 0 and RAM bank 0, and fills all 2048
bytes of RAM from the System RNG (the 1K bank first, then the four 256-byte banks). The RAM lies
in the console's `ram` row after the RIOT's 128 bytes; the slice lives in CART_BANK, the
256-byte bank in CART_BANK1. Reading a write port gives the ROM byte of slice 7 at that offset
[checked against ALE by tests/test_carts_vs_ale.py], and writing a read port does nothing.
"""

import numpy as np
from numba.extending import register_jitable

from .. import layout as L
from .cart_fx import RIOT_RAM, fill_ram_from_system_rng

RAM_BYTES = 2048
_SMALL_BANKS = RIOT_RAM + 1024      # column of the first 256-byte bank


@register_jitable(forceinline=True)
def _hotspot(st, env, a):
    if a >= 0x0FE0 and a < 0x0FEC:
        if a < 0x0FE8:
            st[env, L.CART_BANK] = a & 7
        else:
            st[env, L.CART_BANK1] = a & 3


@register_jitable(forceinline=True)
def read(rom, ram, st, env, addr):
    a = np.int32(addr & 0x0FFF)
    _hotspot(st, env, a)
    if a < 0x0800:
        slice_ = np.int32(st[env, L.CART_BANK])
        if slice_ == 7:
            if a >= 0x0400:
                return np.int32(ram[env, RIOT_RAM + (a & 0x03FF)])
            return np.int32(rom[0x3800 | a])
        return np.int32(rom[(slice_ << 11) | a])
    if a >= 0x0900 and a < 0x0A00:
        return np.int32(ram[env, _SMALL_BANKS + (np.int32(st[env, L.CART_BANK1]) << 8)
                            + (a & 0xFF)])
    return np.int32(rom[0x3800 | (a & 0x07FF)])


@register_jitable(forceinline=True)
def write(ram, st, env, addr, value):
    a = np.int32(addr & 0x0FFF)
    _hotspot(st, env, a)
    if a < 0x0400:
        if st[env, L.CART_BANK] == 7:
            ram[env, RIOT_RAM + a] = value
    elif a >= 0x0800 and a < 0x0900:
        ram[env, _SMALL_BANKS + (np.int32(st[env, L.CART_BANK1]) << 8) + (a & 0xFF)] = value


@register_jitable(forceinline=True)
def reset(ram, st, env, rng):
    st[env, L.CART_BANK] = 0
    st[env, L.CART_BANK1] = 0
    fill_ram_from_system_rng(ram, st, env, rng, RAM_BYTES)
