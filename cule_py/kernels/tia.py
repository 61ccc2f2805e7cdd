"""The TIA: playfield, players, missiles, ball, collisions, input ports and the frame boundary,
as ALE's TIA computes them (reference/ale-emucore-spec.md section 2; quirks marked [Q] there are
reproduced on purpose).

The TIA is lazy, as ALE's is: nothing happens per colour clock. A render cursor trails the CPU;
every TIA access first draws the pixels up to its own time with the *old* register values
(`update_frame`), then applies its effect. Registers, object positions and the parameters of the
"current masks" (which ALE keeps as pointers into precomputed tables, rebuilt only at specific
events) live in the console's int32 state row (`layout.py`); registers.py names the register
numbers. Pixels go into one of two frame buffers `fb[console, buffer, row, column]`, swapped (not
cleared) at each frame start.

Clocks are colour clocks, 3 per CPU cycle; a line is 228 clocks, 68 of them horizontal blank.

Every helper is `register_jitable(forceinline=True)`: they run inside the console's out-of-line
bus functions (console.device_read / device_write), and would otherwise inherit their
forceinline=False and become separate functions, each call passing every array as ~10 words
(docs/developer.md, "Out-of-line calls").
"""

import numpy as np
from numba.extending import overload, register_jitable

from . import layout as L
from . import riot
from .registers import (AUDC0, COLUBK, COLUP0, COLUP1, COLUPF, CTRLPF, CXCLR, CXPPMM, ENABL,
                        ENAM0, ENAM1, GRP0, GRP1, HMBL, HMCLR, HMM0, HMM1, HMOVE, HMP0, HMP1,
                        INPT0, INPT3, INPT4, INPT5, NUSIZ0, NUSIZ1, PF0, PF1, PF2, REFP0, REFP1,
                        RESBL, RESM0, RESM1, RESMP0, RESMP1, RESP0, RESP1, RSYNC, TIA_READ_BITS,
                        TIA_WRITE_BITS, VBLANK, VDELBL, VDELP0, VDELP1, VSYNC, WSYNC)

LINE = 228
HBLANK = 68
MAX_SCANLINES_NTSC = 290
MAX_SCANLINES_PAL = 342
NO_VSYNC_FINISH = 0x7FFFFFFF

# Object bits of a pixel's "on" set, also the index into COLLISIONS.
P0, P1, M0, M1, BL, PF = 1, 2, 4, 8, 16, 32


# Collision latch bit -> the two objects that set it (draw_pixels' latch_collisions, and the
# COLLISIONS table the skip-draw check and the tests use).
COLLISION_PAIRS = {
    0: (M0, P1), 1: (M0, P0), 2: (M1, P0), 3: (M1, P1), 4: (P0, PF), 5: (P0, BL), 6: (P1, PF),
    7: (P1, BL), 8: (M0, PF), 9: (M0, BL), 10: (M1, PF), 11: (M1, BL), 12: (BL, PF),
    13: (P0, P1), 14: (M0, M1),
}


def _collision_table():
    table = np.zeros(64, np.int32)
    for on in range(64):
        for bit, (a, b) in COLLISION_PAIRS.items():
            if on & a and on & b:
                table[on] |= 1 << bit
    return table


COLLISIONS = _collision_table()

# Collision read register (CXM0P .. CXPPMM) -> latch bits reported in D7 and D6 (-1: D6 is
# always 0).
COLLISION_READ_D7 = np.array([0, 2, 4, 6, 8, 10, 12, 13], np.int32)
COLLISION_READ_D6 = np.array([1, 3, 5, 7, 9, 11, -1, 14], np.int32)


def _playfield_bits():
    """PF register bit shown in each 4-pixel block: [reflected][block 0..39]."""
    left = [0, 1, 2, 3] + list(range(11, 3, -1)) + list(range(12, 20))
    table = np.zeros((2, 40), np.int32)
    table[0] = left + left
    table[1] = left + left[::-1]
    return table


PLAYFIELD_BITS = _playfield_bits()


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

# Copy starts of a NUSIZ mode as a bit set: bit k means a copy at offset 16*k (k = 0, 1, 2, 4).
COPY_SETS = np.array([0b1, 0b11, 0b101, 0b111, 0b10001, 0b1, 0b10101, 0b1], np.int32)
# Playfield register delays by CPU cycle within the line, mod 4 (section 2.1).
PF_DELAYS = np.array([4, 5, 2, 3], np.int32)
# HMOVE writes at these CPU cycles of the line switch on the HMOVE blank.
HMOVE_BLANK_CYCLES = np.array([1 if (x <= 20 or x == 75) else 0 for x in range(76)], np.int32)


