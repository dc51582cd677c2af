# transpose_new_nb.py: the numba version of the out-of-place transpose kernel
# (sequential): a new zeroed matrix per transpose, t[j, i] = a[i, j].
import os, time
import numpy as np
from numba import njit

@njit
def transposed(a):
    n = a.shape[0]
    t = np.zeros((n, n))
    for i in range(n):
        for j in range(n):
            t[j, i] = a[i, j]
    return t

@njit
def kernel(a):
    for t in range(10):
        a = transposed(a)
    return a

def main():
    reps = int(os.environ.get("BENCH_REPS", "5"))
    n = 1000
    a = np.arange(n * n, dtype=np.float64).reshape(n, n)
    a = kernel(a)
    for _ in range(reps):
        t0 = time.monotonic()
        a = kernel(a)
        print("seconds", time.monotonic() - t0)
    print("result", repr(float(a[3, 7])), repr(float(a[n - 1, 2])), repr(float(a[2, n - 1])))

main()
