/*
 * emit_rows.c: the rows a guarded innermost loop reads and stores, held in
 * `restrict` locals of its fast copy; and (rows ahead, at the end) the row
 * further on that a loop over short rows fetches toward the cache.
 *
 * In the fast copy of a versioned range loop (opt_version.c: fast_in), an
 * element access u[i - 1][j][k] whose row u[i - 1][j] the loop cannot
 * change (its indices literals, variables the loop never sets, or one of
 * them + or - a literal; u never set in the loop) reads the row's data
 * pointer once, before the loop, into a local; the loop then indexes the
 * local. A store v[i][j][k] = x whose path the unique pass made unique
 * before the loop (unique_steps covers every row) does the same for the
 * row it stores into.
 *
 * The locals are `restrict`: the rows a loop stores into are distinct from
 * the rows it reads through other locals, so gcc keeps what it loaded in
 * registers across a store and vectorizes without a run-time alias test.
 * Why that holds: a store changes an array in place only after each array
 * on its path was made unique (rc 1, opt_unique.c), so by value semantics
 * no other variable can observe the row it changes: if another variable's
 * row were that row, the existing in-place store would already be wrong.
 * The one way left to reach the stored row is the same variable by another
 * path (v[i][j2][k] with j2 == j, v[i] as a value, len(v)), so the locals
 * are made only when every mention of a stored variable in the loop is an
 * element access through one path, which shares the one local, or through
 * a row that differs from it by a literal at some index (v[i - 1] beside
 * v[i], a dynamic program's table: rows_apart). Nothing in
 * the loop may call a function, build a comprehension or run a loop, and
 * every store in it must be one of these (else no locals at all).
 *
 * gcc 12 does not use a local's restrict to tell pointers apart, so a loop
 * whose stored rows are each accessed at the loop's index only (k, k + 1:
 * one for all) also gets `#pragma GCC ivdep` (no_carried): no iteration
 * touches an element another stores. Such a loop, with no break or
 * continue, keeps each stored element in a local through its iteration
 * (open_row_elems), and reads an element of a row it does not store at an
 * index it cannot change once, before it.
 *
 * A column m[j][i] (the row changing along the loop) is read instead through
 * a table of the rows' data that the loop keeping m's rowmin fills as its
 * column guards scan the rows (column tables, below).
 *
 * A nest whose inner loop takes flat arrays into such locals, its guards
 * tested before the outer loop, is written inside a nested function whose
 * restrict parameters are those arrays' data (restrict nests, at the end),
 * so that gcc tells them apart across the outer loop and jams it.
 *
 * The guard proves every row on each path in range whenever the loop runs
 * (the guard is tested before it, emit_guards.c; by_guard, not a range fact
 * that may rest on a branch inside the loop); the locals are read only
 * when the loop runs at least once (lo < hi), so an empty loop reads none.
 */
#include "emit_c.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

enum { MAXPATHS = 32, MAXUSES = 64, MAXSET = 64, MAXDEPTH = 8 };

struct rpath {
    struct ir_var *root;
    struct ir_node *idx[MAXDEPTH]; /* the row's indices, root[idx[0]]..[idx[n-1]] */
    int n;
    bool stored;
    struct type *elem;
};

struct rscan {
    struct ir_node *loop;
    struct ir_var *set[MAXSET];   /* variables the loop sets (and its own) */
    int nset, nsets[MAXSET];      /* and how many times each is set */
    struct ir_var *copy_of[MAXSET]; /* a let's, of another variable (lowering's index copies), or NULL */
    struct ir_var *plain[MAXSET]; /* variables named other than as a path's root */
    int nplain;
    struct rpath paths[MAXPATHS];
    int npaths;
    struct ir_node *uses[MAXUSES];
    int use_path[MAXUSES];
    int nuses;
    bool bad, jumps;
};

static bool in_set(struct ir_var **xs, int n, struct ir_var *v)
{
    for (int i = 0; i < n; i++)
        if (xs[i] == v) return true;
    return false;
}

static void add_set(struct rscan *r, struct ir_var **xs, int *n, struct ir_var *v)
{
    if (in_set(xs, *n, v)) return;
    if (*n >= MAXSET) r->bad = true;
    else xs[(*n)++] = v;
}

/* A variable set in the loop only by a let of another variable that the
 * loop never sets (c[i][j] += x: lowering's `let t = i`) stands for that
 * variable; the loop's own variable stands for itself. */
static struct ir_var *resolve(struct rscan *r, struct ir_var *v)
{
    for (int i = 0; i < r->nset; i++)
        if (r->set[i] == v) return r->nsets[i] == 1 && r->copy_of[i] ? r->copy_of[i] : v;
    return v;
}

