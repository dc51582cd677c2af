/*
 * sort.c: array methods (SPEC section 14): pop, insert, remove, extend,
 * reverse, sort, contains, sorted, reversed and slices.
 *
 * The mutating methods take the slot of a var (brt_arr **): they make the
 * array unique first (copy on write), then change it in place.
 *
 * sort is stable and ascending by <. Floats sort in IEEE 754's total order
 * except for NaNs: -inf < ... < -0.0 < 0.0 < ... < inf, then every NaN,
 * whatever its sign, in its original order. Each double's bits map to a
 * u64 key whose unsigned order is that order (sign set: all bits flipped;
 * clear: the sign bit set), so the sort itself is on integers: an LSD radix
 * sort, 8 bits a pass (stable by construction; passes in which every key
 * has the same digit are skipped), and insertion sort for short arrays.
 * int (the sign bit flipped) and u64 take the same path with their own keys;
 * bool is a count; i128, str, tuples and structs use a bottom-up merge sort
 * by comparison (tuples field by field, each field in its own type's order).
 */
#include "rt_internal.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

static size_t elem_size(const brt_arr *a)
{
    return brt_type_size(a->elem);
}

/* ---- slices and the functions that copy -------------------------------------- */

brt_arr *brt_arr_slice(brt_arr *a, int64_t lo, int64_t hi, const brt_loc *l)
{
    if (lo < 0 || lo > hi || hi > a->len)
        brt_panic_slice(l, a->len, lo, hi);
    if (lo == 0 && hi == a->len) {
        brt_retain(a);
        return a;
    }
    size_t es = elem_size(a);
    brt_arr *r = brt_arr_alloc(a->elem, hi - lo, hi - lo);
    brt_copy_n(a->elem, r->data, (char *)a->data + (size_t)lo * es, hi - lo);
    return r;
}

bool brt_arr_contains(brt_arr *a, const void *v)
{
    int64_t at;
    return brt_arr_index(a, v, &at);
}

bool brt_arr_index(brt_arr *a, const void *v, int64_t *at)
{
    size_t es = elem_size(a);
    for (int64_t i = 0; i < a->len; i++)
        if (brt_eq(a->elem, (char *)a->data + (size_t)i * es, v)) {
            *at = i;
            return true;
        }
    return false;
}

brt_arr *brt_arr_sorted(brt_arr *a)
{
    brt_arr *r = brt_arr_slice(a, 0, a->len, NULL);
    brt_arr_sort(&r);
    return r;
}

brt_arr *brt_arr_reversed(brt_arr *a)
{
    brt_arr *r = brt_arr_slice(a, 0, a->len, NULL);
    brt_arr_reverse(&r);
    return r;
}

/* ---- the mutating methods ---------------------------------------------------- */

void brt_arr_pop(brt_arr **slot, void *out, const brt_loc *l)
{
    if ((*slot)->len == 0)
        brt_panic_msg(l, "pop from an empty array");
    brt_arr *a = *slot = brt_arr_unique(*slot);
    size_t es = elem_size(a);
    a->len--;
    memcpy(out, (char *)a->data + (size_t)a->len * es, es); /* the reference moves to out */
}

void brt_arr_insert(brt_arr **slot, int64_t i, const void *elem, const brt_loc *l)
{
    if ((uint64_t)i > (uint64_t)(*slot)->len) {
        brt_release_val((*slot)->elem, (void *)elem);
        brt_panic_msg(l, "insertion index out of bounds: the len is %lld but the index is %lld",
                      (long long)(*slot)->len, (long long)i);
    }
    brt_arr *a = *slot = brt_arr_unique(*slot);
    size_t es = elem_size(a);
    if (a->len == a->cap)
        brt_arr_reserve(a, a->cap < 4 ? 4 : a->cap * 2);
    char *d = a->data;
    memmove(d + (size_t)(i + 1) * es, d + (size_t)i * es, (size_t)(a->len - i) * es);
    memcpy(d + (size_t)i * es, elem, es);
    a->len++;
}

