"""Our own test cartridges for the bank-switching schemes no ALE game uses (and DPC's music mode,
which Pitfall II only ever sends to the sound registers, where a frame compare cannot see it).

Each builder returns a ROM image that ALE's auto-detection gives the intended scheme (checked by
`cule_py.roms.detect_scheme`, which follows ALE's rules). The programs run proper frames (VSYNC,
WSYNC, a background colour per scanline from bank data, so the screen shows which bank was
read), touch every hotspot in several ways (reads, writes, read-modify-write, indexed and
indirect accesses, mirrors), read bank and cartridge-RAM contents, and fold what they read into
RIOT RAM: results in $80-$AF, the frame counter in $B0, a running sum in $B1. Boot code (run
again after every reset) records the reset banks, the cartridge RAM's contents as the System
reset's RNG draws left them, and INTIM (the RIOT timer's draw, which precedes the cartridge's
draws in the System RNG stream; a wrong draw count shows up at the next reset). TIA registers are
written through their $40-$7F mirrors (3F switches banks on writes to $00-$3F). $C0-$FD stay 0
so that ALE's River Raid logic, under whose file name the images are loaded, never calls the
game over.
"""

from __future__ import annotations

import numpy as np

from cule_py.asm6502 import assemble

VSYNC, WSYNC, COLUBK = 0x40, 0x42, 0x49          # TIA mirrors, away from 3F's $00-$3F
SWCHA, INTIM = 0x0280, 0x0284
FRAME, SUM, SEED, PTR = 0xB0, 0xB1, 0xB2, 0xB4   # zero-page variables
RESULTS = range(0x80, 0xB0)


class Source:
    """Assembly text with a rotating result slot."""

    def __init__(self):
        self.lines: list[str] = []
        self._slot = 0

    def emit(self, *lines: str) -> None:
        self.lines.extend(lines)

    def keep(self) -> None:
        """Store A in the next result slot and add it to the running sum."""
        slot = RESULTS[self._slot % len(RESULTS)]
        self._slot += 1
        self.emit(f"STA ${slot:02X}", "CLC", f"ADC ${SUM:02X}", f"STA ${SUM:02X}")

    def text(self) -> str:
        return "\n".join(self.lines)


def _prologue(src: Source) -> None:
    src.emit("start: SEI", "CLD", "LDX #$FF", "TXS", f"LDA ${INTIM:04X}", "STA $AF",
             "LDA #0", "LDX #$B0", "clear: STA $00,X", "INX", "CPX #$FE", "BNE clear")


def _frame_start(src: Source) -> None:
    src.emit("frame: LDA #2", f"STA ${VSYNC:02X}", f"STA ${WSYNC:02X}", f"STA ${WSYNC:02X}",
             f"STA ${WSYNC:02X}", "LDA #0", f"STA ${VSYNC:02X}", f"INC ${FRAME:02X}",
             f"LDA ${SWCHA:04X}", f"EOR ${FRAME:02X}", f"STA ${SEED:02X}")


def _lines(src: Source, count: int, per_line: list[str]) -> None:
    """`count` scanlines: X counts down; `per_line` leaves a colour in A."""
    src.emit(f"LDX #{count}", "line:", *per_line, f"STA ${COLUBK:02X}", f"STA ${WSYNC:02X}",
             "DEX", "BNE line", "JMP frame")


def _random_bytes(seed: int, count: int) -> bytes:
    return np.random.default_rng(seed).integers(0, 256, count, dtype=np.uint8).tobytes()


def _place(image: bytearray, code: dict[int, int], base: int, window: int) -> None:
    """Copy assembled bytes at CPU addresses `window`.. into `image` at `base`.."""
    for address, byte in code.items():
        image[base + address - window] = byte


# ---- F8, F6, F4 (+SC), FA, UA: every 4K bank holds the same code --------------------------------

CODE_4K = 0xF400
ID_4K, TABLE_4K = 0xF300, 0xF200


