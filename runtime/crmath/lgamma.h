/*
 * lgamma.h: brm_lgamma (ln|gamma(x)|) and brm_gamma (C's tgamma): brine's
 * own, not correctly rounded, but within a stated bound of it and the
 * same bits everywhere (only + - * /, fma and tables: docs/stdlib.md).
 *
 * lgamma(u) for u > 0 as a double-double L (tools/crmath/gen_lgamma.py
 * makes the tables and prints the bounds quoted here):
 * - 1/16 <= u < 16: 16 intervals per binade, lgamma(c + t) = sum a_n t^n,
 *   degree 20, a0..a3 double-doubles; c is the midpoint (t = u - c exact)
 *   or, on the intervals touching lgamma's zeros 1 and 2, the zero itself,
 *   so the result keeps its relative accuracy there. Truncation below
 *   2^-83.4 relative, the terms in doubles (below 2^-12.9 of the result)
 *   below 2^-64 relative.
 * - u >= 16: Stirling, (u - 1/2) log u - u + log(2 pi)/2 + sum B_2k /
 *   (2k (2k-1) u^(2k-1)), k <= 8 (left out: 2^-70.4), log u by log.h's
 *   crm_log_s and crm_log_combine (absolute error below 2^-73), the
 *   products in double-double.
 * - u < 1/16: lgamma(u) = lgamma(1 + u) - log u, lgamma(1 + u) from the
 *   row at 1 with t = u (exact).
 * - x < 0: lgamma(x) = log(pi) - log|sin(pi x)| - lgamma(1 - x) (the
 *   reflection), sin(pi s), s = the distance of |x| to the nearest
 *   integer, by its series (cos(pi (1/2 - s)) above 1/4); 1 - x = u + ul
 *   exactly, lgamma(u + ul) = lgamma(u) + psi(u) ul. Near the zeros of
 *   lgamma on the negative axis (x between -2 and -20, where |gamma(x)| =
 *   1) the three terms cancel: their error, below 2^-63.5 absolute, is
 *   below 2^-59.4 of the result where |lgamma(x)| > 2^-4.1; closer to
 *   each zero z0 (34 of them, x in (-19, -2)), lgamma(z0 + t) = sum b_k
 *   t^k, its Taylor series at z0 (degree 40, b1..b5 double-doubles),
 *   within 2^-62 relative.
 *   |x| < 1/16: lgamma(1 + x) - log|x| as above.
 * So lgamma is within 2^-59.4 relative of the exact value, 0.5 + 2^-7.4
 * ulp (0.506).
 *
 * gamma(x) = exp(L) (x > 0) and sign(sin(pi x)) exp(L) (x < 0), the
 * exponential of the double-double L by exp.h's reduction, rounded once
 * (subnormal results included): L's absolute error, at most 2^-62 |L| with
 * |L| < 760, is the result's relative error, so gamma is within
 * 2^-52.4 relative, about 0.5 + 2^-3 ulp, at the far ends of its range
 * (x near 171 or -180), and 0.5 + 2^-10 ulp for |x| < 16. Integers up to
 * 23 give n! exactly (a double within 2^-60 of the exact value).
 */
#ifndef CRM_LGAMMA_H
#define CRM_LGAMMA_H

#include "dd.h" /* text */
#include "exp.h" /* text */
#include "log.h" /* text */
#include "lgamma_tables.h" /* text */

#define CRM_LGAMMA_ONE 64 /* the row of [1, 1 + 1/16), centred at 1 */

/* a + t v as hi + lo, not renormalised: any signs and sizes */
CRM_HOT_FN crm_dd crm_lg_step(crm_dd a, double t, crm_dd v)
{
    double pl, e;
    double p = crm_two_prod(v.hi, t, &pl);
    double s = crm_two_sum(a.hi, p, &e);
    return crm_dd_make(s, (e + pl) + fma(v.lo, t, a.lo));
}

/* log x, x > 0 finite, as a double-double (log.h's crm_log_s and
 * crm_log_combine: absolute error below 2^-73); inlined, as the fast path's */
