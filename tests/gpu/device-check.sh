#!/bin/sh
# tests/gpu/device-check.sh: the GPU offload on a machine with a GPU, in one
# run, the quick checks first and the golden suite last under the time left
# (DEVICE_CHECK_BUDGET seconds in all, default 420). From the repository root:
#
#   tests/gpu/device-check.sh
#
# 1. builds brine (make; the existing build/ if make fails), the
#    copy-bandwidth probe, and finds libnvrtc;
# 2. opens the device (BRINE_GPU_LOG's "ready in N ms");
# 3. tests/gpu/progs (sizes, extremes, arrays, fnvals, clauses, mathfns, trig, reducers, scans, keyed,
#    panics),
#    release builds, BRINE_GPU=on vs off: the same bytes and status;
# 4. measures the device's copy bandwidth (1 GiB device-to-device copy);
# 5. runs W1 (sum of 10^8 floats), W2 (harmonic, n = 10^9) and W3 (a
#    midpoint rule of sin, n = 10^8) on the GPU and on the CPU, and prints
#    the kernel ms, the fraction of the copy bandwidth W1's kernel reaches,
#    and whether the bits match the CPU's;
# 6. world programs (tests/world/reduce_*.br, fold_split.br: keyed blocks, examples/world_dot.br,
#    examples/world_montecarlo.br) under an MPI launcher at -n 2 (in one
#    process when none is installed), on vs off, each rank's blocks on the
#    device (the tally);
# 7. the golden suite with BRINE_GPU=on (dev builds only where libtcc works
#    on that machine), against the expected output, counting the reductions
#    that ran on the device; then with off, if time is left
#    (DEVICE_CHECK_THREADS: the BRINE_THREADS counts, default 1,16).
# Targets on an H200: every result bit-identical to the CPU; W1's kernel at
# >= 80% of the copy bandwidth. Exit 0 when the bits all match (the
# bandwidth target is reported, not enforced).
set -u
cd "$(dirname "$0")/../.."
ROOT=$(pwd)
T=$(mktemp -d "${TMPDIR:-/tmp}/brine-devcheck-XXXXXX")
export XDG_CACHE_HOME="$T/cache"
unset BRINE_GPU BRINE_GPU_LOG BRINE_GPU_SHIM BRINE_GPU_TALLY
# A rehearsal of this script on a machine without a GPU: the CPU shim
# stands in for the device (everything but the bandwidth then runs).
[ "${DEVICE_CHECK_SHIM:-}" = 1 ] && export BRINE_GPU_SHIM=1
J=$(nproc 2>/dev/null || echo 4)
fail=0
bad() { echo "FAIL: $*"; fail=1; }
say() { echo "== $*"; }
t_start=$(date +%s)

say "build"
if ! make -j"$J" all > "$T/make.log" 2>&1; then
    tail -n 30 "$T/make.log"
    if [ -x build/bin/brine ]; then echo "(make failed; using the existing build/)"; else exit 1; fi
fi
B=$ROOT/build/bin/brine
cc -std=gnu11 -O2 -o "$T/bandwidth" tests/gpu/bandwidth.c -ldl || bad "bandwidth probe build"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null
# libnvrtc: the runtime tries the usual names; help it to a pip wheel or a toolkit
if [ -z "${BRINE_NVRTC:-}" ]; then
    for f in /usr/local/cuda/lib64/libnvrtc.so* /usr/local/cuda-*/lib64/libnvrtc.so* \
             /usr/lib/x86_64-linux-gnu/libnvrtc.so* \
             $(python3 -c 'import site,glob;print(" ".join(p for d in site.getsitepackages() for p in glob.glob(d+"/nvidia/cu*/lib/libnvrtc.so*")+glob.glob(d+"/nvidia/cuda_nvrtc/lib/libnvrtc.so*")))' 2>/dev/null); do
        case $f in *builtins*|*alt*) continue ;; esac
        [ -e "$f" ] && { export BRINE_NVRTC=$f; break; }
    done
fi
echo "libnvrtc: ${BRINE_NVRTC:-the default names}"

say "device"
cat > "$T/probe.br" <<'BR'
fn main():
    print(par sum(1.0 / float(i) for i in 1..=100_000))
