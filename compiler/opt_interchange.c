/*
 * opt_interchange.c: a nest of two range loops run in another order, when
 * that provably changes nothing the program can see. Two orders:
 *
 * swap: a nest that walks down the columns of an array of arrays, run with
 * its loops swapped so it walks along the rows;
 *
 *   for j in lo1 .. hi1:                 for i in lo2 .. hi2:
 *       let t = ... j ...        =>          for j in lo1 .. hi1:
 *       for i in lo2 .. hi2:                     let t = ... j ...
 *           y[i] += a[i][j] * t                  y[i] += a[i][j] * t
 *
 * `[[float]]` keeps each row in its own block, so a column is a row header
 * and an element per row; down a column every element is a different block
 * and the hardware prefetcher finds no stride. Swapped, the inner loop reads
 * each row in order, as C's a[i][j] by rows does.
 *
 * jam: any other such nest that stores into an array, run four outer
 * iterations at a time inside one inner loop (unroll and jam, a swap of
 * the inner loop with a strip of four of the outer one):
 *
 *   for k in lo .. hi:                  for k in lo .. hi step 4 (while 4 remain):
 *       let aik = ai[k]                     the lets for k, k + 1, k + 2, k + 3
 *       let bk = b[k]           =>          for j in 0 .. m:
 *       for j in 0 .. m:                        row[j] += aik * bk[j]   (k)
 *           row[j] += aik * bk[j]               ... (k + 1, k + 2, k + 3)
 *                                           then the rest one at a time, as written
 *
 * row[j] is loaded and stored once for four products (C's ikj matmul gets
 * the same from gcc -O3, which cannot see through brine's row blocks), and
 * sums into y[k] become four independent chains. Every element still gets
 * its operations in k order. Lets before the inner loop may here also name
 * a row, `let bk = b[k]`, when opt_borrow made it a borrow (this pass runs
 * after it), or a row the nest does not change, `let u = a[i]` (a helper's
 * parameter written in place: cosine(a[i], a[j])), its index tested before
 * the nest and a stored nowhere in it; an inner bound len(u) is then read
 * once, as len(a[i]), before the lets.
 *
 * The facts it records (ir.h): the outer loop's `swap` (the inner loop),
 * `jam` (the second order instead of the first) and its `swap_guards`, and
 * in_range_by = the outer loop on the indices those guards prove. The
 * version pass (opt_version.c) writes the nest twice: in the new order
 * without any bounds check, taken when every guard holds (tested before),
 * else the nest as written
 * (with its inner loop's own guarded versions; a jammed nest goes on as
 * written from the first group of four whose inner guards fail). Either is
 * recorded only when the new order cannot differ:
 *
 *   - the outer body is pure scalar lets, then the inner loop; the inner
 *     loop's bounds do not change in the nest (literals, constants,
 *     variables the nest does not write, len of an array it does not
 *     change or of its row a[e], e fixed, proved-safe int arithmetic and
 *     min of those; or, a jam only, len of the row a[j + c] the outer
 *     loop walks, a let's or read as such, behind a guard that every such
 *     row has one length: the fast copy reads len(a[lo + c]));
 *   - the inner body is scalar lets, ifs and stores `y[i + c] = v` or
 *     `y[j + c] = v` of arrays made unique before the nest (unique_steps),
 *     or `y[e][i + c] = v` or (a swap only) `y[e][j + c] = v` into one row
 *     y[e], e a literal or a variable the nest does not change (or a let
 *     copying one), the row made unique before the nest too (the textbook
 *     product c[i][j] += ...: that row is the one array stored, read only
 *     at c[e][i + c] or c[e][j + c] as well; at i + c, the inner loop's
 *     guards prove it, as for y[i + c]), and nothing else:
 *     no call, no assignment (no value carried between iterations), no
 *     loop, no output;
 *   - no expression in it can panic: every index is proved in range by a
 *     guard (the inner loop's, over i, or this pass's, over j and over the
 *     rows' lengths), int arithmetic is proved not to overflow (no_overflow)
 *     or cannot (comparisons, bits), float arithmetic never panics, nor do
 *     abs, min, max and the math functions of floats (ir_float_math: sqrt,
 *     exp, ..., values of their arguments alone, as + and * are);
 *   - every stored array is read and written only at y[i + c], one c, or
 *     only at y[j + c]: each value of that loop variable owns one element,
 *     which gets the same operations in the same order (the other
 *     variable ascending) in both orders, so every float has the same
 *     bits. A unique array is no other variable's and no row of another
 *     array, so nothing else in the nest reads it.
 *
 * With no panic possible and no effect but those stores, the orders leave
 * the same state. A swap is taken only where it pays: the inner loop reads
 * some a[i + c][j + d] (a column); a jam where it stores into an array and
 * its body is small (it is written four times).
 */
#include "ir.h"

#include <stdlib.h>
#include <string.h>

#define MAX_SWAP_GUARDS 8
#define MAX_LETS 32
#define MAX_ARRS 16
#define MAX_PROVED 64
#define MAX_JAM_NODES 64 /* the inner body's size, written four times */
#define BIG_OFFSET ((int64_t)1 << 60)

