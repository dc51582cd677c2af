#!/usr/bin/env bash
# tests/cli/install.sh: `make install` into a DESTDIR (with a PREFIX), the
# installed brine builds and runs a program and finds its runtime, stdlib,
# man page and docs; `make uninstall` with the same DESTDIR and PREFIX
# removes every file install put and brine's own directories, and leaves a
# file of someone else's alone. About 2 s.
#
# Prints one line per failure and ends with "N passed, N failed"; exits 1 if
# any failed.
set -uo pipefail
REPO=$(cd "$(dirname "$0")/../.." && pwd)
WORK=$(mktemp -d "${TMPDIR:-/tmp}/brine-install-XXXXXX")
trap 'rm -rf "$WORK"' EXIT
MAKE=${MAKE:-make}

passed=0
failed=0
check() { # check NAME CONDITION...
    local name=$1
    shift
    if "$@"; then passed=$((passed + 1)); else echo "FAIL $name"; failed=$((failed + 1)); fi
}

D=$WORK/dest
P=/opt/br
$MAKE -s -C "$REPO" install DESTDIR="$D" PREFIX="$P" > "$WORK/install.log" 2>&1
check "make install succeeds" [ $? -eq 0 ]
I=$D$P
for f in bin/brine lib/brine/libbrine_rt.a lib/brine/include/brine_rt.h lib/brine/stdlib/math.br \
    share/man/man1/brine.1 share/doc/brine/README.md share/doc/brine/CHANGELOG.md share/doc/brine/LICENSE \
    share/doc/brine/docs/cli.md share/doc/brine/docs/tutorial.md share/doc/brine/examples/hello.br; do
    check "installed: $f" [ -f "$I/$f" ]
done
check "the installed docs are all of docs/*.md" \
    [ "$(ls "$I/share/doc/brine/docs" | grep -c '\.md$')" -eq "$(ls "$REPO"/docs/*.md | wc -l)" ]

printf 'import math\nfn main():\n    print(math.isnan(2.5))\n' > "$WORK/m.br"
out=$("$I/bin/brine" run "$WORK/m.br" 2>&1)
check "the installed brine runs a program with the stdlib (got '$out')" [ "$out" = false ]
"$I/bin/brine" build "$WORK/m.br" -o "$WORK/m" > "$WORK/build.log" 2>&1
check "the installed brine builds one" [ "$("$WORK/m")" = false ]
check "the installed brine says its version" [ "$("$I/bin/brine" -V)" = "$("$REPO/build/bin/brine" -V)" ]

mkdir -p "$I/lib/brine/stdlib"
touch "$I/bin/other-tool" "$I/lib/brine/stdlib/mine.br"
$MAKE -s -C "$REPO" uninstall DESTDIR="$D" PREFIX="$P" > "$WORK/uninstall.log" 2>&1
check "make uninstall succeeds" [ $? -eq 0 ]
check "uninstall leaves another tool in bin/" [ -f "$I/bin/other-tool" ]
check "uninstall leaves a file it did not install" [ -f "$I/lib/brine/stdlib/mine.br" ]
rm "$I/bin/other-tool" "$I/lib/brine/stdlib/mine.br"
$MAKE -s -C "$REPO" uninstall DESTDIR="$D" PREFIX="$P" > "$WORK/uninstall.log" 2>&1
check "a second uninstall succeeds" [ $? -eq 0 ]
left=$(find "$D" -mindepth 1 \( -type f -o -type l -o -name '*brine*' \) | sed "s|^$D||")
check "nothing of brine left (left: $left)" [ -z "$left" ]

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
