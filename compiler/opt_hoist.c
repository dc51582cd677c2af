/*
 * opt_hoist.c: loop-invariant values made once, before their loop (the
 * pass `hoist`).
 *
 *   for i in 0..n:                         let t = float(nb)
 *       counts[int(xs[i] * float(nb))] += 1   =>  for i in 0..n:
 *                                                  counts[int(xs[i] * t)] += 1
 *
 * Which loops: sequential range, array and while loops (not a loop on the
 * pool, nor anything inside one: its body runs on other threads; not a
 * versioned if's copies, which may share their nodes). Which values: each
 * maximal subexpression E of the loop (its body, a while loop's condition)
 * that
 *   - is quiet (ir_quiet): it neither panics nor does anything, so it may
 *     run even where the loop runs no iteration, or where the place it was
 *     written is not reached (a branch not taken);
 *   - reads only variables the loop neither assigns nor defines (ir_writes,
 *     ir_defines; not its variable, not a last use handing its reference
 *     over), and elements and len only of arrays it does not store into,
 *     push onto, reassign or change by a method: E has the same value
 *     before the loop as at every place the loop evaluates it;
 *   - is an int, a float or a bool (a register; no reference to count) and
 *     worth one: it holds a conversion, an element, a multiplication, a
 *     division or the math of floats (not a bare variable or literal).
 * E becomes a read of `let t = E`, placed just before the loop; equal
 * values (ir_same_expr) share one let. The loops are taken outermost
 * first, so E leaves every loop whose variables it does not read.
 *
 * An element E reads is quiet only where its index was proved in bounds
 * (in_bounds), a fact of its place (a condition around it, the loop's
 * range): before the loop it may not hold. So a value with elements is
 * made `E if <every index inside its array> else 0` (the tests in the order
 * E reads them, each after the ones its index reads): where E was
 * evaluated in the loop the indices were inside (the same variables, the
 * same arrays), so t is E there; elsewhere t is never read.
 *
 * Exactness: E moves whole, its operations in the same order on the same
 * values (no reassociation, no contraction): the same bits.
 *
 * Where a let may not go: inside a loop whose body must stay as another
 * pass left it (a nest swapped, jammed or guarded outside, a fused loop
 * whose loops as written may share its statements, opt_fuseloops.c): such a
 * loop may lose values to a let before it, never gain one inside it. The
 * pass runs before version (its copies share their nodes, and the checks
 * it leaves out are of either copy, not one) and after every pass that
 * proves an element in bounds (range, relations).
 */
#include "ir.h"

#include <string.h>

static struct ir_program *P;
static struct ir_node *L; /* the loop values leave */

enum { MAX_HOIST = 16 };
static struct ir_node *HVAL[MAX_HOIST]; /* their values and lets, in the order first met */
static struct ir_var *HTMP[MAX_HOIST];
static int NH;

#define SAME (IR_SAME_LEN_VAR | IR_SAME_LOADS | IR_SAME_BUILTIN1 | IR_SAME_CONV)

static bool is_loop(const struct ir_node *s)
{
    return s && (s->op == IR_FOR_ARRAY || s->op == IR_WHILE || (s->op == IR_FOR_RANGE && !s->par));
}

/* A loop inside which no let may go (see the top). */
static bool sealed(const struct ir_node *s)
{
    return s->op == IR_FOR_RANGE && (s->swap || s->jam || s->guards_outside || s->unfused || s->nslots);
}

/* Whether L cannot change variable v. */
static bool steady_var(struct ir_var *v)
{
    return v != L->var && !ir_defines(L, v) && !ir_writes(L, v, true);
}

/* Whether quiet value e reads only what L cannot change. */
static bool steady(const struct ir_node *e)
{
    if (!e) return true;
    if (e->op == IR_VAR) return !e->moved && steady_var(e->var);
    if (e->op == IR_INDEX && (e->slot || e->a->op != IR_VAR || e->b->type != ty_int)) return false;
    if (!steady(e->a) || !steady(e->b) || !steady(e->c)) return false;
    for (int i = 0; i < e->nkids; i++)
        if (!steady(e->kids[i])) return false;
    return true;
}

