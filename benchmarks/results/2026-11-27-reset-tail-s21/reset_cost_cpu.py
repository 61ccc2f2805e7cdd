"""CPU seconds per autoreset of Breakout (v5, noop_max 30, sticky 0.25, 200-frame episodes):
no table / the start region only / start and tail, each table warmed first; windows interleaved."""
import json, sys, time
import numpy as np
from cule_py import AtariVectorEnv
from cule_py.kernels import agent_step as K
from cule_py.kernels import layout as L
from cule_py.kernels import reset_snapshot as RS

game = sys.argv[1] if len(sys.argv) > 1 else "breakout"
n, warm, window, rounds = 16, int(sys.argv[2]) if len(sys.argv) > 2 else 20000, 1000, 4

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
t = time.perf_counter()
for name, (env, rs) in sides.items():
    run(env, rs, warm)
print("warmed in", round(time.perf_counter() - t), "s", flush=True)
per = {k: [] for k in sides}
tail_hits = {k: [] for k in sides}
for r in range(rounds):
    for name, (env, rs) in sides.items():
        before = int(env._agent[:, K.A_TAIL_RESETS].sum())
        env._time_autoresets(True)
        ends = run(env, rs, window)
        per[name].append(env._autoreset_seconds() / max(ends, 1))
        env._time_autoresets(False)
        tail_hits[name].append(round((int(env._agent[:, K.A_TAIL_RESETS].sum()) - before)
                                     / max(ends, 1), 3))
table = sides["start+tail"][0]._reset_table[-1]
out = {k: round(float(np.median(v)) * 1e3, 3) for k, v in per.items()}
print(json.dumps({"game": game, "ms_per_reset_median": out, "rounds": {k: [round(x*1e3, 3) for x in v] for k, v in per.items()},
                  "tail_hit_rate_per_round": tail_hits,
                  "tail_entries": int(table[RS.TABLE_TAIL_FILLED])}))
