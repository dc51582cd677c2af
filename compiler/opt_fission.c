/*
 * opt_fission.c: sums a loop cannot change, split off their inner loop and
 * run once, before it (loop fission and the code motion of a whole loop).
 *
 * In a `for j in lo..hi` (J), an inner range loop L of J's body whose body
 * is lets and assignments falls into groups: statements joined when one
 * names a variable the other defines or assigns (`uv += u[k] * v[k]`,
 * `uu += u[k] * u[k]`, `vv += v[k] * v[k]`: three groups; `a += x[k]; b +=
 * a` one). A group moves out of J when
 *   - it cannot panic and has no effect (float arithmetic and math, int
 *     bit operations, comparisons, len of a variable, x[k] with L over
 *     0..len(x) or over the length of a let of the same row a[i]: nothing
 *     that could overflow, divide by zero or index out of bounds);
 *   - every variable it assigns (an accumulator) is a let of J's body
 *     before L, named by nothing between that let and L, assigned by
 *     nothing after L (read there: sqrt(uu));
 *   - everything else it reads J does not change: variables from outside J
 *     that J never writes, sums moved out of an earlier loop, or lets of
 *     J's body before L whose values J cannot change either (`let u =
 *     a[i]`).
 * The moved groups of L run as a copy of L holding only them, before J,
 * with the lets they read, in the order J's body had them; the other
 * groups stay in L, in their order. So `for j: u = a[i]; v = a[j]; uu = 0;
 * vv = 0; for k: uu += u[k]*u[k]; vv += v[k]*v[k]` computes uu once per i.
 *
 * Why it keeps the meaning: each sum runs the same operations in the same
 * order (float adds keep their order, so the bits are the same), from the
 * same start, over values J does not change: every iteration of J would
 * compute the same value. A moved loop cannot panic and has no effect, so
 * running it earlier, once, or when J runs no iteration, shows nowhere. A
 * let that may panic (a[i] past the end) stays in J, and a copy of it that
 * reads safely (`a[i] if 0 <= i and i < len(a) else []`, a zero for a
 * number) runs before J: J reads a moved sum only after its own let ran,
 * where the copy held the same value; where the let panics, J panics there
 * as written. A let that can neither panic nor read such a copy moves.
 *
 * Only groups that then leave J are split off: splitting one pass over rows
 * in L1 into two passes inside J costs a second loop and buys nothing.
 * Int sums overflow (a panic), so they stay, unless they use bit operations.
 */
#include "ir.h"

#include <string.h>

#define MAX_STMTS 31 /* statements of J's body, and of L's, that it looks at */

static struct ir_program *P;

/* The reads of an element that cannot panic, for ir_pure_value: inside(x[i], ctx). */
struct pure_ctx {
    bool (*inside)(const struct ir_node *ix, const void *ctx);
    const void *ctx;
};

static bool pure_value(const struct ir_node *e, const struct pure_ctx *c, bool *panics);

static bool pure_kids(const struct ir_node *e, const struct pure_ctx *c, bool *panics)
{
    if ((e->a && !pure_value(e->a, c, panics)) || (e->b && !pure_value(e->b, c, panics)) ||
        (e->c && !pure_value(e->c, c, panics)))
        return false;
    for (int i = 0; i < e->nkids; i++)
        if (!pure_value(e->kids[i], c, panics)) return false;
    return true;
}

static struct ir_node *J_now; /* the loop J tried */

/* Whether x and y hold one array in J: the same, or lets of J's body of the
 * same row a[i] (i a variable or a literal), none of a, i, x and y changed
 * in J (two calls of dot(a[i], a[i]) written in place). */
static bool same_array(struct ir_var *x, struct ir_var *y)
{
    if (x == y) return true;
    if (!J_now) return false;
    struct ir_node *body = J_now->b, *ex = NULL, *ey = NULL;
    for (int t = 0; t < body->nkids; t++)
        if (body->kids[t]->op == IR_LET) {
            if (body->kids[t]->var == x) ex = body->kids[t]->a;
            if (body->kids[t]->var == y) ey = body->kids[t]->a;
        }
    if (!ex || !ey || ex->op != IR_INDEX || ey->op != IR_INDEX || ex->a->op != IR_VAR || ey->a->op != IR_VAR ||
        ex->a->var != ey->a->var || ex->b->op != ey->b->op)
        return false;
    if (ex->b->op == IR_VAR ? ex->b->var != ey->b->var || ir_writes(body, ex->b->var, false)
                            : ex->b->op != IR_INT || ex->b->ival != ey->b->ival)
        return false;
    return !ir_writes(body, ex->a->var, true) && !ir_writes(body, x, true) && !ir_writes(body, y, true);
}

