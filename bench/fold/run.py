#!/usr/bin/env python3
"""bench/fold: scans, keyed reductions and par reduce (SPEC 15) against C.

Rows: par scan sum of 10^7 floats in an array and of 10^7 computed
elements against a sequential C loop and a two-pass OpenMP scan (and a
plain copy: the bandwidth); par sum(... by k in 0..N) for N = 16, 4096,
10^6 against a C loop into an array of sums; par reduce with a known f
against the built-in par sum. Each program times its kernel itself (best
of REPS after one untimed run); brine and C runs alternate, ROUNDS times,
and the best is kept. Usage: run.py [BRINE] [--n N] [--reps R] [--rounds K]
"""
import os
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


def main():
    brine = next((a for a in sys.argv[1:] if not a.startswith("--") and not a.isdigit()), "build/bin/brine")
    n = arg("--n", 10_000_000)
    reps = arg("--reps", 3)
    rounds = arg("--rounds", 2)
    with tempfile.TemporaryDirectory() as tmp:
        exe = {}
        for p in ("scan_array", "scan_computed", "by_key", "reduce_known"):
            exe[p] = os.path.join(tmp, p)
            subprocess.run([brine, "build", "--release", os.path.join(HERE, p + ".br"), "-o", exe[p]], check=True)
        src = os.path.join(HERE, "fold_c.c")
        cflags = ["-O3", "-march=native", "-ffp-contract=off"]
        subprocess.run(["gcc"] + cflags + [src, "-o", os.path.join(tmp, "c_seq")], check=True)
        subprocess.run(["gcc"] + cflags + ["-fopenmp", src, "-o", os.path.join(tmp, "c_omp")], check=True)
        cseq, comp = os.path.join(tmp, "c_seq"), os.path.join(tmp, "c_omp")
        rows = []

        def best(cmds):
            b = [1e18] * len(cmds)
            for _ in range(rounds):
                for i, (c, t) in enumerate(cmds):
                    b[i] = min(b[i], ms(run(c, t)))
            return b

        for label, bexe, mode in (("par scan sum, 10^7 floats in an array", "scan_array", "scan"),
                                  ("par scan sum, 10^7 computed elements", "scan_computed", "scan_computed")):
            b = best([([exe[bexe], str(n), str(reps)], 1), ([exe[bexe], str(n), str(reps)], 2),
                      ([cseq, mode, str(n), str(reps)], 1), ([comp, mode, str(n), str(reps)], 2),
                      ([cseq, "copy", str(n), str(reps)], 1)])
            gbs = 2 * 8 * n / (b[1] / 1e3) / 1e9
            rows.append((label, b[0], b[1], b[2], b[3], "%.2fx C loop at 2t; OpenMP 2t %.1f ms; copy %.1f ms; "
                         "brine 2t moves %.1f GB/s" % (b[2] / b[1], b[3], b[4], gbs)))
        for nk in (16, 4096, 1_000_000):
            b = best([([exe["by_key"], str(n), str(nk), str(reps)], 1), ([exe["by_key"], str(n), str(nk), str(reps)], 2),
                      ([cseq, "by", str(n), str(nk), str(reps)], 1)])
            rows.append(("par sum(... by k in 0..%d), 10^7" % nk, b[0], b[1], b[2], None,
                         "%.2fx the C loop's time at 2t" % (b[1] / b[2])))
        r1 = [1e18] * 4
        r2 = [1e18] * 4
        for _ in range(rounds):
            for t, r in ((1, r1), (2, r2)):
                v = [float(x) for x in run([exe["reduce_known"], str(n), str(reps)], t).split()[:4]]
                for i in range(4):
                    r[i] = min(r[i], v[i])
        rows.append(("par reduce(fadd, 0.0, 1/i) vs par sum", r1[1], r2[1], r1[0], r2[0],
                     "%.2fx par sum at 2t" % (r2[1] / r2[0])))
        rows.append(("par reduce(iadd, 0, int) vs par sum", r1[3], r2[3], r1[2], r2[2],
                     "%.2fx par sum at 2t" % (r2[3] / r2[2])))
        print("| workload | brine 1t ms | brine 2t ms | peer 1t ms | peer 2t ms | note |")
        print("|---|---|---|---|---|---|")
        for label, a, b2, c, d, note in rows:
            print("| %s | %.1f | %.1f | %.1f | %s | %s |" % (label, a, b2, c, "-" if d is None else "%.1f" % d, note))


if __name__ == "__main__":
    main()
