/*
 * opt_accum.c: a float sum (or product) over k inside a loop over j, run
 * with k outside and one accumulator per j: loop interchange with scalar
 * expansion, written in the IR.
 *
 *   for j in L .. m:                       if GUARD:
 *       var s = S                              let acc = [S for j in L .. m]
 *       for k in lo .. hi:          =>         for k in lo .. hi:
 *           let t = ...                            for j in L .. m:
 *           s = s + E(j, k)                            let t = ...
 *       POST(j, s)                                     acc[j - L] = acc[j - L] + E(j, k)
 *                                              for j in L .. m:
 *                                                  let s = acc[j - L]
 *                                                  POST(j, s)
 *                                          else:
 *                                              the nest as written
 *
 * and the comprehension [P(j, sum(E(j, k) for k in lo .. hi)) for j in L .. m]
 * (or product; P often nothing), wherever it stands: `GUARD ? row(...) : as
 * written`, row a function this pass writes (the first two statements
 * above, then acc[j - L] = P(j, acc[j - L]) for each j, then `return acc`),
 * called with the values the comprehension reads. And where the
 * accumulator is the element itself,
 *
 *   for j in L .. m:                       if GUARD:
 *       for k in lo .. hi:          =>         for k in lo .. hi:
 *           y[e][j] = y[e][j] + E(j, k)            for j in L .. m: y[e][j] = y[e][j] + E(j, k)
 *                                          else: the nest as written
 *
 * (e literals or fixed variables, the stored path guarded as E's indices
 * are, y read nowhere else). Under `--dump=ir:accum` each is the loops that run.
 *
 * Why: when E reads b[k][j], the k loop walks down a column of an array of
 * rows (each element in another block, no stride the hardware can follow);
 * with k outside, the j loop walks along b[k] and acc, as C's ikj product
 * does, and the later passes guard, jam and view it like any row loop.
 *
 * Why it keeps the program's meaning: each acc[j] gets E(j, lo), E(j, lo +
 * 1), ... added in k order from the same start (sum starts from 0.0, product
 * from 1.0, each folding left), so every float has the same bits. Only
 * float reductions are taken: an int sum's overflow check would fire at
 * another (j, k) in the new order. E and the k body's lets are pure and
 * cannot panic: float arithmetic and comparisons, int comparisons, int to
 * float conversions, abs, min and max of floats and the math functions
 * (sqrt, exp, ...: ir_float_math), literals, constants,
 * variables nothing in the nest writes, and indexing; so are S and P (run
 * once per j, before and after all the sums instead of around each). An index is j, k, a
 * literal or such a variable, into a variable's array or a row of it
 * (a[i][k], b[k][j], x[k]); GUARD tests, before the nest, that every index
 * is in range for every j and k the loops take (S's and P's for every j even
 * when the k range is empty): `len(a[i]) >= hi`, and for a row that depends on k, `all(len(b[k]) >= m for k in lo .. hi)` (a row
 * depending on both j and k is refused). When the guard fails, the nest runs
 * as written, so a panic is the same panic at the same place after the same
 * output. The bounds (lo, hi, m) are literals, constants, variables, len of
 * arrays or of their rows at fixed indices (len(b[0])) and + and - of those,
 * none of which the nest writes, and lo and hi do not read j: they are the
 * same each time they are evaluated, and the guard evaluates them first, in
 * the nest's order (m, then lo and hi), so a bound that panics (an overflow,
 * an empty b) panics where it did. POST
 * runs after all the sums instead of between them: it may not write what E,
 * S or the bounds read, and holds no break, continue or return. The rewrite
 * is taken only where it pays: some index walks a column (b[k][j]) and none
 * walks a row along k (a[j][k], which the new order would make a column).
 */
#include "ir.h"

#include <stdlib.h>
#include <string.h>

#define MAX_CHAINS 16
#define MAX_DEPTH 4
#define MAX_LETS 16

static struct ir_program *P;
static struct ir_fn *F; /* the function being rewritten */
static int nrows;       /* row functions written */

struct nest {
    struct ir_var *j, *k, *s;     /* s: the statement form's accumulator */
    int64_t jlo;
    struct ir_node *jlo_n, *jhi, *klo, *khi;
    struct ir_node *body_j;       /* the statement form's j body: what may write */
    struct ir_node *lets[MAX_LETS]; /* the k body's lets before the step */
    int nlets;
    struct ir_node *elem, *start;
    enum op bop;                  /* OP_ADD, OP_MUL */
    /* the comprehension form's element around the sum, P(j, sum(...)): the
     * sum read as the variable sum_var (NULL: the element is the sum) */
    struct ir_node *outside;
    struct ir_var *sum_var;
    struct ir_node *chains[MAX_CHAINS]; /* the outermost index of each chain the nest reads */
    int nchains;
    int nj_chains;                /* chains[0 .. nj_chains): S's and P's, read once per j */
    bool column;                  /* some chain walks a column: b[k][j] */
    bool row_k;                   /* some chain walks a row along k under j: a[j][k] */
};

/* ---- small IR builders --------------------------------------------------------- */

