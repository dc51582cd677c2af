/*
 * erf.h: brm_erf and brm_erfc, correctly rounded to nearest.
 *
 * The pieces (a = |x|; tools/crmath/gen_erf.py makes the tables and prints
 * the bounds quoted here):
 * - a < 1/16: erf(a) = a (C0 + C1 z + z^2 Q(z)), z = a^2, the Taylor series
 *   at 0 (C0, C1 double-doubles, Q of degree 5 in doubles). Below 2^-500,
 *   erf(a) = 2a/sqrt(pi) within 2^-1000 relative, rounded once from a
 *   triple-double product (subnormal results included).
 * - 1/16 <= a < 1: 16 intervals per binade, erf(c + t) = sum a_n t^n at
 *   the interval's centre c (6 bits: t = a - c is exact, |t| <= c/33),
 *   degree 10; a0..a3 double-doubles, the rest in doubles.
 * - 1 <= a < 27.3: erfc(a) = exp(-a^2) G(a), G(x) = exp(x^2) erfc(x) (smooth,
 *   about 1/(x sqrt(pi))) by the same kind of table over [1, 32), degree 14;
 *   exp(-a^2) by exp.h's reduction of -s, s + sl = a^2 exactly, times
 *   (1 - sl) (sl^2/2 < 2^-87 left out).
 * - erf(a) = 1 - erfc(a) for a >= 1, erfc(x) = 1 - erf(x) for |x| < 1,
 *   erfc(-a) = 2 - erfc(a), erf(-x) = -erf(x).
 *
 * Fast path error (relative): the series and tables' truncation below
 * 2^-75.8, the terms of degree 4 and more (Q: degree 2 and more) evaluated
 * in doubles, whose few roundings of a value below 2^-19.3 of the result
 * give below 2^-70.5, the double-double steps (crm_erf_step) 2^-100; exp(-a^2)
 * 2^-69.3 (exp.h's crm_exp_fast). So erf below 2^-70.4 for a < 1, erfc below
 * 2^-68.7 for a >= 1; erf = 1 - erfc (erfc <= 0.16 erf) gains, erfc = 1 - erf
 * (erf <= 5.4 erfc on (0, 1)) loses 2.5 bits: 2^-67.9. The rounding tests
 * use 2^-67 (2^-66 for erfc below 1).
 *
 * Accurate path (triple-double, below 2^-135 relative): erf(a), a < 1, by
 * its series at 0, sum (-z)^n / (n! (2n + 1)), an alternating series whose
 * terms fall below 2^-160; G(a), a < 11, by the recurrence of its Taylor
 * coefficients at the table's centre c from G(c) (a triple-double):
 * k_{n+1} = 2c k_n + 2n k_{n-1} - 2/sqrt(pi) [n = 0], g_n = k_n / n!
 * (an error in G(c) grows by exp(2c|t|) <= e^5.5 over the interval);
 * G(a), a >= 11, by its asymptotic series 1/(a sqrt(pi)) sum (-1)^n
 * (2n-1)!! / (2a^2)^n, cut after the first term below 2^-160 (the error
 * is below the first term left out; the smallest term is below e^-121).
 * Then rounded once, erfc's subnormal results included (crm_round_scaled).
 * No list of erf's hardest cases has been published; like those of the
 * functions that have one, a binary64 function's worst cases are expected
 * about 2^-115 from a rounding boundary, far above 2^-135.
 */
#ifndef CRM_ERF_H
#define CRM_ERF_H

#include "dd.h" /* text */
#include "exp.h" /* text */
#include "erf_tables.h" /* text */

/* a + t v as hi + lo, not renormalised (|lo| a few ulps of hi), where
 * |t v| < |a.hi| (gen_erf.py checks it for every row: |t v| <= 0.99 |a_k|
 * for k = 3 of erf, 0.031 |a_k| for the others): one exact product, one
 * fast two-sum, the low parts added (2^-104 relative) */
CRM_FN crm_dd crm_erf_step(crm_dd a, double t, crm_dd v)
{
    double pl, e;
    double p = crm_two_prod(v.hi, t, &pl);
    double s = crm_fast_two_sum(a.hi, p, &e);
    return crm_dd_make(s, (e + pl) + fma(v.lo, t, a.lo));
}

