/*
 * emit_guards.c: the tests of loop guards (opt_loops.c), and the nests whose
 * inner loop's guards are tested once, before the outer loop.
 *
 * A guarded loop runs without the checks its guards prove when the guards
 * hold over its whole range, tested before it: opt_version.c writes the two
 * versions as IR, a versioned if whose guard test emit_versioned prints
 * (a loop on the pool's in its chunk, per chunk). The emitter versions
 * nothing itself: with that pass off, a guarded loop runs as written, every
 * check kept. A range loop whose body is one guarded range loop that it
 * cannot change (ir.h: guards_outside) has the inner loop's guards tested
 * once, before itself (opt_version.c): the nest with every inner iteration
 * unchecked, else as written (an inner guard naming the outer variable, a
 * column along a path, over the outer range: nest_guard_cond; its rows'
 * lengths where the fast nest enters its inner loop: rows_only_cond). The
 * nest that runs is then a plain
 * nest of two loops, which gcc can unroll and jam (the outer loop's
 * iterations two at a time in one inner loop: each element loaded once for
 * two steps). A guard of a deeper row (u[i - 1][j][k]: a path) selects
 * each row on the way only after testing its index (bp_row_at, NULL when
 * out of range), so a ragged array fails the test and never faults it.
 *
 * A loop's test narrowed by the let of a narrowed test before the loop
 * around (opt_version.c: narrow_before; narrowed_test, narrow_cond) reads
 * only its last rows' lengths where that let holds and the outer variable
 * is inside its range, every guard elsewhere.
 *
 * A swapped nest's test (opt_version.c: a guard test, swapped; a jammed
 * nest's in emit_loops.c) reads the inner bounds only
 * once the swap guards over the outer range hold, then tests the inner
 * loop's guards of the arrays read along it and the guards of the rows
 * over both ranges (swap_go).
 *
 * A column guard (m[i][k], the row changing along the loop) tests k against
 * the least length of the rows the loop reads, kept in a bp_rowmin that
 * the loop around listing m in its rowmins declares before itself (empty:
 * no row scanned yet): each test extends it to the rows it needs, so a
 * nest reads each row's length once however often its inner loop is
 * entered. Where no such loop is around in this C function (a par loop's
 * helper), the test declares its own, and scans the rows of its range.
 */
#include "emit_c.h"

#include <inttypes.h>
#include <stdlib.h>

/* What joins loop guard i (i > 0) to the ones before it: `&`, not `&&`.
 * Each guard_test stands alone (a row's test reads the row only once its
 * index is tested inside it), so all may be evaluated; with one branch per
 * guard gcc's jump threading copied the loop's first test into the
 * branches and gave the fast loop a second entry, which it then never
 * vectorized (stencil/swap_main: 1,025M instructions, 634M joined). */
const char *guard_join(int i)
{
    return i ? "&" : "&&";
}

/* The guard test that i + off stays in arr for every i in lo .. last. */
const char *span_test(const char *lo, const char *last, int64_t off, const char *arr)
{
    return arena_printf("bp_span(%s, %s, %" PRId64 "LL, 0, %s->len - 1)", lo, last, off, arr);
}

/* The bp_rowmin of arr that a loop around keeps in this C function, or a
 * new one, empty, declared here. */
static const char *rowmin_of(struct ir_var *arr)
{
    for (int i = CG->nrowmins - 1; i >= 0; i--)
        if (CG->rowmins[i].var == arr && CG->rowmins[i].fn == F) return CG->rowmins[i].name;
    const char *c = new_temp();
    line("bp_rowmin %s = {0, 0, 0};", c);
    return c;
}

int open_rowmins(struct ir_node *s)
{
    int mark = CG->nrowmins;
    for (int i = 0; i < s->nrowmins && CG->nrowmins < 64; i++) {
        const char *c = new_temp();
        bool tab;
        line("bp_rowmin %s = %s;", c, rowmin_init(s, s->rowmins[i], &tab));
        line("(void)%s;", c);
        CG->rowmins[CG->nrowmins++] = (struct rowmin){s->rowmins[i], c, F, tab};
    }
    return mark;
}

void close_rowmins(int mark) { CG->nrowmins = mark; }

/* The test of a loop guard (opt_loops.c) over lo .. last: an array's, a
 * row's (the row's index tested first), or a column's. */
