/*
 * opt_scalars.c: small arrays and tuples that never escape, made scalars
 * (scalar replacement of aggregates). Two passes of opt.c:
 *
 * unroll (before inline): a comprehension [e for d in lo..hi] over a range
 * of literals with at most MAX_ELEMS elements, no filter, no second clause,
 * not par, becomes the array literal [e(d=lo), e(d=lo+1), ...]: the same
 * elements evaluated in the same order (a function returning one is then
 * small enough to write in place).
 *
 * scalars (after inline): the elements of a literal that never escapes
 * become values of their own.
 *   - `let p = (e0, e1)` or `let p = [e0, e1]` whose variable the rest of
 *     its block reads only as p.K, or p[K] with K a literal inside the
 *     array (never whole, never assigned, stored into or pushed to) becomes
 *     `let p0 = e0; let p1 = e1`, each read of p.K or p[K] a read of pK:
 *     the same elements evaluated in the same order, nothing built.
 *   - a call f(..., (e0, e1), ...) of a function that reads that parameter
 *     only the same way calls a copy of f with the parameter split in one
 *     per element (argument promotion): the arguments are evaluated in the
 *     same order as the tuple's elements were, and nothing is built. This
 *     is what a call in an expression needs (a par reduction's filter
 *     `inside(point(k))` after point is written in place), where no let can
 *     go.
 * Elements are of types that own no reference (numbers, bools), so the
 * copies need no ownership of their own. Every panic stays where it was:
 * the element expressions are the same nodes, and an index outside the
 * array is never replaced (it stays a read of the array, so the array
 * stays too).
 */
#include "ir.h"

#include <stdlib.h>
#include <string.h>

#define MAX_ELEMS 8

static struct ir_program *P;

/* ---- which literals qualify, and how their variable is read ---------------- */

/* Whether aggregate type t has n elements that own no reference. */
static bool small_type(struct type *t, int n)
{
    if (n < 1 || n > MAX_ELEMS) return false;
    if (t->kind == T_ARRAY) return !type_is_ref(t->elem);
    if (t->kind != T_TUPLE || t->nfields != n) return false;
    for (int i = 0; i < n; i++)
        if (type_is_ref(t->fields[i])) return false;
    return true;
}

/* A tuple or array literal of a small type (its element count in *n). */
static bool small_literal(struct ir_node *n)
{
    return n && (n->op == IR_TUPLE || n->op == IR_ARRAY) && small_type(n->type, n->nkids);
}

/* The element a read of v takes, p.K or p[K] (K a literal in 0..n), or -1. */
static int element_read(struct ir_node *n, struct ir_var *v, int count)
{
    if (!n || n->a == NULL || n->a->op != IR_VAR || n->a->var != v) return -1;
    if (n->op == IR_FIELD) return n->field;
    if (n->op == IR_INDEX && n->b->op == IR_INT) {
        unsigned __int128 k = n->b->ival;
        if (k < (unsigned __int128)count) return (int)k; /* a negative one is huge here: never */
    }
    return -1;
}

/* Whether n reads v only as element reads (and never assigns, stores into,
 * pushes to or iterates it). */
static bool only_elements(struct ir_node *n, struct ir_var *v, int count);

static bool iter_only(struct ir_iter *it, struct ir_var *v, int count)
{
    return only_elements(it->lo, v, count) && only_elements(it->hi, v, count) && only_elements(it->array, v, count);
}

static bool only_elements(struct ir_node *n, struct ir_var *v, int count)
{
    if (!n) return true;
    if (element_read(n, v, count) >= 0) return true;
    if (n->op == IR_VAR) return n->var != v;
    if (!ir_is_expr(n) && n->var == v) return false; /* assigned, stored, pushed, made unique, a loop's */
    if (!only_elements(n->a, v, count) || !only_elements(n->b, v, count) || !only_elements(n->c, v, count)) return false;
    for (int i = 0; i < n->nkids; i++)
        if (!only_elements(n->kids[i], v, count)) return false;
    if (!iter_only(&n->iter, v, count)) return false;
    for (int i = 0; i < n->nclauses; i++)
        if (!iter_only(&n->clauses[i].iter, v, count)) return false;
    return only_elements(n->elem, v, count) && only_elements(n->filter, v, count) && only_elements(n->key, v, count);
}

/* Every element read of v in n becomes a read of its scalar (scalars NULL:
 * v is a tuple now, and v[K] becomes v.K). */
