#!/bin/sh
# tests/gpu/run.sh BRINE NVRTC_CHECK [--golden]: the GPU offload, checked
# without a GPU (docs/gpu.md).
#   1. NVRTC compiles every kernel of tests/gpu/progs (with --golden: of every
#      eligible reduction in tests/golden) with the runtime's options; any
#      error or warning fails. Skipped, with a message, without libnvrtc.
#   2. The CPU shim (BRINE_GPU_SHIM=1) runs the same kernel text: each
#      program of tests/gpu/progs prints the same bytes, stderr and status
#      with BRINE_GPU=on as with off, and really ran kernels (the tally);
#      with --golden also the whole golden suite under BRINE_GPU=on.
#   3. Without libcuda.so.1: BRINE_GPU=on prints the same stdout and exactly
#      one `unavailable` line; auto logs both estimates.
set -u
BRINE=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
NVCHECK=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
GOLDEN=${3:-}
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
T=$(mktemp -d "${TMPDIR:-/tmp}/brine-gpu-XXXXXX")
trap 'rm -rf "$T"' EXIT
export XDG_CACHE_HOME="$T/cache"
unset BRINE_GPU BRINE_GPU_LOG BRINE_GPU_SHIM BRINE_GPU_TALLY
fail=0
bad() { echo "FAIL: $*"; fail=1; }

# ---- 1. NVRTC -----------------------------------------------------------------
mkdir -p "$T/cu"
progs="$HERE/progs/sizes.br $HERE/progs/extremes.br $HERE/progs/arrays.br $HERE/progs/panics.br $HERE/progs/fnvals.br $HERE/progs/clauses.br $HERE/progs/mathfns.br $HERE/progs/trig.br $HERE/progs/reducers.br $HERE/progs/scans.br $HERE/progs/keyed.br"
srcs=$progs
[ "$GOLDEN" = --golden ] && srcs="$srcs $(find "$ROOT/tests/golden" -name '*.br' | sort)"
k=0
for f in $srcs; do
    k=$((k + 1))
    # compile errors are some golden tests' point: those have no kernels
    "$BRINE" build "$f" --emit-cuda -o "$T/cu/p$k" >/dev/null 2>&1 || continue
