/*
 * backend.c: the C back ends (SPEC section 10).
 *
 * Dev builds hand the generated C to libtcc: fast to build, either to an
 * executable (brine build) or into this process's memory (brine run, which
 * then calls the program's main). Release builds hand the same C, written
 * to a file, to the system C compiler ($CC, else cc), spawned without a
 * shell so that no file name or flag is ever re-parsed.
 *
 * Both link the same libbrine_rt.a (compiled by gcc) and both compile with
 * FMA contraction off and without fast-math, so a program prints the same
 * bits in either mode.
 *
 * A program the checker accepted must always compile: any complaint from
 * either C compiler is a bug in brine, reported as an internal error (exit
 * 70) together with the compiler's own messages.
 */
#define _GNU_SOURCE /* pipe2 */
#include <errno.h>
#include <fcntl.h>
#include <libtcc.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "driver.h"

_Noreturn void backend_rejected(const char *messages)
{
    fflush(stdout);
    fputs("brine: internal error: the C compiler rejected the generated C\n", stderr);
    if (messages && *messages) {
        fputs(messages, stderr);
        if (messages[strlen(messages) - 1] != '\n')
            fputc('\n', stderr);
    }
    exit(EXIT_INTERNAL);
}

/* ---- dev: libtcc ----------------------------------------------------------- */

static void tcc_message(void *opaque, const char *msg)
{
    struct buf *b = opaque;
    bputn(b, msg, strlen(msg));
    bputn(b, "\n", 1);
}

/* A libtcc state set up like the release compiler: our include directory,
 * the runtime archive, libm, libpthread, libdl. tcc finds its own headers
 * and libtcc1.a in its configured directory. */
static TCCState *tcc_setup(int output_type, struct buf *msgs)
{
    const struct brine_paths *p = brine_paths();
    TCCState *s = tcc_new();
    if (!s) {
        fputs("brine: internal error: cannot create a libtcc state\n", stderr);
        exit(EXIT_INTERNAL);
    }
    tcc_set_error_func(s, msgs, tcc_message);
    /* No warnings: a program the checker accepted is not the user's C. */
    tcc_set_options(s, "-w");
    if (tcc_set_output_type(s, output_type) < 0)
        backend_rejected(msgs->p);
    tcc_add_include_path(s, p->incdir);
    return s;
}

static void tcc_compile_and_link(TCCState *s, const char *c_text, struct buf *msgs)
{
    const struct brine_paths *p = brine_paths();
    if (tcc_compile_string(s, c_text) < 0)
        backend_rejected(msgs->p);
    /* The archive after the program so its members resolve the program's
     * references; the system libraries after the archive for its own. */
    if (tcc_add_file(s, p->rtlib) < 0)
        backend_rejected(msgs->p);
    /* Nothing from libgcc: tcc links only its own libtcc1.a, so the runtime
     * does its own 128-bit division and popcount (rt_internal.h); a dev build
     * of any golden test would fail to link if it ever needed libgcc. */
    static const char *const libs[] = {"m", "pthread", "dl"};
    for (size_t i = 0; i < sizeof libs / sizeof libs[0]; i++)
        if (tcc_add_library(s, libs[i]) < 0)
            backend_rejected(msgs->p);
}

void backend_dev_build(const char *c_text, const char *out_path)
{
    struct buf msgs = {0};
    TCCState *s = tcc_setup(TCC_OUTPUT_EXE, &msgs);
    tcc_compile_and_link(s, c_text, &msgs);
    /* tcc_output_file truncates an existing file in place; remove it first
     * so that a running copy of the old program is not disturbed. */
    if (unlink(out_path) != 0 && errno != ENOENT) {
        fprintf(stderr, "brine: cannot replace '%s': %s\n", out_path, strerror(errno));
        exit(EXIT_USAGE);
    }
    if (tcc_output_file(s, out_path) < 0)
        backend_rejected(msgs.p);
    tcc_delete(s);
}

int backend_dev_run(const char *c_text, int argc, char **argv)
{
    struct buf msgs = {0};
    TCCState *s = tcc_setup(TCC_OUTPUT_MEMORY, &msgs);
    tcc_compile_and_link(s, c_text, &msgs);
    if (tcc_relocate(s, TCC_RELOCATE_AUTO) < 0)
        backend_rejected(msgs.p);
    int (*prog_main)(int, char **) = (int (*)(int, char **))tcc_get_symbol(s, "main");
    if (!prog_main)
        backend_rejected("the generated C has no main function");
    /* The state stays alive: the program's code lives in it until exit. */
    return prog_main(argc, argv);
}

