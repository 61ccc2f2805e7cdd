"""Stage 2: throughput in steady state, the GPU beside ale-py on every CPU core of the same machine.

Order of value (a stage cut short by its time limit keeps what it measured, and a second call
with the same results folder goes on where it stopped):

1. ale-py's AtariVectorEnv on all cores, Pong and Breakout (the ratio's denominator), each
   followed by cule_py's agent step at 16,384 consoles under the free and the scanline warp
   schedules (kernels/warp_schedule.py; the same compiled kernel, the schedule a state field
   set from CULE_PY_GPU_SCHEDULE), then both games under min_pc, so that one call compares
   them;
2. cule_py's agent step (v5: frameskip 4, sticky 0.25, 84x84x4 grayscale, noop and fire resets),
   Pong and Breakout at 16,384 consoles, then raw `act()` frames for both;
3. the same at 65,536 consoles;
4. Space Invaders, Ms. Pac-Man and Seaquest: ale-py, then the agent step at 16,384.

Every figure comes from `cule_py.steady_state` (warm-up past the first episode ends where the
budget allows, consoles decorrelated and checked by distinct RAM, resets inside the timed
windows): measure_vector_env for the agent step, measure_emulator for raw frames.
"""

from __future__ import annotations

import contextlib
import os
import pathlib
import time

from common import Deadline, Log, append_record, read_records

RECORDS = "throughput.jsonl"
BENCHMARK_GAMES = ("pong", "breakout", "space_invaders", "ms_pacman", "seaquest")
# The warp schedules compared (kernels/warp_schedule.SCHEDULES), the default first.
SCHEDULES = ("free", "scanline", "min_pc")


def plan(scale: str, device: str) -> list[dict]:
    """The configurations, most valuable first."""
    if scale == "tiny":
        big, bigger, ale_envs = 4, 8, 4
    else:
        big, bigger, ale_envs = 16_384, 65_536, 64
    items: list[dict] = []
    for game in ("pong", "breakout"):
        items.append({"kind": "ale_vector", "game": game, "consoles": ale_envs})
        # (the dry run, on the CPU, only checks that a schedule reaches the consoles)
        for schedule in SCHEDULES[:2] if scale != "tiny" or game == "pong" else ():
            items.append({"kind": "agent", "game": game, "consoles": big, "schedule": schedule})
    if scale != "tiny":
        for game in ("pong", "breakout"):
            items.append({"kind": "agent", "game": game, "consoles": big,
                          "schedule": SCHEDULES[2]})
    for consoles in (big, bigger):
        for kind in ("agent", "raw"):
            for game in ("pong", "breakout"):
                items.append({"kind": kind, "game": game, "consoles": consoles})
    for game in BENCHMARK_GAMES[2:]:
        items.append({"kind": "ale_vector", "game": game, "consoles": ale_envs})
        items.append({"kind": "agent", "game": game, "consoles": big})
    unique = []
    for item in items:
        item["device"] = "cpu" if item["kind"] == "ale_vector" else device
        item.setdefault("schedule", "free")
        if _key(item) not in {_key(u) for u in unique}:
            unique.append(item)
    return unique


def _key(item: dict) -> tuple:
    return (item["kind"], item["game"], item["consoles"], item["device"],
            item.get("schedule", "free"))


def _budget(item: dict, scale: str) -> float:
    """Seconds one configuration may take, warm-up included (its share of a 9-minute command)."""
    if scale == "tiny":
        return 20.0
    return {"ale_vector": 30.0, "agent": 75.0, "raw": 45.0}[item["kind"]]


