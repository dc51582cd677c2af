/*
 * opt_expand.c: a fold over a row that an outer loop computes again in each
 * of its iterations, computed once per row before it, into a row of results
 * (scalar expansion of the fold's accumulator).
 *
 *   for i in ..:                              let l = len(a[0]) if 0 < len(a) else 0
 *       for j in lo..hi:                      if all(len(a[q]) == l for q in 0..len(a)):
 *           let u = a[i]                          let T = [unset] * len(a)
 *           let v = a[j]                          for r in max(lo, 0)..min(hi, len(a)):
 *           var uv = 0.0                              let v' = a[r]
 *           var vv = 0.0              =>              var vv' = 0.0
 *           for k in 0..len(u):                       for k' in 0..l: vv' += v'[k'] * v'[k']
 *               uv += u[k] * v[k]                     T[r] = vv'
 *               vv += v[k] * v[k]                 for i in ..:
 *           .. uv .. vv ..                            for j in lo..hi:
 *                                                         let u = a[i]; let v = a[j]; var uv = 0.0
 *                                                         let vv = T[j]
 *                                                         for k in 0..len(u): uv += u[k] * v[k]
 *                                                         .. uv .. vv ..
 *                                             else: the nest as written
 *
 * (cosine(a[i], a[j]) written in place: opt_fission.c already ran uu once
 * per i; vv, a function of a[j] alone, is the same in every iteration of i.)
 *
 * Taken for a range loop I (not par), a range loop J of its body (or of a
 * block or an if's branch in it: a comprehension of rows written as loops;
 * not par, its variable j not assigned, its lo or its hi a bound I does not
 * change, below), and a range loop L of J's body over lo..hi
 * (lo a literal at least 0, not ..=, its int variable not assigned), whose body
 * is lets and assignments: a group of its statements (opt_fission.c's
 * ir_fold_groups) is expanded when
 *   - it reads rows of one array a, each through a let of J's body before L,
 *     `let v = a[j]`, v assigned nowhere in I, and reads them only as
 *     v[k] (k L's variable) or len(v);
 *   - it cannot panic otherwise and has no effect (ir_pure_value: float
 *     arithmetic and math, comparisons, bit operations), reading besides
 *     only its own variables and variables I does not change (not I's,
 *     written nowhere in I, defined nowhere in it);
 *   - each variable it assigns is a let of J's body before L (an
 *     accumulator) whose value is such an expression without an index,
 *     named by nothing between the let and L nor by L's bounds, assigned by
 *     nothing after L;
 *   - hi is len(w), w a let of J's body before L or of I's body before
 *     the statement holding J, of
 *     a row b[e] (b an array I does not change, e anything), w assigned
 *     nowhere in I; or hi is a literal, a variable or len of a variable
 *     that I does not change. The guard's l is then hi, or (no such hi) the
 *     length of the first row of the first array named.
 * The guard tests that every row of every array named (a, and b) has length
 * l; it cannot panic (its indices are below the lengths).
 *
 * Why it keeps the meaning: where the guard holds, every row L's bound and
 * the group read has length l, so in the nest the group sums, from the same
 * start, the same values in the same order over 0..l (k in lo..l reads v[k]
 * inside v, no panic) as the row of results does for r = j: the same bits.
 * The group cannot panic and has no effect, so taking it out of L, and
 * running it once per row before I, also for rows the nest never reaches,
 * shows nowhere. Each read T[j] comes after J's own `let v = a[j]`, where j
 * is inside a (else that let panicked first, as written) and in J's range,
 * so inside the rows computed: max(lo, 0)..min(hi, len(a)), each of J's
 * bounds that is a literal, a variable or len of one that I does not change
 * evaluated again (the same value, no panic), one that I changes (j in
 * i..m) read as 0 or len(a); J with neither such a bound (j in i..i + 2:
 * a few rows of many) is not taken. Where the guard fails
 * (ragged rows) the nest runs as written: its panics where they were.
 *
 * The guard's if is `versioned` (as opt_accum.c's): the C emitter hides
 * its value from gcc's jump threading.
 */
#include "ir.h"

#include <string.h>

