"""cule_py inside RLlib (new API stack): PPO on thousands of consoles per env runner.

    from cule_py.rllib import ppo_config
    config = ppo_config("ALE/Pong-v5", num_env_runners=2, num_envs_per_env_runner=64)
    algo = config.build_algo()
    for _ in range(100):
        print(algo.train()["env_runners"]["episode_return_mean"])

Needs `pip install 'cule_py[rllib]'` (ray[rllib], the version tested) and PyTorch. Three pieces,
each usable on its own (docs/rllib.md has the recipes, the scale-out and the costs):

* `CuleEnvRunner`: RLlib's SingleAgentEnvRunner with a batched sample loop. RLlib's own loop
  does Python work for every console at every step (an episode object each, the env-to-module
  connectors walking the list of episodes); this one does, per step and for all consoles at once,
  one forward pass, one action draw and one env step, writes the rollout into preallocated
  tensors on the env's device, and cuts it into RLlib `SingleAgentEpisode`s once per rollout
  (Python work in the number of consoles plus episodes, not steps).
* `FramesPPOTorchRLModule`: RLlib's default PPO module fed uint8 frames, scaled to [0, 1] on the
  module's device, so that episodes, Ray's object store and the learner's batch carry bytes.
* `vector_env_creator`: the vector env (cule_py's, or ale-py's for comparisons) with channels-last
  observations, as RLlib's CNN encoder expects: a view, no copy (the encoder permutes it back to
  the emulator's own channels-first layout).
"""

from __future__ import annotations

import math
import time
import uuid
from typing import Any

import gymnasium as gym
import numpy as np

try:
    import torch
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.algorithms.ppo.torch.default_ppo_torch_rl_module import (
        DefaultPPOTorchRLModule)
    from ray.rllib.core.columns import Columns
    from ray.rllib.core.rl_module.default_model_config import DefaultModelConfig
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.rllib.env.single_agent_env_runner import SingleAgentEnvRunner
    from ray.rllib.env.single_agent_episode import SingleAgentEpisode
    from ray.rllib.env.utils.infinite_lookback_buffer import InfiniteLookbackBuffer
    from ray.rllib.utils.metrics import WEIGHTS_SEQ_NO
except ImportError as err:          # pragma: no cover - the message is the point
    raise ImportError("cule_py.rllib needs RLlib and PyTorch: pip install 'cule_py[rllib]' "
                      f"and PyTorch (pytorch.org) ({err})") from err

from gymnasium.vector import VectorEnv, VectorWrapper

from .gym_env import make_vec
from .rollout import as_tensor, collect_rollout, episode_spans

__all__ = ["CuleEnvRunner", "FramesPPOTorchRLModule", "vector_env_creator", "ppo_config",
           "NATURE_CNN", "ChannelsLast"]

#: The DQN/PPO Atari network (Mnih et al. 2015) in RLlib's conv-filter notation, for 84x84
#: frames: 84 -> 20 -> 9 -> 7, then a 512-unit layer before the policy and value heads.
NATURE_CNN = [[32, 8, 4, "valid"], [64, 4, 2, "valid"], [64, 3, 1, "valid"]]


# -- the vector env -------------------------------------------------------------------------------
class ChannelsLast(VectorWrapper):
    """Observations (num_envs, stack, H, W) as a (num_envs, H, W, stack) view (RGB: (num_envs,
    stack, H, W, 3) as (num_envs, H, W, 3 * stack) needs a copy, so RGB stacks are refused)."""

    def __init__(self, env: VectorEnv):
        super().__init__(env)
        space = env.single_observation_space
        if len(space.shape) != 3:
            raise ValueError(f"ChannelsLast takes stacked grayscale frames (stack, H, W), got "
                             f"observations of shape {space.shape}: use grayscale=True")
        self.single_observation_space = gym.spaces.Box(
            0, 255, space.shape[1:] + space.shape[:1], np.uint8)
        self.observation_space = gym.vector.utils.batch_space(self.single_observation_space,
                                                              env.num_envs)

    @staticmethod
    def _view(obs):
        return obs.permute(0, 2, 3, 1) if hasattr(obs, "permute") else obs.transpose(0, 2, 3, 1)

    def reset(self, *, seed=None, options=None):
        obs, info = self.env.reset(seed=seed, options=options)
        return self._view(obs), info

    def step(self, actions):
        obs, *rest = self.env.step(actions)
        return (self._view(obs), *rest)


