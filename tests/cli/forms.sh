#!/usr/bin/env bash
# tests/cli/forms.sh BRINE: the command line's one rule and the commands
# built on it, checked in a temporary directory (about 5 s):
#
#   - an option's value as -oX, -o X, --out=X, --out X, in any command;
#     -o=X refused with a message naming the right spellings; a flag given
#     a value, a missing value, an unknown option: one line, exit 2;
#     --color before the command; short flags run together;
#   - brine help CMD is CMD's help; brine help alone the general one;
#   - brine fmt DIR (recursive, hidden directories skipped), -l, and a
#     --check diff that patch -p0 applies to give fmt's own result;
#   - brine test: a line per test, the time, -k, tests/ as the default;
#   - brine run - reads the program from stdin; a #! script runs;
#   - brine -V names the commit; tools/version.sh's fallbacks.
#
# Prints one line per failure and ends with "N passed, N failed"; exits 1 if
# any failed.
set -uo pipefail
. "$(dirname "$0")/../lib/harness.sh"
harness_start forms "$@"
same() { cmp -s "$1" "$2"; }
# usage NAME WANT ARGS...: brine ARGS exits 2 with the one line WANT
usage() {
    local name=$1 want=$2
    shift 2
    "$BRINE" "$@" > u.out 2> u.err
    local rc=$?
    check "$name: exits 2 (got $rc)" [ $rc -eq 2 ]
    check "$name: one line (got: $(cat u.err))" [ "$(cat u.err)" = "$want" ]
    check "$name: nothing on stdout" [ ! -s u.out ]
}

# ---- the forms of an option's value ------------------------------------------
printf 'fn main():\n    print("hi")\n' > hi.br
for form in "-ohello" "-o hello" "--out=hello" "--out hello"; do
    rm -f hello
    "$BRINE" build hi.br $form > f.log 2>&1
    check "build $form: writes hello" [ -x hello -a ! -s f.log ]
    check "build $form: hello runs" [ "$(./hello 2>&1)" = hi ]
done
for form in "--opt=none" "--opt none" "--opt=-inline" "--opt -inline"; do
    check "run $form" [ "$("$BRINE" run $form hi.br 2>&1)" = hi ]
done
rm -f hello
"$BRINE" build -ohello hi.br > f.log 2>&1
check "build -ohello before FILE" [ -x hello ]
usage "-o=hello" "brine: write '-o hello' or '--out=hello', not '-o=hello' (the value follows -o directly or as the next word) (see brine --help)" \
    build hi.br -o=hello
check "-o=hello writes no '=hello'" [ ! -e =hello ]
usage "a flag with a value" "brine: --release takes no value, got '--release=yes' (see brine --help)" build hi.br --release=yes
usage "-o at the end" "brine: -o needs a value (OUT) (see brine --help)" build hi.br -o
usage "--out at the end" "brine: --out needs a value (OUT) (see brine --help)" build hi.br --out
usage "an unknown long option" "brine: unknown option '--frob' for build (see brine --help)" build hi.br --frob=1
usage "an unknown letter in a cluster" "brine: unknown option '-x' in '-lx' for fmt (see brine --help)" fmt -lx
usage "an unknown option before the command" "brine: unknown option '--frob' (see brine --help)" --frob build hi.br
usage "an unknown command" "brine: unknown command 'bild': expected build, run, test, fmt, tree, lsp, completions or help (see brine --help)" bild hi.br
usage "-j's range" "brine: -j wants a number of parallel tests from 1 to 256, got '0' (see brine --help)" test -j0 .
usage "--timeout's range" "brine: --timeout wants seconds from 1 to 86400, got 'x' (see brine --help)" test --timeout=x .
usage "--cpu's value" "brine: --cpu wants native or generic, got 'fast' (see brine --help)" build hi.br --release --cpu fast
printf 'fn main():\n    let x = 1 + 2.0\n' > bad.br
for pre in "--color=always build" "--color always build" "build --color=always" "build --color always"; do
    "$BRINE" $pre bad.br 2> c.err
    check "brine $pre: coloured" has c.err $'\033[1;31merror'
done
"$BRINE" --color=never build --color=always bad.br 2> c.err
check "the later --color wins" has c.err $'\033[1;31merror'
"$BRINE" --color=always --dump=tokens hi.br > d.out 2>&1
check "--color before --dump" has d.out "NEWLINE"
"$BRINE" --dump tokens hi.br > d2.out 2>&1
check "--dump WHAT as a separate word" same d.out d2.out
"$BRINE" run --dev --release -- hi.br > r.out 2>&1
check "run: options, --, FILE" [ "$(cat r.out)" = hi ]
printf 'import os\nfn main():\n    print(os.args())\n' > args.br
"$BRINE" run args.br -o x --out=y -- z > r.out 2>&1
check "run: the words after FILE are the program's, options and -- too" [ "$(cat r.out)" = '["-o", "x", "--out=y", "--", "z"]' ]

