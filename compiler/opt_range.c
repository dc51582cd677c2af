/*
 * opt_range.c: the integer ranges a function's code can prove, and the
 * checks they make unnecessary (what Go's `prove` pass does, on a tree).
 *
 * A walk of each function in execution order keeps, for every int
 * variable, an interval that holds its value at that point:
 *   - a let or an assignment sets it to its value's range;
 *   - an if (and a conditional expression, and the right side of and, or)
 *     refines it on each branch by the condition (`i < n`, `x >= 0`,
 *     `i != 0`, and, or, not) and joins the branches after; a branch that cannot fall
 *     through (return, break, continue, panic) gives nothing to the join, so
 *     a guard `if i >= n: panic(...)` leaves i < n after it;
 *   - a loop forgets what its body assigns, before the body, except a
 *     counter: a variable the body only increases (`v = v + c`, c >= 0) keeps
 *     its lower bound (one it only decreases, `v = v - c`, its upper bound
 *     and what it is below, and a lower bound where settle, below, proves
 *     one: `while j >= 0 and ...: j -= 1` leaves j >= -1), and when no increase sits in an inner loop, a range
 *     loop of T iterations adds at most T times the increases to its upper
 *     bound (`hits += 1` counted at most once per iteration), and one that
 *     a `for i in lo..hi` raises by at most 1 an iteration from at most lo
 *     is at most i until raised: below what i is below (`out[count] = x;
 *     count += 1`, compaction); a `for i in
 *     lo..hi` gives i lo's low end to hi's high end; a while's condition
 *     refines its body, and `while k < n` whose body increases k by s >= 1
 *     at its top level (and nowhere else; no continue) runs at most
 *     (n - k) / s + 1 times, which bounds its counters too; a for over an
 *     array runs at most MAX_LEN times, and a for over range(a, b, step)
 *     of ints with a literal step gives its variable a's low end to b's
 *     high end less 1 (step > 0), or b's low end plus 1 to a's high end; any other int variable the body
 *     assigns keeps the join of its range before the loop and the values
 *     the body assigns it, when a trial walk proves that join (settle:
 *     `m = i` ... `m = j` stays below n; widened once more to 0 or MAX_LEN
 *     when the join does not hold: a bisection's lo = mid + 1);
 *   - an [int] array variable has one interval for all its elements (its
 *     range's lo and hi): a literal of literals or `[literals] * n` sets it,
 *     a store joins the stored value's range, an element read gives it, a
 *     push, a mutating method or an assignment forgets it, and a loop whose
 *     stores into it are all `a[k] = a[j] + c` (c >= 0: a literal or a let of
 *     one) treats it as a counter (`counts[b] += 1` over xs: below len(xs));
 * A function's int parameters start as the join of the arguments its calls
 * pass (calls in functions and in the constants' initialisers; never when
 * it is used as a value), from the round before: three rounds reach three
 * calls deep. Literals, len (at most 2^57 elements: the x86-64 address
 * space), lets and constants give ranges; + - * and negation, & with a
 * non-negative side, >> and % by a positive divisor, min and max propagate
 * them.
 *
 * An interval may also carry an expression the value is below (`below`): a
 * stable one (literals, int variables never assigned, len of arrays never
 * resized), from a range loop's bound, a `<` condition or a let copy, with
 * a gap: v + gap < below. A bound `n - 1` is n with gap 1; `i != n - 2`
 * where i + 1 < n makes it i + 2 < n; i + c and i - c keep the bound with
 * the gap less or more c (`xs[i + 1]` in `for i in 0..len(xs) - 1`); a
 * stable e less a literal c >= 1 is below e (`len(xs) - 1`); x < y (x <= y)
 * with y below e puts x below e, by one more (as much); (x + y) / d, d >= 2,
 * with x, y >= 0 both below e is below it (a bisection's midpoint). An
 * index is inside its array when it is at least 0 and below len of the
 * array, or below the n that `[x] * n` or `[e for i in 0..n]` made it with,
 * the array never assigned or resized in the function (stores keep its
 * length). An array that is (a row fill makes with `[unset] * n`, a
 * `v = [x] * n`) has that length from the assignment on, until a push, a
 * mutating method, another assignment, a loop head whose body may do one,
 * or a join of branches that disagree (range.len); `[unset] * (n if ok
 * else m)`, ok a bool let never assigned (comploop's array), has n on the
 * branches that test ok true and m where they test it false (such a branch
 * knows ok: its slot's range [1, 1] or [0, 0]); `a if c else b` of two of
 * one length has it (cover's `[unset] * n if n >= 1 else [0.0] * n`).
 * Inside a comprehension
 * no variable changes: a generator's bound (`for i in 0..len(xs)`) holds
 * its variable below it while the comprehension runs, even where the
 * function assigns or resizes xs elsewhere, so xs[i] there is inside.
 *
 * What it proves, it marks (the emitters print plain C): no_overflow on int
 * + - * and negation whose result fits int64, on / and % by a positive
 * divisor (neither 0 nor -1), on shifts whose amount is in
 * 0..63, and on int to u64 conversions of a non-negative value; in_bounds
 * on an index of a variable and a store of one index. Where it cannot
 * prove, the check stays, so every panic stays where and what it is.
 * `--dump=ir:range` shows the marks (no-overflow, in-bounds). The bounds
 * of a short loop (ir.h: at most IR_SHORT_TRIPS steps, no loop inside)
 * that read int variables of one value each, or the length of an array a
 * let made of a literal (or [x] * k) that nothing resizes, become those
 * literals (`let d = 16` ... `for k in 0..d` is `0..16`), after the walk, so that no proof
 * made with the variables is lost: the C compiler then knows the trip
 * count, in the pool's helpers too, and unrolls the loop (emit_loops.c).
 * A generator whose every index opt_loops.c guarded is in_bounds loses its
 * guards (its two versions would be one).
 */
#include "ir.h"

#include <stdlib.h>
#include <string.h>

#define MAX_LEN ((__int128)1 << 57)

struct range {
    __int128 lo, hi; /* lo > hi: no value (the code is never reached) */
    /* NULL, or an expression whose value the variable is below: a stable one
     * (below), the same wherever it is read in the variable's scope; with
     * gap >= 0: value + gap < below (`i + 1 < n` after `i != n - 1`) */
    struct ir_node *below;
    __int128 gap;
    /* An [int] array variable: lo and hi hold every element's range. */
    /* An array variable (not fixed_array): a stable expression its length
     * equals here, set where it is assigned `[unset](e)` (fill's new row)
     * or `[x] * e`, forgotten where it may be assigned or resized again
     * (a push, a mutating method, a loop's head for what the body changes,
     * a join of two branches that disagree). */
    struct ir_node *len;
};

static const struct range FULL = {INT64_MIN, INT64_MAX, NULL, 0, NULL};

/* A trial walk of a loop's body (settle): it only learns what the body
 * assigns; no mark, bound or rewrite comes of it, since it walks from a
 * guess that may not hold. */
static int DRY;
#define MARK(n, f) ((void)(DRY || ((n)->f = true)))

/* Range bounds read from a variable of one value, rewritten as literals
 * when the walk is done (literal_bounds): pairs of the bound's place (a
 * struct ir_node **) and its literal. */
static struct vec BOUNDS;
static bool OWN_ROUND; /* the first round: parameters know nothing of their callers */

/* A bound read from variables: a variable, or len of an array variable. */
static bool read_bound(const struct ir_node *b)
{
    return b->op == IR_VAR || (b->op == IR_BUILTIN && b->builtin == BI_LEN && b->kids[0]->op == IR_VAR);
}

static void note_bound(struct ir_node **place, struct range r)
{
    if (read_bound(*place)) {
        vec_push(&BOUNDS, place);
        vec_push(&BOUNDS, ir_mk_int((int64_t)r.lo, (*place)->loc));
    }
}

/* A short loop's (ir.h) bounds of one value each, from the function's own
 * code (the first round, before the callers' arguments: a function's C is
 * the same whoever calls it): noted for literal_bounds. */
static void short_bounds(struct ir_iter *it, struct range lo, struct range hi, struct ir_node *body,
                         struct ir_node *body2)
{
    if (DRY || !OWN_ROUND || it->lo->type != ty_int || lo.lo != lo.hi || hi.lo != hi.hi) return;
    __int128 n = hi.lo - lo.lo + (it->inclusive ? 1 : 0);
    if (n < 2 || n > IR_SHORT_TRIPS || ir_loops_or_calls(body) || ir_loops_or_calls(body2)) return;
    note_bound(&it->lo, lo);
    note_bound(&it->hi, hi);
}