done
# one NVRTC process a file, as many at a time as there are CPUs (NVRTC takes
# about half a second a kernel): each file's log and status beside it
ls "$T"/cu/*.cu | xargs -P "$(nproc 2>/dev/null || echo 2)" -I{} \
    sh -c '"$0" "$1" > "$1.log" 2>&1; echo $? > "$1.rc"' "$NVCHECK" {}
rc=0
for f in "$T"/cu/*.cu; do
    r=$(cat "$f.rc")
    [ "$r" = 0 ] && continue
    if [ "$r" = 77 ]; then [ $rc = 0 ] && rc=77; else rc=1; fi
done
cat "$T"/cu/*.cu.log > "$T/nvrtc.log"
case $rc in
0) awk '/ kernels compiled, / { k += $1; f += $4 } END { printf "%d kernels compiled, %d failed\n", k, f }' "$T/nvrtc.log" ;;
77) echo "NVRTC check skipped: libnvrtc not found" ;;
*) grep -v '^ok \| kernels compiled, 0 failed$' "$T/nvrtc.log"; bad "NVRTC rejected kernels" ;;
esac

# ---- 2. the shim ------------------------------------------------------------
run() { # out-prefix env... -- program args
    p=$1; shift
    env "$@" > "$p.out" 2> "$p.err"
    echo "status $?" >> "$p.out"
}
for name in sizes extremes arrays fnvals clauses mathfns trig reducers scans keyed; do
    "$BRINE" build "$HERE/progs/$name.br" -o "$T/$name" || { bad "build $name"; continue; }
    run "$T/$name.off" BRINE_GPU=off "$T/$name"
    run "$T/$name.on" BRINE_GPU=on BRINE_GPU_SHIM=1 BRINE_GPU_TALLY="$T/$name.tally" "$T/$name"
    n=$(cat "$T/$name.tally" 2>/dev/null | wc -l)
    if cmp -s "$T/$name.off.out" "$T/$name.on.out" && cmp -s "$T/$name.off.err" "$T/$name.on.err" && [ "$n" -gt 0 ]; then
        echo "shim: $name: $n reductions on the shim, bits identical to the cpu"
    else
        diff "$T/$name.off.out" "$T/$name.on.out" | head -20
        bad "shim: $name differs from the cpu (or ran no kernels: $n)"
    fi
    # extremes.br, reducers.br, scans.br, keyed.br: every reduction in them is eligible,
    # so each place ran on the shim (keyed.br's last, with no keys, never does)
    if [ $name = extremes ] || [ $name = reducers ] || [ $name = scans ] || [ $name = keyed ]; then
        for l in $(grep -n '^[^#]*\(par \|world\.\)\(reduce\|sum\|scan\|product\|min\|max\)' "$HERE/progs/$name.br" |
                   grep -v 'in 0\.\.0)' | cut -d: -f1); do
            grep -q "$name\.br:$l:" "$T/$name.tally" || bad "shim: $name.br line $l never ran on the shim"
        done
    fi
done
"$BRINE" build "$HERE/progs/panics.br" -o "$T/panics" || bad "build panics"
for c in 0 1 2 3 4 5 6 7 8 9 10 11 12 13; do
    run "$T/pan$c.off" BRINE_GPU=off "$T/panics" $c
    run "$T/pan$c.on" BRINE_GPU=on BRINE_GPU_SHIM=1 BRINE_GPU_LOG=1 "$T/panics" $c
    grep -v '^brine gpu: ' "$T/pan$c.on.err" > "$T/pan$c.on.err2"
    if cmp -s "$T/pan$c.off.out" "$T/pan$c.on.out" && cmp -s "$T/pan$c.off.err" "$T/pan$c.on.err2" &&
       grep -q 'status 101' "$T/pan$c.on.out"; then
        echo "shim: panics $c: $(head -n 1 "$T/pan$c.off.err") (as on the cpu)"
    else
        bad "shim: panics $c differs"; cat "$T/pan$c.on.err"
    fi
    # found on the device, then re-run (3, a min of nothing, is the cpu's panic after)
    [ $c = 3 ] || grep -q 'the gpu flagged an overflow or a panic' "$T/pan$c.on.err" ||
        bad "shim: panics $c was not found on the shim"
done
if [ "$GOLDEN" = --golden ]; then
    out=$(BRINE_GPU=on BRINE_GPU_SHIM=1 BRINE_GPU_TALLY="$T/golden.tally" "$BRINE" test "$ROOT/tests/golden" --threads 1,4 2>&1)
    echo "$out" | tail -n 1
    echo "$out" | grep -q ' 0 failed' || { echo "$out" | tail -n 30; bad "golden suite under the shim"; }
    echo "shim: golden suite: $(wc -l < "$T/golden.tally") reductions on the shim ($(sed 's/ n=.*//' "$T/golden.tally" | sort -u | wc -l) places)"
fi

# ---- 3. no GPU ------------------------------------------------------------------
"$BRINE" build "$ROOT/tests/gpu/progs/sizes.br" -o "$T/nogpu" >/dev/null
if ! ldconfig -p 2>/dev/null | grep -q 'libcuda\.so\.1 '; then
    run "$T/ng.on" BRINE_GPU=on "$T/nogpu"
    if cmp -s "$T/sizes.off.out" "$T/ng.on.out" && [ "$(wc -l < "$T/ng.on.err")" -eq 1 ] &&
       grep -qx 'brine gpu: unavailable (libcuda.so.1 not found); running on cpu' "$T/ng.on.err"; then
        echo "no gpu: on: same stdout, one unavailable line"
    else
        bad "no gpu: on"; cat "$T/ng.on.err"
    fi
    cat > "$T/auto.br" <<'BR'
fn main():
    print(par sum(1.0 / float(i) for i in 1..=3000))
    print(par sum(1.0 / float(i) for i in 1..=30_000_000))
BR
    "$BRINE" build "$T/auto.br" -o "$T/auto" >/dev/null
    run "$T/auto" BRINE_GPU=auto BRINE_GPU_LOG=1 "$T/auto"
    if grep -Eq '^brine gpu: .*auto.br:2:11 par reduction n=3000 -> cpu \(gpu estimate [0-9.]+ ms > cpu estimate [0-9.]+ ms\)$' "$T/auto.err"; then
        echo "no gpu: auto: the decision logged with both estimates"
    else
        bad "no gpu: auto log"; cat "$T/auto.err"
    fi
else
    echo "no gpu checks skipped: this machine has libcuda.so.1"
fi

[ $fail = 0 ] && echo "gpu checks: all passed"
exit $fail
