/*
 * pow.h: brm_pow, correctly rounded to nearest, in three stages and an
 * exact test (the plan of Sibidanov, Zimmermann and Glondu's CORE-MATH pow,
 * with a multiprecision last stage in place of a proof that the second
 * one suffices).
 *
 * |x|^y = exp(z), z = y log|x|, log|x| = e' ln2 - log c_i + log1p(r) from
 * log's reduction (log.h: r = m' c_i - 1 exact, |r| <= 2^-7), exp from
 * exp's (exp.h: z = k ln2/128 + r', 2^E T_j exp(r')).
 *
 * 1. Fast (double-double): log1p(r) as r - r^2/2 + r^3/3 - r^4/4, the
 *    first three terms exact or double-double, r^4 = RN(RN(r^2)^2) within
 *    3 2^-53 (times r^4/4 <= 2^-23 |r|: 2^-74.4 |r|), and r^5 (1/5 - ...)
 *    to r^11 in doubles (their roundings below 2^-80.3 |r|, the
 *    truncation r^12/12 below 2^-80.6 |r|): L = log|x| within
 *    2^-74.3 |r| + 2^-89.2 |L|, its low part below 2^-29.5 |L| (the
 *    second term: -log c_i = Th + Tl within 2^-97, e' ln2 = e' (LN2_1 +
 *    LN2_2) within |e'| 2^-98, e' LN2_2 + Tl's rounding, the low sums'
 *    roundings; |S| >= 2^-7.5 when c_i != 1, |L| >= 0.34 |e'|). z = y L
 *    as a double-double (2^-96 |z|: L's low part is not renormalised),
 *    then exp of it by exp's own fast path in its lean form (exp.h's
 *    crm_exp_fast_tk, as exp2's: 2^-68.38 where |rl| <= 2^-61.6) on r' =
 *    zh - k ln2/128 + zl, normalized (2^-72.9: |zl| < 2^-19.9; |rl| <=
 *    2^-62). The result's relative error is below 2^-68.38 + 2^-79.7 +
 *    2^-72.9 + 2^-74.3 |y r| < 2^-68.32 + 2^-74.3 |y r| (|z| <= 746): the
 *    rounding test uses 2^-68 + 2^-74.25 |y r|, computed per call, so only
 *    large |y r| widen it (|y r| < 17 unless |log x| < 0.34); the room
 *    left, 2^-70.3, holds the test's own roundings of lo -+ e (2^-71:
 *    |lo -+ e| < 2^-17). (The full form, 2^-69.3, costs four operations
 *    more, about a tenth of pow's time, and fails the same test no less
 *    often. A
 *    double-double exp, 2^-74, and r^4 as a double-double cost a seventh
 *    of the fast path more; the inputs they would keep, about one in
 *    16,000, cost stage 3.)
 * 2. Exact cases: x^y is never exactly a midpoint between two doubles but
 *    in the cases crm_pow_midpoint finds by integer arithmetic (x's odd
 *    part a 2^k-th power, k <= 5, and a short power of it; or 2^-1075).
 *    A result that is a double is no problem to the stages: it lies half
 *    an ulp from every midpoint.
 * 3. Accurate (triple-double): log's and exp's accurate paths' parts (2^-140
 *    each), z = y L: relative error below 2^-137 + 2^-139 |y S|; rounded
 *    twice, error bound below and above: one result when both agree.
 * 4. Multiprecision (mp.h): the same reduction at 192, then 384, 768 and
 *    1088 bits, each operation's error counted as it runs, until the error
 *    interval holds no rounding boundary. Not a midpoint, x^y lies at a
 *    positive distance from every boundary, so the loop ends; no input is
 *    known to need more than about 2^-120 (Lauter and Lefevre's pow study).
 *
 * The special cases are C99 Annex F's: pow(x, +-0) = 1 and pow(1, y) = 1
 * even for a NaN, pow(-1, +-inf) = 1, signed zeros and infinities by y's
 * parity, NaN for a negative finite x and a finite non-integer y.
 */
#ifndef CRM_POW_H
#define CRM_POW_H

#include "dd.h" /* text */
#include "exp.h" /* text */
#include "log.h" /* text */
#include "mp.h" /* text */

