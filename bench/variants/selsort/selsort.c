/* selsort.c: a selection sort of n = 8000 ints (a copy of the same data
 * each run): each pass finds the index of the smallest remaining element
 * and swaps it into place; the first, middle and last printed with a
 * checksum. */
#include <string.h>
#include "bench.h"

static void selection_sort(long *a, long n) {
    for (long i = 0; i < n; i++) {
        long m = i;
        for (long j = i + 1; j < n; j++)
            if (a[j] < a[m]) m = j;
        if (m != i) { long t = a[i]; a[i] = a[m]; a[m] = t; }
    }
}

int main(void) {
    long n = 8000;
    long *xs = malloc(n * sizeof *xs), *a = malloc(n * sizeof *a);
    for (long i = 0; i < n; i++) xs[i] = (i * 7919 + 13) % 10007;
    int R = reps();
    for (int rep = 0; rep <= R; rep++) {
        double t0 = now();
        memcpy(a, xs, n * sizeof *a);
        selection_sort(a, n);
        if (rep > 0) printf("seconds %.9f\n", now() - t0);
    }
    long chk = 0;
    for (long i = 0; i < n; i++) chk = (chk * 31 + a[i]) % 1000000007;
    printf("result %ld %ld %ld %ld\n", a[0], a[n / 2], a[n - 1], chk);
    return 0;
}