/* A variable the loop sets, and how: s a let or an assignment. */
static void note_set(struct rscan *r, struct ir_node *s)
{
    int i = 0;
    while (i < r->nset && r->set[i] != s->var) i++;
    if (i == r->nset) {
        add_set(r, r->set, &r->nset, s->var);
        if (r->bad) return;
        r->nsets[i] = 0, r->copy_of[i] = NULL;
    }
    r->nsets[i]++;
    if (s && s->op == IR_LET && s->a->op == IR_VAR && s->a->type == ty_int) r->copy_of[i] = s->a->var;
}

/* The variables the loop body sets; anything that is not plain code
 * (a loop, a push, a unique statement) makes the scan bad. */
static void scan_sets(struct rscan *r, struct ir_node *s)
{
    if (!s || r->bad) return;
    switch ((enum ir_stmt_op)s->op) {
    case IR_BLOCK:
        for (int i = 0; i < s->nkids; i++) scan_sets(r, s->kids[i]);
        return;
    case IR_LET:
    case IR_ASSIGN: note_set(r, s); return;
    case IR_IF:
        scan_sets(r, s->b);
        scan_sets(r, s->c);
        return;
    case IR_STORE:
    case IR_EXPR:
    case IR_BREAK:
    case IR_CONTINUE: return;
    case IR_PUSH:
    case IR_UNIQUE:
    case IR_WHILE:
    case IR_FOR_RANGE:
    case IR_FOR_ARRAY:
    case IR_RETURN:
    case IR_UNREACHABLE: r->bad = true; return;
    }
    r->bad = true;
}

/* An index the loop cannot change: a literal, a variable it never sets, or
 * one of those + or - a literal (what a guard's path names). */
static bool fixed_index(struct rscan *r, struct ir_node *e)
{
    if (e->type != ty_int) return false;
    if (e->op == IR_INT) return true;
    if (e->op == IR_VAR) return !e->moved && !in_set(r->set, r->nset, resolve(r, e->var));
    if (e->op == IR_BINARY && (e->bop == OP_ADD || e->bop == OP_SUB))
        return e->a->op == IR_VAR && fixed_index(r, e->a) && e->b->op == IR_INT;
    return false;
}

static bool same_index(struct rscan *r, struct ir_node *a, struct ir_node *b)
{
    if (a->op != b->op) return false;
    if (a->op == IR_INT) return a->ival == b->ival;
    if (a->op == IR_VAR) return resolve(r, a->var) == resolve(r, b->var);
    if (a->op != IR_BINARY) return false;
    return a->bop == b->bop && same_index(r, a->a, b->a) && same_index(r, a->b, b->b);
}

/* The path of root[idx[0]]..[idx[n-1]] among the scan's, added if new; -1
 * when there is no room. */
static int path_of(struct rscan *r, struct ir_var *root, struct ir_node **idx, int n, struct type *elem)
{
    for (int p = 0; p < r->npaths; p++) {
        struct rpath *q = &r->paths[p];
        if (q->root != root || q->n != n) continue;
        bool same = true;
        for (int i = 0; i < n && same; i++) same = same_index(r, q->idx[i], idx[i]);
        if (same) return p;
    }
    if (r->npaths >= MAXPATHS) return -1;
    struct rpath *q = &r->paths[r->npaths];
    *q = (struct rpath){.root = root, .n = n, .elem = elem};
    memcpy(q->idx, idx, (size_t)n * sizeof *idx);
    return r->npaths++;
}

static void add_use(struct rscan *r, struct ir_node *n, int p)
{
    if (p < 0 || r->nuses >= MAXUSES) {
        r->bad = true;
        return;
    }
    r->uses[r->nuses] = n;
    r->use_path[r->nuses++] = p;
}

static void scan_expr(struct rscan *r, struct ir_node *e);

/* Whether the loop's guard proves n's index for every iteration: a fact
 * that holds before the loop, unlike opt_range.c's (in_bounds), which may
 * rest on a branch inside it. */
static bool by_guard(struct rscan *r, struct ir_node *n)
{
    return n->in_range_by == r->loop || (r->loop->fast_in && n->in_range_by == r->loop->fast_in);
}

/* An element read root[i0]..[ik][x] with every row on the way fixed in the
 * loop and proved by its guard: one use of the row's path. */
static bool row_read(struct rscan *r, struct ir_node *n)
{
    struct ir_node *idx[MAXDEPTH];
    int d = 0;
    if (!in_guarded_loop(n) || type_is_ref(n->type)) return false;
    struct ir_node *a = n->a;
    for (; a->op == IR_INDEX; a = a->a) {
        if (d >= MAXDEPTH || !by_guard(r, a) || !fixed_index(r, a->b)) return false;
        idx[d++] = a->b;
    }
    if (a->op != IR_VAR || a->moved || in_set(r->set, r->nset, a->var)) return false;
    for (int i = 0; i < d / 2; i++) {
        struct ir_node *t = idx[i];
        idx[i] = idx[d - 1 - i], idx[d - 1 - i] = t;
    }
    add_use(r, n, path_of(r, a->var, idx, d, n->type));
    scan_expr(r, n->b);
    return true;
}

