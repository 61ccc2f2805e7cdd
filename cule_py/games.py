"""Per-game metadata for ALE's 104 single-player games: the one place that holds it.

Each `Game` says what ALE (ale-py 0.12.1) does with one ROM: its identity (rom id, md5, size), the
bank-switching scheme and TV format ALE auto-detects, the action sets, modes and difficulties, the
starting actions ALE plays after every reset, the controller, and the Stella console properties
ALE looks up by md5 (display window, HMOVE blanks, port and paddle swaps, power-on difficulty
switches). Reward, terminal and lives logic is not here: it runs on the device, in `kernels/`.

    >>> from cule_py.games import get_game
    >>> g = get_game("Pong")
    >>> g.rom_id, g.scheme, g.height, g.controller, len(g.minimal_actions)
    ('pong', '2K', 210, 'paddles', 6)

The table between the GENERATED markers is written by `tools/survey_games.py`, which queries
ale-py live for every field it can observe and keeps the hand-curated fields (starting actions,
console properties, RAM hints) as they stand here; tests/test_games.py checks it against ale-py.

ALE ships four more ROMs (combat, joust, maze_craze, warlords) that only its multi-agent mode
uses: `ALEInterface.loadROM` cannot load them (ALE calls exit(1)), so they are not games here;
`MULTIPLAYER_ONLY` records them so that they are recognised and refused with a clear message.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from enum import IntEnum
from types import MappingProxyType
from typing import Final, Literal

from .errors import MultiplayerRomError, UnknownGameError

__all__ = [
    "Action", "ALL_ACTIONS", "Game", "Paddles", "MultiplayerRom", "GAMES", "MULTIPLAYER_ONLY",
    "PADDLE_DELTA", "PADDLE_MIN", "PADDLE_MAX", "GYM_ID", "UnknownGameError", "MultiplayerRomError",
    "get_game", "game_for_md5", "game_names",
]


class Action(IntEnum):
    """ALE's action numbers (`src/ale/common/Constants.h`); ale_py.Action has 0..17, RESET is internal."""

    NOOP = 0
    FIRE = 1
    UP = 2
    RIGHT = 3
    LEFT = 4
    DOWN = 5
    UPRIGHT = 6
    UPLEFT = 7
    DOWNRIGHT = 8
    DOWNLEFT = 9
    UPFIRE = 10
    RIGHTFIRE = 11
    LEFTFIRE = 12
    DOWNFIRE = 13
    UPRIGHTFIRE = 14
    UPLEFTFIRE = 15
    DOWNRIGHTFIRE = 16
    DOWNLEFTFIRE = 17
    # Only ALE itself presses RESET (soft resets, three games' starting actions); act() drops it.
    RESET = 40


#: The full joystick action set, in ALE's order (the legal set of 102 of the 104 games).
ALL_ACTIONS: Final[tuple[Action, ...]] = tuple(Action(a) for a in range(18))

#: Paddle resistance model (ALE `ale_state.hpp`): the step per frame and the default limits.
PADDLE_DELTA: Final = 23000
PADDLE_MIN: Final = 27450
PADDLE_MAX: Final = 790196


@dataclass(frozen=True)
class Paddles:
    """The paddle controllers of a paddle game, as ALE sets them up.

    ports:   the console ports with paddles plugged in ("left", "right"); the agent (player A)
             turns paddle 0, whose resistance ALE writes to the left port's first pin pair.
    swapped: Stella's SwapPaddles property (pong): the game reads the two paddles of a port
             the other way round.
    resistance_min/max: the clamp of the resistance ALE integrates (±PADDLE_DELTA per frame);
             backgammon and blackjack raise the maximum through ALE's `paddle_max` setting.
    """

    ports: tuple[Literal["left", "right"], ...] = ("left",)
    swapped: bool = False
    resistance_min: int = PADDLE_MIN
    resistance_max: int = PADDLE_MAX

    @property
    def resistance_start(self) -> int:
        """Where ALE centres both paddles at every reset (integer midpoint)."""
        return (self.resistance_min + self.resistance_max) // 2


@dataclass(frozen=True)
class Game:
    """What ALE does with one supported ROM. Field groups:

    identity:   rom_id (ale-py's snake_case id), name (the `ALE/<name>-v5` part), md5, rom_size,
                cart_name (Stella's database name; road_runner has no entry there, so Stella
                shows the file stem), legacy_ids (also has v0/v4 Gymnasium ids).
    cartridge:  scheme, as ALE's auto-detection names it ("2K", "4K", "F8", "F8SC", "F6",
                "F6SC", "E0", "FE", "DPC"); tv_format, as ALE detects it at load ("NTSC"/"PAL").
    agent:      minimal_actions and legal_actions (ALE's order), modes with default_mode,
                difficulties with default_difficulty (ALE starts at difficulty 0 even where 0
                is not listed: backgammon), starting_actions played once after every reset,
                one frame each, past the legality filter (lost_luggage's FIRE is illegal for
                its agent) and uncounted by the frame counters.
    console:    controller ("joystick"/"paddles") and paddles; ystart and height of the screen
                window (height is the observation height, 250 for PAL); hmove_blanks; swap_ports
                (player A's joystick in the right port); power_on_difficulty, the switch
                positions (left, right) from Stella's properties, in force until ALE first
                applies its own difficulty setting (during the 60 TV-detection frames at load).
    ram_hint:   RAM bytes (CPU addresses) ALE's RomSettings reads, regex-extracted and partial
                from ALE's RomSettings sources (src/ale/games/supported/*.cpp in ALE's
                public repository): an index into ALE's source, not a specification.
    """

    rom_id: str
    name: str
    md5: str
    rom_size: int
    scheme: str
    tv_format: Literal["NTSC", "PAL"]
    cart_name: str
    minimal_actions: tuple[Action, ...]
    modes: tuple[int, ...]
    default_mode: int
    difficulties: tuple[int, ...]
    legal_actions: tuple[Action, ...] = ALL_ACTIONS
    default_difficulty: int = 0
    starting_actions: tuple[Action, ...] = ()
    controller: Literal["joystick", "paddles"] = "joystick"
    paddles: Paddles | None = None
    ystart: int = 34
    height: int = 210
    hmove_blanks: bool = True
    swap_ports: bool = False
    power_on_difficulty: tuple[Literal["A", "B"], Literal["A", "B"]] = ("B", "B")
    legacy_ids: bool = False
    ram_hint: tuple[int, ...] = field(default=(), repr=False)

    def __post_init__(self) -> None:
        # Cheap consistency checks: a wrong hand edit fails at import, not deep in a kernel.
        if (self.controller == "paddles") != (self.paddles is not None):
            raise ValueError(f"{self.rom_id}: controller {self.controller!r} and "
                             f"paddles {self.paddles!r} disagree")
        if self.default_mode not in self.modes:
            raise ValueError(f"{self.rom_id}: default mode {self.default_mode} not in {self.modes}")
        if not set(self.minimal_actions) <= set(self.legal_actions):
            raise ValueError(f"{self.rom_id}: minimal actions outside the legal set")

    @property
    def env_id(self) -> str:
        """The Gymnasium id ale-py registers for this game, e.g. 'ALE/Pong-v5'."""
        return f"ALE/{self.name}-v5"


@dataclass(frozen=True)
class MultiplayerRom:
    """A ROM ale-py ships only for its multi-agent mode; ALEInterface cannot load it."""

    rom_id: str
    md5: str
    rom_size: int
    scheme: str


def _runs(*runs: tuple[int, Action]) -> tuple[Action, ...]:
    """Expand run-length pairs (count, action): starting actions such as 486 NOOPs stay readable."""
    return tuple(action for count, action in runs for _ in range(count))


def _table(games: Iterable[Game]) -> Mapping[str, Game]:
    table: dict[str, Game] = {}
    for game in games:
        if game.rom_id in table:
            raise ValueError(f"duplicate game {game.rom_id}")
        table[game.rom_id] = game
    return MappingProxyType(table)


A = Action

