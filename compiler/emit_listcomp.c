/*
 * emit_listcomp.c: the C of array comprehensions (emit_c.h).
 *
 * A sequential comprehension pushes each element into a fresh array (room
 * made once when there is no filter); one whose elements own nothing keeps
 * the array's data, length and room in locals while it runs (BRT_CURSOR).
 * A par comprehension, or one opt_parfor.c put on the pool, runs helpers
 * beside the function on the pool: without a filter each element goes to
 * its own slot (bp_fill<n>, brt_par_fill), with one each chunk collects its
 * kept elements (bp_body<n>, brt_par_collect) and the chunks are joined in
 * order. The loops over the sources are emit_par.c's (chunk_loop,
 * flat_loop, source_loop, seq_loops).
 */
#include "emit_c.h"

#include <inttypes.h>
#include <stdlib.h>

/* An element pushed into the array its comprehension builds (a fresh one,
 * or a par chunk's own: BRT_COLLECT). cur: the fresh array's cursor
 * (open_cursor), or NULL. room: the array has room for every element the
 * loop can push (room_loops), so a push is a store (BRT_CURSOR_PUT) with
 * no test of the room left, and the loop is one gcc can vectorize. */
struct push_arg { const char *out; bool indirect; const char *cur; bool room; };
static void push_cb(struct ir_node *rn, void *p)
{
    struct push_arg *a = p;
    const char *x = emit_expr(rn->elem);
    x = take(x, rn->elem_type);
    x = lval(x, rn->elem_type);
    const char *ct = ctype(rn->elem_type);
    if (a->cur && a->room) line("BRT_CURSOR_PUT(%s, %s);", a->cur, x);
    else if (a->cur) line("BRT_CURSOR_PUSH(%s, %s, %s, %s);", ct, a->out, a->cur, x);
    else if (a->indirect) line("BRT_COLLECT(%s, *%s, %s);", ct, a->out, x);
    else line("BRT_COLLECT(%s, %s, %s);", ct, a->out, x);
}

/* A sequential comprehension of values that own nothing (numbers, bools,
 * structs and tuples of them) keeps the fresh array out's data, length and
 * room in locals while it runs (brine_rt.h BRT_CURSOR): a store of each
 * element is a store, not three loads of the array's header that any
 * store of the element's type might have changed. Its length is written
 * back when the loop ends; a panic before that frees out as empty, which
 * releases nothing that an element owns, as they own nothing. Returns the
 * cursor's name, or NULL (elements that own: BRT_COLLECT). */
static const char *open_cursor(struct ir_node *rn, const char *out)
{
    if (type_is_ref(rn->elem_type)) return NULL;
    const char *cur = new_temp();
    line("BRT_CURSOR(%s, %s, %s);", ctype(rn->elem_type), cur, out);
    return cur;
}

/* The loop of a comprehension over one source without a filter into out,
 * made by brt_arr_room for its count s->n: twice when its elements own
 * nothing, the first storing each element (room for all of them: the count
 * is at most the room brt_arr_room makes, BRT_ROOM_BYTES), the second
 * pushing as written (a count past that room grows the array as it goes). */
static void room_loops(struct ir_node *rn, const struct src *s, const char *out)
{
    struct push_arg pa = {out, false, open_cursor(rn, out), false};
    if (pa.cur) {
        line("if (%s <= %s_c) {", s->n, pa.cur);
        F->ind++;
        pa.room = true;
        emit_gen_loop(rn, s, push_cb, &pa, NULL);
        pa.room = false;
        F->ind--;
        line("} else {");
        F->ind++;
    }
    emit_gen_loop(rn, s, push_cb, &pa, NULL);
    if (pa.cur) {
        F->ind--;
        line("}");
        line("BRT_CURSOR_END(%s, %s);", out, pa.cur);
    }
}

/* par comprehensions without a filter: element k goes to its slot. */
struct store_arg { const char *ct, *k; };
static void store_cb(struct ir_node *rn, void *p)
{
    struct store_arg *a = p;
    const char *x = emit_expr(rn->elem);
    x = take(x, rn->elem_type);
    line("((%s *)data_)[%s] = %s;", a->ct, a->k, x);
}

/* The call of a par comprehension's helper (its text in aux) on the pool:
 * struct = {n, element type, env, helper}; runner(&struct) is the array. */
