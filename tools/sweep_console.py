"""Sweep ConsoleBatch against ale-py live, game by game: RAM and screen after every frame.

    python tools/sweep_console.py                       # every 2K/4K game, default mode, 2000 frames
    python tools/sweep_console.py --frames 600 --games pong,breakout
    python tools/sweep_console.py --modes all --frames 300   # every mode (difficulties cycled)

For each game (and mode) both emulators run loadROM, setMode/setDifficulty and reset_game, then
the same seeded random actions from the game's minimal set, each held 1-8 frames; both reset when
ALE reports game over, and now and then at random. The first frame where our RAM or screen differs
from ALE's ends that run; the table says where, which RAM bytes and how many pixels. A second
console in the batch plays the same actions and must stay equal to the first.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import ale_py  # noqa: E402

from cule_py import games  # noqa: E402
from cule_py.console import ConsoleBatch  # noqa: E402
from cule_py.kernels import cart  # noqa: E402

RESET_CHANCE = 0.005          # per held action: reset from mid-game states too
ENV_SEED = 12345


def ale_for(path, mode, difficulty, game):
    ale = ale_py.ALEInterface()
    ale.setLoggerMode(ale_py.LoggerMode.Error)
    ale.setFloat("repeat_action_probability", 0.0)
    ale.setInt("random_seed", ENV_SEED)
    ale.loadROM(str(path))
    if mode != game.default_mode:
        ale.setMode(mode)
    if difficulty != game.default_difficulty:
        ale.setDifficulty(difficulty)
    return ale


def run(game, mode, difficulty, frames, seed):
    """Returns (first difference, None, or "STUCK" when ALE reports game over right after
    reset_game; frames run; resets; seconds)."""
    start = time.perf_counter()
    consoles = ConsoleBatch(game.rom_id, 2, mode=mode,
                            difficulty=None if difficulty == game.default_difficulty else difficulty,
                            env_seed=ENV_SEED)
    ale = ale_for(consoles.rom.path, mode, difficulty, game)
    rng = np.random.default_rng(seed)
    actions = [int(a) for a in game.minimal_actions]

    def differs(where):
        ram, screen = ale.getRAM(), ale.getScreen()
        ours = consoles.screen()
        bytes_ = np.nonzero(consoles.ram[0] != ram)[0]
        pixels = int(np.count_nonzero(ours[0] != screen)) if ours[0].shape == screen.shape else -1
        twins = np.array_equal(consoles.ram[0], consoles.ram[1]) and np.array_equal(ours[0], ours[1])
        if len(bytes_) or pixels or not twins:
            ram_text = " ".join(f"${0x80 + b:02X}" for b in bytes_[:6]) + (" ..." if len(bytes_) > 6 else "")
            return (f"{where}: RAM {ram_text or '-'}; {pixels} pixels"
                    + ("" if twins else "; the two consoles differ"))
        return None

    diff = differs("after loadROM")
    resets = 0
    if diff is None:
        ale.reset_game()
        consoles.reset()
        diff = differs("after reset 0")
    frame = 0
    stuck = False
    while diff is None and frame < frames:
        if ale.game_over():
            # ALE can call a fresh episode over (demon_attack modes 3, 5, 7): its act() then
            # emulates nothing, and there is nothing further to compare.
            stuck = True
            break
        action = actions[rng.integers(len(actions))]
        for _ in range(rng.integers(1, 9)):
            consoles.act(np.array([action, action]))
            ale.act(action)
            frame += 1
            diff = differs(f"frame {frame}")
            # ALE's act() does not emulate once the game is over: reset at once.
            if diff is not None or frame >= frames or ale.game_over():
                break
        if diff is None and (ale.game_over() or rng.random() < RESET_CHANCE):
            ale.reset_game()
            consoles.reset()
            resets += 1
            diff = differs(f"reset {resets} at frame {frame}")
    if stuck and diff is None:
        diff = "STUCK"
    return diff, frame, resets, time.perf_counter() - start


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=2000, help="frames per game and mode")
    parser.add_argument("--games", default="", help="comma-separated rom ids (default: every "
                        "game whose cartridge scheme ConsoleBatch runs)")
    parser.add_argument("--modes", choices=("default", "all"), default="default")
    parser.add_argument("--seed", type=int, default=1, help="action sequence seed")
    args = parser.parse_args(argv)
    if args.games:
        names = [games.get_game(g).rom_id for g in args.games.split(",") if g]
    else:
        names = [g.rom_id for g in games.GAMES.values() if g.scheme in cart.SCHEME_IDS]
    exact, other = [], []
    print(f"{'game':18s} {'mode':>5s} {'diff':>4s} {'frames':>6s} {'resets':>6s} {'secs':>6s}  result")
    for name in names:
        game = games.get_game(name)
        modes = game.modes if args.modes == "all" else (game.default_mode,)
        for index, mode in enumerate(modes):
            difficulty = (game.difficulties[index % len(game.difficulties)]
                          if args.modes == "all" else game.default_difficulty)
            try:
                diff, frames, resets, secs = run(game, mode, difficulty, args.frames, args.seed)
            except NotImplementedError as error:
                print(f"{name:18s} {mode:5d} {difficulty:4d} {'':6s} {'':6s} {'':6s}  skipped: {error}",
                      flush=True)
                other.append(name)
                continue
            result = {None: "exact", "STUCK": "exact; ALE game over right after reset_game"}
            print(f"{name:18s} {mode:5d} {difficulty:4d} {frames:6d} {resets:6d} {secs:6.1f}  "
                  f"{result.get(diff, diff)}", flush=True)
            (exact if diff in result else other).append(f"{name}:{mode}")
    print(f"\nexact: {len(exact)}   not exact or skipped: {len(other)}")
    if other:
        print("  " + " ".join(other))
    return 0 if not other else 1


if __name__ == "__main__":
    sys.exit(main())
