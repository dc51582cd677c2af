/*
 * iter.c: the iterables range(lo, hi, step), enumerate and zip made into
 * arrays (SPEC section 3), on value.c's public constructors. Moved out of
 * value.c whole, to keep that file under the size limit.
 */
#include "rt_internal.h"

#include <string.h>

/* ---- the iterables range(lo, hi, step), enumerate, zip ------------------ */

/* The elements of Python's range: lo, lo + step, ... while below hi (above
 * it for a negative step). Every element lies between lo and hi, so none
 * overflows the type, whatever the step: the last one is the last before
 * hi, never a step past the type's end. A count no array can hold panics
 * "out of memory" at l, as a too-large array does. */
int64_t brt_range_step_count_any(int64_t lo, int64_t hi, int64_t step, const brt_loc *l)
{
    if (step == 0)
        brt_panic(l, BRT_RANGE_STEP);
    /* in uint64_t: hi - lo and |step| fit there, and no 128-bit division
     * (which the in-memory back end lacks) is needed */
    bool empty = step > 0 ? hi <= lo : lo <= hi;
    uint64_t d = step > 0 ? (uint64_t)hi - (uint64_t)lo : (uint64_t)lo - (uint64_t)hi;
    uint64_t s = step > 0 ? (uint64_t)step : (uint64_t)0 - (uint64_t)step;
    uint64_t n = empty ? 0 : d / s + (d % s != 0);
    if (n > (uint64_t)INT64_MAX)
        n = (uint64_t)INT64_MAX; /* (2^64 - 1 elements of step 1) */
    /* more than any array could hold: out of memory, in a loop over the
     * values too (as when the array is built) */
    if (n > (uint64_t)INT64_MAX / 2 / sizeof(int64_t))
        brt_panic_msg(l, "out of memory");
    return (int64_t)n;
}

brt_arr *brt_range_step(int64_t lo, int64_t hi, int64_t step, const brt_loc *l)
{
    uint64_t n = (uint64_t)brt_range_step_count(lo, hi, step, l);
    brt_arr *a = brt_arr_unset(&brt_t_int, (int64_t)n, l);
    int64_t *e = a->data;
    for (uint64_t i = 0; i < n; i++)
        e[i] = (int64_t)((uint64_t)lo + i * (uint64_t)step);
    return a;
}

/* The same over u64 and i128 (t), the bounds and step widened to i128 (a
 * u64 step is positive). */
brt_arr *brt_range_step_wide(const brt_type *t, brt_i128 lo, brt_i128 hi, brt_i128 step, const brt_loc *l)
{
    if (step.lo == 0 && step.hi == 0)
        brt_panic(l, BRT_RANGE_STEP);
    __int128 a = (__int128)(((brt_u128)lo.hi << 64) | lo.lo), b = (__int128)(((brt_u128)hi.hi << 64) | hi.lo);
    __int128 st = (__int128)(((brt_u128)step.hi << 64) | step.lo);
    bool up = st > 0, empty = up ? b <= a : a <= b;
    brt_u128 d = up ? (brt_u128)b - (brt_u128)a : (brt_u128)a - (brt_u128)b;
    brt_u128 s = up ? (brt_u128)st : (brt_u128)0 - (brt_u128)st, r;
    brt_u128 n = empty ? 0 : brt_u128_divmod(d, s, &r);
    if (!empty && r != 0)
        n++;
    if (n > (brt_u128)INT64_MAX)
        n = (brt_u128)INT64_MAX; /* out of memory below */
    brt_arr *arr = brt_arr_unset(t, (int64_t)n, l);
    for (int64_t i = 0; i < (int64_t)n; i++) {
        brt_u128 v = (brt_u128)a + (brt_u128)i * (brt_u128)st; /* between lo and hi */
        if (t->kind == BRT_U64)
            ((uint64_t *)arr->data)[i] = (uint64_t)v;
        else
            ((brt_i128 *)arr->data)[i] = brt_i128_make((uint64_t)v, (uint64_t)(v >> 64));
    }
    return arr;
}

/* n tuples of tt from the fields' arrays (NULL: the index) */
static brt_arr *make_pairs(const brt_type *tt, const brt_arr *a, const brt_arr *b, int64_t n)
{
    brt_arr *r = brt_arr_new(tt, 0);
    brt_arr_reserve(r, n);
    size_t es0 = brt_type_size(tt->fields[0]), es1 = brt_type_size(tt->fields[1]);
    for (int64_t i = 0; i < n; i++) {
        char *t = (char *)r->data + (size_t)i * tt->size;
        memset(t, 0, tt->size);
        if (a)
            memcpy(t + tt->offsets[0], (const char *)a->data + (size_t)i * es0, es0);
        else
            *(int64_t *)(t + tt->offsets[0]) = i;
        memcpy(t + tt->offsets[1], (const char *)b->data + (size_t)i * es1, es1);
        brt_retain_val(tt, t);
    }
    r->len = n;
    return r;
}

brt_arr *brt_enumerate(const brt_type *tt, const brt_arr *a)
{
    return make_pairs(tt, NULL, a, a->len);
}

brt_arr *brt_zip(const brt_type *tt, const brt_arr *a, const brt_arr *b)
{
    return make_pairs(tt, a, b, a->len < b->len ? a->len : b->len);
}
