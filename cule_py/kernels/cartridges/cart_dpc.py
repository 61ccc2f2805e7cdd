"""Pitfall II's DPC chip as ALE models it (its CartDPC.cxx).

The image is 8K of program (two 4K banks, F8-style hotspots $1FF8/$1FF9, reset bank 1), then 2K
of display data. The chip has eight data fetchers (top, bottom, 11-bit counter, flag), an 8-bit
random number generator, and a music mode for fetchers 5-7 whose counters run at 15,750 Hz.

Reads go through the chip only in two regions: $1000-$107F (its registers, and the program ROM
at $1040-$107F) and the hotspot page $1FC0-$1FFF; the rest of the program ROM is read directly.
Writes all go through the chip (ALE maps no page for direct writes). Every access through the
chip, opcode fetches and the reset-vector reads included, first clocks the random number
generator. [ALE] That writes to $1080-$1FBF clock it too was measured against ale-py with our own
DPC image (tests/cart_programs.py); Pitfall II itself never writes there.

The music clock follows ALE's arithmetic exactly: `clocks = 15750.0 * delta / 1193191.66666667 +
fraction` in double precision, where delta is the number of CPU cycles since the last music
update. The fraction is kept in the int32 state row as an integer count of 2^-59: every fraction
ALE can reach is such a multiple (each nonzero increment is at least 2^-7, so its last bit is
worth at least 2^-59), and below 1 it needs 59 bits, split 29 + 30 over DPC_FRAC_HI/DPC_FRAC_LO.
The conversions scale by powers of two only, so they are exact, and stay exact where the CUDA
compiler contracts them into the addition (it does: one fma for `units * 2^-59 + quotient`).
"""

import numpy as np
from numba.extending import register_jitable

from .. import layout as L

DISPLAY = 8192                       # offset of the display data in the image
FRACTION_ONE = 2.0 ** 59             # DPC_FRAC_* count units of 2^-59
_FRACTION_UNIT = 1.0 / FRACTION_ONE
_LOW_BITS = 30
_AMPLITUDE = np.array([0x00, 0x04, 0x05, 0x09, 0x06, 0x0A, 0x0B, 0x0F], np.int32)


@register_jitable(forceinline=True)
def _clock_random(st, env):
    r = np.int32(st[env, L.DPC_RANDOM])
    parity = ((r >> 7) ^ (r >> 5) ^ (r >> 4) ^ (r >> 3)) & 1
    st[env, L.DPC_RANDOM] = np.int32(((r << 1) | (parity ^ 1)) & 0xFF)


@register_jitable(forceinline=True)
def _update_music(st, env, clk):
    """Advance the music-mode fetchers by the 15,750 Hz clocks elapsed since the last update."""
    delta = np.int32(clk - np.int32(st[env, L.DPC_CYCLES]))
    st[env, L.DPC_CYCLES] = np.int32(clk)
    fraction = (np.float64(st[env, L.DPC_FRAC_HI]) * np.float64(1 << _LOW_BITS)
                + np.float64(st[env, L.DPC_FRAC_LO])) * _FRACTION_UNIT
    clocks = (15750.0 * np.float64(delta)) / 1193191.66666667 + fraction
    whole = np.int32(clocks)                 # C's (int): toward zero
    fraction = clocks - np.float64(whole)
    units = np.int64(fraction * FRACTION_ONE)
    st[env, L.DPC_FRAC_HI] = np.int32(units >> _LOW_BITS)
    st[env, L.DPC_FRAC_LO] = np.int32(units & ((1 << _LOW_BITS) - 1))
    if whole <= 0:
        return
    for i in range(5, 8):
        if st[env, L.DPC_MUSIC5 + i - 5] != 0:
            top = np.int32(st[env, L.DPC_TOP0 + i])
            counter = np.int32(st[env, L.DPC_COUNTER0 + i])
            if top != 0:
                low = np.int32((counter & 0xFF) - whole % (top + 1))
                if low < 0:
                    low = np.int32(low + top + 1)
            else:
                low = np.int32(0)
            if low <= st[env, L.DPC_BOTTOM0 + i]:
                st[env, L.DPC_FLAG0 + i] = 0
            elif low <= top:
                st[env, L.DPC_FLAG0 + i] = 0xFF
            st[env, L.DPC_COUNTER0 + i] = np.int32((counter & 0x0700) | low)


