#!/usr/bin/env bash
# tests/world/run.sh BRINE: world programs under an MPI launcher.
#
# Every NAME.br here is built twice (dev: libtcc; release: $CC), run once
# without a launcher (one rank) and under `mpirun -n R` for R in WORLD_RANKS
# (default 1 2 3 4 5 7; dev builds at 1 and 3 only). Every run must write
# exactly NAME.out and NAME.err (missing: empty) and exit 101 when NAME.err
# is non-empty, else 0. With R > 1, NAME.multi.out / NAME.multi.err replace
# them where they exist (a panic on one rank, a collective's overflow).
# The runs are oversubscribed on few cores: --mca mpi_yield_when_idle 1
# keeps waiting ranks from spinning. Skips (exit 0) without mpirun.
#
# The examples/world_*.br programs must print the same bytes under mpirun at
# 1, 2, 3 and 4 ranks as in one process.
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
if ! command -v mpirun >/dev/null 2>&1; then
    echo "world: skipped: mpirun not found (make deps installs openmpi-bin libopenmpi-dev)"
    exit 0
fi
RANKS=${WORLD_RANKS:-1 2 3 4 5 7}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/brine-world-XXXXXX")
trap 'rm -rf "$WORK"' EXIT
if [ "$(id -u)" = 0 ]; then
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
MPIRUN=(mpirun -q --oversubscribe --mca mpi_yield_when_idle 1 --bind-to none)

pass=0
fail=0

# check WHAT EXPECT_BASE MULTI_BASE R CMD...: runs CMD, compares with the files.
check() {
    local what=$1 base=$2 r=$3
    shift 3
    local out=$base.out err=$base.err
    if [ "$r" -gt 1 ]; then
        [ -e "$base.multi.out" ] && out=$base.multi.out
        [ -e "$base.multi.err" ] && err=$base.multi.err
    fi
    local want=0
    [ -s "$err" ] && want=101
    timeout 120 "$@" > "$WORK/out" 2> "$WORK/err"
    local got=$?
    local ok=1
    cmp -s "$WORK/out" "$out" || ok=0
    if [ -e "$err" ]; then cmp -s "$WORK/err" "$err" || ok=0; else [ -s "$WORK/err" ] && ok=0; fi
    [ "$got" = "$want" ] || ok=0
    if [ $ok = 1 ]; then
        pass=$((pass + 1))
    else
        fail=$((fail + 1))
        echo "FAIL $what: exit $got (want $want)"
        diff -u "$out" "$WORK/out" | head -20
        if [ -e "$err" ]; then diff -u "$err" "$WORK/err" | head -20; else head -20 "$WORK/err"; fi
    fi
}

cd "$HERE" || exit 2
for src in *.br; do
    name=${src%.br}
    for mode in dev release; do
        bin=$WORK/$name.$mode
        if ! "$BRINE" build "$src" -o "$bin" "--$mode" > "$WORK/build" 2>&1; then
            fail=$((fail + 1))
            echo "FAIL $name ($mode): build"
            head -20 "$WORK/build"
            continue
        fi
        check "$name ($mode, no launcher)" "$HERE/$name" 1 "$bin"
        ranks=$RANKS
        [ $mode = dev ] && ranks="1 3"
        for r in $ranks; do
            check "$name ($mode, mpirun -n $r)" "$HERE/$name" "$r" "${MPIRUN[@]}" -n "$r" "$bin"
        done
    done
done
# The examples: the same bytes under mpirun at 1 to 4 ranks as in one process.
for src in "$HERE"/../../examples/world_*.br; do
    name=$(basename "$src" .br)
    bin=$WORK/$name
    if ! (cd "$(dirname "$src")" && "$BRINE" build "$name.br" -o "$bin" --release) > "$WORK/build" 2>&1; then
        fail=$((fail + 1))
        echo "FAIL example $name: build"
        continue
    fi
    if ! timeout 120 "$bin" > "$WORK/$name.out" 2> "$WORK/$name.err"; then
        fail=$((fail + 1))
        echo "FAIL example $name: one process"
        continue
    fi
    for r in 1 2 3 4; do
        check "example $name (mpirun -n $r)" "$WORK/$name" "$r" "${MPIRUN[@]}" -n "$r" "$bin"
    done
done
echo "$pass passed, $fail failed"
[ $fail = 0 ]
