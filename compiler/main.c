/*
 * main.c: the driver. The command line of SPEC section 10, and
 * compile_file(), the whole pipeline as one list of calls:
 *
 *   load_program -> check_program -> lower_program -> ir_verify -> emit_c
 *   -> the C back end (backend.c: libtcc for dev builds, $CC for --release)
 *
 * Every phase reports a user error itself (error_at: exit 1) and a bug in
 * brine as internal_error (exit 70), so the driver only decides what to do
 * with the C text at the end. Problems with the command line itself are
 * one line "brine: ..." and exit 2.
 *
 * The runtime, its header and the stdlib are found relative to this binary
 * (realpath of /proc/self/exe, then ../lib/brine), so the build tree
 * (build/bin/brine) and an installed tree (PREFIX/bin/brine) work alike and
 * nothing depends on the working directory.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "driver.h"
#include "emit_cuda.h"

static const char usage_text[] =
    "usage:\n"
    "  brine build FILE.br [-o OUT] [--release] [--emit-c] [--emit-cuda]\n"
    "  brine run FILE.br [ARGS...]\n"
    "  brine test [PATH...] [--bless] [--release] [--dev] [--threads 1,4] [-j N] [--timeout S]\n"
    "  brine --dump=tokens|ast|ir|c FILE.br\n"
    "  brine --help | --version\n"
    "\n"
    "commands:\n"
    "  build   compile FILE.br to a native program (default OUT: FILE without .br)\n"
    "          --release  optimise with the system C compiler ($CC, else cc)\n"
    "          --emit-c   also write the generated C to OUT.c\n"
    "          --emit-cuda  also write the GPU kernels to OUT.cu (docs/gpu.md)\n"
    "  run     build FILE.br in memory (dev build) and run it with ARGS\n"
    "  test    run the golden tests under PATH (default tests/golden)\n"
    "  --dump  print the tokens, the syntax tree or the IR of FILE.br\n"
    "\n"
    "environment of built programs: BRINE_THREADS, BRINE_GPU, BRINE_GPU_LOG\n";

/* Usage problems: one line, exit 2 (SPEC section 7). Rather than diag.c's
 * usage_error, so that the hint to --help comes out the same way everywhere
 * in the driver (testrun.c too). */
_Noreturn void driver_usage(const char *fmt, ...)
{
    va_list ap;
    fputs("brine: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputs(" (see brine --help)\n", stderr);
    exit(EXIT_USAGE);
}

static char *xstrdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *p = xmalloc(n);
    memcpy(p, s, n);
    return p;
}

static char *path_join(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    char *p = xmalloc(la + lb + 2);
    memcpy(p, a, la);
    p[la] = '/';
    memcpy(p + la + 1, b, lb + 1);
    return p;
}

const struct brine_paths *brine_paths(void)
{
    static struct brine_paths paths;
    if (paths.exe)
        return &paths;
    /* The kernel's link already names the real file (symlinks resolved).
     * When a rebuild has replaced the binary while we run (brine test
     * spawns /proc/self/exe), it ends in " (deleted)"; the directory is
     * still the right one. */
    char buf[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
    if (n <= 0 || buf[0] != '/') {
        fprintf(stderr, "brine: internal error: cannot resolve /proc/self/exe: %s\n",
                n < 0 ? strerror(errno) : "not an absolute path");
        exit(EXIT_INTERNAL);
    }
    buf[n] = '\0';
    static const char deleted[] = " (deleted)";
    size_t dl = sizeof deleted - 1;
    if ((size_t)n > dl && strcmp(buf + n - dl, deleted) == 0)
        buf[n - dl] = '\0';
    paths.exe = xstrdup(buf);
    char *slash = strrchr(buf, '/');
    *slash = '\0'; /* buf: the bin directory */
    paths.libdir = path_join(buf, "../lib/brine");
    char norm[PATH_MAX];
    if (realpath(paths.libdir, norm))
        paths.libdir = xstrdup(norm);
    paths.incdir = path_join(paths.libdir, "include");
    paths.rtlib = path_join(paths.libdir, "libbrine_rt.a");
    paths.stdlib = path_join(paths.libdir, "stdlib");
    return &paths;
}

/* A broken installation is not the user's fault and not a compile error. */
static void require_runtime(void)
{
    const struct brine_paths *p = brine_paths();
    if (access(p->rtlib, R_OK) != 0 || access(p->incdir, R_OK) != 0) {
        fprintf(stderr,
                "brine: internal error: the runtime is missing: expected %s and %s/brine_rt.h "
                "(is brine installed completely?)\n",
                p->rtlib, p->incdir);
        exit(EXIT_INTERNAL);
    }
}

/* The source file must exist, be a regular file and end in .br (the
 * default output name is the file without .br, so anything else could
 * overwrite the source). */
static void require_source(const char *path)
{
    size_t n = strlen(path);
    if (n < 4 || strcmp(path + n - 3, ".br") != 0 || path[n - 4] == '/')
        driver_usage("expected a source file ending in .br, got '%s'", path);
    struct stat st;
    if (stat(path, &st) != 0) {
        fprintf(stderr, "brine: cannot read '%s': %s\n", path, strerror(errno));
        exit(EXIT_USAGE);
    }
    if (!S_ISREG(st.st_mode)) {
        fprintf(stderr, "brine: cannot read '%s': not a regular file\n", path);
        exit(EXIT_USAGE);
    }
    if (access(path, R_OK) != 0) {
        fprintf(stderr, "brine: cannot read '%s': %s\n", path, strerror(errno));
        exit(EXIT_USAGE);
    }
}

static void write_file(const char *path, const char *data, size_t len)
{
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(data, 1, len, f) != len || fclose(f) != 0) {
        fprintf(stderr, "brine: cannot write '%s': %s\n", path, strerror(errno));
        exit(EXIT_USAGE);
    }
}

