/*
 * opt_prefetch.c: the arrays a scatter loop streams through, read ahead.
 *
 *     for x in xs:                      for x in xs:         prefetch[xs]
 *         let b = min(int(x * f), m)        (the same body)
 *         counts[b] += 1
 *
 * A loop whose body stores at an index it computes (a histogram's
 * counts[b] += 1, h[b] += w[i]) is one gcc cannot vectorize: it runs one
 * element at a time, a dozen instructions or more each (the conversion and
 * its check, a clamp, the bounds check, the read-modify-write). Its loads
 * of the element stream then find too few of the stream's cache lines in
 * flight: the processor's window holds some 20 to 50 elements'
 * instructions, 3 to 6 lines, and the hardware prefetcher of the machines
 * measured runs no further ahead, so each line waits for memory (a stream
 * of 24 instructions an element, 4 * 10^6 doubles five times: 77 ms over
 * 32 MB, 24 ms over 32 KB in cache, 23 ms over 32 MB with a prefetch 2 KB
 * ahead, 38 with one 512 bytes ahead). The emitter writes a software
 * prefetch BRT_PREFETCH_AHEAD bytes past the elements (BRT_PREFETCH,
 * runtime/brine_rt.h): clamp_fn 90 -> 22 ms portable. Where the body is
 * small it runs the loop in blocks of 8 iterations, unrolled, one prefetch
 * per block's 64 bytes (emit_prefetch.c pf_blocks: clamp_fn 13.7 -> 11.2 ms
 * native, the C 11.2), else one per iteration.
 *
 * The loops marked: innermost sequential range loops and array loops
 * (no loop or generator inside, not on the pool, not part of a swapped or
 * jammed nest) whose body stores a scalar into an array at an index it
 * computes: not the loop's variable, a value the loop does not change, or
 * a sum of them (regular); in a row of rows, any of its indices (a 2-D
 * histogram's counts[i][j] += 1: scatter). Their streams: for x in xs, the snapshot xs; for i in
 * lo..hi, each array variable of scalars read as a[i] in the body outside
 * any condition, which the body does not write: the emitter reads its
 * data pointer at the top of each iteration, which the iteration reads
 * anyway (a prefetch itself never faults, wherever it points).
 *
 * Why it keeps the program's meaning: a prefetch reads nothing into the
 * program and changes no value; the statements run as written, in the
 * same order, with every check (the panics are the program's).
 *
 * The pass runs last, on the loops the emitter writes (each version's),
 * and writes each loop it marks twice, as the if that runs the copy
 * prefetching only where the loop runs long (write_twice, below).
 */
#include "ir.h"

#include <stdlib.h>

static struct ir_node *pf_loop;  /* the loop being looked at */
static bool pf_inner, pf_scatter; /* a loop inside it; a store at a computed index */
enum { MAX_LETS = 64 };
static struct ir_node *pf_lets[MAX_LETS]; /* the lets in its body (the first MAX_LETS) */
static int pf_nlets;

/* Whether t is an array whose elements are plain scalars (no references). */
static bool scalar_array(const struct type *t)
{
    return t->kind == T_ARRAY && !type_is_ref(t->elem);
}

/* Collects the body's lets. */
static void lets(struct ir_node *n)
{
    if (!n) return;
    if (n->op == IR_LET && pf_nlets < MAX_LETS) pf_lets[pf_nlets++] = n;
    ir_each_child(n, lets);
}

/* Whether index e follows the loop or stays: a literal, the loop's variable,
 * a variable the body neither defines nor assigns, a let of such a value,
 * or a sum or difference of them (ys[i] += v is stored at a let of i). */
static bool regular(const struct ir_node *e, int depth)
{
    if (depth > 8) return false;
    switch (e->op) {
    case IR_INT: return true;
    case IR_BINARY: return (e->bop == OP_ADD || e->bop == OP_SUB) && regular(e->a, depth + 1) && regular(e->b, depth + 1);
    case IR_VAR:
        if (e->var == pf_loop->var) return true;
        for (int i = 0; i < pf_nlets; i++)
            if (pf_lets[i]->var == e->var) return regular(pf_lets[i]->a, depth + 1);
        return pf_nlets < MAX_LETS && !ir_writes(pf_loop->b, e->var, false);
    default: return false;
    }
}

/* Whether store n writes a scalar at an index it computes: a[b] = v, or
 * in a row of rows at any level, g[i][j] = v (a 2-D histogram's counts). */
static bool scatter(const struct ir_node *n)
{
    struct type *t = n->var->type;
    bool computed = false;
    for (int i = 0; i < n->nkids; i++) {
        if (t->kind != T_ARRAY || n->kids[i]->op == IR_FIELD) return false;
        computed |= !regular(n->kids[i], 0);
        t = t->elem;
    }
    return computed && !type_is_ref(t);
}

/* Looks through the body for loops and scatter stores. */
static void scan(struct ir_node *n)
{
    if (!n) return;
    switch (n->op) {
    case IR_FOR_RANGE: case IR_FOR_ARRAY: case IR_WHILE: case IR_REDUCE: case IR_LISTCOMP:
        pf_inner = true;
        return;
    case IR_STORE:
        if (scatter(n)) pf_scatter = true;
        break;
    default: break;
    }
    ir_each_child(n, scan);
}

