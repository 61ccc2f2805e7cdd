"""A reset's 64 input-free frames taken from a table when they have been played before.

ALE's reset_game starts with System reset, 60 NOOP frames and the soft reset's 4 frames, none of
which read the agent's inputs. System reset keeps RAM and starts the RIOT timer at a random value,
so those frames could depend on the console's history; in practice the game's start-up code
clears RAM within two frames, and two frames in, a console is in one of very few states
(tools/reset_snapshot_study.py: two distinct states over 256 game-over resets of Breakout or
Pong). The emulator being a function of its state, the state at frame 64 is then known.

So each batch keeps a table of (state after frame SNAPSHOT_FRAME -> state after frame 64)
entries. A reset plays SNAPSHOT_FRAME frames, compares the whole console with each entry (state
row, RAM with the cartridge's, game-logic row, both frame buffers; not the two absolute counters
SYSTEM_RNG_POSITION and ENV_FRAME_NUMBER, which these frames leave alone, nor the sticky action,
which they do not read and the soft reset sets to NOOP), and on a match copies the entry's later
state in: exact by construction, 62 frames not played. On a miss it plays them.

The finish. reset_game then plays its finish: RomSettings reset, the mode selection (a soft
reset at least, Select presses until the RAM shows the mode), setMode, a soft reset, the
starting actions: 8 or more frames. Where the selection draws nothing from the environment RNG
(environment.select_mode says whether it did: no act, no Adventure press), the finish too is a
function of the console alone, and the writer stores the console after it as the entry's later
state, with the entry's flag set (after the tail's metadata); a hit on a flagged entry skips the
finish. Frames the finish counts (Select presses) advance the frame counter by the entry's own
difference. Where it draws (Berzerk's NOOP acts, Double Dunk's menu), entries stop at frame 64.

Filling the table without races, on the CPU's threads and the GPU's lanes alike: the host names
one writer per reset launch (TABLE_WRITER: of the consoles it resets, the one furthest along the
system-RNG table, whose timer draw is the newest), which alone may add an entry (at TABLE_FILLED, then counts it); the others read only the entries that existed when the
launch began (TABLE_USABLE, set by the host before each launch from TABLE_FILLED), so nobody reads
an entry while it is written. A full table stays as it is: a reset that matches nothing plays its
frames, as before.

The tail. After reset_game, AtariVectorEnv's reset acts: FIRE (games whose second action is FIRE)
and up to noop_max - 1 NOOP frames, each through the sticky-action draw, ~30 frames that a lone
lane plays after the table's copy (on an H200 they set Breakout's step, benchmarks/RESULTS.md,
session 21). They read no agent input either: the frames depend on the console and on which
action each frame's sticky draw makes effective. So the same arrays hold a second region,
entries from TABLE_TAIL_BASE on, of (console before the acts -> console after them) entries
keyed also by the number of acts and the effective action of each (bit i: FIRE). The draws are
peeked (mt19937.mt_peek), not drawn, before the lookup; a hit copies the later console in and
then draws them; a miss plays the acts as before, with the draws as they come, and its writer
stores the entry unless a game over among the noops sends the reset back to reset_game. The
start sticky action must be NOOP and the paddle strength unchanged by adoption (both always so
after reset_game), which makes the effective actions all that the draws decide.
Tail entries are claimed one at a time: by TABLE_WRITER on the CPU, by an atomic counter on the
GPU, where a launch resets many consoles at once and the table should fill within a few launches
(a claimed entry whose acts ended in a game over stays unmatched: its key is zero acts).
A tail entry also records its origin: the flagged start entry whose later state its writer held
(copied in, so equal in every field the tail compares). A console that took the same start entry
holds the same state, so an entry of its key and origin matches without the whole-console
compare (on the GPU one lane's compare of two frame buffers is ~80,000 strided loads).
"""

from __future__ import annotations

import numpy as np
from numba import cuda
from numba.extending import overload, register_jitable

from . import environment as E
from . import layout as L
from .mt19937 import mt_next, mt_peek

SNAPSHOT_FRAME = 2           # frames played before the table is looked at
SNAPSHOT_ENTRIES = 128        # the RIOT timer's 75 start values, and room for a few phases
TAIL_ENTRIES = 384           # ~30 act counts x the likely effective patterns x a few states
TABLE_USABLE = 0             # entries readable in this launch
TABLE_FILLED = 1             # entries written
TABLE_WRITER = 2             # the one console that may write an entry in this launch
TABLE_TAIL_BASE = 3          # the first tail entry (= the start region's capacity)
TABLE_TAIL_USABLE = 4        # tail entries readable in this launch (from the base)
TABLE_TAIL_FILLED = 5        # tail entries claimed (may pass the capacity on the GPU)
TABLE_FIELDS = 6             # then per tail entry: TAIL_ACTS, TAIL_FIRE_MASK, TAIL_ORIGIN
TAIL_ACTS, TAIL_FIRE_MASK, TAIL_ORIGIN, TAIL_META = 0, 1, 2, 3   # then per start entry: a flag
TAIL_MAX_ACTS = 31           # the effective actions as bits of one int32
KEY, LATER = 0, 1            # an entry's two states
ROW_BLOCK = 16               # frame-buffer bytes compared between two loop tests


