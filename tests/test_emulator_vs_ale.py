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

import ale_oracle  # noqa: E402

from cule_py import AtariEmulator  # noqa: E402

GAMES = ["boxing", "freeway", "breakout", "pong", "kaboom", "adventure", "carnival",
         "journey_escape", "qbert", "wizard_of_wor", "pitfall", "space_invaders", "seaquest",
         "riverraid", "video_cube"]
CONSOLES = 8
FRAMES = 900
SEED = 1000


def make_ales(emulator, p, max_frames=0, mode=None, difficulty=None):
    return ale_oracle.ales_for(emulator, p, max_frames, mode, difficulty)


def check(emulator, ales, where, rewards=None, ale_rewards=None):
    game = emulator.game.rom_id
    ram, screen = emulator.ram(), emulator.screen()
    lives, over, truncated = emulator.lives(), emulator.game_over(), emulator.truncated()
    terminal = emulator.game_over(with_truncation=False)
    frames, episode = emulator.frame_number(), emulator.episode_frame_number()
    for i, ale in enumerate(ales):
        label = f"{game} console {i} {where}"
        expected = ale.getRAM()
        assert np.array_equal(ram[i], expected), (
            f"{label}: RAM differs at {[hex(0x80 + b) for b in np.nonzero(ram[i] != expected)[0]]}")
        expected = ale.getScreen()
        assert screen[i].shape == expected.shape, f"{label}: screen shape {screen[i].shape}"
        assert np.array_equal(screen[i], expected), (
            f"{label}: {np.count_nonzero(screen[i] != expected)} pixels differ")
        if rewards is not None:
            assert rewards[i] == ale_rewards[i], f"{label}: reward {rewards[i]} vs {ale_rewards[i]}"
        assert lives[i] == ale.lives(), f"{label}: lives {lives[i]} vs {ale.lives()}"
        assert over[i] == ale.game_over(), f"{label}: game_over {over[i]}"
        assert terminal[i] == ale.game_over(with_truncation=False), f"{label}: terminal"
        assert truncated[i] == ale.game_truncated(), f"{label}: truncated {truncated[i]}"
        assert (frames[i], episode[i]) == (ale.getFrameNumber(), ale.getEpisodeFrameNumber()), (
            f"{label}: frame numbers {frames[i]}, {episode[i]} vs {ale.getFrameNumber()}, "
            f"{ale.getEpisodeFrameNumber()}")


def play(emulator, ales, frames, rng, reset_chance=0.002):
    """Random minimal-set actions held 1-8 frames per console; reset at game over and at random.
    Returns the rewards seen (to show the run was not trivial)."""
    n = emulator.num_envs
    actions = emulator.minimal_action_set()
    current = np.zeros(n, np.int64)
    held = np.zeros(n, np.int64)
    rewards_seen = 0
    resets = 0
    for frame in range(1, frames + 1):
        fresh = held == 0
        current[fresh] = actions[rng.integers(len(actions), size=int(fresh.sum()))]
        held[fresh] = rng.integers(1, 9, size=int(fresh.sum()))
        held -= 1
        rewards = emulator.act(current.astype(np.int8))      # any integer dtype is accepted
        ale_rewards = [ale.act(int(current[i])) for i, ale in enumerate(ales)]
        check(emulator, ales, f"frame {frame}", rewards, ale_rewards)
        rewards_seen += int(np.abs(rewards).sum())
        resetting = emulator.game_over() | (rng.random(n) < reset_chance)
        if resetting.any():
            emulator.reset(resetting)
            for i in np.nonzero(resetting)[0]:
                ales[i].reset_game()
                held[i] = 0
            resets += int(resetting.sum())
            check(emulator, ales, f"reset of {np.nonzero(resetting)[0].tolist()} after frame {frame}")
    return rewards_seen, resets


@pytest.mark.parametrize("game", GAMES)
def test_frames_equal_ale(game):
    p = 0.25 if GAMES.index(game) % 2 else 0.0
    emulator = AtariEmulator(game, CONSOLES, seed=SEED, repeat_action_probability=p)
    ales = make_ales(emulator, p)
    check(emulator, ales, "after loadROM")
    play(emulator, ales, FRAMES, np.random.default_rng(sum(map(ord, game))))


def test_rewards_and_game_overs_happen():
    """The comparison above means something only if rewards and episode ends occur: play
    breakout long enough for both, with sticky actions."""
    emulator = AtariEmulator("breakout", 4, seed=7, repeat_action_probability=0.25)
    ales = make_ales(emulator, 0.25)
    rewards, resets = play(emulator, ales, 2500, np.random.default_rng(3), reset_chance=0.0)
    assert rewards > 0 and resets > 0


def test_truncation_equals_ale():
    emulator = AtariEmulator("boxing", 2, seed=5, max_num_frames_per_episode=150)
    ales = make_ales(emulator, 0.0, max_frames=150)
    play(emulator, ales, 400, np.random.default_rng(1), reset_chance=0.0)
    assert emulator.frame_number().min() >= 300      # two truncated episodes each


def test_mode_and_difficulty_equal_ale():
    emulator = AtariEmulator("space_invaders", 2, seed=9, mode=7, difficulty=1,
                             repeat_action_probability=0.25)
    ales = make_ales(emulator, 0.25, mode=7, difficulty=1)
    check(emulator, ales, "after loadROM")
    emulator.reset()
    for ale in ales:
        ale.reset_game()
    check(emulator, ales, "after reset into mode 7")
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
