"""Stable-Baselines3 on cule_py: a `VecEnv` over cule_py's AtariVectorEnv.

    from stable_baselines3 import PPO
    from cule_py.sb3 import CuleVecEnv
    env = CuleVecEnv("ALE/Breakout-v5", num_envs=16)
    PPO("CnnPolicy", env).learn(1_000_000)

SB3 has no adapter from a Gymnasium vector env, and its VecEnv conventions differ from
Gymnasium's: same-step autoreset (a console whose episode ended returns its next episode's first
observation, the last one in `info["terminal_observation"]`), one `done` flag with
`info["TimeLimit.truncated"]` for truncations, Monitor-style `info["episode"]` ({"r", "l", "t"})
when an episode ends, and a list of info dicts. CuleVecEnv runs cule_py's env in its SameStep
mode with `episode_statistics=True`, so "r" is the game's unclipped score (what SB3's Monitor
reports over an unclipped env) while the rewards the agent learns from are clipped (reward_clipping,
as ale-py's vector env). Each info also holds the console's `lives`.

SB3 takes numpy arrays: with device="cuda" every step copies observations to the host (4 x 84 x
84 bytes per console), so SB3 gains from cule_py's GPU consoles only at batch sizes where that copy
is small next to the policy; RLlib (cule_py.rllib) and TorchRL keep tensors on the device.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

try:
    from stable_baselines3.common.vec_env.base_vec_env import VecEnv
except ImportError as err:          # pragma: no cover - the message is the point
    raise ImportError("cule_py.sb3 needs Stable-Baselines3: pip install 'cule_py[sb3]' "
                      f"({err})") from err

from .gym_env import make_vec

__all__ = ["CuleVecEnv"]


def _host(value) -> np.ndarray:
    return value.get() if hasattr(value, "__cuda_array_interface__") else np.asarray(value)


class CuleVecEnv(VecEnv):
    """`num_envs` consoles of `env_id` (an Atari id: "ALE/Pong-v5", "cule_py/Pong-v5",
    "PongNoFrameskip-v4", ...) as an SB3 VecEnv. `make_vec_kwargs` go to cule_py.make_vec
    (device, noop_max, episodic_life, ...); autoreset_mode and array_type are set here."""

    def __init__(self, env_id: str, num_envs: int, **make_vec_kwargs: Any):
        for fixed in ("autoreset_mode", "array_type", "episode_statistics"):
            if fixed in make_vec_kwargs:
                raise ValueError(f"CuleVecEnv sets {fixed} itself (SB3's conventions)")
        self.env_id = env_id
        self.vector_env = make_vec(env_id, num_envs, autoreset_mode="SameStep",
                                   episode_statistics=True, **make_vec_kwargs)
        self.render_mode = None
        self._actions = None
        self._start = time.time()
        super().__init__(num_envs, self.vector_env.single_observation_space,
                         self.vector_env.single_action_space)

    def reset(self) -> np.ndarray:
        seed = self._seeds[0]
        obs, info = self.vector_env.reset(seed=seed)
        self._reset_seeds()
        self._reset_options()
        self._start = time.time()
        self.reset_infos = self._infos(info)
        return _host(obs)             # a fresh array each call (AtariVectorEnv copies its own)

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions)

    def step_wait(self):
        obs, rewards, terminated, truncated, info = self.vector_env.step(self._actions)
        obs, terminated, truncated = _host(obs), _host(terminated), _host(truncated)
        dones = terminated | truncated
        infos = self._infos(info)
        if dones.any():
            final_obs = _host(info["final_obs"])
            episode = {k: _host(v) for k, v in info["episode"].items()}
            for i in np.flatnonzero(dones):
                infos[i]["terminal_observation"] = final_obs[i].copy()
                infos[i]["TimeLimit.truncated"] = bool(truncated[i] and not terminated[i])
                infos[i]["episode"] = {"r": float(episode["r"][i]), "l": int(episode["l"][i]),
                                       "t": round(time.time() - self._start, 6)}
        return obs, _host(rewards).astype(np.float32), dones, infos

    @staticmethod
    def _infos(info: dict) -> list[dict]:
        return [{"lives": lives} for lives in _host(info["lives"]).tolist()]

    def close(self) -> None:
        self.vector_env.close()

    # The per-env attribute API of SB3 (its wrappers and callbacks call it): the consoles
    # share one env object, so an attribute is the vector env's, repeated per index.
    def get_attr(self, attr_name: str, indices=None) -> list[Any]:
        value = getattr(self, attr_name) if attr_name == "render_mode" \
            else getattr(self.vector_env, attr_name)
        return [value for _ in self._get_indices(indices)]

    def set_attr(self, attr_name: str, value: Any, indices=None) -> None:
        raise AttributeError(f"CuleVecEnv's consoles share one env: set {attr_name} when "
                             "building it (make_vec arguments)")

    def env_method(self, method_name: str, *method_args, indices=None, **method_kwargs):
        raise AttributeError(f"CuleVecEnv's consoles share one env: call "
                             f"env.vector_env.{method_name}(...) on the vector env")

    def env_is_wrapped(self, wrapper_class, indices=None) -> list[bool]:
        return [False for _ in self._get_indices(indices)]

    def get_images(self):
        frames = self.vector_env.render_frames(list(range(self.num_envs)))
        return list(_host(frames))