def _window(at_16k: int, consoles: int) -> int:
    """Steps (frames) per timed window: past the GPU's width a step takes longer as the batch
    grows, so windows shrink with the batch to keep each measurement inside its share of the
    command (on 2ee2133's kernels: 0.34 s an agent step at 16,384 consoles, 0.18 s a raw frame
    at 65,536)."""
    return max(10, at_16k * 16_384 // max(consoles, 16_384))


def _sync(device: str):
    if device == "cpu":
        return None
    import cupy as cp

    return cp.cuda.Device().synchronize


def measure_vector(item: dict, scale: str, budget: float, log) -> dict:
    from cule_py import steady_state as S

    tiny = scale == "tiny"
    game, consoles = item["game"], item["consoles"]
    if item["kind"] == "ale_vector":
        threads = os.cpu_count()
        env = S.make_ale_env(game, consoles, threads)
        backend = "ale_py"
    else:
        threads = None
        env = S.make_cule_env(game, consoles, device=item["device"])
        backend = f"cule_py-{item['device']}"
    try:
        result = S.measure_vector_env(
            env, game=game, label=f"{backend} {game} x{consoles}", backend=backend,
            warmup_steps=8 if tiny else S.default_warmup_steps(game),
            window_steps=4 if tiny else _window(50, consoles), windows=3, seed=0,
            time_budget=budget * 0.5, window_budget=budget * 0.45,
            sync=_sync(item["device"]), progress=log, threads=threads)
    finally:
        env.close()
    return result.as_dict()


def measure_raw(item: dict, scale: str, budget: float, log) -> dict:
    """Raw frames: AtariEmulator.act, every frame drawn, through the same harness
    (steady_state.measure_emulator); game-over consoles reset every 25 frames on the GPU (a reset
    reads the flags back), inside the timed windows."""
    from cule_py import AtariEmulator
    from cule_py.steady_state import measure_emulator

    tiny = scale == "tiny"
    device, game, consoles = item["device"], item["game"], item["consoles"]
    start = time.perf_counter()
    emulator = AtariEmulator(game, consoles, device=device, seed=1,
                             repeat_action_probability=0.25)
    sync = _sync(device)
    if sync:
        sync()
    build_s = time.perf_counter() - start
    result = measure_emulator(
        emulator, game=game, label=f"raw {game} x{consoles} ({device})",
        backend=f"cule_py-{device}", warmup_frames=12 if tiny else 300,
        window_frames=6 if tiny else _window(100, consoles), windows=3,
        reset_every=4 if tiny else 25, seed=1,
        time_budget=budget * 0.6, window_budget=budget * 0.35, sync=sync, progress=log)
    return dict(result.as_dict(), build_s=build_s)


def run_stage(results: pathlib.Path, *, device: str, scale: str, time_limit: float,
              log: Log | None = None) -> dict:
    log = log or Log(results, "throughput")
    deadline = Deadline(time_limit)
    path = results / RECORDS
    done = {_key(r) for r in read_records(path) if "error" not in r}
    failed_kinds: set[tuple] = set()
    measured = skipped = 0
    for item in plan(scale, device):
        if _key(item) in done:
            continue
        if (item["kind"], item["game"]) in failed_kinds:
            log(f"skip {item}: a smaller batch of it failed")
            continue
        budget = _budget(item, scale)
        if not deadline.allows(min(budget, 30.0) + 5.0):
            skipped += 1
            continue
        budget = min(budget, deadline.left() - 5.0)
        log(f"measure {item['kind']} {item['game']} x{item['consoles']} on {item['device']} "
            f"({item['schedule']} schedule, budget {budget:.0f} s)")
        record = dict(item, scale=scale)
        t0 = time.perf_counter()
        try:
            measure = measure_raw if item["kind"] == "raw" else measure_vector
            with _schedule(item["schedule"]):
                record.update(measure(item, scale, budget, log))
        except Exception as err:  # noqa: BLE001 - recorded; the larger batches are skipped
            record["error"] = f"{type(err).__name__}: {err}"[:500]
            failed_kinds.add((item["kind"], item["game"]))
        record["seconds_total"] = round(time.perf_counter() - t0, 1)
        append_record(path, record)
        log(f"  -> {summary_line(record)}")
        measured += 1
        _free_device(device)
    return {"measured": measured, "not_reached": skipped}


@contextlib.contextmanager
def _schedule(name: str):
    """CULE_PY_GPU_SCHEDULE for the consoles built inside (read at power-on)."""
    before = os.environ.get("CULE_PY_GPU_SCHEDULE")
    os.environ["CULE_PY_GPU_SCHEDULE"] = name
    try:
        yield
    finally:
        if before is None:
            os.environ.pop("CULE_PY_GPU_SCHEDULE", None)
        else:
            os.environ["CULE_PY_GPU_SCHEDULE"] = before


def summary_line(r: dict) -> str:
    if "error" in r:
        return f"ERROR {r['error']}"
    if r["kind"] == "raw":
        return (f"raw {r['frames_per_s']:,.0f} frames/s (distinct RAM {r['distinct_ram']}/"
                f"{r['consoles']}), reset share {r.get('reset_share')}")
    return (f"{r.get('frames_per_s', 0):,.0f} frames/s, episode ends/step "
            f"{r.get('episode_ends_per_step', 0):.3f}, reset share {r.get('reset_share')}")


def _free_device(device: str) -> None:
    import gc

    gc.collect()
    if device != "cpu":
        import cupy as cp

        cp.get_default_memory_pool().free_all_blocks()
