"""What resets cost the GPU's agent step in steady state, predicted without a GPU (issue 27).

On a GPU the autoreset launch runs beside the step (NextStep: its own stream) and lasts as long
as its slowest lane; a reset that misses the reset table (kernels/ale/reset_snapshot) plays up to 64
frames alone, one that hits copies its console from the table. How often each happens is a
property of the table and the game, not of the device, so it is counted here on the CPU backend,
which runs the same table code: `collect` steps cule_py's AtariVectorEnv (v5 settings, random
actions) in steady state and records, for every console that resets, where its reset came from
(the table's per-console counters, before and after each step).

`model` then prices each reset in warp instructions of a lone lane (the frames it plays at the
game's identical-consoles cost from gpu_line_profile --warp, its compares and copies, the
reset's observation) and plays launches of a 16,384-console batch drawn from the counted
resets against the step's own predicted time (the warp model of 2026-11-28): the predicted agent
frames/s with resets, the reset launch's share of the step and the chance that a launch holds a
miss. A model fed by counts, not a GPU measurement.

    python -m benchmarks.reset_launches collect --consoles 4096 --steps 500 --out DIR \
        [--gpu-writer]
    python -m benchmarks.reset_launches model --counts DIR --warp WARP_DIR --profile PROFILE_DIR
    python -m benchmarks.reset_launches step --warp WARP_DIR --profile PROFILE_DIR [--batches ...]

Four placements of the reset launch beside the step are priced: unhindered (its warps on
schedulers of their own, for free), as lone lanes and packed (beside a step warp, the critical
one at worst), and on SMs of their own (cule_py._device.own_sm_threads: blocks that
need a whole SM's registers run only on the SMs that the step's grid leaves empty, each warp
alone on its scheduler; only where the grid leaves an SM empty).
"""

from __future__ import annotations

import argparse
import json
import math
import pathlib
import platform
import re
import statistics
import subprocess
import time

import numpy as np

from tools import gpu_model as G

GAMES = ("pong", "breakout", "space_invaders", "ms_pacman", "seaquest")

# Where a console's reset came from, from the counters' deltas over one step.
START_HIT, START_MISS = "start_hit", "start_miss"
TAIL_DIRECT, TAIL_ORIGIN, TAIL_COMPARE, TAIL_PLAYED, TAIL_NONE = (
    "tail_direct", "tail_by_origin", "tail_by_compare", "tail_played", "tail_none")


def classify(before: np.ndarray, after: np.ndarray, episode_frames: np.ndarray, K) -> list[dict]:
    """One dict per console reset between two host copies of the agent array; `episode_frames`:
    the consoles' episode frame counters after the step (after a reset: its tail's acts)."""
    d = after.astype(np.int64) - before.astype(np.int64)
    rows = []
    for env in np.nonzero(before[:, K.A_NEEDS_RESET] != 0)[0]:
        start = START_HIT if d[env, K.A_TABLE_RESETS] > 0 else START_MISS
        if d[env, K.A_TAIL_DIRECT] > 0:
            tail = TAIL_DIRECT
        elif d[env, K.A_TAIL_BY_ORIGIN] > 0:
            tail = TAIL_ORIGIN
        elif d[env, K.A_TAIL_RESETS] > 0:
            tail = TAIL_COMPARE
        elif episode_frames[env] == 0:
            tail = TAIL_NONE            # no FIRE and a noop draw of none: no acts at all
        else:
            tail = TAIL_PLAYED
        rows.append({"start": start, "tail": tail, "acts": int(episode_frames[env]),
                     "table_resets": int(d[env, K.A_TABLE_RESETS])})
    return rows


