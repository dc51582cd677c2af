/* gram.c: modified Gram-Schmidt on the 150 rows of a 150 x 300 matrix: each
 * row v has its projections on the rows q[0..i) taken off one by one (r = q[j] . v,
 * v -= r * q[j]), then q[i] = v / |v|; sequential, as the projections depend on
 * each other. The sum of q, one element and q[0] . q[m - 1] printed. */
#include <math.h>
#include <string.h>
#include "bench.h"

int main(void) {
    int m = 150, d = 300;
    double (*a)[d] = malloc(sizeof(double[m][d]));
    double (*q)[d] = malloc(sizeof(double[m][d]));
    double *v = malloc(d * sizeof *v);
    for (int i = 0; i < m; i++)
        for (int k = 0; k < d; k++) a[i][k] = (double)((i * 7919 + k * 104729 + i * k * 31) % 10007) / 10007.0 - 0.5;
    int R = reps();
    for (int rep = 0; rep <= R; rep++) {
        double t0 = now();
        for (int i = 0; i < m; i++) {
            memcpy(v, a[i], d * sizeof *v);
            for (int j = 0; j < i; j++) {
                double r = 0;
                for (int k = 0; k < d; k++) r += q[j][k] * v[k];
                for (int k = 0; k < d; k++) v[k] -= r * q[j][k];
            }
            double s = 0;
            for (int k = 0; k < d; k++) s += v[k] * v[k];
            double nrm = sqrt(s);
            for (int k = 0; k < d; k++) q[i][k] = v[k] / nrm;
        }
        if (rep > 0) printf("seconds %.9f\n", now() - t0);
    }
    double s = 0, o = 0;
    for (int i = 0; i < m; i++) {
        double t = 0;
        for (int k = 0; k < d; k++) t += q[i][k];
        s += t;
    }
    for (int k = 0; k < d; k++) o += q[0][k] * q[m - 1][k];
    printf("result %.17g %.17g %.17g\n", s, q[m - 1][d / 2], o);
    return 0;
}
