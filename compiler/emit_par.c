/*
 * emit_par.c: reductions, the C emitter's second room
 * (emit_c.h).
 *
 * Sequential ones are loops in the enclosing function. A par reduction
 * becomes helpers beside it: struct bp_env<n> (the source and the captured
 * variables), bp_leaves<n> (leaves [first, first+count) folded left to
 * right from the start value, in SIMD lanes when emit_lane.c can), the
 * combine bp_combine<n> and the chunk fold bp_fold<n>, handed to the
 * runtime's fixed tree (brt_reduce_tree) or, when eligible, first to the
 * GPU (emit_cuda.c). par any/all find the first deciding index
 * (bp_find<n>). Comprehensions are emit_listcomp.c's, on the loops here.
 */
#include "emit_c.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* ---- comprehensions and reductions ----------------------------------------- */

struct src eval_source(struct ir_iter *it)
{
    struct src s = {0};
    s.is_range = it->is_range;
    if (it->is_range) {
        s.it = it->lo->type;
        s.lo = emit_expr(it->lo);
        const char *hi = emit_expr(it->hi);
        s.lo = lval(s.lo, s.it);
        if (s.it == ty_i128) {
            s.n = tmp(ty_int, "brt_range_count_i128(%s, %s, %d)", s.lo, hi, it->inclusive);
            return s;
        }
        if (s.it != ty_int && s.it != ty_u64) internal_error("emit: range of %s", type_name(s.it));
        const char *cast = s.it == ty_int ? "(uint64_t)" : "";
        if (it->inclusive)
            s.n = tmp(ty_int, "%s <= %s ? bp_count_incl(%s%s - %s%s) : 0", s.lo, hi, cast, hi, cast, s.lo);
        else
            s.n = tmp(ty_int, "%s < %s ? bp_count(%s%s - %s%s) : 0", s.lo, hi, cast, hi, cast, s.lo);
    } else {
        s.arr = emit_expr(it->array);
        s.n = tmp(ty_int, "%s->len", s.arr);
    }
    return s;
}

/* A par generator's sources: the first clause's, then each later
 * clause's, evaluated once, in order; n is the product of the counts. */
struct src eval_sources(struct ir_node *rn)
{
    struct src s = eval_source(&rn->iter);
    if (!rn->nclauses) return s;
    s.ncl = rn->nclauses;
    s.cl = arena_alloc(sizeof *s.cl * (size_t)s.ncl);
    const char *n = s.n;
    for (int c = 0; c < s.ncl; c++) {
        s.cl[c] = eval_source(&rn->clauses[c].iter);
        n = tmp(ty_int, "bp_count_mul(%s, %s)", n, s.cl[c].n);
    }
    s.n0 = s.n;
    s.n = n;
    return s;
}

/* Sets variable v to element k (a C expression) of a source whose parts
 * are reached through the prefix ("" or "env->"). */
static void set_var(struct ir_var *v, const char *pre, const char *lo, const char *arr, const char *k, bool is_range)
{
    const char *gv = vname(v);
    struct type *vt = v->type;
    if (is_range) {
        if (vt == ty_int) line("%s = (int64_t)((uint64_t)%s%s + (uint64_t)%s);", gv, pre, lo, k);
        else if (vt == ty_i128) line("%s = brt_wrapping_add_i128(%s%s, brt_i128_from_i64(%s));", gv, pre, lo, k);
        else line("%s = %s%s + (uint64_t)%s;", gv, pre, lo, k);
    } else {
        line("%s = BRT_AT(%s, %s%s, %s);", gv, ctype(vt), pre, arr, k);
    }
}

void set_gen_var(struct ir_node *rn, const char *pre, const char *lo, const char *arr, const char *k, bool is_range)
{
    set_var(rn->gen_var, pre, lo, arr, k, is_range);
}

static void set_clause(struct ir_node *rn, struct src *s, int c, const char *d);
static const char **flat_digits(struct src *s, const char *k);

/* A par helper's variables at flat position k (every clause's). */
static void set_flat(struct ir_node *rn, struct src *s, const char *k)
{
    if (!s->ncl) {
        set_gen_var(rn, "env->", "lo", "arr", k, s->is_range);
        return;
    }
    const char **d = flat_digits(s, k);
    for (int c = 0; c <= s->ncl; c++) set_clause(rn, s, c, d[c]);
}

/* Clause c's variable (0: the first) of a par generator at its position
 * d (a C expression) in that clause's source, through env. */
static void set_clause(struct ir_node *rn, struct src *s, int c, const char *d)
{
    if (c == 0) set_gen_var(rn, "env->", "lo", "arr", d, s->is_range);
    else set_var(rn->clauses[c - 1].var, "env->", arena_printf("lo%d", c), arena_printf("arr%d", c), d, s->cl[c - 1].is_range);
}

/* The digits of flat index k (row-major: the last clause varies fastest)
 * into the C locals d[0..ncl], through env's counts; k < env->n. */
static const char **flat_digits(struct src *s, const char *k)
{
    const char **d = arena_alloc(sizeof *d * (size_t)(s->ncl + 1));
    const char *q = new_temp();
    line("uint64_t %s = (uint64_t)%s;", q, k);
    for (int c = s->ncl; c >= 0; c--) {
        d[c] = new_temp();
        if (c == 0) {
            line("int64_t %s = (int64_t)%s;", d[c], q);
        } else {
            line("int64_t %s = (int64_t)(%s %% (uint64_t)env->n%d);", d[c], q, c);
            line("%s /= (uint64_t)env->n%d;", q, c);
        }
    }
    return d;
}

const char *start_value(enum reducer r, struct type *t)
{
    bool one = r == RED_PRODUCT;
    switch (t->kind) {
    case T_FLOAT: return one ? "1.0" : "0.0";
    case T_I128: return one ? "brt_i128_make(1, 0)" : "brt_i128_make(0, 0)";
    case T_BOOL: return r == RED_ALL ? "true" : "false";
    case T_INT: case T_U64: return one ? "1" : "0";
    case T_STR: case T_ARRAY: return "NULL";
    case T_TUPLE: if (r == RED_MIN || r == RED_MAX) return "{0}"; /* min/max: replaced by the first element */
        break;
    case T_OPTION: case T_FN: case T_VOID: break;
    }
    internal_error("emit: start value");
}

/* acc = acc OP x for sum/product (checked for integers). */
static void fold_arith(enum reducer r, struct type *t, const char *acc, const char *x, const char *L)
{
    const char *op = r == RED_SUM ? "add" : "mul";
    if (t == ty_float) {
        line("%s = %s %s %s;", acc, acc, r == RED_SUM ? "+" : "*", x);
        fold_barrier(acc);
    } else line("%s = brt_%s_%s(%s, %s, %s);", acc, op, num_suffix(t), acc, x, L);
}

/* One element of a reduction folded into acc (has: min/max's flag, stop:
 * any/all's). Runs inside the element's own scope. */
