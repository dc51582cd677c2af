/*
 * ir_walk.c: the walks, queries and small builders the passes share: the
 * variables a node changes or names, whether it reads one, its size,
 * whether an expression is quiet (cannot panic or act), the children a pass
 * rewrites, and nodes made from a few parts (a variable, an int, a sum's
 * start, a binary operator, len, and, a statement).
 */
#include "ir.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

void ir_each_change(struct ir_node *n, void (*f)(struct ir_var *))
{
    if (!n) return;
    if ((n->op == IR_ASSIGN && n->var) || (n->op == IR_PUSH && n->nkids == 0)) f(n->var);
    if (n->op == IR_BUILTIN && builtin_mutates(n->builtin) && n->nkids) {
        struct ir_node *root = n->kids[0];
        while (root->op == IR_INDEX || root->op == IR_FIELD) root = root->a;
        if (root->op == IR_VAR) f(root->var);
    }
    ir_each_change(n->a, f);
    ir_each_change(n->b, f);
    ir_each_change(n->c, f);
    for (int i = 0; i < n->nkids; i++) ir_each_change(n->kids[i], f);
    ir_each_change(n->iter.lo, f);
    ir_each_change(n->iter.hi, f);
    ir_each_change(n->iter.array, f);
    ir_each_change(n->elem, f);
    ir_each_change(n->filter, f);
    ir_each_change(n->key, f);
    for (int i = 0; i < n->nclauses; i++) {
        ir_each_change(n->clauses[i].iter.lo, f);
        ir_each_change(n->clauses[i].iter.hi, f);
        ir_each_change(n->clauses[i].iter.array, f);
    }
}

/* Every variable that code n names or defines, for each_var_f (a pass
 * resetting its by-id state for one function's variables alone: resetting
 * all of the program's per function is quadratic in the functions). */
static void (*each_var_f)(struct ir_var *);

static void each_var(struct ir_node *n)
{
    if (!n) return;
    void (*f)(struct ir_var *) = each_var_f;
    if (n->var) f(n->var);
    if (n->gen_var) f(n->gen_var);
    if (n->ind_var) f(n->ind_var);
    if (n->comb_l) f(n->comb_l);
    if (n->comb_r) f(n->comb_r);
    for (int i = 0; i < n->nclauses; i++) f(n->clauses[i].var);
    for (int i = 0; i < n->ncaps; i++) f(n->caps[i]);
    for (int i = 0; i < n->nfolds; i++) f(n->folds[i].var);
    ir_each_child(n, each_var);
}

void ir_each_var(struct ir_fn *fn, struct ir_node *body, void (*f)(struct ir_var *))
{
    void (*outer)(struct ir_var *) = each_var_f;
    each_var_f = f;
    if (fn)
        for (int i = 0; i < fn->nparams; i++) f(fn->params[i]);
    each_var(body);
    each_var_f = outer;
}

/* Whether expression n calls a method that changes v in place (v.pop(),
 * v[i].sort(), ...). */
bool ir_mutates(struct ir_node *n, struct ir_var *v)
{
    if (!n) return false;
    if (n->op == IR_BUILTIN && builtin_mutates(n->builtin)) {
        struct ir_node *root = n->kids[0];
        while (root->op == IR_INDEX || root->op == IR_FIELD) root = root->a; /* xs[i].f.pop() */
        if (root->op == IR_VAR && root->var == v) return true;
    }
    if (ir_mutates(n->a, v) || ir_mutates(n->b, v) || ir_mutates(n->c, v)) return true;
    for (int i = 0; i < n->nkids; i++)
        if (ir_mutates(n->kids[i], v)) return true;
    if (n->op == IR_REDUCE || n->op == IR_LISTCOMP) {
        for (int i = 0; i < n->nclauses; i++) {
            struct ir_iter *it = &n->clauses[i].iter;
            if (ir_mutates(it->lo, v) || ir_mutates(it->hi, v) || ir_mutates(it->array, v)) return true;
        }
        return ir_mutates(n->iter.lo, v) || ir_mutates(n->iter.hi, v) || ir_mutates(n->iter.array, v);
    }
    return false;
}

