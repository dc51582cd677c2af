/*
 * opt_growth.c: bounded growth of int arrays' contents (run by pass
 * `relations`, first: the copies get their facts, guards and versions from
 * it and the passes after, each its own): a loop nest whose int adds
 * cannot overflow while its arrays' values stay below a bound tested once,
 * before the nest, is written twice,
 *
 *     if growth(S = trips, d, u, c0, scan xs ys):   versioned
 *         (a copy of the nest: those adds unchecked, no_overflow_in this if)
 *     else:
 *         (the nest as written: every check)
 *
 * Why it holds (a dynamic program: edit distance, LCS, DTW over a table or
 * two rows). Group G: the [int] and [[int]] variables the nest stores or
 * pushes into, and those assigned from them in it (a swap, `prev = cur`,
 * a row `let r = t[i]`); every other write of them in the nest is a new
 * array of bounded values (`[i]`, `[0] * n`). Let B be a bound on every
 * element of G: at nest entry c0, the largest of the static bounds of what
 * the arrays were made of before the nest (`[0] * n`, `[j for j in
 * 0..n]`, a loop storing `t[0][j] = j`: at most 2^57 for a length) and of
 * the values the nest's new arrays and absolute stores hold, or for an
 * array made elsewhere (a parameter) the largest element, scanned once;
 * an array some statement makes unset (opt_cover.c: its elements stored
 * before they are read) has none to scan and is left as written.
 * A walk of the nest in order bounds each int value by B + u (a load of
 * G: B; `x + k`, k in 0..K: B + u + K; min, max, if-else joins; a loop's
 * body walked until its variables' bounds settle, an accumulator never
 * settling: unbounded) or by an absolute static range. A store or push
 * into G of a value below B + u (u > 0) raises the largest element by at
 * most u: after S such stores B = c0 + d * S (d the largest u), S the sum
 * over those stores of the product of their loops' trip counts (evaluated
 * before the nest, without panicking: bounds of variables the nest does
 * not change; a lower bound may be the walk's static one). An add of a
 * value below B + u and one in 0..K then stays below c0 + d * S + u + K,
 * and not below INT64_MIN (k >= 0): the test is c0 + d * S + U <=
 * INT64_MAX, U the largest u + K, every scanned element at most INT64_MAX
 * - U - d * S. Where it fails, the nest as written runs: its panics where
 * and as the program has them. Subtraction, products, adds of two loads
 * stay checked; a break or continue, a while loop or a loop over an
 * array's values in the nest leave it alone. Inside a loop a nest scans
 * only rows, and only when it has a loop of its own: never a table per
 * entry. A nest whose only stores are counters (`a[j] + c`) of arrays of
 * known elements is left to opt_range.c, and a test whose adds the range
 * facts prove anyway is dropped after them (opt_growth_drop): the nest as
 * written alone.
 */
#include "ir.h"

#include <stdlib.h>
#include <string.h>

#define INF ((__int128)1 << 100)
#define LEN_MAX ((__int128)1 << 57)
#define SMALL ((__int128)1 << 62) /* an absolute bound folded into c0 at most this */

static struct ir_program *P;
static int DEPTH; /* loops around the statement the function's walk is at */

/* ---- static ranges of the function (outside the nest) ---- */

struct sr { __int128 lo, hi; };
static const struct sr SR_FULL = {-INF, INF};

static struct ir_node **DEF;  /* by var id: its let's value, or the loop defining it */
static unsigned char *ASSIGNED; /* by var id: assigned somewhere in the function */
static unsigned char *BUSY;
static __int128 *EUB, *ELB;   /* by var id: static bounds on an array's elements */
static unsigned char *EUB_OK;
static unsigned char *UNSET;  /* by var id: a let or assignment makes it unset (opt_cover.c): not scanned */

static struct sr sr_of(struct ir_node *e);

static struct sr sr_var(struct ir_var *v)
{
    struct ir_node *d = DEF[v->id];
    if (!d || ASSIGNED[v->id] || BUSY[v->id] || v->type != ty_int) return SR_FULL;
    BUSY[v->id] = 1;
    struct sr r = SR_FULL;
    if (d->op == IR_FOR_RANGE || d->op == IR_LISTCOMP || d->op == IR_REDUCE) {
        struct sr lo = sr_of(d->iter.lo), hi = sr_of(d->iter.hi);
        if (d->iter.is_range) r = (struct sr){lo.lo, d->iter.inclusive ? hi.hi : hi.hi - 1};
    } else {
        r = sr_of(d);
    }
    BUSY[v->id] = 0;
    return r;
}

