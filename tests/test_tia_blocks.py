"""The 8-pixel blocks draw_pixels runs its per-object lookups in (tia.player_blocks,
missile_blocks, block_span) cover every pixel at which the object's mask row is on, for every
position and NUSIZ setting: a pixel left out would miss its colour and its collisions."""

import numpy as np
import pytest

from cule_py.kernels.tia import tia


def _on_pixels(table, row, pos):
    """Pixels x (0..159) whose entry row*320 + 160 - pos + x is non-zero, as draw_pixels reads."""
    base = row * tia.MASK_SPAN + 160 - pos
    return np.nonzero(table[base:base + 160])[0]


def _uncovered(pixels, blocks):
    return [int(x) for x in pixels if not (blocks >> (x >> 3)) & 1]


@pytest.mark.parametrize("mode", range(8))
def test_player_blocks_cover_every_drawn_pixel(mode):
    for suppress in (0, 1):
        tightness = []
        for pos in range(160):
            pixels = _on_pixels(tia.PLAYER_MASKS, mode * 2 + suppress, pos)
            blocks = int(tia.player_blocks(pos, mode, suppress))
            assert _uncovered(pixels, blocks) == [], (mode, suppress, pos)
            tightness.append(bin(blocks).count("1") * 8 - len(pixels))
        # Not everything: at most the partial blocks at the ends of each copy are extra.
        assert max(tightness) <= 8 * 2 * 5


@pytest.mark.parametrize("mode", range(8))
def test_missile_blocks_cover_every_drawn_pixel(mode):
    for size in range(4):
        for pos in range(160):
            pixels = _on_pixels(tia.MISSILE_MASKS, mode * 4 + size, pos)
            blocks = int(tia.missile_blocks(pos, mode, size))
            assert _uncovered(pixels, blocks) == [], (mode, size, pos)
            assert bin(blocks).count("1") <= 2 * 5


def test_ball_blocks_cover_every_drawn_pixel():
    for size in range(4):
        for pos in range(160):
            pixels = _on_pixels(tia.BALL_MASKS, size, pos)
            blocks = int(tia.block_span(pos, 1 << size))
            assert _uncovered(pixels, blocks) == [], (size, pos)
            assert bin(blocks).count("1") <= 2


def test_block_span_wraps_at_the_line_end():
    assert tia.block_span(158, 4) == (1 << 19) | 1
    assert tia.block_span(0, 8) == 1
    assert tia.block_span(8, 1) == 2
    assert tia.block_span(152, 8) == 1 << 19


def test_block_table_equals_the_block_functions():
    """draw_pixels reads blocks_at (a pattern per setting, turned by pos >> 3): the same blocks
    as player_blocks / missile_blocks / block_span at every position."""
    for pos in range(160):
        for mode in range(8):
            for suppress in range(2):
                assert tia.blocks_at(tia.BLOCK_ROWS_PLAYER + mode * 2 + suppress, pos) == \
                    tia.player_blocks(pos, mode, suppress), (pos, mode, suppress)
            for size in range(4):
                assert tia.blocks_at(tia.BLOCK_ROWS_MISSILE + mode * 4 + size, pos) == \
                    tia.missile_blocks(pos, mode, size), (pos, mode, size)
        for size in range(4):
            assert tia.blocks_at(tia.BLOCK_ROWS_BALL + size, pos) == \
                tia.block_span(pos, 1 << size), (pos, size)
