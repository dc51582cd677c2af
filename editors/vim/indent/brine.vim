" brine indentation: one level (4 spaces) after a line ending in ':',
" one less after return, pass, break and continue; inside brackets, one
" level past the line that opened them.
if exists("b:did_indent")
  finish
endif
let b:did_indent = 1

setlocal indentexpr=BrineIndent(v:lnum)
setlocal indentkeys=!^F,o,O,<:>,=elif,=else
setlocal autoindent
let b:undo_indent = "setlocal indentexpr< indentkeys< autoindent<"

if exists("*BrineIndent")
  finish
endif

function! s:Code(lnum) abort
  " the line without its comment and strings, roughly
  let l = getline(a:lnum)
  let l = substitute(l, '"\([^"\\]\|\\.\)*"', '""', 'g')
  return substitute(l, '#.*$', '', '')
endfunction

function! BrineIndent(lnum) abort
  let prev = prevnonblank(a:lnum - 1)
  while prev > 0 && getline(prev) =~ '^\s*#'
    let prev = prevnonblank(prev - 1)
  endwhile
  if prev == 0
    return 0
  endif
  let code = s:Code(prev)
  let ind = indent(prev)
  let cur = getline(a:lnum)
  " open brackets on the previous line
  let opens = len(substitute(code, '[^([]', '', 'g')) - len(substitute(code, '[^)\]]', '', 'g'))
  if opens > 0
    return ind + shiftwidth()
  endif
  if code =~ ':\s*$'
    let ind += shiftwidth()
  elseif code =~ '^\s*\(return\|pass\|break\|continue\)\>'
    let ind -= shiftwidth()
  endif
  if cur =~ '^\s*\(elif\|else\)\>'
    let ind -= shiftwidth()
  endif
  return ind < 0 ? 0 : ind
endfunction
