#!/usr/bin/env python3
"""Random cases of reduce, scan and by (SPEC 15) against tests/tools/fold_ref.py.

Builds tests/fold/fold_cases.br once (dev, and with --release a release
build too), feeds it CASES random cases (sizes at the leaf and unit edges,
filters, NaN, -0.0, inf, keys at the edges) and compares every printed line
with the model, bit for bit (the text of a float is its shortest repr), at
each BRINE_THREADS. --blocks: only cases of 33 to 3,000 keys and 16
elements a key or more (the stamps way, runtime/keyed.c), the keyed forms
by fold_ref's keyed_sparse (checked first against keyed on small cases). Usage: fold_check.py BRINE [CASES] [SEED]
[--release] [--blocks]
"""
import math
import os
import random
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fold_ref as R  # noqa: E402
from tree_ref import FILTERED  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
PROG = os.path.join(HERE, "..", "fold", "fold_cases.br")
M64 = (1 << 64) - 1


def wrap(v):
    v &= M64
    return v - (1 << 64) if v >> 63 else v


def fmt(v):
    if v is None:
        return "None"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        if math.isnan(v):
            return "nan"
        return repr(v)
    if isinstance(v, list):
        return "[" + ", ".join(fmt(x) for x in v) + "]"
    if isinstance(v, tuple):
        return '("%s", %d)' % v
    return str(v)


def some(v):
    if isinstance(v, str):
        return 'Some("%s")' % v
    return "None" if v is None else "Some(%s)" % fmt(v)


def fopt(xs):
    return "[" + ", ".join(some(v) for v in xs) + "]"


def mix(a, b):
    return a * 0.5 + b


def imix(a, b):
    return wrap(wrap(a * 3) + b)


def first_nan(a, b):
    return b if a < b else a - b


def fadd(a, b):
    return a + b


def fmul(a, b):
    return a * b


def fmin(a, b):
    return b if b < a else a


def fmax(a, b):
    return b if b > a else a


def red(r):
    has, v = r
    return v


def expect_float(xs, ms, ks, nk):
    f = [x if m else FILTERED for x, m in zip(xs, ms)]
    out = []
    out.append(fmt(red(R.seq_reduce(mix, 0.0, f))))
    out.append(fmt(red(R.par_reduce(mix, 0.0, f))))
    out.append(fmt(red(R.par_reduce(first_nan, -1.5, xs))))
    out.append(fmt(red(R.par_reduce(fadd, 0.0, f))))
    out.append(fmt(R.seq_scan(fadd, 0.0, f)))
    out.append(fmt(R.par_scan(fadd, 0.0, f)))
    out.append(fmt(R.par_scan(fadd, 0.0, xs)))
    out.append(fmt(R.par_scan(fmul, 1.0, f)))
    out.append(fmt(R.par_scan(fmin, None, f)))
    out.append(fmt(R.par_scan(fmax, None, xs)))
    out.append(fmt(R.par_scan(mix, 1.0, f)))
    out.append(fmt(R.seq_scan(mix, 1.0, f)))
    out.append(fmt(R.keyed(fadd, 0.0, f, ks, nk, False)))
    out.append(fmt(R.keyed(fadd, 0.0, f, ks, nk, True)))
    out.append(fmt(R.keyed(fmul, 1.0, xs, ks, nk, True)))
    out.append(fopt(R.keyed(fmin, None, f, ks, nk, True)))
    out.append(fopt(R.keyed(fmax, None, xs, ks, nk, False)))
    out.append(fmt(R.keyed(mix, 0.0, f, ks, nk, True)))
    out.append(fmt(R.keyed(mix, 0.0, xs, ks, nk, False)))
    out.append(fmt(R.keyed(lambda a, b: a or b, False, [x > 100.0 for x in xs], ks, nk, True)))
    return out