void brt_arr_remove(brt_arr **slot, int64_t i, void *out, const brt_loc *l)
{
    brt_idx(*slot, i, l);
    brt_arr *a = *slot = brt_arr_unique(*slot);
    size_t es = elem_size(a);
    char *d = a->data;
    memcpy(out, d + (size_t)i * es, es);
    memmove(d + (size_t)i * es, d + (size_t)(i + 1) * es, (size_t)(a->len - i - 1) * es);
    a->len--;
}

void brt_arr_extend(brt_arr **slot, brt_arr *ys)
{
    if (ys->len == 0)
        return;
    brt_retain(ys); /* xs.extend(xs): the copy below must not see its own growth */
    brt_arr *a = *slot = brt_arr_unique(*slot);
    size_t es = elem_size(a);
    int64_t need = a->len + ys->len;
    if (need > a->cap) {
        int64_t cap = a->cap < 4 ? 4 : a->cap * 2;
        brt_arr_reserve(a, cap > need ? cap : need);
    }
    brt_copy_n(a->elem, (char *)a->data + (size_t)a->len * es, ys->data, ys->len);
    a->len = need;
    brt_arr_release(ys);
}

/* As extend of n unset elements: unique, the room doubled (or what it
 * needs), the new slots null where the elements own (a release passes over
 * them) and the length set; a length past INT64_MAX is out of memory, as
 * any array too big is. */
void brt_arr_grow_unset(brt_arr **slot, int64_t n)
{
    if (n <= 0)
        return;
    brt_arr *a = *slot = brt_arr_unique(*slot);
    size_t es = elem_size(a);
    int64_t need;
    if (__builtin_add_overflow(a->len, n, &need))
        brt_panic_text(NULL, "out of memory");
    if (need > a->cap) {
        int64_t cap = a->cap < 4 ? 4 : a->cap * 2;
        brt_arr_reserve(a, cap > need ? cap : need);
    }
    if (brt_type_owns(a->elem))
        memset((char *)a->data + (size_t)a->len * es, 0, (size_t)n * es);
    a->len = need;
}

brt_arr *brt_arr_extend_take(brt_arr *a, brt_arr *ys)
{
    brt_arr_extend(&a, ys);
    return a;
}

void brt_arr_reverse(brt_arr **slot)
{
    if ((*slot)->len < 2)
        return;
    brt_arr *a = *slot = brt_arr_unique(*slot);
    size_t es = elem_size(a);
    char *d = a->data;
    if (es == 8) { /* int, float, str, [T]: word swaps */
        uint64_t *w = a->data;
        for (int64_t i = 0, j = a->len - 1; i < j; i++, j--) {
            uint64_t t = w[i];
            w[i] = w[j];
            w[j] = t;
        }
        return;
    }
    for (int64_t i = 0, j = a->len - 1; i < j; i++, j--)
        brt_swap_vals(d + (size_t)i * es, d + (size_t)j * es, es);
}

/* ---- sorting ------------------------------------------------------------------- */

uint64_t brt_float_key(double x)
{
    uint64_t u;
    memcpy(&u, &x, sizeof u);
    return (u >> 63) ? ~u : u | (1ULL << 63);
}

double brt_float_unkey(uint64_t k)
{
    uint64_t u = (k >> 63) ? k & ~(1ULL << 63) : ~k;
    double x;
    memcpy(&x, &u, sizeof x);
    return x;
}

#define RADIX_BITS 8 /* 8 passes of 256 buckets: faster here than 6 of 2048 (bench/README.md) */
#define RADIX (1 << RADIX_BITS)
#define RADIX_PASSES ((64 + RADIX_BITS - 1) / RADIX_BITS)

typedef uint32_t radix_counts[RADIX_PASSES][RADIX];

static void count_key(radix_counts c, uint64_t v)
{
    for (int p = 0; p < RADIX_PASSES; p++)
        c[p][(v >> (p * RADIX_BITS)) & (RADIX - 1)]++;
}