# ---- brine help ---------------------------------------------------------------
for c in build run test fmt help dump; do
    "$BRINE" help $c > h1.out 2> h.err
    rc=$?
    check "help $c exits 0 (got $rc)" [ $rc -eq 0 -a ! -s h.err ]
    if [ $c = dump ]; then "$BRINE" --dump=ast --help > h2.out; else "$BRINE" $c --help > h2.out; fi
    check "help $c is $c --help" same h1.out h2.out
done
"$BRINE" help build > h.out
check "help build: its usage line" [ "$(head -n 1 h.out)" = "usage: brine build FILE.br [-o OUT] [--release [--cpu=native]] [--emit-c] [-g] [--emit-cuda] [--deny-warnings] [--opt=PASSES]" ]
check "help build: -o, --out OUT" has h.out "  -o, --out OUT "
"$BRINE" help > h.out
"$BRINE" --help > h2.out
check "help alone is --help" same h.out h2.out
check "--help lists every command" [ "$(grep -cE '^  (build|run|test|fmt|help|--dump) ' h.out)" -eq 6 ]
usage "help of an unknown command" "brine: unknown command 'frob': the commands are build, run, test, fmt, tree, lsp, completions, help and dump (see brine --help)" help frob

# ---- brine fmt DIR, -l, a diff patch applies ----------------------------------
mkdir -p proj/src/deep proj/.hidden
printf 'fn main():\n  let x=1+2\n  print(x)\n' > proj/src/ugly.br
printf 'fn main():\n    print(1)\n' > proj/src/good.br
printf 'fn f()->int:\n  return 3\n' > proj/src/deep/ugly2.br
printf 'fn main():\n  print(1)\n' > proj/.hidden/skip.br
printf 'not brine\n' > proj/src/notes.txt
cp -r proj proj.orig
(cd proj && "$BRINE" fmt -l .) > l.out 2> l.err
rc=$?
check "fmt -l . exits 1 with files to format (got $rc)" [ $rc -eq 1 ]
printf './src/deep/ugly2.br\n./src/ugly.br\n' > l.want
check "fmt -l . lists them, sorted, skipping hidden directories" same l.out l.want
check "fmt -l writes nothing" diff -r proj proj.orig
(cd proj && "$BRINE" fmt --check src) > proj.patch 2> check.err
rc=$?
check "fmt --check DIR exits 1 (got $rc)" [ $rc -eq 1 ]
check "fmt --check: the names on stderr" has check.err "src/ugly.br: not formatted"
check "fmt --check: a unified diff with ---/+++ lines" [ "$(head -n 2 proj.patch)" = $'--- src/deep/ugly2.br\n+++ src/deep/ugly2.br' ]
check "fmt --check: its lines are not indented" grep -q '^-  let x=1+2$' proj.patch
cp -r proj proj.fmt
"$BRINE" fmt proj.fmt > fmt.log 2>&1
rc=$?
check "fmt DIR exits 0 (got $rc)" [ $rc -eq 0 -a ! -s fmt.log ]
check "fmt DIR leaves hidden directories and other files alone" \
    [ "$(cat proj.fmt/.hidden/skip.br)" = "$(cat proj/.hidden/skip.br)" -a "$(cat proj.fmt/src/notes.txt)" = "not brine" ]
(cd proj && patch -p0 --quiet < ../proj.patch) > patch.log 2>&1
rc=$?
check "patch -p0 applies fmt's diff (got $rc: $(cat patch.log))" [ $rc -eq 0 ]
check "the patched tree is fmt's result" diff -r proj proj.fmt
(cd proj && "$BRINE" fmt -l .) > l.out 2>&1
rc=$?
check "fmt -l of a formatted tree: exit 0, silent (got $rc)" [ $rc -eq 0 -a ! -s l.out ]
printf 'fn main():\n  print(1)' > nonl.br
"$BRINE" fmt --check nonl.br > nonl.patch 2> /dev/null
cp nonl.br n2.br
"$BRINE" fmt n2.br
patch --quiet nonl.br < nonl.patch > /dev/null 2>&1
check "patch applies a diff of a file without its last newline" same nonl.br n2.br
check "the diff marks the missing newline as diff does" has nonl.patch '\ No newline at end of file'
mkdir -p empty
"$BRINE" fmt empty > e.log 2>&1
rc=$?
check "fmt of a directory without .br files: exit 0 (got $rc)" [ $rc -eq 0 -a ! -s e.log ]

