/* The pool computes the one tree of SPEC 5.2, whatever the thread count:
 * brt_reduce_tree against a direct recursive reference for every n from 0 to
 * 5,000 (and a spread of larger n) with random filters, at 1, 2, 3, 7, 16
 * and 64 threads; the panic reported is the one a single thread walking the
 * tree in post-order meets first (SPEC 5.3), with element panics and combine
 * overflows injected at random places; par collect and par find give the
 * sequential answer and the lowest-index panic, and so do par fill and
 * brt_par_for (range loops on the pool, rows shared by every slot copied
 * on store). Each Test runs in its own process (Criterion forks), so each
 * sets its own BRINE_THREADS. */
#ifdef MINI_CRITERION
#include "mini_criterion.h"
#else
#include <criterion/criterion.h>
#endif
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_internal.h"

#define MAXN 200000

struct val { uint64_t h; double f; }; /* order- and shape-sensitive */

struct env {
    int64_t n;
    double *xs;
    unsigned char *keep;
    int64_t panic_elem;   /* element whose evaluation panics, or -1 */
    uint64_t panic_hash;  /* a combine whose left hash matches this overflows */
};

static const brt_loc elem_loc = { "elem.br", 1, 1 };
static const brt_loc comb_loc = { "comb.br", 2, 2 };

static bool fold_leaf(const struct env *e, int64_t leaf, struct val *v)
{
    bool has = false;
    v->h = 0;
    v->f = 0.0;
    for (int64_t i = leaf * BRT_LEAF; i < e->n && i < (leaf + 1) * BRT_LEAF; i++) {
        if (i == e->panic_elem)
            brt_panic(&elem_loc, BRT_DIV_ZERO);
        if (!e->keep[i])
            continue;
        has = true;
        v->h = v->h * 31 + (uint64_t)i + 1;
        v->f = v->f + e->xs[i];
    }
    return has;
}

static void leaves(void *envp, int64_t first, int64_t count, void *vals, unsigned char *has)
{
    for (int64_t k = 0; k < count; k++)
        has[k] = fold_leaf(envp, first + k, (struct val *)vals + k);
}

static void combine(void *envp, void *leftp, const void *rightp)
{
    const struct env *e = envp;
    struct val *l = leftp;
    const struct val *r = rightp;
    if (e->panic_hash && (l->h & 0xff) == e->panic_hash)
        brt_panic(&comb_loc, BRT_OV_ADD);
    l->h = l->h * 1000003 ^ (r->h + 0x9e3779b97f4a7c15ull);
    l->f = l->f + r->f;
}

