/*
 * format.c: values as text (SPEC section 6): float repr, integers, str(),
 * f-string format specs, and the reverse: int(s) and float(s).
 *
 * Floats print as Python's repr: the shortest digit string that reads back
 * to the same double. We find it with the C library, which is exact on
 * glibc: for p significant digits, snprintf("%.{p-1}e") gives the correctly
 * rounded p-digit decimal, and strtod tells whether it reads back. If p
 * digits read back, so do p+1 (the p-digit decimal is also a (p+1)-digit
 * one, and the correctly rounded (p+1)-digit decimal is at least as close),
 * so a binary search over 1..17 finds the shortest p. One subtlety: at a
 * power of two the doubles below are twice as dense as above, so the
 * rounding interval is lopsided and the nearest p-digit decimal may miss it
 * while the next one on the other side fits; that case checks both
 * neighbours, as David Gay's shortest mode (Python's repr) does. The digits
 * are then laid out by repr's rule: fixed notation when the decimal
 * exponent is in [-4, 16), else scientific with at least two exponent
 * digits ("1e+16", "1.5e-07").
 *
 * Format specs follow CPython's Objects/stringlib/unicode_format.h and
 * Python/formatter_unicode.c for the subset SPEC 6.3 allows:
 * [[fill]align][sign][0][width][,][.precision][type]. Numbers are laid out
 * as sign, digits (grouped, zero padded), then the rest (".5", "e+16", "%"),
 * with CPython's rule that zero padding with ',' groups the padding zeros
 * too ("0,000,001,234").
 */
#include "rt_internal.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* 10^k for k = 0..19, every power of ten a uint64_t holds. */
static const uint64_t ten_to[20] = {1ull, 10ull, 100ull, 1000ull, 10000ull, 100000ull, 1000000ull,
                                    10000000ull, 100000000ull, 1000000000ull, 10000000000ull,
                                    100000000000ull, 1000000000000ull, 10000000000000ull,
                                    100000000000000ull, 1000000000000000ull, 10000000000000000ull,
                                    100000000000000000ull, 1000000000000000000ull,
                                    10000000000000000000ull};

/* ---- string builder ------------------------------------------------------------ */

void brt_sb_init(brt_sb *sb)
{
    sb->buf = NULL;
    sb->len = 0;
    sb->cap = 0;
}

void brt_sb_reserve(brt_sb *sb, int64_t extra)
{
    if (sb->len + extra + 1 <= (sb->cap < 0 ? -sb->cap : sb->cap))
        return;
    int64_t cap = sb->cap ? (sb->cap < 0 ? -sb->cap : sb->cap) : 64;
    while (cap < sb->len + extra + 1)
        cap *= 2;
    if (sb->cap < 0) { /* outgrew the caller's buffer: to the heap */
        char *heap = brt_xmalloc((size_t)cap);
        memcpy(heap, sb->buf, (size_t)sb->len);
        sb->buf = heap;
    } else {
        sb->buf = brt_xrealloc(sb->buf, (size_t)cap);
    }
    sb->cap = cap;
}

void brt_sb_lit(brt_sb *sb, const char *bytes, int64_t len)
{
    if (len <= 0)
        return;
    brt_sb_reserve(sb, len);
    memcpy(sb->buf + sb->len, bytes, (size_t)len);
    sb->len += len;
}

static void sb_char(brt_sb *sb, char c)
{
    brt_sb_reserve(sb, 1);
    sb->buf[sb->len++] = c;
}

static void sb_cstr(brt_sb *sb, const char *s)
{
    brt_sb_lit(sb, s, (int64_t)strlen(s));
}

/* n copies of a fill character given as its UTF-8 bytes. */
static void sb_fill(brt_sb *sb, const char *fill, int fill_len, int64_t n)
{
    if (n <= 0)
        return;
    brt_sb_reserve(sb, n * fill_len);
    for (int64_t i = 0; i < n; i++) {
        memcpy(sb->buf + sb->len, fill, (size_t)fill_len);
        sb->len += fill_len;
    }
}

/* Where n bytes (and a NUL) can be written at the end of s in place: s is
 * a growable block held only by the caller's variable, with the room; else
 * NULL. */
static char *str_room(brt_str *s, int64_t n)
{
    if (s->rc == 1 && s->cap - s->len >= n)
        return (char *)s->data + s->len;
    return NULL;
}

/* The typed pieces of an f-string: no descriptor, no spec. A number is
 * written straight into s when it has room (one 20-digit int, one 32-byte
 * float), else formatted on the stack and appended. */
brt_str *brt_str_append_int(brt_str *s, int64_t v)
{
    char *d = str_room(s, 20);
    if (d) {
        s->len += brt_format_i64(v, d);
        return s;
    }
    char tmp[24];
    return brt_str_append_bytes(s, tmp, brt_format_i64(v, tmp));
}

brt_str *brt_str_append_u64(brt_str *s, uint64_t v)
{
    char *d = str_room(s, 20);
    if (d) {
        s->len += brt_format_u64(v, d);
        return s;
    }
    char tmp[24];
    return brt_str_append_bytes(s, tmp, brt_format_u64(v, tmp));
}

brt_str *brt_str_append_float(brt_str *s, double v)
{
    char *d = str_room(s, 31);
    if (d) {
        s->len += brt_format_float(v, d);
        return s;
    }
    char tmp[32];
    return brt_str_append_bytes(s, tmp, brt_format_float(v, tmp));
}

brt_str *brt_str_append_bool(brt_str *s, bool v)
{
    return brt_str_append_bytes(s, v ? "true" : "false", v ? 4 : 5);
}

void brt_sb_int(brt_sb *sb, int64_t v)
{
    brt_sb_reserve(sb, 20);
    sb->len += brt_format_i64(v, sb->buf + sb->len);
}

void brt_sb_u64(brt_sb *sb, uint64_t v)
{
    brt_sb_reserve(sb, 20);
    sb->len += brt_format_u64(v, sb->buf + sb->len);
}