static void fold_elem(struct ir_node *rn, const char *acc, const char *has, const char *stop, const char *L)
{
    struct type *t = rn->elem_type;
    const char *x = emit_expr(rn->elem);
    if (rn->user) { /* reduce(f, start, gen): the leaf folds f from start */
        combine_into(rn, acc, x);
        if (has) line("%s = 1;", has);
        return;
    }
    switch (rn->reducer) {
    case RED_SUM: case RED_PRODUCT:
        fold_arith(rn->reducer, t, acc, x, L);
        if (has) line("%s = 1;", has);
        return;
    case RED_MIN: case RED_MAX:
        fold_minmax(rn, x, acc, has);
        return;
    case RED_ANY:
        line("if (%s) { %s = true; %s = 1; }", x, acc, stop);
        return;
    case RED_ALL:
        line("if (!%s) { %s = false; %s = 1; }", x, acc, stop);
        return;
    }
}

/* The body of one iteration: the generator variable is set; the filter,
 * then the element in its own scope. */
void iteration(struct ir_node *rn, void (*elem)(struct ir_node *, void *), void *arg)
{
    scope_open();
    if (rn->filter) {
        const char *f = emit_expr(rn->filter);
        line("if (%s) {", f);
        F->ind++;
    }
    scope_open();
    elem(rn, arg);
    scope_close();
    if (rn->filter) {
        F->ind--;
        line("}");
    }
    scope_close();
}

/* The size of a tuple of numbers as its C struct lays it out (align: its
 * alignment); only ordered values (numbers, str, tuples of them) reach it. */
size_t c_size(struct type *t, size_t *align)
{
    size_t a = 8, n = t == ty_i128 ? 16 : t == ty_bool ? 1 : 8;
    if (t->kind == T_TUPLE) {
        n = 0, a = 1;
        for (int i = 0; i < t->nfields; i++) {
            size_t fa, fs = c_size(t->fields[i], &fa);
            n = (n + fa - 1) / fa * fa + fs;
            if (fa > a) a = fa;
        }
        n = (n + a - 1) / a * a;
    } else {
        a = n;
    }
    if (align) *align = a;
    return n;
}

struct fold_arg {
    const char *acc, *has, *stop, *L;
    const char *cnt, *stk, *sh, *lv, *sp, *st;
    struct ir_node *filter;
    /* world.reduce of values holding references: the pass (0: this rank's
     * share, 1: one rank alone, 2: rank 0's whole run after a share
     * panicked), the leaves ended, whether this block is the rank's, the
     * roots of its blocks and their flags */
    const char *wpass, *wleaf, *wmine, *wroots, *whas;
};

/* world blocks of 2^WORLD_BLOCK leaves, block b evaluated by rank b % R */
#define WORLD_BLOCK 6

/* Tree order on the calling thread (SPEC 5.2), for par min/max and par
 * reduce(f, start, gen) of values the runtime's nodes cannot hold (over 16
 * bytes, or holding references): a stack of completed subtrees (value, has,
 * level), each slot holding its own references; node i = node i op node j,
 * the loser (reduce: the right operand, or a slot without a value)
 * released. The caller drops slot j right after. */
static void tree_merge(struct ir_node *rn, struct fold_arg *a, const char *i, const char *j)
{
    struct type *t = rn->elem_type;
    bool ref = type_is_ref(t);
    const char *right = arena_printf("%s[%s]", a->stk, j), *left = arena_printf("%s[%s]", a->stk, i);
    if (rn->user) { /* f(left, right); a leaf without a value holds a copy of start */
        const char *rel = ref ? release_fn(t) : NULL;
        line("if (%s[%s]) {", a->sh, j);
        F->ind++;
        if (rel) line("if (!%s[%s]) { %s(%s); %s = %s; %s[%s] = 1; }", a->sh, i, rel, left, left, right, a->sh, i);
        else line("if (!%s[%s]) { %s = %s; %s[%s] = 1; }", a->sh, i, left, right, a->sh, i);
        line("else {");
        F->ind++;
        scope_open();
        combine_into(rn, left, right);
        scope_close();
        if (rel) line("%s(%s);", rel, right);
        F->ind--;
        line("}");
        F->ind--;
        if (rel) line("} else %s(%s);", rel, right);
        else line("}");
        return;
    }
    line("if (%s[%s]) {", a->sh, j);
    F->ind++;
    line("if (!%s[%s]) { %s[%s] = %s[%s]; %s[%s] = 1; }", a->sh, i, a->stk, i, a->stk, j, a->sh, i);
    if (ref) line("else if (%s) { %s(%s); %s = %s; } else %s(%s);", better(rn->reducer, t, right, left), release_fn(t), left,
                  left, right, release_fn(t), right);
    else line("else if (%s) %s = %s;", better(rn->reducer, t, right, left), left, right);
    F->ind--;
    line("}");
}

/* The subtree just pushed merges with those of its level below it. */
static void merge_equal(struct ir_node *rn, struct fold_arg *a)
{
    line("while (%s >= 2 && %s[%s - 1] == %s[%s - 2]) {", a->sp, a->lv, a->sp, a->lv, a->sp);
    F->ind++;
    tree_merge(rn, a, arena_printf("%s - 2", a->sp), arena_printf("%s - 1", a->sp));
    line("%s[%s - 2]++; %s--;", a->lv, a->sp, a->sp);
    F->ind--;
    line("}");
}

/* A world block's leaves are on the stack: the rank's own block folds from
 * the right into its root, kept; another rank's (start's copies) is dropped. */
static void world_block_end(struct ir_node *rn, struct fold_arg *a)
{
    struct type *t = rn->elem_type;
    line("if (%s) {", a->wmine);
    F->ind++;
    line("for (; %s >= 2; %s--) {", a->sp, a->sp);
    F->ind++;
    tree_merge(rn, a, arena_printf("%s - 2", a->sp), arena_printf("%s - 1", a->sp));
    F->ind--;
    line("}");
    line("BRT_COLLECT(%s, %s, %s[0]); BRT_COLLECT(bool, %s, %s[0]); %s = 0;", ctype(t), a->wroots, a->stk, a->whas, a->sh,
         a->sp);
    F->ind--;
    line("} else {");
    line("    while (%s > 0) { %s--; %s(%s[%s]); }", a->sp, a->sp, release_fn(t), a->stk, a->sp);
    line("}");
}

