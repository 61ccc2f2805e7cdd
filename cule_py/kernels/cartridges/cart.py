"""Cartridges: what the CPU sees at A12 = 1 ($1000-$1FFF and mirrors), one scheme per branch.

Every console of a batch runs the same ROM (one copy, read-only); the bank registers live in the
console's state row, cartridge RAM in the console's `ram` row after the RIOT's 128 bytes
(`ram_bytes(scheme)` more columns). Scheme ids are small ints chosen on the host from the ROM
(ALE's auto-detection, `roms.detect_scheme`); the dispatcher hands each scheme's family module
its parameters as literals:

    2K, 4K                          here
    F8, F8SC, F6, F6SC, F4, F4SC,   cart_fx.py   (4K banks, Superchip/FA RAM)
    FASC (ALE's name for FA)
    E0                              cart_e0.py
    FE                              cart_fe.py
    DPC                             cart_dpc.py  (Pitfall II)
    E7                              cart_e7.py
    3F                              cart_3f.py   (bank register written through the TIA's $00-$3F)
    UA                              cart_ua.py   (hotspots $0220/$0240 in the TIA's space)

The console calls `cart_read`/`cart_write` for A12 = 1, `cart_tia_read`/`cart_tia_write` for every
access in the TIA's space (3F and UA switch banks there; 3F even answers reads), `cart_reset` in
System reset after the RIOT's timer draw (cartridge RAM takes its System RNG draws here), and
`cart_frame_start` when the system cycle counter returns to 0 (DPC's music clock).
"""

import numpy as np
from numba.extending import register_jitable

from . import cart_3f, cart_dpc, cart_e0, cart_e7, cart_fe, cart_fx, cart_ua
from .. import layout as L
from ..frame_loop.outlining import out_of_line

SCHEME_2K = 0
SCHEME_4K = 1
SCHEME_F8 = 2
SCHEME_F8SC = 3
SCHEME_F6 = 4
SCHEME_F6SC = 5
SCHEME_F4 = 6
SCHEME_F4SC = 7
SCHEME_FASC = 8
SCHEME_E0 = 9
SCHEME_FE = 10
SCHEME_DPC = 11
SCHEME_E7 = 12
SCHEME_3F = 13
SCHEME_UA = 14
SCHEME_IDS = {"2K": SCHEME_2K, "4K": SCHEME_4K, "F8": SCHEME_F8, "F8SC": SCHEME_F8SC,
              "F6": SCHEME_F6, "F6SC": SCHEME_F6SC, "F4": SCHEME_F4, "F4SC": SCHEME_F4SC,
              "FASC": SCHEME_FASC, "E0": SCHEME_E0, "FE": SCHEME_FE, "DPC": SCHEME_DPC,
              "E7": SCHEME_E7, "3F": SCHEME_3F, "UA": SCHEME_UA}

# Bytes of cartridge RAM per scheme (after the RIOT's 128 in each console's `ram` row); ALE
# refills them from the System RNG at every System reset, one draw per byte.
_RAM_BYTES = {SCHEME_F8SC: 128, SCHEME_F6SC: 128, SCHEME_F4SC: 128, SCHEME_FASC: 256,
              SCHEME_E7: cart_e7.RAM_BYTES}


def ram_bytes(scheme: int) -> int:
    """Host side: how many bytes of RAM the cartridge adds to each console's `ram` row."""
    return _RAM_BYTES.get(scheme, 0)


def power_on(state, mask, scheme: int) -> None:
    """Host side, after a power-on cleared the masked state rows: cartridge construction."""
    if scheme == SCHEME_DPC:
        cart_dpc.power_on(state, mask)


# Compile size: the CPU core inlines the bus at every memory access of every opcode, so only the
# 2K/4K read and the 4K-bank family's plain ROM read are inline; the rest of the bank-switching
# schemes sits behind one out-of-line function each way (`banked_read`, `banked_write`), always
# called with the same argument types. Inlining the whole dispatcher made the console's cold
# compile about 5x longer. The scheme modules' helpers are forceinline=True so that they inline
# into those two instead of inheriting forceinline=False (docs/performance-log.md, "Out-of-line
# calls").

