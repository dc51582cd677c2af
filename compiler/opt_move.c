/*
 * opt_move.c: last uses hand their reference over (moves), and an element
 * changed through a local is taken out of its array meanwhile (takes).
 *
 * Counted values (strings, arrays, tuples and structs holding them,
 * function values) are shared by reference and copied on write: a store
 * into an array whose count is above one copies it first. Two spellings
 * keep a second reference alive for nothing and so copy on every write:
 *
 *   - a variable read for the last time where its value is kept (the
 *     source of a let or an assignment, a stored, pushed or returned
 *     value, an element of an array or tuple literal, a branch of a
 *     conditional, an argument the callee owns): the read retains and the
 *     variable releases later. A move (IR_VAR moved) hands the variable's
 *     reference over instead and leaves the variable empty.
 *   - `var row = out[i]`, stores into row, `out[i] = row`: the row is
 *     referenced by out and by row while row is written. A take (IR_LET
 *     take) leaves an empty slot in out (out made unique first) and row
 *     holds the only reference; the store puts it back.
 *
 * Last use: no read of the variable on any path after the statement, up
 * to its block's end (a let's variable) or the function's (a parameter):
 * the statements after it in each enclosing block in turn, and at each
 * enclosing loop its condition, bounds and body (the next iteration).
 * An assignment that does not read the variable ends the search on that
 * path, unless a break or continue before it may leave the block. The read
 * must be the statement's only mention of the variable (the others are
 * evaluated around the move), and it is never inside a comprehension or
 * reduction (run once per element) or a function value's captures.
 *
 * The calling convention: a parameter is borrowed (the caller keeps the
 * reference for the call, the callee retains what it keeps) unless the
 * callee owns it (ir_fn owns[i]): then the caller hands over a +1
 * reference (a move of a dead variable, a temporary it made, or else a
 * retain) and the callee releases it at its exit like a local, or moves it
 * on. A parameter is owned when its function moves it somewhere (a fixed
 * point: passed on to an owned parameter counts). Only functions called
 * directly are candidates: not lambdas, not functions used as values (their
 * trampolines pass borrowed references), not library functions with a
 * caller's site, not main.
 *
 * A take: the let of `out[k]` (or of `out[k0]..[kn]`, each array on the
 * path made unique) and the store `out[k] = e` (the same path) are
 * statements of one block, each k the same pure index (ir_same_term) whose
 * variables nothing between writes; nothing between mentions out (no read, store, push, unique or
 * assignment), returns, or breaks or continues out of the block, and
 * something between stores into row (else the let shares as before). The
 * empty slot is never read: a panic between ends the program with its
 * message (on a pool thread its owners release the values, empty slots
 * included, which release nothing), exactly where it was.
 *
 * Facts only: the emitter (emit_c.c) writes a moved read as a temporary
 * owning the value and the variable emptied, a take as the slot's value
 * and the slot emptied, and an owned parameter as a local. A moved read
 * of a variable the function does not own there (a par helper's capture)
 * is written as a plain read.
 */
#include "ir.h"

#include <stdlib.h>
#include <string.h>

/* ---- liveness on the structured IR --------------------------------------------------- */

enum use { USE_NONE, USE_READ, USE_KILL };

/* Whether statement or expression s, or anything in it, reads, stores
 * into, pushes to, makes unique, assigns or defines v. */
static bool mentions(struct ir_node *s, struct ir_var *v)
{
    if (!s) return false;
    if (ir_is_expr(s)) return ir_reads(s, v);
    if (s->var == v) return true; /* a let, assignment, store, push, unique or loop of v */
    switch (s->sop) {
    case IR_BLOCK:
        for (int i = 0; i < s->nkids; i++)
            if (mentions(s->kids[i], v)) return true;
        return false;
    case IR_IF: return ir_reads(s->a, v) || mentions(s->b, v) || mentions(s->c, v);
    case IR_WHILE: return ir_reads(s->a, v) || mentions(s->b, v);
    case IR_FOR_RANGE: return ir_reads(s->iter.lo, v) || ir_reads(s->iter.hi, v) || mentions(s->b, v);
    case IR_FOR_ARRAY: return ir_reads(s->iter.array, v) || mentions(s->b, v);
    case IR_LET: case IR_ASSIGN: case IR_STORE: case IR_PUSH: case IR_UNIQUE: case IR_EXPR: case IR_RETURN:
        for (int i = 0; i < s->nkids; i++)
            if (ir_reads(s->kids[i], v)) return true;
        return ir_reads(s->a, v);
    case IR_BREAK: case IR_CONTINUE: case IR_UNREACHABLE:
        return false;
    }
    return true;
}