/* The leaf in acc/has is complete: push it (level 0) and merge equal levels. */
static void tree_leaf_end(struct ir_node *rn, struct fold_arg *a)
{
    line("%s[%s] = %s; %s[%s] = %s; %s[%s] = 0; %s++;", a->stk, a->sp, a->acc, a->sh, a->sp, a->has, a->lv, a->sp, a->sp);
    if (a->st) { /* reduce: the next leaf folds from its own copy of start */
        line("%s = %s; %s = 0; %s = 0;", a->acc, a->st, a->has, a->cnt);
        if (type_is_ref(rn->elem_type)) line("%s(%s);", retain_fn(rn->elem_type), a->acc);
    } else {
        line("%s = (%s)%s; %s = 0; %s = 0;", a->acc, ctype(rn->elem_type), start_value(rn->reducer, rn->elem_type), a->has,
             a->cnt);
    }
    merge_equal(rn, a);
    if (!a->wpass) return;
    line("%s++;", a->wleaf);
    line("if (%s == 0 && (%s & %d) == 0) {", a->wpass, a->wleaf, (1 << WORLD_BLOCK) - 1);
    F->ind++;
    world_block_end(rn, a);
    line("%s = (%s >> %d) %% brt_world_size() == brt_world_rank();", a->wmine, a->wleaf, WORLD_BLOCK);
    F->ind--;
    line("}");
}

static void fold_cb(struct ir_node *rn, void *p)
{
    struct fold_arg *a = p;
    /* a par construct folded on the calling thread: its element's and
     * filter's places (and a leaf's combine) named by its own frame, as in
     * its helpers; the tree's merges are not, as in the runtime's */
    struct par_places was = {0};
    if (!a->cnt) {
        if (rn->par && !rn->pool) was = par_places_open(rn);
        fold_elem(rn, a->acc, a->has, a->stop, a->L);
        if (rn->par && !rn->pool) par_places_close(was);
        return;
    }
    /* tree order: every element counts for its leaf, kept or not */
    line("if (%s == BRT_LEAF) {", a->cnt);
    F->ind++;
    tree_leaf_end(rn, a);
    F->ind--;
    line("}");
    line("%s++;", a->cnt);
    if (rn->par && !rn->pool) was = par_places_open(rn);
    if (a->wpass) { /* another rank's block: counted, not evaluated */
        line("if (%s) {", a->wmine);
        F->ind++;
        scope_open();
    }
    if (a->filter) {
        const char *f = emit_expr(a->filter);
        line("if (%s) {", f);
        F->ind++;
    }
    scope_open();
    fold_elem(rn, a->acc, a->has, a->stop, a->L);
    scope_close();
    if (a->filter) {
        F->ind--;
        line("}");
    }
    if (a->wpass) {
        block_close();
    }
    if (rn->par && !rn->pool) par_places_close(was);
}

/* bp_elem<n>: one element stored to out, and kept_ set */
struct elem_arg { const char *ct, *kept; };
static void elem_cb(struct ir_node *rn, void *p)
{
    struct elem_arg *a = p;
    const char *x = emit_expr(rn->elem);
    line("*(%s *)out_ = %s;", a->ct, x);
    line("%s = 1;", a->kept);
}

/* A par helper's loop over the flat positions [from, to) of a generator
 * with several clauses: one division per call to find the first
 * position's digits, then the digits step as an odometer (no division per
 * element). */
void flat_loop(struct ir_node *rn, struct src *s, const char *from, const char *to,
                      void (*elem)(struct ir_node *, void *), void *arg, const char *stop, const char *kout)
{
    line("if (%s < %s) {", from, to);
    F->ind++;
    const char **d = flat_digits(s, from);
    const char *k = kout ? kout : new_temp();
    line("for (%s%s = %s; %s < %s; %s++) {", kout ? "" : "int64_t ", k, from, k, to, k);
    F->ind++;
    for (int c = 0; c <= s->ncl; c++) set_clause(rn, s, c, d[c]);
    iteration(rn, elem, arg);
    if (stop) line("if (%s) break;", stop);
    for (int c = s->ncl; c > 0; c--) {
        line("if (++%s < env->n%d) continue;", d[c], c);
        line("%s = 0;", d[c]);
    }
    line("%s++;", d[0]);
    F->ind--;
    line("}");
    F->ind--;
    line("}");
}

/* A par helper's loop over k (a C name) in [lo_, hi_): the positions of
 * one source or of several clauses' flattened sequence. */
void chunk_loop(struct ir_node *rn, struct src *s, const char *k, void (*elem)(struct ir_node *, void *), void *arg,
                       const char *stop)
{
    line("int64_t %s;", k);
    if (s->ncl) {
        flat_loop(rn, s, "lo_", "hi_", elem, arg, stop, k);
        return;
    }
    line("for (%s = lo_; %s < hi_; %s++) {", k, k, k);
    F->ind++;
    set_gen_var(rn, "env->", "lo", "arr", k, s->is_range);
    iteration(rn, elem, arg);
    if (stop) line("if (%s) break;", stop);
    F->ind--;
    line("}");
}

/* The sequential loops of a generator with several clauses: clause c's
 * source evaluated for each element of the clauses before it (as nested
 * for loops), the filter and element innermost. */
void seq_loops(struct ir_node *rn, int c, void (*elem)(struct ir_node *, void *), void *arg, const char *stop)
{
    if (c > rn->nclauses) {
        iteration(rn, elem, arg);
        return;
    }
    if (c > 0) scope_open();
    struct ir_var *v = c == 0 ? rn->gen_var : rn->clauses[c - 1].var;
    if (c > 0) declare_var(v, VS_BORROWED);
    struct src s = eval_source(c == 0 ? &rn->iter : &rn->clauses[c - 1].iter);
    const char *k = new_temp();
    if (c == rn->nclauses && !unroll_hint(rn, c == 0 ? &rn->iter : &rn->clauses[c - 1].iter, rn->elem, rn->filter))
        fold_unroll(rn);
    line("for (int64_t %s = 0; %s < %s; %s++) {", k, k, s.n, k);
    F->ind++;
    set_var(v, "", s.lo, s.arr, k, s.is_range);
    seq_loops(rn, c + 1, elem, arg, stop);
    if (stop) line("if (%s) break;", stop);
    F->ind--;
    line("}");
    if (c > 0) scope_close();
}

/* seq_loops with the first clause's source s evaluated by the caller (before
 * what the caller evaluates next). */
void seq_loops_from(struct ir_node *rn, const struct src *s, void (*elem)(struct ir_node *, void *), void *arg)
{
    const char *k = new_temp();
    line("for (int64_t %s = 0; %s < %s; %s++) {", k, k, s->n, k);
    F->ind++;
    set_var(rn->gen_var, "", s->lo, s->arr, k, s->is_range);
    seq_loops(rn, 1, elem, arg, NULL);
    F->ind--;
    line("}");
}

/* A loop over k in [from, to) of the source, running body per element. */
void source_loop(struct ir_node *rn, const char *pre, const char *lo, const char *arr, const char *from,
                        const char *to, bool is_range, void (*elem)(struct ir_node *, void *), void *arg,
                        const char *stop)
{
    const char *k = new_temp();
    bool whole = !rn->nclauses && strcmp(from, "0") == 0; /* the whole source, not a leaf's part */
    if (!whole || !unroll_hint(rn, &rn->iter, rn->elem, rn->filter)) fold_unroll(rn);
    line("for (int64_t %s = %s; %s < %s; %s++) {", k, from, k, to, k);
    F->ind++;
    set_gen_var(rn, pre, lo, arr, k, is_range);
    gen_rows_ahead(rn);
    iteration(rn, elem, arg);
    if (stop) line("if (%s) break;", stop);
    F->ind--;
    line("}");
}

