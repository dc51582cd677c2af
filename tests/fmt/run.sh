#!/usr/bin/env bash
# tests/fmt/run.sh BRINE: `brine fmt` (docs/cli.md, "brine fmt").
#
# Each NAME.br here is deliberately badly laid out and NAME.fmt.br is its
# canonical layout: formatting NAME.br gives NAME.fmt.br, formatting
# NAME.fmt.br again changes nothing (idempotence), `--check` passes the
# expected file (exit 0) and names the input with a diff (exit 1), and fmt
# rewrites a copy of the input in place into the expected file, keeping its
# mode. Then: a syntax error is reported as the compiler reports it, exit 1,
# the file untouched; --check over several files names only those not
# formatted; a symlink stays a symlink; bad usage is exit 2.
#
# Prints one line per failure and ends with "N passed, N failed"; exits 1 if
# any failed.
set -uo pipefail

if [ $# -ne 1 ]; then
    echo "usage: $0 BRINE" >&2
    exit 2
fi
BRINE=$(realpath "$1")
HERE=$(cd "$(dirname "$0")" && pwd)
WORK=$(mktemp -d "${TMPDIR:-/tmp}/brine-fmt-XXXXXX")
trap 'rm -rf "$WORK"' EXIT
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL $*"; }

for input in "$HERE"/*.br; do
    case "$input" in *.fmt.br) continue ;; esac
    name=$(basename "$input" .br)
    want="$HERE/$name.fmt.br"
    if [ ! -f "$want" ]; then bad "$name: no $name.fmt.br"; continue; fi
    "$BRINE" fmt - < "$input" > "$WORK/got" 2> "$WORK/err"
    if [ $? -eq 0 ] && cmp -s "$WORK/got" "$want"; then ok; else
        bad "$name: formatting $name.br does not give $name.fmt.br"; diff -u "$want" "$WORK/got" | head -20; fi
    "$BRINE" fmt - < "$want" > "$WORK/again" 2> "$WORK/err"
    if [ $? -eq 0 ] && cmp -s "$WORK/again" "$want"; then ok; else bad "$name: formatting $name.fmt.br changes it"; fi
    "$BRINE" fmt --check "$want" > "$WORK/out" 2>&1
    if [ $? -eq 0 ] && [ ! -s "$WORK/out" ]; then ok; else bad "$name: --check $name.fmt.br: not exit 0 and silent"; fi
    cp "$input" "$WORK/$name.br"
    chmod 640 "$WORK/$name.br"
    (cd "$WORK" && "$BRINE" fmt --check "$name.br") > "$WORK/out" 2>&1
    st=$?
    if [ $st -eq 1 ] && grep -q "^$name.br: not formatted" "$WORK/out" && grep -q '^@@ ' "$WORK/out" \
        && cmp -s "$input" "$WORK/$name.br"; then ok; else
        bad "$name: --check $name.br: exit $st (want 1), its name and a diff, the file untouched"; fi
    (cd "$WORK" && "$BRINE" fmt "$name.br") > "$WORK/out" 2>&1
    st=$?
    if [ $st -eq 0 ] && cmp -s "$WORK/$name.br" "$want" && [ "$(stat -c %a "$WORK/$name.br")" = 640 ] \
        && [ -z "$(ls -A "$WORK" | grep brine-fmt)" ]; then ok; else
        bad "$name: fmt $name.br in place: exit $st, not $name.fmt.br, or its mode or a temporary file"; fi
    rm -f "$WORK/$name.br"
done

# A syntax error: the compiler's message, exit 1, the file untouched.
printf 'fn main():\n    let x = (1 +\n    print(x)\n' > "$WORK/broken.br"
cp "$WORK/broken.br" "$WORK/broken.orig"
for mode in "" --check; do
    (cd "$WORK" && "$BRINE" fmt $mode broken.br) > "$WORK/out" 2> "$WORK/err"
    st=$?
    if [ $st -eq 1 ] && grep -q '^error: ' "$WORK/err" && grep -q -- '--> broken.br:' "$WORK/err" \
        && cmp -s "$WORK/broken.br" "$WORK/broken.orig" && [ "$(ls -A "$WORK" | grep -c brine-fmt)" = 0 ]; then ok; else
        bad "syntax error (fmt $mode): exit $st (want 1), the message, the file untouched"; cat "$WORK/err"; fi
done

# --check over several files: exit 1, only the unformatted one named; a
# syntax error in one file does not stop the others.
cp "$HERE/operators.fmt.br" "$WORK/good.br"
cp "$HERE/operators.br" "$WORK/ugly.br"
(cd "$WORK" && "$BRINE" fmt --check good.br broken.br ugly.br) > "$WORK/out" 2> "$WORK/err"
st=$?
if [ $st -eq 1 ] && grep -q '^ugly.br: not formatted' "$WORK/err" && ! grep -q 'good.br' "$WORK/out" "$WORK/err" \
    && grep -q '^+++ ugly.br$' "$WORK/out" && grep -q -- '--> broken.br:' "$WORK/err"; then ok; else bad "--check good broken ugly: exit $st, names"; fi
(cd "$WORK" && "$BRINE" fmt broken.br ugly.br) > "$WORK/out" 2> "$WORK/err"
st=$?
if [ $st -eq 1 ] && cmp -s "$WORK/ugly.br" "$HERE/operators.fmt.br"; then ok; else
    bad "fmt broken.br ugly.br: exit $st (want 1), ugly.br not formatted"; fi

# stdin --check: exit 1 for an unformatted text, 0 for a formatted one.
"$BRINE" fmt --check - < "$HERE/operators.br" > /dev/null 2>&1
st1=$?
"$BRINE" fmt --check - < "$HERE/operators.fmt.br" > /dev/null 2>&1
st0=$?
if [ $st1 -eq 1 ] && [ $st0 -eq 0 ]; then ok; else bad "fmt --check -: exit $st1 and $st0, want 1 and 0"; fi

# CRLF line ends become LF; the program is the same.
printf 'fn main():\r\n    print(1)  # c\r\n' > "$WORK/crlf.br"
printf 'fn main():\n    print(1)  # c\n' > "$WORK/crlf.want"
if "$BRINE" fmt "$WORK/crlf.br" && cmp -s "$WORK/crlf.br" "$WORK/crlf.want"; then ok; else bad "CRLF: not LF"; fi

# A symlink stays a symlink; its target is formatted.
cp "$HERE/operators.br" "$WORK/target.br"
ln -s target.br "$WORK/link.br"
if "$BRINE" fmt "$WORK/link.br" && [ -L "$WORK/link.br" ] && cmp -s "$WORK/target.br" "$HERE/operators.fmt.br"; then ok; else
    bad "symlink: replaced or target not formatted"; fi

# Usage: no file, an unknown option, a missing file, not a .br: exit 2.
for args in "" "--frobnicate x.br" "$WORK/missing.br" "$HERE/run.sh"; do
    "$BRINE" fmt $args > /dev/null 2>&1
    st=$?
    if [ $st -eq 2 ]; then ok; else bad "fmt $args: exit $st, want 2"; fi
done
"$BRINE" fmt --help | grep -q '^usage: brine fmt' && ok || bad "fmt --help"

echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
