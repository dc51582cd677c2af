/*
 * opt_unique.c: copy-on-write tests hoisted out of loops, at any depth.
 *
 * A store `v[i][j] = x` first makes each array on its path unique (v, then
 * the row v[i]): if another reference shares it, it is copied, so the store
 * changes no other value. In a loop that test runs every iteration, and its
 * call hides the arrays from the C compiler (it cannot keep a row's data
 * pointer in a register across it, nor vectorize). This pass proves, per
 * loop, that nothing in the loop can share the arrays a store reaches into,
 * and rewrites the IR so the test runs once, before the loop:
 *
 *   for i in 0..n:                       unique c
 *       for j in 0..n:                   for i in 0..n:
 *           for k in 0..n:        =>         unique c[i]
 *               c[i][j] += ...                for j in 0..n:
 *                                                 for k in 0..n:
 *                                                     store c[i][j] unique:2 <- ...
 *
 * `unique P` (IR_UNIQUE) makes every array on the path P unique, stopping
 * quietly at an index out of range (the store then panics at its own bounds
 * check, as before); a store's unique_steps says how many steps of its path
 * reach into arrays such a statement made unique. The fact is general: any
 * depth (`grid[i][j][k] = v`, `s.xs[k] = v`), any loop (for, while, over an
 * array), the outermost loop where it holds for each step. It holds for
 * steps 0..m-1 of a store's path in loop L when
 *
 *   - the path's first m-1 indices do not change in L: literals, variables L
 *     never assigns or defines, or lets in L of those (lowering's copies of
 *     indices for `c[i][j] += v`, which this pass replaces by what they copy);
 *   - L keeps those arrays unique (ir_keeps_unique): it never assigns v,
 *     reads v or any array within m-1 steps of it as a value (a row let, an
 *     argument, a capture, `c[1] = c[0]`), stores over such an array, or
 *     pushes into v (but into v itself when m = 1). Element reads, len and
 *     deeper stores are fine.
 *
 * Then nothing in L takes a second reference to those arrays, so once unique
 * they stay unique through every iteration, and the copy (if any) is made
 * once instead of at the first store: nothing can observe the difference.
 *
 * A store whose row index changes in the innermost loop around it (a
 * transpose's b[j][i] = t under `for j`) has no loop to hoist its row's
 * test to: there `unique b[*]` (IR_UNIQUE with every) makes b and then
 * each of its rows unique before L, when L keeps them all unique (the
 * fact above with m + 1 steps: no row read as a value, no store over a
 * row), and the store needs no test at any row. It costs one test per row
 * per entry of L; a store that some inner loop fixes to one row keeps the
 * per-row statement before that loop, one test per entry of it.
 * A push into an array variable, v.push(x), in a loop that keeps v unique
 * (m = 1) is marked the same way after `unique v` before the loop: it
 * tests only its room, not v's count (an atomic load) at every push.
 * ir_verify checks each store's and each unique statement's unique_steps
 * against the unique statements before it, with ir_keeps_unique on every
 * statement between.
 */
#include "ir.h"

#include <stdlib.h>
#include <string.h>

/* ---- the fact: a statement keeps v's first arrays unique ----------------- */

struct keep {
    struct ir_var *v;
    int steps;
    struct ir_node **path;
    int npath;
};

/* The length of the index and field chain from v to n (v[i].f[j] is 3), or -1. */
static int chain_from(struct ir_node *n, struct ir_var *v)
{
    int m = 0;
    while (n->op == IR_INDEX || (n->op == IR_FIELD && n->a)) n = n->a, m++;
    return n->op == IR_VAR && n->var == v ? m : -1;
}

static bool in_path(struct keep *k, struct ir_var *x)
{
    if (x == k->v) return true;
    for (int i = 0; i < k->npath; i++)
        if (k->path[i]->op == IR_VAR && k->path[i]->var == x) return true;
    return false;
}

static bool keep_expr(struct keep *k, struct ir_node *n);

static bool keep_iter(struct keep *k, struct ir_iter *it)
{
    return it->is_range ? keep_expr(k, it->lo) && keep_expr(k, it->hi) : keep_expr(k, it->array);
}

/* The indices of a chain from v (not the chain's arrays). */
static bool keep_chain_indices(struct keep *k, struct ir_node *n)
{
    for (; n->op == IR_INDEX || n->op == IR_FIELD; n = n->a)
        if (n->op == IR_INDEX && !keep_expr(k, n->b)) return false;
    return true;
}

