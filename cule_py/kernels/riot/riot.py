"""The 6532 RIOT of the 2600 as ALE's M6532 computes it: the I/O ports and the interval timer.

Written from the 6532's documented behaviour (the Stella Programmer's Guide, its PIA sections)
and ALE's M6532 as observed through ale-py; the console's bus (console.py) hands this module
every access to the RIOT's I/O page (its RAM is decoded by the bus itself), and the CPU tests
bind the timer functions to a flat bus.

The ports: SWCHA reads the joysticks and SWCHB the console switches, as the environment set them
in the console's input fields (`IN_SWCHA`, `IN_SWCHB`) before the frame; SWACNT (port A's data
direction register) reads back what was written; SWBCNT reads 0. Writes to the ports themselves
change nothing ALE shows.

The timer is lazy: nothing ticks. A write records the value, the interval and the system cycle
count of the write; a read works out what the counter shows from the cycles elapsed since. ALE's
maths, including its deviations from the real chip, is reproduced exactly:

* a write is stamped with `clk` (the system cycle count the bus hands the device, which on ALE's
  CPU is the count at the *end* of the writing instruction);
* a read looks at `clk - 1` (the last bus cycle of the reading instruction), so `STA TIM64T`
  straight followed by `LDA INTIM` reads the written value minus one;
* past expiry, the first INTIM read made at least two cycles after the underflow latches an
  offset from its own cycle count (`clk`, not `clk - 1`); from then on the value falls by one
  every interval, not every cycle as on the real chip;
* TIMINT only ever reports bit 7: set once the counter has underflowed, and clear again after
  that latching INTIM read (reading TIMINT itself changes nothing);
* any write re-arms the timer and forgets the latch.

State lives in one int32 row per console, `state[env, field]`: the console's state row
(layout.py), whose first fields are the timer's, numbered as TIMER_* below. A running INTIM read
also sets a bit of the row's CPU_ATTENTION (the idle-loop skip's cue), so the timer functions need a
whole state row, not just TIMER_FIELDS of it (numba checks no bounds). Cycle stamps are signed 32-bit
values that the console rebases at every frame start (`timer_rebase`); the arithmetic on them is
modulo 2**32 as in ALE, which is why a few intermediate values are held in 64 bits and wrapped
explicitly.

Address decoding (registers.py; the console or a test bus decides *which* addresses reach the
RIOT at all): reads decode `addr & RIOT_READ_BITS` (the ports SWCHA, SWACNT, SWCHB, SWBCNT at
0-3; INTIM at 4 and 6, TIMINT at 5 and 7), writes with `addr & RIOT_TIMER_WRITE` all set set the
timer, `addr & RIOT_INTERVAL_BITS` choosing the interval (TIM1T, TIM8T, TIM64T, T1024T: 1, 8, 64
or 1024 cycles); the interrupt-enable bit A3 is ignored.

The timer helpers are `register_jitable(forceinline=True)`, as the TIA's are (see tia.py).
"""

import numpy as np
from numba.extending import register_jitable

from .. import layout as L
from ..registers import (RIOT_INTERVAL_BITS, RIOT_READ_BITS, RIOT_TIMER_READ, RIOT_TIMER_WRITE,
                        RIOT_TIMINT_READ, SWACNT_PORT, SWBCNT_PORT, SWCHA_PORT, SWCHB_PORT)

# Fields of a console's timer row.
TIMER_VALUE = 0            # the value last written (T), 0..255
TIMER_SHIFT = 1            # log2 of the interval (k): 0, 3, 6 or 10
TIMER_SET_CYCLE = 2        # system cycle count of the last write (S), signed 32-bit
TIMER_LATCH_CYCLE = 3      # cycle count of the first INTIM read past expiry (I), signed 32-bit
TIMER_LATCHED = 4          # 1 once that read has happened (until the next write)
TIMER_FIELDS = 5