# ---- object masks ------------------------------------------------------------------------------

@register_jitable(forceinline=True)
def player_bit(mode, suppress, d):
    """GRP bit drawn at distance `d` (0..159) right of the player's position, 0 if none."""
    if mode == 5 or mode == 7:
        if suppress != 0 or d < 1:
            return 0
        shift = 1 if mode == 5 else 2
        k = (d - 1) >> shift
        if k >= 8:
            return 0
        return 0x80 >> k
    start = d & 0xF0
    if d - start >= 8 or start > 64:
        return 0
    copy = start >> 4
    if copy == 0 and suppress != 0:
        return 0
    if (COPY_SETS[mode] >> copy) & 1 == 0:
        return 0
    return 0x80 >> (d - start)


@register_jitable(forceinline=True)
def missile_on(mode, size, d):
    start = d & 0xF0
    if d - start >= (1 << size) or start > 64:
        return False
    if mode == 5 or mode == 7:
        return start == 0
    return (COPY_SETS[mode] >> (start >> 4)) & 1 != 0


@register_jitable(forceinline=True)
def rebuild_player_mask(st, env, which, suppress):
    if which == 0:
        st[env, L.TIA_MASK_P0_POS] = st[env, L.TIA_POSP0]
        st[env, L.TIA_MASK_P0_MODE] = st[env, L.TIA_NUSIZ0] & 7
        st[env, L.TIA_MASK_P0_SUPPRESS] = suppress
    else:
        st[env, L.TIA_MASK_P1_POS] = st[env, L.TIA_POSP1]
        st[env, L.TIA_MASK_P1_MODE] = st[env, L.TIA_NUSIZ1] & 7
        st[env, L.TIA_MASK_P1_SUPPRESS] = suppress


@register_jitable(forceinline=True)
def rebuild_missile_mask(st, env, which):
    if which == 0:
        nusiz = np.int32(st[env, L.TIA_NUSIZ0])
        st[env, L.TIA_MASK_M0_POS] = st[env, L.TIA_POSM0]
        st[env, L.TIA_MASK_M0_MODE] = nusiz & 7
        st[env, L.TIA_MASK_M0_SIZE] = (nusiz >> 4) & 3
        st[env, L.TIA_MASK_M0_HIDDEN] = 0
    else:
        nusiz = np.int32(st[env, L.TIA_NUSIZ1])
        st[env, L.TIA_MASK_M1_POS] = st[env, L.TIA_POSM1]
        st[env, L.TIA_MASK_M1_MODE] = nusiz & 7
        st[env, L.TIA_MASK_M1_SIZE] = (nusiz >> 4) & 3


@register_jitable(forceinline=True)
def rebuild_ball_mask(st, env):
    st[env, L.TIA_MASK_BL_POS] = st[env, L.TIA_POSBL]
    st[env, L.TIA_MASK_BL_SIZE] = (np.int32(st[env, L.TIA_CTRLPF]) >> 4) & 3


# ---- rendering ---------------------------------------------------------------------------------

# ---- precomputed object masks (module-level numpy arrays are constants in compiled code) --------
#
# Each table row covers 320 entries for the distance (x - pos) + 160, so a pixel's entry is
# `row_base + 160 - pos + x` with pos, x in 0..159: no modulo in the pixel loop. The last row of the
# missile and ball tables is all zero, for a disabled object.
MASK_SPAN = 320


def _object_tables():
    players = np.zeros((16, MASK_SPAN), np.int32)            # row mode*2 + suppress: GRP bit
    missiles = np.zeros((33, MASK_SPAN), np.int32)           # row mode*4 + size: 0/1; 32: none
    balls = np.zeros((5, MASK_SPAN), np.int32)               # row size: 0/1; 4: none
    for k in range(MASK_SPAN):
        d = k % 160
        for mode in range(8):
            for suppress in range(2):
                players[mode * 2 + suppress, k] = player_bit(mode, suppress, d)
            for size in range(4):
                missiles[mode * 4 + size, k] = 1 if missile_on(mode, size, d) else 0
        for size in range(4):
            balls[size, k] = 1 if d < (1 << size) else 0
    # uint8 keeps the tables small: CUDA puts module-level arrays in 64 KiB of constant memory.
    return (players.astype(np.uint8).ravel(), missiles.astype(np.uint8).ravel(),
            balls.astype(np.uint8).ravel())


PLAYER_MASKS, MISSILE_MASKS, BALL_MASKS = _object_tables()
MISSILE_NONE = 32 * MASK_SPAN
BALL_NONE = 4 * MASK_SPAN
# The PF register bit shown at pixel x: [reflect * 160 + x].
PF_SHIFTS = np.repeat(PLAYFIELD_BITS, 4, axis=1).astype(np.uint8).ravel()