# BEGIN GENERATED by tools/survey_games.py -- edit curated fields here, then re-run the tool.
# Surveyed from ale-py 0.12.1. Hand-curated (from ALE's RomSettings and Stella properties; the tool keeps
# them): starting_actions, ystart, hmove_blanks, swap_ports, power_on_difficulty, ram_hint, paddle ports and
# swap. Everything else is queried from ale-py.
GAMES: Final[Mapping[str, Game]] = _table([
    Game("adventure", name="Adventure", md5="4b27f5397c442d25f0c418ccdacf1926", rom_size=4096, scheme="4K",
        tv_format="PAL", cart_name="Adventure (1978) (Atari) (PAL) [!]", minimal_actions=ALL_ACTIONS,
        modes=(0, 1, 2), default_mode=0, difficulties=(0, 1, 2, 3), height=250, legacy_ids=True,
        ram_hint=(0xB9, 0xE0)),
    Game("air_raid", name="AirRaid", md5="35be55426c1fec32dfb503b4f0651572", rom_size=4096, scheme="4K",
        tv_format="PAL", cart_name="Air Raid (Men-A-Vision)",
        minimal_actions=(A.NOOP, A.FIRE, A.RIGHT, A.LEFT, A.RIGHTFIRE, A.LEFTFIRE), modes=(*range(1, 9),),
        default_mode=1, difficulties=(0,), starting_actions=(A.FIRE,), height=250, legacy_ids=True,
        ram_hint=(0xA7, 0xA8, 0xA9, 0xAA)),
    Game("alien", name="Alien", md5="f1a0a23e6464d954e3a9579c4ccd01c8", rom_size=4096, scheme="4K",
        tv_format="NTSC", cart_name="Alien (1982) (20th Century Fox)", minimal_actions=ALL_ACTIONS,
        modes=(0, 1, 2, 3), default_mode=0, difficulties=(0, 1, 2, 3), legacy_ids=True, ram_hint=(0xC0,)),
    Game("amidar", name="Amidar", md5="acb7750b4d0c4bd34969802a7deb2990", rom_size=4096, scheme="4K",
        tv_format="NTSC", cart_name="Amidar (1983) (Parker Bros)", minimal_actions=(A.NOOP, A.FIRE, A.UP,
            A.RIGHT, A.LEFT, A.DOWN, A.UPFIRE, A.RIGHTFIRE, A.LEFTFIRE, A.DOWNFIRE), modes=(0,),
        default_mode=0, difficulties=(0, 3), power_on_difficulty=("A", "A"), legacy_ids=True,
        ram_hint=(0xD6, 0xD9, 0xDA, 0xDB)),
    Game("assault", name="Assault", md5="de78b3a064d374390ac0710f95edde92", rom_size=4096, scheme="4K",
        tv_format="NTSC", cart_name="Assault (Bomb)",
        minimal_actions=(A.NOOP, A.FIRE, A.UP, A.RIGHT, A.LEFT, A.RIGHTFIRE, A.LEFTFIRE), modes=(0,),
        default_mode=0, difficulties=(0,), legacy_ids=True, ram_hint=(0x80, 0x81, 0x82, 0xE5)),
    Game("asterix", name="Asterix", md5="89a68746eff7f266bbf08de2483abe55", rom_size=8192, scheme="F8",
        tv_format="NTSC", cart_name="Asterix (1988) (Atari) (Prototype) (NTSC)",
        minimal_actions=(A.NOOP, A.UP, A.RIGHT, A.LEFT, A.DOWN, A.UPRIGHT, A.UPLEFT, A.DOWNRIGHT, A.DOWNLEFT),
        modes=(0,), default_mode=0, difficulties=(0,), starting_actions=(A.FIRE,), legacy_ids=True,
        ram_hint=(0xC7, 0xD3, 0xDE, 0xDF, 0xE0)),
    Game("asteroids", name="Asteroids", md5="ccbd36746ed4525821a8083b0d6d2c2c", rom_size=8192, scheme="F8",
        tv_format="NTSC", cart_name="Asteroids [p1]", minimal_actions=(A.NOOP, A.FIRE, A.UP, A.RIGHT, A.LEFT,
            A.DOWN, A.UPRIGHT, A.UPLEFT, A.UPFIRE, A.RIGHTFIRE, A.LEFTFIRE, A.DOWNFIRE, A.UPRIGHTFIRE,
            A.UPLEFTFIRE), modes=(*range(0, 32), 128), default_mode=0, difficulties=(0, 3),
        hmove_blanks=False, legacy_ids=True, ram_hint=(0xBC, 0xBD, 0xBE)),
    Game("atlantis", name="Atlantis", md5="9ad36e699ef6f45d9eb6c4cf90475c9f", rom_size=4096, scheme="4K",
        tv_format="NTSC", cart_name="Atlantis (1982) (Imagic) [!]",
        minimal_actions=(A.NOOP, A.FIRE, A.RIGHTFIRE, A.LEFTFIRE), modes=(0, 1, 2, 3), default_mode=0,
        difficulties=(0,), legacy_ids=True, ram_hint=(0xA1, 0xA2, 0xA3, 0xF1)),
    Game("atlantis2", name="Atlantis2", md5="826481f6fc53ea47c9f272f7050eedf7", rom_size=4096, scheme="4K",
        tv_format="NTSC", cart_name="Atlantis II (1982) (Imagic) [!]",
        minimal_actions=(A.NOOP, A.FIRE, A.RIGHTFIRE, A.LEFTFIRE), modes=(0,), default_mode=0,
        difficulties=(0,), ram_hint=(0xA1, 0xA2, 0xA3, 0xF1)),
    Game("backgammon", name="Backgammon", md5="8556b42aa05f94bc29ff39c39b11bff4", rom_size=4096, scheme="4K",
        tv_format="NTSC", cart_name="Backgammon (1978) (Atari)", minimal_actions=(A.FIRE, A.RIGHT, A.LEFT),
        modes=(0,), default_mode=0, difficulties=(3,), controller="paddles",
        paddles=Paddles(ports=("left",), resistance_max=1000000)),
    Game("bank_heist", name="BankHeist", md5="00ce0bdd43aed84a983bef38fe7f5ee3", rom_size=4096, scheme="4K",
        tv_format="NTSC", cart_name="Bank Heist (1983) (20th Century Fox)", minimal_actions=ALL_ACTIONS,
        modes=(*range(0, 29, 4),), default_mode=0, difficulties=(0, 1, 2, 3), legacy_ids=True,
        ram_hint=(0xCE, 0xD5, 0xD8, 0xD9, 0xDA)),
    Game("basic_math", name="BasicMath", md5="819aeeb9a2e11deb54e6de334f843894", rom_size=2048, scheme="2K",
        tv_format="NTSC", cart_name="Fun with Numbers (1977) (Atari)",
        minimal_actions=(A.NOOP, A.FIRE, A.UP, A.RIGHT, A.LEFT, A.DOWN), modes=(5, 6, 7, 8), default_mode=5,
        difficulties=(0, 2, 3), ram_hint=(0x84, 0x86)),
    Game("battle_zone", name="BattleZone", md5="41f252a66c6301f1e8ab3612c19bc5d4", rom_size=8192, scheme="F8",
        tv_format="NTSC", cart_name="Battlezone (1983) (Atari) [!]", minimal_actions=ALL_ACTIONS,
        modes=(1, 2, 3), default_mode=1, difficulties=(0,), hmove_blanks=False, legacy_ids=True,
        ram_hint=(0x9D, 0x9E, 0xBA)),
    Game("beam_rider", name="BeamRider", md5="79ab4123a83dc11d468fb2108ea09e2e", rom_size=8192, scheme="F8",
        tv_format="NTSC", cart_name="Beamrider (1983) (Activision) [!]",
        minimal_actions=(A.NOOP, A.FIRE, A.UP, A.RIGHT, A.LEFT, A.UPRIGHT, A.UPLEFT, A.RIGHTFIRE, A.LEFTFIRE),
        modes=(0,), default_mode=0, difficulties=(0, 1), starting_actions=(A.RIGHT,), legacy_ids=True,
        ram_hint=(0x85, 0x89, 0x8A, 0x8B, 0x8C)),
    Game("berzerk", name="Berzerk", md5="136f75c4dd02c29283752b7e5799f978", rom_size=4096, scheme="4K",
        tv_format="NTSC", cart_name="Berzerk (1982) (Atari)", minimal_actions=ALL_ACTIONS,
        modes=(*range(1, 10), 16, 17, 18), default_mode=1, difficulties=(0,), legacy_ids=True,
        ram_hint=(0xDA, 0xDD, 0xDE, 0xDF)),
    Game("blackjack", name="Blackjack", md5="0a981c03204ac2b278ba392674682560", rom_size=2048, scheme="2K",
        tv_format="NTSC", cart_name="Blackjack (1977) (Atari) [a1]",
        minimal_actions=(A.NOOP, A.FIRE, A.UP, A.DOWN), modes=(0,), default_mode=0, difficulties=(0, 1, 2, 3),
        controller="paddles", paddles=Paddles(ports=("left",), resistance_max=795000), ram_hint=(0x86, 0x89)),
    Game("bowling", name="Bowling", md5="c9b7afad3bfd922e006a6bfc1d4f3fe7", rom_size=2048, scheme="2K",
        tv_format="NTSC", cart_name="Bowling (1978) (Atari) [!]",
        minimal_actions=(A.NOOP, A.FIRE, A.UP, A.DOWN, A.UPFIRE, A.DOWNFIRE), modes=(0, 2, 4), default_mode=0,
        difficulties=(0, 1), legacy_ids=True, ram_hint=(0xA1, 0xA4, 0xA6)),
    Game("boxing", name="Boxing", md5="c3ef5c4653212088eda54dc91d787870", rom_size=2048, scheme="2K",
        tv_format="NTSC", cart_name="Boxing (1981) (Activision) [!]", minimal_actions=ALL_ACTIONS, modes=(0,),
        default_mode=0, difficulties=(0, 1, 2, 3), legacy_ids=True, ram_hint=(0x90, 0x91, 0x92, 0x93)),
    Game("breakout", name="Breakout", md5="f34f08e5eb96e500e851a80be3277a56", rom_size=2048, scheme="2K",
        tv_format="NTSC", cart_name="Breakout - Breakaway IV (1978) (Atari)",
        minimal_actions=(A.NOOP, A.FIRE, A.RIGHT, A.LEFT), modes=(*range(0, 45, 4),), default_mode=0,
        difficulties=(0, 1), controller="paddles", paddles=Paddles(ports=("left",)), legacy_ids=True,
        ram_hint=(0xB9, 0xCC, 0xCD)),
    Game("carnival", name="Carnival", md5="028024fb8e5e5f18ea586652f9799c96", rom_size=4096, scheme="4K",
        tv_format="NTSC", cart_name="Carnival (1982) (Coleco)",
        minimal_actions=(A.NOOP, A.FIRE, A.RIGHT, A.LEFT, A.RIGHTFIRE, A.LEFTFIRE), modes=(0,),
        default_mode=0, difficulties=(0,), ystart=26, height=214, legacy_ids=True,
        ram_hint=(0x83, 0xAD, 0xAE)),
    Game("casino", name="Casino", md5="b816296311019ab69a21cb9e9e235d12", rom_size=4096, scheme="4K",
        tv_format="NTSC", cart_name="Poker Plus (AKA Casino) (1978) (Sears) [!]",
        minimal_actions=(A.NOOP, A.FIRE, A.UP, A.DOWN), modes=(0, 2, 3), default_mode=0,
        difficulties=(0, 1, 2, 3), starting_actions=_runs((60, A.NOOP), (2, A.FIRE)), controller="paddles",
        paddles=Paddles(ports=("left",)), ram_hint=(0x8C, 0x95, 0x9E, 0xD3, 0xD4)),
    Game("centipede", name="Centipede", md5="91c2098e88a6b13f977af8c003e0bca5", rom_size=8192, scheme="F8",
        tv_format="NTSC", cart_name="Centipede (1982) (Atari) [!]", minimal_actions=ALL_ACTIONS,
        modes=(22, 86), default_mode=22, difficulties=(0,), legacy_ids=True,
        ram_hint=(0xA6, 0xED, 0xF4, 0xF5, 0xF6)),
    Game("chopper_command", name="ChopperCommand", md5="c1cb228470a87beb5f36e90ac745da26", rom_size=4096,
        scheme="4K", tv_format="NTSC", cart_name="Chopper Command (1982) (Activision) [!]",
        minimal_actions=ALL_ACTIONS, modes=(0, 2), default_mode=0, difficulties=(0, 1), legacy_ids=True,
        ram_hint=(0xC2, 0xE4, 0xEC, 0xEE)),
    Game("crazy_climber", name="CrazyClimber", md5="55ef7b65066428367844342ed59f956c", rom_size=8192,
        scheme="F8", tv_format="NTSC", cart_name="Crazy Climber (1983) (Atari)",
        minimal_actions=(A.NOOP, A.UP, A.RIGHT, A.LEFT, A.DOWN, A.UPRIGHT, A.UPLEFT, A.DOWNRIGHT, A.DOWNLEFT),
        modes=(0, 1, 2, 3), default_mode=0, difficulties=(0, 1), legacy_ids=True,
        ram_hint=(0x82, 0x83, 0x84, 0x85, 0xAA)),
    Game("crossbow", name="Crossbow", md5="8cd26dcf249456fe4aeb8db42d49df74", rom_size=16384, scheme="F6",
        tv_format="NTSC", cart_name="Crossbow (1987) (Atari)", minimal_actions=ALL_ACTIONS,
        modes=(0, 2, 4, 6), default_mode=0, difficulties=(0, 1), ram_hint=(0x8B, 0x8C, 0x8D, 0xE7)),
    Game("darkchambers", name="Darkchambers", md5="106855474c69d08c8ffa308d47337269", rom_size=16384,
        scheme="F6SC", tv_format="NTSC", cart_name="Dark Chambers (1988) (Atari)",
        minimal_actions=ALL_ACTIONS, modes=(0,), default_mode=0, difficulties=(0,),
        starting_actions=_runs((486, A.NOOP)), hmove_blanks=False, ram_hint=(0xCA, 0xCC, 0xCF, 0xD5)),
    Game("defender", name="Defender", md5="0f643c34e40e3f1daafd9c524d3ffe64", rom_size=4096, scheme="4K",
        tv_format="NTSC", cart_name="Defender (1981) (Atari)", minimal_actions=ALL_ACTIONS,
        modes=(*range(1, 10), 16), default_mode=1, difficulties=(0, 1), legacy_ids=True, ram_hint=(0xC2,)),
    Game("demon_attack", name="DemonAttack", md5="f0e0addc07971561ab80d9abe1b8d333", rom_size=4096,
        scheme="4K", tv_format="NTSC", cart_name="Demon Attack (1982) (Imagic w-Picture Label) [!]",
        minimal_actions=(A.NOOP, A.FIRE, A.RIGHT, A.LEFT, A.RIGHTFIRE, A.LEFTFIRE), modes=(1, 3, 5, 7),
        default_mode=1, difficulties=(0, 1), legacy_ids=True, ram_hint=(0x81, 0x83, 0x85, 0xF1, 0xF2)),
    Game("donkey_kong", name="DonkeyKong", md5="36b20c427975760cb9cf4a47e41369e4", rom_size=4096, scheme="4K",
        tv_format="NTSC", cart_name="Donkey Kong (198x)", minimal_actions=ALL_ACTIONS, modes=(0,),
        default_mode=0, difficulties=(0,), ram_hint=(0x87, 0x88, 0x8B, 0x8F, 0xA3)),
    Game("double_dunk", name="DoubleDunk", md5="368d88a6c071caba60b4f778615aae94", rom_size=16384,
        scheme="F6", tv_format="NTSC", cart_name="Double Dunk (1989) (Atari)", minimal_actions=ALL_ACTIONS,
        modes=(*range(0, 16),), default_mode=0, difficulties=(0,), starting_actions=(A.UPFIRE,),
        legacy_ids=True, ram_hint=(0xF6, 0xF7, 0xFE)),
    Game("earthworld", name="Earthworld", md5="5aea9974b975a6a844e6df10d2b861c4", rom_size=8192, scheme="F8",
        tv_format="NTSC", cart_name="SwordQuest - Earthworld (1982) (Atari) [!]", minimal_actions=ALL_ACTIONS,
        modes=(0,), default_mode=0, difficulties=(0,), ram_hint=(0xA7,)),
    Game("elevator_action", name="ElevatorAction", md5="71f8bacfbdca019113f3f0801849057e", rom_size=8192,
        scheme="F8SC", tv_format="NTSC", cart_name="Elevator Action (Atari) (Prototype)",
        minimal_actions=ALL_ACTIONS, modes=(0,), default_mode=0, difficulties=(0,),
        starting_actions=_runs((16, A.FIRE)), legacy_ids=True, ram_hint=(0x81, 0x83, 0x87, 0x88, 0x89)),
    Game("enduro", name="Enduro", md5="94b92a882f6dbaa6993a46e2dcc58402", rom_size=4096, scheme="4K",
        tv_format="NTSC", cart_name="Enduro (1983) (Activision) [!]", minimal_actions=(A.NOOP, A.FIRE,
            A.RIGHT, A.LEFT, A.DOWN, A.DOWNRIGHT, A.DOWNLEFT, A.RIGHTFIRE, A.LEFTFIRE), modes=(0,),
        default_mode=0, difficulties=(0,), starting_actions=(A.FIRE,), legacy_ids=True,
        ram_hint=(0xAB, 0xAC, 0xAD, 0xAF, 0xB1)),
    Game("entombed", name="Entombed", md5="6b683be69f92958abe0e2a9945157ad5", rom_size=4096, scheme="4K",
        tv_format="NTSC", cart_name="Entombed (1982) (US Games) [!]", minimal_actions=ALL_ACTIONS, modes=(0,),
        default_mode=0, difficulties=(0, 2), starting_actions=_runs((1, A.FIRE), (5, A.NOOP)),
        ram_hint=(0xC7, 0xE3)),
    Game("et", name="Et", md5="615a3bf251a38eb6638cdc7ffbde5480", rom_size=8192, scheme="F8",
        tv_format="NTSC", cart_name="E.T. The Extra-Terrestrial (1982) (Atari) [!]",
        minimal_actions=ALL_ACTIONS, modes=(0, 1, 2), default_mode=0, difficulties=(0, 1, 2, 3),
        ram_hint=(0x80, 0xD3, 0xD4, 0xDF, 0xE0, 0xE1, 0xE5)),
    Game("fishing_derby", name="FishingDerby", md5="b8865f05676e64f3bec72b9defdacfa7", rom_size=2048,
        scheme="2K", tv_format="NTSC", cart_name="Fishing Derby (1980) (Activision) [!]",
        minimal_actions=ALL_ACTIONS, modes=(0,), default_mode=0, difficulties=(0, 1, 2, 3), legacy_ids=True,
        ram_hint=(0xBD, 0xBE)),
    Game("flag_capture", name="FlagCapture", md5="30512e0e83903fc05541d2f6a6a62654", rom_size=2048,
        scheme="2K", tv_format="NTSC", cart_name="Flag Capture (1978) (Atari)", minimal_actions=ALL_ACTIONS,
        modes=(8, 9, 10), default_mode=8, difficulties=(0,), ram_hint=(0xEA, 0xEB)),
    Game("freeway", name="Freeway", md5="8e0ab801b1705a740b476b7f588c6d16", rom_size=2048, scheme="2K",
        tv_format="NTSC", cart_name="Freeway (1981) (Activision) [!]", minimal_actions=(A.NOOP, A.UP, A.DOWN),
        modes=(*range(0, 8),), default_mode=0, difficulties=(0, 1), legacy_ids=True,
        ram_hint=(0x81, 0x96, 0xE7)),
    Game("frogger", name="Frogger", md5="081e2c114c9c20b61acf25fc95c71bf4", rom_size=4096, scheme="4K",
        tv_format="NTSC", cart_name="Frogger (1982) (Parker Bros)",
        minimal_actions=(A.NOOP, A.UP, A.RIGHT, A.LEFT, A.DOWN), modes=(0, 1, 2), default_mode=0,
        difficulties=(0, 1), ram_hint=(0xCC, 0xCE, 0xD0)),
    Game("frostbite", name="Frostbite", md5="4ca73eb959299471788f0b685c3ba0b5", rom_size=4096, scheme="4K",
        tv_format="NTSC", cart_name="Frostbite (1983) (Activision)", minimal_actions=ALL_ACTIONS,
        modes=(0, 2), default_mode=0, difficulties=(0,), legacy_ids=True,
        ram_hint=(0xC8, 0xC9, 0xCA, 0xCC, 0xF1)),
    Game("galaxian", name="Galaxian", md5="211774f4c5739042618be8ff67351177", rom_size=8192, scheme="F8",
        tv_format="NTSC", cart_name="Galaxian (1983) (Atari) [!]",
        minimal_actions=(A.NOOP, A.FIRE, A.RIGHT, A.LEFT, A.RIGHTFIRE, A.LEFTFIRE), modes=(*range(1, 10),),
        default_mode=1, difficulties=(0, 1), ram_hint=(0xAC, 0xAD, 0xAE, 0xB9, 0xBF)),
    Game("gopher", name="Gopher", md5="c16c79aad6272baffb8aae9a7fff0864", rom_size=4096, scheme="4K",
        tv_format="NTSC", cart_name="Gopher (1982) (US Games)",
        minimal_actions=(A.NOOP, A.FIRE, A.UP, A.RIGHT, A.LEFT, A.UPFIRE, A.RIGHTFIRE, A.LEFTFIRE),
        modes=(0, 2), default_mode=0, difficulties=(0, 1), starting_actions=(A.FIRE,), legacy_ids=True,
        ram_hint=(0xB0, 0xB1, 0xB2, 0xB4)),
    Game("gravitar", name="Gravitar", md5="8ac18076d01a6b63acf6e2cab4968940", rom_size=8192, scheme="F8",
        tv_format="NTSC", cart_name="Gravitar (1988) (Atari) [a1][!]", minimal_actions=ALL_ACTIONS,
        modes=(0, 1, 2, 3, 4), default_mode=0, difficulties=(0,), starting_actions=_runs((16, A.FIRE)),
        legacy_ids=True, ram_hint=(0x81, 0x84, 0x87, 0x88, 0x89)),
    Game("hangman", name="Hangman", md5="f16c709df0a6c52f47ff52b9d95b7d8d", rom_size=4096, scheme="4K",
        tv_format="NTSC", cart_name="Hangman (1978) (Atari) [!]", minimal_actions=ALL_ACTIONS,
        modes=(0, 1, 2, 3), default_mode=0, difficulties=(0, 1), ram_hint=(0xEB, 0xEC, 0xF1)),
    Game("haunted_house", name="HauntedHouse", md5="f0a6e99f5875891246c3dbecbf2d2cea", rom_size=4096,
        scheme="4K", tv_format="NTSC", cart_name="Haunted House (1981) (Atari)", minimal_actions=ALL_ACTIONS,
        modes=(*range(0, 9),), default_mode=0, difficulties=(0, 1), ram_hint=(0x82, 0x96, 0x99)),
    Game("hero", name="Hero", md5="fca4a5be1251927027f2c24774a02160", rom_size=8192, scheme="F8",
        tv_format="NTSC", cart_name="H.E.R.O. (1984) (Activision) [!]", minimal_actions=ALL_ACTIONS,
        modes=(0, 1, 2, 3, 4), default_mode=0, difficulties=(0,), legacy_ids=True,
        ram_hint=(0xB3, 0xB7, 0xB8, 0xB9)),
    Game("human_cannonball", name="HumanCannonball", md5="7972e5101fa548b952d852db24ad6060", rom_size=2048,
        scheme="2K", tv_format="NTSC", cart_name="Human Cannonball (AKA Cannon Man) (1978) (Atari)",
        minimal_actions=ALL_ACTIONS, modes=(*range(0, 8),), default_mode=0, difficulties=(0, 1),
        ram_hint=(0xB6, 0xB7)),
    Game("ice_hockey", name="IceHockey", md5="a4c08c4994eb9d24fb78be1793e82e26", rom_size=4096, scheme="4K",
        tv_format="NTSC", cart_name="Ice Hockey (1981) (Activision) [!]", minimal_actions=ALL_ACTIONS,
        modes=(0, 2), default_mode=0, difficulties=(0, 1, 2, 3), legacy_ids=True,
        ram_hint=(0x86, 0x87, 0x8A, 0x8B)),
    Game("jamesbond", name="Jamesbond", md5="e51030251e440cffaab1ac63438b44ae", rom_size=8192, scheme="E0",
        tv_format="NTSC", cart_name="James Bond 007 (1983) (Parker Bros)", minimal_actions=ALL_ACTIONS,
        modes=(0, 1), default_mode=0, difficulties=(0,), legacy_ids=True,
        ram_hint=(0x86, 0x8C, 0xDC, 0xDD, 0xDE)),
    Game("journey_escape", name="JourneyEscape", md5="718ae62c70af4e5fd8e932fee216948a", rom_size=4096,
        scheme="4K", tv_format="NTSC", cart_name="Journey - Escape (1982) (Data Age) [!]",
        minimal_actions=(A.NOOP, A.UP, A.RIGHT, A.LEFT, A.DOWN, A.UPRIGHT, A.UPLEFT, A.DOWNRIGHT, A.DOWNLEFT,
            A.RIGHTFIRE, A.LEFTFIRE, A.DOWNFIRE, A.UPRIGHTFIRE, A.UPLEFTFIRE, A.DOWNRIGHTFIRE,
            A.DOWNLEFTFIRE), modes=(0,), default_mode=0, difficulties=(0, 1), starting_actions=(A.FIRE,),
        height=230, legacy_ids=True, ram_hint=(0x90, 0x91, 0x92, 0x95, 0x96)),
    Game("kaboom", name="Kaboom", md5="5428cdfada281c569c74c7308c7f2c26", rom_size=2048, scheme="2K",
        tv_format="NTSC", cart_name="Kaboom! (1981) (Activision) [!]",
        minimal_actions=(A.NOOP, A.FIRE, A.RIGHT, A.LEFT), modes=(0,), default_mode=0, difficulties=(0,),
        starting_actions=(A.FIRE,), controller="paddles", paddles=Paddles(ports=("left",)),
        ram_hint=(0xA1, 0xA3, 0xA4, 0xA5)),
    Game("kangaroo", name="Kangaroo", md5="4326edb70ff20d0ee5ba58fa5cb09d60", rom_size=8192, scheme="F8",
        tv_format="NTSC", cart_name="Kangaroo (1983) (Atari)", minimal_actions=ALL_ACTIONS, modes=(0, 1),
        default_mode=0, difficulties=(0,), legacy_ids=True, ram_hint=(0xA7, 0xA8, 0xAD)),
    Game("keystone_kapers", name="KeystoneKapers", md5="6c1f3f2e359dbf55df462ccbcdd2f6bf", rom_size=4096,
        scheme="4K", tv_format="PAL", cart_name="Keystone Kapers (1983) (Activision) (PAL) [!]",
        minimal_actions=(A.NOOP, A.FIRE, A.UP, A.RIGHT, A.LEFT, A.DOWN, A.UPRIGHT, A.UPLEFT, A.DOWNRIGHT,
            A.DOWNLEFT, A.UPFIRE, A.RIGHTFIRE, A.LEFTFIRE, A.DOWNFIRE), modes=(0,), default_mode=0,
        difficulties=(0,), starting_actions=(A.RESET,), height=250, ram_hint=(0x88, 0x96, 0x9B, 0x9C)),
    Game("king_kong", name="KingKong", md5="0dd4c69b5f9a7ae96a7a08329496779a", rom_size=4096, scheme="4K",
        tv_format="PAL", cart_name="King Kong (1982) (Tigervision) (PAL) [!]",
        minimal_actions=(A.NOOP, A.FIRE, A.UP, A.RIGHT, A.LEFT, A.DOWN), modes=(0, 1, 2, 3), default_mode=0,
        difficulties=(0,), height=250, ram_hint=(0x82, 0x83, 0xEE)),
    Game("klax", name="Klax", md5="eed9eaf1a0b6a2b9bc4c8032cb43e3fb", rom_size=16384, scheme="F6SC",
        tv_format="PAL", cart_name="Klax (1990) (Atari) (PAL) [!]", minimal_actions=ALL_ACTIONS,
        modes=(0, 1, 2), default_mode=0, difficulties=(0,), starting_actions=(A.FIRE, A.NOOP), height=250,
        ram_hint=(0xA8, 0xF09D, 0xF0E9, 0xF0EE)),
    Game("koolaid", name="Koolaid", md5="534e23210dd1993c828d944c6ac4d9fb", rom_size=4096, scheme="4K",
        tv_format="NTSC", cart_name="Kool Aid Man (1982) (Mattel)",
        minimal_actions=(A.NOOP, A.UP, A.RIGHT, A.LEFT, A.DOWN, A.UPRIGHT, A.UPLEFT, A.DOWNRIGHT, A.DOWNLEFT),
        modes=(0,), default_mode=0, difficulties=(0,), ram_hint=(0x80, 0x81, 0xD1)),
    Game("krull", name="Krull", md5="4baada22435320d185c95b7dd2bcdb24", rom_size=8192, scheme="F8",
        tv_format="NTSC", cart_name="Krull (1983) (Atari) [!]", minimal_actions=ALL_ACTIONS, modes=(0,),
        default_mode=0, difficulties=(0,), legacy_ids=True, ram_hint=(0x80, 0x9C, 0x9D, 0x9E, 0x9F, 0xA2)),
    Game("kung_fu_master", name="KungFuMaster", md5="5b92a93b23523ff16e2789b820e2a4c5", rom_size=8192,
        scheme="F8", tv_format="NTSC", cart_name="Kung Fu Master (1984) (Activision)",
        minimal_actions=(A.NOOP, A.UP, A.RIGHT, A.LEFT, A.DOWN, A.DOWNRIGHT, A.DOWNLEFT, A.RIGHTFIRE,
            A.LEFTFIRE, A.DOWNFIRE, A.UPRIGHTFIRE, A.UPLEFTFIRE, A.DOWNRIGHTFIRE, A.DOWNLEFTFIRE), modes=(0,),
        default_mode=0, difficulties=(0,), legacy_ids=True, ram_hint=(0x98, 0x99, 0x9A, 0x9D)),
    Game("laser_gates", name="LaserGates", md5="8e4cd60d93fcde8065c1a2b972a26377", rom_size=4096, scheme="4K",
        tv_format="PAL", cart_name="Laser Gates (1983) (Imagic) (PAL) [!]", minimal_actions=ALL_ACTIONS,
        modes=(0,), default_mode=0, difficulties=(0,), starting_actions=(A.RESET,), height=250,
        ram_hint=(0x80, 0x81, 0x82, 0x83)),
    Game("lost_luggage", name="LostLuggage", md5="2d76c5d1aad506442b9e9fb67765e051", rom_size=4096,
        scheme="4K", tv_format="NTSC", cart_name="Lost Luggage (1981) (Apollo) (NTSC) [!]",
        minimal_actions=(A.NOOP, A.UP, A.RIGHT, A.LEFT, A.DOWN, A.UPRIGHT, A.UPLEFT, A.DOWNRIGHT, A.DOWNLEFT),
        modes=(0, 1), default_mode=0, difficulties=(0, 1),
        legal_actions=(A.NOOP, A.UP, A.RIGHT, A.LEFT, A.DOWN, A.UPRIGHT, A.UPLEFT, A.DOWNRIGHT, A.DOWNLEFT),
        starting_actions=(A.FIRE,), ram_hint=(0x94, 0x95, 0x96, 0xA5, 0xA9, 0xC8, 0xCA)),
    Game("mario_bros", name="MarioBros", md5="e908611d99890733be31733a979c62d8", rom_size=8192, scheme="F8",
        tv_format="NTSC", cart_name="Mario Bros (1983) (Atari)", minimal_actions=ALL_ACTIONS,
        modes=(0, 2, 4, 6), default_mode=0, difficulties=(0,),
        starting_actions=_runs((10, A.NOOP), (7, A.FIRE)), ram_hint=(0x87, 0x89, 0x8A)),
    Game("miniature_golf", name="MiniatureGolf", md5="df62a658496ac98a3aa4a6ee5719c251", rom_size=2048,
        scheme="2K", tv_format="NTSC", cart_name="Arcade Golf (1979) (Sears)", minimal_actions=ALL_ACTIONS,
        modes=(0,), default_mode=0, difficulties=(0, 1), ram_hint=(0x87, 0x88, 0xAF)),
    Game("montezuma_revenge", name="MontezumaRevenge", md5="3347a6dd59049b15a38394aa2dafa585", rom_size=8192,
        scheme="E0", tv_format="NTSC",
        cart_name="Montezuma's Revenge - Starring Panama Joe (1983) (Parker Bros)",
        minimal_actions=ALL_ACTIONS, modes=(0,), default_mode=0, difficulties=(0,), legacy_ids=True,
        ram_hint=(0x93, 0x94, 0x95, 0xBA, 0xFE)),
    Game("mr_do", name="MrDo", md5="aa7bb54d2c189a31bb1fa20099e42859", rom_size=8192, scheme="F8",
        tv_format="PAL", cart_name="Mr. Do! (1983) (CBS Electronics) (PAL) [!]", minimal_actions=(A.NOOP,
            A.FIRE, A.UP, A.RIGHT, A.LEFT, A.DOWN, A.UPFIRE, A.RIGHTFIRE, A.LEFTFIRE, A.DOWNFIRE),
        modes=(0, 1, 2, 3), default_mode=0, difficulties=(0,), starting_actions=(A.FIRE,), height=250,
        ram_hint=(0x82, 0x83, 0xDA, 0xDB)),
    Game("ms_pacman", name="MsPacman", md5="87e79cd41ce136fd4f72cc6e2c161bee", rom_size=8192, scheme="F8",
        tv_format="NTSC", cart_name="Ms. Pac-Man (1982) (Atari)",
        minimal_actions=(A.NOOP, A.UP, A.RIGHT, A.LEFT, A.DOWN, A.UPRIGHT, A.UPLEFT, A.DOWNRIGHT, A.DOWNLEFT),
        modes=(0, 1, 2, 3), default_mode=0, difficulties=(0,), hmove_blanks=False, legacy_ids=True,
        ram_hint=(0x94, 0xA7, 0xF8, 0xF9, 0xFA, 0xFB)),
    Game("name_this_game", name="NameThisGame", md5="36306070f0c90a72461551a7a4f3a209", rom_size=4096,
        scheme="4K", tv_format="NTSC", cart_name="Octopus (AKA Name That Game) (Carrere Video) [!]",
        minimal_actions=(A.NOOP, A.FIRE, A.RIGHT, A.LEFT, A.RIGHTFIRE, A.LEFTFIRE), modes=(8, 24, 40),
        default_mode=8, difficulties=(0, 1), legacy_ids=True, ram_hint=(0xC4, 0xC5, 0xC6, 0xC7)),
    Game("othello", name="Othello", md5="113cd09c9771ac278544b7e90efe7df2", rom_size=2048, scheme="2K",
        tv_format="NTSC", cart_name="Othello (1978) (Atari)", minimal_actions=(A.NOOP, A.FIRE, A.UP, A.RIGHT,
            A.LEFT, A.DOWN, A.UPRIGHT, A.UPLEFT, A.DOWNRIGHT, A.DOWNLEFT), modes=(0, 1, 2), default_mode=0,
        difficulties=(0, 2), ram_hint=(0xC0, 0xCE, 0xD0)),
    Game("pacman", name="Pacman", md5="fc2233fc116faef0d3c31541717ca2db", rom_size=4096, scheme="4K",
        tv_format="PAL", cart_name="Pac-Man (Atari) (PAL) [!]",
        minimal_actions=(A.NOOP, A.UP, A.RIGHT, A.LEFT, A.DOWN), modes=(*range(0, 8),), default_mode=0,
        difficulties=(0, 1), height=250, ram_hint=(0x98, 0xCC, 0xCE, 0xD0, 0xE4)),
    Game("phoenix", name="Phoenix", md5="7e52a95074a66640fcfde124fffd491a", rom_size=8192, scheme="F8",
        tv_format="NTSC", cart_name="Phoenix (1982) (Atari)",
        minimal_actions=(A.NOOP, A.FIRE, A.RIGHT, A.LEFT, A.DOWN, A.RIGHTFIRE, A.LEFTFIRE, A.DOWNFIRE),
        modes=(0,), default_mode=0, difficulties=(0,), legacy_ids=True,
        ram_hint=(0xC7, 0xC8, 0xC9, 0xCB, 0xCC)),
    Game("pitfall", name="Pitfall", md5="3e90cf23106f2e08b2781e41299de556", rom_size=4096, scheme="4K",
        tv_format="NTSC", cart_name="Pitfall! (1982) (Activision) [!]", minimal_actions=ALL_ACTIONS,
        modes=(0,), default_mode=0, difficulties=(0,), starting_actions=(A.UP,), legacy_ids=True,
        ram_hint=(0x80, 0x9E, 0xD5, 0xD6, 0xD7)),
    Game("pitfall2", name="Pitfall2", md5="6d842c96d5a01967be9680080dd5be54", rom_size=10495, scheme="DPC",
        tv_format="NTSC", cart_name="Pitfall II - Lost Caverns (1984) (Activision) [b3]",
        minimal_actions=ALL_ACTIONS, modes=(0,), default_mode=0, difficulties=(0,), starting_actions=(A.UP,),
        ram_hint=(0xC7, 0xC8, 0xC9)),
    Game("pong", name="Pong", md5="60e0ea3cbe0913d39803477945e9e5ec", rom_size=2048, scheme="2K",
        tv_format="NTSC", cart_name="Video Olympics (1978) (Atari)",
        minimal_actions=(A.NOOP, A.FIRE, A.RIGHT, A.LEFT, A.RIGHTFIRE, A.LEFTFIRE), modes=(0, 1),
        default_mode=0, difficulties=(0, 1, 2, 3), controller="paddles",
        paddles=Paddles(ports=("left", "right"), swapped=True), legacy_ids=True, ram_hint=(0x8D, 0x8E)),
    Game("pooyan", name="Pooyan", md5="4799a40b6e889370b7ee55c17ba65141", rom_size=4096, scheme="4K",
        tv_format="NTSC", cart_name="Pooyan (1982) (Konami-Gakken)",
        minimal_actions=(A.NOOP, A.FIRE, A.UP, A.DOWN, A.UPFIRE, A.DOWNFIRE), modes=(10, 30, 50, 70),
        default_mode=10, difficulties=(0,), ystart=26, height=220, legacy_ids=True,
        ram_hint=(0x88, 0x89, 0x8A, 0x96, 0x98)),
    Game("private_eye", name="PrivateEye", md5="ef3a4f64b6494ba770862768caf04b86", rom_size=8192, scheme="F8",
        tv_format="NTSC", cart_name="Private Eye (1983) (Activision) [!]", minimal_actions=ALL_ACTIONS,
        modes=(0, 1, 2, 3, 4), default_mode=0, difficulties=(0, 1, 2, 3), starting_actions=(A.UP,),
        legacy_ids=True, ram_hint=(0xC2, 0xC8, 0xC9, 0xCA)),
    Game("qbert", name="Qbert", md5="484b0076816a104875e00467d431c2d2", rom_size=4096, scheme="4K",
        tv_format="NTSC", cart_name="Q-bert (1988) (Atari) [!]",
        minimal_actions=(A.NOOP, A.FIRE, A.UP, A.RIGHT, A.LEFT, A.DOWN), modes=(0,), default_mode=0,
        difficulties=(0, 1), ystart=40, legacy_ids=True, ram_hint=(0x88, 0xD9, 0xDA, 0xDB)),
    Game("riverraid", name="Riverraid", md5="393948436d1f4cc3192410bb918f9724", rom_size=4096, scheme="4K",
        tv_format="NTSC", cart_name="River Raid (1982) (Activision) [a1][!]", minimal_actions=ALL_ACTIONS,
        modes=(0,), default_mode=0, difficulties=(0, 1), legacy_ids=True,
        ram_hint=(0xC0, 0xCD, 0xCF, 0xD1, 0xD3, 0xD5, 0xD7)),
    Game("road_runner", name="RoadRunner", md5="ce5cc62608be2cd3ed8abd844efb8919", rom_size=16384,
        scheme="F6", tv_format="NTSC", cart_name="road_runner", minimal_actions=ALL_ACTIONS, modes=(0,),
        default_mode=0, difficulties=(0,), legacy_ids=True, ram_hint=(0xB9, 0xBD, 0xC4)),
    Game("robotank", name="Robotank", md5="4f618c2429138e0280969193ed6c107e", rom_size=8192, scheme="FE",
        tv_format="NTSC", cart_name="Robot Tank (1983) (Activision) [!]", minimal_actions=ALL_ACTIONS,
        modes=(0,), default_mode=0, difficulties=(0,), legacy_ids=True, ram_hint=(0xA8, 0xB4, 0xB5, 0xB6)),
    Game("seaquest", name="Seaquest", md5="240bfbac5163af4df5ae713985386f92", rom_size=4096, scheme="4K",
        tv_format="NTSC", cart_name="Seaquest (1983) (Activision) [!]", minimal_actions=ALL_ACTIONS,
        modes=(0,), default_mode=0, difficulties=(0, 1), legacy_ids=True,
        ram_hint=(0xA3, 0xB8, 0xB9, 0xBA, 0xBB)),
    Game("sir_lancelot", name="SirLancelot", md5="dd0cbe5351551a538414fb9e37fc56e8", rom_size=8192,
        scheme="F8", tv_format="PAL", cart_name="Sir Lancelot (1983) (Xonox) (PAL) [!]",
        minimal_actions=(A.NOOP, A.FIRE, A.RIGHT, A.LEFT, A.RIGHTFIRE, A.LEFTFIRE), modes=(0,),
        default_mode=0, difficulties=(0,), starting_actions=(A.RESET, A.LEFT), height=250,
        ram_hint=(0x9E, 0x9F, 0xA0, 0xA7, 0xA9)),
    Game("skiing", name="Skiing", md5="b76fbadc8ffb1f83e2ca08b6fb4d6c9f", rom_size=2048, scheme="2K",
        tv_format="NTSC", cart_name="Skiing (1980) (Activision) [!]",
        minimal_actions=(A.NOOP, A.RIGHT, A.LEFT), modes=(0,), default_mode=0, difficulties=(0,),
        legal_actions=(A.NOOP, A.UP, A.RIGHT, A.LEFT, A.DOWN, A.UPRIGHT, A.UPLEFT, A.DOWNRIGHT, A.DOWNLEFT),
        starting_actions=_runs((16, A.DOWN)), legacy_ids=True, ram_hint=(0x91, 0xE8, 0xE9, 0xEA)),
    Game("solaris", name="Solaris", md5="e72eb8d4410152bdcb69e7fba327b420", rom_size=16384, scheme="F6",
        tv_format="NTSC", cart_name="Solaris (1986) (Atari)", minimal_actions=ALL_ACTIONS, modes=(0,),
        default_mode=0, difficulties=(0,), legacy_ids=True, ram_hint=(0xD9, 0xDC, 0xDD, 0xDE)),
    Game("space_invaders", name="SpaceInvaders", md5="72ffbef6504b75e69ee1045af9075f66", rom_size=4096,
        scheme="4K", tv_format="NTSC", cart_name="Space Invaders (1978) (Atari) [!]",
        minimal_actions=(A.NOOP, A.FIRE, A.RIGHT, A.LEFT, A.RIGHTFIRE, A.LEFTFIRE), modes=(*range(0, 16),),
        default_mode=0, difficulties=(0, 1), legacy_ids=True, ram_hint=(0x98, 0xC9, 0xE6, 0xE8)),
    Game("space_war", name="SpaceWar", md5="b702641d698c60bcdc922dbd8c9dd49c", rom_size=2048, scheme="2K",
        tv_format="PAL", cart_name="Space War (32-in-1) (Atari) (PAL) [!]", minimal_actions=ALL_ACTIONS,
        modes=(*range(6, 18),), default_mode=6, difficulties=(0,), height=250, ram_hint=(0x80, 0xA7)),
    Game("star_gunner", name="StarGunner", md5="a3c1c70024d7aabb41381adbfb6d3b25", rom_size=4096, scheme="4K",
        tv_format="NTSC", cart_name="Star Gunner (1982) (Telesys)", minimal_actions=ALL_ACTIONS,
        modes=(0, 1, 2, 3), default_mode=0, difficulties=(0,), legacy_ids=True,
        ram_hint=(0x83, 0x84, 0x85, 0x86, 0x87)),
    Game("superman", name="Superman", md5="a9531c763077464307086ec9a1fd057d", rom_size=4096, scheme="4K",
        tv_format="NTSC", cart_name="Superman (1978) (Atari)", minimal_actions=ALL_ACTIONS, modes=(0,),
        default_mode=0, difficulties=(0, 1, 2, 3), ram_hint=(0x80, 0x81, 0x9F, 0xE2, 0xE3)),
    Game("surround", name="Surround", md5="4d7517ae69f95cfbc053be01312b7dba", rom_size=2048, scheme="2K",
        tv_format="NTSC", cart_name="Surround (1978) (Atari)",
        minimal_actions=(A.NOOP, A.UP, A.RIGHT, A.LEFT, A.DOWN), modes=(0, 2), default_mode=0,
        difficulties=(0, 1, 2, 3), swap_ports=True, ram_hint=(0xF6, 0xF7)),
    Game("tennis", name="Tennis", md5="42cdd6a9e42a3639e190722b8ea3fc51", rom_size=2048, scheme="2K",
        tv_format="NTSC", cart_name="Tennis (1981) (Activision) [!]", minimal_actions=ALL_ACTIONS,
        modes=(0, 2), default_mode=0, difficulties=(0, 1, 2, 3), legacy_ids=True,
        ram_hint=(0xC5, 0xC6, 0xC7, 0xC8)),
    Game("tetris", name="Tetris", md5="b0e1ee07fbc73493eac5651a52f90f00", rom_size=2048, scheme="2K",
        tv_format="NTSC", cart_name="Tetris 2600 (Colin Hughes)",
        minimal_actions=(A.NOOP, A.FIRE, A.RIGHT, A.LEFT, A.DOWN), modes=(0,), default_mode=0,
        difficulties=(0,), ram_hint=(0xF1, 0xF2, 0xF3)),
    Game("tic_tac_toe_3d", name="TicTacToe3D", md5="0db4f4150fecf77e4ce72ca4d04c052f", rom_size=2048,
        scheme="2K", tv_format="NTSC", cart_name="3-D Tic-Tac-Toe (1978) (Atari) [!]",
        minimal_actions=(A.NOOP, A.FIRE, A.UP, A.RIGHT, A.LEFT, A.DOWN, A.UPRIGHT, A.UPLEFT, A.DOWNRIGHT,
            A.DOWNLEFT), modes=(*range(0, 9),), default_mode=0, difficulties=(0, 2),
        ram_hint=(0xE1, 0xFE, 0xFF)),
    Game("time_pilot", name="TimePilot", md5="fc2104dd2dadf9a6176c1c1c8f87ced9", rom_size=8192, scheme="F8",
        tv_format="NTSC", cart_name="Time Pilot (1983) (Coleco)", minimal_actions=(A.NOOP, A.FIRE, A.UP,
            A.RIGHT, A.LEFT, A.DOWN, A.UPFIRE, A.RIGHTFIRE, A.LEFTFIRE, A.DOWNFIRE), modes=(0,),
        default_mode=0, difficulties=(0, 1, 2), legacy_ids=True, ram_hint=(0x80, 0x8B, 0x8D, 0x8F, 0xA0)),
    Game("trondead", name="Trondead", md5="fb27afe896e7c928089307b32e5642ee", rom_size=4096, scheme="4K",
        tv_format="NTSC", cart_name="TRON - Deadly Discs (1983) (Mattel) [!]", minimal_actions=ALL_ACTIONS,
        modes=(0,), default_mode=0, difficulties=(0, 1), ram_hint=(0xBD, 0xBE, 0xBF, 0xC8)),
    Game("turmoil", name="Turmoil", md5="7a5463545dfb2dcfdafa6074b2f2c15e", rom_size=4096, scheme="4K",
        tv_format="NTSC", cart_name="Turmoil (1982) (20th Century Fox) [!]", minimal_actions=(A.NOOP, A.FIRE,
            A.UP, A.RIGHT, A.LEFT, A.DOWN, A.UPRIGHT, A.UPLEFT, A.DOWNRIGHT, A.DOWNLEFT, A.RIGHTFIRE,
            A.LEFTFIRE), modes=(*range(0, 9),), default_mode=0, difficulties=(0,), starting_actions=(A.FIRE,),
        ram_hint=(0x89, 0x8A, 0xB9, 0xC5, 0xD3)),
    Game("tutankham", name="Tutankham", md5="085322bae40d904f53bdcc56df0593fc", rom_size=8192, scheme="E0",
        tv_format="NTSC", cart_name="Tutankham (1983) (Parker Bros)",
        minimal_actions=(A.NOOP, A.UP, A.RIGHT, A.LEFT, A.DOWN, A.UPFIRE, A.RIGHTFIRE, A.LEFTFIRE),
        modes=(0, 4, 8, 12), default_mode=0, difficulties=(0,), legacy_ids=True,
        ram_hint=(0x81, 0x9A, 0x9C, 0x9E)),
    Game("up_n_down", name="UpNDown", md5="a499d720e7ee35c62424de882a3351b6", rom_size=8192, scheme="F8",
        tv_format="NTSC", cart_name="Up 'n Down (1983) (Sega)",
        minimal_actions=(A.NOOP, A.FIRE, A.UP, A.DOWN, A.UPFIRE, A.DOWNFIRE), modes=(0,), default_mode=0,
        difficulties=(0, 1, 2, 3), starting_actions=(A.FIRE,), ystart=30, legacy_ids=True,
        ram_hint=(0x80, 0x81, 0x82, 0x86, 0x94)),
    Game("venture", name="Venture", md5="3e899eba0ca8cd2972da1ae5479b4f0d", rom_size=4096, scheme="4K",
        tv_format="NTSC", cart_name="Venture (1982) (Coleco) [!]", minimal_actions=ALL_ACTIONS, modes=(0,),
        default_mode=0, difficulties=(0, 1, 2, 3), legacy_ids=True, ram_hint=(0xBF, 0xC6, 0xC7, 0xC8, 0xCD)),
    Game("video_checkers", name="VideoCheckers", md5="539d26b6e9df0da8e7465f0f5ad863b7", rom_size=4096,
        scheme="4K", tv_format="NTSC", cart_name="Video Checkers (1978) (Atari)",
        minimal_actions=(A.FIRE, A.UPRIGHT, A.UPLEFT, A.DOWNRIGHT, A.DOWNLEFT),
        modes=(*range(1, 10), *range(11, 20)), default_mode=1, difficulties=(0,)),
    Game("video_chess", name="VideoChess", md5="f0b7db930ca0e548c41a97160b9f6275", rom_size=4096, scheme="4K",
        tv_format="NTSC", cart_name="Video Chess (1978) (Atari)", minimal_actions=(A.NOOP, A.FIRE, A.UP,
            A.RIGHT, A.LEFT, A.DOWN, A.UPRIGHT, A.UPLEFT, A.DOWNRIGHT, A.DOWNLEFT), modes=(0, 1, 2, 3, 4),
        default_mode=0, difficulties=(0,), ram_hint=(0xE1, 0xEE)),
    Game("video_cube", name="VideoCube", md5="3f540a30fdee0b20aed7288e4a5ea528", rom_size=4096, scheme="4K",
        tv_format="NTSC", cart_name="Atari Video Cube (1982) (Atari) [!]", minimal_actions=ALL_ACTIONS,
        modes=(0, 1, 2, 100, 101, 102, 200, 201, 202, 300, 301, 302, 400, 401, 402, 500, 501, 502, 600, 601,
            602, 700, 701, 702, 800, 801, 802, 900, 901, 902, 1000, 1001, 1002, 1100, 1101, 1102, 1200, 1201,
            1202, 1300, 1301, 1302, 1400, 1401, 1402, 1500, 1501, 1502, 1600, 1601, 1602, 1700, 1701, 1702,
            1800, 1801, 1802, 1900, 1901, 1902, 2000, 2001, 2002, 2100, 2101, 2102, 2200, 2201, 2202, 2300,
            2301, 2302, 2400, 2401, 2402, 2500, 2501, 2502, 2600, 2601, 2602, 2700, 2701, 2702, 2800, 2801,
            2802, 2900, 2901, 2902, 3000, 3001, 3002, 3100, 3101, 3102, 3200, 3201, 3202, 3300, 3301, 3302,
            3400, 3401, 3402, 3500, 3501, 3502, 3600, 3601, 3602, 3700, 3701, 3702, 3800, 3801, 3802, 3900,
            3901, 3902, 4000, 4001, 4002, 4100, 4101, 4102, 4200, 4201, 4202, 4300, 4301, 4302, 4400, 4401,
            4402, 4500, 4501, 4502, 4600, 4601, 4602, 4700, 4701, 4702, 4800, 4801, 4802, 4900, 4901, 4902,
            5000, 5001, 5002), default_mode=0, difficulties=(0, 1),
        starting_actions=_runs((61, A.NOOP), (1, A.FIRE), (2, A.NOOP)), ram_hint=(0xDB, 0xDF, 0xE0, 0xE1)),
    Game("video_pinball", name="VideoPinball", md5="107cc025334211e6d29da0b6be46aec7", rom_size=4096,
        scheme="4K", tv_format="NTSC", cart_name="Video Pinball (1980) (Atari) [!]",
        minimal_actions=(A.NOOP, A.FIRE, A.UP, A.RIGHT, A.LEFT, A.DOWN, A.UPFIRE, A.RIGHTFIRE, A.LEFTFIRE),
        modes=(0, 2), default_mode=0, difficulties=(0, 1), legacy_ids=True,
        ram_hint=(0x99, 0xA8, 0xAF, 0xB0, 0xB2, 0xB4)),
    Game("wizard_of_wor", name="WizardOfWor", md5="7e8aa18bc9502eb57daaf5e7c1e94da7", rom_size=4096,
        scheme="4K", tv_format="NTSC", cart_name="Wizard of Wor (1982) (CBS Electronics)",
        minimal_actions=(A.NOOP, A.FIRE, A.UP, A.RIGHT, A.LEFT, A.DOWN, A.UPFIRE, A.RIGHTFIRE, A.LEFTFIRE,
            A.DOWNFIRE), modes=(0,), default_mode=0, difficulties=(0, 1), swap_ports=True, legacy_ids=True,
        ram_hint=(0x86, 0x88, 0x8D, 0xD7, 0xF4)),
    Game("word_zapper", name="WordZapper", md5="ec3beb6d8b5689e867bafb5d5f507491", rom_size=4096, scheme="4K",
        tv_format="NTSC", cart_name="Word Zapper (1982) (US Games) [!]", minimal_actions=ALL_ACTIONS,
        modes=(*range(0, 24),), default_mode=0, difficulties=(0, 1, 2, 3),
        starting_actions=_runs((486, A.NOOP), (1, A.FIRE), (2, A.NOOP)), ram_hint=(0xCF, 0xDC, 0xDE)),
    Game("yars_revenge", name="YarsRevenge", md5="c5930d0e8cdae3e037349bfa08e871be", rom_size=4096,
        scheme="4K", tv_format="NTSC", cart_name="Yar's Revenge (1981) (Atari)", minimal_actions=ALL_ACTIONS,
        modes=(0, 32, 64, 96), default_mode=0, difficulties=(0, 1), starting_actions=(A.FIRE,),
        legacy_ids=True, ram_hint=(0x9E, 0xE0, 0xE1, 0xE2)),
    Game("zaxxon", name="Zaxxon", md5="eea0da9b987d661264cce69a7c13c3bd", rom_size=8192, scheme="F8",
        tv_format="NTSC", cart_name="Zaxxon (1983) (CBS Electronics)", minimal_actions=ALL_ACTIONS,
        modes=(0, 8, 16, 24), default_mode=0, difficulties=(0,), legacy_ids=True,
        ram_hint=(0xE8, 0xE9, 0xEA)),
])

