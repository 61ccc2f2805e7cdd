"""Steady-state throughput: the one harness behind every throughput figure of cule_py.

A figure is taken in steady state, the state a long training run spends its time in:
  * decorrelated consoles: at least 300 random frames (75 agent steps at frameskip 4) before
    timing, checked by counting distinct RAM hashes across consoles where RAM is reachable
    (cule_py) and distinct observations where they are host arrays (both sides); at least
    DISTINCT_SHARE_MIN of them distinct (a few Pong consoles stay identical: see there);
  * warmed up past a typical episode, so that episodes end (and consoles reset) throughout the
    timed windows, as they do in training: a random agent ends a Pong episode about every 950
    agent steps and Breakout about every 180 (`default_warmup_steps`, per game). A time budget
    may cut the warm-up short (never below the 300 frames); the result records the target and
    what was done;
  * several timed windows of random actions, each reporting its steps, seconds, episode ends and,
    for cule_py's env, the seconds its autoreset launches took (the reset share). ale-py's reset
    time cannot be seen from outside its env: its reset share is None.

    env = make_cule_env("breakout", 16, threads=1)
    result = measure_vector_env(env, game="breakout", label="cule_py", backend="cpu",
                                warmup_steps=250, window_steps=200)
    result.agent_steps_per_s, result.episode_ends_per_step, result.reset_share

`compare_cpu` pairs cule_py's AtariVectorEnv with ale-py's on the same cores in the same run;
`python -m cule_py` (cule_py/bench.py) prints it, or the GPU figures when a GPU is present.
"""

from __future__ import annotations

import functools
import hashlib
import math
import statistics
import time
from dataclasses import asdict, dataclass, field
from typing import Any, Callable, Sequence

import numpy as np

from ._device import CallClock

__all__ = ["Window", "SteadyStateResult", "PairedComparison", "measure_vector_env",
           "measure_emulator",
           "make_cule_env", "make_ale_env", "compare_cpu", "comparison_table", "comparison_row",
           "COMPARISON_HEADER", "comparison_notes",
           "default_warmup_steps", "available_cores", "AGENT_SETTINGS", "DECORRELATION_FRAMES",
           "DISTINCT_SHARE_MIN"]

# Random frames every console plays before timing: enough for sticky actions and noop starts to
# have sent each console its own way (the bar; checked by `distinct_ram`).
DECORRELATION_FRAMES = 300
# Distinct RAM needed across consoles after the warm-up. Not all: measured on Pong (256 consoles,
# random actions), 247 distinct after 75 steps and still 253-254 after 150-400 steps; each
# duplicate pair shares its episode frame number (the same noop start) and stays identical,
# so more warm-up does not remove them.
DISTINCT_SHARE_MIN = 0.95

# Warm-up targets in agent steps: past most of a random agent's episodes (their 80th to 90th
# percentile; the lengths measured are in docs/performance-log.md, "2026-11-30: the H200"), so
# that the timed windows see episodes end near their steady rate; a shorter warm-up sees them
# end at a rate that rises from window to window.
WARMUP_STEPS = {"pong": 1000, "breakout": 250, "space_invaders": 650, "ms_pacman": 550,
                "seaquest": 650}
OTHER_GAMES_WARMUP_STEPS = 300

# ale-py AtariVectorEnv's defaults, with v5's sticky actions: the settings both sides run with.
AGENT_SETTINGS: dict[str, Any] = dict(
    frameskip=4, img_height=84, img_width=84, grayscale=True, stack_num=4, maxpool=True,
    noop_max=30, use_fire_reset=True, episodic_life=False, reward_clipping=True,
    max_num_frames_per_episode=108000, autoreset_mode="NextStep",
    repeat_action_probability=0.25)

PROGRESS_EVERY_S = 5.0

# Consoles that all start at once end their first episodes in a bunch (Pong's episodes vary
# little in length: measured, the first ends of 16 consoles all fell in the first window after a
# 1000-step warm-up). The warm-up therefore restarts the consoles in groups at evenly spaced
# steps: group k (console i is in group i % STAGGER_GROUPS) is reset at step k * (target -
# floor) / STAGGER_GROUPS, floor being the decorrelation frames in steps, so that after the
# warm-up the episodes' ages spread over the target and episodes end at their steady rate from
# the first window on, while the group restarted last has still played its decorrelation frames
# (a group restarted in the last floor steps can still be in a game's start-up screens, which
# ignore the inputs, and its consoles still alike).
STAGGER_GROUPS = 8


def default_warmup_steps(game: str) -> int:
    """Warm-up agent steps for `game`: past a random agent's typical episode (see module doc)."""
    return WARMUP_STEPS.get(game, OTHER_GAMES_WARMUP_STEPS)


def available_cores() -> int:
    """The cores this process may run on, at most the threads numba was started with."""
    import numba

    from .testing import usable_cpus

    return max(1, min(usable_cpus(), numba.config.NUMBA_NUM_THREADS))


@dataclass
class Window:
    """One timed window: `steps` batch steps in `seconds`, `episode_ends` sub-environment
    episodes ended (terminated or truncated) in it, `reset_seconds` spent in autoresets (None:
    not measurable for this env)."""

    steps: int
    seconds: float
    episode_ends: int
    reset_seconds: float | None
    # Sub-environment steps played in the window where not every console plays every step (raw
    # frames: a console at game over waits for its reset); None: steps x num_envs.
    console_steps: int | None = None
    # CPU seconds this process used in the window, all its threads (None: not measured).
    cpu_seconds: float | None = None

    def played(self, num_envs: int) -> int:
        return self.steps * num_envs if self.console_steps is None else self.console_steps