int ir_size(const struct ir_node *n)
{
    if (!n) return 0;
    int k = 1 + ir_size(n->a) + ir_size(n->b) + ir_size(n->c);
    for (int i = 0; i < n->nkids; i++) k += ir_size(n->kids[i]);
    return k;
}

bool ir_quiet(const struct ir_node *e, unsigned facts, bool (*also)(const struct ir_node *e, const void *ctx),
              const void *ctx)
{
    switch (e->op) {
    case IR_VAR: case IR_INT: case IR_FLOAT: case IR_BOOL: return true;
    default: break;
    }
    if (also && also(e, ctx)) return true;
    switch (e->op) {
    case IR_CONV: return e->type == ty_float && e->optype == ty_int && ir_quiet(e->a, facts, also, ctx);
    case IR_BINARY:
        if (e->bop == OP_DIV && e->optype == ty_float) /* IEEE: an infinity or NaN, no panic */
            return ir_quiet(e->a, facts, also, ctx) && ir_quiet(e->b, facts, also, ctx);
        if (e->bop != OP_ADD && e->bop != OP_SUB && e->bop != OP_MUL) return false;
        if (e->optype != ty_float && !(e->optype == ty_int && e->no_overflow && (facts & IR_QUIET_NO_OVERFLOW)))
            return false;
        return ir_quiet(e->a, facts, also, ctx) && ir_quiet(e->b, facts, also, ctx);
    case IR_UNARY: return e->bop == OP_NEG && e->optype == ty_float && ir_quiet(e->a, facts, also, ctx);
    case IR_INDEX:
        return (facts & IR_QUIET_IN_BOUNDS) && e->in_bounds && e->a->op == IR_VAR && ir_quiet(e->b, facts, also, ctx);
    case IR_BUILTIN:
        if (e->builtin == BI_LEN) return e->nkids == 1 && e->kids[0]->op == IR_VAR;
        if (!ir_float_math(e)) return false;
        for (int i = 0; i < e->nkids; i++)
            if (!ir_quiet(e->kids[i], facts, also, ctx)) return false;
        return true;
    default: return false;
    }
}

bool ir_float_math(const struct ir_node *n)
{
    if (n->op != IR_BUILTIN || n->type != ty_float) return false;
    for (int i = 0; i < n->nkids; i++)
        if (n->kids[i]->type != ty_float) return false;
    switch (n->builtin) {
    case BI_ABS: case BI_MIN2: case BI_MAX2:
    BI_MATH_CASES
        return true;
    default:
        return false;
    }
}

/* Whether c's source is xs's own slots, in order: for x in xs, with e not
 * reading xs, or for i in 0..len(xs), with e reading xs only as xs[i] (and
 * its length, which stays). */
bool ir_maps_own_slots(struct ir_node *c, struct ir_var *xs)
{
    struct ir_iter *it = &c->iter;
    if (!it->is_range)
        return it->array->op == IR_VAR && it->array->var == xs && !ir_reads(c->elem, xs);
    return !it->inclusive && it->lo->op == IR_INT && it->lo->ival == 0 && it->hi->op == IR_BUILTIN &&
           it->hi->builtin == BI_LEN && it->hi->nkids == 1 && it->hi->kids[0]->op == IR_VAR &&
           it->hi->kids[0]->var == xs && !ir_reads_except_at(c->elem, xs, c->gen_var);
}

