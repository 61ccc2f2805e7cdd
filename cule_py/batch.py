"""A batch of 2600 consoles driven the way ALE drives one: power-on, PAL detection, reset_game
(with the game's mode selection and starting actions), and one frame per action, for joystick
and paddle games. The engine under `cule_py.AtariEmulator`.

Status: the cartridge schemes in `kernels.cartridges.cart.SCHEME_IDS` (every scheme ALE's games
use, and F4, F4SC, FA, E7, 3F, UA); others are refused with an error rather than run inexactly.

Backends: device="cpu" keeps every array in host memory, console-major, and runs the numba CPU
entry (`environment.drive`) on all cores; device="cuda[:N]" keeps them in GPU memory (cupy),
field-major (docs/architecture.md, "The state row"), and launches `environment.drive_cuda` on
the caller's current cupy stream, one console per thread. The host code below is the same for
both (`self.xp` is numpy or cupy); it only synchronises with the GPU inside power-on and
reset_game (PAL votes, the system-RNG table's size, a failed mode selection), never in `act`.

Settings follow ALE's `loadROM; setMode(m); setDifficulty(d)`: the constructor (and
`power_on`) runs `loadROM`, whose own reset_game plays the game's default mode and difficulty;
the batch's mode then takes effect at the next `reset()` (as ALE's setMode does), its
difficulty at the next frame (ALE sets the difficulty switches whenever it applies an action).
"""

from __future__ import annotations

import numpy as np

from . import modes as game_modes
from . import palette
from . import settings
from . import roms
from . import games
from .games import PADDLE_DELTA, Action
from ._device import GpuArrays, StateTiles, parse_device
from .errors import InvalidModeError
from ._threads import CompiledCalls, automatic_threads
from .kernels.cartridges import cart
from .kernels.frame_loop import cpu_console
from .kernels.cpu_workers import claim_counter
from .kernels.structs import Console, ResetTables
from .kernels.ale import environment as env_kernel
from .kernels.ale import game_logic, mt19937
from .kernels.tia import tia_sound
from .kernels import layout as L
from .kernels.gpu.warp_schedule import SCANLINE

SYSTEM_RNG_SEED = 4753849
_SYSTEM_RNG_DRAWS = 1 << 16
_PAL_DETECT_FRAMES = 60
_RESET_NOOP_FRAMES = 60
_SOFT_RESET_FRAMES = 4

# SWCHB, the RIOT's port B (the console switches): D7/D6 = right/left difficulty A, D3 = colour,
# D1 = Select, D0 = Reset (0 while held); D5, D4, D2 read 1.
SWCHB_DEFAULT = 0x3F          # difficulties B/B, colour, no switch pressed
SWITCH_RESET = 0x01
SWITCH_SELECT = 0x02

POT_NONE = 0x7FFFFFFF         # nothing connected to the pin (joysticks): the pot never charges
POT_GROUNDED = 0              # resistance 0: charged at once

NOOP = int(Action.NOOP)
RESET = int(Action.RESET)

# ALE action id -> (up, down, left, right, fire, reset) of player A's controller: joystick
# directions, or for paddles left (resistance up) / right (resistance down) and the paddle's fire.
_INPUT = np.zeros((RESET + 1, 6), np.int32)
_INPUT[:18, :5] = [
    (0, 0, 0, 0, 0), (0, 0, 0, 0, 1), (1, 0, 0, 0, 0), (0, 0, 0, 1, 0), (0, 0, 1, 0, 0),
    (0, 1, 0, 0, 0), (1, 0, 0, 1, 0), (1, 0, 1, 0, 0), (0, 1, 0, 1, 0), (0, 1, 1, 0, 0),
    (1, 0, 0, 0, 1), (0, 0, 0, 1, 1), (0, 0, 1, 0, 1), (0, 1, 0, 0, 1), (1, 0, 0, 1, 1),
    (1, 0, 1, 0, 1), (0, 1, 0, 1, 1), (0, 1, 1, 0, 1)]
_INPUT[RESET, 5] = 1
_UP, _DOWN, _LEFT, _RIGHT, _FIRE, _RESET = range(6)