/* Whether s holds a return. */
static bool returns(struct ir_node *s)
{
    if (!s || ir_is_expr(s)) return false;
    if (s->op == IR_RETURN) return true;
    for (int i = 0; i < s->nkids && s->op == IR_BLOCK; i++)
        if (returns(s->kids[i])) return true;
    return s->op != IR_BLOCK && (returns(s->b) || returns(s->c));
}

/* Whether s holds a break or continue of a loop around it, or (ret) a return. */
static bool escapes(struct ir_node *s, bool ret)
{
    if (!s || ir_is_expr(s)) return false;
    switch (s->sop) {
    case IR_BREAK: case IR_CONTINUE: return true;
    case IR_RETURN: return ret;
    case IR_BLOCK:
        for (int i = 0; i < s->nkids; i++)
            if (escapes(s->kids[i], ret)) return true;
        return false;
    case IR_IF: return escapes(s->b, ret) || escapes(s->c, ret);
    case IR_WHILE: case IR_FOR_RANGE: case IR_FOR_ARRAY: return ret && returns(s->b); /* its own jumps stay */
    case IR_LET: case IR_ASSIGN: case IR_STORE: case IR_PUSH: case IR_UNIQUE: case IR_EXPR: case IR_UNREACHABLE:
        return false;
    }
    return true;
}

/* What running s does to v first: reads it (or may), assigns it without
 * reading it on every path (*jumped: a break or continue before may have
 * left), or neither. */
static enum use first_use(struct ir_node *s, struct ir_var *v, bool *jumped)
{
    if (s->op == IR_ASSIGN && s->var == v && !ir_reads(s->a, v)) return USE_KILL;
    if (s->op == IR_BLOCK) {
        for (int i = 0; i < s->nkids; i++) {
            enum use u = first_use(s->kids[i], v, jumped);
            if (u == USE_READ) return USE_READ;
            if (u == USE_KILL && !*jumped) return USE_KILL;
            if (escapes(s->kids[i], false)) *jumped = true;
        }
        return USE_NONE;
    }
    if (mentions(s, v)) return USE_READ;
    if (escapes(s, false)) *jumped = true;
    return USE_NONE;
}

/* The statements around the one being looked at, innermost last: blocks
 * with the index of the kid we are in, and the ifs and loops between. */
struct ctx {
    struct ir_node *s;
    int i;
};
static struct ctx *CTX;
static int NCTX, CAPCTX;

static void ctx_push(struct ir_node *s, int i)
{
    VEC_GROW(CTX, NCTX, CAPCTX);
    CTX[NCTX++] = (struct ctx){s, i};
}

static struct ir_node **DEF_BLOCK; /* by var id: the block whose let defines it (NULL: a parameter) */
static int *MENTIONS;              /* by var id: the statements and reads that name it, its let aside */
static int *SEEN;                  /* by var id: those of them the walk has passed (in the program's order) */

/* Whether v may be read after the statement at the top of CTX. */
static bool live_after(struct ir_var *v)
{
    /* named nowhere after it: read again only through the loops around it */
    bool later = SEEN[v->id] < MENTIONS[v->id];
    bool jumped = false;
    for (int d = NCTX - 1; d >= 0; d--) {
        struct ir_node *n = CTX[d].s;
        switch (n->sop) {
        case IR_BLOCK:
            for (int j = CTX[d].i + 1; later && j < n->nkids; j++) {
                enum use u = first_use(n->kids[j], v, &jumped);
                if (u == USE_READ) return true;
                if (u == USE_KILL && !jumped) return false;
                if (escapes(n->kids[j], false)) jumped = true;
            }
            if (DEF_BLOCK[v->id] == n) return false; /* its scope ends: a new one each time it is entered */
            break;
        case IR_WHILE: case IR_FOR_RANGE: case IR_FOR_ARRAY: {
            /* the next iteration: the condition, then the body from its start */
            if (n->op == IR_WHILE && ir_reads(n->a, v)) return true;
            if (n->op == IR_FOR_RANGE && (ir_reads(n->iter.lo, v) || ir_reads(n->iter.hi, v))) return true;
            if (n->op == IR_FOR_ARRAY && ir_reads(n->iter.array, v)) return true;
            bool j2 = false;
            if (first_use(n->b, v, &j2) == USE_READ) return true;
            jumped = false; /* the jumps seen so far were this loop's */
            break;
        }
        case IR_IF: case IR_LET: case IR_ASSIGN: case IR_STORE: case IR_PUSH: case IR_UNIQUE: case IR_EXPR:
        case IR_RETURN: case IR_BREAK: case IR_CONTINUE: case IR_UNREACHABLE:
            break;
        }
    }
    return false;
}

