"""The console's 6507 on the CPU backend: a fast path for the common case, the decoded core for
everything else. Not used on the GPU, where a switch over 149 opcode bodies would only add
divergence between the threads of a warp.

The decoded core (cpu6507.py) pays, at every instruction, for looking up the addressing mode,
class and operation of the opcode and branching on each, and for the full 2600 bus at every
access (cartridge scheme, hotspots, TIA, RIOT). The fast path compiles one copy of the
instruction per official opcode, its mode, operation and cycles constants, reached by one switch
on the opcode; in these copies the bus is only

* ROM, the side-effect-free run of the current bank that holds the PC (`rom_window`), and
* the RIOT's 128 bytes of RAM,

and a device access that is the instruction's last (a store, the operand read of a load,
compare, ...; a push to a stack below $80, which is the TIA) is handed back pending: the loop
makes it through the console's bus with the instruction's final clock and data bus, as the
decoded core would, and applies the read operation to what it read. A TIA write that draws
nothing (WSYNC, a colour or playfield it already has, ...) is made inline there
(`tia.write_drawing_nothing`), the others through the out-of-line call. Any other access with a
possible side effect (a device or hotspot under a pointer, a read-modify-write of a device, a
pull from the TIA, code outside the window) gives up before the instruction has changed
anything, and the decoded core runs the same instruction from the same registers. So the fast
path is exact by construction: it makes the same reads and writes as the decoded core wherever
they have no side effects, and does not run otherwise. The operations themselves are the
decoded core's (`cpu6507.make_operations`).

The frame end can only come from a device access, so the loop checks it only after those.
"""

import numpy as np
from llvmlite import ir
from numba import types
from numba.core import cgutils, compiler
from numba.extending import intrinsic, overload, register_jitable

from .. import layout as L
from ..cpu import opcodes as oc
from ..cartridges import cart_e0
from ..riot import riot
from ..tia import tia
from ..cartridges.cart import SCHEME_3F, SCHEME_E0, may_switch_banks
from .bus import (INSTRUCTIONS_PER_FRAME, console_read, console_write, cpu_step,
                  device_write_drawing, run_instructions)
from ..cpu.cpu6507 import ALE, FLAG_B, FLAG_U, make_operations
from ..cpu.idle_loop import idle_poll, is_riot_io, rom_byte, rom_window

_ops = make_operations(ALE)
u8, u16, set_nz = _ops.u8, _ops.u16, _ops.set_nz
read_operation = _ops.read_operation
store_value = _ops.store_value
rmw_operation = _ops.rmw_operation
register_operation = _ops.register_operation
branch = _ops.branch

# How a fast instruction ended.
DONE = 0            # executed; it touched only ROM and RAM
WRITE_PENDING = 1   # executed but for its store to a device, which the loop makes
READ_PENDING = 2    # addressed, but its operand is a device's: the loop reads it and operates
GIVE_UP = 3         # nothing changed: the decoded core runs this instruction


_RESULT = types.Tuple((types.int32,) * 7 + (types.int64, types.int32, types.int32))


@register_jitable
def result(status, pc, a, x, y, s, p, clk, addr, value):
    return (np.int32(status), np.int32(pc), np.int32(a), np.int32(x), np.int32(y), np.int32(s),
            np.int32(p), np.int64(clk), np.int32(addr), np.int32(value))


@register_jitable
def is_ram(addr):
    return (addr & 0x1280) == 0x80


@register_jitable
def opcode_byte(rom, window, pc):
    """The opcode at `pc` if the whole instruction there is in the ROM run, else -1."""
    start, code_span, shift, span = window
    if np.uint32(pc - start) < np.uint32(code_span):
        return np.int32(rom[np.uint32(pc + shift)])
    return np.int32(-1)


@register_jitable
def operand_byte(rom, window, addr):
    """An operand byte of the instruction `opcode_byte` found: in the run, no check."""
    start, code_span, shift, span = window
    return np.int32(rom[np.uint32(addr + shift)])


@register_jitable
def load(rom, ram, env, window, addr):
    """The byte at `addr` if it is RAM or plain ROM, else -1."""
    if is_ram(addr):
        return np.int32(ram[env, addr & 0x7F])
    return rom_byte(rom, window, addr)


