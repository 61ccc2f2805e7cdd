"""cule_py inside RLlib, Stable-Baselines3 and TorchRL (issue 29): the optional extras
`cule_py[rllib]` and `cule_py[sb3]`, and TorchRL. Each test skips where its library is not
installed; CI installs them in a second venv (.ci/run) because ray[rllib] pins an older gymnasium.

What is checked: RLlib's episodes cut by CuleEnvRunner replay exactly on a fresh env; RLlib PPO
trains with two env runners (batch sizes, finite losses, episode returns), and so does the
scale-out example; RLlib's stock env
runner takes vector_env_creator for both emulators; CuleVecEnv equals ale-py's vector env in
SameStep mode and SB3's PPO runs on it; TorchRL's GymWrapper steps cule_py's env with reset masks.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

pytestmark = [pytest.mark.slow]

GAME = "ALE/Pong-v5"
# Short episodes so that rollouts hold episode ends, and resets land on rollout boundaries.
SHORT = dict(max_num_frames_per_episode=120, noop_max=4)


def _replay(chunks, env_kwargs, seed, num_envs, num_steps):
    """Step a fresh cule_py env with the actions the chunks recorded (0 on reset steps) and
    check each chunk's observations, rewards and end flags against it."""
    from cule_py.rllib import vector_env_creator

    by_console = {n: [] for n in range(num_envs)}
    for chunk in chunks:
        by_console[chunk.infos.data[0]["console"]].append(chunk)
    actions = np.zeros((num_envs, num_steps), np.int64)
    for n, parts in by_console.items():
        g = 0
        for c in parts:
            actions[n, g:g + len(c)] = c.actions.data
            g += len(c) + (1 if c.is_done else 0)
    env = vector_env_creator(dict(env_kwargs, env_id=GAME, num_envs=num_envs))
    obs, _ = env.reset(seed=seed)
    frames, rewards, ends = [np.array(obs)], [], []
    for t in range(num_steps):
        obs, r, term, trunc, _ = env.step(actions[:, t])
        frames.append(np.array(obs))
        rewards.append(r)
        ends.append((term, trunc))
    env.close()
    checked = 0
    for n, parts in by_console.items():
        g = 0
        for c in parts:
            obs_c = c.observations.data
            assert obs_c.shape == (len(c) + 1, 84, 84, 4) and obs_c.dtype == np.uint8
            for k in range(len(c) + 1):
                assert np.array_equal(obs_c[k], frames[g + k][n]), (n, g, k)
            assert np.array_equal(c.rewards.data, [rewards[g + k][n] for k in range(len(c))])
            if c.is_done:
                term, trunc = ends[g + len(c) - 1]
                assert c.is_terminated == bool(term[n])
                assert c.is_truncated == bool(trunc[n] and not term[n])
            checked += len(c)
            g += len(c) + (1 if c.is_done else 0)
    return checked


@pytest.mark.live_ale
def test_cule_env_runner_episodes_replay_exactly():
    pytest.importorskip("ray.rllib", reason="the rllib extra is not installed")
    from cule_py.rllib import CuleEnvRunner, ppo_config

    num_envs, steps, rollouts = 4, 16, 5
    config = ppo_config(GAME, num_envs_per_env_runner=num_envs,
                        rollout_fragment_length=steps, **SHORT).debugging(seed=11)
    runner = CuleEnvRunner(config=config)
    chunks, ends = [], 0
    for _ in range(rollouts):
        got = runner.sample(num_timesteps=num_envs * steps)
        for c in got:
            c.validate()
            assert c.get_extra_model_outputs("action_logp").shape == (len(c),)
            assert c.get_extra_model_outputs("action_dist_inputs").shape == (len(c), 6)
            assert np.all(np.isfinite(c.get_extra_model_outputs("action_logp")))
        ends += sum(c.is_done for c in got)
        chunks += got
    seed = 11                               # runner 0 (local): seed + 0 * num_envs
    checked = _replay(chunks, dict(SHORT), seed, num_envs, steps * rollouts)
    assert ends >= num_envs                 # every console's episode ended at least once
    # Every step the consoles took is in some chunk, except the reset steps.
    assert checked == num_envs * steps * rollouts - ends
    metrics = runner.get_metrics()
    assert math.isfinite(metrics["episode_return_mean"])
    runner.stop()


