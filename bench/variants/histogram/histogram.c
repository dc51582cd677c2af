/* histogram.c: 64 equal bins over [0, 1) for n = 4 * 10^6 values, five times
 * per timed run: counts[b] += 1 with b = (int)(x * 64), sequential. */
#include <string.h>
#include "bench.h"

int main(void) {
    long n = 4000000;
    int nb = 64;
    double *xs = malloc(n * sizeof *xs);
    long counts[64];
    for (long i = 0; i < n; i++) xs[i] = (double)((i * 7919) % 100003) / 100003.0;
    int R = reps();
    for (int rep = 0; rep <= R; rep++) {
        double t0 = now();
        for (int t = 0; t < 5; t++) {
            memset(counts, 0, sizeof counts);
            for (long i = 0; i < n; i++) counts[(int)(xs[i] * nb)] += 1;
        }
        if (rep > 0) printf("seconds %.9f\n", now() - t0);
    }
    long most = 0, check = 0;
    for (int b = 0; b < nb; b++) {
        if (counts[b] > most) most = counts[b];
        check += b * counts[b];
    }
    printf("result %ld %ld %ld %ld\n", counts[0], counts[nb - 1], most, check);
    return 0;
}
