# editdist_nb.py: the numba version of the editdist kernel.
import os, time
import numpy as np
from numba import njit

@njit
def kernel(a, b):
    n = a.shape[0]
    m = b.shape[0]
    prev = np.arange(m + 1)
    cur = np.zeros(m + 1, dtype=np.int64)
    for i in range(1, n + 1):
        cur[0] = i
        for j in range(1, m + 1):
            c = 0 if a[i - 1] == b[j - 1] else 1
            cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + c)
        prev, cur = cur, prev
    return prev[m], prev[m // 2]

def main():
    reps = int(os.environ.get("BENCH_REPS", "5"))
    n = 2000
    a = (np.arange(n) * 7919) % 13
    b = (np.arange(n) * 104729 + 5) % 13
    r = kernel(a, b)
    for _ in range(reps):
        t0 = time.monotonic()
        r = kernel(a, b)
        print("seconds", time.monotonic() - t0)
    print("result", r[0], r[1])

main()
