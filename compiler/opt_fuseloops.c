/*
 * opt_fuseloops.c: adjacent loops over the same range run as one (loop
 * fusion; opt_fuse.c is another thing: a comprehension a loop reads).
 *
 *     for j in lo..hi: A(j)        for j in lo..hi: A(j); B(j); C(j)
 *     for j in lo..hi: B(j)   ->
 *     for j in lo..hi: C(j)
 *
 * A run of adjacent statements of a block, each a sequential range loop
 * over the same lo and hi (ir_same_term, repeatable sums whose variables no
 * loop of the run writes), fuses when that cannot be seen:
 *   - the bodies are lets, assignments, stores and ifs of values with no
 *     effect (float math, len of a variable, no call, push, print, break,
 *     continue or return), none a take or a moved read (opt_move.c);
 *   - a variable one loop assigns, no other loop names (a fold across the
 *     loops, `s += x[j]` then `y[j] = s`, stays apart);
 *   - an array one loop stores into, another reads or stores only through
 *     index chains (or its len): for each such pair (a store, the other
 *     access) some step of their two index chains differs at every two
 *     different iterations: the loop variable plus the same literal in both
 *     (x[j] then x[j]: the same iteration's element), or the same term plus
 *     different literals, or the loop variable against a term its range
 *     leaves out (b[j][i] and b[i][j]: j in i + 1..n is never i). So every
 *     element one loop writes and another touches is the same iteration's,
 *     and each iteration sees what it saw in the loops as written;
 *   - panics: every loop but the last cannot panic where its guards hold
 *     (each check proved: in_bounds, no_overflow, or in_range_by /
 *     no_overflow_in naming it; opt_loops.c, opt_range.c). The fused loop
 *     carries the guards of all (its in_range_by marks name it), and keeps
 *     the loops as written (unfused): opt_version.c writes
 *
 *         if guards(j in lo..hi: all the loops' guards): fused, unchecked
 *         else: the loops as written (each versioned on its own)
 *
 *     so where a guard fails the program panics where and as written. In
 *     the fused loop only the last loop's part may panic, at the first
 *     iteration its loop as written panics at (the earlier parts ran every
 *     iteration before, as the earlier loops ran whole; nothing they do is
 *     output), with the same values: the same message. With no guard at
 *     all the fused loop replaces the run; with guards it needs the version
 *     pass (it fuses nothing then where `--opt=-version`).
 *
 * It runs after parfor (a loop on the pool is left alone; the fused loop is
 * sequential, so version writes it) and interchange and move, whose facts
 * it reads and keeps: a loop with a swap, a jam, guards tested outside, or
 * a loop inside is not fused.
 */
#include "ir.h"

#include <string.h>

#define MAX_RUN 8   /* loops fused into one at most */
#define MAX_ACC 64  /* index chains of one loop looked at */
#define MAX_PATH 8  /* steps of one chain */

static struct ir_program *P;

/* The loops of the run tried, in order. */
static struct ir_node *run[MAX_RUN];
static int nrun;

/* ---- what a body may hold, and whether it may panic ---------------------------- */

static bool may_panic; /* body_ok: a check the loop's guards do not prove */

