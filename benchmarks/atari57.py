"""Per-core emulation speed over the Atari-57 games: cule_py's CPU backend against ale-py.

    python -m benchmarks.atari57 [--method held4|sticky] [--rounds 5] [--frames 16000]
                                 [--cores 1|all] [--games pong ...] [--json out.json]

Each side emulates `--frames` frames per round after 300 random frames (the consoles
decorrelate): ale-py one ALEInterface in this process (`--cores all`: one process per core),
cule_py one AtariEmulator of 16 consoles per core with numba on that many threads. Consoles at
game over are reset before their next frame on both sides.

Methods:
  held4   a random minimal-set action held for four frames, the RGB screen read every fourth
          frame, no sticky actions (what an agent with frameskip 4 asks of the emulator);
  sticky  a random action every frame, sticky actions 0.25, no screen read (`python -m cule_py
          --emulator`'s method).

A round runs both sides back to back, the order alternating between rounds: this kind of host
drifts over seconds, so a round's ratio compares runs made under nearly the same conditions.
Per game the ratio is the median of the rounds' ratios (with its range); the summary is the
geometric mean of those medians and the games below 1.0.
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import time

import numpy as np

from benchmarks.paired import paired_row, table_line

ATARI_57 = (
    "alien amidar assault asterix asteroids atlantis bank_heist battle_zone beam_rider berzerk "
    "bowling boxing breakout centipede chopper_command crazy_climber defender demon_attack "
    "double_dunk enduro fishing_derby freeway frostbite gopher gravitar hero ice_hockey "
    "jamesbond kangaroo krull kung_fu_master montezuma_revenge ms_pacman name_this_game phoenix "
    "pitfall pong private_eye qbert riverraid road_runner robotank seaquest skiing solaris "
    "space_invaders star_gunner surround tennis time_pilot tutankham up_n_down venture "
    "video_pinball wizard_of_wor yars_revenge zaxxon").split()
assert len(ATARI_57) == 57
CONSOLES_PER_CORE = 16
WARMUP_FRAMES = 300
METHODS = {"held4": {"sticky": 0.0, "hold": 4, "screen_every": 4},
           "sticky": {"sticky": 0.25, "hold": 1, "screen_every": 0}}


def _action_schedule(rng, legal: np.ndarray, frames: int, hold: int, consoles: int):
    """(frames, consoles) actions: a random legal action per console, each held `hold` frames."""
    picks = rng.integers(len(legal), size=(math.ceil(frames / hold), consoles))
    return np.repeat(legal[picks], hold, axis=0)[:frames]


def ale_run(game: str, frames: int, method: str, seed: int) -> tuple[int, float]:
    """(frames emulated, seconds) of one ALEInterface: the method's loop after the warm-up."""
    from cule_py.testing import ale_twin

    m = METHODS[method]
    ale = ale_twin(game, seed, repeat_action_probability=m["sticky"])
    legal = np.asarray(ale.getMinimalActionSet())
    rng = np.random.default_rng(seed)
    for a in _action_schedule(rng, legal, WARMUP_FRAMES, m["hold"], 1)[:, 0]:
        ale.act(a)
        if ale.game_over():
            ale.reset_game()
    actions = _action_schedule(rng, legal, frames, m["hold"], 1)[:, 0]
    every = m["screen_every"]
    height, width = ale.getScreenDims()
    screen = np.empty((height, width, 3), np.uint8)
    start = time.perf_counter()
    for i, a in enumerate(actions):
        if ale.game_over():
            ale.reset_game()
        ale.act(a)
        if every and i % every == every - 1:
            ale.getScreenRGB(screen)
    return len(actions), time.perf_counter() - start


def _ale_job(args):
    return ale_run(*args)


