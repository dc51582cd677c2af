#!/usr/bin/env python3
"""Long random-program campaigns: fuzz_programs.py's programs, several per build.

usage: fuzz_campaign.py BRINE [-n COUNT] [--seed S | --seeds FILE] [--exclude FILE]
                        [--batch K] [-j N] [--log FILE] [--resume] [--memory-every M]
                        [--release-off-every R] [--pass-off-every P] [--native-every K]
                        [--keep DIR]
       fuzz_campaign.py --summary FILE

A release build costs about 30 times a dev build, and a random program runs in
milliseconds, so a campaign of tens of thousands of programs is mostly C
compiler start-up. Here up to K programs (seeds in order) are generated with
their names made distinct (fuzz_programs.NAME_PREFIX) and their `main`s
renamed main_<k>, and built as one program whose `main` reads its argument:
`all` runs, in order, the members whose model run ends normally (stdout: the
model's outputs concatenated), and `K` runs member K alone, once for each
member whose model run panics (the panic ends the run). Each batch is built
and every run made in each variant:

    dev, release                       (optimizer on)   at BRINE_THREADS 1, 2, 7
                                       (release --cpu=native: every K-th batch, --native-every)
    dev --opt=none, release --opt=none (optimizer off)  at BRINE_THREADS 1, 2, 7
                                       (release off: every R-th batch, --release-off-every)
    dev --opt=-PASS for each pass      (one pass off)   at BRINE_THREADS 2
                                       (every P-th batch, --pass-off-every)

and every run must agree with every other and with the model (stdout; for a
panic the status 101, the message and the innermost place). A variant whose
C is one already run is built but not run again (the same C is the same
program). Every M-th batch (--memory-every) also runs under valgrind and with
its C built with ASan + UBSan, dev and release (memcheck.py's four modes).

A batch with a finding is taken apart: each of its programs alone goes
through fuzz_programs.run_prog; a program that fails alone is reported by its
seed (fuzz_programs.py --show SEED), and a batch whose programs all pass alone
is kept whole under --keep as batch-SEED.br.

Each batch appends one JSON line to --log as it ends (seeds, variants and runs,
problems by class, form families, seconds), so a stopped campaign keeps its
figures; --resume skips the seeds the log already has; --summary prints the
totals of a log.
"""
import argparse
import concurrent.futures as cf
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fuzz_programs as fp  # noqa: E402
import memcheck  # noqa: E402

THREADS = ("1", "2", "7")


GEN_SECONDS = 60   # a seed whose model runs longer than this is skipped


class GenTimeout(Exception):
    pass


def _gen_timeout(signum, frame):
    raise GenTimeout()


def member(seed, k):
    """(seed, imports, body lines, model stdout, panic, place) of seed as batch member k.

    Called on the main thread: an alarm bounds the model's run (twice a
    campaign stalled in a model printing an enormous array, in seeds that did
    not stall when generated alone); such a seed raises GenTimeout and is
    skipped, and the log counts it."""
    fp.NAME_PREFIX[0] = f"{k}_"
    old = signal.signal(signal.SIGALRM, _gen_timeout)
    signal.alarm(GEN_SECONDS)
    try:
        src, out, panic, place = fp.generate(seed)
        fams = fp.USED.pop(seed, [])
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)
        fp.NAME_PREFIX[0] = ""
    lines = src.rstrip("\n").split("\n")
    imports = []
    while lines and (lines[0].startswith("import ") or (imports and lines[0] == "")):
        imports.append(lines.pop(0))
    return {"seed": seed, "imports": [l for l in imports if l], "skip": len(imports), "lines": lines,
            "out": out, "panic": panic, "place": place, "fams": fams}


def batch_text(members):
    """The batch's program text and its runs: [(argument, expected stdout,
    status, panic message, place 'L:C')]. `p all` runs the members whose
    model ends normally, in order; `p K` runs member K alone (one whose model
    panics: the panic ends the run)."""
    head = [f"# fuzz batch: seeds {' '.join(str(m['seed']) for m in members)}", "import os"]
    imports = sorted({i for m in members for i in m["imports"]} - {"import os"})
    lines = head + imports + [""]
    runs = [("all", "".join(m["out"] for m in members if not m["panic"]), 0, None, None)]
    for k, m in enumerate(members):
        start = len(lines)   # lines before this member's body: its line L is start + L - skip
        lines += [f"fn main_{k}():" if l == "fn main():" else l for l in m["lines"]] + [""]
        if m["panic"]:
            place = None
            if m["place"]:
                ln, col = m["place"].split(":")
                place = f"{start + int(ln) - m['skip']}:{col}"
            runs.append((str(k), m["out"], 101, m["panic"], place))
    lines += ["fn main():", "    let batch_sel = os.args()[0]"]
    for k, m in enumerate(members):
        also = "" if m["panic"] else ' or batch_sel == "all"'
        lines.append(f'    if batch_sel == "{k}"{also}:')
        lines.append(f"        main_{k}()")
    return "\n".join(lines) + "\n", runs


