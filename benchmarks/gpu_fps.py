"""cule_py on one GPU against ale-py's AtariVectorEnv on every CPU core of the same machine, in
the same run: emulated frames per second.

Per game, in this order (sticky actions 0.25 everywhere; every figure the median of 3 runs):
  ale_vector  ale-py AtariVectorEnv, its defaults (frameskip 4, 84x84 grayscale, stack 4,
              noop_max 30, fire reset, autoreset NextStep), num_envs --ale-envs, num_threads =
              os.cpu_count(): reset(seed=0), 50 warm-up steps, 3 timed runs of 200 random steps;
              frames/s = steps * num_envs * 4 / time.
  raw         cule_py.AtariEmulator(device="cuda") for each --consoles count, console i seeded
              seed + i: build (build_s), decorrelate with --warmup frames of random legal actions
              drawn on the GPU (game-over consoles reset every 25 frames), then 3 timed runs of
              --frames act() calls between two synchronizes. Game-over consoles are reset between
              runs, untimed; a run counts the consoles not at game over at its start (a console at
              game over does not emulate) times its frames.
  agent       cule_py.vector.AtariVectorEnv(device="cuda"), ale-py's defaults: reset(seed=0),
              --warmup-steps random steps, 3 timed runs of --steps steps between two synchronizes,
              autoresets inside step() timed (2 launches per step: step and autoreset kernels);
              frames = steps * num_envs * 4.
As DESIGN.md asks: consoles decorrelated before timing, resets included, consoles at game over not
counted, the machine named (GPU name and CPU count in every record). host_us_per_call: median time
of the act()/step() call alone (no synchronize), the host's cost per launch. The first GPU build of
a kind in a process includes loading the kernels (first_in_process). Ratios: GPU frames/s over
the ale-py vector env's frames/s (for raw: emulated frames against ale-py's agent frames).

Each configuration is appended to DIR/gpu_fps.jsonl as soon as it is measured; an error (out of
memory, say) is recorded and the larger counts of that kind for that game are skipped.

    python benchmarks/gpu_fps.py --out results --time-limit 540
    python benchmarks/gpu_fps.py --out results --resume --time-limit 540   # go on where it stopped
    CULE_PY_THREADS_PER_BLOCK=256 python benchmarks/gpu_fps.py --games pong --out results --resume
    python benchmarks/gpu_fps.py --report results    # results/gpu_fps.md (and gpu_fps.png)
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import pathlib
import statistics
import sys
import time

import numpy as np

# Runnable as `python benchmarks/gpu_fps.py` from a checkout without installing cule_py.
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))

STICKY = 0.25
FRAMESKIP = 4
RUNS = 3
RESET_EVERY = 25
ALE_WARMUP, ALE_STEPS = 50, 200
RATIO_BASIS = {"raw": "raw emulated frames/s vs ale-py vector env agent frames/s",
               "identical": "raw frames/s of consoles kept identical (no divergence) vs ale-py "
                            "vector env agent frames/s",
               "agent": "agent frames/s (steps*envs*4) vs ale-py vector env agent frames/s"}


def _tpb() -> int:
    # What GpuArrays reads when a batch is made; the key under which --resume matches results.
    return int(os.environ.get("CULE_PY_THREADS_PER_BLOCK", 128))


def _machine() -> dict:
    meta: dict = {"cpu_count": os.cpu_count(), "gpu": None}
    try:
        import cupy as cp

        meta["gpu"] = cp.cuda.runtime.getDeviceProperties(0)["name"].decode()
        meta["cupy"] = cp.__version__
    except Exception as err:  # noqa: BLE001 - record what is there, measure anyway
        meta["gpu"] = f"unknown ({type(err).__name__}: {err})"
    for name in ("numba", "ale_py"):
        try:
            meta[name] = __import__(name).__version__
        except Exception:  # noqa: BLE001
            meta[name] = None
    return meta


def _free_gpu() -> None:
    gc.collect()
    try:
        import cupy as cp

        cp.get_default_memory_pool().free_all_blocks()
        cp.get_default_pinned_memory_pool().free_all_blocks()
    except Exception:  # noqa: BLE001 - nothing to free without cupy
        pass


def _reset_over(emulator) -> None:
    over = emulator.game_over().get()
    if over.any():
        emulator.reset(over)


def _timed(call, rows, sync) -> tuple[float, list[float]]:
    """Wall seconds of call(row) over rows between two syncs, and each call's host seconds."""
    host = []
    sync()
    t0 = time.perf_counter()
    for row in rows:
        h = time.perf_counter()
        call(row)
        host.append(time.perf_counter() - h)
    sync()
    return time.perf_counter() - t0, host


