"""The `ale` CPU model against ale-py itself, live: where ALE's CPU differs from real silicon.

Method: assemble a small program of our own into a 4 KiB cartridge, load it into ale-py under the
file name of a supported 4K game (ALE accepts any ROM whose file stem is a game id and only warns
about the md5), and read the 2600's RAM after `loadROM`. The program computes results, stores
them in RAM and parks in a jump-to-self. The same bytes run on our core with `model="ale"`, and
the stored bytes must agree. Nothing here compares against numbers written down from our own
output: ALE is the oracle every time.

Things every program has to live with:

* ALE resets the console several times inside `loadROM` (auto-detection, then `reset_game`) and
  the program reruns from the reset vector each time on a RAM that survives resets, so it
  initialises everything it stores. After the last reset ALE runs 68 frames of 25,000
  instructions each (the programs never end a frame), 1.7M instructions in all.
* On the 2600 the stack page $0100-$01FF lands on RAM $80-$FF; on the flat bus it is separate
  memory. Results therefore live in $80-$EE, a "finished" marker in $EF, pointers and a scratch
  byte in $F0-$FC, and the stack (S=$FF, at most three bytes deep) in $FD-$FF; only the results
  and the marker are compared. Flags are captured with PHP followed by PLA, which works the same
  on both machines.
* $00-$7F is the TIA: never written, never read (TIA reads carry data-bus noise).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Callable

import numpy as np
import pytest
from numba import njit
from numba.extending import register_jitable

from cule_py import flat6502
from cule_py.asm6502 import assemble, to_image
from cule_py.kernels.cpu import cpu6507
from cule_py.kernels.riot import riot
from cule_py.kernels import layout as L
from cule_py.kernels.cpu.opcodes import JAM_OPCODES
from cule_py.testing import ale_twin

pytest.importorskip("ale_py")

pytestmark = pytest.mark.live_ale

# A supported 4K game whose reset sequence does not look at RAM: ALE's mode selection presses
# SELECT until a game-specific RAM byte equals the mode (space_invaders' $DC, for instance), which
# never happens with our programs and hangs `loadROM`. River Raid has a single mode.
ROM_NAME = "riverraid"
ORIGIN = 0xF000
RESULT_FIRST, RESULT_LAST = 0x80, 0xEE
DONE_MARKER_ADDR, DONE_MARKER = 0xEF, 0x5A
# Fixed-address code (branch fragments, vectors) lives from here up; the main code stays below.
FRAGMENT_BASE = 0xFC00
# Instructions ALE runs after its last reset inside loadROM: 68 frames x 25,000 (measured once
# with a counting program; every long program here checks its finished marker instead).
ALE_INSTRUCTION_BUDGET = 68 * 25_000

AleRun = Callable[[bytes], np.ndarray]


# ---- programs ----------------------------------------------------------------------------------

@dataclass
class Program:
    """Straight-line test code that stores its results in RAM slots $80-$EE, one byte each."""

    lines: list[str] = field(default_factory=list)
    slots: list[tuple[int, str]] = field(default_factory=list)   # (RAM address, what it holds)

    @property
    def room(self) -> int:
        return RESULT_LAST + 1 - RESULT_FIRST - len(self.slots)

    def emit(self, *lines: str) -> None:
        self.lines.extend(lines)

    def store(self, label: str, register: str = "A") -> None:
        """Store `register` into the next result slot."""
        address = RESULT_FIRST + len(self.slots)
        if address > RESULT_LAST:
            raise ValueError("program has no result slot left")
        self.emit(f"ST{register} ${address:02X}")
        self.slots.append((address, label))

    def store_flags(self, label: str) -> None:
        self.emit("PHP", "PLA")
        self.store(label)

    def image(self, fragments: str = "", irq: str = "start") -> bytes:
        """The 4 KiB cartridge: this code at $F000, then the finished marker and the final loop."""
        source = "\n".join([
            f"        .org ${ORIGIN:04X}",
            "start:  CLD",
            *(f"        {line}" for line in self.lines),
            f"        LDA #${DONE_MARKER:02X}",
            f"        STA ${DONE_MARKER_ADDR:02X}",
            "done:   JMP done",
            fragments,
            "        .org $FFFA",
            f"        .word start, start, {irq}",
        ])
        code = assemble(source)
        main_end = ORIGIN
        while main_end in code:
            main_end += 1
        assert main_end < FRAGMENT_BASE, f"main code runs into the fragments (${main_end:04X})"
        return to_image(code, ORIGIN, 0x1000)


@pytest.fixture(scope="module")
def ale_ram(tmp_path_factory) -> AleRun:
    """Load an image into ale-py (repeat_action_probability 0) and return its 128 bytes of RAM."""
    rom = tmp_path_factory.mktemp("ale_rom") / f"{ROM_NAME}.bin"

    def run(image: bytes) -> np.ndarray:
        rom.write_bytes(image)
        ale = ale_twin(rom)         # logger at errors only: no md5-mismatch warnings
        return np.asarray(ale.getRAM(), dtype=np.uint8).copy()

    return run


def reset_registers(image: bytes) -> np.ndarray:
    """ALE's CPU reset: PC from the vector, S=$FF, P=$20 (I clear), A=X=Y=0."""
    reset = image[0xFFC] | (image[0xFFD] << 8)
    return np.array([[reset, 0xFF, 0, 0, 0, 0x20]], np.int32)