/* world.reduce of values holding references (the top of world.c's
 * comment on it): one rank alone runs the tree as one process (pass 1);
 * else its share runs under the runtime's trap (pass 0), and if any rank's
 * share panicked, rank 0 comes back to the label returned and runs the
 * whole tree (pass 2), which panics as one process does. */
static void world_reset(struct ir_node *rn, struct fold_arg *a)
{
    line("%s = %s; %s(%s); %s = 0; %s = 0; %s = 0; %s = 0; %s = 1;", a->acc, a->st, retain_fn(rn->elem_type), a->acc, a->has,
         a->sp, a->cnt, a->wleaf, a->wmine);
}

static const char *world_share_begin(struct ir_node *rn, struct fold_arg *a)
{
    a->wpass = new_temp(), a->wleaf = new_temp(), a->wmine = new_temp();
    CG->uses_world = CG->uses_setjmp = true;
    line("volatile int %s = brt_world_size() == 1; int64_t %s = 0; bool %s = 1;", a->wpass, a->wleaf, a->wmine);
    a->wroots = tmp_owned(type_array(rn->elem_type), "brt_arr_new(%s, 0)", tdesc(rn->elem_type));
    a->whas = tmp_owned(type_array(ty_bool), "brt_arr_new(&brt_t_bool, 0)");
    const char *again = new_temp();
    line("%s:", again);
    line("if (%s == 0) {", a->wpass);
    F->ind++;
    line("%s = brt_world_rank() == 0;", a->wmine);
    line("if (setjmp(*(jmp_buf *)brt_world_share_begin(%s))) {", a->L);
    F->ind++;
    line("brt_world_share_end(1, %s); /* returns on rank 0 only */", a->L);
    line("%s = 2;", a->wpass);
    world_reset(rn, a);
    line("goto %s;", again);
    F->ind--;
    line("}");
    F->ind--;
    line("}");
    return again;
}

/* This rank's last block, the ranks' roots met, pushed as the tree's top. */
static void world_share_end(struct ir_node *rn, struct fold_arg *a, const char *again)
{
    struct type *t = rn->elem_type;
    line("if (%s == 0) {", a->wpass);
    F->ind++;
    line("if (%s > 0) {", a->sp);
    F->ind++;
    world_block_end(rn, a);
    F->ind--;
    line("}");
    line("if (brt_world_share_end(0, %s)) {", a->L);
    F->ind++;
    line("%s = 2;", a->wpass);
    world_reset(rn, a);
    line("goto %s;", again);
    F->ind--;
    line("}");
    const char *nb = tmp(ty_int, "(%s + %d) >> %d", a->wleaf, (1 << WORLD_BLOCK) - 1, WORLD_BLOCK);
    line("brt_world_roots(%s, &%s, &%s, %s);", tdesc(t), a->wroots, a->whas, nb);
    const char *b = new_temp();
    line("for (int64_t %s = 0; %s < %s; %s++) {", b, b, nb, b);
    F->ind++;
    line("%s[%s] = ((%s *)%s->data)[%s]; %s(%s[%s]); %s[%s] = ((bool *)%s->data)[%s]; %s[%s] = 0; %s++;", a->stk, a->sp,
         ctype(t), a->wroots, b, retain_fn(t), a->stk, a->sp, a->sh, a->sp, a->whas, b, a->lv, a->sp, a->sp);
    merge_equal(rn, a);
    F->ind--;
    line("}");
    F->ind--;
    line("}");
}

/* A built-in reduction folded on the calling thread: left to right, or
 * (tree) in the par tree's order with a stack of finished subtrees. Also
 * par reduce(f, start, gen) of values holding references (tree): each leaf
 * folds from its own copy of start, nodes combine as f(left, right). */
const char *emit_seq_reduce(struct ir_node *rn, bool tree)
{
    struct type *t = rn->type;
    const char *L = loc_ref(rn->loc);
    const char *ust = NULL; /* reduce's start, evaluated before the sources */
    if (rn->user) {
        ust = new_temp();
        line("%s %s = %s;", ctype(t), ust, take(emit_expr(rn->a), t));
        own(ust, t);
    }
    struct src s = {0};
    if (!rn->nclauses) s = eval_source(&rn->iter);
    declare_var(rn->gen_var, VS_BORROWED);
    const char *acc = new_temp();
    line("%s %s = %s;", ctype(t), acc, ust ? ust : start_value(rn->reducer, t));
    if (ust && type_is_ref(t)) line("%s(%s);", retain_fn(t), acc);
    own(acc, t); /* from here: a panic in an element releases it */
    /* a sequential reduce whose combine is min or max (emit_fold): a min or
     * max fold from start, which acc already holds */
    bool from = rn->user && !tree;
    const char *has = NULL, *stop = NULL;
    if (rn->user || rn->reducer == RED_MIN || rn->reducer == RED_MAX) {
        has = new_temp();
        line("bool %s = %d;", has, from);
    }
    if (rn->reducer == RED_ANY || rn->reducer == RED_ALL) {
        stop = new_temp();
        line("bool %s = 0;", stop);
    }
    struct fold_arg fa = {.acc = acc, .has = has, .stop = stop, .L = L, .st = ust};
    if (tree) {
        fa.cnt = new_temp(), fa.stk = new_temp(), fa.sh = new_temp(), fa.lv = new_temp(), fa.sp = new_temp();
        line("%s %s[66]; bool %s[66]; int %s[66]; int %s = 0; int64_t %s = 0;", ctype(t), fa.stk, fa.sh, fa.lv, fa.sp, fa.cnt);
        fa.filter = rn->filter; /* fold_cb tests it, after counting the element */
        rn->filter = NULL;
    }
    /* the stack's values are owned while elements run (a panic in one
     * releases them); after the loop only reduce's f can panic */
    const char *so = NULL;
    if (tree && F->owner && type_is_ref(t)) {
        so = new_temp();
        line("brt_vals_owner %s;", so);
        line("brt_own_vals(&%s, %s, %s, &%s);", so, tdesc(t), fa.stk, fa.sp);
    }
    const char *again = NULL;
    if (tree && rn->world) again = world_share_begin(rn, &fa);
    int views = open_cap_views(rn);
    if (rn->nclauses) seq_loops(rn, 0, fold_cb, &fa, stop);
    else if (!tree && minmax_lanes_fit(rn)) emit_minmax_lanes(rn, &s, fold_cb, &fa, acc, has, ust);
    else if (!tree && anyall_blocks_fit(rn)) emit_anyall_blocks(rn, &s, fold_cb, &fa, stop);
    else emit_gen_loop(rn, &s, fold_cb, &fa, stop);
    close_views(views);
    if (so && !rn->user) line("brt_own_pop(&%s.o);", so);
    if (tree) {
        /* the partial leaf, then the nodes without a partner, right to left */
        rn->filter = fa.filter;
        line("if (%s > 0) {", fa.cnt);
        F->ind++;
        tree_leaf_end(rn, &fa);
        F->ind--;
        line("}");
    }
    if (again) world_share_end(rn, &fa, again);
    if (tree && rn->user) {
        line("for (; %s >= 2; %s--) {", fa.sp, fa.sp);
        F->ind++;
        tree_merge(rn, &fa, arena_printf("%s - 2", fa.sp), arena_printf("%s - 1", fa.sp));
        F->ind--;
        line("}");
        /* the root's value, or (nothing kept) acc's copy of start */
        if (type_is_ref(t))
            line("if (%s > 0) { if (%s[0]) { %s(%s); %s = %s[0]; } else %s(%s[0]); %s = 0; }", fa.sp, fa.sh, release_fn(t), acc,
                 acc, fa.stk, release_fn(t), fa.stk, fa.sp);
        else
            line("if (%s > 0 && %s[0]) %s = %s[0];", fa.sp, fa.sh, acc, fa.stk);
        if (so) line("brt_own_pop(&%s.o);", so);
        if (again) {
            line("if (%s == 2) brt_panic_text(%s, \"world: a rank's share of this reduction panicked\");", fa.wpass, L);
            line("if (%s == 0) brt_world_alone();", fa.wpass);
        }
        return acc;
    }
    if (tree) {
        const char *i = new_temp();
        line("for (int %s = %s - 2; %s >= 0; %s--) {", i, fa.sp, i, i);
        F->ind++;
        tree_merge(rn, &fa, i, arena_printf("%s + 1", i));
        F->ind--;
        line("}");
        line("if (%s > 0) { %s = %s[0]; %s = %s[0]; }", fa.sp, acc, fa.stk, has, fa.sh);
    }
    if (has && !from) line("if (!%s) brt_panic(%s, %s);", has, L, rn->reducer == RED_MIN ? "BRT_MIN_EMPTY" : "BRT_MAX_EMPTY");
    return acc;
}