static void literal_bounds(void)
{
    /* the bound's place changes, not its node: whatever else may point at
     * the node (a guard, another pass's expression) still reads the
     * variable, wherever it is */
    for (int i = 0; i + 1 < BOUNDS.len; i += 2) {
        struct ir_node **place = BOUNDS.items[i];
        if (read_bound(*place)) *place = BOUNDS.items[i + 1];
    }
    BOUNDS = (struct vec){0}; /* arena memory */
}

static int NV;               /* variables: ids 1..NV */
/* The current range (ints) or length (arrays: len) of each variable of the
 * function being walked, by its slot there: slots 1..NSLOT are numbered
 * per function (reset_fn, or on first use), so that the copies every
 * branch and loop takes (env_copy) cost the function's own variables, not
 * the program's (copying all NV at each: 3,000 functions of one loop each
 * took 34 s in this pass). */
static struct range *ENV;
static int NSLOT;
static int *SLOT;            /* by var id: its slot, valid when SLOT_FN[id] == FN_GEN */
static unsigned *SLOT_FN, FN_GEN;

static struct range *ent(int id)
{
    if (SLOT_FN[id] != FN_GEN) {
        SLOT_FN[id] = FN_GEN;
        SLOT[id] = ++NSLOT;
        ENV[NSLOT] = FULL;
    }
    return &ENV[SLOT[id]];
}

/* Every range kept has lo <= hi. An empty one (a loop over 1..1, a branch
 * the facts rule out) belongs to code that never runs, where any range is
 * sound: it becomes FULL, so no rule meets a divisor range [1, 0] or a
 * shift amount below 0. */
static struct range rng(__int128 lo, __int128 hi)
{
    if (lo > hi) return FULL;
    return (struct range){lo, hi, NULL, 0, NULL};
}

static bool fits(__int128 v) { return v >= INT64_MIN && v <= INT64_MAX; }

static struct range clamp(__int128 lo, __int128 hi)
{
    return rng(lo < INT64_MIN ? INT64_MIN : lo, hi > INT64_MAX ? INT64_MAX : hi);
}

/* ---- lengths: which indices are inside their arrays ---------------------------- */

/* By var id, for the function being walked: */
static unsigned char *ASSIGNED; /* assigned somewhere in it (int or array), or an array's length changed */
static struct ir_node **LENOF;  /* an array never assigned or resized: an expression its length equals */
static struct ir_var **EQLEN;   /* an int let never assigned: the array whose length it is */

static void mark_assigned(struct ir_var *v) { ASSIGNED[v->id] = 1; }

static void note_changes(struct ir_node *n) { ir_each_change(n, mark_assigned); }

static bool fixed_array(struct ir_var *v) { return v->type->kind == T_ARRAY && !ASSIGNED[v->id]; }

/* An expression with one value in the whole scope of everything it reads:
 * literals, int variables never assigned, lengths of arrays never resized,
 * and + - * of those. */
static bool stable(struct ir_node *e)
{
    if (!e || e->type != ty_int) return false;
    switch (e->eop) {
    case IR_INT: return true;
    case IR_VAR: return !ASSIGNED[e->var->id];
    case IR_BUILTIN:
        return e->builtin == BI_LEN && e->nkids == 1 && e->kids[0]->op == IR_VAR && fixed_array(e->kids[0]->var);
    case IR_BINARY:
        return (e->bop == OP_ADD || e->bop == OP_SUB || e->bop == OP_MUL) && stable(e->a) && stable(e->b);
    default: return false;
    }
}

/* A stable e as `b - c` (c a literal, 0 <= c < 2^62): b and c; else e, 0. */
static struct ir_node *below_part(struct ir_node *e, __int128 *c)
{
    *c = 0;
    if (e->op == IR_BINARY && e->bop == OP_SUB && e->b->op == IR_INT && e->b->type == ty_int) {
        int64_t k = (int64_t)(uint64_t)e->b->ival;
        if (k >= 0 && k < ((int64_t)1 << 62)) return *c = k, e->a;
    }
    return e;
}

/* r's value is below the stable e: `i < n - 1` is i + 1 < n. */
static void set_below(struct range *r, struct ir_node *e)
{
    r->below = below_part(e, &r->gap);
}

/* r's value is at most the stable e: below e + 1 (`i <= n - 1` is i < n;
 * `i <= n` is i < n + 1, the length `[x] * (n + 1)` made). */
static void set_at_most(struct range *r, struct ir_node *e)
{
    __int128 c;
    struct ir_node *b = below_part(e, &c);
    if (c >= 1) {
        r->below = b;
        r->gap = c - 1;
        return;
    }
    r->below = ir_mk_bin(OP_ADD, e, ir_mk_int(1, e->loc), ty_int);
    r->gap = 0;
}

/* Whether a and b are the same bound expression (either may be NULL: the
 * same only as the same node): terms and builtins of one argument. */
static bool same(const struct ir_node *a, const struct ir_node *b)
{
    return a == b || (a && b && ir_same_expr(a, b, IR_SAME_BUILTIN1));
}

/* A bool let never assigned: the branches that test it know its value
 * (refine), as the range [1, 1] or [0, 0] of its slot. */
static bool truth_var(struct ir_node *c)
{
    return c && c->op == IR_VAR && c->var->type == ty_bool && !ASSIGNED[c->var->id];
}

/* A length range.len holds: a stable expression, or `n if ok else m`
 * (comploop's `[unset] * (hi - lo if small else 0)`) where the branch
 * being walked knows ok: n or m. */
static struct ir_node *known_len(struct ir_node *len)
{
    if (!len || len->op != IR_COND) return len;
    struct range *t = ent(len->a->var->id);
    return t->lo != t->hi ? NULL : t->lo ? len->b : len->c;
}

/* Whether every value of i (range r) indexes array v: 0 <= i < len(v). */
static bool inside(struct ir_var *v, struct range r)
{
    if (r.lo < 0) return false;
    if (!fixed_array(v)) {
        /* i + c < len(v), c >= 0: a generator's frozen bound (generator) */
        struct ir_node *b = r.below;
        if (b && b->op == IR_BUILTIN && b->builtin == BI_LEN && b->kids[0]->op == IR_VAR && b->kids[0]->var == v)
            return true;
        /* its length here (range.len): e, or below = n - c with i + c < n */
        struct ir_node *len = v->type->kind == T_ARRAY ? known_len(ent(v->id)->len) : NULL;
        __int128 c;
        if (!len) return false;
        if (len->op == IR_INT) return r.hi < (__int128)(int64_t)(uint64_t)len->ival;
        struct ir_node *n = below_part(len, &c);
        return r.below && same(r.below, n) && r.gap >= c;
    }
    struct ir_node *len = LENOF[v->id], *b = r.below;
    if (len && len->op == IR_INT && r.hi < (__int128)(int64_t)(uint64_t)len->ival) return true;
    if (!b) return false;
    if (b->op == IR_BUILTIN && b->builtin == BI_LEN && b->kids[0]->op == IR_VAR && b->kids[0]->var == v) return true;
    if (b->op == IR_VAR && EQLEN[b->var->id] == v) return true;
    return len && same(b, len);
}

static struct ir_node *made_len(struct ir_node *e);

/* At `let v = e`: what v's length or value is known to equal. */
static void note_let(struct ir_var *v, struct ir_node *e)
{
    if (ASSIGNED[v->id] || !e) return;
    if (v->type == ty_int && e->op == IR_BUILTIN && e->builtin == BI_LEN && e->nkids == 1 && e->kids[0]->op == IR_VAR
        && fixed_array(e->kids[0]->var))
        EQLEN[v->id] = e->kids[0]->var;
    if (v->type->kind != T_ARRAY) return;
    /* [x] * n: n elements (none for n < 0, where no index is inside anyway) */
    if (e->op == IR_BINARY && e->bop == OP_MUL && e->a->op == IR_ARRAY && e->a->nkids == 1 && stable(e->b))
        LENOF[v->id] = e->b;
    /* [x for i in 0..n] */
    if ((e->op == IR_LISTCOMP) && !e->filter && !e->nclauses && e->iter.is_range && !e->iter.inclusive
        && e->iter.lo->op == IR_INT && e->iter.lo->ival == 0 && stable(e->iter.hi))
        LENOF[v->id] = e->iter.hi;
    if (e->op == IR_ARRAY) {
        struct ir_node *k = ir_new(IR_INT, e->loc, ty_int);
        k->ival = (unsigned __int128)(uint64_t)e->nkids;
        LENOF[v->id] = k;
    }
    if (e->op == IR_COND) LENOF[v->id] = made_len(e);
}

