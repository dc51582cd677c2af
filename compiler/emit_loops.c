/*
 * emit_loops.c: the C of loops: while, for over a range, and the loops the
 * optimizer has swapped or jammed (opt_loops.c, opt_interchange.c).
 *
 * A guarded loop (a nest whose inner loop's guards are tested before it
 * too) reaches here as two loops behind a versioned if (opt_version.c,
 * emit_guards.c: emit_versioned); one on the pool as its chunk, that if
 * over the chunk's two variables, which its helper sets (pool_chunk). With
 * opt_version.c off, a guarded loop (a nest, a swapped or jammed nest, a
 * generator) runs as written, every check kept: the emitter versions
 * nothing. A loop's views hold an array's data pointer and length in
 * locals for the loop's length (open_views). A swapped nest runs its inner
 * loop outside when the guards hold: the versioned if of the two nests
 * (opt_version.c: emit_swapped prints them, the fast one's proved nodes
 * naming the if). A jammed nest's versioned if alike (emit_jammed): its
 * fast nest writes U copies of the outer body into one inner loop, each
 * with its own slot of the row it stores.
 */
#include "emit_c.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>


void while_loop(struct ir_node *s)
{
    line("for (;;) {");
    F->ind++;
    scope_open();
    const char *c = lval(emit_expr(s->a), ty_bool);
    scope_close();
    line("if (!%s) break;", c);
    emit_stmt(s->b);
    F->ind--;
    line("}");
}

/* Whether a fact of a node naming by (in_range_by, no_overflow_in) holds
 * where the node is written: by is a versioned if whose then-branch holds
 * the node, or a generator's fast copy holding it (opt_version.c; ir_verify
 * keeps them there). A node naming a loop is checked: its guards are
 * opt_version.c's to test (with that pass off, nothing is proved by them). */
bool proved_by(const struct ir_node *by)
{
    return by && (by->op == IR_IF || (by->fast_in && (by->op == IR_REDUCE || by->op == IR_LISTCOMP)));
}

/* Whether n's bounds check is proved: by what it names (proved_by), or
 * everywhere (opt_range.c). */
bool in_guarded_loop(struct ir_node *n)
{
    return n->in_bounds || proved_by(n->in_range_by);
}

/* The arrays a loop views (opt_loops.c); returns the views' mark for
 * close_views. */
static void open_view(struct ir_var *a)
{
    const char *ct = ctype(a->type->elem), *d = new_temp(), *n = new_temp();
    line("%s *%s = (%s *)%s->data;", ct, d, ct, vname(a));
    line("int64_t %s = %s->len;", n, vname(a));
    CG->views[CG->nviews++] = (struct view){a, d, n, F};
}

int open_views(struct ir_node *loop)
{
    int mark = CG->nviews;
    for (int i = 0; i < loop->nviews && CG->nviews < 64; i++) open_view(loop->views[i]);
    return mark;
}

void close_views(int mark) { CG->nviews = mark; }

/* The arrays a comprehension or reduction run on this thread captures:
 * its element and filter cannot assign a variable, so each one's data and
 * length are read once, before the loop. A push into the array being built
 * is a store gcc cannot tell from them: it read them again at every
 * element (the sieve's [k for k in 2..n + 1 if not composite[k]]). */
int open_cap_views(struct ir_node *rn)
{
    int mark = CG->nviews;
    for (int i = 0; i < rn->ncaps && CG->nviews < 64; i++) {
        struct ir_var *a = rn->caps[i];
        if (a->type->kind == T_ARRAY && !view_of_var(a)) open_view(a);
    }
    return mark;
}

const struct view *view_of_var(struct ir_var *v)
{
    for (int i = CG->nviews - 1; i >= 0; i--)
        if (CG->views[i].var == v && CG->views[i].fn == F) return &CG->views[i];
    return NULL;
}

/* The view of an array read as a[i] or len(a), if a loop around holds one. */
const struct view *view_of(struct ir_node *a)
{
    return a->op == IR_VAR ? view_of_var(a->var) : NULL;
}

/* The head of for var in lo .. hi (or ..= hi), both already evaluated into
 * temporaries: the C loop opened, var set; range_end closes it. ivdep: after
 * `#pragma GCC ivdep` (no dependence carried through memory: open_row_locals).
 * prefetch: each iteration asks for its streams ahead (opt_prefetch.c). */
static void range_head(struct ir_node *s, const char *lo, const char *hi, bool ivdep, bool prefetch)
{
    const char *v = declare_var(s->var, VS_OWNED);
    const char *k = new_temp();
    const char *ct = ctype(s->iter.lo->type);
    if (s->iter.lo->type == ty_i128) {
        /* i128: an int count of the elements, each lo + k */
        const char *n = new_temp();
        line("for (int64_t %s = 0, %s = brt_range_count_i128(%s, %s, %d); %s < %s; %s++) {", k, n, lo, hi,
             s->iter.inclusive, k, n, k);
        F->ind++;
        line("%s = brt_wrapping_add_i128(%s, brt_i128_from_i64(%s));", v, lo, k);
        return;
    }
    if (ivdep) line("#pragma GCC ivdep");
    if (s->iter.inclusive) {
        /* k never steps past hi, so hi == INT64_MAX cannot overflow */
        const char *go = new_temp();
        line("for (%s %s = %s, %s = %s <= %s; %s; %s = %s < %s, %s += %s) {", ct, k, lo, go, lo, hi, go, go, k, hi, k,
             go);
    } else {
        line("for (%s %s = %s; %s < %s; %s++) {", ct, k, lo, k, hi, k);
    }
    F->ind++;
    line("%s = %s;", v, k);
    /* opt_prefetch.c: the streams' elements BRT_PREFETCH_AHEAD bytes on */
    for (int i = 0; prefetch && i < s->nstreams; i++) line("BRT_PREFETCH(%s + %s);", stream_data(s->streams[i]), k);
}

static void range_end(void)
{
    F->ind--;
    line("}");
}

static void range_loop_one(struct ir_node *s, const struct pf_loop *a);

void range_loop(struct ir_node *s, const char *lo, const char *hi)
{
    struct pf_loop a = {.lo = lo, .hi = hi};
    /* [runs long](lo, hi): hi < lo is a count past any limit, and a loop that runs no time */
    if (ir_runs_long_if(s)) pf_runs_long(s, arena_printf("(uint64_t)%s - (uint64_t)%s", hi, lo), &a, range_loop_one);
    else range_loop_one(s, &a);
}

static void range_loop_one(struct ir_node *s, const struct pf_loop *a)
{
    const char *lo = a->lo, *hi = a->hi;
    bool ivdep;
    int rows = open_row_locals(s, lo, hi, &ivdep); /* declarations: before a pragma of the loop */
    if (!unroll_hint(s, &s->iter, s->b, NULL)) fold_unroll(s);
    range_head(s, lo, hi, ivdep, s->prefetch);
    rows_ahead(s);
    open_row_elems(s);
    emit_stmt(s->b);
    close_row_elems(s);
    range_end();
    close_row_locals(rows);
}

/* The block of a swapped nest's outer loop that holds its lets and then the
 * inner loop (opt_interchange.c: blocks of one block are looked through). */
