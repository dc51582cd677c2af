"""mpdouble.py: the helpers the table generators of tools/crmath/ share, to
turn mpmath values into exact C double literals.

- split(v, n): v as n doubles, each the nearest to what the ones before it
  leave (a double-double for n = 2, a triple-double for n = 3);
- lit(d, zero): d as a C hex literal, `zero` for 0.0 (the tables' spelling);
- row(vals): a C initialiser of lit()s;
- log2(v): log2 of an mpmath value as a float, for the bounds the
  generators print.
"""
import mpmath
from mpmath import mpf


def split(v, n):
    out = []
    for _ in range(n):
        d = float(v)  # mpmath -> float rounds to nearest
        out.append(d)
        v -= mpf(d)
    return out


def lit(d, zero="0x0p+0"):
    return zero if d == 0 else float.hex(d)


def row(vals):
    return "{" + ", ".join(lit(d) for d in vals) + "}"


def log2(v):
    return float(mpmath.log(v, 2))