@dataclass
class SteadyStateResult:
    """One steady-state measurement of one env (see module doc). Steps count batch steps; agent
    steps are batch steps x num_envs."""

    label: str
    backend: str
    game: str
    num_envs: int
    threads: int | None
    frameskip: int
    warmup_steps: int            # batch steps played before timing (the first one included)
    warmup_target: int           # what was asked for; more than warmup_steps: the budget cut it
    distinct_ram: int | None     # distinct RAM hashes across consoles after warm-up (None: unreachable)
    windows: list[Window]
    distinct_observations: int | None = None   # distinct observations (host arrays only)
    setup_seconds: float = 0.0   # reset + first step: kernels load (or compile) here
    warmup_seconds: float = 0.0
    notes: list[str] = field(default_factory=list)
    continued_from: str | None = None   # label of the measurement this one went on from
    # cule_py only: where the timed windows' resets came from (kernels/ale/reset_snapshot):
    # {"start": reset_games from the table's start region, "tail": fire/noop tails from the
    # table, "tail_by_origin": of those without a compare, "tail_direct": of those by index}
    reset_sources: dict | None = None

    @property
    def agent_steps_per_s(self) -> float:
        """Median over windows of the sub-environment steps played / seconds."""
        return statistics.median(w.played(self.num_envs) / w.seconds for w in self.windows)

    @property
    def frames_per_s(self) -> float:
        """Agent frames/s: agent steps/s x frameskip."""
        return self.agent_steps_per_s * self.frameskip

    @property
    def episode_ends_per_step(self) -> float:
        """Episodes ended per batch step, over all windows."""
        return sum(w.episode_ends for w in self.windows) / sum(w.steps for w in self.windows)

    @property
    def episodes_per_window(self) -> float:
        """Mean episodes ended per window (each window's count is in `windows`)."""
        return sum(w.episode_ends for w in self.windows) / len(self.windows)

    @property
    def reset_share(self) -> float | None:
        """Share of the timed seconds spent in autoresets; None where not measurable."""
        if any(w.reset_seconds is None for w in self.windows):
            return None
        return sum(w.reset_seconds for w in self.windows) / sum(w.seconds for w in self.windows)

    @property
    def cpu_share(self) -> float | None:
        """CPU time this process got over the windows, as a share of `threads` cores for the
        windows' wall time: about 1.0 on an idle machine, lower where other work took cores
        from the run (its figures then say little about either side's speed). None where not
        measured or on a GPU (the GPU does the work)."""
        if self.backend != "cpu" or not self.threads or any(
                w.cpu_seconds is None for w in self.windows):
            return None
        return (sum(w.cpu_seconds for w in self.windows)
                / (self.threads * sum(w.seconds for w in self.windows)))

    @property
    def warmup_cut(self) -> bool:
        """True when the time budget stopped the warm-up before its target."""
        return self.warmup_steps < self.warmup_target

    @property
    def decorrelated(self) -> bool:
        """>= DECORRELATION_FRAMES frames played before timing, and at least DISTINCT_SHARE_MIN
        of the consoles' RAM distinct (where RAM is unreachable: of the observations, where
        known)."""
        distinct = self.distinct_ram if self.distinct_ram is not None else \
            self.distinct_observations
        return (self.warmup_steps * self.frameskip >= DECORRELATION_FRAMES
                and (distinct is None or distinct >= DISTINCT_SHARE_MIN * self.num_envs))

    def as_dict(self) -> dict:
        """Every field and derived figure, JSON-able."""
        out = asdict(self)
        for name in ("agent_steps_per_s", "frames_per_s", "episode_ends_per_step",
                     "episodes_per_window", "reset_share", "cpu_share", "warmup_cut",
                     "decorrelated"):
            out[name] = getattr(self, name)
        return out


class _EndCounter:
    """Episode ends (terminated | truncated) summed over steps. Device (cupy) arrays are summed on
    the device and read back only in `total`, so counting adds no host sync to a step."""

    def __init__(self):
        self._host = 0
        self._device: list = []

    def add(self, terminated, truncated) -> None:
        ended = terminated | truncated
        if hasattr(ended, "__cuda_array_interface__"):
            self._device.append(ended.sum())
        else:
            self._host += int(np.count_nonzero(ended))

    def total(self) -> int:
        """The ends so far (reads device counts back once: they are folded into the host sum)."""
        self._host += sum(int(part) for part in self._device)
        self._device.clear()
        return self._host


def _distinct_rows(rows: np.ndarray) -> int:
    return len({hashlib.blake2b(row.tobytes(), digest_size=16).digest()
                for row in rows.reshape(len(rows), -1)})


def _distinct_ram(env) -> int | None:
    """Distinct RAM contents across cule_py's consoles (128 bytes each, a small copy even from a
    GPU); None for envs whose RAM is not reachable (ale-py's vector env)."""
    batch = getattr(env, "_batch", None)
    if batch is None:
        return None
    return _distinct_rows(np.ascontiguousarray(batch.host(batch.ram)))


