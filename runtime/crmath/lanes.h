/*
 * lanes.h: exp, exp2, log, log2, log10, sin, cos and tan over a block of CRM_LANES doubles, for
 * the SIMD lanes of a par sum (compiler/emit_lane.c calls the runtime's
 * brt_lanes_<name>, runtime/math_lanes.c). Every lane's result is the
 * bits of the scalar brm_<name>, by construction:
 *
 * - each lane runs the scalar function's own fast path (the same
 *   reduction, table entries, polynomial and rounding test, the same
 *   operations in the same order: exp.h's crm_exp_fast, log.h's crm_log_s
 *   and crm_log_combine, trig.h's crm_sincos_dd and crm_tan_fast), with
 *   no branch, so gcc makes of the loop over the lanes one vector
 *   operation per step (table
 *   reads become gathers); an input the fast path does not cover (NaN,
 *   infinities, zeros, subnormal or overflowing results, huge sin and cos
 *   arguments) is replaced by a harmless one and its lane marked;
 * - the rounding test gives, per lane, whether the fast path's value is
 *   the correctly rounded one (it is then exactly what the scalar
 *   function returns: the same operations on the same input);
 * - crm_lanes_<name> returns the marked lanes and those whose test
 *   failed (a few in 100,000); the caller computes them with the scalar
 *   function, special cases and accurate path included.
 *   (Inlined here, the scalar function would make the vector loop's
 *   function large, its registers spilled.)
 *
 * Only the operations the scalar code uses: + - * /, explicit fma
 * (correctly rounded), integer operations and the exact tables; the
 * reductions below get the same integers from the bits of the same values
 * as the scalar code, in ways that vectorize (no 64-bit arithmetic shift or
 * double-to-int64 conversion: AVX2 has neither).
 */
#ifndef CRM_LANES_H
#define CRM_LANES_H

/* after crmath.h */
#define CRM_LANES 32 /* brine_math.h's BRT_LANES */
_Static_assert(CRM_LANES <= 32, "the lanes to redo are one bit each of an unsigned");

/* The lanes to redo, bit q for lane q, from their flags */
CRM_FN unsigned crm_lanes_mask(const crm_u64 *bad)
{
    unsigned m = 0;
    for (int i = 0; i < CRM_LANES; i++) m |= (unsigned)bad[i] << i;
    return m;
}

/* 2^E T_j exp(r) for exp and exp2 (crm_exp_fast, its rounding test, the
 * scaling), k = 128 E + j taken from kd + 1.5 2^52's low bits (|k| < 2^18;
 * the result normal: -1021 <= E <= 1023); *ok: the test passed */
CRM_HOT_FN double crm_lanes_exp_scaled(double kd, double rh, double rl, int *ok)
{
    crm_u64 kb = crm_bits(kd + 6755399441055744.0);
    crm_i64 j = (crm_i64)(kb & 127);
    crm_u64 e = ((kb >> 7) + 1023) & 0x7ff; /* E + 1023, E's top bits wrapped away */
    double lo, out, h = crm_exp_fast(rh, rl, j, &lo);
    *ok = crm_round_test(h, lo, 0x1p-68, &out);
    return out * crm_from_bits(e << 52);
}

/* exp's lanes: the fast path where 2^-54 <= |x| and -707 < x < 709.7 (the
 * result is then normal) */
CRM_FN unsigned crm_lanes_exp(const double *restrict x, double *restrict y)
{
    crm_u64 bad[CRM_LANES];
    for (int i = 0; i < CRM_LANES; i++) {
        double xi = x[i];
        crm_u64 ax = crm_bits(xi) & 0x7fffffffffffffffULL;
        int in = (ax >= 0x3c90000000000000ULL) & (xi > -707.0) & (xi < 709.7);
        double rh, rl;
        double kd = crm_exp_reduce(xi, &rh, &rl);
        int ok;
        y[i] = crm_lanes_exp_scaled(kd, rh, rl, &ok);
        bad[i] = (crm_u64)(ok & in) ^ 1;
    }
    return crm_lanes_mask(bad);
}

/* exp2's lanes: the fast path where 2^-54 <= |x| < 1020 (as brm_exp2's:
 * the result is normal) */
CRM_FN unsigned crm_lanes_exp2(const double *restrict x, double *restrict y)
{
    crm_u64 bad[CRM_LANES];
    for (int i = 0; i < CRM_LANES; i++) {
        double xi = x[i];
        crm_u64 ax = crm_bits(xi) & 0x7fffffffffffffffULL;
        int in = ax - 0x3c90000000000000ULL < 0x408fe00000000000ULL - 0x3c90000000000000ULL;
        double kd = crm_rint(xi * 128);
        double f = (xi * 128 - kd) * 0x1p-7; /* exact */
        double rl;
        double rh = crm_two_prod(f, CRM_LN2_HI, &rl);
        rl += f * CRM_LN2_MI;
        int ok;
        y[i] = crm_lanes_exp_scaled(kd, rh, rl, &ok);
        bad[i] = (crm_u64)(ok & in) ^ 1;
    }
    return crm_lanes_mask(bad);
}

