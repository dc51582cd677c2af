/*
 * log.h: brm_log, brm_log2, brm_log10, brm_log1p, correctly rounded to
 * nearest.
 *
 * Reduction (a table of 128 intervals, tools/gen_crmath.py log): x = 2^e' m'
 * with m' in [0.707, 1.414), i its interval counted from 0.707, c_i an
 * 8-bit approximation of 1/m' on it (1 on the two intervals around 1,
 * CRM_LOG_ONE and the one below), r = m' c_i - 1 exact (one
 * fma: m' c_i has at most 61 bits, r at most 53), |r| <= 2^-7, and
 * log x = e' ln2 + S, S = log m' = -log c_i + log1p(r).
 *
 * Fast path (crm_log_fast): H = e' LN2_1 + Th exactly (LN2_1 and Th, the
 * high part of -log c_i, are multiples of 2^-42, |H| < 2^10), then H +
 * (r - r^2/2): r - r^2/2 by an fma and its error by a second (within
 * 2^-114), H + that by a fast two-sum (|H| >= 1.94 |r| or H = 0); the low
 * parts, Tl + e' LN2_2 (2^-85) and r^3 q(r)
 * (q of degree 7 in doubles, Estrin with fma: truncation r^11/11 <=
 * 2^-80.5, 5 ulps of r^3/3) added in doubles. Relative error: below
 * 2^-72 when e' != 0 (|log x| >= 0.34), 2^-67.8 when c_i != 1 (|S| >=
 * 2^-8, and |r| is small where |S| is: bounded interval by interval), 2^-66 when c_i = 1
 * (S = log1p(r), every error relative to r^2 or r^3); measured against
 * MPFR on 4 10^6 inputs in these regions: 2^-66.7 at worst. log10
 * multiplies it by 1/ln 10 as a double-double (2^-104 more); log2 sums in
 * base 2 from its own table (crm_log2_fast_t, its bounds there); log1p adds
 * ul/u (see brm_log1p). The rounding test uses 2^-64 relative (log1p), or
 * the smaller of that and an absolute bound (log, log2, log10: lanes.h and
 * crm_log2_fast_t derive them), which is far tighter where |log_b x| is
 * large, so that far fewer inputs take the accurate path.
 *
 * Accurate path (triple-double): -log c_i to 2^-160, log1p(r) = sum
 * (-1)^(n+1) r^n/n, n <= 20 (truncation 2^-147), Horner with r exact: below
 * 2^-140 relative, against the published worst cases (Lefevre and
 * Muller's searches), which sit at most about 2^-120 from a rounding
 * boundary (tests/math/hard.txt holds them).
 */
#ifndef CRM_LOG_H
#define CRM_LOG_H

#include "dd.h" /* text */
#include "log_data.h" /* text */

/* x = 2^-sub X, X > 0 normal of bits b: m' (returned), e', the interval i;
 * r = m' c_i - 1. With t = X's bits less those of 0.70703125 (the lowest m'), e' is t's top 12
 * bits (signed) and i the 7 below them: no branch on which half m' is in
 * (random mantissas would mispredict it half the time) */
#define CRM_LOG_OFF 0x3fe6a00000000000ULL
#define CRM_LOG_ONE 75 /* the interval [1, 1 + 2^-7), where c_i = 1 */
CRM_FN double crm_log_reduce_bits(crm_u64 b, int sub, int *e, int *i, double *r)
{
    crm_u64 t = b - CRM_LOG_OFF;
    int k = (int)((t >> 45) & 127);
    *e = (int)((crm_i64)t >> 52) - sub;
    double m = crm_from_bits(b - (t & 0xfff0000000000000ULL));
    *i = k;
    *r = fma(m, crm_log_h[k][2], -1.0); /* c_i, in the fast path's row */
    return m;
}

/* the same of x > 0 finite, subnormals scaled into the normal range */
CRM_FN double crm_log_reduce(double x, int *e, int *i, double *r)
{
    crm_u64 b = crm_bits(x);
    if (b < 0x0010000000000000ULL) return crm_log_reduce_bits(crm_bits(x * 0x1p54), 54, e, i, r);
    return crm_log_reduce_bits(b, 0, e, i, r);
}

/* log1p(r) - r + r^2/2 = r^3 q(r), |r| <= 2^-7, in doubles: q by Estrin's
 * scheme with fma (a dependency chain of three fma's, not seven) */