def run_flat(image: bytes, model: str, instructions: int = 20_000) -> tuple[np.ndarray, bool]:
    """Run the image on a flat 64 KiB machine; return its memory and whether it halted."""
    memory = np.zeros((1, 65536), np.uint8)
    memory[0, ORIGIN:] = np.frombuffer(image, np.uint8)
    halted = np.zeros(1, np.bool_)
    flat6502.run(memory, reset_registers(image), instructions, model=model, halted=halted)
    return memory[0], bool(halted[0])


def mismatches(ours: np.ndarray, ale: np.ndarray, slots: list[tuple[int, str]]) -> list[str]:
    """Slots whose bytes differ: `ours` is a 64 KiB memory, `ale` the 128-byte RAM."""
    return [f"{label}: ours ${int(ours[addr]):02X}, ALE ${int(ale[addr - 0x80]):02X}"
            for addr, label in slots if ours[addr] != ale[addr - 0x80]]


def assert_same(ours: np.ndarray, ale: np.ndarray, slots: list[tuple[int, str]]) -> None:
    assert ale[DONE_MARKER_ADDR - 0x80] == DONE_MARKER, "the program did not finish on ALE"
    assert ours[DONE_MARKER_ADDR] == DONE_MARKER, "the program did not finish on our core"
    bad = mismatches(ours, ale, slots)
    assert not bad, f"{len(bad)} of {len(slots)} results differ:\n" + "\n".join(bad[:30])


def compare_with_ale(program: Program, ale_ram: AleRun, **image_kwargs) -> tuple[bytes, np.ndarray]:
    """Run `program` on ALE and on our `ale` model and require identical results."""
    image = program.image(**image_kwargs)
    ale = ale_ram(image)
    ours, halted = run_flat(image, "ale")
    assert not halted
    assert_same(ours, ale, program.slots)
    return image, ale


# ---- 1. decimal ADC and SBC ----------------------------------------------------------------------

# Valid and invalid BCD around every nibble boundary.
DECIMAL_EDGES = (0x00, 0x01, 0x05, 0x09, 0x0A, 0x0F, 0x10, 0x19, 0x1A, 0x45, 0x49, 0x50, 0x79, 0x7F,
                 0x80, 0x81, 0x99, 0x9A, 0x9F, 0xA0, 0xA9, 0xAF, 0xF0, 0xF9, 0xFA, 0xFF)
# 99 + 01 in decimal: the NMOS chip takes Z from the binary sum ($9A), ALE from the BCD result
# ($00). Known hardware behaviour, so a case where the two models must disagree.
NMOS_Z_CASE = ("ADC", 0x99, 0x01, 0)


def decimal_cases(seed: int, count: int) -> list[Case]:
    """ADC/SBC cases: half edge-value pairs, half uniform random."""
    rng = random.Random(seed)
    cases = []
    for i in range(count):
        if i % 2:
            a, m = rng.randrange(256), rng.randrange(256)
        else:
            a, m = rng.choice(DECIMAL_EDGES), rng.choice(DECIMAL_EDGES)
        cases.append((rng.choice(("ADC", "SBC")), a, m, rng.randrange(2)))
    return cases


Case = tuple[str, int, int, int]                # (operation, A, operand, carry in)