/* L is `for k in c..len(x)` (c >= 0) whose body assigns neither k nor x:
 * x[k] in it is inside x (and inside y holding the same array). */
static bool index_inside(const struct ir_node *e, const struct ir_node *L)
{
    if (!L || e->a->op != IR_VAR || e->b->op != IR_VAR || e->b->var != L->var) return false;
    const struct ir_node *lo = L->iter.lo, *hi = L->iter.hi;
    if (L->iter.inclusive || lo->op != IR_INT || (__int128)lo->ival < 0) return false;
    if (hi->op != IR_BUILTIN || hi->builtin != BI_LEN || hi->nkids != 1 || hi->kids[0]->op != IR_VAR ||
        !same_array(hi->kids[0]->var, e->a->var))
        return false;
    struct ir_node *body = L->b;
    return !ir_writes(body, L->var, false) && !ir_writes(body, e->a->var, true) &&
           !ir_writes(body, hi->kids[0]->var, true);
}

/* The zero of type t, a safe read's value out of bounds: a number, false,
 * an empty array; NULL for other types. */
static struct ir_node *zero_of(struct type *t, struct loc at)
{
    struct ir_node *z = NULL;
    if (t == ty_int) z = ir_mk_int(0, at);
    else if (t == ty_float) z = ir_new(IR_FLOAT, at, t);
    else if (t == ty_bool) z = ir_new(IR_BOOL, at, t);
    else if (t->kind == T_ARRAY) z = ir_new(IR_ARRAY, at, t);
    return z;
}

/* Whether x[i] (x a variable, i a variable or a literal) may be read as
 * `x[i] if 0 <= i and i < len(x) else zero` (safe_reads). */
static bool safe_shape(const struct ir_node *e)
{
    return e->a->op == IR_VAR && (e->b->op == IR_VAR || e->b->op == IR_INT) && e->b->type == ty_int &&
           (e->type == ty_int || e->type == ty_float || e->type == ty_bool || e->type->kind == T_ARRAY);
}

static bool index_safe; /* pure(): an index of safe_shape does not panic (it will be read safely) */

static bool pure_value(const struct ir_node *e, const struct pure_ctx *c, bool *panics)
{
    struct type *t = e->optype;
    switch (e->eop) {
    case IR_INT: case IR_FLOAT: case IR_BOOL: case IR_VAR:
        return true;
    case IR_NOT: case IR_AND: case IR_OR: case IR_COND:
        return pure_kids(e, c, panics);
    case IR_UNARY:
        if (t != ty_float && !(type_is_integer(t) && e->bop == OP_BNOT)) *panics = true;
        return (t == ty_float || type_is_integer(t)) && pure_kids(e, c, panics);
    case IR_BINARY:
        if (t != ty_float && !type_is_integer(t) && t != ty_bool) return false;
        if (op_class[e->bop] == OPC_CMP || op_class[e->bop] == OPC_BITS) return pure_kids(e, c, panics);
        if (t == ty_bool) return false;
        if (!(t == ty_float && e->bop != OP_MOD)) *panics = true;
        return pure_kids(e, c, panics);
    case IR_CONV:
        if (!type_is_numeric(t) || !type_is_numeric(e->type)) return false;
        if (!(type_is_integer(t) && e->type == ty_float)) *panics = true;
        return pure_kids(e, c, panics);
    case IR_BUILTIN:
        if (e->builtin == BI_LEN && e->nkids == 1 && e->kids[0]->op == IR_VAR) return true;
        return ir_float_math(e) && pure_kids(e, c, panics);
    case IR_INDEX:
        if (!c->inside(e, c->ctx)) *panics = true;
        return pure_kids(e, c, panics);
    case IR_STR: case IR_GLOBAL: case IR_CALL: case IR_ARRAY: case IR_FSTRING: case IR_LISTCOMP: case IR_REDUCE:
    case IR_TUPLE: case IR_FIELD: case IR_FNVAL: case IR_CALLV: case IR_GUARD_TEST:
        return false;
    }
    return false;
}

bool ir_pure_value(const struct ir_node *e, bool (*inside)(const struct ir_node *ix, const void *ctx), const void *ctx,
                   bool *panics)
{
    struct pure_ctx c = {inside, ctx};
    return pure_value(e, &c, panics);
}

/* fission's reads that cannot panic: x[k] inside x over L (NULL: none), or
 * one read safely (index_safe) */
static bool fission_inside(const struct ir_node *ix, const void *L)
{
    return index_inside(ix, L) || (index_safe && safe_shape(ix));
}

