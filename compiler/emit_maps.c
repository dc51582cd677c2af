/*
 * emit_maps.c: comprehensions that map an array into its own slots.
 *
 * xs = [e for x in xs] (or for i in 0..len(xs), e reading xs only as xs[i])
 * stores each element back into its slot when xs holds the only reference
 * (emit_map_in_place). A range loop whose whole body is such a map (the
 * steps of a simulation: for s in 0..steps: ps = [move(p) for p in ps])
 * tests once, before it, what each step would test (xs the sole holder,
 * not split on the pool, not empty: a map in place keeps all three; a par
 * map, too, runs in order where the runtime would not split it), and is
 * written twice (map_steps): each step a plain loop over the slots, else as
 * written. The nest that runs is then a plain nest of two loops, which gcc
 * unrolls and jams (backend.c: two steps in one pass over the array).
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
 * array v (an array's C expression; map_steps: its header's copy, whose
 * count the test before the steps showed is not 0). */
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
    emit_gen_loop(c, &src, map_store_cb, &ma, NULL);
    close_views(views);
}

bool emit_map_in_place(struct ir_node *s)
{
    struct ir_node *c = s->a;
    if (!is_map(s)) return false;
    if (CG->map_tested == s) {
        /* map_steps tested its slots: sole, not split, not empty */
        CG->map_tested = NULL;
        scope_open();
        map_loop(c, arena_printf("(&%s)", CG->map_header), true);
        scope_close();
        return true;
    }
    const char *v = vname(s->var);
    bool on_pool = c->pool && !CG->slot_names; /* emit_listcomp's test for the pool */
    line("if (brt_arr_sole(%s)) {", v);
    F->ind++;
    scope_open();
    if (c->par && !c->pool) {
        emit_fill_into(c, v);
    } else {
        if (on_pool) {
            /* split on the pool when emit_listcomp would (no room to make) */
            line("if (brt_par_for_splits(0, %s->len, %" PRId64 "LL)) {", v, par_least(c->elem));
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

/* The map that is range loop s's whole body (blocks of one statement
 * looked through), or NULL. */
static struct ir_node *body_map(struct ir_node *s)
{
    struct ir_node *b = s->b;
    while (b && b->op == IR_BLOCK && b->nkids == 1) b = b->kids[0];
    return b && b->op == IR_ASSIGN && is_map(b) ? b : NULL;
}

bool map_steps(struct ir_node *s, const char *lo, const char *hi)
{
    struct ir_node *m = body_map(s);
    if (!m || CG->map_tested || CG->slot_names) return false;
    struct ir_node *c = m->a;
    const char *v = vname(m->var);
    /* on the pool, or par as written (filled in place, brt_par_fill_into:
     * split whenever it has two slots, more than one thread and no par
     * around it), the steps loop is plain when the runtime would not split */
    if (c->pool || c->par)
        line("if (brt_arr_sole(%s) && %s->len > 0 && !brt_par_for_splits(0, %s->len, %" PRId64 "LL)) {", v, v, v,
             c->pool ? par_least(c->elem) : (int64_t)2);
    else
        line("if (brt_arr_sole(%s) && %s->len > 0) {", v, v);
    for (int version = 0; version < 2; version++) {
        F->ind++;
        int views = CG->nviews;
        if (version == 0 && views < 64) {
            /* the header's copy, read once: a map in place changes neither
             * data nor length, and gcc cannot tell for v (its address is
             * the owner's), so it would read them again at every step */
            CG->map_tested = m;
            CG->map_header = new_temp();
            line("brt_arr %s = *%s;", CG->map_header, v);
            const char *ct = ctype(c->elem_type);
            CG->views[CG->nviews++] = (struct view){m->var, arena_printf("((%s *)%s.data)", ct, CG->map_header),
                                                   arena_printf("%s.len", CG->map_header), F};
        }
        range_loop(s, lo, hi);
        CG->map_tested = NULL;
        close_views(views);
        F->ind--;
        line(version == 0 ? "} else {" : "}");
    }
    return true;
}
