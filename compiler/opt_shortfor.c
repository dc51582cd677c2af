/*
 * opt_shortfor.c: short range loops of literal bounds written out, one copy
 * of the body per value (the pass `shortfor`).
 *
 *   for di in 0..3:                  { { body, di read as 0 }
 *       body                    =>     { body, di read as 1 }
 *                                      { body, di read as 2 } }
 *
 * A short loop (ir.h: IR_SHORT_TRIPS) is one whose steps the C emitter has
 * gcc unroll anyway (BP_UNROLL), but in C its index checks stay: a 3x3
 * kernel's taps `w[di][dj] * img[i + di][j + dj]` inside `for j` are reads
 * the guards of `loops` cannot see, since j's loop is not innermost and the
 * row index i + di is no index it fixes. Written out in the IR, the loop
 * over j is innermost, its reads are img[i + 0][j + 1], ... (rows the loop
 * does not change, columns j + c) and w[0][1] (fixed), all of which `loops`
 * guards: the loop over j runs without a check and gcc vectorizes it.
 *
 * The copies run the same statements in the same order with the same
 * values: the loop variable is a fresh immutable binding per iteration, so
 * each copy reads the literal in its place; the bounds are literals (no
 * evaluation, no effect). Each copy is a block of its own (its lets are
 * released at its end, as each iteration's were) and defines fresh
 * variables (ir_copy_fresh). A panic in a copy is the same panic at the same
 * place after the same output.
 *
 * Which loops: inside another loop (one run once leaves nothing to guard
 * around it, and gcc unrolls it as well), `for v in A..B` (or `A..=B`) of
 * int, A and B literals, 1 to
 * IR_SHORT_TRIPS steps, not par, whose body has no loop, generator or call
 * (ir_loops_or_calls: the emitter's short loop), no break, continue or
 * return (ir_leaves), and whose copies together are at most SHORT_BUDGET
 * nodes. Inner loops go first, so a nest of short loops (di, dj) is written
 * out whole when it fits. A bound may also be `len(a)` of an array a let
 * made of a literal (`[c0, c1, c2]`, or `[x] * 4`) that nothing in the
 * function assigns or resizes: that length is a literal too (a helper's
 * `for c in cs` written in place where `cs` is such a let, the Horner
 * loop of a polynomial of 8 coefficients).
 *
 * A float sum or product over such ranges, `sum(w[di][dj] * img[i + di][j +
 * dj] for di in 0..3 for dj in 0..3)` (every clause short, together at most
 * IR_SHORT_TRIPS elements; no filter, not par, no key; an element with no
 * loop, generator or call), is the left fold from 0.0 (1.0) the emitter
 * runs: it is written out as that fold, `((0.0 + E00) + E01) + ...`, the
 * elements in the clauses' row-major order, each evaluated and then added
 * in turn. A comprehension of such sums is then one generator whose element
 * reads what the guards of `loops` see, as the loops' case.
 */
#include "ir.h"

#include <stdlib.h>

/* The most IR nodes the copies of one loop may add up to: a 3x3 kernel's
 * nest (9 taps of about 15 nodes) fits; a long body stays a loop. */
#define SHORT_BUDGET 256

static struct ir_program *P;

/* ---- literal lengths ---------------------------------------------------------- */

/* By var id, in the function being walked (ids up to NLEN, the variables
 * made before this pass): an array a let made of a literal or `[x] * k` (k
 * a literal >= 0) and that nothing assigns or resizes: its length; else
 * -1. Allocated once; each function's entries are set and then reset by
 * walking its own lets (resetting all NLEN per function was quadratic:
 * 100,000 small functions spent 10 s here). */
static int64_t *LITLEN;
static int NLEN;

static void mark_changed(struct ir_var *v)
{
    if (v->id <= NLEN) LITLEN[v->id] = -1;
}

static void note_lets(struct ir_node *n)
{
    if (!n) return;
    ir_each_child(n, note_lets);
    if (n->op != IR_LET || n->var->type->kind != T_ARRAY || !n->a || n->var->id > NLEN) return;
    struct ir_node *e = n->a;
    if (e->op == IR_ARRAY) LITLEN[n->var->id] = e->nkids;
    else if (e->op == IR_BINARY && e->bop == OP_MUL && e->a->op == IR_ARRAY && e->a->nkids == 1 && e->b->op == IR_INT
             && e->b->type == ty_int && (int64_t)(uint64_t)e->b->ival >= 0)
        LITLEN[n->var->id] = (int64_t)(uint64_t)e->b->ival;
}

static void forget_lets(struct ir_node *n)
{
    if (!n) return;
    ir_each_child(n, forget_lets);
    if (n->op == IR_LET && n->var->id <= NLEN) LITLEN[n->var->id] = -1;
}

