/*
 * main.c: the driver. The command line of SPEC section 10, and the
 * pipeline, one call a line:
 *
 *   load_program -> check_program -> lower_program -> ir_verify
 *   -> emit_program (the C text and the GPU kernels)
 *   -> the C back end (backend.c: libtcc for dev builds, $CC for --release)
 *
 * Every phase reports a user error itself (error_at: exit 1) and a bug in
 * brine as internal_error (exit 70), and hands the next one what it made;
 * no phase keeps state between calls or calls back into the driver. The
 * files the driver reads and writes are outputs.c's; where the installation
 * lives, paths.c's. Problems with the command line itself are one line
 * "brine: ..." and exit 2 (command_line_error, diag.c).
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "driver.h"
#include "lsp.h"

/* ---- the pipeline ------------------------------------------------------------ */

/* A loaded program to checked IR, as lowered. */
static struct ir_program *to_ir(struct program *prog)
{
    check_program(prog);
    struct ir_program *ir = lower_program(prog);
    ir_verify(ir);
    return ir;
}

/* The whole pipeline after loading: C (and CUDA) text. */
static struct emit_result compile_loaded(struct program *prog)
{
    struct ir_program *ir = to_ir(prog);
    optimize(ir, NULL);
    return emit_program(ir);
}

/* Source file to checked IR, as lowered (for the dumps). */
static struct ir_program *compile_to_ir(const char *path)
{
    return to_ir(load_program(path, brine_paths()->stdlib));
}

struct build_opts {
    bool release;   /* --release: $CC with optimisation, else libtcc */
    bool native;    /* --cpu=native: release for this machine (-march=native) */
    bool emit_c;    /* --emit-c: OUT.c beside the program */
    bool emit_cuda; /* --emit-cuda: OUT.cu, the kernels (empty: none eligible) */
    bool debug;     /* -g: debug information on .br lines, and OUT.c kept for the debugger */
};

/* brine build: the pipeline, then the files (all checked before any is
 * written), then the back end. */
static void build(const char *path, const char *out, struct build_opts opts)
{
    struct program *prog = load_program(path, brine_paths()->stdlib);
    const char *c_out = opts.emit_c || opts.debug ? arena_printf("%s.c", out) : NULL;
    emit_set_debug(opts.debug ? c_out : NULL);
    struct emit_result made = compile_loaded(prog);
    struct build_outputs outs = {
        .exe = out,
        .c = c_out,
        .cu = opts.emit_cuda ? arena_printf("%s.cu", out) : NULL,
    };
    check_outputs(prog, &outs);
    prepare_output(out);
    const char *c_path = outs.c;
    if (c_path)
        write_file(c_path, made.c, made.c_len);
    if (outs.cu)
        write_cuda(outs.cu, made.cuda ? made.cuda : "", made.cuda_len);
    if (opts.debug)
        backend_release_build(c_path, out, opts.native, opts.release ? CC_DEBUG_O2 : CC_DEBUG_O0, made.parts);
    else if (!opts.release)
        backend_dev_build(made.c, out);
    else
        backend_release_build(c_path ? c_path : write_temp_c(made.c, made.c_len), out, opts.native, CC_DEBUG_NONE,
                              made.parts);
}

/* ---- the commands --------------------------------------------------------- */

/* brine build FILE.br [-o OUT] [--release [--cpu=native]] [--emit-c] [--emit-cuda] */
static int cmd_build(int argc, char **argv)
{
    const char *file = NULL, *out = NULL, *v;
    struct build_opts opts = {0};
    struct cli_args args = cli_start("build", argc, argv);
    for (enum cli_id id; (id = cli_next(&args, &v)) != CLI_DONE;) {
        switch (id) {
        case CLI_OPERAND:
            if (file)
                command_line_error("build takes one source file, got '%s' and '%s'", file, v);
            file = v;
            break;
        case CLI_HELP:
            cli_print_help(args.cmd, stdout);
            return 0;
        case OPT_OUT:
            if (out)
                command_line_error("-o given twice");
            if (!*v)
                command_line_error("-o needs a file name");
            out = v;
            break;
        case OPT_RELEASE: opts.release = true; break;
        case OPT_DEV: opts.release = false; break;
        case OPT_CPU: opts.native = cli_cpu_native(v); break;
        case OPT_EMIT_C: opts.emit_c = true; break;
        case OPT_DEBUG: opts.debug = true; break;
        case OPT_EMIT_CUDA: opts.emit_cuda = true; break;
        case OPT_DENY_WARNINGS: diag_set_deny_warnings(true); break;
        case OPT_OPT: opt_option(arena_printf("--opt=%s", v)); break;
        default: internal_error("build: option %d not handled", (int)id);
        }
    }
    if (!file)
        command_line_error("build needs a source file");
    if (opts.native && !opts.release)
        command_line_error("--cpu=native applies to --release builds");
    require_source(file);
    if (!out)
        out = arena_strndup(file, strlen(file) - 3);
    /* A name starting with '-' would read as an option to $CC. */
    if (out[0] == '-')
        out = arena_printf("./%s", out);
    require_runtime();
    build(file, out, opts);
    return 0;
}

