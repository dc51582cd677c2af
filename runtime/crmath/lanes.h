/*
 * lanes.h: exp, exp2, log, log2, log10, sin, cos and tan over a block of CRM_LANES doubles, for
 * the SIMD lanes of a par sum (compiler/emit_lane.c calls the runtime's
 * brt_lanes_<name>, runtime/math_lanes.c). Every lane's result is the
 * bits of the scalar brm_<name>, by construction:
 *
 * - each lane runs the scalar function's own fast path (the same
 *   reduction, table entries, polynomial and rounding test, the same
 *   operations in the same order: exp.h's crm_exp_fast_t, log.h's
 *   crm_log_fast_t, trig.h's crm_sincos_dd_t and crm_tan_fast_t), with
 *   no branch, so gcc makes of the loop over the lanes one vector
 *   operation per step (the table entries are read for all the lanes at
 *   once between two such loops: crm_lanes_gather; log's, log2's and
 *   log10's AVX2 copy is written in vector operations, the same ones,
 *   crm_lanes_log_v4); an input the fast path does not cover (NaN,
 *   infinities, zeros, subnormal or overflowing results, huge sin and cos
 *   arguments) is replaced by a harmless one and its lane marked;
 * - the rounding test gives, per lane, whether the fast path's value is
 *   the correctly rounded one (it is then exactly what the scalar
 *   function returns: the same operations on the same input, or, where
 *   a lane's test is finer than the scalar one's (log's below), the one
 *   correctly rounded value the scalar accurate path returns);
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
#if defined(__AVX512F__) || defined(__AVX2__)
#include <immintrin.h>
#endif
_Static_assert(CRM_LANES <= 32, "the lanes to redo are one bit each of an unsigned");

/* The lanes to redo, bit q for lane q, from their flags */
CRM_FN unsigned crm_lanes_mask(const crm_u64 *bad)
{
    unsigned m = 0;
#if defined(__AVX512F__) /* a mask register per vector (gcc's own reduction is a long chain) */
    for (int i = 0; i < CRM_LANES; i += 8) {
        __m512i v = _mm512_loadu_si512((const void *)(bad + i));
        m |= (unsigned)_mm512_test_epi64_mask(v, v) << i;
    }
#elif defined(__AVX2__) /* the flag to the sign bit, then the signs */
    for (int i = 0; i < CRM_LANES; i += 4) {
        __m256i v = _mm256_slli_epi64(_mm256_loadu_si256((const __m256i *)(bad + i)), 63);
        m |= (unsigned)_mm256_movemask_pd(_mm256_castsi256_pd(v)) << i;
    }
#else
    for (int i = 0; i < CRM_LANES; i++) m |= (unsigned)bad[i] << i;
#endif
    return m;
}

/* out[q] = tab[idx[q]] for the lanes: one gather instruction per vector
 * where the vector unit has it (gcc makes a table read in a vector loop
 * eight or four scalar loads and the shuffles that put them together,
 * which cost more than the function's arithmetic); the lanes functions
 * therefore compute their indexes in one vector loop, read the table here,
 * and go on in a second loop. */
CRM_FN void crm_lanes_gather(const double *tab, const crm_i64 *idx, double *out)
{
#if defined(__AVX512F__)
    for (int q = 0; q < CRM_LANES; q += 8)
        _mm512_storeu_pd(out + q, _mm512_i64gather_pd(_mm512_loadu_si512((const void *)(idx + q)), tab, 8));
#elif defined(__AVX2__)
    for (int q = 0; q < CRM_LANES; q += 4)
        _mm256_storeu_pd(out + q, _mm256_i64gather_pd(tab, _mm256_loadu_si256((const __m256i *)(idx + q)), 8));
#else
    for (int q = 0; q < CRM_LANES; q++) out[q] = tab[idx[q]];
#endif
}

