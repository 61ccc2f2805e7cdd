"""The GPU backend against the CPU backend, frame by frame: per-frame hashes of every console's
RAM and screen, and its reward, lives and game-over flag, must be identical.

    python tools/gpu_check.py --games all --consoles 256 --frames 2000 --out gpu_check.csv
    python tools/gpu_check.py --games pong breakout --consoles 4096 --frames 600 --out big.csv

Both sides are `cule_py.AtariEmulator` (device="cuda" and device="cpu") with the same seeds,
sticky actions at 0.25, and the same random actions held 1-8 frames; a console whose game is over
is reset (each side decides from its own flags, which are part of what is compared). Actions reach
the GPU side as cupy arrays, the path a learner uses. The GPU side can run on one machine and the
CPU side on another: `--side gpu --trace-out traces.npz` there, `--compare traces.npz` here. The hash of a row of bytes is sum(byte[i] *
w[i]) mod 2**64 with fixed random 64-bit weights, computed by a cupy reduction on the GPU and a
numba loop on the CPU: it is exact integer arithmetic, so the two agree exactly when the bytes do.

Resumable: games already in `--out` (or in `--resume`) are skipped; each game's row is appended
when it finishes, so a run stopped by a time limit keeps what it did. `--time-limit` stops
starting new games after that many seconds.
"""

from __future__ import annotations

import argparse
import csv
import os
import pathlib
import sys
import time

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))

from numba import njit, prange  # noqa: E402

import cule_py  # noqa: E402
from cule_py.games import GAMES  # noqa: E402
from cule_py.kernels import cart, game_logic  # noqa: E402

FIELDS = ["game", "consoles", "frames", "seed", "result", "first_bad_frame", "what_differs",
          "resets", "gpu_seconds", "cpu_seconds"]


@njit(parallel=True, cache=False)
def row_hashes(data, weights, out):
    for i in prange(data.shape[0]):
        acc = np.uint64(0)
        for j in range(data.shape[1]):
            acc += np.uint64(data[i, j]) * weights[j]
        out[i] = acc


class Hasher:
    def __init__(self, width: int):
        self.weights = np.random.default_rng(0x2600).integers(
            0, 2**63, width, dtype=np.uint64) * np.uint64(2) + np.uint64(1)
        self._gpu = None

    def cpu(self, rows: np.ndarray) -> np.ndarray:
        rows = np.ascontiguousarray(rows.reshape(rows.shape[0], -1))
        out = np.zeros(rows.shape[0], np.uint64)
        row_hashes(rows, self.weights[:rows.shape[1]], out)
        return out

    def gpu(self, rows):
        import cupy as cp

        if self._gpu is None:
            self._gpu = (cp.asarray(self.weights), cp.ReductionKernel(
                "uint8 x, uint64 w", "uint64 y", "(unsigned long long)x * w", "a + b", "y = a",
                "0", "cule_row_hash"))
        weights, kernel = self._gpu
        rows = rows.reshape(rows.shape[0], -1)
        return kernel(rows, weights[:rows.shape[1]][None, :], axis=1)


def trace_side(game: str, device: str, consoles: int, frames: int, seed: int,
               hasher: Hasher) -> tuple[np.ndarray, int, float]:
    """One backend alone: the (frames + 1, 5, consoles) trace of hashes and flags, the number of
    resets, the seconds it took. Used to compare a GPU run made on one machine with a CPU run
    made on another (`--side gpu --trace-out` there, `--compare` here)."""
    start = time.perf_counter()
    emulator = cule_py.AtariEmulator(game, consoles, device=device, seed=seed,
                                     repeat_action_probability=0.25)
    on_gpu = device != "cpu"
    if on_gpu:
        import cupy as xp
    else:
        xp = np
    actions = emulator.legal_action_set()
    rng = np.random.default_rng(seed)
    current = rng.choice(actions, consoles)
    hold = rng.integers(1, 9, consoles)
    trace = xp.zeros((frames + 1, 5, consoles), xp.uint64)
    h = hasher.gpu if on_gpu else hasher.cpu
    resets = 0

    def record(frame, rewards):
        trace[frame, 0] = h(emulator.ram())
        trace[frame, 1] = h(emulator.screen())
        trace[frame, 2] = rewards.astype(xp.int64).astype(xp.uint64)
        trace[frame, 3] = emulator.lives().astype(xp.int64).astype(xp.uint64)
        over = emulator.game_over()
        trace[frame, 4] = over.astype(xp.uint64)
        return over.get() if on_gpu else over

    record(0, xp.zeros(consoles, xp.int32))
    for frame in range(1, frames + 1):
        rewards = emulator.act(xp.asarray(current))
        over = record(frame, rewards)
        if over.any():
            resets += int(over.sum())
            emulator.reset(over)
        hold -= 1
        change = hold <= 0
        current[change] = rng.choice(actions, int(change.sum()))
        hold[change] = rng.integers(1, 9, int(change.sum()))
    return (trace.get() if on_gpu else trace), resets, time.perf_counter() - start


