/*
 * keyed.c: reductions by key (SPEC 15, `by KEY in 0..N`) on the tree of
 * SPEC 5.2: key j's result is the reduction of the elements whose key is
 * j, each key's elements combining in the one tree over all positions.
 * The generated C evaluates the elements and folds them with the combine
 * inlined (brt_fold's kleaf, kmerge, kstamp, kcoll, kstk, kroots); this
 * file picks a way by the number of keys and elements and runs it on the
 * pool.
 *
 * Up to ROW_KEYS keys: aligned units of leaves on the pool, each
 * folding its leaves' elements straight into per-key accumulators (kleaf)
 * and combining them as the tree does, a row of all keys at a time; the
 * units' roots then meet level by level. Up to STAMP_KEYS keys with 16
 * elements a key or more: the same units cut into aligned blocks of
 * leaves, each block's elements folded straight into its row of all keys
 * where a key's first leaf in the block takes them (kstamp), the few
 * others onto per-key stacks (kcoll), the blocks' rows then merged as the
 * leaves' rows are (unit_stamps). More keys: the elements are evaluated
 * once (key -1: filtered out) by chunks of positions, which
 * append them stably to lists of blocks per bucket of keys, and each
 * bucket's elements go onto their keys' stacks of the tree's
 * nodes (two neighbouring leaves a < b of a key meet at the level of the
 * highest bit of a ^ b), one pass with the combine inlined (kstk). A panic
 * in any of them hands over to the sorted way: the elements sorted stably
 * by key (an LSD radix sort of key << pb | position, the values moved
 * beside them), each key folding its own elements over the one tree with
 * the same stack, in the order SPEC 15 names. Memory O(n + N); one pass,
 * never N.
 * Sequential keyed reductions fold each key left to right instead.
 * Integer min, max and sums whose guard holds, any and all, go first to
 * keyfree.c: their results do not depend on the order.
 */
#include "rt_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define UNIT 256 /* leaves per task */
#define MAX_LEV 64

/* ---- keyed reductions ----------------------------------------------------------- */

typedef struct keyed_job {
    const brt_fold *f;
    int64_t n, nkeys;
    size_t vs;
    unsigned char *vals;  /* by position */
    int64_t *keys;        /* by position; -1: filtered out */
    int64_t chunk;
    int64_t *first;       /* nkeys + 1: each key's first slot in the sorted order */
    unsigned char *svals; /* sorted by key, positions ascending within a key */
    uint64_t *spk, pmask; /* the same order: spk & pmask is the position */
    size_t vals_bytes, keys_bytes, svals_bytes, spk_bytes; /* scratch sizes */
    unsigned char *out, *has;
    int64_t kchunk;       /* keys per task of the folds */
} keyed_job;

static void keyed_elems(void *arg, int64_t t)
{
    keyed_job *k = arg;
    int64_t lo = t * k->chunk, hi = lo + k->chunk < k->n ? lo + k->chunk : k->n;
    k->f->elems(k->f->env, lo, hi, k->vals + (size_t)lo * k->vs, NULL, k->keys + lo);
}

static int hibit(uint64_t x)
{
    return 63 - __builtin_clzll(x);
}

/* Key j's result: its elements' runs per leaf, combined as the tree does
 * (par) or left to right (sequential). */
static void fold_key(keyed_job *k, int64_t j)
{
    const brt_fold *f = k->f;
    size_t vs = k->vs;
    int64_t a = k->first[j], b = k->first[j + 1];
    unsigned char *out = k->out + (size_t)j * vs;
    bool st0 = f->start != NULL;
    if (st0)
        memcpy(out, f->start, vs);
    if (a == b) {
        k->has[j] = 0;
        return;
    }
    if (!f->par) {
        f->lfold(f->env, k->svals + (size_t)a * vs, NULL, b - a, out, st0);
        k->has[j] = 1;
        return;
    }
    unsigned char stk[MAX_LEV + 2][64];
    unsigned char *heap = NULL;
    size_t stride = 64;
    if (vs > 64) {
        heap = brt_xmalloc((MAX_LEV + 2) * vs);
        stride = vs;
    }
#define SLOT(i) (heap ? heap + (size_t)(i) * stride : stk[i])
    int link[MAX_LEV + 1];
    int sp = 0;
    int64_t prev_leaf = -1;
    unsigned char *cur = SLOT(MAX_LEV + 1);
    for (int64_t p = a; p < b;) {
        int64_t leaf = (int64_t)(k->spk[p] & k->pmask) / BRT_LEAF, q = p + 1;
        while (q < b && (int64_t)(k->spk[q] & k->pmask) / BRT_LEAF == leaf)
            q++;
        if (st0)
            brt_vcopy(cur, f->start, vs);
        f->lfold(f->env, k->svals + (size_t)p * vs, NULL, q - p, cur, st0);
        if (sp > 0) {
            int d = hibit((uint64_t)(prev_leaf ^ leaf));
            while (sp >= 2 && link[sp - 2] < d) {
                f->combine(f->env, SLOT(sp - 2), SLOT(sp - 1));
                sp--;
            }
            link[sp - 1] = d;
        }
        brt_vcopy(SLOT(sp), cur, vs);
        sp++;
        prev_leaf = leaf;
        p = q;
    }
    for (int i = sp - 2; i >= 0; i--)
        f->combine(f->env, SLOT(i), SLOT(i + 1));
    memcpy(out, SLOT(0), vs);
#undef SLOT
    free(heap);
    k->has[j] = 1;
}

static int bits_for(uint64_t x)
{
    return x ? 64 - __builtin_clzll(x) : 0;
}

/* The kept elements by key, positions ascending within a key (svals, spk,
 * first), and k->vals, k->keys freed. Each kept element becomes one u64,
 * key << pb | position, in position order; an LSD radix sort on the key's
 * bits alone (each pass stable, up to 11 bits: its buckets' write streams
 * stay in the caches) moves them and their values; the keys' first slots
 * are then counted off the sorted run. Sizes whose key and position do not
 * fit one u64 take a counting sort by key. */
#define SORT_BITS 11

