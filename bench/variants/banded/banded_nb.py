# banded_nb.py: the numba version of the banded kernel.
import os, time
import numpy as np
from numba import njit

@njit
def banded(band, x, w, y):
    n = x.shape[0]
    for i in range(n):
        s = 0.0
        lo = max(0, i - w)
        hi = min(n - 1, i + w)
        for j in range(lo, hi + 1):
            s += band[i, j - i + w] * x[j]
        y[i] = s

@njit
def kernel(band, w):
    n = band.shape[0]
    x = np.empty(n)
    for i in range(n):
        x[i] = float(i % 8)
    y = np.empty(n)
    for t in range(20):
        banded(band, x, w, y)
        x, y = y, x
    return x

def main():
    reps = int(os.environ.get("BENCH_REPS", "5"))
    n, w = 100000, 3
    band = np.empty((n, 2 * w + 1))
    for i in range(n):
        for d in range(2 * w + 1):
            band[i, d] = float((i + d) % 5) * 0.03125
    x = kernel(band, w)
    for _ in range(reps):
        t0 = time.monotonic()
        x = kernel(band, w)
        print("seconds", time.monotonic() - t0)
    s = 0.0
    for v in x:
        s += v
    print("result", repr(float(s)), repr(float(x[0])), repr(float(x[n // 2])))

main()
