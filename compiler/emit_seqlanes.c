/*
 * emit_seqlanes.c: sequential folds whose elements go several at a time:
 * min and max of numbers in lanes, any and all in blocks.
 *
 * Min and max.
 * `max(xs)`, `min(e for x in xs)`: the scalar fold `if (!has || x > acc)
 * acc = x` is one chain, a compare's (or maxsd's) latency per element.
 * Here the elements up to the first one kept (the first, without a filter)
 * fold as they did, and that one starts acc; the elements after it go
 * MINMAX_LANES at a time (a filter tested in each lane: the element is
 * then evaluated kept or not, so only where it cannot panic), lane q keeping its own
 * acc_[q] = x > acc_[q] ? x : acc_[q] from acc (gcc makes vector compares
 * and blends of the lanes, or max and min instructions, whose NaN and
 * equal-operand rules are this expression's); the lanes then meet into acc
 * by the same rule, and the last elements fold one at a time.
 *
 * The elements are still evaluated in order, each in its own scope (an
 * element that panics does so where the scalar fold's would); only the
 * comparisons are regrouped, and the result is the scalar fold's:
 * - an integer fold's result is the least (greatest) value, whatever the
 *   grouping;
 * - a float is never better than a NaN and a NaN never better than
 *   anything, so a NaN first element stays in every lane and after the
 *   meet (its own bits), and NaNs after it are skipped as the chain skips
 *   them. Otherwise the chain keeps the first element whose value is the
 *   least (greatest), and the value's bits are that element's, except at
 *   zero: -0.0 and 0.0 compare equal and the chain keeps the first. So when
 *   the lanes meet at a zero, the fold starts over, one element at a time.
 *
 * Taken for a sequential min or max (not par's tree order) of int, u64 or
 * float elements, with one clause, an element and filter without loops or
 * calls (its cost is small beside the chain's). Each of the generator's
 * versions (emit_gen_versions: the fast one behind its guards, the checked
 * one) is folded in lanes.
 */
#include "emit_c.h"

#define MINMAX_LANES 8

static bool CHECKS;

static void find_checks(struct ir_node *n)
{
    if (!n || CHECKS) return;
    if (n->op == IR_BINARY && (n->optype == ty_int || n->optype == ty_u64) && !op_is_compare(n->bop) && !n->no_overflow &&
        !n->no_overflow_in)
        CHECKS = true;
    ir_each_child(n, find_checks);
}

/* Whether e holds int arithmetic that may overflow: each element's check a
 * branch, which keeps gcc from making the lanes vectors; without vectors
 * (no 64-bit compare before SSE4.2) eight scalar lanes in memory cost more
 * than the one chain of an int compare and move they break. */
static bool int_checks(struct ir_node *e)
{
    CHECKS = false;
    find_checks(e);
    return CHECKS;
}

bool minmax_lanes_fit(struct ir_node *rn)
{
    struct type *t = rn->elem_type;
    enum reducer red;
    if (rn->user ? !ir_minmax_combine(rn, &red) || red != rn->reducer : rn->reducer != RED_MIN && rn->reducer != RED_MAX)
        return false;
    if (rn->scan || rn->key || rn->nclauses || rn->world) return false;
    if (rn->filter && ir_loops_or_calls(rn->filter)) return false;
    if ((t == ty_int || t == ty_u64) && int_checks(rn->elem)) return false;
    return (t == ty_int || t == ty_u64 || t == ty_float) && !ir_loops_or_calls(rn->elem);
}

/* One element into lane q: with a filter, the element is evaluated whether
 * kept or not (the caller has checked that it cannot panic), and the lane
 * takes it only when kept, so the update is a select, not a store under a
 * branch that gcc would make a masked store to memory each step. */
static void lane_step(struct ir_node *rn, const char *lanes, const char *q)
{
    scope_open();
    const char *keep = rn->filter ? emit_expr(rn->filter) : NULL;
    scope_open();
    const char *x = emit_expr(rn->elem);
    const char *slot = arena_printf("%s[%s]", lanes, q);
    const char *b = better(rn->reducer, rn->elem_type, x, slot);
    if (keep) line("%s = %s && %s ? %s : %s;", slot, keep, b, x, slot);
    else line("%s = %s ? %s : %s;", slot, b, x, slot);
    scope_close();
    scope_close();
}

struct lanes_ctx {
    struct gen_elem g;
    const char *acc, *has, *start;
};

