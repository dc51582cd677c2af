/*
 * print.c: print (SPEC 6.1) through the runtime's own stdout buffer.
 *
 * stdio is not used for stdout: one 64 KiB buffer behind a mutex, written
 * with write(2) when full, at brt_finish, os.exit and before a panic message
 * (panic.c calls brt_flush). Each brt_print_* call is atomic; a whole print
 * line from several par tasks may interleave, which is the nature of output
 * from parallel code. Integers and floats are formatted straight into the
 * buffer, so printing millions of values costs no allocation.
 */
#include "rt_internal.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define OUT_CAP (64 * 1024)

static struct {
    pthread_mutex_t lock;
    size_t len;
    char buf[OUT_CAP];
} out = { .lock = PTHREAD_MUTEX_INITIALIZER };

static void write_fd1(const char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(1, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return; /* stdout closed: output is lost, as in C */
        p += w;
        n -= (size_t)w;
    }
}

/* Lock held. */
static void flush_locked(void)
{
    write_fd1(out.buf, out.len);
    out.len = 0;
}

static void put_locked(const char *p, size_t n)
{
    if (out.len + n > OUT_CAP) {
        flush_locked();
        if (n > OUT_CAP) { /* huge pieces go straight out */
            write_fd1(p, n);
            return;
        }
    }
    memcpy(out.buf + out.len, p, n);
    out.len += n;
}

void brt_out_write(const char *p, size_t n)
{
    pthread_mutex_lock(&out.lock);
    put_locked(p, n);
    pthread_mutex_unlock(&out.lock);
}

void brt_flush(void)
{
    pthread_mutex_lock(&out.lock);
    flush_locked();
    pthread_mutex_unlock(&out.lock);
}

void brt_print_int(int64_t v)
{
    char tmp[24];
    char *p = tmp + sizeof tmp;
    uint64_t m = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
    do {
        *--p = (char)('0' + m % 10);
        m /= 10;
    } while (m);
    if (v < 0)
        *--p = '-';
    brt_out_write(p, (size_t)(tmp + sizeof tmp - p));
}

void brt_print_u64(uint64_t v)
{
    char tmp[24];
    char *p = tmp + sizeof tmp;
    do {
        *--p = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    brt_out_write(p, (size_t)(tmp + sizeof tmp - p));
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
    case BRT_ARR: {
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
}