BR
"$B" build "$T/probe.br" -o "$T/probe" || exit 1
BRINE_GPU=on BRINE_GPU_LOG=1 "$T/probe" 2> "$T/probe.err"
cat "$T/probe.err"
if grep -q 'unavailable\|internal error' "$T/probe.err"; then
    echo "no usable GPU: stopping here"
    exit 1
fi

say "tests/gpu/progs: on vs off"
for p in sizes extremes arrays fnvals clauses mathfns trig reducers scans keyed; do
    "$B" build tests/gpu/progs/$p.br --release -o "$T/$p" || { bad "build $p"; continue; }
    BRINE_GPU=off "$T/$p" > "$T/$p.off" 2>&1
    BRINE_GPU=on "$T/$p" > "$T/$p.on" 2>&1
    if cmp -s "$T/$p.off" "$T/$p.on"; then echo "$p: identical"; else diff "$T/$p.off" "$T/$p.on" | head; bad "$p differs"; fi
done
"$B" build tests/gpu/progs/panics.br --release -o "$T/panics"
for c in 0 1 2 3 4 5 6 7 8 9 10 11 12 13; do
    BRINE_GPU=off "$T/panics" $c > "$T/p.off" 2>&1; a=$?
    BRINE_GPU=on "$T/panics" $c > "$T/p.on" 2>&1; b=$?
    if cmp -s "$T/p.off" "$T/p.on" && [ $a = $b ]; then echo "panics $c: identical ($(head -n 1 "$T/p.off"))"; else bad "panics $c differs"; cat "$T/p.on"; fi
done

say "copy bandwidth"
"$T/bandwidth" | tee "$T/bw"
BW=$(awk '/copy_gbps/ {print $2}' "$T/bw")

for w in w1 w2 w3; do
    W=$(echo $w | tr w W)
    say "$W"
    "$B" build tests/gpu/progs/$w.br --release -o "$T/$w" || { bad "build $w"; continue; }
    ( time -p env BRINE_GPU=off "$T/$w" ) > "$T/$w.cpu" 2> "$T/$w.cputime"
    ( time -p env BRINE_GPU=on BRINE_GPU_LOG=1 "$T/$w" ) > "$T/$w.gpu" 2> "$T/$w.gpulog"
    BRINE_GPU=auto BRINE_GPU_LOG=1 "$T/$w" > "$T/$w.auto" 2> "$T/$w.autolog"
    cat "$T/$w.gpulog" | grep -v '^real\|^user\|^sys'
    echo "auto: $(grep 'par reduction' "$T/$w.autolog" | head -n 1 | sed 's/^brine gpu: //')"
    echo "cpu:  $(cat "$T/$w.cpu" | tr '\n' ' ') ($(grep real "$T/$w.cputime"))"
    echo "gpu:  $(cat "$T/$w.gpu" | tr '\n' ' ') ($(grep real "$T/$w.gpulog"))"
    if cmp -s "$T/$w.cpu" "$T/$w.gpu" && cmp -s "$T/$w.cpu" "$T/$w.auto"; then
        echo "$W bits: identical to the cpu"
    else
        bad "$W bits differ from the cpu"
    fi
    grep -q -- '-> gpu' "$T/$w.gpulog" || bad "$W did not run on the gpu"
    # the warm run: the last log line
    KMS=$(grep -- '-> gpu' "$T/$w.gpulog" | tail -n 1 | sed 's/.*kernels \([0-9.]*\) ms.*/\1/')
    MB=$(grep -- '-> gpu' "$T/$w.gpulog" | tail -n 1 | sed 's/.*, \([0-9.]*\) MB;.*/\1/')
    echo "$W kernel: ${KMS:-?} ms (warm run), ${MB:-?} MB copied"
    if [ $w = w1 ] && [ -n "${BW:-}" ] && [ -n "${KMS:-}" ]; then
        awk -v mb="$MB" -v ms="$KMS" -v bw="$BW" 'BEGIN {
            g = mb * 1e6 / (ms * 1e-3) / 1e9;
            printf "W1 kernel reads %.1f GB/s = %.0f%% of the copy bandwidth (%.1f GB/s); target >= 80%%: %s\n",
                   g, 100 * g / bw, bw, (g >= 0.8 * bw) ? "met" : "NOT met" }'
    fi
