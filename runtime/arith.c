/*
 * arith.c: checked integer arithmetic that is not inline (SPEC section 4).
 *
 * The runtime is always compiled by gcc, so the portable slow paths that tcc
 * builds call can simply use __builtin_*_overflow, and i128 is gcc's
 * __int128 inside: brt_i128 (two 64-bit halves, two's complement) is only
 * the calling convention the generated C can see. Nothing here may call
 * libgcc (tcc does not link it): division, popcount and the conversions
 * between __int128 and double are written out below. Conversions from float
 * (SPEC section 3) live here too: they panic "cannot convert X to int" with
 * X printed as section 6.2 prints floats.
 */
#include "rt_internal.h"

#include <math.h>

typedef __int128 i128;
typedef unsigned __int128 u128;

#define I128_MAX ((i128)(~(u128)0 >> 1))
#define I128_MIN (-I128_MAX - 1)

static inline i128 from(brt_i128 v)
{
    return (i128)(((u128)v.hi << 64) | v.lo);
}

static inline brt_i128 to(i128 v)
{
    brt_i128 r;
    r.lo = (uint64_t)(u128)v;
    r.hi = (uint64_t)((u128)v >> 64);
    return r;
}

int64_t brt_mul_i64_slow(int64_t a, int64_t b, const brt_loc *l)
{
    int64_t r;
    if (__builtin_mul_overflow(a, b, &r))
        brt_panic(l, BRT_OV_MUL);
    return r;
}

uint64_t brt_mul_u64_slow(uint64_t a, uint64_t b, const brt_loc *l)
{
    uint64_t r;
    if (__builtin_mul_overflow(a, b, &r))
        brt_panic(l, BRT_OV_MUL);
    return r;
}

/* ---- libgcc-free helpers ------------------------------------------------------- */

int brt_popcount64(uint64_t x)
{
    x = x - ((x >> 1) & 0x5555555555555555ull);
    x = (x & 0x3333333333333333ull) + ((x >> 2) & 0x3333333333333333ull);
    x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0full;
    return (int)((x * 0x0101010101010101ull) >> 56);
}

static int clz128(u128 x)
{
    uint64_t hi = (uint64_t)(x >> 64), lo = (uint64_t)x;
    return hi ? __builtin_clzll(hi) : lo ? 64 + __builtin_clzll(lo) : 128;
}

/* Shift-subtract long division, one quotient bit per step from the top of
 * the divisor's alignment: at most 128 steps, and the common cases (both in
 * 64 bits) use the hardware. */
u128 brt_u128_divmod(u128 n, u128 d, u128 *rem)
{
    if ((n >> 64) == 0 && (d >> 64) == 0) {
        uint64_t a = (uint64_t)n, b = (uint64_t)d;
        if (rem)
            *rem = a % b;
        return a / b;
    }
    if (d > n) {
        if (rem)
            *rem = n;
        return 0;
    }
    int shift = clz128(d) - clz128(n);
    d <<= shift;
    u128 q = 0;
    for (int i = 0; i <= shift; i++) {
        q <<= 1;
        if (n >= d) {
            n -= d;
            q |= 1;
        }
        d >>= 1;
    }
    if (rem)
        *rem = n;
    return q;
}

/* Signed division truncating toward zero (callers exclude 0 and MIN / -1). */
static i128 sdiv(i128 x, i128 y, i128 *rem)
{
    bool nx = x < 0, ny = y < 0;
    u128 r;
    u128 q = brt_u128_divmod(nx ? 0 - (u128)x : (u128)x, ny ? 0 - (u128)y : (u128)y, &r);
    if (rem)
        *rem = nx ? -(i128)r : (i128)r; /* the remainder takes the dividend's sign */
    return nx != ny ? -(i128)q : (i128)q;
}

/* Correctly rounded: the top 64 bits with a sticky bit for the rest round
 * to 53 bits exactly as the full value would (u64 -> double is inline). */
static double u128_to_double(u128 u)
{
    if ((u >> 64) == 0)
        return (double)(uint64_t)u;
    int s = 64 - clz128(u); /* bits beyond 64, 1..64 */
    uint64_t top = (uint64_t)(u >> s);
    uint64_t sticky = (u & (((u128)1 << s) - 1)) != 0;
    return ldexp((double)(top | sticky), s);
}

