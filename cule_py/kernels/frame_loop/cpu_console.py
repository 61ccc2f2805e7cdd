"""The console compiled once for every CPU kernel of a process.

Every CPU kernel (environment.drive, agent_step.agent_step_cpu, agent_step.agent_reset_cpu) runs
frames through `environment.run_console_frames`, behind which is the whole console: the 6507
and its fast path, the TIA, the RIOT, every cartridge scheme and every game's logic. Compiled
into each kernel, the console was typed, optimised and turned into machine code once per kernel,
about 70 of the 160 s a cold compile of the three took on 2 cores (tools/compile_profile.py).

Here the console is compiled once, by itself, as a C-callable function (`numba.cfunc`, cached
with the kernels), and on the CPU `run_console_frames` calls it through a pointer kept in a slot
that LLVM knows by name (`SLOT_NAME`). So the console's machine code exists once, a kernel's
compile does not type the console at all, and the console can compile in a second process while
this one compiles the kernels (`compile_ahead`).

The console receives one console's rows by address and sees them as one-console arrays of
constant shape (outlining.console_at), so that every `st[0, FIELD]` is a fixed offset from one
pointer. Arrays of another layout (never made by the host code) take the generic path: the
console compiled into the kernel, as on the GPU.

The slot is filled (`ensure`) before a kernel that calls it can run: numba runs `ensure` before
loading such a kernel from the cache (the library's reload_init, as for parallel kernels), and
the end of a kernel's compile calls it unless `compile_ahead` is compiling several kernels
first (it then calls it once, at the end).
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import pathlib
import subprocess
import sys
import tempfile
import time

import llvmlite.binding as llvm
import numpy as np
from llvmlite import ir
from numba import cfunc, from_dtype, types
from numba.core import event
from numba.extending import intrinsic, overload

from ... import _jit_cache, settings
from ..._jit_cache import CACHE_ENABLED, FINGERPRINT, cache_root
from .. import layout as L
from ..ale.environment import INPUT_COLUMNS, INPUT_ROWS, PARAMS, console_frames, run_console_frames
from ..ale.game_logic import LOGIC_FIELDS
from .outlining import console_address, console_at

#: The slot's symbol: one per build of the kernels (tools/ab_builds.py imports several builds
#: into one process; each build's kernels must reach their own console).
SLOT_NAME = f"cule_py_console_frames_{FINGERPRINT[:16]}"
_slot = ctypes.c_void_p(0)
llvm.add_symbol(SLOT_NAME, ctypes.addressof(_slot))

# console(rom, rom_size, scheme, ram, ram_bytes, st, fb, logic, params, inputs, row, frames,
# plain) -> the last frame's reward; rom, ram, ... are addresses (of one console's row for the
# per-console arrays).
SIGNATURE = types.int32(types.intp, types.intp, types.int64, types.intp, types.intp,
                        types.intp, types.intp, types.intp, types.intp, types.intp,
                        types.int32, types.int32, types.int32)
_OPTIONS = {"_nrt": False, "forceinline": True, "error_model": "numpy"}
_INPUTS_SHAPE = (2, INPUT_ROWS, INPUT_COLUMNS)


def frames_at(rom_address, rom_size, scheme, ram_address, ram_bytes, st_address, fb_address,
              logic_address, params_address, inputs_address, row, frames, plain):
    """The console's frames (environment.console_frames) on one console given by address."""
    rom = console_at(rom_address, np.uint8, (rom_size,))
    ram = console_at(ram_address, np.uint8, (1, ram_bytes))
    st = console_at(st_address, np.int32, (1, L.STATE_FIELDS))
    fb = console_at(fb_address, np.uint64, (1,) + L.FRAME_BUFFER_SHAPE)
    logic = console_at(logic_address, np.int32, (1, LOGIC_FIELDS))
    params = console_at(params_address, np.int32, (PARAMS,))
    inputs = console_at(inputs_address, np.int32, _INPUTS_SHAPE)
    return console_frames(rom, scheme, ram, st, fb, logic, params, inputs, 0, row, frames, plain)


# --- the call from a kernel -------------------------------------------------------------------

_owed = False          # a kernel that calls the slot was compiled and the slot is not filled yet


