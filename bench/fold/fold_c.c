/* The C peers of bench/fold/run.py: a sequential loop and a two-pass
 * OpenMP scan (built with -fopenmp), a plain copy for the bandwidth, and
 * a loop into an array of sums (by: of doubles, by_int: of longs). Every output array is allocated per
 * repetition, as brine's are. Usage: fold_c MODE N [NKEYS] REPS. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#ifdef _OPENMP
#include <omp.h>
#endif

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static uint64_t mix(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

int main(int argc, char **argv)
{
    const char *mode = argv[1];
    long n = atol(argv[2]);
    long nk = argc > 4 ? atol(argv[3]) : 16;
    int reps = atoi(argv[argc - 1]);
    double *x = malloc((size_t)n * sizeof *x);
    long *k = malloc((size_t)n * sizeof *k), *v = malloc((size_t)n * sizeof *v);
    for (long i = 0; i < n; i++) {
        x[i] = 1.0 / (double)(i + 1);
        k[i] = (long)(mix((uint64_t)i * 0x9E3779B97F4A7C15ULL) % (uint64_t)nk);
        v[i] = (long)(mix((uint64_t)i + 7) % 2001) - 1000;
    }
    double best = 1e9, chk = 0;
    for (int r = 0; r <= reps; r++) {
        double t0 = now();
        if (!strcmp(mode, "scan") || !strcmp(mode, "scan_computed")) {
            int comp = mode[4] == '_';
            double *o = malloc((size_t)n * sizeof *o);
#ifdef _OPENMP
            int T = omp_get_max_threads();
            double part[256];
#pragma omp parallel num_threads(T)
            {
                int t = omp_get_thread_num();
                long lo = n * t / T, hi = n * (t + 1) / T;
                double a = 0;
                for (long i = lo; i < hi; i++)
                    a += comp ? 1.0 / (double)(i + 1) : x[i];
                part[t] = a;
#pragma omp barrier
                double off = 0;
                for (int j = 0; j < t; j++)
                    off += part[j];
                a = off;
                for (long i = lo; i < hi; i++) {
                    a += comp ? 1.0 / (double)(i + 1) : x[i];
                    o[i] = a;
                }
            }
#else
            double a = 0;
            for (long i = 0; i < n; i++) {
                a += comp ? 1.0 / (double)(i + 1) : x[i];
                o[i] = a;
            }
#endif
            chk = o[n - 1];
            free(o);
        } else if (!strcmp(mode, "copy")) {
            double *o = malloc((size_t)n * sizeof *o);
            memcpy(o, x, (size_t)n * sizeof *o);
            chk = o[n - 1];
            free(o);
        } else if (!strcmp(mode, "by_int")) {
            long *s = calloc((size_t)nk, sizeof *s);
            for (long i = 0; i < n; i++)
                s[k[i]] += v[i];
            chk = (double)s[nk - 1];
            free(s);
        } else { /* by */
            double *s = calloc((size_t)nk, sizeof *s);
            for (long i = 0; i < n; i++)
                s[k[i]] += x[i];
            chk = s[nk - 1];
            free(s);
        }
        double t = now() - t0;
        if (r > 0 && t < best)
            best = t;
    }
    printf("%.2f ms %.17g\n", best * 1e3, chk);
    return 0;
}
