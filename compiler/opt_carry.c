/*
 * opt_carry.c: an element a loop stores and reads back in its next
 * iteration kept in a local (the pass `carry`), as gcc's predictive
 * commoning does where it knows the arrays apart.
 *
 *   for i in 1..n:                        var t = 0.0; var has = false
 *       let m = b[i] - a[i] * cp[i - 1]   for i in 1..n:
 *       cp[i] = c[i] / m           =>         let m = b[i] - a[i] * (t if has else cp[i - 1])
 *                                             let w = c[i] / m
 *                                             cp[i] = w
 *                                             t = w
 *                                             has = true
 *
 * A recurrence through an array (a forward sweep, a back substitution, a
 * prefix sum written `s[i] = s[i - 1] + x[i]`, a first-order filter) reads
 * in iteration i what iteration i - 1 stored. In C the read is a load after
 * the previous iteration's store: the store-to-load forwarding (about five
 * cycles) lies on the recurrence's critical path, since gcc cannot tell the
 * other arrays' stores from this one's (restrict on a local pointer does
 * not tell it). Brine knows: the array is a local that nothing else in the
 * loop stores into, resizes or assigns, so the element read at i - step is
 * the value the last iteration stored, kept in t.
 *
 * A flat table t[i * w + j] is the same store: its index X + v then
 * literals, X a term the loop keeps (index_of), a read carried only
 * with the same X.
 *
 * Which loops: a sequential range loop, or a loop over range(lo, hi, step)
 * with a literal step (its variable goes by step each iteration), no
 * `continue` of it (every iteration that goes on reaches the store), not
 * fused (fuseloops' unfused branch), not part of a swapped, jammed or
 * hoisting nest. Which stores: a statement of the body itself (run by each
 * iteration that goes on) `A[i + c] = E`, or `A[r][i + c] = E` along a row
 * the loop keeps (r made of literals and variables the body does not
 * assign: fixed_row), of an int or a float, A an array that nothing else
 * in the body writes (ir_writes: no other store, push,
 * assignment or method changing it). Which reads: `A[i + c - k * step]`, k
 * iterations back (1 .. MAX_BACK: x[i - 2] of a Fibonacci loop), in the
 * statements before the store and in E, outside a generator or a function
 * value; a read after the store stays a read (t holds the new element).
 *
 * Exactness: the first k iterations read the element k back as written
 * (has_k is false): the same check, the same panic. A later one reads t_k,
 * the value the element holds: the iteration k back stored it (its index
 * was checked then) and nothing changed it since (the iterations between
 * stored other elements), so that read could not panic and gives t_k. A
 * read one iteration back is marked first_read: opt_version.c reads its
 * element before the fast copy, where the guard proves it, and drops the
 * flag there (first_reads). E
 * is evaluated into w before the store, as the store evaluates its value
 * before its index. The bits are the same.
 */
#include "ir.h"

static struct ir_program *P;

/* The most a carried index's offset or a loop's step may be, either way:
 * c - k * step (k up to MAX_BACK) stays far from overflow. */
#define SMALL ((int64_t)1 << 31)

/* An index `v + c` (ir_var_plus: v plus or minus literals), c small: c. */
static bool offset_of(const struct ir_node *e, const struct ir_var *v, int64_t *c)
{
    struct ir_var *x;
    return ir_var_plus(e, &x, c) && x == v && *c > -SMALL && *c < SMALL;
}

/* The step of loop l's variable, 0 when it is no loop this pass takes. */
static int64_t step_of(const struct ir_node *l)
{
    if (l->par || l->swap || l->jam || l->guards_outside || l->unfused) return 0;
    if (l->op == IR_FOR_RANGE) return 1;
    if (!ir_range_values(l)) return 0;
    const struct ir_node *r = l->iter.array;
    struct ir_var *x;
    int64_t step;
    if (r->nkids < 3) return 1;
    return ir_var_plus(r->kids[2], &x, &step) && !x && step > -SMALL && step < SMALL ? step : 0;
}