/* ---- release: $CC ---------------------------------------------------------- */

/* $CC split on spaces ("ccache gcc", "gcc -m64"; no shell quoting), at
 * most max words into words. */
static int split_cc(const char *cc, char **words, int max)
{
    char **w;
    int k = split_words(cc, &w);
    int n = k < max ? k : max;
    for (int i = 0; i < n; i++)
        words[i] = w[i]; /* they live until exit */
    for (int i = n; i < k; i++)
        free(w[i]);
    free(w);
    return n;
}

/* One run of the C compiler: its stdout and stderr go into one pipe that
 * finish_cc reads to the end (its messages belong in the internal error,
 * not on our terminal). */
struct cc_run {
    pid_t pid;
    int fd;
    const char *name;
};

static struct cc_run start_cc(char **argv)
{
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) {
        fprintf(stderr, "brine: cannot create a pipe: %s\n", strerror(errno));
        exit(EXIT_INTERNAL);
    }
    struct cc_run r = {.fd = fds[0], .name = argv[0]};
    int err = spawn_proc(&(struct spawn){.argv = argv, .to_fd = true, .fd = fds[1]}, &r.pid);
    close(fds[1]);
    if (err != 0) {
        close(fds[0]);
        fprintf(stderr, "brine: cannot run the C compiler '%s' for --release: %s (set CC to a C compiler)\n",
                argv[0], strerror(err));
        exit(EXIT_INTERNAL);
    }
    return r;
}

/* Waits for r; false with its messages in *msgs when it failed. */
static bool finish_cc(struct cc_run r, struct buf *msgs)
{
    char buf[4096];
    for (;;) {
        ssize_t got = read(r.fd, buf, sizeof buf);
        if (got > 0)
            bputn(msgs, buf, (size_t)got);
        else if (got == 0 || errno != EINTR)
            break;
    }
    close(r.fd);
    int status;
    if (!wait_proc(r.pid, 0, NULL, &status)) {
        fprintf(stderr, "brine: waiting for the C compiler: %s\n", strerror(errno));
        exit(EXIT_INTERNAL);
    }
    if (status == 0)
        return true;
    if (status < 0 && status != -1) {
        char note[128];
        snprintf(note, sizeof note, "%s%s was killed by signal %d (%s)\n",
                 msgs->len && msgs->p[msgs->len - 1] != '\n' ? "\n" : "", r.name,
                 -status, strsignal(-status));
        bputn(msgs, note, strlen(note));
    }
    return false;
}

/* The emitter's choice (emit_result.parts: 2 for a big program), or
 * BRINE_RELEASE_PARTS=1 or 2 instead (the tests build both ways). */
static int release_parts(int emitted)
{
    const char *env = getenv("BRINE_RELEASE_PARTS");
    if (env && (strcmp(env, "1") == 0 || strcmp(env, "2") == 0))
        return env[0] - '0';
    return emitted == 2 ? 2 : 1;
}

/* An empty private file for one part (suffix ".o" or ".s"); its path. */
static char *temp_obj(const char *suffix)
{
    const char *tmp = getenv("TMPDIR");
    char *tpl = arena_printf("%s/brine-XXXXXX%s", tmp && *tmp ? tmp : "/tmp", suffix);
    int fd = mkstemps(tpl, (int)strlen(suffix));
    if (fd < 0) {
        fprintf(stderr, "brine: cannot create a temporary file in %s: %s\n", tmp && *tmp ? tmp : "/tmp",
                strerror(errno));
        exit(EXIT_INTERNAL);
    }
    close(fd);
    return tpl;
}

/* --cpu=native compiles to assembly first and rewrites one instruction
 * form before assembling it. gcc 12 copies a double from register to
 * register, once AVX is on, as `vmovsd %xmmA, %xmmA, %xmmB` (the low half
 * merged into the high half of the same register: all 128 bits of A), where
 * without AVX it writes `movapd %xmmA, %xmmB`. The value is the same, but
 * the merge is an instruction that executes (a cycle on the path of the
 * value) where the plain copy is done at register renaming: a recursive
 * function that copies its float arguments around every call ran 5-8%
 * slower native than portable on an Emerald Rapids (adaptive/tuple_let)
 * though it ran fewer instructions. `vmovapd %xmmA, %xmmB` writes the same
 * 128 bits and zeroes the same upper bits (both VEX.128), so no result can
 * change. Only registers 0-15: a copy of 16-31 would need EVEX and
 * AVX512VL. The line must be exactly that form (no mask, no memory). */
