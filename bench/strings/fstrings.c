/* fstrings.c: fstrings.br's variants in C as a person would write them:
 * snprintf into a small buffer, appended to a doubling one (strs and bools
 * append their words; temp: snprintf and a copy of its own, strdup, per
 * number). repr has no C library peer:
 * %.17g stands in (longer text, the same kind of call). */
#include <string.h>
#include "../workloads/bench.h"

static char *buf;
static size_t cap, used;

static void append(const char *p, size_t k) {
    if (used + k + 1 > cap) {
        while (used + k + 1 > cap) cap = cap ? cap * 2 : 16;
        buf = realloc(buf, cap);
    }
    memcpy(buf + used, p, k);
    used += k;
}

enum { INTS, FIXED, REPR, WHOLE, SCI, WIDTH, STRS, BOOLS, STRCALL, TEMP };

/* One loop per variant, chosen once (no dispatch inside a loop). */
static long run(int which, long n) {
    static const char *words[] = {"alpha", "beta", "gamma", "delta"};
    char tmp[64];
    int k;
    used = 0;
    switch (which) {
    case INTS:
        for (long i = 0; i < n; i++) { k = snprintf(tmp, sizeof tmp, "%ld,", i); append(tmp, (size_t)k); }
        break;
    case FIXED:
        for (long i = 0; i < n; i++) { k = snprintf(tmp, sizeof tmp, "%.3f;", (double)i * 0.37); append(tmp, (size_t)k); }
        break;
    case REPR:
        for (long i = 0; i < n; i++) { k = snprintf(tmp, sizeof tmp, "%.17g;", (double)i * 0.37); append(tmp, (size_t)k); }
        break;
    case WHOLE:
        for (long i = 0; i < n; i++) { k = snprintf(tmp, sizeof tmp, "%.1f;", (double)i); append(tmp, (size_t)k); }
        break;
    case SCI:
        for (long i = 0; i < n; i++) { k = snprintf(tmp, sizeof tmp, "%.3e;", (double)i * 0.37); append(tmp, (size_t)k); }
        break;
    case WIDTH:
        for (long i = 0; i < n; i++) { k = snprintf(tmp, sizeof tmp, "%8ld|", i); append(tmp, (size_t)k); }
        break;
    case STRS: /* a person appends the word and the '-' */
        for (long i = 0; i < n; i++) { append(words[i % 4], strlen(words[i % 4])); append("-", 1); }
        break;
    case BOOLS:
        for (long i = 0; i < n; i++) { const char *b = i % 3 == 0 ? "true " : "false "; append(b, strlen(b)); }
        break;
    case STRCALL:
        for (long i = 0; i < n; i++) { k = snprintf(tmp, sizeof tmp, "%ld", i); append(tmp, (size_t)k); append(",", 1); }
        break;
    case TEMP: {
        long total = 0;
        for (long i = 0; i < n; i++) {
            snprintf(tmp, sizeof tmp, "%ld:%.2f", i, (double)i * 0.37);
            char *t = strdup(tmp);
            total += (long)strlen(t);
            free(t);
        }
        return total;
    }
    }
    return (long)used;
}

int main(int argc, char **argv) {
    static const char *names[] = {"ints", "fixed", "repr", "whole", "sci", "width", "strs", "bools", "strcall", "temp"};
    int which = -1;
    for (int i = 0; i < 10; i++)
        if (argc >= 3 && !strcmp(argv[1], names[i])) which = i;
    if (which < 0) return 2;
    long n = atol(argv[2]), len = 0;
    int R = reps();
    for (int rep = 0; rep <= R; rep++) {
        double t0 = now();
        len = run(which, n);
        if (rep > 0) printf("seconds %.9f\n", now() - t0);
    }
    printf("result %ld\n", len);
    return 0;
}