@register_jitable
def address(rom, ram, env, window, pc, x, y, mode):
    """The effective address of the instruction at `pc` in `mode`, the address of the next
    instruction, whether indexing crossed a page, and the last byte read (the data bus, which a
    TIA read shows in its undriven bits); ea -1 where a pointer byte is not RAM or plain ROM.
    As the decoded core: (zp),Y and (zp,X) read the pointer's high byte from pointer + 1 without
    wrapping (ALE's CPU), JMP (ind) has the page-wrap bug."""
    no = np.int32(-1)
    pc = pc + 1     # no 16-bit wrap: `opcode_byte` found the instruction's three bytes in ROM
    if mode == oc.IMP or mode == oc.ACC:
        return np.int32(0), pc, False, no
    if mode == oc.IMM or mode == oc.REL:
        return pc, pc + 1, False, no
    lo = operand_byte(rom, window, pc)
    if mode == oc.ZP:
        return lo, pc + 1, False, lo
    if mode == oc.ZPX:
        return u8(lo + x), pc + 1, False, lo
    if mode == oc.ZPY:
        return u8(lo + y), pc + 1, False, lo
    if mode == oc.IZX or mode == oc.IZY:
        pointer = u8(lo + x) if mode == oc.IZX else lo
        target_lo = load(rom, ram, env, window, pointer)
        target_hi = load(rom, ram, env, window, pointer + 1)
        if target_lo < 0 or target_hi < 0:
            return no, pc, False, no
        base = np.int32(target_lo | (target_hi << 8))
        if mode == oc.IZX:
            return base, pc + 1, False, target_hi
        ea = u16(base + y)
        return ea, pc + 1, ((base ^ ea) & 0x100) != 0, target_hi
    hi = operand_byte(rom, window, pc + 1)
    base = np.int32(lo | (hi << 8))
    next_pc = pc + 2
    if mode == oc.ABS:
        return base, next_pc, False, hi
    if mode == oc.ABX or mode == oc.ABY:
        ea = u16(base + (x if mode == oc.ABX else y))
        return ea, next_pc, ((base ^ ea) & 0x100) != 0, hi
    # IND
    target_lo = load(rom, ram, env, window, base)
    target_hi = load(rom, ram, env, window, (base & 0xFF00) | ((base + 1) & 0xFF))
    if target_lo < 0 or target_hi < 0:
        return no, pc, False, no
    return np.int32(target_lo | (target_hi << 8)), next_pc, False, target_hi


@register_jitable
def stack_is_ram(s):
    """Page one at $100 + s is the RIOT's RAM for s >= $80 (below, it is the TIA)."""
    return (s & 0x80) != 0


