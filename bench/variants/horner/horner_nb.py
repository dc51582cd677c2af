# horner_nb.py: the numba version of the horner kernel (prange over the points).
import os, time
import numpy as np
from numba import njit, prange

@njit
def horner(cs, x):
    y = 0.0
    for c in cs:
        y = y * x + c
    return y

@njit(parallel=True)
def kernel(cs, xs):
    ys = np.empty_like(xs)
    for i in prange(xs.shape[0]):
        ys[i] = horner(cs, xs[i])
    total = 0.0
    for i in range(ys.shape[0]):
        total += ys[i]
    return total

def main():
    reps = int(os.environ.get("BENCH_REPS", "5"))
    n = 2_000_000
    cs = np.array([1.0, -0.5, 0.25, -0.125, 0.0625, 0.03125, -0.015625, 0.0078125])
    xs = (np.arange(n) % 1000).astype(np.float64) * 0.001
    r = kernel(cs, xs)
    for _ in range(reps):
        t0 = time.monotonic()
        r = kernel(cs, xs)
        print("seconds", time.monotonic() - t0)
    print("result", repr(r))

main()
