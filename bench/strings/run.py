#!/usr/bin/env python3
"""bench/strings/run.py: string building with f-strings against C, one row per variant.

fstrings.br and fstrings.c (snprintf into a buffer, appended to a doubling one) hold the
same loops; argv picks one:

  ints     s += f"{i},"          (bench/workloads/strings.br's loop)
  fixed    s += f"{x:.3f};"      x = float(i) * 0.37
  repr     s += f"{x};"          shortest repr; C's %.17g stands in (longer text)
  whole    s += f"{x};"          x = float(i): repr of integral floats, C's %.1f
  sci      s += f"{x:.3e};"
  width    s += f"{i:>8}|"
  strs     s += f"{w}-"          w from a 4-word array
  bools    s += f"{b} "
  strcall  s += str(i); s += ","
  temp     let t = f"{i}:{x:.2f}"; total += len(t)   (an f-string as a value; C strdup's)

    bench/strings/run.py [--brine build/bin/brine] [--old OTHER_BRINE] [--reps 7] [--rounds 3]
                         [--only ints,fixed]

Each program runs its loop once untimed, then BENCH_REPS times; the programs run
interleaved (C, brine, old brine), --rounds times each, and the table gives the median of
all repetitions and the ratios to C in the same run. Lengths are checked against C's
(except repr, whose C peer prints other text). Timings on shared 2-core machines are
noisy: read ratios from one run.
"""
import argparse, os, statistics, subprocess, sys, tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
from benchlib import measure  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(HERE))
VARIANTS = [("ints", 1000000), ("fixed", 200000), ("repr", 200000), ("whole", 200000),
            ("sci", 200000), ("width", 500000), ("strs", 1000000), ("bools", 1000000),
            ("strcall", 1000000), ("temp", 200000)]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--brine", default=os.path.join(ROOT, "build", "bin", "brine"))
    ap.add_argument("--old", default="", help="a second brine to compare (another build)")
    ap.add_argument("--reps", type=int, default=7)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--only", default="")
    args = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="brine-strings-")
    progs = [("C", os.path.join(tmp, "c"))]
    subprocess.run(["gcc", "-O3", "-march=native", "-ffp-contract=off", "-o", progs[0][1],
                    os.path.join(HERE, "fstrings.c")], check=True)
    for label, brine in (("brine", args.brine), ("old", args.old)):
        if not brine:
            continue
        exe = os.path.join(tmp, label)
        subprocess.run([brine, "build", "--release", "--cpu=native", os.path.join(HERE, "fstrings.br"),
                        "-o", exe], check=True)
        progs.append((label, exe))
    only = set(args.only.split(",")) if args.only else None
    variants = [v for v in VARIANTS if not only or v[0] in only]
    secs = {(v, p): [] for v, _ in variants for p, _ in progs}
    results = {}
    out = os.path.join(tmp, "out.txt")
    for _ in range(args.rounds):
        for v, n in variants:
            for p, exe in progs:
                t, res, _ = measure([exe, v, str(n)], {"BENCH_REPS": str(args.reps), "BRINE_THREADS": "1"}, out)
                if t is None:
                    sys.exit(f"{p} {v}: {res}")
                secs[(v, p)].append(t)
                results[(v, p)] = res
    names = [p for p, _ in progs]
    head = ["variant", "n"] + [f"{p} ms" for p in names] + [f"{p}/C" for p in names[1:]] + ["note"]
    rows = []
    for v, n in variants:
        med = {p: statistics.median(secs[(v, p)]) * 1e3 for p in names}
        same = all(results[(v, p)] == results[(v, "C")] for p in names)
        note = "= C" if same else ("C text differs" if v == "repr" else "MISMATCH " + str({p: results[(v, p)] for p in names}))
        rows.append([v, f"{n:.0e}".replace("e+0", "e")] + [f"{med[p]:.3g}" if med[p] < 100 else f"{med[p]:.0f}" for p in names]
                    + [f"{med[p] / med['C']:.2f}" for p in names[1:]] + [note])
    w = [max(len(r[i]) for r in rows + [head]) for i in range(len(head))]
    print("| " + " | ".join(h.ljust(w[i]) for i, h in enumerate(head)) + " |")
    print("|" + "|".join("-" * (x + 2) for x in w) + "|")
    for r in rows:
        print("| " + " | ".join(c.ljust(w[i]) if i in (0, len(r) - 1) else c.rjust(w[i]) for i, c in enumerate(r)) + " |")


if __name__ == "__main__":
    main()
