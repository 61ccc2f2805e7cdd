"""Per-game reward, terminal and lives logic: what ALE's RomSettings compute after every frame.

ALE (ale-py 0.12.1) runs one `RomSettings::step` per emulated frame, reset frames included; it reads
RIOT RAM and updates the reward of that frame, the terminal flag and the lives count. This module is
that logic for the consoles of a batch, written once as plain Python (`register_jitable`) and
compiled into the CPU frame loop and the CUDA kernel alike. The facts (addresses, decodings,
conditions) were settled per game from ALE's behaviour and its RomSettings sources; they are
recorded here as data and in our own words and code.

Device API (all integer, one console at a time, `console` its row; `ram` is (consoles, 128+)
uint8: RIOT RAM, index = CPU address & 0x7F, then a Superchip cartridge's RAM where there is one;
`state` is (consoles, LOGIC_FIELDS) int32):

    logic_reset(game_id, ram, console, state)          RomSettings::reset(): clear score/flags
    logic_set_mode(game_id, mode, ram, console, state) what setMode() changes besides SELECT
    logic_step(game_id, ram, console, state) -> reward RomSettings::step() after one frame
    lives(game_id, console, state)                     RomSettings::lives()
    is_terminal(console, state)                        RomSettings::isTerminal()

Where the console calls them, as ALE does (its StellaEnvironment::emulate): `logic_step` after
*every* emulated frame that ALE follows with RomSettings::step, reset frames included (the 60 NOOP
frames, each soft reset's 4 RESET frames, the one NOOP frame that ends each SELECT press (the
press's own frames run without step), the starting actions); `logic_reset` right after the first
soft reset; `logic_set_mode` once the SELECT presses of the mode selection are done, before the
second soft reset. Rewards of reset frames are dropped, so an episode's first reward is measured
from the score of the last reset frame. While `is_terminal` holds ALE does not emulate (act returns
0), so neither does the console.

Host API: `GAME_ID` (rom id -> game id), `logic_game_id(name)` (refuses a game without logic with
`GameLogicNotImplementedError`), `IMPLEMENTED`.

Two kinds of games:

* table games follow one pattern, described by a row of `_TABLE` (see `_std`): score = BCD digits
  at up to three RAM bytes, times a multiplier; reward = score - previous score, optionally clamped;
  lives = a bit field of one RAM byte plus a constant; terminal = all (or any) of up to four
  conditions on RAM bit fields or on the decoded score.
* coded games have a step function each (`@_coded_step(GAME)`, dispatched on game_id by
  `_step_coded`); their table row still gives the lives rule and the reset values, and their
  extra state fields (X0-X5) are named next to them.

To add a game: a `_std(...)` line if it fits the pattern, else a `_code(...)` line and an
`@_coded_step` function (plus its reset/mode needs in `logic_reset`/`logic_set_mode`); then remove
it from NOT_IMPLEMENTED. tests/test_game_logic.py checks every implemented game against ale-py.

ALE decodes BCD without validating digits: a byte 0xAB reads as 10*0xA + 0xB = 111. Several games'
blanked digits (0xA) and terminal tests depend on that, so `_dec` keeps it exactly.
"""

from __future__ import annotations

import ast

import numpy as np
from numba import cuda, njit
from numba.extending import register_jitable

from ..._jit_cache import CACHE_ENABLED

# --------------------------------------------------------------------------------------------------
# Game ids. Spelled out (not derived from cule_py.games at import) so that the ids compiled into a
# cached kernel change only when this file changes; tests check the set against cule_py.games.

GAME_NAMES = (
    "adventure", "air_raid", "alien", "amidar", "assault", "asterix", "asteroids", "atlantis",
    "atlantis2", "backgammon", "bank_heist", "basic_math", "battle_zone", "beam_rider", "berzerk",
    "blackjack", "bowling", "boxing", "breakout", "carnival", "casino", "centipede",
    "chopper_command", "crazy_climber", "crossbow", "darkchambers", "defender", "demon_attack",
    "donkey_kong", "double_dunk", "earthworld", "elevator_action", "enduro", "entombed", "et",
    "fishing_derby", "flag_capture", "freeway", "frogger", "frostbite", "galaxian", "gopher",
    "gravitar", "hangman", "haunted_house", "hero", "human_cannonball", "ice_hockey", "jamesbond",
    "journey_escape", "kaboom", "kangaroo", "keystone_kapers", "king_kong", "klax", "koolaid",
    "krull", "kung_fu_master", "laser_gates", "lost_luggage", "mario_bros", "miniature_golf",
    "montezuma_revenge", "mr_do", "ms_pacman", "name_this_game", "othello", "pacman", "phoenix",
    "pitfall", "pitfall2", "pong", "pooyan", "private_eye", "qbert", "riverraid", "road_runner",
    "robotank", "seaquest", "sir_lancelot", "skiing", "solaris", "space_invaders", "space_war",
    "star_gunner", "superman", "surround", "tennis", "tetris", "tic_tac_toe_3d", "time_pilot",
    "trondead", "turmoil", "tutankham", "up_n_down", "venture", "video_checkers", "video_chess",
    "video_cube", "video_pinball", "wizard_of_wor", "word_zapper", "yars_revenge", "zaxxon",
)
GAME_ID = {name: i for i, name in enumerate(GAME_NAMES)}
N_GAMES = len(GAME_NAMES)

# --------------------------------------------------------------------------------------------------
# The state row of one console.

REWARD = 0      # reward of the last frame (ALE's m_reward; a few games leave it as it was)
SCORE = 1       # the score last seen (ALE's m_score; per game: score difference, elapsed time...)
LIVES = 2       # the lives count ALE keeps (m_lives); lives() applies the game's rule to it
TERMINAL = 3    # 1 once the game is over (ALE's m_terminal)
X0, X1, X2, X3, X4, X5 = 4, 5, 6, 7, 8, 9   # per-game extra fields, named per game below
LOGIC_FIELDS = 10

# lives() rules
LR_DEFAULT = 0  # terminal ? 0 : 1  (RomSettings' default)
LR_GATED = 1    # terminal ? 0 : LIVES
LR_RAW = 2      # LIVES, even when terminal
LR_ZERO = 3     # always 0
LR_ONE = 4      # always 1

# Table columns.
C_KIND = 0          # 0: no logic yet, 1: table game, 2: coded game
C_LIVES_RULE = 1
C_RESET_LIVES = 2   # LIVES after reset, or KEEP (ALE's reset() leaves m_lives alone)
C_RESET_SCORE = 3
C_SCORE_LO = 4      # BCD score bytes (RAM index), low to high; -1 when absent
C_SCORE_MID = 5
C_SCORE_HI = 6
C_SCORE_MUL = 7
C_REWARD_MIN = 8    # reward clamp
C_REWARD_MAX = 9
C_LIVES_ADDR = 10   # LIVES = ((ram[addr] >> shift) & mask) + add after each frame; -1: not from RAM
C_LIVES_SHIFT = 11
C_LIVES_MASK = 12
C_LIVES_ADD = 13
C_TERM_ANY = 14     # 0: terminal when all conditions hold, 1: when any holds
C_TERM_COUNT = 15
C_COND = 16         # conditions, 5 columns each: source, shift, mask, op, value
COND_COLUMNS = 5
MAX_CONDS = 4
TABLE_COLUMNS = C_COND + COND_COLUMNS * MAX_CONDS

KIND_NONE, KIND_TABLE, KIND_CODE = 0, 1, 2
KEEP = -(2 ** 31)
INT32_MIN, INT32_MAX = -(2 ** 31), 2 ** 31 - 1
SRC_SCORE = -2      # a condition source that is the decoded score, not a RAM byte
OP_EQ, OP_NE, OP_LT, OP_LE, OP_GT, OP_GE = range(6)


# --------------------------------------------------------------------------------------------------
# The table's small description language (host side). Python operator precedence applies: `&`
# and `>>` bind tighter than comparisons, so `byte(0xD3) & 0xF == 1` is (RAM[0xD3] & 0xF) == 1
# (unlike C), and `byte(0xED) >> 4 & 7` is (RAM[0xED] >> 4) & 7.

class _Field:
    """(ram[addr] >> shift) & mask, addr a CPU address 0x80-0xFF (or the decoded score)."""

    def __init__(self, addr, shift=0, mask=0xFF):
        self.addr, self.shift, self.mask = addr, shift, mask

    def __and__(self, mask):
        return _Field(self.addr, self.shift, self.mask & mask)

    def __rshift__(self, n):
        return _Field(self.addr, self.shift + n, self.mask >> n)

    def __add__(self, k):
        return (self, k)

    def _cond(self, op, value):
        return (self, op, value)

    __eq__ = lambda self, v: self._cond(OP_EQ, v)  # noqa: E731
    __ne__ = lambda self, v: self._cond(OP_NE, v)  # noqa: E731
    __lt__ = lambda self, v: self._cond(OP_LT, v)  # noqa: E731
    __le__ = lambda self, v: self._cond(OP_LE, v)  # noqa: E731
    __gt__ = lambda self, v: self._cond(OP_GT, v)  # noqa: E731
    __ge__ = lambda self, v: self._cond(OP_GE, v)  # noqa: E731
    __hash__ = None


def byte(addr):
    if not 0x80 <= addr <= 0xFF:
        raise ValueError(f"RAM address {addr:#x} outside 0x80-0xFF")
    return _Field(addr)


#: The decoded score (after this frame's update), for conditions such as "decoded_score == 10".
decoded_score = _Field(SRC_SCORE, 0, -1)


def all_of(*conds):
    return (0, conds)


def any_of(*conds):
    return (1, conds)


_ROWS: dict[str, list[int]] = {}


