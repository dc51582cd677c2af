# dot_nb.py: the numba version of the dot kernel (prange sums).
import os, sys, time
import numpy as np
from numba import njit, prange

@njit(parallel=True)
def kernel(x, y):
    td = 0.0
    tn = 0.0
    for t in range(10):
        d = 0.0
        for i in prange(x.shape[0]):
            d += x[i] * y[i]
        s = 0.0
        for i in prange(x.shape[0]):
            s += x[i] * x[i]
        td += d
        tn += np.sqrt(s)
    return td, tn

def main():
    reps = int(os.environ.get("BENCH_REPS", "5"))
    n = 2_000_000
    i = np.arange(n)
    x = (i % 13).astype(np.float64) * 0.25 - 1.5
    y = (i % 7).astype(np.float64) * 0.5 - 1.0
    r = kernel(x, y)
    for _ in range(reps):
        t0 = time.monotonic()
        r = kernel(x, y)
        print("seconds", time.monotonic() - t0)
    print("result", repr(r[0]), repr(r[1]))

main()