CRM_FN double crm_log1p_tail(double r)
{
    double r2 = r * r;
    double a = fma(r, crm_log1p_c[3][0], crm_log1p_c[2][0]);
    double b = fma(r, crm_log1p_c[5][0], crm_log1p_c[4][0]);
    double c = fma(r, crm_log1p_c[7][0], crm_log1p_c[6][0]);
    double d = fma(r, crm_log1p_c[9][0], crm_log1p_c[8][0]);
    double q = fma(r2 * r2, fma(r2, d, c), fma(r2, b, a));
    return r2 * r * q;
}

/* S = -log c_i + log1p(r) as a double-double, for pow.h and lgamma.h
 * (log's own fast path is crm_log_fast): log1p(r) = r - r^2/2
 * (exact: two_prod) + r^3 q(r) (crm_log1p_tail: below 2^-73.3 absolute);
 * S's other parts are exact or double-double (2^-104). |S| >= 2^-8 unless
 * c_i = 1, where S = log1p(r) and the tail's error is below 2^-66 |r|: S
 * is within 2^-65.3 |S|, and so are log (crm_log_combine: e' ln2 + S do
 * not cancel, |S| < 0.35), log2 and log10 (S times a double-double
 * constant, 2^-102, then e' log_b 2 added by one fast two-sum: no
 * cancellation). */
CRM_FN crm_dd crm_log_s(crm_i64 i, double r)
{
    double s2l;
    double s2 = crm_two_prod(r, r, &s2l);
    double bl;
    double b = crm_fast_two_sum(r, -0.5 * s2, &bl);
    double lo = bl + (-0.5 * s2l + crm_log1p_tail(r));
    double hl;
    crm_dd s;
    s.hi = crm_fast_two_sum(crm_log_t[i][1], b, &hl); /* |T1| >= 1.94 |b| or T1 = 0 */
    s.lo = hl + (lo + crm_log_t[i][2]); /* not renormalised: the callers sum on */
    return s;
}

/* S as a triple-double (the accurate path) */
CRM_FN crm_td crm_log_s_td(int i, double r)
{
    crm_td y = crm_td_make(crm_log1p_c[19][0], crm_log1p_c[19][1], crm_log1p_c[19][2]);
    for (int n = 18; n >= 0; n--)
        y = crm_td_add(crm_td_mul_d(y, r), crm_td_make(crm_log1p_c[n][0], crm_log1p_c[n][1], crm_log1p_c[n][2]));
    y = crm_td_mul_d(y, r);
    return crm_td_add(crm_td_make(crm_log_t[i][1], crm_log_t[i][2], crm_log_t[i][3]), y);
}

/* Which logarithm: the factor of S and the constant times e' */
enum { CRM_LN, CRM_LOG2, CRM_LOG10 };

/* e' base(2) + S base(e), S's parts given, as a double-double */
CRM_FN crm_dd crm_log_combine(int kind, int e, crm_dd s)
{
    double de = (double)e;
    if (kind == CRM_LN) { /* |e' ln2| >= 0.69 > 0.35 >= |S|, or e' = 0 */
        crm_dd y;
        double l;
        y.hi = crm_fast_two_sum(de * CRM_LOG_LN2_1, s.hi, &l);
        y.lo = l + (s.lo + de * CRM_LOG_LN2_2);
        return y;
    }
    /* P = ph + pl = S / ln b (b = 2 or 10) within 2^-102 |P|: ph s.hi's
     * exact product by the constant's high part, pl the rest (|pl| <=
     * 2^-51 |ph|); |P| <= 0.151 (b = 10) or 0.5 (b = 2), below |e' log_b 2|
     * unless e' = 0, so one fast two-sum adds it, and the sum is at least
     * |P| and half |e' log_b 2| (no cancellation) */
    int two = kind == CRM_LOG2;
    double ch = two ? CRM_LOG_INVLN2_HI : CRM_LOG_INVLN10_HI, cm = two ? CRM_LOG_INVLN2_MI : CRM_LOG_INVLN10_MI;
    double pl;
    double ph = crm_two_prod(s.hi, ch, &pl);
    pl = fma(s.hi, cm, fma(s.lo, ch, pl));
    crm_dd y;
    double l;
    if (two) {
        y.hi = crm_fast_two_sum(de, ph, &l);
        y.lo = l + pl;
    } else { /* e' log10(2) = e' LG2_1 (exact) + e' LG2_2 */
        y.hi = crm_fast_two_sum(de * CRM_LOG_LG2_1, ph, &l);
        y.lo = l + (pl + de * CRM_LOG_LG2_2);
    }
    return y;
}

