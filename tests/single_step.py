"""Reader for the compact binary form of the public single-step 6502 tests (see testdata README)."""

from __future__ import annotations

import pathlib
from dataclasses import dataclass

import numpy as np

SHARED = pathlib.Path(__file__).resolve().parents[1].parent / "shared"
TESTDATA = SHARED / "testdata"
SINGLE_STEP_DIR = TESTDATA / "6502-single-step"


@dataclass
class SingleStepCases:
    """All cases of one opcode file as arrays: registers are [PC, S, A, X, Y, P] like flat6502."""

    names: list[str]
    initial_registers: np.ndarray      # (n, 6) int32
    final_registers: np.ndarray        # (n, 6) int32
    initial_memory: list[list[tuple[int, int]]]
    final_memory: list[list[tuple[int, int]]]
    bus_cycles: list[list[tuple[int, int, str]]]


def load(opcode: int) -> SingleStepCases:
    data = (SINGLE_STEP_DIR / f"{opcode:02x}.bin").read_bytes()
    pos = 0
    names, regs_in, regs_out, mem_in, mem_out, cycles = [], [], [], [], [], []

    def state():
        nonlocal pos
        pc = (data[pos] << 8) | data[pos + 1]
        s, a, x, y, p, n = data[pos + 2:pos + 8]
        pos += 8
        memory = []
        for _ in range(n):
            memory.append(((data[pos] << 8) | data[pos + 1], data[pos + 2]))
            pos += 3
        return [pc, s, a, x, y, p], memory

    while pos < len(data):
        names.append(data[pos:pos + 10].rstrip(b"\0").decode())
        pos += 10
        r, m = state()
        regs_in.append(r)
        mem_in.append(m)
        r, m = state()
        regs_out.append(r)
        mem_out.append(m)
        n = data[pos]
        pos += 1
        bus = []
        for _ in range(n):
            bus.append(((data[pos] << 8) | data[pos + 1], data[pos + 2], chr(data[pos + 3])))
            pos += 4
        cycles.append(bus)
    return SingleStepCases(names, np.array(regs_in, np.int32), np.array(regs_out, np.int32),
                           mem_in, mem_out, cycles)
