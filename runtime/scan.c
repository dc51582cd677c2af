/*
 * scan.c: par scans (SPEC 15), on the tree of SPEC 5.2.
 *
 * The generated C evaluates the elements (elems) and folds runs of values
 * with the combine inlined (lfold, lscan); this file lays out the tree and
 * decides who computes what. Values are plain bytes (no references), of
 * any size.
 *
 * Scan. Phase 1 evaluates the elements into their slots and folds each
 * leaf; every node (k, j) of the tree is then computed level by level
 * (node = merge of its two children; a missing or valueless child lets the
 * other move up). Phase 2 gives each leaf L its carry: L in binary, for
 * each 1 bit from the highest the node covering the next 2^bit leaves,
 * folded from the start value. The carry of L is the carry of L with its
 * lowest 1 bit cleared, merged with one node, so a task over an aligned
 * block of leaves computes its first carry from the nodes and every later
 * one with a single combine:
 *
 *     leaves  0 1 2 3 4 5 6 7 | 8 9 | 10 | 11
 *     carry(11) = ((start . node(3,0)) . node(1,4)) . node(0,10)
 *     carry(10) = carry(8) . node(1,4),  carry(11) = carry(10) . node(0,10)
 *
 * then runs the leaf from its carry, writing each entry. Both phases run on
 * the pool in blocks of UNIT leaves. Any panic there abandons the fast way
 * and the exact way runs on the calling thread, in the order SPEC 15 names:
 * the elements and the nodes in post-order, the carries for L ascending,
 * then the entries.
 *
 * par reduce(f, start, gen) of values the built-in tree cannot hold
 * (bigger than 16 bytes) folds here too (brt_fold_reduce), and each world
 * rank's share of a world.reduce (brt_world_fold_reduce). Reductions by key
 * are keyed.c's.
 */
#include "rt_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define UNIT 256 /* leaves per task */
#define MAX_LEV 64

/* dst = dst op src, a side without a value letting the other through. */
static void merge(const brt_fold *f, unsigned char *dst, unsigned char *dh, const unsigned char *src, bool sh)
{
    if (!sh)
        return;
    if (!*dh) {
        memcpy(dst, src, f->vsize);
        *dh = 1;
        return;
    }
    f->combine(f->env, dst, src);
}

/* ---- scan ---------------------------------------------------------------------- */

typedef struct scan_job {
    const brt_fold *f;
    int64_t n, nl;
    size_t vs;
    unsigned char *vals, *kept; /* kept: NULL without a filter */
    int nlev;
    int64_t lcount[MAX_LEV];
    unsigned char *lv[MAX_LEV], *lh[MAX_LEV];
    int64_t *off;               /* filter: each leaf's first entry */
    unsigned char *out;
    /* phase 2's scratch, one slice per unit, owned by the run (not by the
     * tasks, which a panic in f abandons): carries, their has-value flags,
     * and a running value per unit */
    unsigned char *car, *ch, *acc;
} scan_job;

static int64_t leaf_hi(const scan_job *s, int64_t L)
{
    int64_t hi = (L + 1) * BRT_LEAF;
    return hi > s->n ? s->n : hi;
}

/* Leaf L's value into level 0 (and its kept count into off[L]). */
static void leaf_value(scan_job *s, int64_t L)
{
    const brt_fold *f = s->f;
    int64_t lo = L * BRT_LEAF, hi = leaf_hi(s, L);
    unsigned char *acc = s->lv[0] + (size_t)L * s->vs;
    bool has = f->start != NULL;
    if (has)
        memcpy(acc, f->start, s->vs);
    int64_t c = f->lfold(f->env, s->vals + (size_t)lo * s->vs, s->kept ? s->kept + lo : NULL, hi - lo, acc, has);
    s->lh[0][L] = c > 0;
    if (s->off)
        s->off[L] = c;
}

static void node_value(scan_job *s, int k, int64_t j)
{
    size_t vs = s->vs;
    unsigned char *d = s->lv[k] + (size_t)j * vs, *dh = s->lh[k] + j;
    *dh = 0;
    merge(s->f, d, dh, s->lv[k - 1] + (size_t)(2 * j) * vs, s->lh[k - 1][2 * j]);
    if (2 * j + 1 < s->lcount[k - 1])
        merge(s->f, d, dh, s->lv[k - 1] + (size_t)(2 * j + 1) * vs, s->lh[k - 1][2 * j + 1]);
}

