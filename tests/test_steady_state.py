"""cule_py.steady_state: the arithmetic of a result (a fake env on a fake clock, figures known in
advance), the warm-up's time budget, cule_py's autoreset timing hook (off by default, > 0 when
episodes end; the GPU's event pairs with fake events), the decorrelation count, and
`python -m cule_py --quick` end to end."""

from __future__ import annotations

import functools
import json
import subprocess
import sys
import types

import numpy as np
import pytest
from gymnasium.spaces import Discrete

from cule_py import bench
from cule_py import steady_state as ss
from cule_py._device import CallClock


class FakeClock:
    def __init__(self):
        self.now = 100.0

    def perf_counter(self) -> float:
        return self.now


class FakeEnv:
    """4 sub-envs; global step s ends one episode when s % 5 == 0 (sub-env s % 4; truncated
    when s % 10 == 0, else terminated); step s takes 0.01 s before step 90, 0.02 s before 100,
    then 0.03 s; an autoreset costs 0.004 s of it. Exposes cule_py's reset timing hook."""

    num_envs = 4
    single_action_space = Discrete(3)

    def __init__(self, clock: FakeClock):
        self.clock = clock
        self.steps = 0
        self.timing = False
        self.reset_seconds = 0.0
        self.seen_actions = []
        self.masked_resets = []          # (step, reset_mask) of the warm-up's staggered restarts

    def reset(self, *, seed=None, options=None):
        if options and options.get("reset_mask") is not None:
            self.masked_resets.append((self.steps, np.array(options["reset_mask"])))
        else:
            self.steps = 0
        return self._obs(), {}

    def _obs(self):
        return (np.arange(self.num_envs)[:, None].repeat(6, 1) + self.steps).astype(np.uint8)

    def step(self, actions):
        assert actions.shape == (self.num_envs,) and actions.max() < 3
        self.seen_actions.append(actions)
        s = self.steps
        self.clock.now += 0.01 if s < 90 else 0.02 if s < 100 else 0.03
        terminated = np.zeros(self.num_envs, bool)
        truncated = np.zeros(self.num_envs, bool)
        if s % 5 == 0:
            (truncated if s % 10 == 0 else terminated)[s % 4] = True
            if self.timing:
                self.reset_seconds += 0.004
        self.steps += 1
        return self._obs(), np.zeros(4), terminated, truncated, {}

    def _time_autoresets(self, on=True):
        self.timing = on
        self.reset_seconds = 0.0

    def _autoreset_seconds(self):
        seconds, self.reset_seconds = self.reset_seconds, 0.0
        return seconds


@pytest.fixture
def clock(monkeypatch):
    fake = FakeClock()
    # (the process's CPU time runs with the wall clock: one busy thread)
    monkeypatch.setattr(ss, "time", types.SimpleNamespace(perf_counter=fake.perf_counter,
                                                           process_time=fake.perf_counter))
    return fake


