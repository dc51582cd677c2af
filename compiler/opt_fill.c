/*
 * opt_fill.c: a range loop that pushes one value per iteration into an
 * array empty when it starts fills the array by index instead:
 *
 *     var out = []                     var out = []
 *     ...                              ...
 *     for i in lo..hi:           =>    let small = 0 <= lo and lo < hi and hi - lo <= ROOM
 *         S                            if small:
 *         out.push(E)                      out = [D] * (hi - lo)
 *                                          for i in lo..hi:
 *                                              S
 *                                              out[i - lo] = E
 *                                      else:
 *                                          (the loop as written)
 *
 * when the push is the body's last statement (or that of a last statement
 * that is a block: a row comploop wrote as loops before it), nothing else
 * in the body (S, E) or between the `var out = []` and the loop names out,
 * and the body
 * has no return and no break or continue of the loop (each iteration ends
 * at its push: iteration i's value is element i - lo). lo and hi are
 * literals, variables or len of a variable (ir_repeatable:
 * evaluated again, the same values, no panic); the element type int,
 * float, bool (D: values not yet set, brt_arr_unset) or an array (D: []).
 * `out = []` assigned, not declared, is the same start. A loop `for x in
 * xs` over an array variable xs that the body does not change is the loop
 * `for k in 0..len(xs): let x = xs[k]; ...` (the same elements in the same
 * order, each read below the length: no panic) and is filled the same way.
 *
 * Why it keeps the program's meaning: the iterations run in the same order
 * and store what they pushed, where the push put it, so after the loop out
 * is the same array. A panic in iteration i ends the program with out
 * unread (its later slots not set). As in comploop, the array is allocated
 * before the first iteration only when the count fits in the room a
 * comprehension makes first (ROOM elements: 16 MiB), else the loop runs as
 * written, growing out as it goes.
 *
 * Bounds may be sums of those (ir_repeatable_sum: `1..n - 1`). After the
 * empty starts are taken (fill_block), a loop pushing into an array not
 * known to be empty (`var h = [g[0]]`, `var out = xs`, an array an outer
 * loop keeps growing) is filled the same way (grow_block): `let off =
 * len(out) - lo`, out grown in place by hi - lo slots not yet set
 * (M_GROW_UNSET, brt_arr_grow_unset: one reserve, no [D] * (hi - lo) made
 * and copied; null rows; a shared array copied first, as the push would)
 * and `out[i + off] = E`, the slots its pushes fill.
 *
 * The body may read what the loop pushed before (reads_kept): out[i + c],
 * out[len(out) + c], out[c] and len(out), nothing else naming out. As
 * written, iteration i's push finds len(out) = len0 + i - lo (len0 the
 * length before the loop): len(out) in the body is the iteration's slot
 * (relen), and the small test also holds when every read lies below that
 * length in every iteration (kept_test), so no grown slot is read before
 * its store; else the loop runs as written and panics as written. With an
 * array literal of n elements making out before the loop and lo a literal,
 * the test is made here and the slot is i + (n - lo): a store at a literal
 * offset, whose read one iteration later opt_carry.c keeps in a local.
 * The push may also end each branch of a last if-else (last_pushes: each
 * path through the body ends at one push, so every iteration pushes once,
 * last); each is the same store.
 *
 * Why: a push per element calls the runtime and grows the array; a store is
 * one instruction that the later passes make check-free (unique, loops,
 * range), and a loop storing into its own slot i runs on the pool (parfor):
 * rows built by pushing run as the comprehension that builds them does.
 */
#include "ir.h"

#include <string.h>

static struct ir_program *P;

