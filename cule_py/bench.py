"""`cule-py-bench` / `python -m cule_py`: throughput on this machine, side by side with ale-py.

Default, with a GPU (cupy imports and numba finds CUDA): steady-state agent frames/s of cule_py's
AtariVectorEnv(device="cuda") at --consoles consoles beside ale-py's AtariVectorEnv on all this
machine's cores (--ale-envs envs), same run, for --games (pong breakout); `--raw` adds
AtariEmulator act() frames/s on the GPU.
Default without a GPU: steady-state agent steps/s of cule_py's AtariVectorEnv against ale-py's on
one core and on all cores, --envs-per-core envs per core, --rounds paired rounds (order
alternating). Steady state (cule_py/steady_state.py): consoles decorrelated and warmed up past a
typical episode, then timed windows in which episodes end; episode ends per step and cule_py's
reset share reported. Both sides: ale-py's defaults (frameskip 4, 84x84 grayscale, stack 4,
noop_max 30, fire reset, NextStep autoreset), sticky actions 0.25, random actions.

`--emulator`: emulated Atari frames per second of `AtariEmulator` against ale-py, in the same run:
  * per core: cule_py with numba on 1 thread (a batch of consoles) vs one ale-py ALEInterface;
  * all cores: cule_py on every core vs one ale-py process per core (multiprocessing).
Method: random minimal-set actions, sticky actions 0.25 (v5's default) on both sides,
consoles decorrelated by a warm-up before timing, resets (ALE's full reset_game) inside the timed
loop, frames of consoles sitting at game over not counted; three rounds, each one run of either
side back to back (order alternating), the ratio the median of the rounds' ratios.

`--core`: the 6507 core alone on flat-memory machines (instructions per second; CPU, and the GPU
when present): a mixed program (indirect-indexed loads, ADC/EOR/ROL, stores, branches, JSR/RTS,
binary and decimal mode) whose data differs per machine.

Progress lines go to stderr, the tables to stdout.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from typing import Callable, Sequence

import numpy as np

from . import flat6502
from ._device import gpu_available
from . import steady_state as ss
from .asm6502 import assemble
from .testing import commit, machine_line, usable_cpus

WORKLOAD = """
        .org $0400
start:  LDX #$00
        LDY #$00
        LDA #$00
        STA $10
        LDA #$80
        STA $11              ; ($10) -> $8000, the per-machine data
outer:  JSR mix
        INY
        BNE outer
        INC $11
        LDA $11
        CMP #$A0
        BNE outer
        LDA #$80
        STA $11
        INX
        JMP outer
mix:    LDA ($10),Y
        CLC
        ADC $20
        EOR $21
        ROL A
        STA $20
        AND #$0F
        BEQ skip
        SED
        ADC #$15
        CLD
        STA $8000,X
        LDA $21
        ASL A
        BCC nocarry
        EOR #$1D
