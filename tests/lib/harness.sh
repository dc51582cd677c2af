# tests/lib/harness.sh: what the shell test scripts share, sourced by them
# (tests/cli/run.sh, tests/cli/forms.sh). harness_start BRINE NAME takes the
# script's one argument (the brine to test), sets BRINE and REPO, and moves
# into a fresh work folder removed at exit; check NAME COMMAND... counts a
# pass when COMMAND succeeds and prints "FAIL NAME" when it does not;
# harness_finish prints "N passed, N failed" and fails if any failed.

harness_start() { # harness_start NAME "$@"
    local name=$1
    shift
    if [ $# -ne 1 ]; then
        echo "usage: $0 BRINE" >&2
        exit 2
    fi
    BRINE=$(realpath "$1")
    REPO=$(cd "$(dirname "$0")/../.." && pwd)
    WORK=$(mktemp -d "${TMPDIR:-/tmp}/brine-$name-XXXXXX")
    trap 'rm -rf "$WORK"' EXIT
    cd "$WORK" || exit 2
    passed=0
    failed=0
}

check() { # check NAME CONDITION...: passes when the command succeeds
    local name=$1
    shift
    if "$@"; then
        passed=$((passed + 1))
    else
        echo "FAIL $name"
        failed=$((failed + 1))
    fi
}
has() { grep -qF -- "$2" "$1"; }

harness_finish() {
    echo "$passed passed, $failed failed"
    [ "$failed" -eq 0 ]
}