def _fx_source(hot: int, banks: int, ram: int, switch=None) -> str:
    """The program for a cartridge with 4K banks. hot: CPU address of bank 0's hotspot (banks
    consecutive), or None with `switch(k)` giving the lines that select bank k (UA)."""
    src = Source()
    src.emit(f".org ${CODE_4K:04X}")
    _prologue(src)
    read_port = 0xF000 + ram

    def select(k: int, how: int) -> list[str]:
        if switch is not None:
            return switch(k, how)
        a = hot + k
        return [[f"LDA ${a:04X}"], [f"STA ${a:04X}"], [f"LDX #{k}", f"LDA ${hot:04X},X"],
                [f"BIT ${a:04X}"], [f"INC ${a:04X}"],
                [f"LDY #{k}", f"LDA (${PTR:02X}),Y"]][how % 6]

    if hot is not None:
        src.emit(f"LDA #${hot & 0xFF:02X}", f"STA ${PTR:02X}", f"LDA #${hot >> 8:02X}",
                 f"STA ${PTR + 1:02X}")
    src.emit(f"LDA ${ID_4K:04X}")             # the reset bank
    src.keep()
    for i in range(8 if ram else 0):          # cartridge RAM as the last System reset left it
        src.emit(f"LDA ${read_port + i * ram // 8:04X}")
        src.keep()
    _frame_start(src)
    how = 0
    for round_ in range(2):
        for k in range(banks):
            src.emit(*select(k, how))
            if how % 6 == 0:
                src.keep()                     # the hotspot's own byte: the new bank's
            how += 1
            src.emit(f"LDA ${ID_4K:04X}")
            src.keep()
            src.emit(f"LDY ${SEED:02X}", f"LDA ${TABLE_4K:04X},Y")
            src.keep()
    src.emit("JSR hotpage")
    src.keep()
    if ram:
        mask = ram - 1
        src.emit(f"LDA ${FRAME:02X}", f"AND #${mask:02X}", "TAX", f"LDA ${SEED:02X}",
                 "STA $F000,X", f"LDA ${read_port:04X},X")
        src.keep()
        src.emit("LDA $F005")                  # reading the write port
        src.keep()
        src.emit("LDA #$A5", f"STA ${read_port + 3:04X}", f"LDA ${read_port + 3:04X}")
        src.keep()                             # writing the read port
        src.emit(f"LDA ${FRAME:02X}", "EOR #$5A", "AND #$07", "TAY", "LDA $F0F8,Y",
                 f"STA ${read_port - 0x10:04X}")
        src.emit("LDA #0", "LDX #0", "sum: CLC", f"ADC ${read_port:04X},X", "INX",
                 f"CPX #{ram & 0xFF}", "BNE sum")
        src.keep()
    per_line = (["TXA", f"AND #{banks - 1}", "TAY", f"LDA ${hot:04X},Y"] if hot is not None
                else ["TXA", "AND #$10", "BEQ lb0", *switch(1, 0), "JMP lbx", "lb0:",
                      *switch(0, 0), "lbx:"])
    _lines(src, 180, per_line + [f"LDA ${TABLE_4K:04X},X"])
    src.emit(".org $FFC0", "hotpage: LDA $FFD0", "RTS")
    src.emit(".org $FFFC", ".word start, start")
    return src.text()


def fx_image(scheme: str) -> bytes:
    hot, banks, ram = {"F8": (0xFFF8, 2, 0), "F8SC": (0xFFF8, 2, 128), "F6": (0xFFF6, 4, 0),
                       "F6SC": (0xFFF6, 4, 128), "F4": (0xFFF4, 8, 0), "F4SC": (0xFFF4, 8, 128),
                       "FASC": (0xFFF8, 3, 256)}[scheme]
    code = assemble(_fx_source(hot, banks, ram))
    return _banked_4k(code, banks, ram, seed=banks * 7 + ram)


def _banked_4k(code: dict[int, int], banks: int, ram: int, seed: int) -> bytes:
    image = bytearray(_random_bytes(seed, banks * 4096))
    for bank in range(banks):
        base = bank * 4096
        if ram:
            image[base:base + 2 * ram if ram == 256 else base + 256] = \
                bytes([0x10 + bank]) * (2 * ram if ram == 256 else 256)
        _place(image, code, base, 0xF000)
        image[base + ID_4K - 0xF000] = 0x30 + bank
    return bytes(image)


def ua_image() -> bytes:
    def switch(k: int, how: int) -> list[str]:
        hotspot = (0x0220, 0x0240)[k]
        return [[f"LDA ${hotspot:04X}"], [f"STA ${hotspot:04X}"],
                [f"LDA ${hotspot | 0x2000:04X}"],           # a 13-bit mirror: switches
                [f"BIT ${hotspot:04X}", f"LDA ${hotspot | 0x0800:04X}"],   # not a mirror
                ["LDX #0", f"LDA ${hotspot:04X},X"],
                [f"LDA ${hotspot:04X}"]][how % 6]
    source = _fx_source(None, 2, 0, switch)
    # Writing $0240 also reaches the TIA (VSYNC): arm VSYNC there once per frame; the frame then
    # ends at the next VSYNC clear a line later, if ALE passes the write on.
    source = source.replace("JSR hotpage", "LDA #2\nSTA $0240\nSTA $42\nSTA $42\nLDA #0\n"
                            "STA $40\nJSR hotpage")
    return _banked_4k(assemble(source), 2, 0, seed=99)