enum { BY_NONE, BY_INNER, BY_OUTER };

/* an array indexed in the nest, and how: a variable's array, or one row of
 * it, arr[row] (row a literal or a variable the nest does not change) */
struct arr_use {
    struct ir_var *arr;
    struct ir_node *row;
    bool stored, odd;          /* odd: read other than at one loop variable + one offset */
    int by;                    /* BY_INNER, BY_OUTER: the variable of its element reads and stores */
    int64_t off;               /* and their one offset */
};

struct nest {
    struct ir_node *outer, *inner;
    struct ir_var *jv, *iv;
    /* lets of the nest that copy a loop variable plus a literal */
    struct ir_var *let_var[MAX_LETS];
    int let_by[MAX_LETS];
    int64_t let_off[MAX_LETS];
    int nlets;
    struct ir_var *defined[MAX_LETS]; /* every let of the nest */
    int ndefined;
    /* lets of the nest that copy a literal or a variable it does not change */
    struct ir_var *copy_var[MAX_LETS];
    struct ir_node *copy_of[MAX_LETS];
    int ncopies;
    bool row_stores;                  /* stores into a row: arr[e][j + c] */
    struct arr_use arrs[MAX_ARRS];
    int narrs;
    int columns;                      /* reads a[i + c][j + d] */
    int rows;                         /* reads a[j + c][i + d] */
    struct ir_node *row_nodes[MAX_PROVED]; /* their rows a[j + c], and the c of each */
    int64_t row_offs[MAX_PROVED];
    bool in_prelude;                  /* in the lets before the inner loop */
    int row_lets;                     /* lets before it that borrow a row: let r = b[j + c] */
    struct ir_node *fixed_lets[MAX_LETS]; /* of those, the ones of a row the nest does not change: let u = a[e] */
    int nfixed_lets;
    struct ir_node *outer_lets[MAX_LETS]; /* and the ones of a row per outer iteration: let r = b[j + c] */
    int64_t outer_offs[MAX_LETS];
    int nouter_lets;
    int same_lens;                    /* guards of one length the inner bounds need: a jam only */
    int nprelude;                     /* defined[0 .. nprelude): the lets before the inner loop */
    struct ir_var *carried[MAX_LETS]; /* of those, the ones the inner loop assigns */
    int ncarried;
    int ntrailing;                    /* statements after the inner loop */
    struct ir_node *proved[MAX_PROVED]; /* the indices the swap guards prove, marked when it is taken */
    int nproved;
    bool ok;
};

static bool defined_in_nest(struct nest *x, struct ir_var *v)
{
    for (int i = 0; i < x->ndefined; i++)
        if (x->defined[i] == v) return true;
    return false;
}

/* Whether n is a loop variable plus a literal: which (BY_INNER, BY_OUTER) and the offset. */
static int linear(struct nest *x, struct ir_node *n, int64_t *off)
{
    if (n->op == IR_VAR) {
        if (n->var == x->iv) return *off = 0, BY_INNER;
        if (n->var == x->jv) return *off = 0, BY_OUTER;
        for (int i = 0; i < x->nlets; i++)
            if (x->let_var[i] == n->var) return *off = x->let_off[i], x->let_by[i];
        return BY_NONE;
    }
    if (n->op != IR_BINARY || n->optype != ty_int || (n->bop != OP_ADD && n->bop != OP_SUB)) return BY_NONE;
    struct ir_node *v = n->a, *c = n->b;
    if (n->bop == OP_ADD && n->a->op == IR_INT) v = n->b, c = n->a;
    if (c->op != IR_INT) return BY_NONE;
    int64_t k = (int64_t)(uint64_t)c->ival, base;
    int by = k > -BIG_OFFSET && k < BIG_OFFSET ? linear(x, v, &base) : BY_NONE;
    if (by == BY_NONE) return BY_NONE;
    *off = base + (n->bop == OP_SUB ? -k : k);
    return *off > -BIG_OFFSET && *off < BIG_OFFSET ? by : BY_NONE;
}

static bool same_row(const struct ir_node *a, const struct ir_node *b)
{
    if (!a || !b) return a == b;
    if (a->op == IR_INT && b->op == IR_INT) return a->ival == b->ival;
    return a->op == IR_VAR && b->op == IR_VAR && a->var == b->var;
}

static struct arr_use *arr_use(struct nest *x, struct ir_var *v, struct ir_node *row)
{
    for (int i = 0; i < x->narrs; i++)
        if (x->arrs[i].arr == v) {
            /* elements of two rows, or of a row and of the array itself */
            if (!same_row(x->arrs[i].row, row)) x->arrs[i].odd = true;
            return &x->arrs[i];
        }
    if (x->narrs == MAX_ARRS) return x->ok = false, NULL;
    x->arrs[x->narrs] = (struct arr_use){.arr = v, .row = row};
    return &x->arrs[x->narrs++];
}

