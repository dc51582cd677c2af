/*
 * opt_cover.c: a fresh array whose every element the statements after it
 * store before anything reads it is made without its fill:
 *
 *     var h = [[0.0] * n for i in 0..n]          var h = [unset(n) for i in 0..n] if n >= 3 else (as written)
 *     for k in 0..n:                              (the same statements)
 *         h[0][k] = ...; h[n - 1][k] = ...
 *         h[k][0] = ...; h[k][n - 1] = ...
 *     for i in 1..n - 1:
 *         for j in 1..n - 1:
 *             h[i][j] = ...
 *
 * The array: `[Z] * m` or `[Z for j in 0..m]` (Z a literal int, float or
 * bool), or a comprehension `[A for i in 0..m]` of such an A that does not
 * read i (one to three dimensions, each of one length). The statements after
 * it in its block, up to the one whose stores complete the cover, name it
 * only as the array a store stores into or reads as below (no other read
 * of it, no assignment, push or method), leave nothing early (no
 * return, no break or continue of an outer loop), and change none of the
 * variables the lengths and bounds below read.
 *
 * The cover: a store reached from the block through blocks and range loops
 * (or range(start, stop, -1), below) only (no while: it runs on every iteration; a box that both branches of
 * an if store, the same elements on each iteration of the loops around the
 * if, counts, whichever branch runs), each loop running
 * every iteration (no break, continue or return in its body), stores into a
 * box: in each dimension the store's index is k + c for a loop variable k
 * (another dimension's index does not use k) of a loop `for k in lo..hi`,
 * giving lo + c .. hi + c, or an expression the statements do not change,
 * one index; a store of fewer indices than dimensions (h[i] = row) stores
 * whole rows. Every loop around the store gives one dimension (a loop no
 * index uses may have an empty range: the store would not run). Indices,
 * bounds and lengths are linear: a literal, or one term (a variable or len
 * of one) plus a literal. Per dimension the points (0,
 * the length, the boxes' ends) are ordered by assuming each literal is below
 * each term plus its literal: that holds when the term is at least a bound
 * the pass computes, tested at run time (the guard); under it the points cut
 * each dimension into pieces, and every product of pieces inside the array
 * must lie in one box. When it does, every element is stored before the
 * array is read; the guard false, the array is made as written.
 *
 * The reads of a one-dimensional array: a statement of the window may read the
 * array as a[e] (and len(a)) when the element read was stored before the
 * read on every run: (1) e is linear, its base unchanged by the window, and
 * lies in a box of the statements before it, compared exactly (the same
 * base or none: lo <= e < hi by the literals alone, no guard); or (2) the
 * recurrence: the read is inside a range loop `for k in lo..hi` that
 * stores a[k + d] on every iteration (the cover's rule for a box, lo and
 * hi unchanged by the window), e is k + c with 0 < d - c <= 8, and
 * a[lo + c] .. a[lo + d - 1] lie in boxes of the statements before, as in
 * (1). At iteration k, element k + c is either one of those, or at least
 * lo + d: stored at iteration k + c - d, which is at least lo and below k.
 * A loop `for k in range(start, stop, -1)` counts down: its values are
 * stop + 1 .. start + 1 for its boxes, and its recurrence reads a[k + c]
 * with 0 < c - d <= 8, a[start + 1 + d] .. a[start + c] stored before
 * (element k + c is one of those, or at most start + d: stored at
 * iteration k + c - d, above k, so earlier). Such a loop's start or stop
 * that is a variable a let of the window defines as a linear value
 * (`let i = n - 2`), changed nowhere in the window, is read as that value. A read of
 * an element not stored yet (a[i + 1] ahead of a[i], or a[0] that nothing
 * stored before a loop from 1) is refused: the array keeps its fill and
 * the read gives its zero.
 *
 * The reads of a table (two or three dimensions): a statement of the
 * window may read t[e1][e2] (t[e1][e2][e3]; len(t), len(t[e]) too) when
 * the element read was stored before the read on every run, or the read
 * panics. Each index is k + c for a range loop `for k in lo..hi` around the
 * read (lo, hi unchanged by the window, k by the body), a value the window
 * does not change, or anything else (not known). What is stored at the
 * read: (a) the boxes of the statements of the window before it; (b) the
 * boxes of the statements before the read in each block around it, at
 * the current iteration of the loops around that block (`t[i][0] = i`
 * before the loop over j: the element (i, 0) of this i); (c) for each
 * range loop around the read, the boxes its body stores on every
 * iteration (the cover's rule), at its earlier iterations: a box storing
 * t[k + d][..] at iteration k holds the element k + c read when c < d
 * (at most 8 apart) and k + c - d >= lo. An index lies in a box's
 * dimension when its values (k + c over the loop's values, or its one
 * value) lie in the box's, compared exactly (the same base or none), or
 * beyond the end of the array where the box reaches its end (or below 0
 * where the box starts at 0): such a read panics, as it does with the
 * fill; an index not known only in a box of the whole dimension (the row
 * above, t[i - 1][w - wt], complete). Where a loop's first or last few
 * values (at most 16) miss a box that the rest lie in, they are split off
 * and each checked alone: t[i - 1][j - 1] of the edit distance reads row
 * 0 (a) at i = lo, column 0 of the row above (c, the store before the
 * inner loop) at j = lo, and the inner box of the row above (c) else;
 * t[i][j - 1] reads (i, 0) (b) at j = lo and (c) of the loop over j else;
 * t[i - 1][j + 1] at j = hi - 1 reads what a store of the row's last
 * column holds or panics. Each element so found was stored, earlier in
 * this run, by a store that ran (every iteration of a loop with no exit
 * stores its box, a loop's earlier iterations are done, the statements
 * before in a block are done) and nothing changes an element stored but
 * a store. A read ahead (t[i][j + 1] at (i, j): its iteration is later),
 * or of an element nothing stored first (LCS reading row 0 and column 0
 * that no store writes) keeps the fill.
 *
 * A range loop's bound that is a variable holding a literal where the loop
 * starts (learn: the window walked in order, a let or assignment of a
 * literal, or of a variable holding one, plus a literal, forgotten where a
 * statement changes it, a loop's body seeing what any iteration changes
 * forgotten) is read as that literal: counted while loops start at `let
 * v26 = j` after `var j = 0`.
 *
 * Why it keeps the program's meaning: the array has the same lengths, every
 * element holds the value last stored, as it would, and every read reads
 * an element stored before it, so the same value; a read or store out of
 * range panics where it did (the lengths are the same); a panic before the
 * cover is complete ends the program with the array unread.
 *
 * A prefix stored in order (try_prefix, below): `out[count] = E; count +=
 * 1` from count = 0 stores out[0 .. count - 1]; the array is made unset
 * and the rest filled after the loop.
 *
 * Why: the zero fill of a grid that a sweep then overwrites is a pass over
 * its memory and a call per row (stencil/new_grid_main: 42 -> 23 ms at one
 * thread, the C 16.4); a dynamic programming table's fill is a quarter of
 * its run (editdist/grid_fn, 2001 x 2001 ints).
 */
#include "ir.h"

#include <string.h>

static struct ir_program *P;

enum { MAXDIM = 3, MAXBOX = 32, MAXPOINT = 2 * MAXBOX + 2, MAXLOOP = 8 };

/* A linear value: base (a variable or len of one; NULL: none) + c. */
struct lin {
    struct ir_node *base;
    int64_t c;
};