/* The environment of a par helper: the source and the captured variables
 * (scalars by value, str/arrays as borrowed pointers). */
static void env_struct(struct buf *b, int id, struct ir_node *rn, struct src *s)
{
    bprintf(b, "struct bp_env%d {\n    int64_t n;\n", id);
    if (s->is_range) bprintf(b, "    %s lo;\n", ctype(s->it));
    else bprintf(b, "    brt_arr *arr;\n");
    if (s->ncl) bprintf(b, "    int64_t n0;\n");
    for (int c = 1; c <= s->ncl; c++) {
        bprintf(b, "    int64_t n%d;\n", c);
        if (s->cl[c - 1].is_range) bprintf(b, "    %s lo%d;\n", ctype(s->cl[c - 1].it), c);
        else bprintf(b, "    brt_arr *arr%d;\n", c);
    }
    for (int i = 0; i < rn->ncaps; i++)
        bprintf(b, "    %s v%d; /* %s */\n", ctype(rn->caps[i]->type), rn->caps[i]->id, rn->caps[i]->name);
    if (s->nk) bprintf(b, "    int64_t nk, nk0;\n");
    if (rn->user) bprintf(b, "    %s st_; /* reduce's start */\n", ctype(rn->elem_type));
    bprintf(b, "};\n");
}

const char *env_fill(int id, struct ir_node *rn, struct src *s)
{
    const char *e = new_temp();
    line("struct bp_env%d %s;", id, e);
    line("%s.n = %s;", e, s->n);
    if (s->is_range) line("%s.lo = %s;", e, s->lo);
    else line("%s.arr = %s;", e, s->arr);
    if (s->ncl) line("%s.n0 = %s;", e, s->n0);
    for (int c = 1; c <= s->ncl; c++) {
        line("%s.n%d = %s;", e, c, s->cl[c - 1].n);
        if (s->cl[c - 1].is_range) line("%s.lo%d = %s;", e, c, s->cl[c - 1].lo);
        else line("%s.arr%d = %s;", e, c, s->cl[c - 1].arr);
    }
    for (int i = 0; i < rn->ncaps; i++) line("%s.v%d = %s;", e, rn->caps[i]->id, vname(rn->caps[i]));
    line("brt_frames_at(%s);", frame_slot()); /* the helpers' chains start at this frame's free slot */
    if (s->nk) line("%s.nk0 = %s; %s.nk = %s < 0 ? 0 : %s;", e, s->nk, e, s->nk, s->nk);
    return e;
}

/* Starts a helper function: a new context whose captured variables are
 * unpacked from env (borrowed). */
void (*emit_par_seen)(struct loc at, bool lanes, bool gpu);

struct fctx *helper_open(int id, struct ir_var **caps, int ncaps)
{
    struct fctx *saved = F;
    F = fctx_new();
    /* the call chain: from the slot its starter left free */
    F->frame = saved->frame;
    F->owner = true;
    bprintf(&F->decl, "    struct bp_env%d *env = envp;\n", id);
    bputs(&F->decl, "    const brt_loc **fp_ = brt_frames_here();\n");
    for (int i = 0; i < ncaps; i++) {
        struct ir_var *v = caps[i];
        F->vst[v->id] = VS_BORROWED;
        debug_note_var(v);
        bprintf(&F->decl, "    %s v%d = env->v%d;\n", ctype(v->type), v->id, v->id);
    }
    return saved;
}

/* From here the places of par construct rn's element and filter are named
 * by its own frame, "f: a par element of FILE:L:C" (f the function's, or a
 * call's written in place), as at every thread count; returns F's naming
 * before, for par_places_close. */
struct par_places par_places_open(struct ir_node *rn)
{
    struct par_places was = {F->in_helper, F->elem_frame, F->elem_span};
    const struct source *src = source_get(rn->loc.file);
    const char *in = frame_own(rn->loc);
    F->in_helper = true;
    F->elem_frame = arena_printf("%s: a par element of %s:%d:%d", in ? in : "main",
                                 src && src->name ? src->name : "?", rn->loc.line, rn->loc.col);
    F->elem_span = rn->loc; /* the construct's span (its element may have been written in place) */
    return was;
}

void par_places_close(struct par_places was)
{
    F->in_helper = was.in_helper;
    F->elem_frame = was.elem_frame;
    F->elem_span = was.elem_span;
}

struct fctx *helper_begin(int id, struct ir_node *rn)
{
    struct fctx *saved = helper_open(id, rn->caps, rn->ncaps);
    par_places_open(rn); /* the element's places are named by its own frame */
    declare_var(rn->gen_var, VS_BORROWED);
    for (int c = 0; c < rn->nclauses; c++) declare_var(rn->clauses[c].var, VS_BORROWED);
    debug_line(&F->body, rn->loc, true);
    return saved;
}