/* 0: y is not an integer; 1: an odd integer; 2: an even one (y finite) */
CRM_FN int crm_pow_yint(double y)
{
    crm_u64 b = crm_bits(y) & 0x7fffffffffffffffULL;
    int ex = (int)(b >> 52);
    if (ex < 1023) return b == 0 ? 2 : 0;
    if (ex > 1075) return 2; /* |y| >= 2^53 */
    crm_u64 m = (b & 0x000fffffffffffffULL) | 0x0010000000000000ULL;
    int f = 1075 - ex; /* fraction bits */
    if (m & ((1ULL << f) - 1)) return 0;
    return (m >> f) & 1 ? 1 : 2;
}

/* log|x| = e' ln2 + S, S = -log c_i + log1p(r), as a double-double (stage 1;
 * inlined: gcc called it, a call, a spill of y and its reload per pow) */
CRM_HOT_FN crm_dd crm_pow_log(int e, int i, double r)
{
    double s2l, t3l, p3l;
    double s2 = crm_two_prod(r, r, &s2l);
    double t3 = crm_two_prod(s2, r, &t3l);
    t3l = fma(s2l, r, t3l);                                      /* r^3 = t3 + t3l */
    double p3 = crm_two_prod(t3, crm_log1p_c[2][0], &p3l);
    p3l = fma(t3, crm_log1p_c[2][1], fma(t3l, crm_log1p_c[2][0], p3l)); /* r^3/3 */
    double q4 = s2 * s2;                                         /* r^4 within 3 2^-53 */
    /* r^5 (c4 + c5 r + ... + c10 r^6), Estrin */
    double a = fma(r, crm_log1p_c[5][0], crm_log1p_c[4][0]);
    double b = fma(r, crm_log1p_c[7][0], crm_log1p_c[6][0]);
    double c = fma(r, crm_log1p_c[9][0], crm_log1p_c[8][0]);
    double q = fma(s2 * s2, fma(s2, crm_log1p_c[10][0], c), fma(s2, b, a));
    double tail = (q4 * r) * q;
    /* r - r^2/2 + r^3/3 - RN(r^4)/4, each step a fast two-sum (exact:
     * every term is below the sum before it) */
    double al, bl, cl;
    double ah = crm_fast_two_sum(r, -0.5 * s2, &al);
    double bh = crm_fast_two_sum(ah, p3, &bl);
    double ch = crm_fast_two_sum(bh, -0.25 * q4, &cl);
    double lo = (al + bl) + (cl + ((p3l - 0.5 * s2l) + tail));
    /* H = e' LN2_1 + Th exactly by one fma (log.h's crm_log_fast: both
     * multiples of 2^-42, |H| < 2^10), apart from r's chain, then H plus
     * the chain's sum (|H| >= 1.94 |r| >= 1.93 |ch|, or H = 0), e' LN2_2 +
     * Tl in the low part: the result's parts are not renormalised (y's
     * product and exp's reduction take any low part) */
    double de = (double)e, l;
    double h = fma(de, CRM_LOG_LN2_1, crm_log_h[i][0]); /* exact */
    crm_dd y;
    y.hi = crm_fast_two_sum(h, ch, &l);
    y.lo = (l + lo) + fma(de, CRM_LOG_LN2_2, crm_log_h[i][1]);
    return y;
}

/* x^y when it is exactly the midpoint between two adjacent doubles (or
 * 2^-1075, between 0 and the least subnormal): *out its rounding (to even)
 * and 1; else 0. ax = |x| finite, positive, not 1; y finite, not 0. */
