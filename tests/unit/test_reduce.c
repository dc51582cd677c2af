/* brt_reduce_tree against a direct recursive reference of SPEC 5.2 for every
 * n from 0 to 5000 with random filters: the values (an order-sensitive
 * integer combine, and a float sum compared by bits) and, where the exact way
 * runs (fewer than 8 leaves), the whole event sequence (leaf folds and
 * combines), which must be the post-order of SPEC 5.3; test_pool.c checks
 * that the panic reported is post-order's first on every path and thread
 * count. Also: n = 10^9 with O(log n) memory, and par collect. */
#include <criterion/criterion.h>
#include <criterion/redirect.h>
#include <math.h>
#include <string.h>

#include "brine_rt.h"

#define MAXN 5000

struct env {
    int64_t n;
    double xs[MAXN];
    unsigned char keep[MAXN];
    bool use_float;
    /* event log: leaf L is logged as L, a combine as a negative hash of its operands */
    int64_t log[4 * MAXN];
    int nlog;
};

struct val { uint64_t h; double f; }; /* 16 bytes: the most a value may be */

static void fold_leaf(struct env *e, int64_t leaf, struct val *v, unsigned char *has)
{
    *has = 0;
    v->h = 0;
    v->f = 0.0;
    for (int64_t i = leaf * BRT_LEAF; i < e->n && i < (leaf + 1) * BRT_LEAF; i++) {
        if (!e->keep[i])
            continue;
        *has = 1;
        v->h = v->h * 31 + (uint64_t)i + 1;
        v->f = v->f + e->xs[i];
    }
    e->log[e->nlog++] = leaf;
}

static void leaves(void *envp, int64_t first, int64_t count, void *vals, unsigned char *has)
{
    struct env *e = envp;
    for (int64_t k = 0; k < count; k++)
        fold_leaf(e, first + k, (struct val *)((char *)vals + k * sizeof(struct val)), has + k);
}

/* Order- and shape-sensitive: a wrong tree gives a different h. */
static void combine(void *envp, void *leftp, const void *rightp)
{
    struct env *e = envp;
    struct val *l = leftp;
    const struct val *r = rightp;
    e->log[e->nlog++] = -1 - (int64_t)((l->h ^ (r->h >> 3)) & 0xffffffff);
    l->h = l->h * 1000003 ^ (r->h + 0x9e3779b97f4a7c15ull);
    l->f = l->f + r->f;
}

/* The reference: node (k, j) covers leaves [j*2^k, (j+1)*2^k); the right
 * child may be missing (moves up), a side without a value lets the other
 * move up. Recursion visits leaves left to right and combines each node
 * right after its children: post-order. */
static bool ref(struct env *e, int64_t lo, int64_t size, int64_t nleaves, struct val *out)
{
    if (size == 1) {
        unsigned char has;
        fold_leaf(e, lo, out, &has);
        return has;
    }
    int64_t half = size / 2;
    struct val l, r;
    bool lh = ref(e, lo, half, nleaves, &l);
    if (lo + half >= nleaves) {
        *out = l;
        return lh;
    }
    bool rh = ref(e, lo + half, half, nleaves, &r);
    if (lh && rh) {
        combine(e, &l, &r);
        *out = l;
    } else {
        *out = lh ? l : r;
    }
    return lh || rh;
}

static uint64_t rng_state = 0x2545F4914F6CDD1Dull;
static uint64_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

static struct env E, R;

Test(reduce, matches_reference_for_every_n)
{
    for (int64_t n = 0; n <= MAXN; n++) {
        E.n = n;
        int density = (int)(rnd() % 5); /* all, most, some, rare, none */
        for (int64_t i = 0; i < n; i++) {
            /* magnitudes spread wide so the float sum depends on the order */
            E.xs[i] = ldexp((double)(rnd() % 1000000) + 1, (int)(rnd() % 60) - 30);
            uint64_t r = rnd() % 100;
            E.keep[i] = density == 0 ? 1 : density == 1 ? r < 80 : density == 2 ? r < 20 : density == 3 ? r < 1 : 0;
        }
        E.nlog = 0;
        R = E;
        brt_reduce red = { n, sizeof(struct val), &E, leaves, combine, NULL, NULL };
        struct val got;
        memset(&got, 0, sizeof got);
        bool has = brt_reduce_tree(&red, &got);

        int64_t nleaves = (n + BRT_LEAF - 1) / BRT_LEAF;
        bool want_has = false;
        struct val want;
        if (nleaves > 0) {
            int64_t size = 1;
            while (size < nleaves)
                size *= 2;
            want_has = ref(&R, 0, size, nleaves, &want);
        }
        cr_assert_eq(has, want_has, "n=%lld: has", (long long)n);
        if (has) {
            cr_assert_eq(got.h, want.h, "n=%lld: tree shape", (long long)n);
            cr_assert(memcmp(&got.f, &want.f, sizeof(double)) == 0, "n=%lld: float bits %a vs %a",
                      (long long)n, got.f, want.f);
        }
        if (nleaves >= 8)
            continue; /* the fast way folds chunks of leaves before combining */
        cr_assert_eq(E.nlog, R.nlog, "n=%lld: event count", (long long)n);
        cr_assert(memcmp(E.log, R.log, (size_t)E.nlog * sizeof(int64_t)) == 0,
                  "n=%lld: leaves and combines not in post-order", (long long)n);
    }
}

