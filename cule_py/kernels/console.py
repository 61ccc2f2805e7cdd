"""The Atari 2600 console: the 6507 bound to the 2600 bus, the frame loop and the System reset.

The bus (`console_read` / `console_write`) decodes the 13-bit address space as ALE's System
does: A12 = 1 is the cartridge; A12 = 0 and A7 = 1 is the RIOT (RAM when A9 = 0, I/O when
A9 = 1); everything else is the TIA. `bus` is the tuple `(rom, scheme, ram, st, fb, env)`.

One ALE frame (`run_frame`) is one `TIA::update()`: start a frame unless the last one was
partial, execute up to 25,000 instructions until the TIA signals the frame end, then either close
the frame or grey out the partial one. The instructions run in `run_instructions`: the
decoded core here, and on the CPU backend the fast path of console_fast_path.py, which falls back
to the decoded core for every access with a side effect.
"""

import numpy as np
from numba import cuda, from_dtype, types
from numba.extending import overload, register_jitable

from . import layout as L
from . import render, riot, tia
from .cart import (cart_frame_start, cart_read, cart_reset, cart_tia_read, cart_tia_write,
                   cart_write)
from .cpu6507 import ALE, make_cpu
from .outlining import console_address, console_at, out_of_line
from .state_tiles import console_row

INSTRUCTIONS_PER_FRAME = 25000


# forceinline=True: called from the out-of-line functions below, they would otherwise inherit
# forceinline=False and become a second call with the arrays as 22 argument words.
@register_jitable(forceinline=True)
def devices_read(st, fb, env, addr, clk, data_bus):
    if addr & 0x80:
        return riot.io_read(st, env, addr, clk)
    return np.int32(tia.read(st, fb, env, addr, clk, data_bus))


@register_jitable(forceinline=True)
def devices_write(st, fb, env, addr, value, clk):
    if addr & 0x80:
        riot.io_write(st, env, addr, value, clk)
        return clk
    return tia.write(st, fb, env, addr, value, clk, True)


# The CPU's bus. ROM and RAM, the accesses of nearly every instruction, are decoded inline at each
# of the core's access sites; the TIA and the RIOT ports/timer sit behind one out-of-line call each
# way (`device_read` / `device_write`), so the big TIA code exists once in the machine code.
# (CPU target: the entry points force inlining, these two opt out; see the entry points.)

@register_jitable(forceinline=False)
def device_read(st, fb, env, addr, clk, data_bus):
    out_of_line()
    return devices_read(st, fb, env, addr, clk, data_bus)


@register_jitable(forceinline=False)
def device_write(st, fb, env, addr, value, clk):
    out_of_line()
    return devices_write(st, fb, env, addr, value, clk)


# On the CPU the out-of-line call takes the console's state row and frame buffers by address
# (outlining.console_address), 2 argument words where the arrays are 22, and the callee sees them
# as one-console arrays of constant shape. The batch arrays are C-contiguous there (np.zeros in
# ConsoleBatch; fb of L.FRAME_BUFFER_SHAPE); other layouts take the generic call.
# (Each function below rebuilds the two arrays itself: a shared helper would return arrays it
# made, which numba refuses without the NRT.)
_ONE_CONSOLE_STATE = (1, L.STATE_FIELDS)
_ONE_CONSOLE_FRAMES = (1,) + L.FRAME_BUFFER_SHAPE


@register_jitable(forceinline=False)
def device_read_by_address(st_address, fb_address, addr, clk, data_bus):
    st = console_at(st_address, np.int32, _ONE_CONSOLE_STATE)
    fb = console_at(fb_address, np.uint64, _ONE_CONSOLE_FRAMES)
    return devices_read(st, fb, 0, addr, clk, data_bus)


@register_jitable(forceinline=False)
def device_write_by_address(st_address, fb_address, addr, value, clk):
    st = console_at(st_address, np.int32, _ONE_CONSOLE_STATE)
    fb = console_at(fb_address, np.uint64, _ONE_CONSOLE_FRAMES)
    return devices_write(st, fb, 0, addr, value, clk)


def _rows_by_address(st, fb):
    return (isinstance(st, types.Array) and st.layout == "C" and st.ndim == 2
            and st.dtype == types.int32 and isinstance(fb, types.Array) and fb.layout == "C"
            and fb.ndim == 4 and fb.dtype == from_dtype(L.FRAME_BUFFER_DTYPE))


