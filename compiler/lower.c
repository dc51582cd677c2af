/*
 * lower.c: the checked AST -> the IR of ir.h.
 *
 * The checker has resolved every name to a symbol and every call to a user
 * function or a builtin; lowering maps symbols to numbered variables
 * (ir_var) and constants to globals (ir_global), and makes explicit what the
 * AST leaves implicit: conversions, operand types, compound assignment
 * (`xs[i] += v` evaluates v, then i, into temporaries, then stores
 * xs[t_i] = xs[t_i] + t_v, so SPEC 2's order holds), elif chains, the two
 * kinds of for loop, and the captured variables of each reduction and
 * comprehension. A value function whose body ends only by os.exit (by the
 * terminator rule, block_flow in check.c) gets an IR_UNREACHABLE so the
 * emitters and ir_verify need no flow reasoning.
 */
#include "ir.h"

#include <stdlib.h>
#include <string.h>

/* ---- shared IR helpers ----------------------------------------------------- */

struct ir_node *ir_new(int op, struct loc loc, struct type *type)
{
    struct ir_node *n = arena_alloc(sizeof *n);
    n->op = op;
    n->loc = loc;
    n->type = type;
    return n;
}

void ir_push_kid(struct ir_node *n, struct ir_node *kid)
{
    n->kids = xrealloc(n->kids, (size_t)(n->nkids + 1) * sizeof *n->kids);
    n->kids[n->nkids++] = kid;
}

static void copy_iter(struct ir_copier *k, struct ir_iter *dst, const struct ir_iter *src)
{
    *dst = *src;
    dst->lo = ir_copy(k, src->lo);
    dst->hi = ir_copy(k, src->hi);
    dst->array = ir_copy(k, src->array);
}

struct ir_node *ir_copy(struct ir_copier *k, const struct ir_node *n)
{
    if (!n) return NULL;
    if (n->op == IR_VAR && k && k->read) {
        struct ir_node *r = k->read(k, n);
        if (r) return r;
    }
    struct ir_node *c = ir_new(n->op, n->loc, n->type);
    memcpy(c, n, sizeof *c);
    c->a = ir_copy(k, n->a);
    c->b = ir_copy(k, n->b);
    c->c = ir_copy(k, n->c);
    c->kids = NULL;
    c->nkids = 0;
    for (int i = 0; i < n->nkids; i++) ir_push_kid(c, ir_copy(k, n->kids[i]));
    copy_iter(k, &c->iter, &n->iter);
    c->elem = ir_copy(k, n->elem);
    c->filter = ir_copy(k, n->filter);
    if (n->nclauses) {
        c->clauses = arena_alloc(sizeof *c->clauses * (size_t)n->nclauses);
        for (int i = 0; i < n->nclauses; i++) {
            copy_iter(k, &c->clauses[i].iter, &n->clauses[i].iter);
            c->clauses[i].var = n->clauses[i].var;
        }
    }
    if (k && k->rename) {
        c->var = n->var ? k->rename(k, n->var) : NULL;
        c->gen_var = n->gen_var ? k->rename(k, n->gen_var) : NULL;
        for (int i = 0; i < n->nclauses; i++) c->clauses[i].var = k->rename(k, c->clauses[i].var);
    }
    if (k && k->done) k->done(k, c);
    return c;
}

/* ---- lowering state ------------------------------------------------------ */

static struct ir_program *P;
static struct map sym_var, sym_global, sym_fn; /* symbols (and fn decls) to what lowering made */
/* the names of a loop pattern, for (i, x) in ...: each a field of the loop's variable */
struct pat_field { struct ir_var *var; int k, k2; }; /* var.k, or var.k.k2 when k2 >= 0 */
static struct map sym_patfield;

static void map_pattern(struct nodes *pat, struct ir_var *v)
{
    for (int i = 0; i < pat->len; i++) {
        struct pat_field *pf = arena_alloc(sizeof *pf);
        pf->var = v;
        pf->k = i;
        pf->k2 = -1;
        map_put_ptr(&sym_patfield, pat->items[i]->u.name.sym, pf);
    }
}
static struct ir_fn *cur_fn;         /* NULL while lowering constants */
static const char *cur_module;       /* the module being lowered */
static struct node *cur_fn_node;

static struct ir_var *new_var(enum ir_var_kind kind, const char *name, struct type *t, struct loc loc)
{
    struct ir_var *v = arena_alloc(sizeof *v);
    v->id = ++P->nvars;
    v->kind = kind;
    v->name = name ? name : "";
    v->type = t;
    v->loc = loc;
    return v;
}

static struct ir_node *lower_expr(struct node *n);
static struct ir_node *lower_block(struct nodes *stmts, struct loc loc);
static struct ir_node *stmt_block(struct loc loc);
static const char *unique_cname(const char *module, const char *name);

static struct ir_var *var_of_sym(struct sym *s, struct loc loc)
{
    struct ir_var *v = map_get_ptr(&sym_var, s);
    if (v) return v;
    if (s->kind == SYM_PARAM && cur_fn) {
        /* Parameters are found by name in the function being lowered. */
        for (int i = 0; i < cur_fn->nparams; i++)
            if (strcmp(cur_fn->params[i]->name, s->name) == 0) {
                map_put_ptr(&sym_var, s, cur_fn->params[i]);
                return cur_fn->params[i];
            }
    }
    internal_error("lower: %s:%d:%d: '%s' has no variable", source_get(loc.file)->name, loc.line,
                   loc.col, s->name);
}

static struct ir_node *var_ref(struct ir_var *v, struct loc loc)
{
    struct ir_node *n = ir_new(IR_VAR, loc, v->type);
    n->var = v;
    return n;
}

/* ---- captures ------------------------------------------------------------ */