/* "%xmmN" with N below 16 at *p: N, and *p moved past it; else -1. */
static int xmm_low(const char **p, const char *end)
{
    const char *q = *p;
    if (end - q < 5 || memcmp(q, "%xmm", 4) != 0 || q[4] < '0' || q[4] > '9')
        return -1;
    int n = q[4] - '0';
    q += 5;
    if (q < end && *q >= '0' && *q <= '9')
        n = n * 10 + (*q++ - '0');
    if (n > 15 || (q < end && *q >= '0' && *q <= '9'))
        return -1;
    *p = q;
    return n;
}

/* The line [l, end) is exactly "\tvmovsd\t%xmmA, %xmmA, %xmmB" (A, B < 16).
 * (No sscanf: glibc's measures the whole rest of the file every call.) */
static bool plain_copy(const char *l, const char *end, int *a, int *b)
{
    static const char op[] = "\tvmovsd\t";
    if (end - l < (long)sizeof op - 1 || memcmp(l, op, sizeof op - 1) != 0)
        return false;
    const char *q = l + sizeof op - 1;
    if ((*a = xmm_low(&q, end)) < 0 || end - q < 2 || memcmp(q, ", ", 2) != 0)
        return false;
    q += 2;
    if (xmm_low(&q, end) != *a || end - q < 2 || memcmp(q, ", ", 2) != 0)
        return false;
    q += 2;
    return (*b = xmm_low(&q, end)) >= 0 && q == end;
}

static void rewrite_copies(const char *s_path)
{
    size_t len;
    char *text = read_file(s_path, &len);
    if (!text) {
        fprintf(stderr, "brine: cannot read %s: %s\n", s_path, strerror(errno));
        exit(EXIT_INTERNAL);
    }
    struct buf out = {0};
    for (const char *l = text; l < text + len;) {
        const char *end = memchr(l, '\n', (size_t)(text + len - l));
        if (!end)
            end = text + len;
        int a, b;
        if (plain_copy(l, end, &a, &b))
            bprintf(&out, "\tvmovapd\t%%xmm%d, %%xmm%d", a, b);
        else
            bputn(&out, l, (size_t)(end - l));
        if (end < text + len)
            bputn(&out, "\n", 1);
        l = end + 1;
    }
    free(text);
    FILE *f = fopen(s_path, "wb");
    if (!f || fwrite(out.p, 1, out.len, f) != out.len || fclose(f) != 0) {
        fprintf(stderr, "brine: cannot write %s: %s\n", s_path, strerror(errno));
        exit(EXIT_INTERNAL);
    }
    free(out.p);
}