static const char *guard_test(const struct ir_guard *g, const char *lo, const char *last)
{
    if (g->cols) {
        const char *k = g->fixed ? g->idx_var ? vname(g->idx_var) : "0" : NULL;
        return arena_printf("bp_col_span(%s, %s, %s, %" PRId64 "LL, %s, %s, %" PRId64 "LL, &%s)", vname(g->arr), lo,
                            last, g->row_off, k ? k : lo, k ? k : last, g->off, rowmin_of(g->arr));
    }
    if (g->fixed && !g->base) lo = last = g->idx_var ? vname(g->idx_var) : "0"; /* one index: idx_var + off */
    if (!g->rows) return span_test(lo, last, g->off, vname(g->arr));
    if (!g->npath)
        return arena_printf("bp_row_span(%s, %s, %" PRId64 "LL, %s, %s, %" PRId64 "LL)", vname(g->arr),
                            g->at_var ? vname(g->at_var) : "0", g->row_off, lo, last, g->off);
    /* a path: each row on the way selected only once its index is tested
     * (NULL when not: the test fails) */
    const char *row = vname(g->arr), *at = g->at_var ? vname(g->at_var) : "0";
    int64_t off = g->row_off;
    for (int k = 0; k < g->npath; k++) {
        row = arena_printf("bp_row_at(%s, %s, %" PRId64 "LL)", row, at, off);
        at = g->path_vars[k] ? vname(g->path_vars[k]) : "0";
        off = g->path_offs[k];
    }
    return arena_printf("bp_path_span(%s, %s, %" PRId64 "LL, %s, %s, %" PRId64 "LL)", row, at, off, lo, last, g->off);
}

/* A guard's base (opt_loops.c: literals, variables, + - *) in C, each
 * operation tested for overflow into the flag bad instead of panicking. */
static const char *base_c(struct ir_node *e, const char *bad)
{
    if (e->op != IR_BINARY) return emit_expr(e); /* a literal or a variable */
    const char *f = e->bop == OP_ADD ? "bp_gadd" : e->bop == OP_SUB ? "bp_gsub" : "bp_gmul";
    return arena_printf("%s(%s, %s, &%s)", f, base_c(e->a, bad), base_c(e->b, bad), bad);
}

/* The test of loop guard g over lo .. hi (last: hi, or hi - 1 when hi is
 * not included). A guard of i + base + off first computes base and the
 * two ends of i + base, before the test, where an overflow fails the guard
 * (the loop as written then panics where it would); a fixed one, of the
 * one index base + off (opt_relations.c: the most the index is), base. */
const char *loop_guard_test(const struct ir_guard *g, const char *lo, const char *last, const char *hi,
                                   bool inclusive)
{
    if (!g->base) return guard_test(g, lo, last);
    const char *bad = new_temp(), *b = new_temp(), *from = new_temp(), *to = new_temp();
    line("int %s = 0;", bad);
    line("int64_t %s = %s;", b, base_c(g->base, bad));
    if (g->fixed) return arena_printf("(!%s & %s)", bad, guard_test(g, b, b)); /* one index: base + off */
    line("int64_t %s = bp_gadd(%s, %s, &%s);", from, lo, b, bad);
    if (inclusive) line("int64_t %s = bp_gadd(%s, %s, &%s);", to, hi, b, bad);
    else line("int64_t %s = bp_gadd(bp_gsub(%s, 1, &%s), %s, &%s);", to, hi, bad, b, bad);
    return arena_printf("(!%s & %s)", bad, span_test(from, to, g->off, vname(g->arr)));
}

/* The test that a range loop's guards hold over lo .. hi (C expressions
 * evaluated once): empty, or (nonempty: not empty, and) every guard
 * holding; the caller frees .p. */
struct buf range_guard_cond(struct ir_node *s, const char *lo, const char *hi, bool nonempty)
{
    struct buf cond = {0};
    const char *empty = s->iter.inclusive ? ">" : ">=", *some = s->iter.inclusive ? "<=" : "<";
    bprintf(&cond, "%s %s %s", lo, nonempty ? some : empty, hi);
    const char *last = s->iter.inclusive ? hi : arena_printf("%s - 1", hi);
    for (int i = 0; i < s->nguards; i++)
        bprintf(&cond, " %s %s", i ? guard_join(i) : nonempty ? "&& (" : "|| (",
                loop_guard_test(&s->guards[i], lo, last, hi, s->iter.inclusive));
    bputs(&cond, ")");
    return cond;
}

