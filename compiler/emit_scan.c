/*
 * emit_scan.c: the C of SPEC 15's forms (emit_c.h): reduce(f, start, gen),
 * scans, and reductions by key.
 *
 * Sequential reduce and scan are loops in the enclosing function (any
 * type), the combine written in place: f's call, which the optimizer made
 * direct and inlined when f is known, or the built-in reducer's operation.
 * par reduce, par scan and every keyed reduction go to runtime/scan.c and
 * keyed.c (brt_fold_reduce, brt_scan_run, brt_keyed_run) through four helpers
 * beside the function: bp_elems<n> (elements into slots, with the filter
 * and the key), bp_comb<n> (the combine), and bp_lfold<n> / bp_lscan<n>
 * (runs of values folded with the combine inlined; bp_lfolds<n> and
 * bp_lscans<n> four whole leaves side by side); keyed ones also get
 * bp_kleaf<n> (elements straight into per-key accumulators) and
 * bp_kmerge<n> (two rows of per-key values merged, by masks when the
 * combine cannot panic), bp_kstamp<n> and bp_kcoll<n> (a block's elements
 * into its row of all keys, a key's later leaves in the block onto its
 * stack), bp_kstk<n> (buffered elements onto per-key stacks of the tree's
 * nodes) and bp_kroots<n> (each key's stack folded into its result);
 * those whose result the order cannot change also get bp_kfree<n>
 * (elements straight into a task's own per-key accumulators, unchecked,
 * with a guard: runtime/keyfree.c). A par reduce whose f is float addition from 0.0 (or
 * multiplication from 1.0) is exactly par sum (product), and is emitted
 * as one.
 */
#include "emit_c.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* acc = combine(acc, b) in the current function: acc a C lvalue holding a
 * value of its own (a reference for str and arrays), b borrowed. */
void combine_into(struct ir_node *rn, const char *acc, const char *b)
{
    struct type *t = rn->elem_type;
    const char *L = loc_ref(rn->loc);
    if (rn->user) {
        const char *l = declare_var(rn->comb_l, VS_BORROWED), *r = declare_var(rn->comb_r, VS_BORROWED);
        line("%s = %s;", l, acc);
        line("%s = %s;", r, b);
        scope_open();
        const char *x = emit_expr(rn->c);
        x = take(x, t);
        if (type_is_ref(t)) {
            const char *nx = new_temp();
            line("%s %s = %s;", ctype(t), nx, x);
            line("%s(%s);", release_fn(t), acc);
            x = nx;
        }
        line("%s = %s;", acc, x);
        scope_close();
        return;
    }
    switch (rn->reducer) {
    case RED_SUM: case RED_PRODUCT:
        if (t == ty_float) {
            line("%s = %s %s %s;", acc, acc, rn->reducer == RED_SUM ? "+" : "*", b);
            fold_barrier(acc);
        } else line("%s = brt_%s_%s(%s, %s, %s);", acc, rn->reducer == RED_SUM ? "add" : "mul", num_suffix(t), acc, b, L);
        return;
    case RED_MIN: case RED_MAX:
        if (type_is_ref(t))
            line("if (%s) { %s(%s); %s(%s); %s = %s; }", better(rn->reducer, t, b, acc), retain_fn(t), b, release_fn(t), acc,
                 acc, b);
        else
            line("if (%s) %s = %s;", better(rn->reducer, t, b, acc), acc, b);
        return;
    case RED_ANY:
        line("%s = %s || %s;", acc, acc, b);
        return;
    case RED_ALL:
        line("%s = %s && %s;", acc, acc, b);
        return;
    }
}

/* The start value (NULL: min/max, which start from the first element). */
static const char *fold_start(struct ir_node *rn)
{
    if (rn->user) return emit_expr(rn->a);
    if (rn->reducer == RED_MIN || rn->reducer == RED_MAX) return NULL;
    return start_value(rn->reducer, rn->elem_type);
}

/* ---- sequential reduce and scan ------------------------------------------------ */

struct seq_arg { struct ir_node *rn; const char *acc, *has, *out; };

static void seq_cb(struct ir_node *rn, void *p)
{
    struct seq_arg *a = p;
    struct type *t = rn->elem_type;
    const char *x = emit_expr(rn->elem);
    x = lval(x, t);
    if (a->has) {
        line("if (!%s) {", a->has);
        F->ind++;
        if (type_is_ref(t)) line("%s(%s);", retain_fn(t), x);
        line("%s = %s; %s = 1;", a->acc, x, a->has);
        F->ind--;
        line("} else {");
        F->ind++;
        combine_into(rn, a->acc, x);
        F->ind--;
        line("}");
    } else {
        combine_into(rn, a->acc, x);
    }
    if (a->out) {
        if (type_is_ref(t)) line("%s(%s);", retain_fn(t), a->acc);
        line("BRT_PUSH(%s, %s, %s);", ctype(t), a->out, a->acc);
    }
}

static const char *seq_fold(struct ir_node *rn)
{
    struct type *t = rn->elem_type;
    const char *st = fold_start(rn);
    struct src s = {0};
    if (!rn->nclauses) s = eval_source(&rn->iter);
    declare_var(rn->gen_var, VS_BORROWED);
    const char *acc = new_temp();
    struct seq_arg a = {rn, acc, NULL, NULL};
    if (st) {
        st = take(st, t);
        line("%s %s = %s;", ctype(t), acc, st);
    } else {
        line("%s %s = %s;", ctype(t), acc, zero_of(t));
        a.has = new_temp();
        line("bool %s = 0;", a.has);
    }
    own(acc, t); /* from here (and the scan's out): a panic in an element releases them */
    if (rn->scan) a.out = tmp_owned(rn->type, "brt_arr_new(%s, 0)", tdesc(t));
    if (rn->nclauses) seq_loops(rn, 0, seq_cb, &a, NULL);
    else source_loop(rn, "", s.lo, s.arr, "0", s.n, s.is_range, seq_cb, &a, NULL);
    if (rn->scan) {
        if (type_is_ref(t)) line("%s(%s);", release_fn(t), take(acc, t));
        return a.out;
    }
    return acc;
}

/* ---- the runtime's forms ------------------------------------------------------------ */