static void keyed_sort(keyed_job *k)
{
    int64_t n = k->n, nkeys = k->nkeys, m = 0;
    size_t vs = k->vs;
    for (int64_t i = 0; i < n; i++)
        m += k->keys[i] >= 0;
    k->first = brt_xcalloc((size_t)(nkeys + 1) * sizeof *k->first);
    int pb = bits_for((uint64_t)(n > 0 ? n - 1 : 0)), kb = bits_for((uint64_t)(nkeys > 0 ? nkeys - 1 : 0));
    if (pb + kb <= 64) {
        k->pmask = pb == 64 ? ~(uint64_t)0 : ((uint64_t)1 << pb) - 1;
        /* the kept ones, packed in place (slot w <= i) */
        uint64_t *a = (uint64_t *)k->keys, *b = brt_scratch((size_t)m * sizeof *b + 1);
        unsigned char *va = k->vals, *vb = brt_scratch((size_t)m * vs + 1);
        size_t ab = k->keys_bytes, bb = (size_t)m * sizeof *b + 1, vab = k->vals_bytes, vbb = (size_t)m * vs + 1;
        int64_t w = 0;
        for (int64_t i = 0; i < n; i++)
            if (k->keys[i] >= 0) {
                a[w] = (uint64_t)k->keys[i] << pb | (uint64_t)i;
                if (w != i)
                    brt_vcopy(va + (size_t)w * vs, va + (size_t)i * vs, vs);
                w++;
            }
        int passes = (kb + SORT_BITS - 1) / SORT_BITS, per = passes ? (kb + passes - 1) / passes : 0;
        int64_t *cnt = brt_xmalloc(((size_t)1 << per) * sizeof *cnt + 8);
        for (int p = 0; p < passes; p++) {
            int sh = pb + p * per;
            uint64_t dm = ((uint64_t)1 << per) - 1;
            memset(cnt, 0, ((size_t)1 << per) * sizeof *cnt);
            for (int64_t i = 0; i < m; i++)
                cnt[(a[i] >> sh) & dm]++;
            int64_t sum = 0;
            for (uint64_t d = 0; d <= dm; d++) {
                int64_t c = cnt[d];
                cnt[d] = sum;
                sum += c;
            }
            for (int64_t i = 0; i < m; i++) {
                int64_t at = cnt[(a[i] >> sh) & dm]++;
                b[at] = a[i];
                brt_vcopy(vb + (size_t)at * vs, va + (size_t)i * vs, vs);
            }
            uint64_t *t = a;
            a = b, b = t;
            size_t tb = ab;
            ab = bb, bb = tb;
            unsigned char *tv = va;
            va = vb, vb = tv;
            tb = vab;
            vab = vbb, vbb = tb;
        }
        free(cnt);
        brt_scratch_free(b, bb);
        brt_scratch_free(vb, vbb);
        k->spk = a, k->spk_bytes = ab;
        k->svals = va, k->svals_bytes = vab;
        for (int64_t i = 0; i < m; i++)
            k->first[(a[i] >> pb) + 1]++;
        for (int64_t j = 0; j < nkeys; j++)
            k->first[j + 1] += k->first[j];
        return;
    }
    /* the stable counting sort by key */
    k->pmask = ~(uint64_t)0;
    k->svals_bytes = (size_t)m * vs + 1;
    k->spk_bytes = (size_t)m * sizeof *k->spk + 1;
    k->svals = brt_scratch(k->svals_bytes);
    k->spk = brt_scratch(k->spk_bytes);
    for (int64_t i = 0; i < n; i++)
        if (k->keys[i] >= 0)
            k->first[k->keys[i] + 1]++;
    for (int64_t j = 0; j < nkeys; j++)
        k->first[j + 1] += k->first[j];
    int64_t *next = brt_xmalloc((size_t)(nkeys + 1) * sizeof *next);
    memcpy(next, k->first, (size_t)(nkeys + 1) * sizeof *next);
    for (int64_t i = 0; i < n; i++) {
        int64_t key = k->keys[i];
        if (key < 0)
            continue;
        int64_t at = next[key]++;
        k->spk[at] = (uint64_t)i;
        brt_vcopy(k->svals + (size_t)at * vs, k->vals + (size_t)i * vs, vs);
    }
    free(next);
    brt_scratch_free(k->vals, k->vals_bytes);
    brt_scratch_free(k->keys, k->keys_bytes);
}

static void keyed_folds(void *arg, int64_t t)
{
    keyed_job *k = arg;
    int64_t lo = t * k->kchunk, hi = lo + k->kchunk < k->nkeys ? lo + k->kchunk : k->nkeys;
    for (int64_t j = lo; j < hi; j++)
        fold_key(k, j);
}

/* ---- keyed, up to ROW_KEYS keys: rows --------------------------------------------
 *
 * The leaves are cut into aligned units of ul leaves (a power of two, at
 * least UNIT, about 8 units per thread), each a subtree of the one tree: a
 * task computes its unit's root for every key, and the units' roots then
 * combine level by level, a row of all keys at a time (kmerge). Inside a
 * unit, kleaf folds each leaf's elements straight into one accumulator per
 * key (the combine inlined, no buffer); the leaf's row of all keys goes
 * onto a stack of rows, and two rows of one level merge (kmerge), a binary
 * counter computing the nodes of every key at once. The same tree per key,
 * so the same bits. Elements and combines interleave, so a panic there
 * hands over to the sorted way, whose order is SPEC 15's; each unit's
 * scratch belongs to the run (a panic abandons the task, not the memory). */
#define ROW_KEYS 32
#define ROW_KEYS_IDENT 128 /* with the identity: no flags, rows in vector lanes */
#define STAMP_KEYS (1 << 14) /* stamps: up to this many keys */
#define STAMP_DIV 4 /* stamps: keys an element of a block, at least */

/* How a unit computes its roots: rows of all keys (few keys), or blocks
 * of leaves by stamps (more). */
enum unit_kind { UNIT_ROWS, UNIT_STAMPS };

typedef struct unit_job {
    const brt_fold *f;
    int64_t n, nl, nkeys, units, ul;
    int ulev;                    /* log2(ul) */
    size_t vs;
    unsigned char *roots, *rhas; /* units x nkeys */
    void **scratch;              /* per unit */
    enum unit_kind kind;
    int64_t stride;              /* stamps: bytes per key's record */
    int blev;                    /* stamps: log2(leaves per block) */
} unit_job;