# The 4K-bank family (F8 ... FASC) reads plain ROM above its RAM ports and below its hotspots
# (the top 12 bytes cover every member's).
HOTSPOTS_FROM = 0x0FF4


@register_jitable
def ram_port_bytes(scheme):
    """Bytes of the 4K-bank family's RAM ports at the bottom of the bank (write + read port)."""
    return np.int32(((scheme & 1) << 8) | (0x200 if scheme == SCHEME_FASC else 0))


@register_jitable
def cart_read(rom, scheme, ram, st, env, addr, clk):
    if scheme <= SCHEME_4K:
        if scheme == SCHEME_2K:
            return np.int32(rom[addr & 0x07FF])
        return np.int32(rom[addr & 0x0FFF])
    if scheme <= SCHEME_FASC:
        # The 4K-bank family outside its RAM ports and hotspots: a plain read of the current
        # bank, inline.
        a = np.int32(addr & 0x0FFF)
        if a >= ram_port_bytes(scheme) and a < HOTSPOTS_FROM:
            return np.int32(rom[(np.int32(st[env, L.CART_BANK]) << 12) | a])
    return banked_read(rom, scheme, ram, st, env, np.int32(addr), np.int64(clk))


@register_jitable
def may_switch_banks(scheme, addr):
    """Whether a device access at `addr` can change what `fast_rom_window` returns. Banks switch
    only at cartridge addresses (A12 set), except 3F's and UA's, whose hotspots are in the TIA's
    space; E0 switches only at its hotspots from $1FE0 (the fast path's window also follows the
    PC, which an access does not move)."""
    if scheme >= SCHEME_3F:
        return True
    if (addr & 0x1000) == 0:
        return False
    return scheme != SCHEME_E0 or (addr & 0x0FFF) >= 0x0FE0


@register_jitable
def fast_rom_window(rom, scheme, st, env, pc):
    """Where the cartridge is plain ROM, for the CPU fast path (console_fast_path.py), as
    (base, mask, start, span, fold): an address `addr` with `addr & fold` in [start, start +
    span) (A12 set) reads `rom[base + (addr & mask)]` and has no side effect, in the current
    banks. `fold` is 0x1FFF (the 13 address lines) except for FE, whose half is chosen by the
    CPU's A13 (cart_fe): its window is the half holding `pc`, A13 kept in the test. E0's
    window is the 1K segment holding `pc` (the fast path recomputes it after every instruction
it gave to the decoded core, so it follows code that left the segment);
    DPC's is its bank between the chip's registers and the hotspots. E7's and 3F's is the 2K
    region holding `pc` (E7: the selected slice, or slice 7 from $1A00 up to its hotspots; none
    where the RAM ports are), UA's its 4K bank (its hotspots are in the TIA's space). An empty
    window (span 0) sends every instruction to the decoded core."""
    lines = np.int32(0x1FFF)
    if scheme == SCHEME_2K:
        return np.int32(0), np.int32(0x07FF), np.int32(0x1000), np.int32(0x1000), lines
    if scheme == SCHEME_4K:
        return np.int32(0), np.int32(0x0FFF), np.int32(0x1000), np.int32(0x1000), lines
    if scheme <= SCHEME_FASC:
        ram_ports = ram_port_bytes(scheme)
        return (np.int32(st[env, L.CART_BANK]) << 12, np.int32(0x0FFF),
                np.int32(0x1000 + ram_ports), np.int32(HOTSPOTS_FROM - ram_ports), lines)
    if scheme == SCHEME_E0:
        segment = (pc >> 10) & 3
        if segment == 3:        # slice 7, up to the hotspots at $1FE0
            return (np.int32(7 << 10), np.int32(0x03FF), np.int32(0x1C00), np.int32(0x03E0),
                    lines)
        if segment == 0:
            slice_ = np.int32(st[env, L.CART_BANK])
        elif segment == 1:
            slice_ = np.int32(st[env, L.CART_BANK1])
        else:
            slice_ = np.int32(st[env, L.CART_BANK2])
        return (slice_ << 10, np.int32(0x03FF), np.int32(0x1000 + (segment << 10)),
                np.int32(0x0400), lines)
    if scheme == SCHEME_DPC:    # the registers below $1080, the hotspots from $1FC0 (cart_dpc)
        return (np.int32(st[env, L.CART_BANK]) << 12, np.int32(0x0FFF), np.int32(0x1080),
                np.int32(0x0F40), lines)
    if scheme == SCHEME_FE:     # A13 set: the image's first 4K, clear: its second
        high = (pc & 0x2000) != 0
        return (np.int32(0 if high else 0x1000), np.int32(0x0FFF),
                np.int32(0x3000 if high else 0x1000), np.int32(0x1000), np.int32(0x3FFF))
    if scheme == SCHEME_E7:
        a = pc & 0x0FFF
        bank = np.int32(st[env, L.CART_BANK])
        if a < 0x0800 and bank != 7:
            return bank << 11, np.int32(0x07FF), np.int32(0x1000), np.int32(0x0800), lines
        if a >= 0x0A00:         # slice 7 up to the hotspots at $1FE0
            return (np.int32(0x3800), np.int32(0x07FF), np.int32(0x1A00), np.int32(0x05E0),
                    lines)
    elif scheme == SCHEME_3F:
        if (pc & 0x0800) == 0:
            return (np.int32(st[env, L.CART_BANK]) << 11, np.int32(0x07FF), np.int32(0x1000),
                    np.int32(0x0800), lines)
        return (np.int32(rom.shape[0] - 0x0800), np.int32(0x07FF), np.int32(0x1800),
                np.int32(0x0800), lines)
    elif scheme == SCHEME_UA:
        return (np.int32(st[env, L.CART_BANK]) << 12, np.int32(0x0FFF), np.int32(0x1000),
                np.int32(0x1000), lines)
    return np.int32(0), np.int32(0), np.int32(0), np.int32(0), lines


