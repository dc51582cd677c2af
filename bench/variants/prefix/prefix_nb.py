# prefix_nb.py: the numba version of the prefix kernel.
import os, time
import numpy as np
from numba import njit

@njit
def kernel(xs):
    p = np.empty_like(xs)
    s = 0.0
    for i in range(xs.shape[0]):
        s += xs[i]
        p[i] = s
    return p

def main():
    reps = int(os.environ.get("BENCH_REPS", "5"))
    n = 1000000
    xs = ((np.arange(n) * 7919) % 1000).astype(np.float64) * 0.001 - 0.25
    p = kernel(xs)
    for _ in range(reps):
        t0 = time.monotonic()
        p = kernel(xs)
        print("seconds", time.monotonic() - t0)
    print("result", repr(float(p[0])), repr(float(p[n // 2])), repr(float(p[n - 1])))

main()
