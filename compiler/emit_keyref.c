/*
 * emit_keyref.c: SPEC 15's keyed reductions and par scans of values that
 * hold references (str, arrays, functions, and tuples, structs and Options
 * holding them), in the enclosing function's C (emit_c.h).
 *
 * The runtime's forms (runtime/scan.c) move values as plain bytes, so
 * counted values stay here, where every copy retains and every drop
 * releases, and the function's owner releases what a panic leaves:
 *
 * - sequential `by`: one left fold per key, an accumulator per key in the
 *   result array (reduce's entries start as copies of start; min/max's are
 *   Options, None until the key's first element);
 * - `par ... by`, on the calling thread in the tree's order: the kept
 *   elements (value, key, position) into buffers, a stable counting sort
 *   by key (brt_key_order), then per key ascending its elements over the
 *   one tree: each leaf folds from start (min/max: its first element), two
 *   neighbouring leaves a < b of the key meet at level highbit(a ^ b), and
 *   a stack holds the subtrees waiting (levels falling to the top, the open
 *   leaf on top), as runtime/scan.c's records do for plain values;
 * - `par scan`, on the calling thread: the elements and the complete
 *   nodes in post-order (a stack of subtrees over the leaves, every
 *   complete node kept by level), the right spine's combines, each leaf's
 *   carry for L ascending (the carry of L with its lowest 1 bit cleared,
 *   merged with one node), then the entries in index order.
 *
 * So the bits and the panics are SPEC 15's, the same as the plain forms'.
 */
#include "emit_c.h"

#include <string.h>

struct kref_arg {
    struct ir_node *rn;
    const char *res, *nk, *nk0; /* result array; key count (>= 0), N as written */
    bool opt;                   /* min/max: the result's entries are Options */
    const char *vals, *kp, *pos; /* par: kept values, (key, position) pairs, the element counter */
    struct ir_node *filter;     /* par: tested after counting the element */
};

static const char *key_of(struct ir_node *rn, const struct kref_arg *a)
{
    const char *k = tmp(ty_int, "%s", emit_expr(rn->key));
    line("if ((uint64_t)(%s) >= (uint64_t)%s) brt_panic_msg(%s, \"key %%lld out of range 0..%%lld\", (long long)%s, "
         "(long long)%s);",
         k, a->nk, loc_ref(rn->by_loc), k, a->nk0);
    return k;
}

/* Sequential: the element into its key's accumulator. */
static void seq_key_cb(struct ir_node *rn, void *p)
{
    struct kref_arg *a = p;
    struct type *t = rn->elem_type, *rt = rn->type->elem;
    const char *k = key_of(rn, a);
    const char *x = lval(emit_expr(rn->elem), t);
    const char *slot = arena_printf("((%s *)%s->data)[%s]", ctype(rt), a->res, k);
    if (!a->opt) { /* entries start as copies of start */
        combine_into(rn, slot, x);
        return;
    }
    line("if (!%s.f0) { %s(%s); %s(%s.f1); %s.f1 = %s; %s.f0 = 1; }", slot, retain_fn(t), x, release_fn(t), slot, slot, x,
         slot);
    line("else {");
    F->ind++;
    combine_into(rn, arena_printf("%s.f1", slot), x);
    F->ind--;
    line("}");
}

/* Par: the element counted for its leaf; a kept one's value, key and
 * position into the buffers. */
static void par_key_cb(struct ir_node *rn, void *p)
{
    struct kref_arg *a = p;
    struct type *t = rn->elem_type;
    const char *pos = tmp(ty_int, "%s++", a->pos);
    if (a->filter) {
        line("if (%s) {", emit_expr(a->filter));
        F->ind++;
        scope_open();
    }
    const char *k = key_of(rn, a);
    const char *x = take(emit_expr(rn->elem), t);
    line("BRT_PUSH(%s, %s, %s);", ctype(t), a->vals, x);
    line("BRT_PUSH(int64_t, %s, %s); BRT_PUSH(int64_t, %s, %s);", a->kp, k, a->kp, pos);
    if (a->filter) {
        scope_close();
        F->ind--;
        line("}");
    }
}

/* The generator's loops, its first source s already evaluated. */
static void gen_loops(struct ir_node *rn, struct src *s, void (*cb)(struct ir_node *, void *), void *arg)
{
    if (rn->nclauses) seq_loops_from(rn, s, cb, arg);
    else emit_gen_loop(rn, s, cb, arg, NULL);
}

/* stk[top - 1] = stk[top - 1] op stk[top], stk[top] released, top-- . */
static void stack_merge(struct ir_node *rn, const char *stk, const char *sp)
{
    struct type *t = rn->elem_type;
    scope_open();
    combine_into(rn, arena_printf("%s[%s - 2]", stk, sp), arena_printf("%s[%s - 1]", stk, sp));
    scope_close();
    line("%s(%s[%s - 1]); %s--;", release_fn(t), stk, sp, sp);
}

