"""The 6502/6507 opcode matrix: addressing mode, operation and base cycle count of every opcode.

Built once in plain Python from a readable list and frozen into small numpy tables that the
jitted core reads as compile-time constants (numba bakes global arrays into the machine code, and
into constant memory on the GPU).
"""

import numpy as np

# Addressing modes.
IMP, ACC, IMM, ZP, ZPX, ZPY, ABS, ABX, ABY, IZX, IZY, IND, REL = range(13)

# Operation classes decide what the core does with the effective address.
CLS_READ, CLS_WRITE, CLS_RMW, CLS_OTHER = range(4)

# Operations. Numbered in the order the core tests them inside each class, most frequent first,
# because both numba targets lower the dispatch to a chain of compares.
(
    # read class
    LDA, LDX, LDY, CMP, AND, ADC, ORA, EOR, SBC, CPX, CPY, BIT, LAX, NOP_READ,
    ANC, ALR, ARR, SBX, ANE, LXA, LAS,
    # write class
    STA, STX, STY, SAX, SHA, SHX, SHY, TAS,
    # read-modify-write class
    INC, DEC, ASL, LSR, ROL, ROR, SLO, RLA, SRE, RRA, DCP, ISC,
    # everything else
    BRANCH, JMP, JSR, RTS, DEY, DEX, INX, INY, TAX, TAY, TXA, TYA, TSX, TXS,
    CLC, SEC, CLD, SED, CLI, SEI, CLV, PHA, PLA, PHP, PLP, RTI, BRK, NOP, JAM,
) = range(70)

OPERATION_NAMES = (
    "LDA LDX LDY CMP AND ADC ORA EOR SBC CPX CPY BIT LAX NOP ANC ALR ARR SBX ANE LXA LAS "
    "STA STX STY SAX SHA SHX SHY TAS INC DEC ASL LSR ROL ROR SLO RLA SRE RRA DCP ISC "
    "BRANCH JMP JSR RTS DEY DEX INX INY TAX TAY TXA TYA TSX TXS "
    "CLC SEC CLD SED CLI SEI CLV PHA PLA PHP PLP RTI BRK NOP JAM"
).split()
BRANCH_NAMES = {"BPL": 0x10, "BMI": 0x30, "BVC": 0x50, "BVS": 0x70, "BCC": 0x90, "BCS": 0xB0,
                "BNE": 0xD0, "BEQ": 0xF0}

_CLASS_RANGES = ((LDA, LAS, CLS_READ), (STA, TAS, CLS_WRITE), (INC, ISC, CLS_RMW), (BRANCH, JAM, CLS_OTHER))

