#!/usr/bin/env python3
"""Writes tests/golden/generated/par/lanes_*: golden tests aimed at the SIMD-lane form of
par leaves (docs/internals.md, "Leaves in lanes"): the emitted leaves() folds 4
full leaves side by side, one element per step, and must give every leaf the
bits of the one-leaf scalar fold. A wrong lane order, a lost -0.0, a masked
filter that leaks, a ragged tail, the double-induction fallback near 2^53 and
the overflow re-run all change these outputs.

Expected outputs come from tests/tools/tree_ref.py (SPEC 5.2's order, computed
independently of brine) and Python floats (IEEE doubles, repr = SPEC 6.2):
    python3 tests/tools/gen_golden_lanes.py
Review `git diff tests/golden/generated` before committing; never edit or
`brine test --bless` a file there: the next run of this script undoes it.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from golden_lib import test  # noqa: E402
import tree_ref as T  # noqa: E402

A = "par"
F = T.FILTERED
fmt = T.fmt
MAX = (1 << 63) - 1
P53 = 1 << 53


def cmod(a, b):
    """Brine's % (SPEC 4): the remainder takes the dividend's sign."""
    r = abs(a) % abs(b)
    return r if a >= 0 else -r


def par(red, xs, kind):
    return fmt(T.par(red, xs, kind))


def which(red, xs, kind):
    """'reduction' or 'element': where the first panic of the tree order is."""
    try:
        T.par(red, xs, kind)
    except T.PanicError as e:
        return "element" if e.msg.endswith("@elem") else "reduction"
    raise AssertionError("no panic")


# ---- float sums whose bits depend on each leaf folding left to right ----------
# One big term per 17 elements: 1e16 + 1.0 loses the 1.0, so folding a leaf in
# any other order (or two leaves into one lane) changes the result.
def big_small(i):
    return 1e16 if i % 17 == 0 else 1.0 + float(i % 5) * 0.25


# Every leaf alike, 1.0 then terms of 2^-54 that round away or not depending on
# the order of the leaf's own fold; equal leaves add up exactly in the tree, so
# a leaf folded in another order (or taking another leaf's elements) shows.
TINY = 2.0 ** -54


def tiny_pattern(p):
    return 1.0 if p % 16 == 0 else float(p % 16) * TINY


for n in (16 * 64 - 1, 16 * 64, 16 * 64 + 1, 16 * 64 * 3 - 1, 16 * 64 * 3 + 1, 16 * 4 * 5 + 7):
    test(A, f"lanes_leaf_order_n{n}", f"""
    fn main():
        let n = {n}
        print(par sum((1e16 if i % 17 == 0 else 1.0 + float(i % 5) * 0.25) for i in 0..n))
        print(par sum(1.0 / float(i) for i in 1..=n))
        print(par product(1.0 + 1.0 / float(i + 3) for i in 0..n))
        print(par sum((1.0 if (i + 5) % 16 == 0 else float((i + 5) % 16) * {TINY!r}) for i in -5..n - 5))
        let xs = [(1.0 if (j + 3) % 16 == 0 else float((j + 3) % 16) * {TINY!r}) for j in 0..n]
        print(par sum(x for x in xs))
    """, [par("sum", [big_small(i) for i in range(n)], "float"),
          par("sum", [1.0 / float(i) for i in range(1, n + 1)], "float"),
          par("product", [1.0 + 1.0 / float(i + 3) for i in range(n)], "float"),
          par("sum", [tiny_pattern(i + 5) for i in range(-5, n - 5)], "float"),
          par("sum", [tiny_pattern(j + 3) for j in range(n)], "float")])

# -0.0: each leaf starts from 0.0 (sum) or 1.0 (product); 0.0 + -0.0 is 0.0.
test(A, "lanes_negative_zero", """
fn main():
    let n = 4100
    print(par sum(-0.0 for i in 0..n))
    print(par product(-0.0 for i in 0..n))
    print(par sum(-0.0 * float(i) for i in 0..n))
    print(par min(-0.0 if i % 2 == 0 else 0.0 for i in 0..n))
    print(par max(0.0 if i % 2 == 0 else -0.0 for i in 0..n))
