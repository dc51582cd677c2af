/*
 * ir.c: the IR's opcode tables and its verifier, with the queries of loops
 * and guards the verifier and the passes share (the walks and builders are
 * ir_walk.c, the text dump ir_dump.c).
 *
 * ir_verify re-derives what lowering promised (types on every node and
 * consistent with the opcode, variables defined before use and in scope,
 * complete capture lists, break/continue inside loops, returns that match
 * the function) and reports a violation as an internal error: a program the
 * checker accepted must never reach the C compiler broken.
 */
#include "ir.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

const char *const ir_op_name[] = {
#define X(k, s, n) [k] = s,
    IR_EXPRS(X)
#undef X
#define X(k, s, n, first) [k] = s,
    IR_STMTS(X)
#undef X
};

/* ---- verify -------------------------------------------------------------- */

struct vstate {
    struct ir_var **scope;   /* variables in scope, innermost last */
    int nscope, cap;
    char *defined;           /* by id: ever defined (ids are defined once) */
    int loops;
    struct ir_fn *fn;        /* NULL in a global initialiser */
    int global_limit;        /* in an initialiser: globals below this id may be read */
    const char *where;
    struct ir_node **facts;  /* the unique statements in force (opt_unique.c) */
    int nfacts, capf;
    int *deflog;             /* the ids defined, in order (a versioned if's then-branch undone) */
    int ndeflog, capdl;
    struct ir_var *cursors[IR_MAX_CURSORS]; /* the arrays of the cursor blocks around (opt_cursor.c) */
    int ncursors;
    struct ir_var *in_place; /* the array the steps loop around maps in place (opt_version.c, map_steps) */
    struct ir_node *prefetching; /* the then-branch of the [runs long] if being verified (opt_prefetch.c) */
    struct ir_node *around[64]; /* the loops around, innermost last (in_range_by) */
    int naround;                /* may pass 64: those deeper are not kept */
};

static struct ir_program *VP;

_Noreturn static void vfail(struct vstate *st, struct ir_node *n, const char *msg)
{
    if (n)
        internal_error("ir_verify: %s: %s at %s:%d:%d (%s)", st->where, msg,
                       source_get(n->loc.file) ? source_get(n->loc.file)->name : "?", n->loc.line,
                       n->loc.col, ir_op_name[n->op]);
    internal_error("ir_verify: %s: %s", st->where, msg);
}

static void scope_push(struct vstate *st, struct ir_node *at, struct ir_var *v)
{
    if (!v || v->id <= 0 || v->id > VP->nvars) vfail(st, at, "bad variable");
    if (st->defined[v->id]) vfail(st, at, "variable defined twice");
    if (!v->type || v->type == ty_void) vfail(st, at, "variable without a type");
    st->defined[v->id] = 1;
    if (st->ndeflog == st->capdl) {
        st->capdl = st->capdl ? 2 * st->capdl : 64;
        st->deflog = xrealloc(st->deflog, sizeof *st->deflog * (size_t)st->capdl);
    }
    st->deflog[st->ndeflog++] = v->id;
    VEC_GROW(st->scope, st->nscope, st->cap);
    st->scope[st->nscope++] = v;
}

/* The variables defined since mark (st->ndeflog then) forgotten: a copy's
 * lets, which the copy beside it defines again. */
static void forget_since(struct vstate *st, int mark)
{
    while (st->ndeflog > mark) st->defined[st->deflog[--st->ndeflog]] = 0;
}

static bool in_scope(struct vstate *st, struct ir_var *v)
{
    for (int i = st->nscope - 1; i >= 0; i--)
        if (st->scope[i] == v) return true;
    return false;
}

static void v_expr(struct vstate *st, struct ir_node *n);
static void v_stmt(struct vstate *st, struct ir_node *s);
static void want(struct vstate *st, struct ir_node *n, bool ok, const char *msg);

/* A guard's base: literals and variables in scope, + - * of them. */
static bool base_in_scope(struct vstate *st, struct ir_node *n)
{
    if (n->type != ty_int) return false;
    if (n->op == IR_INT) return true;
    if (n->op == IR_VAR) return in_scope(st, n->var);
    return n->op == IR_BINARY && (n->bop == OP_ADD || n->bop == OP_SUB || n->bop == OP_MUL) &&
           base_in_scope(st, n->a) && base_in_scope(st, n->b);
}

/* c as `v >= 0` (0 <= v): v, else NULL. */
static struct ir_node *at_least_zero(const struct ir_node *c)
{
    if (c->op != IR_BINARY || c->optype != ty_int) return NULL;
    struct ir_node *v = c->bop == OP_GE ? c->a : c->bop == OP_LE ? c->b : NULL, *z = v == c->a ? c->b : c->a;
    return v && v->op == IR_VAR && z->op == IR_INT && z->ival == 0 ? v : NULL;
}

/* c as `v < b`, `v <= b` (b > v, b >= v), v the variable of x: b, else NULL. */
static struct ir_node *below_of(const struct ir_node *c, const struct ir_node *x, bool *incl)
{
    if (c->op != IR_BINARY || c->optype != ty_int) return NULL;
    bool lt = c->bop == OP_LT || c->bop == OP_LE, gt = c->bop == OP_GT || c->bop == OP_GE;
    struct ir_node *v = lt ? c->a : gt ? c->b : NULL, *b = v == c->a ? c->b : c->a;
    if (!v || v->op != IR_VAR || v->var != x->var) return NULL;
    *incl = c->bop == OP_LE || c->bop == OP_GE;
    bool plain = b->op == IR_INT || b->op == IR_VAR ||
                 (b->op == IR_BUILTIN && b->builtin == BI_LEN && b->nkids == 1 && b->kids[0]->op == IR_VAR);
    return plain ? b : NULL;
}

bool ir_one_compare(const struct ir_node *n, struct ir_node **a, struct ir_node **b)
{
    if (n->op != IR_AND) return false;
    bool incl;
    for (int k = 0; k < 2; k++) {
        const struct ir_node *z = k ? n->b : n->a, *c = k ? n->a : n->b;
        struct ir_node *v = at_least_zero(z);
        if (v && (*b = below_of(c, v, &incl))) {
            *a = v;
            return incl;
        }
    }
    *a = *b = NULL;
    return false;
}

bool ir_store_one_index(const struct ir_node *s)
{
    if (s->op != IR_STORE || s->nkids < 1 || (s->kids[0]->op == IR_FIELD && !s->kids[0]->a)) return false;
    for (int i = 1; i < s->nkids; i++)
        if (s->kids[i]->op != IR_FIELD || s->kids[i]->a) return false;
    return true;
}

/* Range loop s's one statement (blocks looked through, the unique
 * statements before it passed over: opt_unique.c's of the row a store in
 * it reaches), or NULL. */
static struct ir_node *nest_body(const struct ir_node *s)
{
    if (s->op != IR_FOR_RANGE) return NULL;
    struct ir_node *b = s->b;
    while (b && b->op == IR_BLOCK) {
        int u = 0;
        while (u < b->nkids && b->kids[u]->op == IR_UNIQUE) u++;
        if (b->nkids - u != 1) return NULL;
        b = b->kids[u];
    }
    return b;
}

struct ir_node *ir_guards_outside_of(const struct ir_node *s)
{
    struct ir_node *b = nest_body(s);
    return b && b->op == IR_FOR_RANGE ? b : NULL;
}

struct ir_node *ir_rows_if_of(const struct ir_node *s)
{
    struct ir_node *b = nest_body(s);
    return b && b->op == IR_IF && b->versioned && b->a->op == IR_GUARD_TEST && b->a->rows_only ? b : NULL;
}

int ir_guard_outer(const struct ir_guard *g, const struct ir_var *v)
{
    int last = g->rows ? g->npath : -1, where = 0; /* the row selectors: at_var, path_vars[0 .. npath) */
    for (int k = 0; k <= last; k++)
        if ((k ? g->path_vars[k - 1] : g->at_var) == v) where = where || k < last ? -1 : 1;
    if (g->idx_var == v) where = where || !g->fixed || g->base ? -1 : 2;
    if (g->cols || g->at || g->same_len || g->inner || g->base) return where ? -1 : 0;
    return where;
}