/* A key's stack record (keyed_stacks has the layout) before its first
 * element, whose leaves lie in [a, a + 2^dl) (a aligned): its last leaf
 * a ^ 2^dl, no real leaf, meets the first at level dl, so that push (of
 * nothing) lands in slot dl, outside the levels; slot dl + 1 holds the
 * start (zero bytes without one): kpush reads it for a pop of no entry.
 * kpush may read a slot 0 or a value it then does not use, so those
 * bytes are set too. */
static inline void rec_init_n(unsigned char *r, size_t vs, int dl, int64_t a, const void *start)
{
    int64_t none = a ^ ((int64_t)1 << dl);
    memset(r, 0, 16 + 2 * vs);
    memcpy(r, &none, 8);
    unsigned char *sent = r + 16 + (size_t)(2 + dl) * vs;
    if (start)
        memcpy(sent, start, vs);
    else
        memset(sent, 0, vs);
}

static inline void rec_init(unsigned char *r, size_t vs, int dl, int64_t a, const void *start)
{
    if (vs == 8)
        rec_init_n(r, 8, dl, a, start); /* a constant size: stores, no calls */
    else
        rec_init_n(r, vs, dl, a, start);
}

/* A key's record (rec_init's a and dl) folded into its value (from its
 * lowest level: the most recent entry) at o; false: the key had no
 * element. */
static inline bool rec_root(const brt_fold *f, unsigned char *r, size_t vs, int dl, int64_t a, unsigned char *o)
{
    unsigned char *acc = r + 16;
    int64_t last;
    uint64_t m;
    memcpy(&last, r, 8);
    memcpy(&m, r + 8, 8);
    if (last == (a ^ ((int64_t)1 << dl)))
        return false;
    m &= ((uint64_t)1 << dl) - 1;
    while (m) {
        unsigned char *slot = acc + (size_t)(1 + __builtin_ctzll(m)) * vs;
        m &= m - 1;
        f->combine(f->env, slot, acc);
        brt_vcopy(acc, slot, vs);
    }
    brt_vcopy(o, acc, vs);
    return true;
}

/* A unit's binary counter of rows of all keys (unit_rows: one a leaf,
 * unit_stamps: one a block): row *sp, just filled, merges with the rows of
 * its level (kmerge); done: the right spine from the right into row 0. */
typedef struct row_stack {
    unsigned char *rows, *hs; /* row i: rows + i * nk * vs, flags hs + i * nk */
    size_t nk, vs;
    bool zero;                /* the fresh row's bytes all zero (rows_template) */
    int lev[MAX_LEV + 2], sp;
} row_stack;

#define ROW(r, i) ((r)->rows + (size_t)(i) * (r)->nk * (r)->vs)
#define RH(r, i) ((r)->hs + (size_t)(i) * (r)->nk)

static void rows_push(const brt_fold *f, row_stack *r)
{
    int64_t nk = (int64_t)r->nk;
    r->lev[r->sp++] = 0;
    while (r->sp >= 2 && r->lev[r->sp - 1] == r->lev[r->sp - 2]) {
        f->kmerge(f->env, ROW(r, r->sp - 2), RH(r, r->sp - 2), ROW(r, r->sp - 1), RH(r, r->sp - 1), nk);
        r->lev[r->sp - 2]++;
        r->sp--;
    }
}

static void rows_done(const brt_fold *f, row_stack *r, unsigned char *root, unsigned char *rh)
{
    for (int i = r->sp - 2; i >= 0; i--)
        f->kmerge(f->env, ROW(r, i), RH(r, i), ROW(r, i + 1), RH(r, i + 1), (int64_t)r->nk);
    memcpy(root, ROW(r, 0), r->nk * r->vs);
    memcpy(rh, RH(r, 0), r->nk);
}

/* Row depth (after the stack's rows) made a fresh leaf's or block's row:
 * the start value for every key (kleaf and kstamp then combine into it
 * without a test), or zero (min/max: the first value); with the identity
 * every key of every row has a value (no flags kept). */
static void rows_template(const brt_fold *f, row_stack *r, int depth)
{
    r->zero = true;
    for (size_t i = 0; f->start && i < r->vs; i++)
        r->zero = r->zero && ((const unsigned char *)f->start)[i] == 0;
    if (f->start && !r->zero)
        for (size_t k = 0; k < r->nk; k++)
            brt_vcopy(ROW(r, depth) + k * r->vs, f->start, r->vs);
    else
        memset(ROW(r, depth), 0, r->nk * r->vs);
    if (f->ident)
        memset(r->hs, 1, (size_t)(depth + 1) * r->nk);
}

/* The stack's next row, fresh (rows_template's, its flags clear): zero
 * bytes written, not copied, where they are (a sum's 0.0, min and max):
 * a block's row of 4,096 floats is 32 KB, about 8% of the stamps way's
 * time copied */
static inline void rows_fresh(const brt_fold *f, row_stack *r, int depth)
{
    if (r->zero)
        memset(ROW(r, r->sp), 0, r->nk * r->vs);
    else
        memcpy(ROW(r, r->sp), ROW(r, depth), r->nk * r->vs);
    if (!f->ident)
        memset(RH(r, r->sp), 0, r->nk);
}

/* Few keys: rows of all keys as a binary counter over the unit's leaves. */
static void unit_rows(unit_job *d, int64_t u, int64_t a, int64_t b)
{
    const brt_fold *f = d->f;
    size_t vs = d->vs, nk = (size_t)d->nkeys;
    int depth = d->ulev + 2;
    /* depth rows and, after them, a fresh leaf's row */
    row_stack r = {.rows = d->scratch[u] = brt_xmalloc((size_t)(depth + 1) * nk * (vs + 1)), .nk = nk, .vs = vs};
    r.hs = r.rows + (size_t)(depth + 1) * nk * vs;
    rows_template(f, &r, depth);
    for (int64_t L = a; L < b; L++) {
        int64_t lo = L * BRT_LEAF, hi = lo + BRT_LEAF < d->n ? lo + BRT_LEAF : d->n;
        rows_fresh(f, &r, depth);
        f->kleaf(f->env, lo, hi, ROW(&r, r.sp), RH(&r, r.sp), f->start);
        rows_push(f, &r);
    }
    rows_done(f, &r, d->roots + (size_t)u * nk * vs, d->rhas + (size_t)u * nk);
}


