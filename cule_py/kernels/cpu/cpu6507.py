"""The 6507 CPU core, written once and compiled by numba for the CPU and for CUDA.

The core knows nothing about the Atari 2600. `make_cpu(bus_read, bus_write, model)` binds it at
compile time to a bus (two jitable functions) and to a CPU model, and returns a jitable
`step(bus, pc, a, x, y, s, p, clk)` that executes one instruction and returns
`(pc, a, x, y, s, p, clk, jammed)`. What the instructions compute, without the bus, is in
`make_operations(model)`, which `step` and the console's CPU fast path (console_fast_path.py)
both call.

Bus contract (both functions are `register_jitable`):

* `bus_read(bus, addr, clk, data_bus) -> int` where `data_bus` is the value of the previous bus
  access of this instruction (the 2600's TIA returns it in its undriven bits);
* `bus_write(bus, addr, value, clk) -> clk`; a device may stall the CPU by returning a later clock
  (the 2600's WSYNC does).

`bus` is opaque to the core: whatever tuple the binding's caller passes down.

Two CPU models:

* `NMOS` behaves as real silicon: decimal flags as the NMOS chip computes them, read-modify-write
  instructions write the unmodified value first, indexed accesses make the dummy read of the
  un-carried address, zero-page pointers wrap inside page zero. This is what the public test suites
  encode.
* `ALE` behaves as ALE's `M6502Low`, which the 2600 console uses for exactness with ale-py:
  decimal ADC/SBC through a BCD table with N and Z from the decimal result, one write per
  read-modify-write, no dummy reads, the pointer high byte of (zp,X)/(zp),Y read from pointer+1
  without wrapping, and JAM stops the CPU until reset with its 2 cycles charged.

In both models the instruction's base cycles are charged at the opcode fetch and page-cross
penalties before the operand access, so every access after the opcode fetch sees the clock at the
end of the instruction. That is ALE's timing; for the flat test bus the timing of accesses is not
observable, only the count.
"""

from types import SimpleNamespace

import numpy as np
from numba.extending import register_jitable

from . import opcodes as oc

NMOS = 0
ALE = 1
MODELS = {"nmos": NMOS, "ale": ALE}

FLAG_C, FLAG_Z, FLAG_I, FLAG_D, FLAG_B, FLAG_U, FLAG_V, FLAG_N = 1, 2, 4, 8, 16, 32, 64, 128

# One table lookup decodes an opcode: mode in bits 0-3, operation 4-10, class 11-12, cycles 13-15.
DECODE = (
    oc.ADDRESS_MODE.astype(np.int32)
    | (oc.OPERATION.astype(np.int32) << 4)
    | (oc.OPERATION_CLASS.astype(np.int32) << 11)
    | (oc.BASE_CYCLES.astype(np.int32) << 13)
).astype(np.int32)


def _narrowing_helpers(int_style):
    """The integer style of the hot loop; see docs/performance-log.md for the measurements."""
    if int_style == "int32":
        @register_jitable
        def u8(v):
            return np.int32(v & 0xFF)

        @register_jitable
        def u16(v):
            return np.int32(v & 0xFFFF)
    elif int_style == "mask":
        @register_jitable
        def u8(v):
            return v & 0xFF

        @register_jitable
        def u16(v):
            return v & 0xFFFF
    else:
        raise ValueError(f"unknown integer style {int_style!r}")
    return u8, u16


