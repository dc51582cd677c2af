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
 *
 * The steps of a map into its own slots (a sequential range loop whose
 * whole body is xs = [e for x in xs], or xs = [e for i in 0..len(xs)] with
 * e reading xs only as xs[i] and len(xs); xs a local of plain elements)
 * become the store loop they are: for i in 0..len(xs): let x = xs[i];
 * xs[i] = e (map_loop). Each element reads its slot before it is written
 * and no other, in the same order; the first store copies xs where another
 * holds it, as the comprehension built a new array; a panic in e ends the
 * program before any slot is read again. A store loop is what the later
 * passes know: inline writes e's calls in place, parfor puts the loop on
 * the pool and may take the steps into its chunks (steps_in_chunk), version
 * hoists its guards before the steps. The loop is marked from_map:
 * interchange does not jam it (each step one pass over the array, as the
 * map's: four steps of sin(x) jammed ran 26 -> 45 ms). A map written par
 * becomes one (written_par: parfor takes it whatever its work) only where
 * its element cannot panic (quiet): a par element's panic names the par
 * element's frame (docs/language.md), which a loop has not.
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

/* Whether par map c's element cannot panic: its places then never print,
 * and the frame a par element's panic names (`a par element of`, the
 * construct's) is no loop's. ir_quiet's nodes, with xs[i] of its own slot
 * (i over 0..len(xs)), fields, tuples, comparisons and conditions, and
 * calls of functions whose body is lets and a return of such (a few deep). */
static const struct ir_node *q_map;
static struct ir_var *q_xs;
static int q_depth;

static bool q_also(const struct ir_node *e, const void *ctx);

static bool quiet(const struct ir_node *e)
{
    return ir_quiet(e, 0, q_also, NULL);
}

static bool quiet_body(const struct ir_node *b)
{
    if (!b || b->op != IR_BLOCK || !b->nkids) return false;
    for (int i = 0; i < b->nkids; i++) {
        const struct ir_node *k = b->kids[i];
        bool last = i == b->nkids - 1;
        if (!(k->op == (last ? IR_RETURN : IR_LET) && k->a && quiet(k->a))) return false;
    }
    return true;
}

static bool q_also(const struct ir_node *e, const void *ctx)
{
    (void)ctx;
    switch (e->op) {
    case IR_INDEX:
        return q_map->iter.is_range && e->a->op == IR_VAR && e->a->var == q_xs && e->b->op == IR_VAR &&
               e->b->var == q_map->gen_var;
    case IR_FIELD: case IR_NOT: return quiet(e->a);
    case IR_AND: case IR_OR: return quiet(e->a) && quiet(e->b);
    case IR_COND: return quiet(e->a) && quiet(e->b) && quiet(e->c);
    case IR_BINARY:
        if (e->optype == ty_int && (e->bop == OP_DIV || e->bop == OP_MOD)) /* by a literal other than 0 and -1 */
            return e->b->op == IR_INT && (int64_t)e->b->ival != 0 && (int64_t)e->b->ival != -1 && quiet(e->a);
        return op_is_compare(e->bop) && quiet(e->a) && quiet(e->b);
    case IR_TUPLE:
        for (int i = 0; i < e->nkids; i++)
            if (!quiet(e->kids[i])) return false;
        return true;
    case IR_CALL: {
        if (q_depth >= 4 || e->fn->has_site || e->fn->is_lambda) return false;
        for (int i = 0; i < e->nkids; i++)
            if (!quiet(e->kids[i])) return false;
        q_depth++;
        bool ok = quiet_body(e->fn->body);
        q_depth--;
        return ok;
    }
    default: return false;
    }
}

/* The map that is range loop s's whole body (blocks of one statement
 * looked through), as a store loop (above); false where it is none. */
static bool map_loop(struct ir_node *s)
{
    if (s->op != IR_FOR_RANGE || s->par) return false;
    struct ir_node *m = s->b;
    while (m && m->op == IR_BLOCK && m->nkids == 1) m = m->kids[0];
    if (!m || m->op != IR_ASSIGN || m->var->kind == IRV_PARAM || m->a->op != IR_LISTCOMP) return false;
    struct ir_node *c = m->a;
    struct ir_var *xs = m->var;
    if (c->nclauses || c->filter || c->world || type_is_ref(c->elem_type) || c->type != xs->type ||
        !ir_maps_own_slots(c, xs))
        return false;
    q_map = c, q_xs = xs, q_depth = 0;
    if (c->par && !quiet(c->elem)) return false; /* its panic names the par element's frame */
    struct loc at = m->loc;
    struct ir_node *loop = ir_new(IR_FOR_RANGE, at, ty_void), *b = ir_new(IR_BLOCK, at, ty_void);
    loop->var = c->iter.is_range ? c->gen_var : ir_new_temp(P, ty_int, at);
    loop->iter = (struct ir_iter){.is_range = true, .lo = ir_mk_int(0, at), .hi = ir_mk_len(ir_mk_var(xs, at))};
    if (!c->iter.is_range) {
        struct ir_node *x = ir_new(IR_INDEX, at, c->elem_type);
        x->a = ir_mk_var(xs, at);
        x->b = ir_mk_var(loop->var, at);
        ir_push_kid(b, ir_mk_stmt(IR_LET, c->gen_var, x, at));
    }
    struct ir_node *st = ir_new(IR_STORE, at, ty_void);
    st->var = xs;
    st->a = c->elem;
    ir_push_kid(st, ir_mk_var(loop->var, at));
    ir_push_kid(b, st);
    ir_recapture(b);
    loop->b = b;
    loop->from_map = true;
    loop->written_par = c->par;
    *m = *loop;
    return true;
}

static void walk(struct ir_node *n)
{
    if (!n) return;
    map_loop(n);
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
