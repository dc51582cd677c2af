#!/usr/bin/env python3
"""Runs examples/*.br with brine and checks the ones whose output is known
exactly: harmonic (the par sum and the sequential sum of the harmonic
series), ov and ov2 (integer overflow panics and their places), readings
(Options, and the unwrap panic), simpson (Simpson's rule with Runge's
estimate), adaptive (adaptive Simpson through a function value), integral2d
(a two-clause par sum over a square and a disk) and quadrature (three rules
taking the integrand as a value); each of these runs at BRINE_THREADS 1, 2
and 7 and must print the same bytes each time. The other examples must exit
0.

    python3 tests/tools/check_examples.py [path/to/brine]

Each example runs from inside examples/ as NAME.br, so panic places read
`--> ov.br:20:11`, as the comments at the top of ov.br and ov2.br say.

Then it replays docs/tutorial.md in a temporary directory: a line
"`PATH.br`:" followed by a fenced block writes that file (again later: the
file changes); a fenced block whose first line starts with "$ " runs each
"$ " command (`brine ...`, `./PROG`, `cat FILE`, with leading VAR=value
assignments) and compares its stdout then stderr with the lines that follow
it, up to the next "$ " line.
"""
import os
import re
import shlex
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
EXAMPLES = os.path.join(HERE, "..", "..", "examples")
TUTORIAL = os.path.join(HERE, "..", "..", "docs", "tutorial.md")
EXPECT = {
    "harmonic": (0, "par sum: 16.69531136585985\nsum:     16.695311365857272\n", ""),
    "ov": (101, "9223372036854775807\n",
           "panic: integer overflow in addition\n  --> ov.br:20:11\n"),
    "ov2": (101, "9223372036854775802\n",
            "panic: integer overflow in addition\n  --> ov2.br:21:11\n"),
    "readings": (101, 'Some(Reading(name="t", value=Some(21.5))) None\n61.5 true true -1\n',
                 "panic: called unwrap on None\n  --> readings.br:27:11\n"),
    "simpson": (0, "I(n) = 2.000000010825, I(2n) = 2.000000000676\n"
                   "Runge: -6.77e-10, true error -6.76e-10\n"
                   "Refined value: 2.000000000000\n", ""),
    "adaptive": (0, 'pi:       eps 1e-06: 3.141592653708037 error +1.18e-10 segments 8\npi:       eps 1e-10: 3.141592653589814 error +2.09e-14 segments 71\npi:       eps 1e-13: 3.141592653589793 error +0.00e+00 segments 451\nsin(100): -0.506365641110 error +2.89e-15 segments 8836\n', ""),
    "integral2d": (0, 'n  100: square 1.000020561930 (1)  disk area 3.144000000 (pi 3.141592654)  r^2 moment 1.573180480 (pi/2)\nn  400: square 1.000001285106 (1)  disk area 3.141900000 (pi 3.141592654)  r^2 moment 1.571102914 (pi/2)\nn 1600: square 1.000000080319 (1)  disk area 3.141625000 (pi 3.141592654)  r^2 moment 1.570828656 (pi/2)\n', ""),
    "quadrature": (0, 'integral of sin on [0, pi] = 2, and of 1/(1 + 25 x^2) on [-1, 1] = 2 atan(5) / 5\ntrapezoid  sin:     1.999899600184  Runge +1.00e-04  true +1.00e-04  refined 2.000000004032\n           runge:   0.549357297285  Runge +3.01e-06  true +3.01e-06  refined 0.549360306257\nmidpoint   sin:     2.000050200286  Runge -5.02e-05  true -5.02e-05  refined 1.999999996472\n           runge:   0.549361811475  Runge -1.50e-06  true -1.50e-06  refined 0.549360307234\nsimpson    sin:     2.000000004032  Runge -4.03e-09  true -4.03e-09  refined 1.999999999999\n           runge:   0.549360306257  Runge +5.72e-10  true +5.21e-10  refined 0.549360306829\n', ""),
}
THREADS = ("1", "2", "7")


def main():
    brine = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else
                            os.path.join(HERE, "..", "..", "build", "bin", "brine"))
    failed = 0
    for f in sorted(os.listdir(EXAMPLES)):
        if not f.endswith(".br"):
            continue
        name = f[:-3]
        want = EXPECT.get(name)
        for threads in THREADS if want else (None,):
            env = dict(os.environ, BRINE_GPU="off")
            if threads:
                env["BRINE_THREADS"] = threads
            p = subprocess.run([brine, "run", f], cwd=EXAMPLES, capture_output=True, text=True, env=env)
            if want is None:
                ok = p.returncode == 0
            else:
                ok = (p.returncode, p.stdout, p.stderr) == want
            if not ok:
                break
        if not ok:
            failed += 1
            print(f"FAIL {f} (BRINE_THREADS={threads}): exit {p.returncode}\n--- stdout\n{p.stdout}--- stderr\n{p.stderr}")
        else:
            print(f"ok   {f}")
    failed += check_tutorial(brine)
    print(f"{failed} failed")
    return 1 if failed else 0


def blocks(text):
    """Yields (the line before the block, the block's lines) for each fenced block."""
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        if lines[i].startswith("```"):
            j = i + 1
            while j < len(lines) and not lines[j].startswith("```"):
                j += 1
            before = next((l for l in reversed(lines[:i]) if l.strip()), "")
            yield before, lines[i + 1:j]
            i = j
        i += 1


def run_command(brine, cmd, cwd):
    words = shlex.split(cmd)
    env = dict(os.environ, BRINE_GPU="off")
    while words and re.fullmatch(r"[A-Z_]+=.*", words[0]):
        k, v = words.pop(0).split("=", 1)
        env[k] = v
    if words[0] == "cat":
        try:
            with open(os.path.join(cwd, words[1])) as f:
                return f.read()
        except OSError as e:
            return f"cat: {e.strerror}\n"
    if words[0] == "brine":
        words[0] = brine
    p = subprocess.run(words, cwd=cwd, capture_output=True, text=True, env=env)
    return p.stdout + p.stderr


ELAPSED = re.compile(r" in [0-9]+\.[0-9]{2} s$", re.M)


def check_tutorial(brine):
    with open(TUTORIAL) as f:
        text = f.read()
    failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        for before, body in blocks(text):
            m = re.fullmatch(r"`([\w/]+\.br)`(?:[:,].*)?", before)
            if m and not (body and body[0].startswith("$ ")):
                path = os.path.join(tmp, m.group(1))
                os.makedirs(os.path.dirname(path), exist_ok=True)
                with open(path, "w") as f:
                    f.write("\n".join(body) + "\n")
                continue
            if not body or not body[0].startswith("$ "):
                continue
            cmds = []
            for line in body:
                if line.startswith("$ "):
                    cmds.append((line[2:], []))
                else:
                    cmds[-1][1].append(line)
            for cmd, want in cmds:
                # brine test's closing line ends with its time: any time matches
                got = ELAPSED.sub(" in N s", run_command(brine, cmd, tmp))
                want = ELAPSED.sub(" in N s", "".join(l + "\n" for l in want))
                if got != want:
                    failed += 1
                    print(f"FAIL tutorial.md: $ {cmd}\n--- expected\n{want}--- got\n{got}")
                else:
                    print(f"ok   tutorial.md: $ {cmd}")
    return failed


if __name__ == "__main__":
    sys.exit(main())
