"""Measure ALE's colour palettes (NTSC and PAL) and its grey values from ale-py, as a black box.

    /tmp/venv/bin/python -m tools.measure_palette            # rewrites cule_py/palette.py
    /tmp/venv/bin/python -m tools.measure_palette --check    # compares, writes nothing

ALE's `getScreen()` gives palette indices, `getScreenRGB()` and `getScreenGrayscale()` the same
screen through its palette. Nothing here is copied from ALE or Stella (both GPL): the tables are
whatever ale-py 0.12.1 answers for test cartridges of our own.

The cartridges (assembled with cule_py.asm6502, 4 KiB, loaded under the file name of River Raid,
whose md5 they do not have, so ALE uses its default console properties: YStart 34, Height 210,
format auto-detected) paint COLUBK = 2*line (mod 256) on the first 256 lines of every frame, so
the screen shows every even index at least once, and then close the frame with VSYNC:

* NTSC: about 259 lines a frame (ALE sees NTSC; no colour loss, only even indices ever appear).
* PAL: 312 or 313 lines a frame. ALE auto-detects PAL when at least 15 of its detection frames
  30-59 have more than 285 lines; it still runs those frames with NTSC rules, which cut a frame
  at the first TIA write on a line past 290. So VSYNC is switched on by line 290, and the last
  ~24 lines pass in a CPU-only delay loop (no TIA write) before VSYNC goes off: every frame is
  longer than 285 lines under both rules. ALE then picks the PAL palette, raises the screen
  height to 250, and turns on its colour-loss emulation: bit 0 of every colour register becomes
  the parity of the previous frame's line count. The 313-line cartridge therefore shows only odd
  indices, the 312-line one only even indices.

Every screen pixel is one observation (index, RGB, grey); the tool checks that each index always
maps to the same RGB and grey, that every index was seen, and that the screens have the expected
parity. Indices that can never appear are filled by the rule measured where they do appear (see
`fill_unobservable`), and `cule_py/palette.py` says which ones those are.
"""

from __future__ import annotations

import argparse
import pathlib
import sys
import tempfile

import numpy as np

from cule_py.asm6502 import assemble, to_image
from cule_py.testing import ale_twin

REPO = pathlib.Path(__file__).resolve().parents[1]

# A supported 4K single-mode game (its reset sequence never waits on a RAM byte) whose md5 our
# cartridges do not share, so ALE uses its default console properties for them.
ROM_NAME = "riverraid"
PALETTE_PY = REPO / "cule_py" / "palette.py"

# Passes of the ~1-line delay loop between VSYNC on and off in the PAL cartridges.
_PAL_DELAY_PASSES = 24


def cartridge(kind: str) -> bytes:
    """A 4 KiB test cartridge: kind "ntsc" (259-line frames), "pal_even" (312), "pal_odd" (313)."""
    # Frame line 0 is the line of the VSYNC-off write; the paint loop's WSYNCs end lines 0-255
    # (line 1 shows index 0, so screen row 0 = line 34 shows index 66), `extra_wsyncs` more
    # lines follow, VSYNC goes on at the start of the next line, and the delay runs
    # `delay_passes` passes of LDX #14 (2) + 14 x (DEX 2 + BNE 3) - 1 + NOP 2 + DEY 2 + BNE 3
    # = 78 cycles (about 1.03 lines) before VSYNC goes off. PAL: VSYNC on at line 288 or 289,
    # off about 24.8 lines later, on line 312 or 313 (ALE's line count of the frame). NTSC: on at
    # line 256, off about 3.2 lines later (line 259). `measure` checks the parity each PAL cartridge's screen shows.
    if kind == "ntsc":
        extra_wsyncs, delay_passes = 0, 3
    elif kind == "pal_even":
        extra_wsyncs, delay_passes = 32, _PAL_DELAY_PASSES
    elif kind == "pal_odd":
        extra_wsyncs, delay_passes = 33, _PAL_DELAY_PASSES
    else:
        raise ValueError(f"unknown cartridge kind {kind!r}")
    extra = ""
    if extra_wsyncs:
        extra = "\n".join([
            f"        LDY #{extra_wsyncs}",
            "more:   STA $02        ; WSYNC",
            "        DEY",
            "        BNE more",
        ])
    source = "\n".join([
        "        .org $F000",
        "start:  SEI",
        "        CLD",
        "        LDX #$FF",
        "        TXS",
        "        LDA #0",
        "        STA $01        ; VBLANK off, for good",
        "frame:  LDY #0",
        "paint:  STA $02        ; WSYNC",
        "        TYA",
        "        ASL A",
        "        STA $09        ; COLUBK = 2*line, written in horizontal blank",
        "        INY",
        "        BNE paint      ; 256 lines",
        extra,
        "        LDA #2",
        "        STA $00        ; VSYNC on (on a line ALE's NTSC rules do not cut at)",
        f"        LDY #{delay_passes}",
        "delay:  LDX #14",
        "spin:   DEX",
        "        BNE spin",
        "        NOP",
        "        DEY",
        "        BNE delay      ; no TIA write in here",
        "        LDA #0",
        "        STA $00        ; VSYNC off: the frame ends",
        "        JMP frame",
        "        .org $FFFA",
        "        .word start, start, start",
    ])
    return to_image(assemble(source), 0xF000, 0x1000)


