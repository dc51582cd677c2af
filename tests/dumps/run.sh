#!/usr/bin/env bash
# tests/dumps/run.sh BRINE [--bless]: pins the compiler's intermediate forms.
#
# For each NAME.br here, `BRINE --dump=tokens|ast|ir|ir:all NAME.br` (run in
# this directory, so file names in the dumps are relative) must print exactly
# NAME.tokens, NAME.ast, NAME.ir and NAME.opt (the IR after the optimizer), and
# NAME.after-PASS where that file exists (--dump=ir:PASS: the IR after PASS). A change in a dump shows which phase
# changed; review it by eye, then rewrite the expectations with --bless.
# Ends with "N passed, N failed"; exits 1 if any failed.
set -uo pipefail

if [ $# -lt 1 ] || [ $# -gt 2 ] || { [ $# -eq 2 ] && [ "$2" != --bless ]; }; then
    echo "usage: $0 BRINE [--bless]" >&2
    exit 2
fi
BRINE=$(realpath "$1")
BLESS=${2:-}
cd "$(dirname "$0")"
ACTUAL=$(mktemp "${TMPDIR:-/tmp}/brine-dump-XXXXXX")
ERR=$(mktemp "${TMPDIR:-/tmp}/brine-dump-err-XXXXXX")
trap 'rm -f "$ACTUAL" "$ERR"' EXIT

passed=0
failed=0
for src in *.br; do
    name=${src%.br}
    # NAME.after-PASS, where one exists: the IR after that pass (--dump=ir:PASS)
    for kind in tokens ast ir opt $(cd . && ls "$name".after-* 2>/dev/null | sed "s/^$name\.//"); do
        want=$name.$kind
        flag=$kind
        [ "$kind" = opt ] && flag=ir:all # the IR after the optimizer's passes
        [ "${kind#after-}" != "$kind" ] && flag=ir:${kind#after-}
        timeout 30 "$BRINE" --dump=$flag "$src" >"$ACTUAL" 2>"$ERR" </dev/null
        rc=$?
        if [ $rc -ne 0 ]; then
            echo "FAIL $want: brine --dump=$kind exited with status $rc"
            head -n 5 "$ERR" | sed 's/^/    /'
            failed=$((failed + 1))
            continue
        fi
        if [ -n "$BLESS" ]; then
            cp "$ACTUAL" "$want"
            passed=$((passed + 1))
        elif [ ! -f "$want" ]; then
            echo "FAIL $want: no expected dump (review the output, then run $0 BRINE --bless)"
            failed=$((failed + 1))
        elif ! cmp -s "$want" "$ACTUAL"; then
            echo "FAIL $want: the dump differs (-expected +actual)"
            diff -u "$want" "$ACTUAL" | tail -n +3 | head -n 20 | sed 's/^/    /'
            failed=$((failed + 1))
        else
            passed=$((passed + 1))
        fi
    done
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
