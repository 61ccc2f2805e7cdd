"""RLlib's PPO on cule_py past one GPU and one machine: env runners that each hold thousands of
consoles on a device, learners on GPUs of their own (RLlib's learner group). Ray places them;
cule_py adds no pool of its own.

One node with 4 GPUs (two env runners of 4,096 consoles, one GPU each; two learners, one each):

    python examples/rllib_scale_out.py --env-runners 2 --gpus-per-env-runner 1 \
        --envs-per-env-runner 4096 --rollout 32 --learners 2 --gpus-per-learner 1

A cluster: on every machine `pip install 'cule_py[rllib]'` and `python -m cule_py.precompile`
(so that Ray's workers load kernels instead of compiling them), `ray start --head` on one,
`ray start --address=HEAD_IP:6379` on the others, then on the head:

    python examples/rllib_scale_out.py --address auto --env-runners 8 --gpus-per-env-runner 1 \
        --envs-per-env-runner 4096 --rollout 32 --learners 4 --gpus-per-learner 1

Without GPUs (what CI runs, tests/test_rl_libraries.py): `--num-cpus 3 --env-runners 2
--envs-per-env-runner 8 --rollout 16 --iterations 2 --minibatch 64`. Each iteration prints the
agent steps sampled, the sampling rate, the mean episode return and the learner's total loss;
the last line is a JSON summary. Keep a rollout
(`envs-per-env-runner x rollout x 28 KB`) to a few hundred MB: it crosses Ray's object store
(docs/rl-libraries.md has the arithmetic).
"""

from __future__ import annotations

import argparse
import json
import math
import time


def build(args):
    from cule_py.rllib import ppo_config

    config = ppo_config(args.game, num_env_runners=args.env_runners,
                        num_envs_per_env_runner=args.envs_per_env_runner,
                        rollout_fragment_length=args.rollout,
                        num_gpus_per_env_runner=args.gpus_per_env_runner)
    config = config.learners(num_learners=args.learners,
                             num_gpus_per_learner=args.gpus_per_learner)
    if args.minibatch:
        config = config.training(minibatch_size=args.minibatch)
    return config.debugging(seed=args.seed).build_algo()


def total_loss(result: dict) -> float:
    """The learner's total loss of the iteration (the default module's, RLlib's new API stack)."""
    learners = result.get("learners", {})
    module = learners.get("default_policy") or next(
        (v for k, v in learners.items() if isinstance(v, dict) and "total_loss" in v), {})
    return float(module.get("total_loss", math.nan))


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="ALE/Pong-v5")
    parser.add_argument("--address", default=None,
                        help="a Ray cluster to join ('auto' on a node of one); default: a new "
                             "local Ray instance")
    parser.add_argument("--num-cpus", type=int, default=None,
                        help="CPUs of a new local Ray instance (default: Ray's count)")
    parser.add_argument("--env-runners", type=int, default=2)
    parser.add_argument("--envs-per-env-runner", type=int, default=64)
    parser.add_argument("--gpus-per-env-runner", type=float, default=0)
    parser.add_argument("--rollout", type=int, default=32)
    parser.add_argument("--learners", type=int, default=0,
                        help="0: one learner in the driver process")
    parser.add_argument("--gpus-per-learner", type=float, default=0)
    parser.add_argument("--minibatch", type=int, default=0, help="0: ppo_config's")
    parser.add_argument("--iterations", type=int, default=5)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)

    import ray

    if args.address:
        ray.init(address=args.address)
    else:
        ray.init(num_cpus=args.num_cpus, include_dashboard=False)
    resources, nodes = ray.cluster_resources(), len(ray.nodes())
    print(f"Ray: {resources.get('CPU', 0):.0f} CPUs, {resources.get('GPU', 0):.0f} GPUs, "
          f"{nodes} node(s)", flush=True)
    algo = build(args)
    rows = []
    try:
        for iteration in range(1, args.iterations + 1):
            start = time.perf_counter()
            result = algo.train()
            seconds = time.perf_counter() - start
            runners = result["env_runners"]
            sampled = int(runners.get("num_env_steps_sampled", 0))
            rows.append({"iteration": iteration, "agent_steps": sampled,
                         "seconds": round(seconds, 2),
                         "agent_steps_per_s": round(sampled / seconds, 1),
                         "episode_return_mean": runners.get("episode_return_mean", math.nan),
                         "total_loss": total_loss(result)})
            print(rows[-1], flush=True)
    finally:
        algo.stop()
        ray.shutdown()
    summary = {"game": args.game, "env_runners": args.env_runners,
               "envs_per_env_runner": args.envs_per_env_runner, "rollout": args.rollout,
               "learners": args.learners, "nodes": nodes, "iterations": rows}
    print(json.dumps(summary), flush=True)
    return summary


if __name__ == "__main__":
    main()
