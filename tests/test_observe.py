"""The agent step's observation pass (`agent_step.observe`) against plain numpy: the max-pool of
the step's two screens wherever they are (a screen buffer through the palette, raw[1], or raw[0]
as the last observation left it), kept whole in raw[0], and its area resize, equal to
`area_resize.resize_area` (itself checked against ale-py's screens in test_agent_step_vs_ale.py).

The agent-step tests against ale-py run this pass too, but the rare combinations (a step ending
on its last frame, the last frame continuing a partial frame) come up there only now and then;
here each is checked on its own, in grayscale and RGB, NTSC and PAL heights."""

from __future__ import annotations

import numpy as np
import pytest
from numba import njit

from cule_py import palette as P
from cule_py.area_resize import area_table, resize_area, tap_major_table
from cule_py.kernels.agent import agent_step as K
from cule_py.kernels.structs import Screen

NONE, RAW1 = K.SRC_NONE, K.SRC_RAW1


@njit(cache=False)
def _observe_jit(fb, screen, cfg, env, newest, older, fused):
    K.observe(fb, screen, 1, cfg, env, newest, older, fused)


def _x_table(xd, xs, xa, fused):
    """The x table as each side's kernels read it: by destination on the GPU (fused), by layer
    on the CPU (AtariVectorEnv builds it so)."""
    return (xd, xs, xa) if fused else tap_major_table(xd, xs, xa)


def _observe(fb, palette, raw, obs, scratch, cfg, xd, xs, xa, yd, ys, ya, env, newest, older,
             fused):
    xd, xs, xa = _x_table(xd, xs, xa, fused)
    _observe_jit(fb, Screen(palette, raw, scratch, obs, xd, xs, xa, yd, ys, ya), cfg, env,
                 newest, older, fused)


def _case(height, rgb, seed, width=84):
    rng = np.random.default_rng(seed)
    n, ch = 3, 3 if rgb else 1
    palette = (np.array(P.NTSC_RGB, np.uint8) if rgb
               else np.array(P.NTSC_GRAY, np.uint8).reshape(256, 1))
    fb = rng.integers(0, 256, (n, 2, 250, 160), dtype=np.uint8)
    # Rows repeated in runs, as games draw them (the pass reuses an equal row's horizontal
    # pass), above noise.
    half = height // 2
    fb[:, :, :half] = fb[:, :, :half:3].repeat(3, axis=2)[:, :, :half]
    fb[:, :, 4, 77] = fb[:, :, 3, 77] ^ 0x08       # one pixel's luminance differs from above
    raw = rng.integers(0, 256, (n, 2, height * 160 * ch), dtype=np.uint8)
    cfg = np.zeros(K.CFG_FIELDS, np.int32)
    cfg[K.C_CHANNELS], cfg[K.C_SRC_H], cfg[K.C_DST_H], cfg[K.C_DST_W] = ch, height, 84, width
    tables = [*area_table(160, width), *area_table(height, 84)]
    return fb, palette, raw, cfg, tables, ch


def _screen(fb, palette, env, buffer, height, ch):
    return palette[fb[env, buffer, :height]].reshape(height, 160, ch)


# fused: equal rows found while pooling (the GPU's way) or in a pass of their own (the CPU's)
@pytest.mark.parametrize("fused", [False, True])
@pytest.mark.parametrize("height,rgb", [(210, False), (250, False), (210, True)])
@pytest.mark.parametrize("newest,older", [(0, 1), (1, 0), (1, NONE), (0, RAW1), (NONE, 1),
                                          (NONE, RAW1), (NONE, NONE)])
def test_observe_pools_and_resizes_like_numpy(height, rgb, newest, older, fused):
    fb, palette, raw, cfg, tables, ch = _case(height, rgb, seed=height + 7 * rgb + 3 * newest)
    env = 1
    shape = (height, 160, ch)
    before = raw[env].copy()
    a = (_screen(fb, palette, env, newest, height, ch) if newest >= 0
         else before[0].reshape(shape))
    if older == RAW1:
        pooled = np.maximum(a, before[1].reshape(shape))
    elif older >= 0:
        pooled = np.maximum(a, _screen(fb, palette, env, older, height, ch))
    else:
        pooled = a
    obs = np.zeros((3, 2, 84 * 84 * ch), np.uint8)
    scratch = np.zeros((3, 2, 84 * ch), np.float32)
    # The kernels' frame buffers hold 8 pixels a uint64 word, pixel 8 * block + i in byte i.
    _observe(fb.view(np.uint64), palette, raw, obs, scratch, cfg, *tables, env, np.int32(newest),
             np.int32(older), fused)
    expected = resize_area(pooled if rgb else pooled[:, :, 0], 84, 84)
    assert np.array_equal(raw[env, 0].reshape(shape), pooled), "raw[0] is the pooled screen"
    assert np.array_equal(raw[env, 1], before[1]), "raw[1] is only read"
    assert np.array_equal(obs[env, 1], expected.reshape(-1))
    assert not obs[env, 0].any() and not obs[0].any() and not obs[2].any(), "one slot written"


# Output widths whose x tables have 1, 2, 3 and 5 layers (160, 128, 64 and 42 pixels): the
# CPU's grayscale pass sums 3 layers in a register and any other count layer by layer.
@pytest.mark.parametrize("fused", [False, True])
@pytest.mark.parametrize("width", [42, 64, 128, 160])
def test_grayscale_widths_resize_like_numpy(width, fused):
    height = 210
    fb, palette, raw, cfg, tables, ch = _case(height, False, seed=width, width=width)
    env = 1
    pooled = np.maximum(_screen(fb, palette, env, 0, height, ch),
                        _screen(fb, palette, env, 1, height, ch))
    obs = np.zeros((3, 2, 84 * width), np.uint8)
    scratch = np.zeros((3, 2, width), np.float32)
    _observe(fb.view(np.uint64), palette, raw, obs, scratch, cfg, *tables, env, np.int32(0),
             np.int32(1), fused)
    assert np.array_equal(raw[env, 0].reshape(height, 160, 1), pooled)
    assert np.array_equal(obs[env, 1], resize_area(pooled[:, :, 0], 84, width).reshape(-1))


