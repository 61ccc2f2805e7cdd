"""CPU draw_pixels time over random states and segments (old: uint8 fb, new: uint64 words)."""
import sys, time, importlib.util, pathlib
import numpy as np
from numba import njit
from cule_py.kernels import layout as L
from cule_py.kernels import tia
root = pathlib.Path(tia.__file__).parents[2]
spec = importlib.util.spec_from_file_location("tl", root / "tests/test_tia_lanes.py")
tl = importlib.util.module_from_spec(spec); spec.loader.exec_module(tl)
words = hasattr(L, "FRAME_BUFFER_DTYPE")

@njit(cache=False)
def run(states, fb, rows, x0s, ns, reps):
    for r in range(reps):
        for k in range(states.shape[0]):
            st = states[k:k + 1]
            tia.draw_pixels(st, fb, 0, rows[k], x0s[k], ns[k])

rng = np.random.default_rng(0)
cases = 2000
states = np.concatenate([tl._random_state(rng) for _ in range(cases)])
states[:, L.TIA_SKIP_DRAW] = 0
states[:, L.TIA_BUFFER] = 0
mode = sys.argv[1] if len(sys.argv) > 1 else "mixed"
x0s = np.zeros(cases, np.int32); ns = np.zeros(cases, np.int32)
for k in range(cases):
    if mode == "whole":
        x0s[k], ns[k] = 0, 160
    else:   # segments of a line split at random points, like TIA writes mid-line
        x0 = int(rng.integers(0, 160)); x0s[k] = x0
        ns[k] = int(rng.integers(1, min(40, 160 - x0) + 1))
rows = rng.integers(0, 3, cases).astype(np.int32)
pix = np.zeros((1, 2, 3, 160), np.uint8)
fb = pix.view(np.uint64) if words else pix
run(states.copy(), fb, rows, x0s, ns, 1)
best = 1e9
for _ in range(7):
    s = states.copy()
    t = time.perf_counter(); run(s, fb, rows, x0s, ns, 20); best = min(best, time.perf_counter() - t)
print(f"{'words' if words else 'bytes'} {mode}: {best / 20 / cases * 1e9:.0f} ns a segment, mean {ns.mean():.1f} px")
