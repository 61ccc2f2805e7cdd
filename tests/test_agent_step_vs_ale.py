"""cule_py.vector.AtariVectorEnv against ale_py.vector_env.AtariVectorEnv, step for step.

With the same explicit arguments and seeds, every step's observations, rewards, terminations,
truncations, lives and frame counters must be equal. The cases cover sticky actions 0 and 0.25,
noop_max 0 and 30, fire reset on and off, episodic life and life-loss info, all three autoreset
modes, frame budgets that end episodes (and life losses that end steps mid-skip), grayscale and
RGB, max-pool on and off, a PAL game (adventure) and a paddle game (pong, breakout).

Batches are small and horizons short to keep CI quick; a longer sweep
is tools/agent_step_sweep.py. The area resize is also checked on its own against ale-py's screens.
"""

from __future__ import annotations

import numpy as np
import pytest

from marks import slow_except

from cule_py.area_resize import area_table, resize_area
from cule_py.testing import ale_twin, vector_step_difference
from cule_py.vector import AtariVectorEnv

ale_vector = pytest.importorskip("ale_py.vector_env")

pytestmark = pytest.mark.live_ale

CASES = {
    # id: (game, num_envs, steps, kwargs)
    "breakout-sticky-budget-skip3": ("breakout", 3, 150, dict(
        repeat_action_probability=0.25, max_num_frames_per_episode=200, frameskip=3)),
    "breakout-episodic-samestep-noop0": ("breakout", 2, 120, dict(
        episodic_life=True, autoreset_mode="SameStep", noop_max=0)),
    "breakout-lifeinfo-nofire-skip5": ("breakout", 2, 80, dict(
        life_loss_info=True, use_fire_reset=False, frameskip=5, max_num_frames_per_episode=300)),
    "pong-sticky-default": ("pong", 2, 40, dict(repeat_action_probability=0.25)),
    "adventure-pal-rgb": ("adventure", 2, 30, dict(
        grayscale=False, use_fire_reset=False, reward_clipping=False)),
    "space_invaders-nomaxpool-sticky-noop0": ("space_invaders", 2, 60, dict(
        maxpool=False, repeat_action_probability=0.25, noop_max=0, reward_clipping=False,
        episodic_life=True, max_num_frames_per_episode=160)),
    "boxing-frameskip1-stack2": ("boxing", 2, 40, dict(frameskip=1, stack_num=2)),
}


def _compare(ours, theirs, where):
    diff = vector_step_difference(ours, theirs)
    assert diff is None, f"{where}: {diff}"


def _play(game, n, steps, kw, seed=11, action_seed=0, ours_kw=None):
    theirs = ale_vector.AtariVectorEnv(game, n, **kw)
    ours = AtariVectorEnv(game, n, **kw, **(ours_kw or {}))
    obs_t, info_t = theirs.reset(seed=seed)
    obs_o, info_o = ours.reset(seed=seed)
    _compare((obs_o, info_o), (obs_t, info_t), "reset")
    rng = np.random.default_rng(action_seed)
    dones = 0
    for t in range(steps):
        actions = rng.integers(0, theirs.single_action_space.n, n)
        out_t = theirs.step(actions)
        out_o = ours.step(actions)
        _compare(out_o, out_t, f"step {t}")
        dones += int((out_o[2] | out_o[3]).sum())
    theirs.close()
    return dones


@pytest.mark.parametrize("case", slow_except(sorted(CASES), "adventure-pal-rgb",
                                             "breakout-episodic-samestep-noop0"))
def test_step_equals_ale_vector_env(case):
    game, n, steps, kw = CASES[case]
    dones = _play(game, n, steps, kw)
    if case.startswith(("breakout", "space_invaders")):
        assert dones > 0, "the case should end some episodes"


# The GPU's structure on the CPU: each step leaves its observation to a launch of its own
# (agent_observe_cpu, as agent_observe_cuda on the GPU), in bands of output rows; 12 bands as
# the GPU makes them. Every case must stay equal to ale-py's.
@pytest.mark.parametrize("case", slow_except(sorted(CASES), "boxing-frameskip1-stack2",
                                             "breakout-sticky-budget-skip3"))
