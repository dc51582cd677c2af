#!/usr/bin/env python3
"""bench/workloads.py: the seed chapter's workloads in Brine, C and numba, in one table.

Each workload in bench/workloads/ is a .br file, a .c file (plain loops; the par workloads
carry `#pragma omp` lines, so the same file built with -fopenmp is the OpenMP peer) and,
where it fits, a numba file (*_nb.py, prange for the par ones). Every program runs its kernel
once untimed, then BENCH_REPS timed times with a monotonic clock (setup excluded), printing
`seconds T` per rep and one `result ...` line. This script builds everything in a temp dir,
runs C, brine at BRINE_THREADS=1 and numba at NUMBA_NUM_THREADS=1, and for the par workloads
OpenMP, brine and numba at 2 threads, and prints one table of medians, ratios and peak RSS.

    bench/workloads.py [--brine build/bin/brine] [--reps 5] [--only dot,sieve] [--cpu native|generic]

It checks brine's result against C's: integers must be equal (a mismatch is marked
MISMATCH); floats of a par reduction may differ in the last bits (brine's fixed tree against
C's left fold), which the note column says. Brine at 2 threads must print the same result
as at 1 (marked when not). numba is skipped when it is not installed. Timings on shared
2-core machines are noisy: read ratios from one run, never across runs.
"""
import argparse, os, shutil, statistics, subprocess, sys, tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchlib import measure, print_table  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
SRC = os.path.join(HERE, "workloads")
CFLAGS = ["-O3", "-march=native", "-ffp-contract=off", "-Wno-unknown-pragmas"]

# name, brine file, C file, numba file and its arguments (None: no numba), par?
WORKLOADS = [
    ("dot",     "1 dot, norm, max 1e7",   "dot.br",            "dot.c",         ("dot_nb.py",),            True),
    ("mvrows",  "2a matvec rows 2000",    "matvec_rows.br",    "matvec_rows.c", ("matvec_nb.py", "rows"),  True),
    ("mvnest",  "2b matvec nested 2000",  "matvec_nested.br",  "matvec_rows.c", ("matvec_nb.py", "rows"),  True),
    ("mvcols",  "2c matvec cols 2000",    "matvec_cols.br",    "matvec_cols.c", ("matvec_nb.py", "cols"),  False),
    ("matmul",  "3 matmul ikj 300",       "matmul.br",         "matmul.c",      ("matmul_nb.py",),         True),
    ("simpson", "4 Simpson 1e7 + Runge",  "simpson.br",        "simpson.c",     ("simpson_nb.py",),        True),
    ("adapt",   "5 adaptive Simpson",     "adaptive.br",       "adaptive.c",    ("adaptive_nb.py",),       False),
    ("mc",      "6 Monte Carlo ball 1e7", "montecarlo.br",     "montecarlo.c",  ("montecarlo_nb.py",),     True),
    ("sieve",   "7 sieve 1e7",            "sieve.br",          "sieve.c",       ("sieve_nb.py",),          False),
    ("strings", "8 strings 1e6",          "strings.br",        "strings.c",     None,                      False),
]


run = measure


def is_int(tok):
    return tok.lstrip("-").isdigit()


def compare(c, b):
    """'same', 'float' (only float tokens differ) or 'int' (an integer or the shape differs)."""
    if len(c) != len(b):
        return "int"
    verdict = "same"
    for x, y in zip(c, b):
        if is_int(x) and is_int(y):
            if int(x) != int(y):
                return "int"
            continue
        try:
            if float(x) != float(y):
                verdict = "float"
        except ValueError:
            return "int"
    return verdict


