/*
 * opt_fill.c: a range loop that pushes one value per iteration into an
 * array empty when it starts fills the array by index instead:
 *
 *     var out = []                     var out = []
 *     ...                              ...
 *     for i in lo..hi:           =>    let small = 0 <= lo and lo < hi and hi - lo <= ROOM
 *         S                            if small:
 *         out.push(E)                      out = [D] * (hi - lo)
 *                                          for i in lo..hi:
 *                                              S
 *                                              out[i - lo] = E
 *                                      else:
 *                                          (the loop as written)
 *
 * when the push is the body's last statement (or that of a last statement
 * that is a block: a row comploop wrote as loops before it), nothing else
 * in the body (S, E) or between the `var out = []` and the loop names out,
 * and the body
 * has no return and no break or continue of the loop (each iteration ends
 * at its push: iteration i's value is element i - lo). lo and hi are
 * literals, variables or len of a variable (ir_repeatable:
 * evaluated again, the same values, no panic); the element type int,
 * float, bool (D: values not yet set, brt_arr_unset) or an array (D: []).
 * `out = []` assigned, not declared, is the same start. A loop `for x in
 * xs` over an array variable xs that the body does not change is the loop
 * `for k in 0..len(xs): let x = xs[k]; ...` (the same elements in the same
 * order, each read below the length: no panic) and is filled the same way.
 *
 * Why it keeps the program's meaning: the iterations run in the same order
 * and store what they pushed, where the push put it, so after the loop out
 * is the same array. A panic in iteration i ends the program with out
 * unread (its later slots not set). As in comploop, the array is allocated
 * before the first iteration only when the count fits in the room a
 * comprehension makes first (ROOM elements: 16 MiB), else the loop runs as
 * written, growing out as it goes.
 *
 * Bounds may be sums of those (ir_repeatable_sum: `1..n - 1`). After the
 * empty starts are taken (fill_block), a loop pushing into an array not
 * known to be empty (`var h = [g[0]]`, `var out = xs`, an array an outer
 * loop keeps growing) is filled the same way (grow_block): `let off =
 * len(out) - lo`, out grown in place by hi - lo slots not yet set
 * (M_GROW_UNSET, brt_arr_grow_unset: one reserve, no [D] * (hi - lo) made
 * and copied; null rows; a shared array copied first, as the push would)
 * and `out[i + off] = E`, the slots its pushes fill.
 *
 * Why: a push per element calls the runtime and grows the array; a store is
 * one instruction that the later passes make check-free (unique, loops,
 * range), and a loop storing into its own slot i runs on the pool (parfor):
 * rows built by pushing run as the comprehension that builds them does.
 */
#include "ir.h"

#include <string.h>

static struct ir_program *P;

/* (ir.h) */
bool ir_leaves(struct ir_node *s, int depth)
{
    if (!s || ir_is_expr(s)) return false;
    switch (s->sop) {
    case IR_RETURN: return true;
    case IR_BREAK: case IR_CONTINUE: return depth == 0;
    case IR_WHILE: case IR_FOR_RANGE: case IR_FOR_ARRAY: return ir_leaves(s->b, depth + 1);
    case IR_IF: return ir_leaves(s->b, depth) || ir_leaves(s->c, depth);
    case IR_BLOCK:
        for (int i = 0; i < s->nkids; i++)
            if (ir_leaves(s->kids[i], depth)) return true;
        return false;
    case IR_LET: case IR_ASSIGN: case IR_STORE: case IR_PUSH: case IR_EXPR: case IR_UNIQUE: case IR_UNREACHABLE:
        return false;
    }
    return false;
}

/* `for v in xs: B` (xs a variable B does not change, so xs is the array
 * the loop walks) as `for k in 0..len(xs): let v = xs[k]; B`: the same
 * elements in the same order, each read below the length (no panic). */
static struct ir_node *by_index(struct ir_node *l)
{
    struct loc at = l->loc;
    struct ir_node *xs = l->iter.array;
    struct ir_var *k = ir_new_temp(P, ty_int, at);
    struct ir_node *len = ir_mk_len(ir_copy(NULL, xs));
    struct ir_node *elem = ir_new(IR_INDEX, at, l->var->type);
    elem->a = ir_copy(NULL, xs);
    elem->b = ir_mk_var(k, at);
    struct ir_node *body = ir_new(IR_BLOCK, at, ty_void);
    ir_push_kid(body, ir_mk_stmt(IR_LET, l->var, elem, at));
    for (int i = 0; i < l->b->nkids; i++) ir_push_kid(body, l->b->kids[i]);
    struct ir_node *r = ir_new(IR_FOR_RANGE, at, ty_void);
    r->var = k;
    r->iter.is_range = true;
    r->iter.lo = ir_mk_int(0, at);
    r->iter.hi = len;
    r->b = body;
    return r;
}