const char *emit_keyed_ref(struct ir_node *rn)
{
    struct type *t = rn->elem_type, *rt = rn->type->elem;
    const char *ct = ctype(t);
    struct kref_arg a = {.rn = rn, .opt = rt != t};
    const char *st = NULL;
    if (rn->user) {
        st = tmp(t, "%s", take(emit_expr(rn->a), t));
        own(st, t);
    }
    struct src s = eval_source(&rn->iter);
    a.nk0 = tmp(ty_int, "%s", emit_expr(rn->b));
    a.nk = tmp(ty_int, "%s < 0 ? 0 : %s", a.nk0, a.nk0);
    a.res = tmp_owned(rn->type, "brt_arr_new(%s, %s)", tdesc(rt), a.nk);
    const char *j = new_temp();
    if (st) {
        line("for (int64_t %s = 0; %s < %s; %s++) {", j, j, a.nk, j);
        line("    %s(((%s *)%s->data)[%s]); %s(%s); ((%s *)%s->data)[%s] = %s;", release_fn(t), ct, a.res, j, retain_fn(t), st,
             ct, a.res, j, st);
        line("}");
    }
    declare_var(rn->gen_var, VS_BORROWED);
    if (!rn->par) {
        gen_loops(rn, &s, seq_key_cb, &a);
        return a.res;
    }
    a.vals = tmp_owned(type_array(t), "brt_arr_new(%s, 0)", tdesc(t));
    a.kp = tmp_owned(type_array(ty_int), "brt_arr_new(&brt_t_int, 0)");
    a.pos = new_temp();
    line("int64_t %s = 0;", a.pos);
    a.filter = rn->filter;
    rn->filter = NULL;
    gen_loops(rn, &s, par_key_cb, &a);
    rn->filter = a.filter;
    /* the order by key: nk + 1 firsts, then the elements' indices */
    const char *m = tmp(ty_int, "%s->len", a.vals);
    const char *ord = tmp_owned(type_array(ty_int), "brt_arr_new(&brt_t_int, %s + 1 + %s)", a.nk, m);
    line("brt_key_order((const int64_t *)%s->data, %s, %s, (int64_t *)%s->data);", a.kp, m, a.nk, ord);
    const char *stk = new_temp(), *lv = new_temp(), *sp = new_temp(), *so = NULL;
    line("%s %s[66]; int %s[66]; int %s = 0;", ct, stk, lv, sp);
    if (F->owner) {
        so = new_temp();
        line("brt_vals_owner %s;", so);
        line("brt_own_vals(&%s, %s, %s, &%s);", so, tdesc(t), stk, sp);
    }
    const char *O = arena_printf("((int64_t *)%s->data)", ord), *KP = arena_printf("((int64_t *)%s->data)", a.kp);
    const char *q = new_temp(), *cl = new_temp(), *leaf = new_temp(), *x = new_temp();
    line("for (int64_t %s = 0; %s < %s; %s++) {", j, j, a.nk, j);
    F->ind++;
    line("int64_t %s = 0;", cl);
    line("for (int64_t %s = %s[%s]; %s < %s[%s + 1]; %s++) {", q, O, j, q, O, j, q);
    F->ind++;
    line("int64_t %s = %s[%s + 1 + %s];", x, O, a.nk, q);
    line("int64_t %s = %s[2 * %s + 1] / BRT_LEAF;", leaf, KP, x);
    const char *xv = arena_printf("((%s *)%s->data)[%s]", ct, a.vals, x);
    const char *top = arena_printf("%s[%s - 1]", stk, sp);
    line("if (%s > 0 && %s == %s) {", sp, leaf, cl);
    F->ind++;
    scope_open();
    combine_into(rn, top, xv);
    scope_close();
    F->ind--;
    line("} else {");
    F->ind++;
    /* the open leaf waits at the level where it meets this one, after the
     * subtrees below that level have folded into it (the most recent first) */
    line("if (%s > 0) {", sp);
    F->ind++;
    const char *h = tmp(ty_int, "63 ^ BRT_CLZ((uint64_t)(%s ^ %s))", cl, leaf);
    line("while (%s >= 2 && %s[%s - 2] < %s) {", sp, lv, sp, h);
    F->ind++;
    stack_merge(rn, stk, sp);
    F->ind--;
    line("}");
    line("%s[%s - 1] = (int)%s;", lv, sp, h);
    F->ind--;
    line("}");
    if (st) {
        line("%s(%s); %s[%s] = %s; %s[%s] = -1; %s++;", retain_fn(t), st, stk, sp, st, lv, sp, sp);
        scope_open();
        combine_into(rn, top, xv);
        scope_close();
    } else {
        line("%s(%s); %s[%s] = %s; %s[%s] = -1; %s++;", retain_fn(t), xv, stk, sp, xv, lv, sp, sp);
    }
    line("%s = %s;", cl, leaf);
    F->ind--;
    line("}");
    F->ind--;
    line("}");
    /* the right spine, from the right */
    line("while (%s >= 2) {", sp);
    F->ind++;
    stack_merge(rn, stk, sp);
    F->ind--;
    line("}");
    const char *slot = arena_printf("((%s *)%s->data)[%s]", ctype(rt), a.res, j);
    if (a.opt)
        line("if (%s) { %s(%s.f1); %s.f1 = %s[0]; %s.f0 = 1; %s = 0; }", sp, release_fn(t), slot, slot, stk, slot, sp);
    else
        line("if (%s) { %s(%s); %s = %s[0]; %s = 0; }", sp, release_fn(t), slot, slot, stk, sp);
    F->ind--;
    line("}");
    if (so) line("brt_own_pop(&%s.o);", so);
    return a.res;
}
