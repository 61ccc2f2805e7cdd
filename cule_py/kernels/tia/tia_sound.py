"""The TIA's two audio channels, sampled as ALE's sound observation samples them.

Each channel counts pulses of the audio clock and, every AUDF + 1 of them, clocks a 5-bit and a
4-bit shift register as its control register AUDC says (`FIVE_BIT`, `GATE`, `FOUR_BIT`): pure
tones (the 4-bit register toggling or cycling 000111), the 4-bit and 5-bit polynomials, their
9-bit combination, and patterns divided by 31. The channel sounds while bit 3 of its 4-bit
register is set, at 4 x AUDV.

ALE's sound observation (`sound_obs`, 512 bytes) is made at the end of each frame of ALE's
act(): the generator runs 512 audio clocks with the registers as the game last wrote them (ALE
applies the register writes queued since its last sample before it samples, so only the last
value of each counts) and each clock gives one sample, 128 plus both channels. Only act()
frames advance the generator, those that act() refuses to emulate after the game's end too;
frames that a reset or a Select press emulates do not.

ALE's sound object is made anew at each loadROM (`SOUND_AT_START`: registers 0, both shift
registers 1, the pulse counters 0; ConsoleBatch.power_on), and nothing else resets it: the
TIA's reset does not reach it (ALE never initialises its raw sound object, the only state in
which that reset acts), nor does restoreState. So the generator keeps going through every
reset_game, and the registers are the game's last writes since the ROM was loaded.

The console's row keeps the six registers as last written (the TIA's write stores them;
`tia.neutral_write`), each channel's generator packed in one field (4-bit register, 5-bit
register << 8, pulse counter << 16), and, for the observation, the generator and the registers
(packed by `pack_registers`; 0 before any act frame since the ROM was loaded: ALE's buffer is
then all zeros) of the last act frame, from which `samples_of_last_frame` makes the 512 bytes
again on the host.
"""

import numpy as np
from numba import njit
from numba.extending import register_jitable

from ..._jit_cache import CACHE_ENABLED
from .. import layout as L

#: Samples in ALE's sound observation of one frame.
SAMPLES_PER_FRAME = 512
#: The sound's registers (as written) and generators, and their values when ALE's sound
#: object is made at loadROM: registers 0, both shift registers 1, the pulse counters 0.
SOUND_FIELDS = (L.TIA_AUDC0, L.TIA_AUDC1, L.TIA_AUDF0, L.TIA_AUDF1, L.TIA_AUDV0, L.TIA_AUDV1,
                L.SOUND_CHANNEL0, L.SOUND_CHANNEL1)
SOUND_AT_START = (0, 0, 0, 0, 0, 0, 1 | (1 << 8), 1 | (1 << 8))
_VALID = 1 << 13

# How a pulse clocks the 5-bit register, per AUDC value: not at all, as the 5-bit polynomial
# (taps 4 and 2), or as the upper part of the 9-bit polynomial fed by the 4-bit register.
_KEEP, _POLY5, _NINE = 0, 1, 2
FIVE_BIT = np.array([_KEEP, _KEEP, _POLY5, _POLY5, _KEEP, _KEEP, _POLY5, _POLY5,
                     _NINE, _POLY5, _POLY5, _KEEP, _KEEP, _KEEP, _POLY5, _POLY5], np.int32)
# Whether the pulse then clocks the 4-bit register: always, once the 5-bit register's low four
# bits read 1000 (the divide-by-31 pattern, 13:18), or while its bit 4 is set.
_ALWAYS, _DIV31, _P5_HIGH = 0, 1, 2
GATE = np.array([_ALWAYS, _ALWAYS, _DIV31, _P5_HIGH, _ALWAYS, _ALWAYS, _DIV31, _P5_HIGH,
                 _ALWAYS, _ALWAYS, _DIV31, _ALWAYS, _ALWAYS, _ALWAYS, _DIV31, _P5_HIGH], np.int32)
# How the 4-bit register is clocked: a 1 shifted in, the 4-bit polynomial (taps 3 and 2), its
# low bit toggled (divide by 2), bit 5 or bit 4 of the 5-bit register shifted in, or the
# 000111 cycle (divide by 6).
_ONES, _POLY4, _DIV2, _P5_BIT5, _P5_BIT4, _DIV6 = 0, 1, 2, 3, 4, 5
FOUR_BIT = np.array([_ONES, _POLY4, _POLY4, _POLY4, _DIV2, _DIV2, _DIV2, _DIV2,
                     _P5_BIT5, _P5_BIT5, _P5_BIT4, _ONES, _DIV6, _DIV6, _DIV6, _DIV6], np.int32)