assert (TIMER_VALUE, TIMER_SHIFT, TIMER_SET_CYCLE, TIMER_LATCH_CYCLE, TIMER_LATCHED) == (
    L.RIOT_TIMER_VALUE, L.RIOT_TIMER_SHIFT, L.RIOT_TIMER_SET_CYCLE, L.RIOT_TIMER_LATCH_CYCLE,
    L.RIOT_TIMER_LATCHED), "the timer's fields must be the console state row's"

# log2 of the interval for the four timer write addresses, indexed by `addr & RIOT_INTERVAL_BITS`:
# TIM1T, TIM8T, TIM64T, T1024T.
INTERVAL_SHIFTS = np.array([0, 3, 6, 10], dtype=np.int32)

# The interval and value a System reset gives the timer (the value itself is drawn by the console
# from the system RNG: 25 + draw % 75).
RESET_SHIFT = 6

_MASK32 = 0xFFFFFFFF
_SIGN32 = 0x80000000


@register_jitable(forceinline=True)
def _signed32(v):
    """`v` reduced modulo 2**32 and read as a signed 32-bit number (held in 64 bits)."""
    return ((np.int64(v) + _SIGN32) & _MASK32) - _SIGN32


@register_jitable(forceinline=True)
def is_timer_read(addr):
    """True for the RIOT I/O reads the timer answers (INTIM, TIMINT); the others are the ports."""
    return (addr & RIOT_TIMER_READ) != 0


@register_jitable(forceinline=True)
def is_timer_write(addr):
    """True for the RIOT I/O writes that set the timer (the others: ports and edge detect)."""
    return (addr & RIOT_TIMER_WRITE) == RIOT_TIMER_WRITE


@register_jitable(forceinline=True)
def timer_reset(state, env, value):
    """The timer as a System reset leaves it: `value` at the 64-cycle interval, set at cycle 0."""
    state[env, TIMER_VALUE] = value & 0xFF
    state[env, TIMER_SHIFT] = RESET_SHIFT
    state[env, TIMER_SET_CYCLE] = 0
    state[env, TIMER_LATCH_CYCLE] = 0
    state[env, TIMER_LATCHED] = 0


@register_jitable(forceinline=True)
def timer_write(state, env, addr, value, clk):
    """Set the timer: a write to a timer address (`is_timer_write(addr)`) at system cycle `clk`."""
    state[env, TIMER_VALUE] = value & 0xFF
    state[env, TIMER_SHIFT] = INTERVAL_SHIFTS[addr & RIOT_INTERVAL_BITS]
    state[env, TIMER_SET_CYCLE] = _signed32(clk)
    state[env, TIMER_LATCHED] = 0


@register_jitable(forceinline=True)
def timer_read(state, env, addr, clk):
    """INTIM or TIMINT (`is_timer_read(addr)`) read at system cycle `clk`; may latch (see above)."""
    value = np.int64(state[env, TIMER_VALUE])
    shift = np.int64(state[env, TIMER_SHIFT])
    set_cycle = np.int64(state[env, TIMER_SET_CYCLE])
    latched = np.int32(state[env, TIMER_LATCHED])
    # Cycles since the write, as an unsigned 32-bit count: the read happens at clk - 1.
    elapsed = (np.int64(clk) - 1 - set_cycle) & _MASK32
    ticks = elapsed >> shift
    # What the counter shows while it is still running; negative once it has underflowed.
    running = _signed32(value - ticks - 1)
    if (addr & RIOT_TIMINT_READ) != 0:
        # TIMINT: only bit 7, and only until the latching INTIM read.
        if running < 0 and latched == 0:
            return np.int32(0x80)
        return np.int32(0)
    if running >= 0:
        if (running & 0xFF) != 0:
            # A running count: the decoded core looks for an idle loop waiting on it next
            # (idle_loop.skip_idle_polls; cleared there and at the frame's end).
            state[env, L.CPU_ATTENTION] = (np.int32(state[env, L.CPU_ATTENTION])
                                           | L.ATTENTION_TIMER_POLLED)
        return np.int32(running & 0xFF)
    # Past expiry: a per-cycle countdown from the moment of the underflow.
    past = _signed32((value << shift) - elapsed - 1)
    if past <= -2 and latched == 0:
        # The first read at least two cycles past the underflow latches its own cycle count.
        latched = np.int32(1)
        state[env, TIMER_LATCHED] = 1
        state[env, TIMER_LATCH_CYCLE] = _signed32(clk)
    if latched != 0:
        latch_cycle = np.int64(state[env, TIMER_LATCH_CYCLE])
        # Falls by one per interval after the latch, offset by the cycles between underflow and
        # latch; only the low byte matters, so plain 64-bit arithmetic is exact here.
        return np.int32((value - ticks - (latch_cycle - (set_cycle + (value << shift)))) & 0xFF)
    # Only reached at the very cycle of the underflow: reads 0xFF.
    return np.int32(past & 0xFF)


