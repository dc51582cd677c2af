#!/usr/bin/env python3
"""Reference model of Brine's reductions (SPEC 5.1-5.3), for deriving golden outputs.

Independent of the compiler: it follows the SPEC text literally.
  - seq(reducer, elems, kind): the left fold of SPEC 5.1.
  - par(reducer, elems, kind): leaves of 16 folded from the start value, then the
    level-by-level tree of SPEC 5.2 (a partner-less node moves up; a leaf whose
    elements were all filtered out keeps its place without a value).

Elements are given as a list where a filtered-out element is FILTERED, so leaf
positions stay those of the unfiltered iteration. An element may also be a
Panic(msg) object: evaluating it panics (SPEC 5.3 post-order picks the first).
kind is "int" (64-bit checked), "i128", "u64" or "float". Integer overflow and
element panics come back as a Panic raised as the exception PanicError, so a
caller can print the message it would produce.
"""
import math
import sys

LEAF = 16
FILTERED = object()


class Panic:
    def __init__(self, msg):
        self.msg = msg


class PanicError(Exception):
    def __init__(self, msg):
        super().__init__(msg)
        self.msg = msg


RANGES = {
    "int": (-(1 << 63), (1 << 63) - 1),
    "i128": (-(1 << 127), (1 << 127) - 1),
    "u64": (0, (1 << 64) - 1),
}


def _check(kind, v, what):
    if kind in RANGES:
        lo, hi = RANGES[kind]
        if not lo <= v <= hi:
            raise PanicError("integer overflow in " + what)
    return v


def _op(reducer, kind, a, b):
    """a OP b, a being the running (left) value."""
    if reducer == "sum":
        if kind == "float":
            return a + b
        return _check(kind, a + b, "addition")
    if reducer == "product":
        if kind == "float":
            return a * b
        return _check(kind, a * b, "multiplication")
    if reducer == "min":
        return b if b < a else a
    if reducer == "max":
        return b if b > a else a
    if reducer == "any":
        return a or b
    if reducer == "all":
        return a and b
    raise ValueError(reducer)


def start(reducer, kind):
    if reducer == "sum":
        return 0.0 if kind == "float" else 0
    if reducer == "product":
        return 1.0 if kind == "float" else 1
    if reducer == "any":
        return False
    if reducer == "all":
        return True
    return None  # min/max: the first element


def _value(e):
    if isinstance(e, Panic):
        raise PanicError(e.msg)
    return e


def fold(reducer, elems, kind):
    """Fold elems left to right (a leaf, or the whole sequence). Returns
    (has_value, value). any/all stop at the deciding element."""
    has = reducer not in ("min", "max")
    acc = start(reducer, kind)
    for e in elems:
        if e is FILTERED:
            continue
        v = _value(e)
        if not has:
            acc, has = v, True
            continue
        acc = _op(reducer, kind, acc, v)
        if reducer == "any" and acc:
            return True, True
        if reducer == "all" and not acc:
            return True, False
    return has, acc


def seq(reducer, elems, kind):
    has, v = fold(reducer, elems, kind)
    if not has:
        raise PanicError(reducer + " of an empty sequence")
    return v


def par(reducer, elems, kind):
    """The tree of SPEC 5.2, computed in the post-order of SPEC 5.3 so that
    the first panic met is the one reported."""
    if reducer in ("any", "all"):
        # SPEC 5.3: exactly the sequential result, including which panic.
        return seq(reducer, elems, kind)
    n = len(elems)
    nleaves = (n + LEAF - 1) // LEAF

    def node(level, j):
        """Covers leaves [j*2^level, (j+1)*2^level) clipped to nleaves."""
        if level == 0:
            return fold(reducer, elems[j * LEAF:(j + 1) * LEAF], kind)
        left_first = (2 * j) << (level - 1)
        right_first = (2 * j + 1) << (level - 1)
        lhas, lv = node(level - 1, 2 * j)
        if right_first >= nleaves:
            return lhas, lv  # no partner: moves up unchanged
        rhas, rv = node(level - 1, 2 * j + 1)
        if not lhas:
            return rhas, rv
        if not rhas:
            return lhas, lv
        return True, _op(reducer, kind, lv, rv)

    if nleaves == 0:
        has, v = False, None
    else:
        top = 0
        while (1 << top) < nleaves:
            top += 1
        has, v = node(top, 0)
    if not has:
        if reducer in ("min", "max"):
            raise PanicError(reducer + " of an empty sequence")
        return start(reducer, kind)
    return v