struct fv {
    struct ir_var **bound;
    int nbound, capb;
    struct ir_var **out;
    int nout, capo;
};

static bool fv_is_bound(struct fv *f, struct ir_var *v)
{
    for (int i = 0; i < f->nbound; i++)
        if (f->bound[i] == v) return true;
    return false;
}

static void fv_walk(struct fv *f, struct ir_node *n);

/* The later clauses' sources, each seeing the earlier clauses' variables,
 * which stay bound for the element. */
static void fv_clauses(struct fv *f, struct ir_node *n)
{
    for (int i = 0; i < n->nclauses; i++) {
        struct ir_clause *c = &n->clauses[i];
        fv_walk(f, c->iter.lo);
        fv_walk(f, c->iter.hi);
        fv_walk(f, c->iter.array);
        VEC_GROW(f->bound, f->nbound, f->capb);
        f->bound[f->nbound++] = c->var;
    }
}

static void fv_gen(struct fv *f, struct ir_node *n)
{
    if (n->iter.is_range) {
        fv_walk(f, n->iter.lo);
        fv_walk(f, n->iter.hi);
    } else {
        fv_walk(f, n->iter.array);
    }
    int mark = f->nbound;
    VEC_GROW(f->bound, f->nbound, f->capb);
    f->bound[f->nbound++] = n->gen_var;
    fv_clauses(f, n);
    fv_walk(f, n->elem);
    fv_walk(f, n->filter);
    f->nbound = mark;
}

static void fv_walk(struct fv *f, struct ir_node *n)
{
    if (!n) return;
    if (n->op == IR_VAR) {
        if (fv_is_bound(f, n->var)) return;
        for (int i = 0; i < f->nout; i++)
            if (f->out[i] == n->var) return;
        VEC_GROW(f->out, f->nout, f->capo);
        f->out[f->nout++] = n->var;
        return;
    }
    if (n->op == IR_REDUCE || n->op == IR_LISTCOMP) {
        fv_gen(f, n);
        return;
    }
    fv_walk(f, n->a);
    fv_walk(f, n->b);
    fv_walk(f, n->c);
    for (int i = 0; i < n->nkids; i++) fv_walk(f, n->kids[i]);
}

static int cmp_var_id(const void *a, const void *b)
{
    const struct ir_var *x = *(struct ir_var *const *)a, *y = *(struct ir_var *const *)b;
    return (x->id > y->id) - (x->id < y->id);
}

void ir_free_vars(struct ir_node *rn, struct ir_var ***out, int *nout)
{
    struct fv f = {0};
    struct ir_var *b[1] = {rn->gen_var};
    f.bound = xmalloc(sizeof b);
    f.bound[0] = b[0];
    f.nbound = f.capb = 1;
    fv_clauses(&f, rn);
    fv_walk(&f, rn->elem);
    fv_walk(&f, rn->filter);
    if (f.nout) qsort(f.out, (size_t)f.nout, sizeof *f.out, cmp_var_id);
    *out = f.out;
    *nout = f.nout;
    free(f.bound);
}

/* Recomputes the capture lists of every comprehension and reduction in n
 * (after a pass replaced, removed or added reads of variables). */
void ir_recapture(struct ir_node *n)
{
    if (!n) return;
    ir_recapture(n->a);
    ir_recapture(n->b);
    ir_recapture(n->c);
    for (int i = 0; i < n->nkids; i++) ir_recapture(n->kids[i]);
    ir_recapture(n->iter.lo);
    ir_recapture(n->iter.hi);
    ir_recapture(n->iter.array);
    ir_recapture(n->elem);
    ir_recapture(n->filter);
    for (int i = 0; i < n->nclauses; i++) {
        ir_recapture(n->clauses[i].iter.lo);
        ir_recapture(n->clauses[i].iter.hi);
        ir_recapture(n->clauses[i].iter.array);
    }
    if (n->op == IR_REDUCE || n->op == IR_LISTCOMP) ir_free_vars(n, &n->caps, &n->ncaps);
}

/* ---- expressions --------------------------------------------------------- */

static void lower_iter(struct ir_iter *dst, struct iterable *src)
{
    dst->is_range = src->is_range;
    dst->inclusive = src->inclusive;
    if (src->is_range) {
        dst->lo = lower_expr(src->lo);
        dst->hi = lower_expr(src->hi);
    } else {
        dst->array = lower_expr(src->array);
    }
}

/* The generator part of IR_REDUCE / IR_LISTCOMP. */
static struct ir_var *lower_clause(struct ir_iter *it, struct gen *c)
{
    lower_iter(it, &c->iter);
    struct type *vt = c->var_sym ? c->var_sym->type : NULL;
    if (!vt) vt = c->iter.is_range ? c->iter.lo->type : c->iter.array->type->elem;
    struct ir_var *v = new_var(IRV_LOCAL, c->var, vt, c->var_loc);
    if (c->var_sym) map_put_ptr(&sym_var, c->var_sym, v);
    map_pattern(&c->pat, v);
    return v;
}

/* Whether a later clause's source reads an earlier clause's variable
 * (for i in 0..n for j in 0..i): then the element count is known only by
 * running the clauses. */
static bool clauses_depend(struct ir_node *rn)
{
    for (int i = 0; i < rn->nclauses; i++) {
        struct ir_iter *it = &rn->clauses[i].iter;
        for (int k = 0; k <= i; k++) {
            struct ir_var *v = k == 0 ? rn->gen_var : rn->clauses[k - 1].var;
            if (ir_reads(it->lo, v) || ir_reads(it->hi, v) || ir_reads(it->array, v)) return true;
        }
    }
    return false;
}

/* A par generator whose later sources depend on earlier variables: its
 * elements are those of a single clause over the array of the clauses'
 * variables, [(i, j) for i in .. for j in ..] built sequentially first,
 * so the par tree is over the same one sequence. The clause names are
 * mapped to that tuple's fields. */