/* the same where |t v| <= |a.hi| / 2 (every step but erf's a3: about
 * 0.031 |a.hi| at most, below 2^-8 in the series at 0): a.hi + t v.hi rounded by an fma, its
 * error by a second, RN(v.hi t + (a.hi - s)), a.hi - s exact (Sterbenz),
 * within 2^-53 of it (below 2^-106 |s|); three operations fewer */
CRM_FN crm_dd crm_erf_step_near(crm_dd a, double t, crm_dd v)
{
    double s = fma(v.hi, t, a.hi);
    double e = fma(v.hi, t, a.hi - s);
    return crm_dd_make(s, e + fma(v.lo, t, a.lo));
}

/* the centre of a's interval (16 per binade) and its row */
CRM_FN double crm_erf_centre(double a, crm_u64 base, int *i)
{
    crm_u64 b = crm_bits(a);
    *i = (int)((b - base) >> 48);
    return crm_from_bits((b & ~0xffffffffffffULL) | 0x800000000000ULL);
}

/* erf(a), 2^-500 <= a < 1, as a double-double (the fast path) */
CRM_HOT_FN crm_dd crm_erf_fast(double a)
{
    if (a < 0.0625) {
        const double *C = crm_erf_c0;
        double zl, z = crm_two_prod(a, a, &zl);
        double z2 = z * z;
        double q = fma(z2 * z2, fma(z, C[9], C[8]), fma(z2, fma(z, C[7], C[6]), fma(z, C[5], C[4])));
        crm_dd v = crm_erf_step_near(crm_dd_make(C[2], C[3]), z, crm_dd_make(q, 0));
        crm_dd w = crm_erf_step_near(crm_dd_make(C[0], C[1]), z, v);
        w = crm_dd_add_d_fast(w, zl * v.hi);
        return crm_dd_mul_d(w, a);
    }
    int i;
    double t = a - crm_erf_centre(a, 0x3fb0000000000000ULL, &i); /* exact */
    const double *A = crm_erf_t[i];
    double t2 = t * t, t4 = t2 * t2;
    double q = fma(t4, fma(t2, A[14], fma(t, A[13], A[12])), fma(t2, fma(t, A[11], A[10]), fma(t, A[9], A[8])));
    crm_dd v = crm_erf_step(crm_dd_make(A[6], A[7]), t, crm_dd_make(q, 0));
    v = crm_erf_step_near(crm_dd_make(A[4], A[5]), t, v);
    v = crm_erf_step_near(crm_dd_make(A[2], A[3]), t, v);
    return crm_erf_step_near(crm_dd_make(A[0], A[1]), t, v);
}

/* G(a), 1 <= a < 32, as a double-double (the fast path) */
CRM_HOT_FN crm_dd crm_erfc_g_fast(double a)
{
    int i;
    double t = a - crm_erf_centre(a, 0x3ff0000000000000ULL, &i); /* exact */
    const double *g = crm_erfc_t[i];
    double t2 = t * t, t4 = t2 * t2, t8 = t4 * t4;
    double q = fma(t8, fma(t2, g[19], fma(t, g[18], g[17])),
                   fma(t4, fma(t2, fma(t, g[16], g[15]), fma(t, g[14], g[13])),
                       fma(t2, fma(t, g[12], g[11]), fma(t, g[10], g[9]))));
    crm_dd v = crm_erf_step_near(crm_dd_make(g[7], g[8]), t, crm_dd_make(q, 0));
    v = crm_erf_step_near(crm_dd_make(g[5], g[6]), t, v);
    v = crm_erf_step_near(crm_dd_make(g[3], g[4]), t, v);
    return crm_erf_step_near(crm_dd_make(g[0], g[1]), t, v);
}

/* exp(-s) as T 2^e, T a double-double near [0.7, 2) within 2^-69.3
 * (exp.h's own fast path, renormalized: th >= 1 > |lo|), s <= 745.3 */
CRM_HOT_FN crm_dd crm_erfc_expm(double s, int *e)
{
    double rh, rl, lo;
    int j;
    *e = crm_exp_split(crm_exp_reduce_short(-s, &rh, &rl), &j);
    double h = crm_exp_fast(rh, rl, j, &lo);
    crm_dd t;
    t.hi = crm_fast_two_sum(h, lo, &t.lo);
    return t;
}