static struct ir_node *nest_block(struct ir_node *outer)
{
    struct ir_node *b = outer->b;
    while (b->nkids == 1 && b->kids[0]->op == IR_BLOCK) b = b->kids[0];
    return b;
}

/* A swapped nest opt_version.c wrote as IR (versioned if s over lo .. hi,
 * its test s->a: swap_go): when it holds, the inner loop (its views open)
 * outside the outer loop fo and in it the lets (the statements of fo's
 * block but its last) and then that block's last, the inner body, no
 * bounds check (its proved nodes name s); else the nest as written. */
void emit_swapped(struct ir_node *s, const char *lo, const char *hi)
{
    struct ir_node *fast = s->b, *fo = ir_guards_outside_of(fast), *b = fo->b;
    const char *ilo, *ihi, *go = swap_go(s->a, lo, hi, &ilo, &ihi, NULL);
    line("if (%s) {", go);
    F->ind++;
    int views = open_views(fast);
    range_head(fast, ilo, ihi, false, false);
    range_head(fo, lo, hi, false, false);
    for (int i = 0; i + 1 < b->nkids; i++) emit_stmt(b->kids[i]);
    emit_stmt(b->kids[b->nkids - 1]);
    range_end();
    range_end();
    close_views(views);
    F->ind--;
    line("} else {");
    F->ind++;
    range_loop(s->c, lo, hi);
    F->ind--;
    line("}");
    F->ind--;
    line("}");
}

#define JAM 4      /* outer iterations a jammed nest runs at a time */
#define JAM_SUMS 8 /* the same when it carries sums through its inner loop */

/* Whether v is defined by one of the lets before a nest's inner loop. */
static bool nest_let_var(struct ir_node *b, struct ir_var *v)
{
    for (int i = 0; i < b->nkids && b->kids[i]->op == IR_LET; i++)
        if (b->kids[i]->var == v) return true;
    return false;
}

/* A jam slot's element y[k + u + off], its index proved by the swap guards. */
static const char *slot_elem(struct ir_guard *g, const char *k, int u)
{
    const struct view *vw = view_of_var(g->arr);
    const char *i = arena_printf("%s + %d + %" PRId64 "LL", k, u, g->off);
    if (vw) return arena_printf("%s[%s]", vw->data, i);
    return arena_printf("BRT_AT(%s, %s, %s)", ctype(g->arr->type->elem), vname(g->arr), i);
}

/* An inner slot's element y[j + off] (y[at][j + off]), j the inner
 * variable's C name, proved in range by the inner loop's guards. */
static const char *inner_elem(struct ir_guard *g, const char *j)
{
    const char *ct = ctype(g->at ? g->arr->type->elem->elem : g->arr->type->elem);
    const char *i = arena_printf("%s + %" PRId64 "LL", j, g->off);
    const struct view *vw = view_of_var(g->arr);
    const char *a = vname(g->arr);
    if (!g->at) return vw ? arena_printf("%s[%s]", vw->data, i) : arena_printf("BRT_AT(%s, %s, %s)", ct, a, i);
    const char *r = emit_expr(g->at);
    const char *row = vw ? arena_printf("%s[%s]", vw->data, r) : arena_printf("BRT_AT(brt_arr *, %s, %s)", a, r);
    return arena_printf("BRT_AT(%s, %s, %s)", ct, row, i);
}

/* A nest opt_interchange.c jams, versioned (opt_version.c: the if s over
 * the outer bounds lo .. hi, exclusive): when its test holds (swap_go),
 * JAM outer iterations at a time inside one inner loop, without bounds
 * checks, while JAM of them remain and the guards the fast inner loop
 * keeps (of the rows the lets name) hold for each; from the first group
 * where they do not (and for the last few) the nest goes on one outer
 * iteration at a time as written (the else-branch's body); else the nest
 * as written, the same loop from lo (one C loop: the nest is written once
 * as written, as before the pass versioned it). The lets before the inner loop are evaluated for the group
 * first (they cannot panic: their guards were tested over the whole outer
 * range) and kept in locals, one set per outer iteration; each copy of
 * the inner body sets the lets' variables (and views of the rows they name)
 * from its set. */