def test_result_arithmetic_on_a_fake_env_and_clock(clock):
    env = FakeEnv(clock)
    syncs = []
    lines = []
    r = ss.measure_vector_env(env, game="pong", label="fake", backend="cpu", warmup_steps=80,
                              window_steps=10, windows=3, sync=lambda: syncs.append(env.steps),
                              progress=lines.append, threads=2, frameskip=19)
    # Warm-up: steps 0..79 (the first step included); windows: 80-89, 90-99, 100-109.
    assert r.warmup_steps == 80 and r.warmup_target == 80 and not r.warmup_cut
    assert [w.steps for w in r.windows] == [10, 10, 10]
    assert [w.seconds for w in r.windows] == pytest.approx([0.1, 0.2, 0.3])
    assert [w.episode_ends for w in r.windows] == [2, 2, 2]        # s = 80, 85 / 90, 95 / ...
    assert [w.reset_seconds for w in r.windows] == pytest.approx([0.008] * 3)
    # Median of 400, 200, 133.3 agent steps/s (a mean would give 244).
    assert r.agent_steps_per_s == pytest.approx(200.0)
    assert r.frames_per_s == pytest.approx(200.0 * 19)
    assert r.episode_ends_per_step == pytest.approx(6 / 30)
    assert r.episodes_per_window == pytest.approx(2.0)
    assert r.reset_share == pytest.approx(0.024 / 0.6)
    assert r.distinct_ram is None and r.distinct_observations == 4 and r.decorrelated
    assert env.timing is False                      # the hook is switched off again
    # sync before starting and before stopping each window's timer (and after set-up, warm-up).
    assert syncs == [1, 80, 80, 90, 90, 100, 100, 110]
    assert any("window 3/3" in line for line in lines)
    # The warm-up restarted groups 1..7 of STAGGER_GROUPS at steps 8, 16, ..., 56: spread over
    # the warm-up but its last 16 steps, the 300 decorrelation frames at frameskip 19 (console i
    # in group i % 8: of these 4 consoles, groups 1-3 are consoles 1-3; the rest are empty).
    assert [step for step, _ in env.masked_resets] == [8, 16, 24, 32, 40, 48, 56]
    assert [mask.tolist() for _, mask in env.masked_resets[:4]] == [
        [False, True, False, False], [False, False, True, False], [False, False, False, True],
        [False, False, False, False]]
    d = json.loads(json.dumps(r.as_dict()))
    assert d["agent_steps_per_s"] == pytest.approx(200.0) and d["threads"] == 2
    assert len(d["windows"]) == 3 and d["reset_share"] == pytest.approx(0.04)


def test_time_budget_cuts_the_warmup_but_not_below_300_frames(clock):
    r = ss.measure_vector_env(FakeEnv(clock), game="pong", label="fake", backend="cpu",
                              window_steps=5, windows=1, time_budget=0.0, frameskip=4)
    assert r.warmup_target == 1000                  # pong's default
    assert r.warmup_steps == 75 and r.warmup_cut and r.decorrelated
    assert any("cut" in note for note in r.notes)
    r = ss.measure_vector_env(FakeEnv(clock), game="other", label="fake", backend="cpu",
                              window_steps=5, windows=1, frameskip=4)
    assert r.warmup_steps == r.warmup_target == ss.OTHER_GAMES_WARMUP_STEPS


def test_window_budget_shortens_windows_to_the_warmup_pace(clock):
    """The first GPU run's Breakout windows (50 steps at ~1 s a step) overran their command's
    budget: with `window_budget`, windows shrink to what fits at the warm-up's seconds per step
    (here 0.01 s: 0.15 s for 3 windows is 5 steps each), and the shortening is noted."""
    r = ss.measure_vector_env(FakeEnv(clock), game="pong", label="fake", backend="cpu",
                              warmup_steps=80, window_steps=10, windows=3, window_budget=0.15,
                              frameskip=4)
    assert [w.steps for w in r.windows] == [5, 5, 5]
    assert any("shortened from 10 to 5 steps" in note for note in r.notes)
    r = ss.measure_vector_env(FakeEnv(clock), game="pong", label="fake", backend="cpu",
                              warmup_steps=80, window_steps=10, windows=3, window_budget=100.0,
                              frameskip=4)
    assert [w.steps for w in r.windows] == [10, 10, 10] and not r.notes
    notes: list = []
    assert ss._fitted_window(200, 3, 0.001, 1.0, notes, "frames") == ss.MIN_WINDOW
    assert ss._fitted_window(200, 3, None, 1.0, notes, "frames") == 200


def test_envs_without_the_hook_have_no_reset_share(clock):
    env = FakeEnv(clock)
    plain = types.SimpleNamespace(num_envs=4, single_action_space=Discrete(3), reset=env.reset,
                                  step=env.step)
    r = ss.measure_vector_env(plain, game="pong", label="plain", backend="cpu", warmup_steps=80,
                              window_steps=10, windows=1, frameskip=4)
    assert r.reset_share is None and r.windows[0].reset_seconds is None
    assert any("reset share unknown" in note for note in r.notes)
    # Too few frames to be decorrelated, whatever the observations say.
    r = ss.measure_vector_env(plain, game="pong", label="plain", backend="cpu", warmup_steps=10,
                              window_steps=10, windows=1, frameskip=4)
    assert r.warmup_steps == 10 and not r.decorrelated


