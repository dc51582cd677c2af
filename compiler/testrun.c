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
#include <unistd.h>

#include "driver.h"

extern char **environ;

enum { MAX_THREAD_COUNTS = 16, DIFF_LINES = 8, LINE_CHARS = 160 }; /* DIFF_LINES: lines of a failed build shown, times 2 */

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

/* A growable string: a test's report. */
struct str {
    char *s;
    size_t len, cap;
};

static void str_add(struct str *b, const char *s, size_t n)
{
    VEC_RESERVE(b->s, b->cap, b->len + n + 1);
    memcpy(b->s + b->len, s, n);
    b->len += n;
    b->s[b->len] = '\0';
}

static void str_printf(struct str *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void str_printf(struct str *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *tmp = tvprintf(fmt, ap);
    va_end(ap);
    str_add(b, tmp, strlen(tmp));
    free(tmp);
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
    struct str report;
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

/* ---- diffs ------------------------------------------------------------------- */

struct line {
    const char *s;
    size_t len;
    bool nl; /* ends in a newline */
};

static int split_lines(const char *s, size_t len, struct line **out)
{
    int n = 0, cap = 0;
    struct line *l = NULL;
    VEC_GROW(l, n, cap); /* *out is never NULL */
    size_t i = 0;
    while (i < len) {
        const char *nl = memchr(s + i, '\n', len - i);
        size_t end = nl ? (size_t)(nl - s) : len;
        VEC_GROW(l, n, cap);
        l[n++] = (struct line){s + i, end - i, nl != NULL};
        i = nl ? end + 1 : len;
    }
    *out = l;
    return n;
}

static bool line_eq(struct line a, struct line b)
{
    return a.len == b.len && a.nl == b.nl && memcmp(a.s, b.s, a.len) == 0;
}

/* One diff line, control bytes escaped and long lines cut, so that a
 * binary flood cannot wreck the terminal. */
static void diff_line(struct str *b, char sign, struct line l)
{
    str_printf(b, "    %c", sign);
    size_t n = l.len < LINE_CHARS ? l.len : LINE_CHARS;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)l.s[i];
        if (c < 0x20 && c != '\t')
            str_printf(b, "\\x%02x", c);
        else
            str_add(b, (const char *)&c, 1);
    }
    if (l.len > n)
        str_printf(b, "... (%zu more bytes)", l.len - n);
    if (!l.nl)
        str_add(b, "  (no newline at end)", 21);
    str_add(b, "\n", 1);
}

/* A unified diff (diff -u): a minimal edit script (Myers' O(ND) greedy
 * algorithm, "An O(ND) Difference Algorithm and Its Variations", 1986) on
 * the lines between the common first and last ones, shown as @@ hunks with
 * DIFF_CONTEXT lines of context, hunks closer than twice that merged. At
 * most DIFF_SHOWN lines are printed. When the middle is too large for a
 * minimal script to be cheap (a flood of output), it is shown as one
 * replaced block. */
enum { DIFF_CONTEXT = 3, DIFF_SHOWN = 40, DIFF_MAX_D = 1000, DIFF_MAX_LINES = 200000 };