# ---- E0: slice 7 fixed at $FC00, code there --------------------------------------------------

def e0_image() -> bytes:
    src = Source()
    src.emit(".org $FC00", ".byte $47", ".org $FC10")
    _prologue(src)
    for segment in range(3):
        src.emit(f"LDA ${0xF000 + 0x400 * segment:04X}")
        src.keep()
    _frame_start(src)
    how = 0
    for segment in range(3):
        for k in (0, 1, 2, 3, 5, 6, 7, 4, segment + 4):
            a = 0xFFE0 + 8 * segment + k
            src.emit(*[[f"LDA ${a:04X}"], [f"STA ${a:04X}"], [f"LDX #{k}", f"LDA ${a - k:04X},X"],
                       [f"BIT ${a:04X}"], [f"STA ${a & 0x1FFF:04X}"],     # $1FE0: E0 signature
                       [f"INC ${a:04X}"]][how % 6])
            how += 1
            src.emit(f"LDA ${0xF000 + 0x400 * segment:04X}")
            src.keep()
            src.emit(f"LDY ${SEED:02X}", f"LDA ${0xF100 + 0x400 * segment:04X},Y")
            src.keep()
    src.emit("LDA $FFE9", "STA $1FE0")         # E0 signatures AD E9 FF, 8D E0 1F
    src.keep()
    _lines(src, 180, ["TXA", "AND #7", "TAY", "LDA $FFE0,Y", "TXA", "AND #7", "TAY",
                      "LDA $FFF0,Y", "LDA $F100,X", "EOR $FA00,X"])
    src.emit(".org $FFFC", ".word start, start")
    image = bytearray(_random_bytes(0xE0, 8192))
    for slice_ in range(7):
        image[slice_ * 1024] = 0x40 + slice_
    _place(image, assemble(src.text()), 7 * 1024, 0xFC00)
    return bytes(image)


# ---- E7: ROM slice 7 at $1A00-$1FFF, code there -------------------------------------------------

def e7_image() -> bytes:
    src = Source()
    src.emit(".org $FA00")
    _prologue(src)
    src.emit("LDA $F000")                      # the reset slice
    src.keep()
    for read in ("LDA $F910", "LDA $FFE7", "LDA $F400", "LDA $F010"):
        src.emit(read)                         # 256-byte bank 0, 1K RAM, its write port
        src.keep()
    for i in range(4):
        src.emit(f"LDA ${0xF400 + 0x100 * i + 0x33:04X}")
        src.keep()
    for bank in range(4):
        src.emit(f"LDA ${0xFFE8 + bank:04X}", f"LDA ${0xF900 + 0x40 * bank + 7:04X}")
        src.keep()
    src.emit("LDA $F810")                      # a 256-byte bank's write port
    src.keep()
    _frame_start(src)
    how = 0
    for k in (0, 1, 2, 3, 4, 5, 6, 3, 0):
        a = 0xFFE0 + k
        src.emit(*[[f"LDA ${a:04X}"], [f"STA ${a:04X}"], ["LDX #" + str(k), "LDA $FFE0,X"],
                   [f"BIT ${a:04X}"], [f"INC ${a:04X}"]][how % 5])
        how += 1
        src.emit("LDA $F000")
        src.keep()
        src.emit(f"LDY ${SEED:02X}", "LDA $F100,Y")
        src.keep()
    # The 1K RAM: write port $F000-$F3FF, read port $F400-$F7FF.
    src.emit("STA $FFE7", f"LDA ${FRAME:02X}", "TAX", f"LDA ${SEED:02X}", "STA $F000,X",
             "STA $F300,X", "LDA $F400,X")
    src.keep()
    src.emit("LDA $F700,X")
    src.keep()
    src.emit("LDA $F020")                      # reading the write port
    src.keep()
    src.emit("LDA #$C3", "STA $F421", "LDA $F421")   # writing the read port
    src.keep()
    src.emit("LDA $FFE2", "LDA $F420")          # a ROM slice again: no RAM there
    src.keep()
    # The 256-byte banks: write $F800-$F8FF, read $F900-$F9FF.
    for bank in (0, 1, 2, 3, 1):
        src.emit(f"LDA ${0xFFE8 + bank:04X}", f"LDA ${FRAME:02X}", "EOR #$" + f"{bank * 0x11:02X}",
                 "TAX", "STA $F800,X", "TXA", "EOR #$FF", "TAX", "LDA $F900,X")
        src.keep()
    src.emit("LDA #0", "LDX #0", "sum7: CLC", "ADC $F900,X", "INX", "BNE sum7")
    src.keep()
    src.emit("STA $FFE7", "LDA #0", "LDX #0", "sum7b: CLC", "ADC $F400,X", "ADC $F500,X",
             "ADC $F600,X", "ADC $F700,X", "INX", "BNE sum7b")
    src.keep()
    _lines(src, 160, ["TXA", "AND #7", "TAY", "LDA $FFE0,Y", "LDA $F100,X"])
    src.emit(".org $FFFC", ".word start, start")
    image = bytearray(_random_bytes(0xE7, 16384))
    for slice_ in range(7):
        image[slice_ * 2048] = 0x50 + slice_
    image[0x3800:0x3A00] = bytes(512)          # what the 256-byte window hides: ALE's E7 test
    _place(image, assemble(src.text()), 0x3800, 0xF800)
    return bytes(image)


