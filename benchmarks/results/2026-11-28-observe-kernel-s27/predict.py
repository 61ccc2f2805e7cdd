"""Predicted agent frames/s at 16,384 consoles on an H100, the step kernel and the observation
(session 27): session 25's method (warp instructions a frame x 6.4 cycles at one warp a
scheduler, 1.98 GHz), the observation either inside the step kernel (converged, at that same
rate: HEAD) or in its own launch (agent_observe_cuda: its warps issue at the frozen model's
ipc(k) = ipc_one_warp * k ** ipc_exponent for k resident warps a scheduler, k from the
kernel's registers). Resets and the host are left out. A model, not a measurement.

    python predict.py WARP_DIR PROFILE_DIR HEAD_PROFILE_DIR [--registers 144 96 64]

WARP_DIR: gpu_line_profile --warp files (warp-GAME.json; drive_cuda's raw frame under the
scanline schedule); PROFILE_DIR: gpu_line_profile step profiles of this commit
(profile-GAME.md, whose first line gives the step and observation kernels' thread instructions
a console-frame); HEAD_PROFILE_DIR: the same for the commit before (its observation: the
agent_step.py row of the step kernel's profile)."""

from __future__ import annotations

import argparse
import json
import pathlib
import re
import sys

REPO = pathlib.Path(__file__).resolve().parents[3]
sys.path.insert(0, str(REPO))     # run from this folder as well: the checkout's tools package

from tools import gpu_model as G  # noqa: E402

GAMES = ("pong", "breakout", "space_invaders", "ms_pacman", "seaquest")
CONSOLES = 16384
CLOCK = G.FROZEN["clock_hz"]
SCHEDULERS = G.H100["sms"] * G.H100["schedulers_per_sm"]


def ipc(warps_per_scheduler: float) -> float:
    return min(1.0, G.FROZEN["ipc_one_warp"] * warps_per_scheduler ** G.FROZEN["ipc_exponent"])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("warp_dir", type=pathlib.Path)
    parser.add_argument("profile_dir", type=pathlib.Path)
    parser.add_argument("head_profile_dir", type=pathlib.Path)
    parser.add_argument("--registers", type=int, nargs="+", default=[144, 96, 64])
    parser.add_argument("--bands", type=int, default=12)
    args = parser.parse_args()
    one_warp = G.FROZEN["ipc_one_warp"]
    print(f"| game | raw W (scanline) | step kernel thread instr. | observation thread instr. "
          f"| HEAD: step with observation | "
          + " | ".join(f"observation kernel, {r} registers" for r in args.registers) + " |")
    print("|---|---|---|---|---|" + "---|" * len(args.registers))
    for game in GAMES:
        warp = json.loads((args.warp_dir / f"warp-{game}.json").read_text())
        raw = warp["warp_scanline"]
        head = (args.profile_dir / f"profile-{game}.md").read_text().splitlines()[0]
        step, observe = (float(x.replace(",", "")) for x in
                         re.findall(r"([\d,]+) \+ observation kernel ([\d,]+)", head)[0])
        head_text = (args.head_profile_dir / f"profile-{game}.md").read_text()
        head_observe = float(re.findall(r"\| agent_step.py \| ([\d,]+) \|",
                                        head_text)[0].replace(",", ""))
        # one warp a scheduler: a warp's frame takes its warp instructions / ipc_one_warp cycles
        step_s = raw / one_warp / CLOCK
        inline_s = (raw + head_observe) / one_warp / CLOCK
        cells = []
        for registers in args.registers:
            occ = G.occupancy(registers, 128, CONSOLES * args.bands)
            k = occ["resident_warps_per_scheduler"]
            warp_instructions = observe * CONSOLES / 32
            observe_s = warp_instructions / (SCHEDULERS * ipc(k) * CLOCK)
            cells.append(f"{CONSOLES / (step_s + observe_s) / 1e6:.2f} M "
                         f"(observation {observe_s / (step_s + observe_s):.0%}, k {k:g})")
        print(f"| {game} | {raw / 1e6:.2f} M | {step / 1e6:.2f} M | {observe / 1e6:.2f} M | "
              f"{CONSOLES / inline_s / 1e6:.2f} M | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
