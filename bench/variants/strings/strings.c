/* strings.c (as bench/workloads/strings.c): the numbers 0..10^6 joined by
 * commas into one growing buffer with snprintf; prints the length. */
#include <string.h>
#include "bench.h"

static char *build(long n, size_t *len) {
    size_t cap = 16, used = 0;
    char *s = malloc(cap);
    char tmp[32];
    for (long i = 0; i < n; i++) {
        int k = snprintf(tmp, sizeof tmp, "%ld,", i);
        if (used + k + 1 > cap) {
            while (used + k + 1 > cap) cap *= 2;
            s = realloc(s, cap);
        }
        memcpy(s + used, tmp, k);
        used += k;
    }
    s[used] = 0;
    *len = used;
    return s;
}

int main(void) {
    size_t len = 0;
    char *s = NULL;
    int R = reps();
    for (int rep = 0; rep <= R; rep++) {
        double t0 = now();
        free(s);
        s = build(1000000, &len);
        if (rep > 0) printf("seconds %.9f\n", now() - t0);
    }
    printf("result %zu\n", len);
    return 0;
}