def _distinct_observations(observations) -> int | None:
    """Distinct observations across sub-environments when they are host arrays (on a GPU they
    would be gigabytes to copy; RAM answers there)."""
    if not isinstance(observations, np.ndarray) or hasattr(observations,
                                                           "__cuda_array_interface__"):
        return None
    return _distinct_rows(np.ascontiguousarray(observations))


def _frameskip_of(env) -> int:
    """cule_py's fixed frameskip from its config; AGENT_SETTINGS' for other envs."""
    cfg = getattr(env, "_cfg", None)
    if cfg is not None:
        from .kernels.agent import agent_step as K

        host = np.asarray(env._batch.host(cfg))
        lo, hi = int(host[K.C_SKIP_LO]), int(host[K.C_SKIP_HI])
        if hi != lo + 1:
            raise ValueError("a frameskip range has no single frames-per-step figure: pass "
                             "frameskip= to measure_vector_env")
        return lo
    return int(AGENT_SETTINGS["frameskip"])


MIN_WINDOW = 5


def _fitted_window(length: int, windows: int, budget: float | None, seconds_per_unit: float,
                   notes: list, unit: str) -> int:
    """`length`, or fewer units (at least MIN_WINDOW) when `windows` windows of it would not fit
    in `budget` seconds at `seconds_per_unit`; the shortening is noted."""
    if budget is None or seconds_per_unit <= 0:
        return length
    fits = max(MIN_WINDOW, int(budget / windows / seconds_per_unit))
    if fits >= length:
        return length
    notes.append(f"windows shortened from {length} to {fits} {unit} to fit the {budget:g} s "
                 f"window budget")
    return fits


def measure_vector_env(env, *, game: str, label: str, backend: str,
                       warmup_steps: int | None = None, window_steps: int = 200,
                       windows: int = 3, seed: int = 0, time_budget: float | None = None,
                       sync: Callable[[], None] | None = None,
                       progress: Callable[[str], None] | None = None,
                       threads: int | None = None,
                       frameskip: int | None = None,
                       window_budget: float | None = None,
                       continue_from: SteadyStateResult | None = None) -> SteadyStateResult:
    """Steady-state throughput of a Gymnasium vector env (cule_py's or ale-py's AtariVectorEnv)
    under random actions: reset(seed=seed), one untimed first step (kernels load here), warm-up to
    `warmup_steps` (None: `default_warmup_steps(game)`; `time_budget` seconds may cut it, never
    below DECORRELATION_FRAMES), the decorrelation count, then `windows` timed windows of
    `window_steps` steps. `sync` runs before starting and before stopping each timer (a GPU's
    synchronize); `progress` receives a line now and then; `threads` is recorded as given;
    `frameskip` (None: read from a cule_py env, else AGENT_SETTINGS') turns steps into frames.
    `window_budget` (seconds for all windows together) shortens the windows to what fits at the
    warm-up's pace, so that a measurement stays inside a command's time limit (noted).
    The warm-up restarts the consoles in STAGGER_GROUPS groups at evenly spaced steps (see
    there), through reset(options={"reset_mask": ...}), which both AtariVectorEnvs take.
    cule_py's env has its autoreset launches timed during the windows only.
    `continue_from`: an earlier result of this same env, whose state it is still in (steady
    state already): no reset, no first step, no warm-up; the windows go on from there, with
    actions drawn from `seed`, and warmup_steps counts every step since that reset."""
    say = progress or (lambda line: None)
    sync = sync or (lambda: None)
    if window_steps < 1 or windows < 1:
        raise ValueError("window_steps and windows must be >= 1")
    target = default_warmup_steps(game) if warmup_steps is None else int(warmup_steps)
    skip = _frameskip_of(env) if frameskip is None else int(frameskip)
    floor = min(target, math.ceil(DECORRELATION_FRAMES / skip))
    n = env.num_envs
    actions_n = int(env.single_action_space.n)
    rng = np.random.default_rng(seed)
    notes = []
    timed_resets = hasattr(env, "_time_autoresets")
    if not timed_resets:
        notes.append("reset share unknown: this env's reset time is not visible from outside")

    # A GPU env gets each batch of actions uploaded in one copy before it is played (outside the
    # timers), as a GPU policy hands them over: a host array per step would be a pageable copy,
    # which makes every step wait for the one before.
    xp = getattr(env, "xp", np)

    def random_actions(rows: int):
        actions = rng.integers(0, actions_n, (rows, n), dtype=np.int64)
        return actions if xp is np else xp.asarray(actions)

    if continue_from is not None:
        return _measure_windows(
            env, game=game, label=label, backend=backend, window_steps=window_steps,
            windows=windows, sync=sync, say=say, threads=threads, skip=skip, target=target,
            done=continue_from.warmup_steps + sum(w.steps for w in continue_from.windows),
            random_actions=random_actions, timed_resets=timed_resets,
            distinct_ram=_distinct_ram(env), distinct_obs=None, setup=0.0,
            warmup_seconds=0.0, notes=notes, continued_from=continue_from.label)

    say(f"{label}: {game}, {n} envs, reset(seed={seed}) and a first step")
    start = time.perf_counter()
    env.reset(seed=seed)
    observations = env.step(random_actions(1)[0])[0]
    sync()
    setup = time.perf_counter() - start
    say(f"{label}: reset and first step took {setup:.1f} s; warm-up to {target} steps")

    staggered = getattr(env, "takes_reset_mask", True)
    if not staggered:
        notes.append("no staggered restarts: this env resets a subset only with all of it; its "
                     "consoles decorrelate by noop starts, sticky actions and their own ends")
    done, ends = 1, _EndCounter()
    start = last_note = time.perf_counter()
    chunk: list = []
    # Restarts end `floor` steps before the windows, so that the last group restarted has played
    # its decorrelation frames too (a game's start-up screens ignore the inputs for a while).
    restarts = {max(2, round(k * (target - floor) / STAGGER_GROUPS)): k
                for k in range(1, STAGGER_GROUPS)}
    group = np.arange(n) % STAGGER_GROUPS
    while done < target:
        now = time.perf_counter()
        if time_budget is not None and now - start > time_budget and done >= floor:
            notes.append(f"warm-up cut by the {time_budget:g} s budget at {done} of {target} "
                         f"steps")
            break
        if now - last_note > PROGRESS_EVERY_S:
            last_note = now
            say(f"{label}: warm-up {done}/{target} steps, {ends.total()} episode ends, "
                f"~{(done - 1) * n / (now - start):,.0f} agent steps/s")
        if staggered and done in restarts and target - floor >= STAGGER_GROUPS:
            env.reset(options={"reset_mask": group == restarts[done]})
        if not chunk:
            chunk = list(random_actions(min(64, target - done)))[::-1]
        observations, _, terminated, truncated, _ = env.step(chunk.pop())
        ends.add(terminated, truncated)
        done += 1
    sync()
    warmup_seconds = time.perf_counter() - start
    distinct_ram = _distinct_ram(env)
    distinct_obs = _distinct_observations(observations)
    say(f"{label}: warm-up {done} steps in {warmup_seconds:.1f} s, {ends.total()} episode ends; "
        f"of {n} consoles, distinct RAM {'n/a' if distinct_ram is None else distinct_ram}, "
        f"distinct observations {'n/a' if distinct_obs is None else distinct_obs}")

    window_steps = _fitted_window(window_steps, windows, window_budget,
                                  warmup_seconds / max(1, done - 1), notes, "steps")
    return _measure_windows(
        env, game=game, label=label, backend=backend, window_steps=window_steps, windows=windows,
        sync=sync, say=say, threads=threads, skip=skip, target=target, done=done,
        random_actions=random_actions, timed_resets=timed_resets, distinct_ram=distinct_ram,
        distinct_obs=distinct_obs, setup=setup, warmup_seconds=warmup_seconds, notes=notes)