# ---- brine test: a line per test, the time, -k, tests/ by default ------------
mkdir -p user/tests/sub
printf 'fn main():\n    print(1)\n' > user/tests/one.br
printf '1\n' > user/tests/one.out
printf 'fn main():\n    print(2)\n' > user/tests/sub/two.br
printf '2\n' > user/tests/sub/two.out
printf 'fn main():\n    print(3)\n' > user/tests/sub/three.br
printf '4\n' > user/tests/sub/three.out
(cd user && "$BRINE" test --dev --threads 1) > t.out 2>&1
rc=$?
check "test with no PATH runs tests/ (got $rc)" [ $rc -eq 1 ]
sed -n 1p t.out > t.first
check "test: a line per passing test" [ "$(grep -c '^ok   ' t.out)" -eq 2 ]
check "test: ok lines name the test" has t.out "ok   tests/sub/two.br"
check "test: a failure's report in its place" [ "$(grep -n FAIL t.out | head -n 1 | cut -d: -f1)" -eq 2 ]
check "test: the closing line has the time" grep -qE '^2 passed, 1 failed in [0-9]+\.[0-9]{2} s$' t.out
(cd user && "$BRINE" test --dev --threads 1 -k two -k one) > t.out 2>&1
rc=$?
check "test -k: only the matching tests (got $rc)" [ $rc -eq 0 -a "$(grep -c '^ok   ' t.out)" -eq 2 ]
(cd user && "$BRINE" test --dev --threads 1 --filter=sub/t tests) > t.out 2>&1
check "test --filter=: a part of the path" grep -qE '^1 passed, 1 failed in' t.out
(cd user && "$BRINE" test -k nothing) > t.out 2> t.err
rc=$?
check "test -k matching nothing: exit 1 and says so (got $rc)" [ $rc -eq 1 ] && has t.err "brine: none of the 3 tests found matches -k"
(cd user/tests && "$BRINE" test) > t.out 2> t.err
rc=$?
check "test with no PATH and no tests/: exit 2 (got $rc)" [ $rc -eq 2 ]
check "test with no tests/: says what to do" has t.err "brine: no tests/ directory here; name the tests to run: brine test PATH..."
if command -v script > /dev/null 2>&1; then
    (cd user && script -qec "$BRINE test --dev --threads 1" /dev/null) > tty.out 2>&1
    check "test on a terminal: a counter, no ok lines" [ "$(grep -c '^ok   ' tty.out)" -eq 0 ]
    check "test on a terminal: the counter" has tty.out "[3/3] 2 passed, 1 failed"
    check "test on a terminal: the failure shown" has tty.out "FAIL tests/sub/three.br"
    check "test on a terminal: the totals" grep -qE '2 passed, 1 failed in [0-9.]+ s' tty.out
fi

# ---- brine run -, #! scripts ---------------------------------------------------
printf 'import os\nfn main():\n    print("from stdin", os.args())\n' | "$BRINE" run - a -b > s.out 2>&1
check "run - reads the program from stdin" [ "$(cat s.out)" = 'from stdin ["a", "-b"]' ]
printf 'fn main():\n    let x = 1 + 2.0\n' | "$BRINE" run - > s.out 2>&1
rc=$?
check "run -: a compile error names <stdin> (got $rc)" [ $rc -eq 1 ] && has s.out "--> <stdin>:2:13"
mkdir -p mods
printf 'fn two() -> int:\n    return 2\n' > mods/helper.br
(cd mods && printf 'import helper\nfn main():\n    print(helper.two())\n' | "$BRINE" run --release -) > s.out 2>&1
check "run --release -: imports beside the working directory" [ "$(cat s.out)" = 2 ]
printf '#!/usr/bin/env -S brine run\nimport os\n\nfn main():\n    print("script", os.args())\n' > script
chmod +x script
PATH="$(dirname "$BRINE"):$PATH" ./script x y > s.out 2>&1
check "a #!/usr/bin/env -S brine run script without .br runs (got: $(cat s.out))" [ "$(cat s.out)" = 'script ["x", "y"]' ]
"$BRINE" build script > s.out 2>&1
check "build still wants a .br name" has s.out "expected a source file ending in .br, got 'script'"
cp script script.br
"$BRINE" fmt --check script.br > s.out 2>&1
check "fmt keeps a #! line" [ $? -eq 0 ]

# ---- -V: the version and the commit -------------------------------------------
v=$("$BRINE" -V)
check "-V: brine VERSION (COMMIT DATE) (got '$v')" \
    grep -qE '^brine [0-9]+\.[0-9]+\.[0-9]+ \(([0-9a-f]{7,} [0-9]{4}-[0-9]{2}-[0-9]{2}|commit unknown)\)$' <<< "$v"
check "--version is -V" [ "$("$BRINE" --version)" = "$v" ]
if git -C "$REPO" rev-parse --git-dir > /dev/null 2>&1; then
    want="$(git -C "$REPO" log -1 --format='%h %cs')"
    check "version.sh: the checkout's commit" has <(sh "$REPO/tools/version.sh" "$REPO") "\"$want\""
    mkdir -p tarball
    git -C "$REPO" archive HEAD tools/version.sh tools/commit.txt | tar -x -C tarball
    if grep -q Format tarball/tools/commit.txt; then
        : # HEAD predates tools/commit.txt's export-subst: nothing to check
    else
        check "version.sh in a tarball: the commit git archive wrote" \
            has <(sh tarball/tools/version.sh tarball) "\"$(git -C "$REPO" log -1 --format='%h %cs' HEAD)\""
    fi
    mkdir -p bare/tools
    cp "$REPO/tools/version.sh" "$REPO/tools/commit.txt" bare/tools/
    check "version.sh without git or a filled commit.txt: commit unknown" \
        has <(GIT_CEILING_DIRECTORIES="$WORK" sh bare/tools/version.sh bare) '"commit unknown"'
fi

harness_finish