static struct ir_node *mk_or(struct ir_node *a, struct ir_node *b)
{
    struct ir_node *n = ir_new(IR_OR, a->loc, ty_bool);
    n->a = a;
    n->b = b;
    return n;
}

static struct ir_node *mk_for(struct ir_var *v, struct ir_node *lo, struct ir_node *hi, struct ir_node *body)
{
    struct ir_node *f = ir_new(IR_FOR_RANGE, lo->loc, ty_void);
    f->var = v;
    f->iter.is_range = true;
    f->iter.lo = lo;
    f->iter.hi = hi;
    f->b = body;
    return f;
}

static struct ir_var *fresh(struct ir_var *v, enum ir_var_kind kind)
{
    struct ir_var *c = arena_alloc(sizeof *c);
    *c = *v;
    c->id = ++P->nvars;
    c->kind = kind;
    return c;
}

/* ---- copies with variables renamed ---------------------------------------------- */

#define MAX_RENAMES 64

struct renames {
    struct ir_copier k; /* first: the hooks get it */
    struct ir_var *from[MAX_RENAMES], *to[MAX_RENAMES];
    int n;
    bool fresh_defs;    /* a variable the copy defines gets a fresh one */
};

static struct ir_var *renamed(struct ir_copier *k, struct ir_var *v)
{
    struct renames *r = (struct renames *)k;
    for (int i = 0; i < r->n; i++)
        if (r->from[i] == v) return r->to[i];
    return v;
}

static void rename_add(struct renames *r, struct ir_var *from, struct ir_var *to)
{
    if (r->n == MAX_RENAMES) internal_error("accum: too many renames");
    r->from[r->n] = from;
    r->to[r->n++] = to;
}

/* Every variable statement or expression n defines, renamed to a fresh one. */
static void fresh_defs(struct renames *r, struct ir_node *n)
{
    if (!n) return;
    bool defines = ir_is_expr(n) ? n->op == IR_LISTCOMP || n->op == IR_REDUCE
                                 : n->op == IR_LET || n->op == IR_FOR_RANGE || n->op == IR_FOR_ARRAY;
    if (defines && !ir_is_expr(n)) rename_add(r, n->var, fresh(n->var, n->var->kind == IRV_TEMP ? IRV_TEMP : IRV_LOCAL));
    if (defines && ir_is_expr(n)) {
        rename_add(r, n->gen_var, fresh(n->gen_var, n->gen_var->kind));
        for (int i = 0; i < n->nclauses; i++) rename_add(r, n->clauses[i].var, fresh(n->clauses[i].var, n->clauses[i].var->kind));
        if (n->comb_l) rename_add(r, n->comb_l, fresh(n->comb_l, n->comb_l->kind)), rename_add(r, n->comb_r, fresh(n->comb_r, n->comb_r->kind));
    }
    fresh_defs(r, n->a);
    fresh_defs(r, n->b);
    fresh_defs(r, n->c);
    for (int i = 0; i < n->nkids; i++) fresh_defs(r, n->kids[i]);
    fresh_defs(r, n->elem);
    fresh_defs(r, n->filter);
    fresh_defs(r, n->key);
}

/* ---- what E may be ----------------------------------------------------------------- */

static bool is_loop_var(struct nest *x, struct ir_var *v)
{
    return v == x->j || v == x->k;
}

static bool is_let(struct nest *x, struct ir_var *v)
{
    for (int i = 0; i < x->nlets; i++)
        if (x->lets[i]->var == v) return true;
    return false;
}

/* v holds the same value everywhere in the nest. */
static bool fixed_var(struct nest *x, struct ir_var *v)
{
    if (is_loop_var(x, v) || is_let(x, v) || v == x->s) return false;
    return !x->body_j || !ir_writes(x->body_j, v, true);
}

static bool scalar(struct type *t)
{
    return t == ty_float || t == ty_int || t == ty_bool;
}

/* An index chain v[x1][x2]..: each index j, k, a literal >= 0 or a fixed
 * int variable; no row depending on both j and k. */
static bool chain_ok(struct nest *x, struct ir_node *n)
{
    struct ir_node *steps[MAX_DEPTH];
    int d = 0;
    struct ir_node *r = n;
    for (; r->op == IR_INDEX; r = r->a) {
        if (d == MAX_DEPTH) return false;
        steps[d++] = r;
    }
    if (r->op != IR_VAR || !fixed_var(x, r->var) || x->nchains == MAX_CHAINS) return false;
    bool row_j = false, row_k = false; /* the row so far depends on j, on k */
    for (int i = d - 1; i >= 0; i--) {
        struct ir_node *ix = steps[i]->b;
        if (row_j && row_k) return false;
        if (ix->op == IR_INT) {
            if ((__int128)ix->ival < 0) return false;
        } else if (ix->op != IR_VAR || ix->type != ty_int || !(is_loop_var(x, ix->var) || fixed_var(x, ix->var))) {
            return false;
        }
        bool by_j = ix->op == IR_VAR && ix->var == x->j, by_k = ix->op == IR_VAR && ix->var == x->k;
        if (i == 0 && by_j && row_k) x->column = true;
        if (i == 0 && by_k && row_j) x->row_k = true;
        row_j |= by_j;
        row_k |= by_k;
    }
    x->chains[x->nchains++] = n;
    return true;
}

