"""Does RLlib's PPO learn on cule_py? Several seeds against a random policy, on the CPU.

    python examples/rllib_learning_check.py --game ALE/Breakout-v5 --seeds 0 1 2 \
        --env-steps 100000 --csv breakout.csv --plot breakout.png

For each seed: cule_py.rllib.ppo_config (CuleEnvRunner, Nature CNN, the usual Atari PPO
settings) trained in this process (no remote env runners, one learner) for `--env-steps` agent
steps, logging the mean unclipped score of the episodes that ended in each iteration. The random
policy's mean score comes from the same env (same seeds, noop starts, sticky actions) over
`--random-episodes` episodes. A seed passes when the mean of its last `--last` iterations beats
the random mean by `--margin` random standard deviations. Needs `cule_py[rllib]`, PyTorch and,
for --plot, matplotlib.
"""

from __future__ import annotations

import argparse
import csv
import time

import numpy as np


def random_scores(game: str, episodes: int, seed: int) -> np.ndarray:
    import cule_py

    env = cule_py.make_vec(game, 16, episode_statistics=True)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    scores = []
    while len(scores) < episodes:
        _, _, _, _, info = env.step(rng.integers(0, env.single_action_space.n, 16))
        scores.extend(info["episode"]["r"][info["_episode"]].tolist())
    env.close()
    return np.asarray(scores[:episodes], float)


def train(game: str, seed: int, env_steps: int, envs: int, rollout: int) -> list[dict]:
    from cule_py.rllib import ppo_config

    config = (ppo_config(game, num_env_runners=0, num_envs_per_env_runner=envs,
                         rollout_fragment_length=rollout)
              .training(minibatch_size=256)
              .debugging(seed=seed))
    algo = config.build_algo()
    rows, done, start = [], 0, time.perf_counter()
    try:
        while done < env_steps:
            result = algo.train()
            runners = result["env_runners"]
            done = int(result.get("num_env_steps_sampled_lifetime",
                                  runners.get("num_env_steps_sampled_lifetime", 0)))
            rows.append(dict(seed=seed, iteration=len(rows) + 1, env_steps=done,
                             seconds=round(time.perf_counter() - start, 1),
                             episode_return_mean=runners.get("episode_return_mean",
                                                             float("nan"))))
            print(rows[-1], flush=True)
    finally:
        algo.stop()
    return rows


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="ALE/Breakout-v5")
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--env-steps", type=int, default=100_000)
    parser.add_argument("--envs", type=int, default=16)
    parser.add_argument("--rollout", type=int, default=128)
    parser.add_argument("--random-episodes", type=int, default=200)
    parser.add_argument("--last", type=int, default=5, help="iterations averaged at the end")
    parser.add_argument("--margin", type=float, default=2.0,
                        help="random-policy standard deviations to beat")
    parser.add_argument("--csv", default=None)
    parser.add_argument("--plot", default=None)
    args = parser.parse_args(argv)

    import ray

    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    rand = random_scores(args.game, args.random_episodes, seed=1000)
    bar = rand.mean() + args.margin * rand.std()
    print(f"random policy: mean {rand.mean():.2f}, std {rand.std():.2f} over {len(rand)} "
          f"episodes; bar {bar:.2f}", flush=True)
    rows, verdicts = [], []
    for seed in args.seeds:
        seed_rows = train(args.game, seed, args.env_steps, args.envs, args.rollout)
        rows += seed_rows
        tail = [r["episode_return_mean"] for r in seed_rows[-args.last:]]
        final = float(np.nanmean(tail))
        verdicts.append((seed, final, final > bar))
    ray.shutdown()
    for seed, final, ok in verdicts:
        print(f"seed {seed}: last {args.last} iterations' mean score {final:.2f} -> "
              f"{'beats' if ok else 'does NOT beat'} the bar {bar:.2f}")
    if args.csv:
        with open(args.csv, "w", newline="") as f:
            writer = csv.DictWriter(f, fieldnames=list(rows[0]))
            writer.writeheader()
            writer.writerows(rows)
    if args.plot:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        fig, ax = plt.subplots(figsize=(7, 4))
        for seed in args.seeds:
            r = [x for x in rows if x["seed"] == seed]
            ax.plot([x["env_steps"] for x in r], [x["episode_return_mean"] for x in r],
                    label=f"PPO seed {seed}")
        ax.axhline(rand.mean(), color="gray", ls="--", label="random policy")
        ax.axhline(bar, color="gray", ls=":", label=f"random + {args.margin:g} std")
        ax.set_xlabel("agent steps")
        ax.set_ylabel("episode score (unclipped)")
        ax.set_title(f"RLlib PPO on cule_py, {args.game}")
        ax.legend()
        fig.tight_layout()
        fig.savefig(args.plot, dpi=100)


if __name__ == "__main__":
    main()