def arithmetic_program(cases: list[Case], decimal: bool) -> Program:
    """Each case: load A, set C, ADC/SBC/RRA/ISC/ARR, store A and the flags."""
    program = Program()
    program.emit("SED" if decimal else "CLD")
    for op, a, m, carry in cases:
        if op in ("RRA", "ISC"):            # read-modify-write: the operand lives in RAM
            program.emit(f"LDA #${m:02X}", "STA $F0")
        program.emit(f"LDA #${a:02X}", "SEC" if carry else "CLC")
        program.emit(f"{op} $F0" if op in ("RRA", "ISC") else f"{op} #${m:02X}")
        label = f"{op} A=${a:02X} M=${m:02X} C={carry} D={int(decimal)}"
        program.store(f"{label}: A")
        program.store_flags(f"{label}: P")
    return program


def test_decimal_adc_sbc_match_ale(ale_ram):
    """N/Z from the BCD result, ALE's V and C rules, invalid nibbles: against ale-py."""
    per_program = (RESULT_LAST + 1 - RESULT_FIRST) // 2
    nmos_differences = 0
    for index in range(5):
        cases = decimal_cases(seed=2600 + index, count=per_program)
        if index == 0:
            cases[0] = NMOS_Z_CASE
        program = arithmetic_program(cases, decimal=True)
        image, ale = compare_with_ale(program, ale_ram)
        # The nmos model (real silicon) must give different answers for some of these cases.
        nmos, _ = run_flat(image, "nmos")
        nmos_differences += len(mismatches(nmos, ale, program.slots))
        if index == 0:
            flags_slot = program.slots[1]
            assert mismatches(nmos, ale, [flags_slot]), "nmos must differ from ALE on 99+01's Z flag"
    assert nmos_differences > 0


def exhaustive_digest_program(op: str, carry: int) -> Program:
    """All 65,536 (A, operand) pairs of one decimal operation, digested in groups of 8 A values.

    Per pair: s1 += A result, s1 += P, s2 += s1 (binary adds chaining their carries), one
    (s1, s2) pair per group of A values: 32 groups, 64 bytes. About 1.05M instructions, within
    what ALE runs after its last reset.
    """
    program = Program()
    groups = 32
    a_value = RESULT_FIRST + 2 * groups            # the outer loop counter, in RAM
    program.emit("LDA #0", "LDX #0",
                 f"clear:  STA ${RESULT_FIRST:02X},X", "INX", f"CPX #{2 * groups + 1}", "BNE clear",
                 # Y = 2 * group = (A >> 3) * 2 = (A >> 2) & $FE
                 f"outer:  LDA ${a_value:02X}", "LSR A", "LSR A", "AND #$FE", "TAY",
                 "LDX #0", "SED",
                 f"inner:  LDA ${a_value:02X}", "SEC" if carry else "CLC", f"{op} mtab,X",
                 "PHP", "CLD",
                 "CLC", f"ADC ${RESULT_FIRST:04X},Y", f"STA ${RESULT_FIRST:04X},Y",
                 "PLA", f"ADC ${RESULT_FIRST:04X},Y", f"STA ${RESULT_FIRST:04X},Y",
                 f"ADC ${RESULT_FIRST + 1:04X},Y", f"STA ${RESULT_FIRST + 1:04X},Y",
                 "SED", "INX", "BNE inner",
                 "CLD", f"INC ${a_value:02X}", "BNE outer")
    for group in range(groups):
        for which in ("s1", "s2"):
            program.slots.append((RESULT_FIRST + len(program.slots),
                                  f"{op} C={carry} A=${8 * group:02X}-${8 * group + 7:02X} {which}"))
    return program


MTAB = "        .org $F800\nmtab:   .byte " + ", ".join(str(i) for i in range(256))


@pytest.mark.parametrize("op", ["ADC", "SBC"])
@pytest.mark.parametrize("carry", [0, 1])
def test_decimal_exhaustive_digest_matches_ale(ale_ram, op, carry):
    """Every (A, operand) pair, valid BCD or not, digested; ALE's SBC table overrun included."""
    program = exhaustive_digest_program(op, carry)
    image = program.image(fragments=MTAB)
    ale = ale_ram(image)
    ours, halted = run_flat(image, "ale", instructions=ALE_INSTRUCTION_BUDGET)
    assert not halted
    assert_same(ours, ale, program.slots)
    nmos, _ = run_flat(image, "nmos", instructions=ALE_INSTRUCTION_BUDGET)
    assert mismatches(nmos, ale, program.slots), "nmos must digest differently from ALE"


# ---- 2. RRA, ISC and ARR, decimal and binary -----------------------------------------------------