/* An array's length after `v = e` (range.len), if e makes it stable. */
static struct ir_node *made_len(struct ir_node *e)
{
    if (!e) return NULL;
    /* a if c else b, both of one stable length (cover's `[unset] * n if n
     * >= 1 else [0.0] * n`): that length */
    if (e->op == IR_COND) {
        struct ir_node *a = made_len(e->b), *b = made_len(e->c);
        return a && b && a->op != IR_COND && same(a, b) ? a : NULL;
    }
    if (e->op == IR_BUILTIN && e->builtin == BI_UNSET && e->nkids == 1 && stable(e->kids[0])) return e->kids[0];
    /* [unset] * (n if ok else m): known where a branch knows ok (known_len) */
    struct ir_node *k = e->op == IR_BUILTIN && e->builtin == BI_UNSET && e->nkids == 1 ? e->kids[0] : NULL;
    if (k && k->op == IR_COND && truth_var(k->a) && stable(k->b) && stable(k->c)) return k;
    if (e->op == IR_BINARY && e->bop == OP_MUL && e->a->op == IR_ARRAY && e->a->nkids == 1 && stable(e->b)) return e->b;
    /* a copy of an array never resized whose length a let made known (a = xs) */
    if (e->op == IR_VAR && fixed_array(e->var)) return LENOF[e->var->id];
    return NULL;
}

static bool is_int_array(struct ir_var *v) { return v && v->type->kind == T_ARRAY && v->type->elem == ty_int; }

/* What a push, a mutating method or an assignment may change: the length,
 * and an [int] array's elements. */
static void forget_len(struct ir_var *v)
{
    ent(v->id)->len = NULL;
    if (is_int_array(v)) ent(v->id)->lo = INT64_MIN, ent(v->id)->hi = INT64_MAX;
}

/* ENV's slots at one point, to go back to (env_restore). */
struct snap {
    struct range *r;
    int n; /* slots 0..n */
};

/* Freed copies, kept for the next (a function of thousands of variables
 * copies hundreds of kilobytes a branch: from malloc, each was a fresh
 * mapping and its page faults). */
static struct pooled { struct range *r; int cap; } POOL[32];
static int NPOOL;

static struct snap env_copy(void)
{
    struct snap c = {NULL, NSLOT};
    for (int i = NPOOL - 1; i >= 0 && !c.r; i--)
        if (POOL[i].cap > NSLOT) c.r = POOL[i].r, POOL[i] = POOL[--NPOOL];
    if (!c.r) c.r = xmalloc(sizeof *c.r * (size_t)(NV + 3));
    memcpy(c.r, ENV, sizeof *c.r * (size_t)(NSLOT + 1));
    return c;
}

static void snap_free(struct snap c)
{
    if (NPOOL < 32) POOL[NPOOL++] = (struct pooled){c.r, NV + 3};
    else free(c.r);
}

/* Back to c; a slot numbered since (a variable first met after it) knows
 * nothing. */
static void env_restore(struct snap c)
{
    memcpy(ENV, c.r, sizeof *c.r * (size_t)(c.n + 1));
    for (int i = c.n + 1; i <= NSLOT; i++) ENV[i] = FULL;
}

static bool is_int_var(struct ir_var *v) { return v && v->type == ty_int; }

/* ---- expressions: ranges, and the marks they allow --------------------------- */

static struct range expr(struct ir_node *n);
static void refine(struct ir_node *c, bool truth);
static void called(struct ir_node *n);
static void escapes(struct ir_fn *f);

/* Every expression inside n (not n itself) walked for its marks. */
static void kids(struct ir_node *n)
{
    expr(n->a);
    expr(n->b);
    expr(n->c);
    for (int i = 0; i < n->nkids; i++) expr(n->kids[i]);
}

/* Whether e, an int of literals, variables and lengths of array variables
 * by + - *, has one value while a comprehension runs: its element and
 * filter assign no variable and change no array (the checker refuses
 * both), so a bound `len(xs)` read anywhere in it is the same. */
static bool frozen(struct ir_node *e)
{
    if (!e || e->type != ty_int) return false;
    switch (e->eop) {
    case IR_INT: case IR_VAR: return true;
    case IR_BUILTIN: return e->builtin == BI_LEN && e->nkids == 1 && e->kids[0]->op == IR_VAR;
    case IR_BINARY: return (e->bop == OP_ADD || e->bop == OP_SUB || e->bop == OP_MUL) && frozen(e->a) && frozen(e->b);
    default: return false;
    }
}

/* A generator's clauses: each variable's range from its range source, for
 * the element and filter (they assign nothing). A range clause's bound
 * holds its variable below even when it is not stable in the function
 * (frozen): `par [f(ps[i]) for i in 0..len(ps)]` in a loop that assigns
 * ps. Such a bound lives only while the generator's variables have their
 * ranges (reset at its end), so inside() may trust a len(xs) it meets. */
static void generator(struct ir_node *n)
{
    struct ir_iter *its[64];
    struct ir_var *vars[64];
    int m = 0;
    its[m] = &n->iter;
    vars[m++] = n->gen_var;
    for (int i = 0; i < n->nclauses && m < 64; i++) {
        its[m] = &n->clauses[i].iter;
        vars[m++] = n->clauses[i].var;
    }
    for (int i = 0; i < m; i++) {
        if (its[i]->is_range) {
            struct range lo = expr(its[i]->lo), hi = expr(its[i]->hi);
            if (m == 1) short_bounds(its[i], lo, hi, n->elem, n->filter);
            if (is_int_var(vars[i])) {
                *ent(vars[i]->id) = clamp(lo.lo, its[i]->inclusive ? hi.hi : hi.hi - 1);
                if (stable(its[i]->hi) || frozen(its[i]->hi))
                    (its[i]->inclusive ? set_at_most : set_below)(ent(vars[i]->id), its[i]->hi);
            }
        } else {
            expr(its[i]->array);
            if (is_int_var(vars[i])) *ent(vars[i]->id) = FULL;
        }
    }
    expr(n->a); /* user: the start value */
    expr(n->b); /* key: the key count */
    expr(n->filter);
    expr(n->key);
    expr(n->elem);
    expr(n->c); /* the combine of comb_l and comb_r: anything */
    for (int i = 0; i < m; i++)
        if (is_int_var(vars[i])) *ent(vars[i]->id) = FULL;
}

/* r, the range of (x + y) / d with d >= 2: with x and y both at least 0
 * and below the same e, so is the quotient (it is at most the larger of
 * them: a bisection's (lo + hi) / 2). */
static void midpoint(struct range *r, struct ir_node *sum)
{
    if (sum->op != IR_BINARY || sum->bop != OP_ADD || sum->optype != ty_int) return;
    struct range x = expr(sum->a), y = expr(sum->b);
    if (x.lo < 0 || y.lo < 0 || !x.below || !same(x.below, y.below)) return;
    r->below = x.below;
    r->gap = x.gap < y.gap ? x.gap : y.gap;
}