# ---- 3F: the last 2K fixed at $1800, code there --------------------------------------------------

def f3_image() -> bytes:
    src = Source()
    src.emit(".org $003F", "abs3f:", ".org $F800", ".byte $63", ".org $FA00")
    _prologue(src)
    src.emit("LDA $F000")                      # reset bank
    src.keep()
    _frame_start(src)
    how = 0
    for k in (0, 1, 2, 3, 2, 5, 1, 0, 6):      # 5 and 6: beyond the 4 banks, wrapped
        src.emit(f"LDA #{k}", f"LDX #{k}", f"LDY #{k}")
        src.emit(*[["STA $3F"], ["STX $3F"], ["STY abs3f"], ["STA $2000"],
                   ["LDX #0", "STA $3F,X"], ["STA $2E"], ["STA $09"]][how % 7])
        how += 1
        src.emit("LDA $F000")
        src.keep()
        src.emit(f"LDY ${SEED:02X}", "LDA $F100,Y")
        src.keep()
    src.emit("LDA #1", "STA $3F", "LDA $3F", "LDA $3E", "LDA $F000")   # reads do not switch
    src.keep()
    src.emit("LDA $0C")                        # INPT4 through page 0
    src.keep()
    src.emit("LDA #2", "STA $7F", "LDA $F000")  # a mirror above $3F: no switch
    src.keep()
    _lines(src, 180, ["TXA", "AND #3", "STA $3F", "LDA $F100,X"])
    src.emit(".org $FFFC", ".word start, start")
    image = bytearray(_random_bytes(0x3F, 8192))
    for bank in range(3):
        image[bank * 2048] = 0x60 + bank
    _place(image, assemble(src.text()), 0x1800, 0xF800)
    return bytes(image)


# ---- DPC: two 4K program banks with the same code, 2K display data --------------------------

