/*
 * util.c: the compiler's small shared helpers, one per job (STYLE.md, "One
 * helper per job"): the whole-file reader, the word splitter, the hash map
 * the process spawner and the unified diff. Each is written once here and used by every phase and by the
 * driver. Processes are spawned with posix_spawn, never through a shell,
 * so no file name or flag is ever re-parsed.
 *
 * They are safe to call from `brine test`'s worker threads: they use
 * xmalloc/xrealloc (plain malloc that dies on out-of-memory), never the
 * arena, and keep no state of their own.
 */
#define _GNU_SOURCE /* posix_spawn_file_actions_addchdir_np */
#include "brine.h"

#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

/* ---- files --------------------------------------------------------------- */

char *read_file(const char *path, size_t *len_out)
{
    /* O_CLOEXEC: `brine test` spawns children from other threads meanwhile. */
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    size_t cap = 0, len = 0;
    char *buf = NULL;
    for (;;) {
        VEC_RESERVE(buf, cap, len + 4096); /* room to read, and for the NUL */
        ssize_t got = read(fd, buf + len, cap - len - 1);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0) {
            int e = errno;
            close(fd);
            free(buf);
            errno = e;
            return NULL;
        }
        if (got == 0)
            break;
        len += (size_t)got;
    }
    close(fd);
    buf[len] = '\0';
    *len_out = len;
    return buf;
}

/* ---- words ------------------------------------------------------------------- */

int split_words(const char *s, char ***out)
{
    int n = 0, cap = 0;
    char **w = NULL;
    VEC_GROW(w, n, cap); /* *out is never NULL */
    while (*s) {
        while (*s == ' ' || *s == '\t')
            s++;
        if (!*s)
            break;
        const char *start = s;
        while (*s && *s != ' ' && *s != '\t')
            s++;
        VEC_GROW(w, n, cap);
        size_t len = (size_t)(s - start);
        w[n] = xmalloc(len + 1);
        memcpy(w[n], start, len);
        w[n][len] = '\0';
        n++;
    }
    *out = w;
    return n;
}

/* ---- the hash map ---------------------------------------------------------- */

/* Open addressing with linear probing, at most half full, the capacity a
 * power of two. Keys are byte strings that the map copies, so a key may be
 * a stack struct (a place: file, line, column) as well as a name or the
 * bytes of a pointer. FNV-1a: short keys, no adversary. */
static uint64_t map_hash(const void *key, size_t klen)
{
    const unsigned char *p = key;
    uint64_t h = 1469598103934665603u;
    for (size_t i = 0; i < klen; i++)
        h = (h ^ p[i]) * 1099511628211u;
    return h;
}

static struct map_entry *map_slot(const struct map *m, const void *key, size_t klen, uint64_t h)
{
    for (size_t i = (size_t)h;; i++) {
        struct map_entry *e = &m->e[i & (m->cap - 1)];
        if (!e->key || (e->hash == h && e->klen == klen && memcmp(e->key, key, klen) == 0))
            return e;
    }
}

void *map_get(const struct map *m, const void *key, size_t klen)
{
    if (!m->cap)
        return NULL;
    struct map_entry *e = map_slot(m, key, klen, map_hash(key, klen));
    return e->key ? e->val : NULL;
}

void map_put(struct map *m, const void *key, size_t klen, void *val)
{
    if ((m->len + 1) * 2 > m->cap) {
        struct map bigger = {0};
        bigger.cap = grow_cap(m->cap, (m->len + 1) * 2);
        bigger.e = xmalloc(bigger.cap * sizeof *bigger.e);
        memset(bigger.e, 0, bigger.cap * sizeof *bigger.e);
        for (size_t i = 0; i < m->cap; i++)
            if (m->e[i].key)
                *map_slot(&bigger, m->e[i].key, m->e[i].klen, m->e[i].hash) = m->e[i];
        bigger.len = m->len;
        free(m->e);
        *m = bigger;
    }
    uint64_t h = map_hash(key, klen);
    struct map_entry *e = map_slot(m, key, klen, h);
    if (!e->key) {
        void *copy = xmalloc(klen);
        memcpy(copy, key, klen);
        e->key = copy;
        e->klen = klen;
        e->hash = h;
        m->len++;
    }
    e->val = val;
}

struct map_entry *map_next(const struct map *m, size_t *i)
{
    for (; *i < m->cap; (*i)++)
        if (m->e[*i].key)
            return &m->e[(*i)++];
    return NULL;
}

void map_free(struct map *m)
{
    for (size_t i = 0; i < m->cap; i++)
        free((void *)m->e[i].key);
    free(m->e);
    *m = (struct map){0};
}

void *map_get_str(const struct map *m, const char *key)
{
    return map_get(m, key, strlen(key));
}

void map_put_str(struct map *m, const char *key, void *val)
{
    map_put(m, key, strlen(key), val);
}

void *map_get_ptr(const struct map *m, const void *key)
{
    return map_get(m, &key, sizeof key);
}

void map_put_ptr(struct map *m, const void *key, void *val)
{
    map_put(m, &key, sizeof key, val);
}

/* ---- processes --------------------------------------------------------------- */

