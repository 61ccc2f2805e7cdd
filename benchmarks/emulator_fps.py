"""Emulated frames per second of AtariEmulator against ale-py, same machine, same run.

    python -m benchmarks.emulator_fps [--games breakout pong seaquest] [--frames 3000]

The same measurement as `python -m cule_py` (see cule_py/bench.py for the method): per core
(numba on 1 thread vs one ALEInterface) and on all cores (numba on every core vs one ale-py
process per core).
"""

from cule_py.bench import main

if __name__ == "__main__":
    main()
