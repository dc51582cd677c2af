/*
 * opt_fnvals.c: calls through function values the compiler can see,
 * made direct calls.
 *
 * A function value whose function is known where it is called, an
 * IR_FNVAL, turns the call through it into an IR_CALL of that function,
 * with the lambda's captured values as the first arguments. Three things
 * bring an IR_FNVAL to a call:
 *   - it stands there: (lambda x: x + 1)(2), or after the two below;
 *   - a `let` holds it, and neither the variable nor anything the lambda
 *     captured is ever assigned in the function: each read of the variable
 *     is the value itself (the captures read where the reads are give the
 *     values they had when it was made);
 *   - specialisation: a call g(..., F, ...) that passes an IR_FNVAL F for
 *     g's parameter p calls a copy of g made for F: p is gone, F's captured
 *     values are new parameters at the end, and every read of p in the copy
 *     is F over those parameters. One copy per (g, p, F's function), so a
 *     recursive g (adaptive quadrature) calls its own copy. Captured values
 *     are reads of variables (lowering makes them so), so passing them after
 *     the other arguments changes no order of effects.
 * After this pass `integrate(f, a, b, n)` with f known is the code with f
 * written in place: the inliner, the lane vectoriser and the GPU emitter
 * see a plain call. Calls through values this cannot see (an array of
 * functions indexed at run time) stay IR_CALLV: a call through a pointer.
 */
#include "ir.h"

#include <stdlib.h>
#include <string.h>

#define MAX_COPIES 256 /* specialised copies in one program, at most */

static struct ir_program *P;

/* ---- copies of IR ------------------------------------------------------------ */

/* How a function's copy renames: every variable of the original gets a
 * fresh one (a variable belongs to one function), and reads of `from` (the
 * parameter a function value was passed for) become copies of `to`. */
struct renaming {
    struct ir_copier k;    /* first: the hooks get it */
    struct ir_var *from;
    struct ir_node *to;
    struct ir_var **fresh; /* by old id */
    int limit;             /* ids below it are the original's */
};

static struct ir_var *renamed(struct ir_copier *k, struct ir_var *v)
{
    struct renaming *r = (struct renaming *)k;
    if (v->id >= r->limit) return v;
    if (!r->fresh[v->id]) {
        struct ir_var *c = arena_alloc(sizeof *c);
        *c = *v;
        c->id = ++P->nvars;
        r->fresh[v->id] = c;
    }
    return r->fresh[v->id];
}

static struct ir_node *read_of_from(struct ir_copier *k, const struct ir_node *n)
{
    struct renaming *r = (struct renaming *)k;
    return n->var == r->from ? ir_copy(NULL, r->to) : NULL;
}

/* A copy of an expression, the same variables. */
static struct ir_node *clone(struct ir_node *n)
{
    return ir_copy(NULL, n);
}

/* ---- the variables a function assigns ------------------------------------------ */

/* One set of per-variable tables for the pass, grown as copies add
 * variables and cleared entry by entry after each function: a function
 * costs its own size, not the program's variable count. */
struct fnstate {
    unsigned char *assigned; /* by var id: assigned, stored into or changed in place */
    struct ir_node **known;  /* by var id: the IR_FNVAL a stable let holds */
    int cap;                 /* ids below it have entries */
    int *touched;            /* the ids with an entry */
    int ntouched, captouched;
    bool changed;            /* reads were replaced: recapture */
};

static void touch(struct fnstate *st, int id)
{
    VEC_GROW(st->touched, st->ntouched, st->captouched);
    st->touched[st->ntouched++] = id;
}

/* Whether n holds a function value or a call through one (most functions
 * hold neither: the pass leaves them untouched). */
static bool has_fnvals(const struct ir_node *n)
{
    if (!n) return false;
    if (n->op == IR_FNVAL || n->op == IR_CALLV) return true;
    if (has_fnvals(n->a) || has_fnvals(n->b) || has_fnvals(n->c)) return true;
    for (int i = 0; i < n->nkids; i++)
        if (has_fnvals(n->kids[i])) return true;
    if (has_fnvals(n->iter.lo) || has_fnvals(n->iter.hi) || has_fnvals(n->iter.array)) return true;
    if (has_fnvals(n->elem) || has_fnvals(n->filter) || has_fnvals(n->key)) return true;
    for (int i = 0; i < n->nclauses; i++)
        if (has_fnvals(n->clauses[i].iter.lo) || has_fnvals(n->clauses[i].iter.hi) ||
            has_fnvals(n->clauses[i].iter.array))
            return true;
    return false;
}