struct elems_arg { struct ir_node *rn; const char *k; };

/* The key's range check (nk >= 0: one unsigned compare), with SPEC 15's
 * message. */
static void key_check(struct ir_node *rn, const char *kk)
{
    line("if ((uint64_t)(%s) >= (uint64_t)env->nk) brt_panic_msg(%s, \"key %%lld out of range 0..%%lld\", (long long)%s, "
         "(long long)env->nk0);",
         kk, loc_ref(rn->by_loc), kk);
}

static void elems_cb(struct ir_node *rn, void *p)
{
    struct elems_arg *a = p;
    if (rn->key) {
        const char *kk = emit_expr(rn->key);
        key_check(rn, kk);
        line("keys[%s - lo_] = %s;", a->k, kk);
    }
    const char *x = emit_expr(rn->elem);
    line("((%s *)vals)[%s - lo_] = %s;", ctype(rn->elem_type), a->k, x);
    if (rn->filter) line("if (kept) kept[%s - lo_] = 1;", a->k);
}

/* kleaf: each kept element straight into its key's accumulator (no
 * buffer); kmerge: two rows of per-key values merged as the tree's nodes
 * merge. */
struct kleaf_arg { struct ir_node *rn; int id; const char *pos; bool ident; };

/* Whether the reducer's start is its combine's identity, exactly: 0 (0.0)
 * + v and 1 * v are v, v + 0.0 is v since no sum the tree makes is -0.0
 * (each leaf starts at 0.0), and false || v, true && v are v. Then a key
 * without a value may hold the start and be combined like any other. */
static bool start_ident(struct ir_node *rn)
{
    return !rn->user &&
           (rn->reducer == RED_SUM || rn->reducer == RED_PRODUCT || rn->reducer == RED_ANY || rn->reducer == RED_ALL);
}

static void kleaf_cb(struct ir_node *rn, void *p)
{
    struct kleaf_arg *a = p;
    const char *ct = ctype(rn->elem_type);
    const char *kk = emit_expr(rn->key);
    key_check(rn, kk);
    const char *k = new_temp(), *x = new_temp();
    line("int64_t %s = %s;", k, kk);
    line("%s %s = %s;", ct, x, emit_expr(rn->elem));
    /* a row of all keys: with a start, accs already hold it; with the
     * identity, the flags are not kept (the runtime's ident) */
    if (a->ident) {
        line("bp_comb%d(envp, &a_[%s], &%s);", a->id, k, x);
        return;
    }
    line("if (st_) { bp_comb%d(envp, &a_[%s], &%s); has[%s] = 1; }", a->id, k, x, k);
    line("else if (has[%s]) bp_comb%d(envp, &a_[%s], &%s);", k, a->id, k, x);
    line("else { has[%s] = 1; a_[%s] = %s; }", k, k, x);
}

/* Whether the combine can neither panic nor do anything but compute: float
 * and bool arithmetic, comparisons and selections of its operands and
 * constants. Then kmerge computes it for every key and keeps the ones it
 * needs, without a branch per key. */
static bool total_expr(struct ir_node *n)
{
    switch (n->op) {
    case IR_VAR: case IR_FLOAT: case IR_BOOL: case IR_INT:
        return true;
    case IR_BINARY:
        if (!op_is_compare(n->bop) && !(n->optype == ty_float && n->bop != OP_MOD) &&
            !(n->optype == ty_bool && op_class[n->bop] == OPC_BITS))
            return false;
        return total_expr(n->a) && total_expr(n->b);
    case IR_UNARY:
        return n->optype == ty_float && total_expr(n->a);
    case IR_NOT:
        return total_expr(n->a);
    case IR_AND: case IR_OR:
        return total_expr(n->a) && total_expr(n->b);
    case IR_COND:
        return total_expr(n->a) && total_expr(n->b) && total_expr(n->c);
    default:
        return false;
    }
}

static bool comb_total(struct ir_node *rn)
{
    struct type *t = rn->elem_type;
    if (rn->user) return total_expr(rn->c);
    return t == ty_float || t == ty_bool || rn->reducer == RED_MIN || rn->reducer == RED_MAX;
}

/* The waiting entries of a stack below a new leaf's level folded into w,
 * the lowest level (the most recent) first: locals m (their levels'
 * mask), s (the slots), w and sent (a slot above the levels that holds
 * the start). A combine that cannot panic, of 8 bytes, pops up to three
 * entries without a branch (nearly every element's case; the mispredicted
 * loop cost about a quarter of the time with two, and a third pop takes 8%
 * off 4,096 keys' time): a pop of no entry reads the slot of sent, which
 * holds the start: when the start is the combine's identity (sum,
 * product, any, all), combining it changes nothing; otherwise the result
 * is not selected. ind: the indent. */
static void emit_pops(struct buf *aux, struct ir_node *rn, int id, const char *ind)
{
    const char *ct = ctype(rn->elem_type);
    struct type *t = rn->elem_type;
    bool ident = start_ident(rn), sel = comb_total(rn) && (t == ty_float || t == ty_int || t == ty_u64);
    if (!sel && !ident) {
        bprintf(aux, "%s(void)sent;\n%swhile (m) { int b = BRT_CTZ(m); m &= m - 1; bp_comb%d(envp, &s[b], &w); w = s[b]; }\n",
                ind, ind, id);
        return;
    }
    bprintf(aux,
            "%suint64_t m2 = m & (m - 1), m3 = m2 & (m2 - 1);\n"
            "%sif (__builtin_expect((m3 & (m3 - 1)) != 0, 0)) {\n"
            "%s    while (m) { int b = BRT_CTZ(m); m &= m - 1; bp_comb%d(envp, &s[b], &w); w = s[b]; }\n"
            "%s} else {\n%s    %s t;\n",
            ind, ind, ind, id, ind, ind, ct);
    if (!ident) bprintf(aux, "%s    uint64_t tu, wu, sm;\n", ind);
    const char *pops[3] = {"m", "m2", "m3"};
    for (int i = 0; i < 3; i++) {
        bprintf(aux, "%s    t = s[BRT_CTZ(%s | sent)];\n%s    bp_comb%d(envp, &t, &w);\n", ind, pops[i], ind, id);
        if (ident)
            bprintf(aux, "%s    w = t;\n", ind);
        else
            bprintf(aux,
                    "%s    sm = -(uint64_t)(%s != 0); memcpy(&tu, &t, 8); memcpy(&wu, &w, 8); wu = (tu & sm) | (wu & ~sm); "
                    "memcpy(&w, &wu, 8);\n",
                    ind, pops[i]);
    }
    bprintf(aux, "%s}\n", ind);
}