# The input fields of a state row, in this order (the environment kernel writes them as one run).
assert (L.IN_SWCHB, L.IN_FIRE_LEFT, L.IN_FIRE_RIGHT, L.IN_POT0, L.IN_POT1, L.IN_POT2,
        L.IN_POT3) == tuple(range(L.IN_SWCHA + 1, L.IN_SWCHA + 8))


def system_rng_stream(draws: int = _SYSTEM_RNG_DRAWS) -> np.ndarray:
    """The first `draws` outputs of ALE's system RNG (std::mt19937 seeded 4753849).

    numpy's legacy RandomState seeds MT19937 exactly as std::mt19937(seed) does."""
    generator = np.random.RandomState(SYSTEM_RNG_SEED)._bit_generator
    return generator.random_raw(draws).astype(np.uint32)


def gpu_schedule() -> int:
    """How the GPU's warps schedule their lanes (kernels/gpu/warp_schedule.py): scanline, the
    fastest schedule measured (benchmarks/RESULTS.md, 2026-11-27). The CPU backend ignores
    it."""
    return SCANLINE


def gpu_draw_at_wsync() -> int:
    """Whether the decoded core (the GPU's 6507) draws the picture up to each WSYNC, from
    `CULE_PY_GPU_DRAW_AT_WSYNC`: 1 (the default) or 0. The pictures are the same either way; drawing
    there keeps a warp's lanes drawing the same line (kernels/tia/tia.py `write`). On the CPU the
    fast path makes plain WSYNC stores inline without drawing; only the WSYNCs that reach
    `tia.write` (3F and UA cartridges, or an instruction handed to the decoded core) follow this."""
    return int(settings.GPU_DRAW_AT_WSYNC.value())


#: Where NextStep's autoreset launch may run on the GPU (`gpu_reset_blocks`).
RESET_BLOCKS = settings.GPU_RESET_BLOCKS.choices


def gpu_reset_blocks() -> str:
    """Where the GPU runs the autoreset launch that NextStep puts beside the agent step, from
    `CULE_PY_GPU_RESET_BLOCKS`: `own` (the default) sizes its blocks to need a whole SM's
    registers wherever the step's grid leaves an SM empty (16,384 consoles on an H100: 128
    blocks on 132 SMs), so that reset warps never share a scheduler with a step warp; `shared`
    gives it the step's block size, as it was at first, so the hardware may place it beside
    the step. Results are the same; only the GPU's speed differs. The CPU backend ignores it."""
    return settings.GPU_RESET_BLOCKS.value()


#: The register budgets the agent step's GPU kernel is compiled with (kernels/agent/agent_step.py).
STEP_REGISTERS = tuple(int(n) for n in settings.GPU_STEP_REGISTERS.choices)


def gpu_step_registers() -> int:
    """Registers a thread the GPU's agent step kernel may use, from
    `CULE_PY_GPU_STEP_REGISTERS`: 255 (the default, numba's), 128 (agent_step_cuda_capped:
    twice the resident warps, with spills) or 64 (agent_step_cuda_lean: four times, more
    spills; for batches of 100,000 consoles and more). Results are the same; only the GPU's
    speed differs. The CPU backend ignores it."""
    return int(settings.GPU_STEP_REGISTERS.value())