@register_jitable(forceinline=True)
def _read_register(rom, st, env, a, clk):
    i = np.int32(a & 7)
    function = np.int32((a >> 3) & 7)
    counter = np.int32(st[env, L.DPC_COUNTER0 + i])
    if (counter & 0xFF) == st[env, L.DPC_TOP0 + i]:
        st[env, L.DPC_FLAG0 + i] = 0xFF
    elif (counter & 0xFF) == st[env, L.DPC_BOTTOM0 + i]:
        st[env, L.DPC_FLAG0 + i] = 0
    result = np.int32(0)
    if function == 0:
        if i < 4:
            result = np.int32(st[env, L.DPC_RANDOM])
        else:
            _update_music(st, env, clk)
            index = np.int32(0)
            for k in range(3):
                if st[env, L.DPC_MUSIC5 + k] != 0 and st[env, L.DPC_FLAG5 + k] != 0:
                    index = np.int32(index | (1 << k))
            result = _AMPLITUDE[index]
    elif function == 1:
        result = np.int32(rom[DISPLAY + 2047 - counter])
    elif function == 2:
        result = np.int32(rom[DISPLAY + 2047 - counter] & st[env, L.DPC_FLAG0 + i])
    elif function == 7:
        result = np.int32(st[env, L.DPC_FLAG0 + i])
    if i < 5 or st[env, L.DPC_MUSIC5 + i - 5] == 0:
        st[env, L.DPC_COUNTER0 + i] = np.int32((counter - 1) & 0x07FF)
    return result


@register_jitable(forceinline=True)
def _write_register(st, env, a, value):
    i = np.int32(a & 7)
    function = np.int32((a >> 3) & 7)
    if function == 0:
        st[env, L.DPC_TOP0 + i] = value
        st[env, L.DPC_FLAG0 + i] = 0
    elif function == 1:
        st[env, L.DPC_BOTTOM0 + i] = value
    elif function == 2:
        counter = np.int32(st[env, L.DPC_COUNTER0 + i])
        if i >= 5 and st[env, L.DPC_MUSIC5 + i - 5] != 0:
            low = np.int32(st[env, L.DPC_TOP0 + i])
        else:
            low = np.int32(value)
        st[env, L.DPC_COUNTER0 + i] = np.int32((counter & 0x0700) | low)
    elif function == 3:
        counter = np.int32(st[env, L.DPC_COUNTER0 + i])
        st[env, L.DPC_COUNTER0 + i] = np.int32((counter & 0xFF) | ((value & 7) << 8))
        if i >= 5:
            st[env, L.DPC_MUSIC5 + i - 5] = np.int32((value >> 4) & 1)
    elif function == 6:
        st[env, L.DPC_RANDOM] = 1


@register_jitable(forceinline=True)
def read(rom, st, env, addr, clk):
    a = np.int32(addr & 0x0FFF)
    if a >= 0x0080 and a < 0x0FC0:
        return np.int32(rom[(np.int32(st[env, L.CART_BANK]) << 12) | a])
    _clock_random(st, env)
    if a < 0x0040:
        return _read_register(rom, st, env, a, clk)
    if a == 0x0FF8:
        st[env, L.CART_BANK] = 0
    elif a == 0x0FF9:
        st[env, L.CART_BANK] = 1
    return np.int32(rom[(np.int32(st[env, L.CART_BANK]) << 12) | a])


@register_jitable(forceinline=True)
def write(st, env, addr, value):
    a = np.int32(addr & 0x0FFF)
    _clock_random(st, env)
    if a >= 0x0040 and a < 0x0080:
        _write_register(st, env, a, value)
    elif a == 0x0FF8:
        st[env, L.CART_BANK] = 0
    elif a == 0x0FF9:
        st[env, L.CART_BANK] = 1


@register_jitable(forceinline=True)
def reset(st, env):
    """System reset: bank 1 and the music clock restarted at cycle 0; the fetchers and the random
    number generator keep their values."""
    st[env, L.CART_BANK] = 1
    st[env, L.DPC_CYCLES] = 0
    st[env, L.DPC_FRAC_LO] = 0
    st[env, L.DPC_FRAC_HI] = 0


@register_jitable(forceinline=True)
def frame_start(st, env, cycles):
    """The system cycle counter returns to 0: rebase the music clock's stamp."""
    st[env, L.DPC_CYCLES] = np.int32(np.int32(st[env, L.DPC_CYCLES]) - cycles)


def power_on(state, mask):
    """Host side, at cartridge construction: the random number generator starts at 1 (the rest of
    the chip at 0)."""
    state[mask, L.DPC_RANDOM] = 1
