"""The 6507 bound to the Atari 2600's bus, and the decoded core's loop over one frame.

The bus (`console_read` / `console_write`) decodes the 13-bit address space as ALE's System
does: A12 = 1 is the cartridge; A12 = 0 and A7 = 1 is the RIOT (RAM when A9 = 0, I/O when
A9 = 1); everything else is the TIA. `bus` is the tuple `(rom, scheme, ram, st, fb, env)`.

`run_instructions` runs the decoded core until the TIA ends the frame. The CPU backend compiles
console_fast_path's version instead and the GPU the warp scheduler's (each an overload of it for
its target, registered by console.py, which imports both), with the same results.
"""

import numpy as np
from numba import from_dtype, types
from numba.extending import overload, register_jitable

from .. import layout as L
from ..riot import riot
from ..tia import render, tia
from ..cartridges.cart import cart_read, cart_tia_read, cart_tia_write, cart_write
from ..cpu.cpu6507 import ALE, make_cpu
from ..cpu.idle_loop import skip_idle_polls
from .outlining import console_address, console_at, out_of_line

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
    return devices_write_known(st, fb, env, addr, value, clk, False)


@register_jitable(forceinline=True)
def devices_write_known(st, fb, env, addr, value, clk, draws):
    """`devices_write`; `draws`: a TIA write known to draw (tia.write_known)."""
    if addr & 0x80:
        riot.io_write(st, env, addr, value, clk)
        return clk
    return tia.write_known(st, fb, env, addr, value, clk, True, draws)


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
def device_write_by_address(st_address, fb_address, addr, value, clk, draws):
    """`device_write` on the CPU; `draws` (0/1): a TIA write that tia.write_drawing_nothing has
    already found to draw (console_fast_path.store), whose checks tia.write_known skips."""
    st = console_at(st_address, np.int32, _ONE_CONSOLE_STATE)
    fb = console_at(fb_address, np.uint64, _ONE_CONSOLE_FRAMES)
    return devices_write_known(st, fb, 0, addr, value, clk, draws != 0)


def device_write_drawing(st, fb, env, addr, value, clk):
    """`device_write` of a TIA write that tia.write_drawing_nothing has found to draw; on the
    CPU the checks that found it are not made again (device_write_by_address's `draws`)."""
    return device_write(st, fb, env, addr, value, clk)


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
                                       addr, value, clk, np.int32(0))
    return write


@overload(device_write_drawing, target="cpu", jit_options={"forceinline": True})
def _device_write_drawing_cpu(st, fb, env, addr, value, clk):
    if not _rows_by_address(st, fb):
        return lambda st, fb, env, addr, value, clk: device_write(st, fb, env, addr, value, clk)

    def write(st, fb, env, addr, value, clk):
        return device_write_by_address(console_address(st, env), console_address(fb, env),
                                       addr, value, clk, np.int32(1))
    return write


@register_jitable(forceinline=True)
def grey_out_frame(st, fb, env):
    """render.grey_out_frame: inline, and on the CPU out of line by address. A partial frame is
    rare, and the renderer it inlines took registers from the frame loop's hot code there."""
    render.grey_out_frame(st, fb, env)


@register_jitable(forceinline=False)
def grey_out_frame_by_address(st_address, fb_address):
    st = console_at(st_address, np.int32, _ONE_CONSOLE_STATE)
    fb = console_at(fb_address, np.uint64, _ONE_CONSOLE_FRAMES)
    render.grey_out_frame(st, fb, 0)


@overload(grey_out_frame, target="cpu", jit_options={"forceinline": True})
def _grey_out_frame_cpu(st, fb, env):
    if not _rows_by_address(st, fb):
        return None

    def grey_out(st, fb, env):
        grey_out_frame_by_address(console_address(st, env), console_address(fb, env))
    return grey_out


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
    returns (pc, a, x, y, s, p, clk, jammed). This is the decoded core, as numba's CUDA
    simulator runs it; the CPU backend compiles console_fast_path's version instead, the GPU
    warp_schedule's, which give the same results."""
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
