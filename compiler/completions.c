/*
 * completions.c: `brine completions bash|zsh|fish` prints a completion
 * script for that shell (make install puts each where its shell looks).
 * The scripts are written from cli.c's table of commands and options, so
 * they complete exactly what the command line accepts; .br files are
 * offered where a command takes a source.
 */
#include "cli.h"
#include "driver.h"
#include "lsp.h"

#include <stdlib.h>
#include <string.h>

static bool listed(const struct cli_command *c)
{
    return strcmp(c->name, "dump") != 0; /* --dump is an option of the top level */
}

/* The first line of an option's help, without what would end a quoted word. */
static const char *first_line(const char *help)
{
    struct buf b = {0};
    bputs(&b, "");
    for (const char *p = help; *p && *p != '\n'; p++)
        if (!strchr("'[]:\\\"$`", *p))
            bputn(&b, p, 1);
    return b.p;
}

static void each_option(const struct cli_command *c, void (*put)(struct buf *, const struct cli_option *),
                        struct buf *out)
{
    static const struct cli_option common[] = {
        {"color", 0, "WHEN", CLI_COLOR, "diagnostics in colour: auto, always or never"},
        {"help", 'h', NULL, CLI_HELP, "print this help"},
        {0},
    };
    for (const struct cli_option *o = c->options; o && (o->long_name || o->short_name); o++)
        put(out, o);
    for (const struct cli_option *o = common; o->long_name; o++)
        put(out, o);
}

static void bash_word(struct buf *b, const struct cli_option *o)
{
    if (o->long_name)
        bprintf(b, " --%s", o->long_name);
    if (o->short_name)
        bprintf(b, " -%c", o->short_name);
}

static void bash(struct buf *b)
{
    bputs(b, "# bash completion for brine (brine completions bash)\n"
             "_brine() {\n"
             "    local cur=\"${COMP_WORDS[COMP_CWORD]}\" prev=\"${COMP_WORDS[COMP_CWORD-1]}\" cmd=\"${COMP_WORDS[1]}\"\n"
             "    if [ \"$COMP_CWORD\" -eq 1 ]; then\n"
             "        if [[ \"$cur\" == -* ]]; then\n"
             "            COMPREPLY=($(compgen -W \"--help --version --color --dump=tokens --dump=ast --dump=ir --dump=c\" -- \"$cur\"))\n"
             "        else\n"
             "            COMPREPLY=($(compgen -W \"");
    for (const struct cli_command *c = cli_commands; c->name; c++)
        if (listed(c))
            bprintf(b, "%s%s", c == cli_commands ? "" : " ", c->name);
    bputs(b, "\" -- \"$cur\"))\n"
             "        fi\n"
             "        return\n"
             "    fi\n"
             "    case \"$prev\" in\n"
             "        --color) COMPREPLY=($(compgen -W \"auto always never\" -- \"$cur\")); return ;;\n"
             "        --cpu) COMPREPLY=($(compgen -W \"native generic\" -- \"$cur\")); return ;;\n"
             "        -o|--out) COMPREPLY=($(compgen -f -- \"$cur\")); return ;;\n"
             "    esac\n"
             "    local opts=\"\"\n"
             "    case \"$cmd\" in\n");
    for (const struct cli_command *c = cli_commands; c->name; c++) {
        if (!listed(c))
            continue;
        bprintf(b, "        %s) opts=\"", c->name);
        struct buf w = {0};
        each_option(c, bash_word, &w);
        bputs(b, w.p ? w.p + 1 : "");
        free(w.p);
        bputs(b, "\" ;;\n");
    }
    bputs(b, "    esac\n"
             "    if [[ \"$cur\" == -* ]]; then\n"
             "        COMPREPLY=($(compgen -W \"$opts\" -- \"$cur\"))\n"
             "    elif [ \"$cmd\" = completions ]; then\n"
             "        COMPREPLY=($(compgen -W \"bash zsh fish\" -- \"$cur\"))\n"
             "    elif [ \"$cmd\" = help ]; then\n"
             "        COMPREPLY=($(compgen -W \"");
    for (const struct cli_command *c = cli_commands; c->name; c++)
        bprintf(b, "%s%s", c == cli_commands ? "" : " ", c->name);
    bputs(b, "\" -- \"$cur\"))\n"
             "    elif [ \"$cmd\" != lsp ]; then\n"
             "        COMPREPLY=($(compgen -f -X '!*.br' -- \"$cur\") $(compgen -d -- \"$cur\"))\n"
             "    fi\n"
             "}\n"
             "complete -o filenames -F _brine brine\n");
}

