"""How much of a reset could be skipped exactly: the study behind a reset snapshot cache (issue 27).

    python -m tools.reset_snapshot_study [--games breakout pong ...] [--consoles 64]
                                         [--resets 256] [--max-steps 4000] [--json OUT]
    python -m tools.reset_snapshot_study --table-hits --games all --consoles 8 --max-steps 300

A reset (ALE's reset_game) begins with System reset and 64 frames that take no input from the
agent: 60 NOOP frames and the 4 frames of the soft reset. System reset keeps RAM and starts the
RIOT timer at a random value (25 + a system-RNG draw % 75), so those frames depend on the
console's history only through its RAM, its cartridge state and that draw. If most games clear
RAM in their start-up code, a console's whole state a few frames into the reset takes few
values, and from that state the rest of the 64 frames is determined (the emulator is a function
of its state). A cache of (state at frame k -> state at frame 64) would then skip 64 - k frames of
each reset exactly, the equality of the whole state checked at run time.

This measures it, per game: consoles play random actions (sticky 0.25, v5) until their episodes
end; each game-over state (RAM, state row, frame buffers, game-logic row) is put through System
reset and the 64 frames by the same kernel code the resets run, hashing the whole state after
every frame (all but the two absolute counters, SYSTEM_RNG_POSITION and ENV_FRAME_NUMBER, and
the sticky action, which these frames do not read and the soft reset sets to NOOP). The
report: distinct states after frame k among the resets (k = 0, 1, 2, 4, 8, 16, 64), distinct
timer draws, and the first k at which the state is a function of the timer draw (every draw seen
leads to one state). A cache keyed at frame k hits on a reset whose frame-k state was seen
before: the hit rate over the study's resets is 1 - distinct / resets.
"""

from __future__ import annotations

import argparse
import json
import pathlib
import sys
import time

import numpy as np
from numba import njit

from cule_py.kernels.ale import environment as E
from cule_py.kernels import layout as L
from cule_py.kernels.ale import reset_snapshot as RS

FRAMES = E.RESET_NOOP_FRAMES + E.SOFT_RESET_FRAMES
REPORTED = (0, 1, 2, 4, 8, 16, FRAMES)


@njit(cache=False)
def _fnv(h, value):
    h ^= np.uint64(value & 0xFFFFFFFF)
    return h * np.uint64(1099511628211)


@njit(cache=False)
def _state_hash(ram, st, fb, logic, env):
    h = np.uint64(14695981039346656037)
    for f in range(st.shape[1]):
        if RS._compared(f):      # the fields the table compares
            h = _fnv(h, np.int64(st[env, f]))
    for i in range(ram.shape[1]):
        h = _fnv(h, np.int64(ram[env, i]))
    for i in range(logic.shape[1]):
        h = _fnv(h, np.int64(logic[env, i]))
    for b in range(fb.shape[1]):
        for y in range(fb.shape[2]):
            for x in range(0, fb.shape[3], 4):
                word = (np.int64(fb[env, b, y, x]) | (np.int64(fb[env, b, y, x + 1]) << 8)
                        | (np.int64(fb[env, b, y, x + 2]) << 16)
                        | (np.int64(fb[env, b, y, x + 3]) << 24))
                h = _fnv(h, word)
    return h


@njit(cache=False)
def reset_prefix_hashes(console, rng, hashes, draws):
    """System reset and the 64 input-free frames of reset_game on every console of `console`
    (kernels/structs.Console), as environment.reset_game runs them; hashes[env, k] after k
    frames, draws[env] the timer's system-RNG value."""
    ram, st, fb, logic = console.ram, console.st, console.fb, console.logic
    for env in range(st.shape[0]):
        draws[env] = np.int64(rng[np.int32(st[env, L.SYSTEM_RNG_POSITION])]) % 75
        E.reset_game_start(console, rng, env)
        hashes[env, 0] = _state_hash(ram, st, fb, logic, env)
        for k in range(1, E.RESET_NOOP_FRAMES + 1):
            E.emulate(console, env, E.ROW_NOOP, 1)
            hashes[env, k] = _state_hash(ram, st, fb, logic, env)
        for k in range(1, E.SOFT_RESET_FRAMES + 1):
            E.emulate(console, env, E.ROW_RESET, 1)
            hashes[env, E.RESET_NOOP_FRAMES + k] = _state_hash(ram, st, fb, logic, env)


def game_over_states(game: str, consoles: int, resets: int, max_steps: int, seed: int):
    """Copies of (ram, state, frame buffers, logic) of consoles whose episode just ended under
    random play, up to `resets` of them, and the batch they came from."""
    from cule_py import AtariVectorEnv

    env = AtariVectorEnv(game, consoles, repeat_action_probability=0.25)
    env.reset(seed=seed)
    b = env._batch
    rs = np.random.default_rng(seed)
    pool = {"ram": [], "st": [], "fb": [], "logic": []}
    steps = 0
    while len(pool["st"]) < resets and steps < max_steps:
        _, _, terminated, truncated, _ = env.step(rs.integers(0, env.single_action_space.n,
                                                              consoles))
        steps += 1
        ended = np.nonzero(np.asarray(terminated) | np.asarray(truncated))[0]
        for i in ended[:resets - len(pool["st"])]:
            pool["ram"].append(np.array(b.memory[i]))
            pool["st"].append(np.array(b.state[i]))
            pool["fb"].append(np.array(b.frame_buffers[i]))
            pool["logic"].append(np.array(b.logic[i]))
    arrays = {k: np.stack(v) if v else None for k, v in pool.items()}
    return env, arrays, steps


