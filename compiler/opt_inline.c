/*
 * opt_inline.c: calls of small functions written in place.
 *
 * A call f(a, b) is replaced by f's result expression, with each parameter
 * replaced by its argument, when
 *   - f's body is `return EXPR`, or `if c: return A` then `return B`
 *     (which is `A if c else B`, the same evaluation), with EXPR small;
 *   - f cannot reach itself through calls (a recursive function keeps its
 *     frames and its stack check, so a stack overflow is reported where it
 *     was);
 *   - every argument is a variable, a literal or a constant: evaluating it
 *     does nothing and cannot fail, so reading it where the parameter was
 *     read gives the same value (an expression cannot assign a variable);
 *   - f is not a library function that calls panic() itself.
 * The result expression keeps its own places, so a panic inside it (an
 * overflow, an index) is reported where it was; a library function's calls
 * of other library functions still report their panics at the user's call
 * (site_loc). What disappears is a C call and its stack check: an inlined
 * function is not recursive, so it cannot overflow the stack itself. The
 * call stays a frame of a panic's call chain: the expression carries it
 * (ir_node.inl), and the emitter writes its place in the chain's slot.
 *
 * gcc inlines the same calls in release builds; this pass gives dev builds
 * (tcc, `brine run`) and the later passes and the lane emitter the same
 * view.
 */
#include "ir.h"

#include <stdlib.h>
#include <string.h>

#define MAX_NODES 40  /* the size of an expression worth writing in place */
#define MAX_ROUNDS 4  /* calls of inlined functions inlined again, this deep */

/* Whether the expression may be copied: no comprehension or reduction
 * (their captures and helpers belong to one place), no panic(). */
static bool copyable(struct ir_node *n)
{
    if (!n) return true;
    if (n->op == IR_LISTCOMP || n->op == IR_REDUCE || n->op == IR_FSTRING) return false;
    if (n->op == IR_BUILTIN && n->builtin == BI_PANIC) return false;
    if (!copyable(n->a) || !copyable(n->b) || !copyable(n->c)) return false;
    for (int i = 0; i < n->nkids; i++)
        if (!copyable(n->kids[i])) return false;
    return true;
}

/* f's result as one expression, or NULL. */
static struct ir_node *result_expr(struct ir_fn *f)
{
    struct ir_node *b = f->body;
    if (f->ret == ty_void || !b || b->op != IR_BLOCK) return NULL;
    if (b->nkids == 1 && b->kids[0]->op == IR_RETURN) return b->kids[0]->a;
    /* if c: return A; return B */
    if (b->nkids == 2 && b->kids[0]->op == IR_IF && !b->kids[0]->c && b->kids[1]->op == IR_RETURN) {
        struct ir_node *then = b->kids[0]->b;
        if (then && then->op == IR_BLOCK && then->nkids == 1 && then->kids[0]->op == IR_RETURN) {
            struct ir_node *c = ir_new(IR_COND, b->kids[0]->loc, f->ret);
            c->a = b->kids[0]->a;
            c->b = then->kids[0]->a;
            c->c = b->kids[1]->a;
            return c;
        }
    }
    return NULL;
}

static bool trivial(struct ir_node *n)
{
    return n->op == IR_VAR || n->op == IR_INT || n->op == IR_FLOAT || n->op == IR_BOOL || n->op == IR_GLOBAL;
}

struct subst {
    struct ir_copier k;   /* first: the hooks get it */
    struct ir_fn *f;
    struct ir_node **args;
    struct ir_node *call; /* the call being replaced */
    bool in_site_fn;      /* the caller is a library function (has `site`) */
};

/* A read of one of f's parameters is (a copy of) its argument. */
static struct ir_node *subst_read(struct ir_copier *k, const struct ir_node *n)
{
    struct subst *s = (struct subst *)k;
    for (int i = 0; i < s->f->nparams; i++)
        if (n->var == s->f->params[i]) return ir_copy(NULL, s->args[i]);
    return NULL;
}

/* A library callee passes its own `site` (its caller's place) to the
 * library functions it calls; written in place, they get that place: the
 * replaced call's site. */
static void subst_site(struct ir_copier *k, struct ir_node *c)
{
    struct subst *s = (struct subst *)k;
    if (c->op == IR_CALL && c->fn->has_site && s->f->has_site && (!c->site_set || c->site_is_param)) {
        c->site_set = true;
        if (s->call->site_set) {
            c->site_is_param = s->call->site_is_param;
            c->site_loc = s->call->site_loc;
        } else {
            c->site_is_param = s->in_site_fn; /* the caller is a library function: its own site */
            c->site_loc = s->call->loc;
        }
    }
}

static struct ir_fn *current;
static int inlined;
static struct ir_program *P;

/* ---- recursion: a function that can reach itself is never inlined ---------- */

