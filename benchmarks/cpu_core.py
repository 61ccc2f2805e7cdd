"""Throughput of the 6507 core on flat-memory machines: one CPU core, all cores, the GPU if present.

    python -m benchmarks.cpu_core [--instructions N] [--json out.json]

Instructions per second (and emulated CPU cycles per second) for the `ale` and `nmos` models,
median of three timed runs after a warm-up run that also compiles. The workload is
`cule_py.bench.WORKLOAD`: mixed loads, arithmetic (binary and decimal), stores, branches and
JSR/RTS over per-machine random data, so machines diverge.
"""

from __future__ import annotations

import argparse
import json

import numba

from cule_py.bench import _gpu_present, measure
from cule_py.testing import machine_line


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--instructions", type=int, default=5_000_000)
    parser.add_argument("--json")
    args = parser.parse_args()
    cores = numba.config.NUMBA_NUM_THREADS
    rows = []
    for model in ("ale", "nmos"):
        numba.set_num_threads(1)
        rows.append(("cpu 1 core", measure(1, args.instructions, model=model)))
        numba.set_num_threads(cores)
        for machines in (cores, cores * 16):
            rows.append((f"cpu {cores} cores", measure(machines, args.instructions // 4, model=model)))
        if _gpu_present():
            for machines in (4096, 65536):
                rows.append(("cuda", measure(machines, args.instructions // 50, device="cuda", model=model)))
    print(machine_line(threads=cores))
    print("| where | model | machines | M instructions/s | M cycles/s |\n|---|---|---|---|---|")
    for label, r in rows:
        print(f"| {label} | {r['model']} | {r['machines']} | {r['instr_per_s'] / 1e6:.1f} | "
              f"{r['cycles_per_s'] / 1e6:.1f} |")
    if args.json:
        with open(args.json, "w") as f:
            json.dump([dict(r, where=label) for label, r in rows], f, indent=1)


if __name__ == "__main__":
    main()