static void zsh_spec(struct buf *b, const struct cli_option *o)
{
    const char *h = first_line(o->help);
    const char *vals = o->id == CLI_COLOR ? ":when:(auto always never)" : o->id == OPT_CPU ? ":cpu:(native generic)"
                       : o->id == OPT_OUT ? ":file:_files" : ":value:";
    if (o->long_name)
        bprintf(b, " '--%s%s[%s]%s'", o->long_name, o->value ? "=" : "", h, o->value ? vals : "");
    if (o->short_name)
        bprintf(b, " '-%c[%s]%s'", o->short_name, h, o->value ? vals : "");
}

static void zsh(struct buf *b)
{
    bputs(b, "#compdef brine\n# zsh completion for brine (brine completions zsh)\n_brine() {\n"
             "    local -a commands\n    commands=(\n");
    for (const struct cli_command *c = cli_commands; c->name; c++)
        if (listed(c))
            bprintf(b, "        '%s:%s'\n", c->name, first_line(c->summary));
    bputs(b, "    )\n    if (( CURRENT == 2 )); then\n        _describe 'command' commands\n"
             "        _arguments '--help[print the usage]' '--version[print the version]' "
             "'--dump=[dump a phase]:phase:(tokens ast ir c)'\n        return\n    fi\n    case $words[2] in\n");
    for (const struct cli_command *c = cli_commands; c->name; c++) {
        if (!listed(c))
            continue;
        bprintf(b, "        %s) _arguments", c->name);
        each_option(c, zsh_spec, b);
        if (strcmp(c->name, "completions") == 0)
            bputs(b, " '1:shell:(bash zsh fish)'");
        else if (strcmp(c->name, "help") == 0)
            bputs(b, " '1:command:(build run test fmt lsp completions help dump)'");
        else if (strcmp(c->name, "lsp") != 0)
            bputs(b, " '*:source:_files -g \"*.br\"'");
        bputs(b, " ;;\n");
    }
    bputs(b, "    esac\n}\n_brine \"$@\"\n");
}

static const char *fish_cmd;

static void fish_line(struct buf *b, const struct cli_option *o)
{
    bprintf(b, "complete -c brine -n '__fish_seen_subcommand_from %s'", fish_cmd);
    if (o->long_name)
        bprintf(b, " -l %s", o->long_name);
    if (o->short_name)
        bprintf(b, " -s %c", o->short_name);
    if (o->id == CLI_COLOR)
        bputs(b, " -xa 'auto always never'");
    else if (o->id == OPT_CPU)
        bputs(b, " -xa 'native generic'");
    else if (o->value)
        bputs(b, " -r");
    bprintf(b, " -d '%s'\n", first_line(o->help));
}

static void fish(struct buf *b)
{
    bputs(b, "# fish completion for brine (brine completions fish)\ncomplete -c brine -f\n");
    for (const struct cli_command *c = cli_commands; c->name; c++)
        if (listed(c))
            bprintf(b, "complete -c brine -n __fish_use_subcommand -a %s -d '%s'\n", c->name, first_line(c->summary));
    bputs(b, "complete -c brine -n __fish_use_subcommand -l version -d 'print the version'\n"
             "complete -c brine -n __fish_use_subcommand -l dump -xa 'tokens ast ir c' -d 'dump a phase'\n"
             "complete -c brine -n '__fish_seen_subcommand_from build run fmt' -ka '(__fish_complete_suffix .br)'\n"
             "complete -c brine -n '__fish_seen_subcommand_from test' -F\n"
             "complete -c brine -n '__fish_seen_subcommand_from completions' -xa 'bash zsh fish'\n"
             "complete -c brine -n '__fish_seen_subcommand_from help' -xa 'build run test fmt lsp completions help dump'\n");
    for (const struct cli_command *c = cli_commands; c->name; c++) {
        if (!listed(c))
            continue;
        fish_cmd = c->name;
        each_option(c, fish_line, b);
    }
}

int completions_main(int argc, char **argv)
{
    struct cli_args args = cli_start("completions", argc, argv);
    const char *v, *shell = NULL;
    for (enum cli_id id; (id = cli_next(&args, &v)) != CLI_DONE;) {
        if (id == CLI_HELP) {
            cli_print_help(args.cmd, stdout);
            return 0;
        }
        if (shell)
            command_line_error("completions takes one shell, got '%s' and '%s'", shell, v);
        shell = v;
    }
    if (!shell)
        command_line_error("completions takes one shell: bash, zsh or fish");
    struct buf b = {0};
    if (strcmp(shell, "bash") == 0)
        bash(&b);
    else if (strcmp(shell, "zsh") == 0)
        zsh(&b);
    else if (strcmp(shell, "fish") == 0)
        fish(&b);
    else
        command_line_error("completions knows bash, zsh and fish, not '%s'", shell);
    fwrite(b.p, 1, b.len, stdout);
    if (fflush(stdout) != 0)
        return EXIT_USAGE;
    return 0;
}
