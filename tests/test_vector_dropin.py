"""AtariVectorEnv as a drop-in for ale-py's, live against it: the info dict (keys and dtypes),
episode statistics in Gymnasium's format, asynchronous batches (batch_size < num_envs, send and
recv), and render() frames for gymnasium's vector RecordVideo."""

from __future__ import annotations

import hashlib
import warnings

import gymnasium as gym
import numpy as np
import pytest

import cule_py
from cule_py.vector import AtariVectorEnv

ale_py = pytest.importorskip("ale_py")
from ale_py.vector_env import AtariVectorEnv as AleVectorEnv  # noqa: E402

pytestmark = pytest.mark.live_ale


def _dtypes(info: dict) -> dict:
    return {key: np.asarray(value).dtype for key, value in info.items()}


# -- the info dict ---------------------------------------------------------------------------------
ARGUMENT_SETS = [
    ("breakout", {}),
    ("pong", {"frameskip": 1}),
    ("space_invaders", {"grayscale": False}),
    ("breakout", {"img_height": 210, "img_width": 160, "stack_num": 6}),
    ("breakout", {"episodic_life": True, "max_num_frames_per_episode": 600}),
    ("freeway", {"autoreset_mode": "SameStep", "max_num_frames_per_episode": 300}),
    ("breakout", {"autoreset_mode": "SameStep", "episodic_life": True, "grayscale": False}),
]


@pytest.mark.parametrize("game, kwargs", ARGUMENT_SETS)
def test_info_keys_dtypes_and_values_equal_ale_py(game, kwargs):
    """By default the info dict is exactly ale-py's: the same keys, dtypes and values after reset
    and after every step (including steps that end and restart episodes)."""
    ours = AtariVectorEnv(game, 3, **kwargs)
    theirs = AleVectorEnv(game, 3, **kwargs)
    results = [(ours.reset(seed=11), theirs.reset(seed=11))]
    rng = np.random.default_rng(3)
    for _ in range(160):
        actions = rng.integers(0, ours.single_action_space.n, 3)
        results.append((ours.step(actions), theirs.step(actions)))
    theirs.close()
    for t, (a, b) in enumerate(results):
        info_a, info_b = a[-1], b[-1]
        assert sorted(info_a) == sorted(info_b), t
        assert _dtypes(info_a) == _dtypes(info_b), t
        for key in info_b:
            if key == "final_obs":
                # SameStep: the observations before the reset, of the consoles that reset (ale-py
                # leaves whatever its buffer held in the other rows)
                done = b[2] | b[3]
                assert done.any() and np.array_equal(info_a[key][done], info_b[key][done]), t
                continue
            assert np.array_equal(info_a[key], info_b[key]), (t, key)
        for x, y in zip(a[:-1], b[:-1]):
            assert x.dtype == y.dtype and np.array_equal(x, y), t


@pytest.mark.parametrize("env_id", ["ALE/Pong-v5", "ALE/Breakout-v5"])
def test_info_keys_and_dtypes_through_env_ids(env_id):
    """cule_py.make_vec(id) against gymnasium.make_vec(id, vectorization_mode=
    "vector_entry_point") (sticky actions 0.25 as registered): the same info keys and dtypes."""
    ours = cule_py.make_vec(env_id, 2)
    theirs = gym.make_vec(env_id, 2, vectorization_mode="vector_entry_point")
    pairs = [(ours.reset(seed=1)[1], theirs.reset(seed=1)[1])]
    for t in range(60):
        actions = np.array([t % 3, 1])
        pairs.append((ours.step(actions)[-1], theirs.step(actions)[-1]))
    theirs.close()
    for t, (a, b) in enumerate(pairs):
        assert sorted(a) == sorted(b) and _dtypes(a) == _dtypes(b), t


