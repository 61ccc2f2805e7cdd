"""The 2600 console against ale-py live: RAM and screen identical after every frame.

Covers what the console does so far (2K/4K cartridges, joystick games in their default mode):
ALE's power-on and PAL detection, reset_game, actions held 1-8 frames, resets at random times
and after game over, an odd display height (carnival), a moved window (qbert), swapped ports
(wizard_of_wor), and two consoles that must stay equal to each other.
"""

import numpy as np
import pytest

ale_py = pytest.importorskip("ale_py")

from cule_py.console import ConsoleBatch  # noqa: E402

GAMES = ["boxing", "seaquest", "carnival", "qbert", "wizard_of_wor", "riverraid", "donkey_kong",
         "tetris"]
FRAMES = 1200


def ale_for(path):
    ale = ale_py.ALEInterface()
    ale.setLoggerMode(ale_py.LoggerMode.Error)
    ale.setFloat("repeat_action_probability", 0.0)
    ale.loadROM(str(path))
    return ale


@pytest.mark.parametrize("game", GAMES)
def test_frames_equal_ale(game):
    consoles = ConsoleBatch(game, 2)
    ale = ale_for(consoles.rom.path)
    rng = np.random.default_rng(sum(map(ord, game)))
    actions = [int(a) for a in consoles.game.minimal_actions]

    def check(where):
        ours = consoles.ram[0]
        assert np.array_equal(ours, ale.getRAM()), (
            f"{game} {where}: RAM differs at {np.nonzero(ours != ale.getRAM())[0]}")
        screen = consoles.screen()
        assert np.array_equal(screen[0], ale.getScreen()), (
            f"{game} {where}: {np.count_nonzero(screen[0] != ale.getScreen())} pixels differ")
        assert np.array_equal(consoles.ram[0], consoles.ram[1]) and np.array_equal(screen[0], screen[1])

    check("after loadROM")
    frame = 0
    resets = 0
    while frame < FRAMES:
        action = actions[rng.integers(len(actions))]
        for _ in range(rng.integers(1, 9)):
            consoles.act([action, action])
            ale.act(action)
            frame += 1
            check(f"frame {frame}")
        if ale.game_over() or rng.random() < 0.01:
            ale.reset_game()
            consoles.reset()
            resets += 1
            check(f"reset {resets} at frame {frame}")


def test_unsupported_games_are_refused():
    with pytest.raises(NotImplementedError, match="scheme F8"):
        ConsoleBatch("ms_pacman", 1)
    with pytest.raises(NotImplementedError, match="paddle"):
        ConsoleBatch("pong", 1)
    with pytest.raises(NotImplementedError, match="mode selection"):
        ConsoleBatch("space_invaders", 1)