struct box {
    struct lin lo[MAXDIM], hi[MAXDIM];
    bool all[MAXDIM];
    struct ir_var *by[MAXDIM]; /* the loop variable a dimension's index is k + c of (NULL: one index) */
    struct ir_var *cur[MAXDIM]; /* a fixed loop's variable k: the one element k + lo.c of its current iteration */
};

/* The cover being built for one array. */
struct cover {
    struct ir_var *arr;
    int dims;
    struct lin len[MAXDIM];
    struct box boxes[MAXBOX];
    int nboxes;
    bool overflow;           /* more boxes than MAXBOX: give up */
    struct ir_node *loops[MAXLOOP]; /* the range loops around the store being read, outermost first */
    int nloops;
    struct ir_node *const *fixed; /* loops around the statements collected, at their current iteration */
    int nfixed;
};

static bool same_base(const struct ir_node *a, const struct ir_node *b)
{
    if (!a || !b) return a == b;
    if (a->op == IR_VAR && b->op == IR_VAR) return a->var == b->var;
    return a->op == IR_BUILTIN && b->op == IR_BUILTIN && a->builtin == BI_LEN && b->builtin == BI_LEN &&
           a->kids[0]->var == b->kids[0]->var;
}

/* The variable a base reads. */
static struct ir_var *base_var(const struct ir_node *b)
{
    return b->op == IR_VAR ? b->var : b->kids[0]->var;
}

#define LIN_MAX ((int64_t)1 << 40)

/* Whether int expression e is linear; *out its form. */
static bool linear(struct ir_node *e, struct lin *out)
{
    if (e->type != ty_int) return false;
    if (e->op == IR_INT) {
        __int128 v = (__int128)e->ival;
        if (v > LIN_MAX || v < -LIN_MAX) return false;
        *out = (struct lin){NULL, (int64_t)v};
        return true;
    }
    if (e->op == IR_BINARY && (e->bop == OP_ADD || e->bop == OP_SUB)) {
        struct lin x;
        struct ir_node *lit = e->b->op == IR_INT ? e->b : e->bop == OP_ADD && e->a->op == IR_INT ? e->a : NULL;
        if (!lit || !linear(lit == e->b ? e->a : e->b, &x)) return false;
        __int128 v = (__int128)lit->ival;
        if (v > LIN_MAX || v < -LIN_MAX) return false;
        x.c += e->bop == OP_ADD ? (int64_t)v : -(int64_t)v;
        *out = x;
        return true;
    }
    if (ir_repeatable(e)) {
        *out = (struct lin){e, 0};
        return true;
    }
    return false;
}

static bool literal_elem(struct ir_node *z)
{
    return (z->op == IR_INT && z->type == ty_int) || (z->op == IR_FLOAT && z->type == ty_float) ||
           (z->op == IR_BOOL && z->type == ty_bool);
}

/* The fresh array e (a copy, changed in place) as described above: its
 * lengths from dimension d on into c->len; NULL when it is not one, else
 * the same array made unset. */
static struct ir_node *unfilled(struct ir_node *e, struct cover *c, int d)
{
    if (d >= MAXDIM || e->type->kind != T_ARRAY) return NULL;
    struct ir_node *count = NULL;
    if (e->op == IR_BINARY && e->bop == OP_MUL && e->a->op == IR_ARRAY && e->a->nkids == 1 && literal_elem(e->a->kids[0]) &&
        e->b->type == ty_int)
        count = e->b;
    else if (e->op == IR_LISTCOMP && e->iter.is_range && !e->iter.inclusive && !e->filter && !e->nclauses && !e->par &&
             e->iter.lo->op == IR_INT && e->iter.lo->ival == 0)
        count = e->iter.hi;
    else
        return NULL;
    if (!linear(count, &c->len[d])) return NULL;
    c->dims = d + 1;
    if (e->op == IR_BINARY || literal_elem(e->elem)) { /* the innermost dimension: values not yet set */
        struct ir_node *u = ir_new(IR_BUILTIN, e->loc, e->type);
        u->builtin = BI_UNSET;
        ir_push_kid(u, count);
        return u;
    }
    if (ir_reads(e->elem, e->gen_var)) return NULL; /* rows of one length */
    struct ir_node *inner = unfilled(e->elem, c, d + 1);
    if (!inner) return NULL;
    e->elem = inner;
    return e;
}

/* Whether statement s defines v: a let or a loop of it anywhere in s. */
static bool defines(struct ir_node *s, struct ir_var *v)
{
    if (!s || ir_is_expr(s)) return false;
    if ((s->op == IR_LET || s->op == IR_FOR_RANGE || s->op == IR_FOR_ARRAY) && s->var == v) return true;
    for (int i = 0; s->op == IR_BLOCK && i < s->nkids; i++)
        if (defines(s->kids[i], v)) return true;
    if (s->op == IR_IF) return defines(s->b, v) || defines(s->c, v);
    if (s->op == IR_WHILE || s->op == IR_FOR_RANGE || s->op == IR_FOR_ARRAY) return defines(s->b, v);
    return false;
}

/* Whether statement s defines or changes v: a let or loop of it, an
 * assignment, a push, a method that changes it (ir_writes walks s once). */
static bool changes(struct ir_node *s, struct ir_var *v)
{
    return ir_writes(s, v, false) || defines(s, v);
}

/* The statements after the array, for the bases' check. */
static struct ir_node **window;
static int nwindow;

/* Whether the base of l is one the window does not change. */
static bool steady(const struct lin *l)
{
    if (!l->base) return true;
    struct ir_var *v = base_var(l->base);
    for (int i = 0; i < nwindow; i++)
        if (changes(window[i], v)) return false;
    return true;
}

/* A base that a let of the window (one of its statements, not in a loop)
 * defines as a linear value and nothing in the window changes after,
 * written as that value (`let i = n - 2` then range(i, -1, -1)): the let
 * runs before the loop that reads it. */
static void resolve(struct lin *x)
{
    if (!x->base || x->base->op != IR_VAR) return;
    struct ir_var *v = x->base->var;
    struct ir_node *let = NULL;
    for (int i = 0; i < nwindow; i++) {
        if (window[i]->op == IR_LET && window[i]->var == v) let = window[i];
        else if (changes(window[i], v)) return;
    }
    struct lin y;
    if (let && ir_writes(let, v, false)) return;
    if (let && linear(let->a, &y) && steady(&y)) *x = (struct lin){y.base, y.c + x->c};
}

/* ---- the literal values of variables at the loops of the window ---- */

enum { MAXKNOWN = 32, MAXBOUND = 64 };

/* A variable and the literal it holds at a point of the window. */
struct known {
    struct ir_var *v[MAXKNOWN];
    int64_t val[MAXKNOWN];
    int n;
};

/* The range loops of the window whose bound is a variable holding a literal
 * where the loop starts, and that literal (counted while loops: `let j =
 * 0` ... `let v26 = j; for k in v26..=m`). */
static struct bound {
    struct ir_node *loop;
    bool lo_set, hi_set;
    int64_t lo, hi;
} BOUNDS[MAXBOUND];
static int NBOUNDS;

/* The literal e is where env holds: a literal, or a known variable plus one. */
static bool known_value(const struct known *env, struct ir_node *e, int64_t *out)
{
    struct lin x;
    if (!linear(e, &x)) return false;
    if (!x.base) {
        *out = x.c;
        return true;
    }
    for (int i = 0; x.base->op == IR_VAR && i < env->n; i++)
        if (env->v[i] == x.base->var) {
            *out = env->val[i] + x.c;
            return true;
        }
    return false;
}