/* Whether n holds a `continue` of the loop whose body it is in (depth 0). */
static bool continues(const struct ir_node *n, int depth)
{
    if (!n || ir_is_expr(n)) return false;
    switch (n->sop) {
    case IR_CONTINUE: return depth == 0;
    case IR_BLOCK:
        for (int i = 0; i < n->nkids; i++)
            if (continues(n->kids[i], depth)) return true;
        return false;
    case IR_IF: return continues(n->b, depth) || continues(n->c, depth);
    case IR_WHILE: case IR_FOR_RANGE: case IR_FOR_ARRAY: return continues(n->b, depth + 1);
    default: return false;
    }
}

/* Whether row index k is the same row in every iteration of the loop
 * over v whose body is b: literals and variables b does not assign (not
 * v), + - * of them. Evaluated again it gives the same value, or the same
 * panic, which the store's own evaluation of it met an iteration before. */
static bool fixed_row(const struct ir_node *k, struct ir_var *v, struct ir_node *b)
{
    if (k->type != ty_int) return false;
    switch (k->op) {
    case IR_INT: return true;
    case IR_VAR: return k->var != v && !ir_writes(b, k->var, false);
    case IR_BINARY:
        return (k->bop == OP_ADD || k->bop == OP_SUB || k->bop == OP_MUL) && fixed_row(k->a, v, b) && fixed_row(k->b, v, b);
    default: return false;
    }
}

/* An index `v + c`, or `X + v` then literals (`X + v + c`: X a term the
 * loop keeps, fixed_row, as the row base i * w of a flat table's
 * t[i * w + j - 1]), c small: c, and X in x (NULL: none). The read's
 * partial sums X + v, X + v + the first literals lie within 2^33 of an
 * index the store checked in bounds k iterations before, so they cannot
 * overflow where the store's did not. */
static bool index_of(const struct ir_node *e, struct ir_var *v, struct ir_node *b, const struct ir_node **x, int64_t *c)
{
    *x = NULL;
    if (offset_of(e, v, c)) return true;
    int64_t k = 0;
    for (int depth = 0; depth < 4 && e->op == IR_BINARY && e->optype == ty_int && (e->bop == OP_ADD || e->bop == OP_SUB) &&
                        e->b->op == IR_INT;
         depth++) {
        int64_t lit = (int64_t)(uint64_t)e->b->ival;
        if (lit <= -SMALL || lit >= SMALL) return false;
        k += e->bop == OP_SUB ? -lit : lit;
        e = e->a;
    }
    if (e->op != IR_BINARY || e->optype != ty_int || e->bop != OP_ADD) return false;
    const struct ir_node *p = e->a, *q = e->b;
    if (p->op == IR_VAR && p->var == v) p = e->b, q = e->a;
    if (q->op != IR_VAR || q->var != v || !fixed_row(p, v, b)) return false;
    *x = p;
    *c = k;
    return true;
}

/* The read being replaced: the element of the store's row (A, or
 * A[k0]..[km] along the store's own row indices) at v + want, and the
 * locals that replace it (dry: only counted). */
static struct {
    struct ir_node *store, *body;
    const struct ir_node *base;
    struct ir_var *v, *t, *has;
    int64_t want;
    int count;
    bool dry, first; /* first: the read one iteration back (has[1]) */
} R;

/* Whether index node n's array is the store's row: A, or A[k0]..[km]
 * with the store's own row indices (the same terms). */
static bool store_row(const struct ir_node *n, const struct ir_node *store)
{
    const struct ir_node *r = n->a;
    for (int i = store->nkids - 2; i >= 0; i--) {
        if (r->op != IR_INDEX || r->slot || !ir_same_term(r->b, store->kids[i])) return false;
        r = r->a;
    }
    return r->op == IR_VAR && r->var == store->var;
}

