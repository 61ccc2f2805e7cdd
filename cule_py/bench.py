"""`cule-py-bench` / `python -m cule_py`: throughput of the emulator on this machine.

For now it measures the 6507 core on flat-memory machines: instructions per second on one CPU
core, on all CPU cores, and on the GPU when one is present. The workload is a mixed program
(indirect-indexed loads, ADC/EOR/ROL, stores, branches, JSR/RTS, binary and decimal mode) whose
data differs per machine, so machines take different branches as emulated consoles do.
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


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--instructions", type=int, default=2_000_000,
                        help="instructions per machine per timed run (CPU)")
    parser.add_argument("--model", default="ale", choices=flat6502.MODELS)
    parser.add_argument("--quick", action="store_true", help="a few seconds, for smoke tests")
    args = parser.parse_args(argv)
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
