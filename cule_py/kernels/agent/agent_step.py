"""The agent step of ale-py's AtariVectorEnv, as device code: frameskip frames of ALE's act()
(sticky actions), summed and clipped reward, life loss, game over, truncation, the frames the
observation needs, max-pool, grayscale/RGB through ALE's palette, the area resize and the frame
stack; and its reset: ALE's reset_game, fire, noop starts drawn from a per-console std::mt19937
as libstdc++'s uniform_int_distribution draws, the first observation.

Two entries, each a loop over claimed consoles on the CPU (cpu_workers) and one thread per
console on CUDA around the same register_jitable code: `agent_step_*` (one agent step) and
`agent_reset_*` (OP_RESET: reset the masked consoles; OP_AUTORESET: the resets the step just
marked, per the autoreset mode). A step is these two launches with the same all-true mask: no
host decision per console, no host read. The rules
(checked against AtariVectorEnv in tests/test_agent_step_vs_ale.py; tests/vector_model.py states
them in plain Python):

* step: for each of `skip` frames: act, count the frame, track lives (a life is lost when
  0 < lives < the previous frame's lives); stop at game over, at `max_frames` frames since the
  reset, or (episodic life) at a life loss; otherwise grab the screen into raw[1] on the
  second-to-last frame (max-pool) and into raw[0] on the last. The frame that ends a step early is
  never grabbed. Then raw[0] = max(raw[0], raw[1]) in place (max-pool), resized into the stack.
* terminated = game over, or a life loss with episodic_life or life_loss_info; truncated =
  the frame budget is spent and not terminated; a reset is due at game over, at the budget, and
  at a life loss with episodic_life (a full reset_game, as AtariVectorEnv does).
* reset: reset_game; FIRE for one frame if the action set has it and fire reset is on;
  noops = U{0..noop_max-1} - fire NOOP frames, a game over among them calling reset_game again
  before the remaining noops; then the stack is cleared, raw[0] = the screen, raw[1] = 0, and
  raw[0] goes on the stack.

Drawing only what the observation needs (`C_LAZY`), exactly: the frames before the last two
latch collisions but write no pixels (render.py, TIA_SKIP_DRAW). (The last two, even without
max-pool: the older buffer is what a later partial frame shows.) That is invisible as long as
every frame of the step draws the whole display window by itself (TIA_FRAME_COMPLETE): the
last two frames then show nothing older, and both screen buffers end the step as ALE's. The step
starts from a snapshot of the console (state row, RAM, game logic); if a frame turns out
incomplete (a partial frame, VSYNC before the window's end), or the step ends early with undrawn
frames behind it, the console goes back to the snapshot and plays the step again drawing every
frame, reusing the sticky-action draws it made (bit i of `adopted`), so the RNG is not rewound.
That replay is exact because frames 0 and 1 of the step were complete (else it would have
stopped there, before drawing anything), so they overwrite both buffers entirely. `obs_type="ram"`
draws no pixels in steps at all: nothing there shows a screen.

Grabs without copies: a fresh frame swaps the screen buffers, so after a step the last frame's
screen is the current buffer and, if the last frame started fresh, the second-to-last frame's is
the other buffer, untouched since. `observe` pools the two straight from the buffers into raw[0]
row by row, each row just before the resize reads it. raw[1] is grabbed only where its buffer
would not survive (the last frame continued a partial frame) or where a one-frame step may pool
with it later (frameskip 1). raw[0] is always written whole: a step that ends early pools with it.
"""

import numpy as np
from numba import cuda, njit, prange
from numba.extending import overload, register_jitable

from ..._simulator import simulator_enabled
from ..._jit_cache import CACHE_ENABLED
from ..ale import environment as E
from .. import layout as L
from ..ale import reset_snapshot as RS
from ..cpu_workers import claim, claim_in_passes, hand_off
from .exact_float import mul_f32
from ..tia.frame_buffer import PIXEL_MASK, ROW_WORDS, pixel
from ..ale.mt19937 import mt_next
from ..structs import console_at, screen_at

# agent[env, field] (int32): per-console agent state.
A_ELAPSED = 0          # frames played by agent steps since the last reset
A_LIVES = 1            # lives after the last frame
A_NEEDS_RESET = 2      # the last step ended the game (game over, budget, episodic life loss)
A_NOOPS_LEFT = 3       # noop frames still to play in a reset
A_REGAME = 4           # a stopped reset (A_RNG_SHORT) still owes a noop frame's reset_game
A_EP_RETURN = 5        # unclipped reward since the reset
A_EP_LENGTH = 6        # agent steps since the reset
A_FINAL_RETURN = 7     # return and length of the game the last step ended
A_FINAL_LENGTH = 8
A_GAME_ENDED = 9       # 1: the last step ended a game (FINAL_* are its statistics)
A_STEPS = 10           # agent steps since construction (stochastic frameskip counter)
A_SKIP_SEED = 11       # per-console seed of the stochastic frameskip
A_LAST_SKIP = 12       # frames the last step asked for
A_RNG_SHORT = 13       # 1: a reset stopped before a System reset the system-RNG table cannot feed
A_REPLAYS = 14         # steps played again with every frame drawn (see the module doc)
A_RESET_NOW = 15       # 1: the step left this console to OP_AUTORESET
A_TABLE_RESETS = 16    # reset_games whose input-free frames came from the table (reset_snapshot)
A_TAIL_RESETS = 17     # resets whose fire and noop acts came from the table's tail region
A_TAIL_BY_ORIGIN = 18  # of those, the ones found by their start entry, with no compare
A_TAIL_DIRECT = 19     # of those, the ones from the start entry's direct tails (played ahead)
A_OBS_DUE = 20         # 1: the last step left its observation to a later pass or launch
A_OBS_NEWEST = 21      # and where that observation's two screens are (SRC_*, `observe`)
A_OBS_OLDER = 22
A_OBS_HANDOFF = 23     # agent_step_cpu's second pass: which of stepper and claimer came (hand_off)
AGENT_FIELDS = 24

# cfg[] (int32): per-batch settings.
C_SKIP_LO = 0          # frameskip drawn uniformly from [lo, hi); hi = lo + 1: fixed
C_SKIP_HI = 1
C_MAXPOOL = 2
C_EPISODIC = 3
C_LIFE_INFO = 4
C_CLIP = 5
C_MAX_FRAMES = 6
C_FIRE = 7             # 1: fire reset on and FIRE in the action set
C_NOOP_MAX = 8
C_OBS = 9              # OBS_GRAY / OBS_RGB / OBS_RAM
C_STACK = 10
C_SRC_H = 11           # screen height (210 / 250 / ...)
C_CHANNELS = 12        # 1 (grayscale) or 3 (RGB)
C_DST_H = 13
C_DST_W = 14
C_AUTORESET = 15       # AUTORESET_*: resets a step does itself
C_LAZY = 16            # 1: draw only the frames the observation needs (exact; module doc)
C_OBS_BANDS = 17       # 0: the step makes its observation; B > 0: agent_observe_* makes it after
                       # the step, one thread per console and band of output rows (B bands)
CFG_FIELDS = 18

AUTORESET_DISABLED = 0  # the host resets (by mask)
AUTORESET_NEXT = 1      # a console whose last step ended resets instead of stepping
AUTORESET_SAME = 2      # a step that ends the game resets at once (outputs are the step's)

