/* world's distributed reductions (runtime/world.c) without MPI: the split of
 * the leaves among R ranks into aligned blocks, and the top of the tree
 * finished from those blocks' roots, give exactly the one-process tree
 * (brt_reduce_tree) for every n from 0 to 4,000 and a spread of larger n,
 * at every R from 1 to 9 (and a few large R, more ranks than leaves), with
 * random filters; the combine is order- and shape-sensitive. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rt_internal.h"

#define MAXN 200000

struct val { uint64_t h; double f; };

struct env {
    int64_t n;
    double *xs;
    unsigned char *keep;
};

static void leaves(void *envp, int64_t first, int64_t count, void *vals, unsigned char *has)
{
    const struct env *e = envp;
    for (int64_t k = 0; k < count; k++) {
        struct val *v = (struct val *)vals + k;
        int64_t leaf = first + k;
        has[k] = 0;
        v->h = 0;
        v->f = 0.0;
        for (int64_t i = leaf * BRT_LEAF; i < e->n && i < (leaf + 1) * BRT_LEAF; i++) {
            if (!e->keep[i])
                continue;
            has[k] = 1;
            v->h = v->h * 31 + (uint64_t)i + 1;
            v->f = v->f + e->xs[i];
        }
    }
}

static void combine(void *envp, void *leftp, const void *rightp)
{
    struct val *l = leftp;
    const struct val *r = rightp;
    l->h = l->h * 1000003 ^ (r->h + 0x9e3779b97f4a7c15ull);
    l->f = l->f + r->f;
}

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static uint64_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

static double xs[MAXN];
static unsigned char keep[MAXN];

static void check_n(int64_t n, int ranks)
{
    int density = (int)(rnd() % 5); /* all, most, some, rare, none */
    for (int64_t i = 0; i < n; i++) {
        xs[i] = ldexp((double)(rnd() % 1000000) + 1, (int)(rnd() % 60) - 30);
        uint64_t r = rnd() % 100;
        keep[i] = density == 0 ? 1 : density == 1 ? r < 80 : density == 2 ? r < 20 : density == 3 ? r < 1 : 0;
    }
    struct env e = { n, xs, keep };
    brt_reduce r = { n, sizeof(struct val), &e, leaves, combine, NULL, NULL };
    struct val one, split;
    memset(&one, 0, sizeof one);
    memset(&split, 0, sizeof split);
    bool h1 = brt_reduce_tree(&r, &one);
    bool h2 = brt_world_reduce_split(&r, ranks, &split);
    cr_assert_eq(h1, h2, "n=%lld R=%d: has %d vs %d", (long long)n, ranks, h1, h2);
    if (h1) {
        cr_assert_eq(one.h, split.h, "n=%lld R=%d: shape differs", (long long)n, ranks);
        cr_assert(memcmp(&one.f, &split.f, sizeof one.f) == 0, "n=%lld R=%d: float bits differ", (long long)n, ranks);
    }
}

/* The blocks of all ranks tile [0, L) in order, each aligned to its size. */
Test(world, blocks_tile_the_leaves)
{
    int64_t first[128];
    int level[128];
    for (int64_t L = 0; L <= 3000; L++)
        for (int R = 1; R <= 9; R++) {
            int64_t next = 0;
            for (int q = 0; q < R; q++) {
                int nb = brt_world_blocks(L, R, q, first, level);
                for (int i = 0; i < nb; i++) {
                    int64_t size = (int64_t)1 << level[i];
                    cr_assert_eq(first[i], next, "L=%lld R=%d rank %d: gap", (long long)L, R, q);
                    cr_assert_eq(first[i] % size, 0, "L=%lld R=%d rank %d: unaligned", (long long)L, R, q);
                    next += size;
                }
            }
            cr_assert_eq(next, L, "L=%lld R=%d: covers %lld", (long long)L, R, (long long)next);
        }
    /* huge trees still split into few blocks */
    int nb = brt_world_blocks((int64_t)1 << 59, 7, 3, first, level);
    cr_assert(nb <= 128);
}

Test(world, every_small_n_every_rank_count)
{
    for (int64_t n = 0; n <= 4000; n++)
        for (int R = 1; R <= 9; R++)
            check_n(n, R);
}

Test(world, spread_and_many_ranks)
{
    static const int64_t ns[] = { 4096, 4097, 16384, 65535, 65537, 100003, 131072, 199999, 200000 };
    static const int rs[] = { 1, 2, 3, 4, 5, 7, 9, 64, 1000 };
    for (size_t i = 0; i < sizeof ns / sizeof *ns; i++)
        for (size_t j = 0; j < sizeof rs / sizeof *rs; j++)
            check_n(ns[i], rs[j]);
    for (int64_t n = 1; n <= 200; n++)
        check_n(n, 50); /* more ranks than leaves */
}

/* A collective reached inside par elements by a path the compiler cannot
 * see panics at its own place, whether the elements run on the calling
 * thread or the pool's; outside par work the same call runs. */
static const brt_loc barrier_loc = { "inner.br", 3, 5 };

static void leaves_with_barrier(void *envp, int64_t first, int64_t count, void *vals, unsigned char *has)
{
    (void)envp;
    (void)first;
    brt_world_barrier(&barrier_loc);
    for (int64_t k = 0; k < count; k++) {
        ((double *)vals)[k] = 1.0;
        has[k] = 1;
    }
}

static void leaves_ones(void *envp, int64_t first, int64_t count, void *vals, unsigned char *has)
{
    (void)envp;
    (void)first;
    for (int64_t k = 0; k < count; k++) {
        ((double *)vals)[k] = 16.0;
        has[k] = 1;
    }
}

static void add_f64(void *envp, void *l, const void *r)
{
    (void)envp;
    *(double *)l += *(const double *)r;
}

/* One panicking reduction a test (each runs in its own process): the panic
 * ends a program, so the count of running par work is not put back. */
static void expect_barrier_panics(int64_t n)
{
    brt_trap trap;
    trap.panicked = 0;
    trap.msg = NULL;
    brt_trap_set(&trap);
    if (setjmp(trap.jb) == 0) {
        brt_reduce red = { n, sizeof(double), NULL, leaves_with_barrier, add_f64, NULL, NULL };
        double out;
        brt_reduce_tree(&red, &out);
        cr_assert_fail("n=%lld: the barrier inside the elements did not panic", (long long)n);
    }
    brt_trap_set(NULL);
    cr_assert_eq(trap.loc, &barrier_loc, "n=%lld: panic at the wrong place", (long long)n);
    cr_assert(strstr(trap.msg, "world.barrier cannot run inside the elements") != NULL, "%s", trap.msg);
    free(trap.msg);
}

Test(world, collective_inside_one_leaf_panics) { expect_barrier_panics(5); }
Test(world, collective_inside_few_leaves_panics) { expect_barrier_panics(1000); }
Test(world, collective_inside_pool_tasks_panics) { expect_barrier_panics(100000); }

Test(world, collective_after_par_work_runs)
{
    brt_reduce red = { 100000, sizeof(double), NULL, leaves_ones, add_f64, NULL, NULL };
    double out = 0;
    cr_assert(brt_reduce_tree(&red, &out));
    cr_assert_eq(out, 100000.0);
    brt_world_barrier(&barrier_loc); /* one rank: returns */
}