/* ---- nests whose inner loop's guards are tested before them ---- */

/* An inner bound of a nest (guards_outside), evaluated before the outer
 * loop runs (perhaps never): + - * of literals and variables computed
 * without panicking, an overflow setting the flag *bad names (declared
 * here the first time) and failing the test; the nest that runs computes
 * its bounds again, as written. */
static const char *nest_bound(struct ir_node *e, const char **bad)
{
    if (e->op != IR_BINARY) return tmp(e->type, "%s", emit_expr(e));
    if (!*bad) {
        *bad = new_temp();
        line("int %s = 0;", *bad);
    }
    return tmp(e->type, "%s", base_c(e, *bad));
}

/* The test of nest guard g (ir_guard_outer: over the outer variable) over
 * the outer range lo .. last and the inner one ilo .. ilast: of a column
 * of rows along a path, each row on the way selected once its index is
 * tested, then the column's indices over the outer range and the inner
 * ones from 0 up (bp_path_rows; each row's length the fast nest tests
 * where it enters its inner loop, rows_only_cond); of a fixed guard, its
 * one index over the outer range. */
static const char *outer_guard_test(const struct ir_guard *g, int w, const char *lo, const char *last, const char *ilo,
                                    const char *ilast)
{
    if (w == 2) {
        struct ir_guard c = *g;
        c.fixed = false, c.idx_var = NULL;
        return guard_test(&c, lo, last);
    }
    /* the rows on the way, up to the one whose rows the outer variable
     * selects (not named: the test stands before its loop) */
    const char *row = vname(g->arr);
    int64_t off = g->row_off;
    for (int k = 0; k < g->npath; k++) {
        struct ir_var *at = k ? g->path_vars[k - 1] : g->at_var;
        row = arena_printf("bp_row_at(%s, %s, %" PRId64 "LL)", row, at ? vname(at) : "0", off);
        off = g->path_offs[k];
    }
    if (g->fixed) ilo = ilast = g->idx_var ? vname(g->idx_var) : "0";
    return arena_printf("bp_path_rows(%s, %s, %s, %" PRId64 "LL, %s, %s, %" PRId64 "LL)", row, lo, last, off, ilo,
                        ilast, g->off);
}

/* A rows_only test (opt_version.c: rows_each) over the inner range lo ..
 * hi: empty, or each guard's row (every index on the way proved by the
 * nest's test: read unchecked) holding the last index, hi (- 1) + off
 * (a fixed guard's: its one index + off), which that test proved fits. */
/* The last row of guard g's path, read unchecked: the row at at_var +
 * row_off, then each path step's (the checks came before). */
static const char *guard_last_row(const struct ir_guard *g)
{
    const char *row = vname(g->arr);
    for (int k = 0; k <= g->npath; k++) {
        struct ir_var *at = k ? g->path_vars[k - 1] : g->at_var;
        int64_t off = k ? g->path_offs[k - 1] : g->row_off;
        const char *ix = at ? arena_printf("%s + %" PRId64 "LL", vname(at), off) : arena_printf("%" PRId64 "LL", off);
        row = arena_printf("BRT_AT(brt_arr *, %s, %s)", row, ix);
    }
    return row;
}

static struct buf rows_only_cond(struct ir_node *t, const char *lo, const char *hi)
{
    struct buf cond = {0};
    bprintf(&cond, "%s %s %s || (1", lo, t->iter.inclusive ? ">" : ">=", hi);
    for (int i = 0; i < t->nguards; i++) {
        const struct ir_guard *g = &t->guards[i];
        const char *row = guard_last_row(g);
        const char *last = g->fixed ? g->idx_var ? vname(g->idx_var) : "0" : t->iter.inclusive ? hi : arena_printf("(%s - 1)", hi);
        bprintf(&cond, " & (%s + %" PRId64 "LL < %s->len)", last, g->off, row);
    }
    bputs(&cond, ")");
    return cond;
}