/* Whether e holds work worth a register: a conversion, an element, a
 * multiplication, a division or a builtin but len. */
static bool work(const struct ir_node *e)
{
    if (!e) return false;
    switch (e->op) {
    case IR_CONV: case IR_INDEX: return true;
    case IR_BINARY:
        if (e->bop == OP_MUL || e->bop == OP_DIV) return true;
        break;
    case IR_BUILTIN:
        if (e->builtin != BI_LEN) return true;
        break;
    default: break;
    }
    if (work(e->a) || work(e->b) || work(e->c)) return true;
    for (int i = 0; i < e->nkids; i++)
        if (work(e->kids[i])) return true;
    return false;
}

static bool reads_var(const struct ir_node *e)
{
    if (!e) return false;
    if (e->op == IR_VAR) return true;
    if (reads_var(e->a) || reads_var(e->b) || reads_var(e->c)) return true;
    for (int i = 0; i < e->nkids; i++)
        if (reads_var(e->kids[i])) return true;
    return false;
}

/* Whether e is worth a let: it does work, and reads a variable (a value of
 * literals alone gcc folds where it is). */
static bool worth(const struct ir_node *e)
{
    return work(e) && reads_var(e);
}

/* The tests that every index e reads is inside its array, in reading
 * order, joined onto g. */
static struct ir_node *inside(const struct ir_node *e, struct ir_node *g)
{
    if (!e) return g;
    g = inside(e->a, inside(e->b, inside(e->c, g)));
    for (int i = 0; i < e->nkids; i++) g = inside(e->kids[i], g);
    if (e->op != IR_INDEX) return g;
    struct loc at = e->loc;
    bool natural = e->b->op == IR_INT && (int64_t)e->b->ival >= 0; /* a literal: only the upper test */
    struct ir_node *lo = natural ? NULL : ir_mk_bin(OP_LE, ir_mk_int(0, at), ir_copy(NULL, e->b), ty_bool);
    struct ir_node *hi = ir_mk_bin(OP_LT, ir_copy(NULL, e->b), ir_mk_len(ir_mk_var(e->a->var, at)), ty_bool);
    return ir_mk_and(g, ir_mk_and(lo, hi));
}

/* The value of t's let: e, or e where its indices are inside, else 0. */
static struct ir_node *let_value(struct ir_node *e)
{
    struct ir_node *g = inside(e, NULL);
    if (!g) return e;
    struct ir_node *zero = ir_new(e->type == ty_int ? IR_INT : e->type == ty_float ? IR_FLOAT : IR_BOOL, e->loc, e->type);
    struct ir_node *c = ir_new(IR_COND, e->loc, e->type);
    c->a = g;
    c->b = e;
    c->c = zero;
    return c;
}

/* Its elements' marks of a guard (in_range_by, by_cols) cleared: each is
 * in_bounds, and the let is outside the loop whose guards they name. */
static void unmark(struct ir_node *e)
{
    if (!e) return;
    e->in_range_by = NULL;
    e->by_cols = false;
    unmark(e->a), unmark(e->b), unmark(e->c);
    for (int i = 0; i < e->nkids; i++) unmark(e->kids[i]);
}

/* *at, if it is such a value, read from its let; else its parts. */
static void visit(struct ir_node **at)
{
    struct ir_node *e = *at;
    if (!e) return;
    switch (e->op) {
    case IR_LISTCOMP: case IR_REDUCE: case IR_FNVAL: case IR_GUARD_TEST: return; /* scopes and copies of their own */
    default: break;
    }
    if ((e->type == ty_int || e->type == ty_float || e->type == ty_bool) && ir_quiet(e, IR_QUIET_IN_BOUNDS, NULL, NULL) &&
        worth(e) && steady(e)) {
        int h = 0;
        while (h < NH && !ir_same_expr(HVAL[h], e, SAME)) h++;
        if (h == NH) {
            if (NH == MAX_HOIST) return;
            HVAL[NH] = e, HTMP[NH] = ir_new_temp(P, e->type, e->loc), NH++;
            unmark(e);
        }
        *at = ir_mk_var(HTMP[h], e->loc);
        return;
    }
    visit(&e->a), visit(&e->b), visit(&e->c);
    for (int i = 0; i < e->nkids; i++) visit(&e->kids[i]);
}

