#!/usr/bin/env python3
"""Differential fuzzing of brine with random well-typed Brine programs.

usage: fuzz_programs.py BRINE [-n COUNT] [--seed S] [-j N] [--keep DIR]
       fuzz_programs.py --show SEED        # print one generated program and its model output

Each program is generated from a seed (so any finding is reproducible with
--show) together with the output that the language (SPEC.md, docs/) says it
must print: the generator is also an interpreter, a Python model of Brine's
semantics (checked integer arithmetic on int/u64/i128, IEEE floats, Python-
repr float printing, format specs through Python's format(), the fixed par
reduction tree of SPEC 5.2 with its post-order panics). Programs mix ints
with near-overflow values, floats, strings, arrays, loops, functions,
f-strings with specs, sequential and par reductions with filters and
comprehensions; a statement whose model run panics is kept (as the last one)
only now and then, so most programs run to the end.

Every program is built with `brine build` (dev) and `brine build --release`
(every other program's with --cpu=native) and each build is run with
BRINE_THREADS=1, 2 and 7. A finding is:
- a build that does not succeed (exit 70 = internal error, a C compiler
  rejecting the generated C, or a compile error in a program the generator
  believes well-typed), a signal, a timeout;
- any difference in stdout, stderr or status among the four runs;
- a difference from the model (stdout; and for a panic the exit status 101
  and the "panic: MESSAGE" line; the place is not modelled).
Findings are written under --keep (default /tmp/brine-fuzz) as SEED.br with
the model's expectation, and summarised at the end.
"""
import argparse
import concurrent.futures as cf
import fractions
import math
import os
import random
import re
import shutil
import struct
import subprocess
import sys
import tempfile

import mpmath

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rand_ref  # noqa: E402  the model of stdlib/random.br

I64 = (-(1 << 63), (1 << 63) - 1)
U64 = (0, (1 << 64) - 1)
I128 = (-(1 << 127), (1 << 127) - 1)
RANGE = {"int": I64, "u64": U64, "i128": I128}
BITS = {"int": 64, "u64": 64, "i128": 128}
INTS = ("int", "u64", "i128")
SCALARS = ("int", "u64", "i128", "float", "bool", "str")


RANGE_TYPES = ["int", "int", "u64", "i128"]   # range(lo, hi, step) over every integer type (SPEC 13)
LIT_METHODS = [True]    # literals receiving methods in every context (SPEC 3)

# Hooks for forms the generator does not write itself yet (SPEC 15: reduce,
# scans, reductions by key): (probability, fn) pairs. An "expr" hook is
# fn(gen, type, depth) -> Expr or None, a "stmt" hook fn(gen, depth, in_loop,
# ret) -> (lines, exec) or None; each Expr carries its model (ev) as the
# generator's own do, so the runs are checked against it like the rest.
FORM_HOOKS = {"expr": [], "stmt": []}

# Put in every generated name (v{P}5, f{P}3, S{P}1): fuzz_campaign.py sets it
# to build several programs as one without a clash; "" changes nothing.
NAME_PREFIX = [""]
# Names a generated variable must not take: the types that are also
# conversion functions (a loop variable i128 hides i128(...) in its scope).
TYPE_NAMES = {"i128", "u64"}


class Panic(Exception):
    def __init__(self, msg, at=None):
        super().__init__(msg)
        self.at = at    # a place marker id (see mark()) when the model knows the panic's place


# an integer literal in an expression's text (not a digit inside a name)
INT_LITERAL = re.compile(r"(?<![\w.])\d")


class TooBig(Exception):
    """A statement whose model run takes too long: left out, like a runaway recursion."""


class Break(Exception):
    pass


class Continue(Exception):
    pass


class Return(Exception):
    def __init__(self, v):
        self.v = v


def is_arr(t):
    return t.startswith("[")


def elem(t):
    return t[1:-1]


# ---- the types of SPEC 13 ------------------------------------------------------
# A type is its Brine spelling: "(int, float)", "Option[str]", "fn(float) -> float",
# a struct's name. STRUCTS holds the program's struct declarations.

STRUCTS = {}   # name -> [(field, type)]


def split_top(s):
    out, depth, cur = [], 0, ""
    for ch in s:
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        out.append(cur.strip())
    return out


def tparse(t):
    if t.startswith("["):
        return ("arr", t[1:-1])
    if t.startswith("("):
        return ("tup", split_top(t[1:-1]))
    if t.startswith("Option["):
        return ("opt", t[7:-1])
    if t.startswith("fn("):
        depth = 0
        for i, ch in enumerate(t):
            depth += ch in "(["
            depth -= ch in ")]"
            if depth == 0 and ch == ")":
                break
        return ("fn", split_top(t[3:i]), t[i + 5:])
    if t in STRUCTS:
        return ("struct", t)
    return ("scalar", t)


def fields_of(t):
    """[(field name, type)] of a tuple or struct type."""
    k = tparse(t)
    if k[0] == "tup":
        return [(str(i), ft) for i, ft in enumerate(k[1])]
    return STRUCTS[t]


def has_fn(t):
    k = tparse(t)
    if k[0] == "fn":
        return True
    if k[0] in ("arr", "opt"):
        return has_fn(k[1])
    if k[0] in ("tup", "struct"):
        return any(has_fn(ft) for _, ft in fields_of(t))
    return False


def ordered(t):
    """Has < (SPEC 13): numbers, str, tuples and structs of those."""
    k = tparse(t)
    if k[0] == "scalar":
        return t in ("int", "u64", "i128", "float", "str")
    if k[0] in ("tup", "struct"):
        return all(ordered(ft) for _, ft in fields_of(t))
    return False


class SVal:
    """A struct value: its fields in declaration order (changed in place by field stores)."""
    __slots__ = ("name", "f")

    def __init__(self, name, f):
        self.name, self.f = name, f


class Opt:
    """Some(v); None is Python's None."""
    __slots__ = ("v",)

    def __init__(self, v):
        self.v = v


def field_get(t, v, i):
    return v[i] if tparse(t)[0] == "tup" else v.f[i]


def eq_val(t, a, b):
    k = tparse(t)
    if k[0] == "arr":
        return len(a) == len(b) and all(eq_val(k[1], x, y) for x, y in zip(a, b))
    if k[0] == "opt":
        if a is None or b is None:
            return a is None and b is None
        return eq_val(k[1], a.v, b.v)
    if k[0] in ("tup", "struct"):
        return all(eq_val(ft, field_get(t, a, i), field_get(t, b, i)) for i, (_, ft) in enumerate(fields_of(t)))
    return a == b


def lt_val(t, a, b):
    """<: lexicographic, the first field that is not == decides (as Python's tuples)."""
    k = tparse(t)
    if k[0] in ("tup", "struct"):
        for i, (_, ft) in enumerate(fields_of(t)):
            x, y = field_get(t, a, i), field_get(t, b, i)
            if not eq_val(ft, x, y):
                return lt_val(ft, x, y)
        return False
    return a < b


def sort_key(t, v):
    """sort's order: each field as an array of its type sorts (-0.0 before 0.0, NaNs last and tied)."""
    k = tparse(t)
    if k[0] in ("tup", "struct"):
        return tuple(sort_key(ft, field_get(t, v, i)) for i, (_, ft) in enumerate(fields_of(t)))
    if t == "float":
        if math.isnan(v):
            return (1, 0.0, 0)
        return (0, v, 0 if math.copysign(1.0, v) < 0 else 1)
    return v


# ---- the value model ---------------------------------------------------------

def chk(t, v, what):
    lo, hi = RANGE[t]
    if not lo <= v <= hi:
        raise Panic("integer overflow in " + what)
    return v


def wrap(t, v):
    bits = BITS[t]
    v &= (1 << bits) - 1
    if t != "u64" and v >> (bits - 1):
        v -= 1 << bits
    return v


def tdiv(a, b):
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def fmt_float(x):
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return repr(x)


DEBUG_ESC = {'"': '\\"', "\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\0": "\\0"}


def charge(n):
    """Counts n units of the model's work; too much makes the statement TooBig
    (a string that doubles in a loop, then shown, would take the model hours)."""
    Env.steps += n
    if Env.steps > 300_000:
        raise TooBig()


def debug_str(s):
    """A string as Rust's Debug quotes it (SPEC 6.2: strings inside arrays)."""
    charge(len(s) >> 3)
    out = ['"']
    for ch in s:
        if ch in DEBUG_ESC:
            out.append(DEBUG_ESC[ch])
        elif ord(ch) < 0x20 or ord(ch) == 0x7f:
            out.append("\\u{%x}" % ord(ch))
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def show(t, v, inner=False):
    if isinstance(v, (str, list)):
        charge(len(v) >> 3)
    if t == "float":
        return fmt_float(v)
    if t == "bool":
        return "true" if v else "false"
    if t == "str":
        return debug_str(v) if inner else v
    if is_arr(t):
        return "[" + ", ".join(show(elem(t), x, True) for x in v) + "]"
    k = tparse(t)
    if k[0] == "tup":
        return "(" + ", ".join(show(ft, x, True) for ft, x in zip(k[1], v)) + ")"
    if k[0] == "struct":
        return t + "(" + ", ".join(f"{fn}={show(ft, x, True)}" for (fn, ft), x in zip(STRUCTS[t], v.f)) + ")"
    if k[0] == "opt":
        return "None" if v is None else "Some(" + show(k[1], v.v, True) + ")"
    return str(v)


def f_add(a, b):
    return a + b


def f_div(a, b):
    if b == 0.0:
        if a == 0.0 or math.isnan(a):
            return math.nan
        sign = math.copysign(1.0, a) * math.copysign(1.0, b)
        return math.inf if sign > 0 else -math.inf
    return a / b


def f_mod(a, b):
    if b == 0.0 or math.isinf(a) or math.isnan(a) or math.isnan(b):
        return math.nan
    return math.fmod(a, b)


def f_mul(a, b):
    try:
        return a * b
    except OverflowError:
        return math.inf


def c_round(x):
    if math.isnan(x) or math.isinf(x):
        return x
    t = float(math.trunc(x))
    if abs(x - t) >= 0.5:
        t += math.copysign(1.0, x)
    return math.copysign(t, x)


def c_floor(x):
    if math.isnan(x) or math.isinf(x):
        return x
    return math.copysign(float(math.floor(x)), x)


def c_ceil(x):
    if math.isnan(x) or math.isinf(x):
        return x
    return math.copysign(float(math.ceil(x)), x)


def c_trunc(x):
    if math.isnan(x) or math.isinf(x):
        return x
    return math.copysign(float(math.trunc(x)), x)


def c_sqrt(x):
    if math.isnan(x) or x < 0:
        return math.nan
    return math.sqrt(x)


def c_log(x):
    if math.isnan(x) or x < 0:
        return math.nan
    if x == 0:
        return -math.inf
    return math.log(x)


def c_exp(x):
    try:
        return math.exp(x)
    except OverflowError:
        return math.inf


def c_sin(x):
    return math.nan if math.isinf(x) or math.isnan(x) else math.sin(x)


def c_cos(x):
    return math.nan if math.isinf(x) or math.isnan(x) else math.cos(x)


FLOAT_FN = {"sqrt": c_sqrt, "floor": c_floor, "ceil": c_ceil, "round": c_round,
            "trunc": c_trunc, "exp": c_exp, "log": c_log, "sin": c_sin, "cos": c_cos}


def float_to_int(t, x):
    if math.isnan(x) or math.isinf(x):
        raise Panic(f"cannot convert {fmt_float(x)} to {t}")
    v = math.trunc(x)
    lo, hi = RANGE[t]
    if not lo <= v <= hi:
        raise Panic(f"cannot convert {fmt_float(x)} to {t}")
    return v


def parse_int_text(s):
    """int(s): the text it accepts, else its panic."""
    ok = s and not s.startswith(("_",)) and not s.endswith("_") and "__" not in s
    body = s[1:] if s[:1] in "+-" else s
    if not ok or not body or not all(ch.isdigit() and ch.isascii() or ch == "_" for ch in body) or body.startswith("_"):
        raise Panic(f"cannot convert {debug_str(s)} to int")
    v = int(s.replace("_", ""))
    if not I64[0] <= v <= I64[1]:
        raise Panic(f"cannot convert {debug_str(s)} to int")
    return v


def parse_float_text(s):
    """float(s): the text it accepts, else its panic."""
    if re.fullmatch(r"[+-]?(inf|infinity|nan)", s, re.I):
        return float(s)
    if not re.fullmatch(r"[+-]?(\d(_?\d)*(\.(\d(_?\d)*)?)?|\.\d(_?\d)*)([eE][+-]?\d(_?\d)*)?", s):
        raise Panic(f"cannot convert {debug_str(s)} to float")
    return float(s.replace("_", ""))


def fn_type(params, ret):
    return "fn(" + ", ".join(t for _, t in params) + ") -> " + ret


def int_to_float(v):
    return float(v)  # Python rounds to nearest, ties to even


def combine(red, t, a, b):
    """Combine of SPEC 5.2 (also one step of the sequential fold)."""
    if red == "sum":
        return chk(t, a + b, "addition") if t in INTS else a + b
    if red == "product":
        return chk(t, a * b, "multiplication") if t in INTS else f_mul(a, b)
    if red == "min":
        return b if lt_val(t, b, a) else a
    return b if lt_val(t, a, b) else a


START = {"sum": {"int": 0, "u64": 0, "i128": 0, "float": 0.0},
         "product": {"int": 1, "u64": 1, "i128": 1, "float": 1.0}}


# ---- program text ---------------------------------------------------------------
# An expression is an Expr: its text, its precedence level (SPEC 2's table:
# 1 loosest .. 14 atoms), whether it is made of literals only (its integer type
# then comes from the context, docs/language.md), and a function of the
# environment that computes its value or raises Panic.

class Expr:
    __slots__ = ("text", "lvl", "lit", "ev", "t", "weak", "untyped")

    def __init__(self, text, lvl, ev, t, lit=False, weak=None, untyped=False):
        self.text, self.lvl, self.ev, self.t, self.lit = text, lvl, ev, t, lit
        # untyped: its type comes only from the context (None, a lambda, SPEC 13)
        self.untyped = untyped
        # weak: some integer literal in it takes its type from the context
        # (docs/language.md lists the places: conversions, abs, reductions...)
        self.weak = lit if weak is None else weak


def par(e, lvl):
    return e.text if e.lvl >= lvl else "(" + e.text + ")"


class Env:
    """Names in scope: name -> [type, mutable, value]; chained scopes."""

    steps = 0   # scopes made by the model in the statement being tried

    def __init__(self, parent=None):
        self.vars = {}
        self.parent = parent
        Env.steps += 1
        if Env.steps > 300_000:
            raise TooBig()

    def look(self, name):
        e = self
        while e is not None:
            if name in e.vars:
                return e.vars[name]
            e = e.parent
        raise KeyError(name)


def copyv(v):
    if isinstance(v, list):
        # copies count as work too: `xs += xs` in a loop doubles the array
        Env.steps += len(v) >> 3
        if Env.steps > 300_000:
            raise TooBig()
        return [copyv(x) for x in v]
    if isinstance(v, tuple):
        return tuple(copyv(x) for x in v)
    if isinstance(v, SVal):
        return SVal(v.name, [copyv(x) for x in v.f])
    if isinstance(v, Opt):
        return Opt(copyv(v.v))
    return v


