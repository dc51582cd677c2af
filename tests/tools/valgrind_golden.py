#!/usr/bin/env python3
"""Run golden tests' programs under valgrind (make check-valgrind).

usage: valgrind_golden.py BRINE [-j N] [--timeout S] PATH...

Each PATH is a golden test (NAME.br) or a folder of them. Compile-error tests
(`# exit: 1`) are skipped. Every other test is built with `BRINE build
--release` (in its own folder, so places read NAME.br:L:C) and its program run
under

    valgrind --leak-check=full --errors-for-leak-kinds=definite --error-exitcode=9

(only definite leaks shown) with the test's `# env:` and `# args:`
(BRINE_THREADS=2 unless the test sets it). A run fails when valgrind reports an error or a definite leak (status 9
and an "ERROR SUMMARY" above 0), when the program dies of a signal, or when
its stdout, stderr or status differ from the test's expectations (valgrind's
own lines are filtered out of stderr with --log-fd). Prints one line per
failure and ends with "N passed, N failed"; exits 1 if any failed.
"""
import argparse
import concurrent.futures as cf
import os
import re
import shutil
import subprocess
import sys
import tempfile

# Only definite leaks are shown and count: the pool's worker threads are
# still parked at exit, so their stacks' TLS blocks are "possibly lost".
VALGRIND = ["valgrind", "-q", "--leak-check=full", "--show-leak-kinds=definite",
            "--errors-for-leak-kinds=definite", "--error-exitcode=9"]


def headers(path):
    exit_code, env, args = 0, {}, []
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            line = line.rstrip("\r\n")
            if not line.startswith("#"):
                break
            m = re.match(r"#\s*(exit|env|args):\s*(.*)$", line)
            if not m:
                continue
            key, val = m.group(1), m.group(2).strip()
            if key == "exit":
                exit_code = int(val)
            elif key == "env":
                for kv in val.split():
                    k, _, v = kv.partition("=")
                    env[k] = v
            else:
                args = val.split()
    return exit_code, env, args


def read(path):
    try:
        with open(path, "rb") as f:
            return f.read()
    except FileNotFoundError:
        return b""


def judge(p, log, what, test, exit_code, stderr_with_report):
    """What is wrong with one run p of test: the checker's report (log, named
    what), a signal, the status, stdout and stderr against the golden's files.
    stderr is compared when there is no report, or always with
    stderr_with_report."""
    problems = []
    if log.strip():
        problems.append(what + ":\n" + "\n".join("    " + l for l in log.strip().splitlines()[:40]))
    if p.returncode < 0:
        problems.append(f"signal {-p.returncode}")
    elif p.returncode != exit_code:
        problems.append(f"status {p.returncode}, expected {exit_code}")
    if p.stdout != read(test[:-3] + ".out"):
        problems.append("stdout differs")
    if (stderr_with_report or not log.strip()) and p.stderr != read(test[:-3] + ".err"):
        problems.append("stderr differs: " + p.stderr.decode(errors="replace")[:200])
    return problems


def run_one(brine, test, tmp, timeout):
    exit_code, env, args = headers(test)
    if exit_code == 1:
        return None  # compile-error test: nothing to run
    d, base = os.path.split(os.path.abspath(test))
    name = base[:-3]
    exe = os.path.join(tmp, name + "_" + str(abs(hash(test))))
    b = subprocess.run([brine, "build", base, "--release", "-o", exe], cwd=d,
                       capture_output=True, timeout=600)
    if b.returncode != 0:
        return f"{test}: build failed ({b.returncode}): {b.stderr.decode(errors='replace')[:300]}"
    runenv = dict(os.environ)
    runenv.setdefault("BRINE_THREADS", "2")
    runenv.update(env)
    logr, logw = os.pipe()
    try:
        p = subprocess.run(VALGRIND + [f"--log-fd={logw}", exe] + args, cwd=d,
                           env=runenv, stdin=subprocess.DEVNULL,
                           capture_output=True, timeout=timeout, pass_fds=(logw,))
    except subprocess.TimeoutExpired:
        os.close(logw)
        os.close(logr)
        return f"{test}: timeout after {timeout} s under valgrind"
    os.close(logw)
    with os.fdopen(logr, "rb") as f:
        vlog = f.read().decode(errors="replace")
    os.unlink(exe)
    problems = judge(p, vlog, "valgrind", test, exit_code, stderr_with_report=True)
    if problems:
        return f"FAIL {test}: " + "; ".join(problems)
    return ""


def collect(paths):
    out = []
    for p in paths:
        if os.path.isdir(p):
            for root, _, files in os.walk(p):
                for f in files:
                    full = os.path.join(root, f)
                    if f.endswith(".br") and os.path.exists(full[:-3] + ".out"):
                        out.append(full)
        elif os.path.exists(p):
            out.append(p)
        else:
            print(f"valgrind_golden: no such test or folder: {p}", file=sys.stderr)
    return sorted(out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("brine")
    ap.add_argument("paths", nargs="+")
    ap.add_argument("-j", type=int, default=2)
    ap.add_argument("--timeout", type=int, default=300)
    a = ap.parse_args()
    if not shutil.which("valgrind"):
        print("valgrind_golden: valgrind is not installed", file=sys.stderr)
        return 2
    brine = os.path.abspath(a.brine)
    tests = collect(a.paths)
    passed = failed = 0
    with tempfile.TemporaryDirectory(prefix="brine-vg-") as tmp, \
            cf.ThreadPoolExecutor(a.j) as ex:
        futs = [(t, ex.submit(run_one, brine, t, tmp, a.timeout)) for t in tests]
        for t, fu in futs:
            r = fu.result()
            if r is None:
                continue
            if r:
                failed += 1
                print(r, flush=True)
            else:
                passed += 1
    print(f"{passed} passed, {failed} failed")
    return 1 if failed or passed == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
