"""The TIA's picture: how the playfield, players, missiles and ball become pixels and collisions.

The TIA is lazy, as ALE's is (tia.py has the registers and timing): nothing is drawn per colour
clock. A render cursor (`TIA_CURSOR`) trails the CPU, and every TIA access that changes the
picture first calls `update_frame`, which draws everything before the access's colour clock with
the registers as they were. The objects are drawn from "current masks": the parameters of the
tables ALE keeps pointers into (position, NUSIZ mode, size, the player's suppressed first copy),
rebuilt only at the events ALE rebuilds them at (`rebuild_*_mask`, `end_of_line`). Pixels go into
one of two frame buffers (frame_buffer.py: 8 pixels a word), swapped (not cleared) at each frame
start (tia.start_frame).

Layers of this module, bottom up: the object bits and collision pairs; the NUSIZ copy patterns
and the masks; the precomputed mask tables and which 8-pixel blocks an object can touch;
`draw_pixels`, which draws a run of one line 8 pixels at a time and latches collisions;
`update_frame`, which walks the lines from the cursor to a colour clock (horizontal blank, the
HMOVE comb, the end-of-line events), and `draw_until`, the one copy of it the TIA's accesses
call; `grey_out_frame` for a frame cut short.

Every helper is `register_jitable(forceinline=True)`, as the TIA's are: they run inside the
console's out-of-line bus functions (bus.device_read / device_write), and would otherwise
inherit their forceinline=False and become separate functions, each call passing every array as
~10 words (docs/performance-log.md, "Out-of-line calls").
"""

import numpy as np
from numba.extending import overload, register_jitable

from .. import layout as L
from ..frame_loop.outlining import out_of_line
from .frame_buffer import blend, fill_pixels, grey_out_row, lanes_from, store_lanes

# The picture's geometry in colour clocks (3 per CPU cycle): a line, and its horizontal blank.
LINE = 228
HBLANK = 68

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

def _playfield_bits():
    """PF register bit shown in each 4-pixel block: [reflected][block 0..39]."""
    left = [0, 1, 2, 3] + list(range(11, 3, -1)) + list(range(12, 20))
    table = np.zeros((2, 40), np.int32)
    table[0] = left + left
    table[1] = left + left[::-1]
    return table


PLAYFIELD_BITS = _playfield_bits()

# Copy starts of a NUSIZ mode as a bit set: bit k means a copy at offset 16*k (k = 0, 1, 2, 4).
COPY_SETS = np.array([0b1, 0b11, 0b101, 0b111, 0b10001, 0b1, 0b10101, 0b1], np.int32)


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
BYTE = np.uint64(0xFF)
U64_1 = np.uint64(1)
U64_7 = np.uint64(7)
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
    """The lanes a missile is on in (MISSILE_MASKS holds 0/1), read at one site (see
    player_lanes)."""
    return mask_lanes(MISSILE_LANES, entry) * BYTE


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


def draws_playfield_alone_apart():
    """Whether draw_pixels draws a stretch with every object off by `draw_playfield` alone, apart
    from the block loop and before the objects' set-up. The CPU does: where much of the picture
    is the playfield alone (Surround, Robotank), that set-up was a large part of each drawing
    write. The GPU does not: a warp whose consoles differ would run both paths one after the
    other; its lanes share the loop instead, the set-up skipped where no object is on. Both draw
    the same pixels. Called as Python (numba's CUDA simulator) it answers as the GPU."""
    return False


@overload(draws_playfield_alone_apart, target="cpu")
def _draws_playfield_alone_apart_cpu():
    return lambda: True


@overload(draws_playfield_alone_apart, target="cuda")
def _draws_playfield_alone_apart_cuda():
    return lambda: False