int ir_mentions(struct ir_node *n, struct ir_var *v)
{
    if (!n) return 0;
    int c = n->var == v && (!ir_is_expr(n) || n->op == IR_VAR);
    if (n->op == IR_FOR_RANGE || n->op == IR_FOR_ARRAY || (ir_is_expr(n) && (n->op == IR_REDUCE || n->op == IR_LISTCOMP))) {
        c += ir_mentions(n->iter.lo, v) + ir_mentions(n->iter.hi, v) + ir_mentions(n->iter.array, v);
        for (int i = 0; i < n->nclauses; i++) {
            struct ir_iter *it = &n->clauses[i].iter;
            c += ir_mentions(it->lo, v) + ir_mentions(it->hi, v) + ir_mentions(it->array, v);
        }
        c += ir_mentions(n->elem, v) + ir_mentions(n->filter, v) + ir_mentions(n->key, v);
    }
    c += ir_mentions(n->a, v) + ir_mentions(n->b, v) + ir_mentions(n->c, v);
    for (int i = 0; i < n->nkids; i++) c += ir_mentions(n->kids[i], v);
    return c;
}

bool ir_names(struct ir_node *n, struct ir_var *v)
{
    return ir_mentions(n, v) > 0;
}

bool ir_reads(struct ir_node *n, struct ir_var *v)
{
    if (!n) return false;
    if (n->op == IR_VAR) return n->var == v;
    if (ir_reads(n->a, v) || ir_reads(n->b, v) || ir_reads(n->c, v)) return true;
    for (int i = 0; i < n->nkids; i++)
        if (ir_reads(n->kids[i], v)) return true;
    if (n->op == IR_REDUCE || n->op == IR_LISTCOMP) {
        for (int i = 0; i < n->nclauses; i++) {
            struct ir_iter *it = &n->clauses[i].iter;
            if (ir_reads(it->lo, v) || ir_reads(it->hi, v) || ir_reads(it->array, v)) return true;
        }
        return ir_reads(n->iter.lo, v) || ir_reads(n->iter.hi, v) || ir_reads(n->iter.array, v) ||
               ir_reads(n->elem, v) || ir_reads(n->filter, v) || ir_reads(n->key, v);
    }
    return false;
}


bool ir_reads_except_at(struct ir_node *n, struct ir_var *v, struct ir_var *i)
{
    if (!n) return false;
    if (n->op == IR_INDEX && n->a->op == IR_VAR && n->a->var == v && n->b->op == IR_VAR && n->b->var == i) return false;
    if (n->op == IR_BUILTIN && n->builtin == BI_LEN && n->nkids == 1 && n->kids[0]->op == IR_VAR) return false;
    if (n->op == IR_VAR) return n->var == v;
    if (ir_reads_except_at(n->a, v, i) || ir_reads_except_at(n->b, v, i) || ir_reads_except_at(n->c, v, i)) return true;
    for (int k = 0; k < n->nkids; k++)
        if (ir_reads_except_at(n->kids[k], v, i)) return true;
    if (n->op == IR_REDUCE || n->op == IR_LISTCOMP) {
        for (int k = 0; k < n->nclauses; k++) {
            struct ir_iter *it = &n->clauses[k].iter;
            if (ir_reads_except_at(it->lo, v, i) || ir_reads_except_at(it->hi, v, i) || ir_reads_except_at(it->array, v, i))
                return true;
        }
        return ir_reads_except_at(n->iter.lo, v, i) || ir_reads_except_at(n->iter.hi, v, i) ||
               ir_reads_except_at(n->iter.array, v, i) || ir_reads_except_at(n->elem, v, i) ||
               ir_reads_except_at(n->filter, v, i) || ir_reads_except_at(n->key, v, i);
    }
    return false;
}

/* ---- small builders for the passes -------------------------------------------- */

struct ir_node *ir_mk_var(struct ir_var *v, struct loc loc)
{
    struct ir_node *n = ir_new(IR_VAR, loc, v->type);
    n->var = v;
    return n;
}

static bool LOOPY;
static void find_loop(struct ir_node *n)
{
    if (!n || LOOPY) return;
    if (n->op == IR_FOR_RANGE || n->op == IR_FOR_ARRAY || n->op == IR_WHILE || n->op == IR_REDUCE
        || n->op == IR_LISTCOMP || n->op == IR_CALL || n->op == IR_CALLV) {
        LOOPY = true;
        return;
    }
    ir_each_child(n, find_loop);
}

