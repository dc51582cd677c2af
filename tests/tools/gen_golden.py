#!/usr/bin/env python3
"""Writes the generated language golden tests, tests/golden/generated/<area>/
(the compile-error tests in tests/golden/errors/ and the other hand-written
tests stay outside that tree).

Every expected output here is derived independently of brine: written by hand
from SPEC.md, or computed with Python (repr(float) is SPEC 6.2's float text,
format() is SPEC 6.3's mini-language, tree_ref.py is SPEC 5.2's order,
rand_ref.py is SPEC 11's generator). Run it after editing a test here:
    python3 tests/tools/gen_golden.py
Review `git diff tests/golden/generated` before committing. Never edit or
`brine test --bless` a file there: the next run of this script undoes it.
"""
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from golden_lib import test, ROOT, WRITTEN  # noqa: E402
import tree_ref as T  # noqa: E402
import rand_ref as R  # noqa: E402

MAX = (1 << 63) - 1
MIN = -(1 << 63)
U64MAX = (1 << 64) - 1
I128MAX = (1 << 127) - 1
I128MIN = -(1 << 127)
fmt = T.fmt

# ---------------------------------------------------------------- lexical (SPEC 1)
A = "lexical"
test(A, "int_literals", """
fn main():
    print(123, 1_000_000, 0xff, 0xFF, 0b1010, 0x7fffffffffffffff, 0)
""", ["123 1000000 255 255 10 9223372036854775807 0"])

test(A, "float_literals", """
fn main():
    print(1.0, 0.5, 1e-3, 2.5E+10, 1_000.5, 1e3, 3.0e0, 6.25e-1)
""", [" ".join(fmt(x) for x in [1.0, 0.5, 1e-3, 2.5e10, 1000.5, 1e3, 3.0, 0.625])])

test(A, "string_escapes", """
fn main():
    print("tab:\\t|")
    print("quote:\\" backslash:\\\\")
    print("braces:\\{\\}")
    print(len("\\n\\t\\r\\0"))
    print("a\\nb")
""", ["tab:\t|", 'quote:" backslash:\\', "braces:{}", "4", "a", "b"])

test(A, "unicode_escape", """
fn main():
    print("\\u{1F600}")
    print(len("\\u{1F600}"))
    print("\\u{41}\\u{e9}")
    print(len("\\u{e9}"))
    print("\\u{1F600}" == "\U0001F600")
""".replace("\U0001F600", "\U0001F600"), ["\U0001F600", "4", "A\u00e9", "2", "true"])

test(A, "utf8_source_text", """
fn main():
    let s = "héllo wörld ✓"
    print(s)
    print(len(s))
""", ["héllo wörld ✓", str(len("héllo wörld ✓".encode()))])

test(A, "comments", """
fn main():  # a trailing comment on the fn line
    # a comment line in a block
    let x = 1  # after a statement
    print(x)  # print("not run")
    print("# inside a string is text")
""", ["1", "# inside a string is text"])

test(A, "comment_lines_any_indent", """
fn main():
    let x = 1
        # a deeper comment line does not open a block
# a comment at column 1 does not close one
    print(x)
    if x == 1:
  # shallower comment inside the if block
        print("in if")
    print("after")
""", ["1", "in if", "after"])

test(A, "blank_lines_in_blocks", """
fn main():

    let x = 2

    \n    if x == 2:

        print("two")
        \n
    print("end")

fn unused() -> int:

    return 1
""", ["two", "end"])

test(A, "indent_widths", """
fn two():
  print("two spaces")
  if true:
        print("then six more")
  print("back")

fn main():
        two()
        print("eight spaces")
""", ["two spaces", "then six more", "back", "eight spaces"])

test(A, "crlf_line_endings", """
fn main():
    let s = "crlf"
    if len(s) == 4:
        print(s)
    print(f"{s} ok")
""", ["crlf", "crlf ok"], crlf=True)

test(A, "newlines_inside_brackets", """
fn add3(a: int,
        b: int,
    c: int) -> int:
    return a + b + c

fn main():
    let xs = [
        1,
      2,
            3
    ]
    print(add3(xs[0],
               xs[1],
  xs[2]))
    print(xs)
""", ["6", "[1, 2, 3]"])

test(A, "fstring_double_braces", """
fn main():
    let x = 5
    print(f"{{x}} = {x}")
    print(f"{{}}")
    print(f"{{{x}}}")
""", ["{x} = 5", "{}", "{5}"])

test(A, "fstring_escaped_braces", """
fn main():
    let x = 5
    print(f"\\{x\\} = {x}")
""", ["{x} = 5"])

test(A, "fstring_expressions", """
fn sq(n: int) -> int:
    return n * n

fn main():
    let a = 3
    let xs = [10, 20, 30]
    print(f"{a + 1} {xs[1]} {sq(a)} {a * 2.5 if false else 1.5} {len(xs)}")
    print(f"{a > 2} {xs} {-a}")
    print(f"no fields")
""".replace("a * 2.5 if false else 1.5", "float(a) * 2.5 if false else 1.5"),
    ["4 20 9 1.5 3", "true [10, 20, 30] -3", "no fields"])

test(A, "negative_literal_min", """
fn main():
    let m = -9223372036854775808
    print(m)
    print(m == -9223372036854775807 - 1)
""", [str(MIN), "true"])

test(A, "keywords_as_prefix_names", """
fn main():
    let iffy = 1
    let format = 2
    let par_count = 3
    let india = 4
    print(iffy + format + par_count + india)
""", ["10"])

# ------------------------------------------------------------- types (SPEC 3)
A = "types"
test(A, "u64_literal_context", """
fn main():
    let h: u64 = 0xcbf29ce484222325
    print(h)
    let m: u64 = 18446744073709551615
    print(m)
    print(h ^ 0x100000001b3)
""", [str(0xcbf29ce484222325), str(U64MAX), str(0xcbf29ce484222325 ^ 0x100000001b3)])


def fnv1a(bs):
    h = 0xcbf29ce484222325
    for b in bs:
        h = ((h ^ b) * 0x100000001b3) & U64MAX
    return h


test(A, "fnv1a_u64", """
let OFFSET: u64 = 0xcbf29ce484222325
let PRIME: u64 = 0x100000001b3

fn fnv1a(bytes: [int]) -> u64:
    var h = OFFSET
    for b in bytes:
        h = (h ^ u64(b)).wrapping_mul(PRIME)
    return h

fn main():
    print(fnv1a([]))
    print(fnv1a([104, 105]))
    print(fnv1a([0, 255, 7]))
""", [str(fnv1a([])), str(fnv1a([104, 105])), str(fnv1a([0, 255, 7]))])

test(A, "i128_literals", """
fn main():
    let big: i128 = 170141183460469231731687303715884105727
    let small: i128 = -170141183460469231731687303715884105728
    print(big)
    print(small)
    let x: i128 = 18446744073709551616
    print(x * 3)
""", [str(I128MAX), str(I128MIN), str(3 * 2**64)])

test(A, "i128_arithmetic", """
fn main():
    let a = i128(9223372036854775807)
    let b = a * a
    print(b)
    print(b / i128(-7), b % i128(-7))
    print(-b + i128(1))
""", [str(MAX * MAX), f"{-((MAX*MAX)//7)} {(MAX*MAX) % 7}", str(-(MAX*MAX) + 1)])

test(A, "literal_default_int", """
fn main():
    let x = 5
    let y: int = x * 3
    print(y, 7 / 2, 7 % 2)
""", ["15 3 1"])

test(A, "bool_values", """
fn main():
    let t = true
    let f = not t
    print(t, f, t and f, t or f, t == f, t != f)
""", ["true false false true false true"])

test(A, "array_copy_on_assign", """
fn main():
    var a = [1, 2, 3]
    var b = a
    b[0] = 9
    b.push(4)
    print(a)
    print(b)
""", ["[1, 2, 3]", "[9, 2, 3, 4]"])

test(A, "array_copy_on_call", """
fn bump(xs: [int]) -> [int]:
    var ys = xs
    ys[0] = ys[0] + 100
    ys.push(0)
    return ys

fn main():
    var a = [1, 2]
    let b = bump(a)
    a[1] = 7
    print(a)
    print(b)
""", ["[1, 7]", "[101, 2, 0]"])

test(A, "nested_array_value", """
fn main():
    var m = [[0] * 2] * 2
    m[0][1] = 5
    print(m)
    var row = m[1]
    row[0] = 8
    print(m)
    print(row)
""", ["[[0, 5], [0, 0]]", "[[0, 5], [0, 0]]", "[8, 0]"])

test(A, "array_ops", """
fn main():
    let xs = [1, 2] + [3]
    print(xs, len(xs))
    print([0.5] * 3)
    print(["a"] * 0)
    print(xs == [1, 2, 3], xs != [1, 2, 3], xs == [1, 2])
    print([[1], [2, 3]] == [[1], [2, 3]])
""", ["[1, 2, 3] 3", "[0.5, 0.5, 0.5]", "[]", "true false false", "true"])

test(A, "empty_array_typed", """
fn main():
    var words: [str] = []
    print(words, len(words))
    words.push("hi")
    words.push("there")
    print(words)
    var grid: [[int]] = []
    grid.push([])
    grid.push([1])
    print(grid)
""", ["[] 0", '["hi", "there"]', "[[], [1]]"])

test(A, "array_push_loop", """
fn main():
    var xs: [int] = []
    for i in 0..10:
        xs.push(i * i)
    print(xs)
    print(len(xs), xs[9])
""", [str(list(i*i for i in range(10))), "10 81"])

test(A, "string_ops", """
fn main():
    let s = "ab" + "cd"
    print(s, len(s))
    print("xy" * 3)
    print("é" * 2, len("é" * 2))
    print("abc" < "abd", "Z" < "a", "" < "a", "b" > "abc")
    print("abc" == "abc", "abc" != "ab")
""", ["abcd 4", "xyxyxy", "éé 4", "true true true true", "true true"])

test(A, "shadowing_inner_block", """
fn main():
    let x = 1
    if true:
        let x = "inner"
        print(x)
        for i in 0..1:
            let x = 2.5
            print(x)
        print(x)
    print(x)
""", ["inner", "2.5", "inner", "1"])

test(A, "var_reassign", """
fn main():
    var x = 1
    x = x + 1
    x += 10
    var s = "a"
    s += "b"
    print(x, s)
""", ["12 ab"])

test(A, "compound_assign_ops", """
fn main():
    var x = 100
    x -= 1
    print(x)
    x *= 3
    print(x)
    x /= 4
    print(x)
    x %= 50
    print(x)
    x &= 0b1110
    print(x)
    x |= 0b10001
    print(x)
    x ^= 0xff
    print(x)
    x <<= 2
    print(x)
    x >>= 3
    print(x)
    var f = 1.5
    f *= 4.0
    f /= 8.0
    f -= 0.25
    print(f)
""", None)


def _compound():
    x = 100
    out = []
    x -= 1; out.append(x)
    x *= 3; out.append(x)
    x = int(x / 4); out.append(x)
    x %= 50; out.append(x)
    x &= 0b1110; out.append(x)
    x |= 0b10001; out.append(x)
    x ^= 0xff; out.append(x)
    x <<= 2; out.append(x)
    x >>= 3; out.append(x)
    f = 1.5 * 4.0 / 8.0 - 0.25
    out.append(fmt(f))
    return [str(v) for v in out]


COMPOUND_SRC = WRITTEN.pop() and open(os.path.join(ROOT, "types", "compound_assign_ops.br")).read()
test(A, "compound_assign_ops", COMPOUND_SRC, _compound())

test(A, "compound_assign_index", """
fn main():
    var xs = [1, 2, 3]
    xs[0] += 10
    xs[2] *= xs[1]
    var m = [[1, 2], [3, 4]]
    m[1][0] -= 5
    print(xs, m)
""", ["[11, 2, 6] [[1, 2], [-2, 4]]"])