def have_numba(py):
    return subprocess.run([py, "-c", "import numba"], capture_output=True).returncode == 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--brine", default=os.path.join(ROOT, "build/bin/brine"))
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--cpu", default="native", choices=["native", "generic"],
                    help="brine's --cpu for its release builds (native: as the C peers' -march=native)")
    ap.add_argument("--only", default="", help="comma-separated keys: " + ",".join(w[0] for w in WORKLOADS))
    a = ap.parse_args()
    only = [o for o in a.only.split(",") if o]
    todo = [w for w in WORKLOADS if not only or w[0] in only]
    tmp = tempfile.mkdtemp(prefix="brine-workloads-")
    out_path = os.path.join(tmp, "out.txt")
    py = sys.executable
    numba = have_numba(py)
    if not numba:
        print("(numba is not installed for " + py + ": its columns are skipped)")
    reps = {"BENCH_REPS": str(a.reps)}
    heads = ["workload", "C ms", "brine 1t ms", "brine/C", "OpenMP 2t ms", "brine 2t ms",
             "brine 2t/OpenMP", "numba 1t ms", "numba 2t ms", "RSS MB brine/C", "note"]
    rows, results = [], []

    def ms(sec):
        if sec is None:
            return "-"
        return f"{sec * 1e3:.1f}" if sec >= 0.01 else f"{sec * 1e3:.2f}"

    def ratio(x, y):
        return f"{x / y:.2f}" if x and y else "-"

    for key, title, br, c, nb, par in todo:
        built = {}
        for tag, omp in (("c", False), ("omp", True)):
            if omp and not par:
                continue
            exe = os.path.join(tmp, f"{key}_{tag}")
            flags = CFLAGS + (["-fopenmp"] if omp else [])
            subprocess.run(["gcc", *flags, "-I", SRC, os.path.join(SRC, c), "-o", exe, "-lm"], check=True)
            built[tag] = exe
        exe = os.path.join(tmp, key + "_br")
        b = subprocess.run([a.brine, "build", "--release", f"--cpu={a.cpu}", os.path.join(SRC, br), "-o", exe],
                           capture_output=True, text=True)
        notes = []
        if b.returncode != 0:
            notes.append("brine build failed: " + b.stderr.strip().splitlines()[0][:60])
        c1 = run([built["c"]], reps, out_path)
        b1 = b2 = o2 = n1 = n2 = (None, ["-"], None)
        if b.returncode == 0:
            b1 = run([exe], {**reps, "BRINE_THREADS": "1", "BRINE_GPU": "off"}, out_path)
            if par:
                b2 = run([exe], {**reps, "BRINE_THREADS": "2", "BRINE_GPU": "off"}, out_path)
        if par:
            o2 = run([built["omp"]], {**reps, "OMP_NUM_THREADS": "2"}, out_path)
        if numba and nb:
            cmd = [py, os.path.join(SRC, nb[0]), *nb[1:]]
            n1 = run(cmd, {**reps, "NUMBA_NUM_THREADS": "1"}, out_path)
            if par:
                n2 = run(cmd, {**reps, "NUMBA_NUM_THREADS": "2"}, out_path)
        if b1[0] is not None:
            v = compare(c1[1], b1[1])
            if v == "int":
                notes.append("MISMATCH with C")
            elif v == "float":
                notes.append("floats differ: tree vs left fold" if par else "floats differ")
            else:
                notes.append("= C")
            if par and b2[1] != b1[1]:
                notes.append("2t != 1t!")
        if n1[0] is not None and compare(c1[1], n1[1]) == "int":
            notes.append("numba MISMATCH")
        rss = f"{b1[2]:.0f}/{c1[2]:.0f}" if b1[2] is not None else "-"
        rows.append([title, ms(c1[0]), ms(b1[0]), ratio(b1[0], c1[0]), ms(o2[0]), ms(b2[0]),
                     ratio(b2[0], o2[0]), ms(n1[0]), ms(n2[0]), rss, "; ".join(notes)])
        results.append((title, " ".join(c1[1]), " ".join(b1[1]), " ".join(n1[1])))
        print(f"  ({title} done)", file=sys.stderr, flush=True)

    print(f"medians of {a.reps} reps")
    print_table(heads, rows)
    print()
    print("results (C | brine 1t | numba 1t):")
    for title, cr, brr, nr in results:
        print(f"  {title}: {cr} | {brr} | {nr}")
    shutil.rmtree(tmp)


if __name__ == "__main__":
    main()