static void insertion_sort_keys(uint64_t *k, int64_t n)
{
    for (int64_t i = 1; i < n; i++) {
        uint64_t v = k[i];
        int64_t j = i;
        for (; j > 0 && k[j - 1] > v; j--)
            k[j] = k[j - 1];
        k[j] = v;
    }
}

/* The LSD passes below digit `passes` over keys whose digits c counted
 * (n >= 1), with tmp as scratch of n keys. */
static void lsd_passes(uint64_t *k, uint64_t *tmp, int64_t n, radix_counts c, int passes)
{
    uint64_t *src = k, *dst = tmp;
    for (int p = 0; p < passes; p++) {
        uint32_t *cp = c[p];
        unsigned shift = (unsigned)(p * RADIX_BITS);
        if (cp[(src[0] >> shift) & (RADIX - 1)] == (uint64_t)n)
            continue; /* every key has this digit */
        uint32_t sum = 0;
        for (int d = 0; d < RADIX; d++) {
            uint32_t t = cp[d];
            cp[d] = sum;
            sum += t;
        }
        for (int64_t i = 0; i < n; i++) {
            uint64_t v = src[i];
            dst[cp[(v >> shift) & (RADIX - 1)]++] = v;
        }
        uint64_t *t = src;
        src = dst;
        dst = t;
    }
    if (src != k)
        memcpy(k, src, (size_t)n * sizeof *k);
}

/* Scratch of any size; a big one in 2 MiB pages where the kernel offers
 * them (madvise): its first touch costs 1 fault per 2 MiB, not per 4 KiB
 * (the faults were a few percent of a 10^7 sort, and most of a keyed
 * reduction's sort). A big block given back by brt_scratch_free waits
 * (up to PARKED of them, PARK_MAX bytes in all) for the next request it
 * fits with at most twice the room, so a sort or keyed reduction called in
 * a loop has the kernel zero its pages once, not on every call. */
#define HUGE_PAGE ((size_t)2 << 20)
#define PARKED 4
#define PARK_MAX ((size_t)1 << 30)

static struct {
    void *p;
    size_t bytes;
} parked[PARKED];
static pthread_mutex_t park_lock = PTHREAD_MUTEX_INITIALIZER;

static size_t huge_round(size_t bytes)
{
    return (bytes + HUGE_PAGE - 1) / HUGE_PAGE * HUGE_PAGE;
}

void *brt_scratch(size_t bytes)
{
    void *tmp = NULL;
    if (bytes >= 8 * HUGE_PAGE) {
        size_t rounded = huge_round(bytes);
        int best = -1;
        pthread_mutex_lock(&park_lock);
        for (int i = 0; i < PARKED; i++)
            if (parked[i].p && parked[i].bytes >= rounded && parked[i].bytes / 2 <= rounded &&
                (best < 0 || parked[i].bytes < parked[best].bytes))
                best = i;
        if (best >= 0) {
            tmp = parked[best].p;
            parked[best].p = NULL;
        }
        pthread_mutex_unlock(&park_lock);
        if (tmp)
            return tmp;
        tmp = aligned_alloc(HUGE_PAGE, rounded);
        if (tmp)
            madvise(tmp, rounded, MADV_HUGEPAGE);
    } else {
        tmp = malloc(bytes ? bytes : 1);
    }
    if (!tmp)
        brt_panic_text(NULL, "out of memory");
    return tmp;
}

void brt_scratch_free(void *p, size_t bytes)
{
    if (p && bytes >= 8 * HUGE_PAGE) {
        size_t rounded = huge_round(bytes), total = rounded;
        pthread_mutex_lock(&park_lock);
        int slot = -1;
        for (int i = 0; i < PARKED; i++) {
            if (parked[i].p)
                total += parked[i].bytes;
            else if (slot < 0)
                slot = i;
        }
        if (slot >= 0 && total <= PARK_MAX) {
            parked[slot].p = p;
            parked[slot].bytes = rounded;
            p = NULL;
        }
        pthread_mutex_unlock(&park_lock);
    }
    free(p);
}

static uint64_t *scratch(int64_t n)
{
    return brt_scratch((size_t)n * sizeof(uint64_t));
}