/* The end of the whole leaves from a (below b) that lfolds and lscans take:
 * unfiltered, with a start (every carry then has a value); a when none. */
static int64_t wholes(const scan_job *s, int64_t a, int64_t b)
{
    if (s->kept || !s->f->start || !s->f->lfolds)
        return a;
    int64_t w = s->n / BRT_LEAF;
    return w < b ? (w > a ? w : a) : b;
}

static void phase1(void *arg, int64_t u)
{
    scan_job *s = arg;
    int64_t a = u * UNIT, b = a + UNIT < s->nl ? a + UNIT : s->nl;
    int64_t lo = a * BRT_LEAF, hi = leaf_hi(s, b - 1);
    const brt_fold *f = s->f;
    if (!f->src)
        f->elems(f->env, lo, hi, s->vals + (size_t)lo * s->vs, s->kept ? s->kept + lo : NULL, NULL);
    int64_t L = a, whole = wholes(s, a, b);
    if (whole > a) {
        f->lfolds(f->env, s->vals + (size_t)lo * s->vs, whole - a, s->lv[0] + (size_t)a * s->vs, f->start);
        memset(s->lh[0] + a, 1, (size_t)(whole - a));
        L = whole;
    }
    for (; L < b; L++)
        leaf_value(s, L);
    int k = 1;
    if (whole == b && b - a == UNIT && f->lpairs)
        /* a whole unit of whole leaves: every node in it has a value */
        for (; k < s->nlev && (UNIT >> k) >= 1; k++) {
            f->lpairs(f->env, s->lv[k - 1] + (size_t)(a >> (k - 1)) * s->vs, UNIT >> k,
                      s->lv[k] + (size_t)(a >> k) * s->vs);
            memset(s->lh[k] + (a >> k), 1, (size_t)(UNIT >> k));
        }
    for (; k < s->nlev && (UNIT >> k) >= 1; k++)
        for (int64_t j = a >> k; j <= (b - 1) >> k; j++)
            node_value(s, k, j);
}

/* The carry of leaf L from the nodes (L's binary digits, highest first). */
static bool carry_of(scan_job *s, int64_t L, unsigned char *acc)
{
    const brt_fold *f = s->f;
    unsigned char has = f->start != NULL;
    if (has)
        memcpy(acc, f->start, s->vs);
    int64_t p = 0;
    for (int bit = s->nlev - 1; bit >= 0; bit--)
        if ((L >> bit) & 1) {
            int64_t j = p >> bit;
            merge(f, acc, &has, s->lv[bit] + (size_t)j * s->vs, s->lh[bit][j]);
            p += (int64_t)1 << bit;
        }
    return has;
}

/* Carries and entries of leaves [a, b), a aligned to a power of two >= b - a
 * (or 0), in ascending order; car/ch: room for b - a carries. */
static void carries_and_entries(scan_job *s, int64_t a, int64_t b, unsigned char *car, unsigned char *ch,
                                unsigned char *accp, bool entries)
{
    const brt_fold *f = s->f;
    size_t vs = s->vs;
    /* unfiltered, with a start: every node has a value */
    bool all = !s->kept && f->start;
    for (int64_t L = a; L < b; L++) {
        unsigned char *c = car + (size_t)(L - a) * vs;
        if (L == a) {
            ch[0] = carry_of(s, L, c);
        } else if (all) {
            int t = __builtin_ctzll((unsigned long long)L);
            brt_vcopy(c, car + (size_t)((L & (L - 1)) - a) * vs, vs);
            ch[L - a] = 1;
            f->combine(f->env, c, s->lv[t] + (size_t)((L >> t) - 1) * vs);
        } else {
            int64_t prev = L & (L - 1);
            int t = __builtin_ctzll((unsigned long long)L);
            memcpy(c, car + (size_t)(prev - a) * vs, vs);
            ch[L - a] = ch[prev - a];
            int64_t j = (L >> t) - 1;
            merge(f, c, &ch[L - a], s->lv[t] + (size_t)j * vs, s->lh[t][j]);
        }
    }
    if (!entries)
        return;
    int64_t L0 = wholes(s, a, b);
    if (L0 > a)
        f->lscans(f->env, s->vals + (size_t)a * BRT_LEAF * vs, L0 - a, car, s->out + (size_t)a * BRT_LEAF * vs);
    for (int64_t L = L0; L < b; L++) {
        int64_t lo = L * BRT_LEAF, hi = leaf_hi(s, L);
        memcpy(accp, car + (size_t)(L - a) * vs, vs);
        unsigned char *dst = s->out + (size_t)(s->off ? s->off[L] : lo) * vs;
        f->lscan(f->env, s->vals + (size_t)lo * vs, s->kept ? s->kept + lo : NULL, hi - lo, accp, ch[L - a] != 0, dst);
    }
}

