# insertion_nb.py: the numba version of the insertion kernel.
import os, time
import numpy as np
from numba import njit

@njit
def kernel(xs):
    a = xs.copy()
    for i in range(1, a.shape[0]):
        key = a[i]
        j = i - 1
        while j >= 0 and a[j] > key:
            a[j + 1] = a[j]
            j -= 1
        a[j + 1] = key
    return a

def main():
    reps = int(os.environ.get("BENCH_REPS", "5"))
    n = 4000
    xs = ((np.arange(n) * 7919) % 10007).astype(np.float64) * 0.5
    a = kernel(xs)
    for _ in range(reps):
        t0 = time.monotonic()
        a = kernel(xs)
        print("seconds", time.monotonic() - t0)
    print("result", repr(float(a[0])), repr(float(a[n // 2])), repr(float(a[n - 1])))

main()
