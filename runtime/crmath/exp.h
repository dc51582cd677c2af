/*
 * exp.h: brm_exp, brm_exp2, brm_expm1, correctly rounded to nearest.
 *
 * Reduction (Tang's table method): x = k ln2/128 + r, |r| <= ln2/256
 * (2^-8.52), k = 128 E + j, so exp(x) = 2^E * 2^(j/128) * exp(r); for exp2,
 * x = k/128 + f exactly and r = f ln2. ln2/128 is split in four parts, the
 * first two of 34 bits, so t = x - k L1 and k L2 are exact (|k| < 2^18).
 *
 * Fast path (double-double): P = expm1(r) = rh + rh^2/2 (exact: two_prod)
 * + a degree-7 tail r^3 (1/6 + ... + r^4/5040) in doubles. Its absolute
 * error is below 2^-77.9 |r| / 2^-8.52 for |r| at most 2^-8.52: the
 * tail's roundings (5 ulps of r^3/6 <= 2^-28.1: 2^-78.8), the low sum's
 * (2^-79.4), the truncation r^8/8! (2^-83.5), and relative to |r| at most
 * 2^-69.4. exp(r) * T_j = th + th P + tl (1 + P) adds below 2^-101, so the
 * result's relative error is below 2^-76.5: the rounding test uses 2^-74.
 * expm1 = (T 2^E - 1) + T 2^E P: 2^-69 relative when k = 0 (test 2^-67),
 * 2^-73 otherwise (|B| <= 4 |result|; test 2^-71); from |x| = 0.35 on,
 * exp's own fast path less 1 instead (crm_expm1_big: 2^-66.8, test 2^-66).
 *
 * Accurate path (triple-double): r to 2^-160, exp(r) = sum r^n/n!, n <= 12
 * (truncation 2^-143 relative), Horner in triple-double (2^-148 per
 * operation), times T_j: relative error below 2^-140, against the
 * published worst cases (Lefevre and Muller's searches), which sit at most
 * about 2^-115 from a rounding boundary; then rounded once, subnormal
 * results included (crm_round_scaled). tests/math/hard.txt holds them.
 */
#ifndef CRM_EXP_H
#define CRM_EXP_H

#include "dd.h" /* text */
#include "exp_data.h" /* text */

#define CRM_EXP_C3 0x1.5555555555555p-3  /* 1/6 */
#define CRM_EXP_C4 0x1.5555555555555p-5  /* 1/24 */
#define CRM_EXP_C5 0x1.1111111111111p-7  /* 1/120 */
#define CRM_EXP_C6 0x1.6c16c16c16c17p-10 /* 1/720 */
#define CRM_EXP_C7 0x1.a01a01a01a01ap-13 /* 1/5040 */

/* The reduction of x for exp: k (as a double, |k| < 2^18) and r = rh + rl
 * normalized (|rl| <= 2^-62), as expm1's polynomial needs. */
CRM_FN double crm_exp_reduce(double x, double *rh, double *rl)
{
    double kd = crm_rint(x * CRM_EXP_INV);
    double t = x - kd * CRM_EXP_L1; /* exact */
    double e;
    *rh = crm_two_sum(t, -(kd * CRM_EXP_L2), &e);
    *rl = e - kd * CRM_EXP_L3;
    return kd;
}

/* The same k, and r = rh + rl in three operations, for crm_exp_fast
 * (exp, cosh, sinh), which takes |rl| up to 2^-45: with S1 = RN(ln2/128) =
 * LN2_HI 2^-7 and S2 = LN2_MI 2^-7 (ln2/128 - S1 rounded; |S2| < 2^-62.4),
 * rh = x - k S1 is exact by one fma: k S1 is a multiple of ulp(S1) =
 * 2^-60, x one of 2^-61 unless |x| < 2^-9 (then k = 0 and rh = x), and
 * |x - k S1| <= |r| + |k S2| < 2^-8.5, so it is a multiple of 2^-61 below
 * 2^-8 (53 bits). rl = RN(-k S2): |rl| < 2^17.07 2^-62.4 = 2^-45.3 (|x| <
 * 745.5, |k| <= 137700), its rounding 2^-99, S2's truncation (2^-116)
 * times k 2^-99: rh + rl within 2^-98 of r. (crm_exp_reduce's two-sum
 * costs six operations more on the fast path's chain.) */