OBS_GRAY = 0
OBS_RGB = 1
OBS_RAM = 2

SCREEN_W = 160

# agent_reset_* operations.
OP_RESET = 1           # AtariVectorEnv's reset (resumes one stopped by A_RNG_SHORT)
OP_AUTORESET = 2       # the reset a step marked (A_RESET_NOW), per the autoreset mode
OP_FILL_TAILS = 3      # before a reset launch: play the direct tails of new start entries
                       # (CPU; on the GPU its own kernel, fill_tails_cuda)

# A step replays frames from a 64-bit record of its sticky draws.
MAX_LAZY_SKIP = 62

NOOP_ROW = 0
FIRE_ROW = 1


def most_tail_acts(fire: bool, noop_max: int) -> int:
    """The most acts a reset's tail plays (reset_one: `fire` + max(noops, 0), the noops a draw
    below max(noop_max, 1) less `fire`): the reset table's direct tails need no more
    (reset_snapshot.empty_table's direct_acts)."""
    return max(1 if fire else 0, max(noop_max, 1) - 1)


@register_jitable
def noop_draw(noop_mt, env, noop_max):
    """std::uniform_int_distribution<int>(0, noop_max - 1) on a std::mt19937, as libstdc++
    draws it for a 32-bit generator: x * n, rejecting low words below 2**32 mod n."""
    n = np.int64(max(noop_max, 1))
    product = mt_next(noop_mt, env) * n
    if (product & 0xFFFFFFFF) < n:
        threshold = ((np.int64(1) << 32) - n) % n
        while (product & 0xFFFFFFFF) < threshold:
            product = mt_next(noop_mt, env) * n
    return np.int32(product >> 32)


@register_jitable
def _mix32(x):
    x = ((x ^ (x >> 16)) * np.int64(0x45D9F3B)) & 0xFFFFFFFF
    x = ((x ^ (x >> 16)) * np.int64(0x45D9F3B)) & 0xFFFFFFFF
    return (x ^ (x >> 16)) & 0xFFFFFFFF


@register_jitable
def frameskip(agent, cfg, env):
    """The step's frame count: fixed, or uniform in [lo, hi) from a counter-based hash of the
    console's seed and step number (reproducible, independent of batch size)."""
    lo = np.int32(cfg[C_SKIP_LO])
    span = np.int64(cfg[C_SKIP_HI]) - lo
    if span <= 1:
        return lo
    x = _mix32((np.int64(agent[env, A_SKIP_SEED]) & 0xFFFFFFFF)
               ^ _mix32(np.int64(agent[env, A_STEPS]) & 0xFFFFFFFF))
    return np.int32(lo + ((x * span) >> 32))


@register_jitable
def grab(st, fb, palette, raw, cfg, env, slot):
    """The current screen (ALE's getScreen) through the palette into raw[env, slot]."""
    if cfg[C_OBS] == OBS_RAM:
        return
    height = np.int32(cfg[C_SRC_H])
    ch = np.int32(cfg[C_CHANNELS])
    buffer = np.int32(st[env, L.TIA_BUFFER])
    k = np.int32(0)
    for y in range(height):
        for x in range(SCREEN_W):
            index = np.int32(pixel(fb, env, buffer, y, x))
            for c in range(ch):
                raw[env, slot, k] = palette[index, c]
                k = np.int32(k + 1)


@register_jitable
def clear_raw(raw, cfg, env, slot):
    size = np.int32(cfg[C_SRC_H]) * SCREEN_W * np.int32(cfg[C_CHANNELS])
    for k in range(size):
        raw[env, slot, k] = 0


# 2**23: a float32 in [0, 2**23) plus this is rounded to an integer, by IEEE's default rounding
# (to nearest, ties to even); subtracting it again gives that integer exactly.
_ROUNDING_BIAS = np.float32(8388608.0)


@register_jitable
def round_u8(v):
    """Round to nearest, ties to even, clamped to 0..255 (saturate_cast<uchar> of a float32).
    Without a branch on the fraction, so that the CPU's loop over an output row vectorises."""
    x = np.float32(v)
    if x <= np.float32(0.0):
        return np.int32(0)
    if x >= np.float32(255.0):
        return np.int32(255)
    return np.int32((x + _ROUNDING_BIAS) - _ROUNDING_BIAS)


# Where a step's two screens are when its observation is made (`observe`): the newest is a
# screen buffer (its index) or, when the step ended before its last frame, raw[0] as the last
# observation left it; the older one (max-pool) is a screen buffer the last frame did not touch,
# raw[1] (grabbed at the second-to-last frame), or nothing to pool with.
SRC_NONE = -1
SRC_RAW1 = 2


_SIMULATED_GPU = simulator_enabled()


def compare_while_pooling():
    """How pool_row reads the screens and finds a row equal to the one above, and which x table
    reduce_row reads. On the CPU: the row's source words against the row above's first (a
    repeated row's pooled row is copied), else word by word through the gray palette as one row
    (pool_gray_words) and a second pass over the two pooled rows (fused into the pooling loop,
    a CPU observation took 38 -> 45 us); the x table by layer (area_resize.tap_major_table). On
    the GPU, where no uint8 view of the console-innermost words exists: a word (8 pixels) a
    load, and the compare in the pooling loop itself, by the rows' source words (a second pass
    over the pooled bytes cost about as many instructions as the horizontal pass it saves; byte
    by byte inside the loop, ~12 SASS a pixel; tools/gpu_line_profile.py); the x table by
    destination. Compiled, it answers for the kernel's target; called as Python, as numba's
    CUDA simulator runs the GPU kernels, it answers as the GPU does there, so that a CPU kernel
    is the same machine code with or without the simulator (one kernel cache serves both)."""
    return _SIMULATED_GPU


@overload(compare_while_pooling, target="cpu")
def _compare_while_pooling_cpu():
    return lambda: False


@overload(compare_while_pooling, target="cuda")
def _compare_while_pooling_cuda():
    return lambda: True


@register_jitable(forceinline=True)
def pool_pixel(a, b, palette, pooled_row, at, i):
    """Pixel i (a constant, 0..7) of the frame-buffer words `a` and `b`, max-pooled through the
    grayscale palette into pooled_row[at + i]."""
    shift = np.uint64(i * 8)
    v = palette[(a >> shift) & PIXEL_MASK, 0]
    w = palette[(b >> shift) & PIXEL_MASK, 0]
    pooled_row[at + np.uint32(i)] = v if v > w else w


@register_jitable(forceinline=True)
def gray_pixel(a, gray, pooled_row, at, i):
    """Pixel i (0..7) of the frame-buffer word `a` through the 1-D gray palette
    into pooled_row[at + i]."""
    pooled_row[at + np.uint32(i)] = gray[(a >> np.uint64(i * 8)) & PIXEL_MASK]


@register_jitable(forceinline=True)
def pool_gray_pixel(a, b, gray, pooled_row, at, i):
    """pool_pixel through the 1-D gray palette."""
    shift = np.uint64(i * 8)
    v = gray[(a >> shift) & PIXEL_MASK]
    w = gray[(b >> shift) & PIXEL_MASK]
    pooled_row[at + np.uint32(i)] = v if v > w else w


