"""The Gymnasium layer (cule_py.make_vec, cule_py.make, the "cule_py/..." ids) against ale-py's,
live: the same ids, arguments, seeds and actions on both sides, every array compared."""

from __future__ import annotations

import inspect

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode, VectorEnv

import cule_py
from cule_py.gym_env import VECTOR_ARGUMENTS, UnknownEnvIdError
from cule_py.testing import vector_step_difference
from cule_py.vector import AtariVectorEnv

ale_py = pytest.importorskip("ale_py")
from ale_py.vector_env import AtariVectorEnv as AleVectorEnv  # noqa: E402

from marks import slow_except  # noqa: E402

pytestmark = pytest.mark.live_ale


# -- registry and arguments -----------------------------------------------------------------------
def test_every_ale_id_has_a_twin_with_the_same_kwargs():
    ale_ids = [s for s in gym.envs.registry.values() if s.entry_point == "ale_py.env:AtariEnv"]
    assert len(ale_ids) > 300        # 104 v5 ids and 62 x 4 legacy ids in ale-py 0.12
    for spec in ale_ids:
        ours = gym.spec(cule_py.registration.twin_id(spec.id))
        assert ours.namespace == "cule_py" and ours.kwargs == spec.kwargs, spec.id
        assert ours.vector_entry_point == "cule_py.gym_env:vector_entry_point"
        assert ours.max_episode_steps == spec.max_episode_steps
    # no clash: ale-py's own ids still build ale-py's envs
    assert gym.spec("ALE/Pong-v5").entry_point == "ale_py.env:AtariEnv"


def test_vector_defaults_equal_ale_py_vector_env():
    ours = inspect.signature(AtariVectorEnv).parameters
    theirs = inspect.signature(AleVectorEnv).parameters
    for name, p in theirs.items():
        if name in ("game", "num_envs", "self"):
            continue
        assert name in VECTOR_ARGUMENTS, name
        if name in ours:
            default = ours[name].default
            if name == "autoreset_mode":
                default = AutoresetMode(default)
            assert default == p.default, name


def _spaces(env):
    return (env.single_observation_space, env.single_action_space, env.observation_space,
            env.action_space)


@pytest.mark.parametrize("kwargs", [{}, dict(grayscale=False, stack_num=2),
                                    dict(full_action_space=True, img_height=42, img_width=42)])
def test_spaces_shapes_dtypes_equal_ale_py(kwargs):
    ours = cule_py.make_vec("ALE/Breakout-v5", 2, **kwargs)
    theirs = gym.make_vec("ALE/Breakout-v5", 2, vectorization_mode="vector_entry_point", **kwargs)
    assert isinstance(ours, VectorEnv) and ours.num_envs == 2
    assert _spaces(ours) == _spaces(theirs)
    assert ours.metadata["autoreset_mode"] == theirs.metadata["autoreset_mode"]
    obs, info = ours.reset(seed=0)
    assert obs in ours.observation_space and obs.dtype == np.uint8
    out = ours.step(ours.action_space.sample())
    assert out[1].dtype == np.int32 and out[2].dtype == np.bool_ and out[3].dtype == np.bool_
    assert set(theirs.reset(seed=0)[1]) == set(info)          # exactly ale-py's keys
    theirs.close()


def test_ram_observations():
    env = cule_py.make_vec("pong", 2, obs_type="ram", stack_num=1)
    obs, _ = env.reset(seed=0)
    assert obs.shape == (2, 1, 128) and env.single_observation_space.shape == (1, 128)


# -- the vector env against ale-py's -----------------------------------------------------------------
def _compare(ours, theirs, where):
    diff = vector_step_difference(ours, theirs)
    assert diff is None, f"{where}: {diff}"


def _play(ours, theirs, steps, seed, action_seed=0, reseed_at=None):
    _compare(ours.reset(seed=seed), theirs.reset(seed=seed), "reset")
    rng = np.random.default_rng(action_seed)
    ended = 0
    for t in range(steps):
        actions = rng.integers(0, theirs.single_action_space.n, theirs.num_envs)
        out = ours.step(actions)
        _compare(out, theirs.step(actions), f"step {t}")
        ended += int(np.asarray(out[2]).sum() + np.asarray(out[3]).sum())
        if t == reseed_at:      # a seeded reset mid-episode power-cycles every console
            _compare(ours.reset(seed=seed + 1), theirs.reset(seed=seed + 1), "reseed")
    return ended