class ConsoleBatch:
    """`num_envs` consoles running one ROM, each as after ALE's `loadROM`.

    mode:       the game mode `reset()` selects (None: the game's default), as ALE's setMode.
    difficulty: the difficulty switches (bit 0: left A, bit 1: right A), as ALE's
                setDifficulty; None: ALE's default, 0 (even for backgammon, which lists only 3).
    env_seed:   ALE's `random_seed` setting, per console or one for all: the seed of ALE's
                environment RNG (std::mt19937), which ALE re-seeds at loadROM and draws from
                twice per `act` frame (sticky actions) and for Adventure's Select presses.
    repeat_action_probability: ALE's sticky-action probability.
    max_num_frames_per_episode: ALE's truncation budget in act frames (0: none).
    device:     "cpu", "cuda" or "cuda:N" (see the module doc).
    sound:      run the sound generator at the end of each act frame (ALE's sound_obs;
                kernels/tia/tia_sound.py); off, it costs one test a frame.
    """

    def __init__(self, game, num_envs: int, mode: int | None = None,
                 difficulty: int | None = None, env_seed=0,
                 repeat_action_probability: float = 0.0, max_num_frames_per_episode: int = 0,
                 device: str = "cpu", power_on: bool = True, sound: bool = False):
        where = parse_device(device)
        # On the GPU: cupy arrays, field-major, and the launch plumbing (None on the CPU).
        self.gpu = GpuArrays(where.index) if where.kind == "cuda" else None
        self.xp = self.gpu.cupy if self.gpu else np
        self.rom = game if isinstance(game, roms.Rom) else roms.load_rom(game)
        # A ROM loaded with allow_unknown=True has no ALE settings: defaults, no game logic.
        self.game = self.rom.game or games.settings_for_unknown(
            self.rom.md5, len(self.rom.data), self.rom.scheme)
        if self.rom.scheme not in cart.SCHEME_IDS:
            raise NotImplementedError(f"cartridge scheme {self.rom.scheme} is not implemented yet "
                                      f"(so far: {', '.join(cart.SCHEME_IDS)})")
        if isinstance(num_envs, bool) or not isinstance(num_envs, (int, np.integer)) \
                or num_envs < 1:
            raise ValueError(f"num_envs must be a positive int, got {num_envs!r}")
        game_modes.selection(self.game, self.game.default_mode)   # refuses unknown selections
        self.mode = self._checked_mode(mode)
        self.difficulty = self._checked_difficulty(difficulty)
        self.num_envs = int(num_envs)
        self.repeat_action_probability = _checked_probability(repeat_action_probability)
        if isinstance(max_num_frames_per_episode, bool) or not isinstance(
                max_num_frames_per_episode, (int, np.integer)) or max_num_frames_per_episode < 0:
            raise ValueError("max_num_frames_per_episode must be an int >= 0 (0: no limit), got "
                             f"{max_num_frames_per_episode!r}")
        self.scheme = cart.SCHEME_IDS[self.rom.scheme]
        n = self.num_envs
        self.env_rng_seed = np.zeros(n, np.int64)
        self.env_rng_seed[:] = env_seed
        if (self.env_rng_seed < 0).any() or (self.env_rng_seed > 0xFFFFFFFF).any():
            raise ValueError("env_seed must be in 0..2**32-1 (ALE seeds std::mt19937 with it)")
        zeros = self.zeros
        self.rom_bytes = self.to_device(np.frombuffer(self.rom.data, np.uint8).copy())
        self.rng = self.to_device(system_rng_stream())
        self.state = (zeros((n, L.STATE_FIELDS), np.int32) if self.gpu is None
                      else self.gpu.state_tiles(n, L.STATE_FIELDS))
        # The kernels' RAM row: the RIOT's 128 bytes, then the cartridge's RAM (Superchip, FA,
        # E7). `ram` is the RIOT part (what ALE's getRAM reads), `cart_ram` the rest; both views.
        self.memory = zeros((n, 128 + cart.ram_bytes(self.scheme)), np.uint8)
        self.ram = self.memory[:, :128]
        self.cart_ram = self.memory[:, 128:]
        # 8 pixels a uint64 word (kernels/tia/frame_buffer.py); screen() and screens_rgb() read them
        # as pixels.
        self.frame_buffers = zeros((n,) + L.FRAME_BUFFER_SHAPE, L.FRAME_BUFFER_DTYPE)
        self.logic = zeros((n, game_logic.LOGIC_FIELDS), np.int32)
        self.env_rng = zeros((n, mt19937.MT_COLUMNS), np.int64)
        self._rows = zeros(n, np.int32)
        self._rewards = zeros(n, np.int32)
        self._all = np.ones(n, np.bool_)
        # act(): ALE plays an action outside the game's legal set as NOOP.
        self._act_rows = np.full(18, NOOP, np.int32)
        legal = [int(a) for a in self.game.legal_actions if int(a) < 18]
        self._act_rows[legal] = legal
        self._act_rows_device = self.to_device(self._act_rows)
        self._params = np.zeros(env_kernel.PARAMS, np.int32)
        self._params[env_kernel.P_GAME_ID] = (game_logic.GAME_ID[self.game.rom_id]
                                             if self.game.rom_id in game_logic.IMPLEMENTED
                                             else -1)
        paddles = self.game.paddles
        if paddles is not None:
            self._params[env_kernel.P_PADDLES] = 1
            self._params[env_kernel.P_PADDLES_SWAPPED] = int(paddles.swapped)
            self._params[env_kernel.P_PADDLE_MIN] = paddles.resistance_min
            self._params[env_kernel.P_PADDLE_MAX] = paddles.resistance_max
        self._params[env_kernel.P_MAX_FRAMES] = int(max_num_frames_per_episode)
        self.sound = bool(sound)
        self._params[env_kernel.P_SOUND] = int(self.sound)
        self._input_tables: dict[int, np.ndarray] = {}
        # CPU: the kernels' view of the batch per (difficulty, sticky-action probability), and
        # the compiled kernels its arrays' types select (act() calls two kernels a frame).
        self._consoles: dict[tuple, Console] = {}
        self._calls = CompiledCalls()
        self._selection = game_modes.selection(self.game, self.game.default_mode)
        self._starting = np.array([env_kernel.ROW_RESET if a == Action.RESET else int(a)
                                   for a in self.game.starting_actions], np.int32)
        # Until power-on detects it: the TV format and screen height of the game's settings.
        self.pal = self.game.tv_format == "PAL"
        self.height = 250 if self.pal and self.game.height == 210 else self.game.height
        if power_on:
            self.start()

    def start(self, kernels_ahead=()) -> None:
        """Compile (or load) the kernels, then power the consoles on. On the CPU the kernels are
        compiled first, `kernels_ahead` (pairs of a CPU kernel and its arguments) with the
        environment kernel, while the console compiles in a second process
        (kernels/frame_loop/cpu_console.py). ConsoleBatch(power_on=False) leaves this to the
        caller."""
        if self.gpu is None:
            cpu_console.compile_ahead([
                (env_kernel.drive, (*self.drive_args(env_kernel.OP_SYSTEM_RESET, self._all,
                                                     self.difficulty), claim_counter())),
                *kernels_ahead])
        self.power_on()
        # Every console of a batch runs one ROM, so one display height (PAL detection settles it).
        self.height = int(self.state[0, L.TIA_HEIGHT])
        self.pal = bool(self.state[0, L.TIA_PAL])

    # -- arrays ----------------------------------------------------------------------------------
    def zeros(self, shape, dtype):
        """A zeroed per-console array: host memory, or GPU memory field-major (console index
        fastest in memory) seen through a view indexed [console, ...] as on the CPU."""
        if self.gpu is None:
            return np.zeros(shape, dtype)
        return self.gpu.field_major(shape, dtype)

    def kernel_tiles(self, shape, dtype):
        """A zeroed per-console array that only the kernels read: host memory on the CPU, GPU
        memory in tiles of 32 consoles on the GPU (GpuArrays.tiles)."""
        if self.gpu is None:
            return np.zeros(shape, dtype)
        return self.gpu.tiles(shape, dtype)

    def to_device(self, array: np.ndarray):
        """A host array as the kernels take it (itself on the CPU, a GPU copy on the GPU)."""
        return array if self.gpu is None else self.xp.asarray(array)

    def rows(self, mask: np.ndarray):
        """The indices of the consoles in `mask` (host bools), on the batch's device, to index
        arrays with more than one axis. A boolean index is broadcast to the whole indexed array
        and scanned by cupy, 4 or 8 bytes per element: 41.9 GB for the frame buffers of 65,536
        consoles, the size of the request that ran an H100 out of memory. An integer index
        costs its own length."""
        return self.to_device(np.flatnonzero(mask))

    def table(self, host: np.ndarray):
        """A small host table (params, inputs, masks) as the kernels take it: itself on the CPU,
        on the GPU a copy uploaded again only when its bytes change (GpuArrays.constant)."""
        return host if self.gpu is None else self.gpu.constant(host)

    # -- settings --------------------------------------------------------------------------------
    def _checked_mode(self, mode):
        if mode is None:
            return self.game.default_mode
        if isinstance(mode, bool) or not isinstance(mode, (int, np.integer)) \
                or int(mode) not in self.game.modes:
            raise InvalidModeError(f"{self.game.rom_id}: mode {mode!r} is not one of its modes "
                             f"{list(self.game.modes)}")
        return int(mode)

    def _checked_difficulty(self, difficulty):
        if difficulty is None:
            return self.game.default_difficulty
        if isinstance(difficulty, bool) or not isinstance(difficulty, (int, np.integer)) \
                or int(difficulty) not in self.game.difficulties:
            raise InvalidModeError(f"{self.game.rom_id}: difficulty {difficulty!r} is not one of its "
                             f"difficulties {list(self.game.difficulties)}")
        return int(difficulty)

    def set_mode(self, mode: int) -> None:
        """ALE's setMode: the mode the next `reset()` selects."""
        self.mode = self._checked_mode(mode)

    def set_difficulty(self, difficulty: int) -> None:
        """ALE's setDifficulty: the switches from the next frame on."""
        self.difficulty = self._checked_difficulty(difficulty)

    # -- ALE's sequences -------------------------------------------------------------------------
    def power_on(self, mask=None) -> None:
        """`loadROM`: RAM from the system RNG, PAL detection, two System resets, then reset_game
        in the game's default mode and difficulty. The environment RNG is seeded anew."""
        mask = self._mask(mask)
        where = self.to_device(mask)
        rows = self.rows(mask)
        st = self.state
        generators = np.zeros((int(mask.sum()), mt19937.MT_COLUMNS), np.int64)
        mt19937.seed_generators(generators, self.env_rng_seed[mask],
                                np.ones(len(generators), np.bool_))
        self.env_rng[rows] = self.to_device(generators)
        self.ram[rows] = self.rng[:128] & 0xFF
        self.logic[rows] = 0
        self.frame_buffers[rows] = 0
        # 128 RAM draws, then the RIOT constructor's timer draw (overwritten by the next reset).
        st[rows] = 0
        st[where, L.SYSTEM_RNG_POSITION] = 129
        # ALE's loadROM makes its sound object anew; no reset touches it (kernels/tia/tia_sound.py).
        for field, value in zip(tia_sound.SOUND_FIELDS, tia_sound.SOUND_AT_START):
            st[where, field] = value
        st[where, L.GPU_SCHEDULE] = gpu_schedule()
        st[where, L.GPU_DRAW_AT_WSYNC] = gpu_draw_at_wsync()
        self.cart_ram[rows] = 0      # ALE's cartridges take their RAM's draws at System resets
        cart.power_on(st, where, self.scheme)
        st[where, L.TIA_YSTART] = self.game.ystart
        st[where, L.TIA_HEIGHT] = self.game.height
        st[where, L.TIA_HMOVE_BLANKS_ALLOWED] = int(self.game.hmove_blanks)
        # Until ALE first applies its difficulty setting, the switches sit where Stella's
        # properties put them; the paddles' resistance events are still 0.
        left, right = self.game.power_on_difficulty
        difficulty = (1 if left == "A" else 0) | (2 if right == "A" else 0)
        rows = self._inputs(difficulty)[env_kernel.SWITCHES_PLAIN, NOOP, :env_kernel.INPUT_FIELDS]
        for field, value in zip(range(L.IN_SWCHA, L.IN_POT3 + 1), rows.tolist()):
            st[where, field] = value
        if self.game.paddles is not None:
            st[where, L.IN_POT0] = POT_GROUNDED
            st[where, L.IN_POT1] = POT_GROUNDED
        self._system_reset(mask)
        pal_votes = self.xp.zeros(self.num_envs, np.int32)
        for frame in range(_PAL_DETECT_FRAMES):
            self._drive(env_kernel.OP_FRAMES, mask, difficulty, frames=1)
            if frame >= 30:
                pal_votes += st[:, L.TIA_SCANLINES_LAST_FRAME] > 285
        pal = where & (pal_votes >= 15)
        st[pal, L.TIA_PAL] = 1
        if self.game.height == 210:
            st[pal, L.TIA_HEIGHT] = 250
        self._system_reset(mask)
        st[where, L.ENV_FRAME_NUMBER] = 0
        self._reset_game(mask, self.game.default_mode, self.game.default_difficulty)

    def reset(self, mask=None) -> None:
        """`reset_game` in the batch's mode and difficulty."""
        self._reset_game(self._mask(mask), self.mode, self.difficulty)

    def act(self, actions, frames: int = 1, paddle_deltas=None) -> np.ndarray:
        """`frames` x ALE's `act(action)` on every console (sticky actions, no emulation once
        the game is over); returns each console's summed reward (int32). An action outside the
        game's legal set plays as NOOP, as in ALE. paddle_deltas: per console, how far the
        action turns a paddle each frame (ALE's int(23000 * |paddle_strength|); None: 23000)."""
        self.set_paddle_deltas(paddle_deltas)
        if self.gpu is not None and self.gpu.is_device_array(actions):
            # No host sync: shape and dtype are checked here, the range on the GPU (reported
            # by the next call at the latest; see _device.DeferredRangeCheck).
            ids = self.gpu.checked_device_ints(actions, (self.num_envs,), 18, "act()")
            self._rows[:] = self._act_rows_device[ids]
        elif self.gpu is not None:
            self._rows[:] = self.to_device(self._act_rows[self.checked_actions(actions)])
        else:
            # one compiled pass checks the ids and looks their rows up (act() runs once a frame)
            ids = self._action_ids(actions)
            if env_kernel.action_rows(ids, self._act_rows, self._rows) >= 0:
                self._raise_out_of_range(np.asarray(actions))
        self._drive(env_kernel.OP_ACT, self._all, self.difficulty, frames=frames)
        return self._rewards.copy()

    def checked_actions(self, actions) -> np.ndarray:
        """`actions` as an int64 array after ALE-id validation; raises ValueError/TypeError."""
        array = self._action_ids(actions)
        if array.size and (array.min() < 0 or array.max() > 17):
            self._raise_out_of_range(np.asarray(actions))
        return array

    def _action_ids(self, actions) -> np.ndarray:
        """`actions` as int64 after the dtype and shape checks (the range is the caller's)."""
        array = np.asarray(actions)
        if array.dtype.kind not in "iu":
            raise TypeError(f"actions must be integer ALE action ids (any int dtype), got dtype "
                            f"{array.dtype}")
        if array.shape != (self.num_envs,):
            raise ValueError(f"actions must have shape ({self.num_envs},), one per console, got "
                             f"{array.shape}")
        return array.astype(np.int64, copy=False)

    @staticmethod
    def _raise_out_of_range(ids: np.ndarray):
        bad = sorted({int(a) for a in ids if not 0 <= a <= 17})
        raise ValueError(f"actions must be ALE action ids 0..17, got {bad}")

    def set_paddle_deltas(self, deltas, rows=None) -> None:
        """The paddle move (resistance units a frame) the next action of consoles `rows` (None:
        all) brings; the sticky-action draw adopts it with the action. None: full strength."""
        if deltas is None:
            deltas = PADDLE_DELTA
        elif self.gpu is not None and not self.gpu.is_device_array(deltas):
            deltas = self.to_device(np.asarray(deltas, np.int32))
        where = slice(None) if rows is None else rows
        self.state[where, L.ENV_PADDLE_REQUEST] = deltas

    # -- views -----------------------------------------------------------------------------------
    def screen(self):
        """(num_envs, height, 160) palette indices of each console's last frame (a fresh
        C-contiguous array, on the batch's device)."""
        rows = self.xp.arange(self.num_envs)
        return _pixels(self.frame_buffers[rows, self.state[:, L.TIA_BUFFER], :self.height])

    def screens_rgb(self, rows=None, out=None):
        """(len(rows), height, 160, 3) uint8 RGB (ALE's getScreenRGB) of the last frame of
        consoles `rows` (device indices; None: all), read from the frame buffers in one pass on
        the CPU, by a table lookup on the GPU; into `out` (same shape, uint8, on the batch's
        device) where given."""
        if self.gpu is None:
            rows = np.arange(self.num_envs) if rows is None else rows
            return palette.frame_buffers_to_rgb(self.frame_buffers.view(np.uint8), rows,
                                                self.state[rows, L.TIA_BUFFER], self.height,
                                                self.pal, out)
        rows = self.xp.arange(self.num_envs) if rows is None else rows
        table = self.gpu.constant(np.asarray(palette.PAL_RGB if self.pal else palette.NTSC_RGB,
                                             np.uint8))
        rgb = table[_pixels(self.frame_buffers[rows, self.state[rows, L.TIA_BUFFER], :self.height])]
        if out is None:
            return rgb
        if out.shape != rgb.shape or out.dtype != np.uint8:
            raise ValueError(f"out must be a uint8 array of shape {rgb.shape}")
        out[...] = rgb
        return out

    def flags(self):
        """(lives, terminal, truncated) per console."""
        xp = self.xp
        lives = xp.zeros(self.num_envs, np.int32)
        terminal = xp.zeros(self.num_envs, np.bool_)
        truncated = xp.zeros(self.num_envs, np.bool_)
        if self.gpu is None:
            self._calls(env_kernel.lives_and_flags, self.console(), lives, terminal, truncated)
        else:
            self.gpu.launch(env_kernel.lives_and_flags_cuda, self.num_envs, self.console(), lives,
                            terminal, truncated)
        return lives, terminal, truncated

    def games_over(self, with_truncation: bool = True):
        """(num_envs,) bools: ALE's game_over(with_truncation) per console."""
        if self.gpu is not None:
            _, terminal, truncated = self.flags()
            return terminal | truncated if with_truncation else terminal
        over = np.empty(self.num_envs, np.bool_)
        self._calls(env_kernel.games_over, self.console(), bool(with_truncation), over)
        return over

    # -- the pieces of reset_game ------------------------------------------------------------------
    def _reset_game(self, mask, mode, difficulty) -> None:
        """ALE's StellaEnvironment::reset, all of it in the kernel (environment.reset_game):
        System reset, 60 NOOP frames, soft reset, the game's mode selection, soft reset, the
        starting actions."""
        self._selection = game_modes.selection(self.game, mode)
        self._params[env_kernel.P_MODE] = mode
        self._ensure_system_rng(mask)
        self.state[self.to_device(mask), L.ENV_SELECT_FAILED] = 0
        self._drive(env_kernel.OP_RESET_GAME, mask, difficulty)
        failed = mask & self.host(self.state[:, L.ENV_SELECT_FAILED] != 0)
        if failed.any():
            raise RuntimeError(f"{self.game.rom_id}: consoles {np.nonzero(failed)[0].tolist()} "
                               f"never showed mode {mode} after {game_modes.MAX_SELECT_PRESSES} "
                               f"presses")

    def _inputs(self, difficulty) -> np.ndarray:
        """inputs[switches, row, field] for the environment kernel (kernels/ale/environment.py)."""
        table = self._input_tables.get(difficulty)
        if table is not None:
            return table
        E = env_kernel
        table = np.zeros((2, E.INPUT_ROWS, E.INPUT_COLUMNS), np.int32)
        ids = np.r_[np.arange(18), RESET]
        held = _INPUT[ids]
        pressed = held[:, _UP] | held[:, _DOWN] << 1 | held[:, _LEFT] << 2 | held[:, _RIGHT] << 3
        fire = held[:, _FIRE]
        for switches, select in ((E.SWITCHES_PLAIN, 0), (E.SWITCHES_SELECT, SWITCH_SELECT)):
            t = table[switches]
            switches_held = held[:, _RESET] * SWITCH_RESET | select
            t[:, 1] = (SWCHB_DEFAULT & ~switches_held) | (difficulty & 1) << 6 \
                | (difficulty & 2) << 6
            paddles = self.game.paddles
            if paddles is not None:
                # Paddles on a controller port: pins 1 and 2 read 1, the fire buttons are on pins
                # 4 / 3 (D7 / D6) and swap with SwapPaddles; pin 6 reads "not pressed". Pots 0
                # and 1 are the paddles' resistances (filled in per console); ALE never moves
                # paddles 2 and 3, so where the right port has paddles they read resistance 0.
                t[:, 0] = 0xFF & ~(fire << (6 if paddles.swapped else 7))
                t[:, 6:8] = POT_GROUNDED if "right" in paddles.ports else POT_NONE
                t[:, E.INPUT_PADDLE_MOVE] = (held[:, _LEFT] - held[:, _RIGHT]) * PADDLE_DELTA
            elif self.game.swap_ports:
                # [Q] SwapPorts: player A's joystick is the right port (low nibble, INPT5).
                t[:, 0] = 0xFF & ~pressed
                t[:, 3] = fire
                t[:, 4:8] = POT_NONE
            else:
                t[:, 0] = 0xFF & ~(pressed << 4)
                t[:, 2] = fire
                t[:, 4:8] = POT_NONE
        self._input_tables[difficulty] = table
        return table

    def host(self, array) -> np.ndarray:
        """A numpy copy of a batch array (synchronises with the GPU on device='cuda')."""
        if self.gpu is None:
            return array
        return array.get() if isinstance(array, StateTiles) else self.xp.asnumpy(array)

    def _mask(self, mask) -> np.ndarray:
        """The console mask as host bools (None: every console)."""
        if mask is None:
            return self._all
        if self.gpu is not None and self.gpu.is_device_array(mask):
            mask = self.gpu.cupy.asnumpy(self.gpu.cupy.asarray(mask))
        mask = np.asarray(mask)
        if mask.shape != (self.num_envs,) or mask.dtype != np.bool_:
            raise ValueError(f"mask must be {self.num_envs} bools, got shape {mask.shape} "
                             f"dtype {mask.dtype}")
        return np.ascontiguousarray(mask)       # one type for the kernels (see _calls)

    # -- kernels ---------------------------------------------------------------------------------
    def _ensure_system_rng(self, mask, extra: int = 0) -> None:
        """The shared system-RNG table reaches as far as the next System reset draws (and
        `extra` draws beyond)."""
        # One timer draw, then the cartridge RAM's draws.
        positions = self.host(self.state[:, L.SYSTEM_RNG_POSITION])[mask]
        needed = int(positions.max(initial=0)) + 1 + self.cart_ram.shape[1] + extra
        if needed > len(self.rng):
            self.rng = self.to_device(system_rng_stream(max(2 * len(self.rng), needed)))

    def _system_reset(self, mask) -> None:
        self._ensure_system_rng(mask)
        self._drive(env_kernel.OP_SYSTEM_RESET, mask, self.difficulty)

    def console(self, difficulty=None) -> Console:
        """The kernels' view of the batch (kernels/structs.Console), with the inputs of
        `difficulty` (default: the batch's)."""
        t = self.table
        difficulty = self.difficulty if difficulty is None else difficulty
        key = (difficulty, self.repeat_action_probability)
        console = self._consoles.get(key)
        if console is None:
            console = Console(self.rom_bytes, self.scheme, self.memory, self.state,
                              self.frame_buffers, self.logic, t(self._params),
                              t(self._inputs(difficulty)), self.env_rng, self._threshold())
            if self.gpu is None:    # on the GPU t() uploads what changed since the last call
                self._consoles[key] = console
        return console

    def reset_tables(self) -> ResetTables:
        """What reset_game reads besides the console (kernels/structs.ResetTables)."""
        select, shown = self._selection
        t = self.table
        return ResetTables(self.rng, t(select), t(shown), t(self._starting))

    def drive_args(self, op, mask, difficulty, frames: int = 0) -> tuple:
        """environment.drive / drive_cuda's arguments, in order."""
        return (op, self.console(difficulty), self.reset_tables(), self._rows, frames,
                self._rewards, self.table(mask))

    def _drive(self, op, mask, difficulty, frames: int = 0) -> None:
        args = self.drive_args(op, mask, difficulty, frames)
        if self.gpu is not None:
            self.gpu.launch(env_kernel.drive_cuda, self.num_envs, *args)
            return
        # No more threads than consoles: a surplus thread only adds a wake-up to every launch.
        self._calls.on_threads(automatic_threads(self.num_envs), env_kernel.drive, args)

    def _threshold(self) -> int:
        """ALE adopts a new action when mt() / 2**32 >= p, i.e. mt() >= ceil(p * 2**32)."""
        return int(np.ceil(self.repeat_action_probability * 2.0 ** 32))


def _pixels(words):
    """(..., 160) uint8 palette indices of frame-buffer words (..., 20) (a fresh C-contiguous
    array: the words are copied first where they are a strided view)."""
    words = words.copy() if not words.flags.c_contiguous else words
    return words.view(np.uint8)


def _checked_probability(p) -> float:
    if isinstance(p, bool) or not isinstance(p, (int, float, np.floating, np.integer)) \
            or not 0.0 <= float(p) <= 1.0:
        raise ValueError(f"repeat_action_probability must be a number in [0, 1], got {p!r}")
    return float(p)