static void flatten_clauses(struct ir_node *rn, struct gen *g)
{
    int nc = rn->nclauses + 1;
    struct type **ft = arena_alloc(sizeof *ft * (size_t)nc);
    for (int i = 0; i < nc; i++) ft[i] = i == 0 ? rn->gen_var->type : rn->clauses[i - 1].var->type;
    struct type *tt = type_tuple(ft, nc);
    struct ir_node *in = ir_new(IR_LISTCOMP, rn->loc, type_array(tt));
    in->iter = rn->iter;
    in->gen_var = rn->gen_var;
    in->clauses = rn->clauses;
    in->nclauses = rn->nclauses;
    in->elem = ir_new(IR_TUPLE, rn->loc, tt);
    for (int i = 0; i < nc; i++)
        ir_push_kid(in->elem, var_ref(i == 0 ? rn->gen_var : rn->clauses[i - 1].var, rn->loc));
    in->elem_type = tt;
    ir_free_vars(in, &in->caps, &in->ncaps);
    memset(&rn->iter, 0, sizeof rn->iter);
    rn->iter.array = in;
    rn->clauses = NULL;
    rn->nclauses = 0;
    rn->gen_var = new_var(IRV_TEMP, "", tt, g->var_loc);
    int i = 0;
    for (struct gen *c = g; c; c = c->next, i++) {
        if (c->var_sym) {
            struct pat_field *pf = arena_alloc(sizeof *pf);
            *pf = (struct pat_field){rn->gen_var, i, -1};
            map_put_ptr(&sym_patfield, c->var_sym, pf);
        }
        for (int k = 0; k < c->pat.len; k++) {
            struct pat_field *pf = arena_alloc(sizeof *pf);
            *pf = (struct pat_field){rn->gen_var, i, k};
            map_put_ptr(&sym_patfield, c->pat.items[k]->u.name.sym, pf);
        }
    }
}

static void lower_gen(struct ir_node *rn, struct gen *g)
{
    rn->gen_var = lower_clause(&rn->iter, g);
    for (struct gen *c = g->next; c; c = c->next) rn->nclauses++;
    if (rn->nclauses) {
        rn->clauses = arena_alloc(sizeof *rn->clauses * (size_t)rn->nclauses);
        int i = 0;
        for (struct gen *c = g->next; c; c = c->next, i++)
            rn->clauses[i].var = lower_clause(&rn->clauses[i].iter, c);
        if (rn->par && clauses_depend(rn)) flatten_clauses(rn, g);
    }
    rn->elem = lower_expr(g->elem);
    rn->filter = g->cond ? lower_expr(g->cond) : NULL;
    rn->elem_type = rn->elem->type;
    ir_free_vars(rn, &rn->caps, &rn->ncaps);
}

static struct ir_node *lower_call(struct node *n)
{
    struct ir_node *r;
    if (!n->u.call.fn && n->u.call.builtin == BI_NONE) { /* through a function value */
        r = ir_new(IR_CALLV, n->loc, n->type);
        r->a = lower_expr(n->u.call.callee);
        for (int i = 0; i < n->u.call.args.len; i++) ir_push_kid(r, lower_expr(n->u.call.args.items[i]));
        return r;
    }
    if (n->u.call.fn) {
        r = ir_new(IR_CALL, n->loc, n->type);
        r->fn = map_get_ptr(&sym_fn, n->u.call.fn);
        if (!r->fn) internal_error("lower: call of unknown function '%s'", n->u.call.fn->name);
        for (int i = 0; i < n->u.call.args.len; i++) ir_push_kid(r, lower_expr(n->u.call.args.items[i]));
        return r;
    }
    enum builtin b = n->u.call.builtin;
    switch (b) {
    case BI_INT: case BI_FLOAT: case BI_I128: case BI_U64:
        if (n->u.call.args.len != 1) internal_error("lower: conversion with %d arguments", n->u.call.args.len);
        r = ir_new(IR_CONV, n->loc, n->type);
        r->a = lower_expr(n->u.call.args.items[0]);
        r->optype = r->a->type;
        return r;
    case M_PUSH:
        internal_error("lower: push used as a value");
    default:
        break;
    }
    if (b == BI_NONE) internal_error("lower: call resolved to nothing");
    r = ir_new(IR_BUILTIN, n->loc, n->type);
    r->builtin = b;
    r->field = n->u.call.print_vals; /* print/eprint: 1 + the values' count when sep and end follow them */
    if (n->u.call.recv) ir_push_kid(r, lower_expr(n->u.call.recv));
    for (int i = 0; i < n->u.call.args.len; i++) ir_push_kid(r, lower_expr(n->u.call.args.items[i]));
    return r;
}

/* ---- lambdas ------------------------------------------------------------- */

/* The locals a lambda's body reads from around it, in order of first use:
 * every local or parameter named in it that it does not bind itself (its
 * parameters, its generators' variables, inner lambdas' parameters). */
struct lam_caps {
    struct vec used, bound; /* struct sym * */
};

static bool sym_in(struct vec *v, struct sym *s)
{
    for (int i = 0; i < v->len; i++)
        if (v->items[i] == s) return true;
    return false;
}

static void caps_expr(struct lam_caps *c, struct node *n);

