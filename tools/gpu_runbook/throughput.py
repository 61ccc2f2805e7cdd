"""Stage 2: throughput in steady state, the GPU beside ale-py on every CPU core of the same machine.

Order of value (a stage cut short by its time limit keeps what it measured, and a second call
with the same results folder goes on where it stopped):

1. ale-py's AtariVectorEnv on all cores, Pong and Breakout (the ratio's denominator), each
   followed by cule_py's agent step at 16,384 consoles (under the scanline warp schedule, the
   only one since the H200 of 2026-11-27 decided it; kernels/gpu/warp_schedule.py);
2. Space Invaders, Ms. Pac-Man and Seaquest: the agent step at 16,384 (with Pong and Breakout,
   the five games of issue 27's headline median; before the env runner since 2026-11-27: the
   env runner was measured on the H200 on 2026-11-27, the median never); then Seaquest at
   131,072 consoles with the step at 64 registers (the model's best batch, 2026-11-28: its
   Seaquest prediction is the five games' median); then ale-py on those three games (their
   ratios; ale-py's side was measured on the H200 on 2026-11-27);
   then Pong and Seaquest at 16,384 with CULE_PY_GPU_RESET_BLOCKS=shared (the autoreset
   launch in the step's block size, as before 2026-11-28, where the hardware may place it
   beside a step warp: the default's blocks need a whole SM, so they run only on the SMs that
   the step's 128 blocks leave empty; the model has the default 0-9% faster, 2026-11-28);
   then Pong and Ms. Pac-Man at 16,384 with CULE_PY_GPU_DRAW_AT_WSYNC=0 (the decoded core
   leaves WSYNCs undrawn, as before 2026-11-28: the model has the default 1.5x faster on
   Pong and 4% slower on Ms. Pac-Man, benchmarks/RESULTS.md 2026-11-28);
3. Breakout's agent step at 65,536 consoles, the step kernel at 255 registers (two waves of
   blocks) and capped at 128 (one wave, twice the warps per scheduler, more spills; 2026-11-27);
   then at 131,072 capped at 64 (8 warps a scheduler, in one wave: the model's best batch,
   2026-11-28);
4. the RLlib env runner's device path without Ray (issue 29; Ray does not travel to the GPU
   machine): CuleEnvRunner's sample loop (cule_py.rollout) with the PPO network on the GPU,
   cule_py's consoles on the GPU against ale-py's vector env on all cores, Pong
   (benchmarks/env_runner_device_path.py; needs torch, which the GPU image has);
5. cule_py's agent step at 65,536 consoles, Pong, then raw `act()` frames (every frame drawn)
   at 16,384 and 65,536.

Every figure comes from `cule_py.steady_state` (warm-up past the first episode ends where the
budget allows, consoles decorrelated and checked by distinct RAM, resets inside the timed
windows): measure_vector_env for the agent step, measure_emulator for raw frames.
"""

from __future__ import annotations

import os
import pathlib
import time

from .common import Deadline, Log, append_record, environment, read_records

RECORDS = "throughput.jsonl"
BENCHMARK_GAMES = ("pong", "breakout", "space_invaders", "ms_pacman", "seaquest")
# The warp schedule every item runs (cule_py.batch.gpu_schedule), named in its record: records
# before 2026-11-27 name none (then free), those of 2026-11-27 name free, scanline or min_pc.
DEFAULT_SCHEDULE = "scanline"
# The agent step kernel's register budgets (cule_py.batch.STEP_REGISTERS), the default first.
DEFAULT_REGISTERS = 255
# Whether the decoded core draws up to each WSYNC (cule_py.batch.gpu_draw_at_wsync's default).
DEFAULT_DRAW_AT_WSYNC = 1
# Where NextStep's autoreset launch runs (cule_py.batch.RESET_BLOCKS), the default first.
RESET_BLOCKS = ("own", "shared")