void emit_jammed(struct ir_node *iff, const char *lo, const char *hi)
{
    struct ir_node *s = iff->b, *in = s->swap, *b = nest_block(s), *slow = iff->c;
    int nlets = 0; /* the lets before the inner loop; the statements after it follow */
    while (b->kids[nlets] != in)
        nlets++;
    /* accumulators: eight sums side by side (a vector of them), the inner
     * loop kept whole; stores: four outer iterations */
    bool sums = false;
    for (int i = 0; i < nlets; i++)
        sums |= b->kids[i]->carried;
    int jam = sums ? JAM_SUMS : JAM;
    /* the swap guards, the inner bounds, the inner loop's guards of arrays
     * the nest does not define (its guards of rows a let names are tested
     * per group, below) */
    const char *ilo, *ihi, *k, *go = swap_go(iff->a, lo, hi, &ilo, &ihi, &k);
    const char *ilast = arena_printf("%s - 1", ihi);
    if (sums && emit_vdot_fits(s, b, nlets)) jam = VDOT_JAM;
    const char *v = declare_var(s->var, VS_OWNED);
    /* A nest with sums: its groups counted first, (hi - k) / jam (k <= hi:
     * the range's head tested lo < hi), and the loop runs that many, k
     * stepping by jam beside the count: gcc sees k as a plain induction
     * variable and lane u's index k + u as affine in it, so a lane loop's
     * loads and stores (ys[i] = horner(cs, xs[i]), 8 lanes) are one
     * vector. With the unsigned difference hi - k >= jam tested each group,
     * gcc kept an unsigned copy of k, lane 0's index came from it, and its
     * SLP split the lanes 1 + 4 + 2 + 1 (horner/comp_main at 1 thread:
     * 2.70 -> 1.9 ms, the C 1.95). Tested as k <= hi - jam instead, the
     * lanes were one vector in main, but the par helper of a nest with two
     * sums per lane (s += w * p; p *= x) rebuilt p's vector from scalars
     * at every step: 5x slower at 2 threads. Not for a nest of stores
     * (four rows' y[i] += a[i][j] * x[j]: with k <= hi - jam gcc made
     * their sums one vector through memory, 10.5 -> 14.5 ms). */
    if (sums) {
        const char *gn = new_temp(), *gq = new_temp();
        line("uint64_t %s = ((uint64_t)%s - (uint64_t)%s) / %d;", gn, hi, k, jam);
        line("for (uint64_t %s = 0; %s && %s < %s; %s++, %s += %d) {", gq, go, gq, gn, gq, k, jam);
    } else {
        line("for (; %s && (uint64_t)%s - (uint64_t)%s >= %d; %s += %d) {", go, hi, k, jam, k, jam);
    }
    F->ind++;
    /* Sums without views of rows a let names run the group's iterations as
     * a loop over lanes, u_: each let's values (and each slot) an array of
     * jam, so gcc's vectorizer makes the eight sums one vector (measured on
     * the ijk product: 7.6 ms as eight scalar copies, 3.5 as a lane loop). */
    bool lanes = sums;
    for (int w = 0; w < in->nviews; w++)
        if (nest_let_var(b, in->views[w])) lanes = false;
    /* rows read along the inner loop (a[k][i]) would be a gather across
     * the lanes (measured: row dots 0.85 ms as copies, 2.4 as lanes) */
    for (int i = 0; i < s->nslots; i++)
        if (s->slots[i].rows || s->slots[i].inner) lanes = false;
    const char **lane_arr = arena_alloc((size_t)(nlets + s->nslots + 1) * sizeof *lane_arr);
    if (lanes)
        for (int i = 0; i < nlets; i++) {
            lane_arr[i] = new_temp();
            line("%s %s[%d];", ctype(b->kids[i]->var->type), lane_arr[i], jam);
        }
    /* the lets of each outer iteration of the group, kept */
    const char **saved = arena_alloc((size_t)(jam * (nlets + 1)) * sizeof *saved);
    for (int u = 0; u < jam; u++) {
        line("%s = %s + %d;", v, k, u);
        for (int i = 0; i < nlets; i++) {
            struct ir_node *let = b->kids[i];
            emit_stmt(let);
            if (lanes) {
                const char *t = saved[u * nlets + i] = arena_printf("%s[%d]", lane_arr[i], u);
                line("%s = %s;", t, vname(let->var));
                continue;
            }
            const char *t = saved[u * nlets + i] = new_temp();
            line("%s %s = %s;", ctype(let->var->type), t, vname(let->var));
        }
    }
    /* the inner loop's guards for every iteration of the group */
    struct buf ok = {0};
    bprintf(&ok, "%s >= %s || (1", ilo, ihi);
    for (int u = 0; u < jam; u++) {
        for (int g = 0; g < in->nguards; g++) {
            struct ir_var *arr = in->guards[g].arr;
            const char *name = vname(arr);
            if (!nest_needs(&in->guards[g])) continue;
            if (nest_let_var(b, arr)) {
                for (int i = 0; i < nlets; i++)
                    if (b->kids[i]->var == arr) name = saved[u * nlets + i];
            } else if (u > 0) {
                continue;
            }
            bprintf(&ok, " && %s", span_test(ilo, ilast, in->guards[g].off, name));
        }
    }
    bputs(&ok, ")");
    /* unlikely: gcc then weighs the loop as written (after the group loop)
     * as cold, and the jammed inner loop's row pointers get the registers
     * before the values of that loop and of the enclosing function (the
     * textbook zip product in main: five of twelve row pointers reloaded
     * from vector registers each step, 3.71 -> 2.78 ms; internals.md) */
    line("if (BRT_UNLIKELY(!(%s))) break;", ok.p);
    free(ok.p);
    /* views of the inner loop: per iteration for the rows the lets name */
    struct view *views = arena_alloc((size_t)(jam * (in->nviews + 1)) * sizeof *views);
    for (int w = 0; w < in->nviews; w++) {
        struct ir_var *a = in->views[w];
        const char *ct = ctype(a->type->elem);
        for (int u = 0; u < jam; u++) {
            const char *src = vname(a);
            if (nest_let_var(b, a)) {
                for (int i = 0; i < nlets; i++)
                    if (b->kids[i]->var == a) src = saved[u * nlets + i];
            } else if (u > 0) {
                views[u * in->nviews + w] = views[w];
                continue;
            }
            const char *d = new_temp(), *n = new_temp();
            line("%s *%s = (%s *)%s->data;", ct, d, ct, src);
            line("int64_t %s = %s->len;", n, src);
            views[u * in->nviews + w] = (struct view){a, d, n, F};
        }
    }
    /* the stored elements of each iteration, in locals through the inner
     * loop, and the data of the rows it reads along that loop */
    const char **slots = arena_alloc((size_t)(jam * (s->nslots + 1)) * sizeof *slots);
    const char **lane_slots = lane_arr + nlets;
    if (lanes)
        for (int i = 0; i < s->nslots; i++) {
            struct ir_guard *g = &s->slots[i];
            lane_slots[i] = new_temp();
            if (g->rows) line("%s *%s[%d];", ctype(g->arr->type->elem->elem), lane_slots[i], jam);
            else line("%s %s[%d];", ctype(g->arr->type->elem), lane_slots[i], jam);
        }
    const char **inner = arena_alloc((size_t)(s->nslots + 1) * sizeof *inner);
    for (int i = 0; i < s->nslots; i++)
        inner[i] = s->slots[i].inner ? new_temp() : NULL;
    for (int u = 0; u < jam; u++)
        for (int i = 0; i < s->nslots; i++) {
            struct ir_guard *g = &s->slots[i];
            if (g->inner) {
                slots[u * s->nslots + i] = inner[i];
                continue;
            }
            const char *ct = ctype(g->arr->type->elem), *t = slots[u * s->nslots + i] = new_temp();
            if (lanes) t = slots[u * s->nslots + i] = arena_printf("%s[%d]", lane_slots[i], u);
            if (g->rows) {
                const char *et = ctype(g->arr->type->elem->elem);
                if (lanes) line("%s = (%s *)%s->data;", t, et, slot_elem(g, k, u));
                else line("%s *%s = (%s *)%s->data;", et, t, et, slot_elem(g, k, u));
            } else {
                if (lanes) line("%s = %s;", t, slot_elem(g, k, u));
                else line("%s %s = %s;", ct, t, slot_elem(g, k, u));
            }
        }
    /* With inner slots and two-lane vectors (no AVX: --cpu=generic), gcc's
     * loop runs one chain of adds per step, unhidden: unrolled by two it
     * is 25% faster (the 300 x 300 product in main: 3.85 -> 2.8 ms; with
     * AVX the unrolled loop is slower, 1.9 -> 2.45). */
    bool inner_slots = false;
    for (int i = 0; i < s->nslots; i++)
        inner_slots |= s->slots[i].inner;
    bool vdot = sums && !lanes && emit_vdot_loop(s, b, nlets, jam, ilo, ihi, saved, views, slots);
    if (inner_slots) {
        line("#ifndef __AVX__");
        line("#pragma GCC unroll 2");
        line("#endif");
    }
    range_head(in, ilo, ihi, false, false);
    /* each inner slot's element: loaded before the step's copies, stored after them */
    const char **inner_at = arena_alloc((size_t)(s->nslots + 1) * sizeof *inner_at);
    for (int i = 0; i < s->nslots; i++) {
        struct ir_guard *g = &s->slots[i];
        if (!g->inner) continue;
        const char *ct = ctype(g->at ? g->arr->type->elem->elem : g->arr->type->elem);
        inner_at[i] = new_temp();
        line("%s *%s = &%s;", ct, inner_at[i], inner_elem(g, vname(in->var)));
        line("%s %s = *%s;", ct, inner[i], inner_at[i]);
    }
    /* With accumulators, gcc would vectorize this loop itself, across its
     * steps (gathers, and an in-order reduction that keeps each sum's
     * order): slower than scalar. The empty asm keeps the loop as it is,
     * so its vectorizer takes the lanes instead (the sums of eight outer
     * iterations in one vector). */
    if (sums) line("__asm__ volatile(\"\");");
    if (lanes) {
        /* the lane loop unrolled whole: each lane's chain in registers (internals.md) */
        line("#pragma GCC unroll %d", jam);
        const char *q = new_temp();
        line("for (int %s = 0; %s < %d; %s++) {", q, q, jam, q);
        F->ind++;
        const char **names = arena_alloc((size_t)(nlets + s->nslots + 1) * sizeof *names);
        for (int i = 0; i < nlets + s->nslots; i++) names[i] = arena_printf("%s[%s]", lane_arr[i], q);
        F->in_lanes = true;
        emit_jam_copy(in, b, nlets, v, arena_printf("%s + %s", k, q), names, s->nslots ? names + nlets : NULL, views);
        F->in_lanes = false;
        F->ind--;
        line("}");
    }
    for (int u = 0; u < jam && !lanes; u++)
        emit_jam_copy(in, b, nlets, v, arena_printf("%s + %d", k, u), &saved[u * nlets], s->nslots ? &slots[u * s->nslots] : NULL,
                 &views[u * in->nviews]);
    for (int i = 0; i < s->nslots; i++)
        if (s->slots[i].inner) line("*%s = %s;", inner_at[i], inner[i]);
    range_end();
    if (vdot) line("#endif");
    for (int u = 0; u < jam; u++)
        for (int i = 0; i < s->nslots; i++)
            if (!s->slots[i].rows && !s->slots[i].inner) line("%s = %s;", slot_elem(&s->slots[i], k, u), slots[u * s->nslots + i]);
    /* the statements after the inner loop, each iteration's in turn, as
     * written (checked), with its lets and accumulators */
    if (b->kids[b->nkids - 1] != in)
        for (int u = 0; u < jam; u++) {
            line("%s = %s + %d;", v, k, u);
            for (int i = 0; i < nlets; i++) line("%s = %s;", vname(b->kids[i]->var), saved[u * nlets + i]);
            for (int i = nlets + 1; i < b->nkids; i++) emit_stmt(b->kids[i]);
        }
    F->ind--;
    line("}");
    /* the rest, from a group whose guards failed, and (the test failed:
     * the else-branch) the nest as written from lo: one loop for both */
    line("for (; %s < %s; %s++) {", k, hi, k);
    F->ind++;
    line("%s = %s;", v, k);
    emit_stmt(slow->b);
    F->ind--;
    line("}");
    F->ind--;
    line("}");
}


