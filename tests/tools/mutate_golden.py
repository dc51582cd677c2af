#!/usr/bin/env python3
"""Mutation fuzzing of brine with the golden programs.

usage: mutate_golden.py BRINE [-n COUNT] [--seed S] [-j N] [--keep DIR] [--run]

Takes the golden tests (tests/golden/**/*.br), applies a few random edits to
one (delete, duplicate or swap characters, tokens or lines; insert a keyword,
operator, bracket, literal or odd byte; change indentation; replace a number
by an extreme one) and builds it with `brine build`. brine must exit 0 or 1
within the timeout, with no signal; exit 1 must print a diagnostic
("error: ..." and a "-->" line) and leave no executable. Exit 70 (internal
error) is always a finding. With --run, a program that builds is also run
(5 s, BRINE_THREADS=2): it may exit with any status or time out, but must
not die of a signal. Findings are saved under --keep (default
/tmp/brine-mutate) as SEED.br; the last line is "N mutants, N findings".
"""
import argparse
import concurrent.futures as cf
import glob
import os
import random
import re
import subprocess
import sys
import tempfile

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "golden")
INSERTS = ["(", ")", "[", "]", ":", ",", ".", "..", "..=", "=", "+=", "-", "*", "/", "%",
           "<<", ">>", "~", "not ", " and ", " or ", " if ", " else ", " for ", " in ",
           "par ", "sum(", "min(", "let ", "var ", "fn ", "return ", "break", "continue",
           "pass", "import ", "\n", "\n    ", "    ", "\t", "\r", "\\", "\"", "f\"", "{", "}",
           "#", "0x", "0b", "_", "1e", "1.", ".5", "9223372036854775808",
           "-9223372036854775808", "18446744073709551616", "340282366920938463463374607431768211456",
           "1e400", "[]", "[[]]", "\"\"", "xs", "os.", "os.args()", "random.", "math.", "\x00",
           "\xff", "é", "u64(", "i128(", ".wrapping_add(", ".push(", "print(", "len(",
           "str(", "f\"{", ":>10}", ":.3f}", ":,}", "\\u{", "\\u{110000}"]
NUMS = ["0", "-1", "9223372036854775807", "-9223372036854775808", "9223372036854775808",
        "18446744073709551615", "170141183460469231731687303715884105727", "1_0", "0x_1",
        "1__0", "0b2", "1e309", "4.9e-324", "0.0", "-0.0", "100000000000"]


def mutate(src, r):
    for _ in range(r.randint(1, 4)):
        if not src:
            src = r.choice(INSERTS)
            continue
        c = r.randrange(9)
        i = r.randrange(len(src))
        if c == 0:
            j = min(len(src), i + r.randint(1, 8))
            src = src[:i] + src[j:]
        elif c == 1:
            src = src[:i] + r.choice(INSERTS) + src[i:]
        elif c == 2:
            lines = src.split("\n")
            k = r.randrange(len(lines))
            lines.insert(k, lines[r.randrange(len(lines))])
            src = "\n".join(lines)
        elif c == 3:
            lines = src.split("\n")
            k = r.randrange(len(lines))
            del lines[k]
            src = "\n".join(lines)
        elif c == 4:
            lines = src.split("\n")
            k = r.randrange(len(lines))
            lines[k] = r.choice(["", " ", "  ", "        ", "\t"]) + lines[k].lstrip(" ")
            src = "\n".join(lines)
        elif c == 5:
            nums = list(re.finditer(r"\b\d[\d_]*(\.\d+)?\b", src))
            if nums:
                m = r.choice(nums)
                src = src[:m.start()] + r.choice(NUMS) + src[m.end():]
        elif c == 6:
            toks = list(re.finditer(r"[A-Za-z_][A-Za-z0-9_]*|\S", src))
            if len(toks) > 2:
                a, b = sorted(r.sample(toks, 2), key=lambda m: m.start())
                src = src[:a.start()] + b.group() + src[a.end():b.start()] + a.group() + src[b.end():]
        elif c == 7:
            toks = list(re.finditer(r"[A-Za-z_][A-Za-z0-9_]*", src))
            if toks:
                m = r.choice(toks)
                other = r.choice(toks).group()
                src = src[:m.start()] + other + src[m.end():]
        else:
            j = min(len(src), i + r.randint(1, 30))
            src = src[:i] + src[i:j] * r.randint(2, 5) + src[j:]
    return src


def check(brine, seed, base, src, tmp, run, timeout):
    d = os.path.join(tmp, str(seed))
    os.makedirs(d, exist_ok=True)
    # modules imported by the golden test must stay reachable
    bdir = os.path.dirname(base)
    for m in glob.glob(os.path.join(bdir, "*.br")):
        if not os.path.exists(m[:-3] + ".out"):
            dst = os.path.join(d, os.path.basename(m))
            if not os.path.exists(dst):
                os.symlink(m, dst)
    path = os.path.join(d, "m.br")
    with open(path, "wb") as f:
        f.write(src.encode("utf-8", "surrogateescape"))
    exe = os.path.join(d, "m")
    try:
        p = subprocess.run([brine, "build", "m.br", "-o", exe], cwd=d, capture_output=True,
                           timeout=timeout, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        return "build timed out"
    err = p.stderr.decode(errors="replace")
    if p.returncode < 0:
        return f"build: signal {-p.returncode}"
    if p.returncode not in (0, 1):
        return f"build exit {p.returncode}: {err[:400]}"
    if p.returncode == 1:
        if not err.startswith("error:") or "-->" not in err:
            return f"exit 1 without a diagnostic: {err[:300]}"
        if os.path.exists(exe):
            return "exit 1 but an executable was written"
        return ""
    if run:
        try:
            q = subprocess.run([exe], cwd=d, capture_output=True, timeout=5,
                               stdin=subprocess.DEVNULL, env=dict(os.environ, BRINE_THREADS="2"))
            if q.returncode < 0:
                return f"run: signal {-q.returncode}"
        except subprocess.TimeoutExpired:
            pass
        os.unlink(exe)
    return ""


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("brine")
    ap.add_argument("-n", type=int, default=500)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("-j", type=int, default=2)
    ap.add_argument("--timeout", type=int, default=20)
    ap.add_argument("--keep", default="/tmp/brine-mutate")
    ap.add_argument("--run", action="store_true")
    a = ap.parse_args()
    brine = os.path.abspath(a.brine)
    tests = sorted(p for p in glob.glob(os.path.join(ROOT, "**", "*.br"), recursive=True)
                   if os.path.exists(p[:-3] + ".out"))
    os.makedirs(a.keep, exist_ok=True)
    bad = 0
    with tempfile.TemporaryDirectory(prefix="brine-mut-") as tmp, cf.ThreadPoolExecutor(a.j) as ex:
        futs = {}
        for s in range(a.seed, a.seed + a.n):
            r = random.Random(s)
            base = r.choice(tests)
            with open(base, encoding="utf-8", errors="surrogateescape") as f:
                src = mutate(f.read(), r)
            futs[ex.submit(check, brine, s, base, src, tmp, a.run, a.timeout)] = (s, base, src)
        for fu in cf.as_completed(futs):
            s, base, src = futs[fu]
            res = fu.result()
            if res:
                bad += 1
                with open(os.path.join(a.keep, f"{s}.br"), "wb") as f:
                    f.write(src.encode("utf-8", "surrogateescape"))
                print(f"seed {s} ({os.path.relpath(base, ROOT)}): {res}", flush=True)
    print(f"{a.n} mutants, {bad} findings")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
