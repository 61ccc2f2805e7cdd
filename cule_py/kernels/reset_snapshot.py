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

Filling the table without races, on the CPU's threads and the GPU's lanes alike: the host names
one writer per reset launch (TABLE_WRITER: of the consoles it resets, the one furthest along the
system-RNG table, whose timer draw is the newest), which alone may add an entry (at TABLE_FILLED, then counts it); the others read only the entries that existed when the
launch began (TABLE_USABLE, set by the host before each launch from TABLE_FILLED), so nobody reads
an entry while it is written. A full table stays as it is: a reset that matches nothing plays its
frames, as before.
"""

from __future__ import annotations

import numpy as np
from numba.extending import register_jitable

from . import environment as E
from . import layout as L

SNAPSHOT_FRAME = 2           # frames played before the table is looked at
SNAPSHOT_ENTRIES = 128        # the RIOT timer's 75 start values, and room for a few phases
TABLE_USABLE = 0             # entries readable in this launch
TABLE_FILLED = 1             # entries written
TABLE_WRITER = 2             # the one console that may write an entry in this launch
TABLE_FIELDS = 3
KEY, LATER = 0, 1            # an entry's two states


@register_jitable
def _compared(field):
    return field != L.SYSTEM_RNG_POSITION and field != L.ENV_FRAME_NUMBER and \
        field != L.ENV_STICKY_ACTION


@register_jitable
def _matches(ram, st, fb, logic, t_st, t_ram, t_logic, t_fb, entry, env):
    for f in range(st.shape[1]):
        if _compared(f) and st[env, f] != t_st[entry, KEY, f]:
            return False
    for i in range(ram.shape[1]):
        if ram[env, i] != t_ram[entry, KEY, i]:
            return False
    for i in range(logic.shape[1]):
        if logic[env, i] != t_logic[entry, KEY, i]:
            return False
    for b in range(fb.shape[1]):
        for y in range(fb.shape[2]):
            for x in range(fb.shape[3]):
                if fb[env, b, y, x] != t_fb[entry, KEY, b, y, x]:
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
def reset_frames(rom, scheme, ram, st, fb, logic, params, inputs, t_st, t_ram, t_logic, t_fb,
                 table, env):
    """reset_game's 60 NOOP frames and soft reset, from the table where an entry matches.
    Returns True when they came from the table."""
    E.emulate(rom, scheme, ram, st, fb, logic, params, inputs, env, np.int32(E.ROW_NOOP),
              np.int32(SNAPSHOT_FRAME))
    for entry in range(table[TABLE_USABLE]):
        if _matches(ram, st, fb, logic, t_st, t_ram, t_logic, t_fb, entry, env):
            _load_later(ram, st, fb, logic, t_st, t_ram, t_logic, t_fb, entry, env)
            return True
    writing = table[TABLE_WRITER] == env and table[TABLE_FILLED] < t_st.shape[0]
    entry = table[TABLE_FILLED]
    if writing:
        _store(ram, st, fb, logic, t_st, t_ram, t_logic, t_fb, entry, KEY, env)
    E.emulate(rom, scheme, ram, st, fb, logic, params, inputs, env, np.int32(E.ROW_NOOP),
              np.int32(E.RESET_NOOP_FRAMES - SNAPSHOT_FRAME))
    E.soft_reset(rom, scheme, ram, st, fb, logic, params, inputs, env)
    if writing:
        _store(ram, st, fb, logic, t_st, t_ram, t_logic, t_fb, entry, LATER, env)
        table[TABLE_FILLED] = entry + 1
    return False


@register_jitable
def reset_game(rom, scheme, ram, st, fb, logic, params, inputs, mt, threshold, rng, select,
               shown, starting, t_st, t_ram, t_logic, t_fb, table, env):
    """environment.reset_game with its input-free frames from the table where it can; returns
    True when they were."""
    E.reset_game_start(rom, scheme, ram, st, fb, params, rng, env)
    hit = reset_frames(rom, scheme, ram, st, fb, logic, params, inputs, t_st, t_ram, t_logic,
                       t_fb, table, env)
    E.reset_game_finish(rom, scheme, ram, st, fb, logic, params, inputs, mt, threshold, select,
                        shown, starting, env)
    return hit


def empty_table(state_fields: int, ram_bytes: int, logic_fields: int, logic_dtype,
                frame_buffer_shape: tuple, xp=np, entries: int = SNAPSHOT_ENTRIES) -> tuple:
    """(t_st, t_ram, t_logic, t_fb, table) of an empty table, allocated with `xp`."""
    return (xp.zeros((entries, 2, state_fields), np.int32),
            xp.zeros((entries, 2, ram_bytes), np.uint8),
            xp.zeros((entries, 2, logic_fields), logic_dtype),
            xp.zeros((entries, 2) + tuple(frame_buffer_shape), np.uint8),
            xp.zeros(TABLE_FIELDS, np.int32))
