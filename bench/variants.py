#!/usr/bin/env python3
"""bench/variants.py: the chapter's kernels written the ways a person writes them, against C and numba.

bench/variants/KERNEL/ holds one C program (KERNEL.c, the C a person would write, built with
gcc -O3 -march=native -ffp-contract=off: strict IEEE, no contraction), an optional numba
version (KERNEL_nb.py, `@njit`, prange where the C has `#pragma omp`; a kernel of SHARED
uses bench/workloads/'s, with the same n and the same printed results) and several Brine
programs (*.br), each the same computation written another way: in main or in a function,
preallocated or built, row temps, comprehensions, for or while, small arrays or tuples for
two results, lets or inline expressions. Every program runs its kernel once untimed, then
BENCH_REPS times, printing `seconds T` per rep and one `result ...` line.

This script builds everything in a temp dir and runs, in one run: each C program at 1 thread
(built without OpenMP) and, where it has `#pragma omp`, at 2 (built with -fopenmp,
OMP_NUM_THREADS=2); numba at NUMBA_NUM_THREADS=1 and 2 (2 only where it uses prange); each
Brine variant built with `brine build --release` at BRINE_THREADS=1 and 2. It prints one
table: medians, brine/C and brine/numba at 1 and 2 threads, then the geometric mean and the
worst row of each ratio column. Where the peer is sequential, its 2-thread time is its
1-thread time.

    bench/variants.py [--brine build/bin/brine] [--old OTHER_BRINE] [--reps 5] [--rounds 1]
                      [--only matmul,sieve/count_main] [--cpu native|generic] [--pin CPU]

--old adds two columns: each variant built by another brine (a build of the commit before a
change), run at 1 thread in the same run, and brine/old: a change's effect, side by side.

Every Brine variant's result must equal its C program's: integers exactly, floats exactly
(the data are chosen so that a sum's order cannot change it, or the order is the C one),
except in a variant whose header says `# bench: par-float` (a par reduction of floats: its
fixed tree and C's left fold differ in the last bits), where a float may differ by 1e-12
relative, or `# bench: libm-float` (it calls a math function that glibc does not round
correctly everywhere, as brine does: the C's sum may differ in its last bits), with the same
tolerance, or `# bench: order-float` (the variant, as written, sums in another order than the C:
a work list's running total against the C recursion's tree), with the same tolerance. Brine at
2 threads must print what it printed at 1. Any failure is marked in the note column and makes
the script exit 1 after the table. Timings on the shared 2-core VMs are noisy: read ratios from
one run, never across runs. --rounds R runs every program of a kernel R times, interleaved (C,
numba, each variant at 1 and 2 threads, then again), and takes the median of the R medians:
a burst of load on the host (which the 2-thread rows feel most) then spoils one round, not the
row. --pin CPU runs every 1-thread program (C, numba, brine, old) on that one CPU: on a VM
whose virtual CPUs run at different speeds (one of two sharing its core on the host with
another guest's work: the same binary 42 ms on one, 68 on the other), unpinned 1-thread
rows compare whichever CPU each program landed on.
"""
import argparse, glob, math, os, shutil, statistics, subprocess, sys, tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchlib import measure, print_table  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
SRC = os.path.join(HERE, "variants")
PEERS = os.path.join(HERE, "workloads")  # bench.h, and the shared kernels' C and numba
SHARED = {"adaptive", "matmul", "montecarlo", "sieve", "strings"}
CFLAGS = ["-O3", "-march=native", "-ffp-contract=off", "-Wno-unknown-pragmas"]
PAR_FLOAT = "# bench: par-float"
LIBM_FLOAT = "# bench: libm-float"
ORDER_FLOAT = "# bench: order-float"


def kernels(only):
    """[(kernel, C file, numba file or None, [variant .br files])], filtered by --only."""
    out = []
    for d in sorted(glob.glob(os.path.join(SRC, "*", ""))):
        k = os.path.basename(os.path.dirname(d))
        peers = PEERS if k in SHARED else d
        c = os.path.join(peers, k + ".c")
        if not os.path.exists(c):
            continue
        nb = os.path.join(peers, k + "_nb.py")
        brs = sorted(glob.glob(os.path.join(d, "*.br")))
        if only:
            brs = [b for b in brs if k in only or f"{k}/{os.path.basename(b)[:-3]}" in only]
        if brs:
            out.append((k, c, nb if os.path.exists(nb) else None, brs))
    return out


