"""The TIA's registers and timing: writes, reads, collision latches, input ports and the frame
boundary, as ALE's TIA computes them (its emucore TIA.cxx, observed through ale-py; quirks marked
[Q] are ALE's and reproduced on purpose); register names as in the Stella Programmer's Guide
(registers.py). The picture itself (pixels, object masks, collisions as they are drawn) is
render.py's.

The TIA is lazy, as ALE's is: nothing happens per colour clock. A render cursor trails the CPU;
every TIA access that changes the picture first draws the pixels up to its own time with the
*old* register values (`render.draw_until`), then applies its effect; the others only note
how far the picture is owed (`defer_drawing`). Registers, object positions and the parameters of
the "current masks" (which ALE keeps as pointers into precomputed tables, rebuilt only at
specific events) live in the console's int32 state row (`layout.py`). Register numbers are
named in registers.py.

Clocks are colour clocks, 3 per CPU cycle; a line is 228 clocks (render.LINE), 68 of them
horizontal blank (render.HBLANK).

Every helper is `register_jitable(forceinline=True)`: they run inside the console's out-of-line
bus functions (bus.device_read / device_write), and would otherwise inherit their
forceinline=False and become separate functions, each call passing every array as ~10 words
(docs/performance-log.md, "Out-of-line calls").
"""

import numpy as np
from numba.extending import register_jitable

from .. import layout as L
from ..riot import riot
from .frame_buffer import clear_buffers
from ..registers import (AUDC0, AUDV1, COLUBK, COLUP0, COLUP1, COLUPF, CTRLPF, CXCLR, CXPPMM,
                        ENABL, ENAM0, ENAM1, GRP0, GRP1, HMBL, HMCLR, HMM0, HMM1, HMOVE, HMP0,
                        HMP1, INPT0, INPT3, INPT4, INPT5, NUSIZ0, NUSIZ1, PF0, PF1, PF2, REFP0,
                        REFP1, RESBL, RESM0, RESM1, RESMP0, RESMP1, RESP0, RESP1, RSYNC,
                        TIA_READ_BITS, TIA_WRITE_BITS, VBLANK, VDELBL, VDELP0, VDELP1, VSYNC,
                        WSYNC)
from .render import (COPY_SETS, HBLANK, LINE, rebuild_ball_mask, rebuild_missile_mask,
                     rebuild_player_mask, draw_until)
# The renderer's names that tests and tools reach through this module (they are render.py's).
from .render import (BALL_LANES, BALL_MASKS, BL, BLOCK_ROWS_BALL, BLOCK_ROWS_MISSILE,  # noqa: F401
                     BLOCK_ROWS_PLAYER, BYTE, COLLISIONS, M0, M1, MASK_SPAN, MISSILE_MASKS, P0,
                     P1, PF, PF_SHIFTS, PLAYER_MASKS, block_span, blocks_at, draw_pixels,
                     grey_out_frame, latch_collisions, mask_lanes, missile_blocks, missile_lanes,
                     next_block_set, player_blocks, player_lanes)

MAX_SCANLINES_NTSC = 290
MAX_SCANLINES_PAL = 342
NO_VSYNC_FINISH = 0x7FFFFFFF

# Collision read register (CXM0P .. CXPPMM) -> latch bits reported in D7 and D6 (-1: D6 is
# always 0); the latch bits are render.COLLISION_PAIRS'.
COLLISION_READ_D7 = np.array([0, 2, 4, 6, 8, 10, 12, 13], np.int32)
COLLISION_READ_D6 = np.array([1, 3, 5, 7, 9, 11, -1, 14], np.int32)


def _motion_table():
    """HMOVE motion by CPU cycle of the HMOVE write (0..75) and nibble (section 2.9)."""
    early = [-6, -5, -5, -4, -3, -2, -2, -1, 0, 1, 1, 2, 3, 4, 4, 5, 6]          # cycles 4..20
    late = [-6, -5, -4, -4, -3, -2, -1, -1, 0, 1, 2, 2, 3, 4, 5, 5, 6, 7, 8, 8]   # cycles 55..74
    table = np.zeros((76, 16), np.int32)
    for x in range(76):
        for n in range(16):
            standard = -n if n < 8 else 16 - n
            signed = n if n < 8 else n - 16
            if x <= 3 or x == 75:
                table[x, n] = standard
            elif x <= 20:
                table[x, n] = max(standard, early[x - 4])
            elif x <= 54:
                table[x, n] = 0
            else:
                table[x, n] = min(0, -(signed + late[x - 55]))
    return table