# ale-py ships these for its multi-agent mode only; ALEInterface.loadROM exits on them.
MULTIPLAYER_ONLY: Final[Mapping[str, MultiplayerRom]] = MappingProxyType({
    "combat": MultiplayerRom("combat", md5="0ef64cdbecccb7049752a3de0b7ade14",
        rom_size=2048, scheme="2K"),
    "joust": MultiplayerRom("joust", md5="3276c777cbe97cdd2b4a63ffc16b7151",
        rom_size=8192, scheme="F8"),
    "maze_craze": MultiplayerRom("maze_craze", md5="ed2218b3075d15eaa34e3356025ccca3",
        rom_size=4096, scheme="4K"),
    "warlords": MultiplayerRom("warlords", md5="cbe5a166550a8129a5e6d374901dffad",
        rom_size=4096, scheme="4K"),
})
# END GENERATED

del A

_BY_MD5: Final[Mapping[str, Game]] = MappingProxyType({g.md5: g for g in GAMES.values()})


def _key(name: str) -> str:
    # "Pong", "pong", "SpaceInvaders", "space_invaders" and "Space-Invaders" all name one game.
    return "".join(ch for ch in name.lower() if ch.isalnum())


_BY_KEY: Final[Mapping[str, str]] = MappingProxyType({_key(rom_id): rom_id for rom_id in GAMES})
_MULTI_BY_KEY: Final[Mapping[str, str]] = MappingProxyType({_key(r): r for r in MULTIPLAYER_ONLY})