def collect(game: str, consoles: int, steps: int, seed: int, say, gpu_writer: bool) -> dict:
    """`gpu_writer`: the start region filled by the GPU's rule (the first console that misses
    writes, kernels/ale/reset_snapshot.claim_start_writer), on one thread, where it is race-free;
    otherwise the CPU's (the writer the host names), on every core."""
    from cule_py import steady_state as S
    from cule_py.kernels.agent import agent_step as K
    from cule_py.kernels import layout as L
    from cule_py.kernels.ale import reset_snapshot as RS

    env = S.make_cule_env(game, consoles, threads=1 if gpu_writer else None)
    env._first_miss_writes = gpu_writer or env._first_miss_writes
    try:
        warm = S.measure_vector_env(env, game=game, label="cule_py", backend="cpu",
                                    window_steps=5, windows=1, seed=seed, progress=say)
        rng = np.random.default_rng(seed + 1)
        n_actions = int(env.single_action_space.n)
        launches = []
        start = time.perf_counter()
        agent = env._batch.host(env._agent).copy()
        stored = []        # start entries a launch added (a miss stored: it will not recur)
        for step in range(steps):
            filled = int(env._batch.host(env._reset_table[-1])[RS.TABLE_FILLED])
            env.step(rng.integers(0, n_actions, consoles))
            after = env._batch.host(env._agent).copy()
            frames = env._batch.host(env._batch.state[:, L.ENV_EPISODE_FRAME])
            launches.append(classify(agent, after, frames, K))
            stored.append(int(env._batch.host(env._reset_table[-1])[RS.TABLE_FILLED]) - filled)
            agent = after
            if time.perf_counter() - start > 30 and step % 50 == 0:
                say(f"{game}: step {step}/{steps}")
        table = env._batch.host(env._reset_table[-1])
        usable = int(table[RS.TABLE_FILLED])
        flags = [int(table[RS._start_flag(table, e)]) for e in range(usable)]
        return {"game": game, "consoles": consoles, "steps": steps, "seed": seed,
                "start_writer": "first miss (GPU)" if gpu_writer else "named (CPU)",
                "warmup_steps": warm.warmup_steps, "distinct_ram": warm.distinct_ram,
                "start_entries": usable, "start_entries_flagged": sum(flags),
                "tail_entries_claimed": int(table[RS.TABLE_TAIL_FILLED]),
                "direct_origins": int(table[RS.TABLE_DIRECT_ORIGINS]),
                "launches": launches, "stored": stored}
    finally:
        env.close()


def summary(record: dict) -> dict:
    resets = [r for launch in record["launches"] for r in launch]
    count = {}
    for r in resets:
        for key in (r["start"], r["tail"]):
            count[key] = count.get(key, 0) + 1
    steps, n = record["steps"], record["consoles"]
    return {"resets": len(resets), "resets_per_console_step": len(resets) / (steps * n),
            **{k: count.get(k, 0) for k in (START_HIT, START_MISS, TAIL_DIRECT, TAIL_ORIGIN,
                                            TAIL_COMPARE, TAIL_PLAYED, TAIL_NONE)},
            "regames": sum(max(0, r["table_resets"] - 1) for r in resets)}


def main_collect(args) -> None:
    args.out.mkdir(parents=True, exist_ok=True)

    def say(line):
        print(line, flush=True)

    head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                          text=True).stdout.strip()
    for game in args.games:
        began = time.perf_counter()
        record = collect(game, args.consoles, args.steps, args.seed, say, args.gpu_writer)
        record.update(commit=head, machine=platform.processor() or platform.machine(),
                      seconds=time.perf_counter() - began)
        (args.out / f"counts-{game}.json").write_text(json.dumps(record))
        say(f"{game}: {json.dumps(summary(record))}")


# ---------------------------------------------------------------------------------------------
# The model
# ---------------------------------------------------------------------------------------------
# A lone lane's warp instructions for a reset's non-frame work (rough, from the SASS of the copy
# and compare loops: ~3 instructions a word): the start entry's whole-console compare on a hit
# (2 frame buffers x 250 rows x 20 words, two loads each) and its copy, the tail's row copy.
COMPARE_WORDS = 2 * 250 * 20
WORK_PER_WORD = 3
SNAPSHOT_FRAMES = 2          # reset_snapshot.SNAPSHOT_FRAME: played before the table is read
START_FRAMES = 64            # what a start miss plays instead (System reset .. frame 64)
FINISH_FRAMES = 12           # reset_game's finish on a miss or an unflagged hit (>= 8; Select
                             # presses add more: an assumption, priced high)
TAIL_MAX_ACTS = 31


