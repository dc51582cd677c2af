#!/usr/bin/env bash
# tests/fmt/repo.sh BRINE: every .br file of the repository (build/ aside)
# is in brine fmt's layout, except those tests/fmt-exclude.txt lists.
# Prints the files that are not, with a diff, and exits 1 if there are any.
set -uo pipefail

if [ $# -ne 1 ]; then
    echo "usage: $0 BRINE" >&2
    exit 2
fi
BRINE=$(realpath "$1")
cd "$(dirname "$0")/../.." || exit 2
mapfile -t patterns < <(grep -v '^[[:space:]]*\(#\|$\)' tests/fmt-exclude.txt)
files=()
while IFS= read -r f; do
    f=${f#./}
    skip=
    for p in "${patterns[@]}"; do
        case "$p" in
        */) [[ "$f" == "$p"* ]] && skip=1 ;;
        *) [[ "$f" == $p ]] && skip=1 ;;
        esac
    done
    [ -z "$skip" ] && files+=("$f")
done < <(find . -path ./build -prune -o -path ./.git -prune -o -name '*.br' -type f -print | LC_ALL=C sort)
"$BRINE" fmt --check "${files[@]}"
st=$?
if [ $st -eq 0 ]; then
    echo "fmt: ${#files[@]} files formatted"
else
    echo "fmt: some of ${#files[@]} files are not formatted (brine fmt FILE rewrites one)"
fi
exit $st
