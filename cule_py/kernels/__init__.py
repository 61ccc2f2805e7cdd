"""The emulator itself: plain Python compiled by numba for the CPU and for CUDA, a folder a part
of the machine (each folder's __init__ lists its modules):

* `cpu/`: the 6507 (one instruction bound to a bus, the opcode matrix, the timer's idle loop, a
  flat test bus);
* `tia/`: the TIA (registers, timing, collisions, the picture, the frame buffers, the sound);
* `riot/`: the RIOT's ports and interval timer;
* `cartridges/`: the bank-switching schemes;
* `frame_loop/`: the 6507 on the console's bus, one ALE frame and System reset, the CPU
  backend's fast path and its one compiled copy of the console;
* `ale/`: ALE's environment layer (act, sticky actions, reset_game, mode selection), each game's
  reward, lives and game over, the environment RNG, the reset table;
* `agent/`: ale-py's AtariVectorEnv step and reset (the entry points AtariVectorEnv launches);
* `gpu/`: the warp scheduler, the state rows in tiles, the CUDA compile's hooks.

Shared by all: `layout` (the fields of a console's state row), `registers` (the TIA's and RIOT's
register numbers), `structs` (the named groups of arrays the entry points take), `cpu_workers`
(how a CPU launch hands consoles to threads), `one_pass_codegen` (one LLVM optimisation a CPU
kernel).

In every kernel `env` is a console's index: its row in the batch's arrays (`st[env, field]`,
`ram[env, address]`), one ALE environment.
"""

from .. import _jit_cache  # noqa: F401  (the safe cache locator must be in place before any @jit)
from . import one_pass_codegen  # noqa: F401,E402  (before any kernel compiles: one LLVM pass each)
from .gpu import cuda_compile  # noqa: F401,E402  (one NVVM compile per CUDA kernel)
# The CPU's run_console_frames: a call of the process's one compiled console. cpu_console imports
# environment, whose run_console_frames it overloads, so it is imported here, where every kernel
# module is loaded, and environment never imports it back.
from .frame_loop import cpu_console  # noqa: F401,E402
