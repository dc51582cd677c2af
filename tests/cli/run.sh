#!/usr/bin/env bash
# tests/cli/run.sh BRINE: the command line's promises that no golden test can
# pin, checked in a temporary directory.
#
# `brine test --bless` must refuse the tests of a tree marked generated (a
# file named GENERATED in the test's directory or above it): such a test
# fails with a line naming its .out and the marker, its files stay as they
# were, and the hand-written tests of the same run are still blessed. Plain
# runs are unaffected by the marker.
#
# `brine build` never writes over a source file of the program (by inode:
# through links, imported modules, OUT.c and OUT.cu too), writes OUT.c and
# OUT.cu only over files brine generated, and a built program whose stdout
# write fails (/dev/full) panics with exit 101.
#
# `brine COMMAND --help` prints that command's usage on stdout, -V is
# --version, `--` makes the next word a file, `brine run --release` runs a
# temporary release build and removes it; diagnostics are coloured with
# --color=always (exact escapes) or on a terminal, never when piped or with
# NO_COLOR, and a bad --color value is one line and exit 2.
#
# `brine test --bless` creates the files of new tests (a .br with fn main
# and no .out); an unknown `# WORD:` directive fails its test; an unexpected
# exit status is reported with the status; diffs are unified and minimal.
#
# The steps of a map in place (a loop whose whole body is xs = [e for x in
# xs]) test xs once, before the loop, and run each step as a plain loop.
#
# `--cpu=native` reaches the C compiler as -march=native (with contraction
# still off), only with --release, and changes no output (the goldens check
# that at scale: make check-native).
#
# Warnings (an unused let or var, a var never assigned) go to stderr at build
# time and leave the exit status alone; --deny-warnings makes them errors
# (build and run); the stdlib never warns; with errors, no warnings show.
#
# Prints one line per failure and ends with "N passed, N failed"; exits 1 if
# any failed.
set -uo pipefail
. "$(dirname "$0")/../lib/harness.sh"
harness_start cli "$@"
# totals LOG: brine test's closing line without its time ("2 passed, 0 failed")
totals() { tail -n 1 "$1" | sed -E 's/ in [0-9]+\.[0-9]{2} s$//'; }
same() { cmp -s "$1" "$2"; }
# as_none WHAT NAME BIN SRC: BIN's output and panic (NAME.got) are those of
# `brine run --opt=none SRC` (NAME.want), checked as WHAT
as_none() {
    "$3" > "$2.got" 2>&1
    "$BRINE" run --opt=none "$4" > "$2.want" 2>&1
    check "$1" same "$2.got" "$2.want"
}
# cbody FILE.c FN: the C function FN (a static definition) of FILE.c
cbody() { sed -n "/^static .*$2(.*)\$/,/^}/p" "$1"; }

mkdir -p gen/area hand
printf 'marker\n' > gen/GENERATED
printf 'fn main():\n    print(7)\n' > gen/area/stale.br
printf 'stale\n' > gen/area/stale.out
cp gen/area/stale.out stale.want
printf 'fn main():\n    print(8)\n' > gen/area/new.br   # no .out yet
printf 'fn main():\n    print(9)\n' > hand/mine.br
printf 'stale\n' > hand/mine.out

# ---- one --bless run over a generated and a hand-written tree ----------------
"$BRINE" test --bless gen hand > bless.log 2>&1
rc=$?
check "bless over a generated tree exits 1 (got $rc)" [ $rc -eq 1 ]
check "bless: the closing line counts the refusal" [ "$(totals bless.log)" = "1 passed, 1 failed" ]
check "bless: names the generated .out and the marker" \
    has bless.log "FAIL gen/area/stale.br: not blessed: gen/area/stale.out is generated (see gen/GENERATED); edit the generator and rerun it instead of --bless"
check "bless: the generated .out is untouched" same gen/area/stale.out stale.want
check "bless: no .err appears in the generated tree" [ ! -e gen/area/stale.err ]
check "bless: the hand-written test is still blessed" [ "$(cat hand/mine.out)" = 9 ]

# ---- a new test named explicitly, and a run from inside the tree -------------
"$BRINE" test --bless gen/area/new.br > new.log 2>&1
rc=$?
check "bless of a new generated test exits 1 (got $rc)" [ $rc -eq 1 ]
check "bless: no .out is created for a new generated test" [ ! -e gen/area/new.out ]
check "bless: the new test is refused by name" has new.log "gen/area/new.out is generated"
(cd gen/area && "$BRINE" test --bless stale.br) > inside.log 2>&1
rc=$?
check "bless from inside the generated tree exits 1 (got $rc)" [ $rc -eq 1 ]
check "bless from inside: the marker above is found" has inside.log "/gen/GENERATED); edit the generator"
check "bless from inside: the .out is untouched" same gen/area/stale.out stale.want

# ---- the marker does not change a plain run --------------------------------
printf '7\n' > gen/area/stale.out
"$BRINE" test gen > plain.log 2>&1
rc=$?
check "plain run of a generated tree passes (got $rc)" [ $rc -eq 0 ]
check "plain run: closing line" [ "$(totals plain.log)" = "1 passed, 0 failed" ]

