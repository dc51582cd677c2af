# montecarlo_nb.py: the numba version of montecarlo.br, with the same SplitMix64
# counter generator in uint64 (every constant a uint64, so nothing becomes float).
import os, time
import numpy as np
from numba import njit, prange

GOLDEN = np.uint64(0x9E3779B97F4A7C15)
MIX1 = np.uint64(0xBF58476D1CE4E5B9)
MIX2 = np.uint64(0x94D049BB133111EB)

@njit
def uniform(seed, i):
    z = np.uint64(seed) * GOLDEN + np.uint64(i) + np.uint64(1)
    z = (z ^ (z >> np.uint64(30))) * MIX1
    z = (z ^ (z >> np.uint64(27))) * MIX2
    z = z ^ (z >> np.uint64(31))
    return float(z >> np.uint64(11)) * 1.1102230246251565e-16

@njit(parallel=True)
def kernel(n):
    h = 0
    for k in prange(n):
        x = uniform(2026, 3 * k) * 2.0 - 1.0
        y = uniform(2026, 3 * k + 1) * 2.0 - 1.0
        z = uniform(2026, 3 * k + 2) * 2.0 - 1.0
        if x * x + y * y + z * z <= 1.0:
            h += 1
    return h

def main():
    reps = int(os.environ.get("BENCH_REPS", "5"))
    n = 20_000_000
    h = kernel(n)
    for _ in range(reps):
        t0 = time.monotonic()
        h = kernel(n)
        print("seconds", time.monotonic() - t0)
    print("result", h, repr(8.0 * h / n))

main()
