/* mvrows.c: y = A x by rows, n = 2000, ten times per timed run; a row's sum
 * is a local accumulator, OpenMP splits the rows. */
#include "bench.h"

int main(void) {
    int n = 2000;
    double (*a)[n] = malloc(sizeof(double[n][n]));
    double *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) a[i][j] = (double)((i * 7 + j * 3) % 100) * 0.01;
    for (int j = 0; j < n; j++) x[j] = (double)(j % 10) * 0.1;
    int R = reps();
    for (int rep = 0; rep <= R; rep++) {
        double t0 = now();
        for (int t = 0; t < 10; t++) {
            #pragma omp parallel for
            for (int i = 0; i < n; i++) {
                double s = 0;
                for (int j = 0; j < n; j++) s += a[i][j] * x[j];
                y[i] = s;
            }
        }
        if (rep > 0) printf("seconds %.9f\n", now() - t0);
    }
    double s = 0;
    for (int i = 0; i < n; i++) s += y[i];
    printf("result %.17g %.17g %.17g\n", s, y[0], y[n - 1]);
    return 0;
}
