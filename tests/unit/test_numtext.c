/* The runtime's own number writers against the C library they replace:
 * brt_format_i64/u64 against printf's %lld/%llu at every digit count and
 * over random values of every width; {x:.Nf} (and .N%) against printf's
 * %.Nf over random doubles of every exponent, exact ties at every
 * precision and their neighbours, carries and the edges of the fast path;
 * and the typed f-string pieces (brt_str_append_int & co, brt_sb_int & co,
 * brt_str_of_*) against the descriptor path (brt_sb_val), in place and
 * not, shared or not. */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <math.h>
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

/* {x:spec} through the runtime against printf's cfmt (with suffix after). */
static void check_fixed(double x, int prec, const char *type)
{
    char spec[16], cfmt[16], want[2048];
    snprintf(spec, sizeof spec, ".%d%s", prec, type);
    bool pct = type[0] == '%';
    snprintf(cfmt, sizeof cfmt, "%%.%d%s%s", prec, pct ? "f" : type, pct ? "%%" : "");
    snprintf(want, sizeof want, cfmt, pct ? x * 100 : x);
    brt_sb sb;
    brt_sb_init(&sb);
    brt_sb_val(&sb, &brt_t_float, &x, spec);
    char *got = strndup(sb.buf ? sb.buf : "", (size_t)sb.len);
    free(sb.buf);
    if (strcmp(got, want) != 0)
        cr_assert_str_eq(got, want, "x = %a, spec '%s'", x, spec);
    free(got);
}

static double from_bits(uint64_t b)
{
    double x;
    memcpy(&x, &b, sizeof x);
    return x;
}

Test(numtext, fixed_edges)
{
    double xs[] = {0.0, -0.0, 0.5, 1.5, 2.5, -0.5, -2.5, 0.125, 0.375, 1e-300, 5e-324, -5e-324,
                   0x1p-1022, 0.1, 0.2, 0.3, 0.7, 1.0 / 3, 2.0 / 3, 9.9995, 9.9994999, 0.9999999999,
                   99.5, 999999.9999996, 123456.789, -123456.789, 4503599627370495.5, 4503599627370496.0,
                   9007199254740991.0, 9007199254740992.0, 9007199254740994.0, 1e16, 1e22, 1e300,
                   1.7976931348623157e308, 1.0 / 0.0, -1.0 / 0.0, 0.0005, 0.0015, 0.0025, 1e-17,
                   5e-18, 0.05, 0.045, 1.005, 2.675};
    for (size_t i = 0; i < sizeof xs / sizeof xs[0]; i++)
        for (int prec = 0; prec <= 25; prec++) {
            check_fixed(xs[i], prec, "f");
            check_fixed(xs[i], prec, "F");
            check_fixed(xs[i], prec, "%");
        }
}

Test(numtext, fixed_exact_ties)
{
    /* b / 2^(N+1) with b odd is exactly halfway between two N-digit
     * decimals: the rounding rule decides every one */
    for (int prec = 0; prec <= 18; prec++)
        for (int i = 0; i < 20000; i++) {
            uint64_t b = (any_width() >> 11) | 1;
            double x = ldexp((double)b, -(prec + 1));
            check_fixed(x, prec, "f");
            check_fixed(nextafter(x, 0), prec, "f");
            check_fixed(nextafter(x, INFINITY), prec, "f");
            check_fixed(-x, prec, "f");
        }
}

Test(numtext, fixed_random)
{
    for (int i = 0; i < 400000; i++) {
        int prec = (int)(next() % 20);
        /* any bit pattern (most beyond the fast path), then doubles below
         * 2^53 of every exponent */
        double y = from_bits(next());
        if (!isnan(y)) /* the runtime prints nan, printf -nan for some */
            check_fixed(y, prec, "f");
        double x = ldexp((double)(next() >> 11), (int)(next() % 1130) - 1130 + 53);
        check_fixed(x, prec, "f");
        check_fixed(-x, prec, i % 2 ? "F" : "%");
    }
}

/* repr of a whole float below 2^53 is its digits and ".0" (the fast path
 * of brt_format_float; Python agrees, gen_float_table.py's rows too), the
 * same as printf's %.1f of it. */
static void check_whole(double x)
{
    char want[48], got[48];
    int n = snprintf(want, sizeof want, "%.1f", x);
    int k = brt_format_float(x, got);
    cr_assert_eq(k, n, "%s: length %d", want, k);
    cr_assert_str_eq(got, want);
}

Test(numtext, repr_whole_floats)
{
    for (int b = 0; b <= 53; b++) {
        double p = ldexp(1.0, b);
        check_whole(p - 1);
        check_whole(-(p - 1));
        if (b < 53) {
            check_whole(p);
            check_whole(p + 1);
        }
    }
    double t = 1;
    for (int k = 0; k <= 15; k++, t *= 10) {
        check_whole(t - 1);
        check_whole(t);
        check_whole(t + 1);
        check_whole(-t);
    }
    for (int i = 0; i < 300000; i++) {
        double x = (double)(any_width() >> 11);
        check_whole(x);
        check_whole(-x);
    }
    /* just beyond: the general path, whose text is the same rule */
    char got[48];
    brt_format_float(9007199254740992.0, got);
    cr_assert_str_eq(got, "9007199254740992.0");
    brt_format_float(9007199254740994.0, got);
    cr_assert_str_eq(got, "9007199254740994.0");
    brt_format_float(1e16, got);
    cr_assert_str_eq(got, "1e+16");
    brt_format_float(0.5, got);
    cr_assert_str_eq(got, "0.5");
    brt_format_float(-0.0, got);
    cr_assert_str_eq(got, "-0.0");
}

Test(numtext, append_lit_in_place_only_when_own)
{
    brt_str *s = brt_str_new("", 0);
    s = brt_str_append_lit(s, "ab", 2); /* from the immortal "": a new block */
    cr_assert_str_eq(s->data, "ab");
    const char *d = s->data;
    int64_t room = s->cap - s->len;
    cr_assert_gt(room, 3);
    s = brt_str_append_lit(s, "cde", 3); /* in place */
    cr_assert_eq(s->data, d);
    cr_assert_str_eq(s->data, "abcde");
    while (s->cap - s->len > 0)
        s = brt_str_append_lit(s, "x", 1);
    int64_t len = s->len;
    s = brt_str_append_lit(s, "yz", 2); /* no room: grows */
    cr_assert_eq(s->len, len + 2);
    cr_assert_eq(s->data[len + 1], 'z');
    cr_assert_eq(s->data[len + 2], 0);
    brt_retain(s); /* shared: the other owner keeps its text */
    brt_str *t = brt_str_append_lit(s, "!", 1);
    cr_assert_neq(t, s);
    cr_assert_eq(s->len, len + 2);
    cr_assert_eq(s->data[s->len], 0);
    cr_assert_eq(t->data[len + 2], '!');
    brt_str_release(t);
    brt_str_release(s);
}