# ---- the repository's generated tree carries the marker ----------------------
real=$(cd "$REPO" && ls tests/golden/generated/par/*.br | head -n 1)
cp "$REPO/${real%.br}.out" real.want
(cd "$REPO" && "$BRINE" test --bless "$real") > real.log 2>&1
check "bless of $real is refused" has real.log "${real%.br}.out is generated (see tests/golden/generated/GENERATED)"
check "bless: $real's .out is untouched" same "$REPO/${real%.br}.out" real.want

# ---- build never overwrites a source file of the program -------------------
mkdir -p over
printf 'import helper\nfn main():\n    print(helper.two())\n' > over/x.br
printf 'fn two() -> int:\n    return 2\n' > over/helper.br
cp over/x.br x.want
cp over/helper.br helper.want
ln -s x.br over/link.br
refused() { # refused NAME OUT ARGS...: build exits 2 with the message, the sources untouched
    local name=$1 out=$2
    shift 2
    cp x.want over/x.br # each case starts from the sources, whatever the last one did
    cp helper.want over/helper.br
    "$BRINE" build "$@" > over.log 2>&1
    local rc=$?
    check "$name: exits 2 (got $rc)" [ $rc -eq 2 ]
    check "$name: says why" has over.log "brine: the output file '$out' would overwrite the input file"
    check "$name: x.br untouched" same over/x.br x.want
    check "$name: helper.br untouched" same over/helper.br helper.want
}
refused "-o the source" over/x.br over/x.br -o over/x.br
refused "-o a symlink to the source" over/link.br over/x.br -o over/link.br
refused "-o the source through a symlink" over/x.br over/link.br -o over/x.br
refused "-o an imported module" over/helper.br over/x.br -o over/helper.br
ln -s helper.br over/prog.c
refused "--emit-c onto a symlink to a module" over/prog.c over/x.br --emit-c -o over/prog
check "--emit-c refused: no executable written" [ ! -e over/prog ]
ln over/x.br over/hard.cu
refused "--emit-cuda onto a hard link to the source" over/hard.cu over/x.br --emit-cuda -o over/hard

# ---- --emit-c and --emit-cuda write only over files brine generated --------
mkdir -p emit
printf 'fn main():\n    let xs = [1.0] * 1000\n    print(par sum(x for x in xs))\n' > emit/dot.br
printf '/* my own dot product */\nint main(void) { return 0; }\n' > emit/dot.c
printf '// my own kernels\n' > emit/dot.cu
cp emit/dot.c dotc.want
cp emit/dot.cu dotcu.want
foreign() { # foreign NAME FILE ARGS...: build exits 2 naming FILE, and writes nothing
    local name=$1 file=$2
    shift 2
    rm -f emit/dot
    "$BRINE" build emit/dot.br "$@" > emit.log 2>&1
    local rc=$?
    check "$name: exits 2 (got $rc)" [ $rc -eq 2 ]
    check "$name: says why" has emit.log \
        "brine: '$file' exists and was not generated by brine; remove it or choose another -o"
    check "$name: dot.c untouched" same emit/dot.c dotc.want
    check "$name: dot.cu untouched" same emit/dot.cu dotcu.want
    check "$name: no executable written" [ ! -e emit/dot ]
}
foreign "--emit-c over a hand-written dot.c" emit/dot.c --emit-c
foreign "--emit-cuda over a hand-written dot.cu" emit/dot.cu --emit-cuda
: > emit/dot.cu # an empty dot.cu is brine's (a program without kernels)
: > dotcu.want
foreign "--emit-c --emit-cuda, only dot.c hand-written" emit/dot.c --emit-c --emit-cuda
rm emit/dot.c emit/dot.cu
"$BRINE" build emit/dot.br --emit-c --emit-cuda > emit.log 2>&1
check "--emit-c/--emit-cuda write absent files" [ -s emit/dot.c -a -s emit/dot.cu ]
check "the .cu says brine generated it" [ "$(head -c 21 emit/dot.cu)" = "// Generated by brine" ]
printf 'stale\n' >> emit/dot.c
printf 'stale\n' >> emit/dot.cu
"$BRINE" build emit/dot.br --emit-c --emit-cuda > emit.log 2>&1
rc=$?
check "--emit-c/--emit-cuda rewrite brine's own files (got $rc)" [ $rc -eq 0 ]
check "the old generated dot.c was replaced" [ "$(tail -n 1 emit/dot.c)" != stale ]
check "the old generated dot.cu was replaced" [ "$(tail -n 1 emit/dot.cu)" != stale ]

# ---- a failed write to stdout is a panic (exit 101), never lost silently -----
if [ -w /dev/full ]; then
    mkdir -p full
    printf 'fn main():\n    print("hello")\n' > full/hello.br
    printf 'import os\nfn main():\n    print("hello")\n    os.exit(3)\n' > full/quit.br
    printf 'fn main():\n    for i in 0..100000:\n        print(i)\n' > full/many.br
    printf 'fn main():\n    print("a")\n    for i in 0..100000:\n        print(i, "b")\n    print("last")\n' > full/two.br
    # full NAME PLACE CMD...: CMD with stdout on /dev/full exits 101 with the
    # panic alone on stderr, at PLACE: the print whose output failed (the
    # last print run when the final flush fails)
    full() {
        local name=$1 place=$2
        shift 2
        printf 'panic: cannot write to stdout: No space left on device\n  --> %s\n' "$place" > full.want
        "$@" > /dev/full 2> full.err
        local rc=$?
        check "$name: exits 101 (got $rc)" [ $rc -eq 101 ]
        check "$name: the panic on stderr" same full.err full.want
    }
    "$BRINE" build full/hello.br -o full/dev > /dev/null 2>&1
    "$BRINE" build full/hello.br --release -o full/rel > /dev/null 2>&1
    "$BRINE" build full/quit.br -o full/quit > /dev/null 2>&1
    "$BRINE" build full/many.br -o full/many > /dev/null 2>&1
    "$BRINE" build full/two.br -o full/two > /dev/null 2>&1
    full "dev build, the final flush" full/hello.br:2:5 full/dev
    full "release build, the final flush" full/hello.br:2:5 full/rel
    full "brine run, the final flush" full/hello.br:2:5 "$BRINE" run full/hello.br
    full "os.exit's flush" full/quit.br:3:5 full/quit
    full "a full buffer flushed mid-run" full/many.br:3:9 full/many
    full "the print whose output overflowed the buffer" full/two.br:4:9 full/two
    full/many >&- 2> closed.err
    rc=$?
    check "a closed stdout is not a failure (got $rc)" [ $rc -eq 0 -a ! -s closed.err ]
fi

# ---- read_stdin(): the rest of stdin ------------------------------------------
mkdir -p stdin
printf 'fn main():\n    let s = read_stdin()\n    print(len(s), s.lines())\n    print(len(read_stdin()))\n' > stdin/all.br
printf 'one\ntwo\r\nthree' | "$BRINE" run stdin/all.br > stdin.out 2>&1
printf '14 ["one", "two", "three"]\n0\n' > stdin.want
check "read_stdin reads all of stdin, then nothing" same stdin.out stdin.want
"$BRINE" run stdin/all.br < /dev/null > stdin.out 2>&1
printf '0 []\n0\n' > stdin.want
check "read_stdin of an empty stdin is empty" same stdin.out stdin.want
"$BRINE" build stdin/all.br -o stdin/all > /dev/null 2>&1
stdin/all <&- > stdin.out 2>&1
check "read_stdin with stdin closed is empty" same stdin.out stdin.want

# ---- input(): the next line of stdin, None at the end ---------------------------
printf 'fn main():
    var line = input()
    while line.is_some():
        print([line.unwrap()])
        line = input()
    print(line, input())
' > stdin/lines.br
"$BRINE" build stdin/lines.br -o stdin/lines > /dev/null 2>&1
printf 'one\n\ntwo\r\n \r\n\rx\nlast' | stdin/lines > stdin.out 2>&1
printf '["one"]
[""]
["two"]
[" "]
["\\rx"]
["last"]
None None
' > stdin.want
check "input gives each line without its LF or CRLF, the last one without a newline too" same stdin.out stdin.want
printf 'a
b
' | stdin/lines > stdin.out 2>&1
printf '["a"]
["b"]
None None
' > stdin.want
check "input after a final newline is None, not an empty line" same stdin.out stdin.want
printf '
' | stdin/lines > stdin.out 2>&1
printf '[""]
None None
' > stdin.want
check "input of a lone newline is one empty line" same stdin.out stdin.want
stdin/lines <&- > stdin.out 2>&1
printf 'None None
' > stdin.want
check "input with stdin closed is None" same stdin.out stdin.want
awk 'BEGIN { for (i = 0; i < 30000; i++) printf "%d %s\n", i, "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx" }' > stdin.big
stdin/lines < stdin.big | tail -n 2 > stdin.out 2>&1
printf '["29999 xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"]
None None
' > stdin.want
check "input reads lines across its buffer's refills (2.6 MB)" same stdin.out stdin.want
printf 'fn main():
    print(input(), input())
    let rest = read_stdin()
    print([rest], input())
' > stdin/mixed.br
"$BRINE" build stdin/mixed.br -o stdin/mixed > /dev/null 2>&1
printf 'h1
h2
body 1
body 2
' | stdin/mixed > stdin.out 2>&1
printf 'Some("h1") Some("h2")
["body 1\\nbody 2\\n"] None
' > stdin.want
check "read_stdin after input gives the rest, what input read ahead included" same stdin.out stdin.want

# ---- per-command help, -V, --, run --release ---------------------------------
mkdir -p cmd
for c in build run test; do
    "$BRINE" $c --help > help.out 2> help.err
    rc=$?
    check "$c --help exits 0 (got $rc)" [ $rc -eq 0 ]
    check "$c --help: its usage on stdout" [ "$(head -n 1 help.out | cut -d' ' -f1-3)" = "usage: brine $c" ]
    check "$c --help: nothing on stderr" [ ! -s help.err ]
    check "$c --help: lists --color" has help.out "--color WHEN"
done
check "-V is --version" [ "$("$BRINE" -V)" = "$("$BRINE" --version)" ]
printf 'import os\nfn main():\n    print(os.args())\n    os.exit(3)\n' > cmd/-weird.br
(cd cmd && "$BRINE" build -- -weird.br) > dd.log 2>&1
rc=$?
check "build -- -weird.br exits 0 (got $rc)" [ $rc -eq 0 ]
check "build -- -weird.br writes -weird" [ -x cmd/-weird ]
(cd cmd && "$BRINE" build -weird.br) > dd.log 2>&1
check "build -weird.br without -- is an unknown option" has dd.log "unknown option '-weird.br' for build"
mkdir -p runtmp
(cd cmd && TMPDIR="$WORK/runtmp" "$BRINE" run --release -- -weird.br a --b -c) > rr.out 2> rr.err
rc=$?
check "run --release exits with the program's status (got $rc)" [ $rc -eq 3 ]
check "run --release: ARGS after FILE are the program's" [ "$(cat rr.out)" = '["a", "--b", "-c"]' ]
check "run --release: nothing on stderr" [ ! -s rr.err ]
check "run --release: the temporary files are removed" [ -z "$(ls -A runtmp)" ]
printf 'fn main():\n    let xs = [1]\n    print(xs[3])\n' > cmd/oob.br
(cd cmd && TMPDIR="$WORK/runtmp" "$BRINE" run --release --color=always oob.br) > /dev/null 2> rr.err
rc=$?
check "run --release: a panic exits 101 (got $rc)" [ $rc -eq 101 ]
check "run --release: the panic is not coloured" [ "$(head -c 6 rr.err)" = "panic:" ]
check "run --release: removed after a panic" [ -z "$(ls -A runtmp)" ]
printf 'fn main():\n    let x = 1 + 2.0\n' > cmd/bad.br
(cd cmd && TMPDIR="$WORK/runtmp" "$BRINE" run --release bad.br) > /dev/null 2>&1
rc=$?
check "run --release: a compile error exits 1 (got $rc)" [ $rc -eq 1 ]
check "run --release: nothing left after a compile error" [ -z "$(ls -A runtmp)" ]

# ---- diagnostics in colour: --color, NO_COLOR, never when piped --------------
E=$'\033'
printf '%s\n' "${E}[1;31merror${E}[0m: mismatched types: int + float (write 1.0)" \
    "  ${E}[1;34m-->${E}[0m bad.br:2:13" \
    "   ${E}[1;34m|${E}[0m" \
    "${E}[1;34m 2 |${E}[0m     let x = 1 + 2.0" \
    "   ${E}[1;34m|${E}[0m             ${E}[1;31m^^^^^^^${E}[0m" > colour.want
(cd cmd && "$BRINE" build --color=always bad.br) 2> colour.got
check "--color=always: exact escape sequences" same colour.got colour.want
(cd cmd && NO_COLOR=1 "$BRINE" build bad.br --color always) 2> colour.got
check "--color always (a separate word) wins over NO_COLOR" same colour.got colour.want
printf 'fn main():\n    let xs = [1, 2\n    print(xs)\n' > cmd/open.br
(cd cmd && "$BRINE" build --color=always open.br) 2> note.got
check "--color=always: a note's label is blue" has note.got "${E}[1;34mnote${E}[0m: the '[' opened here is not closed"
check "--color=always: a note's underline is blue" has note.got "${E}[1;34m^${E}[0m"
(cd cmd && "$BRINE" build bad.br) 2> plain.got
check "piped stderr: the diagnostic" has plain.got "error: mismatched types"
check "piped stderr has no escapes (none at all)" [ -z "$(grep -l "$E" plain.got)" ]
(cd cmd && "$BRINE" build --color=never bad.br) 2> never.got
check "--color=never is plain" same never.got plain.got
if command -v script > /dev/null 2>&1; then
    (cd cmd && script -qec "$BRINE build bad.br" /dev/null) > tty.got 2>&1
    check "auto on a terminal is in colour" has tty.got "${E}[1;31merror"
    (cd cmd && NO_COLOR=1 script -qec "$BRINE build bad.br" /dev/null) > tty.got 2>&1
    check "NO_COLOR on a terminal is plain" [ -z "$(grep -l "$E" tty.got)" ]
    (cd cmd && NO_COLOR= script -qec "$BRINE build bad.br" /dev/null) > tty.got 2>&1
    check "an empty NO_COLOR does not count" has tty.got "${E}[1;31merror"
fi
bad_color() { # bad_color ARGS...: a bad --color value is one line and exit 2
    "$BRINE" "$@" > bc.out 2> bc.err
    local rc=$?
    check "$* exits 2 (got $rc)" [ $rc -eq 2 ]
    check "$*: one line" [ "$(cat bc.err)" = "brine: --color wants auto, always or never, got 'sometimes' (see brine --help)" ]
}
bad_color build cmd/bad.br --color=sometimes
bad_color run --color=sometimes cmd/bad.br
bad_color test cmd --color sometimes
bad_color --dump=tokens cmd/bad.br --color=sometimes

# ---- brine test: new tests blessed, unknown directives, statuses, diffs ------
mkdir -p newt/sub
printf 'fn main():\n    print(1)\n' > newt/fresh.br          # new: fn main, no .out
printf '# exit: 101\nfn main():\n    let xs = [1]\n    print(xs[2])\n' > newt/sub/fresh_err.br
printf 'fn two() -> int:\n    return 2\n' > newt/helper.br   # a module: no main
"$BRINE" test --bless newt > nb.log 2>&1
rc=$?
check "bless creates new tests' files (got $rc)" [ $rc -eq 0 ]
check "bless: new .out written" [ "$(cat newt/fresh.out)" = 1 ]
check "bless: new .out and .err in a subdirectory" [ -e newt/sub/fresh_err.out -a "$(head -c 6 newt/sub/fresh_err.err)" = panic: ]
check "bless: a module gets no .out" [ ! -e newt/helper.out ]
check "bless: two tests counted" [ "$(totals nb.log)" = "2 passed, 0 failed" ]
"$BRINE" test newt > nb.log 2>&1
check "the blessed new tests pass" [ "$(totals nb.log)" = "2 passed, 0 failed" ]

mkdir -p hdr
printf '# exits: 3\nfn main():\n    print(1)\n' > hdr/typo.br
printf '1\n' > hdr/typo.out
printf '# Env: A=1\nfn main():\n    print(1)\n' > hdr/upper.br
printf '1\n' > hdr/upper.out
printf '# a comment: fine, it has spaces\n# exit: 0\nfn main():\n    print(1)\n' > hdr/fine.br
printf '1\n' > hdr/fine.out
"$BRINE" test hdr > hdr.log 2>&1
check "an unknown directive fails the test" has hdr.log \
    "FAIL hdr/typo.br: unknown directive '# exits:' in the test's header (the directives are '# exit:', '# env:' and '# args:')"
check "a directive's case counts" has hdr.log "FAIL hdr/upper.br: unknown directive '# Env:'"
check "an ordinary comment is no directive" [ "$(totals hdr.log)" = "1 passed, 2 failed" ]

mkdir -p st
printf 'import os\nfn main():\n    print(1)\n    os.exit(3)\n' > st/three.br
printf '1\n' > st/three.out
"$BRINE" test --dev --threads 1 st > st.log 2>&1
check "an unexpected status is reported with it" has st.log "FAIL st/three.br (dev, BRINE_THREADS=1): exit status 3, expected exit status 0"
"$BRINE" test --bless st > st.log 2>&1
check "--bless still reports an unexpected status" has st.log "FAIL st/three.br (dev, BRINE_THREADS=1): exit status 3, expected 0 (outputs blessed anyway)"

mkdir -p df
printf 'fn main():\n    for i in 1..21:\n        print(i)\n' > df/count.br
seq 1 20 | sed -e 's/^2$/two/' -e '/^12$/d' > df/count.out
"$BRINE" test --dev --threads 1 df | sed -E 's/ in [0-9]+\.[0-9]{2} s$//' > df.log 2>&1
cat > df.want <<'WANT'
FAIL df/count.br (dev, BRINE_THREADS=1): stdout differs (-expected +actual)
    @@ -1,5 +1,5 @@
     1
    -two
    +2
     3
     4
     5
    @@ -9,6 +9,7 @@
     9
     10
     11
    +12
     13
     14
     15
0 passed, 1 failed
WANT
check "diffs are unified: hunks with 3 lines of context" same df.log df.want
printf 'fn main():\n    for i in 0..1000:\n        print(i)\n' > df/many.br
seq 1 999 > df/many.out
"$BRINE" test --dev --threads 1 df/many.br > df.log 2>&1
check "a shifted output is one line off, not a thousand" [ "$(grep -c '^    [-+]' df.log)" -eq 1 ]
#
# ---- --cpu=native ----------------------------------------------------------
mkdir -p cpu
printf 'fn main():\n    var xs = [0.0] * 1000\n    for i in 0..1000:\n        xs[i] = 1.0 / float(i + 1) * 3.0 + 0.1\n    print(par sum(x * x + 0.5 for x in xs), sum(xs))\n' > cpu/f.br
printf '#!/bin/sh\necho "$@" >> "%s/cc.args"\nexec cc "$@"\n' "$WORK" > cpu/cc
chmod +x cpu/cc
CC="$WORK/cpu/cc" "$BRINE" build cpu/f.br --release -o cpu/generic > cpu.log 2>&1
CC="$WORK/cpu/cc" "$BRINE" build cpu/f.br --release --cpu=native -o cpu/native >> cpu.log 2>&1
check "--cpu=native: both builds succeed" [ -x cpu/generic -a -x cpu/native ]
check "--cpu=native: -march=native with contraction off" \
    grep -q -- '-ffp-contract=off.*-march=native' cc.args
check "--cpu=native: the default build has no -march" [ "$(grep -c -- -march cc.args)" -eq 1 ]
cpu/generic > cpu.generic.out 2>&1
cpu/native > cpu.native.out 2>&1
check "--cpu=native: output byte-identical to the default" same cpu.generic.out cpu.native.out
# --cpu=native goes through assembly (backend.c, rewrite_copies): a copy of a
# double written as a merge of a register onto itself becomes vmovapd; a real
# merge, a register above 15 (EVEX) and a masked move stay. The wrapper
# appends those lines to the assembly gcc writes, in one and in two parts.
cat > cpu/ccs <<'SH'
#!/bin/sh
cc "$@" || exit
s=""; prev=""
for a in "$@"; do [ "$prev" = "-o" ] && s="$a"; prev="$a"; done
case " $* " in
*" -S "*) case " $* " in *BP_PART=2*) exit 0;; esac
    printf '\t.text\n\t.globl brine_cli_probe\nbrine_cli_probe:\n\tvmovsd\t%%xmm1, %%xmm1, %%xmm2\n\tvmovsd\t%%xmm3, %%xmm4, %%xmm5\n\tvmovsd\t%%xmm17, %%xmm17, %%xmm2\n\tvmovsd\t%%xmm6, %%xmm6, %%xmm7{%%k1}\n\tvmovsd\t%%xmm15, %%xmm15, %%xmm0\n\tret\n' >> "$s";;
esac
SH
chmod +x cpu/ccs
for parts in 1 2; do
    BRINE_RELEASE_PARTS=$parts CC="$WORK/cpu/ccs" "$BRINE" build cpu/f.br --release --cpu=native -o cpu/probe$parts > cpu.log 2>&1
    objdump -d --no-show-raw-insn cpu/probe$parts | awk '/<brine_cli_probe>:/,/ret/' | cut -f2- | tr -s ' ' > cpu.probe$parts
    printf 'vmovapd %%xmm1,%%xmm2\nvmovsd %%xmm3,%%xmm4,%%xmm5\nvmovsd %%xmm17,%%xmm17,%%xmm2\nvmovsd %%xmm6,%%xmm6,%%xmm7{%%k1}\nvmovapd %%xmm15,%%xmm0\nret\n' > cpu.probe.want
    grep -v '>:' cpu.probe$parts > cpu.probe$parts.got
    check "--cpu=native, $parts part(s): register copies of a double rewritten, nothing else" same cpu.probe.want cpu.probe$parts.got
    cpu/probe$parts > cpu.probe.out 2>&1
    check "--cpu=native, $parts part(s): the rewritten build prints the same" same cpu.generic.out cpu.probe.out
done
"$BRINE" build cpu/f.br --cpu=native -o cpu/dev > cpu.log 2>&1
rc=$?
check "--cpu=native without --release: exits 2 (got $rc)" [ $rc -eq 2 ]
check "--cpu=native without --release: says why" has cpu.log "brine: --cpu=native applies to --release builds"
"$BRINE" build cpu/f.br --release --cpu=fast -o cpu/dev > cpu.log 2>&1
rc=$?
check "--cpu=fast: exits 2 (got $rc)" [ $rc -eq 2 ]
check "--cpu=fast: says why" has cpu.log "brine: --cpu wants native or generic, got 'fast'"

# ---- warnings and --deny-warnings -------------------------------------------
mkdir -p wn
cat > wn/w.br <<'BR'
fn f(unread: int) -> int:
    let spare = 1
    var fixed = 2
    var moved = 0
    moved += 1
    let _kept = 3
    return fixed + moved

