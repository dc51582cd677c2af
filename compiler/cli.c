/*
 * cli.c: the command line, one rule for every command (docs/cli.md).
 *
 * The table cli_commands holds each command's usage, summary and options;
 * the help of every command and the general help are printed from it, and
 * cli_next reads every command's words by it, so an option spelled one way
 * in one command is spelled that way in all of them. The rule is
 * getopt_long's (permuted operands, -oX, -o X, --out=X, --out X, -ab,
 * --), with three differences that make mistakes visible:
 *
 *   - -o=X is refused with a message (getopt would read the value "=X");
 *   - long options are never abbreviated (a new option cannot change what
 *     an old command line means);
 *   - messages are brine's one line "brine: ..." and exit 2.
 *
 * --color and --help are every command's (and the top level's, so
 * `brine --color=always build x.br` works); --color is handled here.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "brine.h"
#include "cli.h"
#include "version.h" /* generated at build time (tools/version.sh): BRINE_BUILD_COMMIT */

/* Every command's own options. */
static const struct cli_option global_options[] = {
    {"color", 0, "WHEN", CLI_COLOR, "diagnostics in colour: auto (on a terminal), always or never"},
    {"help", 'h', NULL, CLI_HELP, "print this help"},
    {0},
};

static const struct cli_option top_options[] = {
    {"version", 'V', NULL, OPT_VERSION, "print the version, the commit and its date"},
    {"dump", 0, "WHAT", OPT_DUMP, "print tokens, ast, ir, ir:PASS or c of FILE.br (brine help dump)"},
    {0},
};

#define CPU_OPTION {"cpu", 0, "CPU", OPT_CPU, "release: native (-march=native: this machine's CPU) or\ngeneric (the default); the output is the same"}
#define DENY_OPTION {"deny-warnings", 0, NULL, OPT_DENY_WARNINGS, "report warnings as errors (exit 1)"}
#define OPT_PASSES_OPTION {"opt", 0, "PASSES", OPT_OPT, "optimizer passes: all (default), none, -PASS (one off), +PASS,\ncomma-separated, left to right; the same output whatever PASSES"}

static const struct cli_option build_options[] = {
    {"out", 'o', "OUT", OPT_OUT, "the program to write (default: FILE without .br)"},
    {"release", 0, NULL, OPT_RELEASE, "optimise with the system C compiler ($CC, else cc)"},
    {"dev", 0, NULL, OPT_DEV, "a dev build with libtcc (the default)"},
    CPU_OPTION,
    {"emit-c", 0, NULL, OPT_EMIT_C, "also write the generated C to OUT.c"},
    {"debug", 'g', NULL, OPT_DEBUG, "debug information on the .br lines (gdb, perf, valgrind);\nkeeps OUT.c"},
    {"emit-cuda", 0, NULL, OPT_EMIT_CUDA, "also write the GPU kernels to OUT.cu"},
    DENY_OPTION,
    OPT_PASSES_OPTION,
    {0},
};

static const struct cli_option run_options[] = {
    {"release", 0, NULL, OPT_RELEASE, "a release build ($CC) into a temporary file, run, then removed\n"
                                      "(default: a dev build with libtcc, in memory)"},
    {"dev", 0, NULL, OPT_DEV, "the default dev build"},
    CPU_OPTION,
    {"deny-warnings", 0, NULL, OPT_DENY_WARNINGS, "report warnings as errors (exit 1); the program does not run"},
    OPT_PASSES_OPTION,
    {0},
};

static const struct cli_option test_options[] = {
    {"filter", 'k', "PATTERN", OPT_FILTER, "only the tests whose path contains PATTERN (given again:\nthose that contain any of them)"},
    {"bless", 0, NULL, OPT_BLESS, "write NAME.out and NAME.err from what the tests print, and\n"
                                  "create them for new tests (a .br with fn main and no .out)"},
    {"release", 0, NULL, OPT_RELEASE, "only release builds"},
    {"dev", 0, NULL, OPT_DEV, "only dev builds"},
    {"cpu", 0, "CPU", OPT_CPU, "release builds for native (this machine's CPU) or generic"},
    {"threads", 0, "LIST", OPT_THREADS, "the BRINE_THREADS counts to run at (default 1,4)"},
    {"jobs", 'j', "N", OPT_JOBS, "tests run at a time, 1 to 256 (default 2)"},
    {"timeout", 0, "S", OPT_TIMEOUT, "seconds per build or run, 1 to 86400 (default 60)"},
    {"opt", 0, "PASSES", OPT_OPT, "the builds' optimizer passes: all (default), none, -PASS, +PASS"},
    {0},
};