void brt_sb_float(brt_sb *sb, double v)
{
    brt_sb_reserve(sb, 31);
    sb->len += brt_format_float(v, sb->buf + sb->len);
}

void brt_sb_bool(brt_sb *sb, bool v)
{
    brt_sb_lit(sb, v ? "true" : "false", v ? 4 : 5);
}

void brt_sb_str(brt_sb *sb, brt_str *v)
{
    brt_sb_lit(sb, v->data, v->len);
}

brt_str *brt_str_of_int(int64_t v)
{
    char tmp[24];
    return brt_str_new(tmp, brt_format_i64(v, tmp));
}

brt_str *brt_str_of_u64(uint64_t v)
{
    char tmp[24];
    return brt_str_new(tmp, brt_format_u64(v, tmp));
}

brt_str *brt_str_of_float(double v)
{
    char tmp[32];
    return brt_str_new(tmp, brt_format_float(v, tmp));
}

brt_str *brt_str_of_bool(bool v)
{
    return brt_str_new(v ? "true" : "false", v ? 4 : 5);
}

brt_str *brt_str_append_val(brt_str *s, const brt_type *t, const void *valp, const char *spec)
{
    if (!spec && t->kind == BRT_STR) {
        brt_str *x = *(brt_str *const *)valp;
        return brt_str_append_bytes(s, x->data, x->len);
    }
    /* numbers fit the stack buffer; a long value moves to the heap */
    char room[128];
    brt_sb sb = {room, 0, -(int64_t)sizeof room};
    brt_sb_val(&sb, t, valp, spec);
    s = brt_str_append_bytes(s, sb.buf, sb.len);
    if (sb.cap > 0)
        free(sb.buf);
    return s;
}

brt_str *brt_sb_finish(brt_sb *sb)
{
    brt_str *s = brt_str_new(sb->buf, sb->len);
    if (sb->cap > 0) /* not the caller's buffer */
        free(sb->buf);
    brt_sb_init(sb);
    return s;
}

/* ---- floats: repr ------------------------------------------------------------------ */

/* The decimal digits (no dot, no sign) and exponent of |x| rounded to p
 * significant digits: x ~ 0.d1d2..dp * 10^(exp+1). */
#define MAX_DIGITS 800 /* a double's exact decimal expansion has at most 767 */

struct digits {
    char d[MAX_DIGITS + 8];
    int n;   /* digit count, trailing zeros stripped (at least 1) */
    int exp; /* decimal exponent of the first digit */
};

static void round_digits(double x, int p, struct digits *out)
{
    char tmp[MAX_DIGITS + 32];
    if (p > MAX_DIGITS)
        p = MAX_DIGITS;
    snprintf(tmp, sizeof tmp, "%.*e", p - 1, fabs(x));
    /* "d.ddde+XX" or "de+XX" */
    int n = 0;
    const char *s = tmp;
    for (; *s != 'e'; s++)
        if (*s != '.')
            out->d[n++] = *s;
    out->exp = atoi(s + 1);
    while (n > 1 && out->d[n - 1] == '0')
        n--;
    out->n = n;
    out->d[n] = 0;
}

/* The double nearest to the digits. */
static double digits_value(const struct digits *g)
{
    char tmp[MAX_DIGITS + 32];
    snprintf(tmp, sizeof tmp, "%c.%se%d", g->d[0], g->n > 1 ? g->d + 1 : "0", g->exp);
    return strtod(tmp, NULL);
}

/* Whether digits read back as |x|. */
static bool reads_back(const struct digits *g, double ax)
{
    return digits_value(g) == ax;
}

/* The neighbour of g one unit in its p-th digit up (dir > 0) or down. */
static void step_digits(struct digits *g, int p, int dir)
{
    while (g->n < p)
        g->d[g->n++] = '0'; /* put back the stripped zeros */
    int i = g->n - 1;
    if (dir > 0) {
        while (i >= 0 && g->d[i] == '9')
            g->d[i--] = '0';
        if (i < 0) {
            memmove(g->d + 1, g->d, (size_t)g->n);
            g->d[0] = '1';
            g->exp++;
            g->n++;
        } else {
            g->d[i]++;
        }
    } else {
        while (i >= 0 && g->d[i] == '0')
            g->d[i--] = '9';
        g->d[i]--; /* i >= 0: g is not zero */
        if (g->d[0] == '0') {
            memmove(g->d, g->d + 1, (size_t)g->n);
            g->n--;
            g->exp--;
            if (g->n == 0) { g->d[0] = '0'; g->n = 1; }
        }
    }
    while (g->n > 1 && g->d[g->n - 1] == '0')
        g->n--;
    g->d[g->n] = 0;
}

/* Rounds the 17 correctly rounded digits d17 (exponent e17) to p digits.
 * Rounding twice differs from rounding once only when the dropped part of
 * d17 is exactly 5000..., so that case asks the C library for the exact
 * p-digit rounding instead. */
static void digits_from17(const char *d17, int e17, double ax, int p, struct digits *g)
{
    if (p >= 17) {
        memcpy(g->d, d17, 17);
        g->n = 17;
        g->exp = e17;
    } else {
        bool tie = d17[p] == '5';
        for (int i = p + 1; i < 17 && tie; i++)
            tie = d17[i] == '0';
        if (tie) {
            round_digits(ax, p, g);
            return;
        }
        memcpy(g->d, d17, (size_t)p);
        g->n = p;
        g->exp = e17;
        g->d[p] = 0;
        if (d17[p] >= '5')
            step_digits(g, p, 1); /* strips zeros itself */
    }
    while (g->n > 1 && g->d[g->n - 1] == '0')
        g->n--;
    g->d[g->n] = 0;
}

/* Whether g reads back as ax. Clinger's fast path first: a digit string of
 * at most 15 digits is an exact double, and so is 10^k for k <= 22, so one
 * correctly rounded multiply or divide gives the nearest double, exactly
 * what strtod would; strtod handles the rest. */
