"""cule_py.roms: finding ale-py's ROMs, identifying ROM files, detecting bank-switching schemes.

ale-py is the oracle: every ROM it ships is identified and its scheme detected as ALE does
(read from ALE's own load log), and the detector's rarer branches are checked on synthetic
images that ALE loads too. Error cases use files written to tmp_path.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import ale_py
import pytest
from ale_py import roms as ale_roms

import ale_oracle
from cule_py import roms
from cule_py.games import GAMES, MULTIPLAYER_ONLY, MultiplayerRomError, UnknownGameError
from cule_py.roms import (RomMismatchError, RomSizeError, UnknownRomError, detect_scheme, identify,
                          load_rom)

TESTS = Path(__file__).resolve().parent


@pytest.fixture(scope="module")
def ale():
    """One loadROM of every ROM ale-py ships: about 25 s, so the tests using it are slow."""
    return ale_oracle.survey()


@pytest.fixture
def no_roms_dir(monkeypatch):
    monkeypatch.delenv("ALE_ROMS_DIR", raising=False)


# ---------------------------------------------------------------------------------------------
# every ROM ale-py ships


@pytest.mark.live_ale
@pytest.mark.slow
def test_identify_every_ale_rom_by_md5(ale, tmp_path):
    probe = ale_py.ALEInterface()
    for rom_id, view in ale.items():
        data = view.path.read_bytes()
        # A neutral file name, so ALE can only go by md5 (it also matches on the file stem).
        neutral = tmp_path / "some_rom.bin"
        neutral.write_bytes(data)
        ale_says = probe.isSupportedROM(str(neutral))
        if rom_id in ale_oracle.MULTIPLAYER:
            assert ale_says is None
            with pytest.raises(MultiplayerRomError):
                identify(data)
            assert MULTIPLAYER_ONLY[rom_id].md5 == view.md5
        else:
            assert ale_says == rom_id
            assert identify(data) is GAMES[rom_id]
            assert GAMES[rom_id].md5 == view.md5


def test_md5s_agree_with_ale_py_md5_json():
    expected = roms.ale_rom_md5s()
    ours = {g.rom_id: g.md5 for g in GAMES.values()} | {m.rom_id: m.md5 for m in MULTIPLAYER_ONLY.values()}
    assert ours == expected


@pytest.mark.live_ale
@pytest.mark.slow
def test_scheme_of_every_ale_rom_matches_ale(ale):
    """detect_scheme on the bytes gives what ALE's auto-detection printed when it loaded them."""
    found = {}
    for rom_id, view in ale.items():
        data = view.path.read_bytes()
        assert detect_scheme(data) == view.scheme, rom_id
        table = GAMES[rom_id] if rom_id in GAMES else MULTIPLAYER_ONLY[rom_id]
        assert table.scheme == view.scheme, rom_id
        found.setdefault(view.scheme, []).append(rom_id)
    assert {k: len(v) for k, v in found.items()} == {
        "2K": 20, "4K": 52, "F8": 24, "F8SC": 1, "F6": 4, "F6SC": 2, "E0": 3, "FE": 1, "DPC": 1}
    assert set(found) == set(roms.ALE_GAME_SCHEMES)


