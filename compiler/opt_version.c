/*
 * opt_version.c: guarded loops written in two versions, in the IR (pass
 * `version`), as LLVM's LoopVersioning clones a loop behind its checks.
 *
 * opt_loops.c proves, for an innermost loop, guards under which its bounds
 * checks cannot fail (and opt_range.c the overflows they rule out), and
 * marks the nodes they prove with the loop. This pass writes each such
 * sequential loop as what runs:
 *
 *     let t = lo                  only for a bound that is no repeatable term
 *     if guards(i in lo..hi: xs+1 ...):      versioned, an IR_GUARD_TEST
 *         for i in lo..hi: body   the fast copy (fast_in): the nodes its guards
 *                                 prove name this if (in_range_by, no_overflow_in)
 *     else:
 *         for i in lo..hi: body   the loop as written (slow): every check kept
 *
 * An induction while loop alike, its test over `j < n step s` (opt_loops.c),
 * and a loop over range(lo, hi, step)'s values, over its first to its last.
 * The test evaluates the bounds once; the copies' bounds are the same terms
 * (repeatable: the same value, no panic of their own), so the emitter
 * evaluates them once for all three. A failing guard runs the loop as
 * written, which panics where and as the program does. The loops' views and
 * rowmins move to the if: its copies read the same arrays. The fast copy
 * is new only where it differs (fast_copy: the path to each node it keeps
 * proved, the loop itself); the rest is shared with the loop as written,
 * which the emitter writes in each branch as it wrote one loop twice (the
 * IR after this last pass is read only). A program of 3,000 small loops
 * (hostile loop_functions_3k) builds in 564 MB, 491 before the pass; a deep
 * copy took 631 MB for its C alone.
 *
 * A nest whose inner loop's guards the outer loop cannot change
 * (guards_outside) is versioned whole: the test, over a non-empty inner
 * range (and, an inner loop on the pool, that the runtime would not split
 * it), before the outer loop; then the nest with its inner loop unchecked
 * and in place, else the nest as written (whose inner loop is versioned on
 * its own, or on the pool keeps its guards). gcc can then jam a plain nest.
 *
 * Left to the emitter (emit_loops.c, emit_guards.c) this round: a loop on
 * the pool (its guards tested per chunk, a hoisting nest's too), a swapped
 * or jammed nest, and generators' guards.
 */
#include "ir.h"

#include <stdlib.h>
#include <string.h>

static struct ir_program *P;
static struct ir_node *misplace; /* the test hook's if (BRINE_VERIFY_MISPLACE) */

/* Whether range loop p's inner loop's guards are tested once, before p
 * (guards_outside): its body one guarded range loop, not swapped. */
static bool hoists(const struct ir_node *p)
{
    struct ir_node *in = p->op == IR_FOR_RANGE && p->guards_outside && !p->swap && !p->nguards ? ir_guards_outside_of(p) : NULL;
    return in && in->nguards && !in->swap;
}

/* Whether outer loop p writes its inner loop s by itself: a swapped or
 * jammed nest, or (hoists) its inner loop's guards tested before it. */
static bool nest_of(const struct ir_node *p, const struct ir_node *s)
{
    return p && p->op == IR_FOR_RANGE && (p->swap == s || (hoists(p) && ir_guards_outside_of(p) == s));
}

bool ir_versions(const struct ir_node *s, const struct ir_node *around)
{
    if ((s->op != IR_FOR_RANGE && s->op != IR_WHILE && s->op != IR_FOR_ARRAY) || s->swap || s->par || nest_of(around, s))
        return false;
    if (!s->nguards) return hoists(s);
    return s->op == IR_FOR_RANGE || s->ind_var || ir_range_values(s);
}

/* The facts naming loop `from` in n (anything in it) name `to` instead (NULL: cleared). */
static void retarget(struct ir_node *n, const struct ir_node *from, struct ir_node *to);
static const struct ir_node *rt_from;
static struct ir_node *rt_to;

static void retarget_kid(struct ir_node *n)
{
    if (!n) return;
    if (n->in_range_by == rt_from) n->in_range_by = rt_to;
    if (n->no_overflow_in == rt_from) n->no_overflow_in = rt_to;
    if (misplace && n->op == IR_INDEX) n->in_range_by = misplace, misplace = NULL;
    ir_each_child(n, retarget_kid);
}

static void retarget(struct ir_node *n, const struct ir_node *from, struct ir_node *to)
{
    rt_from = from, rt_to = to;
    retarget_kid(n);
}

/* Whether bound n, evaluated again with its variables unchanged, gives the
 * same value and panics only where its first evaluation did: literals,
 * variables, operators of scalars, if-else, elements, fields, len, min and
 * max of such (no call, no effect). */