/* Forgets the variables statement s changes (all of them for each). */
static void forget(struct known *env, struct ir_node *s)
{
    for (int i = 0; i < env->n; i++)
        if (changes(s, env->v[i])) env->v[i] = env->v[--env->n], env->val[i] = env->val[env->n], i--;
}

static void set_known(struct known *env, struct ir_var *v, bool is, int64_t val)
{
    for (int i = 0; i < env->n; i++)
        if (env->v[i] == v) env->v[i] = env->v[--env->n], env->val[i] = env->val[env->n], i--;
    if (is && env->n < MAXKNOWN && v->type == ty_int) env->v[env->n] = v, env->val[env->n++] = val;
}

/* Walks statement s in the order it runs, env what holds before it. */
static void learn(struct known *env, struct ir_node *s)
{
    if (!s || ir_is_expr(s)) return;
    int64_t val = 0;
    switch (s->sop) {
    case IR_BLOCK:
        for (int i = 0; i < s->nkids; i++) learn(env, s->kids[i]);
        return;
    case IR_LET: case IR_ASSIGN: {
        bool is = s->a && known_value(env, s->a, &val);
        set_known(env, s->var, is, val);
        return;
    }
    case IR_IF: {
        struct known then = *env, other = *env;
        learn(&then, s->b);
        learn(&other, s->c);
        forget(env, s);
        return;
    }
    case IR_FOR_RANGE: case IR_FOR_ARRAY: case IR_WHILE: {
        if (s->op == IR_FOR_RANGE && NBOUNDS < MAXBOUND) {
            int64_t lo = 0, hi = 0;
            bool l = s->iter.lo->op == IR_VAR && known_value(env, s->iter.lo, &lo);
            bool h = s->iter.hi->op == IR_VAR && known_value(env, s->iter.hi, &hi);
            if (l || h) BOUNDS[NBOUNDS++] = (struct bound){s, l, h, lo, hi};
        }
        struct known body = *env;
        forget(&body, s); /* what an iteration changes, the next one sees changed */
        learn(&body, s->b);
        forget(env, s);
        return;
    }
    default:
        forget(env, s);
        return;
    }
}

/* The values loop l gives its variable, lo .. hi (hi excluded): a range
 * loop's bounds, or range(start, stop, -1)'s stop + 1 .. start + 1, taken
 * in descending order (*down). */
static bool span(struct ir_node *l, struct lin *lo, struct lin *hi, bool *down)
{
    *down = l->op == IR_FOR_ARRAY;
    if (!*down) {
        if (!linear(l->iter.lo, lo) || !linear(l->iter.hi, hi)) return false;
        for (int i = 0; i < NBOUNDS; i++)
            if (BOUNDS[i].loop == l) {
                if (BOUNDS[i].lo_set) *lo = (struct lin){NULL, BOUNDS[i].lo};
                if (BOUNDS[i].hi_set) *hi = (struct lin){NULL, BOUNDS[i].hi};
            }
        if (l->iter.inclusive) hi->c += 1;
        return true;
    }
    struct ir_node *r = l->iter.array;
    if (!ir_range_values(l) || r->nkids != 3 || r->kids[2]->op != IR_INT || r->kids[2]->ival != (unsigned __int128)(__int128)-1 ||
        !linear(r->kids[1], lo) || !linear(r->kids[0], hi))
        return false;
    resolve(lo);
    resolve(hi);
    lo->c += 1;
    hi->c += 1;
    return true;
}

/* The box of store s (c->loops around it), if it is one. */
static void store_box(struct cover *c, struct ir_node *s)
{
    if (c->nboxes >= MAXBOX) {
        c->overflow = true;
        return;
    }
    if (s->nkids > c->dims) return;
    struct box b = {0};
    struct ir_var *used[MAXDIM] = {0};
    for (int d = 0; d < c->dims; d++) {
        if (d >= s->nkids) {
            b.all[d] = true;
            continue;
        }
        struct ir_node *k = s->kids[d];
        if (k->op == IR_FIELD) return;
        struct lin x;
        if (!linear(k, &x)) return;
        struct ir_node *loop = NULL;
        if (x.base && x.base->op == IR_VAR)
            for (int i = 0; i < c->nloops; i++)
                if (c->loops[i]->var == x.base->var) loop = c->loops[i];
        for (int i = 0; !loop && x.base && x.base->op == IR_VAR && i < c->nfixed; i++)
            if (c->fixed[i]->var == x.base->var) {
                b.cur[d] = x.base->var;
                b.lo[d] = x;
                b.hi[d] = (struct lin){x.base, x.c + 1};
                break;
            }
        if (b.cur[d]) continue;
        if (loop) {
            struct lin lo, hi;
            bool down;
            for (int e = 0; e < d; e++)
                if (used[e] == loop->var) return; /* a diagonal, no box */
            used[d] = b.by[d] = loop->var;
            if (!span(loop, &lo, &hi, &down) || !steady(&lo) || !steady(&hi)) return;
            b.lo[d] = (struct lin){lo.base, lo.c + x.c};
            b.hi[d] = (struct lin){hi.base, hi.c + x.c};
        } else {
            if (!steady(&x)) return;
            b.lo[d] = x;
            b.hi[d] = (struct lin){x.base, x.c + 1};
        }
    }
    /* a loop none of the indices use may run no iteration (an empty range
     * of its own): the store then never runs */
    for (int i = 0; i < c->nloops; i++) {
        bool indexes = false;
        for (int d = 0; d < c->dims; d++) indexes |= used[d] == c->loops[i]->var;
        if (!indexes) return;
    }
    c->boxes[c->nboxes++] = b;
}

static bool same_lin(const struct lin *a, const struct lin *b)
{
    return same_base(a->base, b->base) && a->c == b->c;
}

/* v when one of the loops around an if (c->loops[0..outer-1]) is v's loop,
 * else NULL. */
static struct ir_var *outer_var(const struct cover *c, int outer, struct ir_var *v)
{
    for (int i = 0; i < outer; i++)
        if (c->loops[i]->var == v) return v;
    return NULL;
}

/* Whether the two branches of an if store boxes a and b into the same
 * elements on each iteration of the loops around it (the first outer of
 * c->loops): the same ends, and a dimension indexed by one of those loops'
 * variables k is k + c in both (h[k][j] over j in one branch and h[j][k]
 * in the other store the same box, but a row in one iteration and a
 * column in the next would miss elements). */
static bool same_box(const struct cover *c, int outer, const struct box *a, const struct box *b)
{
    for (int d = 0; d < c->dims; d++) {
        if (a->all[d] != b->all[d]) return false;
        if (a->all[d]) continue;
        if (!same_lin(&a->lo[d], &b->lo[d]) || !same_lin(&a->hi[d], &b->hi[d])) return false;
        if (outer_var(c, outer, a->by[d]) != outer_var(c, outer, b->by[d])) return false;
        if (a->cur[d] != b->cur[d]) return false;
    }
    return true;
}

