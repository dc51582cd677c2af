# simpson_nb.py: the numba version of the Simpson kernel (prange sum).
import math, os, time
from numba import njit, prange

@njit(parallel=True)
def simpson(a, b, n):
    h = (b - a) / n
    s = 0.0
    for i in prange(1, n):
        s += (4.0 if i % 2 == 1 else 2.0) * math.sin(a + i * h)
    return h / 3.0 * (math.sin(a) + s + math.sin(b))

def main():
    reps = int(os.environ.get("BENCH_REPS", "5"))
    n = 1_000_000
    i1 = simpson(0.0, math.pi, n)
    for _ in range(reps):
        t0 = time.monotonic()
        i1 = simpson(0.0, math.pi, n)
        i2 = simpson(0.0, math.pi, 2 * n)
        print("seconds", time.monotonic() - t0)
    print("result", repr(i1), repr(i2), repr((i2 - i1) / 15.0))

main()