/* out0[q] = tab[idx[q]] and out1[q] = tab[idx[q] + 1], two entries side
 * by side in a table row: with AVX2 (and not AVX-512), one 16-byte load per
 * lane and two unpacks per four lanes, not two gathers (a gather of four
 * is many micro-operations; on an AMD EPYC (Zen 3) the par sums of
 * bench/math_lanes ran 15-25% faster at one thread with the loads); with
 * AVX-512 (not measured: no such machine here) two gathers, as before. */
#if defined(__AVX2__) && !defined(__AVX512F__)
#define CRM_LANES_ROW_LOADS 1
#else
#define CRM_LANES_ROW_LOADS 0
#endif
CRM_FN void crm_lanes_gather2(const double *tab, const crm_i64 *idx, double *out0, double *out1)
{
#if CRM_LANES_ROW_LOADS
    for (int q = 0; q < CRM_LANES; q += 4) {
        /* a = (t0, l0, t2, l2), b = (t1, l1, t3, l3): lanes q..q+3's pairs */
        __m256d a = _mm256_insertf128_pd(_mm256_castpd128_pd256(_mm_loadu_pd(tab + idx[q])), _mm_loadu_pd(tab + idx[q + 2]), 1);
        __m256d b = _mm256_insertf128_pd(_mm256_castpd128_pd256(_mm_loadu_pd(tab + idx[q + 1])), _mm_loadu_pd(tab + idx[q + 3]), 1);
        _mm256_storeu_pd(out0 + q, _mm256_unpacklo_pd(a, b));
        _mm256_storeu_pd(out1 + q, _mm256_unpackhi_pd(a, b));
    }
#else
    crm_lanes_gather(tab, idx, out0);
    crm_lanes_gather(tab + 1, idx, out1);
#endif
}

/* c[q] = log's c_k (crm_log_h[k][2]) for k = idx[q] / 4: with AVX-512 BW
 * and DQ from 256 c_k (crm_log_c8, an integer) found by two word permutes
 * of the table in registers, a blend and an exact conversion and scaling:
 * r = m c - 1 starts the polynomial, and a gather's latency there held up
 * every lane; elsewhere a gather. */
CRM_FN void crm_lanes_log_c(const crm_i64 *idx, double *c)
{
#if defined(__AVX512BW__) && defined(__AVX512DQ__)
    const __m512i t0 = _mm512_loadu_si512((const void *)crm_log_c8), t1 = _mm512_loadu_si512((const void *)(crm_log_c8 + 32));
    const __m512i t2 = _mm512_loadu_si512((const void *)(crm_log_c8 + 64)), t3 = _mm512_loadu_si512((const void *)(crm_log_c8 + 96));
    for (int q = 0; q < CRM_LANES; q += 8) {
        /* k in each lane's low word (bits 0-5: the word of t0:t1 or t2:t3), 0 in the others */
        __m512i k = _mm512_srli_epi64(_mm512_loadu_si512((const void *)(idx + q)), 2);
        __m512i lo = _mm512_permutex2var_epi16(t0, k, t1), hi = _mm512_permutex2var_epi16(t2, k, t3);
        __m512i v = _mm512_mask_blend_epi64(_mm512_test_epi64_mask(k, _mm512_set1_epi64(64)), lo, hi);
        v = _mm512_and_si512(v, _mm512_set1_epi64(0xffff));
        _mm512_storeu_pd(c + q, _mm512_mul_pd(_mm512_cvtepi64_pd(v), _mm512_set1_pd(0x1p-8)));
    }
#else
    crm_lanes_gather(&crm_log_h[0][2], idx, c);
#endif
}

/* xs = x, read 16 bytes at a time: brine's code (compiled for any x86-64
 * unless --cpu=native) stores x 8 or 16 bytes at a time just before the
 * call, and a wider read of stores still on their way to the cache waits
 * for them to get there (no store forwarding); a read within one store
 * gets its bytes at once. The vectors are put together in registers. */
