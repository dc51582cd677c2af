#!/usr/bin/env python3
"""Golden programs under valgrind and under ASan + UBSan, dev and release
(make check-memory, through gen_matrix.py).

usage: memcheck.py BRINE [-j N] [--modes M,M] [--timeout S] PATH...

Each PATH is a golden test (NAME.br with NAME.out) or a folder of them;
compile-error tests (`# exit: 1`) are skipped. The program's C is written once
(`brine build --emit-c`: dev and release builds compile the same C, with tcc
and with gcc) and run in each mode:

    dev-vg    the dev build (libtcc) under valgrind
    rel-vg    the release build (gcc -O2) under valgrind
    asan-dev  the C built by gcc -O0 as tcc sees it (-D__TINYC__: the
              runtime header's portable branches) with -fsanitize=address,undefined
    asan-rel  the C built by gcc -O2 with -fsanitize=address,undefined

both ASan builds linked against build/asan/libbrine_rt.a (make asan-runtime),
the runtime built instrumented too. A run fails on a valgrind error or
definite leak, an ASan/UBSan/LeakSanitizer report, a signal, or stdout,
stderr or status other than the test's. Prints one line per failure, the
findings per mode, and "N passed, N failed"; exits 1 if any failed.
"""
import argparse
import concurrent.futures as cf
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from valgrind_golden import VALGRIND, collect, headers, judge  # noqa: E402

MODES = ["dev-vg", "rel-vg", "asan-dev", "asan-rel"]
ASAN = ["-fsanitize=address,undefined", "-fno-sanitize-recover=undefined", "-fno-omit-frame-pointer", "-g"]
# one error report of valgrind or a sanitizer (counted for the summary)
REPORT = re.compile(r"Invalid (?:read|write|free)|Conditional jump|uninitialised value|definitely lost"
                    r"|Source and destination overlap|ERROR: AddressSanitizer|ERROR: LeakSanitizer|runtime error:")
ASAN_ENV = {"ASAN_OPTIONS": "detect_leaks=1:abort_on_error=0:exitcode=23",
            "UBSAN_OPTIONS": "print_stacktrace=1:halt_on_error=1:exitcode=23",
            "LSAN_OPTIONS": "exitcode=23"}


def tree(brine):
    """build/ of this brine: its include folder and the ASan runtime."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(brine)))
    return os.path.join(root, "lib", "brine", "include"), os.path.join(root, "asan", "libbrine_rt.a")


def build(brine, test, work, modes):
    """The executables of each mode (mode -> path), or an error string."""
    d, base = os.path.split(os.path.abspath(test))
    exe = os.path.join(work, "dev")
    b = subprocess.run([brine, "build", base, "--emit-c", "-o", exe], cwd=d, capture_output=True, timeout=600)
    if b.returncode != 0:
        return f"build failed ({b.returncode}): {b.stderr.decode(errors='replace')[:300]}"
    out = {"dev-vg": exe}
    if "rel-vg" in modes:
        rel = os.path.join(work, "rel")
        b = subprocess.run([brine, "build", base, "--release", "-o", rel], cwd=d, capture_output=True, timeout=600)
        if b.returncode != 0:
            return f"release build failed ({b.returncode}): {b.stderr.decode(errors='replace')[:300]}"
        out["rel-vg"] = rel
    inc, lib = tree(brine)
    cc = os.environ.get("CC", "gcc")
    for mode, extra in (("asan-dev", ["-O0", "-D__TINYC__"]), ("asan-rel", ["-O2"])):
        if mode not in modes:
            continue
        path = os.path.join(work, mode)
        b = subprocess.run([cc, "-std=gnu11", "-ffp-contract=off", "-w"] + ASAN + extra +
                           ["-I", inc, exe + ".c", lib, "-lm", "-lpthread", "-ldl", "-o", path],
                           capture_output=True, timeout=600)
        if b.returncode != 0:
            return f"{mode} build failed: {b.stderr.decode(errors='replace')[:300]}"
        out[mode] = path
    return out


def run_mode(mode, exe, test, args, env, exit_code, timeout):
    """(reports: the number of error reports, 1 at least for a signal or a
    timeout; problem text or ''). The sanitizers' reports go to
    files beside exe (log_path adds the pid), valgrind's to a pipe."""
    d = os.path.dirname(os.path.abspath(test))
    runenv = dict(os.environ)
    runenv.setdefault("BRINE_THREADS", "2")
    runenv.update(env)
    logr, logw = os.pipe()
    if mode.endswith("-vg"):
        cmd = VALGRIND + [f"--log-fd={logw}", exe] + args
    else:
        runenv.update(ASAN_ENV)
        for k in ASAN_ENV:
            runenv[k] += f":log_path={exe}.log"
        cmd = [exe] + args
    try:
        p = subprocess.run(cmd, cwd=d, env=runenv, stdin=subprocess.DEVNULL, capture_output=True,
                           timeout=timeout, pass_fds=(logw,))
    except subprocess.TimeoutExpired:
        os.close(logw)
        os.close(logr)
        return 1, f"{mode}: timeout after {timeout} s"
    os.close(logw)
    with os.fdopen(logr, "rb") as f:
        log = f.read().decode(errors="replace")
    work, name = os.path.split(exe)
    for f in sorted(os.listdir(work)):
        if f.startswith(name + ".log"):
            with open(os.path.join(work, f), errors="replace") as fh:
                log += fh.read()
            os.unlink(os.path.join(work, f))
    finding = len(REPORT.findall(log)) or int(bool(log.strip()) or p.returncode < 0)
    problems = judge(p, log, "report", test, exit_code, stderr_with_report=False)
    return finding, (f"{mode}: " + "; ".join(problems)) if problems else ""


