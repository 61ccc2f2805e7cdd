"""ROM discovery and identification: ale-py's bundled ROMs, user ROM files, bank-switching schemes.

Commercial ROMs are never part of cule_py: they come from the installed ale-py package (its
`roms/` folder, or the folder named by the ALE_ROMS_DIR environment variable, as ale-py does).

    >>> from cule_py.roms import load_rom
    >>> rom = load_rom("pong")                 # an ale-py rom id ("Pong" works too) or a file path
    >>> rom.game.rom_id, rom.scheme, rom.size, rom.exact
    ('pong', '2K', 2048, True)

A ROM file is identified by md5 against ALE's supported games, as ALE does. Nothing is guessed:
an unknown ROM, a file named like a game whose md5 differs, or a size no cartridge has is an
error that says what to do (`allow_unknown=True`, `settings="<rom id>"`).
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from .games import (GAMES, GYM_ID, MULTIPLAYER_ONLY, Game, MultiplayerRomError, UnknownGameError,
                    game_for_md5, get_game)

__all__ = [
    "ACCEPTED_SIZES", "ALE_GAME_SCHEMES", "Rom", "RomError", "RomSizeError", "UnknownRomError",
    "RomMismatchError", "UnknownGameError", "MultiplayerRomError", "rom_directory", "ale_rom_md5s",
    "rom_path", "load_rom", "rom_from_bytes", "identify", "detect_scheme", "md5_hex",
]

#: ROM sizes cule_py accepts, and the schemes ALE's auto-detection can pick for each.
ACCEPTED_SIZES: Final[Mapping[int, str]] = {
    2048: "2K, CV",
    4096: "4K, 2K (identical halves), CV",
    8192: "F8, F8SC, E0, FE, 3E, 3F, UA, 4K (identical halves)",
    10240: "DPC",
    10495: "DPC",
    10496: "DPC",
    12288: "FASC",
    16384: "F6, F6SC, E7, 3E, 3F",
    32768: "F4, F4SC, 3E, 3F",
    65536: "MB, 3E, 3F",
}

#: The schemes ALE's 104 single-player games use (each game's `Game.scheme` is one of these).
ALE_GAME_SCHEMES: Final = ("2K", "4K", "F8", "F8SC", "F6", "F6SC", "E0", "FE", "DPC")

# Two dumps Stella starts in the other F8 bank; ALE keys them by md5 before any auto-detection.
_F8_SWAPPED_MD5S: Final = frozenset({"bc24440b59092559a1ec26055fd1270e", "75ee371ccfc4f43e7d9b8f24e1266b55"})


class RomError(ValueError):
    """A ROM cule_py will not run as given; the message says why and what to do."""


class RomSizeError(RomError):
    """A file whose size fits no cartridge scheme."""


class UnknownRomError(RomError):
    """A ROM whose md5 is none of ALE's supported games."""


class RomMismatchError(RomError):
    """A ROM whose name and contents disagree (a game's file name, another md5)."""


@dataclass(frozen=True, eq=False)
class Rom:
    """A ROM image ready for the emulator, and what it was identified as.

    data:   the image bytes.
    md5:    md5 of `data` (lower-case hex), ALE's key for games and console properties.
    scheme: bank-switching scheme from ALE's auto-detection (`detect_scheme`).
    game:   whose settings to run it with (actions, modes, reward/terminal logic, console
            properties), or None for an unknown ROM loaded with `allow_unknown=True`.
    exact:  True when `md5` is `game`'s own md5, so ALE identifies it the same way; False when
            the settings were named by the caller or there are none.
    path:   the file it came from, if any.
    """

    data: bytes
    md5: str
    scheme: str
    game: Game | None
    exact: bool
    path: Path | None = None

    @property
    def size(self) -> int:
        return len(self.data)

    def __repr__(self) -> str:
        what = self.game.rom_id if self.game else "unknown"
        return (f"Rom({what}, {self.size} bytes, scheme={self.scheme}, md5={self.md5}, "
                f"exact={self.exact}, path={str(self.path) if self.path else None!r})")


# ---------------------------------------------------------------------------------------------
# ale-py's ROM folder


def _ale_package_roms() -> Path:
    # Imported lazily: `cule_py.games` and `detect_scheme` need nothing from ale-py.
    import ale_py.roms
    return Path(ale_py.roms.__file__).resolve().parent


def rom_directory() -> Path:
    """The folder ale-py loads ROMs from: $ALE_ROMS_DIR if set, else ale-py's bundled `roms/`."""
    override = os.environ.get("ALE_ROMS_DIR")
    if override:
        folder = Path(override)
        if not folder.is_dir():
            raise NotADirectoryError(
                f"ALE_ROMS_DIR={override!r} is not a directory; point it at a folder of "
                f"<rom_id>.bin files, or unset it to use the ROMs bundled with ale-py")
        return folder
    return _ale_package_roms()


