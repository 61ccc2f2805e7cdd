"""The program Nsight Compute profiles in stage 3 (run by profile.py under ncu, or alone on the
CPU in a dry run): for each batch size, one launch of each hot kernel inside a profiler range,
after the consoles are decorrelated.

    python -m tools.gpu_runbook.profile_target --device cuda --consoles 16384 65536 --order F

Per batch size, in this order (F, a JSON file, gets the list of ranges so that ncu's rows can
be named): raw `act()` of decorrelated consoles (drive_cuda); the same with every console a copy
of console 0 (identical: what divergence costs); that frame again undrawn (identical_undrawn:
what the pixels cost); one agent step of decorrelated consoles
(agent_step_cuda and agent_reset_cuda, its autoreset launch).
"""

from __future__ import annotations

import argparse
import json
import pathlib
import time

import numpy as np


class Ranges:
    """cudaProfilerStart/Stop around what is profiled (nothing on the CPU), and the list of
    ranges in order."""

    def __init__(self, device: str):
        self.device = device
        self.names: list[dict] = []

    def __call__(self, name: str, kernels: list[str], consoles: int, work) -> None:
        if self.device == "cpu":
            work()
        else:
            import cupy as cp

            cp.cuda.Device().synchronize()
            cp.cuda.profiler.start()
            work()
            cp.cuda.Device().synchronize()
            cp.cuda.profiler.stop()
        self.names.append({"range": name, "kernels": kernels, "consoles": consoles})
        print(f"profiled {name} ({consoles} consoles)", flush=True)


def _xp(device: str):
    if device == "cpu":
        return np
    import cupy

    return cupy


def raw_ranges(ranges: Ranges, game: str, consoles: int, device: str, warmup: int) -> None:
    from cule_py import AtariEmulator
    from cule_py.emulator import EmulatorState
    from cule_py.kernels import layout as L

    xp = _xp(device)
    emulator = AtariEmulator(game, consoles, device=device, seed=0,
                             repeat_action_probability=0.25)
    legal = xp.asarray(emulator.legal_action_set())
    rng = np.random.default_rng(0)
    host = rng.integers(0, len(legal), (warmup + 2, consoles))
    for frame in range(warmup):
        emulator.act(legal[xp.asarray(host[frame])])
        if (frame + 1) % 25 == 0:
            over = emulator.game_over()
            over = over.get() if device != "cpu" else over
            if over.any():
                emulator.reset(over)
    actions = legal[xp.asarray(host[warmup])]
    ranges("raw", ["drive_cuda"], consoles, lambda: emulator.act(actions))
    state = emulator.clone_state()
    copies = {k: xp.ascontiguousarray(xp.broadcast_to(v[:1], v.shape))
              for k, v in state.arrays.items()}
    emulator.restore_state(EmulatorState(state.md5, state.mask, copies))
    same = xp.full(consoles, legal[int(host[warmup + 1, 0])])
    ranges("identical", ["drive_cuda"], consoles, lambda: emulator.act(same))
    # The same frame again from the same copies with the pixels not drawn (TIA_SKIP_DRAW, the
    # agent step's collision-only frames): the difference to "identical" is what the pixel
    # stores and colour blending cost one lane, the figure that splits the offline model's
    # drawing weight from its path weights (docs/performance-log.md, 2026-11-27).
    undrawn = dict(copies)
    undrawn["state"] = copies["state"].copy()
    undrawn["state"][:, L.TIA_SKIP_DRAW] = 1
    emulator.restore_state(EmulatorState(state.md5, state.mask, undrawn))
    ranges("identical_undrawn", ["drive_cuda"], consoles, lambda: emulator.act(same))


def agent_ranges(ranges: Ranges, game: str, consoles: int, device: str, warmup_steps: int):
    from cule_py.vector import AtariVectorEnv

    env = AtariVectorEnv(game, consoles, device=device, repeat_action_probability=0.25)
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    n = len(env.action_set)
    for _ in range(warmup_steps):
        env.step(rng.integers(0, n, consoles))
    actions = rng.integers(0, n, consoles)
    ranges("agent_step", ["agent_step_cuda", "agent_observe_cuda", "agent_reset_cuda"], consoles,
           lambda: env.step(actions))


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="pong")
    parser.add_argument("--device", default="cuda")
    parser.add_argument("--consoles", type=int, nargs="+", default=[16384, 65536])
    parser.add_argument("--warmup-frames", type=int, default=300,
                        help="random frames before profiling (decorrelation)")
    parser.add_argument("--order", help="JSON file for the list of profiled ranges")
    parser.add_argument("--no-agent", action="store_true", help="raw and identical ranges only")
    parser.add_argument("--time-limit", type=float, default=0,
                        help="seconds: no batch size is started after half of them (0: none)")
    args = parser.parse_args(argv)
    ranges = Ranges(args.device)
    start = time.monotonic()
    for consoles in args.consoles:
        if args.time_limit and time.monotonic() - start > args.time_limit / 2:
            print(f"time limit: {consoles} consoles not profiled", flush=True)
            break
        raw_ranges(ranges, args.game, consoles, args.device, args.warmup_frames)
        if not args.no_agent:
            agent_ranges(ranges, args.game, consoles, args.device,
                         max(1, args.warmup_frames // 4))
        if args.order:
            pathlib.Path(args.order).write_text(json.dumps(ranges.names, indent=1))
        if args.device != "cpu":
            import cupy as cp

            cp.get_default_memory_pool().free_all_blocks()


if __name__ == "__main__":
    main()
