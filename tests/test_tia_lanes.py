"""draw_pixels works on 8-pixel blocks in uint64 lanes (tia.py, "8 pixels at a time"). These
tests hold it to a per-pixel model written from the mask tables and ALE's priority rules: the
pixels and collision latches of random TIA states, every segment start and length. The games
(tests/test_emulator_vs_ale.py, tools/sweep.py) show the same against ale-py; this covers the
combinations they may never reach (score with priority, every NUSIZ, partial blocks at both
ends, skip-draw)."""

import numpy as np
import pytest
from numba import njit

from cule_py.kernels import layout as L
from cule_py.kernels.tia import tia

P0, P1, M0, M1, BL, PF = tia.P0, tia.P1, tia.M0, tia.M1, tia.BL, tia.PF


# Not cached: numba keys a cache on this file alone and would keep running an older tia.py.
@njit(cache=False)
def _draw(st, fb, row, x0, n):
    tia.draw_pixels(st, fb, 0, row, x0, n)


@njit(cache=False)
def _lanes_of(table_id, entry, graphics):
    if table_id == 0:
        return tia.player_lanes(entry, graphics)
    if table_id == 1:
        return tia.missile_lanes(entry)
    return tia.mask_lanes(tia.BALL_LANES, entry) * tia.BYTE


@njit(cache=False)
def _latch(collision, p0, p1, m0, m1, bl, pf):
    return tia.latch_collisions(collision, p0, p1, m0, m1, bl, pf)


def _lanes_expected(table, entry, graphics=None):
    values = table[entry:entry + 8].astype(np.int64)
    on = (values & graphics) != 0 if graphics is not None else values != 0
    return sum(0xFF << (8 * i) for i in range(8) if on[i])


def test_mask_lanes_read_eight_table_entries():
    rng = np.random.default_rng(1)
    tables = ((0, tia.PLAYER_MASKS), (1, tia.MISSILE_MASKS), (2, tia.BALL_MASKS))
    for table_id, table in tables:
        entries = list(range(0, 24)) + list(range(table.size - 24, table.size - 7)) \
            + list(rng.integers(0, table.size - 7, 400))
        for entry in entries:
            graphics = int(rng.integers(0, 256)) if table_id == 0 else None
            got = int(_lanes_of(table_id, int(entry), graphics or 0))
            assert got == _lanes_expected(table, int(entry), graphics), (table_id, entry)


@njit(cache=False)
def _next_block_set(blocks, block):
    return tia.next_block_set(np.int32(blocks), np.int32(block))


def test_next_block_set_finds_the_first_block_after():
    rng = np.random.default_rng(2)
    sets = [0, 0xFFFFF, 1, 1 << 19] + [1 << k for k in range(20)] \
        + list(rng.integers(0, 1 << 20, 300))
    for blocks in sets:
        for block in range(20):
            expected = next((b for b in range(block + 1, 20) if (int(blocks) >> b) & 1), 20)
            assert _next_block_set(int(blocks), block) == expected, (hex(int(blocks)), block)


def test_latch_collisions_equals_the_collision_table():
    for on in range(64):
        # Objects in `on` share lane 3; every other object is alone in a lane of its own.
        lanes = [np.uint64(0xFF << 24) if on & bit else np.uint64(0xFF << (8 * k) if k != 3 else 0)
                 for k, bit in enumerate((P0, P1, M0, M1, BL, PF))]
        assert _latch(0, *lanes) == tia.COLLISIONS[on], on
        assert _latch(1 << 14, *lanes) == tia.COLLISIONS[on] | (1 << 14), on


def _random_state(rng):
    st = np.zeros((1, L.STATE_FIELDS), np.int32)

    def some(p, value):
        return value if rng.random() < p else 0

    fields = {
        "TIA_BUFFER": rng.integers(0, 2), "TIA_SKIP_DRAW": some(0.2, 1),
        "TIA_VBLANK": some(0.05, 2), "TIA_CUR_GRP0": some(0.7, rng.integers(1, 256)),
        "TIA_CUR_GRP1": some(0.7, rng.integers(1, 256)), "TIA_ENAM0": some(0.5, 2),
        "TIA_ENAM1": some(0.5, 2), "TIA_RESMP0": some(0.1, 2), "TIA_RESMP1": some(0.1, 2),
        "TIA_MASK_M0_HIDDEN": some(0.1, 1), "TIA_VDELBL": some(0.3, 1),
        "TIA_ENABL": some(0.5, 2), "TIA_DENABL": some(0.5, 2),
        "TIA_PF": some(0.8, rng.integers(0, 1 << 20)), "TIA_MASK_PF_REFLECT": rng.integers(0, 2),
        "TIA_CTRLPF": rng.integers(0, 256), "TIA_COLLISION": some(0.3, rng.integers(0, 1 << 15)),
        "TIA_COLUBK": rng.integers(0, 128) * 2, "TIA_COLUPF": rng.integers(0, 128) * 2,
        "TIA_COLUP0": rng.integers(0, 128) * 2, "TIA_COLUP1": rng.integers(0, 128) * 2,
        "TIA_MASK_BL_POS": rng.integers(0, 160), "TIA_MASK_BL_SIZE": rng.integers(0, 4),
    }
    for obj in ("P0", "P1", "M0", "M1"):
        fields[f"TIA_MASK_{obj}_POS"] = rng.integers(0, 160)
        fields[f"TIA_MASK_{obj}_MODE"] = rng.integers(0, 8)
    for obj in ("P0", "P1"):
        fields[f"TIA_MASK_{obj}_SUPPRESS"] = some(0.3, 1)
    for obj in ("M0", "M1"):
        fields[f"TIA_MASK_{obj}_SIZE"] = rng.integers(0, 4)
    for name, value in fields.items():
        st[0, getattr(L, name)] = value
    return st