fn main():
    print(f(1))
BR
cat > wn/w.want <<'WANT'
warning: unused variable 'spare'; if this is intentional, name it _spare
  --> wn/w.br:2:9
   |
 2 |     let spare = 1
   |         ^^^^^

warning: 'fixed' is declared with var but never assigned; declare it with let
  --> wn/w.br:3:9
   |
 3 |     var fixed = 2
   |         ^^^^^
WANT
"$BRINE" build --color=never wn/w.br -o wn/w > wn.log 2>&1
rc=$?
check "warnings: the build succeeds (got $rc)" [ $rc -eq 0 -a -x wn/w ]
check "warnings: unused let and var never assigned, exactly; not a parameter, _name or var +=" same wn.log wn/w.want
"$BRINE" run --color=never wn/w.br > wn.out 2> wn.log
rc=$?
check "warnings: run prints them and runs the program (got $rc)" [ $rc -eq 0 -a "$(cat wn.out)" = 3 ]
check "warnings: run's stderr is the build's" same wn.log wn/w.want
rm -f wn/w
"$BRINE" build --color=never --deny-warnings wn/w.br -o wn/w > wn.log 2>&1
rc=$?
check "--deny-warnings: build exits 1 (got $rc)" [ $rc -eq 1 -a ! -e wn/w ]
check "--deny-warnings: they are errors, then the closing line" \
    [ "$(grep -c '^error: ' wn.log)" -eq 3 -a "$(tail -n 1 wn.log)" = "error: could not compile 'wn/w.br' due to 2 previous errors" ]
"$BRINE" run --deny-warnings wn/w.br > wn.out 2> wn.log
rc=$?
check "--deny-warnings: run exits 1 and does not run (got $rc)" [ $rc -eq 1 -a ! -s wn.out ]
printf 'import math\nimport random\nfn main():\n    print(math.isnan(math.pi), random.below(1, 2, 6) < 6, random.uniform(1, 2) < 1.0)\n' > wn/std.br
"$BRINE" build --deny-warnings wn/std.br -o wn/std > wn.log 2>&1
rc=$?
check "warnings: an stdlib import builds under --deny-warnings (got $rc)" [ $rc -eq 0 -a ! -s wn.log ]
printf 'fn twice(x: int) -> int:\n    let y = x\n    return x * 2\n' > wn/helper.br
printf 'import helper\nfn main():\n    print(helper.twice(2))\n' > wn/usehelper.br
"$BRINE" build --color=never wn/usehelper.br -o wn/usehelper > wn.log 2>&1
check "warnings: a module of the program's own warns, under its name" has wn.log "  --> wn/helper.br:2:9"
printf 'fn main():\n    let x = 1 + "a"\n    let unused = 2\n' > wn/both.br
"$BRINE" build --color=never wn/both.br -o wn/both > wn.log 2>&1
check "warnings: not shown beside errors" [ "$(grep -c '^warning' wn.log)" -eq 0 -a "$(grep -c '^error' wn.log)" -eq 1 ]

# ---- --opt: optimizer passes off, the same output -----------------------------
mkdir -p op
printf 'fn ign(a: int, b: float) -> float:\n    return float(a)\n\nfn main():\n    let x = 0.5\n    print(par sum(ign(i, x) for i in 0..100))\n' > op/p.br
printf '4950.0\n' > op/p.out
for spec in all none -fnvals -inline -loops -borrow -interchange none,inline -inline,+inline; do
    "$BRINE" run --opt=$spec op/p.br > op.got 2> op.log
    check "--opt=$spec: run prints the same" [ $? -eq 0 -a "$(cat op.got)" = "4950.0" -a ! -s op.log ]
done
"$BRINE" build op/p.br --opt=none -o op/p > op.log 2>&1 && ./op/p > op.got
check "--opt=none: build (after the file)" same op.got op/p.out
"$BRINE" test op --opt=-inline --threads 1 > op.log 2>&1
check "--opt: test passes it to its builds" has op.log "1 passed, 0 failed"
"$BRINE" build op/p.br --opt=-bogus > op.log 2>&1
rc=$?
check "--opt: an unknown pass is exit 2 and names the passes (got $rc)" \
    [ $rc -eq 2 -a "$(cat op.log)" = "brine: unknown pass 'bogus' in --opt=-bogus: the passes are consts, iters, fnvals, unroll, inline, scalars, counted, shortfor, accum, comploop, fill, cover, fuse, unswitch, split, fission, expand, extremes, unique, lazycopy, relations, loops, range, borrow, interchange, move, parfor, fuseloops, scratch, carry, hoist, version, cursor, prefetch, records, bins (or all, none) (see brine --help)" ]
for bad in "--opt=" "--opt=all," "--opt"; do
    "$BRINE" run $bad op/p.br > op.log 2>&1
    check "$bad: a usage error" [ $? -eq 2 -a "$(wc -l < op.log)" -eq 1 ]
done
# fuseloops: off, no loop fused (the C of each loop versioned on its own); with
# version off none behind guards, each loop written once, as written (the
# emitter versions nothing: a fused loop's else-branch, the loops as written,
# is version's to write); on, the fused loops come first
mkdir -p fl
cp "$REPO/tests/dumps/fuseloops.br" fl/f.br
for o in all -fuseloops -version; do
    "$BRINE" build --emit-c --opt=$o fl/f.br -o fl/f$o > fl.log 2>&1 || echo "build --opt=$o failed" >> fl.log
done
check "--opt=-fuseloops: tests/dumps/fuseloops builds, its loops apart; with version off each once, no guard tested" \
    [ ! -s fl.log -a "$(grep -c 'for (' fl/fall.c)" -gt "$(grep -c 'for (' fl/f-fuseloops.c)" -a \
      "$(grep -c 'for (' fl/f-fuseloops.c)" -gt "$(grep -c 'for (' fl/f-version.c)" -a \
      "$(grep -c '|| ( bp_' fl/f-fuseloops.c)" -gt 0 -a "$(grep -c '|| ( bp_' fl/f-version.c)" -eq 0 -a \
      "$(fl/fall)" = "$(fl/f-fuseloops)" -a "$(fl/fall)" = "$(fl/f-version)" ]

# ---- versioned loops: ir_verify keeps proved nodes in the fast copy ----------
# The test hook BRINE_VERIFY_MISPLACE has opt_version.c mark an element read of
# the first loop's checked copy as proved by the guard test: ir_verify must stop
# the build there (internal error, exit 70); without it the build is fine.
mkdir -p ver
# verify_hook NAME FILE PATTERN [MESSAGE]: FILE's rewrite verifies and shows
# PATTERN; with the hook, ir_verify stops it (with MESSAGE)
verify_hook() {
    "$BRINE" --dump=ir:version "$2" > ver.got 2> ver.log
    check "version: $1: the rewrite verifies" [ $? -eq 0 -a ! -s ver.log ]
    check "version: $1: its versioned if" has ver.got "$3"
    BRINE_VERIFY_MISPLACE=1 "$BRINE" --dump=ir:version "$2" > ver.got 2> ver.log
    local rc=$?
    check "version: $1: ir_verify refuses a proved node in the checked copy (got $rc)" [ $rc -eq 70 ]
    check "version: $1: the verifier's message" has ver.log "${4:-a node proved by a guard test outside its fast copy}"
}
printf 'fn main():\n    let xs = [1, 2, 3]\n    var s = 0\n    for i in 0..len(xs) - 1:\n        s += xs[i + 1]\n    print(s)\n' > ver/v.br
verify_hook loop ver/v.br "if versioned (guards"
# a swapped nest (its fast nest the loops exchanged): an element read of the
# nest as written marked proved by the swapped nest's guard test
printf 'fn cols(a: [[float]], n: int) -> [float]:\n    var y = [0.0] * len(a)\n    for j in 0..n:\n        for i in 0..len(a):\n            y[i] += a[i][j]\n    return y\n\nfn main():\n    print(cols([[1.0, 2.0], [3.0, 4.0]], 2))\n' > ver/s.br
verify_hook swap ver/s.br " swapped v"
# a jammed nest (its fast nest jammed, the nest as written else): an element
# read of the nest as written marked proved by the jammed nest's guard test
printf 'fn mm(a: [[float]], b: [[float]], n: int) -> [[float]]:\n    var c = [[0.0] * n for i in 0..n]\n    for i in 0..n:\n        for k in 0..n:\n            for j in 0..n:\n                c[i][j] += a[i][k] * b[k][j]\n    return c\n\nfn main():\n    let a = [[1.0, 2.0], [3.0, 4.0]]\n    print(mm(a, a, 2))\n' > ver/j.br
verify_hook jam ver/j.br " jammed v"
# a generator (its fast copy, which the emitter writes when its guards hold):
# an element read of the generator as written marked proved by the copy
printf 'fn f(xs: [int], n: int) -> int:\n    return sum(xs[i] + xs[i + 1] for i in 0..n)\n\nfn main():\n    print(f([1, 2, 3], 2))\n' > ver/g.br
verify_hook gen ver/g.br "] fast (binary" "in-range outside a guarded loop around it"
# a loop on the pool (its chunk, the versioned loop over the chunk's bounds):
# an element read of the loop as written marked proved by the chunk's test
printf 'fn f(xs: [int], n: int) -> [int]:\n    var w = [0] * n\n    for i in 0..n:\n        let a = xs[i]\n        let b = xs[i + 1]\n        w[i] = a * a - b * b + (a ^ b) - (a & b) * 3 + (a | b) / 7\n    return w\n\nfn main():\n    print(f([1, 2, 3], 2))\n' > ver/p.br
verify_hook pool ver/p.br "par captures[v1.xs v3.w] chunk[v"

# ---- in-order float folds: BP_FOLD on the accumulator, nowhere else ----------
# A sequential float fold (s += e in a for or while loop, s = e * s, a sum
# comprehension) gets BP_FOLD after each step: with AVX-512 gcc would make it
# a fold-left reduction in 512-bit vectors, slower than the scalar loop.
mkdir -p fo
cat > fo/f.br <<'EOB'
fn dot(x: [float], y: [float]) -> float:
    var s = 0.0
    for i in 0..len(x):
        s += x[i] * y[i]
    return s

fn prod(x: [float]) -> float:
    var p = 1.0
    var i = 0
    while i < len(x):
        p = x[i] * p
        i += 1
    return p

fn twice(x: [float]) -> [float]:
    var out = x
    var n = 0
    for i in 0..len(x):
        out[i] = x[i] * 2.0
        n += i
    return out

fn main():
    let x = [float(i) * 0.5 for i in 0..100]
    var d = 0.0
    for v in x:
        d = d - v * 0.25
    var w = 0.0
    for v in x:
        w += sqrt(v)
    print(dot(x, x), prod(x), sum(twice(x)), d, sum(v * v for v in x), w)
EOB
"$BRINE" build --release --cpu=native --emit-c fo/f.br -o fo/f > fo.log 2>&1
check "fold: builds with --emit-c" [ $? -eq 0 -a -s fo/f.c ]
fnbody() { cbody fo/f.c "$1"; }
# A function whose innermost loops are all such folds is BP_FOLD256 instead
# (gcc's fold-left in 256-bit vectors), its steps without BP_FOLD.
fnhead() { grep "^static .*$1(.*)\$" fo/f.c; }
check "fold: for s += e (dot) is BP_FOLD256" [ "$(fnhead bf_main_dot | grep -c BP_FOLD256)" -eq 1 -a \
    "$(fnbody bf_main_dot | grep -c 'BP_FOLD(')" -eq 0 ]
check "fold: while p = e * p (prod) is BP_FOLD256" [ "$(fnhead bf_main_prod | grep -c BP_FOLD256)" -eq 1 ]
check "fold: d = d - e and a sum comprehension beside other loops (main)" \
    [ "$(fnbody bf_main_main | grep -c 'BP_FOLD(')" -ge 2 -a "$(fnhead bf_main_main | grep -c BP_FOLD256)" -eq 0 ]
check "fold: none on a float map or an int sum (twice)" [ "$(fnbody bf_main_twice | grep -c 'BP_FOLD')" -eq 0 ]
# Such a fold's loop with BP_FOLD steps is unrolled (BP_FOLD_LOOP: the loop's
# own instructions once per eight steps); not a BP_FOLD256 function's, not
# another loop, not one whose step calls a function (w += sqrt(v)).
check "fold: BP_FOLD_LOOP before main's three fold loops, not the sqrt one" \
    [ "$(fnbody bf_main_main | grep -c '^ *BP_FOLD_LOOP$')" -eq 3 -a "$(fnbody bf_main_main | grep -c 'BP_FOLD(')" -ge 4 ]
check "fold: no BP_FOLD_LOOP in dot, prod (BP_FOLD256) or twice" \
    [ "$(fnbody 'bf_main_\(dot\|prod\|twice\)' | grep -c 'BP_FOLD_LOOP')" -eq 0 ]
check "fold: BP_FOLD_LOOP is gcc's unroll by eight" grep -q '^#define BP_FOLD_LOOP _Pragma("GCC unroll 8")$' fo/f.c
# Not before a fold loop whose step is large (a polynomial of eight
# coefficients written out per point): eight copies of it only fill the
# decoders (--cpu=native on a Rocket Lake: 14.5 ms unrolled, 9.9 not).
cat > fo/p.br <<'EOB'
fn horner(cs: [float], x: float) -> float:
    var y = 0.0
    for c in cs:
        y = y * x + c
    return y

fn main():
    let cs = [1.0, -0.5, 0.25, -0.125, 0.0625, 0.03125, -0.015625, 0.0078125]
    let n = len(os.args()) + 1000
    let xs = [float(i % 100) * 0.01 for i in 0..n]
    var total = 0.0
    for x in xs:
        total += horner(cs, x)
    print(total)
EOB
"$BRINE" build --release --cpu=native --emit-c fo/p.br -o fo/p > fo.log 2>&1
fo_main=$(sed -n '/^static void bf_main_main(.*)$/,/^}/p' fo/p.c)
check "fold: no BP_FOLD_LOOP before a fold loop of eight Horner steps" \
    [ "$(echo "$fo_main" | grep -c '^ *BP_FOLD_LOOP$')" -eq 0 ]