@register_jitable(forceinline=True)
def draw_playfield(words, x, stop, pf, pf_base, background, left_colour, right_colour):
    """Pixels x .. stop - 1 of a row where no object is on: the playfield (`left_colour` on the
    left half, `right_colour` on the right) over the background; returns `stop`."""
    while x < stop:
        start = x & -8
        end = min(start + 8, stop)
        lanes = blend(background, left_colour if start < 80 else right_colour,
                      playfield_lanes(pf, pf_base + start))
        store_lanes(words, x, end, lanes)
        x = end
    return x


@register_jitable(forceinline=True)
def draw_pixels(st, fb, env, row, x0, n):
    """Draw n visible pixels of frame-buffer row `row` from pixel x0, and latch collisions, one
    8-pixel block at a time ("8 pixels at a time" above)."""
    buf = np.int32(st[env, L.TIA_BUFFER])
    # The row's words (frame_buffer.py); unsigned indices, which need no negative wrap-around.
    words = fb[env, np.uint32(buf), np.uint32(row)]
    x1 = x0 + n
    skip_draw = st[env, L.TIA_SKIP_DRAW] != 0
    if np.int32(st[env, L.TIA_VBLANK]) & 0x02:
        if not skip_draw:
            fill_pixels(words, x0, x1, np.uint64(0))
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
    if not objects_on and draws_playfield_alone_apart():
        # The playfield alone, without the objects' set-up and the block loop below.
        background = np.uint64(st[env, L.TIA_COLUBK]) * EVERY_LANE
        if pf == 0:
            fill_pixels(words, x0, x1, background)
            return
        playfield_colour = np.uint64(st[env, L.TIA_COLUPF]) * EVERY_LANE
        left_colour = right_colour = playfield_colour
        if score:
            left_colour = np.uint64(st[env, L.TIA_COLUP0]) * EVERY_LANE
            right_colour = np.uint64(st[env, L.TIA_COLUP1]) * EVERY_LANE
        draw_playfield(words, x0, x1, pf, pf_base, background, left_colour, right_colour)
        return
    collision = np.int32(st[env, L.TIA_COLLISION])
    # Each object's mask-table entry for pixel 0 (pixel x reads entry + x; see MASK_SPAN) and
    # its blocks (0 where it is off). With every object off none of this is needed (the loop
    # below draws the playfield alone, and no collision can latch); the CPU has returned above
    # by then, the GPU's lanes skip it here (draws_playfield_alone_apart).
    p0_entry = p1_entry = np.int32(0)
    m0_entry = np.int32(MISSILE_NONE)
    m1_entry = np.int32(MISSILE_NONE)
    bl_entry = np.int32(BALL_NONE)
    p0_blocks = p1_blocks = m0_blocks = m1_blocks = bl_blocks = np.int32(0)
    if objects_on:
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
        if m1_on:
            m1_entry = np.int32((np.int32(st[env, L.TIA_MASK_M1_MODE]) * 4
                                 + np.int32(st[env, L.TIA_MASK_M1_SIZE])) * MASK_SPAN + 160
                                - np.int32(st[env, L.TIA_MASK_M1_POS]))
        if bl_on:
            bl_entry = np.int32(np.int32(st[env, L.TIA_MASK_BL_SIZE]) * MASK_SPAN + 160
                                - np.int32(st[env, L.TIA_MASK_BL_POS]))
        if skip_draw:
            # Only the collision latches: nothing to do once every pair the enabled objects
            # could form has collided this frame.
            enabled = np.int32((PF if pf != 0 else 0) | (P0 if grp0 != 0 else 0)
                               | (P1 if grp1 != 0 else 0) | (M0 if m0_on else 0)
                               | (M1 if m1_on else 0) | (BL if bl_on else 0))
            possible = np.int32(COLLISIONS[enabled])
            if collision & possible == possible:
                return
        if grp0 != 0:
            p0_blocks = blocks_at(BLOCK_ROWS_PLAYER + np.int32(st[env, L.TIA_MASK_P0_MODE]) * 2
                                  + np.int32(st[env, L.TIA_MASK_P0_SUPPRESS]),
                                  np.int32(st[env, L.TIA_MASK_P0_POS]))
        if grp1 != 0:
            p1_blocks = blocks_at(BLOCK_ROWS_PLAYER + np.int32(st[env, L.TIA_MASK_P1_MODE]) * 2
                                  + np.int32(st[env, L.TIA_MASK_P1_SUPPRESS]),
                                  np.int32(st[env, L.TIA_MASK_P1_POS]))
        if m0_on:
            m0_blocks = blocks_at(BLOCK_ROWS_MISSILE + np.int32(st[env, L.TIA_MASK_M0_MODE]) * 4
                                  + np.int32(st[env, L.TIA_MASK_M0_SIZE]),
                                  np.int32(st[env, L.TIA_MASK_M0_POS]))
        if m1_on:
            m1_blocks = blocks_at(BLOCK_ROWS_MISSILE + np.int32(st[env, L.TIA_MASK_M1_MODE]) * 4
                                  + np.int32(st[env, L.TIA_MASK_M1_SIZE]),
                                  np.int32(st[env, L.TIA_MASK_M1_POS]))
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
                fill_pixels(words, x, run_stop, background)
                x = run_stop
            else:
                x = draw_playfield(words, x, run_stop, pf, pf_base, background, left_pf_colour,
                                   right_pf_colour)
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
            store_lanes(words, x, stop, lanes)
        x = stop
    st[env, L.TIA_COLLISION] = collision


