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

Filling the table without races: one writer per reset launch (TABLE_WRITER) alone may add a
start entry (at TABLE_FILLED, then counts it); the others read only the entries that existed
when the launch began (TABLE_USABLE, set by the host before each launch from TABLE_FILLED), so
nobody reads an entry while it is written. On the CPU the host names the writer: of the
consoles it resets, the one furthest along the system-RNG table, whose timer draw is the
newest. On the GPU the first lane that misses claims it (claim_start_writer, an atomic
compare-and-swap), so that a launch with a miss stores that miss: there a miss holds the whole
launch for its 70+ frames. A full table stays as it is: a reset that matches nothing plays its
frames, as before.

The tail. After reset_game, AtariVectorEnv's reset acts: FIRE (games whose second action is FIRE)
and up to noop_max - 1 NOOP frames, each through the sticky-action draw, ~30 frames that a lone
lane plays after the table's copy (on an H200 they set Breakout's step, benchmarks/RESULTS.md,
2026-11-27). They read no agent input either: the frames depend on the console and on which
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

Direct tails. Filled by the resets that miss, the tail region keeps missing the rarer keys (a
key is the act count, 1-30, times the leading FIRE run, times the origin): Breakout on the CPU,
128 consoles, missed 2.8% of tails after 2,000 steps. A GPU launch resetting ~80 consoles waits
for its slowest lane, which then plays up to 31 acts alone: on an H200 the reset launch took
96-99% of Breakout's, Space Invaders' and Seaquest's step (benchmarks/RESULTS.md, 2026-11-27;
the run counted no table hits, so the misses are inferred). A tail from a flagged start entry
is a function of the entry and of its key alone, so every key of the first DIRECT_ORIGINS
entries with a FIRE run up to DIRECT_FIRES is played ahead, all at once, one lane
per (entry, run) playing as many acts as a reset of the env can (TABLE_DIRECT_ACTS: 29 with
noop_max 30, at most TAIL_MAX_ACTS) and keeping the console after each in a row of its
own (fill_direct_tail: on the CPU the reset kernel's OP_FILL_TAILS, on the GPU fill_tails_cuda,
launched before every reset launch and idle once done). A reset from such an entry finds its
tail by index, with no compare, and misses only a FIRE run longer than DIRECT_FIRES (1e-5 of
resets at sticky 0.25). The table's rows are consoles: an entry's states are rows 2e and 2e + 1,
a direct tail one row after them, of arrays shaped (and on the GPU laid out) like the batch's,
so the fill plays frames in them through the console's own compiled code.
"""

from __future__ import annotations

import numpy as np
from numba import cuda, njit
from numba.extending import overload, register_jitable

from . import environment as E
from ..._jit_cache import CACHE_ENABLED
from .. import layout as L
from .mt19937 import mt_next, mt_peek
from ..structs import Console, ResetTable

SNAPSHOT_FRAME = 2           # frames played before the table is looked at
SNAPSHOT_ENTRIES = 128        # the RIOT timer's 75 start values, and room for a few phases
TAIL_ENTRIES = 384           # ~30 act counts x the likely effective patterns x a few states
TABLE_USABLE = 0             # entries readable in this launch
TABLE_FILLED = 1             # entries written
TABLE_WRITER = 2             # the one console that may write an entry in this launch
TABLE_TAIL_BASE = 3          # the first tail entry (= the start region's capacity)
TABLE_TAIL_USABLE = 4        # tail entries readable in this launch (from the base)
TABLE_TAIL_FILLED = 5        # tail entries claimed (may pass the capacity on the GPU)
TABLE_DIRECT_BASE = 6        # the direct tails' first row (after the tail's entries)
TABLE_DIRECT_ORIGINS = 7     # start entries whose tails are played ahead (the first ones)
TABLE_DIRECT_FIRES = 8       # of those tails, the longest leading FIRE run played ahead
TABLE_DIRECT_ACTS = 9        # the most acts a direct tail plays (of TAIL_MAX_ACTS rows)
TABLE_FIELDS = 10            # then per tail entry: TAIL_ACTS, TAIL_FIRE_MASK, TAIL_ORIGIN
TAIL_ACTS, TAIL_FIRE_MASK, TAIL_ORIGIN, TAIL_META = 0, 1, 2, 3   # then per start entry: a flag
TAIL_MAX_ACTS = 31           # the effective actions as bits of one int32
DIRECT_ORIGINS = 6           # Breakout, Pong 2 start entries, Seaquest 5 (reset_snapshot_study)
DIRECT_FIRES = 8             # a longer run: p 0.75 * 0.25**8 = 1e-5 a reset at sticky 0.25
# The CPU's: a longer run (p 0.75 * 0.25**2 = 5% of resets at sticky 0.25) takes the tail region,
# where a miss plays its acts on its own thread, at the cost a reset pays without the table. The
# fill plays (fires + 1) x ~29 frames a start entry: with 8, a Seaquest start entry's fill took
# ~20% of a 100-step window of 16 consoles on one thread, long after the warm-up.
DIRECT_FIRES_CPU = 2
KEY, LATER = 0, 1            # an entry's two states: rows 2 * entry + KEY, 2 * entry + LATER
                             # (a direct tail is one row: the console after its acts)
ROW_BLOCK = 4                # frame-buffer words (8 pixels each) compared between two loop tests


@register_jitable
def _compared(field):
    return field != L.SYSTEM_RNG_POSITION and field != L.ENV_FRAME_NUMBER and \
        field != L.ENV_STICKY_ACTION


@register_jitable
def _tail_compared(field):
    """The tail's key: the sticky action too (its acts read it)."""
    return field != L.SYSTEM_RNG_POSITION and field != L.ENV_FRAME_NUMBER