static bool keep_expr(struct keep *k, struct ir_node *n)
{
    if (!n) return true;
    int m;
    switch (n->eop) {
    case IR_INT: case IR_FLOAT: case IR_BOOL: case IR_STR: case IR_GLOBAL:
        return true;
    case IR_VAR:
        return n->var != k->v; /* v as a value: a second reference */
    case IR_INDEX: case IR_FIELD:
        m = chain_from(n, k->v);
        if (m < 0) break;
        /* an array within the unique steps, read as a value, is shared */
        if (m < k->steps && type_is_ref(n->type)) return false;
        return keep_chain_indices(k, n);
    case IR_BUILTIN:
        if (n->builtin == BI_LEN && n->nkids == 1 && (m = chain_from(n->kids[0], k->v)) >= 0)
            return keep_chain_indices(k, n->kids[0]);
        if (builtin_mutates(n->builtin) && chain_from(n->kids[0], k->v) >= 0) return false;
        break;
    case IR_LISTCOMP: case IR_REDUCE:
        for (int i = 0; i < n->ncaps; i++)
            if (n->caps[i] == k->v) return false;
        if (!keep_iter(k, &n->iter) || !keep_expr(k, n->elem) || !keep_expr(k, n->filter) || !keep_expr(k, n->key))
            return false;
        for (int i = 0; i < n->nclauses; i++)
            if (!keep_iter(k, &n->clauses[i].iter)) return false;
        break;
    case IR_UNARY: case IR_NOT: case IR_BINARY: case IR_AND: case IR_OR: case IR_COND: case IR_CONV: case IR_CALL:
    case IR_ARRAY: case IR_FSTRING: case IR_TUPLE: case IR_FNVAL: case IR_CALLV: case IR_GUARD_TEST:
        break;
    }
    if (!keep_expr(k, n->a) || !keep_expr(k, n->b) || !keep_expr(k, n->c)) return false;
    for (int i = 0; i < n->nkids; i++)
        if (!keep_expr(k, n->kids[i])) return false;
    return true;
}

static bool keep_stmt(struct keep *k, struct ir_node *s)
{
    if (!s) return true;
    switch (s->sop) {
    case IR_BLOCK:
        for (int i = 0; i < s->nkids; i++)
            if (!keep_stmt(k, s->kids[i])) return false;
        return true;
    case IR_LET: case IR_ASSIGN:
        return !in_path(k, s->var) && keep_expr(k, s->a);
    case IR_STORE: case IR_PUSH: case IR_UNIQUE:
        /* a store over an array within the steps replaces it by a value that
         * may be shared; a push may bring a shared element into range (a
         * push into v itself keeps v, the one step, unique) */
        if (s->var == k->v && s->op == IR_PUSH && (s->nkids || k->steps > 1)) return false;
        if (s->var == k->v && s->op == IR_STORE && s->nkids < k->steps) return false;
        for (int i = 0; i < s->nkids; i++)
            if (!(s->kids[i]->op == IR_FIELD && !s->kids[i]->a) && !keep_expr(k, s->kids[i])) return false;
        return keep_expr(k, s->a);
    case IR_EXPR: case IR_RETURN:
        return keep_expr(k, s->a);
    case IR_IF:
        return keep_expr(k, s->a) && keep_stmt(k, s->b) && keep_stmt(k, s->c);
    case IR_WHILE:
        return keep_expr(k, s->a) && keep_stmt(k, s->b);
    case IR_FOR_RANGE: case IR_FOR_ARRAY:
        return !in_path(k, s->var) && keep_iter(k, &s->iter) && keep_stmt(k, s->b);
    case IR_BREAK: case IR_CONTINUE: case IR_UNREACHABLE:
        return true;
    }
    return false;
}

bool ir_keeps_unique(struct ir_node *s, struct ir_var *v, int steps, struct ir_node **path, int npath)
{
    struct keep k = {v, steps, path, npath};
    return keep_stmt(&k, s);
}

/* ---- the pass ------------------------------------------------------------ */

/* What a loop does with each variable, by id (cleared after each loop). */
enum { D_DEFINED = 1, D_ASSIGNED = 2 };
static unsigned char *DEF;
static struct ir_node **LET_OF; /* a let's value, for a let of a variable or a literal */
static int *TOUCHED;
static int NTOUCHED;

