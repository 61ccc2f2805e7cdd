"""The render split (kernels/render_log.py) checked and modelled on the CPU (issue 27).

    python tools/render_split.py check [GAME ...] [--consoles 4] [--frames 120] [--warmup 200]
                                       [--capacity 4096] [--json OUT]
    python tools/render_split.py model [GAME ...] [--consoles 64] [--frames 2] [--warmup 300]
                                       [--json OUT] [--md OUT]
    python tools/render_split.py logs [GAME ...] [--consoles 32] [--frames 4] [--warmup 300]
                                      [--json OUT]
    python tools/render_split.py static [--max-registers 0 128 64] [--json OUT]

check: two copies of a game's consoles after the same random warm-up frames play the same random
actions, one through console.run_frame (drawing inline, the CPU backend's path), one through the
split (render_log.run_split_frame: the 6507 pass logs, the render pass replays); after every
frame the render pass's TIA state must equal the 6507 pass's, and at the end state rows, RAM and
both frame buffers of every console must be equal. Also: the log's length per frame, and how
many frames overflowed (they ran again inline). Every game by default.

model: the warp-lockstep model of tools/gpu_model.py (frozen weights) for the render pass against
the drawing the 6507 loop does today, on the same consoles and frames: per console-frame, the
6507 pass's warp instructions with its drawing (as the decoded core runs today, free and under
the scanline schedule), the drawing's share of them (the "clock" weight's part), and the render
pass's warp instructions, with the log's entries as its steps (free: entry k of every lane
together; scanline: only the lanes whose next entry is on the earliest scanline and writes the
same register, each step charged the scheduler's SASS as the 6507 loop's are,
gpu_model.SCHEDULE_OVERHEAD). The collision-only 6507 pass is given both ways, since the model
cannot price it: as costly as drawing (its latches walk the same blocks) and as free
(collisions deferred too).

logs: what the logs hold, per console-frame: entries, reads, picture-neutral writes, entries
that draw anything, and the collision-latch reads (how many inside the picture, on which lines):
what a 6507 pass that defers the latches too would have to catch up, and where.

static: the two passes compiled as CUDA kernels for sm_90a offline (gpu_model.py's path):
registers, spills, SASS; with --max-registers, the render pass again under each register cap
(0: none), passed to the linker.
"""

from __future__ import annotations

import argparse
import json
import pathlib
import sys
import time

import numpy as np
from numba import njit
from numba.extending import register_jitable

REPO = pathlib.Path(__file__).resolve().parents[1]
for path in (REPO, REPO / "tools"):
    if str(path) not in sys.path:
        sys.path.insert(0, str(path))

from cule_py.kernels import environment as E  # noqa: E402
from cule_py.kernels import layout as L  # noqa: E402
from cule_py.kernels import render_log as R  # noqa: E402
from cule_py.kernels import tia  # noqa: E402
from cule_py.kernels.console import run_frame  # noqa: E402


@register_jitable
def set_inputs(st, env, params, inputs, row):
    """The action's input pins for the next frame, a paddle turned first (environment.emulate)."""
    if params[E.P_PADDLES] != 0:
        E.turn_paddle(st, env, params, inputs, row)
    E.apply_inputs(st, env, inputs, E.SWITCHES_PLAIN, row, params)


@njit(_nrt=False)
def inline_frames(rom, scheme, ram, st, fb, params, inputs, rows):
    """rows.shape[1] frames per console, drawn inline (environment.emulate's frames without the
    game's step, as tools/gpu_trace.trace_frames)."""
    for env in range(st.shape[0]):
        for f in range(rows.shape[1]):
            set_inputs(st, env, params, inputs, rows[env, f])
            run_frame(rom, scheme, ram, st, fb, env)


@njit(_nrt=False)
def split_frames(rom, scheme, ram, st, fb, params, inputs, rows, log, log_len, start, scratch,
                 ram_copy, lengths, outcome, partial):
    """The same frames through the split; per frame the log's length, run_split_frame's
    outcome (0 replayed, 1 overflowed and ran inline, -1 TIA state differed) and whether the
    frame was cut short (partial, to be continued by the next)."""
    for env in range(st.shape[0]):
        for f in range(rows.shape[1]):
            set_inputs(st, env, params, inputs, rows[env, f])
            outcome[env, f] = R.run_split_frame(rom, scheme, ram, st, fb, env, log, log_len,
                                                start, scratch, ram_copy)
            lengths[env, f] = log_len[env]
            partial[env, f] = st[env, L.TIA_PARTIAL_FRAME]