@register_jitable
def _matches(console, table, entry, env, tail=False):
    """Whether console `env` equals entry `entry`'s key state (`tail`: the tail's key)."""
    ram, st, fb, logic = console.ram, console.st, console.fb, console.logic
    key = 2 * entry + KEY
    t_st, t_ram, t_logic, t_fb = table.st, table.ram, table.logic, table.fb
    for f in range(st.shape[1]):
        if (_tail_compared(f) if tail else _compared(f)) and st[env, f] != t_st[key, f]:
            return False
    for i in range(logic.shape[1]):
        if logic[env, i] != t_logic[key, i]:
            return False
    # A row at a time, the differences OR-ed and tested once a row: an exit after every element
    # makes a GPU lane wait for each load before it issues the next (~80,000 in turn for the
    # frame buffers when they were bytes, the console's bytes 16,384 apart), while a row's
    # loads are independent and go out together; on the CPU the row loop vectorises.
    differ = np.int32(0)
    for i in range(ram.shape[1]):
        differ |= np.int32(ram[env, i]) ^ np.int32(t_ram[key, i])
    if differ != 0:
        return False
    width = fb.shape[3]
    whole = width - width % ROW_BLOCK
    words = np.uint64(0)
    for b in range(fb.shape[1]):
        for y in range(fb.shape[2]):
            for x in range(0, whole, ROW_BLOCK):
                for k in range(ROW_BLOCK):         # (a constant count: unrolled)
                    words |= fb[env, b, y, x + k] ^ t_fb[key, b, y, x + k]
            for x in range(whole, width):
                words |= fb[env, b, y, x] ^ t_fb[key, b, y, x]
            if words != 0:
                return False
    return True


@register_jitable
def _copy_console(source, src, target, dst, counters):
    """Row `src` of `source` into row `dst` of `target` (each a structs.Console or a
    ResetTable: their rows are consoles); `counters` False leaves dst's SYSTEM_RNG_POSITION and
    ENV_FRAME_NUMBER as they are (a console taking an entry's later state keeps its own)."""
    st, ram, logic, fb = source.st, source.ram, source.logic, source.fb
    to_st, to_ram, to_logic, to_fb = target.st, target.ram, target.logic, target.fb
    for f in range(st.shape[1]):
        if counters or (f != L.SYSTEM_RNG_POSITION and f != L.ENV_FRAME_NUMBER):
            to_st[dst, f] = st[src, f]
    for i in range(ram.shape[1]):
        to_ram[dst, i] = ram[src, i]
    for i in range(logic.shape[1]):
        to_logic[dst, i] = logic[src, i]
    for b in range(fb.shape[1]):
        for y in range(fb.shape[2]):
            for x in range(fb.shape[3]):
                to_fb[dst, b, y, x] = fb[src, b, y, x]


@register_jitable
def _load_later(console, table, entry, env):
    _copy_console(table, 2 * entry + LATER, console, env, False)


@register_jitable
def _store(console, table, entry, part, env):
    _copy_console(console, env, table, 2 * entry + part, True)