/* log's, log2's and log10's lanes (kind: log.h's CRM_LN, CRM_LOG2,
 * CRM_LOG10): the fast path where x is positive, normal and finite (the
 * scalar function's reduction of it, crm_log_reduce_bits, and its
 * crm_log_combine, e' a double). The rounding test's bound is log.h's
 * 2^-64 where e' = 0 and 2^-70 elsewhere: S's absolute error is below
 * 2^-72.6 (the tail's 5 ulps of r^3/3 <= 2^-22.6, the other roundings below
 * 2^-76), and with e' != 0 the result is at least ln2 - ln(1.4141) >
 * 2^-1.53 (log), 1 - 0.5 (log2: S / ln2 <= 0.5) or log10(2) - 0.1506 >
 * 2^-2.73 (log10), with S's error divided by 1, ln2 or ln10, so the
 * relative error is below 2^-71.07; the constants' (2^-102) and the test's
 * own roundings (2^-104) fit in the room. Fewer lanes go to the scalar
 * function (there, the accurate path): for x in (0, 1], a third as many. */
CRM_HOT_FN unsigned crm_lanes_logk(const double *restrict x, double *restrict y, int kind)
{
    crm_u64 bad[CRM_LANES];
    for (int i = 0; i < CRM_LANES; i++) {
        crm_u64 b = crm_bits(x[i]);
        int in = b - 0x0010000000000000ULL < 0x7fe0000000000000ULL;
        crm_u64 t = b - CRM_LOG_OFF;
        crm_i64 k = (crm_i64)((t >> 45) & 127);
        /* e' (t's top 12 bits, signed) as a double, exactly: 2^52 + e' + 2048 less 2^52 + 2048 */
        double de = crm_from_bits(0x4330000000000000ULL | ((t >> 52) ^ 0x800)) - 4503599627372544.0;
        double m = crm_from_bits(b - (t & 0xfff0000000000000ULL));
        double r = fma(m, crm_log_t[k][0], -1.0);
        /* crm_log_combine(kind, e', S), with e' a double */
        crm_dd sv = crm_log_s(k, r), s;
        double l;
        if (kind == CRM_LN) {
            s.hi = crm_fast_two_sum(de * CRM_LOG_LN2_1, sv.hi, &l);
            s.lo = l + (sv.lo + de * CRM_LOG_LN2_2);
        } else {
            int two = kind == CRM_LOG2;
            double ch = two ? CRM_LOG_INVLN2_HI : CRM_LOG_INVLN10_HI, cm = two ? CRM_LOG_INVLN2_MI : CRM_LOG_INVLN10_MI;
            double pl;
            double ph = crm_two_prod(sv.hi, ch, &pl);
            pl = fma(sv.hi, cm, fma(sv.lo, ch, pl));
            if (two) {
                s.hi = crm_fast_two_sum(de, ph, &l);
                s.lo = l + pl;
            } else {
                s.hi = crm_fast_two_sum(de * CRM_LOG_LG2_1, ph, &l);
                s.lo = l + (pl + de * CRM_LOG_LG2_2);
            }
        }
        double out;
        int ok = crm_round_test(s.hi, s.lo, de == 0 ? 0x1p-64 : 0x1p-70, &out);
        y[i] = out;
        bad[i] = (crm_u64)(ok & in) ^ 1;
    }
    return crm_lanes_mask(bad);
}

CRM_FN unsigned crm_lanes_log(const double *restrict x, double *restrict y) { return crm_lanes_logk(x, y, CRM_LN); }
CRM_FN unsigned crm_lanes_log2(const double *restrict x, double *restrict y) { return crm_lanes_logk(x, y, CRM_LOG2); }
CRM_FN unsigned crm_lanes_log10(const double *restrict x, double *restrict y) { return crm_lanes_logk(x, y, CRM_LOG10); }

/* sin's (c = 0) and cos's (c = 1) lanes: crm_sincos's fast path, where
 * 2^-27 <= |x| < 2^40 */
CRM_HOT_FN unsigned crm_lanes_sincos(const double *restrict x, double *restrict y, int c)
{
    crm_u64 bad[CRM_LANES];
    for (int i = 0; i < CRM_LANES; i++) {
        crm_u64 ax = crm_bits(x[i]) & 0x7fffffffffffffffULL;
        int in = ax - 0x3e40000000000000ULL < 0x4270000000000000ULL - 0x3e40000000000000ULL;
        double l, e, out, h = crm_sincos_dd(x[i], c, &l, &e);
        int ok = crm_round_test_abs(h, l, e, &out);
        y[i] = out;
        bad[i] = (crm_u64)(ok & in) ^ 1;
    }
    return crm_lanes_mask(bad);
}

/* tan's lanes: brm_tan's fast path (crm_tan_fast), where 2^-27 <= |x| < 2^40 */
CRM_FN unsigned crm_lanes_tan(const double *restrict x, double *restrict y)
{
    crm_u64 bad[CRM_LANES];
    for (int i = 0; i < CRM_LANES; i++) {
        crm_u64 ax = crm_bits(x[i]) & 0x7fffffffffffffffULL;
        int in = ax - 0x3e40000000000000ULL < 0x4270000000000000ULL - 0x3e40000000000000ULL;
        double out;
        int ok = crm_tan_fast(x[i], &out);
        y[i] = out;
        bad[i] = (crm_u64)(ok & in) ^ 1;
    }
    return crm_lanes_mask(bad);
}

CRM_FN unsigned crm_lanes_sin(const double *restrict x, double *restrict y) { return crm_lanes_sincos(x, y, 0); }
CRM_FN unsigned crm_lanes_cos(const double *restrict x, double *restrict y) { return crm_lanes_sincos(x, y, 1); }

#endif