@register_jitable
def _compared(field):
    return field != L.SYSTEM_RNG_POSITION and field != L.ENV_FRAME_NUMBER and \
        field != L.ENV_STICKY_ACTION


@register_jitable
def _tail_compared(field):
    """The tail's key: the sticky action too (its acts read it)."""
    return field != L.SYSTEM_RNG_POSITION and field != L.ENV_FRAME_NUMBER


@register_jitable
def _matches(ram, st, fb, logic, t_st, t_ram, t_logic, t_fb, entry, env, tail=False):
    for f in range(st.shape[1]):
        if (_tail_compared(f) if tail else _compared(f)) and st[env, f] != t_st[entry, KEY, f]:
            return False
    for i in range(logic.shape[1]):
        if logic[env, i] != t_logic[entry, KEY, i]:
            return False
    # The bytes a row at a time, their differences OR-ed and tested once a row: an exit after
    # every byte makes a GPU lane wait for each byte's load before it issues the next (~80,000
    # in turn for the frame buffers, the console's 16,384 bytes apart), while a row's loads
    # are independent and go out together; on the CPU the row loop vectorises.
    differ = np.int32(0)
    for i in range(ram.shape[1]):
        differ |= np.int32(ram[env, i]) ^ np.int32(t_ram[entry, KEY, i])
    if differ != 0:
        return False
    width = fb.shape[3]
    whole = width - width % ROW_BLOCK
    for b in range(fb.shape[1]):
        for y in range(fb.shape[2]):
            for x in range(0, whole, ROW_BLOCK):
                for k in range(ROW_BLOCK):         # (a constant count: unrolled)
                    differ |= np.int32(fb[env, b, y, x + k]) ^ \
                        np.int32(t_fb[entry, KEY, b, y, x + k])
            for x in range(whole, width):
                differ |= np.int32(fb[env, b, y, x]) ^ np.int32(t_fb[entry, KEY, b, y, x])
            if differ != 0:
                return False
    return True


@register_jitable
def _load_later(ram, st, fb, logic, t_st, t_ram, t_logic, t_fb, entry, env):
    for f in range(st.shape[1]):
        if f != L.SYSTEM_RNG_POSITION and f != L.ENV_FRAME_NUMBER:
            st[env, f] = t_st[entry, LATER, f]
    for i in range(ram.shape[1]):
        ram[env, i] = t_ram[entry, LATER, i]
    for i in range(logic.shape[1]):
        logic[env, i] = t_logic[entry, LATER, i]
    for b in range(fb.shape[1]):
        for y in range(fb.shape[2]):
            for x in range(fb.shape[3]):
                fb[env, b, y, x] = t_fb[entry, LATER, b, y, x]


@register_jitable
def _store(ram, st, fb, logic, t_st, t_ram, t_logic, t_fb, entry, part, env):
    for f in range(st.shape[1]):
        t_st[entry, part, f] = st[env, f]
    for i in range(ram.shape[1]):
        t_ram[entry, part, i] = ram[env, i]
    for i in range(logic.shape[1]):
        t_logic[entry, part, i] = logic[env, i]
    for b in range(fb.shape[1]):
        for y in range(fb.shape[2]):
            for x in range(fb.shape[3]):
                t_fb[entry, part, b, y, x] = fb[env, b, y, x]


@register_jitable
def _start_flag(table, t_st, entry):
    """The start entry's flag: 1 when its later state includes reset_game's finish."""
    return TABLE_FIELDS + TAIL_META * (t_st.shape[0] - table[TABLE_TAIL_BASE]) + entry


@register_jitable
def _frames_between(t_st, entry):
    """How far the entry's frames advance the frame counter (which no key compares)."""
    return t_st[entry, LATER, L.ENV_FRAME_NUMBER] - t_st[entry, KEY, L.ENV_FRAME_NUMBER]


