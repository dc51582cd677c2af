/*
 * check_lanes.c: the math lanes (runtime/math_lanes.c, crmath/lanes.h)
 * against the scalar functions, bit for bit.
 *
 *   check_lanes [-n N] [-s SEED] [-H HARDFILE] [NAME...]
 *
 * For each function with a lanes form (brine_math.h's BRT_LANES_MATH, or
 * the NAMEs given) it draws N inputs: a third uniform in the bits over all doubles, a
 * third uniform in value over a typical range, a third uniform in the bits
 * over the range the lanes' fast path covers, and adds the special values,
 * the edges of that range and their neighbours, and the HARDFILE's cases
 * for the function (tests/math/hard.txt: the published hard-to-round
 * inputs, which the scalar accurate path decides). The inputs go through
 * the lanes in blocks of BRT_LANES, twice (the second time shifted by one
 * lane, so each input meets other neighbours), and every lane's bits must
 * be the scalar brm_<name>'s: through brt_lanes_<name> (the runtime's pick
 * for this processor), through the AVX2 copy directly when the processor
 * has AVX2 and FMA, the AVX-512 copy when it has AVX-512 too, and through
 * lanes.h compiled here with this file's flags (the portable copy, fma a
 * libm call). Exit 1 on any mismatch.
 */
#define _GNU_SOURCE
#include "brine_rt.h"
#include "crmath/crmath.h"
#include "crmath/lanes.h"
#include "rt_internal.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef void (*lanes_fn)(const double *, double *);
/* lanes function fast of name, the lanes it leaves by brm_<name> */
#define FULL(fast, copy, name)                                                           \
    static void copy##_##name(const double *x, double *y)                                \
    {                                                                                    \
        unsigned m = fast(x, y);                                                         \
        for (int q = 0; q < BRT_LANES; q++)                                              \
            if (m >> q & 1) y[q] = brm_##name(x[q]);                                     \
    }
#define AVX2(name) unsigned brt_avx2_lanes_##name(const double *x, double *y); FULL(brt_avx2_lanes_##name, avx2, name)
#if defined(__x86_64__) && defined(__GNUC__)
#include <cpuid.h>
BRT_LANES_MATH(AVX2)
static int has_avx2(void)
{
    unsigned a, b, c, d;
    return brt_math_has_fma() && __get_cpuid_count(7, 0, &a, &b, &c, &d) && (b & (1u << 5));
}
#define AVX2_FN(name) avx2_##name
#define AVX512(name) unsigned brt_avx512_lanes_##name(const double *x, double *y); FULL(brt_avx512_lanes_##name, avx512, name)
BRT_LANES_MATH(AVX512)
static int has_avx512(void) { return brt_lanes_level() == 2; }
#define AVX512_FN(name) avx512_##name
#else
static int has_avx2(void) { return 0; }
static int has_avx512(void) { return 0; }
#define AVX2_FN(name) NULL
#define AVX512_FN(name) NULL
#endif

/* lanes.h compiled here */
#define HERE(name) FULL(crm_lanes_##name, here, name)
BRT_LANES_MATH(HERE)

/* a function: its scalar reference, its three lanes, a typical range, the
 * lanes' fast-path range (bits of |x|) and its edges */