# BP_FOLD only on a sum a loop carries, not on y, which each point starts
# afresh (the points' y may be computed in vectors side by side: a 3x3
# convolution's sums per pixel, 1.9 ms with the barriers, 1.07 without), and
# only where the loop's step is small: gcc's fold-left of total, eight points'
# y in one vector, beats the scalar loop here (8.8 -> 3.5 ms; the C 4.3).
check "fold: no BP_FOLD on y or on the total of a large step" [ "$(echo "$fo_main" | grep -c 'BP_FOLD(')" -eq 0 ]
check "fold: BP_FOLD only for gcc/clang with AVX-512" \
    grep -q '^#if defined(__GNUC__) && !defined(__TINYC__) && defined(__AVX512F__)$' fo/f.c
check "fold: BP_FOLD256 only for gcc with AVX-512" \
    grep -q '^#if defined(__GNUC__) && !defined(__clang__) && !defined(__TINYC__) && defined(__AVX512F__)$' fo/f.c
# A jammed nest's lanes (eight points' Horner sums side by side, from a
# comprehension of p.br's helper's calls) loop unrolled whole: eight
# chains in registers (horner/comp_main native 6.9 -> 4.6 ms, portable
# 7.5 -> 5.6, against the loop unrolled by half its count).
sed '/^    var total = 0.0$/,$d' fo/p.br > fo/l.br # p.br's helper and points
cat >> fo/l.br <<'EOB'
    let ys = [horner(cs, x) for x in xs]
    print(sum(ys))
EOB
"$BRINE" build --release --emit-c fo/l.br -o fo/l > fo.log 2>&1
check "jam: the lane loop of eight sums unrolled whole" \
    [ "$(grep -A1 '^ *#pragma GCC unroll 8$' fo/l.c | grep -c 'for (int t[0-9]* = 0; t[0-9]* < 8; t[0-9]*++) {')" -ge 1 ]
# and its lanes' steps have no BP_FOLD: each lane is a sum of its own, in
# order in its lane; the barrier kept gcc from running the eight in one
# vector with --cpu=native (horner/comp_main native 16.0 -> 6.4 ms, portable 7.1).
check "jam: no BP_FOLD in the lane loop" \
    [ "$(sed -n '/^ *#pragma GCC unroll 8$/,/^ *}$/p' fo/l.c | grep -c 'BP_FOLD(')" -eq 0 ]
# Where cc is a gcc that builds AVX-512 code: no 512-bit vectors in dot (each
# function on its own: no inlining; without BP_FOLD gcc 12 uses zmm there).
fo_cc() { cc -std=gnu11 -O2 -fvect-cost-model=dynamic -ffp-contract=off -fno-math-errno -w \
    -march=x86-64-v4 -mprefer-vector-width=512 -fno-inline -fno-ipa-sra -fno-ipa-cp \
    -I"$(dirname "$(command -v "$BRINE")")/../lib/brine/include" "$@"; }
if fo_cc -S -x c /dev/null -o /dev/null 2>/dev/null && ! cc -dM -E -x c /dev/null | grep -q __clang__; then
    fo_cc -S fo/f.c -o fo/f.s > fo.log 2>&1
    fo_fn() { sed -n "/^$1:/,/\.cfi_endproc/p" fo/f.s; }
    check "fold: gcc -march=x86-64-v4 compiles it" [ -s fo/f.s ]
    check "fold: dot uses no zmm" [ "$(fo_fn bf_main_dot | grep -c ret)" -ge 1 -a "$(fo_fn bf_main_dot | grep -c zmm)" -eq 0 ]
    check "fold: main's d = d - e loop unrolled (eight subtractions or more)" [ "$(fo_fn bf_main_main | grep -c vsubsd)" -ge 8 ]
    # BP_FOLD256 functions stay out of line (inlined, main's 512-bit width would be theirs)
    fo_cc -finline -finline-functions -finline-small-functions -S fo/f.c -o fo/f2.s > fo.log 2>&1
    # (a .cold part, the panic paths gcc moves out since panics are cold, is not a copy)
    check "fold: dot and prod are never inlined" [ "$(grep -E '^bf_main_(dot|prod)[.:]' fo/f2.s | grep -cv '\.cold')" -eq 2 ]
    # The barrier only reads the sum: one that also wrote it had gcc copy the
    # sum between two registers at every step (vmovsd %xmmA, %xmmA, %xmmB,
    # a move on the chain of adds; a dot product 2.5x slower than the
    # portable build on a Rocket Lake): 45 such moves in this main, 4 now.
    cat > fo/m.br <<'EOB'
fn dot(x: [float], y: [float]) -> float:
    var s = 0.0
    for i in 0..len(x):
        s += x[i] * y[i]
    return s

fn norm(x: [float]) -> float:
    return sqrt(dot(x, x))

fn main():
    let n = 2000
    let x = [float(i % 13) * 0.25 - 1.5 for i in 0..n]
    let y = [float(i % 7) * 0.5 - 1.0 for i in 0..n]
    var td = 0.0
    var tn = 0.0
    for t in 0..10:
        td += dot(x, y)
        tn += norm(x)
    print(td, tn)
EOB
    "$BRINE" build --release --cpu=native --emit-c fo/m.br -o fo/m > fo.log 2>&1
    fo_cc -S fo/m.c -o fo/m.s > fo.log 2>&1
    fo_moves=$(sed -n '/^bf_main_main:/,/\.cfi_endproc/p' fo/m.s | grep -cE 'vmovsd[[:space:]]+%xmm[0-9]+, %xmm[0-9]+, %xmm[0-9]+')
    check "fold: the sum stays in its register (main's inlined dots: $fo_moves register moves)" [ -s fo/m.s -a "$fo_moves" -le 10 ]
fi
as_none "fold: the same output as --opt=none" fo ./fo/f fo/f.br

# ---- a jammed nest's dot-like sums in vectors (emit_jam.c) ------------------
# c[i][j] = a fold over k of E(a[i][k], bt[j][k]), rows that differ per j: the
# eight sums of a jammed group as two 4-lane vectors with AVX (BP_VDOT), the
# rows turned two steps at a time (bp_v4_cols2), the scalar copies without;
# a row the same in every lane (x = a[i]) is a broadcast, not turned; lets
# before the sum (e = x[k] - y[k]) a vector each, abs lane-wise. Not an int
# sum (its products are checked), not a sum whose step calls sqrt.
mkdir -p vd
cat > vd/v.br <<'EOB'
fn dot(x: [float], y: [float]) -> float:
    var s = 0.0
    for k in 0..len(x):
        s += x[k] * y[k]
    return s

fn dots(a: [[float]], bt: [[float]]) -> [[float]]:
    var c = [[0.0] * len(bt) for i in 0..len(a)]
    for i in 0..len(a):
        for j in 0..len(bt):
            c[i][j] = dot(a[i], bt[j])
    return c

fn prods(a: [[float]], bt: [[float]], n: int) -> [[float]]:
    return [[sum(a[i][k] * bt[j][k] for k in 0..n) for j in 0..len(bt)] for i in 0..len(a)]

fn loops(a: [[float]], bt: [[float]]) -> [[float]]:
    var c = [[0.0] * len(bt) for i in 0..len(a)]
    for i in 0..len(a):
        for j in 0..len(bt):
            var s = 0.0
            for k in 0..len(a[i]):
                s += a[i][k] * bt[j][k]
            c[i][j] = s
    return c

fn dists(a: [[float]], bt: [[float]]) -> [[float]]:
    var c = [[0.0] * len(bt) for i in 0..len(a)]
    for i in 0..len(a):
        let x = a[i]
        for j in 0..len(bt):
            var s = 0.5
            for k in 0..len(x):
                let e = x[k] - bt[j][k]
                s += abs(e) * e
            c[i][j] = s
    return c

fn idots(a: [[int]], bt: [[int]]) -> [[int]]:
    return [[sum(row[k] * col[k] for k in 0..len(col)) for col in bt] for row in a]

fn roots(a: [[float]], bt: [[float]]) -> [[float]]:
    return [[sum(sqrt(row[k] * col[k]) for k in 0..len(col)) for col in bt] for row in a]

fn main():
    let a = [[float(i + k) * 0.5 for k in 0..9] for i in 0..3]
    let bt = [[float(j * k) * 0.25 for k in 0..9] for j in 0..21]
    print(dots(a, bt))
    print(prods(a, bt, 9))
    print(loops(a, bt))
    print(dists(a, bt))
    print(idots([[i + k for k in 0..9] for i in 0..3], [[j - k for k in 0..9] for j in 0..21]))
    print(roots(a, bt))
EOB
"$BRINE" build --release --cpu=native --emit-c vd/v.br -o vd/v > vd.log 2>&1
check "vdot: builds with --emit-c" [ $? -eq 0 -a -s vd/v.c ]
vdbody() { cbody vd/v.c "$1"; }
check "vdot: dot(a[i], bt[j]) runs as vectors, bt[j] turned, a[i] broadcast" \
    [ "$(vdbody bf_main_dots | grep -c '#if BP_VDOT')" -ge 1 -a "$(vdbody bf_main_dots | grep -c 'bp_v4_cols2(')" -ge 2 -a \
      "$(vdbody bf_main_dots | grep -c 'bp_v4_splat(')" -ge 2 ]
check "vdot: a[i][k] * bt[j][k] indexed in place runs as vectors, bt[j]'s slots turned" \
    [ "$(vdbody bf_main_prods | grep -c 'bp_v4_cols2(')" -ge 2 ]
check "vdot: a loop nest over k in 0..len(a[i]) (the bound read once: jammed) runs as vectors" \
    [ "$(vdbody bf_main_loops | grep -c 'bp_v4_cols2(')" -ge 2 ]
check "vdot: a let before the sum, and abs, run as vectors" \
    [ "$(vdbody bf_main_dists | grep -c 'bp_v4_cols2(')" -ge 2 -a "$(vdbody bf_main_dists | grep -c 'bp_v4_abs(')" -ge 3 ]
check "vdot: not an int sum, nor one that calls sqrt" \
    [ "$(vdbody 'bf_main_\(idots\|roots\)' | grep -c 'BP_VDOT')" -eq 0 ]
check "vdot: only gcc 12 or clang with AVX" \
    grep -q '^#if defined(__GNUC__) && !defined(__TINYC__) && defined(__AVX__) && (defined(__clang__) || __GNUC__ >= 12)$' vd/v.c
check "vdot: the upper halves of a turned pair inserted from memory (no second shuffle)" \
    [ "$(sed -n '/^BRT_INLINE void bp_v4_cols2/,/^}/p' vd/v.c | grep -c '_mm256_insertf128_pd(')" -eq 2 ]
as_none "vdot: the same output as --opt=none" vd ./vd/v vd/v.br
# without AVX (the portable build): the same loop in 2-lane vectors
"$BRINE" build --release --emit-c vd/v.br -o vd/p > vd.log 2>&1
check "vdot: the portable build writes the loop in 2-lane vectors too" \
    [ "$(sed -n "/^static .*bf_main_dots(.*)\$/,/^}/p" vd/p.c | grep -c '^ *#elif BP_VDOT == 2$')" -ge 1 -a \
      "$(sed -n "/^static .*bf_main_dots(.*)\$/,/^}/p" vd/p.c | grep -c 'bp_v2_cols2(')" -ge 6 ]
./vd/p > vd.gotp 2>&1
check "vdot: the portable build's output is the same" same vd.gotp vd.want

# ---- short loops: bounds as literals, unrolled whole by gcc -----------------
# A loop of 2 to 16 steps with no loop or call inside whose bounds are lets
# of one value (opt_range.c) gets BP_UNROLL (emit_loops.c); a longer one, one
# with a loop or a call inside, or one whose bound is a parameter (whatever
# its callers pass) does not.
mkdir -p un
cat > un/u.br <<'EOB'
fn part(v: [float], n: int) -> float:
    var s = 0.0
    for k in 0..n:
        s += v[k]
    return s

fn main():
    let d = 16
    let e = d + 1
    let x = [float(i) * 0.5 for i in 0..40]
    var s = 0.0
    for k in 0..d:
        s += x[k]
    var t = 0.0
    for k in 0..e:
        t += x[k]
    var w = 0
    for i in 0..4:
        for k in 0..=3:
            w += i * k
    var c = 0.0
    for k in 0..d:
        c += part(x, k)
    print(s, t, w, c, sum(x[k] * x[k] for k in 0..d), part(x, 4))
EOB
"$BRINE" build --release --emit-c un/u.br -o un/u > un.log 2>&1
check "unroll: builds with --emit-c" [ $? -eq 0 -a -s un/u.c ]
unbody() { cbody un/u.c "$1"; }
check "unroll: 0..d, 0..=3 and the sum over 0..d (d = 16) unrolled; 0..d + 1, the nest's outer loop and calls not" \
    [ "$(unbody bf_main_main | grep -c '^ *BP_UNROLL$')" -eq 3 ]
check "unroll: bounds of a short loop as literals" [ "$(unbody bf_main_main | grep -cE '= 16LL;$|< 16LL \?')" -eq 3 ]
check "unroll: never for a parameter's bound" [ "$(unbody bf_main_part | grep -c BP_UNROLL)" -eq 0 ]
check "unroll: BP_UNROLL only for gcc" \
    grep -q '^#if defined(__GNUC__) && !defined(__clang__) && !defined(__TINYC__)$' un/u.c
as_none "unroll: the same output as --opt=none" un ./un/u un/u.br

# ---- a recursive function's tuple result: its fields kept in registers -----
# (emit_c.c, BP_KEEP in emit_program.c's prelude): without it gcc pairs the
# two calls' fields through the stack, a store-forwarding stall per call.
mkdir -p rk
cat > rk/r.br <<'EOB'
fn split(lo: float, hi: float, depth: int) -> (float, int):
    if depth == 0:
        return (hi * hi - lo * lo, 1)
    let m = (lo + hi) / 2.0
    let l = split(lo, m, depth - 1)
    let r = split(m, hi, depth - 1)
    return (l.0 + r.0, l.1 + r.1)