static void scan_expr(struct rscan *r, struct ir_node *e)
{
    if (!e || r->bad) return;
    switch ((enum ir_expr_op)e->op) {
    case IR_INT:
    case IR_FLOAT:
    case IR_BOOL:
    case IR_STR:
    case IR_GLOBAL: return;
    case IR_VAR: add_set(r, r->plain, &r->nplain, e->var); return;
    case IR_INDEX:
        if (row_read(r, e)) return;
        break;
    case IR_BUILTIN:
        /* a builtin changes no array it is not handed */
        for (int i = 0; i < e->nkids; i++)
            if (e->kids[i]->type->kind == T_ARRAY) r->bad = true;
        break;
    case IR_CALL:
    case IR_CALLV: case IR_GUARD_TEST:
    case IR_FNVAL:
    case IR_LISTCOMP:
    case IR_REDUCE:
    case IR_ARRAY: r->bad = true; return;
    case IR_UNARY:
    case IR_NOT:
    case IR_BINARY:
    case IR_AND:
    case IR_OR:
    case IR_COND:
    case IR_CONV:
    case IR_FSTRING:
    case IR_TUPLE:
    case IR_FIELD: break;
    }
    scan_expr(r, e->a);
    scan_expr(r, e->b);
    scan_expr(r, e->c);
    for (int i = 0; i < e->nkids; i++) scan_expr(r, e->kids[i]);
}

/* A store root[k0]..[kn-1] = x into a row unique before the loop: one use
 * of the row's path, which it stores into. */
static void scan_store(struct rscan *r, struct ir_node *s)
{
    int n = s->nkids - 1;
    if (n < 0 || n >= MAXDEPTH || s->slot || s->unique_steps < s->nkids || !by_guard(r, s) ||
        type_is_ref(s->a->type) || in_set(r->set, r->nset, s->var)) {
        r->bad = true;
        return;
    }
    for (int i = 0; i <= n; i++)
        if (s->kids[i]->op == IR_FIELD && !s->kids[i]->a) r->bad = true;
    for (int i = 0; i < n; i++)
        if (!fixed_index(r, s->kids[i])) r->bad = true;
    if (r->bad) return;
    int p = path_of(r, s->var, s->kids, n, s->a->type);
    add_use(r, s, p);
    if (p >= 0) r->paths[p].stored = true;
    scan_expr(r, s->kids[n]);
    scan_expr(r, s->a);
}

static void scan_stmt(struct rscan *r, struct ir_node *s)
{
    if (!s || r->bad) return;
    switch (s->op) {
    case IR_BLOCK:
        for (int i = 0; i < s->nkids; i++) scan_stmt(r, s->kids[i]);
        return;
    case IR_LET:
    case IR_ASSIGN:
        if (type_is_ref(s->var->type)) r->bad = true; /* a row let: a second name */
        scan_expr(r, s->a);
        return;
    case IR_EXPR: scan_expr(r, s->a); return;
    case IR_IF:
        scan_expr(r, s->a);
        scan_stmt(r, s->b);
        scan_stmt(r, s->c);
        return;
    case IR_STORE: scan_store(r, s); return;
    case IR_BREAK:
    case IR_CONTINUE: r->jumps = true; return;
    default: r->bad = true; return;
    }
}

/* A fixed index as a variable (resolved; NULL for a literal) and a
 * literal offset; false when the offset is not an int64 (- INT64_MIN). */
static bool index_parts(struct rscan *r, struct ir_node *e, struct ir_var **v, int64_t *off)
{
    *v = NULL, *off = 0;
    if (e->op == IR_INT) {
        *off = (int64_t)e->ival;
        return true;
    }
    if (e->op == IR_BINARY) {
        int64_t c = (int64_t)e->b->ival;
        if (e->bop == OP_SUB && c == INT64_MIN) return false;
        *off = e->bop == OP_ADD ? c : -c;
        e = e->a;
    }
    *v = resolve(r, e->var);
    return true;
}

/* Whether fixed indices a and b differ: the same variable (or none) plus
 * different literals. */
static bool index_apart(struct rscan *r, struct ir_node *a, struct ir_node *b)
{
    struct ir_var *va, *vb;
    int64_t oa, ob;
    return index_parts(r, a, &va, &oa) && index_parts(r, b, &vb, &ob) && va == vb && oa != ob;
}

/* Whether rows q and p (p stored) of one variable are different arrays:
 * their paths agree up to a level where their indices differ. The stored
 * row and every row on its path are unique (rc 1) before the loop, and the
 * loop changes no row of the variable, so each is held by its one slot:
 * a different slot of the same array holds a different row, and no row
 * under it is one of the stored path's (t[i - 1] and t[i] of an edit
 * distance's table; t[1] = t[0] shared the row, the unique copied it). */
static bool rows_apart(struct rscan *r, const struct rpath *p, const struct rpath *q)
{
    if (q->n != p->n) return false;
    for (int i = 0; i < p->n; i++)
        if (!same_index(r, p->idx[i], q->idx[i])) return index_apart(r, p->idx[i], q->idx[i]);
    return false;
}