test(A, "assign_rhs_before_index", """
fn idx() -> int:
    print("index")
    return 0

fn val() -> int:
    print("value")
    return 7

fn main():
    var xs = [1, 2]
    xs[idx()] = val()
    print(xs)
""", ["value", "index", "[7, 2]"])

test(A, "eval_order_left_to_right", """
fn t(name: str, v: int) -> int:
    print(name)
    return v

fn pair(a: int, b: int) -> int:
    return a * 10 + b

fn main():
    print(t("a", 1) + t("b", 2) * t("c", 3))
    print(pair(t("x", 1), t("y", 2)))
""", ["a", "b", "c", "7", "x", "y", "12"])

test(A, "short_circuit", """
fn loud(v: bool) -> bool:
    print("called")
    return v

fn main():
    print(false and loud(true))
    print(true or loud(false))
    print(true and loud(false))
    print(false or loud(true))
    print(not loud(false))
""", ["false", "true", "called", "false", "called", "true", "called", "true"])

test(A, "conditional_expression", """
fn loud(v: int) -> int:
    print("eval", v)
    return v

fn main():
    let a = loud(1) if 2 > 1 else loud(2)
    let b = loud(3) if 2 < 1 else loud(4)
    print(a, b)
    print("x" if a == 1 else "y")
""", ["eval 1", "eval 4", "1 4", "x"])

test(A, "str_conversion", """
fn main():
    print(str(42) + str(-1.5) + str(true))
    print(str(0.1), str(2.0), str(1e16))
    print(str([1, 2]), str(["a", "b"]), str("plain"))
    let m: u64 = 18446744073709551615
    print(str(m), str(i128(-5)))
    print(len(str(12345)))
""", ["42-1.5true", "0.1 2.0 1e+16", '[1, 2] ["a", "b"] plain', f"{U64MAX} -5", "5"])

test(A, "int_from_str", """
fn main():
    print(int("123"), int("-42"), int("1_000_000"), int("0"))
    print(int("9223372036854775807"), int("-9223372036854775808"))
""", ["123 -42 1000000 0", f"{MAX} {MIN}"])

test(A, "float_from_str", """
fn main():
    print(float("2.5"), float("1_000.5"), float("1e3"), float("-0.0"), float("7"))
    print(float("0.1") + float("0.2"))
""", ["2.5 1000.5 1000.0 -0.0 7.0", fmt(0.1 + 0.2)])

test(A, "int_from_float", """
fn main():
    print(int(3.99), int(-3.99), int(0.5), int(-0.0))
    print(int(-9223372036854775808.0))
    print(int(1e18))
""", ["3 -3 0 0", str(MIN), str(10**18)])

test(A, "float_from_int", """
fn main():
    print(float(9007199254740993))
    print(float(-1), float(0))
    let m: u64 = 18446744073709551615
    print(float(m))
    print(float(i128(1) << 100))
    print(float(9223372036854775807))
""", [fmt(float(9007199254740993)), "-1.0 0.0", fmt(float(U64MAX)), fmt(float(2**100)), fmt(float(MAX))])

test(A, "integer_conversions", """
fn main():
    let a = i128(-7)
    let b = u64(7)
    print(a, b, int(a), int(b))
    let m: u64 = 18446744073709551615
    let w: i128 = 18446744073709551615
    print(u64(w))
    print(i128(m) + i128(1))
    print(int(i128(-9223372036854775808)))
""", ["-7 7 -7 7", str(U64MAX), str(U64MAX + 1), str(MIN)])

# ---------------------------------------------------------- arithmetic (SPEC 4)
A = "arith"
test(A, "truncating_div_mod", """
fn main():
    print(7 / 2, -7 / 2, 7 / -2, -7 / -2)
    print(7 % 2, -7 % 2, 7 % -2, -7 % -2)
    print(i128(-7) / i128(2), i128(-7) % i128(2))
    print(u64(7) / u64(2), u64(7) % u64(2))
""", ["3 -3 -3 3", "1 -1 1 -1", "-3 -1", "3 1"])

test(A, "min_mod_minus_one", """
fn rem(a: int, b: int) -> int:
    return a % b

fn main():
    print(rem(-9223372036854775808, -1))
    print(rem(-9223372036854775808, 1))
    let m: i128 = -170141183460469231731687303715884105728
    print(m % i128(-1))
""", ["0", "0", "0"])

PANIC_FNS = """
fn add(a: int, b: int) -> int:
    return a + b
"""

test(A, "overflow_add", """
fn add(a: int, b: int) -> int:
    return @a + b

fn main():
    print(add(9223372036854775806, 1))
    print(^add(9223372036854775807, 1))
""", [str(MAX)], panic="integer overflow in addition")

test(A, "overflow_add_negative", """
fn add(a: int, b: int) -> int:
    return @a + b

fn main():
    print(add(-9223372036854775807, -1))
    print(^add(-9223372036854775808, -1))
""", [str(MIN)], panic="integer overflow in addition")

test(A, "overflow_sub", """
fn sub(a: int, b: int) -> int:
    return @a - b

fn main():
    print(sub(-9223372036854775807, 1))
    print(^sub(-9223372036854775808, 1))
""", [str(MIN)], panic="integer overflow in subtraction")

test(A, "overflow_mul", """
fn main():
    var x = 3037000499
    print(x * x)
    x += 1
    print(@x * x)
""", [str(3037000499**2)], panic="integer overflow in multiplication")

test(A, "overflow_mul_min_neg1", """
fn mul(a: int, b: int) -> int:
    return @a * b

fn main():
    print(mul(-9223372036854775807, -1))
    print(^mul(-9223372036854775808, -1))
""", [str(MAX)], panic="integer overflow in multiplication")

test(A, "overflow_div", """
fn div(a: int, b: int) -> int:
    return @a / b

fn main():
    print(div(-9223372036854775808, 1))
    print(^div(-9223372036854775808, -1))
""", [str(MIN)], panic="integer overflow in division")

test(A, "overflow_neg", """
fn neg(a: int) -> int:
    return @-a

fn main():
    print(neg(-9223372036854775807))
    print(^neg(-9223372036854775808))
""", [str(MAX)], panic="integer overflow in negation")

test(A, "overflow_abs", """
fn main():
    let m = -9223372036854775807
    print(abs(m))
    let n = m - 1
    print(@abs(n))
""", [str(MAX)], panic="integer overflow in negation")

test(A, "overflow_compound_assign", """
fn main():
    var x = 9223372036854775800
    for i in 0..10:
        @x += 1
        print(x)
""", [str(MAX - 7 + k) for k in range(1, 8)], panic="integer overflow in addition")

test(A, "overflow_u64_add", """
fn main():
    let m: u64 = 18446744073709551614
    print(m + 1)
    let n = m + 1
    print(@n + 1)
""", [str(U64MAX)], panic="integer overflow in addition")

test(A, "overflow_u64_sub", """
fn main():
    let a = u64(3)
    print(a - 3)
    print(@a - 4)
""", ["0"], panic="integer overflow in subtraction")

test(A, "overflow_u64_mul", """
fn main():
    let a: u64 = 4294967296
    print(a * 4294967295)
    print(@a * a)
""", [str(4294967296 * 4294967295)], panic="integer overflow in multiplication")

test(A, "overflow_u64_neg", """
fn main():
    let z = u64(0)
    print(-z)
    let one = u64(1)
    print(@-one)
""", ["0"], panic="integer overflow in negation")

test(A, "overflow_i128_add", """
fn main():
    let big: i128 = 170141183460469231731687303715884105727
    print(big - i128(1) + i128(1))
    print(@big + i128(1))
""", [str(I128MAX)], panic="integer overflow in addition")

test(A, "overflow_i128_mul", """
fn main():
    let x = i128(1) << 63
    print(x * x)
    print(@x * x * i128(2))
""", [str(2**126)], panic="integer overflow in multiplication")

test(A, "overflow_i128_neg", """
fn main():
    let m: i128 = -170141183460469231731687303715884105728
    print(m + i128(1))
    print(@-m)
""", [str(I128MIN + 1)], panic="integer overflow in negation")

test(A, "overflow_conversion_u64_of_negative", """
fn main():
    let x = -1
    print(u64(0))
    print(@u64(x))
""", ["0"], panic="integer overflow in conversion")

test(A, "overflow_conversion_int_of_u64", """
fn main():
    let m: u64 = 9223372036854775807
    print(int(m))
    print(@int(m + 1))
""", [str(MAX)], panic="integer overflow in conversion")

test(A, "overflow_conversion_int_of_i128", """
fn main():
    let m = i128(-9223372036854775808)
    print(int(m))
    print(@int(m - i128(1)))
""", [str(MIN)], panic="integer overflow in conversion")

test(A, "overflow_conversion_u64_of_i128", """
fn main():
    let m = i128(1) << 64
    print(u64(m - i128(1)))
    print(@u64(m))
""", [str(U64MAX)], panic="integer overflow in conversion")

test(A, "division_by_zero", """
fn div(a: int, b: int) -> int:
    return @a / b

fn main():
    print(div(7, 7))
    print(^div(7, 0))
""", ["1"], panic="division by zero")

test(A, "modulo_by_zero", """
fn main():
    let zero = 0
    print(5 % 3)
    print(@5 % zero)
""", ["2"], panic="division by zero")

test(A, "division_by_zero_u64", """
fn main():
    let z = u64(0)
    print(@u64(5) / z)
""", [], panic="division by zero")

test(A, "division_by_zero_i128", """
fn main():
    let z = i128(0)
    print(@i128(5) % z)
""", [], panic="division by zero")

test(A, "division_by_zero_min_by_zero", """
fn main():
    let m = -9223372036854775808
    let z = 0
    print(@m / z)
""", [], panic="division by zero")

test(A, "shifts", """
fn main():
    let one = 1
    print(one << 62, one << 63, -8 >> 1, -1 >> 63, 7 >> 0)
    let m: u64 = 18446744073709551615
    print(u64(1) << 63, m >> 60)
    print(i128(1) << 127, i128(-1) >> 127)
    print(5 << 1, 5 >> 1)
""", [f"{2**62} {MIN} -4 -1 7", f"{2**63} 15", f"{I128MIN} -1", "10 2"])

test(A, "shift_amount_64", """
fn main():
    let s = 64
    print(1 << 63)
    print(@1 << s)
""", [str(MIN)], panic="shift amount out of range")

test(A, "shift_amount_negative", """
fn main():
    let s = -1
    print(@16 >> s)
""", [], panic="shift amount out of range")

test(A, "shift_amount_u64", """
fn main():
    let x = u64(1)
    var s = 60
    while s < 70:
        print(@x << s)
        s += 1
""", [str(2**60), str(2**61), str(2**62), str(2**63)], panic="shift amount out of range")

test(A, "shift_amount_i128", """
fn main():
    let x = i128(1)
    let s = 127
    print(x << s)
    print(@x >> (s + 1))
""", [str(I128MIN)], panic="shift amount out of range")

test(A, "bitwise_never_panic", """
fn main():
    let m = -9223372036854775808
    print(m & -1, m | 1, m ^ -1, ~m, ~0)
    let u: u64 = 18446744073709551615
    print(~u, u & 0xff, u ^ u)
    print(~i128(0), i128(6) & i128(3))
""", [f"{MIN} {MIN | 1} {MIN ^ -1} {~MIN} -1", "0 255 0", "-1 2"])


def rotl(x, s, bits):
    m = (1 << bits) - 1
    x &= m
    s %= bits
    return ((x << s) | (x >> (bits - s))) & m


def signed(x, bits):
    x &= (1 << bits) - 1
    return x - (1 << bits) if x >> (bits - 1) else x