/* The edit script: for each step, ' ' (a line of both), '-' or '+'. */
static char *edit_script(const struct line *a, int na, const struct line *c, int nc, int *nops)
{
    int pre = 0;
    while (pre < na && pre < nc && line_eq(a[pre], c[pre]))
        pre++;
    int suf = 0;
    while (suf < na - pre && suf < nc - pre && line_eq(a[na - 1 - suf], c[nc - 1 - suf]))
        suf++;
    int n = na - pre - suf, m = nc - pre - suf;
    char *ops = tmalloc((size_t)na + (size_t)nc + 1);
    int k = 0;
    memset(ops, ' ', (size_t)pre);
    k = pre;
    const struct line *x = a + pre, *y = c + pre;
    int max = n + m;
    /* trace[d]: V after step d (diagonals -d..d), for the walk back. */
    int **trace = NULL;
    int d_found = -1;
    if (max > 0 && max <= DIFF_MAX_LINES) {
        int lim = max < DIFF_MAX_D ? max : DIFF_MAX_D;
        trace = tmalloc((size_t)(lim + 1) * sizeof *trace);
        int *v = tmalloc((size_t)(2 * lim + 3) * sizeof *v);
        int off = lim + 1;
        v[off + 1] = 0;
        for (int d = 0; d <= lim && d_found < 0; d++) {
            for (int kk = -d; kk <= d; kk += 2) {
                int i = kk == -d || (kk != d && v[off + kk - 1] < v[off + kk + 1]) ? v[off + kk + 1]
                                                                                  : v[off + kk - 1] + 1;
                int j = i - kk;
                while (i < n && j < m && line_eq(x[i], y[j]))
                    i++, j++;
                v[off + kk] = i;
                if (i >= n && j >= m) {
                    d_found = d;
                    break;
                }
            }
            trace[d] = tmalloc((size_t)(2 * lim + 3) * sizeof **trace);
            memcpy(trace[d], v, (size_t)(2 * lim + 3) * sizeof *v);
        }
        free(v);
        if (d_found >= 0) {
            /* Walk back from (n, m), writing the script from its end. */
            char *rev = tmalloc((size_t)max + 1);
            int r = 0, i = n, j = m;
            for (int d = d_found; d > 0; d--) {
                int *pv = trace[d - 1];
                int kk = i - j;
                int pk = kk == -d || (kk != d && pv[off + kk - 1] < pv[off + kk + 1]) ? kk + 1 : kk - 1;
                int pi = pv[off + pk], pj = pi - pk;
                while (i > pi && j > pj && (i > (pk == kk + 1 ? pi : pi + 1)))
                    i--, j--, rev[r++] = ' ';
                if (pk == kk + 1)
                    j--, rev[r++] = '+'; /* down: a line of c */
                else
                    i--, rev[r++] = '-'; /* right: a line of a */
            }
            while (i > 0 && j > 0)
                i--, j--, rev[r++] = ' ';
            while (r > 0)
                ops[k++] = rev[--r];
            free(rev);
        }
        for (int d = 0; d <= lim && d <= (d_found >= 0 ? d_found : lim); d++)
            free(trace[d]);
        free(trace);
    }
    if (d_found < 0) {
        memset(ops + k, '-', (size_t)n);
        k += n;
        memset(ops + k, '+', (size_t)m);
        k += m;
    }
    memset(ops + k, ' ', (size_t)suf);
    k += suf;
    *nops = k;
    return ops;
}

static void diff(struct str *b, const char *want, size_t want_len, const char *got, size_t got_len)
{
    struct line *a, *c;
    int na = split_lines(want, want_len, &a), nc = split_lines(got, got_len, &c);
    int nops;
    char *ops = edit_script(a, na, c, nc, &nops);
    /* ai[k], ci[k]: the lines of a and c before step k. */
    int *ai = tmalloc((size_t)(nops + 1) * sizeof *ai), *ci = tmalloc((size_t)(nops + 1) * sizeof *ci);
    ai[0] = ci[0] = 0;
    for (int k = 0; k < nops; k++) {
        ai[k + 1] = ai[k] + (ops[k] != '+');
        ci[k + 1] = ci[k] + (ops[k] != '-');
    }
    int shown = 0, left = 0;
    for (int k = 0; k < nops;) {
        if (ops[k] == ' ') {
            k++;
            continue;
        }
        /* A hunk: from DIFF_CONTEXT steps before this change to DIFF_CONTEXT
         * after the last change that is no more than 2*DIFF_CONTEXT away. */
        int lo = k - DIFF_CONTEXT < 0 ? 0 : k - DIFF_CONTEXT;
        while (lo < k && ops[lo] != ' ')
            lo++;
        int end = k; /* one past the last change */
        for (int q = k; q < nops; q++) {
            if (ops[q] != ' ') {
                end = q + 1;
            } else if (q - end >= 2 * DIFF_CONTEXT) {
                break;
            }
        }
        int hi = end + DIFF_CONTEXT > nops ? nops : end + DIFF_CONTEXT;
        int alen = ai[hi] - ai[lo], clen = ci[hi] - ci[lo];
        if (shown < DIFF_SHOWN) {
            str_printf(b, "    @@ -%d,%d +%d,%d @@\n", alen ? ai[lo] + 1 : ai[lo], alen, clen ? ci[lo] + 1 : ci[lo],
                       clen);
        }
        for (int q = lo; q < hi; q++) {
            if (shown >= DIFF_SHOWN) {
                left += ops[q] != ' ';
                continue;
            }
            diff_line(b, ops[q], ops[q] == '+' ? c[ci[q]] : a[ai[q]]);
            shown++;
        }
        k = hi;
    }
    if (left)
        str_printf(b, "    ... (%d more changed lines)\n", left);
    free(ops);
    free(ai);
    free(ci);
    free(a);
    free(c);
}

