/*
 * dd.h: exact arithmetic primitives for brine's correctly rounded math
 * (runtime/crmath/, docs/stdlib.md). One text for every compiler that
 * builds brine's math: gcc and cc for the runtime (dev and release builds
 * link it), the CPU shim and NVRTC for GPU kernels (the kernel prelude
 * embeds this file whole, tools/embed.c).
 *
 * Only + - * /, sqrt, an explicit fma (correctly rounded: libm's fma, the
 * x86 and CUDA instruction), integer operations and bit moves: no libm
 * function, no long double, and the build turns FMA contraction off, so
 * every operation here rounds once, as written, on every machine.
 *
 * The includer defines CRM_FN (the qualifiers of a function: `static
 * inline`, or CUDA's `__device__ __forceinline__`) and CRM_TABLE (those of
 * a constant table); both default to plain C's.
 *
 * The algorithms are the classic error-free transformations (Knuth's
 * two-sum, Dekker's fast two-sum, the fma product) and the double-double
 * and triple-double operators built on them (Dekker 1971; Lauter 2005,
 * "Basic building blocks for a triple-double intermediate format"); each
 * operator's comment states its error bound.
 */
#ifndef CRM_DD_H
#define CRM_DD_H

#ifndef CRM_FN
#define CRM_FN static inline
#endif
#ifndef CRM_TABLE
#define CRM_TABLE static const
#endif

/* A branch hint; CRM_COLD_FN for an accurate path, a function kept out of
 * line so that the fast path that calls it stays small; CRM_HOT_FN for a
 * fast path's body, inlined even where it is called twice. */
#if defined(__GNUC__) || defined(__CUDACC__)
#define CRM_LIKELY(c) __builtin_expect(!!(c), 1)
#else
#define CRM_LIKELY(c) (c)
#endif
/* On the GPU an accurate path is compiled once, not inlined into every
 * kernel (NVRTC spent minutes on pow's stages inlined). */
#if defined(__CUDACC__)
#define CRM_COLD_FN __device__ __noinline__
#define CRM_HOT_FN CRM_FN
#elif defined(__GNUC__)
#define CRM_COLD_FN static __attribute__((noinline, cold, unused))
#define CRM_HOT_FN static inline __attribute__((always_inline, unused))
#else
#define CRM_COLD_FN CRM_FN
#define CRM_HOT_FN CRM_FN
#endif

#ifndef __CUDACC__
double fma(double, double, double);
double sqrt(double);
#endif

/* sqrt, correctly rounded (IEEE 754) everywhere. gcc's sqrt keeps a test
 * and a libm call for a negative argument (errno), and with it a stack
 * frame on the fast path that calls it; every caller here passes x >= 0,
 * so on x86-64 gcc and clang take the instruction itself (SSE2's sqrtsd,
 * the same bits). */
#if defined(__GNUC__) && defined(__x86_64__) && defined(__SSE2__) && !defined(__TINYC__) && !defined(__CUDACC__)
typedef double crm_v2d __attribute__((vector_size(16)));
CRM_FN double crm_sqrt(double x)
{
    crm_v2d v = {x, 0};
    return __builtin_ia32_sqrtsd(v)[0];
}
#else
CRM_FN double crm_sqrt(double x) { return sqrt(x); }
#endif

typedef unsigned long long crm_u64;
typedef long long crm_i64;

/* A double-double: the unevaluated sum hi + lo, |lo| <= ulp(hi) / 2. */
typedef struct crm_dd { double hi, lo; } crm_dd;
/* A triple-double: hi + mi + lo, each part at most half an ulp of the one above. */
typedef struct crm_td { double hi, mi, lo; } crm_td;

/* ---- bits ------------------------------------------------------------------ */

CRM_FN crm_u64 crm_bits(double x)
{
    union { double d; crm_u64 u; } c;
    c.d = x;
    return c.u;
}

