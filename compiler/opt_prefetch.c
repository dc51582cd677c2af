/*
 * opt_prefetch.c: the arrays a scatter loop streams through, read ahead.
 *
 *     for x in xs:                      for x in xs:         prefetch[xs]
 *         let b = min(int(x * f), m)        (the same body)
 *         counts[b] += 1
 *
 * A loop whose body stores at an index it computes (a histogram's
 * counts[b] += 1, h[b] += w[i]) is one gcc cannot vectorize: it runs one
 * element at a time, a dozen instructions or more each (the conversion and
 * its check, a clamp, the bounds check, the read-modify-write). Its loads
 * of the element stream then find too few of the stream's cache lines in
 * flight: the processor's window holds some 20 to 50 elements'
 * instructions, 3 to 6 lines, and the hardware prefetcher of the machines
 * measured runs no further ahead, so each line waits for memory (a stream
 * of 24 instructions an element, 4 * 10^6 doubles five times: 77 ms over
 * 32 MB, 24 ms over 32 KB in cache, 23 ms over 32 MB with a prefetch 2 KB
 * ahead, 38 with one 512 bytes ahead). The emitter writes one software
 * prefetch per iteration, BRT_PREFETCH_AHEAD bytes past the element
 * (BRT_PREFETCH, runtime/brine_rt.h): clamp_fn 90 -> 22 ms portable.
 *
 * The loops marked: innermost sequential range loops and array loops
 * (no loop or generator inside, not on the pool, not part of a swapped or
 * jammed nest) whose body stores into an array at an index it computes:
 * not the loop's variable, a value the loop does not change, or a sum of
 * them (regular). Their streams: for x in xs, the snapshot xs; for i in
 * lo..hi, each array variable of scalars read as a[i] in the body outside
 * any condition, which the body does not write: the emitter reads its
 * data pointer at the top of each iteration, which the iteration reads
 * anyway (a prefetch itself never faults, wherever it points).
 *
 * Why it keeps the program's meaning: a prefetch reads nothing into the
 * program and changes no value; the statements run as written, in the
 * same order, with every check (the panics are the program's).
 *
 * The pass runs last, on the loops the emitter writes (each version's).
 *
 * The same loops' bins: the check of a float-to-int conversion made by the
 * bounds check of the index it gives (f2i_fuse, below).
 */
#include "ir.h"

#include <string.h>

static struct ir_node *pf_loop;  /* the loop being looked at */
static bool pf_inner, pf_scatter; /* a loop inside it; a store at a computed index */
enum { MAX_LETS = 64 };
static struct ir_node *pf_lets[MAX_LETS]; /* the lets in its body (the first MAX_LETS) */
static int pf_nlets;

/* Whether t is an array whose elements are plain scalars (no references). */
static bool scalar_array(const struct type *t)
{
    return t->kind == T_ARRAY && !type_is_ref(t->elem);
}

/* Collects the body's lets. */
static void lets(struct ir_node *n)
{
    if (!n) return;
    if (n->op == IR_LET && pf_nlets < MAX_LETS) pf_lets[pf_nlets++] = n;
    ir_each_child(n, lets);
}

/* Whether index e follows the loop or stays: a literal, the loop's variable,
 * a variable the body neither defines nor assigns, a let of such a value,
 * or a sum or difference of them (ys[i] += v is stored at a let of i). */
static bool regular(const struct ir_node *e, int depth)
{
    if (depth > 8) return false;
    switch (e->op) {
    case IR_INT: return true;
    case IR_BINARY: return (e->bop == OP_ADD || e->bop == OP_SUB) && regular(e->a, depth + 1) && regular(e->b, depth + 1);
    case IR_VAR:
        if (e->var == pf_loop->var) return true;
        for (int i = 0; i < pf_nlets; i++)
            if (pf_lets[i]->var == e->var) return regular(pf_lets[i]->a, depth + 1);
        return pf_nlets < MAX_LETS && !ir_writes(pf_loop->b, e->var, false);
    default: return false;
    }
}