def _summary(runs: list[float], host: list[float], build_s: float, **extra) -> dict:
    return {"fps": statistics.median(runs), "runs": runs, "build_s": build_s,
            "host_us_per_call": statistics.median(host) * 1e6, **extra}


def _warmed_emulator(game: str, consoles: int, args: argparse.Namespace,
                     reset_every: int | None):
    """(emulator, its legal actions on the GPU, the build's seconds): built, then --warmup
    random frames drawn on the GPU (game-over consoles reset every `reset_every` frames)."""
    import cupy as cp

    from cule_py import AtariEmulator

    start = time.perf_counter()
    emulator = AtariEmulator(game, consoles, device="cuda", seed=args.seed,
                             repeat_action_probability=STICKY)
    cp.cuda.Device().synchronize()
    build_s = time.perf_counter() - start
    legal = cp.asarray(emulator.legal_action_set())
    cp.random.seed(args.seed)
    for frame in range(args.warmup):
        emulator.act(legal[cp.random.randint(0, len(legal), consoles)])
        if reset_every and (frame + 1) % reset_every == 0:
            _reset_over(emulator)
    return emulator, legal, build_s


def measure_raw(game: str, consoles: int, args: argparse.Namespace) -> dict:
    import cupy as cp

    sync = cp.cuda.Device().synchronize
    emulator, legal, build_s = _warmed_emulator(game, consoles, args, RESET_EVERY)
    runs, active, host = [], [], []
    for _ in range(RUNS):
        _reset_over(emulator)
        playing = consoles - int(emulator.game_over().sum().get())
        # Drawn before t0 so that the timing holds the emulator alone.
        actions = legal[cp.random.randint(0, len(legal), (args.frames, consoles))]
        elapsed, calls = _timed(emulator.act, [actions[f] for f in range(args.frames)], sync)
        runs.append(playing * args.frames / elapsed)
        active.append(playing)
        host += calls
    return _summary(runs, host, build_s, active_consoles=active, frames=args.frames,
                    warmup=args.warmup)


def measure_identical(game: str, consoles: int, args: argparse.Namespace) -> dict:
    """Raw frames with every console a copy of console 0 (its whole state, RNGs included) and
    the same action everywhere: no thread of a warp ever takes another path than its
    neighbours. Against `raw` this is what divergence costs. Also times one reset_game of all
    consoles after the warm-up, before they are made copies (reset_s): ALE's whole reset
    sequence in one launch."""
    import cupy as cp

    from cule_py.emulator import EmulatorState

    sync = cp.cuda.Device().synchronize
    emulator, legal, build_s = _warmed_emulator(game, consoles, args, None)
    sync()
    t0 = time.perf_counter()
    emulator.reset()
    sync()
    reset_s = time.perf_counter() - t0
    state = emulator.clone_state()
    copies = {k: cp.ascontiguousarray(cp.broadcast_to(v[:1], v.shape))
              for k, v in state.arrays.items()}
    emulator.restore_state(EmulatorState(state.md5, state.mask, copies))
    runs, host = [], []
    for _ in range(RUNS):
        _reset_over(emulator)
        playing = consoles - int(emulator.game_over().sum().get())
        one = legal[cp.random.randint(0, len(legal), (args.frames, 1))]
        actions = cp.ascontiguousarray(cp.broadcast_to(one, (args.frames, consoles)))
        elapsed, calls = _timed(emulator.act, [actions[f] for f in range(args.frames)], sync)
        runs.append(playing * args.frames / elapsed)
        host += calls
    distinct = len({bytes(r) for r in emulator.ram().get()})
    return _summary(runs, host, build_s, frames=args.frames, warmup=args.warmup,
                    reset_s=reset_s, distinct_ram_rows_after=distinct)


