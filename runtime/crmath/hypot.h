/*
 * hypot.h: brm_hypot, correctly rounded to nearest, with an exact rounding
 * decision.
 *
 * x >= y >= 0 after abs and swap. When y < 2^-60 x, hypot = x (x^2 + y^2
 * is within 2^-121 x^2 of x^2). In the middle of the range the fast path
 * needs no scaling: r = sqrt(x^2 + y^2) rounded, corrected by the exact
 * residual over 2r and rounded once where a rounding test passes. Otherwise both are scaled by 2^-k so x is
 * in [1, 2) (exact: y stays above 2^-61); x^2 and y^2 are exact
 * double-doubles, their sum S a double-double within 2^-104, and
 * R = sqrt(S) + (S - sqrt(S)^2) / (2 sqrt(S)) is within 2^-100 of
 * hypot. The result's grid is the doubles' (spacing 2^-52 or 2^-51 in
 * [1, 2 sqrt 2)), or, when hypot 2^k is subnormal, the multiples of
 * 2^(-1074-k). When R rounds to one grid point with room to spare (2^-95)
 * that is the result; otherwise the sign of m^2 - x^2 - y^2, m the
 * midpoint of two grid points (m = q + h, h a power of two), is an exact
 * sum of seven doubles and decides; a tie (m^2 = x^2 + y^2 exactly) goes
 * to the even grid point.
 */
#ifndef CRM_HYPOT_H
#define CRM_HYPOT_H

#include "dd.h" /* text */

/* The sign of (q + h)^2 - x^2 - y^2 */
CRM_COLD_FN int crm_hypot_cmp(double q, double h, double x, double y)
{
    double t[7];
    t[0] = crm_two_prod(q, q, &t[1]);
    t[2] = 2 * q * h;
    t[3] = h * h;
    t[4] = -crm_two_prod(x, x, &t[5]);
    t[5] = -t[5];
    double yl;
    t[6] = -crm_two_prod(y, y, &yl);
    double u[8] = {t[0], t[1], t[2], t[3], t[4], t[5], t[6], -yl};
    return crm_sum_sign(u, 8);
}

/* hypot(a, b), a >= b > 2^-60 a, outside the fast path's range or where
 * its rounding test fails: scaled, then rounded exactly (see the top); out
 * of line, so the fast path needs no stack frame */
CRM_COLD_FN double crm_hypot_scaled(double a, double b, crm_u64 bx)
{
    /* scale a into [1, 2) (a subnormal or huge: first by 2^600 or 2^-600) */
    int k = 0;
    if (bx < 0x0010000000000000ULL) {
        a *= 0x1p600;
        b *= 0x1p600;
        k = -600;
    } else if (bx >= 0x7fe0000000000000ULL) {
        a *= 0x1p-600;
        b *= 0x1p-600;
        k = 600;
    }
    int ea = (int)(crm_bits(a) >> 52) - 1023;
    double s = crm_pow2i(-ea);
    a *= s;
    b *= s;
    k += ea;
    double al, bl;
    double ah = crm_two_prod(a, a, &al);
    double bh = crm_two_prod(b, b, &bl);
    crm_dd sq = crm_dd_add(crm_dd_make(ah, al), crm_dd_make(bh, bl));
    double r = crm_sqrt(sq.hi);
    double rl;
    double r2 = crm_two_prod(r, r, &rl);
    double corr = ((sq.hi - r2) - rl + sq.lo) / (2 * r); /* sq.hi - r2: exact */
    double hi, lo;
    hi = crm_fast_two_sum(r, corr, &lo);
    if (k + 1 > -1022) { /* a normal result (hi < 2 sqrt 2 < 2^2) */
        double out;
        if (crm_round_test(hi, lo, 0x1p-95, &out)) return crm_scale_normal(out, k);
        /* the midpoint on lo's side of hi decides */
        int up = lo > 0 ? 1 : -1;
        double nb = crm_next(hi, up);
        double h = 0.5 * (nb - hi);
        int c = crm_hypot_cmp(hi, h, a, b);
        if (c == 0) out = (crm_bits(hi) & 1) ? nb : hi; /* a tie: to even */
        else out = (up > 0 ? c < 0 : c > 0) ? nb : hi;
        return crm_scale_normal(out, k);
    }
    /* subnormal grid: multiples of g = 2^(-1074-k) */
    double g = crm_ldexp(1.0, -1074 - k);
    double c2 = g * 0x1p52;
    double qg = (hi + c2) - c2;        /* hi to the grid (hi < 4 < 2^52 g) */
    double rest = (hi - qg) + lo;      /* hi - qg exact */
    double half = 0.5 * g;
    double dist = crm_fabs(crm_fabs(rest) - half);
    if (dist > 0x1p-95 * hi) {
        if (rest > half) qg += g;
        else if (rest < -half) qg -= g;
        return crm_ldexp(qg, k);
    }
    double h = rest > 0 ? half : -half;
    int c = crm_hypot_cmp(qg, h, a, b);
    double nb = qg + 2 * h;
    double out;
    if (c == 0) out = crm_rint(0.5 * qg / g) * 2 == qg / g ? qg : nb;
    else out = (h > 0 ? c < 0 : c > 0) ? nb : qg;
    return crm_ldexp(out, k);
}

