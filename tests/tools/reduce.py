#!/usr/bin/env python3
"""Shrinks a Brine program while a predicate (its failure class) keeps holding.

usage: reduce.py FILE.br PREDICATE [-o OUT.br] [--brine BRINE] [--timeout S]
PREDICATE (one):
  --internal            `brine build` fails with exit 70 and the same internal
                        error message (the text after "internal error:", up to
                        its place) as FILE.br
  --crash               a build succeeds and its run dies of the same signal
                        (at BRINE_THREADS=2; --release: the release build)
  --differs A B         the runs of configurations A and B differ (stdout,
                        stderr or status); a configuration is dev, release,
                        or either with options: dev:--opt=none,
                        release:--opt=-inline; threads with @: dev@7
  --stderr TEXT         the build's or the run's stderr contains TEXT
  --test CMD            a shell command; `{}` is the candidate's path; exit 0
                        means the candidate still fails the same way

The program is shrunk in passes until none changes it: whole statements
(a line with the lines indented under it: a function, a loop, an if with its
body) in halves, quarters, ... down to one at a time; a block's header
replaced by its body; then expressions: an operand of a binary operator in
place of the operation, one element of a list of arguments or items left
out, a literal replaced by 0, 1 or "". Each candidate is kept only if the
predicate still holds, so the result fails the same way and removing any
one more piece makes it pass or fail otherwise. The reduced program is
written to OUT.br (default FILE.reduced.br) after every step that shrank
it, so an interrupted run keeps its progress.
"""
import argparse
import os
import re
import shlex
import subprocess
import sys
import tempfile

TMP = tempfile.mkdtemp(prefix="brine-reduce-")