/* An element of v (row: of v[row]) read or stored at a loop variable (by) plus off. */
static void at_index(struct nest *x, struct ir_var *v, struct ir_node *row, int by, int64_t off, bool store)
{
    struct arr_use *u = arr_use(x, v, row);
    if (!u) return;
    /* a let before the inner loop reads once per j what the swapped
     * version reads once per (i, j): it must not read a stored array */
    if ((u->by && (u->by != by || u->off != off)) || x->in_prelude) u->odd = true;
    u->by = by;
    u->off = off;
    u->stored |= store;
}

static void read_odd(struct nest *x, struct ir_var *v)
{
    struct arr_use *u = arr_use(x, v, NULL);
    if (u) u->odd = true;
}

static bool add_swap_guard(struct nest *x, struct ir_node *index, struct ir_guard g)
{
    if (x->nproved == MAX_PROVED) return false;
    x->proved[x->nproved++] = index;
    struct ir_node *l = x->outer;
    for (int i = 0; i < l->nswap_guards; i++) {
        struct ir_guard *h = &l->swap_guards[i];
        if (h->arr == g.arr && h->off == g.off && h->rows == g.rows && h->row_off == g.row_off &&
            h->outer_rows == g.outer_rows && h->at == g.at && h->at_outer == g.at_outer && h->same_len == g.same_len &&
            h->len_row == g.len_row)
            return true;
    }
    if (l->nswap_guards == MAX_SWAP_GUARDS) return false;
    l->swap_guards = xrealloc(l->swap_guards, (size_t)(l->nswap_guards + 1) * sizeof *l->swap_guards);
    l->swap_guards[l->nswap_guards++] = g;
    return true;
}

static bool scalar(struct type *t)
{
    return t == ty_int || t == ty_float || t == ty_bool;
}

/* Whether n is an int the nest cannot change: a literal, or a variable it
 * does not define (it assigns none of its own but its accumulators). */
static bool fixed_index(struct nest *x, struct ir_node *n)
{
    if (n->type != ty_int) return false;
    if (n->op == IR_INT) return true;
    return n->op == IR_VAR && n->var != x->iv && n->var != x->jv && !defined_in_nest(x, n->var);
}

/* A fixed index, or a let of the nest that copies one (lowering's copies of
 * indices for `c[i][j] += v`): what it stands for, or NULL. */
static struct ir_node *fixed_row(struct nest *x, struct ir_node *n)
{
    if (fixed_index(x, n)) return n;
    if (n->op == IR_VAR)
        for (int i = 0; i < x->ncopies; i++)
            if (x->copy_var[i] == n->var) return x->copy_of[i];
    return NULL;
}

static bool pure_expr(struct nest *x, struct ir_node *n);

/* An element read: proved by the inner loop's guards (a[i + c]), by a guard
 * over the outer range (x[j + d]), or by a guard on the rows (a[i + c][j + d]). */
static bool pure_index(struct nest *x, struct ir_node *n)
{
    int64_t off, roff;
    struct ir_node *a = n->a;
    if (a->op == IR_VAR) {
        if (a->var->type->kind != T_ARRAY) return false;
        if (!scalar(n->type)) return false; /* a row is read only to be indexed (below) */
        if (n->in_range_by == x->inner && linear(x, n->b, &off) == BY_INNER) {
            at_index(x, a->var, NULL, BY_INNER, off, false);
            return true;
        }
        if (linear(x, n->b, &off) != BY_OUTER) return false;
        at_index(x, a->var, NULL, BY_OUTER, off, false);
        return add_swap_guard(x, n, (struct ir_guard){.arr = a->var, .off = off});
    }
    /* a[i + c][j + d]: a column of an array of arrays; a[j + c][i + d]: a row */
    if (a->op != IR_INDEX || a->a->op != IR_VAR || !scalar(n->type)) return false;
    struct ir_var *arr = a->a->var;
    int by_row = linear(x, a->b, &roff), by_col = linear(x, n->b, &off);
    if (by_row == BY_INNER && by_col == BY_OUTER && a->in_range_by == x->inner) {
        read_odd(x, arr);
        x->columns++;
        return add_swap_guard(x, n, (struct ir_guard){.arr = arr, .off = off, .rows = true, .row_off = roff});
    }
    struct ir_node *e = by_row == BY_NONE && by_col != BY_NONE ? fixed_row(x, a->b) : NULL;
    if (e) {
        /* a[e][i + d] or a[e][j + d], e the same all through the nest: the
         * row's index and its length, tested once; the row is one array */
        at_index(x, arr, e, by_col, off, false);
        return add_swap_guard(x, a, (struct ir_guard){.arr = arr, .at = e}) &&
               add_swap_guard(x, n, (struct ir_guard){.arr = arr, .off = off, .at = e, .at_outer = by_col == BY_OUTER,
                                                      .rows = true});
    }
    if (by_row == BY_OUTER && by_col == BY_INNER && x->rows < MAX_PROVED) {
        /* the row's index over the outer range, then every such row's length */
        read_odd(x, arr);
        x->row_nodes[x->rows] = a;
        x->row_offs[x->rows++] = roff;
        return add_swap_guard(x, a, (struct ir_guard){.arr = arr, .off = roff}) &&
               add_swap_guard(x, n, (struct ir_guard){.arr = arr, .off = off, .rows = true, .row_off = roff, .outer_rows = true});
    }
    return false;
}

