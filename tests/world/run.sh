#!/usr/bin/env bash
# tests/world/run.sh BRINE: world programs under MPI launchers.
#
# Runs under each MPI implementation in WORLD_MPI (a list of openmpi and
# mpich; default: each one whose launcher is installed), with its own
# launcher: mpirun.openmpi (Open MPI) and mpiexec.mpich (MPICH) on Debian,
# where both can be installed side by side.
#
# The programs: every NAME.br here, which must write exactly NAME.out and
# NAME.err (missing: empty) and exit 101 when NAME.err is non-empty, else 0
# (with R > 1, NAME.multi.out / NAME.multi.err replace them where they
# exist: a panic on one rank, a collective's overflow); and the examples,
# examples/world_*.br, which must print the bytes they print in one process
# (a release build at the default thread count), exit 0 and write nothing
# on stderr. Each is built twice (dev: libtcc; release: $CC).
#
# The matrix: one process (no launcher) at BRINE_THREADS 1, 2, 3, and under
# each launcher with -n R for R in WORLD_RANKS (default 1 to 7), dev and
# release, at BRINE_THREADS 1, 2 and 3.
#   - WORLD_FULL=1: all of it (every R x threads x mode x implementation).
#   - Default (make check): a covering subset: each program under one
#     implementation, turning with the program; release runs every R, its
#     thread count rotating with R and the program; dev runs three of the R,
#     one at each thread count, rotating the same way; so every R and every
#     thread count runs in each mode under each implementation, and across
#     the programs every pairing of R and thread count does.
# And the GPU path without a GPU: each program with a world reduction the
# compiler made a kernel for runs (release) with BRINE_GPU=on on the CPU
# shim (BRINE_GPU_SHIM=1) in one process and under each launcher at -n 1, 2
# and 3, against the same expected bytes; when it exits 0, its tally must
# show every such reduction run on the device.
#
# WORLD_JOBS runs go at once (default: twice the CPUs, from 3 to 8; a
# launch mostly waits, though MPICH's waiting ranks spin). The runs
# are oversubscribed on few cores: Open MPI's --mca mpi_yield_when_idle 1
# keeps waiting ranks from spinning. Skips (exit 0) when no launcher is
# installed.
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
EXAMPLES=$(cd "$HERE/../../examples" && pwd)

# launcher IMPL: the command that starts IMPL's jobs, or nothing. (The
# version is read whole: under pipefail, grep -q closing the pipe early can
# fail the launcher with SIGPIPE.)
launcher() {
    local c v
    case $1 in
    openmpi)
        for c in mpirun.openmpi mpirun; do
            command -v $c >/dev/null 2>&1 || continue
            v=$($c --version 2>&1)
            [[ $v == *'Open MPI'* ]] && { echo $c; return; }
        done ;;
    mpich)
        for c in mpiexec.mpich mpiexec.hydra mpiexec; do
            command -v $c >/dev/null 2>&1 || continue
            v=$($c --version 2>&1)
            [[ $v == *HYDRA* ]] && { echo $c; return; }
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
declare -A LAUNCH
for impl in $IMPLS; do
    LAUNCH[$impl]=$(launcher "$impl")
done
if [ -z "${IMPLS// /}" ]; then
    echo "world: skipped: no MPI launcher found (make deps installs Open MPI and MPICH)"
    exit 0
fi
WORK=$(mktemp -d "${TMPDIR:-/tmp}/brine-world-XXXXXX")
trap 'rm -rf "$WORK"' EXIT
mkdir -p "$WORK/res"
if [ "$(id -u)" = 0 ]; then
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
# the shim's compiled kernels, shared by every run
export XDG_CACHE_HOME=$WORK/cache
unset BRINE_GPU BRINE_GPU_LOG BRINE_GPU_SHIM BRINE_GPU_TALLY BRINE_THREADS
read -ra RANKS <<< "${WORLD_RANKS:-1 2 3 4 5 6 7}"
FULL=${WORLD_FULL:-0}
JOBS=${WORLD_JOBS:-$(( $(nproc 2>/dev/null || echo 2) * 2 ))}
[ -n "${WORLD_JOBS:-}" ] || { [ "$JOBS" -lt 3 ] && JOBS=3; [ "$JOBS" -gt 8 ] && JOBS=8; }
t_start=$(date +%s)

