/*
 * opt_loops.c: the checks that loops make redundant, proved per loop and
 * recorded on the IR for the emitter (ir.h). Two facts (copy-on-write
 * tests are moved out of loops before, by opt_unique.c):
 *
 *   bounds          In an innermost `for i in lo..hi` over int (no loop,
 *                   comprehension or reduction inside, i never assigned),
 *                   every xs[i + c] (c a literal; i or a `let` copy of it)
 *                   of an array whose length the loop cannot change (no
 *                   assignment or push of it) becomes a guard 0 <= i + c <
 *                   len(xs); a store's too when fields follow the index
 *                   (ps[i].at.x = v: ir_store_one_index). The emitter
 *                   writes the loop twice: a version
 *                   without those bounds checks, taken when every guard holds
 *                   for the whole range (tested once, before the loop), and
 *                   the loop as it was otherwise. An index that goes out of
 *                   range therefore still panics at the same place and the
 *                   same iteration, after the same output.
 *                   Rows too: m[r][i + c], r an index the loop does not
 *                   change (a literal, or k + d of a variable it never
 *                   assigns, or a let copying one) and m's rows fixed in
 *                   it (no assignment, push or mutating method of m, no
 *                   store of a whole row m[k] = ...; an element store keeps
 *                   every row's length), reads and stores: the guard is
 *                   0 <= r < len(m) and that row holding i + c. And an
 *                   index the loop does not change, xs[k] or m[r][k]: its
 *                   guard is the one index, tested once.
 *                   Paths deeper than a row alike: u[i - 1][j][k + c],
 *                   every index before the last one the loop does not
 *                   change and no row on the way replaced in it (no store
 *                   m[a] = ... or m[a][b] = ... as deep as the path's rows),
 *                   reads and stores: one guard tests each index before the
 *                   row it selects, then that row holding k + c.
 *                   A nest whose inner loop's guards the outer loop cannot
 *                   change (guards_outside: guard_outside) has them tested
 *                   once, before it; a guard may name the outer variable
 *                   as the index of its last row or its one fixed index
 *                   (ir_guard_outer: u[i][j + c][k] in `for j: for k`, a
 *                   column along the path, tested over j's range).
 *                   Columns: m[i + c][k], the row changing along the loop
 *                   and k not (or i + d): the row index's guard and a
 *                   column guard, k below the least length of the rows the
 *                   range reads, kept by the outermost loop around in which
 *                   m's rows are fixed (its rowmins; none: no guard), a
 *                   generator's too (gens_in hosts them alike).
 *                   And an index i + base + c (a let too: k = i * n + j),
 *                   base + - * of literals and variables the loop does not
 *                   change: its guard computes base once, an overflow
 *                   failing it (the loop as written then panics where it
 *                   would), and tests i + base + c over the range.
 *                   An index opt_relations.c bounds (idx_upper: at least
 *                   0, at most an expression the loop does not change,
 *                   band[i][j - i + w]: 2 * w) is guarded by that one
 *                   index, tested once; one it proves in_bounds has no
 *                   guard, unless it is i + c (a nest's swap and jam
 *                   read those guards).
 *                   A `for j in range(lo, hi, step)` over int
 *                   (ir_range_values) is guarded as a range loop: its
 *                   guards are tested from its first value to its last.
 *                   An innermost `while j <= n` (or `<`) whose body ends
 *                   with `j += s` and assigns j nowhere else, n and s not
 *                   changing in it (variables it never assigns, literals,
 *                   constants, len of a fixed-length array or of a fixed
 *                   row m[r]), is the range
 *                   j0, j0 + s, ... up to n: its guards are the same, over
 *                   j0 .. n (n - 1), tested with s >= 0 and n + s without
 *                   overflow, and then j += s cannot overflow either.
 *                   A comprehension or built-in reduction over an int range
 *                   (one generator, not par; sum(x[i][k] * y[k] for k in
 *                   0..d), [xs[i] + xs[i + 1] for i in 0..n]) is the loop
 *                   the emitter writes for it: its element and filter are an
 *                   innermost body (no generator inside), guarded the same
 *                   way, and the emitter writes that loop twice
 *                   (emit_gen_loop). opt_range.c drops a generator's guards
 *                   where its ranges prove every index they would.
 *                   A loop that runs at most once (runs_once: opt_split.c's
 *                   first and last pieces) keeps its checks, unguarded.
 *   (overflow checks that ranges prove unnecessary: opt_range.c)
 */
#include "ir.h"

#include <stdlib.h>
#include <string.h>

/* ---- what a loop body does with each variable -------------------------- */

enum {
    U_WHOLE = 1,   /* read as a value (not only indexed or measured) */
    U_ASSIGN = 2,  /* assigned */
    U_PUSH = 4,    /* pushed to (its length changes) */
    U_STORE = 8,   /* stored into: x[...] = v */
    U_DEFINED = 16, /* defined in the body (a fresh value each iteration) */
    U_INDEX = 32   /* indexed (x[i]) or measured (len(x)) */
};

struct body {
    unsigned char *use;     /* by var id: U_* */
    struct ir_var **stored; /* by var id: the variable, when stored into or indexed */
    int *touched;           /* the ids with a mark, each once (what body_done clears) */
    int ntouched;
    bool has_loop, has_gen;
};

/* One set of per-variable tables for the whole pass, cleared entry by entry
 * after each loop: a loop costs its own size, not the program's variable
 * count. */
static unsigned char *USE;
static struct ir_var **STORED;
static int *TOUCHED;
static int64_t *ALIAS;           /* guard_loop's copies of the loop variable and of fixed indices */
static unsigned char *IS_ALIAS;
static struct ir_var **FIXED_OF;
static struct ir_node **BASE_OF;
static struct ir_node **HOST;    /* by var id: the outermost loop around in which no row of it changes length */

static void mark(struct body *b, int id, unsigned flags)
{
    if (!b->use[id]) b->touched[b->ntouched++] = id;
    b->use[id] |= (unsigned char)flags;
}

static void use_expr(struct body *b, struct ir_node *n);

static void use_iter(struct body *b, struct ir_iter *it)
{
    if (it->is_range) {
        use_expr(b, it->lo);
        use_expr(b, it->hi);
    } else {
        use_expr(b, it->array);
    }
}