def _row(name, kind, lives_rule, reset_lives, reset_score):
    if name in _ROWS:
        raise ValueError(f"{name}: described twice")
    row = [0] * TABLE_COLUMNS
    row[C_KIND], row[C_LIVES_RULE] = kind, lives_rule
    row[C_RESET_LIVES] = KEEP if reset_lives is None else reset_lives
    row[C_RESET_SCORE] = reset_score
    row[C_SCORE_LO] = row[C_SCORE_MID] = row[C_SCORE_HI] = row[C_LIVES_ADDR] = -1
    row[C_REWARD_MIN], row[C_REWARD_MAX] = INT32_MIN, INT32_MAX
    _ROWS[name] = row
    return row


def _std(name, bcd, terminal, mul=1, lives=None, rule=LR_DEFAULT, reset_lives=0, reset_score=0,
         reward_min=INT32_MIN, reward_max=INT32_MAX):
    """A table game. bcd: the score bytes (low first); lives: a field plus a constant, e.g.
    `byte(0xBB) + 1`; terminal: a condition, all_of(...) or any_of(...)."""
    row = _row(name, KIND_TABLE, rule, reset_lives, reset_score)
    for col, addr in zip((C_SCORE_LO, C_SCORE_MID, C_SCORE_HI), bcd):
        row[col] = byte(addr).addr & 0x7F
    row[C_SCORE_MUL], row[C_REWARD_MIN], row[C_REWARD_MAX] = mul, reward_min, reward_max
    if lives is not None:
        field, add = lives if isinstance(lives, tuple) else (lives, 0)
        row[C_LIVES_ADDR], row[C_LIVES_SHIFT], row[C_LIVES_MASK] = (
            field.addr & 0x7F, field.shift, field.mask)
        row[C_LIVES_ADD] = add
    if isinstance(terminal[0], int):
        combine, conds = terminal
    else:
        combine, conds = 0, (terminal,)
    if not 1 <= len(conds) <= MAX_CONDS:
        raise ValueError(f"{name}: 1 to {MAX_CONDS} terminal conditions")
    row[C_TERM_ANY], row[C_TERM_COUNT] = combine, len(conds)
    for i, (field, op, value) in enumerate(conds):
        base = C_COND + COND_COLUMNS * i
        src = SRC_SCORE if field.addr == SRC_SCORE else field.addr & 0x7F
        row[base:base + COND_COLUMNS] = [src, field.shift, field.mask, op, value]


def _code(name, rule, reset_lives=0, reset_score=0):
    """A coded game: its `@_coded_step` function does the work."""
    _row(name, KIND_CODE, rule, reset_lives, reset_score)


# --------------------------------------------------------------------------------------------------
# Table games. Addresses are CPU addresses of RIOT RAM. reset_lives is what ALE's reset() sets.

_std("air_raid", (0xAA, 0xA9, 0xA8), byte(0xA7) == 0xFF)
_std("amidar", (0xD9, 0xDA, 0xDB), byte(0xD6) == 0x80, lives=byte(0xD6) & 0xF, rule=LR_GATED,
     reset_lives=3)
_std("assault", (0x82, 0x81, 0x80), byte(0xE5) == 0, lives=byte(0xE5), rule=LR_GATED, reset_lives=4)
_std("asterix", (0xE0, 0xDF, 0xDE), all_of(byte(0xC7) == 1, byte(0xD3) & 0xF == 1),
     lives=byte(0xD3) & 0xF, rule=LR_GATED, reset_lives=3)
_std("bank_heist", (0xDA, 0xD9, 0xD8), all_of(byte(0xCE) == 1, byte(0xD5) == 0), lives=byte(0xD5),
     rule=LR_GATED, reset_lives=5)
# "terminal when the BCD value at 0x86 is not 0": only the byte 0x00 decodes to 0.
_std("basic_math", (0x84,), byte(0x86) != 0)
_std("berzerk", (0xDF, 0xDE, 0xDD), byte(0xDA) == 0xFF, lives=byte(0xDA) + 1, rule=LR_GATED,
     reset_lives=3)
_std("bowling", (0xA1, 0xA6), byte(0xA4) > 0x10, rule=LR_ZERO)
_std("carnival", (0xAE, 0xAD), byte(0x83) == 0, mul=10, rule=LR_ZERO)   # out of ammunition
_std("centipede", (0xF6, 0xF5, 0xF4), byte(0xA6) & 0x40 != 0, lives=(byte(0xED) >> 4 & 7) + 1,
     rule=LR_GATED, reset_lives=3, reward_min=0)
_std("crossbow", (0x8D, 0x8C, 0x8B), byte(0xE7) == 0x82)
_std("donkey_kong", (0x88, 0x87), all_of(byte(0xA3) == 0, byte(0x8F) == 3, byte(0x8B) == 0x1F),
     mul=100, lives=byte(0xA3), rule=LR_GATED, reset_lives=2)
# A score of 10 is the byte 0x10 or 0x0A (BCD is decoded without validation).
_std("earthworld", (0xA7,), decoded_score == 10)
_std("elevator_action", (0x89, 0x88, 0x87), all_of(byte(0x83) == 0, byte(0x81) != 0),
     lives=byte(0x83), rule=LR_GATED, reset_lives=4)
_std("flag_capture", (0xEA,), byte(0xEB) == 0)
# Freeway: one point per chicken crossing; the reward is clamped to 0..1.
_std("freeway", (0xE7,), byte(0x96) == 1, rule=LR_ZERO, reward_min=0, reward_max=1)
_std("frogger", (0xCE, 0xCC), byte(0xD0) == 0xFF, lives=byte(0xD0), rule=LR_GATED, reset_lives=4)
_std("frostbite", (0xCA, 0xC9, 0xC8), all_of(byte(0xCC) & 0xF == 0, byte(0xF1) & 0x80 != 0),
     lives=(byte(0xCC) & 0xF) + 1, rule=LR_GATED, reset_lives=4)
_std("hero", (0xB9, 0xB8, 0xB7), byte(0xB3) == 0, lives=byte(0xB3), rule=LR_GATED, reset_lives=4)
# Seven hits or seven misses end the game (a BCD value of 7 is only ever the byte 0x07).
_std("human_cannonball", (0xB6,), any_of(decoded_score == 7, byte(0xB7) == 7))
_std("jamesbond", (0xDC, 0xDD, 0xDE), all_of(byte(0x86) & 0xF == 0, byte(0x8C) == 0x68),
     lives=(byte(0x86) & 0xF) + 1, rule=LR_GATED, reset_lives=6)
_std("kangaroo", (0xA8, 0xA7), byte(0xAD) == 0xFF, mul=100, lives=(byte(0xAD) & 7) + 1,
     rule=LR_GATED, reset_lives=3)
_std("keystone_kapers", (0x9C, 0x9B), all_of(byte(0x96) == 0, byte(0x88) == 0), lives=byte(0x96),
     rule=LR_GATED, reset_lives=3)
_std("king_kong", (0x83, 0x82), byte(0xEE) == 0, lives=byte(0xEE), rule=LR_GATED, reset_lives=3)
_std("koolaid", (0x81, 0x80), byte(0xD1) == 0x80, mul=100, rule=LR_ZERO)
_std("krull", (0x9E, 0x9D, 0x9C), all_of(byte(0x9F) == 0, byte(0xA2) == 3, byte(0x80) == 0x80),
     lives=(byte(0x9F) & 7) + 1, rule=LR_GATED, reset_lives=3)
_std("kung_fu_master", (0x9A, 0x99, 0x98), byte(0x9D) == 0xFF, lives=(byte(0x9D) & 7) + 1,
     rule=LR_GATED, reset_lives=4)
_std("laser_gates", (0x82, 0x81, 0x80), byte(0x83) == 0, rule=LR_ZERO)
_std("lost_luggage", (0x96, 0x95, 0x94),
     all_of(byte(0xCA) == 0, byte(0xC8) == 0x0A, byte(0xA5) == 0, byte(0xA9) == 0),
     lives=byte(0xCA), rule=LR_GATED, reset_lives=3)
_std("mario_bros", (0x8A, 0x89), byte(0x87) == 0, mul=100, lives=byte(0x87), rule=LR_GATED,
     reset_lives=0)
_std("montezuma_revenge", (0x95, 0x94, 0x93), all_of(byte(0xBA) == 0, byte(0xFE) == 0x60),
     lives=(byte(0xBA) & 7) + 1, rule=LR_GATED, reset_lives=6)
_std("mr_do", (0x82, 0x83), byte(0xDA) == 0x40, mul=10, lives=byte(0xDB), rule=LR_GATED,
     reset_lives=4)
_std("ms_pacman", (0xF8, 0xF9, 0xFA), all_of(byte(0xFB) & 0xF == 0, byte(0xA7) == 0x53),
     lives=(byte(0xFB) & 7) + 1, rule=LR_GATED, reset_lives=3)
_std("name_this_game", (0xC6, 0xC5, 0xC4), byte(0xC7) & 7 == 0, lives=byte(0xC7) & 7,
     rule=LR_GATED, reset_lives=3)
_std("pacman", (0xCC, 0xCE, 0xD0), all_of(byte(0x98) == 0, byte(0xE4) == 0x3F),
     lives=byte(0x98) + 1, rule=LR_GATED, reset_lives=4)
# Pitfall II: lives() is always 1 until the end; the game ends at the full score, 199000.
_std("pitfall2", (0xC9, 0xC8, 0xC7), decoded_score == 199000, rule=LR_GATED, reset_lives=1,
     reset_score=4000)
_std("pooyan", (0x8A, 0x89, 0x88), all_of(byte(0x96) == 0, byte(0x98) == 5),
     lives=(byte(0x96) & 7) + 1, rule=LR_GATED, reset_lives=3)
# Private Eye: the copyright timer at 0xC2 leaves 0/1 when the clock has run out.
_std("private_eye", (0xCA, 0xC9, 0xC8), all_of(byte(0xC2) != 0, byte(0xC2) != 1), rule=LR_ZERO,
     reset_score=1000)
_std("seaquest", (0xBA, 0xB9, 0xB8), byte(0xA3) != 0, lives=byte(0xBB) + 1, rule=LR_GATED,
     reset_lives=4)