def expect_int(xs, ms, ks, nk):
    f = [x if m else FILTERED for x, m in zip(xs, ms)]
    out = []
    out.append(fmt(red(R.seq_reduce(imix, 7, f))))
    out.append(fmt(red(R.par_reduce(imix, 7, f))))
    out.append(fmt(red(R.par_reduce(lambda a, b: a - b, 0, xs))))
    out.append(fmt(R.seq_scan(lambda a, b: a + b, 0, f)))
    out.append(fmt(R.par_scan(lambda a, b: a + b, 0, f)))
    out.append(fmt(R.par_scan(fmax, None, f)))
    out.append(fmt(R.par_scan(imix, 7, xs)))
    out.append(fmt(R.keyed(lambda a, b: a + b, 0, f, ks, nk, True)))
    out.append(fopt(R.keyed(fmax, None, xs, ks, nk, True)))
    out.append(fmt(R.keyed(imix, 7, f, ks, nk, True)))
    out.append(fmt(R.keyed(imix, 7, f, ks, nk, False)))
    out.append(fmt(R.keyed(lambda a, b: a and b, True, [x % 3 != 0 for x in xs], ks, nk, True)))
    # par reduce of values holding references (str, a tuple with a str)
    out.append(red(R.par_reduce(lambda a, b: "(" + a + "," + b + ")", "s", [str(x) if x is not FILTERED else x for x in f])))
    digits = [(str(int(math.fmod(x, 10))), x) for x in xs]  # % truncates
    r = red(R.par_reduce(lambda a, b: (a[0] + b[0], wrap(wrap(a[1] * 3) + b[1])), ("", 1), digits))
    out.append('("%s", %d)' % r)
    # scans and keys of values holding references
    ps = [(str(x), x) if x is not FILTERED else x for x in f]
    strs = [p if p is FILTERED else p[0] for p in ps]

    def tmix(a, b):
        return (b[0], wrap(wrap(a[1] * 3) + b[1]))
    out.append(fmt(R.par_scan(tmix, ("s", 7), ps)))
    out.append(fmt(R.keyed(tmix, ("s", 7), ps, ks, nk, True)))
    out.append(fmt(R.keyed(tmix, ("s", 7), ps, ks, nk, False)))
    out.append(fopt(R.keyed(fmin, None, strs, ks, nk, True)))
    out.append(fopt(R.keyed(fmax, None, [str(x) for x in xs], ks, nk, False)))
    return out


SIZES = [0, 1, 2, 15, 16, 17, 31, 32, 33, 47, 48, 49, 63, 64, 65, 127, 128, 129, 255, 256, 257]


def rand_float(rng):
    r = rng.random()
    if r < 0.03:
        return rng.choice([float("nan"), float("inf"), float("-inf")])
    if r < 0.10:
        return rng.choice([0.0, -0.0])
    if r < 0.15:
        return rng.choice([1e300, -1e300, 1e-300, 5e-324])
    if r < 0.5:
        return float(rng.randint(-20, 20))
    return rng.uniform(-1000.0, 1000.0)


def blocks_case(rng):
    """33 to 3,000 keys, 16 elements a key or more and more than 8,192 (the
    stamps way of runtime/keyed.c; sum and product from 129 keys), the last
    5 keys without an element"""
    nk = rng.choice([33, 100, 128, 129, 300, 1000, 2048, 2049, 2500, 3000])
    n = max(16 * nk, 8193) + rng.choice([0, 1, 15, 16, 17, rng.randint(0, 3000)])
    kind = "F" if rng.random() < 0.6 else "I"
    xs = [rand_float(rng) for _ in range(n)] if kind == "F" else [rng.randint(-1000, 1000) for _ in range(n)]
    p = rng.choice([0.0, 0.3, 0.9, 1.0])
    ms = [1 if rng.random() < p else 0 for _ in range(n)]
    ks = [rng.randrange(nk - 5) for _ in range(n)]
    ks[0], ks[-1] = 0, nk - 6
    return kind, nk, xs, ms, ks


