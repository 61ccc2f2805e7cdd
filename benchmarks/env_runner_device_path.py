"""The env runner's device path without Ray: CuleEnvRunner's sample loop, measured where Ray is
not installed (issue 29; the GPU machine has no Ray and Ray's wheel is larger than what travels
there).

    python -m benchmarks.env_runner_device_path                          # CPU, Pong, both sides
    python -m benchmarks.env_runner_device_path --device cuda --consoles 2048 --steps 32

The loop is cule_py.rollout.collect_rollout, the one CuleEnvRunner runs: per step one policy
forward pass and action draw for all consoles, one env step, the rollout written into
preallocated tensors on the env's device; per rollout one device-to-host copy and the episode
spans (cule_py.rollout.episode_spans). What Ray adds on top is not here: turning the spans into
RLlib SingleAgentEpisode objects (measured on the CPU by benchmarks/rllib_throughput.py, the
"rest" of a cule runner) and shipping them through Ray's object store to the learner.

The policy is the network `cule_py.rllib.ppo_config` builds (RLlib's default PPO module with the
Nature CNN encoder and a 512-unit policy head, value head unused while sampling) written in
plain torch; uint8 frames are scaled on the policy's device as FramesPPOTorchRLModule does.

Two samplers, the same loop and the same policy on `--device`:
* `cule`: cule_py's vector env on `--device` (on the GPU the frames never leave it until the
  rollout's host copy);
* `ale`:  ale-py's AtariVectorEnv on the machine's cores (`--env-threads`, default all), its
  frames copied to the policy's device every step: an RLlib env runner on ale-py with a GPU
  module.

Steady state: warm-up rollouts past the first episode ends (`--warmup-steps`, default the
harness's per-game figure, cut by `--time-budget`), then `--rollouts` timed rollouts with resets
inside, then one more rollout synchronised between its phases for the time breakdown (policy,
env step, host copy, spans). One JSON line per sampler.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time

import numpy as np

try:
    import torch
except ImportError as err:      # pragma: no cover - the message is the point
    raise SystemExit(f"needs PyTorch (pytorch.org): {err}") from err

from cule_py.rollout import as_tensor, collect_rollout, episode_spans

SAMPLERS = ("cule", "ale")


class NatureCNNPolicy(torch.nn.Module):
    """ppo_config's sampling network in plain torch: conv 32x8x8/4, 64x4x4/2, 64x3x3/1 (ReLU),
    then a 512-unit ReLU layer and the action logits."""

    def __init__(self, num_actions: int, frames: int = 4):
        super().__init__()
        self.encoder = torch.nn.Sequential(
            torch.nn.Conv2d(frames, 32, 8, 4), torch.nn.ReLU(),
            torch.nn.Conv2d(32, 64, 4, 2), torch.nn.ReLU(),
            torch.nn.Conv2d(64, 64, 3, 1), torch.nn.ReLU(), torch.nn.Flatten())
        self.pi = torch.nn.Sequential(torch.nn.Linear(64 * 7 * 7, 512), torch.nn.ReLU(),
                                      torch.nn.Linear(512, num_actions))

    def forward(self, frames: torch.Tensor) -> torch.Tensor:
        return self.pi(self.encoder(frames.to(torch.float32).mul_(1.0 / 255.0)))


def sampling_policy(net: NatureCNNPolicy):
    """The cule_py.rollout.Policy of an exploring PPO runner: logits, a categorical draw and
    its log-probability."""
    def policy(obs):
        logits = net(obs)
        dist = torch.distributions.Categorical(logits=logits)
        actions = dist.sample()
        return actions, logits, dist.log_prob(actions)
    return policy


def make_env(sampler: str, game: str, consoles: int, device: str, threads: int | None):
    """The vector env as cule_py.rllib.vector_env_creator builds it (channels-first: the
    channels-last view RLlib's encoder wants is a view either way); `threads`: its CPU threads
    (None: all cores; not used by cule_py on the GPU)."""
    import gymnasium as gym

    env_id = f"ALE/{''.join(w.capitalize() for w in game.split('_'))}-v5"
    if sampler == "cule":
        from cule_py import make_vec

        return make_vec(env_id, consoles, device=device, array_type="torch",
                        episode_statistics=True, num_threads=threads or 0)
    import ale_py

    gym.register_envs(ale_py)
    ale_py.ALEInterface.setLoggerMode(ale_py.LoggerMode.Error)
    return gym.make_vec(env_id, consoles, vectorization_mode="vector_entry_point",
                        num_threads=threads or 0)


def measure(sampler: str, *, game: str, consoles: int, steps: int, rollouts: int, device: str,
            warmup_steps: int, time_budget: float, env_threads: int | None = None,
            seed: int = 0, log=print) -> dict:
    """One sampler's steady-state figures (module doc)."""
    dev = torch.device(device)
    synchronize = torch.cuda.synchronize if dev.type == "cuda" else None
    env_device = device if sampler == "cule" else "cpu"
    built = time.perf_counter()
    env = make_env(sampler, game, consoles, env_device, env_threads)
    try:
        torch.manual_seed(seed)
        net = NatureCNNPolicy(int(env.single_action_space.n)).to(dev).eval()
        policy = sampling_policy(net)
        obs, _ = env.reset(seed=seed)
        first = as_tensor(obs).clone()
        reset_pending = np.zeros(consoles, bool)

        def rollout(sync=None, timings=None):
            nonlocal first
            host, first = collect_rollout(env, first, steps, policy, policy_device=dev,
                                          env_takes_tensors=sampler == "cule",
                                          synchronize=sync, timings=timings)
            tick = time.perf_counter()
            spans = episode_spans(host["terminated"], host["truncated"], reset_pending)
            if timings is not None:
                timings["spans"] = timings.get("spans", 0.0) + time.perf_counter() - tick
            return host, spans

        warm_ends = warm_steps = 0
        start = time.perf_counter()
        with torch.no_grad():
            # At least one rollout: the first launches load (or compile) the kernels.
            while warm_steps == 0 or (warm_steps < warmup_steps
                                      and time.perf_counter() - start < time_budget * 0.5):
                host, spans = rollout()
                warm_ends += sum(s.finished for s in spans)
                warm_steps += steps
            log(f"  {sampler}: warm-up {warm_steps} steps, {warm_ends} episode ends, "
                f"{time.perf_counter() - start:.1f} s (env built and reset in {start - built:.1f} s)")
            walls, ends, timesteps = [], 0, 0
            for _ in range(rollouts):
                tick = time.perf_counter()
                host, spans = rollout()
                walls.append(time.perf_counter() - tick)
                ends += sum(s.finished for s in spans)
                timesteps += sum(s.end - s.begin for s in spans)
            timings: dict = {}
            tick = time.perf_counter()
            host, _ = rollout(sync=synchronize, timings=timings)
            breakdown_wall = time.perf_counter() - tick
        # On the CPU the rollout's buffers are already host memory: nothing is copied.
        host_bytes = sum(v.nbytes for v in host.values() if isinstance(v, np.ndarray)) \
            if env_device != "cpu" else 0
        rates = [consoles * steps / w for w in walls]
        return {
            "sampler": sampler, "game": game, "consoles": consoles, "steps": steps,
            "rollouts": rollouts, "device": device, "env_device": env_device,
            "env_threads": env_threads if env_device == "cpu" else None,
            "env_steps_per_s": round(float(np.median(rates)), 1),
            "env_steps_per_s_rollouts": [round(r, 1) for r in rates],
            "frames_per_s": round(4 * float(np.median(rates)), 1),
            # Reset steps (NextStep autoreset) belong to no episode: RLlib counts the rest.
            "timesteps_per_s": round(timesteps / sum(walls), 1),
            "episode_ends_per_step": round(ends / (rollouts * steps), 4),
            "warmup_steps": warm_steps, "warmup_episode_ends": warm_ends,
            "host_copy_bytes": host_bytes,
            "breakdown_s": {k: round(v, 4) for k, v in timings.items()},
            "breakdown_share": {k: round(v / breakdown_wall, 3) for k, v in timings.items()},
            "breakdown_wall_s": round(breakdown_wall, 4),
            "host_copy_gb_per_s": round(host_bytes / timings["host_copy"] / 1e9, 2)
            if host_bytes and timings.get("host_copy") else None,
            "build_s": round(start - built, 1),
            "seconds_total": round(time.perf_counter() - built, 1),
        }
    finally:
        env.close()


def machine() -> dict:
    info = {"host": platform.node(), "cpu": platform.processor() or platform.machine(),
            "cores": os.cpu_count(), "python": platform.python_version(),
            "torch": torch.__version__, "torch_threads": torch.get_num_threads()}
    if torch.cuda.is_available():
        info["gpu"] = torch.cuda.get_device_name(0)
    return info


def main(argv=None) -> int:
    from cule_py.steady_state import default_warmup_steps

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="pong")
    parser.add_argument("--samplers", nargs="+", choices=SAMPLERS, default=list(SAMPLERS))
    parser.add_argument("--device", default="cpu", help="cpu or cuda: the policy's, and the "
                        "cule sampler's consoles'")
    parser.add_argument("--consoles", type=int, default=32)
    parser.add_argument("--ale-consoles", type=int, default=None,
                        help="ale-py's batch (default --consoles)")
    parser.add_argument("--steps", type=int, default=64, help="steps per rollout")
    parser.add_argument("--rollouts", type=int, default=5, help="timed rollouts")
    parser.add_argument("--warmup-steps", type=int, default=None)
    parser.add_argument("--time-budget", type=float, default=120.0,
                        help="seconds per sampler; the warm-up takes at most half")
    parser.add_argument("--env-threads", type=int, default=None,
                        help="the CPU envs' threads, both emulators (default: all cores)")
    parser.add_argument("--torch-threads", type=int, default=None)
    parser.add_argument("--json", default=None, help="append the JSON lines to this file")
    args = parser.parse_args(argv)
    if args.torch_threads:
        torch.set_num_threads(args.torch_threads)
    if args.device == "cuda" and not torch.cuda.is_available():
        raise SystemExit("--device cuda: torch sees no CUDA GPU")
    warmup = args.warmup_steps if args.warmup_steps is not None else default_warmup_steps(
        args.game)
    print(json.dumps({"machine": machine()}))
    for sampler in args.samplers:
        consoles = args.ale_consoles if sampler == "ale" and args.ale_consoles else args.consoles
        row = measure(sampler, game=args.game, consoles=consoles, steps=args.steps,
                      rollouts=args.rollouts, device=args.device, warmup_steps=warmup,
                      time_budget=args.time_budget, env_threads=args.env_threads,
                      log=lambda m: print(m, file=sys.stderr))
        line = json.dumps(row)
        print(line)
        if args.json:
            with open(args.json, "a") as f:
                f.write(line + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
