#!/bin/bash
# tests/editors/completions.sh BRINE: `brine completions SHELL` for bash, zsh
# and fish: each script parses in its shell (zsh and fish when installed),
# and bash's completes the commands, a command's options and .br files; a
# shell brine does not know is a usage error (exit 2).
set -eu
brine=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$brine" completions bash > "$work/brine.bash"
"$brine" completions zsh > "$work/_brine"
"$brine" completions fish > "$work/brine.fish"
bash -n "$work/brine.bash"
if command -v zsh >/dev/null; then zsh -n "$work/_brine"; else echo "completions: no zsh here, its script not parsed"; fi
if command -v fish >/dev/null; then fish --no-execute "$work/brine.fish"; else echo "completions: no fish here, its script not parsed"; fi
grep -q '^#compdef brine' "$work/_brine"
grep -q '^complete -c brine' "$work/brine.fish"

cd "$work"
touch prog.br notes.txt
# shellcheck disable=SC1091
source "$work/brine.bash"
complete_words() { # the words of a command line, the last being completed
    COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMPREPLY=(); _brine
    printf '%s\n' "${COMPREPLY[@]}" | sort | tr '\n' ' '
}
got=$(complete_words brine b); [ "$got" = "build " ] || { echo "FAIL: brine b<TAB> gave '$got'"; exit 1; }
got=$(complete_words brine ""); for c in build run test fmt lsp completions; do
    case " $got" in *" $c "*) ;; *) echo "FAIL: brine <TAB> lacks $c: '$got'"; exit 1 ;; esac; done
got=$(complete_words brine build --re); [ "$got" = "--release " ] || { echo "FAIL: build --re<TAB> gave '$got'"; exit 1; }
got=$(complete_words brine run p); [ "$got" = "prog.br " ] || { echo "FAIL: run p<TAB> gave '$got'"; exit 1; }
got=$(complete_words brine build --color a); [ "$got" = "always auto " ] || { echo "FAIL: --color a<TAB> gave '$got'"; exit 1; }
got=$(complete_words brine completions f); [ "$got" = "fish " ] || { echo "FAIL: completions f<TAB> gave '$got'"; exit 1; }
set +e
"$brine" completions tcsh > /dev/null 2>&1; st=$?
set -e
[ $st = 2 ] || { echo "FAIL: completions tcsh exited $st, not 2"; exit 1; }
echo "completions: bash, zsh and fish scripts, bash's completing commands, options and files: passed"
