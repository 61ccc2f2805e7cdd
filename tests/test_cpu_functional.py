"""Klaus Dormann's 6502 functional test: every documented opcode and mode, decimal mode included.

The program ends in a jump-to-self: at $3469 on success, anywhere else on the failed check.
"""

import numpy as np
import pytest

from cule_py import flat6502

SUCCESS_PC = 0x3469
CHUNK = 200_000


def trapped_pc(memory, registers, model):
    """Run until the program traps in a loop; return the trap address."""
    for _ in range(300):                      # the test needs ~30M cycles (~10M instructions)
        flat6502.run(memory, registers, CHUNK, model=model)
        before = int(registers[0, 0])
        probe_memory, probe_registers = memory.copy(), registers.copy()
        flat6502.run(probe_memory, probe_registers, 1, model=model)
        if int(probe_registers[0, 0]) == before:
            return before
    pytest.fail(f"no trap after {300 * CHUNK} instructions, PC=${int(registers[0, 0]):04X}")


@pytest.mark.parametrize("model", ["nmos", "ale"])
def test_functional_test_reaches_success(model, shared_testdata):
    image = np.fromfile(shared_testdata / "6502_functional_test.bin", np.uint8)
    memory = np.zeros((1, 65536), np.uint8)
    memory[0, :image.size] = image
    registers = np.array([[0x0400, 0xFF, 0, 0, 0, 0x20]], np.int32)
    pc = trapped_pc(memory, registers, model)
    assert pc == SUCCESS_PC, f"trapped at ${pc:04X} (a failed check in the functional test)"