class Gen:
    def __init__(self, seed):
        self.r = random.Random(seed)
        # whether to write a form added later (row stores, row nests): its own
        # stream, so a seed's program changes only where one is written
        self.later = random.Random(seed ^ 0x5EED)
        self.sums = random.Random(seed ^ 0xACC)   # whether to write a sum nest (sum_nest)
        self.borders = random.Random(seed ^ 0xB0D)  # whether to write a border nest (border_nest)
        self.covers = random.Random(seed ^ 0xC0E)   # a border nest's fresh grid stored by two loops (border_nest)
        self.steps = random.Random(seed ^ 0x57E)  # whether to write a step nest (step_nest)
        self.stepsums = random.Random(seed ^ 0x5E95)  # whether to write a sum over a stepped range (step_sum)
        self.pools = random.Random(seed ^ 0x9001)   # whether to write rows on the pool (row_par)
        self.folds = random.Random(seed ^ 0xF01D)   # whether to write a fold loop (fold_par)
        self.fills = random.Random(seed ^ 0xF111)   # whether to write a fill loop (fill_loop)
        self.fuses = random.Random(seed ^ 0xF05E)   # whether to write a comprehension a loop reads (fuse_loop)
        self.combs = random.Random(seed ^ 0xC0B5)   # whether to write helpers returning comprehensions (comp_helpers)
        self.maps = random.Random(seed ^ 0x3A95)    # whether to write a map of an array's own slots (map_self)
        self.calls = random.Random(seed ^ 0xCA11)   # whether to write helper calls (pool_call)
        self.zips = random.Random(seed ^ 0x21B5)    # whether to write comprehensions over rows (row_zip)
        self.eaches = random.Random(seed ^ 0xEAC4)  # whether a loop helper walks its array by element (pool_helper)
        self.grows = random.Random(seed ^ 0x6A0E)   # a fill loop's push onto a non-empty array, its bound a sum (fill_loop)
        self.lits = random.Random(seed ^ 0x117E)    # whether to write a loop over a literal's length (literal_len_loop)
        self.cols = random.Random(seed ^ 0xC015)    # whether to write a walk down columns (column_walk)
        self.downs = random.Random(seed ^ 0xD0A1)   # whether to write a while loop counting down (down_loop)
        self.flows = random.Random(seed ^ 0xF10E)   # whether to write a work list or recursion of tuples (tuple_flow)
        self.adjs = random.Random(seed ^ 0xAD15)    # whether to write adjacent loops over one range (adjacent_loops)
        self.recs = random.Random(seed ^ 0x2EC5)    # whether to write a recurrence through an array (recurrence)
        self.records = random.Random(seed ^ 0x2EC0)  # whether to write a running least or greatest value (record)
        self.scratches = random.Random(seed ^ 0x5C2A)  # whether to write a scratch array read back in the same iteration (scratch)
        self.splits = random.Random(seed ^ 0x5B17)  # whether to write one loop pushing into several arrays (split_push)
        self.scans = random.Random(seed ^ 0x5CA7)  # whether to write a scan a statement evaluates first (scan_stmt)
        self.minmaxes = random.Random(seed ^ 0x3A8E)  # whether to write a min or max of up to 30 numbers (minmax_fold)
        self.pushrecs = random.Random(seed ^ 0x9B5E)  # whether to write a push loop reading what it pushed (push_recurrence)
        self.tables = random.Random(seed ^ 0xD7AB)  # whether to write a dynamic programming table (dp_table)
        self.parmms = random.Random(seed ^ 0x9A3B)  # whether to write a par min or max of many tuples (par_minmax_tuples)
        self.top = []        # module constants and helper functions forms wrote (before main)
        self.n = 0
        self.funcs = {}      # name -> (params [(name, type)], ret, body)
        self.scope = []      # generation-time view: list of dicts name -> (type, mutable)
        self.fuel = 0
        self.imports = set()
        self.consts = {}     # top-level constants: name -> (type, False)
        self.nested_clauses = 0  # generators with several clauses being built (their elements stay small)
        self.strict = 0      # > 0: no None and no lambda (a place that gives no type)
        self.marks = 0       # place markers handed out (mark())
        self.none_lets = set()  # lets bound to None: their unwrap is a compile error
        self.newtypes = []   # this program's tuple, struct, Option and fn types
        self.pure = 0        # > 0: generating code that must not print (par elements, lambdas, fn-typed functions)
        self.impure = set()  # functions that print, directly or through a call
        self.used = set()    # the form families drawn (FAMILIES), for the counts
        self.ignoring = set()  # functions that ignore a parameter
        self.lit_ret = {}      # functions returning an array literal from their one return: name -> length
        self.in_par = 0      # > 0: generating a par reduction's element

    def use(self, family):
        self.used.add(family)
        if self.in_par and family in ("fnval", "ignored-param"):
            self.used.add(family + "-in-par")

    def big_ok(self):
        """Large generators only now and then, and never nested in another."""
        return self.r.random() < 0.5 and not self.nested_clauses and not any(
            v[0] == "int" and k.startswith("i") for s in self.scope for k, v in s.items())

    # -- names --
    def fresh(self, p="v"):
        self.n += 1
        name = f"{p}{NAME_PREFIX[0]}{self.n}"
        if name in TYPE_NAMES:  # i128 as a variable would hide the conversion i128(...)
            return self.fresh(p)
        return name

    def visible(self, pred):
        seen = {}
        for s in self.scope:
            for k, v in s.items():
                seen[k] = v
        return [(k, v) for k, v in seen.items() if pred(v)]

    # -- literals --
    def int_value(self, t):
        r = self.r
        lo, hi = RANGE[t]
        c = r.random()
        if c < 0.45:
            return r.randint(max(lo, -20), 40)
        if c < 0.6:
            return r.choice([lo, hi, lo + 1, hi - 1, hi // 2, lo // 2, (hi >> 16), 0, 1, -1 if lo < 0 else 2])
        if c < 0.8:
            return r.randint(max(lo, -3_000_000_000), 3_000_000_000)
        if c < 0.9:
            b = r.randint(1, BITS[t] - 1)
            v = r.choice([1 << b, (1 << b) - 1, -(1 << b)])
            return min(max(v, lo), hi)
        return r.randint(lo, hi)

    def int_lit(self, t, v=None):
        if v is None:
            v = self.int_value(t)
        r = self.r
        a = abs(v)
        c = r.random()
        if c < 0.1 and a > 0:
            body = hex(a)
        elif c < 0.13 and a > 0:
            body = bin(a)
        elif c < 0.25 and a >= 1000:
            body = f"{a:_}"
        else:
            body = str(a)
        text = ("-" if v < 0 else "") + body
        return Expr(text, 14 if v >= 0 else 12, lambda env, v=v: v, t, lit=True)

    def float_value(self):
        r = self.r
        c = r.random()
        if c < 0.3:
            return r.choice([0.0, -0.0, 0.5, 1.0, 2.0, 0.1, 1e-3, 3.0, 1e16, 1e300, 5e-324, 1.7976931348623157e308, 2.5, 0.25, 10.0])
        if c < 0.6:
            return round(r.uniform(-100, 100), r.randint(0, 4))
        if c < 0.85:
            return r.uniform(-1e6, 1e6)
        return struct.unpack("<d", struct.pack("<Q", r.getrandbits(64)))[0] if r.random() < 0.5 else r.uniform(-2, 2) * 10.0 ** r.randint(-30, 30)

    def float_lit(self, v=None):
        if v is None:
            v = self.float_value()
            if math.isnan(v) or math.isinf(v):
                v = 1.5
        text = repr(v)
        if self.r.random() < 0.1 and "e" not in text and abs(v) >= 1000:
            ip, fp = text.lstrip("-").split(".")
            text = ("-" if v < 0 else "") + f"{int(ip):_}" + "." + fp
        return Expr(text, 14 if not text.startswith("-") else 12, lambda env, v=v: v, "float", lit=True)

    STR_CHARS = ["a", "b", "z", " ", "Q", "é", "\n", "\t", '"', "\\", "{", "}", "😀", "_", "0"]

    def str_value(self):
        return "".join(self.r.choice(self.STR_CHARS) for _ in range(self.r.randint(0, 5)))

    def str_lit(self, v=None):
        if v is None:
            v = self.str_value()
        text = '"' + "".join({"\n": "\\n", "\t": "\\t", '"': '\\"', "\\": "\\\\",
                               "{": "\\{" if self.r.random() < 0.5 else "{",
                               "}": "\\}" if self.r.random() < 0.5 else "}",
                               "😀": "\\u{1F600}" if self.r.random() < 0.5 else "😀"}.get(ch, ch)
                              for ch in v) + '"'
        return Expr(text, 14, lambda env, v=v: v, "str", lit=False)

    # -- typing helpers --
    def typed(self, e, t):
        """A literal-only integer expression of a type other than int, in a
        place that gives it no type: convert it explicitly. An expression whose
        type only a context gives (None, a lambda) is replaced by another."""
        if e.untyped:
            self.strict += 1
            e = self.leaf(t)
            self.strict -= 1
            return e
        if e.lit and t in ("u64", "i128"):
            ev = e.ev
            return Expr(f"{t}({e.text})", 13, ev, t)
        return e

    # -- expressions --
    def expr(self, t, d):
        self.fuel -= 1
        if d <= 0 or self.fuel < 0:
            return self.leaf(t)
        for p, hook in FORM_HOOKS["expr"]:
            if self.r.random() < p:
                e = hook(self, t, d)
                if e is not None:
                    return e
        if t in INTS:
            return self.int_expr(t, d)
        if t == "float":
            return self.float_expr(d)
        if t == "bool":
            return self.bool_expr(d)
        if t == "str":
            return self.str_expr(d)
        k = tparse(t)[0]
        if k != "arr" and self.r.random() < 0.3:
            x = self.extra(t, d)
            if x is not None:
                return x
        if k == "tup":
            return self.tuple_expr(t, d)
        if k == "struct":
            return self.struct_expr(t, d)
        if k == "opt":
            return self.opt_expr(t, d)
        if k == "fn":
            return self.fn_expr(t, d)
        return self.arr_expr(t, d)

    def var_of(self, t):
        vs = self.visible(lambda v: v[0] == t)
        if not vs:
            return None
        name, _ = self.r.choice(vs)
        return Expr(name, 14, lambda env, n=name: env.look(n)[2], t)

    def leaf(self, t):
        if self.r.random() < 0.6:
            v = self.var_of(t)
            if v is not None:
                return v
        if t in INTS:
            return self.int_lit(t)
        if t == "float":
            return self.float_lit()
        if t == "bool":
            v = self.r.random() < 0.5
            return Expr("true" if v else "false", 14, lambda env, v=v: v, "bool")
        if t == "str":
            return self.str_lit()
        if tparse(t)[0] != "arr":
            return self.agg_leaf(t)
        et = elem(t)
        items = [self.leaf(et) for _ in range(self.r.randint(1, 3))]
        return self.arr_lit(t, items)

    def arr_lit(self, t, items):
        et = elem(t)
        if items and all(i.lit for i in items) and et in ("u64", "i128"):
            items[0] = self.typed(items[0], et)
        if items and all(i.untyped for i in items):
            items[0] = self.typed(items[0], et)
        evs = [i.ev for i in items]
        return Expr("[" + ", ".join(i.text for i in items) + "]", 14,
                    lambda env: [copyv(f(env)) for f in evs], t)

    def binop(self, op, lvl, a, b, t, fn):
        sp = " " if self.r.random() < 0.9 else ""
        if a.lit and b.lit and t in INTS:
            # a literal expression is folded at compile time, and its
            # overflow or division by zero is a compile error (SPEC 3): one
            # that would panic gets a conversion, which makes it an operation
            try:
                v = fn(a.ev(None), b.ev(None))
                if not RANGE[t][0] <= v <= RANGE[t][1]:
                    raise Panic("range")
            except Panic:
                a = Expr(f"{t}({a.text})", 13, a.ev, t)
        ea, eb = a.ev, b.ev
        text = f"{par(a, lvl)}{sp}{op}{sp}{par(b, lvl + 1)}"
        if not sp and op == "-" and b.text.startswith("-"):
            text = f"{par(a, lvl)} {op} {par(b, lvl + 1)}"
        return Expr(text, lvl, lambda env: fn(ea(env), eb(env)), t, lit=a.lit and b.lit, weak=a.weak and b.weak)

    def two(self, t, d):
        a = self.expr(t, d - 1)
        b = self.expr(t, d - 1)
        if a.lit and b.lit or a.untyped and b.untyped:
            a = self.typed(a, t)
        return a, b

    def int_expr(self, t, d):
        r = self.r
        if LIT_METHODS[0] and r.random() < 0.06:
            e = self.lit_method(t, d)
            if e is not None:
                return e
        c = r.randrange(25)
        if c < 6:
            op = r.choice(["+", "-", "*", "/", "%", "&", "|", "^"])
            a, b = self.two(t, d)
            lvl = {"+": 10, "-": 10, "*": 11, "/": 11, "%": 11, "&": 8, "|": 6, "^": 7}[op]

            def fn(x, y, op=op):
                if op == "+":
                    return chk(t, x + y, "addition")
                if op == "-":
                    return chk(t, x - y, "subtraction")
                if op == "*":
                    return chk(t, x * y, "multiplication")
                if op in "/%":
                    if y == 0:
                        raise Panic("division by zero")
                    q = tdiv(x, y)
                    if op == "/":
                        return chk(t, q, "division")
                    return x - y * q
                if op == "&":
                    return x & y
                if op == "|":
                    return x | y
                return x ^ y
            return self.binop(op, lvl, a, b, t, fn)
        if c == 6:
            op = r.choice(["<<", ">>"])
            a = self.typed(self.expr(t, d - 1), t)
            at = r.choice(["int", "int", t])
            if r.random() < 0.7:
                b = self.int_lit(at, r.randint(0 if at == "u64" else -1, BITS[t]) if r.random() < 0.3 else r.randint(0, BITS[t] - 1))
                b = self.typed(b, at)
            else:
                b = self.typed(self.expr(at, d - 1), at)

            def fn(x, y, op=op):
                if not 0 <= y < BITS[t]:
                    raise Panic("shift amount out of range")
                if op == "<<":
                    return wrap(t, x << y)
                if t == "u64":
                    return x >> y
                return x >> y
            e = self.binop(op, 9, a, b, t, fn)
            e.lit = False
            # a shift has its left operand's type, so a literal there takes the
            # context's type whatever the amount is (the checker's is_flexible)
            e.weak = a.weak
            return e
        if c == 7:
            a = self.expr(t, d - 1)
            if a.lit:
                a = self.typed(a, t)
            if a.lit and a.ev(None) == RANGE[t][0]:   # -(min) of literals: a compile error
                a = Expr(f"{t}({a.text})", 13, a.ev, t)
            ea = a.ev
            if r.random() < 0.5:
                text = "-" + (" " if par(a, 12).startswith("-") else "") + par(a, 12)
                return Expr(text, 12, lambda env: chk(t, -ea(env), "negation"), t, lit=a.lit, weak=a.weak)
            return Expr("~" + par(a, 12), 12, lambda env: wrap(t, ~ea(env)), t, lit=a.lit, weak=a.weak)
        if c == 8:
            a = self.typed(self.expr(t, d - 1), t)
            ea = a.ev
            return Expr(f"abs({a.text})", 13, lambda env: chk(t, abs(ea(env)), "negation"), t, weak=a.weak)
        if c == 9:
            f = r.choice(["min", "max"])
            a, b = self.two(t, d)
            ea, eb = a.ev, b.ev
            w = a.weak and b.weak
            if f == "min":
                return Expr(f"min({a.text}, {b.text})", 13, lambda env: (lambda x, y: y if y < x else x)(ea(env), eb(env)), t, weak=w)
            return Expr(f"max({a.text}, {b.text})", 13, lambda env: (lambda x, y: y if y > x else x)(ea(env), eb(env)), t, weak=w)
        if c == 10:
            m = r.choice(["wrapping_add", "wrapping_sub", "wrapping_mul", "wrapping_neg",
                          "rotate_left", "rotate_right", "count_ones", "leading_zeros", "trailing_zeros"])
            rt = "int" if m in ("count_ones", "leading_zeros", "trailing_zeros") else t
            if rt != t:
                # the receiver has some integer type, the result is int
                st = r.choice(INTS)
                if t != "int":
                    return self.int_expr(t, d)
            else:
                st = t
            a = self.typed(self.expr(st, d - 1), st)
            if a.lit or a.lvl < 13:
                recv = "(" + a.text + ")"
            else:
                recv = a.text
            ea = a.ev
            bits = BITS[st]
            if m in ("wrapping_add", "wrapping_sub", "wrapping_mul"):
                b = self.expr(st, d - 1)
                eb = b.ev
                f = {"wrapping_add": lambda x, y: x + y, "wrapping_sub": lambda x, y: x - y,
                     "wrapping_mul": lambda x, y: x * y}[m]
                # a literal receiving a method is still one (SPEC 3): its type is the context's
                return Expr(f"{recv}.{m}({b.text})", 13, lambda env: wrap(st, f(ea(env), eb(env))), t,
                            lit=a.lit and b.lit, weak=a.weak)
            if m == "wrapping_neg":
                return Expr(f"{recv}.{m}()", 13, lambda env: wrap(st, -ea(env)), t, lit=a.lit, weak=a.weak)
            if m in ("rotate_left", "rotate_right"):
                b = self.expr("int", d - 1)
                eb = b.ev

                def rot(x, k, m=m):
                    k %= bits
                    u = x & ((1 << bits) - 1)
                    if m == "rotate_right":
                        k = (bits - k) % bits
                    u = ((u << k) | (u >> (bits - k))) & ((1 << bits) - 1)
                    return wrap(st, u)
                return Expr(f"{recv}.{m}({b.text})", 13, lambda env: rot(ea(env), eb(env)), t,
                            lit=a.lit and b.lit, weak=a.weak)

            def cnt(x, m=m):
                u = x & ((1 << bits) - 1)
                if m == "count_ones":
                    return bin(u).count("1")
                if m == "leading_zeros":
                    return bits - u.bit_length()
                if u == 0:
                    return bits
                return (u & -u).bit_length() - 1
            return Expr(f"{recv}.{m}()", 13, lambda env: cnt(ea(env)), "int")
        if c == 11:
            # conversions into t
            src = r.choice([x for x in INTS if x != t] + ["float"] + (["str"] if t == "int" else []))
            if src == "float":
                a = self.expr("float", d - 1)
                ea = a.ev
                return Expr(f"{t}({a.text})", 13, lambda env: float_to_int(t, ea(env)), t)
            if src == "str":
                v = self.int_value("int")
                sv = r.choice([str(v), f"{v:_}", str(v) + "x", " " + str(v), "", "+" + str(abs(v)), str(v) + "0000000000000000000"])
                a = self.str_lit(sv) if r.random() < 0.7 else self.expr("str", d - 1)
                ea = a.ev

                return Expr(f"int({a.text})", 13, lambda env: parse_int_text(ea(env)), t)
            a = self.expr(src, d - 1)
            if a.weak or INT_LITERAL.search(a.text):
                # t(...) passes t on to the literals in it, through operators
                # and abs/min/max (SPEC 3), wherever they are: make it src first
                a = Expr(f"{src}({a.text})", 13, a.ev, src)
            ea = a.ev
            return Expr(f"{t}({a.text})", 13, lambda env: chk(t, ea(env), "conversion"), t)
        if c == 12 and t == "int":
            vs = self.visible(lambda v: is_arr(v[0]) or v[0] == "str")
            if vs:
                name, (vt, _) = r.choice(vs)
                if vt == "str":
                    return Expr(f"len({name})", 13, lambda env, n=name: len(env.look(n)[2].encode()), "int")
                return Expr(f"len({name})", 13, lambda env, n=name: len(env.look(n)[2]), "int")
        if c in (13, 14, 15):
            return self.reduction(t, d)
        if c == 16:
            return self.cond(t, d)
        if c == 17:
            return self.index(t, d)
        if c == 18:
            return self.call(t, d)
        if c == 19 and t == "int":
            return self.reduction(t, d)
        if c == 20 and t == "int":
            a = self.expr("int", d - 1)
            b = self.expr("int", d - 1)
            n = self.expr("int", d - 1) if r.random() < 0.3 else self.int_lit("int", r.randint(1, 1000))
            ea, eb, en = a.ev, b.ev, n.ev
            self.imports.add("random")

            def below(env):
                x, y, k = ea(env), eb(env), en(env)
                if k <= 0:
                    raise Panic(f"random.below: n must be positive, got {k}")
                return rand_ref.below(x, y, k)
            return Expr(f"random.below({a.text}, {b.text}, {n.text})", 13, below, "int")
        return self.leaf(t)

    def cond(self, t, d):
        a, b = self.two(t, d)
        c = self.expr("bool", d - 1)
        ea, eb, ec = a.ev, b.ev, c.ev
        return Expr(f"{par(a, 2)} if {par(c, 2)} else {par(b, 2)}", 1,
                    lambda env: ea(env) if ec(env) else eb(env), t, weak=a.weak and b.weak)

    def index(self, t, d):
        at = "[" + t + "]"
        vs = self.visible(lambda v: v[0] == at)
        if vs and self.r.random() < 0.8:
            name = self.r.choice(vs)[0]
            a = Expr(name, 14, lambda env, n=name: env.look(n)[2], at)
        else:
            a = self.arr_expr(at, d - 1)
        if self.r.random() < 0.8:
            i = self.int_lit("int", self.r.choice([0, 0, 1, 1, 2, 3, -1, 5]))
        else:
            i = self.expr("int", d - 1)
        ea, ei = a.ev, i.ev

        def ix(env):
            xs = ea(env)
            k = ei(env)
            if not 0 <= k < len(xs):
                raise Panic(f"index out of bounds: the len is {len(xs)} but the index is {k}")
            return copyv(xs[k])
        return Expr(f"{par(a, 13)}[{i.text}]", 13, ix, t)

    def call_ignoring(self, t, d):
        """A call of a function that ignores some parameter, or None."""
        fs = [n for n in self.ignoring if self.funcs[n][1] == t and not (self.pure and n in self.impure)]
        if not fs:
            return None
        name = self.r.choice(sorted(fs))
        params = self.funcs[name][0]
        self.use("ignored-param")
        args = [self.typed(self.leaf(pt), pt) if self.r.random() < 0.7 else self.expr(pt, d - 1) for _, pt in params]
        evs = [a.ev for a in args]
        funcs = self.funcs

        def call(env):
            return run_func(funcs, name, [copyv(f(env)) for f in evs])
        return Expr(f"{name}(" + ", ".join(a.text for a in args) + ")", 13, call, t)

    def call(self, t, d):
        fs = [(n, f) for n, f in self.funcs.items() if f[1] == t and not (self.pure and n in self.impure)]
        if not fs:
            return self.leaf(t)
        name, (params, ret, body) = self.r.choice(fs)
        if name in self.ignoring:
            self.use("ignored-param")
        args = [self.expr(pt, d - 1) for _, pt in params]
        evs = [a.ev for a in args]
        funcs = self.funcs

        def call(env):
            vals = [copyv(f(env)) for f in evs]
            return run_func(funcs, name, vals)
        return Expr(f"{name}(" + ", ".join(a.text for a in args) + ")", 13, call, t)

    def float_expr(self, d):
        r = self.r
        c = r.randrange(18)
        if c < 6:
            op = r.choice(["+", "-", "*", "/", "%"])
            a = self.expr("float", d - 1)
            b = self.expr("float", d - 1)
            fn = {"+": lambda x, y: x + y, "-": lambda x, y: x - y, "*": f_mul, "/": f_div, "%": f_mod}[op]
            return self.binop(op, 10 if op in "+-" else 11, a, b, "float", fn)
        if c == 6:
            a = self.expr("float", d - 1)
            ea = a.ev
            text = "-" + (" " if par(a, 12).startswith("-") else "") + par(a, 12)
            return Expr(text, 12, lambda env: -ea(env), "float")
        if c == 7:
            src = r.choice(INTS)
            a = self.typed(self.expr(src, d - 1), src)
            ea = a.ev
            return Expr(f"float({a.text})", 13, lambda env: int_to_float(ea(env)), "float")
        if c == 8:
            f = r.choice(list(FLOAT_FN) + ["abs", "min", "max", "pow"])
            a = self.expr("float", d - 1)
            ea = a.ev
            if f == "abs":
                return Expr(f"abs({a.text})", 13, lambda env: abs(ea(env)), "float")
            if f in ("min", "max", "pow"):
                b = self.expr("float", d - 1)
                eb = b.ev
                if f == "pow":
                    return Expr(f"pow({a.text}, {b.text})", 13, lambda env: c_pow(ea(env), eb(env)), "float")
                if f == "min":
                    return Expr(f"min({a.text}, {b.text})", 13, lambda env: (lambda x, y: y if y < x else x)(ea(env), eb(env)), "float")
                return Expr(f"max({a.text}, {b.text})", 13, lambda env: (lambda x, y: y if y > x else x)(ea(env), eb(env)), "float")
            fn = FLOAT_FN[f]
            return Expr(f"{f}({a.text})", 13, lambda env: fn(ea(env)), "float")
        if c == 9:
            v = r.choice(["1.5", "-2.25", "1_000.5", "1e3", "inf", "-nan", "x", "", "1.", ".5", " 1", "0x10", "1e999"])
            a = self.str_lit(v)
            ea = a.ev

            return Expr(f"float({a.text})", 13, lambda env: parse_float_text(ea(env)), "float")
        if c in (10, 11, 12):
            return self.reduction("float", d)
        if c == 13:
            return self.cond("float", d)
        if c == 14:
            return self.index("float", d)
        if c == 15:
            return self.call("float", d)
        if c == 16 and self.r.random() < 0.5:
            a = self.expr("int", d - 1)
            b = self.expr("int", d - 1)
            ea, eb = a.ev, b.ev
            self.imports.add("random")
            return Expr(f"random.uniform({a.text}, {b.text})", 13,
                        lambda env: rand_ref.uniform(ea(env), eb(env)), "float")
        if c == 16:
            self.imports.add("math")
            name, v = r.choice([("pi", math.pi), ("e", math.e), ("tau", math.tau), ("inf", math.inf)])
            return Expr(f"math.{name}", 13, lambda env, v=v: v, "float")
        return self.leaf("float")

    def bool_expr(self, d):
        r = self.r
        c = r.randrange(12)
        if c < 4:
            t = r.choice(["int", "int", "float", "u64", "i128", "str", "[int]"])
            t = self.pick_new(lambda x: not has_fn(x), 0.4) or t
            ops = ["==", "!="] + (["<", "<=", ">", ">="] if ordered(t) else [])
            op = r.choice(ops)
            a, b = self.two(t, d)
            fn = {"==": lambda x, y: eq_val(t, x, y), "!=": lambda x, y: not eq_val(t, x, y),
                  "<": lambda x, y: lt_val(t, x, y), "<=": lambda x, y: not lt_val(t, y, x) and (lt_val(t, x, y) or eq_val(t, x, y)),
                  ">": lambda x, y: lt_val(t, y, x), ">=": lambda x, y: lt_val(t, y, x) or eq_val(t, x, y)}[op]
            ea, eb = a.ev, b.ev
            return Expr(f"{par(a, 6)} {op} {par(b, 6)}", 5, lambda env: fn(ea(env), eb(env)), "bool")
        if c < 6:
            op = r.choice(["and", "or"])
            a = self.expr("bool", d - 1)
            b = self.expr("bool", d - 1)
            ea, eb = a.ev, b.ev
            lvl = 3 if op == "and" else 2
            if op == "and":
                fn = lambda env: ea(env) and eb(env)
            else:
                fn = lambda env: ea(env) or eb(env)
            return Expr(f"{par(a, lvl)} {op} {par(b, lvl + 1)}", lvl, fn, "bool")
        if c == 6:
            a = self.expr("bool", d - 1)
            ea = a.ev
            return Expr(f"not {par(a, 4)}", 4, lambda env: not ea(env), "bool")
        if c in (7, 8):
            return self.reduction("bool", d)
        if c == 9:
            return self.cond("bool", d)
        if c == 10:
            e = self.bool_method(d)
            if e is not None:
                return e
        return self.leaf("bool")

    def spec_for(self, t):
        r = self.r
        if r.random() < 0.3:
            return ""
        fill = ""
        align = r.choice(["", "", "<", ">", "^"])
        if align and r.random() < 0.4:
            fill = r.choice(["*", "-", "0", " ", "x", "é"])
        sign = r.choice(["", "", "+", "-", " "]) if t != "str" else ""
        zero = "0" if t != "str" and r.random() < 0.15 else ""
        width = str(r.randint(1, 25)) if r.random() < 0.5 else ""
        if t in INTS:
            typ = r.choice(["", "", "d", "x", "X", "o", "b"])
            comma = "," if typ in ("", "d") and r.random() < 0.3 else ""
            prec = ""
        elif t == "float":
            typ = r.choice(["", "f", "F", "e", "E", "g", "G", "%"])
            comma = "," if r.random() < 0.2 else ""
            prec = "." + str(r.randint(0, 20)) if r.random() < 0.7 or typ == "" and r.random() < 0.5 else ""
        else:
            typ = r.choice(["", "s"])
            comma = ""
            prec = "." + str(r.randint(0, 4)) if r.random() < 0.3 else ""
        return fill + align + sign + zero + width + comma + prec + typ

    def str_expr(self, d):
        r = self.r
        if r.random() < 0.15:
            return self.str_method(d)
        if d > 1 and r.random() < 0.08:
            # sep.join of a comprehension (built as it runs where sequential)
            sep = r.choice(['","', '""', '" | "'])
            self.use("join")
            comp = self.comprehension("[str]", d - 1)
            ce, sv = comp.ev, sep[1:-1]
            return Expr(f"{sep}.join({comp.text})", 13, lambda env: sv.join(ce(env)), "str")
        c = r.randrange(10)
        if c < 2:
            a = self.expr("str", d - 1)
            b = self.expr("str", d - 1)
            return self.binop("+", 10, a, b, "str", lambda x, y: x + y)
        if c == 2:
            a = self.expr("str", d - 1)
            n = self.int_lit("int", r.randint(-1, 4))
            return self.binop("*", 11, a, n, "str", lambda x, y: x * max(y, 0))
        if c == 3:
            t = r.choice(SCALARS + ("[int]", "[str]", "[float]"))
            t = self.pick_new(lambda x: not has_fn(x), 0.3) or t
            a = self.typed(self.expr(t, d - 1), t)
            ea = a.ev
            return Expr(f"str({a.text})", 13, lambda env: show(t, ea(env)), "str")
        if c in (4, 5, 6):
            parts = []
            evs = []
            for _ in range(r.randint(1, 3)):
                if r.random() < 0.5:
                    s = r.choice(["x = ", " ", "|", "{", "}", "ab", "é"])
                    parts.append(s.replace("{", "{{").replace("}", "}}"))
                    evs.append(lambda env, s=s: s)
                else:
                    t = r.choice(["int", "int", "float", "float", "u64", "i128", "str", "bool"])
                    saved = self.fuel
                    self.fuel = min(self.fuel, 8)
                    e = self.typed(self.expr(t, d - 1), t)
                    self.fuel = saved
                    if '"' in e.text:   # no string literal inside an f-string expression
                        e = self.var_of(t) or (self.int_lit(t) if t in INTS else self.float_lit() if t == "float" else None)
                        if e is None:
                            continue
                        e = self.typed(e, t)
                    spec = self.spec_for(t) if t not in ("bool",) else ""
                    ee = e.ev
                    parts.append("{" + e.text + (":" + spec if spec else "") + "}")

                    def fmt(env, ee=ee, t=t, spec=spec):
                        v = ee(env)
                        if not spec:
                            return show(t, v)
                        return format(v, spec)
                    evs.append(fmt)
            text = 'f"' + "".join(parts) + '"'
            return Expr(text, 14, lambda env: "".join(f(env) for f in evs), "str")
        if c == 7:
            return self.cond("str", d)
        if c == 8:
            return self.index("str", d)
        if c == 9 and d > 1 and r.random() < 0.5:
            return self.reduction("str", d)
        return self.leaf("str")

    # -- SPEC 13: tuples, structs, Option, function values --
    def mark(self):
        """A place marker: the model's panic names it, generate() turns it into line:col."""
        self.marks += 1
        return self.marks, f"\x01{self.marks}\x02"

    def fn_names(self, t):
        return [n for n, f in self.funcs.items() if fn_type(f[0], f[1]) == t and n not in self.impure]

    def fn_ref(self, name):
        self.use("fnval")
        funcs = self.funcs
        return Expr(name, 14, lambda env, n=name: (lambda vals: run_func(funcs, n, vals)), fn_type(*funcs[name][:2]))

    def agg_leaf(self, t):
        k = tparse(t)
        if k[0] == "tup":
            return self.tuple_lit(t, [self.leaf(ft) for ft in k[1]])
        if k[0] == "struct":
            return self.struct_ctor(t, [self.leaf(ft) for _, ft in STRUCTS[t]])
        if k[0] == "opt":
            if self.strict or self.r.random() < 0.6:
                return self.some(t, self.leaf(k[1]))
            return Expr("None", 14, lambda env: None, t, untyped=True)
        names = self.fn_names(t)
        if names and (self.strict or self.r.random() < 0.5):
            return self.fn_ref(self.r.choice(names))
        return self.lambda_expr(t, 1)

    def tuple_lit(self, t, comps):
        self.use("tuple")
        comps = [self.typed(c, ft) if c.lit else c for c, ft in zip(comps, tparse(t)[1])]
        evs = [c.ev for c in comps]
        return Expr("(" + ", ".join(c.text for c in comps) + ")", 14,
                    lambda env: tuple(copyv(f(env)) for f in evs), t, untyped=any(c.untyped for c in comps))

    def struct_ctor(self, t, vals):
        """Positional, named (any order) or both; the values evaluate in field order."""
        fs = STRUCTS[t]
        r = self.r
        self.use("struct")
        npos = r.choice([len(fs), len(fs), 0, r.randint(0, len(fs))])
        named = [(fn, v.text) for (fn, _), v in list(zip(fs, vals))[npos:]]
        r.shuffle(named)
        parts = [v.text for v in vals[:npos]] + [f"{fn}={x}" for fn, x in named]
        evs = [v.ev for v in vals]
        return Expr(f"{t}(" + ", ".join(parts) + ")", 13, lambda env: SVal(t, [copyv(f(env)) for f in evs]), t)

    def some(self, t, x):
        self.use("option")
        if x.lit:
            x = self.typed(x, tparse(t)[1])
        ex = x.ev
        return Expr(f"Some({x.text})", 13, lambda env: Opt(copyv(ex(env))), t, untyped=x.untyped)

    def recv(self, e):
        return e.text if e.lvl >= 13 and not e.lit else "(" + e.text + ")"

    def minmax2(self, t, d):
        f = self.r.choice(["min", "max"])
        a, b = self.two(t, d)
        a, b = self.typed(a, t), self.typed(b, t)
        ea, eb = a.ev, b.ev
        if f == "min":
            return Expr(f"min({a.text}, {b.text})", 13, lambda env: (lambda x, y: y if lt_val(t, y, x) else x)(ea(env), eb(env)), t)
        return Expr(f"max({a.text}, {b.text})", 13, lambda env: (lambda x, y: y if lt_val(t, x, y) else x)(ea(env), eb(env)), t)

    def tuple_expr(self, t, d):
        c = self.r.randrange(10)
        if c < 4:
            return self.tuple_lit(t, [self.expr(ft, d - 1) for ft in tparse(t)[1]])
        return self.agg_common(t, d, c)

    def agg_common(self, t, d, c):
        """4: a conditional, 5: an index, 6: a call; 7, 8: min/max of an ordered type."""
        if c == 4:
            return self.cond(t, d)
        if c == 5:
            return self.index(t, d)
        if c == 6:
            return self.call(t, d)
        if c in (7, 8) and ordered(t):
            return self.minmax2(t, d) if c == 7 else self.reduction(t, d)
        return self.leaf(t)

    def struct_expr(self, t, d):
        c = self.r.randrange(10)
        if c < 4:
            return self.struct_ctor(t, [self.expr(ft, d - 1) for _, ft in STRUCTS[t]])
        return self.agg_common(t, d, c)

    def opt_expr(self, t, d):
        r = self.r
        it = tparse(t)[1]
        c = r.randrange(10)
        if c < 3:
            return self.some(t, self.expr(it, d - 1))
        if c == 3 and not self.strict:
            return Expr("None", 14, lambda env: None, t, untyped=True)
        if c == 4 and it == "int":
            k = r.randrange(3)
            if k == 0:
                a = self.typed(self.expr("str", d - 1), "str")
                b = self.typed(self.expr("str", d - 1), "str") if r.random() < 0.5 else self.str_lit(r.choice(["a", "", "b", "é", "ab", " "]))
                ea, eb = a.ev, b.ev

                def find(env):
                    x, y = ea(env).encode(), eb(env).encode()
                    i = x.find(y)
                    return None if i < 0 else Opt(i)
                return Expr(f"{self.recv(a)}.find({b.text})", 13, find, t)
            if k == 1:
                a = self.str_lit(r.choice(["12", "-7", "1_000", "x", "", " 3", "+4", "9223372036854775808", "-9223372036854775808", "1__0", "0x10"])) \
                    if r.random() < 0.7 else self.typed(self.expr("str", d - 1), "str")
                ea = a.ev

                def toi(env):
                    x = ea(env)   # its panics are not to_int's
                    try:
                        return Opt(parse_int_text(x))
                    except Panic:
                        return None
                return Expr(f"{self.recv(a)}.to_int()", 13, toi, t)
            et = r.choice(["int", "str", "float"] + [x for x in self.newtypes if not has_fn(x) and not is_arr(x)])
            xs = self.typed(self.expr("[" + et + "]", d - 1), "[" + et + "]")
            v = self.expr(et, d - 1)
            ex, ev_ = xs.ev, v.ev

            def index(env):
                a = ex(env)
                b = ev_(env)
                for i, y in enumerate(a):
                    if eq_val(et, y, b):
                        return Opt(i)
                return None
            self.use("array-method")
            return Expr(f"{self.recv(xs)}.index({v.text})", 13, index, t)
        if c == 4 and it == "float":
            a = self.str_lit(r.choice(["1.5", "-2.25", "1_000.5", "1e3", "inf", "-nan", "x", "", "1.", ".5", " 1", "1e999", "-0"]))
            ea = a.ev

            def tof(env):
                x = ea(env)
                try:
                    return Opt(parse_float_text(x))
                except Panic:
                    return None
            return Expr(f"{a.text}.to_float()", 13, tof, t)
        if c in (5, 6, 7):
            return self.agg_common(t, d, c - 1)
        return self.leaf(t)

    def fn_expr(self, t, d):
        c = self.r.randrange(8)
        if c < 3 and not self.strict:
            return self.lambda_expr(t, d)
        if c in (4, 5, 6):
            return self.agg_common(t, d, c)
        names = self.fn_names(t)
        if names:
            return self.fn_ref(self.r.choice(names))
        return self.leaf(t)

    def lambda_expr(self, t, d, use=None):
        """`lambda a, b: BODY`, typed by the place it goes; captures the names
        its body uses by value when it is made (SPEC 13). use: a name the body
        must read (added to it)."""
        _, ps, ret = tparse(t)
        self.use("fnval")
        names = [self.fresh("a") for _ in ps]
        vis = {k for k, _ in self.visible(lambda v: True)}
        self.scope.append({n: (pt, False) for n, pt in zip(names, ps)})
        self.pure += 1
        body = self.typed(self.expr(ret, d - 1), ret)
        self.pure -= 1
        self.scope.pop()
        if use is not None:
            ub = body.ev
            if ret == "str":
                body = Expr(f"{par(body, 10)} + {use}", 10, lambda env: ub(env) + env.look(use)[2], ret)
            else:
                body = Expr(f"{par(body, 11)} * {use}", 11, lambda env: f_mul(ub(env), env.look(use)[2]) if ret == "float"
                            else chk(ret, ub(env) * env.look(use)[2], "multiplication"), ret)
        used = sorted({n for n in re.findall(r"[A-Za-z_][A-Za-z0-9_]*", body.text) if n in vis and n not in names})
        be = body.ev

        def ev(env):
            snap = Env(GLOBAL[0])
            for n in used:
                cell = env.look(n)
                snap.vars[n] = [cell[0], False, copyv(cell[2])]

            def call(vals):
                inner = Env(snap)
                for n, pt, v in zip(names, ps, vals):
                    inner.vars[n] = [pt, False, v]
                return copyv(be(inner))
            return call
        head = "lambda " + ", ".join(names) if names else "lambda"
        return Expr(f"{head}: {body.text}", 0, ev, t, untyped=True)

    def extra(self, t, d):
        """An expression of type t through the new forms: a field read, an
        Option's unwrap/unwrap_or, a call through a function value."""
        r = self.r
        c = r.randrange(3)
        if c == 0:
            cands = [(n, vt) for n, (vt, _) in self.visible(lambda v: tparse(v[0])[0] in ("tup", "struct"))
                     if any(ft == t for _, ft in fields_of(vt))]
            if cands and r.random() < 0.7:
                name, at = r.choice(cands)
                a = Expr(name, 14, lambda env, n=name: env.look(n)[2], at)
            else:
                ats = [x for x in self.newtypes if tparse(x)[0] in ("tup", "struct") and any(ft == t for _, ft in fields_of(x))]
                if not ats:
                    return None
                at = r.choice(ats)
                a = self.typed(self.expr(at, d - 1), at)
            i = r.choice([i for i, (_, ft) in enumerate(fields_of(at)) if ft == t])
            fname = fields_of(at)[i][0]
            ea = a.ev
            return Expr(f"{self.recv(a)}.{fname}", 13, lambda env: copyv(field_get(at, ea(env), i)), t)
        if c == 1:
            ot = f"Option[{t}]"
            if ot not in self.newtypes:
                return None
            if r.random() < 0.5:
                a = self.typed(self.expr(ot, d - 1), ot)
                if a.text in self.none_lets:
                    return None
                mid, mk = self.mark()
                ea = a.ev

                def unwrap(env):
                    o = ea(env)
                    if o is None:
                        raise Panic("called unwrap on None", at=mid)
                    return copyv(o.v)
                return Expr(f"{mk}{self.recv(a)}.unwrap()", 13, unwrap, t)
            a = self.typed(self.expr(ot, d - 1), ot)
            b = self.expr(t, d - 1)
            ea, eb = a.ev, b.ev

            def unwrap_or(env):
                o = ea(env)
                dv = eb(env)
                return copyv(dv if o is None else o.v)
            self.use("option")
            return Expr(f"{self.recv(a)}.unwrap_or({b.text})", 13, unwrap_or, t)
        return self.fn_value_call(t, d)

    def fn_value_call(self, t, d):
        """A call through a function value of a fn type returning t, or None."""
        r = self.r
        fts = [x for x in self.newtypes if tparse(x)[0] == "fn" and tparse(x)[2] == t]
        if not fts:
            return None
        ft = r.choice(fts)
        arrs = [n for n, _ in self.visible(lambda v: v[0] == "[" + ft + "]")]
        ks = [n for n, _ in self.visible(lambda v: v[0] == "int")]
        if arrs and ks and r.random() < 0.5:
            # a run-time index into an array of functions
            fsn, kn = r.choice(arrs), r.choice(ks)

            def pick(env, fsn=fsn, kn=kn):
                fs = env.look(fsn)[2]
                k = env.look(kn)[2]
                if k in (I64[0],):
                    raise Panic("integer overflow in negation")
                if not fs:
                    raise Panic("division by zero")
                return fs[abs(k) % len(fs)]
            callee = Expr(f"{fsn}[abs({kn}) % len({fsn})]", 13, pick, ft)
        else:
            callee = self.typed(self.expr(ft, d - 1), ft)
        args = [self.expr(pt, d - 1) for pt in tparse(ft)[1]]
        ec, evs = callee.ev, [a.ev for a in args]
        self.use("fnval")

        def call(env):
            f = ec(env)
            return f([copyv(e(env)) for e in evs])
        return Expr(f"{self.recv(callee)}(" + ", ".join(a.text for a in args) + ")", 13, call, t)

    # -- SPEC 3, 13, 14: literal methods, str and array methods, patterns, steps --
    # Each returns an Expr (or a statement's (lines, exec)), or None when
    # nothing fits; the dispatchers call them now and then.

    def lit_method(self, t, d):
        """`54.wrapping_add(63)`, `(-48 * -999).wrapping_mul(7)`: a literal
        receiving a method whose result has its type takes the context's type
        (SPEC 3), so the whole counts as a literal (lit=True)."""
        r = self.r
        lo, hi = RANGE[t]
        if r.random() < 0.3:
            x, y = r.randint(-999, 999), r.randint(-999, 999)
            if t == "u64":
                x, y = abs(x), abs(y)
            op = r.choice(["+", "-", "*"] if t != "u64" else ["+", "*"])
            v = {"+": x + y, "-": x - y, "*": x * y}[op]
            if not lo <= v <= hi:
                return None
            yt = f"({y})" if y < 0 else str(y)
            recv, rv = f"({x} {op} {yt})", v
        else:
            rv = self.int_value(t)
            recv = str(rv) if rv >= 0 and r.random() < 0.7 else f"({rv})"
        m = r.choice(["wrapping_add", "wrapping_sub", "wrapping_mul", "wrapping_neg", "rotate_left", "rotate_right"])
        self.use("literal-method")
        bits = BITS[t]
        if m == "wrapping_neg":
            return Expr(f"{recv}.{m}()", 13, lambda env: wrap(t, -rv), t, lit=True)
        if m in ("rotate_left", "rotate_right"):
            k = r.randint(0, bits + 3)

            def rot(env, m=m):
                kk = k % bits
                u = rv & ((1 << bits) - 1)
                if m == "rotate_right":
                    kk = (bits - kk) % bits
                return wrap(t, ((u << kk) | (u >> (bits - kk))) & ((1 << bits) - 1))
            return Expr(f"{recv}.{m}({k})", 13, rot, t, lit=True)
        b = self.int_lit(t)   # a literal too: the whole takes the context's type
        eb = b.ev
        f = {"wrapping_add": lambda x, y: x + y, "wrapping_sub": lambda x, y: x - y,
             "wrapping_mul": lambda x, y: x * y}[m]
        return Expr(f"{recv}.{m}({b.text})", 13, lambda env: wrap(t, f(rv, eb(env))), t, lit=b.lit, weak=b.weak)

    def slice_bounds(self, length_of):
        """`[a:b]`, `[:b]`, `[a:]` with small literal bounds, sometimes len(x) - k.
        Returns (text, fn env -> (lo, hi) before the check)."""
        r = self.r
        a = r.choice([None, 0, 0, 1, 1, 2, 3, -1])
        b = r.choice([None, 0, 1, 2, 3, 4, 6, "len"])
        at = "" if a is None else str(a)
        if b == "len":
            k = r.choice([0, 1, 2])
            bt = f"len({length_of}) - {k}" if length_of else "2"
            bk = (lambda n, k=k: n - k) if length_of else (lambda n: 2)
        else:
            bt = "" if b is None else str(b)
            bk = (lambda n, b=b: n if b is None else b)
        return f"[{at}:{bt}]", (lambda n: (0 if a is None else a, bk(n)))

    def arr_slice(self, t, d):
        self.use("array-method")
        vs = [n for n, _ in self.visible(lambda v: v[0] == t)]
        if vs and self.r.random() < 0.7:
            name = self.r.choice(vs)
            a = Expr(name, 14, lambda env, n=name: env.look(n)[2], t)
        else:
            name = None
            a = self.typed(self.expr(t, d - 1), t)
        text, bounds = self.slice_bounds(name)
        ea = a.ev

        def sl(env):
            xs = ea(env)
            lo, hi = bounds(len(xs))
            if not 0 <= lo <= hi <= len(xs):
                raise Panic(f"slice out of bounds: the len is {len(xs)} but the slice is {lo}..{hi}")
            return [copyv(x) for x in xs[lo:hi]]
        return Expr(f"{self.recv(a)}{text}", 13, sl, t)

    def str_slice(self, d):
        self.use("str-method")
        vs = [n for n, _ in self.visible(lambda v: v[0] == "str")]
        if vs and self.r.random() < 0.7:
            name = self.r.choice(vs)
            a = Expr(name, 14, lambda env, n=name: env.look(n)[2], "str")
        else:
            name = None
            a = self.expr("str", d - 1)
        text, bounds = self.slice_bounds(name)
        ea = a.ev

        def sl(env):
            s = ea(env).encode()
            lo, hi = bounds(len(s))
            if not 0 <= lo <= hi <= len(s):
                raise Panic(f"slice out of bounds: the len is {len(s)} but the slice is {lo}..{hi}")
            for i in (lo, hi):
                if i < len(s) and (s[i] & 0xC0) == 0x80:
                    raise Panic(f"byte index {i} is not a char boundary")
            return s[lo:hi].decode()
        return Expr(f"{self.recv(a)}{text}", 13, sl, "str")

    SEPS = [",", " ", "a", "ab", "é", "\n", "z", "{"]

    def str_method(self, d):
        """strip, replace, upper, lower, sep.join(xs), s[a:b]."""
        self.use("str-method")
        r = self.r
        c = r.randrange(6)
        if c == 5:
            return self.str_slice(d)
        if c == 4:
            sep = self.str_lit(r.choice(self.SEPS + ["", ", "]))
            xs = self.typed(self.expr("[str]", d - 1), "[str]")
            es, ex = sep.ev, xs.ev
            return Expr(f"{sep.text}.join({xs.text})", 13, lambda env: es(env).join(ex(env)), "str")
        a = self.expr("str", d - 1)
        ea = a.ev
        if c == 0:
            return Expr(f"{self.recv(a)}.strip()", 13, lambda env: ea(env).strip(" \t\n\r\x0b\x0c"), "str")
        if c == 1:
            x = self.str_lit(r.choice(self.SEPS + [""])) if r.random() < 0.7 else self.expr("str", d - 1)
            y = self.expr("str", d - 1)
            ex_, ey = x.ev, y.ev
            return Expr(f"{self.recv(a)}.replace({x.text}, {y.text})", 13,
                        lambda env: (lambda s, p, q: s.replace(p, q))(ea(env), ex_(env), ey(env)), "str")
        up = c == 2

        def case(env):
            return "".join((chr(ord(ch) - 32) if "a" <= ch <= "z" else ch) if up else
                           (chr(ord(ch) + 32) if "A" <= ch <= "Z" else ch) for ch in ea(env))
        return Expr(f"{self.recv(a)}.{'upper' if up else 'lower'}()", 13, case, "str")

    def str_split(self, d):
        """[str] from a str: split(sep), split(), lines()."""
        self.use("str-method")
        r = self.r
        a = self.expr("str", d - 1)
        ea = a.ev
        c = r.randrange(3)
        if c == 0:
            sep = self.str_lit(r.choice(self.SEPS)) if r.random() < 0.85 else self.expr("str", d - 1)
            es = sep.ev

            def split(env):
                s, p = ea(env), es(env)
                if p == "":
                    raise Panic("split: empty separator")
                return s.split(p)
            return Expr(f"{self.recv(a)}.split({sep.text})", 13, split, "[str]")
        if c == 1:
            return Expr(f"{self.recv(a)}.split()", 13, lambda env: ea(env).split(), "[str]")

        def lines(env):
            s = ea(env)
            if s == "":
                return []
            parts = s.split("\n")
            if parts[-1] == "":
                parts.pop()
            return [p[:-1] if p.endswith("\r") else p for p in parts]
        return Expr(f"{self.recv(a)}.lines()", 13, lines, "[str]")

    def bool_method(self, d):
        """xs.contains(v), s.startswith(p), s.endswith(p), o.is_some(), o.is_none()."""
        r = self.r
        c = r.randrange(3)
        if c == 0:
            self.use("array-method")
            et = r.choice(["int", "str", "float"] + [x for x in self.newtypes if not has_fn(x) and not is_arr(x)])
            at = "[" + et + "]"
            xs = self.typed(self.expr(at, d - 1), at)
            v = self.typed(self.expr(et, d - 1), et)
            ex, ev_ = xs.ev, v.ev
            return Expr(f"{self.recv(xs)}.contains({v.text})", 13,
                        lambda env: (lambda a, b: any(eq_val(et, y, b) for y in a))(ex(env), ev_(env)), "bool")
        if c == 1:
            a = self.expr("str", d - 1)
            p = self.str_lit(r.choice(["", "a", "b", "é", " ", "ab"])) if r.random() < 0.6 else self.expr("str", d - 1)
            m = r.choice(["startswith", "endswith"])
            self.use("str-method")
            ea, ep = a.ev, p.ev
            return Expr(f"{self.recv(a)}.{m}({p.text})", 13,
                        lambda env: getattr(ea(env), m)(ep(env)), "bool")
        ots = [x for x in self.newtypes if tparse(x)[0] == "opt"]
        if not ots:
            return None
        ot = r.choice(ots)
        o = self.typed(self.expr(ot, d - 1), ot)
        some = r.random() < 0.5
        self.use("option")
        eo = o.ev
        return Expr(f"{self.recv(o)}.{'is_some' if some else 'is_none'}()", 13,
                    lambda env: (eo(env) is not None) == some, "bool")

    def reversed_expr(self, t, d):
        self.use("array-method")
        a = self.typed(self.expr(t, d - 1), t)
        ea = a.ev
        return Expr(f"reversed({a.text})", 13, lambda env: [copyv(x) for x in reversed(ea(env))], t)

    def step_range(self):
        """range(lo, hi, step): (text, fn env -> list); a zero step panics."""
        if RANGE_TYPES != ["int"] and self.r.random() < 0.3:
            return self.typed_step_range()
        self.use("range-step")
        r = self.r
        step = r.choice([1, 2, 3, 5, 7, 16, 17, -1, -2, -3, -16] + ([0] if r.random() < 0.05 else []))
        lo = r.randint(-20, 20)
        n = r.choice([0, 1, 5, 16, 17, 40, r.randint(0, 300)])
        hi = lo + n if step > 0 else lo - n
        if r.random() < 0.2:
            hi = lo - hi + lo   # the wrong direction: empty
        # range(lo, hi) over every integer type, range(lo, hi, step) over int
        t = r.choice(RANGE_TYPES) if lo >= 0 and hi >= 0 and step == 1 else "int"
        los = str(lo) if t == "int" else f"{t}({lo})"

        def items(env):
            if step == 0:
                raise Panic("range step must not be zero")
            return list(range(lo, hi, step))
        if step == 1 and (r.random() < 0.5 or t != "int"):
            if lo == 0 and t == "int" and r.random() < 0.5:
                return f"range({hi})", t, items
            return f"range({los}, {hi})", t, items
        return f"range({los}, {hi}, {step})", t, items

    def typed_step_range(self):
        """range(lo, hi, step) over u64, i128 or int, often at the type's ends
        (the last step would pass the end: the range stops there):
        (text, type, fn env -> list). The step is the one argument that is
        not a literal (u64(3), i128(-2)), so the bounds take its type."""
        self.use("range-step")
        r = self.r
        t = r.choice(["u64", "i128", "int"])
        tlo, thi = RANGE[t]
        step = r.choice([1, 2, 3, 7, 16, 17] + ([] if t == "u64" else [-1, -2, -5, -16]) +
                        ([0] if r.random() < 0.05 else []))
        k = r.choice([0, 1, 3, 16, 17, r.randint(0, 60)])
        a = abs(step) or 1
        w = r.random()
        up = step >= 0
        if w < 0.4:      # the end it runs toward
            lo = thi - r.randint(0, k * a) if up else tlo + r.randint(0, k * a)
        elif w < 0.6:    # the other end
            lo = tlo + r.randint(0, 3) if up else thi - r.randint(0, 3)
        else:
            lo = r.randint(max(tlo, -20), 20)
        hi = lo + (k * step - (r.randint(0, a - 1) if up else -r.randint(0, a - 1)) if step else k)
        hi = min(max(hi, tlo), thi)
        if r.random() < 0.15:
            lo, hi = hi, lo   # the wrong direction: empty
        stext = str(step) if t == "int" else f"{t}({step})"

        def items(env):
            if step == 0:
                raise Panic("range step must not be zero")
            return list(range(lo, hi, step))
        return f"range({self.int_lit(t, lo).text}, {self.int_lit(t, hi).text}, {stext})", t, items

    def pattern_iterable(self, d):
        """`enumerate(xs)` or `zip(xs, ys)` for a tuple pattern: (text, [t1, t2], fn env -> [tuples])."""
        self.use("enumerate/zip")
        r = self.r
        pool = ["[int]", "[float]", "[str]"] + [x for x in self.newtypes if is_arr(x)]

        def src(t):
            vs = [n for n, _ in self.visible(lambda v: v[0] == t)]
            if vs and r.random() < 0.7:
                n = r.choice(vs)
                return n, (lambda env, n=n: env.look(n)[2])
            a = self.typed(self.arr_expr(t, d - 1), t)
            return a.text, a.ev
        ta = r.choice(pool)
        ta_text, ta_ev = src(ta)
        if r.random() < 0.5:
            return f"enumerate({ta_text})", ["int", elem(ta)], lambda env: list(enumerate(ta_ev(env)))
        tb = r.choice(pool)
        tb_text, tb_ev = src(tb)
        return f"zip({ta_text}, {tb_text})", [elem(ta), elem(tb)], lambda env: list(zip(ta_ev(env), tb_ev(env)))

    def more_stmt(self, depth, in_loop, ret):
        """A statement of SPEC 13/14's array methods and loops, or None."""
        r = self.r
        c = r.randrange(5)
        if c == 0 and depth > 0:
            if r.random() < 0.5:
                text, ts, items = self.pattern_iterable(2)
                names = [self.fresh("k") for _ in ts]
                head = f"for ({names[0]}, {names[1]}) in {text}:"
            else:
                text, t, its = self.step_range()
                ts, names = [t], [self.fresh("k")]
                items = lambda env, its=its: [(x,) for x in its(env)]
                head = f"for {names[0]} in {text}:"
            self.scope.append({n: (t, False) for n, t in zip(names, ts)})
            body, bex = self.block(depth - 1, True, ret)
            self.scope.pop()

            def ex(env):
                for tup in copyv(items(env)):
                    sub = Env(env)
                    for n, t, x in zip(names, ts, tup):
                        sub.vars[n] = [t, False, x]
                    try:
                        bex(sub)
                    except Break:
                        break
                    except Continue:
                        continue
            return [head] + body, ex
        vs = self.visible(lambda v: v[1] and is_arr(v[0]))
        if not vs or r.random() < 0.2:
            if self.pure:
                return None
            t = self.pick_new(lambda x: is_arr(x), 0.8) or r.choice(["[str]", "[int]", "[[int]]"])
            return self.let_stmt(mutable=True, t=t)
        name, (t, _) = r.choice(vs)
        et = elem(t)
        m = r.choice(["extend", "+=", "insert", "remove", "pop", "reverse"])
        self.use("array-method")
        if m in ("extend", "+="):
            ys = self.typed(self.expr(t, 2), t)
            ey = ys.ev

            def ex(env):
                vals = copyv(ey(env))
                xs = env.look(name)[2]
                if len(xs) + len(vals) > 20_000:
                    raise TooBig()
                xs.extend(vals)
            return [f"{name}.extend({ys.text})" if m == "extend" else f"{name} += {ys.text}"], ex
        if m == "reverse":
            return [f"{name}.reverse()"], lambda env: env.look(name)[2].reverse()
        k = r.choice([0, 0, 1, 2, -1, 3])
        kt = f"len({name}) - 1" if r.random() < 0.3 else str(k)
        kf = (lambda n: n - 1) if kt.startswith("len") else (lambda n: k)
        if m == "insert":
            v = self.typed(self.expr(et, 2), et)
            evv = v.ev

            def ex(env):
                xs = env.look(name)[2]
                val = copyv(evv(env))
                i = kf(len(xs))
                if not 0 <= i <= len(xs):
                    raise Panic(f"insertion index out of bounds: the len is {len(xs)} but the index is {i}")
                xs.insert(i, val)
            return [f"{name}.insert({kt}, {v.text})"], ex
        pr = not has_fn(et) and not self.pure

        def take(env):
            xs = env.look(name)[2]
            if m == "pop":
                if not xs:
                    raise Panic("pop from an empty array")
                return xs.pop()
            i = kf(len(xs))
            if not 0 <= i < len(xs):
                raise Panic(f"index out of bounds: the len is {len(xs)} but the index is {i}")
            return xs.pop(i)
        call = f"{name}.pop()" if m == "pop" else f"{name}.remove({kt})"
        if pr:
            def ex(env):
                env_out(env).append(show(et, take(env)) + "\n")
            return [f"print({call})"], ex
        return [call], take

    def small_function(self):
        """`fn f(p1, p2, p3) -> R: return EXPR` whose EXPR reads only some of
        its parameters (or none): small enough to be inlined, also into par
        elements, where the parameter it ignores must not be captured."""
        r = self.r
        name = self.fresh("f")
        params = [(self.fresh("p"), self.pick_new(lambda x: not is_arr(x), 0.3) or r.choice(("int", "float", "int", "str", "u64")))
                  for _ in range(r.randint(1, 4))]
        ret = self.pick_new(lambda x: not is_arr(x), 0.2) or r.choice(("int", "float", "bool", "i128"))
        used = [p for p in params if r.random() < 0.4]
        self.scope = [dict(self.consts), {p: (t, False) for p, t in used}]
        self.fuel = 12
        self.pure += 1
        e = self.typed(self.expr(ret, 2), ret)
        self.pure -= 1
        self.scope = []
        ee = e.ev

        def run(env):
            return copyv(ee(Env(env)))
        self.funcs[name] = (params, ret, run)
        if len(used) < len(params):
            self.ignoring.add(name)
        if "world." in e.text or set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", e.text)) & self.impure:
            self.impure.add(name)
        return [f"fn {name}(" + ", ".join(f"{p}: {t}" for p, t in params) + f") -> {ret}:", f"    return {e.text}"]

    # -- arrays --
    def arr_expr(self, t, d):
        r = self.r
        et = elem(t)
        x = r.random()
        if x < 0.1:
            return self.arr_slice(t, d)
        if x < 0.15:
            return self.reversed_expr(t, d)
        if x < 0.3 and t == "[str]":
            return self.str_split(d)
        c = r.randrange(8)
        if c < 2 and (not is_arr(et) or r.random() < 0.5):   # [[T]] too: arrays as elements
            return self.comprehension(t, d)
        if c == 2:
            a = self.expr(t, d - 1)
            b = self.expr(t, d - 1)
            return self.binop("+", 10, a, b, t, lambda x, y: copyv(x) + copyv(y))
        if c == 3:
            x = self.typed(self.expr(et, d - 1), et)
            n = self.int_lit("int", r.randint(-1, 20))
            ex = x.ev
            return Expr(f"[{x.text}] * {n.text}", 11, lambda env, k=n.ev(None): (lambda v: [copyv(v) for _ in range(max(k, 0))])(ex(env)), t)
        if c == 4:
            return self.leaf(t)
        if c == 5 and ordered(et) and r.random() < 0.5:
            a = self.typed(self.expr(t, d - 1), t)
            ea = a.ev
            self.use("array-method")
            return Expr(f"sorted({a.text})", 13, lambda env: sorted(copyv(ea(env)), key=lambda v: sort_key(et, v)), t)
        items = [self.expr(et, d - 1) for _ in range(r.randint(0 if False else 1, 4))]
        return self.arr_lit(t, items)

    def iterable(self, d):
        """A generator's source: a range (int elements) or an array. Returns
        (text, elem type, fn env -> list of element values)."""
        r = self.r
        c = r.random()
        if c < 0.7:
            lo = r.randint(-5, 5)
            n = r.choice([0, 1, 2, 15, 16, 17, 31, 32, 33, 48, 64, 65, r.randint(0, 100), r.randint(100, 700),
                          r.randint(2000, 9000) if self.big_ok() else 40])
            incl = r.random() < 0.3
            hi = lo + n - (1 if incl else 0)
            loe, hie = self.int_lit("int", lo), self.int_lit("int", hi)
            text = f"{loe.text}..{'=' if incl else ''}{hie.text}"
            return text, "int", lambda env: list(range(lo, lo + n))
        if c < 0.78:
            return self.step_range()
        if c < 0.88:
            # an array of aggregates or function values (called in the element)
            vs = self.visible(lambda v: is_arr(v[0]) and v[0] in self.newtypes)
            if vs:
                name, (t, _) = r.choice(vs)
                return name, elem(t), lambda env, n=name: env.look(n)[2]
        t = r.choice(["[int]", "[float]", "[str]", "[u64]"])
        vs = self.visible(lambda v: v[0] == t)
        if vs:
            name = r.choice(vs)[0]
            return name, elem(t), lambda env, n=name: env.look(n)[2]
        a = self.arr_expr(t, d - 1)
        return a.text, elem(t), a.ev

    def later_iterable(self, earlier):
        """A later clause's source, which never panics: a small range, one
        that ends at an earlier int variable (for j in 0..i), or an array
        variable. Returns (text, elem type, fn env -> list)."""
        r = self.r
        ints = [k for k, t in earlier if t == "int"]
        c = r.random()
        if ints and c < 0.35:
            k = r.choice(ints)
            lo = r.randint(-3, 2)
            return f"{lo}..min({k}, 30)", "int", lambda env, k=k, lo=lo: list(range(lo, min(env.look(k)[2], 30)))
        vs = self.visible(lambda v: v[0] in ("[int]", "[float]", "[str]"))
        if vs and c < 0.6:
            name, (t, _) = r.choice(vs)
            return name, elem(t), lambda env, n=name: env.look(n)[2]
        lo = r.randint(-5, 5)
        n = r.choice([0, 1, 2, 3, 5, 7, 15, 16, 17, r.randint(0, 40)])
        return f"{lo}..{lo + n}", "int", lambda env: list(range(lo, lo + n))

    def generator(self, et, d, is_par=False, key_n=None, key_spill=0):
        """`EXPR for v in ITER {for w in ITER} [if COND]` with the variables in
        scope: several clauses give the elements in row-major order. key_n:
        `by KEY in 0..key_n` at the end, KEY an int of the variables made to
        lie in the range, plus key_spill (above 0: some keys leave it, a panic
        at the `by`); the thunks then give (kept, (key, value)), the key
        evaluated after the filter and before the value (SPEC 15)."""
        nmore = 0
        if self.r.random() < 0.25 and not self.nested_clauses:
            nmore = self.r.choice([1, 1, 2])
        self.nested_clauses += nmore > 0   # no large first clause under later ones
        if nmore:
            self.use("multi-clause")
        if self.r.random() < 0.15:
            src, pts, items = self.pattern_iterable(d)
            names = [self.fresh("i") for _ in pts]
            v = "(" + ", ".join(names) + ")"
            vt = pts
        else:
            src, vt, items = self.iterable(d)
            v = self.fresh("i")
        self.nested_clauses -= nmore > 0
        clauses = [(v, vt, items, src)]
        if isinstance(vt, list):
            self.scope.append({n: (pt, False) for n, pt in zip(names, pts)})
        else:
            self.scope.append({v: (vt, False)})
        for _ in range(nmore):
            ltext, lt, litems = self.later_iterable([(c[0], c[1]) for c in clauses if not isinstance(c[1], list)])
            w = self.fresh("i")
            clauses.append((w, lt, litems, ltext))
            self.scope[-1][w] = (lt, False)
        self.nested_clauses += nmore > 0
        self.pure += 1   # elements print nothing: a par reduction runs them in no fixed order
        self.in_par += is_par
        e = None
        x = self.r.random()
        if x < 0.15:
            e = self.fn_value_call(et, d - 1)      # function values inside elements
        elif x < 0.3:
            e = self.call_ignoring(et, d - 1)      # an inlined call that ignores a parameter
        if e is None:
            e = self.expr(et, d - 1)
        weak = e.weak
        e = self.typed(e, et)
        kt = tparse(et)
        if kt[0] == "tup" and "int" in kt[1] and not nmore and key_n is None and vt == "int" and self.r.random() < 0.6:
            # the generator's variable as a field of its tuples, max((x, i) for i in ..):
            # over a range, each element's counter is larger than the record's
            # (emit_par.c, counter_field), over an int array it is not
            k = self.r.choice([j for j, ft in enumerate(kt[1]) if ft == "int"])
            comps = [Expr(v, 14, lambda env, n=v: env.look(n)[2], "int") if j == k else self.typed(self.expr(ft, d - 1), ft)
                     for j, ft in enumerate(kt[1])]
            e = self.tuple_lit(et, comps)
            weak = False
            self.use("tuple-counter")
        cond = self.expr("bool", d - 2) if self.r.random() < 0.4 else None
        key = self.typed(self.expr("int", d - 2), "int") if key_n else None
        self.in_par -= is_par
        self.pure -= 1
        self.nested_clauses -= nmore > 0
        self.scope.pop()
        text = f"{e.text} " + " ".join(f"for {c[0]} in {c[3]}" for c in clauses) + (f" if {par(cond, 2)}" if cond else "")
        if key is not None:
            kmid, kmark = self.mark()
            text += (f" {kmark}by (({key.text}) % {key_n} + {key_n}) % {key_n}" + (f" + {key_spill}" if key_spill else "")
                     + f" in 0..{key_n}")

        def each(env):
            """Per element: a thunk that returns (kept, value) or raises; the
            clauses' elements flattened in row-major order."""
            out = []

            def walk(sub, ci):
                if ci == len(clauses):
                    def th(sub=sub):
                        if cond is not None and not cond.ev(sub):
                            return False, None
                        if key is not None:
                            kv = key.ev(sub) % key_n + key_spill
                            if kv >= key_n:
                                raise Panic(f"key {kv} out of range 0..{key_n}", kmid)
                            return True, (kv, e.ev(sub))
                        return True, e.ev(sub)
                    out.append(th)
                    return
                name, ct, its, _ = clauses[ci]
                for x in its(sub):
                    inner = Env(sub)
                    if isinstance(ct, list):   # a tuple pattern (enumerate, zip)
                        for n, pt, y in zip(name[1:-1].split(", "), ct, x):
                            inner.vars[n] = [pt, False, y]
                    else:
                        inner.vars[name] = [ct, False, x]
                    walk(inner, ci + 1)
            walk(env, 0)
            return out
        return text, each, weak

    def reduction(self, t, d):
        r = self.r
        if t == "bool":
            red = r.choice(["any", "all"])
            et = "bool"
        elif t == "str" or tparse(t)[0] != "scalar":
            red = r.choice(["min", "max"])
            et = t
        else:
            red = r.choice(["sum", "product", "min", "max", "sum"])
            et = t
        is_par = r.random() < 0.6
        if t in ("int", "float") and r.random() < 0.15:
            # reduce(f, start, gen) with an f that is not associative (SPEC 15)
            gtext, each, weak = self.generator(t, d)
            st = r.randint(-3, 3)
            if t == "float":
                ftext, fop, stv = "lambda a, b: a * 0.5 + b", (lambda a, b: f_add(f_mul(a, 0.5), b)), float(st)
                stext = repr(float(st))
            else:
                ftext, fop, stv = "lambda a, b: a.wrapping_mul(3).wrapping_sub(b)", \
                    (lambda a, b: wrap("int", wrap("int", a * 3) - b)), st
                stext = str(st)
            text = ("par " if is_par else "") + f"reduce({ftext}, {stext}, {gtext})"
            # the start literal takes the context's type (SPEC 3): weak
            return Expr(text, 14, lambda env: fold_model(fop, stv, is_par, each(env)), t, weak=True)
        if t == "str" and r.random() < 0.15:
            # reduce of str: f shows the tree's shape (SPEC 15, any T)
            gtext, each, weak = self.generator(t, d)
            text = ("par " if is_par else "") + f'reduce(lambda a, b: "(" + a + b + ")", "", {gtext})'
            return Expr(text, 14, lambda env: fold_model(lambda a, b: "(" + a + b + ")", "", is_par, each(env)), t)
        if r.random() < 0.2:
            # over an array value
            at = "[" + et + "]"
            vs = self.visible(lambda v: v[0] == at)
            if vs:
                name = r.choice(vs)[0]
                text = ("par " if is_par else "") + f"{red}({name})"

                def each(env, n=name):
                    return [(lambda x=x: (True, x)) for x in env.look(n)[2]]
                return Expr(text, 14, lambda env: reduce_model(red, et, is_par, each(env)), t)
        gtext, each, weak = self.generator(et, d, is_par)
        if is_par:
            self.use("par")
        text = ("par " if is_par else "") + f"{red}({gtext})"
        return Expr(text, 14, lambda env: reduce_model(red, et, is_par, each(env)), t, weak=weak)

    def comprehension(self, t, d):
        et = elem(t)
        is_par = self.r.random() < 0.5
        if et in ("int", "float", "str") and self.r.random() < 0.1:
            return by_key_expr(self, t, d, is_par)
        gtext, each, _ = self.generator(et, d, is_par)
        if is_par:
            self.use("par")
        if et == "str" and self.r.random() < 0.15:
            # scan(f, start, gen) of text (values holding references): f's
            # parentheses show the tree of a par scan
            return Expr(("par " if is_par else "") + f'scan(lambda a, b: "(" + a + b + ")", "s", {gtext})', 14,
                        lambda env: scan_model(None, et, is_par, each(env), (wrap_op, "s")), t)
        if et in ("int", "float") and self.r.random() < 0.25:
            # scan sum / min / max (SPEC 15): the running values
            red = self.r.choice(["sum", "min", "max"])
            return Expr(("par " if is_par else "") + f"scan {red}({gtext})", 14,
                        lambda env: scan_model(red, et, is_par, each(env)), t)

        def ev(env):
            out = []
            for th in each(env):
                k, v = th()
                if k:
                    out.append(copyv(v))
            return out
        return Expr(("par " if is_par else "") + f"[{gtext}]", 14, ev, t)

    # -- statements: each is (lines, exec(env)) --
    def block(self, depth, in_loop, ret=None, n=None):
        self.scope.append({})
        stmts = [self.stmt(depth, in_loop, ret) for _ in range(n or self.r.randint(1, 3))]
        self.scope.pop()
        lines = []
        for ls, _ in stmts:
            lines.extend("    " + l for l in ls)

        def ex(env):
            sub = Env(env)
            for _, f in stmts:
                f(sub)
        return lines, ex

    def stmt(self, depth, in_loop, ret=None):
        r = self.r
        self.fuel = 40
        c = r.randrange(20)
        if self.newtypes and r.random() < 0.3:
            st = self.new_stmt()
            if st is not None:
                return st
        if r.random() < 0.15:
            st = self.more_stmt(depth, in_loop, ret)
            if st is not None:
                return st
        if depth > 0 and self.later.random() < 0.04:
            return self.row_nest(depth, in_loop, ret)
        if self.sums.random() < 0.04:
            return self.sum_nest()
        if self.borders.random() < 0.04:
            return self.border_nest()
        if self.steps.random() < 0.04:
            return self.step_nest()
        if self.stepsums.random() < 0.04:
            return self.step_sum()
        if self.pools.random() < 0.04:
            return self.row_par()
        if self.folds.random() < 0.04:
            return self.fold_par()
        # forms that draw from their own streams (other seeds keep their programs)
        for stream, p, form in ((self.maps, 0.03, map_self), (self.fills, 0.04, fill_loop),
                                (self.fuses, 0.03, fuse_loop), (self.lits, 0.03, literal_len_loop),
                                (self.cols, 0.03, column_walk), (self.downs, 0.03, down_loop),
                                (self.calls, 0.05, pool_call), (self.zips, 0.04, row_zip),
                                (self.flows, 0.03, tuple_flow), (self.adjs, 0.04, adjacent_loops),
                                (self.recs, 0.04, recurrence), (self.records, 0.04, record),
                                (self.scratches, 0.04, scratch), (self.splits, 0.04, split_push),
                                (self.scans, 0.04, scan_stmt), (self.minmaxes, 0.04, minmax_fold),
                                (self.pushrecs, 0.04, push_recurrence), (self.tables, 0.15, dp_table),
                                (self.combs, 0.05, comp_helpers), (self.parmms, 0.04, par_minmax_tuples)):
            if stream.random() < p:
                st = form(self)
                if st is not None:
                    return st
        for p, hook in FORM_HOOKS["stmt"]:
            if r.random() < p:
                st = hook(self, depth, in_loop, ret)
                if st is not None:
                    return st
        if c < 5:
            return self.print_stmt()
        if c < 9:
            return self.let_stmt()
        if c < 12:
            tgt = self.visible(lambda v: v[1])
            if tgt:
                return self.assign_stmt(r.choice(tgt))
            return self.let_stmt(mutable=True)
        if c == 12 and depth > 0:
            lo = r.randint(-3, 3)
            n = r.randint(0, 6)
            v = self.fresh("k")
            self.scope.append({v: ("int", False)})
            body, bex = self.block(depth - 1, True, ret)
            self.scope.pop()

            def ex(env):
                for x in range(lo, lo + n):
                    sub = Env(env)
                    sub.vars[v] = ["int", False, x]
                    try:
                        bex(sub)
                    except Break:
                        break
                    except Continue:
                        continue
            return [f"for {v} in {lo}..{lo + n}:"] + body, ex
        if c == 13 and depth > 0:
            cond = self.expr("bool", 2)
            body, bex = self.block(depth - 1, in_loop, ret)
            cond2 = self.expr("bool", 2) if r.random() < 0.3 else None
            body2 = self.block(depth - 1, in_loop, ret) if cond2 else None
            els = self.block(depth - 1, in_loop, ret) if r.random() < 0.5 else None
            lines = [f"if {cond.text}:"] + body + ([f"elif {cond2.text}:"] + body2[0] if cond2 else []) \
                + (["else:"] + els[0] if els else [])

            def ex(env):
                if cond.ev(env):
                    bex(env)
                elif cond2 and cond2.ev(env):
                    body2[1](env)
                elif els:
                    els[1](env)
            return lines, ex
        if c == 14 and depth > 0 and r.random() < 0.3:
            # a while loop counting to an inclusive bound, its step last (no
            # break or continue of it: opt_counted's `while i <= n`)
            v = self.fresh("w")
            n = r.randint(-1, 5)
            self.scope.append({})
            body, bex = self.block(depth - 1, False, ret)
            self.scope.pop()
            lines = [f"var {v} = 0", f"while {v} <= {n}:"] + body + [f"    {v} += 1"]

            def ex(env):
                env.vars[v] = ["int", True, 0]
                while env.vars[v][2] <= n:
                    bex(env)
                    env.vars[v][2] += 1
            return lines, ex
        if c == 14 and depth > 0:
            # a counted while loop
            v = self.fresh("w")
            n = r.randint(0, 5)
            self.scope.append({})
            body, bex = self.block(depth - 1, True, ret)
            self.scope.pop()
            lines = [f"var {v} = 0", f"while {v} < {n}:", f"    {v} += 1"] + body

            def ex(env):
                env.vars[v] = ["int", True, 0]
                while env.vars[v][2] < n:
                    env.vars[v][2] += 1
                    try:
                        bex(env)
                    except Break:
                        break
                    except Continue:
                        continue
            return lines, ex
        if c == 15 and in_loop:
            cond = self.expr("bool", 1)
            kw = r.choice(["break", "continue"])

            def ex(env):
                if cond.ev(env):
                    raise Break() if kw == "break" else Continue()
            return [f"if {cond.text}:", f"    {kw}"], ex
        if c == 16:
            vs = self.visible(lambda v: v[1] and is_arr(v[0]))
            if vs:
                name, (t, _) = r.choice(vs)
                et = elem(t)
                if r.random() < 0.5:
                    x = self.typed(self.expr(et, 2), et)

                    def ex(env):
                        val = copyv(x.ev(env))
                        env.look(name)[2].append(val)
                    return [f"{name}.push({x.text})"], ex
                if is_arr(et) and self.later.random() < 0.5:
                    return self.row_store(name, elem(et))
                x = self.expr(et, 2)
                k = r.choice([0, 1, 2, -1, 4])

                def ex(env):
                    val = copyv(x.ev(env))
                    xs = env.look(name)[2]
                    if not 0 <= k < len(xs):
                        raise Panic(f"index out of bounds: the len is {len(xs)} but the index is {k}")
                    xs[k] = val
                return [f"{name}[{k}] = {x.text}"], ex
        if c == 17 and ret is not None:
            e = self.expr(ret, 2)

            def ex(env):
                raise Return(copyv(e.ev(env)))
            return [f"return {e.text}"], ex
        return self.print_stmt()

    def row_store(self, name, et):
        """name[a][b] = x (or +=), the indices literals or int lets and loop variables:
        a store into a row, whose copy-on-write test the optimizer moves out of loops."""
        r = self.r
        ints = [n for n, _ in self.visible(lambda v: v[0] == "int" and not v[1])]
        ks = [r.choice(ints) if ints and r.random() < 0.6 else str(r.choice([0, 1, 2, -1])) for _ in range(2)]
        op = "+" if et in ("int", "float") and r.random() < 0.5 else ""
        x = self.typed(self.expr(et, 2), et)
        self.use("row-store")

        def at(env, k):
            return int(k) if k.lstrip("-").isdigit() else env.look(k)[2]

        def ex(env):
            val = copyv(x.ev(env))
            xs = env.look(name)[2]
            for d, k in enumerate(ks):
                i = at(env, k)
                if not 0 <= i < len(xs):
                    raise Panic(f"index out of bounds: the len is {len(xs)} but the index is {i}")
                if d == 0:
                    xs = xs[i]
            if op:
                val = chk(et, xs[i] + val, "addition") if et == "int" else xs[i] + val
            xs[i] = val
        return [f"{name}[{ks[0]}][{ks[1]}] {op}= {x.text}"], ex

    def row_nest(self, depth, in_loop, ret):
        """A grid of rows filled by a nest, `g[i][j] op= x` (now and then inside a
        third loop over k, the textbook product's shape), with rows shared now and
        then (g[1] = g[0], before or inside the nest) and random statements in the
        j loop: the optimizer makes each row unique once, before the loop over j,
        where nothing can share it, and may run the j and k loops swapped."""
        r = self.r
        et = r.choice(["int", "float"])
        t = f"[[{et}]]"
        g, q, i, j, k = self.fresh("g"), self.fresh("q"), self.fresh("i"), self.fresh("j"), self.fresh("k")
        rows, cols = r.randint(0, 4), r.randint(0, 4)
        deep = r.randint(0, 3) if self.later.random() < 0.5 else None
        span = rows + r.choice([0, 0, 0, 1])   # now and then a row past the end
        init = self.typed(self.expr(et, 1), et)
        alias = [(r.randrange(rows), r.randrange(rows)) if rows and r.random() < 0.4 else None for _ in range(2)]
        op = r.choice(["", "+"])
        self.scope[-1][g] = (t, True)
        self.scope.append({i: ("int", False)})
        self.scope.append({j: ("int", False)})
        self.scope.append({k: ("int", False)} if deep is not None else {})
        x = self.typed(self.expr(et, 2), et)
        # a column of another grid (src[k][j]: what makes the swap pay), now and then a row short
        src, srows = self.fresh("s"), (deep or 0) - (1 if deep and r.random() < 0.2 else 0)
        col = deep is not None and r.random() < 0.6
        # now and then another row of the grid read along the j loop, a fixed
        # one (a row guard of the loop: opt_loops.c), now and then past the end
        other = r.randrange(rows + 1) if r.random() < 0.4 else None
        # and a fixed column of its own row (a guard of one index)
        fixed = r.randrange(cols + 1) if r.random() < 0.3 else None
        self.scope.pop()
        body, bex = self.block(depth - 1, True, ret) if depth > 0 and r.random() < 0.5 else ([], None)
        self.scope.pop()
        self.scope.pop()
        self.use("row-store")
        lines = [f"var {g}: {t} = [[{init.text}] * {cols} for {q} in 0..{rows}]"]
        if col:
            cell = f"{q}2 * 7 + {q}3" if et == "int" else f"float({q}2 * 7 + {q}3) * 0.25"
            lines.append(f"let {src}: {t} = [[{cell} for {q}3 in 0..{cols}] for {q}2 in 0..{srows}]")
            xtext = f"{par(x, 10)} + {src}[{k}][{j}]"
        elif other is not None or fixed is not None:
            xtext = par(x, 10)   # a term of the sum below: `a << b` or `a | b` in parentheses
        else:
            xtext = x.text
        if other is not None:
            xtext = f"{xtext} + {g}[{other}][{j}]"
        if fixed is not None:
            xtext = f"{xtext} + {g}[{i}][{fixed}]"
        if alias[0]:
            lines.append(f"{g}[{alias[0][0]}] = {g}[{alias[0][1]}]")
        lines.append(f"for {i} in 0..{span}:")
        if alias[1]:
            lines.append(f"    {g}[{alias[1][0]}] = {g}[{alias[1][1]}]")
        lines.append(f"    for {j} in 0..{cols}:")
        if deep is not None:
            lines += [f"        for {k} in 0..{deep}:", f"            {g}[{i}][{j}] {op}= {xtext}"]
        else:
            lines.append(f"        {g}[{i}][{j}] {op}= {xtext}")
        lines += ["    " + l for l in body]

        def share(env, a):
            if a:
                xs = env.look(g)[2]   # the j loop's statements may have shrunk g: the value is read first
                for ix in (a[1], a[0]):
                    if ix >= len(xs):
                        raise Panic(f"index out of bounds: the len is {len(xs)} but the index is {ix}")
                xs[a[0]] = copyv(xs[a[1]])

        def store(env, iv, jv):
            val = copyv(x.ev(env))
            if col:
                kv = env.look(k)[2]
                if kv >= srows:
                    raise Panic(f"index out of bounds: the len is {srows} but the index is {kv}")
                c = kv * 7 + jv
                val = chk(et, val + c, "addition") if et == "int" else val + float(c) * 0.25
            if other is not None:
                xs = env.look(g)[2]
                if other >= len(xs):
                    raise Panic(f"index out of bounds: the len is {len(xs)} but the index is {other}")
                if jv >= len(xs[other]):
                    raise Panic(f"index out of bounds: the len is {len(xs[other])} but the index is {jv}")
                o = xs[other][jv]
                val = chk(et, val + o, "addition") if et == "int" else val + o
            if fixed is not None:
                xs = env.look(g)[2]
                if iv >= len(xs):
                    raise Panic(f"index out of bounds: the len is {len(xs)} but the index is {iv}")
                if fixed >= len(xs[iv]):
                    raise Panic(f"index out of bounds: the len is {len(xs[iv])} but the index is {fixed}")
                o = xs[iv][fixed]
                val = chk(et, val + o, "addition") if et == "int" else val + o
            xs = env.look(g)[2]
            if iv >= len(xs):
                raise Panic(f"index out of bounds: the len is {len(xs)} but the index is {iv}")
            row = xs[iv]
            if jv >= len(row):
                raise Panic(f"index out of bounds: the len is {len(row)} but the index is {jv}")
            if op:
                val = chk(et, row[jv] + val, "addition") if et == "int" else row[jv] + val
            row[jv] = val

        def ex(env):
            env.vars[g] = [t, True, [[copyv(init.ev(env))] * cols for _ in range(rows)]]
            share(env, alias[0])
            for iv in range(span):
                sub = Env(env)
                sub.vars[i] = ["int", False, iv]
                share(sub, alias[1])
                for jv in range(cols):
                    inner = Env(sub)
                    inner.vars[j] = ["int", False, jv]
                    if deep is None:
                        store(inner, iv, jv)
                    for kv in range(deep or 0):
                        innermost = Env(inner)
                        innermost.vars[k] = ["int", False, kv]
                        store(innermost, iv, jv)
                    if bex:
                        try:
                            bex(inner)
                        except Break:
                            break
                        except Continue:
                            continue
        return lines, ex

    def sum_nest(self):
        """A float sum over k inside a loop over j that reads a column s[k][j]
        (opt_accum.c runs k outside, into one sum per j, behind a guard): a
        comprehension of sums with a scale or a term around the sum, an
        accumulator in for or while loops, or sums into the elements; now and
        then a row of s one short or the k range past s's end (the guard fails:
        the nest runs as written and panics where it did), an empty k range."""
        r = self.r
        v, src, q, j, k, acc, m = (self.fresh(p) for p in ("v", "s", "q", "j", "k", "a", "m"))
        cols, srows = r.randint(0, 4), r.randint(0, 4)
        klo, khi = r.choice([0, 0, 1]), srows + r.choice([0, 0, 0, 1])
        short = r.randrange(srows) if srows and r.random() < 0.2 else None
        form = r.randrange(4)
        around = r.randrange(3)   # form 0: the sum alone, w * sum, sum + w
        # forms 0 (the sum alone) and 1: now and then sqrt(abs(...)) around the
        # sum, and abs around the term (math of floats: no effect, no panic);
        # chosen from the values drawn, so each seed's stream stays as it was
        root, absterm = (cols * 5 + srows) % 3 == 1, (cols + klo + srows) % 4 == 2
        # form 0 now and then reads s[k][min(j, 1000)] (the same element): accum
        # refuses that index, so comploop writes the comprehension and its
        # sum as loops instead
        clamp = (cols + srows + klo) % 3 == 2
        self.scope.append({j: ("int", False)})
        w = self.typed(self.expr("float", 1), "float") if r.random() < 0.5 else \
            Expr(f"float({j}) * 0.5", 12, lambda env: float(env.look(j)[2]) * 0.5, "float")
        self.scope.append({k: ("int", False)})
        # half the time a plain term, which the rewrite takes (a leaf, or j and k)
        x = self.typed(self.expr("float", 2), "float") if r.random() < 0.5 else \
            self.leaf("float") if r.random() < 0.5 else \
            Expr(f"float({j}) * 0.375 - float({k}) * 0.125", 12,
                 lambda env: float(env.look(j)[2]) * 0.375 - float(env.look(k)[2]) * 0.125, "float")
        self.scope.pop()
        self.scope.pop()
        self.use("sum-nest")
        cell = f"float({q}2 * 7 + {q}3) * 0.25"
        width = f"({cols - 1} if {q}2 == {short} else {cols})" if short is not None else f"{cols}"
        # the j range's end in a let: a literal one is unrolled first (opt_scalars.c)
        lines = [f"let {src}: [[float]] = [[{cell} for {q}3 in 0..{width}] for {q}2 in 0..{srows}]", f"let {m} = {cols}"]
        term = f"({x.text}) * {src}[{k}][{j}]"
        if clamp and form == 0:
            term = f"({x.text}) * {src}[{k}][min({j}, 1000)]"
        if absterm:
            term = f"abs({term})"
        root = root and (form == 1 or (form == 0 and around == 0))
        if form == 0:
            total = f"sum({term} for {k} in {klo}..{khi})"
            total = [total, f"({w.text}) * {total}", f"{total} + ({w.text})"][around]
            total = f"sqrt(abs({total}))" if root else total
            lines.append(f"let {v}: [float] = [{total} for {j} in 0..{m}]")
        elif form == 1:
            kept = f"sqrt(abs({acc}))" if root else acc
            lines += [f"var {v}: [float] = [0.0] * {cols}", f"for {j} in 0..{m}:", f"    var {acc} = {w.text}",
                      f"    for {k} in {klo}..{khi}:", f"        {acc} += {term}", f"    {v}[{j}] = {kept}"]
        elif form == 2:
            lines += [f"var {v}: [float] = [0.0] * {cols}", f"var {j} = 0", f"while {j} < {m}:",
                      f"    var {acc} = {w.text}", f"    var {k} = {klo}", f"    while {k} < {khi}:",
                      f"        {acc} += {term}", f"        {k} += 1", f"    {v}[{j}] = {acc}", f"    {j} += 1"]
        else:
            lines += [f"var {v}: [float] = [0.5] * {cols}", f"for {j} in 0..{m}:",
                      f"    for {k} in {klo}..{khi}:", f"        {v}[{j}] += {term}"]

        def term_at(env, jv, kv):
            inner = Env(env)
            inner.vars[j] = ["int", False, jv]
            inner.vars[k] = ["int", False, kv]
            val = x.ev(inner)
            if kv >= srows:
                raise Panic(f"index out of bounds: the len is {srows} but the index is {kv}")
            width = cols - 1 if kv == short else cols
            if jv >= width:
                raise Panic(f"index out of bounds: the len is {width} but the index is {jv}")
            t = val * (float(kv * 7 + jv) * 0.25)
            return abs(t) if absterm else t

        def w_at(env, jv):
            inner = Env(env)
            inner.vars[j] = ["int", False, jv]
            return w.ev(inner)

        def ex(env):
            out = []
            for jv in range(cols):
                if form == 3:
                    a = 0.5
                elif form == 0:
                    a = 0.0
                    pre = w_at(env, jv) if around == 1 else None
                else:
                    a = w_at(env, jv)
                for kv in range(klo, khi):
                    a = a + term_at(env, jv, kv)
                if form == 0 and around == 1:
                    a = pre * a
                elif form == 0 and around == 2:
                    a = a + w_at(env, jv)
                out.append(c_sqrt(abs(a)) if root else a)
            env.vars[v] = ["[float]", form != 0, out]
        self.scope[-1][v] = ("[float]", form != 0)
        return lines, ex

    def row_par(self):
        """Rows written on the pool (opt_parfor.c): a for loop over 80 rows i,
        or a comprehension of them, each element a float sum over k of a term
        x (any expression) times s[i][k]: enough rows and work that the loop
        splits at 2 and 7 threads. Now and then a row of s one short: the
        checked chunk panics there, and the lowest row's panic is reported,
        the one the loop meets in order."""
        r = self.r
        v, src, q, i, j, k, acc = (self.fresh(p) for p in ("v", "s", "q", "i", "j", "k", "a"))
        rows, cols, kn = 80, r.randint(1, 3), r.randint(1, 4)
        short = r.randrange(rows) if r.random() < 0.25 else None
        form = r.randrange(2)
        self.scope.append({i: ("int", False), j: ("int", False), k: ("int", False)})
        x = self.typed(self.expr("float", 1), "float") if r.random() < 0.5 else self.leaf("float")
        self.scope.pop()
        self.use("row-par")
        cell = f"float(({q}2 * 5 + {q}3) % 9) * 0.5"
        width = f"({kn - 1} if {q}2 == {short} else {kn})" if short is not None else f"{kn}"
        lines = [f"let {src}: [[float]] = [[{cell} for {q}3 in 0..{width}] for {q}2 in 0..{rows}]"]
        if form == 0:
            lines += [f"var {v}: [[float]] = [[0.0] * {cols} for {q}4 in 0..{rows}]", f"for {i} in 0..{rows}:",
                      f"    for {j} in 0..{cols}:", f"        var {acc} = 0.0",
                      f"        for {k} in 0..{kn}:", f"            {acc} += ({x.text}) * {src}[{i}][{k}]",
                      f"        {v}[{i}][{j}] = {acc}"]
        else:
            lines.append(f"let {v}: [[float]] = [[sum(({x.text}) * {src}[{i}][{k}] for {k} in 0..{kn}) "
                         f"for {j} in 0..{cols}] for {i} in 0..{rows}]")

        def ex(env):
            out = []
            for iv in range(rows):
                row = []
                for jv in range(cols):
                    a = 0.0
                    for kv in range(kn):
                        inner = Env(env)
                        inner.vars[i] = ["int", False, iv]
                        inner.vars[j] = ["int", False, jv]
                        inner.vars[k] = ["int", False, kv]
                        val = x.ev(inner)
                        width = kn - 1 if iv == short else kn
                        if kv >= width:
                            raise Panic(f"index out of bounds: the len is {width} but the index is {kv}")
                        a = a + val * (float((iv * 5 + kv) % 9) * 0.5)
                    row.append(a)
                out.append(row)
            env.vars[v] = ["[[float]]", form == 0, out]
        self.scope[-1][v] = ("[[float]]", form == 0)
        return lines, ex

    def fold_par(self):
        """A loop folding into accumulators on the pool (opt_parfor.c, folds):
        over 300 iterations i, an inner loop over j (work enough to split at 2
        and 7 threads) steps an int sum by a term of x (any int expression of
        i and j: its panics are the element panics), keeps an int max and ors
        a bool. Now and then the sum starts near an end of int, so it
        overflows at some step in order (often in a late chunk, or after a
        panic of x): the panic the loop meets first is the one reported."""
        r = self.r
        a, m, b, i, j = (self.fresh(p) for p in ("a", "m", "b", "i", "j"))
        n, jn = 300, r.randint(1, 3)
        start = r.choice([0, r.randint(-1000, 1000), I64[1] - r.randint(0, 400000), I64[0] + r.randint(1, 400000)])
        sub = r.random() < 0.3
        self.scope.append({i: ("int", False), j: ("int", False)})
        x = self.typed(self.expr("int", 1), "int") if r.random() < 0.7 else self.leaf("int")
        self.scope.pop()
        self.use("fold-par")
        lines = [f"var {a} = {start}", f"var {m} = -1", f"var {b} = false", f"for {i} in 0..{n}:",
                 f"    for {j} in 0..{jn}:", f"        {a} {'-=' if sub else '+='} ({x.text}) % 1000 + {i} * 3",
                 f"        {m} = max({m}, ({x.text}) % 50)", f"        {b} = ({x.text}) % 97 == 5 or {b}"]

        def tmod(v, d):
            return v - d * tdiv(v, d)

        def ex(env):
            av, mv, bv = start, -1, False
            for iv in range(n):
                for jv in range(jn):
                    inner = Env(env)
                    inner.vars[i] = ["int", False, iv]
                    inner.vars[j] = ["int", False, jv]
                    t = tmod(x.ev(inner), 1000) + iv * 3
                    av = chk("int", av - t, "subtraction") if sub else chk("int", av + t, "addition")
                    e = tmod(x.ev(inner), 50)
                    mv = e if e > mv else mv
                    bv = tmod(x.ev(inner), 97) == 5 or bv
            for v, val in ((a, av), (m, mv), (b, bv)):
                env.vars[v] = ["int" if v != b else "bool", True, val]
        for v in (a, m, b):
            self.scope[-1][v] = ("int" if v != b else "bool", True)
        return lines, ex

    def border_nest(self):
        """A stencil with its border in the element (opt_comploop.c writes the
        comprehension as loops, opt_split.c takes the tests of i out of the
        loop over j and runs the first and last j apart): a comprehension or
        for loops with an if, the border test spelled one of three ways, a
        float term x (any expression: evaluated in the interior only, after
        the four loads); now and then a row one short (the checked loop then
        panics at the same element); or (form 2, its own stream) a fresh zero
        grid whose border one loop over k stores and whose interior a nest
        stores (opt_cover.c makes it unset), now and then with the last
        column's store left out (its zeros stay)."""
        r = self.r
        v, src, q, i, j, n = (self.fresh(p) for p in ("v", "s", "q", "i", "j", "n"))
        size = r.randint(0, 5)
        short = r.randrange(size) if size and r.random() < 0.25 else None
        form = r.randrange(2)
        if form == 1 and self.covers.random() < 0.5:
            form = 2
            self.use("cover-grid")
        no_last = form == 2 and self.covers.random() < 0.25
        spell = r.randrange(3)
        x = self.typed(self.expr("float", 1), "float") if r.random() < 0.5 else self.leaf("float")
        self.use("border-nest")
        cell = f"float(({q}2 * 7 + {q}3 * 3) % 10) * 0.5"
        width = f"({size - 1} if {q}2 == {short} else {size})" if short is not None else f"{size}"
        border = [f"{i} == 0 or {j} == 0 or {i} == {n} - 1 or {j} == {n} - 1",
                  f"{j} < 1 or {i} < 1 or {j} > {n} - 2 or {i} > {n} - 2",
                  f"{i} == 0 or {i} == {n} - 1 or {j} <= 0 or {j} >= {n} - 1"][spell]
        inner = f"({src}[{i} - 1][{j}] + {src}[{i} + 1][{j}] + {src}[{i}][{j} - 1] + {src}[{i}][{j} + 1]) * ({x.text})"
        lines = [f"let {src}: [[float]] = [[{cell} for {q}3 in 0..{width}] for {q}2 in 0..{size}]", f"let {n} = len({src})"]
        if form == 0:
            lines.append(f"let {v}: [[float]] = [[{src}[{i}][{j}] if {border} else {inner} for {j} in 0..{n}] for {i} in 0..{n}]")
        elif form == 1:
            lines += [f"var {v}: [[float]] = [[0.0] * {n} for {i} in 0..{n}]", f"for {i} in 0..{n}:",
                      f"    for {j} in 0..{n}:", f"        if {border}:", f"            {v}[{i}][{j}] = {src}[{i}][{j}]",
                      f"        else:", f"            {v}[{i}][{j}] = {inner}"]
        else:
            k = self.fresh("k")
            lines += [f"var {v}: [[float]] = [[0.0] * {n} for {i} in 0..{n}]", f"for {k} in 0..{n}:",
                      f"    {v}[0][{k}] = {src}[0][{k}]", f"    {v}[{n} - 1][{k}] = {src}[{n} - 1][{k}]",
                      f"    {v}[{k}][0] = {src}[{k}][0]"]
            if not no_last:
                lines.append(f"    {v}[{k}][{n} - 1] = {src}[{k}][{n} - 1]")
            lines += [f"for {i} in 1..{n} - 1:", f"    for {j} in 1..{n} - 1:", f"        {v}[{i}][{j}] = {inner}"]
        grid = [[float((a * 7 + b * 3) % 10) * 0.5 for b in range(size - 1 if a == short else size)] for a in range(size)]

        def load(a, b):
            row = grid[a]
            if b >= len(row):
                raise Panic(f"index out of bounds: the len is {len(row)} but the index is {b}")
            return row[b]

        def ex_stored(env):
            # form 2 in its own order: the border loop, then the interior nest
            out = [[0.0] * size for a in range(size)]
            for k in range(size):
                out[0][k] = load(0, k)
                out[size - 1][k] = load(size - 1, k)
                out[k][0] = load(k, 0)
                if not no_last:
                    out[k][size - 1] = load(k, size - 1)
            for a in range(1, size - 1):
                for b in range(1, size - 1):
                    t = load(a - 1, b) + load(a + 1, b) + load(a, b - 1) + load(a, b + 1)
                    out[a][b] = t * x.ev(env)
            env.vars[v] = ["[[float]]", True, out]

        def ex(env):
            if form == 2:
                return ex_stored(env)
            out = []
            for a in range(size):
                row = []
                for b in range(size):
                    if a == 0 or b == 0 or a == size - 1 or b == size - 1:
                        row.append(load(a, b))
                    else:
                        t = load(a - 1, b) + load(a + 1, b) + load(a, b - 1) + load(a, b + 1)
                        row.append(t * x.ev(env))
                out.append(row)
            env.vars[v] = ["[[float]]", form != 0, out]
        self.scope[-1][v] = ("[[float]]", form != 0)
        return lines, ex

    def step_nest(self):
        """Steps over an array updated in place, `for s in 0..k: for i in 0..n:
        v[i + off] op= ...` (opt_loops.c tests the inner loop's guards once,
        before the outer loop: guards_outside), of ints or floats, the bound a
        literal, a let or len(v); now and then one past the end (the nest runs
        as written and panics at the first step's last index), no steps, an
        empty array."""
        r = self.r
        v, q, st, i, n = (self.fresh(p) for p in ("v", "q", "s", "i", "n"))
        size, steps, off = r.randint(0, 5), r.choice([0, 1, 2, 3, 4]), r.choice([0, 0, 1])
        past = r.random() < 0.2
        hi = max(size - off, 0) + (1 if past else 0)
        flt = r.random() < 0.5
        bound = r.randrange(3)
        self.use("step-nest")
        t = "[float]" if flt else "[int]"
        init = f"float(({q} * 7) % 10) * 0.5" if flt else f"({q} * 7) % 10"
        lines = [f"var {v}: {t} = [{init} for {q} in 0..{size}]"]
        if bound == 1:
            lines.append(f"let {n} = {hi}")
            hs = n
        elif bound == 2 and not past:
            hs = f"len({v}) - {off}" if off else f"len({v})"
        else:
            hs = str(hi)
        at = f"{i} + {off}" if off else i
        if flt:
            upd = f"{v}[{at}] = {v}[{at}] * 0.5 + float({st}) - {v}[{i}] * 0.25"
        else:
            upd = f"{v}[{at}] += {v}[{i}] % 3 + {st}"
        lines += [f"for {st} in 0..{steps}:", f"    for {i} in 0..{hs}:", f"        {upd}"]
        if bound == 2 and not past and off and size < off:
            hi = 0  # len(v) - off < 0: an empty range

        def ex(env):
            a = [float((k * 7) % 10) * 0.5 if flt else (k * 7) % 10 for k in range(size)]
            for s_ in range(steps):
                for k in range(hi):
                    # `v[i + off] += v[i] % 3 + s` reads v[i] first (the value
                    # before the target's index); the float form reads v[i + off] first
                    if not flt and k >= size:
                        raise Panic(f"index out of bounds: the len is {size} but the index is {k}")
                    if k + off >= size:
                        raise Panic(f"index out of bounds: the len is {size} but the index is {k + off}")
                    if flt:
                        a[k + off] = a[k + off] * 0.5 + float(s_) - a[k] * 0.25
                    else:
                        a[k + off] += a[k] % 3 + s_
            env.vars[v] = [t, True, a]
        self.scope[-1][v] = (t, True)
        return lines, ex

    def step_sum(self):
        """A float sum or product over range(lo, hi, step) whose term calls a
        math function (the lanes run it over the range's count, the term
        reading lo + k * step): a let before the term now and then, read
        once or twice (a helper's parameter written in place), an if
        choosing the term, hi a literal or a let; now and then a form the
        lanes refuse (a negative step, a negative lo), the same values."""
        r = self.r
        acc, k, x, m = (self.fresh(p) for p in ("a", "k", "x", "m"))
        name = r.choice(["sin", "cos", "exp", "log"])
        lo = r.choice([0, 1, 2, 3, 5, 9] + ([-4] if r.random() < 0.1 else []))
        step = r.choice([1, 2, 3, 4, 7, 32, 65] + ([-1, -3] if r.random() < 0.1 else []))
        n = r.choice([0, 1, 7, 8, 31, 32, 33, 64, 65, 129, r.randint(0, 400)])
        hi = lo + n if step > 0 else lo - n
        prod = r.random() < 0.3
        start = r.choice(["0.0", "-0.0", "1.5", "-2.25"])
        scale = r.choice(["0.01", "-0.03", "0.5", "1e-3"])
        let = r.random() < 0.4
        twice = let and r.random() < 0.5
        branch = r.random() < 0.3
        self.use("step-sum")
        arg = f"float({k}) * {scale}" if name != "log" else f"float({k}) * {scale} + 40.0"
        f = FLOAT_FN[name]
        lines = [f"let {m} = {hi}", f"var {acc} = {start}", f"for {k} in range({lo}, {m}, {step}):"]
        if let:
            lines.append(f"    let {x} = {arg}")
            arg = x
        term = f"{name}({arg}) * {x}" if twice else f"{name}({arg})"
        op = "*=" if prod else "+="
        if prod:
            term = f"(1.0 + {term} * 0.001)"
        if branch:
            lines += [f"    if {k} % 3 == 1:", f"        {acc} {op} {term}", "    else:", f"        {acc} {op} 2.0 * {term}"]
        else:
            lines.append(f"    {acc} {op} {term}")
        sc = float(scale)

        def ex(env):
            a = float(start)
            for kv in range(lo, hi, step):
                xv = float(kv) * sc
                if name == "log":
                    xv = xv + 40.0
                t = f(xv) * xv if twice else f(xv)
                if prod:
                    t = 1.0 + t * 0.001
                if branch and (abs(kv) % 3) * (1 if kv >= 0 else -1) != 1:   # % truncates, as C's
                    t = 2.0 * t
                a = a * t if prod else a + t
            env.vars[m] = ["int", False, hi]
            env.vars[acc] = ["float", True, a]
        self.scope[-1][m] = ("int", False)
        self.scope[-1][acc] = ("float", True)
        return lines, ex

    def new_stmt(self):
        """A statement of SPEC 13's forms, or None when none fits."""
        r = self.r
        c = r.randrange(7)
        if self.pure and c in (3, 5, 6):
            return None
        if c == 6:
            # o.unwrap() on an Option that may be None: its panic has a place
            ots = [x for x in self.newtypes if tparse(x)[0] == "opt" and not has_fn(x)]
            if not ots:
                return None
            ot = r.choice(ots)
            vs = [n for n, _ in self.visible(lambda v: v[0] == ot) if n not in self.none_lets]
            a = Expr(vs[0], 14, lambda env, n=vs[0]: env.look(n)[2], ot) if vs and r.random() < 0.6 else self.typed(self.expr(ot, 2), ot)
            if a.text in self.none_lets:
                return None
            mid, mk = self.mark()
            ea, it = a.ev, tparse(ot)[1]

            def ex(env):
                o = ea(env)
                if o is None:
                    raise Panic("called unwrap on None", at=mid)
                env_out(env).append(show(it, o.v) + "\n")
            return [f"print({mk}{self.recv(a)}.unwrap())"], ex
        if c == 0:
            # let (a, b) = e / var (a, b) = e
            tts = [x for x in self.newtypes if tparse(x)[0] == "tup"]
            if not tts:
                return None
            t = r.choice(tts)
            e = self.typed(self.expr(t, 2), t)
            fts = tparse(t)[1]
            mutable = r.random() < 0.5
            names = [self.fresh() for _ in fts]
            for n, ft in zip(names, fts):
                self.scope[-1][n] = (ft, mutable)
            ee = e.ev

            def ex(env):
                v = ee(env)
                for n, ft, x in zip(names, fts, v):
                    env.vars[n] = [ft, mutable, copyv(x)]
            return [f"{'var' if mutable else 'let'} ({', '.join(names)}) = {e.text}"], ex
        if c == 1:
            # (x, y) = (e1, e2), the right side in full first; often a swap
            vs = self.visible(lambda v: v[1])
            if len(vs) < 2:
                return None
            (x, (tx, _)), (y, (ty, _)) = r.sample(vs, 2)
            if tx == ty and r.random() < 0.5:
                rhs = [Expr(y, 14, lambda env: env.look(y)[2], ty), Expr(x, 14, lambda env: env.look(x)[2], tx)]
            else:
                rhs = [self.expr(tx, 2), self.expr(ty, 2)]
            evs = [e.ev for e in rhs]

            def ex(env):
                vals = [copyv(f(env)) for f in evs]
                env.look(x)[2] = vals[0]
                env.look(y)[2] = vals[1]
            return [f"({x}, {y}) = ({rhs[0].text}, {rhs[1].text})"], ex
        if c == 2:
            # s.f = v, s.f += v, xs[i].f = v on vars (SPEC 13): value semantics
            cands = [(n, vt, False) for n, (vt, m) in self.visible(lambda v: v[1] and tparse(v[0])[0] == "struct")]
            cands += [(n, elem(vt), True) for n, (vt, m) in self.visible(lambda v: v[1] and is_arr(v[0]) and tparse(elem(v[0]))[0] == "struct")]
            if not cands:
                if not STRUCTS:
                    return None
                # a var to change later: a struct or an array of them
                st = r.choice(list(STRUCTS))
                return self.let_stmt(mutable=True, t=st if r.random() < 0.6 else "[" + st + "]")
            name, st, inarr = r.choice(cands)
            i = r.randrange(len(STRUCTS[st]))
            fname, ft = STRUCTS[st][i]
            # the index a literal or, now and then, an int let or loop variable
            # (xs[i].f = v in a loop: its guard proves i, opt_loops.c)
            ints = [n for n, _ in self.visible(lambda v: v[0] == "int" and not v[1])]
            k = r.choice(ints) if inarr and ints and r.random() < 0.4 else r.choice([0, 0, 1, 2, -1])
            op = r.choice(["+", "-"]) if ft in ("int", "float") and r.random() < 0.4 else ""
            e = self.expr(ft, 2)
            ee = e.ev

            def ex(env):
                v = copyv(ee(env))
                s = env.look(name)[2]
                if inarr:
                    k_at = env.look(k)[2] if isinstance(k, str) else k
                    if not 0 <= k_at < len(s):
                        raise Panic(f"index out of bounds: the len is {len(s)} but the index is {k_at}")
                    s = s[k_at]
                if op == "+":
                    v = chk(ft, s.f[i] + v, "addition") if ft == "int" else s.f[i] + v
                elif op == "-":
                    v = chk(ft, s.f[i] - v, "subtraction") if ft == "int" else s.f[i] - v
                s.f[i] = v
            self.use("struct")
            tgt = f"{name}[{k}].{fname}" if inarr else f"{name}.{fname}"
            return [f"{tgt} {op}= {e.text}"], ex
        if c == 3:
            # a lambda captures a var, the var changes, the lambda still sees the old value
            vs = self.visible(lambda v: v[1] and v[0] in ("int", "float", "str"))
            if not vs:
                return None
            v, (vt, _) = r.choice(vs)
            fts = [x for x in self.newtypes if tparse(x)[0] == "fn" and tparse(x)[2] == vt]
            ft = r.choice(fts) if fts else f"fn(int) -> {vt}"
            g = self.fresh("g")
            lam = self.lambda_expr(ft, 2, use=v)
            self.scope[-1][g] = (ft, False)
            nv = self.expr(vt, 2)
            args = [self.typed(self.expr(pt, 1), pt) for pt in tparse(ft)[1]]
            le, ne, aes = lam.ev, nv.ev, [a.ev for a in args]

            def ex(env):
                env.vars[g] = [ft, False, le(env)]
                env.look(v)[2] = ne(env)
                out = show(vt, env.vars[g][2]([copyv(a(env)) for a in aes]))
                env_out(env).append(out + " " + show(vt, env.look(v)[2]) + "\n")
            return [f"let {g}: {ft} = {lam.text}", f"{v} = {nv.text}",
                    f"print({g}(" + ", ".join(a.text for a in args) + f"), {v})"], ex
        if c == 4:
            # xs.sort(): stable, by each field's array order
            vs = self.visible(lambda v: v[1] and is_arr(v[0]) and ordered(elem(v[0])))
            if not vs:
                return None
            name, (t, _) = r.choice(vs)
            et = elem(t)

            def ex(env):
                env.look(name)[2].sort(key=lambda v: sort_key(et, v))
            self.use("array-method")
            return [f"{name}.sort()"], ex
        # an array of functions called by a run-time index
        fts = [x for x in self.newtypes if tparse(x)[0] == "fn"]
        if not fts:
            return None
        ft = r.choice(fts)
        fs = self.fresh()
        items = [self.expr(ft, 2) for _ in range(r.randint(1, 4))]
        arr = self.arr_lit("[" + ft + "]", items)
        self.scope[-1][fs] = ("[" + ft + "]", True)
        k = self.fresh("k")
        n = r.randint(1, 5)
        self.scope.append({k: ("int", False)})
        call = self.extra(tparse(ft)[2], 2) if r.random() < 0.5 else None
        self.scope.pop()
        rt = tparse(ft)[2]
        if call is None or has_fn(rt):
            args = [self.typed(self.expr(pt, 1), pt) for pt in tparse(ft)[1]]
            call = Expr(f"{fs}[{k} % len({fs})](" + ", ".join(a.text for a in args) + ")", 13,
                        lambda env: env.look(fs)[2][env.look(k)[2] % len(env.look(fs)[2])]([copyv(a.ev(env)) for a in args]), rt)
        ae, ce = arr.ev, call.ev
        pr = not has_fn(rt)

        def ex(env):
            env.vars[fs] = ["[" + ft + "]", True, ae(env)]
            for x in range(n):
                sub = Env(env)
                sub.vars[k] = ["int", False, x]
                v = ce(sub)
                if pr:
                    env_out(env).append(show(rt, v) + "\n")
        body = f"    print({call.text})" if pr else f"    {fs}.push({fs}[{k} % len({fs})])"
        if not pr:
            def ex(env):
                env.vars[fs] = ["[" + ft + "]", True, ae(env)]
                for x in range(n):
                    xs = env.look(fs)[2]
                    xs.append(xs[x % len(xs)])
        return [f"var {fs}: [{ft}] = {arr.text}", f"for {k} in 0..{n}:", body], ex

    def print_stmt(self):
        r = self.r
        if self.pure:
            return self.let_stmt()
        es = []
        for _ in range(r.randint(0, 3)):
            t = r.choice(SCALARS + ("int", "float", "str", "[int]", "[float]", "[str]", "[[int]]", "[u64]"))
            t = self.pick_new(lambda x: not has_fn(x), 0.4) or t
            es.append(self.typed(self.expr(t, r.randint(1, 4)), t))

        def ex(env):
            vals = [show(e.t, e.ev(env)) for e in es]
            env_out(env).append(" ".join(vals) + "\n")
        return [f"print({', '.join(e.text for e in es)})"], ex

    def let_stmt(self, mutable=None, t=None):
        r = self.r
        if mutable is None:
            mutable = r.random() < 0.5
        if t is None:
            t = r.choice(SCALARS + ("int", "float", "[int]", "[float]", "[str]", "[u64]", "[[int]]"))
            t = self.pick_new(lambda x: True, 0.4) or t
        name = self.fresh()
        e = self.expr(t, r.randint(1, 4))
        annot = e.lit and t in ("u64", "i128") or e.untyped or r.random() < 0.3
        if e.text == "None" and not mutable:
            self.none_lets.add(name)
        if is_arr(t) and r.random() < 0.1:
            e = Expr("[]", 14, lambda env: [], t)
            annot = True
        self.scope[-1][name] = (t, mutable)
        ee = e.ev

        def ex(env):
            env.vars[name] = [t, mutable, copyv(ee(env))]
        kw = "var" if mutable else "let"
        return [f"{kw} {name}{': ' + t if annot else ''} = {e.text}"], ex

    def assign_stmt(self, target):
        r = self.r
        name, (t, _) = target
        if t in INTS and r.random() < 0.6:
            op = r.choice(["+", "-", "*", "/", "%", "&", "|", "^"])
            e = self.expr(t, 2)
            ee = e.ev

            def ex(env):
                v = ee(env)
                cell = env.look(name)
                x = cell[2]
                if op == "+":
                    x = chk(t, x + v, "addition")
                elif op == "-":
                    x = chk(t, x - v, "subtraction")
                elif op == "*":
                    x = chk(t, x * v, "multiplication")
                elif op in "/%":
                    if v == 0:
                        raise Panic("division by zero")
                    q = tdiv(x, v)
                    x = chk(t, q, "division") if op == "/" else x - v * q
                elif op == "&":
                    x &= v
                elif op == "|":
                    x |= v
                else:
                    x ^= v
                cell[2] = x
            return [f"{name} {op}= {e.text}"], ex
        if t == "float" and r.random() < 0.5:
            op = r.choice(["+", "-", "*", "/"])
            e = self.expr(t, 2)
            fn = {"+": lambda x, y: x + y, "-": lambda x, y: x - y, "*": f_mul, "/": f_div}[op]

            def ex(env):
                v = e.ev(env)
                cell = env.look(name)
                cell[2] = fn(cell[2], v)
            return [f"{name} {op}= {e.text}"], ex
        if t == "str" and r.random() < 0.5:
            e = self.expr(t, 2)

            def ex(env):
                v = e.ev(env)
                cell = env.look(name)
                cell[2] = cell[2] + v
            return [f"{name} += {e.text}"], ex
        e = self.expr(t, 3)

        def ex(env):
            v = copyv(e.ev(env))
            env.look(name)[2] = v
        return [f"{name} = {e.text}"], ex

    FIELD_NAMES = ["lo", "hi", "n", "name", "ok", "xs", "pt", "tag", "val", "f"]

    def declare_types(self):
        """This program's SPEC 13 types: a few structs and tuples, Options, fn types."""
        r = self.r
        lines = []
        base = ["int", "float", "str", "bool", "u64"]
        fnts = r.sample(["fn(int) -> int", "fn(float) -> float", "fn(int, int) -> int",
                         "fn(float, int) -> float", "fn() -> int", "fn(int) -> str"], r.randint(0, 3))
        tups = []
        for _ in range(r.randint(1, 3)):
            n = r.choice([2, 2, 3])
            tups.append("(" + ", ".join(r.choice(base + ["float", "int", "str"] + tups[:1]) for _ in range(n)) + ")")
        for si in range(r.randint(0, 2)):
            name = f"S{NAME_PREFIX[0]}{si + 1}"
            pool = base + ["[int]", "Option[int]"] + tups[:1] + [f"S{NAME_PREFIX[0]}{j + 1}" for j in range(si)] + fnts[:1]
            fs = [(fn, r.choice(pool)) for fn in r.sample(self.FIELD_NAMES, r.randint(1, 3))]
            STRUCTS[name] = fs
            lines += [f"struct {name}:"] + [f"    {fn}: {ft}" for fn, ft in fs] + [""]
        opts = [f"Option[{x}]" for x in r.sample(["int", "float", "str"] + tups[:1] + list(STRUCTS)[:1], 2)]
        if "Option[int]" not in opts and r.random() < 0.5:
            opts.append("Option[int]")
        aggs = tups + list(STRUCTS) + opts
        arrs = ["[" + x + "]" for x in r.sample(aggs + fnts, min(3, len(aggs + fnts)))]
        self.newtypes = list(dict.fromkeys(aggs + fnts + arrs + [f for _, fs in STRUCTS.items() for _, f in fs if has_fn(f)]))
        return lines

    def pick_new(self, pred, p):
        """Now and then (probability p) one of this program's SPEC 13 types."""
        ts = [x for x in self.newtypes if pred(x)]
        if ts and self.r.random() < p:
            return self.r.choice(ts)
        return None

    def function(self, sig=None):
        r = self.r
        name = self.fresh("f")
        if sig is not None:
            _, pts, ret = tparse(sig)
            params = [(self.fresh("p"), pt) for pt in pts]
            self.pure += 1   # a function value may be called anywhere, par elements too
        else:
            params = [(self.fresh("p"), self.pick_new(lambda x: True, 0.3) or r.choice(SCALARS + ("[int]", "[float]")))
                      for _ in range(r.randint(0, 3))]
            ret = self.pick_new(lambda x: True, 0.3) or r.choice(("int", "float", "str", "bool", "u64", "i128", "[int]"))
        lit = sig is None and r.random() < 0.2
        if lit:
            ret = r.choice(("[int]", "[float]"))
        self.scope = [dict(self.consts), {p: (t, False) for p, t in params}]
        body, bex = self.block(1, False, ret)
        self.fuel = 40
        if lit:
            # `return [E0, E1]`: read by callers only at literal indices, a
            # copy returns the elements as a tuple (opt_scalars.c)
            k = r.randint(2, 3)
            es = [self.typed(self.expr(elem(ret), 2), elem(ret)) for _ in range(k)]
            e = Expr("[" + ", ".join(x.text for x in es) + "]", 14, lambda env, es=es: [copyv(x.ev(env)) for x in es], ret)
            if not any("return" in l for l in body):
                self.lit_ret[name] = k
        else:
            e = self.expr(ret, 3)
        self.scope = []
        lines = [f"fn {name}(" + ", ".join(f"{p}: {t}" for p, t in params) + f") -> {ret}:"] + body + [f"    return {e.text}"]
        if sig is not None:
            self.pure -= 1
        text = "\n".join(lines)
        if "print(" in text or "world." in text or set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", text)) & self.impure:
            self.impure.add(name)

        def run(env):
            try:
                bex(env)
            except Return as rv:
                return rv.v
            return copyv(e.ev(Env(env)))
        self.funcs[name] = (params, ret, run)
        return lines


def env_out(env):
    while env.parent is not None:
        env = env.parent
    return env.out


DEPTH = [0]


def run_func(funcs, name, vals):
    params, ret, run = funcs[name]
    DEPTH[0] += 1
    try:
        env = Env(GLOBAL[0])
        for (p, t), v in zip(params, vals):
            env.vars[p] = [t, False, v]
        return run(env)
    finally:
        DEPTH[0] -= 1


GLOBAL = [None]


def reduce_model(red, t, is_par, thunks):
    if red in ("any", "all"):
        for th in thunks:
            k, v = th()
            if not k:
                continue
            if red == "any" and v:
                return True
            if red == "all" and not v:
                return False
        return red == "all"
    if not is_par:
        acc = None
        if red in ("sum", "product"):
            acc = START[red][t]
        for th in thunks:
            k, v = th()
            if not k:
                continue
            acc = v if acc is None else combine(red, t, acc, v)
        if acc is None:
            raise Panic(f"{red} of an empty sequence")
        return acc
    n = len(thunks)
    nleaves = (n + 15) // 16

    def leaf(j):
        acc = START[red][t] if red in ("sum", "product") else None
        has = False
        for th in thunks[16 * j:16 * j + 16]:
            k, v = th()
            if not k:
                continue
            has = True
            acc = v if acc is None else combine(red, t, acc, v)
        return acc if has else None

    def node(k, j):
        if k == 0:
            return leaf(j)
        left = node(k - 1, 2 * j)
        if (2 * j + 1) << (k - 1) >= nleaves:
            return left
        right = node(k - 1, 2 * j + 1)
        if left is None:
            return right
        if right is None:
            return left
        return combine(red, t, left, right)
    res = None
    if nleaves:
        top = 0
        while (1 << top) < nleaves:
            top += 1
        res = node(top, 0)
    if res is None:
        if red in ("sum", "product"):
            return START[red][t]
        raise Panic(f"{red} of an empty sequence")
    return res


USED = {}   # seed -> the form families its program drew


def fold_model(op, start, is_par, thunks):
    """reduce(f, start, gen) (SPEC 15): the left fold, or the tree with f."""
    if not is_par:
        acc = start
        for th in thunks:
            k, v = th()
            if k:
                acc = op(acc, v)
        return acc
    nleaves = (len(thunks) + 15) // 16

    def node(k, j):
        if k == 0:
            acc, has = start, False
            for th in thunks[16 * j:16 * j + 16]:
                kept, v = th()
                if kept:
                    acc, has = op(acc, v), True
            return (True, acc) if has else (False, None)
        left = node(k - 1, 2 * j)
        if (2 * j + 1) << (k - 1) >= nleaves:
            return left
        right = node(k - 1, 2 * j + 1)
        if not left[0]:
            return right
        if not right[0]:
            return left
        return True, op(left[1], right[1])
    if not nleaves:
        return start
    top = 0
    while (1 << top) < nleaves:
        top += 1
    has, v = node(top, 0)
    return v if has else start


def scan_model(red, t, is_par, thunks, user=None):
    """scan sum/min/max (SPEC 15): the nodes in post-order, the carries for
    each leaf ascending, then the entries. user: (f, start) of scan(f,
    start, gen)."""
    def op(a, b):
        return user[0](a, b) if user else combine(red, t, a, b)
    start = user[1] if user else START["sum"][t] if red == "sum" else None
    if not is_par:
        out, acc = [], start
        for th in thunks:
            k, v = th()
            if k:
                acc = v if acc is None else op(acc, v)
                out.append(acc)
        return out
    n = len(thunks)
    nl = (n + 15) // 16
    vals = [None] * n
    lev = {}

    def node(k, j):
        if k == 0:
            acc, has = start, False
            for i in range(16 * j, min(16 * j + 16, n)):
                kept, v = thunks[i]()
                vals[i] = (kept, v)
                if kept:
                    acc, has = (v if acc is None else op(acc, v)), True
            res = (True, acc) if has else (False, None)
        else:
            left = node(k - 1, 2 * j)
            if (2 * j + 1) << (k - 1) >= nl:
                res = left
            else:
                right = node(k - 1, 2 * j + 1)
                res = right if not left[0] else left if not right[0] else (True, op(left[1], right[1]))
        lev[(k, j)] = res
        return res
    if nl:
        top = 0
        while (1 << top) < nl:
            top += 1
        node(top, 0)
    carries = []
    for leaf in range(nl):
        has, acc = start is not None, start
        p = 0
        for bit in range(62, -1, -1):
            if (leaf >> bit) & 1:
                nh, nv = lev[(bit, p >> bit)]
                if nh:
                    acc, has = (nv if not has else op(acc, nv)), True
                p += 1 << bit
        carries.append((has, acc))
    out = []
    for leaf in range(nl):
        has, acc = carries[leaf]
        for i in range(16 * leaf, min(16 * leaf + 16, n)):
            kept, v = vals[i]
            if kept:
                acc, has = (v if not has else op(acc, v)), True
                out.append(acc)
    return out


def generate(seed):
    """(program text, expected stdout, expected panic message or None)."""
    g = Gen(seed)
    Env.steps = 0
    root = Env()
    root.out = []
    GLOBAL[0] = root
    lines = []
    STRUCTS.clear()
    decls = g.declare_types() if g.r.random() < 0.75 else []
    newtypes, g.newtypes = g.newtypes, []   # constants and the fn types' functions: no new forms
    for _ in range(g.r.randint(0, 2)):
        # a top-level constant (SPEC 2), visible in functions and main
        t = g.r.choice(("int", "float", "str", "u64", "[int]"))
        g.scope = [dict(g.consts)]
        g.fuel = 30
        e = g.expr(t, 3)
        Env.steps = 0
        try:
            v = copyv(e.ev(root))
        except (Panic, RecursionError, TooBig):
            continue
        name = g.fresh("C")
        root.vars[name] = [t, False, v]
        g.consts[name] = (t, False)
        annot = e.lit and t in ("u64", "i128") or g.r.random() < 0.3
        lines.append(f"let {name}{': ' + t if annot else ''} = {e.text}")
    if lines:
        lines.append("")
    for ft in [x for x in newtypes if tparse(x)[0] == "fn"]:
        lines += g.function(ft) + [""]    # every fn type has a function value (typed() needs one)
    g.newtypes = newtypes
    lines = decls + lines
    for _ in range(g.r.randint(0, 2)):
        lines += g.small_function() + [""]
    for _ in range(g.r.randint(0, 3)):
        lines += g.function() + [""]
    g.scope = [dict(g.consts), {}]
    body = []
    panic = None
    panic_at = None
    tries = 0
    n = g.r.randint(4, 14)
    while len(body) < n and tries < 60:
        tries += 1
        saved_scope = {k: v for k, v in g.scope[-1].items()}
        Env.steps = 0
        try:
            saved_vars = {k: [c[0], c[1], copyv(c[2])] for k, c in root.vars.items()}
        except TooBig:
            break
        saved_out = len(root.out)
        saved_used = set(g.used)
        saved_top = len(g.top)
        ls, ex = g.stmt(2, False)
        Env.steps = 0
        try:
            ex(root)
        except Panic as p:
            if g.r.random() < (0.5 if p.at else 0.15):
                body.append(ls)
                panic = str(p)
                panic_at = p.at
                break
            g.scope[-1] = saved_scope
            root.vars = saved_vars
            del root.out[saved_out:]
            g.used = saved_used
            del g.top[saved_top:]
            continue
        except (RecursionError, TooBig):
            g.scope[-1] = saved_scope
            root.vars = saved_vars
            del root.out[saved_out:]
            g.used = saved_used
            del g.top[saved_top:]
            continue
        body.append(ls)
    lines = [f"import {m}" for m in sorted(g.imports)] + ([""] if g.imports else []) + lines
    lines += g.top
    lines.append("fn main():")
    for ls in body:
        lines.extend("    " + l for l in ls)
    if not body:
        lines.append("    pass")
    # place markers out of the text, each noted as line:column (bytes, SPEC 7)
    places = {}
    clean = []
    for ln, line in enumerate(lines, 1):
        out = ""
        for part in re.split(r"(\x01\d+\x02)", line):
            if part.startswith("\x01"):
                places[int(part[1:-1])] = f"{ln}:{len(out.encode()) + 1}"
            else:
                out += part
        clean.append(out)
    place = places.get(panic_at) if panic_at is not None else None
    USED[seed] = sorted(g.used)
    return "\n".join(clean) + "\n", "".join(root.out), panic, place


# ---- reductions by key (SPEC 15) --------------------------------------------------

BY_KEY_RESULT = {"[int]": ("int", ["sum", "product"]), "[float]": ("float", ["sum", "product"]),
                 "[u64]": ("u64", ["sum"]), "[i128]": ("i128", ["sum", "product"]), "[bool]": ("bool", ["any", "all"]),
                 "[Option[int]]": ("int", ["min", "max"]), "[Option[float]]": ("float", ["min", "max"]),
                 "[Option[str]]": ("str", ["min", "max"]), "[str]": ("str", ["wrap"])}
# "wrap": reduce(lambda a, b: "(" + a + b + ")", "", GEN by ...), text whose
# parentheses show each key's tree (values holding references, SPEC 15)
WRAP_TEXT = 'reduce(lambda a, b: "(" + a + b + ")", "", '


def wrap_op(a, b):
    return "(" + a + b + ")"


def by_key_expr(g, t, d, is_par=None):
    """`[par] RED(GEN by KEY in 0..N)`, the one form of reductions by key: N
    results, entry j the reduction of the elements whose KEY is j (min/max:
    Options). GEN is either `EXPR for i in LO..HI [if COND]` with a linear KEY
    that may leave 0..N (N may be 0), or any generator (Gen.generator: several
    clauses, arrays, patterns, function values in elements) with KEY an int
    expression of its variables brought into the range (now and then shifted
    out of it). Each element: the filter, then the key (outside 0..N: a panic
    at the `by`), then the value. Sequential: the elements in order, each
    folded into its key's result; par: every element first (the lowest
    index's panic), then each key's tree over all the places (SPEC 5.2, 5.3),
    keys ascending."""
    r = g.r
    if t in ("[int]", "[float]", "[str]") and r.random() < 0.4:
        # min/max by key, each None replaced: [o.unwrap_or(D) for o in ...]
        inner = by_key_expr(g, "[Option[%s]]" % elem(t), d, is_par)
        dflt = g.leaf(elem(t))
        o = g.fresh("k")
        return Expr(f"[{o}.unwrap_or({dflt.text}) for {o} in {inner.text}]", 14,
                    lambda env: [dflt.ev(env) if x is None else x.v for x in inner.ev(env)], t)
    if t not in BY_KEY_RESULT:
        return None
    et, reds = BY_KEY_RESULT[t]
    red = r.choice(reds)
    if is_par is None:
        is_par = r.random() < 0.7
    nk = r.choice([1, 2, 3, 4, 7, 16, 40]) if r.random() < 0.97 else 0
    g.use("by-key")
    if is_par:
        g.use("par")
    start = "" if red == "wrap" else START.get(red, {}).get(et, red == "all")
    head = WRAP_TEXT if red == "wrap" else red + "("
    if nk and r.random() < 0.5:
        spill = r.choice([1, 2]) if r.random() < 0.1 else 0
        gtext, each, weak = g.generator(et, d, is_par, key_n=nk, key_spill=spill)

        def gen_elements(env):
            """Each element's (kept, key, value) in order."""
            out = []
            for th in each(env):
                kept, kv = th()
                if not kept:
                    out.append((False, None, None))
                    continue
                val = copyv(kv[1])
                out.append((True, kv[0], val))
            return out
        return Expr(("par " if is_par else "") + f"{head}{gtext})", 14,
                    lambda env: by_key_model(red, et, is_par, nk, start, gen_elements, env), t, weak=weak)
    lo = r.randint(0, 6)
    n = r.choice([0, 1, 5, 16, 17, 33, r.randint(0, 70)])
    v = g.fresh("i")
    a, b = r.randint(1, 5), r.randint(0, 9)
    # now and then a key that leaves 0..N (a panic)
    m = nk + (r.choice([1, 2]) if r.random() < 0.1 else 0)
    ktext, kf = (f"({v} * {a} + {b}) % {m}", lambda x: (x * a + b) % m) if m else ("0", lambda x: 0)
    g.scope.append({v: ("int", False)})
    g.pure += 1
    g.in_par += is_par
    e = g.typed(g.expr(et, d - 1), et)
    cond = g.expr("bool", d - 2) if r.random() < 0.4 else None
    g.in_par -= is_par
    g.pure -= 1
    g.scope.pop()
    mid, mark = g.mark()
    text = (("par " if is_par else "") + f"{head}{e.text} for {v} in {lo}..{lo + n}"
            + (f" if {par(cond, 2)}" if cond else "") + f" {mark}by {ktext} in 0..{nk})")

    def elements(env):
        """Each element's (kept, key, value) in order."""
        out = []
        for x in range(lo, lo + n):
            sub = Env(env)
            sub.vars[v] = ["int", False, x]
            if cond is not None and not cond.ev(sub):
                out.append((False, None, None))
                continue
            k = kf(x)
            if not 0 <= k < nk:
                raise Panic(f"key {k} out of range 0..{nk}", mid)
            val = copyv(e.ev(sub))
            out.append((True, k, val))
        return out

    return Expr(text, 14, lambda env: by_key_model(red, et, is_par, nk, start, elements, env), t)


def by_key_model(red, et, is_par, nk, start, elements, env):
    """The N results of a reduction by key whose elements(env) gives
    each element's (kept, key, value) in order. Every element first (an
    element's panic, a key out of range included, at the lowest index wins
    over any combine's), then the combines: sequential, each key's left fold
    in index order; par, each key's tree."""
    if not is_par:
        acc = [None] * max(nk, 0)

        def fold(k, val):
            if red == "wrap":
                acc[k] = wrap_op(start if acc[k] is None else acc[k], val)
            elif red in ("any", "all"):
                acc[k] = (val if acc[k] is None else (acc[k] or val if red == "any" else acc[k] and val))
            else:
                acc[k] = val if acc[k] is None and red in ("min", "max") else combine(
                    red, et, start if acc[k] is None else acc[k], val)
        for kept, k, val in elements(env):
            if kept:
                fold(k, val)
    else:
        els = elements(env)
        acc = []
        for j in range(max(nk, 0)):
            th = [(lambda kept=kept, k=k, val=val: (kept and k == j, val)) for kept, k, val in els]
            if red in ("min", "max") and not any(kept and k == j for kept, k, _ in els):
                acc.append(None)
            elif red == "wrap":
                acc.append(fold_model(wrap_op, start, True, th))
            else:
                acc.append(reduce_model(red, et, True, th))
    if red in ("min", "max"):
        return [None if x is None else Opt(x) for x in acc]
    return [start if x is None else x for x in acc]


FORM_HOOKS["expr"].append((0.05, by_key_expr))


def by_key_big_expr(g, t, d):
    """`[par] RED(VAL for i in LO..LO+N [if i % Q != S] by KEY in 0..NK)` of
    ints or u64 with up to 70000 elements (several of the runtime's tasks at
    7 threads: the order-free way, runtime/keyfree.c): VAL is now and then
    a big value (up to 2^63 - 1) of either sign, so that a key's sum
    overflows in its tree, or only the guard (the sum of |v| over all the
    elements) does and the ordered way answers, or nothing does; KEY now
    and then leaves 0..NK (a panic at the `by`). The model folds each key
    over the tree of its own leaves (SPEC 5.2; keys ascending after every
    element), or left to right in index order (sequential); every key is
    checked before any combine (an element's panic comes first)."""
    kinds = {"[int]": ("int", ["sum"]), "[u64]": ("u64", ["sum"]), "[Option[int]]": ("int", ["min", "max"])}
    if t not in kinds or not g.big_ok():
        return None
    r = g.r
    et, reds = kinds[t]
    red = r.choice(reds)
    is_par = r.random() < 0.7
    g.use("by-key-big")
    if is_par:
        g.use("par")
    n = r.choice([0, 17, 100, 3000, 20000, 40000, 70000])
    lo = r.randint(0, 3)
    nk = r.choice([0, 1, 2, 5, 16, 64, 1000]) if r.random() < 0.97 else 0
    big = r.choice([1 << 40, 1 << 58, 1 << 61, 1 << 62, 3 << 61, (1 << 63) - 1] + ([1 << 63, (1 << 64) - 1] if et == "u64" else []))
    p1, r1 = r.choice([2, 3, 7, 1000, 9973]), r.randint(0, 1)
    p2, r2 = r.choice([2, 5, 1001, 7919]), r.randint(0, 1)
    c, e, f = r.randint(1, 9999), r.randint(1, 500), r.randint(0, 250) if et == "int" else 0
    v = g.fresh("i")
    if et == "int":
        vtext = f"{big} if {v} % {p1} == {r1} else -{big} if {v} % {p2} == {r2} else {v} * {c} % {e} - {f}"

        def val(x):
            return big if x % p1 == r1 else -big if x % p2 == r2 else x * c % e - f
    else:
        vtext = f"u64({big}) if {v} % {p1} == {r1} else u64({v} * {c} % {e})"

        def val(x):
            return big if x % p1 == r1 else x * c % e
    q, s0 = r.choice([0, 0, 2, 3]), r.randint(0, 1)
    ka, kb, blk = r.randint(1, 99), r.randint(0, 9), r.choice([1, 1, 16, 100])
    m = nk + (r.choice([1, 2]) if r.random() < 0.1 else 0)
    ktext = f"({v} / {blk} * {ka} + {kb}) % {m}" if m else "0"
    mid, mark = g.mark()
    text = (("par " if is_par else "") + f"{red}({vtext} for {v} in {lo}..{lo + n}"
            + (f" if {v} % {q} != {s0}" if q else "") + f" {mark}by {ktext} in 0..{nk})")

    def model(env):
        keys = {}
        acc = {}
        for x in range(lo, lo + n):
            if q and x % q == s0:
                continue
            k = (x // blk * ka + kb) % m if m else 0
            if not 0 <= k < nk:
                raise Panic(f"key {k} out of range 0..{nk}", mid)
            keys.setdefault(k, []).append((x - lo, val(x)))
        # every key checked first (its panic, at the lowest index, wins over
        # any combine's), then each key's tree (par) or left fold (sequential)
        for k in sorted(keys):
            if is_par:
                acc[k] = key_tree(red, et, keys[k])
                continue
            for _, y in keys[k]:
                acc[k] = y if k not in acc and red != "sum" else combine(red, et, acc.get(k, 0), y)
        if red == "sum":
            return [acc.get(k, 0) for k in range(nk)]
        return [Opt(acc[k]) if k in acc else None for k in range(nk)]
    return Expr(text, 14, model, t)


def key_tree(red, et, items):
    """One key's value over the tree of SPEC 5.2: items (place, value) in
    place order; each leaf of 16 places folds from the start (min/max: its
    first value), nodes combine left . right, a node without a value lets
    the other through."""
    leaves = {}
    for at, x in items:
        lf = at // 16
        leaves[lf] = x if lf not in leaves and red != "sum" else combine(red, et, leaves.get(lf, 0), x)
    level = sorted(leaves.items())
    while len(level) > 1:
        up = {}
        for j, x in level:
            up[j // 2] = combine(red, et, up[j // 2], x) if j // 2 in up else x
        level = sorted(up.items())
    return level[0][1]


FORM_HOOKS["expr"].append((0.03, by_key_big_expr))


# ---- SPEC 11 and 14: the rest of the math functions; assert and panic ----------

def c_math(name):
    """Brine's NAME(x): libm's, as Python's math calls it, with C's results
    where Python raises (a domain error: nan, or -inf at a pole; overflow: inf)."""
    f = getattr(math, name)

    def g(x):
        if math.isnan(x):
            return math.nan
        try:
            return f(x)
        except OverflowError:
            return math.copysign(math.inf, x) if name == "sinh" else math.inf
        except ValueError:
            if (name in ("log2", "log10") and x == 0) or (name == "log1p" and x == -1):
                return -math.inf
            return math.nan
    return g


def correctly_rounded(name, f):
    """Brine's own math functions are correctly rounded (runtime/crmath), and
    libm's need not be: the model takes libm's value for the special cases
    (NaN, infinities, zero, domain errors) and otherwise the function at 256
    bits rounded once to the nearest double (CPython's int / int division
    rounds correctly, subnormals included)."""
    mp = {"exp2": lambda v: mpmath.power(2, v), "log2": lambda v: mpmath.log(v, 2),
          "cbrt": lambda v: mpmath.sign(v) * mpmath.cbrt(abs(v))}.get(name) or getattr(mpmath, name)

    def g(x):
        y = f(x)
        if not math.isfinite(x) or not math.isfinite(y) or y == 0 or x == 0:
            return y
        with mpmath.workprec(256):
            v = mp(mpmath.mpf(x))
            sign, man, exp, _ = mpmath.mpf(v)._mpf_
        q = fractions.Fraction(int(man)) * fractions.Fraction(2) ** int(exp)
        return float(-q if sign else q)
    return g


def c_pow(x, y):
    """Brine's pow(x, y): correctly rounded (runtime/crmath/pow.h). Python's
    math.pow (libm's) for the special cases, C's result where it raises
    (0 to a negative power: an infinity, signed for an odd y; overflow: an
    infinity, negative for a negative x and an odd y; a negative x to a
    non-integer: nan); otherwise |x|^y at 256 bits, rounded once, signed."""
    odd = math.isfinite(y) and y == math.floor(y) and abs(y) < 2.0 ** 53 and int(y) % 2 == 1
    try:
        v = math.pow(x, y)
    except OverflowError:
        return -math.inf if x < 0 and odd else math.inf
    except ValueError:
        if x == 0:
            return math.copysign(math.inf, x) if odd else math.inf
        return math.nan
    if not (math.isfinite(x) and math.isfinite(y) and math.isfinite(v)) or v == 0 or x == 0 or y == 0:
        return v
    with mpmath.workprec(256):
        w = mpmath.power(mpmath.mpf(abs(x)), mpmath.mpf(y))
        sign, man, exp, _ = mpmath.mpf(w)._mpf_
    q = fractions.Fraction(int(man)) * fractions.Fraction(2) ** int(exp)
    return -float(q) if v < 0 else float(q)


# those whose Python function is libm's or Python's own (erf, erfc), whose
# special cases the model takes; gamma and lgamma are left out: brine's are
# within 0.51 ulp, not correctly rounded, so no model predicts their bits
FLOAT_FN.update({n: c_math(n) for n in ("tan", "asin", "acos", "atan", "sinh", "cosh", "tanh",
                                        "log2", "log10", "exp2", "expm1", "log1p", "cbrt", "erf", "erfc")})
FLOAT_FN.update({n: correctly_rounded(n, FLOAT_FN[n])
                 for n in ("exp", "log", "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh",
                           "log2", "log10", "exp2", "expm1", "log1p", "cbrt", "erf", "erfc")})


def assert_stmt(g, depth, in_loop, ret):
    """`assert COND`, `assert COND, MSG` and `if COND: panic(MSG)` (SPEC 14): a
    panic at the statement, `assertion failed: COND` without a message."""
    r = g.r
    if r.random() > 0.5:
        return None
    cond = g.expr("bool", 3)
    msg = g.str_lit(r.choice(["bad", "x = {1}", "é!", " "])) if r.random() < 0.6 else None
    mid, mk = g.mark()
    g.use("assert")
    ec, em = cond.ev, msg.ev if msg else None
    if r.random() < 0.3 and msg:
        def ex(env):
            if ec(env):
                raise Panic(em(env), at=mid)
        return [f"if {cond.text}:", f"    {mk}panic({msg.text})"], ex

    def ex(env):
        if not ec(env):
            raise Panic(em(env) if msg else "assertion failed: " + re.sub(r"\x01\d+\x02", "", cond.text), at=mid)
    return [f"{mk}assert {cond.text}" + (f", {msg.text}" if msg else "")], ex


FORM_HOOKS["stmt"].append((0.03, assert_stmt))


def counter_stmt(g, depth, in_loop, ret):
    """A counter: `c += K` at most once an iteration of a range loop, or in a
    while loop whose condition bounds its index, or a product under a guard
    `LO < c < HI`, started near either end of int now and then: the ranges
    opt_range.c proves (the check goes) and those it must not (it stays)."""
    r = g.r
    if r.random() > 0.5:
        return None
    c, i = g.fresh("c"), g.fresh("i")
    top = 9223372036854775807
    start = r.choice([0, 5, -3, top - r.randint(0, 12), -top + r.randint(0, 6)])
    n, k = r.randint(0, 12), r.choice([0, 1, 2, 3, -1])
    m = r.randint(2, 4)
    rem = r.randrange(m)
    form = r.randrange(3)
    g.use("counter")
    g.scope[-1][c] = ("int", True)
    if form == 0:
        lines = [f"var {c} = {start}", f"for {i} in 0..{n}:", f"    if {i} % {m} == {rem}:", f"        {c} += {k}"]
    elif form == 1:
        step = r.randint(1, 3)
        lines = [f"var {c} = {start}", f"var {i} = 0", f"while {i} < {n}:", f"    if {i} % {m} == {rem}:",
                 f"        {c} += {k}", f"    {i} += {step}"]
    else:
        lo, hi = r.choice([(-10, 10), (-4, 1000), (-top, 0), (0, top)])
        mul = r.choice([3, 1000, 3037000500, -2])
        lines = [f"var {c} = {start}", f"if {c} > {lo} and {c} < {hi}:", f"    {c} = {c} * {mul}"]

    def ex(env):
        x = start
        if form == 0:
            for iv in range(n):
                if iv % m == rem:
                    x = chk("int", x + k, "addition")
        elif form == 1:
            iv = 0
            while iv < n:
                if iv % m == rem:
                    x = chk("int", x + k, "addition")
                iv += step
        elif lo < x < hi:
            x = chk("int", x * mul, "multiplication")
        env.vars[c] = ["int", True, x]
    return lines, ex


FORM_HOOKS["stmt"].append((0.08, counter_stmt))


def fission_stmt(g, depth, in_loop, ret):
    """Sums over the rows of a pair, u = a[i] and v = a[j], in one loop over k
    (opt_fission.c): a sum reading only u (and sums of u) runs once per i,
    before the j loop; one reading v or a sum of v stays. Rows of a now and
    then of other lengths, i one past the last row, k over len(v): the
    panics stay where they are met, after the same output. A sum reading
    only v (and sums of v) is computed once per row before the i loop
    (opt_expand.c) where every row has one length."""
    r = g.r
    if g.pure or r.random() > 0.4:
        return None
    a, i, j, k, u, v = (g.fresh(p) for p in ("a", "i", "j", "k", "u", "v"))
    m, d = r.randint(1, 3), r.randint(0, 4)
    rows = [[r.choice([-2, -1, 0, 1, 2, 3]) * 0.25 + r.choice([0, 0.5]) for _ in range(d + (r.random() < 0.15) * r.choice([-1, 1]))]
            for _ in range(m)]
    rows = [row if row else [1.5] for row in rows]
    ni = m + (r.random() < 0.1)
    nj = r.choice([m, 0, 1]) if r.random() < 0.3 else m
    over = u if r.random() < 0.85 else v
    sums = [g.fresh("s") for _ in range(r.randint(2, 4))]
    terms = []   # (text, fn(uk, vk, earlier sums' values))
    for n, s in enumerate(sums):
        c = r.randrange(6 if n else 4)
        if c == 0:
            terms.append((f"{u}[{k}] * {u}[{k}]", lambda x, y, vs: x * x))
        elif c == 1:
            terms.append((f"{u}[{k}] * {v}[{k}]", lambda x, y, vs: x * y))
        elif c == 2:
            terms.append((f"{v}[{k}] * {v}[{k}]", lambda x, y, vs: y * y))
        elif c == 3:
            terms.append((f"{u}[{k}]", lambda x, y, vs: x))
        elif c == 4:
            p = r.randrange(n)
            terms.append((f"{sums[p]} * {u}[{k}]", lambda x, y, vs, p=p: vs[p] * x))
        else:
            p = r.randrange(n)
            terms.append((f"{sums[p]} * {v}[{k}]", lambda x, y, vs, p=p: vs[p] * y))
    g.use("fission")
    lit = "[" + ", ".join("[" + ", ".join(repr(x) for x in row) + "]" for row in rows) + "]"
    lines = [f"let {a}: [[float]] = {lit}", f"for {i} in 0..{ni}:", f"    for {j} in 0..{nj}:",
             f"        let {u} = {a}[{i}]", f"        let {v} = {a}[{j}]"]
    lines += [f"        var {s} = 0.0" for s in sums]
    lines.append(f"        for {k} in 0..len({over}):")
    lines += [f"            {s} += {t}" for s, (t, _) in zip(sums, terms)]
    lines.append(f"        print({', '.join(sums)})")

    def at(row, x):
        if x >= len(row):
            raise Panic(f"index out of bounds: the len is {len(row)} but the index is {x}")
        return row[x]

    def ex(env):
        out = env_out(env)
        for iv in range(ni):
            for jv in range(nj):
                uv, vv = at(rows, iv), at(rows, jv)
                vals = [0.0] * len(sums)
                for kv in range(len(uv if over == u else vv)):
                    for n, (t, f) in enumerate(terms):
                        x = at(uv, kv) if u + "[" in t else 0.0
                        y = at(vv, kv) if v + "[" in t else 0.0
                        vals[n] = vals[n] + f(x, y, vals)
                out.append(" ".join(fmt_float(x) for x in vals) + "\n")
    return lines, ex


FORM_HOOKS["stmt"].append((0.04, fission_stmt))


def small_aggregate_stmt(g, depth, in_loop, ret):
    """A small array or tuple that never escapes: `let a = [E(d) for d in 0..K]`,
    `[E0, E1]` or `(E0, E1)`, read only as a[K] or a.K (opt_scalars.c makes its
    elements values of their own; unroll writes the comprehension out), now and
    then at an index one past the end: the panic stays at the read."""
    r = g.r
    if g.pure or r.random() > 0.5:
        return None
    a, d = g.fresh("a"), g.fresh("d")
    calls = sorted(n for n in g.lit_ret if not (g.pure and n in g.impure))
    form = 3 if calls and r.random() < 0.5 else r.randrange(3)
    g.use("small-aggregate")
    if form == 3:
        # `let a = f(..)` of a function returning an array literal
        name = r.choice(calls)
        params, ft, _ = g.funcs[name]
        k, ts = g.lit_ret[name], [elem(ft)] * g.lit_ret[name]
        args = [g.typed(g.expr(pt, 1), pt) for _, pt in params]
        text = f"let {a} = {name}(" + ", ".join(x.text for x in args) + ")"
        funcs = g.funcs

        def make(env):
            return run_func(funcs, name, [copyv(x.ev(env)) for x in args])
    elif form == 0:
        et = r.choice(["int", "float", "bool"])
        k = r.randint(1, 4)
        g.scope.append({d: ("int", False)})
        e = g.typed(g.expr(et, 2), et)
        g.scope.pop()
        ee, ts = e.ev, [et] * k
        text = f"let {a} = [{e.text} for {d} in 0..{k}]"

        def make(env):
            out = []
            for dv in range(k):
                sub = Env(env)
                sub.vars[d] = ["int", False, dv]
                out.append(copyv(ee(sub)))
            return out
    else:
        k = r.randint(2, 3)
        ts = [r.choice(["int", "float", "bool"]) for _ in range(k)] if form == 2 else [r.choice(["int", "float"])] * k
        es = [g.typed(g.expr(t, 2), t) for t in ts]
        items = ", ".join(e.text for e in es)
        text = f"let {a} = ({items})" if form == 2 else f"let {a} = [{items}]"

        def make(env):
            return [copyv(e.ev(env)) for e in es]
    past = form != 2 and r.random() < 0.15
    reads = [r.randrange(k) for _ in range(r.randint(1, 3))] + ([k] if past else [])
    r.shuffle(reads)
    texts = [f"{a}.{i}" if form == 2 else f"{a}[{i}]" for i in reads]

    def ex(env):
        xs = make(env)
        vals = []
        for i in reads:
            if i >= len(xs):
                raise Panic(f"index out of bounds: the len is {len(xs)} but the index is {i}")
            vals.append(show(ts[i], xs[i]))
        env_out(env).append(" ".join(vals) + "\n")
    return [text, f"print({', '.join(texts)})"], ex


FORM_HOOKS["stmt"].append((0.05, small_aggregate_stmt))


# ---- SPEC 12: world, one process (no launcher: rank 0 of 1) -----------------------

def world_expr(g, t, d):
    """world.broadcast(E, 0), world.gather(E), the scalar collectives and the
    distributed reductions (the bits of the par reduction, SPEC 12), in a
    program run as one rank: what E is, [E], E, and the par reduction's value."""
    r = g.r
    if has_fn(t) or g.pure:   # never in an element or a lambda: every rank makes the same calls
        return None
    c = r.randrange(4)
    if c == 0:
        e = g.typed(g.expr(t, d - 1), t)
        ev = e.ev
        text = f"world.broadcast({e.text}, {r.choice(['0', 'world.rank()', 'world.size() - 1'])})"
        g.use("world")
        return Expr(text, 13, lambda env: copyv(ev(env)), t)
    if c == 1 and is_arr(t):
        e = g.typed(g.expr(elem(t), d - 1), elem(t))
        ev = e.ev
        g.use("world")
        return Expr(f"world.gather({e.text})", 13, lambda env: [copyv(ev(env))], t)
    if c == 2 and t in ("int", "u64", "i128", "float", "bool"):
        e = g.typed(g.expr(t, d - 1), t)
        ev = e.ev
        red = r.choice(["any", "all"] if t == "bool" else ["sum", "product", "min", "max"])
        g.use("world")
        return Expr(f"world.{red}({e.text})", 13, lambda env: ev(env), t)
    if c == 3 and t in ("int", "u64", "i128", "float", "bool"):
        e = g.reduction(t, d)
        m = re.match(r"par (sum|product|min|max|any|all|reduce)\((.*)\)$", e.text, re.S)
        if not m or " for " not in e.text or re.fullmatch(r"\w+", m.group(2)):
            return e
        g.use("world")
        return Expr("world." + e.text[4:], 14, e.ev, t, weak=e.weak)
    return None


FORM_HOOKS["expr"].append((0.015, world_expr))


# ---- forms of the fill, consts and parfor (pool_calls) passes ------------------------
# Each is drawn from a stream of its own (Gen.fills, Gen.calls), so a seed's
# program changes only where one is written. A form may write module
# constants and helper functions (Gen.top, before main; generate() drops
# those of a statement it does not keep).

def top_const(g, text):
    """A module constant `let N = text` written before main: its name."""
    name = g.fresh("N")
    g.top.append(f"let {name} = {text}")
    return name


def fill_loop(g):
    """An array written by a loop over i: pushed to from empty in a range
    loop (opt_fill.c fills it by index), stored into at i after `[D] * n`,
    pushed to in a stepped range or in a while loop with one induction
    variable (opt_counted.c), or a (par) comprehension; the end of the range a
    literal, a module constant (opt_consts.c), a let, or len of `[x] * n`. The
    element is any expression of i, now and then combined with a read of a
    captured array one element short (a panic at the last i) or with a
    module constant. The array is printed (not in pure code: a fn value's body)."""
    r = g.r
    if g.pure:
        return None
    v, i, b, m, c = (g.fresh(p) for p in ("v", "i", "b", "m", "c"))
    et = r.choice(["int", "float", "float", "bool"])
    t = f"[{et}]"
    n = r.randint(0, 12)
    lo = r.choice([0, 0, 0, 1, 2])
    step = r.choice([2, 3])
    form = r.randrange(6)   # push, store at i, stepped push, while push, comprehension, par comprehension
    lines = []
    bound = r.randrange(4)
    if bound == 0:
        hi = str(n)
    elif bound == 1:
        hi = top_const(g, str(n))
        g.use("const-bound")
    elif bound == 2:
        lines.append(f"let {m} = {n}")
        hi = m
    else:
        x0 = {"int": "7", "float": "0.5", "bool": "true"}[et]
        lines.append(f"let {b} = [{x0}] * {n}")
        hi = f"len({b})"
    g.use("fill")
    g.scope.append({i: ("int", False)})
    if form == 5:
        g.pure += 1
    x = g.typed(g.expr(et, 2), et)
    if form == 5:
        g.pure -= 1
    g.scope.pop()
    # the element: x, or x combined with a captured array's c[i] or a constant
    cap = None
    kc = None
    how = r.randrange(3) if et != "bool" else r.randrange(2)
    text = x.text
    if how == 1:
        clen = max(0, n - r.choice([0, 0, 0, 1]))
        cap = [{"int": lambda: r.randint(-9, 9), "float": lambda: r.choice([0.5, -1.25, 3.0, 1e300, 0.1]),
                "bool": lambda: r.random() < 0.5}[et]() for _ in range(clen)]
        lines.append(f"let {c}: {t} = [" + ", ".join(show(et, y) for y in cap) + "]")
        op = {"int": "+", "float": "*", "bool": "!="}[et]
        text = f"({x.text}) {op} {c}[{i}]"
    elif how == 2:
        kc = r.choice([3, -2, 4611686018427387903]) if et == "int" else r.choice([0.25, -3.5, 1e308])
        kname = top_const(g, show(et, kc))
        g.use("const-bound")
        text = f"({x.text}) + {kname}"
    D = {"int": 0, "float": 0.0, "bool": False}[et]
    # a push loop over an array of the indices (chosen from the values drawn:
    # each seed's stream stays as it was)
    over_array = (n + lo) % 2 == 1
    w, q = g.fresh("w"), g.fresh("q")
    if form == 0 and over_array:
        # over an array variable of the indices, or over its enumerate (a range
        # loop in a block of its own): opt_fill.c fills it by index too
        walk = f"({q}, {i}) in enumerate({w})" if step == 3 else f"{i} in {w}"
        lines += [f"let {w}: [int] = [{q} for {q} in {lo}..{hi}]", f"var {v}: {t} = []", f"for {walk}:",
                  f"    {v}.push({text})"]
    elif form == 0:
        # now and then onto an array not empty (a literal of one or two
        # values), the bound a sum (hi - 1, hi + 1): opt_fill.c grows it
        # and stores at len + i - lo
        gr = g.grows
        if gr.random() < 0.5:
            prefix = [{"int": lambda: gr.randint(-9, 9), "float": lambda: gr.choice([0.5, -2.0, 1e300]),
                       "bool": lambda: gr.random() < 0.5}[et]() for _ in range(gr.randint(1, 2))]
            shift = gr.choice([-1, 1, 0])
            g.use("fill-grow")
        else:
            prefix, shift = [], 0
        hi_s = hi if shift == 0 else f"{hi} {'+' if shift > 0 else '-'} 1"
        start = "[" + ", ".join(show(et, y) for y in prefix) + "]"
        lines += [f"var {v}: {t} = {start}", f"for {i} in {lo}..{hi_s}:", f"    {v}.push({text})"]
    elif form == 1:
        lines += [f"var {v} = [{show(et, D)}] * {hi}", f"for {i} in {lo}..{hi}:", f"    {v}[{i}] = {text}"]
    elif form == 2:
        lines += [f"var {v}: {t} = []", f"for {i} in range({lo}, {hi}, {step}):", f"    {v}.push({text})"]
    elif form == 3:
        lines += [f"var {v}: {t} = []", f"var {i} = {lo}", f"while {i} < {hi}:", f"    {v}.push({text})",
                  f"    {i} += {step}"]
    else:
        lines.append(f"let {v} = {'par ' if form == 5 else ''}[{text} for {i} in {lo}..{hi}]")
    lines.append(f"print({v})")
    if form != 0 or over_array:
        prefix, shift = [], 0
    idx = range(lo, n, step) if form in (2, 3) else range(lo, n + shift)
    xe = x.ev

    def ex(env):
        out = [D] * n if form == 1 else list(prefix)
        for iv in idx:
            sub = Env(env)
            sub.vars[i] = ["int", False, iv]
            val = copyv(xe(sub))
            if cap is not None:
                if iv >= len(cap):
                    raise Panic(f"index out of bounds: the len is {len(cap)} but the index is {iv}")
                val = {"int": lambda a, y: chk("int", a + y, "addition"), "float": f_mul,
                       "bool": lambda a, y: a != y}[et](val, cap[iv])
            elif kc is not None:
                val = chk("int", val + kc, "addition") if et == "int" else val + kc
            if form == 1:
                out[iv] = val
            else:
                out.append(val)
        env.vars[v] = [t, form < 4, out]
        if form == 3:
            env.vars[i] = ["int", True, idx[-1] + step if len(idx) else lo]
        env_out(env).append(show(t, out) + "\n")
    g.scope[-1][v] = (t, form < 4)
    if form == 3:
        g.scope[-1][i] = ("int", True)
    return lines, ex


def fuse_loop(g):
    """`let b = [E(x) for x in src]` of a float array (now and then a NaN or
    1e300 among its values: a conversion that panics), read only as b[i] by a
    range loop over lo..hi (hi now and then past the end: a panic at the
    read), counting into bins (one out of range: the loop's panic) or summing,
    with lets and an assignment between: opt_fuse.c computes b[i] where the
    loop reads it, and the first panic stays the comprehension's."""
    r = g.r
    if g.pure:
        return None
    src, b, acc, seen, i, x = (g.fresh(p) for p in ("s", "b", "a", "n", "i", "x"))
    n = r.randint(0, 9)
    vals = [r.choice([0.1, 0.5, 0.99, 1.5, 2.25, -0.5, 3.75, 0.0]) for _ in range(n)]
    texts = [repr(v) for v in vals]
    if n and r.random() < 0.3:
        k = r.randrange(n)
        texts[k], vals[k] = r.choice([("0.0 / 0.0", math.nan), ("1e300", 1e300), ("-1e300", -1e300)])
    kb = r.choice([2, 4, 8])
    form = r.randrange(3)  # counts of int bins, a sum of ints, a sum of floats
    lo = r.choice([0, 0, 0, 1])
    hi_n = r.choice([n, n, max(0, n - 2), n + 1])
    hi = f"len({src})" if hi_n == n and r.random() < 0.5 else str(hi_n)
    g.use("fuse")
    lines = [f"let {src}: [float] = [" + ", ".join(texts) + "]"]
    if form == 0:
        lines += [f"let {b} = [int({x} * {kb}.0) for {x} in {src}]", f"var {acc} = [0] * {kb}", f"var {seen} = 0",
                  f"{seen} = {seen} + {lo}", f"for {i} in {lo}..{hi}:", f"    {acc}[{b}[{i}]] += 1",
                  f"print({acc}, {seen})"]
    elif form == 1:
        lines += [f"let {b} = [int({x} * {kb}.0) - 1 for {x} in {src}]", f"var {acc} = 0",
                  f"for {i} in {lo}..{hi}:", f"    {acc} += {b}[{i}] * 3", f"print({acc})"]
    else:
        lines += [f"let {b} = [{x} * {x} + 0.5 for {x} in {src}]", f"var {acc} = 0.0",
                  f"for {i} in {lo}..{hi}:", f"    let {seen} = {b}[{i}]", f"    {acc} = {acc} + {seen}",
                  f"print({acc})"]

    def ex(env):
        if form == 2:
            bv = [v * v + 0.5 for v in vals]
        else:
            bv = [float_to_int("int", v * kb) for v in vals]
            if form == 1:
                bv = [chk("int", v - 1, "subtraction") for v in bv]
        counts, total = [0] * kb, (0.0 if form == 2 else 0)
        for iv in range(lo, hi_n):
            if iv >= n:
                raise Panic(f"index out of bounds: the len is {n} but the index is {iv}")
            if form == 0:
                if not 0 <= bv[iv] < kb:
                    raise Panic(f"index out of bounds: the len is {kb} but the index is {bv[iv]}")
                counts[bv[iv]] += 1
            elif form == 1:
                total = chk("int", total + chk("int", bv[iv] * 3, "multiplication"), "addition")
            else:
                total = total + bv[iv]
        if form == 0:
            env_out(env).append(show("[int]", counts) + " " + show("int", lo) + "\n")
        else:
            env_out(env).append(show("float" if form == 2 else "int", total) + "\n")
    return lines, ex


def literal_len_loop(g):
    """`let cs = [c0, ...]` (or `[c] * m`), then a loop over i whose body
    runs `for k in 0..len(cs)`: a short loop, written out (opt_shortfor.c
    takes the length of a literal nothing resizes as a literal), Horner's
    step for floats, a checked `acc + cs[k] * i` for ints (an overflow
    now and then); now and then the read is cs[k + 1], a panic at the last
    k. Draws from its own stream (g.lits): other programs stay as they were."""
    r = g.lits
    if g.pure:
        return None
    cs, acc, i, k, x = (g.fresh(p) for p in ("cs", "acc", "i", "k", "x"))
    et = r.choice(["int", "float"])
    m = r.randint(1, 6)
    pick = {"int": lambda: r.choice([-3, 2, 7, 4611686018427387903]), "float": lambda: r.choice([0.5, -1.25, 3.0, 0.1, 1e300])}[et]
    if r.random() < 0.3:
        c0 = pick()
        vals = [c0] * m
        made = f"[{show(et, c0)}] * {m}"
    else:
        vals = [pick() for _ in range(m)]
        made = "[" + ", ".join(show(et, v) for v in vals) + "]"
    n = r.randint(0, 5)
    off = 1 if r.random() < 0.2 else 0
    read = f"{cs}[{k} + 1]" if off else f"{cs}[{k}]"
    g.use("literal-len")
    a0 = pick()
    lines = [f"let {cs} = {made}", f"var {acc} = {show(et, a0)}", f"for {i} in 0..{n}:"]
    if et == "float":
        lines += [f"    let {x} = float({i}) * 0.5", f"    for {k} in 0..len({cs}):", f"        {acc} = {acc} * {x} + {read}"]
    else:
        lines += [f"    for {k} in 0..len({cs}):", f"        {acc} = {acc} + {read} * {i}"]
    lines.append(f"print({acc})")

    def ex(env):
        a = a0
        for iv in range(n):
            for kv in range(m):
                if kv + off >= m:
                    raise Panic(f"index out of bounds: the len is {m} but the index is {kv + off}")
                c = vals[kv + off]
                if et == "float":
                    a = a * (iv * 0.5) + c
                else:
                    a = chk("int", a + chk("int", c * iv, "multiplication"), "addition")
        env_out(env).append(show(et, a) + "\n")
    return lines, ex


def column_walk(g):
    """A matrix walked down its columns: `for k in 0..K: for j in 0..R:`
    reading m[j][k] into a sum, or adding to it in place (`var m`), the
    column k fixed in the inner loop and the row j changing (opt_loops.c's
    column guards: the rows' least length kept once per nest). Now and then
    one row is shorter (ragged) or K is one past the rows' length: the
    first such element panics, as the loop as written does. Draws from its
    own stream (g.cols)."""
    r = g.cols
    if g.pure:
        return None
    m, acc, j, k = (g.fresh(p) for p in ("m", "acc", "j", "k"))
    et = r.choice(["int", "float"])
    rows, width = r.randint(1, 5), r.randint(1, 6)
    lens = [width] * rows
    if r.random() < 0.25:
        lens[r.randrange(rows)] = width - 1
    pick = {"int": lambda: r.choice([-3, 2, 7, 11, 4611686018427387903]),
            "float": lambda: r.choice([0.5, -1.25, 3.0, 0.1, 1e300])}[et]
    vals = [[pick() for _ in range(n)] for n in lens]
    kn = width + (1 if r.random() < 0.15 else 0)
    jhi = f"len({m})" if r.random() < 0.5 else str(rows)
    store = r.random() < 0.4
    g.use("column-walk")
    text = "[" + ", ".join("[" + ", ".join(show(et, v) for v in row) + "]" for row in vals) + "]"
    zero = show(et, 0 if et == "int" else 0.0)
    lines = [f"{'var' if store else 'let'} {m}: [[{et}]] = {text}", f"var {acc} = {zero}",
             f"for {k} in 0..{kn}:", f"    for {j} in 0..{jhi}:"]
    one = "1" if et == "int" else "1.0"
    if store:
        lines += [f"        {m}[{j}][{k}] += {one}", f"        {acc} = {acc} + {m}[{j}][{k}]"]
    else:
        lines += [f"        {acc} = {acc} + {m}[{j}][{k}]"]
    lines.append(f"print({acc}, {m})" if store else f"print({acc})")

    def ex(env):
        cur = [list(row) for row in vals]
        a = 0 if et == "int" else 0.0
        add = (lambda x, y: chk("int", x + y, "addition")) if et == "int" else (lambda x, y: x + y)
        for kv in range(kn):
            for jv in range(rows):
                if kv >= len(cur[jv]):
                    raise Panic(f"index out of bounds: the len is {len(cur[jv])} but the index is {kv}")
                if store:
                    cur[jv][kv] = add(cur[jv][kv], 1 if et == "int" else 1.0)
                a = add(a, cur[jv][kv])
        env_out(env).append((show(et, a) + " " + show(f"[[{et}]]", cur) if store else show(et, a)) + "\n")
    return lines, ex


def down_loop(g):
    """A while loop counting an index down by one (opt_counted.c: a range
    loop stepping -1), finding the least element's index as it goes (the
    index a loop assigns only values of a range: opt_range.c's settle), its
    variables printed after. Now and then it starts one past the end or
    stops below 0: the read there panics. Sometimes it steps by two, or its
    condition also stops at an element (`and xs[i] > K`, as an insertion
    sort's), and the element just above where it stopped is read after it
    (xs[i + 1]: in bounds by the lower bound opt_range.c's settle gives a
    variable a loop only decreases; not with a step of two or a stop below
    0, where it may panic). Draws from its own stream (g.downs)."""
    r = g.downs
    if g.pure:
        return None
    xs, i, m = (g.fresh(p) for p in ("xs", "i", "m"))
    n = r.randint(1, 8)
    vals = [r.randint(-20, 20) for _ in range(n)]
    start = n - 1 if r.random() < 0.85 else n
    stop = r.choice([0, 0, 1, 2]) if r.random() < 0.9 else -1
    cmp = r.choice(["<", "<="])
    step = 2 if r.random() < 0.2 else 1
    key = r.randint(-20, 20) if r.random() < 0.4 else None
    above = r.random() < 0.6
    g.use("down-loop")
    cond = f"{i} >= {stop}" + (f" and {xs}[{i}] > {key}" if key is not None else "")
    lines = [f"let {xs} = [" + ", ".join(str(v) for v in vals) + "]", f"var {i} = {start}", f"var {m} = 0",
             f"while {cond}:", f"    if {xs}[{i}] {cmp} {xs}[{m}]:", f"        {m} = {i}", f"    {i} -= {step}",
             f"print({i}, {m}, {xs}[{m}])"]
    if above:
        lines.append(f"print({xs}[{i} + 1])")

    def at(iv):
        if not 0 <= iv < n:
            raise Panic(f"index out of bounds: the len is {n} but the index is {iv}")
        return vals[iv]

    def ex(env):
        iv, mv = start, 0
        while iv >= stop and (key is None or at(iv) > key):
            if (at(iv) < vals[mv]) if cmp == "<" else (at(iv) <= vals[mv]):
                mv = iv
            iv -= step
        env_out(env).append(f"{iv} {mv} {vals[mv]}\n")
        if above:
            env_out(env).append(f"{at(iv + 1)}\n")
    return lines, ex


def checked_at(v, i):
    """v[i] as an index of the language reads it: out of range, a panic."""
    if not 0 <= i < len(v):
        raise Panic(f"index out of bounds: the len is {len(v)} but the index is {i}")
    return v[i]


def adjacent_loops(g):
    """Two or three loops over one range, one after the other (opt_fuseloops.c
    runs them as one where no iteration reads what a later one of another
    loop writes): x[j + c] stored from a[j], then y[j] from x[j + c2] (c2 ==
    c: the same iteration's element; c2 = c + 1: a later one's, which must
    not fuse), now and then a third loop folding or storing back, a let of
    a[j], a read a[j + 1] that panics at the last j, or a bound past len(a)
    (the first loop's read panics first)."""
    r = g.adjs
    if g.pure:
        return None
    g.use("adjacent-loops")
    a, x, y, s, j, m, t = (g.fresh(p) for p in ("a", "x", "y", "s", "j", "m", "t"))
    vals = [r.choice([0.5, -1.25, 2.0, 3.5, -0.75, 1e300, 0.0]) for _ in range(r.randint(0, 8))]
    n = len(vals)
    bound = r.choice([n, n, n, max(0, n - 2), n + 1]) if r.random() < 0.9 else n + 1
    c = r.choice([0, 0, 1, 2])
    c2 = c if r.random() < 0.7 else min(c + 1, 2)
    k1, k2 = r.choice([2.0, -0.5, 3.0, 1e10]), r.choice([1.0, -3.0, 0.25])
    ahead = r.random() < 0.15
    let = r.random() < 0.3
    third = r.choice([None, None, "fold", "store"])
    lit = "[" + ", ".join(fmt_float(v) for v in vals) + "]"
    mb = f"len({a})" if bound == n and r.random() < 0.6 else str(bound)
    lines = [f"let {a}: [float] = {lit}", f"let {m} = {mb}", f"var {x} = [0.0] * (len({a}) + 2)",
             f"var {y} = [0.0] * (len({a}) + 2)", f"var {s} = 0.0", f"for {j} in 0..{m}:"]
    if let:
        lines += [f"    let {t} = {a}[{j}]", f"    {x}[{j} + {c}] = {t} * {fmt_float(k1)} + {t}"]
    else:
        lines.append(f"    {x}[{j} + {c}] = {a}[{j}] * {fmt_float(k1)}")
    lines += [f"for {j} in 0..{m}:",
              f"    {y}[{j}] = {x}[{j} + {c2}] * {fmt_float(k2)} + " + (f"{a}[{j} + 1]" if ahead else f"{a}[{j}]")]
    if third == "fold":
        lines += [f"for {j} in 0..{m}:", f"    {s} += {y}[{j}] - {x}[{j} + {c}]"]
    elif third == "store":
        lines += [f"for {j} in 0..{m}:", f"    {x}[{j} + {c}] = {y}[{j}] - {x}[{j} + {c}]"]
    lines.append(f"print({x}, {y}, {s})")

    at = checked_at

    def ex(env):
        xv, yv, sv = [0.0] * (n + 2), [0.0] * (n + 2), 0.0
        for jv in range(bound):
            av = at(vals, jv)
            at(xv, jv + c)
            xv[jv + c] = av * k1 + av if let else av * k1
        for jv in range(bound):
            w = at(xv, jv + c2) * k2
            w = w + at(vals, jv + 1 if ahead else jv)
            at(yv, jv)
            yv[jv] = w
        for jv in range(bound if third else 0):
            if third == "fold":
                sv = sv + (at(yv, jv) - at(xv, jv + c))
            else:
                wv = at(yv, jv) - at(xv, jv + c)
                xv[jv + c] = wv
        env_out(env).append(f"{show('[float]', xv)} {show('[float]', yv)} {fmt_float(sv)}\n")
    return lines, ex


def recurrence(g):
    """A recurrence through an array (opt_carry.c keeps the element a loop
    reads back one iteration after storing it in a local): x[i + c] =
    x[i + c - step] * k [+ x[i + c - 2 * step]] + i over lo..hi or
    range(lo, hi, step) (step 2, 3, -1, -2), of ints or floats; now and then a read of that element after
    the store, a break or a continue (the loop then left as written), a
    first read before the array's start (a panic in the first iteration),
    a store past its end, or an int that overflows; now and then in a row
    of an array of arrays, x[q][i + c], the row q fixed (or past the end:
    a panic at the first read); now and then x a copy of an array still
    held, the loop to len(x) (opt_lazycopy.c copies as the loop goes)."""
    r = g.recs
    if g.pure:
        return None
    g.use("recurrence")
    et = r.choice(["float", "int"])
    x, i, s, q, w_ = (g.fresh(p) for p in ("x", "i", "s", "q", "w"))
    rowed = r.random() < 0.35
    qv = r.choice([0, 1, 1, 2])
    n = r.randint(0, 9)
    step = r.choice([1, 1, 1, 2, 3, -1, -1, -2])
    c = r.choice([0, 0, 1, 2])
    size = n + 3
    if step > 0:
        lo = r.choice([step - c, step - c, max(0, step - c), 0, step - c + 1])
        hi = r.choice([n, n + 1, size - c, size - c + 1])
    else:
        lo = r.choice([size - 1 - c + step, size - 1 - c + step, size - c + step, n])
        hi = r.choice([-1, -1, 0, 2]) - c
    ranged = step != 1 or r.random() < 0.5
    # now and then x is a copy of an array still held (printed after,
    # unchanged), the loop to len(x): the copy made by the loop, element by
    # element, where it stores x[i] (opt_lazycopy.c)
    copied = not rowed and r.random() < 0.4
    to_len = copied and not ranged and r.random() < 0.6
    if to_len:
        hi = size
    o = g.fresh("o")
    head = f"range({lo}, {hi}, {step})" if ranged else (f"{lo}..len({x})" if to_len else f"{lo}..{hi}")
    k = r.choice([2, 3, -2, 1000, 1]) if et == "int" else r.choice([0.5, -1.25, 2.0, 1e300, 0.75])
    init = r.choice([1, -3, 7]) if et == "int" else r.choice([1.0, -0.5, 3.25])
    kl = str(k) if et == "int" else fmt_float(k)
    il = str(init) if et == "int" else fmt_float(init)
    after = r.random() < 0.3
    two = r.random() < 0.4    # a second element, two iterations back
    leave = r.choice([None, None, None, "break", "continue"])
    at = r.randint(min(lo, hi), max(lo, hi)) if r.random() < 0.7 else lo
    zero = "0" if et == "int" else "0.0"
    iv = i if et == "int" else f"float({i})"
    xs = f"{x}[{q}]" if rowed else x

    def ref(j):
        return f"{xs}[{i} + {j}]"
    lines = ([f"let {q} = {qv}", f"var {x} = [[{il}] * {size} for {w_} in 0..2]"] if rowed
             else [f"let {o} = [{il}] * {size}", f"var {x} = {o}"] if copied else [f"var {x} = [{il}] * {size}"])
    lines += [f"var {s} = {zero}", f"for {i} in {head}:"]
    if leave:
        lines += [f"    if {i} == {at}:", f"        {leave}"]
    second = f" + {ref(c - 2 * step)}" if two else ""
    lines.append(f"    {ref(c)} = {ref(c - step)} * {kl}{second} + {iv}")
    if after:
        lines.append(f"    {s} += {ref(c - step)} + {ref(c)}")
    lines.append(f"print({x}, {s}, {o})" if copied else f"print({x}, {s})")

    def ex(env):
        rows = [[init] * size for _ in range(2)] if rowed else None
        xv, sv = None if rowed else [init] * size, (0 if et == "int" else 0.0)

        def at_(_, j):
            return checked_at(checked_at(rows, qv) if rowed else xv, j)

        def put(j, w):
            row = checked_at(rows, qv) if rowed else xv
            checked_at(row, j)
            row[j] = w
        values = range(lo, hi, step) if ranged else range(lo, hi)
        for iv_ in values:
            if leave and iv_ == at:
                if leave == "break":
                    break
                continue
            old = at_(xv, iv_ + c - step)
            if et == "int":
                w = chk("int", old * k, "multiplication")
                if two:
                    w = chk("int", w + at_(xv, iv_ + c - 2 * step), "addition")
                w = chk("int", w + iv_, "addition")
            else:
                w = old * k
                if two:
                    w = w + at_(xv, iv_ + c - 2 * step)
                w = w + float(iv_)
            put(iv_ + c, w)
            if after:
                u = at_(xv, iv_ + c - step) + at_(xv, iv_ + c)
                if et == "int":
                    sv = chk("int", sv + chk("int", u, "addition"), "addition")
                else:
                    sv = sv + u
        shown = show('[[' + et + ']]', rows) if rowed else show('[' + et + ']', xv)
        orig = " " + show('[' + et + ']', [init] * size) if copied else ""
        env_out(env).append(f"{shown} {show(et, sv)}{orig}\n")
    return lines, ex


def dp_table(g):
    """A dynamic programming table (opt_cover.c makes it unset where the
    nest's reads read cells stored before them): an (n + 1) x (m + 1) int
    table, row 0 stored by a loop before the nest, after it or not at all,
    column 0 by the nest's outer loop before its inner one, by a loop before
    or not at all; each cell from up to three cells at random offsets
    (above, left, above left, and now and then ahead, two back or past an
    edge: a read of the fill's zero, or a panic), for or while loops, now
    and then both branches of an if storing the cell."""
    r = g.tables
    if g.pure:
        return None
    g.use("dp-table")
    t, i, j, k, nv, mv = (g.fresh(p) for p in ("t", "i", "j", "k", "n", "m"))
    n, m = r.randint(0, 5), r.randint(0, 5)
    named = r.random() < 0.6  # the sizes variables (the cover's guard tests them) or literals
    row0 = r.choice(["before", "before", "before", "after", "none"])
    col0 = r.choice(["outer", "outer", "loop", "none"])
    jlo = 1 if r.random() < 0.85 else 0
    whiles = r.random() < 0.3
    offs = [(-1, 0), (0, -1), (-1, -1), (-1, 1), (-2, 0), (0, -2), (-1, 2), (0, 1), (1, 0), (1, -1), (-1, -2)]
    weights = [6, 6, 5, 3, 2, 2, 1, 1, 1, 1, 1]
    reads = r.choices(offs, weights, k=r.randint(1, 3))
    branch = r.random() < 0.25
    k1, k2 = r.randint(1, 4), r.randint(0, 6)

    def ref(o):
        return f"{t}[{i}{'' if o[0] == 0 else f' + {o[0]}' if o[0] > 0 else f' - {-o[0]}'}][{j}{'' if o[1] == 0 else f' + {o[1]}' if o[1] > 0 else f' - {-o[1]}'}]"
    lines = [f"let {nv} = {n}", f"let {mv} = {m}"] if named else []
    if named:
        n_, m_ = n, m
        n, m = nv, mv
    value = f"({' + '.join(ref(o) for o in reads)} + ({i} * {k1} + {j}) % 7) % 1000"
    other = f"({ref(reads[0])} * 2 + {k2}) % 1000"
    lines.append(f"var {t} = [[0] * ({m} + 1) for {k} in 0..{n} + 1]")
    border = [f"for {k} in 0..{m} + 1:", f"    {t}[0][{k}] = {k} * {k1}"]
    column = [f"for {k} in 1..{n} + 1:", f"    {t}[{k}][0] = {k} + {k2}"]
    if row0 == "before":
        lines += border
    if col0 == "loop":
        lines += column
    body = ([f"if ({i} + {j}) % 2 == 0:", f"    {t}[{i}][{j}] = {value}", "else:", f"    {t}[{i}][{j}] = {other}"]
            if branch else [f"{t}[{i}][{j}] = {value}"])
    head0 = [f"{t}[{i}][0] = {i} + {k2}"] if col0 == "outer" else []
    if whiles:
        lines += [f"var {i} = 1", f"while {i} <= {n}:"] + ["    " + x for x in head0]
        lines += [f"    var {j} = {jlo}", f"    while {j} <= {m}:"] + ["        " + x for x in body]
        lines += [f"        {j} += 1", f"    {i} += 1"]
    else:
        lines += [f"for {i} in 1..{n} + 1:"] + ["    " + x for x in head0]
        lines += [f"    for {j} in {jlo}..{m} + 1:"] + ["        " + x for x in body]
    if row0 == "after":
        lines += border
    lines.append(f"print({t})")
    if named:
        n, m = n_, m_

    def ex(env):
        tv = [[0] * (m + 1) for _ in range(n + 1)]
        if row0 == "before":
            for kv in range(m + 1):
                tv[0][kv] = kv * k1
        if col0 == "loop":
            for kv in range(1, n + 1):
                tv[kv][0] = kv + k2
        for iv in range(1, n + 1):
            if col0 == "outer":
                tv[iv][0] = iv + k2
            for jv in range(jlo, m + 1):
                if branch and (iv + jv) % 2 != 0:
                    w = (checked_at(checked_at(tv, iv + reads[0][0]), jv + reads[0][1]) * 2 + k2) % 1000
                else:
                    w = 0
                    for o in reads:
                        w += checked_at(checked_at(tv, iv + o[0]), jv + o[1])
                    w = (w + (iv * k1 + jv) % 7) % 1000
                tv[iv][jv] = w
        if row0 == "after":
            for kv in range(m + 1):
                tv[0][kv] = kv * k1
        env_out(env).append(show("[[int]]", tv) + "\n")
    return lines, ex


def push_recurrence(g):
    """A loop pushing one value per iteration onto an array it reads
    (opt_fill.c grows the array once and tests the reads before the loop):
    x.push(x[i - a] * k + x[len(x) - b] + i), now and then x[c] instead of
    the second read, over lo..hi (hi a literal or a let), from a literal of
    one to three values or a copy of another array (which keeps its
    elements); reads past the end or before the start (a panic where the
    loop as written panics), ints that overflow, a break or a continue
    before the push (the loop then left as written); now and then the push
    in both branches of an if-else (filled too)."""
    r = g.pushrecs
    if g.pure:
        return None
    g.use("push-recurrence")
    et = r.choice(["int", "float"])
    x, i, m, y = (g.fresh(p) for p in ("x", "i", "m", "y"))
    start = [r.choice([1, -2, 3, 5]) if et == "int" else r.choice([0.5, -1.25, 2.0]) for _ in range(r.randint(1, 3))]
    lo = r.choice([0, 1, 1, 2, 3, len(start), len(start)])
    hi = lo + r.choice([0, 1, 3, 6, 9, 12])
    a = r.choice([0, 1, 1, 1, 2, 3])
    b = r.choice([1, 1, 2, 3, 0])
    lit = r.random() < 0.3
    c = r.choice([0, 0, 1, 2])
    k = r.choice([2, -1, 3, 1]) if et == "int" else r.choice([0.5, -1.25, 1.5])
    kl = str(k) if et == "int" else fmt_float(k)
    copied = r.random() < 0.3
    leave = r.choice([None, None, None, None, "break", "continue"])
    at = r.randint(lo, hi)
    lines = []
    lit_text = "[" + ", ".join(show(et, v) for v in start) + "]"
    if copied:
        lines += [f"let {y} = {lit_text}", f"var {x} = {y}"]
    else:
        lines.append(f"var {x} = {lit_text}")
    bound = str(hi)
    if r.random() < 0.5:
        lines.append(f"let {m} = {hi}")
        bound = m
    lines.append(f"for {i} in {lo}..{bound}:")
    if leave:
        lines += [f"    if {i} == {at}:", f"        {leave}"]
    iv = i if et == "int" else f"float({i})"
    second = f"{x}[{c}]" if lit else f"{x}[len({x}) - {b}]"
    branchy = r.random() < 0.3   # the push in both branches of an if-else, the other x[len(x) - 1] - i
    ind = "    "
    if branchy:
        lines.append(f"    if {i} % 2 == 0:")
        ind = "        "
    lines.append(f"{ind}{x}.push({x}[{i} - {a}] * {kl} + {second} + {iv})")
    if branchy:
        lines += ["    else:", f"        {x}.push({x}[len({x}) - 1] - {iv})"]
    lines.append(f"print({x}{', ' + y if copied else ''})")

    def ex(env):
        xv = list(start)
        for v_ in range(lo, hi):
            if leave and v_ == at:
                if leave == "break":
                    break
                continue
            if branchy and v_ % 2 != 0:
                last = checked_at(xv, len(xv) - 1)
                xv.append(chk("int", last - v_, "subtraction") if et == "int" else last - float(v_))
                continue
            first = checked_at(xv, v_ - a)
            w = chk("int", first * k, "multiplication") if et == "int" else first * k
            sec = checked_at(xv, c) if lit else checked_at(xv, len(xv) - b)
            if et == "int":
                w = chk("int", chk("int", w + sec, "addition") + v_, "addition")
            else:
                w = w + sec + float(v_)
            xv.append(w)
        t = "[" + et + "]"
        env_out(env).append(show(t, xv) + (" " + show(t, start) if copied else "") + "\n")
    return lines, ex


def loop_over(loop, xs, i, x):
    """The head of a loop over array xs, a range, array or while loop (the
    while's own i += 1 is the body's), and how its body names the element."""
    if loop == "range":
        return [f"for {i} in 0..len({xs}):"], f"{xs}[{i}]"
    if loop == "array":
        return [f"for {x} in {xs}:"], x
    return [f"var {i} = 0", f"while {i} < len({xs}):"], f"{xs}[{i}]"


def record(g):
    """A running record (opt_records.c marks its update seldom taken): the
    least or greatest value of an array of ints or floats so far, its index,
    or both, `if xs[i] * k OP best: best = xs[i] * k; bi = i` with OP < <= > >=
    (ties: the first or the last of equal values), or the index alone, `if
    xs[i] OP xs[m]: m = i`, in a range loop, an array loop or a while loop;
    now and then a NaN among floats (never a record, and a NaN record never
    replaced), a scaled int that overflows (a panic in the comparison), a
    break, an empty array. Draws from g.records."""
    r = g.records
    if g.pure:
        return None
    g.use("record")
    et = r.choice(["int", "float"])
    xs, best, bi, i, x, m = (g.fresh(p) for p in ("xs", "best", "bi", "i", "x", "m"))
    n = r.choice([0, 1, 2, 5, 7, 9])
    if et == "int":
        big = r.random() < 0.15
        vals = [r.choice([-3, 0, 2, 2, 5, 7, 4611686018427387904 if big else 1]) for _ in range(n)]
        k = r.choice([1, 1, 2, -1])
    else:
        vals = [r.choice([-1.5, 0.25, 0.25, 2.0, 3.75, float("nan") if r.random() < 0.3 else 1.0]) for _ in range(n)]
        k = r.choice([1.0, 1.0, -0.5, 2.0])
    lit = lambda v: str(v) if et == "int" else ("(0.0 / 0.0)" if math.isnan(v) else fmt_float(v))
    kl = lit(k)
    op = r.choice(["<", "<=", ">", ">="])
    shape = r.choice(["both", "value", "index"])
    loop = r.choice(["range", "array", "while"]) if shape == "value" else r.choice(["range", "while"])
    start = r.choice(["first", "lit"])
    init = r.choice([0, 4, -2]) if et == "int" else r.choice([0.0, 1.0e300, -1.0e300, float("nan")])
    stop = r.randint(0, max(n - 1, 0)) if r.random() < 0.2 else None
    lines = [f"let {xs} = [{', '.join(lit(v) for v in vals)}]" if vals else f"let {xs}: [{et}] = []"]
    first = f"{xs}[0] * {kl}" if start == "first" and n else lit(init)
    lines += [f"var {best} = {first}", f"var {bi} = -1", f"var {m} = 0"]
    head, elem = loop_over(loop, xs, i, x)
    lines += head
    body = []
    if stop is not None and loop != "array":
        body += [f"if {i} == {stop}:", "    break"]
    if shape == "index":
        body += [f"if {elem} {op} {xs}[{m}]:", f"    {m} = {i}"]
    else:
        body += [f"if {elem} * {kl} {op} {best}:", f"    {best} = {elem} * {kl}"]
        if shape == "both":
            body.append(f"    {bi} = {i}")
    if loop == "while":
        body.append(f"{i} += 1")
    lines += ["    " + b for b in body]
    lines.append(f"print({best}, {bi}, {m})")

    def ex(env):
        cmp = {"<": lambda a, b: a < b, "<=": lambda a, b: a <= b, ">": lambda a, b: a > b, ">=": lambda a, b: a >= b}[op]
        mul = (lambda v: chk("int", v * k, "multiplication")) if et == "int" else (lambda v: v * k)
        bv = mul(vals[0]) if start == "first" and n else init
        biv, mv = -1, 0
        for iv, v in enumerate(vals):
            if stop is not None and loop != "array" and iv == stop:
                break
            if shape == "index":
                if cmp(v, checked_at(vals, mv)):
                    mv = iv
            elif cmp(mul(v), bv):
                bv = mul(v)
                if shape == "both":
                    biv = iv
        env_out(env).append(f"{show(et, bv)} {biv} {mv}\n")
    return lines, ex


def split_push(g):
    """One loop pushing into two or three arrays made empty before it (each
    kept in its own cursor, opt_cursor.c; the loop's small branching step
    unrolled, emit_program.c): a partition by if/elif/else, or pushes into
    every array each step (one of them twice), in a range, array or while
    loop over ints or floats; now and then a read past the end of a shorter
    array (a panic between pushes), an int that overflows, a break. Draws
    from g.splits."""
    r = g.splits
    if g.pure:
        return None
    g.use("split-push")
    et = r.choice(["int", "float"])
    xs, ws, i, x = (g.fresh(p) for p in ("xs", "ws", "i", "x"))
    k = r.choice([2, 2, 3])
    outs = [g.fresh("o") for _ in range(k)]
    n = r.randint(0, 9)
    if et == "int":
        vals = [r.choice([-3, 0, 2, 5, 7, 4611686018427387904 if r.random() < 0.1 else 1]) for _ in range(n)]
    else:
        vals = [r.choice([-1.5, 0.25, 2.0, 3.75, 1.0]) for _ in range(n)]
    lit = (lambda v: str(v)) if et == "int" else fmt_float
    wn = n if r.random() < 0.8 else max(0, n - r.randint(1, 3))
    wvals = [r.choice([1, 2, 3]) for _ in range(wn)]
    shape = r.choice(["partition", "every"])
    loop = r.choice(["range", "array", "while"])
    stop = r.randint(0, max(n - 1, 0)) if r.random() < 0.2 and loop != "array" else None
    cut = lit(r.choice([0, 2, 5]) if et == "int" else r.choice([0.0, 1.0, 2.5]))
    lines = [f"let {xs} = [{', '.join(lit(v) for v in vals)}]" if vals else f"let {xs}: [{et}] = []",
             f"let {ws} = [{', '.join(str(v) for v in wvals)}]" if wvals else f"let {ws}: [int] = []"]
    lines += [f"var {o}: [{et}] = []" for o in outs]
    head, elem = loop_over(loop, xs, i, x)
    lines += head
    # the weight read: ws[i] (a panic past a shorter ws), or 1 in an array loop
    wread = f"{ws}[{i}]" if loop != "array" else "1"
    scaled = f"{elem} * {wread}" if et == "int" else f"{elem} * float({wread})"
    body = []
    if stop is not None:
        body += [f"if {i} == {stop}:", "    break"]
    if shape == "partition":
        body += [f"if {elem} < {cut}:", f"    {outs[0]}.push({elem})"]
        if k == 3:
            body += [f"elif {elem} == {cut}:", f"    {outs[2]}.push({scaled})"]
        body += ["else:", f"    {outs[1]}.push({scaled})"]
    else:
        body += [f"{outs[0]}.push({elem})", f"{outs[1]}.push({scaled})"]
        if k == 3:
            body += [f"{outs[2]}.push({elem})", f"{outs[0]}.push({elem})"]
    if loop == "while":
        body.append(f"{i} += 1")
    lines += ["    " + b for b in body]
    lines.append(f"print({', '.join(outs)})")

    def ex(env):
        got = [[] for _ in outs]
        for iv, v in enumerate(vals):
            if stop is not None and iv == stop:
                break
            def sc():
                w = checked_at(wvals, iv) if loop != "array" else 1
                return chk("int", v * w, "multiplication") if et == "int" else v * float(w)
            cv = int(cut) if et == "int" else float(cut)
            if shape == "partition":
                if v < cv:
                    got[0].append(v)
                elif k == 3 and v == cv:
                    got[2].append(sc())
                else:
                    got[1].append(sc())
            else:
                got[0].append(v)
                got[1].append(sc())
                if k == 3:
                    got[2].append(v)
                    got[0].append(v)
        env_out(env).append(" ".join(show("[" + et + "]", o) for o in got) + "\n")
    return lines, ex


def scan_stmt(g):
    """A scan that a statement evaluates first (opt_scanloop.c writes it as a
    loop pushing its running values, which fill or cursor then run): scan sum
    or product of ints, u64 or floats, or scan(f, start, gen) of text, as a
    let, an assignment, a print's first value or indexed; now and then a
    filter, a second clause, a read past the end of the data (a panic
    between entries), an int that overflows. Draws from g.scans."""
    r = g.scans
    if g.pure:
        return None
    g.use("scan-stmt")
    et = r.choice(["int", "int", "u64", "float", "str"])
    xs, i, j, x, v = (g.fresh(p) for p in ("xs", "i", "j", "x", "v"))
    n = r.randint(0, 8)
    if et == "int":
        vals = [r.choice([-3, 0, 2, 5, 7, 4611686018427387904 if r.random() < 0.15 else 1]) for _ in range(n)]
        lit = str
    elif et == "u64":
        vals = [r.choice([0, 1, 3, 9, 13835058055282163712 if r.random() < 0.15 else 2]) for _ in range(n)]
        lit = lambda q: "u64(4611686018427387904) * u64(3)" if q == 13835058055282163712 else f"u64({q})"
    elif et == "float":
        vals = [r.choice([-1.5, 0.25, 2.0, 3.75, 1.0]) for _ in range(n)]
        lit = fmt_float
    else:
        vals = [r.choice(["a", "bc", "", "d"]) for _ in range(n)]
        lit = lambda q: '"' + q + '"'
    src = r.choice(["range", "array"])
    m = n + (1 if src == "range" and r.random() < 0.15 else 0)
    k = r.choice([1, 1, 1, 2]) if r.random() < 0.3 else 0
    filt = r.random() < 0.3
    cut = r.choice(vals) if vals else None
    if src == "range":
        gen = f"{xs}[{i}] for {i} in 0..{m}"
        if k:
            gen += f" for {j} in 0..{k}"
        if filt:
            gen += f" if {i} % 2 == 0"
    else:
        gen = f"{x} for {x} in {xs}"
        if k:
            gen += f" for {j} in 0..{k}"
        if filt and cut is not None:
            gen += f" if {x} != {lit(cut)}"
    if et == "str":
        back = r.random() < 0.5
        red = None
        expr = f'scan(lambda a, b: {"b + a" if back else "a + b"}, "s", {gen})'
    else:
        red = r.choice(["sum", "product"])
        expr = f"scan {red}({gen})"
    where = r.choice(["let", "assign", "print", "index"])
    lines = [f"let {xs} = [{', '.join(lit(q) for q in vals)}]" if vals else f"let {xs}: [{et}] = []"]
    if where == "let":
        lines += [f"let {v} = {expr}", f"print({v})"]
    elif where == "assign":
        lines += [f"var {v}: [{et}] = []", f"{v} = {expr}", f"print({v})"]
    elif where == "print":
        lines.append(f"print({expr}, len({xs}))")
    else:
        lines.append(f"print({expr}[0])")

    def ex(env):
        acc = "s" if et == "str" else (1 if red == "product" else 0)
        if et == "float":
            acc = float(acc)
        out = []
        for iv in range(m if src == "range" else n):
            for _ in range(k or 1):
                if filt and src == "range" and iv % 2 != 0:
                    continue
                xv = checked_at(vals, iv)
                if filt and src == "array" and cut is not None and xv == cut:
                    continue
                if et == "str":
                    acc = xv + acc if back else acc + xv
                elif et == "float":
                    acc = acc + xv if red == "sum" else acc * xv
                else:
                    acc = chk(et, acc + xv, "addition") if red == "sum" else chk(et, acc * xv, "multiplication")
                out.append(acc)
        if where == "index":
            env_out(env).append(show(et, checked_at(out, 0)) + "\n")
        elif where == "print":
            env_out(env).append(show("[" + et + "]", out) + f" {n}\n")
        else:
            env_out(env).append(show("[" + et + "]", out) + "\n")
    return lines, ex


def minmax_fold(g):
    """A min or max of 0-30 ints, u64 or floats (emit_seqlanes.c folds it eight
    at a time after the first element kept), or any or all of a compare of
    them (tested 16 at a time where the test cannot panic): of the array itself, of its
    elements, of an element expression (a product that may overflow, an
    abs), or of xs[i] over a range that may pass the end (a panic at the
    first index out of range); now and then a filter (for floats one that
    keeps NaN, so the first kept element may be one); floats with NaN,
    infinities and both zeros anywhere. Draws from g.minmaxes."""
    r = g.minmaxes
    if g.pure:
        return None
    g.use("minmax-fold")
    et = r.choice(["int", "u64", "float", "float"])
    red = r.choice(["min", "max"])
    xs, x, i, v = (g.fresh(p) for p in ("xs", "x", "i", "v"))
    n = r.choice([r.randint(0, 8), r.randint(9, 30), r.randint(9, 30)])
    if et == "int":
        pool = [-3, 0, 2, 5, 7, -8, 4611686018427387904 if r.random() < 0.1 else 1]
        lit = str
    elif et == "u64":
        pool = [0, 1, 3, 9, 2, 4611686018427387904 if r.random() < 0.1 else 4]
        lit = lambda q: f"u64({q})"
    else:
        pool = [-1.5, 0.25, 2.0, -0.0, 0.0, 3.75, -2.5] + ([math.nan, math.inf, -math.inf] if r.random() < 0.5 else [])
        g.imports.add("math")
        lit = lambda q: "math.nan" if math.isnan(q) else ("math.inf" if q == math.inf else
                                                          ("-math.inf" if q == -math.inf else repr(q)))
    vals = [r.choice(pool) for _ in range(n)]
    # now and then a few zeros of either sign among values all worse: the
    # lanes meet at a zero, and the first zero's sign is the result
    if et == "float" and n and r.random() < 0.2:
        vals = [-1.0 if red == "max" else 1.0] * n
        zero = r.choice([-0.0, 0.0])
        for _ in range(r.randint(1, 3)):
            vals[r.randrange(n)] = zero
            zero = -zero
    shape = r.choice(["array", "gen", "scaled", "index"])
    filt = r.random() < 0.35
    m = n + (1 if shape == "index" and r.random() < 0.2 else 0)
    if et == "float":
        scaled, fscale = (f"{x} * 2.0", lambda q: q * 2.0) if r.random() < 0.5 else (f"abs({x} - 0.25)", lambda q: abs(q - 0.25))
        ftext, fkeep = f"not ({x} > 1.0)", lambda q: not (q > 1.0)
    elif et == "int":
        scaled, fscale = f"{x} * 3", lambda q: chk("int", q * 3, "multiplication")
        ftext, fkeep = f"{x} % 2 == 0", lambda q: q % 2 == 0
    else:
        scaled, fscale = f"{x} * u64(3)", lambda q: chk("u64", q * 3, "multiplication")
        ftext, fkeep = f"{x} % u64(2) == u64(0)", lambda q: q % 2 == 0
    # any or all of a test of the element instead, now and then (emit_seqlanes.c
    # tests them 16 at a time where nothing in the test can panic)
    test = None
    if r.random() < 0.3:
        red = r.choice(["any", "all"])
        if shape == "array":
            shape = "gen"
        cutv = r.choice([0, 2, 5]) if et != "float" else r.choice([0.0, 1.0, -1.0])
        if et == "float":
            test = (lambda e: f"{e} < {repr(cutv)}", lambda q: q < cutv)
        else:
            test = (lambda e: f"{e} > {lit(cutv)}", lambda q: q > cutv)
    ev = f"{xs}[{i}]" if shape == "index" else (scaled if shape == "scaled" else x)
    if test:
        ev = test[0](ev)
    if shape == "array" and not filt:
        expr = f"{red}({xs})"
    elif shape == "index":
        expr = f"{red}({ev} for {i} in 0..{m}" + (f" if {i} % 3 != 1" if filt else "") + ")"
    else:
        expr = f"{red}({ev} for {x} in {xs}" + (f" if {ftext}" if filt else "") + ")"
    lines = [f"let {xs} = [{', '.join(lit(q) for q in vals)}]" if vals else f"let {xs}: [{et}] = []",
             f"let {v} = {expr}", f"print({v})"]
    # now and then the same min or max kept by a loop from a start (the pass
    # extremes makes it a fold from that start): `if e > v: v = e` or
    # `v = max(v, e)`, through a let or not; an empty range leaves the start
    start = None
    if not test and not filt and r.random() < 0.4:
        start = r.choice(pool)
        d = g.fresh("d")
        head = f"for {i} in 0..{m}:" if shape == "index" else f"for {x} in {xs}:"
        body = [f"let {d} = {ev}"] if r.random() < 0.5 else []
        e = d if body else ev
        op = ">" if red == "max" else "<"
        form = r.choice(["call", "if", "if-left"])
        if form == "call":
            body.append(f"{v} = {red}({v}, {e})")
        elif form == "if":
            body += [f"if {e} {op} {v}:", f"    {v} = {e}"]
        else:
            body += [f"if {v} {'<' if red == 'max' else '>'} {e}:", f"    {v} = {e}"]
        lines = lines[:1] + [f"var {v} = {lit(start)}", head] + ["    " + b for b in body] + [f"print({v})"]

    def kept():
        """the values the fold sees, in order (a read past the end raises)"""
        for iv in range(m if shape == "index" else n):
            if shape == "index":
                if filt and iv % 3 == 1:
                    continue
                yield checked_at(vals, iv)
                continue
            q = vals[iv]
            if filt and not fkeep(q):
                continue
            yield fscale(q) if shape == "scaled" else q

    def ex(env):
        if test:
            res = red == "all"
            for q in kept():
                if test[1](q) == (red == "any"):
                    res = red == "any"
                    break
            env_out(env).append(show("bool", res) + "\n")
            return
        acc = start
        for q in kept():
            acc = q if acc is None else combine(red, et, acc, q)
        if acc is None:
            raise Panic(f"{red} of an empty sequence")
        env_out(env).append(show(et, acc) + "\n")
    return lines, ex


def par_minmax_tuples(g):
    """A par min or max of tuples over up to 3,000 elements (emit_minmax.c
    folds each leaves() call's range in one pass, which under a total order
    is the tree's record; a NaN in a compared field sends the call back leaf
    by leaf): (x, i) with i the range variable or enumerate's index (the
    counter), (x, k) and (k, x) with k an int of few values (ties), and
    ((k, x), j) nested; floats of few values with both zeros (ties whose sign
    shows which element stayed), now and then NaN at a leaf's start
    (a multiple of 16) or anywhere, and a record just after one; now and then a filter that empties whole
    leaves or keeps little. The model: the tree of leaves of 16 (key_tree).
    Draws from g.parmms."""
    r = g.parmms
    if g.pure:
        return None
    g.use("par-minmax-big")
    red = r.choice(["min", "max"])
    n = r.choice([r.randint(0, 40), r.randint(100, 1200), r.randint(1000, 3000)])
    lo = r.choice([0, 0, r.randint(0, 40)])
    a, b, m = r.choice([7, 13, 31, 7919]), r.randint(0, 9), r.choice([3, 5, 11, 101])
    c, d = r.choice([3, 5, 7]), r.choice([2, 4, 9])
    # NaN at a leaf's start makes the leaf's value NaN, which no value to
    # its right replaces: now and then a record just after it (its own
    # leaf, or the next one) that the tree loses and one pass would not
    nans, tops = [], []
    if n and r.random() < 0.5:
        for _ in range(r.randint(1, 3)):
            at = r.randrange(n)
            nans.append(at - at % 16 if r.random() < 0.6 else at)
            if r.random() < 0.5 and nans[-1] + 31 < n:
                tops.append(nans[-1] + r.randint(1, 31))
    top = 99.0 if red == "max" else -99.0
    e, f, h = r.choice([3, 5, 11]), r.randint(0, 5), r.choice([2, 3, 4])
    xs, ks, i, x, v = (g.fresh(p) for p in ("xs", "ks", "i", "x", "v"))

    def xval(q):
        if q in nans:
            return math.nan
        if q in tops:
            return top
        if (q * c) % d == 0:
            return -0.0
        return float((q * a + b) % m) * 0.25 - 1.0
    kval = lambda q: (q * e + f) % h - 1
    nan_text = " or ".join(f"{i} == {q}" for q in nans)
    xtext = f"float(({i} * {a} + {b}) % {m}) * 0.25 - 1.0"
    xtext = f"-0.0 if ({i} * {c}) % {d} == 0 else {xtext}"
    if tops:
        xtext = f"{top} if " + " or ".join(f"{i} == {q}" for q in tops) + f" else ({xtext})"
    if nans:
        g.imports.add("math")
        xtext = f"math.nan if {nan_text} else ({xtext})"
    shape = r.choice(["counted", "enumerate", "xk", "kx", "nested"])
    filt = r.choice([None, None, "leaves", "few"])
    ftext = {None: "", "leaves": f" if {i} / 16 % 3 != 1", "few": f" if {i} % 97 == 5"}[filt]
    fkeep = {None: lambda q: True, "leaves": lambda q: q // 16 % 3 != 1, "few": lambda q: q % 97 == 5}[filt]
    if shape == "enumerate":
        gen, places, t = f"({x}, {i}) for ({i}, {x}) in enumerate({xs})" + ftext, range(n), "(float, int)"
        val = lambda q: (xval(q), q)
    else:
        places = range(lo, n)
        elem, t, val = {
            "counted": (f"({xs}[{i}], {i})", "(float, int)", lambda q: (xval(q), q)),
            "xk": (f"({xs}[{i}], {ks}[{i}])", "(float, int)", lambda q: (xval(q), kval(q))),
            "kx": (f"({ks}[{i}], {xs}[{i}])", "(int, float)", lambda q: (kval(q), xval(q))),
            "nested": (f"(({ks}[{i}], {xs}[{i}]), {i} % 7)", "((int, float), int)", lambda q: ((kval(q), xval(q)), q % 7)),
        }[shape]
        gen = f"{elem} for {i} in {lo}..{n}" + ftext
    lines = [f"let {xs} = [{xtext} for {i} in 0..{n}]",
             f"let {ks} = [({i} * {e} + {f}) % {h} - 1 for {i} in 0..{n}]",
             f"let {v} = par {red}({gen})", f"print({v})"]

    def ex(env):
        start = places[0] if len(places) else 0
        items = [(q - start, val(q)) for q in places if fkeep(q)]
        if not items:
            raise Panic(f"{red} of an empty sequence")
        env_out(env).append(show(t, key_tree(red, t, items)) + "\n")
    return lines, ex


def scratch(g):
    """A scratch array (opt_scratch.c keeps an element read back only in the
    iteration that stored it in a local and drops the store): t = [zero] *
    m of ints, floats or bools, a loop over xs storing t[i + c] from xs[i],
    then reading t[i + c] later in the iteration (once, in an if, after a
    second store at the same index), or a second loop over the same range
    reading it (filled), now and then with a loop between that does not
    touch t (the three fused), a read after the loops (the stores stay), an array
    shorter than the range (a panic at a store), an int that overflows, a
    print before the store. Draws from g.scratches."""
    r = g.scratches
    if g.pure:
        return None
    g.use("scratch")
    et = r.choice(["float", "int", "bool"])
    t, xs, s, i, j = (g.fresh(p) for p in ("t", "xs", "s", "i", "j"))
    n = r.randint(0, 8)
    c = r.choice([0, 0, 0, 1])
    m = max(0, n + c + r.choice([0, 0, 0, 0, 2, -1]))
    if et == "int":
        vals = [r.choice([-3, 1, 2, 5, 4611686018427387904 if r.random() < 0.1 else 7]) for _ in range(n)]
        k = r.choice([1, 3, -2])
    else:
        vals = [r.choice([-1.5, 0.25, 2.0, 3.75, 1e308 if r.random() < 0.1 else 1.0]) for _ in range(n)]
        k = r.choice([1.0, 0.5, -2.0])
    lit = (lambda v: str(v)) if et == "int" else fmt_float
    # its length as a literal, or from xs's (the facts that prove the store inside t)
    size = str(m) if m != n + c or r.random() < 0.4 else (f"(len({xs}) + {c})" if c else f"len({xs})")
    zero = {"int": "0", "float": "0.0", "bool": "false"}[et]
    kind = r.choice(["same", "same", "twice", "if", "fill", "fused"])
    after = r.random() < 0.25 and m > 0
    printing = r.random() < 0.25
    ste = "float" if et == "float" else "int"
    sz = "0.0" if ste == "float" else "0"

    def val(x, second=False):       # the element stored from xs[i] (x its text)
        if et == "bool":
            return f"{x} > {lit(k * (2 if second else 1))}"
        return f"{x} * {lit(k)}" + (f" + {lit(k)}" if second else "")

    def use(e):                     # what s adds of an element
        return f"(1 if {e} else 0)" if et == "bool" else e
    lines = [f"let {xs}: [{'float' if et == 'bool' else et}] = [{', '.join(lit(v) if et != 'bool' else fmt_float(float(v)) for v in vals)}]",
             f"var {t} = [{zero}] * {size}", f"var {s} = {sz}"]
    elem = f"{t}[{i} + {c}]" if c else f"{t}[{i}]"
    lines.append(f"for {i} in 0..len({xs}):")
    if printing:
        lines.append(f'    print("at", {i})')
    lines.append(f"    {elem} = {val(f'{xs}[{i}]')}")
    if kind == "twice":
        lines.append(f"    {elem} = {val(f'{xs}[{i}]', True)}")
    if kind in ("same", "twice"):
        lines.append(f"    {s} = {s} + {use(elem)}")
    elif kind == "if":
        lines += [f"    if {i} % 2 == 0:", f"        {s} = {s} + {use(elem)}"]
    elif kind == "fill":
        lines += [f"for {j} in 0..len({xs}):", f"    {s} = {s} + {use(f'{t}[{j} + {c}]' if c else f'{t}[{j}]')}"]
    else:   # a loop between that neither reads nor writes t
        lines += [f"for {j} in 0..len({xs}):", f"    {s} = {s} + {use(f'{xs}[{j}] > 1.0' if et == 'bool' else f'{xs}[{j}]')}",
                  f"for {j} in 0..len({xs}):", f"    {s} = {s} + {use(f'{t}[{j} + {c}]' if c else f'{t}[{j}]')}"]
    if after:
        lines.append(f"{s} = {s} + {use(f'{t}[{m - 1}]')}")
    lines.append(f"print({s})")

    def ex(env):
        tv = [(0 if et == "int" else 0.0 if et == "float" else False)] * m
        sv = 0 if ste == "int" else 0.0

        def mk(x, second=False):
            if et == "bool":
                return float(x) > k * (2 if second else 1)
            if et == "int":
                v = chk("int", x * k, "multiplication")
                return chk("int", v + k, "addition") if second else v
            return x * k + k if second else x * k

        def add(a, e):
            u = (1 if e else 0) if et == "bool" else e
            return chk("int", a + u, "addition") if ste == "int" else a + u

        def put(ix, v):
            checked_at(tv, ix)
            tv[ix] = v
        for iv, x in enumerate(vals):
            if printing:
                env_out(env).append(f"at {iv}\n")
            put(iv + c, mk(x))
            if kind == "twice":
                put(iv + c, mk(x, True))
            if kind in ("same", "twice") or (kind == "if" and iv % 2 == 0):
                sv = add(sv, checked_at(tv, iv + c))
        if kind == "fused":
            for x in vals:
                sv = add(sv, float(x) > 1.0 if et == "bool" else x)
        if kind in ("fill", "fused"):
            for iv in range(n):
                sv = add(sv, checked_at(tv, iv + c))
        if after:
            sv = add(sv, checked_at(tv, m - 1))
        env_out(env).append(f"{show(ste, sv)}\n")
    return lines, ex


def tuple_flow(g):
    """Tuples that go through memory and come back: a work list of (float,
    float, int[, str]) segments popped until empty, each split in two
    (pushed) until its depth runs out or its width is small (the popped
    tuple read field by field from its slot, the pushed one stored field
    by field: BRT_POP_EACH, BRT_PUSH_EACH), now and then with a copy of the
    list kept (the pop's copy-on-write path), or a recursive helper
    returning (float, float, int) that adds its two calls' fields (the
    result's fields kept in registers: BP_KEEP). Draws from g.flows."""
    r = g.flows
    if g.pure:
        return None
    g.use("tuple-flow")
    lo = r.choice([0.0, -1.5, 0.25, 3.0])
    hi = lo + r.choice([1.0, 2.5, 0.125, 7.0])
    depth = r.randint(0, 6)
    scale = r.choice([0.5, 1.25, -0.75, 3.0])
    if r.random() < 0.5:
        h = g.fresh("rp")
        g.top += [f"fn {h}(lo: float, hi: float, d: int) -> (float, float, int):",
                  "    if d <= 0 or hi - lo < 0.01:",
                  f"        return (hi - lo, lo * {fmt_float(scale)} + hi, 1)",
                  "    let m = (lo + hi) / 2.0",
                  f"    let l = {h}(lo, m, d - 1)",
                  f"    let r = {h}(m, hi, d - 1)",
                  "    return (l.0 + r.0, l.1 * 0.5 + r.1, l.2 + r.2)", ""]

        def rp(a, b, d):
            if d <= 0 or b - a < 0.01:
                return (b - a, a * scale + b, 1)
            m = (a + b) / 2.0
            x, y = rp(a, m, d - 1), rp(m, b, d - 1)
            return (x[0] + y[0], x[1] * 0.5 + y[1], x[2] + y[2])
        t = g.fresh("t")
        lines = [f"let {t} = {h}({fmt_float(lo)}, {fmt_float(hi)}, {depth})", f"print({t}.0, {t}.1, {t}.2)"]

        def ex(env):
            v = rp(lo, hi, depth)
            env_out(env).append(f"{fmt_float(v[0])} {fmt_float(v[1])} {v[2]}\n")
        return lines, ex
    w, acc, cnt, keep, a, b, d, sn, m = (g.fresh(p) for p in ("w", "a", "c", "k", "a", "b", "d", "s", "m"))
    named = r.random() < 0.3
    kept = r.random() < 0.3
    tag = ', "s"' if named else ""
    sfx = f", {sn}" if named else ""
    lines = [f"var {w} = [({fmt_float(lo)}, {fmt_float(hi)}, {depth}{tag})]"]
    if kept:
        lines.append(f"let {keep} = {w}")
    lines += [f"var {acc} = 0.0", f"var {cnt} = 0", f"while len({w}) > 0:",
              f"    let ({a}, {b}, {d}{sfx}) = {w}.pop()",
              f"    {cnt} += 1", f"    if {d} <= 0 or {b} - {a} < 0.01:",
              f"        {acc} += ({b} - {a}) * {fmt_float(scale)} + {a}",
              "    else:",
              f"        let {m} = ({a} + {b}) / 2.0",
              f"        {w}.push(({m}, {b}, {d} - 1{sfx}))", f"        {w}.push(({a}, {m}, {d} - 1{sfx}))",
              f"print({acc}, {cnt}" + (f", len({keep}))" if kept else ")")]

    def ex(env):
        work = [(lo, hi, depth)]
        av, cv = 0.0, 0
        while work:
            x, y, dv = work.pop()
            cv += 1
            if dv <= 0 or y - x < 0.01:
                av = av + ((y - x) * scale + x)
            else:
                mv = (x + y) / 2.0
                work.append((mv, y, dv - 1))
                work.append((x, mv, dv - 1))
        env_out(env).append(f"{fmt_float(av)} {cv}" + (" 1" if kept else "") + "\n")
    return lines, ex


def map_self(g):
    """`var a = [x0 + d for d in 0..n]`, then S times `a = [par] [a[i] OP E for
    i in 0..len(a)]` (E any expression of i; it may read a too), then a
    printed: each element from its own slot, which the compiler may write in
    place when a alone holds the array (emit_maps.c: emit_map_in_place; the
    loop of steps tested once, before it: map_steps); now and then a copy
    kept before, printed after. Every element from the old array, in
    index order; the first (par: the lowest index's) panic."""
    r = g.r
    if g.pure:
        return None
    a, d, s, i, keep = (g.fresh(p) for p in ("a", "d", "s", "i", "k"))
    et = r.choice(["int", "float"])
    t = f"[{et}]"
    n = r.choice([0, 1, 3, 8, 17, r.randint(0, 40)])
    x0 = r.choice([-3, 0, 2, 7]) if et == "int" else r.choice([-1.5, 0.0, 0.25, 3.0])
    steps = r.randint(1, 3)
    is_par = r.random() < 0.5
    kept = r.random() < 0.25
    op = r.choice(["+", "-", "*"])
    g.use("map-self")
    if is_par:
        g.use("par")
    g.scope.append({a: (t, False), i: ("int", False)})
    g.pure += 1
    g.in_par += is_par
    e = g.typed(g.expr(et, 2), et)
    g.in_par -= is_par
    g.pure -= 1
    g.scope.pop()
    conv = f"float({d})" if et == "float" else d
    lines = [f"var {a}: {t} = [{show(et, x0)} + {conv} for {d} in 0..{n}]"]
    if kept:
        lines.append(f"let {keep} = {a}")
    lines += [f"for {s} in 0..{steps}:",
              f"    {a} = {'par ' if is_par else ''}[{a}[{i}] {op} {par(e, 12)} for {i} in 0..len({a})]",
              f"print({a}{', ' + keep if kept else ''})"]
    what = {"+": "addition", "-": "subtraction", "*": "multiplication"}[op]

    def ex(env):
        cur = [x0 + (float(k) if et == "float" else k) for k in range(n)]
        first = list(cur)
        for _ in range(steps):
            sub0 = Env(env)
            sub0.vars[a] = [t, True, cur]
            out = []
            for k in range(len(cur)):
                sub = Env(sub0)
                sub.vars[i] = ["int", False, k]
                y = e.ev(sub)
                if et == "int":
                    v = chk("int", {"+": cur[k] + y, "-": cur[k] - y, "*": cur[k] * y}[op], what)
                else:
                    v = {"+": lambda p, q: p + q, "-": lambda p, q: p - q, "*": f_mul}[op](cur[k], y)
                out.append(v)
            cur = out
        env.vars[a] = [t, True, cur]
        if kept:
            env.vars[keep] = [t, False, first]
        env_out(env).append(show(t, cur) + (" " + show(t, first) if kept else "") + "\n")
    g.scope[-1][a] = (t, True)
    if kept:
        g.scope[-1][keep] = (t, False)
    return lines, ex


def comp_helpers(g):
    """Helpers returning a comprehension, called in a loop: `v = comb(v,
    scale(w, c))` (comb `[u[k] OP v[k] for k in 0..len(U)]`, U either
    argument; scale `[x * c for x in u]`, now and then after a let, now and
    then par; comb now and then over zip(u, v)), or the same written in
    main, `let z = [x * c for x in w]; v = [v[k] OP z[k] for k in
    0..len(v)]` (opt_inline.c writes the calls in
    place, opt_fuse.c computes z[k] where the next comprehension reads it).
    w now and then one shorter or longer than v (an index panic at the read
    of the shorter, inside comb), int values near an end of int now and then
    (an overflow in scale, whose whole array comes first, or in comb). Draws
    from its own stream (g.combs): other programs stay as they were."""
    r = g.combs
    if g.pure:
        return None
    et = r.choice(["int", "float"])
    t = f"[{et}]"
    sc, cb, pu, pc, pv, x, k, h = (g.fresh(p) for p in ("sc", "cb", "p", "p", "p", "x", "k", "h"))
    v, w, z, s, c2, x2, k2 = (g.fresh(p) for p in ("v", "w", "z", "s", "c", "x", "k"))
    n = r.randint(0, 6)
    nw = n + r.choice([0, 0, 0, 0, -1, 1]) if n else r.choice([0, 0, 1])
    nw = max(0, nw)
    if et == "int":
        pick = lambda: r.choice([1, -2, 3, 7, 40, 4611686018427387903, -4611686018427387904]) if r.random() < 0.2 else r.randint(-9, 9)
    else:
        pick = lambda: r.choice([0.5, -1.25, 3.0, 0.1, 1e300, -0.0, 2.0])
    vv, wv = [pick() for _ in range(n)], [pick() for _ in range(nw)]
    op = r.choice(["+", "-", "*"])
    what = {"+": "addition", "-": "subtraction", "*": "multiplication"}[op]
    by_first = r.random() < 0.6          # comb's bound len(u), else len(v)
    swapped = r.random() < 0.3           # comb(scale(w, c), v)
    with_let = r.random() < 0.3          # scale's factor from a let: c + c
    is_par = r.random() < 0.2
    in_main = r.random() < 0.3           # the two comprehensions written in main
    steps = r.randint(1, 3)
    c0 = r.choice([1, 2, -1, 3])
    g.use("comp-helper")
    if is_par:
        g.use("par")
    m_sc, at_sc = g.mark()   # a binary operation panics at its left operand, an index at its array
    m_u, at_u = g.mark()
    m_v, at_v = g.mark()
    m_op = m_u
    fac = f"({pc} + {pc})" if with_let else pc
    if with_let:
        body = [f"    let {h} = {pc} + {pc}", f"    return {'par ' if is_par else ''}[{at_sc}{x} * {h} for {x} in {pu}]"]
    else:
        body = [f"    return {'par ' if is_par else ''}[{at_sc}{x} * {pc} for {x} in {pu}]"]
    cvt = (lambda e: e) if et == "int" else (lambda e: f"float({e})")
    g.top += [f"fn {sc}({pu}: {t}, {pc}: {et}) -> {t}:"] + body + [""]
    zipped = not in_main and r.random() < 0.25   # comb over zip(u, v): to the shorter, no index panic
    if zipped:
        g.use("enumerate/zip")
        body = f"[{at_u}{x} {op} {k} for ({x}, {k}) in zip({pu}, {pv})]"
    else:
        body = f"[{at_u}{pu}[{k}] {op} {at_v}{pv}[{k}] for {k} in 0..len({pu if by_first else pv})]"
    g.top += [f"fn {cb}({pu}: {t}, {pv}: {t}) -> {t}:", f"    return {body}", ""]
    lines = [f"var {v}: {t} = [" + ", ".join(show(et, y) for y in vv) + "]",
             f"let {w}: {t} = [" + ", ".join(show(et, y) for y in wv) + "]",
             f"for {s} in 0..{steps}:"]
    factor = f"{cvt(s + ' + ' + str(c0))}"
    if in_main:
        # written in main: the places are main's own (the markers name the helpers' text: no place)
        hb = f"({c2} + {c2})" if with_let else c2
        fst, snd = (z, v) if swapped else (v, z)
        bound = fst if by_first else snd
        lines += [f"    let {c2} = {factor}", f"    let {z} = [{x2} * {hb} for {x2} in {w}]",
                  f"    {v} = [{fst}[{k2}] {op} {snd}[{k2}] for {k2} in 0..len({bound})]"]
    else:
        args = f"{sc}({w}, {factor}), {v}" if swapped else f"{v}, {sc}({w}, {factor})"
        lines.append(f"    {v} = {cb}({args})")
    lines.append(f"print({v})")

    def mul(a, b):
        return chk("int", a * b, "multiplication") if et == "int" else f_mul(a, b)

    def ex(env):
        cur = list(vv)
        env.vars[v] = [t, True, list(vv)]
        env.vars[w] = [t, False, list(wv)]
        for st in range(steps):
            cf = st + c0 if et == "int" else float(st + c0)
            if with_let:
                cf = chk("int", cf + cf, "addition") if et == "int" else cf + cf
            zs = []
            for y in wv:
                try:
                    zs.append(mul(y, cf))
                except Panic as e:
                    raise Panic(str(e), None if in_main else m_sc)
            us, ws = (zs, cur) if swapped else (cur, zs)
            out = []
            for kk in range(min(len(us), len(ws)) if zipped else len(us) if by_first else len(ws)):
                for arr, mk in ((us, m_u), (ws, m_v)):
                    if kk >= len(arr):
                        raise Panic(f"index out of bounds: the len is {len(arr)} but the index is {kk}", None if in_main else mk)
                a_, b_ = us[kk], ws[kk]
                if et == "int":
                    val = {"+": a_ + b_, "-": a_ - b_, "*": a_ * b_}[op]
                    if not RANGE["int"][0] <= val <= RANGE["int"][1]:
                        raise Panic("integer overflow in " + what, None if in_main else m_op)
                else:
                    val = {"+": lambda p, q: p + q, "-": lambda p, q: p - q, "*": f_mul}[op](a_, b_)
                out.append(val)
            cur = out
        env.vars[v] = [t, True, cur]
        env_out(env).append(show(t, cur) + "\n")
    g.scope[-1][v] = (t, True)
    g.scope[-1][w] = (t, False)
    return lines, ex


def row_zip(g):
    """`[[sum(x * y for (x, y) in zip(r, c)) for c in S] for r in T]` and its
    neighbours: comprehensions over the rows of arrays (opt_comploop.c writes
    them as index loops; where the element reads len(c), every row of S having
    one length lets interchange jam the sums). Forms: the zip sum; the sum
    over k in 0..len(c) of r[k] * c[k] (r shorter than a c: an index panic at
    r[k], the first in order); the zip sum plus 0.5; a row in a loop over T,
    printed; the zip sum of r and a row of S by index (zip(r, S[j]) in a loop
    over j pushing: opt_iters.c runs it over the index range, reading S[j]
    again). Now and then a row of S one short (the rows differ: the
    comprehension as written), no rows at all, or rows of no elements."""
    r = g.r
    if g.pure:
        return None
    v, s, t, q, x, y, k, c, w = (g.fresh(p) for p in ("v", "s", "t", "q", "x", "y", "k", "c", "w"))
    srows, scols = r.choice([0, 1, 3, 5, r.randint(0, 9)]), r.choice([0, 1, 2, 4, r.randint(0, 6)])
    trows, tcols = r.choice([0, 1, 2, 4]), r.choice([scols, scols, max(scols - 1, 0), scols + 1])
    short = r.randrange(srows) if srows and r.random() < 0.25 else None
    form = r.randrange(5)
    g.use("row-zip")
    g.use("enumerate/zip")
    width = f"({scols - 1} if {q}2 == {short} else {scols})" if short is not None else f"{scols}"
    lines = [f"let {s}: [[float]] = [[float(({q}2 * 7 + {q}3 * 3) % 10) * 0.5 - 2.0 for {q}3 in 0..{width}] for {q}2 in 0..{srows}]",
             f"let {t}: [[float]] = [[float(({q}4 * 5 + {q}5) % 7) * 0.25 + 0.5 for {q}5 in 0..{tcols}] for {q}4 in 0..{trows}]"]
    zsum = f"sum({x} * {y} for ({x}, {y}) in zip({w}, {c}))"
    ksum = f"sum({w}[{k}] * {c}[{k}] for {k} in 0..len({c}))"
    elem = [zsum, ksum, f"{zsum} + 0.5", zsum, zsum][form]
    if form == 3:
        lines += [f"for {w} in {t}:", f"    let {v} = [{elem} for {c} in {s}]", f"    print({v})"]
    elif form == 4:
        lines += [f"for {w} in {t}:", f"    var {v}: [float] = []", f"    for {k} in 0..len({s}):",
                  f"        {v}.push(sum({x} * {y} for ({x}, {y}) in zip({w}, {s}[{k}])))", f"    print({v})"]
    else:
        lines += [f"let {v} = [[{elem} for {c} in {s}] for {w} in {t}]", f"print({v})"]
    srows_w = [(scols - 1 if i == short else scols) for i in range(srows)]

    def ex(env):
        sv = [[float((i * 7 + j * 3) % 10) * 0.5 - 2.0 for j in range(srows_w[i])] for i in range(srows)]
        tv = [[float((i * 5 + j) % 7) * 0.25 + 0.5 for j in range(tcols)] for i in range(trows)]
        env.vars[s] = ["[[float]]", False, sv]
        env.vars[t] = ["[[float]]", False, tv]
        out = []
        for wr in tv:
            row = []
            for cr in sv:
                a = 0.0
                n = len(cr) if form == 1 else min(len(wr), len(cr))
                for kv in range(n):
                    if kv >= len(wr):
                        raise Panic(f"index out of bounds: the len is {len(wr)} but the index is {kv}")
                    a = f_add(a, f_mul(wr[kv], cr[kv]))
                row.append(f_add(a, 0.5) if form == 2 else a)
            if form >= 3:
                env_out(env).append(show("[float]", row) + "\n")
            out.append(row)
        if form < 3:
            env.vars[v] = ["[[float]]", False, out]
            env_out(env).append(show("[[float]]", out) + "\n")
    if form < 3:
        g.scope[-1][v] = ("[[float]]", False)
    g.scope[-1][s] = ("[[float]]", False)
    g.scope[-1][t] = ("[[float]]", False)
    return lines, ex


# the helper kinds: pool-safe (a loop, a local array pushed to) and refused
# by opt_parfor.c's pool_calls (prints, recurses, takes a function value, a
# while loop that counted leaves)
HELPER_KINDS = ["loop", "loop", "push", "print", "recurse", "fnval", "while"]


def pool_helper(g, et, kind):
    """fn h(i: int, xs: [et][, f: fn(int) -> et]) -> et: a loop over k in
    0..K adding xs[i % M + k] * X (X any pure expression of i, k and xs), as
    the kind says. Its lines go to Gen.top; returns (name, model(i, xs, f))."""
    r = g.r
    h, pi, pxs, pk, pf, acc, ys = (g.fresh(p) for p in ("h", "p", "p", "k", "p", "a", "y"))
    K, M = r.randint(1, 4), r.randint(1, 5)
    if et == "int":
        start = r.choice([0, 7, -5, I64[1] - r.randint(0, 50), I64[0] + r.randint(0, 50)])
    else:
        start = r.choice([0.0, 0.5, -2.25, 1e308])
    saved, g.scope = g.scope, [dict(g.consts), {pi: ("int", False), pk: ("int", False), pxs: (f"[{et}]", False)}]
    g.pure += 1
    g.fuel = 12
    c = r.random()   # mostly plain (the helper then runs on the pool), now and then anything
    x = g.typed(g.expr(et, 1), et) if c < 0.5 else g.leaf(et) if c < 0.8 else g.typed(g.expr(et, 2), et)
    g.pure -= 1
    g.scope = saved
    term = f"{pxs}[{pi} % {M} + {pk}] * ({x.text})"
    params = f"{pi}: int, {pxs}: [{et}]" + (f", {pf}: fn(int) -> {et}" if kind == "fnval" else "")
    lines = [f"fn {h}({params}) -> {et}:"]
    if kind == "print":
        lines.append(f"    print({pi})")
    if kind == "push":
        lines += [f"    var {ys}: [{et}] = []", f"    for {pk} in 0..{K}:", f"        {ys}.push({term})",
                  f"    return {ys}[{pi} % {K}]"]
    else:
        lines.append(f"    var {acc}: {et} = {show(et, start)}")
        if kind == "each":
            # every element by a for-each loop, its position counted in pk
            lines += [f"    var {pk} = 0", f"    for {ys} in {pxs}:", f"        {acc} += {ys} * ({x.text})",
                      f"        {pk} += 1"]
        elif kind == "while":
            lines += [f"    var {pk} = 0", f"    while {pk} * {pk} < {K * K}:", f"        {acc} += {term}",
                      f"        {pk} += 1"]
        else:
            lines += [f"    for {pk} in 0..{K}:", f"        {acc} += {term}"]
        if kind == "recurse":
            lines += [f"    if {pi} % 3 == 0:", f"        return {acc}", f"    return {acc} + {h}({pi} - 1, {pxs})"]
        elif kind == "fnval":
            lines.append(f"    return {acc} + {pf}({pi})")
        else:
            lines.append(f"    return {acc}")
    g.top += lines + [""]
    xe = x.ev

    def add(a, y):
        return chk("int", a + y, "addition") if et == "int" else a + y

    def model(iv, xs, f=None):
        if kind == "print":
            env_out(GLOBAL[0]).append(f"{iv}\n")
        # each step reads, multiplies and then adds (a push loop pushes):
        # an overflow of an early step's addition beats a later step's panic
        vals = []
        a = start
        if kind == "each":
            for kv, y in enumerate(xs):
                env = Env(GLOBAL[0])
                env.vars.update({pi: ["int", False, iv], pk: ["int", False, kv], pxs: [f"[{et}]", False, xs]})
                xv = xe(env)
                a = add(a, chk("int", y * xv, "multiplication") if et == "int" else f_mul(y, xv))
            return a
        for kv in range(K):
            env = Env(GLOBAL[0])
            env.vars.update({pi: ["int", False, iv], pk: ["int", False, kv], pxs: [f"[{et}]", False, xs]})
            j = iv % M + kv
            if j >= len(xs):
                raise Panic(f"index out of bounds: the len is {len(xs)} but the index is {j}")
            xv = xe(env)
            y = chk("int", xs[j] * xv, "multiplication") if et == "int" else f_mul(xs[j], xv)
            if kind == "push":
                vals.append(y)
            else:
                a = add(a, y)
        if kind == "push":
            return vals[iv % K]
        if kind == "recurse" and iv % 3 != 0:
            return add(a, model(iv - 1, xs))
        if kind == "fnval":
            return add(a, f(iv))
        return a
    return h, model, K, M


def pool_call(g):
    """Calls of a helper function over i in 0..N where opt_parfor.c may put
    them on the pool: a comprehension, a loop storing into its own slot, a
    fold loop (int sum and max), a par comprehension, a par sum; the helper
    pool-safe or not (HELPER_KINDS). N is small or large enough to split at 2
    and 7 threads; xs is now and then one short for the helper's last read
    (an index panic inside the helper at some i), an int helper starts now and
    then near an end of int (an overflow), and the element may read a
    captured array one short too."""
    r = g.r
    if g.pure:
        return None
    et = r.choice(["int", "float"])
    kind = r.choice(HELPER_KINDS)
    if kind == "loop" and g.eaches.random() < 0.4:
        kind = "each"   # a for-each loop over the array (opt_inline.c writes it in place by index)
    form = r.randrange(5)
    if kind == "print" and form >= 3:
        form = r.randrange(3)   # a par element prints nothing
    t = f"[{et}]"
    h, model, K, M = pool_helper(g, et, kind)
    g.use("pool-call" if kind in ("loop", "push", "each") else "pool-refused")
    v, i, xs, ys, s, mx = (g.fresh(p) for p in ("v", "i", "x", "y", "s", "m"))
    N = r.choice([0, 5, 40, 300, 300])
    L = M + K - 1 - (1 if r.random() < 0.2 else 0)
    xv = [r.randint(-20, 20) if et == "int" else r.choice([0.5, -1.5, 2.0, 0.1, 3.25, -0.0]) for _ in range(L)]
    lines = [f"let {xs}: {t} = [" + ", ".join(show(et, y) for y in xv) + "]"]
    fl = None
    fargs = ""
    if kind == "fnval":
        if et == "int":
            mul = r.choice([2, 3, -1])
            fl, fargs = (lambda a, mul=mul: chk("int", a * mul, "multiplication")), f", lambda q: q * {mul}"
        else:
            fl, fargs = (lambda a: float(a) * 0.5), ", lambda q: float(q) * 0.5"
    call = f"{h}({i}, {xs}{fargs})"
    yv = None
    if r.random() < 0.3:
        yv = [r.randint(-9, 9) if et == "int" else r.choice([1.0, -0.5, 2.5]) for _ in range(N - (1 if r.random() < 0.3 else 0))]
        lines.append(f"let {ys}: {t} = [" + ", ".join(show(et, y) for y in yv) + "]" if yv else f"let {ys}: {t} = []")
        call = f"{call} + {ys}[{i}]"
    start = r.choice([0, 3, I64[1] - r.randint(0, 3000)]) if et == "int" else 0.0
    if form == 0:
        lines.append(f"let {v} = [{call} for {i} in 0..{N}]")
    elif form == 1:
        lines += [f"var {v} = [{show(et, 0 if et == 'int' else 0.0)}] * {N}", f"for {i} in 0..{N}:", f"    {v}[{i}] = {call}"]
    elif form == 2:
        lines += [f"var {s}: {et} = {show(et, start)}", f"var {mx}: {et} = {show(et, start)}", f"for {i} in 0..{N}:",
                  f"    {s} += {call}", f"    {mx} = max({mx}, {call})"]
    elif form == 3:
        lines.append(f"let {v} = par [{call} for {i} in 0..{N}]")
    else:
        lines.append(f"let {s} = par sum({call} for {i} in 0..{N})")

    def elem_at(iv):
        a = model(iv, xv, fl)
        if yv is not None:
            if iv >= len(yv):
                raise Panic(f"index out of bounds: the len is {len(yv)} but the index is {iv}")
            a = chk("int", a + yv[iv], "addition") if et == "int" else a + yv[iv]
        return a

    if form == 2:
        lines.append(f"print({s}, {mx})")
    elif form == 4:
        lines.append(f"print({s})")
    else:
        lines.append(f"print({v})")

    def ex(env):
        if form == 2:
            sv, mv = start, start
            for iv in range(N):
                e = elem_at(iv)
                sv = chk("int", sv + e, "addition") if et == "int" else sv + e
                e = elem_at(iv)
                mv = e if e > mv else mv
            env.vars[s] = [et, True, sv]
            env.vars[mx] = [et, True, mv]
            env_out(env).append(f"{show(et, sv)} {show(et, mv)}\n")
        elif form == 4:
            sv = reduce_model("sum", et, True, [lambda iv=iv: (True, elem_at(iv)) for iv in range(N)])
            env.vars[s] = [et, False, sv]
            env_out(env).append(show(et, sv) + "\n")
        else:
            out = [elem_at(iv) for iv in range(N)]
            env.vars[v] = [t, form == 1, out]
            env_out(env).append(show(t, out) + "\n")
    if form == 2:
        g.scope[-1][s] = (et, True)
        g.scope[-1][mx] = (et, True)
    elif form == 4:
        g.scope[-1][s] = (et, False)
    else:
        g.scope[-1][v] = (t, form == 1)
    return lines, ex


# ---- running brine ------------------------------------------------------------

OPT_PASSES = ("consts", "iters", "fnvals", "unroll", "inline", "scalars", "counted", "shortfor", "accum", "comploop", "fill", "cover", "fuse", "unswitch", "split", "fission", "expand", "extremes", "unique", "lazycopy",
              "loops", "range", "borrow", "interchange", "move", "parfor", "fuseloops", "scratch", "carry", "hoist", "version", "prefetch", "records", "bins")   # compiler/opt.c's table
THREADS = ("1", "2", "7")

# The form families counted (Gen.use): a program counts in a family when a
# statement it kept drew that form.
FAMILIES = ["tuple", "struct", "option", "fnval", "fnval-in-par", "par", "multi-clause", "enumerate/zip",
            "range-step", "str-method", "array-method", "literal-method", "ignored-param", "ignored-param-in-par",
            "row-store", "by-key", "by-key-big", "assert", "world", "counter", "small-aggregate", "sum-nest",
            "border-nest", "cover-grid", "row-par", "fold-par", "fill", "fill-grow", "const-bound", "pool-call", "pool-refused", "map-self",
            "step-nest", "row-zip", "fuse", "comp-helper", "literal-len", "column-walk", "down-loop", "join", "step-sum", "fission", "tuple-flow", "adjacent-loops", "recurrence", "record", "scratch", "split-push", "scan-stmt", "minmax-fold",
            "push-recurrence", "tuple-counter", "dp-table", "par-minmax-big"]


def classify(problem):
    """A finding's class: internal, cc (the C compiler rejects brine's C),
    compile (a program the generator thinks valid is rejected), crash (a
    signal), timeout, builds (builds or thread counts disagree), model."""
    if "exit 70" in problem or "internal error" in problem:
        return "internal"
    if "build exit" in problem:
        return "cc" if "error:" in problem and ".c:" in problem else "compile"
    if "signal" in problem:
        return "crash"
    if "timed out" in problem:
        return "timeout"
    if "differs from (" in problem:
        return "builds"
    return "model"


def build_and_run(brine, d, name, extra, threads, timeout):
    """Builds p.br into name with the extra options; (problems, {threads: result}, C text)."""
    exe = os.path.join(d, name)
    cmd = [brine, "build", "p.br", "-o", exe, "--emit-c"] + extra
    try:
        b = subprocess.run(cmd, cwd=d, capture_output=True, timeout=120)
    except subprocess.TimeoutExpired:
        return [f"{name} build timed out"], {}, None
    if b.returncode != 0:
        return [f"{name} build exit {b.returncode}: " + b.stderr.decode(errors="replace")[:600]], {}, None
    with open(exe + ".c", "rb") as f:
        c = f.read()
    out, problems = {}, []
    for th in threads:
        env = dict(os.environ, BRINE_THREADS=th, BRINE_GPU="off")
        try:
            p = subprocess.run([exe], cwd=d, env=env, capture_output=True, timeout=timeout, stdin=subprocess.DEVNULL)
            out[th] = (p.returncode, p.stdout, p.stderr)
        except subprocess.TimeoutExpired:
            problems.append(f"{name} run BRINE_THREADS={th} timed out")
    return problems, out, c


def judge_runs(vals, out, panic, place, show=repr, tag=""):
    """What is wrong with runs [(key, (status, stdout, stderr))] of one
    program: any two that differ, a signal, and the first against the model
    (stdout, the status, and for a panic its message and innermost place,
    which may name its function: ' in f3'); a normal end writes no stderr."""
    problems = []
    for k, v in vals[1:]:
        if v != vals[0][1]:
            problems.append(f"{tag}{show(k)} differs from ({show(vals[0][0])}): status {v[0]} vs {vals[0][1][0]}")
    for k, (rc, so, se) in vals:
        if rc < 0:
            problems.append(f"{tag}{show(k)}: signal {-rc}")
    if not vals:
        return problems
    rc, so, se = vals[0][1]
    err = se.decode(errors="replace")
    status = 101 if panic else 0
    if rc != status and rc >= 0:
        problems.append(f"{tag}status {rc}, model expects {status} ({panic}); stderr: {err[:300]}")
    if so.decode(errors="replace") != out and rc >= 0:
        problems.append(f"{tag}stdout differs from the model")
    if not panic and err and rc == 0:
        problems.append(f"{tag}stderr {err[:200]!r}")
    if panic and rc == 101:
        first = err.split("\n")[0]
        if first != "panic: " + panic:
            problems.append(f"{tag}panic message: got {first!r}, model {('panic: ' + panic)!r}")
        at = (err.split("\n") + [""])[1]
        want = "  --> p.br:" + place if place else None
        if want and at != want and not at.startswith(want + " in "):
            problems.append(f"{tag}panic place: got {at!r}, model {want!r}")
    return problems


def run_prog(brine, seed, gen, tmp, timeout, opt_variants=True):
    """Returns (problems, src, model out, (panic, place), variants run)."""
    src, out, panic, place = gen
    d = os.path.join(tmp, str(seed))
    os.makedirs(d, exist_ok=True)
    path = os.path.join(d, "p.br")
    with open(path, "w") as f:
        f.write(src)
    problems = []
    results = {}
    cs = {}
    # every other program's release build is for this machine's processor
    # (--cpu=native): the code under AVX2 or AVX-512 only (any and all in
    # blocks, vector lanes) meets the random programs too
    release = ["--release"] + (["--cpu=native"] if seed % 2 else [])
    for mode in ("dev", "release"):
        pr, res, c = build_and_run(brine, d, mode, release if mode == "release" else [], THREADS, timeout)
        problems += pr
        cs[mode] = c
        for th, v in res.items():
            results[(mode, th)] = v
    # the optimizer off, then each pass alone off: a second oracle (dev
    # builds at 2 threads; a variant whose C is the optimized C is not run)
    nvar = 0
    if opt_variants and cs.get("dev") is not None:
        seen = {cs["dev"]}
        for spec in ["none"] + ["-" + p for p in OPT_PASSES]:
            pr, res, c = build_and_run(brine, d, "opt" + spec, ["--opt=" + spec], (), timeout)
            if pr or c in seen:
                problems += pr
                continue
            seen.add(c)
            nvar += 1
            pr, res, c = build_and_run(brine, d, "opt" + spec, ["--opt=" + spec], ("2",), timeout)
            problems += pr
            for th, v in res.items():
                results[("--opt=" + spec, th)] = v
    problems += judge_runs(list(results.items()), out, panic, place)
    # its builds are done with (a finding keeps its source under --keep):
    # a long run holds one program's binaries at a time, not all of them
    shutil.rmtree(d, ignore_errors=True)
    return problems, src, out, (panic, place), nvar


def read_seeds(path):
    """A seed list file: one seed a line, `A-B` for a range; `#` comments."""
    seeds = []
    with open(path) as f:
        for line in f:
            line = line.split("#")[0].strip()
            if not line:
                continue
            if "-" in line[1:]:
                lo, hi = line.split("-", 1)
                seeds += range(int(lo), int(hi) + 1)
            else:
                seeds.append(int(line))
    return seeds


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("brine", nargs="?")
    ap.add_argument("-n", type=int, default=100, help="programs from --seed on")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--seeds", help="a file of seeds (A-B ranges) instead of -n/--seed")
    ap.add_argument("--exclude", help="a file of seeds to leave out (known findings being fixed elsewhere)")
    ap.add_argument("--fresh", type=int, default=0, help="also N seeds drawn from the clock (printed)")
    ap.add_argument("-j", type=int, default=2)
    ap.add_argument("--timeout", type=int, default=30)
    ap.add_argument("--keep", default="/tmp/brine-fuzz")
    ap.add_argument("--show", type=int)
    ap.add_argument("--no-opt-variants", action="store_true", help="skip the --opt=none and pass-off builds")
    ap.add_argument("--no-literal-methods", action="store_true", help="no literals receiving methods (SPEC 3)")
    ap.add_argument("--int-ranges-only", action="store_true", help="range(lo, hi, step) over int only")
    a = ap.parse_args()
    LIT_METHODS[0] = not a.no_literal_methods
    if a.int_ranges_only:
        RANGE_TYPES[:] = ["int"]
    sys.setrecursionlimit(10000)
    if a.show is not None:
        src, out, panic, place = generate(a.show)
        sys.stdout.write(src)
        print("# ---- model stdout ----")
        sys.stdout.write(out)
        print("# ---- model panic:", panic, f"at {place}" if place else "")
        return 0
    if not a.brine:
        ap.error("BRINE is needed")
    brine = os.path.abspath(a.brine)
    os.makedirs(a.keep, exist_ok=True)
    seeds = read_seeds(a.seeds) if a.seeds else list(range(a.seed, a.seed + a.n))
    if a.exclude:
        skip = set(read_seeds(a.exclude))
        seeds = [x for x in seeds if x not in skip]
    if a.fresh:
        fr = random.Random().sample(range(10_000_000, 2_000_000_000), a.fresh)
        print("fresh seeds: " + " ".join(map(str, fr)), flush=True)
        seeds += fr
    bad = 0
    fam_count, fam_bad, cls_count = {}, {}, {}
    nvariants = 0
    with tempfile.TemporaryDirectory(prefix="brine-fuzz-") as tmp, cf.ThreadPoolExecutor(a.j) as ex:
        # generate here, one at a time (the model keeps module state); build and run in parallel
        futs = {}
        for s in seeds:
            try:
                g = generate(s)
            except Exception as e:  # a bug in the generator itself
                print(f"seed {s}: generator error {e!r}", flush=True)
                bad += 1
                cls_count["generator"] = cls_count.get("generator", 0) + 1
                continue
            futs[ex.submit(run_prog, brine, s, g, tmp, a.timeout, not a.no_opt_variants)] = s
        for fu in cf.as_completed(futs):
            s = futs[fu]
            try:
                problems, src, out, panic, nvar = fu.result()
            except Exception as e:  # a bug in the generator itself
                print(f"seed {s}: generator error {e!r}", flush=True)
                bad += 1
                continue
            nvariants += nvar
            fams = USED.get(s, [])
            for f in fams:
                fam_count[f] = fam_count.get(f, 0) + 1
            if problems:
                bad += 1
                for f in fams:
                    fam_bad[f] = fam_bad.get(f, 0) + 1
                for c in sorted({classify(p) for p in problems}):
                    cls_count[c] = cls_count.get(c, 0) + 1
                with open(os.path.join(a.keep, f"{s}.br"), "w") as f:
                    f.write(src)
                with open(os.path.join(a.keep, f"{s}.model"), "w") as f:
                    f.write(out + (f"# panic: {panic[0]}" + (f" at {panic[1]}" if panic[1] else "") + "\n" if panic[0] else ""))
                print(f"seed {s}: [{','.join(sorted({classify(p) for p in problems}))}] " + " | ".join(problems), flush=True)
    print("programs per form family (with findings): " +
          ", ".join(f"{n} {fam_count.get(n, 0)} ({fam_bad.get(n, 0)})" for n in FAMILIES))
    print("findings by class: " + (", ".join(f"{k} {v}" for k, v in sorted(cls_count.items())) or "none"))
    print(f"{len(seeds)} programs, {nvariants} optimizer-off variants with C of their own run, {bad} with findings")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
