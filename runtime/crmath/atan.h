/*
 * atan.h: brine's correctly rounded atan and atan2, and the accurate path
 * of asin and acos (asin.h has their fast path) (round to nearest, every
 * binary64 input), one text for the runtime, the CPU shim
 * and NVRTC (included by crmath.h after dd.h, exp.h and trig.h, whose
 * tables and absolute rounding test it uses).
 *
 * All four are o + s atan(u): o a multiple of pi/2 (0, pi/2 or pi), s = +-1,
 * u in [0, 1]: atan(x) with u = |x| or 1/|x| (atan x = pi/2 - atan(1/x)),
 * atan2(y, x) with u = min/max of |y| and |x|, asin(x) = atan2(x,
 * sqrt(1 - x^2)) and acos(x) = atan2(sqrt(1 - x^2), x), 1 - x^2 formed
 * exactly. None of the additions cancels: o + s atan(u) >= pi/4 when o > 0.
 *
 * atan(u) is Tang's table method: c = j/64 nearest u, t = (u - c)/(1 + u c),
 * |t| <= 2^-7, atan u = atan(c) + atan t, atan t by its Taylor series. The
 * fast path works in double-double (u, t and the table as double-doubles,
 * the series' tail in double) with an absolute error bound and the rounding
 * test of trig.h; the accurate path repeats it in triple-double (relative
 * error about 2^-140), which rounds all of the published worst cases.
 *
 * A quotient below 2^-60 needs no series: atan2(y, x) with x > 0 is then
 * y/x rounded, except that atan u < u breaks an exact tie downwards (the
 * quotient of two doubles is a tie only among subnormal results).
 */
#ifndef CRM_ATAN_H
#define CRM_ATAN_H

/* pi/2 and pi rounded to nearest */
#define CRM_PI2_RN 0x1.921fb54442d18p+0
#define CRM_PI_RN 0x1.921fb54442d18p+1

/* a + atan t as wh + *wl (not renormalised), a = ah + al a double-double,
 * t = th + tl, |t| <= 2^-7: atan t = th + (tl (1 - th^2) + th z P(z)),
 * z = th^2, P the Taylor series to t^9/9 (truncation t^11/11 <= 2^-80.4,
 * and 2^-73.4 |t| where the result is atan t itself), by Estrin's scheme
 * with fma (a chain of two operations; four roundings of terms below
 * 2^-54.5 in P, times th z). ah + th exactly by a fast two-sum: ah is 0 or atan(c)
 * with c >= 1/64, above 2^-7 >= |th| */
CRM_FN double crm_atan_sum(double ah, double al, double th, double tl, double *wl)
{
    double z = th * th, z2 = z * z;
    double p = fma(z2, fma(z, 0x1.c71c71c71c71cp-4, -0x1.2492492492492p-3), fma(z, 0x1.999999999999ap-3, -0x1.5555555555555p-2));
    double tail = tl + fma(th, z * p, -(tl * z));
    double e1, wh = crm_fast_two_sum(ah, th, &e1);
    *wl = e1 + (al + tail);
    return wh;
}

/* o + s atan(u), o = n pi/2, u = uh + ul in [0, 1] (|ul| <= ulp(uh)), as
 * h + *l with an absolute error below *eps. t's quotient has relative
 * error about 2^-104 (th nh/dh's remainder is exact; inv = 1/dh rounds
 * once). The terms after the leading ones are at most |t|^3/3 <= 2^-22.6
 * and take about a dozen roundings of at most 2^-75 each, below 2^-71 in
 * all: *eps is 2^-70. When j = n = 0 the result is atan t itself, whose
 * terms are relative to t: a few roundings of 2^-53 t^2/3 <= 2^-68.6
 * relative each, *eps 2^-64 |h|. (Measured against MPFR over 10^6 random
 * inputs: at most a sixth of *eps.) */
CRM_HOT_FN double crm_atan_fast(double uh, double ul, int n, double s, double *l, double *eps)
{
    int j = (int)crm_rint(uh * 64.0);
    double c = j * 0.015625, th = uh, tl = ul;
    if (j) { /* t = (u - c)/(1 + u c); uh - c is exact (within 2^-7 of c, c a multiple of 2^-6) */
        double nl, nh = crm_two_sum(uh - c, ul, &nl);
        /* 1 + c uh by an fma, its error by a second (1 - dh exact: dh in
         * [1, 2]), within 2^-106 */
        double dh = fma(c, uh, 1.0);
        double dl = fma(c, uh, 1.0 - dh) + c * ul;
        /* one division: th = nh/dh, then the remainder (exact by fma) over dh */
        double inv = 1.0 / dh;
        th = nh * inv;
        tl = ((fma(-th, dh, nh) + nl) - th * dl) * inv;
    }
    double wl, wh = crm_atan_sum(crm_atan64[j][0], crm_atan64[j][1], th, tl, &wl);
    double h;
    if (!n) {
        h = crm_fast_two_sum(wh, wl, l);
    } else {
        /* |oh| >= pi/2 > 0.79 > |wh| (atan u <= pi/4 and wl's few ulps):
         * a fast two-sum is exact */
        double oh = n * CRM_PI2_HI, ol = n * CRM_PI2_MI;
        double e2, rh = crm_fast_two_sum(oh, s * wh, &e2);
        h = crm_fast_two_sum(rh, e2 + (ol + s * wl), l);
    }
    *eps = j || n ? 0x1p-70 : 0x1p-64 * crm_fabs(h);
    return h;
}

