/*
 * mp.h: a small fixed-point multiprecision arithmetic, the last stage of
 * brm_pow (pow.h): log and exp to hundreds of bits, each with an error
 * bound counted as it is computed, so the rounding decision made from them
 * rests on no a priori bound (Ziv's strategy: when the bound does not
 * decide, the caller tries again with more limbs).
 *
 * A number is n 32-bit limbs d[0..n), most significant first, unsigned:
 * the value is sum d[j] 2^(32 (1 - j)), so d[0] and d[1] are the integer
 * part (below 2^64) and n - 2 limbs the fraction; one ulp is 2^(-32 (n - 2)).
 * Products of two limbs fit in 64 bits: no 128-bit integers (NVRTC), no
 * floating point but in the error bounds (counts of ulps, kept as doubles
 * with room to spare) and a first guess of exp's reduction. Each operation
 * that truncates loses less than one ulp; the comments count them.
 *
 * The functions (n at most CRM_MP_MAX):
 * - ln2 = 2 atanh(1/3) and log c = 2 atanh((c - 1)/(c + 1)) for a short c,
 *   series whose terms come by multiplying and dividing by small integers;
 * - log1p(r), |r| <= 2^-7 exact: its Taylor series, odd and even powers in
 *   two sums (no cancellation inside a sum);
 * - exp(r), 0 <= r < ln2 + small: its Taylor series.
 */
#ifndef CRM_MP_H
#define CRM_MP_H

#include "dd.h" /* text */

#define CRM_MP_MAX 36 /* limbs: 64 integer bits and up to 1088 fraction bits */

typedef unsigned int crm_u32;

/* A signed number: sign (0 or 1) and magnitude; err its error bound in ulps */
typedef struct crm_mp {
    int neg;
    double err;
    crm_u32 d[CRM_MP_MAX];
} crm_mp;

CRM_FN void crm_mp_zero(crm_mp *a, int n)
{
    a->neg = 0;
    a->err = 0;
    for (int j = 0; j < n; j++) a->d[j] = 0;
}

CRM_FN int crm_mp_is_zero(const crm_mp *a, int n)
{
    for (int j = 0; j < n; j++)
        if (a->d[j]) return 0;
    return 1;
}

/* |a| against |b|: -1, 0, 1 */
CRM_FN int crm_mp_cmp(const crm_mp *a, const crm_mp *b, int n)
{
    for (int j = 0; j < n; j++)
        if (a->d[j] != b->d[j]) return a->d[j] < b->d[j] ? -1 : 1;
    return 0;
}

/* |r| = |a| + |b| (exact; no carry out of the integer part) */
CRM_FN void crm_mp_add_mag(crm_mp *r, const crm_mp *a, const crm_mp *b, int n)
{
    crm_u64 c = 0;
    for (int j = n - 1; j >= 0; j--) {
        c += (crm_u64)a->d[j] + b->d[j];
        r->d[j] = (crm_u32)c;
        c >>= 32;
    }
}

/* |r| = |a| - |b|, |a| >= |b| (exact) */
CRM_FN void crm_mp_sub_mag(crm_mp *r, const crm_mp *a, const crm_mp *b, int n)
{
    crm_i64 c = 0;
    for (int j = n - 1; j >= 0; j--) {
        c += (crm_i64)a->d[j] - (crm_i64)b->d[j];
        r->d[j] = (crm_u32)c;
        c = c < 0 ? -1 : 0;
    }
}

/* r = a + b, signed (exact); r may be a or b; errors add */
CRM_COLD_FN void crm_mp_add(crm_mp *r, const crm_mp *a, const crm_mp *b, int n)
{
    double err = a->err + b->err;
    if (a->neg == b->neg) {
        r->neg = a->neg;
        crm_mp_add_mag(r, a, b, n);
    } else if (crm_mp_cmp(a, b, n) >= 0) {
        r->neg = a->neg;
        crm_mp_sub_mag(r, a, b, n);
    } else {
        r->neg = b->neg;
        crm_mp_sub_mag(r, b, a, n);
    }
    r->err = err;
}

/* a *= m (exact while the integer part holds the product) */
CRM_COLD_FN void crm_mp_mul_u32(crm_mp *a, crm_u32 m, int n)
{
    crm_u64 c = 0;
    for (int j = n - 1; j >= 0; j--) {
        c += (crm_u64)a->d[j] * m;
        a->d[j] = (crm_u32)c;
        c >>= 32;
    }
    a->err *= m;
}