/* Many keys, by stamps: a unit of aligned blocks of 2^blev leaves, each
 * a subtree of the one tree holding about a quarter of an element a key.
 * kstamp evaluates a block's elements and folds each one of its key's
 * first leaf in the block straight into the block's row of all keys, as a
 * C loop's s[k] += x (ll[k], the key's last leaf, tells: a leaf before the
 * block, or this one); the few others (a later leaf of a key already in
 * the block) are collected, and kcoll puts them onto their keys' stacks
 * (kpush's rule, records of the block's levels) and folds those keys'
 * stacks into the row. The rows then meet as unit_rows' leaves' do
 * (kmerge, a binary counter of the unit's blocks). The same tree per key,
 * so the same bits; O(nkeys) a block besides the elements.
 * Measured against it (standalone C, 10^7 random floats, 4,096 keys, one
 * thread, the same bits): every element pushed onto its key's stack (a
 * record of the key's last leaf, its waiting levels and their slots, in
 * units of 2^12 leaves; up to three pops without a branch) takes 1.5x
 * this way's time, 2.4x with a loop of pops; a stable counting sort of
 * each 16,384 positions by key, then each key's run folded, 1.9x (its sort
 * alone 0.85x); rows merged by lists of the keys each touched rather than
 * in full, 2x. This way's own floor, the stamp step without collisions or
 * merges, is about 3x a C loop's s[k] += x. */
static void unit_stamps(unit_job *d, int64_t u, int64_t a, int64_t b)
{
    const brt_fold *f = d->f;
    size_t vs = d->vs, nk = (size_t)d->nkeys, stride = (size_t)d->stride;
    int64_t bleaves = (int64_t)1 << d->blev, be = bleaves * BRT_LEAF;
    int depth = d->ulev - d->blev + 2;
    /* rows | flags | ll | records | cp | cv | fix, each 16-aligned */
    size_t rows_b = ((size_t)(depth + 1) * nk * vs + 15) / 16 * 16, hs_b = ((size_t)(depth + 1) * nk + 15) / 16 * 16;
    size_t ll_b = (nk * 4 + 15) / 16 * 16, recs_b = nk * stride, cp_b = (size_t)be * 8;
    size_t cv_b = ((size_t)be * vs + 15) / 16 * 16;
    unsigned char *rows = d->scratch[u] = brt_xmalloc(rows_b + hs_b + ll_b + recs_b + cp_b + cv_b + nk * 4);
    row_stack r = {.rows = rows, .hs = rows + rows_b, .nk = nk, .vs = vs};
    uint32_t *ll = (uint32_t *)(r.hs + hs_b), *cp = (uint32_t *)((unsigned char *)ll + ll_b + recs_b);
    unsigned char *recs = (unsigned char *)ll + ll_b, *cv = (unsigned char *)cp + cp_b;
    uint32_t *fix = (uint32_t *)(cv + cv_b);
    /* a leaf outside the unit (leaves as uint32: the unit's differ in
     * their low ulev <= 31 bits only): no key's last leaf lies in a block */
    uint32_t none = (uint32_t)(a ^ ((int64_t)1 << d->ulev));
    for (size_t k = 0; k < nk; k++)
        ll[k] = none;
    memset(recs, 0, recs_b);
    if (f->start)
        for (size_t k = 0; k < nk; k++)
            brt_vcopy(recs + k * stride + 16 + (size_t)d->blev * vs, f->start, vs);
    rows_template(f, &r, depth);
    for (int64_t B = a; B < b; B += bleaves) {
        int64_t lo = B * BRT_LEAF, hi = lo + be < d->n ? lo + be : d->n;
        rows_fresh(f, &r, depth);
        int64_t nc = f->kstamp(f->env, lo, hi, ROW(&r, r.sp), RH(&r, r.sp), ll, d->blev, cp, cv);
        if (nc)
            f->kcoll(f->env, lo, cp, cv, nc, ROW(&r, r.sp), ll, recs, d->stride, d->blev, fix, f->start);
        rows_push(f, &r);
    }
    rows_done(f, &r, d->roots + (size_t)u * nk * vs, d->rhas + (size_t)u * nk);
    free(rows);
    d->scratch[u] = NULL;
}

static void unit_task(void *arg, int64_t u)
{
    unit_job *d = arg;
    int64_t a = u * d->ul, b = a + d->ul < d->nl ? a + d->ul : d->nl;
    if (d->kind == UNIT_STAMPS)
        unit_stamps(d, u, a, b);
    else
        unit_rows(d, u, a, b);
}

/* The rows way for up to ROW_KEYS keys or the stamps way for more;
 * false: a panic, or the sizes do not fit (nothing written). */
