"""Time two or more builds of the console in one process, in turn: before/after figures that the
noise of a shared machine does not swamp (separate processes of the same build differed by 1.5x).

    python -m tools.ab_builds HEAD~1 HEAD --games pong,boxing --rounds 4
    python -m tools.ab_builds HEAD WORKTREE --games ms_pacman
    python -m tools.ab_builds OLD NEW --method held4 --games alien,...  --vector-games pong
    python -m tools.ab_builds HEAD WORKTREE --games "" --vector-games breakout --vector-threads 1,2

Each revision's `cule_py` (WORKTREE: the files as they are now) is copied to a temporary folder as
package `cule_<k>` and imported next to the others (each compiles its kernels once, into its own
numba cache entries). Every round times each build's ConsoleBatch for `--frames` frames on one
numba thread (16 consoles, random actions, sticky 0.25, games over reset and the resets timed),
the builds one after the other; the ratios are per round against the first build, so slow phases
of the machine hit both sides. `--vector-threads 1,2` also prints each build's per-round 2-thread
over 1-thread figure.

A build's place in the process is not neutral: on the 2-core EPYC VM, HEAD against itself read
0.79 (1 thread) and 0.83 (2 threads) for the second copy's agent step (Breakout, 10 rounds). Run
both orders and take the geometric mean of the two ratios.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import io
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]


def _export(revision: str, target: Path) -> None:
    if revision == "WORKTREE":
        shutil.copytree(ROOT / "cule_py", target,
                        ignore=shutil.ignore_patterns("__pycache__"))
        return
    blob = subprocess.run(["git", "-C", str(ROOT), "archive", revision, "cule_py"],
                          capture_output=True, check=True).stdout
    with tempfile.TemporaryDirectory() as tmp:
        with tarfile.open(fileobj=io.BytesIO(blob)) as archive:
            archive.extractall(tmp, filter="data")
        shutil.copytree(Path(tmp) / "cule_py", target)


def _import_build(name: str, folder: Path):
    """The copy of cule_py in `folder`, imported from there as package `name` (each build runs
    under its own name, beside the others and the checkout's cule_py)."""
    spec = importlib.util.spec_from_file_location(name, folder / "__init__.py",
                                                  submodule_search_locations=[str(folder)])
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def _emulator_round(emulator, game: str, frames: int, hold: int, screen_every: int,
                    seed: int) -> float:
    """Frames/s of one timed run of `frames` frames per console: a random minimal-set action
    held `hold` frames, the RGB screen read every `screen_every` frames (0: never), consoles at
    game over reset before their next frame (benchmarks/atari57.py's loop)."""
    from benchmarks import atari57       # its action schedule and timed loop

    legal = np.asarray(emulator.minimal_action_set())
    schedule = atari57._action_schedule(np.random.default_rng(seed), legal, frames, hold,
                                        emulator.num_envs)
    start = time.perf_counter()
    atari57.play_schedule(emulator, schedule, screen_every)
    return schedule.size / (time.perf_counter() - start)


def _vector_round(env, steps: int, seed: int) -> float:
    """Agent steps/s of `steps` steps of random actions (v5 settings, autoreset inside)."""
    rng = np.random.default_rng(seed)
    actions = rng.integers(env.single_action_space.n, size=(steps, env.num_envs))
    start = time.perf_counter()
    for row in actions:
        env.step(row)
    return env.num_envs * steps / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("revisions", nargs="+", help="git revisions, or WORKTREE")
    parser.add_argument("--games", default="pong")
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--frames", type=int, default=400)
    parser.add_argument("--consoles", type=int, default=16)
    parser.add_argument("--method", choices=("random", "held4"), default="random",
                        help="random: ConsoleBatch, a random action of 18 every frame, sticky "
                             "0.25 (the default); held4: AtariEmulator as benchmarks/atari57.py "
                             "(actions held 4 frames, the RGB screen read every 4th)")
    parser.add_argument("--vector-games", default="",
                        help="also time AtariVectorEnv's step (v5 settings, --consoles envs "
                             "a thread, at each --vector-threads) on these games, after a "
                             "300-step warm-up")
    parser.add_argument("--vector-steps", type=int, default=200)
    parser.add_argument("--vector-threads", default="1",
                        help="thread counts of the agent steps, comma-separated: each gets "
                             "--consoles consoles a thread")
    parser.add_argument("--json", help="write every round's figure to this file")
    args = parser.parse_args()

    import numba
    numba.set_num_threads(1)
    games = [g for g in args.games.split(",") if g]
    vector_games = [g for g in args.vector_games.split(",") if g]
    vector_threads = [int(t) for t in args.vector_threads.split(",") if t]
    packages = tempfile.mkdtemp(prefix="cule_ab_")
    batches = {}
    for k, revision in enumerate(args.revisions):
        name = f"cule_{k}"
        _export(revision, Path(packages) / name)
        start = time.time()
        package = _import_build(name, Path(packages) / name)
        if args.method == "held4":
            for game in games:
                emulator = package.AtariEmulator(game, args.consoles, seed=0,
                                                 repeat_action_probability=0.0)
                _emulator_round(emulator, game, 300, 4, 0, seed=0)      # decorrelate
                batches[k, game] = emulator
        else:
            try:        # cule_py/batch.py; revisions before its rename have cule_py/console.py
                host = importlib.import_module(f"{name}.batch")
            except ModuleNotFoundError as err:
                if err.name != f"{name}.batch":
                    raise
                host = importlib.import_module(f"{name}.console")
            roms = importlib.import_module(f"{name}.roms")
            for game in games:
                batch = host.ConsoleBatch(roms.load_rom(game), args.consoles,
                                          env_seed=np.arange(args.consoles),
                                          repeat_action_probability=0.25)
                batch.act(np.zeros(args.consoles, np.int64), frames=10)
                batches[k, game] = batch
        for game in vector_games:
            ss = importlib.import_module(f"{name}.steady_state")
            for threads in vector_threads:
                env = ss.make_cule_env(game, args.consoles * threads, threads=threads)
                env.reset(seed=0)
                _vector_round(env, 300, seed=0)                         # warm-up
                batches[k, "vector", game, f"{threads}T"] = env
        print(f"{revision} as {name}: ready in {time.time() - start:.0f} s", flush=True)
    fps = {key: [] for key in batches}
    for r in range(args.rounds):
        order = range(len(args.revisions)) if r % 2 == 0 else reversed(range(len(args.revisions)))
        order = list(order)
        for game in games:
            for k in order:
                if args.method == "held4":
                    fps[k, game].append(_emulator_round(batches[k, game], game, args.frames, 4,
                                                        4, seed=100 + r))
                    continue
                batch = batches[k, game]
                rng = np.random.default_rng(r)
                start, frames = time.perf_counter(), 0
                while frames < args.frames:
                    batch.act(rng.integers(0, 18, args.consoles), frames=50)
                    frames += 50
                    over = batch.flags()[1]
                    if over.any():            # a console at game over would stop emulating
                        batch.reset(over)
                fps[k, game].append(args.consoles * frames / (time.perf_counter() - start))
        for game in vector_games:
            for threads in vector_threads:
                for k in order:
                    key = (k, "vector", game, f"{threads}T")
                    fps[key].append(_vector_round(batches[key], args.vector_steps, seed=100 + r))
    ratios_by_build = {k: [] for k in range(len(args.revisions))}
    for key in [(g,) for g in games] + [("vector", g, f"{t}T") for g in vector_games
                                        for t in vector_threads]:
        first = np.array(fps[(0,) + key])
        label = " ".join(key)
        for k, revision in enumerate(args.revisions):
            v = np.array(fps[(k,) + key])
            ratio = v / first
            ratios_by_build[k].append(float(np.median(ratio)))
            unit = "agent steps/s" if key[0] == "vector" else "frames/s"
            print(f"{label:22s} {revision:>12s}: median {np.median(v):9.0f} {unit}   "
                  f"per-round ratio to {args.revisions[0]}: median {np.median(ratio):.3f} "
                  f"[{ratio.min():.3f}, {ratio.max():.3f}]", flush=True)
    for game in vector_games:
        for threads in vector_threads[1:]:
            for k, revision in enumerate(args.revisions):
                # within a round, so that a slow phase of the machine hits both counts
                scaling = (np.array(fps[k, "vector", game, f"{threads}T"])
                           / np.array(fps[k, "vector", game, f"{vector_threads[0]}T"]))
                print(f"{game} {revision}: {threads} threads over {vector_threads[0]}, per "
                      f"round: median {np.median(scaling):.3f} [{scaling.min():.3f}, "
                      f"{scaling.max():.3f}]", flush=True)
    for k, revision in enumerate(args.revisions[1:], start=1):
        medians = np.array(ratios_by_build[k])
        print(f"{revision}: geometric mean of the per-game median ratios to {args.revisions[0]}: "
              f"{np.exp(np.log(medians).mean()):.3f} (min {medians.min():.3f}, max "
              f"{medians.max():.3f}, {len(medians)} items)")
    if args.json:
        import json
        with open(args.json, "w") as f:
            json.dump({" ".join(map(str, key)): v for key, v in fps.items()}, f, indent=1)


if __name__ == "__main__":
    main()
