/*
 * cbrt.h: brm_cbrt, correctly rounded to nearest, with an exact rounding
 * decision.
 *
 * |x| = 2^(3q) z, z in [1, 8), cbrt|x| = 2^q cbrt(z) (always a normal
 * double: no overflow, no underflow). y0: a degree-6 polynomial of z's
 * mantissa m in [1, 2) times cbrt(2^i), z = 2^i m (2^-22,
 * tools/gen_crmath.py cbrt), then one Halley step y (y^3 + 2z)/(2y^3 + z)
 * (cubic: 2^-64 from 2^-22; its roundings: y^3's two count a third in
 * the quotient, four more of 2^-53: below 2^-50.7 relative; 2^-50.97 at
 * worst measured against MPFR over 10^7 random z), then one
 * Newton step in double-double: d = z - y^3 from y^3's exact expansion,
 * y + d/(3 y^2) is within 2^-100 of cbrt(z). When that rounds to one
 * double with room to spare (2^-96) it is the result; otherwise cbrt(z) is
 * within 2^-96 of the midpoint m between two doubles y and its neighbour,
 * and the sign of m^3 - z, an exact sum of twelve doubles (m = y + h, h a
 * power of two), decides. cbrt(z) is never a midpoint: m has 54
 * significant bits, its cube at least 160, z 53.
 */
#ifndef CRM_CBRT_H
#define CRM_CBRT_H

#include "dd.h" /* text */
#include "cbrt_data.h" /* text */

/* The sign of m^3 - z, m = y + h, h a power of two (|h| <= ulp(y)) */
CRM_FN int crm_cbrt_cmp(double y, double h, double z)
{
    double t[12], pe;
    double p = crm_two_prod(y, y, &pe);                /* y^2 = p + pe */
    t[0] = crm_two_prod(p, y, &t[1]);                  /* y^3 */
    t[2] = crm_two_prod(pe, y, &t[3]);
    t[4] = p * h;                                      /* 3 y^2 h = y^2 h + 2 y^2 h */
    t[5] = pe * h;
    t[6] = 2 * t[4];
    t[7] = 2 * t[5];
    t[8] = y * h * h;                                  /* 3 y h^2 */
    t[9] = 2 * t[8];
    t[10] = h * h * h;
    t[11] = -z;
    return crm_sum_sign(t, 12);
}

CRM_FN double brm_cbrt(double x)
{
    crm_u64 b = crm_bits(x);
    crm_u64 ab = b & 0x7fffffffffffffffULL;
    if (ab >= 0x7ff0000000000000ULL || ab == 0) return x + x; /* inf, NaN, zeros */
    int ex = (int)(ab >> 52);
    if (ex == 0) { /* subnormal */
        ab = crm_bits(crm_from_bits(ab) * 0x1p54);
        ex = (int)(ab >> 52) - 54;
    }
    int E = ex - 1023;
    int q = E >= 0 ? E / 3 : -((-E + 2) / 3); /* floor(E / 3) */
    int rem = E - 3 * q;                      /* 0, 1, 2 */
    double m = crm_from_bits((ab & 0x000fffffffffffffULL) | 0x3ff0000000000000ULL);
    double z = m * crm_pow2i(rem); /* exact */
    /* y0 = p(m) cbrt(2^rem): Estrin with fma (a chain of three operations) */
    const double *c = crm_cbrt_p;
    double m2 = m * m, m4 = m2 * m2;
    double y = fma(m4, fma(m2, c[0], fma(m, c[1], c[2])), fma(m2, fma(m, c[3], c[4]), fma(m, c[5], c[6])));
    y *= crm_cbrt_r[rem];
    double y3 = y * y * y;
    y = y * ((y3 + 2 * z) / (2 * y3 + z));
    /* d = z - y^3 (to a double), then y + d / (3 y^2) */
    double pe, c1l, c2l;
    double p = crm_two_prod(y, y, &pe);
    double c1 = crm_two_prod(p, y, &c1l);
    double c2 = crm_two_prod(pe, y, &c2l);
    double d = ((z - c1) - c1l) - (c2 + c2l); /* z - c1 is exact (Sterbenz) */
    double dlt = d / (3 * p);
    double lo;
    double hi = crm_fast_two_sum(y, dlt, &lo);
    double s = (b >> 63) ? -1.0 : 1.0;
    double out;
    if (!crm_round_test(hi, lo, 0x1p-96, &out)) {
        /* the midpoint on lo's side of hi decides */
        int up = lo > 0;
        double nb = crm_next(hi, up ? 1 : -1);
        double h = 0.5 * (nb - hi);
        int c = crm_cbrt_cmp(hi, h, z);
        out = (up ? c < 0 : c > 0) ? nb : hi;
    }
    return s * out * crm_pow2i(q);
}

#endif
