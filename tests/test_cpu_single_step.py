"""The `nmos` model against the public single-step 6502 suite: every case of every opcode.

Each case is one random machine state, one instruction, and the state after it. We compare
registers, flags, every listed memory byte, the cycle count, and that nothing else in memory was
written. Unstable opcodes and JAM are reported by their own tests.
"""

import numpy as np
import pytest

# 257 opcode suites of 10,000 cases each (about a minute, most of it compiling the runners).
pytestmark = pytest.mark.slow

import single_step
from cule_py import flat6502
from cule_py.kernels.cpu import opcodes

# The suite's multi-byte NOPs with absolute addressing list 3 cycles (0C) and a flat 4 cycles
# (xC abs,X), a known erratum of the suite (SingleStepTests/ProcessorTests issue #46). The chip
# takes 4 cycles, plus 1 when abs,X crosses a page; we check those documented counts instead.
NOP_ABSOLUTE_ERRATA = (0x0C, 0x1C, 0x3C, 0x5C, 0x7C, 0xDC, 0xFC)

STABLE = [op for op in range(256)
          if op not in opcodes.UNSTABLE_OPCODES and op not in opcodes.JAM_OPCODES]


@pytest.fixture(scope="module")
def scratch_memory(shared_testdata):
    return np.zeros((1000, 65536), np.uint8)


def run_cases(opcode, memory, model="nmos"):
    cases = single_step.load(opcode)
    n = len(cases.names)
    mem = memory[:n]
    for i, entries in enumerate(cases.initial_memory):
        for address, value in entries:
            mem[i, address] = value
    registers = cases.initial_registers.copy()
    halted = np.zeros(n, np.bool_)
    cycles = flat6502.run(mem, registers, 1, model=model, halted=halted)
    return cases, mem, registers, cycles, halted


def documented_cycles(opcode, cases, i):
    if opcode == 0x0C:
        return 4
    pc = int(cases.initial_registers[i, 0])
    initial = dict(cases.initial_memory[i])
    base = initial[(pc + 1) & 0xFFFF] | (initial[(pc + 2) & 0xFFFF] << 8)
    crossed = ((base + int(cases.initial_registers[i, 3])) ^ base) & 0x100
    return 5 if crossed else 4


def check_opcode(opcode, memory, check_cycles=True):
    cases, mem, registers, cycles, halted = run_cases(opcode, memory)
    failures = []
    for i, name in enumerate(cases.names):
        problems = []
        if not np.array_equal(registers[i], cases.final_registers[i]):
            problems.append(f"registers {registers[i].tolist()} != {cases.final_registers[i].tolist()}")
        wrong = [(hex(a), int(mem[i, a]), v) for a, v in cases.final_memory[i] if mem[i, a] != v]
        if wrong:
            problems.append(f"memory (addr, ours, expected) {wrong}")
        if check_cycles:
            expected = (documented_cycles(opcode, cases, i) if opcode in NOP_ABSOLUTE_ERRATA
                        else len(cases.bus_cycles[i]))
            if cycles[i] != expected:
                problems.append(f"cycles {cycles[i]} != {expected}")
        if halted[i]:
            problems.append("halted")
        for address, _ in cases.initial_memory[i] + cases.final_memory[i]:
            mem[i, address] = 0
        if problems:
            failures.append(f"{name}: " + "; ".join(problems))
    stray = np.count_nonzero(mem)
    if stray:
        failures.append(f"{stray} bytes written outside the listed addresses")
        mem[:] = 0
    return cases, failures


@pytest.mark.parametrize("opcode", STABLE, ids=lambda op: f"{op:02x}")
def test_documented_and_stable_undocumented(opcode, scratch_memory):
    cases, failures = check_opcode(opcode, scratch_memory)
    assert not failures, f"{len(failures)}/{len(cases.names)} cases fail, first: {failures[:3]}"


@pytest.mark.parametrize("opcode", opcodes.UNSTABLE_OPCODES, ids=lambda op: f"{op:02x}")
def test_unstable_opcodes(opcode, scratch_memory):
    """ANE/LXA with magic constant $EE, SHA/SHX/SHY/TAS ANDing with (final high byte + 1) and no
    address corruption: the variant both the suite and ALE encode."""
    cases, failures = check_opcode(opcode, scratch_memory)
    assert not failures, f"{len(failures)}/{len(cases.names)} cases fail, first: {failures[:3]}"


@pytest.mark.parametrize("opcode", opcodes.JAM_OPCODES, ids=lambda op: f"{op:02x}")
def test_jam_halts(opcode, scratch_memory):
    """JAM: the chip stops with PC on the opcode; registers and memory stay as they were."""
    cases, mem, registers, cycles, halted = run_cases(opcode, scratch_memory)
    assert halted.all()
    np.testing.assert_array_equal(registers, cases.initial_registers)
    np.testing.assert_array_equal(registers, cases.final_registers)
    for i in range(len(cases.names)):
        for address, value in cases.final_memory[i]:
            assert mem[i, address] == value
            mem[i, address] = 0
    assert np.count_nonzero(mem) == 0
    # A halted machine stays halted: a second run executes nothing.
    again = flat6502.run(mem[:len(cases.names)], registers, 5, halted=halted)
    assert (again == 0).all()
    np.testing.assert_array_equal(registers, cases.initial_registers)


def test_ale_model_differs_only_where_documented(scratch_memory):
    """The `ale` model equals silicon on binary arithmetic and differs on decimal ADC/SBC."""
    for opcode in (0xA9, 0x91, 0x69):      # LDA #, STA (zp),Y, ADC #
        cases, mem, registers, cycles, halted = run_cases(opcode, scratch_memory, model="ale")
        decimal = (cases.initial_registers[:, 5] & 0x08) != 0
        same = (registers == cases.final_registers).all(axis=1)
        for i in range(len(cases.names)):
            same[i] &= all(mem[i, a] == v for a, v in cases.final_memory[i])
            same[i] &= np.count_nonzero(mem[i]) == len({a for a, v in cases.final_memory[i] if v})
            for address, _ in cases.initial_memory[i] + cases.final_memory[i]:
                mem[i, address] = 0
            mem[i] = 0
        if opcode == 0x69:
            assert same[~decimal].all()
            assert not same[decimal].all()
        elif opcode == 0x91:
            # Pointer high byte from $00FF+1 = $0100 in ALE (no wrap): only those cases differ.
            pointer_at_ff = np.array([dict(c)[(int(r[0]) + 1) & 0xFFFF] == 0xFF
                                      for c, r in zip(cases.initial_memory, cases.initial_registers)])
            assert same[~pointer_at_ff].all()
            assert pointer_at_ff.any() and not same[pointer_at_ff].any()
        else:
            assert same.all()
