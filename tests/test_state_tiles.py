"""The GPU's state rows in tiles of 32 consoles (kernels/gpu/state_tiles.py) and the host's view of
them (_device.StateTiles), against a plain (consoles, FIELDS) numpy array given the same reads
and writes."""

from __future__ import annotations

import numpy as np
import pytest

from cule_py._device import StateTiles
from cule_py.kernels.gpu.state_tiles import TILE, _console_row_python, from_tiles, to_tiles

FIELDS = 7


def _rows(consoles: int, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).integers(-1000, 1000, (consoles, FIELDS), dtype=np.int32)


@pytest.mark.parametrize("consoles", [1, 31, 32, 33, 70])
def test_tiles_round_trip_and_layout(consoles):
    rows = _rows(consoles)
    tiles = to_tiles(rows)
    assert tiles.shape == (-(-consoles // TILE), FIELDS, TILE) and tiles.flags.c_contiguous
    np.testing.assert_array_equal(from_tiles(tiles, consoles), rows)
    # console 32 b + l, field f at tiles[b, f, l]: one field of a warp's consoles is contiguous
    for console in (0, consoles - 1, consoles // 2):
        for field in range(FIELDS):
            assert tiles[console // TILE, field, console % TILE] == rows[console, field]


@pytest.mark.parametrize("consoles", [5, 33, 70])
def test_console_row_reads_and_writes_one_console(consoles):
    rows = _rows(consoles, 1)
    tiles = to_tiles(rows)
    for env in range(consoles):
        row = _console_row_python(tiles, env)
        assert row.shape == (tiles.shape[0] * TILE, FIELDS)
        # whatever console index the kernel passes, the row is env's (stride 0)
        for index in (env, 0, consoles - 1):
            np.testing.assert_array_equal(row[index], rows[env])
        row[env, 3] = -env - 7
    expected = rows.copy()
    expected[:, 3] = -np.arange(consoles) - 7
    np.testing.assert_array_equal(from_tiles(tiles, consoles), expected)


def test_host_view_indexes_like_the_cpu_rows():
    consoles = 45
    reference = _rows(consoles, 2)
    state = StateTiles(np, np.zeros((2, FIELDS, TILE), np.int32), consoles)
    state[:] = reference
    assert state.shape == reference.shape and len(state) == consoles
    assert state.nbytes == 2 * TILE * FIELDS * 4               # 45 consoles: two tiles
    np.testing.assert_array_equal(state.rows(), reference)
    np.testing.assert_array_equal(np.asarray(state), reference)
    mask = np.arange(consoles) % 3 == 1
    picks = np.array([44, 0, 33, 31, 32])
    for key in [(slice(None), 4), (picks, 2), (mask, 6), 40, (41, 5), picks, mask,
                slice(3, 40, 4), (-1, 0)]:
        np.testing.assert_array_equal(state[key], reference[key], err_msg=repr(key))
    writes = [((slice(None), 1), 9), ((mask, 2), -3), ((picks, 0), np.arange(5)),
              (picks, np.full((5, FIELDS), 11)), ((mask, 5), np.arange(mask.sum())), (7, 0),
              ((12, 6), 123)]
    for key, value in writes:
        state[key] = value
        reference[key] = value
        np.testing.assert_array_equal(state.rows(), reference, err_msg=repr(key))
    # the padding consoles of the last tile stay zero
    assert not state.tiles[-1, :, consoles % TILE:].any()
    with pytest.raises(IndexError):
        state[consoles, 0]
    with pytest.raises(IndexError):
        state[np.ones(consoles + 1, np.bool_), 0]
    with pytest.raises(IndexError):
        state[np.array([0, consoles]), 0]


def test_console_row_intrinsic_compiles_the_same_view():
    """The intrinsic the CUDA kernels use, compiled here for the CPU (its codegen is LLVM for
    either target): the view it builds reads and writes what the simulator's numpy view does,
    for state tiles (3-D) and work-row tiles (4-D)."""
    from numba import njit

    from cule_py.kernels.gpu.state_tiles import _console_row

    @njit(cache=False)
    def copy_rows(tiles, env, out):
        row = _console_row(tiles, env)
        for f in range(row.shape[1]):
            out[f] = row[env, f]
            row[0, f] = row[env, f] + 1          # any console index: env's row (stride 0)

    @njit(cache=False)
    def copy_rows_3(tiles, env, out):
        row = _console_row(tiles, env)
        for s in range(row.shape[1]):
            for k in range(row.shape[2]):
                out[s, k] = row[env, s, k]
                row[env, s, k] = -row[0, s, k]

    consoles = 70
    rows = _rows(consoles, 3)
    tiles = to_tiles(rows)
    for env in (0, 31, 32, 45, 69):
        out = np.zeros(FIELDS, np.int32)
        copy_rows(tiles, env, out)
        np.testing.assert_array_equal(out, rows[env])
        rows[env] += 1
        np.testing.assert_array_equal(from_tiles(tiles, consoles), rows)
    work = np.random.default_rng(4).integers(0, 255, (consoles, 2, 9), dtype=np.uint8)
    work_tiles = to_tiles(work)
    for env in (1, 33, 69):
        out = np.zeros((2, 9), np.uint8)
        copy_rows_3(work_tiles, env, out)
        np.testing.assert_array_equal(out, work[env])
        work[env] = -work[env]
        np.testing.assert_array_equal(from_tiles(work_tiles, consoles), work)
