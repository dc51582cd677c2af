# stencil_nb.py: the numba version of the Jacobi stencil (prange over the rows).
import os, time
import numpy as np
from numba import njit, prange

@njit(parallel=True)
def kernel(g, sweeps):
    n = g.shape[0]
    h = g.copy()
    for t in range(sweeps):
        for i in prange(1, n - 1):
            for j in range(1, n - 1):
                h[i, j] = 0.25 * (g[i - 1, j] + g[i + 1, j] + g[i, j - 1] + g[i, j + 1])
        g, h = h, g
    return g

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
    n = 500
    i = np.arange(n).reshape(n, 1)
    j = np.arange(n).reshape(1, n)
    g0 = ((i * 7 + j * 3) % 100).astype(np.float64) * 0.01
    g = kernel(g0.copy(), 200)
    for _ in range(reps):
        g1 = g0.copy()
        t0 = time.monotonic()
        g = kernel(g1, 200)
        print("seconds", time.monotonic() - t0)
    print("result", repr(float(total(g))), repr(float(g[n // 2, n // 2])))

main()
