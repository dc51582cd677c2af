# thomas_nb.py: the numba version of the thomas kernel.
import os, time
import numpy as np
from numba import njit

@njit
def thomas(a, b, c, d):
    n = d.shape[0]
    cp = np.zeros(n)
    dp = np.zeros(n)
    cp[0] = c[0] / b[0]
    dp[0] = d[0] / b[0]
    for i in range(1, n):
        m = b[i] - a[i] * cp[i - 1]
        cp[i] = c[i] / m
        dp[i] = (d[i] - a[i] * dp[i - 1]) / m
    x = np.zeros(n)
    x[n - 1] = dp[n - 1]
    for i in range(n - 2, -1, -1):
        x[i] = dp[i] - cp[i] * x[i + 1]
    return x

@njit
def kernel(n):
    a = np.full(n, -1.0)
    b = np.full(n, 4.0)
    c = np.full(n, -1.0)
    total = 0.0
    for k in range(200):
        d = np.empty(n)
        for i in range(n):
            d[i] = float((i * 7 + k) % 13)
        x = thomas(a, b, c, d)
        total += x[k]
    return total

def main():
    reps = int(os.environ.get("BENCH_REPS", "5"))
    n = 10000
    total = kernel(n)
    for _ in range(reps):
        t0 = time.monotonic()
        total = kernel(n)
        print("seconds", time.monotonic() - t0)
    print("result", repr(total))

main()