@register_jitable
def _start_flag(meta, entry):
    """The start entry's flag: 1 when its later state includes reset_game's finish."""
    return TABLE_FIELDS + TAIL_META * _tail_capacity(meta) + entry


@register_jitable
def _tail_capacity(meta):
    """Entries the tail region holds (from TABLE_TAIL_BASE up to the direct rows)."""
    return meta[TABLE_DIRECT_BASE] // 2 - meta[TABLE_TAIL_BASE]


@register_jitable
def _frames_between(table, entry):
    """How far the entry's frames advance the frame counter (which no key compares)."""
    t_st = table.st
    return t_st[2 * entry + LATER, L.ENV_FRAME_NUMBER] - t_st[2 * entry + KEY, L.ENV_FRAME_NUMBER]


@register_jitable
def claim_start_writer(meta, env):
    """Whether this console, which missed the start region, writes the launch's new start
    entry (CPU: the writer the host named; with none named, -1, the first console that misses,
    which is race-free only in a launch on one thread: benchmarks/reset_launches.py measures
    the GPU's rule that way)."""
    if meta[TABLE_WRITER] == -1:
        meta[TABLE_WRITER] = env
    return meta[TABLE_WRITER] == env


@overload(claim_start_writer, target="cuda")
def _claim_start_writer_cuda(meta, env):
    def claim(meta, env):
        # The first lane that misses writes (open_launch leaves the writer at -1 on the GPU).
        # A named writer stored the missing state only when the one console it named missed:
        # measured on the CPU (Seaquest, 4,096 consoles, 500 steps after 300), 4 of 3,467
        # resets still missed, and each launch with a miss waits for a lone lane's 70+ frames.
        # Only one a launch: lanes missing together would mostly store the same state.
        return cuda.atomic.cas(meta, TABLE_WRITER, -1, env) == -1
    return claim


@register_jitable
def reset_game(console, tables, table, env):
    """environment.reset_game with its input-free frames, and its finish where that drew nothing
    from the environment RNG, from the table where an entry matches. Returns (whether the
    frames came from the table, the origin: the entry whose later state the console now holds,
    finish included, or -1), the origin for tail_from_table."""
    st, meta = console.st, table.meta
    E.reset_game_start(console, tables.rng, env)
    E.emulate(console, env, E.ROW_NOOP, SNAPSHOT_FRAME)
    hit = np.int32(-1)
    for entry in range(meta[TABLE_USABLE]):
        if _matches(console, table, entry, env):
            hit = np.int32(entry)
            break
    writing = hit < 0 and meta[TABLE_FILLED] < meta[TABLE_TAIL_BASE] and \
        claim_start_writer(meta, env)
    entry = meta[TABLE_FILLED] if hit < 0 else hit
    if hit >= 0:
        frame_number = st[env, L.ENV_FRAME_NUMBER] + _frames_between(table, entry)
        _load_later(console, table, entry, env)
        st[env, L.ENV_FRAME_NUMBER] = frame_number
        if meta[_start_flag(meta, entry)] != 0:
            return True, hit
    else:
        if writing:
            _store(console, table, entry, KEY, env)
        E.emulate(console, env, E.ROW_NOOP, E.RESET_NOOP_FRAMES - SNAPSHOT_FRAME)
        E.soft_reset(console, env)
        if writing:
            _store(console, table, entry, LATER, env)
    # (one site for the finish: each copy of it inlines the mode selection's acts)
    drew = E.reset_game_finish(console, tables, env)
    if writing:
        if not drew:
            # The finish read nothing but the console: the same console always ends it the same
            # way, so the entry may hold its end instead.
            _store(console, table, entry, LATER, env)
            meta[_start_flag(meta, entry)] = 1
        meta[TABLE_FILLED] = entry + 1
        if not drew:
            return False, np.int32(entry)
    return hit >= 0, np.int32(-1)


@register_jitable
def _meta(meta, entry):
    return TABLE_FIELDS + TAIL_META * (entry - meta[TABLE_TAIL_BASE])


@register_jitable
def _direct_status(meta, origin, fires):
    """Where the direct tail of (start entry `origin`, leading FIRE run `fires`) says how far it
    is played: 0 not yet, else 1 + the acts whose rows hold a console (a game over stops)."""
    return _start_flag(meta, meta[TABLE_TAIL_BASE]) + \
        origin * (meta[TABLE_DIRECT_FIRES] + 1) + fires