/* (ir.h) */
bool ir_leaves(struct ir_node *s, int depth)
{
    if (!s || ir_is_expr(s)) return false;
    switch (s->sop) {
    case IR_RETURN: return true;
    case IR_BREAK: case IR_CONTINUE: return depth == 0;
    case IR_WHILE: case IR_FOR_RANGE: case IR_FOR_ARRAY: return ir_leaves(s->b, depth + 1);
    case IR_IF: return ir_leaves(s->b, depth) || ir_leaves(s->c, depth);
    case IR_BLOCK:
        for (int i = 0; i < s->nkids; i++)
            if (ir_leaves(s->kids[i], depth)) return true;
        return false;
    case IR_LET: case IR_ASSIGN: case IR_STORE: case IR_PUSH: case IR_EXPR: case IR_UNIQUE: case IR_UNREACHABLE:
        return false;
    }
    return false;
}

/* `for v in xs: B` (xs a variable B does not change, so xs is the array
 * the loop walks) as `for k in 0..len(xs): let v = xs[k]; B`: the same
 * elements in the same order, each read below the length (no panic). */
static struct ir_node *by_index(struct ir_node *l)
{
    struct loc at = l->loc;
    struct ir_node *xs = l->iter.array;
    struct ir_var *k = ir_new_temp(P, ty_int, at);
    struct ir_node *len = ir_mk_len(ir_copy(NULL, xs));
    struct ir_node *elem = ir_new(IR_INDEX, at, l->var->type);
    elem->a = ir_copy(NULL, xs);
    elem->b = ir_mk_var(k, at);
    struct ir_node *body = ir_new(IR_BLOCK, at, ty_void);
    ir_push_kid(body, ir_mk_stmt(IR_LET, l->var, elem, at));
    for (int i = 0; i < l->b->nkids; i++) ir_push_kid(body, l->b->kids[i]);
    struct ir_node *r = ir_new(IR_FOR_RANGE, at, ty_void);
    r->var = k;
    r->iter.is_range = true;
    r->iter.lo = ir_mk_int(0, at);
    r->iter.hi = len;
    r->b = body;
    return r;
}

/* The slots of the statements each iteration of a loop whose body is
 * block b ends with: the last statement, looked for in a last statement
 * that is a block (a comprehension comploop wrote as a loop before the
 * push that reads it) or in both branches of a last if-else (each path
 * through the body ends at one of them). False when there are more than
 * MAX_ENDS or an empty block ends a path. */
enum { MAX_ENDS = 8 };
static bool ends_of(struct ir_node **slot, struct ir_node ***ends, int *n)
{
    struct ir_node *s = *slot;
    if (!s) return false;
    if (s->op == IR_BLOCK) return s->nkids && ends_of(&s->kids[s->nkids - 1], ends, n);
    if (s->op == IR_IF && s->c) return ends_of(&s->b, ends, n) && ends_of(&s->c, ends, n); /* elif: an if */
    if (*n == MAX_ENDS) return false;
    ends[(*n)++] = slot;
    return true;
}

static bool last_stmts(struct ir_node *b, struct ir_node ***ends, int *n)
{
    return b && b->op == IR_BLOCK && ends_of(&b, ends, n);
}

/* The pushes into out that end every iteration of a loop whose body is
 * block b (last_stmts), one per path; how many, 0 if some path ends
 * otherwise. */
static int last_pushes(struct ir_node *b, struct ir_var *out, struct ir_node ***ends)
{
    int n = 0;
    if (!last_stmts(b, ends, &n)) return 0;
    for (int i = 0; i < n; i++)
        if ((*ends[i])->op != IR_PUSH || (*ends[i])->var != out || (*ends[i])->nkids) return 0;
    return n;
}

/* The reads of out that a loop growing it keeps (reads_kept): out[i + c]
 * (i the loop's variable), out[len(out) + c], out[c] (each c a small
 * literal), and len(out); the least and most c of each kind. */
enum { R_VAR, R_LEN, R_LIT, R_KINDS };
struct kept {
    struct ir_var *out, *i;
    int n;                      /* the mentions of out they make */
    bool any[R_KINDS];
    int64_t least[R_KINDS], most[R_KINDS];
};
static struct kept *K;

#define SMALL ((int64_t)1 << 31)