/* A leaf's value from its first element x into acc: x itself (min, max) or
 * the start combined with it, as kpush makes it. */
static void leaf_start(struct buf *aux, bool first_is_x, int id, const char *ind)
{
    if (first_is_x)
        bprintf(aux, "%sacc = x;\n", ind);
    else
        bprintf(aux, "%sacc = stv;\n%sbp_comb%d(envp, &acc, &x);\n", ind, ind, id);
}

/* kstamp: a block's elements (runtime/keyed.c's unit_stamps) into its row
 * of all keys: an element of its key's last leaf or of the key's first
 * leaf in the block folded into the row (the start there), as a C loop's
 * s[k] += x; one of a later leaf of its key in the block appended to the
 * collisions (kcoll). */
struct kstamp_arg { struct ir_node *rn; int id; const char *pos; bool first_is_x, ident; };

static void kstamp_cb(struct ir_node *rn, void *p)
{
    struct kstamp_arg *a = p;
    const char *kk = emit_expr(rn->key);
    key_check(rn, kk);
    const char *k = new_temp(), *x = new_temp(), *lp = new_temp(), *lf = new_temp();
    line("int64_t %s = %s;", k, kk);
    line("%s %s = %s;", ctype(rn->elem_type), x, emit_expr(rn->elem));
    line("uint32_t %s = ll_[%s], %s = (uint32_t)((uint64_t)%s / BRT_LEAF);", lp, k, lf, a->pos);
    line("if ((uint32_t)(%s ^ %s) - 1 < bm_) { cp_[2 * nc_] = (uint32_t)(%s - lo_); cp_[2 * nc_ + 1] = (uint32_t)%s; "
         "cv_[nc_++] = %s; }",
         lp, lf, a->pos, k, x);
    /* the flags' stores only without the identity (a byte's store could
     * be any value's: the loop would load the sources' places again) */
    const char *hs = a->ident ? "" : arena_printf(" has[%s] = 1;", k);
    if (a->first_is_x)
        line("else { if (%s == %s) bp_comb%d(envp, &a_[%s], &%s); else a_[%s] = %s; ll_[%s] = %s;%s }", lp, lf, a->id, k,
             x, k, x, k, lf, hs);
    else
        line("else { bp_comb%d(envp, &a_[%s], &%s); ll_[%s] = %s;%s }", a->id, k, x, k, lf, hs);
}

/* kstamp and kcoll: a block's collisions, in position order, onto their
 * keys' stacks (a record: the mask of waiting levels, then a slot per
 * level of the block and the start above them), the key's last leaf and
 * value in ll and the row, as kpush's rule; then each key with waiting
 * entries folded into its row's value. */
static void kstamp_helpers(struct ir_node *rn, int id, struct src *s, struct buf *aux)
{
    const char *ct = ctype(rn->elem_type);
    bool first_is_x = !rn->user && (rn->reducer == RED_MIN || rn->reducer == RED_MAX);
    struct fctx *saved = helper_begin(id, rn);
    line("%s *a_ = row, *cv_ = cv;", ct);
    line("uint32_t bm_ = ((uint32_t)1 << blev) - 1;");
    line("int64_t nc_ = 0;");
    line("(void)has;");
    struct kstamp_arg ka = {rn, id, NULL, first_is_x, start_ident(rn)};
    ka.pos = new_temp();
    chunk_loop(rn, s, ka.pos, kstamp_cb, &ka, NULL);
    helper_end(saved, aux,
               arena_printf("static int64_t bp_kstamp%d(void *envp, int64_t lo_, int64_t hi_, void *row, unsigned char *has, "
                            "uint32_t *ll_, int blev, uint32_t *cp_, void *cv)",
                            id),
               "nc_");
    bprintf(aux,
            "static void bp_kcoll%d(void *envp, int64_t lo, const uint32_t *cp, const void *cv, int64_t nc, void *row, "
            "uint32_t *ll, void *recs, int64_t stride, int blev, uint32_t *fix, const void *start)\n"
            "{\n    %s *a = row, stv;\n    const %s *xv = cv;\n    unsigned char *R = recs;\n"
            "    memset(&stv, 0, sizeof stv);\n    if (start) memcpy(&stv, start, sizeof stv);\n"
            "    uint64_t sent = (uint64_t)1 << blev;\n    int64_t nf = 0;\n"
            "    for (int64_t c = 0; c < nc; c++) {\n"
            "        int64_t k = cp[2 * c + 1];\n"
            "        uint32_t leaf = (uint32_t)((uint64_t)(lo + cp[2 * c]) / BRT_LEAF), lp = ll[k];\n"
            "        %s x = xv[c];\n"
            "        if (lp == leaf) { bp_comb%d(envp, &a[k], &x); continue; }\n"
            "        uint64_t *mask = (uint64_t *)(R + k * stride);\n        %s *s = (%s *)(R + k * stride + 16);\n"
            "        int h = 63 ^ BRT_CLZ((uint64_t)(lp ^ leaf));\n"
            "        uint64_t bit = (uint64_t)1 << h, lowm = bit - 1, mk = *mask;\n"
            "        %s acc;\n"
            /* the key's first collision in the block (most): its first
             * leaf's value waits, nothing to pop */
            "        if (!mk) {\n            fix[nf++] = (uint32_t)k;\n            s[h] = a[k];\n            *mask = bit;\n"
            "        } else {\n            uint64_t m = mk & lowm;\n            %s w = a[k];\n",
            id, ct, ct, ct, id, ct, ct, ct, ct);
    emit_pops(aux, rn, id, "            ");
    bputs(aux, "            s[h] = w;\n            *mask = (mk & ~lowm) | bit;\n        }\n        ll[k] = leaf;\n");
    leaf_start(aux, first_is_x, id, "        ");
    bputs(aux, "        a[k] = acc;\n");
    /* each key with waiting entries (at least one) folded into its row's
     * value */
    bprintf(aux,
            "    }\n    for (int64_t i = 0; i < nf; i++) {\n        int64_t k = fix[i];\n"
            "        uint64_t *mask = (uint64_t *)(R + k * stride), m = *mask;\n"
            "        const %s *s = (const %s *)(R + k * stride + 16);\n"
            "        %s w = a[k], t = s[BRT_CTZ(m)];\n        bp_comb%d(envp, &t, &w);\n        w = t;\n"
            "        for (m &= m - 1; m; m &= m - 1) { t = s[BRT_CTZ(m)]; bp_comb%d(envp, &t, &w); w = t; }\n"
            "        a[k] = w;\n        *mask = 0;\n    }\n}\n\n",
            ct, ct, ct, id, id);
}