/* Each read A[v + want] in n (not inside a generator or a function value)
 * becomes `t if has else A[v + want]`, the read itself kept as the else. */
static void carry_reads(struct ir_node *n)
{
    if (!n || n->op == IR_LISTCOMP || n->op == IR_REDUCE || n->op == IR_FNVAL) return;
    ir_each_child(n, carry_reads);
    int64_t c;
    const struct ir_node *x;
    if (n->op != IR_INDEX || n->slot || !index_of(n->b, R.v, R.body, &x, &c) || c != R.want || !store_row(n, R.store)) return;
    if (!x != !R.base || (x && !ir_same_term(x, R.base))) return;
    R.count++;
    if (R.dry) return;
    struct ir_node *read = ir_new(IR_INDEX, n->loc, n->type);
    *read = *n;
    struct ir_node *cond = ir_new(IR_COND, n->loc, n->type);
    cond->a = ir_mk_var(R.has, n->loc);
    cond->b = ir_mk_var(R.t, n->loc);
    cond->c = read;
    cond->first_read = R.first;
    *n = *cond;
}

/* The most iterations back a carried element is read from: x[i - 1],
 * x[i - 2] and x[i - 3] of a store x[i] (a third-order recurrence). */
#define MAX_BACK 3

/* Whether statement s of body b is a store this pass carries in loop l:
 * `A[v + c] = E` or `A[k0]..[km][v + c] = E` (rows the loop keeps:
 * fixed_row), its element an int or a float, A written by nothing else in
 * b; how many iterations back (1 .. MAX_BACK) its elements are read, at
 * v + c - k * step for k up to that, before it or in E; 0: none. */
static int carried_store(struct ir_node *b, int at, struct ir_var *v, int64_t step, int64_t *c)
{
    struct ir_node *s = b->kids[at];
    if (s->op != IR_STORE || s->nkids < 1 || s->slot || (s->a->type != ty_float && s->a->type != ty_int)) return 0;
    struct type *t = s->var->type;
    for (int i = 0; i < s->nkids; i++, t = t->elem) {
        if (t->kind != T_ARRAY || s->kids[i]->op == IR_FIELD) return 0;
        if (i < s->nkids - 1 && !fixed_row(s->kids[i], v, b)) return 0;
        if (ir_mutates(s->kids[i], s->var)) return 0;
    }
    const struct ir_node *x;
    if (!index_of(s->kids[s->nkids - 1], v, b, &x, c)) return 0;
    for (int i = 0; i < b->nkids; i++)
        if (i != at && ir_writes(b->kids[i], s->var, true)) return 0;
    if (ir_mutates(s->a, s->var)) return 0;
    int back = 0;
    for (int k = 1; k <= MAX_BACK; k++) {
        R.store = s, R.body = b, R.base = x, R.v = v, R.want = *c - k * step, R.count = 0, R.dry = true;
        carry_reads(s->a);
        for (int i = 0; i < at; i++) carry_reads(b->kids[i]);
        R.dry = false;
        if (R.count) back = k;
    }
    return back;
}

static struct ir_node *bool_lit(bool v, struct loc loc)
{
    struct ir_node *n = ir_new(IR_BOOL, loc, ty_bool);
    n->bval = v;
    return n;
}

/* Loop l (a statement of some block): its carried stores rewritten; the
 * lets of their locals, to go before it, pushed into pre. has[k]: k
 * iterations have stored (each iteration that goes on stores every
 * carried element), so t[k] is the element k iterations back. */