static bool keyed_units(const brt_fold *f, int64_t nkeys, void *out, unsigned char *has, enum unit_kind kind)
{
    unit_job d;
    memset(&d, 0, sizeof d);
    d.f = f;
    d.n = f->n;
    d.nkeys = nkeys;
    d.vs = f->vsize;
    d.kind = kind;
    d.nl = (f->n + BRT_LEAF - 1) / BRT_LEAF;
    d.ul = UNIT;
    d.ulev = 8;
    /* stamps: blocks of 2^blev leaves, STAMP_DIV keys an element or more */
    while (((int64_t)BRT_LEAF << d.blev) * STAMP_DIV < nkeys)
        d.blev++;
    int64_t want = (int64_t)brt_pool_threads() * 8;
    /* stamps: a unit holds a block, and 4 elements a key (its records and
     * last leaves are set up once a unit) */
    while ((d.nl / d.ul > want || (kind == UNIT_STAMPS && (d.ulev < d.blev || d.ul * BRT_LEAF < 4 * nkeys))) &&
           d.ulev < 40)
        d.ul *= 2, d.ulev++;
    d.stride = (int64_t)((16 + d.vs * (size_t)(1 + d.blev) + 15) / 16 * 16);
    /* stamps: a unit's leaves as uint32 */
    if (kind == UNIT_STAMPS && d.ulev > 31)
        return false;

    d.units = (d.nl + d.ul - 1) / d.ul;
    size_t vs = d.vs, nk = (size_t)nkeys;
    d.roots = brt_xmalloc((size_t)d.units * nk * vs + 1);
    d.rhas = brt_xmalloc((size_t)d.units * nk + 1);
    d.scratch = brt_xcalloc((size_t)d.units * sizeof *d.scratch);
    brt_trap panic;
    volatile bool ok = brt_pool_run(d.units, unit_task, &d, &panic) < 0;
    for (int64_t u = 0; u < d.units; u++)
        free(d.scratch[u]);
    free(d.scratch);
    if (!ok) {
        free(panic.msg);
    } else {
        brt_trap trap, *outer = brt_trap_get();
        trap.panicked = 0;
        trap.msg = NULL;
        brt_trap_set(&trap);
        if (setjmp(trap.jb) == 0) {
            /* the units' roots, level by level (aligned subtrees of the one tree) */
            for (int64_t cnt = d.units; cnt > 1; cnt = (cnt + 1) / 2)
                for (int64_t j = 0; 2 * j < cnt; j++) {
                    unsigned char *dst = d.roots + (size_t)j * nk * vs, *dh = d.rhas + (size_t)j * nk;
                    if (j != 0) {
                        memcpy(dst, d.roots + (size_t)(2 * j) * nk * vs, nk * vs);
                        memcpy(dh, d.rhas + (size_t)(2 * j) * nk, nk);
                    }
                    if (2 * j + 1 < cnt)
                        f->kmerge(f->env, dst, dh, d.roots + (size_t)(2 * j + 1) * nk * vs,
                                  d.rhas + (size_t)(2 * j + 1) * nk, nkeys);
                }
            for (size_t k = 0; k < nk; k++) {
                has[k] = d.rhas[k];
                if (has[k])
                    brt_vcopy((unsigned char *)out + k * vs, d.roots + k * vs, vs);
                else if (f->start)
                    brt_vcopy((unsigned char *)out + k * vs, f->start, vs);
            }
        } else {
            ok = false;
            free(trap.msg);
        }
        brt_trap_set(outer);
    }
    free(d.roots);
    free(d.rhas);
    return ok;
}

/* Sequential keyed: one left fold per key in index order (kacc over
 * chunks), on the calling thread; false: a panic (then the sorted way
 * reports SPEC 15's). */
static bool keyed_linear(const brt_fold *f, int64_t nkeys, void *out, unsigned char *has)
{
    size_t vs = f->vsize;
    int64_t chunk = 4096;
    unsigned char *vbuf = brt_xmalloc((size_t)chunk * vs);
    int64_t *kbuf = brt_xmalloc((size_t)chunk * sizeof *kbuf);
    memset(has, 0, (size_t)nkeys);
    brt_trap trap, *outer = brt_trap_get();
    trap.panicked = 0;
    trap.msg = NULL;
    brt_trap_set(&trap);
    volatile bool ok = true;
    if (setjmp(trap.jb) == 0) {
        for (int64_t lo = 0; lo < f->n; lo += chunk) {
            int64_t hi = lo + chunk < f->n ? lo + chunk : f->n;
            f->elems(f->env, lo, hi, vbuf, NULL, kbuf);
            f->kacc(f->env, vbuf, kbuf, hi - lo, out, has, f->start);
        }
    } else {
        ok = false;
        free(trap.msg);
    }
    brt_trap_set(outer);
    free(vbuf);
    free(kbuf);
    if (ok && f->start)
        for (int64_t k = 0; k < nkeys; k++)
            if (!has[k])
                brt_vcopy((unsigned char *)out + (size_t)k * vs, f->start, vs);
    return ok;
}

/* BRINE_KEYED_TRACE set: the way a keyed reduction took, a line on
 * stderr (tests show with it which way ran; the bits are the same
 * whichever). */
static void keyed_trace(const char *way)
{
    if (getenv("BRINE_KEYED_TRACE"))
        fprintf(stderr, "brine: keyed: %s\n", way);
}

/* ---- keyed, by key ranges: a stack per key, no sort ---------------------------------
 *
 * The elements are cut into buckets of KB keys (a power of two: KB
 * records fit the L1 cache, or the L2: keyed_stacks), stably: each task of
 * consecutive positions evaluates its elements a few at a time (elems
 * into a small buffer) and appends each as (leaf << kbits | key in
 * bucket, value) to its bucket's list of blocks, so the elements are read
 * and written once, with no buffer of all of them. A bucket's elements in
 * position order are its lists in task order. Tasks of consecutive
 * buckets (4 per thread, one block of records each) then put them onto
 * their keys' stacks (kstk, the combine inlined): a key's record holds its
 * last leaf, a mask of the levels waiting, that leaf's value, a stack of
 * completed subtrees, one slot per level, and the start (rec_init): two
 * neighbouring leaves a < b of a key meet at level
 * h = the highest bit of a ^ b, so a new leaf first folds the pending
 * entries below h (lowest level first: the most recent) into the last
 * leaf's value, which then waits at level h:
 *
 *     leaves of key j   3    5    6         12
 *     at 5: h = 2, slot 2 = v3      at 6: h = 1, slot 1 = v5
 *     at 12: h = 3, slot 3 = v3 . (v5 . v6);  the end: slot 3 . v12
 *
 * The same tree per key as fold_key's, so the same bits; memory O(n + N).
 * An element's panic is the lowest index's (earlier tasks ran to their
 * end, and nothing combines while elements are evaluated); a combine's
 * hands over to the sorted way, whose order is SPEC 15's. */
#define KST_L1 (32 << 10)
#define KST_BIGBLK 512 /* items */
#define KST_L2 (512 << 10)
#define KST_EBUF 2048 /* elements evaluated at a time */
/* A list's item: its key in the bucket and leaf, leaf << kbits | key, then
 * the value (kstk reads them so: brine_rt.h): narrow, where the leaves'
 * and keys' bits fit 32, a u32 and the value unpadded (12 bytes for a
 * float: a quarter less to write and read again than 16), else a u64 and
 * the value padded to 8 bytes. */
