/* sums.c: the C loop of bench/math_lanes: s += f(i h) for i in 0..n, glibc's
 * f, in order (gcc -O3 -march=native -ffp-contract=off). sums F N */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    const char *f = argc > 1 ? argv[1] : "sin";
    long n = argc > 2 ? atol(argv[2]) : 10000000;
    double h = 1.0 / (double)n, s = 0;
    if (!strcmp(f, "sin")) for (long i = 0; i < n; i++) s += sin((double)i * h);
    if (!strcmp(f, "cos")) for (long i = 0; i < n; i++) s += cos((double)i * h);
    if (!strcmp(f, "exp")) for (long i = 0; i < n; i++) s += exp((double)i * h);
    if (!strcmp(f, "exp2")) for (long i = 0; i < n; i++) s += exp2((double)i * h);
    if (!strcmp(f, "tan")) for (long i = 0; i < n; i++) s += tan((double)i * h);
    if (!strcmp(f, "log")) for (long i = 0; i < n; i++) s += log((double)(i + 1) * h);
    if (!strcmp(f, "log2")) for (long i = 0; i < n; i++) s += log2((double)(i + 1) * h);
    if (!strcmp(f, "log10")) for (long i = 0; i < n; i++) s += log10((double)(i + 1) * h);
    printf("%.17g\n", s);
    return 0;
}
