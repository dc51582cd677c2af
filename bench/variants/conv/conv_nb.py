# conv_nb.py: the numba version of the conv kernel (prange over the rows, as the C's omp).
import os, time
import numpy as np
from numba import njit, prange

@njit(parallel=True)
def conv(img, w):
    n, m = img.shape
    out = np.empty((n - 2, m - 2))
    for i in prange(n - 2):
        for j in range(m - 2):
            s = 0.0
            for di in range(3):
                for dj in range(3):
                    s += w[di, dj] * img[i + di, j + dj]
            out[i, j] = s
    return out

@njit
def total(out):
    s = 0.0
    for i in range(out.shape[0]):
        t = 0.0
        for j in range(out.shape[1]):
            t += out[i, j]
        s += t
    return s

def main():
    reps = int(os.environ.get("BENCH_REPS", "5"))
    n = 1000
    i, j = np.meshgrid(np.arange(n), np.arange(n), indexing="ij")
    img = ((i * 7 + j * 3) % 100).astype(np.float64) * 0.01
    w = np.array([[0.0625, 0.125, 0.0625], [0.125, 0.25, 0.125], [0.0625, 0.125, 0.0625]])
    out = conv(img, w)
    for _ in range(reps):
        t0 = time.monotonic()
        out = conv(img, w)
        print("seconds", time.monotonic() - t0)
    print("result", repr(total(out)), repr(float(out[n // 2, n // 3])))

main()
