"""ALE's emulate() for one console, as device code: an action row of the host's input table on
the console's input pins (joystick, paddles, console switches), the console's frames, and the
game's RomSettings::step after each; the batch's constants (`params`) and the input table's
shape that everything above the console reads.

Inputs: `inputs[switches, row, field]` (int32) is, per ALE action row (0-17 the joystick
actions, ROW_RESET the console's Reset switch) and per switch state (SWITCHES_PLAIN, or
SWITCHES_SELECT with Select held), the values of the input fields IN_SWCHA..IN_POT3 (8 columns)
and, in column INPUT_PADDLE_MOVE, how far the action turns player A's paddle each frame.
The host builds it from the game's controllers and the difficulty switches.

On the CPU, frame_loop/cpu_console.py replaces `run_console_frames` by a call of the process's
one compiled console (environment.py imports it, so that any kernel that plays frames has it).
"""

import numpy as np
from numba.extending import register_jitable

from .. import layout as L
from ..frame_loop.console import run_frame
from ..frame_loop.outlining import out_of_line, renamed
from . import game_logic as logic_

# params[]: per-batch constants.
P_GAME_ID = 0          # game_logic id, or -1: no reward/terminal logic (unknown ROMs)
P_PADDLES = 1          # 1: player A turns paddle 0
P_PADDLES_SWAPPED = 2  # Stella's SwapPaddles: paddle 0 is read through pot 1
P_PADDLE_MIN = 3
P_PADDLE_MAX = 4
P_MAX_FRAMES = 5       # max_num_frames_per_episode (0: no limit)
P_MODE = 6             # the game mode the logic's set_mode applies
P_SOUND = 7            # 1: each act frame runs the sound generator (ALE's sound_obs)
PARAMS = 8

ROW_NOOP = 0
ROW_RIGHT = 3
ROW_LEFT = 4
ROW_DOWN = 5
ROW_RESET = 18
INPUT_ROWS = 19
INPUT_FIELDS = L.IN_POT3 - L.IN_SWCHA + 1
INPUT_PADDLE_MOVE = INPUT_FIELDS
INPUT_COLUMNS = INPUT_FIELDS + 1
SWITCHES_PLAIN = 0
SWITCHES_SELECT = 1

@register_jitable
def apply_inputs(st, env, inputs, switches, row, params):
    """ALE's resetKeys + applyAction: the console's input pins for this action."""
    for field in range(INPUT_FIELDS):
        st[env, L.IN_SWCHA + field] = inputs[switches, row, field]
    if params[P_PADDLES] != 0:
        if params[P_PADDLES_SWAPPED] != 0:
            st[env, L.IN_POT0] = st[env, L.ENV_PADDLE1]
            st[env, L.IN_POT1] = st[env, L.ENV_PADDLE0]
        else:
            st[env, L.IN_POT0] = st[env, L.ENV_PADDLE0]
            st[env, L.IN_POT1] = st[env, L.ENV_PADDLE1]


@register_jitable
def step_logic(ram, logic, params, env):
    if params[P_GAME_ID] < 0:
        return np.int32(0)
    return logic_.logic_step(params[P_GAME_ID], ram, env, logic)


@register_jitable
def turn_paddle(st, env, params, inputs, row):
    """Each frame before it runs, the action turns player A's paddle: by the adopted strength
    (ENV_PADDLE_DELTA, ALE's int(23000 * |strength|)) in the row's direction, clamped."""
    direction = inputs[SWITCHES_PLAIN, row, INPUT_PADDLE_MOVE]
    if direction == 0:
        return
    step = np.int32(st[env, L.ENV_PADDLE_DELTA])
    resistance = np.int32(st[env, L.ENV_PADDLE0]) + (step if direction > 0 else -step)
    st[env, L.ENV_PADDLE0] = max(params[P_PADDLE_MIN], min(params[P_PADDLE_MAX], resistance))


# Compile-size rule: the console (`run_frame`, which forces the CPU core and the bus inline
# into itself) is inlined at exactly one site, so that it exists once in the machine code however
# many operations use it. On the GPU that site is `run_console_frames`, kept out of line in each
# kernel and always called with the same argument types. On the CPU `run_console_frames` calls
# the one copy of the console that every kernel of the process shares (kernels/frame_loop/cpu_console.py),
# compiled from `console_frames`: the same body, inlined there. Inlining it everywhere (the
# entry's forceinline=True) made ~15 copies of the console and minutes of compile.

def _console_frames(rom, scheme, ram, st, fb, logic, params, inputs, env, row, frames, plain):
    """`frames` frames. plain == 0: ALE's emulate(row): the action on the input pins (the
    paddle turned each frame), RomSettings::step after each frame; returns the last frame's
    reward. plain == 1: the inputs as they are, no step (PAL detection, a Select press)."""
    out_of_line()
    reward = np.int32(0)
    paddles = params[P_PADDLES] != 0 and plain == 0
    if not paddles and plain == 0:
        apply_inputs(st, env, inputs, SWITCHES_PLAIN, row, params)
    for _ in range(frames):
        if paddles:
            turn_paddle(st, env, params, inputs, row)
            apply_inputs(st, env, inputs, SWITCHES_PLAIN, row, params)
        run_frame(rom, scheme, ram, st, fb, env)
        if plain == 0:
            reward = step_logic(ram, logic, params, env)
    return reward


console_frames = register_jitable(forceinline=True)(renamed(_console_frames, "console_frames"))
run_console_frames = register_jitable(forceinline=False)(
    renamed(_console_frames, "run_console_frames"))


@register_jitable
def console_frames_of(console, env, row, frames, plain):
    """run_console_frames on `console` (the one call site: its arguments are the console's)."""
    return run_console_frames(console.rom, console.scheme, console.ram, console.st, console.fb,
                              console.logic, console.params, console.inputs, env, np.int32(row),
                              np.int32(frames), np.int32(plain))


@register_jitable
def emulate(console, env, row, frames):
    """emulate(action, NOOP, frames): returns the reward of the last frame."""
    return console_frames_of(console, env, row, frames, 0)


@register_jitable
def frames_without_step(console, env, frames):
    """Frames with the inputs as they are and no RomSettings::step (PAL detection, Select)."""
    console_frames_of(console, env, 0, frames, 1)