def load_for_cached_kernel() -> None:
    """numba's reload_init of every kernel that calls the console: runs before it is loaded."""
    ensure()


@intrinsic
def _call_console(typingctx, rom, rom_size, scheme, ram, ram_bytes, st, fb, logic, params,
                  inputs, row, frames, plain):
    given = (rom, rom_size, scheme, ram, ram_bytes, st, fb, logic, params, inputs, row, frames,
             plain)
    if not all(isinstance(t, types.Integer) for t in given):
        return None

    def codegen(context, builder, signature, args):
        global _owed
        _owed = True
        # Loaded from the cache, the kernel first makes sure the slot is filled.
        context.active_code_library._reload_init.add(load_for_cached_kernel)
        function_type = ir.FunctionType(context.get_value_type(SIGNATURE.return_type),
                                        [context.get_value_type(t) for t in SIGNATURE.args])
        module = builder.module
        slot = module.globals.get(SLOT_NAME)
        if slot is None:
            slot = ir.GlobalVariable(module, function_type.as_pointer(), SLOT_NAME)
        console = builder.load(slot)
        values = [context.cast(builder, value, have, want)
                  for value, have, want in zip(args, signature.args, SIGNATURE.args)]
        return builder.call(console, values)
    return types.int32(*given), codegen


def _c_array(array, ndim, dtype):
    return (isinstance(array, types.Array) and array.layout == "C" and array.ndim == ndim
            and array.dtype == dtype)


@overload(run_console_frames, target="cpu", jit_options={"forceinline": True})
def _run_console_frames_cpu(rom, scheme, ram, st, fb, logic, params, inputs, env, row, frames,
                            plain):
    if not (_c_array(rom, 1, types.uint8) and _c_array(ram, 2, types.uint8)
            and _c_array(st, 2, types.int32)
            and _c_array(fb, 4, from_dtype(L.FRAME_BUFFER_DTYPE))
            and _c_array(logic, 2, types.int32) and _c_array(params, 1, types.int32)
            and _c_array(inputs, 3, types.int32)):
        return None

    def call(rom, scheme, ram, st, fb, logic, params, inputs, env, row, frames, plain):
        return _call_console(console_address(rom, 0), rom.shape[0], scheme,
                             console_address(ram, env), ram.shape[1], console_address(st, env),
                             console_address(fb, env), console_address(logic, env),
                             console_address(params, 0), console_address(inputs, 0), row,
                             frames, plain)
    return call


# --- compiling and loading the console ------------------------------------------------------

_console = None        # the compiled cfunc (kept alive: the slot points into its code)
_background: subprocess.Popen | None = None
_background_log: pathlib.Path | None = None
_ahead = 0             # compile_ahead calls in progress
_ensuring = False
#: Seconds the console took to compile cold on the 2-core development VM (AMD EPYC, numba 0.68.1,
#: Python 3.11), beside the kernels compiling in the first process.
EXPECTED_SECONDS = 56


def _say(line: str) -> None:
    if settings.COMPILE_NOTICE.value() != "0":
        print(f"cule_py: {line}", file=sys.stderr, flush=True)


def in_cache() -> bool:
    """Whether the kernel cache holds the console for this machine (no compile needed)."""
    return _jit_cache.in_cache(frames_at, SIGNATURE)


def ready() -> bool:
    return _console is not None


def ensure() -> None:
    """Load the console from the cache, or compile it, and fill the slot (once a process)."""
    global _console, _owed, _ensuring
    if _console is not None or _ensuring:
        return
    if _background is not None:
        _finish_background()
    cached = in_cache()
    if not cached:
        _say(f"compiling the CPU console (about {EXPECTED_SECONDS} s on a 2-core x86-64 machine, "
             f"once: {'cached in ' + str(cache_root()) if CACHE_ENABLED else 'not cached'})")
    start = time.monotonic()
    _ensuring = True        # (the console's own helpers end compiles too: no second ensure)
    try:
        compiled = cfunc(SIGNATURE, cache=CACHE_ENABLED, **_OPTIONS)(frames_at)
    finally:
        _ensuring = False
    if not cached:
        _say(f"CPU console compiled in {time.monotonic() - start:.0f} s")
    _slot.value = compiled.address
    _console = compiled
    _owed = False