/* The boxes of the stores that statement s runs every time it runs. */
static void collect(struct cover *c, struct ir_node *s)
{
    if (!s || ir_is_expr(s)) return;
    switch (s->sop) {
    case IR_BLOCK:
        for (int i = 0; i < s->nkids; i++) collect(c, s->kids[i]);
        return;
    case IR_FOR_RANGE: case IR_FOR_ARRAY: {
        struct lin lo, hi;
        bool down;
        if (c->nloops >= MAXLOOP || !span(s, &lo, &hi, &down) || ir_leaves(s->b, 0) || ir_writes(s->b, s->var, false)) return;
        c->loops[c->nloops++] = s;
        collect(c, s->b);
        c->nloops--;
        return;
    }
    case IR_STORE:
        if (s->var == c->arr) store_box(c, s);
        return;
    case IR_IF:
        if (s->c) { /* a box both branches store, whichever runs */
            struct cover then = *c, other = *c;
            then.nboxes = other.nboxes = 0;
            collect(&then, s->b);
            collect(&other, s->c);
            for (int i = 0; i < then.nboxes; i++)
                for (int k = 0; k < other.nboxes; k++)
                    if (same_box(c, c->nloops, &then.boxes[i], &other.boxes[k])) {
                        if (c->nboxes < MAXBOX) c->boxes[c->nboxes++] = then.boxes[i];
                        else c->overflow = true;
                        break;
                    }
            c->overflow |= then.overflow || other.overflow;
        }
        return;
    case IR_LET: case IR_ASSIGN: case IR_PUSH: case IR_EXPR: case IR_UNIQUE: case IR_WHILE:
    case IR_BREAK: case IR_CONTINUE: case IR_RETURN: case IR_UNREACHABLE:
        return;
    }
}

/* Points in the assumed order: literals first, then base + c; by c. */
static int point_cmp(const struct lin *a, const struct lin *b)
{
    if (!a->base != !b->base) return a->base ? 1 : -1;
    return a->c < b->c ? -1 : a->c > b->c;
}

struct axis {
    struct lin pts[MAXPOINT];
    int n;
    bool mixed; /* two different bases: no order */
};

static void axis_add(struct axis *x, struct lin p)
{
    for (int i = 0; i < x->n; i++) {
        if (x->pts[i].base && p.base && !same_base(x->pts[i].base, p.base)) x->mixed = true;
        if (same_base(x->pts[i].base, p.base) && x->pts[i].c == p.c) return;
    }
    if (x->n >= MAXPOINT) {
        x->mixed = true;
        return;
    }
    int at = x->n++;
    while (at > 0 && point_cmp(&x->pts[at - 1], &p) > 0) {
        x->pts[at] = x->pts[at - 1];
        at--;
    }
    x->pts[at] = p;
}

static int axis_at(const struct axis *x, struct lin p)
{
    for (int i = 0; i < x->n; i++)
        if (same_base(x->pts[i].base, p.base) && x->pts[i].c == p.c) return i;
    return -1;
}

/* Whether every product of pieces from dimension d on (pieces seg[0..d-1]
 * chosen) lies in a box. */
static bool covered_from(const struct cover *c, const struct axis *ax, int d, int *seg)
{
    if (d == c->dims) {
        for (int k = 0; k < c->nboxes; k++) {
            const struct box *b = &c->boxes[k];
            bool in = true;
            for (int e = 0; e < c->dims && in; e++)
                in = b->all[e] || (axis_at(&ax[e], b->lo[e]) <= seg[e] && seg[e] + 1 <= axis_at(&ax[e], b->hi[e]));
            if (in) return true;
        }
        return false;
    }
    int from = axis_at(&ax[d], (struct lin){NULL, 0}), to = axis_at(&ax[d], c->len[d]);
    for (seg[d] = from; seg[d] < to; seg[d]++)
        if (!covered_from(c, ax, d + 1, seg)) return false;
    return true;
}

/* The guard under which the boxes cover the array, or NULL when they do not
 * (*none: they do with no guard). */
static struct ir_node *cover_guard(const struct cover *c, struct loc at, bool *none)
{
    struct axis ax[MAXDIM];
    memset(ax, 0, sizeof ax);
    for (int d = 0; d < c->dims; d++) {
        axis_add(&ax[d], (struct lin){NULL, 0});
        axis_add(&ax[d], c->len[d]);
        for (int k = 0; k < c->nboxes; k++)
            if (!c->boxes[k].all[d]) axis_add(&ax[d], c->boxes[k].lo[d]), axis_add(&ax[d], c->boxes[k].hi[d]);
        if (ax[d].mixed) return NULL;
    }
    int seg[MAXDIM];
    if (!covered_from(c, ax, 0, seg)) return NULL;
    struct ir_node *bases[MAXDIM];
    int64_t least[MAXDIM];
    int nb = 0;
    for (int d = 0; d < c->dims; d++) {
        int64_t top = INT64_MIN, low = INT64_MAX; /* the largest literal, the least c of base + c */
        struct ir_node *base = NULL;
        for (int i = 0; i < ax[d].n; i++) {
            const struct lin *p = &ax[d].pts[i];
            if (p->base) {
                base = p->base;
                if (p->c < low) low = p->c;
            } else if (p->c > top) {
                top = p->c;
            }
        }
        if (!base) continue;
        /* base + low > top: base >= top - low + 1 (one test per base, the largest bound) */
        int k = 0;
        while (k < nb && !same_base(bases[k], base)) k++;
        if (k == nb) bases[nb] = base, least[nb++] = top - low + 1;
        else if (top - low + 1 > least[k]) least[k] = top - low + 1;
    }
    struct ir_node *g = NULL;
    for (int k = 0; k < nb; k++) {
        struct ir_node *t = ir_mk_bin(OP_GE, ir_copy(NULL, bases[k]), ir_mk_int(least[k], at), ty_bool);
        g = g ? ir_mk_and(g, t) : t;
    }
    *none = !g;
    return g;
}

/* ---- reads of elements already stored (one dimension) ---- */

enum { MAXLAG = 8 };

static struct cover *RC;           /* the array whose reads are checked */
static const struct cover *PRIOR;  /* the boxes the statements before the read's store */
static struct ir_node *RLOOPS[MAXLOOP]; /* the range loops around the node visited */
static int RNLOOPS;
static bool RBAD;

/* Loop n visited by visit: its bounds, then its body with n on the stack of
 * loops around it (too many: the reads are refused, RBAD). */
static void visit_loop(struct ir_node *n, void (*visit)(struct ir_node *), struct ir_node **stack, int *depth)
{
    visit(n->iter.lo);
    visit(n->iter.hi);
    visit(n->iter.array);
    if (*depth >= MAXLOOP) {
        RBAD = true;
        return;
    }
    stack[(*depth)++] = n;
    visit(n->b);
    (*depth)--;
}

/* Whether element x lies in a box of PRIOR, compared exactly (the same base
 * or none, by the literal): it was stored before the statement reading it. */
static bool stored_prior(struct lin x)
{
    for (int k = 0; k < PRIOR->nboxes; k++) {
        const struct box *b = &PRIOR->boxes[k];
        if (b->all[0] || (same_base(b->lo[0].base, x.base) && b->lo[0].c <= x.c &&
                          same_base(b->hi[0].base, x.base) && x.c < b->hi[0].c))
            return true;
    }
    return false;
}

/* Whether read RC->arr[e] (the loops RLOOPS around it) reads an element
 * stored before it: one the statements before stored, or the recurrence
 * arr[k + c] in loop `for k in lo..hi` that stores arr[k + d] on every
 * iteration, c < d, with arr[lo + c] .. arr[lo + d - 1] stored before. */
