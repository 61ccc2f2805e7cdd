"""The emulator itself: plain Python compiled by numba for the CPU and for CUDA.

Modules: `opcodes` (the 6502 opcode matrix), `cpu6507` (the 6507 core, bound to a bus and a CPU
model), `flat_bus` (a flat 64 KiB bus for CPU test suites, with its CPU and CUDA entry points);
the console: `layout` (the fields of a console's state row), `registers` (the TIA's and RIOT's
register numbers), `riot` (ports and timer), `tia` (registers, timing, collisions, inputs) and
`render` (the picture it draws), `cart` and its `cart_*` schemes, `bus` (the 6507 on the 2600's
bus, the decoded core's loop), `console` (one frame, System reset),
`console_fast_path` (the CPU backend's fast path through the 6507), `outlining` (what stays out
of line on the GPU), `environment` and `agent_step` (the entry points), `structs` (the named
groups of arrays the entry points take), `game_logic` (rewards, lives, game over).
"""

from .. import _jit_cache  # noqa: F401  (the safe cache locator must be in place before any @jit)
from . import one_pass_codegen  # noqa: F401,E402  (before any kernel compiles: one LLVM pass each)
from . import cuda_compile  # noqa: F401,E402  (one NVVM compile per CUDA kernel)
# The CPU's run_console_frames: a call of the process's one compiled console. cpu_console imports
# environment, whose run_console_frames it overloads, so it is imported here, where every kernel
# module is loaded, and environment never imports it back.
from . import cpu_console  # noqa: F401,E402