@njit(_nrt=False)
def logged_records(rom, scheme, ram, st, fb, params, inputs, rows, log, log_len, start,
                   scratch, records, counts):
    """The split's frames with the render pass instrumented: records[env, f, i] = (cycle,
    register key, colour clocks the entry drew); the last row of a frame is the frame's close
    (key 127). counts[env, f] = rows used."""
    for env in range(st.shape[0]):
        for f in range(rows.shape[1]):
            set_inputs(st, env, params, inputs, rows[env, f])
            for field in range(st.shape[1]):
                start[env, field] = st[env, field]
            fresh, start_clk = R.logged_frame(rom, scheme, ram, st, fb, env, log, log_len)
            n = min(np.int32(log_len[env]), log.shape[1])
            # render_log.replay_frame, restated with the cursor read around each entry
            for field in range(start.shape[1]):
                scratch[env, field] = start[env, field]
            scratch[env, L.TIA_SKIP_DRAW] = 0
            if fresh:
                tia.start_frame(scratch, env, start_clk)
            scratch[env, L.TIA_PARTIAL_FRAME] = 1
            scratch[env, L.CPU_ATTENTION] = 0
            for i in range(n):
                clk = np.int64(log[env, i, 0])
                word = np.int32(log[env, i, 1])
                reg = word & 0x3F
                before = np.int32(scratch[env, L.TIA_CURSOR])
                if word >> 16 == R.LOG_WRITE:
                    tia.write(scratch, fb, env, reg, (word >> 8) & 0xFF, clk, True)
                    key = reg + 64
                else:
                    tia.read(scratch, fb, env, reg, clk, 0)
                    key = reg
                records[env, f, i, 0] = clk
                records[env, f, i, 1] = key
                records[env, f, i, 2] = max(np.int32(scratch[env, L.TIA_CURSOR]) - before, 0)
            before = np.int32(scratch[env, L.TIA_CURSOR])
            end_clk = np.int64(st[env, L.CYCLES])
            R.close_frame(scratch, fb, env, fresh, end_clk)
            records[env, f, n, 0] = end_clk
            records[env, f, n, 1] = 127
            records[env, f, n, 2] = max(np.int32(scratch[env, L.TIA_CURSOR]) - before, 0)
            counts[env, f] = n + 1


def _warmed(game, consoles: int, warmup: int, seed: int, frames: int,
            settings: str | None = None):
    """An emulator after `warmup` random frames and the actions of the next `frames`, drawn as
    tools/gpu_trace.trace draws them (the same seed gives the same consoles and frames). `game`:
    a game id, or a ROM's path with the `settings` of the game whose rules it plays under."""
    from cule_py import AtariEmulator

    rng = np.random.default_rng(seed)
    emulator = AtariEmulator(game, consoles, seed=seed, settings=settings)
    legal = np.arange(18)
    for _ in range(warmup):
        emulator.act(rng.choice(legal, consoles))
    actions = rng.choice(legal, (consoles, frames))
    return emulator, actions


def _arguments(emulator, actions):
    batch = emulator._batch
    rows = batch._act_rows[actions].astype(np.int32)
    args = batch.drive_args(E.OP_ACT, batch._all, batch.difficulty, 1)
    (_, rom, scheme, ram, st, fb, _, params, inputs) = args[:9]
    return rom, scheme, ram, st, fb, params, inputs, rows


def check(game, consoles: int = 4, frames: int = 120, warmup: int = 200,
          capacity: int = 4096, seed: int = 0, settings: str | None = None) -> dict:
    """Split against inline for one game (see the module's doc)."""
    inline, actions = _warmed(game, consoles, warmup, seed, frames, settings)
    split, _ = _warmed(game, consoles, warmup, seed, frames, settings)
    rom, scheme, ram_a, st_a, fb_a, params, inputs, rows = _arguments(inline, actions)
    before = fb_a.copy()
    inline_frames(rom, scheme, ram_a, st_a, fb_a, params, inputs, rows)
    rom, scheme, ram_b, st_b, fb_b, params, inputs, rows = _arguments(split, actions)
    log = np.zeros((consoles, capacity, 2), np.int32)
    log_len = np.zeros(consoles, np.int32)
    lengths = np.zeros((consoles, frames), np.int32)
    outcome = np.zeros((consoles, frames), np.int32)
    partial = np.zeros((consoles, frames), np.int32)
    split_frames(rom, scheme, ram_b, st_b, fb_b, params, inputs, rows, log, log_len,
                 np.zeros_like(st_b), np.zeros_like(st_b), np.zeros_like(ram_b), lengths,
                 outcome, partial)
    return {"game": str(game), "consoles": consoles, "frames": frames,
            "state_equal": bool((st_a == st_b).all()), "ram_equal": bool((ram_a == ram_b).all()),
            "frame_buffers_equal": bool((fb_a == fb_b).all()),
            "frame_buffers_changed": bool((fb_a != before).any()),
            "tia_state_differed": int((outcome == -1).sum()),
            "overflowed": int((outcome == 1).sum()),
            "partial_frames": int(partial.sum()),
            "log_max": int(lengths.max()), "log_mean": round(float(lengths.mean()), 1)}