/* ---- the candidates ------------------------------------------------------------------ */

static struct ir_program *P;
static struct ir_fn *FN;
static unsigned char *LOCAL;   /* by var id: 1 when a let of this function (not borrowed) defines it */
static struct map USED_AS_VALUE; /* ir_fn -> non-NULL: an IR_FNVAL names it */
static bool CHANGED;           /* a parameter became owned this round */
static bool MARK;              /* the last round: set the moved flags */

static int count_reads(struct ir_node *n, struct ir_var *v)
{
    if (!n) return 0;
    if (n->op == IR_VAR) return n->var == v;
    int k = count_reads(n->a, v) + count_reads(n->b, v) + count_reads(n->c, v);
    for (int i = 0; i < n->nkids; i++) k += count_reads(n->kids[i], v);
    if (n->op == IR_REDUCE || n->op == IR_LISTCOMP) {
        k += ir_reads(n->iter.lo, v) || ir_reads(n->iter.hi, v) || ir_reads(n->iter.array, v) ||
             ir_reads(n->elem, v) || ir_reads(n->filter, v) || ir_reads(n->key, v);
        for (int i = 0; i < n->nclauses; i++) {
            struct ir_iter *it = &n->clauses[i].iter;
            k += ir_reads(it->lo, v) || ir_reads(it->hi, v) || ir_reads(it->array, v);
        }
    }
    return k;
}

static bool param_index(struct ir_fn *f, struct ir_var *v, int *at)
{
    for (int i = 0; i < f->nparams; i++)
        if (f->params[i] == v) {
            *at = i;
            return true;
        }
    return false;
}

/* Whether f's parameter i may be owned (see the calling convention above). */
static bool may_own(struct ir_fn *f, int i)
{
    return f != P->main && !f->is_lambda && !f->has_site && !map_get_ptr(&USED_AS_VALUE, f) &&
           type_is_ref(f->params[i]->type);
}

/* A read in a place that keeps the value, in statement st: moved when it is
 * the last use of a variable the function owns there. */
static void consider(struct ir_node *st, struct ir_node *n)
{
    struct ir_var *v = n->var;
    if (!type_is_ref(v->type)) return;
    int pi = -1;
    bool param = param_index(FN, v, &pi);
    if (!param && !LOCAL[v->id]) return;
    if (param && !may_own(FN, pi)) return;
    if ((st->op == IR_STORE || st->op == IR_PUSH) && st->var == v) return;
    int reads = count_reads(st->a, v);
    for (int i = 0; i < st->nkids; i++) reads += count_reads(st->kids[i], v);
    if (reads != 1) return;
    /* a return ends every path; v = f(v) gives v a new value after the read */
    if (st->op != IR_RETURN && !(st->op == IR_ASSIGN && st->var == v) && live_after(v)) return;
    if (param && !FN->owns[pi]) {
        FN->owns[pi] = true;
        CHANGED = true;
    }
    if (MARK) n->moved = true;
}

