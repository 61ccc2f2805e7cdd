"""The emulator itself: plain Python compiled by numba for the CPU and for CUDA.

Modules: `opcodes` (the 6502 opcode matrix), `cpu6507` (the 6507 core, bound to a bus and a CPU
model), `flat_bus` (a flat 64 KiB bus for CPU test suites, with its CPU and CUDA entry points).
"""

from .. import _jit_cache  # noqa: F401  (the safe cache locator must be in place before any @jit)
