import numpy as np
rng = np.random.default_rng(0)
R, CAP, BASES = 82, 384, 2
table = set(); filled = 0
def key():
    base = rng.integers(BASES); n = rng.integers(30); acts = 1 + max(n - 1, 0)
    eff = False; mask = 0
    for i in range(acts):
        if rng.random() >= 0.25: eff = (i == 0)
        if eff: mask |= 1 << i
    return (base, acts, mask)
for launch in range(1, 1001):
    usable = set(table); claimed = set(); misses = []
    for _ in range(R):
        k = key()
        if k in usable: continue
        misses.append(k[1])
        if k not in claimed and filled < CAP:
            claimed.add(k); filled += 1
    table |= claimed
    if launch in (1, 2, 5, 10, 20, 50, 100, 300, 1000):
        print(launch, "entries", filled, "misses", len(misses), "max miss acts", max(misses, default=0))
# steady state stats
stats = []
for launch in range(2000):
    misses = []
    for _ in range(R):
        k = key()
        if k not in table: misses.append(k[1])
    stats.append((len(misses), max(misses, default=0)))
s = np.array(stats)
print("steady: hit rate", 1 - s[:,0].sum() / (R * len(s)), "P(step with a miss)", (s[:,0] > 0).mean(),
      "mean max miss acts", s[:,1].mean(), "median", np.median(s[:,1]))