/* ---- large arrays: one pass by the top digit, then the buckets in parallel ---- */

/* At and above PAR_MIN keys on more than one thread, the keys are scattered
 * by their highest digit that differs between keys (the chunks counted and
 * scattered in parallel, each chunk's keys in their order), and each
 * bucket is then sorted by the LSD passes on the digits below, buckets in
 * parallel on the pool. Equal keys are equal values, so the result is the
 * one sorted array whatever the schedule. */
#define PAR_MIN ((int64_t)1 << 17)
#define PAR_CHUNKS 16

enum key_post { POST_NONE, POST_FLOAT, POST_FLIP }; /* what the keys turn back into */

struct bucket_sort {
    uint64_t *k, *tmp;
    int64_t n;
    int top;                      /* the scattering digit */
    int nchunks;
    uint32_t cnt[PAR_CHUNKS][RADIX]; /* a chunk's keys per top digit, then its offsets */
    int64_t start[RADIX + 1];     /* bucket d is tmp[start[d] .. start[d + 1]) */
    enum key_post post;
};

/* Where chunk c of n keys in PAR_CHUNKS starts: n c / PAR_CHUNKS, no overflow. */
static int64_t part_lo(int64_t n, int64_t c)
{
    return n / PAR_CHUNKS * c + n % PAR_CHUNKS * c / PAR_CHUNKS;
}

static int64_t chunk_lo(const struct bucket_sort *b, int64_t c)
{
    return part_lo(b->n, c);
}

static void count_chunk(void *arg, int64_t c)
{
    struct bucket_sort *b = arg;
    unsigned shift = (unsigned)(b->top * RADIX_BITS);
    uint32_t *cnt = b->cnt[c];
    for (int64_t i = chunk_lo(b, c), e = chunk_lo(b, c + 1); i < e; i++)
        cnt[(b->k[i] >> shift) & (RADIX - 1)]++;
}

static void scatter_chunk(void *arg, int64_t c)
{
    struct bucket_sort *b = arg;
    unsigned shift = (unsigned)(b->top * RADIX_BITS);
    uint32_t *off = b->cnt[c];
    for (int64_t i = chunk_lo(b, c), e = chunk_lo(b, c + 1); i < e; i++) {
        uint64_t v = b->k[i];
        b->tmp[off[(v >> shift) & (RADIX - 1)]++] = v;
    }
}

/* Keys sorted by LSD passes at once; more are first scattered by their
 * next digit (measured: 2^16 .. 2^20 within 2% of each other here). */
#define CACHE_KEYS ((int64_t)1 << 18)

static void put_values(const uint64_t *src, uint64_t *out, int64_t n, enum key_post post)
{
    for (int64_t i = 0; i < n; i++) {
        uint64_t v = src[i];
        out[i] = post == POST_FLOAT ? ((v >> 63) ? v & ~(1ULL << 63) : ~v) : post == POST_FLIP ? v ^ (1ULL << 63) : v;
    }
}

/* Sorts the n keys at src, equal above digit `top`, into values at out
 * (out is src or scr; scr is scratch of n keys): MSD scatters by the next
 * digit while the keys do not fit the cache, then LSD passes in it, so a
 * large array costs a few passes over memory, not one per digit. */
static void sort_range(uint64_t *src, uint64_t *scr, uint64_t *out, int64_t n, int top, enum key_post post)
{
    while (n > CACHE_KEYS && top > 0) {
        unsigned shift = (unsigned)((top - 1) * RADIX_BITS);
        uint32_t cnt[RADIX] = {0};
        for (int64_t i = 0; i < n; i++)
            cnt[(src[i] >> shift) & (RADIX - 1)]++;
        top--;
        if (cnt[(src[0] >> shift) & (RADIX - 1)] == (uint32_t)n)
            continue; /* every key has this digit */
        uint32_t off[RADIX], sum = 0;
        for (int d = 0; d < RADIX; d++) {
            off[d] = sum;
            sum += cnt[d];
        }
        for (int64_t i = 0; i < n; i++) {
            uint64_t v = src[i];
            scr[off[(v >> shift) & (RADIX - 1)]++] = v;
        }
        int64_t o = 0;
        for (int d = 0; d < RADIX; d++) {
            if (cnt[d])
                sort_range(scr + o, src + o, out + o, cnt[d], top, post);
            o += cnt[d];
        }
        return;
    }
    if (n > 64) {
        radix_counts c;
        memset(c, 0, sizeof c);
        for (int64_t i = 0; i < n; i++)
            for (int p = 0; p < top; p++)
                c[p][(src[i] >> (p * RADIX_BITS)) & (RADIX - 1)]++;
        lsd_passes(src, scr, n, c, top);
    } else {
        insertion_sort_keys(src, n);
    }
    put_values(src, out, n, post);
}