static bool repeatable(struct ir_node *n)
{
    switch (n->op) {
    case IR_INT: case IR_BOOL: case IR_FLOAT: case IR_VAR: return true;
    case IR_BINARY:
        return (n->optype == ty_int || n->optype == ty_float || n->optype == ty_bool || n->optype == ty_u64) &&
               repeatable(n->a) && repeatable(n->b);
    case IR_INDEX: case IR_AND: case IR_OR: return repeatable(n->a) && repeatable(n->b);
    case IR_NOT: case IR_FIELD: return repeatable(n->a);
    case IR_COND: return repeatable(n->a) && repeatable(n->b) && repeatable(n->c);
    case IR_BUILTIN:
        if (n->builtin == BI_LEN) return n->nkids == 1 && repeatable(n->kids[0]);
        return (n->builtin == BI_MIN2 || n->builtin == BI_MAX2) && n->type == ty_int && repeatable(n->kids[0]) &&
               repeatable(n->kids[1]);
    default: return false;
    }
}

/* A range loop's bound, read by the test and both copies: a repeatable one
 * as it is, else a temporary a let before the if sets. */
static struct ir_node *bound(struct ir_node **b, struct ir_node *lets)
{
    if (!repeatable(*b)) {
        struct ir_var *t = ir_new_temp(P, (*b)->type, (*b)->loc);
        ir_push_kid(lets, ir_mk_stmt(IR_LET, t, *b, (*b)->loc));
        *b = ir_mk_var(t, (*b)->loc);
    }
    return *b;
}

/* The fast copy of n (anything in it): a new node where n or something in
 * it is proved by `from` (the marks the copy keeps), or is one of the loops
 * the copy changes (top, in); else n itself, shared with the loop as written.
 * The IR after version is read only (the last pass): the emitter writes a
 * shared subtree in each branch, as it wrote one loop twice before. */
static const struct ir_node *cp_from, *cp_top, *cp_in;

static struct ir_node *fast_copy(struct ir_node *n);

static struct ir_node **copy_kids(struct ir_node **kids, int n, bool *changed)
{
    struct ir_node **c = NULL;
    for (int i = 0; i < n; i++) {
        struct ir_node *k = fast_copy(kids[i]);
        if (k != kids[i] && !c) {
            c = xmalloc(sizeof *c * (size_t)n); /* as ir_push_kid's */
            memcpy(c, kids, sizeof *c * (size_t)i);
        }
        if (c) c[i] = k;
    }
    *changed |= c != NULL;
    return c ? c : kids;
}

static struct ir_node *fast_copy(struct ir_node *n)
{
    if (!n) return NULL;
    bool changed = n == cp_top || n == cp_in || n->in_range_by == cp_from || n->no_overflow_in == cp_from;
    struct ir_node *ch[9] = {n->a, n->b, n->c, n->iter.lo, n->iter.hi, n->iter.array, n->elem, n->filter, n->key};
    struct ir_node **kids = copy_kids(n->kids, n->nkids, &changed), **k = copy_kids(ch, 9, &changed);
    struct ir_clause *cl = n->clauses;
    for (int i = 0; i < n->nclauses; i++) {
        struct ir_node *it[3] = {cl[i].iter.lo, cl[i].iter.hi, cl[i].iter.array}, **c;
        bool moved = false;
        if ((c = copy_kids(it, 3, &moved)) && moved) {
            if (cl == n->clauses) {
                cl = arena_alloc(sizeof *cl * (size_t)n->nclauses);
                memcpy(cl, n->clauses, sizeof *cl * (size_t)n->nclauses);
            }
            cl[i].iter.lo = c[0], cl[i].iter.hi = c[1], cl[i].iter.array = c[2];
            changed = true;
        }
    }
    if (!changed) return n;
    struct ir_node *f = ir_new(n->op, n->loc, n->type);
    *f = *n;
    f->kids = kids, f->clauses = cl;
    f->a = k[0], f->b = k[1], f->c = k[2], f->iter.lo = k[3], f->iter.hi = k[4], f->iter.array = k[5];
    f->elem = k[6], f->filter = k[7], f->key = k[8];
    return f;
}

/* Loop s rewritten in place: the versioned if (after the lets its bounds
 * need, in a block). A hoisting nest's (outside: s the outer loop) tests
 * the inner loop's guards and a non-empty inner range once, before s (and,
 * an inner loop on the pool, that the runtime would not split it: the fast
 * nest's inner loop runs in place); its else-branch is the nest as written. */
