"""The TIA's sound (kernels/tia/tia_sound.py) against ale-py's sound observation, live: the same 512
samples after every step and every reset, on games that make sound, with sticky actions and
episodes ending; the image beside it stays ale-py's too. Also the emulator's own sound() against
ALEInterface.getAudio() frame by frame, and a batch without sound costs nothing but its flag."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from cule_py import AtariEmulator
from cule_py.gym_env import AtariEnv

ale_py = pytest.importorskip("ale_py")
from ale_py.env import AtariEnv as AleAtariEnv  # noqa: E402

pytestmark = pytest.mark.live_ale

# Games that sound within their first steps (tones, noise, volumes), and the three whose mode
# selection runs act() frames during a reset (adventure, berzerk, double_dunk): their reset
# observations carry those frames' sound.
GAMES = ["pong", "breakout", "space_invaders", "ms_pacman", "asteroids", "air_raid", "alien",
         "assault", "atlantis", "bank_heist", "beam_rider", "boxing", "adventure", "berzerk",
         "double_dunk", "pitfall2"]


def _pair(game, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return AtariEnv(game, **kwargs), AleAtariEnv(game, **kwargs)


@pytest.mark.slow
@pytest.mark.parametrize("game", GAMES)
def test_sound_obs_equals_ale_py(game):
    ours, theirs = _pair(game, sound_obs=True, repeat_action_probability=0.25,
                         max_num_frames_per_episode=400)
    assert ours.observation_space == theirs.observation_space
    obs = [env.reset(seed=7)[0] for env in (ours, theirs)]
    rng = np.random.default_rng(7)
    sounding = 0
    for step in range(160):
        for key in ("image", "sound"):
            np.testing.assert_array_equal(obs[0][key], obs[1][key], f"{key} at step {step}")
        sounding += obs[1]["sound"].min() != obs[1]["sound"].max()
        action = int(rng.integers(ours.action_space.n))
        outcomes = [env.step(action) for env in (ours, theirs)]
        obs = [o[0] for o in outcomes]
        assert outcomes[0][1:4] == outcomes[1][1:4], step
        if outcomes[1][2] or outcomes[1][3]:
            obs = [env.reset()[0] for env in (ours, theirs)]     # unseeded: ALE's stale sound
    if game not in ("adventure", "double_dunk"):
        assert sounding > 0, f"{game} made no sound: the comparison showed nothing"


def test_emulator_sound_equals_get_audio_frame_by_frame():
    """The batch API on two consoles against two ALEInterfaces with sound_obs, every frame."""
    game, consoles = "space_invaders", 2
    emulator = AtariEmulator(game, consoles, seed=3, repeat_action_probability=0.25, sound=True)
    ales = []
    for i in range(consoles):
        ale = ale_py.ALEInterface()
        ale.setLoggerMode(ale_py.LoggerMode.Error)
        ale.setBool("sound_obs", True)
        ale.setInt("random_seed", 3 + i)
        ale.setFloat("repeat_action_probability", 0.25)
        ale.loadROM(ale_py.roms.get_rom_path(game))
        ales.append(ale)
    np.testing.assert_array_equal(emulator.sound(), np.stack([a.getAudio() for a in ales]))
    actions = np.random.default_rng(3).integers(0, 6, (300, consoles))
    for frame, row in enumerate(actions):
        emulator.act(row)
        for ale, action in zip(ales, row):
            ale.act(ale_py.Action(int(action)))
        np.testing.assert_array_equal(emulator.sound(), np.stack([a.getAudio() for a in ales]),
                                      f"frame {frame}")


def test_sound_needs_asking_for():
    emulator = AtariEmulator("pong", 1)
    with pytest.raises(RuntimeError, match="sound=True"):
        emulator.sound()
    # Without sound the generator never runs: the frames leave its fields as the reset set them.
    before = emulator.clone_state().arrays["state"].copy()
    emulator.act(np.array([1]))
    after = emulator.clone_state().arrays["state"]
    from cule_py.kernels import layout as L
    for field in (L.SOUND_CHANNEL0, L.SOUND_CHANNEL1, L.SOUND_LAST_REGISTERS0):
        assert before[0, field] == after[0, field]