/* The reads in n that keep their value (keep: n's own value is kept). */
static void keepers(struct ir_node *st, struct ir_node *n, bool keep)
{
    if (!n) return;
    switch (n->eop) {
    case IR_VAR:
        if (keep) consider(st, n);
        return;
    case IR_LISTCOMP: case IR_REDUCE: case IR_FNVAL: return; /* per element; captures */
    case IR_ARRAY: case IR_TUPLE:
        for (int i = 0; i < n->nkids; i++) keepers(st, n->kids[i], true);
        return;
    case IR_CALL:
        for (int i = 0; i < n->nkids; i++) keepers(st, n->kids[i], n->fn->owns && n->fn->owns[i]);
        return;
    case IR_COND:
        keepers(st, n->a, false);
        keepers(st, n->b, true);
        keepers(st, n->c, true);
        return;
    case IR_INT: case IR_FLOAT: case IR_BOOL: case IR_STR: case IR_GLOBAL: case IR_UNARY: case IR_NOT: case IR_BINARY:
    case IR_AND: case IR_OR: case IR_CONV: case IR_BUILTIN: case IR_INDEX: case IR_FSTRING: case IR_FIELD:
    case IR_CALLV: case IR_GUARD_TEST:
        keepers(st, n->a, false);
        keepers(st, n->b, false);
        keepers(st, n->c, false);
        for (int i = 0; i < n->nkids; i++) keepers(st, n->kids[i], false);
        return;
    }
}

/* ---- takes ------------------------------------------------------------------------- */

/* Whether index expression k is pure (ir_same_term's terms) and nothing in s writes its variables. */
static bool index_stays(struct ir_node *k, struct ir_node *s)
{
    if (!k) return true;
    switch (k->eop) {
    case IR_INT: case IR_BOOL: case IR_GLOBAL: return true;
    case IR_VAR: return !ir_writes(s, k->var, false);
    case IR_BINARY: case IR_NOT: case IR_AND: case IR_OR: return index_stays(k->a, s) && index_stays(k->b, s);
    default: return false;
    }
}

/* The indices of n = v[k0][k1].. into ks (outermost first, at most 8) and
 * its variable into *v; returns their count, 0 when n is no such path. */
static int index_path(struct ir_node *n, struct ir_node **ks, struct ir_var **v)
{
    int d = 0;
    for (struct ir_node *m = n; m->op == IR_INDEX; m = m->a) d++;
    if (d > 8) return 0;
    for (int k = d - 1; k >= 0; k--, n = n->a) ks[k] = n->b;
    if (n->op != IR_VAR) return 0;
    *v = n->var;
    return d;
}

/* Kid i of block b: `let row = out[k]..` whose row a later `out[k].. = e` puts back. */
static void try_take(struct ir_node *b, int i)
{
    struct ir_node *let = b->kids[i];
    if (let->op != IR_LET || let->borrow || !type_is_ref(let->var->type)) return;
    struct ir_node *ks[8];
    struct ir_var *out = NULL, *row = let->var;
    int d = index_path(let->a, ks, &out);
    if (!d || !LOCAL[out->id]) return;
    for (int k = 0; k < d; k++)
        if (ir_reads(ks[k], out) || ir_reads(ks[k], row)) return;
    bool written = false;
    for (int j = i + 1; j < b->nkids; j++) {
        struct ir_node *s = b->kids[j];
        bool back = s->op == IR_STORE && s->var == out && s->nkids == d && !ir_reads(s->a, out);
        for (int k = 0; back && k < d; k++) back = ir_same_term(s->kids[k], ks[k]);
        if (back) {
            let->take = written;
            return;
        }
        if (mentions(s, out) || escapes(s, true)) return;
        for (int k = 0; k < d; k++)
            if (!index_stays(ks[k], s)) return;
        if (ir_writes(s, row, true)) written = true;
    }
}

/* ---- the walk ---------------------------------------------------------------------- */

static void count_vars(struct ir_node *s, struct ir_node *b, int *into, bool lets);

static void walk(struct ir_node *s)
{
    if (!s || ir_is_expr(s)) return;
    switch (s->sop) {
    case IR_BLOCK:
        for (int i = 0; i < s->nkids; i++) {
            if (MARK) try_take(s, i);
            ctx_push(s, i);
            walk(s->kids[i]);
            NCTX--;
        }
        return;
    case IR_IF: case IR_WHILE: case IR_FOR_RANGE: case IR_FOR_ARRAY:
        /* the condition, bounds or array and the loop's variable come before the body */
        count_vars(s->a, NULL, SEEN, false);
        if (s->op != IR_IF && s->op != IR_WHILE) {
            count_vars(s->iter.lo, NULL, SEEN, false);
            count_vars(s->iter.hi, NULL, SEEN, false);
            count_vars(s->iter.array, NULL, SEEN, false);
            SEEN[s->var->id]++;
        }
        ctx_push(s, 0);
        walk(s->b);
        if (s->op == IR_IF) walk(s->c);
        NCTX--;
        return;
    case IR_LET: case IR_ASSIGN: case IR_STORE: case IR_PUSH: case IR_RETURN: case IR_EXPR:
        count_vars(s, NULL, SEEN, false);
        if (s->op == IR_LET && s->borrow) return;
        keepers(s, s->a, s->op != IR_EXPR);
        return;
    case IR_UNIQUE: case IR_BREAK: case IR_CONTINUE: case IR_UNREACHABLE:
        count_vars(s, NULL, SEEN, false);
        return;
    }
}

