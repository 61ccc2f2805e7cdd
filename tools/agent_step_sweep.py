"""Longer sweep: cule_py.vector.AtariVectorEnv against ale-py's AtariVectorEnv over games and
argument combinations, every step compared (obs, rewards, terminated, truncated, lives, frame
counters). The CI test (tests/test_agent_step_vs_ale.py) runs a few short cases; this runs many.

    python -m tools.agent_step_sweep                          # default games x combos, 300 steps
    python -m tools.agent_step_sweep --games pong,adventure --steps 1000 --envs 4

Prints one line per (game, combination): OK with the number of episodes ended, or the first
difference.
"""

from __future__ import annotations

import argparse
import itertools
import sys
import time

import numpy as np
from ale_py.vector_env import AtariVectorEnv as AleVector

from cule_py.testing import vector_step_difference
from cule_py.vector import AtariVectorEnv

GAMES = "breakout,pong,boxing,freeway,space_invaders,seaquest,adventure"
COMBOS = {
    "sticky": [0.0, 0.25],
    "noop_max": [0, 30],
    "fire": [True, False],
    "life": ["none", "episodic", "info"],
    "autoreset": ["NextStep", "SameStep"],
}


def run(game, envs, steps, seed, kw):
    theirs = AleVector(game, envs, **kw)
    ours = AtariVectorEnv(game, envs, **kw)
    diff = vector_step_difference(ours.reset(seed=seed), theirs.reset(seed=seed))
    if diff:
        return f"reset: {diff}"
    rng = np.random.default_rng(seed)
    ended = 0
    for t in range(steps):
        actions = rng.integers(0, theirs.single_action_space.n, envs)
        out_o, out_t = ours.step(actions), theirs.step(actions)
        diff = vector_step_difference(out_o, out_t)
        if diff:
            return f"step {t}: {diff}"
        ended += int((out_o[2] | out_o[3]).sum())
    return f"OK ({ended} episode ends)"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", default=GAMES)
    parser.add_argument("--envs", type=int, default=2)
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--budget", type=int, default=2000,
                        help="max_num_frames_per_episode (small, so truncations happen)")
    parser.add_argument("--frameskip", type=int, default=4)
    args = parser.parse_args()
    failures = 0
    for game in args.games.split(","):
        for sticky, noop_max, fire, life, autoreset in itertools.product(*COMBOS.values()):
            kw = dict(repeat_action_probability=sticky, noop_max=noop_max, use_fire_reset=fire,
                      episodic_life=life == "episodic", life_loss_info=life == "info",
                      autoreset_mode=autoreset, max_num_frames_per_episode=args.budget,
                      frameskip=args.frameskip, grayscale=game != "adventure")
            start = time.time()
            result = run(game, args.envs, args.steps, args.seed, kw)
            failures += not result.startswith("OK")
            print(f"{game:15s} sticky={sticky} noop_max={noop_max} fire={fire} life={life} "
                  f"{autoreset}: {result} [{time.time() - start:.0f}s]", flush=True)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