def start_background_compile() -> bool:
    """Compile the console in a second process if the cache lacks it, so that this process can
    compile the kernels meanwhile; `ensure` waits for it. Returns whether one was started."""
    global _background, _background_log
    if _console is not None or _background is not None or not CACHE_ENABLED or in_cache():
        return False
    package_parent = str(pathlib.Path(__file__).resolve().parents[3])   # holds the package
    env = dict(os.environ, **{settings.COMPILE_NOTICE.name: "0"},
               PYTHONPATH=os.pathsep.join(filter(None, [package_parent,
                                                        os.environ.get("PYTHONPATH")])))
    handle, name = tempfile.mkstemp(prefix="cule_py_console_", suffix=".log")
    _background_log = pathlib.Path(name)
    _background = subprocess.Popen(
        [sys.executable, "-c", f"import importlib; importlib.import_module({__name__!r}).ensure()"],
        env=env, stdout=handle, stderr=subprocess.STDOUT)
    os.close(handle)
    _background.started = time.monotonic()
    return True


def _finish_background() -> None:
    global _background
    child, log = _background, _background_log
    _background = None
    if child.poll() is None:
        waited = time.monotonic() - child.started
        _say(f"waiting for the CPU console's compile ({waited:.0f} s so far, about "
             f"{max(EXPECTED_SECONDS - waited, 5):.0f} s left)")
    code = child.wait()
    output = log.read_text(errors="replace") if log and log.exists() else ""
    if log is not None:
        log.unlink(missing_ok=True)
    if code != 0:
        _say(f"the console's compile in a second process failed (exit {code}); compiling it "
             f"here.\n{output}")
    else:
        _say(f"CPU console compiled in {time.monotonic() - child.started:.0f} s")


@contextlib.contextmanager
def compiling_ahead():
    """Kernels compiled inside do not wait for the console at the end of their compile; the
    console is ensured on leaving."""
    global _ahead
    _ahead += 1
    try:
        yield
    finally:
        _ahead -= 1
    if _ahead == 0 and _owed:
        ensure()


def compile_ahead(launches) -> None:
    """Compile (or load) CPU kernels before they run, while the console compiles in a second
    process: `launches` is a list of (dispatcher, arguments) as the kernels will be called."""
    signatures = [(dispatcher, tuple(dispatcher.typeof_pyval(a) for a in args))
                  for dispatcher, args in launches]
    missing = [d.py_func.__name__ for d, sig in signatures
               if sig not in d.overloads and not _jit_cache.in_cache(d.py_func, sig)]
    console = _console is None and not in_cache()
    if missing or console:
        here = sum(_jit_cache.EXPECTED_SECONDS.get(name, 5) for name in missing)
        beside = console and CACHE_ENABLED and _cores() >= 2
        total = max(here, EXPECTED_SECONDS) if beside else here + EXPECTED_SECONDS * console
        parts = ([", ".join(missing)] if missing else []) + (["the console"] if console else [])
        _say(f"first use of these CPU kernels here: compiling {' and '.join(parts)}"
             f"{' (the console in a second process)' if beside else ''}, about "
             f"{_jit_cache._minutes(total)} in all on a 2-core x86-64 machine, once: cached in "
             f"{cache_root() if CACHE_ENABLED else '(nowhere: the cache is off)'}")
        if beside:
            start_background_compile()
    with compiling_ahead():
        for dispatcher, signature in signatures:
            dispatcher.compile(signature)
    ensure()


def _cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


class _CompileEnds(event.Listener):
    """After a kernel's compile (outside compile_ahead), fill the slot before it runs."""

    def __init__(self):
        self.depth = 0

    def on_start(self, ev):
        if _is_kernel_compile(ev):
            self.depth += 1

    def on_end(self, ev):
        if _is_kernel_compile(ev):
            self.depth -= 1
            if self.depth == 0 and _owed and _ahead == 0:
                ensure()


def _is_kernel_compile(ev) -> bool:
    data = ev.data if isinstance(ev.data, dict) else {}
    module = getattr(getattr(data.get("dispatcher"), "py_func", None), "__module__", None) or ""
    return module.startswith(_KERNELS)


_KERNELS = __name__.rsplit(".", 1)[0]      # this package's kernels (cule_py.kernels)
event.register("numba:compile", _CompileEnds())