test(A, "wrapping_int", """
fn main():
    let big = 9223372036854775807
    let small = -9223372036854775808
    print(big.wrapping_add(1), small.wrapping_sub(1))
    print(big.wrapping_mul(2), big.wrapping_mul(big))
    print(small.wrapping_neg(), big.wrapping_neg(), (5).wrapping_add(-7))
""", [f"{MIN} {MAX}", f"{signed(MAX*2, 64)} {signed(MAX*MAX, 64)}", f"{MIN} {-MAX} -2"])

test(A, "wrapping_u64", """
fn main():
    let m: u64 = 18446744073709551615
    let z = u64(0)
    print(m.wrapping_add(2), z.wrapping_sub(1), u64(1).wrapping_neg())
    print(m.wrapping_mul(m), u64(0x9E3779B97F4A7C15).wrapping_mul(u64(3)))
""".replace("u64(0x9E3779B97F4A7C15)", "m.wrapping_sub(0x61C8864680B583EA)"),
    [f"1 {U64MAX} {U64MAX}", f"{(U64MAX*U64MAX) & U64MAX} {(0x9E3779B97F4A7C15*3) & U64MAX}"])

test(A, "wrapping_i128", """
fn main():
    let big: i128 = 170141183460469231731687303715884105727
    print(big.wrapping_add(i128(1)))
    print(big.wrapping_mul(big))
    print((-big - i128(1)).wrapping_neg(), big.wrapping_sub(-big))
""", [str(I128MIN), str(signed(I128MAX*I128MAX, 128)), f"{I128MIN} {signed(2*I128MAX, 128)}"])

test(A, "rotate_int", """
fn main():
    let one = 1
    let x = 0x0123456789abcdef
    print(one.rotate_left(63), one.rotate_right(1))
    print(x.rotate_left(4), x.rotate_right(8))
    print(x.rotate_left(65) == x.rotate_left(1), x.rotate_left(64) == x, x.rotate_left(-1) == x.rotate_right(1))
""", [f"{MIN} {MIN}",
      f"{signed(rotl(0x0123456789abcdef, 4, 64), 64)} {signed(rotl(0x0123456789abcdef, 56, 64), 64)}",
      "true true true"])

test(A, "rotate_u64", """
fn main():
    let x: u64 = 0xf00000000000000f
    print(x.rotate_left(4), x.rotate_right(4))
    print(x.rotate_right(128) == x)
""", [f"{rotl(0xf00000000000000f, 4, 64)} {rotl(0xf00000000000000f, 60, 64)}", "true"])

test(A, "rotate_i128", """
fn main():
    let x = i128(1)
    print(x.rotate_left(127), x.rotate_right(1), x.rotate_left(128))
    let y = i128(-2)
    print(y.rotate_left(1), y.rotate_right(1))
""", [f"{I128MIN} {I128MIN} 1", f"{signed(rotl(-2, 1, 128), 128)} {signed(rotl(-2, 127, 128), 128)}"])


def tz(x, bits):
    x &= (1 << bits) - 1
    if x == 0:
        return bits
    return (x & -x).bit_length() - 1


def lz(x, bits):
    x &= (1 << bits) - 1
    return bits - x.bit_length()


def ones(x, bits):
    return bin(x & ((1 << bits) - 1)).count("1")


test(A, "count_bits_int", """
fn main():
    let v = [0, 1, -1, 255, -9223372036854775808, 96]
    for x in v:
        print(x.count_ones(), x.leading_zeros(), x.trailing_zeros())
""", [f"{ones(x,64)} {lz(x,64)} {tz(x,64)}" for x in [0, 1, -1, 255, MIN, 96]])

test(A, "count_bits_u64", """
fn main():
    let v: [u64] = [0, 1, 18446744073709551615, 0x8000000000000000, 0xf0]
    for x in v:
        print(x.count_ones(), x.leading_zeros(), x.trailing_zeros())
""", [f"{ones(x,64)} {lz(x,64)} {tz(x,64)}" for x in [0, 1, U64MAX, 2**63, 0xf0]])

test(A, "count_bits_i128", """
fn main():
    let v = [i128(0), i128(1), i128(-1), i128(1) << 100]
    for x in v:
        print(x.count_ones(), x.leading_zeros(), x.trailing_zeros())
""", [f"{ones(x,128)} {lz(x,128)} {tz(x,128)}" for x in [0, 1, -1, 2**100]])

test(A, "abs_values", """
fn main():
    print(abs(-5), abs(5), abs(0), abs(i128(-3)))
    print(abs(-2.5), abs(-0.0), abs(2.0))
""", ["5 5 0 3", "2.5 0.0 2.0"])

test(A, "index_out_of_bounds", """
fn main():
    let xs = [1, 2, 3]
    print(xs[2])
    let i = 5
    print(@xs[i])
""", ["3"], panic="index out of bounds: the len is 3 but the index is 5")

test(A, "index_negative", """
fn main():
    let xs = [1, 2, 3]
    let i = -1
    print(@xs[i])
""", [], panic="index out of bounds: the len is 3 but the index is -1")

test(A, "index_assign_out_of_bounds", """
fn main():
    var xs = [0] * 4
    xs[3] = 1
    print(xs)
    @xs[4] = 2
""", ["[0, 0, 0, 1]"], panic="index out of bounds: the len is 4 but the index is 4")

test(A, "index_nested_out_of_bounds", """
fn main():
    let m = [[1, 2], [3]]
    print(m[1][0])
    print(@m[1][1])
""", ["3"], panic="index out of bounds: the len is 1 but the index is 1")

test(A, "index_empty_array", """
fn main():
    let xs: [float] = []
    print(@xs[0])
""", [], panic="index out of bounds: the len is 0 but the index is 0")

test(A, "convert_nan", """
fn main():
    let z = 0.0
    print(@int(z / z))
""", [], panic="cannot convert nan to int")

test(A, "convert_big_float", """
fn main():
    let x = 1e300
    print(int(1e18))
    print(@int(x))
""", [str(10**18)], panic="cannot convert 1e+300 to int")

test(A, "convert_inf", """
fn main():
    let x = -1.0 / 0.0
    print(@int(x))
""", [], panic="cannot convert -inf to int")

test(A, "convert_two_pow_63", """
fn main():
    let x = 9223372036854775807.0
    print(@int(x))
""", [], panic=f"cannot convert {fmt(float(2**63))} to int")

test(A, "convert_str_12x", """
fn main():
    let s = "12x"
    print(int("12"))
    print(@int(s))
""", ["12"], panic='cannot convert "12x" to int')

test(A, "convert_str_spaces", """
fn main():
    print(@int(" 12"))
""", [], panic='cannot convert " 12" to int')

test(A, "convert_str_empty", """
fn main():
    let s = ""
    print(@int(s))
""", [], panic='cannot convert "" to int')

test(A, "convert_str_leading_underscore", """
fn main():
    print(int("1_2"))
    print(@int("_12"))
""", ["12"], panic='cannot convert "_12" to int')

test(A, "convert_str_out_of_range", """
fn main():
    print(@int("9223372036854775808"))
""", [], panic='cannot convert "9223372036854775808" to int')

test(A, "convert_str_float_bad", """
fn main():
    print(float("1.5"))
    print(@float("1.5x"))
""", ["1.5"], panic='cannot convert "1.5x" to float')

test(A, "convert_str_int_of_decimal", """
fn main():
    print(@int("1.5"))
""", [], panic='cannot convert "1.5" to int')

test(A, "stack_overflow", """
@fn down(n: int) -> int:
    let r = ^down(n + 1)
    print(r)
    return r

fn main():
    print("start")
    print(^down(0))
""", ["start"], panic="stack overflow", stack_overflow=True)


# ------------------------------------------------------------ floats (SPEC 3, 6.2)
A = "float"
test(A, "division_by_zero_ieee", """
fn main():
    let z = 0.0
    print(1.0 / z, -1.0 / z, z / z, 1.0 / -z)
""", ["inf -inf nan -inf"])

test(A, "fmod", """
fn main():
    let z = 0.0
    let inf = 1.0 / z
    print(7.5 % 2.0, -7.5 % 2.0, 7.5 % -2.0, 5.0 % z, 1.0 % inf, 6.0 % 3.0)
""", [" ".join(fmt(v) for v in [math.fmod(7.5, 2.0), math.fmod(-7.5, 2.0), math.fmod(7.5, -2.0),
                                 float("nan"), math.fmod(1.0, math.inf), math.fmod(6.0, 3.0)])])

test(A, "repr_fixed", """
fn main():
    print(0.1, 2.0, 123456789.0, 0.1 + 0.2, 1.0 / 3.0)
    print(1e15, 9999999999999998.0, 0.0001, 100.0, 16.69531136585985)
""", [" ".join(fmt(v) for v in [0.1, 2.0, 123456789.0, 0.1 + 0.2, 1.0 / 3.0]),
      " ".join(fmt(v) for v in [1e15, 9999999999999998.0, 0.0001, 100.0, 16.69531136585985])])

test(A, "repr_scientific", """
fn main():
    print(1e16, 1e-05, 1.5e-07, 5e-324, 1.7976931348623157e308)
    print(2.2250738585072014e-308, 12345678901234567890.0, 0.00001234)
""", [" ".join(fmt(v) for v in [1e16, 1e-05, 1.5e-07, 5e-324, 1.7976931348623157e308]),
      " ".join(fmt(v) for v in [2.2250738585072014e-308, 12345678901234567890.0, 0.00001234])])

test(A, "repr_special", """
fn main():
    let z = 0.0
    print(-z, -0.0, 1.0 / z, -1.0 / z, z / z)
    print([-0.0, 1.0 / z, z / z])
""", ["-0.0 -0.0 inf -inf nan", "[-0.0, inf, nan]"])

test(A, "repr_two_pow_53_plus_one", """
fn main():
    let n = 9007199254740993
    print(float(n), float(n - 1), float(n + 1))
""", [f"{fmt(float(2**53+1))} {fmt(float(2**53))} {fmt(float(2**53+2))}"])

test(A, "repr_shortest_roundtrip", """
fn main():
    var x = 0.0
    for i in 0..10:
        x += 0.1
    print(x)
    print(1.1 * 1.1, 2.675, 1e23, 0.3)
""", None)


def _shortest():
    x = 0.0
    for _ in range(10):
        x += 0.1
    return [fmt(x), " ".join(fmt(v) for v in [1.1 * 1.1, 2.675, 1e23, 0.3])]


test(A, "repr_shortest_roundtrip", WRITTEN.pop() and open(os.path.join(ROOT, A, "repr_shortest_roundtrip.br")).read(), _shortest())

test(A, "nan_comparisons", """
fn main():
    let z = 0.0
    let n = z / z
    print(n == n, n != n, n < 1.0, n > 1.0, n <= n, 1.0 >= n)
    print(-0.0 == 0.0, -0.0 < 0.0)
""", ["false true false false false false", "true false"])

test(A, "math_exact_builtins", """
fn main():
    print(sqrt(2.0), sqrt(16.0), hypot(3.0, 4.0), pow(2.0, 10.0), pow(2.0, -1.0))
    print(log2(8.0), exp(0.0), log(1.0), cbrt(8.0), log10(1.0))
    print(sin(0.0), cos(0.0), atan2(0.0, -1.0), tan(0.0), atan(0.0))
""", [" ".join(fmt(v) for v in [math.sqrt(2.0), 4.0, 5.0, 1024.0, 0.5]),
      "3.0 1.0 0.0 2.0 0.0",
      f"0.0 1.0 {fmt(math.atan2(0.0, -1.0))} 0.0 0.0"])

test(A, "math_rounding", """
fn main():
    print(floor(-2.5), ceil(-2.5), trunc(-2.7), floor(2.0), ceil(2.1))
    print(round(2.5), round(-2.5), round(0.5), round(1.5), round(-0.4))
    print(round(0.49999999999999994), round(4503599627370497.0))
""", ["-3.0 -2.0 -2.0 2.0 3.0", "3.0 -3.0 1.0 2.0 -0.0", "0.0 4503599627370497.0"])