def build(brine, d, name, extra):
    """(problem or None, exe, C text)."""
    exe = os.path.join(d, name)
    try:
        b = subprocess.run([brine, "build", "p.br", "-o", exe, "--emit-c"] + extra, cwd=d,
                           capture_output=True, timeout=300)
    except subprocess.TimeoutExpired:
        return f"{name} build timed out", None, None
    if b.returncode != 0:
        return f"{name} build exit {b.returncode}: " + b.stderr.decode(errors="replace")[-800:], None, None
    with open(exe + ".c", "rb") as f:
        return None, exe, f.read()


def run(exe, d, th, arg, timeout):
    env = dict(os.environ, BRINE_THREADS=th, BRINE_GPU="off")
    try:
        p = subprocess.run([exe, arg], cwd=d, env=env, capture_output=True, timeout=timeout, stdin=subprocess.DEVNULL)
        return (p.returncode, p.stdout, p.stderr)
    except subprocess.TimeoutExpired:
        return None


def variants(release_off, native=False, pass_off=True):
    """(name, options, thread counts): the optimizer on and off in dev and
    release (release off only when release_off; native: the release builds
    for this machine's processor), and each pass alone off (when pass_off)."""
    rel = ["--release"] + (["--cpu=native"] if native else [])
    v = [("dev", [], THREADS), ("release", rel, THREADS), ("opt=none", ["--opt=none"], THREADS)]
    if release_off:
        v.append(("release-opt=none", rel + ["--opt=none"], THREADS))
    return v + ([("opt=-" + p, ["--opt=-" + p], ("2",)) for p in fp.OPT_PASSES] if pass_off else [])


def judge(runs, results):
    """Every variant's run of each argument against the others and the model."""
    problems = []
    for arg, out, status, panic, place in runs:
        vals = [(k, v) for k, v in results.items() if k[2] == arg]
        problems += fp.judge_runs(vals, out, panic, place, show="/".join, tag=f"run {arg}: ")
    return problems


def check_batch(brine, d, text, runs, release_off, native, pass_off, timeout):
    """(problems, builds, runs, {(variant, threads, argument): result})."""
    with open(os.path.join(d, "p.br"), "w") as f:
        f.write(text)
    problems, results, ran = [], {}, {}
    nbuilds = nruns = 0
    for name, extra, threads in variants(release_off, native, pass_off):
        pr, exe, c = build(brine, d, name, extra)
        nbuilds += 1
        if pr:
            problems.append(pr)
            continue
        key = (c, "--release" in extra)
        if key in ran:           # the same C through the same C compiler: already run
            continue
        ran[key] = name
        for th in threads:
            for arg, *_ in runs:
                r = run(exe, d, th, arg, timeout)
                nruns += 1
                if r is None:
                    problems.append(f"{name} run {arg} BRINE_THREADS={th} timed out")
                else:
                    results[(name, th, arg)] = r
    return problems + judge(runs, results), nbuilds, nruns, results


def memory(brine, d, runs, results, timeout):
    """memcheck.py's four modes over each of the batch's runs, as golden tests: [problems], {mode: reports}."""
    test = os.path.join(d, "p.br")
    problems, reports = [], {m: 0 for m in memcheck.MODES}
    with tempfile.TemporaryDirectory(prefix="mem-", dir=d) as work:
        exes = memcheck.build(brine, test, work, memcheck.MODES)
        if isinstance(exes, str):
            return [exes], {}
        for arg, out, status, _, _ in runs:
            with open(test[:-3] + ".out", "w") as f:
                f.write(out)
            with open(test[:-3] + ".err", "wb") as f:
                f.write(results.get(("dev", "2", arg), (0, b"", b""))[2])
            for m in memcheck.MODES:
                n, p = memcheck.run_mode(m, exes[m], test, [arg], {}, status, timeout * 10)
                reports[m] += n
                if p:
                    problems.append(f"run {arg}: {p}")
    return problems, reports