def measure_agent(game: str, consoles: int, args: argparse.Namespace) -> dict:
    import cupy as cp

    from cule_py.vector import AtariVectorEnv

    sync = cp.cuda.Device().synchronize
    start = time.perf_counter()
    env = AtariVectorEnv(game, consoles, device="cuda", repeat_action_probability=STICKY,
                         seed=args.seed)
    sync()
    build_s = time.perf_counter() - start
    n_actions = len(env.action_set)
    cp.random.seed(args.seed)
    env.reset(seed=0)
    for _ in range(args.warmup_steps):
        env.step(cp.random.randint(0, n_actions, consoles))
    runs, host = [], []
    for _ in range(RUNS):
        actions = cp.random.randint(0, n_actions, (args.steps, consoles))
        elapsed, calls = _timed(env.step, [actions[s] for s in range(args.steps)], sync)
        runs.append(args.steps * consoles * FRAMESKIP / elapsed)
        host += calls
    return _summary(runs, host, build_s, steps_per_s=statistics.median(runs) / FRAMESKIP,
                    launches_per_step=2, steps=args.steps, warmup_steps=args.warmup_steps)


def measure_ale(game: str, num_envs: int, args: argparse.Namespace) -> dict:
    from ale_py.vector_env import AtariVectorEnv as AleVectorEnv

    threads = os.cpu_count() or 1
    start = time.perf_counter()
    env = AleVectorEnv(game, num_envs=num_envs, num_threads=threads,
                       repeat_action_probability=STICKY)
    build_s = time.perf_counter() - start
    try:
        n = env.single_action_space.n
        rng = np.random.default_rng(args.seed)
        env.reset(seed=0)
        for _ in range(ALE_WARMUP):
            env.step(rng.integers(0, n, num_envs))
        runs, host = [], []
        for _ in range(RUNS):
            elapsed, calls = _timed(env.step, rng.integers(0, n, (ALE_STEPS, num_envs)),
                                    lambda: None)
            runs.append(ALE_STEPS * num_envs * FRAMESKIP / elapsed)
            host += calls
    finally:
        env.close()
    return _summary(runs, host, build_s, steps_per_s=statistics.median(runs) / FRAMESKIP,
                    num_threads=threads, steps=ALE_STEPS, warmup_steps=ALE_WARMUP)


def _key(r: dict) -> tuple:
    return (r.get("kind"), r.get("game"), r.get("consoles"), r.get("threads_per_block"))


def load(path: pathlib.Path) -> list[dict]:
    records = []
    if path.exists():
        for line in path.read_text().splitlines():
            try:
                records.append(json.loads(line))
            except ValueError:  # a line cut short by a killed run
                pass
    return records


def _line(r: dict) -> str:
    if r["error"]:
        return f"  ERROR {r['error']}; larger {r['kind']} counts for {r['game']} skipped"
    line = f"  {r['fps']:,.0f} frames/s, runs {[round(x) for x in r['runs']]}"
    if "steps_per_s" in r:
        line += f", {r['steps_per_s']:,.0f} steps/s"
    line += f", host {r['host_us_per_call']:.1f} us/call"
    if "ratio_vs_ale_vector" in r:
        line += f", x{r['ratio_vs_ale_vector']:.2f} ({r['ratio_basis']})"
    return line


