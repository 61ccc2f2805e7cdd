"""RLlib sampling throughput with cule_py against ale-py, same RLModule, same cores, same run.

    python -m benchmarks.rllib_throughput                       # 1 and 2 env runners, Pong
    python -m benchmarks.rllib_throughput --runners 1 2 4 --envs-per-runner 64 --json out.json

Needs `pip install 'cule_py[rllib]'` and PyTorch. Three samplers, each with every env runner on
one core (Ray's num_cpus_per_env_runner=1, one emulator thread, one torch thread) and the same
FramesPPOTorchRLModule (Nature CNN, exploration forward pass and action draw each step):

* `cule`       CuleEnvRunner on cule_py's vector env (cule_py.rllib: the batched sample loop);
* `stock-cule` RLlib's SingleAgentEnvRunner on cule_py's vector env (vector entry point);
* `stock-ale`  RLlib's SingleAgentEnvRunner on ale-py's AtariVectorEnv (vector entry point),
               the baseline: what an RLlib user runs today.

For each it reports the median agent steps/s over `--rounds` paired rounds (each round one sample
call of every env runner of each sampler in turn, after one warm-up call), and where the time of
one runner goes: the module (forward pass and action
draw), the env step, and the rest (RLlib's per-console episode bookkeeping and connectors; for
`cule`, cutting the rollout into episodes). Steady state: episodes end and reset inside the
timed calls (the consoles are decorrelated by their noop starts and sticky actions).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time

import numpy as np

os.environ.setdefault("RAY_DEDUP_LOGS", "0")

import ray  # noqa: E402
from ray import tune  # noqa: E402
from ray.rllib.env.single_agent_env_runner import SingleAgentEnvRunner  # noqa: E402

from cule_py.rllib import ppo_config, vector_env_creator  # noqa: E402


class TimedStockRunner(SingleAgentEnvRunner):
    """RLlib's env runner, with the same cumulative timings as CuleEnvRunner.timings."""

    def __init__(self, *args, **kwargs):
        self.timings = {"inference": 0.0, "env": 0.0, "episodes": 0.0}
        super().__init__(*args, **kwargs)

    def make_module(self):
        super().make_module()
        for name in ("forward_exploration", "forward_inference"):
            inner = getattr(self.module, name)

            def timed(*a, _inner=inner, **kw):
                tick = time.perf_counter()
                try:
                    return _inner(*a, **kw)
                finally:
                    self.timings["inference"] += time.perf_counter() - tick
            setattr(self.module, name, timed)

    def _try_env_step(self, actions):
        tick = time.perf_counter()
        try:
            return super()._try_env_step(actions)
        finally:
            self.timings["env"] += time.perf_counter() - tick


def build(kind: str, game: str, runners: int, envs: int, rollout: int):
    env_config = dict(num_threads=1, noop_max=30, repeat_action_probability=0.25)
    config = ppo_config(game, num_env_runners=runners, num_envs_per_env_runner=envs,
                        rollout_fragment_length=rollout, **env_config)
    if kind != "cule":
        env_config["env_id"] = game
        tune.register_env("cule_py_vector", vector_env_creator)
        env_config["backend"] = "ale_py" if kind == "stock-ale" else "cule_py"
        config = (config.environment(env="cule_py_vector", env_config=env_config)
                  .env_runners(env_runner_cls=TimedStockRunner,
                               gym_env_vectorize_mode="vector_entry_point"))
    config = config.env_runners(num_cpus_per_env_runner=1).debugging(seed=0)
    return config.build_algo()


def _sample_round(group) -> tuple[int, float]:
    tick = time.perf_counter()
    steps = group.foreach_env_runner(lambda r: sum(len(e) for e in r.sample()),
                                     local_env_runner=False)
    return sum(steps), time.perf_counter() - tick


def measure(kinds: list[str], game: str, runners: int, envs: int, rollout: int,
            rounds: int) -> list[dict]:
    """Paired rounds: every sampler's env runners are built up front (idle actors cost no CPU),
    then each round times one sample call of each sampler in turn; medians over the rounds."""
    algos = {kind: build(kind, game, runners, envs, rollout) for kind in kinds}
    rates = {kind: [] for kind in kinds}
    try:
        groups = {kind: algo.env_runner_group for kind, algo in algos.items()}
        for group in groups.values():
            _sample_round(group)                                          # warm-up
        before = {kind: g.foreach_env_runner(lambda r: dict(r.timings), local_env_runner=False)
                  for kind, g in groups.items()}
        walls = dict.fromkeys(kinds, 0.0)
        for _ in range(rounds):
            for kind, group in groups.items():
                steps, wall = _sample_round(group)
                rates[kind].append(steps / wall)
                walls[kind] += wall
        after = {kind: g.foreach_env_runner(lambda r: dict(r.timings), local_env_runner=False)
                 for kind, g in groups.items()}
    finally:
        for algo in algos.values():
            algo.stop()
    rows = []
    for kind in kinds:
        per_runner = walls[kind] * runners
        spent = {k: sum(a[k] - b[k] for a, b in zip(after[kind], before[kind]))
                 for k in before[kind][0]}
        median = float(np.median(rates[kind]))
        rows.append(dict(sampler=kind, runners=runners, envs_per_runner=envs, rollout=rollout,
                         rounds=rounds, steps_per_s=round(median, 1),
                         steps_per_s_rounds=[round(x, 1) for x in rates[kind]],
                         frames_per_s=round(4 * median, 1),
                         share_inference=round(spent["inference"] / per_runner, 3),
                         share_env=round(spent["env"] / per_runner, 3),
                         share_rest=round(1 - (spent["inference"] + spent["env"]) / per_runner,
                                          3)))
    return rows


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="ALE/Pong-v5")
    parser.add_argument("--runners", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--envs-per-runner", type=int, default=32)
    parser.add_argument("--rollout", type=int, default=64)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--samplers", nargs="+", default=["cule", "stock-cule", "stock-ale"])
    parser.add_argument("--json", default=None, help="write the rows to this file")
    args = parser.parse_args(argv)

    cores = os.cpu_count()
    print(f"machine: {platform.processor() or platform.machine()}, {cores} cores; "
          f"Python {sys.version.split()[0]}, ray {ray.__version__}", flush=True)
    # Logical CPUs for every sampler's runners at once: only one sampler runs at a time.
    ray.init(num_cpus=len(args.samplers) * max(args.runners) + 1, include_dashboard=False,
             log_to_driver=False)
    rows = []
    print("| sampler | env runners | agent steps/s | frames/s | module | env step | rest |")
    print("|---|---|---|---|---|---|---|")
    for runners in args.runners:
        for row in measure(args.samplers, args.game, runners, args.envs_per_runner,
                           args.rollout, args.rounds):
            rows.append(row)
            kind = row["sampler"]
            print(f"| {kind} | {runners} | {row['steps_per_s']:,.0f} | {row['frames_per_s']:,.0f}"
                  f" | {row['share_inference']:.0%} | {row['share_env']:.0%} "
                  f"| {row['share_rest']:.0%} |", flush=True)
    ray.shutdown()
    if args.json:
        with open(args.json, "w") as f:
            json.dump(dict(game=args.game, cores=cores, rows=rows), f, indent=1)


if __name__ == "__main__":
    main()