static const char *par_comprehension(struct ir_node *rn, struct src *s, int id, struct buf *aux, const char *strct,
                                     const char *helper, const char *runner)
{
    bputs(&CG->aux, aux->p);
    const char *env = env_fill(id, rn, s);
    const char *c = new_temp();
    line("%s %s = {%s, %s, &%s, %s%d};", strct, c, s->n, tdesc(rn->elem_type), env, helper, id);
    return tmp_owned(rn->type, "%s(&%s)", runner, c);
}

/* The helper bp_fill<id> of a comprehension on the pool: its chunks fill
 * their slots, its places named by the function. */
static int pool_fill_helper(struct ir_node *rn, struct src *s)
{
    struct buf aux = {0};
    int id = par_env(rn, s, &aux);
    struct fctx *saved = helper_open(id, rn->caps, rn->ncaps);
    declare_var(rn->gen_var, VS_BORROWED);
    debug_line(&F->body, rn->loc, true);
    const char *k = new_temp();
    struct store_arg sa = {ctype(rn->elem_type), k};
    chunk_loop(rn, s, k, store_cb, &sa, NULL);
    helper_end(saved, &aux, arena_printf("static void bp_fill%d(void *envp, int64_t lo_, int64_t hi_, void *data_)", id), NULL);
    bputs(&CG->aux, aux.p);
    free(aux.p);
    return id;
}

/* A comprehension opt_parfor.c put on the pool (one range or array source, no
 * filter): its chunks fill their slots as a par one's do, when the runtime
 * splits (threads to split for, and enough elements by ir_par_least's guess,
 * as a marked loop's, but no more than brt_arr_room makes room for); else
 * the comprehension as written, in place. Its
 * places are named by the function, as the sequential comprehension's are:
 * a panic reads the same. */
static const char *pool_listcomp(struct ir_node *rn)
{
    struct src s = eval_sources(rn);
    int id = pool_fill_helper(rn, &s);
    /* the fill allocates all n slots first: only as many as the room the
     * comprehension makes before its first element, so a count too large
     * to hold fails (or an early element panics) as in order */
    const char *split = tmp(ty_bool, "brt_par_for_splits(0, %s, %" PRId64 "LL) && %s <= BRT_ROOM_BYTES / (int64_t)sizeof(%s)",
                            s.n, ir_par_least(rn->elem), s.n, ctype(rn->elem_type));
    const char *out = tmp_owned(rn->type, "%s ? NULL : brt_arr_room(%s, %s)", split, tdesc(rn->elem_type), s.n);
    line("if (%s) {", split);
    F->ind++;
    const char *env = env_fill(id, rn, &s), *c = new_temp();
    line("brt_fill %s = {%s, %s, &%s, bp_fill%d};", c, s.n, tdesc(rn->elem_type), env, id);
    line("%s = brt_par_fill(&%s);", out, c);
    F->ind--;
    line("} else {");
    F->ind++;
    declare_var(rn->gen_var, VS_BORROWED);
    room_loops(rn, &s, out);
    F->ind--;
    line("}");
    return out;
}

/* A par comprehension without a filter: every element has its slot,
 * filled by the helper's chunks on the pool; into a fresh array, or (into
 * not NULL) into the array into names, which it alone holds, as long as
 * the comprehension (emit_c.c: map_in_place). */
static const char *par_fill(struct ir_node *rn, const char *into)
{
    struct src s = eval_sources(rn);
    struct buf aux = {0};
    int id = par_env(rn, &s, &aux);
    struct fctx *saved = helper_begin(id, rn);
    const char *k = new_temp();
    struct store_arg sa = {ctype(rn->elem_type), k};
    chunk_loop(rn, &s, k, store_cb, &sa, NULL);
    helper_end(saved, &aux, arena_printf("static void bp_fill%d(void *envp, int64_t lo_, int64_t hi_, void *data_)", id), NULL);
    if (!into) return par_comprehension(rn, &s, id, &aux, "brt_fill", "bp_fill", "brt_par_fill");
    bputs(&CG->aux, aux.p);
    free(aux.p);
    const char *env = env_fill(id, rn, &s), *c = new_temp();
    line("brt_fill %s = {%s, %s, &%s, bp_fill%d};", c, s.n, tdesc(rn->elem_type), env, id);
    line("brt_par_fill_into(&%s, %s);", c, into);
    return into;
}

void emit_fill_into(struct ir_node *rn, const char *into)
{
    if (!rn->pool) {
        par_fill(rn, into);
        return;
    }
    struct src s = eval_sources(rn);
    int id = pool_fill_helper(rn, &s);
    const char *env = env_fill(id, rn, &s), *c = new_temp();
    line("brt_fill %s = {%s, %s, &%s, bp_fill%d};", c, s.n, tdesc(rn->elem_type), env, id);
    line("brt_par_fill_into(&%s, %s);", c, into);
}

