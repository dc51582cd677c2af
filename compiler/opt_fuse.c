/*
 * opt_fuse.c: an array that a comprehension builds only for a loop to read
 * element by element is not built; the loop computes each element where it
 * reads it:
 *
 *     let a = [E(x) for x in xs]          region (trapped, emit_fuse.c):
 *     S...                          =>        S...
 *     for i in lo..hi:                        for i in lo..hi:
 *         ... a[i] ...                            ... E(xs[i]) ...
 *                                             if lo > 0 or hi < len(xs):
 *                                                 let t = [E(x) for x in xs]
 *
 * (the histogram `let bins = [int(x * 64.0) for x in xs]` then
 * `for i in 0..n: counts[bins[i]] += 1`: one pass over xs instead of three
 * over 8-byte arrays: xs read, bins written, bins read.)
 *
 * Why the program cannot tell. Values: a is read only as a[i] (i the loop's
 * variable, which its body does not assign), once per iteration and in a
 * statement every iteration runs (an if's condition, not its branches; not
 * under a loop, a conditional operand, an and or an or; the body has no
 * break, continue or return), and nowhere else; E reads x and variables
 * that neither S nor the loop assign, nor do they change xs, so E(xs[i])
 * is a's element i. len(a) is
 * len(xs): the read xs[i], at a[i]'s place, panics where a[i] would, with
 * the same message. E has no loop, no call and no effect (ir_effect_free),
 * nor do S and the loop's body: nothing but their variables changes, so
 * nothing is seen until the program ends or panics.
 *
 * Panics. As written, every panic of E (an int() of a NaN, an overflow)
 * comes before anything in S or the loop runs: the comprehension's first.
 * Fused, the first panic may be one of S or the loop, or E's at an element
 * that is not the comprehension's first failing one. So the region runs
 * under a trap (runtime brt_region): on any panic in it, the comprehension
 * as written runs first, result dropped; if it panics, that is the panic
 * (the one the program as written reports), else the region's panic is
 * reported as it was raised. Every iteration that ends has computed its
 * element, so when the loop ends normally every element was computed, and
 * none panicked, unless the loop did not cover 0..len(xs): then the
 * comprehension runs after it (the last statement above), so an element the
 * loop never read still panics, after the region as it would have before
 * it (the region changed nothing visible). The statements S cannot be lets
 * (they would end in the region's block) and must not name a.
 *
 * Only where it pays: the comprehension's source is an array variable (not
 * par, one clause, no filter), and the loop a range loop not on the pool.
 * `for v in a: B` is the loop `for k in 0..len(xs): let v = a[k]; B` (a's
 * elements in order, one per element of xs), and a bound len(a) is len(xs)
 * (so `for (i, v) in enumerate(a)`, which iters writes over 0..len(a), is
 * one too).
 *
 * A comprehension as the reader (fuse_comp): `v = [F(a[k]) for k in
 * lo..hi]` (a let or an assignment, the first statement after the let
 * naming a; one clause over a range, no filter, not par; F, lo and hi with
 * no loop, call or effect; a read only as a[k], once, where every element
 * evaluates it, and nowhere after; a bound's len(a) is len(xs): `0..len(a)`,
 * a zip's `0..min(len(v), len(a))`) becomes `v =
 * [F(E(xs[k])) for k in lo..hi]`, the read xs[k] at a[k]'s place (the same
 * length: the same panic, message and place). When E cannot panic
 * (no_panic: float arithmetic of variables, x * c) nothing else is needed:
 * as written E's elements are computed first, with no effect and no panic,
 * so computing them where F reads them (or not, where F never does) leaves
 * every value, output and panic as it was; the statements between stay
 * where they are and only must not change xs or E's variables. Else (an
 * int x * c may overflow) the assignment stands in a region as a loop
 * does, its bounds in lets of the region that the tail reads (the
 * assignment may change a variable they read, len(v)): every element in
 * lo..hi was computed when the assignment ends, the tail computes the
 * comprehension as written when the range did not cover it, and a panic
 * in the region runs it first. A let cannot stand in the region (its block
 * would end its scope): a let reader is fused only when E cannot panic.
 * (gram/helpers_fn: `v = sub(v, scale(q[j], c))`, written in place by
 * inline, is `v = [v[k] - q[j][k] * c for k in 0..len(v)]`: one pass, no
 * array of scaled elements.)
 *
 * Runs after comploop (a comprehension it writes as a loop is no longer
 * one) and before the passes that guard and check-free the loop.
 */