# check ID WHAT BASE R PLACES CMD...: runs CMD, compares with BASE's files;
# PLACES: a file of the world kernels' places that CMD's tally (the
# BRINE_GPU_TALLY file it is given) must name, or "-". Writes
# $WORK/res/ID: empty when it passed, else what failed.
check() {
    local id=$1 what=$2 base=$3 r=$4 places=$5
    shift 5
    local out=$base.out err=$base.err res=$WORK/res/$id o=$WORK/$id.out e=$WORK/$id.err
    if [ "$r" -gt 1 ]; then
        [ -e "$base.multi.out" ] && out=$base.multi.out
        [ -e "$base.multi.err" ] && err=$base.multi.err
    fi
    local want=0
    [ -s "$err" ] && want=101
    [ "$places" != - ] && export BRINE_GPU_TALLY=$WORK/tally.$id
    # Open MPI's session directory of its own for each run: jobs sharing
    # /tmp/ompi.HOST.UID race (one job's exit removes the directory while
    # another's mpirun is making its own inside it: "ORTE_ERROR_LOG ...
    # session_dir.c", seen once in make check)
    mkdir -p "$WORK/ompi/$id"
    export OMPI_MCA_orte_tmpdir_base=$WORK/ompi/$id
    timeout 120 "$@" > "$o" 2> "$e"
    local got=$?
    # Open MPI's launcher's own libevent warning when a rank's pipes close
    # while it watches them (a rank that panics, the others taken down):
    # "[warn] Epoll MOD(1) on fd 28 failed. ... Bad file descriptor", seen
    # once in make check; the launcher's noise, not the program's output
    sed -i '/^\[warn\] Epoll [A-Z]*([0-9]*) on fd [0-9]* failed\./d' "$e"
    local ok=1
    cmp -s "$o" "$out" || ok=0
    if [ -e "$err" ]; then cmp -s "$e" "$err" || ok=0; else [ -s "$e" ] && ok=0; fi
    [ "$got" = "$want" ] || ok=0
    local missing=
    if [ "$places" != - ] && [ "$want" = 0 ]; then
        # the tally names files as the build was given them: compare base names
        missing=$(sed 's/ n=.*//; s|.*/||' "$WORK/tally.$id" 2>/dev/null | LC_ALL=C sort -u |
                  LC_ALL=C comm -23 "$places" -)
        [ -n "$missing" ] && ok=0
    fi
    if [ $ok = 1 ]; then
        : > "$res"
    else
        {
            if [ -n "$missing" ]; then
                echo "FAIL $what: world reductions not run on the (shim) device: $(echo $missing)"
            else
                echo "FAIL $what: exit $got (want $want)"
            fi
            diff -u "$out" "$o" | head -20
            if [ -e "$err" ]; then diff -u "$err" "$e" | head -20; else head -20 "$e"; fi
        } > "$res"
    fi
    rm -f "$o" "$e"
}

# run WHAT BASE R PLACES CMD...: check, WORLD_JOBS at a time.
njobs=0
run() {
    njobs=$((njobs + 1))
    while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do wait -n; done
    check "$njobs" "$@" &
}

# failed WHAT: a failure outside check (a build).
failed() {
    njobs=$((njobs + 1))
    echo "FAIL $*" > "$WORK/res/$njobs"
}

# ---- the programs: build ----------------------------------------------------
# name, expected-files base, and the file of world kernels' places ("-": none)
progs=()
declare -A base places
for src in "$HERE"/*.br "$EXAMPLES"/world_*.br; do
    name=$(basename "$src" .br)
    dir=$(dirname "$src")
    ok=1
    for mode in dev release; do
        extra=()
        [ $mode = release ] && extra=(--emit-cuda)
        if ! (cd "$dir" && "$BRINE" build "$name.br" -o "$WORK/$name.$mode" "--$mode" "${extra[@]}") > "$WORK/build" 2>&1; then
            failed "$name ($mode): build"
            head -20 "$WORK/build" >> "$WORK/res/$njobs"
            ok=0
        fi
    done
    [ $ok = 1 ] || continue
    places[$name]=-
    if grep -q '^/\* brine kernel: .* world ' "$WORK/$name.release.cu" 2>/dev/null; then
        sed -n 's|^/\* brine kernel: \([^ ]*\) world .*|\1|p' "$WORK/$name.release.cu" | sed 's|.*/||' | LC_ALL=C sort -u \
            > "$WORK/$name.places"
        places[$name]=$WORK/$name.places
    fi
    if [ "$dir" = "$HERE" ]; then
        base[$name]=$HERE/$name
    else
        # an example: its own one-process output is the expected one
        base[$name]=$WORK/$name.ref
        if ! timeout 120 "$WORK/$name.release" > "$WORK/$name.ref.out" 2> "$WORK/$name.ref.err" ||
           [ -s "$WORK/$name.ref.err" ]; then
            failed "example $name: one process"
            head -20 "$WORK/$name.ref.err" >> "$WORK/res/$njobs"
            continue
        fi
        rm -f "$WORK/$name.ref.err"
    fi
    progs+=("$name")
