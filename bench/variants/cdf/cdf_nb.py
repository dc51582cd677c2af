# cdf_nb.py: the numba version of the cdf kernel.
import os, time
import numpy as np
from numba import njit

@njit
def find(cdf, u):
    lo = 0
    hi = cdf.shape[0] - 1
    while lo < hi:
        mid = (lo + hi) // 2
        if cdf[mid] < u:
            lo = mid + 1
        else:
            hi = mid
    return lo

@njit
def kernel(w):
    n = w.shape[0]
    cdf = np.empty(n)
    acc = 0.0
    for i in range(n):
        acc += w[i]
        cdf[i] = acc
    total = cdf[n - 1]
    counts = np.zeros(10, dtype=np.int64)
    seed = 12345
    for k in range(2000000):
        seed = (seed * 1103515245 + 12345) % 2147483648
        u = float(seed) / 2147483648.0 * total
        counts[find(cdf, u) % 10] += 1
    return counts

def main():
    reps = int(os.environ.get("BENCH_REPS", "5"))
    n = 100000
    w = (np.arange(n) % 17 + 1).astype(np.float64)
    counts = kernel(w)
    for _ in range(reps):
        t0 = time.monotonic()
        counts = kernel(w)
        print("seconds", time.monotonic() - t0)
    print("result", " ".join(str(int(c)) for c in counts))

main()