static struct sr sr_of(struct ir_node *e)
{
    if (!e || e->type != ty_int) return SR_FULL;
    switch (e->op) {
    case IR_INT: return (struct sr){(int64_t)e->ival, (int64_t)e->ival};
    case IR_VAR: return sr_var(e->var);
    case IR_BUILTIN:
        if (e->builtin == BI_LEN) return (struct sr){0, LEN_MAX};
        if (e->builtin == BI_MIN2 || e->builtin == BI_MAX2) {
            struct sr a = sr_of(e->kids[0]), b = sr_of(e->kids[1]);
            if (e->builtin == BI_MIN2) return (struct sr){a.lo < b.lo ? a.lo : b.lo, a.hi < b.hi ? a.hi : b.hi};
            return (struct sr){a.lo > b.lo ? a.lo : b.lo, a.hi > b.hi ? a.hi : b.hi};
        }
        return SR_FULL;
    case IR_COND: {
        struct sr a = sr_of(e->b), b = sr_of(e->c);
        return (struct sr){a.lo < b.lo ? a.lo : b.lo, a.hi > b.hi ? a.hi : b.hi};
    }
    case IR_BINARY: {
        if (e->optype != ty_int) return SR_FULL;
        struct sr a = sr_of(e->a), b = sr_of(e->b);
        bool fa = a.lo > -INF && a.hi < INF, fb = b.lo > -INF && b.hi < INF;
        switch (e->bop) {
        case OP_ADD: return (struct sr){a.lo + b.lo, a.hi + b.hi};
        case OP_SUB: return (struct sr){a.lo - b.hi, a.hi - b.lo};
        case OP_MUL:
            if (fa && fb && a.lo >= 0 && b.lo >= 0 && a.hi < LEN_MAX * 8 && b.hi < LEN_MAX * 8)
                return (struct sr){a.lo * b.lo, a.hi * b.hi};
            return SR_FULL;
        case OP_MOD:
            if (e->b->op == IR_INT && (int64_t)e->b->ival > 0) {
                __int128 k = (int64_t)e->b->ival - 1;
                return (struct sr){a.lo >= 0 ? 0 : -k, a.hi < k ? (a.hi < 0 ? 0 : a.hi) : k};
            }
            return SR_FULL;
        case OP_DIV:
            if (e->b->op == IR_INT && (int64_t)e->b->ival > 0 && a.lo >= 0) return (struct sr){0, a.hi / (int64_t)e->b->ival};
            return SR_FULL;
        default: return SR_FULL;
        }
    }
    default: return SR_FULL;
    }
}

/* The static bound on the elements of array value e as made (a literal,
 * [x] * n, a comprehension, rows of those), or INF. */
static __int128 made_ub(struct ir_node *e)
{
    switch (e->op) {
    case IR_ARRAY: {
        __int128 m = -INF;
        for (int i = 0; i < e->nkids; i++) {
            __int128 h = e->kids[i]->type == ty_int ? sr_of(e->kids[i]).hi : made_ub(e->kids[i]);
            if (h > m) m = h;
        }
        return m;
    }
    case IR_BINARY:
        if (e->bop == OP_MUL && e->type->kind == T_ARRAY) return made_ub(e->a);
        return INF;
    case IR_LISTCOMP:
        if (e->nclauses || e->filter) return INF;
        return e->elem->type == ty_int ? sr_of(e->elem).hi : made_ub(e->elem);
    case IR_BUILTIN: return e->builtin == BI_UNSET ? -INF : INF; /* no element set: each stored before it is read */
    case IR_COND: {
        __int128 a = made_ub(e->b), b = made_ub(e->c);
        return a > b ? a : b;
    }
    default: return INF;
    }
}

/* The least element of array value e as made, alike (-INF: unknown). */
static __int128 made_lb(struct ir_node *e)
{
    switch (e->op) {
    case IR_ARRAY: {
        __int128 m = INF;
        for (int i = 0; i < e->nkids; i++) {
            __int128 l = e->kids[i]->type == ty_int ? sr_of(e->kids[i]).lo : made_lb(e->kids[i]);
            if (l < m) m = l;
        }
        return m;
    }
    case IR_BINARY: return e->bop == OP_MUL && e->type->kind == T_ARRAY ? made_lb(e->a) : -INF;
    case IR_LISTCOMP:
        if (e->nclauses || e->filter) return -INF;
        return e->elem->type == ty_int ? sr_of(e->elem).lo : made_lb(e->elem);
    case IR_BUILTIN: return e->builtin == BI_UNSET ? INF : -INF;
    case IR_COND: {
        __int128 a = made_lb(e->b), b = made_lb(e->c);
        return a < b ? a : b;
    }
    default: return -INF;
    }
}

static bool int_table(const struct type *t)
{
    return t->kind == T_ARRAY && (t->elem == ty_int || (t->elem->kind == T_ARRAY && t->elem->elem == ty_int));
}

/* ---- the walk of a nest ---- */

enum { V_TOP, V_ABS, V_REL };
struct val { int k; __int128 hi, lo; }; /* V_ABS: value <= hi; V_REL: value <= B + hi */
static const struct val TOP = {V_TOP, INF, -INF};

struct nest {
    struct ir_node *root;
    unsigned char *in_g;      /* by var id: in the group (arrays, tuples of them) */
    unsigned char *defined;   /* by var id: defined inside the nest */
    struct val *env;          /* by var id, where set[] */
    unsigned char *set;
    int *ids;                 /* the ids set, to clear */
    int nids, cap;
    bool fail, mark;          /* mark: the walk that marks (its bounds settled) */
    bool other;               /* a store into the group not a counter's (counter_add) */
    __int128 c0, d, u;
    struct ir_node *sum;      /* S: sum of products of trips */
    struct ir_node *trips[8], *loops[8]; /* the nest's loops around, outermost first */
    int ntrips;
    bool deep;                /* a loop inside the nest's loop */
    struct ir_node *iff;      /* what the marks name */
    int nmarked;
};
static struct nest N;
#define FAIL() (N.fail = true)

static void set_val(struct ir_var *v, struct val x)
{
    if (!N.set[v->id]) {
        N.set[v->id] = 1;
        VEC_GROW(N.ids, N.nids, N.cap);
        N.ids[N.nids++] = v->id;
    }
    N.env[v->id] = x;
}

static void fold_abs(__int128 hi)
{
    if (hi > SMALL) FAIL();
    else if (hi > N.c0) N.c0 = hi;
}