#define MAX_STMTS 31 /* statements of a body it looks at (ir_fold_groups' most) */
#define MAX_FOLDS 4  /* groups expanded in one nest */
#define MAX_ARRS 4   /* arrays whose rows the guard tests */
#define MAX_LOOPS 16 /* loops of I's body it looks at */

static struct ir_program *P;

/* A group of L's body expanded: L at J's body's index lat, J the loop
 * number jno of I's body (loops_of); the array a whose rows it reads; the
 * lets of J's body of those rows (rows) and of its accumulators (accs), by
 * index in J's body. */
struct fold {
    int jno, lat;
    unsigned group;
    struct ir_var *arr;
    int rows[MAX_STMTS], nrows;
    int accs[MAX_STMTS], nacc;
};

/* A nest I tried: the folds taken, the arrays whose rows the guard tests,
 * and the guard's length: a bound I does not change (len_bound), else the
 * length of arrs[0]'s first row. */
struct nest {
    struct ir_node *I;
    struct ir_node *Js[MAX_LOOPS]; /* I's body's loops (loops_of) */
    int nJs;
    int jno, jtop; /* the J tried: its number, and the index in I's body of the statement holding it */
    struct fold folds[MAX_FOLDS];
    int nfolds;
    struct ir_var *arrs[MAX_ARRS];
    int narrs;
    struct ir_node *len_bound;
};

/* Whether I cannot change v: not its variable, defined and written nowhere in it. */
static bool invariant(const struct ir_node *I, struct ir_var *v)
{
    return v != I->var && !ir_writes(I->b, v, true) && !ir_defines(I->b, v);
}

/* The index of the let of v in block b before index before, or -1. */
static int let_index(const struct ir_node *b, struct ir_var *v, int before)
{
    for (int t = 0; t < before && t < b->nkids; t++)
        if (b->kids[t]->op == IR_LET && b->kids[t]->var == v) return t;
    return -1;
}

/* Whether e is x[y] of variables x (an array of arrays) and y. */
static bool var_index(const struct ir_node *e)
{
    return e && e->op == IR_INDEX && e->a->op == IR_VAR && e->b->op == IR_VAR && e->a->type->kind == T_ARRAY &&
           e->a->type->elem->kind == T_ARRAY;
}

/* The loops statement s holds outside any loop (s itself, or in its
 * blocks and the branches of its ifs), in order, appended to Js (at most
 * MAX_LOOPS): a copy of s gives its copies in the same order. */
static void loops_of(struct ir_node *s, struct ir_node **Js, int *nJs)
{
    if (!s) return;
    if (s->op == IR_BLOCK) {
        for (int i = 0; i < s->nkids; i++) loops_of(s->kids[i], Js, nJs);
    } else if (s->op == IR_IF) {
        loops_of(s->b, Js, nJs);
        loops_of(s->c, Js, nJs);
    } else if ((s->op == IR_FOR_RANGE || s->op == IR_FOR_ARRAY || s->op == IR_WHILE) && *nJs < MAX_LOOPS) {
        Js[(*nJs)++] = s;
    }
}

/* ---- a group tried ------------------------------------------------------------- */

/* The group of L tried: J's body, L and its index, and what it reads. */
struct try {
    struct nest *n;
    struct ir_node *J, *L;
    int lat;
    unsigned group;
    struct fold f;
};

/* The index of the let of J's body before L copying the row a[j] that v
 * holds, a an array I does not change and v assigned nowhere in I; -1 if v
 * is no such row. */
static int row_let(struct try *t, struct ir_var *v)
{
    int at = let_index(t->J->b, v, t->lat);
    if (at < 0) return -1;
    struct ir_node *e = t->J->b->kids[at]->a;
    if (!var_index(e) || e->b->var != t->J->var || !invariant(t->n->I, e->a->var) || ir_writes(t->n->I->b, v, true))
        return -1;
    return at;
}

/* Whether v is a variable of the group: L's, or one its statements define
 * or assign. */
static bool own(struct try *t, struct ir_var *v)
{
    if (v == t->L->var) return true;
    for (int i = 0; i < t->L->b->nkids; i++)
        if ((t->group >> i & 1) && t->L->b->kids[i]->var == v) return true;
    return false;
}