_std("sir_lancelot", (0xA0, 0x9F, 0x9E), all_of(byte(0xA9) == 0, byte(0xA7) == 0xA0),
     lives=byte(0xA9), rule=LR_GATED, reset_lives=3)
_std("solaris", (0xDC, 0xDD, 0xDE), byte(0xD9) == 0, mul=10, lives=byte(0xD9) & 0xF, rule=LR_GATED,
     reset_lives=3)
_std("space_war", (0xA7,), any_of(decoded_score == 10, byte(0x80) == 0))
_std("tutankham", (0x9C, 0x9A), all_of(byte(0x9E) == 0, byte(0x81) != 0x84), lives=byte(0x9E) & 3,
     rule=LR_GATED, reset_lives=3)
_std("up_n_down", (0x82, 0x81, 0x80), all_of(byte(0x94) > 0x40, byte(0x86) & 0xF == 0),
     lives=(byte(0x86) & 0xF) + 1, rule=LR_GATED, reset_lives=5)
_std("venture", (0xC8, 0xC7), all_of(byte(0xC6) == 0, byte(0xCD) == 0xFF, byte(0xBF) & 0x80 != 0),
     mul=100, lives=(byte(0xC6) & 7) + 1, rule=LR_GATED, reset_lives=4)
_std("yars_revenge", (0xE2, 0xE1, 0xE0), byte(0x9E) >> 4 == 0, lives=byte(0x9E) >> 4,
     rule=LR_GATED, reset_lives=4)
_std("zaxxon", (0xE9, 0xE8), byte(0xEA) & 7 == 0, mul=100, lives=byte(0xEA) & 7, rule=LR_GATED,
     reset_lives=5)

# Coded games (lives rule and reset values here, the rest in their @_coded_step function).
_code("adventure", LR_ONE)
_code("alien", LR_RAW, reset_lives=3)
_code("asteroids", LR_GATED, reset_lives=4)
_code("atlantis", LR_GATED, reset_lives=6)
_code("atlantis2", LR_GATED, reset_lives=None)
_code("backgammon", LR_DEFAULT)
_code("battle_zone", LR_GATED, reset_lives=5)
_code("beam_rider", LR_GATED, reset_lives=3)
_code("blackjack", LR_DEFAULT)
_code("boxing", LR_ZERO)
_code("breakout", LR_GATED, reset_lives=5)
_code("casino", LR_DEFAULT)
_code("chopper_command", LR_RAW, reset_lives=3)
_code("crazy_climber", LR_GATED, reset_lives=5)
_code("darkchambers", LR_DEFAULT)
_code("defender", LR_GATED, reset_lives=3)
_code("demon_attack", LR_GATED, reset_lives=4)
_code("double_dunk", LR_ZERO)
_code("enduro", LR_ZERO)
_code("entombed", LR_DEFAULT)
_code("et", LR_GATED, reset_lives=0)
_code("fishing_derby", LR_ZERO)
_code("galaxian", LR_GATED, reset_lives=3)
_code("gopher", LR_GATED, reset_lives=3)
_code("gravitar", LR_GATED, reset_lives=6)
_code("hangman", LR_DEFAULT)
_code("haunted_house", LR_GATED, reset_lives=9)
_code("ice_hockey", LR_ZERO)
_code("journey_escape", LR_ZERO)
_code("kaboom", LR_DEFAULT)
_code("klax", LR_DEFAULT)
_code("miniature_golf", LR_DEFAULT)
_code("othello", LR_DEFAULT)
_code("phoenix", LR_GATED, reset_lives=5)
_code("pitfall", LR_GATED, reset_lives=3, reset_score=2000)
_code("pong", LR_ZERO)
_code("qbert", LR_GATED, reset_lives=4)
_code("riverraid", LR_GATED, reset_lives=4)
_code("road_runner", LR_GATED, reset_lives=3)
_code("robotank", LR_GATED, reset_lives=4)
_code("skiing", LR_ZERO)
_code("space_invaders", LR_GATED, reset_lives=3)
_code("star_gunner", LR_GATED, reset_lives=5)
_code("superman", LR_DEFAULT)
_code("surround", LR_DEFAULT)
_code("tennis", LR_ZERO)
_code("tetris", LR_GATED, reset_lives=0)
_code("tic_tac_toe_3d", LR_DEFAULT)
_code("time_pilot", LR_GATED, reset_lives=5)
_code("trondead", LR_GATED, reset_lives=5)
_code("turmoil", LR_GATED, reset_lives=4)
_code("video_checkers", LR_DEFAULT)
_code("video_chess", LR_GATED, reset_lives=1)
_code("video_cube", LR_DEFAULT)
_code("video_pinball", LR_GATED, reset_lives=3)
_code("wizard_of_wor", LR_GATED, reset_lives=3)
_code("word_zapper", LR_DEFAULT)

#: Games without logic yet, each with the reason (the host refuses them). None at present.
NOT_IMPLEMENTED: dict[str, str] = {}

_unknown = (set(_ROWS) | set(NOT_IMPLEMENTED)) - set(GAME_ID)
assert not _unknown, f"logic for unknown games {_unknown}"
_missing = set(GAME_ID) - set(_ROWS) - set(NOT_IMPLEMENTED)
assert not _missing, f"no logic and no reason given for {_missing}"

_TABLE = np.zeros((N_GAMES, TABLE_COLUMNS), dtype=np.int32)
for _name, _r in _ROWS.items():
    _TABLE[GAME_ID[_name]] = _r
_TABLE.setflags(write=False)
del _name, _r

IMPLEMENTED = frozenset(_ROWS)


class GameLogicNotImplementedError(NotImplementedError):
    """A supported game whose reward/terminal/lives logic cule_py does not have yet."""


def logic_game_id(name: str) -> int:
    """The game id the kernels take for `name` (an ale-py rom id or CamelCase name).

    Raises UnknownGameError (cule_py.games) for a name that is no supported game, and
    GameLogicNotImplementedError for a game whose logic is missing: never a silent reward of 0.
    """
    from ...games import get_game

    rom_id = get_game(name).rom_id
    if rom_id in NOT_IMPLEMENTED:
        raise GameLogicNotImplementedError(
            f"{rom_id!r}: its reward/terminal/lives logic is not implemented in cule_py yet "
            f"({NOT_IMPLEMENTED[rom_id]}). Implemented: {len(IMPLEMENTED)} of {N_GAMES} games "
            f"(cule_py.kernels.ale.game_logic.IMPLEMENTED).")
    return GAME_ID[rom_id]


# Ids of the coded games as module constants, for their @_coded_step functions and the
# reset/mode dispatch below (numba freezes module globals into the compiled code).
ADVENTURE = GAME_ID["adventure"]
ALIEN = GAME_ID["alien"]
ASTEROIDS = GAME_ID["asteroids"]
ATLANTIS = GAME_ID["atlantis"]
ATLANTIS2 = GAME_ID["atlantis2"]
BACKGAMMON = GAME_ID["backgammon"]
BATTLE_ZONE = GAME_ID["battle_zone"]
BEAM_RIDER = GAME_ID["beam_rider"]
BLACKJACK = GAME_ID["blackjack"]
BOXING = GAME_ID["boxing"]
BREAKOUT = GAME_ID["breakout"]
CASINO = GAME_ID["casino"]
CHOPPER_COMMAND = GAME_ID["chopper_command"]
CRAZY_CLIMBER = GAME_ID["crazy_climber"]
DARKCHAMBERS = GAME_ID["darkchambers"]
DEFENDER = GAME_ID["defender"]
DEMON_ATTACK = GAME_ID["demon_attack"]
DOUBLE_DUNK = GAME_ID["double_dunk"]
ENDURO = GAME_ID["enduro"]
ENTOMBED = GAME_ID["entombed"]
ET = GAME_ID["et"]
FISHING_DERBY = GAME_ID["fishing_derby"]
GALAXIAN = GAME_ID["galaxian"]
GOPHER = GAME_ID["gopher"]
GRAVITAR = GAME_ID["gravitar"]
HANGMAN = GAME_ID["hangman"]
HAUNTED_HOUSE = GAME_ID["haunted_house"]
ICE_HOCKEY = GAME_ID["ice_hockey"]
JOURNEY_ESCAPE = GAME_ID["journey_escape"]
KABOOM = GAME_ID["kaboom"]
KLAX = GAME_ID["klax"]
MINIATURE_GOLF = GAME_ID["miniature_golf"]
OTHELLO = GAME_ID["othello"]
PHOENIX = GAME_ID["phoenix"]
PITFALL = GAME_ID["pitfall"]
PONG = GAME_ID["pong"]
QBERT = GAME_ID["qbert"]
RIVERRAID = GAME_ID["riverraid"]
ROAD_RUNNER = GAME_ID["road_runner"]
ROBOTANK = GAME_ID["robotank"]
SKIING = GAME_ID["skiing"]
SPACE_INVADERS = GAME_ID["space_invaders"]
STAR_GUNNER = GAME_ID["star_gunner"]
SUPERMAN = GAME_ID["superman"]
SURROUND = GAME_ID["surround"]
TENNIS = GAME_ID["tennis"]
TETRIS = GAME_ID["tetris"]
TIC_TAC_TOE_3D = GAME_ID["tic_tac_toe_3d"]
TIME_PILOT = GAME_ID["time_pilot"]
TRONDEAD = GAME_ID["trondead"]
TURMOIL = GAME_ID["turmoil"]
VIDEO_CHECKERS = GAME_ID["video_checkers"]
VIDEO_CHESS = GAME_ID["video_chess"]
VIDEO_CUBE = GAME_ID["video_cube"]
VIDEO_PINBALL = GAME_ID["video_pinball"]
WIZARD_OF_WOR = GAME_ID["wizard_of_wor"]
WORD_ZAPPER = GAME_ID["word_zapper"]
assert all(GAME_NAMES[globals()[n.upper()]] == n
           for n, r in _ROWS.items() if r[C_KIND] == KIND_CODE)


