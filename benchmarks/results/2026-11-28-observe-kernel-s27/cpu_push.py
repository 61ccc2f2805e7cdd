"""CPU push time (stack shift + pool + resize: the step's observation), 64 consoles, one
thread, as agent_step_cpu makes it; run from a tree."""
import time
import numpy as np
import numba
from numba import njit
numba.set_num_threads(1)
from cule_py.kernels import agent_step as K
from cule_py.kernels import layout as L
from cule_py.area_resize import area_table

words = getattr(L, "FRAME_BUFFER_DTYPE", None) is not None

@njit(cache=False)
def run(ram, fb, palette, raw, obs, scratch, cfg, xd, xs, xa, yd, ys, ya, newest, older):
    for env in range(fb.shape[0]):
        K.push(ram, fb, palette, raw, obs, scratch, cfg, xd, xs, xa, yd, ys, ya, env, newest,
               older)

n, h = 64, 210
rng = np.random.default_rng(0)
pix = rng.integers(0, 8, (n, 2, 250, 160), dtype=np.uint8) * 2
pix[:, :, :, :] = pix[:, :, ::3].repeat(3, axis=2)[:, :, :250]   # runs of equal rows
fb = pix.view(np.uint64) if words else pix
from cule_py import palette as P
palette = np.array(P.NTSC_GRAY, np.uint8).reshape(256, 1)
raw = np.zeros((n, 2, h * 160), np.uint8)
cfg = np.zeros(K.CFG_FIELDS, np.int32)
cfg[K.C_CHANNELS], cfg[K.C_SRC_H], cfg[K.C_DST_H], cfg[K.C_DST_W] = 1, h, 84, 84
cfg[K.C_STACK] = 4
ram = np.zeros((n, 128), np.uint8)
tables = [*area_table(160, 84), *area_table(h, 84)]
obs = np.zeros((n, 4, 84 * 84), np.uint8)
scratch = np.zeros((n, 2, 84), np.float32)
args = (ram, fb, palette, raw, obs, scratch, cfg, *tables, np.int32(0), np.int32(1))
run(*args)
best = 1e9
for _ in range(7):
    t = time.perf_counter()
    for _ in range(10):
        run(*args)
    best = min(best, (time.perf_counter() - t) / 10 / n)
print(f"push: {best * 1e6:.1f} us a console-step")
