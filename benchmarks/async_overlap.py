"""Does an asynchronous batch let the caller's policy run while consoles step? (CPU backend)

AtariVectorEnv(batch_size=num_envs/2): `send(actions)` starts the step on a worker thread (the
kernels release the GIL), the caller runs its policy, `recv()` collects. Three timings of one
half-batch, in the same run: the step alone, a policy alone (a small torch MLP on one thread, or
`--policy sleep`: GIL-free waiting of the step's length), and send + policy + recv. Without
overlap the third is the sum of the first two; with full overlap it is the longer of them.

    python -m benchmarks.async_overlap [--game breakout] [--consoles 64] [--steps 40]
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

from cule_py.testing import machine_line
from cule_py.vector import AtariVectorEnv


def _mlp(width: int = 1024, layers: int = 12):
    import torch

    torch.set_num_threads(1)
    weight = torch.randn(width, width)

    def policy(batch: int):
        x = torch.randn(batch, width)
        for _ in range(layers):
            x = torch.tanh(x @ weight)
        return x

    return policy


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--game", default="breakout")
    parser.add_argument("--consoles", type=int, default=64)
    parser.add_argument("--steps", type=int, default=40)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--policy", choices=("torch", "sleep"), default="torch")
    args = parser.parse_args()
    half = args.consoles // 2
    env = AtariVectorEnv(args.game, args.consoles, batch_size=half, num_threads=1)
    env.reset(seed=0)
    actions = np.zeros(half, np.int64)
    for _ in range(10):
        env.step(actions)

    def timed(body) -> float:
        start = time.perf_counter()
        for _ in range(args.steps):
            body()
        return (time.perf_counter() - start) / args.steps

    step = statistics.median(timed(lambda: env.step(actions)) for _ in range(args.rounds))
    policy = _mlp() if args.policy == "torch" else (lambda batch: time.sleep(step))
    alone = statistics.median(timed(lambda: policy(half)) for _ in range(args.rounds))

    def overlapped():
        env.send(actions)
        policy(half)
        env.recv()

    both = statistics.median(timed(overlapped) for _ in range(args.rounds))
    print(machine_line(threads=1))
    print(f"{args.game}, {args.consoles} consoles, batch {half}, policy {args.policy}: "
          f"step {step * 1e3:.1f} ms, policy {alone * 1e3:.1f} ms, send + policy + recv "
          f"{both * 1e3:.1f} ms (serial {1e3 * (step + alone):.1f}, full overlap "
          f"{1e3 * max(step, alone):.1f}); {(step + alone) / both:.2f}x the serial rate")


if __name__ == "__main__":
    main()
