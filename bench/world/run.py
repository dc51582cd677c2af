#!/usr/bin/env python3
"""bench/world/run.py: a distributed sum of 10^8 terms, brine's world.sum against MPI_Allreduce.

Two workloads, each one reduction over i in 0..n (n = 10^8, --n overrides):
harmonic (1/(i+1)) and dot (((i % 13) * 0.25 - 1.5) * 1/(i+1), vectors that are functions
of the index). For each MPI implementation installed (Open MPI through mpirun.openmpi,
MPICH through mpiexec.mpich; --mpi chooses) and each rank count R (--ranks, default 1 2 4;
more ranks than cores are oversubscribed), it runs under the launcher:

- C: allreduce.c, each rank's contiguous block summed by a plain loop, then MPI_Allreduce;
- C 8acc: the same with 8 accumulators, a loop the C compiler vectorises;
- brine: harmonic.br / dot.br (world.sum of a generator), each rank's pool at its default
  size (the CPUs the launcher lets the rank use), and at BRINE_THREADS=1.

Every program runs its reduction once untimed, then --reps timed times, each after a
barrier, rank 0 printing `seconds T` per rep and the result with 17 digits; the four
programs of a row alternate, --rounds times. The table gives medians in ms, brine at 1 thread per rank over C (the overhead target is <= 1.05) and the
results; below it, per workload, whether brine's bits are the same at every R and
implementation (they must be) and the distinct values MPI_Allreduce gave. Timings on shared
2-core machines are noisy: compare rows of one run.

    bench/world/run.py [--brine build/bin/brine] [--reps 5] [--rounds 3] [--n 100000000] [--ranks 1,2,4]
                       [--mpi openmpi,mpich] [--only harmonic,dot]
"""
import argparse, os, shutil, statistics, subprocess, sys, tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
from benchlib import measure  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(HERE))
CFLAGS = ["-O3", "-march=native", "-ffp-contract=off"]
WORKLOADS = [("harmonic", "harmonic.br", []), ("dot", "dot.br", ["-DDOT"])]
# implementation: (C compiler wrapper, launcher, launcher flags for R ranks on `cores` cores)
IMPLS = {
    "openmpi": ("mpicc.openmpi", "mpirun.openmpi",
                lambda r, cores: ["-q"] + (["--oversubscribe", "--mca", "mpi_yield_when_idle", "1",
                                            "--bind-to", "none"] if r > cores else [])),
    "mpich": ("mpicc.mpich", "mpiexec.mpich", lambda r, cores: []),
}


def median_of(runs):
    """The median of one program's runs' medians (None if any run failed)."""
    ts = [t for t, _, _ in runs]
    return None if None in ts else statistics.median(ts)


def build(cmd, what):
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"world bench: building {what} failed:\n{p.stdout}{p.stderr}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--brine", default=os.path.join(ROOT, "build/bin/brine"))
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--n", type=int, default=100_000_000)
    ap.add_argument("--ranks", default="1,2,4")
    ap.add_argument("--mpi", default="", help="comma-separated: openmpi,mpich (default: each installed)")
    ap.add_argument("--only", default="", help="comma-separated: harmonic,dot")
    a = ap.parse_args()
    impls = a.mpi.split(",") if a.mpi else [m for m in IMPLS if shutil.which(IMPLS[m][0]) and shutil.which(IMPLS[m][1])]
    for m in impls:
        if m not in IMPLS:
            sys.exit(f"world bench: --mpi must list openmpi or mpich, got '{m}'")
        if not (shutil.which(IMPLS[m][0]) and shutil.which(IMPLS[m][1])):
            sys.exit(f"world bench: {m} is not installed ({IMPLS[m][0]}, {IMPLS[m][1]}; make deps)")
    if not impls:
        sys.exit("world bench: no MPI installed (make deps installs Open MPI and MPICH)")
    only = set(a.only.split(",")) if a.only else None
    work = [w for w in WORKLOADS if only is None or w[0] in only]
    ranks = [int(r) for r in a.ranks.split(",")]
    cores = os.cpu_count() or 1
    env = {"BENCH_REPS": str(a.reps), "BENCH_N": str(a.n),
           "OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1"}
    tmp = tempfile.mkdtemp(prefix="brine-world-bench-")
    try:
        out = os.path.join(tmp, "out")
        rows, results = [], {}
        for name, br, defs in work:
            build([a.brine, "build", os.path.join(HERE, br), "-o", os.path.join(tmp, name),
                   "--release", "--cpu=native"], br)
            for m in impls:
                for acc, suffix in (([], ""), (["-DACC=8"], "8")):
                    build([IMPLS[m][0]] + CFLAGS + defs + acc + ["-o", os.path.join(tmp, f"{name}_{m}{suffix}"),
                           os.path.join(HERE, "allreduce.c")], f"allreduce.c for {m}")
        for name, _, _ in work:
            for m in impls:
                launch = IMPLS[m][1]
                for r in ranks:
                    pre = [launch] + IMPLS[m][2](r, cores) + ["-n", str(r)]
                    runs = [(pre + [os.path.join(tmp, f"{name}_{m}")], env),
                            (pre + [os.path.join(tmp, f"{name}_{m}8")], env),
                            (pre + [os.path.join(tmp, name)], env),
                            (pre + [os.path.join(tmp, name)], dict(env, BRINE_THREADS="1"))]
                    # the four alternate, --rounds times, so a burst of load hits them alike
                    got = [[] for _ in runs]
                    for _ in range(a.rounds):
                        for k, (cmd, e) in enumerate(runs):
                            got[k].append(measure(cmd, e, out))
                    med = [median_of(g) for g in got]
                    res = [g[-1][1] for g in got]
                    results.setdefault(name, []).append((m, r) + tuple(res))
                    rows.append((name, m, r) + tuple(med) + (res[0], res[2]))
        print(f"n = {a.n}, {a.rounds} rounds of {a.reps} reps, {cores} cores; medians in ms\n")
        print("| workload | MPI | R | C loop + Allreduce | C 8acc + Allreduce | brine | brine 1 thread/rank"
              " | brine 1t / C | brine 1t / C 8acc | C result | brine result |")
        print("|---|---|--:|--:|--:|--:|--:|--:|--:|---|---|")

        def ms(t):
            return f"{t * 1e3:.1f}" if t is not None else "failed"

        def ratio(x, y):
            return f"{x / y:.2f}" if x and y else "-"
        for name, m, r, c, c8, bd, b1, cres, bres in rows:
            print(f"| {name} | {m} | {r} | {ms(c)} | {ms(c8)} | {ms(bd)} | {ms(b1)} | {ratio(b1, c)} | {ratio(b1, c8)}"
                  f" | {' '.join(cres)} | {' '.join(bres)} |")
        print()
        for name, rs in results.items():
            brine = {tuple(x[4]) for x in rs} | {tuple(x[5]) for x in rs}
            c = sorted({" ".join(x[2]) for x in rs} | {" ".join(x[3]) for x in rs})
            same = "the same bits at every R, every MPI, 1 thread or more" if len(brine) == 1 else "DIFFERENT BITS!"
            print(f"- {name}: brine {' / '.join(' '.join(b) for b in sorted(brine))}: {same}; "
                  f"MPI_Allreduce programs: {len(c)} distinct results: {', '.join(c)}")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