@register_jitable
def fast_instruction(rom, ram, env, window, pc, a, x, y, s, p, clk, opcode, mode, operation,
                     cls, cycles):
    """One instruction whose opcode, mode, operation, class and cycles are constants at each
    call site (the cases of `_opcode_switch`), so that only its own branch remains in each
    copy."""
    give_up = result(GIVE_UP, pc, a, x, y, s, p, clk, 0, 0)
    ea, next_pc, crossed, data_bus = address(rom, ram, env, window, pc, x, y, mode)
    if ea < 0:
        return give_up
    if data_bus < 0:
        data_bus = np.int32(opcode)     # nothing read since the opcode (#imm)
    clk = clk + cycles
    if cls == oc.CLS_READ:
        if crossed:
            clk = clk + 1
        v = operand_byte(rom, window, ea) if mode == oc.IMM else load(rom, ram, env, window, ea)
        if v < 0:
            # The operand read is the instruction's last access, as a store's write is.
            return result(READ_PENDING, next_pc, a, x, y, s, p, clk, ea,
                          data_bus | (operation << 8))
        a, x, y, s, p = read_operation(operation, v, a, x, y, s, p)
        return result(DONE, next_pc, a, x, y, s, p, clk, 0, 0)
    if cls == oc.CLS_WRITE:
        v, s = store_value(operation, ea, a, x, y, s)
        if is_ram(ea):
            ram[env, ea & 0x7F] = v
            return result(DONE, next_pc, a, x, y, s, p, clk, 0, 0)
        return result(WRITE_PENDING, next_pc, a, x, y, s, p, clk, ea, v)
    if cls == oc.CLS_RMW:
        if mode == oc.ACC:
            r, a, p = rmw_operation(operation, a, a, p)
            return result(DONE, next_pc, r, x, y, s, p, clk, 0, 0)
        if not is_ram(ea):
            return give_up
        r, a, p = rmw_operation(operation, np.int32(ram[env, ea & 0x7F]), a, p)
        ram[env, ea & 0x7F] = r
        return result(DONE, next_pc, a, x, y, s, p, clk, 0, 0)
    if operation == oc.BRANCH:
        offset = operand_byte(rom, window, ea)
        next_pc, clk = branch(opcode, p, offset, next_pc, clk)
        return result(DONE, next_pc, a, x, y, s, p, clk, 0, 0)
    if operation == oc.JMP:
        return result(DONE, ea, a, x, y, s, p, clk, 0, 0)
    if operation == oc.JSR:
        # Both target bytes are read before the pushes here, after them in the decoded core:
        # the same bytes, since they are ROM (a push could not have changed them).
        lo = operand_byte(rom, window, next_pc)
        hi = operand_byte(rom, window, next_pc + 1)
        if not stack_is_ram(s) or not stack_is_ram(u8(s - 1)):
            return give_up
        back = next_pc + 1     # the address of the target's high byte
        ram[env, s & 0x7F] = back >> 8
        ram[env, u8(s - 1) & 0x7F] = back & 0xFF
        return result(DONE, lo | (hi << 8), a, x, y, u8(s - 2), p, clk, 0, 0)
    if operation == oc.RTS:
        # The decoded core also reads $100 + s and the return address itself (no side effect
        # when they are RAM or plain ROM, which is checked).
        if not stack_is_ram(s) or not stack_is_ram(u8(s + 1)) or not stack_is_ram(u8(s + 2)):
            return give_up
        back = np.int32(ram[env, u8(s + 1) & 0x7F]) | (np.int32(ram[env, u8(s + 2) & 0x7F]) << 8)
        if load(rom, ram, env, window, back) < 0:
            return give_up
        return result(DONE, u16(back + 1), a, x, y, u8(s + 2), p, clk, 0, 0)
    if operation <= oc.CLV:
        a, x, y, s, p = register_operation(operation, a, x, y, s, p)
        return result(DONE, next_pc, a, x, y, s, p, clk, 0, 0)
    if operation == oc.PHA or operation == oc.PHP:
        v = a if operation == oc.PHA else (p | FLAG_B | FLAG_U)
        if stack_is_ram(s):
            ram[env, s & 0x7F] = v
            return result(DONE, next_pc, a, x, y, u8(s - 1), p, clk, 0, 0)
        # A stack below $80 is the TIA (games push the flags into ENAM0-ENABL): the push is the
        # instruction's only access after the opcode, so it can be pending like a store.
        return result(WRITE_PENDING, next_pc, a, x, y, u8(s - 1), p, clk, 0x100 | s, v)
    if operation == oc.PLA or operation == oc.PLP:
        if not stack_is_ram(s) or not stack_is_ram(u8(s + 1)):
            return give_up
        v = np.int32(ram[env, u8(s + 1) & 0x7F])
        if operation == oc.PLA:
            return result(DONE, next_pc, v, x, y, u8(s + 1), set_nz(p, v), clk, 0, 0)
        return result(DONE, next_pc, a, x, y, u8(s + 1), (v & 0xCF) | FLAG_U, clk, 0, 0)
    # NOP
    return result(DONE, next_pc, a, x, y, s, p, clk, 0, 0)


# The opcodes with a fast copy: the official instruction set without BRK and RTI (interrupt
# entry and return, rare on the 2600). The undocumented opcodes run in the decoded core.
_OFFICIAL_OPERATIONS = set(range(oc.LDA, oc.BIT + 1)) | {oc.STA, oc.STX, oc.STY} \
    | set(range(oc.INC, oc.ROR + 1)) | set(range(oc.BRANCH, oc.PLP + 1))
_UNDOCUMENTED_TWINS = (0xEB,)   # SBC #imm's undocumented copy
FAST_OPCODES = tuple(
    opcode for opcode in range(256)
    if (int(oc.OPERATION[opcode]) in _OFFICIAL_OPERATIONS and opcode not in _UNDOCUMENTED_TWINS)
    or opcode == 0xEA)          # NOP


