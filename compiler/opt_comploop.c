/*
 * opt_comploop.c: a comprehension that is the whole value of a statement
 * (let, assignment, return, push, store) written as a loop, when the loop is
 * one opt_split.c rewrites (its element tests a condition the loop cannot
 * change, or one that the first and last iterations settle) or holds such a
 * comprehension:
 *
 *     S([E(j) for j in lo..hi])    =>   let small = 0 <= lo and lo < hi and hi - lo <= ROOM
 *                                       let t = [D] * (hi - lo if small else 0)
 *                                       if small:
 *                                           for j in lo..hi: t[j - lo] = E(j)
 *                                       else:
 *                                           t = [E(j) for j in lo..hi]
 *                                       S(t)
 *
 * [D] * n is an array of n values not set ([unset], brt_arr_unset: the loop
 * stores each before anything can read it, and a panic before then drops
 * the array unread); rows not set are null, which a release accepts, not n
 * references to one shared empty row (whose count every thread that
 * stores a row on the pool would decrement: one contended line); a let's
 * variable is t itself, the other statements read t in a block of their own
 * (t released at its end). lo and hi are literals, variables or len of a
 * variable: evaluating them again gives the same values and cannot panic.
 * Element type int, float, bool or an array; no filter, one generator, not
 * par. Also taken where the element is a float sum or product over a range
 * (no filter, one clause) alone or inside float arithmetic and the math of
 * floats (nothing that can panic, so the fold may be evaluated first):
 * the fold is written `let s = 0.0 (1.0); for k in lo..hi: s = s op E`, a
 * left fold from the same start (the same bits), and the element reads s;
 * the loop nest is then one that interchange jams (four or eight j at a
 * time, each sum a chain of its own). Element reads of variables evaluated
 * after the fold (`sum(...) / (norms[p] * norms[q])`) may panic: after the
 * fold as written, after its loop as rewritten.
 *
 * A comprehension over the rows of an array variable, [E(x) for x in xs], is
 * the loop `for j in 0..len(xs): let x = xs[j]; t[j] = E(x)` (an expression
 * cannot assign xs: the same elements in the same order). Where E reads
 * len(x) (a zip's range), that is read as l = len(xs[0]) and `small` also
 * tests that every row has length l (all(len(xs[q]) == l ...), no panic), so
 * the inner loop's bound is the same for every j and interchange jams it;
 * rows of different lengths run the comprehension as written. The same for
 * a row `let v = xs[e(j)]` of an array the element reads that a call
 * written in place leaves in the loop's body, the statements after it
 * reading len(v) (dot(u, v) of a zip over `for (j, v) in enumerate(a)`).
 *
 * The element of a par comprehension that is such a comprehension (each
 * task's row, sequential code) becomes the call of a function written here,
 * `return [E(p, q) for q in lo..hi]` over the variables the row reads,
 * converted as any returned comprehension: the par stays as written (its
 * chunks, slots and panic), each row a loop nest. The function is frameless
 * (ir.h): a panic in it prints the call chain the element printed.
 *
 * A call the element makes every time (not under a branch of a cond, an and
 * or an or, nor in a comprehension's element) of a function whose call has
 * no effect and always ends (opt_parfor.c's pool_safe: no output, no draw,
 * no store into an array it was handed, no while loop, no recursion, no
 * function value), with a scalar result and arguments that the loop does
 * not change (variables other than its own, literals, indexing, fields and
 * arithmetic of those: the same values when evaluated again), gives every
 * element the first element's value. The loop's first iteration runs as
 * written (its panics first, at their places, the call among them), then
 * `let h = call` (evaluated again: no effect, no panic, the same value),
 * then the other iterations read h: norm(a[i]) in [dot(a[i], a[j]) /
 * (norm(a[i]) * norm(a[j])) for j in 0..m] is computed once per row. Such
 * a call makes the conversion pay by itself. One level up, where the
 * element is itself a comprehension [E(i, j) for j in lo2..hi2] whose bounds
 * the outer loop does not change, a call of E of that kind whose arguments
 * read j (and not i) gives every outer iteration the same value per j: the
 * outer loop's first iteration runs as written (every such call of the range
 * made, in order), then `let T = [call(j) for j in lo2..hi2]` (evaluated
 * again), and the other iterations read T[j - lo2]: norm(a[j]) once per
 * column, as a C programmer computes the norms first.
 *
 * A call of a function holding a range loop, one that opt_inline.c writes
 * in place in a loop (`dot(a[i], a[j])`), evaluated first by the loop's
 * store, is written in place in the loop here too (ir_inline_loop_calls:
 * inline ran before the comprehension was a loop): its rows in lets, its
 * sum and loop, then the store, a nest interchange jams. Such a call makes
 * the conversion pay by itself.
 *
 * Why it keeps the program's meaning: the elements are evaluated in the same
 * order, once each, and stored where the comprehension puts them. A
 * comprehension makes room for min(count, ROOM) elements before its first
 * (brt_arr_room: 16 MiB); the loop allocates the whole array first, so it
 * runs only when that is the same allocation (count <= ROOM elements of at
 * most 8 bytes), else the comprehension runs as written: an element that
 * panics early in a huge comprehension panics as before.
 *
 * Why: the loop is what unswitch and split rewrite, and the stores into t
 * are what unique, loops and range make check-free, so the middle of a
 * stencil's row runs without a branch or a check per element.
 */
