/* The work-stealing pool under stress: random trees of nested par
 * reductions (random nesting depths, sizes up to thousands of leaves,
 * filters, element costs and panics in elements and in combines), some
 * through the element way (a hot or unmeasured site), some through the leaf
 * way (many leaves: units split lazily), some one-leaf ones folded in place
 * the way the generated code does when brt_reduce_inline allows it, and par
 * fills of them,
 * at 1, 2, 3, 7, 16 and 64 threads, half of the rounds with the pool's
 * random steal order (brt_pool_chaos). Every result, and every reported
 * panic, must equal a direct sequential evaluation in post-order: what one
 * thread gives, byte for byte. Each Test runs in its own process. */
#ifdef MINI_CRITERION
#include "mini_criterion.h"
#else
#include <criterion/criterion.h>
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_internal.h"

struct val { uint64_t h; double f; };

/* The round's shape, fixed before it runs (read-only while threads work). */
static struct {
    int max_depth;
    uint64_t cost_mask;   /* busy-loop iterations per element: hash & mask */
    uint64_t elem_panic;  /* 0: none; else an element panics when hash % this == 0 */
    uint64_t comb_panic;  /* 0: none; else a combine panics when hash % this == 0 */
    bool ref;             /* evaluating the sequential reference */
    bool linear;          /* the reference folds its leaves left to right: a wrong order */
    int64_t big;          /* nested reductions: 1 in 4 has up to this many elements */
} P;

static const brt_loc elem_locs[8] = {
    { "d0.br", 1, 1 }, { "d1.br", 1, 1 }, { "d2.br", 1, 1 }, { "d3.br", 1, 1 },
    { "d4.br", 1, 1 }, { "d5.br", 1, 1 }, { "d6.br", 1, 1 }, { "d7.br", 1, 1 },
};
static const brt_loc comb_loc = { "comb.br", 2, 2 };
static brt_site sites[8][3];

