/*
 * opt_iters.c: the `iters` pass: a loop or a generator over `enumerate(xs)`
 * or `zip(xs, ys)` of arrays runs over the index range instead of over the
 * array of tuples those builtins build.
 *
 * As lowered, `for (i, v) in enumerate(xs)` first builds the whole array of
 * (index, element) tuples (retaining every element), then walks it: a
 * second array as large as xs, written and read once, for every loop. Here
 *
 *     for t in enumerate(A): body            for t in zip(A, B): body
 *
 * become
 *
 *     let a = A                              let a = A; let b = B
 *     for i in 0..len(a):                    for i in 0..min(len(a), len(b)):
 *         let e = a[i]                           let e = a[i]; let f = b[i]
 *         body                                   body
 *
 * with t.0 read as i and t.1 as e (t.0 as e and t.1 as f), t itself as the
 * tuple (i, e) ((e, f)), the capture lists in the body recomputed. A source
 * that is a variable the body does not change is read as it is; any other
 * is held in a temporary, a reference to the value the loop started with,
 * so a body that changes the variable copies it on its first write and the
 * loop still walks the snapshot, as before. In a generator (the first clause of a
 * comprehension or reduction, not spread over world ranks) whose sources are
 * variables, the clause runs over the range and each read of its variable
 * becomes the tuple (a field of it, that element), the capture lists
 * recomputed. Neither builtin can panic, an index below the length cannot
 * fail, and the elements are visited in the same order, so the program's
 * output and panics are unchanged. A generator over range(lo, hi, step)
 * (literal lo and step) runs over the range's count, its variable read as
 * lo + k * step, instead of over the array of values range builds.
 */
#include "ir.h"

static struct ir_program *P;

/* The rewritten clause's variable and its parts: (i, a[i]) or (a[i], b[i]);
 * in a loop, the elements are read once, into lets (elems). */
static struct ir_var *tuple_var, *index_var, *srcs[2], *elems[2];
static struct ir_node *src_rows[2]; /* a generator's source a row of a variable (b[j]), else NULL */
static bool is_zip;

static bool iter_call(const struct ir_node *n)
{
    return n && n->op == IR_BUILTIN && (n->builtin == BI_ENUMERATE || n->builtin == BI_ZIP) &&
           n->nkids == (n->builtin == BI_ZIP ? 2 : 1);
}

/* Source k of the clause, read again: its variable, or a copy of its row. */
static struct ir_node *source(int k, struct loc at)
{
    return src_rows[k] ? ir_copy(NULL, src_rows[k]) : ir_mk_var(srcs[k], at);
}

static struct ir_node *elem_of(int k, struct loc at)
{
    struct ir_node *a = source(k, at), *x = ir_new(IR_INDEX, at, a->type->elem);
    x->a = a;
    x->b = ir_mk_var(index_var, at);
    return x;
}

/* Field k of the tuple the clause's variable holds. */
static struct ir_node *part(int k, struct loc at)
{
    if (!is_zip && k == 0) return ir_mk_var(index_var, at);
    if (elems[k]) return ir_mk_var(elems[k], at);
    return elem_of(is_zip ? k : 0, at);
}

static struct ir_node *whole(struct loc at)
{
    struct ir_node *t = ir_new(IR_TUPLE, at, tuple_var->type);
    ir_push_kid(t, part(0, at));
    ir_push_kid(t, part(1, at));
    return t;
}

/* The range's end: len(a), or min(len(a), len(b)). */
static struct ir_node *count(struct loc at)
{
    struct ir_node *n[2];
    for (int k = 0; k < (is_zip ? 2 : 1); k++) {
        n[k] = ir_new(IR_BUILTIN, at, ty_int);
        n[k]->builtin = BI_LEN;
        ir_push_kid(n[k], source(k, at));
    }
    if (!is_zip) return n[0];
    struct ir_node *m = ir_new(IR_BUILTIN, at, ty_int);
    m->builtin = BI_MIN2;
    ir_push_kid(m, n[0]);
    ir_push_kid(m, n[1]);
    return m;
}

static void set_range(struct ir_iter *it, struct loc at)
{
    *it = (struct ir_iter){0};
    it->is_range = true;
    it->lo = ir_mk_int(0, at);
    it->hi = count(at);
}

/* Each read of the clause's variable in n becomes its tuple; a field of it,
 * that part. */
static void subst(struct ir_node *n)
{
    if (!n) return;
    struct ir_node *r = NULL;
    if (n->op == IR_FIELD && n->a && n->a->op == IR_VAR && n->a->var == tuple_var) r = part(n->field, n->loc);
    else if (n->op == IR_VAR && n->var == tuple_var) r = whole(n->loc);
    if (!r) {
        ir_each_child(n, subst);
        return;
    }
    struct loc at = n->loc;
    *n = *r;
    n->loc = at;
}

static void take_call(struct ir_node *call, struct ir_var *v)
{
    tuple_var = v;
    is_zip = call->builtin == BI_ZIP;
    index_var = ir_new_temp(P, ty_int, call->loc);
    elems[0] = elems[1] = NULL;
    src_rows[0] = src_rows[1] = NULL;
}

/* for t in enumerate(..) / zip(..): body, rewritten in place (the node
 * becomes the block above). */