@overload(device_read, target="cpu", jit_options={"forceinline": True})
def _device_read_cpu(st, fb, env, addr, clk, data_bus):
    if not _rows_by_address(st, fb):
        return None

    def read(st, fb, env, addr, clk, data_bus):
        return device_read_by_address(console_address(st, env), console_address(fb, env),
                                      addr, clk, data_bus)
    return read


@overload(device_write, target="cpu", jit_options={"forceinline": True})
def _device_write_cpu(st, fb, env, addr, value, clk):
    if not _rows_by_address(st, fb):
        return None

    def write(st, fb, env, addr, value, clk):
        return device_write_by_address(console_address(st, env), console_address(fb, env),
                                       addr, value, clk)
    return write


@register_jitable
def console_read(bus, addr, clk, data_bus):
    rom, scheme, ram, st, fb, env = bus
    if addr & 0x1000:
        return cart_read(rom, scheme, ram, st, env, addr, clk)
    if (addr & 0x280) == 0x80:
        return np.int32(ram[env, addr & 0x7F])
    if (addr & 0x80) == 0:
        value = cart_tia_read(rom, scheme, st, env, addr)     # 3F: the cartridge answers
        if value >= 0:
            return value
    return device_read(st, fb, env, np.int32(addr), np.int64(clk), np.int32(data_bus))


@register_jitable
def console_write(bus, addr, value, clk):
    rom, scheme, ram, st, fb, env = bus
    if addr & 0x1000:
        cart_write(rom, scheme, ram, st, env, addr, value, clk)
    elif (addr & 0x280) == 0x80:
        ram[env, addr & 0x7F] = value
    else:
        if (addr & 0x80) == 0:
            cart_tia_write(rom, scheme, st, env, addr, value)
        clk = device_write(st, fb, env, np.int32(addr), np.int32(value), np.int64(clk))
    return clk


cpu_step = make_cpu(console_read, console_write, ALE)


@register_jitable
def run_instructions(rom, scheme, ram, st, fb, env, pc, a, x, y, s, p, clk):
    """Run the 6507 until the TIA ends the frame, the CPU jams or 25,000 instructions have run;
    returns (pc, a, x, y, s, p, clk, jammed). This is the decoded core, as the GPU and numba's
    CUDA simulator run it; the CPU backend compiles console_fast_path's version instead, which
    gives the same results."""
    bus = (rom, scheme, ram, st, fb, env)
    jammed = False
    # ALE's budget counts the idle-loop iterations skipped too (idle_loop.skip_idle_polls).
    executed = np.int32(0)
    while executed < INSTRUCTIONS_PER_FRAME:
        pc, a, x, y, s, p, clk, jammed = cpu_step(bus, pc, a, x, y, s, p, clk)
        executed += 1
        attention = np.int32(st[env, L.CPU_ATTENTION])     # one load for both checks
        if jammed or (attention & L.ATTENTION_FRAME_ENDED) != 0:
            break
        if attention != 0:                                # the timer's bit
            a, x, y, p, clk, skipped = skip_idle_polls(
                rom, scheme, st, env, pc, a, x, y, p, clk, INSTRUCTIONS_PER_FRAME - executed)
            executed += skipped
    return pc, a, x, y, s, p, clk, jammed


