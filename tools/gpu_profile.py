"""One game's raw frames on the GPU inside a CUDA profiler range, for Nsight Compute:

    ncu --profile-from-start off -k regex:drive --launch-count 1 --metrics ... \
        python tools/gpu_profile.py pong 16384

Builds the batch, decorrelates it with --warmup random frames (game-over consoles reset), then
opens the profiler range around --frames act() calls and prints their wall time. Session tooling
for lent GPUs (what limits the kernel: divergence, occupancy, stalls), not part of the package."""

from __future__ import annotations

import argparse
import pathlib
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("game")
    parser.add_argument("consoles", type=int)
    parser.add_argument("--warmup", type=int, default=20)
    parser.add_argument("--frames", type=int, default=1)
    args = parser.parse_args()
    import cupy as cp

    from cule_py import AtariEmulator

    emulator = AtariEmulator(args.game, args.consoles, device="cuda", seed=0,
                             repeat_action_probability=0.25)
    legal = cp.asarray(emulator.legal_action_set())
    cp.random.seed(0)
    for _ in range(args.warmup):
        emulator.act(legal[cp.random.randint(0, len(legal), args.consoles)])
    over = emulator.game_over().get()
    if over.any():
        emulator.reset(over)
    actions = legal[cp.random.randint(0, len(legal), (args.frames, args.consoles))]
    cp.cuda.Device().synchronize()
    cp.cuda.profiler.start()
    t0 = time.perf_counter()
    for f in range(args.frames):
        emulator.act(actions[f])
    cp.cuda.Device().synchronize()
    cp.cuda.profiler.stop()
    print(f"{args.game} {args.consoles} consoles: {args.frames} frames in "
          f"{time.perf_counter() - t0:.3f} s", flush=True)


if __name__ == "__main__":
    main()
