/*
 * completions.c: `brine completions bash|zsh|fish` prints a completion
 * script for that shell (make install puts each where its shell looks).
 * The scripts know the commands and their options; files are completed as
 * .br sources where a command takes one.
 */
#include "lsp.h"
#include "driver.h"

#include <string.h>

#define COMMANDS "build run test fmt lsp completions help"
#define BUILD_OPTS "-o --release --dev --cpu=native --cpu=generic --emit-c --emit-cuda --deny-warnings --color --help"
#define RUN_OPTS "--release --dev --cpu=native --cpu=generic --deny-warnings --color --help"
#define TEST_OPTS "--bless --release --dev --cpu=native --threads -j --timeout --help"
#define FMT_OPTS "--check --color --help"
#define TOP_OPTS "--help --version --dump=tokens --dump=ast --dump=ir --dump=c"

static const char bash_script[] =
    "# bash completion for brine (brine completions bash)\n"
    "_brine() {\n"
    "    local cur prev cmd\n"
    "    cur=\"${COMP_WORDS[COMP_CWORD]}\"\n"
    "    prev=\"${COMP_WORDS[COMP_CWORD-1]}\"\n"
    "    cmd=\"${COMP_WORDS[1]}\"\n"
    "    if [ \"$COMP_CWORD\" -eq 1 ]; then\n"
    "        if [[ \"$cur\" == -* ]]; then\n"
    "            COMPREPLY=($(compgen -W \"" TOP_OPTS "\" -- \"$cur\"))\n"
    "        else\n"
    "            COMPREPLY=($(compgen -W \"" COMMANDS "\" -- \"$cur\"))\n"
    "        fi\n"
    "        return\n"
    "    fi\n"
    "    case \"$prev\" in\n"
    "        --color) COMPREPLY=($(compgen -W \"auto always never\" -- \"$cur\")); return ;;\n"
    "        -o) COMPREPLY=($(compgen -f -- \"$cur\")); return ;;\n"
    "    esac\n"
    "    local opts=\"\"\n"
    "    case \"$cmd\" in\n"
    "        build) opts=\"" BUILD_OPTS "\" ;;\n"
    "        run) opts=\"" RUN_OPTS "\" ;;\n"
    "        test) opts=\"" TEST_OPTS "\" ;;\n"
    "        fmt) opts=\"" FMT_OPTS "\" ;;\n"
    "        completions) COMPREPLY=($(compgen -W \"bash zsh fish\" -- \"$cur\")); return ;;\n"
    "        help) COMPREPLY=($(compgen -W \"" COMMANDS "\" -- \"$cur\")); return ;;\n"
    "        lsp) return ;;\n"
    "    esac\n"
    "    if [[ \"$cur\" == -* ]]; then\n"
    "        COMPREPLY=($(compgen -W \"$opts\" -- \"$cur\"))\n"
    "    else\n"
    "        COMPREPLY=($(compgen -f -X '!*.br' -- \"$cur\") $(compgen -d -- \"$cur\"))\n"
    "    fi\n"
    "}\n"
    "complete -o filenames -F _brine brine\n";

static const char zsh_script[] =
    "#compdef brine\n"
    "# zsh completion for brine (brine completions zsh)\n"
    "_brine() {\n"
    "    local -a commands\n"
    "    commands=(\n"
    "        'build:compile a program to a native executable'\n"
    "        'run:build and run a program'\n"
    "        'test:run golden tests'\n"
    "        'fmt:format source files'\n"
    "        'lsp:run the language server on stdio'\n"
    "        'completions:print a shell completion script'\n"
    "        'help:print the usage'\n"
    "    )\n"
    "    if (( CURRENT == 2 )); then\n"
    "        _describe 'command' commands\n"
    "        _arguments '--help[print the usage]' '--version[print the version]' \\\n"
    "            '--dump=[dump a phase]:phase:(tokens ast ir c)'\n"
    "        return\n"
    "    fi\n"
    "    case $words[2] in\n"
    "        build) _arguments '-o[output file]:file:_files' '--release[optimise with $CC]' '--dev[libtcc build]' \\\n"
    "                   '--cpu=[target CPU]:cpu:(native generic)' '--emit-c[write OUT.c]' '--emit-cuda[write OUT.cu]' \\\n"
    "                   '--deny-warnings[warnings are errors]' '--color[colour]:when:(auto always never)' \\\n"
    "                   '*:source:_files -g \"*.br\"' ;;\n"
    "        run) _arguments '--release[release build]' '--dev[dev build]' '--cpu=[target CPU]:cpu:(native generic)' \\\n"
    "                 '--deny-warnings[warnings are errors]' '--color[colour]:when:(auto always never)' \\\n"
    "                 '*:source:_files -g \"*.br\"' ;;\n"
    "        test) _arguments '--threads[thread counts]:list:' '--release[release builds]' '*:path:_files' ;;\n"
    "        fmt) _arguments '--check[report, do not write]' '--color[colour]:when:(auto always never)' \\\n"
    "                 '*:source:_files -g \"*.br\"' ;;\n"
    "        completions) _arguments '1:shell:(bash zsh fish)' ;;\n"
    "        help) _describe 'command' commands ;;\n"
    "    esac\n"
    "}\n"
    "_brine \"$@\"\n";

