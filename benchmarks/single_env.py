"""Steps per second of one single env: `cule_py.make` against ale-py's `gymnasium.make`.

    python -m benchmarks.single_env [--games Pong Breakout ...] [--steps 3000] [--rounds 5]
                                    [--json out.json]

What a user sees who swaps `gymnasium.make("ALE/Pong-v5")` for `cule_py.make("ALE/Pong-v5")`:
one env, v5 settings on both sides (frameskip 4, sticky actions 0.25, RGB observations), numba on
one thread. Each side plays `--steps` random actions after 300 (the first episode is under way),
resetting at every episode end, and the time counts the resets. A round runs both sides back to
back, the order alternating between rounds; per game the ratio is the median of the rounds'.
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np

from benchmarks.paired import paired_row, table_line

WARMUP_STEPS = 300
GAMES = ["Pong", "Breakout", "SpaceInvaders", "MsPacman", "Seaquest"]


def steps_per_second(make, env_id: str, steps: int, seed: int) -> float:
    """Steps/s of env `make(env_id)` under random actions, resets timed, after the warm-up."""
    env = make(env_id)
    env.reset(seed=seed)
    actions = np.random.default_rng(seed).integers(env.action_space.n,
                                                   size=WARMUP_STEPS + steps)

    def play(chosen):
        for action in chosen:
            _, _, terminated, truncated, _ = env.step(int(action))
            if terminated or truncated:
                env.reset()

    play(actions[:WARMUP_STEPS])
    start = time.perf_counter()
    play(actions[WARMUP_STEPS:])
    elapsed = time.perf_counter() - start
    env.close()
    return steps / elapsed


def benchmark(games, steps: int, rounds: int, say=print) -> list[dict]:
    import ale_py
    import gymnasium as gym

    import cule_py

    gym.register_envs(ale_py)
    rows = []
    for game in games:
        env_id = f"ALE/{game}-v5"
        ours, theirs = [], []
        for r in range(rounds):
            sides = [(ours, cule_py.make), (theirs, gym.make)]
            for figures, make in (sides if r % 2 == 0 else sides[::-1]):
                figures.append(steps_per_second(make, env_id, steps, seed=100 + r))
        row = paired_row(game, ours, theirs, "cule_steps_per_s", "ale_steps_per_s")
        rows.append(row)
        say(table_line(row, "cule_steps_per_s", "ale_steps_per_s"))
    return rows


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", nargs="+", default=GAMES)
    parser.add_argument("--steps", type=int, default=3000, help="per side and round")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--json")
    args = parser.parse_args(argv)
    import numba

    numba.set_num_threads(1)
    from cule_py.testing import commit, machine_line

    print(f"{machine_line(1)}; commit {commit()}; v5 single env, {args.steps} steps, "
          f"{args.rounds} rounds", flush=True)
    print("| game | cule_py steps/s | ale-py steps/s | ratio median [range] |\n|---|---|---|---|",
          flush=True)
    rows = benchmark(args.games, args.steps, args.rounds, say=lambda line: print(line, flush=True))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"steps": args.steps, "rounds": args.rounds, "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
