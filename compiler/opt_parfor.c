/*
 * opt_parfor.c: range loops and comprehensions whose iterations are independent,
 * run on the pool.
 *
 *   for i in lo..hi:                        for_range i in lo..hi par captures[c a b n]
 *       unique c[i]                  =>         (the same body)
 *       for k ..: for j ..: c[i][j] += a[i][k] * b[k][j]
 *
 * A marked loop (IR_FOR_RANGE with par set, its captures in caps) is
 * written by the C emitter (emit_loops.c) as a helper that runs a chunk
 * lo' .. hi' of the range, exactly as the whole loop would run there (its
 * guards, swap or jam tested over the chunk), handed to the runtime's
 * brt_par_for: chunks on the pool, or the whole range on the calling thread
 * (one thread, a loop inside other par work, one iteration). No value
 * crosses iterations, so every element gets the same bits in any order, on
 * any thread. A loop is marked when
 *
 *   - it is `for i in lo..hi` over int (not `..=`), not the inner loop of a
 *     swapped or jammed nest, and no loop around it is marked;
 *   - its body assigns only variables it defines (an outer `var` keeps its
 *     value in one place), and stores only into arrays it defines (a row
 *     temp) or into an outer array v through a path whose first index is
 *     iteration i's own slot, with v itself already unique (unique_steps,
 *     opt_unique.c) so the store never replaces v; no push into an outer
 *     array. Own slots: i or a let of it (`c[i][j] = x`, `c[i] = row`,
 *     `unique c[i]`), or a flat row `i * m + j` (or a let of it), j the
 *     variable of a loop in the body over lo..m or lo..m - d (lo, d literals
 *     >= 0, m a literal or an outer variable): j < m, so the slots of
 *     different i lie in different blocks [i*m, i*m + m) (an overflow
 *     panics before the store: the index is the true product and sum),
 *     or i shifted by a literal or outer variable c (`i + c`, `c + i`,
 *     `i - c`: fill's growing stores, `v[i - 3] = ...`);
 *   - such a v is read only at its own slots, of one kind (v[i]... or v at
 *     flat rows of one m, or at one shift), or as len(v): iteration i touches only its own
 *     slots of v. Its row is read only through an index or len (v[i][j],
 *     len(v[i])): a row taken as a value (`var row = out[i]`) is copied
 *     when stored into, and allocating on every thread costs more than the
 *     split gains (stencil/rowtemps ran 3x slower at two threads), unless
 *     the let takes it (opt_move.c: the slot left empty until stored back,
 *     the row written in place). Another array cannot share v's array (v is unique: its
 *     count is one, and a borrowed let of it is refused), and a
 *     row of v is written in place only when its count is one, so no other
 *     path reads it; a shared row is copied first (counts are atomic, and
 *     the test acquires, so a copy finishes before another thread's store
 *     into the last holder);
 *   - an outer borrowed let is read only when the array at the root of
 *     its chain of borrows is not one the body stores into (a kernel's
 *     rows, `let w0 = w[0]`, before a row loop): opt_borrow.c borrowed it
 *     because nothing after the let writes that array, so no iteration
 *     writes what it reads;
 *   - nothing in it has an effect but those stores: no call but of a
 *     function that may run on the pool (pool_calls below: pure, and it
 *     ends; a call left after inlining may print or loop), no builtin but len, the
 *     conversions, abs, min, max, the math functions, the wrapping and
 *     bit methods and comploop's new rows of unset values, no par construct, no user or keyed reduction; no while
 *     loop (each iteration ends), no break or return of the loop;
 *   - it does enough work to pay for the pool: it holds a loop, a
 *     comprehension or a reduction, or its straight-line body is at least
 *     FOLD_WORK nodes; and a count known as a literal (too_few) is enough
 *     for the runtime ever to split it.
 *
 * A plain comprehension [E for i in lo..hi] (one range generator over int,
 * no filter), or [E for x in xs] over an array, whose element E passes the
 * same checks (x a value of the element's own), as a body holding one
 * expression (it stores nothing), is marked par too, with pool set: the
 * emitter (emit_par.c) fills its slots as a par comprehension's, with the
 * function's places, when the count pays for E's work, else runs it as
 * written. The outermost such loop or comprehension is marked, none in a
 * par construct. A versioned condition (opt_accum.c) is checked by its
 * guard and its form as written: the fast branch calls the row function
 * made from that form, which stores only into its own new row.
 *
 * A fold loop: the body may also assign outer variables that are
 * accumulators (fold_form): int sums, min and max, or and and, one kind per
 * variable, read nowhere else in the body. Then the body stores into no
 * outer array (after a panic or a possible overflow the loop runs again in
 * order from the start, which must change nothing but the accumulators),
 * no nest in it is swapped, and a body without a loop is work enough when
 * its ir_par_work is at least FOLD_WORK nodes (a few math calls or random
 * draws). The loop's folds list them; they are not among its captures. The
 * emitter (emit_loops.c fold_loop) folds each chunk from the identities and
 * joins the chunks' parts in order, so the values are the sequential ones;
 * an int sum is joined only when the sum before the chunk plus the chunk's
 * least and greatest running value stay in int, else the loop reruns in
 * order and panics where the sequential loop does. A float sum is never a
 * fold: a left fold's bits depend on where it is split.
 *
 * A panic: each chunk runs its iterations in order and stops at its first
 * panic; the runtime reports the lowest chunk's, and every chunk below it
 * ran to its end, so it is the panic of the lowest iteration that panics,
 * the one the sequential loop meets first. The body prints nothing, so the
 * output before it is the same; the places are named by the function, as
 * in the sequential loop. A panic ends the program, so the stores later
 * iterations made meanwhile are never seen.
 *
 * A marked loop that is the one statement of a sequential range loop
 * around it is marked steps_in_chunk where that loop may run inside each
 * chunk (steps_inside); opt_version.c then runs the whole nest per chunk
 * where it cannot panic.
 */
