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
 *   leaf on top), as runtime/keyed.c's records do for plain values;
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

/* world blocks of 2^WORLD_BLOCK leaves, block b evaluated by rank b % R (as emit_par.c's) */
#define WORLD_BLOCK 6

struct kref_arg {
    struct ir_node *rn;
    const char *res, *nk, *nk0; /* result array; key count (>= 0), N as written */
    bool opt;                   /* min/max: the result's entries are Options */
    const char *vals, *kp, *pos; /* par: kept values, (key, position) pairs, the element counter */
    struct ir_node *filter;     /* par: tested after counting the element */
    const char *wpass, *wroots, *wkp; /* world: the pass; this rank's roots and their (key, position) pairs */
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
    if (a->wpass) { /* world: another rank's block is counted, not evaluated */
        line("if (%s != 0 || (%s / BRT_LEAF >> %d) %% brt_world_size() == brt_world_rank()) {", a->wpass, pos, WORLD_BLOCK);
        F->ind++;
        scope_open();
    }
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
        block_close();
    }
    if (a->wpass) {
        block_close();
    }
}

/* The generator's loops, its first source s already evaluated. */
static void gen_loops(struct ir_node *rn, struct src *s, void (*cb)(struct ir_node *, void *), void *arg)
{
    if (rn->nclauses) seq_loops_from(rn, s, cb, arg);
    else emit_gen_loop(rn, s, cb, arg, NULL);
}

/* The loops with a counter of the elements, kept or not (each counts for
 * its leaf): the callback tests the filter (saved in *filter). */
