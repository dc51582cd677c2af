# distance_nb.py: the numba version of the distance matrix (prange over the rows of the result).
import os, time
import numpy as np
from numba import njit, prange

@njit(parallel=True)
def kernel(x):
    n, d = x.shape
    dm = np.empty((n, n))
    for t in range(5):
        for i in prange(n):
            for j in range(n):
                s = 0.0
                for k in range(d):
                    e = x[i, k] - x[j, k]
                    s += e * e
                dm[i, j] = np.sqrt(s)
    return dm

@njit
def total(c):
    s = 0.0
    for i in range(c.shape[0]):
        t = 0.0
        for j in range(c.shape[1]):
            t += c[i, j]
        s += t
    return s

def main():
    reps = int(os.environ.get("BENCH_REPS", "5"))
    n, d = 600, 16
    i = np.arange(n).reshape(n, 1)
    k = np.arange(d).reshape(1, d)
    x = ((i * 7 + k * 3) % 50).astype(np.float64) * 0.25
    dm = kernel(x)
    for _ in range(reps):
        t0 = time.monotonic()
        dm = kernel(x)
        print("seconds", time.monotonic() - t0)
    print("result", repr(float(total(dm))), repr(float(dm[0, n - 1])), repr(float(dm[n // 2, n // 3 + 1])))

main()
