/* Array sort (SPEC 14, runtime/sort.c): the float total-order key, the
 * radix sort against a reference, stability, NaNs last in their order
 * whatever their sign, -0.0 before 0.0, and the other element kinds. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "brine_rt.h"

static uint64_t bits(double x)
{
    uint64_t u;
    memcpy(&u, &x, sizeof u);
    return u;
}

static double from_bits(uint64_t u)
{
    double x;
    memcpy(&x, &u, sizeof x);
    return x;
}

/* The reference order: a < b, with -0.0 < 0.0; NaNs are handled apart. */
static bool before(double a, double b)
{
    return a < b || (a == 0.0 && b == 0.0 && signbit(a) && !signbit(b));
}

Test(sort, float_key_order)
{
    double xs[] = {-INFINITY, -1e308, -1.0, -5e-324, -0.0, 0.0, 5e-324, 2.2250738585072014e-308, 1.0, 1e308, INFINITY};
    size_t n = sizeof xs / sizeof *xs;
    for (size_t i = 0; i < n; i++) {
        cr_assert_eq(bits(brt_float_unkey(brt_float_key(xs[i]))), bits(xs[i]), "the key is invertible");
        for (size_t j = i + 1; j < n; j++)
            cr_assert_lt(brt_float_key(xs[i]), brt_float_key(xs[j]), "key order %zu < %zu", i, j);
    }
}

static uint64_t rng = 88172645463325252ULL;
static uint64_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

Test(sort, keys_match_qsort)
{
    int64_t sizes[] = {0, 1, 2, 63, 64, 65, 1000, 100000};
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
        int64_t n = sizes[s];
        uint64_t *a = malloc((size_t)(n + 1) * 8), *b = malloc((size_t)(n + 1) * 8);
        for (int64_t i = 0; i < n; i++)
            a[i] = b[i] = s % 2 ? next() : next() & 0xff00ff; /* sparse digits skip passes */
        brt_sort_keys(a, n);
        qsort(b, (size_t)n, 8, cmp_u64);
        cr_assert(n == 0 || memcmp(a, b, (size_t)n * 8) == 0, "size %lld", (long long)n);
        free(a);
        free(b);
    }
}

Test(sort, floats_total_order_nans_last)
{
    int64_t n = 20000;
    double *x = malloc((size_t)n * sizeof *x);
    uint64_t nan_order[64];
    int nn = 0;
    for (int64_t i = 0; i < n; i++) {
        uint64_t r = next();
        switch (r % 8) {
        case 0: x[i] = 0.0; break;
        case 1: x[i] = -0.0; break;
        case 2:
            if (nn < 64) {
                /* NaNs of both signs and several payloads */
                uint64_t u = 0x7ff8000000000000ULL | (r >> 40) | ((r & 16) ? 1ULL << 63 : 0);
                x[i] = from_bits(u);
                nan_order[nn++] = u;
                break;
            }
            /* fall through */
        default: x[i] = from_bits(r) == from_bits(r) ? from_bits(r) : 1.0; break;
        }
    }
    brt_sort_floats(x, n);
    int64_t first_nan = n - nn;
    for (int64_t i = 0; i + 1 < first_nan; i++)
        cr_assert(!before(x[i + 1], x[i]), "ordered at %lld", (long long)i);
    for (int k = 0; k < nn; k++)
        cr_assert_eq(bits(x[first_nan + k]), nan_order[k], "NaN %d last, in its original order", k);
    free(x);
}

static const brt_type T_arr_float = {BRT_ARR, &brt_t_float};
static const brt_type T_arr_str = {BRT_ARR, &brt_t_str};

Test(sort, small_float_array_via_method)
{
    double v[] = {2.0, NAN, 0.0, -0.0, -NAN, -INFINITY, 1.0};
    brt_arr *a = brt_arr_from(&brt_t_float, 7, v);
    brt_arr *keep = a;
    brt_retain(keep); /* shared: sort must copy */
    brt_arr_sort(&a);
    cr_assert_neq(a, keep, "copy on write");
    cr_assert_eq(bits(BRT_AT(double, keep, 0)), bits(2.0), "the shared copy is unchanged");
    double want[] = {-INFINITY, -0.0, 0.0, 1.0, 2.0};
    for (int i = 0; i < 5; i++)
        cr_assert_eq(bits(BRT_AT(double, a, i)), bits(want[i]), "element %d", i);
    cr_assert(isnan(BRT_AT(double, a, 5)) && !signbit(BRT_AT(double, a, 5)), "the first NaN keeps its sign");
    cr_assert(isnan(BRT_AT(double, a, 6)) && signbit(BRT_AT(double, a, 6)));
    brt_arr_release(a);
    brt_arr_release(keep);
    (void)T_arr_float;
}

