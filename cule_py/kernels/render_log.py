"""The render split (issue 27): the 6507 pass logs what the TIA sees, a render pass replays it.

Inline drawing (render.py) makes the console that owes pixels draw them inside the 6507 loop, at
its next TIA access; on the GPU one lane then draws a long span while the other 31 of its warp
wait. The split takes the pixels out of that loop:

* **The 6507 pass** runs the frame with the TIA in collision-only mode (`TIA_SKIP_DRAW`, the mode
  the agent step's undrawn frames use: every latch exact, no frame-buffer write) and appends each
  TIA access to the console's log: a write (register, value, cycle) or a read (register, cycle).
  Those are the only events that change the TIA's state between a frame's start and its end, so
  the log and the TIA's state at the frame's start determine the frame's pixels.
* **The render pass** (`replay_frame`) copies that starting state into a scratch row, clears
  collision-only mode and makes the same calls the 6507 pass made (start_frame, tia.write and
  tia.read with the logged cycles, the frame loop's closing bookkeeping, grey_out_frame for a
  partial frame): the same code on the same inputs, so the same pixels, drawn now. Afterwards the
  scratch row's TIA fields equal the live ones (`tia_state_matches`, a check the tests make).
* **A full log** (more accesses in a frame than `capacity`) marks the frame; the caller then runs
  it again from its snapshot with drawing inline (`run_split_frame`). Never a wrong picture.

Log rows are int32 pairs: the cycle of the access (cycles since the frame's start, as the TIA is
called with) and `kind << 16 | value << 8 | register`.
"""

import numpy as np
from numba import cuda
from numba.extending import register_jitable

from . import layout as L
from . import tia
from .cart import cart_frame_start, cart_read, cart_tia_read, cart_tia_write, cart_write
from .console import INSTRUCTIONS_PER_FRAME, device_read, device_write
from .console import run_frame as console_run_frame
from .render import grey_out_frame
from .state_tiles import console_row
from .cpu6507 import ALE, make_cpu

LOG_WRITE = 0
LOG_READ = 1

# The TIA's part of a state row: what the render pass copies and compares (layout order keeps
# them together, from the frame bookkeeping to the collision-only flag and the owed clock).
TIA_FIRST = L.TIA_FRAME_START
TIA_LAST = L.TIA_DRAWING_OWED


@register_jitable(forceinline=True)
def log_access(log, log_len, env, kind, reg, value, clk):
    """Append one TIA access; past the capacity only count (the frame is then drawn inline)."""
    n = np.int32(log_len[env])
    if n < log.shape[1]:
        log[env, n, 0] = np.int32(clk)
        log[env, n, 1] = np.int32((kind << 16) | ((value & 0xFF) << 8) | reg)
    log_len[env] = n + 1


# The 6507 pass's bus: console.console_read / console_write with each access that reaches the
# TIA logged as the TIA receives it (3F's reads of its own page are the cartridge's, not logged).
@register_jitable
def logged_read(bus, addr, clk, data_bus):
    rom, scheme, ram, st, fb, env, log, log_len = bus
    if addr & 0x1000:
        return cart_read(rom, scheme, ram, st, env, addr, clk)
    if (addr & 0x280) == 0x80:
        return np.int32(ram[env, addr & 0x7F])
    if (addr & 0x80) == 0:
        value = cart_tia_read(rom, scheme, st, env, addr)
        if value >= 0:
            return value
        log_access(log, log_len, env, LOG_READ, addr & 0x0F, 0, clk)
    return device_read(st, fb, env, np.int32(addr), np.int64(clk), np.int32(data_bus))


@register_jitable
def logged_write(bus, addr, value, clk):
    rom, scheme, ram, st, fb, env, log, log_len = bus
    if addr & 0x1000:
        cart_write(rom, scheme, ram, st, env, addr, value, clk)
    elif (addr & 0x280) == 0x80:
        ram[env, addr & 0x7F] = value
    else:
        if (addr & 0x80) == 0:
            cart_tia_write(rom, scheme, st, env, addr, value)
            log_access(log, log_len, env, LOG_WRITE, addr & 0x3F, value, clk)
        clk = device_write(st, fb, env, np.int32(addr), np.int32(value), np.int64(clk))
    return clk


logged_step = make_cpu(logged_read, logged_write, ALE)