def check_one(brine, test, modes, timeout):
    """{mode: (finding, problem)} or an error string."""
    exit_code, env, args = headers(test)
    if exit_code == 1:
        return None
    with tempfile.TemporaryDirectory(prefix="brine-mem-") as work:
        exes = build(brine, test, work, modes)
        if isinstance(exes, str):
            return exes
        return {m: run_mode(m, exes[m], test, args, env, exit_code, timeout) for m in modes}


def check(brine, tests, modes, jobs=2, timeout=60, out=sys.stdout):
    """Runs tests in modes; returns (passed, failed, findings per mode:
    [programs with a report, reports])."""
    passed = failed = 0
    findings = {m: [0, 0] for m in modes}
    with cf.ThreadPoolExecutor(jobs) as ex:
        futs = [(t, ex.submit(check_one, brine, t, modes, timeout)) for t in tests]
        for t, fu in futs:
            r = fu.result()
            if r is None:
                continue
            if isinstance(r, str):
                failed += 1
                print(f"FAIL {t}: {r}", file=out, flush=True)
                continue
            bad = [p for (_, p) in r.values() if p]
            for m, (finding, _) in r.items():
                findings[m][0] += finding > 0
                findings[m][1] += finding
            if bad:
                failed += 1
                print(f"FAIL {t}: " + "; ".join(bad), file=out, flush=True)
            else:
                passed += 1
    print("findings (programs/reports): " + ", ".join(f"{m} {n[0]}/{n[1]}" for m, n in findings.items()), file=out)
    print(f"{passed} passed, {failed} failed", file=out)
    return passed, failed, findings


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("brine")
    ap.add_argument("paths", nargs="+")
    ap.add_argument("-j", type=int, default=2)
    ap.add_argument("--modes", default=",".join(MODES))
    ap.add_argument("--timeout", type=int, default=60)
    a = ap.parse_args()
    modes = [m for m in a.modes.split(",") if m]
    for m in modes:
        if m not in MODES:
            print(f"memcheck: unknown mode {m} (modes: {', '.join(MODES)})", file=sys.stderr)
            return 2
    if any(m.endswith("-vg") for m in modes) and not shutil.which("valgrind"):
        print("memcheck: valgrind is not installed", file=sys.stderr)
        return 2
    brine = os.path.abspath(a.brine)
    if any(m.startswith("asan") for m in modes) and not os.path.exists(tree(brine)[1]):
        print("memcheck: no ASan runtime: run make asan-runtime", file=sys.stderr)
        return 2
    passed, failed, _ = check(brine, collect(a.paths), modes, a.j, a.timeout)
    return 1 if failed or passed == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