def pool_gray_words(newest_row, other_row, palette, pooled_row, base):
    """The CPU's pooling of one grayscale row from its two screens' rows of words, through the
    palette (256, 1) as one row of 256 grays: a 1-D view, so that a lookup is a load at an
    offset (indexed 2-D, each cost a multiply by a stride). Where the two screens' words are
    equal (most of a screen: the objects that move are small), the pooled pixels are the
    newest's, one lookup each. The GPU pools its own way (compare_while_pooling) and never calls
    it: there it is a stub, since a view made inside a CUDA device function cannot be kept.
    Called as Python, it pools pixel by pixel."""
    for x in range(SCREEN_W):
        shift = np.uint64(8 * (x & 7))
        v = palette[(newest_row[x >> 3] >> shift) & PIXEL_MASK, 0]
        w = palette[(other_row[x >> 3] >> shift) & PIXEL_MASK, 0]
        pooled_row[base + x] = max(v, w)


@overload(pool_gray_words, target="cuda")
def _pool_gray_words_cuda(newest_row, other_row, palette, pooled_row, base):
    return lambda newest_row, other_row, palette, pooled_row, base: None


@overload(pool_gray_words, target="cpu", jit_options={"forceinline": True})
def _pool_gray_words_cpu(newest_row, other_row, palette, pooled_row, base):
    def pool(newest_row, other_row, palette, pooled_row, base):
        gray = palette.reshape(palette.shape[0])
        for block in range(np.uint32(ROW_WORDS)):
            a = newest_row[block]
            b = other_row[block]
            at = base + block * np.uint32(8)
            if a == b:
                for i in range(8):
                    gray_pixel(a, gray, pooled_row, at, i)
            else:
                for i in range(8):
                    pool_gray_pixel(a, b, gray, pooled_row, at, i)
    return pool


@register_jitable
def pool_row(fb, palette, raw, ch, env, y, newest, older, fused, above_pooled):
    """Row y of the max-pooled screen into raw[env, 0] (module doc). Returns whether it differs
    from row y - 1 (always true for row 0): an equal row reuses that row's horizontal pass.
    `fused`: compare_while_pooling(), the GPU's way of reading and comparing. `above_pooled`:
    whether raw[env, 0]'s row y - 1 is already this observation's (not so for a band's first
    row), so that the CPU may copy it."""
    # Unsigned indices: numba adds no negative-index wraparound to each access.
    width = np.uint32(SCREEN_W) * np.uint32(ch)
    base = np.uint32(y) * width
    if ch == 1 and newest >= 0 and older != SRC_RAW1:
        # Grayscale from the screen buffers: every step of the common case.
        other = newest if older < 0 else older             # max(a, a) = a
        # The GPU's way: a word of each screen at a time, 8 pixels a load (frame_buffer.py).
        if fused:
            # Row views made once (frame_buffer.py: 4-D indexing recomputes each address).
            newest_row, other_row, pooled_row = fb[env, newest, y], fb[env, other, y], raw[env, 0]
            above = np.uint32(y - 1 if y > 0 else y)      # row 0 compares with itself
            newest_above, other_above = fb[env, newest, above], fb[env, other, above]
            # Equal source words give equal pooled pixels, so the row is compared by its
            # sources, a word each: exact for the reuse, which only needs "equal" to be true
            # (pooled rows compared byte by byte cost ~12 SASS a pixel, offline).
            changed = np.uint64(0)
            for block in range(np.uint32(ROW_WORDS)):
                a = newest_row[block]
                b = other_row[block]
                changed |= (a ^ newest_above[block]) | (b ^ other_above[block])
                at = base + block * np.uint32(8)
                # The word's 8 pixels spelled out: as a loop NVVM kept it rolled, ~12 SASS a
                # pixel of loop and shift arithmetic (tools/gpu_line_profile.py).
                pool_pixel(a, b, palette, pooled_row, at, 0)
                pool_pixel(a, b, palette, pooled_row, at, 1)
                pool_pixel(a, b, palette, pooled_row, at, 2)
                pool_pixel(a, b, palette, pooled_row, at, 3)
                pool_pixel(a, b, palette, pooled_row, at, 4)
                pool_pixel(a, b, palette, pooled_row, at, 5)
                pool_pixel(a, b, palette, pooled_row, at, 6)
                pool_pixel(a, b, palette, pooled_row, at, 7)
            return y == 0 or changed != np.uint64(0)
        # The CPU's way. First the row's source words against the row above's: where neither
        # screen changed, neither did the pooled row, which is copied (a vectorised copy, against
        # ~9 instructions a pixel through the palette; most rows of a screen repeat the one
        # above: 197 of Pong's 210).
        if above_pooled:
            newest_row, other_row = fb[env, newest, y], fb[env, other, y]
            above = np.uint32(y - 1)
            newest_above, other_above = fb[env, newest, above], fb[env, other, above]
            changed = np.uint64(0)
            for block in range(np.uint32(ROW_WORDS)):
                changed |= ((newest_row[block] ^ newest_above[block])
                            | (other_row[block] ^ other_above[block]))
            if changed == np.uint64(0):
                pooled_row = raw[env, 0]
                for x in range(np.uint32(SCREEN_W)):
                    pooled_row[base + x] = pooled_row[base - width + x]
                return False
        # Then word by word (pool_gray_words).
        pool_gray_words(fb[env, newest, y], fb[env, other, y], palette, raw[env, 0], base)
    elif newest >= 0:
        for x in range(np.uint32(SCREEN_W)):
            index = pixel(fb, env, newest, y, x)
            for c in range(np.uint32(ch)):
                k = base + x * np.uint32(ch) + c
                v = palette[index, c]
                if older == SRC_RAW1:
                    if raw[env, 1, k] > v:
                        v = raw[env, 1, k]
                elif older >= 0:
                    w = palette[pixel(fb, env, older, y, x), c]
                    if w > v:
                        v = w
                raw[env, 0, k] = v
    elif older == SRC_RAW1:
        for k in range(base, base + width):
            if raw[env, 1, k] > raw[env, 0, k]:
                raw[env, 0, k] = raw[env, 1, k]
    elif older >= 0:
        for x in range(np.uint32(SCREEN_W)):
            index = pixel(fb, env, older, y, x)
            for c in range(np.uint32(ch)):
                k = base + x * np.uint32(ch) + c
                if palette[index, c] > raw[env, 0, k]:
                    raw[env, 0, k] = palette[index, c]
    if y == 0:
        return True
    changed = np.uint32(0)
    for k in range(base, base + width):
        changed |= np.uint32(raw[env, 0, k] ^ raw[env, 0, k - width])
    return changed != 0


@register_jitable(forceinline=True)
def three_layer_sums(pooled_row, reduced_row, base, xs, xa, width, start, past):
    """Destinations start..past - 1 of a grayscale row whose tap-major x table has three layers
    (84, 64 or 100 pixels from 160): each destination's three taps summed in a register, in
    the layers' order, so each sum is the layer-by-layer one."""
    for d in range(start, past):
        total = mul_f32(np.float32(pooled_row[base + np.uint32(xs[d])]), xa[d])
        at = d + width
        total = total + mul_f32(np.float32(pooled_row[base + np.uint32(xs[at])]), xa[at])
        at = at + width
        reduced_row[d] = total + mul_f32(np.float32(pooled_row[base + np.uint32(xs[at])]), xa[at])