# ---- which 8-pixel blocks of a line an object can touch --------------------------------------
#
# draw_pixels reads the objects' masks only in the 8-pixel blocks (bit b: pixels 8b..8b+7) in
# which, from positions and NUSIZ alone, some enabled object can be on; elsewhere only the
# playfield can be on, so no collision can latch there and the colour is the playfield's or the
# background's. The spans below are the distances d = (x - pos) mod 160 at which player_bit /
# missile_on can be non-zero. These four functions run on the host only: they build
# BLOCK_PATTERNS, which the kernels read, and they are what tests/test_tia_blocks.py checks the
# table against.

def block_span(start, length):
    """Bits of the 8-pixel blocks holding pixels start .. start + length - 1 (mod 160)."""
    s = np.int32(start % 160)
    e = s + length
    if e <= 160:
        return np.int32(((2 << ((e - 1) >> 3)) - 1) ^ ((1 << (s >> 3)) - 1))
    return np.int32((((2 << 19) - 1) ^ ((1 << (s >> 3)) - 1))
                    | ((2 << ((e - 161) >> 3)) - 1))


def copies_blocks(pos, mode, first_copy, width):
    """Blocks of the copies (16-pixel spacing, as COPY_SETS) of a `width`-pixel object."""
    blocks = np.int32(0)
    copies = np.int32(COPY_SETS[mode])
    for copy in range(first_copy, 5):
        if (copies >> copy) & 1:
            blocks = np.int32(blocks | block_span(pos + 16 * copy, width))
    return blocks


def player_blocks(pos, mode, suppress):
    if mode == 5 or mode == 7:
        if suppress != 0:
            return np.int32(0)
        return block_span(pos + 1, 16 if mode == 5 else 32)
    return copies_blocks(pos, mode, 1 if suppress != 0 else 0, 8)


def missile_blocks(pos, mode, size):
    if mode == 5 or mode == 7:
        return block_span(pos, 1 << size)
    return copies_blocks(pos, mode, 0, 1 << size)


# draw_pixels takes an object's blocks from a table: an object at 8q + r covers the blocks
# of the same object at r, turned q blocks along the 20-block line (160 = 20 * 8 pixels), so
# one 20-bit pattern per object setting and r = pos & 7 serves every position.
BLOCK_ROWS_PLAYER = 0          # + mode * 2 + suppress
BLOCK_ROWS_MISSILE = 16        # + mode * 4 + size
BLOCK_ROWS_BALL = 48           # + size


def _block_patterns():
    table = np.zeros((52, 8), np.int32)
    for r in range(8):
        for mode in range(8):
            for suppress in range(2):
                table[BLOCK_ROWS_PLAYER + mode * 2 + suppress, r] = player_blocks(r, mode, suppress)
            for size in range(4):
                table[BLOCK_ROWS_MISSILE + mode * 4 + size, r] = missile_blocks(r, mode, size)
        for size in range(4):
            table[BLOCK_ROWS_BALL + size, r] = block_span(r, 1 << size)
    return table.ravel()


BLOCK_PATTERNS = _block_patterns()


@register_jitable(forceinline=True)
def blocks_at(row, pos):
    """The blocks of the object setting `row` (BLOCK_ROWS_*) at position pos (0..159)."""
    pattern = np.int32(BLOCK_PATTERNS[np.uint32(row * 8 + (pos & 7))])
    turn = pos >> 3
    return np.int32(((pattern << turn) | (pattern >> (20 - turn))) & 0xFFFFF)


# ---- 8 pixels at a time ------------------------------------------------------------------------
#
# draw_pixels works on 8-pixel blocks held in a uint64, pixel 8b + i in byte i ("lanes"): each
# object's pixels as a lane mask (0xFF on, 0 off) read 8 mask-table entries at a time, colours as
# the same byte in every lane, and each pixel's colour by blending the objects' layers in priority
# order. Collisions latch only where two objects share a lane: one test of the block's lanes,
# and the pairs only then (counted in boxing: 5 of the ~570 blocks a frame that objects cover).
# Every constant below is a np.uint64: numba types an operation that mixes uint64 with a plain
# int as float64.

def _lanes(table):
    """A uint8 mask table packed 8 entries to a uint64, entry k in byte k % 8 of word k // 8,
    with a zero word after the end (mask_lanes reads the word after an entry's)."""
    assert table.size % 8 == 0
    return np.concatenate([table, np.zeros(8, np.uint8)]).view("<u8").astype(np.uint64)


PLAYER_LANES, MISSILE_LANES, BALL_LANES = (_lanes(t) for t in (PLAYER_MASKS, MISSILE_MASKS,
                                                               BALL_MASKS))