#include "ir.h"

#include <stdlib.h>
#include <string.h>

#define ROOM ((int64_t)1 << 21) /* elements: 16 MiB of 8-byte ones, brt_arr_room's most */

static struct ir_program *P;
static struct ir_fn *FN; /* the function being rewritten */

struct ir_var *ir_new_temp(struct ir_program *ir, struct type *t, struct loc loc)
{
    struct ir_var *v = arena_alloc(sizeof *v);
    v->id = ++ir->nvars;
    v->kind = IRV_TEMP;
    v->name = "";
    v->type = t;
    v->loc = loc;
    return v;
}

/* An element type [unset] makes: a scalar, or a row (null until stored). */
static bool unset_elem(struct type *t)
{
    return t == ty_float || t == ty_int || t == ty_bool || t->kind == T_ARRAY;
}

struct ir_node *ir_fits_room(struct ir_node *lo, struct ir_node *hi, struct loc at)
{
    struct ir_node *nonneg = lo->op == IR_INT ? NULL : ir_mk_bin(OP_LE, ir_mk_int(0, at), ir_copy(NULL, lo), ty_bool);
    struct ir_node *count = ir_mk_bin(OP_SUB, ir_copy(NULL, hi), ir_copy(NULL, lo), ty_int);
    return ir_mk_and(ir_mk_and(nonneg, ir_mk_bin(OP_LT, ir_copy(NULL, lo), ir_copy(NULL, hi), ty_bool)),
                     ir_mk_bin(OP_LE, count, ir_mk_int(ROOM, at), ty_bool));
}

int ir_splice(struct ir_node *b, int i, struct ir_node *r)
{
    struct ir_node **kids = xmalloc((size_t)(b->nkids - 1 + r->nkids) * sizeof *kids);
    memcpy(kids, b->kids, (size_t)i * sizeof *kids);
    memcpy(kids + i, r->kids, (size_t)r->nkids * sizeof *kids);
    memcpy(kids + i + r->nkids, b->kids + i + 1, (size_t)(b->nkids - i - 1) * sizeof *kids);
    b->kids = kids;
    b->nkids += r->nkids - 1;
    return i + r->nkids - 1;
}

bool ir_repeatable(struct ir_node *n)
{
    if (n->type != ty_int) return false;
    if (n->op == IR_INT || n->op == IR_VAR) return true;
    return n->op == IR_BUILTIN && n->builtin == BI_LEN && n->nkids == 1 && n->kids[0]->op == IR_VAR;
}

bool ir_repeatable_sum(struct ir_node *n)
{
    if (n->op == IR_BINARY && (n->bop == OP_ADD || n->bop == OP_SUB) && n->optype == ty_int)
        return ir_repeatable_sum(n->a) && ir_repeatable_sum(n->b);
    return ir_repeatable(n);
}

static bool taken(struct ir_node *n)
{
    if (!n || n->op != IR_LISTCOMP || n->par || n->filter || n->nclauses || n->iter.inclusive) return false;
    if (!n->iter.is_range) /* an array variable (an element changes no variable: no xs.pop() there) */
        return n->iter.array->op == IR_VAR && unset_elem(n->elem_type);
    if (!ir_repeatable(n->iter.lo) || !ir_repeatable(n->iter.hi)) return false;
    if (n->iter.lo->op == IR_INT && (__int128)n->iter.lo->ival < 0) return false;
    return unset_elem(n->elem_type);
}

static bool comp_block(struct ir_node *b);

/* A float sum or product over a range (no filter, one clause, not par): a
 * left fold from 0.0 or 1.0, as `var s = 0.0; for k in lo..hi: s = s + E`. */
static bool changes(struct ir_node *n, struct ir_var *v);

/* A float sum or product of one clause with no filter over a range, or
 * over an array variable its element does not change (no v.pop(): a call
 * gets values and changes none of its caller's arrays), which
 * ir_fold_as_loop walks by index: the same elements in the same order. */
static bool float_fold(struct ir_node *n)
{
    return n->op == IR_REDUCE && n->type == ty_float && (n->reducer == RED_SUM || n->reducer == RED_PRODUCT) &&
           !n->par && !n->world && !n->user && !n->scan && !n->key && !n->filter && !n->nclauses &&
           (n->iter.is_range || (n->iter.array->op == IR_VAR && !changes(n->elem, n->iter.array->var)));
}

