#!/usr/bin/env python3
"""bench/fnvals/run.py: what function values and tuples cost, in one table.

  - integrate(f, a, b, n) through a function value (integrate_value.br)
    against the same integrators specialised by hand, calling the integrand
    by name (integrate_direct.br), and with its expression written out
    (integrate_expanded.br); brine at BRINE_THREADS=1 and 2;
  - a function returning (float, int) in a hot loop (tuple_return.br)
    against C returning a struct (tuple_return.c, gcc -O3 -march=native,
    strict IEEE).

    bench/fnvals/run.py [--brine build/bin/brine] [--reps 7] [--rounds 3]

Each program prints `seconds T` per repetition and one `result` line; the
programs run interleaved, --rounds times each, and the table gives the
median of all repetitions. The results of each group must agree (checked).
Timings on shared 2-core machines are noisy: read ratios from one run.
"""
import argparse, os, statistics, subprocess, sys, tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
from benchlib import measure  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(HERE))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--brine", default=os.path.join(ROOT, "build", "bin", "brine"))
    ap.add_argument("--reps", type=int, default=7)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="brine-fnvals-")
    exe = {}
    for name in ("integrate_value", "integrate_direct", "integrate_expanded", "tuple_return"):
        exe[name] = os.path.join(tmp, name)
        subprocess.run([args.brine, "build", "--release", "--cpu=native", os.path.join(HERE, name + ".br"),
                        "-o", exe[name]], check=True)
    exe["tuple_return_c"] = os.path.join(tmp, "tuple_return_c")
    subprocess.run(["gcc", "-O3", "-march=native", "-ffp-contract=off", "-o", exe["tuple_return_c"],
                    os.path.join(HERE, "tuple_return.c")], check=True)

    runs = [(n, t) for n in ("integrate_value", "integrate_direct", "integrate_expanded") for t in (1, 2)]
    runs += [("tuple_return", 1), ("tuple_return_c", 1)]
    secs = {r: [] for r in runs}
    results = {}
    out = os.path.join(tmp, "out.txt")
    for _ in range(args.rounds):
        for name, threads in runs:
            env = {"BENCH_REPS": str(args.reps), "BRINE_THREADS": str(threads)}
            t, res, _ = measure([exe[name]], env, out)
            if t is None:
                sys.exit(f"{name}: {res}")
            secs[(name, threads)].append(t)
            results[(name, threads)] = res
    med = {r: statistics.median(v) for r, v in secs.items()}
    for group in (["integrate_value", "integrate_direct", "integrate_expanded"], ["tuple_return", "tuple_return_c"]):
        got = {tuple(results[r]) for r in runs if r[0] in group}
        if len(got) != 1:
            sys.exit(f"results differ within {group}: {got}")

    print("| integrate (2 integrals of 2e7 points) | 1 thread ms | 2 threads ms | vs by name, 1t | vs by name, 2t |")
    print("|---|---|---|---|---|")
    for name, label in (("integrate_value", "through a function value"), ("integrate_direct", "by name (by hand)"),
                        ("integrate_expanded", "expression written out")):
        a, b = med[(name, 1)], med[(name, 2)]
        print(f"| {label} | {a * 1e3:.2f} | {b * 1e3:.2f} | {a / med[('integrate_direct', 1)]:.3f} | "
              f"{b / med[('integrate_direct', 2)]:.3f} |")
    print()
    print("| (float, int) returned in a loop | ms | brine / C |")
    print("|---|---|---|")
    print(f"| C struct | {med[('tuple_return_c', 1)] * 1e3:.2f} | 1.000 |")
    print(f"| brine tuple | {med[('tuple_return', 1)] * 1e3:.2f} | "
          f"{med[('tuple_return', 1)] / med[('tuple_return_c', 1)]:.3f} |")


if __name__ == "__main__":
    main()
