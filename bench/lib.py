#!/usr/bin/env python3
"""bench/lib.py: the library's hot paths against C and numpy (bench/lib/).

  read  a file of 10^6 numbers, one a line: read_file + lines() + to_float()
        in Brine against fgets + strtod in C (gcc -O2)
  sort  10^7 floats: Brine's xs.sort() (one thread, and the machine's
        threads: large sorts run on the pool) against numpy.sort and a C
        bottom-up merge sort by a total-order key (gcc -O2)

Brine programs are built with --release. Prints median seconds of REPS runs
and each row's ratio to its peer; results are checked to agree.
Usage: bench/lib.py [--brine build/bin/brine] [--reps 5] [--only read,sort]
"""
import argparse, os, subprocess, sys, tempfile
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchlib import measure

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib")


def build_c(src, out):
    subprocess.run(["cc", "-O2", "-o", out, src], check=True)


def build_br(brine, src, out):
    subprocess.run([brine, "build", "--release", src, "-o", out], check=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--brine", default="build/bin/brine")
    ap.add_argument("--reps", default="5")
    ap.add_argument("--only", default="read,sort")
    a = ap.parse_args()
    brine = os.path.abspath(a.brine)
    only = a.only.split(",")
    env = {"BRINE_THREADS": "1"}
    rows = []
    with tempfile.TemporaryDirectory() as d:
        if "read" in only:
            data = os.path.join(d, "numbers.txt")
            with open(data, "w") as f:
                for i in range(1_000_000):
                    f.write(repr((i * 7919 % 1000003) / 97.0 - 5000.0) + "\n")
            build_br(brine, os.path.join(HERE, "read_lines.br"), os.path.join(d, "rl"))
            build_c(os.path.join(HERE, "read_lines.c"), os.path.join(d, "rl_c"))
            tb, rb, _ = measure([os.path.join(d, "rl"), data, a.reps], env, os.path.join(d, "o1"))
            tc, rc, _ = measure([os.path.join(d, "rl_c"), data, a.reps], env, os.path.join(d, "o2"))
            same = "= C" if float(rb[0]) == float(rc[0]) else f"MISMATCH {rb} {rc}"
            rows.append(("read 1e6 lines, to_float()", "brine", tb, tb / tc, same))
            rows.append(("", "C fgets+strtod", tc, 1.0, ""))
        if "sort" in only:
            build_br(brine, os.path.join(HERE, "sort_floats.br"), os.path.join(d, "sf"))
            build_c(os.path.join(HERE, "sort_floats.c"), os.path.join(d, "sf_c"))
            tb, rb, _ = measure([os.path.join(d, "sf"), "10000000", a.reps], env, os.path.join(d, "o3"))
            tc, rc, _ = measure([os.path.join(d, "sf_c"), "10000000", a.reps], env, os.path.join(d, "o4"))
            tn, rn, _ = measure([sys.executable, os.path.join(HERE, "sort_floats_np.py"), "10000000", a.reps],
                                env, os.path.join(d, "o5"))
            # at the machine's threads too: a sort of 2^17 numbers or more runs on the pool
            cores = str(os.cpu_count() or 1)
            tp, rp, _ = measure([os.path.join(d, "sf"), "10000000", a.reps], {"BRINE_THREADS": cores},
                                os.path.join(d, "o6"))
            ok = float(rb[0]) == float(rc[0]) == float(rn[0]) == float(rp[0])
            rows.append(("sort 1e7 floats", "brine xs.sort()", tb, tb / tn, "= numpy = C" if ok else "MISMATCH"))
            rows.append(("", f"brine, {cores} threads", tp, tp / tn, ""))
            rows.append(("", "numpy.sort", tn, 1.0, ""))
            rows.append(("", "C merge sort", tc, tc / tn, f"brine/C = {tb / tc:.2f}"))
    print(f"{'workload':30} {'who':18} {'median s':>9} {'ratio':>6}  note")
    for w, who, t, r, note in rows:
        print(f"{w:30} {who:18} {t:9.4f} {r:6.2f}  {note}")


if __name__ == "__main__":
    main()
