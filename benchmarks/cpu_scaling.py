"""Agent steps per second over threads on the CPU: cule_py's AtariVectorEnv, ale-py's and EnvPool,
same game, same settings (cule_py.steady_state.AGENT_SETTINGS: v5, sticky 0.25, 84x84x4
grayscale, noop and fire resets, reward clipping), same cores, 16 envs per thread, in one run.

    python -m benchmarks.cpu_scaling                       # 5 games, 1 and 2 threads, 5 rounds
    python -m benchmarks.cpu_scaling --threads 2 --busy 1  # beside one core's worth of other work

Every side at every thread count is one env in a process of its own, as a user runs it (with
`--one-process`, all of them in this one), measured in steady state by
cule_py.steady_state.measure_vector_env (warm-up past the first episode ends, timed windows with
episode ends in them); the sides take turns in each round, the order rotating per round, so a
ratio within a round compares like with like on a host whose speed drifts, and each side's
thread counts run one right after the other (their order alternating), so that a scaling ratio
compares windows seconds apart: on the development VM a slow spell of the host lasts tens of
seconds. Scaling is each round's `threads` figure over the same round's 1-thread figure; the
table gives the median over rounds and its range. `--busy N` runs N processes that spin in Python beside the whole
measurement (contention; each side's CPU share then shows what it got). EnvPool comes from the
`bench` extra (pip install "cule_py[bench]"); without it, its columns are left out.
"""

from __future__ import annotations

import argparse
import functools
import importlib.util
import json
import multiprocessing
import os
import statistics
import sys

from cule_py import steady_state as ss
from cule_py.testing import machine_line, usable_cpus

GAMES = ("pong", "breakout", "space_invaders", "ms_pacman", "seaquest")
MAKERS = {"cule_py": ss.make_cule_env, "ale_py": ss.make_ale_env, "envpool": ss.EnvPoolVectorEnv}


def _spin() -> None:
    while True:
        pass


def _available_sides(asked: list[str]) -> list[str]:
    sides = []
    for side in asked:
        if side == "envpool" and importlib.util.find_spec("envpool") is None:
            print("EnvPool not installed (pip install \"cule_py[bench]\"): left out",
                  file=sys.stderr)
            continue
        sides.append(side)
    return sides


def _median_range(values: list[float]) -> str:
    return f"{statistics.median(values):.2f} [{min(values):.2f}, {max(values):.2f}]"


def measure_game(game: str, sides: list[str], threads: list[int], args) -> dict:
    """Every side at every thread count, paired rounds; per (side, threads) its results."""
    plan = [(side, t) for side in sides for t in threads]
    runs = ss.paired_rounds(
        game, [ss.Side(f"{ss.SIDE_NAMES[side]} {t} thread(s)",
                       functools.partial(MAKERS[side], game, args.envs_per_thread * t, threads=t),
                       t) for side, t in plan],
        rounds=args.rounds, warmup_steps=args.warmup, window_steps=args.window_steps,
        windows=args.windows, seed=args.seed,
        progress=lambda line: print(line, file=sys.stderr, flush=True),
        own_processes=not args.one_process, adjacent=len(threads))
    return {key: results for key, results in zip(plan, runs)}


def runs_as_json(runs: dict) -> list[dict]:
    """measure_game's results, JSON-able: per side and thread count, every round's figures."""
    return [{"side": side, "threads": t, "rounds": [r.as_dict() for r in results]}
            for (side, t), results in runs.items()]


def game_rows(game: str, runs: dict, sides: list[str], threads: list[int]) -> list[str]:
    """Markdown rows: one per side (steps/s per thread count, scaling over the first count), and
    cule_py's ratio to each other side per thread count."""
    rows = []
    base = threads[0]
    for side in sides:
        speeds = {t: [r.agent_steps_per_s for r in runs[side, t]] for t in threads}
        shares = [r.cpu_share for t in threads for r in runs[side, t] if r.cpu_share is not None]
        scaling = ", ".join(
            f"{t}/{base}: " + _median_range([a / b for a, b in zip(speeds[t], speeds[base])])
            for t in threads[1:]) or "n/a"
        rows.append(f"| {game} | {ss.SIDE_NAMES[side]} | "
                    + " | ".join(f"{statistics.median(speeds[t]):,.0f}" for t in threads)
                    + f" | {scaling} | {min(shares):.0%} |")
    if "cule_py" in sides:
        for other in sides:
            if other == "cule_py":
                continue
            ratios = "; ".join(
                f"{t} thread(s) " + _median_range(
                    [c.agent_steps_per_s / o.agent_steps_per_s
                     for c, o in zip(runs["cule_py", t], runs[other, t])])
                for t in threads)
            rows.append(f"| {game} | cule_py / {ss.SIDE_NAMES[other]} | {ratios} |")
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", default=",".join(GAMES))
    parser.add_argument("--threads", default=None,
                        help="comma-separated thread counts (default: 1 and every usable core)")
    parser.add_argument("--sides", default="cule_py,ale_py,envpool")
    parser.add_argument("--envs-per-thread", type=int, default=16)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--warmup", type=int, default=None,
                        help="warm-up steps (default per game: cule_py.steady_state)")
    parser.add_argument("--window-steps", type=int, default=200)
    parser.add_argument("--windows", type=int, default=3)
    parser.add_argument("--busy", type=int, default=0,
                        help="processes spinning beside the measurement (contention)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--one-process", action="store_true",
                        help="keep every side's env in this process (default: one process each)")
    parser.add_argument("--json", default=None, metavar="PATH", help="also write every round")
    args = parser.parse_args()
    threads = ([int(t) for t in args.threads.split(",")] if args.threads
               else sorted({1, usable_cpus()}))
    sides = _available_sides(args.sides.split(","))
    spinners = [multiprocessing.Process(target=_spin, daemon=True) for _ in range(args.busy)]
    for p in spinners:
        p.start()
    out, lines = [], []
    try:
        for game in args.games.split(","):
            runs = measure_game(game, sides, threads, args)
            rows = game_rows(game, runs, sides, threads)
            lines += rows
            print("\n".join(rows), flush=True)
            out.append({"game": game, "runs": runs_as_json(runs)})
    finally:
        for p in spinners:
            p.kill()
    print(f"\n{machine_line(threads=max(threads))}, load average {os.getloadavg()[0]:.1f}, "
          f"{args.busy} busy process(es) beside, {args.envs_per_thread} envs per thread, "
          f"{'all sides in one process' if args.one_process else 'a process per side'}, "
          f"{args.rounds} paired rounds, medians [range]; agent steps/s")
    print("| game | side | " + " | ".join(f"{t} thread(s)" for t in threads)
          + " | scaling | least CPU share |")
    print("|---|---|" + "---|" * len(threads) + "---|---|")
    print("\n".join(lines))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"threads": threads, "busy": args.busy, "games": out,
                       "machine": machine_line(threads=max(threads))}, f, indent=1)


if __name__ == "__main__":
    main()
