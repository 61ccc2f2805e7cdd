"""ALE's environment layer for one console, as device code: how frames are driven.

This is StellaEnvironment's frame-level behaviour (ALE's
src/ale/environment/stella_environment.cpp): applying an action to the console's input pins
(joystick, paddles, console switches), `emulate` (frames followed by the game's RomSettings::step),
`pressSelect`, and `act` (the sticky-action draws from the environment RNG, no emulation once the
game is over or truncated, the frame counters). The host (cule_py/batch.py) strings these into
ALE's loadROM and reset_game sequences; the GPU backend compiles the same functions.

Everything goes through one entry point, `drive`, with an operation code, so that the console
(CPU core, TIA, cartridge) is compiled once per process, not once per sequence step.

Inputs: `inputs[switches, row, field]` (int32) is, per ALE action row (0-17 the joystick
actions, ROW_RESET the console's Reset switch) and per switch state (SWITCHES_PLAIN, or
SWITCHES_SELECT with Select held), the values of the input fields IN_SWCHA..IN_POT3 (8 columns)
and, in column INPUT_PADDLE_MOVE, how far the action turns player A's paddle each frame.
The host builds it from the game's controllers and the difficulty switches.
"""

from types import FunctionType

import numpy as np
from numba import cuda, njit
from numba.extending import register_jitable

from ..._jit_cache import CACHE_ENABLED
from ...games import PADDLE_DELTA
from . import game_logic as logic_
from .. import layout as L
from ..frame_loop.console import run_frame, system_reset
from ..cpu_workers import claim
from .mt19937 import mt_next
from ..structs import console_at
from ..tia.tia_sound import sound_frame
from ..frame_loop.outlining import out_of_line

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

# drive() operations.
OP_SYSTEM_RESET = 0    # System::reset (the RIOT timer's system-RNG draw included)
OP_FRAMES = 2          # frames with the inputs as they are, no step (PAL detection)
OP_ACT = 4             # act(rows[env]) `frames` times; rewards summed into rewards[env]
OP_RESET_GAME = 7      # the whole of ALE's reset_game (see reset_game)

# A game's mode selection as the kernel reads it (cule_py/modes.py builds the row): int32.
S_ACTIVE = 0            # 1: the game selects its mode by Select presses
S_RAM = 1               # RIOT RAM index the press loop reads
S_FRAMES = 2            # frames per press; -1: 2 + (environment RNG draw) % 256 (adventure)
S_WANTED = 3            # the shown number that stands for the wanted mode
S_ALSO_RAM = 4          # a further RAM index that must hold S_ALSO_VALUE (-1: none)
S_ALSO_VALUE = 5
S_NOOPS_FIRST = 6
S_RESET_FIRST = 7
S_PRESS_FIRST = 8
S_NOOP_AFTER_PRESS = 9
S_CUBE_RAM = 10         # video_cube: RAM index of the BCD cube number (-1: none)
S_CUBE = 11             # the cube wanted
S_MAX_PRESSES = 12
S_MENU_CURSOR = 13      # double_dunk's option menu: RAM index of the cursor (moved by DOWN)
S_MENU_OPTIONS = 14     # RAM index of the option bits (set by RIGHT, cleared by LEFT)
S_MENU_ITEMS = 15       # how many menu items follow
S_MENU = 16             # per item: DOWN moves first, the option bit, 1: set / 0: clear
MENU_COLUMNS = 3
MAX_MENU_ITEMS = 4
S_ACTS_AFTER = S_MENU + MENU_COLUMNS * MAX_MENU_ITEMS   # act frames after the soft reset
S_ACT_AFTER = S_ACTS_AFTER + 1                           # their action rows
MAX_ACTS_AFTER = 2
SELECT_FIELDS = S_ACT_AFTER + MAX_ACTS_AFTER


RESET_NOOP_FRAMES = 60
SOFT_RESET_FRAMES = 4


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


# Compile-size rule: the console (`run_frame`, which forces the CPU core and the bus inline into
# itself) is inlined at exactly one site, so that it exists once in the machine code however many
# operations use it. On the GPU that site is `run_console_frames`, kept out of line in each kernel
# and always called with the same argument types. On the CPU `run_console_frames` calls the one copy
# of the console that every kernel of the process shares (kernels/frame_loop/cpu_console.py),
# compiled from `console_frames`: the same body, inlined there. Inlining it everywhere (the entry's
# forceinline=True) made ~15 copies of the console and minutes of compile.

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