def same(c, b, tolerant):
    """True when the result words agree: ints exactly, floats exactly or (tolerant) to 1e-12."""
    if len(c) != len(b):
        return False
    for x, y in zip(c, b):
        try:
            if int(x) == int(y):
                continue
            return False
        except ValueError:
            pass
        try:
            fx, fy = float(x), float(y)
        except ValueError:
            return False
        if fx == fy:
            continue
        if not tolerant or abs(fx - fy) > 1e-12 * max(1.0, abs(fx), abs(fy)):
            return False
    return True


def have_numba(py):
    return subprocess.run([py, "-c", "import numba"], capture_output=True).returncode == 0


def ms(sec):
    if sec is None:
        return "-"
    return f"{sec * 1e3:.1f}" if sec >= 0.01 else f"{sec * 1e3:.2f}"


def ratio(x, y):
    return x / y if x and y else None


def fmt_ratio(r):
    return "-" if r is None else f"{r:.2f}"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--brine", default=os.path.join(ROOT, "build/bin/brine"))
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--rounds", type=int, default=1, help="interleaved rounds per kernel; the median of theirs")
    ap.add_argument("--cpu", default="native", choices=["native", "generic"],
                    help="brine's --cpu for its release builds (native: as the C's -march=native)")
    ap.add_argument("--old", help="another brine to compare with, at 1 thread (columns old 1t ms, brine/old)")
    ap.add_argument("--pin", type=int, default=None, help="run the 1-thread programs on this CPU only")
    ap.add_argument("--only", default="", help="comma-separated kernels or kernel/variant")
    a = ap.parse_args()
    only = {o for o in a.only.split(",") if o}
    tmp = tempfile.mkdtemp(prefix="brine-variants-")
    out_path = os.path.join(tmp, "out.txt")
    py = sys.executable
    numba = have_numba(py)
    if not numba:
        print("(numba is not installed for " + py + ": its columns are skipped)")
    reps = {"BENCH_REPS": str(a.reps)}
    heads = ["variant", "C 1t ms", "brine 1t ms", "numba 1t ms", "brine/C 1t", "brine/numba 1t",
             "C 2t ms", "brine 2t ms", "numba 2t ms", "brine/C 2t", "brine/numba 2t", "note"]
    if a.old:
        heads[-1:-1] = ["old 1t ms", "brine/old 1t"]
    ratio_cols = [4, 5, 9, 10] + ([12] if a.old else [])
    rows, ratios, failed = [], {c: [] for c in ratio_cols}, False

    for key, c, nb, brs in kernels(only):
        # build everything first, then measure in interleaved rounds
        exe = os.path.join(tmp, key + "_c")
        subprocess.run(["gcc", *CFLAGS, "-I", PEERS, c, "-o", exe, "-lm"], check=True)
        runs = {"c1": ([exe], reps)}
        with open(c) as f:
            if "#pragma omp" in f.read():
                subprocess.run(["gcc", *CFLAGS, "-fopenmp", "-I", PEERS, c, "-o", exe + "_omp", "-lm"], check=True)
                runs["c2"] = ([exe + "_omp"], {**reps, "OMP_NUM_THREADS": "2"})
        if numba and nb:
            runs["n1"] = ([py, nb], {**reps, "NUMBA_NUM_THREADS": "1"})
            with open(nb) as f:
                if "prange" in f.read():
                    runs["n2"] = ([py, nb], {**reps, "NUMBA_NUM_THREADS": "2"})
        built = []
        for br in brs:
            name = f"{key}/{os.path.basename(br)[:-3]}"
            bexe = os.path.join(tmp, name.replace("/", "_"))
            b = subprocess.run([a.brine, "build", "--release", f"--cpu={a.cpu}", br, "-o", bexe],
                               capture_output=True, text=True)
            if a.old:
                ob = subprocess.run([a.old, "build", "--release", f"--cpu={a.cpu}", br, "-o", bexe + "_old"],
                                    capture_output=True, text=True)
                if ob.returncode == 0:
                    runs[name + " o1"] = ([bexe + "_old"], {**reps, "BRINE_GPU": "off", "BRINE_THREADS": "1"})
            if b.returncode == 0:
                env = {**reps, "BRINE_GPU": "off"}
                runs[name + " b1"] = ([bexe], {**env, "BRINE_THREADS": "1"})
                runs[name + " b2"] = ([bexe], {**env, "BRINE_THREADS": "2"})
            built.append((br, name, b))
        got = {k: [] for k in runs}
        for _ in range(max(1, a.rounds)):
            for k, (cmd, env) in runs.items():
                one = k in ("c1", "n1") or k.endswith((" b1", " o1"))
                got[k].append(measure(cmd, env, out_path, {a.pin} if one and a.pin is not None else None))

        def med(k, fallback=(None, ["-"], None)):
            """a run's median time over the rounds (None if any round failed), its last result"""
            if k not in got:
                return fallback
            ts = [g[0] for g in got[k]]
            return (None if None in ts else statistics.median(ts)), got[k][-1][1], None
        c1 = med("c1")
        c2 = med("c2", c1)
        n1 = med("n1")
        n2 = med("n2", n1)
        if n1[0] is not None and not same(c1[1], n1[1], True):
            print(f"  ({key}: numba's result differs from C's: {n1[1]} vs {c1[1]})", file=sys.stderr)
        for br, name, b in built:
            with open(br) as f:
                text = f.read()
            tolerant = ("par-float" if PAR_FLOAT in text else "libm" if LIBM_FLOAT in text
                        else "order" if ORDER_FLOAT in text else None)
            notes = []
            o1 = med(name + " o1")
            b1, b2 = med(name + " b1"), med(name + " b2")
            if b.returncode != 0:
                notes.append("BUILD FAILED: " + (b.stderr.strip().splitlines() or ["?"])[0][:60])
            else:
                if b1[0] is None or not same(c1[1], b1[1], tolerant):
                    notes.append(f"MISMATCH: C {' '.join(c1[1])}, brine {' '.join(b1[1])}")
                elif b2[1] != b1[1]:
                    notes.append("2t != 1t: " + " ".join(b2[1]))
                else:
                    notes.append(f"= C ({tolerant})" if tolerant and b1[1] != c1[1] else "= C")
            if not notes[-1].startswith("= C"):
                failed = True
            r = {4: ratio(b1[0], c1[0]), 5: ratio(b1[0], n1[0]), 9: ratio(b2[0], c2[0]), 10: ratio(b2[0], n2[0]),
                 12: ratio(b1[0], o1[0])}
            for col, v in r.items():
                if v is not None and col in ratios:
                    ratios[col].append((v, name))
            row = [name, ms(c1[0]), ms(b1[0]), ms(n1[0]), fmt_ratio(r[4]), fmt_ratio(r[5]),
                   ms(c2[0]), ms(b2[0]), ms(n2[0]), fmt_ratio(r[9]), fmt_ratio(r[10])]
            if a.old:
                row += [ms(o1[0]), fmt_ratio(r[12])]
            rows.append(row + ["; ".join(notes)])
            print(f"  ({name} done)", file=sys.stderr, flush=True)

    geo = ["geometric mean"] + [""] * (len(heads) - 1)
    worst = ["worst"] + [""] * (len(heads) - 1)
    worst_names = []
    for col, vs in ratios.items():
        if vs and col < len(heads) - 1:
            geo[col] = f"{math.exp(sum(math.log(v) for v, _ in vs) / len(vs)):.2f}"
            v, name = max(vs)
            worst[col] = f"{v:.2f}"
            worst_names.append(f"{heads[col]}: {name}")
    table = rows + [geo, worst]
    print(f"medians of {a.reps} reps (the median of {max(1, a.rounds)} interleaved rounds), brine --release --cpu={a.cpu}")
    print_table(heads, table)
    print("worst rows: " + "; ".join(worst_names))
    shutil.rmtree(tmp)
    if failed:
        print("some variants failed their check against C (see the note column)", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