static bool value_ok(const struct ir_node *e, const struct ir_node *L)
{
    if (!e) return true;
    bool kids = value_ok(e->a, L) && value_ok(e->b, L) && value_ok(e->c, L);
    for (int i = 0; kids && i < e->nkids; i++) kids = value_ok(e->kids[i], L);
    if (!kids) return false;
    struct type *t = e->optype;
    switch (e->eop) {
    case IR_INT: case IR_FLOAT: case IR_BOOL: case IR_NOT: case IR_AND: case IR_OR: case IR_COND: case IR_GLOBAL:
    case IR_FIELD:
        return true;
    case IR_VAR:
        return !e->moved;
    case IR_UNARY:
        if (t != ty_float && e->bop != OP_BNOT && !e->no_overflow && e->no_overflow_in != L) may_panic = true;
        return t == ty_float || type_is_integer(t);
    case IR_BINARY:
        if (t != ty_float && !type_is_integer(t) && t != ty_bool) return false;
        if (op_class[e->bop] == OPC_CMP || op_class[e->bop] == OPC_BITS) return true;
        if (t == ty_float ? e->bop == OP_MOD
                          : e->bop == OP_DIV || e->bop == OP_MOD || (!e->no_overflow && e->no_overflow_in != L))
            may_panic = true;
        return true;
    case IR_CONV:
        if (!type_is_numeric(t) || !type_is_numeric(e->type)) return false;
        if (!(type_is_integer(t) && e->type == ty_float) && !e->no_overflow) may_panic = true;
        return true;
    case IR_BUILTIN:
        return (e->builtin == BI_LEN && e->nkids == 1 && e->kids[0]->op == IR_VAR) || ir_float_math(e);
    case IR_INDEX:
        if (!e->in_bounds && e->in_range_by != L) may_panic = true;
        return !e->slot;
    case IR_STR: case IR_CALL: case IR_ARRAY: case IR_FSTRING: case IR_LISTCOMP: case IR_REDUCE: case IR_TUPLE:
    case IR_FNVAL: case IR_CALLV: case IR_GUARD_TEST:
        return false;
    }
    return false;
}

static bool body_ok(const struct ir_node *s, const struct ir_node *L)
{
    if (!s) return true;
    if (ir_is_expr(s)) return false;
    switch (s->sop) {
    case IR_BLOCK:
        for (int i = 0; i < s->nkids; i++)
            if (!body_ok(s->kids[i], L)) return false;
        return true;
    case IR_LET: return !s->take && value_ok(s->a, L);
    case IR_ASSIGN: return value_ok(s->a, L);
    case IR_STORE:
        for (int i = 0; i < s->nkids; i++)
            if (!s->kids[i] || s->kids[i]->op == IR_FIELD || !value_ok(s->kids[i], L)) return false;
        if (!s->in_bounds && s->in_range_by != L) may_panic = true;
        return !s->slot && value_ok(s->a, L);
    case IR_IF: return value_ok(s->a, L) && body_ok(s->b, L) && body_ok(s->c, L);
    case IR_PUSH: case IR_EXPR: case IR_UNIQUE: case IR_WHILE: case IR_FOR_RANGE: case IR_FOR_ARRAY: case IR_BREAK:
    case IR_CONTINUE: case IR_RETURN: case IR_UNREACHABLE:
        return false;
    }
    return false;
}

/* ---- index chains and their steps ---------------------------------------------- */

/* One use of an array in a loop: root[path[0]]..[path[n-1]]. */
struct access {
    struct ir_var *root;
    struct ir_node *path[MAX_PATH];
    int n;
    bool store;
};

struct uses {
    struct access acc[MAX_ACC];
    int n;
    bool bad; /* too many, or a chain too deep */
};

static void add_access(struct uses *u, struct ir_var *root, struct ir_node **path, int n, bool store)
{
    if (u->n == MAX_ACC || n > MAX_PATH || n < 1) {
        u->bad = true;
        return;
    }
    struct access *a = &u->acc[u->n++];
    a->root = root, a->n = n, a->store = store;
    memcpy(a->path, path, sizeof *path * (size_t)n);
}

static struct uses *U; /* uses_of's */

/* The accesses in n (a statement or an expression) into U: each store, and
 * each maximal index chain over a variable; a chain deeper than MAX_PATH
 * makes U bad. */
static void uses_of(struct ir_node *n)
{
    if (!n) return;
    if (n->op == IR_STORE) add_access(U, n->var, n->kids, n->nkids, true);
    if (n->op == IR_INDEX) {
        struct ir_node *steps[MAX_PATH + 1], *r = n;
        int k = 0;
        while (r->op == IR_INDEX && k <= MAX_PATH) steps[k++] = r->b, r = r->a;
        if (r->op == IR_INDEX) U->bad = true;
        if (r->op == IR_VAR && k <= MAX_PATH) {
            struct ir_node *path[MAX_PATH];
            for (int i = 0; i < k; i++) path[i] = steps[k - 1 - i];
            add_access(U, r->var, path, k, false);
            for (int i = 0; i < k; i++) uses_of(path[i]);
            return;
        }
    }
    ir_each_child(n, uses_of);
}

