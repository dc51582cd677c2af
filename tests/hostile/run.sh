#!/usr/bin/env bash
# tests/hostile/run.sh BRINE: inputs meant to break a compiler.
#
# Each input is generated into a temporary directory (deterministically: no
# randomness that differs between runs) and built with `BRINE build`. Every
# one must finish within 10 s with exit status 1 and a proper diagnostic:
# stderr starts with "error:", has a "-->" line, and shows no signal, no C
# compiler ("tcc:", "gcc") and no "internal error". The exceptions build
# and run correctly (a CRLF program, a 1 MB comment, 100,000 functions).
# Every build runs under /usr/bin/time: its peak RSS must stay under a bound
# (256 MB unless the case says otherwise), its time under the case's limit.
# Prints one line per failure and ends with "N passed, N failed"; exits 1 if
# any failed. HOSTILE_REPORT=1 also prints each case's time and peak RSS.
# About 40 s on 2 cores, most of it the 100,000 functions.
set -uo pipefail

if [ $# -ne 1 ]; then
    echo "usage: $0 BRINE" >&2
    exit 2
fi
BRINE=$(realpath "$1")
TIME=/usr/bin/time
if [ ! -x "$TIME" ]; then
    echo "$0: GNU time (/usr/bin/time, Debian package time) is needed to measure peak memory" >&2
    exit 2
fi
PY=$(command -v python3 || true)
if [ -z "$PY" ]; then
    echo "$0: python3 is needed to generate the inputs" >&2
    exit 2
fi
WORK=$(mktemp -d "${TMPDIR:-/tmp}/brine-hostile-XXXXXX")
trap 'rm -rf "$WORK"' EXIT
cd "$WORK"

# ---- generate the inputs ---------------------------------------------------
"$PY" - <<'EOF'
import random

def w(name, data):
    with open(name, "wb") as f:
        f.write(data.encode() if isinstance(data, str) else data)

rng = random.Random(20240611)  # fixed: the same bytes on every run
w("empty.br", b"")
w("binary.br", bytes(rng.randrange(256) for _ in range(4096)))
w("binary_utf8_bom.br", b"\xef\xbb\xbf" + bytes(rng.randrange(256) for _ in range(512)))
# NUL bytes: a lexer that stops at NUL would accept each of these as the
# valid program before the NUL.
w("nul_after.br", b"fn main():\n    print(1)\n\0fn broken(\n")
w("nul_comment.br", b"fn main():\n    print(1)  # a \0 comment\n")
w("nul_string.br", b'fn main():\n    print("a\0b")\n')
w("nul_code.br", b"fn main():\n    print(1\0)\n")
n = 50000
w("parens.br", "fn main():\n    let x = " + "(" * n + "1" + ")" * n + "\n    print(x)\n")
w("brackets.br", "fn main():\n    let x = " + "[" * n + "1" + "]" * n + "\n    print(x)\n")
w("unary.br", "fn main():\n    let x = " + "-" * n + "1\n    print(x)\n")
w("parens_open.br", "fn main():\n    let x = " + "(" * n + "\n")
# 1 MB lines: a long expression that ends in a type error, a long comment
# followed by an error three lines on (its line number must be right).
w("long_expr.br", "fn main():\n    let x = " + "1 + " * 262144 + '"s"\n    print(x)\n')
w("long_comment.br", "# " + "x" * (1 << 20) + "\nfn main():\n    let y: int = 1.5\n")
w("long_string.br", 'fn main():\n    let s = "' + "y" * (1 << 20) + '\n')
w("long_name.br", "fn main():\n    print(" + "a" * (1 << 20) + ")\n")
# 3,000 nested blocks, one space deeper each.
lines = ["fn main():"]
for d in range(1, 3001):
    lines.append(" " * d + "if true:")
lines.append(" " * 3001 + "print(1)")
w("blocks.br", "\n".join(lines) + "\n")
# 3,000 nested blocks of a sane width (4 spaces) as well.
lines = ["fn main():"]
for d in range(1, 3001):
    lines.append("    " * d + "while true:")
lines.append("    " * 3001 + "pass")
w("blocks4.br", "\n".join(lines) + "\n")
w("tabs.br", "fn main():\n\tprint(1)\n")
w("tabs_mixed.br", "fn main():\n    if true:\n    \tprint(1)\n")
w("unterminated.br", 'fn main():\n    print("abc\n')
w("bad_utf8_ident.br", b"fn main():\n    let \xff\xfe = 1\n")
w("deep_calls.br", "fn main():\n    print(" + "len(" * 3000 + "[1]" + ")" * 3000 + ")\n")
w("huge_literal.br", "fn main():\n    print(" + "9" * 100000 + ")\n")
# Must build and run: CRLF line ends, and a 1 MB comment before a valid program.
w("crlf.br", "fn main():\r\n    let x = 40\r\n    if x > 1:\r\n        print(x + 2)\r\n    print(\"ok\")\r\n")
w("comment_ok.br", "# " + "z" * (1 << 20) + "\nfn main():\n    print(7)\n")
# ---- 100,000 levels, 10 MB lines, 100,000 functions, 1,000 digits ----------
N = 100000
w("parens_100k.br", "fn main():\n    let x = " + "(" * N + "1" + ")" * N + "\n    print(x)\n")
w("brackets_100k.br", "fn main():\n    let x = " + "[" * N + "1" + "]" * N + "\n    print(x)\n")
w("minus_100k.br", "fn main():\n    let x = " + "- " * N + "1\n    print(x)\n")
w("not_100k.br", "fn main():\n    let x = " + "not " * N + "true\n    print(x)\n")
w("bnot_100k.br", "fn main():\n    let x = " + "~" * N + "1\n    print(x)\n")
w("calls_100k.br", "fn main():\n    print(" + "abs(" * N + "1" + ")" * N + ")\n")
w("cond_100k.br", "fn main():\n    let c = true\n    print(" + "1 if c else " * N + "2)\n")
w("lambda_100k.br", "fn main():\n    let f = " + "lambda x: " * N + "1\n")
w("listcomp_100k.br", "fn main():\n    print(" + "[" * N + "1" + " for i in [1]]" * N + ")\n")
w("index_100k.br", "fn main():\n    let xs = [1]\n    print(xs" + "[0]" * N + ")\n")
w("field_100k.br", "fn main():\n    let t = (1, 2)\n    print(t" + ".0" * N + ")\n")
w("methods_100k.br", "fn main():\n    let x = 1" + ".wrapping_add(1)" * N + "\n    print(x)\n")
w("fstring_parens_100k.br", 'fn main():\n    print(f"{' + "(" * N + "1" + ")" * N + '}")\n')
w("fstring_parens_200.br", 'fn main():\n    let k = 5\n    print(f"{' + "(" * 200 + "k * 2" + ")" * 200 + '} {' + "(" * 100 + "-k" + ")" * 100 + ':>4}")\n')
# flat chains: not nesting, but bounded (2,000 operators)
w("sum_100k.br", "fn main():\n    let k = 1\n    print(k" + " + k" * N + ")\n")
w("and_100k.br", "fn main():\n    let c = true\n    print(c" + " and c" * N + ")\n")
# blocks: each level one column deeper, so the file grows with the square of
# the depth; 10,000 levels (50 MB) stand for 100,000 (5 GB)
lines = ["fn main():"]
for d in range(1, 10001):
    lines.append(" " * d + "if true:")
lines.append(" " * 10001 + "print(1)")
w("blocks_10k.br", "\n".join(lines) + "\n")
MB10 = 10 << 20
w("expr_10mb.br", "fn main():\n    let x = " + "1 + " * (MB10 // 4) + '"s"\n')
w("name_10mb.br", "fn main():\n    print(" + "a" * MB10 + ")\n")
w("string_10mb.br", 'fn main():\n    let s = "' + "y" * MB10 + '"\n    print(len(s))\n')
w("comment_10mb.br", "# " + "z" * MB10 + "\nfn main():\n    print(7)\n")
w("functions_100k.br", "".join(f"fn f{i}(x: int) -> int:\n    return x + {i}\n\n" for i in range(N))
  + "fn main():\n    print(f0(1) + f50000(2) + f99999(3))\n")
# 3,000 functions of a loop and a branch each: the range analysis copies
# its state at every branch and loop, once sized by the whole program's
# variables (quadratic: 134 s to build), now by the function's own; its
# peak memory (about 490 MB: the loops' split copies) under 640 MB
w("loop_functions_3k.br", "".join(
    f"fn f{i}(a: [int]) -> int:\n    var s = 0\n    var m = 0\n    for j in 0..len(a):\n"
    f"        if a[j] > a[m] and j > 0:\n            m = j\n        s += a[j]\n    return s + m + {i}\n\n"
    for i in range(3000)) + "fn main():\n    let a = [1, 3, 2]\n    print(f0(a) + f2999(a))\n")
w("digits_1000.br", "fn main():\n    print(" + "9" * 1000 + ")\n")
w("digits_1000_u64.br", "fn main():\n    let x: u64 = " + "1" * 1000 + "\n    print(x)\n")
w("digits_1000_i128.br", "fn main():\n    let x: i128 = -" + "7" * 1000 + "\n    print(x)\n")
w("digits_1000_hex.br", "fn main():\n    print(0x" + "f" * 1000 + ")\n")
w("digits_1000_bin.br", "fn main():\n    print(0b" + "1" * 1000 + ")\n")
w("digits_1000_expr.br", "fn main():\n    print((" + "1" * 1000 + " - 1).wrapping_add(1))\n")
w("digits_1000_float.br", "fn main():\n    print(" + "9" * 1000 + ".0)\n")
w("digits_1000_fraction.br", "fn main():\n    print(0." + "3" * 1000 + ")\n")
# many errors: every one kept and counted, the first shown, in bounded time
w("errors_100k.br", "fn main():\n" + "".join(f'    let x{i}: int = "s"\n' for i in range(N)))
w("syntax_errors_100k.br", "fn main():\n" + "    let = )\n" * N)
w("nesting_errors_1000.br", "fn main():\n" + "".join("    let x = " + "(" * 300 + "1" + ")" * 300 + "\n" for _ in range(1000)))
EOF

# ---- check them ---------------------------------------------------------------
passed=0
failed=0
fail() {
    echo "FAIL $1: $2"
    if [ -s "$1.stderr" ]; then head -c 600 "$1.stderr" | head -n 6 | sed 's/^/    /'; fi
    failed=$((failed + 1))
}

# build NAME: `brine build NAME.br` under timeout $LIMIT_S and /usr/bin/time;
# sets rc, and fails (returns 1) past the time or $LIMIT_MB of peak RSS.
LIMIT_S=10
LIMIT_MB=256
build() {
    local name=$1
    "$TIME" -f '%e %M' -o "$name.time" timeout "$LIMIT_S" "$BRINE" build "$name.br" -o "$name.exe" \
        >"$name.stdout" 2>"$name.stderr" </dev/null
    rc=$?
    local secs kb
    read -r secs kb < <(tail -n 1 "$name.time")
    if [ -n "${HOSTILE_REPORT:-}" ]; then
        printf '%-26s %6s s %8s KB  exit %s\n' "$name" "$secs" "$kb" "$rc"
    fi
    if [ $rc -eq 124 ]; then fail "$name" "took longer than $LIMIT_S s"; return 1; fi
    if [ "${kb:-0}" -gt $((LIMIT_MB * 1024)) ]; then
        fail "$name" "peak RSS $kb KB, over the bound of $LIMIT_MB MB"; return 1
    fi
    return 0
}

# expect_error NAME [LINE] [TEXT]: exit 1, a diagnostic ("error:" first, a
# --> line, at NAME.br:LINE: when LINE is given, TEXT in it when given),
# nothing that betrays a crash.
expect_error() {
    local name=$1 line=${2:-} text=${3:-}
    build "$name" || return
    if [ $rc -gt 128 ]; then fail "$name" "killed by signal $((rc - 128))"; return; fi
    if [ $rc -ne 1 ]; then fail "$name" "exit status $rc, expected 1"; return; fi
    if ! head -c 6 "$name.stderr" | grep -q '^error:'; then fail "$name" "stderr does not start with 'error:'"; return; fi
    if ! grep -q -- '-->' "$name.stderr"; then fail "$name" "no '-->' line in the diagnostic"; return; fi
    if [ -n "$line" ] && ! grep -q -- "--> $name.br:$line:" "$name.stderr"; then
        fail "$name" "the diagnostic is not at $name.br:$line"; return
    fi
    if grep -q -e 'tcc:' -e 'gcc' -e 'internal error' "$name.stderr"; then
        fail "$name" "the diagnostic mentions the C compiler or an internal error"; return
    fi
    if [ -e "$name.exe" ]; then fail "$name" "an executable was written despite the error"; return; fi
    if [ -n "$text" ] && ! head -c 100000 "$name.stderr" | grep -q -F -- "$text"; then
        fail "$name" "the diagnostic does not say '$text'"; return
    fi
    passed=$((passed + 1))
}

# expect_output NAME TEXT: builds, runs, and prints exactly TEXT.
expect_output() {
    local name=$1 want=$2
    build "$name" || return
    if [ $rc -ne 0 ]; then fail "$name" "build: exit status $rc, expected 0"; return; fi
    timeout 10 "./$name.exe" >"$name.stdout" 2>"$name.stderr" </dev/null
    rc=$?
    if [ $rc -ne 0 ]; then fail "$name" "run: exit status $rc, expected 0"; return; fi
    if [ "$(cat "$name.stdout")" != "$want" ]; then
        fail "$name" "printed '$(head -c 200 "$name.stdout")', expected '$want'"; return
    fi
    passed=$((passed + 1))
}

for name in empty binary binary_utf8_bom nul_after nul_comment nul_string nul_code \
            parens brackets unary parens_open long_expr long_string long_name \
            blocks blocks4 tabs unterminated bad_utf8_ident deep_calls huge_literal; do
    expect_error "$name"
done
expect_error long_comment 3
expect_error tabs_mixed 3
expect_output crlf $'42\nok'
expect_output comment_ok 7

deep="nesting deeper than 256 levels"
for name in parens_100k brackets_100k minus_100k not_100k bnot_100k calls_100k cond_100k lambda_100k \
            listcomp_100k index_100k field_100k methods_100k fstring_parens_100k blocks_10k \
            nesting_errors_1000; do
    expect_error "$name" "" "$deep"
done
expect_output fstring_parens_200 "10   -5"
expect_error sum_100k 3 "expression too long: more than 2000 operators in a row"
expect_error and_100k 3 "expression too long: more than 2000 operators in a row"
expect_error expr_10mb 2 "expression too long: more than 2000 operators in a row"
expect_error name_10mb 2 "undefined"
expect_output string_10mb 10485760
expect_output comment_10mb 7
expect_error digits_1000 2 "does not fit in int"
expect_error digits_1000_u64 2 "does not fit in u64"
expect_error digits_1000_i128 2 "does not fit in i128"
expect_error digits_1000_hex 2 "does not fit in int"
expect_error digits_1000_bin 2 "does not fit in int"
expect_error digits_1000_expr 2 "does not fit in int"
expect_error digits_1000_float 2 "float literal is out of range"
expect_output digits_1000_fraction 0.3333333333333333
expect_error errors_100k 2 "due to 1000 or more previous errors"
expect_error syntax_errors_100k 2
LIMIT_S=40 LIMIT_MB=640 expect_output loop_functions_3k 3013
# a program: 100,000 functions through libtcc, linear in time and memory
LIMIT_S=120 LIMIT_MB=1536 expect_output functions_100k 150005

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
