#!/usr/bin/env python3
"""tests/lsp/latency.py BRINE [LINES] [--limit-ms MS]: the language server on a big file.

Makes a LINES-line program (bench/gen_program.py, default 10,000), opens it, then
times (median of 10 each): a change (one line edited, from the didChange sent to
its diagnostics received, with no debounce, and with the default 30 ms one), a
hover, a completion and a definition. Wall times depend on what else the
machine runs; the server's log (BRINE_LSP_LOG) also gives each analysis's CPU
time (the child's and the server's), which does not. Fails when the median
change costs more than --limit-ms (default 100) of CPU.
"""
import argparse
import os
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import lspclient  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("brine")
    ap.add_argument("lines", type=int, nargs="?", default=10000)
    ap.add_argument("--limit-ms", type=float, default=100.0)
    args = ap.parse_args()
    text = subprocess.run([sys.executable, os.path.join(ROOT, "bench", "gen_program.py"), str(args.lines)],
                          capture_output=True, check=True, text=True).stdout
    lines = text.split("\n")
    uri = "file://" + ROOT + "/tests/lsp/big.br"
    # a line in the middle: "    var acc = 0.0" of some function
    mid = next(i for i in range(len(lines) // 2, len(lines)) if lines[i].strip().startswith("var acc = 0.0"))
    use = next(i for i in range(mid, len(lines)) if "acc += x" in lines[i])
    result = {}
    log = os.path.join(os.environ.get("TMPDIR", "/tmp"), "brine-lsp-latency-%d.log" % os.getpid())
    env = dict(os.environ, BRINE_LSP_LOG=log)
    for debounce in (0, 30):
        c = lspclient.Client(os.path.abspath(args.brine), debounce_ms=debounce, env=env)
        t0 = time.perf_counter()
        d = c.open(uri, text)
        result.setdefault("open", (time.perf_counter() - t0) * 1000)
        if [x for x in d if x["severity"] == 1]:
            print("FAIL: the generated program has errors: %r" % d[:3])
            sys.exit(1)
        times = []
        for k in range(10):
            edited = lines[:]
            edited[mid] = "    var acc = %d.5" % k
            t0 = time.perf_counter()
            c.change(uri, "\n".join(edited), k + 2)
            c.wait_diagnostics(uri, k + 2)
            times.append((time.perf_counter() - t0) * 1000)
        result["change (debounce %d ms)" % debounce] = statistics.median(times)
        if debounce == 0:
            col = lines[use].index("acc")
            for name, method in (("hover", "textDocument/hover"), ("completion", "textDocument/completion"),
                                 ("definition", "textDocument/definition")):
                times = []
                for _ in range(10):
                    t0 = time.perf_counter()
                    r = c.request(method, c.pos(uri, use, col))
                    times.append((time.perf_counter() - t0) * 1000)
                    if not r:
                        print("FAIL: no %s answer" % name)
                        sys.exit(1)
                result[name] = statistics.median(times)
        c.close()
    import re
    cpu = [float(m.group(1)) for m in re.finditer(r"ms wall, ([\d.]+) ms cpu", open(log).read())]
    os.unlink(log)
    # the log: the open, 10 changes, then the same with the debounce
    result["open, cpu"] = cpu[0]
    change_cpu = statistics.median(cpu[1:11] + cpu[12:22])
    result["change, cpu"] = change_cpu
    print("brine lsp on a %d-line file (%d bytes), load average %.1f:" % (len(lines), len(text), os.getloadavg()[0]))
    for k, v in result.items():
        print("  %-26s %7.1f ms" % (k, v))
    if change_cpu > args.limit_ms:
        print("FAIL: a change cost %.1f ms of CPU, over %.0f ms" % (change_cpu, args.limit_ms))
        sys.exit(1)


if __name__ == "__main__":
    main()