static bool reads_back_fast(const struct digits *g, double ax)
{
    static const double pow10[] = {1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
                                   1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
    int q = g->exp - (g->n - 1); /* exponent of the last digit */
    if (g->n <= 15 && q >= -22 && q <= 22) {
        uint64_t m = 0;
        for (int i = 0; i < g->n; i++)
            m = m * 10 + (uint64_t)(g->d[i] - '0');
        double v = q >= 0 ? (double)m * pow10[q] : (double)m / pow10[-q];
        return v == ax;
    }
    return reads_back(g, ax);
}

/* The shortest digits of a finite nonzero x (see the top of the file). */
static void shortest_digits(double x, struct digits *out)
{
    double ax = fabs(x);
    char tmp[48], d17[24];
    snprintf(tmp, sizeof tmp, "%.16e", ax);
    int n = 0;
    const char *s = tmp;
    for (; *s != 'e'; s++)
        if (*s != '.')
            d17[n++] = *s;
    d17[n] = 0;
    int e17 = atoi(s + 1);
    int lo = 1, hi = 17;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        struct digits g;
        digits_from17(d17, e17, ax, mid, &g);
        if (reads_back_fast(&g, ax))
            hi = mid;
        else
            lo = mid + 1;
    }
    digits_from17(d17, e17, ax, lo, out);
    int m;
    if (lo > 1 && frexp(ax, &m) == 0.5 && ax > 0x1p-1022) {
        /* a power of two: the lopsided interval may admit the far
         * neighbour of the (lo-1)-digit rounding */
        struct digits g;
        round_digits(ax, lo - 1, &g);
        step_digits(&g, lo - 1, digits_value(&g) < ax ? 1 : -1);
        if (reads_back(&g, ax))
            *out = g;
    }
}

/* Lays out digits as repr does: fixed notation when -4 <= exp < sci_from,
 * with at least one digit after the point, else d[.ddd]e+XX. */
static int layout(const struct digits *g, bool neg, int sci_from, char *buf)
{
    char *p = buf;
    if (neg)
        *p++ = '-';
    int e = g->exp;
    if (e >= -4 && e < sci_from) {
        if (e < 0) {
            *p++ = '0';
            *p++ = '.';
            for (int i = 0; i < -e - 1; i++)
                *p++ = '0';
            memcpy(p, g->d, (size_t)g->n);
            p += g->n;
        } else {
            for (int i = 0; i <= e; i++)
                *p++ = i < g->n ? g->d[i] : '0';
            *p++ = '.';
            if (g->n > e + 1) {
                memcpy(p, g->d + e + 1, (size_t)(g->n - e - 1));
                p += g->n - e - 1;
            } else {
                *p++ = '0';
            }
        }
    } else {
        *p++ = g->d[0];
        if (g->n > 1) {
            *p++ = '.';
            memcpy(p, g->d + 1, (size_t)(g->n - 1));
            p += g->n - 1;
        }
        p += sprintf(p, "e%c%02d", e < 0 ? '-' : '+', e < 0 ? -e : e);
    }
    *p = 0;
    return (int)(p - buf);
}

int brt_format_float(double x, char *buf)
{
    if (isnan(x))
        return (int)(strcpy(buf, "nan"), 3);
    if (isinf(x)) {
        strcpy(buf, x < 0 ? "-inf" : "inf");
        return x < 0 ? 4 : 3;
    }
    if (x == 0) {
        strcpy(buf, signbit(x) ? "-0.0" : "0.0");
        return signbit(x) ? 4 : 3;
    }
    double ax = fabs(x);
    if (ax < 0x1p53 && ax == (double)(uint64_t)ax) {
        /* a whole number below 2^53: its neighbours are at most 1 apart, so
         * any other decimal of no more digits is an integer at least 1 away,
         * outside the half-ulp interval: the shortest digits are its own,
         * and below 10^16 repr writes them as "123.0" */
        int n = 0;
        if (x < 0)
            buf[n++] = '-';
        n += brt_format_u64((uint64_t)ax, buf + n);
        memcpy(buf + n, ".0", 3);
        return n + 2;
    }
    struct digits g;
    shortest_digits(x, &g);
    return layout(&g, x < 0, 16, buf);
}

/* ---- integers ------------------------------------------------------------------- */

/* Two digits at a time from the end: half the divisions of one at a time,
 * and the length known first, so the digits land in place (no reversal). */
static const char two_digits[201] = "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
                                    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
                                    "8081828384858687888990919293949596979899";

static inline int digits_u64(uint64_t v)
{
    /* floor(log10(2^bits)) by 1233/4096 ~ log10(2), then one comparison */
    int t = ((64 - __builtin_clzll(v | 1)) * 1233) >> 12;
    return t + 1 - ((v | 1) < ten_to[t]); /* v | 1: 0 has one digit */
}

int brt_len_u64(uint64_t v)
{
    return digits_u64(v);
}

int brt_len_i64(int64_t v)
{
    return v < 0 ? 1 + brt_len_u64(0 - (uint64_t)v) : brt_len_u64((uint64_t)v);
}

int brt_format_u64(uint64_t v, char *buf)
{
    int n = digits_u64(v);
    char *p = buf + n;
    *p = 0;
    while (v >= 100) {
        uint64_t q = v / 100;
        p -= 2;
        memcpy(p, two_digits + 2 * (v - q * 100), 2);
        v = q;
    }
    if (v >= 10) {
        p -= 2;
        memcpy(p, two_digits + 2 * v, 2);
    } else {
        *--p = (char)('0' + v);
    }
    return n;
}

int brt_format_i64(int64_t v, char *buf)
{
    if (v < 0) {
        buf[0] = '-';
        return 1 + brt_format_u64(0 - (uint64_t)v, buf + 1);
    }
    return brt_format_u64((uint64_t)v, buf);
}