static bool elem_ok(struct nest *x, struct ir_node *n)
{
    switch (n->eop) {
    case IR_INT: case IR_FLOAT: case IR_BOOL: case IR_GLOBAL: return true;
    case IR_VAR: return scalar(n->type) && (is_loop_var(x, n->var) || is_let(x, n->var) || fixed_var(x, n->var));
    case IR_UNARY: return n->bop == OP_NEG && n->optype == ty_float && elem_ok(x, n->a);
    case IR_NOT: return elem_ok(x, n->a);
    case IR_BINARY:
        if (n->optype != ty_float && !(op_is_compare(n->bop) && scalar(n->optype))) return false;
        return elem_ok(x, n->a) && elem_ok(x, n->b);
    case IR_AND: case IR_OR: return elem_ok(x, n->a) && elem_ok(x, n->b);
    case IR_COND: return elem_ok(x, n->a) && elem_ok(x, n->b) && elem_ok(x, n->c);
    case IR_CONV: return n->type == ty_float && (n->optype == ty_int || n->optype == ty_float) && elem_ok(x, n->a);
    case IR_BUILTIN:
        if (!ir_float_math(n)) return false;
        for (int i = 0; i < n->nkids; i++)
            if (!elem_ok(x, n->kids[i])) return false;
        return true;
    case IR_INDEX: return scalar(n->type) && chain_ok(x, n);
    case IR_STR: case IR_CALL: case IR_ARRAY: case IR_FSTRING: case IR_LISTCOMP: case IR_REDUCE: case IR_TUPLE:
    case IR_FIELD: case IR_FNVAL: case IR_CALLV: case IR_GUARD_TEST:
        return false;
    }
    return false;
}

/* A loop bound: the same value each time the nest evaluates it, no effect. */
static bool bound_ok(struct nest *x, struct ir_node *n)
{
    if (n->type != ty_int) return false;
    switch (n->eop) {
    case IR_INT: case IR_GLOBAL: return true;
    case IR_VAR: return fixed_var(x, n->var);
    case IR_BUILTIN: {
        if (n->builtin != BI_LEN || n->nkids != 1) return false;
        struct ir_node *r = n->kids[0];
        for (; r->op == IR_INDEX; r = r->a) /* len(b[0]), len(a[i]): it may panic, first where it did */
            if (r->b->op != IR_INT && !(r->b->op == IR_VAR && fixed_var(x, r->b->var))) return false;
        return r->op == IR_VAR && fixed_var(x, r->var);
    }
    case IR_BINARY: return (n->bop == OP_ADD || n->bop == OP_SUB) && n->optype == ty_int && bound_ok(x, n->a) && bound_ok(x, n->b);
    case IR_FLOAT: case IR_BOOL: case IR_STR: case IR_UNARY: case IR_NOT: case IR_AND: case IR_OR: case IR_COND:
    case IR_CONV: case IR_CALL: case IR_INDEX: case IR_ARRAY: case IR_FSTRING: case IR_LISTCOMP: case IR_REDUCE:
    case IR_TUPLE: case IR_FIELD: case IR_FNVAL: case IR_CALLV: case IR_GUARD_TEST:
        return false;
    }
    return false;
}

/* The nest's parts are all of a kind this pass takes, and it pays. */
static bool nest_ok(struct nest *x)
{
    if (x->jlo < 0 || !bound_ok(x, x->jhi) || !bound_ok(x, x->klo) || !bound_ok(x, x->khi)) return false;
    if (x->start && (x->start->type != ty_float || !elem_ok(x, x->start))) return false;
    if (x->outside && (x->outside->type != ty_float || !elem_ok(x, x->outside))) return false;
    x->nj_chains = x->nchains;
    for (int i = 0; i < x->nlets; i++)
        if (!elem_ok(x, x->lets[i]->a)) return false;
    return elem_ok(x, x->elem) && x->column && !x->row_k;
}

/* ---- the guard ---------------------------------------------------------------------- */

/* That index ix is in range of row (a copy in the guard's terms), q the
 * variable the guard quantifies over (NULL: none) and qv its copy. */
static struct ir_node *in_range(struct nest *x, struct ir_node *row, struct ir_node *ix, struct ir_var *q,
                                struct ir_var *qv)
{
    struct loc at = ix->loc;
    if (ix->op == IR_INT) return ir_mk_bin(OP_LT, ir_copy(NULL, ix), ir_mk_len(row), ty_bool);
    if (q && ix->var == q)
        return ir_mk_and(ir_mk_bin(OP_LE, ir_mk_int(0, at), ir_mk_var(qv, at), ty_bool), ir_mk_bin(OP_LT, ir_mk_var(qv, at), ir_mk_len(row), ty_bool));
    if (ix->var == x->j) return ir_mk_bin(OP_LE, ir_copy(NULL, x->jhi), ir_mk_len(row), ty_bool);
    if (ix->var == x->k) {
        struct ir_node *lo_ok = x->klo->op == IR_INT && (__int128)x->klo->ival >= 0 ? NULL
                                : ir_mk_bin(OP_LE, ir_mk_int(0, at), ir_copy(NULL, x->klo), ty_bool);
        return ir_mk_and(lo_ok, ir_mk_bin(OP_LE, ir_copy(NULL, x->khi), ir_mk_len(row), ty_bool));
    }
    return ir_mk_and(ir_mk_bin(OP_LE, ir_mk_int(0, at), ir_copy(NULL, ix), ty_bool), ir_mk_bin(OP_LT, ir_copy(NULL, ix), ir_mk_len(row), ty_bool));
}

