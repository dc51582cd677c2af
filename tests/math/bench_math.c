/*
 * bench_math.c: the scalar time per call of Brine's math functions (the
 * runtime's brt_<name>) against the platform libm's on the same inputs, in
 * one run (make bench-math; not part of check).
 *
 *   bench_math [-n N] [-r REPS] [-f NAME]
 *
 * Per function (or only NAME): N inputs drawn uniformly from a typical
 * range, each side timed REPS times in alternation, the fastest of each
 * kept (the least disturbed by other load); prints both times in ns per
 * call and their ratio, first in random order (branches mispredict), then
 * the same inputs sorted, as a loop over a grid visits them (branches
 * predicted; what Simpson's rule and most sums see). Times are this thread's CPU time, so other load on the machine
 * counts less. The loop sums the results so neither call can be dropped.
 *
 * Built with BENCH_AB (make bench-math-ab OLD=REV): brine's side is the
 * working tree's brm_<name> and a third side the crmath of git REV's
 * (bench_side.c, both called directly, not through brt_<name>'s jump),
 * timed in the same rotation, the median of the REPS kept for all three
 * (on a loaded machine the noise between two runs is larger than most
 * changes), and the new time over the old one printed too.
 */
#define _GNU_SOURCE
#include "brine_rt.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef BENCH_AB
#define SIDE_PROTO_1(name) double old_##name(double), new_##name(double);
#define SIDE_PROTO_2(name) double old_##name(double, double), new_##name(double, double);
#define SIDE_PROTO(P, name, arity, gpu) SIDE_PROTO_##arity(name)
BRT_MATH(SIDE_PROTO, _) /* before gamma means tgamma below */
#endif

#define gamma tgamma
struct fn {
    const char *name;
    double (*brt1)(double), (*brt2)(double, double);
    double (*libm1)(double), (*libm2)(double, double);
    double lo, hi, lo2, hi2;
    double (*old1)(double), (*old2)(double, double);
};
#ifdef BENCH_AB /* bench_side.c's old_<name> and new_<name>; new_ in brt_'s place */
#define B1(name, lo, hi) {#name, new_##name, NULL, name, NULL, lo, hi, 0, 0, old_##name, NULL},
#define B2(name, lo, hi, lo2, hi2) {#name, NULL, new_##name, NULL, name, lo, hi, lo2, hi2, NULL, old_##name},
#else
#define B1(name, lo, hi) {#name, brt_##name, NULL, name, NULL, lo, hi, 0, 0, NULL, NULL},
#define B2(name, lo, hi, lo2, hi2) {#name, NULL, brt_##name, NULL, name, lo, hi, lo2, hi2, NULL, NULL},
#endif
static const struct fn FUNCS[] = {
    B1(exp, -700, 700) B1(exp2, -1000, 1000) B1(expm1, -5, 5) B1(log, 1e-300, 1e300) B1(log2, 1e-300, 1e300)
    B1(log10, 1e-300, 1e300) B1(log1p, -0.9, 100) B1(sinh, -20, 20) B1(cosh, -20, 20) B1(tanh, -5, 5)
    B1(cbrt, -1e6, 1e6) B2(hypot, -1e6, 1e6, -1e6, 1e6) B2(pow, 0, 100, -20, 20)
    B1(sin, -10, 10) B1(cos, -10, 10) B1(tan, -10, 10) B1(asin, -1, 1) B1(acos, -1, 1) B1(atan, -100, 100)
    B2(atan2, -10, 10, -10, 10) B1(erf, -4, 4) B1(erfc, -3, 10)
    B1(gamma, -10, 30) B1(lgamma, -10, 100)
};

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t); /* the time this thread ran: load elsewhere does not count */
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
    double u = *(const double *)a, v = *(const double *)b;
    return (u > v) - (u < v);
}

/* ns per call of one side (0 libm, 1 brine, 2 the old brine) over the n arguments */
static double time_side(const struct fn *F, int side, const double *x, const double *y, long n, volatile double *sink)
{
    double (*f1)(double) = side == 0 ? F->libm1 : side == 1 ? F->brt1 : F->old1;
    double (*f2)(double, double) = side == 0 ? F->libm2 : side == 1 ? F->brt2 : F->old2;
    double s = 0, t0 = now();
    if (f1) for (long i = 0; i < n; i++) s += f1(x[i]);
    else for (long i = 0; i < n; i++) s += f2(x[i], y[i]);
    double t = now() - t0;
    *sink += s;
    return t / n * 1e9;
}