int brt_format_u128(uint64_t lo, uint64_t hi, char *buf)
{
    unsigned __int128 v = ((unsigned __int128)hi << 64) | lo;
    char tmp[48];
    int n = 0;
    /* peel 19 digits at a time so most work is 64-bit */
    while (v >= 10000000000000000000ull) {
        unsigned __int128 r;
        v = brt_u128_divmod(v, 10000000000000000000ull, &r);
        uint64_t chunk = (uint64_t)r;
        for (int i = 0; i < 19; i++) {
            tmp[n++] = (char)('0' + chunk % 10);
            chunk /= 10;
        }
    }
    uint64_t r = (uint64_t)v;
    do {
        tmp[n++] = (char)('0' + r % 10);
        r /= 10;
    } while (r);
    for (int i = 0; i < n; i++)
        buf[i] = tmp[n - 1 - i];
    buf[n] = 0;
    return n;
}

int brt_format_i128(brt_i128 v, char *buf)
{
    if ((int64_t)v.hi < 0) {
        unsigned __int128 m = 0 - (((unsigned __int128)v.hi << 64) | v.lo);
        buf[0] = '-';
        return 1 + brt_format_u128((uint64_t)m, (uint64_t)(m >> 64), buf + 1);
    }
    return brt_format_u128(v.lo, v.hi, buf);
}

/* ---- str(), print's text ---------------------------------------------------------- */

/* Decodes one UTF-8 code point at s (n bytes left); returns its length, or 0
 * for an invalid sequence. */
static int utf8_decode(const unsigned char *s, int64_t n, uint32_t *cp)
{
    if (s[0] < 0x80) { *cp = s[0]; return 1; }
    int len;
    uint32_t c, min;
    if ((s[0] & 0xe0) == 0xc0) { len = 2; c = s[0] & 0x1f; min = 0x80; }
    else if ((s[0] & 0xf0) == 0xe0) { len = 3; c = s[0] & 0x0f; min = 0x800; }
    else if ((s[0] & 0xf8) == 0xf0) { len = 4; c = s[0] & 0x07; min = 0x10000; }
    else return 0;
    if (n < len)
        return 0;
    for (int i = 1; i < len; i++) {
        if ((s[i] & 0xc0) != 0x80)
            return 0;
        c = (c << 6) | (s[i] & 0x3f);
    }
    if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
        return 0;
    *cp = c;
    return len;
}

/* Code points Rust's Debug writes as \u{..}: controls and the invisible
 * format characters (a subset of Rust's is_printable table that covers
 * what text realistically holds). */
static bool debug_escaped(uint32_t c)
{
    return c < 0x20 || (c >= 0x7f && c <= 0x9f) || c == 0xad || (c >= 0x200b && c <= 0x200f) ||
           (c >= 0x2028 && c <= 0x202e) || (c >= 0x2060 && c <= 0x2064) || c == 0xfeff;
}

void brt_sb_debug_str(brt_sb *sb, const char *s, int64_t len)
{
    const unsigned char *p = (const unsigned char *)s;
    sb_char(sb, '"');
    for (int64_t i = 0; i < len;) {
        uint32_t c;
        int k = utf8_decode(p + i, len - i, &c);
        if (k == 0) { /* not UTF-8: one replacement per bad byte */
            sb_cstr(sb, "\\u{fffd}");
            i++;
            continue;
        }
        switch (c) {
        case '"': sb_cstr(sb, "\\\""); break;
        case '\\': sb_cstr(sb, "\\\\"); break;
        case '\n': sb_cstr(sb, "\\n"); break;
        case '\r': sb_cstr(sb, "\\r"); break;
        case '\t': sb_cstr(sb, "\\t"); break;
        case 0: sb_cstr(sb, "\\0"); break;
        default:
            if (debug_escaped(c)) {
                char tmp[16];
                snprintf(tmp, sizeof tmp, "\\u{%x}", c);
                sb_cstr(sb, tmp);
            } else {
                brt_sb_lit(sb, s + i, k);
            }
        }
        i += k;
    }
    sb_char(sb, '"');
}

void brt_sb_plain(brt_sb *sb, const brt_type *t, const void *valp)
{
    char tmp[64];
    switch (t->kind) {
    case BRT_INT:
        brt_sb_int(sb, *(const int64_t *)valp);
        return;
    case BRT_U64:
        brt_sb_u64(sb, *(const uint64_t *)valp);
        return;
    case BRT_I128:
        brt_sb_lit(sb, tmp, brt_format_i128(*(const brt_i128 *)valp, tmp));
        return;
    case BRT_FLOAT:
        brt_sb_lit(sb, tmp, brt_format_float(*(const double *)valp, tmp));
        return;
    case BRT_BOOL:
        sb_cstr(sb, *(const bool *)valp ? "true" : "false");
        return;
    case BRT_STR: {
        const brt_str *s = *(brt_str *const *)valp;
        brt_sb_lit(sb, s->data, s->len);
        return;
    }
    case BRT_ARR: {
        const brt_arr *a = *(brt_arr *const *)valp;
        const brt_type *e = t->elem ? t->elem : a->elem;
        size_t es = brt_type_size(e);
        sb_char(sb, '[');
        for (int64_t i = 0; i < a->len; i++) {
            if (i)
                brt_sb_lit(sb, ", ", 2);
            const void *ep = (const char *)a->data + (size_t)i * es;
            if (e->kind == BRT_STR) {
                const brt_str *s = *(brt_str *const *)ep;
                brt_sb_debug_str(sb, s->data, s->len);
            } else {
                brt_sb_plain(sb, e, ep);
            }
        }
        sb_char(sb, ']');
        return;
    }
    case BRT_TUPLE: {
        /* (1, 2.5, "s"): strings quoted as inside arrays; a struct is
         * Seg(lo=0.0, name="a"); an Option Some("a") or None */
        if (t->option && !*(const bool *)valp) {
            brt_sb_lit(sb, "None", 4);
            return;
        }
        if (t->option)
            brt_sb_lit(sb, "Some", 4);
        if (t->name)
            brt_sb_lit(sb, t->name, (int64_t)strlen(t->name));
        sb_char(sb, '(');
        for (int i = t->option ? 1 : 0; i < t->nfields; i++) {
            if (i > (t->option ? 1 : 0))
                brt_sb_lit(sb, ", ", 2);
            if (t->fnames) {
                brt_sb_lit(sb, t->fnames[i], (int64_t)strlen(t->fnames[i]));
                sb_char(sb, '=');
            }
            const void *fp = (const char *)valp + t->offsets[i];
            if (t->fields[i]->kind == BRT_STR) {
                const brt_str *s = *(brt_str *const *)fp;
                brt_sb_debug_str(sb, s->data, s->len);
            } else {
                brt_sb_plain(sb, t->fields[i], fp);
            }
        }
        sb_char(sb, ')');
        return;
    }
    case BRT_FN: /* the checker prints no function value */
        brt_sb_lit(sb, "<function>", 10);
        return;
    }
}

