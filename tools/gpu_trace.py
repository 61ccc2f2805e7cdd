"""A trace of the GPU's code path for tools/gpu_model.py's warp-lockstep model (issue 24).

The GPU runs the decoded core (bus.run_instructions: cpu6507's `step` bound to the console
bus), not the CPU backend's fast path. This module builds a second binding of the same core
from the same register_jitable pieces (cpu6507.make_cpu, bus.console_read/console_write,
the TIA and cartridge code, environment.apply_inputs) with a bus that also
records, per executed 6507 instruction: its PC and opcode, the TIA/RIOT reads and writes, the
cartridge accesses, the CPU cycles and how far the TIA's render cursor advanced (the colour
clocks the instruction's TIA access caught up on, hence the pixel drawing it did). Nothing is
restated: bus.run_instructions (the core's loop) and console.run_frame (the frame around it) are
compiled from their own source with their calls of the core, the idle-loop skip and the loop
made calls of traced twins (`_traced_twin`), and `trace_frames` runs environment.emulate's
steps. Nothing under
cule_py/kernels/ changes, and results equal the package's (the test compares RAM, frame buffers and
CPU state after tracing with the CPU backend's act()). This traces the package beside it; an older
commit's kernels are traced with that commit's own tools/gpu_trace.py (the calibration counts of
2ee2133 and e9853a1 are saved: tools/gpu_model.CALIBRATION_FILES).

It is compiled with numba on the CPU (minutes, once per process; it is not cached).
"""

from __future__ import annotations

import ast
import inspect
import textwrap

import numpy as np
from numba import njit
from numba.extending import register_jitable

from cule_py.kernels.ale import environment as E
from cule_py.kernels import layout as L
from cule_py.kernels.frame_loop.bus import (INSTRUCTIONS_PER_FRAME, console_read, console_write,
                                            run_instructions)
from cule_py.kernels.frame_loop import console as C
from cule_py.kernels.cpu.cpu6507 import ALE, make_cpu
from cule_py.kernels.cpu.idle_loop import skip_idle_polls

# Columns of a trace record (one row per executed instruction). R_DEVICE: the last TIA or RIOT
# register the instruction accessed, as a key (TIA registers 0-63 by address, RIOT ones 64-127;
# +128 for a write), -1 for none: the path the device call takes depends on it.
R_PC, R_OP, R_TIA_READ, R_TIA_WRITE, R_RIOT_READ, R_RIOT_WRITE, R_CART, R_CYCLES, R_RENDER, \
    R_DEVICE = range(10)
COLUMNS = 10


@register_jitable
def _count(rec, i, addr, write):
    if addr & 0x1000:
        rec[i, R_CART] += 1
    elif (addr & 0x280) == 0x80:
        pass                                     # RIOT RAM: inline on the GPU, not counted
    elif addr & 0x80:
        rec[i, R_RIOT_WRITE if write else R_RIOT_READ] += 1
        rec[i, R_DEVICE] = 64 + (addr & 0x1F) + (128 if write else 0)
    else:
        rec[i, R_TIA_WRITE if write else R_TIA_READ] += 1
        rec[i, R_DEVICE] = (addr & (0x3F if write else 0x0F)) + (128 if write else 0)


@register_jitable
def traced_read(bus, addr, clk, data_bus):
    rom, scheme, ram, st, fb, env, rec, i = bus
    value = console_read((rom, scheme, ram, st, fb, env), addr, clk, data_bus)
    if rec[i, R_OP] < 0:                         # the opcode fetch, the step's first access
        rec[i, R_PC] = addr
        rec[i, R_OP] = value & 0xFF
    _count(rec, i, addr, False)
    return value


@register_jitable
def traced_write(bus, addr, value, clk):
    rom, scheme, ram, st, fb, env, rec, i = bus
    _count(rec, i, addr, True)
    return console_write((rom, scheme, ram, st, fb, env), addr, value, clk)


traced_step = make_cpu(traced_read, traced_write, ALE)


@register_jitable
def _traced_cpu_step(bus, pc, a, x, y, s, p, clk, rec, trace_row):
    """bus.cpu_step with the recording bus: fills rec's next row (trace_row[0]), moves it on."""
    rom, scheme, ram, st, fb, env = bus
    n = trace_row[0]
    for c in range(COLUMNS):
        rec[n, c] = 0
    rec[n, R_OP] = -1
    rec[n, R_DEVICE] = -1
    cursor = np.int32(st[env, L.TIA_CURSOR])
    before = clk
    pc, a, x, y, s, p, clk, jammed = traced_step((rom, scheme, ram, st, fb, env, rec, n),
                                                 pc, a, x, y, s, p, clk)
    rec[n, R_CYCLES] = np.int32(clk - before)
    rec[n, R_RENDER] = max(np.int32(st[env, L.TIA_CURSOR]) - cursor, 0)
    trace_row[0] = n + 1
    return pc, a, x, y, s, p, clk, jammed


