"""The render split (kernels/render_log.py, issue 27): a 6507 pass that logs the TIA's accesses
with drawing off, then a render pass that replays the log with drawing on, must leave every
console exactly as drawing inline does (state row, RAM, both frame buffers), frame after frame;
a frame whose log overflows runs again inline. tools/render_split.py `check` runs the same
comparison over every game (benchmarks/RESULTS.md has its latest result).

All slow: the logging 6507 core is its own CPU compile (~2 minutes, not cached).
"""

from __future__ import annotations

import os
import pathlib
import sys

import pytest

REPO = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tools"))

import render_split  # noqa: E402

pytestmark = pytest.mark.slow

SIMULATOR = os.environ.get("NUMBA_ENABLE_CUDASIM", "0") not in ("", "0")


def _assert_exact(result):
    assert result["frame_buffers_changed"], "the frames drew nothing: the check would be empty"
    assert result["tia_state_differed"] == 0, result
    assert result["state_equal"] and result["ram_equal"], result
    assert result["frame_buffers_equal"], result


# Pong and Seaquest (many TIA writes a line), Pitfall II (DPC), Montezuma's Revenge (E0).
@pytest.mark.parametrize("game", ["pong", "seaquest", "pitfall2", "montezuma_revenge"])
def test_split_draws_what_inline_drawing_draws(game):
    result = render_split.check(game, consoles=3, frames=90, warmup=150)
    assert result["overflowed"] == 0
    _assert_exact(result)


@pytest.mark.parametrize("redundant", [False, True], ids=["neutral", "unchanged"])
def test_partial_frames_and_deferred_endings(tmp_path, redundant):
    # test_tia_deferred_drawing's cartridge: frames cut by the instruction budget (greyed, then
    # continued from their logged cycle), frames over the scanline limit, every ending right
    # after accesses the TIA only defers.
    from test_tia_deferred_drawing import SETTINGS, program

    path = tmp_path / f"{SETTINGS}.bin"
    path.write_bytes(program(redundant))
    result = render_split.check(path, consoles=2, frames=120, warmup=0, settings=SETTINGS)
    assert result["partial_frames"] >= 5
    _assert_exact(result)


def test_an_overflowing_log_draws_inline():
    result = render_split.check("pong", consoles=2, frames=30, warmup=50, capacity=64)
    assert result["overflowed"] == 2 * 30
    assert result["log_max"] > 64
    _assert_exact(result)


@pytest.mark.cuda
@pytest.mark.skipif(SIMULATOR, reason="the CUDA simulator cannot compile for sm_90")
def test_both_passes_compile_for_the_gpu_within_their_caps():
    import gpu_model

    try:
        rows = gpu_model.in_child("render_split", "static")   # why: in_child's note
    except ImportError as err:      # no NVVM / nvJitLink here
        pytest.skip(f"cannot compile for sm_90a here: {err}")
    assert [r["kernel"] for r in rows] == ["logged_frames_cuda", "render_pass_cuda"]
    for row in rows:
        assert gpu_model.check_caps(row) == [], row
