#!/usr/bin/env python3
"""Runs examples/*.br with brine and checks the ones whose output is known
exactly: harmonic (the par sum and the sequential sum of the harmonic
series), ov and ov2 (integer overflow panics and their places) and simpson
(Simpson's rule with Runge's estimate). The other examples must exit 0.

    python3 tests/tools/check_examples.py [path/to/brine]

Each example runs from inside examples/ as NAME.br, so panic places read
`--> ov.br:20:11`, as the comments at the top of ov.br and ov2.br say.
"""
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
EXAMPLES = os.path.join(HERE, "..", "..", "examples")
EXPECT = {
    "harmonic": (0, "par sum: 16.69531136585985\nsum:     16.695311365857272\n", ""),
    "ov": (101, "9223372036854775807\n",
           "panic: integer overflow in addition\n  --> ov.br:20:11\n"),
    "ov2": (101, "9223372036854775802\n",
            "panic: integer overflow in addition\n  --> ov2.br:21:11\n"),
    "simpson": (0, "I(n) = 2.000000010825, I(2n) = 2.000000000676\n"
                   "Runge: -6.77e-10, true error -6.76e-10\n"
                   "Refined value: 2.000000000000\n", ""),
}


def main():
    brine = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else
                            os.path.join(HERE, "..", "..", "build", "bin", "brine"))
    failed = 0
    for f in sorted(os.listdir(EXAMPLES)):
        if not f.endswith(".br"):
            continue
        name = f[:-3]
        p = subprocess.run([brine, "run", f], cwd=EXAMPLES, capture_output=True, text=True,
                           env=dict(os.environ, BRINE_GPU="off"))
        want = EXPECT.get(name)
        if want is None:
            ok = p.returncode == 0
        else:
            ok = (p.returncode, p.stdout, p.stderr) == want
        if not ok:
            failed += 1
            print(f"FAIL {f}: exit {p.returncode}\n--- stdout\n{p.stdout}--- stderr\n{p.stderr}")
        else:
            print(f"ok   {f}")
    print(f"{failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