static bool pure(const struct ir_node *e, const struct ir_node *L, bool *panics)
{
    return ir_pure_value(e, fission_inside, L, panics);
}

bool ir_defines(const struct ir_node *n, struct ir_var *v)
{
    if (!n || ir_is_expr(n)) return false;
    switch (n->sop) {
    case IR_LET: return n->var == v;
    case IR_FOR_RANGE: case IR_FOR_ARRAY: return n->var == v || ir_defines(n->b, v);
    case IR_WHILE: return ir_defines(n->b, v);
    case IR_IF: return ir_defines(n->b, v) || ir_defines(n->c, v);
    case IR_BLOCK:
        for (int i = 0; i < n->nkids; i++)
            if (ir_defines(n->kids[i], v)) return true;
        return false;
    case IR_ASSIGN: case IR_STORE: case IR_PUSH: case IR_EXPR: case IR_UNIQUE: case IR_BREAK: case IR_CONTINUE:
    case IR_RETURN: case IR_UNREACHABLE:
        return false;
    }
    return false;
}

/* One try at hoisting out of J: which of its body's statements move (lets
 * and whole inner loops: moved[t]; split inner loops: part[t], a bit per
 * statement of that loop's body), and which lets are copied instead: one
 * that may panic, or reads one copied (copied[t]: a copy reading safely
 * runs before J, the let stays in J). */
struct hoist {
    struct ir_node *J;
    bool moved[MAX_STMTS];
    unsigned part[MAX_STMTS];
    bool copied[MAX_STMTS];
    struct ir_var *sums[MAX_STMTS]; /* the accumulators of the groups hoisted, */
    int sums_at[MAX_STMTS];         /* each after J's body's statement at this index */
    int nsums;
};

static bool invariant_expr(struct hoist *h, const struct ir_node *e, int before, const struct ir_node *L, bool *panics);
static struct ir_var **own; /* the variables of the group tried: L's index, its lets and sums */
static int nown;

/* Whether e reads a let of J's body that is copied. */
static bool reads_copied(struct hoist *h, const struct ir_node *e)
{
    if (!e) return false;
    if (e->op == IR_VAR) {
        struct ir_node *body = h->J->b;
        for (int t = 0; t < body->nkids; t++)
            if (body->kids[t]->op == IR_LET && body->kids[t]->var == e->var) return h->copied[t];
        return false;
    }
    if (reads_copied(h, e->a) || reads_copied(h, e->b) || reads_copied(h, e->c)) return true;
    for (int i = 0; i < e->nkids; i++)
        if (reads_copied(h, e->kids[i])) return true;
    return false;
}

/* Whether let t of J's body can run before J: its value pure and
 * invariant, and (must_move: an accumulator, whose value J reads after its
 * loop) not copied. Marks it moved, or copied: a value that may panic,
 * except by an index it reads safely, is neither. */
static bool move_let(struct hoist *h, int t, bool must_move)
{
    struct ir_node *e = h->J->b->kids[t]->a;
    if (!h->moved[t]) {
        bool p = false;
        int nkeep = nown;
        nown = 0; /* a let before L reads none of L's own */
        bool ok = invariant_expr(h, e, t, NULL, &p);
        nown = nkeep;
        if (!ok) return false;
        if (p || reads_copied(h, e)) {
            p = false;
            index_safe = true;
            pure(e, NULL, &p);
            index_safe = false;
            if (p) return false;
            h->copied[t] = true;
        }
        h->moved[t] = true;
    }
    return !(must_move && h->copied[t]);
}

/* Whether J's body cannot change v's value for the statements at index
 * `before` of it: v from outside J, never written in it, or a let of it
 * before `before` that can run before J (move_let). */
static bool invariant_var(struct hoist *h, struct ir_var *v, int before)
{
    struct ir_node *body = h->J->b;
    for (int i = 0; i < h->nsums; i++)
        if (h->sums[i] == v) return h->sums_at[i] < before; /* its loop runs before J */
    if (v == h->J->var || ir_writes(body, v, true)) return false;
    for (int t = 0; t < body->nkids; t++)
        if (body->kids[t]->op == IR_LET && body->kids[t]->var == v) return t < before && move_let(h, t, false);
    return !ir_defines(body, v);
}

/* e reads only variables invariant at `before`, or L's own (its index,
 * the lets and sums of the group tried: in `own`). */
static bool invariant_reads(struct hoist *h, const struct ir_node *e, int before)
{
    if (!e) return true;
    if (e->op == IR_VAR) {
        for (int i = 0; i < nown; i++)
            if (own[i] == e->var) return true;
        return invariant_var(h, e->var, before);
    }
    if (!invariant_reads(h, e->a, before) || !invariant_reads(h, e->b, before) || !invariant_reads(h, e->c, before))
        return false;
    for (int i = 0; i < e->nkids; i++)
        if (!invariant_reads(h, e->kids[i], before)) return false;
    return true;
}