def lane_work(reset: dict, frame: float, observation: float, rng) -> float:
    """Warp instructions a lone lane issues for one reset."""
    work = SNAPSHOT_FRAMES * frame + observation
    if reset["start"] == START_HIT:
        work += 2 * COMPARE_WORDS * WORK_PER_WORD
    else:
        work += (START_FRAMES - SNAPSHOT_FRAMES + FINISH_FRAMES) * frame
    if reset["tail"] == TAIL_PLAYED:
        # (its acts as counted; zero where the noop draw gave none and there is no FIRE)
        acts = reset.get("acts")
        work += (rng.integers(1, TAIL_MAX_ACTS + 1) if acts is None else acts) * frame
    elif reset["tail"] == TAIL_COMPARE:
        work += 2 * COMPARE_WORDS * WORK_PER_WORD
    elif reset["tail"] != TAIL_NONE:
        work += COMPARE_WORDS * WORK_PER_WORD
    # a game over among the noops: reset_game again
    work += max(0, reset["table_resets"] - 1) * (SNAPSHOT_FRAMES * frame)
    return work


def warmed(record: dict) -> dict:
    """The record as a warm table would have served it: a launch's start misses that the launch
    stored as new entries (`stored`) were first sightings, which a long run meets once; they
    become hits with their tails by index (a new entry among the first DIRECT_ORIGINS gets its
    direct tails played before the next launch)."""
    if "stored" not in record:
        if any(r["start"] == START_MISS for launch in record["launches"] for r in launch):
            raise ValueError(f"{record['game']}: misses, but no count of the entries stored "
                             f"(collected before the field): collect it again")
        return record
    launches = []
    for launch, added in zip(record["launches"], record["stored"]):
        misses = sum(r["start"] == START_MISS for r in launch)
        if misses and added >= misses:
            launch = [dict(r, start=START_HIT, tail=TAIL_DIRECT, table_resets=1)
                      if r["start"] == START_MISS else r for r in launch]
        launches.append(launch)
    return dict(record, launches=launches)


# -- the step alone, predicted ---------------------------------------------------------------------
# tools.gpu_model's frozen model (its FROZEN constants, fitted 2026-11-25): a launch of n consoles
# runs in waves; in a wave a scheduler holds k warps (occupancy: registers, blocks of 128) that
# issue together at ipc(k), so a wave of the step takes k x W / ipc(k) cycles a frame (W: the raw
# frame's warp instructions under the scanline schedule, gpu_line_profile --warp), and the
# observation kernel's warps, 12 bands a console, the same with their own k. A capped step's W
# is scaled by its console loop's static SASS, spill refills included (run_console_frames:
# 13,480 / 12,919 at 128 registers; 14,679, 14,921 and 14,986 / 12,922 at 96, 80 and 64); the
# spills' latency is not priced. Resets and the host are left out. Its figures are predictions:
# every table printed says so, with the model's error over the recorded GPU figures.
CLOCK = G.FROZEN["clock_hz"]
SCHEDULERS = G.H100["sms"] * G.H100["schedulers_per_sm"]
STEP_VARIANTS = {"255 registers": (255, 1.0), "capped at 128": (128, 13480 / 12919),
                 "capped at 96": (96, 14679 / 12922), "capped at 80": (80, 14921 / 12922),
                 "capped at 64": (64, 14986 / 12922)}
OBSERVE_REGISTERS, OBSERVATION_BANDS, THREADS_PER_BLOCK = 142, 12, 128
PREDICTED = ("Agent frames/s **predicted**, not measured (model error over the 15 recorded GPU "
             "frames/s figures: median x/÷ 1.30, worst x/÷ 3.72; benchmarks/model-error.md).")


def ipc(warps_per_scheduler: float) -> float:
    """Warp instructions a scheduler issues a cycle with that many warps resident."""
    return min(1.0, G.FROZEN["ipc_one_warp"] * warps_per_scheduler ** G.FROZEN["ipc_exponent"])


