/* banded.c: y = A x for a banded matrix of n = 100,000 rows stored as the
 * 2w + 1 = 7 diagonals of each row (band[i][j - i + w]), the columns clipped
 * to 0 .. n - 1; 20 products, each of the one before; the sum of x and two
 * of its entries printed. */
#include "bench.h"

static void banded(int n, double **band, const double *x, double *y, int w) {
    for (int i = 0; i < n; i++) {
        double s = 0.0;
        int lo = i - w > 0 ? i - w : 0;
        int hi = i + w < n - 1 ? i + w : n - 1;
        for (int j = lo; j <= hi; j++) s += band[i][j - i + w] * x[j];
        y[i] = s;
    }
}
int main(void) {
    int n = 100000, w = 3;
    double **band = malloc(n * sizeof *band), *x = malloc(n * 8), *y = malloc(n * 8);
    for (int i = 0; i < n; i++) { band[i] = malloc((2 * w + 1) * 8); for (int d = 0; d < 2 * w + 1; d++) band[i][d] = (double)((i + d) % 5) * 0.03125; }
    int R = reps();
    for (int rep = 0; rep <= R; rep++) {
        double t0 = now();
        for (int i = 0; i < n; i++) x[i] = (double)(i % 8);
        for (int t = 0; t < 20; t++) { banded(n, band, x, y, w); double *tt = x; x = y; y = tt; }
        if (rep > 0) printf("seconds %.9f\n", now() - t0);
    }
    double s = 0.0;
    for (int i = 0; i < n; i++) s += x[i];
    printf("result %.17g %.17g %.17g\n", s, x[0], x[n / 2]);
    return 0;
}
