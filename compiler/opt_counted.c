/*
 * opt_counted.c: while loops that count by one, written as range loops.
 *
 *   var i = lo                               for i' in lo .. n:
 *   while i < n:                    =>           body (reading i')
 *       body
 *       i += 1
 *
 * The later passes (guards, swaps, jams, ranges) know range loops: a while
 * loop of this shape is one in fact, whatever its spelling, and gets the
 * same code. It is one when
 *
 *   - the condition is `i < n` of ints, i a variable;
 *   - the body's last statement is `i = i + 1` (or `1 + i`), and nothing
 *     else in it assigns i; no `continue` of this loop skips that step;
 *   - n cannot change in the loop and its evaluation has no effect: a
 *     literal, a constant, a variable the body does not assign, len of an
 *     array variable the body does not assign, push to or change with a
 *     method, or + and - of those. n is then evaluated once instead of once
 *     per test: the same value, and if it panics (an overflow) the first
 *     evaluation panics in both forms, at the same place.
 *
 * `while i <= n` (no `break` of it) is `for i' in lo ..= n` the same way;
 * after it, when it ran, i = n and the loop's own step: i ends at n + 1,
 * and the step's overflow when n is the largest int panics where it did,
 * after the last iteration.
 *
 * The step cannot overflow: i < n before it. The range loop's variable is a
 * fresh one; reads of i in the body read it. i itself ends where the while
 * loop leaves it: when nothing reads i after the loop (it is defined in the
 * same block, and no later statement there reads it), nothing is needed;
 * otherwise, i = n is set before the loop when i < n (the body does not
 * read i any more), and a `break` of the loop sets i to the loop's value
 * first. A panic ends the program, so i's value after one is not seen.
 * When i is defined by a literal and dead after the loop, the literal is the
 * range's start and the definition goes.
 *
 * A loop counting down by one is one too, over range(i, stop, -1):
 *
 *   var i = hi                               for i' in range(hi, lo, -1):
 *   while i > lo:                   =>           body (reading i')
 *       body
 *       i -= 1
 *
 * with the same conditions (the last statement `i = i - 1`, nothing else
 * assigning i, no continue, lo fixed); `while i >= k` with k an int
 * literal above the smallest int is range(i, k - 1, -1) (a back
 * substitution's `while i >= 0`). The step cannot overflow: i > stop.
 * i's value before the loop is the range's start; after it, i ends at stop
 * when it ran (`if i > stop: i = stop` first), at a break where the break
 * left it, and the later passes guard the range's indices as a written
 * range(..., -1) loop's (opt_loops.c).
 */
#include "ir.h"

#include <string.h>

static struct ir_program *P;

bool ir_writes(struct ir_node *s, struct ir_var *v, bool stores)
{
    if (!s) return false;
    if (ir_is_expr(s)) return ir_mutates(s, v);
    switch (s->sop) {
    case IR_ASSIGN: return s->var == v || ir_mutates(s->a, v);
    case IR_PUSH: return s->var == v || ir_mutates(s->a, v);
    case IR_BLOCK:
        for (int i = 0; i < s->nkids; i++)
            if (ir_writes(s->kids[i], v, stores)) return true;
        return false;
    case IR_IF: return ir_mutates(s->a, v) || ir_writes(s->b, v, stores) || ir_writes(s->c, v, stores);
    case IR_WHILE: return ir_mutates(s->a, v) || ir_writes(s->b, v, stores);
    case IR_FOR_RANGE:
        return ir_mutates(s->iter.lo, v) || ir_mutates(s->iter.hi, v) || ir_writes(s->b, v, stores);
    case IR_FOR_ARRAY: return ir_mutates(s->iter.array, v) || ir_writes(s->b, v, stores);
    case IR_LET: case IR_EXPR: case IR_RETURN: return ir_mutates(s->a, v);
    case IR_STORE:
        if (stores && s->var == v) return true;
        for (int i = 0; i < s->nkids; i++)
            if (ir_mutates(s->kids[i], v)) return true;
        return ir_mutates(s->a, v);
    case IR_UNIQUE: case IR_BREAK: case IR_CONTINUE: case IR_UNREACHABLE:
        return false;
    }
    return false;
}

