/* adaptive.c (as bench/workloads/adaptive.c): adaptive Simpson of 2 x cos(x^2) on [0, 200], eps = 1e-7; the
 * segment count comes back through a pointer. */
#include <math.h>
#include "bench.h"

static double g(double x) { return 2.0 * x * cos(x * x); }

static double simpson(double a, double b, double fa, double fm, double fb) {
    return (b - a) / 6.0 * (fa + 4.0 * fm + fb);
}

static double adapt(double a, double b, double fa, double fm, double fb, double whole, double eps, long *segs) {
    double m = (a + b) / 2.0;
    double flm = g((a + m) / 2.0), frm = g((m + b) / 2.0);
    double left = simpson(a, m, fa, flm, fm), right = simpson(m, b, fm, frm, fb);
    double delta = left + right - whole;
    if (fabs(delta) <= 15.0 * eps) {
        ++*segs;
        return left + right + delta / 15.0;
    }
    double l = adapt(a, m, fa, flm, fm, left, eps / 2.0, segs);
    double r = adapt(m, b, fm, frm, fb, right, eps / 2.0, segs);
    return l + r;
}

static double integrate(double a, double b, double eps, long *segs) {
    double fa = g(a), fm = g((a + b) / 2.0), fb = g(b);
    *segs = 0;
    return adapt(a, b, fa, fm, fb, simpson(a, b, fa, fm, fb), eps, segs);
}

int main(void) {
    double v = 0;
    long segs = 0;
    int R = reps();
    for (int rep = 0; rep <= R; rep++) {
        double t0 = now();
        v = integrate(0.0, 200.0, 1e-7, &segs);
        if (rep > 0) printf("seconds %.9f\n", now() - t0);
    }
    printf("result %.17g %ld\n", v, segs);
    return 0;
}