@register_jitable(forceinline=False)
def banked_read(rom, scheme, ram, st, env, addr, clk):
    out_of_line()
    if scheme <= SCHEME_FASC:
        if scheme == SCHEME_F8:
            return cart_fx.read(rom, ram, st, env, addr, 0x0FF8, 2, 0)
        if scheme == SCHEME_F6:
            return cart_fx.read(rom, ram, st, env, addr, 0x0FF6, 4, 0)
        if scheme == SCHEME_F8SC:
            return cart_fx.read(rom, ram, st, env, addr, 0x0FF8, 2, 128)
        if scheme == SCHEME_F6SC:
            return cart_fx.read(rom, ram, st, env, addr, 0x0FF6, 4, 128)
        if scheme == SCHEME_F4:
            return cart_fx.read(rom, ram, st, env, addr, 0x0FF4, 8, 0)
        if scheme == SCHEME_F4SC:
            return cart_fx.read(rom, ram, st, env, addr, 0x0FF4, 8, 128)
        return cart_fx.read(rom, ram, st, env, addr, 0x0FF8, 3, 256)
    if scheme == SCHEME_E0:
        return cart_e0.read(rom, st, env, addr)
    if scheme == SCHEME_FE:
        return cart_fe.read(rom, addr)
    if scheme == SCHEME_DPC:
        return cart_dpc.read(rom, st, env, addr, clk)
    if scheme == SCHEME_E7:
        return cart_e7.read(rom, ram, st, env, addr)
    if scheme == SCHEME_3F:
        return cart_3f.read(rom, st, env, addr)
    return cart_ua.read(rom, st, env, addr)


@register_jitable
def cart_write(rom, scheme, ram, st, env, addr, value, clk):
    """A CPU write at A12 = 1: 2K, 4K, FE, 3F and UA carts ignore it."""
    if scheme > SCHEME_4K:
        banked_write(rom, scheme, ram, st, env, np.int32(addr), np.int32(value), np.int64(clk))