CRM_FN double brm_hypot(double x, double y)
{
    crm_u64 bx = crm_bits(x) & 0x7fffffffffffffffULL, by = crm_bits(y) & 0x7fffffffffffffffULL;
    if (bx >= 0x7ff0000000000000ULL || by >= 0x7ff0000000000000ULL) {
        if (bx == 0x7ff0000000000000ULL || by == 0x7ff0000000000000ULL) return crm_inf(); /* even with a NaN */
        return x + y; /* NaN */
    }
    crm_u64 mn = bx < by ? bx : by; /* the swap without a branch: |x| < |y| is a coin toss */
    bx ^= by ^ mn;
    by = mn;
    double a = crm_from_bits(bx), b = crm_from_bits(by);
    if (by == 0) return a;
    if (b < a * 0x1p-60) return a + b * 0x1p-100; /* a */
#ifndef CRM_TEST_ACCURATE /* tests/math: every input takes the accurate path */
    if (CRM_LIKELY(by >= 0x23d0000000000000ULL && bx < 0x5f30000000000000ULL)) {
        /* 2^-450 <= b <= a < 2^500: no scaling; S = a^2 + b^2 = sh + sl
         * within 2^-104 S (two exact products, a fast two-sum, sl's two
         * roundings 2^-105 S each), r = sqrt(sh) rounded, res = S - r^2:
         * sh - r^2 is a double and fma gives it exactly (the remainder of
         * a correctly rounded square root is representable: Boldo and
         * Daumas 2003; sh >= 2^-900, no underflow), plus sl rounded once:
         * within 2^-102 S. sqrt(sh) is within u/2 of r (u = ulp(r) <=
         * 2^-52 r) and sqrt(S) within 2^-54 r of sqrt(sh), so |sqrt(S) - r|
         * <= u and sqrt(S) = r + D, D = res / (sqrt(S) + r) = res / (2r (1 +
         * t)), |t| <= 2^-53. d = res / (2r) rounded is within (2^-102 S) /
         * (2r) + 2^-53 |D| + 2^-53 |d| <= (2^-103 + 2^-104.4 + 2^-104.4) r
         * < 2^-102 r of D (|D| <= u); the rounding test with 2^-90 (its own
         * roundings near 2^-105 r) keeps r + d rounded once when no
         * rounding boundary lies within 2^-90 r of it, and leaves the rest
         * (about 2^-37 of random inputs) to the exact path. */
        double al, bl, e;
        double ah = crm_two_prod(a, a, &al);
        double bh = crm_two_prod(b, b, &bl);
        double sh = crm_fast_two_sum(ah, bh, &e), sl = (e + al) + bl; /* ah >= bh */
        double r = crm_sqrt(sh);
        double res = fma(-r, r, sh) + sl; /* sh - r^2 exact */
        double d = res / (r + r), out;
        if (CRM_LIKELY(crm_round_test(r, d, 0x1p-90, &out))) return out;
    }
#endif
    return crm_hypot_scaled(a, b, bx);
}

#endif