static struct val join(struct val a, struct val b)
{
    if (a.k == V_TOP || b.k == V_TOP) return TOP;
    struct val r = {a.k, a.hi > b.hi ? a.hi : b.hi, a.lo < b.lo ? a.lo : b.lo};
    if (a.k != b.k) { /* below max(B, A) + max(u, 0): A folded into c0 */
        struct val rel = a.k == V_REL ? a : b, ab = a.k == V_REL ? b : a;
        fold_abs(ab.hi);
        r.k = V_REL;
        r.hi = rel.hi > 0 ? rel.hi : 0;
    }
    return r;
}

static struct val abs_of(struct sr s)
{
    if (s.hi >= SMALL) return TOP;
    return (struct val){V_ABS, s.hi, s.lo};
}

/* The array variable an index path starts at (x[i], x[i][j]). */
static struct ir_var *root_of(struct ir_node *e)
{
    while (e->op == IR_INDEX) e = e->a;
    return e->op == IR_VAR ? e->var : NULL;
}

static struct val eval(struct ir_node *e);

static struct ir_var **VARS; /* by id */

/* A method changing a group array in e (only push and [grow unset] are the walk's). */
static void methods(struct ir_node *e)
{
    for (int id = 1; id <= P->nvars; id++)
        if (N.in_g[id] && VARS[id] && VARS[id]->type->kind == T_ARRAY && ir_mutates(e, VARS[id])) FAIL();
}

static void eval_kids(struct ir_node *e)
{
    if (e->op == IR_LISTCOMP || e->op == IR_REDUCE || e->op == IR_CALL || e->op == IR_CALLV || e->op == IR_FNVAL ||
        e->op == IR_GUARD_TEST) {
        methods(e);
        return;
    }
    if (e->op == IR_BUILTIN && builtin_mutates(e->builtin)) methods(e);
    if (e->a) eval(e->a);
    if (e->b) eval(e->b);
    if (e->c) eval(e->c);
    for (int i = 0; i < e->nkids; i++) eval(e->kids[i]);
}

static struct val eval(struct ir_node *e)
{
    if (!e || !ir_is_expr(e)) return TOP;
    if (e->op == IR_VAR && e->type == ty_int) {
        if (N.set[e->var->id]) return N.env[e->var->id];
        if (N.defined[e->var->id]) return TOP;
        return abs_of(sr_var(e->var));
    }
    if (e->op == IR_INT) return abs_of((struct sr){(int64_t)e->ival, (int64_t)e->ival});
    if (e->op == IR_INDEX && e->type == ty_int) {
        eval_kids(e);
        struct ir_var *r = root_of(e);
        if (r && N.in_g[r->id]) return (struct val){V_REL, 0, -INF};
        if (r && !N.defined[r->id] && EUB_OK[r->id] && !ir_writes(N.root, r, true)) return abs_of((struct sr){ELB[r->id], EUB[r->id]});
        return TOP;
    }
    if (e->op == IR_COND && e->type == ty_int) {
        eval(e->a);
        return join(eval(e->b), eval(e->c));
    }
    if (e->op == IR_BUILTIN && e->type == ty_int && (e->builtin == BI_MIN2 || e->builtin == BI_MAX2)) {
        struct val a = eval(e->kids[0]), b = eval(e->kids[1]);
        if (a.k == V_TOP || b.k == V_TOP) {
            if (e->builtin == BI_MAX2) return TOP;
            return a.k == V_TOP ? b : a; /* min: below either */
        }
        if (e->builtin == BI_MAX2) return join(a, b);
        struct val r = {a.k, a.hi < b.hi ? a.hi : b.hi, a.lo < b.lo ? a.lo : b.lo};
        if (a.k != b.k) r = a.k == V_ABS ? (struct val){V_ABS, a.hi, r.lo} : (struct val){V_ABS, b.hi, r.lo};
        return r;
    }
    if (e->op == IR_BUILTIN && e->builtin == BI_LEN) {
        eval_kids(e);
        return abs_of((struct sr){0, LEN_MAX});
    }
    if (e->op == IR_BINARY && e->optype == ty_int && e->type == ty_int) {
        struct val a = eval(e->a), b = eval(e->b);
        if (e->bop == OP_ADD) {
            if (a.k == V_TOP || b.k == V_TOP || (a.k == V_REL && b.k == V_REL)) return TOP;
            if (a.k == V_ABS && b.k == V_ABS) return abs_of((struct sr){a.lo + b.lo, a.hi + b.hi});
            struct val rel = a.k == V_REL ? a : b, k = a.k == V_REL ? b : a;
            struct val r = {V_REL, rel.hi + k.hi, rel.lo + k.lo};
            if (k.lo >= 0 && r.hi < SMALL) {
                if (N.mark && !e->no_overflow) {
                    e->no_overflow_in = N.iff;
                    N.nmarked++;
                }
                if (r.hi > N.u) N.u = r.hi;
            }
            if (r.hi >= SMALL) return TOP;
            return r;
        }
        if (e->bop == OP_SUB && b.k == V_ABS && b.lo > -INF && a.k != V_TOP) {
            struct val r = {a.k, a.hi - b.lo, a.lo - b.hi};
            if (r.hi >= SMALL) return TOP;
            return r;
        }
        if (e->bop == OP_MOD && e->b->op == IR_INT && (int64_t)e->b->ival > 0) { /* any x % k, k > 0 */
            __int128 k = (int64_t)e->b->ival - 1;
            return abs_of((struct sr){a.k == V_ABS && a.lo >= 0 ? 0 : -k, k});
        }
        if (a.k == V_ABS && b.k == V_ABS) return abs_of(sr_of(e)); /* static pieces alone */
        return TOP;
    }
    eval_kids(e);
    return TOP;
}

