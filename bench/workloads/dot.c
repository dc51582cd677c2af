/* dot.c: dot product, 2-norm and max |x| of two 10^7-element arrays. */
#include <math.h>
#include "bench.h"

int main(void) {
    long n = 10000000;
    double *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y);
    for (long i = 0; i < n; i++) {
        x[i] = (double)(i % 13) * 0.25 - 1.5;
        y[i] = 1.0 / (double)(i + 1);
    }
    double dot = 0, norm = 0, mx = 0;
    int R = reps();
    for (int rep = 0; rep <= R; rep++) {
        double t0 = now();
        double s = 0, q = 0, m = fabs(x[0]);
        #pragma omp parallel for reduction(+:s)
        for (long i = 0; i < n; i++) s += x[i] * y[i];
        #pragma omp parallel for reduction(+:q)
        for (long i = 0; i < n; i++) q += x[i] * x[i];
        #pragma omp parallel for reduction(max:m)
        for (long i = 0; i < n; i++) if (fabs(x[i]) > m) m = fabs(x[i]);
        dot = s; norm = sqrt(q); mx = m;
        if (rep > 0) printf("seconds %.9f\n", now() - t0);
    }
    printf("result %.17g %.17g %.17g\n", dot, norm, mx);
    return 0;
}