static void sort_bucket(void *arg, int64_t d)
{
    struct bucket_sort *b = arg;
    int64_t lo = b->start[d], n = b->start[d + 1] - lo;
    sort_range(b->tmp + lo, b->k + lo, b->k + lo, n, b->top, b->post);
}

/* The pool's tasks ran under traps: a panic in one (out of memory) is the
 * sort's. */
static void run_tasks(int64_t n, void (*task)(void *, int64_t), void *arg)
{
    brt_trap t;
    if (brt_pool_run(n, task, arg, &t) >= 0)
        brt_trap_rethrow(&t);
}

/* Whether keys go to sort_keys_par: then only the top two digits need
 * counting (count_top) to find its scattering digit; the buckets count
 * their own. */
static bool par_sort(int64_t n)
{
    return n >= PAR_MIN && brt_pool_threads() >= 2;
}

static void count_top(radix_counts c, uint64_t v)
{
    c[RADIX_PASSES - 1][v >> (64 - RADIX_BITS)]++;
    c[RADIX_PASSES - 2][(v >> (64 - 2 * RADIX_BITS)) & (RADIX - 1)]++;
}

/* Sorts n >= PAR_MIN keys whose digits c counted (at least the top two:
 * below two constant ones it scatters by the third), then turns them back
 * into values (post). False: not worth it here (one thread: the plain LSD
 * passes were faster there, 0.15 s against 0.19 s for 10^7 floats; or one
 * digit decides nothing); nothing was changed. */
static bool sort_keys_par(uint64_t *k, int64_t n, radix_counts c, enum key_post post)
{
    if (!par_sort(n))
        return false;
    int top = RADIX_PASSES - 1;
    while (top > 0 && c[top][(k[0] >> (top * RADIX_BITS)) & (RADIX - 1)] == (uint32_t)n)
        top--;
    if (top == 0)
        return false;
    struct bucket_sort *b = calloc(1, sizeof *b);
    if (!b)
        brt_panic_text(NULL, "out of memory");
    b->k = k;
    b->tmp = scratch(n);
    b->n = n;
    b->top = top;
    b->nchunks = PAR_CHUNKS;
    b->post = post;
    run_tasks(b->nchunks, count_chunk, b);
    int64_t sum = 0;
    for (int d = 0; d < RADIX; d++) {
        b->start[d] = sum;
        for (int ch = 0; ch < b->nchunks; ch++) {
            uint32_t t = b->cnt[ch][d];
            b->cnt[ch][d] = (uint32_t)sum;
            sum += t;
        }
    }
    b->start[RADIX] = sum;
    run_tasks(b->nchunks, scatter_chunk, b);
    run_tasks(RADIX, sort_bucket, b);
    brt_scratch_free(b->tmp, (size_t)n * sizeof(uint64_t));
    free(b);
    return true;
}

static void radix_passes(uint64_t *k, int64_t n, radix_counts c)
{
    uint64_t *tmp = scratch(n);
    lsd_passes(k, tmp, n, c, RADIX_PASSES);
    brt_scratch_free(tmp, (size_t)n * sizeof(uint64_t));
}

static radix_counts *new_counts(void)
{
    radix_counts *c = calloc(1, sizeof *c);
    if (!c)
        brt_panic_text(NULL, "out of memory");
    return c;
}