def sparse_agrees(rng):
    """keyed_sparse against keyed on small random cases: how many differ"""
    bad = 0
    for _ in range(200):
        n, nk = rng.randint(0, 700), rng.randint(1, 40)
        xs = [rand_float(rng) if rng.random() > 0.2 else FILTERED for _ in range(n)]
        ks = [rng.randrange(nk) for _ in range(n)]
        for op, st in ((fadd, 0.0), (mix, 0.0), (fmin, None), (first_nan, None)):
            for par in (True, False):
                bad += repr(R.keyed(op, st, xs, ks, nk, par)) != repr(R.keyed_sparse(op, st, xs, ks, nk, par))
    return bad


def case(rng, big):
    n = rng.choice(SIZES) if not big else rng.randint(4000, 50000)
    if not big and rng.random() < 0.3:
        n = rng.randint(0, 600)
    kind = "F" if rng.random() < 0.6 else "I"
    # with the rows' edge (32, 33) and the key buckets' (64, 65)
    nk = rng.choice([0, 1, 2, 3, 16, 32, 33, 64, 65]) if rng.random() < 0.8 else rng.randint(0, 300)
    if kind == "F":
        xs = [rand_float(rng) for _ in range(n)]
    else:
        xs = [rng.randint(-1000, 1000) for _ in range(n)]
    p = rng.choice([0.0, 0.3, 0.9, 1.0])
    ms = [1 if rng.random() < p else 0 for _ in range(n)]
    ks = [rng.randrange(nk) if nk > 0 else 0 for _ in range(n)]
    if nk > 0 and n > 0:  # the edges
        ks[0] = 0
        ks[-1] = nk - 1
    if nk == 0:  # no key is in range: the unfiltered keyed forms would panic
        xs, ms, ks = [], [], []
    return kind, nk, xs, ms, ks


def text(kind, nk, xs, ms, ks):
    vals = " ".join(repr(x) if kind == "F" else str(x) for x in xs)
    return "%s %d\n%s\n%s\n%s\n" % (kind, nk, vals, " ".join(map(str, ms)), " ".join(map(str, ks)))


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    release = "--release" in sys.argv
    brine = args[0]
    ncases = int(args[1]) if len(args) > 1 else 400
    seed = int(args[2]) if len(args) > 2 else 1
    rng = random.Random(seed)
    if "--blocks" in sys.argv:
        bad = sparse_agrees(rng)
        if bad:
            print("fold_check: keyed_sparse differs from keyed in %d results" % bad)
            return 1
        R.keyed = R.keyed_sparse
        cases = [blocks_case(rng) for _ in range(ncases)]
    else:
        cases = [case(rng, i % 50 == 49) for i in range(ncases)]
    data = "".join(text(*c) for c in cases)
    want = []
    for kind, nk, xs, ms, ks in cases:
        fn = expect_float if kind == "F" else expect_int
        want.extend(fn(xs, ms, ks, nk))
    with tempfile.TemporaryDirectory() as tmp:
        exe = os.path.join(tmp, "fold_cases")
        cmd = [brine, "build", PROG, "-o", exe] + (["--release"] if release else [])
        subprocess.run(cmd, check=True)
        bad = 0
        for threads in ("1", "2", "7"):
            env = dict(os.environ, BRINE_THREADS=threads)
            got = subprocess.run([exe], input=data, capture_output=True, text=True, env=env)
            if got.returncode != 0:
                print("fold_check: exit %d at %s threads: %s" % (got.returncode, threads, got.stderr[-400:]))
                return 1
            lines = got.stdout.split("\n")[:-1]
            if len(lines) != len(want):
                print("fold_check: %d lines, the model has %d" % (len(lines), len(want)))
                return 1
            for i, (g, w) in enumerate(zip(lines, want)):
                if g != w:
                    bad += 1
                    if bad <= 5:
                        print("fold_check: line %d at %s threads:\n  got  %s\n  want %s" % (i + 1, threads, g[:300], w[:300]))
        forms = len(want)
        print("fold_check: %d cases, %d results x 3 thread counts%s: %s" %
              (ncases, forms, " (release)" if release else "", "all equal" if not bad else "%d differ" % bad))
        return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
