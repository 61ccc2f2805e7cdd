"""Whether numba's CUDA simulator stands in for a GPU (NUMBA_ENABLE_CUDASIM=1, as the tests set
it in child processes): the CUDA kernels then run as Python, and the few helpers that answer
differently on the GPU (kernels/gpu/state_tiles.console_row, agent_step.compare_while_pooling)
answer as the GPU does. A leaf module: the kernels and the host's device layer both ask it."""

import os


def simulator_enabled() -> bool:
    return os.environ.get("NUMBA_ENABLE_CUDASIM", "0") not in ("", "0")
