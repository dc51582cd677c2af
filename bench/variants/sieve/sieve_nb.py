# sieve_nb.py: the numba version of the sieve (a preallocated int array stands
# in for push; numba has typed lists, but this is how a numba user writes it).
import os, time
import numpy as np
from numba import njit

@njit
def sieve(n):
    composite = np.zeros(n + 1, dtype=np.bool_)
    primes = np.empty(n // 2 + 1, dtype=np.int64)
    count = 0
    i = 2
    while i <= n:
        if not composite[i]:
            primes[count] = i
            count += 1
            j = i * i
            while j <= n:
                composite[j] = True
                j += i
        i += 1
    return primes[:count]

def main():
    reps = int(os.environ.get("BENCH_REPS", "5"))
    n = 10_000_000
    p = sieve(n)
    for _ in range(reps):
        t0 = time.monotonic()
        p = sieve(n)
        print("seconds", time.monotonic() - t0)
    print("result", len(p), int(p[-1]), int(p.sum()))

main()
