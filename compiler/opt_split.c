/*
 * opt_split.c: `for` loops split by the conditions in their bodies, written
 * in the IR (two passes, run one after the other).
 *
 *   unswitch  A term of a condition in the body (an if's, a conditional
 *             expression's, a term of an and/or chain) that the loop cannot
 *             change, A, is tested once, before the loop:
 *
 *                 for j in R: B(A)      =>   if A: for j in R: B(true)
 *                                            else: for j in R: B(false)
 *
 *             each copy folded (`true or x` is true, `x if false else y` is
 *             y, `if true: S` is S). A is pure: comparisons, not, and, or of
 *             scalar variables the body neither defines nor writes, literals,
 *             constants, float arithmetic, and int `v + c` / `v - c` (c a
 *             literal); an int one could overflow, so the split runs only
 *             when a test that cannot panic shows it does not (v <= max - c),
 *             else the loop runs as written. A then has one value for the
 *             whole loop and evaluating it once, first, changes no output and
 *             no panic. Only innermost loops are taken (in an outer loop a
 *             test runs once per inner loop: not worth a copy); each hoists
 *             at most MAX_UNSWITCH terms (and past those at most MAX_CHAINED
 *             terms whose one copy keeps no term: an or-chain's, each adding
 *             one copy), and only a body of at most MAX_BODY nodes is copied.
 *
 *   split     Index-set splitting. In an innermost `for j in lo..hi` (int, lo and hi
 *             literals, variables the body does not write or len of arrays
 *             whose length it does not change), a term
 *             `j OP e` (OP a comparison; e a literal or lo + c, hi - c, c in
 *             0..3) that has one value for every j of lo + 1 .. hi - 2 (j == 0
 *             and j == n - 1 in 0..n are false there, j < 1 and j > n - 2
 *             too) makes the loop three: the first iteration as written, the
 *             middle with those terms folded, the last as written:
 *
 *                 if lo < hi:
 *                     for j in lo .. lo + 1: B
 *                     for j in lo + 1 .. hi - 1: B(the terms' values)
 *                     if lo + 1 < hi: for j in hi - 1 .. hi: B
 *
 *             The iterations run in the same order with the same values, so
 *             every output and panic stays where it was; the middle's terms
 *             are no longer evaluated, and e cannot overflow there (the
 *             middle is not empty, so lo + 3 <= hi). A body with a break of
 *             the loop is not split.
 *
 * Why: the middle loop is the branch-free loop the later passes guard (no
 * bounds checks) and gcc vectorizes; a border test or a test of the outer
 * index inside it costs a branch per element and stops both.
 */
#include "ir.h"

#include <stdlib.h>
#include <string.h>

#define MAX_UNSWITCH 3
#define MAX_CHAINED 4
#define MAX_BODY 400

static struct ir_program *P;

/* ---- copies with fresh definitions ----------------------------------------------- */

struct fresh_copy {
    struct ir_copier k; /* first: the hooks get it */
    struct ir_var **from, **to;
    int n, cap;
};

static struct ir_var *fresh_rename(struct ir_copier *k, struct ir_var *v)
{
    struct fresh_copy *f = (struct fresh_copy *)k;
    for (int i = 0; i < f->n; i++)
        if (f->from[i] == v) return f->to[i];
    return v;
}

static void fresh_add(struct fresh_copy *f, struct ir_var *v)
{
    if (!v) return;
    if (f->n == f->cap) {
        f->cap = f->cap ? 2 * f->cap : 16;
        f->from = xrealloc(f->from, (size_t)f->cap * sizeof *f->from);
        f->to = xrealloc(f->to, (size_t)f->cap * sizeof *f->to);
    }
    struct ir_var *c = arena_alloc(sizeof *c);
    *c = *v;
    c->id = ++P->nvars;
    f->from[f->n] = v;
    f->to[f->n++] = c;
}

static void fresh_iter(struct fresh_copy *f, struct ir_iter *it);