/* The slot of the last statement of block b, looked for in a last
 * statement that is a block (a comprehension comploop wrote as a loop
 * before the push that reads it). */
static struct ir_node **last_push(struct ir_node *b)
{
    while (b->kids[b->nkids - 1]->op == IR_BLOCK && b->kids[b->nkids - 1]->nkids) b = b->kids[b->nkids - 1];
    return &b->kids[b->nkids - 1];
}

/* The loop l (in a block, after `var out = []` and statements that do not
 * name out) pushing into out as its body's last statement, as above; NULL
 * when it is not such a loop. A loop over an array variable that its body
 * does not change runs over its index range (by_index). */
static struct ir_node *filled(struct ir_node *l, struct ir_var *out, bool empty)
{
    struct ir_node *body = l->b;
    if (l->par) return NULL;
    if (l->op == IR_FOR_ARRAY) {
        struct ir_node *xs = l->iter.array;
        if (xs->op != IR_VAR || xs->var == out || !body || ir_writes(body, xs->var, true) || ir_mutates(body, xs->var))
            return NULL;
    } else {
        if (l->iter.inclusive || !ir_repeatable_sum(l->iter.lo) || !ir_repeatable_sum(l->iter.hi)) return NULL;
        if (l->iter.lo->op == IR_INT && (__int128)l->iter.lo->ival < 0) return NULL;
        if (ir_names(l->iter.lo, out) || ir_names(l->iter.hi, out)) return NULL;
    }
    if (!body || body->op != IR_BLOCK || body->nkids < 1) return NULL;
    struct ir_node *push = *last_push(body);
    if (push->op != IR_PUSH || push->var != out || push->nkids) return NULL;
    if (ir_names(push->a, out) || ir_leaves(body, 0) || ir_writes(body, l->var, false)) return NULL;
    for (struct ir_node *b = body; b != push; b = b->kids[b->nkids - 1])
        for (int i = 0; i < b->nkids - 1; i++)
            if (ir_names(b->kids[i], out)) return NULL;

    struct loc at = l->loc;
    struct ir_node *c = ir_copy_fresh(P, l); /* the fast loop; l stays the slow one */
    if (c->op == IR_FOR_ARRAY) c = by_index(c);
    struct ir_node *lo = c->iter.lo, *hi = c->iter.hi;
    struct ir_node **cslot = last_push(c->b), *cpush = *cslot;
    struct ir_node *fast = ir_new(IR_BLOCK, at, ty_void), *slow = ir_new(IR_BLOCK, at, ty_void);
    bool from0 = lo->op == IR_INT && lo->ival == 0;
    /* iteration i's slot: i - lo, or (out not empty) i + off, off = len(out) - lo */
    struct ir_node *idx = ir_mk_var(c->var, at);
    if (!empty) {
        struct ir_var *off = ir_new_temp(P, ty_int, at);
        struct ir_node *base = ir_mk_len(ir_mk_var(out, at));
        ir_push_kid(fast, ir_mk_stmt(IR_LET, off, from0 ? base : ir_mk_bin(OP_SUB, base, ir_copy(NULL, lo), ty_int), at));
        idx = ir_mk_bin(OP_ADD, idx, ir_mk_var(off, at), ty_int);
    } else if (!from0) {
        idx = ir_mk_bin(OP_SUB, idx, ir_copy(NULL, lo), ty_int);
    }
    struct ir_node *store = ir_mk_stmt(IR_STORE, out, cpush->a, cpush->loc);
    ir_push_kid(store, idx);
    *cslot = store;

    struct ir_node *res = ir_new(IR_BLOCK, l->loc, ty_void);
    struct ir_var *small = ir_new_temp(P, ty_bool, at);
    ir_push_kid(res, ir_mk_stmt(IR_LET, small, ir_fits_room(lo, hi, at), at));
    /* [D] * (hi - lo): scalars unset, each stored before it is read; out
     * is that array (empty before), or grows by it (rows unset too: null,
     * which extend and the stores' releases pass over, where one shared
     * empty row's count would be a line every thread on the pool writes) */
    struct ir_node *n = ir_mk_bin(OP_SUB, ir_copy(NULL, hi), ir_copy(NULL, lo), ty_int);
    if (empty) {
        struct ir_node *init;
        if (out->type->elem->kind == T_ARRAY) {
            struct ir_node *one = ir_new(IR_ARRAY, at, out->type);
            ir_push_kid(one, ir_new(IR_ARRAY, at, out->type->elem));
            init = ir_mk_bin(OP_MUL, one, n, out->type);
        } else {
            init = ir_new(IR_BUILTIN, at, out->type);
            init->builtin = BI_UNSET;
            ir_push_kid(init, n);
        }
        ir_push_kid(fast, ir_mk_stmt(IR_ASSIGN, out, init, at));
    } else {
        /* grown in place: one reserve, no [D] * n made and copied */
        struct ir_node *grow = ir_new(IR_BUILTIN, at, ty_void);
        grow->builtin = M_GROW_UNSET;
        ir_push_kid(grow, ir_mk_var(out, at));
        ir_push_kid(grow, n);
        ir_push_kid(fast, ir_mk_stmt(IR_EXPR, NULL, grow, at));
    }
    ir_push_kid(fast, c);
    ir_push_kid(slow, l);
    struct ir_node *sw = ir_new(IR_IF, at, ty_void);
    sw->a = ir_mk_var(small, at);
    sw->b = fast;
    sw->c = slow;
    ir_push_kid(res, sw);
    return res;
}