EVERY_LANE = np.uint64(0x0101010101010101)       # * colour: the colour in every lane
LOW_SEVEN_BITS = np.uint64(0x7F7F7F7F7F7F7F7F)
HIGH_BITS = np.uint64(0x8080808080808080)
LOW_HALF = np.uint64(0x00000000FFFFFFFF)         # pixels 0-3 of a block
HIGH_HALF = np.uint64(0xFFFFFFFF00000000)        # pixels 4-7
ALL_LANES = np.uint64(0xFFFFFFFFFFFFFFFF)
BYTE = np.uint64(0xFF)
U64_1 = np.uint64(1)
U64_7 = np.uint64(7)
U64_8 = np.uint64(8)
U64_63 = np.uint64(63)


@register_jitable(forceinline=True)
def mask_lanes(table, entry):
    """Entries entry .. entry + 7 of a *_LANES table, entry + i in byte i (0 <= entry)."""
    word = np.uint32(entry >> 3)
    shift = np.uint64((entry & 7) << 3)
    # Two shifts for the upper word: one by 64 - shift is undefined when shift is 0.
    return (table[word] >> shift) | ((table[word + np.uint32(1)] << (U64_63 - shift)) << U64_1)


@register_jitable(forceinline=True)
def player_lanes(entry, graphics):
    """The lanes where a player's mask bit (PLAYER_MASKS) is set in its graphics: one read site
    for both players (numba-cuda gives every site that names a module-level array its own copy in
    the 64 KiB of constant memory)."""
    shown = mask_lanes(PLAYER_LANES, entry) & (np.uint64(graphics) * EVERY_LANE)
    high = (((shown & LOW_SEVEN_BITS) + LOW_SEVEN_BITS) | shown) & HIGH_BITS
    return (high >> U64_7) * BYTE


@register_jitable(forceinline=True)
def missile_lanes(entry):
    """The lanes a missile is on in (MISSILE_MASKS holds 0/1), read at one site (see player_lanes)."""
    return mask_lanes(MISSILE_LANES, entry) * BYTE


@register_jitable(forceinline=True)
def lanes_from(first, stop):
    """The lanes first .. stop - 1 (0 <= first < stop <= 8)."""
    return (ALL_LANES >> np.uint64(64 - ((stop - first) << 3))) << np.uint64(first << 3)


@register_jitable(forceinline=True)
def blend(lanes, colour, where):
    """`colour` in the lanes `where`, `lanes` elsewhere."""
    return lanes ^ ((lanes ^ colour) & where)


@register_jitable(forceinline=True)
def store_bytes(fb, env, buf, row, x, stop, rest):
    """Pixels x .. stop - 1 from the low bytes of `rest` (pixel x in byte 0), one byte each."""
    # A while loop with a loop-carried shift. A shift per pixel (lanes >> 8 * i) made LLVM
    # vectorize the loop, with vector constants hoisted into every call of the drawing code; a
    # range loop made LLVM's optimization of every function the TIA is inlined into ~15x slower
    # (docs/developer.md, "The TIA draws 8 pixels at a time").
    while x < stop:
        fb[env, buf, row, np.uint32(x)] = np.uint8(rest & BYTE)
        rest >>= U64_8
        x += 1


@register_jitable(forceinline=True)
def store_block(fb, env, buf, row, start, lanes):
    """All 8 pixels of the block at `start` (a multiple of 8). Byte by byte here: the GPU backend
    passes fb as a transposed view (the console axis innermost, so that a warp's stores
    coalesce), whose pixel axis is not contiguous. The CPU backend's overload below stores the
    block as one uint64."""
    store_bytes(fb, env, buf, row, start, start + 8, lanes)


@overload(store_block, target="cpu", jit_options={"forceinline": True})
def _store_block_cpu(fb, env, buf, row, start, lanes):
    def store(fb, env, buf, row, start, lanes):
        # The CPU fb is C-contiguous with 160-byte rows; pixel start + i is byte i (little-endian).
        fb.view(np.uint64)[env, buf, row, np.uint32(start >> 3)] = lanes
    return store


@register_jitable(forceinline=True)
def store_lanes(fb, env, buf, row, x, stop, lanes):
    """Pixels x .. stop - 1 of one block (x & -8 .. + 7) from its lanes."""
    if stop - x == 8:
        store_block(fb, env, buf, row, x, lanes)
    else:
        store_bytes(fb, env, buf, row, x, stop, lanes >> np.uint64((x & 7) << 3))