/* A row the group reads: rows of one array only. */
static bool add_row(struct try *t, int at)
{
    struct ir_var *a = t->J->b->kids[at]->a->a->var;
    if (t->f.arr && t->f.arr != a) return false;
    t->f.arr = a;
    for (int i = 0; i < t->f.nrows; i++)
        if (t->f.rows[i] == at) return true;
    t->f.rows[t->f.nrows++] = at;
    return true;
}

/* ir_pure_value's reads that cannot panic: v[k] of a row v, k L's variable
 * (inside v where the guard holds). */
static bool row_inside(const struct ir_node *ix, const void *ctx)
{
    struct try *t = (struct try *)ctx;
    return ix->a->op == IR_VAR && ix->b->op == IR_VAR && ix->b->var == t->L->var && row_let(t, ix->a->var) >= 0;
}

/* Whether every variable e reads is the group's own, a row (read as v[k]
 * or len(v): the row recorded), or one I does not change. */
static bool reads_ok(struct try *t, const struct ir_node *e)
{
    if (!e) return true;
    if (e->op == IR_VAR) {
        if (own(t, e->var)) return true;
        int at = row_let(t, e->var);
        if (at >= 0) return add_row(t, at);
        return invariant(t->n->I, e->var);
    }
    if (e->op == IR_INDEX && e->a->op == IR_VAR && row_inside(e, t))
        return add_row(t, row_let(t, e->a->var)) && reads_ok(t, e->b);
    if (e->op == IR_BUILTIN && e->builtin == BI_LEN && e->nkids == 1 && e->kids[0]->op == IR_VAR &&
        row_let(t, e->kids[0]->var) >= 0)
        return add_row(t, row_let(t, e->kids[0]->var));
    if (e->op == IR_INDEX && e->a->op == IR_VAR && row_let(t, e->a->var) >= 0) return false; /* a row read otherwise */
    if (!reads_ok(t, e->a) || !reads_ok(t, e->b) || !reads_ok(t, e->c)) return false;
    for (int i = 0; i < e->nkids; i++)
        if (!reads_ok(t, e->kids[i])) return false;
    return true;
}

static bool no_index(const struct ir_node *ix, const void *ctx)
{
    return false;
}

/* Whether accumulator acc, assigned by the group, is a let of J's body
 * before L of a value that cannot panic nor read what I changes, named by
 * nothing between and by neither of L's bounds, assigned by nothing after L;
 * records it. */
static bool accumulator(struct try *t, struct ir_var *acc)
{
    struct ir_node *body = t->J->b;
    int at = let_index(body, acc, t->lat);
    if (at < 0 || !(acc->type == ty_float || acc->type == ty_int || acc->type == ty_bool)) return false;
    bool p = false;
    struct ir_node *init = body->kids[at]->a;
    if (!ir_pure_value(init, no_index, NULL, &p) || p || !reads_ok(t, init) || t->f.nrows) return false;
    if (ir_names(t->L->iter.lo, acc) || ir_names(t->L->iter.hi, acc)) return false;
    for (int u = at + 1; u < t->lat; u++)
        if (ir_names(body->kids[u], acc)) return false;
    for (int u = t->lat + 1; u < body->nkids; u++)
        if (ir_writes(body->kids[u], acc, true) || ir_defines(body->kids[u], acc)) return false;
    for (int i = 0; i < t->f.nacc; i++)
        if (t->f.accs[i] == at) return true;
    t->f.accs[t->f.nacc++] = at;
    return true;
}

/* Whether the group can be expanded (see the top); fills t->f. */
static bool group_expands(struct try *t)
{
    struct ir_node *lb = t->L->b;
    for (int i = 0; i < lb->nkids; i++) {
        if (!(t->group >> i & 1)) continue;
        struct ir_node *s = lb->kids[i];
        bool p = false;
        if (!ir_pure_value(s->a, row_inside, t, &p) || p || !reads_ok(t, s->a)) return false;
        if (s->op == IR_ASSIGN && let_index(lb, s->var, i) < 0) {
            int nrows = t->f.nrows;
            t->f.nrows = 0; /* accumulator(): the start reads no row */
            bool ok = accumulator(t, s->var);
            t->f.nrows = nrows;
            if (!ok) return false;
        }
    }
    return t->f.nrows > 0 && t->f.nacc > 0;
}

/* ---- the nest ------------------------------------------------------------------ */

