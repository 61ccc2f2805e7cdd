"""cule_py: thousands of Atari 2600 consoles at once, one CUDA thread each, or on the CPU cores.

The emulator lives in `cule_py.kernels` (plain Python compiled by numba for both targets).
Public entry points: `cule_py.make_vec` / `cule_py.make` (Gymnasium envs, drop-in for ale-py's;
importing cule_py also registers the ids "cule_py/Pong-v5" etc. with Gymnasium),
`cule_py.AtariVectorEnv` (ale-py's AtariVectorEnv semantics), `cule_py.AtariEmulator` (batches of
consoles, each one ALE), `cule_py.flat6502.run` (the 6507 core on flat 64 KiB machines) and the
`cule-py-bench` benchmark (`python -m cule_py`).
"""

from ._version_check import ALE_PY_VALIDATED, check_ale_py_version

__version__ = "0.1.0"
__all__ = ["ALE_PY_VALIDATED", "AtariEmulator", "AtariEnv", "AtariVectorEnv", "EmulatorState",
           "__version__", "make", "make_vec"]

check_ale_py_version()

from .emulator import AtariEmulator, EmulatorState  # noqa: E402
from .vector import AtariVectorEnv  # noqa: E402
from .gym_env import AtariEnv, make, make_vec  # noqa: E402
from .registration import register_envs as _register_envs  # noqa: E402

_register_envs()
