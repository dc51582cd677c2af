/* horner.c: a polynomial of 8 coefficients evaluated by Horner's rule at
 * n = 2 * 10^6 points (a helper called per point), the values summed in
 * order; OpenMP splits the points. */
#include "bench.h"

static double horner(const double *cs, int m, double x) {
    double y = 0;
    for (int i = 0; i < m; i++) y = y * x + cs[i];
    return y;
}

int main(void) {
    double cs[8] = {1.0, -0.5, 0.25, -0.125, 0.0625, 0.03125, -0.015625, 0.0078125};
    long n = 2000000;
    double *xs = malloc(n * sizeof *xs), *ys = malloc(n * sizeof *ys);
    for (long i = 0; i < n; i++) xs[i] = (double)(i % 1000) * 0.001;
    double total = 0;
    int R = reps();
    for (int rep = 0; rep <= R; rep++) {
        double t0 = now();
        #pragma omp parallel for
        for (long i = 0; i < n; i++) ys[i] = horner(cs, 8, xs[i]);
        total = 0;
        for (long i = 0; i < n; i++) total += ys[i];
        if (rep > 0) printf("seconds %.9f\n", now() - t0);
    }
    printf("result %.17g\n", total);
    return 0;
}