/* Whether n has no effect and cannot panic (given the guards it records). */
static bool pure_expr(struct nest *x, struct ir_node *n)
{
    switch (n->eop) {
    case IR_INT: case IR_FLOAT: case IR_BOOL:
        return true;
    case IR_VAR: case IR_GLOBAL:
        /* nothing in the nest assigns a variable or calls a function */
        return scalar(n->type);
    case IR_UNARY:
        if (!pure_expr(x, n->a)) return false;
        return n->optype == ty_float || n->bop == OP_BNOT || n->no_overflow;
    case IR_NOT:
        return pure_expr(x, n->a);
    case IR_AND: case IR_OR:
        return pure_expr(x, n->a) && pure_expr(x, n->b);
    case IR_COND:
        return pure_expr(x, n->a) && pure_expr(x, n->b) && pure_expr(x, n->c);
    case IR_BINARY:
        if (!pure_expr(x, n->a) || !pure_expr(x, n->b)) return false;
        if (n->optype == ty_float) return true; /* IEEE: no float operation panics */
        if (n->optype == ty_int || n->optype == ty_bool) {
            if (op_is_compare(n->bop) || op_class[n->bop] == OPC_BITS) return true;
            return n->no_overflow && (n->bop == OP_ADD || n->bop == OP_SUB || n->bop == OP_MUL);
        }
        return false;
    case IR_CONV:
        return pure_expr(x, n->a) && (n->type == ty_float || n->type == n->optype) &&
               (n->optype == ty_int || n->optype == ty_bool || n->optype == ty_float);
    case IR_INDEX:
        return pure_index(x, n);
    case IR_BUILTIN:
        if (n->builtin == BI_LEN && n->nkids == 1 && n->kids[0]->op == IR_VAR) {
            read_odd(x, n->kids[0]->var);
            return x->ok;
        }
        if (!ir_float_math(n)) return false; /* sqrt, abs, min, max, ... of floats */
        for (int i = 0; i < n->nkids; i++)
            if (!pure_expr(x, n->kids[i])) return false;
        return true;
    case IR_STR: case IR_CALL: case IR_ARRAY: case IR_FSTRING: case IR_LISTCOMP: case IR_REDUCE: case IR_TUPLE:
    case IR_FIELD: case IR_FNVAL: case IR_CALLV: case IR_GUARD_TEST:
        return false;
    }
    return false;
}

/* let r = b[j + c] before the inner loop, borrowed (opt_borrow.c): the row
 * lives as long as b, which the nest does not change. Or let u = a[e], e a
 * fixed row (a helper's `u` written in place: cosine(a[i], a[j])): the same
 * row in every outer iteration, proved in range before the nest; a is then
 * stored nowhere in the nest (odd), so the row and its length stay. */
static bool row_let(struct nest *x, struct ir_node *s)
{
    int64_t off;
    struct ir_node *n = s->a;
    if (!x->in_prelude || !s->borrow || s->var->type->kind != T_ARRAY || n->op != IR_INDEX || n->a->op != IR_VAR)
        return false;
    if (x->ndefined == MAX_LETS) return false;
    struct ir_node *e = fixed_row(x, n->b);
    if (e && (e->op == IR_INT || e->op == IR_VAR)) {
        read_odd(x, n->a->var);
        if (!add_swap_guard(x, n, (struct ir_guard){.arr = n->a->var, .at = e})) return false;
        x->defined[x->ndefined++] = s->var;
        x->fixed_lets[x->nfixed_lets++] = s;
        x->row_lets++;
        return true;
    }
    if (linear(x, n->b, &off) != BY_OUTER) return false;
    at_index(x, n->a->var, NULL, BY_OUTER, off, false);
    if (!add_swap_guard(x, n, (struct ir_guard){.arr = n->a->var, .off = off})) return false;
    x->defined[x->ndefined++] = s->var;
    x->outer_offs[x->nouter_lets] = off;
    x->outer_lets[x->nouter_lets++] = s;
    x->row_lets++;
    return true;
}

static bool nest_let(struct nest *x, struct ir_node *s)
{
    if (row_let(x, s)) return true;
    if (!scalar(s->var->type) || !pure_expr(x, s->a) || x->ndefined == MAX_LETS) return false;
    struct ir_node *copied = s->var->type == ty_int ? fixed_row(x, s->a) : NULL;
    x->defined[x->ndefined++] = s->var;
    if (copied && x->ncopies < MAX_LETS) {
        x->copy_var[x->ncopies] = s->var;
        x->copy_of[x->ncopies++] = copied;
    }
    int64_t off;
    int by = s->var->type == ty_int ? linear(x, s->a, &off) : BY_NONE;
    if (by != BY_NONE && x->nlets < MAX_LETS) {
        x->let_var[x->nlets] = s->var;
        x->let_by[x->nlets] = by;
        x->let_off[x->nlets++] = off;
    }
    return true;
}