/* Looks through the body for loops and scatter stores. */
static void scan(struct ir_node *n)
{
    if (!n) return;
    switch (n->op) {
    case IR_FOR_RANGE: case IR_FOR_ARRAY: case IR_WHILE: case IR_REDUCE: case IR_LISTCOMP:
        pf_inner = true;
        return;
    case IR_STORE:
        if (n->nkids == 1 && scalar_array(n->var->type) && !regular(n->kids[0], 0)) pf_scatter = true;
        break;
    default: break;
    }
    ir_each_child(n, scan);
}

/* Adds the arrays read as a[i] (i the loop's variable) outside conditions. */
static void streams(struct ir_node *n)
{
    if (!n) return;
    switch (n->op) {
    case IR_IF: case IR_COND: case IR_AND: case IR_OR: case IR_WHILE:
        return;
    case IR_INDEX:
        if (n->a->op == IR_VAR && !n->a->moved && scalar_array(n->a->type) && n->b->op == IR_VAR &&
            n->b->var == pf_loop->var && !ir_writes(pf_loop->b, n->a->var, true)) {
            bool seen = false;
            for (int i = 0; i < pf_loop->nstreams; i++) seen |= pf_loop->streams[i] == n->a->var;
            if (!seen) {
                pf_loop->streams = xrealloc(pf_loop->streams, (size_t)(pf_loop->nstreams + 1) * sizeof *pf_loop->streams);
                pf_loop->streams[pf_loop->nstreams++] = n->a->var;
            }
        }
        break;
    default: break;
    }
    ir_each_child(n, streams);
}

/* ---- the conversion's check made by the bounds check ---- */

static struct ir_program *PP;
static struct ir_node *CONV;          /* the conversion looked at */
enum { MAX_CARRY = 16, MAX_KEYED = 8 };
static struct ir_var *CARRY[MAX_CARRY]; /* lets holding its value (or its min with a quiet value) */
static int NCARRY;

/* Whether e has no check and no effect: variables, literals, int + - *
 * that cannot overflow, float + - *, int-to-float conversions, elements
 * proved in bounds. */
static bool quiet(const struct ir_node *e)
{
    switch (e->op) {
    case IR_VAR: case IR_INT: case IR_FLOAT: case IR_BOOL: return true;
    case IR_CONV: return e->type == ty_float && e->optype == ty_int && quiet(e->a);
    case IR_BINARY:
        if (e->bop != OP_ADD && e->bop != OP_SUB && e->bop != OP_MUL) return false;
        if (e->optype != ty_float && !(e->optype == ty_int && e->no_overflow)) return false;
        return quiet(e->a) && quiet(e->b);
    case IR_INDEX: return e->in_bounds && e->a->op == IR_VAR && quiet(e->b);
    default: return false;
    }
}

/* Whether e's value is CONV's, or min of it and a quiet value: INT64_MIN
 * where the conversion's raw instruction gave that (NaN, out of range). */
static bool carries(const struct ir_node *e)
{
    if (e == CONV) return true;
    if (e->op == IR_VAR) {
        for (int i = 0; i < NCARRY; i++)
            if (CARRY[i] == e->var) return true;
        return false;
    }
    if (e->op == IR_BUILTIN && e->builtin == BI_MIN2 && e->nkids == 2 && e->type == ty_int)
        return (carries(e->kids[0]) && quiet(e->kids[1])) || (quiet(e->kids[0]) && carries(e->kids[1]));
    return false;
}

/* An index check at a value carrying CONV, written where CONV's would be
 * (the same calls written in place). */
static bool keyed(const struct ir_node *n, const struct type *arr, const struct ir_node *key)
{
    return !n->in_bounds && !n->in_range_by && !n->slot && n->inl == CONV->inl && scalar_array(arr) && carries(key);
}

/* Whether value e is quiet but for element reads whose checks are keyed. */
static bool quiet_but_keyed(const struct ir_node *e)
{
    if (e->op == IR_INDEX && e->a->op == IR_VAR && keyed(e, e->a->type, e->b)) return true;
    if (e->op == IR_BINARY && (e->bop == OP_ADD || e->bop == OP_SUB || e->bop == OP_MUL) &&
        (e->optype == ty_float || (e->optype == ty_int && e->no_overflow)))
        return quiet_but_keyed(e->a) && quiet_but_keyed(e->b);
    return quiet(e);
}