#include "ir.h"

#include <stdlib.h>
#include <string.h>

static struct ir_program *P;
enum { F_DEF = 1, F_IDX = 2, F_ROOT = 4, F_BORROW = 8, F_FLAT = 16, F_FOLD = 32 };
static unsigned char *flag; /* by var id */
/* by var id: an inner range loop's node (its variable's range); a flat
 * let's multiplier m; a stored array's kind of own slots (0: none seen yet,
 * K_I: v[i], K_FLAT: flat rows of kmul) */
static struct ir_node **loop_of, **flat_mul, **kmul;
enum { K_I = 1, K_FLAT = 2, K_ADD = 3, K_SUB = 4 };
static unsigned char *kind;
static signed char *fkind; /* by var id: an accumulator's enum ir_fold_kind, -1 none yet */
static struct ir_var **broot; /* by var id: a borrowed let's root, the variable its element is of */
static struct ir_fold *folds; /* the loop's accumulators, in the order first assigned */
static int nfolds, capfolds;

/* ---- the function's borrowed lets ------------------------------------------ */

static void mark_borrows(struct ir_node *s)
{
    if (!s || ir_is_expr(s)) return;
    if (s->op == IR_LET && s->borrow) {
        struct ir_node *r = s->a;
        while (r->op == IR_INDEX) r = r->a;
        flag[s->var->id] |= F_BORROW;
        broot[s->var->id] = r->op == IR_VAR ? r->var : NULL;
    }
    mark_borrows(s->b);
    mark_borrows(s->c);
    for (int i = 0; i < s->nkids; i++) mark_borrows(s->kids[i]);
}

/* ---- what the body defines, and the lets of i ------------------------------ */

static void defs_expr(struct ir_node *n);

static void defs_iter(struct ir_iter *it)
{
    defs_expr(it->lo);
    defs_expr(it->hi);
    defs_expr(it->array);
}

static void defs_expr(struct ir_node *n)
{
    if (!n) return;
    if (n->op == IR_REDUCE || n->op == IR_LISTCOMP) {
        if (n->gen_var) flag[n->gen_var->id] |= F_DEF;
        for (int i = 0; i < n->nclauses; i++) flag[n->clauses[i].var->id] |= F_DEF;
        if (n->comb_l) flag[n->comb_l->id] |= F_DEF;
        if (n->comb_r) flag[n->comb_r->id] |= F_DEF;
        defs_iter(&n->iter);
        for (int i = 0; i < n->nclauses; i++) defs_iter(&n->clauses[i].iter);
        defs_expr(n->elem);
        defs_expr(n->filter);
        defs_expr(n->key);
    }
    defs_expr(n->a);
    defs_expr(n->b);
    defs_expr(n->c);
    for (int i = 0; i < n->nkids; i++) defs_expr(n->kids[i]);
}

static void defs(struct ir_node *s)
{
    if (!s) return;
    if (ir_is_expr(s)) {
        defs_expr(s);
        return;
    }
    if (s->op == IR_LET || s->op == IR_FOR_RANGE || s->op == IR_FOR_ARRAY) flag[s->var->id] |= F_DEF;
    if (s->op == IR_FOR_RANGE) loop_of[s->var->id] = s;
    if (s->op == IR_FOR_RANGE) defs_expr(s->iter.lo), defs_expr(s->iter.hi);
    if (s->op == IR_FOR_ARRAY) defs_expr(s->iter.array);
    defs_expr(s->a);
    for (int i = 0; i < s->nkids; i++) defs(s->kids[i]);
    defs(s->b);
    defs(s->c);
}

/* Whether the body assigns v anywhere. */
static bool assigned(struct ir_node *s, struct ir_var *v)
{
    if (!s || ir_is_expr(s)) return false;
    if (s->op == IR_ASSIGN && s->var == v) return true;
    for (int i = 0; i < s->nkids; i++)
        if (assigned(s->kids[i], v)) return true;
    return assigned(s->b, v) || assigned(s->c, v);
}

static bool outer(struct ir_var *v);

/* Whether a and b are the same literal or the same variable. */
static bool same_leaf(struct ir_node *a, struct ir_node *b)
{
    if (a->op == IR_INT && b->op == IR_INT) return a->ival == b->ival && a->type == b->type;
    return a->op == IR_VAR && b->op == IR_VAR && a->var == b->var;
}

static bool lit_nonneg(struct ir_node *n)
{
    return n->op == IR_INT && n->type == ty_int && (int64_t)n->ival >= 0;
}

/* Whether n is j, the variable of a loop in the body over lo..m or lo..m - d
 * (lo, d literals >= 0): always 0 <= j < m. */
static bool below(struct ir_node *n, struct ir_node *m)
{
    if (n->op != IR_VAR || !loop_of[n->var->id]) return false;
    struct ir_node *l = loop_of[n->var->id];
    if (l->iter.inclusive || !lit_nonneg(l->iter.lo)) return false;
    struct ir_node *hi = l->iter.hi;
    if (hi->op == IR_BINARY && hi->bop == OP_SUB && lit_nonneg(hi->b)) hi = hi->a;
    return same_leaf(hi, m);
}

/* The multiplier m of a flat row i * m + j (either order of each operation;
 * m a literal or an outer variable, j below m), of a let of one, else NULL. */