void brt_sort_keys(uint64_t *k, int64_t n)
{
    if (n < 64) {
        insertion_sort_keys(k, n);
        return;
    }
    radix_counts *c = new_counts();
    for (int64_t i = 0; i < n; i++)
        count_key(*c, k[i]);
    radix_passes(k, n, *c);
    free(c);
}

/* The key pass of a parallel float sort, chunk by chunk: a chunk without a
 * NaN becomes keys (its top two digits counted); one with a NaN is left as
 * it is, for the ordered pass that moves NaNs out. */
struct key_pass {
    uint64_t *k;
    int64_t n;
    uint32_t top[PAR_CHUNKS][2][RADIX];
    bool has_nan[PAR_CHUNKS], keyed[PAR_CHUNKS];
};

static void key_chunk(void *arg, int64_t c)
{
    struct key_pass *kp = arg;
    int64_t lo = part_lo(kp->n, c), hi = part_lo(kp->n, c + 1);
    for (int64_t i = lo; i < hi; i++)
        if ((kp->k[i] & ~(1ULL << 63)) > 0x7ff0000000000000ULL) {
            kp->has_nan[c] = true;
            return;
        }
    for (int64_t i = lo; i < hi; i++) {
        uint64_t u = kp->k[i];
        uint64_t key = (u >> 63) ? ~u : u | (1ULL << 63); /* brt_float_key */
        kp->k[i] = key;
        kp->top[c][0][key >> (64 - RADIX_BITS)]++;
        kp->top[c][1][(key >> (64 - 2 * RADIX_BITS)) & (RADIX - 1)]++;
    }
    kp->keyed[c] = true;
}

/* A parallel sort of floats without NaNs: the key pass on the pool too.
 * False (nothing changed but keyed chunks, listed in kp): a NaN is there. */
static bool sort_floats_par(double *x, int64_t n, struct key_pass *kp)
{
    kp->k = (uint64_t *)(void *)x;
    kp->n = n;
    run_tasks(PAR_CHUNKS, key_chunk, kp);
    for (int c = 0; c < PAR_CHUNKS; c++)
        if (kp->has_nan[c])
            return false;
    radix_counts *cn = new_counts();
    for (int c = 0; c < PAR_CHUNKS; c++)
        for (int d = 0; d < RADIX; d++) {
            (*cn)[RADIX_PASSES - 1][d] += kp->top[c][0][d];
            (*cn)[RADIX_PASSES - 2][d] += kp->top[c][1][d];
        }
    bool done = sort_keys_par(kp->k, n, *cn, POST_FLOAT);
    free(cn);
    if (!done) /* every key the same above its lowest digit: sort them in turn */
        brt_sort_keys(kp->k, n), put_values(kp->k, kp->k, n, POST_FLOAT);
    return true;
}

void brt_sort_floats(double *x, int64_t n)
{
    struct key_pass *kp = NULL;
    if (par_sort(n)) {
        kp = calloc(1, sizeof *kp);
        if (!kp)
            brt_panic_text(NULL, "out of memory");
        if (sort_floats_par(x, n, kp)) {
            free(kp);
            return;
        }
    }
    /* the keys in place, over the doubles' own bits (read and written only
     * as u64 here), their digits counted in the same pass; NaNs are moved
     * out first, in their order, and put back last */
    uint64_t *k = (uint64_t *)(void *)x, *nan = NULL;
    int64_t nk = 0, nn = 0;
    radix_counts *c = n >= 64 ? new_counts() : NULL;
    bool par = par_sort(n); /* n >= PAR_MIN: and the keys (n less the NaNs)? decided below */
    int ch = 0;
    int64_t ch_hi = kp ? part_lo(n, 1) : n;
    for (int64_t i = 0; i < n; i++) {
        uint64_t u = k[i];
        while (kp && i >= ch_hi)
            ch_hi = part_lo(n, ++ch + 1);
        if (kp && kp->keyed[ch]) {
            k[nk++] = u; /* keyed already by the parallel pass (a chunk without NaN) */
            if (par)
                count_top(*c, u);
            continue;
        }
        if ((u & ~(1ULL << 63)) > 0x7ff0000000000000ULL) {
            if (!nan && !(nan = malloc((size_t)(n - i) * sizeof *nan)))
                brt_panic_text(NULL, "out of memory");
            nan[nn++] = u;
        } else {
            uint64_t key = (u >> 63) ? ~u : u | (1ULL << 63); /* brt_float_key */
            k[nk++] = key;
            if (par)
                count_top(*c, key);
            else if (c)
                count_key(*c, key);
        }
    }
    if (par && !par_sort(nk)) { /* so many NaNs that the rest is small: count it all */
        memset(*c, 0, sizeof *c);
        for (int64_t i = 0; i < nk; i++)
            count_key(*c, k[i]);
    }
    if (c && nk >= 64 && sort_keys_par(k, nk, *c, POST_FLOAT)) {
        free(c);
    } else {
        if (!c || nk < 64)
            insertion_sort_keys(k, nk);
        else
            radix_passes(k, nk, *c);
        free(c);
        for (int64_t i = 0; i < nk; i++) {
            uint64_t v = k[i];
            k[i] = (v >> 63) ? v & ~(1ULL << 63) : ~v; /* brt_float_unkey */
        }
    }
    if (nn)
        memcpy(k + nk, nan, (size_t)nn * sizeof *nan);
    free(nan);
    free(kp);
}