static bool elem_taken(struct type *t)
{
    return t->kind == T_ARRAY && (t->elem == ty_int || t->elem == ty_float || t->elem == ty_bool || t->elem->kind == T_ARRAY);
}


/* The statement *sp, after `var out = []` and statements that do not name
 * out: a loop filling out is replaced by its filled form; a block is looked
 * into (a scope: its statements run in order, after the ones before it, as
 * the loop over enumerate or zip that iters wraps in one). True when *sp or
 * a statement in it names out (the search ends there). */
static bool fill_first(struct ir_node **sp, struct ir_var *out)
{
    struct ir_node *l = *sp;
    if (l->op == IR_BLOCK) {
        for (int k = 0; k < l->nkids; k++)
            if (fill_first(&l->kids[k], out)) return true;
        return false;
    }
    struct ir_node *r = l->op == IR_FOR_RANGE || l->op == IR_FOR_ARRAY ? filled(l, out, true) : NULL;
    if (r) *sp = r;
    return r || ir_names(l, out);
}

/* The array a loop's body pushes into as its last statement (filled then
 * checks that nothing else in the body names it); NULL if none. */
static struct ir_var *pushed(struct ir_node *l)
{
    if ((l->op != IR_FOR_RANGE && l->op != IR_FOR_ARRAY) || !l->b || l->b->op != IR_BLOCK || !l->b->nkids) return NULL;
    struct ir_node *push = *last_push(l->b);
    return push->op == IR_PUSH && elem_taken(push->var->type) ? push->var : NULL;
}

/* The loops of block b, inner ones first, then each `var out = []` of b
 * followed by a loop filling out. */
static void fill_block(struct ir_node *b)
{
    for (int i = 0; i < b->nkids; i++) ir_stmt_blocks(b->kids[i], fill_block);
    for (int i = 0; i < b->nkids; i++) {
        struct ir_node *s = b->kids[i];
        if ((s->op != IR_LET && s->op != IR_ASSIGN) || !s->a || s->a->op != IR_ARRAY || s->a->nkids || !elem_taken(s->var->type))
            continue;
        for (int j = i + 1; j < b->nkids; j++)
            if (fill_first(&b->kids[j], s->var)) break;
    }
}

/* Whether s is `if small: (out made or grown; the loop storing) else: (the
 * loop as written)` that filled wrote: its count does not fit the room
 * when the second branch runs. */
static bool fill_switch(struct ir_node *s)
{
    if (s->op != IR_IF || s->a->op != IR_VAR || !s->c || s->c->op != IR_BLOCK || s->c->nkids != 1) return false;
    struct ir_var *out = pushed(s->c->kids[0]);
    if (!out || !s->b || s->b->op != IR_BLOCK || !s->b->nkids) return false;
    struct ir_node *first = s->b->kids[0];
    if (first->op == IR_LET) first = s->b->nkids > 1 ? s->b->kids[1] : first; /* off = len(out) - lo */
    return (first->op == IR_ASSIGN && first->var == out) ||
           (first->op == IR_EXPR && first->a->op == IR_BUILTIN && first->a->builtin == M_GROW_UNSET &&
            first->a->kids[0]->op == IR_VAR && first->a->kids[0]->var == out);
}

/* After fill_block: each loop of block b, inner ones first, pushing into
 * an array not known to be empty when it starts: it grows the array by
 * its count first and stores at len(out) before it + i - lo. */
static void grow_block(struct ir_node *b)
{
    for (int i = 0; i < b->nkids; i++) {
        if (fill_switch(b->kids[i])) grow_block(b->kids[i]->b); /* the loop as written stays so */
        else ir_stmt_blocks(b->kids[i], grow_block);
    }
    for (int i = 0; i < b->nkids; i++) {
        struct ir_var *out = pushed(b->kids[i]);
        struct ir_node *r = out ? filled(b->kids[i], out, false) : NULL;
        if (r) b->kids[i] = r;
    }
}

void opt_fill(struct ir_program *ir)
{
    P = ir;
    ir_scan_loops(ir);
    for (int i = 0; i < ir->fns.len; i++) fill_block(((struct ir_fn *)ir->fns.items[i])->body);
    for (int i = 0; i < ir->fns.len; i++) grow_block(((struct ir_fn *)ir->fns.items[i])->body);

    P = NULL;
}
