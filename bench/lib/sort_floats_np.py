"""bench: numpy.sort of the same N floats (default 10^7); argv: [N] [REPS]."""
import sys, time
import numpy as np

n = int(sys.argv[1]) if len(sys.argv) > 1 else 10_000_000
reps = int(sys.argv[2]) if len(sys.argv) > 2 else 5
with np.errstate(over="ignore"):
    z = np.uint64(7) * np.uint64(0x9E3779B97F4A7C15) + np.arange(n, dtype=np.uint64) + np.uint64(1)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    z ^= z >> np.uint64(31)
xs = (z >> np.uint64(11)).astype(np.float64) * 2.0**-53 * 2.0 - 1.0
mid = 0.0
for _ in range(reps):
    t0 = time.perf_counter()
    ys = np.sort(xs)  # a copy, sorted (numpy's default: introsort / SIMD sort)
    dt = time.perf_counter() - t0
    mid = ys[n // 2]
    print("seconds", dt)
print("result", repr(float(mid)))