/* the same with S a triple-double, rounded */
CRM_FN double crm_log_combine_td(int kind, int e, crm_td s)
{
    double de = (double)e;
    crm_td y;
    if (kind == CRM_LN)
        y = crm_td_add(crm_td_mul_d(crm_td_make(CRM_LN2_HI, CRM_LN2_MI, CRM_LN2_LO), de), s);
    else if (kind == CRM_LOG2)
        y = crm_td_add_d(crm_td_mul(s, crm_td_make(CRM_LOG_INVLN2_HI, CRM_LOG_INVLN2_MI, CRM_LOG_INVLN2_LO)), de);
    else
        y = crm_td_add(crm_td_mul_d(crm_td_make(CRM_LOG_LG2_HI, CRM_LOG_LG2_MI, CRM_LOG_LG2_LO), de),
                       crm_td_mul(s, crm_td_make(CRM_LOG_INVLN10_HI, CRM_LOG_INVLN10_MI, CRM_LOG_INVLN10_LO)));
    return crm_td_round(y);
}

/* log x = e' ln2 + S as hi + *lo (not renormalised), from e', r and
 * -log c_i = Th + Tl (crm_log_h): the fast path of log, log2, log10 and
 * log1p (see the top): H = e' LN2_1 + Th exact (both multiples of 2^-42,
 * |H| < 2^10), H + r and then - r^2/2 added exactly, the rest in *lo */
CRM_HOT_FN double crm_log_fast_t(double de, double r, double th, double tl, double *lo)
{
    double h = fma(de, CRM_LOG_LN2_1, th); /* exact */
    /* r - r^2/2 = p + pl: p by one fma (-r/2 exact), pl its error by a
     * second, r - p exact (Sterbenz: |r| <= 2^-7), within 2^-53 of it
     * (2^-114); then H + p by a fast two-sum (|H| >= 1.94 |r| >= |p| or H
     * = 0): the same sum as H + r, then - r^2/2 each added exactly */
    double hr = -0.5 * r;
    double p = fma(hr, r, r), pl = fma(hr, r, r - p);
    double l1, h1 = crm_fast_two_sum(h, p, &l1);
    *lo = ((l1 + pl) + fma(de, CRM_LOG_LN2_2, tl)) + crm_log1p_tail(r);
    return h1;
}


/* log2 x = e' + T2 + log1p(r)/ln2 as hi + *lo (not renormalised), from
 * x's bits, with -log2 c_i = T2h + T2l (crm_log2_h, c_i in the same row; T2h a multiple of
 * 2^-42, T2l within 2^-96) and 1/ln2 = L = LH + LM (within 2^-108 L): the
 * table and the sum in base 2, so no double-double product by 1/ln2 on
 * the chain (crm_log_base's, log10's). H = e' + T2h exactly (|H| < 2^11,
 * a multiple of 2^-42); r - r^2/2 = p + pl as crm_log_fast_t's (within
 * 2^-114); H + p LH = h1 + l1: h1 by one fma, l1 = RN(p LH + (H - h1)) by
 * a second, H - h1 exact: where H and p have the same sign |h1| >= |H|
 * (so H - h1 is a multiple of ulp(H) below |H|), else |p LH| < |H| / 2
 * (Sterbenz), as the table's intervals give: |p LH| <= 0.515 |H| at most
 * (the interval [0.98828125, 0.9921875), where p and H have the same
 * sign; with opposite signs 0.497 |H|; e' != 0: |H| >= 1/2, |p LH| <
 * 2^-6.4), or H = 0. p LH + H - h1, the fma's error, is at most half an
 * ulp of h1 (<= 2^-43: |h1| < 2^11), so l1 is within 2^-96 of it (exactly
 * it where H = 0: a product's error). (A product p LH and its error, then a
 * fast two-sum with H, cost three operations more on the chain.) The
 * rest, l1 + LH (pl + r^3 q(r)) + (p LM + T2l), in doubles.
 *
 * Error bounds for crm_log_any's test (Y = log2 x):
 * - absolute, every x: the tail's 5 ulps of r^3/3 (values below 2^-22.5:
 *   2^-72.68) and pl + tail's rounding (2^-76), both times LH (2^-72.0);
 *   the fma by LH and the last sum round values below 2^-21.9 (2^-75
 *   each); l1 (2^-96) and p LM + T2l (values below 2^-41.9, 2^-95); the
 *   truncation r^11/11, T2l's and LM's (below 2^-79): below 2^-71.65 in
 *   all. The test uses 1.5 2^-72 (2^-71.41).
 * - relative, needed only where it is the smaller, |Y| < 1.5 2^-8 (x in
 *   (0.9959, 1.0041), e' = 0): where c_i = 1 (H = 0, so l1 is exact and T2l =
 *   0), every term is relative to |r| and |Y| >= 1.43 |r|: the tail's 5
 *   ulps of r^3/3 (2^-66.3 |Y|), three roundings of values below 1.443
 *   2^-15.5 |r| (2^-68.5 |Y| each): below 2^-65.6 |Y|; in the interval
 *   below ([1 - 2^-7, 1 - 2^-8), c_i = 129/128), |r| <= 2^-8 and every
 *   error is below 2^-76 against |Y| >= 2^-7.4. The test uses 2^-64. */