CRM_FN double crm_exp_reduce_short(double x, double *rh, double *rl)
{
    double kd = crm_rint(x * CRM_EXP_INV);
    *rh = fma(-kd, CRM_LN2_HI * 0x1p-7, x); /* exact */
    *rl = -kd * (CRM_LN2_MI * 0x1p-7);
    return kd;
}

/* The same r as a triple-double (to 2^-160 absolute) */
CRM_FN crm_td crm_exp_reduce_td(double x, double kd)
{
    double t = x - kd * CRM_EXP_L1;
    double a2, p3l;
    double a1 = crm_two_sum(t, -(kd * CRM_EXP_L2), &a2);
    double p3 = crm_two_prod(kd, CRM_EXP_L3, &p3l);
    return crm_td_add(crm_td_make(a1, a2, 0), crm_td_make(-p3, -p3l, -(kd * CRM_EXP_L4)));
}

/* P = expm1(rh + rl) as a double-double, |rh| <= 2^-8.5 (error: see the top) */
CRM_FN crm_dd crm_expm1_poly(double rh, double rl)
{
    double s2l;
    double s2 = crm_two_prod(rh, rh, &s2l);
    /* Estrin with fma: (C3 + C4 r) + r^2 ((C5 + C6 r) + r^2 C7) */
    double q = fma(s2, fma(s2, CRM_EXP_C7, fma(rh, CRM_EXP_C6, CRM_EXP_C5)), fma(rh, CRM_EXP_C4, CRM_EXP_C3));
    double b;
    double a = crm_fast_two_sum(rh, 0.5 * s2, &b);
    double lo = b + (0.5 * s2l + (rl + rh * rl) + s2 * rh * q);
    crm_dd p;
    p.hi = crm_fast_two_sum(a, lo, &p.lo);
    return p;
}

/* exp and exp2's own fast path, T_j = th + tl given: T_j exp(r) as h + *lo (not renormalized,
 * |lo| < 2^-17), relative error below 2^-69.3; the rounding test uses
 * 2^-68. r = rh + rl within 2^-98, |rh| <= 2^-8.52, |rl| <= 2^-45.3 (not
 * normalized: crm_exp_reduce_short). (crm_expm1_poly and
 * crm_exp_scale_table, a double-double to 2^-76.5 for sinh, cosh, tanh and
 * expm1, cost half as much again.)
 *
 * exp(r) = 1 + rh + Q, Q = rh^2/2 + rh^3 B(rh) + rl (1 + rh + rh^2/2),
 * B the Taylor series 1/6 + ... + rh^4/7! (truncation r^8/8! < 2^-83.5;
 * rl's terms left out, rl rh^3/6 and rl^2/2, below 2^-73.4): z + zl =
 * rh^2 exactly, v = zl/2 + rl (1 + rh) (|v| < 2^-45.2, its roundings
 * 2^-98), then Q = z (rh B + rl/2) + (z/2 + v). Q's error: two roundings
 * of a value below 2^-18 (2^-72 each), B's roundings times rh z (2^-80),
 * rh B + rl/2's (below 2^-11.1: 2^-64.1 times z, 2^-81.2), rl's terms
 * left out (2^-73.4), the reduction (2^-98): below 2^-70.75 in all.
 * T (1 + rh + Q) = th + th rh + th Q + tl (1 + rh + Q): s = RN(th + th
 * rh) by one fma, its error th + th rh - s (at most ulp(s)/2 <= 2^-52,
 * s < 2.02) by a second fma, RN(th rh + (th - s)), th - s exact
 * (Sterbenz: s is within 2^-8.5 of th relative): t within 2^-105 of it;
 * the rest in double: th Q's error th 2^-70.75, two roundings of values
 * below 2^-17 (2^-71 each), the table 2^-106; over the result, at least
 * 0.997 th, below (1.19 1.01 + 2/th) 2^-71 / 0.997 <= 2^-69.3 (th >= 1).
 * The test's own roundings of lo -+ e (2^-71) fit in the room below
 * 2^-68.
 *
 * lean (exp2's, crm_exp2_core, where |rl| <= 2^-61.6): B without its
 * last term (truncation rh^7/7! <= 2^-71.94), zl/2 left out (|zl| <=
 * ulp(z)/2 <= 2^-71: 2^-72), and of rl's terms only rl itself (rl rh <=
 * 2^-70.1, z rl/2 <= 2^-79.6 left out), four operations fewer: Q within
 * (1.19 + 0.52 + 0.5 + 1.87) 2^-71 = 4.08 2^-71, the result within (4.08
 * 1.01 + 2/th) 2^-71 / 0.997 <= 2^-68.38; the test's 2^-68 leaves 2^-70.1
 * of room for its own roundings (2^-71). */