done

say "world: on vs off, -n 2"
# the first launcher found; Open MPI's wants leave to run as root and to oversubscribe
MPI=
for c in mpirun.openmpi mpiexec.mpich mpirun mpiexec; do
    command -v $c >/dev/null 2>&1 || continue
    if $c --version 2>&1 | grep -q 'Open MPI\|OpenRTE'; then
        MPI="$c -q --oversubscribe --bind-to none -n 2"
        export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
    else
        MPI="$c -n 2"
    fi
    break
done
[ -n "$MPI" ] || echo "no MPI launcher: world programs in one process only"
for src in tests/world/reduce_float.br tests/world/reduce_int.br tests/world/reduce_elem_panic.br tests/world/fold_split.br \
           examples/world_dot.br examples/world_montecarlo.br; do
    w=$(basename "$src" .br)
    (cd "$(dirname "$src")" && "$B" build "$w.br" --release -o "$T/$w") || { bad "build $w"; continue; }
    $MPI "$T/$w" > "$T/$w.off" 2>&1; a=$?
    BRINE_GPU=on BRINE_GPU_TALLY="$T/$w.tally" $MPI "$T/$w" > "$T/$w.on" 2>&1; b=$?
    n=$(cat "$T/$w.tally" 2>/dev/null | wc -l)
    blocks=$(cat "$T/$w.tally" 2>/dev/null | grep -c ' first=')
    # reduce_elem_panic panics (status 101); a panic found on the device is
    # re-run on the cpu, so in one process it leaves no tally
    want=0
    [ $w = reduce_elem_panic ] && want=101
    if cmp -s "$T/$w.off" "$T/$w.on" && [ $a = $want ] && [ $b = $want ] &&
       { [ "$n" -gt 0 ] || [ $want != 0 ]; }; then
        echo "world $w: identical, status $a; $n device runs ($blocks blocks after a first)"
    else
        diff "$T/$w.off" "$T/$w.on" | head
        bad "world $w differs (status $a vs $b) or ran nothing on the device ($n)"
    fi
done

say "golden suite: on, then off (time left)"
# dev builds need libtcc's runtime files; where they do not work here, release only
builds=
"$B" run examples/hello.br > /dev/null 2>&1 || { builds=--release; echo "dev builds do not work here: release only"; }
dirs=$(ls -d tests/golden/*/ | grep -v '/gpu/$')
for mode in on off; do
    left=$(( ${DEVICE_CHECK_BUDGET:-420} - ($(date +%s) - t_start) ))
    if [ $left -lt 30 ]; then echo "BRINE_GPU=$mode: skipped (${left} s left)"; continue; fi
    out=$(BRINE_GPU=$mode BRINE_GPU_TALLY="$T/tally.$mode" timeout $left "$B" test $dirs $builds --threads "${DEVICE_CHECK_THREADS:-1,16}" -j "$J" 2>&1)
    rc=$?
    [ $rc = 124 ] && echo "BRINE_GPU=$mode: stopped after $left s: $(echo "$out" | grep -c '^ok') tests passed before"
    echo "BRINE_GPU=$mode: $(echo "$out" | tail -n 1)"
    echo "$out" | grep -v '^ok' | head -n 60
    [ $rc = 124 ] || echo "$out" | tail -n 1 | grep -q ' 0 failed' || bad "golden suite with BRINE_GPU=$mode"
    if [ $mode = on ]; then
        n=$(cat "$T/tally.on" 2>/dev/null | wc -l)
        echo "reductions run on the gpu: $n ($(sed 's/ n=.*//' "$T/tally.on" 2>/dev/null | sort -u | wc -l) places)"
        [ "$n" -gt 0 ] || bad "no reduction ran on the gpu"
    fi
done

echo "device check: $(( $(date +%s) - t_start )) s, $([ $fail = 0 ] && echo 'all bits identical' || echo FAILURES)"
rm -rf "$T"
exit $fail