struct fn {
    const char *name;
    double (*ref)(double);
    lanes_fn rt, avx2, avx512, here;
    double lo, hi;
    uint64_t in_lo, in_hi;
    double edges[8];
};
static const struct fn FUNCS[] = {
    {"exp", brm_exp, brt_lanes_exp, AVX2_FN(exp), AVX512_FN(exp), here_exp, -750, 750, 0x3c90000000000000ULL, 0x4086300000000000ULL,
     {-707.0, 709.7, 0x1p-54, 709.782712893384, -708.3964185322641, -745.1332191019412, 0x1p-1022, 0}},
    {"exp2", brm_exp2, brt_lanes_exp2, AVX2_FN(exp2), AVX512_FN(exp2), here_exp2, -1100, 1100, 0x3c90000000000000ULL, 0x408fe00000000000ULL,
     {1020.0, -1020.0, 0x1p-54, 1024.0, -1022.0, -1074.0, 0.5, 0}},
    {"log", brm_log, brt_lanes_log, AVX2_FN(log), AVX512_FN(log), here_log, 0, 1e6, 0x0010000000000000ULL, 0x7fefffffffffffffULL,
     {0x1p-1022, 0x1.fffffffffffffp+1023, 1.0, 0x1.6a09e667f3bcdp-1, 0x1.6ap-1, 0x1.02p0, 2.0, 0}},
    {"log2", brm_log2, brt_lanes_log2, AVX2_FN(log2), AVX512_FN(log2), here_log2, 0, 1e6, 0x0010000000000000ULL, 0x7fefffffffffffffULL,
     {0x1p-1022, 0x1.fffffffffffffp+1023, 1.0, 0x1.6a09e667f3bcdp-1, 0x1.6ap-1, 0x1.02p0, 2.0, 0}},
    {"log10", brm_log10, brt_lanes_log10, AVX2_FN(log10), AVX512_FN(log10), here_log10, 0, 1e6, 0x0010000000000000ULL, 0x7fefffffffffffffULL,
     {0x1p-1022, 0x1.fffffffffffffp+1023, 1.0, 10.0, 0x1.6ap-1, 1e22, 1e-300, 0}},
    {"sin", brm_sin, brt_lanes_sin, AVX2_FN(sin), AVX512_FN(sin), here_sin, -100, 100, 0x3e40000000000000ULL, 0x4270000000000000ULL,
     {0x1p-27, 0x1p40, 0x1p14, 3.141592653589793, 1.5707963267948966, 1e22, 0x1.921fb54442d18p+2, 0}},
    {"cos", brm_cos, brt_lanes_cos, AVX2_FN(cos), AVX512_FN(cos), here_cos, -100, 100, 0x3e40000000000000ULL, 0x4270000000000000ULL,
     {0x1p-27, 0x1p40, 0x1p14, 3.141592653589793, 1.5707963267948966, 1e22, 0x1.921fb54442d18p+2, 0}},
    {"tan", brm_tan, brt_lanes_tan, AVX2_FN(tan), AVX512_FN(tan), here_tan, -100, 100, 0x3e40000000000000ULL, 0x4270000000000000ULL,
     {0x1p-27, 0x1p40, 0x1p14, 3.141592653589793, 1.5707963267948966, 1e22, 0x1.921fb54442d18p+0, 0}},
};

static uint64_t rng_state;
static uint64_t rnd64(void) /* splitmix64 */
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}
static double bits_d(uint64_t u) { double d; memcpy(&d, &u, 8); return d; }
static uint64_t d_bits(double d) { uint64_t u; memcpy(&u, &d, 8); return u; }

struct pool { double *v; long n, cap; };
static void put(struct pool *p, double x)
{
    if (p->n == p->cap) {
        p->cap = p->cap ? 2 * p->cap : 1024;
        p->v = realloc(p->v, (size_t)p->cap * sizeof(double));
        if (!p->v) abort();
    }
    p->v[p->n++] = x;
}

static void edges(const struct fn *f, struct pool *p)
{
    static const double SPECIALS[] = {0.0, 1.0, 2.0, 0.5, 1e-300, 1e300, 0x1p-1074, 0x1p-1022, 0x1.fffffffffffffp-1023,
                                      0x1.fffffffffffffp+1023, 0x1p-53, 0x1p53, 0x1p63, 0x1p1023, INFINITY, NAN};
    double v[64];
    int n = 0;
    for (size_t i = 0; i < sizeof SPECIALS / sizeof SPECIALS[0]; i++) v[n++] = SPECIALS[i];
    v[n++] = bits_d(f->in_lo);
    v[n++] = bits_d(f->in_hi);
    for (int i = 0; i < 8 && f->edges[i] != 0; i++) v[n++] = f->edges[i];
    for (int i = 0; i < n; i++)
        for (int s = 0; s < 2; s++) {
            double x = s ? -v[i] : v[i];
            put(p, x);
            double u = x, d = x;
            for (int k = 0; k < 3; k++) {
                u = nextafter(u, INFINITY);
                d = nextafter(d, -INFINITY);
                put(p, u);
                put(p, d);
            }
        }
}

static void hard_cases(const struct fn *f, const char *path, struct pool *p, long *hard)
{
    FILE *in = fopen(path, "r");
    if (!in) {
        fprintf(stderr, "check_lanes: cannot read %s\n", path);
        exit(2);
    }
    char line[512], name[64];
    while (fgets(line, sizeof line, in)) {
        double x;
        if (line[0] == '#' || sscanf(line, "%63s %la", name, &x) != 2 || strcmp(name, f->name) != 0) continue;
        put(p, x);
        put(p, -x);
        *hard += 2;
    }
    fclose(in);
}