def _measure_windows(env, *, game, label, backend, window_steps, windows, sync, say, threads,
                     skip, target, done, random_actions, timed_resets, distinct_ram,
                     distinct_obs, setup, warmup_seconds, notes,
                     continued_from=None) -> SteadyStateResult:
    """measure_vector_env's timed windows, from wherever the env is."""
    n = env.num_envs
    measured = []
    sources_before = _reset_sources(env)
    if timed_resets:
        env._time_autoresets(True)
    try:
        for index in range(windows):
            rows = random_actions(window_steps)
            ends = _EndCounter()
            sync()
            if timed_resets:
                env._autoreset_seconds()          # drop anything before this window
            cpu_start, start = time.process_time(), time.perf_counter()
            for row in rows:
                _, _, terminated, truncated, _ = env.step(row)
                ends.add(terminated, truncated)
            sync()
            seconds = time.perf_counter() - start
            cpu_seconds = time.process_time() - cpu_start
            reset_seconds = env._autoreset_seconds() if timed_resets else None
            window = Window(window_steps, seconds, ends.total(), reset_seconds,
                            cpu_seconds=cpu_seconds)
            measured.append(window)
            say(f"{label}: window {index + 1}/{windows}: {window_steps * n / seconds:,.0f} agent "
                f"steps/s, {window.episode_ends} episode ends"
                + ("" if reset_seconds is None else f", resets {reset_seconds / seconds:.1%}"))
    finally:
        if timed_resets:
            env._time_autoresets(False)
    sources = None
    if sources_before is not None:
        sources = {k: v - sources_before[k] for k, v in _reset_sources(env).items()}
        say(f"{label}: resets from the table in the windows: {sources}")
    return SteadyStateResult(label=label, backend=backend, game=game, num_envs=n,
                             threads=threads, frameskip=skip, warmup_steps=done,
                             warmup_target=target, distinct_ram=distinct_ram, windows=measured,
                             distinct_observations=distinct_obs, setup_seconds=setup,
                             warmup_seconds=warmup_seconds, notes=notes,
                             continued_from=continued_from, reset_sources=sources)


