"""The 2600 console against ale-py live: RAM and screen identical after every frame.

Covers what the console does so far (2K/4K cartridges): ALE's power-on and PAL detection,
reset_game with the game's mode selection and starting actions, difficulty switches, joysticks
and paddles, actions held 1-8 frames, resets at random times and after game over. Games chosen
for what they exercise: an odd display height (carnival, journey_escape 230), a moved window
(qbert), swapped ports (wizard_of_wor), PAL (adventure), paddles (breakout, kaboom; pong with
swapped paddles on both ports), Select-press mode selection (freeway, space_invaders), a
starting action (pitfall, journey_escape, kaboom), adventure's selection drawn from ALE's
environment RNG. Each batch holds two consoles that play different actions and reset at
different times, each against its own ALE.
"""

import numpy as np
import pytest

pytest.importorskip("ale_py")

from cule_py import games, modes  # noqa: E402
from cule_py.batch import ConsoleBatch  # noqa: E402
from cule_py.testing import ale_twin, check_batch, play_batch  # noqa: E402

pytestmark = pytest.mark.live_ale

# (game, mode, difficulty); None is the game's default. AtariEmulator's test
# (tests/test_emulator_vs_ale.py) covers the default modes of many more games, with rewards.
CASES = [("freeway", None, None), ("adventure", None, None), ("journey_escape", None, None),
         ("space_invaders", 7, 1), ("pong", 1, 3), ("adventure", 2, 2)]
FRAMES = 600
ENV_SEED = 4321


@pytest.mark.parametrize("game,mode,difficulty", CASES,
                         ids=[f"{g}-m{m}-d{d}" if m is not None else g for g, m, d in CASES])
def test_frames_equal_ale(game, mode, difficulty):
    consoles = ConsoleBatch(game, 2, mode=mode, difficulty=difficulty, env_seed=ENV_SEED)
    ales = [ale_twin(consoles.rom.path, ENV_SEED, mode=mode, difficulty=difficulty)
            for _ in range(2)]
    play_batch(consoles, ales, FRAMES, seed=sum(map(ord, game)), reset_chance=0.002)


def _mode_cases():
    cases = []
    for rom_id in sorted(modes.SELECT):
        game = games.get_game(rom_id)
        if game.scheme not in ("2K", "4K"):    # bank-switched: tests/test_modes_vs_ale.py
            continue
        others = [m for m in game.modes if m != game.default_mode]
        picks = sorted({others[-1], others[len(others) // 2]}) if others else []
        cases.append((rom_id, picks))
    return cases


@pytest.mark.parametrize("game,picks", _mode_cases(), ids=[c[0] for c in _mode_cases()])
def test_mode_selection_equals_ale(game, picks):
    """Every game's mode selection: reset_game into two other modes and back to the default,
    each followed by a few frames (hidden state such as the frame phase shows there)."""
    info = games.get_game(game)
    consoles = ConsoleBatch(game, 1, env_seed=ENV_SEED)
    ale = ale_twin(consoles.rom.path, ENV_SEED)
    check_batch(consoles, [ale], "after loadROM")
    fire = int(games.Action.FIRE) if games.Action.FIRE in info.minimal_actions else 0
    for mode in [*picks, info.default_mode]:
        consoles.set_mode(mode)
        ale.setMode(mode)
        consoles.reset()
        ale.reset_game()
        check_batch(consoles, [ale], f"reset_game into mode {mode}")
        for frame in range(8):
            if ale.game_over():     # demon_attack's modes 3-7: ALE's act() emulates nothing
                break
            action = fire if frame % 4 == 0 else 0
            consoles.act(np.array([action]))
            ale.act(action)
            check_batch(consoles, [ale], f"mode {mode} frame {frame + 1}")


def test_settings_are_checked():
    with pytest.raises(ValueError, match="mode 3 is not one of"):
        ConsoleBatch("pong", 1, mode=3)
    with pytest.raises(ValueError, match="difficulty 2 is not one of"):
        ConsoleBatch("breakout", 1, difficulty=2)
    consoles = ConsoleBatch("backgammon", 1)       # ALE's default difficulty 0 is not listed
    assert consoles.difficulty == 0
    with pytest.raises(ValueError, match="difficulty 0 is not one of"):
        consoles.set_difficulty(0)
    with pytest.raises(ValueError, match="action ids"):
        consoles.act(np.array([18]))
    with pytest.raises(ValueError, match=r"shape \(1,\)"):
        consoles.act(np.array([0, 0]))
