"""An offline model of the GPU backend's throughput, run on a machine without a GPU (issue 24).

    python -m tools.gpu_model static [--kernels drive flags step reset fill] [--cubin-dir DIR]
                                     [--keep DIR] [--max-registers 128 ...] [--json OUT] [--md OUT]
    python -m tools.gpu_model occupancy [--static-json OUT_OF_STATIC] [--registers N]
                                        [--threads-per-block 128] [--memory] [--json OUT]
    python -m tools.gpu_model trace [--games pong ...] [--consoles 64] [--frames 2]
                                    [--warmup 300] [--weights k=v,...] [--json OUT]
    python -m tools.gpu_model calibrate [--counts tools/gpu_model_calibration.json]
                                        [--trace --consoles 512] [--json OUT]

static: the hot CUDA kernels (drive_cuda and lives_and_flags_cuda of kernels/ale/environment.py,
agent_step_cuda and agent_reset_cuda of kernels/agent/agent_step.py) compiled for sm_90a as the GPU
backend launches them (the argument types of tools/gpu_warm.kernel_and_arguments, numpy standing
in for cupy; numba-cuda's own kernel path, NVVM -> LTO-IR -> nvJitLink with link-time
optimisation -> cubin), no driver needed. From nvJitLink's verbose log:
registers, spill stores/loads and stack frame per function; from the cubin's ELF attributes:
registers and frame size (so a cubin kept earlier or taken from a kernel cache, --cubin-dir,
gives the same figures but the spill bytes without compiling); from `nvdisasm` (pip wheel
nvidia-cuda-nvdisasm): SASS instructions per device function (the entry, and the functions
kernels/frame_loop/outlining.py keeps out of line: run_console_frames, device_read/_write,
banked_read/_write, tia_space_read/_write), with the spill instructions (STL/LDL that
nvdisasm marks as spill/refill) and calls among them.
(SASS per Python source function would need line information, which numba-cuda 0.30 emits for
the kernel's own function only, none for the register_jitable code inlined into it: not done.)

occupancy: from registers per thread and threads per block, the warps resident per scheduler
of an H100 SXM (132 SMs x 4 schedulers, 64 K registers per SM, at most 64 warps per SM,
registers allocated per warp in units of 256) at 4,096 / 16,384 / 65,536 consoles and at the
largest batch the GPU's memory holds; memory per console from the arrays a batch allocates
(tools/gpu_runbook/preflight.memory_per_console on the CPU backend, --memory).

trace: the warp-lockstep model over a trace of the GPU's code path (tools/gpu_trace.py: the
decoded core with a recording bus, warps of 32 consoles after random warm-up frames). Weight-free:
per console-frame 6507 instructions, TIA/RIOT reads and writes, cartridge accesses, colour clocks
rendered; lanes advanced per lockstep step (all lanes together as today, and a min-PC
schedule), distinct opcodes per step, the pixel loop's efficiency. Weighted (the calibrated
weights, FROZEN): active threads per warp instruction, warp instructions per console-frame W, and
frames/s of one act() launch at each batch (launch_seconds: blocks over the SMs, warps sharing a
scheduler's issue rate, the slowest warp of a block holding its slot), with the calibration's
worst miss as the range.

calibrate: fits the model to what was recorded on an H100 with the kernels of 2ee2133
(CALIBRATION): the path weights' scale and the SASS per colour clock to ncu's warp and thread
instructions, the IPC's growth with resident warps to the 65,536-console figure; then predicts
the other recorded figures and reports model / recorded for each. Its input is a trace of
2ee2133's own decoded core (`calibrate --trace` run from a checkout of that commit: the trace
follows the package beside it), kept as weight-free counts in tools/gpu_model_calibration.json.

Compiling costs minutes per kernel on a cold machine (drive_cuda and agent_reset_cuda most);
one kernel compiles at a time, in this process; the trace's CPU compile about a minute.
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import json
import math
import os
import pathlib
import re
import shutil
import struct
import subprocess
import sys
import sysconfig
import time
import types as pytypes

import numpy as np

from cule_py import settings

REPO = pathlib.Path(__file__).resolve().parents[1]

CC = (9, 0)
KERNELS = {"drive": "drive_cuda", "flags": "lives_and_flags_cuda", "step": "agent_step_cuda",
           "step128": "agent_step_cuda_capped", "step64": "agent_step_cuda_lean",
           "reset": "agent_reset_cuda",
           "fill": "fill_tails_cuda", "observe": "agent_observe_cuda",
           "lanes": "resetting_lanes_cuda"}
OUTLINED = ("run_console_frames", "device_read", "device_write", "banked_read", "banked_write",
            "tia_space_read", "tia_space_write", "draw_until")

# Register and spill caps per hot kernel, the regression limits that the tests check
# (tests/test_agent_step_cuda_compile.py, tests/test_gpu_model.py): a kernel may not use more
# registers, nor spill more bytes (spill stores summed over its functions, nvJitLink's count),
# than this, compiled with Python 3.11, numba 0.68.1, numba-cuda 0.30.4, NVVM and nvJitLink 13.5
# for sm_90a with LTO (other Python versions compile slightly differently: 3.12 gave drive_cuda
# an 864-byte frame where 3.11 gives 872). Each value is the kernel as linked when its last
# change was accepted; docs/performance-log.md, "CUDA caps: how each was set", says which
# change moved which cap and why.
CAPS = {
    "drive_cuda": {"registers": 255, "spill_store_bytes": 0},
    "lives_and_flags_cuda": {"registers": 17, "spill_store_bytes": 0},
    "agent_step_cuda": {"registers": 255, "spill_store_bytes": 140},
    # capped at 128 registers: 4 warps a scheduler instead of 2, with spills in the console loop
    "agent_step_cuda_capped": {"registers": 128, "spill_store_bytes": 716},
    # capped at 64: 8 warps a scheduler, for the largest batches
    "agent_step_cuda_lean": {"registers": 64, "spill_store_bytes": 3284},
    # unrolled pooling and resize loops; left uncapped (at 96 registers it spills 32 B, at 64
    # 220 B) until a GPU says whether occupancy pays
    "agent_observe_cuda": {"registers": 144, "spill_store_bytes": 0},
    "agent_reset_cuda": {"registers": 255, "spill_store_bytes": 244},
    "resetting_lanes_cuda": {"registers": 14, "spill_store_bytes": 0},
    "fill_tails_cuda": {"registers": 255, "spill_store_bytes": 868},
}


# ---------------------------------------------------------------------------------------------
# Compiling without a GPU
# ---------------------------------------------------------------------------------------------
@contextlib.contextmanager
def offline_cuda():
    """numba.cuda ready to compile for sm_90a without a driver, for the duration of the block:
    numpy standing in for cupy (so that the GPU backend's host code builds its field-major
    arrays), the one device query numba-cuda makes (the compute capability) stubbed, and a
    batch's power-on skipped (tools/gpu_warm.kernel_and_arguments: only the argument types
    matter). Everything is put back afterwards, so that the rest of the process (a test run)
    sees the real cupy (or none) and real batches. With a GPU present nothing is stubbed."""
    from numba import cuda
    import numba.cuda.dispatcher as cdisp
    from numba.cuda import codegen

    import cule_py._device as dev
    from cule_py.batch import ConsoleBatch
    from cule_py.testing import install_fake_cupy

    saved_modules = {k: sys.modules.get(k) for k in ("cupy", "cupyx")}
    saved = [(cdisp, "get_current_device"), (dev, "require_cuda"), (ConsoleBatch, "power_on"),
             (codegen.CUDACodeLibrary, "_ensure_cc")]
    saved = [(obj, name, obj.__dict__.get(name, getattr(obj, name))) for obj, name in saved]
    try:
        codegen.CUDACodeLibrary._ensure_cc = lambda self, c: ARCH if c is None else c
        if not cuda.is_available():
            install_fake_cupy()
            cdisp.get_current_device = lambda: pytypes.SimpleNamespace(compute_capability=CC,
                                                                       id=0)
            dev.require_cuda = lambda index: cuda
        yield cuda
    finally:
        for obj, name, value in saved:
            setattr(obj, name, value)
        for key, module in saved_modules.items():
            if module is None:
                sys.modules.pop(key, None)
            else:
                sys.modules[key] = module


def kernel_signature(which: str):
    """(kernel dispatcher, numba signature) as the GPU backend launches `which` (inside
    offline_cuda() when there is no GPU)."""
    from numba import cuda
    import numba

    from tools.gpu_warm import _types, kernel_and_arguments

    kernel, args = kernel_and_arguments(which)
    if cuda.is_available():

        return kernel, _types(cuda, args)
    return kernel, tuple(numba.typeof(a) for a in args)


ARCH = (CC[0], CC[1], "a")     # what numba-cuda compiles for on an H100 (sm_90a)


def compile_kernel(which: str):
    """(numba-cuda's code library of kernel `which`, seconds) compiled the way the GPU backend
    compiles it: numba-cuda's kernel path with the kernel's own options, which include
    link-time optimisation (NVVM writes LTO-IR, nvJitLink optimises the whole program: the
    device functions then share the kernel's frame). tools/gpu_precompile.py does the same.
    `cuda.compile_ptx`, which the older PTX tests use, skips LTO, and its cubin differs (drive_cuda:
    a 512 B frame and 1,840 B of stack through its calls, where LTO gives one 864 B frame)."""
    import numba.cuda.dispatcher as cdisp

    with offline_cuda():
        kernel, signature = kernel_signature(which)
        start = time.perf_counter()
        compiled = cdisp._Kernel(kernel.py_func, signature, **kernel.targetoptions)
        library = compiled._codelibrary
        if library._lto:
            library.get_ltoir(cc=ARCH)
        else:
            library.get_asm_strs(cc=ARCH)
    return library, time.perf_counter() - start


def link(library, extra_options=()) -> tuple[str, bytes]:
    """(nvJitLink's verbose log, the cubin): the link numba-cuda makes for sm_90a (LTO when the
    kernel asks for it), with -verbose added, and `extra_options` (e.g. "-maxrregcount=64": under
    LTO the register cap is the linker's, not the kernel's max_registers)."""
    from cuda.bindings import nvjitlink

    options = [f"-arch=sm_{ARCH[0]}{ARCH[1]}{ARCH[2]}", "-verbose", *extra_options]
    # the kernel's own cap (cuda.jit(max_registers=N)), which numba-cuda's linker passes too
    if getattr(library, "_max_registers", None) and not any(
            o.startswith("-maxrregcount") for o in extra_options):
        options.append(f"-maxrregcount={library._max_registers}")
    if library._lto:
        options.append("-lto")
        inputs = [(nvjitlink.InputType.LTOIR, bytes(library.get_ltoir(cc=ARCH)))]
    else:
        inputs = [(nvjitlink.InputType.PTX, p.encode()) for p in library.get_asm_strs(cc=ARCH)]
    if library._linking_files or library.needs_cudadevrt:
        raise NotImplementedError("kernels linking extra files are not handled here")
    handle = nvjitlink.create(len(options), options)
    try:
        for i, (kind, data) in enumerate(inputs):
            nvjitlink.add_data(handle, kind, data, len(data), f"m{i}")
        try:
            nvjitlink.complete(handle)
        finally:
            log = bytearray(nvjitlink.get_info_log_size(handle))
            nvjitlink.get_info_log(handle, log)
        cubin = bytearray(nvjitlink.get_linked_cubin_size(handle))
        nvjitlink.get_linked_cubin(handle, cubin)
    finally:
        nvjitlink.destroy(handle)
    return log.decode(errors="replace"), bytes(cubin)


def short_name(mangled: str) -> str:
    """`cule_py.kernels.bus.device_read` from numba's mangled name (the nested name of
    length-prefixed identifiers after _ZN); other names unchanged."""
    if not mangled.startswith("_ZN"):
        return mangled
    parts, i = [], 3
    while i < len(mangled) and mangled[i].isdigit():
        j = i
        while mangled[j].isdigit():
            j += 1
        n = int(mangled[i:j])
        parts.append(mangled[j:j + n])
        i = j + n
    return ".".join(parts) if parts else mangled


def parse_link_log(log: str) -> dict:
    """Per function (short name): stack frame, spill store/load bytes; and the entry's registers
    ("Used N registers") under the key None."""
    out: dict = {}
    current = None
    for line in log.splitlines():
        m = re.search(r"Function properties for '?([^'\s]+)'?", line)
        if m:
            current = short_name(m.group(1))
            out.setdefault(current, {})
            continue
        m = re.search(r"Compiling entry function '?([^'\s]+)'?", line)
        if m:
            current = short_name(m.group(1))
            out.setdefault(current, {})
            continue
        for key, pattern in (("stack", r"(\d+) bytes stack frame"),
                             ("spill_store_bytes", r"(\d+) bytes spill stores"),
                             ("spill_load_bytes", r"(\d+) bytes spill loads"),
                             ("registers", r"[Uu]sed (\d+) registers")):
            m = re.search(pattern, line)
            if m and current is not None:
                out[current][key] = int(m.group(1))
    return out


# ---------------------------------------------------------------------------------------------
# The cubin: ELF attributes and SASS
# ---------------------------------------------------------------------------------------------
_EIATTR_REGCOUNT, _EIATTR_FRAME_SIZE, _EIATTR_MAX_STACK = 0x2F, 0x11, 0x23


def _sections(cubin: bytes):
    if cubin[:4] != b"\x7fELF" or cubin[4] != 2:
        raise ValueError("not a 64-bit ELF cubin")
    shoff, = struct.unpack_from("<Q", cubin, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", cubin, 0x3A)
    heads = [struct.unpack_from("<IIQQQQIIQQ", cubin, shoff + i * shentsize)
             for i in range(shnum)]
    names_at = heads[shstrndx][4]

    def name(offset):
        return cubin[names_at + offset: cubin.index(b"\0", names_at + offset)].decode()

    return [(name(h[0]), h) for h in heads]


def cubin_attributes(cubin: bytes) -> dict:
    """registers (EIATTR_REGCOUNT of the entry), frame bytes per function (EIATTR_FRAME_SIZE)
    and the SASS size of the .text sections, from the cubin's ELF."""
    sections = _sections(cubin)
    by_name = {n: h for n, h in sections}
    symtab, strtab = by_name[".symtab"], by_name[".strtab"]
    symbols = []
    for k in range(symtab[5] // 24):
        name_off, = struct.unpack_from("<I", cubin, symtab[4] + 24 * k)
        start = strtab[4] + name_off
        symbols.append(cubin[start: cubin.index(b"\0", start)].decode())
    registers, frames = {}, {}
    for name, head in sections:
        if name != ".nv.info":
            continue
        p, end = head[4], head[4] + head[5]
        while p < end:
            fmt, attr = cubin[p], cubin[p + 1]
            if fmt == 4:        # EIFMT_SVAL: u16 size, payload
                size, = struct.unpack_from("<H", cubin, p + 2)
                payload = cubin[p + 4: p + 4 + size]
                p += 4 + size
            elif fmt == 3:      # EIFMT_HVAL
                payload = b""
                p += 4
            else:
                payload = b""
                p += 2
            if len(payload) == 8:
                sym, value = struct.unpack("<II", payload)
                fn = short_name(symbols[sym].split("$")[-1]) if sym < len(symbols) else sym
                if attr == _EIATTR_REGCOUNT:
                    registers[fn] = value
                elif attr == _EIATTR_FRAME_SIZE:
                    frames[fn] = value
    text = sum(h[5] for n, h in sections if n.startswith(".text."))
    return {"registers": registers, "frame_bytes": frames, "sass": text // 16}


def find_nvdisasm() -> str | None:
    """nvdisasm from PATH, the nvidia-cuda-nvdisasm wheel or a CUDA toolkit."""
    if shutil.which("nvdisasm"):
        return shutil.which("nvdisasm")
    site = pathlib.Path(sysconfig.get_paths()["purelib"])
    for pattern in ("nvidia/*/bin/nvdisasm", "nvidia/cuda_nvdisasm/bin/nvdisasm"):
        for path in sorted(site.glob(pattern)):
            if os.access(path, os.X_OK):
                return str(path)
    for path in sorted(pathlib.Path("/usr/local").glob("cuda*/bin/nvdisasm"), reverse=True):
        if os.access(path, os.X_OK):
            return str(path)
    return None


def disassemble(cubin: bytes) -> str:
    nvdisasm = find_nvdisasm()
    if nvdisasm is None:
        raise FileNotFoundError("nvdisasm not found: pip install nvidia-cuda-nvdisasm")
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        path = pathlib.Path(tmp) / "k.cubin"
        path.write_bytes(cubin)
        proc = subprocess.run([nvdisasm, "-c", str(path)], capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"nvdisasm failed: {proc.stderr.strip()[:300]}")
    return proc.stdout


_INSTRUCTION = re.compile(r"^\s*/\*[0-9a-f]{4,}\*/\s+(.*?)\s*;")


def function_started(line: str) -> str | None:
    """The device function (short name) whose code a line of nvdisasm's output starts, None for
    any other line. A function starts at its `$kernel$function:` label (nvdisasm puts the
    non-entry functions in the entry's section), the entry at its section."""
    m = re.match(r"\s*\.section\s+\.text\.([^,\s]+)", line)
    if m:
        return short_name(m.group(1))
    m = re.match(r"^\$(\S+):\s*$", line)
    if m:
        return short_name(m.group(1).split("$")[-1])
    return None


def sass_by_function(sass: str) -> dict:
    """Per device function of the disassembly (short name, `function_started`): SASS
    instructions, the spill and refill instructions among them (nvdisasm's "SpillRefill" mark),
    calls, and an opcode histogram."""
    out: dict = {}
    current = None
    for line in sass.splitlines():
        started = function_started(line)
        if started is not None:
            current = started
            continue
        m = _INSTRUCTION.match(line)
        if not m or current is None:
            continue
        text = m.group(1)
        entry = out.setdefault(current, {"sass": 0, "spill": 0, "calls": 0,
                                         "opcodes": collections.Counter()})
        entry["sass"] += 1
        if "SpillRefill" in line:
            entry["spill"] += 1
        body = re.sub(r"^@!?U?P[T\d]+\s+", "", text)
        opcode = body.split(None, 1)[0] if body else "?"
        entry["opcodes"][opcode.split(".")[0]] += 1
        if opcode.startswith("CALL"):
            entry["calls"] += 1
    return out


FUSED_OPCODES = ("FFMA", "DFMA", "HFMA2")
# FFMA d, a, b, c with neither a nor b the zero register (a real product fused into an add).
_FFMA_PRODUCT = re.compile(r"\bFFMA(?:\.\w+)*\s+\w+,(?!\s*-?RZ\b)[^,]+,(?!\s*-?RZ\b)[^,]+,")


def analyse(name: str, cubin: bytes, log: str | None = None) -> dict:
    """Everything the static part reports for one kernel's cubin (and link log)."""
    attributes = cubin_attributes(cubin)
    sass = disassemble(cubin) if find_nvdisasm() else ""
    functions = sass_by_function(sass) if sass else {}
    entry = next((f for f in attributes["frame_bytes"] if f.endswith("." + name)), None)
    row = {"kernel": name, "registers": max(attributes["registers"].values(), default=None),
           "frame_bytes": attributes["frame_bytes"].get(entry, max(
               attributes["frame_bytes"].values(), default=0)),
           "sass": attributes["sass"],
           "spill_instructions": sum(f["spill"] for f in functions.values()),
           "functions": {f: {"sass": v["sass"], "spill": v["spill"], "calls": v["calls"]}
                         for f, v in functions.items()},
           # Fused multiply-adds round once where ALE rounds twice (kernels/agent/exact_float.py).
           # Harmless ones remain: inside the correctly rounded float64 division routine, and
           # where a factor is a power of two (DPC's clock fraction). `fused_float32_products`
           # counts FFMAs that multiply two non-zero values: the observation's resize had 14.
           "fused_multiply_adds": {op: sum(v["opcodes"][op] for v in functions.values())
                                   for op in FUSED_OPCODES},
           "fused_float32_products": len(_FFMA_PRODUCT.findall(sass)),
           # the warp scheduler's minimum (kernels/gpu/warp_schedule.py): one REDUX a step on
           # sm_80 and later, a butterfly of five shuffles before
           "warp_minimums": len(re.findall(r"\bREDUX\.MIN\.S32\b", sass)),
           "warp_shuffles": len(re.findall(r"\bSHFL\.BFLY\b", sass))}
    if log is not None:
        per = parse_link_log(log)
        row["link"] = per
        row["spill_store_bytes"] = sum(v.get("spill_store_bytes", 0) for v in per.values())
        row["spill_load_bytes"] = sum(v.get("spill_load_bytes", 0) for v in per.values())
        regs = [v["registers"] for v in per.values() if "registers" in v]
        if regs:
            row["link_registers"] = max(regs)
    return row


def check_caps(row: dict) -> list[str]:
    """Why `row` (analyse's output or a stats dict with registers/spill_store_bytes) breaks its
    kernel's cap in CAPS; empty when it does not."""
    cap = CAPS.get(row["kernel"])
    if cap is None:
        return [f"{row['kernel']}: no cap recorded in tools/gpu_model.py CAPS"]
    problems = []
    if row.get("registers") is not None and row["registers"] > cap["registers"]:
        problems.append(f"{row['kernel']}: {row['registers']} registers > cap "
                        f"{cap['registers']}")
    spilled = row.get("spill_store_bytes")
    if spilled is not None and spilled > cap["spill_store_bytes"]:
        problems.append(f"{row['kernel']}: {spilled} bytes of spill stores > cap "
                        f"{cap['spill_store_bytes']}")
    return problems


def _short(function: str) -> str:
    return function.rsplit(".", 1)[-1]


def static_markdown(rows: list[dict]) -> str:
    lines = ["| kernel | registers | frame (local) B | spill st/ld B | SASS | spill instr. | "
             "compile s |", "|---|---|---|---|---|---|---|"]
    for r in rows:
        spill = (f"{r['spill_store_bytes']}/{r['spill_load_bytes']}" if "spill_store_bytes" in r
                 else "-")
        compile_s = f"{r['compile_s']:.0f}" if "compile_s" in r else "-"
        name = r["kernel"] + (f" (cap {r['cap']})" if "cap" in r else "")
        lines.append(f"| {name} | {r['registers']} | {r['frame_bytes']} | {spill} | "
                     f"{r['sass']:,} | {r['spill_instructions']:,} | {compile_s} |")
    lines += ["", "SASS per device function (instructions / spill-refill instructions / calls):",
              "", "| kernel | " + " | ".join(("entry",) + OUTLINED) + " |",
              "|---|" + "---|" * (len(OUTLINED) + 1)]
    for r in rows:
        by = {_short(f): v for f, v in r["functions"].items()}
        cells = []
        for f in (r["kernel"],) + OUTLINED:
            v = by.get(f)
            cells.append(f"{v['sass']:,} / {v['spill']} / {v['calls']}" if v else "-")
        name = r["kernel"] + (f" (cap {r['cap']})" if "cap" in r else "")
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


_COMPILED: dict = {}


def compiled_kernel(which: str) -> dict:
    """{"row": analyse's row, "library": numba-cuda's code library, "cubin": bytes, "log": the
    link log} of
    kernel `which`, compiled once per process (the tests share it: each compile costs 1-60 s
    warm, minutes cold)."""
    if which not in _COMPILED:
        library, seconds = compile_kernel(which)
        start = time.perf_counter()
        link_log, cubin = link(library)
        row = analyse(KERNELS[which], cubin, link_log)
        row["compile_s"] = round(seconds, 1)
        row["link_s"] = round(time.perf_counter() - start, 1)
        _COMPILED[which] = {"row": row, "library": library, "cubin": cubin, "log": link_log}
    return _COMPILED[which]


def in_child(module: str, function: str, *args, timeout: float = 3600):
    """`tools.<module>.function(*args)` run in a fresh Python process, its result passed back as
    JSON; an ImportError there (no NVVM, no nvJitLink) is raised again here. The child ends
    without the interpreter's teardown once the result is written. Why: the compilers' objects
    (NVVM programs, LLVM modules, nvJitLink state) are freed whenever a garbage collection
    reaches them, and once that aborted a CI test process (SIGABRT, minutes later, in an
    unrelated CPU test) after these compiles had passed; in a child they never outlive the
    compile, and a crash would name the compile that caused it. The child runs with `-P`: the
    current folder (the repository root under pytest) is not put on sys.path, where its cule_py
    would shadow the installed copy the tests check."""
    import tools

    out = pathlib.Path(os.environ.get("TMPDIR", "/tmp")) / f"cule_py_child_{os.getpid()}.json"
    code = (tools.child_prelude()
            + "import json, os, sys\n"
            f"from tools import {module}\n"
            "try:\n"
            f"    result = {{'value': {module}.{function}(*{list(args)!r})}}\n"
            "except ImportError as err:\n"
            "    result = {'import_error': str(err)}\n"
            f"open({str(out)!r}, 'w').write(json.dumps(result))\n"
            "sys.stdout.flush(); sys.stderr.flush()\n"
            "os._exit(0)\n")
    try:
        done = subprocess.run([sys.executable, "-P", "-c", code], capture_output=True, text=True,
                              timeout=timeout)
        if done.returncode != 0 or not out.exists():
            raise RuntimeError(f"{module}.{function}{args} failed in its child process "
                               f"(exit {done.returncode}):\n{done.stdout[-3000:]}"
                               f"{done.stderr[-6000:]}")
        result = json.loads(out.read_text())
    finally:
        out.unlink(missing_ok=True)
    if "import_error" in result:
        raise ImportError(result["import_error"])
    return result["value"]


# Kernels that are the agent step's body under a register cap. Under LTO the cap is only the
# linker's -maxrregcount (the LTO IR is the same), so their rows come from the step's one
# compile linked under the cap: the registers and spill bytes of their own compiles
# (agent_step_cuda_lean: 64 registers, 3,284/7,560 B of spill stores/loads either way), for a
# third of the compile time.
CAPPED_STEPS = {"step128": 128, "step64": 64}


def compiled_row(which: str) -> dict:
    """analyse's row of kernel `which` (compile_s and link_s included), compiled in a child
    process (in_child): for tests, which keep the compilers' objects out of their own process."""
    return compiled_rows([which])[which]


def compiled_rows(whiches) -> dict:
    """{which: compiled_row(which)} of several kernels, compiled in one child process, so that
    the capped steps (CAPPED_STEPS) share the step's compile."""
    return in_child("gpu_model", "_compiled_rows_here", list(whiches))


def _compiled_rows_here(whiches) -> dict:
    rows = {}
    for which in whiches:
        if which not in CAPPED_STEPS:
            rows[which] = compiled_kernel(which)["row"]
            continue
        done = compiled_kernel("step")
        start = time.perf_counter()
        link_log, cubin = link(done["library"], [f"-maxrregcount={CAPPED_STEPS[which]}"])
        row = analyse(KERNELS["step"], cubin, link_log)
        row["kernel"] = KERNELS[which]
        row["compile_s"] = 0.0          # the step's compile, counted in its own row
        row["link_s"] = round(time.perf_counter() - start, 1)
        rows[which] = row
    return rows


def capped_rows(which: str, caps, log=print) -> list[dict]:
    """Kernel `which` linked again under each register cap of `caps` (the linker's
    -maxrregcount, what `cuda.jit(max_registers=N)` asks of nvJitLink under LTO): analyse's
    rows, each with its "cap". The compile is compiled_kernel's, so only the link repeats."""
    done = compiled_kernel(which)
    rows = []
    for cap in caps:
        start = time.perf_counter()
        link_log, cubin = link(done["library"], [f"-maxrregcount={cap}"])
        row = analyse(KERNELS[which], cubin, link_log)
        row["cap"] = cap
        row["link_s"] = round(time.perf_counter() - start, 1)
        log(f"{row['kernel']} capped at {cap}: {row['registers']} registers, spill stores "
            f"{row.get('spill_store_bytes')} B, SASS {row['sass']:,}, "
            f"{row['spill_instructions']} spill instructions")
        rows.append(row)
    return rows


def run_static(kernels, cubin_dir=None, keep=None, log=print, caps=()) -> list[dict]:
    rows = []
    for which in kernels:
        name = KERNELS[which]
        if cubin_dir:
            matches = sorted(pathlib.Path(cubin_dir).glob(f"*{name}*.cubin"))
            if not matches:
                raise FileNotFoundError(f"no *{name}*.cubin in {cubin_dir}")
            row = analyse(name, matches[0].read_bytes())
            row["source"] = str(matches[0])
        else:
            done = compiled_kernel(which)
            row = done["row"]
            if keep:
                pathlib.Path(keep).mkdir(parents=True, exist_ok=True)
                (pathlib.Path(keep) / f"{name}.cubin").write_bytes(done["cubin"])
                (pathlib.Path(keep) / f"{name}.log").write_text(done["log"])
        log(f"{name}: {row['registers']} registers, frame {row['frame_bytes']} B, "
            f"SASS {row['sass']:,}, {row['spill_instructions']} spill instructions"
            + (f", compiled in {row['compile_s']:.0f} s + linked in {row['link_s']:.0f} s"
               if "compile_s" in row else ""))
        rows.append(row)
        if caps and not cubin_dir:
            rows.extend(capped_rows(which, caps, log))
    return rows


# ---------------------------------------------------------------------------------------------
# Occupancy and memory
# ---------------------------------------------------------------------------------------------
H100 = {"sms": 132, "schedulers_per_sm": 4, "registers_per_sm": 65536, "max_warps_per_sm": 64,
        "max_blocks_per_sm": 32, "register_unit": 256, "max_registers": 255,
        "clock_ghz": 1.98, "memory_bytes": 80 * 10**9}   # clock: the SXM5's boost
BATCHES = (4096, 16384, 65536)


def warps_per_sm(registers: int, threads_per_block: int, gpu: dict = H100) -> int:
    """Warps an SM can hold at once for a kernel of `registers` per thread (shared memory unused
    by the kernels): whole blocks, registers allocated per warp in units of register_unit."""
    warps_per_block = math.ceil(threads_per_block / 32)
    per_warp = math.ceil(registers * 32 / gpu["register_unit"]) * gpu["register_unit"]
    by_registers = (gpu["registers_per_sm"] // (per_warp * warps_per_block)) if registers else \
        gpu["max_blocks_per_sm"]
    blocks = min(by_registers, gpu["max_warps_per_sm"] // warps_per_block,
                 gpu["max_blocks_per_sm"])
    return blocks * warps_per_block


def occupancy(registers: int, threads_per_block: int, consoles: int, gpu: dict = H100) -> dict:
    """Warps resident per scheduler for one launch over `consoles` (one thread each): the grid's
    warps spread over the SMs, capped by what registers allow. Assumes blocks spread evenly
    (the block scheduler fills SMs round-robin)."""
    schedulers = gpu["sms"] * gpu["schedulers_per_sm"]
    blocks = math.ceil(consoles / threads_per_block)
    warps_per_block = math.ceil(threads_per_block / 32)
    limit_sm = warps_per_sm(registers, threads_per_block, gpu)
    blocks_per_sm = min(math.ceil(blocks / gpu["sms"]), limit_sm // warps_per_block)
    resident = blocks_per_sm * warps_per_block
    waves = math.ceil(blocks / (gpu["sms"] * (limit_sm // warps_per_block)))
    return {"consoles": consoles, "warps": math.ceil(consoles / 32), "blocks": blocks,
            "warps_per_sm_limit": limit_sm,
            "warps_per_scheduler_limit": limit_sm / gpu["schedulers_per_sm"],
            "resident_warps_per_scheduler": resident / gpu["schedulers_per_sm"],
            "waves": waves, "sms_busy": min(blocks, gpu["sms"]),
            "theoretical_occupancy": limit_sm / gpu["max_warps_per_sm"],
            "even_share_warps_per_scheduler": consoles / 32 / schedulers}


def memory(game: str = "pong", sizes=(16, 64)) -> dict:
    """Bytes per console of the agent-step env and of a raw AtariEmulator (the runbook's own
    measure, on the CPU backend: the same arrays as the GPU backend allocates, here in host
    memory; a batch also holds a few fixed tables)."""
    from tools.gpu_runbook.preflight import memory_per_console

    return memory_per_console("cpu", game=game, sizes=sizes)


def largest_batch(bytes_per_console: float, gpu: dict = H100, usable: float = 0.9) -> int:
    """Consoles that fit in `usable` of the GPU's memory (the runbook's preflight uses 90% of the
    free memory the same way)."""
    return int(usable * gpu["memory_bytes"] // bytes_per_console)


def occupancy_table(kernel_registers: dict, threads_per_block: int, batches) -> list[dict]:
    rows = []
    for kernel, registers in kernel_registers.items():
        for n in batches:
            rows.append({"kernel": kernel, "registers": registers,
                         "threads_per_block": threads_per_block,
                         **occupancy(registers, threads_per_block, n)})
    return rows


def occupancy_markdown(rows: list[dict], mem: dict | None) -> str:
    lines = ["| kernel | registers | threads/block | consoles | blocks | SMs busy | resident "
             "warps/scheduler | limit warps/scheduler (theoretical occupancy) | waves |",
             "|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['kernel']} | {r['registers']} | {r['threads_per_block']} | "
                     f"{r['consoles']:,} | {r['blocks']:,} | {r['sms_busy']} | "
                     f"{r['resident_warps_per_scheduler']:g} | "
                     f"{r['warps_per_scheduler_limit']:g} ({r['theoretical_occupancy']:.1%}) | "
                     f"{r['waves']} |")
    if mem:
        lines += ["", "| batch kind | bytes per console | fixed bytes | largest batch in 90% of "
                  "80 GB |", "|---|---|---|---|"]
        for kind in ("agent_step_env", "emulator"):
            m = mem[kind]
            lines.append(f"| {kind} | {m['bytes_per_console']:,} | {m['fixed_bytes']:,} | "
                         f"{largest_batch(m['bytes_per_console']):,} |")
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------------
# Part B: the warp-lockstep model over a trace of the GPU's code path (tools/gpu_trace.py)
# ---------------------------------------------------------------------------------------------
# Path weights, in SASS instructions. The static part counts SASS per out-of-line function only
# (numba-cuda gives no line information for the inlined core), so the cost of a lockstep step's
# common part (fetch, loop), of one opcode's body, of one device access's path and of a colour
# clock of pixel drawing are parameters: DEFAULT_WEIGHTS is their assumed shape, and `calibrate`
# scales the first three together and sets "clock" so that the model reproduces what Nsight
# Compute counted on the kernels of 2ee2133 (CALIBRATION below). The weight-free figures (lanes
# advanced per step, distinct paths per step, accesses per frame) do not depend on them.
DEFAULT_WEIGHTS = {"step": 40, "opcode": 60, "device": 150, "clock": 6}
WEIGHT_KEYS = tuple(DEFAULT_WEIGHTS)
PATH_KEYS = ("step", "opcode", "device")


def _distinct_per_column(keys, active):
    """Distinct non-negative keys per column of a (lanes, steps) array among active lanes."""
    k = np.where(active, keys, -1)
    k = np.sort(k, axis=0)
    new = np.ones_like(k, dtype=bool)
    new[1:] = k[1:] != k[:-1]
    return (new & (k >= 0)).sum(axis=0)


def _longest_per_key(keys, values):
    """Per column, the sum over distinct non-negative keys of the largest value among the lanes
    holding that key (a loop inside a path runs as long as its longest lane)."""
    total = np.zeros(keys.shape[1], np.int64)
    for key in np.unique(keys[keys >= 0]):
        total += np.where(keys == key, values, 0).max(axis=0)
    return total


def lockstep_warp(segments: list) -> dict:
    """One warp's frame under SIMT lockstep as the decoded core runs: step k, every lane still in
    the frame executes its k-th 6507 instruction. A step costs its common part once, each
    distinct opcode's body once (the union of the lanes' paths through the dispatch), each
    distinct device register accessed once (the TIA or RIOT access takes a path per register),
    and the pixel drawing that a device access does as long as its longest lane, per register.
    Also the min-PC schedule (only the lanes at the smallest PC advance) as the steps it takes.
    `segments`: per lane the (n, COLUMNS) records of the frame.

    The cost is linear in the weights, so this returns per weight its count: "thread" (summed
    over lanes: what the lanes execute) and "warp" (what the warp issues), and "lane_thread" per
    lane (a warp of 32 copies of a lane issues exactly that lane's count)."""
    from tools import gpu_trace as T

    lanes = len(segments)
    steps = max(len(seg) for seg in segments)
    op = np.full((lanes, steps), -1, np.int64)
    device = np.full((lanes, steps), -1, np.int64)
    render = np.zeros((lanes, steps), np.int64)
    pcs = np.full((lanes, steps), -1, np.int64)
    for lane, seg in enumerate(segments):
        n = len(seg)
        op[lane, :n] = seg[:, T.R_OP]
        pcs[lane, :n] = seg[:, T.R_PC]
        device[lane, :n] = seg[:, T.R_DEVICE]
        render[lane, :n] = seg[:, T.R_RENDER]
    active = op >= 0
    device = np.where(active, device, -1)
    render_key = np.where(render > 0, np.maximum(device, 0), -1)   # drawing without an access: 0
    executed = active.sum(axis=1)
    accesses = (device >= 0).sum(axis=1)
    clocks = render.sum(axis=1)
    lane_thread = np.stack([executed, executed, accesses, clocks], 1)
    thread = lane_thread.sum(axis=0)
    warp = np.array([steps, _distinct_per_column(op, active).sum(),
                     _distinct_per_column(device, device >= 0).sum(),
                     _longest_per_key(render_key, render).sum()])
    # min-PC: each step the lanes whose next instruction has the smallest PC advance.
    positions = np.zeros(lanes, np.int64)
    lengths = np.array([len(seg) for seg in segments])
    min_pc_steps = 0
    while True:
        left = positions < lengths
        if not left.any():
            break
        current = np.where(left, pcs[np.arange(lanes), np.minimum(positions, steps - 1)],
                           1 << 30)
        positions += current == current.min()
        min_pc_steps += 1
    return {"instructions": int(active.sum()), "steps": steps, "min_pc_steps": min_pc_steps,
            "thread": thread.astype(np.float64), "warp": warp.astype(np.float64),
            "lane_thread": lane_thread.astype(np.float64),
            "distinct_opcodes": float(_distinct_per_column(op, active).mean()),
            "steps_with_render": int((render.max(axis=0) > 0).sum()),
            "render_clocks": int(render.sum()), "render_max_sum": int(render.max(axis=0).sum())}


# The schedules a warp can run the decoded core under (kernels/gpu/warp_schedule.py): "free" is
# today's (every lane runs its own next instruction, the warp issues the union of the paths);
# "min_pc" runs only the lanes whose next instruction has the smallest PC; "scanline" only the
# lanes on the earliest scanline, and among them those at the smallest PC.
SCHEDULES = ("free", "min_pc", "scanline")


def scheduled_warp(segments: list, schedule: str) -> tuple[np.ndarray, int]:
    """A warp's frame under a min-PC schedule: per weight the warp's count (as lockstep_warp's
    "warp": steps, distinct opcodes, distinct device registers, the longest drawing per
    register, summed over the scheduled steps) and the number of steps. The lanes of a step
    are at one PC, so they share one opcode (and, but for indexing, one register), and the
    step's drawing lasts as long as its longest lane's."""
    from tools import gpu_trace as T

    lanes = len(segments)
    lengths = np.array([len(seg) for seg in segments])
    steps = int(lengths.max())
    op = np.full((lanes, steps + 1), -1, np.int64)
    device = np.full((lanes, steps + 1), -1, np.int64)
    render = np.zeros((lanes, steps + 1), np.int64)
    key = np.full((lanes, steps + 1), 1 << 40, np.int64)
    for lane, seg in enumerate(segments):
        n = len(seg)
        op[lane, :n] = seg[:, T.R_OP]
        device[lane, :n] = seg[:, T.R_DEVICE]
        render[lane, :n] = seg[:, T.R_RENDER]
        key[lane, :n] = seg[:, T.R_PC] & 0x1FFF
        if schedule == "scanline":
            # The scanline an instruction starts on, counted from the frame's start (every lane
            # starts its frame at cycle 0 of the frame loop).
            start = np.concatenate([[0], np.cumsum(seg[:, T.R_CYCLES])[:-1]])
            key[lane, :n] |= (3 * start // 228) << 13
    rows = np.arange(lanes)
    position = np.zeros(lanes, np.int64)
    counts = np.zeros(4)
    taken = 0
    while True:
        current = key[rows, position]
        low = current.min()
        if low >= 1 << 40:
            break
        run = current == low
        ops = op[rows[run], position[run]]
        devs = device[rows[run], position[run]]
        drawn = render[rows[run], position[run]]
        counts[0] += 1
        counts[1] += len(np.unique(ops))
        counts[2] += len(np.unique(devs[devs >= 0]))
        if drawn.any():
            # as lockstep_warp: drawing without an access of its own counts under register 0
            drawing_key = np.where(drawn > 0, np.maximum(devs, 0), -1)
            counts[3] += sum(drawn[drawing_key == k].max()
                             for k in np.unique(drawing_key[drawing_key >= 0]))
        position += run
        taken += 1
    return counts, taken


def weight_vector(weights: dict) -> np.ndarray:
    return np.array([float(weights[k]) for k in WEIGHT_KEYS])


def lockstep_counts(traced: dict, warp: int = 32, schedules=()) -> dict:
    """lockstep_warp over every warp and traced frame of a trace: totals and per warp-frame
    counts (weight-free), and per console-frame accesses; for each of `schedules` (SCHEDULES
    but "free") also the warp-frames' counts under it, as `warp_counts_<schedule>`."""
    from tools import gpu_trace as T

    rec, ends = traced["records"], traced["ends"]
    consoles, frames = ends.shape
    totals = collections.Counter()
    warp_counts, thread_counts, lane_counts = [], [], []
    scheduled = {name: [] for name in schedules if name != "free"}
    starts = np.zeros(consoles, np.int64)
    for f in range(frames):
        for first in range(0, consoles, warp):
            lanes = range(first, min(first + warp, consoles))
            segments = [rec[c, starts[c]:ends[c, f]] for c in lanes]
            if max(len(s) for s in segments) == 0:
                continue
            one = lockstep_warp(segments)
            for name, rows in scheduled.items():
                rows.append(scheduled_warp(segments, name)[0])
            warp_counts.append(one.pop("warp"))
            thread_counts.append(one.pop("thread"))
            lane_counts.append(one.pop("lane_thread"))
            totals.update(one)
            totals["warps"] += 1
            totals["lanes"] += len(segments)
        starts = ends[:, f].copy()
    used = [rec[c, :ends[c, -1]] for c in range(consoles)]
    every = np.concatenate(used)
    columns = {"instructions": None, "tia_reads": T.R_TIA_READ, "tia_writes": T.R_TIA_WRITE,
               "riot_reads": T.R_RIOT_READ, "riot_writes": T.R_RIOT_WRITE,
               "cart_accesses": T.R_CART, "render_clocks": T.R_RENDER, "cpu_cycles": T.R_CYCLES}
    sums = {k: (len(every) if c is None else float(every[:, c].sum())) for k, c in columns.items()}
    sums["instructions_that_render"] = float((every[:, T.R_RENDER] > 0).sum())
    out = {"consoles": consoles, "frames": frames, "totals": dict(totals), "sums": sums,
           "console_frames": consoles * frames, "warp_counts": np.array(warp_counts),
           "thread_counts": np.array(thread_counts),
           "lane_counts": np.concatenate(lane_counts)}
    for name, rows in scheduled.items():
        out[f"warp_counts_{name}"] = np.array(rows)
    return out


def _array_keys(counts: dict) -> list[str]:
    return [k for k in counts if k.startswith("warp_counts") or k in ("thread_counts",
                                                                       "lane_counts")]


def merge_counts(parts: list[dict]) -> dict:
    """Counts of several traces (chunks of consoles) as one."""
    out = {"consoles": sum(p["consoles"] for p in parts), "frames": parts[0]["frames"],
           "console_frames": sum(p["console_frames"] for p in parts)}
    totals, sums = collections.Counter(), collections.Counter()
    for p in parts:
        totals.update(p["totals"])
        sums.update(p["sums"])
    out["totals"], out["sums"] = dict(totals), dict(sums)
    for key in _array_keys(parts[0]):
        out[key] = np.concatenate([p[key] for p in parts])
    return out


def lockstep_model(traced_or_counts: dict, weights: dict = DEFAULT_WEIGHTS,
                   warp: int = 32) -> dict:
    """Per console-frame counts and the lockstep figures over all warps and traced frames, from
    a trace (tools/gpu_trace.trace) or from lockstep_counts / merge_counts."""
    counts = traced_or_counts if "warp_counts" in traced_or_counts else \
        lockstep_counts(traced_or_counts, warp)
    totals, cf = counts["totals"], counts["console_frames"]
    w = weight_vector(weights)
    thread_cost = float((counts["thread_counts"] @ w).sum())
    warp_cost = float((counts["warp_counts"] @ w).sum())
    lanes_per_warp = totals["lanes"] / max(totals["warps"], 1)
    return {
        "consoles": counts["consoles"], "frames": counts["frames"], "warps": totals["warps"],
        "per_console_frame": {k: round(float(v) / cf, 1) for k, v in counts["sums"].items()},
        # All lanes still in the frame execute every step today: this is 32 x the frame-length
        # balance of a warp (mean / longest), the divergence is inside the step (weighted).
        "lanes_advanced_per_step": totals["instructions"] / max(totals["steps"], 1),
        "frame_balance": totals["instructions"] / max(totals["steps"] * lanes_per_warp, 1),
        "lanes_advanced_per_step_min_pc": totals["instructions"] / max(totals["min_pc_steps"], 1),
        "lanes_per_warp": lanes_per_warp,
        "distinct_opcodes_per_step": totals["distinct_opcodes"] / max(totals["warps"], 1),
        "pixel_loop_efficiency": totals["render_clocks"] / max(
            totals["render_max_sum"] * lanes_per_warp, 1),
        "active_threads_per_warp_instruction": thread_cost / max(warp_cost, 1),
        "warp_instructions_per_console_frame": warp_cost / cf,
        "thread_instructions_per_console_frame": thread_cost / cf,
        "weights": dict(weights),
        "schedules": {
            key[len("warp_counts_"):]: {
                "warp_instructions_per_console_frame": float(
                    (counts[key] @ w).sum() + SCHEDULE_OVERHEAD[key[len("warp_counts_"):]]
                    * counts[key][:, 0].sum()) / cf,
                "lanes_advanced_per_step": totals["instructions"] / max(
                    counts[key][:, 0].sum(), 1)}
            for key in counts if key.startswith("warp_counts_")},
    }


# ---------------------------------------------------------------------------------------------
# Part C: a launch's time, and the calibration on the kernels of 2ee2133
# ---------------------------------------------------------------------------------------------
# What was recorded on an H100 80GB HBM3 with the kernels of 2ee2133 (benchmarks/RESULTS.md,
# 2026-11-23; files under benchmarks/results/2026-11-23-h100/): Nsight Compute on one act()
# launch of drive_cuda, Pong, 4,096 consoles after 20 random frames, and the raw act() frames/s
# of Pong after the same warm-up (decorrelated, and every console a copy of one).
CALIBRATION = {
    "commit": "2ee2133", "game": "pong", "warmup": 20, "registers": 255,
    "threads_per_block": 128, "ncu_consoles": 4096,
    "warp_instructions": 1.78e9,                   # smsp__inst_executed.sum, one frame
    "active_threads_per_warp_instruction": 5.35,   # smsp__thread_inst_executed_per_inst_executed
    "ipc_one_warp": 1 / 6.4,                       # one issue every 6.4 cycles, one warp/scheduler
    "fps": {"decorrelated": {4096: 90_895, 16384: 283_860, 65536: 363_108},
            "identical": {4096: 565_726, 16384: 2_280_368}},
}
# What the H100 gave for the kernels of e9853a1 (benchmarks/RESULTS.md, 2026-11-26;
# files under benchmarks/results/2026-11-26-h100-runbook/): Nsight Compute on one act() launch
# of drive_cuda, Pong after 300 random frames. ncu locks the clocks to base (1.59 GHz on an
# H100 SXM), so its launch times are taken at that clock (`calibrate --recorded e9853a1`
# fits with it). ipc_one_warp: the identical launch's issue-active share at 16,384 consoles
# (512 warps on 528 schedulers, one warp each).
RECORDED_E9853A1 = {
    "commit": "e9853a1", "game": "pong", "warmup": 300, "registers": 255,
    "threads_per_block": 128, "ncu_consoles": 16384, "clock_hz": 1.59e9,
    "warp_instructions": 18_176_195_448,
    "active_threads_per_warp_instruction": 1.79,
    "ipc_one_warp": 0.1477,
    "fps": {"decorrelated": {16384: 16384 / 0.23420288, 65536: 65536 / 0.63435562},
            "identical": {16384: 16384 / 0.00876768, 65536: 65536 / 0.02074038}},
}
RECORDED = {"2ee2133": CALIBRATION, "e9853a1": RECORDED_E9853A1}
# The figures the calibration fits (the rest are predictions, compared in `calibrate`).
FITTED = ("warp instructions per console-frame", "active threads per warp instruction",
          "decorrelated 65,536")

# The model as frozen on 2026-11-25 by `calibrate` on tools/gpu_model_calibration.json (a trace
# of 2ee2133's decoded core, see there); `trace` predicts with it. path_scale multiplies
# DEFAULT_WEIGHTS' path weights (all but "clock"), clock is the SASS per colour clock drawn,
# ipc(k) = ipc_one_warp x k ** ipc_exponent issues per cycle for k resident warps per scheduler.
FROZEN = {
    'path_scale': 0.09169367321003355,
    'clock': 46.895093078961885,
    'ipc_one_warp': 0.15625,
    'ipc_exponent': 0.7234911918640137,
    'clock_hz': 1980000000.0,
    'relative_error': 0.5361575559975055,
    'weights': {'step': 3.6677469284013418, 'opcode': 5.501620392602013, 'device': 13.754050981505033, 'clock': 46.895093078961885},
}
CALIBRATION_FILE = REPO / "tools" / "gpu_model_calibration.json"
CALIBRATION_FILES = {"2ee2133": CALIBRATION_FILE,
                     "e9853a1": REPO / "tools" / "gpu_model_calibration_e9853a1.json"}


def calibrated_weights(path_scale: float, clock: float) -> dict:
    w = {k: (v * path_scale if k in PATH_KEYS else v) for k, v in DEFAULT_WEIGHTS.items()}
    w["clock"] = clock
    return w


def fit_weights(counts: dict, warp_instructions_per_console_frame: float,
                active_threads: float) -> tuple[float, float]:
    """(path_scale, clock) such that the model's warp and thread instructions per console-frame
    equal the measured ones: two linear equations in two unknowns."""
    cf = counts["console_frames"]
    base = weight_vector({k: (v if k in PATH_KEYS else 0.0) for k, v in DEFAULT_WEIGHTS.items()})
    clock_only = weight_vector({k: float(k == "clock") for k in WEIGHT_KEYS})
    warp_sum = counts["warp_counts"].sum(axis=0) / cf
    thread_sum = counts["thread_counts"].sum(axis=0) / cf
    a = np.array([[warp_sum @ base, warp_sum @ clock_only],
                  [thread_sum @ base, thread_sum @ clock_only]])
    b = np.array([warp_instructions_per_console_frame,
                  warp_instructions_per_console_frame * active_threads])
    scale, clock = np.linalg.solve(a, b)
    return float(scale), float(clock)


def launch_seconds(warp_costs: np.ndarray, consoles: int, registers: int,
                   threads_per_block: int, ipc_one_warp: float, ipc_exponent: float,
                   clock_hz: float, gpu: dict = H100) -> float:
    """Time of one launch over `consoles` whose warps cost `warp_costs` warp instructions each
    (in launch order): blocks go to the SMs round-robin up to the residency that registers
    allow, then to whichever slot frees first; warp j of a block sits on scheduler j % 4 of its
    SM; a scheduler shares its issue rate ipc(k) = ipc_one_warp x k ** ipc_exponent (at most 1)
    among its k live warps; a block leaves, freeing its slot, when its last warp ends."""
    per_block = math.ceil(threads_per_block / 32)
    slots = warps_per_sm(registers, threads_per_block, gpu) // per_block
    blocks = math.ceil(consoles / threads_per_block)
    sms, schedulers = gpu["sms"], gpu["schedulers_per_sm"]
    costs = np.zeros(blocks * per_block)
    take = min(len(warp_costs), len(costs))
    costs[:take] = warp_costs[:take]
    costs = costs.reshape(blocks, per_block)
    resident = sms * slots                         # resident index r: slot r // sms, SM r % sms
    sm_of = np.arange(resident) % sms
    scheduler_of = np.arange(per_block) % schedulers
    block_of = np.full(resident, -1)
    first = min(blocks, resident)
    block_of[:first] = np.arange(first)
    remaining = np.zeros((resident, per_block))
    remaining[:first] = costs[:first]
    next_block, t = first, 0.0
    while True:
        live = remaining > 0
        if not live.any():
            break
        k = np.zeros((sms, schedulers))
        np.add.at(k, (np.repeat(sm_of, per_block), np.tile(scheduler_of, resident)),
                  live.ravel())
        k = np.maximum(k[sm_of][:, scheduler_of], 1)
        rate = np.minimum(1.0, ipc_one_warp * k ** ipc_exponent) / k
        until = np.where(live, remaining / rate, np.inf)
        step = until.min()
        t += step
        remaining = np.where(live & (until > step * (1 + 1e-9)), remaining - rate * step, 0.0)
        ended = (block_of >= 0) & ~(remaining > 0).any(axis=1)
        for r in np.flatnonzero(ended):
            if next_block < blocks:
                block_of[r] = next_block
                remaining[r] = costs[next_block]
                next_block += 1
            else:
                block_of[r] = -1
    return t / clock_hz


# SASS a scheduled step adds, counted in drive_cuda's SASS (sm_90a): from the loop's head to
# the branch on the minimum. On 2026-11-27: 25 for min_pc (the vote, the key's two state loads,
# five shuffles and minimums, the compare) and 38 for scanline (its key in 32-bit arithmetic, a
# multiply-high for the division by 228; 65 with the 64-bit division of 85d7cf4). On 2026-11-28:
# one REDUX for the vote and the shuffles, the plan read before the loop (2026-11-28), and
# the scanline key's 8 instructions predicated rather than branched, so min_pc issues them too:
# 24 for both.
SCHEDULE_OVERHEAD = {"min_pc": 24, "scanline": 24}


def predict_fps(counts: dict, weights: dict, consoles: int, *, identical: bool = False,
                registers: int = 255, threads_per_block: int = 128, ipc_one_warp: float,
                ipc_exponent: float, clock_hz: float, draws: int = 5, seed: int = 0,
                schedule: str = "free") -> float:
    """Frames/s of one act() over `consoles`: warps drawn at random from the traced warp-frames
    (decorrelated) or every warp one traced lane's own cost (identical consoles: a warp of
    copies issues what one lane executes), timed by launch_seconds; median of `draws`. Under a
    schedule other than free, the warp-frames' counts under it, plus its SCHEDULE_OVERHEAD a step
    (identical consoles: no change, all lanes are at one PC anyway)."""
    rng = np.random.default_rng(seed)
    w = weight_vector(weights)
    if schedule == "free":
        warp_pool = counts["warp_counts"] @ w
    else:
        scheduled = counts[f"warp_counts_{schedule}"]
        warp_pool = scheduled @ w + SCHEDULE_OVERHEAD[schedule] * scheduled[:, 0]
    lane_pool = counts["lane_counts"] @ w
    warps = math.ceil(consoles / 32)
    times = []
    for _ in range(draws):
        if identical:
            costs = np.full(warps, rng.choice(lane_pool))
        else:
            costs = rng.choice(warp_pool, warps)
        times.append(launch_seconds(costs, consoles, registers, threads_per_block, ipc_one_warp,
                                    ipc_exponent, clock_hz))
    return consoles / float(np.median(times))


def calibrate(counts: dict, recorded: dict = CALIBRATION, clock_hz: float = 1.98e9) -> dict:
    """Fit path_scale and clock to ncu's instructions, ipc_exponent to the 65,536-console
    figure; predict the other recorded figures with them."""
    consoles = recorded["ncu_consoles"]
    w_measured = recorded["warp_instructions"] / consoles
    scale, clock = fit_weights(counts, w_measured,
                               recorded["active_threads_per_warp_instruction"])
    weights = calibrated_weights(scale, clock)
    common = dict(registers=recorded["registers"], threads_per_block=recorded["threads_per_block"],
                  ipc_one_warp=recorded["ipc_one_warp"], clock_hz=clock_hz)
    target = recorded["fps"]["decorrelated"][65536]
    lo, hi = 0.0, 1.0
    for _ in range(20):                                # fps grows with the exponent
        mid = (lo + hi) / 2
        if predict_fps(counts, weights, 65536, ipc_exponent=mid, **common) < target:
            lo = mid
        else:
            hi = mid
    exponent = (lo + hi) / 2
    model = lockstep_model(counts, weights)
    rows = [{"figure": "warp instructions per console-frame", "recorded": w_measured,
             "model": model["warp_instructions_per_console_frame"]},
            {"figure": "active threads per warp instruction",
             "recorded": recorded["active_threads_per_warp_instruction"],
             "model": model["active_threads_per_warp_instruction"]}]
    fps = {}
    for kind, by_batch in recorded["fps"].items():
        for n, value in by_batch.items():
            fps[kind, n] = predict_fps(counts, weights, n, identical=kind == "identical",
                                       ipc_exponent=exponent, **common)
            rows.append({"figure": f"{kind} {n:,}", "recorded": value, "model": fps[kind, n]})
    for n in sorted(set(recorded["fps"]["identical"]) & set(recorded["fps"]["decorrelated"])):
        rows.append({"figure": f"identical / decorrelated {n:,}",
                     "recorded": recorded["fps"]["identical"][n]
                     / recorded["fps"]["decorrelated"][n],
                     "model": fps["identical", n] / fps["decorrelated", n]})
    for r in rows:
        r["ratio"] = r["model"] / r["recorded"]
        r["fitted"] = r["figure"] in FITTED
    predicted = [r for r in rows if not r["fitted"]]
    return {"path_scale": scale, "clock": clock, "ipc_one_warp": recorded["ipc_one_warp"],
            "ipc_exponent": exponent, "clock_hz": clock_hz, "weights": weights, "rows": rows,
            # the range given with predictions: the worst miss among the predicted figures
            "relative_error": max(abs(math.log(r["ratio"])) for r in predicted),
            "model": {k: v for k, v in model.items() if k != "weights"},
            "recorded_at": {k: recorded[k] for k in ("commit", "game", "warmup")}}


def calibration_markdown(cal: dict) -> str:
    lines = [f"Fitted: path weights x {cal['path_scale']:.2f} of DEFAULT_WEIGHTS, "
             f"{cal['clock']:.1f} SASS per colour clock drawn, ipc(k) = "
             f"{cal['ipc_one_warp']:.3f} x k^{cal['ipc_exponent']:.2f}, clock "
             f"{cal['clock_hz'] / 1e9:.2f} GHz.", "",
             "| figure | recorded | model | model / recorded | |", "|---|---|---|---|---|"]
    for r in cal["rows"]:
        fmt = (lambda v: f"{v:,.0f}") if r["recorded"] > 100 else (lambda v: f"{v:.2f}")
        lines.append(f"| {r['figure']} | {fmt(r['recorded'])} | {fmt(r['model'])} | "
                     f"{r['ratio']:.2f} | {'fitted' if r['fitted'] else 'predicted'} |")
    return "\n".join(lines)


def save_counts(path, counts: dict) -> None:
    """The weight-free counts of a trace as JSON (numbers only: what the model needs)."""
    arrays = _array_keys(counts)
    out = {k: v for k, v in counts.items() if k not in arrays}
    for key in arrays:
        out[key] = counts[key].astype(int).tolist()
    pathlib.Path(path).write_text(json.dumps(out, separators=(",", ":")))


def load_counts(path) -> dict:
    counts = json.loads(pathlib.Path(path).read_text())
    for key in _array_keys(counts):
        counts[key] = np.asarray(counts[key], np.float64)
    return counts


def trace_counts(game: str, consoles: int, frames: int, warmup: int, seed: int,
                 chunk: int = 128, schedules=()) -> dict:
    """lockstep_counts over `consoles` consoles traced `chunk` at a time (the records of 128
    consoles x 2 frames take ~230 MB), each chunk its own seed."""
    from tools import gpu_trace as T

    parts = []
    for i, first in enumerate(range(0, consoles, chunk)):
        traced = T.trace(game, min(chunk, consoles - first), frames, warmup, seed + i)
        parts.append(lockstep_counts(traced, schedules=schedules))
        del traced
    return merge_counts(parts)


def trace_markdown(results: dict) -> str:
    lines = ["| game | consoles x frames | 6507 instr. | TIA r/w | RIOT r/w | cart acc. | "
             "render clocks (instr. rendering) | frame balance in a warp | lanes/step min-PC | "
             "distinct opcodes/step | pixel-loop eff. | active threads/warp instr. | "
             "W warp instr./console-frame |", "|---" * 13 + "|"]
    for game, r in results.items():
        p = r["per_console_frame"]
        lines.append(
            f"| {game} | {r['consoles']} x {r['frames']} | {p['instructions']:,.0f} | "
            f"{p['tia_reads']:,.0f}/{p['tia_writes']:,.0f} | {p['riot_reads']:,.0f}/"
            f"{p['riot_writes']:,.0f} | {p['cart_accesses']:,.0f} | {p['render_clocks']:,.0f} "
            f"({p['instructions_that_render']:,.0f}) | {r['frame_balance']:.3f} | "
            f"{r['lanes_advanced_per_step_min_pc']:.1f} | {r['distinct_opcodes_per_step']:.1f} | "
            f"{r['pixel_loop_efficiency']:.2f} | {r['active_threads_per_warp_instruction']:.1f} | "
            f"{r['warp_instructions_per_console_frame']:,.0f} |")
    first = next(iter(results.values()), None)
    if first and first.get("prediction"):
        lines += ["", "| game | schedule | consoles | resident warps/scheduler | W warp "
                  "instr./console-frame | lanes/step | predicted frames/s (range) |",
                  "|---|---|---|---|---|---|---|"]
        for game, r in results.items():
            for p in r["prediction"]:
                schedule = p.get("schedule", "free")
                if schedule == "free":
                    w, lanes = r["warp_instructions_per_console_frame"], "all"
                else:
                    w = r["schedules"][schedule]["warp_instructions_per_console_frame"]
                    lanes = f"{r['schedules'][schedule]['lanes_advanced_per_step']:.1f}"
                lines.append(f"| {game} | {schedule} | {p['consoles']:,} | "
                             f"{p['warps_per_scheduler']:g} | {w:,.0f} | {lanes} | "
                             f"{p['fps'] / 1e6:.2f} M ({p['fps_low'] / 1e6:.2f}-"
                             f"{p['fps_high'] / 1e6:.2f}) |")
    return "\n".join(lines)


def frozen() -> dict:
    """The frozen calibration (FROZEN), or a clear error before it exists."""
    if FROZEN is None:
        raise SystemExit("the model is not calibrated yet: run `python -m tools.gpu_model calibrate`")
    return FROZEN


def _trace_command(args) -> int:
    cal = frozen() if args.weights == "" else None
    weights = dict(cal["weights"]) if cal else dict(DEFAULT_WEIGHTS)
    for item in filter(None, args.weights.split(",")):
        key, value = item.split("=")
        if key not in weights:
            raise SystemExit(f"unknown weight {key!r}; known: {', '.join(weights)}")
        weights[key] = float(value)
    results = {}
    for game in args.games:
        start = time.perf_counter()
        counts = trace_counts(game, args.consoles, args.frames, args.warmup, args.seed,
                              schedules=args.schedules)
        if args.save_counts:
            save_counts(pathlib.Path(args.save_counts.replace("{game}", game)), counts)
        model = lockstep_model(counts, weights)
        model["trace_s"] = round(time.perf_counter() - start, 1)
        model["prediction"] = []
        if cal:
            spread = math.exp(cal["relative_error"])
            for schedule in ["free"] + [x for x in args.schedules if x != "free"]:
                for n in args.batches:
                    occ = occupancy(args.registers, args.threads_per_block, n)
                    fps = predict_fps(counts, weights, n, registers=args.registers,
                                      threads_per_block=args.threads_per_block,
                                      ipc_one_warp=cal["ipc_one_warp"],
                                      ipc_exponent=cal["ipc_exponent"],
                                      clock_hz=cal["clock_hz"], schedule=schedule)
                    model["prediction"].append({
                        "schedule": schedule, "consoles": n,
                        "warps_per_scheduler": occ["resident_warps_per_scheduler"],
                        "fps": fps, "fps_low": fps / spread, "fps_high": fps * spread})
        results[game] = model
        print(f"{game}: traced and modelled in {model['trace_s']} s", flush=True)
    text = trace_markdown(results)
    print(text)
    if args.json:
        pathlib.Path(args.json).write_text(json.dumps(results, indent=1))
    if args.md:
        pathlib.Path(args.md).write_text(text + "\n")
    return 0


def _calibrate_command(args) -> int:
    recorded = RECORDED[args.recorded]
    counts_path = args.counts or str(CALIBRATION_FILES[args.recorded])
    if args.trace:
        counts = trace_counts(recorded["game"], args.consoles, args.frames,
                              recorded["warmup"], args.seed)
        save_counts(counts_path, counts)
    counts = load_counts(counts_path)
    clock_hz = args.clock_ghz * 1e9 if args.clock_ghz else recorded.get(
        "clock_hz", H100["clock_ghz"] * 1e9)
    cal = calibrate(counts, recorded, clock_hz=clock_hz)
    text = calibration_markdown(cal)
    print(text)
    if args.json:
        pathlib.Path(args.json).write_text(json.dumps(cal, indent=1, default=float))
    return 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    static = sub.add_parser("static", help="registers, spills, SASS per function")
    static.add_argument("--kernels", nargs="+", default=list(KERNELS), choices=list(KERNELS))
    static.add_argument("--cubin-dir", help="analyse the *<kernel>*.cubin files here instead of "
                        "compiling")
    static.add_argument("--keep", help="directory to keep the .ptx, .cubin and link logs in")
    static.add_argument("--json")
    static.add_argument("--md")
    static.add_argument("--max-registers", type=int, nargs="*", default=[],
                        help="also link each kernel under these register caps (rows with 'cap')")
    static.add_argument("--check-caps", action="store_true",
                        help="exit 1 when a kernel exceeds its register/spill cap")
    occ = sub.add_parser("occupancy", help="warps per scheduler by batch; memory per console")
    occ.add_argument("--static-json", help="static's --json output (registers per kernel)")
    occ.add_argument("--registers", type=int, nargs="*", default=[],
                     help="register counts to tabulate instead (or as well)")
    occ.add_argument("--threads-per-block", type=int,
                     default=int(settings.THREADS_PER_BLOCK.value()))
    occ.add_argument("--batches", type=int, nargs="+", default=list(BATCHES))
    occ.add_argument("--memory", action="store_true",
                     help="measure memory per console (CPU backend, pong, 16 and 64 consoles) "
                          "and add the largest batch to the table")
    occ.add_argument("--json")
    occ.add_argument("--md")
    tr = sub.add_parser("trace", help="the warp-lockstep model over a trace of the decoded core")
    tr.add_argument("--games", nargs="+", default=["pong"])
    tr.add_argument("--consoles", type=int, default=64, help="consoles per game (warps of 32)")
    tr.add_argument("--frames", type=int, default=2, help="traced frames")
    tr.add_argument("--warmup", type=int, default=300, help="random frames before tracing")
    tr.add_argument("--seed", type=int, default=0)
    tr.add_argument("--weights", default="",
                    help="path weights in SASS instead of the calibrated ones, e.g. "
                         "step=40,opcode=60,device=150,clock=6 (see DEFAULT_WEIGHTS)")
    tr.add_argument("--registers", type=int, default=255,
                    help="registers per thread for the occupancy of the prediction")
    tr.add_argument("--threads-per-block", type=int,
                    default=int(settings.THREADS_PER_BLOCK.value()))
    tr.add_argument("--batches", type=int, nargs="+", default=list(BATCHES))
    tr.add_argument("--schedules", nargs="*", default=[], choices=SCHEDULES,
                    help="also model these warp schedules (kernels/gpu/warp_schedule.py)")
    tr.add_argument("--save-counts", help="write the weight-free counts here as JSON "
                    "({game} is replaced by the game)")
    tr.add_argument("--json")
    tr.add_argument("--md")
    ca = sub.add_parser("calibrate", help="fit the model to what a GPU recorded (2ee2133, "
                                          "or the refit on e9853a1)")
    ca.add_argument("--recorded", choices=sorted(RECORDED), default="2ee2133",
                    help="which recorded run to fit: 2ee2133 (the frozen model) or e9853a1")
    ca.add_argument("--counts", default=None,
                    help="weight-free counts of the calibration trace (JSON; default: the "
                         "committed counts of --recorded)")
    ca.add_argument("--trace", action="store_true",
                    help="trace first (run with the package of --recorded's commit on "
                         "PYTHONPATH) and write the counts to --counts")
    ca.add_argument("--consoles", type=int, default=512)
    ca.add_argument("--frames", type=int, default=2)
    ca.add_argument("--seed", type=int, default=0)
    ca.add_argument("--clock-ghz", type=float, default=None,
                    help="SM clock of the recorded times (default: the record's, else boost)")
    ca.add_argument("--json")
    args = parser.parse_args(argv)

    if args.command == "trace":
        return _trace_command(args)
    if args.command == "calibrate":
        return _calibrate_command(args)

    if args.command == "static":
        rows = run_static(args.kernels, args.cubin_dir, args.keep, caps=args.max_registers)
        text = static_markdown(rows)
        print("\n" + text)
        if args.json:
            pathlib.Path(args.json).write_text(json.dumps(rows, indent=1))
        if args.md:
            pathlib.Path(args.md).write_text(text + "\n")
        if args.check_caps:
            problems = [p for r in rows if "cap" not in r for p in check_caps(r)]
            for p in problems:
                print("CAP EXCEEDED:", p)
            return 1 if problems else 0
        return 0

    registers = {}
    if args.static_json:
        for r in json.loads(pathlib.Path(args.static_json).read_text()):
            registers[r["kernel"]] = r["registers"]
    for n in args.registers:
        registers[f"{n} registers"] = n
    if not registers:
        parser.error("give --static-json or --registers")
    mem = memory() if args.memory else None
    batches = list(args.batches)
    if mem:
        batches.append(largest_batch(mem["agent_step_env"]["bytes_per_console"]))
    rows = occupancy_table(registers, args.threads_per_block, batches)
    text = occupancy_markdown(rows, mem)
    print(text)
    if args.json:
        pathlib.Path(args.json).write_text(json.dumps({"rows": rows, "memory": mem}, indent=1))
    if args.md:
        pathlib.Path(args.md).write_text(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