/* The seed's picture: 80 elements, 5 leaves: ((L0 + L1) + (L2 + L3)) + L4. */
Test(reduce, seed_picture)
{
    E.n = 80;
    for (int i = 0; i < 80; i++) {
        E.xs[i] = 1.0;
        E.keep[i] = 1;
    }
    E.nlog = 0;
    brt_reduce red = { 80, sizeof(struct val), &E, leaves, combine, NULL, NULL };
    struct val got;
    cr_assert(brt_reduce_tree(&red, &got));
    cr_assert_eq(got.f, 80.0);
    /* L0 L1 C L2 L3 C C L4 C: negative entries are combines */
    int64_t want[] = {0, 1, -1, 2, 3, -1, -1, 4, -1};
    cr_assert_eq(E.nlog, 9);
    for (int i = 0; i < 9; i++)
        cr_assert_eq(E.log[i] < 0 ? -1 : E.log[i], want[i], "event %d", i);
}

/* A big reduction runs in constant memory: leaves are computed in closed
 * form (the sum of their element indices), so this times only the driver. */
static void big_leaves(void *env, int64_t first, int64_t count, void *vals, unsigned char *has)
{
    int64_t n = *(int64_t *)env;
    for (int64_t k = 0; k < count; k++) {
        int64_t lo = (first + k) * BRT_LEAF, hi = lo + BRT_LEAF < n ? lo + BRT_LEAF : n;
        ((int64_t *)vals)[k] = (lo + hi - 1) * (hi - lo) / 2;
        has[k] = 1;
    }
}

static void add_combine(void *env, void *l, const void *r)
{
    *(int64_t *)l = brt_add_i64(*(int64_t *)l, *(const int64_t *)r, NULL);
}

Test(reduce, billion_elements)
{
    int64_t n = 1000000000;
    brt_reduce red = { n, sizeof(int64_t), &n, big_leaves, add_combine, NULL, NULL };
    int64_t got = 0;
    cr_assert(brt_reduce_tree(&red, &got));
    cr_assert_eq(got, n * (n - 1) / 2);
}

/* An integer sum that overflows in the tree but not in the left fold (the
 * seed's first program): 32 elements, leaf 1 holds big + big. */
static int64_t ov_xs[32];
static void ov_leaves(void *env, int64_t first, int64_t count, void *vals, unsigned char *has)
{
    for (int64_t k = 0; k < count; k++) {
        int64_t acc = 0;
        for (int64_t i = (first + k) * 16; i < (first + k + 1) * 16; i++)
            acc = brt_add_i64(acc, ov_xs[i], env);
        ((int64_t *)vals)[k] = acc;
        has[k] = 1;
    }
}

Test(reduce, tree_overflow_panics, .exit_code = 101, .init = cr_redirect_stderr)
{
    static const brt_loc loc = { "ov.br", 8, 11 };
    ov_xs[0] = -INT64_MAX;
    ov_xs[16] = INT64_MAX;
    ov_xs[17] = INT64_MAX;
    brt_reduce red = { 32, sizeof(int64_t), (void *)&loc, ov_leaves, add_combine, &loc, NULL };
    int64_t got;
    brt_reduce_tree(&red, &got);
}

/* ---- par collect ---- */

static void squares(void *env, int64_t lo, int64_t hi, brt_arr **out)
{
    for (int64_t i = lo; i < hi; i++) {
        if (i % 3 == 0)
            continue;
        int64_t v = i * i;
        *out = brt_arr_push(*out, &v);
    }
}

Test(reduce, par_collect_in_order)
{
    brt_collect c = { 10000, &brt_t_int, NULL, squares };
    brt_arr *a = brt_par_collect(&c);
    int64_t k = 0;
    for (int64_t i = 0; i < 10000; i++) {
        if (i % 3 == 0)
            continue;
        cr_assert_eq(BRT_AT(int64_t, a, k), i * i);
        k++;
    }
    cr_assert_eq(a->len, k);
    brt_arr_release(a);
    brt_collect none = { 0, &brt_t_int, NULL, squares };
    a = brt_par_collect(&none);
    cr_assert_eq(a->len, 0);
    brt_arr_release(a);
}