CRM_HOT_FN double crm_exp_fast_tk(double rh, double rl, double th, double tl, double *lo, int lean)
{
    double zl, z = crm_two_prod(rh, rh, &zl);
    double bq = lean ? fma(z, fma(rh, CRM_EXP_C6, CRM_EXP_C5), fma(rh, CRM_EXP_C4, CRM_EXP_C3))
                     : fma(z, fma(z, CRM_EXP_C7, fma(rh, CRM_EXP_C6, CRM_EXP_C5)), fma(rh, CRM_EXP_C4, CRM_EXP_C3));
    double q = lean ? fma(z, rh * bq, fma(0.5, z, rl))
                    : fma(z, fma(rh, bq, 0.5 * rl), fma(0.5, z, fma(0.5, zl, fma(rh, rl, rl))));
    double s = fma(th, rh, th);
    double t = fma(th, rh, th - s); /* th - s exact */
    *lo = t + fma(th, q, fma(tl, rh + q, tl));
    return s;
}

CRM_HOT_FN double crm_exp_fast_t(double rh, double rl, double th, double tl, double *lo)
{
    return crm_exp_fast_tk(rh, rl, th, tl, lo, 0);
}

/* the same with T_j = th + tl read from the table (lanes.h reads it for all
 * its lanes at once) */
CRM_HOT_FN double crm_exp_fast(double rh, double rl, crm_i64 j, double *lo)
{
    return crm_exp_fast_t(rh, rl, crm_exp_t[j][0], crm_exp_t[j][1], lo);
}

/* T_j exp(r) = T_j (1 + P) as a double-double, T_j in [1, 2) */
CRM_FN crm_dd crm_exp_scale_table(int j, crm_dd p)
{
    double th = crm_exp_t[j][0], tl = crm_exp_t[j][1];
    double b, e;
    double a = crm_two_prod(th, p.hi, &b);
    double s = crm_fast_two_sum(th, a, &e);
    double lo = e + (b + (tl + (th * p.lo + tl * p.hi)));
    crm_dd r;
    r.hi = crm_fast_two_sum(s, lo, &r.lo);
    return r;
}

/* sum r^n/n!, n = from..12, r a triple-double, by Horner */
CRM_FN crm_td crm_exp_series_td(crm_td r, int from)
{
    crm_td y = crm_td_make(crm_exp_inv_fact[12][0], crm_exp_inv_fact[12][1], crm_exp_inv_fact[12][2]);
    for (int n = 11; n >= from; n--)
        y = crm_td_add(crm_td_mul(y, r), crm_td_make(crm_exp_inv_fact[n][0], crm_exp_inv_fact[n][1], crm_exp_inv_fact[n][2]));
    return y;
}

CRM_FN crm_td crm_exp_table_td(int j)
{
    return crm_td_make(crm_exp_t[j][0], crm_exp_t[j][1], crm_exp_t[j][2]);
}

/* 2^E T_j exp(r), correctly rounded (the accurate path) */
CRM_FN double crm_exp_accurate(crm_td r, int j, int e)
{
    crm_td y = crm_td_mul(crm_exp_table_td(j), crm_exp_series_td(r, 0));
    return crm_round_scaled(y.hi, y.mi, y.lo, e);
}

/* exp's and exp2's accurate path, out of line: r as a triple-double from
 * x and k (exp2 when two) */
CRM_COLD_FN double crm_exp_slow(double x, double kd, int j, int e, int two)
{
    crm_td r;
    if (two)
        r = crm_td_mul_d(crm_td_make(CRM_LN2_HI, CRM_LN2_MI, CRM_LN2_LO), (x * 128 - kd) * 0x1p-7);
    else
        r = crm_exp_reduce_td(x, kd);
    return crm_exp_accurate(r, j, e);
}

/* k = 128 E + j */
CRM_FN int crm_exp_split(double kd, int *j)
{
    int k = (int)kd;
    *j = k & 127;
    return k >> 7; /* floor(k / 128): an arithmetic shift (gcc, clang, tcc, NVRTC) */
}