static void replace_reads(struct ir_node *n, struct ir_var *v, int count, struct ir_var **scalars);

static void replace_iter(struct ir_iter *it, struct ir_var *v, int count, struct ir_var **scalars)
{
    replace_reads(it->lo, v, count, scalars);
    replace_reads(it->hi, v, count, scalars);
    replace_reads(it->array, v, count, scalars);
}

static void replace_reads(struct ir_node *n, struct ir_var *v, int count, struct ir_var **scalars)
{
    if (!n) return;
    int k = element_read(n, v, count);
    if (k >= 0 && !scalars) {
        n->op = IR_FIELD;
        n->field = k;
        n->a->type = v->type;
        n->b = NULL;
        return;
    }
    if (k >= 0) {
        n->op = IR_VAR;
        n->var = scalars[k];
        n->a = n->b = NULL;
        n->field = 0;
        return;
    }
    replace_reads(n->a, v, count, scalars);
    replace_reads(n->b, v, count, scalars);
    replace_reads(n->c, v, count, scalars);
    for (int i = 0; i < n->nkids; i++) replace_reads(n->kids[i], v, count, scalars);
    replace_iter(&n->iter, v, count, scalars);
    for (int i = 0; i < n->nclauses; i++) replace_iter(&n->clauses[i].iter, v, count, scalars);
    replace_reads(n->elem, v, count, scalars);
    replace_reads(n->filter, v, count, scalars);
    replace_reads(n->key, v, count, scalars);
}

static struct type *elem_type(struct type *t, int k)
{
    return t->kind == T_ARRAY ? t->elem : t->fields[k];
}

/* One fresh variable per element of v (named after it). */
static struct ir_var **split_var(struct ir_var *v, int count, enum ir_var_kind kind)
{
    struct ir_var **s = arena_alloc((size_t)count * sizeof *s);
    for (int k = 0; k < count; k++) {
        struct ir_var *c = arena_alloc(sizeof *c);
        *c = *v;
        c->id = ++P->nvars;
        c->kind = kind;
        c->type = elem_type(v->type, k);
        c->name = *v->name ? arena_printf("%s.%d", v->name, k) : "";
        s[k] = c;
    }
    return s;
}

/* ---- lets of literals ------------------------------------------------------- */

static void scalars_stmt(struct ir_node *s);
static void promote_expr(struct ir_node *n);

static void scalars_block(struct ir_node *b)
{
    for (int i = 0; i < b->nkids; i++) {
        struct ir_node *s = b->kids[i];
        if (s->op != IR_LET || !small_literal(s->a)) continue;
        int count = s->a->nkids;
        bool ok = true;
        for (int j = i + 1; ok && j < b->nkids; j++) ok = only_elements(b->kids[j], s->var, count);
        if (!ok) continue;
        struct ir_var **sc = split_var(s->var, count, IRV_LOCAL);
        for (int j = i + 1; j < b->nkids; j++) replace_reads(b->kids[j], s->var, count, sc);
        /* the let becomes count lets, in the literal's order */
        struct ir_node **kids = xmalloc((size_t)(b->nkids + count - 1) * sizeof *kids);
        memcpy(kids, b->kids, (size_t)i * sizeof *kids);
        for (int k = 0; k < count; k++) {
            struct ir_node *let = ir_new(IR_LET, s->loc, ty_void);
            let->var = sc[k];
            let->a = s->a->kids[k]; /* its places keep the calls they are in (loc.inl) */
            kids[i + k] = let;
        }
        memcpy(kids + i + count, b->kids + i + 1, (size_t)(b->nkids - i - 1) * sizeof *kids);
        b->kids = kids;
        b->nkids += count - 1;
        i += count - 1;
    }
    for (int i = 0; i < b->nkids; i++) scalars_stmt(b->kids[i]);
}

/* ---- argument promotion ------------------------------------------------------ */

/* A function with its aggregate parameter `param` split in `count` scalars
 * (an array parameter takes literals of any length: one copy per length). */
struct promoted {
    struct ir_fn *from, *to;
    int param, count;
};
static struct promoted *promos;
static int npromos;

struct split_copy {
    struct ir_copier k; /* first: the hooks get it */
    struct ir_var *v;
    int count;
    struct ir_var **scalars;
    struct ir_fn *f;
    struct ir_var **from, **to; /* f's locals and the copy's fresh ones */
    int nlocals;
};