static struct range binary(struct ir_node *n)
{
    struct range a = expr(n->a), b = expr(n->b);
    if (n->optype == ty_u64 && op_class[n->bop] == OPC_SHIFT) {
        if (b.lo >= 0 && b.hi <= 63) MARK(n, no_overflow);
        return FULL;
    }
    if (n->optype != ty_int) return FULL;
    __int128 lo, hi;
    switch (n->bop) {
    case OP_ADD: lo = a.lo + b.lo; hi = a.hi + b.hi; break;
    case OP_SUB: lo = a.lo - b.hi; hi = a.hi - b.lo; break;
    case OP_MUL: {
        /* operands inside int64: the products fit __int128 */
        __int128 p[4] = {a.lo * b.lo, a.lo * b.hi, a.hi * b.lo, a.hi * b.hi};
        lo = hi = p[0];
        for (int i = 1; i < 4; i++) {
            if (p[i] < lo) lo = p[i];
            if (p[i] > hi) hi = p[i];
        }
        break;
    }
    case OP_BAND:
        /* a non-negative side bounds the result: 0 .. its high end */
        if (a.lo >= 0 && b.lo >= 0) return rng(0, a.hi < b.hi ? a.hi : b.hi);
        if (a.lo >= 0) return rng(0, a.hi);
        if (b.lo >= 0) return rng(0, b.hi);
        return FULL;
    case OP_SHR:
        if (b.lo < 0 || b.hi > 63) return FULL;
        MARK(n, no_overflow);
        /* arithmetic shift: monotone in a, toward 0 or -1 as the amount grows */
        lo = a.lo >= 0 ? a.lo >> (int)b.hi : a.lo >> (int)b.lo;
        hi = a.hi >= 0 ? a.hi >> (int)b.lo : a.hi >> (int)b.hi;
        return rng(lo, hi);
    case OP_SHL:
        if (b.lo >= 0 && b.hi <= 63) MARK(n, no_overflow);
        return FULL;
    case OP_MOD:
        /* C's remainder by a positive divisor: the sign of a, below d */
        if (b.lo > 0) {
            MARK(n, no_overflow); /* neither 0 nor -1 */
            return rng(a.lo >= 0 ? 0 : 1 - b.hi, b.hi - 1);
        }
        return FULL;
    case OP_DIV: {
        /* truncating division by a positive divisor: monotone in each side */
        if (b.lo <= 0) return FULL;
        MARK(n, no_overflow);
        __int128 q[4] = {a.lo / b.lo, a.lo / b.hi, a.hi / b.lo, a.hi / b.hi};
        lo = hi = q[0];
        for (int i = 1; i < 4; i++) {
            if (q[i] < lo) lo = q[i];
            if (q[i] > hi) hi = q[i];
        }
        struct range r = rng(lo, hi);
        if (b.lo >= 2) midpoint(&r, n->a);
        return r;
    }
    default: return FULL;
    }
    if (!fits(lo) || !fits(hi)) return clamp(lo, hi); /* checked: a value that continues fits */
    if (n->bop == OP_ADD || n->bop == OP_SUB || n->bop == OP_MUL) MARK(n, no_overflow);
    struct range r = rng(lo, hi);
    /* x + c and x - c keep x's bound: (x + c) + (gap - c) < below */
    const struct range *x = n->bop == OP_ADD && !a.below ? &b : &a, *c = x == &a ? &b : &a;
    if ((n->bop == OP_ADD || n->bop == OP_SUB) && x->below && c->lo == c->hi && (n->bop == OP_ADD || x == &a)) {
        __int128 gap = n->bop == OP_ADD ? x->gap - c->lo : x->gap + c->lo;
        if (gap >= 0 && gap < ((__int128)1 << 64)) r.below = x->below, r.gap = gap;
    } else if (n->bop == OP_SUB && b.lo == b.hi && b.lo >= 1 && b.lo < ((__int128)1 << 62) && stable(n->a)) {
        /* e - c, e stable and c >= 1: below e (`len(xs) - 1`) */
        r.below = n->a, r.gap = b.lo - 1;
    }
    return r;
}

/* min(x, y) and max(x, y) of ints: each end the min (max) of the two ends; min
 * is below what either side is below (`min(n - 1, i + w)`: below n), max
 * at least either side's low end (`max(0, i - w)` >= 0). */
static struct range min_max(struct ir_node *n)
{
    struct range a = expr(n->kids[0]), b = expr(n->kids[1]);
    if (n->builtin == BI_MAX2)
        return rng(a.lo > b.lo ? a.lo : b.lo, a.hi > b.hi ? a.hi : b.hi);
    struct range r = rng(a.lo < b.lo ? a.lo : b.lo, a.hi < b.hi ? a.hi : b.hi);
    const struct range *x = a.below ? &a : b.below ? &b : NULL;
    if (x) r.below = x->below, r.gap = x->gap;
    return r;
}

/* ---- parameters: the join of the arguments of every call ----------------------- */

/* By function (P->fns order): what its calls passed, this round. A function
 * used as a value may be called with anything: its parameters stay FULL. */
struct params {
    bool called, escapes;
    struct range *arg; /* by parameter */
};

static struct ir_program *P;
static struct params *SEEN; /* this round's calls */

static struct params *params_of(struct ir_fn *f)
{
    for (int i = 0; i < P->fns.len; i++)
        if (P->fns.items[i] == f) return &SEEN[i];
    return NULL;
}

static void escapes(struct ir_fn *f)
{
    struct params *p = params_of(f);
    if (p) p->escapes = true;
}

static void called(struct ir_node *n)
{
    struct params *p = params_of(n->fn);
    for (int i = 0; i < n->nkids; i++) {
        struct range r = expr(n->kids[i]);
        if (!p || i >= n->fn->nparams || DRY) continue;
        if (!p->arg) p->arg = xmalloc(sizeof *p->arg * (size_t)(n->fn->nparams + 1));
        if (!p->called) p->arg[i] = r;
        if (r.lo < p->arg[i].lo) p->arg[i].lo = r.lo;
        if (r.hi > p->arg[i].hi) p->arg[i].hi = r.hi;
    }
    if (p && !DRY) p->called = true;
}

static struct range expr(struct ir_node *n)
{
    if (!n) return FULL;
    switch (n->eop) {
    case IR_INT:
        if (n->type != ty_int) return FULL;
        return rng((int64_t)(uint64_t)n->ival, (int64_t)(uint64_t)n->ival);
    case IR_VAR: return is_int_var(n->var) ? *ent(n->var->id) : FULL;
    case IR_GLOBAL: {
        /* a constant: its literal value */
        struct ir_node *v = n->global->init;
        if (n->type != ty_int || !v || v->op != IR_INT) return FULL;
        return rng((int64_t)(uint64_t)v->ival, (int64_t)(uint64_t)v->ival);
    }
    case IR_BUILTIN:
        if ((n->builtin == BI_MIN2 || n->builtin == BI_MAX2) && n->type == ty_int && n->nkids == 2 && !n->a && !n->b
            && !n->c)
            return min_max(n);
        kids(n);
        if (n->builtin == BI_LEN) {
            /* an array never resized, made by a let of a literal or [x] * k: that many */
            struct ir_node *a = n->kids[0], *k = a->op == IR_VAR && fixed_array(a->var) ? LENOF[a->var->id] : NULL;
            int64_t m = k && k->op == IR_INT && (int64_t)k->ival > 0 ? (int64_t)k->ival : 0;
            return k && k->op == IR_INT ? rng(m, m) : rng(0, MAX_LEN);
        }
        return FULL;
    case IR_UNARY: {
        struct range a = expr(n->a);
        if (n->optype != ty_int || n->bop != OP_NEG) return FULL;
        if (fits(-a.hi) && fits(-a.lo)) MARK(n, no_overflow);
        return clamp(-a.hi, -a.lo);
    }
    case IR_BINARY: return binary(n);
    case IR_CONV: {
        struct range a = expr(n->a);
        if (n->optype == ty_int && n->type == ty_u64 && a.lo >= 0) MARK(n, no_overflow);
        if (n->type == ty_int && n->optype == ty_bool) return rng(0, 1);
        return FULL;
    }
    case IR_COND: case IR_AND: case IR_OR: {
        /* each branch under its condition: b if a, c unless a (and: b if
         * a; or: b unless a) */
        expr(n->a);
        struct snap before = env_copy();
        refine(n->a, n->op != IR_OR);
        struct range b = expr(n->b);
        env_restore(before);
        refine(n->a, false);
        struct range c = expr(n->c);
        env_restore(before);
        snap_free(before);
        if (n->op != IR_COND || n->type != ty_int) return FULL;
        return rng(b.lo < c.lo ? b.lo : c.lo, b.hi > c.hi ? b.hi : c.hi);
    }
    case IR_LISTCOMP: case IR_REDUCE:
        generator(n);
        return FULL;
    case IR_CALL: called(n); return FULL;
    case IR_FNVAL: escapes(n->fn); kids(n); return FULL;
    case IR_INDEX: {
        expr(n->a);
        struct range i = expr(n->b);
        if (n->a->op == IR_VAR && n->b->type == ty_int && inside(n->a->var, i)) MARK(n, in_bounds);
        if (n->a->op == IR_VAR && is_int_array(n->a->var) && n->type == ty_int)
            return rng(ent(n->a->var->id)->lo, ent(n->a->var->id)->hi);
        return FULL;
    }
    case IR_FLOAT: case IR_BOOL: case IR_STR: case IR_NOT: case IR_ARRAY: case IR_FSTRING: case IR_TUPLE: case IR_FIELD:
    case IR_CALLV: case IR_GUARD_TEST:
        kids(n);
        return FULL;
    }
    return FULL;
}