def test_episode_statistics_in_gymnasium_format():
    """episode_statistics=True adds info["episode"] {"r", "l", "t"} and info["_episode"] as
    gymnasium's RecordEpisodeStatistics writes them, for the env's episodes; "r" is the
    unclipped score, checked against ale-py's env with reward clipping off."""
    kwargs = dict(max_num_frames_per_episode=500, noop_max=0)
    ours = AtariVectorEnv("breakout", 4, episode_statistics=True, **kwargs)
    theirs = AleVectorEnv("breakout", 4, reward_clipping=False, **kwargs)
    reference = gym.wrappers.vector.RecordEpisodeStatistics(AtariVectorEnv("breakout", 4, **kwargs))
    ours.reset(seed=5), theirs.reset(seed=5), reference.reset(seed=5)
    score = np.zeros(4)
    steps = np.zeros(4, np.int64)
    ended_games = 0
    rng = np.random.default_rng(0)
    for _ in range(300):
        actions = rng.integers(0, 4, 4)
        _, _, term, trunc, info = ours.step(actions)
        _, reward, t_term, t_trunc, _ = theirs.step(actions)
        _, _, _, _, ref_info = reference.step(actions)
        done = t_term | t_trunc
        score += reward
        steps += 1
        assert set(info["episode"]) == set(ref_info.get("episode", {"r", "l", "t"}))
        assert info["_episode"].dtype == np.bool_ and info["episode"]["r"].dtype == np.float64
        assert info["episode"]["l"].dtype == np.int64 and info["episode"]["t"].dtype == np.float64
        assert np.array_equal(info["_episode"], done)
        assert np.array_equal(info["_episode"], ref_info.get("_episode", np.zeros(4, bool)))
        assert np.array_equal(info["episode"]["r"], np.where(done, score, 0))
        assert np.array_equal(info["episode"]["l"], np.where(done, steps, 0))
        if done.any():
            assert np.array_equal(info["episode"]["l"], ref_info["episode"]["l"])
            assert (info["episode"]["t"][done] > 0).all()
        ended_games += int(done.sum())
        # NextStep autoreset: the step after an end is the reset (no reward, not counted).
        score[done], steps[done] = 0, -1
    theirs.close()
    assert ended_games >= 8


def test_episode_statistics_as_torch_tensors():
    torch = pytest.importorskip("torch", reason="torch not installed")
    env = cule_py.make_vec("pong", 2, array_type="torch", episode_statistics=True,
                           max_num_frames_per_episode=40)
    env.reset(seed=0)
    seen = False
    for _ in range(12):
        info = env.step(torch.zeros(2, dtype=torch.int64))[-1]
        assert isinstance(info["_episode"], torch.Tensor)
        assert isinstance(info["episode"]["r"], torch.Tensor)
        seen |= bool(info["_episode"].any())
    assert seen


