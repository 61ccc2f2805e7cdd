"""ale-py as the oracle for ROM identity and game metadata: one loadROM per ROM, cached per run.

Independent of tools/survey_games.py on purpose: the table in cule_py/games.py is written by that
tool, and these tests must not take its word for anything. Both load through
cule_py.testing.ale_twin_with_log; what they read from ALE's log and state is parsed here alone.
(The ALE twins the frame-by-frame comparisons use are cule_py.testing.ale_twin and ale_twins.)
"""

from __future__ import annotations

import functools
import re
import shutil
import struct
import tempfile
from dataclasses import dataclass
from pathlib import Path

import ale_py
from ale_py import roms

from cule_py.testing import ale_twin_with_log

# ALEInterface.loadROM calls exit(1) on these; isSupportedROM (which does not) confirms it.
MULTIPLAYER = frozenset({"combat", "joust", "maze_craze", "warlords"})


@dataclass(frozen=True)
class AleView:
    """What ale-py shows about one ROM right after loadROM (and one RIGHT frame)."""

    rom_id: str
    path: Path
    md5: str                  # Stella's, from the log
    size: int
    scheme: str               # "Bankswitch Type: AUTO-DETECT ==> X"
    tv_format: str            # "Display Format: AUTO-DETECT ==> X"
    cart_name: str
    loadable: bool            # False: multi-agent only, loaded as tetris.bin for the log alone
    minimal: tuple[int, ...] = ()
    legal: tuple[int, ...] = ()
    modes: tuple[int, ...] = ()
    difficulties: tuple[int, ...] = ()
    default_mode: int = -1
    default_difficulty: int = -1
    screen: tuple[int, int] = (0, 0)
    paddle_start: int = 0     # serialized left paddle resistance after loadROM
    paddle_step: int = 0      # its change after one RIGHT frame (0 unless a paddle game)
    paddle_limits: tuple[int, int] = (0, 0)


def _log_field(log: str, pattern: str) -> str:
    match = re.search(pattern, log)
    assert match, f"no {pattern!r} in ALE's log:\n{log}"
    return match.group(1).strip()


def _paddle_state(ale: ale_py.ALEInterface) -> tuple[int, int, int]:
    # ALEState.serialize(): int left paddle, int right paddle, 4 ints, string (int length +
    # bytes) system state, int paddle min, int paddle max.
    blob = ale.cloneState().serialize()
    left = struct.unpack_from("<i", blob, 0)[0]
    length = struct.unpack_from("<i", blob, 24)[0]
    low, high = struct.unpack_from("<ii", blob, 28 + length)
    return left, low, high


def view(rom_id: str, path: Path, loadable: bool) -> AleView:
    if not loadable:
        # Under Tetris's file name ALE wraps the ROM with Tetris's settings (md5 mismatch
        # warning) instead of exiting; the log still names the scheme it detected.
        with tempfile.TemporaryDirectory() as folder:
            alias = Path(folder) / "tetris.bin"
            shutil.copyfile(path, alias)
            _, log = ale_twin_with_log(alias)
    else:
        ale, log = ale_twin_with_log(path)
    common = dict(
        rom_id=rom_id, path=path, loadable=loadable,
        md5=_log_field(log, r"Cart MD5:\s*(\w+)"), size=int(_log_field(log, r"ROM Size:\s*(\d+)")),
        scheme=_log_field(log, r"Bankswitch Type:\s*AUTO-DETECT ==> (.+)"),
        tv_format=_log_field(log, r"Display Format:\s*(?:AUTO-DETECT ==> )?(\w+)"),
        cart_name=_log_field(log, r"Cart Name:\s*(.*)"))
    if not loadable:
        return AleView(**common)
    state = ale.cloneState()
    start, low, high = _paddle_state(ale)
    ale.act(ale_py.Action.RIGHT)
    return AleView(
        **common,
        minimal=tuple(a.value for a in ale.getMinimalActionSet()),
        legal=tuple(a.value for a in ale.getLegalActionSet()),
        modes=tuple(ale.getAvailableModes()), difficulties=tuple(ale.getAvailableDifficulties()),
        default_mode=state.getCurrentMode(), default_difficulty=state.getDifficulty(),
        screen=tuple(ale.getScreen().shape), paddle_start=start,
        paddle_step=_paddle_state(ale)[0] - start, paddle_limits=(low, high))


@functools.cache
def survey() -> dict[str, AleView]:
    """Every ROM ale-py ships, by rom id (about 11 s on one core: one loadROM each)."""
    probe = ale_py.ALEInterface()
    out = {}
    for rom_id in sorted(roms.get_all_rom_ids()):
        path = roms.get_rom_path(rom_id)
        loadable = probe.isSupportedROM(str(path)) is not None
        out[rom_id] = view(rom_id, path, loadable)
    return out