def undocumented_cases(seed: int, count: int) -> list[Case]:
    """RRA, ISC and ARR in turn, on edge values and uniform random bytes."""
    rng = random.Random(seed)
    cases = []
    for i in range(count):
        op = ("RRA", "ISC", "ARR")[i % 3]
        if op == "ARR" and i % 2:
            a = 0xFF                                     # then A & operand = operand: every nibble
        elif i % 4 < 2:
            a = rng.choice(DECIMAL_EDGES)
        else:
            a = rng.randrange(256)
        m = rng.choice(DECIMAL_EDGES) if i % 5 < 2 else rng.randrange(256)
        cases.append((op, a, m, rng.randrange(2)))
    return cases


@pytest.mark.parametrize("decimal", [True, False], ids=["D=1", "D=0"])
def test_rra_isc_arr_match_ale(ale_ram, decimal):
    """The undocumented opcodes that go through ALE's adder (RRA, ISC) and ARR's own fix-ups."""
    per_program = (RESULT_LAST + 1 - RESULT_FIRST) // 2
    for index in range(2):
        cases = undocumented_cases(seed=6502 + index, count=per_program)
        compare_with_ale(arithmetic_program(cases, decimal), ale_ram)


ARR_GROUPS = 8                                  # groups of 32 immediates
ARR_PASS = RESULT_FIRST + 4 * ARR_GROUPS * 2    # the pass number, then 16 x the pass number


def arr_digest_program() -> Program:
    """ARR #imm with A=$FF (so A AND imm is every byte) for every immediate, D and C.

    ARR only takes an immediate, which a ROM program cannot vary at run time, so the 256
    immediates are unrolled; four passes (pass bit 1 = D, bit 0 = C) run them. Each result and
    its flags go into a digest per pass and group of 32 immediates, as in the ADC/SBC digest.
    """
    program = Program()
    groups = ARR_GROUPS
    digests = 4 * groups * 2
    pass_addr, pass16_addr = ARR_PASS, ARR_PASS + 1
    program.emit("LDA #0", "LDX #0",
                 f"clear:  STA ${RESULT_FIRST:02X},X", "INX", f"CPX #{digests + 2}", "BNE clear",
                 f"passes: LDA ${pass_addr:02X}", "ASL A", "ASL A", "ASL A", "ASL A",
                 f"STA ${pass16_addr:02X}")
    for immediate in range(256):
        # LDY before the ARR: it sets N and Z, which PHP in arr_digest must see from the ARR.
        program.emit("JSR arr_setup", f"LDY #{2 * (immediate >> 5)}", f"ARR #${immediate:02X}",
                     "JSR arr_digest")
    program.emit(f"INC ${pass_addr:02X}", f"LDA ${pass_addr:02X}", "CMP #4", "BEQ finished",
                 "JMP passes", "finished: CLD")
    for number in range(4 * groups):
        group, pass_number = number % groups, number // groups
        for which in ("s1", "s2"):
            program.slots.append((RESULT_FIRST + len(program.slots),
                                  f"ARR A=$FF D={pass_number >> 1} C={pass_number & 1} "
                                  f"imm=${32 * group:02X}-${32 * group + 31:02X} {which}"))
    return program


ARR_ROUTINES = f"""
        .org ${FRAGMENT_BASE:04X}
arr_setup:  LDA ${ARR_PASS:02X}     ; the pass: bit 1 = D, bit 0 = C
            AND #2
            BEQ arr_binary
            SED
            JMP arr_carry
arr_binary: CLD
arr_carry:  LDA ${ARR_PASS:02X}
            LSR A
            LDA #$FF
            RTS
arr_digest: PHP
            PHA
            CLD
            TYA
            CLC
            ADC ${ARR_PASS + 1:02X}       ; + 16 x pass
            TAY
            PLA
            CLC
            ADC ${RESULT_FIRST:04X},Y
            STA ${RESULT_FIRST:04X},Y
            PLA
            ADC ${RESULT_FIRST:04X},Y
            STA ${RESULT_FIRST:04X},Y
            ADC ${RESULT_FIRST + 1:04X},Y
            STA ${RESULT_FIRST + 1:04X},Y
            RTS
"""


def test_arr_exhaustive_digest_matches_ale(ale_ram):
    """Every ARR immediate with D=0/1 and C=0/1: ALE's decimal fix-ups and flags."""
    program = arr_digest_program()
    image = program.image(fragments=ARR_ROUTINES)
    ale = ale_ram(image)
    ours, halted = run_flat(image, "ale", instructions=100_000)
    assert not halted
    assert_same(ours, ale, program.slots)


