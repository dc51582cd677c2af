/*
 * check_math.c: Brine's math functions (the runtime's brt_<name>) against
 * MPFR, correctly rounded to nearest, bit for bit.
 *
 *   check_math [-n N] [-s SEED] [-H HARDFILE] [-f STRIDE] [-g] [-o] [NAME...]
 *
 * For each function (all rows of FUNCS below, or the NAMEs given) it checks
 * the special values (zeros, infinities, NaN, subnormals, the extremes, the
 * function's own edges and their neighbours), N random inputs (a third
 * uniform in the bits over all doubles, a third uniform in the bits over
 * the function's domain, a third uniform in value over it), and the
 * HARDFILE's lines for it (`NAME X [Y]`, hexadecimal floats, `#` comments:
 * the published hard-to-round cases), and with -f every STRIDE-th binary32
 * bit pattern as a double argument (STRIDE 1: every float, a smoke test of
 * the whole float range; a second argument is the next pattern's float).
 * A result is right when its bits are
 * MPFR's (any NaN matches a NaN). Prints per function the inputs, the
 * mismatches, the hard cases and the worst error in ulps, and with -g the
 * same count for the platform libm on the same inputs (for comparison: its
 * mismatches are not failures); -o checks brine's own functions only.
 * Exit 1 when a function whose gpu column in
 * runtime/brine_math.h is 1 (brine's own) has a mismatch (for gamma and
 * lgamma, which are not correctly rounded: an error above their bound in
 * ulp_bound), or when a function named is unknown.
 *
 * Adding a function: one row of FUNCS.
 */
#define _GNU_SOURCE
#include "brine_rt.h"

#include <math.h>
#include <mpfr.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int (*mpfr1)(mpfr_t, const mpfr_t, mpfr_rnd_t);
typedef int (*mpfr2)(mpfr_t, const mpfr_t, const mpfr_t, mpfr_rnd_t);

static int mp_gamma(mpfr_t y, const mpfr_t x, mpfr_rnd_t r) { return mpfr_gamma(y, x, r); }
static int mp_lgamma(mpfr_t y, const mpfr_t x, mpfr_rnd_t r)
{
    int sign;
    return mpfr_lgamma(y, &sign, x, r);
}
static int mp_floor(mpfr_t y, const mpfr_t x, mpfr_rnd_t r) { return mpfr_floor(y, x); }
static int mp_ceil(mpfr_t y, const mpfr_t x, mpfr_rnd_t r) { return mpfr_ceil(y, x); }
static int mp_round(mpfr_t y, const mpfr_t x, mpfr_rnd_t r) { return mpfr_round(y, x); }
static int mp_trunc(mpfr_t y, const mpfr_t x, mpfr_rnd_t r) { return mpfr_trunc(y, x); }

/* How a function's second argument is drawn: */
enum gen2 { G_ONE, G_ANY, G_POW };

/* Its row: the name, brine's function, libm's, MPFR's, the domain (random
 * inputs in value are drawn from [lo, hi]) and some of the function's own
 * edges (overflow and underflow thresholds, poles; 0 ends the list). */
struct fn {
    const char *name;
    double (*brt1)(double), (*brt2)(double, double);
    double (*libm1)(double), (*libm2)(double, double);
    mpfr1 mp1;
    mpfr2 mp2;
    enum gen2 gen;
    double lo, hi;
    double edges[6];
};