/* `all(cond for qv in the range of q)` */
static struct ir_node *for_all(struct nest *x, struct ir_var *q, struct ir_var *qv, struct ir_node *cond)
{
    struct ir_node *r = ir_new(IR_REDUCE, cond->loc, ty_bool);
    r->reducer = RED_ALL;
    r->elem_type = ty_bool;
    r->gen_var = qv;
    r->elem = cond;
    r->iter.is_range = true;
    r->iter.lo = q == x->j ? ir_copy(NULL, x->jlo_n) : ir_copy(NULL, x->klo);
    r->iter.hi = q == x->j ? ir_copy(NULL, x->jhi) : ir_copy(NULL, x->khi);
    return r;
}

/* One chain's tests, outermost index first, each under the ones before. */
static struct ir_node *chain_guard(struct nest *x, struct ir_node *chain)
{
    struct ir_node *steps[MAX_DEPTH];
    int d = 0;
    for (struct ir_node *r = chain; r->op == IR_INDEX; r = r->a) steps[d++] = r;
    struct ir_node *g = NULL;
    struct ir_var *q = NULL; /* the loop variable the rows so far depend on */
    for (int i = d - 1; i >= 0; i--) {
        struct ir_var *qv = q ? fresh(q, IRV_LOCAL) : NULL;
        struct renames r = {{NULL, renamed, NULL}, {0}, {0}, 0, false};
        if (q) rename_add(&r, q, qv);
        struct ir_node *cond = in_range(x, ir_copy(&r.k, steps[i]->a), steps[i]->b, q, qv);
        g = ir_mk_and(g, q ? for_all(x, q, qv, cond) : cond);
        struct ir_node *ix = steps[i]->b;
        if (ix->op == IR_VAR && is_loop_var(x, ix->var)) q = ix->var;
    }
    return g;
}

/* `L >= m or (S's and P's tests and (lo >= hi or E's tests))`: nothing
 * runs, or nothing that runs can panic (S and P run once per j even when
 * the k range is empty). */
static struct ir_node *guard(struct nest *x)
{
    struct ir_node *gj = NULL, *gk = NULL;
    for (int i = 0; i < x->nchains; i++) {
        struct ir_node *c = chain_guard(x, x->chains[i]);
        if (i < x->nj_chains) gj = ir_mk_and(gj, c);
        else gk = ir_mk_and(gk, c);
    }
    /* lo before hi, j's before k's: the order the nest evaluates them in */
    struct ir_node *none_k = ir_mk_bin(OP_GE, ir_copy(NULL, x->klo), ir_copy(NULL, x->khi), ty_bool);
    struct ir_node *none_j = ir_mk_bin(OP_GE, ir_copy(NULL, x->jlo_n), ir_copy(NULL, x->jhi), ty_bool);
    return mk_or(none_j, ir_mk_and(gj, gk ? mk_or(none_k, gk) : none_k));
}

/* ---- the rewritten loops ------------------------------------------------------------ */

/* acc[j' - L], j' read at loc */
static struct ir_node *acc_at(struct nest *x, struct ir_var *acc, struct ir_var *jv, struct loc loc)
{
    struct ir_node *i = ir_mk_var(jv, loc);
    if (x->jlo) i = ir_mk_bin(OP_SUB, i, ir_mk_int(x->jlo, loc), ty_int);
    struct ir_node *n = ir_new(IR_INDEX, loc, ty_float);
    n->a = ir_mk_var(acc, loc);
    n->b = i;
    return n;
}

/* let acc = [S for j in L .. m]; for k: for j: (lets) acc[j - L] = acc[j - L] op E.
 * r renames what the copies read (a row function's parameters). */