/* The accesses of loop L's body into u. */
static void loop_uses(struct uses *u, struct ir_node *L)
{
    u->n = 0, u->bad = false;
    U = u;
    uses_of(L->b);
}

/* Whether n reads v other than as the root of an index chain or len(v). */
static bool whole_read(const struct ir_node *n, struct ir_var *v)
{
    if (!n) return false;
    if (n->op == IR_VAR) return n->var == v;
    if (n->op == IR_BUILTIN && n->builtin == BI_LEN && n->nkids == 1 && n->kids[0]->op == IR_VAR) return false;
    if (n->op == IR_INDEX) {
        const struct ir_node *r = n;
        while (r->op == IR_INDEX) {
            if (whole_read(r->b, v)) return true;
            r = r->a;
        }
        return r->op != IR_VAR && whole_read(r, v);
    }
    if (whole_read(n->a, v) || whole_read(n->b, v) || whole_read(n->c, v)) return true;
    for (int i = 0; i < n->nkids; i++)
        if (whole_read(n->kids[i], v)) return true;
    return false;
}

/* Whether int terms a and b are the same: literals, variables, len of a
 * variable, and + - * of such. */
static bool same_term(const struct ir_node *a, const struct ir_node *b)
{
    return ir_same_expr(a, b, IR_SAME_LEN_VAR | IR_SAME_ARITH);
}

/* A step as the loop's variable plus k (var: true), or a term t the loops
 * cannot change plus k (t NULL: the literal k); false: neither. */
struct step {
    bool var;
    const struct ir_node *t;
    int64_t k;
};

/* Whether e (of loop L's) reads no variable a loop of the run defines or
 * writes, nor L's own. */
static bool invariant(const struct ir_node *e, const struct ir_node *L)
{
    if (!e) return true;
    if (e->op == IR_VAR) {
        if (e->var == L->var) return false;
        for (int i = 0; i < nrun; i++)
            if (ir_writes(run[i], e->var, true) || ir_defines(run[i]->b, e->var)) return false;
        return true;
    }
    if (!invariant(e->a, L) || !invariant(e->b, L) || !invariant(e->c, L)) return false;
    for (int i = 0; i < e->nkids; i++)
        if (!invariant(e->kids[i], L)) return false;
    return true;
}

static bool lit64(const struct ir_node *e, int64_t *k)
{
    if (e->op != IR_INT || e->type != ty_int) return false;
    __int128 v = (__int128)e->ival;
    if (v < -((__int128)1 << 40) || v > ((__int128)1 << 40)) return false;
    *k = (int64_t)v;
    return true;
}

static bool step_of(const struct ir_node *e, const struct ir_node *L, struct step *s)
{
    *s = (struct step){0};
    if (e->type != ty_int) return false;
    if (lit64(e, &s->k)) return true;
    const struct ir_node *base = e;
    if (e->op == IR_BINARY && (e->bop == OP_ADD || e->bop == OP_SUB) && lit64(e->b, &s->k)) {
        base = e->a;
        if (e->bop == OP_SUB) s->k = -s->k;
    } else if (e->op == IR_BINARY && e->bop == OP_ADD && lit64(e->a, &s->k)) {
        base = e->b;
    }
    if (base->op == IR_VAR && base->var == L->var) return s->var = true;
    if (!same_term(base, base) || !invariant(base, L)) return false;
    s->t = base;
    return true;
}

static bool same_base(const struct step *a, const struct step *b)
{
    return a->t == b->t || (a->t && b->t && same_term(a->t, b->t));
}

/* Whether the loop variable plus k is never the term x over the range:
 * lo is x's term plus more than x.k - k, or hi (exclusive) at most it. */
