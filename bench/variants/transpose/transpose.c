/* transpose.c: an n x n matrix of doubles (n = 1000, rows malloc'd apart:
 * double **) transposed in place ten times per timed run, swapping a[i][j]
 * and a[j][i] above the diagonal; sequential. */
#include "bench.h"

int main(void) {
    int n = 1000;
    double **a = malloc(n * sizeof *a);
    for (int i = 0; i < n; i++) {
        a[i] = malloc(n * sizeof **a);
        for (int j = 0; j < n; j++) a[i][j] = (double)(i * n + j);
    }
    int R = reps();
    for (int rep = 0; rep <= R; rep++) {
        double t0 = now();
        for (int t = 0; t < 10; t++)
            for (int i = 0; i < n; i++)
                for (int j = i + 1; j < n; j++) {
                    double x = a[i][j];
                    a[i][j] = a[j][i];
                    a[j][i] = x;
                }
        if (rep > 0) printf("seconds %.9f\n", now() - t0);
    }
    printf("result %.17g %.17g %.17g\n", a[3][7], a[n - 1][2], a[2][n - 1]);
    return 0;
}