@register_jitable(forceinline=True)
def fill_pixels(fb, env, buf, row, x, stop, colour):
    """Pixels x .. stop - 1 of a row in one colour (`colour` in every lane). Byte by byte here,
    for the GPU's transposed fb (see store_block); the CPU overload below stores whole blocks."""
    value = np.uint8(colour & BYTE)
    while x < stop:
        fb[env, buf, row, np.uint32(x)] = value
        x += 1


@overload(fill_pixels, target="cpu", jit_options={"forceinline": True})
def _fill_pixels_cpu(fb, env, buf, row, x, stop, colour):
    def fill(fb, env, buf, row, x, stop, colour):
        # Bytes up to the first block boundary, whole blocks as uint64 with the fb view made
        # once per run (LLVM vectorizes this loop), bytes after the last boundary. Plain byte
        # stores of one value, not store_bytes: its shifted lanes cost seaquest 0.9% more
        # kernel instructions (counted).
        value = np.uint8(colour & BYTE)
        while x < stop and (x & 7) != 0:
            fb[env, buf, row, np.uint32(x)] = value
            x += 1
        block, end = x >> 3, stop >> 3
        if block < end:
            blocks = fb.view(np.uint64)
            while block < end:
                blocks[env, buf, row, np.uint32(block)] = colour
                block += 1
            x = end << 3
        while x < stop:
            fb[env, buf, row, np.uint32(x)] = value
            x += 1
    return fill


@register_jitable(forceinline=True)
def playfield_lanes(pf, pf_entry):
    """The lanes of the block from PF_SHIFTS entry pf_entry in which the playfield is on (two
    4-pixel halves)."""
    return (np.uint64((pf >> np.int32(PF_SHIFTS[np.uint32(pf_entry)])) & 1) * LOW_HALF
            | np.uint64((pf >> np.int32(PF_SHIFTS[np.uint32(pf_entry + 4)])) & 1) * HIGH_HALF)


@register_jitable(forceinline=True)
def latch_collisions(collision, p0, p1, m0, m1, bl, pf):
    """The latches (bits as COLLISION_PAIRS) of every pair of objects on in a common lane."""
    c = np.int32(collision)
    if m0 & p1:
        c |= 1 << 0
    if m0 & p0:
        c |= 1 << 1
    if m1 & p0:
        c |= 1 << 2
    if m1 & p1:
        c |= 1 << 3
    if p0 & pf:
        c |= 1 << 4
    if p0 & bl:
        c |= 1 << 5
    if p1 & pf:
        c |= 1 << 6
    if p1 & bl:
        c |= 1 << 7
    if m0 & pf:
        c |= 1 << 8
    if m0 & bl:
        c |= 1 << 9
    if m1 & pf:
        c |= 1 << 10
    if m1 & bl:
        c |= 1 << 11
    if bl & pf:
        c |= 1 << 12
    if p0 & p1:
        c |= 1 << 13
    if m0 & m1:
        c |= 1 << 14
    return c


# Bit position of a power of two below 2^32, by de Bruijn's multiplication (no count-trailing-
# zeros instruction is reachable the same way on both targets).
DE_BRUIJN = 0x077CB531
DE_BRUIJN_POSITIONS = np.array(
    [b for _, b in sorted((((DE_BRUIJN << b) & 0xFFFFFFFF) >> 27, b) for b in range(32))], np.int32)


@register_jitable(forceinline=True)
def next_block_set(blocks, block):
    """The first block after `block` in the 20-block set `blocks`, 20 if none."""
    rest = np.int32(blocks & ~((2 << block) - 1))
    if rest == 0:
        return np.int32(20)
    lowest = np.int32(rest & -rest)
    return np.int32(DE_BRUIJN_POSITIONS[np.uint32(((lowest * DE_BRUIJN) >> 27) & 31)])