static bool range_leaves_out(int64_t k, const struct step *x)
{
    const struct ir_node *L = run[0];
    struct step lo, hi;
    int64_t d = x->k - k;
    if (step_of(L->iter.lo, L, &lo) && !lo.var && same_base(&lo, x) && lo.k > d) return true;
    return step_of(L->iter.hi, L, &hi) && !hi.var && same_base(&hi, x) && (L->iter.inclusive ? hi.k < d : hi.k <= d);
}

/* Whether steps a (of loop La) and b (of loop Lb) differ at any two
 * different iterations. */
static bool steps_apart(const struct ir_node *ea, const struct ir_node *La, const struct ir_node *eb,
                        const struct ir_node *Lb)
{
    struct step a, b;
    if (!step_of(ea, La, &a) || !step_of(eb, Lb, &b)) return false;
    if (a.var && b.var) return a.k == b.k;
    if (a.var) return range_leaves_out(a.k, &b);
    if (b.var) return range_leaves_out(b.k, &a);
    return same_base(&a, &b) && a.k != b.k;
}

/* Whether accesses x (of loop Lx) and y (of Ly, one of them a store) touch
 * one element only in one iteration. */
static bool accesses_apart(const struct access *x, const struct ir_node *Lx, const struct access *y,
                           const struct ir_node *Ly)
{
    int n = x->n < y->n ? x->n : y->n;
    for (int l = 0; l < n; l++)
        if (steps_apart(x->path[l], Lx, y->path[l], Ly)) return true;
    return false;
}

/* ---- the run ------------------------------------------------------------------- */

static struct uses run_uses[MAX_RUN];

/* Whether no variable statement s assigns is named by B. */
static bool assigns_apart(const struct ir_node *s, struct ir_node *B)
{
    if (!s || ir_is_expr(s)) return true;
    if (s->op == IR_ASSIGN) return !ir_names(B, s->var);
    if (!assigns_apart(s->b, B) || !assigns_apart(s->c, B)) return false;
    for (int i = 0; i < s->nkids; i++)
        if (!assigns_apart(s->kids[i], B)) return false;
    return true;
}

/* Whether the loops of run[0..nrun) can fuse, those before the last known
 * to. */
static bool fusable(void)
{
    int q = nrun - 1;
    struct ir_node *Lq = run[q];
    loop_uses(&run_uses[q], Lq);
    if (run_uses[q].bad) return false;
    for (int p = 0; p < q; p++) {
        struct ir_node *Lp = run[p];
        /* scalars: assigned on one side, named on the other */
        if (!assigns_apart(Lp->b, Lq) || !assigns_apart(Lq->b, Lp)) return false;
        /* arrays: a store on one side, an access of its root on the other */
        for (int side = 0; side < 2; side++) {
            struct ir_node *A = side ? Lp : Lq, *B = side ? Lq : Lp;
            struct uses *ua = &run_uses[side ? p : q], *ub = &run_uses[side ? q : p];
            for (int i = 0; i < ua->n; i++) {
                if (!ua->acc[i].store) continue;
                if (whole_read(B->b, ua->acc[i].root) || ir_mutates(B->b, ua->acc[i].root)) return false;
                for (int k = 0; k < ub->n; k++)
                    if (ub->acc[k].root == ua->acc[i].root && !accesses_apart(&ua->acc[i], A, &ub->acc[k], B))
                        return false;
            }
        }
    }
    return true;
}

/* Whether range loop L may be one of a run: sequential, no swap, jam or
 * guards tested outside, its body what body_ok allows, not writing its
 * variable; *panics: a check its guards do not prove. */
static bool candidate(struct ir_node *L, bool *panics)
{
    if (L->op != IR_FOR_RANGE || L->par || L->chunk || L->swap || L->jam || L->nslots || L->guards_outside ||
        L->fast_in || L->slow || L->unfused || !L->b || ir_writes(L->b, L->var, false))
        return false;
    may_panic = false;
    bool ok = body_ok(L->b, L);
    *panics = may_panic;
    return ok;
}