def reset_latency_probe(env, sizes=(1, 8, 64), repeats: int = 3, seed: int = 0,
                        sync: Callable[[], None] | None = None) -> list[dict]:
    """How long one reset launch of k consoles takes, for each k in `sizes` (cule_py's env, after
    a measurement, its table warm): `repeats` times reset(options={"reset_mask": k random
    consoles}), each timed alone between syncs; per k the median seconds and where the resets
    came from (reset_sources). On the GPU a launch lasts as long as its slowest lane, so this
    separates a reset's own latency (k = 1) from the chance that one of k misses the table."""
    sync = sync or (lambda: None)
    rng = np.random.default_rng(seed)
    rows = []
    for k in sizes:
        k = min(int(k), env.num_envs)
        seconds = []
        before = _reset_sources(env)
        for _ in range(repeats):
            mask = np.zeros(env.num_envs, np.bool_)
            mask[rng.choice(env.num_envs, k, replace=False)] = True
            sync()
            start = time.perf_counter()
            env.reset(options={"reset_mask": mask})
            sync()
            seconds.append(time.perf_counter() - start)
        after = _reset_sources(env)
        rows.append({"consoles": k, "repeats": repeats, "seconds": statistics.median(seconds),
                     "all_seconds": seconds,
                     "sources": {key: after[key] - before[key] for key in after}})
    return rows


def _reset_sources(env) -> dict | None:
    """cule_py's reset-table counters summed over the consoles (a host copy; None for other
    envs)."""
    agent = getattr(env, "_agent", None)
    if agent is None:
        return None
    from .kernels.agent import agent_step as K

    counts = env._batch.host(agent).astype(np.int64).sum(axis=0)
    return {"start": int(counts[K.A_TABLE_RESETS]), "tail": int(counts[K.A_TAIL_RESETS]),
            "tail_by_origin": int(counts[K.A_TAIL_BY_ORIGIN]),
            "tail_direct": int(counts[K.A_TAIL_DIRECT])}


def measure_emulator(emulator, *, game: str, label: str, backend: str,
                     warmup_frames: int = DECORRELATION_FRAMES, window_frames: int = 200,
                     windows: int = 3, reset_every: int = 1, seed: int = 0,
                     time_budget: float | None = None, sync: Callable[[], None] | None = None,
                     progress: Callable[[str], None] | None = None,
                     threads: int | None = None,
                     window_budget: float | None = None) -> SteadyStateResult:
    """Raw frames in steady state: `emulator.act` (cule_py's AtariEmulator on either device), one
    frame per console per call, random minimal-set actions, consoles at game
    over reset every `reset_every` frames (1: before the next frame, as ALE's own loop does; on a
    GPU a reset reads the flags back, so a cadence keeps the host from waiting every frame).
    `warmup_frames` (>= DECORRELATION_FRAMES unless a `time_budget` cuts it) decorrelate the
    consoles, then `windows` timed windows of `window_frames` frames count the frames of consoles
    not at game over (a console at game over does not emulate) and the time spent in resets
    (CUDA events around them on a GPU). A "step" of the result is one frame (frameskip 1).
    `window_budget` as in measure_vector_env."""
    say = progress or (lambda line: None)
    sync = sync or (lambda: None)
    n = emulator.num_envs
    xp = getattr(emulator, "xp", None) or np
    on_device = xp is not np
    clock = CallClock(xp if on_device else None)
    actions = np.asarray(emulator.minimal_action_set())
    rng = np.random.default_rng(seed)

    def action_rows(rows: int):
        host = actions[rng.integers(0, len(actions), (rows, n))]
        return host if not on_device else xp.asarray(host)

    def reset_over() -> int:
        over = emulator.game_over()
        over = over.get() if on_device else np.asarray(over)
        if over.any():
            clock.time(emulator.reset, over)
        return int(over.sum())

    def play(rows, counted: list | None) -> int:
        resets = 0
        for index, row in enumerate(rows):
            if counted is not None:
                counted.append(n - emulator.game_over().sum())
            emulator.act(row)
            if (index + 1) % reset_every == 0:
                resets += reset_over()
        return resets

    say(f"{label}: {game}, {n} consoles, warm-up to {warmup_frames} frames")
    start = time.perf_counter()
    done, notes = 0, []
    while done < warmup_frames:
        if time_budget is not None and time.perf_counter() - start > time_budget:
            notes.append(f"warm-up cut by the {time_budget:g} s budget at {done} of "
                         f"{warmup_frames} frames")
            break
        chunk = min(50, warmup_frames - done)
        play(action_rows(chunk), None)
        done += chunk
    reset_over()
    sync()
    warmup_seconds = time.perf_counter() - start
    distinct = _distinct_rows(np.ascontiguousarray(
        emulator.ram().get() if on_device else emulator.ram()))
    say(f"{label}: warm-up {done} frames in {warmup_seconds:.1f} s; distinct RAM {distinct}/{n}")
    window_frames = _fitted_window(window_frames, windows, window_budget,
                                   warmup_seconds / max(1, done), notes, "frames")
    measured = []
    for index in range(windows):
        rows = action_rows(window_frames)
        counted: list = []
        sync()
        clock.take()
        t0 = time.perf_counter()
        resets = play(rows, counted)
        sync()
        seconds = time.perf_counter() - t0
        played = int(sum(int(c) for c in counted)) if not on_device else int(xp.stack(counted).sum())
        window = Window(window_frames, seconds, resets, clock.take(), console_steps=played)
        measured.append(window)
        say(f"{label}: window {index + 1}/{windows}: {played / seconds:,.0f} frames/s, "
            f"{resets} resets ({window.reset_seconds / seconds:.1%} of the time)")
    return SteadyStateResult(label=label, backend=backend, game=game, num_envs=n,
                             threads=threads, frameskip=1, warmup_steps=done,
                             warmup_target=warmup_frames, distinct_ram=distinct,
                             windows=measured, warmup_seconds=warmup_seconds, notes=notes)


