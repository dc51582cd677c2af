#!/usr/bin/env python3
"""bench/compile.py: how fast brine builds, and what its programs cost (issue: the compiler end
to end). Prints one table:

  - dev build (libtcc) and release build ($CC) of generated 1,000- and 10,000-line programs;
  - brine's own front half (check + lower + emit C, `brine --dump=c`) on the 10,000-line
    program, with its peak RSS, and the lines of C it writes for each program;
  - beside each wall time, the CPU time (user + system, the C compiler's included): on a
    shared machine the wall time of a parallel release build depends on the other load;
  - harmonic (n = 10^7, the seed's program) run time in dev and release builds;
  - peak RSS of a program that builds and drops a 10^6-element array 1,000 times, against the
    same program doing it once (constant memory means the two match).

    bench/compile.py [--brine build/bin/brine] [--reps 5]
"""
import argparse, os, shutil, statistics, subprocess, sys, tempfile, time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

HARMONIC = """fn main():
    let n = 10_000_000
    let tree = par sum(1.0 / float(i) for i in 1..=n)
    let left = sum(1.0 / float(i) for i in 1..=n)
    print(f"par sum: {tree}")
    print(f"sum:     {left}")
"""

CHURN = """fn main():
    var total = 0
    for k in 0..ROUNDS:
        var xs = [0] * 1_000_000
        xs[k % 1000] = k
        let ys = xs + [1]
        total += len(ys) + ys[k % 1000]
    print(total)
"""

def timed(cmd, cwd=None, env=None):
    """Runs cmd, returns (seconds, peak RSS MB, CPU seconds of it and its children)."""
    e = dict(os.environ)
    e.update(env or {})
    t0 = time.monotonic()
    pid = os.fork()
    if pid == 0:
        if cwd:
            os.chdir(cwd)
        nul = os.open(os.devnull, os.O_WRONLY)
        os.dup2(nul, 1)
        os.dup2(nul, 2)
        os.execvpe(cmd[0], cmd, e)
    _, status, usage = os.wait4(pid, 0)
    secs = time.monotonic() - t0
    code = os.waitstatus_to_exitcode(status)
    if code != 0:
        raise SystemExit(f"{' '.join(cmd)} exited {code}")
    return secs, usage.ru_maxrss / 1024.0, usage.ru_utime + usage.ru_stime

def median_of(reps, cmd, **kw):
    runs = [timed(cmd, **kw) for _ in range(reps)]
    return statistics.median(r[0] for r in runs), max(r[1] for r in runs), statistics.median(r[2] for r in runs)

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--brine", default=os.path.join(ROOT, "build/bin/brine"))
    ap.add_argument("--reps", type=int, default=5)
    a = ap.parse_args()
    brine = os.path.abspath(a.brine)
    tmp = tempfile.mkdtemp(prefix="brine-compile-")
    rows = []
    for lines in (1000, 10000):
        src = os.path.join(tmp, f"p{lines}.br")
        with open(src, "w") as f:
            subprocess.run([sys.executable, os.path.join(HERE, "gen_program.py"), str(lines)], stdout=f, check=True)
        n = sum(1 for _ in open(src))
        exe = os.path.join(tmp, f"p{lines}")
        c_lines = subprocess.run([brine, "--dump=c", src], capture_output=True, check=True).stdout.count(b"\n")
        rows.append((f"generated C, {n} lines: {c_lines} lines", None, None, None))
        rows.append((f"dev build, {n} lines", *median_of(a.reps, [brine, "build", src, "-o", exe])))
        rows.append((f"release build, {n} lines",
                     *median_of(max(1, a.reps // 2), [brine, "build", src, "--release", "-o", exe])))
        rows.append((f"check + emit C, {n} lines", *median_of(a.reps, [brine, "--dump=c", src])))
    src = os.path.join(tmp, "harmonic.br")
    with open(src, "w") as f:
        f.write(HARMONIC)
    for mode, extra in (("dev", []), ("release", ["--release"])):
        exe = os.path.join(tmp, "harmonic-" + mode)
        subprocess.run([brine, "build", src, "-o", exe, *extra], check=True)
        rows.append((f"harmonic n=1e7 run, {mode}, 1 thread", *median_of(a.reps, [exe], env={"BRINE_THREADS": "1"})))
    for rounds in (1, 1000):
        src = os.path.join(tmp, f"churn{rounds}.br")
        with open(src, "w") as f:
            f.write(CHURN.replace("ROUNDS", str(rounds)))
        exe = os.path.join(tmp, f"churn{rounds}")
        subprocess.run([brine, "build", src, "--release", "-o", exe], check=True)
        rows.append((f"array 10^6 build+drop x{rounds}", *median_of(1, [exe])))
    print(f"{'what':42} {'median s':>10} {'CPU s':>10} {'peak RSS MB':>12}")
    for what, s, m, cpu in rows:
        if s is None:
            print(what)
        else:
            print(f"{what:42} {s:10.4f} {cpu:10.4f} {m:12.1f}")
    shutil.rmtree(tmp)

if __name__ == "__main__":
    main()