/* Whether loop M has run[0]'s range: the same terms, which no loop of the
 * run writes (M's included) and which evaluated again give the same value. */
static bool same_range(struct ir_node *M)
{
    struct ir_node *L = run[0];
    if (M->iter.inclusive != L->iter.inclusive || !same_term(M->iter.lo, L->iter.lo) ||
        !same_term(M->iter.hi, L->iter.hi) || !ir_repeatable_sum(L->iter.lo) || !ir_repeatable_sum(L->iter.hi))
        return false;
    run[nrun] = M; /* invariant() looks at the run with M in it */
    nrun++;
    bool ok = invariant(L->iter.lo, L) && invariant(L->iter.hi, L);
    nrun--;
    return ok;
}

/* ---- the fused loop ------------------------------------------------------------ */

static bool version_on; /* the version pass runs: loops with guards may fuse */

/* The marks naming a loop of the run in n name F instead. */
static struct ir_node *retarget_to;

static void retarget(struct ir_node *n)
{
    if (!n) return;
    for (int i = 0; i < nrun; i++) {
        if (n->in_range_by == run[i]) n->in_range_by = retarget_to;
        if (n->no_overflow_in == run[i]) n->no_overflow_in = retarget_to;
    }
    ir_each_child(n, retarget);
}

static bool same_guard(const struct ir_guard *a, const struct ir_guard *b)
{
    return a->arr == b->arr && a->at_var == b->at_var && !a->npath && !b->npath && a->fixed == b->fixed &&
           a->idx_var == b->idx_var && !a->base && !b->base && a->off == b->off && a->rows == b->rows &&
           a->row_off == b->row_off && a->cols == b->cols && a->outer_rows == b->outer_rows && !a->at && !b->at &&
           a->at_outer == b->at_outer && a->inner == b->inner;
}

/* Loop L's views (rows: its rowmins), *n of them. */
static struct ir_var **listed(const struct ir_node *L, bool rows, int *n)
{
    *n = rows ? L->nrowmins : L->nviews;
    return rows ? L->rowmins : L->views;
}

/* The fused loop's views (rows: rowmins): those of the run's loops that
 * every loop of it lists or does not name (arrays whose data, length or
 * rows' lengths none of them changes). */
static struct ir_var **common_vars(bool rows, int *nout)
{
    struct ir_var **out = NULL;
    int n = 0, cap = 0;
    for (int i = 0; i < nrun; i++) {
        int nvs;
        struct ir_var **vs = listed(run[i], rows, &nvs);
        for (int k = 0; k < nvs; k++) {
            bool ok = true;
            for (int m = 0; m < n; m++) ok &= out[m] != vs[k];
            for (int j = 0; j < nrun && ok; j++) {
                int nws;
                struct ir_var **ws = listed(run[j], rows, &nws);
                bool here = false;
                for (int m = 0; m < nws; m++) here |= ws[m] == vs[k];
                ok = here || !ir_names(run[j], vs[k]);
            }
            if (!ok) continue;
            if (n == cap) {
                struct ir_var **grown = arena_alloc(sizeof *grown * (size_t)(cap = cap ? 2 * cap : 8));
                if (n) memcpy(grown, out, sizeof *out * (size_t)n);
                out = grown;
            }
            out[n++] = vs[k];
        }
    }
    *nout = n;
    return out;
}

/* The run fused: one loop over run[0]'s range, the bodies' copies in order
 * (fresh variables, each loop's variable the fused loop's), the guards and
 * marks of all, the loops as written kept (unfused) where it has guards. */