/* erfc(a) = y 2^e, 1 <= a < 27.3, y a double-double (the fast path) */
CRM_HOT_FN crm_dd crm_erfc_fast(double a, int *e)
{
    double sl, s = crm_two_prod(a, a, &sl);
    crm_dd E = crm_erfc_expm(s, e);
    crm_dd G = crm_erfc_g_fast(a);
    /* exp(-sl) = 1 - sl, folded into G's low part (|G.hi sl| < 2^-43 G:
     * the product below leaves out G.lo E.lo, below 2^-96 of it) */
    G.lo = fma(-G.hi, sl, G.lo);
    return crm_dd_mul(E, G);
}

/* ---- the accurate path (triple-double) ---- */

CRM_FN crm_td crm_erf_k_td(int which) { return crm_td_make(crm_erf_k[which][0], crm_erf_k[which][1], crm_erf_k[which][2]); }
CRM_FN crm_td crm_td_of(double d) { return crm_td_make(d, 0, 0); }

/* erf(a), 0 < a < 1, a >= 2^-500: a 2/sqrt(pi) sum (-z)^n / (n! (2n + 1)) */
CRM_COLD_FN crm_td crm_erf_td(double a)
{
    double zl, z = crm_two_prod(a, a, &zl);
    crm_td mz = crm_td_make(-z, -zl, 0);
    crm_td T = crm_td_of(1.0), S = T;
    for (int n = 1; crm_fabs(T.hi) > 0x1p-165; n++) {
        T = crm_td_div(crm_td_mul(T, mz), crm_td_of(n));
        S = crm_td_add(S, crm_td_div(T, crm_td_of(2 * n + 1)));
    }
    return crm_td_mul_d(crm_td_mul(S, crm_erf_k_td(0)), a);
}

/* G(a), 1 <= a < 27.3 (see the top) */
CRM_COLD_FN crm_td crm_erfc_g_td(double a)
{
    if (a >= 11) {
        double zl, z = crm_two_prod(a, a, &zl);
        crm_td z2 = crm_td_make(2 * z, 2 * zl, 0);
        crm_td T = crm_td_of(1.0), S = T;
        for (int n = 1; crm_fabs(T.hi) > 0x1p-160; n++) {
            T = crm_td_div(crm_td_mul_d(T, -(2.0 * n - 1)), z2);
            S = crm_td_add(S, T);
        }
        return crm_td_div(crm_td_mul(S, crm_erf_k_td(1)), crm_td_of(a));
    }
    int i;
    double c = crm_erf_centre(a, 0x3ff0000000000000ULL, &i);
    double t = a - c; /* exact */
    const double *g = crm_erfc_t[i];
    /* k_0 = G(c), k_1 = 2c k_0 - 2/sqrt(pi); p_n = t^n / n! */
    crm_td k0 = crm_td_make(g[0], g[1], g[2]);
    crm_td k1 = crm_td_sub(crm_td_mul_d(k0, 2 * c), crm_erf_k_td(0));
    crm_td p = crm_td_of(t), S = crm_td_add(k0, crm_td_mul_d(k1, t));
    for (int n = 1; n < 80; n++) {
        crm_td k2 = crm_td_add(crm_td_mul_d(k1, 2 * c), crm_td_mul_d(k0, 2.0 * n));
        p = crm_td_div(crm_td_mul_d(p, t), crm_td_of(n + 1));
        crm_td term = crm_td_mul(k2, p);
        S = crm_td_add(S, term);
        if (crm_fabs(term.hi) < 0x1p-165 * crm_fabs(S.hi)) break;
        k0 = k1;
        k1 = k2;
    }
    return S;
}

/* erfc(a) = y 2^e, 1 <= a < 27.3 */
CRM_COLD_FN crm_td crm_erfc_td(double a, int *e)
{
    double sl, s = crm_two_prod(a, a, &sl);
    double rh, rl;
    double kd = crm_exp_reduce(-s, &rh, &rl);
    int j;
    *e = crm_exp_split(kd, &j);
    crm_td r = crm_td_sub(crm_exp_reduce_td(-s, kd), crm_td_of(sl));
    crm_td E = crm_td_mul(crm_exp_table_td(j), crm_exp_series_td(r, 0));
    return crm_td_mul(E, crm_erfc_g_td(a));
}

