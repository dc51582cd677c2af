# argmax_nb.py: the numba version of the argmax kernel.
import os, time
import numpy as np
from numba import njit

@njit
def kernel(xs):
    total = 0
    best = xs[0]
    bi = 0
    for k in range(5):
        best = xs[0]
        bi = 0
        for i in range(1, xs.shape[0]):
            if xs[i] > best:
                best = xs[i]
                bi = i
        total += bi
    return best, bi, total

def main():
    reps = int(os.environ.get("BENCH_REPS", "5"))
    n = 1000000
    xs = ((np.arange(n) * 7919) % 1000003).astype(np.float64) * 0.001
    r = kernel(xs)
    for _ in range(reps):
        t0 = time.monotonic()
        r = kernel(xs)
        print("seconds", time.monotonic() - t0)
    print("result", repr(float(r[0])), r[1], r[2])

main()
