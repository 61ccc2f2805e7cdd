"""CPU microseconds for one whole-console compare that matches (the reset table's hit), the
compare of 834ffa2 (an exit after every byte) against HEAD's (reset_snapshot._matches: 16-byte
blocks, one test a row), both compiled by numba here, on the real shapes."""
import json, time
import numpy as np
from numba import njit
from cule_py.kernels import layout as L
from cule_py.kernels import reset_snapshot as RS

KEY = RS.KEY

@njit(cache=False)
def byte_exit(ram, st, fb, logic, t_st, t_ram, t_logic, t_fb, entry, env):
    # 834ffa2's _matches (start key), the fields and loops as they were
    for f in range(st.shape[1]):
        if f != L.SYSTEM_RNG_POSITION and f != L.ENV_FRAME_NUMBER and \
                f != L.ENV_STICKY_ACTION and st[env, f] != t_st[entry, KEY, f]:
            return False
    for i in range(ram.shape[1]):
        if ram[env, i] != t_ram[entry, KEY, i]:
            return False
    for i in range(logic.shape[1]):
        if logic[env, i] != t_logic[entry, KEY, i]:
            return False
    for b in range(fb.shape[1]):
        for y in range(fb.shape[2]):
            for x in range(fb.shape[3]):
                if fb[env, b, y, x] != t_fb[entry, KEY, b, y, x]:
                    return False
    return True

row_blocks = njit(cache=False)(lambda *a: RS._matches(*a, False))

n, env, entry = 16, 5, 1
rng = np.random.default_rng(0)
st = rng.integers(0, 1000, (n, L.STATE_FIELDS), dtype=np.int32)
ram = rng.integers(0, 256, (n, 128), dtype=np.uint8)
logic = rng.integers(0, 1000, (n, 40), dtype=np.int32)
fb = rng.integers(0, 256, (n,) + tuple(L.FRAME_BUFFER_SHAPE), dtype=np.uint8)
t_st, t_ram, t_logic, t_fb, _ = RS.empty_table(L.STATE_FIELDS, 128, 40, np.int32,
                                              L.FRAME_BUFFER_SHAPE, entries=2, tail_entries=0)
t_st[entry, KEY], t_ram[entry, KEY], t_logic[entry, KEY], t_fb[entry, KEY] = \
    st[env], ram[env], logic[env], fb[env]
args = (ram, st, fb, logic, t_st, t_ram, t_logic, t_fb, entry, env)
out = {}
for name, f in (("byte_exit_834ffa2", byte_exit), ("row_blocks_head", row_blocks)):
    assert f(*args)
    times = []
    for _ in range(7):
        t = time.perf_counter()
        for _ in range(200):
            f(*args)
        times.append((time.perf_counter() - t) / 200 * 1e6)
    out[name] = round(float(np.median(times)), 2)
print(json.dumps({"us_per_matching_compare_median_of_7x200": out}))