static bool stored_before(struct ir_node *e)
{
    struct lin x;
    if (!linear(e, &x)) return false;
    if (steady(&x) && stored_prior(x)) return true;
    struct ir_node *loop = NULL;
    for (int i = 0; x.base && x.base->op == IR_VAR && i < RNLOOPS; i++)
        if (RLOOPS[i]->var == x.base->var) loop = RLOOPS[i];
    struct lin lo, hi;
    bool down;
    if (!loop || !span(loop, &lo, &hi, &down)) return false;
    struct cover own = {.arr = RC->arr, .dims = 1, .len = {RC->len[0]}};
    collect(&own, loop);
    for (int k = 0; k < own.nboxes; k++) {
        const struct box *b = &own.boxes[k];
        /* up: a[lo + c] .. a[lo + d - 1]; down: a[hi + d] .. a[hi + c - 1] */
        const struct lin *from = down ? &hi : &lo;
        int64_t d = down ? b->hi[0].c - hi.c : b->lo[0].c - lo.c;
        int64_t gap = down ? x.c - d : d - x.c;
        if (b->by[0] != loop->var || !same_base((down ? b->hi : b->lo)[0].base, from->base) || gap <= 0 || gap > MAXLAG)
            continue;
        bool before = true;
        for (int64_t t = 0; t < gap && before; t++)
            before = stored_prior((struct lin){from->base, from->c + (down ? d : x.c) + t});
        if (before) return true;
    }
    return false;
}

static void visit_reads(struct ir_node *n)
{
    if (!n || RBAD) return;
    if (n->op == IR_VAR) {
        RBAD |= n->var == RC->arr;
        return;
    }
    if (ir_is_expr(n) && n->op == IR_BUILTIN && n->builtin == BI_LEN && n->kids[0]->op == IR_VAR) return;
    if (ir_is_expr(n) && n->op == IR_INDEX && n->a->op == IR_VAR && n->a->var == RC->arr) {
        RBAD |= !stored_before(n->b);
        visit_reads(n->b);
        return;
    }
    if (!ir_is_expr(n) && (n->op == IR_FOR_RANGE || n->op == IR_FOR_ARRAY)) {
        visit_loop(n, visit_reads, RLOOPS, &RNLOOPS);
        return;
    }
    ir_each_child(n, visit_reads);
}

/* ---- reads of a table (two or three dimensions) ---- */

enum { MAXFRAME = 64, MAXSPLIT = 2 * MAXLAG, RBUDGET = 20000 };

static struct ir_node *TLOOPS[MAXLOOP]; /* the range and array loops around the read, outermost first */
static int TNLOOPS;
static struct {
    struct ir_node *block; /* a block around the read */
    int at;                /* its statement being run */
    int nloops;            /* the loops of TLOOPS around the block */
} TFRAMES[MAXFRAME];
static int TNFRAMES;

/* A dimension's index at the read: k + c for loop `level` of TLOOPS
 * (level >= 0), the value x (level -1, its base unchanged by the window),
 * or not known (level -2). */
struct tdesc {
    int level;
    int64_t c;
    struct lin x;
};

/* What a check assumes of each loop of TLOOPS: k = at (point), or
 * lo + t <= k < hi - u. */
struct tctx {
    bool point[MAXLOOP];
    struct lin at[MAXLOOP];
    int64_t t[MAXLOOP], u[MAXLOOP];
};

/* The facts at one read. */
static struct {
    struct cover here;          /* what the statements before the read in its blocks stored */
    struct cover iter[MAXLOOP]; /* what loop l's body stores on every iteration */
    bool clean[MAXLOOP];        /* loop l's body does not assign its variable */
    bool ranged[MAXLOOP];       /* and it is a range loop lo..hi counting up, lo and hi steady */
    struct lin lo[MAXLOOP], hi[MAXLOOP];
} TF;
static int TSTEPS;

static struct tdesc tdesc_of(struct ir_node *e)
{
    struct lin x;
    if (!linear(e, &x)) return (struct tdesc){.level = -2};
    for (int l = 0; x.base && x.base->op == IR_VAR && l < TNLOOPS; l++)
        if (TLOOPS[l]->var == x.base->var) return TF.clean[l] ? (struct tdesc){l, x.c, {0}} : (struct tdesc){.level = -2};
    if (!steady(&x)) return (struct tdesc){.level = -2};
    return (struct tdesc){-1, 0, x};
}

/* The values lo .. hi (hi excluded) index el may take under cx. */
static bool tspan(const struct tdesc *el, const struct tctx *cx, struct lin *lo, struct lin *hi)
{
    if (el->level == -1) {
        *lo = el->x;
        *hi = (struct lin){el->x.base, el->x.c + 1};
        return true;
    }
    int l = el->level;
    if (l < 0 || !TF.ranged[l]) return false;
    if (cx->point[l]) {
        *lo = (struct lin){cx->at[l].base, cx->at[l].c + el->c};
        *hi = (struct lin){lo->base, lo->c + 1};
    } else {
        *lo = (struct lin){TF.lo[l].base, TF.lo[l].c + cx->t[l] + el->c};
        *hi = (struct lin){TF.hi[l].base, TF.hi[l].c - cx->u[l] + el->c};
    }
    return true;
}

/* Whether index el of dimension d lies in box b's dimension d under cx:
 * 1 yes, 0 no, 2 when it would after the first (3: the last) *s more
 * values of its loop *l are split off (the ends of the same base, *s at
 * most MAXLAG).
 * An index below 0 or at least the length panics: a box from 0, or one to
 * the length, holds every index below or above it that does not. */
static int dim_in(const struct box *b, int d, const struct tdesc *el, const struct tctx *cx, int *l, int64_t *s)
{
    if (b->all[d]) return 1;
    if (b->cur[d]) return el->level >= 0 && TLOOPS[el->level]->var == b->cur[d] && el->c == b->lo[d].c;
    bool below = !b->lo[d].base && b->lo[d].c <= 0;
    bool above = same_base(b->hi[d].base, RC->len[d].base) && b->hi[d].c >= RC->len[d].c;
    struct lin lo, hi;
    if (!tspan(el, cx, &lo, &hi)) return below && above;
    bool ranged = el->level >= 0 && !cx->point[el->level];
    int64_t over = above ? 0 : !same_base(hi.base, b->hi[d].base) ? LIN_MAX : hi.c - b->hi[d].c;
    int64_t under = below ? 0 : !same_base(lo.base, b->lo[d].base) ? LIN_MAX : b->lo[d].c - lo.c;
    if (over <= 0 && under <= 0) return 1;
    if (!ranged || over > MAXLAG || under > MAXLAG) return 0;
    *l = el->level;
    *s = under > 0 ? under : over;
    return under > 0 ? 2 : 3;
}

static bool held(const struct tdesc *el, const struct tctx *cx);

/* Whether the element el is in box b under cx (level >= 0: b is stored
 * by every iteration of loop `level` of TLOOPS, the element at an earlier
 * one), splitting a loop's first values off where that makes it so. */