/* y[e][j + c] = v, e the same all through the nest, y and its row y[e]
 * made unique before it (opt_unique.c): a store into the one array y[e],
 * at the outer loop's variable (a swap only: a jam keeps slots by variable). */
static bool row_store(struct nest *x, struct ir_node *s)
{
    int64_t off;
    if (s->unique_steps < 2 || !scalar(s->a->type) || !pure_expr(x, s->a)) return false;
    struct ir_node *e = fixed_row(x, s->kids[0]);
    int by = e ? linear(x, s->kids[1], &off) : BY_NONE;
    if (by == BY_INNER) {
        /* y[e][i + c]: each inner iteration owns its element of the one
         * row, proved by the inner loop's guards, as y[i + c] is */
        at_index(x, s->var, e, BY_INNER, off, true);
        return s->in_range_by == x->inner;
    }
    if (by != BY_OUTER) return false;
    at_index(x, s->var, e, BY_OUTER, off, true);
    x->row_stores = true;
    return add_swap_guard(x, s, (struct ir_guard){.arr = s->var, .at = e}) &&
           add_swap_guard(x, s, (struct ir_guard){.arr = s->var, .off = off, .at = e, .at_outer = true, .rows = true});
}

/* Whether the inner body's statement s is one the swap allows. */
static bool body_stmt(struct nest *x, struct ir_node *s)
{
    if (!s) return true;
    int64_t off;
    switch (s->sop) {
    case IR_BLOCK:
        for (int i = 0; i < s->nkids; i++)
            if (!body_stmt(x, s->kids[i])) return false;
        return true;
    case IR_LET:
        return nest_let(x, s);
    case IR_IF:
        return pure_expr(x, s->a) && body_stmt(x, s->b) && body_stmt(x, s->c);
    case IR_STORE: {
        if (s->nkids == 2) return row_store(x, s);
        if (s->nkids != 1 || s->unique_steps < 1 || !scalar(s->a->type) || !pure_expr(x, s->a)) return false;
        int by = linear(x, s->kids[0], &off);
        at_index(x, s->var, NULL, by, off, true);
        if (by == BY_INNER) return s->in_range_by == x->inner;
        return by == BY_OUTER && add_swap_guard(x, s, (struct ir_guard){.arr = s->var, .off = off});
    }
    case IR_ASSIGN:
        /* an accumulator: a scalar let before the inner loop (one per outer
         * iteration), so nothing but its own outer iteration sees it */
        for (int i = 0; i < x->nprelude; i++)
            if (x->defined[i] == s->var && scalar(s->var->type) && pure_expr(x, s->a)) {
                bool known = false;
                for (int c = 0; c < x->ncarried; c++) known |= x->carried[c] == s->var;
                if (!known) x->carried[x->ncarried++] = s->var;
                return true;
            }
        return false;
    case IR_PUSH: case IR_UNIQUE: case IR_EXPR: case IR_RETURN: case IR_WHILE: case IR_FOR_RANGE: case IR_FOR_ARRAY:
    case IR_BREAK: case IR_CONTINUE: case IR_UNREACHABLE:
        return false;
    }
    return false;
}

/* Whether a statement after the inner loop only computes and stores (no
 * call but the math of floats, no output: `dist[i][j] = sqrt(s)`), checked as written, into arrays the rest of the nest
 * does not use, reading none it stores: then running it for four outer
 * iterations after their four inner loops, in order, is running it after
 * each one's. */
static bool quiet_expr(struct nest *x, struct ir_node *n)
{
    if (!n) return true;
    switch (n->eop) {
    case IR_INT: case IR_FLOAT: case IR_BOOL: case IR_GLOBAL: return true;
    case IR_VAR:
        if (n->var->type->kind == T_ARRAY) read_odd(x, n->var);
        return true;
    case IR_INDEX: {
        struct ir_node *root = n;
        while (root->op == IR_INDEX) root = root->a;
        if (root->op == IR_VAR) read_odd(x, root->var);
        return quiet_expr(x, n->a) && quiet_expr(x, n->b);
    }
    case IR_BUILTIN:
        if (n->builtin == BI_LEN && n->nkids == 1) return quiet_expr(x, n->kids[0]);
        if (!ir_float_math(n)) return false; /* sqrt(s), abs(s), ...: a value, no panic */
        for (int i = 0; i < n->nkids; i++)
            if (!quiet_expr(x, n->kids[i])) return false;
        return true;
    case IR_UNARY: case IR_NOT: case IR_BINARY: case IR_AND: case IR_OR: case IR_COND: case IR_CONV:
        return quiet_expr(x, n->a) && quiet_expr(x, n->b) && quiet_expr(x, n->c);
    case IR_STR: case IR_CALL: case IR_ARRAY: case IR_FSTRING: case IR_LISTCOMP: case IR_REDUCE: case IR_TUPLE:
    case IR_FIELD: case IR_FNVAL: case IR_CALLV: case IR_GUARD_TEST:
        return false;
    }
    return false;
}

static bool used_in_nest(struct nest *x, struct ir_var *v)
{
    for (int i = 0; i < x->narrs; i++)
        if (x->arrs[i].arr == v) return true;
    return false;
}