/* libm's gamma function is tgamma (glibc's gamma is lgamma's old name) */
#define gamma tgamma
#define F1(name, mp, lo, hi, ...) {#name, brt_##name, NULL, name, NULL, mp, NULL, G_ONE, lo, hi, {__VA_ARGS__}},
#define F2(name, mp, gen, lo, hi, ...) {#name, NULL, brt_##name, NULL, name, NULL, mp, gen, lo, hi, {__VA_ARGS__}},
static const struct fn FUNCS[] = {
    F1(sqrt, mpfr_sqrt, 0, 1e300, 0)
    F1(floor, mp_floor, -1e17, 1e17, 0.5, 4503599627370496.0)
    F1(ceil, mp_ceil, -1e17, 1e17, 0.5, 4503599627370496.0)
    F1(round, mp_round, -1e17, 1e17, 0.5, 2.5, 4503599627370495.5)
    F1(trunc, mp_trunc, -1e17, 1e17, 0.5, 4503599627370496.0)
    F2(fmod, mpfr_fmod, G_ANY, -1e20, 1e20, 0)
    F1(exp, mpfr_exp, -746, 710, 709.782712893384, -708.3964185322641, -745.1332191019411, 0x1p-54)
    F1(exp2, mpfr_exp2, -1076, 1025, 1024, -1022, -1074, -1075, 0x1p-54)
    F1(expm1, mpfr_expm1, -40, 710, 709.782712893384, -37.5, 0x1p-54, 0x1p-1000)
    F1(log, mpfr_log, 0, 1e300, 1, 0x1p-1074, 0x1p-1022, 2)
    F1(log2, mpfr_log2, 0, 1e300, 1, 0x1p-1074, 0x1p-1022, 2)
    F1(log10, mpfr_log10, 0, 1e300, 1, 0x1p-1074, 10, 1e22)
    F1(log1p, mpfr_log1p, -1, 1e300, -1, 0x1p-54, -0x1p-54, 0x1p-1000)
    F1(sin, mpfr_sin, -10, 10, 3.141592653589793, 1.5707963267948966, 0x1p-26, 1e22)
    F1(cos, mpfr_cos, -10, 10, 3.141592653589793, 1.5707963267948966, 0x1p-26, 1e22)
    F1(tan, mpfr_tan, -10, 10, 3.141592653589793, 1.5707963267948966, 0x1p-26, 1e22)
    F1(asin, mpfr_asin, -1, 1, 1, 0.5, 0x1p-26)
    F1(acos, mpfr_acos, -1, 1, 1, 0.5, 0x1p-26)
    F1(atan, mpfr_atan, -100, 100, 1, 0x1p-26, 0x1p53)
    F2(atan2, mpfr_atan2, G_ANY, -100, 100, 1)
    F1(sinh, mpfr_sinh, -711, 711, 710.4758600739439, 0x1p-26, 0x1p-1022)
    F1(cosh, mpfr_cosh, -711, 711, 710.4758600739439, 0x1p-26, 0x1p-1022)
    F1(tanh, mpfr_tanh, -20, 20, 19.06154746539849, 0x1p-26, 0x1p-1022)
    F2(pow, mpfr_pow, G_POW, 0, 1e300, 1, 2, 0.5)
    F2(hypot, mpfr_hypot, G_ANY, -1e300, 1e300, 0x1p-1022, 0x1p1023)
    F1(cbrt, mpfr_cbrt, -1e300, 1e300, 27, 0x1p-1074, 8)
    F1(erf, mpfr_erf, -6, 6, 1, 0x1p-26, 0.0625, 5.921587195794507, 0x1p-500, 6)
    F1(erfc, mpfr_erfc, -6, 28, 1, 0.0625, 11, 26.54325845425098, 27.226017111108362, 5.8635847487551676)
    F1(gamma, mp_gamma, -200, 172, 171.6243769563027, 0.5, -0.5, 16, -183.5, 1e-308)
    F1(lgamma, mp_lgamma, -100, 1e300, 1, 2, 2.5e305, 16, 0x1p1000, -2.4570247382208006)
};
#define NFUNCS ((int)(sizeof FUNCS / sizeof FUNCS[0]))

/* brine's own functions that are not correctly rounded, and the bound on
 * their error in ulps that the test holds them to (docs/stdlib.md) */
static double ulp_bound(const char *name)
{
    if (strcmp(name, "gamma") == 0) return 0.502;
    if (strcmp(name, "lgamma") == 0) return 0.51;
    return 0;
}

/* Whether brine_math.h says the function is brine's own (gpu 1). */
static int own(const char *name)
{
#define OWN(P, n, arity, gpu) if (strcmp(name, #n) == 0) return gpu;
    BRT_MATH(OWN, _)
#undef OWN
    return 0;
}

/* ---- random numbers: splitmix64 ---------------------------------------------------- */