/* An element read x[i], x[i][j], ... of a variable at variables or
 * literals: no effect, and a panic where an index is out of range. */
static bool elem_read(struct ir_node *n)
{
    if (n->op == IR_VAR) return true;
    return n->op == IR_INDEX && (n->b->op == IR_VAR || n->b->op == IR_INT) && n->b->type == ty_int && elem_read(n->a);
}

/* Whether n, an element around its fold, may run the fold first (ir.h);
 * reads: past the fold (evaluated after it, as written and as rewritten)
 * element reads are allowed too, a panic there coming after the fold's
 * either way (sum(a[p][k] * a[q][k] ...) / (norms[p] * norms[q])). */
bool ir_around_fold(struct ir_node *n, struct ir_node **fold, bool reads)
{
    if (float_fold(n)) {
        if (*fold) return false;
        *fold = n;
        return true;
    }
    if (reads && *fold && n->op == IR_INDEX && n->type == ty_float && elem_read(n)) return true;
    switch (n->eop) {
    case IR_FLOAT: case IR_INT: case IR_GLOBAL: case IR_VAR: return true;
    case IR_UNARY: return n->optype == ty_float && ir_around_fold(n->a, fold, reads);
    case IR_BINARY:
        return n->optype == ty_float && !op_is_compare(n->bop) && ir_around_fold(n->a, fold, reads) &&
               ir_around_fold(n->b, fold, reads);
    case IR_CONV: return n->type == ty_float && n->optype == ty_float && ir_around_fold(n->a, fold, reads);
    case IR_BUILTIN:
        if (!ir_float_math(n)) return false;
        for (int i = 0; i < n->nkids; i++)
            if (!ir_around_fold(n->kids[i], fold, reads)) return false;
        return true;
    default: return false;
    }
}

static struct ir_node *elem_at(struct ir_node *xs, struct ir_node *i);

/* A fold as a loop into a variable (ir.h). */
struct ir_node *ir_fold_as_loop(struct ir_program *ir, struct ir_node *body, struct ir_node *fold)
{
    struct loc at = fold->loc;
    struct ir_var *s = ir_new_temp(ir, ty_float, at);
    struct ir_node *start = ir_mk_start(fold->reducer, ty_float, at);
    ir_push_kid(body, ir_mk_stmt(IR_LET, s, start, at));
    struct ir_node *kb = ir_new(IR_BLOCK, at, ty_void);
    ir_push_kid(kb, ir_mk_stmt(IR_ASSIGN, s, ir_mk_bin(fold->reducer == RED_SUM ? OP_ADD : OP_MUL, ir_mk_var(s, at), fold->elem, ty_float), at));
    struct ir_node *kl = ir_new(IR_FOR_RANGE, at, ty_void);
    kl->var = fold->gen_var;
    kl->iter = fold->iter;
    if (!fold->iter.is_range) { /* for k in 0..len(xs): let x = xs[k], then the element */
        struct ir_node *xs = fold->iter.array;
        kl->var = ir_new_temp(ir, ty_int, at);
        kl->iter = (struct ir_iter){.is_range = true, .lo = ir_mk_int(0, at), .hi = ir_mk_len(ir_copy(NULL, xs))};
        struct ir_node *x = ir_mk_stmt(IR_LET, fold->gen_var, elem_at(xs, ir_mk_var(kl->var, at)), at);
        struct ir_node *kb2 = ir_new(IR_BLOCK, at, ty_void);
        ir_push_kid(kb2, x);
        ir_push_kid(kb2, kb->kids[0]);
        kb = kb2;
    }
    kl->b = kb;
    ir_push_kid(body, kl);
    return ir_mk_var(s, at);
}

/* Every len(x) in n (x the variable) replaced by a read of l (l NULL: none
 * replaced); how many. */
static int len_as(struct ir_node *n, struct ir_var *x, struct ir_var *l)
{
    if (!n) return 0;
    if (n->op == IR_BUILTIN && n->builtin == BI_LEN && n->nkids == 1 && n->kids[0]->op == IR_VAR && n->kids[0]->var == x) {
        if (l) *n = *ir_mk_var(l, n->loc);
        return 1;
    }
    int c = len_as(n->a, x, l) + len_as(n->b, x, l) + len_as(n->c, x, l) + len_as(n->elem, x, l) +
            len_as(n->filter, x, l) + len_as(n->key, x, l) + len_as(n->iter.lo, x, l) + len_as(n->iter.hi, x, l) +
            len_as(n->iter.array, x, l);
    for (int i = 0; i < n->nkids; i++) c += len_as(n->kids[i], x, l);
    for (int i = 0; i < n->nclauses; i++)
        c += len_as(n->clauses[i].iter.lo, x, l) + len_as(n->clauses[i].iter.hi, x, l) + len_as(n->clauses[i].iter.array, x, l);
    return c;
}