CRM_FN double brm_exp(double x)
{
    crm_u64 ax = crm_bits(x) & 0x7fffffffffffffffULL;
    /* outside 2^-54 <= |x| < 709.75: one unsigned comparison */
    if (!CRM_LIKELY(ax - 0x3c90000000000000ULL < 0x40862e0000000000ULL - 0x3c90000000000000ULL)) {
        if (ax > 0x7ff0000000000000ULL) return x + x;   /* NaN */
        if (x > 709.8) return crm_inf();                 /* above DBL_MAX, +inf */
        if (x <= -746) return 0;                         /* below 2^-1076, -inf */
        if (ax < 0x3c90000000000000ULL) return 1.0 + x; /* |x| < 2^-54 */
    }
    double rh, rl;
    double kd = crm_exp_reduce_short(x, &rh, &rl);
    int j, e = crm_exp_split(kd, &j);
    if (CRM_LIKELY(e > -1022)) {
        double lo, out, h = crm_exp_fast(rh, rl, j, &lo);
        if (CRM_LIKELY(crm_round_test(h, lo, 0x1p-68, &out))) return crm_scale_normal(out, e);
    }
    return crm_exp_slow(x, kd, j, e, 0);
}

/* exp2 of x, 2^-54 <= |x| < 1076, past the special cases; edge: whether
 * |x| may be 1020 or more. k = crm_rint(x 128) and f = (x 128 - k) 2^-7
 * (exact), each one operation fewer (x 128 is exact); r = f ln2 = rh + rl
 * within 2^-114, rl f LN2_MI plus rh's error in one rounding (|f| <=
 * 2^-8: |rh| < 2^-8.5, its error at most 2^-62, |f LN2_MI| < 2^-63.3, so
 * |rl| <= 2^-61.6, as crm_exp_fast_tk's lean form needs). For |x| <
 * 1020, |k| <= 1020 128, so -1020 <= E <= 1020 and out 2^E (out in [0.5,
 * 4)) is normal: one exact product, no test on E (crm_scale_normal's test
 * for E = 1024 and the subnormal one only where edge) */
CRM_HOT_FN double crm_exp2_core(double x, int edge)
{
    double kd = fma(x, 128.0, 6755399441055744.0) - 6755399441055744.0;
    double f = fma(-kd, 0x1p-7, x); /* exact */
    int j, e = crm_exp_split(kd, &j);
    if (!edge || e > -1022) {
        double rh = f * CRM_LN2_HI;
        double rl = fma(f, CRM_LN2_MI, fma(f, CRM_LN2_HI, -rh));
        double lo, out, h = crm_exp_fast_tk(rh, rl, crm_exp_t[j][0], crm_exp_t[j][1], &lo, 1);
        if (CRM_LIKELY(crm_round_test(h, lo, 0x1p-68, &out)))
            return edge ? crm_scale_normal(out, e) : out * crm_pow2i(e);
    }
    return crm_exp_slow(x, kd, j, e, 1);
}

/* exp2 where 1020 <= |x| < 1076 (2^E not normal, or 2^1024), out of line */
CRM_COLD_FN double crm_exp2_edge(double x) { return crm_exp2_core(x, 1); }

CRM_FN double brm_exp2(double x)
{
    crm_u64 ax = crm_bits(x) & 0x7fffffffffffffffULL;
    /* outside 2^-54 <= |x| < 1020 (where 2^E is normal): one unsigned comparison */
    if (!CRM_LIKELY(ax - 0x3c90000000000000ULL < 0x408fe00000000000ULL - 0x3c90000000000000ULL)) {
        if (ax > 0x7ff0000000000000ULL) return x + x;
        if (x >= 1024) return crm_inf();
        if (x <= -1076) return 0;
        if (ax < 0x3c90000000000000ULL) return 1.0 + x; /* |x| < 2^-54 */
        return crm_exp2_edge(x);
    }
    return crm_exp2_core(x, 0);
}

/* expm1(x) as a double-double, -37.5 <= x <= 709, from its reduction: within
 * 2^-69 relative when k = 0, 2^-73 otherwise (see the top) */