CRM_FN double crm_from_bits(crm_u64 u)
{
    union { double d; crm_u64 u; } c;
    c.u = u;
    return c.d;
}

/* +infinity (the math functions raise no flags: Brine cannot read them) */
CRM_FN double crm_inf(void) { return crm_from_bits(0x7ff0000000000000ULL); }

/* a quiet NaN, the one x86 makes of an invalid operation */
CRM_FN double crm_nan(void) { return crm_from_bits(0xfff8000000000000ULL); }

/* |x|: the sign bit cleared. gcc and clang take it as one and-mask in the
 * vector register (andpd); the bit moves below cost two transfers to an
 * integer register and back, on the critical path of every rounding test
 * (its bound is relative to |hi|). The same bits either way, NaN included. */
#if defined(__GNUC__) && !defined(__TINYC__) && !defined(__CUDACC__)
CRM_FN double crm_fabs(double x) { return __builtin_fabs(x); }
#else
CRM_FN double crm_fabs(double x) { return crm_from_bits(crm_bits(x) & 0x7fffffffffffffffULL); }
#endif

/* 2^e exactly, for -1022 <= e <= 1023 */
CRM_FN double crm_pow2i(int e) { return crm_from_bits((crm_u64)(e + 1023) << 52); }

/* x * 2^e, correctly rounded once (the result may be subnormal): x normal,
 * -2100 < e < 2100. The scaling goes in at most two exact steps and one
 * rounding multiplication, so a subnormal result is rounded once. */
CRM_FN double crm_ldexp(double x, int e)
{
    if (e > 1000) { x *= crm_pow2i(1000); e -= 1000; if (e > 1000) { x *= crm_pow2i(1000); e -= 1000; } }
    if (e < -1000) { x *= crm_pow2i(-1000); e += 1000; if (e < -1000) { x *= crm_pow2i(-1000); e += 1000; } }
    return x * crm_pow2i(e);
}

/* The nearest integer to x (ties to even) as a double, |x| < 2^51. */
CRM_FN double crm_rint(double x)
{
    const double big = 6755399441055744.0; /* 1.5 * 2^52 */
    return (x + big) - big;
}

/* ---- error-free transformations ----------------------------------------------- */

/* s + e == a + b exactly, s = fl(a + b) (Knuth: any a, b) */
CRM_FN double crm_two_sum(double a, double b, double *e)
{
    double s = a + b;
    double bb = s - a;
    *e = (a - (s - bb)) + (b - bb);
    return s;
}

/* s + e == a + b exactly, s = fl(a + b), when |a| >= |b| or a == 0 (Dekker) */
CRM_FN double crm_fast_two_sum(double a, double b, double *e)
{
    double s = a + b;
    *e = b - (s - a);
    return s;
}

/* p + e == a * b exactly, p = fl(a * b) (no underflow in a * b) */
CRM_FN double crm_two_prod(double a, double b, double *e)
{
    double p = a * b;
    *e = fma(a, b, -p);
    return p;
}

/* ---- double-double ----------------------------------------------------------------- */

CRM_FN crm_dd crm_dd_make(double hi, double lo) { crm_dd r; r.hi = hi; r.lo = lo; return r; }

/* a + b, a and b double-doubles: relative error below 2^-103.6 (Joldes,
 * Muller, Popescu 2017, AccurateDWPlusDW) */
CRM_FN crm_dd crm_dd_add(crm_dd a, crm_dd b)
{
    double sl, tl, th = 0;
    double sh = crm_two_sum(a.hi, b.hi, &sl);
    th = crm_two_sum(a.lo, b.lo, &tl);
    sl += th;
    sh = crm_fast_two_sum(sh, sl, &sl);
    sl += tl;
    crm_dd r;
    r.hi = crm_fast_two_sum(sh, sl, &r.lo);
    return r;
}