/* n as len(out) plus or minus literals: the sum of them in *c. */
static bool len_plus(const struct ir_node *n, const struct ir_var *out, int64_t *c)
{
    if (n->op == IR_BUILTIN && n->builtin == BI_LEN && n->nkids == 1 && n->kids[0]->op == IR_VAR && n->kids[0]->var == out)
        return *c = 0, true;
    if (n->op != IR_BINARY || n->optype != ty_int || (n->bop != OP_ADD && n->bop != OP_SUB)) return false;
    const struct ir_node *a = n->a, *k = n->b;
    if (n->bop == OP_ADD && a->op == IR_INT) a = n->b, k = n->a;
    if (k->op != IR_INT || !len_plus(a, out, c)) return false;
    int64_t v = (int64_t)(uint64_t)k->ival;
    if (v <= -SMALL || v >= SMALL) return false;
    *c += n->bop == OP_SUB ? -v : v;
    return *c > -SMALL && *c < SMALL;
}

static void note(int kind, int64_t c)
{
    if (!K->any[kind] || c < K->least[kind]) K->least[kind] = c;
    if (!K->any[kind] || c > K->most[kind]) K->most[kind] = c;
    K->any[kind] = true;
}

static void count_kept(struct ir_node *n)
{
    if (!n) return;
    struct ir_var *v;
    int64_t c;
    if (n->op == IR_BUILTIN && n->builtin == BI_LEN && n->nkids == 1 && n->kids[0]->op == IR_VAR && n->kids[0]->var == K->out) {
        K->n++;
        return;
    }
    if (n->op == IR_INDEX && n->a->op == IR_VAR && n->a->var == K->out) {
        if (len_plus(n->b, K->out, &c)) note(R_LEN, c);
        else if (ir_var_plus(n->b, &v, &c) && (!v || v == K->i) && c > -SMALL && c < SMALL) note(v ? R_VAR : R_LIT, c);
        else return; /* not counted: out named otherwise */
        K->n++;
        count_kept(n->b);
        return;
    }
    ir_each_child(n, count_kept);
}

/* Whether every mention of out in loop body `body` but its npush pushes
 * ending the iterations (last_pushes) is a read kept (above), noted in *k. */
static bool reads_kept(struct ir_node *body, int npush, struct kept *k)
{
    K = k;
    count_kept(body);
    K = NULL;
    return ir_mentions(body, k->out) == npush + k->n;
}

/* The test that every read kept holds an index below the length out has
 * when it runs, len(out) before the loop (len0) + i - lo in iteration i,
 * lo >= 0 (the room test before it): for i + c, lo + c >= 0 and c < len0 -
 * lo; for len(out) + c, len0 + c >= 0 and c < 0; for c, 0 <= c < len0
 * (the least length, in the first iteration). NULL when no read needs one;
 * *never when one cannot hold. With len0 a literal (known >= 0) and lo
 * one, the test is made here, not written. */
static struct ir_node *kept_test(struct kept *k, struct ir_node *lo, int64_t known, struct loc at, bool *never)
{
    struct ir_node *t = NULL;
    bool lits = known >= 0 && lo->op == IR_INT;
    int64_t l0 = lits ? (int64_t)(uint64_t)lo->ival : 0;
    *never = (k->any[R_LEN] && k->most[R_LEN] >= 0) || (k->any[R_LIT] && k->least[R_LIT] < 0);
    if (*never) return NULL;
    if (lits) {
        *never = (k->any[R_VAR] && (l0 + k->least[R_VAR] < 0 || k->most[R_VAR] >= known - l0)) ||
                 (k->any[R_LEN] && known + k->least[R_LEN] < 0) || (k->any[R_LIT] && k->most[R_LIT] >= known);
        return NULL;
    }
    struct ir_node *len0 = ir_mk_len(ir_mk_var(k->out, at));
    if (k->any[R_VAR]) {
        t = ir_mk_and(t, ir_mk_bin(OP_GE, ir_copy(NULL, lo), ir_mk_int(-k->least[R_VAR], at), ty_bool));
        struct ir_node *off = ir_mk_bin(OP_SUB, ir_copy(NULL, len0), ir_copy(NULL, lo), ty_int);
        t = ir_mk_and(t, ir_mk_bin(OP_GT, off, ir_mk_int(k->most[R_VAR], at), ty_bool));
    }
    if (k->any[R_LEN]) t = ir_mk_and(t, ir_mk_bin(OP_GE, ir_copy(NULL, len0), ir_mk_int(-k->least[R_LEN], at), ty_bool));
    if (k->any[R_LIT]) t = ir_mk_and(t, ir_mk_bin(OP_GT, ir_copy(NULL, len0), ir_mk_int(k->most[R_LIT], at), ty_bool));
    return t;
}