CRM_FN void crm_lanes_load(const double *x, double *xs)
{
#if defined(__AVX512F__) && defined(__AVX512DQ__)
    for (int q = 0; q < CRM_LANES; q += 8) {
        __m512d v = _mm512_castpd128_pd512(_mm_loadu_pd(x + q));
        v = _mm512_insertf64x2(v, _mm_loadu_pd(x + q + 2), 1);
        v = _mm512_insertf64x2(v, _mm_loadu_pd(x + q + 4), 2);
        v = _mm512_insertf64x2(v, _mm_loadu_pd(x + q + 6), 3);
        _mm512_storeu_pd(xs + q, v);
    }
#elif defined(__AVX2__)
    for (int q = 0; q < CRM_LANES; q += 4)
        _mm256_storeu_pd(xs + q, _mm256_insertf128_pd(_mm256_castpd128_pd256(_mm_loadu_pd(x + q)), _mm_loadu_pd(x + q + 2), 1));
#else
    for (int q = 0; q < CRM_LANES; q++) xs[q] = x[q];
#endif
}

/* k = 128 E + j from kd + 1.5 2^52's low bits (|k| < 2^18): *ix, j's
 * row in crm_exp_t, and 2^E (the result normal: -1021 <= E <= 1023) */
CRM_HOT_FN double crm_lanes_exp_split(double kd, crm_i64 *ix)
{
    crm_u64 kb = crm_bits(kd + 6755399441055744.0);
    *ix = (crm_i64)(kb & 127) * 3;
    return crm_from_bits((((kb >> 7) + 1023) & 0x7ff) << 52); /* E's top bits wrapped away */
}

/* exp's (two = 0) and exp2's (two = 1) lanes: the fast path where 2^-54
 * <= |x| < 707 (exp: the result is then normal; 707 <= x < 709.75 goes to
 * the scalar function, as one unsigned comparison) or < 1020 (exp2, as
 * brm_exp2's): the reduction (rh + rl: exp's by brm_exp's own
 * crm_exp_reduce_short, two operations after k, not crm_exp_reduce's
 * normalised ten; exp2's by brm_exp2's; *ix and 2^E by
 * crm_lanes_exp_split), then 2^E T_j exp(r) (crm_exp_fast_tk, exp2's in
 * its lean form as brm_exp2's, the rounding test, the scaling) */
CRM_HOT_FN unsigned crm_lanes_expk(const double *restrict x0, double *restrict y, int two)
{
    double x[CRM_LANES], rh[CRM_LANES], rl[CRM_LANES], sc[CRM_LANES];
    crm_i64 ix[CRM_LANES];
    crm_u64 in[CRM_LANES], bad[CRM_LANES];
    crm_lanes_load(x0, x);
    crm_u64 top = two ? 0x408fe00000000000ULL : 0x4086180000000000ULL;
    for (int i = 0; i < CRM_LANES; i++) {
        crm_u64 ax = crm_bits(x[i]) & 0x7fffffffffffffffULL;
        in[i] = ax - 0x3c90000000000000ULL < top - 0x3c90000000000000ULL;
        double kd;
        if (two) { /* brm_exp2's reduction (crm_exp2_core's): |rl| <= 2^-61.6 */
            kd = fma(x[i], 128.0, 6755399441055744.0) - 6755399441055744.0;
            double f = fma(-kd, 0x1p-7, x[i]); /* exact */
            rh[i] = f * CRM_LN2_HI;
            rl[i] = fma(f, CRM_LN2_MI, fma(f, CRM_LN2_HI, -rh[i]));
        } else {
            kd = crm_exp_reduce_short(x[i], &rh[i], &rl[i]); /* brm_exp's */
        }
        sc[i] = crm_lanes_exp_split(kd, &ix[i]);
    }
    double th[CRM_LANES], tl[CRM_LANES];
    crm_lanes_gather2(&crm_exp_t[0][0], ix, th, tl);
    for (int i = 0; i < CRM_LANES; i++) {
        double lo, out, h = crm_exp_fast_tk(rh[i], rl[i], th[i], tl[i], &lo, two); /* exp2: the lean form, as brm_exp2 */
        int ok = crm_round_test(h, lo, 0x1p-68, &out);
        y[i] = out * sc[i];
        bad[i] = ((crm_u64)ok & in[i]) ^ 1;
    }
    return crm_lanes_mask(bad);
}

