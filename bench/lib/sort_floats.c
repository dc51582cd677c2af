/* bench: a stable bottom-up merge sort of N doubles (default 10^7) by a
 * total-order key (each double's bits mapped to a u64 whose unsigned order
 * is the float order; NaNs would sort last), the data as sort_floats.br
 * makes it (random.uniform: SplitMix64's finalizer). Each rep copies, then
 * sorts. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double uniform(uint64_t seed, uint64_t i)
{
    uint64_t z = seed * 0x9E3779B97F4A7C15ULL + i + 1;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    z ^= z >> 31;
    return (double)(z >> 11) * 0x1p-53;
}

static inline uint64_t key(double x)
{
    uint64_t u;
    memcpy(&u, &x, 8);
    if (x != x)
        return UINT64_MAX;
    return (u >> 63) ? ~u : u | (1ULL << 63);
}

static void merge_sort(double *a, int64_t n)
{
    double *buf = malloc((size_t)n * sizeof *buf), *src = a, *dst = buf;
    /* runs of 16 by insertion */
    for (int64_t lo = 0; lo < n; lo += 16) {
        int64_t hi = lo + 16 < n ? lo + 16 : n;
        for (int64_t i = lo + 1; i < hi; i++) {
            double v = a[i];
            uint64_t kv = key(v);
            int64_t j = i;
            for (; j > lo && key(a[j - 1]) > kv; j--)
                a[j] = a[j - 1];
            a[j] = v;
        }
    }
    for (int64_t w = 16; w < n; w *= 2) {
        for (int64_t lo = 0; lo < n; lo += 2 * w) {
            int64_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
            int64_t i = lo, j = mid, o = lo;
            while (i < mid && j < hi)
                dst[o++] = key(src[j]) < key(src[i]) ? src[j++] : src[i++];
            while (i < mid)
                dst[o++] = src[i++];
            while (j < hi)
                dst[o++] = src[j++];
        }
        double *t = src;
        src = dst;
        dst = t;
    }
    if (src != a)
        memcpy(a, src, (size_t)n * sizeof *a);
    free(buf);
}

int main(int argc, char **argv)
{
    int64_t n = argc > 1 ? atoll(argv[1]) : 10000000;
    int reps = argc > 2 ? atoi(argv[2]) : 5;
    double *xs = malloc((size_t)n * sizeof *xs), *ys = malloc((size_t)n * sizeof *ys);
    for (int64_t i = 0; i < n; i++)
        xs[i] = uniform(7, (uint64_t)i) * 2.0 - 1.0;
    double mid = 0;
    for (int r = 0; r < reps; r++) {
        double t0 = now();
        memcpy(ys, xs, (size_t)n * sizeof *ys);
        merge_sort(ys, n);
        double dt = now() - t0;
        mid = ys[n / 2];
        printf("seconds %.6f\n", dt);
    }
    printf("result %.17g\n", mid);
    return 0;
}
