/*
 * hyp.h: brm_sinh, brm_cosh, brm_tanh, correctly rounded to nearest, from
 * exp.h's pieces (a = |x|):
 *
 *   cosh a = (e^a + e^-a) / 2          no cancellation
 *   sinh a = (e^a - e^-a) / 2          for a >= 1 (cancels by coth 1 < 1.32)
 *          = E (E + 2) / (2 (E + 1))   for a < 1, E = expm1(a) > 0: no cancellation
 *   tanh a = E2 / (E2 + 2)             E2 = expm1(2a) > 0
 *
 * e^a = y 2^E within 2^-69.3 (exp.h's crm_exp_fast on crm_exp_reduce_short's
 * r, renormalized), e^-a = 2^-E / y (a double-double reciprocal, 2^-104) on
 * the fast path, from the same reduction with k and r negated on the
 * accurate one; e^-a is left out where it is below 2^-173 of e^a (a > 60)
 * on the accurate one; the fast path's scale 2^-2E is clamped at 2^-1000
 * (a > 346: e^-a then adds far below 2^-900 of e^a, no branch on a). For
 * a >= 6.5 the fast path takes e^-a
 * as 2^-E RN(1/y.hi) into the low part alone: its term is below 2^-18.7 of
 * the result, 1/y.hi within 2^-52 of 1/y (y renormalized), the fma's
 * rounding 2^-53 of it: 2^-70.2 more. Fast path errors: cosh 2^-69.2
 * (2^-68.7 from a = 6.5 on), sinh 2^-68.9 (a >= 1: 2^-69.3 times coth 1 <
 * 1.32; 2^-68.7 from 6.5 on) or 2^-67 (a < 1: expm1's
 * 2^-69 three times and a division), tanh 2^-67 (from a = 0.175 on, by
 * exp.h's crm_expm1_big, 2^-66.8); the tests use 2^-68,
 * 2^-68, 2^-65 and 2^-65 (tanh's quotient: one reciprocal, no
 * double-double division). Accurate paths: the same formulas in
 * triple-double (exp.h's, 2^-140; a long division, 2^-145), against the
 * published worst cases (tests/math/hard.txt), about 2^-115 at most.
 */
#ifndef CRM_HYP_H
#define CRM_HYP_H

#include "exp.h" /* text */

/* e^a = y 2^e (y a double-double in [0.99, 2)), |a| <= 710.5, fast path */
CRM_FN crm_dd crm_exp_dd(double a, int *e)
{
    double rh, rl;
    double kd = crm_exp_reduce(a, &rh, &rl);
    int j;
    *e = crm_exp_split(kd, &j);
    return crm_exp_scale_table(j, crm_expm1_poly(rh, rl));
}

/* the same as a triple-double */
CRM_FN crm_td crm_exp_td(double a, int *e)
{
    double kd = crm_rint(a * CRM_EXP_INV);
    int j;
    *e = crm_exp_split(kd, &j);
    return crm_td_mul(crm_exp_table_td(j), crm_exp_series_td(crm_exp_reduce_td(a, kd), 0));
}

/* (e^a + s e^-a) / 2, s = +-1, a >= 1 or s = 1: the fast path's value
 * y 2^(*e) and whether it passed the rounding test */
CRM_HOT_FN int crm_cosh_sinh_fast(double a, double s, double eps, double *out, int *e)
{
    double rh, rl, lo;
    double kd = crm_exp_reduce_short(a, &rh, &rl);
    int j, ea = crm_exp_split(kd, &j);
    crm_dd ya;
    double h = crm_exp_fast(rh, rl, j, &lo);
    if (a >= 6.5) {
        /* the e^-a term f/y below e^-13 y < 2^-18.7 y: f RN(1/RN(h + lo)) in
         * the low part; h + lo not renormalised (two operations fewer): the
         * test's bound 2^-68 |h| (h within 2^-17 of y) still exceeds the
         * error (2^-68.7 |y|) by 2^-69.4 |y|, more than the test's own
         * roundings of lo -+ e (|lo| < 2^-17 |h|: 2^-70 |h|) */
        int n = -2 * ea;
        ya.hi = h;
        ya.lo = fma(s * crm_pow2i(n < -1000 ? -1000 : n), 1.0 / (h + lo), lo);
    } else { /* e^-a = 2^-ea / y: q + ql = 1/y within 2^-104 (1 - q y.hi is exact) */
        ya.hi = crm_fast_two_sum(h, lo, &ya.lo); /* th >= 1 > |lo| */
        double q = 1.0 / ya.hi;
        double ql = (fma(-q, ya.hi, 1.0) - q * ya.lo) * q;
        double f = s * crm_pow2i(-2 * ea);
        double l;
        /* exact by a fast two-sum: |q f| <= 1 <= ya.hi when ea = 0 (a >= 0, so
         * y = e^a >= 1), else |q f| <= 2^-2 / 0.99 while ya.hi >= 0.99 */
        double hq = crm_fast_two_sum(ya.hi, q * f, &l);
        ya.lo = l + (ya.lo + ql * f);
        ya.hi = hq;
    }
    *e = ea - 1;
    return crm_round_test(ya.hi, ya.lo, eps, out);
}

