#!/usr/bin/env python3
"""tests/lsp/fuzz_lsp.py BRINE [-n FILES] [--seed S]: half-typed files through `brine lsp`.

The front end's fuzz corpus (tests/fuzz/corpus/ when it is there) and the golden
programs mutated as an editor sees them while someone types: each program cut
off at every line, and with random spans deleted, random tokens inserted and
lines duplicated. Every version is sent as a change to one server, with a
hover, a completion, a signature help and a definition at a random place of
it. The server must answer every request, publish diagnostics for every
version, never report an internal error, and its memory must stay flat
(VmRSS after the run within 16 MiB of what it was after the first programs).
"""
import argparse
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import lspclient  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TOKENS = ["(", ")", "[", "]", ":", ".", ",", "=", "par ", "fn ", "let ", "for ", " in ", "..", "\n", "    ",
          "if ", "else:", "return", "\"", "f\"{", "}", "lambda x: ", "struct ", "import ", "#", "0x", "1e", "Some(",
          "None", "and ", "-", "*", "\t", "\\", "é", "\x00"]


def rss_kib(pid):
    for line in open("/proc/%d/status" % pid):
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def mutations(text, rng, cut_every_line):
    lines = text.split("\n")
    if cut_every_line:
        for i in range(1, len(lines)):
            yield "\n".join(lines[:i]) + "\n"
            # cut inside the line too: the half-typed state
            yield "\n".join(lines[:i]) + "\n" + lines[i][:len(lines[i]) // 2]
    for _ in range(6):
        t = text
        kind = rng.randrange(4)
        if kind == 0 and t:
            a = rng.randrange(len(t))
            t = t[:a] + t[a + rng.randrange(1, 40):]
        elif kind == 1:
            a = rng.randrange(len(t) + 1)
            t = t[:a] + rng.choice(TOKENS) + t[a:]
        elif kind == 2 and lines:
            k = rng.randrange(len(lines))
            t = "\n".join(lines[:k] + [lines[k]] * 2 + lines[k + 1:])
        else:
            for _ in range(rng.randrange(1, 8)):
                if t:
                    a = rng.randrange(len(t))
                    t = t[:a] + rng.choice(TOKENS) + t[a + rng.randrange(0, 3):]
        yield t


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("brine")
    ap.add_argument("-n", type=int, default=0, help="golden programs to use (0: all)")
    ap.add_argument("--cut-files", type=int, default=40, help="programs cut at every line")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    programs = []
    corpus = os.path.join(ROOT, "tests", "fuzz", "corpus")
    for base in [corpus, os.path.join(ROOT, "tests", "golden")]:
        for d, _, files in os.walk(base):
            for f in sorted(files):
                if f.endswith(".br") or base == corpus:
                    programs.append(os.path.join(d, f))
    programs.sort()
    from_corpus = sum(1 for p in programs if p.startswith(corpus))
    goldens = [p for p in programs if not p.startswith(corpus)]
    rng.shuffle(goldens)
    if args.n:
        goldens = goldens[:args.n]
    cut = set(goldens[:args.cut_files])
    c = lspclient.Client(os.path.abspath(args.brine))
    uri = "file://" + ROOT + "/tests/lsp/fuzzed.br"
    version = 1
    c.open(uri, "fn main():\n    pass\n", version)
    versions = requests = internal = 0
    rss0 = None
    for n, p in enumerate([q for q in programs if q.startswith(corpus)] + goldens):
        text = open(p, "rb").read().decode("utf-8", errors="replace")
        for t in [text] + list(mutations(text, rng, p in cut)):
            version += 1
            c.change(uri, t, version)
            diags = c.wait_diagnostics(uri, version)
            versions += 1
            for d in diags:
                if "internal error" in d["message"]:
                    internal += 1
                    print("internal error on a version of %s: %s" % (p, d["message"]))
                    with open(os.environ.get("LSP_FUZZ_SAVE", "/dev/null"), "a") as out:
                        out.write("# ---- %s\n%s\n" % (p, t))
            lines = t.split("\n")
            line = rng.randrange(len(lines))
            col = rng.randrange(len(lines[line]) + 2)
            for method in ("textDocument/hover", "textDocument/completion", "textDocument/signatureHelp",
                           "textDocument/definition"):
                r = c.request(method, c.pos(uri, line, col))
                if isinstance(r, dict) and "__error__" in r:
                    print("FAIL: %s at %d:%d of a version of %s: %r" % (method, line, col, p, r))
                    sys.exit(1)
                requests += 1
        if n == 50:
            rss0 = rss_kib(c.proc.pid)
    rss1 = rss_kib(c.proc.pid)
    code = c.close()
    print("lsp fuzz: %d programs (%d from the fuzz corpus), %d versions, %d requests, %d internal errors; "
          "server memory %d KiB after 50 programs, %d KiB at the end" %
          (len(goldens) + from_corpus, from_corpus, versions, requests, internal, rss0 or 0, rss1))
    if code != 0:
        print("FAIL: the server did not exit 0")
        sys.exit(1)
    if internal:
        print("FAIL: internal errors")
        sys.exit(1)
    if rss0 and rss1 - rss0 > 16384:
        print("FAIL: the server's memory grew by %d KiB" % (rss1 - rss0))
        sys.exit(1)


if __name__ == "__main__":
    main()