static uint64_t rng;
static uint64_t next(void)
{
    uint64_t z = (rng += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}
static double from_bits(uint64_t u)
{
    double d;
    memcpy(&d, &u, 8);
    return d;
}
static uint64_t bits_of(double d)
{
    uint64_t u;
    memcpy(&u, &d, 8);
    return u;
}
static double unit(void) { return (double)(next() >> 11) * 0x1p-53; }

/* Uniform in the bits over [lo, hi]: a random sign allowed by the interval, a
 * random binade up to hi's magnitude, random mantissa bits; retried until it
 * falls inside. */
static double bits_in(double lo, double hi)
{
    double m = fabs(lo) > fabs(hi) ? fabs(lo) : fabs(hi);
    int emax = (int)((bits_of(m) >> 52) & 0x7ff);
    for (int tries = 0; tries < 1000; tries++) {
        uint64_t e = next() % (uint64_t)(emax + 1);
        uint64_t u = (e << 52) | (next() & 0xfffffffffffffULL);
        if (next() & 1) u |= 1ULL << 63;
        double d = from_bits(u);
        if (d >= lo && d <= hi) return d;
    }
    return lo;
}

/* ---- the reference ------------------------------------------------------------------- */

static mpfr_t mx, my, mr, mwide;

/* MPFR's correctly rounded double; *exact gets the value at 200 bits. */
static double reference(const struct fn *f, double x, double y)
{
    mpfr_set_emin(-1073);
    mpfr_set_emax(1024);
    mpfr_set_d(mx, x, MPFR_RNDN);
    mpfr_set_d(my, y, MPFR_RNDN);
    int t = f->mp1 ? f->mp1(mr, mx, MPFR_RNDN) : f->mp2(mr, mx, my, MPFR_RNDN);
    t = mpfr_check_range(mr, t, MPFR_RNDN);
    mpfr_subnormalize(mr, t, MPFR_RNDN);
    double d = mpfr_get_d(mr, MPFR_RNDN);
    mpfr_set_emin(mpfr_get_emin_min());
    mpfr_set_emax(mpfr_get_emax_max());
    return d;
}

/* |got - f(x, y)| in ulps of the correctly rounded result (an infinity
 * against a finite value: 1e300) */
static double ulps(const struct fn *f, double x, double y, double got, double want)
{
    if (isnan(got) || isnan(want)) return 1e300;
    if (isinf(want) || isinf(got)) return got == want ? 0 : 1e300;
    mpfr_set_d(mx, x, MPFR_RNDN);
    mpfr_set_d(my, y, MPFR_RNDN);
    if (f->mp1) f->mp1(mwide, mx, MPFR_RNDN);
    else f->mp2(mwide, mx, my, MPFR_RNDN);
    mpfr_sub_d(mwide, mwide, got, MPFR_RNDN);
    mpfr_abs(mwide, mwide, MPFR_RNDN);
    int e;
    frexp(want == 0 ? 0x1p-1074 : want, &e);
    double ulp = ldexp(1.0, e - 53 < -1074 ? -1074 : e - 53);
    mpfr_div_d(mwide, mwide, ulp, MPFR_RNDN);
    return mpfr_get_d(mwide, MPFR_RNDN);
}

/* ---- one function ------------------------------------------------------------------------ */

struct tally {
    long inputs, wrong, hard, libm_wrong;
    double worst, libm_worst;
    double worst_x, worst_y;
};

static int verbose_left = 10;
static int compare_libm;

static void check1(const struct fn *f, double x, double y, struct tally *t, int hard)
{
    double want = reference(f, x, y);
    double got = f->brt1 ? f->brt1(x) : f->brt2(x, y);
    t->inputs++;
    t->hard += hard;
    if (!(bits_of(got) == bits_of(want) || (isnan(got) && isnan(want)))) {
        t->wrong++;
        double u = ulps(f, x, y, got, want);
        if (u > t->worst) t->worst = u, t->worst_x = x, t->worst_y = y;
        if (verbose_left > 0 && own(f->name) && u > ulp_bound(f->name)) {
            verbose_left--;
            if (f->brt1) printf("  %s(%a) = %a, want %a (%g ulp)\n", f->name, x, got, want, u);
            else printf("  %s(%a, %a) = %a, want %a (%g ulp)\n", f->name, x, y, got, want, u);
        }
    }
    if (compare_libm) {
        double lg = f->libm1 ? f->libm1(x) : f->libm2(x, y);
        if (!(bits_of(lg) == bits_of(want) || (isnan(lg) && isnan(want)))) {
            t->libm_wrong++;
            double u = ulps(f, x, y, lg, want);
            if (u > t->libm_worst) t->libm_worst = u;
        }
    }
}

/* An x for pow: positive in the bits or in value, negative (y then an
 * integer), or near 1 (where y may be huge) */
static double pow_x(int mode)
{
    switch (next() % 5) {
    case 0: return -bits_in(0, 1e300);
    case 1: return 1 + (unit() - 0.5) * ldexp(1.0, -(int)(next() % 53));
    case 2: return 100 * unit();
    default: return mode == 1 ? bits_in(0, 1e300) : 1e300 * unit();
    }
}

/* A y for pow(x, y) whose result stays mostly in range: y log2 x uniform in
 * [-1100, 1100], or next to the overflow and underflow thresholds (2^1024,
 * 2^-1022, 2^-1074, 2^-1075), sometimes rounded to an integer (always for
 * a negative x: the exact cases and the signs), sometimes a half-integer. */
static double pow_y(double x)
{
    static const double EDGES[] = {1024, -1022, -1074, -1075};
    double l = log2(fabs(x));
    double t = (unit() * 2 - 1) * 1100;
    if ((next() & 7) == 0) t = EDGES[next() % 4] + (unit() - 0.5) * ldexp(1.0, -(int)(next() % 40));
    double y = l != 0 && isfinite(l) ? t / l : t;
    if ((next() & 7) == 0 || x < 0) y = round(y);
    if ((next() & 15) == 0) y = (double)(int)(next() % 64) * 0.5;
    return y;
}

static double second(const struct fn *f, double x, int mode)
{
    switch (f->gen) {
    case G_ONE: return 0;
    case G_POW: return mode == 0 ? from_bits(next()) : pow_y(x);
    case G_ANY: break;
    }
    return mode == 0 ? from_bits(next()) : mode == 1 ? bits_in(f->lo, f->hi) : f->lo + (f->hi - f->lo) * unit();
}

static const double SPECIALS[] = {0.0, 1.0, 2.0, 0.5, 3.0, 10.0, 100.0, 1e-300, 1e300,
                                  0x1p-1074, 0x1p-1073, 0x1.ffffffffffffep-1023, 0x1.fffffffffffffp-1023,
                                  0x1p-1022, 0x1.0000000000001p-1022, 0x1.fffffffffffffp+1023, 0x1p-53,
                                  0x1p-27, 0x1p-26, 0x1p53, 0x1p63, 0x1p1023, 1.5, 0.75, 1.0 / 3, 27.0,
                                  64.0, 1000.0, 0x1.fffffffffffffp-1, 0x1.0000000000001p0};

/* pow's exact and midpoint cases: x = a^(2^k) 2^(2^k s) (a odd), y = n/2^k,
 * so x^y = a^n 2^(n s), for every a^n below 2^54 (a^n with 54 bits is a
 * midpoint between two doubles), s putting the result near 1, near the
 * top of the range, or at a subnormal midpoint (n s = -1075), and the
 * neighbours of x (as hard as it gets without a search) */
static void pow_exact(const struct fn *f, struct tally *t)
{
    for (int a = 3; a < 200; a += 2)
        for (int k = 0; k <= 5; k++) {
            double A = pow(a, 1 << k); /* exact while below 2^53 */
            if (A >= 0x1p53) break;
            double an = 1;
            for (int n = 1; an * a < 0x1p54; n++) {
                an *= a;
                if (k > 0 && n % 2 == 0) continue;
                double y = ldexp(n, -k);
                int bits = (int)ceil(log2(an + 1));
                int ss[4] = {0, -bits / n, (1000 - bits) / n, 1075 % n == 0 ? -1075 / n : 0};
                for (int i = 0; i < 4; i++) {
                    double x = ldexp(A, ss[i] * (1 << k));
                    if (x == 0 || isinf(x)) continue;
                    check1(f, x, y, t, 0);
                    check1(f, nextafter(x, 0), y, t, 0);
                    check1(f, nextafter(x, INFINITY), y, t, 0);
                    if (k == 0 && n % 2) check1(f, -x, y, t, 0);
                    check1(f, x, nextafter(y, 0), t, 0);
                }
            }
        }
}

static void specials(const struct fn *f, struct tally *t)
{
    double v[128];
    int n = 0;
    for (size_t i = 0; i < sizeof SPECIALS / sizeof SPECIALS[0]; i++) v[n++] = SPECIALS[i];
    for (int i = 0; i < 6 && f->edges[i] != 0; i++) {
        double e = f->edges[i];
        v[n++] = e;
        v[n++] = nextafter(e, INFINITY);
        v[n++] = nextafter(e, -INFINITY);
        v[n++] = nextafter(nextafter(e, INFINITY), INFINITY);
    }
    v[n++] = INFINITY;
    v[n++] = NAN;
    int m = n;
    for (int i = 0; i < m; i++) v[n++] = -v[i];
    for (int i = 0; i < n; i++) {
        if (f->gen == G_ONE) {
            check1(f, v[i], 0, t, 0);
            continue;
        }
        for (int j = 0; j < n; j += (f->gen == G_POW ? 1 : 3)) check1(f, v[i], v[j], t, 0);
    }
    if (f->gen == G_POW) { /* integer and half-integer powers of small integers: the exact cases */
        for (int b = -12; b <= 12; b++)
            for (int k = -80; k <= 80; k++) check1(f, b, k * 0.5, t, 0), check1(f, b / 8.0, k, t, 0);
        for (int k = -30; k <= 30; k++) check1(f, 10, k, t, 0), check1(f, 0.1, k, t, 0);
        pow_exact(f, t);
    }
}

static void hard_cases(const struct fn *f, const char *path, struct tally *t)
{
    FILE *in = fopen(path, "r");
    if (!in) {
        fprintf(stderr, "check_math: cannot open %s\n", path);
        exit(2);
    }
    char line[512], name[64];
    while (fgets(line, sizeof line, in)) {
        if (line[0] == '#' || line[0] == '\n') continue;
        double x, y = 0;
        int k = sscanf(line, "%63s %la %la", name, &x, &y);
        if (k < 2 || strcmp(name, f->name) != 0) continue;
        check1(f, x, y, t, 1);
    }
    fclose(in);
}

int main(int argc, char **argv)
{
    long n = 100000;
    uint64_t seed = 1;
    const char *hard = NULL;
    long stride = 0;
    int first = 1, own_only = 0;
    for (; first < argc && argv[first][0] == '-'; first++) {
        if (strcmp(argv[first], "-n") == 0 && first + 1 < argc) n = atol(argv[++first]);
        else if (strcmp(argv[first], "-s") == 0 && first + 1 < argc) seed = strtoull(argv[++first], NULL, 0);
        else if (strcmp(argv[first], "-H") == 0 && first + 1 < argc) hard = argv[++first];
        else if (strcmp(argv[first], "-f") == 0 && first + 1 < argc) stride = atol(argv[++first]);
        else if (strcmp(argv[first], "-g") == 0) compare_libm = 1;
        else if (strcmp(argv[first], "-o") == 0) own_only = 1;
        else {
            fprintf(stderr, "usage: check_math [-n N] [-s SEED] [-H HARDFILE] [-f STRIDE] [-g] [-o] [NAME...]\n");
            return 2;
        }
    }
    mpfr_inits2(53, mx, my, mr, (mpfr_ptr)0);
    mpfr_init2(mwide, 200);
    int failed = 0;
    printf("%-7s %4s %10s %10s %6s %10s", "name", "own", "inputs", "mismatch", "hard", "worst ulp");
    if (compare_libm) printf(" %12s %10s", "libm mism.", "libm ulp");
    printf("\n");
    for (int i = 0; i < NFUNCS; i++) {
        const struct fn *f = &FUNCS[i];
        if (first < argc) {
            int named = 0;
            for (int a = first; a < argc; a++) named |= strcmp(argv[a], f->name) == 0;
            if (!named) continue;
        }
        if (own_only && !own(f->name)) continue;
        struct tally t = {0};
        rng = seed * 0x100000001b3ULL + (uint64_t)i;
        verbose_left = 10;
        specials(f, &t);
        if (hard) hard_cases(f, hard, &t);
        if (stride > 0)
            for (uint64_t u = 0; u < 0x100000000ULL; u += (uint64_t)stride) {
                uint32_t a = (uint32_t)u, b = (uint32_t)(u + (uint64_t)stride);
                float fa, fb;
                memcpy(&fa, &a, 4);
                memcpy(&fb, &b, 4);
                check1(f, fa, fb, &t, 0);
            }
        for (long k = 0; k < n; k++) {
            int mode = (int)(k % 3);
            double x = mode == 0 ? from_bits(next())
                       : f->gen == G_POW ? pow_x(mode)
                       : mode == 1 ? bits_in(f->lo, f->hi) : f->lo + (f->hi - f->lo) * unit();
            check1(f, x, second(f, x, mode), &t, 0);
        }
        printf("%-7s %4s %10ld %10ld %6ld %10.3g", f->name, own(f->name) ? "yes" : "libm", t.inputs, t.wrong, t.hard,
               t.worst);
        if (compare_libm) printf(" %12ld %10.3g", t.libm_wrong, t.libm_worst);
        printf("\n");
        fflush(stdout);
        if (own(f->name) && t.wrong && (ulp_bound(f->name) == 0 || t.worst > ulp_bound(f->name))) failed = 1;
    }
    for (int a = first; a < argc; a++) {
        int known = 0;
        for (int i = 0; i < NFUNCS; i++) known |= strcmp(argv[a], FUNCS[i].name) == 0;
        if (!known) {
            fprintf(stderr, "check_math: no function %s\n", argv[a]);
            failed = 1;
        }
    }
    mpfr_clears(mx, my, mr, mwide, (mpfr_ptr)0);
    mpfr_free_cache();
    return failed;
}