def run(args: argparse.Namespace) -> None:
    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    path = out / "gpu_fps.jsonl"
    previous = load(path)
    done = {_key(r) for r in previous if not r.get("error")} if args.resume else set()
    ale_fps = {r["game"]: r["fps"] for r in previous
               if r.get("kind") == "ale_vector" and not r.get("error") and r.get("fps")}
    meta = _machine()
    print(f"machine: GPU {meta['gpu']}, {meta['cpu_count']} CPUs; {meta}", flush=True)
    began = time.perf_counter()
    first = {"raw": True, "agent": True, "identical": True}
    measures = {"ale_vector": measure_ale, "raw": measure_raw, "agent": measure_agent,
                "identical": measure_identical}
    plan = [] if args.no_ale else [("ale_vector", [args.ale_envs])]
    plan += [] if args.no_raw else [("raw", sorted(args.consoles))]
    plan += [("identical", sorted(args.consoles))] if args.identical else []
    plan += [] if args.no_agent else [("agent", sorted(args.consoles))]
    for game in args.games:
        for kind, counts in plan:
            for consoles in counts:
                r = {"kind": kind, "game": game, "consoles": consoles, "sticky": STICKY,
                     "threads_per_block": None if kind == "ale_vector" else _tpb(),
                     "seed": args.seed}
                if _key(r) in done:
                    print(f"{kind} {game} {consoles}: already in {path}, skipped", flush=True)
                    continue
                if args.time_limit and time.perf_counter() - began > args.time_limit:
                    print(f"time limit of {args.time_limit} s reached: stopping", flush=True)
                    return
                print(f"{kind} {game} {consoles} ...", flush=True)
                try:
                    r.update(measures[kind](game, consoles, args), error=None)
                except Exception as err:  # noqa: BLE001 - record it, go on with the next one
                    r["error"] = f"{type(err).__name__}: {err}"
                _free_gpu()     # after the except block: no traceback pins the env any more
                if kind == "ale_vector":
                    if not r["error"]:
                        ale_fps[game] = r["fps"]
                else:
                    r["first_in_process"], first[kind] = first[kind], False
                    if not r["error"] and game in ale_fps:
                        r.update(ale_vector_fps=ale_fps[game], ratio_basis=RATIO_BASIS[kind],
                                 ratio_vs_ale_vector=r["fps"] / ale_fps[game])
                r.update(meta)
                with open(path, "a") as f:
                    f.write(json.dumps(r, default=str) + "\n")
                    f.flush()
                    os.fsync(f.fileno())
                print(_line(r), flush=True)
                if r["error"]:
                    break