test(A, "math_sqrt_special", """
fn main():
    let z = 0.0
    print(sqrt(-1.0), sqrt(-0.0), sqrt(1.0 / z), sqrt(0.0))
""", ["nan -0.0 inf 0.0"])

test(A, "min_max_two", """
fn main():
    print(min(2, 3), max(2, 3), min(-1.5, 2.5), max(-1.5, 2.5))
    print(min("b", "a"), max("b", "a"), min(u64(3), u64(9)), max(i128(-3), i128(-9)))
""", ["2 3 -1.5 2.5", "a b 3 -3"])

test(A, "float_arith_ieee", """
fn main():
    print(0.1 + 0.2, 1.0 - 0.9, 0.1 * 3.0, 1.0 / 10.0, -(2.5))
    print(1e308 * 10.0, -1e308 * 10.0, 5e-324 / 2.0)
""", [" ".join(fmt(v) for v in [0.1 + 0.2, 1.0 - 0.9, 0.1 * 3.0, 1.0 / 10.0, -2.5]),
      f"inf -inf {fmt(5e-324 / 2.0)}"])

# -------------------------------------------------------- format specs (SPEC 6.3)
A = "format"


def ftest(name, decls, fields):
    """fields: list of (brine_expr, python_value, spec); one line each."""
    body = "".join(f"    print(f\"[{{{e}:{sp}}}]\")\n" for e, _, sp in fields)
    src = "fn main():\n" + "".join("    " + d + "\n" for d in decls) + body
    out = [f"[{format(v, sp)}]" for _, v, sp in fields]
    test(A, name, src, out)


ftest("fixed_precision", ["let x = 3.14159265358979", "let y = -2.5", "let z = 2.0 / 3.0"], [
    ("x", 3.14159265358979, ".12f"), ("x", 3.14159265358979, ".2f"), ("y", -2.5, ".0f"),
    ("x", 3.14159265358979, "f"), ("z", 2.0 / 3.0, ".3f"), ("x", 3.14159265358979, ".0f"),
    ("y", -2.5, "F")])
ftest("fixed_exact_digits", ["let x = 0.1", "let y = 2.675", "let big = 1e22"], [
    ("x", 0.1, ".20f"), ("y", 2.675, ".2f"), ("big", 1e22, ".1f")])
ftest("exponent", ["let e = -6.767e-10", "let x = 1234.5678", "let z = 0.0"], [
    ("e", -6.767e-10, ".2e"), ("x", 1234.5678, "e"), ("x", 1234.5678, ".3E"), ("z", 0.0, ".1e"),
    ("x", 1234.5678, ".0e")])
ftest("thousands", ["let n = 1000000", "let m = -1234567", "let s = 999", "let x = 1234567.891",
                    "let w = i128(10) << 70"], [
    ("n", 1000000, ","), ("m", -1234567, ","), ("s", 999, ","), ("x", 1234567.891, ",.2f"),
    ("w", 10 << 70, ",")])
ftest("width_align_numbers", ["let x = 1234567.891", "let n = 42"], [
    ("x", 1234567.891, ">12,.2f"), ("x", 1234567.891, "<16,.2f"), ("n", 42, "<6"), ("n", 42, "^7"),
    ("n", 42, ">6"), ("n", 42, "6"), ("x", 1234567.891, "^18.1f")])
ftest("zero_padding", ["let i = 42", "let n = -42", "let x = -3.14159"], [
    ("i", 42, "05"), ("n", -42, "05"), ("i", 42, "+06"), ("x", -3.14159, "08.3f"), ("i", 42, "02"),
    ("i", 42, "03d")])
ftest("fill_characters", ["let s = \"ab\"", "let n = 7"], [
    ("s", "ab", "*^9"), ("n", 7, "->8"), ("s", "ab", ".<6"), ("n", 7, "0<4"), ("s", "ab", "_>5")])
ftest("sign_options", ["let p = 5", "let m = -5", "let x = 3.5"], [
    ("p", 5, "+"), ("m", -5, "+"), ("p", 5, " "), ("m", -5, " "), ("p", 5, "-"), ("x", 3.5, "+.1f"),
    ("x", 3.5, " .2f"), ("x", 3.5, "+e")])
ftest("int_bases", ["let n = 255", "let m = -255", "let z = 0"], [
    ("n", 255, "x"), ("n", 255, "X"), ("n", 255, "o"), ("n", 255, "b"), ("m", -255, "x"),
    ("z", 0, "b"), ("n", 255, "08b"), ("n", 255, ">6x"), ("n", 255, "d")])
ftest("int_bases_wide", ["let u: u64 = 18446744073709551615", "let w = i128(-1) << 100"], [
    ("u", U64MAX, "x"), ("u", U64MAX, ","), ("w", -(1 << 100), "X"), ("u", U64MAX, "o")])
ftest("general", ["let a = 1234567.0", "let b = 0.0001", "let c = 0.00001", "let d = 100000.0",
                  "let e = 3.14159"], [
    ("a", 1234567.0, "g"), ("b", 0.0001, "g"), ("c", 0.00001, "g"), ("d", 100000.0, "g"),
    ("e", 3.14159, ".3g"), ("a", 1234567.0, "G"), ("c", 0.00001, "G"), ("e", 3.14159, ".10g"),
    ("d", 100000.0, ".2g")])
ftest("percent", ["let a = 0.25", "let b = 0.1234", "let c = 1.0"], [
    ("a", 0.25, "%"), ("a", 0.25, ".1%"), ("b", 0.1234, ".1%"), ("c", 1.0, ".0%"), ("b", 0.1234, ">8.2%")])
ftest("strings", ["let s = \"brine\""], [
    ("s", "brine", ""), ("s", "brine", "s"), ("s", "brine", ">8"), ("s", "brine", "<8"),
    ("s", "brine", "^9"), ("s", "brine", "3")])
ftest("float_special", ["let z = 0.0", "let inf = 1.0 / z", "let nan = z / z"], [
    ("inf", math.inf, "f"), ("-inf", -math.inf, ".2f"), ("nan", math.nan, "f"), ("inf", math.inf, "F"),
    ("nan", math.nan, "E"), ("inf", math.inf, ">6"), ("inf", math.inf, "e")])
ftest("negative_zero", ["let z = -0.0"], [
    ("z", -0.0, ".1f"), ("z", -0.0, "e"), ("z", -0.0, "g"), ("z", -0.0, "+.0f")])
ftest("width_no_type", ["let x = 2.5", "let big = 1e16", "let n = -3"], [
    ("x", 2.5, "10"), ("big", 1e16, "10"), ("n", -3, "5"), ("x", 2.5, "<6")])

test(A, "no_spec_values", """
fn main():
    let x = 0.1
    let b = true
    let xs = [1.5, 2.0]
    let ss = ["a\\"b"]
    let w = i128(-170141183460469231731687303715884105727) - i128(1)
    print(f"{x} {b} {xs} {ss} {w} {2.0 * 3.0}")
""", ['0.1 true [1.5, 2.0] ["a\\"b"] ' + str(I128MIN) + ' 6.0'])

test(A, "textbook_runge_line", """
fn main():
    let i1 = 2.000000010824504
    let i2 = 2.000000000676321
    let runge = (i2 - i1) / 15.0
    print(f"I(n) = {i1:.12f}, I(2n) = {i2:.12f}")
    print(f"Runge: {runge:.2e}, true error {2.0 - i2:.2e}")
""", [f"I(n) = {2.000000010824504:.12f}, I(2n) = {2.000000000676321:.12f}",
      f"Runge: {(2.000000000676321 - 2.000000010824504) / 15.0:.2e}, true error {2.0 - 2.000000000676321:.2e}"])

# ------------------------------------------------------------ control flow (SPEC 2)
A = "control"
test(A, "if_elif_else", """
fn classify(n: int) -> str:
    if n < 0:
        return "negative"
    elif n == 0:
        return "zero"
    elif n < 10:
        return "small"
    else:
        return "large"

fn main():
    for n in [-5, 0, 7, 10]:
        print(classify(n))
    if false:
        print("never")
    if 1 > 2:
        print("never")
    else:
        print("else taken")
""", ["negative", "zero", "small", "large", "else taken"])

test(A, "while_loop", """
fn main():
    var n = 27
    var steps = 0
    while n != 1:
        if n % 2 == 0:
            n = n / 2
        else:
            n = 3 * n + 1
        steps += 1
    print(steps)
""", ["111"])

test(A, "for_range_half_open", """
fn main():
    for i in 0..3:
        print(i)
    for i in -2..0:
        print(i)
""", ["0", "1", "2", "-2", "-1"])

test(A, "for_range_closed", """
fn main():
    for i in 1..=3:
        print(i)
    for i in 5..=5:
        print("once", i)
""", ["1", "2", "3", "once 5"])

test(A, "for_range_empty", """
fn main():
    for i in 5..3:
        print("never", i)
    for i in 5..5:
        print("never", i)
    for i in 5..=4:
        print("never", i)
    print("done")
""", ["done"])

test(A, "for_range_near_int_max", """
fn main():
    let m = 9223372036854775807
    for i in m - 2..=m:
        print(i)
    var count = 0
    for i in m - 3..m:
        count += 1
    print(count)
""", [str(MAX - 2), str(MAX - 1), str(MAX), "3"])

test(A, "for_range_near_int_min", """
fn main():
    let m = -9223372036854775808
    for i in m..=m + 1:
        print(i)
    for i in m..m:
        print("never")
""", [str(MIN), str(MIN + 1)])

test(A, "for_range_bounds_evaluated_once", """
fn main():
    var n = 3
    var count = 0
    for i in 0..n:
        n += 1
        count += 1
        if count > 10:
            break
    print(count, n)
""", ["3 6"])

test(A, "for_over_array", """
fn main():
    let words = ["a", "bb", "ccc"]
    var total = 0
    for w in words:
        total += len(w)
        print(w)
    print(total)
    for row in [[1, 2], [3]]:
        print(row, len(row))
""", ["a", "bb", "ccc", "6", "[1, 2] 2", "[3] 1"])

test(A, "break_continue", """
fn main():
    for i in 0..10:
        if i % 2 == 0:
            continue
        if i > 7:
            break
        print(i)
    var j = 0
    while true:
        j += 1
        if j == 3:
            continue
        if j == 5:
            break
        print("j", j)
""", ["1", "3", "5", "7", "j 1", "j 2", "j 4"])

test(A, "nested_loops_break_inner", """
fn main():
    for i in 0..3:
        for j in 0..3:
            if j > i:
                break
            print(i, j)
""", [f"{i} {j}" for i in range(3) for j in range(3) if j <= i])

test(A, "return_from_nested_loop", """
fn find(target: int) -> int:
    for i in 0..10:
        for j in 0..10:
            if i * j == target:
                return i * 100 + j
    return -1

fn main():
    print(find(12), find(81), find(97))
""", ["206 909 -1"])

test(A, "void_function_return", """
fn show(n: int):
    if n < 0:
        print("negative")
        return
    print("value", n)

fn main():
    show(-1)
    show(4)
""", ["negative", "value 4"])

test(A, "pass_statement", """
fn nothing():
    pass

fn main():
    nothing()
    for i in 0..3:
        pass
    if true:
        pass
    print("ok")
""", ["ok"])

test(A, "recursion_fib", """
fn fib(n: int) -> int:
    if n < 2:
        return n
    return fib(n - 1) + fib(n - 2)

fn main():
    print(fib(0), fib(1), fib(10), fib(25))
""", ["0 1 55 75025"])

test(A, "call_before_definition", """
fn main():
    print(is_even(10), is_odd(7), is_even(3))

fn is_even(n: int) -> bool:
    if n == 0:
        return true
    return is_odd(n - 1)

fn is_odd(n: int) -> bool:
    if n == 0:
        return false
    return is_even(n - 1)
""", ["true true false"])