bool ir_loops_or_calls(struct ir_node *n)
{
    LOOPY = false;
    find_loop(n);
    return LOOPY;
}

struct ir_node *ir_mk_int(int64_t v, struct loc loc)
{
    struct ir_node *n = ir_new(IR_INT, loc, ty_int);
    n->ival = (unsigned __int128)(__int128)v;
    return n;
}

/* (ir.h) */
struct ir_node *ir_mk_start(enum reducer r, struct type *t, struct loc loc)
{
    bool one = r == RED_PRODUCT;
    if (t == ty_float) {
        struct ir_node *f = ir_new(IR_FLOAT, loc, t);
        f->fval = one ? 1.0 : 0.0;
        return f;
    }
    struct ir_node *i = ir_mk_int(one, loc);
    i->type = t;
    return i;
}

struct ir_node *ir_mk_bin(enum op op, struct ir_node *a, struct ir_node *b, struct type *t)
{
    struct ir_node *n = ir_new(IR_BINARY, a->loc, t);
    n->bop = op;
    n->optype = a->type;
    n->a = a;
    n->b = b;
    return n;
}

struct ir_node *ir_mk_len(struct ir_node *a)
{
    struct ir_node *n = ir_new(IR_BUILTIN, a->loc, ty_int);
    n->builtin = BI_LEN;
    ir_push_kid(n, a);
    return n;
}

struct ir_node *ir_mk_and(struct ir_node *a, struct ir_node *b)
{
    if (!a) return b;
    if (!b) return a;
    struct ir_node *n = ir_new(IR_AND, a->loc, ty_bool);
    n->a = a;
    n->b = b;
    return n;
}

struct ir_node *ir_mk_stmt(int op, struct ir_var *v, struct ir_node *a, struct loc loc)
{
    struct ir_node *s = ir_new(op, loc, ty_void);
    s->var = v;
    s->a = a;
    return s;
}

static void each_iter(struct ir_iter *it, void (*f)(struct ir_node *))
{
    f(it->lo);
    f(it->hi);
    f(it->array);
}

void ir_each_child(struct ir_node *n, void (*f)(struct ir_node *))
{
    f(n->a);
    f(n->b);
    f(n->c);
    for (int i = 0; i < n->nkids; i++) f(n->kids[i]);
    each_iter(&n->iter, f);
    for (int i = 0; i < n->nclauses; i++) each_iter(&n->clauses[i].iter, f);
    f(n->elem);
    f(n->filter);
    f(n->key);
}

void ir_each_written(struct ir_node *n, void (*f)(struct ir_node *))
{
    ir_each_child(n, f);
    f(n->fast_gen);
    f(n->chunk);
}

/* (ir.h) */
bool ir_minmax_combine(const struct ir_node *rn, enum reducer *red)
{
    struct type *t = rn->elem_type;
    const struct ir_node *c = rn->c;
    if (rn->op != IR_REDUCE || !rn->user || rn->par || rn->scan || rn->key || rn->world || !c) return false;
    if (t != ty_int && t != ty_u64 && t != ty_float) return false;
    if (c->op != IR_BUILTIN || (c->builtin != BI_MAX2 && c->builtin != BI_MIN2) || c->nkids != 2) return false;
    if (c->kids[0]->op != IR_VAR || c->kids[0]->var != rn->comb_l || c->kids[1]->op != IR_VAR || c->kids[1]->var != rn->comb_r)
        return false;
    *red = c->builtin == BI_MAX2 ? RED_MAX : RED_MIN;
    return true;
}

/* (ir.h) */
struct ir_node *ir_only_stmt(const struct ir_node *b)
{
    while (b && b->op == IR_BLOCK && b->nkids == 1) b = b->kids[0];
    return (struct ir_node *)b;
}
