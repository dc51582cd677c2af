# selsort_nb.py: the numba version of the selsort kernel.
import os, time
import numpy as np
from numba import njit

@njit
def kernel(xs):
    a = xs.copy()
    n = a.shape[0]
    for i in range(n):
        m = i
        for j in range(i + 1, n):
            if a[j] < a[m]:
                m = j
        if m != i:
            t = a[i]
            a[i] = a[m]
            a[m] = t
    return a

def main():
    reps = int(os.environ.get("BENCH_REPS", "5"))
    n = 8000
    xs = (np.arange(n, dtype=np.int64) * 7919 + 13) % 10007
    a = kernel(xs)
    for _ in range(reps):
        t0 = time.monotonic()
        a = kernel(xs)
        print("seconds", time.monotonic() - t0)
    chk = 0
    for v in a:
        chk = (chk * 31 + int(v)) % 1000000007
    print("result", a[0], a[n // 2], a[n - 1], chk)

main()