# ---- 3. JAM ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("opcode", JAM_OPCODES, ids=[f"{op:02X}" for op in JAM_OPCODES])
def test_jam_halts_like_ale(ale_ram, opcode):
    """ALE stops the CPU at a JAM opcode until reset: the code after it never runs."""
    program = Program()
    program.emit("LDA #$A5")
    program.store("marker before the JAM")
    program.emit("LDA #$C3")
    program.store("second marker before the JAM")
    program.emit(f".byte ${opcode:02X}", "LDA #$00", f"STA ${RESULT_FIRST:02X}",
                 f"STA ${RESULT_FIRST + 1:02X}")
    image = program.image()
    ale = ale_ram(image)
    ours, halted = run_flat(image, "ale")
    assert halted, "the ale model must report the machine halted"
    assert ale[RESULT_FIRST - 0x80] == 0xA5 and ale[RESULT_FIRST + 1 - 0x80] == 0xC3, \
        "ALE ran past the JAM"
    assert ale[DONE_MARKER_ADDR - 0x80] != DONE_MARKER
    assert ours[DONE_MARKER_ADDR] != DONE_MARKER
    assert not mismatches(ours, ale, program.slots)


# ---- 4. cycle accounting, seen through the RIOT timer ---------------------------------------------
#
# A flat memory with ALE's RIOT timer wherever the 2600 decodes the RIOT's I/O (A12=0, A9=1, A7=1:
# $0280-$02FF, $0380-$03FF and their mirrors); the ports are not modelled, the programs here touch
# only the timer. `clk` is the system cycle count, kept across instructions.

@register_jitable
def _is_riot_io(addr):
    return (addr & 0x1280) == 0x0280


@register_jitable
def _riot_bus_read(bus, addr, clk, data_bus):
    memory, timer = bus
    if _is_riot_io(addr):
        if riot.is_timer_read(addr):
            return riot.timer_read(timer, 0, addr, clk)
        return np.int32(0)
    return np.int32(memory[addr])


@register_jitable
def _riot_bus_write(bus, addr, value, clk):
    memory, timer = bus
    if _is_riot_io(addr):
        if riot.is_timer_write(addr):
            riot.timer_write(timer, 0, addr, value, clk)
        return clk
    memory[addr] = value
    return clk


_riot_step = cpu6507.make_cpu(_riot_bus_read, _riot_bus_write, cpu6507.ALE)


@njit(cache=False)
def _run_with_timer(memory, timer, registers, instructions):
    """Run `instructions` instructions of the ale model from `registers` [PC, S, A, X, Y, P]."""
    pc = np.int32(registers[0])
    s = np.int32(registers[1])
    a = np.int32(registers[2])
    x = np.int32(registers[3])
    y = np.int32(registers[4])
    p = np.int32(registers[5])
    bus = (memory, timer)
    clk = np.int64(0)                     # ALE's cycle counter is 0 right after a System reset
    for _ in range(instructions):
        pc, a, x, y, s, p, clk, jammed = _riot_step(bus, pc, a, x, y, s, p, clk)
        if jammed:
            break
    return clk


def run_with_timer(image: bytes, instructions: int = 20_000) -> np.ndarray:
    memory = np.zeros(65536, np.uint8)
    memory[ORIGIN:] = np.frombuffer(image, np.uint8)
    # A whole state row: a running INTIM read sets a bit of CPU_ATTENTION, field 31 of the row (a
    # bare (1, TIMER_FIELDS) array here was written past its end: the heap corruption behind
    # the CI's native crashes at exit and in garbage collection, sessions 19-23).
    timer = np.zeros((1, L.STATE_FIELDS), np.int32)
    riot.timer_reset(timer, 0, 0)         # overwritten by the programs' first timer write
    _run_with_timer(memory, timer, reset_registers(image)[0], instructions)
    return memory


INTIM, TIMINT = 0x0284, 0x0285
TIM1T, TIM8T, TIM64T, T1024T = 0x0294, 0x0295, 0x0296, 0x0297