@register_jitable
def reduce_row(raw, scratch, ch, env, y, xd, xs, xa, into, fused):
    """Row y of raw[env, 0] reduced along x into scratch[env, into], each destination's taps
    summed in table order. The GPU's table (`fused`, compare_while_pooling) lists each
    destination's taps consecutively, summed in a register; the CPU's is tap-major
    (area_resize.tap_major_table): layer by layer, each a loop over the destinations (the
    consecutive form's branch at each destination's end cost more), or with three layers a
    destination's taps in a register (three_layer_sums)."""
    base = np.uint32(y) * np.uint32(SCREEN_W) * np.uint32(ch)
    taps = np.uint32(xd.shape[0])
    pooled_row, reduced_row = raw[env, 0], scratch[env, into]   # row views (see observe)
    if not fused:
        width = np.uint32(xd[taps - np.uint32(1)] + 1)
        if ch == 1:
            # Grayscale: the same layers with no channel stride to multiply by.
            if taps == np.uint32(3) * width:
                three_layer_sums(pooled_row, reduced_row, base, xs, xa, width, np.uint32(0),
                                 width)
                return
            for d in range(width):
                reduced_row[d] = mul_f32(np.float32(pooled_row[base + np.uint32(xs[d])]), xa[d])
            for at in range(width, taps, width):
                for d in range(width):
                    reduced_row[d] = reduced_row[d] + mul_f32(
                        np.float32(pooled_row[base + np.uint32(xs[at + d])]), xa[at + d])
            return
        for c in range(np.uint32(ch)):
            for d in range(width):          # the first layer starts each sum (0 + first tap)
                reduced_row[d * np.uint32(ch) + c] = mul_f32(
                    np.float32(pooled_row[base + np.uint32(xs[d]) * np.uint32(ch) + c]), xa[d])
            for at in range(width, taps, width):
                for d in range(width):
                    k = d * np.uint32(ch) + c
                    reduced_row[k] = reduced_row[k] + mul_f32(
                        np.float32(pooled_row[base + np.uint32(xs[at + d]) * np.uint32(ch) + c]),
                        xa[at + d])
        return
    for c in range(np.uint32(ch)):
        cell = np.uint32(xd[0])
        total = np.float32(0.0)
        for t in range(taps):
            d = np.uint32(xd[t])
            if d != cell:
                reduced_row[cell * np.uint32(ch) + c] = total
                total = np.float32(0.0)
                cell = d
            total = total + mul_f32(
                np.float32(pooled_row[base + np.uint32(xs[t]) * np.uint32(ch) + c]), xa[t])
        reduced_row[cell * np.uint32(ch) + c] = total


@register_jitable
def changed_span(fb, env, y, newest, older):
    """(first, last) word of screen row y that differs from row y - 1 in either of the two
    screens the pooling reads (`newest`, `older` as in pool_row; y >= 1): the pooled row can
    only differ from the one above between them. (ROW_WORDS, 0) if none does."""
    other = newest if older < 0 else older
    newest_row, other_row = fb[env, newest, y], fb[env, other, y]
    newest_above, other_above = fb[env, newest, y - 1], fb[env, other, y - 1]
    first, last = np.uint32(ROW_WORDS), np.uint32(0)
    for block in range(np.uint32(ROW_WORDS)):
        if newest_row[block] != newest_above[block] or other_row[block] != other_above[block]:
            first = min(first, block)
            last = block
    return first, last


@register_jitable
def reduce_changed(raw, scratch, env, y, xd, xs, xa, into, first, last):
    """The CPU's horizontal pass of grayscale row y where scratch[env, into] holds row y - 1's
    and the rows differ only in words `first` to `last` (changed_span): only the destinations
    that an area resize from 160 pixels reads from those words are summed again (destination d
    covers source pixels [160 d / W, 160 (d + 1) / W), so pixels 8 first to 8 last + 7 reach
    destinations 8 first W // 160 up to ceil((8 last + 8) W / 160) - 1), each as reduce_row
    sums it. Only for x tables of three layers (reduce_row's register form): False, with
    nothing done, otherwise."""
    taps = np.uint32(xd.shape[0])
    width = np.uint32(xd[taps - np.uint32(1)] + 1)
    if taps != np.uint32(3) * width:
        return False
    if first > last:
        return True
    base = np.uint32(y) * np.uint32(SCREEN_W)
    pooled_row, reduced_row = raw[env, 0], scratch[env, into]
    start = first * np.uint32(8) * width // np.uint32(SCREEN_W)
    past = min((last * np.uint32(8) + np.uint32(8)) * width + np.uint32(SCREEN_W - 1),
               width * np.uint32(SCREEN_W)) // np.uint32(SCREEN_W)
    three_layer_sums(pooled_row, reduced_row, base, xs, xa, width, start, past)
    return True