/* every variable n defines */
static void fresh_defs(struct fresh_copy *f, struct ir_node *n)
{
    if (!n) return;
    if (ir_is_expr(n)) {
        if (n->op == IR_LISTCOMP || n->op == IR_REDUCE) {
            fresh_add(f, n->gen_var);
            for (int i = 0; i < n->nclauses; i++) fresh_add(f, n->clauses[i].var), fresh_iter(f, &n->clauses[i].iter);
            fresh_add(f, n->comb_l);
            fresh_add(f, n->comb_r);
        }
    } else if (n->op == IR_LET || n->op == IR_FOR_RANGE || n->op == IR_FOR_ARRAY) {
        fresh_add(f, n->var);
    }
    fresh_defs(f, n->a);
    fresh_defs(f, n->b);
    fresh_defs(f, n->c);
    for (int i = 0; i < n->nkids; i++) fresh_defs(f, n->kids[i]);
    fresh_iter(f, &n->iter);
    fresh_defs(f, n->elem);
    fresh_defs(f, n->filter);
    fresh_defs(f, n->key);
}

static void fresh_iter(struct fresh_copy *f, struct ir_iter *it)
{
    fresh_defs(f, it->lo);
    fresh_defs(f, it->hi);
    fresh_defs(f, it->array);
}

/* A comprehension's or reduction's captures, read again from the copy: a
 * variable it captures from the copied code is a fresh one there. */
static void fresh_caps(struct ir_copier *k, struct ir_node *c)
{
    (void)k;
    if (c->op == IR_LISTCOMP || c->op == IR_REDUCE) ir_free_vars(c, &c->caps, &c->ncaps);
}

struct ir_node *ir_copy_fresh(struct ir_program *ir, struct ir_node *n)
{
    struct ir_program *saved = P;
    P = ir;
    struct fresh_copy f = {{NULL, fresh_rename, fresh_caps}, NULL, NULL, 0, 0};
    fresh_defs(&f, n);
    struct ir_node *c = ir_copy(&f.k, n);
    free(f.from);
    free(f.to);
    P = saved;
    return c;
}

/* ---- small builders ------------------------------------------------------------ */

static struct ir_node *mk_block(struct loc loc)
{
    return ir_new(IR_BLOCK, loc, ty_void);
}

static struct ir_node *mk_if(struct ir_node *cond, struct ir_node *then, struct ir_node *els)
{
    struct ir_node *s = ir_new(IR_IF, cond->loc, ty_void);
    s->a = cond;
    s->b = then;
    s->c = els;
    return s;
}

static struct ir_node *blocked(struct ir_node *s)
{
    if (s->op == IR_BLOCK) return s;
    struct ir_node *b = mk_block(s->loc);
    ir_push_kid(b, s);
    return b;
}

/* ---- folding ------------------------------------------------------------------ */

static bool is_bool_lit(const struct ir_node *n, bool v)
{
    return n && n->op == IR_BOOL && n->bval == v;
}

/* n has no effect and cannot panic: dropping its evaluation changes nothing. */
static bool inert(const struct ir_node *n)
{
    switch (n->eop) {
    case IR_INT: case IR_FLOAT: case IR_BOOL: case IR_VAR: case IR_GLOBAL: return true;
    case IR_NOT: return inert(n->a);
    case IR_AND: case IR_OR: return inert(n->a) && inert(n->b);
    case IR_COND: return inert(n->a) && inert(n->b) && inert(n->c);
    case IR_BINARY:
        if (op_is_compare(n->bop))
            return (n->optype == ty_int || n->optype == ty_float || n->optype == ty_bool) && inert(n->a) && inert(n->b);
        return n->optype == ty_float && n->bop != OP_MOD && inert(n->a) && inert(n->b);
    default: return false;
    }
}

static void become(struct ir_node *n, struct ir_node *with)
{
    struct ir_node keep = *with;
    *n = keep;
}