fn wide(lo: float, hi: float, depth: int) -> (float, float, int):
    if depth == 0:
        return (hi - lo, lo * hi, 1)
    let m = (lo + hi) / 2.0
    let l = wide(lo, m, depth - 1)
    let r = wide(m, hi, depth - 1)
    return (l.0 + r.0, l.1 + r.1, l.2 + r.2)

fn main():
    print(split(0.0, 3.0, 6), wide(0.0, 3.0, 6))
EOB
"$BRINE" build --release --emit-c rk/r.br -o rk/r > rk.log 2>&1
check "keep: builds with --emit-c" [ $? -eq 0 -a -s rk/r.c ]
check "keep: the three calls of split keep its float field (BP_KEEP_F)" [ "$(grep -c 'BP_KEEP_F(t[0-9]*\.f0);' rk/r.c)" -eq 3 ]
check "keep: and its int field (BP_KEEP_I); wide's 24-byte result, returned in memory, none" \
    [ "$(grep -c 'BP_KEEP_I(t[0-9]*\.f1);' rk/r.c)" -eq 3 -a "$(grep -c 'BP_KEEP_[FI](t[0-9]*\.f2);' rk/r.c)" -eq 0 ]
as_none "keep: the same output as --opt=none" rk ./rk/r rk/r.br

# ---- pops: the last element taken inline where the array is its own --------
# xs.pop() is BRT_POP (runtime/brine_rt.h): not empty and the only reference,
# the element moves out inline; a shared array (copied first) and an empty
# one (a panic) go to brt_arr_pop, with the same results as --opt=none.
mkdir -p pp
cat > pp/p.br <<'EOB'
fn main():
    var work = [(1.5, "a"), (2.5, "b"), (3.5, "c")]
    let keep = work
    var total = 0.0
    var names = ""
    while len(work) > 0:
        let (x, s) = work.pop()
        total += x
        names = names + s
        if x > 3.0:
            work.push((0.25, "d"))
    print(total, names, len(keep), keep[2].1)
    var e: [int] = []
    print(e.pop())
EOB
"$BRINE" build --emit-c pp/p.br -o pp/p > pp.log 2>&1
check "pop: builds with --emit-c" [ $? -eq 0 -a -s pp/p.c ]
check "pop: the int pop written as BRT_POP" [ "$(grep -c 'BRT_POP(' pp/p.c)" -eq 1 ]
check "pop: the tuple pop read field by field from its slot (BRT_POP_EACH)" [ "$(grep -c 'BRT_POP_EACH(' pp/p.c)" -eq 1 ]
check "pop: the tuple push stored field by field (BRT_PUSH_EACH), no plain BRT_PUSH" \
    [ "$(grep -c 'BRT_PUSH_EACH(' pp/p.c)" -eq 1 -a "$(grep -c 'BRT_PUSH(' pp/p.c)" -eq 0 ]
as_none "pop: the same output and panic as --opt=none" pp ./pp/p pp/p.br
check "pop: the shared array kept its elements, the empty one panicked" \
    grep -q "^7.75 cdba 3 c$" pp.got

# ---- comprehensions into room made for every element: a store, no test -----
# A comprehension over one source without a filter makes room for all its
# elements first, so each element is stored (BRT_CURSOR_PUT: a loop gcc can
# vectorize); a filter or a second clause pushes (BRT_CURSOR_PUSH). A panic
# in an element leaves the output and message of --opt=none.
mkdir -p cp
cat > cp/c.br <<'EOB'
fn axpy(a: float, x: [float], y: [float]) -> [float]:
    return [y[k] + a * x[k] for k in 0..len(x)]

fn scale(a: float, x: [float]) -> [float]:
    return [a * v for v in x]

fn kept(x: [float]) -> [float]:
    return [v for v in x if v > 0.0]

fn pairs(n: int) -> [int]:
    return [i * j for i in 0..n for j in 0..i]

fn main():
    let x = [1.0, -2.0, 3.0]
    print(axpy(2.0, x, x), scale(0.5, x), kept(x), pairs(4))
    print(axpy(1.0, x + x, x))
EOB
"$BRINE" build --release --emit-c cp/c.br -o cp/c > cp.log 2>&1
check "room: builds with --emit-c" [ $? -eq 0 -a -s cp/c.c ]
cpbody() { cbody cp/c.c "$1"; }
check "room: axpy's and scale's comprehensions store while the room holds them" \
    [ "$(cpbody bf_main_axpy | grep -c 'BRT_CURSOR_PUT(')" -ge 1 -a "$(cpbody bf_main_scale | grep -c 'BRT_CURSOR_PUT(')" -ge 1 ]
check "room: a filter and a second clause push" \
    [ "$(cpbody 'bf_main_\(kept\|pairs\)' | grep -c 'BRT_CURSOR_PUT(')" -eq 0 -a "$(cpbody 'bf_main_\(kept\|pairs\)' | grep -c 'BRT_CURSOR_PUSH(')" -eq 2 ]
as_none "room: the same output and panic as --opt=none" cp ./cp/c cp/c.br
check "room: the index panic after the first line" grep -q "index out of bounds: the len is 3 but the index is 3" cp.got

# ---- proved reads in code written in place: no call-chain slot around them --
# A helper written in place (opt_inline.c) sets its call's place in the frame's
# slot around each statement that may panic; an element read its loop's guard
# proves in range cannot, so the fast version stores no slot around it (the
# stores kept gcc from vectorizing the pool's copy: 2 threads 13.8 -> 3.1 ms on
# bench/variants/horner/comp_main). A panic still names the helper.
mkdir -p qh
cat > qh/h.br <<'EOB'
fn horner(cs: [float], x: float) -> float:
    var y = 0.0
    for c in cs:
        y = y * x + c
    return y

fn main():
    let cs = [1.0, -0.5, 0.25, -0.125]
    let xs = [float(i % 100) * 0.01 for i in 0..100_000]
    let ys = [horner(cs, x) for x in xs]
    print(sum(ys))
    let bad = [horner(cs, float(i)) + xs[i * 3] for i in 0..50_000]
    print(len(bad))