brt_str *brt_to_str(const brt_type *t, const void *valp)
{
    if (t->kind == BRT_STR) {
        brt_str *s = *(brt_str *const *)valp;
        brt_retain(s);
        return s;
    }
    brt_sb sb;
    brt_sb_init(&sb);
    brt_sb_plain(&sb, t, valp);
    return brt_sb_finish(&sb);
}

/* ---- format specs (SPEC 6.3) -------------------------------------------------------- */

#define SPEC_MAX_NUM 1000000 /* width and precision limit */

struct spec {
    char fill[4];
    int fill_len;
    char align; /* 0, '<', '>', '^', or '=' (only from the 0 flag) */
    char sign;  /* 0, '+', '-', ' ' */
    bool comma;
    int64_t width, prec; /* -1: none */
    char type;           /* 0: none */
};

/* What a spec is applied to: numbers align right, text left. */
enum spec_class { SC_INT, SC_FLOAT, SC_TEXT, SC_NONE };

static enum spec_class class_of(brt_kind k)
{
    switch (k) {
    case BRT_INT: case BRT_I128: case BRT_U64: return SC_INT;
    case BRT_FLOAT: return SC_FLOAT;
    case BRT_BOOL: case BRT_STR: return SC_TEXT;
    case BRT_ARR: case BRT_TUPLE: case BRT_FN: return SC_NONE;
    }
    return SC_NONE;
}

static const char *kind_name(brt_kind k)
{
    switch (k) {
    case BRT_INT: return "int";
    case BRT_I128: return "i128";
    case BRT_U64: return "u64";
    case BRT_FLOAT: return "float";
    case BRT_BOOL: return "bool";
    case BRT_STR: return "str";
    case BRT_ARR: return "an array";
    case BRT_TUPLE: return "a tuple";  /* (structs and Options too: the checker names them) */
    case BRT_FN: return "a function";
    }
    return "?";
}

static bool is_align(char c)
{
    return c == '<' || c == '>' || c == '^' || c == '=';
}

/* Reads a decimal number; returns false when it exceeds SPEC_MAX_NUM. */
static bool read_num(const char **pp, int64_t *out)
{
    const char *p = *pp;
    int64_t v = 0;
    while (*p >= '0' && *p <= '9') {
        v = v * 10 + (*p++ - '0');
        if (v > SPEC_MAX_NUM)
            return false;
    }
    *pp = p;
    *out = v;
    return true;
}

/* Parses spec for a value of class sc. Returns NULL, or why it is invalid
 * (a fixed message; brt_spec_check adds the spec and the kind). */
static const char *spec_parse(const char *s, enum spec_class sc, struct spec *f)
{
    f->fill[0] = ' ';
    f->fill_len = 1;
    f->align = 0;
    f->sign = 0;
    f->comma = false;
    f->width = -1;
    f->prec = -1;
    f->type = 0;
    const char *p = s;
    bool fill_given = false;
    uint32_t cp;
    int k = *p ? utf8_decode((const unsigned char *)p, (int64_t)strlen(p), &cp) : 0;
    if (k > 0 && is_align(p[k])) {
        memcpy(f->fill, p, (size_t)k);
        f->fill_len = k;
        fill_given = true;
        f->align = p[k];
        p += k + 1;
    } else if (is_align(*p)) {
        f->align = *p++;
    }
    if (f->align == '=')
        return "'=' alignment is not supported";
    if (*p == '+' || *p == '-' || *p == ' ')
        f->sign = *p++;
    if (*p == '#')
        return "'#' is not supported";
    if (*p == 'z')
        return "'z' is not supported";
    if (!fill_given && *p == '0') {
        /* CPython's zero flag: fill with '0'; numbers pad after the sign */
        f->fill[0] = '0';
        f->fill_len = 1;
        if (!f->align && sc != SC_TEXT)
            f->align = '=';
        p++;
    }
    if (*p >= '0' && *p <= '9' && !read_num(&p, &f->width))
        return "the width is too large (the limit is 1000000)";
    if (*p == ',') {
        f->comma = true;
        p++;
    }
    if (*p == '_')
        return "'_' grouping is not supported";
    if (*p == '.') {
        p++;
        if (!(*p >= '0' && *p <= '9'))
            return "'.' needs a precision after it";
        if (!read_num(&p, &f->prec))
            return "the precision is too large (the limit is 1000000)";
    }
    if (*p) {
        f->type = *p++;
        if (*p)
            return "unexpected text after the format type";
    }
    return NULL;
}