@pytest.mark.parametrize("make_ours", slow_except(["cule_py.make_vec", "gymnasium.make_vec"],
                                                  "cule_py.make_vec"))
def test_v5_vector_env_equals_ale_py_vector_entry_point(make_ours):
    """make_vec("ALE/Breakout-v5") and gymnasium.make_vec("cule_py/Breakout-v5") against
    gymnasium.make_vec("ALE/Breakout-v5", vectorization_mode="vector_entry_point"): sticky
    actions 0.25, frameskip 4, 84x84x4, noops, fire reset, clipping, autoresets."""
    if make_ours == "cule_py.make_vec":
        ours = cule_py.make_vec("ALE/Breakout-v5", 3)
    else:
        ours = gym.make_vec("cule_py/Breakout-v5", 3)
    theirs = gym.make_vec("ALE/Breakout-v5", 3, vectorization_mode="vector_entry_point")
    assert _play(ours, theirs, 260, seed=3, reseed_at=40) > 0, "some games should end"
    theirs.close()


def test_same_step_autoreset_and_overrides_equal_ale_py():
    kw = dict(autoreset_mode=AutoresetMode.SAME_STEP, episodic_life=True, reward_clipping=False,
              max_num_frames_per_episode=400, grayscale=False, num_threads=1)
    ours = cule_py.make_vec("ALE/Breakout-v5", 2, **kw)
    theirs = gym.make_vec("ALE/Breakout-v5", 2, vectorization_mode="vector_entry_point", **kw)
    assert ours.metadata["autoreset_mode"] is AutoresetMode.SAME_STEP
    assert _play(ours, theirs, 150, seed=9) > 0
    theirs.close()


def test_disabled_autoreset_metadata_and_mask_reset():
    """ale-py 0.12.1 refuses Disabled (tests/test_agent_step_vs_ale.py checks its behaviour)."""
    env = cule_py.make_vec("ALE/Breakout-v5", 2, autoreset_mode="Disabled",
                           max_num_frames_per_episode=40)
    assert env.metadata["autoreset_mode"] is AutoresetMode.DISABLED
    env.reset(seed=0)
    for _ in range(10):
        _, _, _, truncated, info = env.step(np.zeros(2, np.int64))
    assert truncated.all()
    frames = info["episode_frame_number"].copy()
    _, _, _, truncated, info = env.step(np.zeros(2, np.int64))
    assert truncated.all() and (info["episode_frame_number"] >= frames).all()  # not reset
    _, info = env.reset(options={"reset_mask": np.array([True, False])})
    assert info["episode_frame_number"][0] < frames[0]          # reset
    assert info["episode_frame_number"][1] >= frames[1]         # left alone


def test_rom_id_takes_atari_vector_env_defaults():
    """A rom id is AtariVectorEnv's defaults (sticky 0.0), as ale_py.vector_env.AtariVectorEnv."""
    ours = cule_py.make_vec("pong", 2)
    theirs = AleVectorEnv("pong", 2)
    _play(ours, theirs, 30, seed=4)
    theirs.close()


def test_ale_id_equals_atari_vector_env_with_its_registered_arguments():
    kwargs = gym.spec("ALE/Pong-v5").kwargs
    direct = AtariVectorEnv(kwargs["game"], 2, **{k: v for k, v in kwargs.items() if k != "game"})
    made = cule_py.make_vec("ALE/Pong-v5", 2)
    for a, b in zip(made.reset(seed=2), direct.reset(seed=2)):
        assert np.array_equal(a["lives"], b["lives"]) if isinstance(a, dict) else np.array_equal(a, b)
    rng = np.random.default_rng(0)
    for _ in range(20):
        actions = rng.integers(0, 6, 2)
        out_m, out_d = made.step(actions), direct.step(actions)
        for a, b in zip(out_m[:-1], out_d[:-1]):
            assert np.array_equal(a, b)