static void touch(struct ir_var *v, unsigned flag, struct ir_node *let)
{
    if (!DEF[v->id] && !LET_OF[v->id]) TOUCHED[NTOUCHED++] = v->id;
    DEF[v->id] |= (unsigned char)flag;
    if (let && (let->op == IR_VAR || let->op == IR_INT)) LET_OF[v->id] = let;
}

static void defs_expr(struct ir_node *n)
{
    if (!n) return;
    defs_expr(n->a);
    defs_expr(n->b);
    defs_expr(n->c);
    for (int i = 0; i < n->nkids; i++) defs_expr(n->kids[i]);
    if (n->op == IR_LISTCOMP || n->op == IR_REDUCE) {
        touch(n->gen_var, D_DEFINED, NULL);
        for (int i = 0; i < n->nclauses; i++) touch(n->clauses[i].var, D_DEFINED, NULL);
        if (n->comb_l) touch(n->comb_l, D_DEFINED, NULL), touch(n->comb_r, D_DEFINED, NULL);
        defs_expr(n->elem);
        defs_expr(n->filter);
        defs_expr(n->key);
    }
}

/* The variables s defines and assigns, and its lets of copies. */
static void defs_stmt(struct ir_node *s)
{
    if (!s) return;
    switch (s->sop) {
    case IR_BLOCK:
        for (int i = 0; i < s->nkids; i++) defs_stmt(s->kids[i]);
        return;
    case IR_LET:
        defs_expr(s->a);
        touch(s->var, D_DEFINED, s->a);
        return;
    case IR_ASSIGN:
        defs_expr(s->a);
        touch(s->var, D_ASSIGNED, NULL);
        return;
    case IR_STORE: case IR_PUSH: case IR_UNIQUE: case IR_EXPR: case IR_RETURN:
        defs_expr(s->a);
        for (int i = 0; i < s->nkids; i++) defs_expr(s->kids[i]);
        return;
    case IR_IF: case IR_WHILE:
        defs_expr(s->a);
        defs_stmt(s->b);
        defs_stmt(s->c);
        return;
    case IR_FOR_RANGE: case IR_FOR_ARRAY:
        defs_expr(s->iter.lo);
        defs_expr(s->iter.hi);
        defs_expr(s->iter.array);
        touch(s->var, D_DEFINED, NULL);
        defs_stmt(s->b);
        return;
    case IR_BREAK: case IR_CONTINUE: case IR_UNREACHABLE:
        return;
    }
}

static void defs_done(void)
{
    for (int i = 0; i < NTOUCHED; i++) DEF[TOUCHED[i]] = 0, LET_OF[TOUCHED[i]] = NULL;
    NTOUCHED = 0;
}

/* An index that keeps its value through the loop: a literal, a variable the
 * loop does not define or assign, or a let in it of one of those (at most a
 * few copies deep); NULL otherwise. */
static struct ir_node *invariant(struct ir_node *n, int depth)
{
    if (n->op == IR_INT) return n;
    if (n->op != IR_VAR) return NULL;
    unsigned d = DEF[n->var->id];
    if (!d) return n;
    if (d != D_DEFINED || !LET_OF[n->var->id] || depth == 4) return NULL;
    return invariant(LET_OF[n->var->id], depth + 1);
}

static bool is_field_step(const struct ir_node *k)
{
    return k->op == IR_FIELD && !k->a;
}

static bool same_index(const struct ir_node *a, const struct ir_node *b)
{
    if (is_field_step(a) || is_field_step(b)) return is_field_step(a) && is_field_step(b) && a->field == b->field;
    if (a->op == IR_INT && b->op == IR_INT) return a->ival == b->ival;
    return a->op == IR_VAR && b->op == IR_VAR && a->var == b->var;
}

/* op's steps: its path's arrays, and with every any element of the last
 * (step nkids + 1, at any index). */
bool ir_unique_covers(const struct ir_node *op, const struct ir_node *s)
{
    if (op->var != s->var || op->nkids + 1 + op->every < s->unique_steps) return false;
    for (int k = 0; k < s->unique_steps - 1 && k < op->nkids; k++)
        if (!same_index(op->kids[k], s->kids[k])) return false;
    return true;
}

