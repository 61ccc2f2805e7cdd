"""The public flat runner: results, batching, and clear errors for bad input."""

import numpy as np
import pytest

from cule_py import flat6502
from cule_py.asm6502 import AssemblyError, assemble, to_image

PROGRAM = """
        .org $0200
        LDX #$00
loop:   TXA
        STA $1000,X
        INX
        CPX #$10
        BNE loop
        JAM
"""


def machine(count=1):
    memory = np.zeros((count, 65536), np.uint8)
    for address, byte in assemble(PROGRAM).items():
        memory[:, address] = byte
    registers = np.tile(np.array([0x0200, 0xFF, 0, 0, 0, 0x20], np.int32), (count, 1))
    return memory, registers


@pytest.mark.parametrize("model", ["nmos", "ale"])
def test_program_runs_to_jam(model):
    memory, registers = machine(3)
    halted = np.zeros(3, np.bool_)
    cycles = flat6502.run(memory, registers, 1000, model=model, halted=halted)
    np.testing.assert_array_equal(memory[:, 0x1000:0x1010], np.tile(np.arange(16, dtype=np.uint8), (3, 1)))
    assert halted.all()
    # LDX 2 + 16 x (TXA 2, STA abs,X 5, INX 2, CPX 2) + 15 taken BNE x 3 + 1 untaken 2 + JAM 2
    assert (cycles == 2 + 16 * 11 + 15 * 3 + 2 + 2).all()
    assert cycles.dtype == np.int64


def test_batch_invariance():
    """A machine's result does not depend on its neighbours or the batch size."""
    rng = np.random.default_rng(1)
    memory = rng.integers(0, 256, (5, 65536), dtype=np.uint8)
    registers = np.zeros((5, 6), np.int32)
    registers[:, 0] = rng.integers(0, 65536, 5)
    registers[:, 1:] = rng.integers(0, 256, (5, 5))
    alone_mem, alone_regs = memory[2:3].copy(), registers[2:3].copy()
    cycles = flat6502.run(memory, registers, 500)
    alone_cycles = flat6502.run(alone_mem, alone_regs, 500)
    np.testing.assert_array_equal(alone_mem[0], memory[2])
    np.testing.assert_array_equal(alone_regs[0], registers[2])
    assert alone_cycles[0] == cycles[2]


def test_zero_machines_and_zero_instructions():
    memory, registers = machine(1)
    assert flat6502.run(memory[:0], registers[:0], 10).shape == (0,)
    before = memory.copy()
    assert flat6502.run(memory, registers, 0)[0] == 0
    np.testing.assert_array_equal(before, memory)


@pytest.mark.parametrize("kwargs, error, words", [
    (dict(memory=np.zeros((1, 65536), np.int8)), TypeError, "uint8"),
    (dict(memory=np.zeros((1, 4096), np.uint8)), ValueError, "(B, 65536)"),
    (dict(memory=np.zeros(65536, np.uint8)), ValueError, "(B, 65536)"),
    (dict(registers=np.zeros((1, 6), np.int64)), TypeError, "int32"),
    (dict(registers=np.zeros((2, 6), np.int32)), ValueError, "(1, 6)"),
    (dict(registers=np.zeros((1, 5), np.int32)), ValueError, "PC, S, A, X, Y, P"),
    (dict(registers=np.array([[70000, 0, 0, 0, 0, 0]], np.int32)), ValueError, "PC"),
    (dict(registers=np.array([[0, 0, 300, 0, 0, 0]], np.int32)), ValueError, "0..255"),
    (dict(memory=[[0] * 65536]), TypeError, "array"),
    (dict(model="cmos"), ValueError, "nmos, ale"),
    (dict(instructions=2.5), TypeError, "int"),
    (dict(instructions=-1), ValueError, ">= 0"),
    (dict(device="tpu"), ValueError, "'cpu', 'cuda' or 'cuda:N'"),
    (dict(halted=np.zeros(1, np.int8)), ValueError, "bool"),
    (dict(memory=np.zeros((1, 65536 * 2), np.uint8)[:, ::2]), ValueError, "C-contiguous"),
])
def test_bad_input_is_a_clear_error(kwargs, error, words):
    memory, registers = machine(1)
    args = dict(memory=memory, registers=registers, instructions=10)
    args.update(kwargs)
    with pytest.raises(error) as info:
        flat6502.run(**args)
    assert words in str(info.value)


def test_cuda_without_gpu_says_what_to_do():
    from numba import cuda

    if cuda.is_available():
        pytest.skip("a GPU (or the CUDA simulator) is present: this checks the no-GPU error")
    memory, registers = machine(1)
    with pytest.raises(RuntimeError, match="device='cpu'"):
        flat6502.run(memory, registers, 10, device="cuda")


def test_assembler_rejects_bad_source():
    with pytest.raises(AssemblyError, match="unknown mnemonic"):
        assemble("FOO $10")
    with pytest.raises(AssemblyError, match="no such addressing mode"):
        assemble("STA #$10")
    with pytest.raises(AssemblyError, match="unknown label"):
        assemble("JMP nowhere")
    with pytest.raises(AssemblyError, match="out of range"):
        assemble(".org $1000\nBNE far\n.org $2000\nfar: NOP")
    with pytest.raises(AssemblyError, match="outside"):
        to_image(assemble(".org $0100\nNOP"), 0xF000, 4096)