static void use_expr(struct body *b, struct ir_node *n)
{
    if (!n) return;
    switch (n->eop) {
    case IR_INT: case IR_FLOAT: case IR_BOOL: case IR_STR: case IR_GLOBAL:
        return;
    case IR_VAR:
        mark(b, n->var->id, U_WHOLE);
        return;
    case IR_INDEX:
        /* xs[i] reads an element, not the array as a value */
        if (n->a->op == IR_VAR) {
            mark(b, n->a->var->id, U_INDEX);
            b->stored[n->a->var->id] = n->a->var;
        } else {
            use_expr(b, n->a);
        }
        use_expr(b, n->b);
        return;
    case IR_BUILTIN:
        if (n->builtin == BI_LEN && n->nkids == 1 && n->kids[0]->op == IR_VAR) {
            mark(b, n->kids[0]->var->id, U_INDEX);
            b->stored[n->kids[0]->var->id] = n->kids[0]->var;
            return;
        }
        if (builtin_mutates(n->builtin)) {
            /* xs.pop(), xs[i].sort(): the root's length or elements change */
            struct ir_node *root = n->kids[0];
            while (root->op == IR_INDEX || root->op == IR_FIELD) root = root->a;
            if (root->op == IR_VAR) mark(b, root->var->id, U_PUSH | U_WHOLE);
        }
        for (int i = 0; i < n->nkids; i++) use_expr(b, n->kids[i]);
        return;
    case IR_LISTCOMP: case IR_REDUCE:
        b->has_gen = true;
        use_iter(b, &n->iter);
        for (int i = 0; i < n->nclauses; i++) {
            use_iter(b, &n->clauses[i].iter);
            mark(b, n->clauses[i].var->id, U_DEFINED);
        }
        use_expr(b, n->elem);
        use_expr(b, n->filter);
        use_expr(b, n->key);
        use_expr(b, n->a);
        use_expr(b, n->b);
        use_expr(b, n->c);
        for (int i = 0; i < n->ncaps; i++) mark(b, n->caps[i]->id, U_WHOLE);
        mark(b, n->gen_var->id, U_DEFINED);
        if (n->comb_l) mark(b, n->comb_l->id, U_DEFINED), mark(b, n->comb_r->id, U_DEFINED);
        return;
    case IR_UNARY: case IR_NOT: case IR_BINARY: case IR_AND: case IR_OR: case IR_COND: case IR_CONV:
    case IR_CALL: case IR_ARRAY: case IR_FSTRING: case IR_TUPLE: case IR_FIELD: case IR_FNVAL: case IR_CALLV: case IR_GUARD_TEST:
        use_expr(b, n->a);
        use_expr(b, n->b);
        use_expr(b, n->c);
        for (int i = 0; i < n->nkids; i++) use_expr(b, n->kids[i]);
        return;
    }
}

static void use_stmt(struct body *b, struct ir_node *s)
{
    if (!s) return;
    switch (s->sop) {
    case IR_BLOCK:
        for (int i = 0; i < s->nkids; i++) use_stmt(b, s->kids[i]);
        return;
    case IR_LET:
        use_expr(b, s->a);
        mark(b, s->var->id, U_DEFINED);
        return;
    case IR_ASSIGN:
        use_expr(b, s->a);
        mark(b, s->var->id, U_ASSIGN);
        return;
    case IR_STORE: case IR_PUSH: case IR_UNIQUE:
        use_expr(b, s->a);
        for (int i = 0; i < s->nkids; i++) use_expr(b, s->kids[i]);
        mark(b, s->var->id, s->op == IR_PUSH ? U_PUSH : U_STORE);
        b->stored[s->var->id] = s->var;
        return;
    case IR_EXPR: case IR_RETURN:
        use_expr(b, s->a);
        return;
    case IR_IF:
        use_expr(b, s->a);
        use_stmt(b, s->b);
        use_stmt(b, s->c);
        return;
    case IR_WHILE:
        b->has_loop = true;
        use_expr(b, s->a);
        use_stmt(b, s->b);
        return;
    case IR_FOR_RANGE: case IR_FOR_ARRAY:
        b->has_loop = true;
        use_iter(b, &s->iter);
        mark(b, s->var->id, U_DEFINED);
        use_stmt(b, s->b);
        return;
    case IR_BREAK: case IR_CONTINUE: case IR_UNREACHABLE:
        return;
    }
}

static struct ir_program *P;

static int cmp_id(const void *x, const void *y)
{
    return *(const int *)x - *(const int *)y;
}

static void body_done(struct body *b)
{
    for (int i = 0; i < b->ntouched; i++) {
        b->use[b->touched[i]] = 0;
        b->stored[b->touched[i]] = NULL;
    }
    b->ntouched = 0;
}

static struct body body_of(struct ir_node *loop)
{
    struct body b = {USE, STORED, TOUCHED, 0, false, false};
    use_stmt(&b, loop->b);
    if (loop->op == IR_WHILE) use_expr(&b, loop->a);
    /* the array a for-loop iterates is a snapshot that shares it; its
     * variable takes a new value each iteration */
    if (loop->op == IR_FOR_ARRAY) use_expr(&b, loop->iter.array);
    if (loop->var) mark(&b, loop->var->id, U_DEFINED);
    qsort(b.touched, (size_t)b.ntouched, sizeof *b.touched, cmp_id); /* id order, as a full scan gives */
    return b;
}

/* ---- bounds: a guarded version of an innermost range loop ---------------- */

/* The most guards one loop tests before it runs (a test each, once per
 * entry): a 3x3 kernel written out (opt_shortfor.c) reads nine taps of the
 * kernel and nine of the image and stores one element, 19. */
#define MAX_GUARDS 32
#define BIG_OFFSET ((int64_t)1 << 60)

enum { ALIAS_OF_IV = 1, ALIAS_FIXED = 2, ALIAS_AFFINE = 3 };

struct bce {
    struct ir_node *loop;
    struct ir_var *iv;       /* the loop's variable (a for) or induction variable (a while) */
    struct body *b;
    int64_t *alias;          /* by var id: the offset of a let copying the loop variable or a fixed index */
    unsigned char *is_alias; /* by var id: ALIAS_OF_IV, ALIAS_FIXED (of fixed_of[id] + alias[id]),
                              * ALIAS_AFFINE (the loop variable + base_of[id] + alias[id]) or 0 */
    struct ir_var **fixed_of;
    struct ir_node **base_of;
};

