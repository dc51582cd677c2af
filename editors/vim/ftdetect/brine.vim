" brine source files
autocmd BufRead,BufNewFile *.br setfiletype brine