/* Whether array value e is one of the group's (a variable, a row, a
 * tuple's field). */
static bool group_value(struct ir_node *e)
{
    if (e->op == IR_VAR) return N.in_g[e->var->id];
    if (e->op == IR_INDEX) return group_value(e->a);
    if (e->op == IR_FIELD) return e->a->op == IR_VAR && N.in_g[e->a->var->id];
    return false;
}

/* A group variable (array or tuple) set to e. */
static void group_set(struct ir_node *e)
{
    if (group_value(e)) return;
    if (e->op == IR_TUPLE) {
        for (int i = 0; i < e->nkids; i++)
            if (!group_value(e->kids[i])) FAIL();
        return;
    }
    __int128 h = made_ub(e);
    if (e->op == IR_LISTCOMP || e->op == IR_ARRAY) {
        /* elements as the walk bounds them (a loop variable in them) */
        struct val v = e->op == IR_ARRAY && e->nkids == 1 && e->kids[0]->type == ty_int ? eval(e->kids[0]) : TOP;
        if (v.k == V_ABS && v.hi < h) h = v.hi;
    }
    if (h >= INF) FAIL();
    else fold_abs(h);
}

static void walk(struct ir_node *s);

static bool same_env(struct val *old, int n)
{
    for (int i = 0; i < n; i++) {
        struct val a = old[i], b = N.env[N.ids[i]];
        if (a.k != b.k || a.hi != b.hi || a.lo != b.lo) return false;
    }
    return true;
}

/* The trip count of range loop s, evaluated before the nest: hi of
 * variables the nest does not change, lo too or the walk's static bound;
 * NULL when none. */
static bool stable_expr(struct ir_node *e)
{
    switch (e->op) {
    case IR_INT: return true;
    case IR_VAR: return e->type == ty_int && !N.defined[e->var->id] && !ir_writes(N.root, e->var, false);
    case IR_BUILTIN:
        return e->builtin == BI_LEN && e->kids[0]->op == IR_VAR && !N.defined[e->kids[0]->var->id] &&
               !ir_writes(N.root, e->kids[0]->var, false);
    case IR_BINARY:
        return e->optype == ty_int && (e->bop == OP_ADD || e->bop == OP_SUB || e->bop == OP_MUL) && stable_expr(e->a) &&
               stable_expr(e->b);
    default: return false;
    }
}

/* A stable expression at least e (an int of the loops' variables): a
 * variable of a nest loop around by that loop's end, + and - of a stable
 * one; NULL when none. */
static struct ir_node *upper_expr(struct ir_node *e)
{
    if (stable_expr(e)) return ir_copy(NULL, e);
    if (e->op == IR_VAR)
        for (int i = N.ntrips - 1; i >= 0; i--) {
            struct ir_node *l = N.loops[i];
            if (l->var != e->var || ir_writes(l->b, l->var, false)) continue;
            struct ir_node *h = upper_expr(l->iter.hi);
            return h && l->iter.inclusive ? ir_mk_bin(OP_ADD, h, ir_mk_int(1, e->loc), ty_int) : h;
        }
    if (e->op == IR_BINARY && e->optype == ty_int && (e->bop == OP_ADD || e->bop == OP_SUB) && stable_expr(e->b)) {
        struct ir_node *a = upper_expr(e->a);
        return a ? ir_mk_bin(e->bop, a, ir_copy(NULL, e->b), ty_int) : NULL;
    }
    if (e->op == IR_BINARY && e->optype == ty_int && e->bop == OP_ADD && stable_expr(e->a)) {
        struct ir_node *b = upper_expr(e->b);
        return b ? ir_mk_bin(OP_ADD, ir_copy(NULL, e->a), b, ty_int) : NULL;
    }
    return NULL;
}

static struct ir_node *trips_of(struct ir_node *s, struct val lo, struct val hv)
{
    /* its end, or one at least it (a triangle, j in 0..i: i's end), or the
     * walk's static bound on it */
    struct ir_node *hi = upper_expr(s->iter.hi), *l;
    if (!hi) {
        if (hv.k != V_ABS || hv.hi >= ((__int128)1 << 40) || hv.hi < -((__int128)1 << 40)) return NULL;
        hi = ir_mk_int((int64_t)hv.hi, s->loc);
    }
    if (stable_expr(s->iter.lo)) l = ir_copy(NULL, s->iter.lo);
    else if (lo.lo > -INF && lo.lo >= INT64_MIN / 4 && lo.lo <= INT64_MAX / 4) l = ir_mk_int((int64_t)lo.lo, s->loc);
    else return NULL;
    struct ir_node *n = ir_mk_bin(OP_SUB, hi, l, ty_int);
    if (s->iter.inclusive) n = ir_mk_bin(OP_ADD, n, ir_mk_int(1, s->loc), ty_int);
    struct ir_node *m = ir_new(IR_BUILTIN, s->loc, ty_int);
    m->builtin = BI_MAX2;
    ir_push_kid(m, n);
    ir_push_kid(m, ir_mk_int(0, s->loc));
    return m;
}