def make_cule_env(game: str, num_envs: int, device: str = "cpu", threads: int | None = None,
                  **overrides):
    """cule_py's AtariVectorEnv with AGENT_SETTINGS (ale-py's defaults, sticky actions 0.25),
    `overrides` on top; `threads`: its num_threads (None: automatic)."""
    from .vector import AtariVectorEnv

    settings = {**AGENT_SETTINGS, **overrides}
    return AtariVectorEnv(game, num_envs, device=device, num_threads=threads or 0, **settings)


def make_ale_env(game: str, num_envs: int, threads: int | None = None, **overrides):
    """ale-py's AtariVectorEnv with the same AGENT_SETTINGS, `overrides` on top; `threads`: its
    num_threads (None: ale-py's automatic choice)."""
    import ale_py
    from ale_py.vector_env import AtariVectorEnv

    ale_py.ALEInterface.setLoggerMode(ale_py.LoggerMode.Error)   # no banner per env
    settings = {**AGENT_SETTINGS, **overrides}
    return AtariVectorEnv(game, num_envs, num_threads=threads or 0, **settings)


class EnvPoolVectorEnv:
    """EnvPool's Atari env (`envpool.make_gymnasium`, the `bench` extra) with AGENT_SETTINGS'
    meaning, in the shape measure_vector_env drives: seeded when made (its reset takes no seed),
    no partial reset (a synchronous reset of a subset waits for a whole batch)."""

    takes_reset_mask = False

    def __init__(self, game: str, num_envs: int, threads: int | None = None, seed: int = 0,
                 **overrides):
        import envpool

        s = {**AGENT_SETTINGS, **overrides}
        task = "".join(part.capitalize() for part in game.split("_")) + "-v5"
        self._env = envpool.make_gymnasium(
            task, num_envs=num_envs, batch_size=num_envs, num_threads=threads or 0, seed=seed,
            frame_skip=s["frameskip"], img_height=s["img_height"], img_width=s["img_width"],
            gray_scale=s["grayscale"], stack_num=s["stack_num"], noop_max=s["noop_max"],
            use_fire_reset=s["use_fire_reset"], episodic_life=s["episodic_life"],
            reward_clip=s["reward_clipping"],
            max_episode_steps=s["max_num_frames_per_episode"] // s["frameskip"],
            repeat_action_probability=s["repeat_action_probability"])
        self.num_envs = num_envs
        self.single_action_space = self._env.single_action_space

    def reset(self, *, seed=None, options=None):
        if options:
            raise ValueError("EnvPool's synchronous env resets every env at once")
        return self._env.reset()

    def step(self, actions):
        return self._env.step(np.asarray(actions))

    def close(self) -> None:
        self._env.close()


SIDE_NAMES = {"cule_py": "cule_py", "ale_py": "ale-py", "envpool": "EnvPool"}


@dataclass
class PairedComparison:
    """`rounds` paired steady-state measurements of cule_py and ale-py, one game and core count:
    round i's two results ran back to back, so their ratio compares like with like on a host
    whose speed drifts."""

    game: str
    cores: int
    num_envs: int
    cule_py: list[SteadyStateResult]
    ale_py: list[SteadyStateResult]

    @property
    def ratios(self) -> list[float]:
        """cule_py / ale-py agent steps/s, per round."""
        return [c.agent_steps_per_s / a.agent_steps_per_s for c, a in zip(self.cule_py, self.ale_py)]

    def median(self, side: str, figure: str) -> float | None:
        """Median over rounds of one side's ("cule_py" or "ale_py") figure (a result property)."""
        values = [getattr(r, figure) for r in getattr(self, side)]
        if any(v is None for v in values):
            return None
        return statistics.median(values)

    def as_dict(self) -> dict:
        """The rounds' results and the medians, JSON-able."""
        ratios = self.ratios
        out = {"game": self.game, "cores": self.cores, "num_envs": self.num_envs,
               "ratio": statistics.median(ratios), "ratio_min": min(ratios),
               "ratio_max": max(ratios), "ratios": ratios}
        for side in ("cule_py", "ale_py"):
            out[side] = {figure: self.median(side, figure)
                         for figure in ("agent_steps_per_s", "frames_per_s",
                                        "episode_ends_per_step", "reset_share")}
            out[side]["rounds"] = [r.as_dict() for r in getattr(self, side)]
        return out