/* erf's accurate path, 2^-500 <= a < 6, sign the result's */
CRM_COLD_FN double crm_erf_slow(double a, double sign)
{
    crm_td y;
    if (a < 1) {
        y = crm_erf_td(a);
    } else {
        int e;
        crm_td c = crm_erfc_td(a, &e);
        y = crm_td_sub(crm_td_of(1.0), crm_td_scale(c, e));
    }
    return sign * crm_td_round(y);
}

/* erfc's accurate path, 2^-56 <= |x| < 27.3 */
CRM_COLD_FN double crm_erfc_slow(double x)
{
    double a = crm_fabs(x);
    if (a < 1) {
        crm_td y = crm_erf_td(a);
        return crm_td_round(crm_td_sub(crm_td_of(1.0), x < 0 ? crm_td_neg(y) : y));
    }
    int e;
    crm_td c = crm_erfc_td(a, &e);
    if (x < 0) return crm_td_round(crm_td_sub(crm_td_of(2.0), crm_td_scale(c, e)));
    return crm_round_scaled(c.hi, c.mi, c.lo, e);
}

/* k + y, k = 1 or 2 and |y.hi| <= 0.85 (erf below 1, erfc from 1 on: at
 * most 0.16): k + y.hi by a fast two-sum (exact), the low parts added once
 * (below 2^-51: 2^-104, 2^-101.3 of a result >= 0.157) and not
 * renormalised (the rounding test takes any low part); a two-sum and a
 * renormalisation fewer than crm_dd_add_d */
CRM_FN crm_dd crm_erf_add_k(double k, crm_dd y)
{
    double e, h = crm_fast_two_sum(k, y.hi, &e);
    return crm_dd_make(h, e + y.lo);
}

CRM_FN double brm_erf(double x)
{
    double a = crm_fabs(x);
    double sign = x < 0 ? -1.0 : 1.0;
    if (!CRM_LIKELY(a >= 0x1p-500 && a < 6)) {
        if (a != a) return x + x;
        if (a >= 6) return sign; /* erfc(6) < 2^-54: 1 - erfc rounds to 1 */
        if (a == 0) return x;
        /* erf(a) = 2a/sqrt(pi) (1 - a^2/3 ...), a^2 < 2^-1000 */
        crm_td y = crm_td_mul_d(crm_erf_k_td(0), x * 0x1p600);
        return crm_round_scaled(y.hi, y.mi, y.lo, -600);
    }
    crm_dd y;
    if (a < 1) {
        y = crm_erf_fast(a);
    } else {
        int e;
        crm_dd c = crm_erfc_fast(a, &e);
        double s = crm_pow2i(e);
        y = crm_erf_add_k(1.0, crm_dd_make(-c.hi * s, -c.lo * s));
    }
    double out;
    if (CRM_LIKELY(crm_round_test(y.hi, y.lo, 0x1p-67, &out))) return sign * out;
    return crm_erf_slow(a, sign);
}

CRM_FN double brm_erfc(double x)
{
    double a = crm_fabs(x);
    if (!CRM_LIKELY(a >= 0x1p-56 && a < 27.3)) {
        if (a != a) return x + x;
        if (a < 0x1p-56) return 1.0; /* |erfc(x) - 1| < 2^-55.8 */
        return x > 0 ? 0 : 2.0;      /* below 2^-1075 or above 2 - 2^-54 */
    }
    crm_dd y;
    double out;
    if (a < 1) {
        y = crm_erf_fast(a);
        if (x > 0) y = crm_dd_neg(y);
        y = crm_erf_add_k(1.0, y);
        if (CRM_LIKELY(crm_round_test(y.hi, y.lo, 0x1p-66, &out))) return out;
        return crm_erfc_slow(x);
    }
    if (x < -6) return 2.0; /* erfc(6) < 2^-53: 2 - erfc rounds to 2 */
    int e;
    crm_dd c = crm_erfc_fast(a, &e);
    if (x < 0) {
        double s = crm_pow2i(e);
        y = crm_erf_add_k(2.0, crm_dd_make(-c.hi * s, -c.lo * s));
        if (CRM_LIKELY(crm_round_test(y.hi, y.lo, 0x1p-67, &out))) return out;
    } else if (CRM_LIKELY(e > -1000)) {
        if (CRM_LIKELY(crm_round_test(c.hi, c.lo, 0x1p-67, &out))) return out * crm_pow2i(e); /* normal: exact */
    }
    return crm_erfc_slow(x);
}

#endif
