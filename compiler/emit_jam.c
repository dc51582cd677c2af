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
 * build's tcc, the GPU) BP_VDOT is 0 and the scalar copies run. With GNU C
 * the vector loop is a nested function of its own (vdot_loop: gcc's
 * registers go to the loop's rows, not to the values around it).
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


/* Whether identifier tok (len n) of the loop's text is a C local from
 * around it: a variable (v12, the loop's own in-var excepted), a temporary
 * made before the loop's text (t34, its number at most mark), a nest's data
 * parameter (bp_data_v5). */
static bool outer_name(const char *tok, size_t n, int mark, const char *own)
{
    size_t skip = tok[0] == 'v' || tok[0] == 't' ? 1 : strncmp(tok, "bp_data_v", 9) == 0 ? 9 : 0;
    if (!skip || n == skip || (strlen(own) == n && strncmp(tok, own, n) == 0)) return false;
    for (size_t i = skip; i < n; i++)
        if (tok[i] < '0' || tok[i] > '9') return false;
    return tok[0] != 't' || atoi(tok + 1) <= mark;
}

static bool ident_char(char c)
{
    return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

/* The locals from around it that the loop's C text reads, as parameters
 * `__typeof__(x) x` and the arguments x of a call; false where the text may
 * change one of them (assigns it, takes its address, names a member of it):
 * a copy taken by value would not carry the change back. */
static bool loop_captures(const char *text, int mark, const char *own, struct buf *params, struct buf *args)
{
    const char **seen = NULL;
    int nseen = 0, cap = 0;
    bool ok = true;
    for (const char *p = text; *p && ok; p++) {
        if (!ident_char(*p) || (*p >= '0' && *p <= '9') || (p > text && ident_char(p[-1]))) continue;
        const char *e = p;
        while (ident_char(*e)) e++;
        size_t n = (size_t)(e - p);
        const char *b = p;
        while (b > text && b[-1] == ' ') b--;
        bool member = b > text && (b[-1] == '.' || (b[-1] == '>' && b - 1 > text && b[-2] == '-'));
        if (!member && outer_name(p, n, mark, own)) {
            const char *a = e;
            while (*a == ' ') a++;
            bool addr = b > text && b[-1] == '&' && !(b - 1 > text && b[-2] == '&');
            bool incdec = (b - 1 > text && (b[-1] == '+' || b[-1] == '-') && b[-2] == b[-1]) ||
                          ((a[0] == '+' || a[0] == '-') && a[1] == a[0]);
            bool set = (a[0] == '=' && a[1] != '=') || (strchr("+-*/%&|^", a[0]) && a[0] && a[1] == '=') ||
                       (a[0] == '<' && a[1] == '<' && a[2] == '=') || (a[0] == '>' && a[1] == '>' && a[2] == '=');
            if (addr || incdec || set || a[0] == '.') ok = false;
            const char *name = arena_printf("%.*s", (int)n, p);
            bool dup = false;
            for (int i = 0; i < nseen && !dup; i++) dup = strcmp(seen[i], name) == 0;
            if (!dup) {
                VEC_GROW(seen, nseen, cap);
                seen[nseen++] = name;
                bprintf(params, "%s__typeof__(%s) %s", nseen > 1 ? ", " : "", name, name);
                bprintf(args, "%s%s", nseen > 1 ? ", " : "", name);
            }
        }
        p = e - 1;
    }
    free(seen);
    return ok && nseen > 0;
}

/* The least count of inner steps that takes the nested function: its call
 * (the locals as arguments, the sums through memory: some 60 instructions)
 * costs a few percent of a loop that long; a short loop (cosine's 64,
 * distance's 16 coordinates: 7-8% slower in the function, its sums through
 * memory) runs as a block. */
#define NEST_STEPS 128

/* Group g's sums as they enter the loop: its lanes' carried lets, "a, b, c, d". */
static const char *group_sums(struct vdot *d, int g, const char **saved)
{
    struct buf b = {0};
    for (int u = 0; u < d->w; u++) bprintf(&b, "%s%s", u ? ", " : "", saved[(g * d->w + u) * d->nlets + d->acc]);
    const char *r = arena_printf("%s", b.p);
    free(b.p);
    return r;
}

/* The inner loop lo .. hi in vectors, a block: the groups' sums from the
 * array sums and back into it, its variable iv declared its own (a nested
 * function's body), or (sums NULL) from and back into saved, each outer
 * iteration's lets as emit_jammed keeps them (the carried sum among them);
 * views: each one's views of the inner loop. */
static void vdot_block(struct vdot *d, const char *iv, const char *lo, const char *hi, const char *sums,
                       const char **saved, const struct view *views)
{
    int W = d->w, groups = d->jam / W, nl = d->nleaves;
    const char **accs = arena_alloc((size_t)groups * sizeof *accs);
    const char **names = arena_alloc((size_t)(groups * nl + 1) * sizeof *names);
    line("{");
    F->ind++;
    if (sums) line("int64_t %s;", iv);
    for (int g = 0; g < groups; g++) {
        accs[g] = new_temp();
        if (sums) {
            line("bp_v%dd %s = %s[%d];", W, accs[g], sums, g);
            continue;
        }
        line("bp_v%dd %s = {%s};", W, accs[g], group_sums(d, g, saved));
    }
    const char *k = new_temp();
    line("int64_t %s = %s;", k, lo);
    /* the inner loop's views of arrays that are no let's (a let's are per lane) */
    int vmark = CG->nviews;
    for (int w = 0; w < d->in->nviews && CG->nviews < 64; w++) CG->views[CG->nviews++] = views[w];
    /* two steps at a time: the turned rows' two vectors per group (an empty
     * range may have lo > hi: the group's guards pass it, nothing is read) */
    line("if (%s < %s)", k, hi);
    line("for (; (uint64_t)%s - (uint64_t)%s >= 2; %s += 2) {", hi, k, k);
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
    line("if (%s < %s) {", k, hi);
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
    close_views(vmark);
    if (sums)
        for (int g = 0; g < groups; g++) line("%s[%d] = %s;", sums, g, accs[g]);
    else
        for (int u = 0; u < d->jam; u++) line("%s = %s[%d];", saved[u * d->nlets + d->acc], accs[u / W], u % W);
    F->ind--;
    line("}");
}

/* The inner loop ilo .. ihi in vectors; saved: each outer iteration's
 * lets (the carried sum among them) as emit_jammed keeps them, views: each
 * one's views of the inner loop.
 *
 * The loop holds a data pointer per lane (twelve) besides its own; in the
 * function around it gcc kept the values live across it in registers and
 * moved the loop's pointers in and out of vector registers each step
 * (matmul/transpose_zip: 1.3x the same loop in its own function). So with
 * GNU C (BP_NEST) a range of NEST_STEPS steps or more runs the loop as a
 * nested function of its own, never inlined, called in place: its
 * parameters the locals the loop reads (each by value: the text assigns
 * none of them, loop_captures), the sums in and out through an array. A
 * shorter range, and every range elsewhere, runs the loop as a block, its
 * sums in registers. */
static void vdot_loop(struct vdot *d, const char *ilo, const char *ihi, const char **saved, const struct view *views)
{
    int W = d->w, groups = d->jam / W;
    const char *sums = new_temp(), *lo = new_temp(), *hi = new_temp(), *fn = arena_printf("bp_vdot_%s", new_temp());
    const char *iv = declare_var(d->in->var, VS_OWNED);
    int mark = CG->ntemps;
    size_t start = F->body.len;
    struct buf params = {0}, args = {0};
    if (!CG->temp_sfx) {
        vdot_block(d, iv, lo, hi, sums, saved, views);
        bool ok = loop_captures(F->body.p + start, mark, iv, &params, &args);
        const char *text = arena_printf("%s", F->body.p + start);
        F->body.len = start;
        F->body.p[start] = 0;
        if (ok) {
            struct buf init = {0};
            for (int g = 0; g < groups; g++) bprintf(&init, "%s{%s}", g ? ", " : "", group_sums(d, g, saved));
            line("#if BP_NEST");
            line("int64_t %s = %s, %s = %s;", lo, ilo, hi, ihi);
            line("bp_v%dd %s[%d] = {%s};", W, sums, groups, init.p);
            free(init.p);
            line("__attribute__((noinline)) void %s(%s)", fn, params.p);
            bputs(&F->body, text);
            line("if ((uint64_t)%s - (uint64_t)%s >= %d) {", hi, lo, NEST_STEPS);
            F->ind++;
            line("%s(%s);", fn, args.p);
            for (int u = 0; u < d->jam; u++) line("%s = %s[%d][%d];", saved[u * d->nlets + d->acc], sums, u / W, u % W);
            F->ind--;
            line("} else");
            line("#endif");
        }
    }
    free(params.p);
    free(args.p);
    vdot_block(d, iv, ilo, ihi, NULL, saved, views);
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