# --------------------------------------------------------------------------------------------------
# Device helpers.

@register_jitable
def _b(ram, console, addr):
    """The RAM byte at CPU address `addr` (0x80-0xFF), 0..255."""
    return np.int32(ram[console, addr & 0x7F])


@register_jitable
def _cart(ram, console, addr):
    """A Superchip cartridge RAM byte through its read port (CPU address 0xF080-0xF0FF, as
    ALE peeks it): column 128 + index of the console's `ram` row, after the RIOT's bytes."""
    return np.int32(ram[console, 128 + (addr & 0x7F)])


@register_jitable
def _dec1(ram, console, addr):
    """One BCD byte as ALE decodes it: 10 * high nibble + low nibble (nibbles not validated)."""
    v = _b(ram, console, addr)
    return np.int32(10 * (v >> 4) + (v & 0xF))


@register_jitable
def _dec(ram, console, lo, mid, hi):
    """Up to three BCD bytes, low first (mid/hi < 0 when absent): digit pairs x1, x100, x10000."""
    total = _dec1(ram, console, lo)
    if mid >= 0:
        total += 100 * _dec1(ram, console, mid)
    if hi >= 0:
        total += 10000 * _dec1(ram, console, hi)
    return np.int32(total)


@register_jitable
def _s8(v):
    """The low byte of v as a signed 8-bit number (C's char / int8_t on ALE's platforms)."""
    return np.int32(((v + 128) & 0xFF) - 128)


@register_jitable
def _diff(state, console, new_score):
    """The common reward: score - previous score; the new score becomes the previous one."""
    state[console, REWARD] = new_score - np.int32(state[console, SCORE])
    state[console, SCORE] = new_score


@register_jitable
def _compare(v, op, value):
    if op == OP_EQ:
        return v == value
    if op == OP_NE:
        return v != value
    if op == OP_LT:
        return v < value
    if op == OP_LE:
        return v <= value
    if op == OP_GT:
        return v > value
    return v >= value


# --------------------------------------------------------------------------------------------------
# Table games.

@register_jitable
def _cfg(gid, column):
    """_TABLE[gid, column]. Every read of the table goes through here, with an int32 `gid` and
    an int64 `column` (callers pass `g = np.int32(gid)`), so the CUDA build holds one copy of the
    table in constant memory, not one per function and argument type (numba-cuda copies a global
    array into every compiled function that reads it; five copies overflowed the 64 KB bank)."""
    return np.int32(_TABLE[gid, column])


@register_jitable
def _step_table(gid, ram, console, state):
    g = np.int32(gid)
    new_score = _dec(ram, console, _cfg(g, C_SCORE_LO), _cfg(g, C_SCORE_MID), _cfg(g, C_SCORE_HI)) \
        * np.int32(_cfg(g, C_SCORE_MUL))
    reward = new_score - np.int32(state[console, SCORE])
    reward = max(reward, np.int32(_cfg(g, C_REWARD_MIN)))
    reward = min(reward, np.int32(_cfg(g, C_REWARD_MAX)))
    state[console, REWARD] = reward
    state[console, SCORE] = new_score
    addr = np.int32(_cfg(g, C_LIVES_ADDR))
    if addr >= 0:
        state[console, LIVES] = ((np.int32(ram[console, addr]) >> _cfg(g, C_LIVES_SHIFT))
                             & _cfg(g, C_LIVES_MASK)) + _cfg(g, C_LIVES_ADD)
    any_mode = _cfg(g, C_TERM_ANY) != 0
    terminal = not any_mode
    for i in range(_cfg(g, C_TERM_COUNT)):
        base = C_COND + COND_COLUMNS * i
        src = np.int32(_cfg(g, base))
        if src == SRC_SCORE:
            v = new_score
        else:
            v = np.int32(ram[console, src])
        v = (v >> _cfg(g, base + 1)) & _cfg(g, base + 2)
        hit = _compare(v, _cfg(g, base + 3), np.int32(_cfg(g, base + 4)))
        if any_mode:
            terminal = terminal or hit
        else:
            terminal = terminal and hit
    state[console, TERMINAL] = 1 if terminal else 0


# --------------------------------------------------------------------------------------------------
# Coded games. Each has its own step function, `@_coded_step(GAME)`, which sets REWARD, SCORE,
# LIVES and TERMINAL as ALE's step does for that game (a field it does not assign keeps its value,
# as ALE's member does).
#
# The kernels do not call these functions one by one: `_step_coded`, the dispatch on the game id,
# is generated at import with each game's *body* spliced into one `if gid == GAME: ... elif ...`
# chain (`_spliced_dispatch`), so that numba compiles one function, as when the games were
# sections of one hand-written chain. A call per game would make numba compile 57 more
# functions, whose fixed cost made the console's compile about 1.5x slower (measured with the
# games as separate register_jitable functions, before this layout). The step functions are
# register_jitable too, so each can be called alone from jit code, and plain Python calls them as
# they are (numba's CUDA simulator runs `_step_coded` as Python).
#
# Rules for a step function, checked when the dispatch is built: the parameters are exactly
# (ram, console, state), and no `return` (a body is spliced, so it would return from the dispatch).

_CODED_STEPS: dict[int, object] = {}   # game id -> its step function, in dispatch order


def _coded_step(game_id):
    """Register the decorated function as the step of the coded game `game_id`."""
    def register(step):
        if game_id in _CODED_STEPS:
            raise ValueError(f"game {GAME_NAMES[game_id]}: two step functions")
        _CODED_STEPS[game_id] = step
        return register_jitable(step)
    return register


# Extra fields (X0-X5) of the coded games that keep more than score, lives and terminal.
BREAKOUT_STARTED = X0   # 1 once 0xB9 (balls left) has shown 5
CHOPPER_STARTED = X0    # 1 once 0xC2 bit 0 (chopper faces right) has been seen
DARKCHAMBERS_LEVEL = X0
DEMON_LEVEL_CHANGE = X0  # set by the mode selection: suppresses the end test for one frame
HANGMAN_COMPUTER, HANGMAN_PLAYER, HANGMAN_TIMER0, HANGMAN_TIMER1 = X0, X1, X2, X3
HAUNTED_MATCHES = X0
GOLF_LEVEL, GOLF_PAR, GOLF_HITS, GOLF_LEFT, GOLF_HITS_AT_START = X0, X1, X2, X3, X4
OTHELLO_IDLE = X0       # consecutive frames with 0xC0 == 0
QBERT_LAST = X0         # 0x88 of the previous frame, as a signed byte
RIVERRAID_LIVES_BYTE = X0   # 0xC0 of the previous frame
STAR_GUNNER_STARTED = X0  # 1 once 0x87 has shown 5
TENNIS_POINTS, TENNIS_GAMES = X0, X1    # previous (player - opponent) points and games
TETRIS_STARTED = X0
CHECKERS_REVERSE = X0   # 1 in the "give-away" modes (11-19): losing all pieces wins
CUBE_FACES, CUBE_TIMER0, CUBE_TIMER1 = X0, X1, X2   # complete faces; 0xDB now and a frame ago


@register_jitable
def _alien_digit(ram, console, addr):
    v = _b(ram, console, addr)   # a digit is a font offset (digit * 8); 0x80 is a blank
    return 0 if v == 0x80 else v >> 3


@register_jitable
def _riverraid_digit(ram, console, addr):
    v = _b(ram, console, addr)   # font offsets 0, 8, ..., 72; anything else reads as 0
    return v >> 3 if (v & 7) == 0 and v <= 72 else 0