/* while c: body (an induction loop's guards are opt_version.c's to write:
 * with that pass off, the loop as written). */
void emit_while(struct ir_node *s)
{
    int views = open_views(s);
    while_loop(s);
    close_views(views);
}

/* ---- loops that accumulate in lanes ----------------------------------------
 *
 * for i in lo..hi (or for x in xs): lets; v = v + E (or v * E), v a float,
 * the loop's body nothing else (no guards, swaps or views), becomes v's
 * sequential sum (product) from its value, whose elements emit_par.c's
 * emit_seq_lanes computes in lanes and adds (multiplies) into v in order:
 * the same left fold on the same values. The last statement may also be `if c: v = v op A
 * else: v = v op B` (the element c ? A : B), or without the else (c ? A :
 * the identity, -0.0 or 1.0, which leaves every v as it is). The lets are
 * written into the element where they are read, so each must be read at
 * most once on any path through it (an if-else expression runs one
 * branch: a let read in each is computed once) and be unable to panic
 * (its place in the order of evaluation then changes nothing); nothing may
 * read v. */

/* An array element type the lanes read (a scalar) */
static bool lane_source(struct type *t) { return t == ty_int || t == ty_u64 || t == ty_float || t == ty_bool; }

/* Whether n cannot panic (conservative): literals, variables, float
 * arithmetic and comparisons, int comparisons, int operations proved not
 * to overflow, int / and % by a constant other than 0 and -1, conversions
 * of int to float, and/or/not/if-else of such, math builtins with a lanes
 * form. */
static bool no_panic(const struct ir_node *n)
{
    if (!n) return true;
    switch (n->eop) {
    case IR_INT: case IR_FLOAT: case IR_BOOL: case IR_VAR: return true;
    case IR_NOT: return no_panic(n->a);
    case IR_AND: case IR_OR: return no_panic(n->a) && no_panic(n->b);
    case IR_COND: return no_panic(n->a) && no_panic(n->b) && no_panic(n->c);
    case IR_UNARY: return n->optype == ty_float && n->bop == OP_NEG && no_panic(n->a);
    case IR_CONV: return n->type == ty_float && n->a->type == ty_int && no_panic(n->a);
    case IR_BINARY: {
        if (!no_panic(n->a) || !no_panic(n->b)) return false;
        if (n->optype == ty_float)
            return op_is_compare(n->bop) || n->bop == OP_ADD || n->bop == OP_SUB || n->bop == OP_MUL || n->bop == OP_DIV;
        if (n->optype != ty_int) return false;
        if (op_is_compare(n->bop)) return true;
        if (n->bop == OP_DIV || n->bop == OP_MOD)
            return n->b->eop == IR_INT && (int64_t)n->b->ival != 0 && (int64_t)n->b->ival != -1;
        return n->no_overflow && (n->bop == OP_ADD || n->bop == OP_SUB || n->bop == OP_MUL);
    }
    case IR_BUILTIN:
        if (n->type != ty_float || n->nkids != 1 || n->kids[0]->type != ty_float) return false;
        switch (n->builtin) {
#define LANES_MATH_CASE(name) case BI_##name:
            BRT_LANES_MATH(LANES_MATH_CASE)
#undef LANES_MATH_CASE
            return no_panic(n->kids[0]);
        default: return false;
        }
    default: return false;
    }
}

/* Whether n calls a math function (no_panic's lane math) */
static bool calls_math(const struct ir_node *n)
{
    if (!n) return false;
    if (n->eop == IR_BUILTIN) return true;
    return calls_math(n->a) || calls_math(n->b) || calls_math(n->c) || (n->nkids && calls_math(n->kids[0]));
}

/* The most nodes an accumulation's element may have once its lets are
 * written in place (a chain of lets each read twice doubles it per let) */
enum { LANES_ELEM_MOST = 256 };

/* The lets before the accumulation, written into the element: ir_copy's
 * read hook (a read of a let's variable becomes a copy of its value) */
/* The lets a copy writes in place of their reads; and, over range(lo, hi,
 * step), the loop variable iv (then counting 0, 1, ...) read as its value
 * (stepped_range) */
struct lets { struct ir_copier k; struct ir_node **let; int n; struct ir_var *iv; const struct ir_node *range; };
static struct ir_node *let_value(struct ir_copier *k, const struct ir_node *r)
{
    struct lets *l = (struct lets *)k;
    if (l->iv && r->var == l->iv) return ir_step_value(l->range, l->iv, r->loc);
    for (int i = l->n - 1; i >= 0; i--)
        if (l->let[i]->var == r->var) {
            int n = l->n;
            l->n = i; /* its value reads only the lets before it */
            struct ir_node *c = ir_copy(k, l->let[i]->a);
            l->n = n;
            return c;
        }
    return NULL;
}