/* A nest's test (guards_outside: t's clause the outer range lo .. hi, C
 * expressions evaluated once): its inner bounds (nest_bound), a non-empty
 * inner range, and every inner guard, those of the outer variable
 * (ir_guard_outer) over the outer range; the caller frees .p (*ilop,
 * *ihip: the inner bounds' C names). */
static struct buf nest_guard_cond(struct ir_node *t, const char *lo, const char *hi, const char **ilop, const char **ihip)
{
    const char *bad = NULL;
    scope_open();
    const char *ilo = *ilop = nest_bound(t->kids[0], &bad), *ihi = *ihip = nest_bound(t->kids[1], &bad);
    scope_close();
    struct buf cond = {0};
    const char *last = t->clauses[0].iter.inclusive ? hi : arena_printf("%s - 1", hi);
    const char *ilast = t->iter.inclusive ? ihi : arena_printf("%s - 1", ihi);
    bprintf(&cond, "%s%s %s %s", bad ? arena_printf("!%s && ", bad) : "", ilo, t->iter.inclusive ? "<=" : "<", ihi);
    for (int i = 0; i < t->nguards; i++) {
        const struct ir_guard *g = &t->guards[i];
        int w = ir_guard_outer(g, t->clauses[0].var);
        const char *test = w > 0 ? outer_guard_test(g, w, lo, last, ilo, ilast)
                                 : loop_guard_test(g, ilo, ilast, ihi, t->iter.inclusive);
        bprintf(&cond, " %s %s", i ? guard_join(i) : "&& (", test);
    }
    if (t->nguards) bputs(&cond, ")");
    return cond;
}

/* ---- guards narrowed by a branch (opt_version.c: narrow_before) ---- */

/* A narrowed guard test, the let before the loop around (t->var its
 * variable): its range lo .. hi (computed without panicking, an overflow
 * failing the test) not empty, and each guard's rows on the way selected
 * once their indices are tested, the index of the last one over that
 * range (bp_path_rows over no inner range: each entry of the inner loop
 * tests those rows' lengths, narrow_cond). */
const char *narrowed_test(struct ir_node *t)
{
    const char *bad = NULL, *lo = nest_bound(t->kids[0], &bad), *hi = nest_bound(t->kids[1], &bad);
    struct buf cond = {0};
    bprintf(&cond, "%s%s < %s", bad ? arena_printf("!%s && ", bad) : "", lo, hi);
    for (int i = 0; i < t->nguards; i++) {
        struct ir_guard g = t->guards[i];
        g.off = 0;
        bprintf(&cond, " && %s", outer_guard_test(&g, 1, lo, arena_printf("%s - 1", hi), "0", "0"));
    }
    const char *r = tmp(ty_bool, "%s", cond.p);
    free(cond.p);
    return r;
}

/* A versioned loop's test narrowed by the let of a narrowed guard test
 * (t->narrow_flag, of t->narrow_test): where the let holds and the outer
 * variable is inside its range, each narrow guard's last row (every index
 * on the way proved by the let: read unchecked) holding lo .. last + off,
 * and the other guards; else every guard (range_guard_cond). */
static struct buf narrow_cond(struct ir_node *t, const char *lo, const char *hi)
{
    struct ir_node *n = t->narrow_test;
    const char *bad = NULL, *nlo = nest_bound(n->kids[0], &bad), *nhi = nest_bound(n->kids[1], &bad);
    const char *j = vname(n->var), *last = t->iter.inclusive ? hi : arena_printf("%s - 1", hi);
    struct buf all = range_guard_cond(t, lo, hi, false), cond = {0};
    bprintf(&cond, "(%s%s && %s <= %s && %s < %s) ? (%s %s %s || (1", vname(t->narrow_flag),
            bad ? arena_printf(" && !%s", bad) : "", nlo, j, j, nhi, lo, t->iter.inclusive ? ">" : ">=", hi);
    for (int i = 0; i < t->nguards; i++) {
        const struct ir_guard *g = &t->guards[i];
        if (!g->narrow) {
            bprintf(&cond, " & %s", loop_guard_test(g, lo, last, hi, t->iter.inclusive));
            continue;
        }
        const char *row = guard_last_row(g);
        bprintf(&cond, " & %s", span_test(lo, last, g->off, row));
    }
    bprintf(&cond, ")) : (%s)", all.p);
    free(all.p);
    return cond;
}

/* ---- swapped and jammed nests' guards (opt_interchange.c) ---- */