CRM_COLD_FN int crm_pow_midpoint(double ax, double y, double *out)
{
    crm_u64 b = crm_bits(ax);
    int ex = (int)(b >> 52);
    crm_u64 m = b & 0x000fffffffffffffULL;
    if (ex) m |= 0x0010000000000000ULL;
    ex = (ex ? ex : 1) - 1075;
    while (!(m & 1)) m >>= 1, ex++; /* ax = m 2^ex, m odd */
    if (m == 1) {                   /* x^y = 2^(ex y): a midpoint only at 2^-1075 */
        double p = (double)ex * y;
        if (p == -1075.0 && fma((double)ex, y, 1075.0) == 0) return *out = 0, 1;
        return 0;
    }
    /* y = ny 2^fy, ny odd: m^y is a dyadic number only for y > 0 with m a
     * 2^-fy-th power (fy < 0), and 2^(ex y) one when 2^-fy divides ex */
    if (y < 0) return 0;
    crm_u64 yb = crm_bits(y);
    int fy = (int)(yb >> 52) - 1075;
    crm_u64 ny = (yb & 0x000fffffffffffffULL) | 0x0010000000000000ULL;
    while (!(ny & 1)) ny >>= 1, fy++;
    crm_u64 a = m;
    long long g = ex;
    if (fy >= 0) { /* an integer; m >= 3, and 3^35 > 2^54 */
        if (fy > 6 || (ny << fy) > 64) return 0;
        ny <<= fy;
    } else {
        if (-fy > 5 || ny > 64) return 0; /* m < 2^53 < 3^64 */
        int k = -fy;
        if (ex & ((1 << k) - 1)) return 0;
        for (int t = 0; t < k; t++) { /* a = m^(1/2^k), exactly, or no case */
            crm_u64 s = (crm_u64)sqrt((double)a);
            while (s * s > a) s--;
            while ((s + 1) * (s + 1) <= a) s++;
            if (s * s != a) return 0;
            a = s;
        }
        g = ex / (1 << k);
    }
    crm_u64 M = 1;
    for (crm_u64 t = 0; t < ny; t++) {
        if (M > (1ULL << 54) / a) return 0;
        M *= a;
    }
    g *= (long long)ny; /* x^y = M 2^g, M odd */
    int bits = 0;
    while (bits < 64 && (M >> bits)) bits++;
    if (!((bits == 54 && g >= -1075) || (g == -1075 && bits <= 53))) return 0;
    crm_u64 R = M >> 1;
    R += R & 1; /* the even neighbour */
    *out = crm_ldexp((double)R, (int)g + 1);
    return 1;
}

/* Stage 3: exp(y L), L = e' ln2 + S in triple-double; 0 when undecided */
CRM_COLD_FN int crm_pow_accurate(int e, int i, double r, double y, double x, double *out)
{
    crm_td s = crm_log_s_td(i, r);
    crm_td l = crm_td_add(crm_td_mul_d(crm_td_make(CRM_LN2_HI, CRM_LN2_MI, CRM_LN2_LO), (double)e), s);
    crm_td z = crm_td_mul_d(l, y);
    double kd = crm_rint(z.hi * CRM_EXP_INV);
    crm_td rr = crm_td_add(crm_exp_reduce_td(z.hi, kd), crm_td_make(z.mi, z.lo, 0));
    int j, ee = crm_exp_split(kd, &j);
    crm_td v = crm_td_mul(crm_exp_table_td(j), crm_exp_series_td(rr, 0));
    double err = (0x1p-137 + 0x1p-139 * crm_fabs(y * s.hi)) * crm_fabs(v.hi);
    double a = crm_round_scaled(v.hi, v.mi, v.lo - err, ee);
    double b = crm_round_scaled(v.hi, v.mi, v.lo + err, ee);
    *out = a;
#ifdef CRM_TEST_ACCURATE /* tests/math: half the inputs go on to the last stage */
    if ((crm_bits(x) ^ crm_bits(y)) & 1) return 0;
#endif
    (void)x;
    return a == b;
}