/* A store or push into the group of value x, at the loops around. */
static void stored(struct val x)
{
    if (x.k == V_TOP) {
        FAIL();
    } else if (x.k == V_ABS) {
        fold_abs(x.hi);
    } else if (x.hi > 0) {
        if (x.hi > N.d) N.d = x.hi;
        if (!N.mark) return;
        struct ir_node *p = ir_mk_int(1, N.root->loc);
        for (int i = 0; i < N.ntrips; i++) p = i ? ir_mk_bin(OP_MUL, p, ir_copy(NULL, N.trips[i]), ty_int) : ir_copy(NULL, N.trips[i]);
        N.sum = N.sum ? ir_mk_bin(OP_ADD, N.sum, p, ty_int) : p;
    }
}

static void loop(struct ir_node *s)
{
    struct val lo = eval(s->iter.lo), hi = eval(s->iter.hi);
    if (s->op != IR_FOR_RANGE || !s->iter.is_range || N.ntrips == 8) {
        FAIL();
        return;
    }
    struct ir_node *t = trips_of(s, lo, hi);
    if (!t) {
        FAIL();
        return;
    }
    N.loops[N.ntrips] = s;
    N.trips[N.ntrips++] = t;
    if (N.ntrips > 1) N.deep = true;
    struct sr vr = {lo.k == V_TOP ? -INF : lo.lo, hi.k == V_ABS ? (s->iter.inclusive ? hi.hi : hi.hi - 1) : INF};
    bool mark = N.mark;
    N.mark = false;
    /* the body until its variables' bounds settle: start joined with the end */
    int n0 = N.nids;
    struct val *before = xmalloc(sizeof *before * (size_t)(N.cap + 1));
    for (int i = 0; i < N.nids; i++) before[i] = N.env[N.ids[i]];
    bool settled = false;
    for (int round = 0; round < 6 && !N.fail; round++) {
        set_val(s->var, abs_of(vr));
        int n = N.nids;
        struct val *start = xmalloc(sizeof *start * (size_t)(n + 1));
        for (int i = 0; i < n; i++) start[i] = N.env[N.ids[i]];
        walk(s->b);
        for (int i = 0; i < N.nids; i++) {
            int id = N.ids[i];
            if (id == s->var->id) { /* the loop's own variable: its range */
                N.env[id] = abs_of(vr);
                continue;
            }
            /* at the head: what it was before the loop, joined with the end */
            struct val b = i < n0 ? before[i] : N.defined[id] || !VARS[id] ? N.env[id] : abs_of(sr_var(VARS[id])), e = N.env[id];
            N.env[id] = round >= 4 && (i >= n || e.k != start[i].k || e.hi != start[i].hi || e.lo != start[i].lo) ? TOP : join(b, e);
        }
        bool same = N.nids == n && same_env(start, n);
        free(start);
        if (same) {
            settled = true;
            break;
        }
    }
    if (!settled) FAIL();
    if (!N.fail && mark) {
        N.mark = true;
        set_val(s->var, abs_of(vr));
        walk(s->b);
        for (int i = 0; i < N.nids; i++) {
            int id = N.ids[i];
            struct val b = i < n0 ? before[i] : N.defined[id] || !VARS[id] ? N.env[id] : abs_of(sr_var(VARS[id]));
            N.env[id] = join(b, N.env[id]);
        }
    }
    free(before);
    N.mark = mark;
    N.ntrips--;
}

static bool group_array(struct ir_var *v) { return N.in_g[v->id] && v->type->kind == T_ARRAY; }

/* `a[j] + c`, c a literal >= 0 or a let of one: opt_range.c's counter,
 * whose adds it proves where it knows the array's elements. */
static bool counter_add(struct ir_node *e)
{
    if (e->op != IR_BINARY || e->bop != OP_ADD) return false;
    struct ir_node *c = e->a->op == IR_INDEX ? e->b : e->a, *x = e->a->op == IR_INDEX ? e->a : e->b;
    if (x->op != IR_INDEX) return false;
    if (c->op == IR_VAR && DEF[c->var->id] && !ASSIGNED[c->var->id]) c = DEF[c->var->id];
    return c->op == IR_INT && (int64_t)c->ival >= 0;
}

static void walk(struct ir_node *s)
{
    if (!s || N.fail) return;
    switch (s->sop) {
    case IR_BLOCK:
        for (int i = 0; i < s->nkids; i++) walk(s->kids[i]);
        return;
    case IR_LET: case IR_ASSIGN:
        if (s->var->type == ty_int) set_val(s->var, eval(s->a));
        else if (N.in_g[s->var->id]) group_set(s->a);
        else eval(s->a);
        return;
    case IR_STORE: case IR_PUSH:
        for (int i = 0; i < s->nkids; i++) eval(s->kids[i]);
        if (group_array(s->var)) {
            int depth = s->var->type->elem == ty_int ? 1 : 2;
            if (s->nkids + (s->op == IR_PUSH) != depth || s->a->type != ty_int) FAIL();
            else stored(eval(s->a));
            if (depth != 1 || !counter_add(s->a)) N.other = true;
            return;
        }
        eval(s->a);
        return;
    case IR_EXPR:
        if (s->a->op == IR_BUILTIN && s->a->builtin == M_GROW_UNSET && s->a->kids[0]->op == IR_VAR) {
            /* slots not yet set, each stored before it is read (opt_fill.c) */
            for (int i = 1; i < s->a->nkids; i++) eval(s->a->kids[i]);
            return;
        }
        eval(s->a);
        return;
    case IR_UNIQUE: return;
    case IR_IF: {
        eval(s->a);
        int n = N.nids;
        struct val *start = xmalloc(sizeof *start * (size_t)(n + 1));
        for (int i = 0; i < n; i++) start[i] = N.env[N.ids[i]];
        walk(s->b);
        int nb = N.nids;
        struct val *after = xmalloc(sizeof *after * (size_t)(nb + 1));
        for (int i = 0; i < nb; i++) after[i] = N.env[N.ids[i]];
        for (int i = 0; i < n; i++) N.env[N.ids[i]] = start[i];
        for (int i = n; i < nb; i++) N.env[N.ids[i]] = TOP;
        walk(s->c);
        for (int i = 0; i < N.nids; i++) N.env[N.ids[i]] = join(i < nb ? after[i] : TOP, N.env[N.ids[i]]);
        free(start);
        free(after);
        return;
    }
    case IR_FOR_RANGE: loop(s); return;
    case IR_RETURN: eval(s->a); return;
    case IR_WHILE: case IR_FOR_ARRAY: case IR_BREAK: case IR_CONTINUE: case IR_UNREACHABLE:
        FAIL(); /* a trip count it cannot bound, an iteration that ends early */
        return;
    }
}

