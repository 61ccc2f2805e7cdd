"""The CPU launch: every thread of it claims consoles from one counter (kernels/cpu_workers.py,
_threads.run_on_threads). Each console runs once per launch whatever the thread count, results do
not depend on it, and a forked child (gymnasium's AsyncVectorEnv, multiprocessing) gets helper
threads of its own instead of waiting on the parent's."""

from __future__ import annotations

import multiprocessing
import threading

import numpy as np
import pytest
from numba import njit

from cule_py._threads import run_on_threads
from cule_py.kernels.cpu_workers import claim, claim_counter, claim_in_passes, hand_off
from cule_py.vector import AtariVectorEnv


@njit(nogil=True)
def _count_claims(seen, counter):
    items = np.uint64(seen.shape[0])
    while True:
        i = claim(counter, items)
        if i >= items:
            break
        seen[i] += 1


@njit
def _claims_in_order(counter, items):
    out = []
    while True:
        i = claim(counter, np.uint64(items))
        if i >= items:
            return out
        out.append(np.int64(i))


def test_claims_go_round_one_block_of_consoles_per_thread():
    """Successive claims alternate between the launch's blocks, so that two threads claiming in
    turn hold consoles far apart; every item is claimed once, a short last block included."""
    counter = claim_counter()
    counter[0], counter[1] = 0, 2
    assert list(_claims_in_order(counter, 32))[:6] == [0, 16, 1, 17, 2, 18]
    counter[0], counter[1] = 0, 2
    assert list(_claims_in_order(counter, 5)) == [0, 3, 1, 4, 2]
    counter[0], counter[1] = 0, 3
    assert sorted(_claims_in_order(counter, 10)) == list(range(10))
    counter[0], counter[1] = 0, 1
    assert list(_claims_in_order(counter, 4)) == [0, 1, 2, 3]


@njit
def _passes_in_order(counter, items, passes):
    out = []
    while True:
        stage, i = claim_in_passes(counter, np.uint64(items), np.uint64(passes))
        if stage >= passes:
            return out
        out.append((np.int64(stage), np.int64(i)))


def test_passes_claim_every_item_once_a_pass_each_pass_in_claim_order():
    counter = claim_counter()
    counter[0], counter[1] = 0, 2
    assert list(_passes_in_order(counter, 5, 2)) == [(0, 0), (0, 3), (0, 1), (0, 4), (0, 2),
                                                    (1, 0), (1, 3), (1, 1), (1, 4), (1, 2)]
    counter[0], counter[1] = 0, 3
    claims = list(_passes_in_order(counter, 10, 3))
    assert [stage for stage, _ in claims] == [0] * 10 + [1] * 10 + [2] * 10
    assert all(sorted(i for s, i in claims if s == stage) == list(range(10)) for stage in range(3))
    counter[0], counter[1] = 0, 2
    assert list(_passes_in_order(counter, 0, 2)) == []


@njit(nogil=True)
def _two_parts(work, first, second, flags, second_by_stage, counter):
    """Part one of each item (a busy loop of work[i] turns), then part two, which reads part
    one's result, by whichever thread meets the hand-off second."""
    items = np.uint64(first.shape[0])
    while True:
        stage, i = claim_in_passes(counter, items, np.uint64(2))
        if stage >= 2:
            break
        if stage == 0:
            x = np.int64(i)
            for k in range(work[i]):
                x = (x * 31 + k) % 1000003
            first[i] = x + 1
        if hand_off(flags, i, 1, 1 + stage):
            second[i] = first[i]
            second_by_stage[i, stage] += 1