static struct ir_node **KEYED;
static int NKEYED;

/* Collects value e's reads at keys carrying CONV (-1 in NKEYED: too many). */
static void keyed_reads(struct ir_node *e)
{
    if (e->op == IR_INDEX && e->a->op == IR_VAR && keyed(e, e->a->type, e->b)) {
        if (NKEYED >= 0 && NKEYED < MAX_KEYED) KEYED[NKEYED++] = e;
        else NKEYED = -1;
    }
    if (e->op == IR_BINARY) keyed_reads(e->a), keyed_reads(e->b);
}

/* From statement k of block b on: lets of quiet values or of copies of a
 * carrying variable (which then carries too), blocks of such, then a store
 * a[key] = V, key carrying CONV, V quiet but for reads at keys carrying it.
 * Returns the store, or NULL. */
static struct ir_node *find_store(struct ir_node *b, int k, bool *stop)
{
    for (; k < b->nkids && !*stop; k++) {
        struct ir_node *u = b->kids[k];
        if (u->op == IR_LET && (quiet(u->a) || carries(u->a))) {
            if (carries(u->a) && NCARRY < MAX_CARRY) CARRY[NCARRY++] = u->var;
            continue;
        }
        if (u->op == IR_BLOCK) {
            struct ir_node *t = find_store(u, 0, stop);
            if (t) return t;
            continue;
        }
        if (u->op == IR_STORE && u->nkids == 1 && keyed(u, u->var->type, u->kids[0]) && quiet_but_keyed(u->a))
            return u;
        *stop = true;
    }
    return NULL;
}

/* The fusions found in a function, made once all are known: the versions
 * of a loop may share statements (a store the same in both), and a shared
 * store is fused only where each of its copies is. */
struct f2i_site {
    struct ir_node *block, *let, *conv, *operand, *store;
    struct ir_node *reads[MAX_KEYED]; /* the store's value's reads at keys carrying conv */
    int nreads;
    bool done;
};
static struct f2i_site *SITES;
static int NSITES, CAPSITES;

/* In a scatter loop's body (and its blocks): `let b = int(X)` or `let b =
 * min(int(X), q)` (q quiet, either order), then only lets of quiet values,
 * then a store at b (or at a let of it) as above. The conversion's raw
 * instruction gives INT64_MIN where it fails, and so does the min: the
 * store's bounds check (or a read's at b before it) fails then, and its
 * failure tests the conversion first (brt_idx_n_f2i): the same panic, at
 * the same place, after the same output, as nothing runs between but
 * quiet lets. X moves to a let of its own before b's (it ran first there
 * too) for the check to name. One compare and branch less an element,
 * and a register (clamp_fn 16.0 -> 13.8 ms native). */
static void f2i_find(struct ir_node *b)
{
    for (int k = 0; k < b->nkids; k++) {
        struct ir_node *u = b->kids[k];
        if (u->op == IR_BLOCK) {
            f2i_find(u);
            continue;
        }
        if (u->op != IR_LET || u->var->type != ty_int) continue;
        struct ir_node *e = u->a, *conv = NULL;
        if (e->op == IR_CONV) conv = e;
        else if (e->op == IR_BUILTIN && e->builtin == BI_MIN2 && e->nkids == 2 && e->type == ty_int) {
            if (e->kids[0]->op == IR_CONV && quiet(e->kids[1])) conv = e->kids[0];
            else if (e->kids[1]->op == IR_CONV && quiet(e->kids[0])) conv = e->kids[1];
        }
        if (!conv || conv->optype != ty_float || conv->type != ty_int || conv->f2i_later) continue;
        CONV = conv, NCARRY = 0;
        CARRY[NCARRY++] = u->var;
        bool stop = false;
        struct ir_node *t = find_store(b, k + 1, &stop);
        if (!t) continue;
        VEC_GROW(SITES, NSITES, CAPSITES);
        struct f2i_site *f = &SITES[NSITES];
        *f = (struct f2i_site){.block = b, .let = u, .conv = conv, .operand = conv->a, .store = t};
        KEYED = f->reads, NKEYED = 0;
        keyed_reads(t->a);
        f->nreads = NKEYED;
        if (NKEYED >= 0) NSITES++;
    }
}

