/* insertion.c: an insertion sort of n = 4000 floats (a copy of the same
 * data each run), the first, middle and last printed. */
#include <string.h>
#include "bench.h"

static void insertion_sort(double *a, long n) {
    for (long i = 1; i < n; i++) {
        double key = a[i];
        long j = i - 1;
        while (j >= 0 && a[j] > key) {
            a[j + 1] = a[j];
            j--;
        }
        a[j + 1] = key;
    }
}

int main(void) {
    long n = 4000;
    double *xs = malloc(n * sizeof *xs), *a = malloc(n * sizeof *a);
    for (long i = 0; i < n; i++) xs[i] = (double)((i * 7919) % 10007) * 0.5;
    int R = reps();
    for (int rep = 0; rep <= R; rep++) {
        double t0 = now();
        memcpy(a, xs, n * sizeof *a);
        insertion_sort(a, n);
        if (rep > 0) printf("seconds %.9f\n", now() - t0);
    }
    printf("result %.17g %.17g %.17g\n", a[0], a[n / 2], a[n - 1]);
    return 0;
}
