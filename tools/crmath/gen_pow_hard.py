#!/usr/bin/env python3
"""gen_pow_hard.py: hard-to-round cases of pow(x, y) for tests/math/hard.txt.

x^y is never exactly a midpoint between two doubles outside the exact
cases (which tests/math/check_math.c builds itself), but near 1 it comes
close: for x = 1 + k 2^-52 (or 1 - k 2^-53) and y = j/2^t (or a few ulps from it), x^y = 1 +
y k 2^-52 + y (y - 1)/2 k^2 2^-104 + ..., whose first two terms can sit
on a midpoint, leaving the result within about 2^-100 of it. This script
computes each candidate's distance to the nearest midpoint with mpmath at
600 bits and prints the N nearest (`pow X Y`, hexadecimal floats), after a
comment line per case with the number of bits between the round bit and
the first that tells the result from the midpoint.

    python3 tools/crmath/gen_pow_hard.py [N]
"""
import sys
from mpmath import mp, mpf, floor, log

mp.prec = 600


def hardness(x, y):
    """bits after the round bit that agree with a midpoint; None if exact"""
    v = mpf(x) ** mpf(y)
    if v == 0:
        return None
    e = int(floor(log(v, 2)))
    m = v * mpf(2) ** (52 - e)
    while m >= 2 ** 53:
        m /= 2
    while m < 2 ** 52:
        m *= 2
    d = abs(m - floor(m) - mpf(0.5))
    if d == 0:
        return None
    return int(-log(d, 2)) - 1


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    found, seen = [], set()
    for k in range(1, 25):
        for x in (1 + k * 2.0 ** -52, 1 - k * 2.0 ** -53):
            for t in range(0, 4):
                for j in range(1, 49):
                    for s in (1, -1):
                        for i in range(-3, 4):  # y and its neighbours, a few ulps away
                            y = s * j / 2.0 ** t * (1 + i * 2.0 ** -52)
                            if (x, y) in seen:
                                continue
                            seen.add((x, y))
                            h = hardness(x, y)
                            if h is not None and h >= 40:
                                found.append((h, x, y))
    found.sort(key=lambda c: (-c[0], c[1], c[2]))
    print("# near-midpoint cases of pow near 1, tools/crmath/gen_pow_hard.py (mpmath, 600 bits)")
    for h, x, y in found[:n]:
        print("pow %s %s # %d" % (x.hex(), y.hex(), h))


if __name__ == "__main__":
    main()