bool ir_var_plus(const struct ir_node *n, struct ir_var **v, int64_t *off)
{
    if (n->type != ty_int) return false;
    if (n->op == IR_INT) {
        int64_t k = (int64_t)(uint64_t)n->ival;
        *v = NULL;
        *off = k;
        return k > -BIG_OFFSET && k < BIG_OFFSET;
    }
    if (n->op == IR_VAR) return *v = n->var, *off = 0, true;
    if (n->op != IR_BINARY || n->optype != ty_int || (n->bop != OP_ADD && n->bop != OP_SUB)) return false;
    const struct ir_node *a = n->a, *c = n->b;
    if (n->bop == OP_ADD && n->a->op == IR_INT) a = n->b, c = n->a;
    if (c->op != IR_INT) return false;
    int64_t k = (int64_t)(uint64_t)c->ival, base;
    if (k <= -BIG_OFFSET || k >= BIG_OFFSET || !ir_var_plus(a, v, &base)) return false;
    *off = base + (n->bop == OP_SUB ? -k : k);
    return *off > -BIG_OFFSET && *off < BIG_OFFSET;
}

/* Whether n is i + c (i the loop variable or a copy of it, c a literal). */
static bool offset_of(struct bce *x, struct ir_node *n, int64_t *off)
{
    struct ir_var *v;
    int64_t k, base;
    if (!ir_var_plus(n, &v, &k) || !v) return false;
    if (v == x->iv) base = 0;
    else if (x->is_alias[v->id] == ALIAS_OF_IV) base = x->alias[v->id];
    else return false;
    *off = base + k;
    return *off > -BIG_OFFSET && *off < BIG_OFFSET;
}

/* Whether n is an index the loop does not change: a literal, or v + c for
 * an int variable v the loop never assigns or defines (*v NULL: the literal). */
static bool fixed_index(struct bce *x, struct ir_node *n, struct ir_var **v, int64_t *off)
{
    if (!ir_var_plus(n, v, off)) return false;
    if (!*v) return true;
    int id = (*v)->id;
    if (x->is_alias[id] == ALIAS_FIXED) {
        /* a let copying one: the copied index */
        *off += x->alias[id];
        *v = x->fixed_of[id];
        return *off > -BIG_OFFSET && *off < BIG_OFFSET;
    }
    return *v != x->iv && !x->is_alias[id] && !(x->b->use[id] & (U_ASSIGN | U_DEFINED));
}

/* The array xs of a guard: a variable whose length the loop cannot change. */
static bool fixed_length(struct bce *x, struct ir_var *v)
{
    return v->type->kind == T_ARRAY && !(x->b->use[v->id] & (U_ASSIGN | U_PUSH | U_DEFINED));
}

/* Whether s stores a whole row of v at most depth indices deep (v[k] = row,
 * v[k][l] = row: that row's length may change). */
static bool replaces_rows(struct ir_node *s, struct ir_var *v, int depth)
{
    if (!s || ir_is_expr(s)) return false;
    switch (s->sop) {
    case IR_STORE: return s->var == v && s->nkids >= 1 && s->nkids <= depth;
    case IR_BLOCK:
        for (int i = 0; i < s->nkids; i++)
            if (replaces_rows(s->kids[i], v, depth)) return true;
        return false;
    case IR_IF: return replaces_rows(s->b, v, depth) || replaces_rows(s->c, v, depth);
    case IR_WHILE: case IR_FOR_RANGE: case IR_FOR_ARRAY: return replaces_rows(s->b, v, depth);
    case IR_LET: case IR_ASSIGN: case IR_PUSH: case IR_UNIQUE: case IR_EXPR: case IR_RETURN: case IR_BREAK:
    case IR_CONTINUE: case IR_UNREACHABLE:
        return false;
    }
    return false;
}

/* The array of arrays m of a row guard whose rows lie depth indices deep
 * (m[r]: 1; m[r][s]: 2): neither m's length nor that of any row on the way
 * can change in the loop (no assignment, push or mutating method of m, no
 * store of a row depth or fewer indices deep; an element store m[k][j] = v
 * copies at most a row of the same length). Arrays are values: no other
 * variable reaches m's rows. */
static bool fixed_rows(struct bce *x, struct ir_var *m, int depth)
{
    if (!fixed_length(x, m)) return false;
    struct type *t = m->type;
    for (int d = 0; d < depth; d++, t = t->elem)
        if (t->elem->kind != T_ARRAY) return false;
    return !replaces_rows(x->loop->b, m, depth);
}

/* Whether n is an int the loop does not change whose evaluation a guard can
 * repeat without panicking: literals, variables the loop never assigns or
 * defines, and + - * of those (the guard tests each for overflow). */
static bool fixed_expr(struct bce *x, struct ir_node *n)
{
    if (n->type != ty_int) return false;
    if (n->op == IR_INT) return true;
    if (n->op == IR_VAR)
        return n->var != x->iv && !x->is_alias[n->var->id] && !(x->b->use[n->var->id] & (U_ASSIGN | U_DEFINED));
    return n->op == IR_BINARY && n->optype == ty_int && (n->bop == OP_ADD || n->bop == OP_SUB || n->bop == OP_MUL) &&
           fixed_expr(x, n->a) && fixed_expr(x, n->b);
}

/* n as iv * i + base + off (iv 0 or 1, the loop variable's coefficient;
 * base NULL or fixed_expr; off a literal). */
struct affine {
    int iv;
    struct ir_node *base;
    int64_t off;
};

static struct ir_node *base_of(struct ir_node *a, enum op op, struct ir_node *b, struct loc loc)
{
    if (!b) return a;
    if (!a && op == OP_ADD) return b;
    if (!a) {
        a = ir_new(IR_INT, loc, ty_int);
        a->ival = 0;
    }
    struct ir_node *n = ir_new(IR_BINARY, loc, ty_int);
    n->bop = op;
    n->optype = ty_int;
    n->a = a;
    n->b = b;
    return n;
}

/* Whether n is affine in the loop variable (i * n + j in a loop over j). */
static bool affine(struct bce *x, struct ir_node *n, struct affine *r)
{
    struct ir_var *v;
    int64_t k;
    if (offset_of(x, n, &k)) return *r = (struct affine){1, NULL, k}, true;
    if (n->type == ty_int && ir_var_plus(n, &v, &k) && !v) return *r = (struct affine){0, NULL, k}, true;
    if (n->op == IR_VAR && x->is_alias[n->var->id] == ALIAS_AFFINE)
        return *r = (struct affine){1, x->base_of[n->var->id], x->alias[n->var->id]}, true;
    if (fixed_expr(x, n)) return *r = (struct affine){0, n, 0}, true;
    struct affine a, b;
    if (n->op != IR_BINARY || n->optype != ty_int || (n->bop != OP_ADD && n->bop != OP_SUB)) return false;
    if (!affine(x, n->a, &a) || !affine(x, n->b, &b) || (n->bop == OP_SUB && b.iv) || a.iv + b.iv > 1) return false;
    r->iv = a.iv + b.iv;
    r->off = n->bop == OP_ADD ? a.off + b.off : a.off - b.off;
    r->base = base_of(a.base, n->bop, b.base, n->loc);
    return r->off > -BIG_OFFSET && r->off < BIG_OFFSET;
}