# Each opcode's mode, operation, class and cycles, read with the opcode a constant at each case
# of `_opcode_switch` (module-level arrays are constants in compiled code: the reads fold away).
_MODES = oc.ADDRESS_MODE.astype(np.int32)
_OPERATIONS = oc.OPERATION.astype(np.int32)
_CLASSES = oc.OPERATION_CLASS.astype(np.int32)
_CYCLES = oc.BASE_CYCLES.astype(np.int32)
_IS_FAST = np.zeros(256, np.bool_)
_IS_FAST[list(FAST_OPCODES)] = True


def _one_case(op, rom, ram, env, window, pc, a, x, y, s, p, clk):
    return fast_instruction(rom, ram, env, window, pc, a, x, y, s, p, clk, op, _MODES[op],
                            _OPERATIONS[op], _CLASSES[op], _CYCLES[op])


def _give_up(op, rom, ram, env, window, pc, a, x, y, s, p, clk):
    return result(GIVE_UP, pc, a, x, y, s, p, clk, 0, 0)


@intrinsic
def _opcode_switch(typingctx, op, rom, ram, env, window, pc, a, x, y, s, p, clk):
    """One LLVM `switch` over all 256 opcodes, each fast one a case that runs `fast_instruction`
    with its constants, the others giving up. Written as an if-chain, LLVM's SimplifyCFG folded
    it into switches of at most 128, then 64, cases, each lowered behind its own range check
    (three, 4 to 13 instructions a pass); a switch covering every value of a byte needs none.
    The cases call two functions compiled once (`_one_case`, `_give_up`), forced inline, whose
    table reads fold to each opcode's constants."""
    if op != types.int32:
        return None
    signature = _RESULT(op, rom, ram, env, window, pc, a, x, y, s, p, clk)

    def codegen(context, builder, sig, args):
        flags = compiler.Flags()
        flags.forceinline = True
        flags.no_cpython_wrapper = True
        flags.no_cfunc_wrapper = True
        flags.nrt = False
        flags.error_model = "numpy"
        fast = context.compile_subroutine(builder, _one_case, sig, flags=flags)
        slow = context.compile_subroutine(builder, _give_up, sig, flags=flags)
        function = builder.function
        result_slot = cgutils.alloca_once(builder, context.get_value_type(sig.return_type))
        done = function.append_basic_block("dispatched")
        give_up = function.append_basic_block("give_up")
        # The opcode is a byte (fast_step tested the fetch): every value has its case, and the
        # default is unreachable, so that no range check guards the jump table.
        not_a_byte = function.append_basic_block("not_a_byte")
        switch = builder.switch(args[0], not_a_byte)
        for opcode in range(256):
            if not _IS_FAST[opcode]:
                switch.add_case(ir.Constant(args[0].type, opcode), give_up)
                continue
            case = function.append_basic_block(f"opcode_{opcode:02x}")
            switch.add_case(ir.Constant(args[0].type, opcode), case)
            builder.position_at_end(case)
            value = context.call_internal(builder, fast.fndesc, sig,
                                          [ir.Constant(args[0].type, opcode), *args[1:]])
            builder.store(value, result_slot)
            builder.branch(done)
        builder.position_at_end(give_up)
        builder.store(context.call_internal(builder, slow.fndesc, sig, args), result_slot)
        builder.branch(done)
        builder.position_at_end(not_a_byte)
        builder.unreachable()
        builder.position_at_end(done)
        return builder.load(result_slot)
    return signature, codegen


@register_jitable
def fast_step(rom, ram, env, window, pc, a, x, y, s, p, clk):
    """The opcode fetch and one switch over the opcode (`_opcode_switch`)."""
    op = opcode_byte(rom, window, pc)   # code in RAM runs in the decoded core
    if op < 0:
        return result(GIVE_UP, pc, a, x, y, s, p, clk, 0, 0)
    return _opcode_switch(np.int32(op), rom, ram, env, window, pc, a, x, y, s, p, clk)


