"""Resets whose input-free frames or fire and noop acts come from the table
(kernels/ale/reset_snapshot.py) change nothing.

Three vector envs play the same actions: ours with the table, ours with a table of no entries
(every reset plays its 64 frames), and ale-py's. After every step (every autoreset included) both
of ours hold the same machine in every console (state row, RAM, game logic, both screen
buffers, the sticky RNG) and give the same outputs as ale-py; the table must have been used
(its tail region too, where few noops make the acts' keys repeat within the test).
A one-entry table checks that a full table leaves the other resets to play their frames. Two
cartridges whose state two frames in depends on System reset's system-RNG draws (Elevator
Action's extra RAM is filled from them) check the other side: here every console resets in step
with the others, so each launch brings a new draw, the resets mostly match nothing and play in
full, and the table fills; still exact. Where the game's mode selection draws nothing from the
environment RNG the start entries hold reset_game's finish too, and the tail finds entries by
their start entry without a compare; Double Dunk's option menu plays acts (sticky draws), so its
entries must leave the finish to play.
"""

from __future__ import annotations

import numpy as np
import pytest

from marks import slow_except

from cule_py.kernels.agent import agent_step as K
from cule_py.kernels import layout as L
from cule_py.kernels.ale import reset_snapshot as RS
from cule_py.kernels.structs import Console, ResetTable
from cule_py.testing import machine_difference, vector_step_difference
from cule_py.vector import AtariVectorEnv

ale_vector = pytest.importorskip("ale_py.vector_env")

pytestmark = pytest.mark.live_ale

CASES = {
    # id: (game, num_envs, steps, kwargs, table entries (start region = tail region),
    #      must some reset's input-free frames come from the table, must some reset's acts,
    #      must the start entries hold the finish (all of them) or not (none))
    "breakout-episodic-sticky": ("breakout", 4, 200, dict(
        episodic_life=True, repeat_action_probability=0.25), RS.SNAPSHOT_ENTRIES, True, False,
        True),
    "breakout-few-noops-budget": ("breakout", 4, 150, dict(
        noop_max=3, max_num_frames_per_episode=100), RS.SNAPSHOT_ENTRIES, True, True, True),
    "space_invaders-samestep-budget": ("space_invaders", 3, 150, dict(
        autoreset_mode="SameStep", max_num_frames_per_episode=240), RS.SNAPSHOT_ENTRIES, True,
        False, True),
    "breakout-one-entry-budget": ("breakout", 3, 150, dict(
        max_num_frames_per_episode=120, noop_max=0), 1, True, True, True),
    # a cartridge with its own RAM (F8SC) and Pitfall II's DPC chip
    "elevator_action-budget": ("elevator_action", 2, 120, dict(
        max_num_frames_per_episode=160), RS.SNAPSHOT_ENTRIES, False, False, True),
    "pitfall2-budget-noop0": ("pitfall2", 2, 120, dict(
        max_num_frames_per_episode=200, noop_max=0), RS.SNAPSHOT_ENTRIES, False, False, True),
    # the option menu's acts draw sticky actions: the finish is played after every hit
    "double_dunk-few-noops-budget": ("double_dunk", 3, 150, dict(
        noop_max=2, max_num_frames_per_episode=120), RS.SNAPSHOT_ENTRIES, True, True, False),
}


def _assert_same_machines(ours, plain, where):
    diff = machine_difference(ours, plain)
    assert diff is None, f"{where}: {diff}"


def _without_table(env, entries=0):
    b = env._batch
    env._reset_table = RS.empty_table(b.state.shape[1], b.memory.shape[1], b.logic.shape[1],
                                      np.int32, L.FRAME_BUFFER_SHAPE, entries=entries,
                                      tail_entries=entries)


@pytest.mark.parametrize("case", slow_except(sorted(CASES), "breakout-few-noops-budget",
                                             "breakout-one-entry-budget"))
