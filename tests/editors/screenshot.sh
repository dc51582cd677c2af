#!/bin/sh
# tests/editors/screenshot.sh BRINE OUT.png: Neovim under tmux with brine's
# plugin and language server, a file with an error open, its diagnostic
# shown; the pane captured (tmux capture-pane) and drawn as OUT.png
# (render_pane.py) for docs/editors.md. Needs nvim, tmux and python3-pil.
set -eu
brine=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
out=$2
root=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
sock="$work/tmux.sock"
trap 'tmux -S "$sock" kill-server 2>/dev/null || true; rm -rf "$work"' EXIT
cat > "$work/stats.br" <<'BR'
# The mean and the spread of some samples.
fn mean(xs: [float]) -> float:
    return par sum(x for x in xs) / float(len(xs))

fn main():
    let samples = [2.0, 4.0, 4.0, 5.0]
    let m = mean(samples)
    let spread = max(abs(x - m) for x in samples)
    print(f"mean {m:.2f}, spread {spread:.2f}")
    print(mean(sample))
BR
cat > "$work/init.lua" <<LUA
vim.opt.runtimepath:prepend("$root/editors/vim")
vim.cmd("filetype plugin indent on")
vim.cmd("syntax on")
vim.opt.termguicolors = false
vim.opt.number = true
vim.opt.signcolumn = "yes"
require("brine_lsp").setup({ cmd = { "$brine", "lsp" } })
LUA
cd "$work"
TERM=xterm-256color tmux -S "$sock" -f /dev/null new-session -d -x 92 -y 16 \
    "HOME=$work XDG_STATE_HOME=$work XDG_DATA_HOME=$work nvim -i NONE -u $work/init.lua stats.br"
# wait for the diagnostic's virtual text
for _ in $(seq 1 100); do
    if tmux -S "$sock" capture-pane -p | grep -q "undefined name"; then break; fi
    sleep 0.1
done
tmux -S "$sock" capture-pane -p | grep -q "undefined name" || { echo "screenshot: no diagnostic appeared"; exit 1; }
tmux -S "$sock" send-keys 10G
sleep 0.3
tmux -S "$sock" capture-pane -p -e > "$work/pane.txt"
cd - >/dev/null
py=python3; [ -x /usr/bin/python3 ] && py=/usr/bin/python3 # Debian's, with python3-pil
$py "$root/tests/editors/render_pane.py" "$work/pane.txt" "$out"
tmux -S "$sock" capture-pane -p | sed 's/ *$//' > "${out%.png}.txt"
echo "screenshot: $out (and its text, ${out%.png}.txt)"