def make_operations(model, int_style="int32"):
    """The 6507's operations without its bus, for `model`: what an instruction does with the
    value it read (or the registers), as jitable functions of the operation number. The decoded
    core calls them with the operation it looked up; the console's CPU fast path
    (console_fast_path.py) with a constant, so that one definition serves both."""
    if model not in (NMOS, ALE):
        raise ValueError(f"unknown CPU model {model!r}")
    u8, u16 = _narrowing_helpers(int_style)
    is_ale = model == ALE
    # Every integer local of the core is an int32: each assignment and return is u8/u16(...) or
    # np.int32(...). numba types int32 op int32 as int64; the narrowing at every assignment keeps
    # the GPU code 32-bit (docs/performance-log.md, "Integer style in the hot loop (measured)").

    @register_jitable
    def set_nz(p, v):
        p = np.int32(p & 0x7D)
        if v == 0:
            p = np.int32(p | FLAG_Z)
        return np.int32(p | (v & 0x80))

    @register_jitable
    def bcd_value(v):
        return np.int32((v >> 4) * 10 + (v & 0x0F))

    @register_jitable
    def bcd_encode(n):
        n = np.int32(n % 100)
        return np.int32(((n // 10) << 4) | (n % 10))

    @register_jitable
    def adc(a, v, p):
        carry = np.int32(p & FLAG_C)
        binary = np.int32(a + v + carry)
        p = np.int32(p & 0x3C)  # clear N V Z C
        if (p & FLAG_D) == 0:
            r = u8(binary)
            if binary > 0xFF:
                p = np.int32(p | FLAG_C)
            p = np.int32(p | (((a ^ r) & (v ^ r)) & 0x80) >> 1)
            return r, set_nz(p, r)
        if is_ale:
            total = np.int32(bcd_value(a) + bcd_value(v) + carry)
            r = u8(bcd_encode(total & 0xFF))
            if total > 99:
                p = np.int32(p | FLAG_C)
            p = np.int32(p | (((a ^ r) & (v ^ r)) & 0x80) >> 1)
            return r, set_nz(p, r)
        # NMOS: Z from the binary sum, N and V from the half-adjusted sum, C from the full adjust.
        lo = np.int32((a & 0x0F) + (v & 0x0F) + carry)
        if lo >= 0x0A:
            lo = np.int32(((lo + 0x06) & 0x0F) + 0x10)
        t = np.int32((a & 0xF0) + (v & 0xF0) + lo)
        if u8(binary) == 0:
            p = np.int32(p | FLAG_Z)
        p = np.int32(p | (t & 0x80))
        p = np.int32(p | ((~(a ^ v) & (a ^ t) & 0x80) >> 1))
        if t >= 0xA0:
            t = np.int32(t + 0x60)
        if t >= 0x100:
            p = np.int32(p | FLAG_C)
        return u8(t), p

    @register_jitable
    def sbc(a, v, p):
        if (p & FLAG_D) == 0:
            return adc(a, v ^ 0xFF, p)
        borrow = np.int32(1 - (p & FLAG_C))
        p = np.int32(p & 0x3C)
        if is_ale:
            d = np.int32(bcd_value(a) - bcd_value(v) - borrow)
            if d < 0:
                d = np.int32(d + 100)
            if d < 0:
                # ALE indexes its encode table below zero and lands in the decode table.
                r = u8(bcd_value(256 + d))
            else:
                r = u8(bcd_encode(d))
            if a >= v + borrow:
                p = np.int32(p | FLAG_C)
            p = np.int32(p | (((a ^ r) & (v ^ r)) & 0x80) >> 1)
            return r, set_nz(p, r)
        # NMOS: every flag comes from the binary subtraction; only A is decimal-adjusted.
        binary = np.int32(a - v - borrow)
        r = u8(binary)
        if binary >= 0:
            p = np.int32(p | FLAG_C)
        p = np.int32(p | (((a ^ v) & (a ^ r) & 0x80) >> 1))
        p = set_nz(p, r)
        lo = np.int32((a & 0x0F) - (v & 0x0F) - borrow)
        if lo < 0:
            lo = np.int32(((lo - 0x06) & 0x0F) - 0x10)
        t = np.int32((a & 0xF0) - (v & 0xF0) + lo)
        if t < 0:
            t = np.int32(t - 0x60)
        return u8(t), p

    @register_jitable
    def compare(reg, v, p):
        t = np.int32(reg - v)
        p = set_nz(p & 0xFE, u8(t))
        if t >= 0:
            p = np.int32(p | FLAG_C)
        return p

    @register_jitable
    def arr(a, v, p):
        t = np.int32(a & v)
        carry_in = np.int32(p & FLAG_C)
        r = u8((t >> 1) | (carry_in << 7))
        p = np.int32(p & 0x3C)
        if (p & FLAG_D) == 0:
            p = set_nz(p, r)
            p = np.int32(p | ((r >> 6) & 1))           # C = bit 6
            p = np.int32(p | ((r ^ (r << 1)) & 0x40))  # V = bit 6 xor bit 5
            return r, p
        # Decimal ARR: N and Z from the shifted value, V from the AND result, then BCD fix-ups.
        p = np.int32(p | (carry_in << 7))
        if r == 0:
            p = np.int32(p | FLAG_Z)
        p = np.int32(p | ((r ^ t) & 0x40))
        if (t & 0x0F) + (t & 0x01) > 5:
            r = np.int32((r & 0xF0) | ((r + 6) & 0x0F))
        if (t & 0xF0) + (t & 0x10) > 0x50:
            p = np.int32(p | FLAG_C)
            r = u8(r + 0x60)
        return r, p

    @register_jitable
    def read_operation(operation, v, a, x, y, s, p):
        """A read-class operation on the value read: the new (a, x, y, s, p)."""
        if operation == oc.LDA:
            a = v
            p = set_nz(p, a)
        elif operation == oc.LDX:
            x = v
            p = set_nz(p, x)
        elif operation == oc.LDY:
            y = v
            p = set_nz(p, y)
        elif operation == oc.CMP:
            p = compare(a, v, p)
        elif operation == oc.AND:
            a = np.int32(a & v)
            p = set_nz(p, a)
        elif operation == oc.ADC:
            a, p = adc(a, v, p)
        elif operation == oc.ORA:
            a = np.int32(a | v)
            p = set_nz(p, a)
        elif operation == oc.EOR:
            a = np.int32(a ^ v)
            p = set_nz(p, a)
        elif operation == oc.SBC:
            a, p = sbc(a, v, p)
        elif operation == oc.CPX:
            p = compare(x, v, p)
        elif operation == oc.CPY:
            p = compare(y, v, p)
        elif operation == oc.BIT:
            p = np.int32((p & 0x3D) | (v & 0xC0))
            if (a & v) == 0:
                p = np.int32(p | FLAG_Z)
        elif operation == oc.LAX:
            a = v
            x = v
            p = set_nz(p, v)
        elif operation == oc.NOP_READ:
            pass
        elif operation == oc.ANC:
            a = np.int32(a & v)
            p = np.int32(set_nz(p & 0xFE, a) | (a >> 7))
        elif operation == oc.ALR:
            t = np.int32(a & v)
            a = np.int32(t >> 1)
            p = np.int32(set_nz(p & 0xFE, a) | (t & 1))
        elif operation == oc.ARR:
            a, p = arr(a, v, p)
        elif operation == oc.SBX:
            t = np.int32((a & x) - v)
            x = u8(t)
            p = set_nz(p & 0xFE, x)
            if t >= 0:
                p = np.int32(p | FLAG_C)
        elif operation == oc.ANE:
            a = np.int32((a | 0xEE) & x & v)
            p = set_nz(p, a)
        elif operation == oc.LXA:
            a = np.int32((a | 0xEE) & v)
            x = a
            p = set_nz(p, a)
        else:  # LAS
            a = np.int32(s & v)
            x = a
            s = a
            p = set_nz(p, a)
        return a, x, y, s, p

    @register_jitable
    def store_value(operation, ea, a, x, y, s):
        """A write-class operation: the value stored at `ea`, and s (TAS sets it)."""
        if operation == oc.STA:
            v = a
        elif operation == oc.STX:
            v = x
        elif operation == oc.STY:
            v = y
        elif operation == oc.SAX:
            v = np.int32(a & x)
        else:
            # SHA/SHX/SHY/TAS store the register ANDed with (high byte of the target + 1).
            if operation == oc.SHA:
                v = np.int32(a & x)
            elif operation == oc.SHX:
                v = x
            elif operation == oc.SHY:
                v = y
            else:  # TAS
                s = np.int32(a & x)
                v = s
            # Both models use the high byte of the final (indexed) address and never corrupt
            # the address: ALE does so, and so do the public single-step suites.
            v = np.int32(v & u8((ea >> 8) + 1))
        return v, s

    @register_jitable
    def rmw_operation(operation, v, a, p):
        """A read-modify-write operation on `v`: the result written back, and the new (a, p)."""
        if operation == oc.INC or operation == oc.ISC:
            r = u8(v + 1)
        elif operation == oc.DEC or operation == oc.DCP:
            r = u8(v - 1)
        elif operation == oc.ASL or operation == oc.SLO:
            r = u8(v << 1)
            p = np.int32((p & 0xFE) | (v >> 7))
        elif operation == oc.LSR or operation == oc.SRE:
            r = np.int32(v >> 1)
            p = np.int32((p & 0xFE) | (v & 1))
        elif operation == oc.ROL or operation == oc.RLA:
            r = u8((v << 1) | (p & FLAG_C))
            p = np.int32((p & 0xFE) | (v >> 7))
        else:  # ROR, RRA
            r = np.int32((v >> 1) | ((p & FLAG_C) << 7))
            p = np.int32((p & 0xFE) | (v & 1))
        if operation <= oc.ROR:
            p = set_nz(p, r)
        elif operation == oc.SLO:
            a = np.int32(a | r)
            p = set_nz(p, a)
        elif operation == oc.RLA:
            a = np.int32(a & r)
            p = set_nz(p, a)
        elif operation == oc.SRE:
            a = np.int32(a ^ r)
            p = set_nz(p, a)
        elif operation == oc.RRA:
            a, p = adc(a, r, p)
        elif operation == oc.DCP:
            p = compare(a, r, p)
        else:  # ISC
            a, p = sbc(a, r, p)
        return r, a, p

    @register_jitable
    def register_operation(operation, a, x, y, s, p):
        """The implied-mode operations DEY to CLV: the new (a, x, y, s, p)."""
        if operation <= oc.TXS:
            if operation == oc.DEY:
                y = u8(y - 1)
                p = set_nz(p, y)
            elif operation == oc.DEX:
                x = u8(x - 1)
                p = set_nz(p, x)
            elif operation == oc.INX:
                x = u8(x + 1)
                p = set_nz(p, x)
            elif operation == oc.INY:
                y = u8(y + 1)
                p = set_nz(p, y)
            elif operation == oc.TAX:
                x = a
                p = set_nz(p, x)
            elif operation == oc.TAY:
                y = a
                p = set_nz(p, y)
            elif operation == oc.TXA:
                a = x
                p = set_nz(p, a)
            elif operation == oc.TYA:
                a = y
                p = set_nz(p, a)
            elif operation == oc.TSX:
                x = s
                p = set_nz(p, x)
            else:  # TXS
                s = x
        elif operation <= oc.CLV:
            if operation == oc.CLC:
                p = np.int32(p & ~FLAG_C)
            elif operation == oc.SEC:
                p = np.int32(p | FLAG_C)
            elif operation == oc.CLD:
                p = np.int32(p & ~FLAG_D)
            elif operation == oc.SED:
                p = np.int32(p | FLAG_D)
            elif operation == oc.CLI:
                p = np.int32(p & ~FLAG_I)
            elif operation == oc.SEI:
                p = np.int32(p | FLAG_I)
            else:
                p = np.int32(p & ~FLAG_V)
        return a, x, y, s, p

    @register_jitable
    def branch(op, p, offset, pc, clk):
        """Branch opcode `op` with flags `p` and offset byte `offset`, `pc` the address after the
        instruction: the next pc and the clock (+1 taken, +1 more into another page)."""
        # Opcode bits 7-6 pick the flag (N, V, C, Z), bit 5 the value that takes the branch.
        sel = np.int32(op >> 6)
        if sel == 0:
            flag = np.int32(p & FLAG_N)
        elif sel == 1:
            flag = np.int32(p & FLAG_V)
        elif sel == 2:
            flag = np.int32(p & FLAG_C)
        else:
            flag = np.int32(p & FLAG_Z)
        if (flag != 0) == ((op & 0x20) != 0):
            target = u16(pc + offset - ((offset & 0x80) << 1))
            clk = clk + 1
            if (target ^ pc) & 0xFF00:
                clk = clk + 1
            pc = target
        return pc, clk

    return SimpleNamespace(u8=u8, u16=u16, set_nz=set_nz, read_operation=read_operation,
                           store_value=store_value, rmw_operation=rmw_operation,
                           register_operation=register_operation, branch=branch)


def make_cpu(bus_read, bus_write, model, int_style="int32"):
    """Return a jitable one-instruction `step` bound to `bus_read`/`bus_write` and `model`."""
    operations = make_operations(model, int_style)
    u8, u16, set_nz = operations.u8, operations.u16, operations.set_nz
    is_ale = model == ALE
    read_operation = operations.read_operation
    store_value = operations.store_value
    rmw_operation = operations.rmw_operation
    register_operation = operations.register_operation
    branch = operations.branch

    @register_jitable
    def push(bus, s, v, clk):
        clk = bus_write(bus, 0x100 | s, v, clk)
        return u8(s - 1), clk

    @register_jitable
    def pull(bus, s, clk, last):
        s = u8(s + 1)
        return s, u8(bus_read(bus, 0x100 | s, clk, last))

    @register_jitable
    def step(bus, pc, a, x, y, s, p, clk):
        start_pc = pc
        op = u8(bus_read(bus, pc, clk, np.int32(0)))
        last = op
        pc = u16(pc + 1)
        dec = np.int32(DECODE[op])
        mode = np.int32(dec & 0x0F)
        operation = np.int32((dec >> 4) & 0x7F)
        cls = np.int32((dec >> 11) & 0x03)
        clk = clk + (dec >> 13)

        # ---- effective address -------------------------------------------------------------
        ea = np.int32(0)
        crossed = False
        base = np.int32(0)
        if mode == oc.IMM or mode == oc.REL:
            ea = pc
            pc = u16(pc + 1)
        elif mode == oc.ZP:
            ea = u8(bus_read(bus, pc, clk, last))
            last = ea
            pc = u16(pc + 1)
        elif mode == oc.ABS:
            lo = u8(bus_read(bus, pc, clk, last))
            hi = u8(bus_read(bus, u16(pc + 1), clk, lo))
            last = hi
            pc = u16(pc + 2)
            ea = np.int32(lo | (hi << 8))
        elif mode == oc.ZPX or mode == oc.ZPY:
            zp = u8(bus_read(bus, pc, clk, last))
            last = zp
            pc = u16(pc + 1)
            if mode == oc.ZPX:
                ea = u8(zp + x)
            else:
                ea = u8(zp + y)
        elif mode == oc.ABX or mode == oc.ABY:
            lo = u8(bus_read(bus, pc, clk, last))
            hi = u8(bus_read(bus, u16(pc + 1), clk, lo))
            last = hi
            pc = u16(pc + 2)
            base = np.int32(lo | (hi << 8))
            if mode == oc.ABX:
                ea = u16(base + x)
            else:
                ea = u16(base + y)
            crossed = ((base ^ ea) & 0x100) != 0
        elif mode == oc.IZY:
            zp = u8(bus_read(bus, pc, clk, last))
            pc = u16(pc + 1)
            lo = u8(bus_read(bus, zp, clk, zp))
            if is_ale:
                hi = u8(bus_read(bus, zp + 1, clk, lo))
            else:
                hi = u8(bus_read(bus, u8(zp + 1), clk, lo))
            last = hi
            base = np.int32(lo | (hi << 8))
            ea = u16(base + y)
            crossed = ((base ^ ea) & 0x100) != 0
        elif mode == oc.IZX:
            zp = u8(bus_read(bus, pc, clk, last))
            pc = u16(pc + 1)
            ptr = u8(zp + x)
            lo = u8(bus_read(bus, ptr, clk, zp))
            if is_ale:
                hi = u8(bus_read(bus, ptr + 1, clk, lo))
            else:
                hi = u8(bus_read(bus, u8(ptr + 1), clk, lo))
            last = hi
            ea = np.int32(lo | (hi << 8))
        elif mode == oc.IND:
            lo = u8(bus_read(bus, pc, clk, last))
            hi = u8(bus_read(bus, u16(pc + 1), clk, lo))
            pc = u16(pc + 2)
            ptr = np.int32(lo | (hi << 8))
            tlo = u8(bus_read(bus, ptr, clk, hi))
            # The page-wrap bug: the high byte comes from the start of the same page.
            thi = u8(bus_read(bus, (ptr & 0xFF00) | ((ptr + 1) & 0xFF), clk, tlo))
            last = thi
            ea = np.int32(tlo | (thi << 8))

        # ---- read class ----------------------------------------------------------------------
        if cls == oc.CLS_READ:
            if crossed:
                clk = clk + 1
                if not is_ale:
                    last = u8(bus_read(bus, (ea - 0x100) & 0xFFFF, clk, last))
            v = u8(bus_read(bus, ea, clk, last))
            a, x, y, s, p = read_operation(operation, v, a, x, y, s, p)
            return pc, a, x, y, s, p, clk, False

        # ---- write class ---------------------------------------------------------------------
        if cls == oc.CLS_WRITE:
            if not is_ale and (mode == oc.ABX or mode == oc.ABY or mode == oc.IZY):
                bus_read(bus, (base & 0xFF00) | (ea & 0xFF), clk, last)
            v, s = store_value(operation, ea, a, x, y, s)
            clk = bus_write(bus, ea, v, clk)
            return pc, a, x, y, s, p, clk, False

        # ---- read-modify-write class ---------------------------------------------------------
        if cls == oc.CLS_RMW:
            if mode == oc.ACC:
                v = a
            else:
                if not is_ale and (mode == oc.ABX or mode == oc.ABY or mode == oc.IZY):
                    last = u8(bus_read(bus, (base & 0xFF00) | (ea & 0xFF), clk, last))
                v = u8(bus_read(bus, ea, clk, last))
                if not is_ale:
                    clk = bus_write(bus, ea, v, clk)
            r, a, p = rmw_operation(operation, v, a, p)
            if mode == oc.ACC:
                a = r
            else:
                clk = bus_write(bus, ea, r, clk)
            return pc, a, x, y, s, p, clk, False

        # ---- control, stack, flags and register transfers ------------------------------------
        if operation == oc.BRANCH:
            offset = u8(bus_read(bus, ea, clk, last))
            pc, clk = branch(op, p, offset, pc, clk)
        elif operation == oc.JMP:
            pc = ea
        elif operation == oc.JSR:
            # The high target byte is fetched after the pushes, as the chip does; JSR pushes the
            # address of that byte.
            lo = u8(bus_read(bus, pc, clk, last))
            pc = u16(pc + 1)
            bus_read(bus, 0x100 | s, clk, lo)
            s, clk = push(bus, s, pc >> 8, clk)
            s, clk = push(bus, s, pc & 0xFF, clk)
            hi = u8(bus_read(bus, pc, clk, pc & 0xFF))
            pc = np.int32(lo | (hi << 8))
        elif operation == oc.RTS:
            last = u8(bus_read(bus, 0x100 | s, clk, last))
            s, lo = pull(bus, s, clk, last)
            s, hi = pull(bus, s, clk, lo)
            pc = np.int32(lo | (hi << 8))
            bus_read(bus, pc, clk, hi)
            pc = u16(pc + 1)
        elif operation <= oc.CLV:
            a, x, y, s, p = register_operation(operation, a, x, y, s, p)
        elif operation == oc.PHA:
            s, clk = push(bus, s, a, clk)
        elif operation == oc.PHP:
            s, clk = push(bus, s, p | FLAG_B | FLAG_U, clk)
        elif operation == oc.PLA:
            last = u8(bus_read(bus, 0x100 | s, clk, last))
            s, a = pull(bus, s, clk, last)
            p = set_nz(p, a)
        elif operation == oc.PLP:
            last = u8(bus_read(bus, 0x100 | s, clk, last))
            s, v = pull(bus, s, clk, last)
            p = np.int32((v & 0xCF) | FLAG_U)
        elif operation == oc.RTI:
            last = u8(bus_read(bus, 0x100 | s, clk, last))
            s, v = pull(bus, s, clk, last)
            p = np.int32((v & 0xCF) | FLAG_U)
            s, lo = pull(bus, s, clk, v)
            s, hi = pull(bus, s, clk, lo)
            pc = np.int32(lo | (hi << 8))
        elif operation == oc.BRK:
            bus_read(bus, pc, clk, last)
            pc = u16(pc + 1)
            s, clk = push(bus, s, pc >> 8, clk)
            s, clk = push(bus, s, pc & 0xFF, clk)
            s, clk = push(bus, s, p | FLAG_B | FLAG_U, clk)
            p = np.int32(p | FLAG_I)
            lo = u8(bus_read(bus, 0xFFFE, clk, p))
            hi = u8(bus_read(bus, 0xFFFF, clk, lo))
            pc = np.int32(lo | (hi << 8))
        elif operation == oc.NOP:
            pass
        else:  # JAM: the CPU stops until reset
            if not is_ale:
                pc = start_pc
            return pc, a, x, y, s, p, clk, True
        return pc, a, x, y, s, p, clk, False

    return step
