"""Atari's 4K-bank cartridges F8, F6 and F4, their Superchip variants, and CBS's FA (RAM Plus).

All of them show one 4K bank of the image at $1000-$1FFF and switch banks when the CPU touches a
hotspot near the top of the address space, by a read or by a write (ALE's CartF8/F6/F4.cxx):
hotspot `hot + k` selects bank k. A read that switches already returns the byte of the new bank.
[ALE] F4SC is the exception: its hotspots switch on reads only (measured against ale-py with our
own F4SC image).

Cartridge RAM (Superchip: 128 bytes; FA: 256) lies in the console's `ram` row after the RIOT's
128 bytes. With `size` bytes of it, the cartridge's first `size` addresses are the write port and
the next `size` the read port. Reading the write port gives the ROM byte underneath (ALE leaves the
RAM alone there), and writing the read port does nothing. ALE fills the RAM from the System RNG at
every System reset, one draw per byte, after the RIOT's timer draw.

The family's parameters (`hot`, `banks`, `size`) reach these helpers as literals from the
dispatcher in cart.py.
"""

import numpy as np
from numba.extending import register_jitable

from .. import layout as L

RIOT_RAM = 128      # cartridge RAM starts at this column of the console's `ram` row


@register_jitable(forceinline=True)
def read(rom, ram, st, env, addr, hot, banks, size):
    a = np.int32(addr & 0x0FFF)
    if a >= hot:
        if a < hot + banks:
            st[env, L.CART_BANK] = a - hot
    elif a < 2 * size and a >= size:
        return np.int32(ram[env, RIOT_RAM + a - size])
    return np.int32(rom[(np.int32(st[env, L.CART_BANK]) << 12) | a])


@register_jitable(forceinline=True)
def write(ram, st, env, addr, value, hot, banks, size, write_switches):
    a = np.int32(addr & 0x0FFF)
    if a >= hot:
        if write_switches and a < hot + banks:
            st[env, L.CART_BANK] = a - hot
    elif a < size:
        ram[env, RIOT_RAM + a] = value


@register_jitable(forceinline=True)
def fill_ram_from_system_rng(ram, st, env, rng, size):
    """`size` bytes of cartridge RAM, one System RNG draw each (its low byte), in address order."""
    position = np.int32(st[env, L.SYSTEM_RNG_POSITION])
    for i in range(size):
        ram[env, RIOT_RAM + i] = np.int32(rng[position + i] & 0xFF)
    st[env, L.SYSTEM_RNG_POSITION] = np.int32(position + size)


@register_jitable(forceinline=True)
def reset(ram, st, env, rng, bank, size):
    st[env, L.CART_BANK] = bank
    fill_ram_from_system_rng(ram, st, env, rng, size)