# ---- catching up: drawing the picture up to a colour clock ------------------------------------

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
    # The row of the line the cursor is on (the one just finished where to_end is 0), one more
    # at each line end: the display window starts on a line, as the cursor's line does.
    row = (cursor - (LINE - to_end) - display_start) // LINE
    while True:
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
        if n > 0:
            draw_pixels(st, fb, env, row, from_start - HBLANK, n)
        if st[env, L.TIA_HMOVE_BLANK] != 0 and from_start < HBLANK + 8:
            # The comb: zeros from where this segment's pixels began; longer if the segment ended
            # inside horizontal blank (later segments redraw those pixels).
            if st[env, L.TIA_SKIP_DRAW] == 0:
                first = max(from_start - HBLANK, 0)
                fill_pixels(fb[env, np.uint32(st[env, L.TIA_BUFFER]), np.uint32(row)], first,
                            min(first + HBLANK + 8 - from_start, 160), np.uint64(0))
            if n + from_start >= HBLANK + 8:
                st[env, L.TIA_HMOVE_BLANK] = 0
        if to_end == LINE:
            end_of_line(st, env)
            row += 1
        if cursor >= target:
            break
    st[env, L.TIA_CURSOR] = cursor
    st[env, L.TIA_CLOCKS_TO_LINE_END] = to_end


@register_jitable(forceinline=False)
def draw_until(st, fb, env, target):
    """`update_frame` as the TIA's register accesses call it: one copy of the renderer on the
    GPU, which every write and collision read that draws shares.

    Inlined at each of those three sites, the renderer was a copy of `draw_pixels` per site, and
    the copies a frame runs compete for the instruction caches, the GPU's limit on decorrelated
    consoles (docs/performance-log.md, "The code's size"). A partial frame's grey-out, which is
    rare, keeps its own inline copy: as a fourth caller, the shared function compiled twice as
    large. On the CPU it stays inline (the overload below): the TIA already sits behind one
    out-of-line call per access there, and a second call would pass every array as ~10 words."""
    out_of_line()
    update_frame(st, fb, env, target)


@overload(draw_until, target="cpu", jit_options={"forceinline": True})
def _draw_until_cpu(st, fb, env, target):
    def draw(st, fb, env, target):
        update_frame(st, fb, env, target)
    return draw


# ---- a partial frame ---------------------------------------------------------------------------

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
        grey_out_row(fb[env, buf, row])
