"""The GPU's warp scheduler: which lanes of a warp run their next 6507 instruction together.

One CUDA thread emulates one console, and a warp of 32 issues the union of its lanes' paths: when
each lane runs its own next instruction (the "free" schedule, bus.run_instructions as it
stands), decorrelated consoles sit at different PCs, take different opcode bodies and draw
different spans, and the H100 measured 1.8 of 32 lanes active per warp instruction (identical
consoles ran the same instructions 27x faster; benchmarks/RESULTS.md, H100, 2026-11-26).

The `scanline` schedule keeps lanes together: each step the warp agrees on the smallest key
among the lanes still in the frame, and only the lanes holding it execute one instruction, so a
step's lanes share one opcode, one addressing path and, mostly, one device register. The key is
(scanline of the frame, PC: its 13 bits, the bank not in it, so lanes at one address of
different banks share a step, which only costs divergence), so lanes also draw the same line's
span when a TIA write catches the picture up.

The laggard always holds the minimum, so every lane finishes its frame; lanes never exchange
data, so the schedule changes only the interleaving, never a console's results (each lane runs
the same instructions, in order, with the same 25,000-instruction budget, as the free loop).

The schedule is a console state field (`GPU_SCHEDULE`, SCANLINE for every batch: the fastest
of the schedules measured against the free loop, benchmarks/RESULTS.md, 2026-11-27). It applies
where the whole warp enters a frame together (`activemask()` full; the act and agent-step
kernels are that case); a partial warp (lanes masked out, or lanes replaying a frame the others
do not), or a console whose field is FREE, runs free. The CPU backend has no warps: it never
reads the field (console_fast_path / bus.run_instructions).
"""

import numpy as np
from llvmlite import ir
from numba import cuda, types
from numba.core import cgutils
from numba.extending import intrinsic, overload, register_jitable

from .. import layout as L
from ..frame_loop.bus import INSTRUCTIONS_PER_FRAME, cpu_step, run_instructions
from ..cpu.idle_loop import skip_idle_polls

FREE, SCANLINE = 0, 2

ALL_LANES = 0xFFFFFFFF
FINISHED = 0x7FFFFFFF       # the key of a lane whose frame is over: larger than any other
PC_BITS = 13
# The largest line a key holds: one below FINISHED's, so that a running lane's key is always
# smaller than FINISHED and a warp whose minimum is FINISHED has no lane left in the frame.
# (A frame's 25,000 instructions reach line ~2,300; the clamp only guards wrapped clocks.)
LAST_LINE = (FINISHED >> PC_BITS) - 1


@register_jitable
def schedule_key(pc, clk, frame_start):
    """The lane's place in the schedule: its scanline of the frame, above its PC. In 32-bit
    arithmetic (a frame's clocks fit; with a 64-bit division a scheduled step took 27 more SASS,
    offline sm_90a): a key only orders the lanes, so even a wrapped clock could not change a
    console's results."""
    key = np.int32(pc & np.int32((1 << PC_BITS) - 1))
    clocks = np.int32(np.int32(3) * np.int32(clk) - np.int32(frame_start))
    line = np.uint32(max(clocks, np.int32(0))) // np.uint32(228)
    line = np.int32(min(line, np.uint32(LAST_LINE)))
    return np.int32(key | np.int32(line << np.int32(PC_BITS)))


@register_jitable
def scheduling_plan(st, env):
    """The batch's schedule in the low 2 bits and the frame's line phase (-TIA_FRAME_START,
    0..227) above them: what `planned_key` needs, in one int32. FREE (0) stays FREE."""
    schedule = np.int32(st[env, L.GPU_SCHEDULE])
    if schedule == FREE:
        return np.int32(FREE)
    phase = np.int32(-np.int32(st[env, L.TIA_FRAME_START]))
    return np.int32((phase << np.int32(2)) | schedule)


@register_jitable
def planned_key(plan, pc, clk):
    """schedule_key from a `scheduling_plan` word."""
    return schedule_key(pc, clk, np.int32(-(plan >> np.int32(2))))


@register_jitable
def butterfly_minimum(value):
    """The smallest int32 `value` over the 32 lanes by five shuffles (every lane must take
    part): what numba's CUDA simulator runs, and GPUs before sm_80."""
    value = np.int32(min(value, cuda.shfl_xor_sync(ALL_LANES, value, 16)))
    value = np.int32(min(value, cuda.shfl_xor_sync(ALL_LANES, value, 8)))
    value = np.int32(min(value, cuda.shfl_xor_sync(ALL_LANES, value, 4)))
    value = np.int32(min(value, cuda.shfl_xor_sync(ALL_LANES, value, 2)))
    return np.int32(min(value, cuda.shfl_xor_sync(ALL_LANES, value, 1)))


@register_jitable
def warp_minimum(value):
    """The smallest int32 `value` over the 32 lanes; every lane must take part. The butterfly
    here; the CUDA overload below is one `redux.sync` where the GPU has it."""
    return butterfly_minimum(value)