class Measurement:
    """Observations of one palette: rgb[i], grey[i] for every index i seen (-1 where not)."""

    def __init__(self) -> None:
        self.rgb = np.full((256, 3), -1, dtype=np.int32)
        self.grey = np.full(256, -1, dtype=np.int32)

    def add(self, screen: np.ndarray, rgb: np.ndarray, grey: np.ndarray) -> None:
        idx = screen.reshape(-1).astype(np.int64)
        rgb = rgb.reshape(-1, 3).astype(np.int32)
        grey = grey.reshape(-1).astype(np.int32)
        for i in np.unique(idx):
            sel = idx == i
            seen_rgb, seen_grey = np.unique(rgb[sel], axis=0), np.unique(grey[sel])
            if len(seen_rgb) != 1 or len(seen_grey) != 1:
                raise AssertionError(f"index {i}: several colours on one screen "
                                     f"({seen_rgb.tolist()}, {seen_grey.tolist()})")
            for name, table, value in (("RGB", self.rgb, seen_rgb[0]), ("grey", self.grey, seen_grey[0])):
                if (table[i] >= 0).all() and not np.array_equal(table[i], value):
                    raise AssertionError(f"index {i}: {name} {table[i]} before, {value} now")
                table[i] = value

    def seen(self) -> np.ndarray:
        return self.grey >= 0


def _screens(ale) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    return (np.asarray(ale.getScreen(), dtype=np.uint8).copy(),
            np.asarray(ale.getScreenRGB(), dtype=np.uint8).copy(),
            np.asarray(ale.getScreenGrayscale(), dtype=np.uint8).copy())


def measure(workdir: pathlib.Path | None = None) -> dict[str, Measurement]:
    """Run the three cartridges in ale-py; return {"ntsc": ..., "pal": ...} observations."""
    out = {"ntsc": Measurement(), "pal": Measurement()}
    with tempfile.TemporaryDirectory() as tmp:
        rom = pathlib.Path(workdir or tmp) / f"{ROM_NAME}.bin"
        for kind, fmt, height, parity in (("ntsc", "ntsc", 210, 0), ("pal_even", "pal", 250, 0),
                                          ("pal_odd", "pal", 250, 1)):
            rom.write_bytes(cartridge(kind))
            ale = ale_twin(rom)         # logger at errors only: no md5-mismatch warnings
            screen, rgb, grey = _screens(ale)
            if screen.shape != (height, 160):
                raise AssertionError(f"{kind}: screen {screen.shape}, expected ({height}, 160): "
                                     f"ALE did not detect {fmt.upper()}")
            if set(np.unique(screen & 1).tolist()) != {parity}:
                raise AssertionError(f"{kind}: indices of parity {np.unique(screen & 1)}, "
                                     f"expected only {parity}")
            out[fmt].add(screen, rgb, grey)
            # A few more frames: same picture, and each must agree with what was seen.
            for _ in range(3):
                ale.act(0)
                out[fmt].add(*_screens(ale))
    return out