def renamed(function, name):
    """`function` under another name: one body registered twice with different jit options
    (numba keys its overloads and its cache on the function, not the options). Here the
    console's frames: the GPU's copy is then the very function it compiled before the CPU's
    console moved into a shared cfunc (same IR, same registers); agent_step: its capped steps."""
    code = function.__code__.replace(co_name=name, co_qualname=name)
    copy = FunctionType(code, function.__globals__, name, function.__defaults__,
                        function.__closure__)
    copy.__qualname__ = name
    copy.__doc__ = function.__doc__
    return copy


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


@register_jitable
def game_over(console, env, with_truncation):
    params, st = console.params, console.st
    if params[P_GAME_ID] >= 0 and logic_.is_terminal(env, console.logic):
        return True
    return with_truncation and params[P_MAX_FRAMES] > 0 and \
        st[env, L.ENV_EPISODE_FRAME] >= params[P_MAX_FRAMES]


@register_jitable
def sticky_adopts(console, env):
    """ALE's two sticky-action draws of one act() (players A and B): an RNG output x with
    x / 2**32 >= p, i.e. x >= ceil(p * 2**32), adopts the new action. True: player A adopts."""
    adopt = mt_next(console.mt, env) >= console.threshold
    mt_next(console.mt, env)   # player B: ALE draws, and B only ever plays NOOP here
    return adopt


@register_jitable
def lives_of(console, env):
    """RomSettings::lives() (0 for an unknown ROM, which has no logic)."""
    gid = console.params[P_GAME_ID]
    if gid < 0:
        return np.int32(0)
    return np.int32(logic_.lives(gid, env, console.logic))


@register_jitable
def act(console, env, row):
    """One frame of ALE's act(): the sticky-action draws, then nothing if the game is over,
    else one emulated frame and the counters; the frame's sound where it is asked for (even
    after the game's end, as ALE's). Returns the frame's reward."""
    reward = act_adopting(console, env, row, sticky_adopts(console, env))
    if console.params[P_SOUND] != 0:
        sound_frame(console.st, env)
    return reward


@register_jitable
def act_adopting(console, env, row, adopt):
    """act() with the sticky draw's outcome given (a replayed frame reuses its first draw)."""
    st = console.st
    if adopt:
        # ALE adopts the action and its paddle strength together.
        st[env, L.ENV_STICKY_ACTION] = row
        st[env, L.ENV_PADDLE_DELTA] = st[env, L.ENV_PADDLE_REQUEST]
    if game_over(console, env, True):
        return np.int32(0)
    reward = emulate(console, env, np.int32(st[env, L.ENV_STICKY_ACTION]), 1)
    st[env, L.ENV_FRAME_NUMBER] += 1
    st[env, L.ENV_EPISODE_FRAME] += 1
    return reward


@register_jitable
def press_select(console, env, frames):
    """pressSelect(frames): Select held `frames` frames (no step, paddles not turned), then one
    NOOP frame through emulate; the frame counters count the press once."""
    st = console.st
    apply_inputs(st, env, console.inputs, SWITCHES_SELECT, ROW_NOOP, console.params)
    frames_without_step(console, env, frames)
    emulate(console, env, ROW_NOOP, 1)
    st[env, L.ENV_FRAME_NUMBER] += 1
    st[env, L.ENV_EPISODE_FRAME] += 1


@register_jitable
def soft_reset(console, env):
    """softReset: the console's Reset switch held 4 frames; the sticky action becomes NOOP."""
    emulate(console, env, ROW_RESET, SOFT_RESET_FRAMES)
    console.st[env, L.ENV_STICKY_ACTION] = ROW_NOOP


@register_jitable
def _shows_mode(ram, env, select, shown):
    if shown[np.int32(ram[env, select[S_RAM]])] != select[S_WANTED]:
        return False
    also = select[S_ALSO_RAM]
    return also < 0 or np.int32(ram[env, also]) == select[S_ALSO_VALUE]


@register_jitable
def _act_pair(console, env, row):
    """`act(row)` then `act(NOOP)`: one move in double_dunk's option menu."""
    act(console, env, row)
    act(console, env, ROW_NOOP)