def exact(result: dict) -> bool:
    return (result["state_equal"] and result["ram_equal"] and result["frame_buffers_equal"]
            and result["tia_state_differed"] == 0)


def render_records(game: str, consoles: int, frames: int, warmup: int, seed: int,
                   capacity: int = 4096):
    """(records, counts) of logged_records for the frames tools/gpu_trace.trace would trace."""
    emulator, actions = _warmed(game, consoles, warmup, seed, frames)
    rom, scheme, ram, st, fb, params, inputs, rows = _arguments(emulator, actions)
    log = np.zeros((consoles, capacity, 2), np.int32)
    records = np.zeros((consoles, frames, capacity + 1, 3), np.int32)
    counts = np.zeros((consoles, frames), np.int32)
    logged_records(rom, scheme, ram, st, fb, params, inputs, rows, log,
                   np.zeros(consoles, np.int32), np.zeros_like(st), np.zeros_like(st), records,
                   counts)
    return records, counts


def render_pass_counts(records, counts, warp: int = 32) -> dict:
    """The render pass's warp-frames in gpu_model's weight-free counts: free (lockstep over the
    entries) and scanline-gated. A step's path: the loop (weight "step"), one body ("opcode":
    the replay has one), the register's path ("device", per distinct register), the drawing
    ("clock", the longest lane per register)."""
    import gpu_model as M
    import gpu_trace as T

    consoles, frames = counts.shape
    free, scanline, drawn = [], [], 0
    for f in range(frames):
        for first in range(0, consoles, warp):
            segments = []
            for c in range(first, min(first + warp, consoles)):
                n = counts[c, f]
                rec = records[c, f, :n]
                seg = np.zeros((n, T.COLUMNS), np.int64)
                seg[:, T.R_OP] = 0
                seg[:, T.R_PC] = rec[:, 1]
                seg[:, T.R_DEVICE] = rec[:, 1] + np.where(rec[:, 1] >= 64, 64, 0)
                seg[:, T.R_RENDER] = rec[:, 2]
                clk = rec[:, 0].astype(np.int64)
                seg[:, T.R_CYCLES] = np.diff(np.concatenate([[0], clk]))
                drawn += int(rec[:, 2].sum())
                segments.append(seg)
            free.append(M.lockstep_warp(segments)["warp"])
            scanline.append(M.scheduled_warp(segments, "scanline")[0])
    return {"free": np.array(free), "scanline": np.array(scanline),
            "console_frames": consoles * frames, "entries": int(counts.sum()),
            "clocks": drawn}


def model(game: str, consoles: int = 64, frames: int = 2, warmup: int = 300,
          seed: int = 0) -> dict:
    """The render pass against today's inline drawing, per console-frame (see the doc)."""
    import gpu_model as M

    weights = M.frozen()["weights"]
    w = M.weight_vector(weights)
    clock_only = M.weight_vector({k: (weights[k] if k == "clock" else 0.0)
                                  for k in M.WEIGHT_KEYS})
    counts = M.trace_counts(game, consoles, frames, warmup, seed, chunk=consoles,
                            schedules=("scanline",))
    cf = counts["console_frames"]
    records, lengths = render_records(game, consoles, frames, warmup, seed)
    rp = render_pass_counts(records, lengths)
    out = {"game": game, "consoles": consoles, "frames": frames,
           "log_entries_per_frame": rp["entries"] / rp["console_frames"],
           "clocks_per_frame": rp["clocks"] / rp["console_frames"]}
    for schedule, key in (("free", "warp_counts"), ("scanline", "warp_counts_scanline")):
        rows = counts[key]
        whole = float((rows @ w).sum()
                      + M.SCHEDULE_OVERHEAD.get(schedule, 0) * rows[:, 0].sum()) / cf
        drawing = float((rows @ clock_only).sum()) / cf
        render = float((rp[schedule] @ w).sum()
                       + M.SCHEDULE_OVERHEAD.get(schedule, 0) * rp[schedule][:, 0].sum()) / cf
        out[schedule] = {
            "inline_W": whole, "inline_drawing_W": drawing,
            "render_pass_W": render,
            "render_pass_drawing_W": float((rp[schedule] @ clock_only).sum()) / cf,
            "split_W_collisions_as_drawing": whole + render,
            "split_W_collisions_free": whole - drawing + render}
    return out