@register_jitable
def logged_instructions(rom, scheme, ram, st, fb, env, log, log_len, pc, a, x, y, s, p, clk):
    """console.run_instructions through the logging bus."""
    bus = (rom, scheme, ram, st, fb, env, log, log_len)
    jammed = False
    for _ in range(INSTRUCTIONS_PER_FRAME):
        pc, a, x, y, s, p, clk, jammed = logged_step(bus, pc, a, x, y, s, p, clk)
        if jammed or (np.int32(st[env, L.CPU_ATTENTION]) & L.ATTENTION_FRAME_ENDED) != 0:
            break
    return pc, a, x, y, s, p, clk, jammed


# The two ends of console.run_frame, restated rather than shared: run_frame built from these
# helpers compiled to 1,830 B of spill stores in drive_cuda where its own body gives 1,758
# (offline, sm_90a, session 18), in the GPU's hottest kernel. tests/test_render_log.py
# compares every state field with run_frame's after 90-120 frames, and the TIA's after each
# frame, so the copies cannot drift apart unnoticed.
@register_jitable
def open_frame(scheme, st, env):
    """run_frame's start: a fresh frame unless the last was partial. Returns (fresh, the cycle
    the CPU goes on from)."""
    clk = np.int32(st[env, L.CYCLES])
    fresh = st[env, L.TIA_PARTIAL_FRAME] == 0
    if fresh:
        cart_frame_start(scheme, st, env, clk)
        tia.start_frame(st, env, clk)
        clk = np.int32(0)
    st[env, L.TIA_PARTIAL_FRAME] = 1
    st[env, L.CPU_ATTENTION] = 0
    return fresh, clk


@register_jitable
def close_frame(st, fb, env, fresh, clk):
    """run_frame's end at cycle `clk`: the scanline reached, the frame's flags, a partial frame
    greyed out (once)."""
    st[env, L.CYCLES] = clk
    ended = (np.int32(st[env, L.CPU_ATTENTION]) & L.ATTENTION_FRAME_ENDED) != 0
    st[env, L.CPU_ATTENTION] = L.ATTENTION_FRAME_ENDED if ended else 0
    scanline = (3 * clk - np.int32(st[env, L.TIA_FRAME_START])) // tia.LINE
    st[env, L.TIA_CURRENT_SCANLINE] = scanline
    st[env, L.TIA_FRAME_COMPLETE] = 1 if (
        fresh and ended and st[env, L.TIA_CURSOR] >= st[env, L.TIA_DISPLAY_STOP]) else 0
    if ended:
        st[env, L.TIA_PARTIAL_FRAME] = 0
        st[env, L.TIA_SCANLINES_LAST_FRAME] = scanline
    elif st[env, L.TIA_FRAME_GREYED] == 0:
        grey_out_frame(st, fb, env)
        st[env, L.TIA_FRAME_GREYED] = 1


@register_jitable
def logged_frame(rom, scheme, ram, st, fb, env, log, log_len):
    """console.run_frame as the 6507 pass: collision-only, every TIA access logged. Returns
    (fresh, cycle at the frame's start) for the render pass."""
    log_len[env] = 0
    start_clk = np.int32(st[env, L.CYCLES])
    skip_draw = st[env, L.TIA_SKIP_DRAW]
    st[env, L.TIA_SKIP_DRAW] = 1
    fresh, clk = open_frame(scheme, st, env)
    if st[env, L.CPU_JAMMED] == 0:
        pc, a, x, y, s, p, clk, jammed = logged_instructions(
            rom, scheme, ram, st, fb, env, log, log_len, np.int32(st[env, L.CPU_PC]),
            np.int32(st[env, L.CPU_A]), np.int32(st[env, L.CPU_X]), np.int32(st[env, L.CPU_Y]),
            np.int32(st[env, L.CPU_S]), np.int32(st[env, L.CPU_P]), np.int64(clk))
        if jammed:
            st[env, L.CPU_JAMMED] = 1
        st[env, L.CPU_PC] = pc
        st[env, L.CPU_A] = a
        st[env, L.CPU_X] = x
        st[env, L.CPU_Y] = y
        st[env, L.CPU_S] = s
        st[env, L.CPU_P] = p
    close_frame(st, fb, env, fresh, clk)
    st[env, L.TIA_SKIP_DRAW] = skip_draw
    return fresh, start_clk