static const struct cli_option fmt_options[] = {
    {"check", 0, NULL, OPT_CHECK, "write nothing; print a diff of each file not formatted\n"
                                  "(patch -p0 applies it) and exit 1 if there are any"},
    {"list", 'l', NULL, OPT_LIST, "write nothing; print the name of each file not formatted\n"
                                  "and exit 1 if there are any"},
    {0},
};

static const struct cli_option tree_options[] = {
    {"carry", 0, "L", OPT_CARRY, "mark the nodes a par scan folds into leaf L's carry"},
    {"svg", 0, NULL, OPT_SVG, "write an SVG picture instead of text"},
    {0},
};

static const struct cli_option no_options[] = {{0}};

static const struct cli_option lsp_options[] = {
    {"stdio", 0, NULL, OPT_STDIO, "talk on stdin and stdout (the only way; some clients say it)"},
    {0},
};

const struct cli_command cli_commands[] = {
    {"build", "FILE.br [-o OUT] [--release [--cpu=native]] [--emit-c] [-g] [--emit-cuda] [--deny-warnings] [--opt=PASSES]",
     "compile FILE.br to a native program (default OUT: FILE without .br)",
     "Compiles FILE.br to a native program; options may stand before or after FILE.",
     build_options, false},
    {"run", "[--release [--cpu=native]] [--deny-warnings] [--opt=PASSES] FILE.br|- [ARGS...]",
     "build FILE.br in memory (dev build) and run it with ARGS",
     "Builds FILE.br and runs it with ARGS; exits with the program's status.\n"
     "Everything after FILE.br belongs to the program, options included.\n"
     "FILE '-' reads the program from stdin. A script can start with the line\n"
     "#!/usr/bin/env -S brine run",
     run_options, true},
    {"test", "[PATH...] [-k PATTERN] [--bless] [--release | --dev] [--cpu=native] [--threads 1,4] [-j N] [--timeout S] [--opt=PASSES]",
     "run the tests under PATH (default tests/)",
     "Runs the golden tests under each PATH (a directory, searched recursively, or a\n"
     "NAME.br; default tests/). A test is NAME.br with NAME.out beside it. Prints a\n"
     "line per test (on a terminal: a counter and the failures), then the totals.",
     test_options, false},
    {"fmt", "[--check | -l] FILE.br|DIR... | brine fmt [--check] -",
     "rewrite .br files (DIR: every .br under it) in the canonical layout",
     "Rewrites each FILE.br, and every .br under each DIR, in place in brine's\n"
     "canonical layout (docs/cli.md): 4-space indentation, fixed spacing, comments\n"
     "and literals kept, the user's line breaks inside brackets kept. '-' formats\n"
     "stdin to stdout.",
     fmt_options, false},
    {"tree", "N [--carry L] [--svg]", "draw the tree a par reduction of N elements combines in",
     "Draws the tree a par reduction of N elements (0 to 65536) combines in: leaves\n"
     "of 16 elements, each folded left to right, then combined in pairs level by\n"
     "level (a node without a partner moves up unchanged).",
     tree_options, false},
    {"lsp", "[--stdio]", "the language server for editors, on stdin and stdout",
     "Runs the language server (the Language Server Protocol) on stdin and stdout;\n"
     "editors start it (docs/editors.md): diagnostics as you type, hover, go to\n"
     "definition, references, rename, completion, signature help, document\n"
     "symbols, formatting, quick fixes. BRINE_LSP_LOG=FILE appends each\n"
     "analysis's time to FILE.",
     lsp_options, false},
    {"completions", "bash|zsh|fish", "print a shell's completion script",
     "Prints the completion script of brine for bash, zsh or fish (make install\n"
     "puts each where its shell finds it).",
     no_options, false},
    {"help", "[COMMAND]", "print one command's options (brine help build)",
     "Prints the help of COMMAND (build, run, test, fmt, tree, lsp, completions, dump), or the list of commands.",
     no_options, false},
    {"dump", "--dump=tokens|ast|ir|ir:PASS|c FILE.br", "print the tokens, the syntax tree, the IR or the C of FILE.br",
     "Prints one stage of compiling FILE.br: tokens (the lexer's), ast (as parsed),\n"
     "ir (checked and lowered), ir:PASS (after that optimizer pass; ir:all after the\n"
     "last) or c (the generated C).",
     no_options, false},
    {NULL},
};

static const struct cli_command top_command = {
    "", "[--color WHEN] COMMAND [OPTIONS] [ARGS...]", "", "", top_options, true,
};

const struct cli_command *cli_find(const char *name)
{
    for (const struct cli_command *c = cli_commands; c->name; c++)
        if (strcmp(c->name, name) == 0)
            return c;
    return NULL;
}

