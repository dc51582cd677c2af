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

static const char usage_text[] =
    "usage:\n"
    "  brine build FILE.br [-o OUT] [--release [--cpu=native]] [--emit-c] [--emit-cuda] [--deny-warnings] [--opt=SPEC]\n"
    "  brine run [--release [--cpu=native]] [--deny-warnings] [--opt=SPEC] FILE.br [ARGS...]\n"
    "  brine test [PATH...] [--bless] [--release] [--dev] [--cpu=native] [--threads 1,4] [-j N] [--timeout S] [--opt=SPEC]\n"
    "  brine fmt [--check] FILE.br...\n"
    "  brine --dump=tokens|ast|ir|ir:PASS|c FILE.br\n"
    "  brine --help | --version\n"
    "\n"
    "commands:\n"
    "  build   compile FILE.br to a native program (default OUT: FILE without .br)\n"
    "          --release  optimise with the system C compiler ($CC, else cc)\n"
    "          --cpu=native  release: for this machine's CPU (-march=native), same output\n"
    "          --emit-c   also write the generated C to OUT.c\n"
    "          --emit-cuda  also write the GPU kernels to OUT.cu (docs/gpu.md)\n"
    "          --deny-warnings  warnings are errors (build and run)\n"
    "          --opt=none  no optimizer passes; --opt=-inline one pass off (build, run, test)\n"
    "  run     build FILE.br in memory (dev build) and run it with ARGS\n"
    "          --release  a release build in a temporary file, removed after the run\n"
    "  test    run the golden tests under PATH (default tests/golden)\n"
    "  fmt     rewrite FILE.br in the canonical layout (--check: only report)\n"
    "  --dump  print the tokens, the syntax tree or the IR of FILE.br\n"
    "\n"
    "every command takes --color=auto|always|never (diagnostics in colour; default auto)\n"
    "and -- (what follows is a file name, even if it starts with '-');\n"
    "brine COMMAND --help shows one command's options, -V is --version\n"
    "\n"
    "environment of built programs: BRINE_THREADS, BRINE_GPU, BRINE_GPU_LOG\n";

static const char build_help[] =
    "usage: brine build FILE.br [-o OUT] [--release [--cpu=native]] [--emit-c] [--emit-cuda] [--deny-warnings] [--opt=SPEC]\n"
    "\n"
    "Compiles FILE.br to a native program; options may stand before or after FILE.\n"
    "\n"
    "options:\n"
    "  -o OUT         the program to write (default: FILE without .br)\n"
    "  --release      optimise with the system C compiler ($CC, else cc)\n"
    "  --dev          a dev build with libtcc (the default)\n"
    "  --cpu=native   release: for this machine's CPU (-march=native), same output\n"
    "  --emit-c       also write the generated C to OUT.c\n"
    "  --emit-cuda    also write the GPU kernels to OUT.cu\n"
    "  --deny-warnings  report warnings as errors (exit 1)\n"
    "  --opt=SPEC     optimizer passes: all (default), none, -PASS (one off), +PASS,\n"
    "                 comma-separated, left to right; the same output whatever SPEC\n"
    "  --color WHEN   diagnostics in colour: auto (on a terminal), always or never\n"
    "  --             the next word is FILE, even if it starts with '-'\n"
    "  -h, --help     print this help\n";

static const char run_help[] =
    "usage: brine run [--release [--cpu=native]] [--deny-warnings] [--opt=SPEC] FILE.br [ARGS...]\n"
    "\n"
    "Builds FILE.br and runs it with ARGS; exits with the program's status.\n"
    "Everything after FILE.br belongs to the program, options included.\n"
    "\n"
    "options (before FILE.br):\n"
    "  --release      a release build ($CC) into a temporary file, run, then removed\n"
    "                 (default: a dev build with libtcc, in memory)\n"
    "  --dev          the default dev build\n"
    "  --cpu=native   release: for this machine's CPU (-march=native), same output\n"
    "  --deny-warnings  report warnings as errors (exit 1); the program does not run\n"
    "  --opt=SPEC     optimizer passes: all (default), none, -PASS (one off), +PASS\n"
    "  --color WHEN   diagnostics in colour: auto (on a terminal), always or never\n"
    "  --             the next word is FILE, even if it starts with '-'\n"
    "  -h, --help     print this help\n";

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