def first_difference(a: np.ndarray, b: np.ndarray) -> tuple[int, str]:
    """(first frame where two traces differ, what differs there) or (-1, "")."""
    names = ["ram", "screen", "reward", "lives", "game_over"]
    differ = (a != b).any(axis=2)
    bad = np.nonzero(differ.any(axis=1))[0]
    if bad.size == 0:
        return -1, ""
    f = int(bad[0])
    return f, "+".join(n for n, d in zip(names, differ[f]) if d)


def check_game(game: str, consoles: int, frames: int, seed: int, hasher: Hasher) -> dict:
    """Both backends in this process, one after the other, and their traces compared."""
    gpu, gpu_resets, gpu_seconds = trace_side(game, "cuda", consoles, frames, seed, hasher)
    cpu, cpu_resets, cpu_seconds = trace_side(game, "cpu", consoles, frames, seed, hasher)
    f, what = first_difference(gpu, cpu)
    return {"game": game, "consoles": consoles, "frames": frames, "seed": seed,
            "result": "EXACT" if f < 0 else "DIFFERENT", "first_bad_frame": f,
            "what_differs": what, "resets": cpu_resets, "gpu_seconds": round(gpu_seconds, 2),
            "cpu_seconds": round(cpu_seconds, 2)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", nargs="+", default=["all"])
    parser.add_argument("--consoles", type=int, default=256)
    parser.add_argument("--frames", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--out", help="result CSV (appended)")
    parser.add_argument("--resume", nargs="*", default=[], help="earlier result files")
    parser.add_argument("--time-limit", type=float, default=1e9)
    parser.add_argument("--side", choices=["both", "gpu"], default="both",
                        help="gpu: run the GPU side only and save its traces (--trace-out)")
    parser.add_argument("--trace-out", help="npz of GPU traces (with --side gpu)")
    parser.add_argument("--compare", help="npz of GPU traces: run the CPU side here and compare")
    args = parser.parse_args()
    if args.side == "gpu" or args.compare:
        return split_run(args)
    games = (sorted(g.rom_id for g in GAMES.values() if g.scheme in cart.SCHEME_IDS
                    and g.rom_id in game_logic.IMPLEMENTED)
             if args.games == ["all"] else args.games)
    done = set()
    for path in [args.out, *args.resume]:
        if os.path.exists(path):
            with open(path) as f:
                done |= {(r["game"], int(r["consoles"])) for r in csv.DictReader(f)}
    start = time.perf_counter()
    hasher = Hasher(250 * 160)
    new_file = not os.path.exists(args.out)
    with open(args.out, "a", newline="") as f:
        writer = csv.DictWriter(f, FIELDS)
        if new_file:
            writer.writeheader()
        for game in games:
            if (game, args.consoles) in done:
                continue
            if time.perf_counter() - start > args.time_limit:
                print(f"time limit reached before {game}", flush=True)
                break
            try:
                row = check_game(game, args.consoles, args.frames, args.seed, hasher)
            except Exception as err:     # noqa: BLE001 - recorded, the sweep goes on
                row = {"game": game, "consoles": args.consoles, "frames": args.frames,
                       "seed": args.seed, "result": "ERROR",
                       "what_differs": f"{type(err).__name__}: {err}"[:300]}
            writer.writerow(row)
            f.flush()
            print(row, flush=True)
    return 0


def split_run(args) -> int:
    """The GPU side on a GPU machine (traces saved), or the CPU side against saved traces."""
    hasher = Hasher(250 * 160)
    games = args.games
    if args.side == "gpu":
        saved = {}
        start = time.perf_counter()
        for game in games:
            if time.perf_counter() - start > args.time_limit:
                break
            trace, resets, seconds = trace_side(game, "cuda", args.consoles, args.frames,
                                                args.seed, hasher)
            saved[game] = trace
            print(f"{game}: GPU {args.consoles} consoles x {args.frames} frames, {resets} "
                  f"resets, {seconds:.1f} s", flush=True)
            np.savez_compressed(args.trace_out, **saved,
                                meta=np.array([args.consoles, args.frames, args.seed]))
        return 0
    data = np.load(args.compare)
    consoles, frames, seed = (int(v) for v in data["meta"])
    rows = []
    for game in [g for g in data.files if g != "meta"]:
        trace, resets, seconds = trace_side(game, "cpu", consoles, frames, seed, hasher)
        f, what = first_difference(data[game], trace)
        rows.append({"game": game, "consoles": consoles, "frames": frames, "seed": seed,
                     "result": "EXACT" if f < 0 else "DIFFERENT", "first_bad_frame": f,
                     "what_differs": what, "resets": resets, "cpu_seconds": round(seconds, 1)})
        print(rows[-1], flush=True)
    if args.out:
        new_file = not os.path.exists(args.out)
        with open(args.out, "a", newline="") as f:
            writer = csv.DictWriter(f, FIELDS)
            if new_file:
                writer.writeheader()
            writer.writerows(rows)
    return 0 if all(r["result"] == "EXACT" for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
