"""Helpers for tests/tools/gen_golden.py and gen_golden_lanes.py: write one
golden test (SPEC 10) under tests/golden/generated/<area>/.

A test is written as Brine source plus the expected stdout (and stderr),
derived by hand or with the Python references in this folder, never by
running brine. A panic test marks the failing expression's first character
with '@' in the source; the marker is removed and its line and column
(header lines included, 1-based) go into the expected stderr.
"""
import os
import textwrap

# The generated tree: everything under it is written here and nowhere else
# (tests/golden/generated/GENERATED says so to `brine test --bless`).
ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "golden", "generated")
WRITTEN = []


def _lines(out):
    if out is None:
        return ""
    if isinstance(out, (list, tuple)):
        return "".join(str(l) + "\n" for l in out)
    return out


def test(area, name, src, out=None, *, panic=None, err=None, exit=None,
         env=None, args=None, crlf=False):
    src = textwrap.dedent(src).lstrip("\n")
    headers = []
    if panic is not None:
        exit = 101 if exit is None else exit
    if exit is not None:
        headers.append(f"# exit: {exit}")
    if env is not None:
        headers.append(f"# env: {env}")
    if args is not None:
        headers.append(f"# args: {args}")
    text = "".join(h + "\n" for h in headers) + src
    if panic is not None:
        assert text.count("@") == 1, (area, name, "needs exactly one @")
        pos = text.index("@")
        before = text[:pos]
        line = before.count("\n") + 1
        col = pos - (before.rfind("\n") + 1) + 1
        text = text[:pos] + text[pos + 1:]
        err = f"panic: {panic}\n  --> {name}.br:{line}:{col}\n"
    else:
        assert "@" not in text, (area, name, "stray @")
    d = os.path.join(ROOT, area)
    os.makedirs(d, exist_ok=True)
    data = text.replace("\n", "\r\n") if crlf else text
    with open(os.path.join(d, name + ".br"), "w", newline="") as f:
        f.write(data)
    with open(os.path.join(d, name + ".out"), "w", newline="") as f:
        f.write(_lines(out))
    errpath = os.path.join(d, name + ".err")
    if err:
        with open(errpath, "w", newline="") as f:
            f.write(err)
    elif os.path.exists(errpath):
        os.remove(errpath)
    WRITTEN.append((area, name))
