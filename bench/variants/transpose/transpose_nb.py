# transpose_nb.py: the numba version of the in-place transpose kernel (sequential).
import os, time
import numpy as np
from numba import njit

@njit
def kernel(a):
    n = a.shape[0]
    for t in range(10):
        for i in range(n):
            for j in range(i + 1, n):
                x = a[i, j]
                a[i, j] = a[j, i]
                a[j, i] = x

def main():
    reps = int(os.environ.get("BENCH_REPS", "5"))
    n = 1000
    a = np.arange(n * n, dtype=np.float64).reshape(n, n)
    kernel(a)
    for _ in range(reps):
        t0 = time.monotonic()
        kernel(a)
        print("seconds", time.monotonic() - t0)
    print("result", repr(float(a[3, 7])), repr(float(a[n - 1, 2])), repr(float(a[2, n - 1])))

main()
