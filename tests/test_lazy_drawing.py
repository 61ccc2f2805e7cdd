"""The agent step's lazy drawing (only the frames the observation needs get pixels) changes
nothing: with and without it, every step gives the same outputs AND leaves every console in the
same state, both screen buffers included, so what it skipped can never show later.

The comparison with ale-py itself is tests/test_agent_step_vs_ale.py (lazy drawing is on by
default there). Here the two modes of our own step are run side by side on games and settings
that make steps end early and frames come out incomplete (resets, partial frames), and the test
checks that the replay path really ran and that most steps did not need it.
"""

from __future__ import annotations

import numpy as np
import pytest

from marks import slow_except

from cule_py.kernels.agent import agent_step as K
from cule_py.testing import machine_difference
from cule_py.vector import AtariVectorEnv

CASES = {
    # id: (game, num_envs, steps, kwargs)
    "breakout-sticky-episodic": ("breakout", 3, 220, dict(
        repeat_action_probability=0.25, episodic_life=True, max_num_frames_per_episode=600)),
    "pitfall-skip6-nomaxpool": ("pitfall", 2, 120, dict(frameskip=6, maxpool=False)),
    "space_invaders-samestep-rgb": ("space_invaders", 2, 150, dict(
        autoreset_mode="SameStep", grayscale=False, max_num_frames_per_episode=400)),
    "adventure-pal": ("adventure", 2, 80, dict(use_fire_reset=False)),
}


def _assert_same(lazy, full, where):
    diff = machine_difference(lazy, full)
    assert diff is None, f"{where}: {diff}"


@pytest.mark.parametrize("case", slow_except(sorted(CASES), "breakout-sticky-episodic"))
def test_lazy_drawing_is_invisible(case):
    game, n, steps, kw = CASES[case]
    lazy = AtariVectorEnv(game, n, lazy_drawing=True, **kw)
    full = AtariVectorEnv(game, n, lazy_drawing=False, **kw)
    for out_l, out_f in zip(lazy.reset(seed=3), full.reset(seed=3)):
        if isinstance(out_l, np.ndarray):
            assert (out_l == out_f).all()
    _assert_same(lazy, full, "reset")
    rng = np.random.default_rng(5)
    for t in range(steps):
        actions = rng.integers(0, len(lazy.action_set), n)
        out_l, out_f = lazy.step(actions), full.step(actions)
        for name, a, b in zip(("obs", "reward", "terminated", "truncated"), out_l, out_f):
            assert (a == b).all(), (t, name)
        _assert_same(lazy, full, f"step {t}")
    replays = int(lazy._agent[:, K.A_REPLAYS].sum())
    assert full._agent[:, K.A_REPLAYS].sum() == 0
    # Most steps must go the cheap way; a step that ends an episode replays.
    assert replays < n * steps // 4, replays
    if case.startswith("breakout"):
        assert replays > 0, "episodic life losses end steps early: the replay path must run"


def test_ram_observations_draw_no_pixels_and_stay_exact():
    """obs_type="ram" skips every pixel in steps; RAM, rewards and flags are unchanged."""
    kw = dict(obs_type="ram", repeat_action_probability=0.25, max_num_frames_per_episode=300)
    lazy = AtariVectorEnv("seaquest", 2, lazy_drawing=True, **kw)
    full = AtariVectorEnv("seaquest", 2, lazy_drawing=False, **kw)
    # and the RAM observation made by its own launch (the GPU's way: one band does it all)
    banded = AtariVectorEnv("seaquest", 2, lazy_drawing=True, observation_bands=3, **kw)
    lazy.reset(seed=1)
    full.reset(seed=1)
    banded.reset(seed=1)
    rng = np.random.default_rng(0)
    for t in range(100):
        actions = rng.integers(0, len(lazy.action_set), 2)
        ours = lazy.step(actions)[:4]
        for a, b, c in zip(ours, full.step(actions)[:4], banded.step(actions)[:4]):
            assert (a == b).all() and (a == c).all(), t
        assert (lazy._batch.memory == full._batch.memory).all(), t
        assert (lazy._batch.state == full._batch.state).all(), t