/* How many times s defines or assigns v (ndefs), and the value of the last
 * let of it (let; NULL after an assignment or a loop's own variable). */
static void defs_of(struct ir_node *s, struct ir_var *v, int *ndefs, struct ir_node **let)
{
    if (!s) return;
    switch (s->sop) {
    case IR_BLOCK:
        for (int i = 0; i < s->nkids; i++) defs_of(s->kids[i], v, ndefs, let);
        return;
    case IR_LET: case IR_ASSIGN:
        if (s->var == v) (*ndefs)++, *let = s->op == IR_LET ? s->a : NULL;
        return;
    case IR_IF: case IR_WHILE:
        defs_of(s->b, v, ndefs, let);
        defs_of(s->c, v, ndefs, let);
        return;
    case IR_FOR_RANGE: case IR_FOR_ARRAY:
        if (s->var == v) (*ndefs)++, *let = NULL;
        defs_of(s->b, v, ndefs, let);
        return;
    case IR_STORE: case IR_PUSH: case IR_UNIQUE: case IR_EXPR: case IR_RETURN: case IR_BREAK: case IR_CONTINUE:
    case IR_UNREACHABLE:
        return;
    }
}

/* Whether expression k reads a variable that loop L defines or assigns
 * (its own variable too): k may change from one iteration of L to the next. */
static bool changes_in(struct ir_node *L, struct ir_node *k)
{
    if (!k) return false;
    if (k->op == IR_VAR) {
        int ndefs = 0;
        struct ir_node *let = NULL;
        if (L->var == k->var) return true;
        defs_of(L->b, k->var, &ndefs, &let);
        return ndefs > 0;
    }
    if (changes_in(L, k->a) || changes_in(L, k->b) || changes_in(L, k->c)) return true;
    for (int i = 0; i < k->nkids; i++)
        if (changes_in(L, k->kids[i])) return true;
    return false;
}

/* Whether index k keeps its value through loop L as the pass can name it
 * before L (invariant's test, for a loop other than the one DEF is of): a
 * literal, or a variable L does not define or assign, or a let in L of one
 * of those. */
static bool named_before(struct ir_node *L, struct ir_node *k, int depth)
{
    if (k->op == IR_INT) return true;
    if (k->op != IR_VAR || depth == 4) return false;
    int ndefs = 0;
    struct ir_node *let = NULL;
    if (L->var == k->var) return false;
    defs_of(L->b, k->var, &ndefs, &let);
    return ndefs == 0 || (ndefs == 1 && let && named_before(L, let, depth + 1));
}

/* The unique statements to write before one loop. */
struct hoist {
    struct ir_node *loop;
    struct ir_node *inner; /* the innermost loop around the store in hand */
    struct ir_node **ops;
    int nops;
    /* ir_keeps_unique(loop, v, steps), asked once per (v, steps) */
    struct { struct ir_var *v; int steps; bool keeps; } *asked;
    int nasked;
};

static bool loop_keeps(struct hoist *h, struct ir_var *v, int steps)
{
    for (int i = 0; i < h->nasked; i++)
        if (h->asked[i].v == v && h->asked[i].steps == steps) return h->asked[i].keeps;
    bool keeps = ir_keeps_unique(h->loop, v, steps, NULL, 0);
    h->asked = xrealloc(h->asked, (size_t)(h->nasked + 1) * sizeof *h->asked);
    h->asked[h->nasked].v = v;
    h->asked[h->nasked].steps = steps;
    h->asked[h->nasked++].keeps = keeps;
    return keeps;
}

/* A copy of an index that is a literal or a variable (a field step too). */
static struct ir_node *copy_index(struct ir_node *s)
{
    struct ir_node *c = ir_new(s->op, s->loc, s->type);
    c->var = s->var, c->ival = s->ival, c->field = s->field;
    return c;
}

/* The unique statement for v's path kids[0..np) (with every, and each
 * element of its last array) before the loop, shared by the stores that
 * need the same one. */
