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
 */
#define _GNU_SOURCE
#include "brine_rt.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define gamma tgamma
struct fn {
    const char *name;
    double (*brt1)(double), (*brt2)(double, double);
    double (*libm1)(double), (*libm2)(double, double);
    double lo, hi, lo2, hi2;
};
#define B1(name, lo, hi) {#name, brt_##name, NULL, name, NULL, lo, hi, 0, 0},
#define B2(name, lo, hi, lo2, hi2) {#name, NULL, brt_##name, NULL, name, lo, hi, lo2, hi2},
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
    if (!x || !y) return 1;
    printf("%-7s %5s %10s %10s %7s %10s %10s %7s\n", "", "", "random", "", "", "sorted", "", "");
    printf("%-7s %5s %10s %10s %7s %10s %10s %7s\n", "name", "own", "libm ns", "brine ns", "ratio", "libm ns",
           "brine ns", "ratio");
    volatile double sink = 0;
    for (size_t f = 0; f < sizeof FUNCS / sizeof FUNCS[0]; f++) {
        const struct fn *F = &FUNCS[f];
        if (only && strcmp(F->name, only) != 0) continue;
        srand(12345);
        for (long i = 0; i < n; i++) {
            x[i] = F->lo + (F->hi - F->lo) * ((double)rand() / RAND_MAX);
            y[i] = F->lo2 + (F->hi2 - F->lo2) * ((double)rand() / RAND_MAX);
        }
        double best_l[2], best_b[2];
        for (int order = 0; order < 2; order++) {
            if (order == 1) {
                qsort(x, (size_t)n, sizeof *x, cmp_double);
                qsort(y, (size_t)n, sizeof *y, cmp_double);
            }
            best_l[order] = best_b[order] = 1e30;
            for (int r = 0; r < reps; r++) {
                double s = 0, t0 = now();
                if (F->libm1) for (long i = 0; i < n; i++) s += F->libm1(x[i]);
                else for (long i = 0; i < n; i++) s += F->libm2(x[i], y[i]);
                double t1 = now();
                if (F->brt1) for (long i = 0; i < n; i++) s += F->brt1(x[i]);
                else for (long i = 0; i < n; i++) s += F->brt2(x[i], y[i]);
                double t2 = now();
                sink += s;
                if (t1 - t0 < best_l[order]) best_l[order] = t1 - t0;
                if (t2 - t1 < best_b[order]) best_b[order] = t2 - t1;
            }
        }
        int own = 0;
#define OWN(P, nm, arity, gpu) if (strcmp(F->name, #nm) == 0) own = gpu;
        BRT_MATH(OWN, _)
#undef OWN
        printf("%-7s %5s", F->name, own ? "yes" : "libm");
        for (int order = 0; order < 2; order++)
            printf(" %10.2f %10.2f %7.2f", best_l[order] / n * 1e9, best_b[order] / n * 1e9, best_b[order] / best_l[order]);
        printf("\n");
        fflush(stdout);
    }
    free(x);
    free(y);
    return sink == 12345.678;
}
