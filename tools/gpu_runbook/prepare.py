"""The development machine's half: everything the GPU machine needs, made here so that nothing
compiles there.

1. A Python 3.12 venv, .venv312 (the GPU image's Python) with the numba, numba-cuda and numpy that are
   also carried as wheels, so the GPU machine runs the very versions that compiled the cache.
2. `python -m tools.gpu_precompile` in that venv: the four CUDA kernels compiled and linked for sm_90
   by NVVM and nvJitLink (no driver needed), stripped to their cubins, in .gpurun/pcache;
   .gpurun/runtime_key records this machine's CUDA runtime version, under which numba-cuda
   keys the entries (tools/device_site makes the GPU machine look them up under it).
3. The CPU kernels compiled for the generic x86-64 in that venv (.gpurun/cpu_kernels), which
   stage 4 seeds the GPU machine's cache from.
4. Wheels of what the GPU image lacks or has in another version (.whl/): numba, numba-cuda,
   numpy < 2.5 (the image's 2.5 breaks numba-cuda's CUDA compiler), ale-py, gymnasium.

The device call carries `.gpurun` and `.whl` (both ignored by git); together with the working
tree they must stay under the 64 MiB a call may carry, which this step checks.
"""

from __future__ import annotations

import glob
import os
import pathlib
import shutil
import subprocess
import sys

from .common import CACHE_DIR, CPU_KERNELS, GPURUN, REPO, RUNTIME_KEY_FILE, WHEELS

PINS = ("numba==0.68.1", "numba-cuda==0.30.4", "numpy==2.4.6", "ale-py==0.12.1",
        "gymnasium==1.4.0", "farama-notifications==0.0.6")
PLATFORMS = ("manylinux_2_28_x86_64", "manylinux_2_27_x86_64", "manylinux_2_24_x86_64",
             "manylinux_2_17_x86_64", "manylinux2014_x86_64")
CARRY_LIMIT = 64 * 2**20


def _run(command: list[str], **kwargs) -> None:
    print("+", " ".join(command), flush=True)
    subprocess.run(command, check=True, **kwargs)


def venv(path: pathlib.Path, python312: str) -> pathlib.Path:
    """A venv with the GPU machine's Python and the carried pins (made once)."""
    python = path / "bin" / "python"
    if not python.exists():
        _run([python312, "-m", "venv", str(path)])
        _run([str(python), "-m", "pip", "install", "-q", "--upgrade", "pip"])
        pins = [p if not p.startswith("numba-cuda") else p.replace("numba-cuda", "numba-cuda[cu13]")
                for p in PINS]
        _run([str(python), "-m", "pip", "install", "-q", *pins])
    return python


def precompile(python: pathlib.Path) -> None:
    if CACHE_DIR.exists():
        shutil.rmtree(CACHE_DIR)
    _run([str(python), "-m", "tools.gpu_precompile", "--cache-dir", str(CACHE_DIR),
          "--cc", "9.0"], cwd=REPO)
    version = subprocess.run(
        [str(python), "-c", "from numba.cuda.cudadrv import runtime; "
                            "print('.'.join(map(str, runtime.runtime.get_version())))"],
        check=True, capture_output=True, text=True).stdout.strip()
    RUNTIME_KEY_FILE.write_text(version + "\n")
    print(f"cache keyed under CUDA runtime {version}: {RUNTIME_KEY_FILE}")


def cpu_kernels(python: pathlib.Path) -> None:
    """The CPU kernels compiled for the generic x86-64 by the GPU image's Python: stage 4 seeds
    the GPU machine's cache from them (its CPU is not this one)."""
    if CPU_KERNELS.exists():
        shutil.rmtree(CPU_KERNELS)
    _run([str(python), "-m", "cule_py.precompile", "--portable", str(CPU_KERNELS)], cwd=REPO)


def wheels() -> None:
    WHEELS.mkdir(exist_ok=True)
    platforms = [arg for p in PLATFORMS for arg in ("--platform", p)]
    for pin in PINS:
        _run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--only-binary=:all:",
              "--python-version", "3.12", "--implementation", "cp", *platforms, "-d",
              str(WHEELS), pin])


def carried_bytes() -> int:
    """The working tree's tracked and untracked-not-ignored files plus the carried folders."""
    listed = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=REPO,
                            check=True, capture_output=True).stdout.split(b"\0")
    total = sum((REPO / p.decode()).stat().st_size for p in listed if p
                and (REPO / p.decode()).is_file())
    for folder in (GPURUN, WHEELS):
        if folder.exists():
            total += sum(f.stat().st_size for f in folder.rglob("*") if f.is_file())
    return total


def main(*, python312: str, skip_precompile: bool, skip_wheels: bool) -> int:
    GPURUN.mkdir(exist_ok=True)
    if not skip_precompile:
        python = venv(REPO / ".venv312", python312)
        precompile(python)
        cpu_kernels(python)
    if not skip_wheels:
        wheels()
    size = carried_bytes()
    print(f"a device call carries {size / 2**20:.1f} MiB (limit 64 MiB)")
    if size > CARRY_LIMIT:
        print("too large: the device tool would refuse the call", file=sys.stderr)
        return 1
    missing = [p for p in (CACHE_DIR, RUNTIME_KEY_FILE, CPU_KERNELS) if not p.exists()]
    if missing:
        print(f"not ready: {missing} missing", file=sys.stderr)
        return 1
    print("ready: carry .gpurun and .whl; on the GPU, a first call (timeout 600 s): "
          "`bash tools/gpu_runbook/device.sh 2`, then at once a second (timeout 240 s): "
          "`bash tools/gpu_runbook/device.sh 2 --time-limit 220` if the first did not reach the "
          "best batch, else `bash tools/gpu_runbook/device.sh 1` (benchmarks/README.md)")
    return 0


def default_python312() -> str:
    """A Python 3.12 that runs (a pyenv shim on PATH can exist and still fail when 3.12 is not
    pyenv's selected version, as on the development VM on 2026-11-27)."""
    candidates = [shutil.which("python3.12")]
    candidates += sorted(glob.glob(os.path.expanduser("~/.pyenv/versions/3.12*/bin/python3.12")),
                         reverse=True)
    for candidate in candidates:
        if candidate and os.path.exists(candidate) and subprocess.run(
                [candidate, "-c", "import sys; assert sys.version_info[:2] == (3, 12)"],
                capture_output=True).returncode == 0:
            return candidate
    return "python3.12"