/* One version's loop: the first element, the lanes, the rest. */
static void lanes_loop(struct ir_node *rn, const struct src *s, void *p)
{
    struct lanes_ctx *c = p;
    const char *acc = c->acc, *has = c->has;
    void (*elem)(struct ir_node *, void *) = c->g.elem;
    void *arg = c->g.arg;
    struct type *t = rn->elem_type;
    if (rn->filter && !ir_quiet(rn->elem, IR_QUIET_FACTS, NULL, NULL)) {
        /* an element that may panic is evaluated only when kept: one at a time */
        source_loop(rn, "", s->lo, s->arr, "0", s->n, s->is_range, elem, arg, NULL);
        return;
    }
    const char *k = new_temp();
    /* up to the first element kept: acc */
    line("int64_t %s = 0;", k);
    line("for (; %s < %s && !%s; %s++) {", k, s->n, has, k);
    F->ind++;
    set_gen_var(rn, "", s->lo, s->arr, k, s->is_range);
    iteration(rn, elem, arg);
    F->ind--;
    line("}");
    line("if (%s - %s > %d) {", s->n, k, MINMAX_LANES);
    F->ind++;
    struct { const char *lanes, *q; } la = {new_temp(), new_temp()};
    line("%s %s[%d];", ctype(t), la.lanes, MINMAX_LANES);
    line("for (int %s = 0; %s < %d; %s++) %s[%s] = %s;", la.q, la.q, MINMAX_LANES, la.q, la.lanes, la.q, acc);
    line("for (; %s + %d <= %s; %s += %d) {", k, MINMAX_LANES, s->n, k, MINMAX_LANES);
    F->ind++;
    line("for (int %s = 0; %s < %d; %s++) {", la.q, la.q, MINMAX_LANES, la.q);
    F->ind++;
    set_gen_var(rn, "", s->lo, s->arr, arena_printf("(%s + %s)", k, la.q), s->is_range);
    lane_step(rn, la.lanes, la.q);
    F->ind--;
    line("}");
    F->ind--;
    line("}");
    const char *slot = arena_printf("%s[%s]", la.lanes, la.q);
    line("for (int %s = 0; %s < %d; %s++) if (%s) %s = %s;", la.q, la.q, MINMAX_LANES, la.q,
         better(rn->reducer, t, slot, acc), acc, slot);
    /* a zero's sign is the first zero's: over again, in order (from the
     * start, or from the first element) */
    if (t == ty_float && c->start) line("if (%s == 0.0) { %s = 0; %s = %s; }", acc, k, acc, c->start);
    else if (t == ty_float) line("if (%s == 0.0) { %s = 0; %s = 0; }", acc, k, has);
    F->ind--;
    line("}");
    source_loop(rn, "", s->lo, s->arr, k, s->n, s->is_range, elem, arg, NULL); /* the rest, in order */
}

void emit_minmax_lanes(struct ir_node *rn, const struct src *s, void (*elem)(struct ir_node *, void *), void *arg,
                       const char *acc, const char *has, const char *start)
{
    struct lanes_ctx c = {{elem, arg, NULL}, acc, has, start};
    emit_gen_versions(rn, s, lanes_loop, &c);
}

/*
 * Any and all. `any(p for x in xs [if f])` stops at the first element for
 * which p holds (all: fails). When p and f cannot panic (ir_quiet: float
 * arithmetic and compares, indexing the guards prove, int arithmetic the
 * range analysis proved), evaluating elements after that one changes
 * nothing, so they go ANYALL_BLOCK at a time: each block's tests ORed
 * into an int without a branch (gcc's loop vectorizer makes them vector
 * compares with AVX2; a bool's OR it left scalar; without AVX2 the blocks
 * are left out, BP_TEST_BLOCKS), and the first block
 * with a hit is taken again one element at a time by the fold as written,
 * which sets the result; so does the rest after the last whole block.
 */
#define ANYALL_BLOCK 16

/* ir_quiet's tests too: compares of numbers, not, and, or (none panics) */
static bool quiet_test(const struct ir_node *e, const void *ctx)
{
    if (e->op == IR_BINARY && op_is_compare(e->bop) && (e->optype == ty_float || e->optype == ty_int || e->optype == ty_u64))
        return ir_quiet(e->a, IR_QUIET_FACTS, quiet_test, ctx) && ir_quiet(e->b, IR_QUIET_FACTS, quiet_test, ctx);
    if (e->op == IR_NOT) return ir_quiet(e->a, IR_QUIET_FACTS, quiet_test, ctx);
    if (e->op == IR_AND || e->op == IR_OR)
        return ir_quiet(e->a, IR_QUIET_FACTS, quiet_test, ctx) && ir_quiet(e->b, IR_QUIET_FACTS, quiet_test, ctx);
    return false;
}

bool anyall_blocks_fit(struct ir_node *rn)
{
    if (rn->reducer != RED_ANY && rn->reducer != RED_ALL) return false;
    if (rn->user || rn->nclauses || rn->world || rn->par) return false;
    return !ir_loops_or_calls(rn->elem) && !(rn->filter && ir_loops_or_calls(rn->filter));
}

static void blocks_loop(struct ir_node *rn, const struct src *s, void *p)
{
    struct gen_elem *c = p;
    const char *k = new_temp();
    line("int64_t %s = 0;", k);
    if (ir_quiet(rn->elem, IR_QUIET_FACTS, quiet_test, NULL) &&
        (!rn->filter || ir_quiet(rn->filter, IR_QUIET_FACTS, quiet_test, NULL))) {
        const char *q = new_temp(), *hit = new_temp();
        line("#if BP_TEST_BLOCKS");
        line("for (; %s + %d <= %s; %s += %d) {", k, ANYALL_BLOCK, s->n, k, ANYALL_BLOCK);
        F->ind++;
        line("int %s = 0;", hit);
        line("for (int %s = 0; %s < %d; %s++) {", q, q, ANYALL_BLOCK, q);
        F->ind++;
        set_gen_var(rn, "", s->lo, s->arr, arena_printf("(%s + %s)", k, q), s->is_range);
        scope_open();
        const char *keep = rn->filter ? emit_expr(rn->filter) : NULL;
        const char *x = emit_expr(rn->elem);
        const char *test = rn->reducer == RED_ANY ? x : arena_printf("!%s", x);
        if (keep) line("%s |= (int)%s & (int)(%s);", hit, keep, test);
        else line("%s |= (int)(%s);", hit, test);
        scope_close();
        F->ind--;
        line("}");
        line("if (%s) break;", hit);
        F->ind--;
        line("}");
        line("#endif");
    }
    /* the block with the first hit, and the rest, as written */
    source_loop(rn, "", s->lo, s->arr, k, s->n, s->is_range, c->elem, c->arg, c->stop);
}

void emit_anyall_blocks(struct ir_node *rn, const struct src *s, void (*elem)(struct ir_node *, void *), void *arg,
                        const char *stop)
{
    struct gen_elem c = {elem, arg, stop};
    emit_gen_versions(rn, s, blocks_loop, &c);
}