/* Every mention of a stored variable is an access through its one stored
 * path or through a row apart from it (rows_apart), so the path's local is
 * the only way to its row. */
static bool stores_apart(struct rscan *r)
{
    for (int p = 0; p < r->npaths; p++) {
        if (!r->paths[p].stored) continue;
        struct ir_var *v = r->paths[p].root;
        if (in_set(r->plain, r->nplain, v)) return false;
        for (int q = 0; q < r->npaths; q++)
            if (q != p && r->paths[q].root == v && !rows_apart(r, &r->paths[p], &r->paths[q])) return false;
    }
    return true;
}

/* The element index of use n: a read's, or a store's last. */
static struct ir_node *last_index(struct ir_node *n)
{
    return n->op == IR_INDEX ? n->b : n->kids[n->nkids - 1];
}

/* Whether e is the loop's variable, or it + or - a literal. */
static bool steps_with_loop(struct rscan *r, struct ir_node *e)
{
    if (e->op == IR_BINARY && (e->bop == OP_ADD || e->bop == OP_SUB) && e->b->op == IR_INT) e = e->a;
    return e->op == IR_VAR && resolve(r, e->var) == r->loop->var;
}

/* Whether no element the loop stores is touched by another of its
 * iterations: each stored row is accessed at one index, the loop's variable
 * (+ or - a literal), so iteration k stores and reads only its own element
 * there; the rows read are not stored (stores_apart). Then the loop has no
 * dependence carried from one iteration to the next through memory, and
 * `#pragma GCC ivdep` tells gcc so: it vectorizes without testing the rows
 * for overlap at run time (it does not use a local's restrict for that). */
static bool no_carried(struct rscan *r)
{
    for (int p = 0; p < r->npaths; p++) {
        if (!r->paths[p].stored) continue;
        struct ir_node *at = NULL;
        for (int u = 0; u < r->nuses; u++) {
            if (r->use_path[u] != p) continue;
            struct ir_node *x = last_index(r->uses[u]);
            if (!at) at = x;
            if (!steps_with_loop(r, x) || !same_index(r, at, x)) return false;
        }
    }
    return true;
}

/* An index the loop cannot change, in C: the guard proved it in range, so
 * it did not overflow either. */
static const char *index_c(struct rscan *r, struct ir_node *e)
{
    if (e->op == IR_INT) return arena_printf("%" PRId64 "LL", (int64_t)e->ival);
    if (e->op == IR_VAR) return vname(resolve(r, e->var));
    return arena_printf("(%s %s %s)", index_c(r, e->a), e->bop == OP_ADD ? "+" : "-", index_c(r, e->b));
}

/* The parameter of restrict_nest's nested function that holds the data of
 * flat array q->root, for the nest's inner loop r->loop; NULL: none (not
 * that loop, a row of rows, no room). */
static const char *nest_param(struct rscan *r, struct rpath *q, const char *ct)
{
    if (CG->nest_inner != r->loop || CG->nest_fn != F || q->n) return NULL;
    for (int i = 0; i < CG->nnestparams; i++)
        if (CG->nestparams[i].root == q->root) return CG->nestparams[i].name;
    if (CG->nnestparams >= (int)(sizeof CG->nestparams / sizeof CG->nestparams[0])) return NULL;
    const char *name = arena_printf("bp_data_%s", vname(q->root));
    CG->nestparams[CG->nnestparams++] = (struct nestparam){q->root, name, ct};
    return name;
}