#include "ir.h"

#include <string.h>

static struct ir_program *P;

/* An expression of the region: no effect, no loop, no call. */
static bool quiet(struct ir_node *n)
{
    return !n || (ir_effect_free(n) && !ir_loops_or_calls(n));
}

/* Whether statement s may stand in the region: it ends (no while loop), does
 * nothing but assign and store into variables (no output, no call), and
 * leaves no loop early (no break, continue or return). */
static bool region_stmt(struct ir_node *s)
{
    if (!s) return true;
    switch (s->sop) {
    case IR_BLOCK:
        if (s->fused) return false;
        for (int i = 0; i < s->nkids; i++)
            if (!region_stmt(s->kids[i])) return false;
        return true;
    case IR_LET: case IR_ASSIGN: case IR_EXPR: return quiet(s->a);
    case IR_STORE: case IR_PUSH: case IR_UNIQUE:
        for (int i = 0; i < s->nkids; i++)
            if (!(s->kids[i]->op == IR_FIELD && !s->kids[i]->a) && !quiet(s->kids[i])) return false;
        return quiet(s->a);
    case IR_IF: return quiet(s->a) && region_stmt(s->b) && region_stmt(s->c);
    case IR_FOR_RANGE: case IR_FOR_ARRAY:
        return !s->par && quiet(s->iter.lo) && quiet(s->iter.hi) && quiet(s->iter.array) && region_stmt(s->b);
    case IR_WHILE: case IR_BREAK: case IR_CONTINUE: case IR_RETURN: case IR_UNREACHABLE: return false;
    }
    return false;
}

/* Whether evaluating n cannot panic: literals, variables, array literals of
 * such, a one-element array repeated ([0] * n: never an overflow; a count
 * below one is the empty array), float arithmetic and comparisons. */
static bool no_panic(struct ir_node *n)
{
    switch (n->eop) {
    case IR_INT: case IR_FLOAT: case IR_BOOL: case IR_STR: case IR_VAR: case IR_GLOBAL: return true;
    case IR_ARRAY:
        for (int i = 0; i < n->nkids; i++)
            if (!no_panic(n->kids[i])) return false;
        return true;
    case IR_BINARY:
        if (n->bop == OP_MUL && n->type->kind == T_ARRAY)
            return n->a->op == IR_ARRAY && n->a->nkids == 1 && n->b->type == ty_int && no_panic(n->a) && no_panic(n->b);
        if (n->optype == ty_float || op_class[n->bop] == OPC_CMP) return no_panic(n->a) && no_panic(n->b);
        return false;
    case IR_UNARY: case IR_NOT: case IR_AND: case IR_OR: case IR_COND: case IR_CONV: case IR_CALL: case IR_BUILTIN:
    case IR_INDEX: case IR_FSTRING: case IR_LISTCOMP: case IR_REDUCE: case IR_TUPLE: case IR_FIELD: case IR_FNVAL:
    case IR_CALLV: case IR_GUARD_TEST:
        return false;
    }
    return false;
}

/* Whether expression n reads a variable that statement s writes. */
static bool reads_written(struct ir_node *n, struct ir_node *s)
{
    if (!n) return false;
    if (n->op == IR_VAR) return ir_writes(s, n->var, true) || ir_mutates(s, n->var);
    for (int i = 0; i < n->nkids; i++)
        if (reads_written(n->kids[i], s)) return true;
    return reads_written(n->a, s) || reads_written(n->b, s);
}

/* Whether b->kids[at], a let, may run before b->kids[from..at-1]: it cannot
 * panic and reads nothing they assign. */
static bool hoistable(struct ir_node *b, int from, int at)
{
    struct ir_node *let = b->kids[at];
    if (!no_panic(let->a)) return false;
    for (int s = from; s < at; s++)
        if (b->kids[s]->op != IR_LET && reads_written(let->a, b->kids[s])) return false;
    return true;
}

