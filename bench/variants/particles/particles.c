/* particles.c: 100,000 particles in the unit square, an array of structs, 200
 * steps of x += vx * dt (and y), reflected at the walls; OpenMP splits the
 * particles of each step. */
#include "bench.h"

struct p { double x, y, vx, vy; };

int main(void) {
    int n = 100000, steps = 200;
    double dt = 0.001;
    struct p *ps = malloc(n * sizeof *ps);
    int R = reps();
    for (int rep = 0; rep <= R; rep++) {
        for (int i = 0; i < n; i++) {
            ps[i].x = (double)((i * 37) % 1000) * 0.001;
            ps[i].y = (double)((i * 91) % 1000) * 0.001;
            ps[i].vx = (double)((i * 13) % 200 - 100) * 0.25;
            ps[i].vy = (double)((i * 17) % 200 - 100) * 0.25;
        }
        double t0 = now();
        for (int s = 0; s < steps; s++) {
            #pragma omp parallel for
            for (int i = 0; i < n; i++) {
                ps[i].x += ps[i].vx * dt;
                ps[i].y += ps[i].vy * dt;
                if (ps[i].x < 0.0 || ps[i].x > 1.0) ps[i].vx = -ps[i].vx;
                if (ps[i].y < 0.0 || ps[i].y > 1.0) ps[i].vy = -ps[i].vy;
            }
        }
        if (rep > 0) printf("seconds %.9f\n", now() - t0);
    }
    double sx = 0, sy = 0;
    for (int i = 0; i < n; i++) {
        sx += ps[i].x;
        sy += ps[i].y;
    }
    printf("result %.17g %.17g %.17g %.17g\n", sx, sy, ps[n / 2].x, ps[n - 1].vy);
    return 0;
}