void backend_release_build(const char *c_path, const char *out_path, bool native, enum cc_debug debug, int parts)
{
    const struct brine_paths *p = brine_paths();
    const char *cc = getenv("CC");
    if (!cc || !*cc)
        cc = "cc";
    enum { MAXARGS = 64 };
    char *argv[MAXARGS + 24];
    int n = split_cc(cc, argv, MAXARGS);
    if (n == 0)
        n = split_cc("cc", argv, MAXARGS);
    int ncc = n;
    /* Exactness first (SPEC section 10): never fast-math, never contract
     * a*b+c into an FMA, so release prints the bits dev prints. */
    /* -fvect-cost-model=dynamic: -O2 vectorizes only loops that need no
     * run-time alias check; array data always needs one (measured: matmul
     * 9.4 -> 5.1 ms, no slower to compile). Vectorizing never reorders a
     * float reduction without fast-math, so the bits stay. */
    /* -fno-math-errno: sqrt (bp_sqrt) is its instruction with no call
     * after a negative argument to set errno, which brine never reads;
     * no result changes. */
    /* -floop-unroll-and-jam (on at -O3): a nest of two loops whose outer
     * iterations touch the same elements in the same order (200 steps over
     * an array of particles) runs two outer iterations in one inner loop,
     * each element loaded and stored once for both: gcc does it only where
     * its dependence analysis proves each element's operations keep their
     * order, so every result keeps its bits (particles/inplace_main: 16.8
     * -> 12.7 ms, the C 12.8). */
    /* -falign-loops=32: every loop's head on a 32-byte boundary, so that a
     * hot loop's speed does not depend on where unrelated code put it (the
     * sieve's inner loop, the same instructions 16 bytes further, across a
     * 64-byte line: 25 -> 34 ms; aligned, 25 either way). No result
     * changes. */
    /* -ftree-partial-pre (on at -O3): a load that some paths into a
     * point already made is kept in a register instead of loaded again:
     * an argmin's `if a[j] < a[m]: m = j` keeps a[m] from the branch that
     * set m, so the loop has no load that waits on the last compare
     * (selection sort of 8,000 ints: 74 -> 20 ms, the C 20). Loads only;
     * no result changes. */
    static const char *const flags[] = {"-std=gnu11", "-O2", "-fvect-cost-model=dynamic", "-floop-unroll-and-jam",
                                        "-ftree-partial-pre", "-falign-loops=32", "-ffp-contract=off",
                                        "-fno-fast-math", "-fno-math-errno", "-w"};
    /* brine build -g without --release: -O0, every variable and line where it was */
    for (size_t i = 0; i < sizeof flags / sizeof flags[0]; i++)
        argv[n++] = (char *)(debug == CC_DEBUG_O0 && strcmp(flags[i], "-O2") == 0 ? "-O0" : flags[i]);
    /* --cpu=native: wider vectors and newer instructions, never other
     * rounding: -ffp-contract=off above keeps FMA out of plain a*b+c, and
     * the runtime archive stays the portable one. */
    if (native)
        argv[n++] = "-march=native";
    if (debug != CC_DEBUG_NONE)
        argv[n++] = "-g";
    argv[n++] = arena_printf("-I%s", p->incdir);
    int nflags = n;
    struct buf msgs = {0};

    int nparts = release_parts(parts);
    if (nparts == 2 || native) {
        /* A big program on a machine with two cores: the same C compiled
         * twice at once, -DBP_PART=1 (main and the functions) and
         * -DBP_PART=2 (the par helpers), then linked; the same functions
         * with the same flags, so the same bits (the prelude of emit_c.c).
         * --cpu=native: each part compiled to assembly, rewritten
         * (rewrite_copies), and assembled by the link. */
        char *objs[2];
        struct cc_run runs[2];
        char *pargv[2][MAXARGS + 24];
        for (int k = 0; k < nparts; k++) {
            objs[k] = temp_obj(native ? ".s" : ".o");
            memcpy(pargv[k], argv, (size_t)nflags * sizeof *argv);
            int m = nflags;
            if (nparts == 2)
                pargv[k][m++] = k == 0 ? "-DBP_PART=1" : "-DBP_PART=2";
            pargv[k][m++] = native ? "-S" : "-c";
            pargv[k][m++] = "-o";
            pargv[k][m++] = objs[k];
            pargv[k][m++] = (char *)c_path;
            pargv[k][m] = NULL;
            runs[k] = start_cc(pargv[k]);
        }
        bool ok = true;
        for (int k = 0; k < nparts; k++)
            ok = finish_cc(runs[k], &msgs) && ok;
        if (ok) {
            int m = ncc;
            argv[m++] = "-o";
            argv[m++] = (char *)out_path;
            for (int k = 0; k < nparts; k++) {
                if (native)
                    rewrite_copies(objs[k]);
                argv[m++] = objs[k];
            }
            argv[m++] = (char *)p->rtlib;
            argv[m++] = "-lm";
            argv[m++] = "-lpthread";
            argv[m++] = "-ldl";
            argv[m] = NULL;
            ok = finish_cc(start_cc(argv), &msgs);
        }
        for (int k = 0; k < nparts; k++)
            unlink(objs[k]);
        if (!ok)
            backend_rejected(msgs.p);
        return;
    }

    argv[n++] = "-o";
    argv[n++] = (char *)out_path;
    argv[n++] = (char *)c_path;
    argv[n++] = (char *)p->rtlib;
    argv[n++] = "-lm";
    argv[n++] = "-lpthread";
    argv[n++] = "-ldl";
    argv[n] = NULL;
    if (!finish_cc(start_cc(argv), &msgs))
        backend_rejected(msgs.p);
}