static void carry_loop(struct ir_node *l, struct ir_node *pre)
{
    int64_t step = step_of(l);
    struct ir_node *b = l->b;
    if (!step || !b || b->op != IR_BLOCK || continues(b, 0)) return;
    struct ir_var *has[MAX_BACK + 1] = {0};
    int nhas = 0;
    struct ir_node *out = ir_new(IR_BLOCK, b->loc, ty_void);
    for (int at = 0; at < b->nkids; at++) {
        struct ir_node *s = b->kids[at];
        int64_t c;
        int back = carried_store(b, at, l->var, step, &c);
        if (!back) {
            ir_push_kid(out, s);
            continue;
        }
        struct loc at_loc = s->loc;
        struct type *et = s->a->type;
        for (; nhas < back; nhas++) {
            has[nhas + 1] = ir_new_temp(P, ty_bool, at_loc);
            ir_push_kid(pre, ir_mk_stmt(IR_LET, has[nhas + 1], bool_lit(false, at_loc), at_loc));
        }
        struct ir_var *t[MAX_BACK + 1];
        for (int k = 1; k <= back; k++) {
            t[k] = ir_new_temp(P, et, at_loc);
            ir_push_kid(pre, ir_mk_stmt(IR_LET, t[k], ir_new(et == ty_float ? IR_FLOAT : IR_INT, at_loc, et), at_loc));
            R.store = s, R.v = l->var, /* R.body, R.base: as carried_store left them */ R.want = c - k * step, R.t = t[k], R.has = has[k];
            R.first = k == 1;
            for (int i = 0; i < out->nkids; i++) carry_reads(out->kids[i]);
            carry_reads(s->a);
        }
        /* E into w, then the store of w, then the elements shift back: t[k] = t[k - 1], t[1] = w */
        struct ir_var *w = ir_new_temp(P, et, at_loc);
        ir_push_kid(out, ir_mk_stmt(IR_LET, w, s->a, at_loc));
        s->a = ir_mk_var(w, at_loc);
        ir_push_kid(out, s);
        for (int k = back; k > 1; k--) ir_push_kid(out, ir_mk_stmt(IR_ASSIGN, t[k], ir_mk_var(t[k - 1], at_loc), at_loc));
        ir_push_kid(out, ir_mk_stmt(IR_ASSIGN, t[1], ir_mk_var(w, at_loc), at_loc));
    }
    if (!nhas) return;
    for (int k = nhas; k > 1; k--) ir_push_kid(out, ir_mk_stmt(IR_ASSIGN, has[k], ir_mk_var(has[k - 1], b->loc), b->loc));
    ir_push_kid(out, ir_mk_stmt(IR_ASSIGN, has[1], bool_lit(true, b->loc), b->loc));
    b->kids = out->kids;
    b->nkids = out->nkids;
}

/* Whether loop l's body is one its nest's pass shaped (a swapped, jammed or
 * hoisting nest's inner loop): its statements stay as they are. */
static bool shaped_nest(const struct ir_node *l)
{
    return l->swap || l->jam || l->guards_outside;
}

/* The loops of block b, inner ones first: each carried loop replaced by a
 * block of its locals' lets and the loop. */
static void carry_block(struct ir_node *b);

static void carry_stmt(struct ir_node **sp)
{
    struct ir_node *s = *sp;
    switch (s->op) {
    case IR_BLOCK: carry_block(s); return;
    case IR_IF:
        if (s->b) carry_stmt(&s->b);
        if (s->c) carry_stmt(&s->c);
        return;
    case IR_WHILE: case IR_FOR_RANGE: case IR_FOR_ARRAY: break;
    default: return;
    }
    if (s->b && !(s->op != IR_WHILE && shaped_nest(s))) carry_stmt(&s->b);
    if (s->op == IR_WHILE) return;
    struct ir_node *pre = ir_new(IR_BLOCK, s->loc, ty_void);
    carry_loop(s, pre);
    if (!pre->nkids) return;
    ir_push_kid(pre, s);
    *sp = pre;
}

static void carry_block(struct ir_node *b)
{
    for (int i = 0; i < b->nkids; i++) carry_stmt(&b->kids[i]);
}

void opt_carry(struct ir_program *ir)
{
    P = ir;
    for (int i = 0; i < ir->fns.len; i++) {
        struct ir_fn *f = ir->fns.items[i];
        if (f->body) carry_stmt(&f->body);
    }
    P = NULL;
}