/* The front and middle of the pipeline: source file to C text. Each phase
 * exits by itself on an error in the program. */
static char *compile_to_c(const char *path, size_t *len)
{
    struct program *prog = load_program(path, brine_paths()->stdlib);
    check_program(prog);
    struct ir_program *ir = lower_program(prog);
    ir_verify(ir);
    emit_cuda_reset();
    return emit_c(ir, len);
}

enum mode { MODE_DEV, MODE_RELEASE };

/* The release build's temporary C file; removed at exit, also when the C
 * compiler fails and backend.c exits from inside. */
static char *temp_c_path;
static void remove_temp_c(void)
{
    if (temp_c_path)
        unlink(temp_c_path);
}

/* compile_file: the pipeline as one list of calls, then the back end. */
static bool emit_cuda_file; /* --emit-cuda */

static void compile_file(const char *path, const char *out, enum mode mode, bool emit_c_file)
{
    size_t len;
    char *c_text = compile_to_c(path, &len);
    /* Can we write the output at all? Asked only now, so that a program with
     * errors leaves nothing behind, and before the C compiler, so that a bad
     * -o is the user's error (exit 2) rather than the compiler's. */
    /* Unlink first: an old copy of the program may be running (ETXTBSY). */
    if (unlink(out) != 0 && errno != ENOENT) {
        fprintf(stderr, "brine: cannot replace '%s': %s\n", out, strerror(errno));
        exit(EXIT_USAGE);
    }
    int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0755);
    if (fd < 0) {
        fprintf(stderr, "brine: cannot write '%s': %s\n", out, strerror(errno));
        exit(EXIT_USAGE);
    }
    close(fd);
    char *c_path = NULL;
    if (emit_c_file) {
        c_path = arena_printf("%s.c", out);
        write_file(c_path, c_text, len);
    }
    if (emit_cuda_file) {
        /* the kernels, for reading; none eligible: an empty file says so */
        size_t culen;
        const char *cu = emit_cuda_sources(&culen);
        write_file(arena_printf("%s.cu", out), cu ? cu : "", cu ? culen : 0);
    }
    switch (mode) {
    case MODE_DEV:
        backend_dev_build(c_text, out);
        break;
    case MODE_RELEASE:
        if (c_path) {
            backend_release_build(c_path, out);
        } else {
            /* $CC reads a file: a private temporary one, removed after. */
            const char *tmp = getenv("TMPDIR");
            char *tpl = arena_printf("%s/brine-XXXXXX.c", tmp && *tmp ? tmp : "/tmp");
            int fd = mkstemps(tpl, 2);
            if (fd >= 0) {
                temp_c_path = tpl;
                atexit(remove_temp_c);
            }
            if (fd < 0) {
                fprintf(stderr, "brine: cannot create a temporary file in %s: %s\n",
                        tmp && *tmp ? tmp : "/tmp", strerror(errno));
                exit(EXIT_INTERNAL);
            }
            FILE *f = fdopen(fd, "wb");
            bool ok = f && fwrite(c_text, 1, len, f) == len;
            if (!f || fclose(f) != 0 || !ok) {
                fprintf(stderr, "brine: cannot write '%s': %s\n", tpl, strerror(errno));
                exit(EXIT_INTERNAL);
            }
            backend_release_build(tpl, out);
        }
        break;
    }
}