/* The + - * of fixed term n (a part of a guard's base) named proved by
 * loop l: its guard computes each of them (emit_guards.c: base_c). */
static void base_proved(struct ir_node *n, struct ir_node *l)
{
    if (n->op != IR_BINARY) return;
    n->no_overflow_in = l;
    base_proved(n->a, l);
    base_proved(n->b, l);
}

/* The arithmetic of index n that its guard i + base + off (affine: ntot
 * terms in base) proves cannot overflow, named proved by loop l; returns
 * n's count of base terms, *iv its coefficient of the loop variable. The
 * guard computes base without an overflow (each + - * of its terms, and
 * the sums that join them), and base + i + off in the array over the
 * range. So each + - on the way from the index to i whose operands hold
 * all of base is the index less literals (each sum under 2^60 as affine
 * keeps them), within 2^61 of an element's index: it cannot overflow
 * (flat_fn's t[(i - 1) * w + j - 1]: the product and both sums). A sum
 * holding part of base ((X + j) + Y) keeps its check. */
static int affine_proved(struct bce *x, struct ir_node *n, int ntot, struct ir_node *l, int *iv)
{
    struct ir_var *v;
    int64_t k;
    *iv = 0;
    if (offset_of(x, n, &k)) return *iv = 1, 0;
    if (n->type == ty_int && ir_var_plus(n, &v, &k) && !v) return 0;
    if (n->op == IR_VAR && x->is_alias[n->var->id] == ALIAS_AFFINE) return *iv = 1, 1;
    if (fixed_expr(x, n)) return base_proved(n, l), 1;
    if (n->op != IR_BINARY) return -1; /* (affine took n: never) */
    int ia, ib, ta = affine_proved(x, n->a, ntot, l, &ia), tb = affine_proved(x, n->b, ntot, l, &ib);
    if (ta < 0 || tb < 0) return -1;
    *iv = ia + ib;
    if (*iv == 1 && ta + tb == ntot) n->no_overflow_in = l;
    return ta + tb;
}

static bool add_guard(struct bce *x, struct ir_guard g)
{
    struct ir_node *l = x->loop;
    for (int i = 0; i < l->nguards; i++) {
        struct ir_guard *h = &l->guards[i];
        bool same = h->arr == g.arr && h->off == g.off && h->rows == g.rows && h->cols == g.cols && h->at_var == g.at_var &&
                    h->row_off == g.row_off && h->fixed == g.fixed && h->idx_var == g.idx_var && h->base == g.base &&
                    h->npath == g.npath;
        for (int k = 0; same && k < g.npath; k++)
            same = h->path_vars[k] == g.path_vars[k] && h->path_offs[k] == g.path_offs[k];
        if (same) return true;
    }
    if (l->nguards == MAX_GUARDS) return false;
    l->guards = xrealloc(l->guards, (size_t)(l->nguards + 1) * sizeof *l->guards);
    l->guards[l->nguards++] = g;
    return true;
}

/* The guard of index i into an array the loop cannot resize (g: arr, and a
 * row's at_var and row_off): i + c over the loop variable, or an index the
 * loop does not change. */
static bool index_guard(struct bce *x, struct ir_guard g, struct ir_node *i, struct ir_node *upper)
{
    if (offset_of(x, i, &g.off)) return add_guard(x, g);
    struct affine a;
    struct ir_var *v;
    int64_t k;
    if (upper && !fixed_index(x, i, &v, &k) && fixed_expr(x, upper)) {
        /* 0 <= i <= upper (opt_relations.c): upper tested once, at the
         * loop's entry (band[i][j - i + w]: 2 * w) */
        g.fixed = true;
        if (!ir_var_plus(upper, &g.idx_var, &g.off)) g.base = upper, g.off = 0;
        return add_guard(x, g);
    }
    if (!g.rows && affine(x, i, &a) && a.iv == 1 && a.base) {
        /* i + base + c: the guard computes base once */
        g.base = a.base;
        g.off = a.off;
        if (!add_guard(x, g)) return false;
        int iv, ntot = affine_proved(x, i, -1, x->loop, &iv); /* counts */
        affine_proved(x, i, ntot, x->loop, &iv);
        return true;
    }
    g.fixed = true;
    return fixed_index(x, i, &g.idx_var, &g.off) && add_guard(x, g);
}

/* m[r][i], or m[r][s]...[i] deeper, every index but the last (idx[0] ..
 * idx[n - 2]) one the loop does not change and the rows on the way fixed:
 * a row guard that proves every index (a path: the row it tests is the
 * last one, each index before tested first). */
static bool row_guard(struct bce *x, struct ir_var *m, struct ir_node **idx, int n, struct ir_node *upper)
{
    struct ir_guard g = {.arr = m, .rows = true, .npath = n - 2};
    if (n < 2 || !fixed_rows(x, m, n - 1) || !fixed_index(x, idx[0], &g.at_var, &g.row_off)) return false;
    if (g.npath) {
        g.path_vars = arena_alloc((size_t)g.npath * sizeof *g.path_vars);
        g.path_offs = arena_alloc((size_t)g.npath * sizeof *g.path_offs);
    }
    for (int k = 0; k < g.npath; k++)
        if (!fixed_index(x, idx[k + 1], &g.path_vars[k], &g.path_offs[k])) return false;
    return index_guard(x, g, idx[n - 1], upper);
}

/* m[i + c][k]: a column, the row index changing along the loop and the
 * column k one it does not change (or i + d too: a diagonal). No row guard
 * proves it (the row is a new one each step); a column guard does: the
 * row index's own guard (0 <= i + c < len(m) over the range), then every
 * one of those rows holding k, tested against their least length. That
 * least length is kept by the outermost loop around in which no row of m
 * changes length (HOST: rowmins), extended to the rows each test needs, so
 * a nest pays for each row's length once, not once per entry of its inner
 * loop. Only with such a loop around: alone, the loop would read every
 * row's length to save as many checks. */
