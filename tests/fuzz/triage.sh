#!/usr/bin/env bash
# tests/fuzz/triage.sh HARNESS AFL_DIR: after an AFL++ run, the figures from
# AFL_DIR/fuzzer_stats and every saved crash and hang replayed on HARNESS
# (the ASan/UBSan build) with the first lines of what it printed. Exits 1
# when AFL++ saved any crash or hang: each becomes a golden and is fixed.
set -uo pipefail
if [ $# -ne 2 ]; then
    echo "usage: $0 HARNESS AFL_DIR" >&2
    exit 2
fi
HARNESS=$(realpath "$1")
DIR=$2
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
export BRINE_FUZZ_STDLIB="$ROOT/build/lib/brine/stdlib"
export ASAN_OPTIONS=detect_leaks=0:detect_stack_use_after_return=0
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
if [ -f "$DIR/fuzzer_stats" ]; then
    grep -E '^(run_time|execs_done|execs_per_sec|corpus_count|saved_crashes|saved_hangs|unique_crashes|unique_hangs|bitmap_cvg|cycles_done) ' "$DIR/fuzzer_stats"
fi
found=0
for f in "$DIR"/crashes/id:* "$DIR"/hangs/id:*; do
    [ -e "$f" ] || continue
    found=$((found + 1))
    echo "== $f"
    timeout 10 "$HARNESS" "$f" >/dev/null 2>&1 </dev/null
    echo "   exit status $?"
    timeout 10 "$HARNESS" "$f" 2>&1 >/dev/null </dev/null | grep -m 3 -e ERROR -e 'runtime error' -e 'internal error' -e '#[0-3] ' | sed 's/^/   /'
done
echo "$found crashes and hangs"
[ "$found" -eq 0 ]