CRM_HOT_FN crm_dd crm_lg_log(double x)
{
    int e, i;
    double r;
    crm_log_reduce(x, &e, &i, &r);
    return crm_log_combine(CRM_LN, e, crm_log_s(i, r));
}

/* lgamma(c + t) from row i, |t| within the row's interval; *psi gets
 * lgamma'(c + t) within 2^-14 |lgamma'| (for a low part of the argument:
 * psi ul then errs by 2^-67) */
CRM_HOT_FN crm_dd crm_lg_row(int i, double t, double *psi)
{
    const double *A = crm_lgamma_t[i];
    double t2 = t * t, t4 = t2 * t2, t8 = t4 * t4;
    double q03 = fma(t2, fma(t, A[12], A[11]), fma(t, A[10], A[9]));
    double q47 = fma(t2, fma(t, A[16], A[15]), fma(t, A[14], A[13]));
    double q8b = fma(t2, fma(t, A[20], A[19]), fma(t, A[18], A[17]));
    double qcf = fma(t2, fma(t, A[24], A[23]), fma(t, A[22], A[21]));
    double q = fma(t8 * t8, A[25], fma(t8, fma(t4, qcf, q8b), fma(t4, q47, q03)));
    *psi = fma(t, fma(t, 3 * A[7], 2 * A[5]), A[3]); /* a1 + 2 a2 t + 3 a3 t^2 */
    crm_dd v = crm_lg_step(crm_dd_make(A[7], A[8]), t, crm_dd_make(q, 0));
    v = crm_lg_step(crm_dd_make(A[5], A[6]), t, v);
    v = crm_lg_step(crm_dd_make(A[3], A[4]), t, v);
    return crm_lg_step(crm_dd_make(A[1], A[2]), t, v);
}

/* lgamma(u + ul), u >= 1/16 finite, |ul| <= ulp(u)/2, as a double-double
 * scaled by 2^-16 when u >= 2^1000 (*big set), so that it cannot overflow;
 * with_ul 0 (a constant where inlined: the terms of ul are left out, not
 * multiplied by 0) when ul is 0.
 *
 * Stirling for u >= 16, R = (u - 1/2) L - u + K0 + C, L = log u, K0 =
 * log(2 pi)/2, C = (1/u)(1/12 + w Q(w)) <= 2^-7.5: P = u - 1/2 exact
 * (m + ml: a fast two-sum, u >= 1/2), PL by crm_dd_mul (2^-103); then
 * -u, K0 and C's high part added each by an exact fast two-sum (PL >=
 * u (log 16 - 1/32) > 2.7 u, so |PL - u| >= 1.6 u >= 25 > K0 > C), their
 * errors and the low parts summed in doubles (a handful of terms each
 * below ulp(PL.hi) <= 2^-52 PL, and PL <= 1.6 R: below 2^-100 R) and
 * renormalised once. So R's error is L's (2^-73 absolute, times P <= R
 * / 1.8) and C's (the series, 2^-70.4): below 2^-70 R. */
