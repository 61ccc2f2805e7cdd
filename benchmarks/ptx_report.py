"""Compile the flat-bus CUDA kernels to PTX (sm_90) and report what the GPU compiler makes of them.

Works without a GPU: the one device query numba-cuda makes while compiling device functions (the
compute capability) is stubbed, NVVM (numba-cuda[cu13]) writes the PTX, and `ptxas -v` assembles it
for registers, spills, stack/local memory and the SASS size; where ptxas is missing or older than
the PTX ISA NVVM wrote, nvJitLink from the nvidia-nvjitlink wheel (same release as NVVM) does.
Besides the package's own kernels it builds variants of the core and the flat bus inside this
script, to measure integer styles before one is adopted. Results: docs/performance-log.md,
"Integer style in the hot loop (measured)"; the rule they led to: docs/architecture.md, "The
integer rule".

    python -m benchmarks.ptx_report                     # package + all variants, both models
    python -m benchmarks.ptx_report --variants package  # just the package kernels
    python -m benchmarks.ptx_report --models nmos --variants u8-int32,assign
    python -m benchmarks.ptx_report --core-source /tmp/cpu6507_edit.py  # measure an edit first
    python -m benchmarks.ptx_report --check             # also run each variant with njit on the
                                                        # CPU against the package (functional test)
    python -m benchmarks.ptx_report --keep /tmp/ptx     # keep .ptx, .cubin and variant sources

Counts are static (whole kernel, every instruction once). "64-bit" means the instruction's type
suffix is .s64/.u64/.b64 (cvt: either side; mul.wide: by its result width). Pointers are 64-bit,
so a cvt and two adds per memory access are unavoidable; the rest is integer work numba widened.
"SASS" is the cubin's .text size / 16 bytes. Run from the repository root (or with the
repository on PYTHONPATH); with a GPU the driver's register count is reported as well.
"""

from __future__ import annotations

import argparse
import ast
import collections
import glob
import os
import pathlib
import re
import shutil
import struct
import subprocess
import sys
import sysconfig
import tempfile
import time
import types as pytypes

os.environ.setdefault("CULE_PY_NO_CACHE", "1")   # compile_ptx never caches; keep njit checks honest
if os.environ.get("NUMBA_ENABLE_CUDASIM", "0") not in ("", "0"):
    sys.exit("ptx_report: unset NUMBA_ENABLE_CUDASIM (the simulator cannot compile PTX)")

REPO = pathlib.Path(__file__).resolve().parents[1]

import numba  # noqa: E402
import numpy as np  # noqa: E402
from numba import cuda, int32, types  # noqa: E402
from numba.extending import register_jitable  # noqa: E402

CC = (9, 0)
HAVE_GPU = cuda.is_available()
if not HAVE_GPU:
    import numba.cuda.dispatcher as _cdisp

    # numba-cuda asks the driver for the compute capability while compiling device functions.
    _cdisp.get_current_device = lambda: pytypes.SimpleNamespace(compute_capability=CC)

from cule_py.kernels.cpu import cpu6507, flat_bus  # noqa: E402

SIGNATURE = (types.uint8[:, ::1], types.int32[:, ::1], types.int64, types.int64[::1],
             types.bool_[::1])
MODELS = {"nmos": cpu6507.NMOS, "ale": cpu6507.ALE}
PC, S, A, X, Y, P = range(6)