def tree_nodes(n):
    """The tree of SPEC 5.2 for n elements as levels of nodes, each node the
    (first, last) leaf it covers and its children: a list per level (0 =
    the leaves) of (first, last, children) with children the indices of the
    level below (two for a combine, one for a node that moves up). Built
    bottom up by pairing, as the SPEC's text says (not by the (k, j) rule,
    which the C drawing uses), so the two agree only if the rules do."""
    nleaves = (n + LEAF - 1) // LEAF
    levels = [[(i, i, ()) for i in range(nleaves)]]
    while len(levels[-1]) > 1:
        below = levels[-1]
        up = []
        for p in range(0, len(below), 2):
            if p + 1 < len(below):
                up.append((below[p][0], below[p + 1][1], (p, p + 1)))
            else:
                up.append((below[p][0], below[p][1], (p,)))
        levels.append(up)
    return levels


def carry_nodes(leaf):
    """The (level, first leaf) of each node folded into leaf's carry (SPEC
    15): leaf in binary, highest bit first."""
    out, at = [], 0
    for bit in range(leaf.bit_length() - 1, -1, -1):
        if leaf >> bit & 1:
            out.append((bit, at))
            at += 1 << bit
    return out


def draw(n, carry=None):
    """The text `brine tree n [--carry L]` prints, from tree_nodes."""
    if n == 0:
        return ("par reduction of 0 elements: no leaves; the result is the start value "
                "(0 for sum, 1 for product; min and max panic)\n")
    levels = tree_nodes(n)
    nleaves, h = len(levels[0]), len(levels) - 1
    marked = set(carry_nodes(carry)) if carry is not None else set()

    def plain(a, b):
        return f"L{a}" if a == b else f"L{a}-{b}"

    def label(k, node):
        a, b = node[0], node[1]
        if (k, a) in marked:
            return "[" + plain(a, b) + "]"
        if k == 0 and a == carry:
            return "(" + plain(a, b) + ")"
        return plain(a, b)

    def elements(i):
        return f"{i * LEAF}..{min((i + 1) * LEAF, n) - 1}"

    prefix = max(len("elements"), len(f"level {h}")) + 3
    width = max([len(elements(i)) for i in range(nleaves)] +
                [len(label(k, nd)) for k, lv in enumerate(levels) for nd in lv]) + 2
    center = [prefix + i * width + width // 2 for i in range(nleaves)]

    def mid(node):
        return (center[node[0]] + center[node[1]]) // 2

    notes = prefix + nleaves * width + 1
    rows = []

    def row(items):
        line = []
        for col, text in items:
            col = max(col, 0)
            if len(line) < col + len(text):
                line += [" "] * (col + len(text) - len(line))
            line[col:col + len(text)] = list(text)
        rows.append("".join(line).rstrip())

    plural = "" if n == 1 else "s"
    head = (f"par reduction of {n} element{plural}: {nleaves} lea{'f' if nleaves == 1 else 'ves'} "
            f"of up to {LEAF}, {h} level{'' if h == 1 else 's'}\n\n")
    row([(0, "elements")] + [(center[i] - len(elements(i)) // 2, elements(i)) for i in range(nleaves)])
    row([(center[i], "|") for i in range(nleaves)])
    lv0 = [(center[i] - len(label(0, nd)) // 2, label(0, nd)) for i, nd in enumerate(levels[0])]
    row([(0, "leaves")] + lv0 +
        [(notes, "folded left to right: the result" if h == 0 else "each folded left to right")])
    for k in range(1, h + 1):
        conn, moved = [], None
        for nd in levels[k]:
            kids = nd[2]
            if len(kids) == 2:
                conn.append((mid(levels[k - 1][kids[0]]) + 1, "\\"))
                conn.append((mid(levels[k - 1][kids[1]]) - 1, "/"))
            else:
                conn.append((mid(nd), "|"))
                moved = nd
        row(conn)
        items = [(0, f"level {k}")] + [(mid(nd) - len(label(k, nd)) // 2, label(k, nd)) for nd in levels[k]]
        if k == h:
            items.append((notes, "the result"))
        elif moved is not None:
            items.append((notes, plain(moved[0], moved[1]) + " has no partner: moves up"))
        row(items)
    text = head + "\n".join(rows) + "\n"
    if carry is not None:
        if carry == 0:
            text += "\nthe carry of leaf 0: nothing: leaf 0 starts from the start value\n"
        else:
            names = []
            for k, a in carry_nodes(carry):
                nd = next(x for x in levels[k] if x[0] == a)
                names.append(label(k, nd))
            text += f"\nthe carry of leaf {carry}: " + " + ".join(names) + ", folded left to right\n"
    return text


def fmt(v):
    """A value as Brine prints it (SPEC 6.2)."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        return repr(v)
    return str(v)


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "draw":
        carry = int(sys.argv[3]) if len(sys.argv) > 3 else None
        sys.stdout.write(draw(int(sys.argv[2]), carry))
        sys.exit(0)
    # Self-check against the seed (seeds/000_*.txt): the harmonic program.
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 10_000_000
    xs = [1.0 / float(i) for i in range(1, n + 1)]
    print("par sum:", fmt(par("sum", xs, "float")))
    print("sum:    ", fmt(seq("sum", xs, "float")))