def vector_env_creator(env_config: dict) -> VectorEnv:
    """RLlib env creator: `env_config` holds "env_id" (an Atari id, "ALE/Pong-v5" or
    "cule_py/Pong-v5"), "num_envs", optionally "backend" ("cule_py", the default, or "ale_py":
    ale-py's AtariVectorEnv, for side-by-side runs) and any make_vec argument (device,
    array_type, noop_max, ...). Returns the vector env with channels-last observations.

    For RLlib's stock env runner: `tune.register_env("cule", vector_env_creator)` and
    `config.env_runners(gym_env_vectorize_mode="vector_entry_point")`."""
    config = dict(env_config)
    env_id = config.pop("env_id", None) or config.pop("env", None)
    if env_id is None:
        raise ValueError("env_config needs 'env_id', an Atari id such as 'ALE/Pong-v5'")
    num_envs = int(config.pop("num_envs", 1))
    backend = config.pop("backend", "cule_py")
    for key in ("worker_index", "num_workers", "remote", "vector_index"):
        config.pop(key, None)
    if backend == "cule_py":
        env = make_vec(env_id, num_envs, **config)
    elif backend == "ale_py":
        import ale_py

        gym.register_envs(ale_py)
        unsupported = sorted({"device", "array_type", "episode_statistics"} & set(config))
        if unsupported:
            raise ValueError(f"backend='ale_py' (ale-py's AtariVectorEnv, CPU, numpy) takes no "
                             f"{', '.join(unsupported)}: drop them from env_config")
        ale_id = env_id.replace("cule_py/", "ALE/")
        env = gym.make_vec(ale_id, num_envs, vectorization_mode="vector_entry_point", **config)
    else:
        raise ValueError(f"backend must be 'cule_py' or 'ale_py', got {backend!r}")
    return ChannelsLast(env)


# -- the module -----------------------------------------------------------------------------------
def _scaled(batch: dict) -> dict:
    obs = batch[Columns.OBS]
    if isinstance(obs, torch.Tensor) and obs.dtype == torch.uint8:
        batch = dict(batch)
        batch[Columns.OBS] = obs.to(torch.float32).mul_(1.0 / 255.0)
    return batch


class FramesPPOTorchRLModule(DefaultPPOTorchRLModule):
    """RLlib's default PPO module (any encoder its catalog builds) fed uint8 observations: they
    are scaled to [0, 1] float32 inside the forward passes, on the module's device."""

    def _forward(self, batch, **kwargs):
        return super()._forward(_scaled(batch), **kwargs)

    def _forward_train(self, batch, **kwargs):
        return super()._forward_train(_scaled(batch), **kwargs)

    def compute_values(self, batch, embeddings=None):
        return super().compute_values(_scaled(batch) if embeddings is None else batch, embeddings)


