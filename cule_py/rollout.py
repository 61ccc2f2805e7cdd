"""A batched rollout into device buffers, one host copy, and where its episodes begin and end.

This is the sample loop of `cule_py.rllib.CuleEnvRunner` without Ray: per step, for all
consoles at once, one policy call and one env step, written into preallocated tensors on the
env's device; after the rollout one device-to-host copy, and the episode spans cut from the end
flags (Python work in the number of consoles plus episodes, not steps). CuleEnvRunner turns the
spans into RLlib episodes; `benchmarks/env_runner_device_path.py` measures the same loop where
Ray is not installed (the GPU machine: Ray's wheel alone is larger than what travels there).

Needs PyTorch. The env is a Gymnasium vector env in NextStep autoreset mode: cule_py's (any
array type; DLPack makes device arrays torch tensors without a copy) or ale-py's (numpy).
"""

from __future__ import annotations

import time
from typing import Callable, NamedTuple

import numpy as np
import torch

__all__ = ["Policy", "Span", "as_tensor", "collect_rollout", "episode_spans"]

#: obs (n, ...) uint8 on the policy's device -> actions (n,) int64, and the action
#: distribution's inputs (n, num_actions) and log-probabilities (n,) of those actions (either
#: None when the policy has none, e.g. random actions).
Policy = Callable[[torch.Tensor],
                  tuple[torch.Tensor, torch.Tensor | None, torch.Tensor | None]]


def as_tensor(value) -> torch.Tensor:
    """A torch view of an env's array: torch as is, device arrays through DLPack, numpy shared."""
    if isinstance(value, torch.Tensor):
        return value
    if hasattr(value, "__cuda_array_interface__"):
        return torch.from_dlpack(value)
    return torch.from_numpy(np.asarray(value))


def collect_rollout(env, first_obs: torch.Tensor, steps: int, policy: Policy, *,
                    policy_device: torch.device | None = None, env_takes_tensors: bool = True,
                    synchronize: Callable[[], None] | None = None,
                    timings: dict | None = None) -> tuple[dict, torch.Tensor]:
    """`steps` env steps of every console from `first_obs` (the env's current observations),
    actions from `policy`; returns the rollout on the host (numpy arrays, console first:
    "obs" (n, steps + 1, ...), "actions", "logp", "rewards", "terminated", "truncated",
    "score" (n, steps), "logits" (n, steps, A) or None; "has_scores": the env's info carried
    cule_py's unclipped episode returns) and the last observations (a device copy, the next
    rollout's `first_obs`). `env_takes_tensors`: actions go to the env as device tensors (cule_py),
    else as numpy (ale-py). `synchronize` (e.g. torch.cuda.synchronize), when given, is called
    between the phases so that `timings` ("inference", "env", "host_copy", seconds, added to)
    charge asynchronous GPU work to the phase that launched it; without it the loop runs
    unsynchronised and the split is only where the host waited."""
    n = env.num_envs
    dev = first_obs.device
    policy_device = policy_device or dev
    sync = synchronize or (lambda: None)
    obs_buf = torch.empty((n, steps + 1) + tuple(first_obs.shape[1:]), dtype=first_obs.dtype,
                          device=dev)
    obs_buf[:, 0] = first_obs
    act_buf = torch.empty((n, steps), dtype=torch.int64, device=dev)
    logp_buf = torch.zeros((n, steps), dtype=torch.float32, device=dev)
    logits_buf = None
    rew_buf = torch.empty((n, steps), dtype=torch.float32, device=dev)
    term_buf = torch.empty((n, steps), dtype=torch.bool, device=dev)
    trunc_buf = torch.empty((n, steps), dtype=torch.bool, device=dev)
    score_buf = torch.zeros((n, steps), dtype=torch.float64, device=dev)
    has_scores = False
    t_inference = t_env = 0.0
    for t in range(steps):
        tick = time.perf_counter()
        actions, logits, logp = policy(obs_buf[:, t].to(policy_device, non_blocking=True))
        if logits is not None:
            if logits_buf is None:
                logits_buf = torch.empty((n, steps, logits.shape[-1]), dtype=logits.dtype,
                                         device=dev)
            logits_buf[:, t] = logits
        if logp is not None:
            logp_buf[:, t] = logp
        actions = actions.to(dev)
        act_buf[:, t] = actions
        sync()
        tock = time.perf_counter()
        env_actions = actions if env_takes_tensors else actions.cpu().numpy()
        obs, rewards, terminated, truncated, info = env.step(env_actions)
        obs_buf[:, t + 1] = as_tensor(obs)
        rew_buf[:, t] = as_tensor(rewards)
        term_buf[:, t] = as_tensor(terminated)
        trunc_buf[:, t] = as_tensor(truncated)
        if "episode" in info:
            score_buf[:, t] = as_tensor(info["episode"]["r"])
            has_scores = True
        sync()
        t_env += time.perf_counter() - tock
        t_inference += tock - tick
    last = obs_buf[:, steps].clone()
    tick = time.perf_counter()
    # The one host copy of the rollout (a no-op on the CPU backend).
    host = {name: buf.cpu().numpy() for name, buf in (
        ("obs", obs_buf), ("actions", act_buf), ("logp", logp_buf), ("rewards", rew_buf),
        ("terminated", term_buf), ("truncated", trunc_buf), ("score", score_buf))}
    host["logits"] = logits_buf.cpu().numpy() if logits_buf is not None else None
    host["has_scores"] = has_scores
    if timings is not None:
        timings["inference"] = timings.get("inference", 0.0) + t_inference
        timings["env"] = timings.get("env", 0.0) + t_env
        timings["host_copy"] = timings.get("host_copy", 0.0) + time.perf_counter() - tick
    return host, last


class Span(NamedTuple):
    """Steps [begin, end) of console `console`'s episode inside a rollout; its observations are
    obs[console, begin:end + 1]. `finished`: the episode ended at step end - 1 (terminated, or
    truncated and not terminated); else it goes on in the next rollout."""
    console: int
    begin: int
    end: int
    finished: bool
    terminated: bool
    truncated: bool


def episode_spans(terminated: np.ndarray, truncated: np.ndarray,
                  reset_pending: np.ndarray) -> list[Span]:
    """The episodes of a rollout, per console in order, from its (n, steps) end flags.

    NextStep autoreset: the step after a console's episode ended is its reset step (the action
    ignored, the new episode's first observation returned); it belongs to no episode.
    `reset_pending[n]` says that console n's first step is such a step (its episode ended on the
    previous rollout's last step); it is updated in place for the next rollout."""
    steps = terminated.shape[1]
    done = terminated | truncated
    spans = []
    for n in range(terminated.shape[0]):
        begin = 1 if reset_pending[n] else 0
        for end in np.flatnonzero(done[n]):
            if end < begin:
                continue
            term = bool(terminated[n, end])
            spans.append(Span(n, begin, int(end) + 1, True, term,
                              bool(truncated[n, end]) and not term))
            begin = int(end) + 2
        if begin < steps:
            spans.append(Span(n, begin, steps, False, False, False))
        reset_pending[n] = begin == steps + 1
    return spans