/* A helper that runs code of its caller's (a sequential reduction's
 * elements): its places are the caller's, a par element's frame included
 * when the caller is one. */
void helper_places(struct fctx *caller)
{
    F->in_helper = caller->in_helper;
    F->elem_frame = caller->elem_frame;
    F->elem_span = caller->elem_span;
}

/* Ends a helper: header + declarations + body + exit releases into out. */
void helper_end(struct fctx *saved, struct buf *out, const char *header, const char *result)
{
    bputs(out, header);
    bputs(out, " {\n");
    if (F->decl.p) bputs(out, F->decl.p);
    own_record(out);
    if (F->body.p) bputs(out, F->body.p);
    /* A par construct run by the element (in a function it calls, say)
     * moved the thread's ftop to its own frame's slot: put back this
     * helper's, which the next helper run on this thread reads (the next
     * element of an element-wise reduction, the next chunk), and which a
     * trap the runtime installs next records as its chain's first slot. */
    if (F->frame_used) bputs(out, "    brt_frames_at(fp_);\n");
    own_record_end(out);
    for (int i = 0; i < F->nlocals; i++)
        bprintf(out, "    %s(v%d);\n", release_fn(F->locals[i]->type), F->locals[i]->id);
    for (int i = 0; i < F->nextra; i++) bprintf(out, "    %s(%s);\n", release_fn(F->extra[i].t), F->extra[i].name);
    if (result) bprintf(out, "    return %s;\n", result);
    bputs(out, "}\n\n");
    fctx_free(F);
    F = saved;
}

/* A new par helper family: its number, and struct bp_env<n> written to aux. */
int par_env(struct ir_node *rn, struct src *s, struct buf *aux)
{
    int id = ++CG->naux;
    env_struct(aux, id, rn, s);
    return id;
}

/* fold()'s body after its header: a whole aligned chunk of leaf values
 * folded in place, level by level (the runtime's generic fold with the
 * combine inlined); fast: the reducer's own ways may be used. */
static void fold_body(struct buf *aux, struct ir_node *rn, int id, bool fast)
{
    struct type *t = rn->type;
    const char *ct = ctype(t);
    if (fast && (t == ty_int || t == ty_u64) && rn->reducer == RED_SUM) {
        /* An integer sum whose 64 leaf values all lie in [-2^57, 2^57)
         * (u64: below 2^57): no partial sum of any order leaves the range,
         * so the tree's checked sum is the plain one, added in a loop gcc
         * vectorizes; a leaf without a kept element holds 0 (masked all
         * the same). Otherwise the tree below decides, and panics where
         * it must. */
        bprintf(aux, "    uint64_t big_ = 0;\n    %s t_ = 0;\n    unsigned char h_ = 0;\n", ct);
        bprintf(aux, "    for (int j_ = 0; j_ < BRT_LEAF_CHUNK; j_++) {\n");
        bprintf(aux, "        %s x_ = v[j_] & (%s)0 - (%s)has[j_];\n", ct, ct, ct);
        if (t == ty_int) {
            bprintf(aux, "        big_ |= ((uint64_t)x_ + (1ULL << 57)) >> 58;\n");
            bprintf(aux, "        t_ = (int64_t)((uint64_t)t_ + (uint64_t)x_);\n");
        } else {
            bprintf(aux, "        big_ |= x_ >> 57;\n        t_ += x_;\n");
        }
        bprintf(aux, "        h_ |= has[j_];\n    }\n");
        bprintf(aux, "    if (!big_) {\n        v[0] = t_;\n        has[0] = h_;\n        return;\n    }\n");
    }
    bprintf(aux, "    for (int s_ = 1; s_ < BRT_LEAF_CHUNK; s_ *= 2)\n");
    bprintf(aux, "        for (int j_ = 0; j_ < BRT_LEAF_CHUNK; j_ += 2 * s_) {\n");
    bprintf(aux, "            if (!has[j_ + s_]) continue;\n");
    bprintf(aux, "            if (!has[j_]) { v[j_] = v[j_ + s_]; has[j_] = 1; continue; }\n");
    bprintf(aux, "            bp_combine%d(envp, &v[j_], &v[j_ + s_]);\n", id);
    bprintf(aux, "        }\n}\n\n");
}

