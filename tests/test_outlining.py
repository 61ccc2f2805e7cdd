"""One console passed by address (kernels/frame_loop/outlining.py): on the CPU, the out-of-line TIA
call takes the console's state row and frame buffers as two addresses and rebuilds one-console
arrays of constant shape. Reads and writes through those arrays must land on the batch arrays' row
of that console and nowhere else."""

import numpy as np
from numba import njit
from numba.extending import register_jitable

from cule_py.kernels import layout as L
from cule_py.kernels.frame_loop.bus import _ONE_CONSOLE_FRAMES, _ONE_CONSOLE_STATE
from cule_py.kernels.tia.frame_buffer import store_lanes
from cule_py.kernels.frame_loop.outlining import console_address, console_at


@register_jitable(forceinline=False)
def _touch(st_address, fb_address, field, value, buf, row, column, block):
    st = console_at(st_address, np.int32, _ONE_CONSOLE_STATE)
    fb = console_at(fb_address, L.FRAME_BUFFER_DTYPE, _ONE_CONSOLE_FRAMES)
    before = st[0, field]
    st[0, field] = value
    # One pixel (a read-modify-write of its word), then one whole word.
    store_lanes(fb[0, buf, row], column, column + 1,
                np.uint64(value & 0xFF) << np.uint64((column & 7) * 8))
    fb[0, buf, row, block] = np.uint64(0x0807060504030201)
    return before


# Not cached: numba keys a cache on this file alone.
@njit(cache=False, _nrt=False)
def _touch_console(st, fb, env, field, value, buf, row, column, block):
    return _touch(console_address(st, env), console_address(fb, env), field, value, buf, row,
                  column, block)


def test_one_console_views_are_the_consoles_rows():
    rng = np.random.default_rng(7)
    consoles = 5
    st = rng.integers(-2**31, 2**31 - 1, (consoles, L.STATE_FIELDS)).astype(np.int32)
    fb = rng.integers(0, 2**64, (consoles,) + L.FRAME_BUFFER_SHAPE, dtype=L.FRAME_BUFFER_DTYPE)
    for env, field, buf, row, column, block in [(0, 0, 0, 0, 0, 0),
                                                (3, L.STATE_FIELDS - 1, 1, 249, 159, 19),
                                                (4, L.TIA_COLUBK, 1, 17, 3, 11),
                                                (2, L.CPU_PC, 0, 120, 99, 2)]:
        expected_st, expected_fb = st.copy(), fb.copy()
        pixels = expected_fb.view(np.uint8)              # (consoles, 2, 250, 160)
        before = _touch_console(st, fb, env, field, 1234567, buf, row, column, block)
        assert before == expected_st[env, field]
        expected_st[env, field] = 1234567
        pixels[env, buf, row, column] = 1234567 & 0xFF
        pixels[env, buf, row, 8 * block:8 * block + 8] = np.arange(1, 9)
        np.testing.assert_array_equal(st, expected_st)
        np.testing.assert_array_equal(fb, expected_fb)


def test_the_cpu_batch_arrays_take_the_by_address_call(monkeypatch):
    """The CPU's TIA calls pass a console by address only for the batch's own array types; a
    change of the arrays' dtype or layout would silently fall back to the generic call (22
    argument words an array: the CPU's frames ~10% slower, measured 2026-11-28)."""
    import numba

    from cule_py.batch import ConsoleBatch
    from cule_py.kernels.frame_loop.bus import _rows_by_address

    # The arrays as allocated, without powering on (which would compile the console kernels:
    # CI runs this file beside their compile).
    monkeypatch.setattr(ConsoleBatch, "power_on", lambda self: None)
    batch = ConsoleBatch("pong", 2)
    assert _rows_by_address(numba.typeof(batch.state), numba.typeof(batch.frame_buffers))