int open_row_locals(struct ir_node *s, const char *lo, const char *hi, bool *ivdep)
{
    int mark = CG->nrowlocs;
    *ivdep = false;
    if (!s->fast_in || s->op != IR_FOR_RANGE || s->iter.lo->type != ty_int) return mark; /* (never in a jam's copy: ir_verify) */
    struct rscan *r = arena_alloc(sizeof *r);
    memset(r, 0, sizeof *r);
    r->loop = s;
    add_set(r, r->set, &r->nset, s->var);
    r->nsets[0] = 1, r->copy_of[0] = NULL;
    scan_sets(r, s->b);
    scan_stmt(r, s->b);
    if (r->bad || !r->nuses || !stores_apart(r) || CG->nrowlocs + r->nuses > (int)(sizeof CG->rowlocs / sizeof CG->rowlocs[0]))
        return mark;
    const char **names = arena_alloc((size_t)r->npaths * sizeof *names);
    const char *runs = arena_printf("%s %s %s", lo, s->iter.inclusive ? "<=" : "<", hi);
    for (int p = 0; p < r->npaths; p++) {
        struct rpath *q = &r->paths[p];
        const char *row = vname(q->root);
        for (int i = 0; i < q->n; i++) row = arena_printf("BRT_AT(brt_arr *, %s, %s)", row, index_c(r, q->idx[i]));
        const char *ct = ctype(q->elem), *param = nest_param(r, q, ct);
        names[p] = new_temp();
        if (param) line("%s%s *restrict %s = %s ? %s : NULL;", q->stored ? "" : "const ", ct, names[p], runs, param);
        else line("%s%s *restrict %s = %s ? (%s *)%s->data : NULL;", q->stored ? "" : "const ", ct, names[p], runs, ct, row);
    }
    /* with no dependence carried, each stored element also lives in a
     * local through its iteration: loaded at its start (dead, and dropped
     * by gcc, when the first access stores), stored back at its end; gcc
     * cannot tell the store from the rows read after it, and stored the
     * element again at every `+=` (stencil3/accum_main). A loop that may
     * leave an iteration early (break, continue) keeps the stores. */
    bool apart = no_carried(r);
    *ivdep = apart;
    const char **elems = arena_alloc((size_t)r->npaths * sizeof *elems);
    for (int p = 0; p < r->npaths; p++) {
        elems[p] = NULL;
        if (!apart || r->jumps || !r->paths[p].stored || CG->nrowelems >= 16) continue;
        struct ir_node *at = NULL;
        bool proved = true; /* the load at the iteration's start reads what no access may */
        for (int u = 0; u < r->nuses; u++)
            if (r->use_path[u] == p) {
                at = last_index(r->uses[u]);
                proved = proved && by_guard(r, r->uses[u]);
            }
        if (!proved) continue;
        elems[p] = new_temp();
        CG->rowelems[CG->nrowelems++] = (struct rowelem){s, names[p], elems[p], at, r, ctype(r->paths[p].elem), F, NULL};
    }
    /* an element the loop reads at an index it cannot change, of a row it
     * does not store (w[di][dj] in a convolution): read once, before it.
     * gcc kept such loads in the loop once it had no alias test left to
     * version the loop on (conv/loops_fn: nine loads a step) */
    const char **fixed = arena_alloc((size_t)r->nuses * sizeof *fixed);
    for (int u = 0; u < r->nuses; u++) {
        struct ir_node *n = r->uses[u];
        int p = r->use_path[u];
        fixed[u] = NULL;
        if (n->op != IR_INDEX || r->paths[p].stored || (n->type != ty_float && n->type != ty_int) ||
            !by_guard(r, n) || !fixed_index(r, n->b))
            continue;
        for (int w = 0; w < u && !fixed[u]; w++)
            if (fixed[w] && r->use_path[w] == p && same_index(r, r->uses[w]->b, n->b)) fixed[u] = fixed[w];
        if (fixed[u]) continue;
        fixed[u] = new_temp();
        line("const %s %s = %s ? %s[%s] : 0;", ctype(n->type), fixed[u], runs, names[p], index_c(r, n->b));
    }
    for (int u = 0; u < r->nuses; u++) {
        const char *elem = fixed[u] ? fixed[u] : elems[r->use_path[u]];
        CG->rowlocs[CG->nrowlocs++] = (struct rowloc){r->uses[u], names[r->use_path[u]], elem, F};
    }
    return mark;
}

/* In loop s's iteration, after its head: the stored elements' locals. */
void open_row_elems(struct ir_node *s)
{
    for (int i = 0; i < CG->nrowelems; i++) {
        struct rowelem *e = &CG->rowelems[i];
        if (e->loop != s || e->fn != F) continue;
        e->at_c = index_c(e->scan, e->at); /* the loop's variable is declared now */
        /* a bool read as its byte: the element may not be set yet (the
         * iteration's first access stores it; cover.c made the array
         * without its fill), and a C bool holding a byte other than 0 or 1
         * is undefined even where the value is dead */
        if (strcmp(e->ct, "bool") == 0)
            line("bool %s = *(const unsigned char *)&%s[%s] != 0;", e->name, e->row, e->at_c);
        else
            line("%s %s = %s[%s];", e->ct, e->name, e->row, e->at_c);
    }
}

/* At the end of loop s's iteration: the stored elements stored back. */
void close_row_elems(struct ir_node *s)
{
    int keep = 0;
    for (int i = 0; i < CG->nrowelems; i++) {
        struct rowelem *e = &CG->rowelems[i];
        if (e->loop == s && e->fn == F) line("%s[%s] = %s;", e->row, e->at_c, e->name);
        else CG->rowelems[keep++] = *e;
    }
    CG->nrowelems = keep;
}

void close_row_locals(int mark) { CG->nrowlocs = mark; }

const struct rowloc *row_local(struct ir_node *n)
{
    for (int i = CG->nrowlocs - 1; i >= 0; i--)
        if (CG->rowlocs[i].n == n && CG->rowlocs[i].fn == F) return &CG->rowlocs[i];
    return NULL;
}

/* ---- column tables ------------------------------------------------------- */