const char *emit_par_reduce(struct ir_node *rn, bool lanes)
{
    struct type *t = rn->type;
    const char *L = loc_ref(rn->loc);
    const char *ustart = NULL; /* reduce(f, start, gen): start, before the sources */
    if (rn->user) {
        ustart = new_temp();
        line("%s %s = %s;", ctype(t), ustart, emit_expr(rn->a));
    }
    struct src s = eval_sources(rn);
    struct buf aux = {0};
    int id = par_env(rn, &s, &aux);

    /* leaves(): each leaf folds from the start value; min/max from the
     * leaf's first kept element; has = 0 when the filter kept nothing. */
    struct fctx *saved = helper_begin(id, rn);
    const char *lf = new_temp(), *b = new_temp(), *e = new_temp();
    const char *whole = minmax_whole_fits(rn) ? emit_minmax_whole(rn, &s) : NULL;
    if (whole) line("if (!%s)", whole);
    line("for (int64_t %s = 0; %s < count; %s++) {", lf, lf, lf);
    F->ind++;
    line("int64_t %s = (first + %s) * BRT_LEAF, %s = %s + BRT_LEAF;", b, lf, e, b);
    line("if (%s > env->n) %s = env->n;", e, e);
    const char *acc = new_temp(), *has = new_temp();
    line("%s %s = %s;", ctype(t), acc, ustart ? "env->st_" : start_value(rn->reducer, t));
    line("bool %s = 0;", has);
    struct fold_arg fa = {.acc = acc, .has = has, .L = L};
    if (s.ncl) flat_loop(rn, &s, b, e, fold_cb, &fa, NULL, NULL);
    else source_loop(rn, "env->", "lo", "arr", b, e, s.is_range, fold_cb, &fa, NULL);
    line("((%s *)vals)[%s] = %s;", ctype(t), lf, acc);
    line("has[%s] = %s;", lf, has);
    F->ind--;
    line("}");
    /* with a lane form, this scalar fold is bp_leaves_s<id>: the lanes'
     * fallback for ragged tails, leftovers and flagged blocks */
    struct buf lbuf = {0};
    bool laned = lanes && emit_lane_leaves(rn, id, &s, &lbuf);
    helper_end(saved, &aux,
               arena_printf("static %svoid bp_leaves%s%d(void *envp, int64_t first, int64_t count, void *vals, unsigned char *has)",
                            laned ? "BRT_NOINLINE " : "", laned ? "_s" : "", id), NULL);
    if (laned) bputs(&aux, lbuf.p);
    free(lbuf.p);

    /* combine() and fold() depend only on the type, the reducer and (checked
     * integer ones) the place: one pair per shape, shared by the reductions
     * of that shape */
    const char *ct = ctype(t);
    bool checked = t != ty_float && (rn->reducer == RED_SUM || rn->reducer == RED_PRODUCT);
    const char *shape = arena_printf("%s %d %s", ct, (int)rn->reducer, checked ? L : "");
    int fid = rn->user ? 0 : (int)(intptr_t)map_get_str(&CG->fold_ids, shape);
    if (rn->user) {
        /* f's own combine, in its own helper (its call chain, its panics) */
        fid = id;
        saved = helper_begin(id, rn);
        line("%s a_ = *(%s *)l;", ct, ct);
        line("%s b_ = *(const %s *)r;", ct, ct);
        combine_into(rn, "a_", "b_");
        line("*(%s *)l = a_;", ct);
        line("(void)env;");
        helper_end(saved, &aux, arena_printf("static void bp_combine%d(void *envp, void *l, const void *r)", id), NULL);
        bprintf(&aux, "static void bp_fold%d(void *envp, void *vals, unsigned char *has)\n{\n", id);
        bprintf(&aux, "    %s *v = vals;\n", ct);
        fold_body(&aux, rn, id, lanes);
    } else if (!fid) {
        fid = id;
        map_put_str(&CG->fold_ids, shape, (void *)(intptr_t)fid);
        /* combine(): left = left OP right, in the tree's order */
        bprintf(&aux, "static void bp_combine%d(void *envp, void *l, const void *r)\n{\n", id);
        bprintf(&aux, "    %s a = *(%s *)l, b = *(const %s *)r;\n    (void)envp;\n", ct, ct, ct);
        switch (rn->reducer) {
        case RED_SUM: case RED_PRODUCT:
            if (t == ty_float) bprintf(&aux, "    *(double *)l = a %s b;\n", rn->reducer == RED_SUM ? "+" : "*");
            else bprintf(&aux, "    *(%s *)l = brt_%s_%s(a, b, %s);\n", ct, rn->reducer == RED_SUM ? "add" : "mul", num_suffix(t), L);
            break;
        case RED_MIN: case RED_MAX:
            bprintf(&aux, "    *(%s *)l = %s ? b : a;\n", ct, better(rn->reducer, t, "b", "a"));
            break;
        case RED_ANY: case RED_ALL:
            internal_error("emit: par any/all go sequential");
        }
        bprintf(&aux, "}\n\n");
        /* fold(): a whole aligned chunk of leaf values folded in place, level by
         * level (the runtime's generic fold with the combine inlined) */
        bprintf(&aux, "static void bp_fold%d(void *envp, void *vals, unsigned char *has)\n{\n", id);
        bprintf(&aux, "    %s *v = vals;\n", ct);
        fold_body(&aux, rn, id, true);
    }
    /* elem(): element k alone, for reductions whose elements are worth a
     * task each (the runtime measures that at the call site, bp_site<n>) */
    saved = helper_begin(id, rn);
    const char *kept = new_temp();
    line("bool %s = 0;", kept);
    set_flat(rn, &s, "k_");
    struct elem_arg ea = {ct, kept};
    iteration(rn, elem_cb, &ea);
    helper_end(saved, &aux, arena_printf("static bool bp_elem%d(void *envp, int64_t k_, void *out_)", id), kept);
    bprintf(&aux, "static brt_site bp_site%d;\n\n", id);
    bputs(&CG->aux, aux.p);
    bprintf(&CG->protos, "struct bp_env%d;\n", id);
    /* GPU offload (emit_cuda.c): an eligible reduction tries the device
     * first; a world reduction hands its way to the device to the blocks of
     * each rank's share */
    char *gpu_aux = NULL;
    const char *gpu = emit_cuda_reduce(rn, id, &CG->kernels, &CG->nkernels, &gpu_aux);
    if (gpu_aux) bputs(&CG->aux, gpu_aux), free(gpu_aux);
    if (emit_par_seen) emit_par_seen(rn->loc, laned, gpu != NULL);

    const char *env = env_fill(id, rn, &s);
    const char *r = new_temp(), *st = NULL;
    if (ustart) {
        line("%s.st_ = %s;", env, ustart);
        st = ustart;
    } else if (rn->reducer == RED_SUM || rn->reducer == RED_PRODUCT) {
        st = new_temp();
        line("%s %s = %s;", ct, st, start_value(rn->reducer, t));
    }
    line("brt_reduce %s = {%s, sizeof(%s), &%s, bp_leaves%d, bp_combine%d, %s, bp_fold%d, bp_elem%d, %s%s, &bp_site%d};",
         r, s.n, ct, env, id, fid, L, fid, id, st ? "&" : "NULL", st ? st : "", id);
    const char *res = new_temp(), *got = new_temp();
    line("%s %s;", ct, res);
    /* One leaf is the whole tree: fold it here, where gcc can inline it,
     * rather than through the runtime (tiny n in hot loops, SPEC 5.5), unless
     * the site's elements were measured expensive (bp_site.hot: then the
     * runtime runs them as tasks, except where brt_reduce_inline says an
     * outer par's elements are on offer and nobody is looking for work:
     * the tiny reductions deep in a recursion); about one call in 128 goes
     * to the runtime to be measured (brt_unsampled: the thread's counter). Under BRINE_GPU=on an eligible reduction still
     * goes to the device. */
    line("bool %s;", got);
    /* world: every rank takes the same way, so a panic is everyone's */
    line("if (%s <= BRT_LEAF && brt_unsampled() && (!bp_site%d.hot || brt_reduce_inline())%s%s) {",
         s.n, id, rn->world ? " && brt_world_size() == 1" : "", gpu ? " && !brt_gpu_forced" : "");
    line("    unsigned char h_ = 0;");
    line("    if (%s > 0) bp_leaves%s%d(&%s, 0, 1, &%s, &h_);", s.n, laned ? "_s" : "", id, env, res);
    line("    %s = h_ != 0;", got);
    line("} else {");
    if (rn->world)
        line("    %s = brt_world_reduce_tree(&%s, %s, &%s);", got, r, gpu ? gpu : "NULL", res);
    else if (gpu)
        line("    %s = %s(&%s, &%s, 0, &%s);", got, gpu, env, r, res);
    else
        line("    %s = brt_reduce_tree(&%s, &%s);", got, r, res);
    line("}");
    if (!rn->user && (rn->reducer == RED_MIN || rn->reducer == RED_MAX))
        line("if (!%s) %s(%s, %s);", got, rn->world ? "brt_world_panic" : "brt_panic", L,
             rn->reducer == RED_MIN ? "BRT_MIN_EMPTY" : "BRT_MAX_EMPTY");
    else
        line("if (!%s) %s = %s;", got, res, ustart ? ustart : start_value(rn->reducer, t));
    return res;
}

/* par any / par all: bp_find<n>(env, lo, hi) evaluates elements lo..hi-1 in
 * order, exactly as the sequential loop does, and returns the index of the
 * first deciding one (any: true, all: false) or -1; brt_par_find runs chunks
 * on the pool and keeps the lowest deciding index, reporting a chunk's panic
 * only when no earlier chunk decided (SPEC 5.3). */