#: ale-py's Gymnasium ids: "ALE/Pong-v5", "PongNoFrameskip-v4", "Pong-v0"; group 1 is the name.
GYM_ID: Final = re.compile(r"^(?:ALE/)?([A-Za-z0-9]+?)(?:NoFrameskip)?-v\d+$")


def game_names() -> tuple[str, ...]:
    """The rom ids of the 104 supported games, sorted."""
    return tuple(sorted(GAMES))


def settings_for_unknown(md5: str, rom_size: int, scheme: str) -> Game:
    """Console settings for a ROM that is none of ALE's games (`allow_unknown=True`): the 18
    joystick actions, one mode and difficulty, NTSC-style 210 lines from line 34 (PAL is still
    detected), no starting actions. There is no reward, lives or terminal logic for it."""
    return Game(rom_id="unknown", name="Unknown", md5=md5, rom_size=rom_size, scheme=scheme,
                tv_format="NTSC", cart_name="", minimal_actions=ALL_ACTIONS, modes=(0,),
                default_mode=0, difficulties=(0,))


def get_game(name: str) -> Game:
    """Look a game up by ale-py rom id ("space_invaders") or its CamelCase name ("SpaceInvaders").

    Raises MultiplayerRomError for combat/joust/maze_craze/warlords and UnknownGameError, with
    the closest ids, for anything else.
    """
    if not isinstance(name, str):
        raise TypeError(f"game name must be a str, got {type(name).__name__}")
    key = _key(name)
    if key in _BY_KEY:
        return GAMES[_BY_KEY[key]]
    if key in _MULTI_BY_KEY:
        rom_id = _MULTI_BY_KEY[key]
        raise MultiplayerRomError(
            f"{rom_id!r} is one of ale-py's four multi-agent-only ROMs (combat, joust, maze_craze, "
            f"warlords): ALEInterface cannot load it, so it has no single-player reward or terminal "
            f"logic. cule_py supports ALE's {len(GAMES)} single-player games "
            f"(cule_py.games.game_names()).")
    if (gym := GYM_ID.match(name)) and _key(gym.group(1)) in _BY_KEY:
        raise UnknownGameError(
            f"{name!r} is a Gymnasium env id, not a game id; the game is "
            f"{_BY_KEY[_key(gym.group(1))]!r}")
    candidates = {_key(g): g for g in GAMES}
    close = [candidates[c] for c in difflib.get_close_matches(key, candidates, n=5, cutoff=0.6)]
    hint = f" (did you mean {', '.join(repr(c) for c in close)}?)" if close else ""
    raise UnknownGameError(
        f"unknown game {name!r}{hint}. Supported games are ALE's {len(GAMES)} single-player rom ids "
        f"(cule_py.games.game_names()); to run a ROM file, pass its path instead.")


def game_for_md5(md5: str) -> Game | None:
    """The supported game whose ROM has this md5 (lower-case hex), or None."""
    return _BY_MD5.get(md5.lower())
