"""The Atari 2600 console's frame loop and System reset (the 6507 on its bus: bus.py).

One ALE frame (`run_frame`) is one `TIA::update()`: start a frame unless the last one was
partial, execute up to 25,000 instructions until the TIA signals the frame end, then either close
the frame or grey out the partial one. The instructions run in `run_instructions`: the
decoded core here, and on the CPU backend the fast path of console_fast_path.py, which falls back
to the decoded core for every access with a side effect.
"""

import numpy as np
from numba import cuda
from numba.extending import register_jitable

from ..._jit_cache import cpu_core
from .. import layout as L
from ..tia import tia
from ..riot import riot
from ..gpu import warp_schedule  # noqa: F401  (the GPU's run_instructions: the warp scheduler)
from .bus import grey_out_frame, run_instructions
from ..cartridges.cart import cart_frame_start, cart_read, cart_reset
from ..gpu.state_tiles import console_row

# The CPU backend's run_instructions (registered for numba's CPU target only), unless
# CULE_PY_CPU_CORE=decoded asks the CPU backend to run the decoded core, as the GPU does.
if cpu_core() == "fast":
    from . import console_fast_path  # noqa: F401

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
        grey_out_frame(st, fb, env)
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

