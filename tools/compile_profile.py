"""Where a cold CPU compile of cule_py's kernels spends its time.

    python -m tools.compile_profile emulator            # AtariEmulator: drive and the small ones
    python -m tools.compile_profile vector              # AtariVectorEnv: agent step and reset
    python -m tools.compile_profile emulator vector --json out.json
    python -m tools.compile_profile cuda:drive          # one CUDA kernel (tools/gpu_precompile.py's
                                                        # names: drive, step, reset, ...) for sm_90

CPU jobs compile in memory (CULE_PY_NO_CACHE=1, nothing read from or written to the kernel
cache), a CUDA job into a temporary cache, with numba's compile stages wrapped in timers
(for CUDA: numba-cuda's typing and lowering, NVVM, and the link to a cubin), and report, per
stage and per compiled function,
the time spent in it and not in a function it compiled meanwhile (a caller's typing compiles
its callees):

* typing and lowering (numba: type inference, lowering to LLVM IR), per Python function;
* LLVM function passes, run once on each function's own IR;
* LLVM module passes and machine code, run once per *code library* at its finalisation: a
  library links in the optimised modules of every function it calls, so a helper deep in the
  call tree is optimised and turned into machine code again in every library above it. The
  report counts, for each library, the IR it held and how often its code was linked into
  another library.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import sys
import time

os.environ.setdefault("CULE_PY_NO_CACHE", "1")
os.environ.setdefault("CULE_PY_COMPILE_NOTICE", "0")

from numba.core import codegen, typed_passes  # noqa: E402

_stack: list[list] = []        # [seconds spent in nested compiles, name] per open stage
records: list[dict] = []


def _timed(kind, name_of, fn, extra=None):
    def wrapper(self, *args, **kwargs):
        name = name_of(self, *args, **kwargs)
        info = extra(self) if extra else {}
        callers = [entry[1] for entry in _stack]
        _stack.append([0.0, name])
        start = time.perf_counter()
        try:
            return fn(self, *args, **kwargs)
        finally:
            total = time.perf_counter() - start
            inner = _stack.pop()[0]
            if _stack:
                _stack[-1][0] += total
            records.append({"kind": kind, "name": name, "self": total - inner, "total": total,
                            "callers": callers, **info})
    return wrapper


def _state_name(self, state):
    return f"{state.func_id.func_qualname}{tuple(str(a) for a in state.args)}"


def _library_name(self, *args):
    return self.name


def _module_size(self):
    module = self._final_module
    defined = [f for f in module.functions if not f.is_declaration]
    blocks = sum(len(list(f.blocks)) for f in defined)
    return {"functions": len(defined), "blocks": blocks,
            "linked": len({id(x) for x in self._linking_libraries})}


def install() -> None:
    lib = codegen.CPUCodeLibrary
    lib._optimize_functions = _timed("llvm function passes", _library_name,
                                     lib._optimize_functions)
    lib._optimize_final_module = _timed("llvm module passes", _library_name,
                                        lib._optimize_final_module, _module_size)
    lib._finalize_final_module = _timed("machine code", _library_name,
                                        lib._finalize_final_module)
    for cls in (typed_passes.NopythonTypeInference, typed_passes.NativeLowering):
        kind = "typing" if cls is typed_passes.NopythonTypeInference else "lowering"
        cls.run_pass = _timed(kind, _state_name, cls.run_pass)


def install_cuda() -> None:
    from numba.cuda import codegen as cuda_codegen
    from numba.cuda.core import typed_passes as cuda_passes

    for cls in (cuda_passes.NopythonTypeInference, cuda_passes.NativeLowering):
        kind = "typing" if cls is cuda_passes.NopythonTypeInference else "lowering"
        cls.run_pass = _timed(kind, _state_name, cls.run_pass)
    nvvm = cuda_codegen.nvvm
    compile_ir = nvvm.compile_ir
    nvvm.compile_ir = lambda *args, **kwargs: _timed(
        "nvvm", lambda self: "NVVM", lambda self: compile_ir(*args, **kwargs))(None)
    library = cuda_codegen.CUDACodeLibrary
    library.get_cubin = _timed("link to cubin", lambda self, *a, **k: self.name,
                               library.get_cubin)


def run_cuda(which: str) -> float:
    import tempfile

    from tools import gpu_precompile

    os.environ.pop("CULE_PY_NO_CACHE", None)
    os.environ["CULE_PY_CACHE_DIR"] = tempfile.mkdtemp(prefix="cule_py_cuda_profile_")
    start = time.perf_counter()
    gpu_precompile._compile_one(which, (9, 0))
    return time.perf_counter() - start


def run(job: str) -> float:
    import numpy as np

    if job.startswith("cuda:"):
        return run_cuda(job.split(":", 1)[1])

    start = time.perf_counter()
    if job == "emulator":
        from cule_py import AtariEmulator

        emulator = AtariEmulator("pong", 2, seed=0, repeat_action_probability=0.25)
        emulator.act(np.zeros(2, np.int64))
        emulator.lives(), emulator.game_over()
    elif job == "vector":
        from cule_py import steady_state as ss

        env = ss.make_cule_env("pong", 2, threads=1)
        env.reset(seed=0)
        env.step(np.zeros(2, np.int64))
        env.close()
    else:
        raise SystemExit(f"unknown job {job!r}: emulator or vector")
    return time.perf_counter() - start


def report(rows, wall, top=25) -> str:
    by_kind = collections.defaultdict(float)
    for r in rows:
        by_kind[r["kind"]] += r["self"]
    lines = [f"wall time {wall:.1f} s; by stage (time not spent in nested compiles):"]
    for kind, seconds in sorted(by_kind.items(), key=lambda kv: -kv[1]):
        lines.append(f"  {kind:22s} {seconds:8.1f} s  {100 * seconds / wall:5.1f}%")
    lines.append(f"\nthe {top} largest single items:")
    lines.append(f"  {'stage':22s} {'seconds':>8s}  {'functions':>9s} {'blocks':>7s} "
                 f"{'linked':>6s}  name")
    for r in sorted(rows, key=lambda r: -r["self"])[:top]:
        lines.append(f"  {r['kind']:22s} {r['self']:8.1f}  {r.get('functions', ''):>9} "
                     f"{r.get('blocks', ''):>7} {r.get('linked', ''):>6}  {r['name'][:90]}")
    modules = [r for r in rows if r["kind"] == "llvm module passes"]
    blocks = sum(r["blocks"] for r in modules)
    lines.append(f"\n{len(modules)} code libraries finalised, {blocks:,} basic blocks optimised "
                 f"at module level in all")
    return "\n".join(lines)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("jobs", nargs="+", help="emulator, vector, or cuda:KERNEL")
    parser.add_argument("--json", help="write every record to this file")
    parser.add_argument("--top", type=int, default=25)
    args = parser.parse_args(argv)
    if any(job.startswith("cuda:") for job in args.jobs):
        if len(args.jobs) > 1:
            raise SystemExit("a CUDA job runs alone (its process is set up for the GPU's types)")
        os.environ.pop("CULE_PY_NO_CACHE", None)      # before cule_py reads it
        install_cuda()
    else:
        install()
    for job in args.jobs:
        before = len(records)
        wall = run(job)
        print(f"== {job} ==\n{report(records[before:], wall, args.top)}\n", flush=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(records, f, indent=0)


if __name__ == "__main__":
    sys.exit(main())
