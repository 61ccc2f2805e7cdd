"""Time two or more builds of the console in one process, in turn: before/after figures that the
noise of a shared machine does not swamp (separate processes of the same build differed by 1.5x).

    python tools/ab_builds.py HEAD~1 HEAD --games pong,boxing --rounds 4
    python tools/ab_builds.py HEAD WORKTREE --games ms_pacman

Each revision's `cule_py` (WORKTREE: the files as they are now) is copied to a temporary folder as
package `cule_<k>` and imported next to the others (each compiles its kernels once, into its own
numba cache entries). Every round times each build's ConsoleBatch for `--frames` frames on one
numba thread (16 consoles, random actions, sticky 0.25, games over reset and the resets timed),
the builds one after the other; the ratios are per round against the first build, so slow phases
of the machine hit both sides.
"""

from __future__ import annotations

import argparse
import importlib
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("revisions", nargs="+", help="git revisions, or WORKTREE")
    parser.add_argument("--games", default="pong")
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--frames", type=int, default=400)
    parser.add_argument("--consoles", type=int, default=16)
    args = parser.parse_args()

    import numba
    numba.set_num_threads(1)
    games = args.games.split(",")
    packages = tempfile.mkdtemp(prefix="cule_ab_")
    sys.path.insert(0, packages)
    batches = {}
    for k, revision in enumerate(args.revisions):
        name = f"cule_{k}"
        _export(revision, Path(packages) / name)
        try:            # cule_py/batch.py; revisions before its rename have cule_py/console.py
            host = importlib.import_module(f"{name}.batch")
        except ModuleNotFoundError as err:
            if err.name != f"{name}.batch":
                raise
            host = importlib.import_module(f"{name}.console")
        roms = importlib.import_module(f"{name}.roms")
        start = time.time()
        for game in games:
            batch = host.ConsoleBatch(roms.load_rom(game), args.consoles,
                                      env_seed=np.arange(args.consoles),
                                      repeat_action_probability=0.25)
            batch.act(np.zeros(args.consoles, np.int64), frames=10)
            batches[k, game] = batch
        print(f"{revision} as {name}: ready in {time.time() - start:.0f} s", flush=True)
    fps = {key: [] for key in batches}
    for r in range(args.rounds):
        for game in games:
            for k in range(len(args.revisions)):
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
    for game in games:
        first = np.array(fps[0, game])
        for k, revision in enumerate(args.revisions):
            v = np.array(fps[k, game])
            ratio = v / first
            print(f"{game:15s} {revision:>12s}: median {np.median(v):8.0f} frames/s   "
                  f"per-round ratio to {args.revisions[0]}: median {np.median(ratio):.2f} "
                  f"[{ratio.min():.2f}, {ratio.max():.2f}]")


if __name__ == "__main__":
    main()
