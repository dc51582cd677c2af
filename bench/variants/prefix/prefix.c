/* prefix.c: the running totals of n = 1,000,000 floats (a new array each
 * run); three entries printed. */
#include "bench.h"

int main(void) {
    long n = 1000000;
    double *xs = malloc(n * sizeof *xs);
    for (long i = 0; i < n; i++) xs[i] = (double)((i * 7919) % 1000) * 0.001 - 0.25;
    double *p = NULL;
    int R = reps();
    for (int rep = 0; rep <= R; rep++) {
        double t0 = now();
        free(p);
        p = malloc(n * sizeof *p);
        double s = 0.0;
        for (long i = 0; i < n; i++) {
            s += xs[i];
            p[i] = s;
        }
        if (rep > 0) printf("seconds %.9f\n", now() - t0);
    }
    printf("result %.17g %.17g %.17g\n", p[0], p[n / 2], p[n - 1]);
    return 0;
}
