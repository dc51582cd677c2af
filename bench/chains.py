#!/usr/bin/env python3
"""bench/chains.py: what the panic call chains cost on bench/workloads/.

Each call of a user function writes its place into the thread's slot before
the call and clears it after (runtime/frames.c). This script builds every
workload with brine --release --cpu=native three ways and counts the
instructions each runs with valgrind --tool=callgrind (BRINE_THREADS=1,
BENCH_REPS=1; independent of the machine's load). Every build goes through
this script as $CC, which adds -mno-avx512f: valgrind 3.19 cannot run
AVX-512 instructions, so --cpu=native means AVX2 here.

  none  the same C with every slot store taken out (the $CC script
        deletes the `fp_[0] = ...;` lines; the
        slot parameter is then unused, and gcc drops it from the static
        functions): what the program costs without chains;
  old   the C of another brine build (--old BRINE), as it is, beside its
        own "old none";
  new   the C of this one (--brine), as it is.

With --wall N it also runs the none, old and new programs N times each,
interleaved (none, old, new, none, ...), BENCH_REPS=5 at 1 thread, and
prints the medians of their medians in ms. Read ratios of one run only.

    bench/chains.py [--brine B] [--old OLD] [--only adapt,sieve] [--wall 5]
"""
import argparse, os, re, shutil, statistics, subprocess, sys, tempfile, time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
SRC = os.path.join(HERE, "workloads")
sys.path.insert(0, HERE)
from benchlib import measure  # noqa: E402

# key, title, .br file, arguments (callgrind, wall)
WORKLOADS = [
    ("dot", "1 dot, norm, max 1e7", "dot.br", [], []),
    ("mvrows", "2a matvec rows 2000", "matvec_rows.br", [], []),
    ("mvnest", "2b matvec nested 2000", "matvec_nested.br", [], []),
    ("mvcols", "2c matvec cols 2000", "matvec_cols.br", [], []),
    ("matmul", "3 matmul ikj 300", "matmul.br", [], []),
    ("simpson", "4 Simpson 1e7 + Runge", "simpson.br", [], []),
    ("adapt", "5 adaptive Simpson", "adaptive.br", [], []),
    ("mc", "6 Monte Carlo ball 1e7", "montecarlo.br", [], []),
    ("sieve", "7 sieve 1e7", "sieve.br", [], []),
    ("strings", "8 strings 1e6", "strings.br", [], []),
    ("mcball", "montecarlo_ball (calls)", "montecarlo_ball.br", ["1000000"], ["1000000"]),
]

SLOT_STORE = re.compile(r"^\s*(fp_|\(fp_ \+ \d+\))\[0\] = (&L\d+|NULL);\n", re.M)


def strip_cc(strip, args):
    """As $CC: cc with -mno-avx512f last; strip: the C files of the command line
    without their slot stores."""
    tmp = tempfile.mkdtemp(prefix="brine-chains-cc-")
    out = []
    for a in args:
        if strip and a.endswith(".c") and os.path.exists(a):
            with open(a) as f:
                text = SLOT_STORE.sub("", f.read())
            a = os.path.join(tmp, os.path.basename(a))
            with open(a, "w") as f:
                f.write(text)
        out.append(a)
    r = subprocess.run(["cc", *out, "-mno-avx512f"])
    shutil.rmtree(tmp)
    sys.exit(r.returncode)


def build(brine, src, exe, strip):
    env = dict(os.environ, CC=f"{sys.executable} {os.path.abspath(__file__)} --cc {int(strip)}")
    subprocess.run([brine, "build", "--release", "--cpu=native", src, "-o", exe], env=env, check=True,
                   stdout=subprocess.DEVNULL)


def instructions(exe, args):
    env = dict(os.environ, BRINE_THREADS="1", BENCH_REPS="1", BRINE_GPU="off")
    r = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", exe, *args],
                       env=env, capture_output=True, text=True)
    m = re.search(r"refs:\s+([\d,]+)", r.stderr)
    if r.returncode != 0 or not m:
        sys.exit(f"callgrind failed on {exe}: {r.stderr[-400:]}")
    res = [l for l in r.stdout.splitlines() if l.startswith("result")]
    return int(m.group(1).replace(",", "")), res


def main():
    if len(sys.argv) > 2 and sys.argv[1] == "--cc":
        strip_cc(sys.argv[2] == "1", sys.argv[3:])
    ap = argparse.ArgumentParser()
    ap.add_argument("--brine", default=os.path.join(ROOT, "build/bin/brine"))
    ap.add_argument("--old", help="another brine build, for the old column")
    ap.add_argument("--only", default="", help="comma-separated keys: " + ",".join(w[0] for w in WORKLOADS))
    ap.add_argument("--wall", type=int, default=0, help="also time each build N times, interleaved")
    a = ap.parse_args()
    only = [o for o in a.only.split(",") if o]
    todo = [w for w in WORKLOADS if not only or w[0] in only]
    tmp = tempfile.mkdtemp(prefix="brine-chains-")
    kinds = [("none", a.brine, True)] + ([("old none", a.old, True), ("old", a.old, False)] if a.old else []) + \
        [("new", a.brine, False)]
    rows = []
    for key, title, br, args, wargs in todo:
        exes, counts, results = {}, {}, {}
        for kind, brine, strip in kinds:
            exes[kind] = os.path.join(tmp, f"{key}_{kind.replace(' ', '_')}")
            build(brine, os.path.join(SRC, br), exes[kind], strip)
            counts[kind], results[kind] = instructions(exes[kind], args)
        if len({tuple(r) for r in results.values()}) != 1:
            sys.exit(f"{key}: the builds print different results: {results}")
        wall = {}
        if a.wall:
            times = {k: [] for k, _, _ in kinds}
            out = os.path.join(tmp, "out.txt")
            for _ in range(a.wall):
                for kind, _, _ in kinds:
                    t0 = time.perf_counter()
                    sec, _, _ = measure([exes[kind], *wargs], {"BRINE_THREADS": "1", "BENCH_REPS": "5",
                                                              "BRINE_GPU": "off"}, out)
                    # a program without `seconds` lines: its whole run
                    times[kind].append(sec if sec is not None else time.perf_counter() - t0)
            wall = {k: statistics.median(v) * 1e3 for k, v in times.items()}
        rows.append((title, counts, wall))
        print(f"  ({title} done)", file=sys.stderr, flush=True)
    shutil.rmtree(tmp)
    heads = ["workload"] + (["old none", "old", "old/old none"] if a.old else []) + ["none", "new", "new/none"]
    if a.wall:
        heads += ["ms none"] + (["ms old"] if a.old else []) + ["ms new", "ms new/none"]
    print("| " + " | ".join(heads) + " |")
    print("|" + "|".join("---" for _ in heads) + "|")
    for title, c, w in rows:
        cells = [title]
        if a.old:
            cells += [f"{c['old none']:,}", f"{c['old']:,}", f"{c['old'] / c['old none']:.3f}"]
        cells += [f"{c['none']:,}", f"{c['new']:,}", f"{c['new'] / c['none']:.3f}"]
        if a.wall:
            cells += [f"{w['none']:.2f}"] + ([f"{w['old']:.2f}"] if a.old else []) + \
                     [f"{w['new']:.2f}", f"{w['new'] / w['none']:.3f}"]
        print("| " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