static void caps_gen(struct lam_caps *c, struct gen *g)
{
    if (g->iter.is_range) {
        caps_expr(c, g->iter.lo);
        caps_expr(c, g->iter.hi);
    } else {
        caps_expr(c, g->iter.array);
    }
    if (g->var_sym) vec_push(&c->bound, g->var_sym);
    for (int i = 0; i < g->pat.len; i++) vec_push(&c->bound, g->pat.items[i]->u.name.sym);
    for (struct gen *k = g->next; k; k = k->next) { /* later clauses: sources, then names */
        if (k->iter.is_range) {
            caps_expr(c, k->iter.lo);
            caps_expr(c, k->iter.hi);
        } else {
            caps_expr(c, k->iter.array);
        }
        if (k->var_sym) vec_push(&c->bound, k->var_sym);
        for (int i = 0; i < k->pat.len; i++) vec_push(&c->bound, k->pat.items[i]->u.name.sym);
    }
    caps_expr(c, g->elem);
    caps_expr(c, g->cond);
}

static void caps_expr(struct lam_caps *c, struct node *n)
{
    if (!n) return;
    switch (n->ekind) {
    case N_INT: case N_FLOAT: case N_STR: case N_BOOL:
        return;
    case N_FSTRING:
        for (int i = 0; i < n->u.fstr.nparts; i++)
            if (n->u.fstr.parts[i].is_expr) caps_expr(c, n->u.fstr.parts[i].expr);
        return;
    case N_NAME: {
        struct sym *s = n->u.name.sym;
        if (s && (s->kind == SYM_LOCAL || s->kind == SYM_PARAM) && !sym_in(&c->bound, s) && !sym_in(&c->used, s))
            vec_push(&c->used, s);
        return;
    }
    case N_UNARY: case N_NOT: case N_BINARY: case N_AND: case N_OR:
        caps_expr(c, n->u.bin.a);
        caps_expr(c, n->u.bin.b);
        return;
    case N_COND:
        caps_expr(c, n->u.cond.then);
        caps_expr(c, n->u.cond.cond);
        caps_expr(c, n->u.cond.els);
        return;
    case N_CALL:
        if (!n->u.call.fn && n->u.call.builtin == BI_NONE) caps_expr(c, n->u.call.callee);
        if (n->u.call.callee->kind == N_FIELD && n->u.call.callee->u.field.index >= 0)
            caps_expr(c, n->u.call.callee);
        caps_expr(c, n->u.call.recv);
        for (int i = 0; i < n->u.call.args.len; i++) caps_expr(c, n->u.call.args.items[i]);
        if (n->u.call.gen) caps_gen(c, n->u.call.gen);
        return;
    case N_FIELD:
        caps_expr(c, n->u.field.base);
        return;
    case N_INDEX:
        caps_expr(c, n->u.index.base);
        caps_expr(c, n->u.index.index);
        return;
    case N_ARRAY: case N_TUPLE:
        for (int i = 0; i < n->u.array.len; i++) caps_expr(c, n->u.array.items[i]);
        return;
    case N_LISTCOMP:
        caps_gen(c, n->u.listcomp.gen);
        return;
    case N_REDUCE:
        if (n->u.reduce.gen) caps_gen(c, n->u.reduce.gen);
        caps_expr(c, n->u.reduce.array);
        return;
    case N_LAMBDA:
        for (int i = 0; i < n->u.lambda.n; i++) vec_push(&c->bound, n->u.lambda.syms[i]);
        caps_expr(c, n->u.lambda.body);
        return;
    }
}

/* A lambda becomes a function of its captures and its parameters; its
 * value, an IR_FNVAL listing the captured values (read now: by value). */
static struct ir_node *lower_lambda(struct node *n)
{
    struct lam_caps c = {0};
    for (int i = 0; i < n->u.lambda.n; i++) vec_push(&c.bound, n->u.lambda.syms[i]);
    caps_expr(&c, n->u.lambda.body);
    struct type *ft = n->type;

    struct ir_node *r = ir_new(IR_FNVAL, n->loc, ft);
    struct ir_fn *f = arena_alloc(sizeof *f);
    f->module = cur_module;
    f->name = "lambda";
    f->cname = unique_cname(cur_module, "lambda");
    vec_push(&P->fns, f); /* its name taken before an inner lambda picks one */
    f->ret = ft->elem;
    f->loc = n->loc;
    f->is_lambda = true;
    f->ncaps = c.used.len;
    f->nparams = c.used.len + n->u.lambda.n;
    f->params = arena_alloc((size_t)(f->nparams + 1) * sizeof *f->params);
    /* the captured values, read where the lambda stands */
    for (int i = 0; i < c.used.len; i++) {
        struct sym *s = c.used.items[i];
        struct node name = {.kind = N_NAME, .loc = n->loc, .type = s->type};
        name.u.name.name = s->name;
        name.u.name.sym = s;
        ir_push_kid(r, lower_expr(&name));
    }
    /* inside, each is a parameter */
    void **saved_var = arena_alloc(sizeof(void *) * (size_t)(c.used.len + 1));
    void **saved_pf = arena_alloc(sizeof(void *) * (size_t)(c.used.len + 1));
    for (int i = 0; i < c.used.len; i++) {
        struct sym *s = c.used.items[i];
        f->params[i] = new_var(IRV_PARAM, s->name, s->type, s->loc);
        saved_var[i] = map_get_ptr(&sym_var, s);
        saved_pf[i] = map_get_ptr(&sym_patfield, s);
        map_put_ptr(&sym_var, s, f->params[i]);
        map_put_ptr(&sym_patfield, s, NULL);
    }
    for (int i = 0; i < n->u.lambda.n; i++) {
        struct sym *s = n->u.lambda.syms[i];
        f->params[c.used.len + i] = new_var(IRV_PARAM, s->name, s->type, n->u.lambda.locs[i]);
        map_put_ptr(&sym_var, s, f->params[c.used.len + i]);
    }
    struct ir_fn *outer = cur_fn;
    cur_fn = f;
    f->body = stmt_block(n->loc);
    struct ir_node *body = lower_expr(n->u.lambda.body);
    struct ir_node *st = ir_new(f->ret == ty_void ? IR_EXPR : IR_RETURN, n->u.lambda.body->loc, ty_void);
    st->a = body;
    ir_push_kid(f->body, st);
    cur_fn = outer;
    for (int i = 0; i < c.used.len; i++) {
        map_put_ptr(&sym_var, c.used.items[i], saved_var[i]);
        map_put_ptr(&sym_patfield, c.used.items[i], saved_pf[i]);
    }
    r->fn = f;
    return r;
}