/* ---- conditions: what holds on a branch ----------------------------------------- */

static void meet(struct ir_var *v, __int128 lo, __int128 hi)
{
    struct range *r = ent(v->id), was = *r;
    if (lo > r->lo) r->lo = lo;
    if (hi < r->hi) r->hi = hi;
    /* nothing: the branch never runs (`if 0 <= m` with m from len: its
     * else), where any range holds; the one it had, so that the join after
     * the if keeps it (FULL lost m's bound for the rest of the function) */
    if (r->lo > r->hi) *r = was;
}

/* v != y (of range r) holds: an end of v's range that is y's one value
 * goes, and v + gap < below with y = below - (gap + 1) becomes v + gap + 1
 * < below (`i != n - 1` with i < n: i + 1 < n). */
static void differs(struct ir_var *v, struct ir_node *y, struct range r)
{
    struct range *e = ent(v->id);
    if (r.lo == r.hi && e->lo == r.lo && e->lo < e->hi) e->lo++;
    else if (r.lo == r.hi && e->hi == r.lo && e->lo < e->hi) e->hi--;
    __int128 c;
    if (e->below && stable(y) && same(below_part(y, &c), e->below) && c == e->gap + 1) e->gap = c;
}

/* v < y (d = 1) or v <= y (d = 0) holds, y of range b: what y is below, v
 * is below too, by d more (`lo < hi` with hi < n: lo + 1 < n), unless v
 * already has a bound of its own. */
static void below_of(struct ir_var *v, struct range b, int d)
{
    struct range *e = ent(v->id);
    if (!b.below || b.gap + d >= ((__int128)1 << 64)) return;
    if (!e->below) e->below = b.below, e->gap = b.gap + d;
    else if (same(e->below, b.below) && b.gap + d > e->gap) e->gap = b.gap + d;
}

/* x op y holds (ints): narrow the variables among x and y. */
static void compare(struct ir_node *x, enum op op, struct ir_node *y)
{
    struct range a = expr(x), b = expr(y);
    bool xv = x->op == IR_VAR && is_int_var(x->var), yv = y->op == IR_VAR && is_int_var(y->var);
    switch (op) {
    case OP_LT:
        if (xv) meet(x->var, INT64_MIN, b.hi - 1);
        if (xv && stable(y)) set_below(ent(x->var->id), y);
        else if (xv) below_of(x->var, b, 1);
        if (yv) meet(y->var, a.lo + 1, INT64_MAX);
        break;
    case OP_LE:
        if (xv) meet(x->var, INT64_MIN, b.hi);
        if (xv && stable(y)) set_at_most(ent(x->var->id), y);
        else if (xv) below_of(x->var, b, 0);
        if (yv) meet(y->var, a.lo, INT64_MAX);
        break;
    case OP_GT: compare(y, OP_LT, x); break;
    case OP_GE: compare(y, OP_LE, x); break;
    case OP_EQ:
        if (xv) meet(x->var, b.lo, b.hi);
        if (yv) meet(y->var, a.lo, a.hi);
        break;
    case OP_NE:
        if (xv) differs(x->var, y, b);
        if (yv) differs(y->var, x, a);
        break;
    default: break;
    }
}

static enum op negated(enum op op)
{
    switch (op) {
    case OP_LT: return OP_GE;
    case OP_LE: return OP_GT;
    case OP_GT: return OP_LE;
    case OP_GE: return OP_LT;
    case OP_EQ: return OP_NE;
    case OP_NE: return OP_EQ;
    default: return op;
    }
}

/* Narrow ENV by `c == truth`. */
static void refine(struct ir_node *c, bool truth)
{
    if (!c) return;
    if (c->op == IR_NOT) {
        refine(c->a, !truth);
    } else if ((c->op == IR_AND && truth) || (c->op == IR_OR && !truth)) {
        refine(c->a, truth);
        refine(c->b, truth);
    } else if (c->op == IR_BINARY && c->optype == ty_int && op_class[c->bop] == OPC_CMP) {
        compare(c->a, truth ? c->bop : negated(c->bop), c->b);
    } else if (truth_var(c)) {
        *ent(c->var->id) = rng(truth, truth);
    }
}

/* ---- statements -------------------------------------------------------------- */

/* How a loop body changes an int variable. */
struct change {
    bool assigned;
    bool counter;      /* every assignment is v = v + c with 0 <= c */
    bool down;         /* every assignment is v = v - c with 0 <= c */
    bool nested;       /* one of them sits in a loop inside the body */
    bool scalar;       /* an int variable (not an [int] array's stores) */
    __int128 step;     /* the sum of the c's */
};

static struct change *CH;    /* by var id, for the loop being entered */

static __int128 *LETLIT; /* by var id: an int let never assigned, of a literal >= 0: it; else -1 */

/* c's value when it is a literal, or a let of one (LETLIT), and at least 0; else -1. */
static __int128 step_of(struct ir_node *c)
{
    if (c->op == IR_VAR && is_int_var(c->var) && !ASSIGNED[c->var->id]) return LETLIT[c->var->id];
    if (c->op != IR_INT || c->type != ty_int) return -1;
    __int128 k = (int64_t)(uint64_t)c->ival;
    return k >= 0 ? k : -1;
}

/* Whether x reads v: v itself, or an element of the [int] array v. */
static bool reads_of(struct ir_node *x, struct ir_var *v)
{
    if (x->op == IR_VAR) return x->var == v && is_int_var(v);
    return x->op == IR_INDEX && x->a->op == IR_VAR && x->a->var == v && is_int_array(v);
}

/* c when n is `v + c` or `c + v` with c a non-negative literal (or a let of
 * one), else -1; for an [int] array v, `v[j] + c`: a store v[k] = v[j] + c
 * raises no element above the largest one by more than c. */
static __int128 increase(struct ir_node *n, struct ir_var *v)
{
    /* `v + c if p else v` (opt_cover.c's append without a branch): v + c or v */
    if (n && n->op == IR_COND && n->c && n->c->op == IR_VAR && n->c->var == v) return increase(n->b, v);
    if (!n || n->op != IR_BINARY || n->bop != OP_ADD || n->optype != ty_int) return -1;
    struct ir_node *x = n->a, *c = n->b;
    if (!reads_of(x, v)) x = n->b, c = n->a;
    if (!reads_of(x, v)) return -1;
    return step_of(c);
}

/* Whether n is `v - c` with c a non-negative literal. */
static bool decrease(struct ir_node *n, struct ir_var *v)
{
    if (!n || n->op != IR_BINARY || n->bop != OP_SUB || n->optype != ty_int) return false;
    return n->a->op == IR_VAR && n->a->var == v && n->b->op == IR_INT && (int64_t)n->b->ival >= 0;
}

static void changes(struct ir_node *s, int depth, int **ids, int *nids, int *cap)
{
    if (!s || ir_is_expr(s)) return;
    if (s->op == IR_LET && is_int_var(s->var) && !ASSIGNED[s->var->id]) LETLIT[s->var->id] = step_of(s->a);
    if ((s->op == IR_ASSIGN && is_int_var(s->var)) || (s->op == IR_STORE && is_int_array(s->var))) {
        struct change *c = &CH[s->var->id];
        if (!c->assigned) {
            VEC_GROW(*ids, *nids, *cap);
            (*ids)[(*nids)++] = s->var->id;
            c->assigned = c->counter = c->down = true;
            c->scalar = s->op == IR_ASSIGN;
        }
        if (!decrease(s->a, s->var)) c->down = false;
        __int128 k = increase(s->a, s->var);
        if (k < 0) c->counter = false;
        else if (c->step < ((__int128)1 << 64)) c->step += k;
        if (depth) c->nested = true;
    }
    bool loop = s->op == IR_WHILE || s->op == IR_FOR_RANGE || s->op == IR_FOR_ARRAY;
    changes(s->b, depth + loop, ids, nids, cap);
    changes(s->c, depth + loop, ids, nids, cap);
    for (int i = 0; i < s->nkids; i++) changes(s->kids[i], depth, ids, nids, cap);
}

