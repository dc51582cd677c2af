"""bench/benchlib.py: what the benchmark drivers share.

measure(cmd, env, out_path) runs one benchmark program with env added to the
environment, its stdout to out_path (stderr dropped), and reads its `seconds T`
and `result ...` lines: (median seconds or None, the last result line's words,
peak RSS in MB); for a failed run (None, ["exit N"], rss).
print_table(heads, rows) prints a Markdown table, the first and last columns
left-aligned (names and notes), the numbers right-aligned.
"""
import os, statistics


def measure(cmd, env, out_path, cpus=None):
    """Run cmd with env added (cpus: the set of CPUs it may run on), its
    stdout in out_path: (median of its `seconds` lines, its last result's
    words, max RSS in MiB)."""
    full = dict(os.environ)
    full.update(env or {})
    pid = os.fork()
    if pid == 0:
        if cpus:
            os.sched_setaffinity(0, cpus)
        fd = os.open(out_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
        os.dup2(fd, 1)
        os.dup2(os.open(os.devnull, os.O_WRONLY), 2)
        os.execvpe(cmd[0], cmd, full)
    _, status, usage = os.wait4(pid, 0)
    with open(out_path) as f:
        out = f.read()
    code = os.waitstatus_to_exitcode(status)
    rss = usage.ru_maxrss / 1024.0
    if code != 0:
        return None, [f"exit {code}"], rss
    secs = [float(l.split()[1]) for l in out.splitlines() if l.startswith("seconds")]
    res = [l.split()[1:] for l in out.splitlines() if l.startswith("result")]
    return (statistics.median(secs) if secs else None), (res[-1] if res else ["?"]), rss


def print_table(heads, rows):
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(heads)]

    def line(cells):
        return "| " + " | ".join(c.ljust(w) if i in (0, len(heads) - 1) else c.rjust(w)
                                  for i, (c, w) in enumerate(zip(cells, widths))) + " |"
    print(line(heads))
    print("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    for r in rows:
        print(line(r))
