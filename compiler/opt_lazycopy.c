/*
 * opt_lazycopy.c: the copy that copy on write makes of an array before a
 * loop that writes it in order, made by that loop, element by element
 * (pass `lazycopy`).
 *
 *     unique p                          if [sole] p:
 *     for i in lo..len(p):                  unique p
 *         p[i] = p[i] + p[i - 1]            for i in lo..len(p): p[i] = p[i] + p[i - 1]
 *                                =>     else:
 *                                           let src = p
 *                                           p = [unset](len(src))
 *                                           unique p
 *                                           for j in 0..min(lo, len(src)): p[j] = src[j]
 *                                           for i in lo..len(p):
 *                                               p[i] = src[i]
 *                                               p[i] = p[i] + p[i - 1]
 *
 * `var p = xs` then a loop updating p in place (a prefix sum, a map of a
 * copy, a smoothing) copies xs when it is still held elsewhere: `unique p`
 * (opt_unique.c) reads and writes every element once, then the loop reads
 * and writes them again. Here the loop takes each element from the shared
 * array as it reaches it: one pass, the C's `p[i] = s += xs[i]`.
 *
 * The loop: the statement right after `unique p` (p itself, no path), a
 * sequential range loop from a literal lo >= 0 to len(p), leaving no
 * iteration early (no break, continue or return), whose body names p only
 * as p[i + c] with c <= 0 (loads and stores) and len(p): iteration i
 * reaches no element after i; and reading one before i (c < 0): a
 * recurrence, which runs in order anyway (a map of p[i] alone is left as it
 * is: `parfor` may run it on the pool, which one loop in order could not).
 * p's elements are ints, floats or bools (nothing to own, and an unset
 * element is released as any).
 *
 * Why it keeps the program's meaning: when p's array has no other holder,
 * the loop runs as written. Otherwise the new array holds, when iteration
 * i begins, the old array's elements from i on still unchanged (each is
 * copied when its iteration begins: before that nothing reads or stores
 * it, as c <= 0), and the values the loop stored before i, as the copy
 * would: so every read sees what it saw. A panic in an iteration ends the
 * program with the elements after it unset, which nothing reads (the array
 * is only released); the old array stays with its other holders, as a copy
 * leaves it.
 */
#include "ir.h"

static struct ir_program *P;

static struct ir_node *LETS[32]; /* the body's lets of index values (lowering's `let t = i` for p[i] += x) */
static int NLETS;

static void index_lets(struct ir_node *b)
{
    if (!b) return;
    if (b->op == IR_BLOCK)
        for (int k = 0; k < b->nkids; k++) index_lets(b->kids[k]);
    if (b->op == IR_LET && b->var->type == ty_int && NLETS < 32) LETS[NLETS++] = b;
}

/* Whether n is i + c (c <= 0) of loop variable i: i, i - k, i + (-k), or a
 * let of the body holding one. */
static bool at_or_before(struct ir_node *n, struct ir_var *i)
{
    if (n->op == IR_VAR && n->var != i) {
        for (int k = 0; k < NLETS; k++)
            if (LETS[k]->var == n->var) return at_or_before(LETS[k]->a, i);
        return false;
    }
    if (n->op == IR_VAR) return true;
    if (n->op != IR_BINARY || n->a->op != IR_VAR || n->a->var != i || n->b->op != IR_INT) return false;
    __int128 c = (__int128)n->b->ival;
    return (n->bop == OP_SUB && c >= 0) || (n->bop == OP_ADD && c <= 0);
}

static struct ir_var *LP, *LI; /* the array, the loop variable */
static int ALLOWED, BEHIND;

/* Whether index n (at_or_before) is before i: i - k, i + (-k), k > 0. */
static bool before(struct ir_node *n)
{
    if (n->op == IR_VAR && n->var != LI) {
        for (int k = 0; k < NLETS; k++)
            if (LETS[k]->var == n->var) return before(LETS[k]->a);
        return false;
    }
    return n->op == IR_BINARY && (__int128)n->b->ival != 0;
}

/* Counts the names of LP that the rule allows: p[i + c], a store's p (its
 * one index i + c) and len(p). */
static void count_allowed(struct ir_node *n)
{
    if (!n) return;
    if (n->op == IR_INDEX && n->a->op == IR_VAR && n->a->var == LP && at_or_before(n->b, LI)) {
        ALLOWED++;
        BEHIND += before(n->b);
    }
    if (n->op == IR_STORE && n->var == LP && n->nkids == 1 && at_or_before(n->kids[0], LI)) ALLOWED++;
    if (n->op == IR_BUILTIN && n->builtin == BI_LEN && n->nkids == 1 && n->kids[0]->op == IR_VAR && n->kids[0]->var == LP)
        ALLOWED++;
    ir_each_child(n, count_allowed);
}

static bool is_len_of(struct ir_node *n, struct ir_var *v)
{
    return n->op == IR_BUILTIN && n->builtin == BI_LEN && n->nkids == 1 && n->kids[0]->op == IR_VAR && n->kids[0]->var == v;
}