static bool has_break(struct ir_node *s)
{
    if (!s || ir_is_expr(s)) return false;
    if (s->op == IR_BREAK) return true;
    if (has_break(s->b) || has_break(s->c)) return true;
    for (int i = 0; i < s->nkids; i++)
        if (has_break(s->kids[i])) return true;
    return false;
}

static bool stmt(struct ir_node *s);

/* A variable settle may keep: its id, its range at the loop's head (a
 * guess until settled), and what holds without a guess (fall: FULL, or a
 * variable the body only decreases: its upper bound and what it is below). */
struct cand {
    int id;
    struct range h, fall;
};

/* ENV at a loop's head: what the body assigns forgotten, but a counter's
 * lower bound, and with trips (>= 0: at most that many iterations) its
 * upper bound too. Returns the variables' ids the body assigns; with cd,
 * *cd (*ncd of them) the int variables forgotten that had a range before
 * the loop, for settle; with units, the ids of the counters the body
 * raises by at most 1 an iteration (outside inner loops) that were at most
 * from before the loop (-1 ends the list): each is at most the loop's
 * variable wherever the body has not raised it yet. */
static int *loop_head(struct ir_node *body, __int128 trips, int *nids, struct cand **cd, int *ncd, __int128 from,
                      int **units)
{
    int *ids = NULL, cap = 0;
    *nids = 0;
    ir_each_change(body, forget_len);
    changes(body, 0, &ids, nids, &cap);
    if (cd) *cd = xmalloc(sizeof **cd * (size_t)(*nids + 1)), *ncd = 0;
    int nu = 0;
    if (units) *units = xmalloc(sizeof **units * (size_t)(*nids + 1));
    for (int i = 0; i < *nids; i++) {
        struct change *c = &CH[ids[i]];
        struct range *r = ent(ids[i]), was = *r;
        if (units && c->counter && c->scalar && !c->nested && c->step <= 1 && was.hi <= from) (*units)[nu++] = ids[i];
        if (c->counter && !c->nested && trips >= 0 && trips < ((__int128)1 << 64) && c->step < ((__int128)1 << 40))
            *r = clamp(r->lo, r->hi + c->step * trips);
        else if (c->counter)
            *r = clamp(r->lo, INT64_MAX);
        else if (c->down) {
            r->lo = INT64_MIN; /* its upper bound and what it is below hold */
            if (cd && c->scalar && was.lo > INT64_MIN) (*cd)[(*ncd)++] = (struct cand){ids[i], was, *r};
        } else {
            if (cd && c->scalar && (was.lo > INT64_MIN || was.hi < INT64_MAX || was.below))
                (*cd)[(*ncd)++] = (struct cand){ids[i], was, FULL};
            *r = FULL;
        }
        if (was.len) r->len = was.len; /* an array's stores keep its length */
        *c = (struct change){0};
    }
    if (units) (*units)[nu] = -1;
    return ids;
}

/* By var id, while settle walks a body: a candidate's (TRYING), and the
 * join of the values the body assigns it (GOT; lo > hi: none yet). */
static unsigned char *TRYING;
static struct range *GOT;

static void join_one(struct range *a, struct range b)
{
    if (a->lo > a->hi) {
        *a = b;
        return;
    }
    if (b.lo < a->lo) a->lo = b.lo;
    if (b.hi > a->hi) a->hi = b.hi;
    if (!same(a->below, b.below)) a->below = NULL;
    else if (b.gap < a->gap) a->gap = b.gap;
}

/* Whether every value of g is one of h: within its ends, and below what h is below. */
static bool within(struct range h, struct range g)
{
    if (g.lo < h.lo || g.hi > h.hi) return false;
    return !h.below || (same(h.below, g.below) && g.gap >= h.gap);
}

/* The candidates of loop s (loop_head: int variables its body assigns, not
 * as counters, that had a range before it; FULL in ENV now), each given
 * at the head the range it had before the loop joined with the ranges of
 * the values the body assigns it, when that holds: a variable only ever
 * assigned values of a range stays in it (`best = j` of `for j in 0..n`
 * keeps best below n, `m = i` ... `m = j` too). A guess is checked by
 * walking the body once more, DRY, from it: if every value the body
 * assigns a candidate lies within its guess, the guess holds at the head
 * of every iteration (by induction: it holds at the first, and each
 * iteration assigns only values within it), and after the loop. A first
 * failure widens the guess to the join with what the body assigned; a
 * second forgets the candidate (its fall: always holds), which may fail the
 * others once more; a third failure forgets them all. A trial walk starts
 * no trial of the loops inside it: their candidates stay FULL (sound, and
 * it bounds the walks: each loop is walked at most four times per walk of
 * the one around it). */
static void settle(struct ir_node *s, struct cand *cd, int nc)
{
    if (DRY || nc == 0) return;
    struct snap base = env_copy();
    const struct range none = {INT64_MAX, INT64_MIN, NULL, 0, NULL};
    bool ok = false;
    for (int round = 0; round < 4 && !ok; round++) {
        for (int k = 0; k < nc; k++) {
            *ent(cd[k].id) = cd[k].h;
            GOT[cd[k].id] = none;
            TRYING[cd[k].id] = 1;
        }
        DRY++;
        if (s->op == IR_WHILE) {
            expr(s->a);
            refine(s->a, true);
        }
        stmt(s->b);
        DRY--;
        env_restore(base);
        ok = true;
        for (int k = 0; k < nc; k++) {
            struct range g = GOT[cd[k].id];
            TRYING[cd[k].id] = 0;
            if (g.lo > g.hi || within(cd[k].h, g)) continue;
            ok = false;
            if (round == 0) {
                join_one(&cd[k].h, g);
            } else if (round == 1) {
                /* an end that moved again goes to the next threshold: 0 or
                 * the smallest int below, MAX_LEN or the largest int above */
                struct range *h = &cd[k].h;
                bool down = g.lo < h->lo, up = g.hi > h->hi;
                join_one(h, g);
                if (down) h->lo = h->lo >= 0 ? 0 : INT64_MIN;
                if (up) h->hi = h->hi <= MAX_LEN ? MAX_LEN : INT64_MAX;
            } else {
                cd[k].h = cd[k].fall;
            }
        }
    }
    if (ok)
        for (int k = 0; k < nc; k++) *ent(cd[k].id) = cd[k].h;
    snap_free(base);
}

static bool has_continue(struct ir_node *s)
{
    if (!s || ir_is_expr(s)) return false;
    if (s->op == IR_CONTINUE) return true;
    if (has_continue(s->b) || has_continue(s->c)) return true;
    for (int i = 0; i < s->nkids; i++)
        if (has_continue(s->kids[i])) return true;
    return false;
}

static int count_assigns(struct ir_node *s, struct ir_var *v)
{
    if (!s || ir_is_expr(s)) return 0;
    int n = s->op == IR_ASSIGN && s->var == v;
    n += count_assigns(s->b, v) + count_assigns(s->c, v);
    for (int i = 0; i < s->nkids; i++) n += count_assigns(s->kids[i], v);
    return n;
}

/* The most iterations of `while k < e` (or <=) whose body increases k by
 * a step >= 1 at its top level, every iteration (no continue), and
 * assigns it nowhere else; -1: unknown. From ENV before the loop. */
static __int128 while_trips(struct ir_node *s)
{
    struct ir_node *c = s->a, *b = s->b;
    if (!c || c->op != IR_BINARY || c->optype != ty_int || (c->bop != OP_LT && c->bop != OP_LE)) return -1;
    if (c->a->op != IR_VAR || !is_int_var(c->a->var) || !b || b->op != IR_BLOCK) return -1;
    struct ir_var *k = c->a->var;
    if (count_assigns(b, k) != 1 || has_continue(b)) return -1;
    __int128 step = -1;
    for (int i = 0; i < b->nkids; i++)
        if (b->kids[i]->op == IR_ASSIGN && b->kids[i]->var == k) step = increase(b->kids[i]->a, k);
    if (step < 1) return -1;
    /* e's range over every iteration: what the body assigns forgotten */
    struct range k0 = *ent(k->id);
    struct snap before = env_copy();
    int n;
    free(loop_head(b, -1, &n, NULL, NULL, 0, NULL));
    struct range e = expr(c->b);
    env_restore(before);
    snap_free(before);
    __int128 last = c->bop == OP_LT ? e.hi - 1 : e.hi;
    if (last < k0.lo) return 0;
    return (last - k0.lo) / step + 1;
}

