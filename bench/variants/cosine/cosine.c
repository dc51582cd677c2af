/* cosine.c: the 400 x 400 matrix of cosine similarities between the rows of a
 * 400 x 64 matrix, three times per timed run: each row's norm computed once,
 * then dot(a_i, a_j) / (norm_i * norm_j); OpenMP splits the rows. */
#include <math.h>
#include "bench.h"

int main(void) {
    int m = 400, d = 64;
    double (*a)[d] = malloc(sizeof(double[m][d]));
    double (*sim)[m] = malloc(sizeof(double[m][m]));
    double *nrm = malloc(m * sizeof *nrm);
    for (int i = 0; i < m; i++)
        for (int k = 0; k < d; k++) a[i][k] = (double)((i * 7 + k * 3) % 50) * 0.25 - 6.0;
    int R = reps();
    for (int rep = 0; rep <= R; rep++) {
        double t0 = now();
        for (int t = 0; t < 3; t++) {
            for (int i = 0; i < m; i++) {
                double s = 0;
                for (int k = 0; k < d; k++) s += a[i][k] * a[i][k];
                nrm[i] = sqrt(s);
            }
            #pragma omp parallel for
            for (int i = 0; i < m; i++)
                for (int j = 0; j < m; j++) {
                    double s = 0;
                    for (int k = 0; k < d; k++) s += a[i][k] * a[j][k];
                    sim[i][j] = s / (nrm[i] * nrm[j]);
                }
        }
        if (rep > 0) printf("seconds %.9f\n", now() - t0);
    }
    double s = 0;
    for (int i = 0; i < m; i++) {
        double t = 0;
        for (int j = 0; j < m; j++) t += sim[i][j];
        s += t;
    }
    printf("result %.17g %.17g %.17g\n", s, sim[0][m - 1], sim[m / 2][m / 3 + 1]);
    return 0;
}
