"""The lock-step issue on the CPU, measured: how much each console's share of an agent step
varies, and what a batched step pays for waiting on its slowest thread.

    python -m benchmarks.step_spread --game breakout --consoles 32 --steps 400

cule_py's `AtariVectorEnv` (v5 settings, NextStep autoreset, random actions) is stepped as usual,
but each console's part of every step is timed on its own: the step kernel and then the
autoreset kernel, launched with a mask that selects that one console, on one numba thread. A
console whose episode ended resets in that step instead of playing (NextStep), so its time that
step is the reset's. The launch overhead (the same two calls with an empty mask) is measured and
subtracted.

From the (steps x consoles) matrix of times it reports the spread (percentiles, reset steps
apart) and, for T threads, what a batched step would take if numba hands each thread a
contiguous share of the consoles (its static schedule): the slowest share's sum, against the
ideal sum / T. The same two kernels are also launched over the whole batch on this machine's
threads and timed, as a check of that model.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time

import numpy as np

from cule_py import _threads
from cule_py.kernels.agent import agent_step as K
from cule_py.vector import AtariVectorEnv


def _one_console_step(env: AtariVectorEnv, mask: np.ndarray, threads: int = 1) -> None:
    _threads.run_on_threads(threads, K.agent_step_cpu, env._step_args(mask))
    _threads.run_on_threads(threads, K.agent_reset_cpu, env._reset_args(K.OP_AUTORESET, mask))


def measure(game: str, consoles: int, steps: int, warmup: int, seed: int) -> dict:
    env = AtariVectorEnv(game, consoles, repeat_action_probability=0.25)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    n_actions = env.single_action_space.n
    for _ in range(warmup):                      # decorrelate: noop starts, sticky actions
        env.step(rng.integers(0, n_actions, consoles))
    times = np.zeros((steps, consoles))
    resets = np.zeros((steps, consoles), bool)
    empty = np.zeros(consoles, bool)
    overhead = []
    for t in range(steps):
        env._actions[:] = rng.integers(0, n_actions, consoles)
        resets[t] = env._agent[:, K.A_NEEDS_RESET] != 0
        for i in range(consoles):
            mask = np.zeros(consoles, bool)
            mask[i] = True
            start = time.perf_counter()
            _one_console_step(env, mask)
            times[t, i] = time.perf_counter() - start
        start = time.perf_counter()
        _one_console_step(env, empty)
        overhead.append(time.perf_counter() - start)
    launch = float(np.median(overhead))
    times = np.maximum(times - launch, 0.0)
    # The same two kernels over the whole batch on this machine's threads (no Python around).
    threads = env._threads
    everyone = np.ones(consoles, bool)
    batched = []
    for _ in range(3):
        start = time.perf_counter()
        for _ in range(50):
            env._actions[:] = rng.integers(0, n_actions, consoles)
            _one_console_step(env, everyone, threads)
        batched.append((time.perf_counter() - start) / 50)
    env.close()

    def lockstep(n_threads: int) -> dict:
        shares = np.array_split(np.arange(consoles), n_threads)
        slowest = np.max([times[:, s].sum(axis=1) for s in shares], axis=0)
        ideal = times.sum(axis=1) / n_threads
        return {"threads": n_threads, "mean_step_ms": float(slowest.mean() * 1e3),
                "ideal_ms": float(ideal.mean() * 1e3),
                "waiting_share": float(1 - ideal.sum() / slowest.sum())}

    play, reset = times[~resets], times[resets]
    pct = [50, 90, 99, 100]
    return {
        "game": game, "consoles": consoles, "steps": steps,
        "machine": f"{platform.machine()}, {os.cpu_count()} cores",
        "launch_overhead_ms": launch * 1e3,
        "play_ms_percentiles": dict(zip(map(str, pct),
                                        (np.percentile(play, pct) * 1e3).round(3).tolist())),
        "reset_ms_percentiles": (dict(zip(map(str, pct),
                                          (np.percentile(reset, pct) * 1e3).round(3).tolist()))
                                 if reset.size else None),
        "reset_steps": int(resets.sum()),
        "reset_share_of_time": float(reset.sum() / times.sum()),
        "lockstep": [lockstep(n) for n in (1, 2, 4, 8, 16) if n <= consoles],
        "batched_step_ms_this_machine": float(min(batched) * 1e3),
        "batched_threads": threads,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", default="breakout")
    parser.add_argument("--consoles", type=int, default=32)
    parser.add_argument("--steps", type=int, default=400)
    parser.add_argument("--warmup", type=int, default=300)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", default=None)
    args = parser.parse_args()
    result = measure(args.game, args.consoles, args.steps, args.warmup, args.seed)
    print(json.dumps(result, indent=1))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(result, f, indent=1)


if __name__ == "__main__":
    main()