CRM_FN unsigned crm_lanes_exp(const double *restrict x, double *restrict y) { return crm_lanes_expk(x, y, 0); }
CRM_FN unsigned crm_lanes_exp2(const double *restrict x, double *restrict y) { return crm_lanes_expk(x, y, 1); }

#if CRM_LANES_ROW_LOADS
/* log's, log2's and log10's lanes with AVX2 (and not AVX-512), written
 * in vectors of four lanes: crm_lanes_logk's loops below, as gcc compiles
 * them, reload constants on every vector for want of registers, transpose
 * the rows in a loop of their own and turn each lane's flag into the mask
 * in another (bench/math_lanes's par sum of log at one thread: 11% less
 * time here, for about as many instructions). The same operations in the same order as
 * crm_log_fast_t, crm_log2_fast_t, crm_log1p_tail, crm_log_base and
 * crm_round_test_abs, one vector operation for each of theirs (so the
 * same bits); the range test as one signed comparison. Two loops: the
 * reductions and table rows of all eight vectors (with e''s terms H and
 * e' LN2_2 + Tl, and the range test as a mask of bits: three vectors kept
 * a vector, not five; 5% less time), then the polynomials and tests (one
 * loop doing both for one vector at a time ran 15% slower than the
 * arrays: each vector's chain from x to the mask was too long for the
 * processor to overlap enough vectors). */
typedef __m256d crm_v4;
#define CRM_V4(c) _mm256_set1_pd(c)
#define CRM_V4I(c) _mm256_set1_epi64x((long long)(c))

CRM_HOT_FN crm_v4 crm_v4_log1p_tail(crm_v4 r)
{
    crm_v4 r2 = _mm256_mul_pd(r, r);
    crm_v4 a = _mm256_fmadd_pd(r, CRM_V4(crm_log1p_c[3][0]), CRM_V4(crm_log1p_c[2][0]));
    crm_v4 b = _mm256_fmadd_pd(r, CRM_V4(crm_log1p_c[5][0]), CRM_V4(crm_log1p_c[4][0]));
    crm_v4 c = _mm256_fmadd_pd(r, CRM_V4(crm_log1p_c[7][0]), CRM_V4(crm_log1p_c[6][0]));
    crm_v4 d = _mm256_fmadd_pd(r, CRM_V4(crm_log1p_c[9][0]), CRM_V4(crm_log1p_c[8][0]));
    crm_v4 q = _mm256_fmadd_pd(_mm256_mul_pd(r2, r2), _mm256_fmadd_pd(r2, d, c), _mm256_fmadd_pd(r2, b, a));
    return _mm256_mul_pd(_mm256_mul_pd(r2, r), q);
}

/* crm_log_fast_t from r, h = e' LN2_1 + Th (exact) and g = e' LN2_2 + Tl,
 * which crm_lanes_log_v4's first loop computes */
CRM_HOT_FN crm_v4 crm_v4_log_fast_t(crm_v4 r, crm_v4 h, crm_v4 g, crm_v4 *lo)
{
    crm_v4 hr = _mm256_mul_pd(CRM_V4(-0.5), r);
    crm_v4 p = _mm256_fmadd_pd(hr, r, r), pl = _mm256_fmadd_pd(hr, r, _mm256_sub_pd(r, p));
    crm_v4 h1 = _mm256_add_pd(h, p), l1 = _mm256_sub_pd(p, _mm256_sub_pd(h1, h));
    *lo = _mm256_add_pd(_mm256_add_pd(_mm256_add_pd(l1, pl), g), crm_v4_log1p_tail(r));
    return h1;
}