/* A column m[i + c][k] reads a new row each step: its header, then the
 * row's data pointer, then the element, a load more than C's double ** and
 * a cache line more per step (the in-place transpose's column: 20M D1
 * misses against C's 8.6M). The loop around that keeps m's rowmin for the
 * column guards (opt_loops.c) keeps a table of the rows' data pointers
 * too, filled by bp_rowmin_grow as it scans each row's length, when no
 * row's data can move in that loop: every store into m there already
 * unique as deep as its row (unique_steps >= 2, so no copy-on-write
 * replaces a row's data), no unique, push or assignment of m, and no whole
 * row stored (the rowmin's own condition). A column access its loop's
 * column guard proved (by_cols) then reads the table, whose rows are those
 * the guard's test scanned. The table is an [int] of the function (one
 * allocation per call, reused by each entry of the loop, released at exit
 * and on a panic's unwinding as any temporary). */
static struct ir_var *kd_var;
static bool kd_moves, kd_reads, kd_quiet; /* kd_quiet: in a swapped or jammed nest's versioned if: no reads */

/* Whether column access n of m (by_cols) is one col_table will read
 * through the table: its fast copy a versioned if's (opt_version.c) or a
 * generator's. A swapped or jammed nest's (either copy of its versioned
 * if: rows_move), or a loop on the pool's (another C function) reads the
 * rows as it did. */
static bool table_read(struct ir_node *n)
{
    struct ir_var *root = n->op == IR_INDEX && n->a->op == IR_INDEX ? n->a->a->var : !ir_is_expr(n) ? n->var : NULL;
    struct ir_node *by = n->in_range_by;
    return n->by_cols && root == kd_var && by && (by->op == IR_IF || ir_is_expr(by));
}

static void rows_move(struct ir_node *n)
{
    if (!n || kd_moves) return;
    if (!ir_is_expr(n) && n->var == kd_var &&
        (n->sop == IR_UNIQUE || n->sop == IR_PUSH || n->sop == IR_ASSIGN || n->sop == IR_LET ||
         (n->sop == IR_STORE && (n->nkids < 2 || n->unique_steps < 2))))
        kd_moves = true;
    kd_reads |= !kd_quiet && table_read(n);
    if (n->op == IR_IF && n->a->op == IR_GUARD_TEST && (n->a->swapped || n->a->jammed) && !kd_quiet) {
        kd_quiet = true;
        ir_each_child(n, rows_move);
        kd_quiet = false;
        return;
    }
    ir_each_child(n, rows_move);
    rows_move(n->fast_gen);
}

const char *rowmin_init(struct ir_node *s, struct ir_var *m, bool *tab)
{
    kd_var = m, kd_moves = kd_reads = kd_quiet = false;
    rows_move(s);
    *tab = !kd_moves && kd_reads;
    if (!*tab) return "{0, 0, 0}";
    return arena_printf("{0, 0, 0, bp_rowtab(&%s, %s)}", declare_extra(type_array(ty_int)), vname(m));
}

const char *col_table(struct ir_node *n, struct ir_var *m)
{
    struct ir_node *by = n->in_range_by, *test = by && by->op == IR_IF ? by->a : by;
    bool gen = by && ir_is_expr(by) && by->fast_in; /* a generator's fast copy: tested by its guards */
    if (gen) test = by->fast_in;
    if (!n->by_cols || !by || (!gen && !(by->op == IR_IF && test && test->op == IR_GUARD_TEST)))
        return NULL;
    bool tested = false;
    for (int i = 0; i < test->nguards; i++) tested |= test->guards[i].cols && test->guards[i].arr == m;
    for (int i = CG->nrowmins - 1; tested && i >= 0; i--)
        if (CG->rowmins[i].var == m && CG->rowmins[i].fn == F) return CG->rowmins[i].tab ? CG->rowmins[i].name : NULL;
    return NULL;
}

/* ---- rows ahead: a loop over rows that walks a few elements of each ------
 *
 * A range loop over i (or a generator's) that reads rows[i + c] of an array
 * of rows it cannot change (a view of a loop around; a generator's capture)
 * and runs a loop whose walk follows i (a band, a clipped window, a
 * triangle: its bounds read i, or it reads a flat array at an index that
 * reads both i and its own variable, through lets too: x[j] for
 * j = i + d - w) fetches row i + c + AHEAD toward the cache at each
 * iteration (bp_row_ahead: the row's header and the 64 bytes after, a short
 * row's data, which sits in the header's block). Such a walk is short or
 * shrinking, so the rows come at a high rate, each a block of its own (128
 * bytes for 7 floats) that the hardware's prefetcher alone left the loop
 * waiting on (banded clip_fn 14.3 -> 11.3 ms; the C, its rows 64 bytes
 * apart, 8.7, and as slow as brine was given 128). A fetch never faults
 * and changes nothing a program can see. Not a loop whose inner walk is the
 * same in each row (a matmul's, a stencil's: rows long enough that their
 * own reads stream). */
enum { AHEAD = 16, MAXDEP = 16 };

static struct ir_var *ah_rows, *ah_dep[MAXDEP], *ah_lv[MAXDEP];
static bool ah_dep_in[MAXDEP]; /* set inside an inner loop, from its variable too */
static int ah_ndep, ah_nlv;
static int64_t ah_off;
static bool ah_follow, ah_gen;