# The CPU sums again only the destinations a row's changed words reach (reduce_changed): rows
# that differ from the one above in a few words, anywhere (the edges included), in either
# screen, at widths whose x tables have three layers.
@pytest.mark.parametrize("width", [64, 84, 100])
def test_rows_changed_in_a_few_words_resize_like_numpy(width):
    height, env = 210, 0
    rng = np.random.default_rng(width)
    fb, palette, raw, cfg, tables, ch = _case(height, False, seed=width, width=width)
    words = fb.view(np.uint64)                      # (consoles, 2, 250, 20)
    for y in range(1, height):
        words[env, :, y] = words[env, :, y - 1]
        for _ in range(rng.integers(0, 4)):
            words[env, rng.integers(0, 2), y, rng.choice([0, 19, rng.integers(0, 20)])] = \
                rng.integers(0, 2**63, dtype=np.uint64)
    pooled = np.maximum(_screen(fb, palette, env, 0, height, ch),
                        _screen(fb, palette, env, 1, height, ch))
    obs = np.zeros((3, 2, 84 * width), np.uint8)
    scratch = np.zeros((3, 2, width), np.float32)
    _observe(words, palette, raw, obs, scratch, cfg, *tables, env, np.int32(0), np.int32(1),
             False)
    assert np.array_equal(obs[env, 1], resize_area(pooled[:, :, 0], 84, width).reshape(-1))


@njit(cache=False)
def _observe_bands_jit(fb, screen, cfg, env, newest, older, fused, order):
    for band in order:
        K.observe_rows(fb, screen, 1, cfg, env, newest, older, fused, band, len(order))


def _observe_bands(fb, palette, raw, obs, scratch, cfg, xd, xs, xa, yd, ys, ya, env, newest,
                   older, fused, order):
    xd, xs, xa = _x_table(xd, xs, xa, fused)
    _observe_bands_jit(fb, Screen(palette, raw, scratch, obs, xd, xs, xa, yd, ys, ya), cfg, env,
                       newest, older, fused, order)


# The GPU's observation launch (agent_observe_cuda) makes an observation in bands of output
# rows, one thread each, in no particular order: the bands run here one after another in every
# order that could matter (top down, bottom up, interleaved); each must leave raw[0] and the
# observation exactly as one pass does. 5 bands split 84 rows unevenly; 84, one row each; 100,
# more bands than rows (some empty).
@pytest.mark.parametrize("fused", [False, True])
@pytest.mark.parametrize("bands", [2, 5, 12, 84, 100])
@pytest.mark.parametrize("newest,older", [(0, 1), (1, NONE), (0, RAW1), (NONE, 1), (NONE, RAW1)])
def test_bands_in_any_order_equal_one_pass(bands, newest, older, fused):
    for height, rgb in [(210, False), (250, True)]:
        fb, palette, raw, cfg, tables, ch = _case(height, rgb, seed=bands + 11 * (newest + 1))
        env = 2
        obs = np.zeros((3, 2, 84 * 84 * ch), np.uint8)
        scratch = np.zeros((3, 2, 84 * ch), np.float32)
        whole_raw = raw.copy()
        _observe(fb.view(np.uint64), palette, whole_raw, obs, scratch, cfg, *tables, env,
                 np.int32(newest), np.int32(older), fused)
        for order in (np.arange(bands), np.arange(bands)[::-1],
                      np.r_[np.arange(0, bands, 2), np.arange(1, bands, 2)][::-1]):
            banded_raw = raw.copy()
            banded = np.zeros_like(obs)
            band_scratch = np.full((3, 2 * bands, 84 * ch), np.nan, np.float32)
            _observe_bands(fb.view(np.uint64), palette, banded_raw, banded, band_scratch, cfg,
                           *tables, env, np.int32(newest), np.int32(older), fused,
                           order.astype(np.int64))
            assert np.array_equal(banded_raw, whole_raw), (height, order[:3])
            assert np.array_equal(banded, obs), (height, order[:3])


@njit(cache=False)
def _shift_stack(obs, env, stack, first, past):
    K.shift_stack(obs, env, stack, first, past)


@pytest.mark.parametrize("size, first, past", [
    (84 * 84, 0, 84 * 84),            # grayscale, one band: whole words
    (84 * 84, 84 * 7, 84 * 14),       # a band of 7 rows: words from its first
    (84 * 84 * 3, 252 * 3, 252 * 10),  # RGB
    (85 * 85, 85 * 7, 85 * 14),       # rows of 85 bytes: the byte loop
    (84 * 84 + 2, 0, 84 * 84 + 2),    # a slot that is not whole words
])
def test_shift_stack_moves_each_band_one_slot_older(size, first, past):
    """shift_stack (the stack's shift, 4 bytes at a time where it can) against numpy: the band's
    bytes of slots 1.. move to 0.., slot stack-1 keeps its own, other bytes and consoles stay."""
    rng = np.random.default_rng(size + first)
    obs = rng.integers(0, 256, (3, 4, size), dtype=np.uint8)
    expected = obs.copy()
    expected[1, :-1, first:past] = obs[1, 1:, first:past]
    _shift_stack(obs, 1, 4, first, past)
    assert (obs == expected).all()
