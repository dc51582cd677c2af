/* cdf.c: a CDF of n = 100,000 weights built by a prefix sum, then 2,000,000
 * draws (an LCG) each found by a bisection of the CDF; the draws' indices
 * counted by their last digit. */
#include "bench.h"

static long find(const double *cdf, long n, double u) {
    long lo = 0, hi = n - 1;
    while (lo < hi) {
        long mid = (lo + hi) / 2;
        if (cdf[mid] < u) lo = mid + 1; else hi = mid;
    }
    return lo;
}

int main(void) {
    long n = 100000;
    double *w = malloc(n * 8), *cdf = malloc(n * 8);
    for (long i = 0; i < n; i++) w[i] = (double)(i % 17 + 1);
    long counts[10];
    int R = reps();
    for (int rep = 0; rep <= R; rep++) {
        double t0 = now();
        double acc = 0.0;
        for (long i = 0; i < n; i++) { acc += w[i]; cdf[i] = acc; }
        double total = cdf[n - 1];
        for (int i = 0; i < 10; i++) counts[i] = 0;
        long seed = 12345;
        for (long k = 0; k < 2000000; k++) {
            seed = (seed * 1103515245 + 12345) % 2147483648L;
            double u = (double)seed / 2147483648.0 * total;
            counts[find(cdf, n, u) % 10]++;
        }
        if (rep > 0) printf("seconds %.9f\n", now() - t0);
    }
    printf("result");
    for (int i = 0; i < 10; i++) printf(" %ld", counts[i]);
    printf("\n");
    return 0;
}