static void accumulate(struct nest *x, struct ir_node *out, struct ir_var *acc, struct renames *r)
{
    struct loc at = x->elem->loc;
    struct ir_var *j0 = fresh(x->j, IRV_LOCAL), *j1 = fresh(x->j, IRV_LOCAL), *k1 = fresh(x->k, IRV_LOCAL);
    struct ir_node *init = ir_new(IR_LISTCOMP, x->start->loc, acc->type);
    init->elem_type = ty_float;
    init->gen_var = j0;
    int mark = r->n;
    rename_add(r, x->j, j0);
    init->elem = ir_copy(&r->k, x->start);
    r->n = mark;
    init->iter.is_range = true;
    init->iter.lo = ir_copy(&r->k, x->jlo_n);
    init->iter.hi = ir_copy(&r->k, x->jhi);
    ir_push_kid(out, ir_mk_stmt(IR_LET, acc, init, at));

    rename_add(r, x->j, j1);
    rename_add(r, x->k, k1);
    for (int i = 0; i < x->nlets; i++) fresh_defs(r, x->lets[i]);
    struct ir_node *inner = ir_new(IR_BLOCK, at, ty_void);
    for (int i = 0; i < x->nlets; i++) ir_push_kid(inner, ir_copy(&r->k, x->lets[i]));
    struct ir_node *store = ir_mk_stmt(IR_STORE, acc, ir_mk_bin(x->bop, acc_at(x, acc, j1, at), ir_copy(&r->k, x->elem), ty_float), at);
    ir_push_kid(store, acc_at(x, acc, j1, at)->b);
    ir_push_kid(inner, store);
    struct ir_node *jloop = mk_for(j1, ir_copy(&r->k, x->jlo_n), ir_copy(&r->k, x->jhi), inner);
    struct ir_node *kbody = ir_new(IR_BLOCK, at, ty_void);
    ir_push_kid(kbody, jloop);
    ir_push_kid(out, mk_for(k1, ir_copy(&r->k, x->klo), ir_copy(&r->k, x->khi), kbody));
    r->n = mark;
}

/* ---- the statement form --------------------------------------------------------------- */

/* Whether s holds a return, or a break or continue that leaves it. */
static bool leaves(struct ir_node *s, bool in_loop)
{
    if (!s || ir_is_expr(s)) return false;
    switch (s->sop) {
    case IR_RETURN: return true;
    case IR_BREAK: case IR_CONTINUE: return !in_loop;
    case IR_BLOCK:
        for (int i = 0; i < s->nkids; i++)
            if (leaves(s->kids[i], in_loop)) return true;
        return false;
    case IR_IF: return leaves(s->b, in_loop) || leaves(s->c, in_loop);
    case IR_WHILE: case IR_FOR_RANGE: case IR_FOR_ARRAY: return leaves(s->b, true);
    case IR_LET: case IR_ASSIGN: case IR_STORE: case IR_PUSH: case IR_UNIQUE: case IR_EXPR: case IR_UNREACHABLE:
        return false;
    }
    return false;
}

/* The k body's statements before its last: scalar lets. */
static bool take_lets(struct nest *x, struct ir_node *kb)
{
    for (int i = 0; i + 1 < kb->nkids; i++) {
        if (kb->kids[i]->op != IR_LET || !scalar(kb->kids[i]->var->type)) return false;
        x->lets[x->nlets++] = kb->kids[i];
    }
    return true;
}

/* `if GUARD: fast else: loop` */
static struct ir_node *versioned(struct nest *x, struct ir_node *fast, struct ir_node *loop)
{
    struct ir_node *slow = ir_new(IR_BLOCK, loop->loc, ty_void);
    ir_push_kid(slow, loop);
    struct ir_node *s = ir_new(IR_IF, loop->loc, ty_void);
    s->a = guard(x);
    s->versioned = true;
    s->b = fast;
    s->c = slow;
    return s;
}

/* for j: var s = S; for k: (lets) s = s op E; POST  (see the top) */
static bool statement_nest(struct ir_node *loop, struct nest *x)
{
    struct ir_node *b = loop->b;
    if (!loop->iter.is_range || loop->iter.lo->op != IR_INT || loop->var->type != ty_int) return false;
    if (!b || b->op != IR_BLOCK || b->nkids < 3) return false;
    struct ir_node *let = b->kids[0], *kl = b->kids[1];
    if (let->op != IR_LET || let->var->type != ty_float || kl->op != IR_FOR_RANGE || !kl->iter.is_range) return false;
    struct ir_node *kb = kl->b;
    if (!kb || kb->op != IR_BLOCK || kb->nkids < 1 || kb->nkids > MAX_LETS + 1) return false;
    struct ir_node *step = kb->kids[kb->nkids - 1];
    if (step->op != IR_ASSIGN || step->var != let->var || step->a->op != IR_BINARY || step->a->optype != ty_float) return false;
    if (step->a->bop != OP_ADD && step->a->bop != OP_MUL) return false;
    if (step->a->a->op != IR_VAR || step->a->a->var != let->var) return false;
    *x = (struct nest){.j = loop->var, .k = kl->var, .s = let->var, .jlo = (int64_t)loop->iter.lo->ival,
                       .jlo_n = loop->iter.lo, .jhi = loop->iter.hi, .klo = kl->iter.lo, .khi = kl->iter.hi, .body_j = b,
                       .elem = step->a->b, .start = let->a, .bop = step->a->bop};
    if (!take_lets(x, kb) || ir_writes(b, loop->var, false) || ir_writes(kl->b, kl->var, false)) return false;
    for (int i = 2; i < b->nkids; i++)
        if (leaves(b->kids[i], false)) return false;
    /* the bounds are read with j out of scope: they may not read it */
    if (ir_reads(x->klo, x->j) || ir_reads(x->khi, x->j)) return false;
    return nest_ok(x);
}

