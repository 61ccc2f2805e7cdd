import json, sys
import numpy as np
from cule_py import AtariVectorEnv
from cule_py.kernels import agent_step as K
from cule_py.kernels import reset_snapshot as RS
game = sys.argv[1]; consoles = int(sys.argv[2]); steps = int(sys.argv[3])
env = AtariVectorEnv(game, consoles, repeat_action_probability=0.25, noop_max=30,
                     max_num_frames_per_episode=200)
env.reset(seed=0)
rs = np.random.default_rng(0)
for _ in range(16):
    env.reset(options={"reset_mask": rs.random(consoles) < 0.5})
rows = []
window = steps // 8
ends = 0; t0 = int(env._agent[:, K.A_TAIL_RESETS].sum()); s0 = int(env._agent[:, K.A_TABLE_RESETS].sum())
for t in range(1, steps + 1):
    out = env.step(rs.integers(0, env.single_action_space.n, consoles))
    ends += int((np.asarray(out[2]) | np.asarray(out[3])).sum())
    if t % window == 0:
        tail = int(env._agent[:, K.A_TAIL_RESETS].sum()); start = int(env._agent[:, K.A_TABLE_RESETS].sum())
        table = env._reset_table[-1]
        rows.append({"steps": t, "resets": ends, "start_hit": round((start - s0) / max(ends, 1), 3),
                     "tail_hit": round((tail - t0) / max(ends, 1), 3),
                     "tail_entries": int(table[RS.TABLE_TAIL_FILLED])})
        print(json.dumps(rows[-1]), flush=True)
        ends = 0; t0 = tail; s0 = start