@register_jitable
def _riverraid_lives(v):
    return 4 if v == 0x58 else (1 if v == 0x59 else v // 8 + 1)


@_coded_step(ADVENTURE)
def _step_adventure(ram, console, state):
    # Reward 1 (kept, not cleared per frame) and the end once the chalice is in the yellow
    # castle (0xB9 == 0x12); the game also ends when the player is eaten (0xE0 == 2).
    chalice_home = _b(ram, console, 0xB9) == 0x12
    if chalice_home:
        state[console, REWARD] = 1
    state[console, TERMINAL] = 1 if (chalice_home or _b(ram, console, 0xE0) == 2) else 0


@_coded_step(ALIEN)
def _step_alien(ram, console, state):
    s = (_alien_digit(ram, console, 0x8B) + 10 * _alien_digit(ram, console, 0x89)
         + 100 * _alien_digit(ram, console, 0x87) + 1000 * _alien_digit(ram, console, 0x85)
         + 10000 * _alien_digit(ram, console, 0x83))
    _diff(state, console, np.int32(10 * s))
    n = _b(ram, console, 0xC0) & 0xF
    state[console, LIVES] = n
    state[console, TERMINAL] = 1 if n == 0 else 0


@_coded_step(ASTEROIDS)
def _step_asteroids(ram, console, state):
    # Score in tens; it wraps at 100000, which the reward adds back.
    _diff(state, console, np.int32(10 * _dec(ram, console, 0xBE, 0xBD, -1)))
    if state[console, REWARD] < 0:
        state[console, REWARD] += 100000
    n = _b(ram, console, 0xBC) >> 4
    state[console, LIVES] = n
    state[console, TERMINAL] = 1 if n == 0 else 0


@_coded_step(ATLANTIS)
def _step_atlantis(ram, console, state):
    # 0xF1 == 0xFF is the end; that frame gives no reward and keeps the old score.
    new_score = np.int32(100 * _dec(ram, console, 0xA2, 0xA3, 0xA1))
    n = _b(ram, console, 0xF1)
    state[console, LIVES] = n
    if n == 0xFF:
        state[console, REWARD] = 0
        state[console, TERMINAL] = 1
    else:
        _diff(state, console, new_score)
        state[console, TERMINAL] = 0


@_coded_step(ATLANTIS2)
def _step_atlantis2(ram, console, state):
    n = _b(ram, console, 0xF1)
    state[console, LIVES] = n
    if n == 0xFF:
        state[console, REWARD] = 0
        state[console, TERMINAL] = 1
    else:
        _diff(state, console, _dec(ram, console, 0xA1, 0xA2, 0xA3))
        state[console, TERMINAL] = 0


@_coded_step(BACKGAMMON)
def _step_backgammon(ram, console, state):
    # Points 0x81-0x8D and 0x8F-0x9B hold signed piece counts (> 0 computer, < 0 player);
    # 0x80 (negated) and 0x8E count the pieces borne off. All sums wrap as int8, as in ALE.
    player_out = _s8(-_s8(_b(ram, console, 0x80)))
    computer_out = _s8(_b(ram, console, 0x8E))
    player_in = 0
    computer_in = 0
    for addr in range(0x81, 0x9C):
        if addr == 0x8E:
            continue
        p = _s8(_b(ram, console, addr))
        if p > 0:
            computer_in = _s8(computer_in + p)
        elif p < 0:
            player_in = _s8(player_in - p)
    if computer_in + computer_out == 15 and player_in + player_out == 15:
        if player_out == 15:
            state[console, TERMINAL] = 1
            state[console, REWARD] = 1
        elif computer_out == 15:
            state[console, TERMINAL] = 1
            state[console, REWARD] = -1


@_coded_step(BATTLE_ZONE)
def _step_battle_zone(ram, console, state):
    # Thousands digits: 0x9D high nibble, 0x9E low and high nibbles; a nibble 0xA is a blank.
    a = _b(ram, console, 0x9D) >> 4
    lo = _b(ram, console, 0x9E) & 0xF
    hi = _b(ram, console, 0x9E) >> 4
    a = 0 if a == 10 else a
    lo = 0 if lo == 10 else lo
    hi = 0 if hi == 10 else hi
    _diff(state, console, np.int32(1000 * (a + 10 * lo + 100 * hi)))
    n = _b(ram, console, 0xBA) & 0xF
    state[console, LIVES] = n
    state[console, TERMINAL] = 1 if n == 0 else 0


@_coded_step(BEAM_RIDER)
def _step_beam_rider(ram, console, state):
    _diff(state, console, _dec(ram, console, 0x89, 0x8A, 0x8B))
    n = _b(ram, console, 0x85) + 1
    # A drop by one counts only once 0x8C == 1 (the death sequence has finished).
    if n != state[console, LIVES] - 1 or _b(ram, console, 0x8C) == 1:
        state[console, LIVES] = n
    state[console, TERMINAL] = 1 if _b(ram, console, 0x85) == 0xFF else 0


@_coded_step(BLACKJACK)
def _step_blackjack(ram, console, state):
    bust = _b(ram, console, 0x86) == 0x0B and _b(ram, console, 0x89) == 0xBB
    s = np.int32(0) if bust else _dec(ram, console, 0x89, 0x86, -1)
    _diff(state, console, s)
    state[console, TERMINAL] = 1 if (bust or s >= 1000) else 0


@_coded_step(BOXING)
def _step_boxing(ram, console, state):
    # Punches landed (BCD) at 0x92 (player) and 0x93; 0xC0 shows a knock-out (100).
    me = _dec1(ram, console, 0x92)
    them = _dec1(ram, console, 0x93)
    if _b(ram, console, 0x92) == 0xC0:
        me = 100
    if _b(ram, console, 0x93) == 0xC0:
        them = 100
    _diff(state, console, np.int32(me - them))
    if me == 100 or them == 100:
        state[console, TERMINAL] = 1
    else:
        minutes = _b(ram, console, 0x90) >> 4
        seconds = _dec1(ram, console, 0x91)
        state[console, TERMINAL] = 1 if (minutes == 0 and seconds == 0) else 0


@_coded_step(BREAKOUT)
def _step_breakout(ram, console, state):
    # Score: 0xCD two BCD digits, 0xCC low nibble the hundreds (its high nibble is ignored).
    x = _b(ram, console, 0xCD)
    y = _b(ram, console, 0xCC)
    _diff(state, console, np.int32((x & 0xF) + 10 * (x >> 4) + 100 * (y & 0xF)))
    balls = _b(ram, console, 0xB9)
    if balls == 5:
        state[console, BREAKOUT_STARTED] = 1
    state[console, TERMINAL] = 1 if (state[console, BREAKOUT_STARTED] != 0 and balls == 0) else 0
    state[console, LIVES] = balls


@_coded_step(CASINO)
def _step_casino(ram, console, state):
    chips = _dec(ram, console, 0x95, 0x8C, -1)
    if _b(ram, console, 0xD4) == 3:
        state[console, REWARD] = chips - state[console, SCORE]
        state[console, TERMINAL] = 1 if (chips > 0 and _b(ram, console, 0x9E) == 0xAA) else 0
    else:
        input_disabled = (_b(ram, console, 0xD3) & 0x80) != 0
        if not input_disabled:   # otherwise the reward of the previous frame stays
            state[console, REWARD] = chips - state[console, SCORE]
        bet = _dec1(ram, console, 0x9E)
        state[console, TERMINAL] = 1 if (chips == 0 or (bet > 0 and input_disabled)) else 0
    state[console, SCORE] = chips


@_coded_step(CHOPPER_COMMAND)
def _step_chopper_command(ram, console, state):
    _diff(state, console, np.int32(100 * _dec(ram, console, 0xEE, 0xEC, -1)))
    n = _b(ram, console, 0xE4) & 0xF
    state[console, LIVES] = n
    state[console, CHOPPER_STARTED] |= _b(ram, console, 0xC2) & 1
    state[console, TERMINAL] = 1 if (n == 0 and state[console, CHOPPER_STARTED] != 0) else 0


@_coded_step(CRAZY_CLIMBER)
def _step_crazy_climber(ram, console, state):
    # Four plain (not BCD) digits 0x82-0x85, in hundreds; a negative reward is dropped.
    s = (_b(ram, console, 0x82) + 10 * _b(ram, console, 0x83) + 100 * _b(ram, console, 0x84)
         + 1000 * _b(ram, console, 0x85))
    _diff(state, console, np.int32(100 * s))
    if state[console, REWARD] < 0:
        state[console, REWARD] = 0
    n = _b(ram, console, 0xAA)
    state[console, LIVES] = n
    state[console, TERMINAL] = 1 if n == 0 else 0


@_coded_step(DARKCHAMBERS)
def _step_darkchambers(ram, console, state):
    # The end is sticky: a lower level, a lower score or no health (0xCA & 0x1F == 0).
    state[console, REWARD] = 0
    level = _b(ram, console, 0xD5)
    if level < state[console, DARKCHAMBERS_LEVEL]:
        state[console, TERMINAL] = 1
    else:
        state[console, DARKCHAMBERS_LEVEL] = level
        s = np.int32(10 * _dec(ram, console, 0xCC, 0xCF, -1))
        if s < state[console, SCORE]:
            state[console, TERMINAL] = 1
        else:
            state[console, REWARD] = s - state[console, SCORE]
            state[console, SCORE] = s
        if (_b(ram, console, 0xCA) & 0x1F) == 0:
            state[console, TERMINAL] = 1


@_coded_step(DEFENDER)
def _step_defender(ram, console, state):
    # Six digits in the low nibbles of 0x9C-0xA1, least significant first; 0xA is a blank.
    s = 0
    mult = 1
    for i in range(6):
        d = _b(ram, console, 0x9C + i) & 0xF
        if d == 0xA:
            d = 0
        s += d * mult
        mult *= 10
    _diff(state, console, np.int32(s))
    n = _b(ram, console, 0xC2)
    state[console, LIVES] = n
    state[console, TERMINAL] = 1 if n == 0 else 0


@_coded_step(DEMON_ATTACK)
def _step_demon_attack(ram, console, state):
    s = _dec(ram, console, 0x85, 0x83, 0x81)
    if (_b(ram, console, 0x81) == 0xAB and _b(ram, console, 0x83) == 0xCD
            and _b(ram, console, 0x85) == 0xEA):
        s = np.int32(0)   # the attract-mode pattern
    _diff(state, console, s)
    shown = _b(ram, console, 0xF2)
    state[console, TERMINAL] = 1 if (shown == 0 and _b(ram, console, 0xF1) == 0xBD
                                 and state[console, DEMON_LEVEL_CHANGE] == 0) else 0
    state[console, LIVES] = shown + 1
    state[console, DEMON_LEVEL_CHANGE] = 0


@_coded_step(DOUBLE_DUNK)
def _step_double_dunk(ram, console, state):
    me = _dec1(ram, console, 0xF6)
    them = _dec1(ram, console, 0xF7)
    _diff(state, console, np.int32(me - them))
    state[console, TERMINAL] = 1 if ((me >= 24 or them >= 24)
                                     and _b(ram, console, 0xFE) == 0xE7) else 0


@_coded_step(ENDURO)
def _step_enduro(ram, console, state):
    # Day 1 needs 200 cars, later days 300; 0xAB/0xAC count the cars still to pass.
    level = _b(ram, console, 0xAD)
    s = 0
    if level != 0:
        cars = _dec(ram, console, 0xAB, 0xAC, -1)
        if level == 1:
            cars = 200 - cars
        else:
            cars = 300 - cars
            s = 200 + (level - 2) * 300
        s += cars
    _diff(state, console, np.int32(s))
    state[console, TERMINAL] = 1 if _b(ram, console, 0xAF) == 0xFF else 0


@_coded_step(ENTOMBED)
def _step_entombed(ram, console, state):
    _diff(state, console, _b(ram, console, 0xE3))   # a plain binary count
    state[console, TERMINAL] = 1 if (_b(ram, console, 0xC7) & 3) == 0 else 0


@_coded_step(ET)
def _step_et(ram, console, state):
    # ALE keeps E.T.'s lives in a (signed) char: 0xE5 + 1 wraps, 0xFF + 1 is 0.
    n = _s8(_b(ram, console, 0xE5) + 1)
    _diff(state, console, _dec(ram, console, 0xE1, 0xE0, 0xDF))
    state[console, LIVES] = n
    state[console, TERMINAL] = 1 if (n == 0 and _b(ram, console, 0x80) == 8) else 0


@_coded_step(FISHING_DERBY)
def _step_fishing_derby(ram, console, state):
    _diff(state, console, _dec1(ram, console, 0xBD) - _dec1(ram, console, 0xBE))
    ended = _b(ram, console, 0xBD) == 0x99 or _b(ram, console, 0xBE) == 0x99   # 99 lbs
    state[console, TERMINAL] = 1 if ended else 0


@_coded_step(GALAXIAN)
def _step_galaxian(ram, console, state):
    s = _dec(ram, console, 0xAE, 0xAD, 0xAC)
    prev = np.int32(state[console, SCORE])
    reward = s - prev
    if reward < 0:          # the score wrapped past 999999
        reward = (1000000 - prev) + s
    state[console, REWARD] = reward
    state[console, SCORE] = s
    if (_b(ram, console, 0xBF) & 0x80) != 0:
        state[console, TERMINAL] = 1
        state[console, LIVES] = 0
    else:
        state[console, TERMINAL] = 0
        state[console, LIVES] = _b(ram, console, 0xB9) + 1


@_coded_step(GOPHER)
def _step_gopher(ram, console, state):
    _diff(state, console, _dec(ram, console, 0xB2, 0xB1, 0xB0))
    carrots = _b(ram, console, 0xB4) & 7   # one bit per carrot left; lives = carrots left
    state[console, TERMINAL] = 1 if carrots == 0 else 0
    state[console, LIVES] = (carrots & 1) + ((carrots >> 1) & 1) + ((carrots >> 2) & 1)


@_coded_step(GRAVITAR)
def _step_gravitar(ram, console, state):
    _diff(state, console, _dec(ram, console, 0x89, 0x88, 0x87))
    screen = _b(ram, console, 0x81)
    state[console, TERMINAL] = 1 if screen == 1 else 0
    state[console, LIVES] = 6 if screen == 0 else _b(ram, console, 0x84) + 1


@_coded_step(HANGMAN)
def _step_hangman(ram, console, state):
    # Every point ends the game (+1 player, -1 computer); so does the timer 0xF1 wrapping to 0.
    computer = _dec1(ram, console, 0xEC)
    player = _dec1(ram, console, 0xEB)
    reward = ((player - state[console, HANGMAN_PLAYER])
              - (computer - state[console, HANGMAN_COMPUTER]))
    state[console, REWARD] = reward
    state[console, HANGMAN_COMPUTER] = computer
    state[console, HANGMAN_PLAYER] = player
    state[console, HANGMAN_TIMER1] = state[console, HANGMAN_TIMER0]
    state[console, HANGMAN_TIMER0] = _b(ram, console, 0xF1)
    timed_out = state[console, HANGMAN_TIMER0] == 0 and state[console, HANGMAN_TIMER1] == 255
    state[console, TERMINAL] = 1 if (reward != 0 or timed_out) else 0


@_coded_step(HAUNTED_HOUSE)
def _step_haunted_house(ram, console, state):
    # -1 per match used (BCD count at 0x82 changes), +100 for escaping with the urn.
    reward = 0
    matches = _dec1(ram, console, 0x82)
    if matches != state[console, HAUNTED_MATCHES]:
        reward -= 1
        state[console, HAUNTED_MATCHES] = matches
    n = _b(ram, console, 0x96)
    state[console, LIVES] = n
    escaped = _b(ram, console, 0x99) == 0x44
    if escaped:
        reward += 100
    state[console, REWARD] = reward
    state[console, TERMINAL] = 1 if (n == 0 or escaped) else 0


@_coded_step(ICE_HOCKEY)
def _step_ice_hockey(ram, console, state):
    diff = _dec1(ram, console, 0x8A) - _dec1(ram, console, 0x8B)
    state[console, REWARD] = min(diff - state[console, SCORE], 1)   # capped at +1 (not at -1)
    state[console, SCORE] = diff
    state[console, TERMINAL] = 1 if (_b(ram, console, 0x87) == 0
                                     and _b(ram, console, 0x86) == 0) else 0


@_coded_step(JOURNEY_ESCAPE)
def _step_journey_escape(ram, console, state):
    s = _dec(ram, console, 0x92, 0x91, 0x90)
    reward = s - state[console, SCORE]
    if reward == 50000:     # the starting cash appearing is no reward
        reward = 0
    state[console, REWARD] = reward
    state[console, SCORE] = s
    state[console, TERMINAL] = 1 if (_b(ram, console, 0x95) == 0
                                     and _b(ram, console, 0x96) == 0) else 0


@_coded_step(KABOOM)
def _step_kaboom(ram, console, state):
    s = _dec(ram, console, 0xA5, 0xA4, 0xA3)
    _diff(state, console, s)
    state[console, TERMINAL] = 1 if (_b(ram, console, 0xA1) == 0 or s == 999999) else 0


@_coded_step(KLAX)
def _step_klax(ram, console, state):
    # Score, misses, the misses allowed and the level live in the F6SC cartridge RAM. The
    # game is over at the last miss allowed, when all 25 bin cells (RIOT 0xB3-0xCB, while
    # 0xA8 == 4: the game is on) hold tiles (the grey fillers 2, 6, 10, 14 of the end-of-
    # level bonus do not count), or at level 0x99.
    lo = _cart(ram, console, 0xF0B4)
    mid = _cart(ram, console, 0xF0B5)
    hi = _cart(ram, console, 0xF0B6)
    s = np.int32(10 * (lo >> 4) + (lo & 0xF) + 100 * (10 * (mid >> 4) + (mid & 0xF))
                 + 10000 * (10 * (hi >> 4) + (hi & 0xF)))
    _diff(state, console, s)
    misses, allowed = _cart(ram, console, 0xF0EE), _cart(ram, console, 0xF0E9)
    tiles = 0
    for i in range(25):
        t = _b(ram, console, 0xB3 + i)
        if t != 0 and t != 2 and t != 6 and t != 10 and t != 14:
            tiles += 1
    full = _b(ram, console, 0xA8) == 4 and tiles == 25
    over = (allowed > 0 and misses == allowed) or full or _cart(ram, console, 0xF09D) == 0x99
    state[console, TERMINAL] = 1 if over else 0


@_coded_step(MINIATURE_GOLF)
def _step_miniature_golf(ram, console, state):
    # 0x87/0x88 show (left, right): (hole, par) between holes, (strokes % 100, 0) while
    # playing; 0xAF is the hole. Finishing a hole rewards par - strokes; hole 0 is the end.
    state[console, REWARD] = 0
    left = _dec1(ram, console, 0x87)
    right = _dec1(ram, console, 0x88)
    level = _dec1(ram, console, 0xAF)
    if level != state[console, GOLF_LEVEL]:
        strokes = (state[console, GOLF_LEFT] + state[console, GOLF_HITS]
                   - state[console, GOLF_HITS_AT_START])
        if strokes > 0:
            state[console, REWARD] = state[console, GOLF_PAR] - strokes
        if level == 0:
            state[console, TERMINAL] = 1
        state[console, GOLF_LEVEL] = level
        state[console, GOLF_HITS] = 0
        state[console, GOLF_HITS_AT_START] = state[console, GOLF_LEFT]
    if right != 0:
        state[console, GOLF_PAR] = right
    else:
        if left < state[console, GOLF_LEFT]:     # the stroke counter wrapped past 99
            state[console, GOLF_HITS] += state[console, GOLF_LEFT]
        state[console, GOLF_LEFT] = left


@_coded_step(OTHELLO)
def _step_othello(ram, console, state):
    _diff(state, console, _dec1(ram, console, 0xCE) - _dec1(ram, console, 0xD0))
    if _b(ram, console, 0xC0) == 0:
        state[console, OTHELLO_IDLE] += 1
    else:
        state[console, OTHELLO_IDLE] = 0
    state[console, TERMINAL] = 1 if state[console, OTHELLO_IDLE] > 50 else 0


@_coded_step(PHOENIX)
def _step_phoenix(ram, console, state):
    s = 10 * _dec(ram, console, 0xC8, 0xC9, -1) + (_b(ram, console, 0xC7) >> 4)
    _diff(state, console, np.int32(10 * s))
    state[console, TERMINAL] = 1 if _b(ram, console, 0xCC) == 0x80 else 0
    state[console, LIVES] = _b(ram, console, 0xCB) & 7


@_coded_step(PITFALL)
def _step_pitfall(ram, console, state):
    _diff(state, console, _dec(ram, console, 0xD7, 0xD6, 0xD5))
    tally = _b(ram, console, 0x80) >> 4      # 0xA, 0x8, 0x0: three, two, one lives left
    state[console, TERMINAL] = 1 if (tally == 0 and _b(ram, console, 0x9E) != 0) else 0
    state[console, LIVES] = 3 if tally == 0xA else (2 if tally == 0x8 else 1)


@_coded_step(PONG)
def _step_pong(ram, console, state):
    cpu = _b(ram, console, 0x8D)
    player = _b(ram, console, 0x8E)
    _diff(state, console, np.int32(player - cpu))
    state[console, TERMINAL] = 1 if (cpu == 21 or player == 21) else 0


@_coded_step(QBERT)
def _step_qbert(ram, console, state):
    v = _b(ram, console, 0x88)
    terminal = v == 0xFE or (v == 0x02 and state[console, QBERT_LAST] == -1)
    signed = _s8(v)
    if state[console, QBERT_LAST] - 1 == signed:
        state[console, LIVES] -= 1
    state[console, QBERT_LAST] = signed
    state[console, TERMINAL] = 1 if terminal else 0
    if terminal:
        state[console, REWARD] = 0
    else:
        _diff(state, console, _dec(ram, console, 0xDB, 0xDA, 0xD9))


@_coded_step(RIVERRAID)
def _step_riverraid(ram, console, state):
    s = (_riverraid_digit(ram, console, 0xD7) + 10 * _riverraid_digit(ram, console, 0xD5)
         + 100 * _riverraid_digit(ram, console, 0xD3) + 1000 * _riverraid_digit(ram, console, 0xD1)
         + 10000 * _riverraid_digit(ram, console, 0xCF)
         + 100000 * _riverraid_digit(ram, console, 0xCD))
    _diff(state, console, np.int32(s))
    v = _b(ram, console, 0xC0)
    state[console, TERMINAL] = 1 if (v == 0x58
                                     and state[console, RIVERRAID_LIVES_BYTE] == 0x59) else 0
    state[console, RIVERRAID_LIVES_BYTE] = v
    state[console, LIVES] = _riverraid_lives(v)


@_coded_step(ROAD_RUNNER)
def _step_road_runner(ram, console, state):
    s = 0
    mult = 1
    for i in range(4):
        d = _b(ram, console, 0xC9 + i) & 0xF
        if d == 0xA:
            d = 0
        s += mult * d
        mult *= 10
    _diff(state, console, np.int32(100 * s))
    n = _b(ram, console, 0xC4) & 7
    state[console, TERMINAL] = 1 if (n == 0 and (_b(ram, console, 0xB9) != 0
                                             or _b(ram, console, 0xBD) != 0)) else 0
    state[console, LIVES] = n + 1


@_coded_step(ROBOTANK)
def _step_robotank(ram, console, state):
    # Kills: 12 per squadron (0xB6) plus tanks (0xB5), plain binary.
    _diff(state, console, np.int32(12 * _b(ram, console, 0xB6) + _b(ram, console, 0xB5)))
    n = _b(ram, console, 0xA8)
    state[console, TERMINAL] = 1 if (n == 0 and _b(ram, console, 0xB4) == 0xFF) else 0
    state[console, LIVES] = (n & 0xF) + 1


@_coded_step(SKIING)
def _step_skiing(ram, console, state):
    # SCORE is the elapsed time in centiseconds; the reward is minus its increase.
    t = 6000 * _b(ram, console, 0xE8) + _dec(ram, console, 0xEA, 0xE9, -1)
    state[console, REWARD] = state[console, SCORE] - t
    state[console, SCORE] = t
    state[console, TERMINAL] = 1 if _b(ram, console, 0x91) == 0xFF else 0


@_coded_step(SPACE_INVADERS)
def _step_space_invaders(ram, console, state):
    s = _dec(ram, console, 0xE8, 0xE6, -1)
    prev = np.int32(state[console, SCORE])
    reward = s - prev
    if reward < 0:          # wrapped past 9999
        reward = (10000 - prev) + s
    state[console, REWARD] = reward
    state[console, SCORE] = s
    n = _b(ram, console, 0xC9)
    state[console, LIVES] = n
    state[console, TERMINAL] = 1 if ((_b(ram, console, 0x98) & 0x80) != 0 or n == 0) else 0


@_coded_step(STAR_GUNNER)
def _step_star_gunner(ram, console, state):
    s = 0
    mult = 1
    for i in range(4):
        d = _b(ram, console, 0x83 + i) & 0xF
        if d == 10:
            d = 0
        s += mult * d
        mult *= 10
    _diff(state, console, np.int32(100 * s))
    v = _b(ram, console, 0x87)
    state[console, TERMINAL] = 1 if v == 0 else 0
    if v == 5:
        state[console, STAR_GUNNER_STARTED] = 1
    state[console, LIVES] = (v & 0xF) if state[console, STAR_GUNNER_STARTED] != 0 else 5


@_coded_step(SUPERMAN)
def _step_superman(ram, console, state):
    # Done when Clark Kent (0x9F bit 6) is back in the room at 0xF2AC; the reward, given once,
    # is 99:59 minus the time taken.
    seconds = _dec1(ram, console, 0xE2)
    minutes = _dec1(ram, console, 0xE3)
    room = _b(ram, console, 0x80) + (_b(ram, console, 0x81) << 8)
    done = (_b(ram, console, 0x9F) & 0x40) != 0 and room == 0xF2AC
    state[console, TERMINAL] = 1 if done else 0
    state[console, REWARD] = (99 * 60 + 59) - (minutes * 60 + seconds) if done else 0


@_coded_step(SURROUND)
def _step_surround(ram, console, state):
    them = _dec1(ram, console, 0xF6)
    me = _dec1(ram, console, 0xF7)
    _diff(state, console, np.int32(me - them))
    state[console, TERMINAL] = 1 if (them == 10 or me == 10) else 0


@_coded_step(TENNIS)
def _step_tennis(ram, console, state):
    # The reward follows the games difference (0xC7 - 0xC8) when it changes, else the points
    # difference (0xC5 - 0xC6); the set ends at 6 games with a lead of 2, or at 7.
    my_points = _b(ram, console, 0xC5)
    their_points = _b(ram, console, 0xC6)
    my_games = _b(ram, console, 0xC7)
    their_games = _b(ram, console, 0xC8)
    d_points = my_points - their_points
    d_games = my_games - their_games
    if state[console, TENNIS_GAMES] != d_games:
        state[console, REWARD] = d_games - state[console, TENNIS_GAMES]
    elif state[console, TENNIS_POINTS] != d_points:
        state[console, REWARD] = d_points - state[console, TENNIS_POINTS]
    else:
        state[console, REWARD] = 0
    state[console, TENNIS_GAMES] = d_games
    state[console, TENNIS_POINTS] = d_points
    state[console, TERMINAL] = 1 if ((my_games >= 6 and d_games >= 2)
                                 or (their_games >= 6 and -d_games >= 2)
                                 or my_games == 7 or their_games == 7) else 0


@_coded_step(TETRIS)
def _step_tetris(ram, console, state):
    s = _dec(ram, console, 0xF1, 0xF2, -1)
    state[console, REWARD] = s - state[console, SCORE] if s > state[console, SCORE] else 0
    state[console, SCORE] = s
    state[console, TETRIS_STARTED] = 1
    if (_b(ram, console, 0xF3) & 0x80) != 0:
        state[console, TERMINAL] = 1
        state[console, SCORE] = 0
        state[console, TETRIS_STARTED] = 0
    else:
        state[console, TERMINAL] = 0


@_coded_step(TIC_TAC_TOE_3D)
def _step_tic_tac_toe_3d(ram, console, state):
    # The game shows its result when the return address on the stack (0xFE/0xFF) is 0xF310;
    # 0xE1 == 8 means the player won. A full board (0x9A-0xD9 all non-zero) also ends it.
    state[console, REWARD] = 0
    if _b(ram, console, 0xFF) == 0xF3 and _b(ram, console, 0xFE) == 0x10:
        state[console, REWARD] = 1 if _b(ram, console, 0xE1) == 0x08 else -1
        state[console, TERMINAL] = 1
    full = True
    for addr in range(0x9A, 0xDA):
        if _b(ram, console, addr) == 0:
            full = False
            break
    if full:
        state[console, TERMINAL] = 1


@_coded_step(TIME_PILOT)
def _step_time_pilot(ram, console, state):
    _diff(state, console, np.int32(100 * _dec(ram, console, 0x8D, 0x8F, -1)))
    state[console, TERMINAL] = 1 if _b(ram, console, 0xA0) != 0 else 0
    if (_b(ram, console, 0x80) & 0xF) == 2:      # lives are read on the playing screen only
        state[console, LIVES] = (_b(ram, console, 0x8B) & 7) + 1


@_coded_step(TRONDEAD)
def _step_trondead(ram, console, state):
    _diff(state, console, _dec(ram, console, 0xBF, 0xBE, 0xBD))
    hits = _b(ram, console, 0xC8)
    state[console, TERMINAL] = 1 if hits == 5 else 0
    state[console, LIVES] = 5 - hits


@_coded_step(TURMOIL)
def _step_turmoil(ram, console, state):
    s = _dec(ram, console, 0x89, 0x8A, -1) + _b(ram, console, 0xD3)
    _diff(state, console, np.int32(10 * s))
    n = _b(ram, console, 0xB9)
    state[console, TERMINAL] = 1 if (n == 0 and _b(ram, console, 0xC5) == 1) else 0
    state[console, LIVES] = n


@_coded_step(VIDEO_CHECKERS)
def _step_video_checkers(ram, console, state):
    black = 0
    white = 0
    for addr in range(0x80, 0xA3):
        if addr == 0x88 or addr == 0x91 or addr == 0x9A:
            continue
        v = _b(ram, console, addr)
        if v == 0x10 or v == 0x20:
            black += 1
        elif v == 0x90 or v == 0xA0:
            white += 1
    reverse = state[console, CHECKERS_REVERSE] != 0
    if black == 0:
        state[console, REWARD] = 1 if reverse else -1
        state[console, TERMINAL] = 1
    elif white == 0:
        state[console, REWARD] = -1 if reverse else 1
        state[console, TERMINAL] = 1


@_coded_step(VIDEO_CHESS)
def _step_video_chess(ram, console, state):
    state[console, REWARD] = 0
    if _b(ram, console, 0xE1) == 0x82:           # white to move
        mate = _b(ram, console, 0xEE)
        if mate == 0x00:
            state[console, REWARD] = 1
            state[console, TERMINAL] = 1
        elif mate == 0x01:
            state[console, REWARD] = -1
            state[console, TERMINAL] = 1


@_coded_step(VIDEO_CUBE)
def _step_video_cube(ram, console, state):
    # Six faces of nine blocks from 0xA0; a face is complete when its blocks all match.
    complete = 0
    for face in range(6):
        base = 0xA0 + 9 * face
        first = _b(ram, console, base)
        match = True
        for k in range(1, 9):
            if _b(ram, console, base + k) != first:
                match = False
                break
        if match:
            complete += 1
    state[console, CUBE_TIMER1] = state[console, CUBE_TIMER0]
    state[console, CUBE_TIMER0] = _b(ram, console, 0xDB)
    timed_out = state[console, CUBE_TIMER0] == 0 and state[console, CUBE_TIMER1] == 255
    state[console, REWARD] = -1 if timed_out else complete - state[console, CUBE_FACES]
    state[console, CUBE_FACES] = complete
    state[console, TERMINAL] = 1 if (timed_out or complete == 6) else 0


@_coded_step(VIDEO_PINBALL)
def _step_video_pinball(ram, console, state):
    _diff(state, console, _dec(ram, console, 0xB0, 0xB2, 0xB4))
    state[console, TERMINAL] = 1 if (_b(ram, console, 0xAF) & 1) != 0 else 0
    state[console, LIVES] = 4 + (_b(ram, console, 0xA8) & 1) - (_b(ram, console, 0x99) & 7)


@_coded_step(WIZARD_OF_WOR)
def _step_wizard_of_wor(ram, console, state):
    s = _dec(ram, console, 0x86, 0x88, -1)
    if s >= 8000:
        s -= 8000
    _diff(state, console, np.int32(100 * s))
    n = _b(ram, console, 0x8D) & 0xF
    state[console, TERMINAL] = 1 if (n == 0 and _b(ram, console, 0xF4) == 0xF8) else 0
    if (_b(ram, console, 0xD7) & 1) == 0:        # lives are read while waiting to enter only
        state[console, LIVES] = n


@_coded_step(WORD_ZAPPER)
def _step_word_zapper(ram, console, state):
    # Nothing changes while the clock at 0xCF reads 0; then score = 2 - (signed) 0xDC.
    if _dec1(ram, console, 0xCF) > 0:
        s = 2 - _s8(_b(ram, console, 0xDC))
        _diff(state, console, np.int32(s))
        state[console, TERMINAL] = 1 if (s == 3 or _dec1(ram, console, 0xDE) == 0) else 0


def _spliced_dispatch(steps):
    """`_step_coded(gid, ram, console, state)`: for each registered game, `if gid == <id>:` followed
    by its step function's body, taken from this file's syntax tree (so the line numbers of
    tracebacks and numba's messages are the step functions' own)."""
    path = __file__
    with open(path, encoding="utf-8") as source:
        tree = ast.parse(source.read(), path)
    defs = {node.name: node for node in tree.body if isinstance(node, ast.FunctionDef)}
    chain: list = []
    for game_id, step in reversed(list(steps.items())):
        node = defs[step.__name__]
        params = [a.arg for a in node.args.args]
        if params != ["ram", "console", "state"] or any(
                isinstance(n, ast.Return) for n in ast.walk(node)):
            raise ValueError(f"{step.__name__}: a coded step takes (ram, console, state) and does "
                             f"not return")
        test = ast.Compare(left=ast.Name("gid", ast.Load()), ops=[ast.Eq()],
                           comparators=[ast.Name(GAME_NAMES[game_id].upper(), ast.Load())])
        chain = [ast.copy_location(ast.If(test=test, body=node.body, orelse=chain), node)]
    module = ast.parse("def _step_coded(gid, ram, console, state):\n    pass\n", path)
    module.body[0].body = chain
    ast.fix_missing_locations(module)
    namespace = {}
    exec(compile(module, path, "exec"), globals(), namespace)
    return namespace["_step_coded"]


assert set(_CODED_STEPS) == {GAME_ID[n] for n, r in _ROWS.items() if r[C_KIND] == KIND_CODE}, \
    "every coded game needs one @_coded_step function"
_step_coded = register_jitable(_spliced_dispatch(_CODED_STEPS))


# --------------------------------------------------------------------------------------------------
# The API.

@register_jitable
def logic_step(game_id, ram, console, state):
    """One frame of the game's RomSettings::step; returns the frame's reward."""
    gid = game_id
    g = np.int32(gid)
    kind = _cfg(g, C_KIND)
    if kind == KIND_TABLE:
        _step_table(gid, ram, console, state)
    elif kind == KIND_CODE:
        _step_coded(gid, ram, console, state)
    # A game without logic never gets here: the host refuses it (logic_game_id).
    return np.int32(state[console, REWARD])


@register_jitable
def logic_reset(game_id, ram, console, state):
    """RomSettings::reset(): the score, flags and counters an episode starts from.

    Fields ALE's reset() leaves alone stay as they are (Atlantis II's lives, Video Cube's timer
    history, Video Checkers' mode flag).
    """
    gid = game_id
    g = np.int32(gid)
    state[console, REWARD] = 0
    state[console, TERMINAL] = 0
    state[console, SCORE] = _cfg(g, C_RESET_SCORE)
    if _cfg(g, C_RESET_LIVES) != KEEP:
        state[console, LIVES] = _cfg(g, C_RESET_LIVES)
    if gid == VIDEO_CUBE:
        state[console, CUBE_FACES] = 0
    elif gid == VIDEO_CHECKERS:
        pass
    elif gid == RIVERRAID:
        state[console, RIVERRAID_LIVES_BYTE] = 0x58
    elif gid == QBERT:
        state[console, QBERT_LAST] = 2
    elif gid == HANGMAN:
        state[console, HANGMAN_COMPUTER] = 0
        state[console, HANGMAN_PLAYER] = 0
        state[console, HANGMAN_TIMER0] = -1
        state[console, HANGMAN_TIMER1] = -1
    else:
        for f in range(X0, LOGIC_FIELDS):
            state[console, f] = 0


@register_jitable
def logic_set_mode(game_id, mode, ram, console, state):
    """What ALE's setMode changes in the RomSettings besides pressing SELECT (it runs after
    reset() at every reset, with the current mode, once the SELECT presses are done)."""
    gid = game_id
    if gid == DEMON_ATTACK:
        state[console, DEMON_LEVEL_CHANGE] = 1
    elif gid == VIDEO_CHECKERS:
        state[console, CHECKERS_REVERSE] = 1 if mode >= 11 else 0
    elif gid == ALIEN:
        state[console, LIVES] = _b(ram, console, 0xC0) & 0xF
    elif gid == GRAVITAR:
        if mode == 1:
            state[console, LIVES] = 15
        elif mode == 3:
            state[console, LIVES] = 100
        elif mode == 4:
            state[console, LIVES] = 25
        else:
            state[console, LIVES] = 6


@register_jitable
def is_terminal(console, state):
    return state[console, TERMINAL] != 0


@register_jitable
def lives(game_id, console, state):
    """RomSettings::lives()."""
    g = np.int32(game_id)
    rule = _cfg(g, C_LIVES_RULE)
    terminal = state[console, TERMINAL] != 0
    if rule == LR_GATED:
        return np.int32(0) if terminal else np.int32(state[console, LIVES])
    if rule == LR_RAW:
        return np.int32(state[console, LIVES])
    if rule == LR_ZERO:
        return np.int32(0)
    if rule == LR_ONE:
        return np.int32(1)
    return np.int32(0) if terminal else np.int32(1)


# --------------------------------------------------------------------------------------------------
# Entry points: run a recorded RAM trace through the logic, ALE style (host checks and tools).

TRACE_STEP, TRACE_RESET = 0, 1


@register_jitable
def _replay_entry(game_id, mode, reset_steps, ram, state, event):
    """One trace entry for console 0: (reward, lives, terminal) as ALE reports them after it."""
    reward = np.int32(0)
    if event == TRACE_RESET:
        # The end of ALE's reset sequence: reset(), setMode(), then step() once per frame after
        # the clear (4 soft reset frames, the starting actions). The trace holds only the RAM of
        # the last of those frames, so it stands in for all of them (the rewards are dropped).
        logic_reset(game_id, ram, 0, state)
        logic_set_mode(game_id, mode, ram, 0, state)
        for _ in range(max(reset_steps, 1)):
            logic_step(game_id, ram, 0, state)
    elif not is_terminal(0, state):       # ALE does not emulate past the end
        reward = logic_step(game_id, ram, 0, state)
    return reward, lives(game_id, 0, state), np.int32(1 if is_terminal(0, state) else 0)


@njit(cache=CACHE_ENABLED)
def replay_trace_cpu(game_id, mode, reset_steps, rams, events, rewards, lives_out, terminal_out):
    """Feed a trace of RAM snapshots (one per frame ALE emulated, (frames, 128) uint8, or
    (frames, 256) with a Superchip cartridge's RAM after the RIOT's) through
    the logic of one console. events[i] is TRACE_STEP (frame i followed an act) or TRACE_RESET
    (the RAM after reset_game(), which made `reset_steps` step() calls after its reset()).
    Writes the reward, lives() and terminal flag after each entry."""
    # Room for a Superchip's RAM after the RIOT's (klax's logic reads it): a trace without it
    # (128 columns) leaves those bytes 0.
    width = rams.shape[1]
    ram = np.zeros((1, max(width, 256)), dtype=np.uint8)
    state = np.zeros((1, LOGIC_FIELDS), dtype=np.int32)
    for i in range(rams.shape[0]):
        ram[0, :width] = rams[i, :]
        rewards[i], lives_out[i], terminal_out[i] = _replay_entry(
            game_id, mode, reset_steps, ram, state, events[i])


def reset_steps(game) -> int:
    """How many RomSettings::step calls ALE's reset makes after its reset(), at the default mode
    when no SELECT press is needed: the 4 soft reset frames and one per starting action."""
    return 4 + len(game.starting_actions)


@cuda.jit
def logic_step_cuda(game_id, ram, state, rewards):
    """logic_step for every console of a batch, one thread per console (the console's frame
    kernel calls logic_step itself; this entry point lets tests compile the logic to PTX)."""
    console = cuda.grid(1)
    if console < ram.shape[0]:
        rewards[console] = logic_step(game_id, ram, console, state)
