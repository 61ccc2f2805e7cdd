"""cule_py.palette against ale-py, live: the measured tables, and real games frame by frame.

(a) The cartridges of tools/measure_palette.py run again in ale-py; every index's RGB and grey
    must equal the committed tables (all 256 PAL indices are observed, NTSC's 128 even ones; the
    rest follow the rules palette.py describes), and the tool would write palette.py unchanged.
(b) Real games under random actions: `to_rgb(getScreen())` must equal `getScreenRGB()` and
    `to_grayscale(getScreen())` `getScreenGrayscale()` on every frame. Boxing is NTSC, Adventure
    PAL, and Air Raid PAL with frames of odd line counts, so its screens carry odd indices
    (ALE's colour loss) and exercise the odd half of the PAL tables.
"""

from __future__ import annotations

import importlib.util
import pathlib

import numpy as np
import pytest

from cule_py import palette
from cule_py.games import get_game
from cule_py.testing import ale_twin

pytest.importorskip("ale_py")

pytestmark = pytest.mark.live_ale

REPO = pathlib.Path(__file__).resolve().parents[1]


def _measure_palette_tool():
    spec = importlib.util.spec_from_file_location("measure_palette", REPO / "tools" / "measure_palette.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def tool():
    return _measure_palette_tool()


@pytest.fixture(scope="module")
def measured(tool, tmp_path_factory):
    return tool.measure(tmp_path_factory.mktemp("palette_rom"))


@pytest.mark.parametrize("name", ["ntsc", "pal"])
def test_measured_tables_match_committed(measured, name):
    m = measured[name]
    rgb_table = palette.PAL_RGB if name == "pal" else palette.NTSC_RGB
    grey_table = palette.PAL_GRAY if name == "pal" else palette.NTSC_GRAY
    seen = m.seen()
    expected_seen = np.ones(256, bool) if name == "pal" else (np.arange(256) % 2 == 0)
    assert np.array_equal(seen, expected_seen), f"indices seen: {np.flatnonzero(seen).tolist()}"
    idx = np.flatnonzero(seen)
    bad_rgb = idx[(m.rgb[idx] != rgb_table[idx]).any(axis=1)]
    bad_grey = idx[m.grey[idx] != grey_table[idx]]
    assert not len(bad_rgb), [(int(i), m.rgb[i].tolist(), rgb_table[i].tolist()) for i in bad_rgb[:8]]
    assert not len(bad_grey), [(int(i), int(m.grey[i]), int(grey_table[i])) for i in bad_grey[:8]]


def test_unobserved_ntsc_odd_entries_follow_the_pal_rules():
    odd = np.arange(1, 256, 2)
    for rgb, grey in ((palette.NTSC_RGB, palette.NTSC_GRAY), (palette.PAL_RGB, palette.PAL_GRAY)):
        assert np.array_equal(rgb[odd], np.repeat(grey[odd - 1][:, None], 3, axis=1))
        assert np.array_equal(grey[odd], rgb[(odd + 1) % 256, 2])


def test_tool_would_write_the_committed_file(tool, measured):
    tables = {name: tool.fill_unobservable(m, name) for name, m in measured.items()}
    for name, m in measured.items():
        rgb, _ = tables[name]
        assert np.array_equal(tool.grey_table(rgb)[m.seen()], m.grey[m.seen()])
    assert tool.render(tables) == (REPO / "cule_py" / "palette.py").read_text()


@pytest.mark.parametrize("rom_id, frames, odd_frames_expected", [
    ("boxing", 200, False),
    ("adventure", 200, False),
    ("air_raid", 200, True),
])
def test_real_games_rgb_and_grayscale(rom_id, frames, odd_frames_expected):
    game = get_game(rom_id)
    pal = game.tv_format == "PAL"
    ale = ale_twin(rom_id, seed=0)
    actions = ale.getLegalActionSet()
    rng = np.random.default_rng(1234)
    odd_frames = 0
    for frame in range(frames):
        ale.act(actions[rng.integers(len(actions))])
        screen = np.asarray(ale.getScreen(), dtype=np.uint8)
        assert screen.shape == ((250 if pal else 210), 160)
        odd_frames += bool((screen & 1).any())
        rgb = palette.to_rgb(screen, pal)
        assert rgb.shape == screen.shape + (3,) and rgb.dtype == np.uint8
        assert np.array_equal(rgb, ale.getScreenRGB()), f"{rom_id} frame {frame}: RGB differs"
        assert np.array_equal(palette.to_grayscale(screen, pal), ale.getScreenGrayscale()), \
            f"{rom_id} frame {frame}: grayscale differs"
        if ale.game_over():
            ale.reset_game()
    assert (odd_frames > 0) == odd_frames_expected, f"{odd_frames} frames with odd indices"