/* crm_log2_fast_t from r, h = e' + T2h (exact) and T2l */
CRM_HOT_FN crm_v4 crm_v4_log2_fast_t(crm_v4 r, crm_v4 h, crm_v4 t2l, crm_v4 *lo)
{
    crm_v4 hr = _mm256_mul_pd(CRM_V4(-0.5), r);
    crm_v4 p = _mm256_fmadd_pd(hr, r, r), pl = _mm256_fmadd_pd(hr, r, _mm256_sub_pd(r, p));
    crm_v4 h1 = _mm256_fmadd_pd(p, CRM_V4(CRM_LOG_INVLN2_HI), h);
    crm_v4 l1 = _mm256_fmadd_pd(p, CRM_V4(CRM_LOG_INVLN2_HI), _mm256_sub_pd(h, h1));
    *lo = _mm256_add_pd(l1, _mm256_fmadd_pd(CRM_V4(CRM_LOG_INVLN2_HI), _mm256_add_pd(pl, crm_v4_log1p_tail(r)),
                                            _mm256_fmadd_pd(p, CRM_V4(CRM_LOG_INVLN2_MI), t2l)));
    return h1;
}

CRM_HOT_FN unsigned crm_lanes_log_v4(const double *restrict x0, double *restrict y, int kind)
{
    const double *tab = kind == CRM_LOG2 ? &crm_log2_h[0][0] : &crm_log_h[0][0];
    /* first every vector's reduction and rows (independent of each other,
     * so the table loads of later vectors overlap; one loop over both
     * halves held too long a chain of dependent operations per vector for
     * the processor to overlap enough of them), then the polynomial */
    crm_v4 rs[CRM_LANES / 4], hs[CRM_LANES / 4], gs[CRM_LANES / 4];
    unsigned in = 0; /* the lanes the fast path covers */
    for (int v = 0; v < CRM_LANES / 4; v++) {
        const double *xq = x0 + 4 * v;
        __m256i b = _mm256_castpd_si256(_mm256_insertf128_pd(_mm256_castpd128_pd256(_mm_loadu_pd(xq)), _mm_loadu_pd(xq + 2), 1));
        __m256i t = _mm256_sub_epi64(b, CRM_V4I(CRM_LOG_OFF));
        __m256i k = _mm256_and_si256(_mm256_srli_epi64(t, 43), CRM_V4I(127 << 2)); /* the row, times 4 */
        /* the four rows (Th, Tl, c_i, 0), transposed */
        __m128i klo = _mm256_castsi256_si128(k), khi = _mm256_extracti128_si256(k, 1);
        crm_v4 r0 = _mm256_loadu_pd(tab + _mm_cvtsi128_si64(klo)), r1 = _mm256_loadu_pd(tab + _mm_extract_epi64(klo, 1));
        crm_v4 r2 = _mm256_loadu_pd(tab + _mm_cvtsi128_si64(khi)), r3 = _mm256_loadu_pd(tab + _mm_extract_epi64(khi, 1));
        crm_v4 ua = _mm256_unpacklo_pd(r0, r1), ub = _mm256_unpackhi_pd(r0, r1);
        crm_v4 uc = _mm256_unpacklo_pd(r2, r3), ud = _mm256_unpackhi_pd(r2, r3);
        crm_v4 th = _mm256_permute2f128_pd(ua, uc, 0x20), tl = _mm256_permute2f128_pd(ub, ud, 0x20);
        crm_v4 c = _mm256_permute2f128_pd(ua, uc, 0x31);
        /* e' as a double (2^52 + e' + 2048 less 2^52 + 2048), m', r */
        crm_v4 de = _mm256_sub_pd(_mm256_castsi256_pd(_mm256_xor_si256(_mm256_srli_epi64(t, 52), CRM_V4I(0x4330000000000800ULL))),
                                  CRM_V4(4503599627372544.0));
        if (kind == CRM_LOG2) {
            hs[v] = _mm256_add_pd(de, th);
            gs[v] = tl;
        } else {
            hs[v] = _mm256_fmadd_pd(de, CRM_V4(CRM_LOG_LN2_1), th);
            gs[v] = _mm256_fmadd_pd(de, CRM_V4(CRM_LOG_LN2_2), tl);
        }
        crm_v4 m = _mm256_castsi256_pd(_mm256_sub_epi64(b, _mm256_and_si256(t, CRM_V4I(0xfff0000000000000ULL))));
        rs[v] = _mm256_fmadd_pd(m, c, CRM_V4(-1.0));
        /* x positive, normal and finite: b - 2^52 < 0x7fe0... unsigned, as signed with 2^63 added to both sides */
        __m256i inv = _mm256_cmpgt_epi64(CRM_V4I(0xffe0000000000000ULL), _mm256_add_epi64(b, CRM_V4I(0x7ff0000000000000ULL)));
        in |= (unsigned)_mm256_movemask_pd(_mm256_castsi256_pd(inv)) << 4 * v;
    }
    double abs = kind == CRM_LN ? 0x1p-72 : kind == CRM_LOG2 ? 0x1.8p-72 : 0x1p-73;
    unsigned good = 0;
    for (int v = 0; v < CRM_LANES / 4; v++) {
        crm_v4 lo, hi;
        if (kind == CRM_LOG2)
            hi = crm_v4_log2_fast_t(rs[v], hs[v], gs[v], &lo);
        else
            hi = crm_v4_log_fast_t(rs[v], hs[v], gs[v], &lo);
        if (kind == CRM_LOG10) { /* crm_log_base */
            crm_v4 ph = _mm256_mul_pd(hi, CRM_V4(CRM_LOG_INVLN10_HI));
            crm_v4 pl = _mm256_fmsub_pd(hi, CRM_V4(CRM_LOG_INVLN10_HI), ph);
            lo = _mm256_fmadd_pd(lo, CRM_V4(CRM_LOG_INVLN10_HI), _mm256_fmadd_pd(hi, CRM_V4(CRM_LOG_INVLN10_MI), pl));
            hi = ph;
        }
        /* the smaller bound (min: rel < abs ? rel : abs), crm_round_test_abs */
        crm_v4 rel = _mm256_mul_pd(_mm256_andnot_pd(CRM_V4(-0.0), hi), CRM_V4(0x1p-64));
        crm_v4 err = _mm256_min_pd(rel, CRM_V4(abs));
        crm_v4 out = _mm256_add_pd(hi, _mm256_sub_pd(lo, err)), out2 = _mm256_add_pd(hi, _mm256_add_pd(lo, err));
        _mm256_storeu_pd(y + 4 * v, out);
#ifndef CRM_TEST_ACCURATE
        good |= (unsigned)_mm256_movemask_pd(_mm256_cmp_pd(out, out2, _CMP_EQ_OQ)) << 4 * v;
#endif
    }
    return ~(good & in);
}
#endif