done

# ---- the matrix -------------------------------------------------------------
nr=${#RANKS[@]}
read -ra impl_list <<< "$IMPLS"
nimpl=${#impl_list[@]}
p=0
for name in "${progs[@]}"; do
    b=${base[$name]}
    for mode in dev release; do
        for t in 1 2 3; do
            run "$name ($mode, no launcher, threads $t)" "$b" 1 - env BRINE_THREADS=$t "$WORK/$name.$mode"
        done
    done
    m=0
    first=1
    for impl in $IMPLS; do
        # the covering subset: each program under one implementation, turning
        # with the program (every implementation still meets every R, thread
        # count and mode across the programs)
        if [ "$FULL" != 1 ] && [ $(( p % nimpl )) != $m ]; then
            m=$((m + 1))
            continue
        fi
        launch=${LAUNCH[$impl]}
        if [ "$impl" = openmpi ]; then
            MPIRUN=("$launch" -q --oversubscribe --mca mpi_yield_when_idle 1 --bind-to none)
        else
            MPIRUN=("$launch")
        fi
        for mode in dev release; do
            for ((i = 0; i < nr; i++)); do
                r=${RANKS[i]}
                for t in 1 2 3; do
                    if [ "$FULL" != 1 ]; then
                        if [ $mode = release ]; then
                            # every R, the thread count turning with R, program, implementation
                            [ $t = $(( 1 + (i + p + m) % 3 )) ] || continue
                        else
                            # three R, one per thread count: R's index 3p + (t - 1) + 2m
                            [ $i = $(( (3 * p + t - 1 + 2 * m) % nr )) ] || continue
                        fi
                    fi
                    run "$name ($mode, $impl -n $r, threads $t)" "$b" "$r" - \
                        env BRINE_THREADS=$t "${MPIRUN[@]}" -n "$r" "$WORK/$name.$mode"
                done
            done
        done
        # the GPU path on the shim: one process, then -n 1, 2, 3
        if [ "${places[$name]}" != - ]; then
            gpu=(env BRINE_GPU=on BRINE_GPU_SHIM=1)
            if [ $first = 1 ]; then
                run "$name (gpu shim, no launcher)" "$b" 1 "${places[$name]}" "${gpu[@]}" "$WORK/$name.release"
            fi
            for r in 1 2 3; do
                run "$name (gpu shim, $impl -n $r)" "$b" "$r" "${places[$name]}" \
                    "${gpu[@]}" "${MPIRUN[@]}" -n "$r" "$WORK/$name.release"
            done
        fi
        m=$((m + 1))
        first=0
    done
    p=$((p + 1))
done
wait

# One implementation's launcher with the other's library (BRINE_MPI): every
# rank would be a singleton printing the one-process output; it must stop
# with status 2 and say why.
if [ -n "$(launcher openmpi)" ] && [ -n "$(launcher mpich)" ] && [ -e "$WORK/collectives.release" ]; then
    BRINE_MPI=openmpi timeout 60 "$(launcher mpich)" -n 2 "$WORK/collectives.release" > "$WORK/out" 2> "$WORK/err"
    got=$?
    njobs=$((njobs + 1))
    if [ $got = 2 ] && [ ! -s "$WORK/out" ] && grep -q '^brine: world: the launcher started 2 ranks but the MPI library sees 1' "$WORK/err"; then
        : > "$WORK/res/$njobs"
    else
        { echo "FAIL mpich launcher with BRINE_MPI=openmpi: exit $got (want 2)"; head -5 "$WORK/err"; } > "$WORK/res/$njobs"
    fi
fi

pass=0
fail=0
for ((id = 1; id <= njobs; id++)); do
    f=$WORK/res/$id
    if [ -e "$f" ] && [ ! -s "$f" ]; then
        pass=$((pass + 1))
    else
        fail=$((fail + 1))
        if [ -e "$f" ]; then cat "$f"; else echo "FAIL run $id: no result"; fi
    fi
done
what="the covering subset"
[ "$FULL" = 1 ] && what="the full matrix"
echo "$pass passed, $fail failed ($what, $(( $(date +%s) - t_start )) s)"
[ $fail = 0 ]