/* ---- the group: arrays stored or pushed into, and what they are assigned ---- */

static void defs(struct ir_node *n)
{
    if (!n) return;
    if ((n->op == IR_LET || n->op == IR_FOR_RANGE || n->op == IR_FOR_ARRAY) && n->var) N.defined[n->var->id] = 1;
    if ((n->op == IR_LISTCOMP || n->op == IR_REDUCE) && n->gen_var) N.defined[n->gen_var->id] = 1;
    ir_each_child(n, defs);
}

static bool grew;
static void group_of(struct ir_node *n)
{
    if (!n) return;
    if ((n->op == IR_STORE || n->op == IR_PUSH) && int_table(n->var->type) && !N.in_g[n->var->id])
        N.in_g[n->var->id] = 1, grew = true;
    if ((n->op == IR_LET || n->op == IR_ASSIGN) && n->var->type != ty_int) {
        struct ir_node *e = n->a;
        bool from = group_value(e);
        for (int i = 0; e->op == IR_TUPLE && i < e->nkids; i++) from |= group_value(e->kids[i]);
        bool into = N.in_g[n->var->id];
        if (from && !into) N.in_g[n->var->id] = 1, grew = true;
        /* the other way: an array assigned into the group is one of it */
        if (into && e->op == IR_VAR && !N.in_g[e->var->id]) N.in_g[e->var->id] = 1, grew = true;
        if (into && e->op == IR_FIELD && e->a->op == IR_VAR && !N.in_g[e->a->var->id]) N.in_g[e->a->var->id] = 1, grew = true;
        for (int i = 0; into && e->op == IR_TUPLE && i < e->nkids; i++)
            if (e->kids[i]->op == IR_VAR && !N.in_g[e->kids[i]->var->id]) N.in_g[e->kids[i]->var->id] = 1, grew = true;
    }
    ir_each_child(n, group_of);
}

static void note_vars(struct ir_node *n)
{
    if (!n) return;
    if (n->var) VARS[n->var->id] = n->var;
    if (n->gen_var) VARS[n->gen_var->id] = n->gen_var;
    ir_each_child(n, note_vars);
}

static void clear_nest(void)
{
    size_t sz = (size_t)P->nvars + 2;
    memset(N.in_g, 0, sz);
    memset(N.defined, 0, sz);
    for (int i = 0; i < N.nids; i++) N.set[N.ids[i]] = 0;
    N.nids = 0;
    N.fail = N.mark = N.other = false;
    N.c0 = -INF, N.d = 0, N.u = 0;
    N.sum = NULL, N.ntrips = 0, N.nmarked = 0, N.deep = false;
}

static bool Stores;
static void stores_table(struct ir_node *n)
{
    if (!n || Stores) return;
    if ((n->op == IR_STORE || n->op == IR_PUSH) && int_table(n->var->type)) Stores = true;
    ir_each_child(n, stores_table);
}

/* Analyse loop s: whether it is a nest of bounded growth (the group's
 * statics in EUB, else scanned). */
static bool analyse(struct ir_node *s, bool mark, struct ir_node *iff)
{
    Stores = false;
    stores_table(s);
    if (!Stores) return false;
    clear_nest();
    N.root = s;
    N.iff = iff;
    defs(s);
    do {
        grew = false;
        group_of(s);
    } while (grew);
    for (int id = 1; id <= P->nvars; id++) {
        if (!N.in_g[id] || !VARS[id]) continue;
        struct type *t = VARS[id]->type;
        if (!(int_table(t) || (t->kind == T_TUPLE))) return false;
        if (t->kind == T_TUPLE)
            for (int f = 0; f < t->nfields; f++)
                if (!int_table(t->fields[f])) return false;
    }
    N.mark = mark;
    walk(s);
    if (N.fail) return false;
    /* the start: statics, else a scan (arrays made before the nest) */
    for (int id = 1; id <= P->nvars; id++) {
        if (!N.in_g[id] || !VARS[id] || N.defined[id] || VARS[id]->type->kind != T_ARRAY) continue;
        if (EUB_OK[id]) fold_abs(EUB[id]);
        else if (UNSET[id]) return false; /* its unset elements are not ones to scan */
        if (N.fail) return false;
    }
    return true;
}

static struct ir_growth *growth_of(void)
{
    struct ir_growth *g = arena_alloc(sizeof *g);
    memset(g, 0, sizeof *g);
    g->trips = N.sum;
    g->d = (int64_t)N.d;
    g->u = (int64_t)N.u;
    g->c0 = N.c0 < INT64_MIN ? INT64_MIN : (int64_t)N.c0; /* below every int: none */
    for (int id = 1; id <= P->nvars; id++) {
        if (!N.in_g[id] || !VARS[id] || N.defined[id] || VARS[id]->type->kind != T_ARRAY || EUB_OK[id]) continue;
        g->scan = xrealloc(g->scan, sizeof *g->scan * (size_t)(g->nscan + 1));
        g->scan[g->nscan++] = VARS[id];
    }
    return g;
}