def plan(scale: str, device: str) -> list[dict]:
    """The configurations, most valuable first."""
    if scale == "tiny":
        big, bigger, ale_envs, runner_consoles = 4, 8, 4, 4
    else:
        # An env runner's batch: 4,096 consoles x 17 frames of 28 KB make a 2 GB rollout.
        big, bigger, ale_envs, runner_consoles = 16_384, 65_536, 64, 4_096
    items: list[dict] = []
    for game in ("pong", "breakout"):
        items.append({"kind": "ale_vector", "game": game, "consoles": ale_envs})
        # (the dry run, on the CPU, measures one game of each kind)
        if scale != "tiny" or game == "pong":
            items.append({"kind": "agent", "game": game, "consoles": big})
    for game in BENCHMARK_GAMES[2:]:
        items.append({"kind": "agent", "game": game, "consoles": big})
    # The best batch by the model (2026-11-28): the step at 64 registers, 131,072 consoles in one
    # wave of 8 warps a scheduler, on the game whose prediction is the five games' median; inside
    # the first call's 435 s with the five games above
    items.append({"kind": "agent", "game": "seaquest", "consoles": 2 * bigger, "registers": 64})
    for game in ("pong", "seaquest") if scale != "tiny" else ("pong",):
        items.append({"kind": "agent", "game": game, "consoles": big,
                      "reset_blocks": RESET_BLOCKS[1]})
    for game in BENCHMARK_GAMES[2:]:
        items.append({"kind": "ale_vector", "game": game, "consoles": ale_envs})
    for game in ("pong", "ms_pacman") if scale != "tiny" else ("pong",):
        items.append({"kind": "agent", "game": game, "consoles": big, "draw_at_wsync": 0})
    # The step kernel's register budget where it can matter (kernels/agent/agent_step.py,
    # STEP_REGISTER_CAP): 65,536 consoles take two waves at 255 registers, one at 128.
    for registers in (255, 128):
        items.append({"kind": "agent", "game": "breakout", "consoles": bigger,
                      "registers": registers})
    items.append({"kind": "agent", "game": "breakout", "consoles": 2 * bigger, "registers": 64})
    if _has_torch():
        for sampler, consoles in (("cule", runner_consoles), ("ale", ale_envs)):
            items.append({"kind": "env_runner", "game": "pong", "consoles": consoles,
                          "sampler": sampler})
    for game in ("pong", "breakout"):
        items.append({"kind": "agent", "game": game, "consoles": bigger})
    for consoles in (big, bigger):
        for game in ("pong", "breakout"):
            items.append({"kind": "raw", "game": game, "consoles": consoles})
    unique = []
    for item in items:
        # (an env runner's device is its policy's; ale-py's consoles stay on the CPU)
        item["device"] = "cpu" if item["kind"] == "ale_vector" else device
        item.setdefault("schedule", DEFAULT_SCHEDULE)
        item.setdefault("registers", DEFAULT_REGISTERS)
        item.setdefault("draw_at_wsync", DEFAULT_DRAW_AT_WSYNC)
        item.setdefault("reset_blocks", RESET_BLOCKS[0])
        if _key(item) not in {_key(u) for u in unique}:
            unique.append(item)
    return unique


def _key(item: dict) -> tuple:
    # (records written before 2026-11-27 name no schedule for the default, then free; before
    # 2026-11-28 no WSYNC rule, then undrawn; before 2026-11-28 no reset blocks, then shared)
    return (item["kind"], item["game"], item["consoles"], item["device"],
            item.get("schedule", "free"), item.get("sampler"),
            item.get("registers", DEFAULT_REGISTERS), item.get("draw_at_wsync", 0),
            item.get("reset_blocks", RESET_BLOCKS[1]))


def _has_torch() -> bool:
    import importlib.util

    return importlib.util.find_spec("torch") is not None


# Games whose warm-up (cule_py.steady_state.WARMUP_STEPS, past most random episodes) runs well
# into the slower steps of decorrelated consoles.
LONG_EPISODES = ("space_invaders", "ms_pacman", "seaquest")


def _budget(item: dict, scale: str) -> float:
    """Seconds one configuration may take, its env's construction included (its share of a
    9-minute command), sized from the last GPU run's timings (benchmarks/README.md, "Two calls
    on the GPU machine")."""
    if scale == "tiny":
        return 20.0
    if item["kind"] == "agent" and item["consoles"] > 65_536:
        return 230.0
    if item["kind"] == "agent" and item["game"] == "pong":
        return 105.0
    if item["kind"] == "agent" and item["game"] in LONG_EPISODES:
        return 145.0
    return {"ale_vector": 30.0, "agent": 65.0, "raw": 45.0, "env_runner": 45.0}[item["kind"]]


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
    started = time.perf_counter()
    if item["kind"] == "ale_vector":
        threads = os.cpu_count()
        env = S.make_ale_env(game, consoles, threads)
        backend = "ale_py"
    else:
        threads = None
        env = _profiled_construction(lambda: S.make_cule_env(game, consoles,
                                                             device=item["device"]), log)
        backend = f"cule_py-{item['device']}"
    construction = time.perf_counter() - started
    try:
        # What the construction left of the budget: three quarters for the warm-up, which
        # decides whether episodes end inside the windows; the windows shrink to fit a fifth
        # (on the GPU their three medians agree within a few per cent).
        left = max(budget - construction, 10.0)
        result = S.measure_vector_env(
            env, game=game, label=f"{backend} {game} x{consoles}", backend=backend,
            warmup_steps=8 if tiny else S.default_warmup_steps(game),
            window_steps=4 if tiny else _window(50, consoles), windows=3, seed=0,
            time_budget=left * 0.75, window_budget=left * 0.2,
            sync=_sync(item["device"]), progress=log, threads=threads)
        record = result.as_dict()
        record["construction_seconds"] = round(construction, 2)
        if item["kind"] == "agent":
            # what the consoles ran with (the dry run checks that the setting reached them)
            from cule_py.kernels import layout as L
            column = env._batch.state[:, L.GPU_DRAW_AT_WSYNC]
            column = column.get() if hasattr(column, "get") else column     # cupy -> numpy
            record["consoles_draw_at_wsync"] = sorted({int(v) for v in column.tolist()})
            # the autoreset launch's block size beside the step (0: the batch's; None: never
            # decided, as on the CPU)
            record["reset_threads_beside_step"] = env._own_sm_threads
            # one reset launch of 1, 8, 64 consoles, the table warm: a reset's own latency
            # against the slowest of many (issue 27: the reset launch set the step)
            record["reset_probe"] = S.reset_latency_probe(
                env, sizes=(1, 2) if tiny else (1, 8, 64), repeats=2 if tiny else 3,
                sync=_sync(item["device"]))
            log("  reset launch: " + ", ".join(
                f"{r['consoles']} consoles {r['seconds'] * 1e3:.1f} ms {r['sources']}"
                for r in record["reset_probe"]))
    finally:
        env.close()
    return record