/* Whether n is the read a[i]. */
static bool the_read(struct ir_node *n, struct ir_var *a, struct ir_var *i)
{
    return n && n->op == IR_INDEX && n->a->op == IR_VAR && n->a->var == a && n->b->op == IR_VAR && n->b->var == i;
}

/* The reads a[i] in n: how many, and (*at) one evaluated whenever n is
 * (not an operand that a condition, an and or an or may skip). */
static int reads(struct ir_node *n, struct ir_var *a, struct ir_var *i, bool always, struct ir_node **at)
{
    if (!n) return 0;
    if (the_read(n, a, i)) {
        if (always) *at = n;
        return 1;
    }
    int c = 0;
    bool maybe = ir_is_expr(n) && (n->op == IR_AND || n->op == IR_OR || n->op == IR_COND);
    c += reads(n->a, a, i, always, at);
    c += reads(n->b, a, i, always && !maybe, at);
    c += reads(n->c, a, i, always && !maybe, at);
    for (int k = 0; k < n->nkids; k++) c += reads(n->kids[k], a, i, always, at);
    return c;
}

/* The one read a[i] of the loop's body b, in a statement every iteration
 * runs (blocks looked through), or NULL. */
static struct ir_node *every_read(struct ir_node *b, struct ir_var *a, struct ir_var *i)
{
    struct ir_node *at = NULL;
    int n = 0;
    struct ir_node *stack[64];
    int top = 0;
    stack[top++] = b;
    while (top) {
        struct ir_node *s = stack[--top];
        if (s->op == IR_BLOCK) {
            for (int k = s->nkids; k-- > 0 && top < 64;) stack[top++] = s->kids[k];
            continue;
        }
        if (s->op == IR_IF) { /* its condition always runs, its branches may not */
            n += reads(s->a, a, i, true, &at) + reads(s->b, a, i, false, &at) + reads(s->c, a, i, false, &at);
            continue;
        }
        bool plain = s->op == IR_LET || s->op == IR_ASSIGN || s->op == IR_STORE || s->op == IR_PUSH || s->op == IR_EXPR;
        n += reads(s, a, i, plain, &at);
    }
    return n == 1 ? at : NULL;
}

/* E with its generator's variable x read as xs[i] at place `at`. */
static struct ir_var *copy_x, *copy_i;
static struct ir_node *copy_xs, *copy_at;
static struct ir_node *x_as_element(struct ir_copier *k, const struct ir_node *v)
{
    (void)k;
    if (v->var != copy_x) return NULL;
    struct ir_node *e = ir_new(IR_INDEX, copy_at->loc, v->type);
    e->a = ir_copy(NULL, copy_xs);
    e->b = ir_mk_var(copy_i, copy_at->loc);
    return e;
}

/* `for v in a: B` as `for k in 0..len(xs): let v = a[k]; B`: a is built from
 * xs's elements, one each (len(a) is len(xs), which the region does not
 * change), and the loop walks a's elements in order, each read below the
 * length. The new nodes share B's statements; l itself is left as it is. */
static struct ir_node *by_index(struct ir_node *l, struct ir_node *xs)
{
    struct loc at = l->loc;
    struct ir_var *k = ir_new_temp(P, ty_int, at);
    struct ir_node *elem = ir_new(IR_INDEX, l->iter.array->loc, l->var->type);
    elem->a = ir_copy(NULL, l->iter.array);
    elem->b = ir_mk_var(k, at);
    struct ir_node *body = ir_new(IR_BLOCK, at, ty_void);
    ir_push_kid(body, ir_mk_stmt(IR_LET, l->var, elem, at));
    ir_push_kid(body, l->b);
    struct ir_node *r = ir_new(IR_FOR_RANGE, at, ty_void);
    r->var = k;
    r->iter.is_range = true;
    r->iter.lo = ir_mk_int(0, at);
    r->iter.hi = ir_mk_len(ir_copy(NULL, xs));
    r->b = body;
    return r;
}