def study(game: str, consoles: int, resets: int, max_steps: int, seed: int = 0) -> dict:
    start = time.perf_counter()
    env, s, steps = game_over_states(game, consoles, resets, max_steps, seed)
    b = env._batch
    if s["st"] is None:
        return {"game": game, "resets": 0, "agent_steps": steps}
    n = s["st"].shape[0]
    hashes = np.zeros((n, FRAMES + 1), np.uint64)
    draws = np.zeros(n, np.int64)
    console = b.console()._replace(ram=s["ram"], st=s["st"], fb=s["fb"], logic=s["logic"])
    reset_prefix_hashes(console, b.rng, hashes, draws)
    distinct = {k: int(len(np.unique(hashes[:, k]))) for k in range(FRAMES + 1)}
    first_half = int(len(np.unique(hashes[:n // 2, 2])))
    by_draw = {}
    function_of_draw_from = None
    for k in range(FRAMES + 1):
        by_draw = {}
        for d, h in zip(draws.tolist(), hashes[:, k].tolist()):
            by_draw.setdefault(d, set()).add(h)
        if all(len(v) == 1 for v in by_draw.values()):
            function_of_draw_from = k
            break
    return {"game": game, "resets": n, "agent_steps": steps,
            "timer_draws": int(len(np.unique(draws))),
            "distinct_after": {str(k): distinct[k] for k in REPORTED},
            "distinct_after_2_in_first_half": first_half,
            "first_k_function_of_timer": function_of_draw_from,
            "converged_k": next((k for k in range(FRAMES + 1) if distinct[k] <= 75), None),
            "seconds": round(time.perf_counter() - start, 1)}


def table_hits(game: str, consoles: int, steps: int, budget: int, seed: int = 0,
               noop_max: int = 0) -> dict:
    """The table itself at work: a vector env (v5, sticky 0.25, `noop_max`, a `budget`-frame
    episode limit so that every console resets every budget/4 steps) under random actions, its
    consoles first spread along the system-RNG table by 16 masked resets of a random half; then
    over `steps` steps, the autoresets whose input-free frames came from the table (noop_max 0:
    one reset_game per autoreset, barring a game over on the fire frame) and those whose fire
    and noop acts did (the tail region)."""
    from cule_py import AtariVectorEnv
    from cule_py.kernels.agent import agent_step as K
    from cule_py.kernels.ale import reset_snapshot as RS

    env = AtariVectorEnv(game, consoles, repeat_action_probability=0.25, noop_max=noop_max,
                         max_num_frames_per_episode=budget)
    env.reset(seed=seed)
    rs = np.random.default_rng(seed)
    # Spread the consoles along the system-RNG table as a long run does (each has had a
    # different number of resets): 16 resets of a random half. Not counted.
    for _ in range(16):
        env.reset(options={"reset_mask": rs.random(consoles) < 0.5})
    before = int(env._agent[:, K.A_TABLE_RESETS].sum())
    tail_before = int(env._agent[:, K.A_TAIL_RESETS].sum())
    ends = 0
    for _ in range(steps):
        out = env.step(rs.integers(0, env.single_action_space.n, consoles))
        ends += int((np.asarray(out[2]) | np.asarray(out[3])).sum())
    hits = int(env._agent[:, K.A_TABLE_RESETS].sum()) - before
    tail_hits = int(env._agent[:, K.A_TAIL_RESETS].sum()) - tail_before
    table = env._reset_table[-1]
    return {"game": game, "noop_max": noop_max, "resets": ends, "table_resets": hits,
            "hit_rate": round(hits / max(ends, 1), 3),
            "entries": int(table[RS.TABLE_FILLED]), "tail_resets": tail_hits,
            "tail_hit_rate": round(tail_hits / max(ends, 1), 3),
            "tail_entries": int(table[RS.TABLE_TAIL_FILLED])}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--games", nargs="+", default=["pong", "breakout", "space_invaders",
                                                   "ms_pacman", "seaquest"])
    ap.add_argument("--consoles", type=int, default=64)
    ap.add_argument("--resets", type=int, default=256)
    ap.add_argument("--max-steps", type=int, default=4000)
    ap.add_argument("--json")
    ap.add_argument("--noop-max", type=int, default=0,
                    help="--table-hits: the env's noop_max (30 is v5's; 0 leaves the tail out)")
    ap.add_argument("--table-hits", action="store_true",
                    help="instead: the table's hit rate per game (table_hits; --games all: the "
                         "104 games) over --max-steps steps with a 200-frame episode limit")
    args = ap.parse_args(argv)
    rows = []
    games = args.games
    if games == ["all"]:
        from cule_py.games import game_names
        games = list(game_names())
    for game in games:
        if args.table_hits:
            row = table_hits(game, args.consoles, args.max_steps, 200,
                             noop_max=args.noop_max)
        else:
            row = study(game, args.consoles, args.resets, args.max_steps)
        rows.append(row)
        print(json.dumps(row), flush=True)
    if args.json:
        pathlib.Path(args.json).write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