""", [par("sum", [-0.0] * 4100, "float"),
      par("product", [-0.0] * 4100, "float"),
      par("sum", [-0.0 * float(i) for i in range(4100)], "float"),
      par("min", [-0.0 if i % 2 == 0 else 0.0 for i in range(4100)], "float"),
      par("max", [0.0 if i % 2 == 0 else -0.0 for i in range(4100)], "float")])

# ---- filters that empty whole leaves and single lanes ---------------------------
n = 16 * 64 * 2 + 9
lo = -700
xs_f = [(float(i) * 0.1 if (i - lo) // 16 % 3 != 1 else F) for i in range(lo, lo + n)]
xs_m = [(float(cmod(i * 37, 101)) - 50.5 if i % 7 != 0 and (i - lo) // 16 % 5 != 2 else F) for i in range(lo, lo + n)]
xs_i = [(i if i % 3 != 0 and (i - lo) // 16 % 4 != 3 else F) for i in range(lo, lo + n)]
test(A, "lanes_filters_empty_leaves", f"""
fn main():
    let lo = {lo}
    let n = {n}
    print(par sum(float(i) * 0.1 for i in lo..lo + n if (i - lo) / 16 % 3 != 1))
    print(par min(float((i * 37) % 101) - 50.5 for i in lo..lo + n if i % 7 != 0 and (i - lo) / 16 % 5 != 2))
    print(par max(float((i * 37) % 101) - 50.5 for i in lo..lo + n if i % 7 != 0 and (i - lo) / 16 % 5 != 2))
    print(par sum(i for i in lo..lo + n if i % 3 != 0 and (i - lo) / 16 % 4 != 3))
    print(par sum(float(i) for i in lo..lo + n if i > 100000))
""", [par("sum", xs_f, "float"), par("min", xs_m, "float"), par("max", xs_m, "float"),
      par("sum", xs_i, "int"), par("sum", [F] * n, "float")])

# Integer division truncates toward zero in Brine; Python's // floors. The
# expressions above only divide non-negative numbers (i - lo >= 0), and % of a
# negative i by 3 or 7 is only compared with 0, where both agree.

# ---- ranges starting at negative numbers, arrays, hoisted indexing ---------------
n = 16 * 64 + 37
ys = [float((j * 13) % 29) * 0.125 - 1.5 for j in range(n)]
zs = [float(j % 7) + 0.5 for j in range(n)]
test(A, "lanes_negative_ranges_and_arrays", f"""
fn main():
    let n = {n}
    let ys = [float((j * 13) % 29) * 0.125 - 1.5 for j in 0..n]
    let zs = [float(j % 7) + 0.5 for j in 0..n]
    print(par sum(1.0 / float(i) for i in -50000..-3))
    print(par sum(float(i) * 0.5 for i in -3000..2000))
    print(par sum(y for y in ys))
    print(par sum(ys[i] * zs[i] for i in 0..n))
    print(par sum(ys[i - 5] for i in 5..n))
    print(par sum(ys[(i * 7) % n] for i in 0..n))
    print(par min(y for y in ys))
    print(par max(ys[i] + zs[n - 1 - i] for i in 0..n))
""", [par("sum", [1.0 / float(i) for i in range(-50000, -3)], "float"),
      par("sum", [float(i) * 0.5 for i in range(-3000, 2000)], "float"),
      par("sum", ys, "float"),
      par("sum", [ys[i] * zs[i] for i in range(n)], "float"),
      par("sum", [ys[i - 5] for i in range(5, n)], "float"),
      par("sum", [ys[(i * 7) % n] for i in range(n)], "float"),
      par("min", ys, "float"),
      par("max", [ys[i] + zs[n - 1 - i] for i in range(n)], "float")])

# ---- ranges near 2^53: the double induction must fall back -------------------------
# float(i) rounds above 2^53; a chunk of leaves that reaches past 2^53 takes the
# scalar path, one entirely below keeps the lanes.
lo53 = P53 - 16 * 64 * 3 + 5
hi53 = P53 + 3000
test(A, "lanes_near_2_pow_53", f"""
fn main():
    let lo = {lo53}
    let hi = {hi53}
    print(par sum(float(i) for i in lo..hi))
    print(par sum(float(i - 7) - 9007199254000000.0 for i in lo..hi))
    print(par sum(float(i + 3) * 0.5 for i in -hi..-lo))
    print(par max(float(i) for i in lo..hi))