/* How many times n reads v on one path through it: an if-else
 * expression runs one of its branches (`s += 4.0 * sin(x)` in one branch
 * and `s += 2.0 * sin(x)` in the other read x once) */
static int reads(const struct ir_node *n, const struct ir_var *v)
{
    if (!n) return 0;
    if (n->eop == IR_VAR) return n->var == v;
    if (!ir_is_expr(n) || n->eop == IR_REDUCE || n->eop == IR_LISTCOMP) return 1000; /* not walked: refused */
    if (n->eop == IR_COND) {
        int b = reads(n->b, v), c = reads(n->c, v);
        return reads(n->a, v) + (b > c ? b : c);
    }
    int c = reads(n->a, v) + reads(n->b, v) + reads(n->c, v);
    for (int i = 0; i < n->nkids; i++) c += reads(n->kids[i], v);
    return c;
}

/* v = v op x: x, else NULL (op: the first one's, then the same) */
static struct ir_node *accumulated(struct ir_node *a, struct ir_var **v, enum op *op)
{
    if (!a || a->op != IR_ASSIGN || a->var->type != ty_float) return NULL;
    struct ir_node *x = a->a;
    if (!x || x->op != IR_BINARY || (x->bop != OP_ADD && x->bop != OP_MUL) || x->a->op != IR_VAR || x->a->var != a->var)
        return NULL;
    if (*v && (a->var != *v || x->bop != *op)) return NULL;
    *v = a->var;
    *op = x->bop;
    return x->b;
}

/* the one statement of block b (or b itself) */
static struct ir_node *only(struct ir_node *b)
{
    if (b && b->op == IR_BLOCK) return b->nkids == 1 ? b->kids[0] : NULL;
    return b;
}

/* range(lo, hi, step) with literal lo and step (ir_step_literal): it, the
 * range of its count */
static bool stepped_range(struct ir_node *s, struct ir_iter *it)
{
    struct ir_node *r = s->iter.array;
    if (!ir_step_literal(r)) return false;
    *it = (struct ir_iter){.is_range = true, .lo = ir_mk_int(0, s->loc), .hi = ir_step_count(r)};
    return true;
}

static bool accumulate_in_lanes(struct ir_node *s)
{
    struct ir_node *b = s->b;
    if (s->nguards || s->fast_in || s->swap || s->nviews || s->chunk || !b || b->op != IR_BLOCK || b->nkids < 1 || b->nkids > 9) return false;
    /* over an array: its elements (the loop's snapshot: only v changes);
     * over range(lo, hi, step), which the loop takes without the array, a
     * count whose values the element computes */
    struct ir_iter iter = s->iter;
    bool stepped = s->op == IR_FOR_ARRAY && ir_range_values(s);
    if (stepped ? !stepped_range(s, &iter) : s->op == IR_FOR_ARRAY && !lane_source(s->var->type)) return false;
    struct ir_node *last = b->kids[b->nkids - 1], *e;
    struct ir_var *v = NULL;
    enum op op = OP_ADD;
    if (last->op == IR_IF) {
        struct ir_node *x = accumulated(only(last->b), &v, &op);
        struct ir_node *y = last->c ? accumulated(only(last->c), &v, &op) : NULL;
        if (!x || (last->c && !y)) return false;
        e = ir_new(IR_COND, last->loc, ty_float);
        e->a = last->a;
        e->b = x;
        if (y) e->c = y;
        else {
            e->c = ir_new(IR_FLOAT, last->loc, ty_float);
            e->c->fval = op == OP_ADD ? -0.0 : 1.0;
        }
    } else if (!(e = accumulated(last, &v, &op))) {
        return false;
    }
    /* the lets: none can panic, none reads v; each is written in place of
     * its reads (by the element or a later let), so one read more than once
     * on a path (an inlined helper's parameter: `exp(-x * x) * x`) is
     * computed once per read: arithmetic gcc computes once, but a call of
     * a math function it would repeat; such a let is read at most once */
    struct ir_node *let[8];
    int nl = b->nkids - 1;
    for (int i = 0; i < nl; i++) {
        let[i] = b->kids[i];
        if (let[i]->op != IR_LET || !no_panic(let[i]->a) || reads(let[i]->a, v)) return false;
    }
    for (int i = 0; i < nl; i++) {
        int c = reads(e, let[i]->var);
        for (int j = i + 1; j < nl; j++) c += reads(let[j]->a, let[i]->var);
        if (c > 1 && calls_math(let[i]->a)) return false;
    }
    struct lets l = {{let_value, NULL, NULL}, let, nl, stepped ? s->var : NULL, s->iter.array};
    struct ir_node *rn = ir_new(IR_REDUCE, s->loc, ty_float);
    rn->reducer = op == OP_ADD ? RED_SUM : RED_PRODUCT;
    rn->elem_type = ty_float;
    rn->gen_var = s->var;
    rn->iter = iter;
    rn->elem = nl || stepped ? ir_copy(&l.k, e) : e;
    if (ir_size(rn->elem) > LANES_ELEM_MOST) return false; /* lets read many times, each read many times */
    ir_free_vars(rn, &rn->caps, &rn->ncaps);
    for (int i = 0; i < rn->ncaps; i++)
        if (rn->caps[i] == v) return false;
    scope_open();
    const char *acc = emit_seq_lanes(rn, vname(v));
    if (acc) line("%s = %s;", vname(v), acc);
    scope_close();
    return acc != NULL;
}

/* A sequential range loop over lo .. hi (C expressions evaluated once),
 * its views open: as the IR holds it (a versioned loop's copy too; a loop
 * with guards, opt_version.c off, runs checked; a loop written twice,
 * ir_runs_long_if, its copies' views). */
static void seq_range(struct ir_node *s, const char *lo, const char *hi)
{
    struct ir_node *l = ir_loop_of(s);
    int views = open_views(l);
    /* a versioned nest's fast inner loop runs: gcc jams no nest whose
     * inner loop might not */
    if (l->fast_in && l->fast_in->a->guards_outside)
        line("BP_ASSUME(%s %s %s);", lo, l->iter.inclusive ? "<=" : "<", hi);
    range_loop(s, lo, hi);
    close_views(views);
}

/* A sequential generator's loop over its int range (s: its first value and
 * count, evaluated), written twice when opt_version.c gave it a fast copy
 * (fast_gen, the checks the guards prove left out): that copy when every
 * guard holds for each value the loop takes, lo .. lo + n - 1 (tested
 * once, before it), else the generator as written, which panics where it
 * would. With that pass off, the generator as written alone. */
void emit_gen_versions(struct ir_node *rn, const struct src *s,
                       void (*loop)(struct ir_node *version, const struct src *s, void *ctx), void *ctx)
{
    if (!rn->fast_gen) {
        loop(rn, s, ctx);
        return;
    }
    const char *last = tmp(ty_int, "%s > 0 ? (int64_t)((uint64_t)%s + (uint64_t)(%s - 1)) : %s", s->n, s->lo, s->n, s->lo);
    struct buf cond = {0};
    bprintf(&cond, "%s <= 0", s->n);
    for (int i = 0; i < rn->nguards; i++)
        bprintf(&cond, " %s %s", i ? guard_join(i) : "|| (", loop_guard_test(&rn->guards[i], s->lo, last, last, true));
    bputs(&cond, ")");
    line("if (%s) {", cond.p);
    free(cond.p);
    for (int version = 0; version < 2; version++) {
        F->ind++;
        loop(version == 0 ? rn->fast_gen : rn, s, ctx);
        F->ind--;
        line(version == 0 ? "} else {" : "}");
    }
}