/* every input through lanes fn in blocks, shifted by `shift` lanes; the
 * number of lanes whose bits differ from the reference's */
static long run(lanes_fn fn, const double *x, const double *want, long n, int shift, const char *what, const char *name)
{
    long bad = 0;
    double in[BRT_LANES], out[BRT_LANES];
    for (long b = -shift; b < n; b += BRT_LANES) {
        for (int q = 0; q < BRT_LANES; q++) in[q] = b + q >= 0 && b + q < n ? x[b + q] : 1.0;
        fn(in, out);
        for (int q = 0; q < BRT_LANES; q++) {
            long i = b + q;
            if (i < 0 || i >= n || d_bits(out[q]) == d_bits(want[i])) continue;
            if (bad++ < 5)
                printf("  %s %s(%a): lanes %a, scalar %a\n", what, name, x[i], out[q], want[i]);
        }
    }
    return bad;
}

int main(int argc, char **argv)
{
    long n = 1000000;
    uint64_t seed = 1;
    const char *hard = NULL;
    int first = 1;
    for (; first < argc && argv[first][0] == '-'; first++) {
        if (strcmp(argv[first], "-n") == 0 && first + 1 < argc) n = atol(argv[++first]);
        else if (strcmp(argv[first], "-s") == 0 && first + 1 < argc) seed = strtoull(argv[++first], NULL, 10);
        else if (strcmp(argv[first], "-H") == 0 && first + 1 < argc) hard = argv[++first];
        else {
            fprintf(stderr, "usage: check_lanes [-n N] [-s SEED] [-H HARDFILE] [NAME...]\n");
            return 2;
        }
    }
    int avx2 = has_avx2(), avx512 = has_avx512(), fail = 0;
    printf("lanes of %d; AVX2 copy %s; AVX-512 copy %s\n", BRT_LANES, avx2 ? "checked" : "not checked (no AVX2 and FMA here)",
           avx512 ? "checked" : "not checked (no AVX-512 here)");
    printf("%-5s %10s %6s %10s %10s %10s %10s   (mismatches)\n", "name", "inputs", "hard", "runtime", "avx2", "avx512",
           "portable");
    for (size_t k = 0; k < sizeof FUNCS / sizeof FUNCS[0]; k++) {
        const struct fn *f = &FUNCS[k];
        if (first < argc) {
            int want = 0;
            for (int a = first; a < argc; a++) want |= strcmp(argv[a], f->name) == 0;
            if (!want) continue;
        }
        rng_state = seed * 0x100000001b3ULL + k;
        struct pool p = {0};
        long nhard = 0;
        edges(f, &p);
        if (hard) hard_cases(f, hard, &p, &nhard);
        for (long i = 0; i < n; i++) {
            uint64_t r = rnd64();
            double x;
            if (i % 3 == 0) x = bits_d(r);
            else if (i % 3 == 1) x = f->lo + (f->hi - f->lo) * ((double)(r >> 11) * 0x1p-53);
            else x = bits_d((f->in_lo + (r >> 1) % (f->in_hi - f->in_lo)) | (r << 63));
            put(&p, x);
        }
        double *want = malloc((size_t)p.n * sizeof(double));
        if (!want) abort();
        for (long i = 0; i < p.n; i++) want[i] = f->ref(p.v[i]);
        long e_rt = 0, e_avx = 0, e_512 = 0, e_here = 0;
        for (int s = 0; s < 2; s++) {
            e_rt += run(f->rt, p.v, want, p.n, s, "runtime", f->name);
            if (avx2) e_avx += run(f->avx2, p.v, want, p.n, s, "avx2", f->name);
            if (avx512) e_512 += run(f->avx512, p.v, want, p.n, s, "avx512", f->name);
            e_here += run(f->here, p.v, want, p.n, s, "portable", f->name);
        }
        char av[32] = "-", av5[32] = "-";
        if (avx2) snprintf(av, sizeof av, "%ld", e_avx);
        if (avx512) snprintf(av5, sizeof av5, "%ld", e_512);
        printf("%-5s %10ld %6ld %10ld %10s %10s %10ld\n", f->name, p.n, nhard, e_rt, av, av5, e_here);
        if (e_rt || e_avx || e_512 || e_here) fail = 1;
        free(want);
        free(p.v);
    }
    printf(fail ? "check_lanes: MISMATCHES\n" : "check_lanes: every lane has the scalar bits\n");
    return fail;
}