CRM_HOT_FN double crm_log2_fast_t(double de, double r, double t2h, double t2l, double *lo)
{
    double h = de + t2h; /* exact */
    double hr = -0.5 * r;
    double p = fma(hr, r, r), pl = fma(hr, r, r - p);
    double h1 = fma(p, CRM_LOG_INVLN2_HI, h);
    double l1 = fma(p, CRM_LOG_INVLN2_HI, h - h1); /* h - h1 exact */
    *lo = l1 + fma(CRM_LOG_INVLN2_HI, pl + crm_log1p_tail(r), fma(p, CRM_LOG_INVLN2_MI, t2l));
    return h1;
}

/* crm_log_fast_t (log, log10, log1p) or, for log2, crm_log2_fast_t from
 * x's bits: e' (a double), r and the table's row (lanes.h reads the rows
 * for all its lanes at once and calls the two directly) */
CRM_HOT_FN double crm_log_fast_k(crm_u64 b, int sub, int kind, double *lo)
{
    crm_u64 t = b - CRM_LOG_OFF;
    crm_i64 k = (crm_i64)((t >> 45) & 127);
    double de = (double)(((crm_i64)t >> 52) - sub);
    double m = crm_from_bits(b - (t & 0xfff0000000000000ULL));
    /* Th, Tl (log2: T2h, T2l) and c_i in one row: one index, one line */
    const double *row = kind == CRM_LOG2 ? crm_log2_h[k] : crm_log_h[k];
    double r = fma(m, row[2], -1.0);
    if (kind == CRM_LOG2) return crm_log2_fast_t(de, r, row[0], row[1], lo);
    return crm_log_fast_t(de, r, row[0], row[1], lo);
}

CRM_HOT_FN double crm_log_fast(crm_u64 b, int sub, double *lo) { return crm_log_fast_k(b, sub, CRM_LN, lo); }

/* log, log2 or log10 of x, the accurate path: the reduction again, then
 * triple-double */
CRM_COLD_FN double crm_log_accurate(double x, int kind)
{
    int e, i;
    double r;
    crm_log_reduce(x, &e, &i, &r);
    return crm_log_combine_td(kind, e, crm_log_s_td(i, r));
}

/* hi + *lo = log x to log_b x (b: kind's base) by 1/ln b as a
 * double-double: ph hi's exact product by the constant's high part, the
 * rest 2^-104 */
CRM_HOT_FN double crm_log_base(int kind, double hi, double *lo)
{
    if (kind == CRM_LN) return hi;
    double ch = kind == CRM_LOG2 ? CRM_LOG_INVLN2_HI : CRM_LOG_INVLN10_HI;
    double cm = kind == CRM_LOG2 ? CRM_LOG_INVLN2_MI : CRM_LOG_INVLN10_MI;
    double pl, ph = crm_two_prod(hi, ch, &pl);
    *lo = fma(*lo, ch, fma(hi, cm, pl)); /* lo, the last part ready, last */
    return ph;
}

/* log, log2 or log10 of x: the special cases, then the two paths; log2
 * and log10 multiply log's hi + lo by 1/ln b as a double-double (ph + pl:
 * ph hi's exact product by the constant's high part, the rest 2^-104) */