def test_observation_bands_equal_ale_vector_env(case):
    from cule_py.vector import OBSERVATION_BANDS_GPU

    game, n, steps, kw = CASES[case]
    _play(game, n, steps, kw, ours_kw=dict(observation_bands=OBSERVATION_BANDS_GPU))


def test_masked_seeded_reset_equals_ale_vector_env():
    """reset(seed=array, options={"reset_mask": m}) mid-episode: ROM reloaded, both RNGs seeded
    with the given seeds in index order of the reset consoles, the others untouched."""
    theirs = ale_vector.AtariVectorEnv("breakout", 3, repeat_action_probability=0.25)
    ours = AtariVectorEnv("breakout", 3, repeat_action_probability=0.25)
    _compare(ours.reset(seed=5), theirs.reset(seed=5), "reset")
    rng = np.random.default_rng(1)
    for t in range(24):
        actions = rng.integers(0, 4, 3)
        _compare(ours.step(actions), theirs.step(actions), f"step {t}")
        if t == 10:
            opts = {"reset_mask": np.array([True, False, True])}
            seeds = np.array([100, 7])
            _compare(ours.reset(seed=seeds, options=opts),
                     theirs.reset(seed=seeds, options=opts), "masked reset")


def test_disabled_autoreset_resets_only_by_mask():
    """ale-py 0.12.1 refuses autoreset_mode Disabled, so this is checked on its own: a finished
    console is not reset by step(); reset(options={"reset_mask"}) resets just those consoles."""
    env = AtariVectorEnv("breakout", 2, autoreset_mode="Disabled", max_num_frames_per_episode=40)
    env.reset(seed=1)
    frames = []
    for _ in range(14):
        obs, reward, term, trunc, info = env.step(np.zeros(2, np.int64))
        frames.append(info["episode_frame_number"].copy())
    assert trunc.all() and (np.diff(np.array(frames), axis=0) >= 0).all()
    obs, info = env.reset(options={"reset_mask": np.array([True, False])})
    assert info["episode_frame_number"][0] < 40 <= info["episode_frame_number"][1]
    obs, reward, term, trunc, info = env.step(np.zeros(2, np.int64))
    assert list(trunc) == [False, True]


def test_batch_invariance_and_reproducibility():
    """Console i of a batch seeded s equals a lone console seeded s + i; the same seed gives the
    same run; the stochastic frameskip is drawn per console too."""
    kw = dict(repeat_action_probability=0.25, frameskip=(2, 5), max_num_frames_per_episode=120)
    big = AtariVectorEnv("breakout", 3, **kw)
    again = AtariVectorEnv("breakout", 3, **kw)
    lone = AtariVectorEnv("breakout", 1, **kw)
    outs = [big.reset(seed=20), again.reset(seed=20), lone.reset(seed=22)]
    rng = np.random.default_rng(2)
    for t in range(60):
        actions = rng.integers(0, 4, 3)
        a, b, c = big.step(actions), again.step(actions), lone.step(actions[2:])
        for x, y in zip(a[:4], b[:4]):
            assert (x == y).all(), t
        for x, y in zip(a[:4], c[:4]):
            assert (x[2:] == y).all(), t
        assert (a[4]["episode_frame_number"][2:] == c[4]["episode_frame_number"]).all()
    assert len(outs) == 3


def test_area_resize_matches_ale_vector_env_screens():
    """resize_area of ALE's own grayscale screen equals AtariVectorEnv's first observation."""
    theirs = ale_vector.AtariVectorEnv("pong", 1, noop_max=0, use_fire_reset=False)
    obs, _ = theirs.reset(seed=3)
    ale = ale_twin("pong", 3, repeat_action_probability=0.25)     # AtariVectorEnv's default
    ale.reset_game()
    assert (resize_area(ale.getScreenGrayscale(), 84, 84) == obs[0, -1]).all()
    d, s, w = area_table(210, 84)
    assert d[0] == 0 and s[0] == 0 and w.dtype == np.float32 and abs(w[0] - 0.4) < 1e-6