/* a + b, b a double, with |a.hi| >= |b| or a == 0: relative error 2^-105 */
CRM_FN crm_dd crm_dd_add_d_fast(crm_dd a, double b)
{
    double e;
    double s = crm_fast_two_sum(a.hi, b, &e);
    e += a.lo;
    crm_dd r;
    r.hi = crm_fast_two_sum(s, e, &r.lo);
    return r;
}

/* a + b, b a double (DWPlusFP): relative error below 2^-105 */
CRM_FN crm_dd crm_dd_add_d(crm_dd a, double b)
{
    double e;
    double s = crm_two_sum(a.hi, b, &e);
    e += a.lo;
    crm_dd r;
    r.hi = crm_fast_two_sum(s, e, &r.lo);
    return r;
}

/* a * b (DWTimesDW with fma): relative error below 2^-103 */
CRM_FN crm_dd crm_dd_mul(crm_dd a, crm_dd b)
{
    double e;
    double p = crm_two_prod(a.hi, b.hi, &e);
    e += a.hi * b.lo;
    e = fma(a.lo, b.hi, e);
    crm_dd r;
    r.hi = crm_fast_two_sum(p, e, &r.lo);
    return r;
}

/* a * b, b a double (DWTimesFP): relative error below 2^-104 */
CRM_FN crm_dd crm_dd_mul_d(crm_dd a, double b)
{
    double e;
    double p = crm_two_prod(a.hi, b, &e);
    e = fma(a.lo, b, e);
    crm_dd r;
    r.hi = crm_fast_two_sum(p, e, &r.lo);
    return r;
}

/* a * b, a and b doubles, as an exact double-double */
CRM_FN crm_dd crm_dd_prod(double a, double b)
{
    crm_dd r;
    r.hi = crm_two_prod(a, b, &r.lo);
    return r;
}

/* -a */
CRM_FN crm_dd crm_dd_neg(crm_dd a) { return crm_dd_make(-a.hi, -a.lo); }

/* a - b: as crm_dd_add */
CRM_FN crm_dd crm_dd_sub(crm_dd a, crm_dd b) { return crm_dd_add(a, crm_dd_neg(b)); }

/* a / b (DWDivDW, one correction step): relative error below 2^-100 */
CRM_FN crm_dd crm_dd_div(crm_dd a, crm_dd b)
{
    double q = a.hi / b.hi;
    crm_dd r = crm_dd_sub(a, crm_dd_mul_d(b, q));
    double q2 = r.hi / b.hi;
    crm_dd s;
    s.hi = crm_fast_two_sum(q, q2, &s.lo);
    return s;
}

/* Whether hi + lo, known within eps |hi|, rounds to one double; it is *out */
CRM_FN int crm_round_test(double hi, double lo, double eps, double *out)
{
    double err = eps * hi; /* its sign does not matter: a and b swap */
    double a = hi + (lo - err), b = hi + (lo + err);
    *out = a;
#ifdef CRM_TEST_ACCURATE /* tests/math: every input takes the accurate path */
    return 0;
#endif
    return a == b;
}

/* whether h + l, known within e, rounds to one double: it is *out */
CRM_FN int crm_round_test_abs(double h, double l, double e, double *out)
{
    double a = h + (l - e), b = h + (l + e);
    *out = a;
#ifdef CRM_TEST_ACCURATE /* tests/math: every input takes the accurate path */
    return 0;
#endif
    return a == b;
}

/* y * 2^e, y in [0.5, 4), e in [-1021, 1024]: exact unless it overflows */
CRM_FN double crm_scale_normal(double y, int e)
{
    if (e > 1023) return y * crm_pow2i(e - 1) * 2.0;
    return y * crm_pow2i(e);
}

/* The exact sign of t[0] + ... + t[n-1] (n <= 16, no overflow in the
 * sums): the terms grown into a nonoverlapping expansion (Shewchuk 1997,
 * Grow-Expansion with zero elimination), whose sign is its largest
 * component's. */
