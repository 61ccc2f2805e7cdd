"""CPU seconds per autoreset of Breakout (v5, noop_max 30, sticky 0.25, 200-frame episodes):
no table / the start region only / start and tail, each table warmed first; windows interleaved.
Run from a checkout (its own kernels): `python reset_cost_cpu.py [game] [warm steps]`. Counts the
tail's hits and, where the commit has it, the hits found by their start entry (no compare)."""
import json, sys, time
import numpy as np
from cule_py import AtariVectorEnv
from cule_py.kernels import agent_step as K
from cule_py.kernels import layout as L
from cule_py.kernels import reset_snapshot as RS

game = sys.argv[1] if len(sys.argv) > 1 else "breakout"
n, warm, window, rounds = 16, int(sys.argv[2]) if len(sys.argv) > 2 else 20000, 1000, 4
BY_ORIGIN = getattr(K, "A_TAIL_BY_ORIGIN", None)

def make(entries, tail):
    env = AtariVectorEnv(game, n, repeat_action_probability=0.25, noop_max=30,
                         max_num_frames_per_episode=200)
    b = env._batch
    env._reset_table = RS.empty_table(b.state.shape[1], b.memory.shape[1], b.logic.shape[1],
                                      np.int32, L.FRAME_BUFFER_SHAPE, entries=entries,
                                      tail_entries=tail)
    env.reset(seed=0)
    rs = np.random.default_rng(0)
    for _ in range(16):
        env.reset(options={"reset_mask": rs.random(n) < 0.5})
    return env, rs

sides = {"none": make(0, 0), "start": make(RS.SNAPSHOT_ENTRIES, 0),
         "start+tail": make(RS.SNAPSHOT_ENTRIES, RS.TAIL_ENTRIES)}
def run(env, rs, steps):
    ends = 0
    for _ in range(steps):
        out = env.step(rs.integers(0, env.single_action_space.n, n))
        ends += int((out[2] | out[3]).sum())
    return ends
def count(env, field):
    return 0 if field is None else int(env._agent[:, field].sum())
t = time.perf_counter()
for name, (env, rs) in sides.items():
    run(env, rs, warm)
print("warmed in", round(time.perf_counter() - t), "s", flush=True)
per = {k: [] for k in sides}
rates = {k: {"start": [], "tail": [], "tail_by_origin": []} for k in sides}
for r in range(rounds):
    for name, (env, rs) in sides.items():
        before = [count(env, f) for f in (K.A_TABLE_RESETS, K.A_TAIL_RESETS, BY_ORIGIN)]
        env._time_autoresets(True)
        ends = run(env, rs, window)
        per[name].append(env._autoreset_seconds() / max(ends, 1))
        env._time_autoresets(False)
        after = [count(env, f) for f in (K.A_TABLE_RESETS, K.A_TAIL_RESETS, BY_ORIGIN)]
        for key, b, a in zip(("start", "tail", "tail_by_origin"), before, after):
            rates[name][key].append(round((a - b) / max(ends, 1), 3))
table = sides["start+tail"][0]._reset_table[-1]
out = {k: round(float(np.median(v)) * 1e3, 3) for k, v in per.items()}
print(json.dumps({"game": game, "ms_per_reset_median": out,
                  "rounds": {k: [round(x * 1e3, 3) for x in v] for k, v in per.items()},
                  "hit_rates_per_round": rates,
                  "start_entries": int(table[RS.TABLE_FILLED]),
                  "tail_entries": int(table[RS.TABLE_TAIL_FILLED])}))