static bool cols_guard(struct bce *x, struct ir_var *m, struct ir_node **idx, int n)
{
    struct ir_node *host = HOST[m->id];
    struct ir_guard g = {.arr = m, .cols = true};
    if (n != 2 || !host || host == x->loop || !fixed_rows(x, m, 1) || !offset_of(x, idx[0], &g.row_off)) return false;
    if (!offset_of(x, idx[1], &g.off)) {
        g.fixed = true;
        if (!fixed_index(x, idx[1], &g.idx_var, &g.off)) return false;
    }
    if (!index_guard(x, (struct ir_guard){.arr = m}, idx[0], NULL) || !add_guard(x, g)) return false;
    for (int i = 0; i < host->nrowmins; i++)
        if (host->rowmins[i] == m) return true;
    host->rowmins = xrealloc(host->rowmins, (size_t)(host->nrowmins + 1) * sizeof *host->rowmins);
    host->rowmins[host->nrowmins++] = m;
    return true;
}

#define MAX_PATH 8

/* Whether index i needs no guard: opt_relations.c proved it in_bounds and
 * it is not i + c, whose guard the passes after read (a nest's swap and
 * jam need its inner loop's guards; opt_range.c drops a generator's). */
static bool relation_proved(struct bce *x, bool in_bounds, struct ir_node *i)
{
    int64_t k;
    return in_bounds && !offset_of(x, i, &k);
}

static void bce_expr(struct bce *x, struct ir_node *n);

static void bce_kids(struct bce *x, struct ir_node *n)
{
    bce_expr(x, n->a);
    bce_expr(x, n->b);
    bce_expr(x, n->c);
    for (int i = 0; i < n->nkids; i++) bce_expr(x, n->kids[i]);
}

static void bce_expr(struct bce *x, struct ir_node *n)
{
    if (!n) return;
    /* m[r][i], m[r][s][i], ...: the path's indices, outermost first */
    struct ir_node *path[MAX_PATH], *idx[MAX_PATH], *root = n;
    int depth = 0;
    while (root->op == IR_INDEX && depth < MAX_PATH) path[depth++] = root, root = root->a;
    for (int k = 0; k < depth; k++) idx[k] = path[depth - 1 - k]->b;
    bool rows = false;
    if (depth >= 2 && root->op == IR_VAR &&
        ((rows = row_guard(x, root->var, idx, depth, n->idx_upper)) || cols_guard(x, root->var, idx, depth))) {
        /* the row's guard proves its index too, and every index on the way */
        n->by_cols = !rows;
        for (int k = 0; k < depth; k++) {
            path[k]->in_range_by = x->loop;
            bce_expr(x, idx[k]);
        }
        return;
    }
    if (n->op == IR_INDEX && n->a->op == IR_VAR && !relation_proved(x, n->in_bounds, n->b) && fixed_length(x, n->a->var) &&
        index_guard(x, (struct ir_guard){.arr = n->a->var}, n->b, n->idx_upper))
        n->in_range_by = x->loop;
    bce_kids(x, n);
}

/* Whether a store's path has a field step (ps[i].at = v). */
static bool has_field_step(struct ir_node *s)
{
    for (int i = 0; i < s->nkids; i++)
        if (s->kids[i]->op == IR_FIELD) return true;
    return false;
}

static void bce_stmt(struct bce *x, struct ir_node *s)
{
    if (!s) return;
    int64_t off;
    struct ir_var *at;
    switch (s->sop) {
    case IR_BLOCK:
        for (int i = 0; i < s->nkids; i++) bce_stmt(x, s->kids[i]);
        return;
    case IR_LET:
        bce_expr(x, s->a);
        /* let t = i (+ c): lowering's copies of indices (xs[i] += v) */
        if (s->var->type == ty_int && !(x->b->use[s->var->id] & U_ASSIGN) && offset_of(x, s->a, &off)) {
            x->is_alias[s->var->id] = ALIAS_OF_IV;
            x->alias[s->var->id] = off;
        } else if (s->var->type == ty_int && !(x->b->use[s->var->id] & U_ASSIGN) && fixed_index(x, s->a, &at, &off)) {
            /* let t = k (+ c), k fixed in the loop: lowering's copies again */
            x->is_alias[s->var->id] = ALIAS_FIXED;
            x->fixed_of[s->var->id] = at;
            x->alias[s->var->id] = off;
        } else if (s->var->type == ty_int && !(x->b->use[s->var->id] & U_ASSIGN)) {
            /* let k = i * n + j: j + a base the loop does not change */
            struct affine a;
            if (affine(x, s->a, &a) && a.iv == 1 && a.base) {
                x->is_alias[s->var->id] = ALIAS_AFFINE;
                x->base_of[s->var->id] = a.base;
                x->alias[s->var->id] = a.off;
            }
        }
        return;
    case IR_STORE:
        bce_expr(x, s->a);
        for (int i = 0; i < s->nkids; i++) bce_expr(x, s->kids[i]);
        if (ir_store_one_index(s) && !relation_proved(x, s->in_bounds, s->kids[0]) && fixed_length(x, s->var) &&
            index_guard(x, (struct ir_guard){.arr = s->var}, s->kids[0], NULL))
            s->in_range_by = x->loop;
        else if (s->nkids >= 2 && s->nkids <= MAX_PATH && !has_field_step(s) && row_guard(x, s->var, s->kids, s->nkids, NULL))
            s->in_range_by = x->loop;
        else if (s->nkids >= 2 && s->nkids <= MAX_PATH && !has_field_step(s) && cols_guard(x, s->var, s->kids, s->nkids))
            s->in_range_by = x->loop, s->by_cols = true;
        return;
    case IR_ASSIGN: case IR_PUSH: case IR_UNIQUE: case IR_EXPR: case IR_RETURN:
        bce_expr(x, s->a);
        for (int i = 0; i < s->nkids; i++) bce_expr(x, s->kids[i]);
        return;
    case IR_IF:
        bce_expr(x, s->a);
        bce_stmt(x, s->b);
        bce_stmt(x, s->c);
        return;
    case IR_WHILE: case IR_FOR_RANGE: case IR_FOR_ARRAY: /* not in an innermost loop */
    case IR_BREAK: case IR_CONTINUE: case IR_UNREACHABLE:
        return;
    }
}

/* Whether a while loop's bound or step keeps its value through the body:
 * a literal, a constant, a variable the body never assigns, len of an
 * array whose length it cannot change, or len of a row m[r] whose index
 * and length it cannot change (fixed_rows). */