static int NSEEN;
static struct ir_node *SEEN_STORE;

static void count_store(struct ir_node *n)
{
    if (!n) return;
    if (n == SEEN_STORE) NSEEN++;
    ir_each_child(n, count_store);
}

/* Whether the sites of store (and of their conversions) are all the
 * copies there are: each copy of the store found fused, no conversion
 * shared with another store's site. */
static bool all_copies(struct ir_node *fb, struct ir_node *store)
{
    int sites = 0;
    for (int j = 0; j < NSITES; j++) {
        if (SITES[j].store != store) continue;
        sites++;
        for (int h = 0; h < NSITES; h++)
            if (SITES[h].conv == SITES[j].conv && SITES[h].store != store) return false;
    }
    SEEN_STORE = store, NSEEN = 0;
    count_store(fb);
    return sites == NSEEN;
}

/* Makes the fusions of function body fb whose stores it found fused in
 * every copy: X in a let of its own before b's (one variable for the
 * copies of a store), the conversion raw, the store's check and its
 * value's keyed reads' testing it. */
static void f2i_fuse(struct ir_node *fb)
{
    for (int i = 0; i < NSITES; i++) {
        struct f2i_site *f = &SITES[i];
        struct ir_node *store = f->store;
        if (f->done) continue;
        bool ok = all_copies(fb, store);
        struct ir_var *x = ok ? ir_new_temp(PP, ty_float, f->conv->loc) : NULL;
        for (int j = i; j < NSITES; j++) {
            struct f2i_site *g = &SITES[j];
            if (g->store != store) continue;
            g->done = true;
            if (!ok) continue;
            struct ir_node *b = g->block;
            int k = 0;
            while (k < b->nkids && b->kids[k] != g->let) k++;
            struct ir_node **kids = arena_alloc((size_t)(b->nkids + 1) * sizeof *kids);
            memcpy(kids, b->kids, (size_t)k * sizeof *kids);
            kids[k] = ir_mk_stmt(IR_LET, x, g->operand, g->conv->loc);
            memcpy(kids + k + 1, b->kids + k, (size_t)(b->nkids - k) * sizeof *kids);
            b->kids = kids;
            b->nkids++;
            g->conv->a = ir_mk_var(x, g->conv->loc);
            g->conv->a->inl = g->conv->inl;
            g->conv->f2i_later = true;
            for (int r = 0; r < g->nreads; r++) g->reads[r]->f2i_conv = f->conv;
        }
        if (ok) store->f2i_conv = f->conv;
    }
    NSITES = 0;
}

static void prefetch_node(struct ir_node *n)
{
    if (!n) return;
    ir_each_child(n, prefetch_node);
    bool range = n->op == IR_FOR_RANGE && !n->par && n->iter.lo->type == ty_int;
    bool array = n->op == IR_FOR_ARRAY && !ir_range_values(n) && scalar_array(n->iter.array->type);
    if (!(range || array) || n->swap || n->jam || n->nslots || n->guards_outside) return;
    pf_loop = n, pf_inner = pf_scatter = false, pf_nlets = 0;
    lets(n->b);
    scan(n->b);
    if (pf_inner || !pf_scatter) return;
    if (n->b && n->b->op == IR_BLOCK) f2i_find(n->b);
    if (array) n->prefetch = true;
    else streams(n->b);
    if (n->nstreams) n->prefetch = true;
}

void opt_prefetch(struct ir_program *ir)
{
    PP = ir;
    for (int i = 0; i < ir->fns.len; i++) {
        struct ir_node *body = ((struct ir_fn *)ir->fns.items[i])->body;
        prefetch_node(body);
        f2i_fuse(body);
    }
}