/* Whether loop s after `unique p` writes p in order, reaching nothing ahead. */
static bool in_order(struct ir_node *s, struct ir_var *p)
{
    if (s->op != IR_FOR_RANGE || s->par || s->nguards || !s->iter.is_range || s->iter.inclusive) return false;
    if (s->iter.lo->op != IR_INT || (__int128)s->iter.lo->ival < 0 || (__int128)s->iter.lo->ival > 64) return false;
    if (!is_len_of(s->iter.hi, p) || ir_leaves(s->b, 0)) return false;
    LP = p, LI = s->var, ALLOWED = 0, BEHIND = 0, NLETS = 0;
    index_lets(s->b);
    count_allowed(s->b);
    return ALLOWED == ir_mentions(s->b, p) && BEHIND > 0;
}

/* ---- the rewrite ----------------------------------------------------------- */

static struct ir_node *store_at(struct ir_var *p, struct ir_var *i, struct ir_node *val, struct loc at)
{
    struct ir_node *st = ir_new(IR_STORE, at, ty_void);
    st->var = p;
    st->a = val;
    ir_push_kid(st, ir_mk_var(i, at));
    st->unique_steps = 1;
    return st;
}

static struct ir_node *elem_of(struct ir_var *src, struct ir_var *i, struct loc at)
{
    struct ir_node *e = ir_new(IR_INDEX, at, src->type->elem);
    e->a = ir_mk_var(src, at);
    e->b = ir_mk_var(i, at);
    return e;
}

/* `unique p` (u) then loop s, as the if above. */
static struct ir_node *lazily(struct ir_node *u, struct ir_node *s)
{
    struct ir_var *p = u->var;
    struct loc at = s->loc;
    struct ir_node *iff = ir_new(IR_IF, at, ty_void);
    iff->a = ir_new(IR_BUILTIN, at, ty_bool);
    iff->a->builtin = BI_SOLE;
    ir_push_kid(iff->a, ir_mk_var(p, at));
    iff->b = ir_new(IR_BLOCK, at, ty_void);
    ir_push_kid(iff->b, u);
    ir_push_kid(iff->b, s);

    struct ir_node *e = iff->c = ir_new(IR_BLOCK, at, ty_void);
    struct ir_var *src = ir_new_temp(P, p->type, at);
    ir_push_kid(e, ir_mk_stmt(IR_LET, src, ir_mk_var(p, at), at));
    struct ir_node *fresh = ir_new(IR_BUILTIN, at, p->type);
    fresh->builtin = BI_UNSET;
    ir_push_kid(fresh, ir_mk_len(ir_mk_var(src, at)));
    ir_push_kid(e, ir_mk_stmt(IR_ASSIGN, p, fresh, at));
    struct ir_node *u2 = ir_new(IR_UNIQUE, u->loc, ty_void);
    u2->var = p;
    ir_push_kid(e, u2);
    if (s->iter.lo->ival) { /* the elements before lo */
        struct ir_node *head = ir_new(IR_FOR_RANGE, at, ty_void);
        head->var = ir_new_temp(P, ty_int, at);
        head->iter.is_range = true;
        head->iter.lo = ir_mk_int(0, at);
        head->iter.hi = ir_new(IR_BUILTIN, at, ty_int);
        head->iter.hi->builtin = BI_MIN2;
        ir_push_kid(head->iter.hi, ir_copy(NULL, s->iter.lo));
        ir_push_kid(head->iter.hi, ir_mk_len(ir_mk_var(src, at)));
        head->b = ir_new(IR_BLOCK, at, ty_void);
        ir_push_kid(head->b, store_at(p, head->var, elem_of(src, head->var, at), at));
        ir_push_kid(e, head);
    }
    struct ir_node *l = ir_copy_fresh(P, s);
    struct ir_node *body = ir_new(IR_BLOCK, at, ty_void);
    ir_push_kid(body, store_at(p, l->var, elem_of(src, l->var, at), at));
    ir_push_kid(body, l->b);
    l->b = body;
    ir_push_kid(e, l);
    return iff;
}

static bool plain_elem(struct type *t)
{
    return t->kind == T_ARRAY && (t->elem == ty_int || t->elem == ty_float || t->elem == ty_bool);
}

static void lazy_block(struct ir_node *b)
{
    for (int k = 0; k < b->nkids; k++) {
        struct ir_node *s = b->kids[k];
        ir_stmt_blocks(s, lazy_block);
        if (s->op != IR_UNIQUE || s->nkids || s->every || !plain_elem(s->var->type) || k + 1 == b->nkids) continue;
        struct ir_node *l = b->kids[k + 1];
        if (!in_order(l, s->var)) continue;
        b->kids[k] = lazily(s, l);
        for (int j = k + 1; j + 1 < b->nkids; j++) b->kids[j] = b->kids[j + 1];
        b->nkids--;
    }
}

void opt_lazycopy(struct ir_program *ir)
{
    P = ir;
    for (int i = 0; i < ir->fns.len; i++) ir_stmt_blocks(((struct ir_fn *)ir->fns.items[i])->body, lazy_block);
    P = NULL;
}