char *unified_diff(const char *want, size_t want_len, const char *got, size_t got_len)
{
    struct str d = {0};
    str_add(&d, "", 0);
    diff(&d, want, want_len, got, got_len);
    return d.s;
}

static bool same(const char *a, size_t na, const char *b, size_t nb)
{
    return na == nb && memcmp(a, b, na) == 0;
}

static void describe_status(struct str *b, const struct result *r)
{
    if (r->timed_out)
        str_printf(b, "timed out after %d s", T.timeout_s);
    else if (r->status < 0)
        str_printf(b, "killed by signal %d (%s)", -r->status, strsignal(-r->status));
    else
        str_printf(b, "exit status %d", r->status);
}

/* ---- running one test ----------------------------------------------------- */

struct expect {
    char *out, *err;
    size_t out_len, err_len;
};

/* Compares one run with the expectations; adds a report line per
 * difference (with its diff, unless it repeats the previous one). */
static bool check_run(struct test *t, const char *what, const struct result *r,
                      const struct expect *e, int want_status, struct str *last_diff)
{
    bool ok = true;
    if (!r->spawned) {
        str_printf(&t->report, "FAIL %s (%s): cannot start: %s\n", t->path, what, strerror(r->spawn_errno));
        return false;
    }
    if (r->timed_out || r->status != want_status) {
        str_printf(&t->report, "FAIL %s (%s): ", t->path, what);
        describe_status(&t->report, r);
        str_printf(&t->report, ", expected exit status %d\n", want_status);
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
        str_printf(&t->report, "FAIL %s (%s): %s differs (-expected +actual)\n", t->path, what, streams[i].name);
        struct str d = {0};
        diff(&d, streams[i].want, streams[i].want_len, streams[i].got, streams[i].got_len);
        if (last_diff[i].s && strcmp(last_diff[i].s, d.s) == 0) {
            str_printf(&t->report, "    (the same difference as above)\n");
            free(d.s);
        } else {
            str_add(&t->report, d.s, d.len);
            free(last_diff[i].s);
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
    if (opt_option_given()) /* --opt=SPEC: the passes the tests' builds run */
        argv[n++] = arena_printf("--opt=%s", opt_option_given());
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
        str_printf(&t->report, "FAIL %s: cannot read it: %s\n", t->path, strerror(errno));
        return;
    }
    parse_header(t, src);
    free(src);
    if (t->header_error) {
        str_printf(&t->report, "FAIL %s: %s\n", t->path, t->header_error);
        return;
    }
    char *out_path = tprintf("%s.out", t->stem), *err_path = tprintf("%s.err", t->stem);
    struct expect e;
    if (!read_all(out_path, &e.out, &e.out_len, true) || !read_all(err_path, &e.err, &e.err_len, true)) {
        str_printf(&t->report, "FAIL %s: cannot read its expected output: %s\n", t->path, strerror(errno));
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
    struct str last_diff[2] = {{0}};
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
                    str_printf(&t->report, "FAIL %s: cannot bless: %s\n", t->path, strerror(errno));
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
            str_printf(&t->report, "FAIL %s (%s build): ", t->path, mode_name[mode]);
            if (r.spawned)
                describe_status(&t->report, &r);
            else
                str_printf(&t->report, "cannot start brine: %s", strerror(r.spawn_errno));
            str_printf(&t->report, ", expected a successful build\n");
            struct line *l;
            int nl = split_lines(r.err, r.err_len, &l);
            for (int i = 0; i < nl && i < DIFF_LINES * 2; i++)
                diff_line(&t->report, ' ', l[i]);
            free(l);
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
                    str_printf(&t->report, "FAIL %s: cannot bless: %s\n", t->path, strerror(errno));
                    ok = false;
                }
                if (r.status != t->exit_code) {
                    str_printf(&t->report, "FAIL %s (%s): exit status %d, expected %d (outputs blessed anyway)\n",
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
        str_printf(&t->report, "     (its remaining runs were skipped after the timeout)\n");
    unlink(exe);
    unlink(outf);
    unlink(errf);
    free(last_diff[0].s);
    free(last_diff[1].s);
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
        str_printf(&t->report, "FAIL %s: not blessed: %s.out is generated (see %s); edit the generator and rerun it instead of --bless\n",
                   t->path, t->stem, shown);
    }
    bool refused = marker != NULL;
    free(marker);
    free(cwd);
    return refused;
}

/* Prints finished reports in test order, as far as they are done. */
static void print_ready(void)
{
    pthread_mutex_lock(&T.print_lock);
    while (T.printed < T.ntests && atomic_load(&T.tests[T.printed].done)) {
        struct test *t = &T.tests[T.printed++];
        if (t->report.len)
            fputs(t->report.s, stdout);
        if (t->passed)
            T.npassed++;
        else
            T.nfailed++;
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

static const char test_help[] =
    "usage: brine test [PATH...] [--bless] [--release | --dev] [--cpu=native] [--threads 1,4] [-j N] [--timeout S]\n"
    "                  [--opt=SPEC]\n"
    "\n"
    "Runs the golden tests under each PATH (a directory, searched recursively, or a\n"
    "NAME.br; default tests/golden). A test is NAME.br with NAME.out beside it.\n"
    "\n"
    "options:\n"
    "  --bless          write NAME.out and NAME.err from what the tests print, and\n"
    "                   create them for new tests (a .br with fn main and no .out)\n"
    "  --release        only release builds\n"
    "  --dev            only dev builds\n"
    "  --cpu=native     release builds for this machine's CPU (-march=native)\n"
    "  --threads LIST   the BRINE_THREADS counts to run at (default 1,4)\n"
    "  -j N             tests run at a time, 1 to 256 (default 2)\n"
    "  --timeout S      seconds per build or run, 1 to 86400 (default 60)\n"
    "  --opt=SPEC       the builds' optimizer passes: all (default), none, -PASS, +PASS\n"
    "  --color WHEN     accepted for every command; test reports are plain text\n"
    "  --               what follows is a PATH, even if it starts with '-'\n"
    "  -h, --help       print this help\n";


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

int test_main(int argc, char **argv)
{
    T.dev = T.release = true;
    T.jobs = 2;
    T.timeout_s = 60;
    T.threads[0] = 1;
    T.threads[1] = 4;
    T.nthreads = 2;
    bool only_release = false, only_dev = false;
    const char **paths = tmalloc((size_t)(argc + 1) * sizeof *paths);
    int npaths = 0;
    bool paths_only = false; /* after "--" */
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (paths_only || a[0] != '-' || !a[1]) {
            paths[npaths++] = a;
        } else if (strcmp(a, "--") == 0) {
            paths_only = true;
        } else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            fputs(test_help, stdout);
            return 0;
        } else if (color_option(argc, argv, &i)) {
        } else if (strcmp(a, "--bless") == 0) {
            T.bless = true;
        } else if (strcmp(a, "--release") == 0) {
            only_release = true;
        } else if (strcmp(a, "--dev") == 0) {
            only_dev = true;
        } else if (strncmp(a, "--cpu=", 6) == 0) {
            T.native = cpu_option(a + 6);
        } else if (strcmp(a, "--threads") == 0 || strncmp(a, "--threads=", 10) == 0) {
            if (a[9] == '=')
                parse_threads(a + 10);
            else if (i + 1 < argc)
                parse_threads(argv[++i]);
            else
                command_line_error("--threads needs a list like 1,4");
        } else if (strcmp(a, "-j") == 0 || strncmp(a, "-j", 2) == 0) {
            const char *v = a[2] ? a + 2 : (i + 1 < argc ? argv[++i] : NULL);
            char *end;
            long j = v ? strtol(v, &end, 10) : 0;
            if (!v || *end || j < 1 || j > 256)
                command_line_error("-j wants a number of parallel tests from 1 to 256");
            T.jobs = (int)j;
        } else if (strcmp(a, "--timeout") == 0) {
            char *end;
            long v = i + 1 < argc ? strtol(argv[++i], &end, 10) : 0;
            if (v < 1 || v > 86400 || *end)
                command_line_error("--timeout wants seconds from 1 to 86400");
            T.timeout_s = (int)v;
        } else if (opt_option(a)) {
        } else {
            command_line_error("unknown option '%s' for test", a);
        }
    }
    if (only_release && only_dev)
        command_line_error("--release and --dev exclude each other");
    if (only_release)
        T.dev = false;
    if (only_dev)
        T.release = false;
    if (npaths == 0)
        paths[npaths++] = "tests/golden";

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
    if (T.ntests == 0) {
        fputs("brine: no tests found (a test is NAME.br with NAME.out beside it)\n", stderr);
        puts("0 passed, 0 failed");
        return 1;
    }

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

    printf("%d passed, %d failed\n", T.npassed, T.nfailed);
    fflush(stdout);
    return T.nfailed ? 1 : 0;
}