static struct ir_node *flat_row(struct ir_node *n)
{
    if (n->op == IR_VAR && (flag[n->var->id] & F_FLAT)) return flat_mul[n->var->id];
    if (n->op != IR_BINARY || n->bop != OP_ADD || n->optype != ty_int) return NULL;
    for (int side = 0; side < 2; side++) {
        struct ir_node *p = side ? n->b : n->a, *j = side ? n->a : n->b;
        if (p->op != IR_BINARY || p->bop != OP_MUL) continue;
        for (int o = 0; o < 2; o++) {
            struct ir_node *i = o ? p->b : p->a, *m = o ? p->a : p->b;
            if (i->op != IR_VAR || !(flag[i->var->id] & F_IDX)) continue;
            if (!(m->op == IR_INT && m->type == ty_int) && !(m->op == IR_VAR && outer(m->var))) continue;
            if (below(j, m)) return m;
        }
    }
    return NULL;
}

/* The lets `let x = i` (lowering's copies of an index) and `let k = i * m + j`
 * in the body. */
static void idx_lets(struct ir_node *body, struct ir_node *s)
{
    if (!s || ir_is_expr(s)) return;
    if (s->op == IR_LET && s->a->op == IR_VAR && (flag[s->a->var->id] & F_IDX) && !assigned(body, s->var))
        flag[s->var->id] |= F_IDX;
    struct ir_node *m;
    if (s->op == IR_LET && !(flag[s->var->id] & F_IDX) && !assigned(body, s->var) && (m = flat_row(s->a))) {
        flag[s->var->id] |= F_FLAT;
        flat_mul[s->var->id] = m;
    }
    for (int i = 0; i < s->nkids; i++) idx_lets(body, s->kids[i]);
    idx_lets(body, s->b);
    idx_lets(body, s->c);
}

/* ---- the body's checks ------------------------------------------------------- */

static bool is_idx(struct ir_node *n)
{
    return n && n->op == IR_VAR && (flag[n->var->id] & F_IDX);
}

static bool outer(struct ir_var *v)
{
    return !(flag[v->id] & F_DEF) && !(flag[v->id] & F_IDX);
}

/* Whether n is a literal int or an outer variable: the same in every iteration. */
static bool fixed_leaf(struct ir_node *n)
{
    return (n->op == IR_INT && n->type == ty_int) || (n->op == IR_VAR && n->type == ty_int && outer(n->var));
}

/* The kind of slot idx is of iteration i, and its c: i (K_I), i + c or
 * c + i (K_ADD), i - c (K_SUB) with c fixed_leaf (distinct i, distinct
 * slots: an overflow panics before the store), a flat row (K_FLAT, c its
 * multiplier); 0: none. */
static int slot_kind(struct ir_node *idx, struct ir_node **c)
{
    *c = NULL;
    if (is_idx(idx)) return K_I;
    if ((*c = flat_row(idx))) return K_FLAT;
    if (idx->op != IR_BINARY || idx->optype != ty_int || (idx->bop != OP_ADD && idx->bop != OP_SUB)) return 0;
    if (is_idx(idx->a) && fixed_leaf(idx->b)) *c = idx->b;
    else if (idx->bop == OP_ADD && is_idx(idx->b) && fixed_leaf(idx->a)) *c = idx->a;
    else return 0;
    return idx->bop == OP_ADD ? K_ADD : K_SUB;
}

/* Whether idx is one of iteration i's own slots of the stored array v, of
 * the one kind v's slots are (the first seen sets it). */
static bool own_slot(struct ir_var *v, struct ir_node *idx)
{
    struct ir_node *m;
    int k = slot_kind(idx, &m);
    if (!k) return false;
    if (!kind[v->id]) {
        kind[v->id] = (unsigned char)k;
        kmul[v->id] = m;
        return true;
    }
    return kind[v->id] == k && (k == K_I || same_leaf(kmul[v->id], m));
}

/* Whether n is v[idx] of a stored outer array v at one of its own slots. */
static bool root_slot(struct ir_node *n)
{
    return n->op == IR_INDEX && n->a->op == IR_VAR && outer(n->a->var) && (flag[n->a->var->id] & F_ROOT)
           && own_slot(n->a->var, n->b);
}

/* The builtins a body may use: values of their arguments, nothing else. */
static bool plain_builtin(enum builtin b)
{
    switch (b) {
    case BI_LEN: case BI_INT: case BI_FLOAT: case BI_ABS: case BI_MIN2: case BI_MAX2:
#define X(P_, name, arity, gpu) case BI_##name:
        BRT_MATH(X, _)
#undef X
    case M_WRAPPING_ADD: case M_WRAPPING_SUB: case M_WRAPPING_MUL: case M_WRAPPING_NEG: case M_ROTATE_LEFT:
    case M_ROTATE_RIGHT: case M_COUNT_ONES: case M_LEADING_ZEROS: case M_TRAILING_ZEROS:
    /* comploop's row of values not yet set: a new array the body owns
     * (a let), its size at most brt_arr_room's, like [0.0] * n */
    case BI_UNSET:
        return true;
    default:
        return false;
    }
}

/* Whether outer borrowed let v may be read in the body: the variable at
 * the root of its chain of borrows is not one the body stores into.
 * opt_borrow.c borrowed it because nothing after the let writes that root,
 * so no iteration writes what v reads, in any order. */
static bool borrow_readable(struct ir_var *v)
{
    for (int hops = 0; v && (flag[v->id] & F_BORROW) && hops < 64; hops++) v = broot[v->id];
    return v && !(flag[v->id] & (F_BORROW | F_ROOT));
}

static bool ok_expr(struct ir_node *n, bool *work);

static bool ok_iter(struct ir_iter *it, bool *work)
{
    return it->is_range ? ok_expr(it->lo, work) && ok_expr(it->hi, work) : ok_expr(it->array, work);
}