/* Loop *sp written as the versioned if of its growth test, where it pays
 * (an add left unchecked). */
static bool version(struct ir_node **sp)
{
    struct ir_node *s = *sp;
    /* a walk that marks nothing (no if yet) but counts the adds it would */
    if (!analyse(s, true, NULL) || !N.nmarked || N.u + N.c0 >= SMALL) return false;
    struct ir_growth *g = growth_of();
    if (!N.other && !g->nscan) return false; /* counters of arrays of known elements: opt_range.c's */
    /* inside a loop the scan runs each time the nest does: only of rows
     * ([int]) for a nest of two loops or more, never a table's */
    for (int i = 0; DEPTH && i < g->nscan; i++)
        if (g->scan[i]->type->elem != ty_int || !N.deep) return false;
    struct ir_node *iff = ir_new(IR_IF, s->loc, ty_void);
    size_t old = (size_t)P->nvars;
    struct ir_node *fast = ir_copy_fresh(P, s); /* its new variables: */
    VARS = xrealloc(VARS, sizeof *VARS * ((size_t)P->nvars + 2));
    DEF = xrealloc(DEF, sizeof *DEF * ((size_t)P->nvars + 2));
    ASSIGNED = xrealloc(ASSIGNED, (size_t)P->nvars + 2);
    BUSY = xrealloc(BUSY, (size_t)P->nvars + 2);
    EUB = xrealloc(EUB, sizeof *EUB * ((size_t)P->nvars + 2));
    ELB = xrealloc(ELB, sizeof *ELB * ((size_t)P->nvars + 2));
    EUB_OK = xrealloc(EUB_OK, (size_t)P->nvars + 2);
    UNSET = xrealloc(UNSET, (size_t)P->nvars + 2);
    N.in_g = xrealloc(N.in_g, (size_t)P->nvars + 2);
    N.defined = xrealloc(N.defined, (size_t)P->nvars + 2);
    N.set = xrealloc(N.set, (size_t)P->nvars + 2);
    N.env = xrealloc(N.env, sizeof *N.env * ((size_t)P->nvars + 2));
    for (size_t i = old + 1; i < (size_t)P->nvars + 2; i++)
        VARS[i] = NULL, DEF[i] = NULL, ASSIGNED[i] = 0, BUSY[i] = 0, EUB_OK[i] = 0, UNSET[i] = 0, N.set[i] = 0;
    note_vars(fast);
    if (!analyse(fast, true, iff) || !N.nmarked) return false; /* the copy dropped: s as it was */
    struct ir_node *t = ir_new(IR_GUARD_TEST, s->loc, ty_bool);
    t->growth = growth_of();
    iff->a = t, iff->b = fast, iff->c = s;
    iff->versioned = true;
    *sp = iff;
    return true;
}

/* ---- the function's statements in order: array statics, nests ---- */

/* Whether array value e is made with elements not yet set. */
static bool made_unset(const struct ir_node *e)
{
    if (!e) return false;
    if (e->op == IR_BUILTIN) return e->builtin == BI_UNSET;
    if (e->op == IR_COND) return made_unset(e->b) || made_unset(e->c);
    if (e->op == IR_LISTCOMP) return made_unset(e->elem);
    return false;
}

static void note_fn(struct ir_node *n)
{
    if (!n) return;
    if ((n->op == IR_LET || n->op == IR_ASSIGN) && !ir_is_expr(n) && n->var && n->var->type->kind == T_ARRAY &&
        made_unset(n->a))
        UNSET[n->var->id] = 1;
    if (n->op == IR_LET && n->var) DEF[n->var->id] = n->a;
    if (n->op == IR_FOR_RANGE && n->var) DEF[n->var->id] = n;
    if ((n->op == IR_LISTCOMP || n->op == IR_REDUCE) && n->gen_var && !n->nclauses) DEF[n->gen_var->id] = n;
    if (n->op == IR_ASSIGN && n->var) ASSIGNED[n->var->id] = 1;
    if (n->var) VARS[n->var->id] = n->var;
    if (n->gen_var) VARS[n->gen_var->id] = n->gen_var;
    ir_each_child(n, note_fn);
}

static int *LIVE; /* ids whose EUB holds, this block walk's */
static int NLIVE, CAPLIVE;

static void eub_set(struct ir_var *v, __int128 h, __int128 l)
{
    ELB[v->id] = l;
    if (h >= INF) {
        EUB_OK[v->id] = 0;
        return;
    }
    if (!EUB_OK[v->id]) {
        VEC_GROW(LIVE, NLIVE, CAPLIVE);
        LIVE[NLIVE++] = v->id;
    }
    EUB_OK[v->id] = 1;
    EUB[v->id] = h;
}

static void forget_written(struct ir_node *s)
{
    for (int i = 0; i < NLIVE; i++)
        if (EUB_OK[LIVE[i]] && VARS[LIVE[i]] && ir_writes(s, VARS[LIVE[i]], true)) EUB_OK[LIVE[i]] = 0;
}

static void block(struct ir_node *b);

/* A statement whose body runs again or apart: its blocks walked with no
 * statics from before. */
