/* maxnorm.c: the largest |a[i] - w * b[i]| over n = 1,000,000 floats (a
 * residual's max norm), for five weights w a rep; printed: the last one and
 * the sum of the five. */
#include "bench.h"
#include <math.h>

int main(void) {
    long n = 1000000;
    double *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b);
    for (long i = 0; i < n; i++) {
        a[i] = (double)((i * 7919) % 10007) * 0.001;
        b[i] = (double)((i * 104729) % 10007) * 0.001;
    }
    int R = reps();
    double m = 0, total = 0;
    for (int rep = 0; rep <= R; rep++) {
        double t0 = now();
        total = 0;
        for (int k = 0; k < 5; k++) {
            double w = 1.0 + (double)k * 0.25;
            m = 0.0;
            for (long i = 0; i < n; i++) {
                double d = fabs(a[i] - w * b[i]);
                if (d > m) m = d;
            }
            total += m;
        }
        if (rep > 0) printf("seconds %.9f\n", now() - t0);
    }
    printf("result %.17g %.17g\n", m, total);
    return 0;
}
