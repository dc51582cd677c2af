# histogram_nb.py: the numba version of the histogram kernel (sequential counts[b] += 1).
import os, time
import numpy as np
from numba import njit

@njit
def kernel(xs, nb):
    counts = np.zeros(nb, np.int64)
    for t in range(5):
        counts[:] = 0
        for i in range(xs.shape[0]):
            counts[int(xs[i] * nb)] += 1
    return counts

def main():
    reps = int(os.environ.get("BENCH_REPS", "5"))
    n = 4_000_000
    nb = 64
    xs = ((np.arange(n, dtype=np.int64) * 7919) % 100003).astype(np.float64) / 100003.0
    c = kernel(xs, nb)
    for _ in range(reps):
        t0 = time.monotonic()
        c = kernel(xs, nb)
        print("seconds", time.monotonic() - t0)
    check = int(sum(b * int(c[b]) for b in range(nb)))
    print("result", int(c[0]), int(c[nb - 1]), int(c.max()), check)

main()
