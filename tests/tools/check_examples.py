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

Then it checks every fenced block of README.md and docs/*.md (check_doc
says how a block is recognised or marked): programs are run and their output
compared, "$ " commands are run, and a block that is not checked must say why
in a `<!-- not run: WHY -->` comment above it.
"""
import os
import re
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
    failed += check_docs(brine)
    print(f"{failed} failed")
    return 1 if failed else 0


def blocks(text):
    """Yields a dict per fenced block: line (1-based, of the opening fence),
    body (its lines), before (the last non-blank line above it), mark (the
    text of a `<!-- ... -->` comment standing right above it, else None) and
    adjacent (only blank lines between the end of the previous block and
    this one)."""
    lines = text.split("\n")
    i, prev_end = 0, None
    while i < len(lines):
        if lines[i].startswith("```"):
            j = i + 1
            while j < len(lines) and not lines[j].startswith("```"):
                j += 1
            above = [l for l in lines[:i] if l.strip()]
            before = above[-1] if above else ""
            m = re.fullmatch(r"<!-- (.*) -->", before.strip())
            adjacent = prev_end is not None and all(not l.strip() for l in lines[prev_end + 1:i])
            yield {"line": i + 1, "body": lines[i + 1:j], "before": before,
                   "mark": m.group(1) if m else None, "adjacent": adjacent}
            prev_end = j
            i = j
        i += 1


def shell_env(brine, tmp):
    """stdout + stderr of the shell commands run with `brine` on PATH."""
    bindir = os.path.join(tmp, ".bin")
    if not os.path.isdir(bindir):
        os.makedirs(bindir)
        os.symlink(brine, os.path.join(bindir, "brine"))
    return dict(os.environ, BRINE_GPU="off", NO_COLOR="1",
                PATH=bindir + os.pathsep + os.environ.get("PATH", ""))


def run_command(brine, cmd, cwd):
    p = subprocess.run(["bash", "-c", cmd], cwd=cwd, capture_output=True, text=True,
                       env=shell_env(brine, cwd))
    return p.stdout + p.stderr


ELAPSED = re.compile(r" in [0-9]+\.[0-9]{2} s$", re.M)


def as_program(body):
    """A block's text as a whole program: one without `fn main` is the body
    of one (its imports kept above it), so its line numbers grow by one."""
    if any(l.startswith("fn main(") for l in body):
        return "\n".join(body) + "\n"
    top, rest, in_decl = [], [], False
    for l in body:
        if l.startswith(("import ", "struct ", "fn ")):
            in_decl = not l.startswith("import ")
            top.append(l)
        elif in_decl and (l.startswith(" ") or not l.strip()):
            top.append(l)
        else:
            in_decl = False
            rest.append(l)
    while rest and not rest[0].strip():
        top.append(rest.pop(0))
    return "\n".join(top + ["fn main():"] + ["    " + l if l.strip() else "" for l in rest or ["pass"]]) + "\n"


def run_program(brine, body, want, name, tmp):
    """Runs a block as NAME.br: its stdout and stderr together must be the
    shown output, and its status 1 for a compile error, 101 for a panic,
    else 0. Returns None or what went wrong."""
    m = re.search(r"--> (\w+\.br):", want)
    name = name or (m.group(1) if m else "prog.br")
    with open(os.path.join(tmp, name), "w") as f:
        f.write(as_program(body))
    p = subprocess.run([brine, "run", name], cwd=tmp, capture_output=True, text=True,
                       env=shell_env(brine, tmp))
    status = 1 if want.startswith("error:") else 101 if "\npanic: " in "\n" + want else 0
    got = p.stdout + p.stderr
    if got != want or p.returncode != status:
        return f"exit {p.returncode} (want {status})\n--- expected\n{want}--- got\n{got}"
    return None


def check_doc(brine, path):
    """Checks every fenced block of one page; returns (blocks checked, failures).

    - "`PATH.br`:" above a block: the block is that file (written into the
      page's directory; in README a file of the repository, which must say
      the same); it is run by the "$ " commands that follow.
    - a block whose first line starts with "$ ": each command runs in bash
      (brine on PATH), its stdout then stderr compared with the lines up to
      the next "$ ".
    - a block followed at once by another (only blank lines between): a
      program, or statements that are the body of `fn main()`, and the
      output it prints (a compile error, a panic, or plain output).
    - `<!-- run: NAME.br -->` above a block: the same, with the output in
      the next block even with text between, and NAME.br the file's name.
    - `<!-- compiles -->`: a program that must build (it reads files or
      stdin that the page does not show).
    - `<!-- not run: WHY -->`: not checked (grammar, shell set-up, C).
    Any other block is a failure: every block is checked or says why not."""
    with open(path) as f:
        text = f.read()
    page = os.path.relpath(path, os.path.join(HERE, "..", ".."))
    checked = failed = skipped = 0
    bs = list(blocks(text))
    used = set()
    with tempfile.TemporaryDirectory() as tmp:
        os.symlink(os.path.abspath(os.path.join(HERE, "..", "..", "examples")),
                   os.path.join(tmp, "examples"))
        for k, b in enumerate(bs):
            if k in used:
                continue
            where = f"{page}:{b['line']}"
            mark, body = b["mark"] or "", b["body"]
            nxt = bs[k + 1] if k + 1 < len(bs) else None
            problem = None
            fm = re.fullmatch(r"`([\w/.-]+\.br)`(?:[:,].*)?", b["before"])
            if mark.startswith("not run"):
                skipped += 1
                continue
            elif mark == "compiles":
                with open(os.path.join(tmp, "prog.br"), "w") as f:
                    f.write(as_program(body))
                p = subprocess.run([brine, "build", "prog.br", "-o", "prog"], cwd=tmp,
                                   capture_output=True, text=True, env=shell_env(brine, tmp))
                if p.returncode != 0:
                    problem = f"does not build\n{p.stderr}"
            elif body and body[0].startswith("$ "):
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
                        problem = (problem or "") + f"$ {cmd}\n--- expected\n{want}--- got\n{got}"
            elif fm:
                rel = fm.group(1)
                repo_file = os.path.join(HERE, "..", "..", rel)
                if page == "README.md" and os.path.exists(repo_file):
                    with open(repo_file) as f:
                        have = f.read()
                    # the file, or what follows its opening comment
                    shown = "\n".join(body) + "\n"
                    if have != shown and re.sub(r"\A(#.*\n)+\n?", "", have) != shown:
                            problem = f"is not what {rel} says"
                else:
                    dest = os.path.join(tmp, rel)
                    os.makedirs(os.path.dirname(dest), exist_ok=True)
                    with open(dest, "w") as f:
                        f.write("\n".join(body) + "\n")
            elif mark.startswith("run") or (nxt and nxt["adjacent"] and not nxt["mark"]):
                if not nxt:
                    problem = "has no output block after it"
                else:
                    used.add(k + 1)
                    checked += 1
                    name = mark[len("run:"):].strip() if mark.startswith("run:") else None
                    want = "".join(l + "\n" for l in nxt["body"])
                    problem = run_program(brine, body, want, name, tmp)
            else:
                problem = "is neither run nor marked <!-- not run: WHY -->"
            checked += 1
            if problem:
                failed += 1
                print(f"FAIL {where}: the block {problem}")
    print(f"{'ok  ' if not failed else 'FAIL'} {page}: {checked} blocks checked, {failed} failed, {skipped} marked not run")
    return checked, failed


def check_docs(brine):
    root = os.path.join(HERE, "..", "..")
    pages = [os.path.join(root, "README.md")] + sorted(
        os.path.join(root, "docs", f) for f in os.listdir(os.path.join(root, "docs")) if f.endswith(".md"))
    failed = 0
    for page in pages:
        failed += check_doc(brine, page)[1]
    return failed


if __name__ == "__main__":
    sys.exit(main())