MOTION = _motion_table().astype(np.int8)     # -15..8; int8 keeps the CUDA constant small

# Playfield register delays by CPU cycle within the line, mod 4 (section 2.1).
PF_DELAYS = np.array([4, 5, 2, 3], np.int32)
# HMOVE writes at these CPU cycles of the line switch on the HMOVE blank.
HMOVE_BLANK_CYCLES = np.array([1 if (x <= 20 or x == 75) else 0 for x in range(76)], np.int32)


# ---- frames ------------------------------------------------------------------------------------

@register_jitable(forceinline=True)
def frame_reset(st, fb, env):
    """Frame bookkeeping after a System reset (clock 0), both buffers cleared."""
    ystart = np.int32(st[env, L.TIA_YSTART])
    height = np.int32(st[env, L.TIA_HEIGHT])
    st[env, L.TIA_FRAME_START] = 0
    st[env, L.TIA_DISPLAY_START] = LINE * ystart
    st[env, L.TIA_DISPLAY_STOP] = LINE * (ystart + height)
    st[env, L.TIA_CURSOR] = 0          # [Q] the frame start, not the display start
    st[env, L.TIA_CLOCKS_TO_LINE_END] = LINE
    st[env, L.TIA_VSYNC_FINISH] = NO_VSYNC_FINISH
    st[env, L.TIA_DRAWING_OWED] = 0
    clear_buffers(fb, env)


@register_jitable(forceinline=True)
def start_frame(st, env, cycles):
    """Begin a frame: swap buffers, rebase clocks to 0, open the display window."""
    st[env, L.TIA_BUFFER] = 1 - st[env, L.TIA_BUFFER]
    clocks = 3 * cycles
    k = (clocks - np.int32(st[env, L.TIA_FRAME_START])) % LINE
    # Devices rebase their stamps before the system cycle counter returns to 0.
    riot.timer_rebase(st, env, cycles)
    st[env, L.TIA_DUMP_DISABLED_CYCLE] = np.int32(st[env, L.TIA_DUMP_DISABLED_CYCLE]) - cycles
    st[env, L.TIA_LAST_HMOVE_CLOCK] = np.int32(st[env, L.TIA_LAST_HMOVE_CLOCK]) - clocks
    finish = np.int32(st[env, L.TIA_VSYNC_FINISH])
    st[env, L.TIA_VSYNC_FINISH] = finish - clocks
    ystart = np.int32(st[env, L.TIA_YSTART])
    height = np.int32(st[env, L.TIA_HEIGHT])
    st[env, L.TIA_FRAME_START] = -k
    st[env, L.TIA_DISPLAY_START] = -k + LINE * ystart
    st[env, L.TIA_DISPLAY_STOP] = -k + LINE * (ystart + height)
    st[env, L.TIA_CURSOR] = -k + LINE * ystart
    st[env, L.TIA_CLOCKS_TO_LINE_END] = LINE
    if st[env, L.TIA_PAL] != 0:
        parity = np.int32(st[env, L.TIA_SCANLINES_LAST_FRAME]) & 1
        for field in (L.TIA_COLUP0, L.TIA_COLUP1, L.TIA_COLUPF, L.TIA_COLUBK):
            st[env, field] = (np.int32(st[env, field]) & 0xFE) | parity
    st[env, L.TIA_FRAME_GREYED] = 0
    st[env, L.TIA_DRAWING_OWED] = -k


# ---- register writes ---------------------------------------------------------------------------

@register_jitable(forceinline=True)
def line_position(st, env, clock):
    return (clock - np.int32(st[env, L.TIA_FRAME_START])) % LINE


@register_jitable(forceinline=True)
def wrap_position(v):
    """v % 160 (Python's, never negative), by compares for a position moved less than a line
    either way: HMOVE runs ~200 times a frame in some games, and the general modulo is ~11
    instructions per object (counted)."""
    if v < 0:
        if v >= -160:
            return v + 160
    elif v < 160:
        return v
    elif v < 320:
        return v - 160
    return v % 160