# Pointers in RAM for the indirect modes: ($F0)=$0200, ($F2)=$01FF, ($F4)=INTIM, ($F6)=TIM1T,
# ($F8)=$00FC, a scratch byte below the deepest stack use (BRK pushes $FF-$FD). Accesses that are
# not the measured timer access go to RAM or ROM: $0000-$007F and $0200-$027F are the TIA.
SCRATCH = 0xFC
POINTER_SETUP = ("LDA #$00", "STA $F0", "LDA #$02", "STA $F1", "LDA #$FF", "STA $F2", "LDA #$01",
                 "STA $F3", "LDA #$84", "STA $F4", "LDA #$02", "STA $F5", "LDA #$94", "STA $F6",
                 "LDA #$02", "STA $F7", f"LDA #${SCRATCH:02X}", "STA $F8", "LDA #$00", "STA $F9")

# Code at fixed addresses, entered by JSR from the measured code (so every branch case costs the
# same JSR/RTS on top of the branch itself). The timer write before them loads A with $FF: Z=0.
TIMER_FRAGMENTS = """
        .org $FC00
sub_rts:        RTS
irq:            RTI
jmp_ind:        JMP (ind_vector)
ind_land:       RTS
ind_vector:     .word ind_land
        .org $FCF0
br_fwd_cross:   BNE fwd_target      ; next instruction at $FCF2, target on page $FD: +2
                RTS
        .org $FD08
fwd_target:     RTS
br_same_page:   BNE same_target     ; taken inside the page: +1
                RTS
same_target:    RTS
br_not_taken:   BEQ not_target      ; not taken: no penalty
                RTS
not_target:     RTS
        .org $FDF0
back_target:    RTS
        .org $FDFE
br_edge:        BNE edge_target     ; the branch itself straddles $FE00: next instruction $FE00,
        .org $FE00
                RTS
                RTS
                RTS
                RTS
edge_target:    RTS                 ; ... target $FE04 on the same page as it: +1 only
        .org $FE10
br_back_cross:  BNE back_target     ; next instruction $FE12, target on page $FD: +2
                RTS
"""


@dataclass(frozen=True)
class Measurement:
    """Write the timer, run `body`, then read the timer one or more times (each read stored).

    `setup` runs before the write and is not timed. The write stores A (loaded with `value`)
    unless `write` names another register. Reads are (instruction, destination register).
    """

    name: str
    body: tuple[str, ...] = ()
    reads: tuple[tuple[str, str], ...] = (("LDA $0284", "A"),)
    write: str = "STA $0294"
    value: int = 0xFF
    setup: tuple[str, ...] = ()