CRM_HOT_FN crm_dd crm_expm1_fast(double kd, double rh, double rl, int j, int e)
{
    crm_dd p = crm_expm1_poly(rh, rl);
    if (kd == 0) return p;
    /* A = T 2^E - 1, B = T 2^E P */
    double th = crm_exp_t[j][0], tl = crm_exp_t[j][1];
    double s = crm_pow2i(e);
    double a2, b2, l;
    double a1 = crm_two_sum(th * s, -1.0, &a2); /* exact */
    double b1 = crm_two_prod(th, p.hi, &b2);    /* exact */
    double h = crm_two_sum(a1, b1 * s, &l);      /* exact */
    crm_dd y;
    y.hi = crm_fast_two_sum(h, l + (a2 + (tl * s + (b2 + th * p.lo + tl * p.hi) * s)), &y.lo);
    return y;
}

/* expm1(x) as a double-double for 0.35 <= |x|, -37.5 <= x <= 709, from
 * exp's own fast path (crm_exp_fast on the short reduction: Y = h + lo
 * within 2^-69.3): e^x - 1 = (h 2^E - 1) (exact by a two-sum) + lo 2^E
 * (exact), the low parts' sum rounded once (its terms at most 2^-53 of the
 * result and 2^-17 of e^x: 2^-70 of e^x), then a fast two-sum. e^x is at
 * most 3.39 times |e^x - 1| (x >= 0.35; 2.39 for x <= -0.35), so within
 * (2^-69.3 + 2^-70) 3.39 + 2^-106 < 2^-66.8 relative; the test uses
 * 2^-66. k, j, E as crm_exp_reduce's (the accurate path's). */
CRM_HOT_FN crm_dd crm_expm1_big(double x, double *kd, int *j, int *e)
{
    double rh, rl, lo;
    *kd = crm_exp_reduce_short(x, &rh, &rl);
    *e = crm_exp_split(*kd, j);
    double h = crm_exp_fast(rh, rl, *j, &lo);
    double s = crm_pow2i(*e);
    double a2, a1 = crm_two_sum(h * s, -1.0, &a2);
    crm_dd y;
    y.hi = crm_fast_two_sum(a1, a2 + lo * s, &y.lo);
    return y;
}

/* the same as a triple-double, within 2^-140 relative */
CRM_FN crm_td crm_expm1_td(double x, double kd, int j, int e)
{
    crm_td r = crm_exp_reduce_td(x, kd);
    crm_td pt = crm_td_mul(crm_exp_series_td(r, 1), r);
    if (kd == 0) return pt;
    double s = crm_pow2i(e);
    crm_td t = crm_exp_table_td(j);
    crm_td a = crm_td_add(crm_td_make(t.hi * s, t.mi * s, t.lo * s), crm_td_make(-1.0, 0, 0));
    crm_td b = crm_td_mul(t, pt);
    return crm_td_add(a, crm_td_make(b.hi * s, b.mi * s, b.lo * s));
}

CRM_FN double brm_expm1(double x)
{
    crm_u64 ax = crm_bits(x) & 0x7fffffffffffffffULL;
    if (ax >= 0x4086300000000000ULL) { /* |x| >= 710, inf, NaN */
        if (ax > 0x7ff0000000000000ULL) return x + x;
        if (x > 0) return crm_inf();
        return -1.0 + 0x1p-100;
    }
    /* e^x >= 2^1022: the -1 is far below half an ulp, and no exponential
     * lies within 2^-1000 (relative) of a rounding boundary */
    if (x > 709) return brm_exp(x);
    if (x < -37.5) return -1.0 + 0x1p-100; /* e^x < 2^-54: -1 */
    if (ax < 0x3c90000000000000ULL) return x; /* |x| < 2^-54 */
    double kd, out;
    int j, e;
    if (ax >= 0x3fd6666666666666ULL) { /* |x| >= 0.35 */
        crm_dd y = crm_expm1_big(x, &kd, &j, &e);
        if (crm_round_test(y.hi, y.lo, 0x1p-66, &out)) return out;
    } else {
        double rh, rl;
        kd = crm_exp_reduce(x, &rh, &rl);
        e = crm_exp_split(kd, &j);
        crm_dd y = crm_expm1_fast(kd, rh, rl, j, e);
        if (crm_round_test(y.hi, y.lo, kd == 0 ? 0x1p-67 : 0x1p-71, &out)) return out;
    }
    return crm_td_round(crm_expm1_td(x, kd, j, e));
}

#endif
