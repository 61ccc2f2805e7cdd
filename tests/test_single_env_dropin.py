"""The single env as ale-py's users drive it: system states (clone, restore, bytes, equality,
pickles), the keyboard map that gymnasium's play() reads, and play() itself, each against ale-py
live where ale-py has the same call."""

from __future__ import annotations

import pickle
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from cule_py import EmulatorState
from cule_py.gym_env import AtariEnv

ale_env = pytest.importorskip("ale_py.env")

pytestmark = pytest.mark.live_ale


@pytest.mark.parametrize("game, kwargs", [("ms_pacman", {}), ("pong", {}), ("breakout", {}),
                                          ("tetris", {"full_action_space": True})])
def test_keys_to_action_as_ale_py(game, kwargs):
    ours = AtariEnv(game, **kwargs)
    theirs = ale_env.AtariEnv(game, **kwargs)
    assert ours.get_keys_to_action() == theirs.get_keys_to_action()
    ours.close()
    theirs.close()


def test_keys_to_action_refused_for_continuous_actions():
    env = AtariEnv("ms_pacman", continuous=True)
    with pytest.raises(AttributeError, match="`get_keys_to_action` can't be provided for this "
                                             "Atari environment as `continuous=True`"):
        env.get_keys_to_action()


@pytest.mark.parametrize("game, kwargs", [
    ("breakout", {}), ("kaboom", {"continuous_action_threshold": 0.3}),
    ("pong", {"repeat_action_probability": 0.25, "frameskip": (2, 5)})])
def test_continuous_steps_equal_ale_py(game, kwargs):
    """continuous=True: each step's frames (one act of `frameskip` frames with the action's
    paddle strength) give ale-py's observation, reward, flags and info, resets included."""
    ours = AtariEnv(game, continuous=True, **kwargs)
    theirs = ale_env.AtariEnv(game, continuous=True, **kwargs)
    rng = np.random.default_rng(7)
    for env in (ours, theirs):
        env.reset(seed=12)
    for t in range(300):
        radius = rng.random() if rng.random() < 0.5 else 1.0 - 0.2 * rng.random()
        action = np.array([radius, rng.uniform(-np.pi, np.pi), rng.random()], np.float32)
        mine, want = ours.step(action), theirs.step(action)
        assert np.array_equal(mine[0], want[0]), (game, t)
        assert mine[1:] == want[1:], (game, t, mine[1:], want[1:])
        if want[2] or want[3]:
            assert ours.reset()[1] == theirs.reset()[1]
    ours.close()
    theirs.close()


# How code reaches the state: ALEInterface's calls, and the env's own (ale-py's defaults: no RNG).
STATE_CALLS = {
    "ale.cloneState": (lambda env: env.unwrapped.ale.cloneState(),
                       lambda env, state: env.unwrapped.ale.restoreState(state)),
    "ale.cloneState(include_rng=True)": (
        lambda env: env.unwrapped.ale.cloneState(include_rng=True),
        lambda env, state: env.unwrapped.ale.restoreState(state)),
    "ale.cloneSystemState": (lambda env: env.unwrapped.ale.cloneSystemState(),
                             lambda env, state: env.unwrapped.ale.restoreSystemState(state)),
    "env.clone_state": (lambda env: env.unwrapped.clone_state(),
                        lambda env, state: env.unwrapped.restore_state(state)),
}


@pytest.mark.parametrize("calls", list(STATE_CALLS))
@pytest.mark.parametrize("seed, sound", [(3, False), (4, False), (5, True)])
def test_clone_and_restore_as_ale_py(calls, seed, sound):
    """Clone, play on with other actions, restore, play the same actions again: the same
    screens, rewards and flags as ale-py at every frame. With sticky actions (0.5 here) that
    holds only if the RNG comes back exactly when the state holds it, and the screen and the
    last action played stay the env's, as in ALE; with sound_obs, the sound too (a restore
    leaves ALE's sound as it is)."""
    clone, restore = STATE_CALLS[calls]
    kwargs = dict(frameskip=1, repeat_action_probability=0.5, sound_obs=sound)
    envs = [AtariEnv("breakout", **kwargs),
            ale_env.AtariEnv("breakout", **kwargs)]
    actions = np.random.default_rng(seed).integers(0, envs[0].action_space.n, 160)
    for env in envs:
        env.reset(seed=seed)

    def play(actions, what):
        for k, action in enumerate(actions):
            outcomes = [env.step(int(action)) for env in envs]
            if sound:
                for key in ("image", "sound"):
                    np.testing.assert_array_equal(outcomes[0][0][key], outcomes[1][0][key],
                                                  f"{key}, {what} {k}")
            else:
                np.testing.assert_array_equal(outcomes[0][0], outcomes[1][0], f"{what} {k}")
            assert outcomes[0][1:4] == outcomes[1][1:4], (what, k)

    play(actions[:40], "before the clone")
    states = [clone(env) for env in envs]
    play(actions[40:100], "after the clone")
    for env, state in zip(envs, states):
        restore(env, state)
    for read in ("getRAM", "getScreenRGB"):       # ALE keeps its screen until the next frame
        np.testing.assert_array_equal(getattr(envs[0].unwrapped.ale, read)(),
                                      getattr(envs[1].unwrapped.ale, read)(), read)
    play(actions[100:], "after the restore")


