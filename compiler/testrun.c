/*
 * testrun.c: `brine test`, the golden test runner (SPEC section 10).
 *
 * A test is NAME.br with NAME.out beside it (its exact stdout), optionally
 * NAME.err (its exact stderr; empty when absent). Comment lines at the top
 * state what differs from the defaults:
 *
 *   # exit: 101          the expected exit status (default 0); `# exit: 1`
 *                        makes a compile-error test: the build must fail
 *                        with status 1 and print NAME.err
 *   # env: K=V K2=V2     extra environment for the program
 *   # args: a b          the program's arguments
 *
 * Every test is built in dev and release mode and each build runs at every
 * thread count (BRINE_THREADS from --threads; a test whose # env sets
 * BRINE_THREADS keeps its own); every run must match.
 *
 * Builds spawn this same binary (`brine build NAME.br -o TMP`) with the
 * working directory set to the test's directory, so that diagnostics and
 * panics say `--> NAME.br:L:C` whatever directory the runner started in.
 * Everything a test does happens in a child process with a timeout and no
 * stdin, so one bad test (a crash, a hang, a flood of output) fails that
 * test and never the runner. Tests run on a few worker threads; their
 * reports are printed in sorted order, so the output does not depend on
 * scheduling. The worker threads use malloc, never the compiler's arena.
 */
#define _GNU_SOURCE /* strsignal */
#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "driver.h"

extern char **environ;

enum { MAX_THREAD_COUNTS = 16, BUILD_LINES = 16 }; /* BUILD_LINES: lines of a failed build shown */

/* ---- small helpers (thread-safe: plain malloc) ----------------------------- */

static void *tmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) {
        fputs("brine: out of memory\n", stderr);
        exit(EXIT_INTERNAL);
    }
    return p;
}

static char *tstrdup(const char *s)
{
    size_t n = strlen(s) + 1;
    return memcpy(tmalloc(n), s, n);
}

/* A formatted string in a fresh tmalloc'ed buffer (free() it). */
static char *tvprintf(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));
static char *tvprintf(const char *fmt, va_list ap)
{
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap2);
    va_end(ap2);
    char *s = tmalloc((size_t)n + 1);
    vsnprintf(s, (size_t)n + 1, fmt, ap);
    return s;
}

static char *tprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *tprintf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *s = tvprintf(fmt, ap);
    va_end(ap);
    return s;
}

/* Reads a whole file; a missing file reads as empty when missing_ok. */
static bool read_all(const char *path, char **data, size_t *len, bool missing_ok)
{
    *len = 0;
    *data = read_file(path, len);
    if (*data)
        return true;
    if (missing_ok && errno == ENOENT) {
        *data = tstrdup("");
        return true;
    }
    return false;
}

static bool write_all(const char *path, const char *data, size_t len)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return false;
    bool ok = fwrite(data, 1, len, f) == len;
    return fclose(f) == 0 && ok;
}

/* ---- the tests ------------------------------------------------------------- */

struct test {
    char *path;      /* as found: tests/golden/par/sum.br */
    char *dir;       /* its directory, the builds' working directory */
    char *base;      /* NAME.br */
    char *stem;      /* tests/golden/par/sum (for .out and .err) */
    /* from the header comments */
    int exit_code;
    char **env;      /* "K=V" */
    int nenv;
    char **args;
    int nargs;
    bool own_threads; /* # env sets BRINE_THREADS */
    char *header_error;
    /* the outcome */
    bool passed;
    struct buf report;
    atomic_bool done;
};

static struct {
    struct test *tests;
    int ntests, cap;
    bool dev, release, bless;
    bool native; /* --cpu=native: release builds for this CPU */
    int threads[MAX_THREAD_COUNTS];
    int nthreads;
    int jobs;
    int timeout_s;   /* per build and per run */
    char *tmpdir;
    atomic_int next;
    int printed;
    char *opt_arg;   /* "--opt=PASSES" for the builds, or NULL */
    bool counter;    /* stdout is a terminal: a progress counter, not a line per test */
    pthread_mutex_t print_lock;
    int npassed, nfailed;
} T = {.print_lock = PTHREAD_MUTEX_INITIALIZER};

static bool has_suffix(const char *s, const char *suf)
{
    size_t n = strlen(s), m = strlen(suf);
    return n >= m && strcmp(s + n - m, suf) == 0;
}

