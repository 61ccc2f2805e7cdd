"""The per-game reward/terminal/lives logic (cule_py.kernels.ale.game_logic) against ale-py, live.

For every game with logic: drive ale-py with seeded random actions from the minimal set (each held
1-8 frames, repeat_action_probability 0), reset_game() at game over and at a few random times,
and record the RAM after every act() and reset_game() with ALE's reward, lives() and game over.
The RAM trace then goes through our compiled logic (`replay_trace_cpu`, an njit entry point) and
everything ALE reported must come out the same, frame by frame. The expected values are ALE's only.

The games the console issue tests first (FIRST) are also played to the end of one episode
first, so that their terminal condition is met and checked, not only its absence.

A reset entry checks the reset path: ALE's reset_game() ends with reset(), setMode() and step()
on each frame after the clear (4 soft reset frames, the starting actions); the trace holds the RAM
of the last of those frames, and our logic_reset + logic_set_mode + logic_step (once per such
frame, all on that RAM) must give ALE's lives and game over, and the score baseline the next
frames' rewards are measured from.

CULE_PY_LOGIC_FRAMES=<n> runs n frames per game instead of the default, and
CULE_PY_LOGIC_RESET_EVERY=<n> sets the mean number of frames between random resets (a longer soak
that reaches the ends of long games).
"""

from __future__ import annotations

import os
import time

import numpy as np
import pytest

ale_py = pytest.importorskip("ale_py")

from marks import slow_except  # noqa: E402

from cule_py import games  # noqa: E402
from cule_py.kernels.ale import game_logic as gl  # noqa: E402
from cule_py.testing import ale_twin  # noqa: E402

# The games the console issue tests first (2K/4K ROMs), checked longer.
FIRST = ("breakout", "pong", "kaboom", "boxing", "freeway", "space_invaders", "seaquest", "tennis",
         "skiing", "bowling", "enduro", "riverraid", "fishing_derby", "ice_hockey", "pitfall",
         "adventure", "journey_escape", "carnival", "pooyan", "demon_attack", "atlantis")
FIRST_FRAMES = 2000      # after the episode played to its end (GAME_OVER_WITHIN)
OTHER_FRAMES = 1000
# Random play ends every game of FIRST but Adventure within this many frames (the slowest, Enduro
# and Ice Hockey, at about 13700 with these seeds).
GAME_OVER_WITHIN = 16000
# The first entries of each trace also run through the logic as plain Python.
PURE_PYTHON_ENTRIES = 300
# Mean frames between random resets (besides the game-over ones).
RESET_EVERY = int(os.environ.get("CULE_PY_LOGIC_RESET_EVERY", "900"))
# Games where uniform random play never scores: this action is taken half of the time.
FAVOURED = {"freeway": ale_py.Action.UP, "enduro": ale_py.Action.FIRE}

ENV_FRAMES = int(os.environ.get("CULE_PY_LOGIC_FRAMES", "0"))


def frames_for(game):
    if ENV_FRAMES:
        return ENV_FRAMES
    return FIRST_FRAMES if game in FIRST else OTHER_FRAMES


class Trace:
    """What ALE did: RAM after each entry, the entry kind, and ALE's reward/lives/game over."""

    def __init__(self, capacity):
        self.rams = np.zeros((capacity, 128), dtype=np.uint8)
        self.events = np.zeros(capacity, dtype=np.int32)
        self.reward = np.zeros(capacity, dtype=np.int32)
        self.lives = np.zeros(capacity, dtype=np.int32)
        self.over = np.zeros(capacity, dtype=np.int32)
        self.actions = np.zeros(capacity, dtype=np.int32)
        self.n = 0

    def add(self, ale, event, reward=0, action=-1):
        i = self.n
        ale.getRAM(self.rams[i])
        self.events[i] = event
        self.reward[i] = reward
        self.lives[i] = ale.lives()
        self.over[i] = ale.game_over(with_truncation=False)
        self.actions[i] = action
        self.n += 1

    def trimmed(self):
        for name in ("rams", "events", "reward", "lives", "over", "actions"):
            setattr(self, name, getattr(self, name)[:self.n])
        return self