CRM_FN int crm_sum_sign(const double *t, int n)
{
    double e[16];
    int m = 0;
    for (int i = 0; i < n; i++) {
        double q = t[i];
        int k = 0;
        for (int h = 0; h < m; h++) {
            double err;
            q = crm_two_sum(q, e[h], &err);
            if (err != 0) e[k++] = err;
        }
        if (q != 0) e[k++] = q;
        m = k;
    }
    return m == 0 ? 0 : e[m - 1] > 0 ? 1 : -1;
}

/* The double next to y (finite, nonzero) away from zero (dir > 0) or
 * toward it (dir < 0) */
CRM_FN double crm_next(double y, int dir)
{
    return crm_from_bits(crm_bits(y) + (dir > 0 ? 1 : (crm_u64)-1));
}

/* ---- triple-double ----------------------------------------------------------------- */

CRM_FN crm_td crm_td_make(double hi, double mi, double lo) { crm_td r; r.hi = hi; r.mi = mi; r.lo = lo; return r; }
CRM_FN crm_td crm_td_from_dd(crm_dd a) { return crm_td_make(a.hi, a.lo, 0); }
CRM_FN crm_td crm_td_neg(crm_td a) { return crm_td_make(-a.hi, -a.mi, -a.lo); }

/* hi + mi + lo == a + b + c exactly, the parts rounded from the top (two
 * two-sums each way: no order of magnitudes is assumed) */
CRM_FN crm_td crm_td_renorm(double a, double b, double c)
{
    double t1, t2, t3;
    t1 = crm_two_sum(b, c, &t2);
    crm_td r;
    r.hi = crm_two_sum(a, t1, &t3);
    r.mi = crm_two_sum(t3, t2, &r.lo);
    r.hi = crm_two_sum(r.hi, r.mi, &t1);
    r.mi = crm_two_sum(t1, r.lo, &r.lo);
    return r;
}

/* a + b: absolute error below 2^-156 |a + b| + 2^-104 (|a.lo| + |b.lo|)
 * (every operation is exact but the sum of the low parts) */
CRM_FN crm_td crm_td_add(crm_td a, crm_td b)
{
    double e1, e2, e3;
    double s1 = crm_two_sum(a.hi, b.hi, &e1);
    double s2 = crm_two_sum(a.mi, b.mi, &e2);
    double t1 = crm_two_sum(e1, s2, &e3);
    double l = e3 + e2 + (a.lo + b.lo);
    return crm_td_renorm(s1, t1, l);
}

/* a + d, d a double */
CRM_FN crm_td crm_td_add_d(crm_td a, double d) { return crm_td_add(a, crm_td_make(d, 0, 0)); }

/* a * b: relative error below 2^-148 for normalised operands (the terms
 * left out, am*bl, al*bm, al*bl, are below 2^-157 |ab|; the low sum's
 * roundings below 2^-152 |ab|) */
CRM_FN crm_td crm_td_mul(crm_td a, crm_td b)
{
    double p1l, p2l, p3l;
    double p1 = crm_two_prod(a.hi, b.hi, &p1l);
    double p2 = crm_two_prod(a.hi, b.mi, &p2l);
    double p3 = crm_two_prod(a.mi, b.hi, &p3l);
    double e1, e2;
    double s = crm_two_sum(p2, p3, &e1);
    double m = crm_two_sum(p1l, s, &e2);
    double l = (e1 + e2) + (p2l + p3l) + (a.mi * b.mi + (a.hi * b.lo + a.lo * b.hi));
    return crm_td_renorm(p1, m, l);
}

/* a - b */
CRM_FN crm_td crm_td_sub(crm_td a, crm_td b) { return crm_td_add(a, crm_td_neg(b)); }

/* a * 2^k, exact for parts that stay normal */
CRM_FN crm_td crm_td_scale(crm_td a, int k)
{
    double s = crm_pow2i(k);
    return crm_td_make(a.hi * s, a.mi * s, a.lo * s);
}