@register_jitable(forceinline=True)
def draw_pixels(st, fb, env, row, x0, n):
    """Draw n visible pixels of frame-buffer row `row` from pixel x0, and latch collisions, one
    8-pixel block at a time ("8 pixels at a time" above)."""
    buf = np.int32(st[env, L.TIA_BUFFER])
    x1 = x0 + n
    skip_draw = st[env, L.TIA_SKIP_DRAW] != 0
    if np.int32(st[env, L.TIA_VBLANK]) & 0x02:
        if not skip_draw:
            fill_pixels(fb, env, buf, row, x0, x1, np.uint64(0))
        return
    grp0 = np.int32(st[env, L.TIA_CUR_GRP0])
    grp1 = np.int32(st[env, L.TIA_CUR_GRP1])
    m0_on = st[env, L.TIA_ENAM0] != 0 and st[env, L.TIA_RESMP0] == 0 \
        and st[env, L.TIA_MASK_M0_HIDDEN] == 0
    m1_on = st[env, L.TIA_ENAM1] != 0 and st[env, L.TIA_RESMP1] == 0
    if st[env, L.TIA_VDELBL] != 0:
        bl_on = st[env, L.TIA_DENABL] != 0
    else:
        bl_on = st[env, L.TIA_ENABL] != 0
    objects_on = grp0 != 0 or grp1 != 0 or m0_on or m1_on or bl_on
    if skip_draw and not objects_on:
        return              # the playfield alone latches nothing
    pf = np.int32(st[env, L.TIA_PF])
    pf_base = np.int32(np.int32(st[env, L.TIA_MASK_PF_REFLECT]) * 160)
    ctrlpf = np.int32(st[env, L.TIA_CTRLPF])
    score = (ctrlpf & 0x02) != 0
    # [Q] ALE draws a stretch with no object on by its playfield-only case, which takes the score
    # colours even with priority set: the same as drawing it without priority.
    priority = objects_on and (ctrlpf & 0x04) != 0
    # Each object's mask-table entry for pixel 0 (pixel x reads entry + x; see MASK_SPAN).
    p0_entry = np.int32((np.int32(st[env, L.TIA_MASK_P0_MODE]) * 2
                         + np.int32(st[env, L.TIA_MASK_P0_SUPPRESS])) * MASK_SPAN + 160
                        - np.int32(st[env, L.TIA_MASK_P0_POS]))
    p1_entry = np.int32((np.int32(st[env, L.TIA_MASK_P1_MODE]) * 2
                         + np.int32(st[env, L.TIA_MASK_P1_SUPPRESS])) * MASK_SPAN + 160
                        - np.int32(st[env, L.TIA_MASK_P1_POS]))
    if m0_on:
        m0_entry = np.int32((np.int32(st[env, L.TIA_MASK_M0_MODE]) * 4
                             + np.int32(st[env, L.TIA_MASK_M0_SIZE])) * MASK_SPAN + 160
                            - np.int32(st[env, L.TIA_MASK_M0_POS]))
    else:
        m0_entry = np.int32(MISSILE_NONE)
    if m1_on:
        m1_entry = np.int32((np.int32(st[env, L.TIA_MASK_M1_MODE]) * 4
                             + np.int32(st[env, L.TIA_MASK_M1_SIZE])) * MASK_SPAN + 160
                            - np.int32(st[env, L.TIA_MASK_M1_POS]))
    else:
        m1_entry = np.int32(MISSILE_NONE)
    if bl_on:
        bl_entry = np.int32(np.int32(st[env, L.TIA_MASK_BL_SIZE]) * MASK_SPAN + 160
                            - np.int32(st[env, L.TIA_MASK_BL_POS]))
    else:
        bl_entry = np.int32(BALL_NONE)
    collision = np.int32(st[env, L.TIA_COLLISION])
    if skip_draw:
        # Only the collision latches: nothing to do once every pair the enabled objects could
        # form has collided this frame.
        enabled = np.int32((PF if pf != 0 else 0) | (P0 if grp0 != 0 else 0)
                           | (P1 if grp1 != 0 else 0) | (M0 if m0_on else 0)
                           | (M1 if m1_on else 0) | (BL if bl_on else 0))
        possible = np.int32(COLLISIONS[enabled])
        if collision & possible == possible:
            return
    # Each object's blocks (0 where it is off), and the blocks any of them can touch.
    p0_blocks = np.int32(0)
    if grp0 != 0:
        p0_blocks = blocks_at(BLOCK_ROWS_PLAYER + np.int32(st[env, L.TIA_MASK_P0_MODE]) * 2
                              + np.int32(st[env, L.TIA_MASK_P0_SUPPRESS]),
                              np.int32(st[env, L.TIA_MASK_P0_POS]))
    p1_blocks = np.int32(0)
    if grp1 != 0:
        p1_blocks = blocks_at(BLOCK_ROWS_PLAYER + np.int32(st[env, L.TIA_MASK_P1_MODE]) * 2
                              + np.int32(st[env, L.TIA_MASK_P1_SUPPRESS]),
                              np.int32(st[env, L.TIA_MASK_P1_POS]))
    m0_blocks = np.int32(0)
    if m0_on:
        m0_blocks = blocks_at(BLOCK_ROWS_MISSILE + np.int32(st[env, L.TIA_MASK_M0_MODE]) * 4
                              + np.int32(st[env, L.TIA_MASK_M0_SIZE]),
                              np.int32(st[env, L.TIA_MASK_M0_POS]))
    m1_blocks = np.int32(0)
    if m1_on:
        m1_blocks = blocks_at(BLOCK_ROWS_MISSILE + np.int32(st[env, L.TIA_MASK_M1_MODE]) * 4
                              + np.int32(st[env, L.TIA_MASK_M1_SIZE]),
                              np.int32(st[env, L.TIA_MASK_M1_POS]))
    bl_blocks = np.int32(0)
    if bl_on:
        bl_blocks = blocks_at(BLOCK_ROWS_BALL + np.int32(st[env, L.TIA_MASK_BL_SIZE]),
                              np.int32(st[env, L.TIA_MASK_BL_POS]))
    covered = np.int32(p0_blocks | p1_blocks | m0_blocks | m1_blocks | bl_blocks)
    background = np.uint64(st[env, L.TIA_COLUBK]) * EVERY_LANE
    playfield_colour = np.uint64(st[env, L.TIA_COLUPF]) * EVERY_LANE
    p0_colour = np.uint64(st[env, L.TIA_COLUP0]) * EVERY_LANE
    p1_colour = np.uint64(st[env, L.TIA_COLUP1]) * EVERY_LANE
    if priority or not score:
        left_pf_colour = right_pf_colour = playfield_colour
    else:
        left_pf_colour, right_pf_colour = p0_colour, p1_colour
    zero = np.uint64(0)
    x = x0
    while x < x1:
        block = x >> 3
        if (covered >> block) & 1 == 0:
            # Blocks no object can touch, up to the next one that some object can: only the
            # playfield can be on there. Without it, one colour for the whole run.
            run_stop = min(next_block_set(covered, block) << 3, x1)
            if skip_draw:
                x = run_stop
            elif pf == 0:
                fill_pixels(fb, env, buf, row, x, run_stop, background)
                x = run_stop
            else:
                while x < run_stop:
                    start = x & -8
                    stop = min(start + 8, run_stop)
                    lanes = blend(background, left_pf_colour if start < 80 else right_pf_colour,
                                  playfield_lanes(pf, pf_base + start))
                    store_lanes(fb, env, buf, row, x, stop, lanes)
                    x = stop
            continue
        start = np.int32(x & -8)
        stop = min(start + 8, x1)
        pf_lanes = playfield_lanes(pf, pf_base + start)
        p0 = player_lanes(p0_entry + start, grp0) if (p0_blocks >> block) & 1 else zero
        p1 = player_lanes(p1_entry + start, grp1) if (p1_blocks >> block) & 1 else zero
        m0 = missile_lanes(m0_entry + start) if (m0_blocks >> block) & 1 else zero
        m1 = missile_lanes(m1_entry + start) if (m1_blocks >> block) & 1 else zero
        bl = mask_lanes(BALL_LANES, bl_entry + start) * BYTE if (bl_blocks >> block) & 1 else zero
        shared = ((p0 & (p1 | m0 | m1 | bl | pf_lanes)) | (p1 & (m0 | m1 | bl | pf_lanes))
                  | (m0 & (m1 | bl | pf_lanes)) | (m1 & (bl | pf_lanes)) | (bl & pf_lanes))
        if shared != zero:
            drawn = lanes_from(x - start, stop - start)
            if shared & drawn != zero:
                collision = latch_collisions(collision, p0 & drawn, p1 & drawn, m0 & drawn,
                                             m1 & drawn, bl & drawn, pf_lanes & drawn)
        if not skip_draw:
            if priority:
                lanes = blend(background, p1_colour, p1 | m1)
                lanes = blend(lanes, p0_colour, p0 | m0)
                lanes = blend(lanes, playfield_colour, pf_lanes | bl)
            else:
                p1_layer = p1 | m1
                if score and start < 80:
                    # [Q] score mode: the left half's playfield (COLUP0) also over player 1.
                    p1_layer &= ~pf_lanes
                lanes = blend(background, playfield_colour, bl)
                lanes = blend(lanes, left_pf_colour if start < 80 else right_pf_colour, pf_lanes)
                lanes = blend(lanes, p1_colour, p1_layer)
                lanes = blend(lanes, p0_colour, p0 | m0)
            store_lanes(fb, env, buf, row, x, stop, lanes)
        x = stop
    st[env, L.TIA_COLLISION] = collision