static void counted_loops(struct ir_node *rn, struct src *s, const char **cnt, struct ir_node **filter,
                          void (*cb)(struct ir_node *, void *), void *arg)
{
    *cnt = new_temp();
    line("int64_t %s = 0;", *cnt);
    *filter = rn->filter;
    rn->filter = NULL;
    gen_loops(rn, s, cb, arg);
    rn->filter = *filter;
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

/* The stack of one key's subtrees (kpass): values, levels, top. */
struct kstack { const char *stk, *lv, *sp; };

/* The stack folded from the right into stk[0], left there (sp 1). */
static void stack_fold(struct ir_node *rn, const struct kstack *k)
{
    line("while (%s >= 2) {", k->sp);
    F->ind++;
    stack_merge(rn, k->stk, k->sp);
    F->ind--;
    line("}");
}

/* world, a rank's share: key j's subtree of the block blk (stack folded)
 * kept as a root (key, the block's first position, value). */
static void root_out(struct ir_node *rn, const struct kref_arg *a, const struct kstack *k, const char *j, const char *blk)
{
    stack_fold(rn, k);
    line("BRT_COLLECT(%s, %s, %s[0]); BRT_COLLECT(int64_t, %s, %s); BRT_COLLECT(int64_t, %s, (%s << %d) * BRT_LEAF); %s = 0;",
         ctype(rn->elem_type), a->wroots, k->stk, a->wkp, j, a->wkp, blk, WORLD_BLOCK, k->sp);
}

/* Per key ascending, its values (vals, in the order ord gives, positions
 * in kp) over the one tree: elements (roots false: a leaf folds from
 * start, or min/max from its first element; in a world rank's share each
 * block's subtree is kept as a root instead of the key's result), or the
 * world's roots (roots true: each a block's complete subtree). */
static void kpass(struct ir_node *rn, const struct kref_arg *a, const struct kstack *k, const char *st, const char *vals,
                  const char *kp, const char *ord, bool roots)
{
    struct type *t = rn->elem_type, *rt = rn->type->elem;
    const char *ct = ctype(t), *stk = k->stk, *lv = k->lv, *sp = k->sp;
    bool share = a->wpass && !roots;
    const char *O = arena_printf("((int64_t *)%s->data)", ord), *KP = arena_printf("((int64_t *)%s->data)", kp);
    const char *j = new_temp(), *q = new_temp(), *cl = new_temp(), *leaf = new_temp(), *x = new_temp();
    const char *blk = share ? new_temp() : NULL;
    line("for (int64_t %s = 0; %s < %s; %s++) {", j, j, a->nk, j);
    F->ind++;
    line("int64_t %s = 0;", cl);
    if (share) line("int64_t %s = 0;", blk);
    line("for (int64_t %s = %s[%s]; %s < %s[%s + 1]; %s++) {", q, O, j, q, O, j, q);
    F->ind++;
    line("int64_t %s = %s[%s + 1 + %s];", x, O, a->nk, q);
    line("int64_t %s = %s[2 * %s + 1] / BRT_LEAF;", leaf, KP, x);
    if (share) {
        line("if (%s == 0 && %s > 0 && (%s >> %d) != %s) {", a->wpass, sp, leaf, WORLD_BLOCK, blk);
        F->ind++;
        root_out(rn, a, k, j, blk);
        F->ind--;
        line("}");
        line("%s = %s >> %d;", blk, leaf, WORLD_BLOCK);
    }
    const char *xv = arena_printf("((%s *)%s->data)[%s]", ct, vals, x);
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
    if (st && !roots) {
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
    if (share) {
        line("if (%s == 0) {", a->wpass);
        F->ind++;
        line("if (%s) {", sp);
        F->ind++;
        root_out(rn, a, k, j, blk);
        F->ind--;
        line("}");
        line("continue;");
        F->ind--;
        line("}");
    }
    /* the right spine, from the right */
    stack_fold(rn, k);
    const char *slot = arena_printf("((%s *)%s->data)[%s]", ctype(rt), a->res, j);
    if (a->opt)
        line("if (%s) { %s(%s.f1); %s.f1 = %s[0]; %s.f0 = 1; %s = 0; }", sp, release_fn(t), slot, slot, stk, slot, sp);
    else
        line("if (%s) { %s(%s); %s = %s[0]; %s = 0; }", sp, release_fn(t), slot, slot, stk, sp);
    F->ind--;
    line("}");
}

/* world.reduce(f, start, gen by ...) of values holding references: the
 * pass (emit_par.c's world_share_begin: 0 a rank's share under the
 * runtime's trap, 1 one rank alone, 2 rank 0's whole run after a share
 * panicked) and the label to come back to. */
static const char *kworld_begin(struct kref_arg *a, const struct kstack *k)
{
    a->wpass = new_temp();
    CG->uses_world = CG->uses_setjmp = true;
    line("volatile int %s = brt_world_size() == 1;", a->wpass);
    const char *again = new_temp();
    line("%s:", again);
    line("if (%s == 0) {", a->wpass);
    F->ind++;
    line("if (setjmp(*(jmp_buf *)brt_world_share_begin(%s))) {", loc_ref(a->rn->loc));
    line("    brt_world_share_end(1, %s); /* returns on rank 0 only */", loc_ref(a->rn->loc));
    line("    %s = 2; %s = 0;", a->wpass, k->sp);
    line("    goto %s;", again);
    line("}");
    F->ind--;
    line("}");
    return again;
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
    struct kstack k = {new_temp(), new_temp(), new_temp()};
    line("%s %s[66]; int %s[66]; int %s = 0;", ct, k.stk, k.lv, k.sp);
    const char *so = NULL;
    if (F->owner) {
        so = new_temp();
        line("brt_vals_owner %s;", so);
        line("brt_own_vals(&%s, %s, %s, &%s);", so, tdesc(t), k.stk, k.sp);
    }
    const char *again = rn->world ? kworld_begin(&a, &k) : NULL;
    if (again) {
        a.wroots = tmp_owned(type_array(t), "brt_arr_new(%s, 0)", tdesc(t));
        a.wkp = tmp_owned(type_array(ty_int), "brt_arr_new(&brt_t_int, 0)");
    }
    a.vals = tmp_owned(type_array(t), "brt_arr_new(%s, 0)", tdesc(t));
    a.kp = tmp_owned(type_array(ty_int), "brt_arr_new(&brt_t_int, 0)");
    counted_loops(rn, &s, &a.pos, &a.filter, par_key_cb, &a);
    /* the order by key: nk + 1 firsts, then the elements' indices */
    const char *m = tmp(ty_int, "%s->len", a.vals);
    const char *ord = tmp_owned(type_array(ty_int), "brt_arr_new(&brt_t_int, %s + 1 + %s)", a.nk, m);
    line("brt_key_order((const int64_t *)%s->data, %s, %s, (int64_t *)%s->data);", a.kp, m, a.nk, ord);
    kpass(rn, &a, &k, st, a.vals, a.kp, ord, false);
    if (again) {
        /* the ranks' roots, ordered by (key, position), as the top of each key's tree */
        const char *L = loc_ref(rn->loc);
        line("if (%s == 0) {", a.wpass);
        F->ind++;
        scope_open();
        line("if (brt_world_share_end(0, %s)) { %s = 2; %s = 0; goto %s; }", L, a.wpass, k.sp, again);
        line("brt_world_keyed_roots(%s, &%s, &%s);", tdesc(t), a.wroots, a.wkp);
        const char *rm = tmp(ty_int, "%s->len", a.wroots);
        const char *rord = tmp_owned(type_array(ty_int), "brt_arr_new(&brt_t_int, %s + 1 + %s)", a.nk, rm);
        line("brt_key_order((const int64_t *)%s->data, %s, %s, (int64_t *)%s->data);", a.wkp, rm, a.nk, rord);
        kpass(rn, &a, &k, st, a.wroots, a.wkp, rord, true);
        line("brt_world_alone();");
        block_close();
        line("if (%s == 2) brt_panic_text(%s, \"world: a rank's share of this reduction panicked\");", a.wpass, L);
    }
    if (so) line("brt_own_pop(&%s.o);", so);
    return a.res;
}

/* ---- par scan(f, start, gen) of values holding references --------------------- */

struct sref_arg {
    struct ir_node *rn;
    const char *st;                 /* start (owned) */
    const char *vals, *kl;          /* kept values and their leaves */
    const char *lv, *lh, *nv, *nh;  /* leaves' values and flags; complete nodes above them */
    const char *cnt;                /* elements of the open leaf */
    struct ir_node *filter;
};

/* Node (k, j)'s value and flag: a leaf's for k = 0, else the complete
 * nodes' (pushed as they complete: node (k, j) completes with leaf L =
 * (j + 1) 2^k - 1, after L - popcount(L) nodes of the leaves before). */
static void node_ref(const struct sref_arg *a, const char *k, const char *j, const char **v, const char **h)
{
    struct type *t = a->rn->elem_type;
    const char *L = tmp(ty_int, "((%s + 1) << %s) - 1", j, k);
    const char *i = tmp(ty_int, "%s == 0 ? %s : %s - brt_count_ones_u64((uint64_t)%s) + %s - 1", k, j, L, L, k);
    *v = arena_printf("((%s *)(%s == 0 ? %s : %s)->data)[%s]", ctype(t), k, a->lv, a->nv, i);
    *h = arena_printf("((bool *)(%s == 0 ? %s : %s)->data)[%s]", k, a->lh, a->nh, i);
}

/* dst (a value of its own, flag dh) merged with (v, h): a side without a
 * value lets the other through. */
static void merge_ref(struct ir_node *rn, const char *dst, const char *dh, const char *v, const char *h)
{
    struct type *t = rn->elem_type;
    line("if (%s) {", h);
    F->ind++;
    line("if (!%s) { %s(%s); %s(%s); %s = %s; %s = 1; }", dh, retain_fn(t), v, release_fn(t), dst, dst, v, dh);
    line("else {");
    F->ind++;
    scope_open();
    combine_into(rn, dst, v);
    block_close();
    F->ind--;
    line("}");
}

/* A copy of (v, h) pushed onto (arr, flags). */
static void push_copy(struct type *t, const char *arr, const char *flags, const char *v, const char *h)
{
    line("%s(%s); BRT_PUSH(%s, %s, %s); BRT_PUSH(bool, %s, %s);", retain_fn(t), v, ctype(t), arr, v, flags, h);
}

/* The open leaf is complete: the nodes it completes, bottom up. */
static void leaf_done(struct sref_arg *a)
{
    struct ir_node *rn = a->rn;
    struct type *t = rn->elem_type;
    const char *L = tmp(ty_int, "%s->len - 1", a->lv), *k = new_temp();
    line("for (int64_t %s = 1; ((%s + 1) & (((int64_t)1 << %s) - 1)) == 0; %s++) {", k, L, k, k);
    F->ind++;
    const char *j = tmp(ty_int, "%s >> %s", L, k), *km = tmp(ty_int, "%s - 1", k);
    const char *lv, *lh, *rv, *rh;
    node_ref(a, km, arena_printf("2 * %s", j), &lv, &lh);
    node_ref(a, km, arena_printf("2 * %s + 1", j), &rv, &rh);
    push_copy(t, a->nv, a->nh, lv, lh);
    merge_ref(rn, arena_printf("((%s *)%s->data)[%s->len - 1]", ctype(t), a->nv, a->nv),
              arena_printf("((bool *)%s->data)[%s->len - 1]", a->nh, a->nh), rv, rh);
    F->ind--;
    line("}");
}

static void scan_ref_cb(struct ir_node *rn, void *p)
{
    struct sref_arg *a = p;
    struct type *t = rn->elem_type;
    line("if (%s == BRT_LEAF) { %s = 0;", a->cnt, a->cnt);
    F->ind++;
    leaf_done(a);
    F->ind--;
    line("}");
    line("if (%s++ == 0) { %s(%s); BRT_PUSH(%s, %s, %s); BRT_PUSH(bool, %s, 0); }", a->cnt, retain_fn(t), a->st, ctype(t),
         a->lv, a->st, a->lh);
    if (a->filter) {
        line("if (%s) {", emit_expr(a->filter));
        F->ind++;
        scope_open();
    }
    const char *x = take(emit_expr(rn->elem), t);
    line("BRT_PUSH(%s, %s, %s); BRT_PUSH(int64_t, %s, %s->len - 1);", ctype(t), a->vals, x, a->kl, a->lv);
    const char *acc = arena_printf("((%s *)%s->data)[%s->len - 1]", ctype(t), a->lv, a->lv);
    scope_open();
    combine_into(rn, acc, arena_printf("((%s *)%s->data)[%s->len - 1]", ctype(t), a->vals, a->vals));
    scope_close();
    line("((bool *)%s->data)[%s->len - 1] = 1;", a->lh, a->lh);
    if (a->filter) {
        block_close();
    }
}

const char *emit_scan_ref(struct ir_node *rn)
{
    struct type *t = rn->elem_type;
    const char *ct = ctype(t);
    struct type *at = type_array(t), *bt = type_array(ty_bool);
    struct sref_arg a = {.rn = rn};
    a.st = tmp(t, "%s", take(emit_expr(rn->a), t));
    own(a.st, t);
    struct src s = eval_source(&rn->iter);
    declare_var(rn->gen_var, VS_BORROWED);
    a.vals = tmp_owned(at, "brt_arr_new(%s, 0)", tdesc(t));
    a.kl = tmp_owned(type_array(ty_int), "brt_arr_new(&brt_t_int, 0)");
    a.lv = tmp_owned(at, "brt_arr_new(%s, 0)", tdesc(t));
    a.lh = tmp_owned(bt, "brt_arr_new(&brt_t_bool, 0)");
    a.nv = tmp_owned(at, "brt_arr_new(%s, 0)", tdesc(t));
    a.nh = tmp_owned(bt, "brt_arr_new(&brt_t_bool, 0)");
    /* phase 1: the elements and the complete nodes, in post-order */
    counted_loops(rn, &s, &a.cnt, &a.filter, scan_ref_cb, &a);
    line("if (%s > 0) {", a.cnt);
    F->ind++;
    leaf_done(&a);
    F->ind--;
    line("}");
    const char *nl = tmp(ty_int, "%s->len", a.lv);
    /* the right spine: the complete subtrees of nl's binary digits, folded
     * from the right (only its combines' panics matter) */
    const char *sv = tmp_owned(at, "brt_arr_new(%s, 0)", tdesc(t)), *sh = tmp_owned(bt, "brt_arr_new(&brt_t_bool, 0)");
    const char *b = new_temp(), *p = new_temp();
    line("int64_t %s = 0;", p);
    line("for (int %s = 62; %s >= 0; %s--) {", b, b, b);
    F->ind++;
    line("if (!((%s >> %s) & 1)) continue;", nl, b);
    const char *v, *h;
    node_ref(&a, b, arena_printf("(%s >> %s)", p, b), &v, &h);
    push_copy(t, sv, sh, v, h);
    line("%s += (int64_t)1 << %s;", p, b);
    F->ind--;
    line("}");
    const char *i = new_temp();
    line("for (int64_t %s = %s->len - 2; %s >= 0; %s--) {", i, sv, i, i);
    F->ind++;
    merge_ref(rn, arena_printf("((%s *)%s->data)[%s]", ct, sv, i), arena_printf("((bool *)%s->data)[%s]", sh, i),
              arena_printf("((%s *)%s->data)[%s + 1]", ct, sv, i), arena_printf("((bool *)%s->data)[%s + 1]", sh, i));
    F->ind--;
    line("}");
    /* the carries, L ascending: L's with its lowest 1 bit cleared, merged
     * with the node that covers the next 2^bit leaves */
    const char *car = tmp_owned(at, "brt_arr_new(%s, 0)", tdesc(t)), *ch = tmp_owned(bt, "brt_arr_new(&brt_t_bool, 0)");
    const char *L = new_temp();
    line("for (int64_t %s = 0; %s < %s; %s++) {", L, L, nl, L);
    F->ind++;
    line("if (%s == 0) { %s(%s); BRT_PUSH(%s, %s, %s); BRT_PUSH(bool, %s, 1); continue; }", L, retain_fn(t), a.st, ct, car,
         a.st, ch);
    const char *prev = tmp(ty_int, "%s & (%s - 1)", L, L), *tz = tmp(ty_int, "(int64_t)BRT_CTZ((uint64_t)%s)", L);
    push_copy(t, car, ch, arena_printf("((%s *)%s->data)[%s]", ct, car, prev), arena_printf("((bool *)%s->data)[%s]", ch, prev));
    node_ref(&a, tz, arena_printf("(%s >> %s) - 1", L, tz), &v, &h);
    merge_ref(rn, arena_printf("((%s *)%s->data)[%s]", ct, car, L), arena_printf("((bool *)%s->data)[%s]", ch, L), v, h);
    F->ind--;
    line("}");
    /* the entries in index order, each leaf's running value in its carry's slot */
    const char *out = tmp_owned(rn->type, "brt_arr_room(%s, %s->len)", tdesc(t), a.vals);
    line("for (int64_t %s = 0; %s < %s->len; %s++) {", i, i, a.vals, i);
    F->ind++;
    const char *run = arena_printf("((%s *)%s->data)[((int64_t *)%s->data)[%s]]", ct, car, a.kl, i);
    scope_open();
    combine_into(rn, run, arena_printf("((%s *)%s->data)[%s]", ct, a.vals, i));
    scope_close();
    line("%s(%s); BRT_PUSH(%s, %s, %s);", retain_fn(t), run, ct, out, run);
    F->ind--;
    line("}");
    return out;
}