static bool is_loop(const struct ir_node *n)
{
    return n->op == IR_FOR_RANGE || n->op == IR_FOR_ARRAY || n->op == IR_WHILE || n->op == IR_REDUCE ||
           n->op == IR_LISTCOMP;
}

/* Whether n reads i or a variable set from it (ah_dep[0] is i); inner: one
 * set inside an inner loop, or i with an inner loop's variable. */
static bool reads_dep(struct ir_node *n, bool inner)
{
    bool lv = false;
    for (int k = 0; n && inner && k < ah_nlv; k++) lv |= ah_lv[k] && ir_reads(n, ah_lv[k]);
    for (int k = 0; n && k < ah_ndep; k++)
        if ((!inner || lv || ah_dep_in[k]) && ir_reads(n, ah_dep[k])) return true;
    return false;
}

static void ahead_scan(struct ir_node *n)
{
    if (!n) return;
    if ((n->op == IR_LET || n->op == IR_ASSIGN) && ah_ndep < MAXDEP && n->var->type == ty_int && reads_dep(n->a, false))
        ah_dep_in[ah_ndep] = ah_nlv > 0 && reads_dep(n->a, true), ah_dep[ah_ndep++] = n->var;
    if (is_loop(n) && n->iter.is_range && (reads_dep(n->iter.lo, false) || reads_dep(n->iter.hi, false)))
        ah_follow = true;
    /* x[j] for j = i + d - w, x[i + k]: a flat array read along i in the inner loop */
    if (n->op == IR_INDEX && n->a->type->kind == T_ARRAY && n->a->type->elem->kind != T_ARRAY && ah_nlv &&
        reads_dep(n->b, true))
        ah_follow = true;
    if (n->op == IR_INDEX && !ah_rows && n->a->op == IR_VAR && n->a->var->type->kind == T_ARRAY &&
        n->a->var->type->elem->kind == T_ARRAY && (ah_gen || view_of_var(n->a->var))) {
        struct ir_node *x = n->b;
        struct ir_var *i = ah_dep[0];
        if (x->op == IR_VAR && x->var == i) {
            ah_rows = n->a->var, ah_off = 0;
        } else if (x->op == IR_BINARY && (x->bop == OP_ADD || x->bop == OP_SUB) && x->a->op == IR_VAR &&
                   x->a->var == i && x->b->op == IR_INT && x->type == ty_int) {
            int64_t c = (int64_t)x->b->ival;
            if (c > -(1LL << 40) && c < (1LL << 40)) ah_rows = n->a->var, ah_off = x->bop == OP_ADD ? c : -c;
        }
    }
    struct ir_var *lv = !is_loop(n) ? NULL : n->op == IR_REDUCE || n->op == IR_LISTCOMP ? n->gen_var : n->var;
    bool loop = is_loop(n) && ah_nlv < MAXDEP;
    if (loop) ah_lv[ah_nlv++] = lv;
    ir_each_child(n, ahead_scan);
    if (loop) ah_nlv--;
}

/* Of the array of rows that body (and more, NULL: none) reads at loop
 * variable i + c, its walk following i: the row AHEAD rows on, fetched
 * (rows: a view's data and length, else the array's, which the loop cannot
 * change: a generator's capture). */
static void ahead(struct ir_var *i, struct ir_node *body, struct ir_node *more)
{
    ah_dep[0] = i, ah_dep_in[0] = false, ah_ndep = 1, ah_nlv = 0, ah_rows = NULL, ah_follow = false;
    ahead_scan(body);
    ahead_scan(more);
    if (!ah_rows || !ah_follow) return;
    const struct view *w = view_of_var(ah_rows);
    const char *v = vname(ah_rows);
    line("bp_row_ahead(%s, %s, %s, %" PRId64 "LL);", w ? w->data : arena_printf("(brt_arr *const *)%s->data", v),
         w ? w->len : arena_printf("%s->len", v), vname(i), ah_off + AHEAD);
}

/* At the head of range loop s's iteration. */
void rows_ahead(struct ir_node *s)
{
    ah_gen = false;
    if (s->iter.is_range && s->iter.lo->type == ty_int) ahead(s->var, s->b, NULL);
}

/* At the head of a generator's iteration over its one int range. */
void gen_rows_ahead(struct ir_node *rn)
{
    ah_gen = true;
    if (rn->iter.is_range && !rn->nclauses && rn->iter.lo->type == ty_int) ahead(rn->gen_var, rn->elem, rn->filter);
}

