/* uneven_omp.c: bench/steal/uneven.br in C + OpenMP, parallel for schedule(dynamic)
 * (gcc -O3 -fopenmp, strict IEEE; the sum's order is OpenMP's, not brine's tree).
 * argv: MODE [REPS]; prints `seconds T` per rep and `result X`. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec * 1e-9; }

static double work(long i, long steps)
{
    double x = (double)(i % 1000) * 0.001, s = 0.0;
    for (long j = 0; j < steps; j++) {
        x = x * 3.7 * (1.0 - x) + 0.0001;
        s += x;
    }
    return s;
}

static long steps(int ramp, long i) { return ramp ? i / 100 : i >= 75000 && i % 997 == 0 ? 100000 : 1; }

int main(int argc, char **argv)
{
    int ramp = strcmp(argv[1], "ramp") == 0;
    int reps = argc > 2 ? atoi(argv[2]) : 3;
    double r = 0;
    for (int rep = 0; rep < reps; rep++) {
        double t0 = now(), s = 0;
#pragma omp parallel for schedule(dynamic, 64) reduction(+:s)
        for (long i = 0; i < 100000; i++)
            s += work(i, steps(ramp, i));
        r = s;
        printf("seconds %.9f\n", now() - t0);
    }
    printf("result %.17g\n", r);
    return 0;
}