def take_apart(brine, members, tmp, timeout, lock):
    """[(seed, problems)] of the members that fail alone."""
    out = []
    for m in members:
        with lock:   # fp.generate keeps module state
            gen = fp.generate(m["seed"])
            fp.USED.pop(m["seed"], None)
        problems, *_ = fp.run_prog(brine, m["seed"], gen, tmp, timeout)
        if problems:
            out.append((m["seed"], problems))
    return out


def do_batch(brine, members, keep, timeout, mem, release_off, native, pass_off, lock):
    t0 = time.time()
    text, runs = batch_text(members)
    rec = {"seeds": [m["seed"] for m in members], "fam_counts": {}, "panics": len(runs) - 1,
           "release_off": bool(release_off), "native": native, "pass_off": pass_off}
    for m in members:
        for f in m["fams"]:
            rec["fam_counts"][f] = rec["fam_counts"].get(f, 0) + 1
    with tempfile.TemporaryDirectory(prefix="brine-camp-") as d:
        problems, builds, nruns, results = check_batch(brine, d, text, runs, release_off, native, pass_off, timeout)
        rec.update(builds=builds, runs=nruns)
        if mem and not problems:
            mp, reports = memory(brine, d, runs, results, timeout)
            rec["memory"] = reports
            problems += ["memory: " + p for p in mp]
        if problems:
            rec["problems"] = problems
            rec["classes"] = sorted({"memory" if p.startswith("memory:") else fp.classify(p) for p in problems})
            alone = take_apart(brine, members, d, timeout, lock)
            rec["alone"] = [[s, pr] for s, pr in alone]
            os.makedirs(keep, exist_ok=True)
            with open(os.path.join(keep, f"batch-{members[0]['seed']}.br"), "w") as f:
                f.write(text)
            with open(os.path.join(keep, f"batch-{members[0]['seed']}.model"), "w") as f:
                f.write("".join(f"# ---- run {a}: status {st}" + (f", panic: {pn} at {pl}" if pn else "") + "\n" + o
                                for a, o, st, pn, pl in runs))
    rec["secs"] = round(time.time() - t0, 2)
    return rec


