/*
 * asin.h: brine's correctly rounded asin and acos (round to nearest, every
 * binary64 input): a fast path of tables and polynomials, with neither a
 * division nor a square root below |x| = 0.75, and atan.h's crm_asincos
 * (atan of a quotient, triple-double) as the accurate path for the rare
 * inputs whose rounding the fast path cannot decide. Tables:
 * asin_tables.h, tools/crmath/gen_asin.py.
 *
 * With a = |x|, asin a as a double-double h + l:
 *
 * - a < 2^-7: a + a^3 P(a^2), P the series' six terms after a (truncation
 *   below 2^-100 a); a^3 P <= 2^-16.6 a, computed in doubles with about
 *   five roundings: below 2^-67.3 a.
 * - 2^-7 <= a < 0.5: x0 = j/128 the nearest, h = a - x0 exact (Sterbenz),
 *   |h| <= 2^-8; asin a = c0 + c1 h + h^2 Q(h), c0 and c1 double-doubles
 *   (2^-106), c0 + c1h h and its error by two fma's (2^-106), Q of degree 7 in doubles (Estrin).
 *   The generator checks the truncation (2^-75.8 asin a) and that the
 *   terms from h^2 on are below 2^-16.4 asin a: their roundings (h^2, Q, the
 *   product, four additions into l) stay below 2^-66 asin a.
 * - 0.5 <= a < 0.75: the same at x0 = j/256 (t1's rows from 64: |h| <= 2^-9,
 *   x0 as far from the pole at 1, relative to |h|, as t1's last row),
 *   truncation 2^-77 asin a, the terms from h^2 on below 2^-17.4 asin a:
 *   within 2^-66 asin a as above. (The sqrt path below costs a square
 *   root, a division and a third more operations: on sorted inputs, as a
 *   grid visits them, asin over [0.5, 0.75) takes 2/3 of its time.)
 * - 0.75 <= a < 1: z = 1 - a exact (Sterbenz), acos a = sqrt(2z) F(z),
 *   F(z) = asin(sqrt(z/2))/sqrt(z/2) >= 1 by its Taylor series at z0 =
 *   j/128 (c0, c1 double-doubles, degree 7, truncation 2^-75.3, the terms
 *   from h^2 on below 2^-21: F within 2^-70); sqrt(2z) = s + sl, s rounded,
 *   sl = (2z - s^2)/(2s) with the remainder exact by fma (2^-104); the
 *   product by two-prod (2^-104). asin a = pi/2 - acos a (acos a <= pi/3:
 *   the error at most doubles relative to the result).
 *
 * acos x = pi/2 - asin x for |x| < 0.75 (>= 0.72 > asin |x| / 1.18: the
 * error grows by 1.18 at most), acos a above, pi - acos a for x <= -0.75.
 * Every result is within 2^-65.7 of itself
 * (relative; measured against MPFR: 2^-67.4); the rounding test allows
 * 2^-64.
 */
#ifndef CRM_ASIN_H
#define CRM_ASIN_H

#include "asin_tables.h" /* text */

/* 1.5 * 2^52: v + CRM_ASIN_BIG, 0 <= v < 2^31, is rint(v) in its low bits */
#define CRM_ASIN_BIG 0x1.8p52

/* asin(x0 + h) from a row c of crm_asin_t1 (c0 and c1 as
 * double-doubles, c2..c9), as hi + *l */
CRM_HOT_FN double crm_asin_row(const double *c, double h, double *l)
{
    double h2 = h * h, h4 = h2 * h2;
    double q = fma(h4, fma(h2, fma(h, c[11], c[10]), fma(h, c[9], c[8])),
                   fma(h2, fma(h, c[7], c[6]), fma(h, c[5], c[4])));
    /* c0 + c1h h rounded by an fma, its error by a second, within 2^-53
     * of it (2^-106 asin a): c0 - hi is exact (Sterbenz: for j = 1, h >= 0;
     * for 2 <= j <= 64, |c1h h| <= 1.16 2^-8 <= c0/2; for the j/256 rows,
     * |c1h h| <= 1.52 2^-9 <= c0/2) */
    double hi = fma(c[2], h, c[0]);
    double e = fma(c[2], h, c[0] - hi);
    *l = e + (c[1] + fma(c[3], h, h2 * q));
    return hi;
}

/* asin a, 2^-55 <= a < 0.75, as h + *l: from 2^-7 on, a row of
 * crm_asin_t1, x0 = j/128 below 0.5 (row j - 1), j/256 above (row j -
 * 64): both reductions computed, the row and h chosen by a < 0.5 without
 * a branch (the callers' one test is a < 0.75: random arguments
 * mispredict it no more often than the test of a < 0.5 before) */