/* The range loop's body and what holds after it. */
/* Range loop s inside narrow_in (ir.h): the range of narrow_in's variable
 * where s runs, its branches' conditions applied (`j != 0` and `j != n - 1`
 * in `for j in 0..n`: 1 .. n - 1), as narrow_lo .. narrow_hi, or NULL. The
 * guard test that reads them checks the variable against them (opt_version.c):
 * they choose what is tested, not what is proved. */
static void narrow_range(struct ir_node *s)
{
    struct range r = *ent(s->narrow_in->var->id);
    s->narrow_lo = r.lo > INT64_MIN && fits(r.lo) ? ir_mk_int((int64_t)r.lo, s->loc) : NULL;
    s->narrow_hi = NULL;
    if (r.below && r.gap < ((__int128)1 << 62))
        s->narrow_hi = r.gap ? ir_mk_bin(OP_SUB, ir_copy(NULL, r.below), ir_mk_int((int64_t)r.gap, s->loc), ty_int)
                             : ir_copy(NULL, r.below);
    else if (r.hi < INT64_MAX)
        s->narrow_hi = ir_mk_int((int64_t)r.hi + 1, s->loc);
}

static void for_range(struct ir_node *s)
{
    if (!DRY && s->narrow_in) narrow_range(s);
    struct range lo = expr(s->iter.lo), hi = expr(s->iter.hi);
    short_bounds(&s->iter, lo, hi, s->b, NULL);
    ir_each_change(s->iter.lo, forget_len);
    ir_each_change(s->iter.hi, forget_len);
    if (!DRY && s->iter.inclusive && s->iter.lo->type == ty_int && s->iter.hi->type == ty_int && hi.hi < INT64_MAX) {
        /* lo ..= hi below the largest int: lo .. hi + 1, C's plain loop (the
         * inclusive one keeps a flag so as never to step past hi) */
        struct ir_node *h;
        if (s->iter.hi->op == IR_INT) { /* a literal (short_bounds' too): its successor, so still literal */
            h = ir_mk_int(s->iter.hi->ival + 1, s->iter.hi->loc);
        } else {
            h = ir_mk_bin(OP_ADD, s->iter.hi, ir_mk_int(1, s->iter.hi->loc), ty_int);
            h->no_overflow = true;
        }
        s->iter.hi = h;
        s->iter.inclusive = false;
        hi.lo++, hi.hi++;
    }
    __int128 last = s->iter.inclusive ? hi.hi : hi.hi - 1;
    __int128 trips = last - lo.lo + 1;
    if (trips < 0) trips = 0;
    int n, nc;
    struct cand *cd;
    int *units;
    int *ids = loop_head(s->b, trips, &n, &cd, &nc, lo.lo, &units);
    bool fixed = is_int_var(s->var);
    for (int i = 0; i < n; i++) fixed = fixed && ids[i] != s->var->id;
    free(ids);
    if (is_int_var(s->var)) *ent(s->var->id) = fixed ? clamp(lo.lo, last) : FULL;
    if (fixed && stable(s->iter.hi)) (s->iter.inclusive ? set_at_most : set_below)(ent(s->var->id), s->iter.hi);
    settle(s, cd, nc);
    free(cd);
    /* a counter raised by at most 1 an iteration from at most lo is at most
     * the loop's variable until raised: below what it is below (`out[count]
     * = x` then `count += 1` in `for i in 0..len(xs)`); once raised, x + 1
     * loses the bound. Not after the loop (it may reach hi). */
    for (int i = 0; fixed && units[i] >= 0; i++) {
        struct range *v = ent(s->var->id), *u = ent(units[i]);
        if (v->below && !u->below) u->below = v->below, u->gap = v->gap;
    }
    /* a variable the body assigns is forgotten again (loop_head set it) */
    struct snap head = env_copy();
    stmt(s->b);
    env_restore(head);
    snap_free(head);
    for (int i = 0; fixed && units[i] >= 0; i++) ent(units[i])->below = NULL;
    free(units);
    if (is_int_var(s->var)) *ent(s->var->id) = FULL;
}

/* ENV joined with b: what holds on either path. */
static void join_into(struct snap b)
{
    for (int i = 0; i <= NSLOT; i++) {
        struct range *a = &ENV[i];
        if (i > b.n) {
            *a = FULL;
            continue;
        }
        if (b.r[i].lo < a->lo) a->lo = b.r[i].lo;
        if (b.r[i].hi > a->hi) a->hi = b.r[i].hi;
        if (!same(a->below, b.r[i].below)) a->below = NULL;
        else if (b.r[i].gap < a->gap) a->gap = b.r[i].gap;
        if (!same(a->len, b.r[i].len)) a->len = NULL;
    }
}

/* The range of every element of the [int] array e makes: a literal's (of
 * literals), `[literals] * n`'s, another [int] variable's; else FULL. */
static struct range elements(struct ir_node *e)
{
    if (e->op == IR_VAR) return is_int_array(e->var) ? rng(ent(e->var->id)->lo, ent(e->var->id)->hi) : FULL;
    if (e->op == IR_BINARY && e->bop == OP_MUL && e->a->op == IR_ARRAY) e = e->a;
    if (e->op != IR_ARRAY || e->nkids == 0) return FULL;
    __int128 lo = INT64_MAX, hi = INT64_MIN;
    for (int i = 0; i < e->nkids; i++) {
        if (e->kids[i]->op != IR_INT || e->kids[i]->type != ty_int) return FULL;
        __int128 k = (int64_t)(uint64_t)e->kids[i]->ival;
        if (k < lo) lo = k;
        if (k > hi) hi = k;
    }
    return rng(lo, hi);
}

/* Walks s from ENV; returns whether it can fall through (ENV then holds
 * after it). */
static bool stmt(struct ir_node *s)
{
    if (!s) return true;
    switch (s->sop) {
    case IR_BLOCK:
        for (int i = 0; i < s->nkids; i++)
            if (!stmt(s->kids[i])) return false;
        return true;
    case IR_LET: case IR_ASSIGN: {
        struct range r = expr(s->a);
        ir_each_change(s->a, forget_len);
        if (is_int_var(s->var)) *ent(s->var->id) = r;
        if (s->var->type == ty_bool) *ent(s->var->id) = FULL; /* its truth unknown until a branch tests it */
        if (DRY && s->op == IR_ASSIGN && is_int_var(s->var) && TRYING[s->var->id]) join_one(&GOT[s->var->id], r);
        if (is_int_array(s->var)) {
            struct range e = elements(s->a);
            ent(s->var->id)->lo = e.lo, ent(s->var->id)->hi = e.hi;
        }
        if (s->var->type->kind == T_ARRAY) ent(s->var->id)->len = made_len(s->a);
        if (s->op == IR_LET) note_let(s->var, s->a);
        if (s->op == IR_LET && is_int_var(s->var) && !ASSIGNED[s->var->id]) LETLIT[s->var->id] = step_of(s->a);
        return true;
    }
    case IR_STORE: case IR_PUSH: case IR_UNIQUE: {
        struct range i = FULL;
        for (int k = 0; k < s->nkids; k++) {
            struct range r = expr(s->kids[k]);
            if (k == 0) i = r;
        }
        struct range v = expr(s->a);
        ir_each_change(s, forget_len);
        if (ir_store_one_index(s) && s->kids[0]->type == ty_int && inside(s->var, i)) MARK(s, in_bounds);
        if (s->op == IR_STORE && is_int_array(s->var)) {
            struct range *e = ent(s->var->id);
            if (!ir_store_one_index(s)) v = FULL;
            e->lo = v.lo < e->lo ? v.lo : e->lo, e->hi = v.hi > e->hi ? v.hi : e->hi;
        }
        return true;
    }
    case IR_EXPR:
        expr(s->a);
        ir_each_change(s->a, forget_len);
        return !(s->a && s->a->op == IR_BUILTIN && s->a->builtin == BI_PANIC);
    case IR_RETURN: expr(s->a); return false;
    case IR_BREAK: case IR_CONTINUE: case IR_UNREACHABLE: return false;
    case IR_IF: {
        expr(s->a);
        ir_each_change(s->a, forget_len);
        struct snap before = env_copy();
        refine(s->a, true);
        bool ft = stmt(s->b);
        struct snap then = env_copy();
        env_restore(before);
        refine(s->a, false);
        bool fe = stmt(s->c);
        if (ft && fe) join_into(then);
        else if (ft) env_restore(then);
        snap_free(before);
        snap_free(then);
        return ft || fe;
    }
    case IR_WHILE: {
        int n, nc;
        struct cand *cd;
        ir_each_change(s->a, forget_len);
        free(loop_head(s->b, while_trips(s), &n, &cd, &nc, 0, NULL));
        settle(s, cd, nc);
        free(cd);
        expr(s->a);
        struct snap head = env_copy();
        refine(s->a, true);
        stmt(s->b);
        env_restore(head);
        snap_free(head);
        if (!has_break(s->b)) refine(s->a, false);
        return true;
    }
    case IR_FOR_RANGE: for_range(s); return true;
    case IR_FOR_ARRAY: {
        expr(s->iter.array);
        /* range(a, b, step) of ints, step a literal: from a up to below b, or
         * down to above b (the values are computed one by one: ir_range_values) */
        struct range vals = FULL;
        struct ir_node *r = s->iter.array;
        if (ir_range_values(s) && r->kids[2]->op == IR_INT && (int64_t)r->kids[2]->ival != 0) {
            struct range a = expr(r->kids[0]), b = expr(r->kids[1]);
            vals = (int64_t)r->kids[2]->ival > 0 ? clamp(a.lo, b.hi - 1) : clamp(b.lo + 1, a.hi);
        }
        ir_each_change(s->iter.array, forget_len);
        int n, nc;
        struct cand *cd;
        free(loop_head(s->b, MAX_LEN, &n, &cd, &nc, 0, NULL)); /* an array's elements: at most MAX_LEN */
        if (is_int_var(s->var)) *ent(s->var->id) = vals;
        settle(s, cd, nc);
        free(cd);
        struct snap head = env_copy();
        stmt(s->b);
        env_restore(head);
        snap_free(head);
        return true;
    }
    }
    return true;
}