static struct ir_var *change_probe;
static bool change_seen;
static void note_change(struct ir_var *v)
{
    change_seen |= v == change_probe;
}

static bool changes(struct ir_node *n, struct ir_var *v)
{
    change_probe = v, change_seen = false;
    ir_each_change(n, note_change);
    return change_seen;
}

/* A row of an array the comprehension lc reads, `let v = xs[e]` in the
 * loop's body b (after its calls were written in place: enumerate's row,
 * a zip's `v` of dot(u, a[j])), e reading the loop's variable j, whose
 * length the statements after it read (a zip's range, min(len(u),
 * len(v))): those reads are read as l, the one length of every row of xs
 * when `small` tests that they are alike (*l set, xs returned), so the
 * inner loop's bound is the same for every j and interchange jams it.
 * Nothing in b changes xs or v (a let a helper assigns is its parameter:
 * refused). The array the comprehension runs over ([dot(x, y) for y in
 * ys]: `let y = ys[j]`, its length read only once the call is written in
 * place) is such an array too (over, else NULL). A row fixed in the loop
 * (`let u = a[i]`) is interchange's (len(u) read once, as len(a[i])). NULL
 * where there is none. */
static struct ir_node *row_lens(struct ir_node *b, struct ir_node *lc, struct ir_node *over, struct ir_var *j,
                                struct ir_var **l)
{
    for (int i = 0; i < b->nkids; i++) {
        struct ir_node *s = b->kids[i], *r = s->a;
        if (s->op != IR_LET || s->var->type->kind != T_ARRAY || r->op != IR_INDEX || r->a->op != IR_VAR ||
            !ir_reads(r->b, j))
            continue;
        struct ir_var *xs = r->a->var;
        bool outer = over && over->var == xs;
        for (int c = 0; c < lc->ncaps; c++) outer |= lc->caps[c] == xs;
        if (!outer || changes(b, xs) || changes(b, s->var)) continue;
        int reads = 0;
        for (int k = i + 1; k < b->nkids; k++) reads += len_as(b->kids[k], s->var, NULL);
        if (!reads) continue;
        *l = ir_new_temp(P, ty_int, s->loc);
        for (int k = i + 1; k < b->nkids; k++) len_as(b->kids[k], s->var, *l);
        return ir_copy(NULL, r->a);
    }
    return NULL;
}

/* xs[i] for an int node i */
static struct ir_node *elem_at(struct ir_node *xs, struct ir_node *i)
{
    struct ir_node *x = ir_new(IR_INDEX, i->loc, xs->type->elem);
    x->a = ir_copy(NULL, xs);
    x->b = i;
    return x;
}

struct ir_node *ir_rows_of_length(struct ir_program *ir, struct ir_node *xs, struct ir_var *l)
{
    struct loc at = xs->loc;
    struct ir_var *q = ir_new_temp(ir, ty_int, at);
    struct ir_node *all = ir_new(IR_REDUCE, at, ty_bool);
    all->reducer = RED_ALL;
    all->elem_type = ty_bool;
    all->gen_var = q;
    all->elem = ir_mk_bin(OP_EQ, ir_mk_len(elem_at(xs, ir_mk_var(q, at))), ir_mk_var(l, at), ty_bool);
    all->iter = (struct ir_iter){.is_range = true, .lo = ir_mk_int(0, at), .hi = ir_mk_len(ir_copy(NULL, xs))};
    return all;
}

struct ir_node *ir_rows_alike(struct ir_program *ir, struct ir_node *out, struct ir_node *xs, struct ir_var *l)
{
    struct loc at = xs->loc;
    struct ir_node *first = ir_new(IR_COND, at, ty_int);
    first->a = ir_mk_bin(OP_LT, ir_mk_int(0, at), ir_mk_len(ir_copy(NULL, xs)), ty_bool);
    first->b = ir_mk_len(elem_at(xs, ir_mk_int(0, at)));
    first->c = ir_mk_int(0, at);
    ir_push_kid(out, ir_mk_stmt(IR_LET, l, first, at));
    return ir_rows_of_length(ir, xs, l);
}

/* An argument evaluated again gives the same value and cannot panic (it did
 * not the first time): variables other than the loop's, literals,
 * constants, indexing, fields and arithmetic of those. */
static bool plain_term(struct ir_node *n, struct ir_var *j, struct ir_var *x)
{
    switch (n->eop) {
    case IR_INT: case IR_FLOAT: case IR_BOOL: case IR_GLOBAL: return true;
    case IR_VAR: return n->var != j && n->var != x;
    case IR_INDEX: case IR_BINARY: return plain_term(n->a, j, x) && plain_term(n->b, j, x);
    case IR_FIELD: case IR_UNARY: case IR_NOT: case IR_CONV: return plain_term(n->a, j, x);
    default: return false;
    }
}