static bool trailing_stmt(struct nest *x, struct ir_node *s)
{
    x->ntrailing++;
    if (s->op == IR_LET)
        return scalar(s->var->type) && quiet_expr(x, s->a);
    if (s->op != IR_STORE || used_in_nest(x, s->var) || !scalar(s->a->type) || !quiet_expr(x, s->a)) return false;
    for (int i = 0; i < s->nkids; i++)
        if (s->kids[i]->op == IR_FIELD || !quiet_expr(x, s->kids[i])) return false;
    return true;
}

/* The let u = a[e] of a fixed row that n reads (u), or NULL. */
static struct ir_node *fixed_let(struct nest *x, struct ir_node *n)
{
    for (int i = 0; n->op == IR_VAR && i < x->nfixed_lets; i++)
        if (x->fixed_lets[i]->var == n->var) return x->fixed_lets[i];
    return NULL;
}

/* The inner bounds are read once, before the lets of the first outer
 * iteration: len(u) of a fixed row's let u is read as len(a[e]), the same
 * row (e proved in range by the swap guard; as written, the let read it
 * first). */
static void bound_rows(struct nest *x, struct ir_node *n)
{
    if (!n) return;
    struct ir_node *let;
    if (n->op == IR_BUILTIN && n->builtin == BI_LEN && n->nkids == 1 && (let = fixed_let(x, n->kids[0]))) {
        struct ir_node *row = ir_copy(NULL, let->a);
        row->b = ir_copy(NULL, fixed_row(x, let->a->b));
        row->in_range_by = x->outer;
        n->kids[0] = row;
        return;
    }
    bound_rows(x, n->a);
    bound_rows(x, n->b);
    for (int i = 0; i < n->nkids; i++) bound_rows(x, n->kids[i]);
}

/* len(a[e]) as an inner bound, e a literal or a variable the nest does not
 * define (not a let's copy: the bound is read before the lets), a an array
 * no let names and the nest stores nowhere (odd): the same row all through
 * it (for i: for j: for k in 0..len(a[i]): ... a[i][k] * bt[j][k]). */
static bool fixed_row_len(struct nest *x, struct ir_node *r)
{
    if (r->op != IR_INDEX || r->a->op != IR_VAR || r->a->var->type->kind != T_ARRAY || defined_in_nest(x, r->a->var) ||
        !fixed_index(x, r->b))
        return false;
    read_odd(x, r->a->var);
    return x->ok;
}

/* len(r) as an inner bound, r the row b[j + c] each outer iteration
 * reads, or a let before the inner loop naming it (push_rows: for row in
 * a: ... for (x, w) in zip(row, ws), a bound min(len(row), len(ws)); for
 * i: ... for k in 0..len(a[i])): not invariant as written, but the same
 * all through the nest when every such row has one length, a swap guard
 * of one length (same_len) tested before it. A jam only (same_lens: the
 * swapped nest's inner loop would be over a bound its test did not read),
 * whose fast copy reads it as len(b[lo + c]) (opt_version.c: nest_test). b is stored nowhere in
 * the nest (odd), nor pushed to (no push in it), so the rows' lengths stay. */
static bool outer_row_len(struct nest *x, struct ir_node *r)
{
    struct ir_guard g = {.same_len = true, .len_row = r};
    int64_t off;
    if (r->op == IR_VAR) {
        for (int i = 0; i < x->nouter_lets && !g.arr; i++)
            if (x->outer_lets[i]->var == r->var) g.arr = x->outer_lets[i]->a->a->var, g.off = x->outer_offs[i];
    } else if (r->op == IR_INDEX && r->a->op == IR_VAR && r->a->var->type->kind == T_ARRAY &&
               !defined_in_nest(x, r->a->var) && linear(x, r->b, &off) == BY_OUTER) {
        read_odd(x, r->a->var);
        g.arr = r->a->var, g.off = off;
    }
    if (!g.arr || !x->ok) return false;
    x->same_lens++;
    struct ir_node *l = x->outer;
    for (int k = 0; k < l->nswap_guards; k++) {
        struct ir_guard *h = &l->swap_guards[k];
        if (h->same_len && h->arr == g.arr && h->off == g.off && ir_same_expr(h->len_row, r, IR_SAME_LOADS | IR_SAME_ARITH))
            return true;
    }
    if (l->nswap_guards == MAX_SWAP_GUARDS) return false;
    l->swap_guards = xrealloc(l->swap_guards, (size_t)(l->nswap_guards + 1) * sizeof *l->swap_guards);
    l->swap_guards[l->nswap_guards++] = g;
    return true;
}

/* Whether a bound of the inner loop keeps its value through the nest (the
 * swapped version reads it once, where the first outer iteration would). */
