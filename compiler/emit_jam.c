/*
 * emit_jam.c: the inner loop of a nest emit_loops.c jams (emit_jammed):
 * one scalar copy of its body per outer iteration (emit_jam_copy), or a
 * dot-like sum's steps in vectors.
 *
 * A nest that opt_interchange.c jams with sums (emit_loops.c: emit_jammed)
 * runs eight outer iterations u at a time inside one inner loop over k,
 * each carrying its own float accumulator: acc_u = acc_u + E_u(k). When E
 * reads rows that differ per outer iteration (c[i][j] = dot(a[i], bt[j]):
 * the row bt[j] a let names, or bt[j][k] through the jam's slot of its
 * data), the copies are streams of scalar loads, and gcc keeps them scalar.
 * Such a nest runs VDOT_JAM (12) outer iterations at a time instead, and
 * with AVX the twelve accumulators are three 4-lane vectors (each vector's
 * adds a chain of 3-cycle latency: three chains, not two, keep the adder
 * busier; measured 0-8% faster than eight, fewer instructions, and the
 * scalar copies too): per two steps k, k + 1 each such row's elements
 * are loaded two at a time and turned (a 4 x 2 transpose: lane u holds
 * row_u[k], then row_u[k + 1]); a row that is the same in every iteration
 * (a[i], or an array the nest does not change) is one element broadcast.
 * E is then evaluated lane-wise, and added in k order: each lane's adds are
 * the scalar loop's, one step after the other, so the bits are the same
 * (only + - * / and negation, each IEEE-rounded per lane; no contraction).
 *
 * E may be any expression of those operators and abs (the sign bit
 * cleared per lane, fabs's bits) over float elements row[k] (k the inner
 * variable, the index proved by the nest's guards), float literals, float
 * variables the nest does not assign, and the body's lets of floats before
 * the sum (let e = a[k] - b[k]; s += e * e: each a vector per lane group,
 * written once per step). Without AVX but with SSE2 (the portable x86-64
 * build, gcc 12 or clang) the same loop runs in 2-lane vectors, six per
 * group (BP_VDOT 2: a 2 x 2 transpose per row pair); elsewhere (the dev
 * build's tcc, the GPU) BP_VDOT is 0 and the scalar copies run.
 */
#include "emit_c.h"

#include <stdlib.h>
#include <string.h>

/* A leaf of E: an element row[k] of a row that differs per outer
 * iteration (turned), or a value the same in every lane (broadcast). */
struct vleaf {
    struct ir_node *n;
    int view;     /* turned: the inner loop's view of the row (a let's), else -1 */
    int slot;     /* turned: the jam's slot of the row (bt[j][k]: the data of bt[j]), else -1 */
    int same_let; /* broadcast of a let's row the same in every lane: its view, else -1 */
};

struct vdot {
    struct ir_node *s, *in, *b;
    int nlets, jam;
    const char **slots;    /* each outer iteration's slots (emit_jammed), nslots per iteration */
    int acc;               /* the carried let E adds into */
    struct ir_node *e;     /* E */
    bool e_first;          /* E + acc (else acc + E or acc - E) */
    enum op op;            /* OP_ADD or OP_SUB */
    struct vleaf leaves[16];
    int nleaves;
    struct ir_node *locals[4]; /* the inner body's lets before the sum (e = a[k] - b[k]) */
    int nlocals;
    const char **lnames;       /* their vectors in the lane group vexpr writes */
    int w;                     /* lanes per vector: 4 (AVX), 2 (SSE2) */
};

static bool turned(const struct vleaf *l)
{
    return l->view >= 0 || l->slot >= 0;
}

static int let_index(struct ir_node *b, int nlets, struct ir_var *v)
{
    for (int i = 0; i < nlets; i++)
        if (b->kids[i]->var == v) return i;
    return -1;
}

static int inner_view(struct ir_node *in, struct ir_var *v)
{
    for (int w = 0; w < in->nviews; w++)
        if (in->views[w] == v) return w;
    return -1;
}

/* Whether a let's value is the same in every outer iteration of the group:
 * variables, literals and indexing only, none of them the outer variable
 * or another let of the nest. */
static bool same_in_lanes(struct ir_node *n, struct vdot *d)
{
    switch (n->op) {
    case IR_INT: return true;
    case IR_VAR: return n->var != d->s->var && let_index(d->b, d->nlets, n->var) < 0;
    case IR_INDEX: return same_in_lanes(n->a, d) && same_in_lanes(n->b, d);
    default: return false;
    }
}

/* Whether row expression r (a[i], a[i][m]) is the same in every lane and
 * cannot panic: indexing of variables the group does not change, each index
 * proved in range. */