def _plain(size: int) -> bytearray:
    # Consecutive byte values: no signature, no uniform 256-byte block, 2K blocks all differ.
    return bytearray((i + 17 * (i // 2048)) & 0xFF for i in range(size))


def _put(image: bytearray, *pieces: tuple[int, bytes]) -> bytearray:
    for offset, data in pieces:
        image[offset:offset + len(data)] = data
    return image


def _superchip(size: int) -> bytearray:
    image = _plain(size)
    for bank in range(0, size, 4096):
        image[bank:bank + 256] = b"\x55" * 256
    return image


STA_3F = b"\x85\x3f"
STA_3E = b"\x85\x3e\xa9\x00"

SYNTHETIC = {
    "2k": _plain(2048),
    "2k_cv": _put(_plain(2048), (100, b"\x9d\xff\xf3")),
    "4k_equal_halves": _plain(2048) * 2,
    "4k": _plain(4096),
    "4k_cv": _put(_plain(4096), (3000, b"\x99\x00\xf4")),
    "8k_superchip": _superchip(8192),
    "8k_equal_halves": _plain(4096) * 2,
    "8k_e0": _put(_plain(8192), (5000, b"\xad\xf3\xbf")),
    "8k_3e": _put(_plain(8192), (5000, STA_3E)),
    "8k_3f": _put(_plain(8192), (10, STA_3F), (5000, STA_3F)),
    "8k_3f_once": _put(_plain(8192), (10, STA_3F)),
    "8k_3f_back_to_back": _put(_plain(8192), (10, STA_3F + STA_3F)),      # 2nd hit skipped
    "8k_3f_one_byte_apart": _put(_plain(8192), (10, STA_3F + b"\x00" + STA_3F)),
    "8k_3f_at_last_offset": _put(_plain(8192), (10, STA_3F), (8190, STA_3F)),  # not scanned
    "8k_3f_one_before_last": _put(_plain(8192), (10, STA_3F), (8189, STA_3F)),
    "8k_ua": _put(_plain(8192), (5000, b"\x8d\x40\x02")),
    "8k_fe": _put(_plain(8192), (5000, b"\x20\x00\xf0\x84\xd6")),
    "8k_f8": _plain(8192),
    "10240_dpc": _plain(10240),
    "10496_dpc": _plain(10496),
    "12k_fasc": _plain(12288),
    "16k_superchip": _superchip(16384),
    "16k_e7": _put(_plain(16384), (0x3800, b"\x77" * 512)),
    "16k_e7_blank_area": _put(_plain(16384), (0x3800 - 32, b"\x77" * 576)),
    "16k_3e": _put(_plain(16384), (9000, STA_3E)),
    "16k_3f": _put(_plain(16384), (100, STA_3F), (9000, STA_3F)),
    "16k_f6": _plain(16384),
    "32k_superchip": _superchip(32768),
    "32k_3e": _put(_plain(32768), (9000, STA_3E)),
    "32k_f4": _plain(32768),
    "64k_3f": _put(_plain(65536), (100, STA_3F), (9000, STA_3F)),
    "64k_mb": _plain(65536),
}

_PROBE = """
import json, os, sys, shutil, tempfile
from pathlib import Path
import ale_oracle
from cule_py.testing import ale_twin_with_log
out = {}
for source in sys.argv[1:]:
    with tempfile.TemporaryDirectory() as folder:
        alias = Path(folder) / "tetris.bin"   # Tetris's settings: no mode loop, ALE does not exit
        shutil.copyfile(source, alias)
        _, log = ale_twin_with_log(alias)
    out[Path(source).stem] = ale_oracle._log_field(log, r"Bankswitch Type:\\s*AUTO-DETECT ==> (.+)")
print(json.dumps(out), flush=True)
os._exit(0)   # skip ALE's destructors: the answer is out, a crash at teardown cannot spoil it
"""


# For CV images: ALE writes its log straight to this child's stdout (no file-descriptor capture,
# which made those loads crash), and the parent reads the scheme from it.
_CV_PROBE = """
import shutil, sys, tempfile
from pathlib import Path
import ale_py
ale_py.ALEInterface.setLoggerMode(ale_py.LoggerMode.Info)
with tempfile.TemporaryDirectory() as folder:
    alias = Path(folder) / "tetris.bin"
    shutil.copyfile(sys.argv[1], alias)
    ale = ale_py.ALEInterface()
    ale.setFloat("repeat_action_probability", 0.0)
    ale.loadROM(str(alias))
"""


def _ale_cv_scheme(path, env):
    for _attempt in range(5):
        done = subprocess.run([sys.executable, "-c", _CV_PROBE, path], env=env, capture_output=True,
                              text=True, timeout=120)
        match = re.search(r"Bankswitch Type:\s*AUTO-DETECT ==> (\S+)", done.stdout + done.stderr)
        if match:
            return match.group(1)
    raise AssertionError(f"ALE did not report a scheme for {path}: rc {done.returncode}, "
                         f"{(done.stdout + done.stderr)[-2000:]}")


@pytest.mark.live_ale
@pytest.mark.slow                   # ALE in child processes, one per CV image
def test_detect_scheme_on_synthetic_images_matches_ale(tmp_path):
    """Each branch of the heuristic, and the signature-search quirks, against ALE itself."""
    for name, image in SYNTHETIC.items():
        (tmp_path / f"{name}.bin").write_bytes(bytes(image))
    # ALE runs in child processes: with CV images it segfaults now and then (seen when a CV
    # image and another ROM were loaded in one process), so each CV case gets its own.
    cv = [name for name in SYNTHETIC if name.endswith("_cv")]
    groups = [[n for n in SYNTHETIC if n not in cv]] + [[n] for n in cv]
    path = os.pathsep.join(filter(None, [str(TESTS), os.environ.get("PYTHONPATH")]))
    env = dict(os.environ, PYTHONPATH=path)
    ale_says = {}
    for group in groups:
        files = [str(tmp_path / f"{name}.bin") for name in group]
        if group[0] in cv:
            ale_says[group[0]] = _ale_cv_scheme(files[0], env)
            continue
        done = subprocess.run([sys.executable, "-c", _PROBE, *files], env=env, capture_output=True,
                              text=True, timeout=120)
        assert done.returncode == 0, f"ALE failed on {group}: {done.stderr[-2000:]}"
        ale_says.update(json.loads(done.stdout.strip().splitlines()[-1]))
    ours = {name: detect_scheme(bytes(image)) for name, image in SYNTHETIC.items()}
    assert ours == ale_says
    # The cases cover every scheme name the detector can return except "F8 swapped".
    assert set(ours.values()) == {"2K", "CV", "4K", "F8SC", "E0", "3E", "3F", "UA", "FE", "F8", "DPC",
                                  "FASC", "F6SC", "E7", "F6", "F4SC", "F4", "MB"}


def test_detect_scheme_rejects_other_sizes():
    for size in (0, 1, 3000, 2047, 8448, 131072):
        with pytest.raises(RomSizeError, match="Accepted sizes"):
            detect_scheme(bytes(size))


# ---------------------------------------------------------------------------------------------
# load_rom: ids, paths, ALE_ROMS_DIR


def test_load_by_id(no_roms_dir):
    for name in ("pong", "Pong", "PONG"):
        rom = load_rom(name)
        assert rom.game is GAMES["pong"] and rom.exact and rom.scheme == "2K" and rom.size == 2048
        assert rom.path == ale_roms.get_rom_path("pong")
    for name in ("space_invaders", "SpaceInvaders"):
        assert load_rom(name).game is GAMES["space_invaders"]
    rom = load_rom("pitfall2")
    assert (rom.scheme, rom.size, rom.md5) == ("DPC", 10495, GAMES["pitfall2"].md5)
    assert roms.rom_path("Breakout") == ale_roms.get_rom_path("breakout")


def test_load_every_game_by_id(no_roms_dir):
    for rom_id, game in GAMES.items():
        rom = load_rom(rom_id)
        assert (rom.game, rom.scheme, rom.size, rom.md5, rom.exact) == \
            (game, game.scheme, game.rom_size, game.md5, True)


def test_load_by_path(tmp_path, no_roms_dir):
    source = ale_roms.get_rom_path("breakout")
    copy = tmp_path / "my breakout dump.a26"
    shutil.copyfile(source, copy)
    for arg in (copy, str(copy)):
        rom = load_rom(arg)
        assert rom.game is GAMES["breakout"] and rom.exact and rom.path == copy
    assert load_rom(source).game is GAMES["breakout"]


def test_unknown_id_lists_close_matches():
    with pytest.raises(UnknownGameError, match="did you mean 'space_invaders'"):
        load_rom("space_invader")
    with pytest.raises(UnknownGameError, match="pass its path"):
        load_rom("zzzz")


def test_multiplayer_roms_are_refused(tmp_path, no_roms_dir):
    with pytest.raises(MultiplayerRomError, match="multi-agent-only"):
        load_rom("warlords")
    copy = tmp_path / "w.bin"
    shutil.copyfile(ale_roms.get_rom_path("warlords"), copy)
    with pytest.raises(MultiplayerRomError, match=r"w\.bin"):
        load_rom(copy)


def test_missing_file(tmp_path):
    with pytest.raises(FileNotFoundError, match="does not exist"):
        load_rom(tmp_path / "nothing.bin")
    for gym_id in ("ALE/Pong-v5", "PongNoFrameskip-v4"):
        with pytest.raises(UnknownGameError, match="Gymnasium env id.*the game is 'pong'"):
            load_rom(gym_id)
    with pytest.raises(IsADirectoryError):
        load_rom(tmp_path)


def test_size_that_fits_no_scheme(tmp_path):
    path = tmp_path / "odd.bin"
    path.write_bytes(bytes(range(256)) * 11 + bytes(184))   # 3000 bytes
    with pytest.raises(RomSizeError) as err:
        load_rom(path)
    message = str(err.value)
    assert "3000 bytes" in message
    for size in (2048, 4096, 8192, 10495, 12288, 16384, 32768, 65536):
        assert str(size) in message


def test_game_file_name_with_other_md5(tmp_path, no_roms_dir):
    path = tmp_path / "pong.bin"
    path.write_bytes(bytes(4096))
    # ALE does not know it by md5 either (it would still run it as Pong, by file name).
    assert ale_py.ALEInterface().isSupportedROM(str(path)) is None
    with pytest.raises(RomMismatchError, match="settings='pong'") as err:
        load_rom(path)
    assert GAMES["pong"].md5 in str(err.value)
    rom = load_rom(path, settings="pong")
    assert rom.game is GAMES["pong"] and not rom.exact and rom.scheme == "2K"   # equal halves
    rom = load_rom(path, allow_unknown=True)
    assert rom.game is None and not rom.exact
    # Another supported game under Pong's name is refused too.
    shutil.copyfile(ale_roms.get_rom_path("breakout"), path)
    for unknown_ok in (False, True):
        with pytest.raises(RomMismatchError, match="is ALE's 'breakout'"):
            load_rom(path, allow_unknown=unknown_ok)
    assert load_rom(path, settings="breakout").game is GAMES["breakout"]


def test_unknown_md5(tmp_path):
    path = tmp_path / "homebrew.bin"
    path.write_bytes(bytes(_plain(4096)))
    with pytest.raises(UnknownRomError, match="allow_unknown=True") as err:
        load_rom(path)
    assert "not one of ALE's 104 supported games" in str(err.value)
    rom = load_rom(path, allow_unknown=True)
    assert (rom.game, rom.exact, rom.scheme) == (None, False, "4K")
    rom = load_rom(path, settings="Seaquest")
    assert (rom.game, rom.exact) == (GAMES["seaquest"], False)


def test_settings_that_contradict_the_md5(tmp_path, no_roms_dir):
    with pytest.raises(RomMismatchError, match="'breakout'"):
        load_rom(ale_roms.get_rom_path("pong"), settings="breakout")
    with pytest.raises(RomMismatchError):
        load_rom("pong", settings="breakout")
    assert load_rom("pong", settings="Pong").exact


def test_ale_roms_dir(tmp_path, monkeypatch):
    shutil.copyfile(ale_roms.get_rom_path("pong"), tmp_path / "pong.bin")
    (tmp_path / "breakout.bin").write_bytes(bytes(2048))
    monkeypatch.setenv("ALE_ROMS_DIR", str(tmp_path))
    assert roms.rom_directory() == tmp_path
    assert load_rom("pong").path == tmp_path / "pong.bin" == ale_roms.get_rom_path("pong")
    # A wrong file there is refused, as ale-py refuses it.
    with pytest.raises(OSError):
        ale_roms.get_rom_path("breakout")
    with pytest.raises(RomMismatchError, match="ale-py expects"):
        load_rom("breakout")
    with pytest.raises(FileNotFoundError, match="ALE_ROMS_DIR"):
        load_rom("seaquest")
    monkeypatch.setenv("ALE_ROMS_DIR", str(tmp_path / "absent"))
    with pytest.raises(NotADirectoryError, match="ALE_ROMS_DIR"):
        load_rom("pong")
