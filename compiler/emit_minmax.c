/*
 * emit_minmax.c: how min and max folds compare and keep their record.
 *
 * better() is the reducer's "x replaces acc" for every ordered type. A
 * tuple holding the generator's own counter compares only the fields
 * before it (counter_field, better_counted). fold_minmax writes one
 * element's fold into the record.
 *
 * The order of min and max is total on every value but NaN, and under a
 * total order the record of a run of elements is its first (min: x < acc
 * replaces) or last (a counted tuple) best element however the run is
 * grouped: the tree of leaves of 16 gives what one pass from left to right
 * gives. So a par leaves() call folds its whole range as one pass, with the
 * record kept a branch seldom taken as in a sequential fold, instead of
 * restarting every 16 elements where a new record comes about every fifth
 * element (emit_minmax_whole); only an element whose compared fields hold a
 * NaN, the one value outside the order, sends the call back to the fold
 * leaf by leaf.
 */
#include "emit_c.h"

#include <string.h>

/* The condition "x is strictly smaller (larger) than acc". */
const char *better(enum reducer r, struct type *t, const char *x, const char *acc)
{
    const char *rel = r == RED_MIN ? "<" : ">";
    if (t == ty_i128) return arena_printf("brt_cmp_i128(%s, %s) %s 0", x, acc, rel);
    if (t == ty_str) return arena_printf("brt_str_cmp(%s, %s) %s 0", x, acc, rel);
    if (t->kind == T_TUPLE) /* lexicographic, by the tuple's own < */
        return r == RED_MIN ? arena_printf("%s_lt(%s, %s)", ctype(t), x, acc) : arena_printf("%s_lt(%s, %s)", ctype(t), acc, x);
    return arena_printf("%s %s %s", x, rel, acc);
}

/* The field of a min or max's tuple elements that is the generator's own
 * counter, its range variable or enumerate's index, each of whose fields
 * before it an int, float or u64: -1 if none. The fold takes its
 * elements in the generator's order, so the element it looks at holds a
 * larger counter than the record it holds (a par reduction's leaf folds
 * its own elements in order too). */
static int counter_field(const struct ir_node *rn)
{
    const struct ir_node *e = rn->elem;
    if (e->op != IR_TUPLE || rn->nclauses) return -1;
    for (int k = 0; k < e->nkids; k++) {
        const struct ir_node *f = e->kids[k];
        bool counter = rn->iter.is_range ? f->op == IR_VAR && f->var == rn->gen_var
                                         : rn->iter.array->op == IR_BUILTIN && rn->iter.array->builtin == BI_ENUMERATE &&
                                               f->op == IR_FIELD && f->field == 0 && f->a->op == IR_VAR && f->a->var == rn->gen_var;
        if (counter) return k;
        struct type *ft = f->type;
        if (ft != ty_int && ft != ty_float && ft != ty_u64) return -1;
    }
    return -1;
}

/* "a comes before b in the tuple's order" (or_equal: "or ties it") over
 * fields j .. k - 1 of numbers, each field deciding unless equal. */
static const char *prefix_before(const char *a, const char *b, int j, int k, bool or_equal)
{
    if (j == k) return or_equal ? "1" : "0";
    if (j == k - 1) return arena_printf("%s.f%d %s %s.f%d", a, j, or_equal ? "<=" : "<", b, j);
    return arena_printf("(%s.f%d == %s.f%d ? %s : %s.f%d < %s.f%d)", a, j, b, j, prefix_before(a, b, j + 1, k, or_equal), a, j, b,
                        j);
}

/* better() for a min or max over tuples whose field k is the counter
 * (counter_field): the element x holds the larger counter, so on ties
 * of the fields before k, x is the larger tuple. x < acc (min) is x's
 * prefix strictly before acc's; acc < x (max) is acc's prefix before x's
 * or tying it. The tuple's < made each element decide through every
 * field's compare and its branch: argmax of 10^6 floats as (x, i) 4.69
 * ms, the C's loop 2.32; with this, 1.56. */
static const char *better_counted(enum reducer r, int k, const char *x, const char *acc)
{
    return r == RED_MIN ? prefix_before(x, acc, 0, k, false) : prefix_before(acc, x, 0, k, true);
}

/* x replaces acc, for element x of rn's generator folded in order. */
static const char *replaces(struct ir_node *rn, const char *x, const char *acc)
{
    int k = counter_field(rn);
    return k >= 0 ? better_counted(rn->reducer, k, x, acc) : better(rn->reducer, rn->elem_type, x, acc);
}

