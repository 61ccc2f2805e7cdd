"""A batch of 2600 consoles driven the way ALE drives one: power-on, PAL detection, reset_game,
and one frame per action. Internal engine under the coming `AtariEmulator` API.

Status: 2K/4K cartridges, joystick games, the default mode. Games whose mode selection, paddles
or starting actions need more are refused with an error rather than run inexactly.
"""

from __future__ import annotations

import numpy as np

from . import roms
from .kernels import cart
from .kernels import console as kernel
from .kernels import layout as L

SYSTEM_RNG_SEED = 4753849
_SYSTEM_RNG_DRAWS = 1 << 16
_PAL_DETECT_FRAMES = 60
_RESET_NOOP_FRAMES = 60
_SOFT_RESET_FRAMES = 4
SWCHB_DEFAULT = 0x3F          # difficulties B/B, colour, no switch pressed
SWCHB_RESET_HELD = 0x3E

# ALE action id -> (up, down, left, right, fire) of player A's joystick.
_JOYSTICK = np.array([
    (0, 0, 0, 0, 0), (0, 0, 0, 0, 1), (1, 0, 0, 0, 0), (0, 0, 0, 1, 0), (0, 0, 1, 0, 0),
    (0, 1, 0, 0, 0), (1, 0, 0, 1, 0), (1, 0, 1, 0, 0), (0, 1, 0, 1, 0), (0, 1, 1, 0, 0),
    (1, 0, 0, 0, 1), (0, 0, 0, 1, 1), (0, 0, 1, 0, 1), (0, 1, 0, 0, 1), (1, 0, 0, 1, 1),
    (1, 0, 1, 0, 1), (0, 1, 0, 1, 1), (0, 1, 1, 0, 1)], np.int32)


def system_rng_stream(draws: int = _SYSTEM_RNG_DRAWS) -> np.ndarray:
    """The first `draws` outputs of ALE's system RNG (std::mt19937 seeded 4753849).

    numpy's legacy RandomState seeds MT19937 exactly as std::mt19937(seed) does."""
    generator = np.random.RandomState(SYSTEM_RNG_SEED)._bit_generator
    return generator.random_raw(draws).astype(np.uint32)


class ConsoleBatch:
    """`num_envs` consoles running one ROM, each as after ALE's `loadROM`."""

    def __init__(self, game: str, num_envs: int):
        self.rom = roms.load_rom(game)
        self.game = self.rom.game
        if self.rom.scheme not in cart.SCHEME_IDS:
            raise NotImplementedError(f"cartridge scheme {self.rom.scheme} is not implemented yet "
                                      f"(so far: {', '.join(cart.SCHEME_IDS)})")
        if self.game.controller != "joystick":
            raise NotImplementedError(f"{self.game.rom_id}: paddle games are not implemented yet")
        if self.game.starting_actions or len(self.game.modes) > 1:
            raise NotImplementedError(f"{self.game.rom_id}: per-game mode selection and starting "
                                      f"actions are not implemented yet")
        self.num_envs = num_envs
        self.rom_bytes = np.frombuffer(self.rom.data, np.uint8).copy()
        self.scheme = cart.SCHEME_IDS[self.rom.scheme]
        self.rng = system_rng_stream()
        self.state = np.zeros((num_envs, L.STATE_FIELDS), np.int32)
        self.ram = np.zeros((num_envs, 128), np.uint8)
        self.frame_buffers = np.zeros((num_envs, 2, 250, 160), np.uint8)
        self._all = np.ones(num_envs, np.bool_)
        self.power_on()

    # -- ALE's sequences -------------------------------------------------------------------------
    def power_on(self, mask=None) -> None:
        """`loadROM`: RAM from the system RNG, PAL detection, two System resets, then reset_game."""
        mask = self._all if mask is None else mask
        st = self.state
        self.ram[mask] = self.rng[:128] & 0xFF
        # 128 RAM draws, then the RIOT constructor's timer draw (overwritten by the next reset).
        st[mask] = 0
        st[mask, L.SYSTEM_RNG_POSITION] = 129
        st[mask, L.TIA_YSTART] = self.game.ystart
        st[mask, L.TIA_HEIGHT] = self.game.height
        st[mask, L.TIA_HMOVE_BLANKS_ALLOWED] = int(self.game.hmove_blanks)
        # Until ALE first applies its difficulty setting, the switches sit where Stella's
        # properties put them.
        left, right = self.game.power_on_difficulty
        swchb = SWCHB_DEFAULT | (0x40 if left == "A" else 0) | (0x80 if right == "A" else 0)
        self._set_inputs(mask, np.zeros(self.num_envs, np.int32), swchb)
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
        self.reset(mask)

    def reset(self, mask=None) -> None:
        """`reset_game`: System reset, 60 NOOP frames, RESET held 4 frames (twice)."""
        mask = self._all if mask is None else mask
        self._system_reset(mask)
        self._set_inputs(mask, np.zeros(self.num_envs, np.int32), SWCHB_DEFAULT)
        self._frames(mask, _RESET_NOOP_FRAMES)
        for _ in range(2):
            self._set_inputs(mask, np.zeros(self.num_envs, np.int32), SWCHB_RESET_HELD)
            self._frames(mask, _SOFT_RESET_FRAMES)
        self._set_inputs(mask, np.zeros(self.num_envs, np.int32), SWCHB_DEFAULT)

    def act(self, actions: np.ndarray) -> None:
        """One frame on every console with player A's joystick set from ALE action ids."""
        self._set_inputs(self._all, np.asarray(actions, np.int32), SWCHB_DEFAULT)
        self._frames(self._all, 1)

    # -- views -----------------------------------------------------------------------------------
    def screen(self) -> np.ndarray:
        st = self.state
        height = int(st[0, L.TIA_HEIGHT])
        rows = np.arange(self.num_envs)
        return self.frame_buffers[rows, st[:, L.TIA_BUFFER], :height].copy()

    # -- kernels ---------------------------------------------------------------------------------
    def _system_reset(self, mask) -> None:
        kernel.reset_consoles(self.rom_bytes, self.scheme, self.ram, self.state, self.frame_buffers,
                              self.rng, mask)

    def _frames(self, mask, frames: int) -> None:
        kernel.run_frames(self.rom_bytes, self.scheme, self.ram, self.state, self.frame_buffers,
                          frames, mask)

    def _set_inputs(self, mask, actions, swchb) -> None:
        joy = _JOYSTICK[actions]
        pressed = joy[:, 0] | (joy[:, 1] << 1) | (joy[:, 2] << 2) | (joy[:, 3] << 3)
        st = self.state
        if self.game.swap_ports:
            # [Q] SwapPorts: player A's joystick is the right port (low nibble, INPT5).
            st[mask, L.IN_SWCHA] = (0xFF & ~pressed)[mask]
            st[mask, L.IN_FIRE_LEFT] = 0
            st[mask, L.IN_FIRE_RIGHT] = joy[mask, 4]
        else:
            st[mask, L.IN_SWCHA] = (0xFF & ~(pressed << 4))[mask]
            st[mask, L.IN_FIRE_LEFT] = joy[mask, 4]
            st[mask, L.IN_FIRE_RIGHT] = 0
        st[mask, L.IN_SWCHB] = swchb
        st[mask, L.IN_POT0:L.IN_POT3 + 1] = 0x7FFFFFFF     # joysticks: no pot connected