def test_decorrelated_needs_300_frames_and_95_percent_distinct():
    def result(warmup_steps, distinct_ram, distinct_observations=None):
        return ss.SteadyStateResult("x", "cpu", "pong", 256, None, 4, warmup_steps, 1000,
                                    distinct_ram, [ss.Window(1, 1.0, 0, None)],
                                    distinct_observations=distinct_observations)

    assert result(75, 256).decorrelated and result(75, 244).decorrelated
    assert not result(75, 243).decorrelated                  # 243 < 0.95 x 256
    assert not result(74, 256).decorrelated                  # 296 frames
    assert not result(75, None, 200).decorrelated            # observations when RAM is unknown
    assert result(75, None, None).decorrelated               # nothing known: frames alone
    assert result(75, 256).warmup_cut and result(75, 256).reset_share is None


def test_gpu_autoreset_clock_sums_event_pairs_when_taken():
    class Event:
        now = 0.0

        def record(self, stream=None):
            self.at = Event.now

        def synchronize(self):
            pass

    fake_cupy = types.SimpleNamespace(cuda=types.SimpleNamespace(
        Event=Event, get_elapsed_time=lambda a, b: (b.at - a.at) * 1000.0))

    def launch(seconds):
        Event.now += seconds

    clock = CallClock(fake_cupy)
    clock.time(launch, 0.25)
    Event.now += 10.0                     # between launches: not counted
    clock.time(launch, 0.5)
    assert clock.take() == pytest.approx(0.75)
    assert clock.take() == 0.0


def test_cule_reset_hook_is_off_by_default_and_times_autoresets():
    # 40 frames per episode (10 steps): truncations end episodes often on 2 consoles.
    env = ss.make_cule_env("breakout", 2, threads=1, max_num_frames_per_episode=40)
    assert env._autoreset_clock is None
    r = ss.measure_vector_env(env, game="breakout", label="cule_py", backend="cpu",
                              warmup_steps=75, window_steps=25, windows=2, threads=1)
    assert env._autoreset_clock is None            # switched off again
    assert r.frameskip == 4 and r.warmup_steps == 75
    assert sum(w.episode_ends for w in r.windows) >= 4
    assert all(w.reset_seconds > 0 for w in r.windows)
    assert 0 < r.reset_share < 1
    assert r.distinct_ram == 2 and r.decorrelated
    # where the windows' resets came from: the table's counters over the windows only
    sources = r.reset_sources
    assert set(sources) == {"start", "tail", "tail_by_origin", "tail_direct"}
    ends = sum(w.episode_ends for w in r.windows)
    assert 0 < sources["start"] <= ends + 2, (sources, ends)
    assert sources["tail_direct"] <= sources["tail_by_origin"] <= sources["tail"] <= ends + 2
    # one reset launch of 1 and of 2 consoles, twice each, the table warm by now
    probe = ss.reset_latency_probe(env, sizes=(1, 2), repeats=2)
    assert [row["consoles"] for row in probe] == [1, 2]
    assert all(len(row["all_seconds"]) == 2 and row["seconds"] > 0 for row in probe)
    assert [1 <= row["sources"]["start"] <= 2 * row["consoles"] for row in probe] == [True, True]
    with pytest.raises(RuntimeError, match="timing is off"):
        env._autoreset_seconds()


def test_distinct_ram_counts_identical_consoles_once():
    env = ss.make_cule_env("breakout", 3, threads=1)
    env.reset(seed=np.array([7, 7, 7]))              # the same seed: the same console three times
    assert ss._distinct_ram(env) == 1
    env.reset(seed=np.array([7, 8, 7]))
    assert ss._distinct_ram(env) == 2
    assert ss._distinct_rows(np.array([[1, 2], [1, 2], [2, 1]], np.uint8)) == 2


def test_device_benchmark_path_on_the_cpu():
    pairs = bench.device_benchmark(["breakout"], 2, 2, device="cpu", warmup_steps=75,
                                   window_steps=10, ale_window_steps=10, windows=1,
                                   ale_threads=1)
    (ours, theirs), = pairs
    assert ours.backend == "cpu" and ours.num_envs == 2 and ours.reset_share is not None
    assert theirs.label.startswith("ale-py") and theirs.reset_share is None
    raw = bench.raw_frames_per_s("breakout", 2, 10, device="cpu", windows=1)
    table = bench._device_table(pairs, [raw])
    assert "| breakout | cule_py cpu |" in table and "raw act()" in table and "n/a" in table


