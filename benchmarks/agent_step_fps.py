"""Agent steps per second on the CPU: cule_py.vector.AtariVectorEnv against ale-py's
AtariVectorEnv, same game, same settings, same cores, in one run.

    python benchmarks/agent_step_fps.py --game breakout --envs 8 --steps 50

Both use `--cores` threads (default: every core this process may run on; numba's threads /
ale-py's num_threads). cule_py is timed twice: with lazy drawing (the default: only the last two
frames of a step get pixels) and drawing every frame, to show what that saves. Consoles
are decorrelated by `--warmup` random steps before timing (resets included, as they happen);
the figure is the median of `--repeats` timed runs of `--steps` steps with random actions.
Frames/s = steps/s x frameskip (resets not counted).
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import time

import numpy as np


def _time(env, n_actions, envs, steps, warmup, repeats, seed):
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    for _ in range(warmup):
        env.step(rng.integers(0, n_actions, envs))
    rates = []
    for _ in range(repeats):
        actions = [rng.integers(0, n_actions, envs) for _ in range(steps)]
        start = time.perf_counter()
        for a in actions:
            env.step(a)
        rates.append(steps * envs / (time.perf_counter() - start))
    return statistics.median(rates), rates


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", default="breakout")
    parser.add_argument("--envs", type=int, default=8)
    parser.add_argument("--steps", type=int, default=50)
    parser.add_argument("--warmup", type=int, default=20)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--frameskip", type=int, default=4)
    parser.add_argument("--sticky", type=float, default=0.25)
    parser.add_argument("--cores", type=int, default=len(os.sched_getaffinity(0)))
    args = parser.parse_args()
    cores = args.cores
    import numba

    numba.set_num_threads(cores)
    kw = dict(frameskip=args.frameskip, repeat_action_probability=args.sticky)

    from ale_py.vector_env import AtariVectorEnv as AleVector

    from cule_py.vector import AtariVectorEnv

    ours = AtariVectorEnv(args.game, args.envs, **kw)
    full = AtariVectorEnv(args.game, args.envs, lazy_drawing=False, **kw)
    n_actions = len(ours.action_set)
    for env in (ours, full):
        env.reset(seed=0)
        env.step(np.zeros(args.envs, np.int64))         # compile / load the kernel untimed
    ale = AleVector(args.game, args.envs, num_threads=cores, **kw)
    ours_rate, ours_runs = _time(ours, n_actions, args.envs, args.steps, args.warmup,
                                 args.repeats, 1)
    full_rate, full_runs = _time(full, n_actions, args.envs, args.steps, args.warmup,
                                 args.repeats, 1)
    ale_rate, ale_runs = _time(ale, n_actions, args.envs, args.steps, args.warmup,
                               args.repeats, 1)
    print(f"machine: {platform.processor() or platform.machine()}, {cores} cores used, "
          f"load average {os.getloadavg()[0]:.1f}")
    print(f"{args.game}, {args.envs} envs, frameskip {args.frameskip}, sticky {args.sticky}, "
          f"84x84 grayscale, stack 4, maxpool, noop_max 30, random actions")
    for label, rate, runs in (("cule_py (cpu, lazy drawing)", ours_rate, ours_runs),
                              ("cule_py (cpu, every frame)  ", full_rate, full_runs),
                              ("ale-py AtariVectorEnv       ", ale_rate, ale_runs)):
        print(f"{label}: {rate:9.1f} steps/s ({rate * args.frameskip:9.1f} frames/s)  "
              f"runs {[round(r) for r in runs]}")
    print(f"lazy drawing speed-up: {ours_rate / full_rate:.3f}")
    print(f"ratio cule_py / ale-py: {ours_rate / ale_rate:.3f}")


if __name__ == "__main__":
    main()
