/* argmax.c: the greatest of n = 1,000,000 floats and its index (the first
 * such index; the data have one greatest value), five times a rep. */
#include "bench.h"

int main(void) {
    long n = 1000000;
    double *xs = malloc(n * sizeof *xs);
    for (long i = 0; i < n; i++) xs[i] = (double)((i * 7919) % 1000003) * 0.001;
    int R = reps();
    double best = 0;
    long bi = 0, total = 0;
    for (int rep = 0; rep <= R; rep++) {
        double t0 = now();
        total = 0;
        for (int k = 0; k < 5; k++) {
            best = xs[0];
            bi = 0;
            for (long i = 1; i < n; i++)
                if (xs[i] > best) {
                    best = xs[i];
                    bi = i;
                }
            total += bi;
        }
        if (rep > 0) printf("seconds %.9f\n", now() - t0);
    }
    printf("result %.17g %ld %ld\n", best, bi, total);
    return 0;
}
