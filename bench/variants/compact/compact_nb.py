# compact_nb.py: the numba version of the compact kernel.
import os, time
import numpy as np
from numba import njit

@njit
def compact(xs, thr, out):
    count = 0
    for i in range(xs.shape[0]):
        if xs[i] > thr:
            out[count] = xs[i]
            count += 1
    return count

@njit
def kernel(xs):
    out = np.empty(xs.shape[0])
    total = 0.0
    kept = 0
    for t in range(20):
        c = compact(xs, float(t) * 0.05, out)
        kept += c
        total += out[c // 2]
    return total, kept

def main():
    reps = int(os.environ.get("BENCH_REPS", "5"))
    n = 500000
    xs = np.array([float((i * 7919) % 1009) * 0.001 for i in range(n)])
    total, kept = kernel(xs)
    for _ in range(reps):
        t0 = time.monotonic()
        total, kept = kernel(xs)
        print("seconds", time.monotonic() - t0)
    print("result", repr(total), kept)

main()