/* the same in triple-double, u a triple-double in [0, 1] */
CRM_FN crm_td crm_atan_td(crm_td u, int n, double s)
{
    int j = (int)crm_rint(u.hi * 64.0);
    double c = j * 0.015625;
    crm_td t = u;
    if (j)
        t = crm_td_div(crm_td_add_d(u, -c), crm_td_add_d(crm_td_mul_d(u, c), 1.0));
    crm_td z = crm_td_mul(t, t);
    crm_td p = crm_td_make(-crm_invodd[11][0], -crm_invodd[11][1], -crm_invodd[11][2]);
    for (int i = 10; i >= 0; i--) {
        double sg = (i & 1) ? -1.0 : 1.0;
        p = crm_td_add(crm_td_mul(p, z), crm_td_make(sg * crm_invodd[i][0], sg * crm_invodd[i][1], sg * crm_invodd[i][2]));
    }
    crm_td w = crm_td_add(crm_td_make(crm_atan64[j][0], crm_atan64[j][1], crm_atan64[j][2]), crm_td_mul(t, p));
    if (!n) return w;
    crm_td o = crm_td_mul_d(crm_td_make(CRM_PI2_HI, CRM_PI2_MI, CRM_PI2_LO), (double)n);
    return crm_td_add(o, s < 0 ? crm_td_neg(w) : w);
}

/* the exponent of a finite nonzero x: 2^e <= |x| < 2^(e+1) */
CRM_FN int crm_exponent(double x)
{
    crm_u64 b = crm_bits(x) & 0x7fffffffffffffffULL;
    int ex = (int)(b >> 52);
    if (ex) return ex - 1023;
    return -1011 - crm_clz64(b); /* subnormal: the top bit of the fraction */
}

/* sign * (o + s atan(num/den)), num <= den positive doubles with
 * 2^-62 < num/den <= 1, both in [2^-500, 2^501) (scaled there by exact
 * operations if need be) */
CRM_FN double crm_atan_quot(double num, double den, int n, double s, double sign)
{
    double uh = num, ul = 0;
    if (den != 1.0) { /* one division: uh within an ulp or two of num/den, the remainder exact */
        double inv = 1.0 / den;
        uh = num * inv;
        ul = fma(-uh, den, num) * inv;
    }
    double l, eps, r, h = crm_atan_fast(uh, ul, n, s, &l, &eps);
    if (crm_round_test_abs(h, l, eps * 1.0000001, &r)) return sign * r;
    crm_td u = crm_td_div(crm_td_make(num, 0, 0), crm_td_make(den, 0, 0));
    return sign * crm_td_round(crm_atan_td(u, n, s));
}

/* atan(a) for 1 < a < 128 as h + *l, absolute error below 2^-70 (the
 * analysis of crm_atan_fast, the result above pi/4), with one division:
 * c from a's exponent e and its top 6 - e fraction bits (the middle of
 * its interval, crm_atanbig's entry), so that |1/c - 1/a| <= 2^-7, and
 * t = (a - c)/(1 + a c), |t| <= 2^-7; a - c is exact (one binade). h +
 * *l is left unnormalized (|l| < 2^-22.5): the rounding test's RN(l -+ e)
 * are within 2^-75.5 of l -+ e, inside the room between the error (2^-71)
 * and e = 2^-70. */
CRM_FN double crm_atan_big(double a, double *l)
{
    crm_u64 b = crm_bits(a);
    int e = (int)(b >> 52) - 1023, m = 6 - e;
    crm_u64 low = ((crm_u64)1 << (52 - m)) - 1; /* the fraction bits below the top m */
    int i = (int)((b >> (52 - m)) & ((1ULL << m) - 1));
    double c = crm_from_bits((b & ~low) | ((low + 1) >> 1)); /* 2^e (1 + (i + 1/2) 2^-m) */
    int k = 128 - (2 << m) + i;
    double nh = a - c;
    double pl, ph = crm_two_prod(a, c, &pl);
    double dl, dh = crm_fast_two_sum(ph, 1.0, &dl);
    dl += pl;
    double inv = 1.0 / dh, th = nh * inv;
    double tl = (fma(-th, dh, nh) - th * dl) * inv;
    return crm_atan_sum(crm_atanbig[k][0], crm_atanbig[k][1], th, tl, l);
}

