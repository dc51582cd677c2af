/* compact.c: stream compaction of n = 500,000 values through a running count:
 * the values above a threshold copied to out[count++], for 20 thresholds; the
 * total of kept counts and the sum of one kept value per threshold printed. */
#include "bench.h"

static int compact(int n, const double *xs, double thr, double *out) {
    int count = 0;
    for (int i = 0; i < n; i++) if (xs[i] > thr) out[count++] = xs[i];
    return count;
}
int main(void) {
    int n = 500000;
    double *xs = malloc(n * 8), *out = malloc(n * 8);
    for (int i = 0; i < n; i++) xs[i] = (double)((i * 7919L) % 1009) * 0.001;
    double total = 0.0; long kept = 0;
    int R = reps();
    for (int rep = 0; rep <= R; rep++) {
        double t0 = now();
        total = 0.0; kept = 0;
        for (int t = 0; t < 20; t++) {
            int c = compact(n, xs, (double)t * 0.05, out);
            kept += c;
            total += out[c / 2];
        }
        if (rep > 0) printf("seconds %.9f\n", now() - t0);
    }
    printf("result %.17g %ld\n", total, kept);
    return 0;
}