/* The literal lengths of fn's arrays (LITLEN): those its lets make, less
 * those it changes. */
static void find_lengths(struct ir_fn *fn)
{
    note_lets(fn->body);
    ir_each_change(fn->body, mark_changed);
}

/* Whether bound n is an int literal or `len(a)` of an array of literal
 * length (LITLEN); its value. */
static bool literal_len(const struct ir_node *n, int64_t *v)
{
    if (n->op == IR_INT && n->type == ty_int) {
        *v = (int64_t)(uint64_t)n->ival;
        return true;
    }
    if (n->op != IR_BUILTIN || n->builtin != BI_LEN || n->nkids != 1 || n->kids[0]->op != IR_VAR) return false;
    struct ir_var *a = n->kids[0]->var;
    if (a->id > NLEN || LITLEN[a->id] < 0) return false;
    *v = LITLEN[a->id];
    return true;
}

/* Range it's bounds made literals where both are literal_len and it is
 * short (1 to IR_SHORT_TRIPS steps): the loop or clause to write out. */
static void literal_range(struct ir_iter *it)
{
    int64_t lo, hi;
    if (!it->is_range || !literal_len(it->lo, &lo) || !literal_len(it->hi, &hi)) return;
    __int128 n = (__int128)hi - lo + (it->inclusive ? 1 : 0);
    if (n < 1 || n > IR_SHORT_TRIPS) return;
    it->lo = ir_mk_int(lo, it->lo->loc);
    it->hi = ir_mk_int(hi, it->hi->loc);
}

/* Every range of n (loops, generators and their clauses) so. */
static void literal_ranges(struct ir_node *n)
{
    if (!n) return;
    ir_each_child(n, literal_ranges);
    if (n->op == IR_FOR_RANGE) literal_range(&n->iter);
    if (n->op != IR_REDUCE && n->op != IR_LISTCOMP) return;
    literal_range(&n->iter);
    for (int i = 0; i < n->nclauses; i++) literal_range(&n->clauses[i].iter);
}

/* The literal bounds of range iter: its first value and its step count
 * (1 to IR_SHORT_TRIPS), else 0. */
static int short_range(const struct ir_iter *it, int64_t *lo)
{
    if (!it->is_range || it->lo->op != IR_INT || it->hi->op != IR_INT || it->lo->type != ty_int
        || it->hi->type != ty_int)
        return 0;
    __int128 n = (__int128)(int64_t)(uint64_t)it->hi->ival - (__int128)(int64_t)(uint64_t)it->lo->ival
                 + (it->inclusive ? 1 : 0);
    *lo = (int64_t)(uint64_t)it->lo->ival;
    return n >= 1 && n <= IR_SHORT_TRIPS ? (int)n : 0;
}

/* The step count of short loop s, else 0. */
static int short_trips(struct ir_node *s)
{
    int64_t lo;
    if (s->op != IR_FOR_RANGE || s->par || !s->var || s->var->type != ty_int) return 0;
    int n = short_range(&s->iter, &lo);
    if (!n || ir_loops_or_calls(s->b) || ir_leaves(s->b, 0)) return 0;
    return (__int128)ir_size(s->b) * n <= SHORT_BUDGET ? n : 0;
}

/* Whether n is an int literal; its value. */
static bool int_lit(const struct ir_node *n, int64_t *v)
{
    if (n->op != IR_INT || n->type != ty_int) return false;
    *v = (int64_t)(uint64_t)n->ival;
    return true;
}

/* Every read of v in n (a copy of the body) made the literal value, and
 * int + - * of two literals that this makes folded where the result fits
 * (w[3 * di + dj] reads w[5], an index the loop does not change); one that
 * overflows stays, to panic where it did. */
static struct ir_var *subst_var;
static int64_t subst_value;

static void subst(struct ir_node *n)
{
    if (!n) return;
    ir_each_child(n, subst);
    int64_t a, b, r;
    if (n->op == IR_VAR && n->var == subst_var) {
        *n = *ir_mk_int(subst_value, n->loc);
    } else if (n->op == IR_BINARY && n->type == ty_int && int_lit(n->a, &a) && int_lit(n->b, &b)
               && ((n->bop == OP_ADD && !__builtin_add_overflow(a, b, &r))
                   || (n->bop == OP_SUB && !__builtin_sub_overflow(a, b, &r))
                   || (n->bop == OP_MUL && !__builtin_mul_overflow(a, b, &r)))) {
        *n = *ir_mk_int(r, n->loc);
    }
}