CRM_FN double brm_atan(double x)
{
    crm_u64 ax = crm_bits(x) & 0x7fffffffffffffffULL;
    double sign = x < 0 ? -1.0 : 1.0;
    if (ax > 0x7ff0000000000000ULL) return x + x; /* NaN */
    if (ax >= 0x4350000000000000ULL) return sign * CRM_PI2_RN; /* |x| >= 2^54, inf: pi/2 - 1/|x| rounds to pi/2 */
    if (ax < 0x3e40000000000000ULL) return x; /* |x| < 2^-27: x - x^3/3 rounds to x */
    double a = crm_from_bits(ax); /* |x|: its bits are at hand */
    if (a <= 1.0) return crm_atan_quot(a, 1.0, 0, 1.0, sign);
    if (a < 128.0) {
        double l, r, h = crm_atan_big(a, &l);
        if (crm_round_test_abs(h, l, 0x1p-70 * 1.0000001, &r)) return sign * r;
        crm_td u = crm_td_div(crm_td_make(1.0, 0, 0), crm_td_make(a, 0, 0));
        return sign * crm_td_round(crm_atan_td(u, 1, -1.0));
    }
    return crm_atan_quot(1.0, a, 1, -1.0, sign);
}

/* atan2(y, x) for finite nonzero y and x */
CRM_FN double crm_atan2_finite(double y, double x)
{
    double sign = y < 0 ? -1.0 : 1.0;
    double ay = crm_fabs(y), ax = crm_fabs(x);
    /* both in [2^-500, 2^501) and their exponents at most 60 apart (the
     * common case): the quotient of the two unscaled is as good (its
     * remainder by fma is exact: no underflow), no scaling */
    int by = (int)(crm_bits(ay) >> 52) - 523, bx = (int)(crm_bits(ax) >> 52) - 523;
    if (CRM_LIKELY((unsigned)by < 1001u && (unsigned)bx < 1001u && (unsigned)(by - bx + 60) <= 120u)) {
        if (ay <= ax) return crm_atan_quot(ay, ax, x < 0 ? 2 : 0, x < 0 ? -1.0 : 1.0, sign);
        return crm_atan_quot(ax, ay, 1, x < 0 ? 1.0 : -1.0, sign);
    }
    int ey = crm_exponent(ay), ex = crm_exponent(ax);
    if (ey - ex > 60) /* |y/x| > 2^60: pi/2 -+ |x/y| rounds to pi/2 */
        return sign * CRM_PI2_RN;
    if (ex - ey > 60) { /* |y/x| < 2^-59 */
        if (x < 0) return sign * CRM_PI_RN; /* pi - |y/x| rounds to pi */
        if (ey - ex < -1080) return sign * 0.0; /* below 2^-1079: zero */
        /* |y/x| - |y/x|^3/3: the quotient rounded, a tie broken downwards */
        double ny = crm_ldexp(ay, -ey), nx = crm_ldexp(ax, -ex);
        double qh = ny / nx, ql = fma(-qh, nx, ny) / nx;
        return sign * crm_round_scaled(qh, ql, -0x1p-200 * qh, ey - ex);
    }
    int e = ey > ex ? ey : ex;
    double ny = crm_ldexp(ay, -e), nx = crm_ldexp(ax, -e); /* exact: the larger in [1, 2) */
    /* o + s atan(u): x > 0: atan(|y/x|) or pi/2 - atan(|x/y|); x < 0: pi - atan(|y/x|) or pi/2 + atan(|x/y|) */
    if (ny <= nx) return crm_atan_quot(ny, nx, x < 0 ? 2 : 0, x < 0 ? -1.0 : 1.0, sign);
    return crm_atan_quot(nx, ny, 1, x < 0 ? 1.0 : -1.0, sign);
}

CRM_FN double brm_atan2(double y, double x)
{
    if (x != x || y != y) return x + y; /* NaN */
    double sign = crm_bits(y) >> 63 ? -1.0 : 1.0;
    int xneg = (int)(crm_bits(x) >> 63);
    double ay = crm_fabs(y), ax = crm_fabs(x);
    double inf = crm_inf();
    if (ay == 0) return xneg ? sign * CRM_PI_RN : y; /* +-0 or +-pi, -0 counts as negative */
    if (ay == inf) {
        if (ax == inf) return sign * (xneg ? 0x1.2d97c7f3321d2p+1 : 0x1.921fb54442d18p-1); /* 3 pi/4, pi/4 */
        return sign * CRM_PI2_RN;
    }
    if (ax == inf) return xneg ? sign * CRM_PI_RN : sign * 0.0;
    if (ax == 0) return sign * CRM_PI2_RN;
    return crm_atan2_finite(y, x);
}