test(A, "top_level_constants_in_order", """
fn noisy(name: str, v: int) -> int:
    print("init", name)
    return v

let A = noisy("A", 1)
let B = noisy("B", A + 1)
let SCALE: float = 2.5

fn main():
    print("main", A, B, SCALE)
""", ["init A", "init B", "main 1 2 2.5"])

test(A, "top_level_constant_types", """
let N = 10
let BIG: u64 = 18446744073709551615
let WIDE: i128 = 1 << 100
let NAMES = ["x", "y"]
let HALF = 0.5

fn main():
    print(N * 2, BIG, WIDE, NAMES, HALF)
""", [f"20 {U64MAX} {2**100} [\"x\", \"y\"] 0.5"])

test(A, "deep_recursion_ok", """
fn depth(n: int) -> int:
    if n == 0:
        return 0
    return depth(n - 1) + 1

fn main():
    print(depth(10000))
""", ["10000"])

test(A, "loop_building_arrays", """
fn main():
    var total = 0
    for i in 0..100000:
        var xs = [i] * 4
        xs.push(1)
        total += len(xs) + xs[0] % 2
    print(total)
""", [str(sum(5 + i % 2 for i in range(100000)))])

# ---------------------------------------------------------------- os (SPEC 11)
A = "os"
test(A, "exit_code", """
fn main():
    print("before exit")
    os.exit(3)
    print("never")
""", ["before exit"], exit=3)

test(A, "exit_code_masked", """
fn main():
    os.exit(263)
""", [], exit=7)

test(A, "exit_code_negative", """
fn main():
    print("bye")
    os.exit(-1)
""", ["bye"], exit=255)

test(A, "exit_zero_from_helper", """
fn stop():
    os.exit(0)

fn main():
    stop()
    print("never")
""", [])

test(A, "args", """
fn main():
    let a = os.args()
    print(len(a))
    print(a)
    for s in a:
        print(s)
""", ["3", '["one", "two", "3"]', "one", "two", "3"], args="one two 3")

test(A, "args_empty", """
fn main():
    print(os.args(), len(os.args()))
""", ["[] 0"])

test(A, "getenv", """
fn main():
    print(os.getenv("BRINE_TEST_GREETING"))
    print(len(os.getenv("BRINE_TEST_SURELY_UNSET_VARIABLE")))
""", ["hello", "0"], env="BRINE_TEST_GREETING=hello")

test(A, "thread_count", """
fn main():
    print(os.thread_count())
""", ["3"], env="BRINE_THREADS=3")

test(A, "clock_monotonic", """
fn main():
    let t0 = os.clock()
    var s = 0
    for i in 0..1000:
        s += i
    let t1 = os.clock()
    print(t1 >= t0, t0 >= 0.0, s)
""", ["true true 499500"])

# ---------------------------------------------------------------- output (SPEC 6)
A = "output"
test(A, "print_separators", """
fn main():
    print(1, "a", 2.5, true, u64(7), i128(-8))
    print("x")
    print("", "")
""", ["1 a 2.5 true 7 -8", "x", " "])

test(A, "print_empty_line", """
fn main():
    print("a")
    print()
    print("b")
""", ["a", "", "b"])

test(A, "print_arrays", """
fn main():
    print([1, 2, 3])
    print([0.5, 1.0, -0.0])
    print([true, false])
    print([[1, 2], [], [3]])
    let e: [int] = []
    print(e)
    print([u64(1)], [i128(-1)])
""", ["[1, 2, 3]", "[0.5, 1.0, -0.0]", "[true, false]", "[[1, 2], [], [3]]", "[]", "[1] [-1]"])

test(A, "print_string_arrays_escaped", """
fn main():
    print(["a", "b"])
    print(["a\\"b\\n"])
    print(["tab\\t", "cr\\r", "nul\\0", "back\\\\slash", "it's", "{}"])
    print(["\\u{1}", "é", "\\u{1F600}"])
    print([["nested"]])
""", ['["a", "b"]', '["a\\"b\\n"]', '["tab\\t", "cr\\r", "nul\\0", "back\\\\slash", "it\'s", "{}"]',
      '["\\u{1}", "é", "\U0001F600"]', '[["nested"]]'])

test(A, "print_flushed_before_panic", """
fn main():
    for i in 0..3:
        print("line", i)
    let xs = [1]
    print(@xs[i128to(5)])

fn i128to(n: int) -> int:
    return n
""", ["line 0", "line 1", "line 2"], panic="index out of bounds: the len is 1 but the index is 5")

test(A, "print_large_output", """
fn main():
    for i in 0..20000:
        print(i)
""", [str(i) for i in range(20000)])

test(A, "print_floats_in_sequence", """
fn main():
    var x = 1.0
    for i in 0..6:
        print(x)
        x = x / 10.0
""", None)


def _floats_seq():
    x, out = 1.0, []
    for _ in range(6):
        out.append(fmt(x))
        x = x / 10.0
    return out


test(A, "print_floats_in_sequence", WRITTEN.pop() and open(os.path.join(ROOT, A, "print_floats_in_sequence.br")).read(), _floats_seq())

test(A, "print_bool_and_compare", """
fn main():
    print(1 < 2, 2.0 >= 3.0, "a" != "a")
""", ["true false false"])

# ------------------------------------------------------ sequential reductions (SPEC 5.1)
A = "reduce"
test(A, "sum_int_range", """
fn main():
    print(sum(i for i in 0..101))
    print(sum(i * i for i in 1..=10))
    print(sum(i for i in 0..0))
""", ["5050", "385", "0"])

test(A, "sum_float_left_fold", """
fn main():
    print(sum(0.1 for i in 0..10))
    print(sum(1.0 / float(i) for i in 1..=1000))
""", [fmt(T.seq("sum", [0.1] * 10, "float")), fmt(T.seq("sum", [1.0 / i for i in range(1, 1001)], "float"))])

test(A, "sum_with_filter", """
fn main():
    print(sum(i for i in 0..100 if i % 3 == 0))
    print(sum(float(i) for i in 0..10 if i > 100))
""", [str(sum(i for i in range(100) if i % 3 == 0)), "0.0"])

test(A, "sum_of_array", """
fn main():
    let xs = [1.5, 2.5, 3.0]
    let ns = [4, 5, 6]
    print(sum(xs), sum(ns), product(ns))
    let e: [float] = []
    print(sum(e), product(e))
""", ["7.0 15 120", "0.0 1.0"])

test(A, "product", """
fn main():
    print(product(i for i in 1..=20))
    print(product(float(i) * 0.5 for i in 1..=10))
    print(product(i for i in 1..=5 if i != 3))
""", [str(math.factorial(20)), fmt(T.seq("product", [i * 0.5 for i in range(1, 11)], "float")), "40"])

test(A, "min_max", """
fn main():
    print(min(i * i - 10 * i for i in 0..20), max(i % 7 for i in 0..20))
    print(min([3.5, -1.0, 2.0]), max(["pear", "apple", "zoo"]))
    print(min(x for x in [5, 3, 9] if x > 3))
""", [f"{min(i*i-10*i for i in range(20))} 6", "-1.0 zoo", "5"])

test(A, "min_max_ties_first_wins", """
fn main():
    let z = [0.0, -0.0, 1.0]
    let y = [-0.0, 0.0, 1.0]
    print(min(z), min(y))
    let w = [0.0, -0.0, -1.0]
    print(max(w), max([-0.0, 0.0]))
""", [f"{fmt(T.seq('min', [0.0, -0.0, 1.0], 'float'))} {fmt(T.seq('min', [-0.0, 0.0, 1.0], 'float'))}",
      f"{fmt(T.seq('max', [0.0, -0.0, -1.0], 'float'))} {fmt(T.seq('max', [-0.0, 0.0], 'float'))}"])

test(A, "min_max_nan", """
fn main():
    let z = 0.0
    let nan = z / z
    print(min([nan, 1.0, -1.0]), min([1.0, nan, -1.0]), max([2.0, nan, 3.0]))
""", ["nan -1.0 3.0"])

test(A, "min_empty", """
fn main():
    let e: [int] = []
    print(min([7]))
    print(@min(e))
""", ["7"], panic="min of an empty sequence")

test(A, "max_empty_filter", """
fn main():
    print(@max(i for i in 0..10 if i > 10))
""", [], panic="max of an empty sequence")

test(A, "any_all", """
fn main():
    print(any(i > 5 for i in 0..10), all(i < 5 for i in 0..10))
    print(any(i > 50 for i in 0..10), all(i < 50 for i in 0..10))
    print(any(i > 0 for i in 0..0), all(i > 0 for i in 0..0))
    print(any([false, true]), all([true, true]))
    print(any(x for x in [true, false] if not x))
""", ["true false", "false true", "false true", "true true", "false"])

test(A, "any_stops_at_deciding_element", """
fn check(i: int) -> bool:
    print("check", i)
    return i == 2

fn main():
    print(any(check(i) for i in 0..10))
    print(all(not check(i) for i in 0..10))
""", ["check 0", "check 1", "check 2", "true", "check 0", "check 1", "check 2", "false"])

test(A, "any_panic_after_deciding_is_not_reached", """
fn main():
    let xs = [1, 2, 3]
    print(any(xs[i] == 2 for i in 0..10))
""", ["true"])

test(A, "any_panic_before_deciding", """
fn main():
    let xs = [1, 2, 3]
    print(any(@xs[i] == 9 for i in 0..10))
""", [], panic="index out of bounds: the len is 3 but the index is 3")

test(A, "sum_overflow", """
fn main():
    let big = 9223372036854775807
    print(sum(x for x in [big, -1, 1]))
    print(@sum(x for x in [big, 1, -1]))
""", [str(MAX)], panic="integer overflow in addition")

test(A, "product_overflow", """
fn main():
    print(product(i for i in 1..=20))
    print(@product(i for i in 1..=21))
""", [str(math.factorial(20))], panic="integer overflow in multiplication")

test(A, "sum_u64_and_i128", """
fn main():
    let m: u64 = 9223372036854775807
    print(sum(x for x in [m, m, u64(1)]))
    print(sum(i128(i) << 100 for i in 0..4))
""", [str(2 * MAX + 1), str(6 << 100)])

test(A, "listcomp", """
fn main():
    print([i * i for i in 0..5])
    print([float(i) / 2.0 for i in 0..4 if i != 1])
    print([s + "!" for s in ["a", "b"]])
    print([[j for j in 0..i] for i in 0..3])
""", ["[0, 1, 4, 9, 16]", "[0.0, 1.0, 1.5]", '["a!", "b!"]', "[[], [0], [0, 1]]"])

test(A, "listcomp_empty", """
fn main():
    let xs = [i for i in 0..10 if i > 20]
    print(xs, len(xs))
""", ["[] 0"])

# ------------------------------------------------------- par reductions (SPEC 5.2-5.5)
A = "par"


def elem_h(i):
    # The element of the par_sum_n tests: terms of mixed magnitude, so the
    # tree and the left fold round differently.
    return 1.0 / float(i + 1) + float(i % 5) * 0.3


DIFFER = []
for n in [0, 1, 15, 16, 17, 31, 32, 33, 48, 63, 64, 65, 80, 127, 129, 255, 257, 1023, 1025,
          4095, 4097, 65535, 65537, 1000000]:
    xs = [elem_h(i) for i in range(n)]
    p, s = T.par("sum", xs, "float"), T.seq("sum", xs, "float")
    DIFFER.append((n, p != s))
    test(A, f"sum_float_n{n}", f"""
fn term(i: int) -> float:
    return 1.0 / float(i + 1) + float(i % 5) * 0.3

fn main():
    let n = {n}
    print(par sum(term(i) for i in 0..n))
    print(sum(term(i) for i in 0..n))
""", [fmt(p), fmt(s)])