# --------------------------------------------------------------------------------------------
# Variants: (core source, int_style, options, description).
#   core None: cpu6507.py as it is; "strip": cpu6507.py with the np.int32(...) wrapped around
#   assignments and returns inside make_cpu taken off again (the style before 2026-11-22: only
#   u8/u16 narrow); "assign": every integer assignment/return inside make_cpu wrapped (bare names
#   too; idempotent on the package source). Options pick bus/runner alternatives below.
# --------------------------------------------------------------------------------------------
VARIANTS = {
    "package": (None, None, {}, "cule_py.kernels.cpu.flat_bus as shipped"),
    "core": (None, "int32", {}, "cpu6507.py as it is (or --core-source) on the script's flat bus"),
    "mask": ("strip", "mask", {},
             "u8/u16 plain masks, nothing else narrowed: numba's int64 everywhere"),
    "u8-int32": ("strip", "int32", {},
                 "u8/u16 return np.int32(v & mask), other assignments left as numba types them "
                 "(the style before 2026-11-22)"),
    "u8-uint32": ("strip", "uint32", {}, "u8/u16 return np.uint32 (registers uint32)"),
    "u8-int32+locals": ("strip", "int32", {"locals": True},
                        "u8-int32, core helpers as register_jitable(locals={name: int32})"),
    "assign": ("assign", "int32", {},
               "every assignment to an integer local and every return in the core is int32 "
               "(np.int32(...) or u8/u16); script copy of the flat bus"),
    "assign+clk": ("assign", "int32", {"clk32": True}, "assign, and clk kept np.int32 too"),
    "assign+uidx": ("assign", "int32", {"uidx": True},
                    "assign, bus and runner index arrays with np.uint32/np.uint64 (no "
                    "negative-index fix-up)"),
    "assign+loop32": ("assign", "int32", {"loop32": True}, "assign, instruction counter np.int32"),
    "assign+uidx+loop32": ("assign", "int32", {"uidx": True, "loop32": True},
                           "assign+uidx with an int32 counter"),
    "assign+row": ("assign", "int32", {"row": True, "uidx": True, "loop32": True},
                   "assign+uidx+loop32, the bus being the machine's memory row (memory[machine], "
                   "1-D) instead of (memory, machine)"),
    "assign+bcdtab": ("assign", "int32", {"bcdtab": True},
                      "assign, bcd_value/bcd_encode (// and % by constants) as 256-entry int32 "
                      "table reads (ALE decimal mode)"),
    "all": ("assign", "int32", {"row": True, "uidx": True, "loop32": True, "clk32": True,
                                "bcdtab": True},
            "assign+row+clk+bcdtab"),
}

# The core's integer locals (step and its helpers). `clk` is separate: a bus decides its clock
# type (a 2600 bus may count cycles in int64), so it is only narrowed with the clk32 option.
CORE_LOCALS = ("pc", "a", "x", "y", "s", "p", "v", "r", "t", "ea", "base", "lo", "hi", "zp",
               "ptr", "tlo", "thi", "op", "last", "dec", "mode", "operation", "cls", "sel",
               "flag", "offset", "target", "start_pc", "carry", "carry_in", "borrow", "binary",
               "total", "d", "n", "reg")
CORE_SOURCE = pathlib.Path(cpu6507.__file__)     # --core-source replaces it


def _narrowing_uint32():
    @register_jitable
    def u8(v):
        return np.uint32(v & 0xFF)

    @register_jitable
    def u16(v):
        return np.uint32(v & 0xFFFF)

    return u8, u16


def _is_int32_call(expr):
    return (isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute)
            and expr.func.attr == "int32" and isinstance(expr.func.value, ast.Name)
            and expr.func.value.id == "np" and len(expr.args) == 1)


class _Int32Assign(ast.NodeTransformer):
    """Inside make_cpu: `name = e` -> `name = np.int32(e)` for integer locals, `return e` ->
    `return np.int32(e)` (tuple elements one by one; calls, compares and bools left alone)."""

    def __init__(self, names):
        self.names = set(names)

    @staticmethod
    def _wrap(expr):
        call = ast.Call(func=ast.Attribute(value=ast.Name("np", ast.Load()), attr="int32",
                                           ctx=ast.Load()), args=[expr], keywords=[])
        return ast.copy_location(call, expr)

    def _wants(self, expr):
        if isinstance(expr, ast.Constant) and isinstance(expr.value, bool):
            return False
        if isinstance(expr, (ast.Compare, ast.BoolOp, ast.Call)):
            return False   # helper results are int32 at their own return
        return not (isinstance(expr, ast.Name) and expr.id not in self.names)

    def visit_Assign(self, node):
        self.generic_visit(node)
        target = node.targets[0]
        if (len(node.targets) == 1 and isinstance(target, ast.Name) and target.id in self.names
                and self._wants(node.value)):
            node.value = self._wrap(node.value)
        return node

    def visit_Return(self, node):
        self.generic_visit(node)
        if isinstance(node.value, ast.Tuple):
            node.value.elts = [self._wrap(e) if self._wants(e) else e for e in node.value.elts]
        elif node.value is not None and self._wants(node.value):
            node.value = self._wrap(node.value)
        return node