def ale_rom_md5s() -> dict[str, str]:
    """ale-py's expected md5 per rom id (its `roms/md5.json`; ALE_ROMS_DIR does not change it)."""
    with open(_ale_package_roms() / "md5.json") as f:
        table = json.load(f)
    return {name.removesuffix(".bin"): md5 for name, md5 in table.items()}


def rom_path(rom_id: str) -> Path:
    """Path of a supported game's ROM in ale-py's ROM folder, md5-checked as ale-py does.

    Accepts the same names as `cule_py.games.get_game`. Raises UnknownGameError (with close
    matches), MultiplayerRomError, FileNotFoundError or RomMismatchError.
    """
    return _read_ale_rom(get_game(rom_id))[0]


def _read_ale_rom(game: Game) -> tuple[Path, bytes]:
    folder = rom_directory()
    path = folder / f"{game.rom_id}.bin"
    if not path.is_file():
        where = ("ALE_ROMS_DIR" if os.environ.get("ALE_ROMS_DIR") else "ale-py's bundled ROM folder")
        raise FileNotFoundError(
            f"ROM for {game.rom_id!r} not found: {path} does not exist ({where}). ale-py >= 0.9 wheels "
            f"bundle the ROMs (pip install ale-py); ALE_ROMS_DIR must hold <rom_id>.bin files.")
    data = path.read_bytes()
    md5 = md5_hex(data)
    expected = ale_rom_md5s().get(game.rom_id, game.md5)
    if md5 != expected:
        raise RomMismatchError(
            f"{path} has md5 {md5}, but ale-py expects {expected} for {game.rom_id!r}; "
            f"replace the file with the ROM ale-py ships, or load it by path with settings=...")
    return path, data


# ---------------------------------------------------------------------------------------------
# identification


def md5_hex(data: bytes | bytearray | memoryview) -> str:
    """md5 of a ROM image as lower-case hex, the key ALE and Stella use."""
    return hashlib.md5(bytes(data)).hexdigest()


def identify(data: bytes | bytearray | memoryview) -> Game | None:
    """The supported game this image is (by md5), or None if it is none of them.

    Raises MultiplayerRomError for the four multi-agent-only ROMs ale-py ships.
    """
    md5 = md5_hex(data)
    game = game_for_md5(md5)
    if game is not None:
        return game
    for multi in MULTIPLAYER_ONLY.values():
        if multi.md5 == md5:
            get_game(multi.rom_id)  # raises MultiplayerRomError with the explanation
    return None


def _check_size(size: int, label: str) -> None:
    if size not in ACCEPTED_SIZES:
        sizes = "; ".join(f"{n} ({schemes})" for n, schemes in ACCEPTED_SIZES.items())
        raise RomSizeError(
            f"{label} is {size} bytes, which fits no Atari 2600 cartridge scheme cule_py knows. "
            f"Accepted sizes (bytes): {sizes}. Check that the file is a raw 2600 ROM image "
            f"(not zipped, no header).")


def rom_from_bytes(data: bytes | bytearray | memoryview, *, settings: str | None = None,
                   allow_unknown: bool = False, path: Path | None = None) -> Rom:
    """Identify an image by md5 and wrap it as a Rom (see `load_rom` for the options)."""
    data = bytes(data)
    label = str(path) if path is not None else "the ROM image"
    _check_size(len(data), label)
    md5 = md5_hex(data)
    scheme = detect_scheme(data)
    try:
        game = identify(data)
    except MultiplayerRomError as err:
        raise MultiplayerRomError(f"{label} (md5 {md5}): {err}") from None
    named = get_game(settings) if settings is not None else None
    if game is not None:
        if named is not None and named is not game:
            raise RomMismatchError(
                f"{label} is ALE's {game.rom_id!r} (md5 {md5}), but settings={settings!r} names "
                f"{named.rom_id!r}; drop settings= to run it as {game.rom_id!r}")
        if scheme != game.scheme:  # the table and the detector disagree: a bug, never a guess
            raise RuntimeError(f"internal error: {game.rom_id} detected as {scheme}, "
                               f"cule_py.games says {game.scheme}")
        return Rom(data, md5, scheme, game, True, path)
    if named is not None:
        return Rom(data, md5, scheme, named, False, path)
    if allow_unknown:
        return Rom(data, md5, scheme, None, False, path)
    raise UnknownRomError(
        f"{label} (md5 {md5}, {len(data)} bytes) is not one of ALE's {len(GAMES)} supported games, "
        f"so cule_py has no reward, terminal or lives logic for it. Pass allow_unknown=True to run "
        f"it without them (reward 0, never terminal), or settings='<rom id>' to run it with a "
        f"supported game's settings (e.g. a different dump of that game).")