/* Counts into `into` each variable's mentions in s (reads, and the
 * statements that name it, its let aside); with lets, notes each let's
 * variable (LOCAL) and block (DEF_BLOCK, b the block around s). */
static void count_vars(struct ir_node *s, struct ir_node *b, int *into, bool lets)
{
    if (!s) return;
    if (s->op == IR_VAR) into[s->var->id]++;
    if (s->op == IR_LET && lets) {
        DEF_BLOCK[s->var->id] = b;
        if (!s->borrow) LOCAL[s->var->id] = 1;
    } else if (!ir_is_expr(s) && s->var && s->op != IR_LET) {
        into[s->var->id]++;
    }
    if (s->op == IR_BLOCK) {
        for (int i = 0; i < s->nkids; i++) count_vars(s->kids[i], s, into, lets);
        return;
    }
    count_vars(s->a, b, into, lets);
    count_vars(s->b, b, into, lets);
    count_vars(s->c, b, into, lets);
    for (int i = 0; i < s->nkids; i++) count_vars(s->kids[i], b, into, lets);
    if (s->op == IR_FOR_RANGE || s->op == IR_FOR_ARRAY || s->op == IR_LISTCOMP || s->op == IR_REDUCE) {
        struct ir_iter *its[1 + 64];
        int nit = 0;
        its[nit++] = &s->iter;
        for (int i = 0; i < s->nclauses && nit < 65; i++) its[nit++] = &s->clauses[i].iter;
        for (int i = 0; i < nit; i++) {
            count_vars(its[i]->lo, b, into, lets);
            count_vars(its[i]->hi, b, into, lets);
            count_vars(its[i]->array, b, into, lets);
        }
        count_vars(s->elem, b, into, lets);
        count_vars(s->filter, b, into, lets);
        count_vars(s->key, b, into, lets);
    }
}

static void note_fnvals(struct ir_node *n)
{
    if (!n) return;
    if (n->op == IR_FNVAL) map_put_ptr(&USED_AS_VALUE, n->fn, n->fn);
    ir_each_child(n, note_fnvals);
}

static void unseen(struct ir_var *v) { SEEN[v->id] = 0; }

void opt_move(struct ir_program *ir)
{
    P = ir;
    LOCAL = arena_alloc((size_t)ir->nvars + 1);
    DEF_BLOCK = arena_alloc(((size_t)ir->nvars + 1) * sizeof *DEF_BLOCK);
    MENTIONS = arena_alloc(((size_t)ir->nvars + 1) * sizeof *MENTIONS);
    SEEN = xmalloc(((size_t)ir->nvars + 1) * sizeof *SEEN); /* each function's entries zeroed before its walk */
    for (int i = 0; i < ir->globals.len; i++) note_fnvals(((struct ir_global *)ir->globals.items[i])->init);
    for (int i = 0; i < ir->fns.len; i++) {
        struct ir_fn *f = ir->fns.items[i];
        note_fnvals(f->body);
        count_vars(f->body, NULL, MENTIONS, true);
        f->owns = f->nparams ? arena_alloc((size_t)f->nparams * sizeof *f->owns) : NULL;
    }
    /* owned parameters: until no more become owned, then the moves */
    for (MARK = false;; MARK = !CHANGED) {
        CHANGED = false;
        for (int i = 0; i < ir->fns.len; i++) {
            FN = ir->fns.items[i];
            ir_each_var(FN, FN->body, unseen);
            walk(FN->body);
        }
        if (MARK) break;
    }
    map_free(&USED_AS_VALUE);
    free(SEEN);
    free(CTX);
    CTX = NULL;
    NCTX = CAPCTX = 0;
}