def record(game, frames, seed, to_the_end=0, mode=None, difficulty=None):
    """ALE's trace of one game. With to_the_end > 0 it starts with one episode played to its game
    over (at most to_the_end frames, no random resets; trace.ended tells whether it got there);
    then `frames` frames of play with reset_game() at game over and at random times."""
    ale = ale_twin(game, seed, mode=mode, difficulty=difficulty)    # loadROM ends with a reset
    if mode is not None:
        ale.reset_game()
    rng = np.random.default_rng(seed)
    trace = Trace(to_the_end + frames + frames // 2 + 32)
    trace.add(ale, gl.TRACE_RESET)
    trace.ended = _play(ale, rng, game, trace, to_the_end, stop_at_game_over=True)
    _play(ale, rng, game, trace, frames, stop_at_game_over=False)
    return trace.trimmed()


def _play(ale, rng, game, trace, frames, stop_at_game_over):
    """Random actions from the minimal set, each held 1-8 frames. Returns True at a game over
    when stop_at_game_over (after resetting), else plays all `frames`, resetting at game over
    and at random times."""
    actions = ale.getMinimalActionSet()
    resets_in_a_row = 0
    done = 0
    while done < frames:
        action = actions[rng.integers(len(actions))]
        if game in FAVOURED and rng.random() < 0.5:
            action = FAVOURED[game]
        for _ in range(rng.integers(1, 9)):
            trace.add(ale, gl.TRACE_STEP, ale.act(action), action.value)
            done += 1
            over = trace.over[trace.n - 1]
            if over or (not stop_at_game_over and rng.random() < 1 / RESET_EVERY):
                ale.reset_game()
                trace.add(ale, gl.TRACE_RESET)
                if stop_at_game_over:
                    return True
                # A game over right after a reset would loop forever; ALE then refuses to
                # emulate (act returns 0), which the trace records as it comes.
                resets_in_a_row = resets_in_a_row + 1 if trace.over[trace.n - 1] else 0
                if resets_in_a_row > 3:
                    return False
                break
            if done >= frames:
                break
    return False


def replay(game, trace, mode=None):
    n = len(trace.events)
    rewards = np.zeros(n, dtype=np.int32)
    lives = np.zeros(n, dtype=np.int32)
    terminal = np.zeros(n, dtype=np.int32)
    g = games.get_game(game)
    gl.replay_trace_cpu(gl.logic_game_id(game), g.default_mode if mode is None else mode,
                        gl.reset_steps(g), trace.rams, trace.events, rewards, lives, terminal)
    return rewards, lives, terminal


def compare(game, trace, rewards, lives, terminal):
    """The first entry where we differ from ALE, described; None when all agree."""
    bad = np.flatnonzero((rewards != trace.reward) | (lives != trace.lives)
                         | (terminal != trace.over))
    if len(bad) == 0:
        return None
    i = int(bad[0])
    lines = [f"{game}: {len(bad)} of {len(trace.events)} entries differ from ALE; first at {i}:"]
    for j in range(max(0, i - 3), min(len(trace.events), i + 2)):
        kind = "reset" if trace.events[j] == gl.TRACE_RESET else f"act({trace.actions[j]})"
        mark = ">>" if j == i else "  "
        lines.append(
            f"{mark} [{j}] {kind:8} ALE reward/lives/over {trace.reward[j]}/{trace.lives[j]}/"
            f"{trace.over[j]}, ours {rewards[j]}/{lives[j]}/{terminal[j]}")
    ram = trace.rams[i]
    lines.append("RAM at the first difference (0x80-0xFF): " + " ".join(f"{b:02x}" for b in ram))
    return "\n".join(lines)


IMPLEMENTED = sorted(gl.IMPLEMENTED)
# Klax's logic reads its Superchip RAM, which a RIOT-RAM trace does not hold:
# tests/test_modes_vs_ale.py::test_klax_logic_equals_ale checks it against ale-py instead.
ORDER = [g for g in FIRST] + [g for g in IMPLEMENTED if g not in FIRST and g != "klax"]


@pytest.fixture(scope="module")
def compiled():
    """Compile the replay entry point once (or load it from the cache) before timing games."""
    t = time.perf_counter()
    trace = record("pong", 10, seed=0)
    replay("pong", trace)
    return time.perf_counter() - t


@pytest.mark.live_ale
@pytest.mark.parametrize("game", slow_except(ORDER, "pong"))
def test_logic_matches_ale(compiled, game):
    to_the_end = GAME_OVER_WITHIN if game in FIRST and game != "adventure" else 0
    trace = record(game, frames_for(game), seed=1000 + gl.GAME_ID[game], to_the_end=to_the_end)
    rewards, lives, terminal = replay(game, trace)
    problem = compare(game, trace, rewards, lives, terminal)
    assert problem is None, problem
    assert trace.ended or not to_the_end, (
        f"{game}: random play reached no game over within {to_the_end} frames, so the end "
        f"condition went unchecked")
    # The same logic run as plain Python (the register_jitable functions uncompiled) agrees with
    # the compiled code on the start of the trace: the integer discipline holds.
    n = min(PURE_PYTHON_ENTRIES, len(trace.events))
    out = [np.zeros(n, dtype=np.int32) for _ in range(3)]
    g = games.get_game(game)
    gl.replay_trace_cpu.py_func(gl.GAME_ID[game], g.default_mode, gl.reset_steps(g),
                                trace.rams[:n], trace.events[:n], *out)
    for ours, theirs, what in zip(out, (rewards, lives, terminal), ("reward", "lives", "over")):
        np.testing.assert_array_equal(ours, theirs[:n], err_msg=f"{game}: pure Python {what}")


# Modes whose logic differs: Demon Attack's modes 3, 5 and 7 are over as soon as they are reset
# (ALE 0.12.1's one-frame guard after setMode expires during the soft reset), Video Checkers'
# modes 11-19 reverse the win, Gravitar's modes set other lives counts.
OTHER_MODES = [("demon_attack", 3, 1), ("video_checkers", 11, 0), ("gravitar", 1, 0),
               ("space_invaders", 7, 1), ("pong", 1, 3)]


@pytest.mark.live_ale
@pytest.mark.parametrize("game,mode,difficulty", slow_except(OTHER_MODES, OTHER_MODES[0]))
def test_logic_matches_ale_in_other_modes(compiled, game, mode, difficulty):
    trace = record(game, 800, seed=3000 + mode, mode=mode, difficulty=difficulty)
    problem = compare(game, trace, *replay(game, trace, mode=mode))
    assert problem is None, problem


def test_first_list_is_implemented():
    assert set(FIRST) <= gl.IMPLEMENTED


def test_ids_cover_every_game():
    assert set(gl.GAME_NAMES) == set(games.GAMES)
    assert len(gl.GAME_NAMES) == len(set(gl.GAME_NAMES)) == gl.N_GAMES == 104
    assert gl.IMPLEMENTED | set(gl.NOT_IMPLEMENTED) == set(games.GAMES)
    assert not gl.IMPLEMENTED & set(gl.NOT_IMPLEMENTED)


def test_missing_logic_is_refused():
    for game in gl.NOT_IMPLEMENTED:
        with pytest.raises(gl.GameLogicNotImplementedError, match=game):
            gl.logic_game_id(game)
        with pytest.raises(NotImplementedError, match="not implemented"):
            gl.logic_game_id(games.get_game(game).name)   # the CamelCase name as well
    with pytest.raises(games.UnknownGameError):
        gl.logic_game_id("not_a_game")
    with pytest.raises(games.MultiplayerRomError):
        gl.logic_game_id("combat")
    assert gl.logic_game_id("Breakout") == gl.GAME_ID["breakout"]


@pytest.mark.cuda
@pytest.mark.slow
def test_logic_compiles_for_cuda():
    """The logic compiles to PTX (sm_90) through a CUDA kernel, with or without a GPU: the CUDA
    simulator type-checks nothing, so this catches CUDA typing and lowering errors on CI."""
    if os.environ.get("NUMBA_ENABLE_CUDASIM", "0") not in ("", "0"):
        pytest.skip("numba.cuda is the simulator in this process; it cannot compile PTX")
    import types as pytypes

    from numba import cuda, types

    try:
        from numba.cuda.cudadrv import nvvm

        nvvm.NVVM()
    except Exception as err:  # noqa: BLE001 - no NVVM: nothing to compile with
        pytest.skip(f"NVVM is not installed ({type(err).__name__}: {err})")
    signature = (types.int32, types.uint8[:, ::1], types.int32[:, ::1], types.int32[::1])
    with pytest.MonkeyPatch.context() as mp:
        if not cuda.is_available():
            import numba.cuda.dispatcher as cdisp

            mp.setattr(cdisp, "get_current_device",
                       lambda: pytypes.SimpleNamespace(compute_capability=(9, 0)))
        ptx, _ = cuda.compile_ptx(gl.logic_step_cuda.py_func, signature, cc=(9, 0))
    assert ".entry" in ptx and "logic_step_cuda" in ptx
    assert ".local" not in ptx, "the logic spills to local memory"