/* brine run --release: the executable in a private temporary directory,
 * removed at exit whatever happens (a compile error, the C compiler failing,
 * the program's end). */
static char *run_dir, *run_exe;

static void remove_run_files(void)
{
    if (run_exe)
        unlink(run_exe);
    if (run_dir)
        rmdir(run_dir);
}

/* Release build to a temporary executable, run with argv (argv[0] the
 * source's name, as in a dev run), the program's status returned. */
static int run_release(struct program *prog, char **argv, bool native)
{
    struct emit_result made = compile_loaded(prog);
    const char *tmp = getenv("TMPDIR");
    run_dir = arena_printf("%s/brine-run-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(run_dir)) {
        fprintf(stderr, "brine: cannot create a temporary directory in %s: %s\n", tmp && *tmp ? tmp : "/tmp",
                strerror(errno));
        exit(EXIT_INTERNAL);
    }
    atexit(remove_run_files);
    run_exe = arena_printf("%s/prog", run_dir);
    backend_release_build(write_temp_c(made.c, made.c_len), run_exe, native, CC_DEBUG_NONE, made.parts);
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0) {
        fprintf(stderr, "brine: cannot start the program: %s\n", strerror(errno));
        exit(EXIT_INTERNAL);
    }
    if (pid == 0) {
        execv(run_exe, argv);
        fprintf(stderr, "brine: cannot run the program: %s\n", strerror(errno));
        _exit(127);
    }
    /* As system(3) does: ^C and ^\ are the program's to handle; brine
     * waits for it and then removes the executable. */
    signal(SIGINT, SIG_IGN);
    signal(SIGQUIT, SIG_IGN);
    int st;
    while (waitpid(pid, &st, 0) < 0) {
        if (errno != EINTR) {
            fprintf(stderr, "brine: cannot wait for the program: %s\n", strerror(errno));
            exit(EXIT_INTERNAL);
        }
    }
    remove_run_files();
    run_exe = run_dir = NULL;
    if (WIFSIGNALED(st)) {
        /* Die of the same signal, so the caller sees what the program did. */
        signal(WTERMSIG(st), SIG_DFL);
        raise(WTERMSIG(st));
        return 128 + WTERMSIG(st);
    }
    return WEXITSTATUS(st);
}

/* brine run [--release [--cpu=native]] FILE.br [ARGS...]: everything after FILE belongs to
 * the program. FILE "-": the program is read from stdin. */
static int cmd_run(int argc, char **argv)
{
    bool release = false, native = false;
    const char *file = NULL, *v;
    struct cli_args args = cli_start("run", argc, argv);
    for (enum cli_id id; !file && (id = cli_next(&args, &v)) != CLI_DONE;) {
        switch (id) {
        case CLI_OPERAND: file = v; break;
        case CLI_HELP:
            cli_print_help(args.cmd, stdout);
            return 0;
        case OPT_RELEASE: release = true; break;
        case OPT_DEV: release = false; break;
        case OPT_CPU: native = cli_cpu_native(v); break;
        case OPT_DENY_WARNINGS: diag_set_deny_warnings(true); break;
        case OPT_OPT: opt_option(arena_printf("--opt=%s", v)); break;
        default: internal_error("run: option %d not handled", (int)id);
        }
    }
    if (!file)
        command_line_error("run needs a source file (or '-' for stdin)");
    if (native && !release)
        command_line_error("--cpu=native applies to --release builds");
    /* The program's argv: FILE, then the words after it. */
    int nrest;
    char **rest = cli_rest(&args, &nrest);
    argc = nrest + 1;
    argv = rest - 1;
    struct program *prog;
    if (strcmp(file, "-") == 0) {
        size_t len;
        char *text = read_stdin_source(&len);
        prog = load_program_text("<stdin>", text, len, brine_paths()->stdlib);
    } else {
        require_script(file);
        prog = NULL;
    }
    require_runtime();
    if (!prog)
        prog = load_program(file, brine_paths()->stdlib);
    if (release)
        return run_release(prog, argv, native);
    struct emit_result made = compile_loaded(prog);
    /* The program sees its name as argv[0], its arguments after it. */
    fflush(stdout);
    fflush(stderr);
    return backend_dev_run(made.c, argc, argv);
}

/* brine --dump=tokens|ast|ir|ir:PASS|c FILE.br. The AST is dumped as the parser made
 * it (before checking), so a dump shows the phase that produced it; `c` is
 * the generated C (the front half of a build: check, lower, emit). */
