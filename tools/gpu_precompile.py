"""Compile cule_py's CUDA kernels on a machine WITHOUT a GPU into a cule_py kernel cache that a GPU
machine loads instead of compiling (about two minutes a console kernel on a 2-core VM), and strip
each entry to its cubin.

    python -m tools.gpu_precompile --cache-dir .gpurun/pcache            # all kernels, cc 9.0
    python -m tools.gpu_precompile --cache-dir DIR --kernels drive flags --cc 9.0

Run it under the Python, numba and numba-cuda versions of the GPU machine (the cache directory is
named after the kernel sources and the numba version, and numba-cuda keys entries on the CUDA
runtime version and the compute capability). On the GPU machine: CULE_PY_CACHE_DIR=DIR, and, when
its CUDA runtime version differs from this machine's, put tools/device_site on PYTHONPATH with
CULE_PY_RUNTIME_KEY=<this machine's version, e.g. 13.5> (a cubin for the right architecture
loads whatever runtime keyed it). The kernels compile in one process per core (--jobs), each
process a group of about equal cost, so that a group's kernels share numba-cuda's typing and
lowering of the helpers.

How: the kernels are typed from a real batch whose power-on is skipped (numpy standing in for
cupy, cule_py.testing.install_fake_cupy, so the field-major layouts are the ones the GPU backend
launches with), compiled and linked to a cubin by NVVM and nvJitLink (no driver needed), saved through numba-cuda's
own cache, and then the LLVM IR and PTX are dropped from the saved entry: the cubin is all a load
needs, and drive_cuda's entry went from 174 MB to 3.9 MB. Session tooling for lent GPUs, not part
of the package.
"""

from __future__ import annotations

import argparse
import os
import pathlib
import pickle
import subprocess
import sys
import time
import types as pytypes

REPO = pathlib.Path(__file__).resolve().parents[1]
KERNELS = ("drive", "flags", "step", "step128", "step64", "observe", "reset", "fill",
           "lanes")


# Relative compile cost of each kernel (tools/compile_profile.py cuda:KERNEL): the console's
# kernels about 1, the small ones next to nothing. The kernels of one process share numba-cuda's
# typing and lowering of every helper, about a third of a console kernel's compile.
COST = {"reset": 1.3, "drive": 1.0, "step": 1.0, "step128": 1.0, "step64": 1.0, "fill": 0.9,
        "observe": 0.3, "flags": 0.05, "lanes": 0.02}


def groups(kernels, jobs: int) -> list[list[str]]:
    """`kernels` in `jobs` groups of about equal cost (the costliest first in each)."""
    bins: list[list[str]] = [[] for _ in range(max(1, min(jobs, len(kernels))))]
    for kernel in sorted(kernels, key=lambda k: -COST.get(k, 1.0)):
        min(bins, key=lambda b: sum(COST.get(k, 1.0) for k in b)).append(kernel)
    return [b for b in bins if b]


def _compile_group(kernels: list[str], cc: tuple[int, int]) -> None:
    from cule_py.testing import install_fake_cupy

    install_fake_cupy()
    import numba
    import numba.cuda.dispatcher as cdisp
    from numba import cuda
    from numba.cuda import codegen
    from numba.cuda.cudadrv import runtime

    device = pytypes.SimpleNamespace(compute_capability=cc, id=0)
    cdisp.get_current_device = lambda: device
    key = (runtime.runtime.get_version(), cc)
    codegen.JITCUDACodegen.magic_tuple = lambda self: key
    arch = (cc[0], cc[1], "a" if cc >= (9, 0) else "")
    codegen.CUDACodeLibrary._ensure_cc = lambda self, c: arch if c is None else c

    import cule_py._device as dev

    dev.require_cuda = lambda index: cuda
    from tools.gpu_warm import kernel_and_arguments

    for which in kernels:
        kernel, args = kernel_and_arguments(which)
        signature = tuple(numba.typeof(a) for a in args)
        start = time.perf_counter()
        compiled = cdisp._Kernel(kernel.py_func, signature, **kernel.targetoptions)
        compiled._codelibrary.get_cubin()
        kernel._cache.save_overload(signature, compiled)
        print(f"{kernel.__name__}: compiled and linked for sm_{cc[0]}{cc[1]} in "
              f"{time.perf_counter() - start:.0f} s (cache key: runtime {key[0]}, cc {cc})",
              flush=True)