/* a / b: three quotient digits, each from the remainder of the ones before
 * (a long division; the remainders computed in triple-double): relative
 * error below 2^-145 */
CRM_FN crm_td crm_td_div(crm_td a, crm_td b)
{
    double q1 = a.hi / b.hi;
    crm_td r = crm_td_sub(a, crm_td_mul(b, crm_td_make(q1, 0, 0)));
    double q2 = r.hi / b.hi;
    r = crm_td_sub(r, crm_td_mul(b, crm_td_make(q2, 0, 0)));
    double q3 = r.hi / b.hi;
    return crm_td_renorm(q1, q2, q3);
}

/* a * b, b a double-double */
CRM_FN crm_td crm_td_mul_dd(crm_td a, crm_dd b) { return crm_td_mul(a, crm_td_from_dd(b)); }

/* a * d, d a double */
CRM_FN crm_td crm_td_mul_d(crm_td a, double d) { return crm_td_mul(a, crm_td_make(d, 0, 0)); }

/* s + e + t to the nearest double, where s = rn(s + e) and |t| is far below
 * |e| (or e = 0): e + t is rounded to odd (when inexact, a result with an
 * even last bit moves one ulp toward the exact sum), so it is never a false
 * halfway point, and s + (e + t) rounds once (Boldo and Melquiond's
 * round-to-odd argument: e + t has far more bits than the final rounding
 * looks at). */
CRM_FN double crm_round3(double s, double e, double t)
{
    double err;
    double r = crm_two_sum(e, t, &err);
    crm_u64 b = crm_bits(r);
    if (err != 0 && (b & 1) == 0) {
        b += ((err > 0) == (r > 0)) ? 1 : (crm_u64)-1;
        r = crm_from_bits(b);
    }
    return s + r;
}

/* a (renormalised) to the nearest double; a normal result */
CRM_FN double crm_td_round(crm_td a)
{
    double e;
    double s = crm_two_sum(a.hi, a.mi, &e);
    return crm_round3(s, e, a.lo);
}

/* the sign of d + e + lo, where |e + lo| is below the smallest nonzero |d| */
CRM_FN int crm_sign3(double d, double e, double lo)
{
    double v = d != 0 ? d : e != 0 ? e : lo;
    return (v > 0) - (v < 0);
}

/* (hi + mi + lo) * 2^k to the nearest double, subnormal results included:
 * hi + lo renormalised (|lo| <= ulp(hi)), the result's exponent known
 * above -1080 */
CRM_FN double crm_round_scaled(double hi, double mi, double lo, int k)
{
    double e;
    double s = crm_two_sum(hi, mi, &e);
    crm_u64 b = crm_bits(s);
    int ex = (int)((b >> 52) & 0x7ff) - 1023 + k;
    if (ex >= -1022) return crm_ldexp(crm_round3(s, e, lo), k);
    /* the result is subnormal: round hi + mi + lo to a multiple of g = 2^(-1074-k) */
    double g = crm_ldexp(1.0, -1074 - k);
    double c = g * 4503599627370496.0; /* 2^52 g: s + c is on the grid g */
    if (s < 0) c = -c;
    double q = (s + c) - c;             /* s to the grid, |q| <= 2^52 g: exact */
    double r = s - q;                   /* exact, |r| <= g / 2 */
    /* the rest r + e + lo against +-g/2; r -+ g/2 is exact and a multiple
     * of ulp(s), which is above |e + lo| */
    double half = 0.5 * g;
    int up = crm_sign3(r - half, e, lo), down = crm_sign3(r + half, e, lo);
    if (up > 0 || (up == 0 && q / g != 2.0 * crm_rint(0.5 * q / g))) q += g;
    else if (down < 0 || (down == 0 && q / g != 2.0 * crm_rint(0.5 * q / g))) q -= g;
    return crm_ldexp(q, k);
}

#endif
