/* adaptive_omp.c: bench/steal/adaptive.br's two workloads in C + OpenMP, the
 * peer bench/steal/run.py compares brine against (gcc -O3 -fopenmp, strict IEEE):
 *   pieces: parallel for schedule(dynamic) over the 64 pieces
 *   halves: every split spawns its two halves as OpenMP tasks
 * argv: MODE [REPS]; prints `seconds T` per rep and `result X`. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec * 1e-9; }
static double g(double x) { return 2.0 * x * cos(x * x); }
static double simpson(double a, double b, double fa, double fm, double fb) { return (b - a) / 6.0 * (fa + 4.0 * fm + fb); }

static double adapt(double a, double b, double fa, double fm, double fb, double whole, double eps)
{
    double m = (a + b) / 2.0, flm = g((a + m) / 2.0), frm = g((m + b) / 2.0);
    double left = simpson(a, m, fa, flm, fm), right = simpson(m, b, fm, frm, fb);
    double delta = left + right - whole;
    if (fabs(delta) <= 15.0 * eps)
        return left + right + delta / 15.0;
    return adapt(a, m, fa, flm, fm, left, eps / 2.0) + adapt(m, b, fm, frm, fb, right, eps / 2.0);
}

static double integrate(double a, double b, double eps)
{
    double fa = g(a), fm = g((a + b) / 2.0), fb = g(b);
    return adapt(a, b, fa, fm, fb, simpson(a, b, fa, fm, fb), eps);
}

static double padapt(double a, double b, double fa, double fm, double fb, double whole, double eps)
{
    double m = (a + b) / 2.0, flm = g((a + m) / 2.0), frm = g((m + b) / 2.0);
    double left = simpson(a, m, fa, flm, fm), right = simpson(m, b, fm, frm, fb);
    double delta = left + right - whole;
    if (fabs(delta) <= 15.0 * eps)
        return left + right + delta / 15.0;
    double l, r;
#pragma omp task shared(l)
    l = padapt(a, m, fa, g((a + m) / 2.0), fm, left, eps / 2.0);
#pragma omp task shared(r)
    r = padapt(m, b, fm, g((m + b) / 2.0), fb, right, eps / 2.0);
#pragma omp taskwait
    return l + r;
}

static double run(const char *mode)
{
    double s = 0;
    if (strcmp(mode, "pieces") == 0) {
        double w = 200.0 / 64.0;
#pragma omp parallel for schedule(dynamic) reduction(+:s)
        for (int k = 0; k < 64; k++)
            s += integrate(w * k, w * (k + 1), 1e-7 / 64.0);
        return s;
    }
    double fa = g(0.0), fm = g(100.0), fb = g(200.0);
#pragma omp parallel
#pragma omp single
    s = padapt(0.0, 200.0, fa, fm, fb, simpson(0.0, 200.0, fa, fm, fb), 1e-7);
    return s;
}

int main(int argc, char **argv)
{
    int reps = argc > 2 ? atoi(argv[2]) : 3;
    double r = 0;
    for (int rep = 0; rep < reps; rep++) {
        double t0 = now();
        r = run(argv[1]);
        printf("seconds %.9f\n", now() - t0);
    }
    printf("result %.17g\n", r);
    return 0;
}