static bool invariant(struct bce *x, struct ir_node *n)
{
    struct body *b = x->b;
    if (n->type != ty_int) return false;
    if (n->op == IR_INT || n->op == IR_GLOBAL) return true;
    if (n->op == IR_VAR) return !(b->use[n->var->id] & (U_ASSIGN | U_DEFINED));
    if (n->op == IR_BINARY) return fixed_expr(x, n); /* n - 1 */
    if (n->op != IR_BUILTIN || n->builtin != BI_LEN || n->nkids != 1) return false;
    struct ir_node *a = n->kids[0];
    struct ir_var *at;
    int64_t roff;
    if (a->op == IR_INDEX && a->a->op == IR_VAR)
        return fixed_rows(x, a->a->var, 1) && fixed_index(x, a->b, &at, &roff);
    return a->op == IR_VAR && fixed_length(x, a->var);
}

/* In a while loop's condition: the rows m[r] its body's row guards prove
 * (len(m[r]) as the bound). */
static void rows_proved(struct bce *x, struct ir_node *n)
{
    if (!n) return;
    struct ir_var *at;
    int64_t roff;
    if (n->op == IR_INDEX && n->a->op == IR_VAR && fixed_index(x, n->b, &at, &roff))
        for (int i = 0; i < x->loop->nguards; i++) {
            struct ir_guard *g = &x->loop->guards[i];
            if (g->rows && g->arr == n->a->var && g->at_var == at && g->row_off == roff) n->in_range_by = x->loop;
        }
    rows_proved(x, n->a);
    rows_proved(x, n->b);
    rows_proved(x, n->c);
    for (int i = 0; i < n->nkids; i++) rows_proved(x, n->kids[i]);
}

/* Whether s assigns v (anywhere in it). */
static bool assigns(struct ir_node *s, struct ir_var *v)
{
    if (!s || ir_is_expr(s)) return false;
    switch (s->sop) {
    case IR_ASSIGN: return s->var == v;
    case IR_BLOCK:
        for (int i = 0; i < s->nkids; i++)
            if (assigns(s->kids[i], v)) return true;
        return false;
    case IR_IF: return assigns(s->b, v) || assigns(s->c, v);
    case IR_WHILE: case IR_FOR_RANGE: case IR_FOR_ARRAY: return assigns(s->b, v);
    case IR_LET: case IR_STORE: case IR_PUSH: case IR_UNIQUE: case IR_EXPR: case IR_RETURN: case IR_BREAK:
    case IR_CONTINUE: case IR_UNREACHABLE:
        return false;
    }
    return false;
}

/* `while j <= n: ...; j = j + s` (or <): its induction variable, or NULL. */
static struct ir_var *induction(struct ir_node *loop, struct bce *b)
{
    struct ir_node *c = loop->a, *body = loop->b;
    if (c->op != IR_BINARY || c->optype != ty_int || (c->bop != OP_LT && c->bop != OP_LE)) return NULL;
    if (c->a->op != IR_VAR || c->a->var->kind == IRV_PARAM || !invariant(b, c->b)) return NULL;
    struct ir_var *j = c->a->var;
    if (!body || body->op != IR_BLOCK || body->nkids == 0) return NULL;
    struct ir_node *last = body->kids[body->nkids - 1];
    if (last->op != IR_ASSIGN || last->var != j) return NULL;
    struct ir_node *inc = last->a;
    if (inc->op != IR_BINARY || inc->bop != OP_ADD || inc->optype != ty_int) return NULL;
    struct ir_node *step = inc->a->op == IR_VAR && inc->a->var == j ? inc->b : inc->b->op == IR_VAR && inc->b->var == j ? inc->a : NULL;
    if (!step || (step->op == IR_VAR && step->var == j) || !invariant(b, step)) return NULL;
    for (int i = 0; i + 1 < body->nkids; i++)
        if (assigns(body->kids[i], j)) return NULL;
    loop->ind_bound = c->b;
    loop->ind_step = step;
    loop->ind_inclusive = c->bop == OP_LE;
    return j;
}

/* Whether range loop l runs at most once: `for j in e .. e + 1` or
 * `for j in e - 1 .. e` (opt_split.c's first and last pieces). Its guards
 * would cost a test of every path it reads for one iteration that the
 * checks cost a few instructions: it keeps them (stencil3/fn_comp: two
 * such pieces a row, 7 paths each). */
static bool runs_once(const struct ir_node *l)
{
    const struct ir_node *lo = l->iter.lo, *hi = l->iter.hi;
    if (l->op != IR_FOR_RANGE || l->iter.inclusive || ir_range_values(l)) return false;
    if (hi->op == IR_BINARY && hi->bop == OP_ADD && hi->b->op == IR_INT && hi->b->ival == 1) return ir_same_term(hi->a, lo);
    if (lo->op == IR_BINARY && lo->bop == OP_SUB && lo->b->op == IR_INT && lo->b->ival == 1) return ir_same_term(lo->a, hi);
    return false;
}

static void guard_loop(struct ir_node *loop, struct body *b)
{
    if (b->has_loop || b->has_gen || runs_once(loop)) return;
    struct ir_var *iv = NULL;
    struct bce x = {loop, NULL, b, ALIAS, IS_ALIAS, FIXED_OF, BASE_OF};
    if (loop->op == IR_FOR_RANGE && loop->var->type == ty_int && !(b->use[loop->var->id] & U_ASSIGN))
        iv = loop->var;
    if (loop->op == IR_WHILE) iv = induction(loop, &x);
    if (ir_range_values(loop)) iv = loop->var; /* range(lo, hi, step): its values lie in lo .. hi */
    if (!iv) return;
    x.iv = iv;
    bce_stmt(&x, loop->b);
    if (loop->op == IR_WHILE) rows_proved(&x, loop->a);
    /* an alias is a let of the body: a marked variable */
    for (int i = 0; i < b->ntouched; i++) IS_ALIAS[b->touched[i]] = 0;
    if (loop->op == IR_WHILE && loop->nguards) {
        loop->ind_var = iv;
        struct ir_node *last = loop->b->kids[loop->b->nkids - 1];
        last->a->no_overflow_in = loop; /* j + s <= n + s, tested */
    } else if (loop->op == IR_WHILE) {
        loop->ind_bound = loop->ind_step = NULL; /* no index to guard: one version */
    }
}

/* ---- bounds: an inner loop's guards tested outside the loop around ------- */