static void rewrite_for(struct ir_node *s)
{
    struct ir_node *call = s->iter.array, *body = s->b;
    struct loc at = s->loc;
    take_call(call, s->var);
    struct ir_node *out = ir_new(IR_BLOCK, at, ty_void);
    for (int k = 0; k < call->nkids; k++) {
        struct ir_node *src = call->kids[k];
        if (src->op == IR_VAR && !ir_writes(body, src->var, true)) {
            srcs[k] = src->var;
            continue;
        }
        srcs[k] = ir_new_temp(P, src->type, src->loc);
        ir_push_kid(out, ir_mk_stmt(IR_LET, srcs[k], src, src->loc));
    }
    struct ir_node *loop = ir_new(IR_FOR_RANGE, at, ty_void);
    loop->var = index_var;
    set_range(&loop->iter, call->loc);
    loop->b = ir_new(IR_BLOCK, body->loc, ty_void);
    for (int k = is_zip ? 0 : 1; k < 2; k++) {
        struct ir_node *x = elem_of(is_zip ? k : 0, call->loc);
        elems[k] = ir_new_temp(P, x->type, call->loc);
        ir_push_kid(loop->b, ir_mk_stmt(IR_LET, elems[k], x, call->loc));
    }
    subst(body);
    ir_recapture(body);
    if (body->op == IR_BLOCK)
        for (int k = 0; k < body->nkids; k++) ir_push_kid(loop->b, body->kids[k]);
    else
        ir_push_kid(loop->b, body);
    ir_push_kid(out, loop);
    *s = *out;
}

/* Whether a generator's source is a variable or a row of one, xs[i] or
 * xs[i][j] (indices variables or literals, a field of a variable's struct
 * along the way): evaluated again it gives the same array (an expression
 * assigns no variable) and, once it did not panic, cannot. */
static bool plain_row(const struct ir_node *n)
{
    if (n->op == IR_VAR) return true;
    if (n->op == IR_FIELD) return plain_row(n->a);
    return n->op == IR_INDEX && n->a->type->kind == T_ARRAY && (n->b->op == IR_VAR || n->b->op == IR_INT) &&
           n->b->type == ty_int && plain_row(n->a);
}

/* A generator's first clause over enumerate/zip of variables or rows of
 * them (zip(a, b[j])): the range's end reads each source first, in order,
 * as the builtin did (a row out of range panics there, before any element),
 * then each element reads its source again. */
static void rewrite_gen(struct ir_node *g)
{
    struct ir_node *call = g->iter.array;
    for (int k = 0; k < call->nkids; k++)
        if (!plain_row(call->kids[k])) return;
    take_call(call, g->gen_var);
    for (int k = 0; k < call->nkids; k++) {
        srcs[k] = call->kids[k]->op == IR_VAR ? call->kids[k]->var : NULL;
        src_rows[k] = srcs[k] ? NULL : call->kids[k];
    }
    ir_each_child(g, subst); /* element, filter, key, later clauses; nothing else names the variable */
    g->gen_var = index_var;
    set_range(&g->iter, call->loc);
    ir_recapture(g);
}

/* A generator's first clause over range(lo, hi, step) with literal lo and
 * step (ir_step_literal): the clause runs
 * over k in 0 .. count, each read of its variable becoming lo + k * step,
 * instead of over the array of the values the builtin builds. */
static struct ir_var *step_var;
static const struct ir_node *step_range;

static void subst_step(struct ir_node *n)
{
    if (!n) return;
    if (n->op != IR_VAR || n->var != step_var) {
        ir_each_child(n, subst_step);
        return;
    }
    struct loc at = n->loc;
    *n = *ir_step_value(step_range, index_var, at);
    n->loc = at;
}

static void rewrite_step_gen(struct ir_node *g)
{
    struct ir_node *r = g->iter.array;
    step_var = g->gen_var, step_range = r;
    index_var = ir_new_temp(P, ty_int, r->loc);
    ir_each_child(g, subst_step); /* element, filter, key, later clauses; nothing else names the variable */
    g->gen_var = index_var;
    g->iter = (struct ir_iter){.is_range = true, .lo = ir_mk_int(0, r->loc), .hi = ir_step_count(r)};
    ir_recapture(g);
}

void ir_each_by_index(struct ir_program *ir, struct ir_node *s)
{
    struct ir_node *src = s->iter.array, *body = ir_new(IR_BLOCK, s->b->loc, ty_void);
    struct ir_var *k = ir_new_temp(ir, ty_int, src->loc);
    struct ir_node *x = ir_new(IR_INDEX, src->loc, src->type->elem);
    x->a = ir_copy(NULL, src);
    x->b = ir_mk_var(k, src->loc);
    ir_push_kid(body, ir_mk_stmt(IR_LET, s->var, x, src->loc));
    ir_push_kid(body, s->b);
    s->op = IR_FOR_RANGE;
    s->var = k;
    s->iter = (struct ir_iter){.is_range = true, .lo = ir_mk_int(0, src->loc), .hi = ir_mk_len(src)};
    s->b = body;
}

static void walk(struct ir_node *n)
{
    if (!n) return;
    ir_each_child(n, walk);
    if (n->op == IR_FOR_ARRAY && iter_call(n->iter.array)) rewrite_for(n);
    else if ((n->op == IR_REDUCE || n->op == IR_LISTCOMP) && !n->world && !n->iter.is_range && iter_call(n->iter.array))
        rewrite_gen(n);
    else if ((n->op == IR_REDUCE || n->op == IR_LISTCOMP) && !n->world && !n->iter.is_range && ir_step_literal(n->iter.array))
        rewrite_step_gen(n);
}

void opt_iters(struct ir_program *ir)
{
    P = ir;
    for (int i = 0; i < ir->fns.len; i++) walk(((struct ir_fn *)ir->fns.items[i])->body);
    for (int i = 0; i < ir->globals.len; i++) walk(((struct ir_global *)ir->globals.items[i])->init);
}