# (operation, mode, opcodes...) with the standard NMOS base cycle counts.
_MATRIX = {
    # mnemonic: {mode: (opcode, cycles)}
    LDA: {IMM: (0xA9, 2), ZP: (0xA5, 3), ZPX: (0xB5, 4), ABS: (0xAD, 4), ABX: (0xBD, 4), ABY: (0xB9, 4),
          IZX: (0xA1, 6), IZY: (0xB1, 5)},
    LDX: {IMM: (0xA2, 2), ZP: (0xA6, 3), ZPY: (0xB6, 4), ABS: (0xAE, 4), ABY: (0xBE, 4)},
    LDY: {IMM: (0xA0, 2), ZP: (0xA4, 3), ZPX: (0xB4, 4), ABS: (0xAC, 4), ABX: (0xBC, 4)},
    CMP: {IMM: (0xC9, 2), ZP: (0xC5, 3), ZPX: (0xD5, 4), ABS: (0xCD, 4), ABX: (0xDD, 4), ABY: (0xD9, 4),
          IZX: (0xC1, 6), IZY: (0xD1, 5)},
    AND: {IMM: (0x29, 2), ZP: (0x25, 3), ZPX: (0x35, 4), ABS: (0x2D, 4), ABX: (0x3D, 4), ABY: (0x39, 4),
          IZX: (0x21, 6), IZY: (0x31, 5)},
    ADC: {IMM: (0x69, 2), ZP: (0x65, 3), ZPX: (0x75, 4), ABS: (0x6D, 4), ABX: (0x7D, 4), ABY: (0x79, 4),
          IZX: (0x61, 6), IZY: (0x71, 5)},
    ORA: {IMM: (0x09, 2), ZP: (0x05, 3), ZPX: (0x15, 4), ABS: (0x0D, 4), ABX: (0x1D, 4), ABY: (0x19, 4),
          IZX: (0x01, 6), IZY: (0x11, 5)},
    EOR: {IMM: (0x49, 2), ZP: (0x45, 3), ZPX: (0x55, 4), ABS: (0x4D, 4), ABX: (0x5D, 4), ABY: (0x59, 4),
          IZX: (0x41, 6), IZY: (0x51, 5)},
    SBC: {IMM: (0xE9, 2), ZP: (0xE5, 3), ZPX: (0xF5, 4), ABS: (0xED, 4), ABX: (0xFD, 4), ABY: (0xF9, 4),
          IZX: (0xE1, 6), IZY: (0xF1, 5)},
    CPX: {IMM: (0xE0, 2), ZP: (0xE4, 3), ABS: (0xEC, 4)},
    CPY: {IMM: (0xC0, 2), ZP: (0xC4, 3), ABS: (0xCC, 4)},
    BIT: {ZP: (0x24, 3), ABS: (0x2C, 4)},
    LAX: {ZP: (0xA7, 3), ZPY: (0xB7, 4), ABS: (0xAF, 4), ABY: (0xBF, 4), IZX: (0xA3, 6), IZY: (0xB3, 5)},
    ANC: {IMM: (0x0B, 2)},
    ALR: {IMM: (0x4B, 2)},
    ARR: {IMM: (0x6B, 2)},
    SBX: {IMM: (0xCB, 2)},
    ANE: {IMM: (0x8B, 2)},
    LXA: {IMM: (0xAB, 2)},
    LAS: {ABY: (0xBB, 4)},
    STA: {ZP: (0x85, 3), ZPX: (0x95, 4), ABS: (0x8D, 4), ABX: (0x9D, 5), ABY: (0x99, 5), IZX: (0x81, 6),
          IZY: (0x91, 6)},
    STX: {ZP: (0x86, 3), ZPY: (0x96, 4), ABS: (0x8E, 4)},
    STY: {ZP: (0x84, 3), ZPX: (0x94, 4), ABS: (0x8C, 4)},
    SAX: {ZP: (0x87, 3), ZPY: (0x97, 4), ABS: (0x8F, 4), IZX: (0x83, 6)},
    TAS: {ABY: (0x9B, 5)},
    SHY: {ABX: (0x9C, 5)},
    SHX: {ABY: (0x9E, 5)},
    INC: {ZP: (0xE6, 5), ZPX: (0xF6, 6), ABS: (0xEE, 6), ABX: (0xFE, 7)},
    DEC: {ZP: (0xC6, 5), ZPX: (0xD6, 6), ABS: (0xCE, 6), ABX: (0xDE, 7)},
    ASL: {ACC: (0x0A, 2), ZP: (0x06, 5), ZPX: (0x16, 6), ABS: (0x0E, 6), ABX: (0x1E, 7)},
    LSR: {ACC: (0x4A, 2), ZP: (0x46, 5), ZPX: (0x56, 6), ABS: (0x4E, 6), ABX: (0x5E, 7)},
    ROL: {ACC: (0x2A, 2), ZP: (0x26, 5), ZPX: (0x36, 6), ABS: (0x2E, 6), ABX: (0x3E, 7)},
    ROR: {ACC: (0x6A, 2), ZP: (0x66, 5), ZPX: (0x76, 6), ABS: (0x6E, 6), ABX: (0x7E, 7)},
    JMP: {ABS: (0x4C, 3), IND: (0x6C, 5)},
    JSR: {IMP: (0x20, 6)},  # JSR fetches its operand itself, around the pushes
    RTS: {IMP: (0x60, 6)},
    RTI: {IMP: (0x40, 6)},
    BRK: {IMP: (0x00, 7)},
    DEY: {IMP: (0x88, 2)}, DEX: {IMP: (0xCA, 2)}, INX: {IMP: (0xE8, 2)}, INY: {IMP: (0xC8, 2)},
    TAX: {IMP: (0xAA, 2)}, TAY: {IMP: (0xA8, 2)}, TXA: {IMP: (0x8A, 2)}, TYA: {IMP: (0x98, 2)},
    TSX: {IMP: (0xBA, 2)}, TXS: {IMP: (0x9A, 2)},
    CLC: {IMP: (0x18, 2)}, SEC: {IMP: (0x38, 2)}, CLD: {IMP: (0xD8, 2)}, SED: {IMP: (0xF8, 2)},
    CLI: {IMP: (0x58, 2)}, SEI: {IMP: (0x78, 2)}, CLV: {IMP: (0xB8, 2)},
    PHA: {IMP: (0x48, 3)}, PLA: {IMP: (0x68, 4)}, PHP: {IMP: (0x08, 3)}, PLP: {IMP: (0x28, 4)},
}