@register_jitable(forceinline=True)
def reflect_byte(v):
    v = ((v & 0xF0) >> 4) | ((v & 0x0F) << 4)
    v = ((v & 0xCC) >> 2) | ((v & 0x33) << 2)
    return ((v & 0xAA) >> 1) | ((v & 0x55) << 1)


@register_jitable(forceinline=True)
def refresh_player_graphics(st, env):
    g0 = np.int32(st[env, L.TIA_DGRP0]) if st[env, L.TIA_VDELP0] != 0 else np.int32(st[env, L.TIA_GRP0])
    g1 = np.int32(st[env, L.TIA_DGRP1]) if st[env, L.TIA_VDELP1] != 0 else np.int32(st[env, L.TIA_GRP1])
    if st[env, L.TIA_REFP0] != 0:
        g0 = reflect_byte(g0)
    if st[env, L.TIA_REFP1] != 0:
        g1 = reflect_byte(g1)
    st[env, L.TIA_CUR_GRP0] = g0
    st[env, L.TIA_CUR_GRP1] = g1


@register_jitable(forceinline=True)
def reset_when(mode, old, new):
    """ALE's player-reset table entry: -1 delay, +1 display, 0 neither (section 2.8).

    ALE fills the table by walking candidate positions 0..236 upwards and storing at `pos % 160`,
    later matches overwriting earlier ones, display tests after delay tests; so the candidate
    `new + 160` (if within the walk) wins over `new` whenever it matches anything.
    """
    width = 8
    if mode == 5:
        width = 16
    elif mode == 7:
        width = 32
    result = 0
    for candidate in (new, new + 160):
        if candidate > 236:
            continue
        value = 0
        copies = COPY_SETS[mode]
        for k in range(5):
            if (copies >> k) & 1:
                c = old + 16 * k
                if c <= candidate < c + 4:
                    value = -1
        for k in range(5):
            if (copies >> k) & 1:
                c = old + 16 * k
                if c + 4 <= candidate < c + 4 + width:
                    value = 1
        if value != 0:
            result = value
    return result


@register_jitable(forceinline=True)
def colour_of(st, env, value):
    colour = value & 0xFE
    if st[env, L.TIA_PAL] != 0 and (np.int32(st[env, L.TIA_SCANLINES_LAST_FRAME]) & 1):
        colour |= 1
    return colour


@register_jitable(forceinline=True)
def write_colour(st, env, field, value):
    st[env, field] = colour_of(st, env, value)


@register_jitable(forceinline=True)
def playfield_after(st, env, reg, value):
    """The 20 playfield bits after a write of `value` to PF0 (0x0D), PF1 or PF2."""
    pf = np.int32(st[env, L.TIA_PF])
    if reg == PF0:
        return (pf & 0xFFFF0) | ((value >> 4) & 0x0F)
    if reg == PF1:
        return (pf & 0xFF00F) | (value << 4)
    return (pf & 0x00FFF) | (value << 12)


@register_jitable(forceinline=True)
def write_changes_nothing(st, env, reg, value):
    """True for a write that leaves every register the picture is drawn from as it was: like the
    picture-neutral writes, it need not draw first (colours, playfield, enables, graphics with
    their delayed copies, VBLANK, reflection, VDELBL; not those that rebuild masks)."""
    if reg >= COLUP0 and reg <= COLUBK:
        return colour_of(st, env, value) == np.int32(st[env, L.TIA_COLUP0 + (reg - COLUP0)])
    if reg >= PF0 and reg <= PF2:
        return playfield_after(st, env, reg, value) == np.int32(st[env, L.TIA_PF])
    if reg >= ENAM0 and reg <= ENABL:
        return (1 if (value & 0x02) else 0) == np.int32(st[env, L.TIA_ENAM0 + (reg - ENAM0)])
    if reg == GRP0:     # GRP0 also moves GRP1 into its delayed copy
        return value == np.int32(st[env, L.TIA_GRP0]) \
            and st[env, L.TIA_DGRP1] == st[env, L.TIA_GRP1]
    if reg == GRP1:     # GRP1 also moves GRP0 and ENABL into their delayed copies
        return value == np.int32(st[env, L.TIA_GRP1]) \
            and st[env, L.TIA_DGRP0] == st[env, L.TIA_GRP0] \
            and st[env, L.TIA_DENABL] == st[env, L.TIA_ENABL]
    if reg == VBLANK:
        return value == np.int32(st[env, L.TIA_VBLANK])
    if reg == REFP0 or reg == REFP1:
        return (1 if (value & 0x08) else 0) == np.int32(st[env, L.TIA_REFP0 + (reg - REFP0)])
    if reg == VDELBL:
        return (value & 1) == np.int32(st[env, L.TIA_VDELBL])
    return False