static void add_op(struct hoist *h, struct ir_node *store, int np, bool every)
{
    for (int i = 0; i < h->nops; i++) {
        struct ir_node *op = h->ops[i];
        if (op->var != store->var || op->nkids != np || op->every != every) continue;
        bool same = true;
        for (int k = 0; same && k < np; k++) same = same_index(op->kids[k], store->kids[k]);
        if (!same) continue;
        if (store->unique_steps < op->unique_steps) op->unique_steps = store->unique_steps;
        return;
    }
    struct ir_node *op = ir_new(IR_UNIQUE, store->loc, ty_void);
    op->var = store->var;
    op->every = every;
    for (int k = 0; k < np; k++) ir_push_kid(op, copy_index(store->kids[k]));
    op->unique_steps = store->unique_steps < np + 1 ? store->unique_steps : np + 1;
    h->ops = xrealloc(h->ops, (size_t)(h->nops + 1) * sizeof *h->ops);
    h->ops[h->nops++] = op;
}

/* Whether loop L runs a literal range of fewer than 64 steps: the rows a
 * store in it reaches per entry are few, however many the array has. */
static bool few_rows(struct ir_node *L)
{
    if (L->op != IR_FOR_RANGE || !L->iter.is_range || L->iter.lo->op != IR_INT || L->iter.hi->op != IR_INT)
        return false;
    return (int64_t)L->iter.hi->ival - (int64_t)L->iter.lo->ival < 64;
}

/* A store in the loop: the most steps of its path made unique before the
 * loop (its indices there replaced by what they copy). Its first index
 * that changes in the loop, kids[ok], picks a row of the array the path
 * reaches so far; when that row is an array the store reaches into (step
 * ok + 1), and the innermost loop around the store changes the row too (it
 * reads a variable that loop defines, so no loop inside this one could make
 * the row unique once: the test would run at every store; a row no loop
 * changes, v[n - 1][k], is one row), every row is made unique before this
 * loop, `unique v[k0]..[k(ok-1)][*]`, once per entry of the loop: O(rows).
 * The cost model: this loop is outside that innermost loop (a star before
 * the loop that walks the rows would cost the rows at each of its entries,
 * however few it stores into: `for t in 0..3: b[t * 7 + r][0] += 1.0` over
 * 10^6 rows, 6 us -> 2.7 s with a star there), and that loop is not a
 * literal range of fewer than 64 steps; the per-store test elsewhere is an
 * inline test that writes the slot only when it copies (BRT_UNIQUE). The stars are chosen first (stars true), and then
 * a store whose invariant prefix a star covers takes its steps from it. */
static void hoist_store(struct hoist *h, struct ir_node *s, bool stars)
{
    if (s->var->type->kind != T_ARRAY && s->var->type->kind != T_TUPLE) return;
    struct ir_node *idx[64];
    int n = s->nkids < 64 ? s->nkids : 64, ok = 0; /* idx[0..ok) invariant */
    while (ok < n && (is_field_step(s->kids[ok]) || (idx[ok] = invariant(s->kids[ok], 0)))) {
        if (is_field_step(s->kids[ok])) idx[ok] = s->kids[ok];
        ok++;
    }
    bool row = ok + 1 < n && !is_field_step(s->kids[ok]) && !is_field_step(s->kids[ok + 1]) && s->unique_steps < ok + 2;
    if (row && stars && h->inner != h->loop && !few_rows(h->inner) && changes_in(h->inner, s->kids[ok]) &&
        !named_before(h->inner, s->kids[ok], 0) && loop_keeps(h, s->var, ok + 2)) {
        for (int k = 0; k < ok; k++)
            if (idx[k] != s->kids[k]) s->kids[k] = copy_index(idx[k]);
        add_op(h, s, ok, true);
        s->unique_steps = ok + 2;
        return;
    }
    if (stars) return;
    /* a star's rows at least as deep as this loop could make the path unique */
    for (int i = 0; i < h->nops; i++) {
        struct ir_node *op = h->ops[i];
        int p = op->nkids;
        if (!op->every || op->var != s->var || p > ok || p + 1 >= n || p + 2 <= s->unique_steps
            || p + 2 < (ok + 1 < n ? ok + 1 : n) || is_field_step(s->kids[p]) || is_field_step(s->kids[p + 1]))
            continue;
        bool same = true;
        for (int k = 0; same && k < p; k++) same = same_index(op->kids[k], idx[k]);
        if (!same) continue;
        for (int k = 0; k < p; k++)
            if (idx[k] != s->kids[k]) s->kids[k] = copy_index(idx[k]);
        s->unique_steps = p + 2;
        return;
    }
    /* step m - 1 reaches into an array: v's type (m = 1) or the path's so far */
    for (int m = ok + 1 < n ? ok + 1 : n; m > s->unique_steps; m--) {
        if (is_field_step(s->kids[m - 1])) continue;
        if (!loop_keeps(h, s->var, m)) continue;
        for (int k = 0; k < m - 1; k++)
            if (idx[k] != s->kids[k]) s->kids[k] = copy_index(idx[k]); /* what a let copied */
        add_op(h, s, m - 1, false);
        s->unique_steps = m;
        return;
    }
}