/* A bound of the inner loop that the guard test before the outer loop can
 * read without panicking and that keeps its value through it: a literal, a
 * constant, a variable it never assigns, len of an array whose length it
 * cannot change. */
static bool outside_bound(struct bce *x, struct ir_node *n)
{
    /* + - * of those: it might overflow where the loop never runs, so the
     * test computes it without panicking (emit_guards.c), an overflow
     * failing it; the nest that runs computes it as written */
    if (n->op == IR_BINARY) return fixed_expr(x, n);
    if (n->op == IR_BUILTIN && (n->nkids != 1 || n->kids[0]->op != IR_VAR)) return false;
    return invariant(x, n);
}

/* Whether variable v of guard g keeps its value through outer loop x, or
 * is x's variable where ir_guard_outer allows it. */
static bool outside_var(struct bce *x, const struct ir_var *v)
{
    return !v || v == x->iv || !(x->b->use[v->id] & (U_ASSIGN | U_DEFINED));
}

/* Whether guard g names only what outer loop x cannot change, or x's own
 * variable as the index of its last row or its one fixed index (a column
 * of the outer range: u[i][j + c][k] in `for j: for k`, tested over j's
 * range, each row holding k's, ir_guard_outer). */
static bool outside_guard(struct bce *x, const struct ir_guard *g)
{
    if (!(g->rows || g->cols ? fixed_rows(x, g->arr, 1 + g->npath) : fixed_length(x, g->arr))) return false;
    int w = ir_guard_outer(g, x->iv);
    if (w < 0 || (w && (x->iv->type != ty_int || (x->b->use[x->iv->id] & U_ASSIGN)))) return false;
    if (!outside_var(x, g->at_var) || !outside_var(x, g->idx_var)) return false;
    for (int i = 0; i < g->npath; i++)
        if (!outside_var(x, g->path_vars[i])) return false;
    return !g->base || fixed_expr(x, g->base);
}

/* guards_outside (ir.h): range loop s whose whole body is one guarded
 * range loop, its bounds and guards reading nothing s changes. The guards
 * then hold at every entry of the inner loop when they hold before s. */
/* narrow_in (ir.h): each guarded range loop in n (x's loop's body, under
 * its ifs, not inside a loop there) whose guards of a path select their
 * last row by x's variable, naming nothing else x changes (outside_guard):
 * those guards marked narrow, their rows' selection tested once before x
 * (opt_version.c) over the range the branches leave that variable
 * (opt_range.c), each entry of the loop testing only the last rows'
 * lengths. A 3-D stencil's interior row: every path's rows on the way
 * checked once a plane, not once a row. A row m[j + c] of m itself (no
 * path) is not: its one index test is what the entry would test instead. */
static void narrow_loops(struct bce *x, struct ir_node *n)
{
    if (!n || ir_is_expr(n)) return;
    if (n->op == IR_BLOCK)
        for (int i = 0; i < n->nkids; i++) narrow_loops(x, n->kids[i]);
    if (n->op == IR_IF) {
        narrow_loops(x, n->b);
        narrow_loops(x, n->c);
    }
    if (n->op != IR_FOR_RANGE || !n->nguards || n->swap || n->guards_outside || n->iter.inclusive) return;
    for (int i = 0; i < n->nguards; i++) {
        struct ir_guard *g = &n->guards[i];
        if (g->rows && g->npath && !g->fixed && !g->base && ir_guard_outer(g, x->iv) == 1 && outside_guard(x, g))
            g->narrow = true, n->narrow_in = x->loop;
    }
}

static void guard_outside(struct ir_node *s)
{
    struct ir_node *in = ir_guards_outside_of(s);
    if ((!in || !in->nguards) && (s->op != IR_FOR_RANGE || s->var->type != ty_int)) return;
    struct body b = body_of(s);
    struct bce x = {s, s->var, &b, ALIAS, IS_ALIAS, FIXED_OF, BASE_OF};
    bool ok = in && in->nguards && outside_bound(&x, in->iter.lo) && outside_bound(&x, in->iter.hi);
    for (int i = 0; ok && i < in->nguards; i++) ok = outside_guard(&x, &in->guards[i]);
    s->guards_outside = ok;
    if (!ok && s->op == IR_FOR_RANGE && s->var->type == ty_int && !(b.use[s->var->id] & U_ASSIGN)) narrow_loops(&x, s->b);
    body_done(&b);
}

/* ---- bounds: a guarded version of an innermost range generator ----------- */

/* A comprehension or reduction the emitter writes as one sequential loop
 * over an int range (emit_gen_loop): no clauses, no key, not par, a built-in
 * reducer or a min or max fold from a start (ir_minmax_combine). A
 * comprehension parfor later puts on the pool keeps its guards for its loop
 * as written (the pool's chunks keep their checks). */
static bool guardable_gen(struct ir_node *n)
{
    enum reducer red;
    if (!ir_is_expr(n) || (n->op != IR_REDUCE && n->op != IR_LISTCOMP)) return false;
    if (n->user && !ir_minmax_combine(n, &red)) return false;
    if (n->par || n->world || n->scan || n->key || n->nclauses || !n->iter.is_range) return false;
    return n->gen_var->type == ty_int;
}

/* A generator's element (and filter) is the body of its loop: guarded as an
 * innermost range loop's body is, when no generator is inside it (an
 * expression assigns nothing, pushes only through a mutating method, and
 * stores nothing: the arrays it indexes keep their lengths unless such a
 * method names them, which use_expr marks). */
static void guard_gen(struct ir_node *g)
{
    struct body b = {USE, STORED, TOUCHED, 0, false, false};
    use_expr(&b, g->elem);
    use_expr(&b, g->filter);
    mark(&b, g->gen_var->id, U_DEFINED);
    qsort(b.touched, (size_t)b.ntouched, sizeof *b.touched, cmp_id);
    if (!b.has_gen && !b.has_loop) {
        struct bce x = {g, g->gen_var, &b, ALIAS, IS_ALIAS, FIXED_OF, BASE_OF};
        bce_expr(&x, g->elem);
        bce_expr(&x, g->filter);
        for (int i = 0; i < b.ntouched; i++) IS_ALIAS[b.touched[i]] = 0;
    }
    body_done(&b);
}

static int *host_rows(struct ir_node *s, struct body *b, int *n);

/* Every guardable generator in n, wherever it stands (a let, a loop's
 * bound, another generator's element); the loops around host their column
 * guards (HOST) as they host those of loops. */