# Accesses that change nothing the picture is drawn from need not draw first (ALE draws at every
# access): the pixels up to then come out the same when the next access that matters draws them.
# Writes: WSYNC, RSYNC, the audio registers, HMP0-HMBL and HMCLR (they act only at HMOVE), and
# the unused addresses from $2D; reads: INPT0-5 and the two unused addresses (registers 8-15).
PICTURE_NEUTRAL_WRITES = np.int64(
    (1 << WSYNC) | (1 << RSYNC) | (0x3F << AUDC0) | (0x1F << HMP0) | (1 << HMCLR))
FIRST_UNUSED_WRITE = CXCLR + 1


@register_jitable(forceinline=True)
def defer_drawing(st, env, clock):
    """Note that the picture is owed up to `clock`: a partial frame draws it before greying."""
    if clock > np.int32(st[env, L.TIA_DRAWING_OWED]):
        st[env, L.TIA_DRAWING_OWED] = clock


@register_jitable(forceinline=True)
def write_delay(st, env, reg, clock):
    """Colour clocks after the write at which its register takes effect in the picture."""
    if reg == PF0 or reg == PF1 or reg == PF2:
        return PF_DELAYS[(line_position(st, env, clock) // 3) & 3]
    if reg == NUSIZ0 or reg == NUSIZ1 or reg == RESM0 or reg == RESM1:
        return 8
    if reg == VBLANK or reg == REFP0 or reg == REFP1 or reg == GRP0 or reg == GRP1:
        return 1
    return 0


@register_jitable(forceinline=True)
def frame_ended(st, env):
    """Mark the frame as over for the core's loop (layout.CPU_ATTENTION)."""
    st[env, L.CPU_ATTENTION] = np.int32(st[env, L.CPU_ATTENTION]) | L.ATTENTION_FRAME_ENDED


@register_jitable(forceinline=True)
def frame_is_over(st, env, clock):
    """A TIA write past the scanline limit ends the frame: (clock - start) // LINE exceeds the
    limit, written without the division."""
    return clock - np.int32(st[env, L.TIA_FRAME_START]) \
        >= (np.int32(st[env, L.TIA_MAX_SCANLINES]) + 1) * LINE


@register_jitable(forceinline=True)
def is_picture_neutral(reg):
    return reg >= FIRST_UNUSED_WRITE or (PICTURE_NEUTRAL_WRITES >> reg) & 1 != 0


@register_jitable(forceinline=True)
def neutral_write(st, env, reg, value, clk, clock, last_access_was_read):
    """The effect of a picture-neutral write (WSYNC, HMP0-HMBL, HMCLR, the audio registers; the
    others have none); returns the (maybe stalled) clock."""
    if reg == WSYNC:
        if last_access_was_read:
            cycles_into_line = (clk - np.int32(st[env, L.TIA_FRAME_START]) // 3) % 76
            if cycles_into_line != 0:
                clk = clk + 76 - cycles_into_line
    elif reg == HMP0:
        st[env, L.TIA_HMP0] = value >> 4
    elif reg == HMP1:
        st[env, L.TIA_HMP1] = value >> 4
    elif reg == HMM0:
        if (clock == np.int32(st[env, L.TIA_LAST_HMOVE_CLOCK]) + 63
                and np.int32(st[env, L.TIA_HMM0]) == 7 and (value >> 4) == 6):
            st[env, L.TIA_COSMIC_ARK] = 1              # [Q] Cosmic Ark starfield
            st[env, L.TIA_COSMIC_ARK_COUNTER] = 0
        st[env, L.TIA_HMM0] = value >> 4
    elif reg == HMM1:
        st[env, L.TIA_HMM1] = value >> 4
    elif reg == HMBL:
        st[env, L.TIA_HMBL] = value >> 4
    elif reg == HMCLR:
        st[env, L.TIA_HMP0] = 0
        st[env, L.TIA_HMP1] = 0
        st[env, L.TIA_HMM0] = 0
        st[env, L.TIA_HMM1] = 0
        st[env, L.TIA_HMBL] = 0
    elif reg >= AUDC0 and reg <= AUDV1:
        # The sound generator reads them at the end of an act frame (tia_sound.py).
        st[env, L.TIA_AUDC0 + (reg - AUDC0)] = value
    return clk


@register_jitable(forceinline=True)
def write_drawing_nothing(st, env, reg, value, clk):
    """`write` for the writes that draw nothing (picture-neutral, or storing what the register
    holds) while the frame is not over; -1 for any other write, which `write` must make. The
    CPU backend's fast path tries it inline before the out-of-line call (console_fast_path.py).
    A write that stores what its register holds has no effect beyond the drawing it owes: the
    register, and everything computed from it, stay as they are."""
    clock = 3 * clk
    neutral = is_picture_neutral(reg)
    if frame_is_over(st, env, clock) or not (neutral or write_changes_nothing(st, env, reg, value)):
        return np.int64(-1)
    defer_drawing(st, env, clock + write_delay(st, env, reg, clock))
    if neutral:
        return np.int64(neutral_write(st, env, reg, value, clk, clock, True))
    return np.int64(clk)


@register_jitable(forceinline=True)
def write(st, fb, env, addr, value, clk, last_access_was_read):
    """A CPU write to TIA register `addr` at system cycle `clk`; returns the (maybe stalled) clock."""
    return write_known(st, fb, env, addr, value, clk, last_access_was_read, False)


@register_jitable(forceinline=True)
def write_known(st, fb, env, addr, value, clk, last_access_was_read, draws):
    """`write`; with `draws` true for a write that `write_drawing_nothing` has answered -1 for,
    which owes its drawing (or ends the frame): the checks it made are not made again."""
    reg = addr & TIA_WRITE_BITS
    clock = 3 * clk
    delay = write_delay(st, env, reg, clock)
    frame_over = frame_is_over(st, env, clock)
    neutral = is_picture_neutral(reg)
    drawing_changes = draws or frame_over \
        or not (neutral or write_changes_nothing(st, env, reg, value))
    # GPU_DRAW_AT_WSYNC: the GPU's scanline schedule runs a warp's lanes through a WSYNC
    # together; drawing up to it there keeps their render cursors on one line, so that the
    # lanes' later drawing runs converged instead of one lane catching up many lines while the
    # others wait. The picture is the same: drawing is owed either way, only done sooner.
    at_wsync = reg == WSYNC and st[env, L.GPU_DRAW_AT_WSYNC] != 0
    if drawing_changes or at_wsync:
        draw_until(st, fb, env, clock + delay)
    if not drawing_changes:
        defer_drawing(st, env, clock + delay)
    if frame_over:
        frame_ended(st, env)
    if neutral:
        return neutral_write(st, env, reg, value, clk, clock, last_access_was_read)

    if reg == VSYNC:
        st[env, L.TIA_VSYNC] = value
        if value & 0x02:
            st[env, L.TIA_VSYNC_FINISH] = clock + LINE
        elif clock >= np.int32(st[env, L.TIA_VSYNC_FINISH]):
            frame_ended(st, env)
            st[env, L.TIA_VSYNC_FINISH] = NO_VSYNC_FINISH
    elif reg == VBLANK:
        old = np.int32(st[env, L.TIA_VBLANK])
        if (old & 0x80) == 0 and (value & 0x80) != 0:
            st[env, L.TIA_DUMP_ENABLED] = 1
        elif (old & 0x80) != 0 and (value & 0x80) == 0:
            st[env, L.TIA_DUMP_ENABLED] = 0
            st[env, L.TIA_DUMP_DISABLED_CYCLE] = clk
        st[env, L.TIA_VBLANK] = value
    elif reg == NUSIZ0 or reg == NUSIZ1:
        which = reg - NUSIZ0
        st[env, L.TIA_NUSIZ0 + which] = value
        rebuild_player_mask(st, env, which, 0)
        rebuild_missile_mask(st, env, which)
    elif reg == COLUP0:
        write_colour(st, env, L.TIA_COLUP0, value)
    elif reg == COLUP1:
        write_colour(st, env, L.TIA_COLUP1, value)
    elif reg == COLUPF:
        write_colour(st, env, L.TIA_COLUPF, value)
    elif reg == COLUBK:
        write_colour(st, env, L.TIA_COLUBK, value)
    elif reg == CTRLPF:
        st[env, L.TIA_CTRLPF] = value
        rebuild_ball_mask(st, env)
        if line_position(st, env, clock) < 147:
            st[env, L.TIA_MASK_PF_REFLECT] = value & 1
    elif reg == REFP0 or reg == REFP1:
        field = L.TIA_REFP0 if reg == REFP0 else L.TIA_REFP1
        graphics = L.TIA_CUR_GRP0 if reg == REFP0 else L.TIA_CUR_GRP1
        new = 1 if (value & 0x08) else 0
        if new != np.int32(st[env, field]):
            st[env, graphics] = reflect_byte(np.int32(st[env, graphics]))
        st[env, field] = new
    elif reg == PF0 or reg == PF1 or reg == PF2:
        st[env, L.TIA_PF] = playfield_after(st, env, reg, value)
    elif reg == RESP0 or reg == RESP1:
        which = reg - RESP0
        h = line_position(st, env, clock)
        new = 3 if h < HBLANK else (h - HBLANK + 5) % 160
        pos_field = L.TIA_POSP0 + which
        mode = np.int32(st[env, L.TIA_NUSIZ0 + which]) & 7
        when = reset_when(mode, np.int32(st[env, pos_field]), new)
        if when == 1:
            # [Q] The old copy stays on screen 11 more clocks.
            draw_until(st, fb, env, clock + 11)
        st[env, pos_field] = new
        rebuild_player_mask(st, env, which, 0 if when == -1 else 1)
    elif reg == RESM0 or reg == RESM1 or reg == RESBL:
        h = line_position(st, env, clock)
        new = 2 if h < HBLANK else (h - HBLANK + 4) % 160
        since_hmove = clock - np.int32(st[env, L.TIA_LAST_HMOVE_CLOCK])
        if reg == RESM0:
            if since_hmove == 60 and h == 69:           # [Q] "Dolphin"
                new = 8
            st[env, L.TIA_POSM0] = new
            rebuild_missile_mask(st, env, 0)
        elif reg == RESM1:
            if since_hmove == 9 and h == 18:            # [Q] "Pitfall II"
                new = 3
            st[env, L.TIA_POSM1] = new
            rebuild_missile_mask(st, env, 1)
        else:
            if since_hmove == 54 and (h == 60 or h == 69):
                new = 10
            elif since_hmove == 9 and h == 18:
                new = 3
            elif since_hmove == 21 and h == 30:
                new = 6
            elif since_hmove == 18 and h == 27:
                new = 5
            st[env, L.TIA_POSBL] = new
            rebuild_ball_mask(st, env)
    elif reg == GRP0:
        st[env, L.TIA_GRP0] = value
        st[env, L.TIA_DGRP1] = st[env, L.TIA_GRP1]
        refresh_player_graphics(st, env)
    elif reg == GRP1:
        st[env, L.TIA_GRP1] = value
        st[env, L.TIA_DGRP0] = st[env, L.TIA_GRP0]
        st[env, L.TIA_DENABL] = st[env, L.TIA_ENABL]
        refresh_player_graphics(st, env)
    elif reg == ENAM0:
        st[env, L.TIA_ENAM0] = 1 if (value & 0x02) else 0
    elif reg == ENAM1:
        st[env, L.TIA_ENAM1] = 1 if (value & 0x02) else 0
    elif reg == ENABL:
        st[env, L.TIA_ENABL] = 1 if (value & 0x02) else 0
    elif reg == VDELP0:
        st[env, L.TIA_VDELP0] = value & 1
        refresh_player_graphics(st, env)
    elif reg == VDELP1:
        st[env, L.TIA_VDELP1] = value & 1
        refresh_player_graphics(st, env)
    elif reg == VDELBL:
        st[env, L.TIA_VDELBL] = value & 1
    elif reg == RESMP0 or reg == RESMP1:
        which = reg - RESMP0
        field = L.TIA_RESMP0 + which
        if st[env, field] != 0 and (value & 0x02) == 0:
            mode = np.int32(st[env, L.TIA_NUSIZ0 + which]) & 7
            middle = 8 if mode == 5 else (16 if mode == 7 else 4)
            st[env, L.TIA_POSM0 + which] = (np.int32(st[env, L.TIA_POSP0 + which]) + middle) % 160
            rebuild_missile_mask(st, env, which)
        st[env, field] = 1 if (value & 0x02) else 0
    elif reg == HMOVE:
        x = line_position(st, env, clock) // 3
        if st[env, L.TIA_HMOVE_BLANKS_ALLOWED] != 0 and HMOVE_BLANK_CYCLES[x] != 0:
            st[env, L.TIA_HMOVE_BLANK] = 1
        # One read site of MOTION: numba-cuda copies a global table into constant memory once
        # per site and specialisation, and the 64 KB bank is shared by the whole kernel.
        for obj in range(5):                            # P0, P1, M0, M1, BL
            moved = np.int32(st[env, L.TIA_POSP0 + obj]) + np.int32(
                MOTION[np.uint32(x), np.uint32(st[env, L.TIA_HMP0 + obj])])
            st[env, L.TIA_POSP0 + obj] = wrap_position(moved)
        rebuild_player_mask(st, env, 0, 0)
        rebuild_player_mask(st, env, 1, 0)
        rebuild_missile_mask(st, env, 0)
        rebuild_missile_mask(st, env, 1)
        rebuild_ball_mask(st, env)
        st[env, L.TIA_LAST_HMOVE_CLOCK] = clock
        st[env, L.TIA_COSMIC_ARK] = 0
    elif reg == CXCLR:
        st[env, L.TIA_COLLISION] = 0
    return clk


# ---- reads -------------------------------------------------------------------------------------

@register_jitable(forceinline=True)
def paddle_charged(st, env, resistance, clk):
    """INPT0-3 for a paddle of `resistance`: True once the pot capacitor has charged."""
    if resistance == 0:
        return True
    if resistance == 0x7FFFFFFF or st[env, L.TIA_DUMP_ENABLED] != 0:
        return False
    # ALE's charge time, in double precision and in its order of evaluation.
    needed = np.int64((1.6 * resistance * 0.01e-6) * 1.19e6) & 0xFFFFFFFF
    # [Q] unsigned 32-bit comparison: a rebased, negative dump cycle can wrap the sum.
    threshold = (np.int64(st[env, L.TIA_DUMP_DISABLED_CYCLE]) + needed) & 0xFFFFFFFF
    return (np.int64(clk) & 0xFFFFFFFF) > threshold


@register_jitable(forceinline=True)
def read(st, fb, env, addr, clk, data_bus):
    """A CPU read of TIA register `addr` at system cycle `clk`; undriven bits carry bus noise."""
    reg = addr & TIA_READ_BITS
    noise = data_bus & 0x3F
    if reg <= CXPPMM:                                   # collisions: drawn up to now first
        draw_until(st, fb, env, 3 * clk)
        collision = np.int32(st[env, L.TIA_COLLISION])
        value = noise
        if (collision >> COLLISION_READ_D7[reg]) & 1:
            value |= 0x80
        d6 = COLLISION_READ_D6[reg]
        if d6 >= 0 and (collision >> d6) & 1:
            value |= 0x40
        return value
    defer_drawing(st, env, 3 * clk)
    if reg <= INPT3:                                    # INPT0-3: pot resistances by pin
        if paddle_charged(st, env, np.int32(st[env, L.IN_POT0 + reg - INPT0]), clk):
            return 0x80 | noise
        return noise
    if reg == INPT4:
        return noise if st[env, L.IN_FIRE_LEFT] != 0 else 0x80 | noise
    if reg == INPT5:
        return noise if st[env, L.IN_FIRE_RIGHT] != 0 else 0x80 | noise
    return noise


@register_jitable(forceinline=True)
def reset(st, fb, env, pal):
    """TIA::reset: registers, positions, graphics and collisions to 0; frame bookkeeping anew."""
    for field in range(L.TIA_VSYNC, L.TIA_MASK_M0_HIDDEN + 1):
        st[env, field] = 0
    st[env, L.TIA_LAST_HMOVE_CLOCK] = 0
    st[env, L.TIA_PAL] = pal
    st[env, L.TIA_MAX_SCANLINES] = MAX_SCANLINES_PAL if pal else MAX_SCANLINES_NTSC
    frame_reset(st, fb, env)