def test_cule_env_runner_samples_whole_episodes():
    """sample(num_episodes=...) (RLlib's evaluation) returns whole episodes, those longer than
    one internal rollout (128 steps) stitched from their chunks."""
    pytest.importorskip("ray.rllib", reason="the rllib extra is not installed")
    from cule_py.rllib import CuleEnvRunner, ppo_config

    config = ppo_config(GAME, num_envs_per_env_runner=2, max_num_frames_per_episode=720,
                        noop_max=0).debugging(seed=4)
    runner = CuleEnvRunner(config=config)
    episodes = runner.sample(num_episodes=3)
    assert len(episodes) == 3
    for e in episodes:
        e.validate()
        assert e.is_done and e.t_started == 0
        assert len(e) == 180                    # 720 frames / frameskip 4, truncated
        assert e.observations.data.shape == (181, 84, 84, 4)
        assert e.get_extra_model_outputs("action_logp").shape == (180,)
    runner.stop()


def test_rllib_ppo_trains_with_two_env_runners():
    ray = pytest.importorskip("ray", reason="the rllib extra is not installed")
    pytest.importorskip("ray.rllib", reason="the rllib extra is not installed")
    from cule_py.rllib import ppo_config

    num_envs, steps = 8, 32
    config = (ppo_config(GAME, num_env_runners=2, num_envs_per_env_runner=num_envs,
                         rollout_fragment_length=steps, max_num_frames_per_episode=200)
              .training(num_epochs=1, minibatch_size=128)
              .debugging(seed=0))
    ray.init(num_cpus=3, include_dashboard=False, ignore_reinit_error=True)
    try:
        algo = config.build_algo()
        returns = []
        for _ in range(3):
            result = algo.train()
            learner = result["learners"]["default_policy"]
            for key in ("total_loss", "policy_loss", "vf_loss", "entropy"):
                assert math.isfinite(learner[key]), (key, learner[key])
            runners = result["env_runners"]
            assert runners["num_env_steps_sampled"] >= 2 * num_envs * steps * 0.9
            returns.append(runners.get("episode_return_mean", float("nan")))
        # 200 frames = 50 steps: every console has ended an episode by the second iteration.
        assert math.isfinite(returns[-1]) and -21 <= returns[-1] <= 21
        algo.stop()
    finally:
        ray.shutdown()


def test_rllib_scale_out_example_runs_with_two_env_runners():
    """examples/rllib_scale_out.py (the recipe for N GPUs and clusters) on the CPU: a local
    Ray instance, two env runners, RLlib's learner in the driver."""
    pytest.importorskip("ray.rllib", reason="the rllib extra is not installed")
    import importlib.util
    import pathlib

    path = pathlib.Path(__file__).resolve().parents[1] / "examples" / "rllib_scale_out.py"
    spec = importlib.util.spec_from_file_location("rllib_scale_out", path)
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    num_envs, steps = 8, 16
    summary = example.main(["--num-cpus", "3", "--env-runners", "2", "--envs-per-env-runner",
                            str(num_envs), "--rollout", str(steps), "--iterations", "2",
                            "--minibatch", "64"])
    assert summary["nodes"] == 1 and len(summary["iterations"]) == 2
    for row in summary["iterations"]:
        assert row["agent_steps"] >= 2 * num_envs * steps * 0.9, row
        assert math.isfinite(row["total_loss"]) and row["agent_steps_per_s"] > 0, row


@pytest.mark.parametrize("backend", ["cule_py", "ale_py"])
def test_rllib_stock_env_runner_takes_vector_env_creator(backend):
    pytest.importorskip("ray.rllib", reason="the rllib extra is not installed")
    from ray import tune

    from cule_py.rllib import ppo_config, vector_env_creator
    from ray.rllib.env.single_agent_env_runner import SingleAgentEnvRunner

    tune.register_env("cule_py_vector", vector_env_creator)
    config = (ppo_config(GAME, num_envs_per_env_runner=4, rollout_fragment_length=16)
              .environment(env="cule_py_vector",
                           env_config=dict(env_id=GAME, backend=backend,
                                           max_num_frames_per_episode=200))
              .env_runners(env_runner_cls=SingleAgentEnvRunner,
                           gym_env_vectorize_mode="vector_entry_point")
              .training(num_epochs=1, minibatch_size=32))
    runner = SingleAgentEnvRunner(config=config)
    episodes = runner.sample(num_timesteps=64)
    assert sum(len(e) for e in episodes) >= 64
    assert episodes[0].observations.data[0].shape == (84, 84, 4)
    runner.stop()