class _StripInt32(ast.NodeTransformer):
    """Inverse of _Int32Assign: `name = np.int32(e)` -> `name = e` (not for constants or array
    reads, which the core wrapped before 2026-11-22 too) and the same for returns."""

    def __init__(self, names):
        self.names = set(names)

    @staticmethod
    def _strip(expr):
        if _is_int32_call(expr) and not isinstance(expr.args[0], (ast.Constant, ast.Subscript)):
            return expr.args[0]
        return expr

    def visit_Assign(self, node):
        self.generic_visit(node)
        target = node.targets[0]
        if len(node.targets) == 1 and isinstance(target, ast.Name) and target.id in self.names:
            node.value = self._strip(node.value)
        return node

    def visit_Return(self, node):
        self.generic_visit(node)
        if isinstance(node.value, ast.Tuple):
            node.value.elts = [self._strip(e) for e in node.value.elts]
        elif node.value is not None:
            node.value = self._strip(node.value)
        return node


class _BcdTables(ast.NodeTransformer):
    """bcd_value(v) -> _BCD_VALUE[v & 0xFF], bcd_encode(n) -> _BCD_ENCODE[n & 0xFF]."""

    def visit_FunctionDef(self, node):
        self.generic_visit(node)
        table = {"bcd_value": "_BCD_VALUE", "bcd_encode": "_BCD_ENCODE"}.get(node.name)
        if table:
            arg = node.args.args[0].arg
            node.body = ast.parse(f"return np.int32({table}[{arg} & 0xFF])").body
        return node


