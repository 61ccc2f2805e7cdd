"""`cule-py-bench` / `python -m cule_py`: throughput on this machine, side by side with ale-py.

Default: emulated Atari frames per second of `AtariEmulator` against ale-py, in the same run:
  * per core: cule_py with numba on 1 thread (a batch of consoles) vs one ale-py ALEInterface;
  * all cores: cule_py on every core vs one ale-py process per core (multiprocessing).
Method (DESIGN.md): random minimal-set actions, sticky actions 0.25 (v5's default) on both sides,
consoles decorrelated by a warm-up before timing, resets (ALE's full reset_game) inside the timed
loop, frames of consoles sitting at game over not counted; three rounds, each one run of either
side back to back (order alternating), the ratio the median of the rounds' ratios.

`--core`: the 6507 core alone on flat-memory machines (instructions per second; CPU, and the GPU
when present): a mixed program (indirect-indexed loads, ADC/EOR/ROL, stores, branches, JSR/RTS,
binary and decimal mode) whose data differs per machine.
"""

from __future__ import annotations

import argparse
import os
import platform
import time

import numpy as np

from . import flat6502
from .asm6502 import assemble

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
    import ale_py

    # Before constructing: the constructor itself prints ALE's banner (once per worker process).
    ale_py.ALEInterface.setLoggerMode(ale_py.LoggerMode.Error)
    ale = ale_py.ALEInterface()
    ale.setFloat("repeat_action_probability", STICKY)
    ale.setInt("random_seed", seed)
    ale.loadROM(str(path))
    actions = ale.getMinimalActionSet()
    rng = np.random.default_rng(seed)
    for a in rng.integers(len(actions), size=200):          # same warm-up as ours
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
    """AtariEmulator frames/s: `envs` consoles, numba on `threads` threads."""
    import numba

    from .emulator import AtariEmulator

    numba.set_num_threads(threads)
    emulator = AtariEmulator(game, envs, seed=100, repeat_action_probability=STICKY)
    actions = emulator.minimal_action_set()
    rng = np.random.default_rng(0)
    for _ in range(200):                                     # decorrelate the consoles
        emulator.act(actions[rng.integers(len(actions), size=envs)])
        over = emulator.game_over()
        if over.any():
            emulator.reset(over)
    sequence = actions[rng.integers(len(actions), size=(frames, envs))]
    counted = 0
    start = time.perf_counter()
    for row in sequence:
        over = emulator.game_over()
        if over.any():
            emulator.reset(over)          # a fresh episode: every console plays this frame
        counted += envs
        emulator.act(row)
    return counted / (time.perf_counter() - start)


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


def _machine_line() -> str:
    import numba

    return (f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} logical "
            f"CPUs, numba threads {numba.config.NUMBA_NUM_THREADS}, python "
            f"{platform.python_version()}, numba {numba.__version__}")


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--core", action="store_true", help="benchmark the 6507 core alone")
    parser.add_argument("--games", nargs="+", default=["breakout", "pong", "seaquest"])
    parser.add_argument("--frames", type=int, default=3000,
                        help="timed frames per console (ours) and per ALE")
    parser.add_argument("--envs-per-core", type=int, default=16)
    parser.add_argument("--instructions", type=int, default=2_000_000,
                        help="--core: instructions per machine per timed run (CPU)")
    parser.add_argument("--model", default="ale", choices=flat6502.MODELS)
    parser.add_argument("--quick", action="store_true", help="a few seconds, for smoke tests")
    args = parser.parse_args(argv)
    if not args.core:
        import ale_py

        frames = 300 if args.quick else args.frames
        games = args.games[:1] if args.quick else args.games
        print("cule_py AtariEmulator vs ale-py: emulated frames per second, same machine, same run")
        print(_machine_line() + f", ale-py {ale_py.__version__}")
        print(f"sticky actions {STICKY}, random minimal-set actions, resets timed; "
              f"{args.envs_per_core} consoles per core; "
              + ("one round (--quick)" if args.quick else
                 "3 rounds of one run each side, back to back; ratio: median [range] of the rounds'"))
        if _gpu_present():
            print("a GPU is present: its throughput is measured by benchmarks/gpu_fps.py")
        print("| game | where | consoles | cule_py fps (median) | ale-py fps (median) | ratio |")
        print("|---|---|---|---|---|---|")
        for r in emulator_benchmark(games, frames, args.envs_per_core,
                                    repeats=1 if args.quick else 3):
            print(f"| {r['game']} | {r['where']} | {r['envs']} | {r['cule_fps']:,.0f} | "
                  f"{r['ale_fps']:,.0f} | {r['ratio']:.2f} [{r['ratio_min']:.2f}, {r['ratio_max']:.2f}] |",
                  flush=True)
        return
    import numba

    instructions = 200_000 if args.quick else args.instructions
    cores = numba.config.NUMBA_NUM_THREADS
    print(f"cule_py 6507 core benchmark, model={args.model}")
    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} logical CPUs, "
          f"numba threads {cores}, python {platform.python_version()}, numba {numba.__version__}")
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


if __name__ == "__main__":
    main()
