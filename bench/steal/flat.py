#!/usr/bin/env python3
"""bench/steal/flat.py: flat reductions, one brine build against another, in one run.

    bench/steal/flat.py OLD_BRINE NEW_BRINE [--reps 5] [--rounds 3]

Runs bench/run.py's W1, W2 (1e7), W3 and W5 (tiny n) brine par programs, built by each brine,
at BRINE_THREADS 1 and 2, alternating old and new for --rounds rounds, and prints the median
kernel ms of each and new/old: the scheduler must not cost the flat rows anything.
"""
import argparse, os, statistics, subprocess, sys, tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import run as bench  # bench/run.py: the workloads and their brine programs

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("old")
    ap.add_argument("new")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--rounds", type=int, default=3)
    a = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="brine-flat-")
    names = [k for k in bench.W if k.split()[0] in ("W1", "W2", "W3", "W5") and "1e8" not in k]
    print(f"{'workload':28} {'T':>2} {'old ms':>9} {'new ms':>9} {'new/old':>8}")
    for name in names:
        w = bench.W[name]
        exes = {}
        for tag, brine in (("old", a.old), ("new", a.new)):
            src = os.path.join(tmp, f"{tag}.br")
            with open(src, "w") as f:
                f.write(bench.brine_program(w, w["brine_par"], w["n"], a.reps))
            exes[tag] = os.path.join(tmp, f"{tag}_{name.split()[0]}")
            subprocess.run([brine, "build", "--release", src, "-o", exes[tag]], check=True)
        for threads in (1, 2):
            t = {"old": [], "new": []}
            for _ in range(a.rounds):
                for tag in ("old", "new"):
                    env = dict(os.environ, BRINE_THREADS=str(threads))
                    out = subprocess.run([exes[tag]], env=env, capture_output=True, text=True, check=True).stdout
                    t[tag] += [float(l.split()[1]) for l in out.splitlines() if l.startswith("seconds ")]
            o, n = statistics.median(t["old"]) * 1e3, statistics.median(t["new"]) * 1e3
            print(f"{name:28} {threads:>2} {o:>9.2f} {n:>9.2f} {n / o:>8.3f}")

if __name__ == "__main__":
    main()