/* The reference, in post-order; *panicked gets the first panic's place. */
static bool ref(const struct env *e, int64_t lo, int64_t size, int64_t nleaves, struct val *out,
                const brt_loc **panicked)
{
    if (*panicked)
        return false;
    if (size == 1) {
        for (int64_t i = lo * BRT_LEAF; i < e->n && i < (lo + 1) * BRT_LEAF; i++)
            if (i == e->panic_elem) {
                *panicked = &elem_loc;
                return false;
            }
        return fold_leaf(e, lo, out);
    }
    int64_t half = size / 2;
    struct val l, r;
    bool lh = ref(e, lo, half, nleaves, &l, panicked);
    if (lo + half >= nleaves) {
        *out = l;
        return lh;
    }
    bool rh = ref(e, lo + half, half, nleaves, &r, panicked);
    if (*panicked)
        return false;
    if (lh && rh) {
        if (e->panic_hash && (l.h & 0xff) == e->panic_hash) {
            *panicked = &comb_loc;
            return false;
        }
        combine((void *)e, &l, &r);
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

static struct env make_env(int64_t n)
{
    static double xs[MAXN];
    static unsigned char keep[MAXN];
    struct env e = { n, xs, keep, -1, 0 };
    int density = (int)(rnd() % 6); /* all, most, some, rare, none, leaf-sized holes */
    int64_t hole = (int64_t)(rnd() % 64) * BRT_LEAF;
    for (int64_t i = 0; i < n; i++) {
        xs[i] = ldexp((double)(rnd() % 1000000) + 1, (int)(rnd() % 60) - 30);
        uint64_t r = rnd() % 100;
        keep[i] = density == 0 ? 1 : density == 1 ? r < 80 : density == 2 ? r < 20
                : density == 3 ? r < 1 : density == 4 ? 0 : (i / 1024) % 2 == 0 || i < hole;
    }
    return e;
}

/* Runs brt_reduce_tree under a trap: returns the panic's place, or NULL. */
static const brt_loc *run(struct env *e, struct val *got, bool *has)
{
    brt_trap trap;
    trap.panicked = 0;
    trap.msg = NULL;
    brt_trap_set(&trap);
    if (setjmp(trap.jb) != 0) {
        brt_trap_set(NULL);
        free(trap.msg);
        return trap.loc;
    }
    brt_reduce red = { e->n, sizeof(struct val), e, leaves, combine, NULL, NULL };
    *has = brt_reduce_tree(&red, got);
    brt_trap_set(NULL);
    return NULL;
}

static void check_n(int64_t n, bool inject)
{
    struct env e = make_env(n);
    if (inject && n > 0) {
        switch (rnd() % 3) {
        case 0: e.panic_elem = (int64_t)(rnd() % (uint64_t)n); break;
        case 1: e.panic_hash = 1 + rnd() % 255; break;
        default: e.panic_elem = (int64_t)(rnd() % (uint64_t)n); e.panic_hash = 1 + rnd() % 255; break;
        }
    }
    struct val got = { 0, 0 }, want = { 0, 0 };
    bool has = false, want_has = false;
    const brt_loc *panicked = run(&e, &got, &has);
    const brt_loc *want_panic = NULL;
    int64_t nleaves = (n + BRT_LEAF - 1) / BRT_LEAF;
    if (nleaves > 0) {
        int64_t size = 1;
        while (size < nleaves)
            size *= 2;
        want_has = ref(&e, 0, size, nleaves, &want, &want_panic);
    }
    cr_assert_eq(panicked, want_panic, "n=%lld: panic %s, want %s", (long long)n,
                 panicked ? panicked->file : "none", want_panic ? want_panic->file : "none");
    if (panicked)
        return;
    cr_assert_eq(has, want_has, "n=%lld: has", (long long)n);
    if (has) {
        cr_assert_eq(got.h, want.h, "n=%lld: tree shape", (long long)n);
        cr_assert(memcmp(&got.f, &want.f, sizeof(double)) == 0, "n=%lld: float bits %a vs %a",
                  (long long)n, got.f, want.f);
    }
}

static void every_n(const char *threads)
{
    setenv("BRINE_THREADS", threads, 1);
    brt_start(0, NULL);
    cr_assert_eq(brt_pool_threads(), atoi(threads));
    for (int64_t n = 0; n <= 5000; n++)
        check_n(n, false);
    for (int k = 0; k < 60; k++)
        check_n((int64_t)(rnd() % MAXN), false);
    for (int64_t n = 2040; n <= 2060; n++) /* around the first parallel size */
        check_n(n, false);
    check_n(MAXN, false);
}

static void panics(const char *threads)
{
    setenv("BRINE_THREADS", threads, 1);
    brt_start(0, NULL);
    for (int k = 0; k < 1500; k++)
        check_n((int64_t)(rnd() % (k < 1000 ? 6000 : MAXN)), true);
}

Test(pool, tree_1_thread) { every_n("1"); }
Test(pool, tree_2_threads) { every_n("2"); }
Test(pool, tree_3_threads) { every_n("3"); }
Test(pool, tree_7_threads) { every_n("7"); }
Test(pool, tree_16_threads) { every_n("16"); }
Test(pool, tree_64_threads) { every_n("64"); }
Test(pool, panic_order_1_thread) { panics("1"); }
Test(pool, panic_order_2_threads) { panics("2"); }
Test(pool, panic_order_7_threads) { panics("7"); }
Test(pool, panic_order_64_threads) { panics("64"); }

/* ---- par collect and par find ---- */

struct cenv { int64_t panic_at; };

static void body(void *envp, int64_t lo, int64_t hi, brt_arr **out)
{
    const struct cenv *e = envp;
    for (int64_t i = lo; i < hi; i++) {
        if (i >= e->panic_at && i % 1000 == 7)
            brt_panic_index(&elem_loc, 3, i);
        if (i % 3 == 0)
            continue;
        brt_str *s = brt_to_str(&brt_t_int, &i);
        *out = brt_arr_push(*out, &s);
    }
}

/* Runs run(arg) under a trap; the panic must be element 7007's (the lowest
 * of 7007, 8007, ...). */
static void expect_lowest_panic(void (*run)(const void *), const void *arg)
{
    brt_trap trap;
    trap.panicked = 0;
    trap.msg = NULL;
    brt_trap_set(&trap);
    if (setjmp(trap.jb) == 0) {
        run(arg);
        cr_assert_fail("no panic");
    }
    brt_trap_set(NULL);
    cr_assert_str_eq(trap.msg, "index out of bounds: the len is 3 but the index is 7007");
    free(trap.msg);
}

static void run_collect(const void *c) { brt_arr_release(brt_par_collect(c)); }

static void collect(const char *threads)
{
    setenv("BRINE_THREADS", threads, 1);
    brt_start(0, NULL);
    for (int64_t n = 0; n < 30000; n = n * 3 + 1) {
        struct cenv e = { INT64_MAX };
        brt_collect c = { n, &brt_t_str, &e, body };
        brt_arr *a = brt_par_collect(&c);
        int64_t k = 0;
        for (int64_t i = 0; i < n; i++) {
            if (i % 3 == 0)
                continue;
            char want[32];
            snprintf(want, sizeof want, "%lld", (long long)i);
            cr_assert_str_eq(BRT_AT(brt_str *, a, k)->data, want);
            k++;
        }
        cr_assert_eq(a->len, k);
        brt_arr_release(a);
    }
    /* The lowest index panics: elements 7007, 8007, ... all panic. */
    struct cenv e = { 7000 };
    brt_collect c = { 29999, &brt_t_str, &e, body };
    expect_lowest_panic(run_collect, &c);
}

Test(pool, collect_1_thread) { collect("1"); }
Test(pool, collect_2_threads) { collect("2"); }
Test(pool, collect_7_threads) { collect("7"); }

struct fenv { int64_t decide_at, panic_at; };

static int64_t find_body(void *envp, int64_t lo, int64_t hi)
{
    const struct fenv *e = envp;
    for (int64_t i = lo; i < hi; i++) {
        if (i == e->panic_at)
            brt_panic(&elem_loc, BRT_DIV_ZERO);
        if (i == e->decide_at)
            return i;
    }
    return -1;
}

/* brt_par_find under a trap: true if it panicked. */
static bool trapped_find(int64_t n, struct fenv *e, int64_t *got)
{
    brt_trap trap;
    trap.panicked = 0;
    trap.msg = NULL;
    brt_trap_set(&trap);
    if (setjmp(trap.jb) == 0) {
        *got = brt_par_find(n, e, find_body);
        brt_trap_set(NULL);
        return false;
    }
    brt_trap_set(NULL);
    free(trap.msg);
    return true;
}

static void find(const char *threads)
{
    setenv("BRINE_THREADS", threads, 1);
    brt_start(0, NULL);
    for (int k = 0; k < 400; k++) {
        int64_t n = (int64_t)(rnd() % 100000);
        struct fenv e = { (int64_t)(rnd() % 120000), rnd() % 2 ? (int64_t)(rnd() % 120000) : -1 };
        int64_t want = -1;
        bool want_panic = false;
        for (int64_t i = 0; i < n; i++) {
            if (i == e.panic_at) { want_panic = true; break; }
            if (i == e.decide_at) { want = i; break; }
        }
        int64_t got;
        bool panicked = trapped_find(n, &e, &got);
        cr_assert_eq(panicked, want_panic, "n=%lld decide=%lld panic=%lld", (long long)n,
                     (long long)e.decide_at, (long long)e.panic_at);
        if (!want_panic)
            cr_assert_eq(got, want);
    }
}

Test(pool, find_1_thread) { find("1"); }
Test(pool, find_2_threads) { find("2"); }
Test(pool, find_16_threads) { find("16"); }

/* ---- par fill (unfiltered comprehensions) ---- */

static void fill_body(void *envp, int64_t lo, int64_t hi, void *data)
{
    const struct cenv *e = envp;
    for (int64_t i = lo; i < hi; i++) {
        if (i >= e->panic_at && i % 1000 == 7)
            brt_panic_index(&elem_loc, 3, i);
        ((brt_str **)data)[i] = brt_to_str(&brt_t_int, &i);
    }
}

static void run_fill(const void *f) { brt_arr_release(brt_par_fill(f)); }

static void fill(const char *threads)
{
    setenv("BRINE_THREADS", threads, 1);
    brt_start(0, NULL);
    for (int64_t n = 0; n < 30000; n = n * 3 + 1) {
        struct cenv e = { INT64_MAX };
        brt_fill f = { n, &brt_t_str, &e, fill_body };
        brt_arr *a = brt_par_fill(&f);
        cr_assert_eq(a->len, n);
        for (int64_t i = 0; i < n; i++) {
            char want[32];
            snprintf(want, sizeof want, "%lld", (long long)i);
            cr_assert_str_eq(BRT_AT(brt_str *, a, i)->data, want);
        }
        brt_arr_release(a);
    }
    /* The lowest index panics: elements 7007, 8007, ... all panic. */
    struct cenv e = { 7000 };
    brt_fill f = { 29999, &brt_t_str, &e, fill_body };
    expect_lowest_panic(run_fill, &f);
}

Test(pool, fill_1_thread) { fill("1"); }
Test(pool, fill_2_threads) { fill("2"); }
Test(pool, fill_7_threads) { fill("7"); }

/* ---- range loops on the pool (brt_par_for, compiler/opt_parfor.c) ---- */

static const brt_type t_row = { .kind = BRT_ARR, .elem = &brt_t_float };
#define FOR_LO (-5000)

struct forenv { int64_t panic_at; int64_t *hits; brt_arr *rows; };

/* Iteration i: counts its visit, and stores into its own slot of rows, every
 * slot holding the same shared row at first (copied on store: the counts
 * change on many threads at once, which check-tsan watches). */
static void for_body(void *envp, int64_t lo, int64_t hi)
{
    const struct forenv *e = envp;
    for (int64_t i = lo; i < hi; i++) {
        if (i >= e->panic_at && (i - FOR_LO) % 1000 == 7)
            brt_panic_index(&elem_loc, 3, i - FOR_LO);
        e->hits[i - FOR_LO]++;
        brt_arr **slot = &BRT_AT(brt_arr *, e->rows, i - FOR_LO);
        *slot = brt_arr_unique(*slot);
        BRT_AT(double, *slot, 0) = (double)i;
    }
}

static void run_for(const void *envp)
{
    const struct forenv *e = envp;
    brt_par_for(FOR_LO, FOR_LO + e->rows->len, (void *)e, for_body);
}

/* n slots holding one row [0.0, 0.5] (returned in *row, one reference kept). */
static brt_arr *shared_rows(int64_t n, brt_arr **row)
{
    *row = brt_arr_new(&brt_t_float, 2);
    BRT_AT(double, *row, 1) = 0.5;
    brt_arr *rows = brt_arr_new(&t_row, 0);
    for (int64_t i = 0; i < n; i++) {
        brt_retain(*row);
        rows = brt_arr_push(rows, row);
    }
    return rows;
}

static void par_for_test(const char *threads)
{
    setenv("BRINE_THREADS", threads, 1);
    brt_start(0, NULL);
    brt_arr *row;
    for (int64_t n = 0; n < 30000; n = n * 3 + 1) {
        brt_arr *rows = shared_rows(n, &row);
        struct forenv e = { INT64_MAX, calloc((size_t)n + 1, sizeof(int64_t)), rows };
        run_for(&e);
        for (int64_t i = 0; i < n; i++) {
            brt_arr *r = BRT_AT(brt_arr *, rows, i);
            cr_assert_eq(e.hits[i], 1, "n=%lld i=%lld", (long long)n, (long long)i);
            cr_assert_eq(r->rc, 1);
            cr_assert(BRT_AT(double, r, 0) == (double)(i + FOR_LO) && BRT_AT(double, r, 1) == 0.5);
        }
        cr_assert_eq(row->rc, 1); /* every slot copied it and let go */
        brt_arr_release(row);
        brt_arr_release(rows);
        free(e.hits);
    }
    /* The lowest iteration panics: 7007, 8007, ... (from the range's start) all panic. */
    brt_arr *rows = shared_rows(29999, &row);
    struct forenv e = { FOR_LO + 7000, calloc(29999, sizeof(int64_t)), rows };
    expect_lowest_panic(run_for, &e);
    brt_arr_release(row);
    brt_arr_release(rows);
    free(e.hits);
}

Test(pool, for_1_thread) { par_for_test("1"); }
Test(pool, for_2_threads) { par_for_test("2"); }
Test(pool, for_7_threads) { par_for_test("7"); }

/* Array data and blocks handed back: rows allocated by pool tasks and
 * released by the main thread go back to the thread that allocated each
 * (value.c), so the next rows a thread allocates are its own, never another
 * thread's (before,
 * the main thread's cache kept them all and handed workers' rows to main).
 * Under ThreadSanitizer (make check-tsan) this also checks the hand-back's
 * CAS and exchange for races. */
#define HB_TASKS 64
struct handback {
    brt_arr *a[HB_TASKS];
    brt_tcache *tc[HB_TASKS];
    void *data[HB_TASKS];
};

static void handback_task(void *arg, int64_t t)
{
    struct handback *h = arg;
    h->a[t] = brt_arr_new(&brt_t_float, 500); /* 4000 bytes: a cached size */
    h->tc[t] = brt_tcache_here();
    h->data[t] = h->a[t]->data;
    for (int64_t i = 0; i < 500; i++) {
        cr_assert(((double *)h->a[t]->data)[i] == 0.0);
        ((double *)h->a[t]->data)[i] = (double)t;
    }
}

static void handback_test(const char *threads)
{
    setenv("BRINE_THREADS", threads, 1);
    brt_start(0, NULL);
    static struct handback before, after;
    int64_t reused = 0;
    for (int round = 0; round < 50; round++) {
        cr_assert_eq(brt_pool_run(HB_TASKS, handback_task, &before, NULL), -1);
        for (int t = 0; t < HB_TASKS; t++) brt_arr_release(before.a[t]); /* all on main */
        cr_assert_eq(brt_pool_run(HB_TASKS, handback_task, &after, NULL), -1);
        for (int t = 0; t < HB_TASKS; t++) {
            for (int k = 0; k < HB_TASKS; k++) {
                if (after.data[t] == before.data[k]) {
                    cr_assert_eq(after.tc[t], before.tc[k], "round %d: a row went to another thread", round);
                    reused++;
                }
                if (after.a[t] == before.a[k])
                    cr_assert_eq(after.tc[t], before.tc[k], "round %d: a block went to another thread", round);
            }
            brt_arr_release(after.a[t]);
        }
    }
    cr_assert(reused > 0);
}

Test(pool, handback_1_thread) { handback_test("1"); }
Test(pool, handback_2_threads) { handback_test("2"); }
Test(pool, handback_7_threads) { handback_test("7"); }