static bool fixed_row(struct ir_node *r, struct vdot *d)
{
    if (r->op == IR_VAR) return r->var != d->s->var && r->var != d->in->var && let_index(d->b, d->nlets, r->var) < 0;
    return r->op == IR_INDEX && !r->slot && in_guarded_loop(r) && fixed_row(r->a, d) &&
           (r->b->op == IR_INT || fixed_row(r->b, d));
}

static int local_index(struct vdot *d, struct ir_var *v)
{
    for (int i = 0; i < d->nlocals; i++)
        if (d->locals[i]->var == v) return i;
    return -1;
}

static bool leaf_fits(struct ir_node *n, struct vdot *d)
{
    if (n->op == IR_VAR && local_index(d, n->var) >= 0) return true;
    if (d->nleaves == (int)(sizeof d->leaves / sizeof d->leaves[0])) return false;
    struct vleaf *l = &d->leaves[d->nleaves];
    *l = (struct vleaf){n, -1, -1, -1};
    if (n->op == IR_FLOAT) return ++d->nleaves, true;
    if (n->op == IR_VAR) {
        /* a float the nest does not assign: not its variables, not a let */
        if (n->var == d->s->var || n->var == d->in->var || let_index(d->b, d->nlets, n->var) >= 0) return false;
        return ++d->nleaves, true;
    }
    if (n->op != IR_INDEX || n->slot || n->b->op != IR_VAR || n->b->var != d->in->var || !in_guarded_loop(n))
        return false;
    if (n->a->op == IR_INDEX && n->a->slot) {
        /* bt[j][k]: the row's data a slot of each outer iteration */
        struct ir_guard *g = &d->s->slots[n->a->slot - 1];
        if (!g->rows || g->inner) return false;
        l->slot = n->a->slot - 1;
        return ++d->nleaves, true;
    }
    if (n->a->op != IR_VAR) return fixed_row(n->a, d) && ++d->nleaves;
    int let = let_index(d->b, d->nlets, n->a->var);
    if (let >= 0) {
        int w = inner_view(d->in, n->a->var);
        if (w < 0) return false;
        if (same_in_lanes(d->b->kids[let]->a, d)) l->same_let = w;
        else l->view = w;
    } else if (n->a->var == d->s->var || n->a->var == d->in->var) {
        return false;
    }
    return ++d->nleaves, true;
}

static bool expr_fits(struct ir_node *n, struct vdot *d)
{
    if (n->type != ty_float) return false;
    if (n->op == IR_BINARY)
        return n->optype == ty_float &&
               (n->bop == OP_ADD || n->bop == OP_SUB || n->bop == OP_MUL || n->bop == OP_DIV) &&
               expr_fits(n->a, d) && expr_fits(n->b, d);
    if (n->op == IR_UNARY) return n->bop == OP_NEG && n->optype == ty_float && expr_fits(n->a, d);
    if (n->op == IR_BUILTIN && n->builtin == BI_ABS) return n->nkids == 1 && expr_fits(n->kids[0], d);
    return leaf_fits(n, d);
}

/* Whether the jammed nest s (inner loop in, block b with nlets lets before
 * it, jam outer iterations at a time, sums carried) is one this file
 * writes: the inner body one statement acc = acc + E (E + acc, acc - E). */
static bool vdot_fits(struct vdot *d)
{
    struct ir_node *s = d->s, *in = d->in;
    if (d->jam % 4 != 0 || in->var->type != ty_int || in->iter.inclusive || in->iter.lo->type != ty_int) return false;
    for (int i = 0; i < s->nslots; i++)
        if (s->slots[i].inner) return false;
    struct ir_node *st = in->b;
    while (st->op == IR_BLOCK && st->nkids == 1) st = st->kids[0];
    /* lets of floats before the sum, each an E of the lets before it: in
     * vectors, one per lane group (a body's let is read nowhere else) */
    if (st->op == IR_BLOCK) {
        if (st->nkids - 1 > (int)(sizeof d->locals / sizeof d->locals[0])) return false;
        for (int i = 0; i < st->nkids - 1; i++) {
            struct ir_node *let = st->kids[i];
            if (let->op != IR_LET || let->carried || let->var->type != ty_float || !expr_fits(let->a, d)) return false;
            d->locals[d->nlocals++] = let;
        }
        st = st->kids[st->nkids - 1];
    }
    if (st->op != IR_ASSIGN || st->var->type != ty_float) return false;
    d->acc = let_index(d->b, d->nlets, st->var);
    if (d->acc < 0 || !d->b->kids[d->acc]->carried) return false;
    struct ir_node *v = st->a;
    if (v->op != IR_BINARY || v->optype != ty_float || (v->bop != OP_ADD && v->bop != OP_SUB)) return false;
    d->op = v->bop;
    bool left = v->a->op == IR_VAR && v->a->var == st->var;
    bool right = v->bop == OP_ADD && v->b->op == IR_VAR && v->b->var == st->var;
    if (!left && !right) return false;
    d->e_first = !left;
    d->e = left ? v->b : v->a;
    if (ir_names(d->e, st->var) || !expr_fits(d->e, d)) return false;
    /* a row turned: the scalar copies' streams of loads (and no lane loop, emit_loops.c) */
    for (int l = 0; l < d->nleaves; l++)
        if (turned(&d->leaves[l])) return true;
    return false;
}