bool ir_runs_long_if(const struct ir_node *s)
{
    return s && s->op == IR_IF && s->a->op == IR_BUILTIN && s->a->builtin == BI_RUNS_LONG;
}

struct ir_node *ir_loop_of(struct ir_node *s) { return ir_runs_long_if(s) ? s->c : s; }

struct ir_node *ir_fast_of(struct ir_node *b) { return ir_loop_of(b->op == IR_BLOCK ? b->kids[b->nkids - 1] : b); }

void ir_stmt_blocks(struct ir_node *s, void (*block_fn)(struct ir_node *b))
{
    if (!s || ir_is_expr(s)) return;
    switch (s->sop) {
    case IR_BLOCK: block_fn(s); return;
    case IR_IF:
        ir_stmt_blocks(s->b, block_fn);
        ir_stmt_blocks(s->c, block_fn);
        return;
    case IR_WHILE: case IR_FOR_RANGE: case IR_FOR_ARRAY: ir_stmt_blocks(s->b, block_fn); return;
    case IR_LET: case IR_ASSIGN: case IR_STORE: case IR_PUSH: case IR_UNIQUE: case IR_EXPR: case IR_RETURN:
    case IR_BREAK: case IR_CONTINUE: case IR_UNREACHABLE:
        return;
    }
}

/* The walk of ir_only_pushes: n's uses of push_var. */
static struct ir_var *push_var;
static bool push_bad;
static int push_count;

static void pushes_of(struct ir_node *n)
{
    if (!n || push_bad) return;
    if (n->op == IR_VAR && n->var == push_var) push_bad = true;
    if (n->op == IR_PUSH && n->var == push_var && !n->nkids && n->unique_steps) push_count++;
    else if ((n->op == IR_LET || n->op == IR_ASSIGN || n->op == IR_STORE || n->op == IR_UNIQUE || n->op == IR_PUSH) &&
             n->var == push_var)
        push_bad = true;
    ir_each_child(n, pushes_of);
}

bool ir_only_pushes(struct ir_node *s, struct ir_var *v)
{
    push_var = v, push_bad = false, push_count = 0;
    pushes_of(s);
    return !push_bad && push_count > 0;
}

bool ir_range_values(const struct ir_node *s)
{
    const struct ir_node *r = s->iter.array;
    return s->op == IR_FOR_ARRAY && r->op == IR_BUILTIN && r->builtin == BI_RANGE_STEP && r->type->elem == ty_int;
}

/* An int value of variables, literals, len of a variable and int arithmetic:
 * read twice, it costs little and does nothing but its value or a panic. */
static bool plain_int(const struct ir_node *n)
{
    if (n->type != ty_int) return false;
    switch (n->op) {
    case IR_VAR: case IR_INT: return true;
    case IR_UNARY: return n->bop == OP_NEG && plain_int(n->a);
    case IR_BINARY:
        return (n->bop == OP_ADD || n->bop == OP_SUB || n->bop == OP_MUL || n->bop == OP_DIV || n->bop == OP_MOD) &&
               plain_int(n->a) && plain_int(n->b);
    case IR_BUILTIN: return n->builtin == BI_LEN && n->nkids == 1 && n->kids[0]->op == IR_VAR;
    default: return false;
    }
}

bool ir_step_literal(const struct ir_node *r)
{
    return r->op == IR_BUILTIN && r->builtin == BI_RANGE_STEP && r->nkids == 3 && r->type->elem == ty_int &&
           r->kids[0]->op == IR_INT && (int64_t)r->kids[0]->ival >= 0 && r->kids[2]->op == IR_INT &&
           (int64_t)r->kids[2]->ival >= 1 && plain_int(r->kids[1]);
}

struct ir_node *ir_step_count(const struct ir_node *r)
{
    struct ir_node *lo = r->kids[0], *hi = r->kids[1], *st = r->kids[2];
    struct ir_node *span = ir_mk_bin(OP_SUB, ir_mk_bin(OP_SUB, ir_copy(NULL, hi), ir_copy(NULL, lo), ty_int), ir_mk_int(1, r->loc), ty_int);
    struct ir_node *n = ir_mk_bin(OP_ADD, ir_mk_bin(OP_DIV, span, ir_copy(NULL, st), ty_int), ir_mk_int(1, r->loc), ty_int);
    span->no_overflow = span->a->no_overflow = n->no_overflow = n->a->no_overflow = true;
    struct ir_node *c = ir_new(IR_COND, r->loc, ty_int);
    c->a = ir_mk_bin(OP_LT, ir_copy(NULL, lo), ir_copy(NULL, hi), ty_bool);
    c->b = n;
    c->c = ir_mk_int(0, r->loc);
    return c;
}

struct ir_node *ir_step_value(const struct ir_node *r, struct ir_var *k, struct loc at)
{
    struct ir_node *m = ir_mk_bin(OP_MUL, ir_mk_var(k, at), ir_copy(NULL, r->kids[2]), ty_int);
    struct ir_node *v = ir_mk_bin(OP_ADD, ir_copy(NULL, r->kids[0]), m, ty_int);
    v->no_overflow = m->no_overflow = true; /* a value of the range, below its hi */
    return v;
}

bool ir_source_held(struct ir_node *s)
{
    struct ir_node *r = s->iter.array;
    return s->op == IR_FOR_ARRAY && r->op == IR_VAR && !r->moved && !ir_writes(s->b, r->var, true);
}

/* Guards (a loop's, a guard test's) name arrays and indices in scope, or
 * (outer: a nest's test) its outer variable where ir_guard_outer allows. */
static void v_guards(struct vstate *st, struct ir_node *l, struct ir_guard *gs, int n, struct ir_var *outer)
{
    for (int i = 0; i < n; i++) {
        struct ir_guard *g = &gs[i];
        if (outer && ir_guard_outer(g, outer) > 0) {
            VEC_GROW(st->scope, st->nscope, st->cap);
            st->scope[st->nscope++] = outer; /* the column's variable, over the outer range */
            v_guards(st, l, g, 1, NULL);
            st->nscope--;
            continue;
        }
        want(st, l, in_scope(st, g->arr) && (!g->at_var || in_scope(st, g->at_var)) &&
                        (!g->idx_var || in_scope(st, g->idx_var)), "a guard names a variable out of scope");
        want(st, l, !g->fixed || !g->at_var || g->rows, "a fixed guard's row without rows");
        want(st, l, !g->npath || g->rows, "a guard's path without rows");
        want(st, l, !g->cols || (!g->rows && !g->base && !g->at_var), "a column guard with rows, a base or a row index");
        for (int k = 0; k < g->npath; k++)
            want(st, l, !g->path_vars[k] || in_scope(st, g->path_vars[k]), "a guard's path names a variable out of scope");
        want(st, l, !g->base || (!g->idx_var && (g->fixed || !g->rows) && base_in_scope(st, g->base)),
             "a guard's base reads a variable out of scope, or is not + - * of ints");
    }
}

/* Guard test n narrowed (opt_version.c: narrow_before): a let's value before
 * the loop around, of rows whose last one its variable selects, over its
 * narrowed range; or narrowed by the let of one in scope (narrow_flag), each
 * of n's narrow guards one of its (the same rows, in order). */
static void v_narrowed(struct vstate *st, struct ir_node *n)
{
    struct ir_node *h = n->narrow_test;
    for (int i = 0; n->narrowed && i < n->nguards; i++)
        want(st, n, n->guards[i].narrow && n->guards[i].rows && !n->guards[i].fixed && !n->guards[i].base &&
                        ir_guard_outer(&n->guards[i], n->var) == 1, "a narrowed test of a row its variable does not select");
    want(st, n, !n->narrowed || (n->nkids == 2 && !n->nclauses && !n->narrow_flag), "a narrowed test not over a range");
    want(st, n, !n->narrow_flag || (in_scope(st, n->narrow_flag) && h && h->narrowed && in_scope(st, h->var) && !n->nclauses &&
                                    !n->rows_only && !n->ind_var), "a guard test narrowed by no narrowed test in scope");
    int k = 0;
    for (int i = 0; h && n->narrow_flag && i < n->nguards; i++) {
        const struct ir_guard *g = &n->guards[i], *e = &h->guards[k < h->nguards ? k : 0];
        if (!g->narrow) continue;
        bool same = k++ < h->nguards && g->arr == e->arr && g->at_var == e->at_var && g->row_off == e->row_off && g->npath == e->npath;
        for (int p = 0; same && p < g->npath; p++) same = g->path_vars[p] == e->path_vars[p] && g->path_offs[p] == e->path_offs[p];
        want(st, n, same, "a narrowed test not of the loop's narrow guards");
    }
    want(st, n, !h || !n->narrow_flag || k == h->nguards, "a narrowed test of guards the loop does not have");
}