static void whole_source_loop(struct ir_node *version, const struct src *s, void *ctx)
{
    struct gen_elem *g = ctx;
    source_loop(version, "", s->lo, s->arr, "0", s->n, s->is_range, g->elem, g->arg, g->stop);
}

void emit_gen_loop(struct ir_node *rn, const struct src *s, void (*elem)(struct ir_node *, void *), void *arg,
                   const char *stop)
{
    struct gen_elem g = {elem, arg, stop};
    emit_gen_versions(rn, s, whole_source_loop, &g);
}

/* A loop whose iterations run on the pool (opt_parfor.c): the helper
 * bp_for<n>(env, lo_, hi_) runs the loop over lo_ .. hi_, a chunk of the
 * range, exactly as the whole loop is written (pool_chunk: its chunk, its
 * guards tested over the chunk); brt_par_for hands it the chunks. Its places are named
 * by the function, as the sequential loop's are: a panic reads the same.
 * When the runtime would not split (one thread, or fewer iterations than
 * make IR_PAR_GRAIN nodes of work by ir_par_work's guess), the loop runs as
 * written: a small loop in a function called often costs no split. */
/* A loop on the pool's helper family: its number, and the start of
 * struct bp_env<n> (its captures) in aux, left open for more fields. */
static int par_env_open(struct ir_node *s, struct buf *aux)
{
    int id = ++CG->naux;
    bprintf(aux, "struct bp_env%d {\n    char unused_;\n", id);
    for (int i = 0; i < s->ncaps; i++)
        bprintf(aux, "    %s v%d; /* %s */\n", ctype(s->caps[i]->type), s->caps[i]->id, s->caps[i]->name);
    return id;
}

/* At the loop: its env e with the captures' values, and the helpers' call
 * chain starting at this frame's free slot. */
static void par_env_fill(struct ir_node *s, int id, const char *e)
{
    line("struct bp_env%d %s;", id, e);
    for (int i = 0; i < s->ncaps; i++) line("%s.v%d = %s;", e, s->caps[i]->id, vname(s->caps[i]));
    line("brt_frames_at(%s);", frame_slot());
}

/* The captures of loop s whose data and length a loop around it views in
 * the function being written (so s cannot change them either), NULL-ended;
 * open_helper_views opens them again in s's helper, read once per chunk. */
static struct ir_var **viewed_caps(struct ir_node *s)
{
    struct ir_var **v = arena_alloc(sizeof *v * (size_t)(s->ncaps + 1));
    int n = 0;
    for (int i = 0; i < s->ncaps; i++)
        if (s->caps[i]->type->kind == T_ARRAY && view_of_var(s->caps[i])) v[n++] = s->caps[i];
    v[n] = NULL;
    return v;
}

static void open_helper_views(struct ir_var **v)
{
    for (; *v && CG->nviews < 64; v++) open_view(*v);
}

/* Loop s on the pool over lo .. hi (a chunk, or its whole range in order):
 * its chunk (opt_version.c: the versioned loop over chunk_lo .. chunk_hi)
 * with those set to lo and hi, else as seq_range writes s. */
static void pool_chunk(struct ir_node *s, const char *lo, const char *hi)
{
    if (!ir_loop_of(s)->chunk) { /* a loop written twice (opt_prefetch.c) is sequential */
        seq_range(s, lo, hi);
        return;
    }
    line("%s = %s;", declare_var(s->chunk_lo, VS_OWNED), lo);
    line("%s = %s;", declare_var(s->chunk_hi, VS_OWNED), hi);
    struct ir_node *c = s->chunk;
    if (c->op != IR_FOR_RANGE) {
        emit_stmt(c);
        return;
    }
    /* a hoisting nest's fast copy over the chunk's slice (opt_version.c:
     * steps_chunk), written as emit_versioned writes that nest: its outer
     * bounds once, then the nest with its arrays restrict (gcc jams it) */
    scope_open();
    const char *olo = tmp(c->iter.lo->type, "%s", emit_expr(c->iter.lo));
    const char *ohi = tmp(c->iter.hi->type, "%s", emit_expr(c->iter.hi));
    scope_close();
    restrict_nest(c, olo, ohi);
}

static void par_loop(struct ir_node *s, const char *lo, const char *hi)
{
    struct buf aux = {0};
    int id = par_env_open(s, &aux);
    bputs(&aux, "};\n");
    struct ir_var **viewed = viewed_caps(s);
    struct fctx *saved = helper_open(id, s->caps, s->ncaps);
    bputs(&F->decl, "    (void)env;\n");
    int views = CG->nviews;
    open_helper_views(viewed);
    debug_line(&F->body, s->loc, true);
    pool_chunk(s, "lo_", "hi_");
    close_views(views);
    helper_end(saved, &aux, arena_printf("static void bp_for%d(void *envp, int64_t lo_, int64_t hi_)", id), NULL);
    bputs(&CG->aux, aux.p);
    free(aux.p);
    /* split only when there are threads to split for: else the loop as
     * written, in place (the C compiler sees the function's constants) */
    line("if (brt_par_for_splits(%s, %s, %" PRId64 "LL)) {", lo, hi, ir_par_least(s->b));
    F->ind++;
    const char *e = new_temp();
    par_env_fill(s, id, e);
    line("brt_par_for(%s, %s, &%s, bp_for%d);", lo, hi, e, id);
    F->ind--;
    line("} else {");
    F->ind++;
    pool_chunk(s, lo, hi);
    F->ind--;
    line("}");
}

/* A fold loop's accumulator f as it starts in each chunk: its fold's
 * identity (min's +inf: a start no value replaces but by a smaller one,
 * and NaN never, so a chunk's part is the first of its least values, or
 * +inf). */
static const char *fold_start(const struct ir_fold *f)
{
    struct type *t = f->var->type;
    switch (f->kind) {
    case FOLD_SUM: return "0";
    case FOLD_OR: return "false";
    case FOLD_AND: return "true";
    case FOLD_MIN: return t == ty_float ? float_lit(INFINITY) : t == ty_u64 ? "UINT64_MAX" : "INT64_MAX";
    case FOLD_MAX: return t == ty_float ? float_lit(-INFINITY) : t == ty_u64 ? "(uint64_t)0" : "INT64_MIN";
    }
    return "0";
}

/* A count: every step of the sum v in the loop body s adds a literal >= 0
 * and stands in no loop of s, so it runs at most once an iteration. Its
 * running values only grow from 0 (their least 0, their greatest the last)
 * and by at most the sum of its steps' literals an iteration: returns that
 * sum (at most INT64_MAX), or -1 when v is no count. A chunk of n
 * iterations then overflows only if n > INT64_MAX / that sum, tested once
 * before the chunk: its steps are plain adds, no flag and no branch (a step
 * under a condition the data decides, a Monte Carlo hit, stays a
 * conditional move). */