#define KST_ISZ(vs, narrow) ((narrow) ? 4 + (size_t)(vs) : (8 + (size_t)(vs) + 7) / 8 * 8)
typedef struct kst_job {
    const brt_fold *f;
    int64_t n, nkeys, nb, chunks, chunk, tasks, kblk;
    int kbits, levels;
    bool narrow;               /* items with a u32 leaf and key (KST_ISZ) */
    size_t vs, isz, bbytes;    /* a block: next, count, kblk items (KST_ISZ) */
    int64_t stride;
    unsigned char *blocks;     /* chunk c's blocks from region_bytes * c */
    size_t region_bytes;
    int64_t *head, *tail;      /* chunks x nb: first and last block (-1: none) */
    void **ebuf;               /* per chunk: elems' buffer */
    void **recs;               /* per task of buckets */
    unsigned char *out, *has;
} kst_job;

/* A list's write cursors in its last block (all NULL before the first). */
typedef struct kst_cur {
    unsigned char *p, *end;
} kst_cur;

static inline unsigned char *kst_blk(const kst_job *d, int64_t c, int64_t i)
{
    return d->blocks + d->region_bytes * (size_t)c + (size_t)i * d->bbytes;
}

/* A new block at the end of chunk c's list of bucket b (its cursors). */
static void kst_newblk(kst_job *d, int64_t c, int64_t b, int64_t *nblk, kst_cur *w)
{
    int64_t nt = (*nblk)++;
    unsigned char *blk = kst_blk(d, c, nt);
    int64_t *hd = (int64_t *)blk;
    hd[0] = -1;
    int64_t *head = d->head + c * d->nb, *tail = d->tail + c * d->nb;
    if (tail[b] >= 0) {
        int64_t *th = (int64_t *)kst_blk(d, c, tail[b]);
        th[0] = nt;
        th[1] = d->kblk;
    } else {
        head[b] = nt;
    }
    tail[b] = nt;
    w->p = blk + 16;
    w->end = w->p + (size_t)d->kblk * d->isz;
}

/* Evaluated elements of buffer [0, cnt) (position base + i, base a
 * multiple of BRT_LEAF) appended to their buckets' lists, a leaf at a
 * time (its leaf's bits made once); vs, filtered (whether a key may be
 * -1) and narrow (the items' form) constants where the caller can make
 * them so. */
static inline void kst_append(kst_job *d, int64_t c, int64_t base, int64_t cnt, const int64_t *keys,
                              const unsigned char *vals, int64_t *nblk, kst_cur *cur, size_t vs, bool filtered,
                              bool narrow)
{
    int kbits = d->kbits;
    uint64_t km = ((uint64_t)1 << kbits) - 1;
    for (int64_t g = 0; g < cnt; g += BRT_LEAF) {
        uint64_t lk = (uint64_t)(base + g) / BRT_LEAF << kbits;
        int64_t ge = g + BRT_LEAF < cnt ? g + BRT_LEAF : cnt;
        for (int64_t i = g; i < ge; i++) {
            int64_t key = keys[i];
            if (filtered && key < 0)
                continue;
            kst_cur *w = &cur[key >> kbits];
            if (__builtin_expect(w->p == w->end, 0))
                kst_newblk(d, c, key >> kbits, nblk, w);
            uint64_t kl = lk | ((uint64_t)key & km);
            /* the cursor in a register: a store through w->p may alias w */
            unsigned char *p = w->p;
            /* the list's next line asked for, to be written: hundreds of
             * lists are written at once, each store to a new line waited
             * for its read (the appends' largest cost); the list's next
             * item comes some hundreds of elements later */
            __builtin_prefetch(p + 64, 1);
            w->p = p + KST_ISZ(vs, narrow);
            if (narrow) {
                uint32_t kn = (uint32_t)kl;
                memcpy(p, &kn, 4);
                memcpy(p + 4, vals + (size_t)i * vs, vs);
            } else {
                memcpy(p, &kl, 8);
                memcpy(p + 8, vals + (size_t)i * vs, vs);
            }
        }
    }
}

/* Chunk c: its elements evaluated and appended to their buckets' lists;
 * each list's last block then gets its count. */
static void kst_chunk(void *arg, int64_t c)
{
    kst_job *d = arg;
    const brt_fold *f = d->f;
    int64_t lo = c * d->chunk, hi = lo + d->chunk < d->n ? lo + d->chunk : d->n, nblk = 0;
    size_t vs = d->vs;
    unsigned char *vals = d->ebuf[c] = brt_xmalloc((size_t)KST_EBUF * (vs + 8) + (size_t)d->nb * sizeof(kst_cur));
    int64_t *keys = (int64_t *)(vals + (size_t)KST_EBUF * vs);
    kst_cur *cur = (kst_cur *)(keys + KST_EBUF);
    memset(cur, 0, (size_t)d->nb * sizeof *cur);
    for (int64_t s = lo; s < hi; s += KST_EBUF) {
        int64_t e = s + KST_EBUF < hi ? s + KST_EBUF : hi;
        f->elems(f->env, s, e, vals, NULL, keys);
        if (vs == 8 && !f->filtered && d->narrow)
            kst_append(d, c, s, e - s, keys, vals, &nblk, cur, 8, false, true);
        else if (vs == 8 && d->narrow)
            kst_append(d, c, s, e - s, keys, vals, &nblk, cur, 8, true, true);
        else if (vs == 8)
            kst_append(d, c, s, e - s, keys, vals, &nblk, cur, 8, true, false);
        else if (vs == 16)
            kst_append(d, c, s, e - s, keys, vals, &nblk, cur, 16, true, d->narrow);
        else
            kst_append(d, c, s, e - s, keys, vals, &nblk, cur, vs, true, d->narrow);
    }
    for (int64_t b = 0; b < d->nb; b++) {
        int64_t t = d->tail[c * d->nb + b];
        if (t >= 0) {
            int64_t *th = (int64_t *)kst_blk(d, c, t);
            th[1] = d->kblk - (int64_t)((size_t)(cur[b].end - cur[b].p) / d->isz);
        }
    }
}

static inline void kst_prefetch(const unsigned char *blk)
{
    for (int l = 0; l < 4; l++)
        __builtin_prefetch(blk + 64 * l);
}