static bool ok_expr(struct ir_node *n, bool *work)
{
    if (!n) return true;
    switch (n->eop) {
    case IR_VAR:
        /* a stored array only as v[i] or len(v) (below); a borrowed outer
         * let only of an array the body does not store into; an
         * accumulator only in its own updates */
        if (outer(n->var) && (flag[n->var->id] & F_BORROW)) return borrow_readable(n->var);
        return !(outer(n->var) && (flag[n->var->id] & (F_ROOT | F_FOLD)));
    case IR_INDEX:
        /* c[i][j]: an element of the own row; c[i] alone, a reference, is a
         * row taken as a value (`var row = out[i]`), copied when stored
         * into: allocation on every thread costs more than the split gains
         * (stencil/rowtemps: 3x slower at two threads) */
        if (root_slot(n->a)) return ok_expr(n->a->b, work) && ok_expr(n->b, work);
        if (root_slot(n)) return !type_is_ref(n->type) && ok_expr(n->b, work);
        if (n->a->op == IR_VAR && outer(n->a->var) && (flag[n->a->var->id] & F_ROOT)) return false;
        break;
    case IR_BUILTIN:
        if (!plain_builtin(n->builtin)) return false;
        if (n->builtin == BI_LEN && n->nkids == 1 && n->kids[0]->op == IR_VAR && !(flag[n->kids[0]->var->id] & F_BORROW))
            return true;
        if (n->builtin == BI_LEN && n->nkids == 1 && root_slot(n->kids[0])) return ok_expr(n->kids[0]->b, work);
        break;
    case IR_CALL:
        /* a call of a function that may run on the pool (pool_calls), work
         * when its body is (a loop in it counts 16 times) */
        if (!n->fn->pool_safe) return false;
        if (n->fn->pool_work >= FOLD_WORK) *work = true;
        break;
    case IR_CALLV: case IR_GUARD_TEST: case IR_FNVAL: return false;
    case IR_LISTCOMP: case IR_REDUCE:
        if (n->par || n->world || n->user || n->scan || n->key) return false;
        *work = true;
        if (!ok_iter(&n->iter, work) || !ok_expr(n->elem, work) || !ok_expr(n->filter, work)) return false;
        for (int i = 0; i < n->nclauses; i++)
            if (!ok_iter(&n->clauses[i].iter, work)) return false;
        break;
    case IR_COND:
        /* a versioned one (opt_accum.c): its fast branch is a copy of the
         * one as written (a call of the row function made from it), which
         * reads what that reads and stores only into its own new row */
        if (n->versioned) return ok_expr(n->a, work) && ok_expr(n->c, work);
        break;
    case IR_INT: case IR_FLOAT: case IR_BOOL: case IR_STR: case IR_GLOBAL: case IR_UNARY: case IR_NOT:
    case IR_BINARY: case IR_AND: case IR_OR: case IR_CONV: case IR_ARRAY: case IR_FSTRING:
    case IR_TUPLE: case IR_FIELD:
        break;
    }
    if (!ok_expr(n->a, work) || !ok_expr(n->b, work) || !ok_expr(n->c, work)) return false;
    for (int i = 0; i < n->nkids; i++)
        if (!ok_expr(n->kids[i], work)) return false;
    return true;
}

/* ---- calls that may run on the pool ------------------------------------------ *
 *
 * A function may be called from a body on the pool when a call of it has no
 * effect but its value and a panic, and always ends: its statements assign
 * and store only into its own variables (never into an array it was handed:
 * no store, push or unique of a parameter), it uses the plain builtins only
 * (no print, draw, panic or assert), calls only such functions (no function
 * value), has no par construct, user or keyed reduction, and no while loop
 * (each `for` ends: its range or array is fixed when it starts), and no call
 * chain from it comes back to it (a recursion may not end). A panic in it is
 * then one of the body's panics: its chunk stops there, and the lowest
 * chunk's is reported, with the output before it the sequential run's (the
 * body printed nothing); no chunk above it can hang, since every call ends.
 * The fact is computed callee first (depth first over the call graph; a
 * function met again while its own check runs is on a cycle: refused). */

static struct ir_fn **fn_on_path; /* the functions whose check is running */
static int npath, cappath;
static struct map fn_done;        /* the functions checked (a map: looking one up in P->fns was quadratic) */

static bool pure_stmt(struct ir_node *s);
static bool fn_safe(struct ir_fn *f);

/* settled: the calls' facts are known (after pool_calls: pool_safe), not
 * being computed (fn_safe). */
static bool effect_free(const struct ir_node *n, bool settled)
{
    if (!n) return true;
    switch (n->eop) {
    case IR_CALL:
        if (!(settled ? n->fn->pool_safe : fn_safe(n->fn))) return false;
        break;
    case IR_CALLV: case IR_GUARD_TEST: case IR_FNVAL: return false;
    case IR_BUILTIN:
        if (!plain_builtin(n->builtin)) return false;
        break;
    case IR_LISTCOMP: case IR_REDUCE:
        if (n->par || n->world || n->user || n->scan || n->key) return false;
        if (!effect_free(n->iter.lo, settled) || !effect_free(n->iter.hi, settled) ||
            !effect_free(n->iter.array, settled))
            return false;
        for (int i = 0; i < n->nclauses; i++) {
            const struct ir_iter *it = &n->clauses[i].iter;
            if (!effect_free(it->lo, settled) || !effect_free(it->hi, settled) || !effect_free(it->array, settled))
                return false;
        }
        if (!effect_free(n->elem, settled) || !effect_free(n->filter, settled)) return false;
        break;
    case IR_INT: case IR_FLOAT: case IR_BOOL: case IR_STR: case IR_VAR: case IR_GLOBAL: case IR_UNARY:
    case IR_NOT: case IR_BINARY: case IR_AND: case IR_OR: case IR_COND: case IR_CONV: case IR_INDEX:
    case IR_ARRAY: case IR_FSTRING: case IR_TUPLE: case IR_FIELD:
        break;
    }
    if (!effect_free(n->a, settled) || !effect_free(n->b, settled) || !effect_free(n->c, settled)) return false;
    for (int i = 0; i < n->nkids; i++)
        if (!effect_free(n->kids[i], settled)) return false;
    return true;
}