# -- asynchronous batches -----------------------------------------------------------------------
def _policy(console: int, step: int, n: int) -> int:
    """Each console's own action sequence, whatever order the consoles come back in."""
    return (console * 7 + step * 3 + (step // 5) % 3) % n


def _play_async(env, recvs: int, n_actions: int, at_least: int = 0):
    """Per-console trajectories: for each console, its list of (obs digest, reward, terminated,
    truncated, lives, frame_number, episode_frame_number) in the order it was stepped. After
    `recvs` recv()s it goes on (up to 4x as many) until every console has `at_least` entries:
    ale-py returns whichever console is ready first, and on a loaded machine one may lag."""
    per_console: dict[int, list] = {}
    steps: dict[int, int] = {}
    obs, info = env.reset(seed=21)
    done = 0
    while done < recvs or (done < 4 * recvs and min(
            (len(per_console.get(i, ())) for i in range(env.num_envs)), default=0) < at_least):
        done += 1
        ids = np.asarray(info["env_id"])
        actions = np.array([_policy(int(i), steps.get(int(i), 0), n_actions) for i in ids],
                           np.int64)
        for i in ids:
            steps[int(i)] = steps.get(int(i), 0) + 1
        obs, rewards, terminated, truncated, info = env.step(actions)
        for k, i in enumerate(np.asarray(info["env_id"])):
            per_console.setdefault(int(i), []).append(
                (hashlib.sha1(np.ascontiguousarray(obs[k]).tobytes()).hexdigest(),
                 int(rewards[k]), bool(terminated[k]), bool(truncated[k]),
                 int(info["lives"][k]), int(info["frame_number"][k]),
                 int(info["episode_frame_number"][k])))
    return per_console


def test_async_batches_equal_ale_py_per_console():
    """batch_size < num_envs: for 1,000 recv()s each console's trajectory (observations,
    rewards, flags, lives, frame counters, resets included) equals ale-py's for the same actions,
    though the order the consoles come back in differs (ale-py's: whichever thread is first)."""
    kwargs = dict(batch_size=2, max_num_frames_per_episode=800)
    ours = AtariVectorEnv("breakout", 5, **kwargs)
    theirs = AleVectorEnv("breakout", 5, num_threads=2, **kwargs)
    assert ours.observation_space == theirs.observation_space
    assert ours.action_space == theirs.action_space
    a = _play_async(ours, 1000, 4, at_least=250)
    b = _play_async(theirs, 1000, 4, at_least=250)
    theirs.close()
    assert sorted(a) == sorted(b) == list(range(5))
    resets = 0
    for console in range(5):
        n = min(len(a[console]), len(b[console]))
        assert n >= 250, (console, len(a[console]), len(b[console]))
        for t in range(n):
            assert a[console][t] == b[console][t], (console, t)
        resets += sum(row[3] or row[2] for row in a[console][:n])
    assert resets >= 5


@pytest.mark.parametrize("autoreset_mode", ["NextStep", "SameStep"])
def test_each_step_returns_its_own_observation_array(autoreset_mode):
    """Each step returns a new observation array (resets included, send/recv and step alike):
    kept without a copy, every step's still equals ale-py's at the end."""
    kwargs = dict(autoreset_mode=autoreset_mode, max_num_frames_per_episode=240)
    ours = AtariVectorEnv("breakout", 4, num_threads=2, **kwargs)
    theirs = AleVectorEnv("breakout", 4, num_threads=2, **kwargs)
    rng = np.random.default_rng(3)
    kept, wanted = [ours.reset(seed=7)[0]], [theirs.reset(seed=7)[0].copy()]
    ends = 0
    for t in range(160):
        actions = rng.integers(0, 4, 4)
        if t % 2:
            ours.send(actions)
            obs, _, terminated, truncated, _ = ours.recv()
        else:
            obs, _, terminated, truncated, _ = ours.step(actions)
        kept.append(obs)
        wanted.append(theirs.step(actions)[0].copy())
        ends += int(np.count_nonzero(terminated | truncated))
    theirs.close()
    assert ends >= 4                                  # episodes ended and consoles reset
    assert len({id(obs) for obs in kept}) == len(kept)
    for t, (obs, want) in enumerate(zip(kept, wanted)):
        assert np.array_equal(obs, want), t


def test_async_order_is_first_in_first_out():
    """cule_py's order is deterministic: the consoles a reset or send made ready come back first
    in, first out, in index order within one send."""
    env = AtariVectorEnv("pong", 5, batch_size=2)
    _, info = env.reset(seed=0)
    order = [info["env_id"].tolist()]
    for _ in range(5):
        order.append(env.step(np.zeros(2, np.int64))[-1]["env_id"].tolist())
    assert order == [[0, 1], [2, 3], [4, 0], [1, 2], [3, 4], [0, 1]]


def test_send_overlaps_the_caller_and_recv_collects():
    """send() returns before the step is done (a worker thread runs it, the kernel releases the
    GIL), recv() collects; results equal step()'s."""
    a = AtariVectorEnv("pong", 4, batch_size=2)
    b = AtariVectorEnv("pong", 4, batch_size=2)
    a.reset(seed=1), b.reset(seed=1)
    for t in range(20):
        actions = np.array([t % 6, (t + 1) % 6])
        a.send(actions)
        got = a.recv()
        want = b.step(actions)
        for x, y in zip(got[:-1], want[:-1]):
            assert np.array_equal(x, y)
        assert np.array_equal(got[-1]["env_id"], want[-1]["env_id"])
    with pytest.raises(RuntimeError, match="only 0 consoles are ready"):
        a.recv()
        a.recv()


def test_async_through_make_vec_and_torch():
    torch = pytest.importorskip("torch", reason="torch not installed")
    env = cule_py.make_vec("ALE/Pong-v5", 4, batch_size=2, array_type="torch")
    obs, info = env.reset(seed=0)
    assert obs.shape == (2, 4, 84, 84) and env.batch_size == 2
    env.send(torch.zeros(2, dtype=torch.int64))
    obs, rewards, _, _, info = env.recv()
    assert isinstance(obs, torch.Tensor) and info["env_id"].tolist() == [2, 3]


# -- render() and video -------------------------------------------------------------------------
def test_render_frames_equal_ale_py_rgb_screens():
    """render() gives each console's last frame; ale-py's env with 210x160 RGB, stack 1 and no
    max-pooling observes exactly that frame."""
    kwargs = dict(img_height=210, img_width=160, grayscale=False, stack_num=1, maxpool=False)
    ours = AtariVectorEnv("space_invaders", 3, render_mode="rgb_array", **kwargs)
    theirs = AleVectorEnv("space_invaders", 3, **kwargs)
    obs, _ = theirs.reset(seed=2)
    ours.reset(seed=2)
    rng = np.random.default_rng(1)
    for t in range(30):
        frames = ours.render()
        assert isinstance(frames, tuple) and len(frames) == 3
        for i in range(3):
            assert frames[i].dtype == np.uint8 and np.array_equal(frames[i], obs[i, 0]), (t, i)
        actions = rng.integers(0, 6, 3)
        ours.step(actions)
        obs = theirs.step(actions)[0]
    theirs.close()
    frames = ours.render()
    assert np.array_equal(ours.render_frames([2, 0]), np.stack([frames[2], frames[0]]))


def test_ram_observations_render_too():
    env = AtariVectorEnv("pong", 2, obs_type="ram", render_mode="rgb_array")
    env.reset(seed=0)
    for _ in range(3):
        env.step(np.zeros(2, np.int64))
    frame = env.render()[1]
    assert frame.shape == (210, 160, 3) and len(np.unique(frame.reshape(-1, 3), axis=0)) > 2


def test_vector_record_video_writes_a_playable_video(tmp_path):
    """gymnasium's vector RecordVideo over cule_py: a video file whose frames read back as the
    consoles' screens (lossy codec: compared on average)."""
    pytest.importorskip("moviepy", reason="moviepy not installed (pip install cule_py[video])")
    import imageio.v3 as iio

    env = cule_py.make_vec("ALE/SpaceInvaders-v5", 2, render_mode="rgb_array")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        env = gym.wrappers.vector.RecordVideo(env, str(tmp_path), step_trigger=lambda s: s == 0,
                                              video_length=40, record_first_only=True)
    env.reset(seed=0)
    frames = []
    for t in range(45):
        env.step(np.full(2, t % 4, np.int64))
        frames.append(env.unwrapped.render()[0])
    env.close()
    videos = sorted(tmp_path.glob("*.mp4"))
    assert len(videos) == 1
    played = iio.imread(videos[0], plugin="pyav") if _has_pyav() else \
        np.stack(list(iio.imiter(videos[0])))
    # step_trigger fires at the first step: video frame t is the screen after step t; gymnasium
    # stops after video_length frames past the first
    assert played.shape[1:] == (210, 160, 3) and 40 <= len(played) <= 41
    shown = np.stack(frames[:len(played)]).astype(int)
    error = np.abs(played.astype(int) - shown).mean(axis=(1, 2, 3))
    assert error.max() < 8, error
    # and the video shows these frames in this order: each is closer to its own screen than to
    # the next one where the screen changed
    moved = [t for t in range(len(shown) - 1) if np.abs(shown[t] - shown[t + 1]).mean() > 0.2]
    assert moved
    for t in moved:
        assert error[t] < np.abs(played[t].astype(int) - shown[t + 1]).mean()


def _has_pyav() -> bool:
    try:
        import av  # noqa: F401
    except ImportError:
        return False
    return True


def test_render_needs_rgb_array_render_mode():
    env = AtariVectorEnv("pong", 1)
    env.reset(seed=0)
    with pytest.raises(gym.error.Error, match="render_mode='rgb_array'"):
        env.render()
    assert env.render_frames().shape == (1, 210, 160, 3)


# -- jax ----------------------------------------------------------------------------------------
def test_jax_array_type():
    """array_type="jax": every array a jax.Array (DLPack; on the GPU without a copy), equal to the
    numpy env's; jax actions accepted."""
    jax = pytest.importorskip("jax", reason="jax not installed (pip install 'cule_py[jax]')")
    import jax.numpy as jnp

    env = cule_py.make_vec("ALE/Breakout-v5", 2, array_type="jax", episode_statistics=True)
    plain = cule_py.make_vec("ALE/Breakout-v5", 2)
    obs, info = env.reset(seed=1)
    obs_n, _ = plain.reset(seed=1)
    assert isinstance(obs, jax.Array) and obs.dtype == jnp.uint8
    assert np.array_equal(np.asarray(obs), obs_n) and isinstance(info["lives"], jax.Array)
    for t in range(10):
        out = env.step(jnp.array([t % 4, 1]))
        out_n = plain.step(np.array([t % 4, 1]))
        for a, b in zip(out[:-1], out_n[:-1]):
            assert isinstance(a, jax.Array) and np.array_equal(np.asarray(a), b)
    assert isinstance(out[-1]["episode"]["r"], jax.Array)


# -- continuous actions ----------------------------------------------------------------------------
def _continuous_actions(rng, shape) -> np.ndarray:
    """(radius, theta, fire) float32, radius often small (a slow paddle) and often near 1."""
    radius = np.where(rng.random(shape) < 0.5, rng.random(shape), 1.0 - 0.2 * rng.random(shape))
    theta = rng.uniform(-np.pi, np.pi, shape)
    fire = rng.random(shape)
    return np.stack([radius, theta, fire], axis=-1).astype(np.float32)


CONTINUOUS = [("breakout", {}), ("pong", {"repeat_action_probability": 0.25}),
              ("kaboom", {"continuous_action_threshold": 0.3}),
              ("space_invaders", {"repeat_action_probability": 0.25})]


@pytest.mark.parametrize("game, kwargs", CONTINUOUS)
def test_continuous_actions_equal_ale_py_vector_env(game, kwargs):
    """continuous=True: (radius, theta, fire) actions give ale-py's joystick action and paddle
    strength, sticky actions keeping both: every output equal for 250 steps."""
    ours = AtariVectorEnv(game, 3, continuous=True, **kwargs)
    theirs = AleVectorEnv(game, 3, continuous=True, **kwargs)
    assert ours.single_action_space == theirs.single_action_space
    assert ours.action_space == theirs.action_space
    results = [(ours.reset(seed=8), theirs.reset(seed=8))]
    rng = np.random.default_rng(2)
    for _ in range(250):
        actions = _continuous_actions(rng, (3,))
        results.append((ours.step(actions), theirs.step(actions)))
    theirs.close()
    for t, (a, b) in enumerate(results):
        for x, y in zip(a[:-1], b[:-1]):
            assert np.array_equal(x, y), t
        for key in b[-1]:
            assert np.array_equal(a[-1][key], b[-1][key]), (t, key)


@pytest.mark.parametrize("env_id", ["ALE/Breakout-v5", "ALE/Pong-v5"])
def test_continuous_actions_equal_ale_py_single_env(env_id):
    """The single env: ale-py's AtariEnv(continuous=True) (sticky actions 0.25, frameskip 4)."""
    ours = cule_py.make(env_id, continuous=True)
    theirs = gym.make(env_id, continuous=True)
    assert ours.action_space == theirs.action_space
    assert np.array_equal(ours.reset(seed=3)[0], theirs.reset(seed=3)[0])
    rng = np.random.default_rng(4)
    for t in range(300):
        action = _continuous_actions(rng, ())
        a, b = ours.step(action), theirs.step(action)
        assert np.array_equal(a[0], b[0]) and a[1:4] == b[1:4], t
        if a[2] or a[3]:
            ours.reset(), theirs.reset()
    assert ours.unwrapped.ale.getRAM().tolist() == theirs.unwrapped.ale.getRAM().tolist()
    theirs.close()


def test_steps_leave_pytorch_thread_count_alone():
    """numba's OpenMP layer shares the OpenMP runtime with PyTorch: starting numba's pool or
    changing its thread count around a launch must not change torch.get_num_threads() (two
    RLlib env runners on one core each ran their policies 2.4x slower when it did)."""
    pytest.importorskip("torch", reason="PyTorch is not installed")
    import os
    import subprocess
    import sys

    child = ("import torch, numpy as np, cule_py\n"
             "e = cule_py.make_vec('ALE/Pong-v5', 4, num_threads=1)\n"
             "e.reset(seed=0); e.step(np.zeros(4, np.int64))\n"
             "a = torch.get_num_threads()\n"
             "torch.set_num_threads(3)\n"
             "e.step(np.zeros(4, np.int64))\n"
             "print(a, torch.get_num_threads())\n")
    env = dict(os.environ, OMP_NUM_THREADS="1", NUMBA_NUM_THREADS="2")
    out = subprocess.run([sys.executable, "-c", child], env=env, capture_output=True, text=True,
                         timeout=600)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["1", "3"], out.stdout