def dpc_image() -> bytes:
    src = Source()
    src.emit(".org $F200")
    _prologue(src)
    src.emit("LDA $F080")                      # reset bank
    src.keep()
    src.emit("LDA $1000")                      # the random number generator goes on across resets
    src.keep()
    # Music mode on fetchers 5-7: top, bottom, counter (loaded from the top), music bit.
    for i, (top, bottom) in zip(range(5, 8), ((0x1F, 0x0F), (0x2E, 0x10), (0x07, 0x03))):
        src.emit(f"LDA #${top:02X}", f"STA ${0x1040 + i:04X}", f"LDA #${bottom:02X}",
                 f"STA ${0x1048 + i:04X}", "LDA #$10", f"STA ${0x1058 + i:04X}",
                 f"STA ${0x1050 + i:04X}")
    _frame_start(src)
    # Fetchers 0-4: top, bottom, counter from the frame; read display data, masked data, flags.
    for i in range(5):
        src.emit(f"LDA ${SEED:02X}", f"EOR #${i * 0x25:02X}", f"STA ${0x1050 + i:04X}",
                 "AND #$03", f"STA ${0x1058 + i:04X}", f"LDA ${SEED:02X}", "CLC",
                 f"ADC #{4 + i}", f"STA ${0x1040 + i:04X}", "SEC", f"SBC #{8 + i}",
                 f"STA ${0x1048 + i:04X}")
        for function in (1, 2, 7, 2, 1, 2, 7, 2, 2, 2, 7):
            src.emit(f"LDA ${0x1000 + 8 * function + i:04X}")
            src.keep()
    for a in (0x1000, 0x1001, 0x1003, 0x1020 + 5, 0x1030, 0x1042 + 0x40 - 0x40, 0x1060):
        src.emit(f"LDA ${a:04X}")
        src.keep()
    src.emit("STA $1010", "LDA $1002")          # a write to a read register clocks only
    src.keep()
    src.emit("STA $1071", "LDA $1001")          # random number generator reset
    src.keep()
    src.emit("STA $F300", "STA $1E00", "LDA $1002")   # writes to directly mapped ROM: no clock
    src.keep()
    # Music fetchers off and on again, now and then.
    src.emit(f"LDA ${FRAME:02X}", "AND #$07", "BNE music", "STA $105E", "LDA #$10", "STA $105E",
             "STA $1056", "music:")
    for i in range(5, 8):
        src.emit(f"LDA ${0x1038 + i:04X}")      # flags of the music fetchers
        src.keep()
        src.emit(f"LDA ${0x1008 + i:04X}")      # their display data (no decrement)
        src.keep()
    for bank, a in ((0, "LDA $FFF8"), (1, "STA $FFF9"), (0, "BIT $FFF8"), (1, "LDA $FFF9")):
        src.emit(a, "LDA $F080")
        src.keep()
    src.emit("JSR hotpage")
    src.keep()
    # Each scanline reads a music amplitude: the fractional clock adds up over odd intervals.
    _lines(src, 190, ["TXA", "AND #3", "TAY", "LDA $1004,Y", "STA $BF", "CLC", f"ADC ${SUM:02X}",
                      f"STA ${SUM:02X}", "LDA $BF", "ASL", "ASL", "ASL", "ASL"])
    src.emit(".org $FFC0", "hotpage: LDA $1000", "NOP", "EOR $1001", "RTS")
    src.emit(".org $FFFC", ".word start, start")
    code = assemble(src.text())
    image = bytearray(_random_bytes(0xDC, 10240))
    for bank in range(2):
        _place(image, code, bank * 4096, 0xF000)
        image[bank * 4096 + 0x80] = 0x70 + bank
    return bytes(image)


# ---- FE as ALE has it: the 4K half by address line A13 ---------------------------------------

def fe_image() -> bytes:
    src = Source()
    src.emit(".org $F400")
    _prologue(src)
    _frame_start(src)
    src.emit("JSR $D000", "DEC $C5")           # FE signature 20 00 D0 C6 C5; $D000: second 4K
    src.keep()
    for base in (0xF800, 0xD800, 0xB800, 0x9800, 0x3800, 0x1800, 0x7800, 0x5800):
        src.emit(f"LDY ${SEED:02X}", f"LDA ${base:04X},Y")
        src.keep()
    src.emit(f"LDY ${SEED:02X}", "LDA ($B6),Y")  # a pointer into $Dxxx
    src.keep()
    _lines(src, 180, ["LDA $F900,X", "EOR $D900,X"])
    src.emit(".org $FFFC", ".word start, start")
    image = bytearray(_random_bytes(0xFE, 8192))
    _place(image, assemble(src.text()), 0, 0xF000)
    # The second 4K: a routine at $D000 that reads both halves and sets up the pointer.
    routine = assemble(".org $D000\nLDA #$00\nSTA $B6\nLDA #$DA\nSTA $B7\n"
                       "LDY $B2\nLDA $DB00,Y\nEOR $FB00,Y\nRTS")
    _place(image, routine, 4096, 0xD000)
    return bytes(image)


BUILDERS = {
    "F8": lambda: fx_image("F8"), "F8SC": lambda: fx_image("F8SC"),
    "F6": lambda: fx_image("F6"), "F6SC": lambda: fx_image("F6SC"),
    "F4": lambda: fx_image("F4"), "F4SC": lambda: fx_image("F4SC"),
    "FASC": lambda: fx_image("FASC"), "UA": ua_image, "E0": e0_image, "E7": e7_image,
    "3F": f3_image, "DPC": dpc_image, "FE": fe_image,
}