/* len(out) in the filled loop's body: i + off, the length before the
 * iteration's push (the slot it stores). */
static struct ir_var *Len_of;
static struct ir_node *Len_is;

static void relen(struct ir_node *n)
{
    if (!n) return;
    ir_each_child(n, relen);
    if (n->op == IR_BUILTIN && n->builtin == BI_LEN && n->nkids == 1 && n->kids[0]->op == IR_VAR && n->kids[0]->var == Len_of)
        *n = *ir_copy(NULL, Len_is);
}

/* The loop l (in a block, after `var out = []` and statements that do not
 * name out) pushing into out as its body's last statement, as above; NULL
 * when it is not such a loop. A loop over an array variable that its body
 * does not change runs over its index range (by_index). */
static struct ir_node *filled(struct ir_node *l, struct ir_var *out, bool empty, int64_t known)
{
    struct ir_node *body = l->b;
    if (l->par) return NULL;
    if (l->op == IR_FOR_ARRAY) {
        struct ir_node *xs = l->iter.array;
        if (xs->op != IR_VAR || xs->var == out || !body || ir_writes(body, xs->var, true) || ir_mutates(body, xs->var))
            return NULL;
    } else {
        if (l->iter.inclusive || !ir_repeatable_sum(l->iter.lo) || !ir_repeatable_sum(l->iter.hi)) return NULL;
        if (l->iter.lo->op == IR_INT && (__int128)l->iter.lo->ival < 0) return NULL;
        if (ir_names(l->iter.lo, out) || ir_names(l->iter.hi, out)) return NULL;
    }
    struct ir_node **ends[MAX_ENDS];
    int npush = last_pushes(body, out, ends);
    if (!npush || ir_leaves(body, 0) || ir_writes(body, l->var, false)) return NULL;
    struct kept k = {.out = out, .i = l->op == IR_FOR_RANGE ? l->var : NULL};
    if (!reads_kept(body, npush, &k)) return NULL;
    if (empty && (k.any[R_VAR] || k.any[R_LEN] || k.any[R_LIT])) return NULL; /* no element yet to read */

    struct loc at = l->loc;
    bool never;
    struct ir_node *test = kept_test(&k, l->op == IR_FOR_RANGE ? l->iter.lo : ir_mk_int(0, at), empty ? 0 : known, at, &never);
    if (never) return NULL;
    struct ir_node *c = ir_copy_fresh(P, l); /* the fast loop; l stays the slow one */
    if (c->op == IR_FOR_ARRAY) c = by_index(c);
    struct ir_node *lo = c->iter.lo, *hi = c->iter.hi;
    struct ir_node *fast = ir_new(IR_BLOCK, at, ty_void), *slow = ir_new(IR_BLOCK, at, ty_void);
    bool from0 = lo->op == IR_INT && lo->ival == 0;
    /* iteration i's slot: i - lo, or (out not empty) i + off, off = len(out)
     * - lo (a literal when both are) */
    struct ir_node *idx = ir_mk_var(c->var, at);
    if (!empty && known >= 0 && lo->op == IR_INT) {
        int64_t off = known - (int64_t)(uint64_t)lo->ival;
        if (off) idx = ir_mk_bin(OP_ADD, idx, ir_mk_int(off, at), ty_int);
    } else if (!empty) {
        struct ir_var *off = ir_new_temp(P, ty_int, at);
        struct ir_node *base = ir_mk_len(ir_mk_var(out, at));
        ir_push_kid(fast, ir_mk_stmt(IR_LET, off, from0 ? base : ir_mk_bin(OP_SUB, base, ir_copy(NULL, lo), ty_int), at));
        idx = ir_mk_bin(OP_ADD, idx, ir_mk_var(off, at), ty_int);
    } else if (!from0) {
        idx = ir_mk_bin(OP_SUB, idx, ir_copy(NULL, lo), ty_int);
    }
    last_pushes(c->b, out, ends);
    for (int e = 0; e < npush; e++) {
        struct ir_node *store = ir_mk_stmt(IR_STORE, out, (*ends[e])->a, (*ends[e])->loc);
        ir_push_kid(store, ir_copy(NULL, idx));
        *ends[e] = store;
    }
    if (k.n) { /* len(out) in the body: the slot this iteration stores */
        Len_of = out;
        Len_is = idx;
        relen(c->b);
        Len_of = NULL;
        Len_is = NULL;
    }

