"""What the reset table (cule_py/kernels/ale/reset_snapshot.py) saves on the CPU: the v5 agent step
in steady state with the table and with a table of no entries (every reset plays its 64 input-free
frames), same build, same settings, paired rounds in alternating order.

    python -m benchmarks.reset_table --game breakout --envs 16 --cores 1 --rounds 3

Reported per side: agent steps/s (median window), the reset share (seconds in the autoreset
launches over the windows' seconds), episode ends per step, the entries the table filled. Ratio:
median [range] of the rounds' ratios.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys

import numpy as np

from cule_py import steady_state as ss
from cule_py.kernels.agent import agent_step as K
from cule_py.kernels import layout as L
from cule_py.kernels.ale import reset_snapshot as RS
from cule_py.testing import machine_line, usable_cpus


def _make(game, envs, cores, table, settings):
    env = ss.make_cule_env(game, envs, threads=cores, **settings)
    if not table:
        b = env._batch
        env._reset_table = RS.empty_table(b.state.shape[1], b.memory.shape[1],
                                          b.logic.shape[1], np.int32, L.FRAME_BUFFER_SHAPE,
                                          env.xp, entries=0, tail_entries=0,
                                          zeros=b.zeros)   # (the kernels' array types)
    return env


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--game", default="breakout")
    ap.add_argument("--envs", type=int, default=16)
    ap.add_argument("--cores", type=int, default=usable_cpus())
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--window-steps", type=int, default=200)
    ap.add_argument("--windows", type=int, default=3)
    ap.add_argument("--warmup", type=int, default=None)
    ap.add_argument("--json")
    args = ap.parse_args(argv)
    settings = dict(frameskip=4, repeat_action_probability=0.25)
    rows = []
    for r in range(args.rounds):
        order = (True, False) if r % 2 == 0 else (False, True)
        got = {}
        for table in order:
            env = _make(args.game, args.envs, args.cores, table, settings)
            try:
                res = ss.measure_vector_env(
                    env, game=args.game, label="table" if table else "no table", backend="cpu",
                    warmup_steps=args.warmup, window_steps=args.window_steps,
                    windows=args.windows, seed=r, threads=args.cores, frameskip=4)
                resets = int(env._agent[:, K.A_TABLE_RESETS].sum())
                got[table] = {"steps_per_s": res.agent_steps_per_s,
                              "reset_share": res.reset_share,
                              "ends_per_step": res.episode_ends_per_step,
                              "table_resets": resets,
                              "entries": int(env._reset_table[-1][RS.TABLE_FILLED])}
            finally:
                env.close()
        got["ratio"] = got[True]["steps_per_s"] / got[False]["steps_per_s"]
        rows.append(got)
        print(json.dumps({"round": r, **{str(k): v for k, v in got.items()}}), file=sys.stderr,
              flush=True)
    ratios = [g["ratio"] for g in rows]

    def med(side, key):
        return statistics.median(g[side][key] for g in rows)

    print(f"reset table on the CPU: {args.game}, {args.envs} envs, {args.cores} core(s), v5 "
          f"(frameskip 4, sticky 0.25, noop_max 30, fire reset, NextStep); {args.rounds} paired "
          f"rounds\n{machine_line(args.cores)}")
    print("| side | agent steps/s | reset share | ends/step | table entries |")
    print("|---|---|---|---|---|")
    for side, name in ((True, "table"), (False, "no table")):
        print(f"| {name} | {med(side, 'steps_per_s'):,.0f} | {med(side, 'reset_share'):.1%} | "
              f"{med(side, 'ends_per_step'):.3f} | {med(side, 'entries'):.0f} |")
    print(f"ratio table / no table: {statistics.median(ratios):.3f} "
          f"[{min(ratios):.3f}, {max(ratios):.3f}]")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"game": args.game, "envs": args.envs, "cores": args.cores,
                       "rounds": [{str(k): v for k, v in g.items()} for g in rows]}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
