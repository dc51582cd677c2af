#!/usr/bin/env python3
"""bench/run.py: brine's par reductions side by side with their peers, in one run.

Every workload is written once per contender (brine par at BRINE_THREADS=1 and 2, brine
sequential, a plain C loop at gcc -O3 with strict IEEE, OpenMP at 2 threads with and without
-ffast-math, numpy where natural). Each program times its own kernel REPS times with a monotonic
clock (setup excluded) and prints `result X` and `seconds T` lines; this script takes the median,
the ratio to the plain C loop, the result's bits (float.hex) and the peak RSS of the process.

    bench/run.py [--brine build/bin/brine] [--reps 5] [--only W2,W5] [--big]

--big adds the long rows (W2 at n = 10^8 and 10^9 for the memory bound). Timings on shared
2-core machines are noisy: read ratios from one run, never across runs.
"""
import argparse, os, shutil, statistics, subprocess, sys, tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchlib import measure  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

# ---- the workloads ---------------------------------------------------------------------
# Each: brine setup lines, the timed brine expression(s), C setup, C timed body, numpy code.
# In C, `s` is the accumulator (double or long long), `n` the size; OpenMP variants put
# `#pragma omp parallel for reduction(+:s)` on the same loop.

W = {}

def workload(name, n, brine_setup, brine_par, brine_seq, c_type, c_setup, c_loop, np_setup=None, np_expr=None, note="",
             brine_extra=()):
    W[name] = dict(n=n, brine_setup=brine_setup, brine_par=brine_par, brine_seq=brine_seq,
                   c_type=c_type, c_setup=c_setup, c_loop=c_loop, np_setup=np_setup,
                   np_expr=np_expr, note=note, brine_extra=brine_extra)

workload("W1 sum 1e7 floats", 10_000_000,
         "let xs = par [float(i % 1000) * 0.001 + 0.5 for i in 0..n]",
         "par sum(x for x in xs)", "sum(x for x in xs)",
         "double", "double *xs = malloc(n * sizeof *xs); for (long long i = 0; i < n; i++) xs[i] = (double)(i % 1000) * 0.001 + 0.5;",
         "for (long long i = 0; i < n; i++) s += xs[i];",
         "xs = (np.arange(n) % 1000) * 0.001 + 0.5", "np.sum(xs)")
for n, tag in ((10_000_000, "1e7"), (100_000_000, "1e8")):
    workload(f"W2 harmonic {tag}", n, "",
             "par sum(1.0 / float(i) for i in 1..=n)", "sum(1.0 / float(i) for i in 1..=n)",
             "double", "", "for (long long i = 1; i <= n; i++) s += 1.0 / (double)i;",
             "", "np.sum(1.0 / np.arange(1, n + 1, dtype=np.float64))")
workload("W3 filtered int sum 1e7", 10_000_000, "",
         "par sum(i for i in 0..n if i % 3 != 0)", "sum(i for i in 0..n if i % 3 != 0)",
         "long long", "", "for (long long i = 0; i < n; i++) if (i % 3 != 0) s += i;",
         "", "int(np.sum(np.arange(n)[np.arange(n) % 3 != 0]))",
         brine_extra=(("unchecked", "w3_unchecked(n)"),))
workload("W4 dot 1e7", 10_000_000,
         "let xs = par [float(i % 1000) * 0.001 for i in 0..n]\n    let ys = par [float(i % 777) * 0.002 for i in 0..n]",
         "par sum(xs[i] * ys[i] for i in 0..n)", "sum(xs[i] * ys[i] for i in 0..n)",
         "double", "double *xs = malloc(n * sizeof *xs), *ys = malloc(n * sizeof *ys); for (long long i = 0; i < n; i++) { xs[i] = (double)(i % 1000) * 0.001; ys[i] = (double)(i % 777) * 0.002; }",
         "for (long long i = 0; i < n; i++) s += xs[i] * ys[i];",
         "xs = (np.arange(n) % 1000) * 0.001; ys = (np.arange(n) % 777) * 0.002", "np.dot(xs, ys)")