/* and, or, not and conditional expressions of a literal folded, in place */
static void fold_expr(struct ir_node *n)
{
    if (!n) return;
    ir_each_child(n, fold_expr);
    if (!ir_is_expr(n)) return;
    switch (n->eop) {
    case IR_NOT:
        if (n->a->op == IR_BOOL) {
            bool v = !n->a->bval;
            become(n, n->a);
            n->bval = v;
        }
        return;
    case IR_AND:
        if (is_bool_lit(n->a, false) || is_bool_lit(n->b, true)) become(n, n->a); /* false and x; x and true */
        else if (is_bool_lit(n->a, true)) become(n, n->b);
        else if (is_bool_lit(n->b, false) && inert(n->a)) become(n, n->b);
        return;
    case IR_OR:
        if (is_bool_lit(n->a, true) || is_bool_lit(n->b, false)) become(n, n->a); /* true or x; x or false */
        else if (is_bool_lit(n->a, false)) become(n, n->b);
        else if (is_bool_lit(n->b, true) && inert(n->a)) become(n, n->b);
        return;
    case IR_COND:
        if (n->a->op == IR_BOOL) become(n, n->a->bval ? n->b : n->c);
        return;
    default: return;
    }
}

/* the same, and `if true: S else T` is S */
static void fold_stmt(struct ir_node *s)
{
    if (!s) return;
    if (ir_is_expr(s)) {
        fold_expr(s);
        return;
    }
    switch (s->sop) {
    case IR_BLOCK:
        for (int i = 0; i < s->nkids; i++) fold_stmt(s->kids[i]);
        return;
    case IR_IF:
        fold_expr(s->a);
        fold_stmt(s->b);
        fold_stmt(s->c);
        if (s->a->op == IR_BOOL) {
            struct ir_node *keep = s->a->bval ? s->b : s->c;
            become(s, keep ? blocked(keep) : mk_block(s->loc));
        }
        return;
    case IR_WHILE:
        fold_expr(s->a);
        fold_stmt(s->b);
        return;
    case IR_FOR_RANGE: case IR_FOR_ARRAY:
        fold_expr(s->iter.lo);
        fold_expr(s->iter.hi);
        fold_expr(s->iter.array);
        fold_stmt(s->b);
        return;
    case IR_LET: case IR_ASSIGN: case IR_STORE: case IR_PUSH: case IR_UNIQUE: case IR_EXPR: case IR_RETURN:
        fold_expr(s->a);
        for (int i = 0; i < s->nkids; i++) fold_expr(s->kids[i]);
        return;
    case IR_BREAK: case IR_CONTINUE: case IR_UNREACHABLE: return;
    }
}

/* ---- terms of conditions ---------------------------------------------------------- */

/* Every term equal to t in n (statement or expression) becomes the literal v. */
static void subst(struct ir_node *n, const struct ir_node *t, bool v)
{
    if (!n) return;
    if (ir_is_expr(n) && ir_same_term(n, t)) {
        struct loc at = n->loc;
        memset(n, 0, sizeof *n);
        n->op = IR_BOOL;
        n->loc = at;
        n->type = ty_bool;
        n->bval = v;
        return;
    }
    subst(n->a, t, v);
    subst(n->b, t, v);
    subst(n->c, t, v);
    for (int i = 0; i < n->nkids; i++) subst(n->kids[i], t, v);
    subst(n->iter.lo, t, v);
    subst(n->iter.hi, t, v);
    subst(n->iter.array, t, v);
    for (int i = 0; i < n->nclauses; i++) {
        subst(n->clauses[i].iter.lo, t, v);
        subst(n->clauses[i].iter.hi, t, v);
        subst(n->clauses[i].iter.array, t, v);
    }
    subst(n->elem, t, v);
    subst(n->filter, t, v);
    subst(n->key, t, v);
}

/* Whether statement s defines v (a let, a loop's or a generator's variable). */
static bool defines(struct ir_node *n, struct ir_var *v)
{
    if (!n) return false;
    if (!ir_is_expr(n) && (n->op == IR_LET || n->op == IR_FOR_RANGE || n->op == IR_FOR_ARRAY) && n->var == v) return true;
    if (ir_is_expr(n) && (n->op == IR_LISTCOMP || n->op == IR_REDUCE)) {
        if (n->gen_var == v || n->comb_l == v || n->comb_r == v) return true;
        for (int i = 0; i < n->nclauses; i++)
            if (n->clauses[i].var == v) return true;
    }
    if (defines(n->a, v) || defines(n->b, v) || defines(n->c, v) || defines(n->elem, v) || defines(n->filter, v))
        return true;
    for (int i = 0; i < n->nkids; i++)
        if (defines(n->kids[i], v)) return true;
    return false;
}

