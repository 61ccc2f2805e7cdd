"""Where a batch's resets come from, per step, on the CPU backend: the v5 agent step
(cule_py.steady_state.AGENT_SETTINGS: noop_max 30, fire reset, sticky 0.25) of GAME with
CONSOLES consoles, random actions, WARM steps, then STEPS steps counted. On the GPU a step's
reset launch lasts as long as its slowest console, so what matters is how many steps hold at
least one reset whose fire/noop tail did not come from the table (it plays up to 31 acts alone)
or whose reset_game missed the start region (64 frames and the finish alone).

    python tail_misses_cpu.py GAME CONSOLES WARM STEPS OUT.json   (from a checkout's root)
"""
import json
import sys
import time

import numpy as np

from cule_py import steady_state as S
from cule_py.kernels import agent_step as K

game, consoles, warm, steps, out = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), \
    int(sys.argv[4]), sys.argv[5]
env = S.make_cule_env(game, consoles)
env.reset(seed=0)
rng = np.random.default_rng(0)
n_actions = env.single_action_space.n


def counts():
    a = env._agent.astype(np.int64).sum(axis=0)
    fields = [K.A_TABLE_RESETS, K.A_TAIL_RESETS, K.A_TAIL_BY_ORIGIN]
    if hasattr(K, "A_TAIL_DIRECT"):
        fields.append(K.A_TAIL_DIRECT)
    return [int(a[f]) for f in fields]


start = time.perf_counter()
ended = np.zeros(consoles, np.bool_)
for _ in range(warm):
    _, _, term, trunc, _ = env.step(rng.integers(0, n_actions, consoles))
    ended = term | trunc
warm_s = time.perf_counter() - start
rows = []
before = counts()
for _ in range(steps):
    resets = int(ended.sum())          # NextStep: the consoles that ended reset in this step
    _, _, term, trunc, _ = env.step(rng.integers(0, n_actions, consoles))
    ended = term | trunc
    after = counts()
    d = [x - y for x, y in zip(after, before)]
    before = after
    rows.append([resets] + d)
rows = np.array(rows)
resets = rows[:, 0]
stepped = resets > 0
tail_missed = resets - rows[:, 2]                  # (a game over among the noops: one more)
start_missed = resets - rows[:, 1]
result = {
    "game": game, "consoles": consoles, "warm_steps": warm, "steps": steps,
    "warm_seconds": round(warm_s, 1),
    "resets": int(resets.sum()),
    "start_hits": int(rows[:, 1].sum()), "tail_hits": int(rows[:, 2].sum()),
    "tail_by_origin": int(rows[:, 3].sum()),
    "tail_direct": int(rows[:, 4].sum()) if rows.shape[1] > 4 else None,
    "steps_with_resets": int(stepped.sum()),
    "steps_with_a_tail_miss": int((tail_missed[stepped] > 0).sum()),
    "steps_with_a_start_miss": int((start_missed[stepped] > 0).sum()),
    "mean_resets_per_step": float(resets.mean()),
    "start_entries": int(env._reset_table[-1][0]),
}
print(json.dumps(result))
with open(out, "w") as f:
    json.dump(result, f, indent=1)