for n in (10, 1000, 100_000):
    inner = max(1, 10_000_000 // max(n, 1) // 10)
    workload(f"W5 tiny n={n}", n, "",
             f"rep_sum_par(n, {inner})", f"rep_sum_seq(n, {inner})",
             "double", "", f"for (int k = 0; k < {inner}; k++) {{ double t = 0; for (long long i = 1; i <= n; i++) t += 1.0 / (double)(i + k); s += t; }}",
             note=f"{inner} reductions per rep")
workload("W6 matvec 4000", 4000,
         "let a = par [float((i * 7 + 3) % 100) * 0.01 for i in 0..n * n]\n    let x = [float(j % 10) * 0.1 for j in 0..n]",
         "sum(par [par sum(a[i * n + j] * x[j] for j in 0..n) for i in 0..n])",
         "sum([sum(a[i * n + j] * x[j] for j in 0..n) for i in 0..n])",
         "double", "double *a = malloc(n * n * sizeof *a), *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y); for (long long i = 0; i < n * n; i++) a[i] = (double)((i * 7 + 3) % 100) * 0.01; for (long long j = 0; j < n; j++) x[j] = (double)(j % 10) * 0.1;",
         "OMP_FOR for (long long i = 0; i < n; i++) { double t = 0; for (long long j = 0; j < n; j++) t += a[i * n + j] * x[j]; y[i] = t; } for (long long i = 0; i < n; i++) s += y[i];",
         "a = ((np.arange(n * n) * 7 + 3) % 100 * 0.01).reshape(n, n); x = (np.arange(n) % 10) * 0.1", "np.sum(a @ x)")

BRINE_PRELUDE = """
fn rep_sum_par(n: int, inner: int) -> float:
    var s = 0.0
    for k in 0..inner:
        s += par sum(1.0 / float(i + k) for i in 1..=n)
    return s

fn w3_unchecked(n: int) -> int:
    var s = 0
    for i in 0..n:
        if i % 3 != 0:
            s = s.wrapping_add(i)
    return s

fn rep_sum_seq(n: int, inner: int) -> float:
    var s = 0.0
    for k in 0..inner:
        s += sum(1.0 / float(i + k) for i in 1..=n)
    return s
"""

def brine_program(w, expr, n, reps):
    setup = w["brine_setup"] or "pass"
    return f"""{BRINE_PRELUDE}
fn main():
    let n = {n}
    {setup}
    var r = {expr}
    for rep in 0..{reps}:
        let t0 = os.clock()
        r = {expr}
        print(f"seconds {{os.clock() - t0}}")
    print(f"result {{r}}")
"""

def c_program(w, n, reps, omp):
    loop = w["c_loop"]
    pragma = "#pragma omp parallel for reduction(+:s)"
    if "OMP_FOR" in loop:
        loop = loop.replace("OMP_FOR", "#pragma omp parallel for\n" if omp else "")
    elif omp:
        loop = pragma + "\n" + loop
    fmt = "%lld" if w["c_type"] == "long long" else "%.17g"
    return f"""#include <stdio.h>
#include <stdlib.h>
#include <time.h>
static double now(void) {{ struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec * 1e-9; }}
int main(void) {{
    long long n = {n};
    {w["c_setup"]}
    {w["c_type"]} r = 0;
    for (int rep = 0; rep <= {reps}; rep++) {{
        double t0 = now();
        {w["c_type"]} s = 0;
        {loop}
        r = s;
        if (rep > 0) printf("seconds %.9f\\n", now() - t0);
    }}
    printf("result {fmt}\\n", r);
    return 0;
}}
"""

def np_program(w, n, reps):
    return f"""import time, numpy as np
n = {n}
{w["np_setup"]}
r = {w["np_expr"]}
for rep in range({reps}):
    t0 = time.monotonic()
    r = {w["np_expr"]}
    print("seconds", time.monotonic() - t0)
print("result", repr(float(r)) if not isinstance(r, int) else r)
"""

def run_rss(cmd, env=None):
    sec, res, rss = measure(cmd, env, out_path)
    return sec, " ".join(res), rss

def bits(text):
    try:
        if "." in text or "e" in text or "inf" in text or "nan" in text:
            return float(text).hex()
        return text
    except ValueError:
        return text

def main():
    global out_path
    ap = argparse.ArgumentParser()
    ap.add_argument("--brine", default=os.path.join(ROOT, "build/bin/brine"))
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--only", default="")
    ap.add_argument("--big", action="store_true")
    a = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="brine-bench-")
    out_path = os.path.join(tmp, "out.txt")
    numpy_py = "/usr/bin/python3"
    names = [k for k in W if (not a.only or any(k.startswith(o) for o in a.only.split(",")))]
    if not a.big:
        names = [k for k in names if "1e8" not in k]
    print(f"{'workload':28} {'contender':26} {'median ms':>10} {'x plain C':>9} {'RSS MB':>7}  result bits")
    for name in names:
        w = W[name]
        n = w["n"]
        rows = []
        def build_c(tag, omp, fast):
            src = os.path.join(tmp, f"{tag}.c")
            exe = os.path.join(tmp, tag)
            with open(src, "w") as f:
                f.write(c_program(w, n, a.reps, omp))
            flags = ["-O3"] if fast else ["-O3", "-ffp-contract=off"]
            if fast: flags.append("-ffast-math")
            if omp: flags.append("-fopenmp")
            subprocess.run(["gcc", *flags, src, "-o", exe, "-lm"], check=True)
            return exe
        slug = name.split()[0] + "_" + str(n)
        c_plain = build_c(slug + "_c", False, False)
        rows.append(("C loop -O3 strict", run_rss([c_plain])))
        c_omp = build_c(slug + "_omp", True, False)
        rows.append(("OpenMP 2t strict", run_rss([c_omp], {"OMP_NUM_THREADS": "2"})))
        c_fast = build_c(slug + "_ompfast", True, True)
        rows.append(("OpenMP 2t -ffast-math", run_rss([c_fast], {"OMP_NUM_THREADS": "2"})))
        for tag, expr in (("par", w["brine_par"]), ("seq", w["brine_seq"])) + tuple(w["brine_extra"]):
            src = os.path.join(tmp, f"{slug}_{tag}.br")
            exe = os.path.join(tmp, f"{slug}_{tag}")
            with open(src, "w") as f:
                f.write(brine_program(w, expr, n, a.reps))
            b = subprocess.run([a.brine, "build", src, "--release", "-o", exe], capture_output=True, text=True)
            if b.returncode != 0:
                rows.append((f"brine {tag}", (None, "build failed: " + b.stderr.strip()[:60], None)))
                continue
            if tag == "par":
                for t in ("1", "2"):
                    rows.append((f"brine par {t}t", run_rss([exe], {"BRINE_THREADS": t, "BRINE_GPU": "off"})))
            elif tag == "seq":
                rows.append(("brine sequential", run_rss([exe], {"BRINE_THREADS": "1"})))
            else:
                rows.append((f"brine {tag} loop", run_rss([exe], {"BRINE_THREADS": "1"})))
        if w["np_expr"] and shutil.which(numpy_py):
            src = os.path.join(tmp, f"{slug}_np.py")
            with open(src, "w") as f:
                f.write(np_program(w, n, a.reps))
            rows.append(("numpy", run_rss([numpy_py, src], {"OMP_NUM_THREADS": "2", "OPENBLAS_NUM_THREADS": "2"})))
        base = rows[0][1][0]
        for contender, (sec, res, rss) in rows:
            ms = f"{sec * 1e3:10.3f}" if sec is not None else f"{'-':>10}"
            ratio = f"{sec / base:9.2f}" if sec and base else f"{'-':>9}"
            rs = f"{rss:7.1f}" if rss is not None else f"{'-':>7}"
            print(f"{name:28} {contender:26} {ms} {ratio} {rs}  {bits(res)}")
        if w["note"]:
            print(f"{'':28} ({w['note']})")
        sys.stdout.flush()
    if a.big and (not a.only or "W2" in a.only):
        src = os.path.join(tmp, "w2_1e9.br")
        exe = os.path.join(tmp, "w2_1e9")
        with open(src, "w") as f:
            f.write(brine_program(W["W2 harmonic 1e7"], W["W2 harmonic 1e7"]["brine_par"], 1_000_000_000, 1))
        subprocess.run([a.brine, "build", src, "--release", "-o", exe], check=True)
        sec, res, rss = run_rss([exe], {"BRINE_THREADS": "2", "BRINE_GPU": "off"})
        print(f"{'W2 harmonic 1e9':28} {'brine par 2t':26} {sec * 1e3 if sec else 0:10.3f} {'':>9} {rss:7.1f}  {bits(res)}")
    shutil.rmtree(tmp)

if __name__ == "__main__":
    main()