/* 1 - a^2 for 0 <= a < 1, exactly, as a triple-double: a^2 by an exact
 * product, 1 - its high part by two-sum */
CRM_FN crm_td crm_1ma2(double a)
{
    double pl, ph = crm_two_prod(a, a, &pl);
    double e, vh = crm_two_sum(1.0, -ph, &e);
    return crm_td_renorm(vh, e, -pl);
}

/* y = 1/sqrt(1 - a^2) and w = sqrt(1 - a^2) for 0 <= a < 1, as
 * double-doubles with relative errors about 2^-101, from one square root
 * and one division: v = 1 - a^2 as vh + vl (1 - ph is exact for ph >= 1/2,
 * so v is exact where it is small; elsewhere within 2^-106 v), then
 * yh = 1/sqrt(v) and y = yh (1 + r/2 + 3r^2/8) with r = 1 - v yh^2 (about
 * 2^-51, formed to 2^-102 by fma and the exact square of yh), w = v y. */
CRM_FN crm_dd crm_rsqrt1m(double a, crm_dd *w)
{
    double pl, ph = crm_two_prod(a, a, &pl);
    double e, vh = crm_two_sum(1.0, -ph, &e);
    double vl, v = crm_fast_two_sum(vh, e - pl, &vl);
    double yh = 1.0 / sqrt(v);
    double ql, qh = crm_two_prod(yh, yh, &ql);
    double r = fma(-v, qh, 1.0) - (v * ql + vl * qh);
    double yl = yh * (r * (0.5 + 0.375 * r));
    double wl, wh = crm_two_prod(v, yh, &wl);
    *w = crm_dd_make(wh, wl + (v * yl + vl * yh));
    return crm_dd_make(yh, yl);
}

/* sqrt(v), v a triple-double: one Newton step in triple-double from s */
CRM_FN crm_td crm_td_sqrt(crm_td v, crm_dd s)
{
    crm_td st = crm_td_from_dd(s);
    crm_td r = crm_td_add(v, crm_td_neg(crm_td_mul(st, st)));
    return crm_td_add(st, crm_td_make((r.hi + r.mi) / (2.0 * s.hi), 0, 0));
}

/* asin (c = 0) or acos (c = 1) of x, 2^-27 <= |x| < 1 for asin,
 * 2^-55 <= |x| < 1 for acos (asin.h's accurate path): o + s atan(u)
 * with u the smaller of |x| and sqrt(1 - x^2) over the larger */
CRM_COLD_FN double crm_asincos(double x, int c)
{
    double a = crm_fabs(x);
    crm_dd sq, y = crm_rsqrt1m(a, &sq);
    int small = a <= sq.hi; /* |x| <= sqrt(1 - x^2): u = |x|/sqrt(1 - x^2) */
    double sign = 1.0, s;
    int n;
    if (!c) { /* asin: atan2(|x|, sqrt), the sign of x */
        sign = x < 0 ? -1.0 : 1.0;
        n = small ? 0 : 1;
        s = small ? 1.0 : -1.0;
    } else if (x >= 0) { /* acos: atan2(sqrt, x) */
        n = small ? 1 : 0;
        s = small ? -1.0 : 1.0;
    } else {
        n = small ? 1 : 2;
        s = small ? 1.0 : -1.0;
    }
    double uh, ul;
    if (small) { /* u = a y */
        uh = crm_two_prod(a, y.hi, &ul);
        ul += a * y.lo;
    } else { /* u = w / a: the remainder (exact by fma) times 1/a */
        double inv = 1.0 / a;
        uh = sq.hi * inv;
        ul = (fma(-uh, a, sq.hi) + sq.lo) * inv;
    }
    double l, eps, r, h = crm_atan_fast(uh, ul, n, s, &l, &eps);
    eps += 0x1p-96; /* u's own error (2^-100 relative at most): atan(u) moves by less */
    if (crm_round_test_abs(h, l, eps * 1.0000001, &r)) return sign * r;
    crm_td st = crm_td_sqrt(crm_1ma2(a), sq), at = crm_td_make(a, 0, 0);
    crm_td ut = small ? crm_td_div(at, st) : crm_td_div(st, at);
    return sign * crm_td_round(crm_atan_td(ut, n, s));
}

#endif