/* Stage 4 at n limbs: exp(y L) in mp.h's arithmetic; 0 when undecided */
CRM_COLD_FN int crm_pow_mp(int e, int i, double r, double y, int n, double *out)
{
    crm_mp ln2, l, t, z;
    crm_mp_ln2(&ln2, n);
    l = ln2;
    crm_mp_mul_u32(&l, (crm_u32)(e < 0 ? -e : e), n);
    l.neg = e < 0;
    /* -log c_i, c_i = C 2^-g */
    crm_u64 cb = crm_bits(crm_log_t[i][0]);
    crm_u64 cm = (cb & 0x000fffffffffffffULL) | 0x0010000000000000ULL;
    int g = 1075 - (int)(cb >> 52);
    while (!(cm & 1)) cm >>= 1, g--;
    if (cm != 1 || g != 0) {
        crm_mp_log_short(&t, (crm_u32)cm, g, n);
        t.neg ^= 1;
        crm_mp_add(&l, &l, &t, n);
    }
    if (r != 0) { /* log1p(r), r = R 2^s */
        crm_u64 rb = crm_bits(r);
        int rs = (int)((rb >> 52) & 0x7ff) - 1075;
        crm_mp_log1p(&t, (rb & 0x000fffffffffffffULL) | 0x0010000000000000ULL, rs, (int)(rb >> 63), n);
        crm_mp_add(&l, &l, &t, n);
    }
    /* z = y L = L My 2^sy, My = Mh 2^32 + Ml (|L| < 2^10: L My < 2^63) */
    crm_u64 yb = crm_bits(y);
    crm_u64 my = (yb & 0x000fffffffffffffULL) | 0x0010000000000000ULL;
    int ye = (int)((yb >> 52) & 0x7ff);
    if (ye == 0) my &= 0x000fffffffffffffULL, ye = 1;
    z = l;
    crm_mp_mul_u32(&z, (crm_u32)(my >> 32), n);
    crm_mp_shift(&z, 32, n);
    t = l;
    crm_mp_mul_u32(&t, (crm_u32)my, n);
    crm_mp_add(&z, &z, &t, n);
    crm_mp_shift(&z, ye - 1075, n);
    z.neg = l.neg ^ (int)(yb >> 63);
    /* z = k ln2 + rr, 0 <= rr < ln2 */
    double kd = crm_mp_to_double(&z, n) * 0x1.71547652b82fep+0;
    int k = (int)(kd < 0 ? kd - 1 : kd);
    t = ln2;
    crm_mp_mul_u32(&t, (crm_u32)(k < 0 ? -k : k), n);
    t.neg = k >= 0;
    crm_mp_add(&z, &z, &t, n);
    while (z.neg && !crm_mp_is_zero(&z, n)) ln2.neg = 0, crm_mp_add(&z, &z, &ln2, n), k--;
    while (crm_mp_cmp(&z, &ln2, n) >= 0) ln2.neg = 1, crm_mp_add(&z, &z, &ln2, n), k++;
    z.neg = 0;
    crm_mp ex;
    crm_mp_exp(&ex, &z, n);
    double err = ex.err + 2.01 * z.err + 1;
    if (!(err < 0x1p50)) return 0;
    /* the result 2^k ex, ex in [1, 2): its last place 2^(k - fb) */
    int fb = k >= -1022 ? 52 : 1074 + k;
    if (fb < -1) return *out = 0, 1;
    crm_mp lo = ex, hi = ex, half, eu;
    crm_mp_set(&eu, (crm_u64)err + 1, -32 * (n - 2), n);
    crm_mp_sub_mag(&lo, &ex, &eu, n);
    crm_mp_add_mag(&hi, &ex, &eu, n);
    crm_mp_set(&half, 1, -fb - 1, n);
    crm_mp_add_mag(&lo, &lo, &half, n);
    crm_mp_add_mag(&hi, &hi, &half, n);
    crm_u64 rlo = crm_mp_bits64(&lo, -fb, n), rhi = crm_mp_bits64(&hi, -fb, n);
    *out = crm_ldexp((double)rlo, k - fb);
#ifdef CRM_TEST_ACCURATE /* tests/math: half the inputs go on to more limbs */
    if (n == 8 && ((crm_bits(y) ^ (crm_u64)e) & 2)) return 0;
#endif
    return rlo == rhi;
}

/* Stages 2-4, for the rare inputs the fast path leaves (out of line on the
 * CPU, so the fast path keeps its registers) */
CRM_COLD_FN double crm_pow_slow(double xa, double y, double x, int e, int i, double r)
{
    double out;
    if (crm_pow_midpoint(xa, y, &out)) return out;
    if (crm_pow_accurate(e, i, r, y, x, &out)) return out;
    for (int n = 8; !crm_pow_mp(e, i, r, y, n, &out) && n < CRM_MP_MAX;) /* 192, 384, 768, 1088 bits */
        n = 2 * n - 2 < CRM_MP_MAX ? 2 * n - 2 : CRM_MP_MAX;
    return out;
}