@register_jitable(forceinline=True)
def _pulse(control, p4, p5):
    """One pulse of a channel with AUDC `control`: its (4-bit, 5-bit) registers afterwards, as
    bytes (bits above the register's width hold what was shifted out)."""
    five = FIVE_BIT[control]
    if five == _POLY5:
        feedback = ((p5 >> 4) ^ (p5 >> 2)) & 1
        p5 = ((p5 << 1) | feedback) & 0xFF if (p5 & 0x1F) != 0 else 1
    elif five == _NINE:
        feedback = ((p4 >> 3) ^ (p5 >> 4)) & 1
        p5 = ((p5 << 1) | feedback) & 0xFF if (p5 & 0x1F) != 0 or (p4 & 0x0F) != 0 else 1
    gate = GATE[control]
    if gate == _DIV31 and (p5 & 0x0F) != 0x08:
        return p4, p5
    if gate == _P5_HIGH and (p5 & 0x10) == 0:
        return p4, p5
    four = FOUR_BIT[control]
    if four == _ONES:
        p4 = (p4 << 1) | 1
    elif four == _POLY4:
        p4 = (p4 << 1) | (((p4 >> 3) ^ (p4 >> 2)) & 1) if (p4 & 0x0F) != 0 else 1
    elif four == _DIV2:
        p4 = (p4 << 1) | (~p4 & 1)
    elif four == _P5_BIT5:
        p4 = (p4 << 1) | ((p5 >> 5) & 1)
    elif four == _P5_BIT4:
        p4 = (p4 << 1) | ((p5 >> 4) & 1)
    else:
        p4 = (~p4 << 1) | (1 if (p4 & 4) == 0 and (p4 & 7) != 0 else 0)
    return p4 & 0xFF, p5


@register_jitable(forceinline=True)
def _clock(channel, control, divide_by):
    """`channel` (packed) after one audio clock."""
    p4, p5, counter = channel & 0xFF, (channel >> 8) & 0xFF, channel >> 16
    counter += 1
    if counter > divide_by:
        counter = 0
        p4, p5 = _pulse(control, p4, p5)
    return p4 | (p5 << 8) | (counter << 16)


@register_jitable(forceinline=True)
def pack_registers(control, frequency, volume):
    """A channel's registers as the generator reads them, marked as from an act frame."""
    return (control & 0x0F) | ((frequency & 0x1F) << 4) | ((volume & 0x0F) << 9) | _VALID


@register_jitable
def sound_frame(st, env):
    """ALE's processAudio at the end of an act() frame: remember the generator and the
    registers this frame's samples come from, then run the generator 512 audio clocks."""
    for channel in range(2):
        control = np.int32(st[env, L.TIA_AUDC0 + channel]) & 0x0F
        divide_by = np.int32(st[env, L.TIA_AUDF0 + channel]) & 0x1F
        packed = np.int32(st[env, L.SOUND_CHANNEL0 + channel])
        st[env, L.SOUND_LAST_CHANNEL0 + channel] = packed
        st[env, L.SOUND_LAST_REGISTERS0 + channel] = pack_registers(
            control, divide_by, np.int32(st[env, L.TIA_AUDV0 + channel]))
        for _ in range(SAMPLES_PER_FRAME):
            packed = _clock(packed, control, divide_by)
        st[env, L.SOUND_CHANNEL0 + channel] = packed


@njit(cache=CACHE_ENABLED, error_model="numpy")
def samples_of_last_frame(last_channels, last_registers, out):
    """ALE's getAudio() for each console: `out[i]` (512 bytes) from the generator and the
    registers of console i's last act frame (rows of SOUND_LAST_CHANNEL0/1 and
    SOUND_LAST_REGISTERS0/1); all zeros where it has had none."""
    for console in range(out.shape[0]):
        if last_registers[console, 0] == 0:
            out[console, :] = 0
            continue
        packed0, packed1 = last_channels[console, 0], last_channels[console, 1]
        regs0, regs1 = last_registers[console, 0], last_registers[console, 1]
        for i in range(SAMPLES_PER_FRAME):
            packed0 = _clock(packed0, regs0 & 0x0F, (regs0 >> 4) & 0x1F)
            packed1 = _clock(packed1, regs1 & 0x0F, (regs1 >> 4) & 0x1F)
            level = 128
            if packed0 & 0x08:
                level += ((regs0 >> 9) & 0x0F) * 4
            if packed1 & 0x08:
                level += ((regs1 >> 9) & 0x0F) * 4
            out[console, i] = level
