"""ale-py as the oracle for ROM identity and game metadata: one loadROM per ROM, cached per run.

Independent of tools/survey_games.py on purpose: the table in cule_py/games.py is written by that
tool, and these tests must not take its word for anything.
"""

from __future__ import annotations

import functools
import os
import re
import shutil
import struct
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import ale_py
from ale_py import roms

def make_ale(path, seed: int, sticky: float = 0.0, max_frames: int = 0, mode=None,
             difficulty=None) -> ale_py.ALEInterface:
    """An ALEInterface as the comparisons use it: quiet, random_seed `seed`, the sticky
    probability and frame budget set before loadROM, then setMode / setDifficulty if given."""
    ale = ale_py.ALEInterface()
    ale.setLoggerMode(ale_py.LoggerMode.Error)
    ale.setFloat("repeat_action_probability", sticky)
    ale.setInt("random_seed", seed)
    ale.setInt("max_num_frames_per_episode", max_frames)
    ale.loadROM(str(path))
    if mode is not None:
        ale.setMode(mode)
    if difficulty is not None:
        ale.setDifficulty(difficulty)
    return ale


def ales_for(emulator, sticky: float, max_frames: int = 0, mode=None, difficulty=None):
    """One ALEInterface per console of an AtariEmulator: console i's twin has seed + i."""
    return [make_ale(emulator._batch.rom.path, emulator.seed + i, sticky, max_frames, mode,
                     difficulty) for i in range(emulator.num_envs)]


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


def _load(path: Path) -> tuple[ale_py.ALEInterface, str]:
    """Load with ALE's Info log captured at the file-descriptor level (C++ writes past sys.stdout)."""
    ale_py.ALEInterface.setLoggerMode(ale_py.LoggerMode.Info)
    sys.stdout.flush()
    sys.stderr.flush()
    saved = os.dup(1), os.dup(2)
    with tempfile.TemporaryFile() as sink:
        os.dup2(sink.fileno(), 1)
        os.dup2(sink.fileno(), 2)
        try:
            ale = ale_py.ALEInterface()   # a fresh one: settings (paddle_max) persist across loads
            ale.setFloat("repeat_action_probability", 0.0)
            ale.setInt("random_seed", 0)
            ale.loadROM(str(path))
        finally:
            os.dup2(saved[0], 1)
            os.dup2(saved[1], 2)
            os.close(saved[0])
            os.close(saved[1])
            ale_py.ALEInterface.setLoggerMode(ale_py.LoggerMode.Error)
        sink.seek(0)
        return ale, sink.read().decode("latin-1")


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
            _, log = _load(alias)
    else:
        ale, log = _load(path)
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