/* a /= m, m > 0, truncated: one ulp more */
CRM_COLD_FN void crm_mp_div_u32(crm_mp *a, crm_u32 m, int n)
{
    crm_u64 rem = 0;
    for (int j = 0; j < n; j++) {
        crm_u64 cur = (rem << 32) | a->d[j];
        a->d[j] = (crm_u32)(cur / m);
        rem = cur % m;
    }
    a->err = a->err / m + 1;
}

/* r = a * b truncated, |a b| < 2^64 and a's or b's top limb zero: error
 * |a| eb + |b| ea + 1 ulp (|a|, |b| bounded by the caller's amax, bmax) */
CRM_COLD_FN void crm_mp_mul(crm_mp *r, const crm_mp *a, const crm_mp *b, int n, double amax, double bmax)
{
    crm_u32 t[2 * CRM_MP_MAX];
    for (int k = 0; k < 2 * n; k++) t[k] = 0;
    /* t: the 2n-limb product of the big integers, a[i] b[j] at t[i + j + 1];
     * its limb p weighs 2^(32 (3 - p)) in value, so r[k] = t[k + 2] */
    for (int i = n - 1; i >= 0; i--) {
        crm_u64 c = 0;
        if (a->d[i] == 0) continue;
        for (int j = n - 1; j >= 0; j--) {
            c += (crm_u64)a->d[i] * b->d[j] + t[i + j + 1];
            t[i + j + 1] = (crm_u32)c;
            c >>= 32;
        }
        t[i] += (crm_u32)c;
    }
    double err = amax * b->err + bmax * a->err + a->err * b->err + 1;
    r->neg = a->neg ^ b->neg;
    for (int k = 0; k < n; k++) r->d[k] = t[k + 2];
    r->err = err;
}

/* a = N 2^s, N < 2^64, truncated to the ulp (then one ulp of error) */
CRM_COLD_FN void crm_mp_set(crm_mp *a, crm_u64 N, int s, int n)
{
    crm_mp_zero(a, n);
    int pos = s + 32 * (n - 2); /* N's lowest bit's place in the big integer d[0..n) */
    for (int k = 0; k < 64; k++) {
        if (!((N >> k) & 1)) continue;
        int p = pos + k;
        if (p < 0) { a->err = 1; continue; }
        if (p < 32 * n) a->d[n - 1 - p / 32] |= 1u << (p % 32);
    }
}

/* a *= 2^s (left for s > 0, exact while the integer part holds it; right
 * for s < 0, truncated: one ulp more) */
CRM_COLD_FN void crm_mp_shift(crm_mp *a, int s, int n)
{
    crm_u32 t[CRM_MP_MAX];
    int q = (s >= 0 ? s : -s) / 32, b = (s >= 0 ? s : -s) % 32;
    for (int j = 0; j < n; j++) {
        /* the limb that lands at j, and the one next to it */
        int src = s >= 0 ? j + q : j - q;
        int nxt = s >= 0 ? src + 1 : src - 1;
        crm_u32 v = src >= 0 && src < n ? a->d[src] : 0;
        crm_u32 w = nxt >= 0 && nxt < n ? a->d[nxt] : 0;
        if (b == 0) t[j] = v;
        else t[j] = s >= 0 ? (v << b) | (w >> (32 - b)) : (v >> b) | (w << (32 - b));
    }
    for (int j = 0; j < n; j++) a->d[j] = t[j];
    if (s < 0) a->err = a->err * crm_pow2i(s < -1000 ? -1000 : s) + 1;
    else a->err *= crm_pow2i(s);
}

/* The value as a double (the top three limbs: a guess, not exact) */
CRM_FN double crm_mp_to_double(const crm_mp *a, int n)
{
    double v = (double)a->d[0] * 0x1p32 + (double)a->d[1] + (double)a->d[2] * 0x1p-32 +
               (n > 3 ? (double)a->d[3] * 0x1p-64 : 0);
    return a->neg ? -v : v;
}