CRM_COLD_FN double crm_cosh_sinh_accurate(double a, double s)
{
    int ea, eb;
    crm_td ya = crm_exp_td(a, &ea);
    if (a < 60) {
        crm_td yb = crm_exp_td(-a, &eb);
        yb = crm_td_scale(yb, eb - ea);
        ya = crm_td_add(ya, s > 0 ? yb : crm_td_neg(yb));
    }
    return crm_round_scaled(ya.hi, ya.mi, ya.lo, ea - 1);
}

CRM_FN double brm_cosh(double x)
{
    double a = crm_fabs(x);
    crm_u64 ba = crm_bits(a);
    /* outside 2^-27 <= a < 710.4758600739439: one unsigned comparison */
    if (!CRM_LIKELY(ba - 0x3e40000000000000ULL < 0x408633ce8fb9f87eULL - 0x3e40000000000000ULL)) {
        if (ba < 0x3e40000000000000ULL) return 1.0 + a * a; /* a < 2^-27: 1 */
        if (ba > 0x7ff0000000000000ULL) return x + x;       /* NaN */
        return crm_inf();                                    /* cosh > DBL_MAX, inf */
    }
    double out;
    int e;
    if (CRM_LIKELY(crm_cosh_sinh_fast(a, 1.0, 0x1p-68, &out, &e))) return crm_scale_normal(out, e);
    return crm_cosh_sinh_accurate(a, 1.0);
}

CRM_FN double brm_sinh(double x)
{
    double a = crm_fabs(x), sg = x < 0 ? -1.0 : 1.0;
    crm_u64 ba = crm_bits(a);
    if (ba >= 0x408633ce8fb9f87eULL) { /* sinh > DBL_MAX, inf, NaN */
        if (ba > 0x7ff0000000000000ULL) return x + x;
        return sg * crm_inf();
    }
    if (ba < 0x3e50000000000000ULL) return x; /* a < 2^-26: x + x^3/6 rounds to x */
    double out;
    if (a >= 1) {
        int e;
        if (CRM_LIKELY(crm_cosh_sinh_fast(a, -1.0, 0x1p-68, &out, &e))) return sg * crm_scale_normal(out, e);
        return sg * crm_cosh_sinh_accurate(a, -1.0);
    }
    /* E (E + 2) / (2 (E + 1)) */
    double rh, rl;
    double kd = crm_exp_reduce(a, &rh, &rl);
    int j, e = crm_exp_split(kd, &j);
    crm_dd m = crm_expm1_fast(kd, rh, rl, j, e);
    crm_dd two = crm_dd_make(2.0, 0);
    crm_dd y = crm_dd_div(crm_dd_mul(m, crm_dd_add(m, two)), crm_dd_add(crm_dd_make(2 * m.hi, 2 * m.lo), two));
    if (crm_round_test(y.hi, y.lo, 0x1p-65, &out)) return sg * out;
    crm_td t = crm_expm1_td(a, kd, j, e);
    crm_td num = crm_td_mul(t, crm_td_add(t, crm_td_make(2.0, 0, 0)));
    crm_td den = crm_td_add(crm_td_scale(t, 1), crm_td_make(2.0, 0, 0));
    return sg * crm_td_round(crm_td_div(num, den));
}

CRM_FN double brm_tanh(double x)
{
    double a = crm_fabs(x), sg = x < 0 ? -1.0 : 1.0;
    crm_u64 ba = crm_bits(a);
    if (ba > 0x7ff0000000000000ULL) return x + x;
    if (a >= 19.1) return sg * (1.0 - 0x1p-60); /* 1 - 2/(e^2a + 1) > 1 - 2^-54: 1 */
    if (ba < 0x3e40000000000000ULL) return x;   /* a < 2^-27: x - x^3/3 rounds to x */
    double a2 = 2 * a, kd;
    int j, e;
    crm_dd m;
    if (a2 >= 0.35) { /* exp.h's crm_expm1_big: 2^-66.8 */
        m = crm_expm1_big(a2, &kd, &j, &e);
    } else {
        double rh, rl;
        kd = crm_exp_reduce(a2, &rh, &rl);
        e = crm_exp_split(kd, &j);
        m = crm_expm1_fast(kd, rh, rl, j, e);
    }
    /* E2 / (E2 + 2): d = dh + dl = E2 + 2 within 2^-105, one reciprocal
     * v = 1/dh, q = m.hi v (within 2^-51.4), the remainder m - q d (its
     * fma part within 2^-104 q dh, the rest 2^-104 m.hi) times v: q + ql
     * within 2^-100 of E2 / d, far below expm1's 2^-66.8 (the quotient's
     * relative error is E2's times 2 / (E2 + 2) <= 1) */
    double dl, dh = crm_two_sum(m.hi, 2.0, &dl);
    dl += m.lo;
    double v = 1.0 / dh;
    double q = m.hi * v;
    double ql = (fma(-q, dh, m.hi) + (m.lo - q * dl)) * v;
    double out;
    if (crm_round_test(q, ql, 0x1p-65, &out)) return sg * out;
    crm_td t = crm_expm1_td(a2, kd, j, e);
    return sg * crm_td_round(crm_td_div(t, crm_td_add(t, crm_td_make(2.0, 0, 0))));
}

#endif