@register_jitable
def reset_game(rom, scheme, ram, st, fb, logic, params, inputs, mt, threshold, rng, select,
               shown, starting, t_st, t_ram, t_logic, t_fb, table, env):
    """environment.reset_game with its input-free frames, and its finish where that drew nothing
    from the environment RNG, from the table where an entry matches. Returns (whether the
    frames came from the table, the origin: the entry whose later state the console now holds,
    finish included, or -1), the origin for tail_from_table."""
    E.reset_game_start(rom, scheme, ram, st, fb, params, rng, env)
    E.emulate(rom, scheme, ram, st, fb, logic, params, inputs, env, np.int32(E.ROW_NOOP),
              np.int32(SNAPSHOT_FRAME))
    hit = np.int32(-1)
    for entry in range(table[TABLE_USABLE]):
        if _matches(ram, st, fb, logic, t_st, t_ram, t_logic, t_fb, entry, env):
            hit = np.int32(entry)
            break
    writing = hit < 0 and table[TABLE_WRITER] == env and \
        table[TABLE_FILLED] < table[TABLE_TAIL_BASE]
    entry = table[TABLE_FILLED] if hit < 0 else hit
    if hit >= 0:
        frame_number = st[env, L.ENV_FRAME_NUMBER] + _frames_between(t_st, entry)
        _load_later(ram, st, fb, logic, t_st, t_ram, t_logic, t_fb, entry, env)
        st[env, L.ENV_FRAME_NUMBER] = frame_number
        if table[_start_flag(table, t_st, entry)] != 0:
            return True, hit
    else:
        if writing:
            _store(ram, st, fb, logic, t_st, t_ram, t_logic, t_fb, entry, KEY, env)
        E.emulate(rom, scheme, ram, st, fb, logic, params, inputs, env, np.int32(E.ROW_NOOP),
                  np.int32(E.RESET_NOOP_FRAMES - SNAPSHOT_FRAME))
        E.soft_reset(rom, scheme, ram, st, fb, logic, params, inputs, env)
        if writing:
            _store(ram, st, fb, logic, t_st, t_ram, t_logic, t_fb, entry, LATER, env)
    # (one site for the finish: each copy of it inlines the mode selection's acts)
    drew = E.reset_game_finish(rom, scheme, ram, st, fb, logic, params, inputs, mt, threshold,
                               select, shown, starting, env)
    if writing:
        if not drew:
            # The finish read nothing but the console: the same console always ends it the same
            # way, so the entry may hold its end instead.
            _store(ram, st, fb, logic, t_st, t_ram, t_logic, t_fb, entry, LATER, env)
            table[_start_flag(table, t_st, entry)] = 1
        table[TABLE_FILLED] = entry + 1
        if not drew:
            return False, np.int32(entry)
    return hit >= 0, np.int32(-1)


@register_jitable
def _meta(table, entry):
    return TABLE_FIELDS + TAIL_META * (entry - table[TABLE_TAIL_BASE])


@register_jitable
def tail_key(st, mt, threshold, env, fire, acts, noop_row):
    """The effective actions of the reset's `acts` acts (FIRE first when `fire`, then NOOP), from
    the sticky draws they will make (peeked; player A's is the first of each act's two): bit i
    set when act i plays FIRE. -1 where the tail cannot come from the table."""
    if acts < 1 or acts > TAIL_MAX_ACTS or st[env, L.ENV_STICKY_ACTION] != noop_row or \
            st[env, L.ENV_PADDLE_DELTA] != st[env, L.ENV_PADDLE_REQUEST]:
        return np.int32(-1)
    effective_fire = False
    mask = np.int32(0)
    for i in range(acts):
        x = mt_peek(mt, env, 2 * i)
        if x < 0:
            return np.int32(-1)
        if x >= threshold:                      # adopted: FIRE on the first act, then NOOP
            effective_fire = fire and i == 0
        if effective_fire:
            mask |= np.int32(1) << i
    return mask


@register_jitable
def tail_from_table(ram, st, fb, logic, mt, t_st, t_ram, t_logic, t_fb, table, env, acts, mask,
                    origin):
    """The acts of key (acts, mask) from the table, the console matching the entry's: copied in,
    the frame counter advanced as they advance it, the sticky draws drawn. `origin`: the start
    entry whose later state the console holds (reset_game), or -1; an entry written by a console
    from the same one matches without a compare. Returns 0 on a miss, 1 on a hit by compare,
    2 on a hit by origin."""
    base = table[TABLE_TAIL_BASE]
    for entry in range(base, base + table[TABLE_TAIL_USABLE]):
        m = _meta(table, entry)
        if table[m + TAIL_ACTS] != acts or table[m + TAIL_FIRE_MASK] != mask:
            continue
        by_origin = origin >= 0 and table[m + TAIL_ORIGIN] == origin
        if by_origin or _matches(ram, st, fb, logic, t_st, t_ram, t_logic, t_fb, entry, env,
                                 True):
            frame_number = st[env, L.ENV_FRAME_NUMBER] + _frames_between(t_st, entry)
            _load_later(ram, st, fb, logic, t_st, t_ram, t_logic, t_fb, entry, env)
            st[env, L.ENV_FRAME_NUMBER] = frame_number
            for _ in range(2 * acts):
                mt_next(mt, env)
            return np.int32(2 if by_origin else 1)
    return np.int32(0)