/* A loop (or a versioned if's then-branch) entered: its guards and rowmins
 * in scope; the nodes it proves may name it. */
static void loop_enter(struct vstate *st, struct ir_node *l)
{
    if (l->op != IR_IF) v_guards(st, l, l->guards, l->nguards, NULL);
    for (int i = 0; i < l->nrowmins; i++)
        want(st, l, in_scope(st, l->rowmins[i]) && l->rowmins[i]->type->kind == T_ARRAY &&
                        l->rowmins[i]->type->elem->kind == T_ARRAY, "rowmins names no array of arrays in scope");
    if (st->naround < 64) st->around[st->naround] = l;
    st->naround++;
}

/* The statement loop directly around (NULL: none). */
static struct ir_node *loop_around(struct vstate *st)
{
    for (int i = (st->naround < 64 ? st->naround : 64) - 1; i >= 0; i--) {
        int op = st->around[i]->op;
        if (op == IR_FOR_RANGE || op == IR_FOR_ARRAY || op == IR_WHILE) return st->around[i];
    }
    return NULL;
}

/* ir_same_expr, where sub (if not NULL) names variables of a that stand for
 * expressions of b: a's v matches what b holds in its place. */
static bool same_expr(const struct ir_node *a, const struct ir_node *b, unsigned allow, const struct ir_subst *sub)
{
    if (!a || !b) return a == b && (allow & IR_SAME_LOADS);
    for (int i = 0; sub && a->op == IR_VAR && i < sub->n; i++)
        if (a->var == sub->vars[i]) return same_expr(sub->vals[i], b, allow, NULL);
    if (a->op != b->op || a->type != b->type) return false;
    switch (a->op) {
    case IR_INT: return a->ival == b->ival;
    case IR_FLOAT: return memcmp(&a->fval, &b->fval, sizeof a->fval) == 0;
    case IR_BOOL: return a->bval == b->bval;
    case IR_VAR: return a->var == b->var;
    case IR_GLOBAL: return a->global == b->global;
    case IR_NOT: return same_expr(a->a, b->a, allow, sub);
    case IR_CONV: case IR_UNARY:
        return (allow & IR_SAME_CONV) && a->bop == b->bop && a->optype == b->optype && same_expr(a->a, b->a, allow, sub);
    case IR_AND: case IR_OR: return same_expr(a->a, b->a, allow, sub) && same_expr(a->b, b->b, allow, sub);
    case IR_BINARY:
        if ((allow & IR_SAME_ARITH) && (op_class[a->bop] != OPC_ARITH || a->bop == OP_DIV || a->bop == OP_MOD))
            return false;
        return a->bop == b->bop && a->optype == b->optype && same_expr(a->a, b->a, allow, sub) &&
               same_expr(a->b, b->b, allow, sub);
    case IR_INDEX: case IR_FIELD: case IR_COND:
        return (allow & IR_SAME_LOADS) && a->field == b->field && a->nkids == b->nkids && a->bop == b->bop &&
               a->optype == b->optype && same_expr(a->a, b->a, allow, sub) &&
               same_expr(a->b, b->b, allow, sub) && same_expr(a->c, b->c, allow, sub);
    case IR_BUILTIN:
        if (a->builtin != b->builtin || a->nkids != b->nkids) return false;
        if (a->builtin == BI_LEN && a->nkids == 1 && (allow & IR_SAME_LEN_VAR))
            return a->kids[0]->op == IR_VAR && b->kids[0]->op == IR_VAR && a->kids[0]->var == b->kids[0]->var;
        if (allow & IR_SAME_BUILTIN1) return a->nkids == 1 && same_expr(a->kids[0], b->kids[0], allow, sub);
        if (!(allow & IR_SAME_LOADS) || a->loc.inl != b->loc.inl ||
            (a->builtin != BI_LEN && a->builtin != BI_MIN2 && a->builtin != BI_MAX2 && a->builtin != BI_RANGE_STEP))
            return false;
        for (int i = 0; i < a->nkids; i++)
            if (!same_expr(a->kids[i], b->kids[i], allow, sub)) return false;
        return true;
    default: return false;
    }
}

bool ir_same_expr(const struct ir_node *a, const struct ir_node *b, unsigned allow)
{
    return same_expr(a, b, allow, NULL);
}

bool ir_same_after(const struct ir_node *a, const struct ir_node *b, unsigned allow, const struct ir_subst *sub)
{
    return same_expr(a, b, allow, sub);

}

/* Whether a and b are the same bound (opt_version.c): literals, variables,
 * and the same operators, if-else, elements, fields, len, min and max of
 * such. */
static bool same_bound(const struct ir_node *a, const struct ir_node *b)
{
    return ir_same_expr(a, b, IR_SAME_LOADS);
}

/* A versioned loop (opt_version.c): if (guards ...): the fast copy, else the
 * loop as written, both over the test's bounds. Only the then-branch may hold
 * nodes that name the if as proved; the two copies define the same variables
 * (one of them runs). */
/* A growth test's trips (opt_growth.c): + - * and max(x, 0) of literals,
 * int variables in scope and len of array variables in scope. */
static bool trips_ok(struct vstate *st, const struct ir_node *e)
{
    switch (e->op) {
    case IR_INT: return true;
    case IR_VAR: return e->type == ty_int && in_scope(st, e->var);
    case IR_BINARY:
        return e->optype == ty_int && (e->bop == OP_ADD || e->bop == OP_SUB || e->bop == OP_MUL) && trips_ok(st, e->a) &&
               trips_ok(st, e->b);
    case IR_BUILTIN:
        if (e->builtin == BI_LEN) return e->nkids == 1 && e->kids[0]->op == IR_VAR && in_scope(st, e->kids[0]->var);
        return e->builtin == BI_MAX2 && e->nkids == 2 && trips_ok(st, e->kids[0]) && e->kids[1]->op == IR_INT &&
               e->kids[1]->ival == 0;
    default: return false;
    }
}

/* A versioned if's two copies: the fast one inside the loop it versions
 * (its facts name it), then the loop as written. */
static void v_copies(struct vstate *st, struct ir_node *s)
{
    loop_enter(st, s);
    int mark = st->ndeflog;
    v_stmt(st, s->b);
    st->naround--;
    forget_since(st, mark);
    v_stmt(st, s->c);
}

/* A nest of bounded growth (opt_growth.c): if growth(...): the nest with
 * the adds it proves (naming the if), else the nest as written; its scans
 * and trips read what is in scope before the nest. */
static void v_growth(struct vstate *st, struct ir_node *s)
{
    struct ir_growth *g = s->a->growth;
    want(st, s, s->versioned && s->b && s->c && !s->a->nguards && g->d >= 0 && g->u >= 0 && (!g->trips || trips_ok(st, g->trips)),
         "a growth test not of + - * of what is in scope");
    for (int i = 0; i < g->nscan; i++)
        want(st, s, in_scope(st, g->scan[i]) && g->scan[i]->type->kind == T_ARRAY, "a growth test scans no array in scope");
    v_copies(st, s);
}

