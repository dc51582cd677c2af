/* The runtime's own number writers against the C library they replace:
 * brt_format_i64/u64 against printf's %lld/%llu at every digit count and
 * over random values of every width, and the typed f-string pieces
 * (brt_str_append_int & co, brt_sb_int & co, brt_str_of_*) against the
 * descriptor path (brt_sb_val), in place and not, shared or not. */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "brine_rt.h"

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t next(void)
{
    /* xorshift64*: any fixed sequence does */
    rng ^= rng >> 12;
    rng ^= rng << 25;
    rng ^= rng >> 27;
    return rng * 2685821657736338717ull;
}

/* A random value of a random bit width, so every digit count is hit. */
static uint64_t any_width(void)
{
    int bits = (int)(next() % 64) + 1;
    return next() >> (64 - bits);
}

static void check_i64(int64_t v)
{
    char want[32], got[32];
    memset(got, 'x', sizeof got);
    int n = snprintf(want, sizeof want, "%" PRId64, v);
    int k = brt_format_i64(v, got);
    cr_assert_eq(k, n, "%s: length %d", want, k);
    cr_assert_str_eq(got, want); /* and the NUL */
}

static void check_u64(uint64_t v)
{
    char want[32], got[32];
    memset(got, 'x', sizeof got);
    int n = snprintf(want, sizeof want, "%" PRIu64, v);
    int k = brt_format_u64(v, got);
    cr_assert_eq(k, n, "%s: length %d", want, k);
    cr_assert_str_eq(got, want);
}

Test(numtext, int_digit_count_edges)
{
    uint64_t p = 1;
    for (int k = 0; k <= 19; k++) {
        for (int d = -1; d <= 1; d++) {
            uint64_t u = p + (uint64_t)d;
            check_u64(u);
            if (u <= (uint64_t)INT64_MAX) {
                check_i64((int64_t)u);
                check_i64(-(int64_t)u);
            }
        }
        if (k < 19)
            p *= 10;
    }
    for (int b = 0; b < 64; b++) { /* around every power of two */
        uint64_t u = 1ull << b;
        check_u64(u - 1);
        check_u64(u);
        check_u64(u + 1);
        check_i64((int64_t)(u - 1));
        check_i64(-(int64_t)(u - 1));
    }
    check_u64(0);
    check_u64(UINT64_MAX);
    check_u64(UINT64_MAX - 1);
    check_i64(INT64_MIN);
    check_i64(INT64_MIN + 1);
    check_i64(INT64_MAX);
}

Test(numtext, int_random)
{
    for (int i = 0; i < 1000000; i++) {
        uint64_t u = any_width();
        check_u64(u);
        check_i64((int64_t)u);
        check_i64((int64_t)(0 - u));
    }
}

/* The descriptor path's text of a value, as a C string (static buffer). */
static const char *by_descriptor(const brt_type *t, const void *valp)
{
    static char out[64];
    brt_sb sb;
    brt_sb_init(&sb);
    brt_sb_val(&sb, t, valp, NULL);
    cr_assert_lt(sb.len, (int64_t)sizeof out);
    memcpy(out, sb.buf, (size_t)sb.len);
    out[sb.len] = 0;
    free(sb.buf);
    return out;
}

Test(numtext, typed_pieces_match_descriptor_path)
{
    double fs[] = {0.0, -0.0, 1.0 / 0.0, -1.0 / 0.0, 0.0 / 0.0, 0.1, -2.5, 1e16, 1e-7, 5e-324, 1.7976931348623157e308};
    /* s grows from "" by every piece, in place when it has room and not
     * when it has not; the same text built by brt_sb_val is the reference */
    brt_str *s = brt_str_new("", 0);
    brt_sb want, typed;
    brt_sb_init(&want);
    brt_sb_init(&typed);
    for (int i = 0; i < 20000; i++) {
        int64_t v = (int64_t)any_width() * (i % 2 ? -1 : 1);
        if (i == 7) v = INT64_MIN;
        uint64_t u = any_width();
        double x = fs[i % (sizeof fs / sizeof fs[0])];
        bool b = i % 3 == 0;
        const char *w;
        w = by_descriptor(&brt_t_int, &v);
        brt_sb_lit(&want, w, (int64_t)strlen(w));
        s = brt_str_append_int(s, v);
        brt_sb_int(&typed, v);
        brt_str *t = brt_str_of_int(v);
        cr_assert_str_eq(t->data, w);
        brt_str_release(t);
        w = by_descriptor(&brt_t_u64, &u);
        brt_sb_lit(&want, w, (int64_t)strlen(w));
        s = brt_str_append_u64(s, u);
        brt_sb_u64(&typed, u);
        t = brt_str_of_u64(u);
        cr_assert_str_eq(t->data, w);
        brt_str_release(t);
        w = by_descriptor(&brt_t_float, &x);
        brt_sb_lit(&want, w, (int64_t)strlen(w));
        s = brt_str_append_float(s, x);
        brt_sb_float(&typed, x);
        t = brt_str_of_float(x);
        cr_assert_str_eq(t->data, w);
        brt_str_release(t);
        w = by_descriptor(&brt_t_bool, &b);
        brt_sb_lit(&want, w, (int64_t)strlen(w));
        s = brt_str_append_bool(s, b);
        brt_sb_bool(&typed, b);
        t = brt_str_of_bool(b);
        cr_assert_str_eq(t->data, w);
        brt_sb_str(&typed, t);
        brt_sb_lit(&want, w, (int64_t)strlen(w));
        s = brt_str_append(s, t);
        brt_str_release(t);
        cr_assert_eq(s->len, want.len);
        cr_assert_eq(s->data[s->len], 0);
    }
    cr_assert_eq(memcmp(s->data, want.buf, (size_t)want.len), 0);
    cr_assert_eq(typed.len, want.len);
    cr_assert_eq(memcmp(typed.buf, want.buf, (size_t)want.len), 0);
    brt_str_release(s);
    free(want.buf);
    free(typed.buf);
}

Test(numtext, shared_string_is_not_written_in_place)
{
    brt_str *s = brt_str_new("", 0);
    s = brt_str_append_bytes(s, "ab", 2); /* a growable block with room */
    cr_assert_gt(s->cap, s->len + 20);
    /* each append takes a reference: the one retained here, so s keeps
     * its own and must keep "ab" */
    brt_retain(s);
    brt_str *t = brt_str_append_int(s, -12345);
    cr_assert_neq(t, s);
    cr_assert_str_eq(s->data, "ab");
    cr_assert_eq(s->len, 2);
    cr_assert_str_eq(t->data, "ab-12345");
    brt_retain(s);
    brt_str *f = brt_str_append_float(s, 0.1);
    cr_assert_str_eq(s->data, "ab");
    cr_assert_str_eq(f->data, "ab0.1");
    brt_str_release(t);
    brt_str_release(f);
    brt_str_release(s);
}