static struct ir_node *version(struct ir_node *s, bool outside)
{
    struct loc at = s->loc;
    struct ir_node *slow = ir_new(s->op, at, s->type), *lets = ir_new(IR_BLOCK, at, ty_void);
    *slow = *s;
    struct ir_node *test = ir_new(IR_GUARD_TEST, at, ty_bool), *in = outside ? ir_guards_outside_of(slow) : slow;
    test->guards = in->guards, test->nguards = in->nguards;
    if (outside) { /* the outer loop's range: a clause, evaluated first */
        test->guards_outside = true, test->par = in->par;
        test->clauses = arena_alloc(sizeof *test->clauses);
        test->nclauses = 1;
        test->clauses[0].var = slow->var;
        test->clauses[0].iter.is_range = true, test->clauses[0].iter.inclusive = slow->iter.inclusive;
        test->clauses[0].iter.lo = bound(&slow->iter.lo, lets);
        test->clauses[0].iter.hi = bound(&slow->iter.hi, lets);
        slow->guards_outside = false;
    }
    if (slow->op == IR_WHILE) {
        test->ind_var = slow->ind_var, test->ind_inclusive = slow->ind_inclusive;
        ir_push_kid(test, slow->ind_bound);
        ir_push_kid(test, slow->ind_step);
    } else if (slow->op == IR_FOR_ARRAY) { /* over range(lo, hi, step): its first value to its last */
        test->var = slow->var;
        for (int i = 0; i < 3; i++) bound(&slow->iter.array->kids[i], lets);
        ir_push_kid(test, slow->iter.array);
    } else {
        test->var = in->var;
        test->iter.is_range = true, test->iter.inclusive = in->iter.inclusive;
        ir_push_kid(test, bound(&in->iter.lo, lets));
        ir_push_kid(test, bound(&in->iter.hi, lets));
    }
    struct ir_node *iff = lets->nkids ? ir_new(IR_IF, at, ty_void) : s, *proved = outside ? in : s;
    struct ir_var **views = slow->views, **rowmins = slow->rowmins;
    int nviews = slow->nviews, nrowmins = slow->nrowmins;
    slow->views = slow->rowmins = NULL, slow->nviews = slow->nrowmins = 0;
    if (!outside) {
        slow->guards = NULL, slow->nguards = 0;
        slow->ind_var = NULL, slow->ind_bound = slow->ind_step = NULL, slow->ind_inclusive = false;
    }
    cp_from = proved, cp_top = slow, cp_in = in;
    struct ir_node *fast = fast_copy(slow), *fast_in = outside ? ir_guards_outside_of(fast) : fast;
    if (outside) { /* the fast nest's inner loop: unchecked, in place */
        fast_in->guards = NULL, fast_in->nguards = 0;
        fast_in->par = false, fast_in->folds = NULL, fast_in->nfolds = 0;
    }
    retarget(fast, proved, iff);
    /* the test hook: ir_verify must stop at the slow copy's first element read marked proved */
    if (!outside) { /* outside: the nest as written keeps its inner loop's guards */
        static bool hooked;
        misplace = !hooked && getenv("BRINE_VERIFY_MISPLACE") ? iff : NULL;
        hooked = true;
        retarget(slow, s, NULL);
        misplace = NULL;
    }
    retarget(test, proved, NULL); /* evaluated before the guards are known */
    fast_in->fast_in = iff;
    if (!outside) slow->slow = true;
    memset(iff, 0, sizeof *iff);
    iff->op = IR_IF, iff->loc = at, iff->type = ty_void;
    iff->versioned = true;
    iff->a = test, iff->b = fast, iff->c = slow;
    iff->views = views, iff->nviews = nviews, iff->rowmins = rowmins, iff->nrowmins = nrowmins;
    if (iff != s) {
        ir_push_kid(lets, iff);
        *s = *lets;
    }
    return iff;
}

/* The statements of s, around: the loop directly around s (NULL: none). */
static void walk(struct ir_node *s, struct ir_node *around)
{
    if (!s || ir_is_expr(s)) return;
    switch (s->sop) {
    case IR_BLOCK:
        for (int i = 0; i < s->nkids; i++) walk(s->kids[i], around);
        return;
    case IR_IF:
        walk(s->b, around);
        walk(s->c, around);
        return;
    case IR_WHILE: case IR_FOR_RANGE: case IR_FOR_ARRAY:
        if (ir_versions(s, around) && s->nguards) {
            version(s, false);
        } else if (ir_versions(s, around)) {
            walk(version(s, true)->c, around); /* the nest as written: its inner loop versioned on its own */
        } else if (!nest_of(around, s)) {
            walk(s->b, s);
        }
        return;
    case IR_LET: case IR_ASSIGN: case IR_STORE: case IR_PUSH: case IR_UNIQUE: case IR_EXPR: case IR_RETURN:
    case IR_BREAK: case IR_CONTINUE: case IR_UNREACHABLE:
        return;
    }
}

void opt_version(struct ir_program *ir)
{
    P = ir;
    ir->versioned = false;
    for (int i = 0; i < ir->fns.len; i++) walk(((struct ir_fn *)ir->fns.items[i])->body, NULL);
    ir->versioned = true;
}
