"""Emulated frames per second of the console against ale-py, same machine, same run.

    python benchmarks/console_fps.py [--games boxing seaquest] [--frames 3000] [--envs 1 64]

ale-py: one `ALEInterface.act` per frame (repeat_action_probability 0), random minimal actions.
cule_py: `ConsoleBatch.act` with N consoles (one kernel launch per frame for all of them), random
actions per console; numba threads set to 1 for the per-core row and to all cores otherwise.
Consoles are decorrelated by their different action streams. Median of three timed runs.
"""

from __future__ import annotations

import argparse
import os
import platform
import time

import numba
import numpy as np

import ale_py
from cule_py.console import ConsoleBatch


def ale_fps(game_path, actions, frames):
    ale = ale_py.ALEInterface()
    ale.setLoggerMode(ale_py.LoggerMode.Error)
    ale.setFloat("repeat_action_probability", 0.0)
    ale.loadROM(str(game_path))
    rng = np.random.default_rng(0)
    seq = rng.choice(actions, frames)
    start = time.perf_counter()
    for a in seq:
        ale.act(int(a))
        if ale.game_over():
            ale.reset_game()
    return frames / (time.perf_counter() - start)


def cule_fps(game, envs, frames, threads):
    numba.set_num_threads(threads)
    consoles = ConsoleBatch(game, envs)
    rng = np.random.default_rng(0)
    actions = np.array([int(a) for a in consoles.game.minimal_actions])
    consoles.act(rng.choice(actions, envs))          # compile / warm
    seq = rng.choice(actions, (frames, envs))
    start = time.perf_counter()
    for row in seq:
        consoles.act(row)
    return frames * envs / (time.perf_counter() - start)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", nargs="+", default=["boxing", "seaquest", "riverraid"])
    parser.add_argument("--frames", type=int, default=3000)
    parser.add_argument("--envs", type=int, nargs="+", default=[1, 64])
    args = parser.parse_args()
    cores = numba.config.NUMBA_NUM_THREADS
    print(f"machine: {platform.machine()}, {os.cpu_count()} logical CPUs, numba {numba.__version__}, "
          f"ale-py {ale_py.__version__}")
    print("| game | ale-py fps (1 core) | cule_py consoles | threads | cule_py fps | ratio |")
    print("|---|---|---|---|---|---|")
    for game in args.games:
        probe = ConsoleBatch(game, 1)
        actions = [int(a) for a in probe.game.minimal_actions]
        ale = float(np.median([ale_fps(probe.rom.path, actions, args.frames) for _ in range(3)]))
        for envs in args.envs:
            threads = 1 if envs == 1 else cores
            ours = float(np.median([cule_fps(game, envs, args.frames // max(1, envs // 8), threads)
                                    for _ in range(3)]))
            print(f"| {game} | {ale:,.0f} | {envs} | {threads} | {ours:,.0f} | {ours / ale:.2f} |")


if __name__ == "__main__":
    main()
