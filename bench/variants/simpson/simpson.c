/* simpson.c: composite Simpson for sin on [0, pi] with n = 10^6 and 2n
 * subintervals and Runge's estimate; one loop over the inner nodes, OpenMP
 * sums it (built without -fopenmp it is the sequential left fold). */
#include <math.h>
#include "bench.h"

static double simpson(double a, double b, long n) {
    double h = (b - a) / (double)n, s = 0;
    #pragma omp parallel for reduction(+:s)
    for (long i = 1; i < n; i++) s += (i % 2 == 1 ? 4.0 : 2.0) * sin(a + (double)i * h);
    return h / 3.0 * (sin(a) + s + sin(b));
}

int main(void) {
    long n = 1000000;
    double i1 = 0, i2 = 0;
    int R = reps();
    for (int rep = 0; rep <= R; rep++) {
        double t0 = now();
        i1 = simpson(0.0, M_PI, n);
        i2 = simpson(0.0, M_PI, 2 * n);
        if (rep > 0) printf("seconds %.9f\n", now() - t0);
    }
    printf("result %.17g %.17g %.17g\n", i1, i2, (i2 - i1) / 15.0);
    return 0;
}