static uint64_t mix(uint64_t a, uint64_t b)
{
    uint64_t z = a * 0x9E3779B97F4A7C15ull + b + 0x632BE59BD9B4E019ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

struct nenv { uint64_t id; int depth; int64_t n; };

static const struct val start = { 0, 0.0 };

static void combine(void *envp, void *lp, const void *rp)
{
    struct val *l = lp;
    const struct val *r = rp;
    if (P.comb_panic && mix(l->h, r->h) % P.comb_panic == 0)
        brt_panic(&comb_loc, BRT_OV_ADD);
    l->h = l->h * 1000003 ^ (r->h + 0x9e3779b97f4a7c15ull);
    l->f = l->f + r->f;
}

static bool reduce_node(uint64_t id, int depth, int64_t n, struct val *out);

static bool elem(void *envp, int64_t k, void *out)
{
    const struct nenv *e = envp;
    uint64_t h = mix(e->id, (uint64_t)k);
    volatile uint64_t sink = 0;
    for (uint64_t i = 0; i < (h & P.cost_mask); i++)
        sink += i;
    if (P.elem_panic && (h >> 7) % P.elem_panic == 0)
        brt_panic(&elem_locs[e->depth], BRT_DIV_ZERO);
    if ((h >> 13) % 7 == 0)
        return false; /* filtered out */
    struct val *v = out;
    if (e->depth < P.max_depth && (h >> 17) % 3 == 0) {
        int64_t m = (h >> 21) % 4 == 0 ? (int64_t)((h >> 25) % (uint64_t)P.big) : (int64_t)((h >> 25) % 20);
        if (!reduce_node(h, e->depth + 1, m, v))
            *v = (struct val){ h & 0xff, 1.0 };
        return true;
    }
    v->h = h & 0xffff;
    v->f = (double)((h >> 16) & 0xffff) * 0x1p-7;
    return true;
}

static void leaves(void *envp, int64_t first, int64_t count, void *vals, unsigned char *has)
{
    const struct nenv *e = envp;
    for (int64_t q = 0; q < count; q++) {
        struct val acc = start, x;
        bool any = false;
        for (int64_t k = (first + q) * BRT_LEAF; k < e->n && k < (first + q + 1) * BRT_LEAF; k++) {
            if (!elem(envp, k, &x))
                continue;
            combine(envp, &acc, &x);
            any = true;
        }
        ((struct val *)vals)[q] = acc;
        has[q] = any;
    }
}

/* The reference: node (lo, size) of the tree, in post-order. */
static bool ref_node(const struct nenv *e, int64_t lo, int64_t size, int64_t nleaves, struct val *out)
{
    if (size == 1) {
        unsigned char has;
        leaves((void *)e, lo, 1, out, &has);
        return has;
    }
    struct val l, r;
    bool lh = ref_node(e, lo, size / 2, nleaves, &l);
    if (lo + size / 2 >= nleaves) {
        *out = l;
        return lh;
    }
    bool rh = ref_node(e, lo + size / 2, size / 2, nleaves, &r);
    if (lh && rh)
        combine((void *)e, &l, &r);
    *out = lh ? l : r;
    return lh || rh;
}

/* The wrong order: leaves folded left to right, ((l0 op l1) op l2) op ... */
static bool linear_node(const struct nenv *e, int64_t nleaves, struct val *out)
{
    bool any = false;
    for (int64_t L = 0; L < nleaves; L++) {
        struct val v;
        unsigned char has;
        leaves((void *)e, L, 1, &v, &has);
        if (has && any)
            combine((void *)e, out, &v);
        else if (has)
            *out = v;
        any = any || has;
    }
    return any;
}

static bool reduce_node(uint64_t id, int depth, int64_t n, struct val *out)
{
    struct nenv e = { id, depth, n };
    if (n <= 0)
        return false;
    int64_t nleaves = (n + BRT_LEAF - 1) / BRT_LEAF;
    if (P.ref && P.linear)
        return linear_node(&e, nleaves, out);
    if (P.ref) {
        int64_t size = 1;
        while (size < nleaves)
            size *= 2;
        return ref_node(&e, 0, size, nleaves, out);
    }
    int way = (int)(mix(id, 99) % 3); /* 0: leaves only; 1: a hot site; 2: an unmeasured one */
    brt_reduce r = { n, sizeof(struct val), &e, leaves, combine, NULL, NULL, NULL, NULL, NULL };
    if (way > 0) {
        r.elem = elem;
        r.start = &start;
        r.site = &sites[depth][way];
        /* the generated code's one-leaf fold in place (emit_par.c) */
        if (n <= BRT_LEAF && (mix(id, 98) & 1) && (!__atomic_load_n(&r.site->hot, __ATOMIC_RELAXED) || brt_reduce_inline())) {
            unsigned char has = 0;
            leaves(&e, 0, 1, out, &has);
            return has;
        }
    }
    return brt_reduce_tree(&r, out);
}

/* A top-level par fill of m nested reductions (the comprehension's rule:
 * the lowest index's panic). */
struct fenv { uint64_t id; };

static void fill_body(void *envp, int64_t lo, int64_t hi, void *data)
{
    const struct fenv *f = envp;
    for (int64_t i = lo; i < hi; i++) {
        struct nenv e = { f->id, 0, 1 };
        struct val v;
        if (!elem(&e, i, &v))
            v = (struct val){ 7, 7.0 };
        ((double *)data)[i] = v.f + (double)(v.h & 0xfff);
    }
}

struct outcome {
    bool has;
    struct val v;
    const brt_loc *loc;
    char msg[128];
};

static void outcome_of(uint64_t id, int64_t n, bool fill, struct outcome *o)
{
    memset(o, 0, sizeof *o);
    brt_trap trap;
    trap.panicked = 0;
    trap.msg = NULL;
    brt_trap_set(&trap);
    if (setjmp(trap.jb) != 0) {
        brt_trap_set(NULL);
        o->loc = trap.loc;
        snprintf(o->msg, sizeof o->msg, "%s", trap.msg ? trap.msg : "");
        free(trap.msg);
        return;
    }
    if (fill && !P.ref) {
        struct fenv f = { id };
        brt_fill bf = { n, &brt_t_float, &f, fill_body };
        brt_arr *a = brt_par_fill(&bf);
        for (int64_t i = 0; i < n; i++)
            o->v.f += BRT_AT(double, a, i) * (double)(i + 1);
        brt_arr_release(a);
        o->has = true;
    } else if (fill) {
        double *d = malloc((size_t)(n > 0 ? n : 1) * sizeof *d);
        struct fenv f = { id };
        fill_body(&f, 0, n, d);
        for (int64_t i = 0; i < n; i++)
            o->v.f += d[i] * (double)(i + 1);
        free(d);
        o->has = true;
    } else {
        o->has = reduce_node(id, 0, n, &o->v);
    }
    brt_trap_set(NULL);
}

static uint64_t rng = 0x2545F4914F6CDD1Dull;

/* One round of the shape in P: the pool's outcome against the reference,
 * half of the rounds with the random steal order. */
static void one_round(uint64_t id, int64_t n, bool fill, int round)
{
    brt_pool_chaos(round % 2 ? rng | 1 : 0);
    struct outcome want, got;
    P.ref = true;
    outcome_of(id, n, fill, &want);
    P.ref = false;
    outcome_of(id, n, fill, &got);
    cr_assert_eq(got.loc, want.loc, "round %d: panic at %s, want %s", round,
                 got.loc ? got.loc->file : "none", want.loc ? want.loc->file : "none");
    cr_assert_str_eq(got.msg, want.msg, "round %d", round);
    cr_assert_eq(got.has, want.has, "round %d: has", round);
    if (got.has) {
        cr_assert_eq(got.v.h, want.v.h, "round %d: tree shape", round);
        cr_assert(memcmp(&got.v.f, &want.v.f, sizeof(double)) == 0, "round %d: float bits %a vs %a",
                  round, got.v.f, want.v.f);
    }
}

static void stress(const char *threads, int rounds, int64_t big_n)
{
    setenv("BRINE_THREADS", threads, 1);
    brt_start(0, NULL);
    cr_assert_eq(brt_pool_threads(), atoi(threads));
    for (int round = 0; round < rounds; round++) {
        rng = mix(rng, (uint64_t)round);
        P.max_depth = (int)(rng % 5);
        P.cost_mask = (1ull << (rng >> 8) % 12) - 1;
        P.elem_panic = (rng >> 16) % 3 == 0 ? 0 : 20 + (rng >> 20) % 3000;
        P.comb_panic = (rng >> 32) % 3 == 0 ? 0 : 50 + (rng >> 36) % 5000;
        bool fill = (rng >> 44) % 4 == 0;
        /* 2,000: nested ones above 64 leaves, not too deep */
        P.big = (rng >> 40) % 4 == 0 && P.max_depth <= 2 ? 2000 : 400;
        int64_t n = (rng >> 48) % 8 == 0   ? (int64_t)((rng >> 51) % (uint64_t)big_n)
                    : (rng >> 48) % 4 == 1 ? (int64_t)((rng >> 50) % 3000)
                                           : (int64_t)((rng >> 50) % 70);
        if (n > 3000 || P.big > 400)
            P.cost_mask &= 63; /* many elements: cheap ones, and shallow */
        if (n > 3000 && P.max_depth > 1)
            P.max_depth = 1;
        one_round(mix(rng, 7), n, fill, round);
    }
    brt_pool_chaos(0);
}

Test(steal, stress_1_thread) { stress("1", 300, 20000); }
Test(steal, stress_2_threads) { stress("2", 300, 20000); }
Test(steal, stress_3_threads) { stress("3", 300, 20000); }
Test(steal, stress_7_threads) { stress("7", 200, 20000); }
Test(steal, stress_16_threads) { stress("16", 150, 10000); }
Test(steal, stress_64_threads) { stress("64", 100, 10000); }

/* Elements of tens of microseconds: past reduce.c's EAGER_ELEM_NS (20 us)
 * their frames keep some elements on offer at all times, not only when a
 * thread asks; results and panics must still be the reference's. */
static void eager(const char *threads)
{
    setenv("BRINE_THREADS", threads, 1);
    brt_start(0, NULL);
    for (int round = 0; round < 40; round++) {
        rng = mix(rng, (uint64_t)round + 1000);
        P.max_depth = (int)(rng % 3);
        P.cost_mask = (1ull << 19) - 1;
        P.elem_panic = (rng >> 16) % 2 ? 0 : 20 + (rng >> 20) % 300;
        P.comb_panic = (rng >> 32) % 2 ? 0 : 50 + (rng >> 36) % 500;
        P.big = 40;
        one_round(mix(rng, 7), 2 + (int64_t)((rng >> 48) % 60), false, round);
    }
    brt_pool_chaos(0);
    /* the top level's hot site was measured past the eager threshold */
    cr_assert(__atomic_load_n(&sites[0][1].ns, __ATOMIC_RELAXED) >= 20000, "elements of %lld ns",
              (long long)sites[0][1].ns);
}

Test(steal, eager_2_threads) { eager("2"); }
Test(steal, eager_7_threads) { eager("7"); }

/* The comparison can fail: a reference that folds the leaves left to right
 * (the sequential order, not the tree's) differs from the pool's result on
 * many rounds, and each round that differs would fail the stress test. */
static void wrong_order(const char *threads)
{
    setenv("BRINE_THREADS", threads, 1);
    brt_start(0, NULL);
    P.max_depth = 1;
    P.cost_mask = 15;
    P.elem_panic = 0;
    P.comb_panic = 0;
    P.big = 400;
    int differ = 0;
    for (int round = 0; round < 20; round++) {
        uint64_t id = mix(77, (uint64_t)round);
        int64_t n = 1000 + (int64_t)(mix(id, 5) % 5000);
        brt_pool_chaos(round % 2 ? id | 1 : 0);
        struct outcome right, wrong, got;
        P.ref = true;
        P.linear = false;
        outcome_of(id, n, false, &right);
        P.linear = true;
        outcome_of(id, n, false, &wrong);
        P.ref = false;
        P.linear = false;
        outcome_of(id, n, false, &got);
        cr_assert(got.v.h == right.v.h && memcmp(&got.v.f, &right.v.f, sizeof(double)) == 0, "round %d", round);
        differ += got.v.h != wrong.v.h;
    }
    brt_pool_chaos(0);
    cr_assert_eq(differ, 20, "a left-to-right fold matched the tree's on %d of 20 rounds", 20 - differ);
}

Test(steal, wrong_order_fails_2_threads) { wrong_order("2"); }

/* Many nested 2-element reductions as deep as a recursion goes: the
 * lazy splitting's frames and joins at depth. */
static bool deep_elem(void *envp, int64_t k, void *out);
struct denv { int depth; };
static brt_site deep_site;

static void deep_leaves(void *envp, int64_t first, int64_t count, void *vals, unsigned char *has)
{
    for (int64_t q = 0; q < count; q++) {
        struct val acc = start, x;
        for (int64_t k = (first + q) * BRT_LEAF; k < 2 && k < (first + q + 1) * BRT_LEAF; k++) {
            deep_elem(envp, k, &x);
            combine(envp, &acc, &x);
        }
        ((struct val *)vals)[q] = acc;
        has[q] = 1;
    }
}

static bool deep_elem(void *envp, int64_t k, void *out)
{
    const struct denv *e = envp;
    struct val *v = out;
    if (e->depth == 0) {
        *v = (struct val){ (uint64_t)k + 1, (double)k + 0.5 };
        return true;
    }
    struct denv child = { e->depth - 1 };
    brt_reduce r = { 2, sizeof(struct val), &child, deep_leaves, combine, NULL, NULL, deep_elem, &start, &deep_site };
    brt_reduce_tree(&r, out);
    return true;
}

static void deep(const char *threads)
{
    setenv("BRINE_THREADS", threads, 1);
    brt_start(0, NULL);
    P.comb_panic = 0;
    P.elem_panic = 0;
    struct denv e = { 16 };
    struct val want, got;
    deep_leaves(&e, 0, 1, &want, &(unsigned char){ 0 });
    for (int i = 0; i < 5; i++) {
        brt_pool_chaos(i % 2 ? 12345 : 0);
        deep_site.hot = 1;
        deep_site.ns = 1000;
        deep_site.count = 64;
        brt_reduce r = { 2, sizeof(struct val), &e, deep_leaves, combine, NULL, NULL, deep_elem, &start, &deep_site };
        cr_assert(brt_reduce_tree(&r, &got));
        cr_assert_eq(got.h, want.h);
        cr_assert(memcmp(&got.f, &want.f, sizeof(double)) == 0);
    }
}

Test(steal, deep_2_threads) { deep("2"); }
Test(steal, deep_7_threads) { deep("7"); }