/* A variable of loop l's that keeps its value through it (not its own). */
static bool fixed_in(struct ir_node *l, struct ir_var *v)
{
    return v != l->var && !defines(l->b, v) && !ir_writes(l->b, v, false);
}

#define INT_MAX64 ((int64_t)0x7fffffffffffffffLL)
#define INT_MIN64 (-INT_MAX64 - 1)
#define SMALL ((int64_t)1 << 40)

/* A literal int of at most SMALL in size: *c. */
static bool small_lit(const struct ir_node *n, int64_t *c)
{
    if (n->op != IR_INT || n->type != ty_int) return false;
    __int128 v = (__int128)n->ival;
    if (v > SMALL || v < -SMALL) return false;
    *c = (int64_t)v;
    return true;
}

/* Whether n is a term loop l cannot change that is pure (see the top); the
 * tests that its int arithmetic does not overflow are and-ed to *safe. */
static bool invariant(struct ir_node *l, struct ir_node *n, struct ir_node **safe)
{
    switch (n->eop) {
    case IR_INT: case IR_FLOAT: case IR_BOOL: case IR_GLOBAL: return true;
    case IR_VAR:
        return (n->type == ty_int || n->type == ty_float || n->type == ty_bool) && fixed_in(l, n->var);
    case IR_NOT: return invariant(l, n->a, safe);
    case IR_AND: case IR_OR: return invariant(l, n->a, safe) && invariant(l, n->b, safe);
    case IR_BINARY: {
        if (op_is_compare(n->bop))
            return (n->optype == ty_int || n->optype == ty_float || n->optype == ty_bool) && invariant(l, n->a, safe) &&
                   invariant(l, n->b, safe);
        if (n->optype == ty_float)
            return n->bop != OP_MOD && invariant(l, n->a, safe) && invariant(l, n->b, safe);
        if (n->optype != ty_int || (n->bop != OP_ADD && n->bop != OP_SUB)) return false;
        int64_t c;
        struct ir_node *v = n->a;
        if (!small_lit(n->b, &c)) {
            if (n->bop != OP_ADD || !small_lit(n->a, &c)) return false;
            v = n->b;
        }
        if (v->op != IR_VAR || !invariant(l, v, safe)) return false;
        if (n->bop == OP_SUB) c = -c;
        /* v + c fits: v <= max - c (c > 0), v >= min - c (c < 0) */
        if (c > 0) *safe = ir_mk_and(*safe, ir_mk_bin(OP_LE, ir_copy(NULL, v), ir_mk_int(INT_MAX64 - c, v->loc), ty_bool));
        if (c < 0) *safe = ir_mk_and(*safe, ir_mk_bin(OP_GE, ir_copy(NULL, v), ir_mk_int(INT_MIN64 - c, v->loc), ty_bool));
        return true;
    }
    default: return false;
    }
}

typedef bool (*term_fn)(struct ir_node *l, struct ir_node *term, void *arg);

/* The leaves of condition c's and/or/not tree, until fn says stop. */
static bool cond_terms(struct ir_node *l, struct ir_node *c, term_fn fn, void *arg)
{
    if (c->op == IR_AND || c->op == IR_OR) return cond_terms(l, c->a, fn, arg) || cond_terms(l, c->b, fn, arg);
    if (c->op == IR_NOT) return cond_terms(l, c->a, fn, arg);
    return fn(l, c, arg);
}

/* The terms of every choice in n (an if's condition, a conditional expression's), until fn says stop. */
static bool terms(struct ir_node *l, struct ir_node *n, term_fn fn, void *arg)
{
    if (!n) return false;
    if (ir_is_expr(n) ? n->op == IR_COND : n->op == IR_IF)
        if (cond_terms(l, n->a, fn, arg)) return true;
    if (terms(l, n->a, fn, arg) || terms(l, n->b, fn, arg) || terms(l, n->c, fn, arg)) return true;
    for (int i = 0; i < n->nkids; i++)
        if (terms(l, n->kids[i], fn, arg)) return true;
    return terms(l, n->elem, fn, arg) || terms(l, n->filter, fn, arg);
}