static void v_versioned(struct vstate *st, struct ir_node *s)
{
    if (s->a->growth) {
        v_growth(st, s);
        return;
    }
    /* a copy written twice (opt_prefetch.c): its loop as written's bounds and marks */
    struct ir_node *t = s->a, *f = ir_fast_of(s->b), *w = ir_loop_of(s->c);
    /* a hoisting nest's fast copy on the pool (opt_version.c: steps_chunk): the loop over the
     * inner range, its chunk the fast nest over the chunk's slice */
    struct ir_node *sp = t->guards_outside && f && f->par && f->chunk && f->chunk->op == IR_FOR_RANGE ? f : NULL;
    if (sp) f = sp->chunk;
    bool fused = w && w->op == IR_BLOCK && f && f->op == IR_FOR_RANGE && !t->nclauses; /* opt_fuseloops.c: w the loops */
    want(st, s, s->versioned && f && w && (f->op == w->op || fused) && (f->op == IR_FOR_RANGE || f->op == IR_WHILE || ir_range_values(f)),
         "a guard test not choosing between two loops");
    want(st, s, (f->op == IR_WHILE) == (t->ind_var != NULL) && t->nkids == (f->op == IR_FOR_ARRAY ? 1 : 2) &&
                    t->nclauses == (t->guards_outside || t->swapped || t->jammed) &&
                    t->guards_outside + t->swapped + t->jammed <= 1,
         "a guard test of another kind of loop");
    want(st, s, f->op != IR_FOR_ARRAY || (same_bound(t->kids[0], f->iter.array) && same_bound(t->kids[0], w->iter.array) &&
                                          f->var == t->var && w->var == t->var), "a versioned loop's values are not its guard test's");
    /* guards_outside: two nests over the outer range, the test's clause; the
     * fast nest's inner loop the fast copy. swapped: the fast nest's outer
     * loop the fast copy, over the inner range, its inner loop (fo) and the
     * nest as written over the clause's. jammed: the fast nest (fo) jammed,
     * its inner loop the fast copy (keeping the guards tested per group of
     * the rows its lets name), and the nest as written over the clause's */
    struct ir_node *fi = t->guards_outside ? ir_guards_outside_of(f) : t->jammed ? f->swap : f;
    /* guards_outside with columns: the fast nest's inner loop in the
     * then-branch of its own rows_only if (opt_version.c: rows_each) */
    struct ir_node *ri = t->guards_outside && !fi ? ir_rows_if_of(f) : NULL;
    if (ri) fi = ri->b;
    struct ir_node *wi = t->nclauses || fused ? NULL : w;
    struct ir_node *fo = t->guards_outside || t->jammed ? f : t->swapped ? ir_guards_outside_of(f) : NULL;
    want(st, s, fi && fi->fast_in == (ri ? ri : s) && !fi->slow && (!fi->nguards || t->jammed) && !fi->par && !f->nguards && !w->nguards &&
                    (t->nclauses ? !fo->fast_in && !w->fast_in && !w->slow : fused || (w->slow && !w->fast_in)),
         "a versioned loop's copies not marked fast and slow");
    want(st, s, !t->swapped || (fo && !fo->nguards && !fo->swap && !fo->par && !w->swap && !w->guards_outside),
         "a swapped nest's copies not a plain nest and the nest as written");
    want(st, s, !t->jammed || (f->op == IR_FOR_RANGE && f->jam && f->swap && !f->par && !f->guards_outside && !f->nswap_guards &&
                               !f->iter.inclusive && !w->swap && !w->jam && !w->nslots && !w->guards_outside),
         "a jammed nest's copies not the nest jammed and the nest as written");
    for (int i = 0; i < 2 * t->nclauses; i++) {
        struct ir_iter *it = &t->clauses[0].iter;
        struct ir_node *k = i ? it->hi : it->lo, *fb = i ? fo->iter.hi : fo->iter.lo, *wb = i ? w->iter.hi : w->iter.lo;
        want(st, s, fo->op == IR_FOR_RANGE && same_bound(k, fb) && same_bound(k, wb) && fo->iter.inclusive == it->inclusive &&
                        w->iter.inclusive == it->inclusive && fo->var == t->clauses[0].var && w->var == t->clauses[0].var,
             "a versioned nest's bounds are not its guard test's");
    }
    if (fi && fi->op == IR_FOR_RANGE)
        for (int i = 0; i < 2; i++) {
            struct ir_node *k = t->kids[i], *fb = i ? (sp ? sp : fi)->iter.hi : (sp ? sp : fi)->iter.lo, *wb = wi ? i ? wi->iter.hi : wi->iter.lo : k;
            want(st, s, (k == fb || same_bound(k, fb)) && (k == wb || same_bound(k, wb)) && fi->iter.inclusive == t->iter.inclusive &&
                            (!wi || wi->iter.inclusive == t->iter.inclusive) && fi->var == t->var && (!wi || wi->var == t->var),
                 "a versioned loop's bounds are not its guard test's");
        }
    v_expr(st, t);
    for (int i = 0; i < s->nviews; i++) want(st, s, in_scope(st, s->views[i]), "a view out of scope");
    v_copies(st, s);
}

/* The steps of a map in place (opt_version.c, map_steps): if [in place](xs,
 * least), a loop over the range of the else-branch, the loop as written,
 * whose one statement is xs's map in place, viewing xs. The two loops
 * define the same variable: one of them runs. */
static void v_map_steps(struct vstate *st, struct ir_node *s)
{
    struct ir_node *f = s->b, *w = s->c, *t = s->a;
    struct ir_var *xs = t->nkids == 2 && t->kids[0]->op == IR_VAR ? t->kids[0]->var : NULL;
    want(st, s, xs && t->kids[1]->op == IR_INT && f && w && f->op == IR_FOR_RANGE && w->op == IR_FOR_RANGE &&
                    f->var == w->var && same_bound(f->iter.lo, w->iter.lo) && same_bound(f->iter.hi, w->iter.hi) &&
                    f->iter.inclusive == w->iter.inclusive && !f->par && !f->nguards && f->b->op == IR_BLOCK &&
                    f->b->nkids == 1 && f->b->kids[0]->op == IR_ASSIGN && f->b->kids[0]->in_place &&
                    f->b->kids[0]->var == xs,
         "a map's steps test not choosing between its loop in place and as written");
    bool viewed = false;
    for (int i = 0; i < f->nviews; i++) viewed |= f->views[i] == xs;
    want(st, s, viewed, "a map's steps loop in place not viewing its array");
    v_expr(st, t);
    struct ir_var *outer = st->in_place;
    st->in_place = xs;
    int mark = st->ndeflog;
    v_stmt(st, f);
    forget_since(st, mark);
    st->in_place = outer;
    v_stmt(st, w);
}

/* A loop written twice (opt_prefetch.c): if [runs long](its bounds or array),
 * the loop prefetching, else the loop as written: two loops of one kind
 * over the test's bound nodes (evaluated once, for the test and the copy
 * that runs), the same variable and body; only the then-branch marked
 * prefetch, a range loop's with its streams. The copies share their body:
 * a node naming the loop as written names both. */
static void v_runs_long(struct vstate *st, struct ir_node *s)
{
    struct ir_node *f = s->b, *w = s->c, *t = s->a;
    bool range = f && w && f->op == IR_FOR_RANGE && w->op == IR_FOR_RANGE && t->nkids == 2 && t->kids[0] == f->iter.lo &&
                 t->kids[0] == w->iter.lo && t->kids[1] == f->iter.hi && t->kids[1] == w->iter.hi && f->nstreams;
    bool array = f && w && f->op == IR_FOR_ARRAY && w->op == IR_FOR_ARRAY && t->nkids == 1 &&
                 t->kids[0] == f->iter.array && t->kids[0] == w->iter.array;
    want(st, s, (range || array) && f->var == w->var && f->b == w->b && f->iter.inclusive == w->iter.inclusive &&
                    f->prefetch && !w->prefetch && !w->nstreams && !f->par && !w->par,
         "a [runs long] test not choosing between a loop prefetching and the loop as written");
    if (st->naround < 64) st->around[st->naround] = w;
    st->naround++;
    struct ir_node *outer = st->prefetching;
    st->prefetching = f;
    int mark = st->ndeflog;
    v_stmt(st, f);
    forget_since(st, mark);
    st->prefetching = outer;
    st->naround--;
    v_stmt(st, w);
}

/* A loop on the pool's chunk (opt_version.c): over chunk_lo .. chunk_hi, the
 * versioned if (after lets of bounds) of a sequential copy of the loop,
 * whose else-branch is the loop as written over them: its body. The loop
 * itself keeps no guard, swap or view for the emitter. */
