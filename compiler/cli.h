/*
 * cli.h: the command line, parsed by one rule for every command (cli.c).
 *
 * Each command is a row of cli_commands: its name, usage line, summary and
 * option table. The commands' code (main.c, testrun.c, fmt.c) walks its
 * words with cli_next, which follows getopt_long's conventions:
 *
 *   -o OUT, -oOUT, --out OUT, --out=OUT   an option with a value
 *   -ab                                   short flags run together
 *   --                                    every later word is an operand
 *   -                                     an operand (stdin)
 *
 * and handles the options every command takes itself: --color WHEN (the
 * colour of diagnostics) and -h/--help (returned as CLI_HELP, so the command
 * prints its help and exits 0). A short option's value never starts with
 * '=' (-o=x is refused: getopt would name the file "=x"); long options are
 * not abbreviated. Every mistake is one line "brine: ..." and exit 2.
 */
#ifndef BRINE_CLI_H
#define BRINE_CLI_H
#include <stdbool.h>
#include <stdio.h>

/* What cli_next returns: an option's id, or one of the first three. */
enum cli_id {
    CLI_DONE = 0,   /* no words left */
    CLI_OPERAND,    /* a word that is not an option: *value */
    CLI_HELP,       /* -h, --help */
    CLI_COLOR,      /* --color WHEN: set by cli_next itself, never returned */
    /* the top level (brine OPTIONS COMMAND ...) */
    OPT_VERSION,
    OPT_DUMP,
    /* build and run */
    OPT_OUT,
    OPT_RELEASE,
    OPT_DEV,
    OPT_CPU,
    OPT_EMIT_C,
    OPT_DEBUG,
    OPT_EMIT_CUDA,
    OPT_DENY_WARNINGS,
    OPT_OPT,
    /* test */
    OPT_BLESS,
    OPT_THREADS,
    OPT_JOBS,
    OPT_TIMEOUT,
    OPT_FILTER,
    /* fmt */
    OPT_CHECK,
    OPT_LIST,
};

struct cli_option {
    const char *long_name; /* "out" for --out, or NULL */
    char short_name;       /* 'o' for -o, or 0 */
    const char *value;     /* the value's name in the help ("OUT"); NULL: a flag */
    enum cli_id id;
    const char *help;      /* its text in the help; '\n' starts a continuation line */
};

struct cli_command {
    const char *name;     /* "build"; "" for the top level */
    const char *usage;    /* what follows "brine NAME " in the usage line */
    const char *summary;  /* its line in `brine --help` */
    const char *about;    /* the paragraph of its own help */
    const struct cli_option *options; /* ends with a row of zeros */
    bool first_operand_ends; /* run: the words after FILE are the program's */
};

/* Every command, in the order of `brine --help`; ends with a NULL name. */
extern const struct cli_command cli_commands[];
/* The command named name, or NULL. */
const struct cli_command *cli_find(const char *name);

/* A walk over a command's words. */
struct cli_args {
    const struct cli_command *cmd;
    int argc;
    char **argv;
    int next;            /* the index of the next word */
    const char *cluster; /* the rest of a -abc word being read, or NULL */
    bool operands_only;  /* after -- (or, with first_operand_ends, after the first operand) */
};

/* The words argv[0..argc) of command cmd (the words after its name). */
struct cli_args cli_start(const char *cmd, int argc, char **argv);
/* The next option (its value in *value, NULL for a flag) or operand. */
enum cli_id cli_next(struct cli_args *a, const char **value);
/* The words not read yet (after the first operand of a first_operand_ends
 * command: the program's arguments). */
char **cli_rest(const struct cli_args *a, int *count);

/* The help of one command (cmd->name "" : the general help). */
void cli_print_help(const struct cli_command *cmd, FILE *f);

/* Every spelling of cmd's options and the global ones, space-separated
 * ("-o --out --release ... --color -h --help"), in the arena: what shell
 * completion offers. */
const char *cli_option_words(const struct cli_command *cmd);
/* The command names, space-separated ("build run test fmt help"). */
const char *cli_command_words(void);

/* Values shared by several commands; a bad one is a usage error. */
bool cli_cpu_native(const char *value); /* --cpu: native (true) or generic */
/* A whole number from lo to hi for option opt ("-j"), else "what" in the error. */
long cli_number(const char *opt, const char *value, long lo, long hi, const char *what);

/* `brine -V`: "brine VERSION (COMMIT DATE)", from git when it was built. */
const char *cli_version_line(void);

#endif