bool ir_stmt_reads(struct ir_node *s, struct ir_var *v)
{
    if (!s) return false;
    if (ir_is_expr(s)) return ir_reads(s, v);
    switch (s->sop) {
    case IR_BLOCK:
        for (int i = 0; i < s->nkids; i++)
            if (ir_stmt_reads(s->kids[i], v)) return true;
        return false;
    case IR_FOR_RANGE:
        return ir_reads(s->iter.lo, v) || ir_reads(s->iter.hi, v) || ir_stmt_reads(s->b, v);
    case IR_FOR_ARRAY: return ir_reads(s->iter.array, v) || ir_stmt_reads(s->b, v);
    case IR_IF: return ir_reads(s->a, v) || ir_stmt_reads(s->b, v) || ir_stmt_reads(s->c, v);
    case IR_WHILE: return ir_reads(s->a, v) || ir_stmt_reads(s->b, v);
    case IR_STORE: case IR_PUSH: case IR_UNIQUE:
        for (int i = 0; i < s->nkids; i++)
            if (ir_reads(s->kids[i], v)) return true;
        return ir_reads(s->a, v);
    case IR_LET: case IR_ASSIGN: case IR_EXPR: case IR_RETURN: return ir_reads(s->a, v);
    case IR_BREAK: case IR_CONTINUE: case IR_UNREACHABLE: return false;
    }
    return false;
}

/* Whether s holds a `continue` (cont) or `break` (!cont) of the loop whose
 * body it is (not one of a loop inside it). */
static bool jumps(struct ir_node *s, bool cont)
{
    if (!s || ir_is_expr(s)) return false;
    switch (s->sop) {
    case IR_CONTINUE: return cont;
    case IR_BREAK: return !cont;
    case IR_BLOCK:
        for (int i = 0; i < s->nkids; i++)
            if (jumps(s->kids[i], cont)) return true;
        return false;
    case IR_IF: return jumps(s->b, cont) || jumps(s->c, cont);
    case IR_WHILE: case IR_FOR_RANGE: case IR_FOR_ARRAY: case IR_LET: case IR_ASSIGN: case IR_STORE: case IR_PUSH:
    case IR_UNIQUE: case IR_EXPR: case IR_RETURN: case IR_UNREACHABLE:
        return false;
    }
    return false;
}

/* Whether n is a bound that body cannot change and whose evaluation has no
 * effect (see the top). */
static bool fixed_bound(struct ir_node *n, struct ir_node *body, struct ir_var *i)
{
    if (n->type != ty_int) return false;
    switch (n->eop) {
    case IR_INT: case IR_GLOBAL: return true;
    case IR_VAR: return n->var != i && !ir_writes(body, n->var, false);
    case IR_BUILTIN:
        return n->builtin == BI_LEN && n->nkids == 1 && n->kids[0]->op == IR_VAR && n->kids[0]->var != i &&
               !ir_writes(body, n->kids[0]->var, false);
    case IR_BINARY:
        return (n->bop == OP_ADD || n->bop == OP_SUB) && n->optype == ty_int && fixed_bound(n->a, body, i) &&
               fixed_bound(n->b, body, i);
    case IR_FLOAT: case IR_BOOL: case IR_STR: case IR_UNARY: case IR_NOT: case IR_AND: case IR_OR: case IR_COND:
    case IR_CONV: case IR_CALL: case IR_INDEX: case IR_ARRAY: case IR_FSTRING: case IR_LISTCOMP: case IR_REDUCE:
    case IR_TUPLE: case IR_FIELD: case IR_FNVAL: case IR_CALLV: case IR_GUARD_TEST:
        return false;
    }
    return false;
}

static bool is_var(struct ir_node *n, struct ir_var *v)
{
    return n->op == IR_VAR && n->var == v;
}

static bool is_one(struct ir_node *n)
{
    return n->op == IR_INT && n->ival == 1;
}