static void phase2(void *arg, int64_t u)
{
    scan_job *s = arg;
    int64_t a = u * UNIT, b = a + UNIT < s->nl ? a + UNIT : s->nl;
    carries_and_entries(s, a, b, s->car + (size_t)a * s->vs, s->ch + a, s->acc + (size_t)u * s->vs, true);
}

/* Prefix sums of the leaves' kept counts: each leaf's first entry. */
static int64_t offsets(scan_job *s)
{
    int64_t total = 0;
    for (int64_t L = 0; L < s->nl; L++) {
        int64_t c = s->off[L];
        s->off[L] = total;
        total += c;
    }
    return total;
}

/* The exact way: one thread, SPEC 15's order of panics. */
static void scan_exact(scan_job *s)
{
    const brt_fold *f = s->f;
    size_t vs = s->vs;
    struct { int level; int64_t j; } st[MAX_LEV + 1];
    int sp = 0;
    for (int64_t L = 0; L < s->nl; L++) {
        int64_t lo = L * BRT_LEAF, hi = leaf_hi(s, L);
        if (!f->src)
            f->elems(f->env, lo, hi, s->vals + (size_t)lo * vs, s->kept ? s->kept + lo : NULL, NULL);
        leaf_value(s, L);
        st[sp].level = 0, st[sp].j = L, sp++;
        while (sp >= 2 && st[sp - 1].level == st[sp - 2].level) {
            int k = st[sp - 1].level + 1;
            int64_t j = st[sp - 1].j >> 1;
            node_value(s, k, j);
            sp--;
            st[sp - 1].level = k, st[sp - 1].j = j;
        }
    }
    /* the right spine, folded from the right (its combines may panic) */
    unsigned char *acc = brt_xmalloc(vs), *tmp = brt_xmalloc(vs);
    unsigned char ah = 0;
    for (int i = sp - 1; i >= 0; i--) {
        unsigned char th = 0;
        merge(f, tmp, &th, s->lv[st[i].level] + (size_t)st[i].j * vs, s->lh[st[i].level][st[i].j]);
        merge(f, tmp, &th, acc, ah);
        memcpy(acc, tmp, vs);
        ah = th;
    }
    free(acc);
    free(tmp);
    if (s->off)
        offsets(s);
    unsigned char *car = brt_xmalloc((size_t)s->nl * vs), *ch = brt_xmalloc((size_t)s->nl);
    carries_and_entries(s, 0, s->nl, car, ch, NULL, false);
    /* then the entries, in index order */
    _Alignas(16) unsigned char accb[256];
    unsigned char *accp = vs <= sizeof accb ? accb : brt_xmalloc(vs);
    for (int64_t L = 0; L < s->nl; L++) {
        int64_t lo = L * BRT_LEAF, hi = leaf_hi(s, L);
        memcpy(accp, car + (size_t)L * vs, vs);
        unsigned char *dst = s->out + (size_t)(s->off ? s->off[L] : lo) * vs;
        f->lscan(f->env, s->vals + (size_t)lo * vs, s->kept ? s->kept + lo : NULL, hi - lo, accp, ch[L] != 0, dst);
    }
    if (accp != accb)
        free(accp);
    free(car);
    free(ch);
}

/* Every node of the levels above the units (after every unit's phase 1). */
static void upper_nodes(scan_job *s)
{
    for (int k = 1; k < s->nlev; k++)
        if ((UNIT >> k) < 1)
            for (int64_t j = 0; j < s->lcount[k]; j++)
                node_value(s, k, j);
}

static bool scan_fast(scan_job *s)
{
    int64_t units = (s->nl + UNIT - 1) / UNIT;
    brt_trap panic;
    if (brt_pool_run(units, phase1, s, &panic) >= 0) {
        free(panic.msg);
        return false;
    }
    brt_trap trap, *outer = brt_trap_get();
    trap.panicked = 0;
    trap.msg = NULL;
    brt_trap_set(&trap);
    if (setjmp(trap.jb) != 0) {
        brt_trap_set(outer);
        free(trap.msg);
        return false;
    }
    upper_nodes(s);
    brt_trap_set(outer);
    return true;
}