/* The values of statement s (and the statements in it). */
static void visit_stmt(struct ir_node *s)
{
    if (!s) return;
    switch (s->sop) {
    case IR_BLOCK:
        for (int i = 0; i < s->nkids; i++) visit_stmt(s->kids[i]);
        break;
    case IR_LET:
        if (!s->borrow && !s->take) visit(&s->a);
        break;
    case IR_ASSIGN: case IR_EXPR: case IR_RETURN: visit(&s->a); break;
    case IR_STORE: case IR_PUSH:
        for (int i = 0; i < s->nkids; i++) visit(&s->kids[i]);
        visit(&s->a);
        break;
    case IR_IF:
        if (s->versioned) break;
        visit(&s->a), visit_stmt(s->b), visit_stmt(s->c);
        break;
    case IR_WHILE:
        if (!s->ind_var && !s->nguards) visit(&s->a);
        visit_stmt(s->b);
        break;
    case IR_FOR_RANGE:
        if (!s->par) visit_stmt(s->b);
        break;
    case IR_FOR_ARRAY: visit_stmt(s->b); break;
    case IR_UNIQUE: case IR_BREAK: case IR_CONTINUE: case IR_UNREACHABLE: break;
    }
}

/* Loop b->kids[k]'s invariant values made in lets before it; how many. */
static int hoist_out(struct ir_node *b, int k)
{
    L = b->kids[k];
    NH = 0;
    if (L->op == IR_WHILE && !L->ind_var && !L->nguards) visit(&L->a);
    visit_stmt(L->b);
    if (!NH) return 0;
    struct ir_node **kids = arena_alloc((size_t)(b->nkids + NH) * sizeof *kids);
    memcpy(kids, b->kids, (size_t)k * sizeof *kids);
    for (int h = 0; h < NH; h++) kids[k + h] = ir_mk_stmt(IR_LET, HTMP[h], let_value(HVAL[h]), L->loc);
    memcpy(kids + k + NH, b->kids + k, (size_t)(b->nkids - k) * sizeof *kids);
    b->kids = kids;
    b->nkids += NH;
    return NH;
}

static void walk(struct ir_node *s, bool frozen);

/* Block b's loops, outermost first; frozen: no let may go into b. */
static void walk_block(struct ir_node *b, bool frozen)
{
    for (int k = 0; k < b->nkids; k++) {
        if (!frozen && is_loop(b->kids[k])) k += hoist_out(b, k);
        walk(b->kids[k], frozen);
    }
}

/* The blocks of statement s, frozen where s is a block of a frozen place;
 * a loop's body where the loop is not sealed (an if's branches and a
 * loop's body: lets go only into blocks). */
static void walk(struct ir_node *s, bool frozen)
{
    if (!s) return;
    switch (s->sop) {
    case IR_BLOCK: walk_block(s, frozen); break;
    case IR_IF:
        if (s->versioned) break;
        walk(s->b, s->b && s->b->op != IR_BLOCK);
        walk(s->c, s->c && s->c->op != IR_BLOCK);
        break;
    case IR_FOR_RANGE: case IR_FOR_ARRAY: case IR_WHILE:
        if (!is_loop(s) || sealed(s)) break;
        walk(s->b, s->b && s->b->op != IR_BLOCK);
        break;
    case IR_LET: case IR_ASSIGN: case IR_STORE: case IR_PUSH: case IR_EXPR: case IR_UNIQUE: case IR_BREAK:
    case IR_CONTINUE: case IR_RETURN: case IR_UNREACHABLE:
        break;
    }
}

void opt_hoist(struct ir_program *ir)
{
    P = ir;
    for (int i = 0; i < ir->fns.len; i++) walk(((struct ir_fn *)ir->fns.items[i])->body, false);
}
