/* montecarlo.c: bench/workloads/montecarlo.c with n = 2 * 10^7: the volume of the
 * unit ball from random points, with the same counter-based SplitMix64 generator
 * as stdlib/random.br, so the hit count is the same as brine's. */
#include <stdint.h>
#include "bench.h"

static double uniform(int64_t seed, int64_t i) {
    uint64_t z = (uint64_t)seed * 0x9E3779B97F4A7C15u + (uint64_t)i + 1;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
    z ^= z >> 31;
    return (double)(z >> 11) * 0x1p-53;
}

int main(void) {
    long n = 20000000, hits = 0;
    int R = reps();
    for (int rep = 0; rep <= R; rep++) {
        double t0 = now();
        long h = 0;
        #pragma omp parallel for reduction(+:h)
        for (long k = 0; k < n; k++) {
            double x = uniform(2026, 3 * k) * 2.0 - 1.0;
            double y = uniform(2026, 3 * k + 1) * 2.0 - 1.0;
            double z = uniform(2026, 3 * k + 2) * 2.0 - 1.0;
            if (x * x + y * y + z * z <= 1.0) h++;
        }
        hits = h;
        if (rep > 0) printf("seconds %.9f\n", now() - t0);
    }
    printf("result %ld %.17g\n", hits, 8.0 * (double)hits / (double)n);
    return 0;
}
