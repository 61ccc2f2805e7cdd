"""A small two-pass 6502 assembler for test programs and benchmarks (no macros, no expressions).

    code = assemble('''
        .org $F000
    start:  LDA #$01
            STA $80
    loop:   INC $80
            BNE loop
            JMP start
            .org $FFFC
            .word start, start
    ''')                       # -> {address: byte}

Syntax: one statement per line, `;` comments, `label:` definitions, `.org ADDR`, `.byte B, ...`,
`.word W, ...`. Operands: `#imm`, `zp`, `zp,X`, `zp,Y`, `abs`, `abs,X`, `abs,Y`, `(zp,X)`, `(zp),Y`,
`(abs)`, `A` or nothing for accumulator/implied, a label for branches. Numbers are `$hex`, `%bin`
or decimal. A numeric operand below $100 uses zero-page modes where they exist; a label always
assembles as absolute. Every opcode of the core's matrix is reachable, the stable undocumented
mnemonics included (LAX, SAX, DCP, ISC, SLO, RLA, SRE, RRA, ANC, ALR, ARR, SBX, ...).
"""

from __future__ import annotations

import re

from .kernels.cpu import opcodes as oc

_OPCODE_FOR: dict[tuple[str, int], int] = {}
for _opcode in range(256):
    _key = (oc.OPERATION_NAMES[oc.OPERATION[_opcode]], int(oc.ADDRESS_MODE[_opcode]))
    _OPCODE_FOR.setdefault(_key, _opcode)        # lowest opcode = the documented one
_OPCODE_FOR[("NOP", oc.IMP)] = 0xEA
_OPCODE_FOR[("JSR", oc.ABS)] = 0x20          # the core decodes JSR as implied: it fetches its own operand
del _OPCODE_FOR[("JSR", oc.IMP)]
_OPERAND_SIZE = {oc.IMP: 0, oc.ACC: 0, oc.IMM: 1, oc.ZP: 1, oc.ZPX: 1, oc.ZPY: 1, oc.ABS: 2,
                 oc.ABX: 2, oc.ABY: 2, oc.IZX: 1, oc.IZY: 1, oc.IND: 2, oc.REL: 1}
_MNEMONICS = {name for name, _ in _OPCODE_FOR} | set(oc.BRANCH_NAMES)


class AssemblyError(ValueError):
    pass


def _number(text: str, labels: dict[str, int], line_no: int, final: bool) -> tuple[int, bool]:
    """Value of a literal or label, and whether it was a label."""
    text = text.strip()
    if text.startswith("$"):
        return int(text[1:], 16), False
    if text.startswith("%"):
        return int(text[1:], 2), False
    if text.isdigit():
        return int(text), False
    if re.fullmatch(r"[A-Za-z_]\w*", text):
        if text in labels:
            return labels[text], True
        if final:
            raise AssemblyError(f"line {line_no}: unknown label {text!r}")
        return 0, True
    raise AssemblyError(f"line {line_no}: cannot read number {text!r}")


def _parse_operand(mnemonic: str, operand: str, labels, line_no, final) -> tuple[int, int]:
    """(mode, value) for one instruction."""
    op = operand.replace(" ", "")
    if mnemonic in oc.BRANCH_NAMES:
        return oc.REL, _number(op, labels, line_no, final)[0]
    if op in ("", "A"):
        mode = oc.ACC if (mnemonic, oc.ACC) in _OPCODE_FOR else oc.IMP
        return mode, 0
    if op.startswith("#"):
        return oc.IMM, _number(op[1:], labels, line_no, final)[0]
    upper = op.upper()
    if upper.startswith("(") and upper.endswith(",X)"):
        return oc.IZX, _number(op[1:-3], labels, line_no, final)[0]
    if upper.startswith("(") and upper.endswith("),Y"):
        return oc.IZY, _number(op[1:-3], labels, line_no, final)[0]
    if op.startswith("(") and op.endswith(")"):
        return oc.IND, _number(op[1:-1], labels, line_no, final)[0]
    index = None
    if upper.endswith(",X") or upper.endswith(",Y"):
        index, op = upper[-1], op[:-2]
    value, is_label = _number(op, labels, line_no, final)
    zero_page = value < 0x100 and not is_label
    modes = {None: (oc.ZP, oc.ABS), "X": (oc.ZPX, oc.ABX), "Y": (oc.ZPY, oc.ABY)}[index]
    if zero_page and (mnemonic, modes[0]) in _OPCODE_FOR:
        return modes[0], value
    return modes[1], value


def assemble(source: str) -> dict[int, int]:
    """Assemble `source`; return {address: byte}."""
    labels: dict[str, int] = {}
    for final in (False, True):
        out: dict[int, int] = {}
        pc = 0
        for line_no, raw in enumerate(source.splitlines(), 1):
            line = raw.split(";", 1)[0].strip()
            while (m := re.match(r"([A-Za-z_]\w*):\s*", line)):
                if not final:
                    labels[m.group(1)] = pc
                line = line[m.end():]
            if not line:
                continue
            word, _, rest = line.partition(" ")
            word = word.upper()
            if word == ".ORG":
                pc = _number(rest, labels, line_no, final)[0]
                continue
            if word in (".BYTE", ".WORD"):
                for item in rest.split(","):
                    value = _number(item, labels, line_no, final)[0]
                    for shift in ((0,) if word == ".BYTE" else (0, 8)):
                        out[pc] = (value >> shift) & 0xFF
                        pc += 1
                continue
            if word not in _MNEMONICS:
                raise AssemblyError(f"line {line_no}: unknown mnemonic {word!r}")
            mode, value = _parse_operand(word, rest, labels, line_no, final)
            if word in oc.BRANCH_NAMES:
                opcode = oc.BRANCH_NAMES[word]
                offset = value - (pc + 2)
                if final and not -128 <= offset <= 127:
                    raise AssemblyError(f"line {line_no}: branch target out of range")
                value = offset & 0xFF
            elif (word, mode) in _OPCODE_FOR:
                opcode = _OPCODE_FOR[(word, mode)]
            else:
                raise AssemblyError(f"line {line_no}: {word} has no such addressing mode: {raw.strip()!r}")
            out[pc] = opcode
            for i in range(_OPERAND_SIZE[mode]):
                out[pc + 1 + i] = (value >> (8 * i)) & 0xFF
            pc += 1 + _OPERAND_SIZE[mode]
    return out


def to_image(code: dict[int, int], start: int, size: int, fill: int = 0) -> bytes:
    """The bytes of `code` between `start` and `start + size` (e.g. a 4 KiB cartridge image)."""
    image = bytearray([fill]) * size
    for address, byte in code.items():
        if not start <= address < start + size:
            raise AssemblyError(f"address ${address:04X} lies outside ${start:04X}-${start + size - 1:04X}")
        image[address - start] = byte
    return bytes(image)
