/* thomas.c: a tridiagonal system (-1, 4, -1) of n = 10,000 unknowns solved
 * by the Thomas algorithm for 200 right-hand sides (forward sweep, then back
 * substitution counting down); the sum of one unknown of each solve printed. */
#include "bench.h"

static void thomas(int n, const double *a, const double *b, const double *c, const double *d, double *cp,
                   double *dp, double *x) {
    cp[0] = c[0] / b[0];
    dp[0] = d[0] / b[0];
    for (int i = 1; i < n; i++) {
        double m = b[i] - a[i] * cp[i - 1];
        cp[i] = c[i] / m;
        dp[i] = (d[i] - a[i] * dp[i - 1]) / m;
    }
    x[n - 1] = dp[n - 1];
    for (int i = n - 2; i >= 0; i--) x[i] = dp[i] - cp[i] * x[i + 1];
}

int main(void) {
    int n = 10000;
    double *a = malloc(n * 8), *b = malloc(n * 8), *c = malloc(n * 8), *d = malloc(n * 8);
    double *cp = malloc(n * 8), *dp = malloc(n * 8), *x = malloc(n * 8);
    for (int i = 0; i < n; i++) { a[i] = -1.0; b[i] = 4.0; c[i] = -1.0; }
    double total = 0.0;
    int R = reps();
    for (int rep = 0; rep <= R; rep++) {
        double t0 = now();
        total = 0.0;
        for (int k = 0; k < 200; k++) {
            for (int i = 0; i < n; i++) d[i] = (double)((i * 7 + k) % 13);
            thomas(n, a, b, c, d, cp, dp, x);
            total += x[k];
        }
        if (rep > 0) printf("seconds %.9f\n", now() - t0);
    }
    printf("result %.17g\n", total);
    return 0;
}
