/* conv.c: a 1000 x 1000 image convolved with a 3x3 kernel (the valid part,
 * 998 x 998, a fresh output each run), the taps by two short loops;
 * OpenMP splits the rows. */
#include "bench.h"

static void conv(const double *img, int n, int m, double w[3][3], double *out) {
    #pragma omp parallel for
    for (int i = 0; i < n - 2; i++)
        for (int j = 0; j < m - 2; j++) {
            double s = 0.0;
            for (int di = 0; di < 3; di++)
                for (int dj = 0; dj < 3; dj++)
                    s += w[di][dj] * img[(i + di) * m + j + dj];
            out[i * (m - 2) + j] = s;
        }
}

int main(void) {
    int n = 1000, m = 1000;
    double *img = malloc(sizeof(double) * n * m), *out = NULL;
    double w[3][3] = {{0.0625, 0.125, 0.0625}, {0.125, 0.25, 0.125}, {0.0625, 0.125, 0.0625}};
    for (int i = 0; i < n; i++)
        for (int j = 0; j < m; j++) img[i * m + j] = (double)((i * 7 + j * 3) % 100) * 0.01;
    int R = reps();
    for (int rep = 0; rep <= R; rep++) {
        double t0 = now();
        free(out);
        out = malloc(sizeof(double) * (n - 2) * (m - 2));
        conv(img, n, m, w, out);
        if (rep > 0) printf("seconds %.9f\n", now() - t0);
    }
    double s = 0;
    for (int i = 0; i < n - 2; i++) {
        double t = 0;
        for (int j = 0; j < m - 2; j++) t += out[i * (m - 2) + j];
        s += t;
    }
    printf("result %.17g %.17g\n", s, out[(n / 2) * (m - 2) + n / 3]);
    return 0;
}