static void v_chunk(struct vstate *st, struct ir_node *s)
{
    struct ir_node *c = s->chunk, *iff = c->op == IR_BLOCK && c->nkids ? c->kids[c->nkids - 1] : c;
    struct ir_node *w = iff->op == IR_IF && iff->a->op == IR_GUARD_TEST ? iff->c : NULL;
    struct ir_var *lo = s->chunk_lo, *hi = s->chunk_hi;
    want(st, s, s->par && lo && hi && lo->type == ty_int && hi->type == ty_int, "a chunk not of a loop on the pool");
    want(st, s, !s->nguards && !s->swap && !s->guards_outside && !s->nviews, "a chunked loop with guards, a swap or views");
    /* or (opt_version.c: steps_chunk) a sequential nest whose inner loop is the loop over them */
    if (c->op == IR_FOR_RANGE && !c->par) w = ir_guards_outside_of(c);
    want(st, s, w && w->op == IR_FOR_RANGE && w->var == s->var && (w->b == s->b || w->fast_in) && !w->par &&
                    !w->iter.inclusive && w->iter.lo->op == IR_VAR && w->iter.lo->var == lo && w->iter.hi->op == IR_VAR &&
                    w->iter.hi->var == hi,
         "a chunk not the versioned loop over its bounds");
    scope_push(st, s, lo);
    scope_push(st, s, hi);
    v_stmt(st, c);
}

/* An index or store marked in-range: inside the loop whose guarded version
 * (or swapped nest) leaves its check out. */
static void v_proved(struct vstate *st, struct ir_node *n)
{
    for (int k = 0; k < 2; k++) {
        struct ir_node *l = k ? n->no_overflow_in : n->in_range_by;
        if (!l || st->naround > 64) continue;
        bool around = false;
        for (int i = 0; i < st->naround; i++) around |= st->around[i] == l;
        if (l->op == IR_IF) /* opt_version.c: in the then-branch of the versioned if it names */
            want(st, n, around && l->a->op == IR_GUARD_TEST, "a node proved by a guard test outside its fast copy");
        else if (k == 0)
            want(st, n, around && (l->nguards || l->swap || (l->fast_in && (l->op == IR_REDUCE || l->op == IR_LISTCOMP))),
                 "in-range outside a guarded loop around it");
    }
}

static void want(struct vstate *st, struct ir_node *n, bool ok, const char *msg)
{
    if (!ok) vfail(st, n, msg);
}

static void v_iter(struct vstate *st, struct ir_node *n, struct ir_iter *it)
{
    if (it->is_range) {
        v_expr(st, it->lo);
        v_expr(st, it->hi);
        want(st, n, type_is_integer(it->lo->type) && it->lo->type == it->hi->type, "range bounds of different or non-integer types");
    } else {
        v_expr(st, it->array);
        want(st, n, it->array->type->kind == T_ARRAY, "iteration over a non-array");
    }
}

static void v_gen(struct vstate *st, struct ir_node *n);

/* A generator, and (opt_version.c) its copy for when its guards hold: of
 * the same sources and variable (one of them runs), no guards, the nodes
 * they prove naming the copy and in it. */
static void v_gens(struct vstate *st, struct ir_node *n)
{
    struct ir_node *f = n->fast_gen;
    want(st, n, !VP->versioned || !n->nguards || f, "a guarded generator left to the emitter after version");
    if (f) {
        want(st, n, n->nguards && f->op == n->op && f->fast_in == n && !f->nguards && !f->fast_gen &&
                        f->gen_var == n->gen_var && f->iter.lo == n->iter.lo && f->iter.hi == n->iter.hi &&
                        f->iter.inclusive == n->iter.inclusive && f->elem_type == n->elem_type,
             "a generator's fast copy not of its sources, or guarded");
        int mark = st->ndeflog;
        v_gen(st, f);
        forget_since(st, mark);
    }
    want(st, n, !n->fast_in, "a generator's fast copy outside it");
    v_gen(st, n);
}

static void v_gen(struct vstate *st, struct ir_node *n)
{
    v_iter(st, n, &n->iter);
    struct type *vt = n->iter.is_range ? n->iter.lo->type : n->iter.array->type->elem;
    want(st, n, n->gen_var && n->gen_var->type == vt, "loop variable type differs from its source");
    int mark = st->nscope;
    int loops = st->loops;
    st->loops = 0; /* no break/continue inside an element */
    /* captures must be in scope outside, and complete */
    for (int i = 0; i < n->ncaps; i++) want(st, n, in_scope(st, n->caps[i]), "captured variable not in scope");
    /* guards (opt_loops.c): only on the one sequential loop over an int range
     * that the emitter writes twice (emit_gen_loop) */
    enum reducer red;
    want(st, n, !n->nguards || (!n->par && !n->world && (!n->user || ir_minmax_combine(n, &red)) && !n->scan && !n->key &&
                                !n->nclauses && n->iter.is_range && n->gen_var->type == ty_int),
         "guards on a generator the emitter does not version");
    loop_enter(st, n);
    scope_push(st, n, n->gen_var);
    for (int i = 0; i < n->nclauses; i++) {
        struct ir_clause *c = &n->clauses[i];
        v_iter(st, n, &c->iter);
        struct type *ct = c->iter.is_range ? c->iter.lo->type : c->iter.array->type->elem;
        want(st, n, c->var && c->var->type == ct, "clause variable type differs from its source");
        if (n->par) {
            /* a par generator's later sources are evaluated once, before
             * the elements: they may not read the clauses' variables */
            for (int k = 0; k <= i; k++) {
                struct ir_var *cv = k == 0 ? n->gen_var : n->clauses[k - 1].var;
                want(st, n, !ir_reads(c->iter.lo, cv) && !ir_reads(c->iter.hi, cv) && !ir_reads(c->iter.array, cv),
                     "a par generator's clause source reads a clause variable");
            }
        }
        scope_push(st, n, c->var);
    }
    v_expr(st, n->elem);
    if (n->filter) {
        v_expr(st, n->filter);
        want(st, n, n->filter->type == ty_bool, "filter is not bool");
    }
    want(st, n, n->elem_type == n->elem->type, "elem_type differs from the element");
    if (n->key) {
        v_expr(st, n->key);
        want(st, n, n->key->type == ty_int, "key is not int");
    }
    st->naround--;
    st->nscope = mark;
    if (n->user) {
        want(st, n, n->a && n->a->type == n->elem_type, "start value type");
        v_expr(st, n->a);
        scope_push(st, n, n->comb_l);
        scope_push(st, n, n->comb_r);
        v_expr(st, n->c);
        want(st, n, n->c->type == n->elem_type && n->comb_l->type == n->elem_type && n->comb_r->type == n->elem_type,
             "combine type");
        st->nscope = mark;
    }
    if (n->key) {
        want(st, n, n->b && n->b->type == ty_int, "key count is not int");
        v_expr(st, n->b);
    }
    st->loops = loops;
    struct ir_var **fv;
    int nfv;
    ir_free_vars(n, &fv, &nfv);
    bool same = nfv == n->ncaps;
    for (int i = 0; same && i < nfv; i++) same = fv[i] == n->caps[i];
    free(fv);
    want(st, n, same, "capture list incomplete or out of order");
}

