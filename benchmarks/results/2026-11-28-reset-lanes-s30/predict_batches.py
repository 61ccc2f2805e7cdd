"""Predicted agent frames/s by batch size on an H100 (session 30), the step at 255 registers
and capped at 128: session 25's model as sessions 27-29 used it (predict.py of session 28),
extended past one warp a scheduler. A launch of n consoles runs in waves; in a wave a scheduler
holds k warps (tools/gpu_model.occupancy: registers, blocks of 128) that issue together at the
frozen model's ipc(k), so a wave of the step takes k x W / ipc(k) cycles a frame (W: the raw
frame's warp instructions under the scanline schedule, gpu_line_profile --warp) and the
observation kernel's warps, 12 bands a console, the same with their own k. A capped step's W is
scaled by its console loop's static SASS, spill refills included (run_console_frames: 13,480 /
12,919 at 128 registers, static-attention.md of session 29; 14,679, 14,921 and 14,986 / 12,922
at 96, 80 and 64, static-step-caps.md here); the spills' latency is not priced. Resets and the
host are left out. A model, not a measurement.

    python predict_batches.py WARP_DIR PROFILE_DIR [--batches ...]
"""

from __future__ import annotations

import argparse
import json
import math
import pathlib
import re
import importlib.util
import statistics

HERE = pathlib.Path(__file__).resolve().parent
# The loop-and-shift results' predict.py: the model's constants, ipc(k), gpu_model.
_SPEC = importlib.util.spec_from_file_location(
    "predict_s28", HERE.parent / "2026-11-28-loop-and-shift-s28" / "predict.py")
P = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(P)

G = P.G
VARIANTS = {"255 registers": (255, 1.0), "capped at 128": (128, 13480 / 12919),
            "capped at 96": (96, 14679 / 12922), "capped at 80": (80, 14921 / 12922),
            "capped at 64": (64, 14986 / 12922)}
OBSERVE_REGISTERS, BANDS, THREADS_PER_BLOCK = 142, 12, 128


def launch_cycles(threads: int, registers: int, warp_instructions: float) -> float:
    """Cycles until the last scheduler is done: full waves of the resident warps, then the
    rest (blocks spread evenly over the SMs)."""
    gpu = G.H100
    blocks = math.ceil(threads / THREADS_PER_BLOCK)
    per_sm_limit = G.warps_per_sm(registers, THREADS_PER_BLOCK) // (THREADS_PER_BLOCK // 32)
    blocks_per_sm = math.ceil(blocks / gpu["sms"])
    full, rest = divmod(blocks_per_sm, per_sm_limit)
    cycles = 0.0
    for count, blocks_now in ((full, per_sm_limit), (1 if rest else 0, rest)):
        if not count:
            continue
        k = blocks_now * (THREADS_PER_BLOCK // 32) / gpu["schedulers_per_sm"]
        cycles += count * k * warp_instructions / P.ipc(k)
    return cycles


def frames_per_s(game: str, warp_dir: pathlib.Path, profile_dir: pathlib.Path, consoles: int,
                 registers: int, scale: float) -> float:
    raw = json.loads((warp_dir / f"warp-{game}.json").read_text())["warp_scanline"] * scale
    head = (profile_dir / f"profile-{game}.md").read_text().splitlines()[0]
    observe = float(re.findall(r"observation kernel ([\d,]+)", head)[0].replace(",", ""))
    step = launch_cycles(consoles, registers, raw)
    # a band thread's share of a console's observation, its warp converged
    look = launch_cycles(consoles * BANDS, OBSERVE_REGISTERS, observe / BANDS)
    return consoles / ((step + look) / P.CLOCK)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("warp_dir", type=pathlib.Path)
    parser.add_argument("profile_dir", type=pathlib.Path)
    parser.add_argument("--batches", type=int, nargs="+",
                        default=[16384, 32768, 65536, 131072, 262144])
    args = parser.parse_args()
    print("| step kernel | consoles | " + " | ".join(P.GAMES) + " | median |")
    print("|---|---|" + "---|" * (len(P.GAMES) + 1))
    for name, (registers, scale) in VARIANTS.items():
        for n in args.batches:
            fps = [frames_per_s(g, args.warp_dir, args.profile_dir, n, registers, scale)
                   for g in P.GAMES]
            print(f"| {name} | {n:,} | " + " | ".join(f"{f / 1e6:.2f} M" for f in fps)
                  + f" | **{statistics.median(fps) / 1e6:.2f} M** |")


if __name__ == "__main__":
    main()