CRM_HOT_FN double crm_log_any(double x, int kind)
{
    crm_u64 b = crm_bits(x);
    double lo, hi;
    /* x <= 0 (-0 included), subnormal, inf, NaN: one unsigned comparison */
    if (CRM_LIKELY(b - 0x0010000000000000ULL < 0x7fe0000000000000ULL)) {
        hi = crm_log_fast_k(b, 0, kind, &lo);
    } else {
        if ((b << 1) == 0) return -crm_inf();               /* +-0 */
        if (b == 0x7ff0000000000000ULL) return x;           /* +inf */
        if (b > 0x7ff0000000000000ULL && b < 0x8000000000000000ULL) return x + x; /* NaN */
        if (b >= 0x8000000000000000ULL) return crm_nan();   /* x < 0, -inf, -NaN */
        hi = crm_log_fast_k(crm_bits(x * 0x1p54), 54, kind, &lo); /* subnormal */
    }
    if (kind == CRM_LOG10) hi = crm_log_base(kind, hi, &lo);
    /* two proved bounds (lanes.h's for log and log10, crm_log2_fast_t's
     * for log2): an absolute one, tried first, and 2^-64 |hi|, the smaller
     * only where |log_b x| < 2^-8 (so e' = 0), tried there when the first
     * fails: far fewer inputs fail than with the relative bound alone
     * where |log_b x| is large (the accurate path costs a thousand times
     * the fast one), and the common path has no minimum of the two to
     * compute (bench-math-ab: log2 3%, log 4-10% less time) */
    double abs = kind == CRM_LN ? 0x1p-72 : kind == CRM_LOG2 ? 0x1.8p-72 : 0x1p-73;
    double out;
    if (CRM_LIKELY(crm_round_test_abs(hi, lo, abs, &out))) return out;
    double err = crm_fabs(hi) * 0x1p-64;
    if (err < abs && crm_round_test_abs(hi, lo, err, &out)) return out;
    return crm_log_accurate(x, kind);
}

CRM_FN double brm_log(double x) { return crm_log_any(x, CRM_LN); }
CRM_FN double brm_log2(double x) { return crm_log_any(x, CRM_LOG2); }
CRM_FN double brm_log10(double x) { return crm_log_any(x, CRM_LOG10); }

/* log1p's accurate path: log(u + ul) = log u + q - q^2/2 (to 2^-150),
 * q + ql = ul/u */
CRM_COLD_FN double crm_log1p_accurate(double x)
{
    if (crm_fabs(x) <= 0x1p-7) return crm_td_round(crm_log_s_td(CRM_LOG_ONE, x));
    double ul;
    double u = crm_two_sum(1.0, x, &ul);
    double q = ul / u;
    int e, i;
    double r;
    crm_log_reduce(u, &e, &i, &r);
    double ql = fma(-q, u, ul) / u; /* ul/u = q + ql to 2^-106 */
    crm_td s = crm_td_add(crm_log_s_td(i, r), crm_td_make(q, ql, -0.5 * q * q));
    return crm_log_combine_td(CRM_LN, e, s);
}

/* log1p: for |x| <= 2^-7, x - x^2/2 + x^3 q(x) as crm_log_fast's c_i = 1
 * case (r = x); else u + ul = 1 + x (two-sum; u >= 2^-53 is normal) and
 * log1p(x) = log u + ul/u (the next term, (ul/u)^2/2, is below 2^-100
 * |result|, and ul/u's rounding 2^-106) */
CRM_FN double brm_log1p(double x)
{
    crm_u64 ax = crm_bits(x) & 0x7fffffffffffffffULL;
    double hi, lo;
    if (ax <= 0x3f80000000000000ULL) { /* |x| <= 2^-7 */
        if (ax < 0x3c90000000000000ULL) return x; /* |x| < 2^-54, zeros and subnormals included */
        double x2 = x * x, x2l = fma(x, x, -x2);
        hi = fma(x2, -0.5, x);
        lo = fma(x2l, -0.5, fma(x2, -0.5, x - hi)) + crm_log1p_tail(x);
    } else {
        if (!CRM_LIKELY(x > -1.0 && ax < 0x7ff0000000000000ULL)) {
            if (x == -1.0) return -crm_inf();
            if (ax > 0x7ff0000000000000ULL) return x + x;
            if (x > 0) return x; /* +inf */
            return crm_nan();
        }
        double ul;
        double u = crm_two_sum(1.0, x, &ul);
        hi = crm_log_fast(crm_bits(u), 0, &lo);
        lo += ul / u;
    }
    double out;
    if (CRM_LIKELY(crm_round_test(hi, lo, 0x1p-64, &out))) return out;
    return crm_log1p_accurate(x);
}

#endif