/* Whether s holds a break of the loop around it (not of a loop inside). */
static bool breaks(struct ir_node *s)
{
    if (!s || ir_is_expr(s)) return false;
    switch (s->sop) {
    case IR_BREAK: return true;
    case IR_BLOCK:
        for (int i = 0; i < s->nkids; i++)
            if (breaks(s->kids[i])) return true;
        return false;
    case IR_IF: return breaks(s->b) || breaks(s->c);
    default: return false;
    }
}

/* ---- unswitch ------------------------------------------------------------------- */

/* Whether n reads a variable or a constant. */
static bool reads_some(const struct ir_node *n)
{
    if (!n) return false;
    if (n->op == IR_VAR || n->op == IR_GLOBAL) return true;
    return reads_some(n->a) || reads_some(n->b) || reads_some(n->c);
}

struct hoist {
    struct ir_node *term, *safe;
};

static bool hoistable(struct ir_node *l, struct ir_node *t, void *arg)
{
    struct hoist *h = arg;
    if (t->op == IR_BOOL || t->type != ty_bool) return false;
    struct ir_node *safe = NULL;
    if (!invariant(l, t, &safe)) return false;
    if (!reads_some(t)) return false; /* nothing to test: folding's */
    h->term = t;
    h->safe = safe;
    return true;
}

/* Whether statement s holds a loop. */
static bool has_loop(struct ir_node *s)
{
    if (!s || ir_is_expr(s)) return false;
    switch (s->sop) {
    case IR_WHILE: case IR_FOR_RANGE: case IR_FOR_ARRAY: return true;
    case IR_BLOCK:
        for (int i = 0; i < s->nkids; i++)
            if (has_loop(s->kids[i])) return true;
        return false;
    case IR_IF: return has_loop(s->b) || has_loop(s->c);
    default: return false;
    }
}

/* An innermost range loop of a size to copy: a test in it runs once per
 * element (in an outer loop, once per inner loop: not worth a copy). */
static bool loop_shape(struct ir_node *l)
{
    return l->op == IR_FOR_RANGE && l->iter.is_range && l->b && !has_loop(l->b) && ir_size(l->b) <= MAX_BODY;
}

/* Whether l has a term to hoist: *h. */
static bool find_hoist(struct ir_node *l, struct hoist *h)
{
    return loop_shape(l) && terms(l, l->b, hoistable, h);
}

/* `if A: l(true) else: l(false)`, under the overflow tests, each copy
 * unswitched again (depth: terms hoisted so far). Past MAX_UNSWITCH terms,
 * a term is hoisted only when one of its copies keeps no term to hoist (an
 * or-chain of border tests, `i == 0 or j == 0 or ... or j == n - 1`: its
 * true copy is the border's plain copy), and at most MAX_CHAINED such
 * terms a loop (*chained): each then adds one copy, not a doubling. */
static struct ir_node *unswitched(struct ir_node *l, int depth, int *chained)
{
    struct hoist h = {0}, rest = {0};
    if (!find_hoist(l, &h) || (depth >= MAX_UNSWITCH && *chained >= MAX_CHAINED)) return l;
    struct ir_node *yes = ir_copy_fresh(P, l), *no = ir_copy_fresh(P, l);
    subst(yes->b, h.term, true);
    subst(no->b, h.term, false);
    fold_stmt(yes->b);
    fold_stmt(no->b);
    if (depth >= MAX_UNSWITCH) {
        if (find_hoist(yes, &rest) && find_hoist(no, &rest)) return l;
        (*chained)++;
    }
    struct ir_node *sw = mk_if(ir_copy(NULL, h.term), blocked(unswitched(yes, depth + 1, chained)),
                               blocked(unswitched(no, depth + 1, chained)));
    if (!h.safe) return sw;
    return mk_if(h.safe, blocked(sw), blocked(l));
}

/* ---- split --------------------------------------------------------------------- */

