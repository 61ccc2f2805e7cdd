"""Stage 4: the CPU backend over the GPU machine's cores (issue 58), beside ale-py's vector env.

benchmarks.cpu_scaling's measurement (cule_py.steady_state: v5 settings, sticky 0.25, random
actions, 16 envs a thread, warm-up then a timed window, paired rounds whose order rotates) at
1, 2, 4, 8 and 16 threads, as many as the machine has, Pong first, then Breakout while the time
limit allows. One record per game (`cpu_scaling.jsonl`), so a command cut short resumes at the
next game.

Nothing compiles on the GPU machine: `prepare` builds the CPU kernels for the generic x86-64
(`python -m cule_py.precompile --portable`, in the GPU image's Python) into .gpurun/cpu_kernels,
and this stage seeds the cache from there. Generic code lacks the host's vector instructions, so
cule_py's ratios to ale-py here understate a native build's; its scaling over threads is the
figure this stage is for. EnvPool is not carried (its wheel is not in the GPU image).
"""

from __future__ import annotations

import argparse
import pathlib
import statistics
import time

from .common import CPU_KERNELS, Deadline, Log, append_record, read_records

RECORDS = "cpu_scaling.jsonl"
SIDES = ("cule_py", "ale_py")


def plan(scale: str, cores: int) -> dict:
    """Games, thread counts and the measurement's lengths for a scale."""
    if scale == "tiny":     # the dry run: every code path, on few consoles
        return dict(games=["pong"], threads=[1, 2], envs_per_thread=2, rounds=1, warmup=30,
                    window_steps=8)
    threads = [t for t in (1, 2, 4, 8, 16) if t <= cores]
    return dict(games=["pong", "breakout"], threads=threads, envs_per_thread=16, rounds=2,
                warmup=300, window_steps=100)


def seed_kernels(log: Log, source_root: pathlib.Path) -> bool:
    """The portable CPU kernels into this machine's cache; False where some are missing there
    afterwards (they would compile here, for minutes)."""
    from cule_py import _jit_cache as J

    source = source_root / J.cache_root().name
    if not source.is_dir():
        log(f"no portable CPU kernels at {source} (prepare builds them)")
        return False
    written = J.seed_from_portable(source)
    missing = [p for p in source.rglob("*.nbi")
               if not (J.cache_root() / p.relative_to(source)).exists()]
    log(f"CPU kernels: {len(written)} seeded from {source}, {len(missing)} missing")
    return not missing


def run_stage(results: pathlib.Path, *, device: str, scale: str, time_limit: float,
              log: Log, allow_compile: bool = False) -> int:
    from benchmarks import cpu_scaling
    from cule_py.testing import machine_line, usable_cpus

    deadline = Deadline(time_limit)
    if device != "cpu" and not seed_kernels(log, CPU_KERNELS) and not allow_compile:
        log("STOP: the CPU kernels are not in the carried cache; they would compile here. Run "
            "`python -m tools.gpu_runbook prepare` on the development machine.")
        return 2
    setup = plan(scale, usable_cpus())
    path = results / RECORDS
    done = {r["game"] for r in read_records(path)}
    # All sides in this process, as the stage's time was planned: a process per side would spend
    # an import and a kernel load per side and game out of the stage's limit.
    args = argparse.Namespace(envs_per_thread=setup["envs_per_thread"], rounds=setup["rounds"],
                              seed=0, warmup=setup["warmup"], windows=1,
                              window_steps=setup["window_steps"], one_process=True)
    took = None
    for game in setup["games"]:
        if game in done:
            continue
        # the first game has the whole stage; later ones go while the last one's time fits
        if took is not None and not deadline.allows(took * 1.2 + 5):
            log(f"{game} skipped: {deadline.left():.0f} s left, the last game took {took:.0f} s")
            continue
        log(f"{game}: {', '.join(SIDES)} at {setup['threads']} threads, "
            f"{setup['envs_per_thread']} envs a thread")
        start = time.monotonic()
        runs = cpu_scaling.measure_game(game, list(SIDES), setup["threads"], args)
        took = time.monotonic() - start
        rows = cpu_scaling.game_rows(game, runs, list(SIDES), setup["threads"])
        append_record(path, {
            "game": game, "threads": setup["threads"], "scale": scale, "device": device,
            "envs_per_thread": setup["envs_per_thread"],
            "kernels": "this machine's cache" if device == "cpu" else "generic x86-64, seeded",
            "seconds": round(took, 1), "machine": machine_line(threads=max(setup["threads"])),
            "rows": rows, "runs": cpu_scaling.runs_as_json(runs)})
        for row in rows:
            log("  " + row)
    return 0


def summary(results: pathlib.Path) -> str:
    """Markdown: each game's agent steps/s by thread count, and scaling over one thread."""
    records = read_records(results / RECORDS)
    if not records:
        return ""
    threads = records[0]["threads"]
    lines = [f"{records[0]['machine']}; CPU kernels: {records[0].get('kernels')}; medians of "
             f"the rounds",
             "", "| game | side | " + " | ".join(f"{t} thread(s)" for t in threads)
             + " | over 1 thread at the most threads |",
             "|---|---|" + "---|" * len(threads) + "---|"]
    for record in records:
        for side in SIDES:
            speeds = {run["threads"]: [r["agent_steps_per_s"] for r in run["rounds"]]
                      for run in record["runs"] if run["side"] == side}
            cells = [f"{statistics.median(speeds[t]):,.0f}" if t in speeds else "-"
                     for t in threads]
            top = max(speeds)
            scaling = statistics.median(a / b for a, b in zip(speeds[top], speeds[min(speeds)]))
            lines.append(f"| {record['game']} | {side} | " + " | ".join(cells)
                         + f" | {scaling:.2f} ({top}/{min(speeds)}) |")
    return "\n".join(lines)