def test_a_hand_off_gives_each_second_part_to_one_thread_after_the_first_part():
    """Part two of an item runs once a launch, after part one (it sees part one's result),
    whether part one's thread or a later claimer of part two meets the hand-off second; the
    flags are clear after every launch. Part one's long items sit at the end of the claims, so
    that a thread out of part ones claims part twos whose part one is still running."""
    items = 40
    work = np.full(items, 2_000, np.int64)
    work[-4:] = 200_000
    flags = np.zeros((items, 2), np.int32)
    second_by_stage = np.zeros((items, 2), np.int64)
    for launch in range(60):
        first = np.zeros(items, np.int64)
        second = np.full(items, -1, np.int64)
        run_on_threads(2, _two_parts, (work, first, second, flags, second_by_stage))
        np.testing.assert_array_equal(second, first)
        assert (first > 0).all()
        assert not flags.any()
    assert (second_by_stage.sum(axis=1) == 60).all()
    # both ways round happened: a claimer that came first, and a part one that came second
    assert second_by_stage[:, 1].sum() > 0 and second_by_stage[:, 0].sum() > 0


@pytest.mark.parametrize("threads", [1, 2, 3])
def test_each_console_is_claimed_once_a_launch(threads):
    seen = np.zeros(1000, np.int64)
    for _ in range(5):
        run_on_threads(threads, _count_claims, (seen,))
    assert (seen == 5).all()


def test_a_helpers_exception_is_raised_by_the_launch_and_the_next_launch_runs():
    seen = np.zeros(2000, np.int64)
    launcher = threading.get_ident()
    helper_started = threading.Event()

    def claims_or_raises(seen, counter):
        if threading.get_ident() != launcher:
            helper_started.set()
            raise ValueError("raised by a helper")
        # the launcher waits for its helper to start, so the helper is waited for (a helper
        # still unstarted when the launcher runs out of consoles is cancelled, not run)
        assert helper_started.wait(30)
        _count_claims(seen, counter)

    for _ in range(3):
        helper_started.clear()
        with pytest.raises(ValueError, match="raised by a helper"):
            run_on_threads(2, claims_or_raises, (seen,))
    run_on_threads(2, _count_claims, (seen,))
    assert (seen == 4).all()


def test_launching_threads_have_helpers_of_their_own_which_end_with_them():
    before = threading.active_count()
    seen = [np.zeros(3000, np.int64) for _ in range(3)]

    def launches(k):
        for _ in range(30):
            run_on_threads(3, _count_claims, (seen[k],))

    launchers = [threading.Thread(target=launches, args=(k,)) for k in range(3)]
    for thread in launchers:
        thread.start()
    for thread in launchers:
        thread.join()
    assert all((s == 30).all() for s in seen)
    for _ in range(100):         # each launcher's two helpers end once their launcher has
        if threading.active_count() <= before:
            break
        threading.Event().wait(0.05)
    assert threading.active_count() <= before


def _launch_in_child(queue):
    seen = np.zeros(500, np.int64)
    run_on_threads(2, _count_claims, (seen,))
    queue.put((int(seen.sum()), threading.active_count()))


def test_a_forked_child_runs_its_own_launch():
    run_on_threads(2, _count_claims, (np.zeros(10, np.int64),))  # pool exists
    context = multiprocessing.get_context("fork")
    queue = context.Queue()
    child = context.Process(target=_launch_in_child, args=(queue,))
    child.start()
    child.join(60)
    assert child.exitcode == 0
    claimed, threads = queue.get(timeout=5)
    assert claimed == 500
    assert threads >= 2, "the child ran the launch without a helper thread of its own"


def test_results_do_not_depend_on_the_thread_count():
    envs = [AtariVectorEnv("breakout", 6, num_threads=t, repeat_action_probability=0.25,
                           max_num_frames_per_episode=300) for t in (1, 2)]
    rng = np.random.default_rng(3)
    for env in envs:
        env.reset(seed=9)
    resets = 0
    for _ in range(120):
        actions = rng.integers(0, 4, 6)
        (o1, r1, t1, u1, _), (o2, r2, t2, u2, _) = (env.step(actions) for env in envs)
        resets += int((t1 | u1).sum())
        for a, b in ((o1, o2), (r1, r2), (t1, t2), (u1, u2)):
            np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(envs[0]._batch.state, envs[1]._batch.state)
    assert resets > 0, "the frame budget should end episodes inside the run"