/* n as sym + off: a literal (sym NULL) or a variable fixed in l, plus a
 * literal when add (lo + c, hi - c style terms). */
struct lin {
    struct ir_var *sym;
    int64_t off;
};

static bool linear(struct ir_node *l, struct ir_node *n, struct lin *x, bool add)
{
    int64_t c;
    if (small_lit(n, &c)) {
        *x = (struct lin){NULL, c};
        return true;
    }
    if (n->op == IR_VAR && n->type == ty_int && fixed_in(l, n->var)) {
        *x = (struct lin){n->var, 0};
        return true;
    }
    /* len(xs) of an array the loop neither assigns, pushes to nor changes by
     * a method: its symbol is xs (no int variable's) */
    if (n->op == IR_BUILTIN && n->builtin == BI_LEN && n->nkids == 1 && n->kids[0]->op == IR_VAR &&
        n->kids[0]->type->kind == T_ARRAY && fixed_in(l, n->kids[0]->var)) {
        *x = (struct lin){n->kids[0]->var, 0};
        return true;
    }
    if (add && n->op == IR_BINARY && n->optype == ty_int && (n->bop == OP_ADD || n->bop == OP_SUB) && small_lit(n->b, &c) &&
        linear(l, n->a, x, false) && x->sym) {
        x->off = n->bop == OP_ADD ? c : -c;
        return true;
    }
    return false;
}

/* The value of term t (j OP e) over the middle lo + 1 .. hi - 2, when one:
 * 1 false, 2 true, 0 unknown. */
static int middle_value(struct ir_node *l, struct ir_node *t)
{
    if (t->op != IR_BINARY || !op_is_compare(t->bop) || t->optype != ty_int) return 0;
    enum op op = t->bop;
    struct ir_node *e;
    if (t->a->op == IR_VAR && t->a->var == l->var) {
        e = t->b;
    } else if (t->b->op == IR_VAR && t->b->var == l->var) {
        e = t->a;
        op = op == OP_LT ? OP_GT : op == OP_GT ? OP_LT : op == OP_LE ? OP_GE : op == OP_GE ? OP_LE : op;
    } else {
        return 0;
    }
    struct lin lo, hi, x;
    if (!linear(l, l->iter.lo, &lo, false) || !linear(l, l->iter.hi, &hi, false) || !linear(l, e, &x, true)) return 0;
    /* e's arithmetic cannot overflow in the middle: lo + c, hi - c with c <= 3 */
    if (x.sym && x.off && !((x.sym == hi.sym && x.off >= -3 && x.off < 0) || (x.sym == lo.sym && x.off > 0 && x.off <= 3)))
        return 0;
    bool kl = x.sym == lo.sym, kh = x.sym == hi.sym;
    int64_t dl = x.off - (lo.off + 1), dh = x.off - (hi.off - 2); /* e - (lo + 1), e - (hi - 2) */
    switch (op) {
    case OP_EQ: case OP_NE: {
        bool never = (kl && dl < 0) || (kh && dh > 0);
        return never ? (op == OP_EQ ? 1 : 2) : 0;
    }
    case OP_LT: return kl && dl <= 0 ? 1 : kh && dh > 0 ? 2 : 0;
    case OP_LE: return kl && dl < 0 ? 1 : kh && dh >= 0 ? 2 : 0;
    case OP_GT: return kl && dl < 0 ? 2 : kh && dh >= 0 ? 1 : 0;
    case OP_GE: return kl && dl <= 0 ? 2 : kh && dh > 0 ? 1 : 0;
    default: return 0;
    }
}

#define MAX_TERMS 16

struct decided {
    struct ir_node *t[MAX_TERMS];
    bool v[MAX_TERMS];
    int n;
};

static bool collect_decided(struct ir_node *l, struct ir_node *t, void *arg)
{
    struct decided *d = arg;
    int v = middle_value(l, t);
    if (v && d->n < MAX_TERMS) {
        d->t[d->n] = t;
        d->v[d->n++] = v == 2;
    }
    return false;
}