static bool invariant_bound(struct nest *x, struct ir_node *n)
{
    switch (n->eop) {
    case IR_INT: case IR_GLOBAL: return n->type == ty_int;
    case IR_VAR: return n->type == ty_int && n->var != x->jv && !defined_in_nest(x, n->var);
    case IR_BUILTIN:
        /* the nest pushes to no array and assigns no variable; a row a let
         * of the nest names is another array each outer iteration */
        if (n->builtin == BI_MIN2) /* of ints: no panic */
            return n->type == ty_int && invariant_bound(x, n->kids[0]) && invariant_bound(x, n->kids[1]);
        if (n->builtin == BI_LEN && n->nkids == 1 &&
            (fixed_let(x, n->kids[0]) || fixed_row_len(x, n->kids[0]) || outer_row_len(x, n->kids[0])))
            return true;
        return n->builtin == BI_LEN && n->nkids == 1 && n->kids[0]->op == IR_VAR &&
               !defined_in_nest(x, n->kids[0]->var);
    case IR_BINARY:
        /* checked: once it did not overflow, it never does in the nest */
        return n->optype == ty_int && (n->bop == OP_ADD || n->bop == OP_SUB || n->bop == OP_MUL) &&
               invariant_bound(x, n->a) && invariant_bound(x, n->b);
    default: return false;
    }
}

static int add_slot(struct ir_node *l, struct ir_guard g)
{
    for (int i = 0; i < l->nslots; i++)
        if (l->slots[i].arr == g.arr && l->slots[i].off == g.off && l->slots[i].rows == g.rows &&
            l->slots[i].inner == g.inner)
            return i + 1;
    l->slots = xrealloc(l->slots, (size_t)(l->nslots + 1) * sizeof *l->slots);
    l->slots[l->nslots++] = g;
    return l->nslots;
}

/* Marks the reads and stores of y's element (row: of y[e]'s) in n with slot. */
static void mark_inner(struct ir_node *n, struct ir_var *y, bool row, int slot)
{
    if (!n) return;
    if (n->op == IR_STORE && n->var == y) n->slot = slot;
    if (n->op == IR_INDEX) {
        struct ir_node *a = row ? (n->a->op == IR_INDEX ? n->a->a : NULL) : n->a;
        if (a && a->op == IR_VAR && a->var == y) n->slot = slot;
    }
    mark_inner(n->a, y, row, slot);
    mark_inner(n->b, y, row, slot);
    mark_inner(n->c, y, row, slot);
    for (int i = 0; i < n->nkids; i++) mark_inner(n->kids[i], y, row, slot);
}

/* A jammed nest's stored elements at y[k + off] (k the outer variable):
 * each belongs to one outer iteration, and nothing else in the nest reads
 * it, so it lives in a local through the inner loop (a register, where the
 * C compiler, not knowing that y's elements are not also another array's,
 * would load and store it every step). And its rows a[k + off] read along
 * the inner loop: each one's data pointer in a local (slots with rows), as
 * a `let r = a[k]` would give, so that the C compiler sees four plain
 * arrays, not four loads through the row table per step. And a stored
 * element at y[i + off] (y[e][i + off], i the inner variable): every copy
 * of a step reads and stores that one element, and nothing else in the
 * nest touches y (not odd; y is unique, so no other array is it), so it
 * lives in a local through the step's copies (inner slots): one load and
 * one store per step instead of one per copy, which gcc keeps, not knowing
 * that y's element is not another array's (the ikj product: four stores
 * per vector step, the C loop's gcc -O3 jam of two has one). Not with
 * accumulators (the emitter's lanes keep other slots). */
static void jam_slots(struct nest *x)
{
    struct ir_node *l = x->outer;
    for (int i = 0; i < x->rows; i++)
        x->row_nodes[i]->slot = add_slot(l, (struct ir_guard){.arr = x->row_nodes[i]->a->var, .off = x->row_offs[i], .rows = true});
    for (int i = 0; i < x->narrs; i++) {
        struct arr_use *u = &x->arrs[i];
        if (!u->stored || u->by != BY_OUTER) continue;
        int slot = add_slot(l, (struct ir_guard){.arr = u->arr, .off = u->off});
        for (int p = 0; p < x->nproved; p++) {
            struct ir_node *n = x->proved[p];
            struct ir_var *v = n->op == IR_STORE ? n->var : n->op == IR_INDEX && n->a->op == IR_VAR ? n->a->var : NULL;
            if (v == u->arr) n->slot = slot;
        }
    }
    for (int i = 0; i < x->narrs && !x->ncarried; i++) {
        struct arr_use *u = &x->arrs[i];
        if (!u->stored || u->by != BY_INNER || defined_in_nest(x, u->arr)) continue; /* one array for every copy */
        int slot = add_slot(l, (struct ir_guard){.arr = u->arr, .off = u->off, .at = u->row, .inner = true});
        mark_inner(x->inner->b, u->arr, u->row != NULL, slot);
    }
}

/* Statement k of a nest's outer body pushed onto flat, a block holding the
 * inner loop opened: a block of the one loop, or of lets and then the loop
 * (opt_iters.c's loop over zip(row, bt[j]): let r = bt[j]; for k in
 * 0..min(len(row), len(r))), its lets the outer body's (each let's
 * variable is its own, declared once: nothing after the block names it). */
