# nbody_nb.py: 500 bodies, softened gravity, 10 steps per timed run, as nbody.c (prange over bodies).
import os, time
import numpy as np
from numba import njit, prange

@njit(parallel=True)
def kernel(x, y, z, vx, vy, vz, m, steps, dt, eps):
    n = x.shape[0]
    ax = np.empty(n)
    ay = np.empty(n)
    az = np.empty(n)
    for s in range(steps):
        for i in prange(n):
            sx = 0.0
            sy = 0.0
            sz = 0.0
            for j in range(n):
                dx = x[j] - x[i]
                dy = y[j] - y[i]
                dz = z[j] - z[i]
                d2 = dx * dx + dy * dy + dz * dz + eps
                inv = 1.0 / (d2 * np.sqrt(d2))
                sx += m[j] * dx * inv
                sy += m[j] * dy * inv
                sz += m[j] * dz * inv
            ax[i] = sx
            ay[i] = sy
            az[i] = sz
        for i in range(n):
            vx[i] += ax[i] * dt
            vy[i] += ay[i] * dt
            vz[i] += az[i] * dt
            x[i] += vx[i] * dt
            y[i] += vy[i] * dt
            z[i] += vz[i] * dt

def init(n):
    i = np.arange(n, dtype=np.int64)
    return (((i * 37) % 1000).astype(np.float64) * 0.001, ((i * 91) % 1000).astype(np.float64) * 0.001,
            ((i * 53) % 1000).astype(np.float64) * 0.001, np.zeros(n), np.zeros(n), np.zeros(n),
            1.0 + (i % 7).astype(np.float64) * 0.1)

def main():
    reps = int(os.environ.get("BENCH_REPS", "5"))
    n = 500
    st = init(n)
    kernel(*st, 10, 0.001, 0.01)
    for _ in range(reps):
        st = init(n)
        t0 = time.monotonic()
        kernel(*st, 10, 0.001, 0.01)
        print("seconds", time.monotonic() - t0)
    x, y, z, vx, vy, vz, m = st
    sx = 0.0
    sy = 0.0
    sz = 0.0
    for k in range(n):
        sx += x[k]
        sy += y[k]
        sz += z[k]
    print("result", repr(float(sx)), repr(float(sy)), repr(float(sz)), repr(float(x[0])), repr(float(vz[n - 1])))

main()
