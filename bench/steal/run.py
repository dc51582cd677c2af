#!/usr/bin/env python3
"""bench/steal/run.py: the scheduler's workloads, brine at 1 and 2 threads beside OpenMP, in one run.

    bench/steal/run.py [--brine build/bin/brine] [--reps 5]

Rows: the adaptive integration of 2 x cos(x^2) on [0, 200] as 64 par pieces (OpenMP: parallel
for schedule(dynamic)) and as a recursion whose every split is a par sum of its two halves
(OpenMP: tasks); one flat par sum of 100,000 elements of uneven cost, a ramp and a few
expensive ones at the right end (uneven.br; OpenMP: parallel for schedule(dynamic, 64));
a recursive par over a skewed tree; and spawn + join of an empty task in ns
(spawn.c, against the runtime library). Speedup = median seconds at 1 thread / at 2 threads,
same run. The flat rows (W1, W2, W3, W5 tiny n) are bench/run.py's: run it with --brine for
each build to compare. Timings on shared 2-core machines are noisy: read ratios from one run.
"""
import argparse, os, statistics, subprocess, sys, tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

def run(cmd, threads, env_key):
    env = dict(os.environ, **{env_key: str(threads)})
    out = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True).stdout
    secs = [float(l.split()[1]) for l in out.splitlines() if l.startswith("seconds ")]
    res = [l.split()[1] for l in out.splitlines() if l.startswith("result ")]
    return statistics.median(secs), res[-1] if res else "?"

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--brine", default=os.path.join(ROOT, "build/bin/brine"))
    ap.add_argument("--reps", type=int, default=5)
    a = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="brine-steal-")
    exe = {}
    for name in ("adaptive", "skewed", "uneven"):
        exe[name] = os.path.join(tmp, name)
        subprocess.run([a.brine, "build", "--release", os.path.join(HERE, name + ".br"), "-o", exe[name]], check=True)
    omp = {}
    for name in ("adaptive", "uneven"):
        omp[name] = os.path.join(tmp, name + "_omp")
        subprocess.run(["gcc", "-O3", "-fopenmp", "-o", omp[name], os.path.join(HERE, name + "_omp.c"), "-lm"], check=True)
    spawn = os.path.join(tmp, "spawn")
    lib = os.path.join(os.path.dirname(os.path.dirname(a.brine)), "lib/brine/libbrine_rt.a")
    subprocess.run(["gcc", "-std=gnu11", "-O2", "-I" + os.path.join(ROOT, "runtime"), "-o", spawn,
                    os.path.join(HERE, "spawn.c"), lib, "-lm", "-lpthread"], check=True)
    reps = str(a.reps)
    print(f"{'workload':<22} {'brine 1T s':>10} {'brine 2T s':>10} {'speedup':>8} {'omp 1T s':>9} {'omp 2T s':>9} {'omp x':>6}  result bits equal")
    for name, mode in (("adaptive", "pieces"), ("adaptive", "halves"), ("uneven", "ramp"), ("uneven", "spikes")):
        b1, r1 = run([exe[name], mode, reps], 1, "BRINE_THREADS")
        b2, r2 = run([exe[name], mode, reps], 2, "BRINE_THREADS")
        o1, _ = run([omp[name], mode, reps], 1, "OMP_NUM_THREADS")
        o2, _ = run([omp[name], mode, reps], 2, "OMP_NUM_THREADS")
        print(f"{name + ' ' + mode:<22} {b1:>10.4f} {b2:>10.4f} {b1 / b2:>7.2f}x {o1:>9.4f} {o2:>9.4f} {o1 / o2:>5.2f}x  {r1 == r2}")
    s1, r1 = run([exe["skewed"], reps], 1, "BRINE_THREADS")
    s2, r2 = run([exe["skewed"], reps], 2, "BRINE_THREADS")
    print(f"{'skewed tree':<22} {s1:>10.4f} {s2:>10.4f} {s1 / s2:>7.2f}x {'':>9} {'':>9} {'':>6}  {r1 == r2}")
    print(subprocess.run([spawn], capture_output=True, text=True, check=True).stdout, end="")

if __name__ == "__main__":
    main()