nocarry: STA $21
skip:   RTS
"""


def _machines(count: int, seed: int = 0):
    code = assemble(WORKLOAD)
    memory = np.zeros((count, 65536), np.uint8)
    for address, byte in code.items():
        memory[:, address] = byte
    rng = np.random.default_rng(seed)
    memory[:, 0x8000:0xA000] = rng.integers(0, 256, (count, 0x2000), dtype=np.uint8)
    memory[:, 0x20:0x22] = rng.integers(1, 256, (count, 2), dtype=np.uint8)
    registers = np.zeros((count, 6), np.int32)
    registers[:, 0] = 0x0400
    registers[:, 1] = 0xFF
    registers[:, 5] = 0x20
    return memory, registers


def measure(machines: int, instructions: int, device: str = "cpu", model: str = "ale",
            repeats: int = 3) -> dict:
    """Median instructions/s and cycles/s over `repeats` timed runs (after one warm-up run)."""
    memory, registers = _machines(machines)
    flat6502.run(memory, registers, 1000, model=model, device=device)  # compile, warm caches
    rates, cycle_rates = [], []
    for _ in range(repeats):
        start = time.perf_counter()
        cycles = flat6502.run(memory, registers, instructions, model=model, device=device)
        if device != "cpu" and hasattr(cycles, "get"):
            cycles = cycles.get()
        elapsed = time.perf_counter() - start
        rates.append(machines * instructions / elapsed)
        cycle_rates.append(float(np.asarray(cycles).sum()) / elapsed)
    return {"machines": machines, "instructions": instructions, "device": device, "model": model,
            "instr_per_s": float(np.median(rates)), "cycles_per_s": float(np.median(cycle_rates))}


def _gpu_present() -> bool:
    try:
        from numba import cuda

        return bool(cuda.is_available())
    except Exception:  # pragma: no cover - no CUDA stack at all
        return False


STICKY = 0.25


def _ale_worker(args):
    path, frames, seed = args
    from .testing import ale_twin

    ale = ale_twin(path, seed, repeat_action_probability=STICKY)
    actions = ale.getMinimalActionSet()
    rng = np.random.default_rng(seed)
    from .steady_state import DECORRELATION_FRAMES

    for a in rng.integers(len(actions), size=DECORRELATION_FRAMES):   # as ours (measure_emulator)
        ale.act(actions[a])
        if ale.game_over():
            ale.reset_game()
    sequence = rng.integers(len(actions), size=frames)
    counted = 0
    start = time.perf_counter()
    for a in sequence:
        if ale.game_over():
            ale.reset_game()
        else:
            counted += 1
        ale.act(actions[a])
    return counted, time.perf_counter() - start


def ale_fps(game: str, frames: int, processes: int = 1) -> float:
    """ale-py frames/s: `processes` independent ALEs, one per process (1: in this process)."""
    from .roms import load_rom

    path = load_rom(game).path
    jobs = [(path, frames, 100 + i) for i in range(processes)]
    if processes == 1:
        results = [_ale_worker(jobs[0])]
    else:
        import multiprocessing

        with multiprocessing.get_context("spawn").Pool(processes) as pool:
            results = pool.map(_ale_worker, jobs)
    # Each process ran concurrently: total frames over the longest wall time.
    return sum(r[0] for r in results) / max(r[1] for r in results)


def cule_fps(game: str, envs: int, frames: int, threads: int) -> float:
    """AtariEmulator frames/s: `envs` consoles, numba on `threads` threads, one steady-state
    window of `frames` frames (cule_py.steady_state.measure_emulator: game-over consoles reset
    before their next frame, as ale-py's loop in _ale_worker does)."""
    import numba

    from .emulator import AtariEmulator
    from .steady_state import measure_emulator

    numba.set_num_threads(threads)
    emulator = AtariEmulator(game, envs, seed=100, repeat_action_probability=STICKY)
    result = measure_emulator(emulator, game=game, label="cule_py", backend="cpu",
                              window_frames=frames, windows=1, reset_every=1, threads=threads)
    return result.frames_per_s


def emulator_benchmark(games, frames: int, envs_per_core: int, repeats: int = 3) -> list[dict]:
    """Per game and setting, `repeats` rounds of (cule_py run, ale-py run) back to back, the
    order alternating between rounds: a shared host's speed drifts over seconds, so each round's
    ratio compares two runs made under nearly the same conditions. Reports the median frames/s of
    each side, and the median and range of the per-round ratios."""
    import numba

    cores = numba.config.NUMBA_NUM_THREADS
    rows = []
    for game in games:
        for label, threads, processes in (("1 core", 1, 1), (f"{cores} cores", cores, cores)):
            envs = envs_per_core * threads
            ours, theirs = [], []
            for round_ in range(repeats):
                ale_first = round_ % 2 == 1
                if ale_first:
                    theirs.append(ale_fps(game, frames, processes))
                ours.append(cule_fps(game, envs, frames // envs_per_core, threads))
                if not ale_first:
                    theirs.append(ale_fps(game, frames, processes))
            ratios = [o / t for o, t in zip(ours, theirs)]
            rows.append({"game": game, "where": label, "envs": envs,
                         "cule_fps": float(np.median(ours)), "ale_fps": float(np.median(theirs)),
                         "ratio": float(np.median(ratios)), "ratio_min": min(ratios),
                         "ratio_max": max(ratios)})
    return rows


def _gpu_line() -> str:
    try:
        import cupy

        name = cupy.cuda.runtime.getDeviceProperties(cupy.cuda.Device().id)["name"].decode()
        return f"GPU: {name}, cupy {cupy.__version__}"
    except Exception as err:  # noqa: BLE001 - name what is known, measure anyway
        return f"GPU: unknown ({type(err).__name__}: {err})"


def _progress(line: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {line}", file=sys.stderr, flush=True)


def _kernel_cache_note(what: str) -> None:
    """One line before the first kernel use. A kernel that must compile says so itself, with
    the expected time (cule_py/_jit_cache.py), so this line only names the cache."""
    from ._jit_cache import cache_root

    root = cache_root()
    files = sum(1 for p in root.rglob("*.nbi")) if root.is_dir() else 0
    # numba-cuda fires no compile event: the CUDA kernels cannot announce their own compile.
    missing = ("any missing one compiles now, saying so" if what == "CPU" else
               "a missing one compiles first, for minutes")
    _progress(f"loading the {what} kernels from the numba cache {root} ({files} kernels there; "
              f"{missing})")


def _free_gpu_memory() -> None:
    import gc

    gc.collect()
    try:
        import cupy

        cupy.get_default_memory_pool().free_all_blocks()
    except Exception:  # noqa: BLE001 - nothing to free without cupy
        pass


def _device_sync(device: str):
    """The callable that waits for `device` (None on the CPU: calls return finished)."""
    if device == "cpu":
        return None
    import cupy

    return lambda: cupy.cuda.Device().synchronize()


def raw_frames_per_s(game: str, consoles: int, frames: int, *, device: str = "cuda",
                     windows: int = 3, seed: int = 0, reset_every: int = 25,
                     progress: Callable[[str], None] | None = None) -> dict:
    """AtariEmulator act() frames/s on `device` through the steady-state harness
    (steady_state.measure_emulator: decorrelated consoles, game-over consoles reset every
    `reset_every` frames inside the timed windows of `frames` frames)."""
    from .emulator import AtariEmulator

    emulator = AtariEmulator(game, consoles, device=device, seed=seed,
                             repeat_action_probability=ss.AGENT_SETTINGS["repeat_action_probability"])
    result = ss.measure_emulator(emulator, game=game, label=f"raw {game} x{consoles}",
                                 backend=device, window_frames=frames, windows=windows,
                                 reset_every=reset_every, seed=seed,
                                 sync=_device_sync(device), progress=progress)
    return {"game": game, "consoles": consoles, "device": device, "frames": frames,
            "frames_per_s": result.frames_per_s, "reset_share": result.reset_share,
            "runs": [w.console_steps / w.seconds for w in result.windows]}


def device_benchmark(games: Sequence[str], consoles: int, ale_envs: int, *, device: str = "cuda",
                     warmup_steps: int | None = None, window_steps: int = 100,
                     ale_window_steps: int = 1000, windows: int = 3,
                     time_budget: float | None = None, ale_threads: int | None = None,
                     seed: int = 0, progress: Callable[[str], None] | None = None
                     ) -> list[tuple[ss.SteadyStateResult, ss.SteadyStateResult]]:
    """Per game, (cule_py on `device` at `consoles` consoles, ale-py's AtariVectorEnv with
    `ale_envs` envs on `ale_threads` threads (None: every core)), each a steady-state
    measurement (cule_py/steady_state.py), one after the other in this process."""
    ale_threads = ale_threads or usable_cpus()
    pairs = []
    for game in games:
        env = ss.make_cule_env(game, consoles, device=device)
        try:
            ours = ss.measure_vector_env(
                env, game=game, label=f"cule_py {device}", backend=device,
                warmup_steps=warmup_steps, window_steps=window_steps, windows=windows, seed=seed,
                time_budget=time_budget, sync=_device_sync(device), progress=progress)
        finally:
            env.close()
            del env
            _free_gpu_memory()
        env = ss.make_ale_env(game, ale_envs, threads=ale_threads)
        try:
            theirs = ss.measure_vector_env(
                env, game=game, label=f"ale-py {ale_threads} threads", backend="cpu",
                warmup_steps=warmup_steps, window_steps=ale_window_steps, windows=windows,
                seed=seed, time_budget=time_budget, progress=progress, threads=ale_threads)
        finally:
            env.close()
        pairs.append((ours, theirs))
    return pairs


def _share(result) -> str:
    return "n/a" if result.reset_share is None else f"{result.reset_share:.1%}"


def _warmup_text(result) -> str:
    text = f"{result.warmup_steps}" + (f" (cut, target {result.warmup_target})"
                                       if result.warmup_cut else "")
    distinct = result.distinct_ram if result.distinct_ram is not None else \
        result.distinct_observations
    kind = "RAM" if result.distinct_ram is not None else "obs"
    return text + ("" if distinct is None else f", {distinct}/{result.num_envs} distinct {kind}")


def _device_table(pairs, raw_rows) -> str:
    lines = ["| game | what | envs | agent steps/s | agent frames/s | x ale-py | episode ends/step | "
             "episodes/window | reset share | warm-up steps |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for ours, theirs in pairs:
        ratio = ours.frames_per_s / theirs.frames_per_s
        for r, versus in ((ours, f"{ratio:.2f}"), (theirs, "1")):
            what = f"cule_py {r.backend}" if r is ours else f"ale-py, {r.threads} threads"
            lines.append(f"| {r.game} | {what} | {r.num_envs} | {r.agent_steps_per_s:,.0f} | "
                         f"{r.frames_per_s:,.0f} | {versus} | {r.episode_ends_per_step:.3f} | "
                         f"{r.episodes_per_window:.1f} | {_share(r)} | {_warmup_text(r)} |")
        for raw in raw_rows:
            if raw["game"] == ours.game:
                lines.append(f"| {raw['game']} | cule_py {raw['device']} raw act() | "
                             f"{raw['consoles']} | | {raw['frames_per_s']:,.0f} (raw) | "
                             f"{raw['frames_per_s'] / theirs.frames_per_s:.2f} (raw vs agent) "
                             f"| | | | |")
    return "\n".join(lines)


def _write_json(path: str | None, record: dict) -> None:
    if path:
        with open(path, "w") as f:
            json.dump(record, f, indent=1)
        _progress(f"results written to {path}")


def _gpu_main(args) -> None:
    import ale_py

    quick = args.quick
    games = (args.games or ["pong", "breakout"])[: 1 if quick else None]
    consoles = 256 if quick else args.consoles
    ale_envs = 8 if quick else args.ale_envs
    warmup = 75 if quick else args.warmup_steps
    windows = 2 if quick else args.windows
    window_steps = 20 if quick else (args.window_steps or 100)
    ale_window_steps = 20 if quick else args.ale_window_steps
    print("cule_py AtariVectorEnv on the GPU vs ale-py AtariVectorEnv on every CPU core: "
          "steady-state agent throughput, same run")
    print(_versions_line(ale_py))
    print(_gpu_line())
    print("frameskip 4, 84x84 grayscale, stack 4, noop_max 30, fire reset, NextStep autoreset, "
          "sticky 0.25, random actions; warm-up per game (pong 1000, breakout 250, others 300 "
          "steps) unless set; median of the timed windows; reset share: autoreset launches' GPU "
          "time (CUDA events) over the windows' time; ale-py's is not measurable from outside")
    _kernel_cache_note("CUDA")
    pairs = device_benchmark(games, consoles, ale_envs, warmup_steps=warmup,
                             window_steps=window_steps, ale_window_steps=ale_window_steps,
                             windows=windows, time_budget=(120.0 if args.warmup_budget is None
                                                           else args.warmup_budget),
                             progress=_progress)
    raw_rows = []
    if args.raw:
        for game in games:
            raw_rows.append(raw_frames_per_s(game, consoles, 50 if quick else args.raw_frames,
                                             windows=windows, progress=_progress))
            _free_gpu_memory()
    print(_device_table(pairs, raw_rows))
    for result in (r for pair in pairs for r in pair):
        print(f"{result.game}, {result.label}: set-up (reset, first step) "
              f"{result.setup_seconds:.1f} s, warm-up {result.warmup_seconds:.1f} s, "
              f"decorrelated {'yes' if result.decorrelated else 'NO'}"
              + "".join(f"; {note}" for note in result.notes))
    sys.stdout.flush()
    _write_json(args.json, {"mode": "gpu", "machine": machine_line(), "gpu": _gpu_line(),
                            "results": [[o.as_dict(), t.as_dict()] for o, t in pairs],
                            "raw": raw_rows})


def _cpu_main(args) -> None:
    import ale_py

    quick = args.quick
    # Breakout first: its warm-up is 250 steps against Pong's 1000, so the first row comes in
    # about a minute instead of a minute and a half.
    games = (args.games or ["breakout", "pong"])[: 1 if quick else None]
    rounds = 1 if quick else args.rounds
    envs_per_core = 2 if quick else args.envs_per_core
    window_steps = 20 if quick else (args.window_steps or 200)
    windows = 2 if quick else args.windows
    warmup = 75 if quick else args.warmup_steps
    cores = ss.available_cores()
    print("cule_py AtariVectorEnv vs ale-py AtariVectorEnv on the CPU: steady-state agent steps "
          "per second, same cores, same run")
    print(_versions_line(ale_py) + f", load average {os.getloadavg()[0]:.2f}")
    if gpu_available():
        print("a GPU is present: measured by `python -m cule_py` without --cpu")
    print(f"frameskip 4, 84x84 grayscale, stack 4, noop_max 30, fire reset, NextStep autoreset, "
          f"sticky 0.25, random actions; {envs_per_core} envs per core, threads = cores; "
          f"warm-up {'per game (pong 1000, breakout 250, others 300)' if warmup is None else warmup}"
          f" steps, then {windows} windows of {window_steps} steps, median window; {rounds} "
          f"paired round(s), order alternating, later rounds going on from the env's state "
          f"(no second reset or warm-up); ratio: median [range] of the rounds' ratios; "
          f"reset share: seconds in cule_py's autoreset kernels over the windows' seconds "
          f"(ale-py's: not measurable from outside, n/a)")
    _kernel_cache_note("CPU")
    # Each row as soon as its rounds are done (the whole table takes minutes), and the whole
    # table again at the end, apart from the progress lines.
    print(ss.COMPARISON_HEADER, flush=True)
    comparisons = ss.compare_cpu(games, envs_per_core=envs_per_core,
                                 cores_list=sorted({1, cores}), rounds=rounds,
                                 warmup_steps=warmup, window_steps=window_steps, windows=windows,
                                 time_budget=args.warmup_budget, progress=_progress,
                                 on_comparison=lambda c: print(ss.comparison_row(c), flush=True))
    for line in ss.comparison_notes(comparisons):
        print(line)
    print(f"load average after: {os.getloadavg()[0]:.2f}", flush=True)
    print(f"\nResult ({machine_line()}; v5 settings, {envs_per_core} envs per core, {rounds} "
          f"paired round(s); frames/s = agent steps/s x 4; ratio = cule_py / ale-py agent "
          f"steps/s; CPU share: the cores each side got, below "
          f"{ss.BUSY_BELOW:.0%} the machine was busy):")
    print(ss.comparison_table(comparisons), flush=True)
    _write_json(args.json, {"mode": "cpu", "machine": machine_line(),
                            "results": [c.as_dict() for c in comparisons]})


def _versions_line(ale_py) -> str:
    """The machine and versions, ale-py's and (in a checkout) the commit measured."""
    checkout = commit()
    return (machine_line() + f", ale-py {ale_py.__version__}"
            + (f", commit {checkout}" if checkout else ""))


def _emulator_main(args) -> None:
    import ale_py

    frames = 300 if args.quick else args.frames
    games = (args.games or ["breakout", "pong", "seaquest"])[: 1 if args.quick else None]
    print("cule_py AtariEmulator vs ale-py: emulated frames per second, same machine, same run")
    print(_versions_line(ale_py))
    print(f"sticky actions {STICKY}, random minimal-set actions, resets timed; "
          f"{args.envs_per_core} consoles per core; "
          + ("one round (--quick)" if args.quick else
             f"{args.rounds} rounds of one run each side, back to back; ratio: median [range] of "
             f"the rounds'"))
    print("| game | where | consoles | cule_py fps (median) | ale-py fps (median) | ratio |")
    print("|---|---|---|---|---|---|")
    for r in emulator_benchmark(games, frames, args.envs_per_core,
                                repeats=1 if args.quick else args.rounds):
        print(f"| {r['game']} | {r['where']} | {r['envs']} | {r['cule_fps']:,.0f} | "
              f"{r['ale_fps']:,.0f} | {r['ratio']:.2f} [{r['ratio_min']:.2f}, {r['ratio_max']:.2f}] |",
              flush=True)


def _core_main(args) -> None:
    import numba

    instructions = 200_000 if args.quick else args.instructions
    cores = numba.config.NUMBA_NUM_THREADS
    print(f"cule_py 6507 core benchmark, model={args.model}")
    print(machine_line(threads=cores))
    rows = []
    numba.set_num_threads(1)
    rows.append(("cpu, 1 core", measure(1, instructions, model=args.model)))
    numba.set_num_threads(cores)
    rows.append((f"cpu, {cores} cores", measure(cores * 8, instructions // 4, model=args.model)))
    if _gpu_present():
        rows.append(("cuda", measure(16384, instructions // 20, device="cuda", model=args.model)))
    else:
        print("no GPU found: CUDA row skipped")
    print(f"{'where':<16}{'machines':>10}{'M instr/s':>12}{'M cycles/s':>12}")
    for label, r in rows:
        print(f"{label:<16}{r['machines']:>10}{r['instr_per_s'] / 1e6:>12.1f}{r['cycles_per_s'] / 1e6:>12.1f}")


def main(argv=None) -> None:
    # `python -m cule_py` runs this from cule_py/__main__.py; argparse would call it that.
    prog = "python -m cule_py" if sys.argv[0].endswith("__main__.py") else None
    parser = argparse.ArgumentParser(prog=prog, description=__doc__.splitlines()[0])
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--core", action="store_true", help="benchmark the 6507 core alone")
    mode.add_argument("--emulator", action="store_true",
                      help="AtariEmulator frames/s per core and on all cores against ale-py "
                           "ALEInterfaces (the earlier default)")
    mode.add_argument("--cpu", action="store_true",
                      help="the CPU steady-state comparison even when a GPU is present")
    parser.add_argument("--games", nargs="+", default=None,
                        help="default: pong breakout (CPU run: breakout pong; --emulator: breakout "
                             "pong seaquest)")
    parser.add_argument("--quick", action="store_true", help="a few seconds, for smoke tests")
    parser.add_argument("--rounds", type=int, default=3,
                        help="CPU and --emulator: paired rounds per game and core count")
    parser.add_argument("--envs-per-core", type=int, default=16)
    parser.add_argument("--warmup-steps", type=int, default=None,
                        help="steady state: warm-up steps (default per game: pong 1000, "
                             "breakout 250, others 300)")
    parser.add_argument("--warmup-budget", type=float, default=None, metavar="SECONDS",
                        help="steady state: cut a warm-up longer than this (never below 300 "
                             "frames); the output says so (default: none on the CPU, 120 s a "
                             "measurement on the GPU)")
    parser.add_argument("--window-steps", type=int, default=None,
                        help="steady state: steps per timed window (CPU 200, GPU 100)")
    parser.add_argument("--windows", type=int, default=3, help="steady state: timed windows")
    parser.add_argument("--consoles", type=int, default=16384, help="GPU: cule_py's consoles")
    parser.add_argument("--ale-envs", type=int, default=64,
                        help="GPU run: ale-py AtariVectorEnv's num_envs on every core")
    parser.add_argument("--ale-window-steps", type=int, default=1000,
                        help="GPU run: ale-py's steps per timed window")
    parser.add_argument("--raw", action="store_true",
                        help="GPU run: also raw AtariEmulator act() frames/s")
    parser.add_argument("--raw-frames", type=int, default=200,
                        help="--raw: act() calls per timed run")
    parser.add_argument("--json", default=None, metavar="PATH",
                        help="steady state: also write every result (windows included) as JSON")
    parser.add_argument("--frames", type=int, default=3000,
                        help="--emulator: timed frames per console (ours) and per ALE")
    parser.add_argument("--instructions", type=int, default=2_000_000,
                        help="--core: instructions per machine per timed run (CPU)")
    parser.add_argument("--model", default="ale", choices=flat6502.MODELS,
                        help="--core: the 6507 model, ALE's CPU (ale, the console's) or the real "
                             "NMOS chip (nmos)")
    args = parser.parse_args(argv)
    if args.core:
        _core_main(args)
    elif args.emulator:
        _emulator_main(args)
    elif gpu_available() and not args.cpu:
        _gpu_main(args)
    else:
        _cpu_main(args)


if __name__ == "__main__":
    main()