/* The calls every evaluation of n makes (none under a branch of a cond, an
 * and or an or, nor in a comprehension's element) of a function whose call
 * has no effect and always ends (pool_safe), of a scalar result, with plain
 * arguments that read neither j nor x: each element's call gives the first
 * one's value. With by (a table's calls): the arguments read by too, and
 * so give one value per value of by. At most MAX_CACHED, into out from
 * nout; the new count. */
#define MAX_CACHED 4
static int cached_calls(struct ir_node *n, struct ir_var *j, struct ir_var *x, struct ir_var *by, struct ir_node **out,
                        int nout)
{
    if (!n || nout == MAX_CACHED) return nout;
    switch (n->eop) {
    case IR_CALL: {
        bool ok = n->fn->pool_safe && (n->type == ty_float || n->type == ty_int || n->type == ty_bool), reads = false;
        for (int i = 0; ok && i < n->nkids; i++) {
            ok = plain_term(n->kids[i], j, x);
            reads |= by && ir_reads(n->kids[i], by);
        }
        if (ok && reads == !!by) {
            out[nout] = n;
            return nout + 1;
        }
        break;
    }
    case IR_AND: case IR_OR: case IR_COND: return cached_calls(n->a, j, x, by, out, nout);
    case IR_LISTCOMP: case IR_REDUCE:
        nout = cached_calls(n->iter.lo, j, x, by, out, nout);
        nout = cached_calls(n->iter.hi, j, x, by, out, nout);
        return cached_calls(n->iter.array, j, x, by, out, nout);
    default: break;
    }
    nout = cached_calls(n->a, j, x, by, out, nout);
    nout = cached_calls(n->b, j, x, by, out, nout);
    nout = cached_calls(n->c, j, x, by, out, nout);
    for (int i = 0; i < n->nkids; i++) nout = cached_calls(n->kids[i], j, x, by, out, nout);
    return nout;
}

/* The calls of the element [E(j) for j in lo2..hi2] of the comprehension c
 * (the whole element: every iteration evaluates it, over the same range, its
 * bounds plain terms c's loop does not change) that read j but neither c's
 * variable nor x (cached_calls with by = j): each gives one value per j,
 * the same in every iteration of c. */
static int table_calls(struct ir_node *c, struct ir_var *x, struct ir_node **out)
{
    struct ir_node *in = c->elem;
    if (in->op != IR_LISTCOMP || in->par || in->filter || in->nclauses || !in->iter.is_range || in->iter.inclusive) return 0;
    if (!plain_term(in->iter.lo, c->gen_var, x) || !plain_term(in->iter.hi, c->gen_var, x)) return 0;
    return cached_calls(in->elem, c->gen_var, x, in->gen_var, out, 0);
}

/* For each table call C(j) of the comprehension in (the element of the loop
 * being converted): `let T = [C(j') for j' in lo2..hi2]` into lets, and C(j)
 * read as T[j - lo2] in the loop (the iterations after its first, which
 * evaluated every C(j) of the range as written: evaluated again, no effect,
 * no panic, the same values). */
static void tabled(struct ir_node *lets, struct ir_node *in, struct ir_node **calls, int ncalls)
{
    for (int i = 0; i < ncalls; i++) {
        struct ir_node *c = calls[i], *t = ir_new(IR_LISTCOMP, c->loc, type_array(c->type));
        t->elem_type = c->type;
        t->gen_var = in->gen_var;
        t->elem = ir_copy(NULL, c);
        t->iter = (struct ir_iter){.is_range = true, .lo = ir_copy(NULL, in->iter.lo), .hi = ir_copy(NULL, in->iter.hi)};
        t = ir_copy_fresh(P, t); /* its own variable for j */
        ir_recapture(t);
        struct ir_var *tv = ir_new_temp(P, t->type, c->loc);
        ir_push_kid(lets, ir_mk_stmt(IR_LET, tv, t, c->loc));
        struct ir_node *at = ir_new(IR_INDEX, c->loc, c->type), *j = ir_mk_var(in->gen_var, c->loc);
        at->a = ir_mk_var(tv, c->loc);
        at->b = in->iter.lo->op == IR_INT && in->iter.lo->ival == 0 ? j : ir_mk_bin(OP_SUB, j, ir_copy(NULL, in->iter.lo), ty_int);
        *c = *at;
    }
}

/* The fast branch's loop with its first iteration apart, then each cached
 * call's value in a let (its second evaluation: no panic, no effect, the
 * first's value), read by the iterations after it:
 *   for j in lo..lo + 1: B;  let h = C;  for j in lo + 1..hi: B(C read as h)
 * (lo < hi in the fast branch: lo + 1 cannot overflow). */