# The minimum is on the path of every scheduled step: the butterfly is five dependent shuffles
# and five minimums (~10 SASS and five shuffle latencies a step, with one warp a scheduler at
# 16,384 consoles nothing hides them); sm_80 and later reduce a warp in one REDUX instruction.
# numba-cuda exposes no redux, so it is inline PTX, and the GPU generation is chosen by NVVM
# itself: __nvvm_reflect("__CUDA_ARCH") folds to the target's arch (900 for sm_90) when the
# PTX is made, so the branch not taken, and with it the PTX an older GPU cannot assemble, is
# removed before ptxas sees it (tests/test_cuda_compile.py compiles both).
REDUX_ARCH = 800
_ARCH_NAME_SYMBOL = "cule_py.cuda_arch_name"


@intrinsic
def _cuda_arch(typingctx):
    """The compile target's __CUDA_ARCH (e.g. 900), a constant once NVVM has made the PTX."""
    def codegen(context, builder, signature, args):
        module = builder.module
        i8p = ir.IntType(8).as_pointer()
        reflect = cgutils.get_or_insert_function(
            module, ir.FunctionType(ir.IntType(32), [i8p]), "__nvvm_reflect")
        var = module.globals.get(_ARCH_NAME_SYMBOL)
        if var is None:
            name = cgutils.make_bytearray(b"__CUDA_ARCH\x00")
            var = ir.GlobalVariable(module, name.type, _ARCH_NAME_SYMBOL,
                                    addrspace=4)            # NVVM's constant space
            var.linkage = "internal"
            var.global_constant = True
            var.initializer = name
        generic = builder.addrspacecast(var, ir.PointerType(ir.IntType(8)), "generic")
        return builder.call(reflect, [generic])
    return types.int32(), codegen


@intrinsic
def _redux_min_s32(typingctx, value):
    """redux.sync.min.s32 over all 32 lanes (sm_80 and later)."""
    if value != types.int32:
        return None

    def codegen(context, builder, signature, args):
        asm = ir.InlineAsm(ir.FunctionType(ir.IntType(32), [ir.IntType(32)]),
                           "redux.sync.min.s32 $0, $1, -1;", "=r,r", side_effect=True)
        # convergent: like the shuffles' intrinsics, no pass may move it into divergent code
        return builder.call(asm, [args[0]], attrs=("convergent",))
    return types.int32(types.int32), codegen


@overload(warp_minimum, target="cuda")
def _warp_minimum_cuda(value):
    def minimum(value):
        if _cuda_arch() >= REDUX_ARCH:
            return _redux_min_s32(np.int32(value))
        return butterfly_minimum(np.int32(value))
    return minimum


@overload(run_instructions, target="cuda")
def _run_instructions_cuda(rom, scheme, ram, st, fb, env, pc, a, x, y, s, p, clk):
    def run(rom, scheme, ram, st, fb, env, pc, a, x, y, s, p, clk):
        bus = (rom, scheme, ram, st, fb, env)
        # Uniform over the warp: a full mask means all 32 lanes are here together, and the
        # schedule is the batch's. The schedule and the frame's line phase (TIA_FRAME_START,
        # -227..0, fixed until the next frame starts) travel in one register, read once: read
        # from the state row at every step they cost two global loads and three spill refills
        # of their addresses a step (offline, sm_90a).
        plan = scheduling_plan(st, env) if cuda.activemask() == ALL_LANES else np.int32(FREE)
        jammed = False
        running = True
        executed = np.int32(0)
        # One loop and one inlined copy of the core for every schedule: a second loop for the
        # free schedule made the agent step's core spill more, not less (1,821 spill
        # instructions against 1,070; the decoded core's own loop alone: 475).
        while True:
            if plan != FREE:
                # Every lane takes part in each step's minimum until the whole warp is done. A
                # running lane's key is below FINISHED (LAST_LINE), so the minimum also says
                # whether any lane runs: no separate vote, and only running lanes can hold it.
                key = planned_key(plan, pc, clk) if running else np.int32(FINISHED)
                lowest = warp_minimum(key)      # outside the condition: all lanes take part
                if lowest == np.int32(FINISHED):
                    break
                go = key == lowest
            else:
                if not running:
                    break
                go = True
            if go:
                pc, a, x, y, s, p, clk, jammed = cpu_step(bus, pc, a, x, y, s, p, clk)
                executed = np.int32(executed + np.int32(1))
                attention = np.int32(st[env, L.CPU_ATTENTION])     # one load for both
                running = not jammed and (attention & L.ATTENTION_FRAME_ENDED) == 0
                if running and attention != 0:                    # the timer's bit
                    # as bus.run_instructions: an idle loop on the timer, skipped
                    a, x, y, p, clk, skipped = skip_idle_polls(
                        rom, scheme, st, env, pc, a, x, y, p, clk,
                        np.int32(INSTRUCTIONS_PER_FRAME) - executed)
                    executed = np.int32(executed + skipped)
                running = running and executed < np.int32(INSTRUCTIONS_PER_FRAME)
        return pc, a, x, y, s, p, clk, jammed
    return run