/* Whether the region (kids from..to of b) leaves xs and E's variables as they are. */
static bool keeps(struct ir_node *b, int from, int to, struct ir_node *comp)
{
    for (int s = from; s <= to; s++) {
        struct ir_node *st = b->kids[s];
        if (ir_writes(st, comp->iter.array->var, true) || ir_mutates(st, comp->iter.array->var)) return false;
        for (int c = 0; c < comp->ncaps; c++)
            if (ir_writes(st, comp->caps[c], true) || ir_mutates(st, comp->caps[c])) return false;
    }
    return true;
}

/* Whether the statements between the let and the loop (b->kids[i+1..j-1])
 * may stand around the region: lets that cannot panic, of variables no
 * statement before them there assigns, run before it; the others in it. */
static bool region_between(struct ir_node *b, int i, int j)
{
    for (int s = i + 1; s < j; s++)
        if (b->kids[s]->op == IR_LET ? !hoistable(b, i + 1, s) : !region_stmt(b->kids[s])) return false;
    return true;
}

static bool is_len_of(struct ir_node *n, struct ir_var *a)
{
    return n && n->op == IR_BUILTIN && n->builtin == BI_LEN && n->nkids == 1 && n->kids[0]->op == IR_VAR && n->kids[0]->var == a;
}

/* How many reads len(a) n holds. */
static int len_reads(struct ir_node *n, struct ir_var *a)
{
    if (!n) return 0;
    if (is_len_of(n, a)) return 1;
    int c = len_reads(n->a, a) + len_reads(n->b, a) + len_reads(n->c, a);
    for (int i = 0; i < n->nkids; i++) c += len_reads(n->kids[i], a);
    return c;
}

/* n's reads len(a) made len(xs): the same value (a has one element per
 * element of xs, which nothing between changes), so a bound of a zip's
 * range, min(len(v), len(a)), is one too. */
static void len_as_source(struct ir_node *n, struct ir_var *a, struct ir_node *xs)
{
    if (!n) return;
    if (is_len_of(n, a)) {
        n->kids[0] = ir_copy(NULL, xs);
        return;
    }
    len_as_source(n->a, a, xs);
    len_as_source(n->b, a, xs);
    len_as_source(n->c, a, xs);
    for (int i = 0; i < n->nkids; i++) len_as_source(n->kids[i], a, xs);
}

/* The region's last statement: `if lo > 0 or hi < len(xs): let t = [E(x) for x in xs]`
 * (the check: the comprehension as written, of the let `let`). */
static struct ir_node *region_tail(struct ir_node *let, struct ir_node *lo, struct ir_node *hi)
{
    struct loc where = let->loc;
    struct ir_node *check = ir_copy_fresh(P, let);
    struct ir_node *before = ir_mk_bin(OP_GT, ir_copy(NULL, lo), ir_mk_int(0, where), ty_bool);
    struct ir_node *after = ir_mk_bin(OP_LT, ir_copy(NULL, hi), ir_mk_len(ir_copy(NULL, let->a->iter.array)), ty_bool);
    struct ir_node *uncovered = ir_new(IR_OR, where, ty_bool);
    uncovered->a = before;
    uncovered->b = after;
    struct ir_node *then = ir_new(IR_BLOCK, where, ty_void);
    ir_push_kid(then, check);
    struct ir_node *tail = ir_new(IR_IF, where, ty_void);
    tail->a = uncovered;
    tail->b = then;
    return tail;
}

/* A trapped region for the fusion of b->kids[i] (the comprehension's let):
 * b->kids[i+1 .. end-1] moved out, each let back into b from index i
 * (*out: the next free index), every other statement into the region. */
static struct ir_node *region_open(struct ir_node *b, int i, int end, int *out)
{
    struct ir_node *region = ir_new(IR_BLOCK, b->kids[i]->loc, ty_void);
    region->fused = true;
    *out = i;
    for (int q = i + 1; q < end; q++) {
        if (b->kids[q]->op == IR_LET) b->kids[(*out)++] = b->kids[q];
        else ir_push_kid(region, b->kids[q]);
    }
    return region;
}

/* The region in b at index out, in place of the statements up to b->kids[j]. */
static void region_close(struct ir_node *b, int out, int j, struct ir_node *region)
{
    b->kids[out++] = region;
    memmove(&b->kids[out], &b->kids[j + 1], (size_t)(b->nkids - j - 1) * sizeof *b->kids);
    b->nkids -= j + 1 - out;
}