def fill_unobservable(m: Measurement, name: str) -> tuple[np.ndarray, list[int]]:
    """The full RGB table from the observations, and the indices filled by rule, not seen.

    Measured rule (PAL, where all 128 odd indices appear): `getScreenRGB` shows an odd index i
    without colour, R = G = B = the grey of the even index i - 1. NTSC never shows odd indices;
    they get the same rule, so that the table is total.
    """
    rgb, grey = m.rgb.copy(), m.grey
    seen = m.seen()
    if not seen[0::2].all():
        raise AssertionError(f"{name}: even indices never seen: {np.flatnonzero(~seen[0::2]) * 2}")
    filled = []
    for i in range(1, 256, 2):
        rule = np.full(3, grey[i - 1])
        if not seen[i]:
            rgb[i] = rule
            filled.append(i)
        elif not np.array_equal(rgb[i], rule):
            raise AssertionError(f"{name}: odd index {i} shows {rgb[i]}, not the grey "
                                 f"{grey[i - 1]} of index {i - 1}")
    return rgb.astype(np.uint8), filled


def grey_table(rgb: np.ndarray) -> np.ndarray:
    """The grey of all 256 indices from the RGB table, by the rules found (see palette.py)."""
    r, g, b = (rgb[:, k].astype(np.int64) for k in range(3))
    grey = (r * 2989 + g * 5870 + b * 1140 + 5000) // 10000
    grey[1::2] = rgb[(np.arange(1, 256, 2) + 1) & 0xFF, 2]
    return grey.astype(np.uint8)


def _array_text(name: str, rgb: np.ndarray, comment: str) -> str:
    lines = [f"# {comment}", f"{name} = _table(["]
    for start in range(0, 256, 4):
        items = ", ".join("(" + ", ".join(f"{int(c):3d}" for c in rgb[i]) + ")"
                          for i in range(start, start + 4))
        lines.append(f"    {items},  # {start:3d}")
    return "\n".join(lines) + "\n])\n"


def render(tables: dict[str, tuple[np.ndarray, list[int]]]) -> str:
    from ale_py import __version__ as ale_version

    (ntsc_rgb, ntsc_filled), (pal_rgb, pal_filled) = tables["ntsc"], tables["pal"]
    assert not pal_filled and ntsc_filled == list(range(1, 256, 2))
    grey = grey_table(pal_rgb)
    return _TEMPLATE.format(
        ale_version=ale_version,
        ntsc_rgb=_array_text("NTSC_RGB", ntsc_rgb, "Even entries measured; odd entries (never on an "
                             "NTSC screen) filled by the odd-index rule."),
        pal_rgb=_array_text("PAL_RGB", pal_rgb, "All 256 entries measured."),
        example=(f"PAL index 31 shows as RGB {tuple(int(c) for c in pal_rgb[31])} (the grey of "
                 f"index 30)\n  but its grey is {grey[31]}, the blue of PAL_RGB[32] = "
                 f"{tuple(int(c) for c in pal_rgb[32])}."))