static bool invariant_expr(struct hoist *h, const struct ir_node *e, int before, const struct ir_node *L, bool *panics)
{
    return pure(e, L, panics) && invariant_reads(h, e, before);
}

/* Whether group g (a bit per statement of L's body) of loop L, J's body's
 * statement at index at, can run before J (see the top); marks what moves. */
static bool group_moves(struct hoist *h, struct ir_node *L, int at, unsigned g)
{
    struct ir_node *body = h->J->b, *lb = L->b;
    struct ir_var *mine[MAX_STMTS + 1];
    nown = 0;
    own = mine;
    mine[nown++] = L->var;
    for (int i = 0; i < lb->nkids; i++)
        if (g >> i & 1) mine[nown++] = lb->kids[i]->var;
    for (int i = 0; i < lb->nkids; i++) {
        if (!(g >> i & 1)) continue;
        struct ir_node *s = lb->kids[i];
        bool p = false;
        if (!invariant_expr(h, s->a, at, L, &p) || p) return false;
        if (s->op != IR_ASSIGN) continue;
        /* an accumulator: a let of J's body before L, named by nothing
         * between, assigned by nothing after, not a bound of L */
        struct ir_var *acc = s->var;
        int t = at - 1;
        while (t >= 0 && !(body->kids[t]->op == IR_LET && body->kids[t]->var == acc)) t--;
        if (t < 0 || ir_names(L->iter.lo, acc) || ir_names(L->iter.hi, acc)) return false;
        for (int u = t + 1; u < at; u++)
            if (ir_names(body->kids[u], acc)) return false;
        for (int u = at + 1; u < body->nkids; u++)
            if (ir_writes(body->kids[u], acc, true) || ir_defines(body->kids[u], acc)) return false;
        if (!move_let(h, t, true)) return false;
    }
    return true;
}

int ir_fold_groups(struct ir_node *L, unsigned *groups)
{
    struct ir_node *lb = L->b;
    if (!lb || lb->op != IR_BLOCK || !lb->nkids || lb->nkids > MAX_STMTS || L->op != IR_FOR_RANGE) return 0;
    int root[MAX_STMTS];
    for (int i = 0; i < lb->nkids; i++) {
        struct ir_node *s = lb->kids[i];
        if ((s->op != IR_LET && s->op != IR_ASSIGN) || !s->a) return 0;
        root[i] = i;
        for (int j = 0; j < i; j++)
            if (ir_names(s, lb->kids[j]->var) || ir_names(lb->kids[j], s->var)) {
                int r = root[j]; /* join j's group (and every group i joined before) into i's */
                for (int k = 0; k <= i; k++)
                    if (root[k] == r) root[k] = root[i];
            }
    }
    int n = 0;
    for (int i = 0; i < lb->nkids; i++) {
        bool first = true;
        for (int j = 0; j < i; j++)
            if (root[j] == root[i]) first = false;
        if (!first) continue;
        groups[n] = 0;
        for (int j = i; j < lb->nkids; j++)
            if (root[j] == root[i]) groups[n] |= 1u << j;
        n++;
    }
    return n;
}

void ir_filter_block(struct ir_node *b, unsigned mask, bool keep)
{
    int n = 0;
    for (int i = 0; i < b->nkids; i++)
        if (((mask >> i & 1) != 0) == keep) b->kids[n++] = b->kids[i];
    b->nkids = n;
}

/* Renames for the copies that run before J: each copied let's variable
 * to its copy's. */
struct renames {
    struct ir_copier k; /* first: the hooks get it */
    struct ir_var *from[MAX_STMTS], *to[MAX_STMTS];
    int n;
};

static struct ir_var *renamed(struct ir_copier *k, struct ir_var *v)
{
    struct renames *r = (struct renames *)k;
    for (int i = 0; i < r->n; i++)
        if (r->from[i] == v) return r->to[i];
    return v;
}

/* n (a copy) with each index of safe_shape that may panic read as `x[i] if
 * 0 <= i and i < len(x) else zero`: the same value where x[i] is inside x. */