static void add_test(const char *path)
{
    VEC_GROW(T.tests, T.ntests, T.cap);
    struct test *t = &T.tests[T.ntests++];
    memset(t, 0, sizeof *t);
    t->path = tstrdup(path);
    const char *slash = strrchr(path, '/');
    if (slash) {
        t->dir = tstrdup(path);
        t->dir[slash - path] = '\0';
        if (!*t->dir)
            strcpy(t->dir, "/");
        t->base = tstrdup(slash + 1);
    } else {
        t->dir = tstrdup(".");
        t->base = tstrdup(path);
    }
    t->stem = tstrdup(path);
    t->stem[strlen(path) - 3] = '\0';
}

static char *generated_marker(const char *dir);

/* A new test for --bless: a .br (no .out yet) that defines main, at the
 * start of a line, outside a generated tree; other .br files are modules. */
static bool is_new_test(const char *path, const char *dir)
{
    char *src;
    size_t len;
    if (!read_all(path, &src, &len, false))
        return false;
    bool has_main = false;
    for (const char *p = src; p && !has_main; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
        has_main = strncmp(p, "fn main(", 8) == 0;
    free(src);
    char *marker = has_main ? generated_marker(dir) : NULL;
    free(marker);
    return has_main && !marker;
}

/* Directories: every NAME.br that has a NAME.out beside it, recursively.
 * Other .br files there are modules the tests import, except that --bless
 * also takes a new test (is_new_test) to create its files. Symbolic links to
 * files are followed, links to directories are not (as find(1) without -L),
 * so a link cycle cannot make the walk endless. */
static void find_tests(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) {
        fprintf(stderr, "brine: cannot read directory '%s': %s\n", dir, strerror(errno));
        exit(EXIT_USAGE);
    }
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        char *path = strcmp(dir, ".") == 0 ? tstrdup(e->d_name)
                     : has_suffix(dir, "/")  ? tprintf("%s%s", dir, e->d_name)
                                             : tprintf("%s/%s", dir, e->d_name);
        struct stat st, lst;
        if (lstat(path, &lst) == 0 && stat(path, &st) == 0) {
            if (S_ISDIR(st.st_mode)) {
                if (!S_ISLNK(lst.st_mode))
                    find_tests(path);
            } else if (S_ISREG(st.st_mode) && has_suffix(path, ".br")) {
                char *out = tprintf("%.*sout", (int)(strlen(path) - 2), path);
                if (access(out, F_OK) == 0 || (T.bless && is_new_test(path, dir)))
                    add_test(path);
                free(out);
            }
        }
        free(path);
    }
    closedir(d);
}

static int cmp_tests(const void *a, const void *b)
{
    return strcmp(((const struct test *)a)->path, ((const struct test *)b)->path);
}

/* Appends the k words of w (which it frees) to the list *list of *n. */
static void append_words(char ***list, int *n, char **w, int k)
{
    char **all = tmalloc((size_t)(*n + k + 1) * sizeof *all);
    if (*n)
        memcpy(all, *list, (size_t)*n * sizeof *all);
    memcpy(all + *n, w, (size_t)k * sizeof *all);
    free(*list);
    free(w);
    *list = all;
    *n += k;
}

/* The header: the comment lines at the top of the test (up to the first
 * line that is not a comment). `# exit:`, `# env:` and `# args:` are the
 * directives; any other `# WORD:` line there is an error, so a misspelt
 * directive cannot pass unnoticed. Other comments are left alone. */