static void sort_ints(int64_t *x, int64_t n, bool is_signed)
{
    uint64_t flip = is_signed ? 1ULL << 63 : 0;
    if (n < 64) {
        for (int64_t i = 1; i < n; i++) {
            int64_t v = x[i];
            int64_t j = i;
            for (; j > 0 && ((uint64_t)x[j - 1] ^ flip) > ((uint64_t)v ^ flip); j--)
                x[j] = x[j - 1];
            x[j] = v;
        }
        return;
    }
    uint64_t *k = (uint64_t *)x; /* in place: the key is the value with the sign flipped */
    radix_counts *c = new_counts();
    bool par = par_sort(n);
    for (int64_t i = 0; i < n; i++) {
        k[i] ^= flip;
        if (par)
            count_top(*c, k[i]);
        else
            count_key(*c, k[i]);
    }
    if (!sort_keys_par(k, n, *c, is_signed ? POST_FLIP : POST_NONE)) {
        radix_passes(k, n, *c);
        for (int64_t i = 0; i < n; i++)
            k[i] ^= flip;
    }
    free(c);
}

/* Stable bottom-up merge sort of n elements of es bytes by cmp (ctx: its
 * element type, for tuples). */
static void merge_sort(void *base, int64_t n, size_t es, int (*cmp)(const void *, const void *, const brt_type *),
                       const brt_type *ctx)
{
    char *a = base;
    /* runs of 16 by insertion sort */
    char tmpv[es];
    for (int64_t lo = 0; lo < n; lo += 16) {
        int64_t hi = lo + 16 < n ? lo + 16 : n;
        for (int64_t i = lo + 1; i < hi; i++) {
            memcpy(tmpv, a + (size_t)i * es, es);
            int64_t j = i;
            for (; j > lo && cmp(a + (size_t)(j - 1) * es, tmpv, ctx) > 0; j--)
                memcpy(a + (size_t)j * es, a + (size_t)(j - 1) * es, es);
            memcpy(a + (size_t)j * es, tmpv, es);
        }
    }
    if (n <= 16)
        return;
    char *buf = malloc((size_t)n * es);
    if (!buf)
        brt_panic_text(NULL, "out of memory");
    char *src = a, *dst = buf;
    for (int64_t w = 16; w < n; w *= 2) {
        for (int64_t lo = 0; lo < n; lo += 2 * w) {
            int64_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
            int64_t i = lo, j = mid, o = lo;
            while (i < mid && j < hi) {
                /* ties take the left run: stable */
                if (cmp(src + (size_t)j * es, src + (size_t)i * es, ctx) < 0)
                    memcpy(dst + (size_t)o++ * es, src + (size_t)j++ * es, es);
                else
                    memcpy(dst + (size_t)o++ * es, src + (size_t)i++ * es, es);
            }
            memcpy(dst + (size_t)o * es, src + (size_t)i * es, (size_t)(mid - i) * es);
            o += mid - i;
            memcpy(dst + (size_t)o * es, src + (size_t)j * es, (size_t)(hi - j) * es);
        }
        char *t = src;
        src = dst;
        dst = t;
    }
    if (src != a)
        memcpy(a, src, (size_t)n * es);
    free(buf);
}