/* ---- restrict nests: a nest's flat arrays told apart to gcc ---------------
 *
 * The fast copy of a nest whose inner loop's guards hold before it
 * (guards_outside: 200 steps over arrays of particles) is one gcc unrolls
 * and jams (two outer iterations in one inner loop: each element loaded
 * and stored once for both) only where its dependence analysis tells every
 * two arrays the loop stores and reads apart. One array of structs it
 * does; several flat arrays held in locals it does not (the restrict of a
 * local is not used for that, nor any local's restrict across the outer
 * loop's iterations), and struct-of-arrays particles ran at 1.8x the C
 * (whose malloc'ed arrays it knows apart). So when the inner loop's restrict
 * row locals (open_row_locals) read flat arrays, the nest is written inside
 * a GNU C nested function whose restrict parameters are those arrays' data,
 * called once in place: gcc honours a parameter's restrict for the whole
 * call, every outer iteration. That holds as the row locals' restrict
 * does: the outer loop's body is the inner loop alone, each array it
 * stores is unique and reached only through its one local (stores_apart),
 * and no array is set, resized or made unique in the nest. A C compiler
 * without nested functions (BP_NEST 0: tcc, clang) reads the same text as
 * a block whose locals the parameters were. */
/* The C name that inner bound e is written as in the nest, when it is one
 * the nest never sets: a variable's (not set: guards_outside) or the length
 * its view keeps; else NULL. */
static const char *bound_name(struct ir_node *e)
{
    if (e->type != ty_int) return NULL;
    if (e->op == IR_VAR) return vname(e->var);
    if (e->op == IR_BUILTIN && e->builtin == BI_LEN && e->nkids == 1 && e->kids[0]->op == IR_VAR) {
        const struct view *w = view_of_var(e->kids[0]->var);
        return w ? w->len : NULL;
    }
    return NULL;
}

/* Whether outer's body is its inner loop alone (no unique statement
 * before it, ir_guards_outside_of: one makes a row unique in the nest). */
static bool only_loop(const struct ir_node *outer, const struct ir_node *in)
{
    return ir_only_stmt(outer->b) == in;
}

void restrict_nest(struct ir_node *outer, const char *lo, const char *hi)
{
    struct ir_node *in = ir_guards_outside_of(outer);
    if (!in || !only_loop(outer, in) || CG->nest_inner || outer->iter.lo->type != ty_int) {
        range_loop(outer, lo, hi);
        return;
    }
    size_t start = F->body.len;
    CG->nest_inner = in, CG->nest_fn = F, CG->nnestparams = 0;
    range_loop(outer, lo, hi);
    int n = CG->nnestparams;
    CG->nest_inner = NULL, CG->nest_fn = NULL, CG->nnestparams = 0;
    if (!n) return;
    /* the nest's text, taken out and written again inside the function */
    struct buf nest = {0};
    for (const char *p = F->body.p + start; *p;) {
        const char *e = strchr(p, '\n');
        size_t len = e ? (size_t)(e - p) + 1 : strlen(p);
        if (len > 1) bputs(&nest, "        ");
        bputn(&nest, p, len);
        p += len;
    }
    F->body.len = start;
    F->body.p[start] = 0;
    const char *runs = arena_printf("%s %s %s", lo, outer->iter.inclusive ? "<=" : "<", hi);
    struct buf params = {0}, args = {0};
    line("{");
    F->ind++;
    for (int i = 0; i < n; i++) {
        const struct nestparam *q = &CG->nestparams[i];
        line("%s *%s = %s ? (%s *)%s->data : NULL;", q->ct, q->name, runs, q->ct, vname(q->root));
        bprintf(&params, "%s%s *restrict %s", i ? ", " : "", q->ct, q->name);
        bprintf(&args, "%s%s", i ? ", " : "", q->name);
    }
    /* the inner loop's bounds, named once more as parameters that only the
     * nest reads, and assumed to make a range that runs: gcc jams only an
     * inner loop it knows to run, and knows it from an assumption only about
     * a value whose every use it precedes (the guard's own test of the
     * range is one of several joined by &) */
    struct ir_node *ib[2] = {in->iter.lo, in->iter.hi};
    const char *bc[2];
    for (int i = 0; i < 2; i++) {
        bc[i] = bound_name(ib[i]);
        if (bc[i] && !(i && bc[0] && strcmp(bc[0], bc[1]) == 0)) {
            bprintf(&params, ", int64_t %s", bc[i]);
            bprintf(&args, ", bp_opaque_i64(%s)", bc[i]);
        } else if (ib[i]->op == IR_INT) {
            bc[i] = arena_printf("%" PRId64 "LL", (int64_t)ib[i]->ival);
        }
    }
    const char *fn = arena_printf("bp_nest_%s", new_temp());
    line("#if BP_NEST");
    line("void %s(%s) {", fn, params.p);
    if (bc[0] && bc[1] && (ib[0]->op != IR_INT || ib[1]->op != IR_INT))
        line("    BP_ASSUME(%s %s %s);", bc[0], in->iter.inclusive ? "<=" : "<", bc[1]);
    line("#endif");
    bputs(&F->body, nest.p);
    line("#if BP_NEST");
    line("}");
    line("%s(%s);", fn, args.p);
    line("#endif");
    F->ind--;
    line("}");
    free(nest.p);
    free(params.p);
    free(args.p);
}
