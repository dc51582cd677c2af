/* transpose_new.c: an n x n matrix of doubles (n = 1000, rows malloc'd apart:
 * double **) transposed out of place ten times per timed run: a new matrix
 * of zeroed rows, t[j][i] = a[i][j], the old matrix freed; sequential. */
#include "bench.h"

static double **transposed(double **a, int n) {
    double **t = malloc(n * sizeof *t);
    for (int i = 0; i < n; i++) t[i] = calloc(n, sizeof **t);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) t[j][i] = a[i][j];
    for (int i = 0; i < n; i++) free(a[i]);
    free(a);
    return t;
}

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
        for (int t = 0; t < 10; t++) a = transposed(a, n);
        if (rep > 0) printf("seconds %.9f\n", now() - t0);
    }
    printf("result %.17g %.17g %.17g\n", a[3][7], a[n - 1][2], a[2][n - 1]);
    return 0;
}
