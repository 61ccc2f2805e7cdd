"""Tigervision's 3F: 2K banks, chosen by writes to the TIA's first 64 addresses.

$1000-$17FF shows the selected 2K bank, $1800-$1FFF always the image's last 2K. A write to $00-$3F
(13-bit address; the TIA still receives it) selects bank `value`, wrapped to the number of 2K banks
in the image (ALE's Cart3F.cxx); Tigervision games therefore write the TIA through its $40-$7F
mirror. [ALE] Reads of $00-$3F do not reach the TIA: ALE gives that whole page to the cartridge,
which answers with the ROM byte at that offset of the selected bank (measured against ale-py with
our own 3F image). Reset selects bank 0. The bank lives in CART_BANK.
"""

import numpy as np
from numba.extending import register_jitable

from .. import layout as L


@register_jitable(forceinline=True)
def read(rom, st, env, addr):
    a = np.int32(addr & 0x0FFF)
    if a < 0x0800:
        return np.int32(rom[(np.int32(st[env, L.CART_BANK]) << 11) | a])
    return np.int32(rom[rom.shape[0] - 0x0800 + (a & 0x07FF)])


@register_jitable(forceinline=True)
def tia_read(rom, st, env, addr):
    """A CPU read in the TIA's space: -1 (the TIA answers) except on the cartridge's page."""
    if (addr & 0x1FC0) == 0:
        return np.int32(rom[(np.int32(st[env, L.CART_BANK]) << 11) | (addr & 0x3F)])
    return np.int32(-1)


@register_jitable(forceinline=True)
def tia_write(rom, st, env, addr, value):
    """A CPU write that went to the TIA: $00-$3F also switches the bank."""
    if (addr & 0x1FC0) == 0:
        st[env, L.CART_BANK] = np.int32(value & ((rom.shape[0] >> 11) - 1))
