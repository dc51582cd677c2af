#!/usr/bin/env bash
# tests/fuzz/smoke.sh HARNESS [FILE|DIR...]: the front-end harness (built with
# ASan and UBSan) on every file of tests/fuzz/corpus (or the files and
# directories named). Each run must end in exit 0 (compiled) or 1 (a
# diagnostic) within 10 s: a signal, a sanitizer report, an internal error
# (the harness aborts on 70) or a timeout fails. Prints one line per failure
# and "N passed, N failed"; exits 1 if any failed. Two at a time: about 30 s
# on 2 cores for the corpus.
set -uo pipefail
if [ $# -lt 1 ]; then
    echo "usage: $0 HARNESS [FILE|DIR...]" >&2
    exit 2
fi
HARNESS=$(realpath "$1")
shift
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
[ $# -gt 0 ] || set -- "$ROOT/tests/fuzz/corpus"
export BRINE_FUZZ_STDLIB="$ROOT/build/lib/brine/stdlib"
export ASAN_OPTIONS=detect_leaks=0:abort_on_error=1:detect_stack_use_after_return=0
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
WORK=$(mktemp -d "${TMPDIR:-/tmp}/brine-fuzz-smoke-XXXXXX")
trap 'rm -rf "$WORK"' EXIT

# one FILE: prints "ok" or "FAIL FILE: why" (the harness runs in FILE's
# directory, so imports beside it resolve)
one() {
    local f=$1 log
    log="$WORK/$(echo "$f" | tr '/' '_').err"
    (cd "$(dirname "$f")" && timeout 10 "$HARNESS" "$(basename "$f")" >/dev/null 2>"$log" </dev/null)
    local rc=$?
    case $rc in
        0|1) if grep -q -e 'runtime error:' -e 'AddressSanitizer' "$log"; then
                 echo "FAIL $f: a sanitizer report"; head -n 4 "$log" | sed 's/^/    /'
             else echo ok; fi ;;
        124) echo "FAIL $f: took longer than 10 s" ;;
        *)   echo "FAIL $f: exit status $rc"; grep -m 4 -e 'ERROR' -e 'runtime error' -e 'internal error' -e '#[0-4] ' "$log" | sed 's/^/    /' ;;
    esac
}
export -f one
export HARNESS WORK
find "$@" -type f -name '*.br' -print0 | sort -z | xargs -0 -n 1 -P 2 bash -c 'one "$0"' >"$WORK/results"
passed=$(grep -c '^ok$' "$WORK/results")
failed=$(grep -c '^FAIL' "$WORK/results")
grep -v '^ok$' "$WORK/results"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
