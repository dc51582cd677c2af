# mvrows_nb.py: the numba version of the matvec-by-rows kernel (prange over rows).
import os, time
import numpy as np
from numba import njit, prange

@njit(parallel=True)
def kernel(a, x):
    n = a.shape[0]
    y = np.empty(n)
    for t in range(10):
        for i in prange(n):
            s = 0.0
            for j in range(a.shape[1]):
                s += a[i, j] * x[j]
            y[i] = s
    return y

@njit
def total(y):
    s = 0.0
    for v in y:
        s += v
    return s

def main():
    reps = int(os.environ.get("BENCH_REPS", "5"))
    n = 2000
    i = np.arange(n).reshape(n, 1)
    j = np.arange(n).reshape(1, n)
    a = ((i * 7 + j * 3) % 100).astype(np.float64) * 0.01
    x = (np.arange(n) % 10).astype(np.float64) * 0.1
    y = kernel(a, x)
    for _ in range(reps):
        t0 = time.monotonic()
        y = kernel(a, x)
        print("seconds", time.monotonic() - t0)
    print("result", repr(float(total(y))), repr(float(y[0])), repr(float(y[n - 1])))

main()