static int64_t fold_count(struct ir_node *s, struct ir_var *v, bool in_loop)
{
    if (!s || ir_is_expr(s)) return 0;
    int64_t k = 0;
    if (s->op == IR_ASSIGN && s->var == v) {
        struct ir_node *x = s->a, *e = x->a->op == IR_VAR && x->a->var == v ? x->b : x->a;
        if (in_loop || x->bop != OP_ADD || e->op != IR_INT || (int64_t)e->ival < 0) return -1;
        k = (int64_t)e->ival;
    }
    bool loop = s->op == IR_FOR_RANGE || s->op == IR_FOR_ARRAY || s->op == IR_WHILE;
    struct ir_node *parts[3] = {s->b, s->c, NULL};
    for (int i = 0; i < s->nkids + 2; i++) {
        struct ir_node *p = i < s->nkids ? s->kids[i] : parts[i - s->nkids];
        int64_t c = fold_count(p, v, in_loop || (loop && p == s->b));
        if (c < 0) return -1;
        k = c > INT64_MAX - k ? INT64_MAX : k + c;
    }
    return k;
}

/* In a fold loop's chunk helper (F->fold): an int sum's step `v = v + E`,
 * `v = E + v` or `v = v - E` as brt_fold_add_i64 / sub, with no panic (the
 * join tests the sequential loop's overflows); false for any other
 * statement, written as usual (min, max, or, and: the same code on the
 * chunk's own start). */
bool fold_step(struct ir_node *s)
{
    struct ir_node *loop = F->fold, *x = s->a;
    int i = 0;
    while (i < loop->nfolds && loop->folds[i].var != s->var) i++;
    if (i == loop->nfolds || loop->folds[i].kind != FOLD_SUM) return false;
    bool self_first = x->a->op == IR_VAR && x->a->var == s->var;
    int id = s->var->id;
    scope_open();
    const char *e = emit_expr(self_first ? x->b : x->a);
    if (fold_count(loop->b, s->var, false) >= 0)
        line("%s = (int64_t)((uint64_t)%s + (uint64_t)%s);", vname(s->var), vname(s->var), e);
    else
        line("brt_fold_%s_i64(&%s, %s, &fl%d, &fh%d, &fo%d);", x->bop == OP_SUB ? "sub" : "add", vname(s->var), e, id, id, id);
    scope_close();
    return true;
}

/* A loop whose iterations fold into accumulators (opt_parfor.c, folds).
 * The chunk helper bp_fold<n>(env, part, lo_, hi_) runs the loop over its
 * chunk as pool_chunk writes it, each accumulator a local from its
 * identity (an int sum with its running least and greatest and an overflow
 * flag), then writes them to part; bp_join<n>(env, part) folds a chunk's
 * part into env's accumulators, in chunk order (brt_par_fold). When the
 * split is not taken, a chunk panicked, or a sum may overflow, the loop as
 * written runs from the start, with the accumulators as they were: the
 * body stores into no outer array and nothing else in it changes them, so
 * the values and the first panic are the sequential loop's. */
static void fold_loop(struct ir_node *s, const char *lo, const char *hi)
{
    struct buf aux = {0};
    int id = par_env_open(s, &aux);
    for (int i = 0; i < s->nfolds; i++)
        bprintf(&aux, "    %s a%d; /* %s */\n", ctype(s->folds[i].var->type), s->folds[i].var->id, s->folds[i].var->name);
    bprintf(&aux, "};\nstruct bp_part%d {\n", id);
    for (int i = 0; i < s->nfolds; i++) {
        int v = s->folds[i].var->id;
        bprintf(&aux, "    %s a%d;\n", ctype(s->folds[i].var->type), v);
        if (s->folds[i].kind == FOLD_SUM) bprintf(&aux, "    int64_t lo%d, hi%d;\n    bool ov%d;\n", v, v, v);
    }
    bputs(&aux, "};\n");
    struct ir_var **viewed = viewed_caps(s);
    struct fctx *saved = helper_open(id, s->caps, s->ncaps);
    bputs(&F->decl, "    (void)env;\n");
    int views = CG->nviews;
    open_helper_views(viewed);
    for (int i = 0; i < s->nfolds; i++) {
        struct ir_var *v = s->folds[i].var;
        F->vst[v->id] = VS_BORROWED;
        debug_note_var(v);
        bprintf(&F->decl, "    %s v%d = %s;\n", ctype(v->type), v->id, fold_start(&s->folds[i]));
        int64_t k = s->folds[i].kind == FOLD_SUM ? fold_count(s->b, v, false) : -1;
        if (s->folds[i].kind == FOLD_SUM && k >= 0)
            bprintf(&F->decl, "    bool fo%d = %s;\n", v->id,
                    k ? arena_printf("(uint64_t)hi_ - (uint64_t)lo_ > %" PRId64 "ULL", INT64_MAX / k) : "false");
        else if (s->folds[i].kind == FOLD_SUM)
            bprintf(&F->decl, "    int64_t fl%d = 0, fh%d = 0;\n    bool fo%d = false;\n", v->id, v->id, v->id);
    }
    F->fold = s;
    debug_line(&F->body, s->loc, true);
    pool_chunk(s, "lo_", "hi_");
    line("{");
    line("    struct bp_part%d *p_ = part_;", id);
    for (int i = 0; i < s->nfolds; i++) {
        int v = s->folds[i].var->id;
        line("    p_->a%d = %s;", v, vname(s->folds[i].var));
        if (s->folds[i].kind == FOLD_SUM && fold_count(s->b, s->folds[i].var, false) >= 0)
            line("    p_->lo%d = 0; p_->hi%d = %s; p_->ov%d = fo%d;", v, v, vname(s->folds[i].var), v, v);
        else if (s->folds[i].kind == FOLD_SUM)
            line("    p_->lo%d = fl%d; p_->hi%d = fh%d; p_->ov%d = fo%d;", v, v, v, v, v, v);
    }
    line("}");
    close_views(views);
    helper_end(saved, &aux, arena_printf("static void bp_fold%d(void *envp, void *part_, int64_t lo_, int64_t hi_)", id),
               NULL);
    /* the join: min and max replace only on strictly smaller or larger, as
     * the body's min(v, E) and max(v, E) do */
    bprintf(&aux, "static bool bp_join%d(void *envp, const void *part_) {\n", id);
    bprintf(&aux, "    struct bp_env%d *env = envp;\n    const struct bp_part%d *p = part_;\n", id, id);
    for (int i = 0; i < s->nfolds; i++) {
        int v = s->folds[i].var->id;
        switch (s->folds[i].kind) {
        case FOLD_SUM:
            bprintf(&aux, "    if (!brt_fold_join_i64(&env->a%d, p->a%d, p->lo%d, p->hi%d, p->ov%d)) return false;\n", v, v, v,
                    v, v);
            break;
        case FOLD_MIN: bprintf(&aux, "    if (p->a%d < env->a%d) env->a%d = p->a%d;\n", v, v, v, v); break;
        case FOLD_MAX: bprintf(&aux, "    if (p->a%d > env->a%d) env->a%d = p->a%d;\n", v, v, v, v); break;
        case FOLD_OR: bprintf(&aux, "    env->a%d = env->a%d || p->a%d;\n", v, v, v); break;
        case FOLD_AND: bprintf(&aux, "    env->a%d = env->a%d && p->a%d;\n", v, v, v); break;
        }
    }
    bputs(&aux, "    return true;\n}\n\n");
    bputs(&CG->aux, aux.p);
    free(aux.p);
    const char *seq = new_temp(), *e = new_temp();
    line("{");
    F->ind++;
    line("bool %s = true;", seq);
    line("if (brt_par_for_splits(%s, %s, %" PRId64 "LL)) {", lo, hi, ir_par_least(s->b));
    F->ind++;
    par_env_fill(s, id, e);
    for (int i = 0; i < s->nfolds; i++) line("%s.a%d = %s;", e, s->folds[i].var->id, vname(s->folds[i].var));
    line("if (brt_par_fold(%s, %s, &%s, sizeof(struct bp_part%d), bp_fold%d, bp_join%d)) {", lo, hi, e, id, id, id);
    for (int i = 0; i < s->nfolds; i++) line("    %s = %s.a%d;", vname(s->folds[i].var), e, s->folds[i].var->id);
    line("    %s = false;", seq);
    line("}");
    F->ind--;
    line("}");
    line("if (%s) {", seq);
    F->ind++;
    pool_chunk(s, lo, hi);
    F->ind--;
    line("}");
    F->ind--;
    line("}");
}