struct cli_args cli_start(const char *cmd, int argc, char **argv)
{
    const struct cli_command *c = *cmd ? cli_find(cmd) : &top_command;
    if (!c)
        internal_error("no command '%s' in the table", cmd);
    return (struct cli_args){.cmd = c, .argc = argc, .argv = argv};
}

char **cli_rest(const struct cli_args *a, int *count)
{
    *count = a->argc - a->next;
    return a->argv + a->next;
}

/* " for build", or "" at the top level. */
static const char *for_cmd(const struct cli_args *a)
{
    return *a->cmd->name ? arena_printf(" for %s", a->cmd->name) : "";
}

static const struct cli_option *find_long(const struct cli_args *a, const char *name, size_t n)
{
    const struct cli_option *tables[] = {a->cmd->options, global_options};
    for (int t = 0; t < 2; t++)
        for (const struct cli_option *o = tables[t]; o->id; o++)
            if (o->long_name && strlen(o->long_name) == n && strncmp(o->long_name, name, n) == 0)
                return o;
    return NULL;
}

static const struct cli_option *find_short(const struct cli_args *a, char c)
{
    const struct cli_option *tables[] = {a->cmd->options, global_options};
    for (int t = 0; t < 2; t++)
        for (const struct cli_option *o = tables[t]; o->id; o++)
            if (o->short_name == c)
                return o;
    return NULL;
}

static void set_color(const char *when)
{
    if (strcmp(when, "auto") == 0)
        diag_set_color(COLOR_AUTO);
    else if (strcmp(when, "always") == 0)
        diag_set_color(COLOR_ALWAYS);
    else if (strcmp(when, "never") == 0)
        diag_set_color(COLOR_NEVER);
    else
        command_line_error("--color wants auto, always or never, got '%s'", when);
}

/* The option's name as the user wrote it: "-o" or "--out". */
static const char *spelled(const struct cli_option *o, bool as_short)
{
    return as_short ? arena_printf("-%c", o->short_name) : arena_printf("--%s", o->long_name);
}

/* The value of o: the rest of the word (inline, may be NULL) or the next word. */
static const char *take_value(struct cli_args *a, const struct cli_option *o, bool as_short, const char *inline_value)
{
    if (inline_value)
        return inline_value;
    if (a->next >= a->argc)
        command_line_error("%s needs a value (%s)", spelled(o, as_short), o->value);
    return a->argv[a->next++];
}

enum cli_id cli_next(struct cli_args *a, const char **value)
{
    for (;;) {
        *value = NULL;
        const struct cli_option *o;
        if (a->cluster && *a->cluster) {
            /* -abc: one short option per letter; a value takes the rest. */
            const char *word = a->argv[a->next - 1];
            bool first = a->cluster == word + 1;
            char c = *a->cluster++;
            o = find_short(a, c);
            if (!o) {
                if (first)
                    command_line_error("unknown option '%s'%s", word, for_cmd(a));
                command_line_error("unknown option '-%c' in '%s'%s", c, word, for_cmd(a));
            }
            if (o->value) {
                const char *rest = *a->cluster ? a->cluster : NULL;
                a->cluster = NULL;
                if (rest && rest[0] == '=')
                    command_line_error("write '-%c %s'%s%s%s, not '%s' (the value follows -%c directly or as "
                                       "the next word)", c, rest + 1, o->long_name ? " or '--" : "",
                                       o->long_name ? o->long_name : "",
                                       o->long_name ? arena_printf("=%s'", rest + 1) : "", word, c);
                *value = take_value(a, o, true, rest);
            }
        } else {
            a->cluster = NULL;
            if (a->next >= a->argc)
                return CLI_DONE;
            char *w = a->argv[a->next++];
            if (a->operands_only || w[0] != '-' || !w[1]) {
                if (a->cmd->first_operand_ends)
                    a->operands_only = true;
                *value = w;
                return CLI_OPERAND;
            }
            if (strcmp(w, "--") == 0) {
                a->operands_only = true;
                continue;
            }
            if (w[1] != '-') {
                a->cluster = w + 1;
                continue;
            }
            const char *name = w + 2, *eq = strchr(name, '=');
            o = find_long(a, name, eq ? (size_t)(eq - name) : strlen(name));
            if (!o)
                command_line_error("unknown option '%s'%s", eq ? arena_strndup(w, (size_t)(eq - w)) : w, for_cmd(a));
            if (!o->value && eq)
                command_line_error("--%s takes no value, got '%s'", o->long_name, w);
            if (o->value)
                *value = take_value(a, o, false, eq ? eq + 1 : NULL);
        }
        if (o->id == CLI_COLOR) {
            set_color(*value);
            continue;
        }
        return o->id;
    }
}