def test_state_bytes_pickles_and_equality():
    env = AtariEnv("montezuma_revenge", frameskip=1, repeat_action_probability=0.25)
    env.reset(seed=1)
    for _ in range(30):
        env.step(env.action_space.sample())
    state = env.unwrapped.ale.cloneState()
    blob = state.serialize()
    assert isinstance(blob, bytes)
    assert EmulatorState(blob) == state
    assert pickle.loads(pickle.dumps(state)) == state
    assert state == env.clone_state()          # nothing ran in between
    ram_then = env.unwrapped.ale.getRAM().copy()
    obs_then = env.step(3)[0]
    assert env.clone_state() != state

    other = AtariEnv("montezuma_revenge", frameskip=1, repeat_action_probability=0.25)
    other.reset(seed=9)
    other.unwrapped.ale.restoreState(EmulatorState(blob))
    np.testing.assert_array_equal(other.unwrapped.ale.getRAM(), ram_then)
    np.testing.assert_array_equal(other.step(3)[0], obs_then)

    with pytest.raises(ValueError, match="not an EmulatorState"):
        EmulatorState(b"something else")
    with pytest.raises(ValueError, match="truncated or corrupt"):
        EmulatorState(blob[:-1])
    pong = AtariEnv("pong")
    pong.reset(seed=0)
    with pytest.raises(ValueError, match="another game"):
        pong.unwrapped.ale.restoreState(state)


def test_gymnasium_play_runs_headless():
    """gymnasium.utils.play.play on a cule_py env, with SDL's dummy video driver: it reads the
    keyboard map, steps the env and shows its frames until the window is closed."""
    pytest.importorskip("pygame", reason="gymnasium's play() needs pygame (the test extra)")
    code = textwrap.dedent("""
        import os
        os.environ["SDL_VIDEODRIVER"] = "dummy"
        import pygame
        from gymnasium.utils.play import play
        import cule_py
        env = cule_py.make("ALE/Pong-v5", render_mode="rgb_array")
        frames = []
        def callback(obs, next_obs, action, reward, terminated, truncated, info):
            frames.append(action)
            if len(frames) == 30:
                pygame.event.post(pygame.event.Event(pygame.QUIT))
        play(env, callback=callback, fps=1000)
        print("played", len(frames), flush=True)
    """)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "played 30" in done.stdout, done.stdout + done.stderr[-2000:]


def test_vector_env_ale_view_as_ale_py():
    """envs.ale, ale-py's ALEVectorInterface calls: reset with per-console seeds (-1: none),
    send of actions, recv; the same observations and rewards as ale-py's, and its
    errors for duplicate and out-of-range ids."""
    from ale_py.vector_env import AtariVectorEnv as AleVector
    from cule_py.vector import AtariVectorEnv

    envs = [AtariVectorEnv("breakout", 4), AleVector("breakout", 4)]
    assert envs[0].ale.get_num_envs() == envs[1].ale.get_num_envs() == 4
    assert envs[0].ale.get_action_set() == envs[1].ale.get_action_set()
    assert envs[0].ale.get_observation_shape() == tuple(envs[1].ale.get_observation_shape())
    for env in envs:
        env.reset(seed=11)
    outcomes = [env.ale.reset(np.array([2, 0]), np.array([7, -1])) for env in envs]
    np.testing.assert_array_equal(outcomes[0][0], outcomes[1][0])
    rng = np.random.default_rng(0)
    for _ in range(20):
        actions = rng.integers(0, len(envs[1].ale.get_action_set()), 4)
        for env in envs:
            env.ale.send(actions, np.ones(4, np.float32))
        outcomes = [env.ale.recv() for env in envs]
        for ours, theirs in zip(outcomes[0][:4], outcomes[1][:4]):
            np.testing.assert_array_equal(ours, theirs)
    for env in envs:
        with pytest.raises(ValueError, match="duplicate env_id"):
            env.ale.reset([0, 0], [-1, -1])
        with pytest.raises(IndexError, match="out of range"):
            env.ale.reset([4], [-1])
        env.close()


def test_gymnasium_atari_preprocessing_as_on_ale_py():
    """Gymnasium's AtariPreprocessing reads the screen through ale.getScreenGrayscale(buffer)
    and ale.getScreenRGB(buffer), which fill the given array: on a cule_py env the same
    observations as on ale-py's."""
    pytest.importorskip("cv2", reason="AtariPreprocessing resizes with OpenCV (the test extra)")
    from gymnasium.wrappers import AtariPreprocessing

    envs = [AtariPreprocessing(make(game="breakout", frameskip=1, repeat_action_probability=0.0),
                               noop_max=10, grayscale_obs=grey)
            for make in (AtariEnv, ale_env.AtariEnv) for grey in (True, False)]
    obs = [env.reset(seed=2)[0] for env in envs]
    for step in range(60):
        for ours, theirs in ((obs[0], obs[2]), (obs[1], obs[3])):
            np.testing.assert_array_equal(ours, theirs, f"step {step}")
        obs = [env.step(step % 4)[0] for env in envs]
    screen = np.zeros((210, 160), np.uint8)
    assert envs[0].unwrapped.ale.getScreenGrayscale(screen) is None
    np.testing.assert_array_equal(screen, envs[0].unwrapped.ale.getScreenGrayscale())
