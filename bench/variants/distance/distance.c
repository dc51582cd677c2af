/* distance.c: the 600 x 600 matrix of Euclidean distances between the rows of a
 * 600 x 16 point set, five times per timed run; a pair's sum of squares is a local
 * accumulator, OpenMP splits the rows of the result. */
#include <math.h>
#include "bench.h"

int main(void) {
    int n = 600, d = 16;
    double (*x)[d] = malloc(sizeof(double[n][d]));
    double (*dm)[n] = malloc(sizeof(double[n][n]));
    for (int i = 0; i < n; i++)
        for (int k = 0; k < d; k++) x[i][k] = (double)((i * 7 + k * 3) % 50) * 0.25;
    int R = reps();
    for (int rep = 0; rep <= R; rep++) {
        double t0 = now();
        for (int t = 0; t < 5; t++) {
            #pragma omp parallel for
            for (int i = 0; i < n; i++)
                for (int j = 0; j < n; j++) {
                    double s = 0;
                    for (int k = 0; k < d; k++) {
                        double e = x[i][k] - x[j][k];
                        s += e * e;
                    }
                    dm[i][j] = sqrt(s);
                }
        }
        if (rep > 0) printf("seconds %.9f\n", now() - t0);
    }
    double s = 0;
    for (int i = 0; i < n; i++) {
        double t = 0;
        for (int j = 0; j < n; j++) t += dm[i][j];
        s += t;
    }
    printf("result %.17g %.17g %.17g\n", s, dm[0][n - 1], dm[n / 2][n / 3 + 1]);
    return 0;
}