def ale_fps(game: str, frames: int, method: str, processes: int, seed: int) -> float:
    if processes == 1:
        done = [ale_run(game, frames, method, seed)]
    else:
        with multiprocessing.get_context("spawn").Pool(processes) as pool:
            done = pool.map(_ale_job, [(game, frames // processes, method, seed + i)
                                       for i in range(processes)])
    return sum(n for n, _ in done) / max(s for _, s in done)


def cule_fps(game: str, frames: int, method: str, threads: int, seed: int) -> float:
    """Frames/s of one AtariEmulator of CONSOLES_PER_CORE x threads consoles on `threads`
    numba threads, `frames` console-frames in all."""
    import numba

    from cule_py import AtariEmulator

    m = METHODS[method]
    numba.set_num_threads(threads)
    consoles = CONSOLES_PER_CORE * threads
    emulator = AtariEmulator(game, consoles, seed=seed, repeat_action_probability=m["sticky"])
    legal = np.asarray(emulator.minimal_action_set())
    rng = np.random.default_rng(seed)

    play_schedule(emulator, _action_schedule(rng, legal, WARMUP_FRAMES, m["hold"], consoles), 0)
    schedule = _action_schedule(rng, legal, max(frames // consoles, 1), m["hold"], consoles)
    start = time.perf_counter()
    play_schedule(emulator, schedule, m["screen_every"])
    return schedule.size / (time.perf_counter() - start)


def play_schedule(emulator, schedule: np.ndarray, screen_every: int) -> None:
    """cule_py's side of a run: a row of `schedule` a frame, consoles at game over reset before
    their next frame, the RGB screen read into one reused array (as ale-py's side) every
    `screen_every` frames (0: never). tools/ab_builds.py times builds with it too."""
    screen = np.empty(emulator.screen().shape + (3,), np.uint8)
    for i, row in enumerate(schedule):
        over = emulator.game_over()
        if over.any():
            emulator.reset(over)
        emulator.act(row)
        if screen_every and i % screen_every == screen_every - 1:
            emulator.screen_rgb(screen)


def benchmark(games, frames: int, method: str, cores: int, rounds: int, say=print) -> list[dict]:
    rows = []
    for game in games:
        ours, theirs = [], []
        for r in range(rounds):
            seed = 100 + r
            if r % 2:
                theirs.append(ale_fps(game, frames, method, cores, seed))
            ours.append(cule_fps(game, frames, method, cores, seed))
            if not r % 2:
                theirs.append(ale_fps(game, frames, method, cores, seed))
        row = paired_row(game, ours, theirs, "cule_fps", "ale_fps")
        rows.append(row)
        say(table_line(row, "cule_fps", "ale_fps"))
    return rows


def summary(rows: list[dict]) -> dict:
    ratios = [r["ratio"] for r in rows]
    return {"geometric_mean": float(np.exp(np.mean(np.log(ratios)))),
            "median": float(np.median(ratios)), "min": min(ratios), "max": max(ratios),
            "below_1": sorted((r["game"] for r in rows if r["ratio"] < 1.0))}


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--method", choices=list(METHODS), default="held4")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--frames", type=int, default=16000, help="per side and round")
    parser.add_argument("--cores", default="1", help="1 or 'all'")
    parser.add_argument("--games", nargs="+", default=list(ATARI_57))
    parser.add_argument("--json")
    args = parser.parse_args(argv)
    import numba

    cores = numba.config.NUMBA_NUM_THREADS if args.cores == "all" else int(args.cores)
    from cule_py.testing import commit, machine_line

    print(f"{machine_line(cores)}; commit {commit()}; method {args.method}, {cores} core(s), "
          f"{args.frames} frames, {args.rounds} rounds", flush=True)
    print("| game | cule_py fps | ale-py fps | ratio median [range] |\n|---|---|---|---|",
          flush=True)
    rows = benchmark(args.games, args.frames, args.method, cores, args.rounds,
                     say=lambda line: print(line, flush=True))
    total = summary(rows)
    print(f"\ngeometric mean {total['geometric_mean']:.2f}, median {total['median']:.2f}, "
          f"range {total['min']:.2f}-{total['max']:.2f}; below 1.0: "
          f"{', '.join(total['below_1']) or 'none'}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"method": args.method, "cores": cores, "frames": args.frames,
                       "rounds": args.rounds, "rows": rows, "summary": total}, f, indent=1)


if __name__ == "__main__":
    main()