@register_jitable(forceinline=False)
def banked_write(rom, scheme, ram, st, env, addr, value, clk):
    out_of_line()
    if scheme <= SCHEME_FASC:
        if scheme == SCHEME_F8:
            cart_fx.write(ram, st, env, addr, value, 0x0FF8, 2, 0, True)
        elif scheme == SCHEME_F6:
            cart_fx.write(ram, st, env, addr, value, 0x0FF6, 4, 0, True)
        elif scheme == SCHEME_F8SC:
            cart_fx.write(ram, st, env, addr, value, 0x0FF8, 2, 128, True)
        elif scheme == SCHEME_F6SC:
            cart_fx.write(ram, st, env, addr, value, 0x0FF6, 4, 128, True)
        elif scheme == SCHEME_F4:
            cart_fx.write(ram, st, env, addr, value, 0x0FF4, 8, 0, True)
        elif scheme == SCHEME_F4SC:
            cart_fx.write(ram, st, env, addr, value, 0x0FF4, 8, 128, False)
        else:
            cart_fx.write(ram, st, env, addr, value, 0x0FF8, 3, 256, True)
    elif scheme == SCHEME_E0:
        cart_e0.write(st, env, addr)
    elif scheme == SCHEME_DPC:
        cart_dpc.write(st, env, addr, value)
    elif scheme == SCHEME_E7:
        cart_e7.write(ram, st, env, addr, value)


@register_jitable
def cart_tia_read(rom, scheme, st, env, addr):
    """A CPU read in the TIA's space: the byte the cartridge answers with, or -1 if the TIA
    answers. UA switches banks on $0220/$0240 (the TIA still answers); ALE hands 3F's page
    $00-$3F (13-bit) to the cartridge, reads included, which answers with ROM."""
    if scheme >= SCHEME_3F:
        return tia_space_read(rom, scheme, st, env, np.int32(addr))
    return np.int32(-1)


@register_jitable(forceinline=False)
def tia_space_read(rom, scheme, st, env, addr):
    out_of_line()
    if scheme == SCHEME_3F:
        return cart_3f.tia_read(rom, st, env, addr)
    cart_ua.tia_access(st, env, addr)
    return np.int32(-1)


@register_jitable
def cart_tia_write(rom, scheme, st, env, addr, value):
    """A CPU write in the TIA's space, before the TIA takes it: 3F switches banks on $00-$3F,
    UA on $0220/$0240."""
    if scheme >= SCHEME_3F:
        tia_space_write(rom, scheme, st, env, np.int32(addr), np.int32(value))


@register_jitable(forceinline=False)
def tia_space_write(rom, scheme, st, env, addr, value):
    out_of_line()
    if scheme == SCHEME_3F:
        cart_3f.tia_write(rom, st, env, addr, value)
    else:
        cart_ua.tia_access(st, env, addr)


@register_jitable
def cart_reset(rom, scheme, ram, st, env, rng):
    """The cartridge's part of ALE's System reset: reset banks, and cartridge RAM refilled from the
    System RNG (after the RIOT's timer draw)."""
    if scheme <= SCHEME_4K:
        st[env, L.CART_BANK] = 0
    elif scheme <= SCHEME_FASC:
        if scheme == SCHEME_F8:
            cart_fx.reset(ram, st, env, rng, 1, 0)
        elif scheme == SCHEME_F8SC:
            cart_fx.reset(ram, st, env, rng, 1, 128)
        elif scheme == SCHEME_F6SC or scheme == SCHEME_F4SC:
            cart_fx.reset(ram, st, env, rng, 0, 128)
        elif scheme == SCHEME_FASC:
            cart_fx.reset(ram, st, env, rng, 2, 256)
        else:
            cart_fx.reset(ram, st, env, rng, 0, 0)
    elif scheme == SCHEME_E0:
        cart_e0.reset(st, env)
    elif scheme == SCHEME_DPC:
        cart_dpc.reset(st, env)
    elif scheme == SCHEME_E7:
        cart_e7.reset(ram, st, env, rng)
    else:
        st[env, L.CART_BANK] = 0


@register_jitable
def cart_frame_start(scheme, st, env, cycles):
    """The system cycle counter is about to return to 0 (a new frame): rebase cartridge stamps."""
    if scheme == SCHEME_DPC:
        cart_dpc.frame_start(st, env, cycles)