@register_jitable
def replay_frame(start, scratch, fb, env, log, n, fresh, start_clk, end_clk):
    """The render pass for one console's frame: from `start[env]` (its state row as the frame
    began), the logged TIA accesses again with drawing on, into fb. `scratch[env]` ends as the
    TIA's state after the frame."""
    for field in range(start.shape[1]):
        scratch[env, field] = start[env, field]
    scratch[env, L.TIA_SKIP_DRAW] = 0
    if fresh:
        tia.start_frame(scratch, env, start_clk)
    scratch[env, L.TIA_PARTIAL_FRAME] = 1
    scratch[env, L.CPU_ATTENTION] = 0
    for i in range(n):
        clk = np.int64(log[env, i, 0])
        word = np.int32(log[env, i, 1])
        reg = word & 0x3F
        if word >> 16 == LOG_WRITE:
            tia.write(scratch, fb, env, reg, (word >> 8) & 0xFF, clk, True)
        else:
            tia.read(scratch, fb, env, reg, clk, 0)
    close_frame(scratch, fb, env, fresh, end_clk)


@register_jitable
def tia_state_matches(a, b, env):
    """The TIA's fields of two state rows equal, collision-only mode aside."""
    for field in range(TIA_FIRST, TIA_LAST + 1):
        if field != L.TIA_SKIP_DRAW and a[env, field] != b[env, field]:
            return False
    return True


@register_jitable
def run_split_frame(rom, scheme, ram, st, fb, env, log, log_len, start, scratch, ram_copy):
    """One frame through the split: the 6507 pass, then the render pass; a frame whose log
    overflowed runs again from its snapshot with drawing inline. Returns 1 if it overflowed, -1
    if the render pass's TIA state differed from the 6507 pass's (never, if the split is exact)."""
    for field in range(st.shape[1]):
        start[env, field] = st[env, field]
    for i in range(ram.shape[1]):
        ram_copy[env, i] = ram[env, i]
    fresh, start_clk = logged_frame(rom, scheme, ram, st, fb, env, log, log_len)
    if log_len[env] > log.shape[1]:
        for field in range(st.shape[1]):
            st[env, field] = start[env, field]
        for i in range(ram.shape[1]):
            ram[env, i] = ram_copy[env, i]
        console_run_frame(rom, scheme, ram, st, fb, env)
        return 1
    replay_frame(start, scratch, fb, env, log, np.int32(log_len[env]), fresh, start_clk,
                 np.int64(st[env, L.CYCLES]))
    return 0 if tia_state_matches(scratch, st, env) else -1


# The two passes as GPU kernels, one console per thread, so that the offline compile can report
# their registers and spills (tools/render_split.py static). The backend does not launch them
# yet. The render pass skips a frame whose log overflowed (log_len > capacity); running that
# frame again inline, as run_split_frame does, needs the console's RAM from before it too,
# which logged_frames_cuda does not keep (only the state row, in `start`): not built.
FRAME_FRESH, FRAME_START_CYCLE, FRAME_END_CYCLE = 0, 1, 2


@cuda.jit
def logged_frames_cuda(rom, scheme, ram, tiles, fb, log, log_len, start, frame_info, mask):
    env = cuda.grid(1)
    if env < ram.shape[0] and mask[env]:
        st = console_row(tiles, env)
        for field in range(st.shape[1]):
            start[env, field] = st[env, field]
        fresh, start_clk = logged_frame(rom, scheme, ram, st, fb, env, log, log_len)
        frame_info[env, FRAME_FRESH] = 1 if fresh else 0
        frame_info[env, FRAME_START_CYCLE] = start_clk
        frame_info[env, FRAME_END_CYCLE] = st[env, L.CYCLES]


@cuda.jit
def render_pass_cuda(start, scratch, fb, log, log_len, frame_info, mask):
    env = cuda.grid(1)
    if env < start.shape[0] and mask[env] and log_len[env] <= log.shape[1]:
        replay_frame(start, scratch, fb, env, log, np.int32(log_len[env]),
                     frame_info[env, FRAME_FRESH] != 0,
                     np.int64(frame_info[env, FRAME_START_CYCLE]),
                     np.int64(frame_info[env, FRAME_END_CYCLE]))