static void safe_reads(struct ir_node *n, const struct ir_node *L)
{
    if (!n) return;
    safe_reads(n->a, L);
    safe_reads(n->b, L);
    safe_reads(n->c, L);
    for (int i = 0; i < n->nkids; i++) safe_reads(n->kids[i], L);
    if (n->op != IR_INDEX || index_inside(n, L) || !safe_shape(n)) return;
    struct ir_node *read = ir_new(IR_INDEX, n->loc, n->type);
    *read = *n;
    struct loc at = n->loc;
    struct ir_node *i = n->b, *len = ir_mk_len(ir_copy(NULL, n->a));
    struct ir_node *below = ir_mk_bin(OP_LT, ir_copy(NULL, i), len, ty_bool);
    struct ir_node *test = i->op == IR_INT ? below : ir_mk_and(ir_mk_bin(OP_LE, ir_mk_int(0, at), ir_copy(NULL, i), ty_bool), below);
    memset(n, 0, sizeof *n);
    n->op = IR_COND;
    n->loc = at;
    n->type = read->type;
    n->a = test;
    n->b = read;
    n->c = zero_of(read->type, at);
}

/* J, with what can move out of it before it; NULL when nothing moves. */
static struct ir_node *hoisted(struct ir_node *J)
{
    struct ir_node *body = J->b;
    if (J->op != IR_FOR_RANGE || J->par || !body || body->op != IR_BLOCK || body->nkids > MAX_STMTS) return NULL;
    struct hoist h = {.J = J};
    J_now = J;
    bool any = false;
    for (int at = 0; at < body->nkids; at++) {
        struct ir_node *L = body->kids[at];
        unsigned groups[MAX_STMTS];
        int ng = L->op == IR_FOR_RANGE ? ir_fold_groups(L, groups) : 0;
        if (!ng || ir_writes(L->b, L->var, false)) continue;
        struct hoist saved = h;
        bool p = false;
        nown = 0;
        if (!invariant_expr(&h, L->iter.lo, at, NULL, &p) || !invariant_expr(&h, L->iter.hi, at, NULL, &p) || p) {
            h = saved;
            continue;
        }
        bool bounds = false;
        for (int g = 0; g < ng; g++) {
            struct hoist before = h;
            bool moves = group_moves(&h, L, at, groups[g]);
            nown = 0; /* own was group_moves' */
            if (moves) {
                h.part[at] |= groups[g];
                for (int i = 0; i < L->b->nkids; i++)
                    if ((groups[g] >> i & 1) && L->b->kids[i]->op == IR_ASSIGN && h.nsums < MAX_STMTS) {
                        h.sums[h.nsums] = L->b->kids[i]->var;
                        h.sums_at[h.nsums++] = at;
                    }
                bounds = true;
            } else {
                h = before;
            }
        }
        if (!bounds) h = saved; /* the bounds' lets move only with a group */
        any |= bounds;
    }
    J_now = NULL;
    if (!any) return NULL;

    /* before J: the moved lets, the copies of the copied ones (reading
     * safely), the hoisted groups' loops reading those copies; a loop whose
     * every group moves leaves J */
    struct ir_node *out = ir_new(IR_BLOCK, J->loc, ty_void);
    struct renames r = {{NULL, renamed, NULL}, {0}, {0}, 0};
    int n = 0;
    for (int t = 0; t < body->nkids; t++) {
        struct ir_node *s = body->kids[t];
        if (h.moved[t] && !h.copied[t]) {
            ir_push_kid(out, s);
            continue;
        }
        body->kids[n++] = s;
        if (h.copied[t]) {
            struct ir_node *c = ir_copy(&r.k, ir_copy_fresh(P, s));
            safe_reads(c->a, NULL);
            r.from[r.n] = s->var;
            r.to[r.n++] = c->var;
            ir_push_kid(out, c);
        } else if (h.part[t]) {
            struct ir_node *c = ir_copy(&r.k, ir_copy_fresh(P, s));
            ir_filter_block(c->b, h.part[t], true);
            ir_filter_block(s->b, h.part[t], false);
            if (!s->b->nkids) n--;
            ir_push_kid(out, c);
        }
    }
    body->nkids = n;
    ir_push_kid(out, J);
    J_now = NULL;
    return out;
}

/* The loops of block b, inner ones first; what moves out of one goes
 * into b before it. */
static void fission_block(struct ir_node *b)
{
    for (int i = 0; i < b->nkids; i++) ir_stmt_blocks(b->kids[i], fission_block);
    for (int i = 0; i < b->nkids; i++) {
        struct ir_node *r = b->kids[i]->op == IR_FOR_RANGE ? hoisted(b->kids[i]) : NULL;
        if (r) i = ir_splice(b, i, r);
    }
}

void opt_fission(struct ir_program *ir)
{
    P = ir;
    for (int i = 0; i < ir->fns.len; i++) fission_block(((struct ir_fn *)ir->fns.items[i])->body);
    P = NULL;
}