/* The copy's variable for one of f's: a fresh one (ids are defined once in
 * the program); the split parameter stays (it is replaced where it is read). */
static struct ir_var *split_rename(struct ir_copier *k, struct ir_var *v)
{
    struct split_copy *s = (struct split_copy *)k;
    if (v == s->v) return v;
    for (int i = 0; i < s->nlocals; i++)
        if (s->from[i] == v) return s->to[i];
    struct ir_var *c = arena_alloc(sizeof *c);
    *c = *v;
    c->id = ++P->nvars;
    s->from = xrealloc(s->from, (size_t)(s->nlocals + 1) * sizeof *s->from);
    s->to = xrealloc(s->to, (size_t)(s->nlocals + 1) * sizeof *s->to);
    s->from[s->nlocals] = v;
    s->to[s->nlocals++] = c;
    return c;
}

static void split_done(struct ir_copier *k, struct ir_node *c)
{
    struct split_copy *s = (struct split_copy *)k;
    replace_reads(c, s->v, s->count, s->scalars);
}

static struct ir_fn *promote(struct ir_fn *f, int param, int count)
{
    for (int i = 0; i < npromos; i++)
        if (promos[i].from == f && promos[i].param == param && promos[i].count == count) return promos[i].to;
    struct ir_var *v = f->params[param];
    struct ir_fn *g = arena_alloc(sizeof *g);
    *g = *f;
    g->cname = arena_printf("%s_s%d", f->cname, npromos);
    g->nparams = f->nparams + count - 1;
    g->params = arena_alloc((size_t)g->nparams * sizeof *g->params);
    struct ir_var **sc = split_var(v, count, IRV_PARAM);
    struct split_copy s = {{NULL, split_rename, split_done}, v, count, sc, f, NULL, NULL, 0};
    int at = 0;
    for (int i = 0; i < f->nparams; i++) {
        if (i != param) {
            g->params[at++] = split_rename(&s.k, f->params[i]);
            continue;
        }
        for (int k = 0; k < count; k++) g->params[at++] = sc[k];
    }
    g->body = ir_copy(&s.k, f->body);
    free(s.from);
    free(s.to);
    vec_push(&P->fns, g);
    promos = xrealloc(promos, (size_t)(npromos + 1) * sizeof *promos);
    promos[npromos++] = (struct promoted){f, g, param, count};
    return g;
}

/* A call's literal arguments whose parameter f reads only by element: the
 * call made to f's promoted copy, the literal's elements its arguments. */
static void promote_call(struct ir_node *n)
{
    struct ir_fn *f = n->fn;
    if (f->has_site || f->is_lambda) return;
    for (int i = 0; i < n->nkids && i < f->nparams; i++) {
        struct ir_node *a = n->kids[i];
        if (!small_literal(a) || !only_elements(f->body, f->params[i], a->nkids)) continue;
        int count = a->nkids;
        struct ir_fn *g = promote(f, i, count);
        struct ir_node **kids = arena_alloc((size_t)(n->nkids + count - 1) * sizeof *kids);
        memcpy(kids, n->kids, (size_t)i * sizeof *kids);
        for (int k = 0; k < count; k++) kids[i + k] = a->kids[k];
        memcpy(kids + i + count, n->kids + i + 1, (size_t)(n->nkids - i - 1) * sizeof *kids);
        n->kids = kids;
        n->nkids += count - 1;
        n->fn = f = g;
        i += count - 1;
    }
}

static void promote_iter(struct ir_iter *it)
{
    promote_expr(it->lo);
    promote_expr(it->hi);
    promote_expr(it->array);
}

static void promote_expr(struct ir_node *n)
{
    if (!n) return;
    if (n->op == IR_BLOCK) {
        scalars_block(n);
        return;
    }
    promote_expr(n->a);
    promote_expr(n->b);
    promote_expr(n->c);
    for (int i = 0; i < n->nkids; i++) promote_expr(n->kids[i]);
    promote_iter(&n->iter);
    for (int i = 0; i < n->nclauses; i++) promote_iter(&n->clauses[i].iter);
    promote_expr(n->elem);
    promote_expr(n->filter);
    promote_expr(n->key);
    if (n->op == IR_CALL) promote_call(n);
}

/* ---- return promotion ------------------------------------------------------- */

/* A function whose every return is a small literal, with a copy returning
 * the literal's elements as a tuple. */
struct ret_promoted {
    struct ir_fn *from, *to;
};
static struct ret_promoted *rpromos;
static int nrpromos;