static bool add_arr(struct nest *n, struct ir_var *a)
{
    for (int i = 0; i < n->narrs; i++)
        if (n->arrs[i] == a) return true;
    if (n->narrs == MAX_ARRS) return false;
    n->arrs[n->narrs++] = a;
    return true;
}

/* Whether L's bound hi is one the guard makes l (see the top): the row's
 * array or the bound recorded in n. */
static bool bound_ok(struct nest *n, struct ir_node *J, int lat, struct ir_node *hi)
{
    if (hi->op == IR_BUILTIN && hi->builtin == BI_LEN && hi->nkids == 1 && hi->kids[0]->op == IR_VAR) {
        struct ir_var *w = hi->kids[0]->var;
        struct ir_node *row = NULL;
        int at = let_index(J->b, w, lat);
        if (at >= 0) row = J->b->kids[at]->a;
        else if ((at = let_index(n->I->b, w, n->jtop)) >= 0) row = n->I->b->kids[at]->a;
        if (row && row->op == IR_INDEX && row->a->op == IR_VAR && row->a->type->elem->kind == T_ARRAY &&
            invariant(n->I, row->a->var) && !ir_writes(n->I->b, w, true))
            return add_arr(n, row->a->var);
    }
    if (!ir_repeatable(hi)) return false;
    struct ir_node *v = hi->op == IR_BUILTIN ? hi->kids[0] : hi;
    if (v->op == IR_VAR && !invariant(n->I, v->var)) return false;
    if (n->len_bound) return ir_same_term(n->len_bound, hi) || (hi->op == IR_BUILTIN && n->len_bound->op == IR_BUILTIN &&
                                                                n->len_bound->kids[0]->var == hi->kids[0]->var);
    n->len_bound = hi;
    return true;
}

/* The groups of L (J's body's statement lat) that expand, into n. */
static void try_loop(struct nest *n, struct ir_node *J, int lat)
{
    struct ir_node *L = J->b->kids[lat];
    unsigned groups[MAX_STMTS];
    int ng = L->op == IR_FOR_RANGE ? ir_fold_groups(L, groups) : 0;
    if (!ng || L->par || L->iter.inclusive || L->var->type != ty_int || L->iter.lo->op != IR_INT ||
        (__int128)L->iter.lo->ival < 0 || ir_writes(L->b, L->var, false))
        return;
    for (int g = 0; g < ng && n->nfolds < MAX_FOLDS; g++) {
        struct nest saved = *n;
        struct try t = {.n = n, .J = J, .L = L, .lat = lat, .group = groups[g]};
        t.f.jno = n->jno;
        t.f.lat = lat;
        t.f.group = groups[g];
        if (group_expands(&t) && bound_ok(n, J, lat, L->iter.hi) && add_arr(n, t.f.arr)) {
            n->folds[n->nfolds++] = t.f;
        } else {
            *n = saved;
        }
    }
}

/* ---- the rewrite --------------------------------------------------------------- */

static struct ir_node *index_of(struct ir_var *xs, struct ir_var *i, struct loc at)
{
    struct ir_node *x = ir_new(IR_INDEX, at, xs->type->elem);
    x->a = ir_mk_var(xs, at);
    x->b = ir_mk_var(i, at);
    return x;
}

/* min(x, y) or max(x, y) of ints */
static struct ir_node *min_max(enum builtin b, struct ir_node *x, struct ir_node *y)
{
    struct ir_node *m = ir_new(IR_BUILTIN, x->loc, ty_int);
    m->builtin = b;
    ir_push_kid(m, x);
    ir_push_kid(m, y);
    return m;
}

/* Whether J's bound e is the same value evaluated before I: a literal, or
 * a variable or len of one that I does not change. */
static bool fixed_bound(struct nest *n, struct ir_node *e)
{
    if (!ir_repeatable(e)) return false;
    struct ir_node *v = e->op == IR_BUILTIN ? e->kids[0] : e;
    return v->op != IR_VAR || invariant(n->I, v->var);
}

/* The rows the nest may read T[j] of: max(lo, 0)..min(hi, len(a)), where
 * a bound that I changes (fixed_bound) is 0 or len(a) instead. */