@register_jitable
def claim_tail_entry(table, capacity, env):
    """A tail entry for this console to write, or -1 (CPU: the launch's writer only)."""
    if table[TABLE_WRITER] != env or table[TABLE_TAIL_FILLED] >= capacity:
        return np.int32(-1)
    entry = table[TABLE_TAIL_FILLED]
    table[TABLE_TAIL_FILLED] = entry + 1
    return np.int32(entry)


@overload(claim_tail_entry, target="cuda")
def _claim_tail_entry_cuda(table, capacity, env):
    def claim(table, capacity, env):
        # Every lane that misses may write: a launch resets many consoles, and one writer per
        # launch would take hundreds of steps to fill the tail.
        entry = cuda.atomic.add(table, TABLE_TAIL_FILLED, 1)
        return np.int32(entry) if entry < capacity else np.int32(-1)
    return claim


@register_jitable
def tail_begin(ram, st, fb, logic, t_st, t_ram, t_logic, t_fb, table, env, acts, mask, origin):
    """After a miss: claim an entry unless this launch already claimed one for the same key
    (then it likely holds the same console), store the console before the acts and its
    `origin` (tail_from_table). Returns the entry or -1."""
    base = table[TABLE_TAIL_BASE]
    capacity = np.int32(t_st.shape[0] - base)
    for entry in range(base + table[TABLE_TAIL_USABLE],
                       base + min(table[TABLE_TAIL_FILLED], capacity)):
        m = _meta(table, entry)
        if table[m + TAIL_ACTS] == acts and table[m + TAIL_FIRE_MASK] == mask:
            return np.int32(-1)
    claimed = claim_tail_entry(table, capacity, env)
    if claimed < 0:
        return np.int32(-1)
    entry = base + claimed
    _store(ram, st, fb, logic, t_st, t_ram, t_logic, t_fb, entry, KEY, env)
    m = _meta(table, entry)
    table[m + TAIL_FIRE_MASK] = mask
    table[m + TAIL_ORIGIN] = origin
    table[m + TAIL_ACTS] = acts
    return np.int32(entry)


@register_jitable
def tail_end(ram, st, fb, logic, t_st, t_ram, t_logic, t_fb, table, env, entry, complete):
    """The console after the acts into `entry`; `complete` False (a game over among the noops
    sent the reset back to reset_game): the entry is voided instead."""
    if complete:
        _store(ram, st, fb, logic, t_st, t_ram, t_logic, t_fb, entry, LATER, env)
    else:
        table[_meta(table, entry) + TAIL_ACTS] = 0


def empty_table(state_fields: int, ram_bytes: int, logic_fields: int, logic_dtype,
                frame_buffer_shape: tuple, xp=np, entries: int = SNAPSHOT_ENTRIES,
                tail_entries: int = TAIL_ENTRIES) -> tuple:
    """(t_st, t_ram, t_logic, t_fb, table) of an empty table of `entries` start entries and
    `tail_entries` tail entries, allocated with `xp`."""
    rows = entries + tail_entries
    table = np.zeros(TABLE_FIELDS + TAIL_META * tail_entries + entries, np.int32)
    table[TABLE_TAIL_BASE] = entries
    return (xp.zeros((rows, 2, state_fields), np.int32),
            xp.zeros((rows, 2, ram_bytes), np.uint8),
            xp.zeros((rows, 2, logic_fields), logic_dtype),
            xp.zeros((rows, 2) + tuple(frame_buffer_shape), np.uint8),
            xp.asarray(table))


def open_launch(t_st, table, mask, position, xp) -> None:
    """Before a reset launch (on the launch's stream): the entries written so far become
    readable, and the writer is named: of the consoles in `mask`, the one furthest along the
    system-RNG table (`position`), whose timer draw is the newest, so the likeliest to be missing
    from the start region (consoles behind it meet draws the table has seen)."""
    table[TABLE_USABLE] = table[TABLE_FILLED]
    table[TABLE_TAIL_USABLE] = xp.minimum(table[TABLE_TAIL_FILLED],
                                          t_st.shape[0] - table[TABLE_TAIL_BASE])
    table[TABLE_WRITER] = xp.argmax(xp.where(mask, position, -1))