def log_stats(game: str, consoles: int = 32, frames: int = 4, warmup: int = 300,
              seed: int = 0) -> dict:
    """The `logs` command's figures for one game (see the module's doc)."""
    records, counts = render_records(game, consoles, frames, warmup, seed)
    emulator, _ = _warmed(game, 1, 0, seed, 1)
    top = int(emulator._batch.state[0, L.TIA_YSTART])
    bottom = top + int(emulator._batch.state[0, L.TIA_HEIGHT])
    totals = dict.fromkeys(("entries", "reads", "neutral_writes", "entries_that_draw",
                            "collision_reads", "collision_reads_in_picture"), 0)
    lines = set()
    for c in range(consoles):
        for f in range(frames):
            rec = records[c, f, :counts[c, f] - 1]          # the frame's close left out
            key, drawn = rec[:, 1], rec[:, 2]
            line = 3 * rec[:, 0].astype(np.int64) // tia.LINE
            read = key < 64
            register = np.maximum(key - 64, 0).astype(np.int64)
            neutral = ~read & ((register >= tia.FIRST_UNUSED_WRITE)
                               | (((np.int64(tia.PICTURE_NEUTRAL_WRITES) >> register) & 1) != 0))
            collision = read & (key <= 7)
            totals["entries"] += len(rec)
            totals["reads"] += int(read.sum())
            totals["neutral_writes"] += int(neutral.sum())
            totals["entries_that_draw"] += int((drawn > 0).sum())
            totals["collision_reads"] += int(collision.sum())
            totals["collision_reads_in_picture"] += int(
                (collision & (line >= top) & (line < bottom)).sum())
            lines.update(int(x) for x in line[collision])
    out = {"game": game, "consoles": consoles, "frames": frames, "picture_lines": [top, bottom]}
    out.update({k: round(v / (consoles * frames), 2) for k, v in totals.items()})
    out["collision_read_lines"] = sorted(lines)
    return out


def model_markdown(results: list[dict]) -> str:
    lines = ["| game | schedule | 6507 loop W today | of it drawing | render pass W "
             "(drawing) | split W, collisions as drawing | split W, collisions free |",
             "|---|---|---|---|---|---|---|"]
    for r in results:
        for schedule in ("free", "scanline"):
            s = r[schedule]
            lines.append(
                f"| {r['game']} | {schedule} | {s['inline_W']:,.0f} | "
                f"{s['inline_drawing_W']:,.0f} | {s['render_pass_W']:,.0f} "
                f"({s['render_pass_drawing_W']:,.0f}) | "
                f"{s['split_W_collisions_as_drawing']:,.0f} | "
                f"{s['split_W_collisions_free']:,.0f} |")
    return "\n".join(lines)