/* |x| < 2^127 and x is finite: truncate toward zero. */
static i128 double_to_i128(double x)
{
    if (fabs(x) < 0x1p63)
        return (int64_t)x;
    int e;
    double m = frexp(fabs(x), &e); /* |x| = m * 2^e, 0.5 <= m < 1, e >= 64 */
    u128 u = (u128)(uint64_t)ldexp(m, 53) << (e - 53); /* exact: |x| is an integer */
    return x < 0 ? -(i128)u : (i128)u;
}

int64_t brt_count_ones_u64(uint64_t a) { return brt_popcount64(a); }
int64_t brt_leading_zeros_u64(uint64_t a) { return a ? __builtin_clzll(a) : 64; }
int64_t brt_trailing_zeros_u64(uint64_t a) { return a ? __builtin_ctzll(a) : 64; }

/* ---- i128 ------------------------------------------------------------------ */

brt_i128 brt_i128_from_i64(int64_t v) { return to(v); }
brt_i128 brt_i128_from_u64(uint64_t v) { return to((i128)v); }

brt_i128 brt_add_i128(brt_i128 a, brt_i128 b, const brt_loc *l)
{
    i128 r;
    if (__builtin_add_overflow(from(a), from(b), &r))
        brt_panic(l, BRT_OV_ADD);
    return to(r);
}

brt_i128 brt_sub_i128(brt_i128 a, brt_i128 b, const brt_loc *l)
{
    i128 r;
    if (__builtin_sub_overflow(from(a), from(b), &r))
        brt_panic(l, BRT_OV_SUB);
    return to(r);
}

brt_i128 brt_mul_i128(brt_i128 a, brt_i128 b, const brt_loc *l)
{
    i128 r;
    if (__builtin_mul_overflow(from(a), from(b), &r))
        brt_panic(l, BRT_OV_MUL);
    return to(r);
}

brt_i128 brt_div_i128(brt_i128 a, brt_i128 b, const brt_loc *l)
{
    i128 x = from(a), y = from(b);
    if (y == 0)
        brt_panic(l, BRT_DIV_ZERO);
    if (y == -1 && x == I128_MIN)
        brt_panic(l, BRT_OV_DIV);
    return to(sdiv(x, y, NULL));
}

brt_i128 brt_mod_i128(brt_i128 a, brt_i128 b, const brt_loc *l)
{
    i128 x = from(a), y = from(b);
    if (y == 0)
        brt_panic(l, BRT_DIV_ZERO);
    if (y == -1)
        return to(0); /* MIN % -1 traps in C; the answer is 0 */
    i128 r;
    sdiv(x, y, &r);
    return to(r);
}

brt_i128 brt_neg_i128(brt_i128 a, const brt_loc *l)
{
    i128 x = from(a);
    if (x == I128_MIN)
        brt_panic(l, BRT_OV_NEG);
    return to(-x);
}

brt_i128 brt_abs_i128(brt_i128 a, const brt_loc *l)
{
    i128 x = from(a);
    if (x == I128_MIN)
        brt_panic(l, BRT_OV_NEG);
    return to(x < 0 ? -x : x);
}

brt_i128 brt_shl_i128(brt_i128 a, int64_t s, const brt_loc *l)
{
    if ((uint64_t)s >= 128)
        brt_panic(l, BRT_SHIFT);
    return to((i128)((u128)from(a) << s));
}

brt_i128 brt_shr_i128(brt_i128 a, int64_t s, const brt_loc *l)
{
    if ((uint64_t)s >= 128)
        brt_panic(l, BRT_SHIFT);
    return to(from(a) >> s); /* arithmetic in gcc */
}

