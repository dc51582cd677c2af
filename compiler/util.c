/*
 * util.c: the compiler's small shared helpers, one per job (STYLE.md, "One
 * helper per job"): the whole-file reader, the word splitter, the hash map
 * and the process spawner. Each is written once here and used by every phase and by the
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