Test(sort, ints_strs_stable)
{
    int64_t v[200];
    for (int i = 0; i < 200; i++)
        v[i] = (int64_t)(next() % 7) - 3 + (i == 5 ? INT64_MIN + 3 : 0);
    brt_arr *a = brt_arr_from(&brt_t_int, 200, v);
    brt_arr_sort(&a);
    cr_assert_lt(BRT_AT(int64_t, a, 0), INT64_MIN + 10, "signed order: the most negative first");
    for (int i = 0; i + 1 < 200; i++)
        cr_assert_leq(BRT_AT(int64_t, a, i), BRT_AT(int64_t, a, i + 1));
    brt_arr_release(a);

    /* equal strs keep their order: compare the pointers of equal texts */
    brt_str *s[40];
    for (int i = 0; i < 40; i++)
        s[i] = brt_str_new(i % 2 ? "b" : "a", 1);
    brt_str *orig[40];
    memcpy(orig, s, sizeof s);
    brt_arr *w = brt_arr_from(&brt_t_str, 40, s);
    brt_arr_sort(&w);
    for (int i = 0; i < 20; i++) {
        cr_assert_eq(BRT_AT(brt_str *, w, i), orig[2 * i], "a #%d stays in place", i);
        cr_assert_eq(BRT_AT(brt_str *, w, 20 + i), orig[2 * i + 1], "b #%d stays in place", i);
    }
    brt_arr_release(w);
    (void)T_arr_str;
}

/* ---- large arrays on the pool: scattered by the top digit, buckets in parallel ---- */

static int cmp_total(const void *a, const void *b)
{
    uint64_t x = brt_float_key(*(const double *)a), y = brt_float_key(*(const double *)b);
    return (x > y) - (x < y);
}

/* Sorts floats of each kind at sizes around and above the parallel
 * threshold on `threads` threads: the same bits as a reference (qsort by the
 * total-order key, then the NaNs in their order). */
static void large_floats(const char *threads)
{
    setenv("BRINE_THREADS", threads, 1);
    brt_start(0, NULL);
    int64_t sizes[] = {(1 << 17) - 1, 1 << 17, (1 << 17) + 5, 400009, 1100003}; /* the last: buckets scattered again */
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
        for (int kind = 0; kind < 4; kind++) {
            int64_t n = sizes[s];
            double *x = malloc((size_t)n * sizeof *x), *ref = malloc((size_t)n * sizeof *ref);
            uint64_t *nans = malloc((size_t)n * sizeof *nans);
            int64_t m = 0, nn = 0;
            for (int64_t i = 0; i < n; i++) {
                uint64_t r = next();
                double d = kind == 0 ? (double)(r >> 11) * 0x1p-53                   /* [0, 1): one exponent mostly */
                           : kind == 1 ? from_bits(r)                                 /* any bits, NaNs too */
                           : kind == 2 ? (double)(int64_t)(r % 64) - 32.0             /* few values, many ties */
                                       : (r % 3 ? -0.0 : 0.0) * (double)(r % 5 != 0); /* zeros of both signs */
                x[i] = d;
                if (d != d)
                    nans[nn++] = bits(d);
                else
                    ref[m++] = d;
            }
            qsort(ref, (size_t)m, sizeof *ref, cmp_total);
            for (int64_t i = 0; i < nn; i++)
                ref[m + i] = from_bits(nans[i]);
            brt_sort_floats(x, n);
            cr_assert(memcmp(x, ref, (size_t)n * sizeof *x) == 0, "n %lld kind %d on %s threads", (long long)n, kind,
                      threads);
            free(x);
            free(ref);
            free(nans);
        }
    }
}

Test(sort, large_floats_1_thread) { large_floats("1"); }
Test(sort, large_floats_2_threads) { large_floats("2"); }
Test(sort, large_floats_7_threads) { large_floats("7"); }
