" brine: comments, indentation and formatting as brine fmt writes them
if exists("b:did_ftplugin")
  finish
endif
let b:did_ftplugin = 1

setlocal commentstring=#\ %s
setlocal comments=:#
setlocal expandtab shiftwidth=4 softtabstop=4 tabstop=4
setlocal suffixesadd=.br
" gq through the formatter (a syntax error leaves the text as it was)
setlocal formatprg=brine\ fmt\ -

let b:undo_ftplugin = "setlocal commentstring< comments< expandtab< shiftwidth< softtabstop< tabstop< suffixesadd< formatprg<"