# An env's construction slower than this gets its profile's top entries in the log: at the
# largest batches it takes minutes on a GPU, for reasons no run has recorded yet.
SLOW_CONSTRUCTION_S = 20.0


def _profiled_construction(build, log):
    """build() under cProfile; where it took over SLOW_CONSTRUCTION_S, the 12 entries of most
    cumulative time go to the log."""
    import cProfile
    import io
    import pstats

    profile = cProfile.Profile()
    started = time.perf_counter()
    env = profile.runcall(build)
    seconds = time.perf_counter() - started
    if seconds > SLOW_CONSTRUCTION_S:
        out = io.StringIO()
        pstats.Stats(profile, stream=out).sort_stats("cumulative").print_stats(12)
        log(f"  construction took {seconds:.1f} s; its profile:\n" + out.getvalue())
    return env


def measure_env_runner(item: dict, scale: str, budget: float, log) -> dict:
    """CuleEnvRunner's sample loop without Ray (benchmarks/env_runner_device_path.measure):
    rollouts of 16 steps (4 in the dry run) with the PPO network on the item's device, the
    warm-up cut at a third of the budget (Pong's episodes outlast it on the GPU: the record's
    episode_ends_per_step says whether resets fell inside)."""
    from benchmarks import env_runner_device_path as bench

    tiny = scale == "tiny"
    return bench.measure(item["sampler"], game=item["game"], consoles=item["consoles"],
                         steps=4 if tiny else 16, rollouts=2 if tiny else 3,
                         device="cuda" if item["device"] != "cpu" else "cpu",
                         warmup_steps=8 if tiny else 1000, time_budget=budget * 0.66,
                         log=log)


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
            f"({item['schedule']} schedule, {item['registers']} registers, draw at WSYNC "
            f"{item['draw_at_wsync']}, reset blocks {item['reset_blocks']}, budget "
            f"{budget:.0f} s)")
        record = dict(item, scale=scale)
        t0 = time.perf_counter()
        try:
            measure = {"raw": measure_raw, "env_runner": measure_env_runner}.get(
                item["kind"], measure_vector)
            with environment("CULE_PY_GPU_STEP_REGISTERS", str(item["registers"])), \
                    environment("CULE_PY_GPU_DRAW_AT_WSYNC", str(item["draw_at_wsync"])), \
                    environment("CULE_PY_GPU_RESET_BLOCKS", item["reset_blocks"]):
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


def summary_line(r: dict) -> str:
    if "error" in r:
        return f"ERROR {r['error']}"
    if r["kind"] == "env_runner":
        return (f"env runner ({r['sampler']}): {r['env_steps_per_s']:,.0f} agent steps/s, "
                f"episode ends/step {r['episode_ends_per_step']:.3f}, "
                f"breakdown {r['breakdown_share']}")
    if r["kind"] == "raw":
        return (f"raw {r['frames_per_s']:,.0f} frames/s (distinct RAM {r['distinct_ram']}/"
                f"{r['consoles']}), reset share {r.get('reset_share')}")
    return (f"{r.get('frames_per_s', 0):,.0f} frames/s, episode ends/step "
            f"{r.get('episode_ends_per_step', 0):.3f}, reset share {r.get('reset_share')}, "
            f"resets from the table {r.get('reset_sources')}")


def _free_device(device: str) -> None:
    import gc

    gc.collect()
    if device != "cpu":
        import cupy as cp

        cp.get_default_memory_pool().free_all_blocks()