EOB
"$BRINE" build --release --emit-c qh/h.br -o qh/h > qh.log 2>&1
check "quiet: builds with --emit-c" [ $? -eq 0 -a -s qh/h.c ]
check "quiet: no slot stored around a proved element read" [ "$(awk '/fp_\[0\] = &L[0-9]+;/ {a=NR; next}
    a && NR==a+1 && /= (BRT_AT\(double, [a-z0-9_]+, [a-z0-9_]+\)|t[0-9]+\[[a-z0-9_]+\]);/ {b=NR; next}
    b && NR==b+1 && /fp_\[0\] = NULL;/ {n++} {a=0; b=0} END {print n+0}' qh/h.c)" -eq 0 ]
as_none "quiet: the same output and panic as --opt=none" qh ./qh/h qh/h.br
# Any code written in place writes no slot at all: its places name the
# call's place as their site (brt_loc.site), which the chain prints as the
# frame outside (tests/golden/chains/inlined*: the same chains as before).
cp "$REPO/tests/golden/chains/inlined_in_loop.br" qh/l.br
"$BRINE" build --release --emit-c qh/l.br -o qh/l > qh.log 2>&1
check "inline sites: bin's place names its call's place" grep -qE '^static const brt_loc L[0-9]+ __attribute__\(\(unused\)\) = \{"[^"]*l\.br", 5, 12, "bin", &L[0-9]+\};$' qh/l.c
check "inline sites: only main's calls of count store a slot" [ "$(grep -c '\[0\] = &L' qh/l.c)" -le 2 ]

# ---- generators over range(lo, hi, step): no array of its values -------------
# A generator whose first clause is range(lo, hi, step) (literal lo and step)
# runs over the range's count (opt_iters.c): of the golden's generators only
# a later clause and a negative step build the array (16 before; a bound of
# variables, len and int arithmetic such as n + 1 is read for the count).
"$BRINE" --dump=c "$REPO/tests/golden/opt/gen_range_step.br" > gr.c 2>&1
check "range generators: two arrays of range's values left" [ "$(grep -c 'brt_range_step(' gr.c)" -eq 2 ]

# ---- keyed reductions in any order: bp_kfree where the order cannot show -----
# A keyed int or u64 sum, integer min/max, any and all get the order-free
# helper (runtime/keyfree.c); a float sum, an int product, a user reducer
# and an element with an effect (its function prints: the ordered way may
# evaluate it again) do not.
mkdir -p kf
cat > kf/k.br <<'EOB'
fn loud(i: int) -> int:
    print(i)
    return i

fn main():
    let xs = [float(i % 10) / 10.0 for i in 0..100]
    let a = par sum(1 for x in xs by int(x * 4.0) in 0..4)
    let b = sum(u64(i) for i in 0..100 by i % 3 in 0..3)
    let c = par min(i - 50 for i in 0..100 by i % 5 in 0..5)
    let d = par any(x > 0.5 for x in xs by int(x * 2.0) in 0..2)
    let e = par sum(x for x in xs by int(x * 4.0) in 0..4)
    let f = par product(i % 3 + 1 for i in 0..10 by i % 2 in 0..2)
    let g = par reduce(lambda p, q: p + q, 0, i for i in 0..10 by i % 2 in 0..2)
    let h = par sum(loud(i) for i in 0..3 by i % 2 in 0..2)
    print(a, b, c, d, e, f, g, h)
EOB
"$BRINE" build --release --emit-c kf/k.br -o kf/k > kf.log 2>&1
check "kfree: builds with --emit-c" [ $? -eq 0 -a -s kf/k.c ]
check "kfree: four keyed reductions get bp_kfree (int sum, u64 sum, min, any)" \
    [ "$(grep -c '^BP_PAR bool bp_kfree[0-9]*(' kf/k.c)" -eq 4 ]
check "kfree: passed to the runtime four times, NULL four times" \
    [ "$(grep -c 'bp_kfree[0-9]*, &' kf/k.c)" -eq 4 -a "$(grep -c 'bp_kroots[0-9]*, NULL, NULL' kf/k.c)" -eq 4 ]
as_none "kfree: the same output as --opt=none" kf ./kf/k kf/k.br

# ---- field stores down a path stay one C lvalue ------------------------------
# ps[i].x = v in a loop: the slot written as ps_data[i].f0 = v, not through a
# pointer to it (gcc vectorizes the first and not the second); the checked
# copy of the loop too, its index checked in the lvalue. The loop over i
# goes on the pool (straight-line work enough); the loop over s tests its
# guards once, before it (guards_outside), and the unchecked nest runs on
# the pool, each chunk every step over its slice (opt_version.c:
# steps_chunk): three copies of the inner loop in main, the unchecked
# nest's (in place, one thread) and the nest as written's two, one in the
# steps' helper and two in the nest as written's, which view ps as main
# does.
mkdir -p fp
cat > fp/f.br <<'EOB'
struct P:
    x: float
    vx: float

fn main():
    var ps = [P(float(i) * 0.1, 1.0 - float(i) * 0.05) for i in 0..40]
    for s in 0..30:
        for i in 0..len(ps):
            ps[i].x += ps[i].vx * 0.25
            if ps[i].x < 0.0 or ps[i].x > 1.0:
                ps[i].vx = -ps[i].vx
    print(ps[3], ps[39])
EOB
"$BRINE" build --release --emit-c fp/f.br -o fp/f > fp.log 2>&1
check "field store: builds with --emit-c" [ $? -eq 0 -a -s fp/f.c ]
fpbody() { sed -n "/^static .*bf_main_main(.*)\$/,/^}/p" fp/f.c; }
check "field store: no pointer to a field or an element taken" [ "$(grep -cE '^ *(double|bt1) \*t[0-9]+ = &' fp/f.c)" -eq 0 ]
check "field store: ps[i].x and ps[i].vx stored as lvalues, in the fast and the checked loops, in main and the helper" \
    [ "$(fpbody | grep -cE '^ *t[0-9]+\[(v[0-9]+|brt_idx_n\(t[0-9]+, v[0-9]+, &L[0-9]+\))\]\.f[01] = ')" -eq 6 -a \
      "$(grep -cE '^ *t[0-9]+\[(v[0-9]+|brt_idx_n\(t[0-9]+, v[0-9]+, &L[0-9]+\))\]\.f[01] = ' fp/f.c)" -eq 12 ]
check "field store: the unchecked nest on the pool, the steps in its chunks (no split test before the loop over s)" \
    [ "$(fpbody | grep -c '&& !brt_par_for_splits(')" -eq 0 -a "$(fpbody | grep -c 'brt_par_for_splits(')" -eq 2 ]
as_none "field store: the same output as --opt=none" fp ./fp/f fp/f.br

# ---- xs = [par] [e for i in 0..len(xs)], e reading xs[i]: slots in place ------
# When xs alone holds its array, element i is stored into slot i (a par one
# by brt_par_fill_into); an element that reads another slot gets a new array.
mkdir -p mi
cat > mi/m.br <<'EOB'
fn main():
    var xs = [float(i) for i in 0..50]
    var rs = [i for i in 0..9]
    for s in 0..4:
        xs = par [xs[i] * 0.5 + float(len(xs)) for i in 0..len(xs)]
        rs = [rs[i] * 3 - s for i in 0..len(rs)]
        rs = [rs[len(rs) - 1 - i] for i in 0..len(rs)]
    print(xs[0], xs[49], rs)
EOB
"$BRINE" build --release --emit-c mi/m.br -o mi/m > mi.log 2>&1
check "map in place: builds with --emit-c" [ $? -eq 0 -a -s mi/m.c ]
mibody() { sed -n "/^static .*bf_main_main(.*)\$/,/^}/p" mi/m.c; }
check "map in place: the par one filled into xs, the sequential one into rs, the reversal not" \
    [ "$(mibody | grep -c 'brt_par_fill_into(')" -eq 1 -a "$(mibody | grep -c 'if (brt_arr_sole(')" -eq 2 ]
as_none "map in place: the same output as --opt=none" mi ./mi/m mi/m.br

# xs = [e for x in xs] on the pool (enough work an element): when the
# runtime splits it, filled into xs too.
cat > mi/p.br <<'EOB'
fn f(x: float) -> float:
    var y = x
    for k in 0..8:
        y = y * 0.5 + float(k)
    return y

fn main():
    var xs = [float(i) for i in 0..5000]
    for s in 0..3:
        xs = [f(x) for x in xs]
    print(xs[0], xs[4999])
EOB
"$BRINE" build --release --emit-c mi/p.br -o mi/p > mi.log 2>&1
check "map in place on the pool: builds with --emit-c" [ $? -eq 0 -a -s mi/p.c ]
# a time loop whose whole body is the map: the store loop it is (opt_iters.c:
# map_loop) on the pool, the steps inside its chunks (no fill into xs, no split
# test before the loop over s; the fast nest's loop and each step's as written)
mipbody() { sed -n "/^static .*bf_main_main(.*)\$/,/^}/p" mi/p.c; }
check "map steps on the pool: a store loop, the steps in its chunks" \
    [ "$(mipbody | grep -c 'brt_par_fill_into(')" -eq 0 -a "$(mipbody | grep -c '&& !brt_par_for_splits(')" -eq 0 -a \
      "$(mipbody | grep -c 'brt_par_for(')" -eq 2 ]
BRINE_THREADS=4 ./mi/p > mi.got 2>&1
"$BRINE" run --opt=none mi/p.br > mi.want 2>&1
check "map in place on the pool: the same output as --opt=none" same mi.got mi.want
./mi/p > mi.got 2>&1
check "map steps on the pool: the same output at one thread" same mi.got mi.want
# a par map as written, the loop's whole body: a store loop left to parfor
# (not jammed, whatever its work), the steps inside the pool's chunks
cat > mi/q.br <<'EOB'
fn main():
    var xs = [float(i) for i in 0..3000]
    for s in 0..5:
        xs = par [xs[i] * 0.5 + float(s) for i in 0..len(xs)]
    print(xs[0], xs[2999])
EOB
"$BRINE" build --release --emit-c mi/q.br -o mi/q > mi.log 2>&1
check "par map in place steps: builds with --emit-c" [ $? -eq 0 -a -s mi/q.c ]
miqbody() { sed -n "/^static .*bf_main_main(.*)\$/,/^}/p" mi/q.c; }
check "par map steps: a store loop on the pool, the steps in its chunks" \
    [ "$(miqbody | grep -c 'brt_par_fill_into(')" -eq 0 -a "$(miqbody | grep -c '&& !brt_par_for_splits(')" -eq 0 -a \
      "$(miqbody | grep -c 'brt_par_for(')" -eq 2 ]
"$BRINE" run --opt=none mi/q.br > mi.want 2>&1
for t in 1 3; do
    BRINE_THREADS=$t ./mi/q > mi.got 2>&1
    check "par map in place steps: the same output as --opt=none at $t threads" same mi.got mi.want
done

# ---- for-each loops over a variable the body leaves alone: no snapshot -----
# `for c in cs` reads cs's length and data once; where the body cannot
# change cs (no assignment, store, push or pop of it) the variable holds the
# array for the whole loop: no retain and release of a snapshot, and so no
# ownership frame in a helper that loops over its parameter. A body that
# pushes into the array keeps the snapshot (the loop walks the old value).
mkdir -p fe
cat > fe/f.br <<'EOB'
fn horner(cs: [float], x: float) -> float:
    var y = 0.0
    for c in cs:
        y = y * x + c
    return y

fn grows(xs: [int]) -> int:
    var ys = xs
    var n = 0
    for y in ys:
        ys.push(y)
        n += y
    return n + len(ys)

fn main():
    let cs = [1.0, -0.5, 0.25]
    var total = 0.0
    for x in [0.5, 1.5]:
        total += horner(cs, x)
    print(horner(cs, 2.0), grows([1, 2, 3]), total)
EOB
"$BRINE" build --release --emit-c fe/f.br -o fe/f > fe.log 2>&1
check "for-each held: builds with --emit-c" [ $? -eq 0 -a -s fe/f.c ]
febody() { cbody fe/f.c "$1"; }
check "for-each held: horner's loop over its parameter retains nothing, pushes no owner frame" \
    [ "$(febody bf_main_horner | grep -c 'brt_retain\|brt_own_push\|brt_arr_release')" -eq 0 ]
check "for-each held: a loop whose body pushes into its array keeps its snapshot" \
    [ "$(febody bf_main_grows | grep -c 'brt_retain(')" -ge 1 ]
# in a loop, such a helper is written in place as a range loop over the
# array (opt_inline.c), whose bound, the length of a let of a literal that
# nothing resizes, is that literal: a short loop, written out (opt_shortfor.c)
check "for-each held: the helper written in place in main's loop" \
    [ "$("$BRINE" --dump=ir:inline fe/f.br | grep -c 'call bf_main_horner')" -eq 1 ]
check "for-each held: its loop over the literal's 3 elements written out, cs[2] read in main" \
    [ "$("$BRINE" --dump=ir:shortfor fe/f.br | sed -n '/^fn bf_main_main/,$p' | grep -c 'index[a-z -]*:float v[0-9]*.cs 2:int')" -eq 1 -a \
      "$("$BRINE" --dump=ir:shortfor fe/f.br | sed -n '/^fn bf_main_main/,$p' | grep -c 'for_range')" -eq 0 ]
# abs of a float is gcc's own (one andpd) in a release build, the union
# elsewhere (tcc): the same bits (tests/golden/float/abs_sign_bit)
check "abs: __builtin_fabs for gcc only" \
    [ "$(grep -A1 -x '#if defined(__GNUC__) && !defined(__TINYC__)' fe/f.c | grep -cx '#define bp_fabs(x) __builtin_fabs(x)')" -eq 1 ]
as_none "for-each held: the same output as --opt=none" fe ./fe/f fe/f.br

# ---- rows in restrict locals: the rows a guarded loop reads and stores ------
# The fast copy of a guarded innermost loop reads each row it indexes at a
# fixed path into a restrict local before it (emit_rows.c; u[i][k - 1] and
# u[i][k + 1] share one); a row it stores into (unique before the loop) too,
# and with every stored row accessed at the loop's index only, `#pragma GCC
# ivdep`. A row of the stored array apart from the stored one (v[i - 1]
# beside v[i]: rows_apart) has its own local; not when the loop reads its
# stored array by another path (v[r] beside v[i]), nor when it calls a
# function; a running sum reading the element two steps back (stored then)
# gets the locals but no ivdep; one reading the element before reads it from
# the carried local (opt_version.c: first_reads), so ivdep too.
mkdir -p rl
cat > rl/r.br <<'EOB'
fn smooth(u: [[float]], v: [[float]]) -> [[float]]:
    var w = v
    for i in 1..len(u) - 1:
        for k in 1..len(u[i]) - 1:
            w[i][k] = (u[i - 1][k] + u[i + 1][k] + u[i][k - 1] + u[i][k + 1]) * 0.25
    return w

fn running(u: [[float]]) -> [[float]]:
    var v = u
    for i in 0..len(u):
        for k in 2..len(u[i]):
            v[i][k] = v[i][k - 2] + u[i][k]
    return v

fn running1(u: [[float]]) -> [[float]]:
    var v = u
    for i in 0..len(u):
        for k in 1..len(u[i]):
            v[i][k] = v[i][k - 1] + u[i][k]
    return v

fn down(u: [[float]]) -> [[float]]:
    var v = u
    for i in 1..len(u):
        for k in 0..len(u[i]):
            v[i][k] = v[i - 1][k] * 0.5 + u[i][k]
    return v

fn other(u: [[float]], r: int) -> [[float]]:
    var v = u
    for i in 1..len(u):
        for k in 0..len(u[i]):
            v[i][k] = v[r][k] * 0.5 + u[i][k]
    return v

fn half(x: float, d: int) -> float:
    return x * 0.5 if d == 0 else half(x, d - 1)

fn called(u: [[float]]) -> [[float]]:
    var v = u
    for i in 0..len(u):
        for k in 0..len(u[i]):
            v[i][k] = half(u[i][k], 1) + v[i][k]
    return v

fn main():
    let u = [[float((i * 7 + k * 3) % 10) * 0.5 for k in 0..9] for i in 0..8]
    print(smooth(u, u)[3])
    print(running(u)[2])
    print(running1(u)[2])
    print(down(u)[7])
    print(other(u, 2)[5])
    print(called(u)[1])
EOB
"$BRINE" build --release --emit-c rl/r.br -o rl/r > rl.log 2>&1
check "rows: builds with --emit-c" [ $? -eq 0 -a -s rl/r.c ]
rlbody() { cbody rl/r.c "$1"; }
check "rows: a stencil's fast loop reads four rows and stores one through restrict locals, with ivdep" \
    [ "$(rlbody bf_main_smooth | grep -c 'const double \*restrict')" -ge 3 -a \
      "$(rlbody bf_main_smooth | grep -c '^ *double \*restrict')" -ge 1 -a "$(rlbody bf_main_smooth | grep -c '#pragma GCC ivdep')" -ge 1 ]
check "rows: a running sum along the row gets the locals, not ivdep" \
    [ "$(rlbody bf_main_running | grep -c 'restrict')" -ge 1 -a "$(rlbody bf_main_running | grep -c 'ivdep')" -eq 0 ]
check "rows: a running sum of the element before reads it from the carried local: locals and ivdep" \
    [ "$(rlbody bf_main_running1 | grep -c 'restrict')" -ge 1 -a "$(rlbody bf_main_running1 | grep -c 'ivdep')" -ge 1 ]
check "rows: a loop that reads the row before the one it stores gets a local for each, with ivdep" \
    [ "$(rlbody bf_main_down | grep -c 'const double \*restrict')" -ge 2 -a \
      "$(rlbody bf_main_down | grep -c '^ *double \*restrict')" -ge 1 -a "$(rlbody bf_main_down | grep -c '#pragma GCC ivdep')" -ge 1 ]
check "rows: not for a loop that reads a row of the array it stores by another index, nor one that calls" \
    [ "$(rlbody 'bf_main_\(other\|called\)' | grep -c 'restrict\|ivdep')" -eq 0 ]
as_none "rows: the same output as --opt=none" rl ./rl/r rl/r.br

# ---- restrict nests: a nest's flat arrays as restrict parameters -----------
# The fast copy of a nest whose inner loop's guards hold before it, its
# inner loop taking flat arrays into restrict locals, is written inside a
# nested function whose restrict parameters are those arrays' data
# (emit_rows.c: restrict_nest; BP_NEST, gcc only), and its inner bound
# len(x) a parameter assumed to make a range that runs, so that gcc may
# unroll and jam it. Not a nest whose inner loop stores rows that change with the
# outer loop, nor one whose inner loop calls a function.
mkdir -p rn
cat > rn/n.br <<'EOB'
fn soa(x0: [float], v0: [float], w: [float], k: int) -> [float]:
    var x = x0
    var v = v0
    for s in 0..k:
        for i in 0..len(x):
            x[i] += v[i] * 0.5 + w[i]
            v[i] = v[i] * 0.75 - x[i] * 0.125
            if x[i] > 4.0:
                x[i] -= 4.0
            if v[i] < -4.0:
                v[i] += 4.0
    return x

fn grid(g0: [[float]], k: int) -> [[float]]:
    var g = g0
    for s in 0..len(g):
        for i in 0..k:
            g[s][i] += g[s][i] * 0.5 + float(s)
            if g[s][i] > 4.0:
                g[s][i] -= 4.0
            if g[s][i] < -4.0:
                g[s][i] += 4.0
    return g

fn other(u: [[float]], r: int) -> [[float]]:
    var v = u
    for i in 1..len(u):
        for k in 0..len(u[i]):
            v[i][k] = v[r][k] * 0.5 + u[i][k]
    return v

fn half(x: float, d: int) -> float:
    return x * 0.5 if d == 0 else half(x, d - 1)

fn called(x0: [float], v: [float], k: int) -> [float]:
    var x = x0
    for s in 0..k:
        for i in 0..len(x):
            x[i] += half(v[i], 1)
            if x[i] > 4.0:
                x[i] -= 4.0
    return x

fn main():
    let a = [float(i % 5) * 0.25 for i in 0..11]
    print(soa(a, a, a, 7))
    print(grid([a, a, a], 11)[2])
    print(called(a, a, 5))
EOB
"$BRINE" build --release --emit-c rn/n.br -o rn/n > rn.log 2>&1
rn_built=$?
rnbody() { cbody rn/n.c "$1"; }
check "restrict nests: builds with --emit-c" [ $rn_built -eq 0 -a -s rn/n.c ]
check "restrict nests: a struct of arrays' nest in a nested function, the arrays restrict parameters" \
    [ "$(rnbody bf_main_soa | grep -c '^ *void bp_nest_t[0-9]*(double \*restrict bp_data_v[0-9]*, double \*restrict bp_data_v[0-9]*, double \*restrict bp_data_v[0-9]*, int64_t v[0-9]*, int64_t v[0-9]*) {$')" -eq 1 -a \
      "$(rnbody bf_main_soa | grep -c '^ *bp_nest_t[0-9]*(bp_data_v[0-9]*, bp_data_v[0-9]*, bp_data_v[0-9]*, bp_opaque_i64(v[0-9]*), bp_opaque_i64(v[0-9]*));$')" -eq 1 ]
check "restrict nests: the inner bounds (a chunk's of the nest on the pool) parameters, the range assumed to run" \
    [ "$(rnbody bf_main_soa | grep -c '^ *BP_ASSUME(v[0-9]* < v[0-9]*);$')" -eq 1 -a \
      "$(grep -c '^ *BP_ASSUME(v[0-9]* < v[0-9]*);$' rn/n.c)" -eq 2 ]
check "restrict nests: not rows that change with the outer loop, nor a loop that calls" \
    [ "$(rnbody 'bf_main_\(grid\|called\)' | grep -c 'bp_nest\|bp_data')" -eq 0 ]
check "restrict nests: gcc only" \
    [ "$(grep -A1 -x '#if defined(__GNUC__) \&\& !defined(__clang__) \&\& !defined(__TINYC__)' rn/n.c | grep -cx '#define BP_NEST 1')" -eq 1 ]
as_none "restrict nests: the same output as --opt=none" rn ./rn/n rn/n.br
"$BRINE" run rn/n.br > rn.dev 2>&1
check "restrict nests: the same output in a dev build (no nested function)" same rn.dev rn.want

# ---- a new string on the left of + is extended, not copied ------------------
# `",".join(parts) + ","` hands the join's string to brt_str_extend (grown in
# place: realloc moves a large block's pages); a variable on the left is
# copied by brt_str_concat and keeps its text.
mkdir -p sc
printf 'fn main():\n    let parts = [str(i) for i in 0..3]\n    let s = ",".join(parts) + ","\n    let t = s + "x"\n    print(s, t)\n' > sc/s.br
"$BRINE" --dump=c sc/s.br > sc.c 2> sc.log
check "strings: join(...) + x extends the new string" [ "$(grep -c 'brt_str_extend(' sc.c)" -eq 1 -a "$(grep -c 'brt_str_concat(' sc.c)" -eq 1 ]
check "strings: the variable keeps its text" [ "$("$BRINE" run sc/s.br)" = "0,1,2, 0,1,2,x" ]
# a join of a sequential comprehension is built as the loop runs: no array
# of pieces, no brt_str_join, each str(i) written in place, the room given
# back after; a par one keeps its pieces (made on the pool) and the join
printf 'fn main():\n    let s = ",".join([str(i) for i in 0..5]) + ","\n    let t = "-".join(par [str(i * i) for i in 0..4])\n    print(s, t)\n' > sc/j.br
"$BRINE" --dump=c sc/j.br > scj.c 2> sc.log
check "strings: a join of a comprehension streams its elements" \
    [ "$(grep -c 'brt_str_append_int(' scj.c)" -eq 1 -a "$(grep -c 'brt_str_fit(' scj.c)" -eq 1 -a "$(grep -c 'brt_str_join(' scj.c)" -eq 1 ]
check "strings: the streamed join's text" [ "$("$BRINE" run sc/j.br)" = "0,1,2,3,4, 0-1-4-9" ]
# s += str(i) + ",": each part appended to s in turn, no string between
printf 'fn main():\n    var s = ""\n    for i in 0..4:\n        s += str(i) + ","\n    print(s)\n' > sc/a.br
"$BRINE" --dump=c sc/a.br > sca.c 2> sc.log
check "strings: s += a + b appends each part" \
    [ "$(grep -c 'brt_str_append_int(' sca.c)" -eq 1 -a "$(grep -c 'brt_str_append_lit(' sca.c)" -eq 1 -a "$(grep -c 'brt_str_concat\|brt_str_of_int' sca.c)" -eq 0 ]
check "strings: the appended text" [ "$("$BRINE" run sc/a.br)" = "0,1,2,3," ]

# ---- pushes kept in a cursor: the array's data, length and room in locals ----
# A loop that only pushes into an array made unique before it (a filter)
# keeps the array's header in locals while it runs (BRT_CURSOR_PUSH), the
# length written back after; a loop that also reads the array's length
# pushes as written.
mkdir -p pc
printf 'fn keep(xs: [float], t: float) -> [float]:\n    var out: [float] = []\n    for x in xs:\n        if x > t:\n            out.push(x)\n    return out\n\nfn lens(n: int) -> [int]:\n    var out: [int] = []\n    for v in 0..n:\n        out.push(len(out) + v)\n    return out\n\nfn main():\n    print(keep([0.5, 2.0, 1.5, 0.1], 1.0), lens(4))\n' > pc/p.br
"$BRINE" --dump=c pc/p.br > pc.c 2> pc.log
check "push cursor: the filter's pushes in locals, the length read pushes as written" \
    [ "$(cbody pc.c bf_main_keep | grep -c 'BRT_CURSOR_PUSH(')" -eq 1 -a \
      "$(cbody pc.c bf_main_lens | grep -c 'BRT_CURSOR')" -eq 0 ]
check "push cursor: the output" [ "$("$BRINE" run pc/p.br)" = "[2.0, 1.5] [0, 2, 4, 6]" ]

# ---- 256-bit vectors in a function whose deepest loops are folds ----
# A function whose deepest loops spend their time in scalar in-order float
# folds (a dot then an update of v, per row) is BP_WIDTH256, gcc's 256-bit
# vectors (512-bit ones slow the clock the chain of adds waits on); not a
# product whose loops run in lanes, a large map with a sum after it, or a
# function calling one with loops (which gcc could write in place).
mkdir -p wd
cat > wd/w.br <<'EOB'
fn gs(q: [[float]], v0: [float]) -> [float]:
    var v = v0
    for j in 0..len(q):
        var p = 0.0
        for k in 0..len(v):
            p += q[j][k] * v[k]
        for k in 0..len(v):
            v[k] -= p * q[j][k]
    return v

fn prod(a: [[float]], b: [[float]]) -> [[float]]:
    var c = [[0.0] * len(b[0]) for i in 0..len(a)]
    for i in 0..len(a):
        for k in 0..len(b):
            for j in 0..len(b[0]):
                c[i][j] += a[i][k] * b[k][j]
    return c

fn mapsum(xs: [float]) -> float:
    let ys = [(((((((x * 0.5 - 0.25) * x + 0.125) * x - 0.0625) * x + 0.03125) * x - 0.015625) * x + 0.0078125) * x - 0.00390625) * x for x in xs]
    var s = 0.0
    for y in ys:
        s += y
    return s

fn main():
    let q = [[float((i * 7 + k * 3) % 11) * 0.1 for k in 0..6] for i in 0..3]
    let v = gs(q, [1.0, 2.0, 3.0, 4.0, 5.0, 6.0])
    print(v, prod(q, [[1.0, 0.5], [0.25, 2.0], [1.5, -1.0], [0.0, 1.0], [2.0, 2.0], [-0.5, 0.75]]), mapsum(v))
EOB
"$BRINE" build --release --cpu=native --emit-c wd/w.br -o wd/w > wd.log 2>&1
check "width: builds with --emit-c" [ $? -eq 0 -a -s wd/w.c ]
check "width: the dot-then-update function is BP_WIDTH256" grep -q '^static BP_WIDTH256 brt_arr \* bf_main_gs(' wd/w.c
check "width: not the product, the map with a sum, or main (calls)" \
    [ "$(grep -c '^static BP_WIDTH256 .* bf_main_\(prod\|mapsum\|main\)(' wd/w.c)" -eq 0 ]
check "width: BP_WIDTH256 is gcc's 256-bit preference, never inlined, with AVX-512 only" \
    grep -q '^#define BP_WIDTH256 __attribute__((target("prefer-vector-width=256"), noinline))$' wd/w.c
check "width: the output" [ "$(./wd/w)" = "[0.5303600000000006, -1.2712799999999993, -2.1434200000000003, -4.39188, 3.5964800000000006, 2.7243399999999998] [[0.9750000000000001, 1.4000000000000001], [2.85, 4.25], [2.2500000000000004, 1.875]] 91967.92880543365" ]

# A deepest loop's in-order float folds of any step size count too, one
# chain per fold (an n-body's sums over j of a step with a divide and a
# sqrt; a matrix-vector product's y[i] += a[i][j] * x[j], whose jammed
# rows keep y[i] in a local), against the step's work: not a fold whose
# step (a polynomial of eight coefficients) outweighs its chain.
cat > wd/w2.br <<'EOB'
fn forces(x: [float], m: [float]) -> [float]:
    var f = [0.0] * len(x)
    for i in 0..len(x):
        var s = 0.0
        var t = 0.0
        for j in 0..len(x):
            let d = x[j] - x[i]
            let d2 = d * d + 0.01
            let inv = 1.0 / (d2 * sqrt(d2))
            s += m[j] * d * inv
            t += m[j] * inv
        f[i] = s - t
    return f

fn mv(a: [[float]], x: [float]) -> [float]:
    var y = [0.0] * len(a)
    for i in 0..len(a):
        for j in 0..len(x):
            y[i] += a[i][j] * x[j]
    return y

fn polysum(xs: [float]) -> float:
    var s = 0.0
    for x in xs:
        s += (((((((x * 0.5 - 0.25) * x + 0.125) * x - 0.0625) * x + 0.03125) * x - 0.015625) * x + 0.0078125) * x - 0.00390625) * x
    return s

fn main():
    let n = 10
    let x = [float((i * 7) % 11) * 0.1 for i in 0..n]
    let a = [[float((i * 7 + k * 3) % 11) * 0.1 for k in 0..n] for i in 0..n]
    print(forces(x, x), mv(a, x), polysum(x))
EOB
"$BRINE" build --release --cpu=native --emit-c wd/w2.br -o wd/w2 > wd.log 2>&1
check "width: chains builds with --emit-c" [ $? -eq 0 -a -s wd/w2.c ]
check "width: the n-body's sums and the matrix-vector product are BP_WIDTH256" \
    [ "$(grep -c '^static BP_WIDTH256 brt_arr \* bf_main_\(forces\|mv\)(' wd/w2.c)" -eq 2 ]
check "width: not the polynomial's sum" [ "$(grep -c '^static BP_WIDTH256 .* bf_main_polysum(' wd/w2.c)" -eq 0 ]
check "width: chains output" [ "$(./wd/w2)" = "[-56.744018473383065, -1337.0698614924927, -449.0308398153323, -1484.6862405407112, -1120.3777977949553, -355.76148340258214, -1642.5473357252297, -812.6096984444667, -194.0498581656326, -1520.4190743746046] [2.9800000000000004, 2.4800000000000004, 2.8600000000000003, 2.4700000000000006, 2.1900000000000004, 2.3500000000000005, 2.6200000000000006, 2.5600000000000005, 2.9400000000000004, 2.2200000000000006] 0.5371472100000001" ]

# A par float sum's leaves (four side by side, each summed in order) are
# BP_LEAVES128: gcc's 128-bit vectors with AVX, two sums to a register as
# in the portable build (wider, gcc took each sum's steps four or eight at
# a time and added the lanes one by one: 2.1x the time); not an integer
# sum's leaves, whose order is free.
cat > wd/l.br <<'EOB'
fn dot(x: [float], y: [float]) -> float:
    return par sum(x[i] * y[i] for i in 0..len(x))

fn count(x: [int]) -> int:
    return par sum(v * 3 for v in x)

fn main():
    let n = 5000
    let x = [float(i % 7) * 0.5 + 1.0e-9 * float(i) for i in 0..n]
    let k = [i % 11 for i in 0..n]
    print(dot(x, x), count(k))
EOB
"$BRINE" build --release --cpu=native --emit-c wd/l.br -o wd/l > wd.log 2>&1
check "leaves128: builds with --emit-c" [ $? -eq 0 -a -s wd/l.c ]
check "leaves128: the float sum's leaves, not the integer sum's" \
    [ "$(grep -c '^\(BP_PAR\|static\) BP_LEAVES128 void bp_leaves[0-9]*(' wd/l.c)" -eq 1 ]
check "leaves128: 128-bit vectors with AVX, gcc only" \
    grep -q '^#define BP_LEAVES128 __attribute__((target("prefer-vector-width=128")))$' wd/l.c
check "leaves128: the output" [ "$(./wd/l)" = "16243.787487541655 74955" ]

# ---- a loop whose small step branches, unrolled by four ----
# BP_BRANCH_LOOP (gcc's unroll by four) before a statement loop whose small
# step holds an if statement, or a count assigned a choice (a filter's
# append written without its if), and no loop or call; not before a loop
# with no branch (gcc vectorizes it), a step that calls a function, a large
# step, or the checked copy of a versioned loop.
mkdir -p bl
cat > bl/b.br <<'EOB'
fn keep(xs: [float], t: float) -> [float]:
    var out: [float] = []
    for x in xs:
        if x > t:
            out.push(x)
    return out

fn count_into(xs: [float], t: float) -> ([float], int):
    var out = [0.0] * len(xs)
    var c = 0
    for i in 0..len(xs):
        if xs[i] > t:
            out[c] = xs[i]
            c += 1
    return (out, c)

fn scale(xs: [float]) -> [float]:
    var ys = xs
    for i in 0..len(ys):
        ys[i] = ys[i] * 2.0
    return ys

fn calls(xs: [float]) -> float:
    var s = 0.0
    for x in xs:
        if x > 0.5:
            s = s + sqrt(x)
    return s

fn big(xs: [float]) -> int:
    var c = 0
    for x in xs:
        if x * x * x * x * x * x * x * x * x * x * x * x * x * x * x * x * x * x * x * x > 0.5:
            c += 1
    return c

fn main():
    let xs = [0.25, 0.75, 1.5, 0.125]
    let (o, c) = count_into(xs, 0.5)
    print(keep(xs, 0.5), o, c, scale(xs), calls(xs), big(xs))
EOB
"$BRINE" build --release --emit-c bl/b.br -o bl/b > bl.log 2>&1
check "branch loop: builds with --emit-c" [ $? -eq 0 -a -s bl/b.c ]
blbody() { cbody bl/b.c "$1" | grep -c '^ *BP_BRANCH_LOOP$'; }
check "branch loop: a filter's push (keep), and its append with no if (count_into, fast copy only)" \
    [ "$(blbody bf_main_keep)" -eq 1 -a "$(blbody bf_main_count_into)" -ge 1 -a \
      "$(cbody bl/b.c bf_main_count_into | grep -c 'for (')" -gt "$(blbody bf_main_count_into)" ]
check "branch loop: none with no branch, a call or a large step" \
    [ "$(blbody bf_main_scale)" -eq 0 -a "$(blbody bf_main_calls)" -eq 0 -a "$(blbody bf_main_big)" -eq 0 ]
check "branch loop: BP_BRANCH_LOOP is gcc's unroll by four" grep -q '^#define BP_BRANCH_LOOP _Pragma("GCC unroll 4")$' bl/b.c
check "branch loop: the output" [ "$(./bl/b)" = "[0.75, 1.5] [0.75, 1.5, 0.0, 0.0] 2 [0.5, 1.5, 3.0, 0.25] 2.0907702751760278 1" ]

# ---- min/max folds of tuples: the record kept a branch seldom taken ----
# A min or max of tuples (lexicographic: a chain of compares) replaces its
# value seldom: the fold's update is BRT_UNLIKELY with BRT_KEEP_BRANCH, so gcc
# keeps a predicted branch instead of a conditional move each element waits
# on (argmax by max((x, i) ...): 10.3 -> 3.9 ms); a fold of numbers is left
# to gcc's min and max instructions (short rows lose with a branch).
mkdir -p mx
cat > mx/m.br <<'EOB'
fn best(xs: [float]) -> (float, int):
    return max((x, i) for (i, x) in enumerate(xs))

fn least(xs: [float]) -> float:
    return min(x * 2.0 for x in xs)

fn main():
    let xs = [0.25, 3.5, 1.5, 3.5, -2.0]
    print(best(xs), least(xs), par min((x, i) for (i, x) in enumerate(xs)))
EOB
"$BRINE" build --release --emit-c mx/m.br -o mx/m > mx.log 2>&1
check "tuple records: builds with --emit-c" [ $? -eq 0 -a -s mx/m.c ]
check "tuple records: a tuple max's update a kept branch, seldom taken; a float min's left to gcc" \
    [ "$(cbody mx/m.c bf_main_best | grep -c 'BRT_UNLIKELY(.*BRT_KEEP_BRANCH()')" -eq 1 -a \
      "$(cbody mx/m.c bf_main_least | grep -c 'BRT_KEEP_BRANCH')" -eq 0 ]
check "tuple records: the output" [ "$(./mx/m)" = "(3.5, 3) -4.0 (-2.0, 4)" ]
# the counter i of (x, i) is larger in each element than in the record, so
# only x is compared (emit_par.c counter_field): <= for max, < for min; in a
# par reduction's leaves a plain if, gcc's conditional move
check "tuple records: (x, i) by its counter compares x alone, the par leaf's update not kept a branch" \
    [ "$(cbody mx/m.c bf_main_best | grep -c 'BRT_UNLIKELY(![a-z0-9_]* || [a-z0-9_]*\.f0 <= [a-z0-9_]*\.f0)')" -eq 1 -a \
      "$(cbody mx/m.c bf_main_best | grep -c '_lt(')" -eq 0 -a \
      "$(grep -c 'if (![a-z0-9_]* || [a-z0-9_]*\.f0 < [a-z0-9_]*\.f0) {' mx/m.c)" -eq 1 ]

# ---- prefetch: a loop storing at a computed index reads its stream ahead ----
# A histogram's loop (for x in xs: counts[b] += 1) prefetches its element
# stream (opt_prefetch.c), a small body's in blocks of 8 iterations, once a
# block (BRT_PREFETCH_LINES, emit_prefetch.c pf_blocks); a loop storing at its
# own index (ys[i] = ...) gets none, nor does any loop with --opt=-prefetch.
mkdir -p pf
printf 'fn hist(xs: [float]) -> [int]:\n    var c = [0] * 4\n    for x in xs:\n        c[min(int(x * 4.0), 3)] += 1\n    return c\n\nfn twice(xs: [float]) -> [float]:\n    var ys = [0.0] * len(xs)\n    for i in 0..len(xs):\n        ys[i] = xs[i] * 2.0\n    return ys\n\nfn main():\n    print(hist([0.1, 0.9, 0.5]), twice([1.0]))\n' > pf/p.br
"$BRINE" --dump=c pf/p.br > pf.c 2> pf.log
"$BRINE" build --emit-c --opt=-prefetch pf/p.br -o pf/off 2>> pf.log
check "prefetch: the histogram's stream read ahead, the map's not, none with the pass off" \
    [ "$(cbody pf.c bf_main_hist | grep -c 'BRT_PREFETCH_LINES(')" -eq 1 -a \
      "$(cbody pf.c bf_main_twice | grep -c 'BRT_PREFETCH')" -eq 0 -a \
      "$(grep -c 'BRT_PREFETCH\(_LINES\)\?(' pf/off.c)" -eq 0 ]
check "prefetch: the output" [ "$("$BRINE" run pf/p.br)" = "[1, 0, 1, 1] [2.0]" ]
# The loop prefetching is IR: if [runs long](xs) (its count at least
# BRT_PREFETCH_MIN): the loop prefetching, else the loop as written; the test
# hook BRINE_VERIFY_PREFETCH leaves the first marked loop prefetching outside
# such an if, where ir_verify must stop the build (exit 70).
"$BRINE" --dump=ir:prefetch pf/p.br > pf.ir 2>> pf.log
check "prefetch: the loop written twice in the IR, the copy prefetching in the then-branch, the C's one if" \
    [ ! -s pf.log -a "$(grep -c 'if (builtin \[runs long\]:bool v' pf.ir)" -eq 1 -a \
      "$(grep -A1 'if (builtin \[runs long\]' pf.ir | grep -c 'for_array .* prefetch')" -eq 1 -a \
      "$(grep -c 'for_array .* prefetch' pf.ir)" -eq 1 -a "$(grep -c '>= BRT_PREFETCH_MIN) {' pf.c)" -eq 1 ]
BRINE_VERIFY_PREFETCH=1 "$BRINE" --dump=ir:prefetch pf/p.br > pf.ir 2> pf.log
rc=$?
check "prefetch: ir_verify refuses a loop prefetching outside its if (got $rc)" \
    [ $rc -eq 70 -a "$(grep -c 'a loop prefetching outside the then-branch of its \[runs long\] if' pf.log)" -eq 1 ]

# ---- records: a running minimum's update written as seldom taken ----------
# An argmin's `if a[j] < a[m]: m = j` is a record (opt_records.c): its
# condition is written BRT_UNLIKELY, so that gcc lays the update out of the
# loop's path, and its branch kept one (BRT_KEEP_BRANCH: an index record);
# a count's `if x > t: c += 1` is not; with --opt=-records none.
mkdir -p rec
printf 'fn argmin(a: [int]) -> int:\n    var m = 0\n    for j in 0..len(a):\n        if a[j] < a[m]:\n            m = j\n    return m\n\nfn above(a: [int], t: int) -> int:\n    var c = 0\n    for x in a:\n        if x > t:\n            c += 1\n    return c\n\nfn main():\n    print(argmin([3, 1, 2, 1]), above([3, 1, 2], 1))\n' > rec/r.br
"$BRINE" --dump=c rec/r.br > rec.c 2> rec.log
"$BRINE" build --emit-c --opt=-records rec/r.br -o rec/off 2>> rec.log
check "records: the argmin's update unlikely, the count's not, none with the pass off" \
    [ "$(cbody rec.c bf_main_argmin | grep -c 'if (BRT_UNLIKELY(')" -ge 1 -a \
      "$(cbody rec.c bf_main_argmin | grep -c 'BRT_KEEP_BRANCH()')" -ge 1 -a \
      "$(cbody rec.c bf_main_above | grep -c 'BRT_UNLIKELY')" -eq 0 -a \
      "$(grep -c 'if (BRT_UNLIKELY(' rec/off.c)" -eq 0 ]
check "records: the output" [ "$("$BRINE" run rec/r.br)" = "1 2" ]

# ---- bins: a conversion's check made by the index check at its value ------
# A table read at int(x * s) in a loop (opt_bins.c) writes the conversion
# raw and its check in the read's (brt_idx_n_f2i); a print between a
# conversion and the read at it keeps its check; with --opt=-bins none.
mkdir -p bn
printf 'fn look(xs: [float], t: [float]) -> float:\n    var a = 0.0\n    for x in xs:\n        a += t[int(x * 2.0)]\n    return a\n\nfn noisy(t: [float], x: float) -> float:\n    let b = int(x)\n    print(b)\n    return t[b]\n\nfn main():\n    print(look([0.1, 0.9], [1.0, 2.0]), noisy([3.0], 0.5))\n' > bn/b.br
"$BRINE" --dump=c bn/b.br > bn.c 2> bn.log
"$BRINE" build --emit-c --opt=-bins bn/b.br -o bn/off 2>> bn.log
check "bins: the read's check makes the conversion's, not across a print, none with the pass off" \
    [ "$(cbody bn.c bf_main_look | grep -c 'brt_idx_n_f2i(')" -ge 1 -a \
      "$(cbody bn.c bf_main_look | grep -c 'brt_f2i(')" -eq 0 -a \
      "$(cbody bn.c bf_main_noisy | grep -c 'brt_f2i(')" -eq 1 -a \
      "$(grep -c 'brt_f2i_raw(' bn/off.c)" -eq 0 ]
check "bins: the output" [ "$("$BRINE" run bn/b.br)" = "$(printf '0\n3.0 3.0')" ]

# ---- column tables: the rows' data a nest keeps for its column walks -------
# A column m[j][i] (the row changing along the loop) is read through the
# data pointers of the rows its guard's test scanned, kept in a table by the
# loop around that keeps the rows' least length (emit_rows.c): a transpose
# in place reads and stores both columns so. Not when a row may be copied
# in the nest (a row kept as a value: each store copies it first).
mkdir -p ct
cat > ct/c.br <<'EOB'
fn transpose(a: [[float]]) -> [[float]]:
    var b = a
    let n = len(b)
    for i in 0..n:
        for j in i + 1..n:
            let t = b[i][j]
            b[i][j] = b[j][i]
            b[j][i] = t
    return b

fn kept(a: [[float]]) -> [[float]]:
    var b = a
    var keep: [[float]] = []
    for i in 0..len(b):
        keep.push(b[i])
        for j in 0..len(b):
            b[j][i] = b[j][i] * 2.0
    return keep

fn main():
    let a = [[float(i * 4 + j) for j in 0..4] for i in 0..4]
    print(transpose(a))
    print(kept(a))
EOB
"$BRINE" build --release --emit-c ct/c.br -o ct/c > ct.log 2>&1 && ./ct/c > ct.got 2>&1
"$BRINE" run --opt=none ct/c.br > ct.want 2>&1
ct_t=$(sed -n '/^static .*bf_main_transpose(.*)$/,/^}/p' ct/c.c)
ct_k=$(sed -n '/^static .*bf_main_kept(.*)$/,/^}/p' ct/c.c)
check "coltab: a transpose in place reads and stores its column through the table" \
    [ "$(grep -c 'bp_rowtab(' <<< "$ct_t")" -eq 1 -a "$(grep -c '\.data\[' <<< "$ct_t")" -eq 2 ]
check "coltab: not where a row may be copied in the nest" [ "$(grep -c 'bp_rowtab(\|\.data\[' <<< "$ct_k")" -eq 0 ]
check "coltab: the same output as --opt=none" same ct.got ct.want

# ---- rows ahead: a loop over short rows fetches a row further on ----------
# A loop over i that reads rows[i] of an array of rows it cannot change and
# runs a loop whose walk follows i (a band; a comprehension of sums over
# each row, to len(rows[i])) fetches row i + 16 at each step (emit_rows.c:
# bp_row_ahead); a loop without an inner loop (one element of each row),
# or whose inner walk is the same in each row, does not.
mkdir -p ra
cat > ra/r.br <<'EOB'
fn band(b: [[float]], x: [float], w: int) -> [float]:
    let n = len(x)
    var y = [0.0] * n
    for i in 0..n:
        var s = 0.0
        for j in max(0, i - w)..min(n - 1, i + w) + 1:
            s += b[i][j - i + w] * x[j]
        y[i] = s
    return y

fn sums(rows: [[int]]) -> [int]:
    return [sum(rows[i][k] * k for k in 0..len(rows[i])) for i in 0..len(rows)]

fn firsts(rows: [[int]]) -> [int]:
    var out = [0] * len(rows)
    for i in 0..len(rows):
        out[i] = rows[i][0]
    return out

fn heads(rows: [[int]], m: int) -> [int]:
    var out = [0] * len(rows)
    for i in 0..len(rows):
        for k in 0..m:
            out[i] += rows[i][k]
    return out

fn main():
    let b = [[float((i + d) % 5) * 0.5 for d in 0..5] for i in 0..30]
    print(band(b, [float(i % 3) for i in 0..30], 2)[29])
    let rows = [[i + k for k in 0..1 + i % 4] for i in 0..20]
    print(sums(rows)[19], firsts(rows)[19], heads(rows, 1)[19])
EOB
"$BRINE" build --release --emit-c ra/r.br -o ra/r > ra.log 2>&1 && ./ra/r > ra.got 2>&1
"$BRINE" run --opt=none ra/r.br > ra.want 2>&1
rabody() { cbody ra/r.c "$1"; }
check "rows ahead: a band's loop over its rows fetches row i + 16" \
    [ "$(rabody bf_main_band | grep -c 'bp_row_ahead(t[0-9]*, t[0-9]*, v[0-9]*, 16LL);')" -eq 1 ]
check "rows ahead: and a comprehension of sums over the rows" [ "$(rabody bf_main_sums | grep -c 'bp_row_ahead(')" -ge 1 ]
check "rows ahead: not a loop reading one element of each row, nor one whose inner walk is the same in each" \
    [ "$(rabody 'bf_main_\(firsts\|heads\)' | grep -c 'bp_row_ahead(')" -eq 0 ]
check "rows ahead: the same output as --opt=none" same ra.got ra.want

# ---- a bool element kept in a local, read before its first store -----------
# The stored elements of a guarded loop live in locals through an iteration,
# loaded at its start (emit_rows.c open_row_elems). The cover pass makes a
# grid its loop fills without the fill, so that load reads an unset byte: a
# bool is read as its byte, since a C bool holding another value than 0 or 1
# is undefined (UBSan's bool check stopped tests/golden/opt/cover_grids.br).
mkdir -p ub
CC="cc -fsanitize=bool -fno-sanitize-recover=all" "$BRINE" build -g "$REPO/tests/golden/opt/cover_grids.br" -o ub/c > ub.log 2>&1 &&
    ./ub/c > ub.got 2> ub.err
check "unset bool elements: no invalid bool loaded (UBSan's bool check)" same ub.got "$REPO/tests/golden/opt/cover_grids.out"

harness_finish
