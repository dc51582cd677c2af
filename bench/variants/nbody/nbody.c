/* nbody.c: 500 bodies pulling on each other (softened gravity, eps = 0.01), 10 steps of
 * dt = 0.001 per timed run: every body's acceleration summed over all bodies (itself
 * included: its own term is zero), then the velocities and positions moved; OpenMP splits
 * the bodies of the acceleration loop. */
#include <math.h>
#include "bench.h"

int main(void) {
    int n = 500, steps = 10;
    double dt = 0.001, eps = 0.01;
    double *x = malloc(n * 8), *y = malloc(n * 8), *z = malloc(n * 8), *vx = malloc(n * 8), *vy = malloc(n * 8),
           *vz = malloc(n * 8), *m = malloc(n * 8), *ax = malloc(n * 8), *ay = malloc(n * 8), *az = malloc(n * 8);
    int R = reps();
    for (int rep = 0; rep <= R; rep++) {
        for (int i = 0; i < n; i++) {
            x[i] = (double)((i * 37) % 1000) * 0.001;
            y[i] = (double)((i * 91) % 1000) * 0.001;
            z[i] = (double)((i * 53) % 1000) * 0.001;
            vx[i] = vy[i] = vz[i] = 0.0;
            m[i] = 1.0 + (double)(i % 7) * 0.1;
        }
        double t0 = now();
        for (int s = 0; s < steps; s++) {
            #pragma omp parallel for
            for (int i = 0; i < n; i++) {
                double sx = 0.0, sy = 0.0, sz = 0.0;
                for (int j = 0; j < n; j++) {
                    double dx = x[j] - x[i], dy = y[j] - y[i], dz = z[j] - z[i];
                    double d2 = dx * dx + dy * dy + dz * dz + eps;
                    double inv = 1.0 / (d2 * sqrt(d2));
                    sx += m[j] * dx * inv;
                    sy += m[j] * dy * inv;
                    sz += m[j] * dz * inv;
                }
                ax[i] = sx;
                ay[i] = sy;
                az[i] = sz;
            }
            for (int i = 0; i < n; i++) {
                vx[i] += ax[i] * dt;
                vy[i] += ay[i] * dt;
                vz[i] += az[i] * dt;
                x[i] += vx[i] * dt;
                y[i] += vy[i] * dt;
                z[i] += vz[i] * dt;
            }
        }
        if (rep > 0) printf("seconds %.9f\n", now() - t0);
    }
    double sx = 0, sy = 0, sz = 0;
    for (int i = 0; i < n; i++) sx += x[i], sy += y[i], sz += z[i];
    printf("result %.17g %.17g %.17g %.17g %.17g\n", sx, sy, sz, x[0], vz[n - 1]);
    return 0;
}