    struct ir_node *res = ir_new(IR_BLOCK, l->loc, ty_void);
    struct ir_var *small = ir_new_temp(P, ty_bool, at);
    ir_push_kid(res, ir_mk_stmt(IR_LET, small, ir_mk_and(ir_fits_room(lo, hi, at), test), at));
    /* [D] * (hi - lo): scalars unset, each stored before it is read; out
     * is that array (empty before), or grows by it (rows unset too: null,
     * which extend and the stores' releases pass over, where one shared
     * empty row's count would be a line every thread on the pool writes) */
    struct ir_node *n = ir_mk_bin(OP_SUB, ir_copy(NULL, hi), ir_copy(NULL, lo), ty_int);
    if (empty) {
        struct ir_node *init;
        if (out->type->elem->kind == T_ARRAY) {
            struct ir_node *one = ir_new(IR_ARRAY, at, out->type);
            ir_push_kid(one, ir_new(IR_ARRAY, at, out->type->elem));
            init = ir_mk_bin(OP_MUL, one, n, out->type);
        } else {
            init = ir_new(IR_BUILTIN, at, out->type);
            init->builtin = BI_UNSET;
            ir_push_kid(init, n);
        }
        ir_push_kid(fast, ir_mk_stmt(IR_ASSIGN, out, init, at));
    } else {
        /* grown in place: one reserve, no [D] * n made and copied */
        struct ir_node *grow = ir_new(IR_BUILTIN, at, ty_void);
        grow->builtin = M_GROW_UNSET;
        ir_push_kid(grow, ir_mk_var(out, at));
        ir_push_kid(grow, n);
        ir_push_kid(fast, ir_mk_stmt(IR_EXPR, NULL, grow, at));
    }
    ir_push_kid(fast, c);
    ir_push_kid(slow, l);
    struct ir_node *sw = ir_new(IR_IF, at, ty_void);
    sw->a = ir_mk_var(small, at);
    sw->b = fast;
    sw->c = slow;
    ir_push_kid(res, sw);
    return res;
}

static bool elem_taken(struct type *t)
{
    return t->kind == T_ARRAY && (t->elem == ty_int || t->elem == ty_float || t->elem == ty_bool || t->elem->kind == T_ARRAY);
}


/* The statement *sp, after `var out = []` and statements that do not name
 * out: a loop filling out is replaced by its filled form; a block is looked
 * into (a scope: its statements run in order, after the ones before it, as
 * the loop over enumerate or zip that iters wraps in one). True when *sp or
 * a statement in it names out (the search ends there). */
static bool fill_first(struct ir_node **sp, struct ir_var *out)
{
    struct ir_node *l = *sp;
    if (l->op == IR_BLOCK) {
        for (int k = 0; k < l->nkids; k++)
            if (fill_first(&l->kids[k], out)) return true;
        return false;
    }
    struct ir_node *r = l->op == IR_FOR_RANGE || l->op == IR_FOR_ARRAY ? filled(l, out, true, 0) : NULL;
    if (r) *sp = r;
    return r || ir_names(l, out);
}

