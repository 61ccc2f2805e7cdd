"""One console passed by address (kernels/outlining.py): on the CPU, the out-of-line TIA call
takes the console's state row and frame buffers as two addresses and rebuilds one-console arrays
of constant shape. Reads and writes through those arrays must land on the batch arrays' row of
that console and nowhere else."""

import numpy as np
from numba import njit
from numba.extending import register_jitable

from cule_py.kernels import layout as L
from cule_py.kernels.console import _ONE_CONSOLE_FRAMES, _ONE_CONSOLE_STATE
from cule_py.kernels.outlining import console_address, console_at


@register_jitable(forceinline=False)
def _touch(st_address, fb_address, field, value, buf, row, column, block):
    st = console_at(st_address, np.int32, _ONE_CONSOLE_STATE)
    fb = console_at(fb_address, np.uint8, _ONE_CONSOLE_FRAMES)
    before = st[0, field]
    st[0, field] = value
    fb[0, buf, row, column] = np.uint8(value & 0xFF)
    fb.view(np.uint64)[0, buf, row, block] = np.uint64(0x0807060504030201)
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
    fb = rng.integers(0, 256, (consoles,) + L.FRAME_BUFFER_SHAPE).astype(np.uint8)
    for env, field, buf, row, column, block in [(0, 0, 0, 0, 0, 0),
                                                (3, L.STATE_FIELDS - 1, 1, 249, 159, 19),
                                                (4, L.TIA_COLUBK, 1, 17, 3, 11),
                                                (2, L.CPU_PC, 0, 120, 99, 2)]:
        expected_st, expected_fb = st.copy(), fb.copy()
        before = _touch_console(st, fb, env, field, 1234567, buf, row, column, block)
        assert before == expected_st[env, field]
        expected_st[env, field] = 1234567
        expected_fb[env, buf, row, column] = 1234567 & 0xFF
        expected_fb[env, buf, row, 8 * block:8 * block + 8] = np.arange(1, 9)
        np.testing.assert_array_equal(st, expected_st)
        np.testing.assert_array_equal(fb, expected_fb)