/* loop's induction variable when it is a counted loop (see the top), else NULL. */
static struct ir_var *counted(struct ir_node *loop)
{
    struct ir_node *c = loop->a, *body = loop->b;
    if (c->op != IR_BINARY || (c->bop != OP_LT && c->bop != OP_LE) || c->optype != ty_int || c->a->op != IR_VAR)
        return NULL;
    if (c->bop == OP_LE && jumps(body, false)) return NULL;
    struct ir_var *i = c->a->var;
    if (!body || body->op != IR_BLOCK || body->nkids == 0) return NULL;
    struct ir_node *last = body->kids[body->nkids - 1];
    if (last->op != IR_ASSIGN || last->var != i) return NULL;
    struct ir_node *inc = last->a;
    if (inc->op != IR_BINARY || inc->bop != OP_ADD || inc->optype != ty_int) return NULL;
    if (!(is_var(inc->a, i) && is_one(inc->b)) && !(is_one(inc->a) && is_var(inc->b, i))) return NULL;
    for (int k = 0; k + 1 < body->nkids; k++)
        if (ir_writes(body->kids[k], i, false)) return NULL;
    if (jumps(body, true) || !fixed_bound(c->b, body, i)) return NULL;
    return i;
}

/* loop's induction variable when it counts down by one (see the top),
 * else NULL; *stop: the range's end (exclusive). */
static struct ir_var *counted_down(struct ir_node *loop, struct ir_node **stop)
{
    struct ir_node *c = loop->a, *body = loop->b;
    if (c->op != IR_BINARY || (c->bop != OP_GT && c->bop != OP_GE) || c->optype != ty_int || c->a->op != IR_VAR)
        return NULL;
    struct ir_var *i = c->a->var;
    if (c->bop == OP_GE && (c->b->op != IR_INT || c->b->type != ty_int || (int64_t)c->b->ival == INT64_MIN))
        return NULL;
    if (!body || body->op != IR_BLOCK || body->nkids == 0) return NULL;
    struct ir_node *last = body->kids[body->nkids - 1];
    if (last->op != IR_ASSIGN || last->var != i) return NULL;
    struct ir_node *dec = last->a;
    if (dec->op != IR_BINARY || dec->bop != OP_SUB || dec->optype != ty_int || !is_var(dec->a, i) || !is_one(dec->b))
        return NULL;
    for (int k = 0; k + 1 < body->nkids; k++)
        if (ir_writes(body->kids[k], i, false)) return NULL;
    if (jumps(body, true) || !fixed_bound(c->b, body, i)) return NULL;
    *stop = c->bop == OP_GT ? c->b : ir_mk_int((int64_t)c->b->ival - 1, c->b->loc);
    return i;
}

struct rename {
    struct ir_copier k; /* first: the hooks get it */
    struct ir_var *from, *to;
};

static struct ir_var *renamed(struct ir_copier *k, struct ir_var *v)
{
    struct rename *r = (struct rename *)k;
    return v == r->from ? r->to : v;
}

struct ir_node *ir_copy_renamed(const struct ir_node *n, struct ir_var *from, struct ir_var *to)
{
    struct rename r = {{NULL, renamed, NULL}, from, to};
    return ir_copy(&r.k, n);
}

static struct ir_node *var_read(struct ir_var *v, struct loc loc)
{
    struct ir_node *n = ir_new(IR_VAR, loc, v->type);
    n->var = v;
    return n;
}

static struct ir_node *assign(struct ir_var *v, struct ir_node *value, struct loc loc)
{
    struct ir_node *s = ir_new(IR_ASSIGN, loc, ty_void);
    s->var = v;
    s->a = value;
    return s;
}

/* Each `break` of the loop whose body s is, made `i = t; break`. */
static void break_sets(struct ir_node *s, struct ir_var *i, struct ir_var *t)
{
    if (!s || ir_is_expr(s)) return;
    if (s->op == IR_IF) {
        break_sets(s->b, i, t);
        break_sets(s->c, i, t);
        return;
    }
    if (s->op != IR_BLOCK) return;
    for (int k = 0; k < s->nkids; k++) {
        struct ir_node *b = s->kids[k];
        if (b->op != IR_BREAK) {
            break_sets(b, i, t);
            continue;
        }
        struct ir_node *blk = ir_new(IR_BLOCK, b->loc, ty_void);
        ir_push_kid(blk, assign(i, var_read(t, b->loc), b->loc));
        ir_push_kid(blk, b);
        s->kids[k] = blk;
    }
}