@register_jitable
def _set_menu(console, env, select):
    """double_dunk's option menu: per item, DOWN/NOOP pairs until the cursor byte changes (as
    often as the item says), then RIGHT/NOOP (set) or LEFT/NOOP (clear) pairs until the option
    bit is as wanted. Returns False when a loop never ends."""
    ram = console.ram
    cursor, options = select[S_MENU_CURSOR], select[S_MENU_OPTIONS]
    for k in range(select[S_MENU_ITEMS]):
        base = S_MENU + MENU_COLUMNS * k
        for _ in range(select[base]):
            before = ram[env, cursor]
            moves = 0
            while ram[env, cursor] == before:
                if moves == select[S_MAX_PRESSES]:
                    return False
                _act_pair(console, env, ROW_DOWN)
                moves += 1
        bit, on = select[base + 1], select[base + 2] != 0
        moves = 0
        while ((np.int32(ram[env, options]) & bit) != 0) != on:
            if moves == select[S_MAX_PRESSES]:
                return False
            _act_pair(console, env, ROW_RIGHT if on else ROW_LEFT)
            moves += 1
    return True


@register_jitable
def select_mode(console, env, select, shown):
    """The game's setMode (cule_py/modes.py): its preamble, double_dunk's option menu, Select
    presses until the RAM shows the mode, a soft reset, act frames after it, video_cube's cube
    choice. Sets ENV_SELECT_FAILED when the RAM never shows the mode. Returns whether it drew
    from the environment RNG (an act's sticky draw, Adventure's press length): if not, the
    selection was a function of the console alone (reset_snapshot keeps it in its table)."""
    if select[S_ACTIVE] == 0:
        return False
    ram, st = console.ram, console.st
    drew = select[S_NOOPS_FIRST] > 0
    for _ in range(select[S_NOOPS_FIRST]):
        act(console, env, ROW_NOOP)
    if select[S_RESET_FIRST] != 0:
        soft_reset(console, env)
    if select[S_PRESS_FIRST] > 0:
        press_select(console, env, select[S_PRESS_FIRST])
    drew = drew or select[S_MENU_ITEMS] > 0
    if not _set_menu(console, env, select):
        st[env, L.ENV_SELECT_FAILED] = 1
        return True
    presses = 0
    while select[S_RAM] >= 0 and not _shows_mode(ram, env, select, shown):
        if presses == select[S_MAX_PRESSES]:
            st[env, L.ENV_SELECT_FAILED] = 1
            return True
        frames = select[S_FRAMES]
        if frames < 0:
            # Adventure: each press lasts 2 + (a draw from the environment RNG) % 256 frames.
            frames = np.int32(2 + mt_next(console.mt, env) % 256)
            drew = True
        press_select(console, env, frames)
        if select[S_NOOP_AFTER_PRESS] != 0:
            act(console, env, ROW_NOOP)
            drew = True
        presses += 1
    soft_reset(console, env)
    drew = drew or select[S_ACTS_AFTER] > 0
    for i in range(select[S_ACTS_AFTER]):
        act(console, env, select[S_ACT_AFTER + i])
    cube_ram = select[S_CUBE_RAM]
    if cube_ram >= 0:
        presses = 0
        while True:
            byte = np.int32(ram[env, cube_ram])
            if (byte >> 4) * 10 + (byte & 0x0F) == select[S_CUBE]:
                break
            if presses == select[S_MAX_PRESSES]:
                st[env, L.ENV_SELECT_FAILED] = 1
                return True
            act(console, env, ROW_RIGHT)
            drew = True
            presses += 1
    return drew


@register_jitable
def reset_game(console, tables, env):
    """StellaEnvironment::reset: the episode counter cleared, the paddles centred,
    System reset, 60 NOOP frames, soft reset, RomSettings reset, the game's mode selection,
    setMode's logic changes, soft reset, the starting actions (through emulate, so not
    noop-filtered and not sticky). `tables`: structs.ResetTables."""
    reset_game_start(console, tables.rng, env)
    emulate(console, env, ROW_NOOP, RESET_NOOP_FRAMES)
    soft_reset(console, env)
    reset_game_finish(console, tables, env)


# reset_game in three parts: its start, its 64 input-free frames (60 NOOP frames and the soft
# reset's 4), its finish. kernels/ale/reset_snapshot.py runs the frames from a table instead when it
# can.
@register_jitable
def reset_game_start(console, rng, env):
    """The episode counter cleared, the paddles centred, System reset."""
    st, params = console.st, console.params
    st[env, L.ENV_EPISODE_FRAME] = 0
    if params[P_PADDLES] != 0:
        centre = (params[P_PADDLE_MIN] + params[P_PADDLE_MAX]) // 2
        st[env, L.ENV_PADDLE0] = centre
        st[env, L.ENV_PADDLE1] = centre
    # The reset's own frames, and the acts after it until the host asks otherwise, turn a
    # paddle at full strength (ALE's default paddle_strength 1.0).
    st[env, L.ENV_PADDLE_DELTA] = PADDLE_DELTA
    st[env, L.ENV_PADDLE_REQUEST] = PADDLE_DELTA
    system_reset(console.rom, console.scheme, console.ram, st, console.fb, rng, env)