static void kleaf_helpers(struct ir_node *rn, int id, struct src *s, struct buf *aux)
{
    const char *ct = ctype(rn->elem_type);
    struct fctx *saved = helper_begin(id, rn);
    bool ident = start_ident(rn);
    line("%s *a_ = accs;", ct);
    line("const %s *st_ = start;", ct);
    line("(void)st_; (void)has;");
    struct kleaf_arg ka = {rn, id, NULL, ident};
    chunk_loop(rn, s, new_temp(), kleaf_cb, &ka, NULL);
    helper_end(saved, aux,
               arena_printf("static void bp_kleaf%d(void *envp, int64_t lo_, int64_t hi_, void *accs, unsigned char *has, "
                            "const void *start)",
                            id),
               NULL);
    bprintf(aux,
            "static void bp_kmerge%d(void *envp, void *l, unsigned char *lh, const void *r, const unsigned char *rh, int64_t cnt)\n"
            "{\n    %s *a = l;\n    const %s *b = r;\n    for (int64_t i = 0; i < cnt; i++) {\n",
            id, ct, ct);
    struct type *t = rn->elem_type;
    if (ident)
        /* a key without a value holds the identity: no selection needed;
         * the flags in a loop of their own (a store of theirs could be one
         * of a value's bytes, so one loop would not take vector lanes) */
        bprintf(aux, "        bp_comb%d(envp, &a[i], &b[i]);\n    }\n    for (int64_t i = 0; i < cnt; i++) {\n"
                     "        lh[i] |= rh[i];\n", id);
    else if (comb_total(rn) && (t == ty_float || t == ty_int || t == ty_u64))
        bprintf(aux, /* selections by masks: no branch on the flags */
                "        %s c = a[i];\n        bp_comb%d(envp, &c, &b[i]);\n"
                "        uint64_t cv, bv, av, ml = -(uint64_t)lh[i], mr = -(uint64_t)rh[i];\n"
                "        memcpy(&cv, &c, 8); memcpy(&bv, &b[i], 8); memcpy(&av, &a[i], 8);\n"
                "        cv = (cv & ml) | (bv & ~ml);\n        av = (cv & mr) | (av & ~mr);\n"
                "        memcpy(&a[i], &av, 8);\n        lh[i] |= rh[i];\n",
                ct, id);
    else if (comb_total(rn))
        bprintf(aux,
                "        %s c = a[i];\n        bp_comb%d(envp, &c, &b[i]);\n"
                "        a[i] = rh[i] ? (lh[i] ? c : b[i]) : a[i];\n        lh[i] |= rh[i];\n",
                ct, id);
    else
        bprintf(aux,
                "        if (!rh[i]) continue;\n        if (!lh[i]) { a[i] = b[i]; lh[i] = 1; continue; }\n"
                "        bp_comb%d(envp, &a[i], &b[i]);\n",
                id);
    bputs(aux, "    }\n}\n\n");
    /* kpush: one buffered element onto its key's stack, for kstk
     * (runtime/keyed.c's keyed_stacks has the record and the rule); its
     * pops (emit_pops) read slot dl + 1 for no entry (sent = 2^(dl + 1)).
     * A new record's last leaf is one whose first meeting is at level dl
     * (its slot dl takes the meaningless first push) */
    bprintf(aux,
            "BRT_INLINE void bp_kpush%d(void *envp, unsigned char *r, int64_t leaf, %s x, %s stv, uint64_t sent)\n"
            "{\n    int64_t *last = (int64_t *)r, lp = *last;\n    uint64_t *mask = (uint64_t *)(r + 8);\n"
            "    %s *acc = (%s *)(r + 16), *s = acc + 1;\n"
            "    if (__builtin_expect(lp == leaf, 0)) { bp_comb%d(envp, acc, &x); return; }\n"
            "    int h = 63 ^ BRT_CLZ((uint64_t)(lp ^ leaf));\n"
            "    uint64_t bit = (uint64_t)1 << h, lowm = bit - 1, mk = *mask, m = mk & lowm;\n    %s w = *acc;\n",
            id, ct, ct, ct, ct, id, ct);
    emit_pops(aux, rn, id, "    ");
    bprintf(aux,
            "    s[h] = w;\n    *mask = (mk & ~lowm) | bit;\n    *last = leaf;\n");
    if (rn->user || (rn->reducer != RED_MIN && rn->reducer != RED_MAX))
        bprintf(aux, "    bp_comb%d(envp, &stv, &x);\n    *acc = stv;\n}\n\n", id);
    else
        bputs(aux, "    (void)stv;\n    *acc = x;\n}\n\n");
    bprintf(aux,
            "static void bp_kstk%d(void *envp, const void *items, int kbits, bool narrow, int64_t cnt, void *recs, "
            "int64_t stride, int dl, const void *start)\n"
            "{\n    const unsigned char *it = items;\n    unsigned char *R = recs;\n    %s stv;\n"
            "    memset(&stv, 0, sizeof stv);\n    if (start) memcpy(&stv, start, sizeof stv);\n"
            "    uint64_t km = ((uint64_t)1 << kbits) - 1, sent = (uint64_t)1 << (dl + 1);\n",
            id, ct);
    /* the items' two forms (brine_rt.h): a u32 or u64 kl, then the value */
    for (int narrow = 1; narrow >= 0; narrow--)
        bprintf(aux,
                "    %sfor (int64_t i = 0; i < cnt; i++, it += %s) {\n"
                "        %s kl;\n        %s v;\n        memcpy(&kl, it, %d);\n        memcpy(&v, it + %d, sizeof v);\n"
                "        bp_kpush%d(envp, R + (int64_t)(kl & km) * stride, (int64_t)(kl >> kbits), v, stv, sent);\n    }\n",
                narrow ? "if (narrow)\n        " : "else\n        ",
                narrow ? arena_printf("4 + sizeof(%s)", ct) : arena_printf("(8 + sizeof(%s) + 7) / 8 * 8", ct),
                narrow ? "uint32_t" : "uint64_t", ct, narrow ? 4 : 8, narrow ? 4 : 8, id);
    bputs(aux, "}\n\n");
    /* kroots: the records folded as rec_root does (runtime/keyed.c), the
     * waiting entries from the lowest level (the most recent) */
    bprintf(aux,
            "static void bp_kroots%d(void *envp, const void *recs, int64_t stride, int64_t cnt, int dl, int64_t a, "
            "void *out, unsigned char *has, const void *start)\n"
            "{\n    %s *o = out;\n    int64_t none = a ^ ((int64_t)1 << dl);\n"
            "    uint64_t lm = ((uint64_t)1 << dl) - 1;\n"
            "    for (int64_t j = 0; j < cnt; j++) {\n"
            "        const unsigned char *r = (const unsigned char *)recs + j * stride;\n"
            "        int64_t last;\n        uint64_t m;\n        memcpy(&last, r, 8);\n        memcpy(&m, r + 8, 8);\n"
            "        if (last == none) {\n            has[j] = 0;\n"
            "            if (start) memcpy(&o[j], start, sizeof *o); else memset(&o[j], 0, sizeof *o);\n"
            "            continue;\n        }\n"
            "        const %s *s = (const %s *)(r + 16) + 1;\n        %s w = *(const %s *)(r + 16);\n"
            "        for (m &= lm; m; m &= m - 1) {\n            %s t = s[BRT_CTZ(m)];\n"
            "            bp_comb%d(envp, &t, &w);\n            w = t;\n        }\n"
            "        o[j] = w;\n        has[j] = 1;\n    }\n}\n\n",
            id, ct, ct, ct, ct, ct, ct, id);
    kstamp_helpers(rn, id, s, aux);
}