void fold_minmax(struct ir_node *rn, const char *x, const char *acc, const char *has)
{
    struct type *t = rn->elem_type;
    if (type_is_ref(t)) {
        /* the accumulator holds its own reference */
        line("if (BRT_UNLIKELY(!%s || %s)) { BRT_KEEP_BRANCH(); %s(%s); %s(%s); %s = %s; %s = 1; }", has,
             better(rn->reducer, t, x, acc), retain_fn(t), x, release_fn(t), acc, acc, x, has);
    } else if (t->kind == T_TUPLE || t == ty_i128) {
        /* a record seldom replaced, kept a branch: as a conditional move
         * each element would wait on the last one's compare (a chain of
         * branches of its own in a tuple's order). In a par reduction's
         * leaves of 16 (where emit_minmax_whole does not fold the call's
         * range as one pass) a new record comes about every fifth element
         * (H(16) = 3.4), so there a counted tuple's one compare is a move
         * (kept a branch: 7.46 ms, a move 4.03). */
        if (counter_field(rn) >= 0 && rn->par)
            line("if (!%s || %s) { %s = %s; %s = 1; }", has, replaces(rn, x, acc), acc, x, has);
        else
            line("if (BRT_UNLIKELY(!%s || %s)) { BRT_KEEP_BRANCH(); %s = %s; %s = 1; }", has, replaces(rn, x, acc), acc, x,
                 has);
    } else {
        /* a number: gcc's min and max instructions */
        line("if (!%s || %s) { %s = %s; %s = 1; }", has, better(rn->reducer, t, x, acc), acc, x, has);
    }
}

/* "a || b" of two C conditions, "0" being false. */
static const char *or_else(const char *a, const char *b)
{
    return strcmp(a, "0") == 0 ? b : strcmp(b, "0") == 0 ? a : arena_printf("%s || %s", a, b);
}

/* "x's first n fields (n < 0: all of them, nested ones too) hold a NaN"
 * ("0" if none can), or NULL where x is not a number, a bool or a tuple of
 * them. */
static const char *nan_in(struct type *t, const char *x, int n)
{
    if (t == ty_float) return arena_printf("%s != %s", x, x);
    if (t == ty_int || t == ty_u64 || t == ty_bool || t == ty_i128) return "0";
    if (t->kind != T_TUPLE) return NULL;
    const char *any = "0";
    for (int i = 0; i < (n < 0 ? t->nfields : n); i++) {
        const char *f = nan_in(t->fields[i], arena_printf("%s.f%d", x, i), -1);
        if (!f) return NULL;
        any = or_else(any, f);
    }
    return any;
}

/* The compared fields of x hold a NaN: a counted tuple's fields before the
 * counter, else all of them. NULL: not a value folded in one pass. */
static const char *unordered(struct ir_node *rn, const char *x)
{
    return nan_in(rn->elem_type, x, counter_field(rn));
}

bool minmax_whole_fits(struct ir_node *rn)
{
    struct type *t = rn->elem_type;
    return !rn->user && (rn->reducer == RED_MIN || rn->reducer == RED_MAX) && !type_is_ref(t) &&
           (t->kind == T_TUPLE || t == ty_i128) && unordered(rn, "x") != NULL;
}

struct whole_arg { const char *acc, *has, *bad; };

static void whole_cb(struct ir_node *rn, void *p)
{
    struct whole_arg *a = p;
    const char *x = emit_expr(rn->elem);
    const char *nan = unordered(rn, x);
    if (strcmp(nan, "0") == 0) {
        line("if (BRT_UNLIKELY(!%s || %s)) { BRT_KEEP_BRANCH(); %s = %s; %s = 1; }", a->has, replaces(rn, x, a->acc), a->acc, x,
             a->has);
        return;
    }
    /* a counted tuple whose one field before the counter is a float: "x
     * replaces acc, or x is NaN" is "x is not strictly worse" (acc never
     * holds a NaN here), one compare */
    const char *enter = arena_printf("%s || %s", replaces(rn, x, a->acc), nan);
    if (counter_field(rn) == 1)
        enter = rn->reducer == RED_MAX ? arena_printf("!(%s.f0 < %s.f0)", x, a->acc) : arena_printf("!(%s.f0 <= %s.f0)", a->acc, x);
    line("if (BRT_UNLIKELY(!%s || %s)) {", a->has, enter);
    line("    BRT_KEEP_BRANCH();");
    line("    if (%s) %s = 1;", nan, a->bad);
    line("    else { %s = %s; %s = 1; }", a->acc, x, a->has);
    line("}");
}

const char *emit_minmax_whole(struct ir_node *rn, struct src *s)
{
    struct type *t = rn->elem_type;
    const char *b = new_temp(), *e = new_temp(), *acc = new_temp(), *has = new_temp(), *bad = new_temp(),
               *done = new_temp();
    line("int64_t %s = first * BRT_LEAF, %s = (first + count) * BRT_LEAF;", b, e);
    line("if (%s > env->n) %s = env->n;", e, e);
    line("%s %s = %s;", ctype(t), acc, start_value(rn->reducer, t));
    line("bool %s = 0, %s = 0, %s = 0;", has, bad, done);
    struct whole_arg wa = {acc, has, bad};
    if (s->ncl) flat_loop(rn, s, b, e, whole_cb, &wa, bad, NULL);
    else source_loop(rn, "env->", "lo", "arr", b, e, s->is_range, whole_cb, &wa, bad);
    /* the call's record stands for its first leaf; the others hold none */
    line("if (!%s) {", bad);
    line("    for (int64_t q_ = 0; q_ < count; q_++) { ((%s *)vals)[q_] = %s; has[q_] = q_ == 0 && %s; }", ctype(t), acc, has);
    line("    %s = 1;", done);
    line("}");
    return done;
}
