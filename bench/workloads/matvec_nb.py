# matvec_nb.py: the numba versions of matvec_rows.br (prange over rows) and
# matvec_cols.br (sequential columns); argv[1] is "rows" or "cols".
import os, sys, time
import numpy as np
from numba import njit, prange

@njit(parallel=True)
def rows(a, x):
    n = x.shape[0]
    y = np.empty(a.shape[0])
    for i in prange(a.shape[0]):
        t = 0.0
        for j in range(n):
            t += a[i, j] * x[j]
        y[i] = t
    return y

@njit
def cols(a, x):
    n = x.shape[0]
    y = np.zeros(a.shape[0])
    for j in range(n):
        for i in range(a.shape[0]):
            y[i] += a[i, j] * x[j]
    return y

@njit
def total(y):
    s = 0.0
    for v in y:
        s += v
    return s

def main():
    reps = int(os.environ.get("BENCH_REPS", "5"))
    kernel = rows if sys.argv[1] == "rows" else cols
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