/* A swapped or jammed nest's inner bounds lo .. hi, evaluated into ilo and
 * ihi once the outer guards hold. */
void inner_bounds(struct ir_node *lo, struct ir_node *hi, const char *ilo, const char *ihi)
{
    scope_open();
    line("%s = %s;", ilo, emit_expr(lo));
    line("%s = %s;", ihi, emit_expr(hi));
    scope_close();
}

/* Whether a swapped or jammed nest's inner loop guard g is one the nest
 * needs: of an array read along the inner loop. Its guards of rows and of
 * fixed indices are not: opt_interchange.c proves each such index of the
 * nest by a swap guard, or does not change the nest. */
bool nest_needs(const struct ir_guard *g)
{
    return !g->rows && !g->fixed && !g->base && !g->cols;
}

/* A swap guard (ir.h) that needs only the outer range: tested before the
 * inner bounds are read. */
bool outer_guard(const struct ir_guard *g)
{
    return !g->rows || (g->at && g->at_outer);
}

/* The C test of a swap guard over the outer range lo .. last and the inner
 * one ilo .. ilast (an outer_guard does not read those). */
const char *swap_guard_test(const struct ir_guard *g, const char *lo, const char *last, const char *ilo,
                            const char *ilast)
{
    const char *a = vname(g->arr);
    if (g->same_len) return arena_printf("bp_rows_same(%s, %s, %s, %" PRId64 "LL)", a, lo, last, g->off);
    if (g->at) {
        const char *e = emit_expr(g->at); /* a literal or a variable */
        if (!g->rows) return arena_printf("(uint64_t)(%s) < (uint64_t)%s->len", e, a);
        const char *row = arena_printf("((brt_arr *const *)%s->data)[%s]", a, e);
        return span_test(g->at_outer ? lo : ilo, g->at_outer ? last : ilast, g->off, row);
    }
    if (!g->rows) return span_test(lo, last, g->off, a);
    if (g->outer_rows)
        return arena_printf("bp_rows_span(%s, %s, %s, %" PRId64 "LL, %s, %s, %" PRId64 "LL)", a, lo, last, g->row_off,
                            ilo, ilast, g->off);
    return arena_printf("bp_rows_span(%s, %s, %s, %" PRId64 "LL, %s, %s, %" PRId64 "LL)", a, ilo, ilast, g->row_off, lo,
                        last, g->off);
}

/* The test of a swapped or jammed nest's guards (t: opt_version.c's guard
 * test) over the outer range lo .. hi, written after
 * `if (the outer range is not empty) {`, which the caller closes: the swap
 * guards over the outer range, then the inner bounds (read where the first
 * outer iteration would read them: they do not change in the nest, and the
 * lets before the inner loop cannot panic first), then the inner loop's
 * guards and the swap guards over both ranges. Returns the flag; kp (a
 * jam's), when not NULL, gets a counter declared beside the bounds, = lo. */
const char *swap_go(const struct ir_node *t, const char *lo, const char *hi, const char **ilop, const char **ihip,
                    const char **kp)
{
    bool incl = t->clauses[0].iter.inclusive;
    line("if (%s %s %s) {", lo, incl ? "<=" : "<", hi);
    F->ind++;
    const char *last = incl ? hi : arena_printf("%s - 1", hi);
    const char *go = new_temp(), *ilo = *ilop = new_temp(), *ihi = *ihip = new_temp(), *k = kp ? *kp = new_temp() : NULL;
    struct buf cond = {0};
    bputs(&cond, "1");
    for (int i = 0; i < t->nswap_guards; i++)
        if (outer_guard(&t->swap_guards[i]))
            bprintf(&cond, " && %s", swap_guard_test(&t->swap_guards[i], lo, last, NULL, NULL));
    if (k) line("int64_t %s = 0, %s = 0, %s = %s;", ilo, ihi, k, lo);
    else line("int64_t %s = 0, %s = 0;", ilo, ihi);
    line("int %s = %s;", go, cond.p);
    cond.len = 0;
    line("if (%s) {", go);
    F->ind++;
    inner_bounds(t->kids[0], t->kids[1], ilo, ihi);
    const char *ilast = t->iter.inclusive ? ihi : arena_printf("%s - 1", ihi);
    /* an empty inner range, or the inner loop's guards and the rows' */
    bprintf(&cond, "%s %s %s || (1", ilo, t->iter.inclusive ? ">" : ">=", ihi);
    for (int i = 0; i < t->nguards; i++)
        if (nest_needs(&t->guards[i]))
            bprintf(&cond, " && %s", span_test(ilo, ilast, t->guards[i].off, vname(t->guards[i].arr)));
    for (int i = 0; i < t->nswap_guards; i++)
        if (!outer_guard(&t->swap_guards[i]))
            bprintf(&cond, " && %s", swap_guard_test(&t->swap_guards[i], lo, last, ilo, ilast));
    bputs(&cond, ")");
    line("%s = %s;", go, cond.p);
    free(cond.p);
    F->ind--;
    line("}");
    return go;
}