/* Short loop s (n steps) as a block of n copies of its body. */
static struct ir_node *written_out(struct ir_node *s, int n)
{
    struct ir_node *out = ir_new(IR_BLOCK, s->loc, ty_void);
    int64_t lo = (int64_t)(uint64_t)s->iter.lo->ival;
    for (int k = 0; k < n; k++) {
        struct ir_node *copy = ir_copy_fresh(P, s->b);
        subst_var = s->var;
        subst_value = lo + k;
        subst(copy);
        if (copy->op != IR_BLOCK) {
            struct ir_node *b = ir_new(IR_BLOCK, copy->loc, ty_void);
            ir_push_kid(b, copy);
            copy = b;
        }
        ir_push_kid(out, copy);
    }
    return out;
}

/* A float sum or product over short literal ranges (every clause; no filter,
 * not par, no key): its element count, else 0. */
static int short_fold(struct ir_node *n)
{
    if (n->op != IR_REDUCE || n->type != ty_float || n->elem_type != ty_float
        || (n->reducer != RED_SUM && n->reducer != RED_PRODUCT) || n->par || n->world || n->user || n->scan || n->key
        || n->filter || n->nclauses >= IR_SHORT_TRIPS)
        return 0;
    int64_t lo;
    int count = short_range(&n->iter, &lo);
    for (int i = 0; i < n->nclauses && count; i++) {
        int c = short_range(&n->clauses[i].iter, &lo);
        count = c && count * c <= IR_SHORT_TRIPS ? count * c : 0;
    }
    if (!count || ir_loops_or_calls(n->elem)) return 0;
    return (__int128)ir_size(n->elem) * count <= SHORT_BUDGET ? count : 0;
}

/* Short fold n (count elements) as the left fold it is, written out:
 * `((0.0 + E0) + E1) + ...` (1.0 and * for a product), the elements in
 * row-major order of the clauses, each a copy reading their values as
 * literals. Each element is evaluated, then added, in turn, as the fold
 * did. */
static void fold_written_out(struct ir_node *n, int count)
{
    int nv = 1 + n->nclauses, idx[1 + IR_SHORT_TRIPS] = {0}, trips[1 + IR_SHORT_TRIPS];
    int64_t lo[1 + IR_SHORT_TRIPS];
    struct ir_var *vars[1 + IR_SHORT_TRIPS];
    for (int i = 0; i < nv; i++) {
        const struct ir_iter *it = i ? &n->clauses[i - 1].iter : &n->iter;
        trips[i] = short_range(it, &lo[i]);
        vars[i] = i ? n->clauses[i - 1].var : n->gen_var;
    }
    struct ir_node *acc = ir_mk_start(n->reducer, ty_float, n->loc);
    for (int k = 0; k < count; k++) {
        struct ir_node *e = ir_copy_fresh(P, n->elem);
        for (int i = 0; i < nv; i++) {
            subst_var = vars[i];
            subst_value = lo[i] + idx[i];
            subst(e);
        }
        acc = ir_mk_bin(n->reducer == RED_SUM ? OP_ADD : OP_MUL, acc, e, ty_float);
        acc->loc = n->loc;
        for (int i = nv - 1; i >= 0 && ++idx[i] == trips[i]; i--) idx[i] = 0; /* the next, row-major */
    }
    *n = *acc;
}

/* Every short fold in expression or statement n, inner ones first. */
static void folds_in(struct ir_node *n)
{
    if (!n) return;
    ir_each_child(n, folds_in);
    int count = short_fold(n);
    if (count) fold_written_out(n, count);
}

static int depth; /* the loops around the block being walked */

static void shortfor_block(struct ir_node *blk)
{
    for (int k = 0; k < blk->nkids; k++) {
        struct ir_node *s = blk->kids[k];
        bool loop = s->op == IR_WHILE || s->op == IR_FOR_RANGE || s->op == IR_FOR_ARRAY;
        depth += loop;
        ir_stmt_blocks(s, shortfor_block); /* inner loops first */
        depth -= loop;
        int n = depth ? short_trips(s) : 0;
        if (n) blk->kids[k] = written_out(s, n);
    }
}

void opt_shortfor(struct ir_program *ir)
{
    P = ir;
    depth = 0;
    NLEN = ir->nvars;
    LITLEN = xmalloc(sizeof *LITLEN * (size_t)(NLEN + 1));
    for (int i = 0; i <= NLEN; i++) LITLEN[i] = -1;
    for (int i = 0; i < ir->fns.len; i++) {
        struct ir_fn *fn = ir->fns.items[i];
        struct ir_node *body = fn->body;
        find_lengths(fn);
        literal_ranges(body);
        forget_lets(body);
        folds_in(body);
        ir_stmt_blocks(body, shortfor_block);
    }
    free(LITLEN);
    LITLEN = NULL;
    P = NULL;
}
