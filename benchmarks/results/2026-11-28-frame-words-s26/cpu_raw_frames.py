import sys, time
import numba, numpy as np
numba.set_num_threads(1)
from cule_py.emulator import AtariEmulator
for game in sys.argv[1:]:
    e = AtariEmulator(game, 16, seed=0)
    rng = np.random.default_rng(0)
    acts = e.game.legal_actions if hasattr(e.game, "legal_actions") else list(range(18))
    acts = np.array([int(a) for a in acts])
    for _ in range(300):
        e.act(rng.choice(acts, 16))
    rates = []
    for _ in range(5):
        t = time.perf_counter()
        for _ in range(300):
            r = e.act(rng.choice(acts, 16))
            if e.game_over().any():
                e.reset(e.game_over())
        rates.append(300 * 16 / (time.perf_counter() - t))
    print(game, round(sorted(rates)[2]), flush=True)
