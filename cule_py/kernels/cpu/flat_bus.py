"""A flat 64 KiB bus (no mirroring, no devices) for running the 6507 core on CPU test programs.

`bus` is `(memory, machine)`: memory is a (machines, 65536) uint8 array, machine a row index.
Entry points run `instructions` instructions on every machine: one machine per prange iteration on
the CPU, one machine per thread on CUDA. Registers are [PC, S, A, X, Y, P] int32 rows.
"""

import numpy as np
from numba import cuda, njit, prange
from numba.extending import register_jitable

from ..._jit_cache import CACHE_ENABLED
from .cpu6507 import ALE, NMOS, make_cpu

PC, S, A, X, Y, P = range(6)


@register_jitable
def flat_read(bus, addr, clk, data_bus):
    memory, machine = bus
    return np.int32(memory[machine, addr])


@register_jitable
def flat_write(bus, addr, value, clk):
    memory, machine = bus
    memory[machine, addr] = value
    return clk


def _make_machine_runner(step):
    @register_jitable
    def run_machine(memory, registers, machine, instructions, cycles, halted):
        if halted[machine]:
            return
        pc = np.int32(registers[machine, PC])
        s = np.int32(registers[machine, S])
        a = np.int32(registers[machine, A])
        x = np.int32(registers[machine, X])
        y = np.int32(registers[machine, Y])
        p = np.int32(registers[machine, P])
        bus = (memory, machine)
        total = np.int64(0)
        for _ in range(instructions):
            pc, a, x, y, s, p, clk, jammed = step(bus, pc, a, x, y, s, p, np.int32(0))
            total += clk
            if jammed:
                halted[machine] = True
                break
        registers[machine, PC] = pc
        registers[machine, S] = s
        registers[machine, A] = a
        registers[machine, X] = x
        registers[machine, Y] = y
        registers[machine, P] = p
        cycles[machine] += total

    return run_machine


run_machine_nmos = _make_machine_runner(make_cpu(flat_read, flat_write, NMOS))
run_machine_ale = _make_machine_runner(make_cpu(flat_read, flat_write, ALE))


# prange even for one machine: parallel lowering lets LLVM assume the arrays do not alias.
@njit(parallel=True, cache=CACHE_ENABLED)
def run_nmos_cpu(memory, registers, instructions, cycles, halted):
    for machine in prange(memory.shape[0]):
        run_machine_nmos(memory, registers, machine, instructions, cycles, halted)


@njit(parallel=True, cache=CACHE_ENABLED)
def run_ale_cpu(memory, registers, instructions, cycles, halted):
    for machine in prange(memory.shape[0]):
        run_machine_ale(memory, registers, machine, instructions, cycles, halted)


@cuda.jit
def run_nmos_cuda(memory, registers, instructions, cycles, halted):
    machine = cuda.grid(1)
    if machine < memory.shape[0]:
        run_machine_nmos(memory, registers, machine, instructions, cycles, halted)


@cuda.jit
def run_ale_cuda(memory, registers, instructions, cycles, halted):
    machine = cuda.grid(1)
    if machine < memory.shape[0]:
        run_machine_ale(memory, registers, machine, instructions, cycles, halted)


CPU_RUNNERS = {NMOS: run_nmos_cpu, ALE: run_ale_cpu}
CUDA_RUNNERS = {NMOS: run_nmos_cuda, ALE: run_ale_cuda}
