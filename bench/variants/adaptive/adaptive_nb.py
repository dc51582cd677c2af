# adaptive_nb.py: the numba version of adaptive.br (recursion returns a tuple).
import math, os, time
from numba import njit

@njit
def g(x):
    return 2.0 * x * math.cos(x * x)

@njit
def simpson(a, b, fa, fm, fb):
    return (b - a) / 6.0 * (fa + 4.0 * fm + fb)

@njit
def adapt(a, b, fa, fm, fb, whole, eps):
    m = (a + b) / 2.0
    flm = g((a + m) / 2.0)
    frm = g((m + b) / 2.0)
    left = simpson(a, m, fa, flm, fm)
    right = simpson(m, b, fm, frm, fb)
    delta = left + right - whole
    if abs(delta) <= 15.0 * eps:
        return left + right + delta / 15.0, 1
    l, ls = adapt(a, m, fa, flm, fm, left, eps / 2.0)
    r, rs = adapt(m, b, fm, frm, fb, right, eps / 2.0)
    return l + r, ls + rs

@njit
def integrate(a, b, eps):
    fa, fm, fb = g(a), g((a + b) / 2.0), g(b)
    return adapt(a, b, fa, fm, fb, simpson(a, b, fa, fm, fb), eps)

def main():
    reps = int(os.environ.get("BENCH_REPS", "5"))
    v = integrate(0.0, 200.0, 1e-7)
    for _ in range(reps):
        t0 = time.monotonic()
        v = integrate(0.0, 200.0, 1e-7)
        print("seconds", time.monotonic() - t0)
    print("result", repr(v[0]), v[1])

main()
