/*
 * panic.c: panics (SPEC section 7) and the traps that catch them.
 *
 * A panic ends the program: stdout is flushed, stderr gets exactly
 *     panic: MSG
 *       --> FILE:LINE:COL
 * and the status is 101. The one exception is a thread with a trap
 * installed (pool.c runs each par task under one): the panic is recorded in
 * the trap and control longjmps back, so the caller can choose the panic a
 * single thread walking the tree in post-order would have met (SPEC 5.3).
 * Skipping the frames between the panic and the trap leaks whatever they
 * owned; that is fine, because a trapped panic is always reported and ends
 * the program soon after.
 *
 * The trap pointer is per thread, behind a pthread key: tcc cannot link
 * __thread variables, and the generated code never touches it anyway.
 */
#define _GNU_SOURCE /* vasprintf */
#include "rt_internal.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const panic_text[] = {
#define X(k, s) s,
    BRT_PANICS(X)
#undef X
};

static pthread_once_t trap_once = PTHREAD_ONCE_INIT;
static pthread_key_t trap_key;

static void trap_key_make(void)
{
    if (pthread_key_create(&trap_key, NULL) != 0)
        abort();
}

brt_trap *brt_trap_get(void)
{
    pthread_once(&trap_once, trap_key_make);
    return pthread_getspecific(trap_key);
}

void brt_trap_set(brt_trap *t)
{
    pthread_once(&trap_once, trap_key_make);
    pthread_setspecific(trap_key, t);
}

/* Writes all of buf to fd, retrying short writes. */
static void write_all(int fd, const char *buf, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, buf, n);
        if (w <= 0)
            return;
        buf += w;
        n -= (size_t)w;
    }
}

/* Every panic ends here. msg is owned by the caller only when no trap takes
 * it: a trap takes ownership of a malloc'ed copy. */
BRT_NORETURN static void panic_final(const brt_loc *loc, const char *msg)
{
    brt_trap *t = brt_trap_get();
    if (t) {
        /* par frames between here and the trap join their tasks first:
         * thieves may still be writing into them (reduce.c) */
        brt_frames_unwind(t);
        t->panicked = 1;
        t->loc = loc;
        t->msg = strdup(msg);
        longjmp(t->jb, 1);
    }
    brt_flush_quiet();
    const char *rank = brt_world_panic_prefix(); /* world: "rank N: ", or NULL when rank 0 reports */
    if (!rank) {
        brt_world_panic_end();
        _exit(101);
    }
    /* One write, so the two lines never interleave with another thread's. */
    size_t mlen = strlen(msg);
    const char *file = loc && loc->file ? loc->file : "";
    size_t cap = mlen + strlen(file) + strlen(rank) + 64;
    char *buf = malloc(cap);
    if (!buf) {
        write_all(2, "panic: ", 7);
        write_all(2, msg, mlen);
        write_all(2, "\n", 1);
        _exit(101);
    }
    int n;
    if (loc)
        n = snprintf(buf, cap, "%spanic: %s\n  --> %s:%" PRId32 ":%" PRId32 "\n", rank, msg, file,
                     loc->line, loc->col);
    else
        n = snprintf(buf, cap, "%spanic: %s\n", rank, msg);
    write_all(2, buf, (size_t)n);
    free(buf); /* leak-free under valgrind, even on this path */
    brt_world_panic_end();
    /* _exit, not exit: another thread may still be running par work, and
     * atexit handlers must not race with it. stdout is already flushed. */
    _exit(101);
}

BRT_NORETURN void brt_panic_text(const brt_loc *loc, const char *msg)
{
    panic_final(loc, msg);
}

BRT_NORETURN void brt_panic(const brt_loc *loc, brt_panic_kind kind)
{
    panic_final(loc, panic_text[kind]);
}

BRT_NORETURN void brt_panic_msg(const brt_loc *loc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *msg = NULL;
    if (vasprintf(&msg, fmt, ap) < 0)
        msg = NULL;
    va_end(ap);
    if (msg && brt_trap_get()) {
        /* the trap keeps its own copy: this one would be lost in the longjmp */
        char buf[1024];
        size_t n = strlen(msg);
        if (n < sizeof buf) {
            memcpy(buf, msg, n + 1);
            free(msg);
            panic_final(loc, buf);
        }
    }
    panic_final(loc, msg ? msg : fmt);
}

BRT_NORETURN void brt_panic_index(const brt_loc *loc, int64_t len, int64_t index)
{
    char msg[96];
    snprintf(msg, sizeof msg, "index out of bounds: the len is %" PRId64 " but the index is %" PRId64,
             len, index);
    panic_final(loc, msg);
}

BRT_NORETURN void brt_trap_rethrow(const brt_trap *t)
{
    panic_final(t->loc, t->msg ? t->msg : "panic");
}