/* One thread and no filter: each unit's carries and entries right after
 * its leaves and nodes (phase 1, then phase 2 of the same unit), while its
 * values are in cache, instead of every unit's phase 1 and then every
 * unit's phase 2 (the source read twice from memory). A unit's first carry
 * needs only nodes over earlier leaves: the nodes within earlier units, and
 * those above the units that are whole by then, computed as soon as they
 * are. At the end every node above the units is computed as scan_fast
 * does, so a combine that panics there still sends the scan the exact way.
 * The same values, nodes and carries as the two phases, so the same bits. */
static bool scan_one_thread(scan_job *s)
{
    int64_t units = (s->nl + UNIT - 1) / UNIT;
    s->car = brt_xmalloc((size_t)s->nl * s->vs);
    s->ch = brt_xmalloc((size_t)s->nl);
    s->acc = brt_xmalloc((size_t)units * s->vs);
    brt_trap trap, *outer = brt_trap_get();
    trap.panicked = 0;
    trap.msg = NULL;
    brt_trap_set(&trap);
    bool ok = false;
    if (setjmp(trap.jb) == 0) {
        for (int64_t u = 0; u < units; u++) {
            phase1(s, u);
            int64_t end = (u + 1) * UNIT; /* leaves done: whole nodes above the units */
            for (int k = 1; k < s->nlev && end <= s->nl; k++)
                if ((UNIT >> k) < 1 && end % ((int64_t)1 << k) == 0)
                    node_value(s, k, (end >> k) - 1);
            phase2(s, u);
        }
        upper_nodes(s);
        ok = true;
    }
    brt_trap_set(outer);
    free(trap.msg);
    free(s->car);
    free(s->ch);
    free(s->acc);
    return ok;
}

/* The scan's buffers and array: a panic of the exact way that leaves the
 * frame (to an outer trap) frees them (brt_owner, brine_rt.h). */
struct scan_owner {
    brt_owner o;
    scan_job *s;
    brt_arr **out;
};

static void scan_free(scan_job *s)
{
    if (s->f->filtered) {
        free(s->vals);
        free(s->kept);
        free(s->off);
    }
    for (int k = 0; k < s->nlev; k++) {
        free(s->lv[k]);
        free(s->lh[k]);
    }
}

static void scan_drop(brt_owner *o)
{
    struct scan_owner *so = (struct scan_owner *)o;
    scan_free(so->s);
    brt_arr_release(*so->out);
}

brt_arr *brt_scan_run(const brt_fold *f, const brt_type *elem)
{
    int64_t n = f->n;
    if (n <= 0)
        return brt_arr_new(elem, 0);
    scan_job s;
    memset(&s, 0, sizeof s);
    s.f = f;
    s.n = n;
    s.vs = f->vsize;
    s.nl = (n + BRT_LEAF - 1) / BRT_LEAF;
    s.lcount[0] = s.nl;
    s.nlev = 1;
    while (s.lcount[s.nlev - 1] > 1) {
        s.lcount[s.nlev] = (s.lcount[s.nlev - 1] + 1) / 2;
        s.nlev++;
    }
    for (int k = 0; k < s.nlev; k++) {
        s.lv[k] = brt_xmalloc((size_t)s.lcount[k] * s.vs);
        s.lh[k] = brt_xcalloc((size_t)s.lcount[k]);
    }
    brt_arr *out = NULL;
    if (f->filtered) {
        s.vals = brt_xmalloc((size_t)n * s.vs);
        s.kept = brt_xmalloc((size_t)n);
        s.off = brt_xmalloc((size_t)s.nl * sizeof *s.off);
    } else {
        /* the entries overwrite the values they were computed from, or
         * read the source array in place */
        out = brt_arr_alloc(elem, 0, n);
        s.vals = f->src ? (unsigned char *)f->src : out->data;
        s.out = out->data;
    }
    struct scan_owner so;
    brt_own_push_rt(&so.o, NULL, 0);
    so.o.drop = scan_drop;
    so.s = &s;
    so.out = &out;
    /* the fast way on one thread too: its generated runs of four leaves
     * cost less than the exact way's leaf at a time */
    bool fast = f->par && s.nl >= 2 && (brt_pool_threads() == 1 || !brt_pool_nested());
    if (fast && !f->filtered && brt_pool_threads() == 1) {
        fast = scan_one_thread(&s);
        if (fast)
            out->len = n;
    } else if (fast && scan_fast(&s)) {
        int64_t total = s.off ? offsets(&s) : n;
        if (f->filtered) {
            out = brt_arr_alloc(elem, 0, total);
            s.out = out->data;
        }
        int64_t units = (s.nl + UNIT - 1) / UNIT;
        s.car = brt_xmalloc((size_t)s.nl * s.vs);
        s.ch = brt_xmalloc((size_t)s.nl);
        s.acc = brt_xmalloc((size_t)units * s.vs);
        brt_trap panic;
        int64_t failed = brt_pool_run(units, phase2, &s, &panic);
        free(s.car);
        free(s.ch);
        free(s.acc);
        if (failed >= 0) {
            free(panic.msg);
            fast = false;
        } else {
            out->len = total;
        }
    } else {
        fast = false;
    }
    if (!fast) {
        if (f->filtered) {
            if (out)
                brt_arr_release(out);
            out = brt_arr_alloc(elem, 0, n);
            s.out = out->data;
        }
        scan_exact(&s);
        out->len = n;
        if (s.off) {
            /* the last leaf's first entry plus its kept count */
            int64_t c = 0;
            for (int64_t k = (s.nl - 1) * BRT_LEAF; k < n; k++)
                c += s.kept[k] != 0;
            out->len = s.off[s.nl - 1] + c;
        }
    }
    brt_own_pop_rt(&so.o);
    scan_free(&s);
    return out;
}