static void rows_range(struct nest *n, struct ir_node *J, struct ir_var *a, struct ir_iter *it)
{
    struct loc at = J->loc;
    struct ir_node *lo = J->iter.lo, *hi = J->iter.hi;
    *it = (struct ir_iter){.is_range = true, .lo = ir_mk_int(0, at), .hi = ir_mk_len(ir_mk_var(a, at))};
    if (fixed_bound(n, lo) && !(lo->op == IR_INT && (__int128)lo->ival <= 0))
        it->lo = lo->op == IR_INT ? ir_copy(NULL, lo) : min_max(BI_MAX2, ir_copy(NULL, lo), ir_mk_int(0, at));
    bool whole = hi->op == IR_BUILTIN && hi->kids[0]->op == IR_VAR && hi->kids[0]->var == a;
    if (!J->iter.inclusive && fixed_bound(n, hi) && !whole) it->hi = min_max(BI_MIN2, ir_copy(NULL, hi), it->hi);
}

/* Into out, fold f's rows of results: for each accumulator, `let T =
 * [unset] * len(a)`, then a copy (every variable it defines fresh) of
 * `for j in rows: let v = a[j] ..; var acc = start ..; for k in lo..l: the
 * group; T[j] = acc ..`; tables[i] is T of f's accumulator i. */
static void results(struct nest *n, struct fold *f, struct ir_var *l, struct ir_node *out, struct ir_var **tables)
{
    struct ir_node *J = n->Js[f->jno], *L = J->b->kids[f->lat], *jb = J->b;
    struct loc at = L->loc;
    struct ir_node *body = ir_new(IR_BLOCK, at, ty_void);
    for (int i = 0; i < f->nrows; i++) ir_push_kid(body, jb->kids[f->rows[i]]);
    for (int i = 0; i < f->nacc; i++) ir_push_kid(body, jb->kids[f->accs[i]]);
    struct ir_node *k = ir_copy(NULL, L);
    ir_filter_block(k->b, f->group, true);
    k->iter.hi = ir_mk_var(l, at);
    ir_push_kid(body, k);
    for (int i = 0; i < f->nacc; i++) {
        struct ir_var *acc = jb->kids[f->accs[i]]->var;
        tables[i] = ir_new_temp(P, type_array(acc->type), at);
        struct ir_node *init = ir_new(IR_BUILTIN, at, tables[i]->type);
        init->builtin = BI_UNSET;
        ir_push_kid(init, ir_mk_len(ir_mk_var(f->arr, at)));
        ir_push_kid(out, ir_mk_stmt(IR_LET, tables[i], init, at));
        struct ir_node *store = ir_mk_stmt(IR_STORE, tables[i], ir_mk_var(acc, at), at);
        ir_push_kid(store, ir_mk_var(J->var, at));
        ir_push_kid(body, store);
    }
    struct ir_node *loop = ir_new(IR_FOR_RANGE, at, ty_void);
    loop->var = J->var;
    rows_range(n, J, f->arr, &loop->iter);
    loop->b = body;
    ir_push_kid(out, ir_copy_fresh(P, loop));
}

/* In the copy I' of I: each fold's group out of its loop, each accumulator's
 * let moved to just before that loop and reading T[j]. */
static void reads_results(struct nest *n, struct ir_node *I2, struct ir_var *tables[MAX_FOLDS][MAX_STMTS])
{
    struct ir_node *Js[MAX_LOOPS];
    int nJs = 0;
    loops_of(I2->b, Js, &nJs);
    for (int no = 0; no < nJs; no++) {
        struct ir_node *J = Js[no], *jb = J->b;
        bool moved[MAX_STMTS + 1] = {false};
        bool any = false;
        for (int i = 0; i < n->nfolds; i++)
            if (n->folds[i].jno == no) {
                any = true;
                for (int a = 0; a < n->folds[i].nacc; a++) moved[n->folds[i].accs[a]] = true;
            }
        if (!any) continue;
        struct ir_node **kids = xmalloc((size_t)jb->nkids * sizeof *kids);
        int nk = 0;
        for (int t = 0; t < jb->nkids; t++) {
            struct ir_node *s = jb->kids[t];
            if (moved[t]) continue;
            unsigned taken = 0;
            for (int i = 0; i < n->nfolds; i++) {
                struct fold *f = &n->folds[i];
                if (f->jno != no || f->lat != t) continue;
                taken |= f->group;
                for (int a = 0; a < f->nacc; a++) {
                    struct ir_node *let = jb->kids[f->accs[a]];
                    kids[nk++] = ir_mk_stmt(IR_LET, let->var, index_of(tables[i][a], J->var, let->loc), let->loc);
                }
            }
            if (taken) ir_filter_block(s->b, taken, false);
            if (!taken || s->b->nkids) kids[nk++] = s;
        }
        jb->kids = kids;
        jb->nkids = nk;
    }
}