static struct ir_node *lower_expr(struct node *n)
{
    if (!n) return NULL;
    if (!n->type) internal_error("lower: %s node without a type", node_kind_name[n->kind]);
    struct ir_node *r;
    switch (n->ekind) {
    case N_INT:
        r = ir_new(IR_INT, n->loc, n->type);
        r->ival = n->u.ilit.neg ? (unsigned __int128)0 - n->u.ilit.value : n->u.ilit.value;
        return r;
    case N_FLOAT:
        r = ir_new(IR_FLOAT, n->loc, n->type);
        r->fval = n->u.flit.value;
        return r;
    case N_STR:
        r = ir_new(IR_STR, n->loc, n->type);
        r->str = n->u.slit.s;
        r->slen = n->u.slit.len;
        return r;
    case N_BOOL:
        r = ir_new(IR_BOOL, n->loc, n->type);
        r->bval = n->u.blit;
        return r;
    case N_FSTRING:
        r = ir_new(IR_FSTRING, n->loc, n->type);
        r->specs = arena_alloc((size_t)(n->u.fstr.nparts + 1) * sizeof *r->specs);
        r->lit = arena_alloc((size_t)(n->u.fstr.nparts + 1) * sizeof *r->lit);
        for (int i = 0; i < n->u.fstr.nparts; i++) {
            struct fpart *p = &n->u.fstr.parts[i];
            int k = r->nkids;
            if (p->is_expr) {
                ir_push_kid(r, lower_expr(p->expr));
                r->specs[k] = p->spec;
            } else {
                struct ir_node *s = ir_new(IR_STR, n->loc, ty_str);
                s->str = p->text;
                s->slen = p->len;
                ir_push_kid(r, s);
                r->lit[k] = true;
            }
        }
        return r;
    case N_NAME: {
        struct sym *s = n->u.name.sym;
        if (!s) internal_error("lower: unresolved name '%s'", n->u.name.name);
        if (s->kind == SYM_FN) { /* a function as a value */
            r = ir_new(IR_FNVAL, n->loc, n->type);
            r->fn = map_get_ptr(&sym_fn, s);
            if (!r->fn) internal_error("lower: function value of unknown '%s'", s->name);
            return r;
        }
        if (s->kind == SYM_CONST) {
            r = ir_new(IR_GLOBAL, n->loc, n->type);
            r->global = map_get_ptr(&sym_global, s);
            if (!r->global) internal_error("lower: constant '%s' without a global", s->name);
            return r;
        }
        if (s->kind != SYM_LOCAL && s->kind != SYM_PARAM)
            internal_error("lower: name '%s' is not a value", s->name);
        struct pat_field *pf = map_get_ptr(&sym_patfield, s);
        if (pf) { /* borrowed from the loop's element, as the element is */
            r = ir_new(IR_FIELD, n->loc, n->type);
            r->a = var_ref(pf->var, n->loc);
            r->field = pf->k;
            if (pf->k2 >= 0) {
                r->type = pf->var->type->fields[pf->k];
                struct ir_node *o = ir_new(IR_FIELD, n->loc, n->type);
                o->a = r;
                o->field = pf->k2;
                r = o;
            }
            return r;
        }
        return var_ref(var_of_sym(s, n->loc), n->loc);
    }
    case N_UNARY:
        r = ir_new(IR_UNARY, n->loc, n->type);
        r->bop = n->u.bin.op;
        r->a = lower_expr(n->u.bin.a);
        r->optype = r->a->type;
        return r;
    case N_NOT:
        r = ir_new(IR_NOT, n->loc, n->type);
        r->a = lower_expr(n->u.bin.a);
        return r;
    case N_BINARY:
        r = ir_new(IR_BINARY, n->loc, n->type);
        r->bop = n->u.bin.op;
        r->a = lower_expr(n->u.bin.a);
        r->b = lower_expr(n->u.bin.b);
        r->optype = r->a->type;
        return r;
    case N_AND:
    case N_OR:
        r = ir_new(n->kind == N_AND ? IR_AND : IR_OR, n->loc, n->type);
        r->a = lower_expr(n->u.bin.a);
        r->b = lower_expr(n->u.bin.b);
        return r;
    case N_COND:
        r = ir_new(IR_COND, n->loc, n->type);
        r->a = lower_expr(n->u.cond.cond);
        r->b = lower_expr(n->u.cond.then);
        r->c = lower_expr(n->u.cond.els);
        return r;
    case N_CALL:
        return lower_call(n);
    case N_INDEX:
        r = ir_new(IR_INDEX, n->loc, n->type);
        r->a = lower_expr(n->u.index.base);
        r->b = lower_expr(n->u.index.index);
        return r;
    case N_ARRAY:
        r = ir_new(IR_ARRAY, n->loc, n->type);
        for (int i = 0; i < n->u.array.len; i++) ir_push_kid(r, lower_expr(n->u.array.items[i]));
        return r;
    case N_LISTCOMP:
        r = ir_new(IR_LISTCOMP, n->loc, n->type);
        r->par = n->u.listcomp.par;
        lower_gen(r, n->u.listcomp.gen);
        return r;
    case N_REDUCE:
        r = ir_new(IR_REDUCE, n->loc, n->type);
        r->par = n->u.reduce.par;
        r->world = n->u.reduce.world;
        r->reducer = n->u.reduce.reducer;
        if (n->u.reduce.gen) {
            lower_gen(r, n->u.reduce.gen);
        } else {
            struct node *arr = n->u.reduce.array;
            r->iter.array = lower_expr(arr);
            struct type *et = arr->type->elem;
            r->gen_var = new_var(IRV_TEMP, "", et, arr->loc);
            r->elem = var_ref(r->gen_var, arr->loc);
            r->elem_type = et;
            ir_free_vars(r, &r->caps, &r->ncaps);
        }
        return r;
    case N_TUPLE:
        r = ir_new(IR_TUPLE, n->loc, n->type);
        for (int i = 0; i < n->u.array.len; i++) ir_push_kid(r, lower_expr(n->u.array.items[i]));
        return r;
    case N_LAMBDA:
        return lower_lambda(n);
    case N_FIELD:
        if (n->u.field.index < 0) break;
        r = ir_new(IR_FIELD, n->loc, n->type);
        r->a = lower_expr(n->u.field.base);
        r->field = n->u.field.index;
        return r;
    }
    internal_error("lower: unexpected %s in an expression", node_kind_name[n->kind]);
}

