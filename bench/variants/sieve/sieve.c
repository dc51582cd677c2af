/* sieve.c (as bench/workloads/sieve.c): the sieve of Eratosthenes to 10^7 (a bool array, primes appended to
 * a growing array). */
#include <stdbool.h>
#include "bench.h"

static long *sieve(long n, long *count) {
    bool *composite = calloc(n + 1, sizeof *composite);
    long cap = 1024, len = 0, *primes = malloc(cap * sizeof *primes);
    for (long i = 2; i <= n; i++) {
        if (composite[i]) continue;
        if (len == cap) primes = realloc(primes, (cap *= 2) * sizeof *primes);
        primes[len++] = i;
        for (long j = i * i; j <= n; j += i) composite[j] = true;
    }
    free(composite);
    *count = len;
    return primes;
}

int main(void) {
    long n = 10000000, count = 0, *primes = NULL;
    int R = reps();
    for (int rep = 0; rep <= R; rep++) {
        double t0 = now();
        free(primes);
        primes = sieve(n, &count);
        if (rep > 0) printf("seconds %.9f\n", now() - t0);
    }
    long s = 0;
    for (long i = 0; i < count; i++) s += primes[i];
    printf("result %ld %ld %ld\n", count, primes[count - 1], s);
    return 0;
}