/* A versioned loop (opt_version.c): if its guard test holds, the fast copy,
 * else the loop as written. A range loop's bounds are evaluated once, for
 * the test and the copy that runs (ir_verify: the copies' bounds are the
 * test's), then its views open; a while loop's views open first, then its
 * bound and step, which only the test reads: every index over j0 .. n
 * (n - 1 for <) in its array, the step not negative and n + step fitting.
 * A nest (guards_outside): the outer bounds, its views, then the inner
 * bounds and the test; the inner loop of
 * the nest that runs evaluates its own bounds again, as written. A
 * swapped nest (swapped): the outer bounds, its views, then emit_swapped.
 * A fused loop's else-branch is the loops it fuses, each its own bounds. */
/* A growth test's trips (opt_growth.c) in C: + - * tested for overflow into
 * bad, max(x, 0), literals, variables, len of variables. */
static const char *trips_c(struct ir_node *e, const char *bad)
{
    if (e->op == IR_BUILTIN && e->builtin == BI_MAX2)
        return arena_printf("bp_pos(%s)", trips_c(e->kids[0], bad));
    if (e->op == IR_BUILTIN) return arena_printf("%s->len", vname(e->kids[0]->var)); /* len of a variable */
    return base_c(e, bad);
}

/* A nest of bounded growth (opt_growth.c): c0 + d * trips + u fits, and
 * every element of the arrays made before the nest at most INT64_MAX - u
 * - d * trips (scanned once, here); then the nest with those adds
 * unchecked, else as written. */
static void emit_growth(struct ir_node *s)
{
    struct ir_growth *g = s->a->growth;
    const char *bad = new_temp(), *lim = new_temp();
    line("int %s = 0;", bad);
    scope_open();
    const char *trips = g->trips ? trips_c(g->trips, bad) : "0";
    line("int64_t %s = bp_growth_lim(%s, %" PRId64 "LL, %" PRId64 "LL, %" PRId64 "LL, &%s);", lim, trips, g->d, g->u,
         g->c0, bad);
    scope_close();
    struct buf cond = {0};
    bprintf(&cond, "!%s", bad);
    for (int i = 0; i < g->nscan; i++)
        bprintf(&cond, " && %s(%s, %s)", g->scan[i]->type->elem == ty_int ? "bp_max_le" : "bp_rows_max_le",
                vname(g->scan[i]), lim);
    line("if (bp_opaque(%s)) {", cond.p);
    free(cond.p);
    F->ind++;
    emit_stmt(s->b);
    F->ind--;
    line("} else {");
    F->ind++;
    emit_stmt(s->c);
    F->ind--;
    line("}");
}

