"""How ALE selects a game's mode during reset_game: the one table of per-game facts.

ALE's reset_game (StellaEnvironment::reset in ALE's src/ale/environment/stella_environment.cpp)
runs a game-specific mode selection between its two soft resets.
Where there is one, it is always made of some of these steps:

    1. a preamble: NOOP frames played through ALE's `act`, a soft reset, or one Select press of
       a fixed length (opening a selection screen);
    2. double_dunk only: its option menu, walked with `act` frames (DOWN/NOOP pairs until the
       cursor byte changes, then RIGHT/NOOP or LEFT/NOOP pairs until an option bit is set or
       clear as the mode's bits say);
    3. Select presses (`pressSelect(n)`: n frames with Select held, then one NOOP frame) until
       the game's RAM shows the wanted mode; a console already showing it is not pressed;
    4. a soft reset (4 frames with Reset held), after which ALE's own soft reset follows;
    5. act frames after it: double_dunk's UPFIRE, NOOP; video_cube's RIGHT frames until the
       cube number it shows is the wanted one.

The byte the press loop reads is RIOT RAM (0x80-0xFF) or, for klax, the F6SC cartridge's RAM
through its read port (0xF080-0xF0FF; ALE peeks it).

A game without an entry here selects nothing (ALE's default); backgammon has an entry for its
one mode, which is not the game's power-on choice. The facts were observed on
ale-py 0.12.1 from outside (its RAM and screen after reset_game in every mode, and its frame
counter, which counts one per Select press and one per `act` frame) and, where that left more
than one reading, settled against ALE's per-game description; tests compare the result with
ale-py live. Frames played through `act` draw twice each from ALE's environment RNG (its
sticky-action draws); adventure also draws its Select press lengths from it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from .games import Action
from .kernels.ale.environment import (MAX_ACTS_AFTER, MAX_MENU_ITEMS, MENU_COLUMNS, S_ACT_AFTER,
                                  S_ACTIVE, S_ACTS_AFTER, S_ALSO_RAM, S_ALSO_VALUE, S_CUBE,
                                  S_CUBE_RAM, S_FRAMES, S_MAX_PRESSES, S_MENU, S_MENU_CURSOR,
                                  S_MENU_ITEMS, S_MENU_OPTIONS, S_NOOP_AFTER_PRESS, S_NOOPS_FIRST,
                                  S_PRESS_FIRST, S_RAM, S_RESET_FIRST, S_WANTED, SELECT_FIELDS)


def _ram_index(address: int) -> int:
    """The column of a console's `ram` row: RIOT RAM 0x80-0xFF, or a Superchip cartridge's RAM
    through its read port (0xF080-0xF0FF, after the RIOT's 128 bytes)."""
    if 0x80 <= address <= 0xFF:
        return address & 0x7F
    if 0xF080 <= address <= 0xF0FF:
        return 128 + (address & 0x7F)
    raise ValueError(f"RAM address {address:#x} is neither RIOT RAM nor a cartridge RAM read port")


def _offset(base: int) -> Callable[[int], int]:
    """A mode byte that shows mode m as m or, on the game's title screen, as m + base."""
    return lambda byte: byte - base if base <= byte < base + 0x10 else byte


def _bcd(byte: int) -> int:
    """A packed-BCD byte as a number, nibble by nibble (0x17 -> 17; 0x0A -> 10)."""
    return (byte >> 4) * 10 + (byte & 0x0F)


@dataclass(frozen=True)
class Select:
    """One game's mode selection.

    ram, frames:  the RAM byte (CPU address) the press loop reads (None: no press loop); frames
                  Select is held a press (adventure: None, a length drawn from ALE's
                  environment RNG).
    shown:        the mode number the game shows, from that byte (default: the byte itself).
    wanted:       the number that stands for ALE mode m (default: m).
    also:         a further (address, value) pair that must hold as well (one-player settings);
                  the value may be a function of the mode.
    noops_first:  NOOP frames through `act` before anything else (the game must be ready).
    reset_first:  a soft reset before anything else.
    press_first:  the length of one unconditional Select press before the loop (0: none).
    noop_after_press: an `act` NOOP frame after each press (adventure's debouncer).
    cube:         video_cube: BCD RAM byte of the cube number, chosen after the soft reset with
                  RIGHT frames through `act` (mode // 100, or 1 below 100).
    menu:         double_dunk: option menu items (DOWN moves first, option bit, the mode bit
                  that sets it), walked after the preamble; menu_cursor and menu_options are
                  the RAM bytes of the cursor and of the option bits.
    acts_after:   actions played through `act`, one frame each, after the soft reset.
    """

    ram: int | None
    frames: int | None
    shown: Callable[[int], int] = lambda byte: byte
    wanted: Callable[[int], int] = lambda mode: mode
    also: tuple[tuple[int, int], ...] = ()
    noops_first: int = 0
    reset_first: bool = False
    press_first: int = 0
    noop_after_press: bool = False
    cube: int | None = None
    menu: tuple[tuple[int, int, int], ...] = ()
    menu_cursor: int | None = None
    menu_options: int | None = None
    acts_after: tuple[Action, ...] = ()


SELECT: dict[str, Select] = {
    "adventure": Select(0xDD, None, shown=lambda b: (b >> 1) & 3, noop_after_press=True),
    "air_raid": Select(0xAA, 10, press_first=20),
    "alien": Select(0x81, 1),
    "asteroids": Select(0x80, 2),
    "atlantis": Select(0x8D, 2),
    "backgammon": Select(0xDC, 1, wanted=lambda m: 3),     # its one mode is the game's 3rd
    "bank_heist": Select(0x80, 1),
    "basic_math": Select(0xC5, 2),
    "battle_zone": Select(0xA1, 2),
    "berzerk": Select(0x80, 2, noops_first=20),
    "bowling": Select(0x82, 2),
    "breakout": Select(0xB2, 1),
    "casino": Select(0xD4, 2),
    "centipede": Select(0xA7, 2),
    "chopper_command": Select(0xE0, 2),
    "crazy_climber": Select(0x80, 2),
    "crossbow": Select(0x8D, 2, shown=lambda b: (b - 1) & 0xFF),
    "defender": Select(0x9B, 2),
    "demon_attack": Select(0xEA, 1),
    "double_dunk": Select(None, 0, press_first=1, menu_cursor=0xB0, menu_options=0x80,
                          menu=((2, 0x08, 1), (1, 0x10, 2), (1, 0x04, 4), (1, 0x20, 8)),
                          acts_after=(Action.UPFIRE, Action.NOOP)),
    "et": Select(0xEA, 25, shown=lambda b: (b - 1) & 0xFF),
    "flag_capture": Select(0xD6, 2),
    "freeway": Select(0x80, 1),
    "frogger": Select(0xDD, 2, wanted=lambda m: 2 * m + 1),
    "frostbite": Select(0x80, 1),
    "galaxian": Select(0xB3, 1),
    "gopher": Select(0xD3, 5, reset_first=True),
    "gravitar": Select(0x80, 10),
    "hangman": Select(0xEE, 2),
    "haunted_house": Select(0xCC, 2),
    "hero": Select(0x80, 1),
    "human_cannonball": Select(0xB6, 2, wanted=lambda m: m + 1, also=((0xB7, 1),)),
    "ice_hockey": Select(0x80, 2),
    "jamesbond": Select(0x8C, 20, shown=_offset(0x48)),
    "kangaroo": Select(0xBA, 2, shown=_offset(0x80)),
    "king_kong": Select(0xEC, 2, wanted=lambda m: 2 * m),
    "klax": Select(0xF0EA, 2),
    "lost_luggage": Select(0x94, 2, wanted=lambda m: 3 * m + 1),
    "mario_bros": Select(0x80, 5),
    "mr_do": Select(0x80, 5),
    "ms_pacman": Select(0x99, 10, wanted=lambda m: max(m, 1),
                        also=((0xA1, lambda m: 1 if m == 0 else 0),)),
    "name_this_game": Select(0xDE, 2),
    "othello": Select(0xDE, 2, wanted=lambda m: m + 1),
    "pacman": Select(0xCC, 2, wanted=lambda m: m + 1, also=((0xE6, 0),)),
    "pong": Select(0x96, 2),
    "pooyan": Select(0xBD, 2, press_first=2),
    "private_eye": Select(0x80, 2),
    "space_invaders": Select(0xDC, 2),
    "space_war": Select(0xA7, 2, shown=_bcd),
    "star_gunner": Select(0xF4, 15),
    "surround": Select(0xF9, 2, wanted=lambda m: m + 1),
    "tennis": Select(0x80, 2),
    "tic_tac_toe_3d": Select(0x88, 2),
    "turmoil": Select(0xEA, 2),
    "tutankham": Select(0xAB, 2),
    "video_checkers": Select(0xF6, 1, wanted=lambda m: m + 6 if m >= 11 else m),
    "video_chess": Select(0xEA, 1),
    "video_cube": Select(0xFB, 2, shown=lambda b: b & 0x1F, wanted=lambda m: (0, 2, 8)[m % 100],
                         cube=0x9F),
    "video_pinball": Select(0xC1, 2),
    "word_zapper": Select(0xDB, 2),
    "yars_revenge": Select(0xE3, 1, press_first=2),
    "zaxxon": Select(0x82, 10),
}


MAX_SELECT_PRESSES = 1000     # ALE loops forever; a game that never shows its mode is a bug


def selection(game, mode: int) -> tuple[np.ndarray, np.ndarray]:
    """The kernel's tables for selecting `mode` of `game`: (row int32[SELECT_FIELDS],
    shown int32[256]: the mode number each value of the RAM byte shows)."""
    row = np.zeros(SELECT_FIELDS, np.int32)
    shown = np.zeros(256, np.int32)
    row[S_ALSO_RAM] = row[S_CUBE_RAM] = -1
    row[S_MAX_PRESSES] = MAX_SELECT_PRESSES
    select = SELECT.get(game.rom_id)
    if select is None:
        if len(game.modes) > 1:
            raise NotImplementedError(f"{game.rom_id}: how ALE selects its modes is not in "
                                      f"cule_py.modes yet")
        return row, shown
    row[S_ACTIVE] = 1
    row[S_RAM] = -1 if select.ram is None else _ram_index(select.ram)
    row[S_FRAMES] = -1 if select.frames is None else select.frames
    row[S_WANTED] = select.wanted(mode)
    if select.also:
        ((address, value),) = select.also
        row[S_ALSO_RAM] = _ram_index(address)
        row[S_ALSO_VALUE] = value(mode) if callable(value) else value
    row[S_NOOPS_FIRST] = select.noops_first
    row[S_RESET_FIRST] = int(select.reset_first)
    row[S_PRESS_FIRST] = select.press_first
    row[S_NOOP_AFTER_PRESS] = int(select.noop_after_press)
    if select.cube is not None:
        row[S_CUBE_RAM] = select.cube & 0x7F
        row[S_CUBE] = mode // 100 if mode >= 100 else 1
    if select.menu:
        if len(select.menu) > MAX_MENU_ITEMS:
            raise ValueError(f"{game.rom_id}: more than {MAX_MENU_ITEMS} menu items")
        row[S_MENU_CURSOR] = _ram_index(select.menu_cursor)
        row[S_MENU_OPTIONS] = _ram_index(select.menu_options)
        row[S_MENU_ITEMS] = len(select.menu)
        for k, (downs, bit, mode_bit) in enumerate(select.menu):
            row[S_MENU + MENU_COLUMNS * k:S_MENU + MENU_COLUMNS * (k + 1)] = (
                downs, bit, int(mode & mode_bit != 0))
    if len(select.acts_after) > MAX_ACTS_AFTER:
        raise ValueError(f"{game.rom_id}: more than {MAX_ACTS_AFTER} act frames after the reset")
    row[S_ACTS_AFTER] = len(select.acts_after)
    for i, action in enumerate(select.acts_after):
        row[S_ACT_AFTER + i] = int(action)
    shown[:] = [select.shown(byte) for byte in range(256)]
    return row, shown