@register_jitable
def _direct_row(meta, origin, fires, acts):
    return meta[TABLE_DIRECT_BASE] + \
        (origin * (meta[TABLE_DIRECT_FIRES] + 1) + fires) * TAIL_MAX_ACTS + acts - 1


@register_jitable
def _leading_ones(mask):
    n = np.int32(0)
    while (mask >> n) & 1:
        n += 1
    return n


@register_jitable
def _direct(meta, origin, mask):
    """Whether (origin, mask) belongs to the direct region (filled or about to be)."""
    return 0 <= origin < meta[TABLE_DIRECT_ORIGINS] and \
        _leading_ones(mask) <= meta[TABLE_DIRECT_FIRES]


@register_jitable
def tail_key(console, env, fire, acts, noop_row):
    """The effective actions of the reset's `acts` acts (FIRE first when `fire`, then NOOP), from
    the sticky draws they will make (peeked; player A's is the first of each act's two): bit i
    set when act i plays FIRE, so a run of leading ones. -1 where the tail cannot come from the
    table."""
    st = console.st
    if acts < 1 or acts > TAIL_MAX_ACTS or st[env, L.ENV_STICKY_ACTION] != noop_row or \
            st[env, L.ENV_PADDLE_DELTA] != st[env, L.ENV_PADDLE_REQUEST]:
        return np.int32(-1)
    effective_fire = False
    mask = np.int32(0)
    for i in range(acts):
        x = mt_peek(console.mt, env, 2 * i)
        if x < 0:
            return np.int32(-1)
        if x >= console.threshold:             # adopted: FIRE on the first act, then NOOP
            effective_fire = fire and i == 0
        if effective_fire:
            mask |= np.int32(1) << i
    return mask


@register_jitable
def _take(console, table, row, frames, env, acts):
    """The console of table row `row`, `frames` frames on: copied in, the frame counter
    advanced, the acts' sticky draws drawn."""
    st = console.st
    frame_number = st[env, L.ENV_FRAME_NUMBER] + frames
    _copy_console(table, row, console, env, False)
    st[env, L.ENV_FRAME_NUMBER] = frame_number
    for _ in range(2 * acts):
        mt_next(console.mt, env)


@register_jitable
def tail_from_table(console, table, env, acts, mask, origin):
    """The acts of key (acts, mask) from the table, the console matching the entry's: copied in,
    the frame counter advanced as they advance it, the sticky draws drawn. `origin`: the start
    entry whose later state the console holds (reset_game), or -1; its direct tail, or an entry
    written by a console from the same one, matches without a compare. Returns 0 on a miss, 1 on
    a hit by compare, 2 on a hit by origin, 3 on a hit in the direct region."""
    meta = table.meta
    if _direct(meta, origin, mask):
        fires = _leading_ones(mask)
        if meta[_direct_status(meta, origin, fires)] > acts:
            # (an act is one frame: a tail with a game over in it is not stored)
            _take(console, table, _direct_row(meta, origin, fires, acts), acts, env, acts)
            return np.int32(3)
    base = meta[TABLE_TAIL_BASE]
    for entry in range(base, base + meta[TABLE_TAIL_USABLE]):
        m = _meta(meta, entry)
        if meta[m + TAIL_ACTS] != acts or meta[m + TAIL_FIRE_MASK] != mask:
            continue
        by_origin = origin >= 0 and meta[m + TAIL_ORIGIN] == origin
        if by_origin or _matches(console, table, entry, env, True):
            _take(console, table, 2 * entry + LATER, _frames_between(table, entry), env, acts)
            return np.int32(2 if by_origin else 1)
    return np.int32(0)


@register_jitable
def claim_tail_entry(meta, capacity, env):
    """A tail entry for this console to write, or -1 (CPU: the launch's writer only)."""
    if meta[TABLE_WRITER] != env or meta[TABLE_TAIL_FILLED] >= capacity:
        return np.int32(-1)
    entry = meta[TABLE_TAIL_FILLED]
    meta[TABLE_TAIL_FILLED] = entry + 1
    return np.int32(entry)


@overload(claim_tail_entry, target="cuda")
def _claim_tail_entry_cuda(meta, capacity, env):
    def claim(meta, capacity, env):
        # Every lane that misses may write: a launch resets many consoles, and one writer per
        # launch would take hundreds of steps to fill the tail.
        entry = cuda.atomic.add(meta, TABLE_TAIL_FILLED, 1)
        return np.int32(entry) if entry < capacity else np.int32(-1)
    return claim


