#!/bin/sh
# tests/editors/nvim.sh BRINE: Neovim (headless) with its built-in LSP client
# attached to `brine lsp`, from editors/vim's files (nvim_lsp.lua says what
# is checked). Needs nvim (Debian's neovim, in the Makefile's deps).
set -eu
brine=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
root=$(cd "$(dirname "$0")/../.." && pwd)
command -v nvim >/dev/null || { echo "nvim not found: install neovim (make deps)"; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
BRINE=$brine WORK=$work HOME=$work XDG_CONFIG_HOME=$work XDG_DATA_HOME=$work XDG_STATE_HOME=$work \
timeout 120 nvim --headless --clean -u NONE -i NONE \
    --cmd "set runtimepath^=$root/editors/vim" --cmd "filetype plugin indent on" \
    -c "luafile $root/tests/editors/nvim_lsp.lua" 2>&1 | tee "$work/log"
grep -q '^FAIL' "$work/log" && exit 1
grep -q 'the diagnostic cleared' "$work/log" || { echo "nvim test: did not run to its end"; exit 1; }
echo "nvim test: passed"