static void callees(struct ir_node *n, struct ir_fn ***out, int *nout, int *cap)
{
    if (!n) return;
    if (n->op == IR_CALL) {
        if (*nout == *cap) {
            *cap = *cap ? 2 * *cap : 16;
            *out = xrealloc(*out, (size_t)*cap * sizeof **out);
        }
        (*out)[(*nout)++] = n->fn;
    }
    callees(n->a, out, nout, cap);
    callees(n->b, out, nout, cap);
    callees(n->c, out, nout, cap);
    for (int i = 0; i < n->nkids; i++) callees(n->kids[i], out, nout, cap);
    callees(n->iter.lo, out, nout, cap);
    callees(n->iter.hi, out, nout, cap);
    callees(n->iter.array, out, nout, cap);
    callees(n->elem, out, nout, cap);
    callees(n->filter, out, nout, cap);
    for (int i = 0; i < n->nclauses; i++) {
        callees(n->clauses[i].iter.lo, out, nout, cap);
        callees(n->clauses[i].iter.hi, out, nout, cap);
        callees(n->clauses[i].iter.array, out, nout, cap);
    }
}

/* Whether f can call itself, directly or through others (its stack check
 * then matters: a stack overflow is reported at the function entered). */
static bool recursive(struct ir_fn *f)
{
    struct ir_fn **todo = NULL, **seen = NULL;
    int ntodo = 0, captodo = 0, nseen = 0, capseen = 0;
    callees(f->body, &todo, &ntodo, &captodo);
    bool found = false;
    while (ntodo && !found) {
        struct ir_fn *g = todo[--ntodo];
        if (g == f) {
            found = true;
            break;
        }
        bool was = false;
        for (int i = 0; i < nseen && !was; i++) was = seen[i] == g;
        if (was) continue;
        if (nseen == capseen) {
            capseen = capseen ? 2 * capseen : 16;
            seen = xrealloc(seen, (size_t)capseen * sizeof *seen);
        }
        seen[nseen++] = g;
        callees(g->body, &todo, &ntodo, &captodo);
    }
    free(todo);
    free(seen);
    return found;
}

static unsigned char *is_recursive; /* by index in P->fns, 1 + answer; 0: not asked */

static bool fn_recursive(struct ir_fn *f)
{
    for (int i = 0; i < P->fns.len; i++)
        if (P->fns.items[i] == f) {
            if (!is_recursive[i]) is_recursive[i] = (unsigned char)(1 + recursive(f));
            return is_recursive[i] == 2;
        }
    return true;
}

static struct ir_node *inline_expr(struct ir_node *n);

static void inline_kids(struct ir_node *n)
{
    n->a = inline_expr(n->a);
    n->b = inline_expr(n->b);
    n->c = inline_expr(n->c);
    for (int i = 0; i < n->nkids; i++) n->kids[i] = inline_expr(n->kids[i]);
    if (n->op == IR_FOR_RANGE || n->op == IR_LISTCOMP || n->op == IR_REDUCE) {
        n->iter.lo = inline_expr(n->iter.lo);
        n->iter.hi = inline_expr(n->iter.hi);
    }
    if (n->op == IR_FOR_ARRAY || n->op == IR_LISTCOMP || n->op == IR_REDUCE) n->iter.array = inline_expr(n->iter.array);
    n->elem = inline_expr(n->elem);
    n->filter = inline_expr(n->filter);
    for (int i = 0; i < n->nclauses; i++) {
        struct ir_iter *it = &n->clauses[i].iter;
        it->lo = inline_expr(it->lo);
        it->hi = inline_expr(it->hi);
        it->array = inline_expr(it->array);
    }
}

static struct ir_node *inline_expr(struct ir_node *n)
{
    if (!n) return NULL;
    inline_kids(n);
    if (n->op != IR_CALL || n->fn == current || fn_recursive(n->fn)) return n;
    struct ir_fn *f = n->fn;
    struct ir_node *e = result_expr(f);
    if (!e || ir_size(e) > MAX_NODES || !copyable(e)) return n;
    for (int i = 0; i < n->nkids; i++)
        if (!trivial(n->kids[i])) return n;
    struct subst s = {{subst_read, NULL, subst_site}, f, n->kids, n, current->has_site};
    inlined++;
    struct ir_node *r = ir_copy(&s.k, e);
    /* the call stays a frame of the call chain (emit_c.c) */
    struct ir_inline *in = xmalloc(sizeof *in);
    in->fn = f;
    in->site = n->loc;
    in->next = r->inl;
    /* the call itself may stand for calls written in place before (an
     * earlier round): those frames come first, outermost (copies: the
     * lists are shared) */
    struct ir_inline *head = in, **tail = &head;
    for (struct ir_inline *o = n->inl; o; o = o->next) {
        struct ir_inline *c = xmalloc(sizeof *c);
        *c = *o;
        c->next = in;
        *tail = c;
        tail = &c->next;
    }
    r->inl = head;
    return r;
}

void opt_inline(struct ir_program *ir)
{
    P = ir;
    is_recursive = xmalloc((size_t)ir->fns.len + 1);
    memset(is_recursive, 0, (size_t)ir->fns.len + 1);
    for (int round = 0; round < MAX_ROUNDS; round++) {
        inlined = 0;
        for (int i = 0; i < ir->fns.len; i++) {
            current = ir->fns.items[i];
            current->body = inline_expr(current->body);
        }
        if (!inlined) break;
    }
    free(is_recursive);
    current = NULL;
    P = NULL;
}