def report(directory: str) -> None:
    out = pathlib.Path(directory)
    records = load(out / "gpu_fps.jsonl")
    best: dict[tuple, dict] = {}
    for r in records:      # the last good record of a configuration wins; errors only fill gaps
        if not r.get("error") or _key(r) not in best or best[_key(r)].get("error"):
            best[_key(r)] = r
    ale = {r["game"]: r for r in best.values() if r["kind"] == "ale_vector" and not r.get("error")}
    machines = sorted({f"GPU {r.get('gpu')}, {r.get('cpu_count')} CPUs" for r in records})
    lines = ["# cule_py on the GPU vs ale-py AtariVectorEnv on the CPU", "",
             "Machine: " + "; ".join(machines), "",
             "Median of 3 runs; sticky actions 0.25; numbers from gpu_fps.jsonl only. Cells: "
             "emulated frames/s (ratio to the ale-py vector env's agent frames/s).", ""]
    lines += ["## ale_vector (ale-py AtariVectorEnv, CPU)", "",
              "| game | num_envs | num_threads | frames/s | steps/s |", "|---|---|---|---|---|"]
    for game, r in ale.items():
        lines.append(f"| {game} | {r['consoles']} | {r.get('num_threads')} | {r['fps']:,.0f} | "
                     f"{r.get('steps_per_s', 0):,.0f} |")
    for kind in ("raw", "identical", "agent"):
        rows = [r for r in best.values() if r["kind"] == kind]
        for tpb in sorted({r.get("threads_per_block") for r in rows}, key=str):
            sub = [r for r in rows if r.get("threads_per_block") == tpb]
            counts = sorted({r["consoles"] for r in sub})
            lines += ["", f"## {kind}, threads per block {tpb}", "",
                      f"Ratio basis: {RATIO_BASIS[kind]}.", "",
                      "| game | " + " | ".join(str(c) for c in counts)
                      + " | ale-py frames/s | best ratio |",
                      "|---" * (len(counts) + 3) + "|"]
            for game in dict.fromkeys(r["game"] for r in sub):
                cells, ratios = [], []
                base = ale.get(game, {}).get("fps")
                for c in counts:
                    r = best.get((kind, game, c, tpb))
                    if r is None:
                        cells.append("")
                    elif r.get("error"):
                        cells.append("error")
                    else:
                        ratio = r["fps"] / base if base else None
                        ratios.append(ratio or 0.0)
                        cells.append(f"{r['fps'] / 1e6:.2f} M"
                                     + (f" ({ratio:.1f}x)" if ratio else ""))
                top = f"{max(ratios):.1f}x" if base and ratios else ""
                lines.append(f"| {game} | " + " | ".join(cells)
                             + f" | {f'{base:,.0f}' if base else ''} | {top} |")
    errors = [r for r in best.values() if r.get("error")]
    if errors:
        lines += ["", "## Errors", ""] + [f"- {r['kind']} {r['game']} {r['consoles']}: "
                                          f"{r['error']}" for r in errors]
    lines += ["", "Cells of the agent tables: steps/s = frames/s / 4."]
    (out / "gpu_fps.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines), flush=True)
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except Exception:  # noqa: BLE001 - the table is the report; the plot is extra
        print("matplotlib not available: no gpu_fps.png", flush=True)
        return
    gpu = [r for r in best.values() if r["kind"] != "ale_vector" and not r.get("error")]
    if not gpu:
        return
    # One threads-per-block setting per line: the one most configurations were measured with.
    tpb = statistics.mode(r.get("threads_per_block") for r in gpu)
    fig, ax = plt.subplots(figsize=(8, 5))
    for i, game in enumerate(dict.fromkeys(r["game"] for r in best.values())):
        color = f"C{i % 10}"
        for kind, style in (("raw", "-"), ("agent", "--")):
            points = sorted((r["consoles"], r["fps"]) for r in gpu if r["kind"] == kind
                            and r["game"] == game and r.get("threads_per_block") == tpb)
            if points:
                ax.plot(*zip(*points), style, marker="o", color=color, label=f"{game} {kind}")
        if game in ale:
            ax.axhline(ale[game]["fps"], linestyle=":", color=color, label=f"{game} ale-py")
    ax.set(xscale="log", yscale="log", xlabel="consoles", ylabel="emulated frames/s")
    ax.set_title("; ".join(machines) + f"; {tpb} threads per block; dotted: ale-py vector env",
                 fontsize=7)
    ax.legend(fontsize=6, ncol=2)
    fig.tight_layout()
    fig.savefig(out / "gpu_fps.png", dpi=120)
    print(f"wrote {out / 'gpu_fps.png'}", flush=True)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", nargs="+",
                        default=["pong", "breakout", "space_invaders", "ms_pacman", "seaquest"])
    parser.add_argument("--consoles", nargs="+", type=int,
                        default=[256, 1024, 4096, 16384, 65536])
    parser.add_argument("--frames", type=int, default=60, help="raw: frames per timed run")
    parser.add_argument("--warmup", type=int, default=100, help="raw: decorrelation frames")
    parser.add_argument("--steps", type=int, default=20, help="agent: steps per timed run")
    parser.add_argument("--warmup-steps", type=int, default=30, help="agent: warm-up steps")
    parser.add_argument("--ale-envs", type=int, default=64, help="ale-py vector env num_envs")
    parser.add_argument("--seed", type=int, default=0, help="base seed (console i: seed + i)")
    parser.add_argument("--no-agent", action="store_true", help="skip the AtariVectorEnv runs")
    parser.add_argument("--no-raw", action="store_true", help="skip the raw-frame runs")
    parser.add_argument("--no-ale", action="store_true", help="skip the ale-py vector env runs")
    parser.add_argument("--identical", action="store_true",
                        help="also raw frames of identical consoles (what divergence costs) "
                             "and the time of one reset_game launch")
    parser.add_argument("--out", default=".", help="directory of gpu_fps.jsonl")
    parser.add_argument("--resume", action="store_true",
                        help="skip configurations already in DIR/gpu_fps.jsonl without error")
    parser.add_argument("--time-limit", type=float, default=0,
                        help="seconds after which no new configuration starts (0: none)")
    parser.add_argument("--report", metavar="DIR",
                        help="write DIR/gpu_fps.md (and .png) from DIR/gpu_fps.jsonl; no runs")
    args = parser.parse_args(argv)
    if args.report:
        report(args.report)
        return
    run(args)
    try:        # the per-game summary and ratios, from the file
        report(args.out)
    except Exception as err:  # noqa: BLE001 - the measurements are saved; the summary is extra
        print(f"report failed: {type(err).__name__}: {err}", flush=True)


if __name__ == "__main__":
    main()
