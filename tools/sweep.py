"""Sweep AtariEmulator against ale-py live, game by game: everything compared after every frame.

    python -m tools.sweep                                  # every game the emulator runs, 3000 frames
    python -m tools.sweep --frames 600 --games pong,breakout
    python -m tools.sweep --modes all --frames 600         # every (mode, difficulty) pair
    python -m tools.sweep --out docs/exactness.md          # also write the results as markdown

For each game (and mode) console i of an AtariEmulator runs against its own ALEInterface
(random_seed seed + i, same sticky probability): loadROM, setMode/setDifficulty, reset_game,
then seeded random actions from the minimal set, each held 1-8 frames; a console resets when
its game is over and now and then at random. Compared after every frame and reset: RAM, screen,
reward, lives, game over, frame counters. The first difference ends that game's run; the table
says where and what.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import ale_py
import numpy as np

from cule_py import AtariEmulator, games
from cule_py.kernels.cartridges import cart
from cule_py.kernels.ale import game_logic
from cule_py.testing import ale_twins, emulator_difference, machine, play_emulator

RESET_CHANCE = 0.002          # per console and frame: reset from mid-game states too


def runs_here(game) -> bool:
    return game.scheme in cart.SCHEME_IDS and game.rom_id in game_logic.IMPLEMENTED


def run(game, mode, difficulty, frames, consoles, sticky, seed):
    """(first difference or None, frames per console, resets, total |reward|, seconds)."""
    start = time.perf_counter()
    emulator = AtariEmulator(game.rom_id, consoles, seed=seed, repeat_action_probability=sticky,
                             mode=mode, difficulty=difficulty)
    ales = ale_twins(emulator, repeat_action_probability=sticky, mode=mode,
                     difficulty=difficulty)
    if (diff := emulator_difference(emulator, ales)):
        return "after loadROM: " + diff, 0, 0, 0, time.perf_counter() - start
    emulator.reset()
    for ale in ales:
        ale.reset_game()
    if (diff := emulator_difference(emulator, ales)):
        return "after reset_game: " + diff, 0, 0, 0, time.perf_counter() - start
    played = play_emulator(emulator, ales, frames, np.random.default_rng(seed),
                           reset_chance=RESET_CHANCE)
    return (played.difference, played.frames, played.resets, played.rewards,
            time.perf_counter() - start)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=3000, help="frames per console and run")
    parser.add_argument("--consoles", type=int, default=8)
    parser.add_argument("--sticky", type=float, default=0.25, help="repeat_action_probability")
    parser.add_argument("--games", default="", help="comma-separated rom ids (default: every "
                        "game whose cartridge scheme and logic the emulator has)")
    parser.add_argument("--modes", choices=("default", "all"), default="default")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", help="also write the results table to this markdown file")
    args = parser.parse_args(argv)
    if args.games:
        names = [games.get_game(g).rom_id for g in args.games.split(",") if g]
    else:
        names = sorted(g.rom_id for g in games.GAMES.values() if runs_here(g))
    lines = ["| game | mode | difficulty | frames x consoles | resets | |reward| | result |",
             "|---|---|---|---|---|---|---|"]
    exact, other = [], []
    print(lines[0], flush=True)
    for name in names:
        game = games.get_game(name)
        if args.modes == "all":
            pairs = [(m, d) for m in game.modes for d in game.difficulties]
        else:
            pairs = [(game.default_mode, game.default_difficulty)]
        for mode, difficulty in pairs:
            try:
                diff, frames, resets, rewarded, secs = run(
                    game, None if mode == game.default_mode else mode,
                    None if difficulty == game.default_difficulty else difficulty,
                    args.frames, args.consoles, args.sticky, args.seed)
                result = "exact" if diff is None else diff
            except NotImplementedError as error:
                frames = resets = rewarded = 0
                diff = result = f"not run: {error}"
            line = (f"| {name} | {mode} | {difficulty} | {frames} x {args.consoles} | {resets} | "
                    f"{rewarded} | {result} |")
            lines.append(line)
            print(line, flush=True)
            (exact if diff is None else other).append(f"{name}:{mode}")
    summary = f"exact: {len(exact)}   not exact or not run: {len(other)}"
    print("\n" + summary + ("\n  " + " ".join(other) if other else ""))
    if args.out:
        where = machine(packages=())
        header = [
            "# Exactness against ale-py", "",
            f"Written by `python -m tools.sweep {' '.join(argv or sys.argv[1:])}`: ale-py "
            f"{ale_py.__version__}, {where['arch']} {where['system']}, python "
            f"{where['python']}. Every frame of every console compared (RAM, screen, "
            f"reward, lives, game over, frame counters); sticky actions {args.sticky}; random "
            f"minimal-set actions held 1-8 frames; resets at game over and at random.", "",
            summary, ""]
        Path(args.out).write_text("\n".join(header + lines) + "\n")
    return 0 if not other else 1


if __name__ == "__main__":
    sys.exit(main())