void emit_versioned(struct ir_node *s)
{
    struct ir_node *t = s->a;
    if (t->growth) {
        emit_growth(s);
        return;
    }
    int rowmins = open_rowmins(s), views;
    const char *lo, *hi, *step = NULL, *v = NULL;
    struct buf cond = {0};
    if (s->b->op == IR_FOR_ARRAY) {
        /* range(lo, hi, step)'s n values (brt_range_step_count: its panics), the
         * guards over the least and the greatest, the first and the last */
        struct ir_node *r = t->kids[0];
        scope_open();
        lo = tmp(ty_int, "%s", emit_expr(r->kids[0]));
        const char *end = emit_expr(r->kids[1]);
        step = tmp(ty_int, "%s", emit_expr(r->kids[2]));
        hi = tmp(ty_int, "brt_range_step_count(%s, %s, %s, %s)", lo, end, step, loc_ref(r->loc));
        scope_close();
        views = open_views(s);
        v = declare_var(t->var, VS_BORROWED);
        const char *last = tmp(ty_int, "(int64_t)((uint64_t)%s + (uint64_t)(%s - 1) * (uint64_t)%s)", lo, hi, step);
        const char *a = tmp(ty_int, "%s > 0 ? %s : %s", step, lo, last);
        const char *z = tmp(ty_int, "%s > 0 ? %s : %s", step, last, lo);
        bprintf(&cond, "%s <= 0", hi);
        for (int i = 0; i < t->nguards; i++)
            bprintf(&cond, " %s %s", i ? guard_join(i) : "|| (", loop_guard_test(&t->guards[i], a, z, z, true));
        bputs(&cond, ")");
    } else if (t->ind_var) {
        views = open_views(s);
        scope_open();
        lo = vname(t->ind_var);
        hi = tmp(ty_int, "%s", emit_expr(t->kids[0]));
        const char *st = tmp(ty_int, "%s", emit_expr(t->kids[1]));
        scope_close();
        const char *last = t->ind_inclusive ? hi : arena_printf("(%s - 1)", hi);
        bprintf(&cond, "%s %s %s || (%s >= 0 && %s <= INT64_MAX - %s", lo, t->ind_inclusive ? ">" : ">=", hi, st,
                last, st);
        for (int i = 0; i < t->nguards; i++)
            bprintf(&cond, " %s %s", guard_join(i), loop_guard_test(&t->guards[i], lo, last, hi, t->ind_inclusive));
        bputs(&cond, ")");
    } else {
        struct ir_node **b = t->nclauses ? (struct ir_node *[]){t->clauses[0].iter.lo, t->clauses[0].iter.hi} : t->kids;
        scope_open();
        lo = tmp(b[0]->type, "%s", emit_expr(b[0]));
        hi = tmp(b[1]->type, "%s", emit_expr(b[1]));
        scope_close();
        views = open_views(s);
        if (t->swapped || t->jammed) {
            if (t->swapped) emit_swapped(s, lo, hi);
            else emit_jammed(s, lo, hi);
            close_views(views);
            close_rowmins(rowmins);
            return;
        }
        if (t->nclauses) {
            const char *ilo, *ihi;
            cond = nest_guard_cond(t, lo, hi, &ilo, &ihi);
            if (t->par)
                bprintf(&cond, " && !brt_par_for_splits(%s, %s, %" PRId64 "LL)", ilo, ihi,
                        ir_par_least(ir_guards_outside_of(s->c)->b));
        } else if (t->rows_only) {
            cond = rows_only_cond(t, lo, hi);
        } else if (t->narrow_flag) {
            cond = narrow_cond(t, lo, hi);
        } else {
            cond = range_guard_cond(t, lo, hi, false);
        }
    }
    /* a rows_only test runs at each entry of a nest's inner loop: likely,
     * else gcc laid the copy as written (every check) across the path to
     * the fast one (stencil3/accum_main 25.2 -> 23.7 ms) */
    line(t->rows_only ? "if (BRT_LIKELY(%s)) {" : "if (%s) {", cond.p);
    free(cond.p);
    for (int version = 0; version < 2; version++) {
        struct ir_node *copy = version ? s->c : s->b;
        F->ind++;
        if (!version && copy->op == IR_BLOCK) { /* what runs before the fast copy (opt_version.c: first_reads) */
            for (int i = 0; i + 1 < copy->nkids; i++) emit_stmt(copy->kids[i]);
            copy = copy->kids[copy->nkids - 1];
        }
        if (copy->op == IR_WHILE) while_loop(copy);
        else if (copy->op == IR_FOR_ARRAY) values_loop(copy, v, hi, lo, step);
        else if (version == 0 && t->nclauses && copy->par) emit_stmt(copy); /* on the pool, its chunk the nest */
        else if (version == 0 && t->nclauses) restrict_nest(copy, lo, hi);
        else if (copy->op == IR_BLOCK) emit_stmt(copy); /* a fused loop's: the loops as written (opt_fuseloops.c) */
        else range_loop(copy, lo, hi);
        F->ind--;
        line(version == 0 ? "} else {" : "}");
    }
    close_views(views);
    close_rowmins(rowmins);
}