@register_jitable
def tail_begin(console, table, env, acts, mask, origin):
    """After a miss: claim an entry unless this launch already claimed one for the same key
    (then it likely holds the same console) or the key's direct tail is due before the next
    launch, store the console before the acts and its `origin` (tail_from_table). Returns the
    entry or -1."""
    meta = table.meta
    if _direct(meta, origin, mask):
        return np.int32(-1)
    base = meta[TABLE_TAIL_BASE]
    capacity = np.int32(_tail_capacity(meta))
    for entry in range(base + meta[TABLE_TAIL_USABLE],
                       base + min(meta[TABLE_TAIL_FILLED], capacity)):
        m = _meta(meta, entry)
        if meta[m + TAIL_ACTS] == acts and meta[m + TAIL_FIRE_MASK] == mask:
            return np.int32(-1)
    claimed = claim_tail_entry(meta, capacity, env)
    if claimed < 0:
        return np.int32(-1)
    entry = base + claimed
    _store(console, table, entry, KEY, env)
    m = _meta(meta, entry)
    meta[m + TAIL_FIRE_MASK] = mask
    meta[m + TAIL_ORIGIN] = origin
    meta[m + TAIL_ACTS] = acts
    return np.int32(entry)


@register_jitable
def tail_end(console, table, env, entry, complete):
    """The console after the acts into `entry`; `complete` False (a game over among the noops
    sent the reset back to reset_game): the entry is voided instead."""
    if complete:
        _store(console, table, entry, LATER, env)
    else:
        table.meta[_meta(table.meta, entry) + TAIL_ACTS] = 0


@register_jitable
def _direct_tail_due(meta, origin, fires):
    """Whether the fill of the direct tail of (`origin`, `fires`) has anything to do in this
    launch: its start entry is readable and flagged (the flag is final once the entry is
    readable), and the tail is not yet played."""
    if origin >= meta[TABLE_DIRECT_ORIGINS] or origin >= meta[TABLE_USABLE]:
        return False
    return meta[_direct_status(meta, origin, fires)] == 0 and \
        meta[_start_flag(meta, origin)] != 0


@njit(nogil=True, cache=CACHE_ENABLED, _nrt=False, error_model="numpy")
def direct_tails_due(meta):
    """How many lanes of the direct region's fill have anything to do in the launch that
    open_launch has just opened: the host launches the fill on the CPU only then, on as many
    threads (most launches find none)."""
    due = 0
    for origin in range(meta[TABLE_DIRECT_ORIGINS]):
        for fires in range(meta[TABLE_DIRECT_FIRES] + 1):
            if _direct_tail_due(meta, origin, fires):
                due += 1
    return due


@register_jitable
def fill_direct_tail(console, table, lane, fire, noop_row, fire_row):
    """One lane of the direct region's fill: the tails of start entry `origin` whose effective
    actions are `fires` FIREs then NOOPs, after 1 to TABLE_DIRECT_ACTS acts (the most a reset
    of the env plays), each in its own row.
    Played from the entry's later state with the sticky outcomes that give those effective
    actions (act_adopting; the draws themselves are drawn by the console taking the entry), in
    the table's own rows, which are consoles like any other (`console`: the batch's, for its
    cartridge and game tables). Does nothing unless the start entry is readable and flagged
    (its later state ends reset_game) and the tail not yet played."""
    meta, t_st = table.meta, table.st
    per_origin = meta[TABLE_DIRECT_FIRES] + 1
    origin, fires = lane // per_origin, lane % per_origin
    if not _direct_tail_due(meta, origin, fires):
        return
    status = _direct_status(meta, origin, fires)
    source = 2 * origin + LATER
    if (fires > 0 and not fire) or t_st[source, L.ENV_STICKY_ACTION] != noop_row or \
            t_st[source, L.ENV_PADDLE_DELTA] != t_st[source, L.ENV_PADDLE_REQUEST]:
        meta[status] = 1                    # (tail_key gives no such key)
        return
    rows = Console(console.rom, console.scheme, table.ram, t_st, table.fb, table.logic,
                   console.params, console.inputs, console.mt, console.threshold)
    played = np.int32(0)
    # (the bound read from the table at each test, not held across the frames: a register
    # more spilled in fill_tails_cuda)
    acts = np.int32(1)
    while acts <= meta[TABLE_DIRECT_ACTS]:
        row = _direct_row(meta, origin, fires, acts)
        _copy_console(table, source, table, row, True)
        i = acts - 1
        first = fire and i == 0
        # Effective FIRE on acts 0..fires-1: the first act adopts FIRE, the next keep it (not
        # adopted), then NOOP is adopted. fires 0 with fire: the first act keeps the NOOP.
        keep = (first and fires == 0) or 1 <= i < fires
        E.act_adopting(rows, row, np.int32(fire_row if first else noop_row), not keep)
        if E.game_over(rows, row, True):
            break                           # (the reset goes back to reset_game: not stored)
        played = np.int32(acts)
        source = row
        acts += 1
    meta[status] = played + 1


