#!/usr/bin/env python3
"""Reference model of reduce(f, start, gen), scans and reductions by key (SPEC 15).

Independent of the compiler; built on tree_ref.py's leaves and order.
Elements are a list where FILTERED marks an element the filter dropped (it
keeps its place in the leaves). op(a, b) is the combine (a the left,
running value) and may raise tree_ref.PanicError; start is the start value,
or None for min/max (which start from the first element).
  - seq_reduce / par_reduce: the left fold; the tree of SPEC 5.2 with op.
  - seq_scan / par_scan: the running values; the carries of SPEC 15.
  - keyed(op, start, elems, keys, n, par): one result per key in 0..n, each
    the reduction with the filter `kept and key == j` (None: a min/max key
    without elements).
"""
from tree_ref import FILTERED, LEAF, PanicError  # noqa: F401  (PanicError for callers)


def _fold(op, start, elems):
    """(has, value): the left fold of the kept elements from start."""
    has, acc = start is not None, start
    for e in elems:
        if e is FILTERED:
            continue
        if not has:
            has, acc = True, e
        else:
            acc = op(acc, e)
    return has, acc


def _merge(op, left, right):
    lh, lv = left
    rh, rv = right
    if not rh:
        return left
    if not lh:
        return right
    return True, op(lv, rv)


def seq_reduce(op, start, elems):
    return _fold(op, start, elems)


def levels(op, start, elems):
    """Every node of the tree, level by level: levels[k][j] = (has, value),
    computed in post-order (SPEC 5.3) so that the first panic is raised."""
    n = len(elems)
    nl = (n + LEAF - 1) // LEAF
    if nl == 0:
        return [[]]
    top = 0
    while (1 << top) < nl:
        top += 1
    lev = [[None] * (((nl - 1) >> k) + 1) for k in range(top + 1)]

    def node(k, j):
        if k == 0:
            lv = _fold(op, start, elems[j * LEAF:(j + 1) * LEAF])
            lv = (any(e is not FILTERED for e in elems[j * LEAF:(j + 1) * LEAF]) and lv[0], lv[1])
        else:
            left = node(k - 1, 2 * j)
            if (2 * j + 1) << (k - 1) >= nl:
                lv = left
            else:
                lv = _merge(op, left, node(k - 1, 2 * j + 1))
        lev[k][j] = lv
        return lv

    node(top, 0)
    return lev


def par_reduce(op, start, elems):
    lev = levels(op, start, elems)
    if not lev[0]:
        return False, start
    has, v = lev[-1][0]
    return (True, v) if has else (start is not None, start)


def seq_scan(op, start, elems):
    out = []
    has, acc = start is not None, start
    for e in elems:
        if e is FILTERED:
            continue
        if not has:
            has, acc = True, e
        else:
            acc = op(acc, e)
        out.append(acc)
    return out


def carry(op, start, lev, leaf):
    """The carry of a leaf: its binary digits from the highest, each the node
    covering the next 2^bit leaves, folded from start."""
    has, acc = start is not None, start
    p = 0
    for bit in range(len(lev) - 1, -1, -1):
        if (leaf >> bit) & 1:
            has, acc = _merge(op, (has, acc), lev[bit][p >> bit])
            p += 1 << bit
    return has, acc


def par_scan(op, start, elems):
    lev = levels(op, start, elems)
    nl = len(lev[0])
    carries = [carry(op, start, lev, leaf) for leaf in range(nl)]
    out = []
    for leaf in range(nl):
        has, acc = carries[leaf]
        for e in elems[leaf * LEAF:(leaf + 1) * LEAF]:
            if e is FILTERED:
                continue
            if not has:
                has, acc = True, e
            else:
                acc = op(acc, e)
            out.append(acc)
    return out


def keyed(op, start, elems, keys, n, par):
    """keys[i]: element i's key (ignored where elems[i] is FILTERED)."""
    for e, k in zip(elems, keys):
        if e is not FILTERED and not 0 <= k < max(n, 0):
            raise PanicError("key %d out of range 0..%d" % (k, n))
    res = []
    for j in range(max(n, 0)):
        mine = [e if e is not FILTERED and k == j else FILTERED for e, k in zip(elems, keys)]
        has, v = (par_reduce if par else seq_reduce)(op, start, mine)
        res.append(v if has else start)
    return res


def keyed_sparse(op, start, elems, keys, n, par):
    """keyed() for many keys: each key's kept elements only, their leaves
    folded from start, then the tree top-down (the node over a key's leaves
    whose first and last differ at bit h splits at the first leaf with bit
    h set; a node with one side empty is the other), O(n log n) instead of
    keyed()'s O(n * N). fold_check --blocks checks it against keyed()."""
    for e, k in zip(elems, keys):
        if e is not FILTERED and not 0 <= k < max(n, 0):
            raise PanicError("key %d out of range 0..%d" % (k, n))
    per = [[] for _ in range(max(n, 0))]
    for i, (e, k) in enumerate(zip(elems, keys)):
        if e is not FILTERED:
            per[k].append((i, e))

    def tree(lst):
        if len(lst) == 1:
            return lst[0][1]
        h = (lst[0][0] ^ lst[-1][0]).bit_length() - 1
        mid = (lst[-1][0] >> h) << h
        return op(tree([x for x in lst if x[0] < mid]), tree([x for x in lst if x[0] >= mid]))

    res = []
    for items in per:
        if not items:
            res.append(start)
        elif not par:
            res.append(_fold(op, start, [v for _, v in items])[1])
        else:
            leaves = []
            for i, v in items:
                if leaves and leaves[-1][0] == i // LEAF:
                    leaves[-1][1] = op(leaves[-1][1], v)
                else:
                    leaves.append([i // LEAF, v if start is None else op(start, v)])
            res.append(tree(leaves))
    return res
