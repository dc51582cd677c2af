#!/usr/bin/env python3
"""Reference model of Brine's reductions (SPEC 5.1-5.3), for deriving golden outputs.

Independent of the compiler: it follows the SPEC text literally.
  - seq(reducer, elems, kind): the left fold of SPEC 5.1.
  - par(reducer, elems, kind): leaves of 16 folded from the start value, then the
    level-by-level tree of SPEC 5.2 (a partner-less node moves up; a leaf whose
    elements were all filtered out keeps its place without a value).

Elements are given as a list where a filtered-out element is FILTERED, so leaf
positions stay those of the unfiltered iteration. An element may also be a
Panic(msg) object: evaluating it panics (SPEC 5.3 post-order picks the first).
kind is "int" (64-bit checked), "i128", "u64" or "float". Integer overflow and
element panics come back as a Panic raised as the exception PanicError, so a
caller can print the message it would produce.
"""
import math
import sys

LEAF = 16
FILTERED = object()


class Panic:
    def __init__(self, msg):
        self.msg = msg


class PanicError(Exception):
    def __init__(self, msg):
        super().__init__(msg)
        self.msg = msg


RANGES = {
    "int": (-(1 << 63), (1 << 63) - 1),
    "i128": (-(1 << 127), (1 << 127) - 1),
    "u64": (0, (1 << 64) - 1),
}


def _check(kind, v, what):
    if kind in RANGES:
        lo, hi = RANGES[kind]
        if not lo <= v <= hi:
            raise PanicError("integer overflow in " + what)
    return v


def _op(reducer, kind, a, b):
    """a OP b, a being the running (left) value."""
    if reducer == "sum":
        if kind == "float":
            return a + b
        return _check(kind, a + b, "addition")
    if reducer == "product":
        if kind == "float":
            return a * b
        return _check(kind, a * b, "multiplication")
    if reducer == "min":
        return b if b < a else a
    if reducer == "max":
        return b if b > a else a
    if reducer == "any":
        return a or b
    if reducer == "all":
        return a and b
    raise ValueError(reducer)


def start(reducer, kind):
    if reducer == "sum":
        return 0.0 if kind == "float" else 0
    if reducer == "product":
        return 1.0 if kind == "float" else 1
    if reducer == "any":
        return False
    if reducer == "all":
        return True
    return None  # min/max: the first element


def _value(e):
    if isinstance(e, Panic):
        raise PanicError(e.msg)
    return e


def fold(reducer, elems, kind):
    """Fold elems left to right (a leaf, or the whole sequence). Returns
    (has_value, value). any/all stop at the deciding element."""
    has = reducer not in ("min", "max")
    acc = start(reducer, kind)
    for e in elems:
        if e is FILTERED:
            continue
        v = _value(e)
        if not has:
            acc, has = v, True
            continue
        acc = _op(reducer, kind, acc, v)
        if reducer == "any" and acc:
            return True, True
        if reducer == "all" and not acc:
            return True, False
    return has, acc


def seq(reducer, elems, kind):
    has, v = fold(reducer, elems, kind)
    if not has:
        raise PanicError(reducer + " of an empty sequence")
    return v


def par(reducer, elems, kind):
    """The tree of SPEC 5.2, computed in the post-order of SPEC 5.3 so that
    the first panic met is the one reported."""
    if reducer in ("any", "all"):
        # SPEC 5.3: exactly the sequential result, including which panic.
        return seq(reducer, elems, kind)
    n = len(elems)
    nleaves = (n + LEAF - 1) // LEAF

    def node(level, j):
        """Covers leaves [j*2^level, (j+1)*2^level) clipped to nleaves."""
        if level == 0:
            return fold(reducer, elems[j * LEAF:(j + 1) * LEAF], kind)
        left_first = (2 * j) << (level - 1)
        right_first = (2 * j + 1) << (level - 1)
        lhas, lv = node(level - 1, 2 * j)
        if right_first >= nleaves:
            return lhas, lv  # no partner: moves up unchanged
        rhas, rv = node(level - 1, 2 * j + 1)
        if not lhas:
            return rhas, rv
        if not rhas:
            return lhas, lv
        return True, _op(reducer, kind, lv, rv)

    if nleaves == 0:
        has, v = False, None
    else:
        top = 0
        while (1 << top) < nleaves:
            top += 1
        has, v = node(top, 0)
    if not has:
        if reducer in ("min", "max"):
            raise PanicError(reducer + " of an empty sequence")
        return start(reducer, kind)
    return v


def fmt(v):
    """A value as Brine prints it (SPEC 6.2)."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        return repr(v)
    return str(v)


if __name__ == "__main__":
    # Self-check against the seed (seeds/000_*.txt): the harmonic program.
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 10_000_000
    xs = [1.0 / float(i) for i in range(1, n + 1)]
    print("par sum:", fmt(par("sum", xs, "float")))
    print("sum:    ", fmt(seq("sum", xs, "float")))