/* I with its folds expanded (n), versioned on the guard. */
static struct ir_node *expanded(struct nest *n)
{
    struct ir_node *I = n->I;
    struct loc at = I->loc;
    struct ir_node *out = ir_new(IR_BLOCK, at, ty_void), *fast = ir_new(IR_BLOCK, at, ty_void);
    struct ir_var *l = ir_new_temp(P, ty_int, at);
    struct ir_node *test;
    if (n->len_bound) {
        ir_push_kid(out, ir_mk_stmt(IR_LET, l, ir_copy(NULL, n->len_bound), at));
        test = ir_rows_of_length(P, ir_mk_var(n->arrs[0], at), l);
    } else {
        test = ir_rows_alike(P, out, ir_mk_var(n->arrs[0], at), l);
    }
    for (int i = 1; i < n->narrs; i++) test = ir_mk_and(test, ir_rows_of_length(P, ir_mk_var(n->arrs[i], at), l));

    struct ir_var *tables[MAX_FOLDS][MAX_STMTS];
    for (int i = 0; i < n->nfolds; i++) results(n, &n->folds[i], l, fast, tables[i]);
    struct ir_node *I2 = ir_copy_fresh(P, I);
    reads_results(n, I2, tables);
    ir_push_kid(fast, I2);

    struct ir_node *slow = ir_new(IR_BLOCK, at, ty_void);
    ir_push_kid(slow, I);
    struct ir_node *s = ir_new(IR_IF, at, ty_void);
    s->a = test;
    s->versioned = true;
    s->b = fast;
    s->c = slow;
    ir_push_kid(out, s);
    return out;
}

/* I rewritten, or NULL where no fold of it expands. */
static struct ir_node *expand_nest(struct ir_node *I)
{
    struct ir_node *ib = I->b;
    if (I->par || !ib || ib->op != IR_BLOCK) return NULL;
    struct nest n = {.I = I};
    for (n.jtop = 0; n.jtop < ib->nkids && n.nfolds < MAX_FOLDS; n.jtop++) {
        int first = n.nJs;
        loops_of(ib->kids[n.jtop], n.Js, &n.nJs);
        for (n.jno = first; n.jno < n.nJs && n.nfolds < MAX_FOLDS; n.jno++) {
            struct ir_node *J = n.Js[n.jno];
            if (J->op != IR_FOR_RANGE || J->par || J->var->type != ty_int || !J->b || J->b->op != IR_BLOCK ||
                J->b->nkids > MAX_STMTS || ir_writes(J->b, J->var, false))
                continue;
            /* a range of j that moves with i (j in i..i + 2) could be a few
             * rows of many: their sums are not computed for every row */
            if (!fixed_bound(&n, J->iter.lo) && !(fixed_bound(&n, J->iter.hi) && !J->iter.inclusive)) continue;
            for (int lat = 0; lat < J->b->nkids && n.nfolds < MAX_FOLDS; lat++) try_loop(&n, J, lat);
        }
    }
    return n.nfolds ? expanded(&n) : NULL;
}

/* The loops of block b, inner ones first. */
static void expand_block(struct ir_node *b)
{
    for (int i = 0; i < b->nkids; i++) ir_stmt_blocks(b->kids[i], expand_block);
    for (int i = 0; i < b->nkids; i++) {
        struct ir_node *r = b->kids[i]->op == IR_FOR_RANGE ? expand_nest(b->kids[i]) : NULL;
        if (r) b->kids[i] = r;
    }
}

void opt_expand(struct ir_program *ir)
{
    P = ir;
    for (int i = 0; i < ir->fns.len; i++) expand_block(((struct ir_fn *)ir->fns.items[i])->body);
    P = NULL;
}
