# cosine_nb.py: the numba version of the cosine kernel (norms once per row, prange over the rows).
import os, time
import numpy as np
from numba import njit, prange

@njit(parallel=True)
def kernel(a):
    m, d = a.shape
    sim = np.empty((m, m))
    nrm = np.empty(m)
    for t in range(3):
        for i in range(m):
            s = 0.0
            for k in range(d):
                s += a[i, k] * a[i, k]
            nrm[i] = np.sqrt(s)
        for i in prange(m):
            for j in range(m):
                s = 0.0
                for k in range(d):
                    s += a[i, k] * a[j, k]
                sim[i, j] = s / (nrm[i] * nrm[j])
    return sim

def main():
    reps = int(os.environ.get("BENCH_REPS", "5"))
    m, d = 400, 64
    i = np.arange(m).reshape(m, 1)
    k = np.arange(d).reshape(1, d)
    a = ((i * 7 + k * 3) % 50).astype(np.float64) * 0.25 - 6.0
    sim = kernel(a)
    for _ in range(reps):
        t0 = time.monotonic()
        sim = kernel(a)
        print("seconds", time.monotonic() - t0)
    s = 0.0
    for r in range(m):
        t = 0.0
        for c in range(m):
            t += sim[r, c]
        s += t
    print("result", repr(float(s)), repr(float(sim[0, m - 1])), repr(float(sim[m // 2, m // 3 + 1])))

main()
