/*
 * emit_maps.c: comprehensions that map an array into its own slots.
 *
 * xs = [e for x in xs] (or for i in 0..len(xs), e reading xs only as xs[i])
 * stores each element back into its slot when xs holds the only reference
 * (emit_map_in_place). A range loop whose whole body is such a map tests
 * that once, before it (opt_version.c, map_steps: an if of [in place](xs,
 * least)): its then-branch's map is marked in_place, written as a plain
 * loop over the slots with no test of its own (backend.c: gcc unrolls and
 * jams the two loops, two steps in one pass over the array).
 */
#include "emit_c.h"

#include <inttypes.h>

/* xs = [e for x in xs], where e does not read xs, or xs = [e for i in
 * 0..len(xs)], where e reads xs only as xs[i] and len(xs); the elements
 * hold no reference and xs is this function's own variable: when xs holds
 * the only reference (rc 1), element k is computed from x = xs[k] (or
 * xs[k] itself) and stored back into slot k. Slot k is read before it is
 * written and e reads no other slot, so each slot gets the value the new
 * array would have held, in the same order, without a second array
 * (particles/comp_move: one stream of 3.2 MB a step instead of two). A par
 * comprehension (as written par, or one opt_parfor.c put on the pool, when
 * the runtime splits it) fills the slots on the pool the same way: each
 * chunk reads and writes only its own slots (brt_par_fill_into;
 * particles/par_comp). Else the comprehension and the assignment as
 * written. A panic in e ends the program at the same element, with the
 * same message: the slots already written are never read. */
struct map_arg { const char *d, *k; };
static void map_store_cb(struct ir_node *rn, void *p)
{
    struct map_arg *a = p;
    const char *x = emit_expr(rn->elem);
    line("%s[%s++] = %s;", a->d, a->k, x);
}

/* Whether assignment s is such a map (an IR_ASSIGN, or any other statement: no). */
static bool is_map(struct ir_node *s)
{
    struct ir_node *c = s->a;
    return s->op == IR_ASSIGN && c->op == IR_LISTCOMP && !c->nclauses && !c->filter &&
           F->vst[s->var->id] == VS_OWNED && !type_is_ref(c->elem_type) && ir_maps_own_slots(c, s->var);
}

/* The map's sequential loop, each element stored back into its slot of
 * array v (an array's C expression; runs: the test before the steps loop
 * showed its count is not 0). */
static void map_loop(struct ir_node *c, const char *v, bool runs)
{
    const char *ct = ctype(c->elem_type);
    struct src src = {0};
    if (runs && !c->iter.is_range) src.arr = v, src.n = tmp(ty_int, "%s->len", v);
    else src = eval_source(&c->iter);
    declare_var(c->gen_var, VS_BORROWED);
    struct map_arg ma = {new_temp(), new_temp()};
    if (runs) line("BP_ASSUME(%s > 0);", src.n);
    line("%s *%s = (%s *)%s->data;", ct, ma.d, ct, v);
    line("int64_t %s = 0;", ma.k);
    int views = open_cap_views(c);
    /* a map written par: its element keeps its frame's name, split or not */
    struct par_places was = {0};
    if (c->par && !c->pool) was = par_places_open(c);
    emit_gen_loop(c, &src, map_store_cb, &ma, NULL);
    if (c->par && !c->pool) par_places_close(was);
    close_views(views);
}

bool emit_map_in_place(struct ir_node *s)
{
    struct ir_node *c = s->a;
    if (!is_map(s)) return false;
    if (s->in_place) {
        /* the test before its steps loop showed its slots sole, not split,
         * not empty (opt_version.c, map_steps): its array read through the
         * loop's view of it, a header gcc knows no store changes */
        scope_open();
        const struct view *w = view_of_var(s->var);
        const char *v = vname(s->var);
        if (w) {
            v = new_temp();
            line("brt_arr %s = {.len = %s, .data = %s};", v, w->len, w->data);
            v = arena_printf("(&%s)", v);
        }
        map_loop(c, v, true);
        scope_close();
        return true;
    }
    const char *v = vname(s->var);
    bool on_pool = c->pool; /* emit_listcomp's test for the pool */
    line("if (brt_arr_sole(%s)) {", v);
    F->ind++;
    scope_open();
    if (c->par && !c->pool) {
        emit_fill_into(c, v);
    } else {
        if (on_pool) {
            /* split on the pool when emit_listcomp would (no room to make) */
            line("if (brt_par_for_splits(0, %s->len, %" PRId64 "LL)) {", v, ir_par_least(c->elem));
            F->ind++;
            scope_open();
            emit_fill_into(c, v);
            scope_close();
            F->ind--;
            line("} else {");
            F->ind++;
            scope_open();
        }
        map_loop(c, v, false);
        if (on_pool) {
            scope_close();
            F->ind--;
            line("}");
        }
    }
    scope_close();
    F->ind--;
    line("} else {");
    F->ind++;
    scope_open();
    assign_var(v, take(emit_expr(c), c->type), s->var->type);
    scope_close();
    F->ind--;
    line("}");
    return true;
}