/* A block that starts with `let lo = i` (lo a new temporary, *lo). */
static struct ir_node *start_block(struct ir_node *loop, struct ir_var *i, struct ir_var **lo)
{
    struct ir_var *t = arena_alloc(sizeof *t);
    *t = *i;
    t->id = ++P->nvars;
    t->kind = IRV_TEMP;
    t->name = "";
    struct ir_node *out = ir_new(IR_BLOCK, loop->loc, ty_void);
    struct ir_node *let = ir_new(IR_LET, loop->loc, ty_void);
    let->var = t;
    let->a = var_read(i, loop->loc);
    ir_push_kid(out, let);
    *lo = t;
    return out;
}

/* `while i <= n` (no break) as `for t in lo ..= n` (f, lo the value i has
 * before it, which the body no longer changes), then, when it ran,
 * `i = n` and the loop's own step: i ends at n + 1 as before, and when n
 * is the largest int the step's overflow panics after the last body, at the
 * step, as the while loop's does. */
static struct ir_node *inclusive(struct ir_node *loop, struct ir_node *f, struct ir_var *i)
{
    struct ir_var *lo;
    struct ir_node *out = start_block(loop, i, &lo);
    f->iter.inclusive = true;
    f->iter.lo = var_read(lo, loop->loc);
    ir_push_kid(out, f);
    struct ir_node *ran = ir_new(IR_IF, loop->loc, ty_void);
    ran->a = ir_mk_bin(OP_LE, var_read(lo, loop->loc), ir_copy(NULL, loop->a->b), ty_bool);
    ran->b = ir_new(IR_BLOCK, loop->loc, ty_void);
    ir_push_kid(ran->b, assign(i, ir_copy(NULL, loop->a->b), loop->loc));
    ir_push_kid(ran->b, ir_copy(NULL, loop->b->kids[loop->b->nkids - 1]));
    ir_push_kid(out, ran);
    return out;
}

/* The index of the let defining i in blk before kids[w], or -1. */
static int let_before(struct ir_node *blk, int w, struct ir_var *i)
{
    int def = -1;
    for (int k = 0; k < w; k++)
        if (blk->kids[k]->op == IR_LET && blk->kids[k]->var == i) def = k;
    return def;
}

/* Whether i is dead after the loop kids[w]: defined in blk before the loop
 * (def >= 0), read by nothing after it. */
static bool dead_after(struct ir_node *blk, int w, int def, struct ir_var *i)
{
    if (def < 0) return false;
    for (int k = w + 1; k < blk->nkids; k++)
        if (ir_stmt_reads(blk->kids[k], i)) return false;
    return true;
}

/* A copy of while loop `loop`'s body without its last statement (the
 * step), i read as a fresh local *t (the range loop's variable). */
static struct ir_node *body_renamed(struct ir_node *loop, struct ir_var *i, struct ir_var **t)
{
    *t = arena_alloc(sizeof **t);
    **t = *i;
    (*t)->id = ++P->nvars;
    (*t)->kind = IRV_LOCAL;
    struct ir_node *body = ir_copy_renamed(loop->b, i, *t);
    body->nkids--; /* the step */
    return body;
}

/* The statement that replaces while loop `loop`, kids[w] of block blk, or
 * NULL when the rewrite took a statement out of blk before the loop (the
 * loop is then kids[w - 1]). */
static struct ir_node *rewrite(struct ir_node *blk, int w, struct ir_node *loop, struct ir_var *i)
{
    int def = let_before(blk, w, i);
    bool dead = dead_after(blk, w, def, i);
    struct ir_var *t;
    struct ir_node *body = body_renamed(loop, i, &t);