/* Source file to C (and CUDA) text. */
static struct emit_result compile(const char *path)
{
    return compile_loaded(load_program(path, brine_paths()->stdlib));
}

struct build_opts {
    bool release;   /* --release: $CC with optimisation, else libtcc */
    bool native;    /* --cpu=native: release for this machine (-march=native) */
    bool emit_c;    /* --emit-c: OUT.c beside the program */
    bool emit_cuda; /* --emit-cuda: OUT.cu, the kernels (empty: none eligible) */
};

/* brine build: the pipeline, then the files (all checked before any is
 * written), then the back end. */
static void build(const char *path, const char *out, struct build_opts opts)
{
    struct program *prog = load_program(path, brine_paths()->stdlib);
    struct emit_result made = compile_loaded(prog);
    struct build_outputs outs = {
        .exe = out,
        .c = opts.emit_c ? arena_printf("%s.c", out) : NULL,
        .cu = opts.emit_cuda ? arena_printf("%s.cu", out) : NULL,
    };
    check_outputs(prog, &outs);
    prepare_output(out);
    const char *c_path = outs.c;
    if (c_path)
        write_file(c_path, made.c, made.c_len);
    if (outs.cu)
        write_cuda(outs.cu, made.cuda ? made.cuda : "", made.cuda_len);
    if (!opts.release)
        backend_dev_build(made.c, out);
    else
        backend_release_build(c_path ? c_path : write_temp_c(made.c, made.c_len), out, opts.native);
}

/* ---- the commands --------------------------------------------------------- */

/* --color=WHEN or --color WHEN at argv[*i] (which it steps past): sets
 * diag.c's colour choice. False when argv[*i] is not a --color option. */
bool color_option(int argc, char **argv, int *i)
{
    const char *a = argv[*i], *when;
    if (strncmp(a, "--color=", 8) == 0)
        when = a + 8;
    else if (strcmp(a, "--color") == 0) {
        if (*i + 1 >= argc)
            command_line_error("--color needs auto, always or never");
        when = argv[++*i];
    } else
        return false;
    if (strcmp(when, "auto") == 0)
        diag_set_color(COLOR_AUTO);
    else if (strcmp(when, "always") == 0)
        diag_set_color(COLOR_ALWAYS);
    else if (strcmp(when, "never") == 0)
        diag_set_color(COLOR_NEVER);
    else
        command_line_error("--color wants auto, always or never, got '%s'", when);
    return true;
}

/* --cpu=CPU: true for native, false for generic (the portable default). */
bool cpu_option(const char *cpu)
{
    if (strcmp(cpu, "native") == 0)
        return true;
    if (strcmp(cpu, "generic") != 0)
        command_line_error("--cpu wants native or generic, got '%s'", cpu);
    return false;
}