/* ---- keyed, in any order (runtime/keyfree.c) -----------------------------------
 *
 * A keyed reduction whose result the order of its combines cannot change:
 * min and max of integers, any and all (exact, never a panic), and int and
 * u64 sums, whose guard (the sum of |v| over all the elements fits) proves
 * that no combine of the tree overflows. bp_kfree<n> folds elements straight
 * into per-key accumulators with no check; the runtime hands over to the
 * ordered ways when an element panics or the guard fails, evaluating the
 * elements again, so the elements, keys and filter must have no effect. */
enum free_kind { FREE_NONE, FREE_SUM, FREE_BEST, FREE_BOOL };

static enum free_kind free_kind(struct ir_node *rn)
{
    struct type *t = rn->elem_type;
    enum free_kind k = FREE_NONE;
    if (!rn->key || rn->user || rn->scan) return FREE_NONE;
    switch (rn->reducer) {
    case RED_SUM: k = t == ty_int || t == ty_u64 ? FREE_SUM : FREE_NONE; break;
    case RED_MIN: case RED_MAX: k = t == ty_int || t == ty_u64 || t == ty_i128 ? FREE_BEST : FREE_NONE; break;
    case RED_ANY: case RED_ALL: k = t == ty_bool ? FREE_BOOL : FREE_NONE; break;
    case RED_PRODUCT: break; /* a partial product may overflow where the whole does not (a 0 later) */
    }
    if (!ir_effect_free(rn->elem) || !ir_effect_free(rn->key) || !ir_effect_free(rn->filter)) return FREE_NONE;
    return k;
}

/* The accumulators' start: the combine's identity. */
static const char *free_ident(struct ir_node *rn)
{
    struct type *t = rn->elem_type;
    bool min = rn->reducer == RED_MIN;
    switch (rn->reducer) {
    case RED_SUM: return "0";
    case RED_ANY: return "false";
    case RED_ALL: return "true";
    case RED_MIN: case RED_MAX:
        if (t == ty_int) return min ? "INT64_MAX" : "INT64_MIN";
        if (t == ty_u64) return min ? "UINT64_MAX" : "0";
        return min ? "brt_i128_make(UINT64_MAX, (uint64_t)INT64_MAX)" : "brt_i128_make(0, (uint64_t)1 << 63)";
    case RED_PRODUCT: break;
    }
    internal_error("emit: the identity of an order-free keyed reduction");
}

/* A sum of a constant c >= 0: its guard is c times the positions (at least
 * the kept elements), with no step per element. */
static bool free_const(struct ir_node *rn)
{
    return rn->elem->op == IR_INT && (rn->elem_type == ty_u64 || (int64_t)rn->elem->ival >= 0);
}

static void kfree_cb(struct ir_node *rn, void *p)
{
    enum free_kind fk = *(enum free_kind *)p;
    struct type *t = rn->elem_type;
    const char *kk = emit_expr(rn->key);
    key_check(rn, kk);
    const char *k = new_temp(), *x = new_temp();
    line("int64_t %s = %s;", k, kk);
    line("%s %s = %s;", ctype(t), x, emit_expr(rn->elem));
    switch (fk) {
    case FREE_SUM:
        if (t == ty_u64) {
            line("ka_[%s] += %s;", k, x);
            if (free_const(rn)) return;
            line("kg_ += %s;", x);
            line("ko_ |= kg_ < %s;", x); /* a carry: the sum of all is over 2^64 - 1 */
            return;
        }
        line("ka_[%s] = (int64_t)((uint64_t)ka_[%s] + (uint64_t)%s);", k, k, x);
        if (free_const(rn)) return; /* the guard: the constant times the positions, after the loop */
        /* kg_ below 2^63 before each step, so a step cannot wrap; ko_ keeps
         * the top bit of every kg_ */
        line("{ uint64_t km_ = (uint64_t)(%s >> 63); kg_ += ((uint64_t)%s ^ km_) - km_; }", x, x);
        line("ko_ |= kg_;");
        return;
    case FREE_BEST:
        line("ka_[%s] = %s ? %s : ka_[%s];", k, better(rn->reducer, t, x, arena_printf("ka_[%s]", k)), x, k);
        line("kh_[%s] = 1;", k);
        return;
    case FREE_BOOL:
        line("ka_[%s] = ka_[%s] %s %s;", k, k, rn->reducer == RED_ANY ? "|" : "&", x);
        return;
    case FREE_NONE: break;
    }
    internal_error("emit: kfree of no kind");
}