CRM_HOT_FN double crm_asin_fast(double a, double *l)
{
    if (a < 0x1p-7) {
        const double *p = crm_asin_odd;
        double w = a * a, w2 = w * w;
        double q = fma(w2, fma(w2, fma(w, p[5], p[4]), fma(w, p[3], p[2])), fma(w, p[1], p[0]));
        return crm_fast_two_sum(a, (a * w) * q, l);
    }
    /* j = rint(128 a) or rint(256 a): 1 <= j <= 64 or 128 <= j <= 192,
     * t's low bits (no sign extension) */
    double t7 = fma(a, 128.0, CRM_ASIN_BIG), t8 = fma(a, 256.0, CRM_ASIN_BIG);
    double h7 = fma(t7 - CRM_ASIN_BIG, -0x1p-7, a), h8 = fma(t8 - CRM_ASIN_BIG, -0x1p-8, a);
    int mid = a >= 0.5;
    crm_u64 b7 = crm_bits(t7), b8 = crm_bits(t8);
    crm_i64 row = mid ? (crm_i64)(b8 & 255) - 64 : (crm_i64)(b7 & 127) - 1;
    return crm_asin_row(crm_asin_t1[row], mid ? h8 : h7, l);
}

/* acos a, 0.75 <= a < 1, as h + *l */
CRM_HOT_FN double crm_acos_near1(double a, double *l)
{
    double z = 1.0 - a, z2 = z + z;
    double s = crm_sqrt(z2);
    double sl = fma(-s, s, z2) / (s + s);
    double t = fma(z, 128.0, CRM_ASIN_BIG), jd = t - CRM_ASIN_BIG;
    const double *c = crm_asin_t2[crm_bits(t) & 127]; /* 0 <= j <= 64 */
    double h = fma(jd, -0.0078125, z);
    double h2 = h * h;
    double q = fma(h2 * h2, fma(h, c[9], c[8]), fma(h2, fma(h, c[7], c[6]), fma(h, c[5], c[4])));
    /* F0 + c1h h and its error by two fma's, as crm_asin_fast (F0 - fh
     * exact: F0 >= 1 and |c1h h| < 2^-10) */
    double fh = fma(c[2], h, c[0]);
    double e = fma(c[2], h, c[0] - fh);
    double fl = e + (c[1] + fma(c[3], h, h2 * q));
    double rl, rh = crm_two_prod(s, fh, &rl);
    *l = rl + fma(s, fl, sl * fh);
    return rh;
}

/* o - (h + l) as a double-double, |h| <= |o|, o = oh + om */
CRM_FN double crm_asin_from(double oh, double om, double h, double l, double *lo)
{
    double e, r = crm_fast_two_sum(oh, -h, &e);
    *lo = e + (om - l);
    return r;
}

CRM_FN double brm_asin(double x)
{
    crm_u64 ax = crm_bits(x) & 0x7fffffffffffffffULL;
    if (!CRM_LIKELY(ax - 0x3e40000000000000ULL < 0x3ff0000000000000ULL - 0x3e40000000000000ULL)) {
        if (ax > 0x7ff0000000000000ULL) return x + x;      /* NaN */
        if (ax > 0x3ff0000000000000ULL) return (x - x) / (x - x); /* |x| > 1: NaN */
        if (ax == 0x3ff0000000000000ULL) return x < 0 ? -CRM_PI2_RN : CRM_PI2_RN;
        return x; /* |x| < 2^-27: x + x^3/6 rounds to x */
    }
    double a = crm_fabs(x), h, l, r;
    if (a < 0.75) {
        h = crm_asin_fast(a, &l);
    } else {
        double cl, ch = crm_acos_near1(a, &cl);
        h = crm_asin_from(CRM_PI2_HI, CRM_PI2_MI, ch, cl, &l);
    }
    if (crm_round_test(h, l, 0x1p-64, &r)) return crm_from_bits(crm_bits(r) | (crm_bits(x) & 0x8000000000000000ULL)); /* r >= 0: x's sign */
    return crm_asincos(x, 0);
}

CRM_FN double brm_acos(double x)
{
    crm_u64 ax = crm_bits(x) & 0x7fffffffffffffffULL;
    if (!CRM_LIKELY(ax - 0x3c80000000000000ULL < 0x3ff0000000000000ULL - 0x3c80000000000000ULL)) {
        if (ax > 0x7ff0000000000000ULL) return x + x;      /* NaN */
        if (ax > 0x3ff0000000000000ULL) return (x - x) / (x - x); /* |x| > 1: NaN */
        if (ax == 0x3ff0000000000000ULL) return x < 0 ? CRM_PI_RN : 0.0;
        return CRM_PI2_RN; /* |x| < 2^-55: pi/2 - x rounds to pi/2 */
    }
    double a = crm_fabs(x), h, l, r;
    if (a < 0.75) {
        double sl, sh = crm_asin_fast(a, &sl);
        h = crm_asin_from(CRM_PI2_HI, CRM_PI2_MI, x < 0 ? -sh : sh, x < 0 ? -sl : sl, &l);
    } else {
        h = crm_acos_near1(a, &l);
        if (x < 0) h = crm_asin_from(CRM_PI_HI, CRM_PI_MI, h, l, &l);
    }
    if (crm_round_test(h, l, 0x1p-64, &r)) return r;
    return crm_asincos(x, 1);
}

#endif