static bool pure_expr(struct ir_node *n)
{
    return effect_free(n, false);
}

/* Whether evaluating n has no effect but its value and a panic, by the
 * facts pool_calls left (without this pass no call qualifies): the
 * emitters' test for code they may evaluate twice (a keyed reduction's
 * order-free way hands over to the ordered one, emit_scan.c). */
bool ir_effect_free(const struct ir_node *n)
{
    return effect_free(n, true);
}

static bool pure_stmt(struct ir_node *s)
{
    if (!s) return true;
    switch (s->sop) {
    case IR_BLOCK:
        for (int i = 0; i < s->nkids; i++)
            if (!pure_stmt(s->kids[i])) return false;
        return true;
    case IR_LET: case IR_ASSIGN: case IR_EXPR: case IR_RETURN: return pure_expr(s->a);
    case IR_STORE: case IR_PUSH: case IR_UNIQUE:
        if (s->var->kind == IRV_PARAM) return false;
        for (int i = 0; i < s->nkids; i++)
            if (!(s->kids[i]->op == IR_FIELD && !s->kids[i]->a) && !pure_expr(s->kids[i])) return false;
        return pure_expr(s->a);
    case IR_IF: return pure_expr(s->a) && pure_stmt(s->b) && pure_stmt(s->c);
    case IR_FOR_RANGE: case IR_FOR_ARRAY:
        if (s->par) return false;
        return pure_expr(s->iter.lo) && pure_expr(s->iter.hi) && pure_expr(s->iter.array) && pure_stmt(s->b);
    case IR_BREAK: case IR_CONTINUE: case IR_UNREACHABLE: return true;
    case IR_WHILE: return false;
    }
    return false;
}

static bool fn_safe(struct ir_fn *f)
{
    if (map_get_ptr(&fn_done, f)) return f->pool_safe;
    for (int i = 0; i < npath; i++)
        if (fn_on_path[i] == f) return false; /* a cycle: the check of f refuses it */
    VEC_GROW(fn_on_path, npath, cappath);
    fn_on_path[npath++] = f;
    bool ok = pure_stmt(f->body);
    npath--;
    f->pool_safe = ok;
    f->pool_work = ok ? ir_par_work(f->body) : 0; /* its callees' work known: they were checked first */
    map_put_ptr(&fn_done, f, f);
    return ok;
}

static void pool_calls(void)
{
    for (int i = 0; i < P->fns.len; i++) {
        struct ir_fn *f = P->fns.items[i];
        f->pool_safe = false;
        f->pool_work = 0;
        f->twice_called = false;
    }
    for (int i = 0; i < P->fns.len; i++) fn_safe(P->fns.items[i]);
    map_free(&fn_done);
    free(fn_on_path);
    fn_on_path = NULL;
    npath = cappath = 0;
}

/* The pool_safe facts of every function, for a pass before this one
 * (opt_comploop.c: a call it may evaluate again); set: false clears them,
 * as they were before (this pass computes them again). */
void ir_pure_calls(struct ir_program *ir, bool set)
{
    P = ir;
    if (set) {
        pool_calls();
    } else {
        for (int i = 0; i < ir->fns.len; i++) {
            struct ir_fn *f = ir->fns.items[i];
            f->pool_safe = false;
            f->pool_work = 0;
        }
    }
    P = NULL;
}

/* ---- accumulators ------------------------------------------------------------ */

static bool is_var(struct ir_node *n, struct ir_var *v)
{
    return n && n->op == IR_VAR && n->var == v;
}

/* The fold `v = x` is (enum ir_fold_kind), its other operand in *e; -1:
 * none. Each combines exactly and associatively, so chunks folded apart and
 * joined in order give the sequential value: int sums (overflow tested at
 * the join, emit_loops.c fold_loop), min and max replacing only on strictly
 * smaller or larger (with NaN and -0.0 too: the first of the least values
 * that are not NaN, or a NaN start kept), or and and. min(E, v) replaces v
 * by an equal or NaN E: only int's equal values are the same bits. A float
 * sum is not here: a left fold's bits depend on where it is split. */
static int fold_form(struct ir_var *v, struct ir_node *x, struct ir_node **e)
{
    struct type *t = v->type;
    if (x->type != t) return -1;
    if (x->op == IR_BINARY && t == ty_int && x->optype == ty_int && (x->bop == OP_ADD || x->bop == OP_SUB)) {
        if (is_var(x->a, v)) return *e = x->b, FOLD_SUM;
        if (x->bop == OP_ADD && is_var(x->b, v)) return *e = x->a, FOLD_SUM;
    }
    if (x->op == IR_BUILTIN && (x->builtin == BI_MIN2 || x->builtin == BI_MAX2) && x->nkids == 2
        && (t == ty_int || t == ty_u64 || t == ty_float) && x->kids[0]->type == t && x->kids[1]->type == t) {
        int k = x->builtin == BI_MIN2 ? FOLD_MIN : FOLD_MAX;
        if (is_var(x->kids[0], v)) return *e = x->kids[1], k;
        if (t != ty_float && is_var(x->kids[1], v)) return *e = x->kids[0], k;
    }
    if ((x->op == IR_OR || x->op == IR_AND) && t == ty_bool) {
        int k = x->op == IR_OR ? FOLD_OR : FOLD_AND;
        if (is_var(x->a, v)) return *e = x->b, k;
        if (is_var(x->b, v)) return *e = x->a, k;
    }
    return -1;
}

/* The outer variables the body assigns, each an accumulator of one kind
 * (a sum's + and - are one); false when one is not. */