static const char fish_script[] =
    "# fish completion for brine (brine completions fish)\n"
    "complete -c brine -f\n"
    "complete -c brine -n __fish_use_subcommand -a build -d 'compile a program to a native executable'\n"
    "complete -c brine -n __fish_use_subcommand -a run -d 'build and run a program'\n"
    "complete -c brine -n __fish_use_subcommand -a test -d 'run golden tests'\n"
    "complete -c brine -n __fish_use_subcommand -a fmt -d 'format source files'\n"
    "complete -c brine -n __fish_use_subcommand -a lsp -d 'run the language server on stdio'\n"
    "complete -c brine -n __fish_use_subcommand -a completions -d 'print a shell completion script'\n"
    "complete -c brine -n __fish_use_subcommand -a help -d 'print the usage'\n"
    "complete -c brine -n __fish_use_subcommand -l version -d 'print the version'\n"
    "complete -c brine -n __fish_use_subcommand -l dump -xa 'tokens ast ir c' -d 'dump a phase'\n"
    "complete -c brine -n '__fish_seen_subcommand_from build run fmt' -ka '(__fish_complete_suffix .br)'\n"
    "complete -c brine -n '__fish_seen_subcommand_from test' -F\n"
    "complete -c brine -n '__fish_seen_subcommand_from build' -s o -r -F -d 'output file'\n"
    "complete -c brine -n '__fish_seen_subcommand_from build run' -l release -d 'optimise with $CC'\n"
    "complete -c brine -n '__fish_seen_subcommand_from build run' -l dev -d 'a dev build with libtcc'\n"
    "complete -c brine -n '__fish_seen_subcommand_from build run' -l cpu -xa 'native generic' -d 'target CPU'\n"
    "complete -c brine -n '__fish_seen_subcommand_from build' -l emit-c -d 'also write OUT.c'\n"
    "complete -c brine -n '__fish_seen_subcommand_from build' -l emit-cuda -d 'also write OUT.cu'\n"
    "complete -c brine -n '__fish_seen_subcommand_from build run' -l deny-warnings -d 'warnings are errors'\n"
    "complete -c brine -n '__fish_seen_subcommand_from build run fmt' -l color -xa 'auto always never'\n"
    "complete -c brine -n '__fish_seen_subcommand_from test' -l threads -x -d 'thread counts, e.g. 1,2,7'\n"
    "complete -c brine -n '__fish_seen_subcommand_from fmt' -l check -d 'report, do not write'\n"
    "complete -c brine -n '__fish_seen_subcommand_from completions' -xa 'bash zsh fish'\n";

int completions_main(int argc, char **argv)
{
    if (argc == 1 && (strcmp(argv[0], "--help") == 0 || strcmp(argv[0], "-h") == 0)) {
        fputs("usage: brine completions bash|zsh|fish\n\nPrints the completion script for that shell.\n", stdout);
        return 0;
    }
    if (argc != 1)
        command_line_error("completions takes one shell: bash, zsh or fish");
    const char *s = strcmp(argv[0], "bash") == 0 ? bash_script
                    : strcmp(argv[0], "zsh") == 0 ? zsh_script
                    : strcmp(argv[0], "fish") == 0 ? fish_script
                                                   : NULL;
    if (!s)
        command_line_error("completions knows bash, zsh and fish, not '%s'", argv[0]);
    fputs(s, stdout);
    if (fflush(stdout) != 0)
        return EXIT_USAGE;
    return 0;
}