/* ---- statements ---------------------------------------------------------- */

static struct ir_node *stmt_block(struct loc loc)
{
    return ir_new(IR_BLOCK, loc, ty_void);
}

/* Splits an assignment target into its root variable and its path of
 * steps (outermost last in the AST, first in idx): an index expression, or
 * for a field step (s.lo, segs[i].lo) fld[i] >= 0, the field's number. */
static struct ir_var *target_root(struct node *t, struct node **idx, int *fld, int *nidx)
{
    if (t->kind == N_NAME) {
        struct sym *s = t->u.name.sym;
        if (!s || (s->kind != SYM_LOCAL && s->kind != SYM_PARAM))
            internal_error("lower: assignment to a non-variable '%s'", t->u.name.name);
        return var_of_sym(s, t->loc);
    }
    if (t->kind == N_FIELD && t->u.field.index >= 0) {
        struct ir_var *v = target_root(t->u.field.base, idx, fld, nidx);
        if (*nidx >= 256) internal_error("lower: index chain too deep");
        idx[*nidx] = t;
        fld[(*nidx)++] = t->u.field.index;
        return v;
    }
    if (t->kind != N_INDEX) internal_error("lower: bad assignment target %s", node_kind_name[t->kind]);
    struct ir_var *v = target_root(t->u.index.base, idx, fld, nidx);
    if (*nidx >= 256) internal_error("lower: index chain too deep");
    idx[*nidx] = t->u.index.index;
    fld[(*nidx)++] = -1;
    return v;
}

/* A field step of a store's path: IR_FIELD with no operand (ir.h). */
static struct ir_node *field_step(struct node *f, int k)
{
    struct ir_node *r = ir_new(IR_FIELD, f->loc, f->type);
    r->field = k;
    return r;
}

static struct ir_node *field_of(struct ir_var *v, int k, struct loc loc)
{
    struct ir_node *f = ir_new(IR_FIELD, loc, v->type->fields[k]);
    f->a = var_ref(v, loc);
    f->field = k;
    return f;
}

/* let (x, y) = e: `let t = e; let x = t.0; let y = t.1` into the enclosing
 * block b (the names live to its end). */
static void lower_let_pattern(struct ir_node *b, struct node *n)
{
    struct ir_node *init = lower_expr(n->u.let.init);
    struct ir_var *t = new_var(IRV_TEMP, "", init->type, init->loc);
    struct ir_node *let = ir_new(IR_LET, n->loc, ty_void);
    let->var = t;
    let->a = init;
    ir_push_kid(b, let);
    for (int i = 0; i < n->u.let.pat.len; i++) {
        struct node *nm = n->u.let.pat.items[i];
        struct ir_node *l = ir_new(IR_LET, nm->loc, ty_void);
        l->a = field_of(t, i, nm->loc);
        l->var = new_var(IRV_LOCAL, nm->u.name.name, l->a->type, nm->loc);
        map_put_ptr(&sym_var, nm->u.name.sym, l->var);
        ir_push_kid(b, l);
    }
}

/* (a, b) = e: a block `let t = e; a = t.0; b = t.1`, so the right side is
 * evaluated in full before any name changes. */
static struct ir_node *lower_tuple_assign(struct node *n)
{
    struct ir_node *blk = stmt_block(n->loc);
    struct ir_node *val = lower_expr(n->u.assign.value);
    struct ir_var *t = new_var(IRV_TEMP, "", val->type, val->loc);
    struct ir_node *let = ir_new(IR_LET, val->loc, ty_void);
    let->var = t;
    let->a = val;
    ir_push_kid(blk, let);
    struct nodes *el = &n->u.assign.target->u.array;
    for (int i = 0; i < el->len; i++) {
        struct ir_node *as = ir_new(IR_ASSIGN, el->items[i]->loc, ty_void);
        as->var = var_of_sym(el->items[i]->u.name.sym, el->items[i]->loc);
        as->a = field_of(t, i, el->items[i]->loc);
        ir_push_kid(blk, as);
    }
    return blk;
}

static struct ir_node *lower_assign(struct node *n)
{
    if (n->u.assign.target->kind == N_TUPLE) return lower_tuple_assign(n);
    struct node *t = n->u.assign.target;
    enum op op = n->u.assign.op;
    struct node *idx[256];
    int fld[256];
    int nidx = 0;
    struct ir_var *root = target_root(t, idx, fld, &nidx);
    struct loc tloc = t->loc;