/* ---- help ------------------------------------------------------------------- */

enum { HELP_COLUMN = 22 };

static void print_option(FILE *f, const struct cli_option *o)
{
    char head[80];
    const char *v = o->value ? o->value : "";
    const char *sp = o->value ? " " : "";
    if (o->short_name && o->long_name)
        snprintf(head, sizeof head, "-%c, --%s%s%s", o->short_name, o->long_name, sp, v);
    else if (o->short_name)
        snprintf(head, sizeof head, "-%c%s%s", o->short_name, sp, v);
    else
        snprintf(head, sizeof head, "--%s%s%s", o->long_name, sp, v);
    int n = fprintf(f, "  %s", head);
    if (n >= HELP_COLUMN)
        fprintf(f, "\n%*s", HELP_COLUMN, ""), n = HELP_COLUMN;
    fprintf(f, "%*s", HELP_COLUMN - n, "");
    for (const char *p = o->help; *p; p++) {
        fputc(*p, f);
        if (*p == '\n')
            fprintf(f, "%*s", HELP_COLUMN, "");
    }
    fputc('\n', f);
}

static const char *usage_of(const struct cli_command *c)
{
    return strcmp(c->name, "dump") == 0 ? c->usage : arena_printf("%s %s", c->name, c->usage);
}

void cli_print_help(const struct cli_command *c, FILE *f)
{
    if (!*c->name) {
        fprintf(f, "usage: brine %s\n", c->usage);
        for (const struct cli_command *k = cli_commands; k->name; k++)
            fprintf(f, "  brine %s\n", usage_of(k));
        fputs("  brine --help | --version\n\ncommands:\n", f);
        for (const struct cli_command *k = cli_commands; k->name; k++)
            fprintf(f, "  %-7s %s\n", strcmp(k->name, "dump") == 0 ? "--dump" : k->name, k->summary);
        fputs("\n"
              "every command takes --color=auto|always|never (diagnostics in colour; default auto),\n"
              "-h/--help and -- (what follows is a file name, even if it starts with '-');\n"
              "an option's value is written -oX, -o X, --out=X or --out X;\n"
              "brine help COMMAND (or brine COMMAND --help) shows one command's options; -V is --version\n"
              "\n"
              "environment of built programs: BRINE_THREADS, BRINE_GPU, BRINE_GPU_LOG\n"
              "docs: man brine, docs/cli.md (installed in share/doc/brine)\n",
              f);
        return;
    }
    fprintf(f, "usage: brine %s\n\n%s\n\noptions:\n", usage_of(c), c->about);
    for (const struct cli_option *o = c->options; o->id; o++)
        print_option(f, o);
    for (const struct cli_option *o = global_options; o->id; o++)
        print_option(f, o);
    fprintf(f, "  --%*swhat follows is an operand, even if it starts with '-'\n", HELP_COLUMN - 4, "");
}

/* ---- words for shell completion ---------------------------------------------- */

const char *cli_option_words(const struct cli_command *c)
{
    struct buf b = {0};
    bputs(&b, "");
    const struct cli_option *tables[] = {c->options, global_options};
    for (int t = 0; t < 2; t++)
        for (const struct cli_option *o = tables[t]; o->id; o++) {
            if (o->short_name)
                bprintf(&b, "%s-%c", b.len ? " " : "", o->short_name);
            if (o->long_name)
                bprintf(&b, "%s--%s", b.len ? " " : "", o->long_name);
        }
    const char *words = arena_strndup(b.p, b.len);
    free(b.p);
    return words;
}

const char *cli_command_words(void)
{
    struct buf b = {0};
    bputs(&b, "");
    for (const struct cli_command *c = cli_commands; c->name; c++)
        if (strcmp(c->name, "dump") != 0)
            bprintf(&b, "%s%s", b.len ? " " : "", c->name);
    const char *words = arena_strndup(b.p, b.len);
    free(b.p);
    return words;
}

/* ---- values ------------------------------------------------------------------ */

bool cli_cpu_native(const char *cpu)
{
    if (strcmp(cpu, "native") == 0)
        return true;
    if (strcmp(cpu, "generic") != 0)
        command_line_error("--cpu wants native or generic, got '%s'", cpu);
    return false;
}

long cli_number(const char *opt, const char *value, long lo, long hi, const char *what)
{
    char *end;
    errno = 0;
    long v = strtol(value, &end, 10);
    if (errno || end == value || *end || v < lo || v > hi)
        command_line_error("%s wants %s from %ld to %ld, got '%s'", opt, what, lo, hi, value);
    return v;
}

const char *cli_version_line(void)
{
    return "brine " BRINE_VERSION " (" BRINE_BUILD_COMMIT ")";
}