/* Bucket b's keys onto their stacks, then their results into out and has;
 * recs: room for a bucket's records. */
static void kst_bucket(kst_job *d, int64_t b, unsigned char *recs)
{
    const brt_fold *f = d->f;
    size_t vs = d->vs;
    int64_t kb = (int64_t)1 << d->kbits, base = b * kb, nk = base + kb < d->nkeys ? kb : d->nkeys - base;
    for (int64_t j = 0; j < nk; j++)
        rec_init(recs + j * d->stride, vs, d->levels, 0, f->start);
    for (int64_t c = 0; c < d->chunks; c++)
        for (int64_t i = d->head[c * d->nb + b]; i >= 0;) {
            unsigned char *blk = kst_blk(d, c, i);
            int64_t *hd = (int64_t *)blk, nx = hd[0];
            /* the next block's first lines asked for now: a list is a
             * chain of blocks far apart, each a miss the chain would
             * otherwise wait for */
            if (nx >= 0)
                kst_prefetch(kst_blk(d, c, nx));
            else if (c + 1 < d->chunks && d->head[(c + 1) * d->nb + b] >= 0)
                kst_prefetch(kst_blk(d, c + 1, d->head[(c + 1) * d->nb + b]));
            f->kstk(f->env, blk + 16, d->kbits, d->narrow, hd[1], recs, d->stride, d->levels, f->start);
            i = nx;
        }
    if (f->kroots) {
        f->kroots(f->env, recs, d->stride, nk, d->levels, 0, d->out + (size_t)base * vs, d->has + base, f->start);
        return;
    }
    for (int64_t j = 0; j < nk; j++) {
        unsigned char *o = d->out + (size_t)(base + j) * vs;
        d->has[base + j] = rec_root(f, recs + j * d->stride, vs, d->levels, 0, o);
        if (!d->has[base + j] && f->start)
            brt_vcopy(o, f->start, vs);
    }
}

/* Task t: its run of buckets, with one records block (the run's: a panic
 * abandons the task, not the memory). */
static void kst_task(void *arg, int64_t t)
{
    kst_job *d = arg;
    int64_t lo = t * d->nb / d->tasks, hi = (t + 1) * d->nb / d->tasks;
    unsigned char *recs = d->recs[t] = brt_xmalloc((size_t)(((int64_t)1 << d->kbits) * d->stride));
    for (int64_t b = lo; b < hi; b++)
        kst_bucket(d, b, recs);
}

static void kst_free(kst_job *d)
{
    for (int64_t c = 0; c < d->chunks; c++)
        free(d->ebuf[c]);
    brt_scratch_free(d->blocks, d->region_bytes * (size_t)d->chunks);
    for (int64_t t = 0; t < d->tasks; t++)
        free(d->recs[t]);
    free(d->ebuf);
    free(d->recs);
    free(d->head);
    free(d->tail);
}

/* The stacks way, elements evaluated here; an element's panic is raised
 * (the lowest index's); false: a combine panicked, or the sizes do not
 * fit (out and has then hold nothing the caller keeps). */
static bool keyed_stacks(const brt_fold *f, int64_t nkeys, void *out, unsigned char *has)
{
    int64_t n = f->n, nl = (n + BRT_LEAF - 1) / BRT_LEAF;
    int levels = bits_for((uint64_t)(nl > 1 ? nl - 1 : 1));
    kst_job d = {.f = f, .n = n, .nkeys = nkeys, .vs = f->vsize, .out = out, .has = has, .levels = levels};
    d.stride = (int64_t)((16 + d.vs * (size_t)(3 + levels) + 15) / 16 * 16);
    /* KB keys per bucket: their records fit the L1 cache (a push then
     * finds its record there) where the lists' blocks can stay large (512
     * items: with more buckets per chunk, smaller blocks cost more than
     * the L1 saves), else the L2 cache; and at least 4 buckets per thread
     * while a bucket keeps 64 keys */
    int threads = brt_pool_threads();
    bool pool = f->par && threads > 1 && !brt_pool_nested();
    d.chunks = pool && n > 65536 ? 4 * (int64_t)threads : 1;
    /* chunks of whole leaves: kst_append makes each leaf's bits once */
    d.chunk = ((n + d.chunks - 1) / d.chunks + BRT_LEAF - 1) / BRT_LEAF * BRT_LEAF;
    d.chunks = (n + d.chunk - 1) / d.chunk;
    while (((int64_t)2 << d.kbits) * d.stride <= KST_L1 && d.kbits < 20)
        d.kbits++;
    if (d.chunks * ((nkeys + ((int64_t)1 << d.kbits) - 1) >> d.kbits) * KST_BIGBLK > n / 2)
        while (((int64_t)2 << d.kbits) * d.stride <= KST_L2 && d.kbits < 20)
            d.kbits++;
    while (d.kbits > 6 && (nkeys + ((int64_t)1 << d.kbits) - 1) >> d.kbits < 4 * threads)
        d.kbits--;
    if (bits_for((uint64_t)nl) + d.kbits > 63)
        return false;
    d.nb = (nkeys + ((int64_t)1 << d.kbits) - 1) >> d.kbits;
    /* blocks small enough that the lists' last, part-filled blocks hold
     * at most about n / 2 elements' room */
    d.kblk = 1024;
    while (d.kblk > 16 && d.chunks * d.nb * d.kblk > n / 2)
        d.kblk /= 2;
    /* narrow items where the leaves' and keys' bits fit 32
     * (BRINE_KEYED_WIDE, a test hook: never) */
    d.narrow = bits_for((uint64_t)nl) + d.kbits <= 32 && !getenv("BRINE_KEYED_WIDE");
    d.isz = KST_ISZ(d.vs, d.narrow);
    d.bbytes = (16 + (size_t)d.kblk * d.isz + 63) / 64 * 64;
    d.region_bytes = (size_t)(d.chunk / d.kblk + d.nb + 1) * d.bbytes;
    d.blocks = brt_scratch(d.region_bytes * (size_t)d.chunks);
    d.ebuf = brt_xcalloc((size_t)d.chunks * sizeof *d.ebuf);
    d.head = brt_xmalloc((size_t)(d.chunks * d.nb) * sizeof *d.head);
    d.tail = brt_xmalloc((size_t)(d.chunks * d.nb) * sizeof *d.tail);
    memset(d.head, 0xff, (size_t)(d.chunks * d.nb) * sizeof *d.head);
    memset(d.tail, 0xff, (size_t)(d.chunks * d.nb) * sizeof *d.tail);
    brt_trap panic;
    if (brt_pool_run(d.chunks, kst_chunk, &d, &panic) >= 0) {
        kst_free(&d);
        brt_trap_rethrow(&panic);
    }
    d.tasks = d.nb < 4 * (int64_t)threads ? d.nb : 4 * (int64_t)threads;
    d.recs = brt_xcalloc((size_t)d.tasks * sizeof *d.recs);
    bool ok = brt_pool_run(d.tasks, kst_task, &d, &panic) < 0;
    if (!ok)
        free(panic.msg);
    kst_free(&d);
    if (ok)
        keyed_trace(d.narrow ? "buckets" : "buckets, wide items");
    return ok;
}