/* A bound of the consumer read again by the region's tail: itself when a
 * literal, else a read of a fresh let of it appended to region. */
static struct ir_node *bound_let(struct ir_node *n, struct ir_node *region)
{
    if (n->op == IR_INT) return n;
    struct ir_var *t = ir_new_temp(P, ty_int, n->loc);
    ir_push_kid(region, ir_mk_stmt(IR_LET, t, n, n->loc));
    return ir_mk_var(t, n->loc);
}

/* Fuses b->kids[i], `let a = [E(x) for x in xs]` (fuse_at's checks), into
 * the comprehension of b->kids[j], `v = [F(a[k]) for k in lo..hi]` (the
 * first statement naming a, after S...): `v = [F(E(xs[k])) for k in lo..hi]`
 * (see the header: a comprehension as consumer). */
static bool fuse_comp(struct ir_node *b, int i, int j)
{
    struct ir_node *let = b->kids[i], *comp = let->a, *s = b->kids[j], *c = s->a;
    struct ir_var *a = let->var;
    if (c->par || c->pool || c->filter || c->key || c->nclauses || !c->iter.is_range || c->iter.inclusive ||
        !quiet(c->elem) || !quiet(c->iter.lo) || !quiet(c->iter.hi))
        return false;
    int lens = len_reads(c->iter.lo, a) + len_reads(c->iter.hi, a);
    if (ir_mentions(c->iter.lo, a) + ir_mentions(c->iter.hi, a) != lens) return false;
    for (int k = j + 1; k < b->nkids; k++)
        if (ir_names(b->kids[k], a)) return false;
    struct ir_node *at = NULL;
    if (reads(c->elem, a, c->gen_var, true, &at) != 1 || !at || ir_mentions(s, a) != 1 + lens) return false;
    /* E cannot panic: no region, E(xs[k]) read in place of a[k] */
    bool region_needed = !no_panic(comp->elem);
    if (region_needed && (s->op != IR_ASSIGN || !region_between(b, i, j))) return false; /* a let would end in the region's block */
    if (!keeps(b, i + 1, region_needed ? j : j - 1, comp)) return false;

    c->iter.lo = ir_copy(NULL, c->iter.lo); /* its own nodes, changed in place */
    c->iter.hi = ir_copy(NULL, c->iter.hi);
    len_as_source(c->iter.lo, a, comp->iter.array);
    len_as_source(c->iter.hi, a, comp->iter.array);
    copy_x = comp->gen_var;
    copy_i = c->gen_var;
    copy_xs = comp->iter.array;
    copy_at = at;
    struct ir_copier k = {.read = x_as_element};
    struct ir_node *e = ir_copy(&k, comp->elem);
    if (!region_needed) {
        *at = *e;
        ir_recapture(s);
        memmove(&b->kids[i], &b->kids[i + 1], (size_t)(b->nkids - i - 1) * sizeof *b->kids);
        b->nkids--;
        return true;
    }
    int out;
    struct ir_node *region = region_open(b, i, j, &out);
    /* the bounds, once, in the region: the tail reads their values (s may assign a variable they read) */
    c->iter.lo = bound_let(c->iter.lo, region);
    c->iter.hi = bound_let(c->iter.hi, region);
    struct ir_node *tail = region_tail(let, c->iter.lo, c->iter.hi);
    *at = *e;
    ir_recapture(s);
    ir_push_kid(region, s);
    ir_push_kid(region, tail);
    region_close(b, out, j, region);
    return true;
}

/* Fuses b->kids[i] (a let of a comprehension) into the loop after it; false
 * when they are not as above. */