def launch_cycles(threads: int, registers: int, warp_instructions: float) -> float:
    """Cycles until the last scheduler is done: full waves of the resident warps, then the
    rest (blocks spread evenly over the SMs)."""
    gpu = G.H100
    blocks = math.ceil(threads / THREADS_PER_BLOCK)
    per_sm_limit = G.warps_per_sm(registers, THREADS_PER_BLOCK) // (THREADS_PER_BLOCK // 32)
    blocks_per_sm = math.ceil(blocks / gpu["sms"])
    full, rest = divmod(blocks_per_sm, per_sm_limit)
    cycles = 0.0
    for count, blocks_now in ((full, per_sm_limit), (1 if rest else 0, rest)):
        if not count:
            continue
        k = blocks_now * (THREADS_PER_BLOCK // 32) / gpu["schedulers_per_sm"]
        cycles += count * k * warp_instructions / ipc(k)
    return cycles


def _observation_instructions(profile_dir: pathlib.Path, game: str) -> float:
    """The observation kernel's thread instructions a console-frame: the first line of
    gpu_line_profile's step profile."""
    head = (profile_dir / f"profile-{game}.md").read_text().splitlines()[0]
    return float(re.findall(r"observation kernel ([\d,]+)", head)[0].replace(",", ""))


def step_frames_per_s(game: str, warp_dir: pathlib.Path, profile_dir: pathlib.Path,
                      consoles: int, registers: int, scale: float) -> float:
    """Predicted agent frames/s of the step and its observation kernel, no resets."""
    raw = json.loads((warp_dir / f"warp-{game}.json").read_text())["warp_scanline"] * scale
    step = launch_cycles(consoles, registers, raw)
    # a band thread's share of a console's observation, its warp converged
    observe = _observation_instructions(profile_dir, game) / OBSERVATION_BANDS
    look = launch_cycles(consoles * OBSERVATION_BANDS, OBSERVE_REGISTERS, observe)
    return consoles / ((step + look) / CLOCK)


def step(args) -> None:
    """The step's predicted agent frames/s by batch and register budget, no resets."""
    print(PREDICTED, end="\n\n")
    print("| step kernel | consoles | " + " | ".join(GAMES) + " | median |")
    print("|---|---|" + "---|" * (len(GAMES) + 1))
    for name, (registers, scale) in STEP_VARIANTS.items():
        for n in args.batches:
            fps = [step_frames_per_s(g, args.warp, args.profile, n, registers, scale)
                   for g in GAMES]
            print(f"| {name} | {n:,} | " + " | ".join(f"{f / 1e6:.2f} M" for f in fps)
                  + f" | **{statistics.median(fps) / 1e6:.2f} M** |")


def model(args) -> None:
    rng = np.random.default_rng(args.seed)
    clock, skip = CLOCK, 4
    schedulers = SCHEDULERS
    print(PREDICTED, end="\n\n")
    print("| consoles, step registers | game | resets / console-step | start hits | tails by "
          "index | tails played | resets a launch | launches with a miss | reset launch, "
          "median (ms) | step alone (ms) | agent frames/s: no resets -> with resets: beside "
          "the step unhindered / as lone lanes / packed / on SMs of their own |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    gpu = G.H100
    own_block_warps = 8      # 256 threads at 255 registers: a whole SM's registers
    for consoles, registers in args.configs:
        scale = next(v[1] for v in STEP_VARIANTS.values() if v[0] == registers)
        occupancy = G.occupancy(registers, THREADS_PER_BLOCK, consoles)
        k = occupancy["resident_warps_per_scheduler"]
        # a reset warp shares its scheduler with k step warps (the block scheduler places the
        # reset's blocks beside the step's); at one step warp a scheduler the GPU is latency-
        # bound and the reset warp delays its neighbour (the critical one, at worst) by what
        # the shared issue costs; past that it is issue-bound and the reset's instructions
        # cost the whole step their issue slots
        reset_rate = ipc(k + 1) / (k + 1)
        delay = 2 / ipc(2) - 1 / ipc(1)
        free_sms = gpu["sms"] - occupancy["blocks"]
        medians = ([], [], [], [], [])
        for game in GAMES:
            path = args.counts / f"counts-{game}.json"
            if not path.exists():
                continue
            record = json.loads(path.read_text())
            if args.warm_table:
                record = warmed(record)
            resets = [r for launch in record["launches"] for r in launch]
            s = summary(record)
            warp = json.loads((args.warp / f"warp-{game}.json").read_text())
            frame = warp["warp_identical"]
            observe = _observation_instructions(args.profile, game)
            alone = step_frames_per_s(game, args.warp, args.profile, consoles, registers, scale)
            step_s = consoles * skip / alone
            step_issue = step_s * schedulers * ipc(k) * clock
            rate = s["resets_per_console_step"]
            frames = t_lone = t_packed = t_free = t_own = 0.0
            with_miss, launch_ms = 0, []
            for _ in range(args.launches):
                count = rng.poisson(rate * consoles)
                picks = [resets[i] for i in rng.integers(0, len(resets), count)]
                works = [lane_work(r, frame, observe, rng) for r in picks]
                if any(r["start"] == START_MISS or r["tail"] == TAIL_PLAYED for r in picks):
                    with_miss += 1
                frames += (consoles - count) * skip
                if not works:
                    t_lone, t_packed, t_free = t_lone + step_s, t_packed + step_s, t_free + step_s
                    t_own += step_s
                    continue
                longest = max(works)
                launch_s = longest / reset_rate / clock
                launch_ms.append(launch_s * 1e3)
                packed = [max(works[w:w + 32]) for w in range(0, len(works), 32)]

                def beside(issue):
                    """The step's time with a reset launch whose warps issue `issue`."""
                    extra = longest * delay / clock if k <= 1 else step_s * issue / step_issue
                    return max(step_s + extra, launch_s)

                t_free += max(step_s, launch_s)
                if free_sms > 0:
                    # warps 0-3 of a block on the SM's four schedulers, 4-7 two a scheduler;
                    # blocks past the empty SMs wait for the step to end
                    warps = -(-len(works) // 32)
                    blocks = -(-warps // own_block_warps)
                    k_own = -(-min(warps, own_block_warps) // gpu["schedulers_per_sm"])
                    own_s = longest / (ipc(k_own) / k_own) / clock
                    t_own += max(step_s, own_s) + (own_s if blocks > free_sms else 0.0)
                t_lone += beside(sum(works))
                t_packed += beside(sum(packed))
            fps_lone, fps_packed, fps_free = frames / t_lone, frames / t_packed, frames / t_free
            fps_own = frames / t_own if free_sms > 0 else float("nan")
            for m, v in zip(medians, (alone, fps_free, fps_lone, fps_packed, fps_own)):
                m.append(v)
            median_ms = statistics.median(launch_ms) if launch_ms else float("nan")
            print(f"| {consoles:,}, {registers} | {game} | {rate:.5f} | "
                  f"{s[START_HIT]:,}/{s['resets']:,} | "
                  f"{s[TAIL_DIRECT] + s[TAIL_ORIGIN]:,}/{s['resets']:,} | {s[TAIL_PLAYED]} | "
                  f"{rate * consoles:.0f} | {with_miss / args.launches:.1%} | {median_ms:.1f} | "
                  f"{step_s * 1e3:.1f} | {alone / 1e6:.2f} -> {fps_free / 1e6:.2f} / "
                  f"{fps_lone / 1e6:.2f} / {fps_packed / 1e6:.2f} / {_millions(fps_own)} |")
        if medians[0]:
            low = [_millions(statistics.median(m)).removesuffix(" M") for m in medians]
            print(f"| {consoles:,}, {registers} | **median** | | | | | | | | | {low[0]} -> "
                  f"{' / '.join(low[1:])} M |")


def _millions(value: float) -> str:
    return "n/a" if value != value else f"{value / 1e6:.2f} M"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    c = sub.add_parser("collect")
    c.add_argument("--games", nargs="+", default=list(GAMES))
    c.add_argument("--consoles", type=int, default=2048)
    c.add_argument("--steps", type=int, default=400)
    c.add_argument("--seed", type=int, default=0)
    c.add_argument("--out", type=pathlib.Path, required=True)
    c.add_argument("--gpu-writer", action="store_true",
                   help="fill the start region by the GPU's rule (one thread)")
    m = sub.add_parser("model")
    m.add_argument("--counts", type=pathlib.Path, required=True)
    m.add_argument("--warp", type=pathlib.Path, required=True)
    m.add_argument("--profile", type=pathlib.Path, required=True)
    m.add_argument("--launches", type=int, default=2000)
    m.add_argument("--configs", type=lambda t: tuple(int(x) for x in t.split(",")), nargs="+",
                   default=[(16384, 255), (131072, 64)],
                   help="CONSOLES,REGISTERS pairs (registers: one of STEP_VARIANTS')")
    m.add_argument("--seed", type=int, default=0)
    m.add_argument("--warm-table", action="store_true",
                   help="count the misses a launch stored as the hits a long run would see")
    t = sub.add_parser("step", help="the step alone, predicted, by batch (no resets)")
    t.add_argument("--warp", type=pathlib.Path, required=True)
    t.add_argument("--profile", type=pathlib.Path, required=True)
    t.add_argument("--batches", type=int, nargs="+",
                   default=[16384, 32768, 65536, 131072, 262144])
    args = parser.parse_args()
    {"collect": main_collect, "model": model, "step": step}[args.command](args)


if __name__ == "__main__":
    main()