static void kfree_helper(struct ir_node *rn, int id, struct src *s, struct buf *aux, enum free_kind fk)
{
    struct fctx *saved = helper_begin(id, rn);
    line("%s *ka_ = accs;", ctype(rn->elem_type));
    line("unsigned char *kh_ = has;");
    line("uint64_t kg_ = 0, ko_ = 0;");
    line("(void)kh_; (void)ko_;");
    chunk_loop(rn, s, new_temp(), kfree_cb, &fk, NULL);
    if (fk == FREE_SUM && free_const(rn)) {
        line("{ uint64_t kc_ = (uint64_t)%s, kn_ = (uint64_t)(hi_ - lo_);", emit_expr(rn->elem));
        line("  kg_ = kc_ * kn_; ko_ = kn_ && kc_ > UINT64_MAX / kn_ ? %s : 0; }",
             rn->elem_type == ty_u64 ? "1" : "(uint64_t)1 << 63");
    }
    line("*guard = kg_;");
    const char *ok = fk != FREE_SUM ? "true" : rn->elem_type == ty_u64 ? "ko_ == 0" : "(ko_ >> 63) == 0";
    /* restrict: the accumulators and flags are the task's own (a store
     * through them changes nothing the elements read, so the loop keeps
     * env's fields and the arrays' data in registers) */
    helper_end(saved, aux,
               arena_printf("static bool bp_kfree%d(void *envp, int64_t lo_, int64_t hi_, void *restrict accs, "
                            "unsigned char *restrict has, uint64_t *guard)",
                            id),
               ok);
}

/* The four helpers of reduction id into aux. */
static void fold_helpers(struct ir_node *rn, int id, struct src *s, struct buf *aux)
{
    const char *ct = ctype(rn->elem_type);
    /* the combine */
    struct fctx *saved = helper_begin(id, rn);
    line("%s a_ = *(%s *)l;", ct, ct);
    line("%s b_ = *(const %s *)r;", ct, ct);
    combine_into(rn, "a_", "b_");
    line("*(%s *)l = a_;", ct);
    line("(void)env;");
    helper_end(saved, aux, arena_printf("static inline void bp_comb%d(void *envp, void *l, const void *r)", id), NULL);
    /* runs of values */
    bprintf(aux,
            "static int64_t bp_lfold%d(void *envp, const void *vals, const unsigned char *kept, int64_t cnt, void *acc, bool has)\n"
            "{\n    const %s *v = vals;\n    %s a = *(%s *)acc;\n    int64_t c = 0;\n"
            "    for (int64_t i = 0; i < cnt; i++) {\n        if (kept && !kept[i]) continue;\n        c++;\n"
            "        if (!has) { a = v[i]; has = 1; continue; }\n        bp_comb%d(envp, &a, &v[i]);\n    }\n"
            "    *(%s *)acc = a;\n    return c;\n}\n\n",
            id, ct, ct, ct, id, ct);
    bprintf(aux,
            "static void bp_lscan%d(void *envp, const void *vals, const unsigned char *kept, int64_t cnt, void *acc, bool has, void *out)\n"
            "{\n    const %s *v = vals;\n    %s *o = out;\n    %s a = *(%s *)acc;\n    int64_t w = 0;\n"
            "    for (int64_t i = 0; i < cnt; i++) {\n        if (kept && !kept[i]) continue;\n"
            "        if (!has) { a = v[i]; has = 1; } else bp_comb%d(envp, &a, &v[i]);\n        o[w++] = a;\n    }\n"
            "    *(%s *)acc = a;\n}\n\n",
            id, ct, ct, ct, ct, id, ct);
    /* runs of whole leaves (no filter, a start), four leaves at a time:
     * each leaf's fold is its own chain of combines, so four run side by
     * side where one waited on each combine's latency */
    bprintf(aux,
            "static void bp_lfolds%d(void *envp, const void *vals, int64_t nl, void *lv, const void *start)\n"
            "{\n    const %s *v = vals;\n    %s *o = lv;\n    const %s st = *(const %s *)start;\n    int64_t L = 0;\n"
            "    for (; L + 4 <= nl; L += 4) {\n        const %s *p = v + L * BRT_LEAF;\n"
            "        %s a0 = st, a1 = st, a2 = st, a3 = st;\n"
            "        for (int i = 0; i < BRT_LEAF; i++) {\n"
            "            bp_comb%d(envp, &a0, &p[i]);\n            bp_comb%d(envp, &a1, &p[BRT_LEAF + i]);\n"
            "            bp_comb%d(envp, &a2, &p[2 * BRT_LEAF + i]);\n            bp_comb%d(envp, &a3, &p[3 * BRT_LEAF + i]);\n"
            "        }\n        o[L] = a0;\n        o[L + 1] = a1;\n        o[L + 2] = a2;\n        o[L + 3] = a3;\n    }\n"
            "    for (; L < nl; L++) {\n        %s a = st;\n"
            "        for (int i = 0; i < BRT_LEAF; i++) bp_comb%d(envp, &a, &v[L * BRT_LEAF + i]);\n        o[L] = a;\n    }\n}\n\n",
            id, ct, ct, ct, ct, ct, ct, id, id, id, id, ct, id);
    bprintf(aux,
            "static void bp_lscans%d(void *envp, const void *vals, int64_t nl, const void *cars, void *out)\n"
            "{\n    const %s *v = vals;\n    const %s *c = cars;\n    %s *o = out;\n    int64_t L = 0;\n"
            "    for (; L + 4 <= nl; L += 4) {\n        const %s *p = v + L * BRT_LEAF;\n        %s *q = o + L * BRT_LEAF;\n"
            "        %s a0 = c[L], a1 = c[L + 1], a2 = c[L + 2], a3 = c[L + 3];\n"
            "        for (int i = 0; i < BRT_LEAF; i++) {\n"
            "            bp_comb%d(envp, &a0, &p[i]);\n            bp_comb%d(envp, &a1, &p[BRT_LEAF + i]);\n"
            "            bp_comb%d(envp, &a2, &p[2 * BRT_LEAF + i]);\n            bp_comb%d(envp, &a3, &p[3 * BRT_LEAF + i]);\n"
            "            q[i] = a0;\n            q[BRT_LEAF + i] = a1;\n            q[2 * BRT_LEAF + i] = a2;\n"
            "            q[3 * BRT_LEAF + i] = a3;\n        }\n    }\n"
            "    for (; L < nl; L++) {\n        %s a = c[L];\n"
            "        for (int i = 0; i < BRT_LEAF; i++) {\n            bp_comb%d(envp, &a, &v[L * BRT_LEAF + i]);\n"
            "            o[L * BRT_LEAF + i] = a;\n        }\n    }\n}\n\n",
            id, ct, ct, ct, ct, ct, ct, id, id, id, id, ct, id);
    bprintf(aux,
            "static void bp_lpairs%d(void *envp, const void *child, int64_t cnt, void *parent)\n"
            "{\n    const %s *c = child;\n    %s *p = parent;\n    for (int64_t j = 0; j < cnt; j++) {\n"
            "        %s a = c[2 * j];\n        bp_comb%d(envp, &a, &c[2 * j + 1]);\n        p[j] = a;\n    }\n}\n\n",
            id, ct, ct, ct, id);
    bprintf(aux,
            "static void bp_kacc%d(void *envp, const void *vals, const int64_t *keys, int64_t cnt, void *accs, unsigned char *has, const void *st)\n"
            "{\n    const %s *v = vals;\n    %s *a = accs;\n"
            "    for (int64_t i = 0; i < cnt; i++) {\n        int64_t k = keys[i];\n        if (k < 0) continue;\n"
            "        if (!has[k]) {\n            has[k] = 1;\n            if (!st) { a[k] = v[i]; continue; }\n"
            "            a[k] = *(const %s *)st;\n        }\n        bp_comb%d(envp, &a[k], &v[i]);\n    }\n}\n\n",
            id, ct, ct, ct, id);
    if (rn->key) kleaf_helpers(rn, id, s, aux);
    enum free_kind fk = free_kind(rn);
    if (fk) kfree_helper(rn, id, s, aux, fk);
    /* the elements */
    saved = helper_begin(id, rn);
    line("if (kept) for (int64_t i_ = 0; i_ < hi_ - lo_; i_++) kept[i_] = 0;");
    /* -1: filtered out; one clause without a filter writes every key */
    if (rn->key && (rn->filter || rn->nclauses)) line("for (int64_t i_ = 0; i_ < hi_ - lo_; i_++) keys[i_] = -1;");
    else line("(void)keys;");
    const char *k = new_temp();
    struct elems_arg ea = {rn, k};
    chunk_loop(rn, s, k, elems_cb, &ea, NULL);
    helper_end(saved, aux,
               arena_printf("static void bp_elems%d(void *envp, int64_t lo_, int64_t hi_, void *vals, unsigned char *kept, "
                            "int64_t *keys)",
                            id),
               NULL);
}

