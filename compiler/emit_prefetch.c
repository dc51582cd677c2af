/*
 * emit_prefetch.c: the loops opt_prefetch.c marked, as C: a scatter loop
 * over a long stream (counts[b] += 1) asking for its elements ahead.
 *
 * opt_prefetch.c writes such a loop twice, behind if [runs long]: the copy
 * that prefetches, and the loop as written (the emitter prints each with
 * its writer, range_loop_one or snap_loop in emit_loops.c). The prefetching
 * copy of a small body runs in blocks of PF_BLOCK iterations, one prefetch
 * per 64 bytes of a block's elements, then the loop as written from where
 * the blocks stopped (pf_blocks); a large body's asks for each element at
 * the top of each iteration (range_head, snap_loop). A prefetch reads
 * nothing into the program and never faults: the iterations, their order
 * and their checks are the program's.
 */
#include "emit_c.h"

#include <stdint.h>

/* The data of stream a of a prefetching loop (opt_prefetch.c): its view's
 * local where the loop has one, else read from the array (which the body
 * does not write), a load an iteration the view saves. */
const char *stream_data(struct ir_var *a)
{
    const struct view *w = view_of_var(a);
    const char *ct = ctype(a->type->elem);
    return w ? arena_printf("(const %s *)%s", ct, w->data) : arena_printf("(const %s *)%s->data", ct, vname(a));
}

/* The prefetching copy in blocks of PF_BLOCK iterations, unrolled, each
 * asking once for its elements' lines: one prefetch an element was two
 * instructions of a dozen in a scatter loop, more than the window could
 * spare (histogram clamp_fn 13.7 -> 11.2 ms, the C 11.2; written per
 * element, the blocks' inner loop not unrolled, 17 ms). Its body is small
 * (PF_BLOCK_WORK), unrolled whole. The iterations run in order, each with
 * the body as written; after the blocks the copy as written runs the rest
 * (fewer than PF_BLOCK) from where they stopped, and a break in a block
 * leaves both. */
enum { PF_BLOCK = 8, PF_BLOCK_WORK = 96 };

static bool pf_blocked(const struct ir_node *pf)
{
    return ir_par_work(pf->b) <= PF_BLOCK_WORK;
}

/* Whether statement s breaks out of the loop it is in (a prefetching loop
 * holds no loop: opt_prefetch.c). */
static bool breaks(const struct ir_node *s)
{
    if (!s || ir_is_expr(s)) return false;
    if (s->op == IR_BREAK) return true;
    if (s->op == IR_IF) return breaks(s->b) || breaks(s->c);
    for (int i = 0; s->op == IR_BLOCK && i < s->nkids; i++)
        if (breaks(s->kids[i])) return true;
    return false;
}

/* The blocks of the prefetching copy s from k (declared, lo or 0) to the
 * last whole block before hi (range) or n (snapshot), each iteration k + j;
 * done: the label after the copy as written, where a break goes. */
static void pf_blocks(struct ir_node *s, const struct pf_loop *a, const char *k, const char *done)
{
    const char *end = new_temp(), *j = new_temp();
    bool range = !a->snap, ivdep = false;
    int rows = range ? open_row_locals(s, a->lo, a->hi, &ivdep) : 0;
    if (range) {
        line("if (%s <= %s) {", a->lo, a->hi);
        F->ind++;
        line("const int64_t %s = (int64_t)((uint64_t)%s + (((uint64_t)%s - (uint64_t)%s) & ~(uint64_t)%d));", end,
             a->lo, a->hi, a->lo, PF_BLOCK - 1);
    } else {
        line("const int64_t %s = %s & ~(int64_t)%d;", end, a->n, PF_BLOCK - 1);
    }
    line("while (%s != %s) {", k, end);
    F->ind++;
    /* opt_prefetch.c: the block's elements' lines, BRT_PREFETCH_AHEAD bytes on */
    for (int i = 0; range && i < s->nstreams; i++)
        line("BRT_PREFETCH_LINES(%s + %s, %d);", stream_data(s->streams[i]), k, PF_BLOCK);
    if (!range) line("BRT_PREFETCH_LINES(%s + %s, %d);", a->snap, k, PF_BLOCK);
    /* j counts in a loop of its own: gcc unrolls it whole (k's own
     * increment there left it rolled) */
    if (done) line("int64_t %s;", j);
    line("BP_UNROLL");
    if (ivdep) line("#pragma GCC ivdep");
    line("for (%s%s = 0; %s < %d; %s++) {", done ? "" : "int64_t ", j, j, PF_BLOCK, j);
    F->ind++;
    if (range) {
        line("%s = %s + %s;", declare_var(s->var, VS_OWNED), k, j);
        rows_ahead(s);
        open_row_elems(s);
    } else {
        line("%s = %s[%s + %s];", a->v, a->snap, k, j);
    }
    emit_stmt(s->b);
    if (range) close_row_elems(s);
    F->ind--;
    line("}");
    if (done) line("if (%s < %d) goto %s;", j, PF_BLOCK, done);
    line("%s += %d;", k, PF_BLOCK);
    F->ind--;
    line("}");
    if (range) {
        F->ind--;
        line("}");
    }
    close_row_locals(rows);
}

void pf_runs_long(struct ir_node *s, const char *n, const struct pf_loop *a,
                  void (*one)(struct ir_node *, const struct pf_loop *))
{
    if (pf_blocked(s->b)) {
        struct pf_loop rest = *a;
        const char *k = new_temp(), *done = breaks(s->b->b) ? new_temp() : NULL;
        line("int64_t %s = %s;", k, a->snap ? "0" : a->lo);
        line("if (%s >= BRT_PREFETCH_MIN) {", n);
        F->ind++;
        pf_blocks(s->b, a, k, done);
        F->ind--;
        line("}");
        rest.from = k;
        if (!a->snap) rest.lo = k;
        one(s->c, &rest);
        if (done) line("%s: ;", done);
        return;
    }
    line("if (%s >= BRT_PREFETCH_MIN) {", n);
    F->ind++;
    one(s->b, a);
    F->ind--;
    line("} else {");
    F->ind++;
    one(s->c, a);
    F->ind--;
    line("}");
}