def delay(cycles: int) -> tuple[str, ...]:
    """Straight-line code taking `cycles` cycles (any count but 1).

    NOPs, pairs of 5-cycle INCs of the scratch byte (shorter code for long delays) and, for an
    odd count, one 3-cycle NOP zp.
    """
    assert cycles != 1
    lines = []
    if cycles % 2:
        lines.append("NOP $F0")            # 3 cycles, reads RAM
        cycles -= 3
    while cycles >= 10:                    # a 5-cycle RMW on a scratch byte keeps the code short
        lines.extend([f"INC ${SCRATCH:02X}"] * 2)
        cycles -= 10
    return tuple(lines) + ("NOP",) * (cycles // 2)


def timer_measurements() -> list[Measurement]:
    m: list[Measurement] = []
    # -- every instruction's full cycle count is charged by the time of the read --
    bodies = {
        "nothing": (),
        "NOP": ("NOP",),
        "NOP zp": ("NOP $F0",),
        "NOP abs": ("NOP $F000",),
        "NOP abs,X crossing": ("LDX #$FF", "NOP $F001,X"),
        "LDA abs,X no cross": ("LDX #$01", "LDA $F000,X"),
        "LDA abs,X crossing": ("LDX #$FF", "LDA $F001,X"),
        "LDA abs,Y crossing": ("LDY #$FF", "LDA $F001,Y"),
        "LAX abs,Y crossing": ("LDY #$FF", "LAX $F001,Y"),
        "LDA (zp),Y no cross": ("LDY #$01", "LDA ($F8),Y"),
        "LDA (zp),Y crossing": ("LDY #$84", "LDA ($F8),Y"),     # $0180: a RAM mirror
        "LDA (zp,X)": ("LDX #$00", "LDA ($F8,X)"),
        "LDA zp,X wrapping": ("LDX #$FF", "LDA $F0,X"),          # $EF: wraps onto RAM
        "STA abs,X no cross": ("LDX #$00", "STA $00FC,X"),
        "STA (zp),Y": ("LDY #$00", "STA ($F8),Y"),
        "INC zp": ("INC $FC",),
        "INC abs,X no cross": ("LDX #$00", "INC $00FC,X"),
        "ASL A": ("ASL A",),
        "DCP abs,Y": ("LDY #$00", "DCP $00FC,Y"),
        "ISC (zp),Y": ("LDY #$00", "ISC ($F8),Y"),
        "SLO (zp,X)": ("LDX #$00", "SLO ($F8,X)"),
        "JSR + RTS": ("JSR sub_rts",),
        "JMP (ind)": ("JSR jmp_ind",),
        "branch not taken": ("JSR br_not_taken",),
        "branch taken, same page": ("JSR br_same_page",),
        "branch taken, crossing forward": ("JSR br_fwd_cross",),
        "branch taken, crossing backward": ("JSR br_back_cross",),
        "branch straddling a page, target on the next": ("JSR br_edge",),
        "PHA + PLA": ("PHA", "PLA"),
        "PHP + PLP": ("PHP", "PLP"),
        "BRK + RTI": ("BRK", ".byte $EA"),
        "TSX + TXS": ("TSX", "TXS"),
    }
    m += [Measurement(f"TIM1T, {name}", body=body) for name, body in bodies.items()]
    # -- the reading instruction: the page-cross penalty lands before its read --
    reads = {
        "LDA abs": ((), ("LDA $0284", "A")),
        "LDA abs (INTIM mirror $0286)": ((), ("LDA $0286", "A")),
        "LDA abs (INTIM with A3, $028C)": ((), ("LDA $028C", "A")),
        "LDX abs": ((), ("LDX $0284", "X")),
        "LDY abs": ((), ("LDY $0284", "Y")),
        "LAX abs": ((), ("LAX $0284", "A")),
        "LDA abs,X no cross": (("LDX #$84",), ("LDA $0200,X", "A")),
        "LDA abs,X crossing": (("LDX #$85",), ("LDA $01FF,X", "A")),
        "LDA abs,Y no cross": (("LDY #$84",), ("LDA $0200,Y", "A")),
        "LDA abs,Y crossing": (("LDY #$85",), ("LDA $01FF,Y", "A")),
        "LDX abs,Y crossing": (("LDY #$85",), ("LDX $01FF,Y", "X")),
        "LDY abs,X crossing": (("LDX #$85",), ("LDY $01FF,X", "Y")),
        "LAX abs,Y crossing": (("LDY #$85",), ("LAX $01FF,Y", "A")),
        "LDA (zp),Y no cross": (("LDY #$84",), ("LDA ($F0),Y", "A")),
        "LDA (zp),Y crossing": (("LDY #$85",), ("LDA ($F2),Y", "A")),
        "LDA (zp,X)": (("LDX #$00",), ("LDA ($F4,X)", "A")),
        "TIMINT before expiry": ((), ("LDA $0285", "A")),
    }
    m += [Measurement(f"TIM1T read by {name}", setup=setup, reads=(read,))
          for name, (setup, read) in reads.items()]
    # -- the writing instruction: the timer is stamped with the cycle count at its end --
    writes = {
        "STA abs": ((), "STA $0294"),
        "STX abs": (("LDX #$FF",), "STX $0294"),
        "STY abs": (("LDY #$FF",), "STY $0294"),
        "STA abs,X": (("LDX #$80",), "STA $0214,X"),
        "STA abs,Y crossing": (("LDY #$95",), "STA $01FF,Y"),
        "STA (zp),Y": (("LDY #$94",), "STA ($F0),Y"),
        "STA (zp,X)": (("LDX #$00",), "STA ($F6,X)"),
        "SAX abs": (("LDX #$FF",), "SAX $0294"),
        "STA TIM1T with A3 ($029C)": ((), "STA $029C"),
        "INC TIM1T (reads INTIM, writes once)": ((), "INC $0294"),
        "DEC $0296 (reads INTIM, writes TIM64T)": ((), "DEC $0296"),
    }
    m += [Measurement(f"written by {name}", setup=setup, write=write)
          for name, (setup, write) in writes.items()]
    m.append(Measurement("edge-detect and port writes leave the timer alone",
                         body=("STA $0284", "STA $0285", "STA $0280", "STA $0283")))
    # -- each interval, read across the underflow --
    for register, address, value, span in (("TIM1T", TIM1T, 10, range(0, 24)),
                                            ("TIM8T", TIM8T, 2, range(0, 40, 3)),
                                            ("TIM64T", TIM64T, 1, range(50, 150, 7)),
                                            ("T1024T", T1024T, 0, range(0, 30, 5))):
        for cycles in span:
            if cycles == 1:
                continue
            m.append(Measurement(f"{register}={value}, {cycles}-cycle delay",
                                 write=f"STA ${address:04X}", value=value, body=delay(cycles)))
    # -- past expiry: the first INTIM read latches, later reads fall once per interval --
    intim, timint = ("LDA $0284", "A"), ("LDA $0285", "A")
    m.append(Measurement("TIM1T=5, six reads in a row", value=5, reads=(intim,) * 6))
    m.append(Measurement("TIM8T=1, TIMINT and INTIM across expiry", write="STA $0295", value=1,
                         reads=(timint, intim, timint, intim, timint, timint, intim, intim, intim)))
    m.append(Measurement("TIM64T=0, reads after an immediate underflow", write="STA $0296",
                         value=0, reads=(timint, intim, intim, timint)))
    m.append(Measurement("T1024T=1, latch late", write="STA $0297", value=1, body=delay(40),
                         reads=(timint, intim, intim)))
    m.append(Measurement("TIM1T=2, latched by a crossing NOP abs,X read", value=2,
                         setup=("LDX #$85",), body=("NOP $01FF,X",), reads=(intim, intim)))
    m.append(Measurement("TIM1T=2, latched by a crossing (zp),Y read", value=2,
                         setup=("LDY #$85",), body=("LDA ($F2),Y",), reads=(intim, intim)))
    m.append(Measurement("TIM8T=0, latched by a crossing abs,X read", write="STA $0295",
                         value=0, setup=("LDX #$85",), body=("LDA $01FF,X",) + delay(9),
                         reads=(intim, timint, intim)))
    # -- no dummy reads: the chip's store to abs,X or (zp),Y first reads the un-carried address,
    # here INTIM, which would latch the expired timer; ALE does not, so the later read latches --
    m.append(Measurement("TIM1T=2, STA abs,X to edge detect $0284 (a dummy read would latch)",
                         value=2, setup=("LDX #$04",), body=delay(6) + ("STA $0280,X",) + delay(6),
                         reads=(intim, intim)))
    m.append(Measurement("TIM1T=2, STA (zp),Y to $0284 (a dummy read would latch)", value=2,
                         setup=("LDY #$00",), body=delay(6) + ("STA ($F4),Y",) + delay(6),
                         reads=(intim, intim)))
    m.append(Measurement("TIM1T=3, TIMINT twice (no clearing), INTIM latches, TIMINT", value=3,
                         body=delay(8), reads=(timint, timint, intim, timint, intim)))
    # The timer is latched now: a write must re-arm TIMINT.
    m.append(Measurement("TIM1T=0 written over a latched timer", value=0,
                         reads=(timint, timint, intim, timint, intim)))
    return m


def timer_programs() -> list[Program]:
    """The measurements packed into as few programs as their result slots allow."""
    programs = [Program()]
    programs[0].emit(*POINTER_SETUP)
    for measurement in timer_measurements():
        if programs[-1].room < len(measurement.reads):
            programs.append(Program())
            programs[-1].emit(*POINTER_SETUP)
        program = programs[-1]
        program.emit(*measurement.setup, f"LDA #${measurement.value:02X}", measurement.write,
                     *measurement.body)
        for number, (read, register) in enumerate(measurement.reads):
            program.emit(read)
            program.store(f"{measurement.name}, read {number + 1} ({read})", register)
    return programs


def test_cycle_accounting_through_riot_timer(ale_ram):
    """Base cycles at the opcode fetch, page-cross penalty before the read, ALE's timer maths."""
    programs = timer_programs()
    for program in programs:
        image = program.image(fragments=TIMER_FRAGMENTS, irq="irq")
        ale = ale_ram(image)
        ours = run_with_timer(image)
        assert_same(ours, ale, program.slots)


# The zero-page pointer wrap ((zp),Y and (zp,X) with the pointer at $FF: ALE fetches the high byte
# from $0100, the chip from $0000) is not tested against ALE: on the 2600 both addresses are the
# TIA's CXM0P register, and a TIA read answers its collision bits plus noise from the previous bus
# access (the pointer's low byte), which is the same at either address. The difference cannot
# show in RAM, so only the flat-bus single-step suites see it.