static struct ir_node *fused(void)
{
    struct ir_node *F = ir_copy_fresh(P, run[0]), *body = ir_new(IR_BLOCK, F->loc, ty_void);
    ir_push_kid(body, F->b);
    for (int i = 1; i < nrun; i++) {
        struct ir_node *c = ir_copy_fresh(P, run[i]);
        ir_push_kid(body, ir_copy_renamed(c->b, c->var, F->var)); /* its variable the fused loop's */
    }
    F->b = body;
    int ng = 0;
    for (int i = 0; i < nrun; i++) ng += run[i]->nguards;
    F->guards = ng ? arena_alloc(sizeof *F->guards * (size_t)ng) : NULL;
    F->nguards = 0;
    for (int i = 0; i < nrun; i++)
        for (int k = 0; k < run[i]->nguards; k++) {
            bool dup = false;
            for (int m = 0; m < F->nguards; m++) dup |= same_guard(&F->guards[m], &run[i]->guards[k]);
            if (!dup) F->guards[F->nguards++] = run[i]->guards[k];
        }
    F->views = common_vars(false, &F->nviews);
    F->rowmins = common_vars(true, &F->nrowmins);
    retarget_to = F;
    retarget(F->b);
    if (F->nguards) {
        F->unfused = ir_new(IR_BLOCK, F->loc, ty_void);
        for (int i = 0; i < nrun; i++) ir_push_kid(F->unfused, run[i]);
    }
    return F;
}

/* Whether statement u of a block, between loops of the run, may run before
 * the run: a unique statement (copying an array earlier is not seen) of an
 * array each loop of the run does not name or keeps unique (ir_keeps_unique:
 * only indexes and stores into), over a path of variables none writes. */
static bool unique_first(struct ir_node *u)
{
    if (u->op != IR_UNIQUE) return false;
    for (int i = 0; i < nrun; i++) {
        if (ir_names(run[i], u->var) && !ir_keeps_unique(run[i], u->var, u->nkids + 1 + u->every, u->kids, u->nkids))
            return false;
        for (int k = 0; k < u->nkids; k++)
            if (u->kids[k]->op != IR_INT &&
                (u->kids[k]->op != IR_VAR || ir_writes(run[i], u->kids[k]->var, true) || ir_defines(run[i], u->kids[k]->var)))
                return false;
    }
    return true;
}

/* The runs of block b's statements, inner blocks first: a run's loops, and
 * the unique statements between them (moved before it), become the fused
 * loop. */
static void fuse_block(struct ir_node *b)
{
    for (int i = 0; i < b->nkids; i++) ir_stmt_blocks(b->kids[i], fuse_block);
    for (int i = 0; i + 1 < b->nkids; i++) {
        bool panics;
        if (!candidate(b->kids[i], &panics)) continue;
        nrun = 1;
        run[0] = b->kids[i];
        loop_uses(&run_uses[0], run[0]);
        bool guards = run[0]->nguards, last_panics = panics;
        struct ir_node *uniques[MAX_RUN * 4];
        int nu = 0, end = i + 1; /* b->kids[i .. end): the run and the unique statements in it */
        while (nrun < MAX_RUN && !last_panics && !run_uses[0].bad) {
            int at = end, nu_at = nu;
            while (at < b->nkids && nu < MAX_RUN * 4 && unique_first(b->kids[at])) uniques[nu++] = b->kids[at++];
            struct ir_node *M = at < b->nkids ? b->kids[at] : NULL;
            if (!M || !candidate(M, &panics) || !same_range(M) || (!version_on && (guards || M->nguards))) {
                nu = nu_at;
                break;
            }
            run[nrun++] = M;
            if (!fusable()) {
                nrun--, nu = nu_at;
                break;
            }
            guards |= M->nguards;
            last_panics = panics;
            end = at + 1;
        }
        if (nrun < 2) continue;
        struct ir_node *F = fused();
        int k = i;
        for (int u = 0; u < nu; u++) b->kids[k++] = uniques[u];
        b->kids[k] = F;
        memmove(&b->kids[k + 1], &b->kids[end], sizeof *b->kids * (size_t)(b->nkids - end));
        b->nkids -= end - (k + 1);
        i = k;
    }
    nrun = 0;
}

void opt_fuseloops(struct ir_program *ir)
{
    P = ir;
    version_on = opt_pass_on("version");
    for (int i = 0; i < ir->fns.len; i++) fuse_block(((struct ir_fn *)ir->fns.items[i])->body);
    P = NULL;
}