static struct ir_node *rewrite_statement(struct ir_node *loop, struct nest *x)
{
    struct loc at = loop->loc;
    struct ir_node *fast = ir_new(IR_BLOCK, at, ty_void);
    struct ir_var *acc = fresh(x->s, IRV_TEMP);
    acc->name = "";
    acc->type = type_array(ty_float);
    struct renames r = {{NULL, renamed, NULL}, {0}, {0}, 0, false};
    accumulate(x, fast, acc, &r);
    /* for j: let s = acc[j - L]; POST */
    struct ir_var *j2 = fresh(x->j, IRV_LOCAL), *s2 = fresh(x->s, IRV_LOCAL);
    rename_add(&r, x->j, j2);
    rename_add(&r, x->s, s2);
    struct ir_node *post = ir_new(IR_BLOCK, at, ty_void);
    ir_push_kid(post, ir_mk_stmt(IR_LET, s2, acc_at(x, acc, j2, at), at));
    for (int i = 2; i < loop->b->nkids; i++) fresh_defs(&r, loop->b->kids[i]);
    for (int i = 2; i < loop->b->nkids; i++) ir_push_kid(post, ir_copy(&r.k, loop->b->kids[i]));
    ir_push_kid(fast, mk_for(j2, ir_copy(NULL, x->jlo_n), ir_copy(NULL, x->jhi), post));
    return versioned(x, fast, loop);
}

/* ---- the element form -------------------------------------------------------------- */

/* b, or the one block a block of one block holds */
static struct ir_node *unblock(struct ir_node *b)
{
    while (b && b->op == IR_BLOCK && b->nkids == 1 && b->kids[0]->op == IR_BLOCK) b = b->kids[0];
    return b;
}

/* An index of the store: what it stands for when a let of the k body
 * copies a variable or a literal into it (lowering's copies for `+=`). */
static struct ir_node *resolved(struct nest *x, struct ir_node *n)
{
    if (n->op == IR_VAR)
        for (int i = 0; i < x->nlets; i++)
            if (x->lets[i]->var == n->var && (x->lets[i]->a->op == IR_VAR || x->lets[i]->a->op == IR_INT)) return x->lets[i]->a;
    return n;
}

/* for j: for k: (lets) y[e..][j] = y[e..][j] op E, each e a literal or a
 * fixed variable: the accumulator is the element itself, so the new order
 * is the nest with its loops swapped (the textbook product). The store's
 * path is guarded as E's indices are; y may not be read otherwise. */
static bool element_nest(struct ir_node *loop, struct nest *x)
{
    if (!loop->iter.is_range || loop->iter.lo->op != IR_INT || loop->var->type != ty_int) return false;
    struct ir_node *b = unblock(loop->b);
    if (!b || b->op != IR_BLOCK || b->nkids != 1 || b->kids[0]->op != IR_FOR_RANGE) return false;
    struct ir_node *kl = b->kids[0], *kb = unblock(kl->b);
    if (!kl->iter.is_range || !kb || kb->op != IR_BLOCK || kb->nkids < 1 || kb->nkids > MAX_LETS + 1) return false;
    struct ir_node *st = kb->kids[kb->nkids - 1], *v = st->a;
    if (st->op != IR_STORE || st->nkids > MAX_DEPTH || v->type != ty_float || v->op != IR_BINARY) return false;
    if (v->bop != OP_ADD && v->bop != OP_MUL) return false;
    *x = (struct nest){.j = loop->var, .k = kl->var, .jlo = (int64_t)loop->iter.lo->ival, .jlo_n = loop->iter.lo,
                       .jhi = loop->iter.hi, .klo = kl->iter.lo, .khi = kl->iter.hi, .body_j = loop->b, .elem = v->b,
                       .bop = v->bop};
    if (!take_lets(x, kb) || ir_writes(loop->b, loop->var, false) || ir_writes(kl->b, kl->var, false)) return false;
    /* the value reads the element it stores: y[same indices] */
    struct ir_node *r = v->a;
    for (int i = st->nkids - 1; i >= 0; i--, r = r->a) {
        struct ir_node *p = st->kids[i];
        if (r->op != IR_INDEX || p->op == IR_FIELD || r->b->op != p->op) return false;
        if (p->op == IR_VAR ? r->b->var != p->var : p->op != IR_INT || r->b->ival != p->ival) return false;
    }
    if (r->op != IR_VAR || r->var != st->var) return false;
    /* the path: fixed indices, then j; guarded as a chain of E */
    struct ir_node *chain = ir_mk_var(st->var, st->loc);
    for (int i = 0; i < st->nkids; i++) {
        struct ir_node *p = resolved(x, st->kids[i]), *n = ir_new(IR_INDEX, p->loc, NULL);
        bool last = i == st->nkids - 1;
        if (last ? p->op != IR_VAR || p->var != x->j
                 : p->op == IR_INT ? (__int128)p->ival < 0 : p->op != IR_VAR || !fixed_var(x, p->var))
            return false;
        n->a = chain;
        n->b = p;
        chain = n;
    }
    for (struct ir_node *n = chain, *o = v->a; n->op == IR_INDEX; n = n->a, o = o->a) n->type = o->type;
    if (ir_reads(x->klo, x->j) || ir_reads(x->khi, x->j) || !nest_ok(x) || x->nchains == MAX_CHAINS) return false;
    x->chains[x->nchains++] = chain; /* stored where E is read: once per (j, k) */
    return true;
}