# -- the env runner -------------------------------------------------------------------------------
class CuleEnvRunner(SingleAgentEnvRunner):
    """SingleAgentEnvRunner whose sample loop is batched over the consoles (module doc).

    The env comes from `vector_env_creator(config.env_config | {"env_id": config.env, "num_envs":
    config.num_envs_per_env_runner})`; the device of cule_py's consoles defaults to the env
    runner's (a GPU when `num_gpus_per_env_runner` gives it one). RLlib's env-to-module and
    module-to-env connector pipelines are not run by the sample loop (their per-episode work is
    what the loop avoids): the module gets the frames, actions are drawn from its action
    distribution, as RLlib's default connectors do. Custom connectors raise an error.
    """

    def __init__(self, *, config, **kwargs):
        if (getattr(config, "_env_to_module_connector", None) is not None
                or getattr(config, "_module_to_env_connector", None) is not None):
            raise ValueError("CuleEnvRunner does not run env-to-module or module-to-env "
                             "connectors; frame stacking and scaling are done by cule_py and "
                             "FramesPPOTorchRLModule. Use RLlib's SingleAgentEnvRunner with "
                             "vector_env_creator for custom connectors.")
        self._carry = None              # what a rollout hands the next (_reset_consoles)
        self._open_chunks = None        # episode id -> its chunks, while sampling episodes
        #: Seconds spent so far in the module's forward passes and action draws, in env steps,
        #: in the rollouts' host copies and in cutting them into episodes.
        self.timings = {"inference": 0.0, "env": 0.0, "host_copy": 0.0, "episodes": 0.0}
        super().__init__(config=config, **kwargs)

    # RLlib calls make_env from its constructor and again when the config changes.
    def make_env(self) -> None:
        if self.env is not None:
            self.env.close()
        env_config = dict(self.config.env_config)
        env_config.setdefault("env_id", self.config.env)
        env_config["num_envs"] = self.config.num_envs_per_env_runner
        backend = env_config.get("backend", "cule_py")
        if backend == "cule_py":
            if "device" not in env_config:
                device = getattr(self, "_device", None)
                env_config["device"] = "cuda" if getattr(device, "type", "cpu") == "cuda" else "cpu"
            env_config["array_type"] = "torch"
            env_config.setdefault("episode_statistics", True)
        self.env = vector_env_creator(env_config)
        self.num_envs = self.env.num_envs
        self._backend = backend
        self._needs_initial_reset = True
        self._carry = None

    # -- sampling ---------------------------------------------------------------------------------
    def _sample(self, *, num_timesteps=None, num_episodes=None, explore, random_actions=False,
                force_reset=False):
        if num_episodes is not None:
            return self._sample_episodes(num_episodes, explore, random_actions)
        if force_reset or self._needs_initial_reset:
            self._reset_consoles()
        steps = max(1, math.ceil(num_timesteps / self.num_envs))
        episodes, done = self._rollout(steps, explore, random_actions)
        ts = sum(len(e) for e in episodes)
        self._log_env_steps(metric=self._metrics_num_env_steps_sampled, num_steps=ts)
        self._increase_sampled_metrics(ts, done)
        return episodes

    def _sample_episodes(self, num_episodes, explore, random_actions):
        """Whole episodes (evaluation): fresh consoles, rollouts of 128 steps until
        `num_episodes` have ended; the unfinished ones are dropped."""
        self._reset_consoles()
        self._open_chunks = {}          # kept only here, to stitch long episodes
        finished, ts = [], 0
        while len(finished) < num_episodes:
            chunks, _ = self._rollout(128, explore, random_actions)
            ts += sum(len(e) for e in chunks)
            finished.extend(e for e in chunks if e.is_done and e.t_started == 0)
            # An episode longer than one rollout comes back in chunks: stitch by id.
            for e in chunks:
                if e.is_done and e.t_started > 0:
                    finished.append(self._stitched(e))
        self._open_chunks = None
        self._needs_initial_reset = True
        self._log_env_steps(metric=self._metrics_num_env_steps_sampled, num_steps=ts)
        self._increase_sampled_metrics(ts, len(finished))
        return finished[:num_episodes]

    def _stitched(self, last):
        parts = self._open_chunks.pop(last.id_, []) + [last]
        return self._episode(
            last.id_, np.concatenate([p.observations.data[:-1] for p in parts[:-1]]
                                     + [last.observations.data]),
            *(np.concatenate([getattr(p, name).data for p in parts])
              for name in ("actions", "rewards")),
            {k: np.concatenate([p.extra_model_outputs[k].data for p in parts])
             for k in last.extra_model_outputs},
            last.is_terminated, last.is_truncated, 0, last.infos.data[0]["console"])

    def _reset_consoles(self):
        obs, _ = self.env.reset(seed=self._console_seed() if self._needs_initial_reset else None)
        n = self.num_envs
        self._carry = dict(obs=as_tensor(obs).clone(), reset_pending=np.zeros(n, bool),
                           ids=[uuid.uuid4().hex for _ in range(n)],
                           t=np.zeros(n, np.int64), start=np.full(n, time.time()),
                           returns=np.zeros(n))
        self._needs_initial_reset = False

    def _console_seed(self):
        """Console i of env runner w gets seed + w * num_envs + i: RLlib's own per-runner seed
        (seed + w) would give runner w's console 1 the seed of runner w + 1's console 0."""
        if self.config.seed is None:
            return None
        return int(self.config.seed + (self.worker_index or 0) * self.num_envs
                   + 1_000_000 * bool(self.config.in_evaluation))

    @torch.no_grad()
    def _rollout(self, steps: int, explore: bool, random_actions: bool):
        """`steps` env steps of every console into device buffers, then episodes (the loop:
        cule_py.rollout.collect_rollout)."""
        carry, n = self._carry, self.num_envs
        num_actions = int(self.env.single_action_space.n)
        env_device = carry["obs"].device
        module_device = self._device if self.module is not None else env_device

        def policy(obs):
            if random_actions or self.module is None:
                return torch.randint(0, num_actions, (n,), device=env_device), None, None
            batch = {Columns.OBS: obs}
            if explore:
                out = self.module.forward_exploration(batch, t=self.num_env_steps_sampled_lifetime)
                dist = self.module.get_exploration_action_dist_cls()
            else:
                out = self.module.forward_inference(batch)
                dist = self.module.get_inference_action_dist_cls()
            logits = out[Columns.ACTION_DIST_INPUTS]
            dist = dist.from_logits(logits)
            if not explore:
                dist = dist.to_deterministic()
            actions = dist.sample()
            return actions, logits, dist.logp(actions) if explore else None

        host, carry["obs"] = collect_rollout(
            self.env, carry["obs"], steps, policy, policy_device=module_device,
            env_takes_tensors=self._backend == "cule_py", timings=self.timings)
        tick = time.perf_counter()
        if host["logits"] is None:
            host["logits"] = np.zeros((n, steps, num_actions), np.float32)
        episodes, done = self._cut_into_episodes(host, steps)
        self.timings["episodes"] += time.perf_counter() - tick
        return episodes, done

    def _cut_into_episodes(self, host: dict, steps: int):
        """RLlib episodes from the rollout's spans (cule_py.rollout.episode_spans: a reset step
        belongs to no episode and counts as no timestep)."""
        carry = self._carry
        episodes, finished = [], 0
        seq_no = self._weights_seq_no
        for span in episode_spans(host["terminated"], host["truncated"], carry["reset_pending"]):
            n, begin, end = span.console, span.begin, span.end
            ep = self._chunk(host, n, begin, end, seq_no, span.terminated, span.truncated)
            episodes.append(ep)
            if span.finished:
                finished += 1
                score = (float(host["score"][n, end - 1]) if host["has_scores"]
                         else carry["returns"][n] + float(host["rewards"][n, begin:end].sum()))
                self._log_episode_metrics(int(carry["t"][n]) + len(ep), score,
                                          time.time() - carry["start"][n])
                carry["ids"][n] = uuid.uuid4().hex
                carry["t"][n] = 0
                carry["returns"][n] = 0.0
                carry["start"][n] = time.time()
            else:
                if self._open_chunks is not None:
                    self._open_chunks.setdefault(ep.id_, []).append(ep)
                carry["t"][n] += len(ep)
                carry["returns"][n] += float(host["rewards"][n, begin:end].sum())
        return episodes, finished

    def _chunk(self, host, n, begin, end, seq_no, terminated, truncated):
        extra = {Columns.ACTION_LOGP: host["logp"][n, begin:end],
                 Columns.ACTION_DIST_INPUTS: host["logits"][n, begin:end],
                 WEIGHTS_SEQ_NO: np.full(end - begin, seq_no, np.int64)}
        return self._episode(self._carry["ids"][n], host["obs"][n, begin:end + 1],
                             host["actions"][n, begin:end], host["rewards"][n, begin:end], extra,
                             terminated, truncated, int(self._carry["t"][n]), console=n)

    def _episode(self, id_, obs, actions, rewards, extra, terminated, truncated, t_started,
                 console):
        # One info dict per chunk, shared by its steps: which console played it.
        info = {"console": console}
        return SingleAgentEpisode(
            id_,
            observations=InfiniteLookbackBuffer(obs),
            infos=InfiniteLookbackBuffer([info] * len(obs)),
            actions=InfiniteLookbackBuffer(actions),
            rewards=InfiniteLookbackBuffer(rewards),
            extra_model_outputs={k: InfiniteLookbackBuffer(v) for k, v in extra.items()},
            observation_space=self.env.single_observation_space,
            action_space=self.env.single_action_space,
            terminated=terminated, truncated=truncated, t_started=t_started,
            len_lookback_buffer=0)

    def get_metrics(self):
        # Episode metrics are logged as the episodes end (_cut_into_episodes).
        return self.metrics.reduce()