void brt_keyed_run(const brt_fold *f, int64_t nkeys, void *out, unsigned char *has)
{
    /* eligible elements: perhaps on the GPU (runtime-gpu/gpu.c) */
    if (f->gpu && f->gpu(f->env, f, 0, f->n, nkeys, out, has))
        return;
    /* a result the order cannot change: in any order (keyfree.c) */
    if (brt_keyed_free(f, nkeys, out, has)) {
        keyed_trace("any order");
        return;
    }
    if (f->kacc && nkeys > 0 && !f->par && keyed_linear(f, nkeys, out, has)) {
        keyed_trace("linear");
        return;
    }
    int64_t row_keys = f->ident ? ROW_KEYS_IDENT : ROW_KEYS;
    if (f->par && f->kleaf && nkeys > 0 && nkeys <= row_keys && f->n > 2 * UNIT * BRT_LEAF &&
        keyed_units(f, nkeys, out, has, UNIT_ROWS)) {
        keyed_trace("rows");
        return;
    }
    /* more keys, up to STAMP_KEYS (beyond, the rows of all keys leave the
     * L2 cache and the buckets of keyed_stacks are faster), 16 elements a
     * key or more: blocks of leaves by stamps */
    bool dense = f->par && nkeys > row_keys && f->n >= 16 * nkeys && f->n > 2 * UNIT * BRT_LEAF;
    if (dense && f->kstamp && nkeys <= STAMP_KEYS && keyed_units(f, nkeys, out, has, UNIT_STAMPS)) {
        keyed_trace("stamps");
        return;
    }
    /* more keys: by key ranges, the elements evaluated there (it traces) */
    if (f->par && f->kstk && nkeys > 0 && f->n > 0 && keyed_stacks(f, nkeys, out, has))
        return;
    keyed_trace("sorted");
    int64_t n = f->n > 0 ? f->n : 0;
    if (nkeys < 0)
        nkeys = 0;
    keyed_job k;
    memset(&k, 0, sizeof k);
    k.f = f;
    k.n = n;
    k.nkeys = nkeys;
    k.vs = f->vsize;
    k.out = out;
    k.has = has;
    k.vals_bytes = (size_t)n * k.vs + 1;
    k.keys_bytes = (size_t)n * sizeof *k.keys + 1;
    k.vals = brt_scratch(k.vals_bytes);
    k.keys = brt_scratch(k.keys_bytes);
    bool pool = f->par && brt_pool_threads() > 1 && !brt_pool_nested();
    /* the elements, once: a panic is the lowest index's (earlier chunks ran
     * to their end) */
    if (n > 0) {
        if (pool && n > 4096) {
            int64_t ntasks = (int64_t)brt_pool_threads() * 8;
            k.chunk = (n + ntasks - 1) / ntasks;
            ntasks = (n + k.chunk - 1) / k.chunk;
            brt_trap panic;
            if (brt_pool_run(ntasks, keyed_elems, &k, &panic) >= 0)
                brt_trap_rethrow(&panic);
        } else {
            f->elems(f->env, 0, n, k.vals, NULL, k.keys);
        }
    }
    keyed_sort(&k);
    int64_t m = nkeys ? k.first[nkeys] : 0;
    /* one fold per key: a panic is the lowest key's (earlier tasks ran to
     * their end, each in ascending keys) */
    if (pool && m > 4096 && nkeys > 1) {
        int64_t ntasks = (int64_t)brt_pool_threads() * 8;
        if (ntasks > nkeys)
            ntasks = nkeys;
        k.kchunk = (nkeys + ntasks - 1) / ntasks;
        ntasks = (nkeys + k.kchunk - 1) / k.kchunk;
        brt_trap panic;
        if (brt_pool_run(ntasks, keyed_folds, &k, &panic) >= 0)
            brt_trap_rethrow(&panic);
    } else {
        for (int64_t j = 0; j < nkeys; j++)
            fold_key(&k, j);
    }
    free(k.first);
    brt_scratch_free(k.svals, k.svals_bytes);
    brt_scratch_free(k.spk, k.spk_bytes);
}

/* The order of a keyed reduction of counted values (compiler/emit_keyref.c):
 * kp holds m (key, position) pairs, keys in 0..nkeys; out gets nkeys + 1
 * firsts (key j's elements are out[nkeys + 1 + out[j] .. out[j + 1]]), then
 * the m indices sorted stably by key: a counting sort, O(m + nkeys). */
void brt_key_order(const int64_t *kp, int64_t m, int64_t nkeys, int64_t *out)
{
    int64_t *first = out, *ord = out + nkeys + 1;
    memset(first, 0, (size_t)(nkeys + 1) * sizeof *first);
    for (int64_t i = 0; i < m; i++)
        first[kp[2 * i] + 1]++;
    for (int64_t j = 0; j < nkeys; j++)
        first[j + 1] += first[j];
    /* first[j] is key j's next slot while they are placed, then its first
     * again: shifted down by one place */
    for (int64_t i = 0; i < m; i++)
        ord[first[kp[2 * i]]++] = i;
    for (int64_t j = nkeys; j > 0; j--)
        first[j] = first[j - 1];
    first[0] = 0;
}