static bool fold_vars(struct ir_node *s)
{
    if (!s || ir_is_expr(s)) return true;
    if (s->op == IR_ASSIGN && outer(s->var)) {
        struct ir_node *e;
        int k = fold_form(s->var, s->a, &e);
        int id = s->var->id;
        if (k < 0 || (fkind[id] >= 0 && fkind[id] != k)) return false;
        if (fkind[id] < 0) {
            VEC_GROW(folds, nfolds, capfolds);
            folds[nfolds++] = (struct ir_fold){s->var, (enum ir_fold_kind)k};
        }
        fkind[id] = (signed char)k;
        flag[id] |= F_FOLD;
    }
    for (int i = 0; i < s->nkids; i++)
        if (!fold_vars(s->kids[i])) return false;
    return fold_vars(s->b) && fold_vars(s->c);
}

/* Whether s or a loop in it is a swapped or jammed nest (written by the
 * nest, not through the body's statements). */
static bool has_swap(struct ir_node *s)
{
    if (!s || ir_is_expr(s)) return false;
    if (s->op == IR_FOR_RANGE && s->swap) return true;
    for (int i = 0; i < s->nkids; i++)
        if (has_swap(s->kids[i])) return true;
    return has_swap(s->b) || has_swap(s->c);
}

/* The work of one iteration, in IR nodes, each loop inside (each
 * comprehension or reduction) counted as 16 runs of its body: a guess, for
 * the grain (ir_par_least) and for a fold loop without a loop
 * inside. Capped far below overflow. */
int64_t ir_par_work(struct ir_node *n)
{
    if (!n) return 0;
    /* one of the two copies runs (opt_version.c, opt_prefetch.c) */
    if (n->op == IR_IF && (n->a->op == IR_GUARD_TEST || ir_runs_long_if(n))) return ir_par_work(n->c);
    int64_t c = 1 + ir_par_work(n->a) + ir_par_work(n->c);
    int64_t inner = ir_par_work(n->b) + ir_par_work(n->elem) + ir_par_work(n->filter);
    bool loop = n->op == IR_FOR_RANGE || n->op == IR_FOR_ARRAY || n->op == IR_WHILE
                || (ir_is_expr(n) && (n->op == IR_LISTCOMP || n->op == IR_REDUCE));
    c += loop ? 16 * inner : inner;
    if (ir_is_expr(n) && n->op == IR_CALL) c += n->fn->pool_work; /* 0 but for a call the pool may run */
    for (int i = 0; i < n->nkids; i++) c += ir_par_work(n->kids[i]);
    return c < IR_PAR_GRAIN ? c : IR_PAR_GRAIN;
}

int64_t ir_par_least(struct ir_node *body)
{
    int64_t cost = ir_par_work(body);
    return (IR_PAR_GRAIN + cost - 1) / cost;
}

/* A store, push or unique statement into v: into an array the body defines,
 * or into slot i of an outer array already unique. */
static bool ok_place(struct ir_node *s, bool *work)
{
    if (outer(s->var)) {
        if (s->op == IR_PUSH || s->var->type->kind != T_ARRAY || s->unique_steps < 1 || s->nkids < 1
            || !own_slot(s->var, s->kids[0]))
            return false;
    }
    for (int i = 0; i < s->nkids; i++)
        if (!(s->kids[i]->op == IR_FIELD && !s->kids[i]->a) && !ok_expr(s->kids[i], work)) return false;
    return ok_expr(s->a, work);
}

static bool ok_stmt(struct ir_node *s, int depth, bool *work)
{
    if (!s) return true;
    switch (s->sop) {
    case IR_BLOCK:
        for (int i = 0; i < s->nkids; i++)
            if (!ok_stmt(s->kids[i], depth, work)) return false;
        return true;
    case IR_LET:
        /* a row taken out of its own slot (opt_move.c): the iteration's own
         * until stored back, written in place, no copy */
        if (s->take && root_slot(s->a)) return ok_expr(s->a->b, work);
        return ok_expr(s->a, work);
    case IR_EXPR: return ok_expr(s->a, work);
    case IR_ASSIGN: {
        struct ir_node *e;
        if (!outer(s->var)) return ok_expr(s->a, work);
        return (flag[s->var->id] & F_FOLD) && fold_form(s->var, s->a, &e) >= 0 && ok_expr(e, work);
    }
    case IR_STORE: case IR_PUSH: case IR_UNIQUE: return ok_place(s, work);
    case IR_IF: return ok_expr(s->a, work) && ok_stmt(s->b, depth, work) && ok_stmt(s->c, depth, work);
    case IR_FOR_RANGE: case IR_FOR_ARRAY:
        *work = true;
        return ok_iter(&s->iter, work) && ok_stmt(s->b, depth + 1, work);
    case IR_CONTINUE: return true;
    case IR_BREAK: return depth > 0;
    case IR_WHILE: case IR_RETURN: case IR_UNREACHABLE: return false;
    }
    return false;
}

/* The outer arrays the body stores into. */
static void roots(struct ir_node *s)
{
    if (!s || ir_is_expr(s)) return;
    if ((s->op == IR_STORE || s->op == IR_PUSH || s->op == IR_UNIQUE) && outer(s->var)) flag[s->var->id] |= F_ROOT;
    for (int i = 0; i < s->nkids; i++) roots(s->kids[i]);
    roots(s->b);
    roots(s->c);
}

/* ---- the captures: what the body reads or stores from outside it ---------- */

struct caps { struct ir_var **v; int n, cap; };

static void cap_add(struct caps *c, struct ir_var *v)
{
    if (!v || !outer(v) || (flag[v->id] & F_FOLD)) return;
    for (int i = 0; i < c->n; i++)
        if (c->v[i] == v) return;
    VEC_GROW(c->v, c->n, c->cap);
    c->v[c->n++] = v;
}

static void cap_iter(struct caps *c, struct ir_iter *it);