static void v_expr(struct vstate *st, struct ir_node *n)
{
    if (!n) vfail(st, NULL, "missing expression");
    if (!ir_is_expr(n)) vfail(st, n, "statement in expression position");
    v_proved(st, n);
    if (!n->type) vfail(st, n, "expression without a type");
    want(st, n, !n->versioned || n->op == IR_COND, "versioned on an expression other than cond");
    struct type *t = n->type;
    switch (n->eop) {
    case IR_INT: want(st, n, type_is_integer(t), "integer literal of a non-integer type"); return;
    case IR_FLOAT: want(st, n, t == ty_float, "float literal type"); return;
    case IR_BOOL: want(st, n, t == ty_bool, "bool literal type"); return;
    case IR_STR: want(st, n, t == ty_str && (n->str || !n->slen), "str literal"); return;
    case IR_VAR:
        want(st, n, n->var && in_scope(st, n->var), "variable used outside its scope or before definition");
        want(st, n, n->var->type == t, "variable read with a different type");
        want(st, n, !n->moved || type_is_ref(t), "a move of a value that is not counted");
        return;
    case IR_GLOBAL:
        want(st, n, n->global && n->global->type == t, "global read with a different type");
        want(st, n, n->global->id < st->global_limit, "constant read before its initialisation");
        return;
    case IR_UNARY:
        v_expr(st, n->a);
        want(st, n, n->optype == n->a->type && t == n->optype, "unary operand type");
        want(st, n, (n->bop == OP_NEG && type_is_numeric(t)) || (n->bop == OP_BNOT && type_is_integer(t)), "unary operator");
        return;
    case IR_NOT:
        v_expr(st, n->a);
        want(st, n, t == ty_bool && n->a->type == ty_bool, "not of a non-bool");
        return;
    case IR_BINARY: {
        v_expr(st, n->a);
        v_expr(st, n->b);
        struct type *ot = n->optype;
        want(st, n, ot == n->a->type, "binary optype differs from its left operand");
        switch (n->bop) {
        case OP_EQ: case OP_NE:
            want(st, n, t == ty_bool && n->b->type == ot && ot != ty_void, "equality types");
            return;
        case OP_LT: case OP_LE: case OP_GT: case OP_GE:
            want(st, n, t == ty_bool && n->b->type == ot && type_is_ordered(ot), "comparison types");
            return;
        case OP_SHL: case OP_SHR:
            want(st, n, t == ot && type_is_integer(ot) && type_is_integer(n->b->type), "shift types");
            return;
        case OP_BAND: case OP_BOR: case OP_BXOR:
            want(st, n, t == ot && n->b->type == ot && (type_is_integer(ot) || ot == ty_bool), "bitwise types");
            return;
        case OP_MUL:
            if (ot == ty_str || ot->kind == T_ARRAY) {
                want(st, n, t == ot && n->b->type == ty_int, "repeat types");
                return;
            }
            if (ot == ty_int && (n->b->type == ty_str || n->b->type->kind == T_ARRAY)) {
                want(st, n, t == n->b->type, "repeat types");
                return;
            }
            want(st, n, t == ot && n->b->type == ot && type_is_numeric(ot), "arithmetic types");
            return;
        case OP_ADD:
            want(st, n, t == ot && n->b->type == ot && (type_is_numeric(ot) || ot == ty_str || ot->kind == T_ARRAY), "addition types");
            return;
        case OP_SUB: case OP_DIV: case OP_MOD:
            want(st, n, t == ot && n->b->type == ot && type_is_numeric(ot), "arithmetic types");
            return;
        case OP_NEG: case OP_BNOT: case OP_NONE:
            vfail(st, n, "not a binary operator");
        }
        return;
    }
    case IR_AND: case IR_OR:
        v_expr(st, n->a);
        v_expr(st, n->b);
        want(st, n, t == ty_bool && n->a->type == ty_bool && n->b->type == ty_bool, "and/or of non-bools");
        return;
    case IR_COND:
        v_expr(st, n->a);
        v_expr(st, n->b);
        v_expr(st, n->c);
        want(st, n, n->a->type == ty_bool && n->b->type == t && n->c->type == t, "conditional types");
        return;
    case IR_CONV:
        v_expr(st, n->a);
        want(st, n, n->optype == n->a->type, "conversion optype");
        want(st, n, type_is_numeric(t) && (type_is_numeric(n->optype) || n->optype == ty_str), "conversion types");
        return;
    case IR_CALL:
        want(st, n, n->fn && n->fn->nparams == n->nkids, "call arity");
        want(st, n, n->fn->ret == t, "call result type");
        for (int i = 0; i < n->nkids; i++) {
            v_expr(st, n->kids[i]);
            want(st, n, n->kids[i]->type == n->fn->params[i]->type, "argument type");
        }
        return;
    case IR_FNVAL: {
        struct ir_fn *f = n->fn;
        int nc = f ? f->ncaps : 0;
        want(st, n, f && t->kind == T_FN && t->nfields == f->nparams - nc && t->elem == f->ret, "function value type");
        want(st, n, n->nkids == nc, "captured values of a lambda");
        for (int i = 0; i < t->nfields; i++)
            want(st, n, f->params[nc + i]->type == t->fields[i], "function value parameter type");
        for (int i = 0; i < n->nkids; i++) {
            v_expr(st, n->kids[i]);
            want(st, n, n->kids[i]->type == f->params[i]->type, "captured value type");
        }
        return;
    }
    case IR_GUARD_TEST:
        want(st, n, t == ty_bool && (n->nguards || n->swapped || n->jammed) && (n->ind_var ? in_scope(st, n->ind_var) : n->var != NULL),
             "guard test");
        v_guards(st, n, n->guards, n->nguards, n->guards_outside && n->nclauses ? n->clauses[0].var : n->narrowed ? n->var : NULL);
        v_narrowed(st, n);
        want(st, n, n->swapped || n->jammed || !n->nswap_guards, "swap guards on a guard test not of a swapped or jammed nest");
        for (int i = 0; n->rows_only && i < n->nguards; i++)
            want(st, n, !n->nclauses && n->guards[i].rows && !n->guards[i].base, "a rows-only guard test of no rows");
        for (int i = 0; i < n->nswap_guards; i++) { /* over the nest's two ranges, each index a literal or a variable */
            struct ir_guard *g = &n->swap_guards[i];
            want(st, n, in_scope(st, g->arr) && (!g->at || g->at->op == IR_INT || (g->at->op == IR_VAR && in_scope(st, g->at->var))),
                 "a swap guard names a variable out of scope");
        }
        for (int i = 0; i < n->nclauses; i++) {
            v_expr(st, n->clauses[i].iter.lo);
            v_expr(st, n->clauses[i].iter.hi);
        }
        for (int i = 0; i < n->nkids; i++) {
            v_expr(st, n->kids[i]);
            want(st, n, type_is_integer(n->kids[i]->type) || (n->nkids == 1 && n->kids[i]->op == IR_BUILTIN &&
                                                               n->kids[i]->builtin == BI_RANGE_STEP),
                 "a guard test's bound is not an integer");
        }
        return;
    case IR_CALLV: {
        v_expr(st, n->a);
        struct type *ft = n->a->type;
        want(st, n, ft->kind == T_FN && ft->nfields == n->nkids && ft->elem == t, "call through a function value");
        for (int i = 0; i < n->nkids; i++) {
            v_expr(st, n->kids[i]);
            want(st, n, n->kids[i]->type == ft->fields[i], "argument type");
        }
        return;
    }
    case IR_BUILTIN:
        want(st, n, n->builtin != BI_NONE && n->builtin != M_PUSH, "builtin");
        if (n->builtin == BI_UNSET) /* unset values: scalars, or null rows (a release accepts null) */
            want(st, n, t->kind == T_ARRAY && (t->elem == ty_int || t->elem == ty_float || t->elem == ty_bool ||
                                               t->elem->kind == T_ARRAY) &&
                            n->nkids == 1 && n->kids[0]->type == ty_int, "unset array type");
        if (n->builtin == BI_SOLE) /* an array variable's only reference (opt_lazycopy.c) */
            want(st, n, t == ty_bool && n->nkids == 1 && n->kids[0]->op == IR_VAR && n->kids[0]->type->kind == T_ARRAY,
                 "sole test type");
        if (n->builtin == M_GROW_UNSET) /* the same elements, grown in place (opt_fill.c) */
            want(st, n, n->nkids == 2 && n->kids[0]->op == IR_VAR && n->kids[0]->type->kind == T_ARRAY &&
                            (n->kids[0]->type->elem == ty_int || n->kids[0]->type->elem == ty_float ||
                             n->kids[0]->type->elem == ty_bool || n->kids[0]->type->elem->kind == T_ARRAY) &&
                            n->kids[1]->type == ty_int && t == ty_void, "grown array type");
        for (int i = 0; i < n->nkids; i++) v_expr(st, n->kids[i]);
        return;
    case IR_INDEX:
        v_expr(st, n->a);
        v_expr(st, n->b);
        want(st, n, n->a->type->kind == T_ARRAY && n->a->type->elem == t && n->b->type == ty_int, "index types");
        return;
    case IR_ARRAY:
        want(st, n, t->kind == T_ARRAY, "array literal type");
        for (int i = 0; i < n->nkids; i++) {
            v_expr(st, n->kids[i]);
            want(st, n, n->kids[i]->type == t->elem, "array element type");
        }
        return;
    case IR_TUPLE:
        want(st, n, t->kind == T_TUPLE && t->nfields == n->nkids, "tuple type");
        for (int i = 0; i < n->nkids; i++) {
            v_expr(st, n->kids[i]);
            want(st, n, n->kids[i]->type == t->fields[i], "tuple element type");
        }
        return;
    case IR_FIELD:
        v_expr(st, n->a);
        want(st, n, n->a->type->kind == T_TUPLE && n->field >= 0 && n->field < n->a->type->nfields
                        && n->a->type->fields[n->field] == t, "field types");
        return;
    case IR_FSTRING:
        want(st, n, t == ty_str, "f-string type");
        for (int i = 0; i < n->nkids; i++) v_expr(st, n->kids[i]);
        return;
    case IR_LISTCOMP:
        v_gens(st, n);
        want(st, n, t->kind == T_ARRAY && t->elem == n->elem_type, "comprehension type");
        return;
    case IR_REDUCE:
        v_gens(st, n);
        if (n->user || n->scan || n->key) {
            struct type *et = n->elem_type;
            struct type *want_t = n->user && !n->scan && !n->key ? et : NULL;
            if (n->key && !n->user && (n->reducer == RED_MIN || n->reducer == RED_MAX)) want_t = type_array(type_option(et));
            else if (n->key && !n->user && (n->reducer == RED_ANY || n->reducer == RED_ALL)) want_t = type_array(ty_bool);
            else if (!want_t) want_t = type_array(et);
            want(st, n, t == want_t, "SPEC 15 reduction type");
            return;
        }
        if (n->reducer == RED_ANY || n->reducer == RED_ALL)
            want(st, n, t == ty_bool && n->elem_type == ty_bool, "any/all of non-bools");
        else if (n->reducer == RED_SUM || n->reducer == RED_PRODUCT)
            want(st, n, t == n->elem_type && type_is_numeric(t), "sum/product types");
        else
            want(st, n, t == n->elem_type && type_is_ordered(t), "min/max types");
        return;
    }
    vfail(st, n, "unknown expression");
}