static bool in_box(const struct box *b, int level, const struct tdesc *el, const struct tctx *cx)
{
    int near = -1, how = 0;
    int64_t gap = 0;
    bool by = level < 0; /* a box of earlier iterations holds its loop's variable in a dimension */
    for (int d = 0; d < RC->dims; d++) {
        int l = -1, r;
        int64_t s = 0;
        if (level >= 0 && b->by[d] == TLOOPS[level]->var) {
            /* b holds k' + e at iteration k': element k + c is stored at
             * k' = k + c - e, earlier when c < e, and one when k' >= lo */
            if (el[d].level != level || !same_base(b->lo[d].base, TF.lo[level].base)) return false;
            int64_t e = b->lo[d].c - TF.lo[level].c, c = el[d].c;
            if (c >= e || e - c > MAXLAG) return false;
            if (cx->point[level])
                r = same_base(cx->at[level].base, TF.lo[level].base) && cx->at[level].c + c - e >= TF.lo[level].c;
            else
                r = cx->t[level] + c - e >= 0 ? 1 : 2;
            l = level, s = e - c - cx->t[level];
            by = true;
        } else {
            r = dim_in(b, d, &el[d], cx, &l, &s);
        }
        if (r == 0) return false;
        if (r >= 2 && near < 0) near = l, gap = s, how = r;
    }
    if (!by) return false;
    if (near < 0) return true;
    if ((how == 2 ? cx->t[near] : cx->u[near]) + gap > MAXSPLIT) return false;
    /* near's first (last) gap values apart, each held anywhere, then the rest */
    struct tctx sub = *cx;
    sub.point[near] = true;
    for (int64_t v = 0; v < gap; v++) {
        sub.at[near] = how == 2 ? (struct lin){TF.lo[near].base, TF.lo[near].c + cx->t[near] + v}
                                : (struct lin){TF.hi[near].base, TF.hi[near].c - cx->u[near] - 1 - v};
        if (!held(el, &sub)) return false;
    }
    sub.point[near] = false;
    if (how == 2) sub.t[near] += gap;
    else sub.u[near] += gap;
    return held(el, &sub);
}

/* Whether element el (indices per dimension) was stored before the read
 * under cx, or the read panics. */
static bool held(const struct tdesc *el, const struct tctx *cx)
{
    if (++TSTEPS > RBUDGET) return false;
    for (int d = 0; d < RC->dims; d++) {
        struct lin lo, hi;
        if (tspan(&el[d], cx, &lo, &hi) && ((same_base(lo.base, RC->len[d].base) && lo.c >= RC->len[d].c) ||
                                            (!hi.base && hi.c <= 0)))
            return true; /* out of range: it panics as it did */
    }
    for (int k = 0; k < PRIOR->nboxes; k++)
        if (in_box(&PRIOR->boxes[k], -1, el, cx)) return true;
    for (int k = 0; k < TF.here.nboxes; k++)
        if (in_box(&TF.here.boxes[k], -1, el, cx)) return true;
    for (int l = 0; l < TNLOOPS; l++)
        for (int k = 0; TF.ranged[l] && k < TF.iter[l].nboxes; k++)
            if (in_box(&TF.iter[l].boxes[k], l, el, cx)) return true;
    return false;
}

/* Whether read RC->arr[idx[0]]..[idx[dims - 1]] reads an element stored
 * before it (the rule in the header). */
static bool table_read(struct ir_node *const *idx)
{
    struct ir_node *fixed[MAXLOOP];
    int nf = 0;
    for (int l = 0; l < TNLOOPS; l++) {
        struct ir_node *s = TLOOPS[l];
        bool down = true;
        TF.clean[l] = !ir_writes(s->b, s->var, false);
        TF.ranged[l] = TF.clean[l] && s->op == IR_FOR_RANGE && !s->par && span(s, &TF.lo[l], &TF.hi[l], &down) && !down &&
                       steady(&TF.lo[l]) && steady(&TF.hi[l]);
        TF.iter[l] = (struct cover){.arr = RC->arr, .dims = RC->dims, .fixed = fixed, .nfixed = nf};
        memcpy(TF.iter[l].len, RC->len, sizeof RC->len);
        if (TF.ranged[l]) collect(&TF.iter[l], s);
        if (TF.clean[l]) fixed[nf++] = s;
    }
    TF.here = (struct cover){.arr = RC->arr, .dims = RC->dims, .fixed = fixed};
    memcpy(TF.here.len, RC->len, sizeof RC->len);
    for (int k = 0; k < TNFRAMES; k++) {
        TF.here.nfixed = 0;
        for (int l = 0; l < TFRAMES[k].nloops; l++) TF.here.nfixed += TF.clean[l];
        for (int s = 0; s < TFRAMES[k].at; s++) collect(&TF.here, TFRAMES[k].block->kids[s]);
    }
    struct tdesc el[MAXDIM];
    for (int d = 0; d < RC->dims; d++) el[d] = tdesc_of(idx[d]);
    struct tctx cx = {0};
    TSTEPS = 0;
    return held(el, &cx);
}

/* The reads of a table in n (as visit_reads, with the blocks around each). */
static void visit_table(struct ir_node *n)
{
    if (!n || RBAD) return;
    bool expr = ir_is_expr(n);
    if (expr && n->op == IR_VAR) {
        RBAD |= n->var == RC->arr;
        return;
    }
    if (expr && (n->op == IR_INDEX || (n->op == IR_BUILTIN && n->builtin == BI_LEN && n->nkids == 1))) {
        struct ir_node *idx[MAXDIM + 1], *m = n->op == IR_INDEX ? n : n->kids[0];
        int depth = 0;
        while (ir_is_expr(m) && m->op == IR_INDEX && depth <= MAXDIM) idx[depth++] = m->b, m = m->a;
        if (ir_is_expr(m) && m->op == IR_VAR && m->var == RC->arr) {
            /* len(a), len(a[i]): the lengths, the same; a[i][j]: an element */
            bool len = n->op == IR_BUILTIN;
            if (len ? depth >= RC->dims : depth != RC->dims) {
                RBAD = true;
                return;
            }
            struct ir_node *first[MAXDIM];
            for (int d = 0; d < depth; d++) first[d] = idx[depth - 1 - d];
            for (int d = 0; d < depth; d++) visit_table(first[d]);
            if (!len && !RBAD) RBAD |= !table_read(first);
            return;
        }
    }
    if (!expr && n->op == IR_BLOCK) {
        if (TNFRAMES >= MAXFRAME) {
            RBAD = true;
            return;
        }
        int f = TNFRAMES++;
        TFRAMES[f].block = n;
        TFRAMES[f].nloops = TNLOOPS;
        for (int k = 0; k < n->nkids && !RBAD; k++) {
            TFRAMES[f].at = k;
            visit_table(n->kids[k]);
        }
        TNFRAMES--;
        return;
    }
    if (!expr && (n->op == IR_FOR_RANGE || n->op == IR_FOR_ARRAY)) {
        visit_loop(n, visit_table, TLOOPS, &TNLOOPS);
        return;
    }
    ir_each_child(n, visit_table);
}

/* Whether every read of c->arr in statement t (block b's statement j; the
 * array made by statement i) is of an element stored before it. */
static bool reads_stored(struct cover *c, struct ir_node *b, int i, int j)
{
    struct cover prior = {.arr = c->arr, .dims = c->dims};
    memcpy(prior.len, c->len, sizeof c->len);
    for (int k = i + 1; k < j; k++) collect(&prior, b->kids[k]);
    if (prior.overflow) return false;
    RC = c, PRIOR = &prior, RNLOOPS = 0, RBAD = false;
    TNLOOPS = TNFRAMES = 0;
    if (c->dims == 1) visit_reads(b->kids[j]);
    else visit_table(b->kids[j]);
    RC = NULL, PRIOR = NULL;
    return !RBAD;
}