static void apart(struct ir_node *b, int loop)
{
    int mark = NLIVE;
    DEPTH += loop;
    unsigned char *saved = xmalloc((size_t)mark + 1);
    for (int i = 0; i < mark; i++) saved[i] = EUB_OK[LIVE[i]], EUB_OK[LIVE[i]] = 0;
    block(b);
    for (int i = mark; i < NLIVE; i++) EUB_OK[LIVE[i]] = 0;
    NLIVE = mark;
    for (int i = 0; i < mark; i++) EUB_OK[LIVE[i]] = saved[i];
    free(saved);
    DEPTH -= loop;
}

static void stmt(struct ir_node **sp)
{
    struct ir_node *s = *sp;
    switch (s->sop) {
    case IR_BLOCK: block(s); return;
    case IR_LET: case IR_ASSIGN:
        if (int_table(s->var->type)) {
            forget_written(s);
            eub_set(s->var, made_ub(s->a), made_lb(s->a));
            return;
        }
        forget_written(s);
        return;
    case IR_FOR_RANGE: {
        if (version(sp)) {
            forget_written(s);
            return;
        }
        /* a loop of absolute stores (`t[0][j] = j`): the arrays' statics grow */
        if (analyse(s, false, NULL) && N.d == 0 && !growth_of()->nscan) { /* every array's start known */
            __int128 c0 = N.c0;
            for (int i = 0; i < NLIVE; i++) {
                int id = LIVE[i];
                if (!EUB_OK[id] || !VARS[id] || !ir_writes(s, VARS[id], true)) continue;
                if (N.in_g[id] && !N.defined[id]) eub_set(VARS[id], c0 > EUB[id] ? c0 : EUB[id], -INF);
                else EUB_OK[id] = 0;
            }
            return;
        }
        forget_written(s);
        apart(s->b, 1);
        return;
    }
    case IR_WHILE: case IR_FOR_ARRAY:
        forget_written(s);
        apart(s->b, 1);
        return;
    case IR_IF:
        forget_written(s);
        apart(s->b, 0);
        if (s->c) apart(s->c, 0);
        return;
    case IR_STORE: case IR_PUSH: case IR_EXPR: case IR_UNIQUE: case IR_BREAK: case IR_CONTINUE: case IR_RETURN:
    case IR_UNREACHABLE:
        forget_written(s);
        return;
    }
}

static void block(struct ir_node *b)
{
    if (!b) return;
    if (b->op != IR_BLOCK) {
        stmt(&b);
        return;
    }
    for (int i = 0; i < b->nkids; i++) stmt(&b->kids[i]);
}

void opt_growth(struct ir_program *ir)
{
    P = ir;
    for (int i = 0; i < ir->fns.len; i++) {
        struct ir_fn *f = ir->fns.items[i];
        size_t n = (size_t)ir->nvars + 2;
        DEF = xmalloc(sizeof *DEF * n);
        memset(DEF, 0, sizeof *DEF * n);
        VARS = xmalloc(sizeof *VARS * n);
        memset(VARS, 0, sizeof *VARS * n);
        ASSIGNED = xmalloc(n);
        memset(ASSIGNED, 0, n);
        BUSY = xmalloc(n);
        memset(BUSY, 0, n);
        EUB = xmalloc(sizeof *EUB * n);
        ELB = xmalloc(sizeof *ELB * n);
        EUB_OK = xmalloc(n);
        memset(EUB_OK, 0, n);
        UNSET = xmalloc(n);
        memset(UNSET, 0, n);
        N.in_g = xmalloc(n);
        N.defined = xmalloc(n);
        N.set = xmalloc(n);
        memset(N.set, 0, n);
        N.env = xmalloc(sizeof *N.env * n);
        N.nids = 0;
        for (int k = 0; k < f->nparams; k++) VARS[f->params[k]->id] = f->params[k];
        note_fn(f->body);
        NLIVE = 0;
        block(f->body);
        free(DEF), free(VARS), free(ASSIGNED), free(BUSY), free(EUB), free(ELB), free(EUB_OK), free(UNSET);
        free(N.in_g), free(N.defined), free(N.set), free(N.env);
    }
    free(LIVE), LIVE = NULL, NLIVE = CAPLIVE = 0;
    free(N.ids), N.ids = NULL, N.cap = 0;
    P = NULL;
}

/* ---- after opt_range.c: a test that proves nothing more is dropped ---- */

static struct ir_node *Drop_if;
static bool Needed;

static void needed(struct ir_node *n)
{
    if (!n || Needed) return;
    if (n->no_overflow_in == Drop_if && !n->no_overflow) Needed = true;
    ir_each_child(n, needed);
}

/* Whether growth if s still proves an add the range facts do not. */
static bool pays(struct ir_node *s)
{
    Drop_if = s, Needed = false;
    needed(s->b);
    return Needed;
}

static void drop_in(struct ir_node *n);

static struct ir_node *dropped(struct ir_node *k)
{
    while (k && k->op == IR_IF && k->a->op == IR_GUARD_TEST && k->a->growth && !pays(k)) k = k->c;
    return k;
}

static void drop_in(struct ir_node *n)
{
    if (!n || ir_is_expr(n)) return;
    n->b = dropped(n->b);
    n->c = dropped(n->c);
    for (int i = 0; i < n->nkids; i++) n->kids[i] = dropped(n->kids[i]);
    drop_in(n->b);
    drop_in(n->c);
    for (int i = 0; i < n->nkids; i++) drop_in(n->kids[i]);
}

void opt_growth_drop(struct ir_program *ir)
{
    for (int i = 0; i < ir->fns.len; i++) drop_in(((struct ir_fn *)ir->fns.items[i])->body);
}
