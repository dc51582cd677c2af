/* editdist.c: the edit distance (Levenshtein) of two sequences of n = 2000
 * small ints, by the dynamic program over two rows; printed with the last
 * row's middle entry. */
#include "bench.h"

int main(void) {
    long n = 2000;
    long *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b);
    for (long i = 0; i < n; i++) {
        a[i] = (i * 7919) % 13;
        b[i] = (i * 104729 + 5) % 13;
    }
    long *prev = malloc((n + 1) * sizeof *prev), *cur = malloc((n + 1) * sizeof *cur);
    int R = reps();
    long d = 0, mid = 0;
    for (int rep = 0; rep <= R; rep++) {
        double t0 = now();
        for (long j = 0; j <= n; j++) prev[j] = j;
        for (long i = 1; i <= n; i++) {
            cur[0] = i;
            for (long j = 1; j <= n; j++) {
                long c = a[i - 1] == b[j - 1] ? 0 : 1;
                long x = prev[j] + 1, y = cur[j - 1] + 1, z = prev[j - 1] + c;
                long m = x < y ? x : y;
                cur[j] = m < z ? m : z;
            }
            long *t = prev;
            prev = cur;
            cur = t;
        }
        d = prev[n];
        mid = prev[n / 2];
        if (rep > 0) printf("seconds %.9f\n", now() - t0);
    }
    printf("result %ld %ld\n", d, mid);
    return 0;
}