/* Whether f is l + r from 0 (RED_SUM) or l * r from 1 (RED_PRODUCT), of
 * floats or integers: then the leaves and the tree compute the built-in
 * reducer's values. A float one is exactly the built-in reduction (its
 * operations cannot panic); an integer one panics inside f, so only its
 * lanes and fast integer sums are the built-in's, whose overflow falls
 * back to the scalar leaves and f. */
static bool builtin_alike(struct ir_node *rn, enum reducer *red)
{
    struct type *t = rn->elem_type;
    if (!rn->user || rn->scan || rn->key || (t != ty_float && t != ty_int && t != ty_u64)) return false;
    struct ir_node *c = rn->c, *st = rn->a;
    if (c->op != IR_BINARY || (c->bop != OP_ADD && c->bop != OP_MUL)) return false;
    if (c->a->op != IR_VAR || c->a->var != rn->comb_l || c->b->op != IR_VAR || c->b->var != rn->comb_r) return false;
    *red = c->bop == OP_ADD ? RED_SUM : RED_PRODUCT;
    if (t == ty_float) {
        if (st->op != IR_FLOAT) return false;
        if (c->bop == OP_ADD) return st->fval == 0.0 && !signbit(st->fval);
        return st->fval == 1.0;
    }
    return st->op == IR_INT && st->ival == (c->bop == OP_ADD ? 0 : 1);
}

/* A par reduce whose values fit the runtime's tree of built-in reductions:
 * no references, up to 16 bytes (the leaves fold with f inlined, no
 * buffer). */
static bool on_reduce_tree(struct ir_node *rn)
{
    struct type *t = rn->elem_type;
    if (!rn->user || !rn->par || rn->scan || rn->key || type_is_ref(t)) return false;
    if (t == ty_int || t == ty_u64 || t == ty_float || t == ty_bool) return true;
    return t->kind == T_TUPLE && c_size(t, NULL) <= 16;
}