# -- a ready PPO config ---------------------------------------------------------------------------
def ppo_config(env_id: str, *, num_env_runners: int = 0, num_envs_per_env_runner: int = 64,
               rollout_fragment_length: int = 128, device: str | None = None,
               num_gpus_per_env_runner: float = 0, conv_filters=None,
               **env_kwargs: Any) -> PPOConfig:
    """PPOConfig for `env_id` on cule_py: CuleEnvRunner, FramesPPOTorchRLModule with the Nature
    CNN, and the usual Atari PPO hyperparameters (Schulman et al. 2017: lr 2.5e-4, clip 0.1,
    4 epochs, GAE lambda 0.95, entropy 0.01). `env_kwargs` go to make_vec (noop_max,
    repeat_action_probability, ...); `device` to cule_py (default: the env runner's). Change
    anything afterwards with PPOConfig's own methods."""
    env_config = dict(env_kwargs, env_id=env_id)
    if device is not None:
        env_config["device"] = device
    batch = num_envs_per_env_runner * rollout_fragment_length * max(1, num_env_runners)
    model = DefaultModelConfig(conv_filters=conv_filters or NATURE_CNN, conv_activation="relu",
                               head_fcnet_hiddens=[512], head_fcnet_activation="relu",
                               vf_share_layers=True)
    return (
        PPOConfig()
        .environment(env=env_id, env_config=env_config)
        .env_runners(env_runner_cls=CuleEnvRunner, num_env_runners=num_env_runners,
                     num_envs_per_env_runner=num_envs_per_env_runner,
                     rollout_fragment_length=rollout_fragment_length,
                     num_gpus_per_env_runner=num_gpus_per_env_runner)
        .rl_module(rl_module_spec=RLModuleSpec(module_class=FramesPPOTorchRLModule,
                                               model_config=model))
        .training(lr=2.5e-4, gamma=0.99, lambda_=0.95, clip_param=0.1, vf_clip_param=10.0,
                  entropy_coeff=0.01, num_epochs=4, train_batch_size_per_learner=batch,
                  minibatch_size=max(32, batch // 4), grad_clip=0.5, vf_loss_coeff=0.5)
    )