def load_rom(game: str | os.PathLike[str], *, settings: str | None = None,
             allow_unknown: bool = False) -> Rom:
    """Resolve a user's `game` argument to ROM bytes plus identity.

    game:  an ale-py rom id ("pong", "space_invaders"; CamelCase "SpaceInvaders" too), looked
           up in ale-py's ROM folder; or the path of a ROM file (a pathlib.Path, or a string
           with a directory part or an extension such as ".bin").
    settings: for a file ALE does not know by md5, the rom id whose settings to run it with.
           A file named like a supported game ("pong.bin") with another md5 needs this: ALE
           would run it with that game's settings after a warning; cule_py asks first.
    allow_unknown: run a ROM that is no supported game, without reward/terminal/lives logic.

    Raises UnknownGameError (close matches listed), MultiplayerRomError, FileNotFoundError,
    RomSizeError (accepted sizes listed), UnknownRomError or RomMismatchError.
    """
    if isinstance(game, str) and GYM_ID.match(game) and not os.path.exists(game):
        get_game(game)  # "ALE/Pong-v5": raises UnknownGameError naming the game id to use
    if isinstance(game, os.PathLike) or (isinstance(game, str) and _looks_like_path(game)):
        return _load_file(Path(os.fspath(game)).expanduser(), settings, allow_unknown)
    if not isinstance(game, str):
        raise TypeError(f"game must be a rom id or a path, got {type(game).__name__}")
    entry = get_game(game)
    if settings is not None and get_game(settings) is not entry:
        raise RomMismatchError(f"game {game!r} is {entry.rom_id!r}, but settings={settings!r} "
                               f"names another game")
    path, data = _read_ale_rom(entry)
    return rom_from_bytes(data, path=path)


def _looks_like_path(text: str) -> bool:
    # Rom ids are bare words; anything with a directory part or an extension is a file.
    return "/" in text or "\\" in text or os.sep in text or "." in text


def _load_file(path: Path, settings: str | None, allow_unknown: bool) -> Rom:
    if not path.exists():
        raise FileNotFoundError(f"ROM file {path} does not exist")
    if path.is_dir():
        raise IsADirectoryError(f"{path} is a directory, not a ROM file")
    data = path.read_bytes()
    _check_size(len(data), str(path))
    # ALE (buildRomRLWrapper) matches a game by md5 *or* by the lower-cased file stem.
    stem_game = GAMES.get(path.stem.lower())
    try:
        known = identify(data)
    except MultiplayerRomError:
        known = None  # rom_from_bytes below says so, with the file name
    if stem_game is not None and known is not None and known is not stem_game and settings is None:
        raise RomMismatchError(
            f"{path} is named like ALE's {stem_game.rom_id!r} but is ALE's {known.rom_id!r} "
            f"(md5 {known.md5}); ALE would take whichever of the two comes first in its game "
            f"list. Rename the file, or pass settings={known.rom_id!r}.")
    if stem_game is not None and known is None and settings is None and not allow_unknown:
        raise RomMismatchError(
            f"{path} is named like ALE's {stem_game.rom_id!r}, but its md5 {md5_hex(data)} is not "
            f"{stem_game.rom_id!r}'s ({stem_game.md5}). ALE would run it with {stem_game.rom_id!r}'s "
            f"settings after a 'Possibly unsupported ROM: mismatched MD5' warning; cule_py does not "
            f"guess. Pass settings={stem_game.rom_id!r} to do that (console properties then come "
            f"from {stem_game.rom_id!r} too, where ALE would look them up by md5), or "
            f"allow_unknown=True to run it without any game logic.")
    return rom_from_bytes(data, settings=settings, allow_unknown=allow_unknown, path=path)


# ---------------------------------------------------------------------------------------------
# bank-switching scheme auto-detection


def _count_signature(image: bytes, signature: bytes, wanted: int) -> bool:
    """True if `signature` occurs at least `wanted` times, counted the way Stella 2.x counts.

    Two quirks of ALE's search are kept because they decide borderline images: a match may not
    start at the last possible offset (the scan stops one byte early), and after a match the
    scan resumes one byte past its end, so back-to-back repeats count only every other one.
    """
    width = len(signature)
    if width > len(image):
        return False
    last_start = len(image) - width - 1
    count, start = 0, 0
    while start <= last_start:
        hit = image.find(signature, start, last_start + width)
        if hit < 0:
            break
        count += 1
        if count >= wanted:
            return True
        start = hit + width + 1
    return False


