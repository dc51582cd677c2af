/* matmul.c: C = A B, n = 400, in the ikj order a person tunes C to (c[i][j]
 * starts at 0 and adds a[i][k] * b[k][j] for k in order); OpenMP splits the rows. */
#include <string.h>
#include "bench.h"

int main(void) {
    int n = 400;
    double (*a)[n] = malloc(sizeof(double[n][n]));
    double (*b)[n] = malloc(sizeof(double[n][n]));
    double (*c)[n] = malloc(sizeof(double[n][n]));
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            a[i][j] = (double)((i * 7 + j * 3) % 100) * 0.01;
            b[i][j] = (double)((i * 5 + j * 11) % 100) * 0.01;
        }
    int R = reps();
    for (int rep = 0; rep <= R; rep++) {
        double t0 = now();
        #pragma omp parallel for
        for (int i = 0; i < n; i++) {
            memset(c[i], 0, n * sizeof c[i][0]);
            for (int k = 0; k < n; k++) {
                double aik = a[i][k];
                for (int j = 0; j < n; j++) c[i][j] += aik * b[k][j];
            }
        }
        if (rep > 0) printf("seconds %.9f\n", now() - t0);
    }
    double s = 0;
    for (int i = 0; i < n; i++) {
        double t = 0;
        for (int j = 0; j < n; j++) t += c[i][j];
        s += t;
    }
    printf("result %.17g %.17g %.17g\n", s, c[0][0], c[n - 1][n - 1]);
    return 0;
}