CRM_HOT_FN crm_dd crm_lg_pos(double u, double ul, int with_ul, int *big)
{
    *big = 0;
    if (u < 16) {
        crm_u64 b = crm_bits(u);
        int i = (int)((b - 0x3fb0000000000000ULL) >> 48);
        double psi;
        crm_dd y = crm_lg_row(i, u - crm_lgamma_t[i][0], &psi); /* exact */
        return with_ul ? crm_dd_add_d(y, psi * ul) : y;
    }
    const double *K = crm_lgamma_st;
    double sc = 1;
    if (u >= 0x1p1000) sc = 0x1p-16, *big = 1;
    crm_dd L = crm_lg_log(u);
    /* (u - 1/2) L, scaled */
    double ml, m = crm_fast_two_sum(u * sc, -0.5 * sc, &ml);
    crm_dd pl = crm_dd_mul(crm_dd_make(m, ml), L);
    /* (1/u) (1/12 + w Q(w)), w = 1/u^2; 1/u = q1 + q2: the remainder 1 -
     * q1 u exact by fma, times q1 (not divided by u: q1 is within 2^-53 of
     * 1/u, so q2 within 2^-52 of itself, 2^-105 of q1) */
    double q1 = 1 / u;
    double q2 = fma(-q1, u, 1.0) * q1;
    double w = q1 * q1;
    double tail = w * fma(w, fma(w, fma(w, fma(w, fma(w, fma(w, K[10], K[9]), K[8]), K[7]), K[6]), K[5]), K[4]);
    double cl, c = crm_two_prod(q1, K[2], &cl);
    cl += q2 * K[2] + q1 * (K[3] + tail);
    if (with_ul) /* psi(u) ul = (L - 1/(2u) - 1/(12 u^2)) ul (next: 1/(120 u^4)), about 2^-53 R at most */
        cl += (L.hi - q1 * fma(q1, K[2], 0.5)) * ul;
    double l1, h1 = crm_fast_two_sum(pl.hi, -u * sc, &l1);
    double l2, h2 = crm_fast_two_sum(h1, K[0] * sc, &l2);
    double l3, h3 = crm_fast_two_sum(h2, c * sc, &l3);
    crm_dd y;
    y.hi = crm_fast_two_sum(h3, (pl.lo + l1) + (l2 + l3) + (K[1] + cl) * sc, &y.lo);
    return y;
}

/* sin(pi s), 0 < s <= 1/2 exact, as a double-double (2^-66 relative) */
CRM_HOT_FN crm_dd crm_lg_sinpi(double s)
{
    int cosine = s > 0.25;
    double v = cosine ? 0.5 - s : s; /* exact */
    const double *T = crm_sinpi_t[cosine];
    double zl, z = crm_two_prod(v, v, &zl);
    double z2 = z * z, z4 = z2 * z2;
    double q = fma(z4, fma(z2, T[13], fma(z, T[12], T[11])), fma(z2, fma(z, T[10], T[9]), fma(z, T[8], T[7])));
    q = fma(z, q, T[6]); /* S3 + z (S4 + ...) */
    /* z's own rounding: (z + zl) times the inner sums, down to S2's */
    crm_dd y = crm_lg_step(crm_dd_make(T[4], T[5]), z, crm_dd_make(q, 0));
    double c2 = y.hi;
    y = crm_lg_step(crm_dd_make(T[2], T[3]), z, y);
    y.lo += zl * c2;
    double c1 = y.hi;
    y = crm_lg_step(crm_dd_make(T[0], T[1]), z, y);
    y.lo += zl * c1;
    return cosine ? y : crm_dd_mul_d(y, v);
}

/* lgamma(x) within R of a zero z0 (row Z of crm_lgamma_z): sum B_k tau^k,
 * tau = (x - z0) / R = th + tl (x - z0.hi is exact: x and z0 are within a
 * factor 2; R is a power of 2; z0 a triple-double) */
CRM_COLD_FN crm_dd crm_lg_zero(const double *Z, double x)
{
    double inv = 1 / Z[3];
    double tl, th = crm_two_sum((x - Z[0]) * inv, -Z[1] * inv, &tl);
    tl -= Z[2] * inv;
    double q = Z[48];
    for (int k = 47; k >= 14; k--) q = fma(q, th, Z[k]);
    crm_dd v = crm_dd_make(q, 0);
    for (int k = 12; k >= 4; k -= 2) v = crm_lg_step(crm_dd_make(Z[k], Z[k + 1]), th, v);
    /* P(th + tl) = P(th) + P'(th) tl, P' in doubles */
    double d = 40 * Z[48];
    for (int k = 47; k >= 14; k--) d = fma(d, th, (k - 8) * Z[k]);
    for (int k = 12; k >= 4; k -= 2) d = fma(d, th, ((k - 2) / 2) * Z[k]);
    crm_dd y = crm_dd_mul_d(v, th);
    return crm_dd_add_d_fast(y, d * tl);
}

/* lgamma(x), x finite, not 0 or a negative integer, as a double-double
 * (scaled by 2^-16 when *big); *neg set when gamma(x) < 0 */