/* One copy of a jammed nest's inner body, for the outer iteration at ko:
 * the lets' values (and the carried sums) from and back to lets, the slots'
 * locals slot_names, the inner loop's views. */
void emit_jam_copy(struct ir_node *in, struct ir_node *b, int nlets, const char *v, const char *ko, const char **lets,
                   const char **slot_names, const struct view *views)
{
    line("%s = %s;", v, ko);
    for (int i = 0; i < nlets; i++) line("%s = %s;", vname(b->kids[i]->var), lets[i]);
    int mark = CG->nviews;
    for (int w = 0; w < in->nviews && CG->nviews < 64; w++) CG->views[CG->nviews++] = views[w];
    CG->slot_names = slot_names;
    emit_stmt(in->b);
    CG->slot_names = NULL;
    close_views(mark);
    /* the accumulators this iteration carries to the next step */
    for (int i = 0; i < nlets; i++)
        if (b->kids[i]->carried) line("%s = %s;", lets[i], vname(b->kids[i]->var));
}

bool emit_vdot_fits(struct ir_node *s, struct ir_node *b, int nlets)
{
    struct vdot d = {.s = s, .in = s->swap, .b = b, .nlets = nlets, .jam = VDOT_JAM};
    return vdot_fits(&d);
}

/* The C of E at one step for lane group g: names[l] the leaves' vectors. */
static const char *vexpr(struct ir_node *n, struct vdot *d, const char **names)
{
    if (n->op == IR_BINARY)
        return arena_printf("(%s %s %s)", vexpr(n->a, d, names), op_c[n->bop], vexpr(n->b, d, names));
    if (n->op == IR_UNARY) return arena_printf("(-%s)", vexpr(n->a, d, names));
    if (n->op == IR_BUILTIN) return arena_printf("bp_v%d_abs(%s)", d->w, vexpr(n->kids[0], d, names));
    if (n->op == IR_VAR && local_index(d, n->var) >= 0) return d->lnames[local_index(d, n->var)];
    for (int l = 0; l < d->nleaves; l++)
        if (d->leaves[l].n == n) return names[l];
    internal_error("emit_jam: a leaf not collected");
}

/* The broadcast leaves' vectors at step k (the inner variable set to it). */
static void broadcasts(struct vdot *d, const char *k, const struct view *views, const char **names)
{
    line("%s = %s;", vname(d->in->var), k);
    for (int l = 0; l < d->nleaves; l++) {
        struct vleaf *lf = &d->leaves[l];
        if (turned(lf)) continue;
        const char *x = lf->same_let >= 0 ? arena_printf("%s[%s]", views[lf->same_let].data, k) : emit_expr(lf->n);
        names[l] = new_temp();
        line("bp_v%dd %s = bp_v%d_splat(%s);", d->w, names[l], d->w, x);
    }
}

/* acc_g = acc_g + E (or E + acc_g, acc_g - E) for every lane group g. */
static void vsteps(struct vdot *d, const char **accs, const char **names, int groups)
{
    const char **lnames = arena_alloc((size_t)(d->nlocals + 1) * sizeof *lnames);
    d->lnames = lnames;
    for (int g = 0; g < groups; g++) {
        for (int i = 0; i < d->nlocals; i++) {
            const char *t = new_temp();
            line("bp_v%dd %s = %s;", d->w, t, vexpr(d->locals[i]->a, d, &names[g * d->nleaves]));
            lnames[i] = t;
        }
        const char *e = vexpr(d->e, d, &names[g * d->nleaves]);
        if (d->e_first) line("%s = %s + %s;", accs[g], e, accs[g]);
        else line("%s = %s %s %s;", accs[g], accs[g], op_c[d->op], e);
    }
}

/* Lane u's data pointer of turned leaf l's row. */
static const char *lane_data(struct vdot *d, const struct view *views, int u, const struct vleaf *l)
{
    if (l->slot >= 0) return d->slots[u * d->s->nslots + l->slot];
    return views[u * d->in->nviews + l->view].data;
}