    if (nidx == 0) {
        struct ir_node *r = ir_new(IR_ASSIGN, n->loc, ty_void);
        r->var = root;
        struct ir_node *v = lower_expr(n->u.assign.value);
        if (op != OP_NONE) {
            struct ir_node *b = ir_new(IR_BINARY, loc_span(tloc, n->u.assign.value->loc), root->type);
            b->bop = op;
            b->a = var_ref(root, tloc);
            b->b = v;
            b->optype = root->type;
            v = b;
        }
        r->a = v;
        return r;
    }
    if (op == OP_NONE) {
        struct ir_node *r = ir_new(IR_STORE, n->loc, ty_void);
        r->var = root;
        r->a = lower_expr(n->u.assign.value);
        for (int i = 0; i < nidx; i++) ir_push_kid(r, fld[i] >= 0 ? field_step(idx[i], fld[i]) : lower_expr(idx[i]));
        return r;
    }
    /* xs[i] OP= v: t_v = v; t_i = i; ...; xs[t_i] = xs[t_i] OP t_v */
    struct ir_node *blk = stmt_block(n->loc);
    struct ir_node *val = lower_expr(n->u.assign.value);
    struct ir_var *tv = new_var(IRV_TEMP, "", val->type, val->loc);
    struct ir_node *let = ir_new(IR_LET, val->loc, ty_void);
    let->var = tv;
    let->a = val;
    ir_push_kid(blk, let);
    struct ir_var *ti[256];
    for (int i = 0; i < nidx; i++) {
        if (fld[i] >= 0) continue;
        struct ir_node *iv = lower_expr(idx[i]);
        ti[i] = new_var(IRV_TEMP, "", iv->type, iv->loc);
        struct ir_node *l = ir_new(IR_LET, iv->loc, ty_void);
        l->var = ti[i];
        l->a = iv;
        ir_push_kid(blk, l);
    }
    struct ir_node *cur = var_ref(root, tloc);
    for (int i = 0; i < nidx; i++) {
        if (fld[i] >= 0) {
            struct ir_node *f = ir_new(IR_FIELD, tloc, cur->type->fields[fld[i]]);
            f->a = cur;
            f->field = fld[i];
            cur = f;
            continue;
        }
        struct ir_node *ix = ir_new(IR_INDEX, tloc, cur->type->elem);
        ix->a = cur;
        ix->b = var_ref(ti[i], ti[i]->loc);
        cur = ix;
    }
    struct ir_node *b = ir_new(IR_BINARY, loc_span(tloc, n->u.assign.value->loc), t->type ? t->type : cur->type);
    b->bop = op;
    b->a = cur;
    b->b = var_ref(tv, val->loc);
    b->optype = cur->type;
    struct ir_node *st = ir_new(IR_STORE, n->loc, ty_void);
    st->var = root;
    st->a = b;
    for (int i = 0; i < nidx; i++) ir_push_kid(st, fld[i] >= 0 ? field_step(idx[i], fld[i]) : var_ref(ti[i], ti[i]->loc));
    ir_push_kid(blk, st);
    return blk;
}

static struct ir_node *lower_stmt(struct node *n)
{
    struct ir_node *r;
    switch (n->skind) {
    case N_LET: {
        r = ir_new(IR_LET, n->loc, ty_void);
        r->a = lower_expr(n->u.let.init);
        struct sym *s = n->u.let.sym;
        struct type *t = s && s->type ? s->type : r->a->type;
        r->var = new_var(IRV_LOCAL, n->u.let.name, t, n->u.let.name_loc);
        if (s) map_put_ptr(&sym_var, s, r->var);
        return r;
    }
    case N_ASSIGN:
        return lower_assign(n);
    case N_IF: {
        /* elif chains become nested ifs in the else branch */
        struct ir_node *els = n->u.if_.has_else ? lower_block(&n->u.if_.else_block, n->loc) : NULL;
        for (int i = n->u.if_.conds.len - 1; i >= 0; i--) {
            struct node *c = n->u.if_.conds.items[i];
            struct ir_node *iff = ir_new(IR_IF, i == 0 ? n->loc : c->loc, ty_void);
            iff->a = lower_expr(c);
            iff->b = lower_block(&n->u.if_.blocks[i], c->loc);
            iff->c = els;
            els = iff;
        }
        return els;
    }
    case N_WHILE:
        r = ir_new(IR_WHILE, n->loc, ty_void);
        r->a = lower_expr(n->u.while_.cond);
        r->b = lower_block(&n->u.while_.body, n->loc);
        return r;
    case N_FOR: {
        struct iterable *it = &n->u.for_.iter;
        r = ir_new(it->is_range ? IR_FOR_RANGE : IR_FOR_ARRAY, n->loc, ty_void);
        lower_iter(&r->iter, it);
        struct sym *s = n->u.for_.var_sym;
        struct type *vt = s && s->type ? s->type : it->is_range ? r->iter.lo->type : r->iter.array->type->elem;
        r->var = new_var(IRV_LOCAL, n->u.for_.var, vt, n->u.for_.var_loc);
        if (s) map_put_ptr(&sym_var, s, r->var);
        map_pattern(&n->u.for_.pat, r->var);
        r->b = lower_block(&n->u.for_.body, n->loc);
        return r;
    }
    case N_BREAK:
        return ir_new(IR_BREAK, n->loc, ty_void);
    case N_CONTINUE:
        return ir_new(IR_CONTINUE, n->loc, ty_void);
    case N_PASS:
        return stmt_block(n->loc);
    case N_RETURN:
        r = ir_new(IR_RETURN, n->loc, ty_void);
        r->a = n->u.ret.value ? lower_expr(n->u.ret.value) : NULL;
        return r;
    case N_EXPR_STMT: {
        struct node *e = n->u.expr_stmt.expr;
        if (e->kind == N_CALL && !e->u.call.fn && e->u.call.builtin == M_PUSH) {
            struct node *idx[256];
            int fld[256];
            int nidx = 0;
            r = ir_new(IR_PUSH, n->loc, ty_void);
            if (!e->u.call.recv || e->u.call.args.len != 1) internal_error("lower: malformed push");
            r->a = lower_expr(e->u.call.args.items[0]);
            r->var = target_root(e->u.call.recv, idx, fld, &nidx);
            for (int i = 0; i < nidx; i++) ir_push_kid(r, fld[i] >= 0 ? field_step(idx[i], fld[i]) : lower_expr(idx[i]));
            return r;
        }
        r = ir_new(IR_EXPR, n->loc, ty_void);
        r->a = lower_expr(e);
        return r;
    }
    }
    internal_error("lower: unexpected %s in a block", node_kind_name[n->kind]);
}