@register_jitable(forceinline=True)
def end_of_line(st, env):
    """What ALE does when rendering passes a line end inside the display window."""
    st[env, L.TIA_MASK_PF_REFLECT] = st[env, L.TIA_CTRLPF] & 1
    rebuild_player_mask(st, env, 0, 0)
    rebuild_player_mask(st, env, 1, 0)
    if st[env, L.TIA_COSMIC_ARK] != 0:
        counter = (np.int32(st[env, L.TIA_COSMIC_ARK_COUNTER]) + 1) & 3
        st[env, L.TIA_COSMIC_ARK_COUNTER] = counter
        if counter == 0:
            step = 18
        elif counter == 1:
            step = 33
        elif counter == 2:
            step = 0
        else:
            step = 17
        st[env, L.TIA_POSM0] = (np.int32(st[env, L.TIA_POSM0]) - step) % 160
        rebuild_missile_mask(st, env, 0)
        if counter == 1:
            st[env, L.TIA_MASK_M0_SIZE] = max(np.int32(st[env, L.TIA_MASK_M0_SIZE]), 1)
        elif counter == 2:
            st[env, L.TIA_MASK_M0_HIDDEN] = 1


@register_jitable(forceinline=True)
def update_frame(st, fb, env, target):
    """Draw everything before colour clock `target` with the current register values."""
    display_start = np.int32(st[env, L.TIA_DISPLAY_START])
    display_stop = np.int32(st[env, L.TIA_DISPLAY_STOP])
    cursor = np.int32(st[env, L.TIA_CURSOR])
    if target < display_start or cursor >= display_stop or cursor >= target:
        return
    if target > display_stop:
        target = display_stop
    to_end = np.int32(st[env, L.TIA_CLOCKS_TO_LINE_END])
    while True:
        segment_start = cursor
        from_start = LINE - to_end
        if target > cursor + to_end:
            n = to_end
            to_end = LINE
            cursor = cursor + n
        else:
            n = target - cursor
            to_end = to_end - n
            cursor = target
        if from_start < HBLANK:
            skip = min(HBLANK - from_start, n)
            from_start += skip
            n -= skip
        row = (segment_start - display_start) // LINE
        if n > 0:
            draw_pixels(st, fb, env, row, from_start - HBLANK, n)
        if st[env, L.TIA_HMOVE_BLANK] != 0 and from_start < HBLANK + 8:
            # The comb: zeros from where this segment's pixels began; longer if the segment ended
            # inside horizontal blank (later segments redraw those pixels).
            if st[env, L.TIA_SKIP_DRAW] == 0:
                first = max(from_start - HBLANK, 0)
                fill_pixels(fb, env, np.int32(st[env, L.TIA_BUFFER]), row, first,
                            min(first + HBLANK + 8 - from_start, 160), np.uint64(0))
            if n + from_start >= HBLANK + 8:
                st[env, L.TIA_HMOVE_BLANK] = 0
        if to_end == LINE:
            end_of_line(st, env)
        if cursor >= target:
            break
    st[env, L.TIA_CURSOR] = cursor
    st[env, L.TIA_CLOCKS_TO_LINE_END] = to_end


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
    for buf in range(fb.shape[1]):
        for row in range(fb.shape[2]):
            for x in range(160):
                fb[env, buf, row, x] = 0


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