static void parse_header(struct test *t, const char *src)
{
    const char *p = src;
    while (*p == '#') {
        const char *end = strchr(p, '\n');
        size_t n = end ? (size_t)(end - p) : strlen(p);
        char *line = tmalloc(n + 1);
        memcpy(line, p, n);
        line[n] = '\0';
        if (n && line[n - 1] == '\r')
            line[n - 1] = '\0';
        char *q = line + 1;
        while (*q == ' ' || *q == '\t')
            q++;
        if (strncmp(q, "exit:", 5) == 0) {
            char *num = q + 5, *stop;
            errno = 0;
            long v = strtol(num, &stop, 10);
            while (*stop == ' ' || *stop == '\t')
                stop++;
            if (errno || stop == num || *stop || v < 0 || v > 255)
                t->header_error = tprintf("bad '# exit:' line (want a status 0..255): %s", line);
            else
                t->exit_code = (int)v;
        } else if (strncmp(q, "env:", 4) == 0) {
            char **w;
            int k = split_words(q + 4, &w);
            for (int i = 0; i < k; i++) {
                char *eq = strchr(w[i], '=');
                if (!eq || eq == w[i]) {
                    t->header_error = tprintf("bad '# env:' entry '%s' (want K=V)", w[i]);
                    continue;
                }
                if (strncmp(w[i], "BRINE_THREADS=", 14) == 0)
                    t->own_threads = true;
            }
            append_words(&t->env, &t->nenv, w, k);
        } else if (strncmp(q, "args:", 5) == 0) {
            char **w;
            int k = split_words(q + 5, &w);
            append_words(&t->args, &t->nargs, w, k);
        } else if (!t->header_error) {
            /* "# WORD:" is a directive; an unknown one is a slip (# exits:,
             * # Env:) that would silently change nothing. */
            size_t w = strspn(q, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_-");
            if (w && q[w] == ':')
                t->header_error = tprintf("unknown directive '# %.*s:' in the test's header (the directives are "
                                          "'# exit:', '# env:' and '# args:')", (int)w, q);
        }
        free(line);
        if (!end)
            break;
        p = end + 1;
    }
}

/* ---- processes ------------------------------------------------------------- */

struct result {
    bool spawned;
    int spawn_errno;
    bool timed_out;
    int status;      /* exit status, or -signal */
    char *out, *err;
    size_t out_len, err_len;
};

/* Builds an environment: ours, minus the names in extra, plus extra. */
static char **make_env(char **extra, int nextra)
{
    int n = 0;
    while (environ[n])
        n++;
    char **env = tmalloc((size_t)(n + nextra + 1) * sizeof *env);
    int k = 0;
    for (int i = 0; i < n; i++) {
        bool overridden = false;
        for (int j = 0; j < nextra && !overridden; j++) {
            size_t len = (size_t)(strchr(extra[j], '=') - extra[j]);
            overridden = strncmp(environ[i], extra[j], len + 1) == 0;
        }
        if (!overridden)
            env[k++] = environ[i];
    }
    for (int j = 0; j < nextra; j++)
        env[k++] = extra[j];
    env[k] = NULL;
    return env;
}

/* Runs argv in cwd with stdin from /dev/null and stdout/stderr into files
 * (files, unlike pipes, cannot deadlock on a chatty child), kills it after
 * T.timeout_s, and reads what it wrote. */
static void run_proc(const char *exe, const char *cwd, char **argv, char **env, const char *out_file,
                     const char *err_file, struct result *r)
{
    memset(r, 0, sizeof *r);
    pid_t pid;
    int err = spawn_proc(&(struct spawn){.path = exe, .argv = argv, .env = env, .cwd = cwd,
                                         .out = out_file, .err = err_file}, &pid);
    if (err != 0) {
        r->spawn_errno = err;
        r->out = tstrdup("");
        r->err = tstrdup("");
        return;
    }
    r->spawned = true;
    if (!wait_proc(pid, T.timeout_s, &r->timed_out, &r->status))
        r->status = 0;
    if (!read_all(out_file, &r->out, &r->out_len, true))
        r->out = tstrdup("");
    if (!read_all(err_file, &r->err, &r->err_len, true))
        r->err = tstrdup("");
}

static void free_result(struct result *r)
{
    free(r->out);
    free(r->err);
    r->out = r->err = NULL;
}

static bool same(const char *a, size_t na, const char *b, size_t nb)
{
    return na == nb && memcmp(a, b, na) == 0;
}

static void describe_status(struct buf *b, const struct result *r)
{
    if (r->timed_out)
        bprintf(b, "timed out after %d s", T.timeout_s);
    else if (r->status < 0)
        bprintf(b, "killed by signal %d (%s)", -r->status, strsignal(-r->status));
    else
        bprintf(b, "exit status %d", r->status);
}

/* ---- running one test ----------------------------------------------------- */

struct expect {
    char *out, *err;
    size_t out_len, err_len;
};

/* Compares one run with the expectations; adds a report line per
 * difference (with its diff, unless it repeats the previous one). */
static bool check_run(struct test *t, const char *what, const struct result *r,
                      const struct expect *e, int want_status, struct buf *last_diff)
{
    bool ok = true;
    if (!r->spawned) {
        bprintf(&t->report, "FAIL %s (%s): cannot start: %s\n", t->path, what, strerror(r->spawn_errno));
        return false;
    }
    if (r->timed_out || r->status != want_status) {
        bprintf(&t->report, "FAIL %s (%s): ", t->path, what);
        describe_status(&t->report, r);
        bprintf(&t->report, ", expected exit status %d\n", want_status);
        ok = false;
    }
    struct {
        const char *name;
        const char *want, *got;
        size_t want_len, got_len;
    } streams[2] = {
        {"stdout", e->out, r->out, e->out_len, r->out_len},
        {"stderr", e->err, r->err, e->err_len, r->err_len},
    };
    for (int i = 0; i < 2; i++) {
        if (same(streams[i].want, streams[i].want_len, streams[i].got, streams[i].got_len))
            continue;
        ok = false;
        bprintf(&t->report, "FAIL %s (%s): %s differs (-expected +actual)\n", t->path, what, streams[i].name);
        struct buf d = {0};
        bputs(&d, "");
        text_diff(&d, streams[i].want, streams[i].want_len, streams[i].got, streams[i].got_len, DIFF_REPORT);
        if (last_diff[i].p && strcmp(last_diff[i].p, d.p) == 0) {
            bprintf(&t->report, "    (the same difference as above)\n");
            free(d.p);
        } else {
            bputn(&t->report, d.p, d.len);
            free(last_diff[i].p);
            last_diff[i] = d;
        }
    }
    return ok;
}

enum { DEV, RELEASE };
static const char *const mode_name[] = {"dev", "release"};

static bool build(struct test *t, int mode, const char *exe, const char *outf, const char *errf,
                  struct result *r)
{
    /* --color=never: stderr is a file, and a golden .err is plain text
     * whatever colour the runner's user asked for. */
    char *argv[12];
    int n = 0;
    argv[n++] = (char *)brine_paths()->exe;
    argv[n++] = "build";
    if (T.opt_arg) /* --opt=PASSES: the passes the tests' builds run */
        argv[n++] = T.opt_arg;
    argv[n++] = "--color=never";
    argv[n++] = mode == RELEASE ? "--release" : "--dev";
    if (mode == RELEASE && T.native)
        argv[n++] = "--cpu=native";
    argv[n++] = "-o";
    argv[n++] = (char *)exe;
    argv[n++] = "--";
    argv[n++] = t->base;
    argv[n] = NULL;
    char **env = make_env(NULL, 0);
    /* /proc/self/exe, not its path: the very binary that is running, even
     * if a rebuild replaces build/bin/brine while the tests run. */
    run_proc("/proc/self/exe", t->dir, argv, env, outf, errf, r);
    free(env);
    return r->spawned && !r->timed_out && r->status == 0;
}

static void run_test(struct test *t, int index)
{
    char *src;
    size_t src_len;
    if (!read_all(t->path, &src, &src_len, false)) {
        bprintf(&t->report, "FAIL %s: cannot read it: %s\n", t->path, strerror(errno));
        return;
    }
    parse_header(t, src);
    free(src);
    if (t->header_error) {
        bprintf(&t->report, "FAIL %s: %s\n", t->path, t->header_error);
        return;
    }
    char *out_path = tprintf("%s.out", t->stem), *err_path = tprintf("%s.err", t->stem);
    struct expect e;
    if (!read_all(out_path, &e.out, &e.out_len, true) || !read_all(err_path, &e.err, &e.err_len, true)) {
        bprintf(&t->report, "FAIL %s: cannot read its expected output: %s\n", t->path, strerror(errno));
        free(out_path);
        free(err_path);
        return;
    }
    char *exe = tprintf("%s/t%d.exe", T.tmpdir, index);
    char *outf = tprintf("%s/t%d.stdout", T.tmpdir, index);
    char *errf = tprintf("%s/t%d.stderr", T.tmpdir, index);
    /* The program's arguments: argv[0] is the executable. */
    char **pargv = tmalloc((size_t)(t->nargs + 2) * sizeof *pargv);
    pargv[0] = exe;
    for (int i = 0; i < t->nargs; i++)
        pargv[i + 1] = t->args[i];
    pargv[t->nargs + 1] = NULL;

    bool compile_error = t->exit_code == 1;
    bool ok = true;
    struct buf last_diff[2] = {{0}};
    bool timed_out = false; /* after one timeout the rest would only wait too */
    for (int mode = DEV; mode <= RELEASE && !timed_out; mode++) {
        if (T.bless ? mode != DEV : !(mode == DEV ? T.dev : T.release))
            continue;
        struct result r;
        bool built = build(t, mode, exe, outf, errf, &r);
        timed_out |= r.timed_out;
        if (compile_error) {
            /* The build is the test: status 1, the diagnostic on stderr. */
            char *what = tprintf("%s build", mode_name[mode]);
            if (T.bless && r.spawned && r.status == 1) {
                if (!write_all(out_path, r.out, r.out_len) ||
                    (r.err_len ? !write_all(err_path, r.err, r.err_len) : (unlink(err_path) != 0 && errno != ENOENT))) {
                    bprintf(&t->report, "FAIL %s: cannot bless: %s\n", t->path, strerror(errno));
                    ok = false;
                }
            } else {
                ok &= check_run(t, what, &r, &e, 1, last_diff);
            }
            free(what);
            free_result(&r);
            continue;
        }
        if (!built) {
            bprintf(&t->report, "FAIL %s (%s build): ", t->path, mode_name[mode]);
            if (r.spawned)
                describe_status(&t->report, &r);
            else
                bprintf(&t->report, "cannot start brine: %s", strerror(r.spawn_errno));
            bprintf(&t->report, ", expected a successful build\n");
            struct buf lines = {0};
            report_lines(&lines, r.err, r.err_len, BUILD_LINES);
            if (lines.len)
                bputn(&t->report, lines.p, lines.len);
            free(lines.p);
            free_result(&r);
            ok = false;
            continue;
        }
        free_result(&r);
        int counts[MAX_THREAD_COUNTS], ncounts = 0;
        if (t->own_threads || T.bless)
            counts[ncounts++] = t->own_threads ? 0 : 1;
        else
            for (int i = 0; i < T.nthreads; i++)
                counts[ncounts++] = T.threads[i];
        for (int k = 0; k < ncounts && !timed_out; k++) {
            char *extra[64 + 1];
            int nextra = 0;
            char *threads_var = counts[k] ? tprintf("BRINE_THREADS=%d", counts[k]) : NULL;
            if (threads_var)
                extra[nextra++] = threads_var;
            for (int i = 0; i < t->nenv && nextra < 64; i++)
                extra[nextra++] = t->env[i];
            char **env = make_env(extra, nextra);
            run_proc(exe, t->dir, pargv, env, outf, errf, &r);
            free(env);
            timed_out |= r.timed_out;
            char *what = counts[k] ? tprintf("%s, BRINE_THREADS=%d", mode_name[mode], counts[k])
                                   : tprintf("%s", mode_name[mode]);
            if (T.bless && r.spawned && !r.timed_out && r.status >= 0) {
                if (!write_all(out_path, r.out, r.out_len) ||
                    (r.err_len ? !write_all(err_path, r.err, r.err_len) : (unlink(err_path) != 0 && errno != ENOENT))) {
                    bprintf(&t->report, "FAIL %s: cannot bless: %s\n", t->path, strerror(errno));
                    ok = false;
                }
                if (r.status != t->exit_code) {
                    bprintf(&t->report, "FAIL %s (%s): exit status %d, expected %d (outputs blessed anyway)\n",
                               t->path, what, r.status, t->exit_code);
                    ok = false;
                }
            } else {
                ok &= check_run(t, what, &r, &e, t->exit_code, last_diff);
            }
            free(what);
            free(threads_var);
            free_result(&r);
        }
    }
    if (timed_out)
        bprintf(&t->report, "     (its remaining runs were skipped after the timeout)\n");
    unlink(exe);
    unlink(outf);
    unlink(errf);
    free(last_diff[0].p);
    free(last_diff[1].p);
    free(pargv);
    free(exe);
    free(outf);
    free(errf);
    free(e.out);
    free(e.err);
    free(out_path);
    free(err_path);
    t->passed = ok;
}

/* ---- --bless and generated tests ----------------------------------------- */

/* A directory holding a file named GENERATED (tests/golden/generated/) is
 * written by the generator scripts that file names, so an expected output
 * blessed in it or below it would be undone by their next run. Refuses to
 * bless such a test: it counts as failed and nothing is built or written.
 * The marker is looked for from the test's real directory up to /, and
 * shown relative to the working directory when it lies below it. */
/* The GENERATED file in dir or a directory above it (malloc'ed), or NULL. */
static char *generated_marker(const char *dir)
{
    char *d = realpath(dir, NULL), *marker = NULL;
    for (char *end = d ? d + strlen(d) : NULL; end && !marker;) {
        *end = '\0';
        char *m = tprintf("%s/GENERATED", d);
        if (access(m, F_OK) == 0)
            marker = m;
        else
            free(m);
        end = end > d ? strrchr(d, '/') : NULL; /* the parent; after "/" itself, stop */
    }
    free(d);
    return marker;
}

static bool bless_refused(struct test *t)
{
    char *cwd = getcwd(NULL, 0), *marker = generated_marker(t->dir);
    if (marker) {
        size_t n = cwd ? strlen(cwd) : 0;
        const char *shown = n > 1 && strncmp(marker, cwd, n) == 0 && marker[n] == '/' ? marker + n + 1 : marker;
        bprintf(&t->report, "FAIL %s: not blessed: %s.out is generated (see %s); edit the generator and rerun it instead of --bless\n",
                   t->path, t->stem, shown);
    }
    bool refused = marker != NULL;
    free(marker);
    free(cwd);
    return refused;
}

/* Prints finished tests in test order, as far as they are done: a line
 * "ok   PATH" or the failure's report; on a terminal only the failures,
 * under a counter that is rewritten in place. */
static void print_ready(void)
{
    pthread_mutex_lock(&T.print_lock);
    while (T.printed < T.ntests && atomic_load(&T.tests[T.printed].done)) {
        struct test *t = &T.tests[T.printed++];
        if (T.counter)
            fputs("\r\033[K", stdout);
        if (t->report.len)
            fputs(t->report.p, stdout);
        else if (!T.counter)
            printf("ok   %s\n", t->path);
        if (t->passed)
            T.npassed++;
        else
            T.nfailed++;
        if (T.counter)
            printf("[%d/%d] %d passed, %d failed", T.printed, T.ntests, T.npassed, T.nfailed);
        fflush(stdout);
    }
    pthread_mutex_unlock(&T.print_lock);
}

static void *worker(void *arg)
{
    (void)arg;
    for (;;) {
        int i = atomic_fetch_add(&T.next, 1);
        if (i >= T.ntests)
            return NULL;
        if (!(T.bless && bless_refused(&T.tests[i])))
            run_test(&T.tests[i], i);
        atomic_store(&T.tests[i].done, true);
        print_ready();
    }
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    remove(path);
    return 0;
}

/* ---- the command ------------------------------------------------------------ */

static void parse_threads(const char *s)
{
    T.nthreads = 0;
    const char *p = s;
    for (;;) {
        char *end;
        errno = 0;
        long v = strtol(p, &end, 10);
        if (end == p || errno || v < 1 || v > 4096 || (*end && *end != ','))
            command_line_error("--threads wants a list like 1,4 of counts from 1 to 4096, got '%s'", s);
        if (T.nthreads == MAX_THREAD_COUNTS)
            command_line_error("--threads: at most %d counts", MAX_THREAD_COUNTS);
        T.threads[T.nthreads++] = (int)v;
        if (!*end)
            break;
        p = end + 1;
    }
}

static double seconds_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Keeps the tests whose path contains one of the patterns (-k). */
static void filter_tests(const char **patterns, int npatterns)
{
    int k = 0;
    for (int i = 0; i < T.ntests; i++) {
        bool keep = false;
        for (int p = 0; p < npatterns && !keep; p++)
            keep = strstr(T.tests[i].path, patterns[p]) != NULL;
        if (keep)
            T.tests[k++] = T.tests[i];
    }
    T.ntests = k;
}

int test_main(int argc, char **argv)
{
    double started_at = seconds_now();
    T.dev = T.release = true;
    T.jobs = 2;
    T.timeout_s = 60;
    T.threads[0] = 1;
    T.threads[1] = 4;
    T.nthreads = 2;
    bool only_release = false, only_dev = false;
    const char **paths = tmalloc((size_t)(argc + 1) * sizeof *paths);
    const char **patterns = tmalloc((size_t)(argc + 1) * sizeof *patterns);
    int npaths = 0, npatterns = 0;
    const char *v;
    struct cli_args args = cli_start("test", argc, argv);
    for (enum cli_id id; (id = cli_next(&args, &v)) != CLI_DONE;) {
        switch (id) {
        case CLI_OPERAND: paths[npaths++] = v; break;
        case CLI_HELP:
            cli_print_help(args.cmd, stdout);
            return 0;
        case OPT_FILTER: patterns[npatterns++] = v; break;
        case OPT_BLESS: T.bless = true; break;
        case OPT_RELEASE: only_release = true; break;
        case OPT_DEV: only_dev = true; break;
        case OPT_CPU: T.native = cli_cpu_native(v); break;
        case OPT_THREADS: parse_threads(v); break;
        case OPT_JOBS: T.jobs = (int)cli_number("-j", v, 1, 256, "a number of parallel tests"); break;
        case OPT_TIMEOUT: T.timeout_s = (int)cli_number("--timeout", v, 1, 86400, "seconds"); break;
        case OPT_OPT:
            opt_option(arena_printf("--opt=%s", v));
            T.opt_arg = tprintf("--opt=%s", v);
            break;
        default: internal_error("test: option %d not handled", (int)id);
        }
    }
    if (only_release && only_dev)
        command_line_error("--release and --dev exclude each other");
    if (only_release)
        T.dev = false;
    if (only_dev)
        T.release = false;
    if (npaths == 0) {
        /* A project keeps its tests in tests/ (brine's own goldens are
         * tests/golden, given explicitly). */
        struct stat st;
        if (stat("tests", &st) != 0 || !S_ISDIR(st.st_mode)) {
            fputs("brine: no tests/ directory here; name the tests to run: brine test PATH...\n", stderr);
            return EXIT_USAGE;
        }
        paths[npaths++] = "tests";
    }

    for (int i = 0; i < npaths; i++) {
        struct stat st;
        if (stat(paths[i], &st) != 0) {
            fprintf(stderr, "brine: cannot read '%s': %s\n", paths[i], strerror(errno));
            return EXIT_USAGE;
        }
        if (S_ISDIR(st.st_mode))
            find_tests(paths[i]);
        else if (has_suffix(paths[i], ".br"))
            add_test(paths[i]); /* named explicitly: a test even without .out */
        else
            command_line_error("expected a directory or a .br file, got '%s'", paths[i]);
    }
    free(paths);
    qsort(T.tests, (size_t)T.ntests, sizeof *T.tests, cmp_tests);
    /* The same file named twice (or found twice) runs once. */
    int k = 0;
    for (int i = 0; i < T.ntests; i++)
        if (k == 0 || strcmp(T.tests[k - 1].path, T.tests[i].path) != 0)
            T.tests[k++] = T.tests[i];
    T.ntests = k;
    int found = T.ntests;
    if (npatterns)
        filter_tests(patterns, npatterns);
    free(patterns);
    if (T.ntests == 0) {
        if (found)
            fprintf(stderr, "brine: none of the %d tests found matches -k\n", found);
        else
            fputs("brine: no tests found (a test is NAME.br with NAME.out beside it)\n", stderr);
        puts("0 passed, 0 failed");
        return 1;
    }
    const char *term = getenv("TERM");
    T.counter = isatty(STDOUT_FILENO) && !(term && strcmp(term, "dumb") == 0);

    /* A runaway program writing without end fails with SIGXFSZ instead of
     * filling the disk. */
    struct rlimit rl;
    const rlim_t cap = (rlim_t)512 << 20;
    if (getrlimit(RLIMIT_FSIZE, &rl) == 0 && (rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur > cap)) {
        rl.rlim_cur = cap;
        setrlimit(RLIMIT_FSIZE, &rl);
    }

    const char *tmp = getenv("TMPDIR");
    T.tmpdir = tprintf("%s/brine-test-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(T.tmpdir)) {
        fprintf(stderr, "brine: cannot create a temporary directory: %s\n", strerror(errno));
        return EXIT_INTERNAL;
    }
    brine_paths(); /* resolve once, before the threads share it */

    int nworkers = T.jobs < T.ntests ? T.jobs : T.ntests;
    pthread_t *th = tmalloc((size_t)nworkers * sizeof *th);
    int started = 0;
    for (int i = 0; i < nworkers; i++)
        if (pthread_create(&th[i], NULL, worker, NULL) == 0)
            started++;
    if (started == 0)
        worker(NULL);
    for (int i = 0; i < started; i++)
        pthread_join(th[i], NULL);
    free(th);
    print_ready();
    nftw(T.tmpdir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);

    if (T.counter)
        fputs("\r\033[K", stdout);
    printf("%d passed, %d failed in %.2f s\n", T.npassed, T.nfailed, seconds_now() - started_at);
    fflush(stdout);
    return T.nfailed ? 1 : 0;
}