_TEMPLATE = '''"""ALE's colour palettes: palette index (what `getScreen()` gives) to RGB and to grey.

GENERATED by tools/measure_palette.py: the RGB tables below were measured from ale-py
{ale_version}'s own output (`getScreen`, `getScreenRGB`, `getScreenGrayscale` of test cartridges of
ours that paint every index); they are not copied from ALE or Stella. Do not edit by hand: rerun
the tool (`--check` compares). tests/test_palette.py measures them again, live.

    >>> import numpy as np
    >>> from cule_py.palette import to_rgb, to_grayscale
    >>> screen = np.zeros((210, 160), np.uint8)              # an ALE screen of palette indices
    >>> to_rgb(screen, pal=False).shape, to_grayscale(screen, pal=False).dtype
    ((210, 160, 3), dtype('uint8'))

What the measurement found:

* Even indices are the colours; NTSC and PAL have different tables.
* Odd indices appear only in PAL games (ALE's colour-loss emulation sets bit 0 of the colour
  registers after a frame with an odd line count), and `getScreenRGB` shows them without colour:
  RGB[i] = (y, y, y) with y = the grey of the even index i - 1. Measured for all 128 odd PAL
  indices. NTSC never shows an odd index; those 128 entries are filled by the same rule so that
  the tables are total.
* Grey of an even index i is exactly
      GRAY[i] = (2989 R + 5870 G + 1140 B + 5000) // 10000      (R, G, B = RGB[i])
  i.e. 0.2989 R + 0.5870 G + 0.1140 B rounded to nearest (BT.601 luma with MATLAB rgb2gray's
  weights); no product lands within 0.004 of a tie. It reproduces all 256 measured even greys
  (128 NTSC + 128 PAL); with 0.299 for red one of them is off by one.
* Grey of an odd index i is the *blue* component of the next colour, GRAY[i] = RGB[(i + 1) % 256][2]
  (measured for all 128 odd PAL indices, and given to NTSC's odd ones, which never show; ALE
  reads palette entry i + 1 for the grey of index i, for an odd i the next colour's packed RGB). So a PAL colour-loss pixel looks grey in
  `getScreenRGB` but gets an unrelated value in `getScreenGrayscale`. For example
  {example}

The grey tables are therefore computed from the RGB tables by these two rules (`_grey_table`),
not stored; tests/test_palette.py checks them against ale-py's `getScreenGrayscale`.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ._jit_cache import CACHE_ENABLED

__all__ = ["NTSC_RGB", "PAL_RGB", "NTSC_GRAY", "PAL_GRAY", "to_rgb", "to_grayscale"]


def _table(rows) -> np.ndarray:
    table = np.array(rows, dtype=np.uint8)
    table.setflags(write=False)
    return table


{ntsc_rgb}
{pal_rgb}

def _grey_table(rgb: np.ndarray) -> np.ndarray:
    r, g, b = (rgb[:, k].astype(np.int32) for k in range(3))
    grey = (r * 2989 + g * 5870 + b * 1140 + 5000) // 10000      # even indices: the luma
    grey[1::2] = rgb[(np.arange(1, 256, 2) + 1) % 256, 2]         # odd indices: next colour's blue
    table = grey.astype(np.uint8)
    table.setflags(write=False)
    return table


NTSC_GRAY = _grey_table(NTSC_RGB)
PAL_GRAY = _grey_table(PAL_RGB)


_RGB_TABLES = {{False: np.ascontiguousarray(NTSC_RGB, np.uint8).reshape(256, 3),
               True: np.ascontiguousarray(PAL_RGB, np.uint8).reshape(256, 3)}}


# Each colour as one little-endian 24-bit word (R | G << 8 | B << 16), for the packed stores below.
_RGB_WORDS = {{pal: (table[:, 0].astype(np.uint64) | (table[:, 1].astype(np.uint64) << 8)
                    | (table[:, 2].astype(np.uint64) << 16))
              for pal, table in _RGB_TABLES.items()}}


@njit(cache=CACHE_ENABLED, nogil=True, inline="always")
def _store_eight(indices, i, words, out, w):
    """Pixels i..i+7 as three 8-byte stores at out[w..w+2] instead of 24 byte stores."""
    c0 = words[indices[i]]
    c1 = words[indices[i + 1]]
    c2 = words[indices[i + 2]]
    c3 = words[indices[i + 3]]
    c4 = words[indices[i + 4]]
    c5 = words[indices[i + 5]]
    c6 = words[indices[i + 6]]
    c7 = words[indices[i + 7]]
    out[w] = c0 | (c1 << 24) | (c2 << 48)
    out[w + 1] = (c2 >> 16) | (c3 << 8) | (c4 << 32) | (c5 << 56)
    out[w + 2] = (c5 >> 8) | (c6 << 16) | (c7 << 40)


@njit(cache=CACHE_ENABLED, nogil=True)
def _fill_rgb_words(indices, words, out):
    """RGB bytes of `indices` (a multiple of 8 pixels) into `out` (uint64, 3 words per 8
    pixels). 16 Pong screens via AtariEmulator.screen_rgb: 0.22 ms, against 0.52 ms for the
    index copy and byte loop before (same run, min of 15 repeats, 2-core EPYC VM)."""
    for block in range(np.uint64(indices.size // 8)):    # unsigned: no negative-index wrap
        _store_eight(indices, block * np.uint64(8), words, out, block * np.uint64(3))


@njit(cache=CACHE_ENABLED, nogil=True)
def _fill_rgb_screens(frame_buffers, rows, buffers, height, words, out):
    """The RGB screens of consoles `rows` straight from their frame buffers (the one each
    console's TIA finished last, `buffers`), without a copy of the indices first."""
    for k in range(rows.size):
        _fill_rgb_words(frame_buffers[rows[k], buffers[k], :height].reshape(-1), words, out[k])


def _rgb_out(shape, out) -> np.ndarray:
    if out is None:
        return np.empty(shape, np.uint8)
    if not (isinstance(out, np.ndarray) and out.shape == shape and out.dtype == np.uint8
            and out.flags.c_contiguous and out.flags.writeable):
        raise ValueError(f"out must be a writable C-contiguous uint8 numpy array of shape {{shape}}")
    return out


def to_rgb(screen: np.ndarray, pal: bool, out: np.ndarray | None = None) -> np.ndarray:
    """`getScreenRGB()` from `getScreen()`: uint8 indices of any shape -> that shape + (3,),
    written into `out` where given."""
    screen = np.ascontiguousarray(screen, dtype=np.uint8)
    out = _rgb_out(screen.shape + (3,), out)
    flat = screen.reshape(-1)
    whole = flat.size - flat.size % 8
    _fill_rgb_words(flat[:whole], _RGB_WORDS[bool(pal)], out.reshape(-1)[:whole * 3].view(np.uint64))
    if whole < flat.size:
        out.reshape(-1, 3)[whole:] = _RGB_TABLES[bool(pal)][flat[whole:]]
    return out


def frame_buffers_to_rgb(frame_buffers: np.ndarray, rows: np.ndarray, buffers: np.ndarray,
                         height: int, pal: bool, out: np.ndarray | None = None) -> np.ndarray:
    """(len(rows), height, 160, 3) RGB of `frame_buffers[rows[k], buffers[k], :height]` (a
    console batch's screens) in one pass, written into `out` where given."""
    rows = np.ascontiguousarray(rows, np.int64)
    buffers = np.ascontiguousarray(buffers, np.int64)
    out = _rgb_out((rows.size, height, frame_buffers.shape[-1], 3), out)
    _fill_rgb_screens(frame_buffers, rows, buffers, height, _RGB_WORDS[bool(pal)],
                      out.reshape(rows.size, -1).view(np.uint64))
    return out


def to_grayscale(screen: np.ndarray, pal: bool) -> np.ndarray:
    """`getScreenGrayscale()` from `getScreen()`: uint8 indices -> uint8 grey, same shape."""
    return (PAL_GRAY if pal else NTSC_GRAY)[np.asarray(screen, dtype=np.uint8)]
'''


def tables_from_ale() -> dict[str, tuple[np.ndarray, list[int]]]:
    """Measure; complete the RGB tables; check the grey rules against every measured grey."""
    tables = {}
    for name, m in measure().items():
        rgb, filled = fill_unobservable(m, name)
        seen = m.seen()
        bad = np.flatnonzero(seen & (grey_table(rgb) != m.grey))
        if len(bad):
            raise AssertionError(f"{name}: the grey rules miss indices {bad.tolist()}")
        tables[name] = rgb, filled
    if tables["pal"][1]:
        raise AssertionError(f"PAL odd indices never seen: {tables['pal'][1]}")
    return tables


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare with cule_py/palette.py")
    args = parser.parse_args()
    text = render(tables_from_ale())
    if args.check:
        same = PALETTE_PY.exists() and PALETTE_PY.read_text() == text
        print("cule_py/palette.py is up to date" if same else "cule_py/palette.py differs")
        return 0 if same else 1
    PALETTE_PY.write_text(text)
    print(f"wrote {PALETTE_PY.relative_to(REPO)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