/* ---- par reduce(f, start, gen) ------------------------------------------------------
 *
 * The tree of SPEC 5.2 with f as the combine. Phase 1 (tasks of UNIT
 * leaves, each an aligned subtree) evaluates a unit's elements into a
 * buffer of its own, folds its leaves and combines them up to the unit's
 * root; the units' roots then combine level by level. Memory O(n / UNIT
 * / 16). A panic abandons that for the exact way: one thread, leaves in
 * order, each node's combine right after its children (SPEC 5.3). */

typedef struct red_job {
    const brt_fold *f;
    int64_t n, nl;
    size_t vs;
    unsigned char *roots, *rhas; /* per unit */
} red_job;

/* Leaf L's value into acc; returns whether it has one. buf: room for one
 * leaf's values. */
static bool red_leaf(const red_job *r, int64_t L, unsigned char *buf, unsigned char *acc)
{
    const brt_fold *f = r->f;
    int64_t lo = L * BRT_LEAF, hi = lo + BRT_LEAF < r->n ? lo + BRT_LEAF : r->n;
    unsigned char kept[BRT_LEAF];
    f->elems(f->env, lo, hi, buf, f->filtered ? kept : NULL, NULL);
    bool has = f->start != NULL;
    if (has)
        memcpy(acc, f->start, r->vs);
    return f->lfold(f->env, buf, f->filtered ? kept : NULL, hi - lo, acc, has) > 0;
}

/* Leaves [a, b) folded in post-order with a stack of completed subtrees;
 * returns whether the result has a value (in out). */
static bool red_block(const red_job *r, int64_t a, int64_t b, unsigned char *out)
{
    size_t vs = r->vs;
    unsigned char *buf = brt_xmalloc((size_t)BRT_LEAF * vs);
    unsigned char *stk = brt_xmalloc((size_t)(MAX_LEV + 2) * vs);
    unsigned char sh[MAX_LEV + 2];
    int lev[MAX_LEV + 2];
    int sp = 0;
    for (int64_t L = a; L < b; L++) {
        sh[sp] = red_leaf(r, L, buf, stk + (size_t)sp * vs);
        lev[sp] = 0;
        sp++;
        while (sp >= 2 && lev[sp - 1] == lev[sp - 2]) {
            merge(r->f, stk + (size_t)(sp - 2) * vs, &sh[sp - 2], stk + (size_t)(sp - 1) * vs, sh[sp - 1]);
            lev[sp - 2]++;
            sp--;
        }
    }
    /* the right spine, from the right */
    for (int i = sp - 2; i >= 0; i--) {
        merge(r->f, stk + (size_t)i * vs, &sh[i], stk + (size_t)(i + 1) * vs, sh[i + 1]);
    }
    bool has = sp > 0 && sh[0];
    if (has)
        memcpy(out, stk, vs);
    free(buf);
    free(stk);
    return has;
}

