"""Predicted agent frames/s at 16,384 consoles on an H100 (session 28), for two commits side
by side: session 25's model as session 27 used it (predict.py there). The step kernel's frame
takes its raw frame's warp instructions (drive_cuda under the scanline schedule, the same
console loop) at one warp a scheduler; the observation kernel's warps issue at the frozen
model's ipc(k) for k resident warps a scheduler, k from its registers. Resets and the host are
left out. A model, not a measurement.

    python predict.py BEFORE_WARP_DIR BEFORE_PROFILE_DIR AFTER_WARP_DIR AFTER_PROFILE_DIR \\
        [--registers 144] [--bands 12]

WARP_DIR: gpu_line_profile --warp files (warp-GAME.json); PROFILE_DIR: gpu_line_profile step
profiles (profile-GAME.md, whose first line gives the step and observation kernels' thread
instructions a console-frame)."""

from __future__ import annotations

import argparse
import importlib.util
import json
import pathlib
import re
import statistics

# Session 27's script holds the model's pieces (its constants, ipc(k), gpu_model as G): the same
# model, not a copy of it.
_SPEC = importlib.util.spec_from_file_location(
    "predict_s27", pathlib.Path(__file__).resolve().parent.parent
    / "2026-11-28-observe-kernel-s27" / "predict.py")
S27 = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(S27)
G, GAMES, CONSOLES, CLOCK, SCHEDULERS, ipc = (S27.G, S27.GAMES, S27.CONSOLES, S27.CLOCK,
                                              S27.SCHEDULERS, S27.ipc)


def predicted(warp_dir: pathlib.Path, profile_dir: pathlib.Path, game: str, registers: int,
              bands: int) -> tuple:
    raw = json.loads((warp_dir / f"warp-{game}.json").read_text())["warp_scanline"]
    head = (profile_dir / f"profile-{game}.md").read_text().splitlines()[0]
    step, observe = (float(x.replace(",", "")) for x in
                     re.findall(r"([\d,]+) \+ observation kernel ([\d,]+)", head)[0])
    step_s = raw / G.FROZEN["ipc_one_warp"] / CLOCK
    k = G.occupancy(registers, 128, CONSOLES * bands)["resident_warps_per_scheduler"]
    observe_s = observe * CONSOLES / 32 / (SCHEDULERS * ipc(k) * CLOCK)
    return raw, step, observe, CONSOLES / (step_s + observe_s), observe_s / (step_s + observe_s)


def main() -> None:
    parser = argparse.ArgumentParser()
    for name in ("before_warp", "before_profile", "after_warp", "after_profile"):
        parser.add_argument(name, type=pathlib.Path)
    parser.add_argument("--registers", type=int, nargs=2, default=[144, 144])
    parser.add_argument("--bands", type=int, default=12)
    args = parser.parse_args()
    print("| game | raw W before -> after | step kernel thread instr. | observation thread "
          "instr. | agent frames/s before -> after (observation's share) |")
    print("|---|---|---|---|---|")
    medians = ([], [])
    for game in GAMES:
        b = predicted(args.before_warp, args.before_profile, game, args.registers[0], args.bands)
        a = predicted(args.after_warp, args.after_profile, game, args.registers[1], args.bands)
        medians[0].append(b[3])
        medians[1].append(a[3])
        print(f"| {game} | {b[0] / 1e6:.2f} -> {a[0] / 1e6:.2f} M | {b[1] / 1e6:.2f} -> "
              f"{a[1] / 1e6:.2f} M | {b[2] / 1e6:.2f} -> {a[2] / 1e6:.2f} M | {b[3] / 1e6:.2f} "
              f"({b[4]:.0%}) -> {a[3] / 1e6:.2f} M ({a[4]:.0%}) |")
    print(f"| median | | | | {statistics.median(medians[0]) / 1e6:.2f} -> "
          f"{statistics.median(medians[1]) / 1e6:.2f} M |")


if __name__ == "__main__":
    main()
