# stencil3_nb.py: the numba version of the 3-D Jacobi stencil (prange over the planes).
import os, time
import numpy as np
from numba import njit, prange

@njit(parallel=True)
def kernel(u, sweeps):
    n = u.shape[0]
    v = u.copy()
    for t in range(sweeps):
        for i in prange(1, n - 1):
            for j in range(1, n - 1):
                for k in range(1, n - 1):
                    v[i, j, k] = (u[i - 1, j, k] + u[i + 1, j, k] + u[i, j - 1, k] + u[i, j + 1, k]
                                  + u[i, j, k - 1] + u[i, j, k + 1]) / 6.0
        u, v = v, u
    return u

@njit
def total(c):
    s = 0.0
    for i in range(c.shape[0]):
        p = 0.0
        for j in range(c.shape[1]):
            r = 0.0
            for k in range(c.shape[2]):
                r += c[i, j, k]
            p += r
        s += p
    return s

def main():
    reps = int(os.environ.get("BENCH_REPS", "5"))
    n = 96
    i = np.arange(n).reshape(n, 1, 1)
    j = np.arange(n).reshape(1, n, 1)
    k = np.arange(n).reshape(1, 1, n)
    u0 = ((i * 7 + j * 3 + k) % 100).astype(np.float64) * 0.01
    u = kernel(u0.copy(), 50)
    for _ in range(reps):
        u1 = u0.copy()
        t0 = time.monotonic()
        u = kernel(u1, 50)
        print("seconds", time.monotonic() - t0)
    print("result", repr(float(total(u))), repr(float(u[n // 2, n // 2, n // 2])))

main()
