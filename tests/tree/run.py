#!/usr/bin/env python3
"""`brine tree`: each tests/tree/nN[_carryL].out is the text `brine tree N
[--carry L]` must print, and must also be what tests/tools/tree_ref.py draws
from its own model of the tree (pairs level by level, SPEC 5.2; carries,
SPEC 15). Then the pictures docs/ embeds are what `brine tree --svg` makes
now (`make docs-svg` rewrites them), and bad command lines exit 2.

    python3 tests/tree/run.py path/to/brine
"""
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ElementTree

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")
sys.path.insert(0, os.path.join(ROOT, "tests", "tools"))
import tree_ref  # noqa: E402

# the SVGs of docs/parallel.md: file, then brine tree's arguments (the Makefile's docs-svg)
PICTURES = [("docs/img/tree80.svg", ["80", "--svg"]),
            ("docs/img/scan_carry11.svg", ["192", "--carry", "11", "--svg"])]
BAD = [["x"], ["-1"], ["65537"], [], ["3", "4"], ["80", "--carry", "5"], ["0", "--carry", "0"],
       ["80", "--frobnicate"]]


def main():
    brine = os.path.abspath(sys.argv[1])
    failed = 0
    for f in sorted(os.listdir(HERE)):
        m = re.fullmatch(r"n(\d+)(?:_carry(\d+))?\.out", f)
        if not m:
            continue
        n, carry = int(m.group(1)), m.group(2)
        args = [str(n)] + (["--carry", carry] if carry else [])
        with open(os.path.join(HERE, f)) as fh:
            want = fh.read()
        model = tree_ref.draw(n, int(carry) if carry else None)
        p = subprocess.run([brine, "tree"] + args, capture_output=True, text=True)
        if model != want:
            failed += 1
            print(f"FAIL {f}: the golden is not what tree_ref.py draws")
        elif (p.returncode, p.stdout, p.stderr) != (0, want, ""):
            failed += 1
            print(f"FAIL brine tree {' '.join(args)}: exit {p.returncode}\n{p.stdout}{p.stderr}")
        else:
            print(f"ok   brine tree {' '.join(args)}")
    for path, args in PICTURES:
        p = subprocess.run([brine, "tree"] + args, capture_output=True, text=True)
        try:
            with open(os.path.join(ROOT, path)) as fh:
                have = fh.read()
        except OSError:
            have = None
        try:
            ElementTree.fromstring(p.stdout)
            well_formed = True
        except ElementTree.ParseError:
            well_formed = False
        if p.returncode != 0 or have != p.stdout or not well_formed:
            failed += 1
            print(f"FAIL {path} is not what brine tree {' '.join(args)} writes (make docs-svg)")
        else:
            print(f"ok   {path}")
    for args in BAD:
        p = subprocess.run([brine, "tree"] + args, capture_output=True, text=True)
        if p.returncode != 2 or p.stdout or not p.stderr.startswith("brine: ") or p.stderr.count("\n") != 1:
            failed += 1
            print(f"FAIL brine tree {' '.join(args)}: exit {p.returncode}, want one line and 2\n{p.stderr}")
        else:
            print(f"ok   brine tree {' '.join(args)}: {p.stderr.strip()}")
    print(f"{failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