/* |x|^y, xa = |x| positive and finite, y finite and not 0; x for the tests */
CRM_HOT_FN double crm_pow_abs(double xa, double y, double x)
{
    int e, i;
    double r;
    crm_log_reduce(xa, &e, &i, &r);
    crm_dd l = crm_pow_log(e, i, r);
    double zl;
    double zh = crm_two_prod(y, l.hi, &zl);
    /* |zh| outside [2^-55, 709.78]: one unsigned comparison */
    if ((crm_bits(zh) & 0x7fffffffffffffffULL) - 0x3c80000000000000ULL >= 0x40862e3d70a3d70aULL - 0x3c80000000000000ULL) {
        if (zh > 709.79) return crm_inf();   /* above DBL_MAX + ulp/2 (709.7827) */
        if (zh < -745.14) return 0.0;        /* below 2^-1075 (-745.1332) */
        if (crm_fabs(zh) < 0x1p-55) return 1.0; /* within 2^-54.9 of 1 */
    }
    zl = fma(y, l.lo, zl);
    /* exp(zh + zl): exp.h's short reduction of zh (crm_exp_reduce_short:
     * zh - k S1 exact by one fma; k here is zh 128/ln2 rounded once, so
     * |zh - k ln2/128| <= ln2/256 (1 + 2^-35)), zl - k S2 rounded (|zl| is
     * half an ulp of zh plus y l.lo, l.lo not being renormalised: below
     * 2^-29.4 |zh| <= 2^-19.9; the rounding 2^-72.9, S2's truncation k
     * 2^-116), the two added by a two-sum: r' = rh + rl within 2^-72.9,
     * |rh| <= ln2/256 + 2^-19.9 < 2^-8.52, |rl| <= 2^-62 */
    double kd = fma(zh, CRM_EXP_INV, 6755399441055744.0) - 6755399441055744.0; /* k: zh 128/ln2 rounded once */
    double rl, rh = crm_two_sum(fma(-kd, CRM_LN2_HI * 0x1p-7, zh), fma(-kd, CRM_LN2_MI * 0x1p-7, zl), &rl);
    int j, ee = crm_exp_split(kd, &j);
    double out;
    if (ee > -1022) {
        double lo, h = crm_exp_fast_tk(rh, rl, crm_exp_t[j][0], crm_exp_t[j][1], &lo, 1); /* lean: |rl| <= 2^-62 */
        if (crm_round_test(h, lo, 0x1p-68 + 0x1.ap-75 * crm_fabs(y * r), &out)) return crm_scale_normal(out, ee);
    }
    return crm_pow_slow(xa, y, x, e, i, r);
}

/* The special cases (C99 Annex F), then the sign */
CRM_COLD_FN double crm_pow_special(double x, double y)
{
    crm_u64 bx = crm_bits(x), by = crm_bits(y);
    crm_u64 ax = bx & 0x7fffffffffffffffULL, ay = by & 0x7fffffffffffffffULL;
    const crm_u64 inf = 0x7ff0000000000000ULL, one = 0x3ff0000000000000ULL;
    if (ay == 0 || bx == one) return 1.0;
    if (ax > inf || ay > inf) return x + y;
    if (ay == inf) {
        if (ax == one) return 1.0; /* pow(-1, +-inf) */
        return (ax < one) == (y > 0) ? 0.0 : crm_inf();
    }
    double sign = 1.0;
    if (bx >> 63) {
        int yi = crm_pow_yint(y);
        if (yi == 1) sign = -1.0;
        else if (yi == 0 && ax != 0 && ax != inf) return crm_nan();
    }
    if (ax == 0) return y < 0 ? sign * crm_inf() : sign * 0.0;
    if (ax == inf) return y < 0 ? sign * 0.0 : sign * crm_inf();
    return sign * crm_pow_abs(crm_from_bits(ax), y, x);
}

CRM_FN double brm_pow(double x, double y)
{
    crm_u64 bx = crm_bits(x), ay = crm_bits(y) & 0x7fffffffffffffffULL;
    /* x positive and normal, 2^-64 <= |y| < 2^64: no special case */
    if (bx - 0x0010000000000000ULL < 0x7fe0000000000000ULL && ay - 0x3bf0000000000000ULL < 0x0800000000000000ULL)
        return crm_pow_abs(x, y, x);
    return crm_pow_special(x, y);
}

#endif
