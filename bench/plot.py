#!/usr/bin/env python3
"""Draws bench/README.md's workloads table (bench/workloads.py's output, pasted
there with the date of its run) as two plots, so the ratios can be seen at a
glance:

  bench/plots/brine_vs_peers.svg  each workload's time against the C loop's
                                  (C = 1): brine and numba at 1 thread, brine,
                                  OpenMP and numba at 2 threads
  bench/plots/speedup.svg         the par workloads' speedup from 1 to 2
                                  threads for brine, OpenMP (over the C loop)
                                  and numba, beside the ideal line

    python3 bench/plot.py        (make bench-plots; needs python3-matplotlib,
                                  make deps-bench)
    python3 bench/plot.py --check  (in make check-tree: the plots name the
                                  table's workloads; no matplotlib needed)

It reads the first table whose header starts `| workload | C ms |` and writes
SVGs without a date, so the same table gives the same files.
"""
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def read_table(path):
    """The workloads table: a list of dicts by column name, numbers as floats
    (None for '-')."""
    with open(path) as f:
        lines = f.read().split("\n")
    start = next(i for i, l in enumerate(lines) if re.match(r"\|\s*workload\s*\|\s*C ms\s*\|", l))
    heads = [c.strip() for c in lines[start].strip("|").split("|")]
    rows = []
    for line in lines[start + 2:]:
        if not line.startswith("|"):
            break
        cells = [c.strip() for c in line.strip("|").split("|")]
        row = {}
        for h, c in zip(heads, cells):
            try:
                row[h] = float(c)
            except ValueError:
                row[h] = None if c == "-" else c
        rows.append(row)
    return rows


def check():
    """--check (make check, no matplotlib needed): README's table reads, the
    two plots exist, are linked from the top README, and name the table's
    workloads (matplotlib writes each text as a comment beside its glyphs),
    so a table changed without `make bench-plots` is caught. 0 or 1."""
    rows = read_table(os.path.join(HERE, "README.md"))
    bad = []
    if not rows or any(not isinstance(r.get("C ms"), float) or not isinstance(r.get("brine 1t ms"), float)
                       for r in rows):
        bad.append("bench/README.md: the workloads table has no rows or a row without C and brine times")
    with open(os.path.join(HERE, "..", "README.md")) as f:
        readme = f.read()
    want = {"brine_vs_peers.svg": [r["workload"] for r in rows],
            "speedup.svg": [r["workload"] for r in rows if r.get("brine 2t ms") is not None]}
    for name, workloads in want.items():
        path = os.path.join(HERE, "plots", name)
        if "bench/plots/" + name not in readme:
            bad.append(f"README.md does not link bench/plots/{name}")
        if not os.path.exists(path):
            bad.append(f"bench/plots/{name} is missing (make bench-plots)")
            continue
        with open(path) as f:
            texts = set(re.findall(r"<!-- (.*?) -->", f.read()))
        missing = [w for w in workloads if w not in texts]
        if missing:
            bad.append(f"bench/plots/{name} lacks {', '.join(missing)}: redraw it (make bench-plots)")
    for b in bad:
        print("plot check: " + b)
    print(f"plot check: {len(rows)} workloads, {'ok' if not bad else 'FAILED'}")
    return 1 if bad else 0


def main():
    if sys.argv[1:] == ["--check"]:
        return check()
    try:
        import matplotlib
    except ImportError:
        # Debian's package is in the system Python, which a pyenv or venv
        # python3 on PATH does not see
        if os.path.exists("/usr/bin/python3") and os.path.realpath(sys.executable) != os.path.realpath("/usr/bin/python3"):
            os.execv("/usr/bin/python3", ["/usr/bin/python3"] + sys.argv)
        print("bench/plot.py needs matplotlib: make deps-bench (Debian's python3-matplotlib)")
        return 1
    matplotlib.use("svg")
    import matplotlib.pyplot as plt
    plt.rcParams["svg.hashsalt"] = "brine-bench"
    plt.rcParams["font.size"] = 9
    rows = read_table(os.path.join(HERE, "README.md"))
    out = os.path.join(HERE, "plots")
    os.makedirs(out, exist_ok=True)

    # 1. time against C, per workload
    series = [("brine 1t", "brine 1t ms", "#1f77b4"), ("numba 1t", "numba 1t ms", "#9467bd"),
              ("brine 2t", "brine 2t ms", "#6baed6"), ("OpenMP 2t", "OpenMP 2t ms", "#d62728"),
              ("numba 2t", "numba 2t ms", "#c5b0d5")]
    fig, ax = plt.subplots(figsize=(8, 0.55 * len(rows) + 1.2))
    height = 0.8 / len(series)
    for k, (label, col, colour) in enumerate(series):
        ys, xs = [], []
        for i, r in enumerate(rows):
            if r.get(col) is not None and r.get("C ms"):
                ys.append(i + (k - (len(series) - 1) / 2) * height)
                xs.append(r[col] / r["C ms"])
        ax.barh(ys, xs, height=height, label=label, color=colour)
    ax.axvline(1.0, color="black", linewidth=0.8)
    ax.set_yticks(range(len(rows)))
    ax.set_yticklabels([r["workload"] for r in rows])
    ax.invert_yaxis()
    ax.set_xlabel("time / the C loop's time at 1 thread (lower is faster; 1 = C)")
    ax.set_title("bench/workloads.py: brine against C, OpenMP and numba")
    ax.legend(loc="lower right")
    fig.tight_layout()
    fig.savefig(os.path.join(out, "brine_vs_peers.svg"), metadata={"Date": None})
    plt.close(fig)

    # 2. speedup from 1 to 2 threads, the par workloads
    par = [r for r in rows if r.get("brine 2t ms") is not None]
    cols = 3
    nrows = (len(par) + cols - 1) // cols
    fig, axes = plt.subplots(nrows, cols, figsize=(9, 2.6 * nrows), squeeze=False)
    for n, r in enumerate(par):
        ax = axes[n // cols][n % cols]
        ax.plot([1, 2], [1, 2], color="grey", linestyle="--", linewidth=0.8, label="ideal")
        ax.plot([1, 2], [1, r["brine 1t ms"] / r["brine 2t ms"]], marker="o", label="brine")
        if r.get("OpenMP 2t ms") is not None:
            ax.plot([1, 2], [1, r["C ms"] / r["OpenMP 2t ms"]], marker="s", label="OpenMP (over C)",
                    color="#d62728")
        if r.get("numba 1t ms") is not None and r.get("numba 2t ms") is not None:
            ax.plot([1, 2], [1, r["numba 1t ms"] / r["numba 2t ms"]], marker="^", label="numba",
                    color="#9467bd")
        ax.set_title(r["workload"])
        ax.set_xticks([1, 2])
        ax.set_xlabel("threads")
        ax.set_ylabel("speedup")
        ax.set_ylim(0.8, 2.2)
    for n in range(len(par), nrows * cols):
        axes[n // cols][n % cols].axis("off")
    axes[0][0].legend(loc="upper left", fontsize=7)
    fig.suptitle("speedup against threads: each tool over its own 1-thread time")
    fig.tight_layout()
    fig.savefig(os.path.join(out, "speedup.svg"), metadata={"Date": None})
    plt.close(fig)
    print(f"wrote bench/plots/brine_vs_peers.svg and bench/plots/speedup.svg from {len(rows)} workloads")
    return 0


if __name__ == "__main__":
    sys.exit(main())