const char *emit_fold(struct ir_node *rn)
{
    struct type *t = rn->elem_type;
    enum reducer red;
    bool alike = builtin_alike(rn, &red);
    if (alike && t == ty_float && !rn->world) {
        rn->reducer = red;
        rn->user = false;
        if (rn->par) return emit_reduce(rn);
    }
    if (ir_minmax_combine(rn, &red)) { /* a min or max fold from start: lanes */
        rn->reducer = red;
        return emit_seq_reduce(rn, false);
    }
    if (on_reduce_tree(rn)) {
        if (alike) rn->reducer = red;
        return emit_par_reduce(rn, alike);
    }
    /* par and world reduce of values holding references: the tree's order
     * on this thread (the runtime's slots hold plain values; a world rank
     * its share's blocks) */
    if (rn->par && rn->user && !rn->scan && !rn->key && type_is_ref(t)) return emit_seq_reduce(rn, true);
    /* par scan(f, ...) of values holding references: the tree's order here
     * (a min/max scan's entries are the left fold's, the same bits) */
    if (rn->scan && rn->par && rn->user && type_is_ref(t)) return emit_scan_ref(rn);
    if (!rn->key && (!rn->par || (rn->scan && type_is_ref(t)))) return seq_fold(rn);
    if (rn->key && type_is_ref(t)) return emit_keyed_ref(rn);
    if (type_is_ref(t)) internal_error("emit: a keyed or par fold of %s", type_name(t));
    const char *ct = ctype(t);
    const char *st = fold_start(rn);
    const char *stv = NULL;
    if (st) {
        stv = new_temp();
        line("%s %s = %s;", ct, stv, st);
    }
    struct src s = eval_sources(rn);
    if (rn->key) s.nk = emit_expr(rn->b);
    struct buf aux = {0};
    int id = par_env(rn, &s, &aux);
    fold_helpers(rn, id, &s, &aux);
    bputs(&CG->aux, aux.p);
    free(aux.p);
    /* a par scan or keyed reduction may run on the GPU (emit_cuda.c):
     * bp_gpu<id> tries it, and else the CPU runs it */
    char *gpu_aux = NULL;
    const char *gpu = rn->scan || rn->key ? emit_cuda_reduce(rn, id, &CG->kernels, &CG->nkernels, &gpu_aux) : NULL;
    if (gpu_aux) bputs(&CG->aux, gpu_aux), free(gpu_aux);
    bprintf(&CG->protos, "struct bp_env%d;\n", id);
    const char *env = env_fill(id, rn, &s);
    if (gpu && rn->user) line("%s.st_ = %s;", env, stv); /* the kernel's start value */
    if (gpu && rn->key) {
        /* brt_fold.gpu: the device's way, with the place (set apart: it
         * stays the struct's last member) */
        bprintf(&CG->aux,
                "static bool bp_kgpu%d(void *envp, const brt_fold *f, int64_t base, int64_t n, int64_t nkeys, void *out, "
                "unsigned char *has)\n{\n    return %s(envp, f, base, n, nkeys, out, has, %s);\n}\n\n",
                id, gpu, loc_ref(rn->loc));
    }
    const char *fd = new_temp();
    enum free_kind fk = free_kind(rn);
    const char *kid = fk ? new_temp() : NULL;
    if (fk) line("%s %s = %s;", ct, kid, free_ident(rn));
    const char *guard_max = fk != FREE_SUM ? "0" : t == ty_u64 ? "UINT64_MAX" : "(uint64_t)INT64_MAX";
    /* the elements are an array's own: the runtime reads them in place */
    bool own = !rn->nclauses && !s.is_range && !rn->filter && !rn->key && rn->elem->op == IR_VAR &&
               rn->elem->var == rn->gen_var;
    line("brt_fold %s = {%s, sizeof(%s), &%s, %s%s, %d, %d, bp_elems%d, bp_comb%d, bp_lfold%d, bp_lscan%d, bp_kacc%d, %s, %s, "
         "%s, %s, bp_lfolds%d, bp_lscans%d, %d, bp_lpairs%d, %s, %s, %s%s, %s, %s, %s};",
         fd, s.n, ct, env, stv ? "&" : "NULL", stv ? stv : "", rn->par, rn->filter != NULL, id, id, id, id, id,
         rn->key ? arena_printf("bp_kleaf%d", id) : "NULL", rn->key ? arena_printf("bp_kmerge%d", id) : "NULL",
         own ? arena_printf("%s->data", s.arr) : "NULL", rn->key ? arena_printf("bp_kstk%d", id) : "NULL",
         id, id, rn->key && start_ident(rn), id,
         rn->key ? arena_printf("bp_kroots%d", id) : "NULL", fk ? arena_printf("bp_kfree%d", id) : "NULL",
         fk ? "&" : "NULL", fk ? kid : "", guard_max, rn->key ? arena_printf("bp_kstamp%d", id) : "NULL",
         rn->key ? arena_printf("bp_kcoll%d", id) : "NULL");
    if (gpu && rn->key) line("%s.gpu = bp_kgpu%d;", fd, id);
    if (rn->key) {
        const char *nk = arena_printf("%s.nk", env);
        struct type *rt = rn->type->elem;
        const char *vals = tmp_owned(type_array(t), "brt_arr_new(%s, %s)", tdesc(t), nk);
        const char *hs = tmp_owned(type_array(ty_bool), "brt_arr_new(%s, %s)", tdesc(ty_bool), nk);
        if (rn->world)
            line("brt_world_keyed_run(&%s, %s, %s->data, (unsigned char *)%s->data, %s);", fd, nk, vals, hs,
                 loc_ref(rn->loc));
        else
            line("brt_keyed_run(&%s, %s, %s->data, (unsigned char *)%s->data);", fd, nk, vals, hs);
        if (rt == t) return vals;
        const char *res = tmp_owned(rn->type, "brt_arr_new(%s, %s)", tdesc(rt), nk);
        const char *j = new_temp();
        line("for (int64_t %s = 0; %s < %s; %s++)", j, j, nk, j);
        line("    if (((bool *)%s->data)[%s]) { ((%s *)%s->data)[%s].f0 = 1; ((%s *)%s->data)[%s].f1 = ((%s *)%s->data)[%s]; }",
             hs, j, ctype(rt), res, j, ctype(rt), res, j, ct, vals, j);
        return res;
    }
    if (gpu) return tmp_owned(rn->type, "%s(&%s, &%s, %s, %s)", gpu, env, fd, tdesc(t), loc_ref(rn->loc));
    if (rn->scan) return tmp_owned(rn->type, "brt_scan_run(&%s, %s)", fd, tdesc(t));
    const char *res = new_temp();
    line("%s %s;", ct, res);
    if (rn->world)
        line("if (!brt_world_fold_reduce(&%s, %s, &%s)) %s = %s;", fd, loc_ref(rn->loc), res, res, stv);
    else
        line("if (!brt_fold_reduce(&%s, &%s)) %s = %s;", fd, res, res, stv);
    return res;
}