static bool v_falls_off(struct ir_node *s);

/* Whether v is the array of a cursor block around. */
static bool in_cursor(const struct vstate *st, const struct ir_var *v)
{
    for (int i = 0; i < st->ncursors; i++)
        if (st->cursors[i] == v) return true;
    return false;
}

/* A cursor block: one statement that uses its array, made unique by a
 * unique statement in force, only by pushes; no cursor of the same array
 * around it (those of others may be: a statement pushing into several). */
static void v_cursor(struct vstate *st, struct ir_node *b)
{
    struct ir_var *v = b->var;
    want(st, b, v && in_scope(st, v) && v->type->kind == T_ARRAY && !type_is_ref(v->type->elem),
         "a cursor of something other than an array of values");
    want(st, b, b->nkids == 1 && !in_cursor(st, v) && st->ncursors < IR_MAX_CURSORS && ir_only_pushes(b->kids[0], v),
         "a cursor block of other than one statement that only pushes into its array, or in another of it");
    bool made_unique = false;
    for (int f = 0; f < st->nfacts; f++)
        made_unique |= st->facts[f]->var == v && st->facts[f]->nkids == 0;
    want(st, b, made_unique, "a cursor of an array not made unique before it");
    st->cursors[st->ncursors++] = v;
}

/* A unique statement holds from its place to the end of its block, up to
 * the first statement that may not keep its arrays unique. */
static void v_block(struct vstate *st, struct ir_node *b)
{
    if (!b || b->op != IR_BLOCK) vfail(st, b, "expected a block");
    int cursors_was = st->ncursors;
    if (b->cursor) v_cursor(st, b);
    int mark = st->nscope, fmark = st->nfacts;
    for (int i = 0; i < b->nkids; i++) {
        struct ir_node *s = b->kids[i];
        for (int f = fmark; f < st->nfacts;) {
            struct ir_node *op = st->facts[f];
            if (ir_keeps_unique(s, op->var, op->nkids + 1 + op->every, op->kids, op->nkids)) f++;
            else st->facts[f] = st->facts[--st->nfacts];
        }
        v_stmt(st, s);
        if (s->op == IR_UNIQUE) {
            VEC_GROW(st->facts, st->nfacts, st->capf);
            st->facts[st->nfacts++] = s;
        }
    }
    st->nscope = mark;
    st->nfacts = fmark;
    st->ncursors = cursors_was;
}

/* A store's or unique statement's unique steps: made unique by one in force. */
static void v_unique_steps(struct vstate *st, struct ir_node *s)
{
    if (s->unique_steps == 0) return;
    want(st, s, s->unique_steps <= s->nkids + (s->op == IR_UNIQUE || s->op == IR_PUSH), "unique steps beyond the path");
    for (int f = 0; f < st->nfacts; f++)
        if (ir_unique_covers(st->facts[f], s)) return;
    vfail(st, s, "unique steps without a unique statement in force");
}

static void v_place(struct vstate *st, struct ir_node *s)
{
    want(st, s, s->var && in_scope(st, s->var), "store into a variable not in scope");
    struct type *t = s->var->type;
    for (int i = 0; i < s->nkids; i++) {
        struct ir_node *k = s->kids[i];
        if (k->op == IR_FIELD && !k->a) { /* a field step: s.lo = v */
            want(st, s, t->kind == T_TUPLE && k->field >= 0 && k->field < t->nfields && t->fields[k->field] == k->type,
                 "field step types");
            t = k->type;
            continue;
        }
        v_expr(st, k);
        want(st, s, t->kind == T_ARRAY && k->type == ty_int, "index chain types");
        t = t->elem;
    }
    if (s->op == IR_PUSH) want(st, s, t->kind == T_ARRAY && s->a->type == t->elem, "push types");
    else if (s->op == IR_UNIQUE) want(st, s, t->kind == T_ARRAY && !s->a && (!s->every || t->elem->kind == T_ARRAY),
                                      "unique of an array (every element: of an array of arrays)");
    else want(st, s, s->a->type == t, "store types");
    want(st, s, !s->every || s->op == IR_UNIQUE, "every element made unique by a statement other than unique");
    if (s->op == IR_UNIQUE)
        for (int i = 0; i < s->nkids; i++)
            want(st, s, s->kids[i]->op == IR_VAR || s->kids[i]->op == IR_INT || s->kids[i]->op == IR_FIELD,
                 "unique path of variables and literals");
    v_unique_steps(st, s);
}

/* Whether n holds a loop, a comprehension or a reduction: code a helper
 * function, a pool chunk or a nested C function may run (held_found). */
static bool held_found;
static void find_held(struct ir_node *n)
{
    if (!n || held_found) return;
    held_found = n->op == IR_FOR_RANGE || n->op == IR_FOR_ARRAY || n->op == IR_WHILE || n->op == IR_LISTCOMP ||
                 n->op == IR_REDUCE;
    ir_each_child(n, find_held);
}

static bool holds_loop(struct ir_node *n)
{
    held_found = false;
    find_held(n);
    return held_found;
}