static void mark_assigned(struct fnstate *st, struct ir_node *n)
{
    if (!n) return;
    switch (n->op) {
    case IR_ASSIGN: case IR_STORE: case IR_PUSH:
        st->assigned[n->var->id] = 1;
        touch(st, n->var->id);
        break;
    case IR_BUILTIN:
        if (builtin_mutates(n->builtin) && n->nkids) {
            struct ir_node *root = n->kids[0];
            while (root->op == IR_INDEX || root->op == IR_FIELD) root = root->a;
            if (root->op == IR_VAR) {
                st->assigned[root->var->id] = 1;
                touch(st, root->var->id);
            }
        }
        break;
    default:
        break;
    }
    mark_assigned(st, n->a);
    mark_assigned(st, n->b);
    mark_assigned(st, n->c);
    for (int i = 0; i < n->nkids; i++) mark_assigned(st, n->kids[i]);
    mark_assigned(st, n->iter.lo);
    mark_assigned(st, n->iter.hi);
    mark_assigned(st, n->iter.array);
    mark_assigned(st, n->elem);
    mark_assigned(st, n->filter);
    mark_assigned(st, n->key);
}

/* Whether a captured value may be read again later, giving the same value:
 * a read of a variable never assigned (or a field of one), a constant. */
static bool stable(struct fnstate *st, struct ir_node *n)
{
    while (n->op == IR_FIELD) n = n->a;
    if (n->op == IR_VAR) return !st->assigned[n->var->id];
    return n->op == IR_GLOBAL || n->op == IR_INT || n->op == IR_FLOAT || n->op == IR_BOOL;
}

static bool stable_fnval(struct fnstate *st, struct ir_node *n)
{
    if (!n || n->op != IR_FNVAL) return false;
    for (int i = 0; i < n->nkids; i++)
        if (!stable(st, n->kids[i])) return false;
    return true;
}

/* ---- specialisation ------------------------------------------------------------ */

struct copy_key {
    struct ir_fn *g, *f, *copy;
    int param;
};
static struct copy_key *copies;
static int ncopies, capcopies;

/* g made for F passed as its parameter p. */
static struct ir_fn *specialise(struct ir_fn *g, int p, struct ir_node *F)
{
    for (int i = 0; i < ncopies; i++)
        if (copies[i].g == g && copies[i].param == p && copies[i].f == F->fn) return copies[i].copy;
    if (ncopies >= MAX_COPIES) return NULL;
    struct ir_fn *c = arena_alloc(sizeof *c);
    *c = *g;
    struct renaming ren = {{read_of_from, renamed, NULL}, g->params[p], NULL, NULL, P->nvars + 1};
    ren.fresh = xmalloc(sizeof *ren.fresh * (size_t)ren.limit);
    memset(ren.fresh, 0, sizeof *ren.fresh * (size_t)ren.limit);
    c->cname = arena_printf("%s_s%d", g->cname, ncopies + 1);
    c->is_lambda = false;
    c->ncaps = 0;
    int nk = F->nkids;
    c->nparams = g->nparams - 1 + nk;
    c->params = arena_alloc(sizeof *c->params * (size_t)(c->nparams + 1));
    int k = 0;
    for (int i = 0; i < g->nparams; i++)
        if (i != p) c->params[k++] = renamed(&ren.k, g->params[i]);
    /* F over the new parameters */
    struct ir_node *inner = ir_new(IR_FNVAL, F->loc, F->type);
    inner->fn = F->fn;
    for (int i = 0; i < nk; i++) {
        struct ir_var *v = arena_alloc(sizeof *v);
        v->id = ++P->nvars;
        v->kind = IRV_PARAM;
        v->name = F->fn->params[i]->name;
        v->type = F->kids[i]->type;
        v->loc = F->loc;
        c->params[k++] = v;
        struct ir_node *r = ir_new(IR_VAR, F->loc, v->type);
        r->var = v;
        ir_push_kid(inner, r);
    }
    VEC_GROW(copies, ncopies, capcopies);
    copies[ncopies++] = (struct copy_key){g, F->fn, c, p};
    ren.to = inner;
    c->body = ir_copy(&ren.k, g->body);
    free(ren.fresh);
    ir_recapture(c->body);
    vec_push(&P->fns, c);
    return c;
}

/* ---- the walk ---------------------------------------------------------------- */