/* Validates a parsed spec for a kind; NULL when fine. */
static const char *spec_validate(const struct spec *f, enum spec_class sc, char *why, size_t whylen)
{
    switch (sc) {
    case SC_NONE:
        return "arrays take no format spec";
    case SC_INT:
        if (f->type && !strchr("dxXob", f->type)) {
            snprintf(why, whylen, "format type '%c' is not one of d x X o b", f->type);
            return why;
        }
        if (f->prec >= 0)
            return "integers take no precision";
        if (f->comma && f->type && f->type != 'd') {
            snprintf(why, whylen, "',' cannot be used with '%c'", f->type);
            return why;
        }
        return NULL;
    case SC_FLOAT:
        if (f->type && !strchr("fFeEgG%", f->type)) {
            snprintf(why, whylen, "format type '%c' is not one of f F e E g G %%", f->type);
            return why;
        }
        return NULL;
    case SC_TEXT:
        if (f->type && f->type != 's') {
            snprintf(why, whylen, "format type '%c' is not 's'", f->type);
            return why;
        }
        if (f->sign)
            return "a sign is not allowed for text";
        if (f->comma)
            return "',' is not allowed for text";
        return NULL;
    }
    return NULL;
}

const char *brt_spec_check(brt_kind k, const char *spec)
{
    /* compile time only, one thread: a static buffer is fine */
    static char msg[256];
    char why[128];
    struct spec f;
    enum spec_class sc = class_of(k);
    if (sc == SC_NONE && spec && *spec) {
        snprintf(msg, sizeof msg, "format spec '%.64s' is not valid for an array: arrays take no format spec", spec);
        return msg;
    }
    if (!spec || !*spec)
        return NULL;
    const char *e = spec_parse(spec, sc, &f);
    if (!e)
        e = spec_validate(&f, sc, why, sizeof why);
    if (!e)
        return NULL;
    snprintf(msg, sizeof msg, "format spec '%.64s' is not valid for %s: %s", spec, kind_name(k), e);
    return msg;
}

/* Count of code points in UTF-8 text (invalid bytes count one each). */
static int64_t cp_count(const char *s, int64_t n)
{
    int64_t c = 0;
    for (int64_t i = 0; i < n; i++)
        c += ((unsigned char)s[i] & 0xc0) != 0x80;
    return c;
}

/* Byte length of the first m code points of s. */
static int64_t cp_prefix(const char *s, int64_t n, int64_t m)
{
    int64_t i = 0;
    while (i < n && m > 0) {
        i++;
        while (i < n && ((unsigned char)s[i] & 0xc0) == 0x80)
            i++;
        m--;
    }
    return i;
}

/* Appends body padded to the width by alignment (default: def). */
static void pad_text(brt_sb *sb, const struct spec *f, char def, const char *body, int64_t blen)
{
    int64_t w = cp_count(body, blen);
    int64_t pad = f->width > w ? f->width - w : 0;
    char align = f->align ? f->align : def;
    int64_t left = align == '>' ? pad : align == '^' ? pad / 2 : 0;
    sb_fill(sb, f->fill, f->fill_len, left);
    brt_sb_lit(sb, body, blen);
    sb_fill(sb, f->fill, f->fill_len, pad - left);
}

/* Appends a number laid out as CPython's fill_number does: body is the
 * unsigned text ("1234.5", "1e+16", "ff", "inf"); its leading digits get
 * grouped and, with the zero flag, zero padded to the width. */
static void emit_number(brt_sb *sb, const struct spec *f, bool neg, const char *body, int64_t blen)
{
    const char *sign = neg ? "-" : f->sign == '+' ? "+" : f->sign == ' ' ? " " : "";
    int64_t slen = (int64_t)strlen(sign);
    int64_t nd = 0;
    while (nd < blen && body[nd] >= '0' && body[nd] <= '9')
        nd++;
    const char *rest = body + nd;
    int64_t rlen = blen - nd;
    char align = f->align ? f->align : '>';
    int64_t min_width = 0;
    if (f->fill_len == 1 && f->fill[0] == '0' && align == '=')
        min_width = f->width - slen - rlen;

    /* the digits, grouped from the right (CPython's InsertThousandsGrouping),
     * on the stack unless zero padding makes them long */
    char room[160];
    brt_sb g = {room, 0, -(int64_t)sizeof room};
    if (!f->comma && (nd == 0 || min_width <= nd)) {
        /* nothing to group or pad: the digits as they are */
        g.buf = (char *)body;
        g.len = nd;
    } else if (nd > 0) {
        /* built reversed, then flipped */
        int64_t remaining = nd, mw = min_width;
        const char *d = body + nd; /* one past the next digit to take */
        for (bool first = true;; first = false) {
            int64_t l;
            if (f->comma) {
                l = remaining > mw ? remaining : mw;
                if (l < 1) l = 1;
                if (l > 3) l = 3;
            } else {
                l = remaining > mw ? remaining : mw;
                if (l < 1) l = 1;
            }
            if (!first)
                sb_char(&g, ',');
            int64_t nchars = remaining < l ? remaining : l;
            for (int64_t i = 0; i < nchars; i++)
                sb_char(&g, *--d);
            for (int64_t i = nchars; i < l; i++)
                sb_char(&g, '0');
            remaining -= nchars;
            mw -= l;
            if (!f->comma || (remaining <= 0 && mw <= 0))
                break;
            mw -= 1;
        }
        for (int64_t i = 0, j = g.len - 1; i < j; i++, j--) {
            char c = g.buf[i];
            g.buf[i] = g.buf[j];
            g.buf[j] = c;
        }
    }
    int64_t total = slen + g.len + rlen;
    int64_t pad = f->width > total ? f->width - total : 0;
    int64_t left = align == '>' ? pad : align == '^' ? pad / 2 : 0;
    if (align == '=') {
        brt_sb_lit(sb, sign, slen);
        sb_fill(sb, f->fill, f->fill_len, pad);
        brt_sb_lit(sb, g.buf, g.len);
        brt_sb_lit(sb, rest, rlen);
    } else {
        sb_fill(sb, f->fill, f->fill_len, left);
        brt_sb_lit(sb, sign, slen);
        brt_sb_lit(sb, g.buf, g.len);
        brt_sb_lit(sb, rest, rlen);
        sb_fill(sb, f->fill, f->fill_len, pad - left);
    }
    if (g.cap > 0)
        free(g.buf);
}

