# dot_nb.py: the numba version of dot.br (prange reductions).
import os, time
import numpy as np
from numba import njit, prange

@njit(parallel=True)
def kernel(x, y):
    n = x.shape[0]
    s = 0.0
    for i in prange(n):
        s += x[i] * y[i]
    q = 0.0
    for i in prange(n):
        q += x[i] * x[i]
    m = abs(x[0])
    for i in prange(n):
        m = max(m, abs(x[i]))
    return s, np.sqrt(q), m

def main():
    reps = int(os.environ.get("BENCH_REPS", "5"))
    n = 10_000_000
    i = np.arange(n)
    x = (i % 13).astype(np.float64) * 0.25 - 1.5
    y = 1.0 / (i + 1).astype(np.float64)
    r = kernel(x, y)
    for _ in range(reps):
        t0 = time.monotonic()
        r = kernel(x, y)
        print("seconds", time.monotonic() - t0)
    print("result", *(repr(float(v)) for v in r))

main()