@pytest.mark.slow           # the benchmark's quick run in a child process
def test_python_m_cule_py_quick_runs():
    proc = subprocess.run([sys.executable, "-m", "cule_py", "--quick", "--cpu"],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    assert "| breakout | 1 | 2 |" in proc.stdout, proc.stdout
    assert "reset and first step" in proc.stderr and "numba cache" in proc.stderr


def test_raw_frames_count_consoles_that_play_and_time_their_resets():
    """measure_emulator on 3 Breakout consoles: every window counts at most consoles x frames
    (consoles at game over wait), resets of game-over consoles are counted and timed."""
    import numba

    from cule_py import AtariEmulator

    numba.set_num_threads(1)
    emulator = AtariEmulator("breakout", 3, seed=5, repeat_action_probability=0.25)
    r = ss.measure_emulator(emulator, game="breakout", label="raw", backend="cpu",
                            warmup_frames=20, window_frames=400, windows=2, reset_every=1)
    assert r.frameskip == 1 and r.warmup_steps == 20 and r.distinct_ram >= 1
    for w in r.windows:
        assert 0 < w.console_steps <= 3 * 400 and w.reset_seconds >= 0
    # A random Breakout game lasts a few hundred frames: 800 frames of 3 consoles see resets.
    assert sum(w.episode_ends for w in r.windows) >= 1
    assert sum(w.reset_seconds for w in r.windows) > 0
    rates = [w.console_steps / w.seconds for w in r.windows]
    assert r.frames_per_s == pytest.approx(sum(rates) / 2)      # the median of two windows


def test_compare_cpu_hands_over_each_row_when_done(monkeypatch):
    """The benchmark prints a row as soon as its rounds are done, not all rows at the end."""
    events = []

    class Env:
        def close(self):
            pass

    def measure(env, *, game, label, **kwargs):
        events.append(("measure", game))
        return types.SimpleNamespace(agent_steps_per_s=1.0, label=label)

    monkeypatch.setattr(ss, "make_cule_env", lambda *a, **k: Env())
    monkeypatch.setattr(ss, "make_ale_env", lambda *a, **k: Env())
    monkeypatch.setattr(ss, "measure_vector_env", measure)
    result = ss.compare_cpu(["breakout", "pong"], cores_list=[1], rounds=2,
                            on_comparison=lambda c: events.append(("row", c.game)))
    assert [c.game for c in result] == ["breakout", "pong"]
    assert events == [("measure", "breakout")] * 4 + [("row", "breakout")] + \
        [("measure", "pong")] * 4 + [("row", "pong")]


def test_a_continued_round_plays_only_its_windows(clock):
    """continue_from: the same env goes on from where the earlier measurement left it: no
    reset, no first step, no warm-up; its windows follow on, and warmup_steps counts every step
    since the reset (the earlier warm-up and windows)."""
    env = FakeEnv(clock)
    first = ss.measure_vector_env(env, game="pong", label="r1", backend="cpu", warmup_steps=80,
                                  window_steps=10, windows=2, seed=0, frameskip=4)
    resets = len(env.masked_resets)
    second = ss.measure_vector_env(env, game="pong", label="r2", backend="cpu", warmup_steps=80,
                                   window_steps=10, windows=2, seed=1, frameskip=4,
                                   continue_from=first)
    assert env.steps == 80 + 20 + 20                # 120: the reset never came back to 0
    assert len(env.masked_resets) == resets         # no staggered restarts either
    assert second.warmup_steps == 100 and second.warmup_target == 80 and not second.warmup_cut
    assert second.setup_seconds == 0 and second.warmup_seconds == 0
    assert [w.seconds for w in second.windows] == pytest.approx([0.3, 0.3])   # steps 100-119
    assert second.decorrelated and second.continued_from == "r1" and first.continued_from is None
    row = ss.comparison_row(ss.PairedComparison("pong", 1, 4, [first, second], [first, second]))
    assert row.endswith("| 80 |")                   # the warm-up played, not 100
    assert not np.array_equal(env.seen_actions[80], env.seen_actions[100])  # seed 1's actions


def test_compare_cpu_keeps_one_env_per_side_across_rounds(monkeypatch):
    """Round 1 of each side measures a fresh env from its reset; later rounds continue it (the
    same env object, continue_from the side's previous result); each env closed once."""
    made, calls, closed = [], [], []

    class Env:
        def __init__(self, side):
            self.side = side
            made.append(side)

        def close(self):
            closed.append(self.side)

    def measure(env, *, game, label, continue_from=None, seed=0, **kwargs):
        calls.append((env.side, seed, None if continue_from is None else continue_from.label))
        return types.SimpleNamespace(agent_steps_per_s=1.0, label=label)

    monkeypatch.setattr(ss, "make_cule_env", lambda *a, **k: Env("cule"))
    monkeypatch.setattr(ss, "make_ale_env", lambda *a, **k: Env("ale"))
    monkeypatch.setattr(ss, "measure_vector_env", measure)
    ss.compare_cpu(["breakout"], cores_list=[1], rounds=3)
    assert made == ["cule", "ale"] and sorted(closed) == ["ale", "cule"]
    assert calls == [("cule", 0, None), ("ale", 0, None),
                     ("ale", 1, "ale-py 1 core(s) round 1"),
                     ("cule", 1, "cule_py 1 core(s) round 1"),
                     ("cule", 2, "cule_py 1 core(s) round 2"),
                     ("ale", 2, "ale-py 1 core(s) round 2")]


def _result(threads, seconds, cpu_seconds, steps_per_s=1000.0):
    window = ss.Window(100, 100 * 4 / steps_per_s, 0, None, cpu_seconds=cpu_seconds)
    window.seconds = seconds
    return ss.SteadyStateResult("x", "cpu", "pong", 4, threads, 4, 400, 400, 4, [window])


def test_cpu_share_flags_a_busy_machine():
    """A side that got less than BUSY_BELOW of its cores in the windows marks the row busy and
    adds a note; a side that got its cores does not."""
    quiet = ss.PairedComparison("pong", 2, 32, [_result(2, 1.0, 1.96)], [_result(2, 1.0, 1.9)])
    assert quiet.median("cule_py", "cpu_share") == pytest.approx(0.98)
    assert not ss.busy(quiet) and "(busy)" not in ss.comparison_row(quiet)
    assert not any("busy" in line for line in ss.comparison_notes([quiet]))
    busy = ss.PairedComparison("pong", 2, 32, [_result(2, 1.0, 1.2)], [_result(2, 1.0, 1.9)])
    assert ss.busy(busy) and "60%, 95% (busy)" in ss.comparison_row(busy)
    assert any("busy" in line for line in ss.comparison_notes([busy]))


def test_a_side_process_reports_its_error():
    """A side's env made in a process of its own fails there; the parent raises with the
    child's traceback rather than waiting for a result that never comes."""
    side = ss.Side("cule_py 1 thread(s)",
                   functools.partial(ss.make_cule_env, "no_such_game", 2, threads=1), 1)
    with pytest.raises(RuntimeError, match="no_such_game"):
        ss.paired_rounds("no_such_game", [side], rounds=1, own_processes=True)


def test_rounds_rotate_and_keep_adjacent_sides_together():
    """Sides rotate by one a round; with `adjacent`, a group (one side's thread counts) always
    runs back to back, the group rotating as a whole and its order alternating."""
    assert [ss.round_order(3, r) for r in range(3)] == [[0, 1, 2], [1, 2, 0], [2, 0, 1]]
    orders = [ss.round_order(6, r, adjacent=2) for r in range(4)]
    assert orders == [[0, 1, 2, 3, 4, 5], [3, 2, 5, 4, 1, 0], [4, 5, 0, 1, 2, 3],
                      [1, 0, 3, 2, 5, 4]]
    for order in orders:
        assert sorted(order) == list(range(6))
        for first in (0, 2, 4):
            assert abs(order.index(first) - order.index(first + 1)) == 1
    assert ss.round_order(5, 1, adjacent=2) == [3, 2, 4, 1, 0]