/* log's, log2's and log10's lanes (kind: log.h's CRM_LN, CRM_LOG2,
 * CRM_LOG10): the scalar function's own fast path (crm_log_fast_t, then
 * crm_log_base; log2: crm_log2_fast_t) where x is positive, normal and
 * finite, e' a double, and its own test (crm_log_any's: log2's bounds are
 * derived at crm_log2_fast_t, log's and log10's here).
 *
 * The rounding test takes the smaller of two bounds, each proved:
 * - relative: log.h's 2^-64, the scalar function's;
 * - absolute, every e': the tail's 5 ulps of r^3/3 <= 2^-22.6 (2^-72.68),
 *   the rounding of the last sum into lo (a value below 2^-22.5: 2^-75.5),
 *   the others in lo (values below 2^-33.7: 2^-86.7 each; below 2^-42.5
 *   (l1, and pl, within 2^-114 of its value): 2^-95.5), the constants' (|e'| 2^-98 <= 2^-87.9 for LN2_2,
 *   2^-96 for Tl): below 2^-72.49 for log; for log10 that error times
 *   1/ln 10, lo's product by 1/ln 10's middle part left out (2^-78.5)
 *   and at most two roundings of values below 2^-22 (2^-75 each, times
 *   0.44): below 2^-73.38; log2's, below 2^-71.65, at crm_log2_fast_t. The
 *   test's own roundings (2^-53 |lo -+ e| < 2^-94) fit in the room to the
 *   bounds it uses: 2^-72, 1.5 2^-72 (log2) and 2^-73. (Against MPFR on 3
 *   10^6 inputs the error stays below 2^-74.1 and 2^-74.8 for log and
 *   log10; log2's, 2^-73.04.)
 * The absolute bound is the smaller one unless |log_b x| < 2^-8 (with
 * e' != 0, |log_b x| >= 0.15: always). A lane fails the test with a chance
 * of about twice the bound over the result's ulp: 2^-18 where |log_b x| >=
 * 1/4 (the relative bound: 2^-10.5), smaller still where |log_b x| is
 * large. Fewer lanes go to the scalar function (there, the accurate path):
 * for the x in (0, 1] of bench/math_lanes, a thirteenth as many. */