def test_noframeskip_v4_id_takes_its_registered_frameskip():
    env = cule_py.make_vec("PongNoFrameskip-v4", 1, noop_max=0, use_fire_reset=False)
    _, info = env.reset(seed=0)
    start = int(info["frame_number"][0])
    _, _, _, _, info = env.step(np.zeros(1, np.int64))
    assert int(info["frame_number"][0]) - start == 1    # frameskip 1, as registered
    theirs = gym.make_vec("ALE/Pong-v5", 2, vectorization_mode="vector_entry_point", frameskip=1,
                          repeat_action_probability=0.0)
    _play(cule_py.make_vec("PongNoFrameskip-v4", 2), theirs, 30, seed=1)
    theirs.close()


def test_sync_vectorization_of_a_twin_is_ale_py_single_envs():
    """vectorization_mode="sync" builds single envs from the twin's entry point, like ale-py's."""
    ours = gym.make_vec("cule_py/PongNoFrameskip-v4", 2, vectorization_mode="sync")
    theirs = gym.make_vec("PongNoFrameskip-v4", 2, vectorization_mode="sync")
    assert ours.single_observation_space == theirs.single_observation_space
    obs_o, _ = ours.reset(seed=7)
    obs_t, _ = theirs.reset(seed=7)
    assert np.array_equal(obs_o, obs_t)
    for t in range(40):
        actions = np.array([t % 6, (t + 3) % 6])
        for a, b in zip(ours.step(actions)[:-1], theirs.step(actions)[:-1]):
            assert np.array_equal(a, b), t


def test_seeding_reproducible_and_power_cycles():
    def run(env, seed):
        obs, _ = env.reset(seed=seed)
        frames = [obs]
        rng = np.random.default_rng(5)
        for _ in range(30):
            frames.append(env.step(rng.integers(0, 4, 2))[0])
        return np.stack(frames)

    a = cule_py.make_vec("ALE/Breakout-v5", 2)
    b = cule_py.make_vec("ALE/Breakout-v5", 2)
    first = run(a, 123)
    assert np.array_equal(first, run(b, 123))
    assert np.array_equal(first, run(a, 123))     # a seeded reset after play: the same again
    assert not np.array_equal(first, run(b, 124))


# -- array types, devices, actions ------------------------------------------------------------------
def test_torch_array_type_shares_memory_and_takes_tensor_actions():
    torch = pytest.importorskip("torch", reason="torch not installed")
    ours = cule_py.make_vec("ALE/Breakout-v5", 2, array_type="torch")
    plain = cule_py.make_vec("ALE/Breakout-v5", 2)
    obs_t, info_t = ours.reset(seed=1)
    obs_n, info_n = plain.reset(seed=1)
    assert isinstance(obs_t, torch.Tensor) and obs_t.dtype == torch.uint8
    assert isinstance(info_t["lives"], torch.Tensor)
    assert np.array_equal(obs_t.numpy(), obs_n)
    for step in range(12):
        actions = torch.tensor([step % 4, 1])
        out_t = ours.step(actions)
        out_n = plain.step([step % 4, 1])                 # a list works too
        for a, b in zip(out_t[:-1], out_n[:-1]):
            assert isinstance(a, torch.Tensor) and np.array_equal(a.numpy(), b)
    assert ours.unwrapped.device == "cpu" and isinstance(ours, VectorEnv)
    made = gym.make_vec("cule_py/Breakout-v5", 2, array_type="torch")   # through the entry point
    assert isinstance(made.reset(seed=1)[0], torch.Tensor)
    plain.reset(seed=1)
    assert np.array_equal(made.step(torch.tensor([1, 2]))[0].numpy(),
                          plain.step(torch.tensor([1, 2]))[0])      # the numpy env takes them too