static void loop_block(struct ir_node *flat, struct ir_node *k)
{
    while (k->op == IR_BLOCK && k->nkids == 1 && k->kids[0]->op == IR_BLOCK) k = k->kids[0];
    bool opens = k->op == IR_BLOCK && k->nkids > 0;
    for (int i = 0; opens && i + 1 < k->nkids; i++) opens = k->kids[i]->op == IR_LET;
    struct ir_node *last = opens ? k->kids[k->nkids - 1] : NULL;
    while (last && last->op == IR_BLOCK && last->nkids == 1) last = last->kids[0];
    if (!last || last->op != IR_FOR_RANGE) {
        ir_push_kid(flat, k);
        return;
    }
    for (int i = 0; i + 1 < k->nkids; i++) ir_push_kid(flat, k->kids[i]);
    ir_push_kid(flat, last);
}

static void try_swap(struct ir_node *outer)
{
    struct ir_node *body = outer->b;
    while (body && body->op == IR_BLOCK && body->nkids == 1 && body->kids[0]->op == IR_BLOCK) body = body->kids[0];
    if (!body || body->op != IR_BLOCK || body->nkids == 0 || outer->var->type != ty_int) return;
    int at = -1; /* the inner loop: lets before it, statements after it */
    struct ir_node *flat = ir_new(IR_BLOCK, body->loc, ty_void); /* body's statements, blocks of a loop opened */
    for (int i = 0; i < body->nkids; i++) loop_block(flat, body->kids[i]);
    for (int i = 0; i < flat->nkids; i++)
        if (flat->kids[i]->op == IR_FOR_RANGE) {
            if (at >= 0) return;
            at = i;
        }
    if (at < 0) return;
    struct ir_node *real = body;
    body = flat; /* body's own statements once the nest is taken */
    struct ir_node *inner = body->kids[at];
    if (inner->var->type != ty_int) return;
    for (int i = 0; i < inner->nguards; i++)
        if (inner->guards[i].base) return; /* i + base: a nest reads no such index */
    struct nest x = {.outer = outer, .inner = inner, .jv = outer->var, .iv = inner->var, .ok = true};
    bool ok = true;
    x.in_prelude = true;
    for (int i = 0; ok && i < at; i++) ok = body->kids[i]->op == IR_LET && nest_let(&x, body->kids[i]);
    x.in_prelude = false;
    x.nprelude = x.ndefined;
    ok = ok && invariant_bound(&x, inner->iter.lo) && invariant_bound(&x, inner->iter.hi);
    ok = ok && body_stmt(&x, inner->b) && x.ok;
    bool stores = false;
    for (int i = 0; ok && i < x.narrs; i++)
        stores |= x.arrs[i].stored;
    for (int i = at + 1; ok && i < body->nkids; i++) ok = trailing_stmt(&x, body->kids[i]);
    for (int i = 0; ok && i < x.narrs; i++)
        if (x.arrs[i].stored && x.arrs[i].odd) ok = false;
    /* swapped, a row let would be read once per (i, j), an accumulator or
     * a statement after the inner loop would see another order: only jammed */
    bool swap = x.columns > 0 && x.rows == 0 && x.row_lets == 0 && x.ncarried == 0 && x.ntrailing == 0 && !x.same_lens;
    /* a map's steps (opt_iters.c: map_loop): not jammed, each step one pass as the map's */
    bool jam = !swap && !x.row_stores && (stores || x.ncarried > 0) && !outer->iter.inclusive && !inner->from_map &&
               ir_size(inner->b) <= MAX_JAM_NODES;
    if (!ok || (!swap && !jam)) {
        free(outer->swap_guards);
        outer->swap_guards = NULL;
        outer->nswap_guards = 0;
        return;
    }
    real->kids = flat->kids, real->nkids = flat->nkids;
    outer->swap = inner;
    outer->jam = jam;
    for (int i = 0; i < x.nproved; i++) x.proved[i]->in_range_by = outer;
    if (jam) jam_slots(&x);
    bound_rows(&x, inner->iter.lo);
    bound_rows(&x, inner->iter.hi);
    for (int i = 0; i < at; i++)
        for (int c = 0; c < x.ncarried; c++)
            if (body->kids[i]->var == x.carried[c]) body->kids[i]->carried = true;
}

static void swaps_in(struct ir_node *s)
{
    if (!s || ir_is_expr(s)) return;
    switch (s->sop) {
    case IR_BLOCK:
        for (int i = 0; i < s->nkids; i++) swaps_in(s->kids[i]);
        return;
    case IR_IF:
        swaps_in(s->b);
        swaps_in(s->c);
        return;
    case IR_FOR_RANGE:
        try_swap(s);
        if (!s->swap) swaps_in(s->b);
        return;
    case IR_WHILE: case IR_FOR_ARRAY:
        swaps_in(s->b);
        return;
    case IR_LET: case IR_ASSIGN: case IR_STORE: case IR_PUSH: case IR_UNIQUE: case IR_EXPR: case IR_RETURN:
    case IR_BREAK: case IR_CONTINUE: case IR_UNREACHABLE:
        return;
    }
}

void opt_interchange(struct ir_program *ir)
{
    for (int i = 0; i < ir->fns.len; i++) {
        struct ir_fn *f = ir->fns.items[i];
        swaps_in(f->body);
    }
}
