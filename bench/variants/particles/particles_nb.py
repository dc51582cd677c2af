# particles_nb.py: the numba version of the particles kernel: the four fields as numpy arrays,
# prange over the particles of each step.
import os, time
import numpy as np
from numba import njit, prange

@njit(parallel=True)
def kernel(x, y, vx, vy, steps, dt):
    for s in range(steps):
        for i in prange(x.shape[0]):
            x[i] += vx[i] * dt
            y[i] += vy[i] * dt
            if x[i] < 0.0 or x[i] > 1.0:
                vx[i] = -vx[i]
            if y[i] < 0.0 or y[i] > 1.0:
                vy[i] = -vy[i]

def init(n):
    i = np.arange(n, dtype=np.int64)
    return (((i * 37) % 1000).astype(np.float64) * 0.001, ((i * 91) % 1000).astype(np.float64) * 0.001,
            ((i * 13) % 200 - 100).astype(np.float64) * 0.25, ((i * 17) % 200 - 100).astype(np.float64) * 0.25)

def main():
    reps = int(os.environ.get("BENCH_REPS", "5"))
    n = 100_000
    x, y, vx, vy = init(n)
    kernel(x, y, vx, vy, 200, 0.001)
    for _ in range(reps):
        x, y, vx, vy = init(n)
        t0 = time.monotonic()
        kernel(x, y, vx, vy, 200, 0.001)
        print("seconds", time.monotonic() - t0)
    sx = 0.0
    sy = 0.0
    for k in range(n):
        sx += x[k]
        sy += y[k]
    print("result", repr(float(sx)), repr(float(sy)), repr(float(x[n // 2])), repr(float(vy[n - 1])))

main()