def summary(path):
    recs = []
    with open(path) as f:
        for line in f:
            if line.strip():
                recs.append(json.loads(line))
    progs = sum(len(r["seeds"]) for r in recs)
    cls, fams, mem = {}, {}, {}
    for r in recs:
        for c in r.get("classes", []):
            cls[c] = cls.get(c, 0) + 1
        for f, n in r.get("fam_counts", {}).items():
            fams[f] = fams.get(f, 0) + n
        for m, n in r.get("memory", {}).items():
            mem.setdefault(m, [0, 0])
            mem[m][0] += 1
            mem[m][1] += n
    seeds = [s for r in recs for s in r["seeds"]]
    print(f"{progs} programs in {sum(1 for r in recs if r['seeds'])} batches (seeds {min(seeds) if seeds else '-'}..{max(seeds) if seeds else '-'}), "
          f"{sum(r.get('builds', 0) for r in recs)} builds, {sum(r.get('runs', 0) for r in recs)} runs, "
          f"{sum(r['secs'] for r in recs):.0f} s of batch time")
    print(f"programs ending in a panic (a run each): {sum(r.get('panics', 0) for r in recs)}; "
          f"batches also built --release --opt=none: {sum(r.get('release_off', False) for r in recs)} "
          f"({sum(len(r['seeds']) for r in recs if r.get('release_off'))} programs)")
    skipped = [s for r in recs for s in r.get("skipped", [])]
    print(f"seeds skipped (the model ran too long): {len(skipped)}" + (f" ({', '.join(map(str, skipped))})" if skipped else ""))
    print("batches with findings by class: " + (", ".join(f"{k} {v}" for k, v in sorted(cls.items())) or "none"))
    print("programs failing alone: " + (", ".join(str(s) for r in recs for s, _ in r.get("alone", [])) or "none"))
    print("memory-checked batches (batches/reports per mode): " +
          (", ".join(f"{m} {v[0]}/{v[1]}" for m, v in sorted(mem.items())) or "none"))
    print("programs per form family: " + ", ".join(f"{f} {fams.get(f, 0)}" for f in fp.FAMILIES))
    return 1 if cls else 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("brine", nargs="?")
    ap.add_argument("-n", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--batch", type=int, default=8, help="programs per build")
    ap.add_argument("-j", type=int, default=2)
    ap.add_argument("--timeout", type=int, default=60)
    ap.add_argument("--log", default="/tmp/brine-campaign.jsonl")
    ap.add_argument("--resume", action="store_true")
    ap.add_argument("--memory-every", type=int, default=0, help="every M-th batch under valgrind and ASan (0: none)")
    ap.add_argument("--release-off-every", type=int, default=1,
                    help="every R-th batch also built --release --opt=none (1: all)")
    ap.add_argument("--seeds", help="a file of seeds (A-B ranges, # comments) instead of -n/--seed")
    ap.add_argument("--exclude", help="a file of seeds to leave out (known findings being fixed elsewhere)")
    ap.add_argument("--pass-off-every", type=int, default=1,
                    help="every P-th batch also built with each optimizer pass alone off (1: all)")
    ap.add_argument("--native-every", type=int, default=0,
                    help="every K-th batch's release builds for this machine's processor, --cpu=native (0: none)")
    ap.add_argument("--keep", default="/tmp/brine-fuzz")
    ap.add_argument("--summary")
    a = ap.parse_args()
    sys.setrecursionlimit(10000)
    if a.summary:
        return summary(a.summary)
    if not a.brine:
        ap.error("BRINE is needed")
    if a.memory_every and not (shutil.which("valgrind") and os.path.exists(memcheck.tree(os.path.abspath(a.brine))[1])):
        print("fuzz_campaign: --memory-every needs valgrind and the ASan runtime (make asan-runtime)", file=sys.stderr)
        return 2
    brine = os.path.abspath(a.brine)
    done = set()
    if a.resume and os.path.exists(a.log):
        with open(a.log) as f:
            done = {s for line in f if line.strip() for s in json.loads(line)["seeds"]}
    elif os.path.exists(a.log):
        os.unlink(a.log)
    lock = threading.Lock()
    slots = threading.Semaphore(2 * a.j)
    bad = 0
    nb = 0

    def finished(fu):
        nonlocal bad
        try:
            rec = fu.result()
        except Exception as e:   # a bug here or in the generator
            rec = {"seeds": [], "classes": ["generator"], "problems": [repr(e)], "secs": 0}
        with lock:
            with open(a.log, "a") as f:
                f.write(json.dumps(rec) + "\n")
        if rec.get("problems"):
            bad += 1
            print(f"batch {rec['seeds'][:1]}: [{','.join(rec['classes'])}] " + " | ".join(rec["problems"])[:2000]
                  + "".join(f"\n  seed {s} alone: " + " | ".join(p)[:1000] for s, p in rec.get("alone", [])), flush=True)
        slots.release()

    with cf.ThreadPoolExecutor(a.j) as ex:
        members = []
        seeds = fp.read_seeds(a.seeds) if a.seeds else list(range(a.seed, a.seed + a.n))
        skip = set(fp.read_seeds(a.exclude)) if a.exclude else set()
        seeds = [s for s in seeds if s not in done and s not in skip]
        for i, s in enumerate(seeds):
            with lock:
                try:
                    m = member(s, len(members))
                except GenTimeout:
                    print(f"seed {s}: the model ran over {GEN_SECONDS} s; skipped", flush=True)
                    with open(a.log, "a") as f:
                        f.write(json.dumps({"seeds": [], "skipped": [s], "secs": 0}) + "\n")
                    m = None
                except Exception as e:   # a bug in the generator itself
                    print(f"seed {s}: generator error {e!r}", flush=True)
                    m = None
            if m is not None:
                members.append(m)
            if members and (len(members) == a.batch or i == len(seeds) - 1):
                slots.acquire()
                nb += 1
                mem = a.memory_every and nb % a.memory_every == 0
                roff = nb % a.release_off_every == 0
                native = bool(a.native_every) and nb % a.native_every == 0
                poff = (nb - 1) % a.pass_off_every == 0   # the first batch, then every P-th
                ex.submit(do_batch, brine, members, a.keep, a.timeout, mem, roff, native, poff,
                          lock).add_done_callback(finished)
                members = []
    return summary(a.log) or (1 if bad else 0)


if __name__ == "__main__":
    sys.exit(main())