CRM_HOT_FN unsigned crm_lanes_logk(const double *restrict x0, double *restrict y, int kind)
{
#if CRM_LANES_ROW_LOADS
    return crm_lanes_log_v4(x0, y, kind);
#else
    double x[CRM_LANES];
    crm_lanes_load(x0, x);
    /* crm_log_h's rows (Th, Tl, c_i, 0), for log2 crm_log2_h's (T2h, T2l, c_i, 0) */
    crm_i64 ih[CRM_LANES];
    double c[CRM_LANES], th[CRM_LANES], tl[CRM_LANES];
    for (int i = 0; i < CRM_LANES; i++) ih[i] = (crm_i64)(((crm_bits(x[i]) - CRM_LOG_OFF) >> 45) & 127) * 4;
    const double *tab = kind == CRM_LOG2 ? &crm_log2_h[0][0] : &crm_log_h[0][0];
    crm_lanes_log_c(ih, c);
    crm_lanes_gather2(tab, ih, th, tl);
    double abs = kind == CRM_LN ? 0x1p-72 : kind == CRM_LOG2 ? 0x1.8p-72 : 0x1p-73;
    crm_u64 bad[CRM_LANES];
    for (int i = 0; i < CRM_LANES; i++) {
        crm_u64 b = crm_bits(x[i]);
        int in = b - 0x0010000000000000ULL < 0x7fe0000000000000ULL;
        crm_u64 t = b - CRM_LOG_OFF;
        /* e' (t's top 12 bits, signed) as a double, exactly: 2^52 + e' + 2048 less 2^52 + 2048 */
        double de = crm_from_bits(0x4330000000000000ULL | ((t >> 52) ^ 0x800)) - 4503599627372544.0;
        double m = crm_from_bits(b - (t & 0xfff0000000000000ULL));
        double r = fma(m, c[i], -1.0);
        double lo, hi;
        if (kind == CRM_LOG2) {
            hi = crm_log2_fast_t(de, r, th[i], tl[i], &lo);
        } else {
            hi = crm_log_fast_t(de, r, th[i], tl[i], &lo);
            hi = crm_log_base(kind, hi, &lo);
        }
        /* the relative bound or the absolute one, the smaller */
        double rel = crm_fabs(hi) * 0x1p-64;
        double out, err = rel < abs ? rel : abs;
        int ok = crm_round_test_abs(hi, lo, err, &out);
        y[i] = out;
        bad[i] = (crm_u64)(ok & in) ^ 1;
    }
    return crm_lanes_mask(bad);
#endif
}

