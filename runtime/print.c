/*
 * print.c: print (SPEC 6.1) through the runtime's own stdout buffer.
 *
 * stdio is not used for stdout: one 64 KiB buffer behind a mutex, written
 * with write(2) when full, at brt_finish, os.exit and before a panic message
 * (panic.c calls brt_flush). A print is atomic: brt_print_at takes the
 * mutex and marks the calling thread its owner, the pieces go into the
 * buffer without locking again, and brt_print_end / brt_print_done give it
 * back. So lines printed by par elements on several threads come out in
 * some order, each one whole, as Rust's println! does (the order between
 * threads is the nature of output from parallel code), and a print takes
 * the mutex once, not once per piece. A piece called outside a print (the
 * unit tests) locks for itself; a flush or panic inside a print (a failed
 * write) finds the mutex its own and does not wait for it.
 *
 * A write that fails (a full disk, /dev/full, EPIPE with SIGPIPE ignored) is
 * a panic "cannot write to stdout: <strerror>", so output is never lost
 * silently. Its place is the print whose output failed: each print records
 * its place first (brt_print_at, one relaxed store), so a failure in the
 * middle of a print names that print, and a failure at the final flush
 * names the last print run; a closed stdout (EBADF) is not a failure, the
 * output goes nowhere, as in Rust. After the first failure stdout is marked
 * broken and further output is dropped, so the panic's own flush (and other
 * threads) cannot fail again. Integers and floats are formatted straight into the
 * buffer, so printing millions of values costs no allocation.
 */
#include "rt_internal.h"

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define OUT_CAP (64 * 1024)

static struct {
    pthread_mutex_t lock;
    uintptr_t owner; /* the thread inside a print (holding lock), or 0 */
    bool broken; /* a write failed: output is dropped from now on */
    size_t len;
    char buf[OUT_CAP];
} out = { .lock = PTHREAD_MUTEX_INITIALIZER };

/* Lock held. 0, or the errno of the write that failed (then stdout is
 * broken). */
static int write_fd1(const char *p, size_t n)
{
    while (n > 0 && !out.broken) {
        ssize_t w = write(1, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0 && errno == EBADF)
            return 0; /* stdout closed: the output goes nowhere */
        if (w <= 0) {
            out.broken = true;
            return w < 0 ? errno : EIO;
        }
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

/* Lock held. */
static int flush_locked(void)
{
    int err = write_fd1(out.buf, out.len);
    out.len = 0;
    return err;
}

static int put_locked(const char *p, size_t n)
{
    if (out.broken)
        return 0;
    if (out.len + n > OUT_CAP) {
        int err = flush_locked();
        if (err || n > OUT_CAP) /* huge pieces go straight out */
            return err ? err : write_fd1(p, n);
    }
    memcpy(out.buf + out.len, p, n);
    out.len += n;
    return 0;
}

/* The place of the last print run (NULL before the first). */
static const brt_loc *print_place;

/* Whether the calling thread is inside a print (so holds the mutex). Only
 * the owner stores its own id, so no other thread can read it as theirs. */
static bool print_mine(void)
{
    return __atomic_load_n(&out.owner, __ATOMIC_RELAXED) == (uintptr_t)pthread_self();
}

void brt_print_at(const brt_loc *loc)
{
    __atomic_store_n(&print_place, loc, __ATOMIC_RELAXED);
    if (!print_mine()) {
        pthread_mutex_lock(&out.lock);
        __atomic_store_n(&out.owner, (uintptr_t)pthread_self(), __ATOMIC_RELAXED);
    }
}

void brt_print_done(void)
{
    if (print_mine()) {
        __atomic_store_n(&out.owner, 0, __ATOMIC_RELAXED);
        pthread_mutex_unlock(&out.lock);
    }
}

/* Lock not held: the panic flushes stdout itself. */
static void check_write(int err)
{
    if (err)
        brt_panic_msg(__atomic_load_n(&print_place, __ATOMIC_RELAXED), "cannot write to stdout: %s",
                      strerror(err));
}

void brt_out_write(const char *p, size_t n)
{
    if (print_mine()) {
        int err = put_locked(p, n);
        if (err) {
            brt_print_done(); /* the panic's flush takes the mutex */
            check_write(err);
        }
        return;
    }
    pthread_mutex_lock(&out.lock);
    int err = put_locked(p, n);
    pthread_mutex_unlock(&out.lock);
    check_write(err);
}

int brt_flush_quiet(void)
{
    bool held = print_mine();
    if (!held)
        pthread_mutex_lock(&out.lock);
    int err = flush_locked();
    if (!held)
        pthread_mutex_unlock(&out.lock);
    return err;
}

void brt_flush(void)
{
    check_write(brt_flush_quiet());
}

void brt_print_int(int64_t v)
{
    char tmp[24];
    brt_out_write(tmp, (size_t)brt_format_i64(v, tmp));
}

void brt_print_u64(uint64_t v)
{
    char tmp[24];
    brt_out_write(tmp, (size_t)brt_format_u64(v, tmp));
}

void brt_print_i128(brt_i128 v)
{
    char tmp[48];
    brt_out_write(tmp, (size_t)brt_format_i128(v, tmp));
}

void brt_print_float(double v)
{
    char tmp[32];
    brt_out_write(tmp, (size_t)brt_format_float(v, tmp));
}

void brt_print_bool(bool v)
{
    brt_out_write(v ? "true" : "false", v ? 4 : 5);
}

void brt_print_str(brt_str *s)
{
    brt_out_write(s->data, (size_t)s->len);
}

void brt_print_val(const brt_type *t, const void *valp)
{
    switch (t->kind) {
    case BRT_INT: brt_print_int(*(const int64_t *)valp); return;
    case BRT_U64: brt_print_u64(*(const uint64_t *)valp); return;
    case BRT_I128: brt_print_i128(*(const brt_i128 *)valp); return;
    case BRT_FLOAT: brt_print_float(*(const double *)valp); return;
    case BRT_BOOL: brt_print_bool(*(const bool *)valp); return;
    case BRT_STR: brt_print_str(*(brt_str *const *)valp); return;
    case BRT_ARR:
    case BRT_TUPLE:
    case BRT_FN: {
        brt_sb sb;
        brt_sb_init(&sb);
        brt_sb_plain(&sb, t, valp);
        brt_out_write(sb.buf, (size_t)sb.len);
        free(sb.buf);
        return;
    }
    }
}

void brt_print_sep(void)
{
    brt_out_write(" ", 1);
}

void brt_print_end(void)
{
    brt_out_write("\n", 1);
    brt_print_done();
}