def _compile_one(which: str, cc: tuple[int, int]) -> None:
    _compile_group([which], cc)


def cuda_cache_entries(cache_dir: pathlib.Path) -> list[pathlib.Path]:
    """The cache files of CUDA kernels (`module.<name>_cuda[_variant]-module.pyXY.N.nbc`). The
    pattern must take the register-capped variants too (agent_step_cuda_capped, _lean): an
    unstripped one is ~23 MB and took the device call past its 64 MiB (2026-11-28)."""
    return sorted(p for p in cache_dir.rglob("*.nbc")
                  if "_cuda" in p.name.split("-", 1)[0])


def strip_to_cubins(cache_dir: pathlib.Path) -> None:
    """Drop the LLVM IR and PTX from every CUDA entry that holds a cubin."""
    from numba.cuda import codegen

    def libraries(obj):
        if isinstance(obj, codegen.CUDACodeLibrary):
            yield obj
        elif isinstance(obj, (tuple, list)):
            for item in obj:
                yield from libraries(item)
        elif isinstance(obj, dict):
            for item in obj.values():
                yield from libraries(item)

    for path in cuda_cache_entries(cache_dir):
        raw = path.read_bytes()
        data = pickle.loads(raw)
        found = list(libraries(data))
        if not found or not all(lib._cubin_cache for lib in found):
            continue
        for lib in found:
            lib._llvm_strs = []
            lib._ptx_cache = {}
        stripped = pickle.dumps(data, protocol=-1)
        path.write_bytes(stripped)
        print(f"{path.name}: {len(raw) / 1e6:.1f} MB -> {len(stripped) / 1e6:.1f} MB")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cache-dir", required=True)
    parser.add_argument("--kernels", nargs="+", default=list(KERNELS), choices=KERNELS)
    parser.add_argument("--cc", default="9.0", help="compute capability, e.g. 9.0 (H100/H200)")
    parser.add_argument("--jobs", type=int, default=len(os.sched_getaffinity(0)),
                        help="processes compiling at once, each a group of kernels (default: "
                             "this machine's cores)")
    parser.add_argument("--group", help=argparse.SUPPRESS)
    args = parser.parse_args()
    cc = tuple(int(v) for v in args.cc.split("."))
    os.environ["CULE_PY_CACHE_DIR"] = str(pathlib.Path(args.cache_dir).resolve())
    if args.group:
        _compile_group(args.group.split(","), cc)
        return 0
    start = time.perf_counter()
    plan = groups(args.kernels, args.jobs)
    # From the repository root, as `python -m tools.gpu_precompile` itself: `python -m
    # tools.gpu_runbook prepare` runs this in a venv of the GPU machine's versions without
    # cule_py installed, where the checkout's cule_py is the one compiled.
    children = [subprocess.Popen([sys.executable, "-m", "tools.gpu_precompile",
                                  "--cache-dir", os.environ["CULE_PY_CACHE_DIR"], "--cc", args.cc,
                                  "--group", ",".join(g)], cwd=REPO) for g in plan]
    failed = [",".join(g) for g, child in zip(plan, children) if child.wait() != 0]
    print(f"{len(args.kernels)} kernels in {len(plan)} processes: {time.perf_counter() - start:.0f} "
          f"s wall", flush=True)
    strip_to_cubins(pathlib.Path(args.cache_dir))
    if failed:
        print(f"failed: {failed}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