def _model(st, fb, row, x0, n):
    """Pixel by pixel: each object's mask-table entry, COLLISIONS, and ALE's priority rules."""
    s = {name: int(st[0, getattr(L, name)]) for name in L.FIELD_NAMES if name.startswith("TIA_")}
    buf = s["TIA_BUFFER"]
    draw = s["TIA_SKIP_DRAW"] == 0
    if s["TIA_VBLANK"] & 2:
        if draw:
            fb[0, buf, row, x0:x0 + n] = 0
        return
    m0_on = s["TIA_ENAM0"] and not s["TIA_RESMP0"] and not s["TIA_MASK_M0_HIDDEN"]
    m1_on = s["TIA_ENAM1"] and not s["TIA_RESMP1"]
    bl_on = s["TIA_DENABL"] if s["TIA_VDELBL"] else s["TIA_ENABL"]
    objects_on = s["TIA_CUR_GRP0"] or s["TIA_CUR_GRP1"] or m0_on or m1_on or bl_on
    span = tia.MASK_SPAN

    def entry(row_index, obj):
        return row_index * span + 160 - s[f"TIA_MASK_{obj}_POS"]

    p0 = entry(s["TIA_MASK_P0_MODE"] * 2 + s["TIA_MASK_P0_SUPPRESS"], "P0")
    p1 = entry(s["TIA_MASK_P1_MODE"] * 2 + s["TIA_MASK_P1_SUPPRESS"], "P1")
    m0 = entry(s["TIA_MASK_M0_MODE"] * 4 + s["TIA_MASK_M0_SIZE"], "M0")
    m1 = entry(s["TIA_MASK_M1_MODE"] * 4 + s["TIA_MASK_M1_SIZE"], "M1")
    bl = entry(s["TIA_MASK_BL_SIZE"], "BL")
    ctrlpf = s["TIA_CTRLPF"]
    score, priority = ctrlpf & 2, ctrlpf & 4
    colours = {"bk": s["TIA_COLUBK"], "pf": s["TIA_COLUPF"], "p0": s["TIA_COLUP0"],
               "p1": s["TIA_COLUP1"]}
    collision = s["TIA_COLLISION"]
    for x in range(x0, x0 + n):
        on = PF if (s["TIA_PF"] >> int(tia.PF_SHIFTS[s["TIA_MASK_PF_REFLECT"] * 160 + x])) & 1 \
            else 0
        on |= P0 if tia.PLAYER_MASKS[p0 + x] & s["TIA_CUR_GRP0"] else 0
        on |= P1 if tia.PLAYER_MASKS[p1 + x] & s["TIA_CUR_GRP1"] else 0
        on |= M0 if m0_on and tia.MISSILE_MASKS[m0 + x] else 0
        on |= M1 if m1_on and tia.MISSILE_MASKS[m1 + x] else 0
        on |= BL if bl_on and tia.BALL_MASKS[bl + x] else 0
        collision |= int(tia.COLLISIONS[on])
        left = x < 80
        if not objects_on:
            # ALE's playfield-only case: score colours whatever the priority.
            c = ("p0" if left else "p1") if score and on & PF else ("pf" if on & PF else "bk")
        elif priority:
            c = ("pf" if on & (PF | BL) else "p0" if on & (P0 | M0) else "p1" if on & (P1 | M1)
                 else "bk")
        elif on & (P0 | M0):
            c = "p0"
        elif on & (P1 | M1):
            c = "p0" if score and on & PF and left else "p1"
        elif on & PF:
            c = ("p0" if left else "p1") if score else "pf"
        else:
            c = "pf" if on & BL else "bk"
        if draw:
            fb[0, buf, row, x] = colours[c]
    st[0, L.TIA_COLLISION] = collision


@pytest.mark.parametrize("seed", range(4))
def test_draw_pixels_equals_the_per_pixel_model(seed):
    rng = np.random.default_rng(seed)
    for case in range(500):
        st = _random_state(rng)
        x0 = int(rng.integers(0, 160))
        n = int(rng.integers(1, 161 - x0)) if rng.random() < 0.7 else 160 - x0
        row = int(rng.integers(0, 3))
        fb = rng.integers(0, 256, (1, 2, 3, 160)).astype(np.uint8)
        st_model, fb_model = st.copy(), fb.copy()
        _draw(st, fb.view(np.uint64), row, x0, n)     # the kernels' words of 8 pixels
        _model(st_model, fb_model, row, x0, n)
        assert np.array_equal(fb, fb_model), (seed, case, x0, n)
        assert st[0, L.TIA_COLLISION] == st_model[0, L.TIA_COLLISION], (seed, case, x0, n)
        assert np.array_equal(st, st_model), (seed, case)


@njit(cache=False)
def _wrapped(values):
    out = np.empty_like(values)
    for i in range(values.shape[0]):
        out[i] = tia.wrap_position(values[i])
    return out


def test_wrap_position_is_python_modulo():
    """HMOVE's position wrap (compares where the position moved less than a line) equals
    Python's v % 160 everywhere, far outside that range too."""
    values = np.concatenate([np.arange(-700, 700), [-2**31, 2**31 - 1, -161, -160, 319, 320]])
    values = values.astype(np.int32)
    np.testing.assert_array_equal(_wrapped(values), values.astype(np.int64) % 160)
