#!/usr/bin/env python3
"""bench/math_lanes/run.py: par sums of sin, cos, tan, exp, exp2, log, log2 and log10
elements (brine's math lanes, runtime/math_lanes.c), then a plain sum of sin and a for loop
accumulating exp (sequential: the math in lanes, the additions in order), against the C
loop calling glibc.

    run.py [--brine BRINE] [--old OTHER_BRINE] [--n N] [--reps R] [--callgrind]

Per function: the C loop (sums.c, gcc -O3 -march=native -ffp-contract=off)
and sum_<f>.br built --release, each run R times in alternation, the fastest
kept: CPU seconds at 1 thread (user time: the least disturbed by other load
on the machine) and wall seconds at 2 threads (BRINE_THREADS=2; the C loop
is sequential), C/brine as the speedup. --old adds another brine build's
times (a change's effect, in the same run). --callgrind prints instructions
per element instead (n = 10^6, 1 thread). The printed sums are checked: the
brine builds must agree bit for bit."""
import argparse, os, subprocess, sys, tempfile, time, resource

HERE = os.path.dirname(os.path.abspath(__file__))
FUNCS = ["sin", "cos", "tan", "exp", "exp2", "log", "log2", "log10"]
# the rows: (name, .br file, the C loop's function); after the par sums, a
# plain sum and a for loop, whose additions stay in order (their math in lanes too)
ROWS = [(f, f"sum_{f}.br", f) for f in FUNCS] + [("sin, sum", "sum_sin_seq.br", "sin"), ("exp, for loop", "for_exp_seq.br", "exp")]


def run(cmd, threads=1):
    env = dict(os.environ, BRINE_THREADS=str(threads))
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.monotonic()
    out = subprocess.run(cmd, env=env, check=True, capture_output=True, text=True).stdout.strip()
    wall = time.monotonic() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return out, after.ru_utime - before.ru_utime, wall


def instructions(cmd, tmp):
    out = os.path.join(tmp, "cg.out")
    subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=" + out] + cmd, check=True,
                   env=dict(os.environ, BRINE_THREADS="1"), capture_output=True)
    for line in open(out):
        if line.startswith("summary:") or line.startswith("totals:"):
            return int(line.split()[1])
    raise SystemExit("no callgrind total")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--brine", default=os.path.join(HERE, "../../build/bin/brine"))
    ap.add_argument("--old")
    ap.add_argument("--n", type=int, default=50_000_000)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--callgrind", action="store_true")
    a = ap.parse_args()
    builds = [("brine", a.brine)] + ([("old", a.old)] if a.old else [])
    with tempfile.TemporaryDirectory() as tmp:
        c = os.path.join(tmp, "sums")
        subprocess.run(["gcc", "-O3", "-march=native", "-ffp-contract=off", "-o", c, os.path.join(HERE, "sums.c"), "-lm"],
                       check=True)
        exe = {}
        for f, src, _ in ROWS:
            for name, b in builds:
                exe[f, name] = os.path.join(tmp, f"{src[:-3]}_{name}")
                subprocess.run([b, "build", "--release", os.path.join(HERE, src), "-o", exe[f, name]], check=True)
        if a.callgrind:
            n = 1_000_000
            print(f"instructions per element, n = {n}, 1 thread (callgrind)")
            print("| f | C (glibc) | " + " | ".join(name for name, _ in builds) + " |")
            print("|---|" + "---|" * (1 + len(builds)))
            for f, _, cf in ROWS:
                row = [instructions([c, cf, str(n)], tmp) / n]
                row += [instructions([exe[f, name], str(n)], tmp) / n for name, _ in builds]
                print(f"| {f} | " + " | ".join(f"{x:.1f}" for x in row) + " |")
            return
        print(f"n = {a.n}, fastest of {a.reps}: CPU s at 1 thread, wall s at 2 threads; speedup = C / brine")
        cols = ["C 1t"] + [f"{name} {t}t" for name, _ in builds for t in (1, 2)]
        print("| f | " + " | ".join(cols) + " | speedup 1t | speedup 2t |")
        print("|---|" + "---|" * (len(cols) + 2))
        for f, _, cf in ROWS:
            best = {}
            sums = set()
            for _ in range(a.reps):
                _, cpu, _ = run([c, cf, str(a.n)])
                best["C", 1] = min(best.get(("C", 1), 1e9), cpu)
                for name, _ in builds:
                    for t in (1, 2):
                        out, cpu, wall = run([exe[f, name], str(a.n)], t)
                        sums.add(out)
                        best[name, t] = min(best.get((name, t), 1e9), cpu if t == 1 else wall)
            if len(sums) != 1:
                sys.exit(f"{f}: the brine builds print different sums: {sorted(sums)}")
            vals = [best["C", 1]] + [best[name, t] for name, _ in builds for t in (1, 2)]
            print(f"| {f} | " + " | ".join(f"{v:.3f}" for v in vals)
                  + f" | {best['C', 1] / best['brine', 1]:.2f} | {best['C', 1] / best['brine', 2]:.2f} |")


if __name__ == "__main__":
    main()
