#!/usr/bin/env bash
# tests/debug/run.sh BRINE: what a debugger and a user of it see.
#
# `brine build -g` (dev: $CC -O0 -g; with --release: -O2 -g) writes OUT.c
# beside the program, with #line directives naming the .br lines and each
# Brine variable x as the C local x_v<N>. gdb in batch mode on depth.br:
# a breakpoint at a .br line is hit, `bt` shows the .br places of every
# frame (recursion included) and the functions bf_main_<name>, `print`
# shows a Brine variable; the release build's line table names .br lines
# too (addr2line: what perf and valgrind read). The program's output under
# gdb is its golden output. Skips (with a line saying so) when gdb is absent.
#
# Also: calls of code that cannot panic write no slot of the call chain and
# such functions no stack check, while a recursion keeps both (the C of
# tests/golden/chains/quiet_calls.br and of a float recursion, run in dev);
# the functions of a mutual recursion are never inlined by the C compiler,
# and its release build overflows with a panic.
#
# Also: a compile-time warning is printed for unwrap of a None known at
# compile time, and the program still runs and panics; BRINE_BACKTRACE takes
# 0 or 1 (anything else: one line, exit 2), 0 printing the innermost place
# only.
#
# Prints one line per failure and ends with "N passed, N failed".
set -uo pipefail
if [ $# -ne 1 ]; then
    echo "usage: $0 BRINE" >&2
    exit 2
fi
BRINE=$(realpath "$1")
HERE=$(cd "$(dirname "$0")" && pwd)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
cd "$T"
pass=0 fail=0
check() { # check DESCRIPTION COMMAND...
    local what=$1
    shift
    if "$@"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL $what"; fi
}
has() { grep -qE -- "$2" "$1"; }

cp "$HERE/depth.br" .
# ---- unwrap of a known None: a warning, then the run-time panic ------------
printf 'fn main():\n    let o: Option[int] = None\n    print(o.unwrap())\n' > none.br
"$BRINE" run none.br > none.out 2> none.err
rc=$?
check "unwrap of a known None: exit 101 (got $rc)" [ $rc -eq 101 ]
check "unwrap of a known None: a warning first" has none.err "^warning: 'o' is None here"
check "unwrap of a known None: the panic" has none.err "^panic: called unwrap on None"

# ---- BRINE_BACKTRACE --------------------------------------------------------
printf 'fn f(n: int) -> int:\n    return 10 / n\n\nfn main():\n    print(f(0))\n' > bt.br
"$BRINE" build bt.br -o bt > /dev/null 2>&1
for v in x 2 "" " 1" yes; do
    BRINE_BACKTRACE="$v" ./bt > bt.out 2> bt.err
    rc=$?
    check "BRINE_BACKTRACE='$v': exit 2 (got $rc)" [ $rc -eq 2 ]
    check "BRINE_BACKTRACE='$v': one line" [ "$(cat bt.err)" = "brine: BRINE_BACKTRACE must be 0 or 1, got '$v'" ]
done
BRINE_BACKTRACE=1 ./bt > bt.out 2> bt.err
check "BRINE_BACKTRACE=1: the chain" [ "$(cat bt.err)" = "$(printf 'panic: division by zero\n  --> bt.br:2:12 in f\n  --> bt.br:5:11 in main')" ]
BRINE_BACKTRACE=0 ./bt > bt.out 2> bt.err
check "BRINE_BACKTRACE=0: the place only" [ "$(cat bt.err)" = "$(printf 'panic: division by zero\n  --> bt.br:2:12')" ]

# ---- code that cannot panic costs the chain nothing (emit_quiet.c) ----------
# quiet_calls.br: sq and norm cannot panic (float arithmetic, a range loop,
# sqrt, calls of each other): no stack check, and no slot written around
# their calls; pick (it indexes) and main keep theirs, and only the two calls
# of pick write a slot
"$BRINE" --dump=c "$HERE/../golden/chains/quiet_calls.br" > quiet.c 2>&1
check "quiet: two slot stores, the calls of pick" [ "$(grep -cE '^ *fp_\[0\] = &L' quiet.c)" -eq 2 ]
check "quiet: stack checks only in pick and main" [ "$(grep -c 'brt_stack_check(' quiet.c)" -eq 2 ]
check "quiet: no stack check in sq" bash -c "! sed -n '/^static double bf_main_sq(.*)$/,/^}/p' quiet.c | grep -q stack_check"
# a recursion of float arithmetic alone is not quiet: it can overflow the stack
printf 'fn halve(x: float) -> float:\n    return 1.0 + halve(x * 0.5)\n\nfn main():\n    print(halve(1.0))\n' > rec.br
"$BRINE" --dump=c rec.br > rec.c 2>&1
check "quiet: a recursion keeps its stack check" [ "$(grep -c 'brt_stack_check(' rec.c)" -eq 2 ]
check "quiet: a recursion writes its slots" [ "$(grep -cE '^ *fp_\[0\] = &L' rec.c)" -eq 2 ]
"$BRINE" run rec.br > rec.out 2> rec.err
rc=$?
check "quiet: a recursion of floats overflows with its chain (exit $rc)" \
    [ $rc -eq 101 -a "$(head -3 rec.err)" = "$(printf 'panic: stack overflow\n  --> rec.br:1:1 in halve\n  --> rec.br:2:18 in halve')" ]
# a cycle of calls keeps each frame a C frame (BRT_NOINLINE), so a release
# build overflows with "stack overflow", never SIGSEGV (gcc wrote 8 levels of
# a small recursion into one C frame, and the chain's slots ran out first)
printf 'fn ping(x: float) -> float:\n    return 1.0 + pong(x)\n\nfn pong(x: float) -> float:\n    return 2.0 + ping(x * 0.5)\n\nfn leaf(x: float) -> float:\n    return x + 1.0\n\nfn main():\n    print(leaf(ping(1.0)))\n' > mutual.br
"$BRINE" --dump=c mutual.br > mutual.c 2>&1
check "recursion: ping and pong are never inlined" [ "$(grep -cE '^static BRT_NOINLINE double bf_main_(ping|pong)\(' mutual.c)" -eq 2 ]
check "recursion: leaf may be inlined" bash -c "! grep -q 'BRT_NOINLINE double bf_main_leaf' mutual.c"
"$BRINE" build --release mutual.br -o mutual > /dev/null 2>&1
./mutual > mutual.out 2> mutual.err
rc=$?
check "recursion, release: a mutual recursion overflows with a panic (exit $rc)" \
    [ $rc -eq 101 -a "$(head -1 mutual.err)" = "panic: stack overflow" ]

# ---- brine build -g -------------------------------------------------------
"$BRINE" build -g depth.br -o depth > build.log 2>&1
rc=$?
check "build -g: exit 0 (got $rc)" [ $rc -eq 0 -a -x depth ]
check "build -g: keeps depth.c" [ -f depth.c ]
check "build -g: #line directives name depth.br" has depth.c '^#line [0-9]+ "depth.br"$'
check "build -g: Brine names for the C locals" has depth.c 'below_v[0-9]+'
check "build -g: same output" [ "$(./depth)" = "$(cat "$HERE/depth.out")" ]
"$BRINE" build depth.br -o plain > /dev/null 2>&1
check "without -g: no OUT.c" [ ! -e plain.c ]
"$BRINE" build --emit-c depth.br -o plain > /dev/null 2>&1
check "without -g: no #line" bash -c '! grep -q "^#line" plain.c'
# the optimizer's names (p.0: an element of a small array made a scalar)
# become C names too
cat > scal.br <<'EOF'
fn point(k: int) -> [float]:
    return [float(k + d) * 0.5 for d in 0..3]

fn main():
    var s = 0.0
    for k in 0..4:
        let p = point(k)
        s += p[0] * p[1] + p[2]
    print(s)
EOF
"$BRINE" build -g scal.br -o scal > scal.log 2>&1
rc=$?
check "build -g, an array made scalars: exit 0 (got $rc)" [ $rc -eq 0 -a -x scal ]
check "build -g, an array made scalars: same output" [ "$(./scal 2>&1)" = "12.0" ]
"$BRINE" build -g --release depth.br -o depthr > buildr.log 2>&1
rc=$?
check "build -g --release: exit 0 (got $rc)" [ $rc -eq 0 -a -x depthr -a -f depthr.c ]
check "build -g --release: same output" [ "$(./depthr)" = "$(cat "$HERE/depth.out")" ]
if command -v addr2line > /dev/null; then
    addr=$(nm depthr | awk '$3 == "bf_main_weight" || $3 ~ /^bf_main_tri/ {print $1; exit}')
    check "release line table: a .br line for a function" bash -c "addr2line -e depthr 0x$addr | grep -q 'depth.br:[0-9]'"
fi

if ! command -v gdb > /dev/null; then
    echo "tests/debug: gdb not installed, the gdb checks skipped"
else
    below=$(grep -oE 'below_v[0-9]+' depth.c | head -1)
    gdb -batch -ex "break depth.br:7" -ex run -ex bt -ex "print $below" -ex "print n_v1" -ex delete -ex continue \
        ./depth > gdb.log 2>&1
    check "gdb: stops at depth.br:7" has gdb.log "^Breakpoint 1, bf_main_tri \(.*\) at .*depth.br:7"
    check "gdb: bt shows the recursion at depth.br:6" \
        bash -c "[ \$(grep -cE '^#[0-9]+ .* in bf_main_tri \(n_v1=[0-9], fp_=0x[0-9a-f]+\) at .*depth.br:6' gdb.log) -eq 4 ]"
    check "gdb: bt shows main at depth.br:16" has gdb.log "in bf_main_main \(fp_=0x[0-9a-f]+\) at .*depth.br:16"
    check "gdb: print a Brine variable ($below = 0)" has gdb.log '^\$1 = 0$'
    check "gdb: print a parameter (n = 1)" has gdb.log '^\$2 = 1$'
    check "gdb: the program's output" has gdb.log "^15 9.25$"
    gdb -batch -ex "break depth.br:10" -ex run -ex bt ./depthr > gdbr.log 2>&1
    check "gdb, release: stops in a par element's call at depth.br:10" has gdbr.log "at .*depth.br:1[01]"
    check "gdb, release: bt reaches main at depth.br" has gdbr.log "bf_main_main .*depth.br:15"
fi
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