@register_jitable
def store(bus, addr, value, clk):
    """A pending store through the console's bus; a TIA write that draws nothing (WSYNC, a
    colour it already has, ...) made inline, without the out-of-line call."""
    rom, scheme, ram, st, fb, env = bus
    if (addr & 0x1080) == 0 and scheme < SCHEME_3F:    # the TIA, no cartridge listening there
        after = tia.write_drawing_nothing(st, env, addr & 0x3F, value, clk)
        if after >= 0:
            return after
        return np.int64(device_write_drawing(st, fb, env, np.int32(addr), np.int32(value),
                                             np.int64(clk)))
    return np.int64(console_write(bus, addr, value, clk))


@register_jitable
def finish_pending(bus, status, pc, a, x, y, s, p, clk, addr, value):
    """Make the device access a fast instruction left pending: its store (WRITE_PENDING: `value`
    to `addr`), or its operand read (READ_PENDING: `value` holds the data bus in bits 0-7 and
    the read operation above), and the operation on what it read."""
    rom, scheme, ram, st, fb, env = bus
    if status == WRITE_PENDING:
        if is_riot_io(addr):
            riot.io_write(st, env, addr, value, clk)
            return pc, a, x, y, s, p, np.int64(clk)
        return pc, a, x, y, s, p, store(bus, addr, value, clk)
    if is_riot_io(addr):
        # INTIM polled in a loop waits for the timer in most games: read inline, not out of line.
        # Here and not in console_read: this is one site, where console_read is inlined at every
        # access site of the decoded core (and on the GPU), which would copy the timer to each.
        operand = u8(riot.io_read(st, env, addr, clk))
    else:
        # E0 games read tables in the other segments, outside the window: inline too.
        operand = cart_e0.plain_read(rom, st, env, addr) \
            if scheme == SCHEME_E0 and (addr & 0x1000) != 0 else np.int32(-1)
        if operand < 0:
            operand = u8(console_read(bus, addr, clk, value & 0xFF))
    a, x, y, s, p = read_operation(value >> 8, operand, a, x, y, s, p)
    return pc, a, x, y, s, p, np.int64(clk)


@overload(run_instructions, target="cpu", jit_options={"forceinline": True})
def _run_instructions_cpu(rom, scheme, ram, st, fb, env, pc, a, x, y, s, p, clk):
    def run(rom, scheme, ram, st, fb, env, pc, a, x, y, s, p, clk):
        bus = (rom, scheme, ram, st, fb, env)
        window = rom_window(rom, scheme, st, env, pc)
        clk = np.int64(clk)
        jammed = False
        # ALE's frame runs at most INSTRUCTIONS_PER_FRAME instructions, skipped polls included:
        # one count, down, for both (counting up kept two induction variables in the loop head).
        remaining = np.int64(INSTRUCTIONS_PER_FRAME)
        while remaining > 0:
            status, pc2, a2, x2, y2, s2, p2, clk2, addr, value = fast_step(
                rom, ram, env, window, pc, a, x, y, s, p, clk)
            remaining -= 1
            if status == DONE:
                pc, a, x, y, s, p, clk = pc2, a2, x2, y2, s2, p2, clk2
                continue
            if status == GIVE_UP:
                pc, a, x, y, s, p, clk, jammed = cpu_step(bus, pc, a, x, y, s, p, clk)
                if jammed:
                    break
                # The decoded core may have switched banks, or left an E0 segment or FE half
                # (code that jumped there gave up once, and ran here): the window follows.
                window = rom_window(rom, scheme, st, env, pc)
            else:
                pc, a, x, y, s, p, clk = finish_pending(bus, status, pc2, a2, x2, y2, s2, p2,
                                                        clk2, addr, value)
                # Recomputing the window after every TIA and RIOT access cost ~30 instructions
                # each time; only cartridge hotspots change it.
                if may_switch_banks(scheme, addr):
                    window = rom_window(rom, scheme, st, env, pc)
            if (np.int32(st[env, L.CPU_ATTENTION]) & L.ATTENTION_FRAME_ENDED) != 0:
                break
            if status == READ_PENDING and is_riot_io(addr):
                polls, period, operation, timer = idle_poll(rom, window, st, env, pc, p, clk)
                polls = min(polls, remaining // 2)
                if polls > 0:
                    clk = clk + polls * period
                    a, x, y, s, p = read_operation(
                        operation, u8(riot.io_read(st, env, timer, clk)), a, x, y, s, p)
                    remaining -= 2 * polls
        return pc, a, x, y, s, p, clk, jammed
    return run