/* Adds the arrays read as a[i] (i the loop's variable) outside conditions. */
static void streams(struct ir_node *n)
{
    if (!n) return;
    switch (n->op) {
    case IR_IF: case IR_COND: case IR_AND: case IR_OR: case IR_WHILE:
        return;
    case IR_INDEX:
        if (n->a->op == IR_VAR && !n->a->moved && scalar_array(n->a->type) && n->b->op == IR_VAR &&
            n->b->var == pf_loop->var && !ir_writes(pf_loop->b, n->a->var, true)) {
            bool seen = false;
            for (int i = 0; i < pf_loop->nstreams; i++) seen |= pf_loop->streams[i] == n->a->var;
            if (!seen) {
                pf_loop->streams = xrealloc(pf_loop->streams, (size_t)(pf_loop->nstreams + 1) * sizeof *pf_loop->streams);
                pf_loop->streams[pf_loop->nstreams++] = n->a->var;
            }
        }
        break;
    default: break;
    }
    ir_each_child(n, streams);
}

static void prefetch_node(struct ir_node *n)
{
    if (!n) return;
    ir_each_child(n, prefetch_node);
    bool range = n->op == IR_FOR_RANGE && !n->par && n->iter.lo->type == ty_int;
    bool array = n->op == IR_FOR_ARRAY && !ir_range_values(n) && scalar_array(n->iter.array->type);
    if (!(range || array) || n->swap || n->jam || n->nslots || n->guards_outside) return;
    pf_loop = n, pf_inner = pf_scatter = false, pf_nlets = 0;
    lets(n->b);
    scan(n->b);
    if (pf_inner || !pf_scatter) return;
    if (array) n->prefetch = true;
    else streams(n->b);
    if (n->nstreams) n->prefetch = true;
}

/* ---- the loops marked, written twice ----
 *
 *     for i in lo..hi: body         if [runs long](lo, hi):
 *     (marked prefetch[a])     =>       for i in lo..hi prefetch[a]: body
 *                                   else:
 *                                       for i in lo..hi: body
 *
 * A marked loop prefetches when it runs BRT_PREFETCH_MIN times or more
 * (runtime/brine_rt.h: a stream too long to stay in cache between runs),
 * else runs as written: over a short array in cache the prefetch's two
 * instructions an element only cost. The count of a range loop is
 * (uint64_t)hi - (uint64_t)lo (hi < lo: a count past any limit, and a loop
 * that runs no time), of an array loop (xs: [runs long](xs)) its
 * snapshot's length. The test reads the loop's own bound nodes, which the
 * emitter evaluates once, for it and the copy that runs (as a versioned
 * loop's: ir_verify keeps them the same nodes). The loop itself stays the
 * loop as written (what names it still does), its copy is new and shares
 * its body, as the emitter wrote one loop twice. A loop in two places (the
 * copies of a versioned loop share what they do not change) gets one if. */
static struct twice { struct ir_node *loop, *iff; } *TWICE; /* the loops written twice, and their ifs */
static int NTWICE, CAPTWICE;

/* Loop n's if, made once (NULL: n is no marked loop). The test hook
 * (BRINE_VERIFY_PREFETCH): the first marked loop left as it is, prefetching
 * outside such an if (as the emitter once wrote it twice), where ir_verify
 * must stop. */
static struct ir_node *twice(struct ir_node *n)
{
    static bool hooked;
    for (int i = 0; i < NTWICE; i++)
        if (TWICE[i].loop == n) return TWICE[i].iff;
    if (!n->prefetch || (n->op == IR_FOR_RANGE && !n->nstreams)) return NULL;
    if (!hooked && getenv("BRINE_VERIFY_PREFETCH")) {
        hooked = true;
        return NULL;
    }
    struct loc at = n->loc;
    struct ir_node *pf = ir_new(n->op, at, n->type), *t = ir_new(IR_BUILTIN, at, ty_bool), *iff = ir_new(IR_IF, at, ty_void);
    *pf = *n;
    n->prefetch = false, n->streams = NULL, n->nstreams = 0;
    t->builtin = BI_RUNS_LONG;
    if (n->op == IR_FOR_RANGE) {
        ir_push_kid(t, n->iter.lo);
        ir_push_kid(t, n->iter.hi);
    } else {
        ir_push_kid(t, n->iter.array);
    }
    iff->a = t, iff->b = pf, iff->c = n;
    VEC_GROW(TWICE, NTWICE, CAPTWICE);
    TWICE[NTWICE++] = (struct twice){n, iff};
    return iff;
}

/* The statement in *slot (anything in it), its marked loops written twice. */
static void write_twice(struct ir_node **slot)
{
    struct ir_node *s = *slot, *iff;
    if (!s || ir_is_expr(s)) return;
    switch (s->sop) {
    case IR_BLOCK:
        for (int i = 0; i < s->nkids; i++) write_twice(&s->kids[i]);
        return;
    case IR_IF:
        if (ir_runs_long_if(s)) return;
        write_twice(&s->b);
        write_twice(&s->c);
        return;
    case IR_FOR_RANGE: case IR_FOR_ARRAY:
        if ((iff = twice(s))) {
            *slot = iff;
            return;
        }
        write_twice(&s->chunk);
        /* fall through */
    case IR_WHILE:
        write_twice(&s->b);
        return;
    case IR_LET: case IR_ASSIGN: case IR_STORE: case IR_PUSH: case IR_UNIQUE: case IR_EXPR: case IR_RETURN:
    case IR_BREAK: case IR_CONTINUE: case IR_UNREACHABLE:
        return;
    }
}

void opt_prefetch(struct ir_program *ir)
{
    NTWICE = 0;
    for (int i = 0; i < ir->fns.len; i++) {
        struct ir_fn *fn = ir->fns.items[i];
        prefetch_node(fn->body);
        write_twice(&fn->body);
    }
}