/* A push into an array variable, v.push(x), in the loop: v made unique
 * before the loop when the loop keeps it so, and the push then tests only
 * its room (emit: BRT_COLLECT), not v's count at every push. */
static void hoist_push(struct hoist *h, struct ir_node *s)
{
    if (s->nkids || s->unique_steps || !loop_keeps(h, s->var, 1)) return;
    add_op(h, s, 0, false);
    s->unique_steps = 1;
}

static void stores_in(struct hoist *h, struct ir_node *s, struct ir_node *inner, bool stars)
{
    if (!s) return;
    switch (s->sop) {
    case IR_BLOCK:
        for (int i = 0; i < s->nkids; i++) stores_in(h, s->kids[i], inner, stars);
        return;
    case IR_STORE:
        h->inner = inner;
        hoist_store(h, s, stars);
        return;
    case IR_PUSH:
        if (!stars) hoist_push(h, s);
        return;
    case IR_IF:
        stores_in(h, s->b, inner, stars);
        stores_in(h, s->c, inner, stars);
        return;
    case IR_WHILE: case IR_FOR_RANGE: case IR_FOR_ARRAY:
        stores_in(h, s->b, s, stars);
        stores_in(h, s->c, s, stars);
        return;
    case IR_LET: case IR_ASSIGN: case IR_UNIQUE: case IR_EXPR: case IR_RETURN: case IR_BREAK:
    case IR_CONTINUE: case IR_UNREACHABLE:
        return;
    }
}

static void unique_in(struct ir_node *s);

/* A block: before each loop in it, the unique statements it allows. */
static void unique_block(struct ir_node *b)
{
    struct vec kids = {0};
    for (int i = 0; i < b->nkids; i++) {
        struct ir_node *s = b->kids[i];
        if (s->op == IR_WHILE || s->op == IR_FOR_RANGE || s->op == IR_FOR_ARRAY) {
            struct hoist h = {.loop = s};
            defs_stmt(s);
            if (s->op == IR_WHILE) defs_expr(s->a);
            stores_in(&h, s->b, s, true);
            stores_in(&h, s->b, s, false);
            defs_done();
            for (int k = 0; k < h.nops; k++) vec_push(&kids, h.ops[k]);
            free(h.ops);
            free(h.asked);
        }
        vec_push(&kids, s);
        unique_in(s);
    }
    if (kids.len != b->nkids) {
        b->kids = xmalloc((size_t)kids.len * sizeof *b->kids); /* ir_push_kid's kind of array */
        memcpy(b->kids, kids.items, (size_t)kids.len * sizeof *b->kids);
        b->nkids = kids.len;
    }
}

static void unique_in(struct ir_node *s)
{
    if (!s) return;
    switch (s->sop) {
    case IR_BLOCK:
        unique_block(s);
        return;
    case IR_IF: case IR_WHILE: case IR_FOR_RANGE: case IR_FOR_ARRAY:
        unique_in(s->b);
        unique_in(s->c);
        return;
    case IR_LET: case IR_ASSIGN: case IR_STORE: case IR_PUSH: case IR_UNIQUE: case IR_EXPR: case IR_RETURN:
    case IR_BREAK: case IR_CONTINUE: case IR_UNREACHABLE:
        return;
    }
}

void opt_unique(struct ir_program *ir)
{
    size_t n = (size_t)ir->nvars + 2;
    DEF = xmalloc(n);
    memset(DEF, 0, n);
    LET_OF = xmalloc(n * sizeof *LET_OF);
    memset(LET_OF, 0, n * sizeof *LET_OF);
    TOUCHED = xmalloc(n * sizeof *TOUCHED);
    for (int i = 0; i < ir->fns.len; i++) unique_in(((struct ir_fn *)ir->fns.items[i])->body);
    free(DEF);
    free(LET_OF);
    free(TOUCHED);
}