# Opcodes that share one operation across many encodings.
_BRANCHES = tuple(BRANCH_NAMES.values())
_UNDOC_RMW = {  # the eight illegal read-modify-write families share one mode layout
    SLO: 0x03, RLA: 0x23, SRE: 0x43, RRA: 0x63, DCP: 0xC3, ISC: 0xE3,
}
_UNDOC_RMW_MODES = ((IZX, 0x00, 8), (ZP, 0x04, 5), (ABS, 0x0C, 6), (IZY, 0x10, 8), (ZPX, 0x14, 6),
                    (ABY, 0x18, 7), (ABX, 0x1C, 7))
_JAMS = (0x02, 0x12, 0x22, 0x32, 0x42, 0x52, 0x62, 0x72, 0x92, 0xB2, 0xD2, 0xF2)
_NOPS = {
    IMP: ((0x1A, 0x3A, 0x5A, 0x7A, 0xDA, 0xFA), 2),
    IMM: ((0x80, 0x82, 0x89, 0xC2, 0xE2), 2),
    ZP: ((0x04, 0x44, 0x64), 3),
    ZPX: ((0x14, 0x34, 0x54, 0x74, 0xD4, 0xF4), 4),
    ABS: ((0x0C,), 4),
    ABX: ((0x1C, 0x3C, 0x5C, 0x7C, 0xDC, 0xFC), 4),
}

# Opcodes whose behaviour differs between NMOS chips ("unstable"): reported separately by tests.
UNSTABLE_OPCODES = (0x8B, 0xAB, 0x93, 0x9B, 0x9C, 0x9E, 0x9F)
JAM_OPCODES = _JAMS


def _build():
    mode = np.full(256, -1, np.int8)
    operation = np.full(256, -1, np.int8)
    cycles = np.zeros(256, np.int8)

    def put(op, m, opcode, cyc):
        assert operation[opcode] == -1, hex(opcode)
        mode[opcode], operation[opcode], cycles[opcode] = m, op, cyc

    for op, modes in _MATRIX.items():
        for m, (opcode, cyc) in modes.items():
            put(op, m, opcode, cyc)
    for opcode in _BRANCHES:
        put(BRANCH, REL, opcode, 2)
    for op, base in _UNDOC_RMW.items():
        for m, offset, cyc in _UNDOC_RMW_MODES:
            put(op, m, base + offset, cyc)
    for m, (opcodes, cyc) in _NOPS.items():
        for opcode in opcodes:
            put(NOP if m == IMP else NOP_READ, m, opcode, cyc)
    put(NOP, IMP, 0xEA, 2)
    put(SBC, IMM, 0xEB, 2)
    put(ANC, IMM, 0x2B, 2)
    put(SHA, IZY, 0x93, 6)
    put(SHA, ABY, 0x9F, 5)
    for opcode in _JAMS:
        put(JAM, IMP, opcode, 2)
    assert (operation >= 0).all(), "every opcode must be decoded"

    op_class = np.empty(256, np.int8)
    for lo, hi, cls in _CLASS_RANGES:
        sel = (operation >= lo) & (operation <= hi)
        op_class[sel] = cls
    return mode, operation, op_class, cycles


ADDRESS_MODE, OPERATION, OPERATION_CLASS, BASE_CYCLES = _build()