brt_i128 brt_and_i128(brt_i128 a, brt_i128 b) { return brt_i128_make(a.lo & b.lo, a.hi & b.hi); }
brt_i128 brt_or_i128(brt_i128 a, brt_i128 b) { return brt_i128_make(a.lo | b.lo, a.hi | b.hi); }
brt_i128 brt_xor_i128(brt_i128 a, brt_i128 b) { return brt_i128_make(a.lo ^ b.lo, a.hi ^ b.hi); }
brt_i128 brt_not_i128(brt_i128 a) { return brt_i128_make(~a.lo, ~a.hi); }

int brt_cmp_i128(brt_i128 a, brt_i128 b)
{
    i128 x = from(a), y = from(b);
    return x < y ? -1 : x > y;
}

int64_t brt_range_count_i128(brt_i128 lo, brt_i128 hi, int inclusive)
{
    i128 a = from(lo), b = from(hi);
    if (inclusive ? a > b : a >= b) return 0;
    u128 d = (u128)b - (u128)a + (inclusive ? 1 : 0); /* 2^128 (all of i128, inclusive) wraps to 0 */
    return d == 0 || d > (u128)INT64_MAX ? INT64_MAX : (int64_t)d;
}

brt_i128 brt_wrapping_add_i128(brt_i128 a, brt_i128 b) { return to((i128)((u128)from(a) + (u128)from(b))); }
brt_i128 brt_wrapping_sub_i128(brt_i128 a, brt_i128 b) { return to((i128)((u128)from(a) - (u128)from(b))); }
brt_i128 brt_wrapping_mul_i128(brt_i128 a, brt_i128 b) { return to((i128)((u128)from(a) * (u128)from(b))); }
brt_i128 brt_wrapping_neg_i128(brt_i128 a) { return to((i128)(0 - (u128)from(a))); }

brt_i128 brt_rotl_i128(brt_i128 a, int64_t s)
{
    u128 x = (u128)from(a);
    s &= 127;
    return s ? to((i128)((x << s) | (x >> (128 - s)))) : a;
}

brt_i128 brt_rotr_i128(brt_i128 a, int64_t s)
{
    u128 x = (u128)from(a);
    s &= 127;
    return s ? to((i128)((x >> s) | (x << (128 - s)))) : a;
}

int64_t brt_count_ones_i128(brt_i128 a) { return brt_popcount64(a.lo) + brt_popcount64(a.hi); }

int64_t brt_leading_zeros_i128(brt_i128 a)
{
    if (a.hi)
        return __builtin_clzll(a.hi);
    return 64 + brt_leading_zeros_u64(a.lo);
}

int64_t brt_trailing_zeros_i128(brt_i128 a)
{
    if (a.lo)
        return __builtin_ctzll(a.lo);
    return 64 + brt_trailing_zeros_u64(a.hi);
}

/* ---- conversions ---------------------------------------------------------- */

/* "cannot convert 1e+300 to int": the value as print shows it. */
BRT_NORETURN static void bad_float(double x, const char *to_type, const brt_loc *l)
{
    char buf[32];
    brt_format_float(x, buf);
    brt_panic_msg(l, "cannot convert %s to %s", buf, to_type);
}

/* The failing paths of the inline brt_f2i and brt_f2u64 (brine_rt.h). */
void brt_f2i_fail(double x, const brt_loc *l) { bad_float(x, "int", l); }
void brt_f2u64_fail(double x, const brt_loc *l) { bad_float(x, "u64", l); }

brt_i128 brt_f2i128(double x, const brt_loc *l)
{
    if (!(x >= -0x1p127 && x < 0x1p127))
        bad_float(x, "i128", l);
    return to(double_to_i128(x));
}

double brt_i128_to_f(brt_i128 v)
{
    i128 x = from(v);
    return x < 0 ? -u128_to_double(0 - (u128)x) : u128_to_double((u128)x);
}

int64_t brt_i128_to_i64(brt_i128 v, const brt_loc *l)
{
    i128 x = from(v);
    if (x < INT64_MIN || x > INT64_MAX)
        brt_panic(l, BRT_OV_CONV);
    return (int64_t)x;
}

uint64_t brt_i128_to_u64(brt_i128 v, const brt_loc *l)
{
    i128 x = from(v);
    if (x < 0 || x > (i128)UINT64_MAX)
        brt_panic(l, BRT_OV_CONV);
    return (uint64_t)x;
}