static void gens_in(struct ir_node *n)
{
    if (!n) return;
    if (guardable_gen(n)) guard_gen(n);
    if (ir_is_expr(n) || (n->op != IR_WHILE && n->op != IR_FOR_RANGE && n->op != IR_FOR_ARRAY)) {
        ir_each_child(n, gens_in);
        return;
    }
    struct body b = body_of(n);
    int nhosted = 0, *hosted = host_rows(n, &b, &nhosted);
    body_done(&b);
    ir_each_child(n, gens_in);
    for (int i = 0; i < nhosted; i++) HOST[hosted[i]] = NULL;
    free(hosted);
}

/* ---- the pass ---------------------------------------------------------------- */

/* ---- views: an array's data and length read once, before the loop --------- */

/* The arrays whose data pointer and length a loop cannot change: indexed or
 * stored into, never assigned, pushed or defined in it, and stored into only
 * when known unique (so no store copies it). Each is viewed by the
 * outermost loop where that holds (views): the emitter keeps its data and
 * length in locals, which C compilers cannot do by themselves (a store of
 * an element might, for all they know, change the array's header). */
static struct ir_var *viewed[256];
static int nviewed;

static bool is_viewed(struct ir_var *v)
{
    for (int i = 0; i < nviewed; i++)
        if (viewed[i] == v) return true;
    return false;
}

/* Whether every store of v in s is known unique (or there is none). */
static bool stores_unique(struct ir_node *s, struct ir_var *v)
{
    if (!s || ir_is_expr(s)) return true;
    switch (s->sop) {
    case IR_STORE: case IR_UNIQUE: return s->var != v || s->unique_steps >= 1;
    case IR_BLOCK:
        for (int i = 0; i < s->nkids; i++)
            if (!stores_unique(s->kids[i], v)) return false;
        return true;
    case IR_IF: return stores_unique(s->b, v) && stores_unique(s->c, v);
    case IR_WHILE: case IR_FOR_RANGE: case IR_FOR_ARRAY: return stores_unique(s->b, v);
    case IR_LET: case IR_ASSIGN: case IR_PUSH: case IR_EXPR: case IR_RETURN: case IR_BREAK: case IR_CONTINUE:
    case IR_UNREACHABLE:
        return true;
    }
    return true;
}

static void view_arrays(struct ir_node *loop, struct body *b)
{
    for (int t = 0; t < b->ntouched; t++) {
        int id = b->touched[t];
        struct ir_var *v = b->stored[id];
        unsigned u = b->use[id];
        if (!v || v->type->kind != T_ARRAY || !(u & (U_INDEX | U_STORE))) continue;
        if (u & (U_ASSIGN | U_PUSH | U_DEFINED)) continue;
        if ((u & U_STORE) && !stores_unique(loop->b, v)) continue;
        if (is_viewed(v) || nviewed == 256) continue;
        loop->views = xrealloc(loop->views, (size_t)(loop->nviews + 1) * sizeof *loop->views);
        loop->views[loop->nviews++] = v;
    }
}

/* The arrays of arrays loop s hosts (HOST): indexed or stored into in it,
 * none of their rows changing length in it (fixed_rows), and no loop
 * around hosting them already. Returns their ids (the caller clears them
 * after s and frees the list). */
static int *host_rows(struct ir_node *s, struct body *b, int *n)
{
    int *ids = NULL;
    struct bce x = {s, NULL, b, ALIAS, IS_ALIAS, FIXED_OF, BASE_OF};
    for (int t = 0; t < b->ntouched; t++) {
        struct ir_var *v = b->stored[b->touched[t]];
        if (!v || HOST[v->id] || v->type->kind != T_ARRAY || v->type->elem->kind != T_ARRAY || !fixed_rows(&x, v, 1))
            continue;
        ids = xrealloc(ids, (size_t)(*n + 1) * sizeof *ids);
        ids[(*n)++] = v->id;
        HOST[v->id] = s;
    }
    return ids;
}

/* Loops from the outside in: guards at innermost range loops; views at the
 * outermost loop. */
static void loops_in(struct ir_node *s)
{
    if (!s || ir_is_expr(s)) return;
    switch (s->sop) {
    case IR_BLOCK:
        for (int i = 0; i < s->nkids; i++) loops_in(s->kids[i]);
        return;
    case IR_IF:
        loops_in(s->b);
        loops_in(s->c);
        return;
    case IR_WHILE: case IR_FOR_RANGE: case IR_FOR_ARRAY: {
        struct body b = body_of(s);
        int nhosted = 0, *hosted = host_rows(s, &b, &nhosted);
        guard_loop(s, &b);
        view_arrays(s, &b);
        body_done(&b);
        int mark = nviewed;
        for (int i = 0; i < s->nviews && nviewed < 256; i++) viewed[nviewed++] = s->views[i];
        loops_in(s->b);
        nviewed = mark;
        for (int i = 0; i < nhosted; i++) HOST[hosted[i]] = NULL;
        free(hosted);
        guard_outside(s);
        return;
    }
    case IR_LET: case IR_ASSIGN: case IR_STORE: case IR_PUSH: case IR_UNIQUE: case IR_EXPR: case IR_RETURN:
    case IR_BREAK: case IR_CONTINUE: case IR_UNREACHABLE:
        return;
    }
}

void opt_loops(struct ir_program *ir)
{
    P = ir;
    size_t n = (size_t)ir->nvars + 2;
    USE = xmalloc(n);
    memset(USE, 0, n);
    STORED = xmalloc(n * sizeof *STORED);
    memset(STORED, 0, n * sizeof *STORED);
    TOUCHED = xmalloc(n * sizeof *TOUCHED);
    ALIAS = xmalloc(n * sizeof *ALIAS);
    IS_ALIAS = xmalloc(n);
    memset(IS_ALIAS, 0, n);
    FIXED_OF = xmalloc(n * sizeof *FIXED_OF);
    BASE_OF = xmalloc(n * sizeof *BASE_OF);
    HOST = xmalloc(n * sizeof *HOST);
    memset(HOST, 0, n * sizeof *HOST);
    for (int i = 0; i < ir->fns.len; i++) {
        loops_in(((struct ir_fn *)ir->fns.items[i])->body);
        gens_in(((struct ir_fn *)ir->fns.items[i])->body);
    }
    free(USE);
    free(STORED);
    free(TOUCHED);
    free(ALIAS);
    free(IS_ALIAS);
    free(FIXED_OF);
    free(BASE_OF);
    free(HOST);
    P = NULL;
}
