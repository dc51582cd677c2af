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
 * (hostile loop_functions_3k) builds in 573 MB (565 without generators'
 * copies), 491 before the pass; a deep copy took 631 MB for its C alone.
 *
 * A nest whose inner loop's guards the outer loop cannot change
 * (guards_outside) is versioned whole: the test, over a non-empty inner
 * range (and, an inner loop on the pool, that the runtime would not split
 * it), before the outer loop; then the nest with its inner loop unchecked
 * and in place, else the nest as written (whose inner loop is versioned on
 * its own, or on the pool keeps its guards). gcc can then jam a plain nest.
 * Inner guards that are columns along the outer variable (ir_guard_outer)
 * leave their rows' lengths to an if of the fast nest's own around its
 * inner loop (rows_each), tested where that loop is entered.
 *
 * An inner loop whose path guards select their last row by the variable
 * of a sequential loop around, under that loop's branches (ir.h:
 * narrow_in), gets a let before that loop of a test of those rows over the
 * range its branches leave the variable (narrow_before), and its own test
 * narrowed by that let: where it holds, only the last rows' lengths.
 *
 * A sequential swapped nest (opt_interchange.c: swap) is versioned whole
 * (swap_nest): the fast nest its two loops exchanged, else the nest as
 * written, whose inner loop is then versioned on its own. A jammed one
 * (jam) alike (jam_nest): the fast nest jammed, its groups of outer
 * iterations in one unchecked inner loop (emit_loops.c), else as written.
 *
 * A fused loop (opt_fuseloops.c: unfused) is versioned as any, its
 * else-branch the loops it fuses as written, each versioned on its own.
 *
 * A range loop's carried reads one iteration back (opt_carry.c:
 * first_read) that its guard proves are read before the fast copy, when
 * it runs, and the copy reads their locals alone: the then-branch is a
 * block of `if lo < hi: t = A[lo + c]` and the copy (first_reads).
 *
 * A generator with guards (a sequential one over an int range) gets its
 * fast copy (fast_gen, version_gen): the same sources and variable, its
 * element and filter without the checks the guards prove, their nodes
 * naming the copy. The emitter tests the guards once its source is
 * evaluated (the values it takes), then writes the copy or the generator
 * as written (emit_gen_loop): an expression has no place for the if.
 *
 * A loop on the pool that would be versioned were it sequential gets its
 * chunk (chunk, ir.h): what runs for each chunk the runtime hands out, over
 * two fresh variables the emitter sets to the chunk's bounds,
 *
 *     for i in lo..hi par chunk[clo .. chi]:
 *         if guards(i in clo..chi: ...): for i in clo..chi: body   fast
 *         else: for i in clo..chi: body                             slow
 *
 * a sequential copy of the loop over them, versioned as above (a hoisting
 * or a swapped or jammed nest's too), its guards tested per chunk. The loop
 * keeps its body (the chunk's loop as written reads it) and rowmins, no
 * guard. The emitter versions nothing itself: with this pass off, every
 * loop runs as written, checked.
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
    if (!in || !in->nguards || in->swap) return false;
    /* a column along p's variable leaves its rows' lengths to the fast
     * nest's own if around its inner loop (rows_each): not one on the pool */
    for (int i = 0; in->par && i < in->nguards; i++)
        if (ir_guard_outer(&in->guards[i], p->var) == 1) return false;
    return true;
}

/* Whether outer loop p writes its inner loop s by itself: a swapped or
 * jammed nest (its fast copy too), or (hoists) its inner loop's guards
 * tested before it. */
static bool nest_of(const struct ir_node *p, const struct ir_node *s)
{
    return p && p->op == IR_FOR_RANGE && (p->swap == s || (hoists(p) && ir_guards_outside_of(p) == s));
}

/* Whether s is a swapped or jammed nest, not a versioned jam's fast copy
 * (its inner loop fast): versioned whole (swap_nest, jam_nest). */
static bool swaps(const struct ir_node *s)
{
    return s->op == IR_FOR_RANGE && s->swap && !s->swap->fast_in;
}

bool ir_versions(const struct ir_node *s, const struct ir_node *around)
{
    if ((s->op != IR_FOR_RANGE && s->op != IR_WHILE && s->op != IR_FOR_ARRAY) || nest_of(around, s)) return false;
    if (s->swap) return swaps(s);
    if (!s->nguards) return hoists(s);
    return s->op == IR_FOR_RANGE || s->ind_var || ir_range_values(s);
}

/* The facts naming loop `from` in n (anything in it) name `to` instead (NULL: cleared). */
static void retarget(struct ir_node *n, const struct ir_node *from, struct ir_node *to);
static const struct ir_node *rt_from;
static struct ir_node *rt_to, *rt_ov_to; /* rt_ov_to: no_overflow_in's */

static void retarget_kid(struct ir_node *n)
{
    if (!n) return;
    if (n->in_range_by == rt_from) n->in_range_by = rt_to;
    if (n->no_overflow_in == rt_from) n->no_overflow_in = rt_ov_to;
    if (misplace && n->op == IR_INDEX) n->in_range_by = misplace, misplace = NULL;
    ir_each_child(n, retarget_kid);
}

static void retarget(struct ir_node *n, const struct ir_node *from, struct ir_node *to)
{
    rt_from = from, rt_to = rt_ov_to = to;
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
static const struct ir_node *cp_from, *cp_from2, *cp_top, *cp_in; /* cp_from2: a swapped nest's inner loop */

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
    bool changed = n == cp_top || n == cp_in || n->in_range_by == cp_from || n->no_overflow_in == cp_from ||
                   (cp_from2 && (n->in_range_by == cp_from2 || n->no_overflow_in == cp_from2));
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

/* The loop as written (slow): the marks naming loop s cleared. The test
 * hook (BRINE_VERIFY_MISPLACE): in the first versioned loop's (or
 * generator's), its first element read marked proved by iff (the fast
 * generator) instead, where ir_verify must stop. */
static void clear_slow(struct ir_node *slow, const struct ir_node *s, struct ir_node *iff)
{
    static bool hooked;
    misplace = !hooked && getenv("BRINE_VERIFY_MISPLACE") ? iff : NULL;
    hooked = true;
    retarget(slow, s, NULL);
    misplace = NULL;
}

/* Guard test t's clause: outer loop o's range, its bounds set first by
 * lets where they are no repeatable term. */
static void outer_clause(struct ir_node *t, struct ir_node *o, struct ir_node *lets)
{
    t->clauses = arena_alloc(sizeof *t->clauses);
    t->nclauses = 1;
    t->clauses[0].var = o->var;
    t->clauses[0].iter.is_range = true, t->clauses[0].iter.inclusive = o->iter.inclusive;
    t->clauses[0].iter.lo = bound(&o->iter.lo, lets);
    t->clauses[0].iter.hi = bound(&o->iter.hi, lets);
}

/* Loop copy slow's views and rowmins, taken off it: they move to its
 * versioned if (place), and its copies read the same arrays. */
static struct ir_node take_views(struct ir_node *slow)
{
    struct ir_node v = {.views = slow->views, .nviews = slow->nviews, .rowmins = slow->rowmins, .nrowmins = slow->nrowmins};
    slow->views = slow->rowmins = NULL, slow->nviews = slow->nrowmins = 0;
    return v;
}

/* The versioned if iff (s itself, or new when lets set bounds first) of
 * test, fast and slow written in s's place, with the views and rowmins
 * moved (take_views). */
static struct ir_node *place(struct ir_node *s, struct ir_node *iff, struct ir_node *lets, struct ir_node *test,
                             struct ir_node *fast, struct ir_node *slow, const struct ir_node *moved)
{
    struct loc at = s->loc;
    memset(iff, 0, sizeof *iff);
    iff->op = IR_IF, iff->loc = at, iff->type = ty_void;
    iff->versioned = true;
    iff->a = test, iff->b = fast, iff->c = slow;
    iff->views = moved->views, iff->nviews = moved->nviews, iff->rowmins = moved->rowmins, iff->nrowmins = moved->nrowmins;
    if (iff != s) {
        ir_push_kid(lets, iff);
        *s = *lets;
    }
    return iff;
}

/* The fast copy of a nest (fast: the outer loop, fast_in its inner loop,
 * in the inner loop as written, tested before the nest by the if iff)
 * whose inner loop's guards name the outer variable as the index of their
 * last row (ir_guard_outer: a column along a path, u[i][j + c][k] in `for
 * j: for k`): the nest's test holds each such guard but for its rows'
 * lengths (the rows on the way, the column's indices over the outer range,
 * the inner indices at least 0: emit_guards.c), and fast_in is written in
 * a versioned if of its own whose test (rows_only) reads each row's length
 * where the inner loop is entered, the rest proved: fast_in unchecked,
 * else a copy of the loop as written (every check). Not all rows' lengths
 * before the nest: each row's header is a block the inner loop reads
 * anyway, and a test of all of them at once waited on those blocks in
 * turn where the loop overlaps each wait with its work (stencil3/
 * while_main at one thread: every path's guard per row 25.0 ms; a plane's
 * rows' lengths all tested before the plane, 25.2; tested row by row as
 * here, 23.6). */
static void rows_each(struct ir_node *fast, struct ir_node *fast_in, struct ir_node *in, struct ir_var *ov)
{
    struct ir_guard *gs = arena_alloc(sizeof *gs * (size_t)in->nguards);
    int n = 0;
    for (int i = 0; i < in->nguards; i++)
        if (ir_guard_outer(&in->guards[i], ov) == 1) gs[n++] = in->guards[i];
    if (!n) return;
    struct loc at = in->loc;
    struct ir_node *test = ir_new(IR_GUARD_TEST, at, ty_bool), *iff = ir_new(IR_IF, at, ty_void);
    test->rows_only = true;
    test->guards = gs, test->nguards = n;
    test->var = in->var;
    test->iter.is_range = true, test->iter.inclusive = in->iter.inclusive;
    ir_push_kid(test, fast_in->iter.lo);
    ir_push_kid(test, fast_in->iter.hi);
    /* the loop as written: a copy of in, its proved nodes new and unmarked */
    cp_from = in, cp_from2 = NULL, cp_top = in, cp_in = NULL;
    struct ir_node *slow = fast_copy(in);
    retarget(slow, in, NULL);
    slow->guards = NULL, slow->nguards = 0, slow->slow = true;
    iff->versioned = true;
    iff->a = test, iff->b = fast_in, iff->c = slow;
    retarget(fast_in, fast_in->fast_in, iff);
    fast_in->fast_in = iff;
    /* in fast_in's place (its parent, a copy on the path to it, is new) */
    if (fast->b == fast_in) {
        fast->b = iff;
        return;
    }
    for (struct ir_node *b = fast->b; b && b->op == IR_BLOCK;) {
        struct ir_node **last = &b->kids[b->nkids - 1];
        if (*last == fast_in) {
            *last = iff;
            return;
        }
        b = *last;
    }
    internal_error("version: a nest's inner loop not where ir_guards_outside_of found it");
}

/* ---- carried elements read once, before the fast copy --------------------
 *
 * opt_carry.c keeps an element a loop stores and reads back an iteration
 * later in a local t, read as `t if has else A[v + c]` (first_read): the
 * first iteration reads the element, checked as written, the later ones
 * t. In the fast copy the guard proves that read in range for every v of
 * the range, so when the loop runs at all the element is read once, before
 * it, at v = lo, into t, and the copy reads t alone: no flag, no branch
 * (editdist's cell chain). The first iteration's read gave that value: the
 * statements before it change no element of A (opt_carry.c), and its
 * indices are the same there (variables the loop does not set). Only a
 * read that cannot panic or overflow at v = lo: its elements proved by this
 * if's guard (rows too), its arithmetic proved by it (no_overflow_in) or an
 * index x + c the guard tested without overflow (bp_span). */
static struct ir_node *fr_iff, *fr_body, *fr_lo;
static struct ir_var *fr_v;

/* Whether statement s (anything in it) defines v (a let). */
static bool defines(const struct ir_node *s, const struct ir_var *v)
{
    if (!s || ir_is_expr(s)) return false;
    if ((s->op == IR_LET || s->op == IR_FOR_RANGE || s->op == IR_FOR_ARRAY) && s->var == v) return true;
    if (s->op == IR_BLOCK)
        for (int i = 0; i < s->nkids; i++)
            if (defines(s->kids[i], v)) return true;
    return s->op != IR_BLOCK && (defines(s->b, v) || defines(s->c, v));
}

static bool fixed_var(const struct ir_node *n)
{
    return n->op == IR_VAR && !n->moved && (n->var == fr_v || (!ir_writes(fr_body, n->var, false) && !defines(fr_body, n->var)));
}

/* Whether n, read at v = lo before the loop, cannot panic and gives what
 * the first iteration's read gave (tested: an index x + c of a proved
 * element, tested by the guard without overflow). */
static bool safe_read(const struct ir_node *n, bool tested)
{
    switch (n->op) {
    case IR_INT: return true;
    case IR_VAR: return fixed_var(n);
    case IR_INDEX: return n->in_range_by == fr_iff && !n->slot && safe_read(n->a, false) && safe_read(n->b, true);
    case IR_BINARY:
        if (n->optype != ty_int || (n->bop != OP_ADD && n->bop != OP_SUB && n->bop != OP_MUL)) return false;
        if (tested && n->bop != OP_MUL && fixed_var(n->a) && n->b->op == IR_INT) return true;
        return n->no_overflow_in == fr_iff && safe_read(n->a, false) && safe_read(n->b, false);
    default: return false;
    }
}

static struct ir_node *fr_read(struct ir_copier *k, const struct ir_node *n)
{
    (void)k;
    return n->var == fr_v ? ir_copy(NULL, fr_lo) : NULL;
}

static struct ir_node *fr_pre; /* the reads before the loop: assign t = A[lo + c] */

/* Whether the reads before the loop set t already. */
static bool preloaded(const struct ir_var *t)
{
    for (int i = 0; i < fr_pre->nkids; i++)
        if (fr_pre->kids[i]->var == t) return true;
    return false;
}

/* The first reads in n (anything in the fast copy's body, a new node
 * there: its read is proved): each that safe_read takes becomes `t`, t
 * read before the loop (once). */
static void first_in(struct ir_node *n)
{
    if (!n || n->op == IR_LISTCOMP || n->op == IR_REDUCE || n->op == IR_FNVAL) return;
    ir_each_child(n, first_in);
    if (n->op != IR_COND || !n->first_read || n->b->op != IR_VAR || !safe_read(n->c, false)) return;
    struct ir_var *t = n->b->var;
    if (!preloaded(t)) {
        struct ir_copier k = {.read = fr_read};
        ir_push_kid(fr_pre, ir_mk_stmt(IR_ASSIGN, t, ir_copy(&k, n->c), n->loc));
    }
    *n = *ir_mk_var(t, n->loc);
}

/* Fast copy fast of versioned if iff (a range loop), its first reads
 * (first_in) made before it: a block of `if lo < hi: t = A[lo + c] ...`
 * and fast; else fast as it is. */
static struct ir_node *first_reads(struct ir_node *fast, struct ir_node *iff)
{
    if (fast->op != IR_FOR_RANGE || fast->iter.lo->type != ty_int) return fast;
    fr_iff = iff, fr_body = fast->b, fr_lo = fast->iter.lo, fr_v = fast->var;
    fr_pre = ir_new(IR_BLOCK, fast->loc, ty_void);
    first_in(fast->b);
    if (!fr_pre->nkids) return fast;
    struct ir_node *runs = ir_new(IR_IF, fast->loc, ty_void), *b = ir_new(IR_BLOCK, fast->loc, ty_void);
    runs->a = ir_mk_bin(fast->iter.inclusive ? OP_LE : OP_LT, ir_copy(NULL, fast->iter.lo), ir_copy(NULL, fast->iter.hi), ty_bool);
    runs->b = fr_pre;
    ir_push_kid(b, runs);
    ir_push_kid(b, fast);
    return b;
}

static struct ir_node *steps_chunk(struct ir_node *fast, struct ir_node *fast_in, const struct ir_node *in,
                                   const struct ir_node *iff, struct ir_node *test);

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
    if (!outside && s->narrow_flag) test->narrow_flag = s->narrow_flag, test->narrow_test = s->narrow_test;
    if (outside) { /* the outer loop's range: a clause, evaluated first */
        test->guards_outside = true, test->par = in->par;
        outer_clause(test, slow, lets);
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
    struct ir_node moved = take_views(slow);
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
    if (!outside) clear_slow(slow, s, iff); /* outside: the nest as written keeps its inner loop's guards */
    retarget(test, proved, NULL); /* evaluated before the guards are known */
    fast_in->fast_in = iff;
    if (outside) rows_each(fast, fast_in, in, slow->var);
    if (outside && in->par && in->steps_in_chunk) fast = steps_chunk(fast, fast_in, in, iff, test);
    if (!outside) slow->slow = true;
    if (s->unfused) { /* a fused loop (opt_fuseloops.c): its else-branch the loops as written */
        fast->unfused = NULL;
        slow = s->unfused;
    } else if (!outside) {
        fast = first_reads(fast, iff);
    }
    return place(s, iff, lets, test, fast, slow, &moved);
}

/* The block of a swapped nest's outer loop that holds its lets and then the
 * inner loop (opt_interchange.c: blocks of one block are looked through). */
static struct ir_node *nest_block(struct ir_node *outer)
{
    struct ir_node *b = outer->b;
    while (b->nkids == 1 && b->kids[0]->op == IR_BLOCK) b = b->kids[0];
    return b;
}

/* Whether guard g of a swapped or jammed nest's inner loop is one its test
 * holds: of an array read along the inner loop. Its guards of rows and of
 * fixed indices the swap guards prove, or the nest does not change
 * (opt_interchange.c); a jam's of a row a let before the inner loop names
 * are tested per group (the fast copy's inner loop keeps them). */
static bool nest_guard(const struct ir_guard *g, const struct ir_node *b, int nlets)
{
    for (int i = 0; i < nlets; i++)
        if (b->kids[i]->op == IR_LET && b->kids[i]->var == g->arr) return false;
    return !g->rows && !g->fixed && !g->base && !g->cols;
}

/* Inner bound n of a nest with guards of one length (gs: same_len) as its
 * fast copy reads it: each len(r) of a row r = b[j + c] (or a let naming
 * it) as len(b[lo + c]), lo the outer range's first value (the test's
 * clause: a literal or a variable), every such row as long (the guard).
 * The index is checked as written (it cannot fail: the guard tested
 * lo + c in range first); n itself where it reads no such len. */
static struct ir_node *one_len(struct ir_node *n, const struct ir_guard *gs, int ngs, struct ir_node *lo)
{
    if (!n) return n;
    if (n->op == IR_BUILTIN && n->builtin == BI_LEN && n->nkids == 1)
        for (int i = 0; i < ngs; i++) {
            if (!gs[i].same_len || !ir_same_expr(gs[i].len_row, n->kids[0], IR_SAME_LOADS | IR_SAME_ARITH)) continue;
            struct ir_node *at = ir_copy(NULL, lo);
            if (gs[i].off) at = ir_mk_bin(OP_ADD, at, ir_mk_int(gs[i].off, n->loc), ty_int);
            struct ir_node *row = ir_new(IR_INDEX, n->loc, gs[i].arr->type->elem);
            row->a = ir_mk_var(gs[i].arr, n->loc), row->b = at;
            return ir_mk_len(row);
        }
    if (n->op != IR_BUILTIN && n->op != IR_BINARY) return n;
    struct ir_node *a = one_len(n->a, gs, ngs, lo), *b = one_len(n->b, gs, ngs, lo);
    struct ir_node **kids = n->nkids ? xrealloc(NULL, sizeof *kids * (size_t)n->nkids) : NULL;
    bool changed = a != n->a || b != n->b;
    for (int i = 0; i < n->nkids; i++) changed |= (kids[i] = one_len(n->kids[i], gs, ngs, lo)) != n->kids[i];
    if (!changed) {
        free(kids);
        return n;
    }
    struct ir_node *f = ir_new(n->op, n->loc, n->type);
    *f = *n;
    f->a = a, f->b = b, f->kids = kids;
    return f;
}

/* Swapped or jammed nest s's guard test, its clause's bounds set first by
 * lets where they are no repeatable term (slow: the nest as written, a copy
 * of s; nlets: the statements of b, the block holding the inner loop, before
 * it): the swap guards, the inner bounds (the inner loop's own: read once,
 * in the test) and the inner loop's guards nest_guard keeps. The nest as
 * written loses its swap: walk versions its inner loop on its own. */
static struct ir_node *nest_test(struct ir_node *s, struct ir_node *slow, struct ir_node *lets, const struct ir_node *b,
                                 int nlets)
{
    struct ir_node *in = s->swap, *test = ir_new(IR_GUARD_TEST, s->loc, ty_bool);
    test->guards = arena_alloc(sizeof *test->guards * (size_t)(in->nguards + 1));
    for (int i = 0; i < in->nguards; i++)
        if (nest_guard(&in->guards[i], b, nlets)) test->guards[test->nguards++] = in->guards[i];
    test->swap_guards = s->swap_guards, test->nswap_guards = s->nswap_guards;
    outer_clause(test, slow, lets);
    test->var = in->var;
    test->iter.is_range = true, test->iter.inclusive = in->iter.inclusive;
    struct ir_node *lo = test->clauses[0].iter.lo;
    ir_push_kid(test, one_len(in->iter.lo, s->swap_guards, s->nswap_guards, lo));
    ir_push_kid(test, one_len(in->iter.hi, s->swap_guards, s->nswap_guards, lo));
    slow->swap = NULL, slow->jam = false, slow->swap_guards = NULL, slow->nswap_guards = 0;
    slow->slots = NULL, slow->nslots = 0, slow->guards_outside = false;
    return test;
}

/* Swapped nest s (opt_interchange.c: for j: lets; for i: body) rewritten in
 * place as the versioned if of the two nests that may run:
 *
 *     if guards(i in ilo..ihi swapped j in lo..hi: swap guards, i's guards):
 *         for i in ilo..ihi:           the fast copy: the inner loop outside,
 *             for j in lo..hi:         no guard of its own, the nodes proved by
 *                 lets; body           the swap guards (s) or i's (in) naming the if
 *     else:
 *         for j in lo..hi: lets; for i in ilo..ihi: body     the nest as written
 *
 * The test reads the inner bounds once, where the first outer iteration
 * would (opt_interchange.c: they do not change in the nest): for a
 * non-empty outer range, after the swap guards that need the outer range
 * alone (the lets' indices); the fast copy's inner loop is over them. The
 * nest as written keeps its inner loop's guards: walk versions it on its own. */
static struct ir_node *swap_nest(struct ir_node *s)
{
    struct loc at = s->loc;
    struct ir_node *slow = ir_new(s->op, at, s->type), *lets = ir_new(IR_BLOCK, at, ty_void);
    *slow = *s;
    struct ir_node *in = s->swap, *test = nest_test(s, slow, lets, NULL, 0);
    test->swapped = true;
    struct ir_node *iff = lets->nkids ? ir_new(IR_IF, at, ty_void) : s;
    struct ir_node moved = take_views(slow);
    cp_from = s, cp_from2 = in, cp_top = slow, cp_in = in;
    struct ir_node *fj = fast_copy(slow), *jb = nest_block(fj), *fi = jb->kids[jb->nkids - 1];
    cp_from2 = NULL;
    jb->kids[jb->nkids - 1] = fi->b; /* the lets, then the inner body, */
    fj->b = jb;                      /* the blocks of one block around them dropped */
    fi->b = ir_new(IR_BLOCK, at, ty_void);
    ir_push_kid(fi->b, fj);
    fi->guards = NULL, fi->nguards = 0, fi->rowmins = NULL, fi->nrowmins = 0;
    fi->fast_in = iff;
    retarget(fj, s, iff);
    /* the inner loop's: its indices (the swap guards prove those of its
     * guards the test leaves out), not its overflows (proved under all its
     * guards, as a loop of its own) */
    rt_from = in, rt_to = iff, rt_ov_to = NULL;
    retarget_kid(fi);
    clear_slow(slow, s, iff);
    retarget(test, s, NULL); /* evaluated before the guards are known */
    retarget(test, in, NULL);
    return place(s, iff, lets, test, fi, slow, &moved);
}

/* Jammed nest s (opt_interchange.c: for i: lets; for j: body; then more
 * statements) rewritten in place as the versioned if of the two nests
 * that may run:
 *
 *     if guards(j in jlo..jhi jammed i in lo..hi jam[...]: j's guards):
 *         for i in lo..hi fast jam:    the fast copy: JAM outer iterations
 *             lets                     at a time in one inner loop, while
 *             for j in ...: body       that many remain and the guards its
 *             more                     inner loop keeps (of the rows the
 *                                      lets name) hold for the group; the
 *                                      iterations left run the else-branch's
 *                                      body (emit_loops.c: emit_jammed)
 *     else:
 *         for i in lo..hi: lets; for j in ...: body; more    as written
 *
 * The test is a swapped nest's (the swap guards, then the inner bounds,
 * read once, and the inner loop's guards of the arrays no let names). The
 * nodes the swap guards (s) or the inner loop's guards (in: indices, not
 * overflows) prove name the if in the lets and the inner loop; the
 * statements after the inner loop are the nest as written's (checked).
 * The nest as written keeps its inner loop's guards: walk versions it on
 * its own. */
static struct ir_node *jam_nest(struct ir_node *s)
{
    struct loc at = s->loc;
    struct ir_node *slow = ir_new(s->op, at, s->type), *lets = ir_new(IR_BLOCK, at, ty_void);
    *slow = *s;
    struct ir_node *in = s->swap, *b = nest_block(s);
    int k = 0; /* the inner loop's place in b, after the lets */
    while (b->kids[k] != in) k++;
    struct ir_node *test = nest_test(s, slow, lets, b, k);
    test->jammed = true;
    struct ir_node *iff = lets->nkids ? ir_new(IR_IF, at, ty_void) : s;
    struct ir_node moved = take_views(slow);
    cp_from = s, cp_from2 = in, cp_top = slow, cp_in = in;
    struct ir_node *fj = fast_copy(slow), *jb = nest_block(fj), *fi = jb->kids[k];
    cp_from2 = NULL;
    for (int i = k + 1; i < b->nkids; i++) jb->kids[i] = b->kids[i]; /* after the inner loop: as written */
    fj->swap = fi, fj->jam = true, fj->slots = s->slots, fj->nslots = s->nslots;
    if (test->kids[0] != in->iter.lo) fi->iter.lo = test->kids[0]; /* the rows' one length (one_len) */
    if (test->kids[1] != in->iter.hi) fi->iter.hi = test->kids[1];
    fi->fast_in = iff;
    retarget(fj, s, iff);
    rt_from = in, rt_to = iff, rt_ov_to = NULL; /* indices, not overflows: as swap_nest */
    retarget_kid(fi);
    clear_slow(slow, s, iff);
    retarget(test, s, NULL); /* evaluated before the guards are known */
    retarget(test, in, NULL);
    return place(s, iff, lets, test, fj, slow, &moved);
}

static void walk(struct ir_node *s, struct ir_node *around);

/* ---- guards narrowed by the branch around their loop (narrow_before) ----
 *
 *     for j in lo..hi:                      let g = guards(j in 1..n - 1 narrowed: u[i][j-1] ...)
 *         if j == 0 or j == n - 1: ...  =>  for j in lo..hi:
 *         else: for k ...: u[i][j - 1][k]       ... for k (versioned: narrowed-by g)
 *
 * A loop's guards that select their last row by the variable of the loop
 * around (ir.h: narrow_in; u[i][j - 1][k] in `for j: for k`), under its
 * branches, hold over the range those branches leave it (opt_range.c: 1 ..
 * n - 1), not over the loop's (j - 1 at j = 0 is out of range): their rows
 * on the way are tested once, before the loop around, over that range, by
 * a let of a narrowed guard test. Each entry of the inner loop tests, when
 * that let holds and its variable is inside the range, only each last
 * row's length over the inner range (its rows read unchecked), and its
 * other guards; else every guard, as written: the test proves what it
 * did, the branch only chooses which range is tested. */

/* Whether expression e reads loop o's variable or one defined in o's body
 * (by a let or a loop): no value before o. */
static bool defined_in(const struct ir_node *n, const struct ir_var *v)
{
    if (!n || ir_is_expr(n)) return false;
    switch (n->sop) {
    case IR_LET: return n->var == v;
    case IR_BLOCK:
        for (int i = 0; i < n->nkids; i++)
            if (defined_in(n->kids[i], v)) return true;
        return false;
    case IR_IF: return defined_in(n->b, v) || defined_in(n->c, v);
    case IR_WHILE: case IR_FOR_RANGE: case IR_FOR_ARRAY: return n->var == v || defined_in(n->b, v);
    case IR_ASSIGN: case IR_STORE: case IR_PUSH: case IR_UNIQUE: case IR_EXPR: case IR_RETURN: case IR_BREAK:
    case IR_CONTINUE: case IR_UNREACHABLE:
        return false;
    }
    return false;
}

static bool reads_inside(const struct ir_node *e, const struct ir_node *o)
{
    if (!e) return false;
    if (e->op == IR_VAR) return e->var == o->var || defined_in(o->b, e->var);
    if (reads_inside(e->a, o) || reads_inside(e->b, o)) return true;
    for (int i = 0; i < e->nkids; i++)
        if (reads_inside(e->kids[i], o)) return true;
    return false;
}

/* The inner loops of o (as from, o's node before narrow_before copies it)
 * in n with narrow guards: each its narrowed test, a let in lets. */
static void narrow_find(struct ir_node *o, const struct ir_node *from, struct ir_node *n, struct ir_node *lets)
{
    if (!n || ir_is_expr(n)) return;
    if (n->op == IR_BLOCK)
        for (int i = 0; i < n->nkids; i++) narrow_find(o, from, n->kids[i], lets);
    if (n->op == IR_IF) {
        narrow_find(o, from, n->b, lets);
        narrow_find(o, from, n->c, lets);
    }
    if (n->op != IR_FOR_RANGE || n->narrow_in != from || n->par || n->chunk || n->swap || n->guards_outside ||
        !n->nguards || !n->narrow_lo || !n->narrow_hi || reads_inside(n->narrow_lo, o) || reads_inside(n->narrow_hi, o))
        return;
    struct ir_node *t = ir_new(IR_GUARD_TEST, n->loc, ty_bool);
    t->narrowed = true;
    t->var = o->var;
    t->iter.is_range = true;
    ir_push_kid(t, n->narrow_lo);
    ir_push_kid(t, n->narrow_hi);
    t->guards = arena_alloc(sizeof *t->guards * (size_t)n->nguards);
    for (int i = 0; i < n->nguards; i++)
        if (n->guards[i].narrow) t->guards[t->nguards++] = n->guards[i];
    if (!t->nguards) return;
    n->narrow_flag = ir_new_temp(P, ty_bool, n->loc);
    n->narrow_test = t;
    n->narrow_in = o;
    ir_push_kid(lets, ir_mk_stmt(IR_LET, n->narrow_flag, t, n->loc));
}

/* Sequential range loop o, before its body is walked: the narrowed tests
 * of its inner loops (narrow_find) let before it, o's node the block of
 * them and a copy of o (returned; o itself where none). */
static struct ir_node *narrow_before(struct ir_node *o)
{
    if (o->op != IR_FOR_RANGE || o->par || o->chunk || o->swap) return o;
    struct ir_node *lets = ir_new(IR_BLOCK, o->loc, ty_void), *loop = ir_new(o->op, o->loc, o->type);
    *loop = *o;
    narrow_find(loop, o, loop->b, lets);
    if (!lets->nkids) return o;
    ir_push_kid(lets, loop);
    *o = *lets;
    return loop;
}

/* ---- the steps of a map in place (map_steps) ----
 *
 *     for s in lo..hi:                 if [in place](xs, least):
 *         xs = [e for x in xs]    =>       for s in lo..hi views[xs]:
 *                                              assign in-place xs = [e for x in xs]
 *                                      else:
 *                                          for s in lo..hi:
 *                                              xs = [e for x in xs]
 *
 * A map of an array into itself, xs = [e for x in xs] (or for i in
 * 0..len(xs), e reading xs only as xs[i]), of an array of plain values that
 * is this function's own (a local, or a parameter its caller handed over),
 * runs in place when xs holds the only reference (emit_map_in_place: each
 * element stored back into its slot). A sequential range loop whose whole
 * body is such a map (the steps of a simulation: for s in 0..steps: ps =
 * [move(p) for p in ps]) tests once, before it, what each step would test:
 * xs the sole holder, not empty, and (a par map: least, the count below
 * which the runtime would not split it) not split. A map in place keeps
 * all three, so every step runs in place, in order: the then-branch, whose
 * map is in-place (no test of its own) and whose loop views xs (its data
 * and length read once: gcc cannot tell that a step's stores leave them).
 * The nest that runs is a plain nest of two loops, which gcc unrolls and
 * jams (two steps in one pass over the array). Else the loop as written,
 * each step testing for itself. The test reads no element: it cannot
 * panic. A range loop's map is the store loop it maps by now (opt_iters.c:
 * map_loop, its steps in the pool's chunks): here come the maps of while
 * loops that counted made range loops. */
static struct ir_fn *map_fn; /* the function being rewritten */

/* Whether v is map_fn's own variable: a local, or a parameter its caller
 * handed over (opt_move.c: owns). */
static bool own_var(const struct ir_var *v)
{
    for (int i = 0; i < map_fn->nparams; i++)
        if (map_fn->params[i] == v) return map_fn->owns && map_fn->owns[i];
    return true;
}

/* The map that is range loop s's whole body (blocks of one statement
 * looked through), or NULL. */
static struct ir_node *steps_map(struct ir_node *s)
{
    if (s->op != IR_FOR_RANGE || s->par || s->nguards || s->fast_in || s->swap || s->chunk) return NULL;
    struct ir_node *b = ir_only_stmt(s->b);
    if (!b || b->op != IR_ASSIGN || b->in_place) return NULL;
    struct ir_node *c = b->a;
    bool map = c->op == IR_LISTCOMP && !c->nclauses && !c->filter && !type_is_ref(c->elem_type) && own_var(b->var) &&
               ir_maps_own_slots(c, b->var);
    return map ? b : NULL;
}

/* Loop s, whose body is map m, rewritten in place as the if above. */
static void map_steps(struct ir_node *s, struct ir_node *m)
{
    struct loc at = s->loc;
    struct ir_node *c = m->a;
    struct ir_node *slow = ir_new(IR_FOR_RANGE, at, ty_void), *fast = ir_new(IR_FOR_RANGE, at, ty_void);
    *slow = *s;
    *fast = *s;
    struct ir_node *in = ir_mk_stmt(IR_ASSIGN, m->var, c, m->loc);
    in->in_place = true;
    fast->b = ir_new(IR_BLOCK, at, ty_void);
    ir_push_kid(fast->b, in);
    fast->views = xmalloc(sizeof *fast->views * (size_t)(s->nviews + 1));
    memcpy(fast->views, s->views, sizeof *fast->views * (size_t)s->nviews);
    fast->views[fast->nviews++] = m->var;
    struct ir_node *test = ir_new(IR_BUILTIN, at, ty_bool);
    test->builtin = BI_IN_PLACE;
    ir_push_kid(test, ir_mk_var(m->var, at));
    /* a par map (as written: split whenever it has two slots; on the pool:
     * ir_par_least's count) runs in place, in order, where it would not split */
    ir_push_kid(test, ir_mk_int(c->pool ? ir_par_least(c->elem) : c->par ? 2 : 0, at));
    memset(s, 0, sizeof *s);
    s->op = IR_IF, s->loc = at, s->type = ty_void;
    s->a = test, s->b = fast, s->c = slow;
}

/* ---- a chunk's captures ------------------------------------------------------ */

static struct ir_var **sc_caps;
static int sc_n, sc_cap;

static void sc_add(struct ir_node *n)
{
    if (!n) return;
    if (n->op == IR_VAR) {
        int i = 0;
        while (i < sc_n && sc_caps[i] != n->var) i++;
        if (i == sc_n) {
            VEC_GROW(sc_caps, sc_n, sc_cap);
            sc_caps[sc_n++] = n->var;
        }
    }
    ir_each_child(n, sc_add);
}

static int by_id(const void *a, const void *b)
{
    const struct ir_var *x = *(struct ir_var *const *)a, *y = *(struct ir_var *const *)b;
    return (x->id > y->id) - (x->id < y->id);
}

static void sc_var(struct ir_var *v)
{
    if (v) sc_add(ir_mk_var(v, v->loc));
}

static void sc_guards(const struct ir_guard *g, int n)
{
    for (int i = 0; i < n; i++) {
        sc_var(g[i].arr), sc_var(g[i].at_var), sc_var(g[i].idx_var);
        for (int k = 0; k < g[i].npath; k++) sc_var(g[i].path_vars[k]);
        sc_add(g[i].base), sc_add(g[i].at), sc_add(g[i].len_row);
    }
}

/* Loop s on the pool given the variables its chunk's guard test t reads
 * (the chunk's helper evaluates it) that are defined before it: a guard's
 * base may read one the body does not (x@(n + steps - 2), the last index
 * of x[i + s] over the steps); a row a let in the body names is the
 * body's. */
static void guard_caps(struct ir_node *s, const struct ir_node *t)
{
    sc_n = 0;
    for (int i = 0; i < s->ncaps; i++) sc_var(s->caps[i]);
    int had = sc_n;
    sc_guards(t->guards, t->nguards);
    sc_guards(t->swap_guards, t->nswap_guards);
    int n = 0;
    for (int i = 0; i < sc_n; i++)
        if (i < had || (sc_caps[i] != s->var && sc_caps[i] != s->chunk_lo && sc_caps[i] != s->chunk_hi &&
                        !defined_in(s->b, sc_caps[i])))
            sc_caps[n++] = sc_caps[i];
    if (n == had) return;
    qsort(sc_caps, (size_t)n, sizeof *sc_caps, by_id);
    s->caps = arena_alloc(sizeof *s->caps * (size_t)(n + 1));
    memcpy(s->caps, sc_caps, sizeof *s->caps * (size_t)n);
    s->ncaps = n;
}

/* ---- the steps inside the chunks --------------------------------------------- *
 *
 * A hoisting nest whose inner loop runs on the pool and may take the outer
 * loop into its chunks (opt_parfor.c: steps_in_chunk) gets as its fast
 * copy, where that nest cannot panic (every check the test proves, or a
 * range fact; quiet_stmt), one loop on the pool over the inner range whose
 * chunk is the whole fast nest over the chunk's slice:
 *
 *     if guards(i in lo..hi outside s in 0..steps: ...):
 *         for i in lo..hi par chunk[clo .. chi]:
 *             for s in 0..steps: for i in clo..chi: body      fast, unchecked
 *     else:
 *         for s in 0..steps: for i in lo..hi par: body        the nest as written
 *
 * Each thread runs every step over its own slice (its cache, one fork-join
 * for the nest, and the plain nest the C compiler jams); when the runtime
 * does not split, the chunk is the fast nest over the whole range, as
 * before. A nest that may panic keeps the form above with the test's
 * unsplit clause: its first panic in program order is the lowest (s, i),
 * which chunks of steps would not find first. */
static const struct ir_node *q_iff; /* the versioned if whose test proves the nest */

static bool quiet_also(const struct ir_node *e, const void *ctx);

static bool quiet(const struct ir_node *e)
{
    return !e || ir_quiet(e, IR_QUIET_FACTS, quiet_also, NULL);
}

/* ir_quiet's hook: what else cannot panic in the fast nest (the nodes the
 * test proves, comparisons, conditions, fields, tuples). */
static bool quiet_also(const struct ir_node *e, const void *ctx)
{
    (void)ctx;
    switch (e->op) {
    case IR_INDEX: return (e->in_bounds || e->in_range_by == q_iff) && quiet(e->a) && quiet(e->b);
    case IR_FIELD: case IR_NOT: return quiet(e->a);
    case IR_AND: case IR_OR: return quiet(e->a) && quiet(e->b);
    case IR_COND: return quiet(e->a) && quiet(e->b) && quiet(e->c);
    case IR_TUPLE:
        for (int i = 0; i < e->nkids; i++)
            if (!quiet(e->kids[i])) return false;
        return true;
    case IR_UNARY:
        return (e->optype == ty_float || e->bop == OP_BNOT || e->no_overflow || e->no_overflow_in == q_iff) && quiet(e->a);
    case IR_BINARY:
        if (op_is_compare(e->bop)) return quiet(e->a) && quiet(e->b);
        if (e->optype == ty_int && (e->bop == OP_ADD || e->bop == OP_SUB || e->bop == OP_MUL))
            return (e->no_overflow || e->no_overflow_in == q_iff) && quiet(e->a) && quiet(e->b);
        if (e->optype == ty_int && (e->bop == OP_DIV || e->bop == OP_MOD)) /* by a literal other than 0 and -1 */
            return e->b->op == IR_INT && (int64_t)e->b->ival != 0 && (int64_t)e->b->ival != -1 && quiet(e->a);
        return false;
    default: return false;
    }
}

/* Whether statement s cannot panic (q_iff's test holding), nor end the nest early. */
static bool quiet_stmt(const struct ir_node *s)
{
    if (!s) return true;
    switch (s->sop) {
    case IR_BLOCK:
        for (int i = 0; i < s->nkids; i++)
            if (!quiet_stmt(s->kids[i])) return false;
        return true;
    case IR_LET: case IR_ASSIGN: case IR_EXPR: return quiet(s->a);
    case IR_STORE: case IR_UNIQUE: {
        bool indexed = false;
        for (int i = 0; i < s->nkids; i++) {
            if (s->kids[i]->op == IR_FIELD && !s->kids[i]->a) continue;
            indexed = true;
            if (!quiet(s->kids[i])) return false;
        }
        return (!indexed || s->op == IR_UNIQUE || s->in_bounds || s->in_range_by == q_iff) && quiet(s->a);
    }
    case IR_IF: return quiet(s->a) && quiet_stmt(s->b) && quiet_stmt(s->c);
    case IR_FOR_RANGE:
        return !s->par && !s->nguards && !s->swap && quiet(s->iter.lo) && quiet(s->iter.hi) && quiet_stmt(s->b);
    case IR_CONTINUE: case IR_BREAK: return true;
    case IR_FOR_ARRAY: case IR_WHILE: case IR_PUSH: case IR_RETURN: case IR_UNREACHABLE: return false;
    }
    return false;
}

/* Fast nest fast (its inner loop fast_in, a copy of in, on the pool as
 * written) as one loop on the pool whose chunk it is (above), or fast itself
 * where it may panic. Its captures: the inner loop's but the outer
 * variable (the chunk's own), and what the outer bounds read. */
static struct ir_node *steps_chunk(struct ir_node *fast, struct ir_node *fast_in, const struct ir_node *in,
                                   const struct ir_node *iff, struct ir_node *test)
{
    const struct ir_node *b = ir_only_stmt(fast->b);
    q_iff = iff;
    bool ok = fast->op == IR_FOR_RANGE && b == fast_in && quiet_stmt(fast); /* the inner loop alone: no unique before it */
    q_iff = NULL;
    if (!ok) return fast;
    struct loc at = in->loc;
    struct ir_node *p = ir_new(IR_FOR_RANGE, at, ty_void);
    p->var = in->var;
    p->iter = fast_in->iter;
    p->b = in->b; /* the iteration's work, for the runtime's grain (ir_par_least) */
    p->par = true;
    sc_n = 0;
    for (int i = 0; i < in->ncaps; i++)
        if (in->caps[i] != fast->var) sc_add(ir_mk_var(in->caps[i], at));
    sc_add(fast->iter.lo);
    sc_add(fast->iter.hi);
    if (sc_n) qsort(sc_caps, (size_t)sc_n, sizeof *sc_caps, by_id);
    p->caps = arena_alloc(sizeof *p->caps * (size_t)(sc_n + 1));
    if (sc_n) memcpy(p->caps, sc_caps, sizeof *p->caps * (size_t)sc_n);
    p->ncaps = sc_n;
    p->chunk_lo = ir_new_temp(P, ty_int, at);
    p->chunk_hi = ir_new_temp(P, ty_int, at);
    fast_in->iter.lo = ir_mk_var(p->chunk_lo, at);
    fast_in->iter.hi = ir_mk_var(p->chunk_hi, at);
    p->chunk = fast;
    test->par = false; /* split or not: the runtime's, in the loop */
    return p;
}

/* Loop s on the pool given its chunk (ir.h): a sequential copy of s over
 * the fresh chunk_lo .. chunk_hi, the nodes naming s naming the copy,
 * rewritten as walk rewrites any sequential loop: its guards (a swapped
 * nest's, a hoisting nest's inner loop's) tested per chunk, where the
 * emitter tested them. The copy takes s's guards and views; s keeps its
 * body (the chunk's loop as written reads it, the emitter's estimate of
 * its work and its folds too) and its rowmins (their tables are the
 * enclosing C function's). */
static void chunk(struct ir_node *s)
{
    struct loc at = s->loc;
    struct ir_node *c = ir_new(IR_FOR_RANGE, at, ty_void);
    *c = *s;
    c->par = false, c->caps = NULL, c->ncaps = 0, c->folds = NULL, c->nfolds = 0;
    c->rowmins = NULL, c->nrowmins = 0;
    s->chunk_lo = ir_new_temp(P, ty_int, at);
    s->chunk_hi = ir_new_temp(P, ty_int, at);
    c->iter.lo = ir_mk_var(s->chunk_lo, at);
    c->iter.hi = ir_mk_var(s->chunk_hi, at);
    retarget(c->b, s, c);
    s->guards = NULL, s->nguards = 0, s->guards_outside = false;
    s->swap = NULL, s->jam = false, s->swap_guards = NULL, s->nswap_guards = 0, s->slots = NULL, s->nslots = 0;
    s->views = NULL, s->nviews = 0;
    s->chunk = c;
    walk(c, s); /* c rewritten in place */
    struct ir_node *iff = c->op == IR_BLOCK && c->nkids ? c->kids[c->nkids - 1] : c;
    if (iff->op == IR_IF && iff->a->op == IR_GUARD_TEST) guard_caps(s, iff->a);
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
        if (ir_versions(s, around) && s->par) {
            chunk(s);
        } else if (ir_versions(s, around) && s->swap) {
            /* the nest as written: its inner loop versioned on its own */
            walk((s->jam ? jam_nest(s) : swap_nest(s))->c, around);
        } else if (ir_versions(s, around) && s->nguards) {
            struct ir_node *iff = version(s, false);
            if (iff->c->op == IR_BLOCK) walk(iff->c, around); /* a fused loop's: the loops as written */
        } else if (ir_versions(s, around)) {
            walk(version(s, true)->c, around); /* the nest as written: its inner loop versioned on its own */
        } else if (!nest_of(around, s)) {
            struct ir_node *m = steps_map(s);
            if (m) {
                map_steps(s, m);
            } else {
                struct ir_node *o = narrow_before(s);
                walk(o->b, o);
            }
        }
        return;
    case IR_LET: case IR_ASSIGN: case IR_STORE: case IR_PUSH: case IR_UNIQUE: case IR_EXPR: case IR_RETURN:
    case IR_BREAK: case IR_CONTINUE: case IR_UNREACHABLE:
        return;
    }
}

/* Generator n with guards (opt_loops.c: a sequential one over an int
 * range) given its fast copy (fast_gen): new on the paths to the nodes
 * the guards prove, which name the copy; the generator as written keeps
 * its guards (the emitter tests them over the values it takes, then runs
 * one of the two: emit_gen_loop) and no proved node. */
static void version_gen(struct ir_node *n)
{
    cp_from = n, cp_top = n, cp_in = NULL;
    struct ir_node *f = fast_copy(n);
    f->nguards = 0, f->guards = NULL;
    f->fast_in = n;
    retarget(f, n, f);
    clear_slow(n, n, f);
    n->fast_gen = f;
}

/* The generators in n (anything, the copies the walk made included, a
 * loop on the pool's chunk too). */
static void gens(struct ir_node *n)
{
    if (!n) return;
    if ((n->op == IR_REDUCE || n->op == IR_LISTCOMP) && n->nguards && !n->fast_gen) version_gen(n);
    ir_each_written(n, gens);
}

void opt_version(struct ir_program *ir)
{
    P = ir;
    ir->versioned = false;
    for (int i = 0; i < ir->fns.len; i++) {
        map_fn = ir->fns.items[i];
        walk(map_fn->body, NULL);
    }
    for (int i = 0; i < ir->fns.len; i++) gens(((struct ir_fn *)ir->fns.items[i])->body);
    ir->versioned = true;
    free(sc_caps);
    sc_caps = NULL;
    sc_n = sc_cap = 0;
}