def test_table_resets_are_exact(case):
    game, n, steps, kw, entries, hits_expected, tail_hits_expected, folded = CASES[case]
    ours = AtariVectorEnv(game, n, **kw)
    plain = AtariVectorEnv(game, n, **kw)
    theirs = ale_vector.AtariVectorEnv(game, n, **kw)
    if entries != RS.SNAPSHOT_ENTRIES:
        _without_table(ours, entries)
    _without_table(plain)
    out_t = theirs.reset(seed=7)
    out_o, out_p = ours.reset(seed=7), plain.reset(seed=7)
    assert vector_step_difference(out_o, out_t) is None
    _assert_same_machines(ours, plain, "reset")
    rng = np.random.default_rng(1)
    ends = 0
    for t in range(steps):
        actions = rng.integers(0, theirs.single_action_space.n, n)
        out_t, out_o, out_p = theirs.step(actions), ours.step(actions), plain.step(actions)
        diff = vector_step_difference(out_o, out_t)
        assert diff is None, f"step {t}: {diff}"
        _assert_same_machines(ours, plain, f"step {t}")
        ends += int((out_o[2] | out_o[3]).sum())
    theirs.close()
    table = ours._reset_table[-1]
    used = int(ours._agent[:, K.A_TABLE_RESETS].sum())
    assert int(plain._agent[:, K.A_TABLE_RESETS].sum()) == 0
    assert ends >= 2 * n, f"the case should reset every console at least twice ({ends} ends)"
    assert table[RS.TABLE_FILLED] >= 1
    assert table[RS.TABLE_FILLED] <= entries
    tail_used = int(ours._agent[:, K.A_TAIL_RESETS].sum())
    assert int(plain._agent[:, K.A_TAIL_RESETS].sum()) == 0
    assert 0 <= table[RS.TABLE_TAIL_USABLE] <= entries
    if hits_expected:
        assert used > 0, f"no reset came from the table ({ends} episode ends, " \
                         f"{int(table[RS.TABLE_FILLED])} entries)"
    if tail_hits_expected:
        assert tail_used > 0, f"no reset's acts came from the table ({ends} episode ends, " \
                              f"{int(table[RS.TABLE_TAIL_FILLED])} tail entries)"
    direct = int(ours._agent[:, K.A_TAIL_DIRECT].sum())
    if tail_hits_expected and folded:
        assert int(ours._agent[:, K.A_TAIL_BY_ORIGIN].sum()) > 0, \
            "no tail entry was found by its start entry"
        # every reset from a start entry with direct tails takes its tail by index (noop_max
        # <= 3 here: at most 2 acts, no FIRE run past the CPU's DIRECT_FIRES_CPU)
        assert direct > 0, "no reset took a direct tail"
    filled = int(table[RS.TABLE_FILLED])
    flags = [int(table[RS._start_flag(table, e)]) for e in range(filled)]
    assert sum(flags) == (filled if folded else 0), f"start entries holding the finish: {flags}"
    # (the entries readable in the last launch: an entry written then is played before the next)
    played = [int(table[RS._direct_status(table, o, f)])
              for o in range(min(int(table[RS.TABLE_USABLE]), int(table[RS.TABLE_DIRECT_ORIGINS])))
              for f in range(int(table[RS.TABLE_DIRECT_FIRES]) + 1)]
    if folded:
        # each direct tail of a flagged entry played (FIRE runs past 0 only where FIRE resets)
        assert all(p > 0 for p in played), f"direct tails not played: {played}"
    else:
        assert int(ours._agent[:, K.A_TAIL_BY_ORIGIN].sum()) == 0
        assert direct == 0 and not any(played), played


def test_matches_finds_a_difference_anywhere():
    """The whole-console compare, compiled: one differing byte or field anywhere (the frame
    buffers' first and last bytes, inside a compared block and in a row's remainder after the
    blocks, RAM, game logic, a state field) makes it False; the fields the keys leave out do
    not."""
    from numba import njit

    matches = njit(lambda *a: RS._matches(*a))
    env, entry = 1, 2
    for width in (20, 21):                           # 21: a remainder after the 4-word blocks
        rng = np.random.default_rng(width)
        st = rng.integers(0, 1 << 20, (3, L.STATE_FIELDS), dtype=np.int32)
        ram = rng.integers(0, 256, (3, 128), dtype=np.uint8)
        logic = rng.integers(0, 1 << 20, (3, 8), dtype=np.int32)
        fb = rng.integers(0, 2**64, (3, 2, 6, width), dtype=np.uint64)
        t_st = np.zeros((8, L.STATE_FIELDS), np.int32)        # entry e: rows 2e, 2e + 1
        t_ram = np.zeros((8, 128), np.uint8)
        t_logic = np.zeros((8, 8), np.int32)
        t_fb = np.zeros((8, 2, 6, width), np.uint64)
        key = 2 * entry + RS.KEY
        t_st[key], t_ram[key], t_logic[key], t_fb[key] = st[env], ram[env], logic[env], fb[env]
        console = Console(None, None, ram, st, fb, logic, None, None, None, None)
        table = ResetTable(t_st, t_ram, t_logic, t_fb, None)
        args = (console, table, entry, env)
        assert matches(*args, False) and matches(*args, True)
        assert not matches(console, table, entry - 1, env, False)
        # A pixel differs: the low or the high byte of a word (a compare narrower than 64 bits
        # misses the high one).
        for where, bit in [((0, 0, 0), 1), ((1, 5, width - 1), 1 << 63), ((0, 3, 17), 1 << 40),
                           ((1, 2, 20 if width > 20 else 9), 1)]:
            fb[(env,) + where] ^= np.uint64(bit)
            assert not matches(*args, False) and not matches(*args, True), (width, where)
            fb[(env,) + where] ^= np.uint64(bit)
        for array, index in [(ram, 127), (ram, 0), (logic, 7)]:
            array[env, index] ^= 1
            assert not matches(*args, False), (array.dtype, index)
            array[env, index] ^= 1
        st[env, L.ENV_STICKY_ACTION] += 1                 # the start key leaves it out
        assert matches(*args, False) and not matches(*args, True)
        st[env, L.ENV_STICKY_ACTION] -= 1
        for left_out in (L.SYSTEM_RNG_POSITION, L.ENV_FRAME_NUMBER):
            st[env, left_out] += 1
            assert matches(*args, False) and matches(*args, True)
            st[env, left_out] -= 1
        st[env, 0] ^= 1
        assert not matches(*args, False) and not matches(*args, True)