test(A, "harmonic", """
fn main():
    let n = 10_000_000
    let tree = par sum(1.0 / float(i) for i in 1..=n)
    let left = sum(1.0 / float(i) for i in 1..=n)
    print(f"par sum: {tree}")
    print(f"sum:     {left}")
""", ["par sum: 16.69531136585985", "sum:     16.695311365857272"])

# The seed's two overflow programs (seeds/000). The `# exit: 101` header line
# shifts their lines by one against the seed's picture (8:11 -> 9:11,
# 9:11 -> 10:11); examples/ov.br and examples/ov2.br explain themselves at the top, so theirs move too.
test(A, "ov", """
fn main():
    let big = 9_223_372_036_854_775_807
    var xs = [0] * 32
    xs[0] = -big
    xs[16] = big
    xs[17] = big
    print(sum(x for x in xs))
    print(@par sum(x for x in xs))
""", ["9223372036854775807"], panic="integer overflow in addition")

test(A, "ov2", """
fn main():
    let big = 9_223_372_036_854_775_807
    var xs = [0] * 64
    xs[0] = big
    xs[16] = -5
    xs[32] = 10
    xs[48] = -10
    print(par sum(x for x in xs))
    print(@sum(x for x in xs))
""", ["9223372036854775802"], panic="integer overflow in addition")


def _ov_check():
    big = MAX
    xs = [0] * 32
    xs[0], xs[16], xs[17] = -big, big, big
    assert T.seq("sum", xs, "int") == MAX
    try:
        T.par("sum", xs, "int")
        raise AssertionError("ov: expected overflow")
    except T.PanicError as e:
        assert e.msg == "integer overflow in addition"
    xs = [0] * 64
    xs[0], xs[16], xs[32], xs[48] = big, -5, 10, -10
    assert T.par("sum", xs, "int") == MAX - 5
    try:
        T.seq("sum", xs, "int")
        raise AssertionError("ov2: expected overflow")
    except T.PanicError:
        pass


_ov_check()