def compare_cpu(games: Sequence[str], *, envs_per_core: int = 16,
                cores_list: Sequence[int] | None = None, rounds: int = 3,
                warmup_steps: int | None = None, window_steps: int = 200, windows: int = 3,
                seed: int = 0, time_budget: float | None = None,
                progress: Callable[[str], None] | None = None,
                on_comparison: Callable[[PairedComparison], None] | None = None
                ) -> list[PairedComparison]:
    """cule_py's AtariVectorEnv against ale-py's on the CPU, steady state, per game and core
    count (default: 1 and `available_cores()`): `rounds` paired rounds, cule_py then ale-py with
    the order alternating per round. Each side is one env of envs_per_core x cores envs on
    `cores` threads per game and core count: round 1 is a full `measure_vector_env` (reset,
    warm-up None: per-game default), later rounds go on from where the side's last round left
    its env (steady state already; the same fresh action seed on both sides), so that a round
    costs its windows, not another env, reset and warm-up (ale-py's take ~8 s of a ~17 s round
    on one core). `on_comparison` gets each game and core count as soon as its rounds are done
    (the benchmark prints its row then, not minutes later with the others)."""
    if cores_list is None:
        cores_list = sorted({1, available_cores()})
    comparisons = []
    for game in games:
        for cores in cores_list:
            num_envs = envs_per_core * cores
            sides = [Side(f"{SIDE_NAMES[name]} {cores} core(s)",
                          functools.partial(make, game, num_envs, threads=cores), cores)
                     for name, make in (("cule_py", make_cule_env), ("ale_py", make_ale_env))]
            cule, ale = paired_rounds(game, sides, rounds=rounds, warmup_steps=warmup_steps,
                                      window_steps=window_steps, windows=windows, seed=seed,
                                      time_budget=time_budget, progress=progress)
            comparisons.append(PairedComparison(game, cores, num_envs, cule, ale))
            if on_comparison is not None:
                on_comparison(comparisons[-1])
    return comparisons


@dataclass
class Side:
    """One env of a paired measurement: its label, how to make it, its threads."""

    label: str
    make: Callable[[], Any]
    threads: int


class _SideProcess:
    """One side's env in a process of its own (spawned, so that no thread or allocator state of
    the parent's carries over): it makes the env once and measures a round whenever asked, so
    that its env, like a user's, shares its process with no other library's threads."""

    def __init__(self, side: Side, game: str, progress: bool):
        import multiprocessing

        context = multiprocessing.get_context("spawn")
        self._conn, child = context.Pipe()
        self._process = context.Process(target=_serve_side, args=(child, side.make, game, progress),
                                        daemon=True, name=f"cule_py side {side.label}")
        self._process.start()
        child.close()

    def wait_ready(self) -> None:
        """Until the env is made (a process starting up would take a core from the side that is
        being measured)."""
        self._reply()

    def _reply(self):
        status, payload = self._conn.recv()
        if status == "error":
            raise RuntimeError(f"the side's process failed:\n{payload}")
        return payload

    def measure(self, **kwargs) -> SteadyStateResult:
        self._conn.send(kwargs)
        return self._reply()

    def close(self) -> None:
        try:
            self._conn.send(None)
        except (BrokenPipeError, OSError):
            pass
        self._process.join(timeout=30)
        if self._process.is_alive():
            self._process.kill()


def _serve_side(conn, make: Callable[[], Any], game: str, progress: bool) -> None:
    """_SideProcess's worker: measure_vector_env(env, **request) per request, until None."""
    import sys
    import traceback

    env = None
    say = (lambda line: print(line, file=sys.stderr, flush=True)) if progress else None
    try:
        try:
            env = make()
            conn.send(("ok", None))
        except BaseException:
            conn.send(("error", traceback.format_exc()))
            return
        while (request := conn.recv()) is not None:
            try:
                conn.send(("ok", measure_vector_env(env, game=game, backend="cpu",
                                                    progress=say, **request)))
            except BaseException:       # reported to the parent, which raises it there
                conn.send(("error", traceback.format_exc()))
    finally:
        if env is not None:
            env.close()


def round_order(count: int, round_: int, adjacent: int = 1) -> list[int]:
    """The order in which paired_rounds runs `count` sides in round `round_` (from 0): groups
    of `adjacent` consecutive sides, rotated by one group a round, each group reversed in odd
    rounds."""
    step = max(adjacent, 1)
    groups = [list(range(first, min(first + step, count))) for first in range(0, count, step)]
    shift = round_ % max(len(groups), 1)
    return [i for group in [*groups[shift:], *groups[:shift]]
            for i in (group if round_ % 2 == 0 else group[::-1])]


def paired_rounds(game: str, sides: Sequence[Side], *, rounds: int = 3,
                  warmup_steps: int | None = None, window_steps: int = 200, windows: int = 3,
                  seed: int = 0, time_budget: float | None = None,
                  progress: Callable[[str], None] | None = None,
                  own_processes: bool = False,
                  adjacent: int = 1) -> list[list[SteadyStateResult]]:
    """`rounds` rounds of every side, back to back in each round, the order rotating by one side
    per round so that no side always runs first; each side's results in `sides`' order. A side's
    env is made once: round 1 is a full `measure_vector_env`, later rounds go on from where its
    last round left it, with the same fresh action seed on every side.

    `adjacent`: `sides` come in groups of that many that always run one right after another
    (their order within the group reversed every other round), and the rotation is by group:
    a ratio within a group then compares windows seconds apart, not a round apart, on a host
    whose speed drifts over tens of seconds (benchmarks/cpu_scaling.py's thread counts).

    `own_processes`: each side's env lives in a process of its own, idle while the others run.
    In one process, the other sides' envs and their threads stay alive beside the one measured
    and take CPU from it (docs/performance-log.md, "two threads that do not fall asleep")."""
    results: list[list[SteadyStateResult]] = [[] for _ in sides]
    envs: dict[int, Any] = {}
    try:
        if own_processes:
            for i, side in enumerate(sides):
                envs[i] = _SideProcess(side, game, progress is not None)
            for process in envs.values():
                process.wait_ready()
        for round_ in range(rounds):
            for i in round_order(len(sides), round_, adjacent):
                side = sides[i]
                request = dict(label=f"{side.label} round {round_ + 1}",
                               warmup_steps=warmup_steps, window_steps=window_steps,
                               windows=windows, seed=seed + round_, time_budget=time_budget,
                               threads=side.threads,
                               continue_from=results[i][-1] if results[i] else None)
                if own_processes:
                    results[i].append(envs[i].measure(**request))
                    continue
                if i not in envs:
                    envs[i] = side.make()
                results[i].append(measure_vector_env(envs[i], game=game, backend="cpu",
                                                     progress=progress, **request))
    finally:
        for env in envs.values():
            env.close()
    return results