@register_jitable
def reset_game_finish(console, tables, env):
    """RomSettings reset, the mode selection, setMode's logic changes, soft reset, the starting
    actions. Returns whether the mode selection drew from the environment RNG (select_mode)."""
    params, ram, logic = console.params, console.ram, console.logic
    if params[P_GAME_ID] >= 0:
        logic_.logic_reset(params[P_GAME_ID], ram, env, logic)
    drew = select_mode(console, env, tables.select, tables.shown)
    if params[P_GAME_ID] >= 0:
        logic_.logic_set_mode(params[P_GAME_ID], params[P_MODE], ram, env, logic)
    soft_reset(console, env)
    starting = tables.starting
    for i in range(starting.shape[0]):
        emulate(console, env, starting[i], 1)
    return drew


@register_jitable
def drive_one(op, console, tables, rows, frames, rewards, env):
    if op == OP_RESET_GAME:
        reset_game(console, tables, env)
    elif op == OP_SYSTEM_RESET:
        system_reset(console.rom, console.scheme, console.ram, console.st, console.fb,
                     tables.rng, env)
    elif op == OP_FRAMES:
        frames_without_step(console, env, frames)
    elif op == OP_ACT:
        total = np.int32(0)
        for _ in range(frames):
            total += act(console, env, rows[env])
        rewards[env] = total


@njit(nogil=True, cache=CACHE_ENABLED, _nrt=False, forceinline=True, error_model="numpy")
def drive(op, console, tables, rows, frames, rewards, mask, counter):
    """Run operation `op` (see OP_*) on every console where `mask` is true that this thread
    claims from `counter` (cpu_workers: every thread of the launch runs this). `console`:
    structs.Console; `tables`: structs.ResetTables; `rows`: each console's action row (OP_ACT);
    `rewards`: its summed reward."""
    consoles = np.uint64(console.st.shape[0])
    while True:
        env = claim(counter, consoles)
        if env >= consoles:
            break
        if mask[env]:
            drive_one(op, console, tables, rows, frames, rewards, env)


@register_jitable
def flags_one(console, lives, terminal, truncated, env):
    params = console.params
    lives[env] = lives_of(console, env)
    terminal[env] = game_over(console, env, False)
    truncated[env] = params[P_MAX_FRAMES] > 0 and \
        console.st[env, L.ENV_EPISODE_FRAME] >= params[P_MAX_FRAMES]


@njit(cache=CACHE_ENABLED, _nrt=False, error_model="numpy")
def lives_and_flags(console, lives, terminal, truncated):
    """RomSettings::lives(), isTerminal() and the truncation flag of every console."""
    for env in range(console.st.shape[0]):
        flags_one(console, lives, terminal, truncated, env)


@njit(cache=CACHE_ENABLED)
def action_rows(ids, act_rows, rows):
    """rows[i] = act_rows[ids[i]] for ALE action ids (0 .. act_rows.size - 1); returns -1, or,
    with rows left as they were, the index of the first id outside that range."""
    for i in range(ids.size):
        if ids[i] < 0 or ids[i] >= act_rows.size:
            return i
    for i in range(ids.size):
        rows[i] = act_rows[ids[i]]
    return -1


@njit(cache=CACHE_ENABLED, _nrt=False, error_model="numpy")
def games_over(console, with_truncation, over):
    """ALE's game_over(with_truncation) of every console into `over` (bools): what a loop over
    the consoles asks before each act, without the lives and two more arrays of flags."""
    for env in range(console.st.shape[0]):
        over[env] = game_over(console, env, with_truncation)


@cuda.jit(cache=CACHE_ENABLED)
def lives_and_flags_cuda(console, lives, terminal, truncated):
    env = cuda.grid(1)
    if env < console.logic.shape[0]:
        flags_one(console_at(console, env), lives, terminal, truncated, env)


@cuda.jit(cache=CACHE_ENABLED)
def drive_cuda(op, console, tables, rows, frames, rewards, mask):
    """`drive` for the GPU: one console per thread (the state rows in tiles of 32 consoles,
    the other per-console arrays field-major views)."""
    env = cuda.grid(1)
    if env < console.ram.shape[0] and mask[env]:
        drive_one(op, console_at(console, env), tables, rows, frames, rewards, env)