static void red_unit(void *arg, int64_t u)
{
    red_job *r = arg;
    int64_t a = u * UNIT, b = a + UNIT < r->nl ? a + UNIT : r->nl;
    r->rhas[u] = red_block(r, a, b, r->roots + (size_t)u * r->vs);
}

bool brt_fold_reduce(const brt_fold *f, void *out)
{
    if (f->n <= 0)
        return false;
    red_job r;
    r.f = f;
    r.n = f->n;
    r.vs = f->vsize;
    r.nl = (f->n + BRT_LEAF - 1) / BRT_LEAF;
    int64_t units = (r.nl + UNIT - 1) / UNIT;
    if (f->par && units >= 2 && brt_pool_threads() > 1 && !brt_pool_nested()) {
        r.roots = brt_xmalloc((size_t)units * r.vs);
        r.rhas = brt_xmalloc((size_t)units);
        brt_trap panic;
        volatile bool ok = brt_pool_run(units, red_unit, &r, &panic) < 0;
        if (!ok)
            free(panic.msg);
        if (ok) {
            brt_trap trap, *outer = brt_trap_get();
            trap.panicked = 0;
            trap.msg = NULL;
            brt_trap_set(&trap);
            if (setjmp(trap.jb) == 0) {
                /* the units' roots, level by level (aligned subtrees of the one tree) */
                for (int64_t cnt = units; cnt > 1; cnt = (cnt + 1) / 2)
                    for (int64_t j = 0; 2 * j < cnt; j++) {
                        unsigned char *d = r.roots + (size_t)j * r.vs;
                        unsigned char dh = r.rhas[2 * j];
                        if (j != 2 * j)
                            memcpy(d, r.roots + (size_t)(2 * j) * r.vs, r.vs);
                        if (2 * j + 1 < cnt)
                            merge(f, d, &dh, r.roots + (size_t)(2 * j + 1) * r.vs, r.rhas[2 * j + 1]);
                        r.rhas[j] = dh;
                    }
            } else {
                ok = false;
                free(trap.msg);
            }
            brt_trap_set(outer);
        }
        bool has = r.rhas[0];
        if (ok && has)
            memcpy(out, r.roots, r.vs);
        free(r.roots);
        free(r.rhas);
        if (ok)
            return has;
    }
    return red_block(&r, 0, r.nl, out);
}

/* ---- world.reduce(f, start, gen) ----------------------------------------------------
 *
 * Values of up to 16 bytes go through the world driver of the built-in
 * reductions (world.c: each rank evaluates its aligned blocks of leaves,
 * the roots meet on every rank): a brt_reduce whose leaves() evaluates
 * a leaf's elements and folds them with lfold. Larger values: world.c's
 * split of the same blocks, each rank's blocks' roots meeting on every
 * rank (brt_world_fold_reduce_rows). */

static void adapt_leaves(void *env, int64_t first, int64_t count, void *vals, unsigned char *has)
{
    const brt_fold *f = env;
    size_t vs = f->vsize;
    _Alignas(16) unsigned char buf[BRT_LEAF * 16];
    unsigned char kept[BRT_LEAF];
    for (int64_t q = 0; q < count; q++) {
        int64_t lo = (first + q) * BRT_LEAF, hi = lo + BRT_LEAF < f->n ? lo + BRT_LEAF : f->n;
        f->elems(f->env, lo, hi, buf, f->filtered ? kept : NULL, NULL);
        unsigned char *acc = (unsigned char *)vals + (size_t)q * vs;
        bool st = f->start != NULL;
        if (st)
            memcpy(acc, f->start, vs);
        has[q] = f->lfold(f->env, buf, f->filtered ? kept : NULL, hi - lo, acc, st) > 0;
    }
}

static void adapt_combine(void *env, void *l, const void *r)
{
    const brt_fold *f = env;
    f->combine(f->env, l, r);
}

bool brt_world_fold_reduce(const brt_fold *f, const brt_loc *loc, void *out)
{
    if (f->vsize > 16)
        return brt_world_fold_reduce_rows(f, loc, out);
    brt_reduce r;
    memset(&r, 0, sizeof r);
    r.n = f->n;
    r.vsize = f->vsize;
    r.env = (void *)f;
    r.leaves = adapt_leaves;
    r.combine = adapt_combine;
    r.loc = loc;
    return brt_world_reduce_tree(&r, NULL, out);
}