/* for k: for j: (lets) y[e..][j] = y[e..][j] op E, behind the guard */
static struct ir_node *rewrite_element(struct ir_node *loop, struct nest *x)
{
    struct ir_node *kl = unblock(loop->b)->kids[0];
    struct ir_var *j1 = fresh(x->j, IRV_LOCAL), *k1 = fresh(x->k, IRV_LOCAL);
    struct renames r = {{NULL, renamed, NULL}, {0}, {0}, 0, false};
    rename_add(&r, x->j, j1);
    rename_add(&r, x->k, k1);
    fresh_defs(&r, kl->b);
    struct ir_node *jloop = mk_for(j1, ir_copy(NULL, x->jlo_n), ir_copy(NULL, x->jhi), ir_copy(&r.k, kl->b));
    struct ir_node *kbody = ir_new(IR_BLOCK, loop->loc, ty_void);
    ir_push_kid(kbody, jloop);
    struct ir_node *fast = ir_new(IR_BLOCK, loop->loc, ty_void);
    ir_push_kid(fast, mk_for(k1, ir_copy(NULL, x->klo), ir_copy(NULL, x->khi), kbody));
    return versioned(x, fast, loop);
}

/* ---- the comprehension form ---------------------------------------------------------- */

/* The generators in n, not looking inside them: their count, and the last. */
static int generators(struct ir_node *n, struct ir_node **last)
{
    if (!n) return 0;
    if (n->op == IR_REDUCE || n->op == IR_LISTCOMP) return *last = n, 1;
    int c = generators(n->a, last) + generators(n->b, last) + generators(n->c, last);
    for (int i = 0; i < n->nkids; i++) c += generators(n->kids[i], last);
    return c;
}

/* [P(j, sum(E for k in lo .. hi)) for j in L .. m] (or product); P is
 * often nothing: the element is the sum */
static bool comprehension_nest(struct ir_node *n, struct nest *x)
{
    if (n->par || n->filter || n->nclauses || !n->iter.is_range || n->iter.lo->op != IR_INT) return false;
    struct ir_node *e = NULL;
    if (generators(n->elem, &e) != 1) return false;
    if (e->op != IR_REDUCE || e->par || e->world || e->user || e->scan || e->key || e->filter || e->nclauses) return false;
    if (!e->iter.is_range || e->type != ty_float || (e->reducer != RED_SUM && e->reducer != RED_PRODUCT)) return false;
    struct ir_node *start = ir_mk_start(e->reducer, ty_float, e->loc);
    *x = (struct nest){.j = n->gen_var, .k = e->gen_var, .jlo = (int64_t)n->iter.lo->ival, .jlo_n = n->iter.lo,
                       .jhi = n->iter.hi, .klo = e->iter.lo, .khi = e->iter.hi, .elem = e->elem, .start = start,
                       .bop = e->reducer == RED_SUM ? OP_ADD : OP_MUL};
    if (ir_reads(x->klo, x->j) || ir_reads(x->khi, x->j)) return false;
    if (e != n->elem) {
        /* P: a copy of the element with the sum read as a variable */
        struct ir_node saved = *e;
        x->sum_var = fresh(n->gen_var, IRV_TEMP);
        x->sum_var->name = "";
        x->sum_var->type = ty_float;
        memset(e, 0, sizeof *e);
        e->op = IR_VAR;
        e->loc = saved.loc;
        e->type = ty_float;
        e->var = x->sum_var;
        x->outside = ir_copy(NULL, n->elem);
        *e = saved;
    }
    return nest_ok(x);
}

/* The variables n reads that it does not define, each once. */
static void reads_of(struct ir_node *n, struct nest *x, struct ir_var **vs, int *nvs)
{
    if (!n) return;
    if (n->op == IR_VAR && !is_loop_var(x, n->var)) {
        for (int i = 0; i < *nvs; i++)
            if (vs[i] == n->var) return;
        if (*nvs == MAX_RENAMES / 2) internal_error("accum: too many values read");
        vs[(*nvs)++] = n->var;
        return;
    }
    reads_of(n->a, x, vs, nvs);
    reads_of(n->b, x, vs, nvs);
    reads_of(n->c, x, vs, nvs);
    for (int i = 0; i < n->nkids; i++) reads_of(n->kids[i], x, vs, nvs);
    reads_of(n->elem, x, vs, nvs);
    reads_of(n->iter.lo, x, vs, nvs);
    reads_of(n->iter.hi, x, vs, nvs);
}

