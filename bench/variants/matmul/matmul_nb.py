# matmul_nb.py: the numba version of the product (ikj, prange over the rows).
import os, time
import numpy as np
from numba import njit, prange

@njit(parallel=True)
def kernel(a, b):
    n, m = a.shape[0], b.shape[1]
    c = np.zeros((n, m))
    for i in prange(n):
        for k in range(b.shape[0]):
            aik = a[i, k]
            for j in range(m):
                c[i, j] += aik * b[k, j]
    return c

@njit
def total(c):
    s = 0.0
    for i in range(c.shape[0]):
        t = 0.0
        for j in range(c.shape[1]):
            t += c[i, j]
        s += t
    return s

def matrix(n, p, q):
    i = np.arange(n).reshape(n, 1)
    j = np.arange(n).reshape(1, n)
    return ((i * p + j * q) % 100).astype(np.float64) * 0.01

def main():
    reps = int(os.environ.get("BENCH_REPS", "5"))
    n = 400
    a, b = matrix(n, 7, 3), matrix(n, 5, 11)
    c = kernel(a, b)
    for _ in range(reps):
        t0 = time.monotonic()
        c = kernel(a, b)
        print("seconds", time.monotonic() - t0)
    print("result", repr(float(total(c))), repr(float(c[0, 0])), repr(float(c[n - 1, n - 1])))

main()
