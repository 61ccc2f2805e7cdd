"""Agent steps per second on the CPU: cule_py.vector.AtariVectorEnv against ale-py's
AtariVectorEnv, same game, same settings, same cores, in one run, each measured in steady state by
cule_py.steady_state (decorrelated, warmed up past a typical episode, timed windows in which
episodes end; episode ends per step and cule_py's reset share reported).

    python -m benchmarks.agent_step_fps --game breakout --envs 16

Both use `--cores` threads (default: every core this process may run on; numba's threads /
ale-py's num_threads). cule_py is measured twice: with lazy drawing (the default: only the last
two frames of a step get pixels) and drawing every frame, to show what that saves. Settings:
ale-py's defaults (84x84 grayscale, stack 4, maxpool, noop_max 30, fire reset, NextStep
autoreset), `--frameskip` and `--sticky` on both. The figure is the median window; frames/s =
steps/s x frameskip. Paired rounds on one core and all cores: `python -m cule_py` (no GPU) or
cule_py.steady_state.compare_cpu.
"""

from __future__ import annotations

import argparse
import json
import os
import sys

from cule_py import steady_state as ss
from cule_py.testing import machine_line, usable_cpus


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", default="breakout")
    parser.add_argument("--envs", type=int, default=16)
    parser.add_argument("--steps", "--window-steps", dest="window_steps", type=int, default=200,
                        help="steps per timed window")
    parser.add_argument("--repeats", "--windows", dest="windows", type=int, default=3,
                        help="timed windows")
    parser.add_argument("--warmup", type=int, default=None,
                        help="warm-up steps (default per game: pong 1000, breakout 250, else 300)")
    parser.add_argument("--frameskip", type=int, default=4)
    parser.add_argument("--sticky", type=float, default=0.25)
    parser.add_argument("--cores", type=int, default=usable_cpus())
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", default=None, metavar="PATH", help="also write the results")
    args = parser.parse_args()
    settings = dict(frameskip=args.frameskip, repeat_action_probability=args.sticky)

    def progress(line: str) -> None:
        print(line, file=sys.stderr, flush=True)

    sides = (("cule_py (cpu, lazy drawing)", ss.make_cule_env, {}),
             ("cule_py (cpu, every frame)", ss.make_cule_env, {"lazy_drawing": False}),
             ("ale-py AtariVectorEnv", ss.make_ale_env, {}))
    results = []
    for label, make, extra in sides:
        env = make(args.game, args.envs, threads=args.cores, **settings, **extra)
        try:
            results.append(ss.measure_vector_env(
                env, game=args.game, label=label, backend="cpu", warmup_steps=args.warmup,
                window_steps=args.window_steps, windows=args.windows, seed=args.seed,
                progress=progress, threads=args.cores, frameskip=args.frameskip))
        finally:
            env.close()
    print(f"{machine_line(threads=args.cores)}, load average {os.getloadavg()[0]:.1f}")
    print(f"{args.game}, {args.envs} envs, frameskip {args.frameskip}, sticky {args.sticky}, "
          f"84x84 grayscale, stack 4, maxpool, noop_max 30, random actions")
    for r in results:
        share = "n/a (not measurable)" if r.reset_share is None else f"{r.reset_share:.1%}"
        print(f"{r.label:<28}: {r.agent_steps_per_s:9.1f} steps/s ({r.frames_per_s:9.1f} "
              f"frames/s), episode ends/step {r.episode_ends_per_step:.3f}, reset share {share}, "
              f"warm-up {r.warmup_steps} steps, windows "
              f"{[round(w.steps * r.num_envs / w.seconds) for w in r.windows]}")
    lazy, full, ale = results
    print(f"lazy drawing speed-up: {lazy.agent_steps_per_s / full.agent_steps_per_s:.3f}")
    print(f"ratio cule_py / ale-py: {lazy.agent_steps_per_s / ale.agent_steps_per_s:.3f}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump([r.as_dict() for r in results], f, indent=1)


if __name__ == "__main__":
    main()