#define ROUNDS 3 /* a parameter's range from its callers', this many calls deep */

/* ---- generator guards the ranges made unnecessary ------------------------- */

/* Whether n holds an index that gen's guards prove and no range does. */
static bool guard_needed(struct ir_node *n, struct ir_node *gen)
{
    if (!n) return false;
    if (n->in_range_by == gen && !n->in_bounds) return true;
    if (guard_needed(n->a, gen) || guard_needed(n->b, gen) || guard_needed(n->c, gen) ||
        guard_needed(n->elem, gen) || guard_needed(n->filter, gen))
        return true;
    for (int i = 0; i < n->nkids; i++)
        if (guard_needed(n->kids[i], gen)) return true;
    return false;
}

static struct ir_node *DROP; /* the generator whose marks drop_marks clears */

static void drop_marks(struct ir_node *n)
{
    if (!n) return;
    if (n->in_range_by == DROP) n->in_range_by = NULL;
    ir_each_child(n, drop_marks);
}

/* A generator opt_loops.c guarded whose every guarded index a range proves
 * (in_bounds): its second version would be the first, so it has none. */
static void drop_proved_guards(struct ir_node *n)
{
    if (!n) return;
    if (ir_is_expr(n) && (n->op == IR_REDUCE || n->op == IR_LISTCOMP) && n->nguards &&
        !guard_needed(n->elem, n) && !guard_needed(n->filter, n)) {
        DROP = n;
        drop_marks(n->elem);
        drop_marks(n->filter);
        n->nguards = 0;
    }
    ir_each_child(n, drop_proved_guards);
}

/* The state of the variables n names, back to knowing nothing: each
 * variable belongs to one function (or one constant's initialiser), so a
 * function's analysis starts from its own variables' entries alone, in time
 * linear in its size (resetting all NV entries per function was quadratic:
 * 100,000 one-line functions). */
static void reset_id(int id)
{
    *ent(id) = FULL;
    ASSIGNED[id] = 0;
    LENOF[id] = NULL;
    EQLEN[id] = NULL;
    LETLIT[id] = -1;
}

static void reset_var(struct ir_var *v)
{
    if (v) reset_id(v->id);
}

static void reset_vars(struct ir_node *n)
{
    if (!n) return;
    reset_var(n->var);
    reset_var(n->gen_var);
    reset_var(n->ind_var);
    for (int i = 0; i < n->nclauses; i++) reset_var(n->clauses[i].var);
    for (int i = 0; i < n->ncaps; i++) reset_var(n->caps[i]);
    ir_each_child(n, reset_vars);
}

static void reset_fn(struct ir_fn *f, struct ir_node *body)
{
    FN_GEN++;
    NSLOT = 0;
    ENV[0] = FULL;
    reset_id(0);
    reset_id(NV + 1);
    if (f)
        for (int k = 0; k < f->nparams; k++) reset_var(f->params[k]);
    reset_vars(body);
}

void opt_range(struct ir_program *ir)
{
    P = ir;
    NV = ir->nvars;
    ENV = xmalloc(sizeof *ENV * (size_t)(NV + 3)); /* slot 0, and one for each id 0 .. NV + 1 */
    SLOT = xmalloc(sizeof *SLOT * (size_t)(NV + 2));
    SLOT_FN = xmalloc(sizeof *SLOT_FN * (size_t)(NV + 2));
    memset(SLOT_FN, 0, sizeof *SLOT_FN * (size_t)(NV + 2));
    FN_GEN = 0;
    CH = xmalloc(sizeof *CH * (size_t)(NV + 2));
    memset(CH, 0, sizeof *CH * (size_t)(NV + 2));
    ASSIGNED = xmalloc((size_t)NV + 2);
    LENOF = xmalloc(sizeof *LENOF * (size_t)(NV + 2));
    EQLEN = xmalloc(sizeof *EQLEN * (size_t)(NV + 2));
    LETLIT = xmalloc(sizeof *LETLIT * (size_t)(NV + 2));
    TRYING = xmalloc((size_t)NV + 2);
    memset(TRYING, 0, (size_t)NV + 2);
    GOT = xmalloc(sizeof *GOT * (size_t)(NV + 2));
    size_t nf = (size_t)ir->fns.len + 1;
    struct params *prev = NULL;
    /* each round is sound: its parameters' ranges hold every argument the
     * round before saw (itself sound), so its marks are too */
    for (int round = 0; round < ROUNDS; round++) {
        OWN_ROUND = round == 0;
        SEEN = xmalloc(sizeof *SEEN * nf);
        memset(SEEN, 0, sizeof *SEEN * nf);
        for (int i = 0; i < ir->fns.len; i++) {
            struct ir_fn *f = ir->fns.items[i];
            reset_fn(f, f->body);
            note_changes(f->body);
            if (prev && prev[i].called && !prev[i].escapes && f != ir->main)
                for (int k = 0; k < f->nparams; k++)
                    if (is_int_var(f->params[k])) *ent(f->params[k]->id) = prev[i].arg[k];
            stmt(f->body);
        }
        /* the constants' initialisers call functions too */
        for (int i = 0; i < ir->globals.len; i++) {
            struct ir_node *init = ((struct ir_global *)ir->globals.items[i])->init;
            reset_fn(NULL, init);
            expr(init);
        }
        if (prev)
            for (int i = 0; i < ir->fns.len; i++) free(prev[i].arg);
        free(prev);
        prev = SEEN;
    }
    for (int i = 0; i < ir->fns.len; i++) free(prev[i].arg);
    free(prev);
    for (int i = 0; i < ir->fns.len; i++) drop_proved_guards(((struct ir_fn *)ir->fns.items[i])->body);
    literal_bounds();
    SEEN = NULL;
    free(ENV);
    while (NPOOL) free(POOL[--NPOOL].r);
    free(SLOT);
    free(SLOT_FN);
    free(CH);
    free(ASSIGNED);
    free(LENOF);
    free(EQLEN);
    free(LETLIT);
    free(TRYING);
    free(GOT);
    ENV = NULL;
    CH = NULL;
    P = NULL;
    opt_growth_drop(ir); /* growth tests whose adds these facts prove anyway */
}