static void v_stmt(struct vstate *st, struct ir_node *s)
{
    if (!s) vfail(st, NULL, "missing statement");
    if (ir_is_expr(s)) vfail(st, s, "expression in statement position");
    want(st, s, !s->versioned || (s->op == IR_IF && s->c), "versioned on a statement other than if-else");
    switch (s->sop) {
    case IR_BLOCK: v_block(st, s); return;
    case IR_LET:
        v_expr(st, s->a);
        want(st, s, s->var && s->var->type == s->a->type, "let types");
        if (s->take) {
            struct ir_node *r = s->a;
            while (r->op == IR_INDEX) r = r->a;
            want(st, s, !s->borrow && s->a->op == IR_INDEX && r->op == IR_VAR,
                 "a take of something other than an element of a variable");
        }
        scope_push(st, s, s->var);
        return;
    case IR_ASSIGN:
        v_expr(st, s->a);
        want(st, s, s->var && in_scope(st, s->var) && s->var->type == s->a->type, "assignment");
        want(st, s, !s->in_place || (s->var == st->in_place && s->a->op == IR_LISTCOMP && ir_maps_own_slots(s->a, s->var)),
             "a map in place outside the steps loop that tests its array");
        return;
    case IR_STORE: case IR_PUSH:
        want(st, s, !s->cursor || (s->op == IR_PUSH && in_cursor(st, s->var)), "a push into a cursor outside its block");
        v_proved(st, s);
        v_expr(st, s->a);
        v_place(st, s);
        return;
    case IR_UNIQUE:
        v_place(st, s);
        return;
    case IR_EXPR: v_expr(st, s->a); return;
    case IR_IF:
        if (s->a->op == IR_GUARD_TEST) {
            v_versioned(st, s);
            return;
        }
        if (s->a->op == IR_BUILTIN && s->a->builtin == BI_IN_PLACE) {
            v_map_steps(st, s);
            return;
        }
        if (ir_runs_long_if(s)) {
            v_runs_long(st, s);
            return;
        }
        v_expr(st, s->a);
        want(st, s, s->a->type == ty_bool, "if condition is not bool");
        v_stmt(st, s->b);
        if (s->c) v_stmt(st, s->c);
        return;
    case IR_WHILE:
        want(st, s, !VP->versioned || !ir_versions(s, loop_around(st)), "a guarded loop left to the emitter after version");
        loop_enter(st, s); /* its condition too may be proved by its guards */
        v_expr(st, s->a);
        want(st, s, s->a->type == ty_bool, "while condition is not bool");
        want(st, s, !s->nguards || (s->ind_var && s->ind_bound && s->ind_step), "guards without an induction");
        st->loops++;
        v_block(st, s->b);
        st->loops--;
        st->naround--;
        return;
    case IR_FOR_RANGE: case IR_FOR_ARRAY: {
        want(st, s, s->iter.is_range == (s->op == IR_FOR_RANGE), "for kind");
        v_iter(st, s, &s->iter);
        int mark = st->nscope;
        if (!s->chunk) scope_push(st, s, s->var); /* a chunk's loops define it */
        want(st, s, s->var->type == (s->iter.is_range ? s->iter.lo->type : s->iter.array->type->elem), "for variable type");
        want(st, s, !s->swap || s->swap->op == IR_FOR_RANGE, "swap without an inner range loop");
        /* a jammed nest's slots (opt_interchange.c): each copy of its inner
         * body is written with the slots' locals (emit_jam_copy), which no
         * other C function sees, so the body runs nothing on the pool or in
         * a function of its own (emit_listcomp.c, emit_loops.c, emit_maps.c,
         * emit_rows.c need not ask) */
        want(st, s, !s->nslots || (s->swap && !holds_loop(s->swap->b)), "a jammed nest's slots around a loop or comprehension");
        want(st, s, s->op == IR_FOR_RANGE || !s->nguards || ir_range_values(s), "guards on a for over an array");
        want(st, s, !s->guards_outside || ir_guards_outside_of(s), "guards outside a loop whose body is not one range loop");
        want(st, s, !VP->versioned || !ir_versions(s, loop_around(st)), "a guarded loop left to the emitter after version");
        want(st, s, !s->prefetch || st->prefetching == s, "a loop prefetching outside the then-branch of its [runs long] if");
        /* a loop on the pool (opt_parfor.c): over int, its captures in scope */
        want(st, s, !s->par || (s->op == IR_FOR_RANGE && !s->iter.inclusive && s->var->type == ty_int), "par loop kind");
        for (int i = 0; s->par && i < s->ncaps; i++) want(st, s, in_scope(st, s->caps[i]), "par loop capture not in scope");
        /* its accumulators: in scope, none captured, each assigned in the body */
        want(st, s, !s->nfolds || s->par, "folds on a loop not on the pool");
        for (int i = 0; i < s->nfolds; i++) {
            want(st, s, in_scope(st, s->folds[i].var), "fold variable not in scope");
            for (int j = 0; j < s->ncaps; j++) want(st, s, s->caps[j] != s->folds[i].var, "fold variable captured");
        }
        loop_enter(st, s);
        st->loops++;
        if (s->chunk) v_chunk(st, s);
        else v_block(st, s->b);
        st->loops--;
        st->naround--;
        st->nscope = mark;
        return;
    }
    case IR_BREAK: case IR_CONTINUE:
        want(st, s, st->loops > 0, "break/continue outside a loop");
        return;
    case IR_RETURN:
        want(st, s, st->fn != NULL, "return outside a function");
        if (st->fn->ret == ty_void) {
            want(st, s, s->a == NULL, "return with a value from a function without a result");
        } else {
            want(st, s, s->a != NULL, "return without a value");
            v_expr(st, s->a);
            want(st, s, s->a->type == st->fn->ret, "return type");
        }
        return;
    case IR_UNREACHABLE: return;
    }
    vfail(st, s, "unknown statement");
}

static bool v_has_break(struct ir_node *s)
{
    if (!s) return false;
    if (s->op == IR_BREAK) return true;
    if (s->op == IR_IF) return v_has_break(s->b) || v_has_break(s->c);
    if (s->op == IR_BLOCK)
        for (int i = 0; i < s->nkids; i++)
            if (v_has_break(s->kids[i])) return true;
    return false;
}

/* The terminator rule of block_flow (check.c, docs/internals.md
 * "Terminators") on the IR: can control reach the end of s? os.exit(...) as
 * a statement does not return. */
static bool v_falls_off(struct ir_node *s)
{
    switch (s->op) {
    case IR_WHILE: return !(s->a->op == IR_BOOL && s->a->bval && !v_has_break(s->b));
    case IR_EXPR: return !(s->a->op == IR_BUILTIN && s->a->builtin == BI_OS_EXIT);
    case IR_RETURN: case IR_UNREACHABLE: return false;
    case IR_BLOCK:
        for (int i = 0; i < s->nkids; i++)
            if (!v_falls_off(s->kids[i])) return false;
        return true;
    case IR_IF: return !s->c || v_falls_off(s->b) || v_falls_off(s->c);
    default: return true; /* lowering adds IR_UNREACHABLE after loops */
    }
}

void ir_verify(struct ir_program *ir)
{
    VP = ir;
    struct vstate st = {0};
    st.defined = xmalloc((size_t)ir->nvars + 2);
    memset(st.defined, 0, (size_t)ir->nvars + 2);
    for (int i = 0; i < ir->globals.len; i++) {
        struct ir_global *g = ir->globals.items[i];
        st.where = arena_printf("constant %s.%s", g->module, g->name);
        if (g->id != i + 1) vfail(&st, NULL, "globals out of order");
        st.global_limit = g->id;
        st.fn = NULL;
        v_expr(&st, g->init);
        if (g->init->type != g->type) vfail(&st, g->init, "constant type");
        st.nscope = 0;
    }
    st.global_limit = ir->globals.len + 1;
    for (int i = 0; i < ir->fns.len; i++) {
        struct ir_fn *f = ir->fns.items[i];
        st.where = arena_printf("function %s", f->cname);
        st.fn = f;
        st.nscope = 0;
        st.loops = 0;
        st.ndeflog = 0;
        for (int p = 0; p < f->nparams; p++) {
            struct ir_node at = {.op = IR_BLOCK, .loc = f->loc};
            want(&st, &at, f->params[p]->kind == IRV_PARAM, "parameter kind");
            scope_push(&st, &at, f->params[p]);
        }
        v_block(&st, f->body);
        if (f->ret != ty_void && v_falls_off(f->body)) vfail(&st, f->body, "a value function can fall off its end");
    }
    if (!ir->main || ir->main->nparams != 0 || ir->main->ret != ty_void) internal_error("ir_verify: bad main()");
    free(st.defined);
    free(st.deflog);
    free(st.scope);
    free(st.facts);
}