static struct ir_node *resolve(struct fnstate *st, struct ir_node *n);

static void resolve_kids(struct fnstate *st, struct ir_node *n)
{
    n->a = resolve(st, n->a);
    n->b = resolve(st, n->b);
    n->c = resolve(st, n->c);
    for (int i = 0; i < n->nkids; i++) n->kids[i] = resolve(st, n->kids[i]);
    n->iter.lo = resolve(st, n->iter.lo);
    n->iter.hi = resolve(st, n->iter.hi);
    n->iter.array = resolve(st, n->iter.array);
    n->elem = resolve(st, n->elem);
    n->filter = resolve(st, n->filter);
    n->key = resolve(st, n->key);
    for (int i = 0; i < n->nclauses; i++) {
        struct ir_iter *it = &n->clauses[i].iter;
        it->lo = resolve(st, it->lo);
        it->hi = resolve(st, it->hi);
        it->array = resolve(st, it->array);
    }
}

static struct ir_node *resolve(struct fnstate *st, struct ir_node *n)
{
    if (!n) return NULL;
    /* a read of a stable let holding a known value: the value */
    if (n->op == IR_VAR && st->known[n->var->id]) {
        st->changed = true;
        return clone(st->known[n->var->id]);
    }
    resolve_kids(st, n);
    if (n->op == IR_LET && !st->assigned[n->var->id] && stable_fnval(st, n->a)) {
        st->known[n->var->id] = n->a;
        touch(st, n->var->id);
    }
    /* a constant holding a function without captures */
    if (n->op == IR_CALLV && n->a->op == IR_GLOBAL && n->a->global->init && n->a->global->init->op == IR_FNVAL
        && n->a->global->init->nkids == 0)
        n->a = clone(n->a->global->init);
    if (n->op == IR_CALLV && n->a->op == IR_FNVAL) {
        struct ir_node *F = n->a;
        struct ir_node *call = ir_new(IR_CALL, n->loc, n->type);
        call->fn = F->fn;
        for (int i = 0; i < F->nkids; i++) ir_push_kid(call, F->kids[i]);
        for (int i = 0; i < n->nkids; i++) ir_push_kid(call, n->kids[i]);
        n = call;
    }
    /* g(..., F, ...): the copy of g made for F */
    while (n->op == IR_CALL) {
        int p = -1;
        for (int i = 0; i < n->nkids && p < 0; i++)
            if (stable_fnval(st, n->kids[i])) p = i;
        if (p < 0) break;
        struct ir_node *F = n->kids[p];
        struct ir_fn *c = specialise(n->fn, p, F);
        if (!c) break;
        struct ir_node *call = ir_new(IR_CALL, n->loc, n->type);
        memcpy(call, n, sizeof *call);
        call->kids = NULL;
        call->nkids = 0;
        call->fn = c;
        for (int i = 0; i < n->nkids; i++)
            if (i != p) ir_push_kid(call, n->kids[i]);
        for (int i = 0; i < F->nkids; i++) ir_push_kid(call, F->kids[i]);
        n = call;
    }
    return n;
}

void opt_fnvals(struct ir_program *ir)
{
    P = ir;
    ncopies = 0;
    struct fnstate st = {0};
    /* the list grows as copies are made; each copy is walked in its turn */
    for (int i = 0; i < ir->fns.len; i++) {
        struct ir_fn *f = ir->fns.items[i];
        if (!has_fnvals(f->body)) continue;
        if (st.cap < P->nvars + 1) { /* copies made variables: room for them */
            int cap = P->nvars + 1 + P->nvars / 2;
            st.assigned = xrealloc(st.assigned, (size_t)cap);
            st.known = xrealloc(st.known, sizeof *st.known * (size_t)cap);
            memset(st.assigned + st.cap, 0, (size_t)(cap - st.cap));
            memset(st.known + st.cap, 0, sizeof *st.known * (size_t)(cap - st.cap));
            st.cap = cap;
        }
        st.changed = false;
        mark_assigned(&st, f->body);
        f->body = resolve(&st, f->body);
        if (st.changed) ir_recapture(f->body);
        for (int t = 0; t < st.ntouched; t++) {
            st.assigned[st.touched[t]] = 0;
            st.known[st.touched[t]] = NULL;
        }
        st.ntouched = 0;
    }
    free(st.assigned);
    free(st.known);
    free(st.touched);
    free(copies);
    copies = NULL;
    ncopies = capcopies = 0;
    P = NULL;
}