COMPARISON_HEADER = (
    "| game | cores | envs | cule_py agent steps/s | ale-py agent steps/s | ratio [range] | "
    "cule_py frames/s | episode ends/step | cule_py reset share | CPU share cule_py, ale-py | "
    "warm-up steps |\n"
    "|---|---|---|---|---|---|---|---|---|---|---|")

#: Below this share of its cores (Window.cpu_seconds), a side's run shared the machine with other
#: work: its figures, and the ratio, say little about either side.
BUSY_BELOW = 0.85


def busy(c: PairedComparison) -> bool:
    """Whether either side got less than BUSY_BELOW of its cores in this row's windows."""
    shares = [c.median(side, "cpu_share") for side in ("cule_py", "ale_py")]
    return any(share is not None and share < BUSY_BELOW for share in shares)


def comparison_row(c: PairedComparison) -> str:
    """One row of `comparison_table`: medians over rounds, the ratio's median [min, max]. An agent
    step is `frameskip` emulated frames (frames/s: agent steps/s x frameskip)."""
    ratios = c.ratios
    share = c.median("cule_py", "reset_share")
    cpu = [c.median(side, "cpu_share") for side in ("cule_py", "ale_py")]
    cpu_text = ", ".join("n/a" if x is None else f"{x:.0%}" for x in cpu) + (
        " (busy)" if busy(c) else "")
    # the warm-ups played; later rounds continue from them (their own count is cumulative)
    warmups = sorted({r.warmup_steps for r in c.cule_py + c.ale_py
                      if r.continued_from is None})
    return (f"| {c.game} | {c.cores} | {c.num_envs} | "
            f"{c.median('cule_py', 'agent_steps_per_s'):,.0f} | "
            f"{c.median('ale_py', 'agent_steps_per_s'):,.0f} | {statistics.median(ratios):.2f} "
            f"[{min(ratios):.2f}, {max(ratios):.2f}] | {c.median('cule_py', 'frames_per_s'):,.0f} | "
            f"{c.median('cule_py', 'episode_ends_per_step'):.3f} | "
            f"{'n/a' if share is None else f'{share:.1%}'} | {cpu_text} | "
            f"{', '.join(map(str, warmups))} |")


def comparison_table(comparisons: Sequence[PairedComparison]) -> str:
    """A markdown table of `compare_cpu`'s results: medians over rounds, the ratio's median
    [min, max] over rounds; ale-py's reset share is not measurable (n/a)."""
    return "\n".join([COMPARISON_HEADER, *map(comparison_row, comparisons)])


def comparison_notes(comparisons: Sequence[PairedComparison]) -> list[str]:
    """Lines on what the table hides: warm-ups the budget cut, results not decorrelated, and the
    fewest distinct RAM contents / observations seen after a warm-up."""
    lines = []
    for c in comparisons:
        if busy(c):
            lines.append(f"{c.game}, {c.cores} core(s): the machine was busy with other work "
                         f"(CPU share below {BUSY_BELOW:.0%} of the cores asked for): this row's "
                         f"speeds and ratio say little; run again on a quiet machine")
        ends = {side: c.median(side, "episode_ends_per_step") for side in ("cule_py", "ale_py")}
        if ends["cule_py"] != ends["ale_py"]:
            lines.append(f"{c.game}, {c.cores} core(s): episode ends/step differ: cule_py "
                         f"{ends['cule_py']:.3f}, ale-py {ends['ale_py']:.3f}")
        for r in c.cule_py + c.ale_py:
            where = f"{c.game}, {c.cores} core(s), {r.label}"
            if r.warmup_cut:
                lines.append(f"{where}: warm-up cut at {r.warmup_steps} of {r.warmup_target} steps")
            if not r.decorrelated:
                lines.append(f"{where}: NOT decorrelated ({r.warmup_steps * r.frameskip} frames, "
                             f"distinct RAM {r.distinct_ram}, observations "
                             f"{r.distinct_observations} of {r.num_envs})")
        ram = [r.distinct_ram for r in c.cule_py if r.distinct_ram is not None]
        obs = [r.distinct_observations for r in c.cule_py + c.ale_py
               if r.distinct_observations is not None]
        lines.append(f"{c.game}, {c.cores} core(s), {c.num_envs} envs: after warm-up, fewest "
                     f"distinct RAM {min(ram) if ram else 'n/a'} (cule_py), fewest distinct "
                     f"observations {min(obs) if obs else 'n/a'} (both); per-round ratios "
                     f"{', '.join(f'{x:.2f}' for x in c.ratios)}")
    return lines
