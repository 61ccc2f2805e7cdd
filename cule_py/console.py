"""A batch of 2600 consoles driven the way ALE drives one: power-on, PAL detection, reset_game
(with the game's mode selection and starting actions), and one frame per action, for joystick
and paddle games. Internal engine under the coming `AtariEmulator` API.

Status: the cartridge schemes in `kernels.cart.SCHEME_IDS` (every scheme ALE's games use, and
F4, F4SC, FA, E7, 3F, UA); others are refused with an error rather than run inexactly.

Settings follow ALE's `loadROM; setMode(m); setDifficulty(d)`: the constructor (and
`power_on`) runs `loadROM`, whose own reset_game plays the game's default mode and difficulty;
the batch's mode then takes effect at the next `reset()` (as ALE's setMode does), its
difficulty at the next frame (ALE sets the difficulty switches whenever it applies an action).
"""

from __future__ import annotations

import numpy as np

from . import modes as game_modes
from . import roms
from .games import PADDLE_DELTA, Action
from .kernels import cart
from .kernels import console as kernel
from .kernels import layout as L

SYSTEM_RNG_SEED = 4753849
_SYSTEM_RNG_DRAWS = 1 << 16
_PAL_DETECT_FRAMES = 60
_RESET_NOOP_FRAMES = 60
_SOFT_RESET_FRAMES = 4

# SWCHB (spec 3.2): D7/D6 = right/left difficulty A, D3 = colour, D1 = Select, D0 = Reset
# (0 while held); D5, D4, D2 read 1.
SWCHB_DEFAULT = 0x3F          # difficulties B/B, colour, no switch pressed
SWITCH_RESET = 0x01
SWITCH_SELECT = 0x02

POT_NONE = 0x7FFFFFFF         # nothing connected to the pin (joysticks): the pot never charges
POT_GROUNDED = 0              # resistance 0: charged at once

NOOP = int(Action.NOOP)
RIGHT = int(Action.RIGHT)
RESET = int(Action.RESET)
ENV_RNG_DRAWS_PER_ACT = 2     # ALE's act() draws player A's and B's sticky decisions every frame

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

# The input fields of a state row, in this order, one slice: what `_apply` writes.
_IN = slice(L.IN_SWCHA, L.IN_POT3 + 1)
assert (L.IN_SWCHB, L.IN_FIRE_LEFT, L.IN_FIRE_RIGHT, L.IN_POT0, L.IN_POT1, L.IN_POT2,
        L.IN_POT3) == tuple(range(L.IN_SWCHA + 1, L.IN_SWCHA + 8))


def system_rng_stream(draws: int = _SYSTEM_RNG_DRAWS) -> np.ndarray:
    """The first `draws` outputs of ALE's system RNG (std::mt19937 seeded 4753849).

    numpy's legacy RandomState seeds MT19937 exactly as std::mt19937(seed) does."""
    generator = np.random.RandomState(SYSTEM_RNG_SEED)._bit_generator
    return generator.random_raw(draws).astype(np.uint32)


