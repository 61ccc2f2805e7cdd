"""The 6507 waiting for the RIOT's timer: the idle loop `load INTIM; BNE load`, recognised in
the ROM and skipped as a whole where its reads cannot change anything.

Most games wait for the timer that way once or twice a frame (vertical blank, overscan), and
reset_game's boot frames do little else: 4% (Pong) to 21% (Seaquest) of the decoded core's
instructions in reset frames, 4-17% in play (docs/performance-log.md, idle loops). Both cores
skip them the same way: the CPU fast path after the load's RIOT read (console_fast_path), the
decoded core (bus.run_instructions and the GPU's warp_schedule loop) when the RIOT reports
a read of a running count (`CPU_ATTENTION`'s timer bit, riot.timer_read) after an instruction.
Also here: the side-effect-free ROM run holding the PC (`rom_window`), which the fast path is
built on and the skip uses to read the loop's code.
"""

import numpy as np
from numba.extending import register_jitable

from .. import layout as L
from . import opcodes as oc
from ..riot import riot
from ..cartridges.cart import fast_rom_window
from .cpu6507 import ALE, FLAG_Z, make_operations
from ..registers import RIOT_TIMINT_READ

_ops = make_operations(ALE)
u8, u16, set_nz, branch = _ops.u8, _ops.u16, _ops.set_nz, _ops.branch


@register_jitable
def rom_window(rom, scheme, st, env, pc):
    """The run of plain ROM holding `pc`, as `(start, code_span, shift, span)`: an address `addr`
    with `addr - start` below `span` reads `rom[addr + shift]` and has no side effect in the
    current banks; an opcode at `pc` with `pc - start` below `code_span` has its operand bytes
    after it in the run too (no 16-bit wrap there), so the fast path checks the run once per
    instruction, not once per byte. The run is the copy of `cart.fast_rom_window` in the mirror
    of the address space holding `pc` (a 2K image: the 2K copy holding `pc`): code and its tables
    share their origin, and an access to another copy (code that jumps there, a table read
    there) is made by the decoded core or the console's bus, exactly, only slower."""
    base, mask, start, span, fold = fast_rom_window(rom, scheme, st, env, pc)
    run_start = (pc & ~fold & 0xFFFF) | start
    length = span
    if span > mask + 1:     # the window repeats its ROM: the copy holding pc
        run_start = pc & ~mask & 0xFFFF
        length = mask + 1
    if np.uint32((pc & fold) - start) >= np.uint32(span):
        length = np.int32(0)    # no ROM at pc (code in RAM runs in the decoded core)
    shift = base + (run_start & mask) - run_start
    return (np.int32(run_start), np.int32(max(length - 2, np.int32(0))), np.int32(shift),
            np.int32(length))


@register_jitable
def rom_byte(rom, window, addr):
    """The byte at `addr` if it is in the ROM run, else -1. One unsigned compare tells: an
    address below the run wraps to a large unsigned offset."""
    start, code_span, shift, span = window
    if np.uint32(addr - start) < np.uint32(span):
        return np.int32(rom[np.uint32(addr + shift)])
    return np.int32(-1)



@register_jitable
def is_riot_io(addr):
    """The RIOT's ports and timer (A12 = 0, A9 = 1, A7 = 1): no cartridge scheme listens there,
    so the console's bus hands these accesses to the RIOT alone."""
    return (addr & 0x1280) == 0x280



BNE = 0xD0
BACK_OVER_A_LOAD = 0xFB     # a branch offset of -5: back to the 3-byte load before the branch


@register_jitable
def idle_poll(rom, window, st, env, pc, p, clk):
    """The idle loop `load INTIM; BNE load` that most games wait in for the timer, when the CPU
    is about to run its BNE at `pc` (Z clear: taken) at system cycle `clk`: (polls, period,
    operation, address), `polls` the number of whole iterations (BNE, load) whose INTIM reads
    are sure to show a running, nonzero count, `period` the cycles of one iteration. Those reads
    change nothing and end in the same branch, so the loop skips them: the clock moves on by
    polls x period and the load's register takes the last read's value. Polls 0 where the code
    is anything else."""
    none = (np.int64(0), np.int64(0), np.int32(0), np.int32(0))
    if (p & FLAG_Z) != 0 or rom_byte(rom, window, pc) != BNE \
            or rom_byte(rom, window, u16(pc + 1)) != BACK_OVER_A_LOAD:
        return none
    load = rom_byte(rom, window, u16(pc - 3))
    lo = rom_byte(rom, window, u16(pc - 2))
    hi = rom_byte(rom, window, u16(pc - 1))
    if lo < 0 or hi < 0:
        return none
    if load == 0xAD:
        operation = np.int32(oc.LDA)
    elif load == 0xAE:
        operation = np.int32(oc.LDX)
    elif load == 0xAC:
        operation = np.int32(oc.LDY)
    else:
        return none
    addr = np.int32(lo | (hi << 8))
    if not is_riot_io(addr) or not riot.is_timer_read(addr) \
            or (addr & RIOT_TIMINT_READ) != 0:
        return none
    # The BNE's cycles as the core counts them (2, +1 taken, +1 into another page), the load's 4.
    _, branch_cycles = branch(BNE, p, BACK_OVER_A_LOAD, u16(pc + 2), np.int64(2))
    period = branch_cycles + 4
    return riot.reads_still_running(st, env, clk, period), period, operation, addr


@register_jitable
def clear_timer_poll(st, env):
    """The RIOT's mark of a running-count read, seen (layout.CPU_ATTENTION)."""
    st[env, L.CPU_ATTENTION] = np.int32(st[env, L.CPU_ATTENTION]) & L.ATTENTION_FRAME_ENDED


@register_jitable
def skip_idle_polls(rom, scheme, st, env, pc, a, x, y, p, clk, remaining):
    """After the decoded core's instruction that read a running timer count (CPU_ATTENTION's bit),
    with the next instruction at `pc`: when that is the idle loop's BNE, skip the iterations
    console_fast_path skips (the same `idle_poll`, the same cap of `remaining` instructions of
    the frame's budget, two per iteration). Returns (a, x, y, p, clk, instructions skipped)."""
    window = rom_window(rom, scheme, st, env, pc)
    polls, period, operation, timer = idle_poll(rom, window, st, env, pc, p, clk)
    polls = min(polls, np.int64(remaining) // 2)
    if polls <= 0:
        clear_timer_poll(st, env)
        return a, x, y, p, clk, np.int32(0)
    clk = clk + polls * period
    value = u8(riot.io_read(st, env, timer, clk))
    clear_timer_poll(st, env)               # (that read set it again)
    if operation == oc.LDA:
        a = value
    elif operation == oc.LDX:
        x = value
    else:
        y = value
    return a, x, y, set_nz(p, value), clk, np.int32(2 * polls)