/* Whether every return in statement n returns an array literal, all of the
 * same element count (*count; 0: none seen yet). */
static bool literal_returns(struct ir_node *n, int *count)
{
    if (!n || ir_is_expr(n)) return true; /* an expression holds no return */
    if (n->op == IR_RETURN) {
        if (!n->a || n->a->op != IR_ARRAY || (*count && n->a->nkids != *count)) return false;
        *count = n->a->nkids;
        return true;
    }
    if (!literal_returns(n->a, count) || !literal_returns(n->b, count) || !literal_returns(n->c, count)) return false;
    for (int i = 0; i < n->nkids; i++)
        if (!literal_returns(n->kids[i], count)) return false;
    return true;
}

/* The element count of the small array f returns from every return as a
 * literal (two or more: a tuple has two fields or more), or 0. */
static int returned_literal(struct ir_fn *f)
{
    int count = 0;
    if (f->has_site || f->is_lambda || f->ret->kind != T_ARRAY) return 0;
    if (!literal_returns(f->body, &count) || count < 2 || !small_type(f->ret, count)) return 0;
    return count;
}

static void ret_done(struct ir_copier *k, struct ir_node *c)
{
    struct split_copy *s = (struct split_copy *)k;
    if (c->op == IR_RETURN && c->a && c->a->op == IR_ARRAY) {
        c->a->op = IR_TUPLE;
        c->a->type = s->f->ret;
    }
}

/* f's copy returning a tuple of the count elements of its literals: the same
 * elements evaluated in the same order, nothing built. */
static struct ir_fn *ret_promote(struct ir_fn *f, int count)
{
    for (int i = 0; i < nrpromos; i++)
        if (rpromos[i].from == f) return rpromos[i].to;
    struct type **fields = arena_alloc((size_t)count * sizeof *fields);
    for (int k = 0; k < count; k++) fields[k] = f->ret->elem;
    struct ir_fn *g = arena_alloc(sizeof *g);
    *g = *f;
    g->cname = arena_printf("%s_r%d", f->cname, nrpromos);
    g->ret = type_tuple(fields, count);
    g->params = arena_alloc((size_t)(g->nparams ? g->nparams : 1) * sizeof *g->params);
    struct split_copy s = {{NULL, split_rename, ret_done}, NULL, 0, NULL, g, NULL, NULL, 0};
    for (int i = 0; i < f->nparams; i++) g->params[i] = split_rename(&s.k, f->params[i]);
    g->body = ir_copy(&s.k, f->body);
    free(s.from);
    free(s.to);
    vec_push(&P->fns, g);
    rpromos = xrealloc(rpromos, (size_t)(nrpromos + 1) * sizeof *rpromos);
    rpromos[nrpromos++] = (struct ret_promoted){f, g};
    return g;
}

static void returns_node(struct ir_node *n);

/* `let v = f(...)` whose v the rest of block b reads only as v[K] (K a
 * literal inside the array) calls f's tuple copy, and v is that tuple. */
static void returns_block(struct ir_node *b)
{
    for (int i = 0; i < b->nkids; i++) {
        struct ir_node *s = b->kids[i];
        if (s->op != IR_LET || !s->a || s->a->op != IR_CALL) continue;
        int count = returned_literal(s->a->fn);
        bool ok = count > 0;
        for (int j = i + 1; ok && j < b->nkids; j++) ok = only_elements(b->kids[j], s->var, count);
        if (!ok) continue;
        struct ir_fn *g = ret_promote(s->a->fn, count);
        s->a->fn = g;
        s->a->type = g->ret;
        s->var->type = g->ret;
        for (int j = i + 1; j < b->nkids; j++) replace_reads(b->kids[j], s->var, count, NULL);
    }
}