static bool split_shape(struct ir_node *l, struct decided *d)
{
    if (!loop_shape(l) || l->iter.inclusive || l->var->type != ty_int || breaks(l->b)) return false;
    struct lin lo, hi;
    if (!linear(l, l->iter.lo, &lo, false) || !linear(l, l->iter.hi, &hi, false)) return false;
    if (!lo.sym && !hi.sym && hi.off - lo.off < 3) return false; /* no middle */
    d->n = 0;
    terms(l, l->b, collect_decided, d);
    return d->n > 0;
}

static struct ir_node *piece(struct ir_node *l, struct ir_node *lo, struct ir_node *hi)
{
    struct ir_node *c = ir_copy_fresh(P, l);
    c->iter.lo = lo;
    c->iter.hi = hi;
    return c;
}

static struct ir_node *split(struct ir_node *l)
{
    struct decided d;
    if (!split_shape(l, &d)) return l;
    struct loc at = l->loc;
    struct ir_node *lo = l->iter.lo, *hi = l->iter.hi;
#define LO ir_copy(NULL, lo)
#define HI ir_copy(NULL, hi)
#define PLUS(x, c) ir_mk_bin(OP_ADD, x, ir_mk_int(c, at), ty_int)
#define MINUS(x, c) ir_mk_bin(OP_SUB, x, ir_mk_int(c, at), ty_int)
    struct ir_node *body = mk_block(at);
    ir_push_kid(body, piece(l, LO, PLUS(LO, 1)));
    /* the terms name l's variable: folded in a copy that still does */
    struct ir_node *folded = ir_copy(NULL, l);
    for (int i = 0; i < d.n; i++) subst(folded->b, d.t[i], d.v[i]);
    fold_stmt(folded->b);
    ir_push_kid(body, piece(folded, PLUS(LO, 1), MINUS(HI, 1)));
    ir_push_kid(body, mk_if(ir_mk_bin(OP_LT, PLUS(LO, 1), HI, ty_bool), blocked(piece(l, MINUS(HI, 1), HI)), NULL));
#undef LO
#undef HI
#undef PLUS
#undef MINUS
    return mk_if(ir_mk_bin(OP_LT, ir_copy(NULL, lo), ir_copy(NULL, hi), ty_bool), body, NULL);
}

bool opt_split_pays(struct ir_program *ir, struct ir_node *l)
{
    struct ir_program *saved = P;
    P = ir;
    struct hoist h;
    struct decided d;
    bool r = find_hoist(l, &h) || split_shape(l, &d);
    P = saved;
    return r;
}

/* ---- the walk ----------------------------------------------------------------- */

/* Each loop in s rewritten by rw, innermost first. */
static void walk(struct ir_node *s, struct ir_node *(*rw)(struct ir_node *))
{
    if (!s || ir_is_expr(s)) return;
    switch (s->sop) {
    case IR_BLOCK:
        for (int i = 0; i < s->nkids; i++) {
            walk(s->kids[i], rw);
            if (s->kids[i]->op == IR_FOR_RANGE) s->kids[i] = rw(s->kids[i]);
        }
        return;
    case IR_IF:
        walk(s->b, rw);
        walk(s->c, rw);
        return;
    case IR_WHILE: case IR_FOR_RANGE: case IR_FOR_ARRAY:
        walk(s->b, rw);
        return;
    case IR_LET: case IR_ASSIGN: case IR_STORE: case IR_PUSH: case IR_UNIQUE: case IR_EXPR: case IR_RETURN:
    case IR_BREAK: case IR_CONTINUE: case IR_UNREACHABLE:
        return;
    }
}

static struct ir_node *unswitch_top(struct ir_node *l)
{
    int chained = 0;
    return unswitched(l, 0, &chained);
}

void opt_unswitch(struct ir_program *ir)
{
    P = ir;
    for (int i = 0; i < ir->fns.len; i++) walk(((struct ir_fn *)ir->fns.items[i])->body, unswitch_top);
    P = NULL;
}

void opt_split(struct ir_program *ir)
{
    P = ir;
    for (int i = 0; i < ir->fns.len; i++) walk(((struct ir_fn *)ir->fns.items[i])->body, split);
    P = NULL;
}