CRM_FN unsigned crm_lanes_log(const double *restrict x, double *restrict y) { return crm_lanes_logk(x, y, CRM_LN); }
CRM_FN unsigned crm_lanes_log2(const double *restrict x, double *restrict y) { return crm_lanes_logk(x, y, CRM_LOG2); }
CRM_FN unsigned crm_lanes_log10(const double *restrict x, double *restrict y) { return crm_lanes_logk(x, y, CRM_LOG10); }

/* crm_sincos_reduce (n = 3: tan's, normalized) or crm_sincos_reduce_u
 * (n = 2: sin's and cos's) in every lane: rh + rl, the sine's (or
 * cosine's) index k in crm_sin128 and whether 2^-27 <= |x| < 2^40; t[2m],
 * t[2m + 1]: the entries k + 64 m, m < n */
CRM_HOT_FN void crm_lanes_trig_reduce(const double *restrict x, int c, int n, double *rh, double *rl, crm_u64 *in,
                                      double (*t)[CRM_LANES])
{
    crm_i64 ix[3][CRM_LANES];
    for (int i = 0; i < CRM_LANES; i++) {
        crm_u64 ax = crm_bits(x[i]) & 0x7fffffffffffffffULL;
        in[i] = ax - 0x3e40000000000000ULL < 0x4270000000000000ULL - 0x3e40000000000000ULL;
        crm_i64 k = n == 3 ? crm_sincos_reduce(x[i], c, &rh[i], &rl[i]) : crm_sincos_reduce_u(x[i], c, &rh[i], &rl[i]);
        for (int m = 0; m < n; m++) ix[m][i] = ((k + 64 * m) & 255) * 2;
    }
    for (int m = 0; m < n; m++) {
        crm_lanes_gather2(&crm_sin128[0][0], ix[m], t[2 * m], t[2 * m + 1]);
    }
}

/* sin's (c = 0) and cos's (c = 1) lanes: crm_sincos's fast path, where
 * 2^-27 <= |x| < 2^40 */
CRM_HOT_FN unsigned crm_lanes_sincos(const double *restrict x0, double *restrict y, int c)
{
    double x[CRM_LANES];
    crm_lanes_load(x0, x);
    double rh[CRM_LANES], rl[CRM_LANES], t[4][CRM_LANES];
    crm_u64 in[CRM_LANES], bad[CRM_LANES];
    crm_lanes_trig_reduce(x, c, 2, rh, rl, in, t);
    for (int i = 0; i < CRM_LANES; i++) {
        double l, e, out, h = crm_sincos_dd_t(rh[i], rl[i], t[0][i], t[1][i], t[2][i], t[3][i], &l, &e);
        int ok = crm_round_test_abs(h, l, e, &out);
        y[i] = out;
        bad[i] = ((crm_u64)ok & in[i]) ^ 1;
    }
    return crm_lanes_mask(bad);
}

/* tan's lanes: brm_tan's fast path (crm_tan_fast_t), where 2^-27 <= |x| < 2^40 */
CRM_FN unsigned crm_lanes_tan(const double *restrict x0, double *restrict y)
{
    double x[CRM_LANES];
    crm_lanes_load(x0, x);
    double rh[CRM_LANES], rl[CRM_LANES], t[6][CRM_LANES];
    crm_u64 in[CRM_LANES], bad[CRM_LANES];
    crm_lanes_trig_reduce(x, 0, 3, rh, rl, in, t);
    for (int i = 0; i < CRM_LANES; i++) {
        double out, ti[6] = {t[0][i], t[1][i], t[2][i], t[3][i], t[4][i], t[5][i]};
        int ok = crm_tan_fast_t(rh[i], rl[i], ti, &out);
        y[i] = out;
        bad[i] = ((crm_u64)ok & in[i]) ^ 1;
    }
    return crm_lanes_mask(bad);
}

CRM_FN unsigned crm_lanes_sin(const double *restrict x, double *restrict y) { return crm_lanes_sincos(x, y, 0); }
CRM_FN unsigned crm_lanes_cos(const double *restrict x, double *restrict y) { return crm_lanes_sincos(x, y, 1); }

#endif