def _any_signature(image: bytes, signatures: tuple[bytes, ...]) -> bool:
    return any(_count_signature(image, sig, 1) for sig in signatures)


def _superchip_like(image: bytes) -> bool:
    # A Superchip cart's RAM window hides the first 256 bytes of every 4K bank, and dumps hold
    # one repeated value there.
    return all(len(set(image[bank:bank + 256])) == 1 for bank in range(0, len(image), 4096))


def _e7_like(image: bytes) -> bool:
    # E7 (M-Network): 512 uniform bytes at 0x3800 where its RAM shows, but not just a large
    # blank area: some byte in the 32 before or after must differ.
    block = image[0x3800:0x3A00]
    fill = block[0]
    if block.count(fill) != len(block):
        return False
    around = image[0x3800 - 32:0x3800] + image[0x3A00:0x3A00 + 32]
    return around.count(fill) != len(around)


_CV_SIGS: Final = (b"\x9d\xff\xf3", b"\x99\x00\xf4")                       # STA $F3FF,X; STA $F400,Y
_E0_SIGS: Final = (b"\x8d\xe0\x1f", b"\x8d\xe0\x5f", b"\x8d\xe9\xff",      # STA $1FE0 / $5FE0 / $FFE9
                   b"\xad\xe9\xff", b"\xad\xed\xff", b"\xad\xf3\xbf")      # LDA $FFE9 / $FFED / $BFF3
_FE_SIGS: Final = (b"\x20\x00\xd0\xc6\xc5",                                # JSR $D000; DEC $C5
                   b"\x20\xc3\xf8\xa5\x82",                                # JSR $F8C3; LDA $82
                   b"\xd0\xfb\x20\x73\xfe",                                # BNE *-3; JSR $FE73
                   b"\x20\x00\xf0\x84\xd6")                                # JSR $F000; STY $D6
_3E_SIG: Final = b"\x85\x3e\xa9\x00"                                       # STA $3E; LDA #0
_3F_SIG: Final = b"\x85\x3f"                                               # STA $3F (twice at least)
_UA_SIG: Final = b"\x8d\x40\x02"                                           # STA $0240


def _is_3e(image: bytes) -> bool:
    return _count_signature(image, _3E_SIG, 1)


def _is_3f(image: bytes) -> bool:
    return _count_signature(image, _3F_SIG, 2)


def detect_scheme(data: bytes | bytearray | memoryview) -> str:
    """The bank-switching scheme ALE 0.12.1 auto-detects for an image, as ALE names it.

    Follows ALE's Stella-2.x heuristics (size first, then signatures, first match wins), so a
    ROM runs with the scheme ALE would give it. For ALE's games the result is one of
    ALE_GAME_SCHEMES; other images can give CV, 3E, 3F, UA, E7, FASC, F4, F4SC, MB or
    "F8 swapped". Raises RomSizeError for sizes outside ACCEPTED_SIZES.
    """
    image = bytes(data)
    size = len(image)
    _check_size(size, "the ROM image")
    if md5_hex(image) in _F8_SWAPPED_MD5S:
        return "F8 swapped"
    if size == 2048 or (size == 4096 and image[:2048] == image[2048:]):
        return "CV" if _any_signature(image, _CV_SIGS) else "2K"
    if size == 4096:
        return "CV" if _any_signature(image, _CV_SIGS) else "4K"
    if size == 8192:
        if _superchip_like(image):
            return "F8SC"
        if image[:4096] == image[4096:]:
            return "4K"
        if _any_signature(image, _E0_SIGS):
            return "E0"
        if _is_3e(image):
            return "3E"
        if _is_3f(image):
            return "3F"
        if _count_signature(image, _UA_SIG, 1):
            return "UA"
        if _any_signature(image, _FE_SIGS):
            return "FE"
        return "F8"
    if size in (10240, 10495, 10496):  # Pitfall II: 8K program + 2K display data (+ 255 spare)
        return "DPC"
    if size == 12288:  # ALE assumes every 12K image is CBS RAM Plus
        return "FASC"
    if size == 16384:
        if _superchip_like(image):
            return "F6SC"
        if _e7_like(image):
            return "E7"
        return "3E" if _is_3e(image) else "3F" if _is_3f(image) else "F6"
    if size == 32768:
        if _superchip_like(image):
            return "F4SC"
        return "3E" if _is_3e(image) else "3F" if _is_3f(image) else "F4"
    # 65536, the last accepted size
    return "3E" if _is_3e(image) else "3F" if _is_3f(image) else "MB"