/* Statement i of block b defines or assigns an array; the rewrite when the
 * statements after it cover it. */
static void try_cover(struct ir_node *b, int i)
{
    struct ir_node *s = b->kids[i];
    struct cover c = {.arr = s->var};
    if (ir_reads(s->a, s->var)) return; /* h = [0.0] * len(h): the old h's length */
        /* a plain copy to learn the lengths: a fresh one (new variables) only for the rewrite */
    if (!unfilled(ir_copy(NULL, s->a), &c, 0)) return;
    struct known env = {.n = 0};
    NBOUNDS = 0;
    for (int j = i + 1; j < b->nkids; j++) learn(&env, b->kids[j]);
    for (int j = i + 1; j < b->nkids; j++) {
        struct ir_node *t = b->kids[j];
        if (ir_writes(t, c.arr, false) || ir_leaves(t, 0)) return;
        window = b->kids + i + 1;
        nwindow = j - i;
        for (int d = 0; d < c.dims; d++)
            if (!steady(&c.len[d])) return;
        if (ir_stmt_reads(t, c.arr) && !reads_stored(&c, b, i, j)) return;
        if (!ir_writes(t, c.arr, true)) continue;
        /* the boxes again, over the longer window: a base steady so far may not be */
        c.nboxes = 0;
        c.overflow = false;
        for (int k = i + 1; k <= j; k++) collect(&c, b->kids[k]);
        if (c.overflow) return;
        bool none = false;
        struct ir_node *g = cover_guard(&c, s->loc, &none);
        if (!g && !none) continue;
        struct cover again = {.arr = c.arr};
        struct ir_node *fast = unfilled(ir_copy_fresh(P, s->a), &again, 0);
        if (none) {
            s->a = fast;
        } else {
            struct ir_node *cond = ir_new(IR_COND, s->a->loc, s->a->type);
            cond->a = g;
            cond->b = fast;
            cond->c = s->a;
            s->a = cond;
        }
        return;
    }
}

/* ---- a prefix stored in order, the rest filled after ---- */

static struct ir_var *PCOUNT; /* the counter of the stores */
static int PSTORES, PBUMPS;   /* stores arr[count] followed by count += 1; assignments of count */
static bool PBAD;

/* Whether s is `count = count + 1`. */
static bool bump(const struct ir_node *s, const struct ir_var *count)
{
    return s->op == IR_ASSIGN && s->var == count && s->a->op == IR_BINARY && s->a->bop == OP_ADD &&
           s->a->a->op == IR_VAR && s->a->a->var == count && s->a->b->op == IR_INT && s->a->b->ival == 1;
}

/* Counts the stores into arr and the assignments of PCOUNT in statement s:
 * every store is arr[count] (the first one names count) and the next
 * statement of its block count += 1. */
static void prefix_stores(struct ir_node *s, struct ir_var *arr)
{
    if (!s || ir_is_expr(s) || PBAD) return;
    if (s->op == IR_ASSIGN && s->var == PCOUNT) PBUMPS++;
    if (s->op == IR_FOR_RANGE || s->op == IR_FOR_ARRAY || s->op == IR_WHILE) prefix_stores(s->b, arr);
    if (s->op == IR_IF) prefix_stores(s->b, arr), prefix_stores(s->c, arr);
    for (int i = 0; s->op == IR_BLOCK && i < s->nkids; i++) {
        struct ir_node *t = s->kids[i];
        if (t->op == IR_STORE && t->var == arr) {
            if (t->nkids != 1 || t->kids[0]->op != IR_VAR || (PCOUNT && t->kids[0]->var != PCOUNT)) {
                PBAD = true;
                return;
            }
            PCOUNT = t->kids[0]->var;
            if (i + 1 >= s->nkids || !bump(s->kids[i + 1], PCOUNT)) {
                PBAD = true;
                return;
            }
            PSTORES++;
        }
        prefix_stores(t, arr);
    }
}

/* ---- the prefix's append without a branch ---- */

static const struct ir_node *STERMS[16]; /* what the condition evaluates each time it runs */
static int NSTERMS;

static void cond_terms(const struct ir_node *c)
{
    if (!c || NSTERMS >= 16) return;
    STERMS[NSTERMS++] = c;
    switch (c->op) {
    case IR_BINARY: cond_terms(c->a), cond_terms(c->b); break;
    case IR_UNARY: case IR_NOT: case IR_CONV: case IR_AND: case IR_OR: case IR_COND: cond_terms(c->a); break;
    case IR_INDEX: cond_terms(c->b); break;
    default: break;
    }
}

/* A term the condition itself evaluated just before (the same, node by
 * node: elements, len, + - *, min, max). */
static bool sterm(const struct ir_node *e, const void *ctx)
{
    (void)ctx;
    for (int i = 0; i < NSTERMS; i++)
        if (ir_same_expr(e, STERMS[i], IR_SAME_LEN_VAR | IR_SAME_ARITH | IR_SAME_LOADS)) return true;
    return false;
}

/* Whether value e, evaluated where the condition was false too, neither
 * panics nor does anything: ir_quiet without the facts of its place (they
 * may come from the condition), or a term the condition evaluated. */
static bool quiet_value(const struct ir_node *e)
{
    return ir_quiet(e, 0, sterm, NULL);
}

/* Whether no statement of b between i and j changes a variable that m reads. */
static bool steady_between(struct ir_node *b, int i, int j, const struct ir_node *m)
{
    if (!m) return true;
    if (m->op == IR_VAR)
        for (int k = i + 1; k < j; k++)
            if (ir_writes(b->kids[k], m->var, false)) return false;
    if (m->op == IR_BUILTIN)
        for (int k = 0; k < m->nkids; k++)
            if (!steady_between(b, i, j, m->kids[k])) return false;
    return steady_between(b, i, j, m->a) && steady_between(b, i, j, m->b);
}

/* try_prefix's loop t, a range loop from a literal lo >= 0 to hi or an
 * array loop over xs, whose body holds `if C: arr[count] = E; count += 1`
 * as a statement of its own, the only store into arr; arr made `[Z] * m`
 * by statement i of block b, m the same as hi or len(xs) with nothing
 * between changing what it reads. Then before each iteration count is at
 * most the number of iterations run (it starts at 0 and grows by one at
 * most each), so below hi - lo <= m = len(arr) wherever the store runs:
 * the store is in bounds whether C holds or not. The if becomes
 *
 *     let c = C
 *     arr[count] = E              (in bounds)
 *     count = count + 1 if c else count
 *
 * when E is a quiet value (quiet_value: it runs when C is false too, with
 * no panic and no effect). Where C is false the store writes the element
 * at count, one no store reads (t does not read arr) and that the next
 * kept value or the fill after t (for k in count..len(arr)) writes again:
 * every element holds what it would. A loop of no unpredictable branch
 * (compact/count_fn: 7.6 -> 6.4 ms; the C 5.8, branching). */
