# gram_nb.py: modified Gram-Schmidt on the rows of a 150 x 300 matrix, as gram.c (sequential).
import os, time
import numpy as np
from numba import njit

@njit
def kernel(a, q):
    m, d = a.shape
    v = np.empty(d)
    for i in range(m):
        for k in range(d):
            v[k] = a[i, k]
        for j in range(i):
            r = 0.0
            for k in range(d):
                r += q[j, k] * v[k]
            for k in range(d):
                v[k] -= r * q[j, k]
        s = 0.0
        for k in range(d):
            s += v[k] * v[k]
        nrm = np.sqrt(s)
        for k in range(d):
            q[i, k] = v[k] / nrm

def main():
    reps = int(os.environ.get("BENCH_REPS", "5"))
    m, d = 150, 300
    i = np.arange(m).reshape(m, 1)
    k = np.arange(d).reshape(1, d)
    a = ((i * 7919 + k * 104729 + i * k * 31) % 10007).astype(np.float64) / 10007.0 - 0.5
    q = np.empty((m, d))
    kernel(a, q)
    for _ in range(reps):
        t0 = time.monotonic()
        kernel(a, q)
        print("seconds", time.monotonic() - t0)
    s = 0.0
    for r in range(m):
        t = 0.0
        for c in range(d):
            t += q[r, c]
        s += t
    o = 0.0
    for c in range(d):
        o += q[0, c] * q[m - 1, c]
    print("result", repr(float(s)), repr(float(q[m - 1, d // 2])), repr(float(o)))

main()