static bool fuse_at(struct ir_node *b, int i)
{
    struct ir_node *let = b->kids[i], *comp = let->a;
    struct ir_var *a = let->var;
    if (!comp || comp->op != IR_LISTCOMP || comp->par || comp->pool || comp->filter || comp->nclauses ||
        comp->iter.is_range || comp->iter.array->op != IR_VAR || !quiet(comp->elem))
        return false;
    /* the statements between the let and the loop (the first statement
     * naming a): lets that cannot panic, of variables no statement before
     * them there assigns, run before the region; the others in it */
    int j = i + 1;
    while (j < b->nkids && !ir_names(b->kids[j], a)) j++;
    if (j == b->nkids) return false;
    if ((b->kids[j]->op == IR_LET || b->kids[j]->op == IR_ASSIGN) && b->kids[j]->a && b->kids[j]->a->op == IR_LISTCOMP)
        return fuse_comp(b, i, j);
    if (!region_between(b, i, j)) return false;
    /* the loop (blocks of one statement looked through); over a's elements,
     * as a loop over its indices; to len(a), to len(xs) (the same value) */
    struct ir_node **slot = &b->kids[j];
    while ((*slot)->op == IR_BLOCK && !(*slot)->fused && (*slot)->nkids == 1) slot = &(*slot)->kids[0];
    struct ir_node *l = *slot;
    if (l->op == IR_FOR_ARRAY && !l->par && l->b && l->iter.array->op == IR_VAR && l->iter.array->var == a)
        l = by_index(l, comp->iter.array);
    struct ir_node *hi = l->op == IR_FOR_RANGE ? l->iter.hi : NULL;
    if (hi && hi->op == IR_BUILTIN && hi->builtin == BI_LEN && hi->nkids == 1 && hi->kids[0]->op == IR_VAR &&
        hi->kids[0]->var == a) {
        struct ir_node *c = ir_new(IR_FOR_RANGE, l->loc, ty_void);
        *c = *l;
        c->iter.hi = ir_mk_len(ir_copy(NULL, comp->iter.array));
        l = c;
    }
    if (l->op != IR_FOR_RANGE || l->par || l->iter.inclusive || !l->b || !ir_repeatable(l->iter.lo) ||
        !ir_repeatable(l->iter.hi) || ir_names(l->iter.lo, a) || ir_names(l->iter.hi, a) || !region_stmt(l->b) ||
        ir_writes(l->b, l->var, false))
        return false;
    for (int k = j + 1; k < b->nkids; k++)
        if (ir_names(b->kids[k], a)) return false;
    /* the bounds, evaluated again after the loop, the same values */
    for (int s = i + 1; s <= j; s++) {
        struct ir_node *bounds[2] = {l->iter.lo, l->iter.hi};
        for (int k = 0; k < 2; k++) {
            struct ir_node *v = bounds[k]->op == IR_BUILTIN ? bounds[k]->kids[0] : bounds[k];
            if (v->op == IR_VAR && (ir_writes(b->kids[s], v->var, s == j ? false : true) || ir_mutates(b->kids[s], v->var)))
                return false;
        }
    }
    if (!keeps(b, i + 1, j, comp)) return false;
    struct ir_node *at = every_read(l->b, a, l->var);
    if (!at) return false;
    /* and a is named nowhere else in the loop (a generator's element, say) */
    if (ir_mentions(l, a) != 1) return false;

    struct ir_node *xs = comp->iter.array;
    copy_x = comp->gen_var;
    copy_i = l->var;
    copy_xs = xs;
    copy_at = at;
    struct ir_copier k = {.read = x_as_element};
    struct ir_node *e = ir_copy(&k, comp->elem);
    *at = *e;
    ir_recapture(l);
    struct ir_node *tail = region_tail(let, l->iter.lo, l->iter.hi);
    /* the lets, then the region, in place of the comprehension's let .. the loop */
    *slot = l;
    int out;
    struct ir_node *region = region_open(b, i, j + 1, &out);
    ir_push_kid(region, tail);
    region_close(b, out, j, region);
    return true;
}


static void fuse_block(struct ir_node *b)
{
    for (int i = 0; i < b->nkids; i++) ir_stmt_blocks(b->kids[i], fuse_block);
    for (int i = 0; i < b->nkids; i++)
        if (b->kids[i]->op == IR_LET) fuse_at(b, i);
}

void opt_fuse(struct ir_program *ir)
{
    P = ir;
    ir_pure_calls(ir, true);
    for (int i = 0; i < ir->fns.len; i++) fuse_block(((struct ir_fn *)ir->fns.items[i])->body);
    ir_pure_calls(ir, false);
    P = NULL;
}