/* Blocks anywhere in n, and f(...)[K] of such an f: (f's tuple copy).K. */
static void returns_node(struct ir_node *n)
{
    if (!n) return;
    if (n->op == IR_BLOCK) returns_block(n);
    returns_node(n->a);
    returns_node(n->b);
    returns_node(n->c);
    for (int i = 0; i < n->nkids; i++) returns_node(n->kids[i]);
    returns_node(n->iter.lo);
    returns_node(n->iter.hi);
    returns_node(n->iter.array);
    for (int i = 0; i < n->nclauses; i++) {
        returns_node(n->clauses[i].iter.lo);
        returns_node(n->clauses[i].iter.hi);
        returns_node(n->clauses[i].iter.array);
    }
    returns_node(n->elem);
    returns_node(n->filter);
    returns_node(n->key);
    if (n->op == IR_INDEX && n->a->op == IR_CALL && n->b->op == IR_INT) {
        int count = returned_literal(n->a->fn);
        if (count > 0 && n->b->ival < (unsigned __int128)count) {
            struct ir_fn *g = ret_promote(n->a->fn, count);
            n->a->fn = g;
            n->a->type = g->ret;
            n->op = IR_FIELD;
            n->field = (int)n->b->ival;
            n->b = NULL;
        }
    }
}

static void scalars_stmt(struct ir_node *s)
{
    if (!s) return;
    if (s->op == IR_BLOCK) {
        scalars_block(s);
        return;
    }
    promote_expr(s);
}

void opt_scalars(struct ir_program *ir)
{
    P = ir;
    /* the promoted copies are appended: they are visited too */
    for (int i = 0; i < ir->fns.len; i++) returns_node(((struct ir_fn *)ir->fns.items[i])->body);
    free(rpromos);
    rpromos = NULL;
    nrpromos = 0;
    for (int i = 0; i < ir->fns.len; i++) scalars_stmt(((struct ir_fn *)ir->fns.items[i])->body);
    free(promos);
    promos = NULL;
    npromos = 0;
    P = NULL;
}

/* ---- unroll: small comprehensions as array literals -------------------------- */

struct unroll_copy {
    struct ir_copier k; /* first: the hooks get it */
    struct ir_var *v;
    struct ir_node *value;
};

static struct ir_node *unroll_read(struct ir_copier *k, const struct ir_node *n)
{
    struct unroll_copy *u = (struct unroll_copy *)k;
    return n->var == u->v ? ir_copy(NULL, u->value) : NULL;
}

/* Whether n defines no variable (a comprehension or reduction inside
 * defines its own: copies would define it twice). */
static bool defines_none(struct ir_node *n)
{
    if (!n) return true;
    if (n->op == IR_LISTCOMP || n->op == IR_REDUCE) return false;
    if (!defines_none(n->a) || !defines_none(n->b) || !defines_none(n->c)) return false;
    for (int i = 0; i < n->nkids; i++)
        if (!defines_none(n->kids[i])) return false;
    return true;
}

/* The literal bounds of a small comprehension's range: lo and the count. */
static bool small_range(struct ir_node *n, int64_t *lo, int *count)
{
    struct ir_iter *it = &n->iter;
    if (n->op != IR_LISTCOMP || n->par || n->filter || n->nclauses || !it->is_range) return false;
    if (it->lo->op != IR_INT || it->hi->op != IR_INT || it->lo->type != ty_int || it->hi->type != ty_int) return false;
    int64_t a = (int64_t)(uint64_t)it->lo->ival, b = (int64_t)(uint64_t)it->hi->ival;
    if (a < -MAX_ELEMS || a > MAX_ELEMS || b < -MAX_ELEMS || b > MAX_ELEMS) return false;
    int64_t c = b - a + (it->inclusive ? 1 : 0);
    if (c < 1 || c > MAX_ELEMS || type_is_ref(n->type->elem) || !defines_none(n->elem)) return false;
    *lo = a;
    *count = (int)c;
    return true;
}

static void unroll_node(struct ir_node *n)
{
    if (!n) return;
    ir_each_child(n, unroll_node);
    int64_t lo;
    int count;
    if (!small_range(n, &lo, &count)) return;
    struct ir_node *elem = n->elem;
    struct ir_var *d = n->gen_var;
    struct ir_node *arr = ir_new(IR_ARRAY, n->loc, n->type);
    for (int k = 0; k < count; k++) {
        struct ir_node *value = ir_new(IR_INT, n->iter.lo->loc, ty_int);
        value->ival = (unsigned __int128)(__int128)(lo + k);
        struct unroll_copy u = {{unroll_read, NULL, NULL}, d, value};
        ir_push_kid(arr, ir_copy(&u.k, elem));
    }
    *n = *arr;
}

void opt_unroll(struct ir_program *ir)
{
    for (int i = 0; i < ir->fns.len; i++) unroll_node(((struct ir_fn *)ir->fns.items[i])->body);
    for (int i = 0; i < ir->globals.len; i++) unroll_node(((struct ir_global *)ir->globals.items[i])->init);
}
