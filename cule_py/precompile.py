"""`python -m cule_py.precompile`: compile the CPU kernels now, into the numba cache, so that the
first `python -m cule_py` or `make_vec` starts in seconds instead of minutes.

    python -m cule_py.precompile                    # this machine's cache (native code)
    python -m cule_py.precompile --portable DIR     # a cache for any x86-64 / any aarch64

`--portable` compiles in a child process with NUMBA_CPU_NAME=generic (the architecture's baseline
instruction set, no host features) and writes the cache folder `numba-<fingerprint>` into DIR.
Built into the package (`cule_py/_portable_cache`, see setup.py: CULE_PY_PORTABLE_CACHE=1 when
building the wheel), it seeds an empty cache on the user's machine (cule_py/_jit_cache.py): the
same fingerprint (every kernel source and the numba version) and the same Python version, or
nothing is used. What is compiled: the kernels that `python -m cule_py` (CPU) and `AtariEmulator`
call with their default settings; other settings (RGB observations, for one) still compile
on first use.
"""

from __future__ import annotations

import argparse
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import time


def compile_cpu_kernels(progress=print) -> None:
    """Run, tiny, everything the CPU benchmark and AtariEmulator run, so each cached kernel is
    compiled (or loaded) for the signatures those paths use."""
    import numpy as np

    from . import steady_state as ss
    from .emulator import AtariEmulator

    start = time.perf_counter()
    env = ss.make_cule_env("pong", 2, threads=1)
    try:
        env.reset(seed=0)
        for _ in range(3):
            env.step(np.zeros(2, np.int64))
    finally:
        env.close()
    progress(f"AtariVectorEnv kernels ready ({time.perf_counter() - start:.0f} s)")
    start = time.perf_counter()
    emulator = AtariEmulator("pong", 2, seed=0, repeat_action_probability=0.25)
    emulator.act(np.zeros(2, np.int64))
    emulator.reset(np.ones(2, np.bool_))
    emulator.lives(), emulator.game_over()
    progress(f"AtariEmulator kernels ready ({time.perf_counter() - start:.0f} s)")


def build_portable(out: pathlib.Path, progress=print) -> pathlib.Path:
    """Compile the CPU kernels for the generic CPU in a child process and copy the resulting
    cache folder into `out`; returns the folder written."""
    from ._jit_cache import FINGERPRINT

    with tempfile.TemporaryDirectory(prefix="cule_py_portable_") as tmp:
        env = {**os.environ, "CULE_PY_CACHE_DIR": tmp, "NUMBA_CPU_NAME": "generic",
               "NUMBA_CPU_FEATURES": ""}
        env.pop("CULE_PY_NO_CACHE", None)
        subprocess.run([sys.executable, "-m", "cule_py.precompile"], env=env, check=True)
        built = pathlib.Path(tmp) / f"numba-{FINGERPRINT[:20]}"
        target = out / built.name
        if target.exists():
            shutil.rmtree(target)
        out.mkdir(parents=True, exist_ok=True)
        shutil.copytree(built, target)
    progress(f"portable kernel cache written to {target}")
    return target


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--portable", metavar="DIR", type=pathlib.Path, default=None,
                        help="compile for the generic CPU and write the cache folder into DIR")
    args = parser.parse_args(argv)
    if args.portable is not None:
        build_portable(args.portable)
    else:
        from ._jit_cache import cache_root, forget_seeded

        # Kernels seeded from the packaged portable cache are generic code: native ones replace
        # them here (numba would otherwise load the seeded ones and compile nothing).
        forgotten = forget_seeded()
        print(f"compiling cule_py's CPU kernels into {cache_root()}"
              + (f" (replacing {forgotten} portable ones)" if forgotten else ""), flush=True)
        compile_cpu_kernels()


if __name__ == "__main__":
    main()