/* sum_{j >= 0} (p/q)^(2j+1) / (2j+1) = atanh(p/q), 0 <= p/q <= 1/3, q^2 < 2^32 */
CRM_COLD_FN void crm_mp_atanh(crm_mp *s, crm_u32 p, crm_u32 q, int n)
{
    crm_mp t, u;
    crm_mp_set(&t, p, 0, n);
    crm_mp_div_u32(&t, q, n);
    *s = t;
    /* t_j = t_{j-1} p^2 / q^2: its error e_j <= e_{j-1} p^2/q^2 + 1 (below
     * 9/8 ulp), each term t_j / (2j+1) one ulp more; the errors are counted
     * as the loop runs */
    for (crm_u32 j = 1; !crm_mp_is_zero(&t, n); j++) {
        crm_mp_mul_u32(&t, p * p, n);
        crm_mp_div_u32(&t, q * q, n);
        u = t;
        crm_mp_div_u32(&u, 2 * j + 1, n);
        crm_mp_add(s, s, &u, n);
    }
    /* the terms left out: the last t is 0 within its error, the rest of
     * the series below that times 1/(1 - 1/9) */
    s->err += 1.125 * t.err;
}

/* ln 2 = 2 atanh(1/3) */
CRM_COLD_FN void crm_mp_ln2(crm_mp *r, int n)
{
    crm_mp_atanh(r, 1, 3, n);
    crm_mp_shift(r, 1, n);
}

/* log c, c = C 2^-g a short positive number (C + 2^g < 2^16):
 * 2 atanh((C - 2^g)/(C + 2^g)) */
CRM_COLD_FN void crm_mp_log_short(crm_mp *r, crm_u32 C, int g, int n)
{
    crm_u32 two = 1u << g;
    crm_u32 p = C >= two ? C - two : two - C;
    crm_mp_atanh(r, p, C + two, n);
    crm_mp_shift(r, 1, n);
    r->neg = C < two;
}

/* log1p(r), r = R 2^s exact (R < 2^64), |r| <= 2^-7 */
CRM_COLD_FN void crm_mp_log1p(crm_mp *res, crm_u64 R, int s, int neg, int n)
{
    crm_mp x, pw, t, sum[2];
    crm_mp_set(&x, R, s, n);
    pw = x;
    crm_mp_zero(&sum[0], n);
    crm_mp_zero(&sum[1], n);
    /* r^k / k: odd k add, even k subtract (r > 0); every k subtracts (r < 0).
     * pw = |r|^k: error e_k <= e_{k-1} |r| + 1 + e_1 ... below 1.01 ulp */
    for (crm_u32 k = 1; !crm_mp_is_zero(&pw, n); k++) {
        t = pw;
        crm_mp_div_u32(&t, k, n);
        int which = neg ? 1 : (int)((k + 1) & 1);
        crm_mp_add_mag(&sum[which], &sum[which], &t, n);
        sum[which].err += t.err;
        crm_mp_mul(&pw, &pw, &x, n, 0x1p-7, 0x1p-7);
    }
    /* the terms left out: the last |r|^k is 0 within its error */
    sum[0].err += 1.01 * pw.err;
    sum[1].neg = 1;
    crm_mp_add(res, &sum[0], &sum[1], n);
}

/* exp(r), 0 <= r < 0.7, r exact as given (its own error is the caller's):
 * 1 + sum r^k / k! */
CRM_COLD_FN void crm_mp_exp(crm_mp *res, const crm_mp *r, int n)
{
    crm_mp t, x = *r;
    x.err = 0;
    x.neg = 0;
    crm_mp_set(res, 1, 0, n);
    crm_mp_add(res, res, &x, n);
    t = x;
    /* t_k = t_{k-1} r / k: error e_k <= (0.7 e_{k-1} + 1)/k + 1 (counted) */
    for (crm_u32 k = 2; !crm_mp_is_zero(&t, n); k++) {
        crm_mp_mul(&t, &t, &x, n, 1, 0.7);
        crm_mp_div_u32(&t, k, n);
        crm_mp_add(res, res, &t, n);
    }
    /* the terms left out: the last t is 0 within its error, the rest below
     * that times 1/(1 - 0.7) */
    res->err += 3.4 * t.err;
}

/* floor(|a| / 2^b) mod 2^64, b >= -32 (n - 2) */
CRM_COLD_FN crm_u64 crm_mp_bits64(const crm_mp *a, int b, int n)
{
    /* bits [pos, pos + 64) of the big integer, pos = b + 32 (n - 2) */
    int pos = b + 32 * (n - 2);
    crm_u64 v = 0;
    for (int k = 63; k >= 0; k--) {
        int p = pos + k;
        int j = n - 1 - p / 32;
        crm_u64 bit = j >= 0 ? (a->d[j] >> (p % 32)) & 1 : 0;
        v = (v << 1) | bit;
    }
    return v;
}

#endif
