/*
 * emit_minmax.c: a sequential min or max of numbers, folded in lanes.
 *
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

bool minmax_lanes_fit(struct ir_node *rn)
{
    struct type *t = rn->elem_type;
    if (rn->reducer != RED_MIN && rn->reducer != RED_MAX) return false;
    if (rn->user || rn->nclauses || rn->world) return false;
    if (rn->filter && ir_loops_or_calls(rn->filter)) return false;
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
    void (*elem)(struct ir_node *, void *);
    void *arg;
    const char *acc, *has;
};

/* One version's loop: the first element, the lanes, the rest. */
static void lanes_loop(struct ir_node *rn, const struct src *s, void *p)
{
    struct lanes_ctx *c = p;
    const char *acc = c->acc, *has = c->has;
    void (*elem)(struct ir_node *, void *) = c->elem;
    void *arg = c->arg;
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
    if (t == ty_float) /* a zero's sign is the first zero's: over again, in order */
        line("if (%s == 0.0) { %s = 0; %s = 0; }", acc, k, has);
    F->ind--;
    line("}");
    source_loop(rn, "", s->lo, s->arr, k, s->n, s->is_range, elem, arg, NULL); /* the rest, in order */
}

void emit_minmax_lanes(struct ir_node *rn, const struct src *s, void (*elem)(struct ir_node *, void *), void *arg,
                       const char *acc, const char *has)
{
    struct lanes_ctx c = {elem, arg, acc, has};
    emit_gen_versions(rn, s, lanes_loop, &c);
}