static void format_int(brt_sb *sb, const struct spec *f, bool neg, unsigned __int128 mag)
{
    char body[140];
    int n = 0;
    switch (f->type) {
    case 'x': case 'X': case 'o': case 'b': {
        int bits = f->type == 'o' ? 3 : f->type == 'b' ? 1 : 4; /* bases are powers of two */
        const char *dig = f->type == 'X' ? "0123456789ABCDEF" : "0123456789abcdef";
        char tmp[140];
        do {
            tmp[n++] = dig[(int)(mag & ((1u << bits) - 1))];
            mag >>= bits;
        } while (mag);
        for (int i = 0; i < n; i++)
            body[i] = tmp[n - 1 - i];
        break;
    }
    default:
        n = brt_format_u128((uint64_t)mag, (uint64_t)(mag >> 64), body);
        break;
    }
    emit_number(sb, f, neg, body, n);
}

/* printf's "%.{prec}f" of a finite ax >= 0 without printf, where that is
 * exact and cheap: ax < 2^53 and prec <= 17. ax is m / 2^s (m < 2^53, s >=
 * 0), so its integer part is m >> s and its fraction f / 2^s with f < 2^53;
 * the prec digits after the point are f * 10^prec / 2^s (below 2^110, so
 * 128 bits hold it) rounded to nearest with ties to even on the exact
 * value, as glibc's printf rounds, carrying into the integer part. Returns
 * the length, or -1 to leave the value to printf. buf needs 40 bytes. */
static int fixed_digits(double ax, int64_t prec, char *buf)
{
    if (!(ax < 0x1p53) || prec > 17)
        return -1;
    uint64_t bits;
    memcpy(&bits, &ax, sizeof bits);
    int be = (int)(bits >> 52); /* the sign bit is clear */
    uint64_t m = bits & ((1ull << 52) - 1);
    if (be)
        m |= 1ull << 52;
    else
        be = 1; /* subnormal */
    int s = 1075 - be; /* ax = m / 2^s; ax < 2^53 so s >= 0 */
    uint64_t ip = s >= 64 ? 0 : m >> s;
    uint64_t fr = s >= 64 ? m : m & ((1ull << s) - 1); /* s == 0: no fraction */
    uint64_t q = 0; /* the digits after the point */
    if (fr && prec > 0 && s < 120) { /* s >= 120: fr * 10^prec < 2^110 < half of 2^s, so 0 */
        unsigned __int128 p = (unsigned __int128)fr * ten_to[prec];
        unsigned __int128 half = (unsigned __int128)1 << (s - 1);
        q = (uint64_t)(p >> s);
        unsigned __int128 rem = p - ((unsigned __int128)q << s);
        if (rem > half || (rem == half && (q & 1)))
            q++;
        if (q == ten_to[prec]) {
            q = 0;
            ip++;
        }
    } else if (fr && prec == 0 && s <= 54) { /* s > 54: fr < 2^53 < half */
        uint64_t half = 1ull << (s - 1);
        if (fr > half || (fr == half && (ip & 1)))
            ip++;
    }
    int n = brt_format_u64(ip, buf);
    if (prec > 0) {
        buf[n++] = '.';
        for (int64_t i = prec - 1; i >= 0; i--) {
            buf[n + i] = (char)('0' + q % 10);
            q /= 10;
        }
        n += (int)prec;
        buf[n] = 0;
    }
    return n;
}

static void format_float_spec(brt_sb *sb, const struct spec *f, double x)
{
    char small[64];
    char *body = small;
    char *heap = NULL;
    bool neg = signbit(x) && !isnan(x);
    double ax = fabs(x);
    if (f->type == 0 && f->prec < 0) {
        brt_format_float(ax, body);
    } else if (f->type == 0) {
        /* Python's general format with add_dot_0: 'g' that switches to
         * scientific at exponent p-1 and keeps a digit after the point;
         * beyond 17 digits Python shows the exact expansion, as %e does */
        if (!isfinite(ax)) {
            brt_format_float(ax, body);
        } else {
            struct digits g;
            int64_t p = f->prec == 0 ? 1 : f->prec;
            round_digits(ax, (int)(p > MAX_DIGITS ? MAX_DIGITS : p), &g);
            size_t need = (size_t)g.n + (g.exp > 0 ? (size_t)g.exp : 0) + 16;
            if (need > sizeof small)
                body = heap = brt_xmalloc(need);
            layout(&g, false, (int)(p - 1), body);
        }
    } else {
        char cfmt[8];
        char t = f->type == '%' ? 'f' : f->type;
        int64_t prec = f->prec < 0 ? 6 : f->prec;
        double v = f->type == '%' ? ax * 100 : ax;
        int n = t == 'f' || t == 'F' ? fixed_digits(v, prec, small) : -1;
        if (n < 0) {
            snprintf(cfmt, sizeof cfmt, "%%.*%c", t);
            n = snprintf(small, sizeof small, cfmt, (int)prec, v);
        }
        if (n + 2 > (int)sizeof small) { /* only from printf: fixed_digits' text is short */
            snprintf(cfmt, sizeof cfmt, "%%.*%c", t);
            heap = brt_xmalloc((size_t)n + 2);
            snprintf(heap, (size_t)n + 1, cfmt, (int)prec, v);
            body = heap;
        }
        if (f->type == '%')
            strcat(body, "%");
    }
    emit_number(sb, f, neg, body, (int64_t)strlen(body));
    free(heap);
}