static void peeled(struct ir_node *fast, struct ir_node *first, struct ir_node *loop, struct ir_node **calls, int ncalls,
                   struct ir_node *tables)
{
    struct loc at = loop->loc;
    ir_push_kid(fast, first);
    for (int i = 0; i < ncalls; i++) {
        struct ir_var *h = ir_new_temp(P, calls[i]->type, at);
        ir_push_kid(fast, ir_mk_stmt(IR_LET, h, ir_copy(NULL, calls[i]), at));
        *calls[i] = *ir_mk_var(h, calls[i]->loc);
    }
    for (int i = 0; i < tables->nkids; i++) ir_push_kid(fast, tables->kids[i]);
    loop->iter.lo = ir_copy(NULL, first->iter.hi);
    ir_push_kid(fast, loop);
}

/* The loop's first iteration, a copy: for j in lo..lo + 1 (lo < hi where
 * it runs: lo + 1 cannot overflow). */
static struct ir_node *first_iteration(struct ir_node *loop)
{
    struct ir_node *first = ir_copy_fresh(P, loop);
    first->iter.hi = ir_mk_bin(OP_ADD, ir_copy(NULL, loop->iter.lo), ir_mk_int(1, loop->loc), ty_int);
    first->iter.hi->no_overflow = true;
    return first;
}

/* Whether s is xs = [E for x in xs] (or over 0..len(xs)) of scalar
 * elements that the C emitter writes into xs's own slots. */
static bool maps_own_slots(struct ir_node *s, struct ir_node *lc)
{
    return s->op == IR_ASSIGN && !type_is_ref(lc->elem_type) && !lc->nclauses && !lc->filter &&
           ir_maps_own_slots(lc, s->var);
}

/* Statement s (S(comprehension)) as the loop above, or NULL where that would
 * not pay. */
static struct ir_node *converted(struct ir_node *s)
{
    struct ir_node *lc = s->a;
    struct loc at = lc->loc;
    struct ir_node *c = ir_copy_fresh(P, lc); /* the loop's parts; lc stays the fallback */
    struct ir_var *t = s->op == IR_LET ? s->var : ir_new_temp(P, lc->type, at);

    /* for j in lo..hi: t[j - lo] = E  (a comprehension E through a let of its own) */
    struct ir_node *body = ir_new(IR_BLOCK, at, ty_void);
    struct ir_node *xs = NULL, *alike = NULL;
    struct ir_var *rowlen = NULL, *xv = NULL;
    if (!c->iter.is_range) {
        /* [E(x) for x in xs], xs a variable (an expression cannot assign it):
         * for j in 0..len(xs): let x = xs[j]; t[j] = E(x), the same elements
         * in the same order */
        xs = c->iter.array;
        struct ir_node *x = elem_at(xs, ir_mk_var(ir_new_temp(P, ty_int, at), at));
        ir_push_kid(body, ir_mk_stmt(IR_LET, c->gen_var, x, at));
        xv = c->gen_var;
        /* E reading len(x) (a zip's range, `for k in 0..len(x)`): when every
         * row of xs has one length l, len(x) is l, which the loop does not
         * change, so the nest is one interchange jams; else as written */
        if (x->type->kind == T_ARRAY) {
            rowlen = ir_new_temp(P, ty_int, at);
            if (!len_as(c->elem, c->gen_var, rowlen)) rowlen = NULL;
        }
        c->gen_var = x->b->var;
        c->iter = (struct ir_iter){.is_range = true, .lo = ir_mk_int(0, at), .hi = ir_mk_len(ir_copy(NULL, xs))};
    }
    struct ir_node *lo = c->iter.lo, *hi = c->iter.hi;
    struct ir_node *calls[MAX_CACHED];
    bool few = hi->op == IR_INT && lo->op == IR_INT && hi->ival - lo->ival < 2;
    int ncalls = few ? 0 : cached_calls(c->elem, c->gen_var, xv, NULL, calls, 0);
    struct ir_node *tcalls[MAX_CACHED], *tables = ir_new(IR_BLOCK, at, ty_void), *inner = c->elem;
    int ntables = few ? 0 : table_calls(c, xv, tcalls);
    struct ir_node *value = c->elem, *fold = NULL;
    bool folds = value->type == ty_float && ir_around_fold(value, &fold, true) && fold;
    if (folds) {
        /* the element's one fold as a loop, the element around it read after */
        struct ir_node *s = ir_fold_as_loop(P, body, fold);
        if (value == fold) value = s;
        else *fold = *s;
    } else if (value->op == IR_LISTCOMP) {
        struct ir_var *e = ir_new_temp(P, value->type, value->loc);
        ir_push_kid(body, ir_mk_stmt(IR_LET, e, value, value->loc));
        value = ir_mk_var(e, value->loc);
    }
    struct ir_node *idx = ir_mk_var(c->gen_var, at);
    if (!(lo->op == IR_INT && lo->ival == 0)) idx = ir_mk_bin(OP_SUB, idx, ir_copy(NULL, lo), ty_int);
    struct ir_node *store = ir_mk_stmt(IR_STORE, t, value, at);
    ir_push_kid(store, idx);
    ir_push_kid(body, store);
    struct ir_node *loop = ir_new(IR_FOR_RANGE, at, ty_void);
    loop->var = c->gen_var;
    loop->iter = c->iter;
    loop->b = body;
    /* the first iteration apart, as written, where calls are cached */
    struct ir_node *first = ncalls || ntables ? first_iteration(loop) : NULL;
    if (ntables) {
        tabled(tables, inner, tcalls, ntables);
        ir_recapture(loop->b);
    }
    /* a call of a function holding a loop, written in place: the nest is
     * then one interchange jams */
    bool inlined = ir_inline_loop_calls(P, FN, body) > 0;
    if (first && inlined) ir_inline_loop_calls(P, FN, first->b);
    if (!rowlen) {
        struct ir_node *rows = row_lens(body, lc, xs, c->gen_var, &rowlen);
        if (rows) xs = rows;
    }
    bool inside = comp_block(body);
    if (first) comp_block(first->b);
    /* a map into its own slots (xs = [f(x) for x in xs]) is written in
     * place (emit_maps.c), its call inlined by gcc into a loop it
     * vectorizes across the elements: a helper's loop written in place
     * does not pay for that (xs of 10^6 floats, 50 steps of an 8-step
     * helper: 50 ms in place, 76 ms as loops) */
    if (maps_own_slots(s, lc)) inlined = false;
    if (!inside && !folds && !first && !inlined && !opt_split_pays(P, loop)) return NULL;