int spawn_proc(const struct spawn *sp, pid_t *pid)
{
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    if (sp->cwd)
        posix_spawn_file_actions_addchdir_np(&fa, sp->cwd);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    if (sp->to_fd) {
        posix_spawn_file_actions_adddup2(&fa, sp->fd, 1);
        posix_spawn_file_actions_adddup2(&fa, sp->fd, 2);
    } else {
        if (sp->out)
            posix_spawn_file_actions_addopen(&fa, 1, sp->out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (sp->err)
            posix_spawn_file_actions_addopen(&fa, 2, sp->err, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    }
    char *const *env = sp->env ? sp->env : environ;
    int err = sp->path ? posix_spawn(pid, sp->path, &fa, NULL, sp->argv, env)
                       : posix_spawnp(pid, sp->argv[0], &fa, NULL, sp->argv, env);
    posix_spawn_file_actions_destroy(&fa);
    return err;
}

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

bool wait_proc(pid_t pid, int timeout_s, bool *timed_out, int *status_out)
{
    int status = 0;
    if (timed_out)
        *timed_out = false;
    if (timeout_s <= 0) {
        while (waitpid(pid, &status, 0) < 0)
            if (errno != EINTR)
                return false;
    } else {
        /* Polling with short naps: a timeout without signal handlers. */
        double deadline = now_s() + timeout_s;
        long nap = 1;
        for (;;) {
            pid_t got = waitpid(pid, &status, WNOHANG);
            if (got == pid)
                break;
            if (got < 0 && errno != EINTR)
                return false;
            if (now_s() > deadline) {
                if (timed_out)
                    *timed_out = true;
                kill(pid, SIGKILL);
                waitpid(pid, &status, 0);
                break;
            }
            sleep_ms(nap);
            if (nap < 20)
                nap *= 2;
        }
    }
    *status_out = WIFEXITED(status) ? WEXITSTATUS(status) : WIFSIGNALED(status) ? -WTERMSIG(status) : -1;
    return true;
}

/* ---- diffs --------------------------------------------------------------- */

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

enum { REPORT_LINE_CHARS = 160 };

/* One diff line. In a report: indented, control bytes escaped and long
 * lines cut, so that a binary flood cannot wreck the terminal. In a patch:
 * the line itself, and diff's marker after a line without a newline. */
static void diff_line(struct buf *b, char sign, struct line l, enum diff_form form)
{
    if (form == DIFF_PATCH) {
        bputn(b, &sign, 1);
        bputn(b, l.s, l.len);
        bputs(b, l.nl ? "\n" : "\n\\ No newline at end of file\n");
        return;
    }
    bprintf(b, "    %c", sign);
    size_t n = l.len < REPORT_LINE_CHARS ? l.len : REPORT_LINE_CHARS;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)l.s[i];
        if (c < 0x20 && c != '\t')
            bprintf(b, "\\x%02x", c);
        else
            bputn(b, (const char *)&c, 1);
    }
    if (l.len > n)
        bprintf(b, "... (%zu more bytes)", l.len - n);
    if (!l.nl)
        bputs(b, "  (no newline at end)");
    bputs(b, "\n");
}

void report_lines(struct buf *out, const char *s, size_t len, int max)
{
    struct line *l;
    int n = split_lines(s, len, &l);
    for (int i = 0; i < n && i < max; i++)
        diff_line(out, ' ', l[i], DIFF_REPORT);
    free(l);
}

/* A unified diff (diff -u): a minimal edit script (Myers' O(ND) greedy
 * algorithm, "An O(ND) Difference Algorithm and Its Variations", 1986) on
 * the lines between the common first and last ones, shown as @@ hunks with
 * DIFF_CONTEXT lines of context, hunks closer than twice that merged. A
 * report shows at most DIFF_SHOWN lines. When the middle is too large for a
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
    char *ops = xmalloc((size_t)na + (size_t)nc + 1);
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
        trace = xmalloc((size_t)(lim + 1) * sizeof *trace);
        int *v = xmalloc((size_t)(2 * lim + 3) * sizeof *v);
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
            trace[d] = xmalloc((size_t)(2 * lim + 3) * sizeof **trace);
            memcpy(trace[d], v, (size_t)(2 * lim + 3) * sizeof *v);
        }
        free(v);
        if (d_found >= 0) {
            /* Walk back from (n, m), writing the script from its end. */
            char *rev = xmalloc((size_t)max + 1);
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

void text_diff(struct buf *b, const char *want, size_t want_len, const char *got, size_t got_len,
               enum diff_form form)
{
    struct line *a, *c;
    int na = split_lines(want, want_len, &a), nc = split_lines(got, got_len, &c);
    int nops;
    char *ops = edit_script(a, na, c, nc, &nops);
    /* ai[k], ci[k]: the lines of a and c before step k. */
    int *ai = xmalloc((size_t)(nops + 1) * sizeof *ai), *ci = xmalloc((size_t)(nops + 1) * sizeof *ci);
    ai[0] = ci[0] = 0;
    for (int k = 0; k < nops; k++) {
        ai[k + 1] = ai[k] + (ops[k] != '+');
        ci[k + 1] = ci[k] + (ops[k] != '-');
    }
    int shown = 0, left = 0, limit = form == DIFF_PATCH ? INT_MAX : DIFF_SHOWN;
    const char *indent = form == DIFF_PATCH ? "" : "    ";
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
        if (shown < limit) {
            bprintf(b, "%s@@ -%d,%d +%d,%d @@\n", indent, alen ? ai[lo] + 1 : ai[lo], alen,
                    clen ? ci[lo] + 1 : ci[lo], clen);
        }
        for (int q = lo; q < hi; q++) {
            if (shown >= limit) {
                left += ops[q] != ' ';
                continue;
            }
            diff_line(b, ops[q], ops[q] == '+' ? c[ci[q]] : a[ai[q]], form);
            shown++;
        }
        k = hi;
    }
    if (left)
        bprintf(b, "    ... (%d more changed lines)\n", left);
    free(ops);
    free(ai);
    free(ci);
    free(a);
    free(c);
}