@register_jitable(forceinline=True)    # the core and bus inline into it, whoever calls it
def run_frame(rom, scheme, ram, st, fb, env):
    """One ALE frame for console `env`."""
    clk = np.int32(st[env, L.CYCLES])
    fresh = st[env, L.TIA_PARTIAL_FRAME] == 0
    if fresh:
        cart_frame_start(scheme, st, env, clk)
        tia.start_frame(st, env, clk)
        clk = np.int32(0)
    st[env, L.TIA_PARTIAL_FRAME] = 1
    st[env, L.CPU_ATTENTION] = 0          # (the timer's bit too: clear at every frame's end)
    if st[env, L.CPU_JAMMED] == 0:
        pc, a, x, y, s, p, clk, jammed = run_instructions(
            rom, scheme, ram, st, fb, env, np.int32(st[env, L.CPU_PC]), np.int32(st[env, L.CPU_A]),
            np.int32(st[env, L.CPU_X]), np.int32(st[env, L.CPU_Y]), np.int32(st[env, L.CPU_S]),
            np.int32(st[env, L.CPU_P]), np.int64(clk))
        if jammed:
            st[env, L.CPU_JAMMED] = 1
        st[env, L.CPU_PC] = pc
        st[env, L.CPU_A] = a
        st[env, L.CPU_X] = x
        st[env, L.CPU_Y] = y
        st[env, L.CPU_S] = s
        st[env, L.CPU_P] = p
    st[env, L.CYCLES] = clk
    # The fast path leaves the RIOT's idle-loop hint set; a frame's end is where both cores agree.
    ended = (np.int32(st[env, L.CPU_ATTENTION]) & L.ATTENTION_FRAME_ENDED) != 0
    st[env, L.CPU_ATTENTION] = L.ATTENTION_FRAME_ENDED if ended else 0
    scanline = (3 * clk - np.int32(st[env, L.TIA_FRAME_START])) // tia.LINE
    st[env, L.TIA_CURRENT_SCANLINE] = scanline
    # Complete: this frame alone drew every pixel of the display window into its buffer, so the
    # buffer's older content no longer shows (what lets the agent step skip drawing frames).
    st[env, L.TIA_FRAME_COMPLETE] = 1 if (
        fresh and ended and st[env, L.TIA_CURSOR] >= st[env, L.TIA_DISPLAY_STOP]) else 0
    if ended:
        st[env, L.TIA_PARTIAL_FRAME] = 0
        st[env, L.TIA_SCANLINES_LAST_FRAME] = scanline
    elif st[env, L.TIA_FRAME_GREYED] == 0:
        render.grey_out_frame(st, fb, env)
        st[env, L.TIA_FRAME_GREYED] = 1


@register_jitable
def system_reset(rom, scheme, ram, st, fb, rng, env):
    """ALE's System::reset: RIOT (one system-RNG draw), TIA, cartridge, then the CPU. RAM stays."""
    st[env, L.CYCLES] = 0
    position = np.int32(st[env, L.SYSTEM_RNG_POSITION])
    riot.reset(st, env, 25 + np.int64(rng[position]) % 75)
    st[env, L.SYSTEM_RNG_POSITION] = position + 1
    tia.reset(st, fb, env, np.int32(st[env, L.TIA_PAL]))
    cart_reset(rom, scheme, ram, st, env, rng)
    st[env, L.CPU_A] = 0
    st[env, L.CPU_X] = 0
    st[env, L.CPU_Y] = 0
    st[env, L.CPU_S] = 0xFF
    st[env, L.CPU_P] = 0x20
    st[env, L.CPU_JAMMED] = 0
    lo = cart_read(rom, scheme, ram, st, env, 0xFFFC, 0)
    hi = cart_read(rom, scheme, ram, st, env, 0xFFFD, 0)
    st[env, L.CPU_PC] = lo | (hi << 8)


# The CPU entry points that run the console are environment.drive and agent_step.agent_*_cpu:
# nogil kernels that every thread of a launch runs, each claiming consoles (cpu_workers.py);
# `_nrt=False`, since nothing allocates and without the runtime numba emits no
# reference counting (two atomic operations per array per call otherwise); `forceinline=True`,
# inherited by every helper that does not set it, so the CPU core and the ROM/RAM bus inline into
# one loop and only `device_read`/`device_write` (and what they call) stay out of line.

# CUDA entry points: one console per thread, the same register_jitable code. The GPU backend
# allocates the per-console arrays field-major ((128, consoles) in memory for the RAM) and passes
# the transposed views, so that a warp's accesses to one RAM byte coalesce; the state rows come
# in tiles of 32 consoles, and each entry point takes its console's row with
# state_tiles.console_row (docs/architecture.md, "The state row").
@cuda.jit
def run_frames_cuda(rom, scheme, ram, tiles, fb, frames, mask):
    env = cuda.grid(1)
    if env < ram.shape[0] and mask[env]:
        st = console_row(tiles, env)
        for _ in range(frames):
            run_frame(rom, scheme, ram, st, fb, env)


from .idle_loop import skip_idle_polls  # noqa: E402

# The CPU backend's version of run_instructions (registered for numba's CPU target only), unless
# CULE_PY_CPU_CORE=decoded asks the CPU backend to run the decoded core, as the GPU does.
from .._jit_cache import cpu_core  # noqa: E402

if cpu_core() == "fast":
    from . import console_fast_path  # noqa: E402,F401

# The GPU's version of run_instructions (registered for the CUDA target only): the warp scheduler.
from . import warp_schedule  # noqa: E402,F401
