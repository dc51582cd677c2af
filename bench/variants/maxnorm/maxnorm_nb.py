# maxnorm_nb.py: the numba version of the maxnorm kernel.
import os, time
import numpy as np
from numba import njit

@njit
def kernel(a, b):
    total = 0.0
    m = 0.0
    for k in range(5):
        w = 1.0 + k * 0.25
        m = 0.0
        for i in range(a.shape[0]):
            d = abs(a[i] - w * b[i])
            if d > m:
                m = d
        total += m
    return m, total

def main():
    reps = int(os.environ.get("BENCH_REPS", "5"))
    n = 1000000
    i = np.arange(n)
    a = ((i * 7919) % 10007).astype(np.float64) * 0.001
    b = ((i * 104729) % 10007).astype(np.float64) * 0.001
    r = kernel(a, b)
    for _ in range(reps):
        t0 = time.monotonic()
        r = kernel(a, b)
        print("seconds", time.monotonic() - t0)
    print("result", repr(float(r[0])), repr(float(r[1])))

main()