void brt_sb_val(brt_sb *sb, const brt_type *t, const void *valp, const char *spec)
{
    if (!spec || !*spec) {
        brt_sb_plain(sb, t, valp);
        return;
    }
    struct spec f;
    enum spec_class sc = class_of(t->kind);
    if (sc == SC_NONE || spec_parse(spec, sc, &f)) {
        /* the compiler checked the spec; if it did not, print plainly */
        brt_sb_plain(sb, t, valp);
        return;
    }
    switch (t->kind) {
    case BRT_INT: {
        int64_t v = *(const int64_t *)valp;
        format_int(sb, &f, v < 0, v < 0 ? (unsigned __int128)(0 - (uint64_t)v) : (unsigned __int128)v);
        return;
    }
    case BRT_U64:
        format_int(sb, &f, false, *(const uint64_t *)valp);
        return;
    case BRT_I128: {
        const brt_i128 *v = valp;
        unsigned __int128 u = ((unsigned __int128)v->hi << 64) | v->lo;
        bool neg = (int64_t)v->hi < 0;
        format_int(sb, &f, neg, neg ? 0 - u : u);
        return;
    }
    case BRT_FLOAT:
        format_float_spec(sb, &f, *(const double *)valp);
        return;
    case BRT_BOOL:
    case BRT_STR: {
        const char *s;
        int64_t n;
        if (t->kind == BRT_BOOL) {
            s = *(const bool *)valp ? "true" : "false";
            n = (int64_t)strlen(s);
        } else {
            const brt_str *str = *(brt_str *const *)valp;
            s = str->data;
            n = str->len;
        }
        if (f.prec >= 0)
            n = cp_prefix(s, n, f.prec);
        pad_text(sb, &f, '<', s, n);
        return;
    }
    case BRT_ARR:
    case BRT_TUPLE:
    case BRT_FN:
        brt_sb_plain(sb, t, valp);
        return;
    }
}

/* ---- int(s), float(s) ------------------------------------------------------------- */

BRT_NORETURN static void bad_text(const brt_str *s, const char *type, const brt_loc *l)
{
    brt_sb sb;
    brt_sb_init(&sb);
    sb_cstr(&sb, "cannot convert ");
    brt_sb_debug_str(&sb, s->data, s->len);
    sb_cstr(&sb, " to ");
    sb_cstr(&sb, type);
    sb_char(&sb, 0);
    brt_panic_owned(l, sb.buf);
}

static bool is_digit(char c)
{
    return c >= '0' && c <= '9';
}

/* Copies a digit run with '_' only between digits from *pp to *op;
 * returns false when there is no digit or a misplaced '_'. */
static bool digit_run(const char **pp, const char *end, char **op)
{
    const char *p = *pp;
    char *o = *op; /* locals: through the pointers, every byte would be a store and a load */
    if (p >= end || !is_digit(*p))
        return false;
    while (p < end) {
        if (is_digit(*p)) {
            *o++ = *p++;
        } else if (*p == '_' && p + 1 < end && is_digit(p[1])) {
            p++;
        } else {
            break;
        }
    }
    *pp = p;
    *op = o;
    return true;
}

bool brt_str_to_int(brt_str *s, int64_t *out)
{
    const char *p = s->data, *end = s->data + s->len;
    bool neg = false;
    if (p < end && (*p == '+' || *p == '-'))
        neg = *p++ == '-';
    if (p >= end || !is_digit(*p))
        return false;
    uint64_t limit = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
    uint64_t v = 0;
    bool over = false;
    while (p < end) {
        if (is_digit(*p)) {
            unsigned d = (unsigned)(*p++ - '0');
            if (v > (limit - d) / 10)
                over = true;
            else
                v = v * 10 + d;
        } else if (*p == '_' && p + 1 < end && is_digit(p[1]) && is_digit(p[-1])) {
            p++;
        } else {
            return false;
        }
    }
    if (over)
        return false;
    *out = neg ? (int64_t)(0 - v) : (int64_t)v;
    return true;
}

int64_t brt_parse_int(brt_str *s, const brt_loc *l)
{
    int64_t v;
    /* Digits whose value does not fit say so the same way bad text does,
     * quoting the text, as int(1e300) quotes the float. */
    if (!brt_str_to_int(s, &v))
        bad_text(s, "int", l);
    return v;
}

static bool word_ci(const char *p, const char *end, const char *w)
{
    size_t n = strlen(w);
    if ((size_t)(end - p) != n)
        return false;
    for (size_t i = 0; i < n; i++)
        if ((p[i] | 0x20) != w[i])
            return false;
    return true;
}

bool brt_str_to_float(brt_str *s, double *out)
{
    const char *p = s->data, *end = s->data + s->len;
    char small[64]; /* the usual number: no malloc */
    char *clean = s->len + 2 <= (int64_t)sizeof small ? small : brt_xmalloc((size_t)s->len + 2);
    char *o = clean;
    if (p < end && (*p == '+' || *p == '-'))
        *o++ = *p++;
    if (word_ci(p, end, "inf") || word_ci(p, end, "infinity") || word_ci(p, end, "nan")) {
        bool nan = (*p | 0x20) == 'n';
        bool neg = o > clean && clean[0] == '-'; /* no sign: clean[0] was never written */
        if (clean != small)
            free(clean);
        *out = nan ? NAN : neg ? -INFINITY : INFINITY;
        return true;
    }
    bool ok = true;
    bool int_part = digit_run(&p, end, &o);
    bool frac_part = false;
    if (p < end && *p == '.') {
        *o++ = *p++;
        frac_part = digit_run(&p, end, &o);
    }
    if (!int_part && !frac_part)
        ok = false;
    if (ok && p < end && (*p == 'e' || *p == 'E')) {
        *o++ = *p++;
        if (p < end && (*p == '+' || *p == '-'))
            *o++ = *p++;
        if (!digit_run(&p, end, &o))
            ok = false;
    }
    if (p != end)
        ok = false;
    *o = 0;
    if (!ok) {
        if (clean != small)
            free(clean);
        return false;
    }
    errno = 0;
    *out = strtod(clean, NULL); /* overflow gives inf, as Python's float() */
    if (clean != small)
        free(clean);
    return true;
}

double brt_parse_float(brt_str *s, const brt_loc *l)
{
    double v;
    if (!brt_str_to_float(s, &v))
        bad_text(s, "float", l);
    return v;
}
