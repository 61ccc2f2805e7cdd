"""`AtariEmulator` against ale-py live: console i against its own `ALEInterface` (random_seed
seed + i, same settings), RAM, screen, reward, lives, game over, truncation and frame counters
identical after every frame, reset_game included.

Games chosen for what they exercise: paddles (breakout, kaboom; pong with swapped paddles on
both ports), PAL (adventure), odd display heights (carnival 214, journey_escape 230), a moved
window (qbert), swapped joystick ports (wizard_of_wor), history-dependent resets (boxing,
freeway, whose RAM survives the console reset), starting actions (pitfall, journey_escape,
kaboom), Select-press mode selection (freeway, space_invaders, video_cube's cube choice through
act), heavy TIA use (pitfall, riverraid, seaquest, space_invaders, video_cube). Eight consoles
with different seeds play different random actions from the minimal set, each held 1-8 frames,
and reset at game over and at random times; half the games run with sticky actions at 0.25.
"""

import numpy as np
import pytest

pytest.importorskip("ale_py")

from marks import slow_except  # noqa: E402

from cule_py import AtariEmulator  # noqa: E402
from cule_py.testing import ale_twins, check_emulator, play_emulator  # noqa: E402

pytestmark = pytest.mark.live_ale

GAMES = ["boxing", "freeway", "breakout", "pong", "kaboom", "adventure", "carnival",
         "journey_escape", "qbert", "wizard_of_wor", "pitfall", "space_invaders", "seaquest",
         "riverraid", "video_cube"]
CONSOLES = 8
FRAMES = 900
SEED = 1000


def play(emulator, ales, frames, rng, reset_chance=0.002):
    """cule_py.testing.play_emulator, failing at the first difference; the actions as int8 (any
    integer dtype is accepted). Returns the |rewards| seen and the resets made (to show the run
    was not trivial)."""
    played = play_emulator(emulator, ales, frames, rng, reset_chance=reset_chance,
                           action_dtype=np.int8)
    assert played.difference is None, f"{emulator.game.rom_id} {played.difference}"
    return played.rewards, played.resets


@pytest.mark.parametrize("game", slow_except(GAMES, "pong"))
def test_frames_equal_ale(game):
    p = 0.25 if GAMES.index(game) % 2 else 0.0
    emulator = AtariEmulator(game, CONSOLES, seed=SEED, repeat_action_probability=p)
    ales = ale_twins(emulator, repeat_action_probability=p)
    check_emulator(emulator, ales, "after loadROM")
    play(emulator, ales, FRAMES, np.random.default_rng(sum(map(ord, game))))


@pytest.mark.slow           # 2500 frames of 4 consoles: about 20 s
def test_rewards_and_game_overs_happen():
    """The comparison above means something only if rewards and episode ends occur: play
    breakout long enough for both, with sticky actions."""
    emulator = AtariEmulator("breakout", 4, seed=7, repeat_action_probability=0.25)
    ales = ale_twins(emulator, repeat_action_probability=0.25)
    rewards, resets = play(emulator, ales, 2500, np.random.default_rng(3), reset_chance=0.0)
    assert rewards > 0 and resets > 0


def test_truncation_equals_ale():
    emulator = AtariEmulator("boxing", 2, seed=5, max_num_frames_per_episode=150)
    ales = ale_twins(emulator, max_num_frames_per_episode=150)
    play(emulator, ales, 400, np.random.default_rng(1), reset_chance=0.0)
    assert emulator.frame_number().min() >= 300      # two truncated episodes each


def test_mode_and_difficulty_equal_ale():
    emulator = AtariEmulator("space_invaders", 2, seed=9, mode=7, difficulty=1,
                             repeat_action_probability=0.25)
    ales = ale_twins(emulator, repeat_action_probability=0.25, mode=7, difficulty=1)
    check_emulator(emulator, ales, "after loadROM")
    emulator.reset()
    for ale in ales:
        ale.reset_game()
    check_emulator(emulator, ales, "after reset into mode 7")
    play(emulator, ales, 300, np.random.default_rng(2))


def test_power_cycle_equals_fresh_load():
    emulator = AtariEmulator("freeway", 3, seed=11, repeat_action_probability=0.25)
    rng = np.random.default_rng(4)
    for _ in range(50):
        emulator.act(rng.integers(0, 3, size=3))
    emulator.power_cycle(np.array([True, False, True]))
    fresh = AtariEmulator("freeway", 3, seed=11, repeat_action_probability=0.25)
    for i in (0, 2):
        assert np.array_equal(emulator.ram()[i], fresh.ram()[i])
        assert np.array_equal(emulator.screen()[i], fresh.screen()[i])
    assert emulator.frame_number().tolist() == [0, 50, 0]
    actions = rng.integers(0, 3, size=3)
    assert np.array_equal(emulator.act(actions)[[0, 2]], fresh.act(actions)[[0, 2]])
    assert np.array_equal(emulator.ram()[[0, 2]], fresh.ram()[[0, 2]])