/* brine build FILE.br [-o OUT] [--release [--cpu=native]] [--emit-c] [--emit-cuda] */
static int cmd_build(int argc, char **argv)
{
    const char *file = NULL, *out = NULL;
    struct build_opts opts = {0};
    bool files_only = false; /* after "--" */
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (files_only || a[0] != '-' || !a[1]) {
            if (file)
                command_line_error("build takes one source file, got '%s' and '%s'", file, a);
            file = a;
        } else if (strcmp(a, "--") == 0) {
            files_only = true;
        } else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            fputs(build_help, stdout);
            return 0;
        } else if (color_option(argc, argv, &i)) {
        } else if (strcmp(a, "-o") == 0) {
            if (i + 1 >= argc)
                command_line_error("-o needs a file name");
            if (out)
                command_line_error("-o given twice");
            out = argv[++i];
            if (!*out)
                command_line_error("-o needs a file name");
        } else if (strcmp(a, "--release") == 0) {
            opts.release = true;
        } else if (strcmp(a, "--dev") == 0) {
            opts.release = false;
        } else if (strncmp(a, "--cpu=", 6) == 0) {
            opts.native = cpu_option(a + 6);
        } else if (strcmp(a, "--emit-c") == 0) {
            opts.emit_c = true;
        } else if (strcmp(a, "--emit-cuda") == 0) {
            opts.emit_cuda = true;
        } else if (strcmp(a, "--deny-warnings") == 0) {
            diag_set_deny_warnings(true);
        } else if (opt_option(a)) {
        } else {
            command_line_error("unknown option '%s' for build", a);
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
    backend_release_build(write_temp_c(made.c, made.c_len), run_exe, native);
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
 * the program. */
static int cmd_run(int argc, char **argv)
{
    bool release = false, native = false;
    int i = 0;
    for (; i < argc; i++) {
        const char *a = argv[i];
        if (a[0] != '-' || !a[1])
            break;
        if (strcmp(a, "--") == 0) {
            i++;
            break;
        } else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            fputs(run_help, stdout);
            return 0;
        } else if (color_option(argc, argv, &i)) {
        } else if (strcmp(a, "--release") == 0) {
            release = true;
        } else if (strcmp(a, "--dev") == 0) {
            release = false;
        } else if (strncmp(a, "--cpu=", 6) == 0) {
            native = cpu_option(a + 6);
        } else if (strcmp(a, "--deny-warnings") == 0) {
            diag_set_deny_warnings(true);
        } else if (opt_option(a)) {
        } else {
            command_line_error("unknown option '%s' for run: it takes [--release] FILE.br, then the program's arguments", a);
        }
    }
    if (i >= argc)
        command_line_error("run needs a source file");
    if (native && !release)
        command_line_error("--cpu=native applies to --release builds");
    argc -= i;
    argv += i;
    const char *file = argv[0];
    require_source(file);
    require_runtime();
    if (release)
        return run_release(load_program(file, brine_paths()->stdlib), argv, native);
    struct emit_result made = compile(file);
    /* The program sees its name as argv[0], its arguments after it. */
    fflush(stdout);
    fflush(stderr);
    return backend_dev_run(made.c, argc, argv);
}

/* brine --dump=tokens|ast|ir|ir:PASS|c FILE.br. The AST is dumped as the parser made
 * it (before checking), so a dump shows the phase that produced it; `c` is
 * the generated C (the front half of a build: check, lower, emit). */
/* "loops, inline": the optimizer's passes, for messages. */
static const char *opt_pass_list(void)
{
    struct buf b = {0};
    for (int i = 0; opt_pass_names[i]; i++) bprintf(&b, "%s%s", i ? ", " : "", opt_pass_names[i]);
    return b.p;
}

static int cmd_dump(const char *what, int argc, char **argv)
{
    const char *file = NULL;
    int nfiles = 0;
    bool files_only = false;
    for (int i = 0; i < argc; i++) {
        if (!files_only && strcmp(argv[i], "--") == 0)
            files_only = true;
        else if (files_only || !color_option(argc, argv, &i))
            file = argv[i], nfiles++;
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

int main(int argc, char **argv)
{
    if (argc < 2) {
        fputs(usage_text, stderr);
        return EXIT_USAGE;
    }
    const char *cmd = argv[1];
    if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0) {
        fputs(usage_text, stdout);
        return 0;
    }
    if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "-V") == 0) {
        printf("brine %s\n", BRINE_VERSION);
        return 0;
    }
    if (strncmp(cmd, "--dump=", 7) == 0)
        return cmd_dump(cmd + 7, argc - 2, argv + 2);
    if (strcmp(cmd, "--dump") == 0)
        command_line_error("write --dump=tokens, --dump=ast, --dump=ir or --dump=c");
    if (strcmp(cmd, "build") == 0)
        return cmd_build(argc - 2, argv + 2);
    if (strcmp(cmd, "run") == 0)
        return cmd_run(argc - 2, argv + 2);
    if (strcmp(cmd, "test") == 0)
        return test_main(argc - 2, argv + 2);
    if (strcmp(cmd, "fmt") == 0)
        return fmt_main(argc - 2, argv + 2);
    if (cmd[0] == '-')
        command_line_error("unknown option '%s'", cmd);
    command_line_error("unknown command '%s': expected build, run, test or fmt", cmd);
}