/* brine build FILE.br [-o OUT] [--release] [--emit-c] */
static int cmd_build(int argc, char **argv)
{
    const char *file = NULL, *out = NULL;
    enum mode mode = MODE_DEV;
    bool emit = false;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "-o") == 0) {
            if (i + 1 >= argc)
                driver_usage("-o needs a file name");
            if (out)
                driver_usage("-o given twice");
            out = argv[++i];
            if (!*out)
                driver_usage("-o needs a file name");
        } else if (strcmp(a, "--release") == 0) {
            mode = MODE_RELEASE;
        } else if (strcmp(a, "--dev") == 0) {
            mode = MODE_DEV;
        } else if (strcmp(a, "--emit-c") == 0) {
            emit = true;
        } else if (strcmp(a, "--emit-cuda") == 0) {
            emit_cuda_file = true;
        } else if (a[0] == '-' && a[1]) {
            driver_usage("unknown option '%s' for build", a);
        } else if (file) {
            driver_usage("build takes one source file, got '%s' and '%s'", file, a);
        } else {
            file = a;
        }
    }
    if (!file)
        driver_usage("build needs a source file");
    require_source(file);
    if (!out)
        out = arena_strndup(file, strlen(file) - 3);
    /* A name starting with '-' would read as an option to $CC. */
    if (out[0] == '-')
        out = arena_printf("./%s", out);
    require_runtime();
    compile_file(file, out, mode, emit);
    return 0;
}

/* brine run FILE.br [ARGS...]: everything after FILE belongs to the program. */
static int cmd_run(int argc, char **argv)
{
    if (argc < 1)
        driver_usage("run needs a source file");
    const char *file = argv[0];
    if (file[0] == '-' && file[1])
        driver_usage("unknown option '%s' for run: it takes FILE.br first, then the program's arguments", file);
    require_source(file);
    require_runtime();
    size_t len;
    char *c_text = compile_to_c(file, &len);
    /* The program sees its name as argv[0], its arguments after it. */
    fflush(stdout);
    fflush(stderr);
    return backend_dev_run(c_text, argc, argv);
}

/* Reads a whole file (source_add copies it and adds the lexer's padding). */
static char *read_source(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "brine: cannot read '%s': %s\n", path, strerror(errno));
        exit(EXIT_USAGE);
    }
    size_t cap = 4096, n = 0;
    char *buf = xmalloc(cap);
    for (;;) {
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (n < cap)
            break;
        cap *= 2;
        buf = xrealloc(buf, cap);
    }
    if (ferror(f)) {
        fprintf(stderr, "brine: cannot read '%s': %s\n", path, strerror(errno));
        exit(EXIT_USAGE);
    }
    fclose(f);
    *len = n;
    return buf;
}

/* brine --dump=tokens|ast|ir|c FILE.br. The AST is dumped as the parser made
 * it (before checking), so a dump shows the phase that produced it; `c` is
 * the generated C (the front half of a build: check, lower, emit). */
static int cmd_dump(const char *what, int argc, char **argv)
{
    if (argc != 1)
        driver_usage("--dump=%s takes exactly one source file", what);
    const char *file = argv[0];
    if (strcmp(what, "tokens") != 0 && strcmp(what, "ast") != 0 && strcmp(what, "ir") != 0 &&
        strcmp(what, "c") != 0)
        driver_usage("unknown dump '%s': expected tokens, ast, ir or c", what);
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
        struct program *prog = load_program(file, brine_paths()->stdlib);
        check_program(prog);
        struct ir_program *ir = lower_program(prog);
        ir_verify(ir);
        if (strcmp(what, "c") == 0) {
            size_t len;
            char *c = emit_c(ir, &len);
            fwrite(c, 1, len, stdout);
        } else {
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
    if (strcmp(cmd, "--version") == 0) {
        printf("brine %s\n", BRINE_VERSION);
        return 0;
    }
    if (strncmp(cmd, "--dump=", 7) == 0)
        return cmd_dump(cmd + 7, argc - 2, argv + 2);
    if (strcmp(cmd, "--dump") == 0)
        driver_usage("write --dump=tokens, --dump=ast, --dump=ir or --dump=c");
    if (strcmp(cmd, "build") == 0)
        return cmd_build(argc - 2, argv + 2);
    if (strcmp(cmd, "run") == 0)
        return cmd_run(argc - 2, argv + 2);
    if (strcmp(cmd, "test") == 0)
        return test_main(argc - 2, argv + 2);
    if (cmd[0] == '-')
        driver_usage("unknown option '%s'", cmd);
    driver_usage("unknown command '%s': expected build, run or test", cmd);
}