@pytest.mark.live_ale
def test_sb3_vec_env_equals_ale_py_same_step():
    pytest.importorskip("stable_baselines3", reason="the sb3 extra is not installed")
    import gymnasium as gym

    import ale_py
    from cule_py.sb3 import CuleVecEnv

    gym.register_envs(ale_py)
    num_envs, kwargs = 4, dict(max_num_frames_per_episode=160, noop_max=5,
                               repeat_action_probability=0.25)
    ours = CuleVecEnv(GAME, num_envs, **kwargs)
    ours.seed(7)
    ale = gym.make_vec(GAME, num_envs, vectorization_mode="vector_entry_point",
                       autoreset_mode=gym.vector.AutoresetMode.SAME_STEP, **kwargs)
    unclipped = gym.make_vec(GAME, num_envs, vectorization_mode="vector_entry_point",
                             autoreset_mode=gym.vector.AutoresetMode.SAME_STEP,
                             reward_clipping=False, **kwargs)
    obs = ours.reset()
    ale_obs, _ = ale.reset(seed=7)
    unclipped.reset(seed=7)
    assert np.array_equal(obs, ale_obs)
    assert [i["lives"] for i in ours.reset_infos] == [0] * num_envs
    rng = np.random.default_rng(0)
    scores, ended = np.zeros(num_envs), 0
    for _ in range(120):
        actions = rng.integers(0, 6, num_envs)
        obs, rewards, dones, infos = ours.step(actions)
        a_obs, a_rew, a_term, a_trunc, a_info = ale.step(actions)
        _, u_rew, *_ = unclipped.step(actions)
        scores += u_rew
        assert np.array_equal(obs, a_obs) and np.array_equal(rewards, a_rew)
        assert np.array_equal(dones, a_term | a_trunc)
        assert [i["lives"] for i in infos] == a_info["lives"].tolist()
        for i in np.flatnonzero(dones):
            assert np.array_equal(infos[i]["terminal_observation"], a_info["final_obs"][i])
            assert infos[i]["TimeLimit.truncated"] == bool(a_trunc[i] and not a_term[i])
            assert infos[i]["episode"]["r"] == scores[i]
            scores[i] = 0
            ended += 1
    assert ended >= num_envs
    ours.close(), ale.close(), unclipped.close()


def test_sb3_ppo_learns_a_few_updates():
    pytest.importorskip("stable_baselines3", reason="the sb3 extra is not installed")
    from stable_baselines3 import PPO

    from cule_py.sb3 import CuleVecEnv

    env = CuleVecEnv(GAME, 8, max_num_frames_per_episode=200)     # 50 steps: 1+ ends each
    model = PPO("CnnPolicy", env, n_steps=32, batch_size=64, n_epochs=1, seed=0, verbose=0)
    model.learn(total_timesteps=3 * 8 * 32)
    assert model.num_timesteps == 3 * 8 * 32
    assert len(model.ep_info_buffer) >= 8          # Monitor-style episode infos reached SB3
    assert all(-21 <= e["r"] <= 21 for e in model.ep_info_buffer)
    for key in ("train/loss", "train/value_loss", "train/entropy_loss"):
        assert math.isfinite(model.logger.name_to_value[key]), key
    env.close()


@pytest.mark.live_ale
def test_torchrl_gym_wrapper_steps_cule_py_with_reset_masks():
    """TorchRL's GymWrapper over cule_py's env in the Disabled autoreset mode (TorchRL's
    preference: it resets the finished consoles itself, through reset_mask) equals the same env
    stepped by hand with the same actions and masks."""
    pytest.importorskip("torchrl", reason="torchrl is not installed")
    import torch
    from torchrl.envs import GymWrapper

    import cule_py

    num_envs, steps = 4, 50
    kwargs = dict(autoreset_mode="Disabled", max_num_frames_per_episode=160)
    env = GymWrapper(cule_py.make_vec(GAME, num_envs, array_type="torch", **kwargs))
    assert env.batch_size == torch.Size([num_envs])
    env.set_seed(5)
    rollout = env.rollout(steps, break_when_any_done=False)
    reference = cule_py.make_vec(GAME, num_envs, **kwargs)
    reference.reset(seed=5)
    obs, _ = reference.reset()
    actions = rollout["action"].argmax(-1).numpy()          # TorchRL's one-hot actions
    ends = 0
    for t in range(steps):
        assert np.array_equal(rollout["observation"][:, t].numpy(), obs), t
        obs, reward, terminated, truncated, _ = reference.step(actions[:, t])
        done = terminated | truncated
        assert np.array_equal(rollout["next", "observation"][:, t].numpy(), obs), t
        assert np.array_equal(rollout["next", "reward"][:, t, 0].numpy(), reward), t
        assert np.array_equal(rollout["next", "done"][:, t, 0].numpy(), done), t
        if done.any():
            ends += int(done.sum())
            obs, _ = reference.reset(options={"reset_mask": done})
    assert ends >= num_envs                 # 160 frames = 40 steps: every console reset
    env.close(), reference.close()
