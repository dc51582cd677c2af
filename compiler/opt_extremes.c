/*
 * opt_extremes.c: a loop that only keeps a running least or greatest value
 * written as the fold it is, from that value (pass `extremes`).
 *
 *     for i in lo..hi:                      m = reduce(max, m, abs(a[i] - b[i]) for i in lo..hi)
 *         let d = abs(a[i] - b[i])    =>
 *         if d > m:                         (max: the built-in max(l, r), r only if r > l)
 *             m = d
 *
 * The loop: a sequential range loop, or a loop over an array's elements,
 * whose body is lets, then one update of a variable m of int, u64 or
 * float: `m = max(m, X)` / `m = min(m, X)`, or `if X > m: m = X` (also
 * `m < X`; min: `X < m`, `m > X`) with the same X in the test and the
 * assignment, no else. X and the lets read no m, hold no loop, call or
 * comprehension, and each let is read exactly once, by X or a later let:
 * X with the lets written in is the element, and evaluating it once per
 * iteration evaluates what the loop did, in the same order (at most one
 * let that may panic, so no two panics change places).
 *
 * Why it keeps the program's meaning: `if X > m: m = X` is max(m, X)
 * (max(a, b) is b only if b > a), so the loop computes
 * max(...max(max(m, x0), x1)..., xn), which is the sequential reduce from
 * start m, over the same elements in the same order: the same bits, a NaN
 * and a tie of zeros included, and m itself for an empty range. A panic in
 * an element happens at the same element, before m changes further, and m
 * is not seen after it (the panic ends the program).
 *
 * A body with work enough for the pool (ir_par_work at least FOLD_WORK)
 * is left to parfor, which runs such a loop on the pool as a fold loop
 * (each chunk its own extreme, met in order); its `if X > m: m = X` is
 * written `m = max(m, X)`, the form parfor's folds take (X evaluated once
 * stands for its two evaluations: it does nothing).
 *
 * Why: the loop is one chain of compares, an element per compare's latency;
 * as a fold whose combine is max or min, the C emitter runs it in lanes
 * (emit_seqlanes.c), as it does `max(gen)`, with the start where the first
 * element was.
 */
#include "ir.h"

#include <string.h>

enum { MAX_LETS = 8 };

static struct ir_program *P;

/* The statements of a body, lets then the update, through nested blocks:
 * their count, or -1 for anything else. */
static int flatten(struct ir_node *b, struct ir_node **out, int n)
{
    for (int k = 0; k < b->nkids; k++) {
        struct ir_node *s = b->kids[k];
        if (s->op == IR_BLOCK) {
            n = flatten(s, out, n);
            if (n < 0) return -1;
            continue;
        }
        if (n == MAX_LETS + 1) return -1;
        out[n++] = s;
    }
    return n;
}

static bool is_var(const struct ir_node *n, const struct ir_var *v)
{
    return n->op == IR_VAR && n->var == v;
}

/* The update's variable, its reducer (RED_MIN / RED_MAX) and X, or NULL. */
static struct ir_var *update(struct ir_node *s, enum reducer *red, struct ir_node **x)
{
    if (s->op == IR_ASSIGN && s->a->op == IR_BUILTIN && (s->a->builtin == BI_MAX2 || s->a->builtin == BI_MIN2) &&
        s->a->nkids == 2 && is_var(s->a->kids[0], s->var)) {
        *red = s->a->builtin == BI_MAX2 ? RED_MAX : RED_MIN;
        *x = s->a->kids[1];
        return s->var;
    }
    if (s->op != IR_IF || s->c || s->a->op != IR_BINARY || (s->a->bop != OP_GT && s->a->bop != OP_LT)) return NULL;
    struct ir_node *set = ir_only_stmt(s->b), *t = s->a;
    if (!set || set->op != IR_ASSIGN) return NULL;
    struct ir_var *m = set->var;
    bool greater;
    if (is_var(t->b, m)) *x = t->a, greater = t->bop == OP_GT;      /* X > m, X < m */
    else if (is_var(t->a, m)) *x = t->b, greater = t->bop == OP_LT; /* m < X, m > X */
    else return NULL;
    /* the same X assigned: one evaluation stands for two, so X does nothing */
    if (!ir_same_expr(*x, set->a, IR_SAME_ARITH | IR_SAME_BUILTIN1 | IR_SAME_LOADS | IR_SAME_CONV)) return NULL;
    *red = greater ? RED_MAX : RED_MIN;
    return m;
}

