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
 * The frames between the panic and the trap never return: whatever they
 * owned is released first (their owners, own.c brt_owners_unwind; the
 * runtime's par frames give their partial results the same way), since a
 * trapped panic does not always end the program (par any and par all drop
 * one that comes after their deciding element).
 *
 * The trap pointer is per thread, behind a pthread key: tcc cannot link
 * __thread variables, and the generated code never touches it anyway.
 *
 * Call chains (frames.c): a panic prints every frame from its place out to
 * main, "  --> FILE:L:C in NAME" each (one frame: the line above, without
 * the name). A trapped panic carries its chain so far behind its message's
 * NUL (msg_with_chain), so every copy of (loc, msg) the runtime makes
 * carries it too; the rethrow adds the rethrowing thread's own frames.
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

/* Installs t, or puts back an outer trap (one older on this stack, so at a
 * higher address than the current one): the chain's first slot, what a
 * panic releases and the count of open par work are those of when t was
 * installed. (The thread's ftop may have moved since: a nested par
 * construct inside the trapped code sets it to its own frame's slot, and a
 * base taken then would leave the trapped code's outer frames out of the
 * chain and their slots set, so later chains would walk them again.) */
void brt_trap_set(brt_trap *t)
{
    pthread_once(&trap_once, trap_key_make);
    brt_trap *cur = pthread_getspecific(trap_key);
    pthread_setspecific(trap_key, t);
    if (t && (!cur || (char *)t < (char *)cur)) {
        brt_tcache *tc = brt_tcache_here();
        t->fbase = tc ? tc->ftop : NULL;
        t->owners = tc ? tc->owners : NULL;
        t->running = brt_par_open();
    }
}

/* A trapped panic's message with its chain behind the NUL, 16-aligned. */
#define CHAIN_MAGIC 0x636861696e3a6272ULL
struct chained {
    uint64_t magic;
    brt_chain c;
};

static char *msg_with_chain(const char *msg, const brt_chain *c)
{
    size_t n = strlen(msg) + 1, off = (n + 15) & ~(size_t)15;
    char *m = malloc(off + sizeof(struct chained));
    if (!m)
        return NULL;
    memcpy(m, msg, n);
    struct chained ch;
    memset(&ch, 0, sizeof ch);
    ch.magic = CHAIN_MAGIC;
    ch.c = *c;
    memcpy(m + off, &ch, sizeof ch);
    return m;
}

/* Every trapped message is made by msg_with_chain (out of memory it is
 * NULL, and the panic reads "panic"), so its chain follows its text. */
static bool chain_of(const char *msg, brt_chain *out)
{
    if (!msg)
        return false;
    size_t n = strlen(msg) + 1, off = (n + 15) & ~(size_t)15;
    struct chained ch;
    memcpy(&ch, msg + off, sizeof ch);
    if (ch.magic != CHAIN_MAGIC)
        return false;
    *out = ch.c;
    return true;
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
 * it: a trap takes ownership of a malloc'ed copy, and then frees drop (a
 * rethrown panic's own malloc'ed message). */
BRT_NORETURN static void panic_final(const brt_loc *loc, const char *msg, const brt_chain *inner, char *drop)
{
    brt_trap *t = brt_trap_get();
    brt_tcache *tc = brt_tcache_here();
    brt_chain c;
    if (inner) {
        c = *inner;
    } else {
        memset(&c, 0, sizeof c);
        if (loc)
            brt_chain_push(&c, loc);
    }
    /* this thread's frames: from the trap's first slot (clearing them, as
     * the calls never return), else from the thread's first */
    brt_chain_walk(&c, t ? t->fbase : tc ? tc->fbase : NULL, t != NULL);
    if (t) {
        if (tc)
            tc->ftop = t->fbase;
        /* par frames between here and the trap join their tasks first:
         * thieves may still be writing into them (reduce.c) */
        brt_frames_unwind(t);
        /* then what the frames owned (no thread uses it any more), and the
         * count of par work they had open on this thread */
        brt_owners_unwind(tc, t->owners);
        brt_par_open_set(t->running);
        t->panicked = 1;
        t->loc = loc;
        t->msg = msg_with_chain(msg, &c);
        free(drop);
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
    if (!brt_backtrace && c.n > 1) /* BRINE_BACKTRACE=0: the innermost place only */
        c.n = 1;
    char *chain = brt_chain_text(&c, strcmp(msg, panic_text[BRT_STACK]) != 0);
    size_t cap = mlen + strlen(rank) + (chain ? strlen(chain) : 0) + 64;
    char *buf = malloc(cap);
    if (!buf) {
        write_all(2, "panic: ", 7);
        write_all(2, msg, mlen);
        write_all(2, "\n", 1);
        _exit(101);
    }
    int n = snprintf(buf, cap, "%spanic: %s\n%s", rank, msg, chain ? chain : "");
    write_all(2, buf, (size_t)n);
    free(buf); /* leak-free under valgrind, even on this path */
    free(chain);
    brt_world_panic_end();
    /* _exit, not exit: another thread may still be running par work, and
     * atexit handlers must not race with it. stdout is already flushed. */
    _exit(101);
}

BRT_NORETURN void brt_panic_text(const brt_loc *loc, const char *msg)
{
    panic_final(loc, msg, NULL, NULL);
}

BRT_NORETURN void brt_panic(const brt_loc *loc, brt_panic_kind kind)
{
    panic_final(loc, panic_text[kind], NULL, NULL);
}

BRT_NORETURN void brt_panic_msg(const brt_loc *loc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *msg = NULL;
    if (vasprintf(&msg, fmt, ap) < 0)
        msg = NULL;
    va_end(ap);
    if (!msg)
        panic_final(loc, fmt, NULL, NULL);
    brt_panic_owned(loc, msg);
}

/* msg is malloc'ed and becomes the panic's: a trap keeps its own copy and
 * frees this one before the longjmp, whatever its length. */
BRT_NORETURN void brt_panic_owned(const brt_loc *loc, char *msg)
{
    panic_final(loc, msg, NULL, msg);
}

BRT_NORETURN void brt_panic_index(const brt_loc *loc, int64_t len, int64_t index)
{
    char msg[96];
    snprintf(msg, sizeof msg, "index out of bounds: the len is %" PRId64 " but the index is %" PRId64,
             len, index);
    panic_final(loc, msg, NULL, NULL);
}

BRT_NORETURN void brt_trap_rethrow(const brt_trap *t)
{
    brt_chain c;
    bool chained = chain_of(t->msg, &c);
    panic_final(t->loc, t->msg ? t->msg : "panic", chained ? &c : NULL, t->msg);
}

/* A fused region's trap (brine_rt.h, opt_fuse.c): installed with the
 * chain's first slot at the function's own, so a trapped panic records the
 * frames from there and its rethrow appends the thread's outer ones. */
void brt_region_enter(brt_region *r, const brt_loc **fp)
{
    brt_tcache *tc = brt_tcache_here();
    r->ftop = tc ? tc->ftop : NULL;
    if (tc)
        tc->ftop = fp;
    r->outer = brt_trap_get();
    r->trap.panicked = 0;
    r->trap.msg = NULL;
    brt_trap_set(&r->trap);
}

void brt_region_leave(brt_region *r)
{
    brt_trap_set(r->outer);
    brt_tcache *tc = brt_tcache_here();
    if (tc)
        tc->ftop = r->ftop;
}

void brt_region_caught(brt_region *r)
{
    brt_region_leave(r);
}

BRT_NORETURN void brt_region_rethrow(brt_region *r)
{
    brt_trap_rethrow(&r->trap);
}