/* the fastest of the reps (the least disturbed), or with BENCH_AB their median */
static double pick(double *t, int reps)
{
#ifdef BENCH_AB
    qsort(t, (size_t)reps, sizeof *t, cmp_double);
    return t[reps / 2];
#else
    double m = t[0];
    for (int r = 1; r < reps; r++) m = t[r] < m ? t[r] : m;
    return m;
#endif
}

#ifdef BENCH_AB
#define SIDES 3
#else
#define SIDES 2
#endif

int main(int argc, char **argv)
{
    long n = 1000000;
    int reps = 7;
    const char *only = NULL;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "-n") == 0) n = atol(argv[i + 1]);
        else if (strcmp(argv[i], "-r") == 0) reps = atoi(argv[i + 1]);
        else if (strcmp(argv[i], "-f") == 0) only = argv[i + 1];
    }
    double *x = malloc((size_t)n * sizeof *x), *y = malloc((size_t)n * sizeof *y);
    double *t[SIDES];
    for (int k = 0; k < SIDES; k++) t[k] = malloc((size_t)(reps > 0 ? reps : 1) * sizeof *t[k]);
    if (!x || !y || reps < 1) return 1;
#ifdef BENCH_AB
    printf("%-7s %5s %9s %9s %9s %7s %7s %9s %9s %9s %7s %7s\n", "", "", "random", "", "", "", "", "sorted", "", "", "",
           "");
    printf("%-7s %5s %9s %9s %9s %7s %7s %9s %9s %9s %7s %7s\n", "name", "own", "libm ns", "old ns", "new ns", "ratio",
           "new/old", "libm ns", "old ns", "new ns", "ratio", "new/old");
#else
    printf("%-7s %5s %10s %10s %7s %10s %10s %7s\n", "", "", "random", "", "", "sorted", "", "");
    printf("%-7s %5s %10s %10s %7s %10s %10s %7s\n", "name", "own", "libm ns", "brine ns", "ratio", "libm ns",
           "brine ns", "ratio");
#endif
    volatile double sink = 0;
    for (size_t f = 0; f < sizeof FUNCS / sizeof FUNCS[0]; f++) {
        const struct fn *F = &FUNCS[f];
        if (only && strcmp(F->name, only) != 0) continue;
#ifdef BENCH_AB
        if (!F->old1 && !F->old2) continue; /* not brine's own in OLD */
#endif
        srand(12345);
        for (long i = 0; i < n; i++) {
            x[i] = F->lo + (F->hi - F->lo) * ((double)rand() / RAND_MAX);
            y[i] = F->lo2 + (F->hi2 - F->lo2) * ((double)rand() / RAND_MAX);
        }
        double best[2][SIDES];
        for (int order = 0; order < 2; order++) {
            if (order == 1) {
                qsort(x, (size_t)n, sizeof *x, cmp_double);
                qsort(y, (size_t)n, sizeof *y, cmp_double);
            }
            for (int r = 0; r < reps; r++) /* the sides in turn, each rep starting one further */
                for (int k = 0; k < SIDES; k++) {
                    int side = (k + r) % SIDES;
                    t[side][r] = time_side(F, side, x, y, n, &sink);
                }
            for (int k = 0; k < SIDES; k++) best[order][k] = pick(t[k], reps);
        }
        int own = 0;
#define OWN(P, nm, arity, gpu) if (strcmp(F->name, #nm) == 0) own = gpu;
        BRT_MATH(OWN, _)
#undef OWN
        printf("%-7s %5s", F->name, own ? "yes" : "libm");
        for (int order = 0; order < 2; order++) {
            const double *b = best[order];
#ifdef BENCH_AB
            printf(" %9.2f %9.2f %9.2f %7.2f %7.3f", b[0], b[2], b[1], b[1] / b[0], b[1] / b[2]);
#else
            printf(" %10.2f %10.2f %7.2f", b[0], b[1], b[1] / b[0]);
#endif
        }
        printf("\n");
        fflush(stdout);
    }
    for (int k = 0; k < SIDES; k++) free(t[k]);
    free(x);
    free(y);
    return sink == 12345.678;
}