@register_jitable
def band_rows(cfg, band, bands):
    """(first output row, the row past its last) of band `band` of `bands`: an even split."""
    dst_h = np.int32(cfg[C_DST_H])
    return np.int32(band * dst_h // bands), np.int32((band + 1) * dst_h // bands)


@register_jitable
def row_band(cfg, yd, band, bands):
    """Band `band` of `bands` of the output rows: (its first entry of the vertical table, the
    entry past its last, its first output row, the row past its last). Each band pools from
    its first entry's source row up to the next band's first (the entry past its own last; the
    last band: to the screen's end), so the bands pool every row, and a row that two bands'
    entries read (area resize shares the boundary rows) is pooled by both, to the same values."""
    entries = np.int32(yd.shape[0])
    if bands == 1:                     # the CPU's whole observation: no search
        return np.int32(0), entries, np.int32(0), np.int32(cfg[C_DST_H])
    first_dy, past_dy = band_rows(cfg, band, bands)
    j_lo = np.int32(0)
    while j_lo < entries and yd[j_lo] < first_dy:
        j_lo = np.int32(j_lo + 1)
    j_hi = j_lo
    while j_hi < entries and yd[j_hi] < past_dy:
        j_hi = np.int32(j_hi + 1)
    return j_lo, j_hi, first_dy, past_dy


@register_jitable
def observe_rows(fb, screen, slot, cfg, env, newest, older, fused, band, bands):
    """Output rows of band `band` of `bands` (row_band) of the step's observation: their source
    rows max-pooled into raw[env, 0], their area resize into obs[env, slot] (see
    cule_py/area_resize.py), in one pass over the source rows: each row is pooled just before
    the resize first reads it, and its horizontal pass serves every vertical entry of that row
    (and of the rows equal to it below: screens repeat rows a lot). raw[0] is kept whole because
    a later step that ends early pools with it. The bands share nothing but boundary rows of
    raw[0], which pooling writes idempotently, so they may run in any order or at once; each
    uses scratch rows 2 * band and 2 * band + 1. `fused`: how equal rows are found
    (compare_while_pooling)."""
    palette, raw, scratch, obs = screen.palette, screen.raw, screen.scratch, screen.obs
    xd, xs, xa, yd, ys, ya = screen.xd, screen.xs, screen.xa, screen.yd, screen.ys, screen.ya
    ch = np.int32(cfg[C_CHANNELS])
    height = np.int32(cfg[C_SRC_H])
    row_out = np.int32(cfg[C_DST_W]) * ch
    j_lo, j_hi, first_dy, past_dy = row_band(cfg, yd, band, bands)
    if first_dy >= past_dy:
        return
    # Row views made once: indexed 3-D in the loops, each access recomputed its address
    # (frame_buffer.py says the same of the frame buffers).
    reduced_row, total = scratch[env, 2 * band], scratch[env, 2 * band + 1]
    out_slot = obs[env, slot]
    for k in range(row_out):
        total[k] = np.float32(0.0)
    # Rows of raw[0] final so far. A band's first row is reduced whatever the row above it
    # holds (another band's row, maybe not pooled yet): `reduced` starts before it.
    start = np.int32(0) if band == 0 else np.int32(ys[j_lo])
    pooled = start
    reduced = np.int32(-1)               # the source row scratch[0] holds, reduced along x
    prev = np.int32(yd[j_lo])
    for j in range(j_lo, j_hi):
        dy = np.int32(yd[j])
        sy = np.int32(ys[j])
        beta = ya[j]
        while pooled <= sy:
            if pool_row(fb, palette, raw, ch, env, pooled, newest, older, fused,
                        pooled > start) or (
                    reduced != pooled - 1):
                # On the CPU, a grayscale row from the screens whose row above is in scratch
                # sums again only what its changed words reach (reduce_changed).
                if fused or ch != 1 or newest < 0 or older == SRC_RAW1 or \
                        reduced != pooled - 1 or pooled <= start or not reduce_changed(
                            raw, scratch, env, pooled, xd, xs, xa, 2 * band,
                            *changed_span(fb, env, pooled, newest, older)):
                    reduce_row(raw, scratch, ch, env, pooled, xd, xs, xa, 2 * band, fused)
            reduced = pooled
            pooled = np.int32(pooled + 1)
        if dy != prev:
            # The store's index unsigned: with a signed one numba fixes up negative indices
            # byte by byte and LLVM's loop stays scalar (unsigned `out` and `k` instead cost the
            # GPU's observation kernel 18 more registers, offline).
            out = prev * row_out
            for k in range(row_out):
                out_slot[np.uint32(out + k)] = round_u8(total[k])
                total[k] = mul_f32(beta, reduced_row[k])
            prev = dy
        else:
            for k in range(row_out):
                total[k] = total[k] + mul_f32(beta, reduced_row[k])
    out = prev * row_out
    for k in range(row_out):
        out_slot[np.uint32(out + k)] = round_u8(total[k])
    end = height if band == bands - 1 else np.int32(ys[j_hi])      # the next band's first
    while pooled < end:
        pool_row(fb, palette, raw, ch, env, pooled, newest, older, fused, pooled > start)
        pooled = np.int32(pooled + 1)


@register_jitable
def observe(fb, screen, slot, cfg, env, newest, older, fused):
    """The whole observation in one pass (observe_rows, a single band)."""
    observe_rows(fb, screen, slot, cfg, env, newest, older, fused, 0, 1)


@register_jitable
def shift_stack(obs, env, stack, first, past):
    """Move bytes [first, past) of every slot of console `env`'s observation stack one slot
    older (slot 0's are dropped). Four bytes at a time where the slots and the band allow it
    (84-pixel rows, grayscale or RGB, always do): byte by byte the GPU's copy was ~26 SASS a
    byte of 64-bit slice arithmetic, a fifth of agent_observe_cuda's instructions."""
    if (obs.shape[2] | first | past) & 3 == 0:
        lo, count = np.uint32(first >> 2), np.uint32((past - first) >> 2)
        for slot in range(stack - 1):
            # Views from 0 and unsigned indices: no negative-index fix-ups, and the CPU's
            # loop stays a vectorised copy.
            older = obs[env, slot].view(np.uint32)[lo:lo + count]
            newer = obs[env, slot + 1].view(np.uint32)[lo:lo + count]
            k = np.uint32(0)
            while k < count:
                older[k] = newer[k]
                k = np.uint32(k + np.uint32(1))
    else:
        for slot in range(stack - 1):
            older_band, newer_band = obs[env, slot, first:past], obs[env, slot + 1, first:past]
            for k in range(past - first):
                older_band[k] = newer_band[k]


@register_jitable
def push_rows(ram, fb, screen, cfg, env, newest, older, band, bands):
    """Shift band `band` of `bands` of the stack one slot older and put the band of the new
    observation in the newest slot (the RAM: band 0 does all); `newest`, `older`: where the
    step's two screens are (SRC_*)."""
    stack = np.int32(cfg[C_STACK])
    obs = screen.obs
    if cfg[C_OBS] == OBS_RAM:
        if band == 0:
            for slot in range(stack - 1):
                older_slot, newer_slot = obs[env, slot], obs[env, slot + 1]
                for k in range(obs.shape[2]):
                    older_slot[k] = newer_slot[k]
            for k in range(128):
                obs[env, stack - 1, k] = ram[env, k]
        return
    row_out = np.int32(cfg[C_DST_W]) * np.int32(cfg[C_CHANNELS])
    first_dy, past_dy = band_rows(cfg, band, bands)
    shift_stack(obs, env, stack, first_dy * row_out, past_dy * row_out)
    observe_rows(fb, screen, stack - 1, cfg, env, newest, older, compare_while_pooling(), band,
                 bands)


@register_jitable
def push(ram, fb, screen, cfg, env, newest, older):
    """Shift the stack one slot older and put the new observation (or the RAM) in the newest
    slot; `newest`, `older`: where the step's two screens are (SRC_*)."""
    push_rows(ram, fb, screen, cfg, env, newest, older, 0, 1)


@register_jitable
def deliver(screen, outputs, env):
    """Console `env`'s frame stack into the observations the step returns, where the host asked
    for them (Outputs.observations): each thread copies its consoles', where the host's one
    thread would copy the whole batch after the launch."""
    delivered = outputs.observations
    if env < delivered.shape[0]:
        obs = screen.obs
        for slot in range(obs.shape[1]):
            for k in range(obs.shape[2]):
                delivered[env, slot, k] = obs[env, slot, k]


@register_jitable
def observe_in_step(cfg):
    """Whether the step kernel makes its observation itself (C_OBS_BANDS == 0) or leaves it to
    agent_observe_*. The GPU always leaves it: there the step kernel runs one warp a scheduler
    at 16,384 consoles, each instruction ~6 cycles apart, while agent_observe_cuda runs a thread
    per console and band, several warps a scheduler; and the step kernel then holds no
    observation code. (numba's CUDA simulator runs the GPU kernels as this Python function; the GPU
    backend sets C_OBS_BANDS there too.)"""
    return cfg[C_OBS_BANDS] == 0


@overload(observe_in_step, target="cuda")
def _observe_in_step_cuda(cfg):
    return lambda cfg: False


@register_jitable
def rng_room(console, rng, env):
    """The system-RNG table holds the draws of one more System reset (timer + cartridge RAM)."""
    return np.int64(console.st[env, L.SYSTEM_RNG_POSITION]) + 1 + (console.ram.shape[1] - 128) \
        <= rng.shape[0]


@register_jitable
def finish_reset(console, agent, cfg, screen, outputs, env, with_outputs):
    """The reset's observation (stack cleared, raw[0] = the screen, raw[1] = 0: nothing to
    pool), counters and lives (`outputs.lives` always holds every console's current lives);
    with_outputs: also the step outputs of a reset (reward 0, not terminated or truncated)."""
    obs = screen.obs
    stack = np.int32(cfg[C_STACK])
    for slot in range(stack):
        for k in range(obs.shape[2]):
            obs[env, slot, k] = 0
    if cfg[C_OBS] != OBS_RAM:
        clear_raw(screen.raw, cfg, env, 1)
    push(console.ram, console.fb, screen, cfg, env, np.int32(console.st[env, L.TIA_BUFFER]),
         SRC_NONE)
    agent[env, A_ELAPSED] = 0
    agent[env, A_LIVES] = E.lives_of(console, env)
    agent[env, A_NEEDS_RESET] = 0
    agent[env, A_REGAME] = 0
    agent[env, A_NOOPS_LEFT] = 0
    agent[env, A_EP_RETURN] = 0
    agent[env, A_EP_LENGTH] = 0
    outputs.lives[env] = agent[env, A_LIVES]
    if with_outputs:
        outputs.rewards[env] = 0
        outputs.terminated[env] = False
        outputs.truncated[env] = False


@register_jitable
def reset_console(console, tables, noop_mt, agent, cfg, screen, outputs, table, env,
                  with_outputs):
    """AtariVectorEnv's reset of one console (module doc). Before each System reset it checks
    the system-RNG table; if that is too short it stops with A_RNG_SHORT = 1, in a state this
    function resumes from once the host has grown the table (A_REGAME: a noop frame's reset_game
    is still due; A_NOOPS_LEFT: the noops after it). `table`: the reset_snapshot table."""
    while True:          # once, plus once per game over among the noops: one reset_game site
        if not rng_room(console, tables.rng, env):
            agent[env, A_RNG_SHORT] = 1
            return
        agent[env, A_RNG_SHORT] = 0
        hit, origin = RS.reset_game(console, tables, table, env)
        if hit:
            agent[env, A_TABLE_RESETS] += 1
        writing = np.int32(-1)
        if agent[env, A_REGAME] == 0:
            # (the noop count first: it comes from its own generator, the acts' sticky draws
            # from `mt`, so the order of the two is free)
            fire = cfg[C_FIRE] != 0
            noops = noop_draw(noop_mt, env, cfg[C_NOOP_MAX]) - (1 if fire else 0)
            acts = np.int32((1 if fire else 0) + max(noops, 0))
            mask = RS.tail_key(console, env, fire, acts, NOOP_ROW)
            hit = np.int32(0)
            if mask >= 0:
                hit = RS.tail_from_table(console, table, env, acts, mask, origin)
            if hit != 0:
                agent[env, A_TAIL_RESETS] += 1
                if hit >= 2:
                    agent[env, A_TAIL_BY_ORIGIN] += 1
                if hit == 3:
                    agent[env, A_TAIL_DIRECT] += 1
                noops = 0
            else:
                if mask >= 0:
                    writing = RS.tail_begin(console, table, env, acts, mask, origin)
                if fire:
                    E.act(console, env, FIRE_ROW)
            agent[env, A_NOOPS_LEFT] = noops
        agent[env, A_REGAME] = 0
        while agent[env, A_NOOPS_LEFT] > 0:
            E.act(console, env, NOOP_ROW)
            agent[env, A_NOOPS_LEFT] -= 1
            if E.game_over(console, env, True):
                agent[env, A_REGAME] = 1          # reset_game again, then the remaining noops
                break
        if writing >= 0:
            RS.tail_end(console, table, env, writing, agent[env, A_REGAME] == 0)
        if agent[env, A_REGAME] == 0:
            break
    finish_reset(console, agent, cfg, screen, outputs, env, with_outputs)


@register_jitable
def play_step(console, agent, cfg, screen, env, row, skip, first_drawn, checked, replay_until,
              adopted):
    """The step's frames. Frames before `first_drawn` latch collisions but draw no pixels;
    `checked`: stop as soon as that may show (module doc). Frames before `replay_until` take
    their sticky outcome from bit i of `adopted` instead of the RNG. Returns (reward, life lost,
    game over, frames since the reset, lives, adopted, frames whose sticky draw is recorded,
    exact, newest, older); exact False: the step must be played again with every frame drawn;
    newest, older: where the observation's two screens are (SRC_*, `observe`)."""
    st = console.st
    max_frames = np.int32(cfg[C_MAX_FRAMES])
    episodic = cfg[C_EPISODIC] != 0
    maxpool = cfg[C_MAXPOOL] != 0
    # With every step at least two frames long, a raw[1] this step does not grab was already
    # pooled into raw[0] (raw[0] >= raw[1] after every pool) and changes nothing: the older
    # screen can stay in its buffer. A one-frame step pools with an old raw[1], so then raw[1]
    # is always grabbed.
    defer = cfg[C_SKIP_LO] >= 2
    newest = SRC_NONE
    older = SRC_RAW1 if maxpool and not defer else SRC_NONE
    reward = np.int32(0)
    life_lost = False
    over = False
    exact = True
    recorded = replay_until
    elapsed = np.int32(agent[env, A_ELAPSED])
    previous = np.int32(agent[env, A_LIVES])
    for i in range(skip):
        st[env, L.TIA_SKIP_DRAW] = 1 if i < first_drawn else 0
        if i < replay_until:
            adopt = ((adopted >> i) & 1) != 0
        else:
            adopt = E.sticky_adopts(console, env)
            if adopt:
                adopted |= np.int64(1) << i
            recorded = i + 1
        reward = np.int32(reward + E.act_adopting(console, env, row, adopt))
        elapsed = np.int32(elapsed + 1)
        if checked and st[env, L.TIA_FRAME_COMPLETE] == 0:
            exact = False
            break
        now = E.lives_of(console, env)
        if 0 < now < previous:
            life_lost = True
        previous = now
        over = E.game_over(console, env, True)
        if over or elapsed >= max_frames or (episodic and life_lost):
            if checked and i < skip - 1:
                exact = False
            break
        if i == skip - 2 and maxpool:
            if defer and st[env, L.TIA_PARTIAL_FRAME] == 0:
                # The last frame starts a new frame in the other buffer: this one stays as is.
                older = np.int32(st[env, L.TIA_BUFFER])
            else:
                grab(st, console.fb, screen.palette, screen.raw, cfg, env, 1)
                older = SRC_RAW1
        elif i == skip - 1:
            newest = np.int32(st[env, L.TIA_BUFFER])
    st[env, L.TIA_SKIP_DRAW] = 0
    return reward, life_lost, over, elapsed, previous, adopted, recorded, exact, newest, older


@register_jitable
def copy_console(source, target, env):
    """Console `env`'s state row, RAM and game-logic row from `source` into `target` (a
    structs.Console and the step's structs.Saved: the snapshot one way, its restore the
    other)."""
    st, ram, logic = source.st, source.ram, source.logic
    to_st, to_ram, to_logic = target.st, target.ram, target.logic
    for k in range(st.shape[1]):
        to_st[env, k] = st[env, k]
    for k in range(ram.shape[1]):
        to_ram[env, k] = ram[env, k]
    for k in range(logic.shape[1]):
        to_logic[env, k] = logic[env, k]


@register_jitable
def step_console(console, agent, cfg, action_rows, actions, screen, outputs, saved, env,
                 observe):
    """One agent step of console `env`; `observe`: make its observation too (else leave where
    its screens are in A_OBS_* for a later pass or launch)."""
    skip = frameskip(agent, cfg, env)
    agent[env, A_LAST_SKIP] = skip
    agent[env, A_STEPS] += 1
    row = np.int32(action_rows[actions[env]])
    if cfg[C_OBS] == OBS_RAM:
        first_drawn = skip if cfg[C_LAZY] != 0 else 0       # no screen is ever looked at
        checked = False
    else:
        # The last two frames, max-pool or not: they leave both buffers as ALE's.
        first_drawn = skip - 2
        checked = cfg[C_LAZY] != 0 and first_drawn >= 2 and skip <= MAX_LAZY_SKIP
        if not checked:
            first_drawn = 0
    if checked:
        copy_console(console, saved, env)
    replay_until = np.int32(0)
    adopted = np.int64(0)
    while True:          # at most twice; one call site keeps one copy of the console's frames
        (reward, life_lost, over, elapsed, previous, adopted, recorded, exact, newest,
         older) = play_step(console, agent, cfg, screen, env, row, skip, first_drawn, checked,
                            replay_until, adopted)
        if exact:
            break
        copy_console(saved, console, env)
        agent[env, A_REPLAYS] += 1
        first_drawn = np.int32(0)
        checked = False
        replay_until = np.int32(recorded)
    max_frames = np.int32(cfg[C_MAX_FRAMES])
    episodic = cfg[C_EPISODIC] != 0
    agent[env, A_ELAPSED] = elapsed
    agent[env, A_LIVES] = previous
    if observe:
        push(console.ram, console.fb, screen, cfg, env, newest, older)
    else:
        agent[env, A_OBS_NEWEST] = newest
        agent[env, A_OBS_OLDER] = older
    agent[env, A_OBS_DUE] = 1
    agent[env, A_EP_RETURN] += reward
    agent[env, A_EP_LENGTH] += 1
    if cfg[C_CLIP] != 0:
        reward = np.int32(1 if reward > 0 else (-1 if reward < 0 else 0))
    term = over or ((cfg[C_LIFE_INFO] != 0 or episodic) and life_lost)
    budget = elapsed >= max_frames
    outputs.rewards[env] = reward
    outputs.terminated[env] = term
    outputs.truncated[env] = budget and not term
    outputs.lives[env] = previous
    ended = over or budget or (episodic and life_lost)
    agent[env, A_NEEDS_RESET] = 1 if ended else 0
    agent[env, A_GAME_ENDED] = 1 if ended else 0
    if ended:
        agent[env, A_FINAL_RETURN] = agent[env, A_EP_RETURN]
        agent[env, A_FINAL_LENGTH] = agent[env, A_EP_LENGTH]


@register_jitable
def step_one(console, agent, cfg, action_rows, actions, screen, outputs, saved, env, observe):
    """One agent step for one console (`observe`: step_console's), or (next-step autoreset)
    nothing but marking the reset that agent_reset_* then runs (A_RESET_NOW)."""
    autoreset = cfg[C_AUTORESET]
    if autoreset == AUTORESET_NEXT and agent[env, A_NEEDS_RESET] != 0:
        agent[env, A_RESET_NOW] = 1
        agent[env, A_GAME_ENDED] = 0
        agent[env, A_OBS_DUE] = 0
        return
    step_console(console, agent, cfg, action_rows, actions, screen, outputs, saved, env,
                 observe)
    same = autoreset == AUTORESET_SAME and agent[env, A_GAME_ENDED] != 0
    agent[env, A_RESET_NOW] = 1 if same else 0


@register_jitable
def reset_one(op, console, tables, noop_mt, agent, cfg, screen, outputs, table, env):
    """OP_RESET: reset the console; OP_AUTORESET: reset it if the step marked it (a same-step
    reset keeps the step's outputs)."""
    if op == OP_AUTORESET:
        if agent[env, A_RESET_NOW] == 0:
            return
        with_outputs = cfg[C_AUTORESET] != AUTORESET_SAME
    else:
        with_outputs = True
    reset_console(console, tables, noop_mt, agent, cfg, screen, outputs, table, env,
                  with_outputs)
    if agent[env, A_RNG_SHORT] == 0:
        agent[env, A_RESET_NOW] = 0


# Two entries per target: the step (the console's frames and the observation) and the reset
# (ALE's reset_game with its mode selection, fire, noops). Kept apart so that neither carries the
# other's code: the reset is large, and on the GPU a console resetting in the step kernel would
# hold its whole warp for the reset's 70+ frames.

# nogil: AtariVectorEnv.send() runs the step on a worker thread while the caller computes.
@njit(nogil=True, cache=CACHE_ENABLED, _nrt=False, forceinline=True, error_model="numpy")
def agent_step_cpu(console, agent, cfg, action_rows, actions, screen, outputs, saved, mask,
                   counter):
    """One agent step on every console where `mask` is true that this thread claims from
    `counter` (cpu_workers: every thread of the launch runs this). `console`, `screen`,
    `outputs`, `saved`: kernels/structs.py; `agent`, `cfg`: A_* and C_*; `actions`: each
    console's action, an index into `action_rows` (ALE's rows of the action set)."""
    consoles = np.uint64(console.st.shape[0])
    in_step = observe_in_step(cfg)
    # With more than one thread, the observations (a few us a console, its frames tens of us)
    # are a second pass of claims: a thread out of consoles to step makes the others'
    # observations instead of idling until the last console's frames end. Each observation is
    # made by whichever of its console's stepper and its claimer comes second (hand_off).
    passes = np.uint64(2 if in_step and counter[1] > 1 else 1)
    observe = in_step and passes == 1
    while True:
        stage, env = claim_in_passes(counter, consoles, passes)
        if stage >= passes:
            break
        if stage == 0 and mask[env]:
            step_one(console, agent, cfg, action_rows, actions, screen, outputs, saved, env,
                     observe)
            if observe and agent[env, A_OBS_DUE] != 0:
                deliver(screen, outputs, env)
        if passes > 1 and hand_off(agent, env, A_OBS_HANDOFF, 1 + stage) and mask[env] \
                and agent[env, A_OBS_DUE] != 0:
            push(console.ram, console.fb, screen, cfg, env, np.int32(agent[env, A_OBS_NEWEST]),
                 np.int32(agent[env, A_OBS_OLDER]))
            deliver(screen, outputs, env)


@register_jitable
def observe_band(ram, fb, screen, cfg, agent, mask, lane):
    """Lane `lane` of agent_observe_*: console lane % consoles, band lane // consoles (so that
    a warp's lanes are neighbouring consoles on one band), if the step left it an
    observation."""
    consoles = np.int32(agent.shape[0])
    bands = np.int32(cfg[C_OBS_BANDS])
    env = np.int32(lane % consoles)
    band = np.int32(lane // consoles)
    if band < bands and mask[env] and agent[env, A_OBS_DUE] != 0:
        push_rows(ram, fb, screen, cfg, env, np.int32(agent[env, A_OBS_NEWEST]),
                  np.int32(agent[env, A_OBS_OLDER]), band, bands)


@njit(parallel=True, nogil=True, cache=CACHE_ENABLED, _nrt=False, error_model="numpy")
def agent_observe_cpu(ram, fb, screen, cfg, agent, mask):
    """The observations the last agent_step_cpu left (C_OBS_BANDS > 0), a band of rows per
    iteration: the GPU's structure on the CPU, which by default observes inside the step."""
    for index in prange(agent.shape[0] * np.int64(max(cfg[C_OBS_BANDS], 1))):
        lane = np.uint64(index)      # uint64 as in the parallel body: helpers compile once
        observe_band(ram, fb, screen, cfg, agent, mask, lane)


@njit(nogil=True, cache=CACHE_ENABLED, _nrt=False, forceinline=True, error_model="numpy")
def agent_reset_cpu(op, console, tables, noop_mt, agent, cfg, screen, outputs, table, mask,
                    counter):
    """OP_RESET or OP_AUTORESET on every console where `mask` is true; OP_FILL_TAILS: the
    reset table's direct tails due (mask unread; here, not a kernel of its own, so that the CPU
    compiles the console once for both). The consoles or tails this thread claims from
    `counter` (cpu_workers: every thread of the launch runs this). `tables`: reset_game's
    (structs.ResetTables); `noop_mt`: each console's noop-start generator; `table`: the
    reset_snapshot table (structs.ResetTable)."""
    fill = op == OP_FILL_TAILS
    fire = cfg[C_FIRE] != 0
    meta = table.meta
    per_origin = meta[RS.TABLE_DIRECT_FIRES] + 1
    items = np.uint64(meta[RS.TABLE_DIRECT_ORIGINS] * per_origin if fill else console.st.shape[0])
    while True:
        index = claim(counter, items)
        if index >= items:
            break
        if fill:
            RS.fill_direct_tail(console, table, index, fire, NOOP_ROW, FIRE_ROW)
        elif mask[index]:
            resets = op != OP_AUTORESET or agent[index, A_RESET_NOW] != 0
            reset_one(op, console, tables, noop_mt, agent, cfg, screen, outputs, table, index)
            if resets and agent[index, A_RNG_SHORT] == 0:
                deliver(screen, outputs, index)


def _agent_step_cuda(console, agent, cfg, action_rows, actions, screen, outputs, saved, mask):
    """agent_step_cpu for the GPU: one console a thread."""
    env = cuda.grid(1)
    if env < console.ram.shape[0] and mask[env]:
        step_one(console_at(console, env), agent, cfg, action_rows, actions,
                 screen_at(screen, env), outputs, saved, env, False)


agent_step_cuda = cuda.jit(cache=CACHE_ENABLED)(E.renamed(_agent_step_cuda, "agent_step_cuda"))


# The observations of the step just launched, C_OBS_BANDS threads a console (observe_band),
# on the same stream after it. In the step kernel the observation ran converged but at one warp
# a scheduler (16,384 consoles), ~0.3 of its instructions each ~6 cycles apart; here the bands
# give 12x the warps, of which its 144 registers let 3 a scheduler be resident at once.
@cuda.jit(cache=CACHE_ENABLED)
def agent_observe_cuda(ram, fb, screen, cfg, agent, mask):
    lane = cuda.grid(1)
    env = lane % agent.shape[0]                 # as observe_band numbers its lanes
    observe_band(ram, fb, screen_at(screen, env), cfg, agent, mask, lane)


# The same step compiled with at most STEP_REGISTER_CAP registers a thread (numba-cuda passes
# max_registers to nvJitLink as -maxrregcount). With 255 registers an SM holds 2 warps per
# scheduler, so 65,536 consoles (512 blocks of 128) take two waves; at 128 registers it holds 4
# and they take one. The price is spill code in the console's loop (tools/gpu_model.py static
# --kernels step128). Launched instead of agent_step_cuda when CULE_PY_GPU_STEP_REGISTERS=128
# (cule_py.batch.gpu_step_registers), until a GPU says which to keep (issue 27). The same body
# under its own name (E.renamed), not agent_step_cuda's under a second decorator: numba's cache
# keys a kernel by its Python function and signature, not its options, so the two would
# overwrite each other.
STEP_REGISTER_CAP = 128
# (numba's CUDA simulator, which runs the kernels in Python, takes no register cap)
_STEP_CAP = {} if simulator_enabled() else {"max_registers": STEP_REGISTER_CAP}
agent_step_cuda_capped = cuda.jit(cache=CACHE_ENABLED, **_STEP_CAP)(
    E.renamed(_agent_step_cuda, "agent_step_cuda_capped"))


# The same again at LEAN_STEP_REGISTER_CAP: 8 warps a scheduler, so that 131,072 consoles run in
# one wave of twice the warps the 128-register kernel holds; its console loop carries ~16% more
# SASS in spill code (tools/gpu_model.py static --kernels step64). The offline model's best
# configuration for that batch (predicted, not measured: benchmarks/RESULTS.md, "a 64-register
# step"); CULE_PY_GPU_STEP_REGISTERS=64.
LEAN_STEP_REGISTER_CAP = 64
_LEAN_CAP = {} if simulator_enabled() else {"max_registers": LEAN_STEP_REGISTER_CAP}
agent_step_cuda_lean = cuda.jit(cache=CACHE_ENABLED, **_LEAN_CAP)(
    E.renamed(_agent_step_cuda, "agent_step_cuda_lean"))


# The step kernel for each register budget (cule_py.batch.STEP_REGISTERS).
STEP_KERNELS = {255: agent_step_cuda, STEP_REGISTER_CAP: agent_step_cuda_capped,
                LEAN_STEP_REGISTER_CAP: agent_step_cuda_lean}


# The consoles a reset launch resets, packed into the first lanes (`lanes[:count[0]]`) before
# agent_reset_cuda runs. A launch over the batch with a mask left each resetting console alone in
# its warp (~80 of 16,384 at Breakout's rate, ~80 warps): each then issued its reset's frames for
# one lane, beside a step warp on the same scheduler. Packed, those resets run as a few full warps,
# whose lanes start from a System reset and mostly run the same code. The order of the lanes is
# the atomic's: a console's reset reads and writes only its own rows and the table's entries that
# existed before the launch (reset_snapshot), so it does not matter.
@cuda.jit(cache=CACHE_ENABLED)
def resetting_lanes_cuda(op, agent, mask, lanes, count):
    env = cuda.grid(1)
    if env < mask.shape[0] and mask[env] and (op != OP_AUTORESET or agent[env, A_RESET_NOW] != 0):
        lanes[cuda.atomic.add(count, 0, 1)] = env


@cuda.jit(cache=CACHE_ENABLED)
def agent_reset_cuda(op, console, tables, noop_mt, agent, cfg, screen, outputs, table, lanes,
                     count):
    """agent_reset_cpu's OP_RESET / OP_AUTORESET for the GPU: one console a lane, the consoles
    packed by resetting_lanes_cuda."""
    lane = cuda.grid(1)
    if lane < count[0]:
        env = lanes[lane]
        reset_one(op, console_at(console, env), tables, noop_mt, agent, cfg,
                  screen_at(screen, env), outputs, table, env)


# The direct tails' fill on the GPU: a kernel of its own, launched with one lane per (start
# entry, FIRE run) before each reset launch. In agent_reset_cuda its frames raised the kernel's
# spill stores from 2,090 to 2,714 B (sm_90a), on every reset's path.
@cuda.jit(cache=CACHE_ENABLED)
def fill_tails_cuda(console, cfg, table):
    lane = cuda.grid(1)
    RS.fill_direct_tail(console, table, lane, cfg[C_FIRE] != 0, NOOP_ROW, FIRE_ROW)