/* for v in lo .. hi: accumulated in lanes, on the pool (par_loop), or as
 * pool_chunk writes it. */
void emit_for_range(struct ir_node *s)
{
    struct ir_node *l = ir_loop_of(s); /* s: the loop, or the if of its two copies (opt_prefetch.c) */
    struct type *it = l->iter.lo->type;
    if (!type_is_integer(it)) internal_error("emit: for over a range of %s", type_name(it));
    if (accumulate_in_lanes(l)) return;
    scope_open();
    /* copies: the body may assign the variables the bounds were read from */
    const char *lo = tmp(it, "%s", emit_expr(l->iter.lo));
    const char *hi = tmp(it, "%s", emit_expr(l->iter.hi));
    scope_close();
    /* (a jammed nest's inner body, whose slots are the enclosing C
     * function's locals, holds no loop: ir_verify) */
    bool pool = l->par;
    if (pool && l->nfolds) fold_loop(l, lo, hi);
    else if (pool) par_loop(l, lo, hi);
    else pool_chunk(s, lo, hi);
}

/* for v in the snapshot's data (prefetching its elements ahead: opt_prefetch.c) */
static void snap_loop(struct ir_node *s, const struct pf_loop *a)
{
    bool prefetch = s->prefetch;
    fold_unroll(s);
    line("for (int64_t %s = %s; %s < %s; %s++) {", a->k, a->from ? a->from : "0", a->k, a->n, a->k);
    F->ind++;
    line("%s = %s[%s];", a->v, a->snap, a->k);
    if (prefetch) line("BRT_PREFETCH(%s + %s);", a->snap, a->k); /* opt_prefetch.c */
    emit_stmt(s->b);
    F->ind--;
    line("}");
}

/* A for-over-array loop's body: v is element k < n of the snapshot's data
 * (snap), or (snap NULL) each of the n values of range(lo, ..., step). */
static void array_loop(struct ir_node *s, const char *v, const char *n, const char *snap, const char *lo,
                       const char *step)
{
    const char *k = new_temp();
    if (!snap) {
        /* the values themselves count: u runs from lo by step (wrapping
         * in uint64_t) until e, the value n steps on. The n values lie
         * between lo and hi, (n - 1) * |step| < 2^64 apart, so none before
         * the n-th step is e: one induction variable, as C's j += i, where
         * a count k beside v = lo + k * step kept two. The step is in the
         * test, so a continue takes it too. */
        const char *e = new_temp();
        line("if (%s > 0) {", n);
        F->ind++;
        line("uint64_t %s = (uint64_t)%s, %s = (uint64_t)%s + (uint64_t)%s * (uint64_t)%s;", k, lo, e, lo, n, step);
        line("do {");
        F->ind++;
        line("%s = (int64_t)%s;", v, k);
        emit_stmt(s->b);
        F->ind--;
        line("} while ((%s += (uint64_t)%s) != %s);", k, step, e);
        F->ind--;
        line("}");
        return;
    }
    struct pf_loop a = {.v = v, .n = n, .snap = snap, .k = k};
    if (ir_runs_long_if(s)) pf_runs_long(s, n, &a, snap_loop); /* [runs long](xs): the snapshot's length */
    else snap_loop(s, &a);
}

void values_loop(struct ir_node *s, const char *v, const char *n, const char *lo, const char *step)
{
    array_loop(s, v, n, NULL, lo, step);
}

/* for v in xs: over a snapshot of the array (none where the variable holds
 * it: ir_source_held), the variable borrowing each element. for v in
 * range(lo, hi, step) over int (ir_range_values): the values one by one, as
 * brt_range_step lists them (the same count, the same panics at the range),
 * without the array (with guards: opt_version.c's two versions). */
void emit_for_array(struct ir_node *s)
{
    struct ir_node *l = ir_loop_of(s); /* s: the loop, or the if of its two copies (opt_prefetch.c) */
    if (accumulate_in_lanes(l)) return;
    struct type *et = l->var->type;
    struct ir_node *r = l->iter.array;
    bool values = ir_range_values(l), held = ir_source_held(l);
    const char *snap = NULL, *lo = NULL, *step = NULL, *n = NULL;
    scope_open();
    if (values) {
        lo = tmp(ty_int, "%s", emit_expr(r->kids[0]));
        const char *hi = emit_expr(r->kids[1]);
        step = tmp(ty_int, "%s", emit_expr(r->kids[2]));
        n = tmp(ty_int, "brt_range_step_count(%s, %s, %s, %s)", lo, hi, step, loc_ref(r->loc));
    } else {
        const char *a = held ? NULL : take(emit_expr(r), r->type);
        snap = held ? vname(r->var) : declare_extra(r->type);
        if (!held) line("%s = %s;", snap, a);
    }
    scope_close();
    /* the snapshot's reference keeps its length and data fixed (a store or
     * push to the variable copies first): read once, not after each store
     * of the body into memory of their type (counts[b] += 1 into an [int]) */
    const char *data = snap ? new_temp() : NULL;
    if (snap) {
        n = tmp(ty_int, "%s->len", snap);
        line("%s *%s = (%s *)%s->data;", ctype(et), data, ctype(et), snap);
    }
    int views = open_views(l);
    /* the loop variable borrows each element: a loop variable cannot be
     * assigned, and the snapshot holds the elements for the whole loop
     * (a value that escapes is retained where it escapes, by take()) */
    const char *v = declare_var(l->var, VS_BORROWED);
    array_loop(s, v, n, data, lo, step);
    if (snap && !held) line("brt_arr_release(%s); %s = NULL;", snap, snap);
    if (snap && type_is_ref(et)) line("%s = %s;", v, zero_of(et));
    close_views(views);
}