static int cmd_dump(const char *what, int argc, char **argv)
{
    const char *file = NULL, *v;
    int nfiles = 0;
    struct cli_args args = cli_start("dump", argc, argv);
    for (enum cli_id id; (id = cli_next(&args, &v)) != CLI_DONE;) {
        if (id == CLI_HELP) {
            cli_print_help(args.cmd, stdout);
            return 0;
        }
        file = v, nfiles++; /* dump has no options of its own: an operand */
    }
    if (nfiles != 1)
        command_line_error("--dump=%s takes exactly one source file", what);
    /* ir:PASS: the IR after that optimizer pass; ir:all after the last */
    const char *after = strncmp(what, "ir:", 3) == 0 ? what + 3 : NULL;
    bool known_pass = after && strcmp(after, "all") == 0;
    for (int i = 0; after && opt_pass_names[i]; i++) known_pass |= strcmp(after, opt_pass_names[i]) == 0;
    if (after && !known_pass)
        command_line_error("unknown pass '%s' in --dump=%s: the passes are %s (or all)", after, what, opt_pass_list());
    if (strcmp(what, "tokens") != 0 && strcmp(what, "ast") != 0 && strcmp(what, "ir") != 0 &&
        strcmp(what, "c") != 0 && !after)
        command_line_error("unknown dump '%s': expected tokens, ast, ir, ir:PASS or c", what);
    require_source(file);
    if (strcmp(what, "tokens") == 0) {
        size_t len;
        char *text = read_source(file, &len);
        int id = source_add(file, text, len);
        dump_tokens(stdout, id);
    } else if (strcmp(what, "ast") == 0) {
        struct program *prog = load_program(file, brine_paths()->stdlib);
        dump_ast(stdout, prog->main);
    } else {
        struct ir_program *ir = compile_to_ir(file);
        if (strcmp(what, "c") == 0) {
            optimize(ir, NULL);
            struct emit_result made = emit_program(ir);
            fwrite(made.c, 1, made.c_len, stdout);
        } else {
            if (after) optimize(ir, strcmp(after, "all") == 0 ? NULL : after);
            ir_dump(stdout, ir);
        }
    }
    if (fflush(stdout) != 0) {
        fprintf(stderr, "brine: cannot write the dump: %s\n", strerror(errno));
        return EXIT_USAGE;
    }
    return 0;
}

/* brine help [COMMAND] */
static int cmd_help(int argc, char **argv)
{
    const char *name = NULL, *v;
    struct cli_args args = cli_start("help", argc, argv);
    for (enum cli_id id; (id = cli_next(&args, &v)) != CLI_DONE;) {
        if (id == CLI_HELP)
            name = "help";
        else if (name)
            command_line_error("help takes one command, got '%s' and '%s'", name, v);
        else
            name = v;
    }
    const char *cmd = name && strcmp(name, "--dump") == 0 ? "dump" : name;
    if (cmd && !cli_find(cmd))
        command_line_error("unknown command '%s': the commands are build, run, test, fmt, tree, lsp, completions, help and dump", name);
    cli_print_help(cmd ? cli_find(cmd) : cli_start("", 0, NULL).cmd, stdout);
    return 0;
}

/* brine [--color WHEN] COMMAND ...: the options before the command, then
 * the command with the words after it. */
int main(int argc, char **argv)
{
    struct cli_args args = cli_start("", argc - 1, argv + 1);
    const char *v;
    for (enum cli_id id; (id = cli_next(&args, &v)) != CLI_DONE;) {
        int nrest;
        char **rest = cli_rest(&args, &nrest);
        switch (id) {
        case CLI_HELP:
            cli_print_help(args.cmd, stdout);
            return 0;
        case OPT_VERSION:
            printf("%s\n", cli_version_line());
            return 0;
        case OPT_DUMP:
            return cmd_dump(v, nrest, rest);
        case CLI_OPERAND:
            if (strcmp(v, "build") == 0)
                return cmd_build(nrest, rest);
            if (strcmp(v, "run") == 0)
                return cmd_run(nrest, rest);
            if (strcmp(v, "test") == 0)
                return test_main(nrest, rest);
            if (strcmp(v, "fmt") == 0)
                return fmt_main(nrest, rest);
            if (strcmp(v, "help") == 0)
                return cmd_help(nrest, rest);
            if (strcmp(v, "tree") == 0)
                return tree_main(nrest, rest);
            if (strcmp(v, "lsp") == 0)
                return lsp_main(nrest, rest);
            if (strcmp(v, "completions") == 0)
                return completions_main(nrest, rest);
            command_line_error("unknown command '%s': expected build, run, test, fmt, tree, lsp, completions or help", v);
        default:
            internal_error("brine: option %d not handled", (int)id);
        }
    }
    cli_print_help(args.cmd, stderr);
    return EXIT_USAGE;
}