    struct ir_node *f = ir_new(IR_FOR_RANGE, loop->loc, ty_void);
    f->var = t;
    f->b = body;
    f->iter.is_range = true;
    f->iter.hi = loop->a->b;
    f->iter.lo = var_read(i, loop->a->a->loc);
    if (loop->a->bop == OP_LE) return inclusive(loop, f, i);
    if (dead) {
        struct ir_node *d = blk->kids[def];
        bool untouched = d->a->op == IR_INT;
        for (int k = def + 1; untouched && k < w; k++)
            if (ir_stmt_reads(blk->kids[k], i) || ir_writes(blk->kids[k], i, false)) untouched = false;
        if (untouched) { /* the literal starts the range; the definition goes */
            f->iter.lo = d->a;
            blk->kids[w] = f;
            memmove(blk->kids + def, blk->kids + def + 1, (size_t)(blk->nkids - def - 1) * sizeof *blk->kids);
            blk->nkids--;
            return NULL;
        }
        return f;
    }
    /* i is seen after the loop: it ends at n, or where a break left it */
    break_sets(body, i, t);
    struct ir_var *lo;
    struct ir_node *out = start_block(loop, i, &lo);
    struct ir_node *at_end = ir_new(IR_IF, loop->loc, ty_void);
    at_end->a = ir_copy(NULL, loop->a);
    at_end->b = ir_new(IR_BLOCK, loop->loc, ty_void);
    ir_push_kid(at_end->b, assign(i, ir_copy(NULL, loop->a->b), loop->loc));
    ir_push_kid(out, at_end);
    f->iter.lo = var_read(lo, loop->loc);
    ir_push_kid(out, f);
    return out;
}

/* The statement that replaces while loop `loop` counting i down to stop
 * (counted_down): `for t in range(i, stop, -1)`, i's value set after it
 * as the top says when i is read later (not defined in blk before the
 * loop, or read after it). */
static struct ir_node *rewrite_down(struct ir_node *blk, int w, struct ir_node *loop, struct ir_var *i,
                                    struct ir_node *stop)
{
    int def = let_before(blk, w, i);
    bool dead = dead_after(blk, w, def, i);
    struct ir_var *t;
    struct ir_node *body = body_renamed(loop, i, &t);

    struct ir_node *range = ir_new(IR_BUILTIN, loop->loc, type_array(ty_int));
    range->builtin = BI_RANGE_STEP;
    struct ir_node *f = ir_new(IR_FOR_ARRAY, loop->loc, ty_void);
    f->var = t;
    f->b = body;
    f->iter.array = range;
    if (dead) {
        ir_push_kid(range, var_read(i, loop->a->a->loc));
        ir_push_kid(range, stop);
        ir_push_kid(range, ir_mk_int(-1, loop->loc));
        return f;
    }
    /* i is seen after the loop: it ends at stop, or where a break left it */
    break_sets(body, i, t);
    struct ir_var *start;
    struct ir_node *out = start_block(loop, i, &start);
    struct ir_node *at_end = ir_new(IR_IF, loop->loc, ty_void);
    at_end->a = ir_mk_bin(OP_GT, var_read(i, loop->loc), ir_copy(NULL, stop), ty_bool);
    at_end->b = ir_new(IR_BLOCK, loop->loc, ty_void);
    ir_push_kid(at_end->b, assign(i, ir_copy(NULL, stop), loop->loc));
    ir_push_kid(out, at_end);
    ir_push_kid(range, var_read(start, loop->loc));
    ir_push_kid(range, stop);
    ir_push_kid(range, ir_mk_int(-1, loop->loc));
    ir_push_kid(out, f);
    return out;
}

static void counted_block(struct ir_node *blk)
{
    for (int k = 0; k < blk->nkids; k++) {
        struct ir_node *s = blk->kids[k];
        ir_stmt_blocks(s, counted_block); /* inner loops first: an outer body then ends with its step still */
        struct ir_var *i = s->op == IR_WHILE ? counted(s) : NULL;
        struct ir_node *stop = NULL;
        struct ir_var *d = s->op == IR_WHILE && !i ? counted_down(s, &stop) : NULL;
        if (d) {
            blk->kids[k] = rewrite_down(blk, k, s, d, stop);
            continue;
        }
        if (!i) continue;
        struct ir_node *r = rewrite(blk, k, s, i);
        if (r) blk->kids[k] = r;
        else k--;
    }
}

void opt_counted(struct ir_program *ir)
{
    P = ir;
    for (int i = 0; i < ir->fns.len; i++) ir_stmt_blocks(((struct ir_fn *)ir->fns.items[i])->body, counted_block);
    P = NULL;
}