struct find_arg { const char *k, *res, *stop; bool any; };
static void find_cb(struct ir_node *rn, void *p)
{
    struct find_arg *a = p;
    const char *x = emit_expr(rn->elem);
    line("if (%s%s) { %s = %s; %s = 1; }", a->any ? "" : "!", x, a->res, a->k, a->stop);
}

static const char *emit_par_find(struct ir_node *rn)
{
    struct src s = eval_sources(rn);
    struct buf aux = {0};
    int id = par_env(rn, &s, &aux);
    struct fctx *saved = helper_begin(id, rn);
    const char *res = new_temp(), *stop = new_temp(), *k = new_temp();
    line("int64_t %s = -1;", res);
    line("bool %s = 0;", stop);
    struct find_arg fa = {k, res, stop, rn->reducer == RED_ANY};
    chunk_loop(rn, &s, k, find_cb, &fa, stop);
    helper_end(saved, &aux, arena_printf("static int64_t bp_find%d(void *envp, int64_t lo_, int64_t hi_)", id), res);
    bputs(&CG->aux, aux.p);
    bprintf(&CG->protos, "struct bp_env%d;\n", id);
    const char *env = env_fill(id, rn, &s);
    const char *at = rn->world ? tmp(ty_int, "brt_world_find(%s, &%s, bp_find%d, %s)", s.n, env, id, loc_ref(rn->loc))
                               : tmp(ty_int, "brt_par_find(%s, &%s, bp_find%d)", s.n, env, id);
    return tmp(ty_bool, "%s %s 0", at, rn->reducer == RED_ANY ? ">=" : "<");
}

/* A sequential float sum or product of one source whose element calls
 * math functions with a lanes form (emit_lane.c's emit_lane_elems): the
 * elements' values computed in lanes, SEQ_BLOCK at a time, by
 * bp_leaves<id> over leaves of one element each, then added (multiplied)
 * into the accumulator one by one in the source's order: the left fold's
 * operations on the same values, the same bits. A lane block that could
 * panic goes to bp_leaves_s<id>, the element's own code, which panics where
 * the loop would (the elements before it were folded by nobody, but no
 * element the lanes take has an effect, and the accumulator is local).
 * The accumulator (returned) starts at start (C text) or the reducer's
 * start value; NULL, nothing emitted: no lanes form. */
enum { SEQ_BLOCK = 64 }; /* two lane blocks a call; emit_quiet.c's LANES_STACK counts its stack */
const char *emit_seq_lanes(struct ir_node *rn, const char *start)
{
    if (rn->type != ty_float || rn->par || rn->user || rn->scan || rn->key || rn->world || rn->nclauses ||
        (rn->reducer != RED_SUM && rn->reducer != RED_PRODUCT))
        return NULL;
    struct src shape = {.is_range = rn->iter.is_range};
    if (shape.is_range) {
        shape.it = rn->iter.lo->type;
        if (shape.it != ty_int && shape.it != ty_u64) return NULL;
    }
    struct buf aux = {0}, lbuf = {0};
    int id = par_env(rn, &shape, &aux);
    if (!emit_lane_elems(rn, id, &shape, &lbuf)) {
        free(aux.p);
        return NULL;
    }
    /* bp_leaves_s<id>: element first + lf alone, from -0.0 (sum) or 1.0 */
    struct fctx *saved = helper_begin(id, rn);
    helper_places(saved);
    const char *lf = new_temp(), *a = new_temp(), *h = new_temp();
    line("for (int64_t %s = 0; %s < count; %s++) {", lf, lf, lf);
    F->ind++;
    line("double %s = %s;", a, rn->reducer == RED_SUM ? "bp_f64(0x8000000000000000ULL)" : "1.0");
    line("bool %s = 0;", h);
    struct fold_arg fa = {.acc = a, .has = h, .L = loc_ref(rn->loc)};
    source_loop(rn, "env->", "lo", "arr", arena_printf("first + %s", lf), arena_printf("first + %s + 1", lf), shape.is_range,
                fold_cb, &fa, NULL);
    line("((double *)vals)[%s] = %s;", lf, a);
    line("has[%s] = %s;", lf, h);
    F->ind--;
    line("}");
    helper_end(saved, &aux,
               arena_printf("static BRT_NOINLINE void bp_leaves_s%d(void *envp, int64_t first, int64_t count, void *vals, unsigned char *has)", id),
               NULL);
    bputs(&aux, lbuf.p);
    free(lbuf.p);
    bputs(&CG->aux, aux.p);
    free(aux.p);
    bprintf(&CG->protos, "struct bp_env%d;\n", id);

    const char *acc = new_temp();
    line("double %s = %s;", acc, start ? start : start_value(rn->reducer, ty_float));
    struct src s = eval_source(&rn->iter);
    const char *env = env_fill(id, rn, &s);
    const char *g = new_temp(), *c = new_temp(), *q = new_temp(), *v = new_temp(), *hv = new_temp();
    line("{ /* the buffer in a scope of its own: its stack slots are shared */");
    F->ind++;
    line("double %s[%d];", v, SEQ_BLOCK);
    line("unsigned char %s[%d];", hv, SEQ_BLOCK);
    line("for (int64_t %s = 0; %s < %s; %s += %d) {", g, g, s.n, g, SEQ_BLOCK);
    F->ind++;
    line("int64_t %s = %s - %s < %d ? %s - %s : %d;", c, s.n, g, SEQ_BLOCK, s.n, g, SEQ_BLOCK);
    line("bp_leaves%d(&%s, %s, %s, %s, %s);", id, env, g, c, v, hv);
    line("for (int64_t %s = 0; %s < %s; %s++)", q, q, c, q);
    line("    if (%s[%s]) %s = %s %s %s[%s];", hv, q, acc, acc, rn->reducer == RED_SUM ? "+" : "*", v, q);
    F->ind--;
    line("}");
    F->ind--;
    line("}");
    return acc;
}

const char *emit_reduce(struct ir_node *rn)
{
    if (rn->world) CG->uses_world = true;
    const char *seq = rn->par ? NULL : emit_seq_lanes(rn, NULL);
    if (seq) return seq;
    if (rn->user || rn->scan || rn->key) return emit_fold(rn);
    if (rn->par && (rn->reducer == RED_ANY || rn->reducer == RED_ALL)) return emit_par_find(rn);
    struct type *t = rn->elem_type;
    /* the runtime's tree nodes hold values of up to 16 bytes, no references:
     * bigger or counted tuples and structs take the tree's order here */
    bool tree = rn->par && t->kind == T_TUPLE && (type_is_ref(t) || c_size(t, NULL) > 16);
    bool par = rn->par && !type_is_ref(t) && !tree;
    return par ? emit_par_reduce(rn, true) : emit_seq_reduce(rn, tree);
}