class ConsoleBatch:
    """`num_envs` consoles running one ROM, each as after ALE's `loadROM`.

    mode:       the game mode `reset()` selects (None: the game's default), as ALE's setMode.
    difficulty: the difficulty switches (bit 0: left A, bit 1: right A), as ALE's
                setDifficulty; None: ALE's default, 0 (even for backgammon, which lists only 3).
    env_seed:   ALE's `random_seed` setting, per console or one for all: the seed of ALE's
                environment RNG (std::mt19937), which ALE re-seeds at loadROM and draws from
                twice per `act` frame. Here only adventure's mode selection reads it (its
                Select press lengths); the draws are counted so that it reads what ALE reads.
    """

    MAX_SELECT_PRESSES = 1000     # ALE loops forever; a game that never shows its mode is a bug

    def __init__(self, game: str, num_envs: int, mode: int | None = None,
                 difficulty: int | None = None, env_seed=0):
        # `game` may also be a roms.Rom already loaded (internal: tests run their own ROMs).
        self.rom = game if isinstance(game, roms.Rom) else roms.load_rom(game)
        self.game = self.rom.game
        if self.rom.scheme not in cart.SCHEME_IDS:
            raise NotImplementedError(f"cartridge scheme {self.rom.scheme} is not implemented yet "
                                      f"(so far: {', '.join(cart.SCHEME_IDS)})")
        if isinstance(num_envs, bool) or not isinstance(num_envs, (int, np.integer)) \
                or num_envs < 1:
            raise ValueError(f"num_envs must be a positive int, got {num_envs!r}")
        self._mode_select = game_modes.mode_select(self.game)
        self.mode = self._checked_mode(mode)
        self.difficulty = self._checked_difficulty(difficulty)
        self.num_envs = int(num_envs)
        self.rom_bytes = np.frombuffer(self.rom.data, np.uint8).copy()
        self.scheme = cart.SCHEME_IDS[self.rom.scheme]
        self.rng = system_rng_stream()
        self.state = np.zeros((self.num_envs, L.STATE_FIELDS), np.int32)
        # The kernels' RAM row: the RIOT's 128 bytes, then the cartridge's RAM (Superchip, FA,
        # E7). `ram` is the RIOT part (what ALE's getRAM reads), `cart_ram` the rest; both views.
        self.memory = np.zeros((self.num_envs, 128 + cart.ram_bytes(self.scheme)), np.uint8)
        self.ram = self.memory[:, :128]
        self.cart_ram = self.memory[:, 128:]
        self.frame_buffers = np.zeros((self.num_envs, 2, 250, 160), np.uint8)
        # Paddle resistances of paddles 0 (player A) and 1 (player B, whom ALE never moves).
        self.paddles = np.zeros((self.num_envs, 2), np.int64)
        self.env_rng_seed = np.zeros(self.num_envs, np.int64)
        self.env_rng_seed[:] = env_seed
        if (self.env_rng_seed < 0).any() or (self.env_rng_seed > 0xFFFFFFFF).any():
            raise ValueError("env_seed must be in 0..2**32-1 (ALE seeds std::mt19937 with it)")
        self.env_rng_draws = np.zeros(self.num_envs, np.int64)
        self._env_rng_streams: dict[int, np.ndarray] = {}
        self._all = np.ones(self.num_envs, np.bool_)
        self._input_tables: dict[tuple[int, int], np.ndarray] = {}
        # act(): ALE plays an action outside the legal set, and RESET, as NOOP; -1: no action.
        self._act_filter = np.full(RESET + 1, -1, np.int32)
        self._act_filter[:18] = NOOP
        self._act_filter[RESET] = NOOP
        self._act_filter[[int(a) for a in self.game.legal_actions]] = \
            [int(a) for a in self.game.legal_actions]
        paddles = self.game.paddles
        # Per action, the paddle's move each frame (ALE: RIGHT turns the resistance down).
        self._paddle_delta = ((_INPUT[:, _LEFT] - _INPUT[:, _RIGHT]) * PADDLE_DELTA
                              if paddles is not None else np.zeros(RESET + 1, np.int32))
        self.power_on()

    # -- settings --------------------------------------------------------------------------------
    def _checked_mode(self, mode):
        if mode is None:
            return self.game.default_mode
        if isinstance(mode, bool) or not isinstance(mode, (int, np.integer)) \
                or int(mode) not in self.game.modes:
            raise ValueError(f"{self.game.rom_id}: mode {mode!r} is not one of its modes "
                             f"{list(self.game.modes)}")
        return int(mode)

    def _checked_difficulty(self, difficulty):
        if difficulty is None:
            return self.game.default_difficulty
        if isinstance(difficulty, bool) or not isinstance(difficulty, (int, np.integer)) \
                or int(difficulty) not in self.game.difficulties:
            raise ValueError(f"{self.game.rom_id}: difficulty {difficulty!r} is not one of its "
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
        in the game's default mode and difficulty. The environment RNG starts anew."""
        mask = self._mask(mask)
        st = self.state
        self.env_rng_draws[mask] = 0
        self.ram[mask] = self.rng[:128] & 0xFF
        # 128 RAM draws, then the RIOT constructor's timer draw (overwritten by the next reset).
        st[mask] = 0
        st[mask, L.SYSTEM_RNG_POSITION] = 129
        self.cart_ram[mask] = 0       # ALE's cartridges take their RAM's draws at System resets
        cart.power_on(st, mask, self.scheme)
        st[mask, L.TIA_YSTART] = self.game.ystart
        st[mask, L.TIA_HEIGHT] = self.game.height
        st[mask, L.TIA_HMOVE_BLANKS_ALLOWED] = int(self.game.hmove_blanks)
        # Until ALE first applies its difficulty setting, the switches sit where Stella's
        # properties put them; the paddles' resistance events are still 0.
        left, right = self.game.power_on_difficulty
        difficulty = (1 if left == "A" else 0) | (2 if right == "A" else 0)
        self.paddles[mask] = POT_GROUNDED
        self._apply(mask, NOOP, 0, difficulty)
        self._system_reset(mask)
        pal_votes = np.zeros(self.num_envs, np.int32)
        for frame in range(_PAL_DETECT_FRAMES):
            self._frames(mask, 1)
            if frame >= 30:
                pal_votes += st[:, L.TIA_SCANLINES_LAST_FRAME] > 285
        pal = mask & (pal_votes >= 15)
        st[pal, L.TIA_PAL] = 1
        if self.game.height == 210:
            st[pal, L.TIA_HEIGHT] = 250
        self._system_reset(mask)
        self._reset_game(mask, self.game.default_mode, self.game.default_difficulty)

    def reset(self, mask=None) -> None:
        """`reset_game` in the batch's mode and difficulty."""
        self._reset_game(self._mask(mask), self.mode, self.difficulty)

    def act(self, actions) -> None:
        """One frame on every console from player A's ALE action ids (ALE's `act`: an action
        outside the game's legal set, and RESET, play as NOOP)."""
        actions = np.asarray(actions)
        if actions.shape != (self.num_envs,) or actions.dtype.kind not in "iu":
            raise ValueError(f"actions must be {self.num_envs} integer ALE action ids, got "
                             f"shape {actions.shape} dtype {actions.dtype}")
        if actions.min() < 0 or actions.max() > RESET or (self._act_filter[actions] < 0).any():
            bad = sorted({int(a) for a in actions.ravel()
                          if not 0 <= a <= RESET or self._act_filter[a] < 0})
            raise ValueError(f"actions must be ALE action ids 0-17 (or RESET, 40), got {bad}")
        self._act_frames(self._all, self._act_filter[actions], 1, self.difficulty)

    # -- views -----------------------------------------------------------------------------------
    def screen(self) -> np.ndarray:
        st = self.state
        height = int(st[0, L.TIA_HEIGHT])
        rows = np.arange(self.num_envs)
        return self.frame_buffers[rows, st[:, L.TIA_BUFFER], :height].copy()

    # -- the pieces of reset_game ------------------------------------------------------------------
    def _reset_game(self, mask, mode, difficulty) -> None:
        """StellaEnvironment::reset (spec 6.2): paddles centred, System reset, 60 NOOP frames,
        soft reset, the game's mode selection, soft reset, the starting actions (through
        `emulate`, so not noop-filtered: three games start with RESET)."""
        if self.game.paddles is not None:
            self.paddles[mask] = self.game.paddles.resistance_start
        self._system_reset(mask)
        self._emulate(mask, NOOP, _RESET_NOOP_FRAMES, difficulty)
        self._soft_reset(mask, difficulty)
        self._mode_select(self, mask, mode, difficulty)
        self._soft_reset(mask, difficulty)
        for action in self.game.starting_actions:
            self._emulate(mask, int(action), 1, difficulty)

    def _soft_reset(self, mask, difficulty) -> None:
        """softReset: the console's Reset switch held for 4 frames."""
        self._emulate(mask, RESET, _SOFT_RESET_FRAMES, difficulty)

    def _press_select(self, mask, frames, difficulty) -> None:
        """pressSelect(n): Select held for n frames (the paddles as they are), then a NOOP frame."""
        self._apply(mask, NOOP, SWITCH_SELECT, difficulty)
        self._frames(mask, frames)
        self._emulate(mask, NOOP, 1, difficulty)

    def _act_frames(self, mask, actions, frames, difficulty) -> None:
        """Frames played through ALE's act(): emulate one frame each, two environment-RNG draws."""
        for _ in range(frames):
            self._emulate(mask, actions, 1, difficulty)
            self.env_rng_draws[mask] += ENV_RNG_DRAWS_PER_ACT

    def _env_rng_draw(self, mask) -> np.ndarray:
        """The next output of each masked console's environment RNG (0 elsewhere)."""
        out = np.zeros(self.num_envs, np.int64)
        for env in np.nonzero(mask)[0]:
            seed, position = int(self.env_rng_seed[env]), int(self.env_rng_draws[env])
            stream = self._env_rng_streams.get(seed)
            if stream is None or len(stream) <= position:
                generator = np.random.RandomState(seed)._bit_generator
                stream = generator.random_raw(max(2 * position, 1 << 12)).astype(np.int64)
                self._env_rng_streams[seed] = stream
            out[env] = stream[position]
            self.env_rng_draws[env] = position + 1
        return out

    def _emulate(self, mask, actions, frames, difficulty) -> None:
        """ALE's emulate(action, NOOP, n): player A's action applied; paddles move each frame."""
        delta = self._paddle_delta[actions]
        if not np.any(delta):
            self._apply(mask, actions, 0, difficulty)
            self._frames(mask, frames)
            return
        paddles = self.game.paddles
        for _ in range(frames):
            moved = np.clip(self.paddles[:, 0] + delta, paddles.resistance_min,
                            paddles.resistance_max)
            self.paddles[mask, 0] = moved[mask]
            self._apply(mask, actions, 0, difficulty)
            self._frames(mask, 1)

    def _apply(self, mask, actions, switches, difficulty) -> None:
        """ALE's resetKeys plus player A's action, as the console's input pins see them: SWCHA,
        SWCHB, INPT4/5 (fire) and INPT0-3 (pot resistances)."""
        rows = self._inputs(switches, difficulty)[np.broadcast_to(actions, (self.num_envs,))]
        paddles = self.game.paddles
        if paddles is not None:
            first, second = (1, 0) if paddles.swapped else (0, 1)
            rows[:, L.IN_POT0 - L.IN_SWCHA] = self.paddles[:, first]
            rows[:, L.IN_POT1 - L.IN_SWCHA] = self.paddles[:, second]
        if mask is self._all:
            self.state[:, _IN] = rows
        else:
            self.state[mask, _IN] = rows[mask]

    def _inputs(self, switches, difficulty) -> np.ndarray:
        """Per ALE action id, the input fields (SWCHA, SWCHB, fire left, fire right, pots 0-3)."""
        key = (switches, difficulty)
        table = self._input_tables.get(key)
        if table is not None:
            return table
        table = np.zeros((RESET + 1, 8), np.int32)
        pressed = _INPUT[:, _UP] | _INPUT[:, _DOWN] << 1 | _INPUT[:, _LEFT] << 2 \
            | _INPUT[:, _RIGHT] << 3
        fire = _INPUT[:, _FIRE]
        held = _INPUT[:, _RESET] * SWITCH_RESET | switches
        table[:, 1] = (SWCHB_DEFAULT & ~held) | (difficulty & 1) << 6 | (difficulty & 2) << 6
        paddles = self.game.paddles
        if paddles is not None:
            # Paddles (spec 3.2): pins 1 and 2 read 1, the fire buttons are on pins 4 / 3
            # (D7 / D6) and swap with SwapPaddles; pin 6 reads "not pressed". Pots 0 and 1 are
            # the paddles' resistances (filled in per console); ALE never moves paddles 2 and
            # 3, so where the right port has paddles they read resistance 0.
            table[:, 0] = 0xFF & ~(fire << (6 if paddles.swapped else 7))
            table[:, 6:8] = POT_GROUNDED if "right" in paddles.ports else POT_NONE
        elif self.game.swap_ports:
            # [Q] SwapPorts: player A's joystick is the right port (low nibble, INPT5).
            table[:, 0] = 0xFF & ~pressed
            table[:, 3] = fire
            table[:, 4:8] = POT_NONE
        else:
            table[:, 0] = 0xFF & ~(pressed << 4)
            table[:, 2] = fire
            table[:, 4:8] = POT_NONE
        self._input_tables[key] = table
        return table

    def _mask(self, mask) -> np.ndarray:
        if mask is None:
            return self._all
        mask = np.asarray(mask)
        if mask.shape != (self.num_envs,) or mask.dtype != np.bool_:
            raise ValueError(f"mask must be {self.num_envs} bools, got shape {mask.shape} "
                             f"dtype {mask.dtype}")
        return mask

    # -- kernels ---------------------------------------------------------------------------------
    def _system_reset(self, mask) -> None:
        # One timer draw, then the cartridge RAM's draws: make sure the stream reaches that far.
        needed = int(self.state[:, L.SYSTEM_RNG_POSITION].max()) + 1 + self.cart_ram.shape[1]
        if needed > len(self.rng):
            self.rng = system_rng_stream(max(needed, 2 * len(self.rng)))
        kernel.reset_consoles(self.rom_bytes, self.scheme, self.memory, self.state,
                              self.frame_buffers, self.rng, mask)

    def _frames(self, mask, frames: int) -> None:
        kernel.run_frames(self.rom_bytes, self.scheme, self.memory, self.state, self.frame_buffers,
                          frames, mask)