""", [par("sum", [float(i) for i in range(lo53, hi53)], "float"),
      par("sum", [float(i - 7) - 9007199254000000.0 for i in range(lo53, hi53)], "float"),
      par("sum", [float(i + 3) * 0.5 for i in range(-hi53, -lo53)], "float"),
      par("max", [float(i) for i in range(lo53, hi53)], "float")])

# ---- integer sums: wrapping lanes, flag, exact scalar panic --------------------------
n = 16 * 64 + 100


def int_case(name, setup, expr, elems, red="sum", kind="int"):
    """An int reduction that may panic: where (element or reduction) from the
    reference; the @ goes on the element's or the reduction's first character."""
    try:
        out = [par(red, elems, kind)]
        panic = None
    except T.PanicError as e:
        out, panic = [], e.msg.replace("@elem", "")
    if panic is None:
        src = f"fn main():\n{setup}    print(par {red}({expr}))\n"
        test(A, name, src, out)
        return
    w = which(red, elems, kind)
    if w == "reduction":
        src = f"fn main():\n{setup}    print(@par {red}({expr}))\n"
    else:
        e2 = expr.replace("$", "@")
        src = f"fn main():\n{setup}    print(par {red}({e2}))\n"
    test(A, name, src.replace("$", ""), out, panic=panic)


def elem_add(a, b):
    r = a + b
    return T.Panic("integer overflow in addition@elem") if not -(1 << 63) <= r <= MAX else r


setup = f"    let n = {n}\n    let big = {MAX}\n    var xs = [1] * n\n"
# leaf 5 (lane 1 of the second block) overflows while folding
xs = [1] * n
xs[5 * 16 + 3] = MAX
int_case("lanes_int_fold_overflow_lane1", setup + "    xs[83] = big\n", "x for x in xs", xs)
# no overflow: the total fits although lanes hold big partial values
xs = [1] * n
xs[5 * 16 + 3] = MAX - 2000
xs[9 * 16] = -MAX
int_case("lanes_int_big_no_overflow", setup + "    xs[83] = big - 2000\n    xs[144] = -big\n", "x for x in xs", xs)
# an element overflow in leaf 9 after a fold overflow in leaf 6: the fold wins
xs = [1] * n
xs[6 * 16 + 1] = MAX
xs[6 * 16 + 2] = 5
xs[9 * 16 + 4] = MAX
el = [elem_add(x, x) if x == MAX and i == 9 * 16 + 4 else x for i, x in enumerate(xs)]
int_case("lanes_int_fold_before_element", setup + "    xs[97] = big\n    xs[98] = 5\n    xs[148] = big\n",
         "(xs[i] + xs[i] if i == 148 else xs[i]) for i in 0..n", el)
# and the other way round: the element overflow in leaf 2 comes first
xs = [1] * n
xs[2 * 16 + 4] = MAX
xs[6 * 16 + 1] = MAX
xs[6 * 16 + 2] = 5
el = [elem_add(x, x) if i == 2 * 16 + 4 else x for i, x in enumerate(xs)]
int_case("lanes_int_element_before_fold", setup + "    xs[36] = big\n    xs[97] = big\n    xs[98] = 5\n",
         "($xs[i] + xs[i] if i == 36 else xs[i]) for i in 0..n", el)
# W3's shape, checked: the filtered sum of a range
int_case("lanes_int_filtered_range", "    let n = 100003\n", "i for i in -5000..n if i % 3 != 0",
         [i if i % 3 != 0 else F for i in range(-5000, 100003)])
# u64 and products: conservative flags send blocks to the scalar path
int_case("lanes_u64_sum_overflow", f"    let n = {n}\n    var xs = [u64(1)] * n\n    xs[700] = u64({MAX}) * u64(2)\n",
         "x for x in xs", [2 * MAX if i == 700 else 1 for i in range(n)], kind="u64")
int_case("lanes_int_product_false_alarms", f"    let n = {n}\n",
         "(3 if i % 97 == 0 else 1) for i in 0..n", [3 if i % 97 == 0 else 1 for i in range(n)], red="product")
int_case("lanes_int_product_overflow", f"    let n = {n}\n",
         "(1 + i % 16) for i in 0..n", [1 + i % 16 for i in range(n)], red="product")

# ---- index panics found by the per-call check, reported exactly ------------------
test(A, "lanes_index_past_end", f"""
fn main():
    let n = {n}
    let ys = [1.5] * n
    print(par sum(@ys[i] for i in 0..n + 3))
""", panic=f"index out of bounds: the len is {n} but the index is {n}")
test(A, "lanes_index_negative", f"""
fn main():
    let n = {n}
    let ys = [1.5] * n
    print(par sum(@ys[i - 2] for i in 0..n))
""", panic=f"index out of bounds: the len is {n} but the index is -2")
test(A, "lanes_index_computed", f"""
fn main():
    let n = {n}
    let ys = [2] * n
    print(par sum(@ys[(i * 5) % (n + 40)] for i in 0..n))
""", panic=f"index out of bounds: the len is {n} but the index is " +
      str(next((i * 5) % (n + 40) for i in range(n) if (i * 5) % (n + 40) >= n)))

# ---- par any / par all on the pool: the sequential result and panic ------------------
test(A, "lanes_any_deciding_before_panic_far", """
fn main():
    let n = 200000
    print(par any(i == 5000 for i in 0..n))
    print(par any(i == 140000 or 100 / (150000 - i) < 0 for i in 0..n))
    print(par all(i != 149999 and 100 / (150000 - i) >= 0 for i in 0..n))
""", ["true", "true", "false"])
test(A, "lanes_any_panic_before_deciding_far", """
fn main():
    let n = 200000
    print(par any(i == 160000 or @100 / (150000 - i) < 0 for i in 0..n))
""", panic="division by zero")
test(A, "lanes_all_panic_before_deciding_far", """
fn main():
    let n = 200000
    print(par all(i != 170000 and @100 / (150000 - i) >= 0 for i in 0..n))
""", panic="division by zero")