def test_device_and_array_type_errors():
    env = cule_py.make_vec("pong", 1, device=None)
    assert env.unwrapped.device == "cpu" or cule_py.gym_env._gpu_available()
    with pytest.raises(ValueError, match="array_type='numpy' or 'torch'"):
        cule_py.make_vec("pong", 1, device="cpu", array_type="cupy")
    with pytest.raises(ValueError, match="array_type must be one of"):
        cule_py.make_vec("pong", 1, array_type="tensorflow")
    with pytest.raises(ValueError, match="unknown device"):
        cule_py.make_vec("pong", 1, device="tpu")
    from numba import cuda
    if not cuda.is_available():
        with pytest.raises(RuntimeError, match="device='cpu'"):
            cule_py.make_vec("pong", 1, device="cuda")


def test_bad_ids_and_arguments_are_clear_errors():
    with pytest.raises(UnknownEnvIdError, match="ALE/Pong-v5"):
        cule_py.make_vec("ALE/Pongg-v5", 2)
    with pytest.raises(UnknownEnvIdError, match="not a registered"):
        cule_py.make("ALE/Pong-v3")
    with pytest.raises(LookupError, match="did you mean 'pong'"):
        cule_py.make_vec("pongg", 2)
    with pytest.raises(TypeError, match="env_id must be a string"):
        cule_py.make_vec(3, 2)
    with pytest.raises(ValueError, match="num_envs must be a positive int"):
        cule_py.make_vec("pong", 0)
    with pytest.raises(TypeError, match="single env"):
        cule_py.make_vec("ALE/Pong-v5", 2, mode=1)
    with pytest.raises(TypeError, match="did you mean 'noop_max'"):
        cule_py.make_vec("ALE/Pong-v5", 2, noops_max=3)
    with pytest.raises(ValueError, match="batch_size"):
        cule_py.make_vec("ALE/Pong-v5", 4, batch_size=5)
    for bands in (-1, True, 2.0):
        with pytest.raises(ValueError, match="observation_bands must be None or an int"):
            cule_py.make_vec("ALE/Pong-v5", 2, observation_bands=bands)
    with pytest.raises(ValueError, match="frameskip"):
        cule_py.make_vec("ALE/Pong-v5", 2, frameskip=0)
    with pytest.raises(ValueError, match="autoreset_mode"):
        cule_py.make_vec("ALE/Pong-v5", 2, autoreset_mode="Sometimes")


def test_bad_actions_are_clear_errors():
    env = cule_py.make_vec("ALE/Pong-v5", 2)
    with pytest.raises(RuntimeError, match="reset"):
        env.step(np.zeros(2, np.int64))
    env.reset(seed=0)
    for bad, error, match in ((np.zeros(3, np.int64), ValueError, r"shape \(2,\)"),
                              (np.zeros(2, np.float32), TypeError, "integer indices"),
                              (np.array([0, 6]), ValueError, "in 0..5"),
                              (np.array([-1, 0]), ValueError, "in 0..5")):
        with pytest.raises(error, match=match):
            env.step(bad)


# -- the single env against gymnasium.make("ALE/...") -------------------------------------------------
def _same_info(a, b, where):
    assert set(a) == set(b), (where, a, b)
    for key in b:
        assert np.array_equal(np.asarray(a[key]), np.asarray(b[key])), (where, key, a[key], b[key])


def _play_single(env_id, steps, seed, **kwargs):
    ours = cule_py.make(env_id, **kwargs)
    theirs = gym.make(env_id, **kwargs)
    assert ours.observation_space == theirs.observation_space
    assert ours.action_space == theirs.action_space
    assert ours.unwrapped.get_action_meanings() == theirs.unwrapped.get_action_meanings()
    obs_o, info_o = ours.reset(seed=seed)
    obs_t, info_t = theirs.reset(seed=seed)
    assert np.array_equal(obs_o, obs_t) and obs_o.dtype == obs_t.dtype
    _same_info(info_o, info_t, "reset")
    rng = np.random.default_rng(seed)
    games = 0
    for t in range(steps):
        action = int(rng.integers(theirs.action_space.n))
        out_o, out_t = ours.step(action), theirs.step(action)
        where = f"{env_id} step {t}"
        assert np.array_equal(out_o[0], out_t[0]), where
        assert out_o[1] == out_t[1] and type(out_o[1]) is type(out_t[1]), (where, out_o[1], out_t[1])
        assert out_o[2:4] == out_t[2:4], (where, out_o[2:4], out_t[2:4])
        _same_info(out_o[4], out_t[4], where)
        assert ours.unwrapped.ale.lives() == theirs.unwrapped.ale.lives()
        if out_t[2] or out_t[3]:
            games += 1
            _same_info(ours.reset()[1], theirs.reset()[1], where + " reset")
    assert np.array_equal(ours.unwrapped.ale.getRAM(), theirs.unwrapped.ale.getRAM())
    assert np.array_equal(ours.unwrapped.ale.getScreenRGB(), theirs.unwrapped.ale.getScreenRGB())
    return games