    struct ir_node *out = ir_new(IR_BLOCK, s->loc, ty_void);
    struct ir_var *small = ir_new_temp(P, ty_bool, at);
    if (rowlen) alike = ir_rows_alike(P, out, xs, rowlen);
    ir_push_kid(out, ir_mk_stmt(IR_LET, small, ir_mk_and(ir_fits_room(lo, hi, at), alike), at));
    /* t = [D] * (hi - lo if small else 0): scalars unset, the loop stores each */
    struct ir_node *n = ir_new(IR_COND, at, ty_int);
    n->a = ir_mk_var(small, at);
    n->b = ir_mk_bin(OP_SUB, ir_copy(NULL, hi), ir_copy(NULL, lo), ty_int);
    n->c = ir_mk_int(0, at);
    struct ir_node *init = ir_new(IR_BUILTIN, at, lc->type);
    init->builtin = BI_UNSET;
    ir_push_kid(init, n);
    ir_push_kid(out, ir_mk_stmt(IR_LET, t, init, at));
    struct ir_node *fast = ir_new(IR_BLOCK, at, ty_void), *slow = ir_new(IR_BLOCK, at, ty_void);
    if (first) peeled(fast, first, loop, calls, ncalls, tables);
    else ir_push_kid(fast, loop);
    ir_push_kid(slow, ir_mk_stmt(IR_ASSIGN, t, lc, at));
    struct ir_node *sw = ir_new(IR_IF, at, ty_void);
    sw->a = ir_mk_var(small, at);
    sw->b = fast;
    sw->c = slow;
    ir_push_kid(out, sw);
    if (s->op != IR_LET) {
        s->a = ir_mk_var(t, at);
        ir_push_kid(out, s);
    }
    return out;
}

/* Each statement of b that a comprehension is the value of, converted where
 * it pays; whether any was. */
static bool comp_stmt(struct ir_node *s);

static bool comp_block(struct ir_node *b)
{
    bool any = false;
    for (int i = 0; i < b->nkids; i++) {
        struct ir_node *s = b->kids[i];
        bool value = s->op == IR_LET || s->op == IR_ASSIGN || s->op == IR_RETURN || s->op == IR_PUSH || s->op == IR_STORE;
        struct ir_node *r = value && taken(s->a) ? converted(s) : NULL;
        if (r && s->op == IR_LET) {
            /* the let's variable stays in b's scope: the statements go in b */
            i = ir_splice(b, i, r);
            any = true;
        } else if (r) {
            b->kids[i] = r;
            any = true;
        } else {
            any |= comp_stmt(s);
        }
    }
    return any;
}

static bool comp_stmt(struct ir_node *s)
{
    if (!s || ir_is_expr(s)) return false;
    switch (s->sop) {
    case IR_BLOCK: return comp_block(s);
    case IR_IF: {
        bool a = comp_stmt(s->b);
        return comp_stmt(s->c) || a;
    }
    case IR_WHILE: case IR_FOR_RANGE: case IR_FOR_ARRAY: return comp_stmt(s->b);
    case IR_LET: case IR_ASSIGN: case IR_STORE: case IR_PUSH: case IR_UNIQUE: case IR_EXPR: case IR_RETURN:
    case IR_BREAK: case IR_CONTINUE: case IR_UNREACHABLE:
        return false;
    }
    return false;
}

