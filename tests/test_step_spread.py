"""benchmarks/step_spread.py times each console's share of an agent step by launching the step
and autoreset kernels with a one-console mask. That is only a measurement of the real step if
console by console gives what the whole batch gives: checked here over steps with resets, and
the script's report on a tiny case."""

from __future__ import annotations


import numpy as np

from benchmarks import step_spread
from cule_py.kernels.agent import agent_step as K
from cule_py.vector import AtariVectorEnv


def test_console_by_console_equals_the_whole_batch():
    n = 3
    one, whole = (AtariVectorEnv("breakout", n, repeat_action_probability=0.25,
                                 max_num_frames_per_episode=120) for _ in range(2))
    one.reset(seed=5)
    whole.reset(seed=5)
    rng = np.random.default_rng(0)
    resets = 0
    for _ in range(60):
        actions = rng.integers(0, one.single_action_space.n, n)
        one._actions[:] = actions
        whole._actions[:] = actions
        for i in range(n):
            mask = np.zeros(n, bool)
            mask[i] = True
            step_spread._one_console_step(one, mask)
        step_spread._one_console_step(whole, np.ones(n, bool))
        resets += int((whole._agent[:, K.A_NEEDS_RESET] != 0).sum())
        for a, b in ((one._obs, whole._obs), (one._agent, whole._agent),
                     (one._batch.state, whole._batch.state), (one._rewards, whole._rewards)):
            assert np.array_equal(a, b)
    assert resets > 0, "the frame budget should end episodes"


def test_report_on_a_tiny_case():
    report = step_spread.measure("pong", 2, steps=4, warmup=2, seed=0)
    assert report["consoles"] == 2 and report["play_ms_percentiles"]["50"] > 0
    one_thread = report["lockstep"][0]
    assert one_thread["threads"] == 1 and one_thread["waiting_share"] == 0.0