const char *emit_listcomp(struct ir_node *rn)
{
    struct type *t = rn->type;
    /* (a jammed nest's inner body, whose slots are the enclosing C
     * function's locals, holds no comprehension: ir_verify) */
    if (rn->pool) return pool_listcomp(rn);
    if (!rn->par || rn->pool) {
        struct src s = {0};
        if (!rn->nclauses) s = eval_source(&rn->iter);
        declare_var(rn->gen_var, VS_BORROWED);
        /* no filter: as many elements as the source has, room made once */
        bool room = !rn->nclauses && !rn->filter;
        const char *out = room ? tmp_owned(t, "brt_arr_room(%s, %s)", tdesc(rn->elem_type), s.n)
                               : tmp_owned(t, "brt_arr_new(%s, 0)", tdesc(rn->elem_type));
        int views = open_cap_views(rn);
        if (room) {
            room_loops(rn, &s, out);
            close_views(views);
            return out;
        }
        struct push_arg pa = {out, false, open_cursor(rn, out), false};
        if (rn->nclauses) seq_loops(rn, 0, push_cb, &pa, NULL);
        else emit_gen_loop(rn, &s, push_cb, &pa, NULL);
        close_views(views);
        if (pa.cur) line("BRT_CURSOR_END(%s, %s);", out, pa.cur);
        return out;
    }
    if (!rn->filter) return par_fill(rn, NULL);
    struct src s = eval_sources(rn);
    struct buf aux = {0};
    int id = par_env(rn, &s, &aux);
    struct fctx *saved = helper_begin(id, rn);
    struct push_arg pa = {"out", true, NULL, false};
    if (s.ncl) flat_loop(rn, &s, "lo_", "hi_", push_cb, &pa, NULL, NULL);
    else source_loop(rn, "env->", "lo", "arr", "lo_", "hi_", s.is_range, push_cb, &pa, NULL);
    helper_end(saved, &aux, arena_printf("static void bp_body%d(void *envp, int64_t lo_, int64_t hi_, brt_arr **out)", id), NULL);
    return par_comprehension(rn, &s, id, &aux, "brt_collect", "bp_body", "brt_par_collect");
}

/* sep.join([e for ...]) of a sequential comprehension: the result is built
 * as the loop runs, each element's text appended where it is made
 * (append_text: an f-string piece by piece, a str() of a number in place),
 * the separator before every element but the first, then the room given
 * back (brt_str_fit: exact, as a join makes it). No array of pieces, and no
 * string per element for an f-string or a str() (strings/join_sep_fn: a
 * million strings made, stored and freed each build). The elements are made
 * in the comprehension's order, and a join does nothing else a program can
 * see, so a panic in an element is the same panic at the same element. A
 * par comprehension, or one on the pool, keeps its parallel elements. */
struct join_arg { const char *acc, *sep, *more; struct ir_node *lit; };
static void join_cb(struct ir_node *rn, void *p)
{
    struct join_arg *a = p;
    line("if (%s) {", a->more);
    F->ind++;
    if (a->lit) append_text(a->lit, a->acc); /* a literal separator: its bytes, inline */
    else line("%s = brt_str_append(%s, %s);", a->acc, a->acc, a->sep);
    F->ind--;
    line("}");
    line("%s = true;", a->more);
    scope_open();
    append_text(rn->elem, a->acc);
    scope_close();
}

const char *emit_join_stream(struct ir_node *n)
{
    struct ir_node *rn = n->nkids == 2 ? n->kids[1] : NULL;
    if (!rn || rn->op != IR_LISTCOMP || rn->par || rn->pool) return NULL;
    struct ir_node *sep = n->kids[0];
    struct join_arg ja = {NULL, emit_expr(sep), new_temp(), sep->op == IR_STR ? sep : NULL};
    ja.acc = tmp_owned(ty_str, "brt_str_new(\"\", 0)"); /* the shared "" */
    line("bool %s = false;", ja.more);
    struct src s = {0};
    if (!rn->nclauses) s = eval_source(&rn->iter);
    declare_var(rn->gen_var, VS_BORROWED);
    int views = open_cap_views(rn);
    if (rn->nclauses) seq_loops(rn, 0, join_cb, &ja, NULL);
    else emit_gen_loop(rn, &s, join_cb, &ja, NULL);
    close_views(views);
    line("%s = brt_str_fit(%s);", ja.acc, ja.acc);
    return ja.acc;
}