n = 1000000
test(A, "sum_int_large", """
fn main():
    let n = 1_000_000
    print(par sum(i for i in 0..n))
    print(par sum(i * i for i in 0..n if i % 2 == 0))
""", [str(n * (n - 1) // 2), str(sum(i * i for i in range(0, n, 2)))])

xs = [1.0 + float(i) * 1e-4 for i in range(300)]
test(A, "product_float", """
fn main():
    print(par product(1.0 + float(i) * 1e-4 for i in 0..300))
    print(product(1.0 + float(i) * 1e-4 for i in 0..300))
""", [fmt(T.par("product", xs, "float")), fmt(T.seq("product", xs, "float"))])

test(A, "product_int", """
fn main():
    print(par product(i for i in 1..=20))
    print(par product(2 for i in 0..62))
    print(par product(i for i in 1..=30 if i % 5 != 0 and i < 24))
""", [str(math.factorial(20)), str(2**62),
      str(T.par("product", [i if (i % 5 != 0 and i < 24) else T.FILTERED for i in range(1, 31)], "int"))])

test(A, "product_overflow_in_tree_not_fold", """
fn main():
    let big = 9_223_372_036_854_775_807
    var xs = [1] * 32
    xs[0] = 0
    xs[16] = big
    xs[17] = 2
    print(product(xs))
    print(@par product(xs))
""", ["0"], panic="integer overflow in multiplication")

test(A, "product_overflow_at_top", """
fn main():
    print(par product(2 for i in 0..63 if i != 0))
    print(@par product(2 for i in 0..64))
""", [str(2**62)], panic="integer overflow in multiplication")

test(A, "sum_overflow_at_combine", """
fn main():
    let big = 9_223_372_036_854_775_807
    var xs = [0] * 20
    xs[0] = big
    print(par sum(xs))
    xs[16] = 1
    print(@par sum(xs))
""", [str(MAX)], panic="integer overflow in addition")

test(A, "sum_i128", """
fn main():
    print(par sum(i128(1) << 120 for i in 0..127))
    print(@par sum(i128(1) << 120 for i in 0..128))
""", [str(127 << 120)], panic="integer overflow in addition")

test(A, "sum_u64_overflow", """
fn main():
    let half: u64 = 9223372036854775808
    print(par sum(half for i in 0..1))
    print(@par sum(half for i in 0..2))
""", [str(2**63)], panic="integer overflow in addition")


def filt(n, f, g):
    return [g(i) if f(i) else T.FILTERED for i in range(n)]


xs = filt(200, lambda i: (i // 16) % 3 != 1, lambda i: 1.0 / float(i + 1))
test(A, "sum_empty_leaves", """
fn main():
    print(par sum(1.0 / float(i + 1) for i in 0..200 if (i / 16) % 3 != 1))
    print(sum(1.0 / float(i + 1) for i in 0..200 if (i / 16) % 3 != 1))
""", [fmt(T.par("sum", xs, "float")), fmt(T.seq("sum", xs, "float"))])

xs = filt(1000, lambda i: i % 64 < 16 or i > 990, lambda i: float(i) * 0.1 + 0.01)
test(A, "sum_empty_leaves_sparse", """
fn main():
    print(par sum(float(i) * 0.1 + 0.01 for i in 0..1000 if i % 64 < 16 or i > 990))
""", [fmt(T.par("sum", xs, "float"))])

xs = filt(100, lambda i: i >= 96, lambda i: float(i) / 3.0)
test(A, "sum_only_last_leaf", """
fn main():
    print(par sum(float(i) / 3.0 for i in 0..100 if i >= 96))
    print(par min(float(i) / 3.0 for i in 0..100 if i >= 96))
""", [fmt(T.par("sum", xs, "float")), fmt(T.par("min", xs, "float"))])

test(A, "nothing_passes_start_values", """
fn main():
    print(par sum(i for i in 0..100 if i < 0), par sum(float(i) for i in 0..100 if i < 0))
    print(par product(i for i in 0..100 if i < 0), par product(float(i) for i in 0..100 if i < 0))
    print(par any(i > 0 for i in 0..100 if i < 0), par all(i > 0 for i in 0..100 if i < 0))
""", ["0 0.0", "1 1.0", "false true"])

test(A, "empty_range_start_values", """
fn main():
    let n = 0
    print(par sum(1.0 for i in 0..n), par product(2 for i in 0..n))
    print(par any(true for i in 0..n), par all(false for i in 0..n))
    let e: [float] = []
    print(par sum(e))
""", ["0.0 1", "false true", "0.0"])

test(A, "min_empty_panics", """
fn main():
    let n = 0
    print(@par min(i for i in 0..n))
""", [], panic="min of an empty sequence")

test(A, "max_filter_empty_panics", """
fn main():
    print(par max(i for i in 0..100 if i > 5))
    print(@par max(i for i in 0..100 if i > 500))
""", ["99"], panic="max of an empty sequence")

xs = filt(1000, lambda i: i % 5 != 0, lambda i: float((i * 37) % 101) - 50.5)
test(A, "min_max_float_filter", """
fn main():
    print(par min(float((i * 37) % 101) - 50.5 for i in 0..1000 if i % 5 != 0))
    print(par max(float((i * 37) % 101) - 50.5 for i in 0..1000 if i % 5 != 0))
""", [fmt(T.par("min", xs, "float")), fmt(T.par("max", xs, "float"))])

ys = [i * 7919 % 10007 for i in range(100000)]
test(A, "min_max_int", """
fn main():
    print(par max(i * 7919 % 10007 for i in 0..100000))
    print(par min(i * 7919 % 10007 - 5000 for i in 1..100000))
""", [str(max(ys)), str(min(y - 5000 for y in ys[1:]))])

test(A, "min_ties_left_wins", """
fn main():
    var xs = [1.0] * 40
    xs[0] = 0.0
    xs[16] = -0.0
    print(par min(xs), min(xs))
    xs[0] = -0.0
    xs[16] = 0.0
    print(par min(xs), min(xs))
    xs[0] = 2.0
    xs[33] = -0.0
    print(par min(xs), min(xs))
""", None)


def _ties():
    xs = [1.0] * 40
    xs[0], xs[16] = 0.0, -0.0
    a = f"{fmt(T.par('min', xs, 'float'))} {fmt(T.seq('min', xs, 'float'))}"
    xs[0], xs[16] = -0.0, 0.0
    b = f"{fmt(T.par('min', xs, 'float'))} {fmt(T.seq('min', xs, 'float'))}"
    xs[0], xs[33] = 2.0, -0.0
    c = f"{fmt(T.par('min', xs, 'float'))} {fmt(T.seq('min', xs, 'float'))}"
    return [a, b, c]


test(A, "min_ties_left_wins", WRITTEN.pop() and open(os.path.join(ROOT, A, "min_ties_left_wins.br")).read(), _ties())

test(A, "max_ties_left_wins", """
fn main():
    var xs = [-1.0] * 40
    xs[3] = 0.0
    xs[20] = -0.0
    print(par max(xs), max(xs))
    xs[3] = -0.0
    xs[20] = 0.0
    print(par max(xs), max(xs))
""", ["0.0 0.0", "-0.0 -0.0"])

xs = [float(100 - i) for i in range(32)]
xs[16] = math.nan
test(A, "min_nan_leaf_differs_from_fold", """
fn main():
    let z = 0.0
    var xs = [float(100 - i) for i in 0..32]
    xs[16] = z / z
    print(par min(xs))
    print(min(xs))
""", [fmt(T.par("min", xs, "float")), fmt(T.seq("min", xs, "float"))])
assert T.par("min", xs, "float") == 85.0 and T.seq("min", xs, "float") == 69.0

xs = [float(i) for i in range(48)]
xs[0] = math.nan
xs2 = [float(i) for i in range(48)]
xs2[32] = math.nan
test(A, "max_nan", """
fn main():
    let z = 0.0
    var xs = [float(i) for i in 0..48]
    xs[0] = z / z
    print(par max(xs), max(xs))
    xs[0] = 0.0
    xs[32] = z / z
    print(par max(xs), max(xs))
""", [f"{fmt(T.par('max', xs, 'float'))} {fmt(T.seq('max', xs, 'float'))}",
      f"{fmt(T.par('max', xs2, 'float'))} {fmt(T.seq('max', xs2, 'float'))}"])

test(A, "max_strings", """
fn main():
    let words = ["pear", "zoo", "apple", "zebra"]
    print(par max(words), par min(words))
    print(par min(w + "!" for w in words if len(w) > 4))
""", ["zoo apple", "apple!"])

test(A, "any_deciding_before_panic", """
fn main():
    print(par any(100 / (i - 30) == -50 for i in 0..40))
""", ["true"])

test(A, "any_panic_before_deciding", """
fn main():
    print(par any(@100 / (i - 20) == 50 for i in 0..40))
""", [], panic="division by zero")

test(A, "all_deciding_before_panic", """
fn main():
    let xs = [5] * 20
    print(par all(xs[i] > 0 and i < 18 for i in 0..1000))
""", ["false"])

test(A, "all_panic_before_deciding", """
fn main():
    let xs = [5] * 20
    print(par all(@xs[i] > 0 for i in 0..1000))
""", [], panic="index out of bounds: the len is 20 but the index is 20")

test(A, "any_all_results", """
fn main():
    print(par any(i == 33 for i in 0..100 if i % 2 == 1), par any(i == 34 for i in 0..100 if i % 2 == 1))
    print(par all(i % 2 == 1 for i in 0..100 if i % 2 == 1), par all(i < 99 for i in 0..100))
    print(par any([false, false, true]), par all([true, false]))
""", ["true false", "true false", "true false"])

test(A, "element_panics_in_two_leaves", """
fn main():
    let xs = [1] * 20
    print(par sum(xs[i] for i in 0..20))
    print(par sum(@xs[i] for i in 0..64))
""", ["20"], panic="index out of bounds: the len is 20 but the index is 20")

test(A, "element_panic_lowest_leaf_wins", """
fn main():
    var ys = [1] * 100
    ys[90] = 0
    ys[37] = 0
    ys[70] = 0
    print(par sum(@100 / ys[i] for i in 0..100))
""", [], panic="division by zero")

test(A, "combine_overflow_before_later_leaf_panic", """
fn main():
    let big = 9_223_372_036_854_775_807
    var xs = [0] * 48
    var ys = [1] * 48
    xs[0] = big
    xs[16] = big
    ys[40] = 0
    print(@par sum(xs[i] / ys[i] for i in 0..48))
""", [], panic="integer overflow in addition")

test(A, "leaf_panic_before_later_combine_overflow", """
fn main():
    let big = 9_223_372_036_854_775_807
    var xs = [0] * 64
    var ys = [1] * 64
    ys[20] = 0
    xs[32] = big
    xs[48] = big
    print(par sum(@xs[i] / ys[i] for i in 0..64))
""", [], panic="division by zero")

rows = [T.par("sum", [1.0 / float(r * 100 + j + 1) for j in range(100)], "float") for r in range(300)]
test(A, "nested_par", """
fn row(r: int) -> float:
    return par sum(1.0 / float(r * 100 + j + 1) for j in 0..100)

fn main():
    print(par sum(row(r) for r in 0..300))
    print(sum(row(r) for r in 0..300))
""", [fmt(T.par("sum", rows, "float")), fmt(T.seq("sum", rows, "float"))])

test(A, "nested_par_deep", """
fn inner(k: int) -> int:
    return par sum(k * j for j in 0..50)

fn middle(r: int) -> int:
    return par sum(inner(r + c) for c in 0..20)

fn main():
    print(par sum(middle(r) for r in 0..40))
""", [str(sum(sum(sum((r + c) * j for j in range(50)) for c in range(20)) for r in range(40)))])

test(A, "listcomp_same_as_sequential", """
fn main():
    let a = par [i * i - 7 * i for i in 0..1000]
    let b = [i * i - 7 * i for i in 0..1000]
    print(a == b, len(a), a[0], a[999])
    print(par [i for i in 0..40 if i % 7 == 3])
""", [f"true 1000 0 {999*999 - 7*999}", str([i for i in range(40) if i % 7 == 3])])

test(A, "listcomp_strings", """
fn main():
    print(par [str(i) + "x" for i in 0..40 if i % 9 == 0])
""", ['["0x", "9x", "18x", "27x", "36x"]'])

test(A, "listcomp_floats", """
fn main():
    let xs = par [1.0 / float(i + 1) for i in 0..5]
    print(xs)
""", ["[" + ", ".join(fmt(1.0 / float(i + 1)) for i in range(5)) + "]"])

test(A, "listcomp_lowest_index_panic", """
fn main():
    let xs = [7] * 60
    let ys = par [@xs[i] for i in 0..100000]
    print(len(ys))
""", [], panic="index out of bounds: the len is 60 but the index is 60")

test(A, "listcomp_nested_par", """
fn total(r: int) -> int:
    return par sum(r * c for c in 0..100)

fn main():
    print(par [total(r) for r in 0..6])
""", [str([sum(r * c for c in range(100)) for r in range(6)])])

xs = [float(i) * 0.1 for i in range(1000)]
test(A, "sum_of_array", """
fn main():
    let xs = [float(i) * 0.1 for i in 0..1000]
    print(par sum(xs))
    print(sum(xs))
    print(par max(xs), par min(xs))
""", [fmt(T.par("sum", xs, "float")), fmt(T.seq("sum", xs, "float")), f"{fmt(max(xs))} 0.0"])

test(A, "range_near_int_max", """
fn main():
    let m = 9223372036854775807
    print(par sum(1 for i in m - 40..=m))
    print(par max(i for i in m - 40..=m), par min(i for i in m - 40..m))
""", [f"41", f"{MAX} {MAX - 40}"])

HX = [1.0 / float(i) for i in range(1, 1000001)]
HP = fmt(T.par("sum", HX, "float"))
for th in [1, 3, 7, 64]:
    test(A, f"same_bits_threads_{th}", """
fn main():
    print(par sum(1.0 / float(i) for i in 1..=1_000_000))
""", [HP], env=f"BRINE_THREADS={th}")

test(A, "same_bits_gpu_off", """
fn main():
    print(par sum(1.0 / float(i) for i in 1..=1_000_000))
""", [HP], env="BRINE_GPU=off")

test(A, "captured_values", """
fn main():
    let scale = 0.5
    let xs = [1.0, 2.0, 3.0, 4.0]
    let k = 3
    print(par sum(scale * xs[i % 4] + float(k) for i in 0..100))
""", [fmt(T.par("sum", [0.5 * [1.0, 2.0, 3.0, 4.0][i % 4] + 3.0 for i in range(100)], "float"))])

test(A, "par_in_top_level_constant", """
let TOTAL = par sum(1.0 / float(i) for i in 1..=5000)

fn main():
    print(TOTAL)
""", [fmt(T.par("sum", [1.0 / float(i) for i in range(1, 5001)], "float"))])

test(A, "nested_par_inner_panic", """
fn row(r: int) -> int:
    return par sum(@100 / (j - r) for j in 0..40)

fn main():
    print(par sum(row(r) for r in 40..50))
    print(par sum(^row(r) for r in 0..50))
""", [str(sum(sum(int(100 / (j - r)) for j in range(40)) for r in range(40, 50)))], panic="division by zero",
     frame_names=["row: a par element of nested_par_inner_panic.br:3:12",
                  "main: a par element of nested_par_inner_panic.br:7:11"])

test(A, "fstring_spec_on_expressions", """
fn main():
    let xs = [0.5, 2.25]
    print(f"{xs[1]:.1f}|{par sum(xs):>6.2f}|{len(xs):03}|{xs[0] * 2.0:e}")
""", [f"{2.25:.1f}|{2.75:>6.2f}|{2:03}|{1.0:e}"])


# ------------------------------------------------------- environment (SPEC 8)
A = "env"
SIMPLE = """
fn main():
    print("main ran")
"""
for name, val in [("threads_abc", "abc"), ("threads_zero", "0"), ("threads_negative", "-3"),
                  ("threads_4097", "4097"), ("threads_empty", ""), ("threads_fraction", "1.5")]:
    test(A, name, SIMPLE, [], exit=2, env=f"BRINE_THREADS={val}",
         err=f"brine: BRINE_THREADS must be a whole number from 1 to 4096, got '{val}'\n")
for name, val in [("threads_1_ok", "1"), ("threads_4096_ok", "4096")]:
    test(A, name, """
fn main():
    print(os.thread_count(), par sum(i for i in 0..1000))
""", [f"{val} 499500"], env=f"BRINE_THREADS={val}")
test(A, "gpu_bogus", SIMPLE, [], exit=2, env="BRINE_GPU=bogus",
     err="brine: BRINE_GPU must be one of off, on, auto, got 'bogus'\n")
test(A, "gpu_uppercase_rejected", SIMPLE, [], exit=2, env="BRINE_GPU=OFF",
     err="brine: BRINE_GPU must be one of off, on, auto, got 'OFF'\n")
for val in ["off", "auto"]:
    test(A, f"gpu_{val}_ok", """
fn main():
    print(par sum(float(i) * 0.5 for i in 0..100000))
""", [fmt(T.par("sum", [float(i) * 0.5 for i in range(100000)], "float"))], env=f"BRINE_GPU={val}")

# ------------------------------------------------------------ stdlib (SPEC 11)
A = "stdlib"
test(A, "math_constants", """
import math

fn main():
    print(math.pi, math.e, math.tau)
    print(math.inf, -math.inf, math.nan)
    print(math.tau == 2.0 * math.pi)
""", [f"{fmt(math.pi)} {fmt(math.e)} {fmt(math.tau)}", "inf -inf nan", "true"])

test(A, "math_predicates", """
import math

fn main():
    print(math.isnan(math.nan), math.isnan(1.0), math.isinf(-math.inf), math.isinf(1e308))
    print(math.isfinite(1.0), math.isfinite(math.nan), math.isfinite(math.inf))
""", ["true false true false", "true false false"])

test(A, "random_uniform_values", """
import random

fn main():
    for i in 0..5:
        print(random.uniform(42, i))
    print(random.uniform(0, 0))
""", [fmt(R.uniform(42, i)) for i in range(5)] + [fmt(R.uniform(0, 0))])

test(A, "random_negative_seed_and_index", """
import random

fn main():
    print(random.uniform(-1, -1))
    print(random.uniform(-9223372036854775808, 9223372036854775807))
    print(random.uniform(9223372036854775807, -9223372036854775808))
""", [fmt(R.uniform(-1, -1)), fmt(R.uniform(MIN, MAX)), fmt(R.uniform(MAX, MIN))])

test(A, "random_uniform_range", """
import random

fn main():
    let lo = par min(random.uniform(7, i) for i in 0..100000)
    let hi = par max(random.uniform(7, i) for i in 0..100000)
    print(lo >= 0.0, hi < 1.0)
    print(lo, hi)
""", ["true true", f"{fmt(min(R.uniform(7, i) for i in range(100000)))} {fmt(max(R.uniform(7, i) for i in range(100000)))}"])

test(A, "random_below_values", """
import random

fn main():
    print([random.below(7, i, 6) + 1 for i in 0..20])
    print(random.below(1, 2, 1), random.below(3, 4, 1000000007))
""", [str([R.below(7, i, 6) + 1 for i in range(20)]), f"{R.below(1, 2, 1)} {R.below(3, 4, 1000000007)}"])

test(A, "random_below_zero", """
import random

fn main():
    print(random.below(1, 1, 10))
    let n = 0
    print(@random.below(1, 2, n))
""", [str(R.below(1, 1, 10))], panic="random.below: n must be positive, got 0")

test(A, "random_below_negative", """
import random

fn main():
    let x = 10 + @random.below(5, 5, -3)
    print(x)
""", [], panic="random.below: n must be positive, got -3")

U = [R.uniform(2026, i) for i in range(100000)]
test(A, "random_par_sum_reproducible", """
import random

fn main():
    let n = 100_000
    print(par sum(random.uniform(2026, i) for i in 0..n))
    print(sum(random.uniform(2026, i) for i in 0..n))
""", [fmt(T.par("sum", U, "float")), fmt(T.seq("sum", U, "float"))])

test(A, "random_par_sum_threads_5", """
import random

fn main():
    let n = 100_000
    print(par sum(random.uniform(2026, i) for i in 0..n))
""", [fmt(T.par("sum", U, "float"))], env="BRINE_THREADS=5")

NPI = 400000
hits = sum(1 for k in range(NPI) if (lambda x, y: x * x + y * y < 1.0)(R.uniform(11, 2 * k), R.uniform(11, 2 * k + 1)))
test(A, "random_monte_carlo_pi", f"""
import random

fn hit(k: int) -> bool:
    let x = random.uniform(11, 2 * k)
    let y = random.uniform(11, 2 * k + 1)
    return x * x + y * y < 1.0

fn main():
    let n = {NPI}
    let inside = par sum(1 for k in 0..n if hit(k))
    print(inside)
    print(4.0 * float(inside) / float(n))
""", [str(hits), fmt(4.0 * float(hits) / float(NPI))])

# ------------------------------------------------------- modules (SPEC 2 import)
A = "modules"
# A helper module beside the test: geometry.br has no .out, so it is not a test.
os.makedirs(os.path.join(ROOT, A), exist_ok=True)
with open(os.path.join(ROOT, A, "geometry.br"), "w") as f:
    f.write("""# geometry: a module for modules/import_local.br (not a test: no .out).

let UNIT = 1.5

fn area(w: float, h: float) -> float:
    return w * h * UNIT

fn double_all(xs: [int]) -> [int]:
    return [x * 2 for x in xs]
""")
test(A, "import_local", """
import geometry

fn main():
    print(geometry.UNIT, geometry.area(2.0, 3.0))
    print(geometry.double_all([1, 2, 3]))
""", ["1.5 9.0", "[2, 4, 6]"])

test(A, "import_two_stdlib", """
import math
import random

fn main():
    let x = random.uniform(1, 0) * math.tau
    print(x >= 0.0 and x < math.tau)
""", ["true"])

# ------------------------------------------- textbook workloads (seeds/003_*.txt)
A = "workloads"
DOT_SRC = """
fn vector_x(n: int) -> [float]:
    return [float(i % 13) * 0.25 - 1.5 for i in 0..n]

fn vector_y(n: int) -> [float]:
    return [1.0 / float(i + 1) for i in 0..n]

fn main():
    let n = 200_000
    let x = vector_x(n)
    let y = vector_y(n)
    let dot = par sum(x[i] * y[i] for i in 0..n)
    let norm = sqrt(par sum(x[i] * x[i] for i in 0..n))
    let maxabs = par max(abs(x[i]) for i in 0..n)
    print(f"dot = {dot}")
    print(f"norm = {norm}")
    print(f"max |x| = {maxabs}")
    print(f"dot (left fold) = {sum(x[i] * y[i] for i in 0..n)}")
"""
nd = 200000
dx = [float(i % 13) * 0.25 - 1.5 for i in range(nd)]
dy = [1.0 / float(i + 1) for i in range(nd)]
test(A, "dot_norm_maxabs", DOT_SRC, [
    f"dot = {fmt(T.par('sum', [a * b for a, b in zip(dx, dy)], 'float'))}",
    f"norm = {fmt(math.sqrt(T.par('sum', [a * a for a in dx], 'float')))}",
    f"max |x| = {fmt(T.par('max', [abs(a) for a in dx], 'float'))}",
    f"dot (left fold) = {fmt(T.seq('sum', [a * b for a, b in zip(dx, dy)], 'float'))}"])

MATVEC_SRC = """
fn hilbert(n: int) -> [[float]]:
    return [[1.0 / float(i + j + 1) for j in 0..n] for i in 0..n]

fn main():
    let n = 300
    let a = hilbert(n)
    let x = [float(j % 3) - 1.0 for j in 0..n]
    let y = par [par sum(a[i][j] * x[j] for j in 0..n) for i in 0..n]
    print(len(y), y[0], y[n - 1])
    print(f"sum(y) = {sum(y):.15e}")
    print(f"|y| = {sqrt(par sum(v * v for v in y))}")
"""
nm = 300
ha = [[1.0 / float(i + j + 1) for j in range(nm)] for i in range(nm)]
hx = [float(j % 3) - 1.0 for j in range(nm)]
hy = [T.par("sum", [ha[i][j] * hx[j] for j in range(nm)], "float") for i in range(nm)]
test(A, "matvec", MATVEC_SRC, [
    f"{nm} {fmt(hy[0])} {fmt(hy[nm - 1])}",
    f"sum(y) = {T.seq('sum', hy, 'float'):.15e}",
    f"|y| = {fmt(math.sqrt(T.par('sum', [v * v for v in hy], 'float')))}"])

MATMUL_SRC = """
fn matmul(a: [[int]], b: [[int]]) -> [[int]]:
    let n = len(a)
    let m = len(b[0])
    return par [[sum(a[i][k] * b[k][j] for k in 0..len(b)) for j in 0..m] for i in 0..n]

fn matmul_f(a: [[float]], b: [[float]]) -> [[float]]:
    let n = len(a)
    return [[par sum(a[i][k] * b[k][j] for k in 0..n) for j in 0..n] for i in 0..n]

fn main():
    let a = [[1, 2, 3], [4, 5, 6]]
    let b = [[7, 8], [9, 10], [11, 12]]
    print(matmul(a, b))
    let n = 40
    let p = [[float(i * n + j) * 0.01 for j in 0..n] for i in 0..n]
    let q = [[1.0 / float(i + 2 * j + 1) for j in 0..n] for i in 0..n]
    let c = matmul_f(p, q)
    print(sum(c[i][i] for i in 0..n))
    print(c[0][0], c[n - 1][n - 1])
"""
n2 = 40
P = [[float(i * n2 + j) * 0.01 for j in range(n2)] for i in range(n2)]
Q = [[1.0 / float(i + 2 * j + 1) for j in range(n2)] for i in range(n2)]
C = [[T.par("sum", [P[i][k] * Q[k][j] for k in range(n2)], "float") for j in range(n2)] for i in range(n2)]
test(A, "matmul", MATMUL_SRC, [
    "[[58, 64], [139, 154]]",
    fmt(T.seq("sum", [C[i][i] for i in range(n2)], "float")),
    f"{fmt(C[0][0])} {fmt(C[n2 - 1][n2 - 1])}"])

SIMPSON_SRC = """
import math

# Composite Simpson's rule: h/3 (f(a) + 4 sum(odd) + 2 sum(even) + f(b)), n even.
fn simpson(a: float, b: float, n: int) -> float:
    let h = (b - a) / float(n)
    let s = par sum((4.0 if i % 2 == 1 else 2.0) * sin(a + float(i) * h) for i in 1..n)
    return h / 3.0 * (sin(a) + s + sin(b))

fn main():
    let i1 = simpson(0.0, math.pi, 100)
    let i2 = simpson(0.0, math.pi, 200)
    let runge = (i2 - i1) / 15.0
    print(f"I(n) = {i1:.12f}, I(2n) = {i2:.12f}")
    print(f"Runge: {runge:.2e}, true error {2.0 - i2:.2e}")
    print(f"Refined value: {i2 + runge:.12f}")
"""


def simpson_ref(a, b, n):
    h = (b - a) / float(n)
    s = T.par("sum", [(4.0 if i % 2 == 1 else 2.0) * math.sin(a + float(i) * h) for i in range(1, n)], "float")
    return h / 3.0 * (math.sin(a) + s + math.sin(b))


i1, i2 = simpson_ref(0.0, math.pi, 100), simpson_ref(0.0, math.pi, 200)
runge = (i2 - i1) / 15.0
SIMPSON_OUT = [f"I(n) = {i1:.12f}, I(2n) = {i2:.12f}",
               f"Runge: {runge:.2e}, true error {2.0 - i2:.2e}",
               f"Refined value: {i2 + runge:.12f}"]
# The chapter's numbers, in Brine's formatting (seeds/003_*.txt).
assert SIMPSON_OUT == ["I(n) = 2.000000010825, I(2n) = 2.000000000676",
                       "Runge: -6.77e-10, true error -6.76e-10",
                       "Refined value: 2.000000000000"], SIMPSON_OUT
test(A, "simpson_runge", SIMPSON_SRC.replace("\n# Composite Simpson's rule: h/3 (f(a) + 4 sum(odd) + 2 sum(even) + f(b)), n even.", ""), SIMPSON_OUT)

ADAPTIVE_SRC = """
import math

fn f(x: float) -> float:
    return 4.0 / (1.0 + x * x)

fn simpson(a: float, b: float, fa: float, fm: float, fb: float) -> float:
    return (b - a) / 6.0 * (fa + 4.0 * fm + fb)

# Returns [integral, segments]: halve [a, b] until Runge's estimate
# |S(a,m) + S(m,b) - S(a,b)| / 15 is below eps, then add the estimate.
fn adapt(a: float, b: float, fa: float, fm: float, fb: float, whole: float, eps: float) -> [float]:
    let m = (a + b) / 2.0
    let flm = f((a + m) / 2.0)
    let frm = f((m + b) / 2.0)
    let left = simpson(a, m, fa, flm, fm)
    let right = simpson(m, b, fm, frm, fb)
    let delta = left + right - whole
    if abs(delta) <= 15.0 * eps:
        return [left + right + delta / 15.0, 1.0]
    let l = adapt(a, m, fa, flm, fm, left, eps / 2.0)
    let r = adapt(m, b, fm, frm, fb, right, eps / 2.0)
    return [l[0] + r[0], l[1] + r[1]]

fn integrate(a: float, b: float, eps: float) -> [float]:
    let fa = f(a)
    let fm = f((a + b) / 2.0)
    let fb = f(b)
    return adapt(a, b, fa, fm, fb, simpson(a, b, fa, fm, fb), eps)

fn main():
    for eps in [1e-6, 1e-10, 1e-13]:
        let r = integrate(0.0, 1.0, eps)
        print(f"eps {eps:.0e}: {r[0]:.15f} error {r[0] - math.pi:+.2e} segments {int(r[1])}")
"""


def fpi(x):
    return 4.0 / (1.0 + x * x)


def simp(a, b, fa, fm, fb):
    return (b - a) / 6.0 * (fa + 4.0 * fm + fb)


def adapt(a, b, fa, fm, fb, whole, eps):
    m = (a + b) / 2.0
    flm = fpi((a + m) / 2.0)
    frm = fpi((m + b) / 2.0)
    left = simp(a, m, fa, flm, fm)
    right = simp(m, b, fm, frm, fb)
    delta = left + right - whole
    if abs(delta) <= 15.0 * eps:
        return [left + right + delta / 15.0, 1.0]
    l = adapt(a, m, fa, flm, fm, left, eps / 2.0)
    r = adapt(m, b, fm, frm, fb, right, eps / 2.0)
    return [l[0] + r[0], l[1] + r[1]]


def integrate(a, b, eps):
    fa, fm, fb = fpi(a), fpi((a + b) / 2.0), fpi(b)
    return adapt(a, b, fa, fm, fb, simp(a, b, fa, fm, fb), eps)


ADAPT_OUT = []
for eps in [1e-6, 1e-10, 1e-13]:
    r = integrate(0.0, 1.0, eps)
    ADAPT_OUT.append(f"eps {eps:.0e}: {r[0]:.15f} error {r[0] - math.pi:+.2e} segments {int(r[1])}")
test(A, "adaptive_simpson", ADAPTIVE_SRC, ADAPT_OUT)

MC_SRC = """
import math
import random

# One point of the cube [-1, 1]^3 per k: draws 3k, 3k+1, 3k+2 of the seed.
fn inside(seed: int, k: int) -> bool:
    let x = random.uniform(seed, 3 * k) * 2.0 - 1.0
    let y = random.uniform(seed, 3 * k + 1) * 2.0 - 1.0
    let z = random.uniform(seed, 3 * k + 2) * 2.0 - 1.0
    return x * x + y * y + z * z <= 1.0

fn main():
    let n = NPOINTS
    let hits = par sum(1 for k in 0..n if inside(2026, k))
    let share = float(hits) / float(n)
    let volume = 8.0 * share
    let sigma = 8.0 * sqrt(share * (1.0 - share) / float(n))
    print(f"V = {volume:.5f} ± {1.96 * sigma:.5f} (exact {4.0 * math.pi / 3.0:.5f})")
"""


def mc_out(n):
    h = 0
    for k in range(n):
        x = R.uniform(2026, 3 * k) * 2.0 - 1.0
        y = R.uniform(2026, 3 * k + 1) * 2.0 - 1.0
        z = R.uniform(2026, 3 * k + 2) * 2.0 - 1.0
        if x * x + y * y + z * z <= 1.0:
            h += 1
    share = float(h) / float(n)
    volume = 8.0 * share
    sigma = 8.0 * math.sqrt(share * (1.0 - share) / float(n))
    return [f"V = {volume:.5f} ± {1.96 * sigma:.5f} (exact {4.0 * math.pi / 3.0:.5f})"]


test(A, "montecarlo_ball", MC_SRC.replace("NPOINTS", "300_000").replace(
    "\n# One point of the cube [-1, 1]^3 per k: draws 3k, 3k+1, 3k+2 of the seed.", ""), mc_out(300000))

print(f"{len(WRITTEN)} tests written under tests/golden/generated/")