static void cap_walk(struct caps *c, struct ir_node *n)
{
    if (!n) return;
    if (n->op == IR_VAR) cap_add(c, n->var);
    if (!ir_is_expr(n) && n->sop != IR_LET && n->var) cap_add(c, n->var); /* store, unique, assign roots */
    if (n->op == IR_FOR_RANGE || n->op == IR_FOR_ARRAY || (ir_is_expr(n) && (n->op == IR_REDUCE || n->op == IR_LISTCOMP))) {
        cap_iter(c, &n->iter);
        for (int i = 0; i < n->nclauses; i++) cap_iter(c, &n->clauses[i].iter);
        cap_walk(c, n->elem);
        cap_walk(c, n->filter);
    }
    cap_walk(c, n->a);
    cap_walk(c, n->b);
    cap_walk(c, n->c);
    for (int i = 0; i < n->nkids; i++) cap_walk(c, n->kids[i]);
}

static void cap_iter(struct caps *c, struct ir_iter *it)
{
    cap_walk(c, it->lo);
    cap_walk(c, it->hi);
    cap_walk(c, it->array);
}

static int by_id(const void *a, const void *b)
{
    const struct ir_var *x = *(struct ir_var *const *)a, *y = *(struct ir_var *const *)b;
    return (x->id > y->id) - (x->id < y->id);
}

/* ---- the loops --------------------------------------------------------------- */

static void clear_body_flags(void)
{
    for (int i = 0; i <= P->nvars; i++) {
        flag[i] &= F_BORROW;
        loop_of[i] = flat_mul[i] = kmul[i] = NULL;
        kind[i] = 0;
        fkind[i] = -1;
    }
}

/* The functions called in a marked body: its C is written twice (ir.h:
 * twice_called). */
static void mark_calls(struct ir_node *n)
{
    if (!n) return;
    if (ir_is_expr(n) && n->op == IR_CALL) n->fn->twice_called = true;
    ir_each_child(n, mark_calls);
}

/* Whether n is c more than t: both literals, or `t + c`, `c + t`, `t - c`
 * (c a literal). */
static bool lit_past(const struct ir_node *n, const struct ir_node *t, __int128 *c)
{
    if (n->op == IR_INT && t->op == IR_INT) {
        *c = (__int128)n->ival - (__int128)t->ival;
        return true;
    }
    if (n->op != IR_BINARY || (n->bop != OP_ADD && n->bop != OP_SUB)) return false;
    if (n->b->op == IR_INT && ir_same_term(n->a, t)) {
        *c = n->bop == OP_ADD ? (__int128)n->b->ival : -(__int128)n->b->ival;
        return true;
    }
    if (n->bop == OP_ADD && n->a->op == IR_INT && ir_same_term(n->b, t)) {
        *c = (__int128)n->a->ival;
        return true;
    }
    return false;
}

/* Whether range it runs too few iterations for the pool ever to split
 * body (brt_par_for_splits with ir_par_least's count): its count is a
 * literal (`0..4`, `lo..lo + 1`, `m - 1..m`) below that. */
static bool too_few(struct ir_iter *it, struct ir_node *body)
{
    __int128 c, d;
    bool known = lit_past(it->hi, it->lo, &c) || (lit_past(it->lo, it->hi, &d) && (c = -d, true));
    return known && c * ir_par_work(body) < IR_PAR_GRAIN;
}

/* The loop whose one statement (blocks of one looked through) the loop
 * being tried is, or NULL (walk sets it). */
static struct ir_node *STEPS;

static struct ir_node *sole_loop(struct ir_node *o)
{
    struct ir_node *b = ir_only_stmt(o->b);
    return b && b->op == IR_FOR_RANGE ? b : NULL;
}

/* Whether bound e is the same at every step and in every chunk: literals,
 * variables, len of a variable, arithmetic that cannot overflow (no
 * element: one the loop stores into may change), not reading v. */
static bool steady(struct ir_node *e, struct ir_var *v)
{
    return ir_quiet(e, IR_QUIET_NO_OVERFLOW, NULL, NULL) && !ir_reads(e, v);
}

/* Whether loop o, whose one statement is loop s (just marked for the pool,
 * its body's flags still set), may run inside each of s's chunks: for
 * each chunk its steps over the chunk's iterations, in order. s's
 * iteration i reads and writes only its own slots of the arrays it stores
 * into, slots that o's variable does not choose (i, or i shifted or a flat
 * row by a literal or a variable o does not change), reads every other
 * array nowhere written, and assigns only its own variables (no fold): so
 * step t of iteration i sees what step t - 1 of iteration i left, as in
 * the nest, whichever chunk runs first. Both loops' bounds are read the
 * same in every chunk (steady). The nest's first panic would be another
 * chunk's: opt_version.c takes the form only where the nest cannot panic. */
static bool steps_inside(struct ir_node *o, struct ir_node *s)
{
    if (nfolds || o->op != IR_FOR_RANGE || o->par || o->swap || s->swap) return false;
    if (!steady(o->iter.lo, o->var) || !steady(o->iter.hi, o->var) || !steady(s->iter.lo, o->var) ||
        !steady(s->iter.hi, o->var))
        return false;
    for (int i = 0; i <= P->nvars; i++)
        if ((flag[i] & F_ROOT) && kind[i] != K_I && kmul[i] && kmul[i]->op == IR_VAR && kmul[i]->var == o->var)
            return false;
    return true;
}