# Seeds whose ALE word is >= 2**31 (ale-py hands ALE a negative int32) are among them: 3, 5, 2.
@pytest.mark.parametrize("env_id,steps,seed,kwargs", [
    ("ALE/Pong-v5", 300, 3, {}),
    ("ALE/Breakout-v5", 400, 5, {}),
    ("ALE/Breakout-v5", 150, 11, dict(obs_type="grayscale", max_num_frames_per_episode=300)),
    ("Breakout-v4", 250, 2, dict(obs_type="ram")),              # frameskip (2, 5) from np_random
    ("BreakoutNoFrameskip-v4", 400, 8, dict(full_action_space=True, repeat_action_probability=0.25)),
])
def test_single_env_equals_ale_py(env_id, steps, seed, kwargs):
    games = _play_single(env_id, steps, seed, **kwargs)
    if "Breakout-v5" in env_id:
        assert games > 0, "the case should end a game (reset without a seed after it)"


def test_single_env_seed_words_cover_negative_int32():
    seeds = [int(np.random.SeedSequence(s).generate_state(2)[1]) for s in (3, 5, 2)]
    assert all(w >= 2**31 for w in seeds)


def test_single_env_render_and_ale_view():
    ours = gym.make("cule_py/Pong-v5", render_mode="rgb_array")
    theirs = gym.make("ALE/Pong-v5", render_mode="rgb_array")
    ours.reset(seed=0)
    theirs.reset(seed=0)
    for _ in range(5):
        ours.step(2)
        theirs.step(2)
    assert np.array_equal(ours.render(), theirs.render())
    ale_o, ale_t = ours.unwrapped.ale, theirs.unwrapped.ale
    assert ale_o.getScreenDims() == tuple(ale_t.getScreenDims())
    assert ale_o.getMinimalActionSet() == ale_t.getMinimalActionSet()
    assert ale_o.getLegalActionSet() == ale_t.getLegalActionSet()
    assert ale_o.act(ale_py.Action.RIGHT) == ale_t.act(ale_py.Action.RIGHT)
    assert ale_o.act(3) == ale_t.act(ale_py.Action.RIGHT)
    assert ale_o.getEpisodeFrameNumber() == ale_t.getEpisodeFrameNumber()
    assert np.array_equal(ale_o.getScreenGrayscale(), ale_t.getScreenGrayscale())
    assert ale_o.game_over() == ale_t.game_over()
    assert cule_py.make("skiing", full_action_space=True).action_space.n == 9


def test_single_env_errors():
    with pytest.raises(ValueError, match="obs_type"):
        cule_py.make("ALE/Pong-v5", obs_type="hsv")
    with pytest.raises(ValueError, match="frameskip"):
        cule_py.make("ALE/Pong-v5", frameskip=(3, 3))
    with pytest.raises(TypeError, match="frameskip"):
        cule_py.make("ALE/Pong-v5", frameskip=2.5)
    with pytest.raises(ValueError, match="rgb_array"):    # (gymnasium.make would wrap it in
        cule_py.AtariEnv("pong", render_mode="human")     # HumanRendering over rgb_array)
    env = cule_py.make("pong")
    env.reset(seed=0)
    with pytest.raises(ValueError, match="outside the action set"):
        env.step(6)
    with pytest.raises(TypeError, match="integer index"):
        env.step(1.5)
    with pytest.raises(ValueError, match="render_mode='rgb_array'"):
        env.render()
