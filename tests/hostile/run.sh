#!/usr/bin/env bash
# tests/hostile/run.sh BRINE: inputs meant to break a compiler.
#
# Each input is generated into a temporary directory (deterministically: no
# randomness that differs between runs) and built with `BRINE build`. Every
# one must finish within 10 s with exit status 1 and a proper diagnostic:
# stderr starts with "error:", has a "-->" line, and shows no signal, no C
# compiler ("tcc:", "gcc") and no "internal error". The exceptions build
# and run correctly (a CRLF program, a 1 MB comment). Prints one line per
# failure and ends with "N passed, N failed"; exits 1 if any failed.
set -uo pipefail

if [ $# -ne 1 ]; then
    echo "usage: $0 BRINE" >&2
    exit 2
fi
BRINE=$(realpath "$1")
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
EOF

# ---- check them ---------------------------------------------------------------
passed=0
failed=0
fail() {
    echo "FAIL $1: $2"
    if [ -s "$1.stderr" ]; then head -c 600 "$1.stderr" | head -n 6 | sed 's/^/    /'; fi
    failed=$((failed + 1))
}

# expect_error NAME [LINE]: exit 1, a diagnostic ("error:" first, a --> line,
# at NAME.br:LINE: when LINE is given), nothing that betrays a crash.
expect_error() {
    local name=$1 line=${2:-}
    timeout 10 "$BRINE" build "$name.br" -o "$name.exe" >"$name.stdout" 2>"$name.stderr" </dev/null
    local rc=$?
    if [ $rc -eq 124 ]; then fail "$name" "took longer than 10 s"; return; fi
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
    passed=$((passed + 1))
}

# expect_output NAME TEXT: builds, runs, and prints exactly TEXT.
expect_output() {
    local name=$1 want=$2
    timeout 10 "$BRINE" build "$name.br" -o "$name.exe" >"$name.stdout" 2>"$name.stderr" </dev/null
    local rc=$?
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

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