/* The array a loop's body pushes into as its last statement, or those of
 * both branches of a last if-else (filled then checks that each path ends
 * with such a push and nothing else in the body names it but the reads it
 * keeps); NULL if none. */
static struct ir_var *pushed(struct ir_node *l)
{
    struct ir_node **ends[MAX_ENDS];
    int n = 0;
    if ((l->op != IR_FOR_RANGE && l->op != IR_FOR_ARRAY) || !last_stmts(l->b, ends, &n)) return NULL;
    struct ir_node *push = *ends[0];
    return push->op == IR_PUSH && elem_taken(push->var->type) ? push->var : NULL;
}

/* The loops of block b, inner ones first, then each `var out = []` of b
 * followed by a loop filling out. */
static void fill_block(struct ir_node *b)
{
    for (int i = 0; i < b->nkids; i++) ir_stmt_blocks(b->kids[i], fill_block);
    for (int i = 0; i < b->nkids; i++) {
        struct ir_node *s = b->kids[i];
        if ((s->op != IR_LET && s->op != IR_ASSIGN) || !s->a || s->a->op != IR_ARRAY || s->a->nkids || !elem_taken(s->var->type))
            continue;
        for (int j = i + 1; j < b->nkids; j++)
            if (fill_first(&b->kids[j], s->var)) break;
    }
}

/* Whether s is `if small: (out made or grown; the loop storing) else: (the
 * loop as written)` that filled wrote: its count does not fit the room
 * when the second branch runs. */
static bool fill_switch(struct ir_node *s)
{
    if (s->op != IR_IF || s->a->op != IR_VAR || !s->c || s->c->op != IR_BLOCK || s->c->nkids != 1) return false;
    struct ir_var *out = pushed(s->c->kids[0]);
    if (!out || !s->b || s->b->op != IR_BLOCK || !s->b->nkids) return false;
    struct ir_node *first = s->b->kids[0];
    if (first->op == IR_LET) first = s->b->nkids > 1 ? s->b->kids[1] : first; /* off = len(out) - lo */
    return (first->op == IR_ASSIGN && first->var == out) ||
           (first->op == IR_EXPR && first->a->op == IR_BUILTIN && first->a->builtin == M_GROW_UNSET &&
            first->a->kids[0]->op == IR_VAR && first->a->kids[0]->var == out);
}

/* The length out has where statement i of block b starts, when a
 * statement before it in b makes out an array literal and none between
 * names out; else -1. */
static int64_t start_length(struct ir_node *b, int i, struct ir_var *out)
{
    while (--i >= 0) {
        struct ir_node *s = b->kids[i];
        if ((s->op == IR_LET || s->op == IR_ASSIGN) && s->var == out)
            return s->a->op == IR_ARRAY && !ir_names(s->a, out) ? s->a->nkids : -1;
        if (ir_names(s, out)) return -1;
    }
    return -1;
}

/* After fill_block: each loop of block b, inner ones first, pushing into
 * an array not known to be empty when it starts: it grows the array by
 * its count first and stores at len(out) before it + i - lo. */
static void grow_block(struct ir_node *b)
{
    for (int i = 0; i < b->nkids; i++) {
        if (fill_switch(b->kids[i])) grow_block(b->kids[i]->b); /* the loop as written stays so */
        else ir_stmt_blocks(b->kids[i], grow_block);
    }
    for (int i = 0; i < b->nkids; i++) {
        struct ir_var *out = pushed(b->kids[i]);
        struct ir_node *r = out ? filled(b->kids[i], out, false, start_length(b, i, out)) : NULL;
        if (r) b->kids[i] = r;
    }
}

void opt_fill(struct ir_program *ir)
{
    P = ir;
    ir_scan_loops(ir);
    for (int i = 0; i < ir->fns.len; i++) fill_block(((struct ir_fn *)ir->fns.items[i])->body);
    for (int i = 0; i < ir->fns.len; i++) grow_block(((struct ir_fn *)ir->fns.items[i])->body);

    P = NULL;
}
