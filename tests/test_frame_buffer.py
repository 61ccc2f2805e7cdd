"""The frame buffers hold 8 pixels a uint64 word (kernels/tia/frame_buffer.py). The TIA's stores
(whole blocks, a run in one colour, a block's part as a read-modify-write), the grey-out and the
pixel read, against numpy on the same bytes: every start and stop of a row, so both ragged ends
and runs inside one block are covered."""

import numpy as np
from numba import njit

from cule_py.kernels.tia import frame_buffer as F


@njit(cache=False)
def _fill(fb, buf, row, x, stop, colour):
    F.fill_pixels(fb[1, buf, row], x, stop, colour)


@njit(cache=False)
def _store(fb, buf, row, x, stop, lanes):
    F.store_lanes(fb[1, buf, row], x, stop, lanes)


@njit(cache=False)
def _grey_out(fb, buf, row):
    F.grey_out_row(fb[1, buf, row])


@njit(cache=False)
def _pixels(fb, buf, row):
    out = np.empty(160, np.uint8)
    for x in range(160):
        out[x] = F.pixel(fb, 1, buf, row, x)
    return out


def _frames(seed):
    return np.random.default_rng(seed).integers(0, 2**64, (3, 2, 4, 20), dtype=np.uint64)


def test_fill_pixels_every_run_of_a_row():
    colour = 0x5A
    for x in range(160):
        for stop in range(x, 161):
            fb = _frames(x * 161 + stop)
            expected = fb.copy()
            expected.view(np.uint8)[1, 1, 2, x:stop] = colour
            _fill(fb, 1, 2, x, stop, np.uint64(colour * 0x0101010101010101))
            assert np.array_equal(fb, expected), (x, stop)


def test_store_lanes_every_part_of_a_block():
    rng = np.random.default_rng(3)
    for block in (0, 7, 19):
        for first in range(8):
            for stop in range(first + 1, 9):
                fb = _frames(block * 100 + first * 10 + stop)
                lanes = rng.integers(0, 256, 8, dtype=np.uint8)
                expected = fb.copy()
                x0 = 8 * block
                expected.view(np.uint8)[1, 0, 3, x0 + first:x0 + stop] = lanes[first:stop]
                _store(fb, 0, 3, x0 + first, x0 + stop, lanes.view(np.uint64)[0])
                assert np.array_equal(fb, expected), (block, first, stop)


def test_grey_out_and_pixel_read():
    fb = _frames(11)
    expected = fb.copy()
    row = expected.view(np.uint8)[1, 1, 1]
    row[:] = (row & 0x0F) >> 1
    _grey_out(fb, 1, 1)
    assert np.array_equal(fb, expected)
    assert np.array_equal(_pixels(fb, 0, 2), fb.view(np.uint8)[1, 0, 2])