@register_jitable
def _traced_idle_skip(rom, scheme, st, env, pc, a, x, y, p, clk, budget, rec, trace_row):
    """skip_idle_polls; the skipped iterations run nowhere, so their clocks go to the row of the
    load that read the timer (the last one)."""
    before = clk
    a, x, y, p, clk, skipped = skip_idle_polls(rom, scheme, st, env, pc, a, x, y, p, clk, budget)
    rec[trace_row[0] - 1, R_CYCLES] += np.int32(clk - before)
    return a, x, y, p, clk, skipped


class _CallsTraced(ast.NodeTransformer):
    """A function's tree renamed `name`, with parameters rec and trace_row added and each call of a
    function named in `calls` made a call of its traced twin, with rec and trace_row passed on."""

    def __init__(self, name: str, calls: dict[str, str]):
        self.name, self.calls, self.replaced = name, calls, dict.fromkeys(calls, 0)

    def visit_FunctionDef(self, node):
        self.generic_visit(node)
        node.name = self.name
        node.decorator_list = []
        node.args.args += [ast.arg("rec"), ast.arg("trace_row")]
        return node

    def visit_Call(self, node):
        self.generic_visit(node)
        callee = getattr(node.func, "id", None)
        if callee in self.calls:
            self.replaced[callee] += 1
            node.func = ast.Name(self.calls[callee], ast.Load())
            node.args += [ast.Name("rec", ast.Load()), ast.Name("trace_row", ast.Load())]
        return node


def _traced_twin(function, name: str, calls: dict[str, str], twins: dict):
    """`function` compiled from its own source with the calls in `calls` traced (each must
    occur once): the package's code, written once, runs with the recording bus."""
    tree = ast.parse(textwrap.dedent(inspect.getsource(function)))
    transform = _CallsTraced(name, calls)
    tree = ast.fix_missing_locations(transform.visit(tree))
    if any(count != 1 for count in transform.replaced.values()):
        raise RuntimeError(f"{function.__qualname__} calls {transform.replaced}; "
                           "tools/gpu_trace.py expects each once")
    namespace = dict(function.__globals__, **twins)
    exec(compile(tree, inspect.getsourcefile(function), "exec"), namespace)
    return register_jitable(namespace[name])


# bus.run_instructions (the decoded core's loop) and console.run_frame (the frame around it),
# each from its own source, the core and its idle-loop skip traced.
_traced_instructions = _traced_twin(
    run_instructions, "_traced_instructions",
    {"cpu_step": "_traced_cpu_step", "skip_idle_polls": "_traced_idle_skip"},
    {"_traced_cpu_step": _traced_cpu_step, "_traced_idle_skip": _traced_idle_skip})
_traced_frame = _traced_twin(C.run_frame, "_traced_frame",
                             {"run_instructions": "_traced_instructions"},
                             {"_traced_instructions": _traced_instructions})


@njit(_nrt=False, forceinline=True)
def trace_frames(rom, scheme, ram, st, fb, params, inputs, rows, rec, ends, trace_row):
    """Per console env and frame f, environment.emulate(rows[env, f], 1) with the core traced:
    the action on the input pins (a paddle turned first) and one traced frame; ends[env, f] is
    the row of rec[env] after it. The game's step (RomSettings, game_logic: rewards and game
    over, which read RAM and change no console state) is left out: it is not the 6507's path
    (and compiling every game's logic adds a few seconds)."""
    for env in range(st.shape[0]):
        trace_row[0] = 0
        for f in range(rows.shape[1]):
            row = rows[env, f]
            if params[E.P_PADDLES] != 0:
                E.turn_paddle(st, env, params, inputs, row)
            E.apply_inputs(st, env, inputs, E.SWITCHES_PLAIN, row, params)
            _traced_frame(rom, scheme, ram, st, fb, env, rec[env], trace_row)
            ends[env, f] = trace_row[0]


def trace(game: str, consoles: int, frames: int, warmup: int, seed: int = 0) -> dict:
    """Warm `consoles` consoles of `game` up with `warmup` random frames on the CPU backend (its
    fast path gives the decoded core's results), then trace `frames` frames of random actions
    through the decoded core (no sticky actions). Returns the records (consoles, rows,
    COLUMNS), the per-frame end rows (consoles, frames), the batch and the traced actions."""
    from cule_py import AtariEmulator

    rng = np.random.default_rng(seed)
    emulator = AtariEmulator(game, consoles, seed=seed)
    legal = np.arange(18)
    for _ in range(warmup):
        emulator.act(rng.choice(legal, consoles))
    batch = emulator._batch
    actions = rng.choice(legal, (consoles, frames))
    rows = batch._act_rows[actions].astype(np.int32)
    rec = np.zeros((consoles, frames * INSTRUCTIONS_PER_FRAME, COLUMNS), np.int32)
    ends = np.zeros((consoles, frames), np.int64)
    args = batch.drive_args(E.OP_ACT, batch._all, batch.difficulty, 1)
    c = args[1]                                      # kernels/structs.Console
    trace_frames(c.rom, c.scheme, c.ram, c.st, c.fb, c.params, c.inputs, rows, rec, ends,
                 np.zeros(1, np.int64))
    return {"records": rec, "ends": ends, "batch": batch, "actions": actions}