static void append_select(struct ir_node *b, int i, int j, const struct ir_node *m, struct ir_var *arr,
                          struct ir_var *count)
{
    struct ir_node *t = b->kids[j], *body = t->b;
    if (t->op == IR_FOR_RANGE) {
        if (t->iter.inclusive || t->iter.lo->op != IR_INT || (int64_t)t->iter.lo->ival < 0 ||
            !ir_same_expr(t->iter.hi, m, IR_SAME_LEN_VAR | IR_SAME_ARITH))
            return;
    } else if (t->op == IR_FOR_ARRAY) {
        if (t->iter.array->op != IR_VAR || m->op != IR_BUILTIN || m->builtin != BI_LEN || m->nkids != 1 ||
            m->kids[0]->op != IR_VAR || m->kids[0]->var != t->iter.array->var)
            return;
    } else
        return;
    if (!steady_between(b, i, j, m) || !body || body->op != IR_BLOCK) return;
    for (int k = 0; k < body->nkids; k++) {
        struct ir_node *f = body->kids[k];
        if (f->op != IR_IF || (f->c && !(f->c->op == IR_BLOCK && f->c->nkids == 0)) || !f->b ||
            f->b->op != IR_BLOCK || f->b->nkids != 2)
            continue;
        struct ir_node *st = f->b->kids[0];
        if (st->op != IR_STORE || st->var != arr || st->nkids != 1 || st->kids[0]->op != IR_VAR ||
            st->kids[0]->var != count || !bump(f->b->kids[1], count))
            continue;
        NSTERMS = 0;
        cond_terms(f->a);
        if (!quiet_value(st->a)) return;
        struct loc at = f->loc;
        struct ir_var *c = ir_new_temp(P, ty_bool, at);
        struct ir_node *let = ir_mk_stmt(IR_LET, c, f->a, at);
        st->in_bounds = true;
        struct ir_node *sel = ir_new(IR_COND, at, ty_int);
        sel->a = ir_mk_var(c, at);
        sel->b = f->b->kids[1]->a;
        sel->c = ir_mk_var(count, at);
        struct ir_node *as = ir_mk_stmt(IR_ASSIGN, count, sel, at);
        struct ir_node **kids = arena_alloc((size_t)(body->nkids + 2) * sizeof *kids);
        memcpy(kids, body->kids, (size_t)k * sizeof *kids);
        kids[k] = let, kids[k + 1] = st, kids[k + 2] = as;
        memcpy(kids + k + 3, body->kids + k + 1, (size_t)(body->nkids - k - 1) * sizeof *kids);
        body->kids = kids;
        body->nkids += 2;
        return;
    }
}

/* Statement i of block b makes a one-dimensional array `[Z] * m` (any int
 * m: its length is read back as len(arr)); statement j, the first after it naming the array,
 * stores into it only as arr[count], each store followed at once in its
 * block by `count = count + 1`, the only changes of count in j; count is
 * an int declared `= 0` by a statement between i and j that nothing after
 * it there changes; j does not read the array, assign it or leave early.
 * Then elements 0 .. count - 1 are stored at j's end and no other: the
 * array is made unset (`[unset] * m if m >= 1 else [Z] * m` where m is a
 * sum opt_range reads as its length: evaluated again, the same) and
 * `for k in count..len(arr): arr[k] = Z` follows j,
 * so each element holds what it would (a store out of range panics as it
 * did; a panic in j ends the program with the array unread). Why:
 * compact/count_fn zeroed all of out, then overwrote the kept prefix. */
static void try_prefix(struct ir_node *b, int i)
{
    struct ir_node *s = b->kids[i];
    struct cover c = {.arr = s->var};
    struct ir_node *e = s->a;
    if (ir_reads(e, s->var) || e->op != IR_BINARY || e->bop != OP_MUL || e->a->op != IR_ARRAY || e->a->nkids != 1 ||
        !literal_elem(e->a->kids[0]) || e->b->type != ty_int)
        return;
    int j = i + 1;
    while (j < b->nkids && !ir_names(b->kids[j], c.arr)) j++;
    if (j >= b->nkids) return;
    struct ir_node *t = b->kids[j];
    if (ir_leaves(t, 0) || ir_writes(t, c.arr, false) || ir_stmt_reads(t, c.arr) || !ir_writes(t, c.arr, true)) return;
    PCOUNT = NULL, PBAD = false;
    prefix_stores(t, c.arr); /* finds count; again to count its assignments from the start */
    PSTORES = PBUMPS = 0;
    prefix_stores(t, c.arr);
    struct ir_var *count = PCOUNT;
    PCOUNT = NULL;
    if (PBAD || !count || PBUMPS != PSTORES || ir_mentions(t, c.arr) != PSTORES || count->type != ty_int) return;
    int let = -1;
    for (int k = i + 1; k < j; k++) {
        struct ir_node *u = b->kids[k];
        if (u->op == IR_LET && u->var == count && u->a->op == IR_INT && u->a->ival == 0) let = k;
        else if (let >= 0 && changes(u, count)) return;
    }
    if (let < 0) return;
    if (PSTORES == 1) append_select(b, i, j, e->b, c.arr, count);
    struct ir_node *z = e->a->kids[0];
    struct ir_node *u = ir_new(IR_BUILTIN, e->loc, e->type);
    u->builtin = BI_UNSET;
    ir_push_kid(u, ir_copy(NULL, e->b));
    s->a = u;
    if (ir_repeatable_sum(e->b)) { /* m evaluated again, the same: the form opt_range reads m as the length of */
        struct ir_node *cond = ir_new(IR_COND, e->loc, e->type);
        cond->a = ir_mk_bin(OP_GE, ir_copy(NULL, e->b), ir_mk_int(1, e->loc), ty_bool);
        cond->b = u;
        cond->c = e;
        s->a = cond;
    }
    struct loc at = t->loc;
    struct ir_var *k = ir_new_temp(P, ty_int, at);
    struct ir_node *store = ir_mk_stmt(IR_STORE, c.arr, ir_copy(NULL, z), at);
    ir_push_kid(store, ir_mk_var(k, at));
    struct ir_node *body = ir_new(IR_BLOCK, at, ty_void);
    ir_push_kid(body, store);
    struct ir_node *fill = ir_new(IR_FOR_RANGE, at, ty_void);
    fill->var = k;
    fill->iter.is_range = true;
    fill->iter.lo = ir_mk_var(count, at);
    fill->iter.hi = ir_mk_len(ir_mk_var(c.arr, at));
    fill->b = body;
    /* a new list: a pass before may have put b's in the arena (no realloc) */
    struct ir_node **kids = arena_alloc((size_t)(b->nkids + 1) * sizeof *kids);
    memcpy(kids, b->kids, (size_t)(j + 1) * sizeof *kids);
    kids[j + 1] = fill;
    memcpy(kids + j + 2, b->kids + j + 1, (size_t)(b->nkids - j - 1) * sizeof *kids);
    b->kids = kids;
    b->nkids++;
}

static void cover_block(struct ir_node *b)
{
    for (int i = 0; i < b->nkids; i++) ir_stmt_blocks(b->kids[i], cover_block);
    for (int i = 0; i < b->nkids; i++) {
        struct ir_node *s = b->kids[i];
        if ((s->op == IR_LET || s->op == IR_ASSIGN) && s->a && s->var->type->kind == T_ARRAY) {
            struct ir_node *made = s->a;
            try_cover(b, i);
            if (s->a == made) try_prefix(b, i);
        }
    }
    window = NULL;
    nwindow = 0;
}

void opt_cover(struct ir_program *ir)
{
    P = ir;
    for (int i = 0; i < ir->fns.len; i++) cover_block(((struct ir_fn *)ir->fns.items[i])->body);
    P = NULL;
}
