"""Mode selection of the bank-switched games (cule_py.modes) through AtariEmulator, against ale-py.

For each game: reset_game into two modes other than the default and back to the default, each
followed by a few frames, everything ALE reports compared after every step (RAM, screen, reward,
lives, game over, both frame counters). Sticky actions are on, so the `act` frames some
selections play (double_dunk's option menu and its two frames after the soft reset) draw from
the environment RNG as ALE's do. Klax's logic, which reads the cartridge's RAM, is also played
until a reward and a game over against ALE, with that RAM taken from ALE's own saved state.
"""

import numpy as np
import pytest

pytest.importorskip("ale_py")

from cule_py import AtariEmulator, games  # noqa: E402
from cule_py.testing import ale_twin, check_emulator  # noqa: E402

pytestmark = pytest.mark.live_ale

GAMES = ("asteroids", "battle_zone", "centipede", "crazy_climber", "crossbow", "double_dunk", "et",
         "galaxian", "gravitar", "hero", "jamesbond", "kangaroo", "klax", "mario_bros", "mr_do",
         "ms_pacman", "private_eye", "tutankham", "zaxxon")
SEED = 2024
STICKY = 0.25
FRAMES = 8


def _ale(path, seed=SEED, sticky=STICKY):
    return ale_twin(path, seed, repeat_action_probability=sticky)


def _check(emulator, ale, where, reward=None, ale_reward=None):
    """One console against its twin; the reward too where given."""
    rewards = None if reward is None else [reward]
    check_emulator(emulator, [ale], where, rewards, [ale_reward])


def _picks(game):
    others = [m for m in game.modes if m != game.default_mode]
    return sorted({others[-1], others[len(others) // 2]})


@pytest.mark.parametrize("game", GAMES)
def test_mode_selection_equals_ale(game):
    info = games.get_game(game)
    emulator = AtariEmulator(game, 1, seed=SEED, repeat_action_probability=STICKY)
    ale = _ale(emulator._batch.rom.path)
    _check(emulator, ale, "after loadROM")
    fire = int(games.Action.FIRE) if games.Action.FIRE in info.minimal_actions else 0
    for mode in [*_picks(info), info.default_mode]:
        emulator.set_mode(mode)
        ale.setMode(mode)
        emulator.reset()
        ale.reset_game()
        _check(emulator, ale, f"reset_game into mode {mode}")
        for frame in range(FRAMES):
            action = fire if frame % 4 == 0 else 0
            reward = emulator.act(np.array([action]))[0]
            _check(emulator, ale, f"mode {mode} frame {frame + 1}", reward, ale.act(action))


def _riot_offset(raw, riot):
    """Where ALE's serialized state (one int per byte) holds the RIOT RAM."""
    for phase in range(4):
        at = raw[phase::4].tobytes().find(riot)
        if at >= 0:
            return phase + 4 * at
    raise AssertionError("the RIOT RAM is not in ALE's saved state")


def _ale_cart_ram(ale, distance):
    """The 128 bytes of a Superchip's RAM in ALE's serialized state, `distance` bytes after
    the RIOT RAM (the state's length varies, so the RIOT RAM is found each time)."""
    raw = np.frombuffer(ale.cloneState().serialize(), np.uint8)
    start = _riot_offset(raw, bytes(ale.getRAM())) + distance
    return raw[start:start + 4 * 128:4]


def test_klax_logic_equals_ale():
    """Random play to a reward and a game over: reward, lives and game over as ALE's, and the
    cartridge RAM the logic reads equal to the one in ALE's saved state every frame."""
    emulator = AtariEmulator("klax", 1, seed=SEED)
    ale = _ale(emulator._batch.rom.path, sticky=0.0)
    emulator.reset()
    ale.reset_game()
    # The cartridge's RAM follows the RIOT's in ALE's state at a fixed distance, found once here
    # from our RAM (then checked against ours every frame).
    raw = np.frombuffer(ale.cloneState().serialize(), np.uint8)
    riot = _riot_offset(raw, bytes(ale.getRAM()))
    distance = 4 * raw[riot::4].tobytes().find(bytes(emulator._batch.cart_ram[0]))
    assert distance > 0, "the cartridge RAM is not in ALE's saved state"
    rng = np.random.default_rng(5)
    actions = emulator.minimal_action_set()
    rewarded = over = 0
    action = 0
    for frame in range(4000):
        if frame % 4 == 0:
            action = int(actions[rng.integers(len(actions))])
        reward = emulator.act(np.array([action]))[0]
        ale_reward = ale.act(action)
        _check(emulator, ale, f"frame {frame + 1}", reward, ale_reward)
        assert np.array_equal(emulator._batch.cart_ram[0],
                              _ale_cart_ram(ale, distance)), f"frame {frame + 1}"
        rewarded += reward != 0
        if ale.game_over():
            over += 1
            emulator.reset()
            ale.reset_game()
            _check(emulator, ale, f"reset after frame {frame + 1}")
            if rewarded and over >= 2:
                break
    assert rewarded and over >= 2, (rewarded, over)
