/* small_arrays.c: the C peer of small_arrays.br, pairs returned as structs.
 * cc -O2 -ffp-contract=off small_arrays.c -o small_arrays_c */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct { double a, b; } pair;

static double f(double x) { return 4.0 / (1.0 + x * x); }
static double simpson(double a, double b, double fa, double fm, double fb)
{
    return (b - a) / 6.0 * (fa + 4.0 * fm + fb);
}

static pair adapt(double a, double b, double fa, double fm, double fb, double whole, double eps)
{
    double m = (a + b) / 2.0;
    double flm = f((a + m) / 2.0), frm = f((m + b) / 2.0);
    double left = simpson(a, m, fa, flm, fm), right = simpson(m, b, fm, frm, fb);
    double delta = left + right - whole;
    if (fabs(delta) <= 15.0 * eps)
        return (pair){ left + right + delta / 15.0, 1.0 };
    pair l = adapt(a, m, fa, flm, fm, left, eps / 2.0);
    pair r = adapt(m, b, fm, frm, fb, right, eps / 2.0);
    return (pair){ l.a + r.a, l.b + r.b };
}

static pair point(long k)
{
    double t = (double)k * 0.001;
    return (pair){ t * 0.5 - (double)(k % 7), t * 0.25 + (double)(k % 5) };
}

int main(int argc, char **argv)
{
    long reps = argc > 1 ? atol(argv[1]) : 20000, n = argc > 2 ? atol(argv[2]) : 10000000;
    double total = 0, segments = 0;
    for (long i = 0; i < reps; i++) {
        double fm = f(0.5);
        pair r = adapt(0.0, 1.0, f(0.0), fm, f(1.0), simpson(0.0, 1.0, f(0.0), fm, f(1.0)), 1e-13);
        total += r.a;
        segments += r.b;
    }
    printf("simpson: %.15f segments %ld\n", total / (double)reps, (long)segments);
    double sx = 0, sy = 0;
    for (long k = 0; k < n; k++) {
        pair p = point(k);
        sx += p.a;
        sy += p.b;
    }
    printf("points: %.6e %.6e\n", sx, sy);
    return 0;
}