@register_jitable(forceinline=True)
def reads_still_running(state, env, clk, period):
    """How many INTIM reads, one every `period` cycles after a read at system cycle `clk`, are
    certain to show a running count of at least 1: reads that change nothing and tell an idle
    loop waiting for 0 to go on (console_fast_path skips them). The counter shows
    value - (elapsed >> shift) - 1, so a read shows at least 1 while elapsed < (value - 1) <<
    shift."""
    value = np.int64(state[env, TIMER_VALUE])
    limit = (value - 1) << np.int64(state[env, TIMER_SHIFT])
    elapsed = (np.int64(clk) - 1 - np.int64(state[env, TIMER_SET_CYCLE])) & _MASK32
    if state[env, TIMER_LATCHED] != 0 or elapsed >= limit:
        return np.int64(0)
    return (limit - 1 - elapsed) // period


@register_jitable(forceinline=True)
def timer_rebase(state, env, cycles):
    """Subtract `cycles` from the stamps, when the console resets its cycle counter to 0."""
    state[env, TIMER_SET_CYCLE] = _signed32(np.int64(state[env, TIMER_SET_CYCLE]) - cycles)
    state[env, TIMER_LATCH_CYCLE] = _signed32(np.int64(state[env, TIMER_LATCH_CYCLE]) - cycles)


# ---- the RIOT as the console sees it: ports and timer ------------------------------------------
# Plain register_jitable (the entry point's inlining applies): called from the console's
# out-of-line device functions and, for the CPU backend's inline INTIM polls, from
# console_fast_path.finish_pending.

@register_jitable
def io_read(st, env, addr, clk):
    """A CPU read of the RIOT's I/O page (ports or timer) at system cycle `clk`."""
    port = addr & RIOT_READ_BITS
    if port == SWCHA_PORT:
        return np.int32(st[env, L.IN_SWCHA])       # [Q] built from the controllers only
    if port == SWACNT_PORT:
        return np.int32(st[env, L.RIOT_DDRA])
    if port == SWCHB_PORT:
        return np.int32(st[env, L.IN_SWCHB])
    if port == SWBCNT_PORT:
        return np.int32(0)
    return timer_read(st, env, addr, clk)


@register_jitable
def io_write(st, env, addr, value, clk):
    """A CPU write to the RIOT's I/O page at system cycle `clk`: SWACNT or the timer."""
    port = addr & RIOT_READ_BITS
    if port == SWACNT_PORT:
        st[env, L.RIOT_DDRA] = value
    elif port > SWBCNT_PORT and is_timer_write(addr):
        timer_write(st, env, addr, value, clk)


@register_jitable(forceinline=True)
def reset(st, env, timer_value):
    """The RIOT as a System reset leaves it: the timer (`timer_reset`), port A an input."""
    timer_reset(st, env, timer_value)
    st[env, L.RIOT_DDRA] = 0
