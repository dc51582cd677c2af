#!/usr/bin/env python3
"""bench/fold: scans, keyed reductions and par reduce (SPEC 15) against C.

Rows: par scan sum of 10^7 floats in an array and of 10^7 computed
elements against a sequential C loop and a two-pass OpenMP scan (and a
plain copy: the bandwidth); par sum(... by k in 0..N) for N = 16, 4096,
10^6 against a C loop into an array of sums, of floats (by) and of ints
(by_int: in any order, runtime/keyfree.c); par reduce with a known f
against the built-in par sum. Each program times its kernel itself (best
of REPS after one untimed run); brine and C runs alternate, ROUNDS times,
and the best is kept (--median: the median of the rounds). --old OLD: the
same programs built by another brine too, run in the same rounds (two more
columns, and brine/old at 2 threads in the note).
--only GROUPS: only these rows, comma-separated: scan (the two scans), by
(the keyed float sums), by_int (the keyed int sums), reduce (par reduce
against par sum).
Usage: run.py [BRINE] [--n N] [--reps R] [--rounds K] [--old OLD] [--median] [--only GROUPS]
"""
import os
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def arg(name, default):
    if name in sys.argv:
        return int(sys.argv[sys.argv.index(name) + 1])
    return default


def ms(out):
    return float(out.split()[0])


def run(cmd, threads):
    env = dict(os.environ, BRINE_THREADS=str(threads), OMP_NUM_THREADS=str(threads))
    return subprocess.run(cmd, capture_output=True, text=True, env=env, check=True).stdout


VALUED = ("--n", "--reps", "--rounds", "--old", "--only")
GROUPS = ("scan", "by", "by_int", "reduce")


def positional():
    args = sys.argv[1:]
    return [a for i, a in enumerate(args) if not a.startswith("--") and (i == 0 or args[i - 1] not in VALUED)]


def main():
    if "--help" in sys.argv or "-h" in sys.argv:
        print(__doc__.strip())
        return
    only = sys.argv[sys.argv.index("--only") + 1].split(",") if "--only" in sys.argv else list(GROUPS)
    for g in only:
        if g not in GROUPS:
            sys.exit("run.py: --only takes %s, not %r" % (", ".join(GROUPS), g))
    brine = next(iter(positional()), "build/bin/brine")
    n = arg("--n", 10_000_000)
    reps = arg("--reps", 3)
    rounds = arg("--rounds", 2)
    old = sys.argv[sys.argv.index("--old") + 1] if "--old" in sys.argv else None
    pick = statistics.median if "--median" in sys.argv else min
    with tempfile.TemporaryDirectory() as tmp:
        exe, oexe = {}, {}
        for p in ("scan_array", "scan_computed", "by_key", "by_key_int", "reduce_known"):
            exe[p] = os.path.join(tmp, p)
            subprocess.run([brine, "build", "--release", os.path.join(HERE, p + ".br"), "-o", exe[p]], check=True)
            if old:
                oexe[p] = os.path.join(tmp, p + "_old")
                subprocess.run([old, "build", "--release", os.path.join(HERE, p + ".br"), "-o", oexe[p]], check=True)
        src = os.path.join(HERE, "fold_c.c")
        cflags = ["-O3", "-march=native", "-ffp-contract=off"]
        subprocess.run(["gcc"] + cflags + [src, "-o", os.path.join(tmp, "c_seq")], check=True)
        subprocess.run(["gcc"] + cflags + ["-fopenmp", src, "-o", os.path.join(tmp, "c_omp")], check=True)
        cseq, comp = os.path.join(tmp, "c_seq"), os.path.join(tmp, "c_omp")
        rows = []

        def best(cmds):
            got = [[] for _ in cmds]
            for _ in range(rounds):
                for i, (c, t) in enumerate(cmds):
                    got[i].append(ms(run(c, t)))
            return [pick(g) for g in got]

        def with_old(cmds, p, args):
            """cmds, then the old build's at 1 and 2 threads when --old"""
            if old:
                cmds = cmds + [([oexe[p]] + args, 1), ([oexe[p]] + args, 2)]
            return cmds

        def old_cols(b, k):
            return (b[k], b[k + 1], "; brine/old at 2t %.2f" % (b[1] / b[k + 1])) if old else (None, None, "")

        scans = (("par scan sum, 10^7 floats in an array", "scan_array", "scan"),
                 ("par scan sum, 10^7 computed elements", "scan_computed", "scan_computed"))
        for label, bexe, mode in scans if "scan" in only else ():
            b = best(with_old([([exe[bexe], str(n), str(reps)], 1), ([exe[bexe], str(n), str(reps)], 2),
                               ([cseq, mode, str(n), str(reps)], 1), ([comp, mode, str(n), str(reps)], 2),
                               ([cseq, "copy", str(n), str(reps)], 1)], bexe, [str(n), str(reps)]))
            gbs = 2 * 8 * n / (b[1] / 1e3) / 1e9
            o1, o2, onote = old_cols(b, 5)
            rows.append((label, b[0], b[1], b[2], b[3], o1, o2, "%.2fx C loop at 2t; OpenMP 2t %.1f ms; copy %.1f ms; "
                         "brine 2t moves %.1f GB/s%s" % (b[2] / b[1], b[3], b[4], gbs, onote)))
        keyed = (("by", "by_key", "par sum(... by k in 0..%d), 10^7"),
                 ("by_int", "by_key_int", "par sum(int ... by k in 0..%d), 10^7"))
        for mode, bexe, label in keyed:
            for nk in (16, 4096, 1_000_000) if mode in only else ():
                args = [str(n), str(nk), str(reps)]
                b = best(with_old([([exe[bexe]] + args, 1), ([exe[bexe]] + args, 2),
                                   ([cseq, mode] + args, 1)], bexe, args))
                o1, o2, onote = old_cols(b, 3)
                rows.append((label % nk, b[0], b[1], b[2], None, o1, o2,
                             "%.2fx the C loop's time at 1t, %.2fx at 2t%s" % (b[0] / b[2], b[1] / b[2], onote)))
        r1 = [1e18] * 4
        r2 = [1e18] * 4
        for _ in range(rounds if "reduce" in only else 0):
            for t, r in ((1, r1), (2, r2)):
                v = [float(x) for x in run([exe["reduce_known"], str(n), str(reps)], t).split()[:4]]
                for i in range(4):
                    r[i] = min(r[i], v[i])
        if "reduce" in only:
            rows.append(("par reduce(fadd, 0.0, 1/i) vs par sum", r1[1], r2[1], r1[0], r2[0], None, None,
                         "%.2fx par sum at 2t" % (r2[1] / r2[0])))
            rows.append(("par reduce(iadd, 0, int) vs par sum", r1[3], r2[3], r1[2], r2[2], None, None,
                         "%.2fx par sum at 2t" % (r2[3] / r2[2])))

        def cell(v):
            return "-" if v is None else "%.1f" % v
        print("| workload | brine 1t ms | brine 2t ms | peer 1t ms | peer 2t ms |%s note |" %
              (" old 1t ms | old 2t ms |" if old else ""))
        print("|---|---|---|---|---|%s---|" % ("---|---|" if old else ""))
        for label, a, b2, c, d, o1, o2, note in rows:
            olds = " %s | %s |" % (cell(o1), cell(o2)) if old else ""
            print("| %s | %.1f | %.1f | %.1f | %s |%s %s |" % (label, a, b2, c, cell(d), olds, note))


if __name__ == "__main__":
    main()
