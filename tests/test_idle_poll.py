"""The idle-loop skip (kernels/cpu/idle_loop.py) against ale-py, on the CPU fast path. The decoded
core's skip (the GPU's loop) is compared with this one on the same cartridge, loop against loop,
in test_console_fast_path.test_frame_loop_equals_the_decoded_loop.

Most games wait for the RIOT timer in `LDA INTIM; BNE back`; the fast path jumps over the reads
that are sure to show a running, nonzero count. Our own 4K cartridge waits in every form the skip
takes or must refuse: LDA / LDX / LDY, an INTIM mirror, a branch into another page (a cycle
more per iteration), each timer interval, counts that expire between two polls (TIM1T: the 0
lasts one cycle, so the loop reads on past the underflow, which latches), and a T1024T wait of
about 37,000 iterations, longer than ALE's 25,000 instructions a frame (the frame ends by that
count, mid-loop, so the skipped polls must be counted exactly). After each wait it stores the
registers, INTIM and TIMINT in RAM; RAM, screen and frame flags are compared with ale-py after
every frame.
"""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("ale_py")

from cule_py import roms  # noqa: E402
from cule_py.asm6502 import assemble  # noqa: E402
from cule_py.batch import ConsoleBatch  # noqa: E402
from cule_py.testing import ale_twin, play_batch  # noqa: E402

pytestmark = pytest.mark.live_ale

SETTINGS = "riverraid"      # one mode, no starting actions; RAM $C0-$FD stays 0 (no game over)
ENV_SEED = 99

VSYNC, WSYNC, COLUBK = 0x00, 0x02, 0x09
SWCHA, INTIM, TIMINT, TIM1T = 0x0280, 0x0284, 0x0285, 0x0294
FRAME, SEED = 0xB0, 0xB2


def _wait(label: str, load: str, timer: int) -> list[str]:
    return [f"{label}: {load} ${timer:04X}", f"BNE {label}"]


def idle_poll_image() -> bytes:
    """A 4K cartridge: each frame sets the timer one of eight ways (by the frame counter, the
    count varied by the joystick) and waits for it, then draws 60 coloured lines."""
    kinds = [
        # (interval 0-3: TIM1T, TIM8T, TIM64T, T1024T; base count; the wait)
        (0, 40, _wait("w0", "LDA", INTIM)),
        (1, 20, _wait("w1", "LDX", INTIM)),
        (2, 30, _wait("w2", "LDY", INTIM)),
        (3, 2, _wait("w3", "LDA", 0x02A6)),     # an INTIM mirror
        (2, 12, ["JMP w4"]),                     # the wait at $F1FD: BNE into the page before
        (0, 1, _wait("w5", "LDA", INTIM)),       # expires between polls: reads on, latched
        (3, 240, _wait("w6", "LDA", INTIM)),     # ~250,000 cycles: past ALE's frame limit
        (1, 3, _wait("w7", "LDX", 0x0286)),
    ]
    src = [".org $F000",
           "start: SEI", "CLD", "LDX #$FF", "TXS", "LDA #0", "LDX #$80",
           "clear: STA $00,X", "INX", "BNE clear",
           "frame: LDA #2", f"STA ${VSYNC:02X}", f"STA ${WSYNC:02X}", f"STA ${WSYNC:02X}",
           f"STA ${WSYNC:02X}", "LDA #0", f"STA ${VSYNC:02X}", f"INC ${FRAME:02X}",
           f"LDA ${SWCHA:04X}", f"EOR ${FRAME:02X}", f"STA ${SEED:02X}",
           f"LDA ${FRAME:02X}", "AND #7"]
    for k in range(len(kinds)):
        src += [f"CMP #{k}", f"BNE not{k}", f"JMP kind{k}", f"not{k}:"]
    for k, (interval, base, wait) in enumerate(kinds):
        src += [f"kind{k}: INC ${0x88 + k:02X}", f"LDA ${SEED:02X}", "AND #$0F", "CLC",
                f"ADC #{base}",
                f"LDX #{interval}", f"STA ${TIM1T:04X},X", *wait, "JMP after"]
    src += ["after: STA $80", "STX $81", "STY $82", "PHP", "PLA", "STA $83",
            f"LDA ${INTIM:04X}", "STA $84", f"LDA ${TIMINT:04X}", "STA $85",
            "LDX #60", "line: TXA", f"EOR ${FRAME:02X}", f"STA ${COLUBK:02X}",
            f"STA ${WSYNC:02X}", "DEX", "BNE line", "JMP frame",
            # The load at $F1FD-$F1FF, its BNE at $F200: the branch goes back a page (+1 cycle).
            ".org $F1FD", *_wait("w4", "LDY", INTIM), "JMP after",
            ".org $FFFC", ".word start, start"]
    image = bytearray(4096)
    for address, byte in assemble("\n".join(src)).items():
        image[address - 0xF000] = byte
    return bytes(image)


def test_page_crossing_wait_is_where_the_test_needs_it():
    image = idle_poll_image()
    assert image[0x1FD:0x200] == bytes([0xAC, 0x84, 0x02]) and image[0x200:0x202] == b"\xd0\xfb"


def test_idle_loops_equal_ale_py(tmp_path):
    path = tmp_path / f"{SETTINGS}.bin"
    path.write_bytes(idle_poll_image())
    ram = _play(path)
    # Every kind of wait ran, the long one too ($88 + kind counts them).
    assert (ram[:, 0x08:0x10] > 0).all(), ram[:, 0x08:0x10]


def _play(path) -> np.ndarray:
    rom = roms.load_rom(path, settings=SETTINGS)
    assert rom.scheme == "4K"
    consoles = ConsoleBatch(rom, 3, env_seed=ENV_SEED)
    ales = [ale_twin(path, ENV_SEED) for _ in range(3)]
    play_batch(consoles, ales, 240, seed=11, reset_chance=0.0)
    return consoles.ram