/* Whether loop s may run its iterations on the pool; if so, marks it. */
static bool try_loop(struct ir_node *s)
{
    if (s->iter.inclusive || s->iter.lo->type != ty_int || s->var->type != ty_int) return false;
    if (too_few(&s->iter, s->b)) return false;
    clear_body_flags();
    flag[s->var->id] |= F_IDX;
    defs(s->b);
    idx_lets(s->b, s->b);
    roots(s->b);
    nfolds = 0;
    bool work = false;
    bool ok = fold_vars(s->b) && ok_stmt(s->b, 0, &work);
    /* a fold loop stores into no outer array (a panic or an overflow
     * reruns it in order from the start), and a body of straight-line
     * code with a few math calls or draws in it is work enough */
    if (ok && nfolds) {
        for (int i = 0; i <= P->nvars && ok; i++)
            if (flag[i] & F_ROOT) ok = false;
        ok = ok && !has_swap(s) && (work || ir_par_work(s->b) >= FOLD_WORK);
    } else { /* a map written par (opt_iters.c: map_loop): the pool's, as written */
        ok = ok && (work || s->written_par || ir_par_work(s->b) >= FOLD_WORK);
    }
    if (ok && nfolds) {
        s->folds = arena_alloc(sizeof *s->folds * (size_t)nfolds);
        memcpy(s->folds, folds, sizeof *s->folds * (size_t)nfolds);
        s->nfolds = nfolds;
    }
    if (ok) {
        struct caps c = {0};
        cap_walk(&c, s->b);
        if (c.n) qsort(c.v, (size_t)c.n, sizeof *c.v, by_id);
        s->caps = arena_alloc(sizeof *s->caps * (size_t)(c.n + 1));
        if (c.n) memcpy(s->caps, c.v, sizeof *s->caps * (size_t)c.n);
        s->ncaps = c.n;
        free(c.v);
        s->par = true;
        mark_calls(s->b);
        s->steps_in_chunk = STEPS && sole_loop(STEPS) == s && steps_inside(STEPS, s);
    }
    clear_body_flags();
    return ok;
}

/* Whether comprehension n may fill its slots on the pool; if so, marks it.
 * Its element is checked as a loop body holding one expression is: nothing
 * in it is stored, so it reads what it reads the same on every thread. */
static struct ir_node *UNGUARD; /* the generator whose guard marks unguard clears */

static void unguard(struct ir_node *n)
{
    if (!n) return;
    if (n->in_range_by == UNGUARD) n->in_range_by = NULL;
    ir_each_child(n, unguard);
}

static bool try_comp(struct ir_node *n)
{
    if (n->par || n->filter || n->nclauses) return false;
    if (n->iter.is_range && (n->iter.lo->type != ty_int || n->gen_var->type != ty_int)) return false;
    clear_body_flags();
    /* over a range, the variable is the element's index; over an array, it
     * is the element's own value, read from a source evaluated once before
     * the first element (in order and on the pool alike) and never stored into */
    flag[n->gen_var->id] |= n->iter.is_range ? F_IDX : F_DEF;
    defs_expr(n->elem);
    bool work = false;
    bool ok = ok_expr(n->elem, &work) && work;
    if (ok) {
        ir_free_vars(n, &n->caps, &n->ncaps);
        n->par = n->pool = true;
        mark_calls(n->elem);
        /* opt_loops.c's guards version only the sequential loop
         * (emit_gen_loop): on the pool each chunk keeps its checks, so the
         * indexes the guards covered are checked again */
        UNGUARD = n;
        unguard(n->elem);
        n->nguards = 0;
    }
    clear_body_flags();
    return ok;
}

/* The outermost comprehensions in expression n that may run on the pool
 * (none in a par construct: its elements run on the pool already). */
static void walk_expr(struct ir_node *n)
{
    if (!n || (n->op == IR_LISTCOMP && try_comp(n))) return;
    if ((n->op == IR_LISTCOMP || n->op == IR_REDUCE) && n->par) return;
    ir_each_child(n, walk_expr);
}

/* The outermost loops and comprehensions of s that may run on the pool
 * (swap: the inner loop of a swapped or jammed nest, which its nest writes
 * itself). */
static void walk(struct ir_node *s, struct ir_node *swap)
{
    if (!s) return;
    if (ir_is_expr(s)) {
        walk_expr(s);
        return;
    }
    if (s->op == IR_FOR_RANGE && s != swap && try_loop(s)) return;
    walk(s->a, swap);
    if (s->op == IR_FOR_RANGE || s->op == IR_FOR_ARRAY) {
        walk(s->iter.lo, swap);
        walk(s->iter.hi, swap);
        walk(s->iter.array, swap);
    }
    struct ir_node *inner = (s->op == IR_FOR_RANGE) ? s->swap : NULL;
    for (int i = 0; i < s->nkids; i++) walk(s->kids[i], inner ? inner : swap);
    STEPS = s->op == IR_FOR_RANGE ? s : NULL;
    walk(s->b, inner ? inner : swap);
    STEPS = NULL;
    walk(s->c, swap);
}

static void unflag(struct ir_var *v) { flag[v->id] = 0; }

void opt_parfor(struct ir_program *ir)
{
    P = ir;
    size_t n = (size_t)ir->nvars + 1;
    flag = calloc(n, 1);
    kind = calloc(n, 1);
    loop_of = calloc(n, sizeof *loop_of);
    flat_mul = calloc(n, sizeof *flat_mul);
    kmul = calloc(n, sizeof *kmul);
    fkind = malloc(n);
    memset(fkind, -1, n);
    broot = calloc(n, sizeof *broot);
    pool_calls();
    for (int i = 0; i < ir->fns.len; i++) {
        struct ir_fn *f = ir->fns.items[i];
        if (f->frameless) continue; /* a par row (opt_comploop.c): inside par work nothing splits */
        ir_each_var(f, f->body, unflag);
        mark_borrows(f->body);
        walk(f->body, NULL);
    }
    free(flag);
    free(kind);
    free(loop_of);
    free(flat_mul);
    free(kmul);
    free(fkind);
    free(broot);
    broot = NULL;
    free(folds);
    fkind = NULL;
    folds = NULL;
    nfolds = capfolds = 0;
    flag = kind = NULL;
    loop_of = flat_mul = kmul = NULL;
}