struct inlet {
    struct ir_copier k; /* first: the hook gets it */
    struct ir_node **lets;
    int nlets, reads[MAX_LETS];
};

/* A read of a let's variable is (a copy of) its value, itself written in. */
static struct ir_node *let_read(struct ir_copier *k, const struct ir_node *n)
{
    struct inlet *w = (struct inlet *)k;
    for (int i = 0; i < w->nlets; i++)
        if (w->lets[i]->var == n->var) {
            w->reads[i]++;
            return ir_copy(k, w->lets[i]->a);
        }
    return NULL;
}

static bool number(struct type *t)
{
    return t == ty_int || t == ty_u64 || t == ty_float;
}

/* Loop s as `m = reduce(max, m, X for v in iter)`, or NULL. */
static struct ir_node *as_fold(struct ir_node *s)
{
    if ((s->op != IR_FOR_RANGE && s->op != IR_FOR_ARRAY) || s->par || s->nguards || !s->b) return NULL;
    if (s->op == IR_FOR_ARRAY && ir_range_values(s)) return NULL; /* its values computed one by one */
    struct ir_node *st[MAX_LETS + 1];
    int n = flatten(s->b, st, 0);
    if (n < 1) return NULL;
    enum reducer red;
    struct ir_node *x;
    struct ir_var *m = update(st[n - 1], &red, &x);
    if (!m || !number(m->type) || m == s->var || x->type != m->type) return NULL;
    if (ir_par_work(s->b) >= FOLD_WORK) {
        struct ir_node *u = st[n - 1];
        if (u->op == IR_IF) { /* written as parfor's fold takes it: m = max(m, X) */
            struct loc at = u->loc;
            struct ir_node *step = ir_new(IR_BUILTIN, at, m->type);
            step->builtin = red == RED_MAX ? BI_MAX2 : BI_MIN2;
            ir_push_kid(step, ir_mk_var(m, at));
            ir_push_kid(step, x);
            memset(u, 0, sizeof *u);
            u->op = IR_ASSIGN, u->loc = at, u->type = ty_void, u->var = m, u->a = step;
        }
        return NULL;
    }
    if (ir_loops_or_calls(x) || ir_reads(x, m)) return NULL;
    int risky = 0;
    for (int i = 0; i < n - 1; i++) {
        struct ir_node *l = st[i];
        if (l->op != IR_LET || l->var == m || ir_loops_or_calls(l->a) || ir_reads(l->a, m)) return NULL;
        if (!ir_quiet(l->a, 0, NULL, NULL)) risky++;
    }
    if (risky > 1 || (risky && !ir_quiet(x, 0, NULL, NULL) && x->op != IR_VAR)) return NULL;
    struct inlet w = {{let_read, NULL, NULL}, st, n - 1, {0}};
    struct ir_node *elem = ir_copy(&w.k, x);
    for (int i = 0; i < n - 1; i++)
        if (w.reads[i] != 1) return NULL; /* unread: its panic would go; read twice: its work twice */
    struct loc at = s->loc;
    struct ir_node *r = ir_new(IR_REDUCE, at, m->type);
    r->user = true;
    r->reducer = red;
    r->a = ir_mk_var(m, at);
    r->comb_l = ir_new_temp(P, m->type, at);
    r->comb_r = ir_new_temp(P, m->type, at);
    r->c = ir_new(IR_BUILTIN, at, m->type);
    r->c->builtin = red == RED_MAX ? BI_MAX2 : BI_MIN2;
    ir_push_kid(r->c, ir_mk_var(r->comb_l, at));
    ir_push_kid(r->c, ir_mk_var(r->comb_r, at));
    r->iter = s->iter;
    r->gen_var = s->var;
    r->elem = elem;
    r->elem_type = m->type;
    ir_free_vars(r, &r->caps, &r->ncaps);
    return ir_mk_stmt(IR_ASSIGN, m, r, at);
}

static void extremes_block(struct ir_node *b)
{
    for (int k = 0; k < b->nkids; k++) {
        struct ir_node *s = b->kids[k];
        ir_stmt_blocks(s, extremes_block);
        struct ir_node *f = as_fold(s);
        if (f) b->kids[k] = f;
    }
}

void opt_extremes(struct ir_program *ir)
{
    P = ir;
    for (int i = 0; i < ir->fns.len; i++) ir_stmt_blocks(((struct ir_fn *)ir->fns.items[i])->body, extremes_block);
    P = NULL;
}