static int cmp_i128(const void *x, const void *y, const brt_type *t)
{
    (void)t;
    brt_i128 a, b;
    memcpy(&a, x, sizeof a);
    memcpy(&b, y, sizeof b);
    return brt_cmp_i128(a, b);
}

static int cmp_str(const void *x, const void *y, const brt_type *t)
{
    (void)t;
    brt_str *a, *b;
    memcpy(&a, x, sizeof a);
    memcpy(&b, y, sizeof b);
    return brt_str_cmp(a, b);
}

/* Tuples and structs sort lexicographically, each field by the order the
 * sort of its own type uses: floats by the total order above (-0.0 before
 * 0.0, every NaN after inf and equal to every other NaN, so ties keep
 * their order), false before true. */
static int cmp_field(const brt_type *t, const void *x, const void *y)
{
    switch (t->kind) {
    case BRT_FLOAT: {
        double a, b;
        memcpy(&a, x, sizeof a);
        memcpy(&b, y, sizeof b);
        bool na = a != a, nb = b != b;
        if (na || nb)
            return na - nb;
        uint64_t ka = brt_float_key(a), kb = brt_float_key(b);
        return (ka > kb) - (ka < kb);
    }
    case BRT_INT: {
        int64_t a, b;
        memcpy(&a, x, sizeof a);
        memcpy(&b, y, sizeof b);
        return (a > b) - (a < b);
    }
    case BRT_U64: {
        uint64_t a, b;
        memcpy(&a, x, sizeof a);
        memcpy(&b, y, sizeof b);
        return (a > b) - (a < b);
    }
    case BRT_BOOL: return (int)*(const bool *)x - (int)*(const bool *)y;
    case BRT_I128: return cmp_i128(x, y, t);
    case BRT_STR: return cmp_str(x, y, t);
    case BRT_TUPLE:
        for (int i = 0; i < t->nfields; i++) {
            int c = cmp_field(t->fields[i], (const char *)x + t->offsets[i], (const char *)y + t->offsets[i]);
            if (c)
                return c;
        }
        return 0;
    case BRT_ARR: case BRT_FN: break;
    }
    brt_panic_text(NULL, "internal error: sort of an unordered field type");
}

static int cmp_tuple(const void *x, const void *y, const brt_type *t)
{
    return cmp_field(t, x, y);
}

void brt_arr_sort(brt_arr **slot)
{
    if ((*slot)->len < 2)
        return;
    brt_arr *a = *slot = brt_arr_unique(*slot);
    int64_t n = a->len;
    switch (a->elem->kind) {
    case BRT_FLOAT: brt_sort_floats(a->data, n); return;
    case BRT_INT: sort_ints(a->data, n, true); return;
    case BRT_U64: sort_ints(a->data, n, false); return;
    case BRT_BOOL: {
        bool *b = a->data;
        int64_t f = 0;
        for (int64_t i = 0; i < n; i++)
            f += !b[i];
        for (int64_t i = 0; i < n; i++)
            b[i] = i >= f;
        return;
    }
    case BRT_I128: merge_sort(a->data, n, sizeof(brt_i128), cmp_i128, NULL); return;
    case BRT_STR: merge_sort(a->data, n, sizeof(brt_str *), cmp_str, NULL); return;
    case BRT_TUPLE: merge_sort(a->data, n, a->elem->size, cmp_tuple, a->elem); return;
    case BRT_ARR: break; /* the checker allows no sort of arrays of arrays */
    case BRT_FN: break;  /* nor of functions */
    }
    brt_panic_text(NULL, "internal error: sort of an unordered element type");
}