/* ---- the rows of a par comprehension ------------------------------------ */

#define MAX_ROW_PARAMS 64

static int nrows; /* row functions written */
static struct ir_var *row_from[MAX_ROW_PARAMS], *row_to[MAX_ROW_PARAMS];
static int nparams;

/* v a parameter of the row's function (a fresh variable for it); false
 * where there are too many. */
static bool row_param(struct ir_var *v)
{
    for (int i = 0; i < nparams; i++)
        if (row_from[i] == v) return true;
    if (nparams == MAX_ROW_PARAMS) return false;
    struct ir_var *c = arena_alloc(sizeof *c);
    *c = *v;
    c->id = ++P->nvars;
    c->kind = IRV_PARAM;
    row_from[nparams] = v;
    row_to[nparams++] = c;
    return true;
}

/* A bound of a comprehension taken (a literal, a variable, len of one) or
 * the array it walks: its variable a parameter. */
static bool bound_param(struct ir_node *n)
{
    if (!n || n->op == IR_INT) return true;
    if (n->op == IR_BUILTIN && n->nkids == 1) return bound_param(n->kids[0]);
    return n->op != IR_VAR || row_param(n->var);
}

/* Every read in n of a variable row_from[i] made a read of row_to[i]. */
static void row_reads(struct ir_node *n)
{
    if (!n) return;
    ir_each_child(n, row_reads);
    for (int i = 0; n->op == IR_VAR && i < nparams; i++)
        if (n->var == row_from[i]) {
            n->var = row_to[i];
            break;
        }
}

static void row_swap(void)
{
    for (int i = 0; i < nparams; i++) {
        struct ir_var *v = row_from[i];
        row_from[i] = row_to[i];
        row_to[i] = v;
    }
}

/* par [[E(p, q) for q in lo..hi] for p in ...]: each task's row is
 * sequential code, the comprehension a statement could be; an expression
 * holds no statement, so the row is the body of a function this pass
 * writes, `return [E(p, q) for q in lo..hi]` over the variables it reads,
 * converted as any return of a comprehension (a fold's element jammed by
 * interchange), and the par comprehension's element is its call: the par
 * itself stays as it was (its split, its slots, its panic of the lowest
 * index). Where the conversion would not pay, nothing changes. */
static void par_rows(struct ir_node *n)
{
    if (!n) return;
    ir_each_child(n, par_rows);
    if (n->op != IR_LISTCOMP || !n->par || n->nclauses || !taken(n->elem) || FN->has_site) return;
    struct ir_node *row = n->elem;
    struct ir_var **fv;
    int nfv;
    bool ok = true;
    nparams = 0;
    ir_free_vars(row, &fv, &nfv);
    for (int i = 0; i < nfv; i++) ok &= row_param(fv[i]);
    free(fv);
    ok &= bound_param(row->iter.lo) && bound_param(row->iter.hi) && bound_param(row->iter.array);
    if (!ok) return;
    struct ir_fn *g = arena_alloc(sizeof *g), *saved = FN;
    *g = *FN;
    g->cname = arena_printf("%s_par%d", FN->cname, nrows);
    g->ret = row->type;
    g->has_site = g->is_lambda = g->pool_safe = g->twice_called = false;
    g->frameless = true;
    g->ncaps = 0;
    g->owns = NULL;
    g->pool_work = 0;
    g->nparams = nparams;
    g->params = arena_alloc((size_t)(nparams ? nparams : 1) * sizeof *g->params);
    struct ir_node *call = ir_new(IR_CALL, row->loc, row->type);
    call->fn = g;
    for (int i = 0; i < nparams; i++) {
        g->params[i] = row_to[i];
        ir_push_kid(call, ir_mk_var(row_from[i], row->loc));
    }
    /* the row reads the parameters (the call, if taken, the variables) */
    row_reads(row);
    ir_recapture(row);
    g->body = ir_new(IR_BLOCK, row->loc, ty_void);
    ir_push_kid(g->body, ir_mk_stmt(IR_RETURN, NULL, row, row->loc));
    FN = g;
    bool pays = comp_block(g->body);
    FN = saved;
    if (!pays) {
        row_swap();
        row_reads(row);
        ir_recapture(row);
        return;
    }
    nrows++;
    vec_push(&P->fns, g);
    n->elem = call;
    ir_recapture(n);
}

void opt_comploop(struct ir_program *ir)
{
    P = ir;
    nrows = 0;
    ir_pure_calls(ir, true);
    int n = ir->fns.len; /* the row functions appended are converted already */
    for (int i = 0; i < n; i++) {
        FN = ir->fns.items[i];
        par_rows(FN->body);
        comp_block(FN->body);
    }
    FN = NULL;
    ir_pure_calls(ir, false);
    P = NULL;
}
