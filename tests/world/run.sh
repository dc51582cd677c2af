#!/usr/bin/env bash
# tests/world/run.sh BRINE: world programs under MPI launchers.
#
# Runs under each MPI implementation in WORLD_MPI (a list of openmpi and
# mpich; default: each one whose launcher is installed), with its own
# launcher: mpirun.openmpi (Open MPI) and mpiexec.mpich (MPICH) on Debian,
# where both can be installed side by side.
#
# Every NAME.br here is built twice (dev: libtcc; release: $CC), run once
# without a launcher (one rank) and under the launcher with -n R for R in
# WORLD_RANKS (default 1 2 3 4 5 7; dev builds at 1 and 3 only). Every run
# must write exactly NAME.out and NAME.err (missing: empty) and exit 101
# when NAME.err is non-empty, else 0. With R > 1, NAME.multi.out /
# NAME.multi.err replace them where they exist (a panic on one rank, a
# collective's overflow). The runs are oversubscribed on few cores: Open
# MPI's --mca mpi_yield_when_idle 1 keeps waiting ranks from spinning.
# Skips (exit 0) when no launcher is installed.
#
# The examples/world_*.br programs must print the same bytes under the
# launcher at 1, 2, 3 and 4 ranks as in one process.
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

# launcher IMPL: the command that starts IMPL's jobs, or nothing.
launcher() {
    local c
    case $1 in
    openmpi)
        for c in mpirun.openmpi mpirun; do
            command -v $c >/dev/null 2>&1 && $c --version 2>&1 | grep -q 'Open MPI' && { echo $c; return; }
        done ;;
    mpich)
        for c in mpiexec.mpich mpiexec.hydra mpiexec; do
            command -v $c >/dev/null 2>&1 && $c --version 2>&1 | grep -q 'HYDRA' && { echo $c; return; }
        done ;;
    esac
}

if [ -n "${WORLD_MPI+set}" ]; then
    IMPLS=$WORLD_MPI
    for impl in $IMPLS; do
        case $impl in
        openmpi|mpich) ;;
        *) echo "world: WORLD_MPI must list openmpi or mpich, got '$impl'" >&2; exit 2 ;;
        esac
        if [ -z "$(launcher "$impl")" ]; then
            echo "world: WORLD_MPI names $impl, but its launcher is not installed" >&2
            exit 2
        fi
    done
else
    IMPLS=
    for impl in openmpi mpich; do
        [ -n "$(launcher "$impl")" ] && IMPLS="$IMPLS $impl"
    done
fi
if [ -z "${IMPLS// /}" ]; then
    echo "world: skipped: no MPI launcher found (make deps installs Open MPI and MPICH)"
    exit 0
fi
WORK=$(mktemp -d "${TMPDIR:-/tmp}/brine-world-XXXXXX")
trap 'rm -rf "$WORK"' EXIT
if [ "$(id -u)" = 0 ]; then
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
RANKS=${WORLD_RANKS:-1 2 3 4 5 7}

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
    done
done
for src in "$HERE"/../../examples/world_*.br; do
    name=$(basename "$src" .br)
    bin=$WORK/$name
    if ! (cd "$(dirname "$src")" && "$BRINE" build "$name.br" -o "$bin" --release) > "$WORK/build" 2>&1 ||
       ! timeout 120 "$bin" > "$WORK/$name.out" 2> "$WORK/$name.err"; then
        fail=$((fail + 1))
        echo "FAIL example $name: build or one process"
        rm -f "$bin"
    fi
done

for impl in $IMPLS; do
    run=$(launcher "$impl")
    if [ "$impl" = openmpi ]; then
        MPIRUN=("$run" -q --oversubscribe --mca mpi_yield_when_idle 1 --bind-to none)
    else
        MPIRUN=("$run")
    fi
    for src in *.br; do
        name=${src%.br}
        for mode in dev release; do
            bin=$WORK/$name.$mode
            [ -e "$bin" ] || continue
            ranks=$RANKS
            [ $mode = dev ] && ranks="1 3"
            for r in $ranks; do
                check "$name ($mode, $impl -n $r)" "$HERE/$name" "$r" "${MPIRUN[@]}" -n "$r" "$bin"
            done
        done
    done
    # The examples: the same bytes at 1 to 4 ranks as in one process.
    for src in "$HERE"/../../examples/world_*.br; do
        name=$(basename "$src" .br)
        [ -e "$WORK/$name" ] || continue
        for r in 1 2 3 4; do
            check "example $name ($impl -n $r)" "$WORK/$name" "$r" "${MPIRUN[@]}" -n "$r" "$WORK/$name"
        done
    done
done
# One implementation's launcher with the other's library (BRINE_MPI): every
# rank would be a singleton printing the one-process output; it must stop
# with status 2 and say why.
if [ -n "$(launcher openmpi)" ] && [ -n "$(launcher mpich)" ] && [ -e "$WORK/collectives.release" ]; then
    BRINE_MPI=openmpi timeout 60 "$(launcher mpich)" -n 2 "$WORK/collectives.release" > "$WORK/out" 2> "$WORK/err"
    got=$?
    if [ $got = 2 ] && [ ! -s "$WORK/out" ] && grep -q '^brine: world: the launcher started 2 ranks but the MPI library sees 1' "$WORK/err"; then
        pass=$((pass + 1))
    else
        fail=$((fail + 1))
        echo "FAIL mpich launcher with BRINE_MPI=openmpi: exit $got (want 2)"
        head -5 "$WORK/err"
    fi
fi
echo "$pass passed, $fail failed"
[ $fail = 0 ]
