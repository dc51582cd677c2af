#!/usr/bin/env python3
"""tests/tools/literal_fold.py BRINE [SEED...]: literal expressions against a model.

Random expressions of integer literals alone (+ - * / % & | ^, unary - and ~,
wrapping_add/sub/mul on them) in let statements of type int, u64 and i128.
The model (Python integers) says which overflow or divide by zero at some
step: exactly those must be compile errors at their line; the others must
build and print the model's value. Prints one line per disagreement and a
summary per seed; exits 1 on any. About 2 s a seed (default seeds 1 and 2).
"""
import os
import random
import re
import subprocess
import sys
import tempfile

TYPES = {"int": (-(1<<63), (1<<63)-1), "u64": (0, (1<<64)-1), "i128": (-(1<<127), (1<<127)-1)}
class Err(Exception): pass
def lit(t):
    lo, hi = TYPES[t]
    c = RNG[0].random()
    if c < 0.3: v = RNG[0].randint(0, 20)
    elif c < 0.6: v = RNG[0].choice([hi, hi-1, hi//2, (hi+1)//2, 1<<32, 1<<62 if hi > 1<<62 else 7])
    else: v = RNG[0].randint(0, hi)
    return str(v), v
def gen(t, d):
    if d == 0 or RNG[0].random() < 0.25:
        s, v = lit(t)
        return s, v
    op = RNG[0].choice(["+", "-", "*", "/", "%", "&", "|", "^", "neg", "~", "wadd", "wmul", "wsub"])
    lo, hi = TYPES[t]
    bits = {"int": 64, "u64": 64, "i128": 128}[t]
    def fit(x):
        if x < lo or x > hi: raise Err()
        return x
    def wrap(x):
        x &= (1 << bits) - 1
        if t != "u64" and x >= 1 << (bits - 1): x -= 1 << bits
        return x
    if op in ("neg", "~"):
        s, v = gen(t, d - 1)
        if op == "neg":
            return f"-({s})", (lambda: fit(-value(v)))
        return f"~({s})", (lambda: (value(v) ^ ((1 << 64) - 1)) if t == "u64" else ~value(v))
    (sa, va), (sb, vb) = gen(t, d - 1), gen(t, d - 1)
    if op.startswith("w"):
        f = {"wadd": lambda a, b: a + b, "wmul": lambda a, b: a * b, "wsub": lambda a, b: a - b}[op]
        name = {"wadd": "wrapping_add", "wmul": "wrapping_mul", "wsub": "wrapping_sub"}[op]
        return f"({sa}).{name}({sb})", (lambda: wrap(f(value(va), value(vb))))
    def calc():
        a, b = value(va), value(vb)
        if op == "+": return fit(a + b)
        if op == "-": return fit(a - b)
        if op == "*": return fit(a * b)
        if op in "/%":
            if b == 0: raise Err()
            q = abs(a) // abs(b)
            if (a < 0) != (b < 0): q = -q
            if op == "/": return fit(q)
            return a - q * b
        if op == "&": return a & b
        if op == "|": return a | b
        if op == "^": return a ^ b
    return f"({sa} {op} {sb})", calc
def value(v):
    return v() if callable(v) else v

RNG = [None]


def one(B, seed, d):
    rng = RNG[0] = random.Random(seed)
    lines = ["fn main():"]
    want = {}
    for i in range(200):
        t = rng.choice(list(TYPES))
        s, v = gen(t, rng.randint(1, 4))
        try: r = value(v)
        except Err: r = None
        lines.append(f"    let x{i}: {t} = {s}")
        lines.append(f"    print(x{i})")
        want[len(lines) - 1] = r
    bad = 0
    items = list(want.items())
    errlines = set()
    for c in range(0, len(items), 15):
        chunk = items[c:c+15]
        body = ["fn main():"]
        mapping = {}
        for ln, r in chunk:
            body += [lines[ln-1], lines[ln]]
            mapping[len(body) - 1] = ln
        open(os.path.join(d, "p.br"), "w").write("\n".join(body) + "\n")
        res = subprocess.run([B, "build", "p.br", "-o", "p.exe"], cwd=d, capture_output=True, text=True)
        for m in re.findall(r"--> p\.br:(\d+):", res.stderr):
            errlines.add(mapping[int(m)])
        if "internal error" in res.stderr: print("INTERNAL", res.stderr[:300]); bad += 1
    for ln, r in want.items():
        if (r is None) != (ln in errlines):
            bad += 1
            print("MISMATCH line", ln, "want", "error" if r is None else r, "got", "error" if ln in errlines else "no error", lines[ln-1][:200])
    keep = ["fn main():"]; exp = []
    for ln, r in want.items():
        if r is not None and ln not in errlines:
            keep += [lines[ln-1], lines[ln]]; exp.append(str(r))
    open(os.path.join(d, "q.br"), "w").write("\n".join(keep) + "\n")
    res = subprocess.run([B, "run", "q.br"], cwd=d, capture_output=True, text=True)
    got = res.stdout.split("\n")[:-1]
    if got != exp:
        bad += 1
        print("RUN DIFF", res.returncode, res.stderr[:500])
        for a, b in zip(got, exp):
            if a != b: print(" got", a, "want", b); break
    print("seed", seed, "errors", len(errlines), "values", len(exp), "bad", bad)
    return bad


def main():
    if len(sys.argv) < 2:
        print("usage: literal_fold.py BRINE [SEED...]", file=sys.stderr)
        return 2
    B = os.path.realpath(sys.argv[1])
    seeds = [int(s) for s in sys.argv[2:]] or [1, 2]
    bad = 0
    with tempfile.TemporaryDirectory(prefix="brine-fold-") as d:
        for seed in seeds:
            bad += one(B, seed, d)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