def _bcd_tables():
    value = np.array([(v >> 4) * 10 + (v & 0x0F) for v in range(256)], np.int32)
    encode = np.array([(((n % 100) // 10) << 4) | (n % 10) for n in range(256)], np.int32)
    return {"_BCD_VALUE": value, "_BCD_ENCODE": encode}


def _rewritten_tree(kind, clk32, bcdtab):
    tree = ast.parse(CORE_SOURCE.read_text())
    names = CORE_LOCALS + (("clk",) if clk32 else ())
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name == "make_cpu":
            if kind == "assign":
                _Int32Assign(names).visit(node)
            elif kind == "strip":
                _StripInt32(names).visit(node)
            if bcdtab:
                _BcdTables().visit(node)
    return ast.fix_missing_locations(tree)


_CORE_MODULES = {}


def core_module(kind, clk32=False, bcdtab=False):
    """cpu6507 (kind None and no --core-source) or a rewritten copy of its source."""
    if kind is None and not bcdtab and CORE_SOURCE == pathlib.Path(cpu6507.__file__):
        return cpu6507
    key = (kind, clk32, bcdtab)
    if key not in _CORE_MODULES:
        tree = _rewritten_tree(kind, clk32, bcdtab)
        name = "cule_py.kernels._cpu6507_" + "_".join(map(str, key))
        module = pytypes.ModuleType(name)
        module.__package__ = "cule_py.kernels"
        module.__file__ = str(CORE_SOURCE)
        module.__dict__.update(_bcd_tables())
        exec(compile(tree, f"{CORE_SOURCE} ({kind or 'as is'})", "exec"), module.__dict__)
        _CORE_MODULES[key] = module
    return _CORE_MODULES[key]


def core_source_text(kind, clk32=False, bcdtab=False):
    """The source a variant's core is built from (for --keep)."""
    if kind is None and not bcdtab:
        return CORE_SOURCE.read_text()
    return ast.unparse(_rewritten_tree(kind, clk32, bcdtab))


def make_core(model, kind, int_style, options):
    """Bind make_cpu (the package's or a rewritten copy) to this script's flat bus."""
    read, write = make_bus(options)
    module = core_module(kind, bool(options.get("clk32")), bool(options.get("bcdtab")))
    saved_rj, saved_nh = module.register_jitable, module._narrowing_helpers
    try:
        if options.get("locals"):
            typed = {name: int32 for name in CORE_LOCALS}

            def register_jitable_int32(fn=None, **kwargs):
                kwargs = {"locals": dict(typed), **kwargs}
                if fn is None:
                    return lambda f: register_jitable(**kwargs)(f)
                return register_jitable(**kwargs)(fn)

            module.register_jitable = register_jitable_int32
        if int_style == "uint32":
            module._narrowing_helpers = lambda style: _narrowing_uint32()
            int_style = "int32"
        return module.make_cpu(read, write, model, int_style)
    finally:
        module.register_jitable, module._narrowing_helpers = saved_rj, saved_nh


def make_bus(options):
    if options.get("row"):
        # bus is the machine's own memory row (a 1-D view), taken once per kernel.
        @register_jitable
        def read(row, addr, clk, data_bus):
            return np.int32(row[np.uint32(addr)])

        @register_jitable
        def write(row, addr, value, clk):
            row[np.uint32(addr)] = value
            return clk
    elif options.get("uidx"):
        @register_jitable
        def read(bus, addr, clk, data_bus):
            memory, machine = bus
            return np.int32(memory[machine, np.uint32(addr)])

        @register_jitable
        def write(bus, addr, value, clk):
            memory, machine = bus
            memory[machine, np.uint32(addr)] = value
            return clk
    else:
        read, write = flat_bus.flat_read, flat_bus.flat_write
    return read, write


def make_runner(step, options):
    uidx = bool(options.get("uidx"))
    loop32 = bool(options.get("loop32"))
    row = bool(options.get("row"))
    clk0 = np.int32(0)

    if uidx:
        @register_jitable
        def machine_index(machine):
            return np.uint64(machine)
    else:
        @register_jitable
        def machine_index(machine):
            return machine
    if loop32:
        @register_jitable
        def counter(n):
            return np.int32(n)
    else:
        @register_jitable
        def counter(n):
            return n

    @register_jitable
    def run_machine(memory, registers, machine_in, instructions, cycles, halted):
        machine = machine_index(machine_in)
        if halted[machine]:
            return
        pc = np.int32(registers[machine, PC])
        s = np.int32(registers[machine, S])
        a = np.int32(registers[machine, A])
        x = np.int32(registers[machine, X])
        y = np.int32(registers[machine, Y])
        p = np.int32(registers[machine, P])
        if row:
            bus = memory[machine]   # the machine's own row: one base address for all accesses
        else:
            bus = (memory, machine)
        total = np.int64(0)
        for _ in range(counter(instructions)):
            pc, a, x, y, s, p, clk, jammed = step(bus, pc, a, x, y, s, p, clk0)
            total += clk
            if jammed:
                halted[machine] = True
                break
        registers[machine, PC] = pc
        registers[machine, S] = s
        registers[machine, A] = a
        registers[machine, X] = x
        registers[machine, Y] = y
        registers[machine, P] = p
        cycles[machine] += total

    return run_machine


def build_variant(name, model):
    """Return (cuda kernel python function, njit-able CPU runner or None)."""
    kind, int_style, options, _ = VARIANTS[name]
    if name == "package":
        kernel = flat_bus.CUDA_RUNNERS[model]
        return kernel.py_func, flat_bus.CPU_RUNNERS[model]
    run_machine = make_runner(make_core(model, kind, int_style, options), options)

    def kernel(memory, registers, instructions, cycles, halted):
        machine = cuda.grid(1)
        if machine < memory.shape[0]:
            run_machine(memory, registers, machine, instructions, cycles, halted)

    def cpu(memory, registers, instructions, cycles, halted):
        for machine in numba.prange(memory.shape[0]):
            run_machine(memory, registers, machine, instructions, cycles, halted)

    return kernel, numba.njit(parallel=True)(cpu)


# --------------------------------------------------------------------------------------------
# PTX statistics
# --------------------------------------------------------------------------------------------
KINDS = ("add", "sub", "mul", "mad", "shl", "shr", "and", "or", "xor", "not", "setp", "selp",
         "cvt", "ld", "st", "mov", "bfi/bfe")
_TYPE = re.compile(r"^[sub](8|16|32|64)$|^pred$|^f(16|32|64)$")


def ptx_stats(ptx):
    """Count instructions in all function bodies by kind and integer width."""
    by_width = collections.Counter()
    by_kind = {w: collections.Counter() for w in (64, 32, 16)}
    calls = 0
    total = 0
    depth = 0
    for raw in ptx.splitlines():
        line = raw.split("//", 1)[0].strip()
        if not line:
            continue
        if line == "{":
            depth += 1
            continue
        if line == "}":
            depth -= 1
            continue
        if depth == 0 or line.startswith(".") or line.endswith(":"):
            continue
        if line.startswith("@"):
            line = line.split(None, 1)[1]
        opcode = line.split(None, 1)[0].rstrip(";")
        parts = opcode.split(".")
        base = parts[0]
        total += 1
        if base == "call":
            calls += 1
        widths = [int(re.sub(r"\D", "", t)) for t in parts[1:]
                  if _TYPE.match(t) and t != "pred" and not t.startswith("f")]
        if base == "mul" and "wide" in parts:
            width = 2 * max(widths)               # mul.wide.u16 -> 32-bit, .s32 -> 64-bit
        elif base in ("ld", "st"):
            width = widths[-1] if widths else 0   # the data width (addresses are always 64-bit)
        else:
            width = max(widths) if widths else 0
        kind = "bfi/bfe" if base in ("bfi", "bfe") else base
        if width in (8, 16):
            width = 16
        by_width[width] += 1
        if width in by_kind:
            by_kind[width][kind if kind in KINDS else "other"] += 1
    return {"instructions": total, "calls": calls, "w64": by_width[64], "w32": by_width[32],
            "w16": by_width[16], "kinds64": by_kind[64], "kinds32": by_kind[32]}


# --------------------------------------------------------------------------------------------
# ptxas / nvJitLink
# --------------------------------------------------------------------------------------------
def find_ptxas():
    candidates = []
    if shutil.which("ptxas"):
        candidates.append(shutil.which("ptxas"))
    site = pathlib.Path(sysconfig.get_paths()["purelib"])
    candidates += sorted(glob.glob(str(site / "nvidia" / "*" / "bin" / "ptxas")))
    candidates += sorted(glob.glob(str(site / "nvidia" / "cuda_nvcc" / "bin" / "ptxas")))
    for env in ("CUDA_HOME", "CUDA_PATH"):
        if os.environ.get(env):
            candidates.append(os.path.join(os.environ[env], "bin", "ptxas"))
    candidates += sorted(glob.glob("/usr/local/cuda*/bin/ptxas"), reverse=True)
    for path in candidates:
        if path and os.access(path, os.X_OK):
            return path
    return None


def _parse_verbose(log):
    out = {}
    for key, pattern in (("registers", r"[Uu]sed (\d+) registers"),
                         ("stack", r"(\d+) bytes stack frame"),
                         ("spill_st", r"(\d+) bytes spill stores"),
                         ("spill_ld", r"(\d+) bytes spill loads"),
                         ("lmem", r"(\d+) bytes lmem")):
        m = re.search(pattern, log)
        if m:
            out[key] = int(m.group(1))
    out.setdefault("lmem", out.get("stack", 0))
    return out


def sass_instructions(cubin):
    """Instructions in the kernels' .text sections (16 bytes each on sm_70+), from the ELF."""
    if cubin[:4] != b"\x7fELF" or cubin[4] != 2:
        return None
    shoff, = struct.unpack_from("<Q", cubin, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", cubin, 0x3A)

    def section(i):
        return struct.unpack_from("<IIQQQQIIQQ", cubin, shoff + i * shentsize)

    strtab = section(shstrndx)
    names_at = strtab[4]
    size = 0
    for i in range(shnum):
        sec = section(i)
        name = cubin[names_at + sec[0]: cubin.index(b"\0", names_at + sec[0])].decode()
        if name.startswith(".text."):
            size += sec[5]
    return size // 16


def assemble(ptx, keep_stem=None):
    """Return (stats dict, tool description) from ptxas -v, else nvJitLink, else ({}, reason)."""
    ptxas = find_ptxas()
    if ptxas:
        with tempfile.TemporaryDirectory() as tmp:
            src = pathlib.Path(tmp) / "k.ptx"
            cubin = pathlib.Path(tmp) / "k.cubin"
            text, note = ptx, ""
            for _ in range(2):
                src.write_text(text)
                proc = subprocess.run([ptxas, "-v", f"-arch=sm_{CC[0]}{CC[1]}", str(src), "-o",
                                       str(cubin)], capture_output=True, text=True)
                m = re.search(r"Unsupported \.version (\S+); current version is '(\S+)'",
                              proc.stderr)
                if proc.returncode == 0 or not m:
                    break
                # NVVM (from the numba-cuda wheel) can be newer than the system ptxas: try the
                # nvJitLink that ships with NVVM first, else lower the PTX ISA version.
                result = _nvjitlink(ptx, keep_stem)
                if result is not None:
                    return result
                text = re.sub(r"^\.version \S+", f".version {m.group(2)}", ptx, flags=re.M)
                note = f", PTX .version {m.group(1)} lowered to {m.group(2)}"
            if proc.returncode != 0:
                return {}, f"ptxas failed: {proc.stderr.strip()[:300]}"
            stats = _parse_verbose(proc.stderr)
            stats["sass"] = sass_instructions(cubin.read_bytes())
            if keep_stem:
                shutil.copy(cubin, f"{keep_stem}.cubin")
            version = subprocess.run([ptxas, "--version"], capture_output=True, text=True).stdout
            release = re.search(r"release (\S+),", version)
            return stats, f"{ptxas} ({release.group(1) if release else '?'}{note})"
    result = _nvjitlink(ptx, keep_stem)
    if result is not None:
        return result
    return {}, "no ptxas and no nvJitLink found (pip install nvidia-cuda-nvcc or nvidia-nvjitlink)"


def _nvjitlink(ptx, keep_stem=None):
    try:
        from cuda.bindings import nvjitlink
    except ImportError:
        return None
    data = ptx.encode()
    handle = nvjitlink.create(2, [f"-arch=sm_{CC[0]}{CC[1]}", "-verbose"])
    try:
        nvjitlink.add_data(handle, nvjitlink.InputType.PTX, data, len(data), "kernel.ptx")
        nvjitlink.complete(handle)
        log = bytearray(nvjitlink.get_info_log_size(handle))
        nvjitlink.get_info_log(handle, log)
        cubin = bytearray(nvjitlink.get_linked_cubin_size(handle))
        nvjitlink.get_linked_cubin(handle, cubin)
    except Exception:  # noqa: BLE001 - report, do not crash the table
        return None
    finally:
        nvjitlink.destroy(handle)
    stats = _parse_verbose(log.decode(errors="replace"))
    stats["sass"] = sass_instructions(bytes(cubin))
    if keep_stem:
        pathlib.Path(f"{keep_stem}.cubin").write_bytes(bytes(cubin))
    major, minor = nvjitlink.version()
    return stats, f"nvJitLink {major}.{minor} (cuda.bindings)"


def gpu_stats(pyfunc):
    """Registers etc. from the driver, when a GPU is present."""
    try:
        kernel = cuda.jit(SIGNATURE)(pyfunc)      # one signature: a specialized kernel
        return {"gpu_regs": kernel.get_regs_per_thread(),
                "gpu_lmem": kernel.get_local_mem_per_thread(),
                "gpu_max_threads": kernel.get_max_threads_per_block()}
    except Exception as err:  # noqa: BLE001 - the static numbers still stand
        print(f"  (driver statistics unavailable: {type(err).__name__}: {err})")
        return {}


# --------------------------------------------------------------------------------------------
# Optional CPU check: the variant gives the package's results on the 6502 functional test.
# --------------------------------------------------------------------------------------------
FUNCTIONAL_TEST = REPO.parent / "shared" / "testdata" / "6502_functional_test.bin"


def check_variant(cpu_runner, model, instructions=300_000):
    if not FUNCTIONAL_TEST.exists():
        return "no testdata"
    image = np.fromfile(FUNCTIONAL_TEST, np.uint8)
    results = []
    for runner in (flat_bus.CPU_RUNNERS[model], cpu_runner):
        memory = np.zeros((1, 65536), np.uint8)
        memory[0, :len(image)] = image
        registers = np.array([[0x400, 0xFF, 0, 0, 0, 0x20]], np.int32)
        cycles = np.zeros(1, np.int64)
        halted = np.zeros(1, np.bool_)
        runner(memory, registers, instructions, cycles, halted)
        results.append((memory.copy(), registers.copy(), cycles.copy(), halted.copy()))
    same = all(np.array_equal(u, v) for u, v in zip(*results))
    return "same" if same else "DIFFERS"


# --------------------------------------------------------------------------------------------
def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--models", default="nmos,ale")
    parser.add_argument("--variants", default=",".join(VARIANTS),
                        help=f"comma-separated, from: {', '.join(VARIANTS)}")
    parser.add_argument("--keep", help="directory to keep .ptx/.cubin files in")
    parser.add_argument("--check", action="store_true",
                        help="run each variant with njit on the CPU and compare with the package")
    parser.add_argument("--core-source", type=pathlib.Path,
                        help="build the core variants from this copy of cpu6507.py (to measure "
                             "an edit before making it)")
    args = parser.parse_args(argv)
    global CORE_SOURCE
    if args.core_source:
        CORE_SOURCE = args.core_source.resolve()
    models = [m for m in args.models.split(",") if m]
    names = [v for v in args.variants.split(",") if v]
    for v in names:
        if v not in VARIANTS:
            parser.error(f"unknown variant {v!r}")
    if args.keep:
        os.makedirs(args.keep, exist_ok=True)

    from numba.cuda.cudadrv import nvvm
    print(f"numba {numba.__version__}, numba-cuda {_numba_cuda_version()}, NVVM "
          f"{'.'.join(map(str, nvvm.NVVM().get_version()))}, target sm_{CC[0]}{CC[1]}, "
          f"GPU {'present' if HAVE_GPU else 'absent (device query stubbed)'}")
    rows = []
    failed = []
    tool = None
    for model_name in models:
        model = MODELS[model_name]
        for name in names:
            pyfunc, cpu_runner = build_variant(name, model)
            start = time.perf_counter()
            try:
                ptx, _ = cuda.compile_ptx(pyfunc, SIGNATURE, cc=CC)
            except Exception as err:  # noqa: BLE001 - a variant that does not type is a result
                first = str(err).strip().splitlines()
                print(f"  {model_name:4} {name:18} FAILED: {type(err).__name__}: "
                      f"{first[0] if first else ''}", flush=True)
                failed.append((model_name, name, type(err).__name__, _typing_summary(err)))
                continue
            seconds = time.perf_counter() - start
            stem = os.path.join(args.keep, f"{model_name}-{name}") if args.keep else None
            if stem:
                pathlib.Path(stem + ".ptx").write_text(ptx)
                kind, _, options, _ = VARIANTS[name]
                if name != "package":
                    pathlib.Path(stem + ".core.py").write_text(core_source_text(
                        kind, bool(options.get("clk32")), bool(options.get("bcdtab"))))
            row = {"model": model_name, "variant": name, "compile_s": seconds,
                   "ptx_kb": len(ptx) / 1024, **ptx_stats(ptx)}
            target = re.search(r"^\.target (\S+)", ptx, re.M)
            row["target"] = target.group(1) if target else "?"
            stats, tool = assemble(ptx, stem)
            row.update(stats)
            if HAVE_GPU:
                row.update(gpu_stats(pyfunc))
            if args.check:
                row["check"] = check_variant(cpu_runner, model) if name != "package" else "-"
            rows.append(row)
            print(f"  {model_name:4} {name:18} compiled in {seconds:5.1f} s", flush=True)
    print(f"assembler: {tool}\n")
    print_table(rows, args.check)
    for model_name, name, kind, summary in failed:
        print(f"| {model_name} | {name} | does not compile: {kind}: {summary} |")
    print()
    print_kinds(rows)
    print()
    for name in names:
        print(f"  {name:18} {VARIANTS[name][3]}")
    return rows


def _typing_summary(err):
    """The most telling line of a numba typing error (the first 'With argument(s)' or message)."""
    signatures = re.findall(r">>> (.*)", str(err))
    if signatures:   # the innermost call that did not type, e.g. and_(float64, int64)
        return f"no implementation for {signatures[-1].strip()}"
    lines = [line.strip() for line in str(err).splitlines()]
    reasons = [lines[i + 1] for i, line in enumerate(lines[:-1])
               if line.startswith(("NumbaTypeError:", "TypingError:")) and lines[i + 1]]
    reasons = [r for r in reasons if not r.startswith("No implementation")]
    if reasons:
        return reasons[-1][:200]
    return lines[0][:200] if lines else ""


def _numba_cuda_version():
    try:
        from importlib.metadata import version
        return version("numba-cuda")
    except Exception:  # noqa: BLE001
        return "?"


def print_table(rows, check):
    cols = [("model", "{:4}"), ("variant", "{:18}"), ("compile_s", "{:7.1f}"),
            ("ptx_kb", "{:6.1f}"), ("instructions", "{:6d}"), ("w64", "{:5d}"), ("w32", "{:5d}"),
            ("w16", "{:4d}"), ("calls", "{:5d}"), ("registers", "{:4d}"), ("spill_st", "{:4d}"),
            ("spill_ld", "{:4d}"), ("lmem", "{:4d}"), ("sass", "{:5d}")]
    if rows and "gpu_regs" in rows[0]:
        cols += [("gpu_regs", "{:4d}"), ("gpu_lmem", "{:4d}")]
    if check:
        cols += [("check", "{:7}")]
    heads = {"compile_s": "compile s", "ptx_kb": "PTX kB", "instructions": "PTX ins",
             "w64": "64-bit", "w32": "32-bit", "w16": "8/16b", "registers": "regs",
             "spill_st": "spSt", "spill_ld": "spLd", "lmem": "lmem", "sass": "SASS"}
    header = " | ".join(heads.get(c, c) for c, _ in cols)
    print("| " + header + " |")
    print("|" + "|".join("---" for _ in cols) + "|")
    for row in rows:
        cells = []
        for c, fmt in cols:
            v = row.get(c)
            cells.append("-" if v is None else fmt.format(v).strip())
        print("| " + " | ".join(cells) + " |")


def print_kinds(rows):
    kinds = [k for k in KINDS + ("other",) if any(r["kinds64"][k] for r in rows)]
    print("64-bit instructions by kind (32-bit in parentheses):")
    print("| model | variant | " + " | ".join(kinds) + " |")
    print("|---|---|" + "|".join("---" for _ in kinds) + "|")
    for r in rows:
        cells = [f"{r['kinds64'][k]} ({r['kinds32'][k]})" for k in kinds]
        print(f"| {r['model']} | {r['variant']} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