/* The inner loop ilo .. ihi in vectors; saved: each outer iteration's
 * lets (the carried sum among them) as emit_jammed keeps them, views: each
 * one's views of the inner loop. */
static void vdot_loop(struct vdot *d, const char *ilo, const char *ihi, const char **saved, const struct view *views)
{
    int W = d->w, groups = d->jam / W, nl = d->nleaves;
    const char **accs = arena_alloc((size_t)groups * sizeof *accs);
    const char **names = arena_alloc((size_t)(groups * nl + 1) * sizeof *names);
    const char *k = new_temp();
    line("{");
    F->ind++;
    for (int g = 0; g < groups; g++) {
        accs[g] = new_temp();
        struct buf init = {0};
        for (int u = 0; u < W; u++) bprintf(&init, "%s%s", u ? ", " : "", saved[(g * W + u) * d->nlets + d->acc]);
        line("bp_v%dd %s = {%s};", W, accs[g], init.p);
        free(init.p);
    }
    declare_var(d->in->var, VS_OWNED);
    line("int64_t %s = %s;", k, ilo);
    /* the inner loop's views of arrays that are no let's (a let's are per lane) */
    int mark = CG->nviews;
    for (int w = 0; w < d->in->nviews && CG->nviews < 64; w++) CG->views[CG->nviews++] = views[w];
    /* two steps at a time: the turned rows' two vectors per group (an empty
     * range may have lo > hi: the group's guards pass it, nothing is read) */
    line("if (%s < %s)", k, ihi);
    line("for (; (uint64_t)%s - (uint64_t)%s >= 2; %s += 2) {", ihi, k, k);
    F->ind++;
    const char **second = arena_alloc((size_t)(groups * nl + 1) * sizeof *second);
    for (int l = 0; l < nl; l++) {
        struct vleaf *lf = &d->leaves[l];
        if (!turned(lf)) continue;
        for (int g = 0; g < groups; g++) {
            const char *c0 = names[g * nl + l] = new_temp(), *c1 = second[g * nl + l] = new_temp();
            struct buf rows = {0};
            for (int u = 0; u < W; u++) bprintf(&rows, "%s, ", lane_data(d, views, g * W + u, lf));
            line("bp_v%dd %s, %s;", W, c0, c1);
            line("bp_v%d_cols2(%s%s, &%s, &%s);", W, rows.p, k, c0, c1);
            free(rows.p);
        }
    }
    for (int step = 0; step < 2; step++) {
        const char **at = step ? second : names;
        scope_open();
        broadcasts(d, step ? arena_printf("%s + 1", k) : k, views, at);
        for (int g = 1; g < groups; g++)
            for (int l = 0; l < nl; l++)
                if (!turned(&d->leaves[l])) at[g * nl + l] = at[l];
        vsteps(d, accs, at, groups);
        scope_close();
    }
    F->ind--;
    line("}");
    /* the last step, if the count is odd: the lanes' elements one by one */
    line("if (%s < %s) {", k, ihi);
    F->ind++;
    scope_open();
    broadcasts(d, k, views, names);
    for (int l = 0; l < nl; l++) {
        struct vleaf *lf = &d->leaves[l];
        for (int g = 0; g < groups; g++) {
            if (!turned(lf)) {
                names[g * nl + l] = names[l];
                continue;
            }
            names[g * nl + l] = new_temp();
            struct buf at = {0};
            for (int u = 0; u < W; u++) bprintf(&at, "%s%s[%s]", u ? ", " : "", lane_data(d, views, g * W + u, lf), k);
            line("bp_v%dd %s = {%s};", W, names[g * nl + l], at.p);
            free(at.p);
        }
    }
    vsteps(d, accs, names, groups);
    scope_close();
    F->ind--;
    line("}");
    close_views(mark);
    for (int u = 0; u < d->jam; u++) line("%s = %s[%d];", saved[u * d->nlets + d->acc], accs[u / W], u % W);
    F->ind--;
    line("}");
}

bool emit_vdot_loop(struct ir_node *s, struct ir_node *b, int nlets, int jam, const char *ilo, const char *ihi,
                    const char **saved, const struct view *views, const char **slots)
{
    struct vdot d = {.s = s, .in = s->swap, .b = b, .nlets = nlets, .jam = jam, .slots = slots, .w = 4};
    if (!vdot_fits(&d)) return false;
    line("#if BP_VDOT == 4");
    vdot_loop(&d, ilo, ihi, saved, views);
    line("#elif BP_VDOT == 2");
    d.w = 2;
    vdot_loop(&d, ilo, ihi, saved, views);
    line("#else");
    return true;
}