def build(brine, src, name, opts, timeout):
    """Writes src, builds it with opts: (exit status, stderr, exe)."""
    d = os.path.join(TMP, name)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "p.br"), "w") as f:
        f.write(src)
    exe = os.path.join(d, "p")
    try:
        b = subprocess.run([brine, "build", "--color=never", "p.br", "-o", exe] + opts, cwd=d,
                           capture_output=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, b"", exe
    return b.returncode, b.stderr, exe


def run(exe, threads, timeout):
    try:
        p = subprocess.run([exe], cwd=os.path.dirname(exe), capture_output=True, timeout=timeout,
                           stdin=subprocess.DEVNULL, env=dict(os.environ, BRINE_THREADS=str(threads), BRINE_GPU="off"))
    except subprocess.TimeoutExpired:
        return ("timeout", b"", b"")
    return (p.returncode, p.stdout, p.stderr)


def config(spec):
    """dev:--opt=none@7 -> (["--opt=none"], 7)."""
    threads = 2
    if "@" in spec:
        spec, t = spec.rsplit("@", 1)
        threads = int(t)
    mode, _, opts = spec.partition(":")
    if mode not in ("dev", "release"):
        sys.exit(f"reduce.py: a configuration is dev or release[:OPTIONS][@THREADS], got {spec!r}")
    return (["--release"] if mode == "release" else []) + opts.split(), threads


def internal_message(stderr):
    m = re.search(rb"internal error: (.*?)( at [^ ]+:\d+:\d+| \(compiler/|$)", stderr, re.M)
    return m.group(1) if m else None


def make_predicate(a, original):
    brine, to = a.brine, a.timeout
    if a.test:
        def pred(src):
            path = os.path.join(TMP, "cand.br")
            with open(path, "w") as f:
                f.write(src)
            cmd = a.test.replace("{}", shlex.quote(path))
            try:
                return subprocess.run(cmd, shell=True, capture_output=True, timeout=to * 4).returncode == 0
            except subprocess.TimeoutExpired:
                return False
        return pred
    if a.internal:
        rc, err, _ = build(brine, original, "orig", [], to)
        want = internal_message(err)
        if rc != 70 or want is None:
            sys.exit("reduce.py: the program does not stop with an internal error")

        def pred(src):
            rc, err, _ = build(brine, src, "cand", [], to)
            return rc == 70 and internal_message(err) == want
        return pred
    if a.crash:
        opts = ["--release"] if a.release else []

        def signal_of(src, name):
            rc, _, exe = build(brine, src, name, opts, to)
            if rc != 0:
                return None
            st = run(exe, 2, to)[0]
            return st if isinstance(st, int) and st < 0 else None
        want = signal_of(original, "orig")
        if want is None:
            sys.exit("reduce.py: the program does not die of a signal")
        return lambda src: signal_of(src, "cand") == want
    if a.differs:
        (oa, ta), (ob, tb) = config(a.differs[0]), config(a.differs[1])

        def pred(src):
            ra, _, ea = build(brine, src, "a", oa, to)
            if ra != 0:
                return False
            rb, _, eb = build(brine, src, "b", ob, to)
            return rb == 0 and run(ea, ta, to) != run(eb, tb, to)
        return pred
    if a.stderr:
        text = a.stderr.encode()

        def pred(src):
            rc, err, exe = build(brine, src, "cand", [], to)
            if text in err:
                return True
            return rc == 0 and text in run(exe, 2, to)[2]
        return pred
    sys.exit("reduce.py: give a predicate (--internal, --crash, --differs A B, --stderr TEXT or --test CMD)")


# ---- the shrinking passes ---------------------------------------------------------

def indent(line):
    return len(line) - len(line.lstrip(" "))


def units(lines):
    """(start, end) of every statement: a line and the deeper-indented lines after it."""
    out = []
    for i, l in enumerate(lines):
        if not l.strip():
            continue
        j = i + 1
        while j < len(lines) and (not lines[j].strip() or indent(lines[j]) > indent(l)):
            j += 1
        out.append((i, j))
    return out


class Reducer:
    def __init__(self, src, pred, out):
        self.src, self.pred, self.out = src, pred, out
        self.tests = 0

    def attempt(self, cand):
        if cand == self.src or not cand.strip():
            return False
        self.tests += 1
        if self.pred(cand):
            self.src = cand
            with open(self.out, "w") as f:
                f.write(cand)
            return True
        return False

    def statements(self):
        """Leaves out runs of statements, from long runs down to one."""
        changed = False
        lines = self.src.split("\n")
        n = len(units(lines))
        chunk = max(1, n // 2)
        while chunk >= 1:
            i = 0
            while True:
                lines = self.src.split("\n")
                us = units(lines)
                # non-overlapping units at the same level, chunk at a time
                if i >= len(us):
                    break
                sel, end = [], -1
                for s, e in us[i:]:
                    if s >= end:
                        sel.append((s, e))
                        end = e
                    if len(sel) == chunk:
                        break
                drop = set()
                for s, e in sel:
                    drop.update(range(s, e))
                cand = "\n".join(l for k, l in enumerate(lines) if k not in drop)
                if self.attempt(cand):
                    changed = True
                else:
                    i += 1
            chunk //= 2
        return changed

    def unwrap_blocks(self):
        """Replaces `if c:` / `for ...:` / `while ...:` by its body, dedented."""
        changed = False
        i = 0
        while True:
            lines = self.src.split("\n")
            heads = [(s, e) for s, e in units(lines) if e - s > 1 and re.match(r"\s*(if|elif|else|for|while)\b.*:$", lines[s])]
            if i >= len(heads):
                return changed
            s, e = heads[i]
            d = indent(lines[s + 1]) - indent(lines[s]) if s + 1 < e else 4
            body = [l[d:] if indent(l) >= d else l for l in lines[s + 1:e]]
            if self.attempt("\n".join(lines[:s] + body + lines[e:])):
                changed = True
            else:
                i += 1

    def expressions(self):
        """Operands for operations, fewer list elements, plainer literals."""
        changed = False
        k = 0
        while True:
            edits = list(expression_edits(self.src))
            if k >= len(edits):
                return changed
            if self.attempt(edits[k]):
                changed = True
                k = 0 if k == 0 else k - 1
            else:
                k += 1

    def run(self):
        while True:
            c = self.statements()
            c |= self.unwrap_blocks()
            c |= self.expressions()
            if not c:
                return self.src


OPEN, CLOSE = "([", ")]"


def spans(line):
    """(start, end) of each bracketed group's inside, and of each top-level
    comma-separated element in it."""
    stack, out = [], []
    in_str = False
    for i, ch in enumerate(line):
        if ch == '"' and (i == 0 or line[i - 1] != "\\"):
            in_str = not in_str
        if in_str:
            continue
        if ch in OPEN:
            stack.append(i)
        elif ch in CLOSE and stack:
            out.append((stack.pop() + 1, i))
    return out


def elements(line, s, e):
    """The top-level comma-separated pieces of line[s:e]."""
    depth, start, out, in_str = 0, s, [], False
    for i in range(s, e):
        ch = line[i]
        if ch == '"' and line[i - 1] != "\\":
            in_str = not in_str
        if in_str:
            continue
        if ch in OPEN:
            depth += 1
        elif ch in CLOSE:
            depth -= 1
        elif ch == "," and depth == 0:
            out.append((start, i))
            start = i + 1
    out.append((start, e))
    return out


def depth_at(line, start, stop):
    """Bracket depth (strings skipped) of each position in line[start:stop], relative to start."""
    depth, in_str, out = 0, False, []
    for i in range(start, stop):
        ch = line[i]
        if ch == '"' and line[i - 1] != "\\":
            in_str = not in_str
        out.append(-1 if in_str else depth)
        if not in_str:
            depth += ch in OPEN
            depth -= ch in CLOSE
    return out


def top_level_find(line, kw, start, stop):
    ds = depth_at(line, start, stop)
    k = line.find(kw, start, stop)
    while k >= 0 and ds[k - start] != 0:
        k = line.find(kw, k + 1, stop)
    return k


def top_level_rfind(line, kw, start, stop):
    ds = depth_at(line, start, stop)
    k = line.rfind(kw, start, stop)
    while k >= 0 and ds[k - start] != 0:
        k = line.rfind(kw, start, k)
    return k


BINOP = re.compile(r" (\+|-|\*|/|%|&|\||\^|<<|>>|==|!=|<=|>=|<|>|and|or) ")


def expression_edits(src):
    lines = src.split("\n")
    for n, line in enumerate(lines):
        if not line.strip() or line.lstrip().startswith(("fn ", "struct ", "#", "import ")):
            continue

        def with_line(new):
            return "\n".join(lines[:n] + [new] + lines[n + 1:])
        groups = spans(line)
        if indent(line) > 0 and line.strip() != "pass" and not line.rstrip().endswith(":"):
            yield with_line(" " * indent(line) + "pass")
        # one element of a list of items or arguments left out
        for s, e in groups:
            els = elements(line, s, e)
            if len(els) > 1:
                for a, b in els:
                    if b < e:
                        yield with_line(line[:a] + line[b + 1:].lstrip() if a == s else line[:a] + line[b + 1:])
                    else:
                        yield with_line(line[:a - 1] + line[b:])
        # an operand in place of the operation, inside the innermost group or element
        for m in BINOP.finditer(line):
            i, j = m.start(), m.end()
            lo, hi = 0, len(line)
            for s, e in groups:
                if s <= i < e and s > lo:
                    lo, hi = s, e
            for a, b in elements(line, lo, hi) if (lo, hi) != (0, len(line)) else [(0, len(line))]:
                if a <= i < b:
                    lo, hi = a, b
            # a generator's element or an if-expression's arm ends at its keyword
            for kw in (" for ", " if ", " else "):
                k = top_level_find(line, kw, j, hi)
                if k >= 0:
                    hi = k
            for kw in (" in ", " if ", " else ", "return ", "= ", "print("):
                k = top_level_rfind(line, kw, lo, i)
                if k >= 0:
                    lo = k + len(kw)
            left, right = line[lo:i], line[j:hi]
            lead = len(left) - len(left.lstrip())
            if left.strip() and right.strip():
                # the operand nearest the operator: the rest of a chain stays
                yield with_line(line[:i] + line[hi:])
                yield with_line(line[:lo + lead] + line[j:])
        # a group's inside in place of a call (f(x) -> x) or a paren
        for s, e in groups:
            if line[s - 1] == "(" and "," not in line[s:e]:
                k = s - 1
                while k > 0 and (line[k - 1].isalnum() or line[k - 1] in "_."):
                    k -= 1
                if k < s - 1:
                    yield with_line(line[:k] + line[s:e] + line[e + 1:])
        # plainer literals
        for m in re.finditer(r"(?<![\w.])(0x[0-9a-fA-F_]+|0b[01_]+|\d[\d_]*\.\d+(e[+-]?\d+)?|\d[\d_]{1,})(?![\w.])", line):
            for v in ("0", "1"):
                if m.group(0) != v:
                    yield with_line(line[:m.start()] + (v + ".0" if "." in m.group(0) else v) + line[m.end():])
        for m in re.finditer(r'"(?:[^"\\]|\\.)+"', line):
            yield with_line(line[:m.start()] + '""' + line[m.end():])


def main():
    ap = argparse.ArgumentParser(usage=__doc__.split("\n\n")[1].split("\n")[0].replace("usage: ", ""))
    ap.add_argument("file")
    ap.add_argument("-o", "--out")
    ap.add_argument("--brine", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../build/bin/brine"))
    ap.add_argument("--timeout", type=int, default=30)
    ap.add_argument("--internal", action="store_true")
    ap.add_argument("--crash", action="store_true")
    ap.add_argument("--release", action="store_true", help="with --crash: the release build")
    ap.add_argument("--differs", nargs=2, metavar=("A", "B"))
    ap.add_argument("--stderr")
    ap.add_argument("--test")
    a = ap.parse_args()
    a.brine = os.path.abspath(a.brine)
    with open(a.file) as f:
        src = f.read()
    pred = make_predicate(a, src)
    if not pred(src):
        sys.exit("reduce.py: the predicate does not hold for the program as given")
    out = a.out or re.sub(r"\.br$", "", a.file) + ".reduced.br"
    r = Reducer(src, pred, out)
    with open(out, "w") as f:
        f.write(src)
    res = r.run()
    print(f"{len(src.splitlines())} lines -> {len(res.splitlines())} lines, {len(src)} -> {len(res)} bytes, "
          f"{r.tests} candidates tried; written to {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
