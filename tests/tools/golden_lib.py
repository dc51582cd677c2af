"""Helpers for tests/tools/gen_golden.py and gen_golden_lanes.py: write one
golden test (SPEC 10) under tests/golden/generated/<area>/.

A test is written as Brine source plus the expected stdout (and stderr),
derived by hand or with the Python references in this folder, never by
running brine. A panic test marks the failing expression's first character
with '@' in the source; the marker is removed and its line and column
(header lines included, 1-based) go into the expected stderr. When the
panic is not in main, each call on the way marks its first character with
'^' (innermost last in the source: the frames are the '@' place, then the
'^' places from the last to the first), and the stderr is the call chain,
each frame named by the function it is in. A recursion of `repeat` calls
(stack_overflow: the first '^' is the recursion's call, repeated as deep as
the stack held) is the chain's middle, capped as the runtime caps it; frame_names names
the frames where the function's own name is not the frame's (a par
element: "f: a par element of NAME.br:L:C").
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


KEEP = 10  # the frames a long chain prints at each end (runtime/frames.c)


def _enclosing_fn(text, pos):
    """The name of the top-level function whose body holds pos."""
    name = None
    end = text.find("\n", pos)
    for ln in text[:end if end >= 0 else len(text)].split("\n"):
        if ln.startswith("fn "):
            name = ln[3:ln.index("(")]
    return name


def _chain(name, frames, omitted):
    """The panic's place lines: one frame plain, more named (frames.c)."""
    if len(frames) == 1 and not omitted:
        line, col, _ = frames[0]
        return f"  --> {name}.br:{line}:{col}\n"
    out = []
    for i, (line, col, fn) in enumerate(frames):
        if omitted is not None and i == KEEP:
            out.append("  ... frames omitted\n" if omitted is True else f"  ... {omitted} frames omitted\n")
        out.append(f"  --> {name}.br:{line}:{col} in {fn}\n")
    return "".join(out)


def test(area, name, src, out=None, *, panic=None, err=None, exit=None,
         env=None, args=None, crlf=False, stack_overflow=False, frame_names=None):
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
        marks = []  # (pos, kind) in source order
        while "@" in text or "^" in text:
            pos = min(p for p in (text.find("@"), text.find("^")) if p >= 0)
            marks.append((pos, text[pos]))
            text = text[:pos] + text[pos + 1:]
        frames = []
        for pos, _ in marks:
            before = text[:pos]
            frames.append((before.count("\n") + 1, pos - (before.rfind("\n") + 1) + 1, _enclosing_fn(text, pos)))
        at = [f for f, (_, k) in zip(frames, marks) if k == "@"][0]
        calls = [f for f, (_, k) in zip(frames, marks) if k == "^"][::-1]
        chain = [at] + calls
        if frame_names:  # places inside par elements: the element's frame (frames.c)
            chain = [(l, c, fn) for (l, c, _), fn in zip(chain, frame_names)]
        omitted = None
        if stack_overflow:
            # the recursion's own call (the first '^' in the source) repeated as deep as the stack went
            rec, outer = calls[-1], calls[:-1]
            chain = [at] + [rec] * (KEEP - 1) + [rec] * (KEEP - len(outer)) + outer
            omitted = True
        err = f"panic: {panic}\n" + _chain(name, chain, omitted)
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
