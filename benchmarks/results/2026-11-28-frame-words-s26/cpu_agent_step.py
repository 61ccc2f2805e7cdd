"""A/B: cule_py CPU agent steps/s, one thread, 16 envs (AtariVectorEnv defaults: frameskip 4,
84x84x4, sticky 0.0)."""
import sys, time
import numba, numpy as np
numba.set_num_threads(1)
from cule_py.vector import AtariVectorEnv
out = {}
for game in sys.argv[1:]:
    env = AtariVectorEnv(game, num_envs=16, device="cpu")
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    n = env.single_action_space.n
    for _ in range(300):
        env.step(rng.integers(0, n, 16))
    rates = []
    for _ in range(5):
        t = time.perf_counter()
        for _ in range(200):
            env.step(rng.integers(0, n, 16))
        rates.append(200 * 16 / (time.perf_counter() - t))
    out[game] = sorted(rates)[2]
    print(game, round(out[game]), [round(r) for r in rates], flush=True)