@register_jitable(forceinline=True)
def grey_out_frame(st, fb, env):
    """A partial frame: dim the current buffer from the scanline reached to the bottom."""
    update_frame(st, fb, env, np.int32(st[env, L.TIA_DRAWING_OWED]))
    if st[env, L.TIA_SKIP_DRAW] != 0:
        return
    ystart = np.int32(st[env, L.TIA_YSTART])
    height = np.int32(st[env, L.TIA_HEIGHT])
    buf = np.int32(st[env, L.TIA_BUFFER])
    first = max(np.int32(st[env, L.TIA_CURRENT_SCANLINE]), ystart) - ystart
    for row in range(max(first, 0), height):
        for x in range(160):
            fb[env, buf, row, x] = (np.int32(fb[env, buf, row, x]) & 0x0F) >> 1


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
    """The effect of a picture-neutral write (WSYNC, HMP0-HMBL, HMCLR; the others have none);
    returns the (maybe stalled) clock."""
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
    reg = addr & TIA_WRITE_BITS
    clock = 3 * clk
    delay = write_delay(st, env, reg, clock)
    frame_over = frame_is_over(st, env, clock)
    neutral = is_picture_neutral(reg)
    if frame_over or not (neutral or write_changes_nothing(st, env, reg, value)):
        update_frame(st, fb, env, clock + delay)
    else:
        defer_drawing(st, env, clock + delay)
    if frame_over:
        st[env, L.TIA_FRAME_ENDED] = 1
    if neutral:
        return neutral_write(st, env, reg, value, clk, clock, last_access_was_read)

    if reg == VSYNC:
        st[env, L.TIA_VSYNC] = value
        if value & 0x02:
            st[env, L.TIA_VSYNC_FINISH] = clock + LINE
        elif clock >= np.int32(st[env, L.TIA_VSYNC_FINISH]):
            st[env, L.TIA_FRAME_ENDED] = 1
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
            update_frame(st, fb, env, clock + 11)
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
        update_frame(st, fb, env, 3 * clk)
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