/* n becomes `GUARD ? row(values) : n as written`. */
static void rewrite_comprehension(struct ir_node *n, struct nest *x)
{
    struct ir_var *vs[MAX_RENAMES / 2];
    int nvs = 0;
    reads_of(n, x, vs, &nvs);
    struct ir_fn *g = arena_alloc(sizeof *g);
    *g = *F;
    g->cname = arena_printf("%s_row%d", F->cname, nrows++);
    g->ret = n->type;
    g->has_site = g->is_lambda = false;
    g->ncaps = 0;
    g->nparams = nvs;
    g->params = arena_alloc((size_t)(nvs ? nvs : 1) * sizeof *g->params);
    struct renames r = {{NULL, renamed, NULL}, {0}, {0}, 0, false};
    struct ir_node *call = ir_new(IR_CALL, n->loc, n->type);
    call->fn = g;
    for (int i = 0; i < nvs; i++) {
        g->params[i] = fresh(vs[i], IRV_PARAM);
        rename_add(&r, vs[i], g->params[i]);
        ir_push_kid(call, ir_mk_var(vs[i], n->loc));
    }
    struct ir_var *acc = fresh(x->j, IRV_TEMP);
    acc->name = "";
    acc->type = n->type;
    g->body = ir_new(IR_BLOCK, n->loc, ty_void);
    accumulate(x, g->body, acc, &r);
    if (x->outside) {
        /* for j: let sum = acc[j - L]; acc[j - L] = P */
        struct ir_var *j2 = fresh(x->j, IRV_LOCAL), *sv = fresh(x->sum_var, IRV_TEMP);
        rename_add(&r, x->j, j2);
        rename_add(&r, x->sum_var, sv);
        struct ir_node *body = ir_new(IR_BLOCK, n->loc, ty_void);
        ir_push_kid(body, ir_mk_stmt(IR_LET, sv, acc_at(x, acc, j2, n->loc), n->loc));
        struct ir_node *store = ir_mk_stmt(IR_STORE, acc, ir_copy(&r.k, x->outside), n->loc);
        ir_push_kid(store, acc_at(x, acc, j2, n->loc)->b);
        ir_push_kid(body, store);
        ir_push_kid(g->body, mk_for(j2, ir_copy(&r.k, x->jlo_n), ir_copy(&r.k, x->jhi), body));
    }
    ir_push_kid(g->body, ir_mk_stmt(IR_RETURN, NULL, ir_mk_var(acc, n->loc), n->loc));
    vec_push(&P->fns, g);

    struct ir_node *orig = ir_new(IR_LISTCOMP, n->loc, n->type);
    *orig = *n;
    struct ir_node *c = ir_new(IR_COND, n->loc, n->type);
    c->a = guard(x);
    c->versioned = true;
    c->b = call;
    c->c = orig;
    *n = *c;
}

/* ---- the walk ---------------------------------------------------------------------------- */

static void accum_stmt(struct ir_node *s);

static void accum_expr(struct ir_node *n)
{
    if (!n) return;
    struct nest x;
    if (n->op == IR_LISTCOMP && comprehension_nest(n, &x)) {
        rewrite_comprehension(n, &x);
        return;
    }
    accum_expr(n->a);
    accum_expr(n->b);
    accum_expr(n->c);
    for (int i = 0; i < n->nkids; i++) accum_expr(n->kids[i]);
    accum_expr(n->elem);
    accum_expr(n->filter);
    accum_expr(n->key);
    accum_expr(n->iter.lo);
    accum_expr(n->iter.hi);
    accum_expr(n->iter.array);
    for (int i = 0; i < n->nclauses; i++) {
        accum_expr(n->clauses[i].iter.lo);
        accum_expr(n->clauses[i].iter.hi);
        accum_expr(n->clauses[i].iter.array);
    }
}

static void accum_stmt(struct ir_node *s)
{
    if (!s) return;
    switch (s->sop) {
    case IR_BLOCK:
        for (int i = 0; i < s->nkids; i++) {
            struct nest x;
            struct ir_node *k = s->kids[i];
            if (k->op == IR_FOR_RANGE && statement_nest(k, &x)) s->kids[i] = rewrite_statement(k, &x);
            else if (k->op == IR_FOR_RANGE && element_nest(k, &x)) s->kids[i] = rewrite_element(k, &x);
            else accum_stmt(k);
        }
        return;
    case IR_IF:
        accum_expr(s->a);
        accum_stmt(s->b);
        accum_stmt(s->c);
        return;
    case IR_WHILE:
        accum_expr(s->a);
        accum_stmt(s->b);
        return;
    case IR_FOR_RANGE: case IR_FOR_ARRAY:
        accum_expr(s->iter.lo);
        accum_expr(s->iter.hi);
        accum_expr(s->iter.array);
        accum_stmt(s->b);
        return;
    case IR_LET: case IR_ASSIGN: case IR_PUSH: case IR_EXPR: case IR_RETURN:
        accum_expr(s->a);
        return;
    case IR_STORE:
        for (int i = 0; i < s->nkids; i++) accum_expr(s->kids[i]);
        accum_expr(s->a);
        return;
    case IR_UNIQUE: case IR_BREAK: case IR_CONTINUE: case IR_UNREACHABLE:
        return;
    }
}

void opt_accum(struct ir_program *ir)
{
    P = ir;
    int n = ir->fns.len; /* the row functions appended are rewritten already */
    for (int i = 0; i < n; i++) {
        F = ir->fns.items[i];
        accum_stmt(F->body);
    }
    P = NULL;
    F = NULL;
}