CRM_HOT_FN crm_dd crm_lg(double x, int *big, int *neg)
{
    double a = crm_fabs(x);
    *neg = 0;
    *big = 0;
    if (a < 0.0625) {
        /* lgamma(1 + x) (the row at 1, t = x) - log|x| */
        double psi;
        crm_dd y = crm_lg_row(CRM_LGAMMA_ONE, x, &psi);
        *neg = x < 0;
        return crm_dd_add(y, crm_dd_neg(crm_lg_log(a)));
    }
    if (x > 0) return crm_lg_pos(x, 0, 0, big);
    /* the reflection: log(pi) - log sin(pi s) - lgamma(1 + a) */
    crm_i64 fa = (crm_i64)a;      /* floor(a), a < 2^52 */
    double r = a - (double)fa;    /* exact, in (0, 1) */
    double s = r > 0.5 ? 1 - r : r; /* exact */
    *neg = (fa & 1) == 0;         /* gamma(x) < 0 when floor(a) is even */
    if (fa >= 2 && fa <= 18) {    /* next to a zero: its own series */
        const double *Z = crm_lgamma_z[2 * (fa - 2)];
        if (!(crm_fabs(x - Z[0]) < Z[3])) Z = crm_lgamma_z[2 * (fa - 2) + 1];
        if (crm_fabs(x - Z[0]) < Z[3]) return crm_lg_zero(Z, x);
    }
    crm_dd sn = crm_lg_sinpi(s);
    crm_dd ls = crm_dd_add_d(crm_lg_log(sn.hi), sn.lo / sn.hi);
    double ul, u = crm_two_sum(1.0, a, &ul);
    int b2;
    crm_dd g = crm_lg_pos(u, ul, 1, &b2);
    crm_dd y = crm_dd_add(crm_dd_make(crm_log_pi[0], crm_log_pi[1]), crm_dd_neg(ls));
    return crm_dd_add(y, crm_dd_neg(g));
}

CRM_FN double brm_lgamma(double x)
{
    double a = crm_fabs(x);
    if (!CRM_LIKELY(a < 0x1p1020 && a != 0)) {
        if (a != a) return x + x;
        if (a == 0) return crm_inf();
        if (x > 0 || a == crm_inf()) return crm_inf(); /* overflows; lgamma(-inf) = inf */
    }
    if (x < 0 && (a >= 0x1p52 || a == (double)(crm_i64)a)) return crm_inf(); /* a pole */
    int big, neg;
    crm_dd y = crm_lg(x, &big, &neg);
    double r = y.hi + y.lo;
    return big ? r * 0x1p16 : r;
}

/* exp(h + l) rounded once, subnormal results included, |l| <= 2^-40 */
CRM_FN double crm_lg_exp(double h, double l)
{
    if (h > 709.8) return crm_inf();
    if (h < -746) return 0;
    double rh, rl;
    double kd = crm_exp_reduce(h, &rh, &rl);
    int j, e = crm_exp_split(kd, &j);
    crm_dd T = crm_exp_scale_table(j, crm_expm1_poly(rh, rl));
    T = crm_dd_add_d_fast(T, T.hi * l); /* exp(l) = 1 + l: l^2/2 below 2^-80 */
    return crm_round_scaled(T.hi, T.lo, 0, e);
}

CRM_FN double brm_gamma(double x)
{
    double a = crm_fabs(x);
    if (!CRM_LIKELY(a < 172 && a != 0)) {
        if (a != a) return x + x;
        if (a == 0) return 1 / x;       /* +-inf */
        if (x > 0) return crm_inf();    /* above DBL_MAX from 171.6243769563027 */
        if (a >= 0x1p52) return crm_nan(); /* -inf and the negative integers */
        /* |gamma(x)| < 2^-1076 below -190: a zero with gamma's sign */
        if (a >= 190) return a == (double)(crm_i64)a ? crm_nan() : ((crm_i64)a & 1) == 0 ? -0.0 : 0.0;
    }
    if (x < 0 && a == (double)(crm_i64)a) return crm_nan(); /* a pole */
    int big, neg;
    crm_dd y = crm_lg(x, &big, &neg);
    double r = crm_lg_exp(y.hi, y.lo);
    return neg ? -r : r;
}

#endif