def static(render_caps=()) -> list[dict]:
    """Both passes compiled offline for sm_90a: registers, spills and SASS (gpu_model.analyse),
    with the arrays typed as the GPU backend passes them (field-major, transposed views)."""
    import numba
    import numba.cuda.dispatcher as cdisp

    import gpu_model as M

    consoles, capacity = 64, 4096
    # Only the arguments' types matter: a 4K ROM's shapes, no console powered on.
    rom = np.zeros(4096, np.uint8)
    scheme = 0
    st = np.zeros((consoles, L.STATE_FIELDS), np.int32)
    ram = np.zeros((consoles, 128), np.uint8)
    fb = np.zeros((consoles,) + L.FRAME_BUFFER_SHAPE, L.FRAME_BUFFER_DTYPE)

    def field_major(a):
        """`a` as the GPU backend allocates per-console arrays (ConsoleBatch.zeros): the console
        index fastest in memory, seen through a view indexed [console, ...]."""
        memory = np.zeros(a.shape[1:] + a.shape[:1], a.dtype)
        return np.moveaxis(memory, -1, 0)

    from cule_py.kernels.state_tiles import to_tiles

    st_g, ram_g, fb_g = field_major(st), field_major(ram), field_major(fb)
    log = field_major(np.zeros((consoles, capacity, 2), np.int32))
    log_len = np.zeros(consoles, np.int32)
    info = field_major(np.zeros((consoles, 3), np.int32))
    mask = np.ones(consoles, np.bool_)
    kernels = {
        "logged_frames_cuda": (R.logged_frames_cuda,
                               (rom, scheme, ram_g, to_tiles(st), fb_g, log, log_len, st_g, info,
                                mask)),
        "render_pass_cuda": (R.render_pass_cuda,
                             (st_g, st_g, fb_g, log, log_len, info, mask)),
    }
    runs = [(name, 0) for name in kernels] + [("render_pass_cuda", cap) for cap in render_caps
                                              if cap]
    rows, libraries = [], {}
    with M.offline_cuda():
        for name, cap in runs:
            kernel, arguments = kernels[name]
            started = time.perf_counter()
            if name not in libraries:
                signature = tuple(numba.typeof(a) for a in arguments)
                compiled = cdisp._Kernel(kernel.py_func, signature, **kernel.targetoptions)
                libraries[name] = compiled._codelibrary
            link_log, cubin = M.link(libraries[name],
                                     [f"-maxrregcount={cap}"] if cap else [])
            row = M.analyse(name, cubin, link_log)
            row["register_cap"] = cap or None
            row["compile_s"] = round(time.perf_counter() - started, 1)
            print(f"{name}{f' (cap {cap})' if cap else ''}: {row['registers']} registers, "
                  f"spill stores {row.get('spill_store_bytes')} B, frame {row['frame_bytes']} B, "
                  f"SASS {row['sass']:,}, spill instructions {row['spill_instructions']:,}, "
                  f"{row['compile_s']} s", flush=True)
            rows.append({k: v for k, v in row.items() if k not in ("functions", "link")})
    return rows


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    headline = ["pong", "breakout", "space_invaders", "ms_pacman", "seaquest"]
    for name, games, consoles, frames, warmup in (("check", [], 4, 120, 200),
                                                   ("model", headline, 64, 2, 300),
                                                   ("logs", headline, 32, 4, 300)):
        command = sub.add_parser(name)
        command.add_argument("games", nargs="*", default=games)
        command.add_argument("--consoles", type=int, default=consoles)
        command.add_argument("--frames", type=int, default=frames)
        command.add_argument("--warmup", type=int, default=warmup)
        command.add_argument("--json")
        if name == "check":
            command.add_argument("--capacity", type=int, default=4096)
        if name == "model":
            command.add_argument("--md")
    s = sub.add_parser("static")
    s.add_argument("--max-registers", type=int, nargs="*", default=[])
    s.add_argument("--json")
    args = parser.parse_args(argv)
    if args.command == "check":
        from cule_py import games

        names = args.games or sorted(g.rom_id for g in games.GAMES.values())
        results, failed = [], []
        for game in names:
            started = time.perf_counter()
            r = check(game, args.consoles, args.frames, args.warmup, args.capacity)
            r["seconds"] = round(time.perf_counter() - started, 1)
            results.append(r)
            if not exact(r):
                failed.append(game)
            print(json.dumps(r), flush=True)
        print(f"{len(names) - len(failed)} of {len(names)} games exact"
              + (f"; differ: {', '.join(failed)}" if failed else ""))
        if args.json:
            pathlib.Path(args.json).write_text(json.dumps(results, indent=1))
        return 1 if failed else 0
    if args.command == "model":
        results = []
        for game in args.games:
            results.append(model(game, args.consoles, args.frames, args.warmup))
            print(json.dumps(results[-1]), flush=True)
        text = model_markdown(results)
        print(text)
        if args.json:
            pathlib.Path(args.json).write_text(json.dumps(results, indent=1))
        if args.md:
            pathlib.Path(args.md).write_text(text + "\n")
        return 0
    if args.command == "logs":
        results = [log_stats(game, args.consoles, args.frames, args.warmup)
                   for game in args.games]
        for r in results:
            print(json.dumps(r))
        if args.json:
            pathlib.Path(args.json).write_text(json.dumps(results, indent=1))
        return 0
    rows = static(args.max_registers)
    if args.json:
        pathlib.Path(args.json).write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
