/* stencil.c: 200 Jacobi sweeps of the 5-point average over a 500 x 500 grid
 * (the border fixed), two grids swapped by pointer; OpenMP splits the rows. */
#include <string.h>
#include "bench.h"

int main(void) {
    int n = 500, sweeps = 200;
    double (*g0)[n] = malloc(sizeof(double[n][n]));
    double (*h0)[n] = malloc(sizeof(double[n][n]));
    double (*g)[n] = g0, (*h)[n] = h0;
    int R = reps();
    for (int rep = 0; rep <= R; rep++) {
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++) g[i][j] = (double)((i * 7 + j * 3) % 100) * 0.01;
        memcpy(h, g, sizeof(double[n][n]));
        double t0 = now();
        for (int t = 0; t < sweeps; t++) {
            #pragma omp parallel for
            for (int i = 1; i < n - 1; i++)
                for (int j = 1; j < n - 1; j++)
                    h[i][j] = 0.25 * (g[i - 1][j] + g[i + 1][j] + g[i][j - 1] + g[i][j + 1]);
            double (*tmp)[n] = g;
            g = h;
            h = tmp;
        }
        if (rep > 0) printf("seconds %.9f\n", now() - t0);
    }
    double s = 0;
    for (int i = 0; i < n; i++) {
        double t = 0;
        for (int j = 0; j < n; j++) t += g[i][j];
        s += t;
    }
    printf("result %.17g %.17g\n", s, g[n / 2][n / 2]);
    return 0;
}