def empty_table(state_fields: int, ram_bytes: int, logic_fields: int, logic_dtype,
                frame_buffer_shape: tuple, xp=np, entries: int = SNAPSHOT_ENTRIES,
                tail_entries: int = TAIL_ENTRIES, direct_origins: int | None = None,
                direct_fires: int = DIRECT_FIRES, direct_acts: int = TAIL_MAX_ACTS,
                zeros=None) -> ResetTable:
    """The structs.ResetTable of an empty table of `entries` start entries,
    `tail_entries` tail entries and the direct tails of the first `direct_origins` start
    entries (default: DIRECT_ORIGINS, at most `entries`) after up to `direct_acts` acts (the
    most a reset of the env plays: agent_step.most_tail_acts), allocated with `xp`. Entry e's two
    states are rows 2e (KEY) and 2e + 1 (LATER) of the first four, each direct tail one row
    after them (a console after its acts). The rows are shaped like the consoles' arrays and
    allocated by `zeros(shape, dtype)` (the batch's: on the GPU field-major, as the consoles'
    arrays, so that the kernels see one array type and the table's rows run frames through the
    same compiled code as consoles)."""
    zeros = zeros or xp.zeros
    if direct_origins is None:
        direct_origins = min(DIRECT_ORIGINS, entries)
    direct = direct_origins * (direct_fires + 1) * TAIL_MAX_ACTS
    rows = 2 * (entries + tail_entries) + direct
    table = np.zeros(TABLE_FIELDS + TAIL_META * tail_entries + entries
                     + direct_origins * (direct_fires + 1), np.int32)
    table[TABLE_TAIL_BASE] = entries
    table[TABLE_DIRECT_BASE] = 2 * (entries + tail_entries)
    table[TABLE_DIRECT_ORIGINS] = direct_origins
    table[TABLE_DIRECT_FIRES] = direct_fires
    table[TABLE_DIRECT_ACTS] = min(direct_acts, TAIL_MAX_ACTS)
    return ResetTable(st=zeros((rows, state_fields), np.int32),
                      ram=zeros((rows, ram_bytes), np.uint8),
                      logic=zeros((rows, logic_fields), logic_dtype),
                      fb=zeros((rows,) + tuple(frame_buffer_shape), L.FRAME_BUFFER_DTYPE),
                      meta=xp.asarray(table))


def direct_lanes(meta) -> int:
    """Lanes of the direct region's fill (fill_direct_tail): one per (origin, FIRE run), from
    the table's `meta` counters."""
    return int(meta[TABLE_DIRECT_ORIGINS]) * (int(meta[TABLE_DIRECT_FIRES]) + 1)


def open_launch(table: ResetTable, mask, position, xp, first_miss_writes: bool = False) -> None:
    """Before a reset launch (on the launch's stream): the entries written so far become
    readable, and the writer is named: of the consoles in `mask`, the one furthest along the
    system-RNG table (`position`), whose timer draw is the newest, so the likeliest to be missing
    from the start region (consoles behind it meet draws the table has seen). With
    `first_miss_writes` (the GPU) nobody is named: the first lane that misses claims the
    entry (claim_start_writer)."""
    meta = table.meta
    meta[TABLE_USABLE] = meta[TABLE_FILLED]
    meta[TABLE_TAIL_USABLE] = xp.minimum(meta[TABLE_TAIL_FILLED], _tail_capacity(meta))
    if first_miss_writes:
        meta[TABLE_WRITER] = -1
    else:
        meta[TABLE_WRITER] = xp.argmax(xp.where(mask, position, -1))
