/* stencil3.c: 50 Jacobi sweeps of the 7-point average over a 96^3 grid
 * (the border fixed), two grids swapped by pointer; OpenMP splits the planes. */
#include <string.h>
#include "bench.h"

int main(void) {
    int n = 96, sweeps = 50;
    double (*u0)[n][n] = malloc(sizeof(double[n][n][n]));
    double (*v0)[n][n] = malloc(sizeof(double[n][n][n]));
    double (*u)[n][n] = u0, (*v)[n][n] = v0;
    int R = reps();
    for (int rep = 0; rep <= R; rep++) {
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++)
                for (int k = 0; k < n; k++) u[i][j][k] = (double)((i * 7 + j * 3 + k) % 100) * 0.01;
        memcpy(v, u, sizeof(double[n][n][n]));
        double t0 = now();
        for (int t = 0; t < sweeps; t++) {
            #pragma omp parallel for
            for (int i = 1; i < n - 1; i++)
                for (int j = 1; j < n - 1; j++)
                    for (int k = 1; k < n - 1; k++)
                        v[i][j][k] = (u[i - 1][j][k] + u[i + 1][j][k] + u[i][j - 1][k] + u[i][j + 1][k] +
                                      u[i][j][k - 1] + u[i][j][k + 1]) / 6.0;
            double (*w)[n][n] = u;
            u = v;
            v = w;
        }
        if (rep > 0) printf("seconds %.9f\n", now() - t0);
    }
    double s = 0;
    for (int i = 0; i < n; i++) {
        double p = 0;
        for (int j = 0; j < n; j++) {
            double r = 0;
            for (int k = 0; k < n; k++) r += u[i][j][k];
            p += r;
        }
        s += p;
    }
    printf("result %.17g %.17g\n", s, u[n / 2][n / 2][n / 2]);
    return 0;
}
