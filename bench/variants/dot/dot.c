/* dot.c: the dot product of x and y and the 2-norm of x, n = 2 * 10^6, ten
 * times per timed run (the totals summed), as plain loops; OpenMP sums each. */
#include <math.h>
#include "bench.h"

int main(void) {
    long n = 2000000;
    double *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y);
    for (long i = 0; i < n; i++) {
        x[i] = (double)(i % 13) * 0.25 - 1.5;
        y[i] = (double)(i % 7) * 0.5 - 1.0;
    }
    double td = 0, tn = 0;
    int R = reps();
    for (int rep = 0; rep <= R; rep++) {
        double t0 = now();
        td = 0;
        tn = 0;
        for (int t = 0; t < 10; t++) {
            double d = 0, s = 0;
            #pragma omp parallel for reduction(+:d)
            for (long i = 0; i < n; i++) d += x[i] * y[i];
            #pragma omp parallel for reduction(+:s)
            for (long i = 0; i < n; i++) s += x[i] * x[i];
            td += d;
            tn += sqrt(s);
        }
        if (rep > 0) printf("seconds %.9f\n", now() - t0);
    }
    printf("result %.17g %.17g\n", td, tn);
    return 0;
}