static struct ir_node *lower_block(struct nodes *stmts, struct loc loc)
{
    struct ir_node *b = stmt_block(loc);
    for (int i = 0; i < stmts->len; i++) {
        struct node *st = stmts->items[i];
        if (st->kind == N_LET && st->u.let.pat.len)
            lower_let_pattern(b, st);
        else
            ir_push_kid(b, lower_stmt(st));
    }
    return b;
}

/* ---- the program ---------------------------------------------------------- */

/* The C names taken (cname -> itself) and, per base name, the last suffix
 * handed out (base -> int *): a name is never freed again, so the smallest
 * free suffix of a base only grows, and the next search starts there. Both
 * make 100,000 functions or lambdas linear, not quadratic. */
static struct map cnames_taken, cname_next;

static const char *unique_cname(const char *module, const char *name)
{
    const char *base = arena_printf("bf_%s_%s", module, name);
    int *next = map_get_str(&cname_next, base);
    if (!next) {
        next = arena_alloc(sizeof *next);
        *next = 1;
        map_put_str(&cname_next, base, next);
    }
    for (int k = *next;; k++) {
        const char *c = k == 1 ? base : arena_printf("%s_%d", base, k);
        if (!map_get_str(&cnames_taken, c)) {
            *next = k;
            map_put_str(&cnames_taken, c, (void *)c);
            return c;
        }
    }
}

struct ir_program *lower_program(struct program *prog)
{
    P = arena_alloc(sizeof *P);
    map_free(&cnames_taken);
    map_free(&cname_next);
    /* Pass 1: functions and constants get their IR objects, so calls and
     * references may precede definitions. */
    for (int mi = 0; mi < prog->modules.len; mi++) {
        struct module *m = prog->modules.items[mi];
        for (int i = 0; i < m->decls.len; i++) {
            struct node *d = m->decls.items[i];
            if (d->kind != N_FN) continue;
            struct ir_fn *f = arena_alloc(sizeof *f);
            f->module = m->name;
            f->name = d->u.fn.name;
            f->cname = unique_cname(m->name, d->u.fn.name);
            f->ret = d->u.fn.ret ? d->u.fn.ret : ty_void;
            f->loc = d->loc;
            f->has_site = m->path && strncmp(m->path, "stdlib/", 7) == 0;
            f->nparams = d->u.fn.nparams;
            f->params = arena_alloc((size_t)(f->nparams + 1) * sizeof *f->params);
            for (int p = 0; p < f->nparams; p++)
                f->params[p] = new_var(IRV_PARAM, d->u.fn.param_names[p], d->u.fn.param_types[p],
                                       d->u.fn.param_locs ? d->u.fn.param_locs[p] : d->loc);
            for (int p = 0; p < f->nparams; p++)
                if (d->u.fn.param_syms && d->u.fn.param_syms[p])
                    map_put_ptr(&sym_var, d->u.fn.param_syms[p], f->params[p]);
            vec_push(&P->fns, f);
            if (d->u.fn.sym) map_put_ptr(&sym_fn, d->u.fn.sym, f);
            map_put_ptr(&sym_fn, d, f);
            if (m == prog->main && strcmp(f->name, "main") == 0) P->main = f;
        }
    }
    for (int mi = 0; mi < prog->modules.len; mi++) {
        struct module *m = prog->modules.items[mi];
        for (int i = 0; i < m->decls.len; i++) {
            struct node *d = m->decls.items[i];
            if (d->kind != N_CONST) continue;
            struct ir_global *g = arena_alloc(sizeof *g);
            g->id = P->globals.len + 1;
            g->module = m->name;
            g->name = d->u.let.name;
            g->loc = d->loc;
            struct sym *s = d->u.let.sym;
            g->type = s && s->type ? s->type : d->u.let.init->type;
            if (s) map_put_ptr(&sym_global, s, g);
            vec_push(&P->globals, g);
        }
    }
    /* Pass 2: bodies and initialisers, in order. */
    int gi = 0, fi = 0;
    for (int mi = 0; mi < prog->modules.len; mi++) {
        struct module *m = prog->modules.items[mi];
        cur_module = m->name;
        for (int i = 0; i < m->decls.len; i++) {
            struct node *d = m->decls.items[i];
            if (d->kind == N_CONST) {
                struct ir_global *g = P->globals.items[gi++];
                cur_fn = NULL;
                g->init = lower_expr(d->u.let.init);
            } else if (d->kind == N_FN) {
                struct ir_fn *f = P->fns.items[fi++];
                cur_fn = f;
                cur_fn_node = d;
                f->body = lower_block(&d->u.fn.body, d->loc);
                /* The terminator rule (block_flow) on the checked AST: a
                 * body that ends only by os.exit gets an IR_UNREACHABLE. The
                 * checker asks for FLOW_RETURNS, so today none does. */
                if (f->ret != ty_void && block_flow(&d->u.fn.body) == FLOW_EXITS)
                    ir_push_kid(f->body, ir_new(IR_UNREACHABLE, d->loc, ty_void));
            }
        }
    }
    cur_fn = NULL;
    if (!P->main) internal_error("lower: the program has no main()");
    return P;
}
