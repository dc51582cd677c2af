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
 * call stays a frame of a panic's call chain: each place of the copy names
 * it (loc.inl, an entry of the program's tree of calls written in place,
 * ir_site, whose own place names the calls around it), and the emitter
 * writes the chain of a place from the place alone (emit_base.c loc_ref).
 *
 * gcc inlines the same calls in release builds; this pass gives dev builds
 * (tcc, `brine run`) and the later passes and the lane emitter the same
 * view.
 *
 * A call in a loop, with any arguments, of a function whose body is such
 * an expression or a few statements (lets, assignments and ifs of plain
 * values, range loops of those, loops over an array its body leaves alone,
 * copied as range loops: by_index) then `return EXPR` (EXPR may be float
 * arithmetic over one float sum or product over a range, written first as
 * a loop from the same start: the same bits), is written as
 * statements before its statement (a store's value is evaluated before its
 * indices, so a store too) when the statement evaluates it first (everything evaluated
 * before it is inert: it does nothing and cannot fail): each argument
 * bound to a fresh let, in order (a variable or literal argument used as it
 * is), the body with fresh variables, the result in a fresh let the
 * statement reads. Each copied place names the call (loc.inl), inside the
 * calls the call's own place names, so a panic inside reports the same
 * chain. The later passes then see the body in the loop: its
 * ranges (opt_range.c), its checks, no call.
 *
 * The result may be a comprehension (comp_result): `return [E for x in
 * xs]` or `return [E for k in lo..hi]` (one clause, no filter; after a few
 * such statements), in a loop, is written the same way: the arguments
 * bound in order, the comprehension copied with a fresh variable and its
 * captures read again (ir_recapture: the caller's variables now, the
 * parameters' arguments or their lets), its places naming the call as any
 * copied place (a panic in E reports the helper's place inside the call's
 * chain; a par element's frame is the copy's, in the same function). A
 * comprehension does nothing but make a new array, which only the result
 * holds, so the copy makes the same array from the same values, with the
 * same elements' panics in the same order. `v = f(...)` (a let or an
 * assignment of the call alone) takes the comprehension itself, evaluated
 * where the result's let would have been, right before the assignment, so
 * that the later passes see the map (`v = [v[k] - w[k] for k in
 * 0..len(v)]`: fuse, emit_map_in_place). A call is reads_only for the
 * arguments after a variable argument: it gets values and changes no
 * array of its caller's, so the variable is read in place.
 *
 * A step, `xs = f(..., xs, ...)` in a loop, of a function whose body makes
 * a local of its parameter, stores into it and returns it (`var ys = p;
 * for i ...: ys[i] = q; return ys`), is written in place with xs for ys
 * (step_param, step_call): the stores reach xs's own array, and the nest
 * is one loop around another, as if written in main.
 */
#include "ir.h"

#include <stdlib.h>
#include <string.h>

#define MAX_NODES 40  /* the size of an expression worth writing in place */
#define MAX_ROUNDS 4  /* calls of inlined functions inlined again, this deep */
#define MAX_BODY 100  /* the size of a statement body worth writing in place */

/* Whether the expression may be copied in place of a call: no
 * comprehension or reduction (their captures belong to one place; a
 * comprehension result written as statements is comp_result's), no panic(). */
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

/* Whether result expression e, written as statements, may be copied: as
 * it is, or with its one float sum or product over a range written as a
 * loop first (folded_result), around it float arithmetic that cannot panic. */
static bool copyable_result(struct ir_node *e)
{
    struct ir_node *fold = NULL;
    if (copyable(e)) return true;
    return e->type == ty_float && ir_around_fold(e, &fold, false) && fold && copyable(fold->iter.lo) &&
           copyable(fold->iter.hi) && copyable(fold->elem);
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
    int base;             /* the call's entry in the tree of calls written in place (ir_site) */
};

/* A read of one of f's parameters is (a copy of) its argument. */
static struct ir_node *subst_read(struct ir_copier *k, const struct ir_node *n)
{
    struct subst *s = (struct subst *)k;
    for (int i = 0; i < s->f->nparams; i++)
        if (n->var == s->f->params[i]) return ir_copy(NULL, s->args[i]);
    return NULL;
}

static int site_within(int inl, int base);

/* Each node of the copy of the callee's body: its place is inside the
 * call (ir_site: the frames of a panic there), and a library callee
 * passes its own `site` (its caller's place) to the library functions it
 * calls; written in place, they get that place: the replaced call's site.
 * (The arguments read in place of parameters are the caller's: no copy of
 * this copier's, their places stay.) */
static void subst_site(struct ir_copier *k, struct ir_node *c)
{
    struct subst *s = (struct subst *)k;
    c->loc.inl = site_within(c->loc.inl, s->base);
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
static int hoisted; /* calls written as statements in the current function */

/* ---- the tree of calls written in place (ir_site) ---------------------------- */

/* The entry of f's body written at place site (whose inl: the calls around
 * it), made once: equal chains of calls are one index. */
static int site_of(struct ir_fn *f, struct loc site)
{
    struct { struct ir_fn *fn; struct loc site; } key;
    memset(&key, 0, sizeof key); /* the map compares bytes */
    key.fn = f, key.site = site;
    intptr_t known = (intptr_t)map_get(&P->site_ids, &key, sizeof key);
    if (known) return (int)known;
    VEC_GROW(P->sites, P->nsites, P->capsites);
    P->sites[P->nsites++] = (struct ir_site){f, site};
    map_put(&P->site_ids, &key, sizeof key, (void *)(intptr_t)P->nsites);
    return P->nsites;
}

/* A place's calls inl (0: none, in the callee's own body) once the body is
 * written at the call base: the same calls, inside base's. */
static int site_within(int inl, int base)
{
    if (!inl) return base;
    struct ir_site e = P->sites[inl - 1];
    e.site.inl = site_within(e.site.inl, base);
    return site_of(e.fn, e.site);
}

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
    callees(n->key, out, nout, cap);
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
    n->key = inline_expr(n->key);
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
    /* the call stays a frame of the call chain: the copy's places are
     * inside it (the call's own place may be in calls written in place
     * before, an earlier round: those frames come first) */
    struct subst s = {{subst_read, NULL, subst_site}, f, n->kids, n, current->has_site, site_of(f, n->loc)};
    inlined++;
    return ir_copy(&s.k, e);
}

/* ---- calls at the head of a statement: written as statements before it ---- */

/* A value the C code holds by value: evaluating a read of it twice, or
 * earlier, reads the same thing (an expression assigns no variable; only an
 * array's contents can change under an expression, through x.pop()). */
static bool plain(struct type *t)
{
    if (t == ty_int || t == ty_i128 || t == ty_u64 || t == ty_float || t == ty_bool) return true;
    if (t->kind != T_TUPLE) return false;
    for (int i = 0; i < t->nfields; i++)
        if (!plain(t->fields[i])) return false;
    return true;
}

/* Whether evaluating n does nothing and cannot fail: code moved before it
 * (statements of fresh variables) leaves it the same value, and it cannot
 * panic first. */
static bool inert(struct ir_node *n)
{
    if (!n) return true;
    if (n->type == ty_void || !plain(n->type)) return false;
    switch (n->eop) {
    case IR_INT: case IR_FLOAT: case IR_BOOL: case IR_VAR: case IR_GLOBAL: return true;
    case IR_NOT: case IR_FIELD: return inert(n->a);
    case IR_TUPLE:
        for (int i = 0; i < n->nkids; i++)
            if (!inert(n->kids[i])) return false;
        return true;
    case IR_UNARY: return n->optype == ty_float && inert(n->a);
    case IR_BINARY:
        if (!plain(n->optype)) return false;
        if (n->optype == ty_float && n->bop != OP_MOD) return inert(n->a) && inert(n->b);
        return (op_class[n->bop] == OPC_CMP || op_class[n->bop] == OPC_BITS) && inert(n->a) && inert(n->b);
    case IR_CONV: return n->type == ty_float && n->optype != ty_str && inert(n->a);
    case IR_STR: case IR_AND: case IR_OR: case IR_COND: case IR_CALL: case IR_BUILTIN: case IR_INDEX: case IR_ARRAY:
    case IR_FSTRING: case IR_LISTCOMP: case IR_REDUCE: case IR_FNVAL: case IR_CALLV: case IR_GUARD_TEST:
        return false;
    }
    return false;
}

/* Whether evaluating n changes no array (it may panic): variables,
 * literals, indexing, fields, len, calls and arithmetic of those (a call
 * gets its arguments' values: it changes no array of its caller's, and
 * lowering gives a function's stores their own copy). An argument
 * that does something else (xs.pop()) binds the array arguments before it. */
static bool reads_only(struct ir_node *n)
{
    if (!n) return true;
    switch (n->eop) {
    case IR_INT: case IR_FLOAT: case IR_BOOL: case IR_STR: case IR_VAR: case IR_GLOBAL: return true;
    case IR_INDEX: case IR_BINARY: case IR_UNARY: case IR_NOT: case IR_CONV: case IR_FIELD:
        return reads_only(n->a) && reads_only(n->b);
    case IR_BUILTIN: return n->builtin == BI_LEN && n->nkids == 1 && reads_only(n->kids[0]);
    case IR_CALL: /* a function changes none of its caller's arrays: it gets values */
        for (int i = 0; i < n->nkids; i++)
            if (!reads_only(n->kids[i])) return false;
        return true;
    default: return false;
    }
}

/* Whether s assigns v. */
static bool assigns(struct ir_node *s, struct ir_var *v)
{
    if (!s || ir_is_expr(s)) return false;
    if (s->op == IR_ASSIGN && s->var == v) return true;
    if (assigns(s->b, v) || assigns(s->c, v)) return true;
    for (int i = 0; i < s->nkids; i++)
        if (assigns(s->kids[i], v)) return true;
    return false;
}

/* A loop `for c in cs` of plain elements over a variable its body leaves
 * alone: the copy runs it as the range loop `for k in 0..len(cs): let c =
 * cs[k]` (ir_each_by_index), the same elements in the same order. */
static bool by_index(struct ir_node *s)
{
    struct ir_node *a = s->iter.array;
    return !s->par && a->op == IR_VAR && plain(s->var->type) && !ir_writes(s->b, a->var, true);
}

static void each_by_index(struct ir_node *s)
{
    if (!s || ir_is_expr(s)) return;
    if (s->op == IR_FOR_ARRAY) ir_each_by_index(P, s);
    each_by_index(s->b);
    each_by_index(s->c);
    for (int i = 0; i < s->nkids; i++) each_by_index(s->kids[i]);
}

static struct ir_fn *step_fn; /* a step's body being read (step_param): its stores are simple */

/* A store into a local of step_fn (not a parameter: lowering stores into
 * no parameter; a copy, so that none changes under the caller). */
static bool stores_local(struct ir_node *s)
{
    for (int i = 0; i < step_fn->nparams; i++)
        if (s->var == step_fn->params[i]) return false;
    return true;
}

static bool copyable_kids(struct ir_node *s)
{
    for (int i = 0; i < s->nkids; i++)
        if (!copyable(s->kids[i])) return false;
    return true;
}

/* A statement of a body written in place: a let or an assignment of a
 * plain value, an if of those, or a range loop of those (`for k in
 * 0..len(u): s += u[k] * v[k]`: it ends, and its variable is a fresh one
 * in the copy, as the lets' are), or a loop over an array (by_index). */
static bool simple_stmt(struct ir_node *s)
{
    if (!s) return true;
    switch (s->sop) {
    case IR_LET: case IR_ASSIGN: return plain(s->var->type) && copyable(s->a);
    case IR_IF: return copyable(s->a) && simple_stmt(s->b) && simple_stmt(s->c);
    case IR_FOR_RANGE:
        return !s->par && copyable(s->iter.lo) && copyable(s->iter.hi) && simple_stmt(s->b);
    case IR_FOR_ARRAY: return by_index(s) && simple_stmt(s->b);
    case IR_BLOCK:
        for (int i = 0; i < s->nkids; i++)
            if (!simple_stmt(s->kids[i])) return false;
        return true;
    case IR_STORE: return step_fn && stores_local(s) && copyable(s->a) && copyable_kids(s);
    case IR_PUSH: case IR_EXPR: case IR_UNIQUE: case IR_WHILE: case IR_BREAK: case IR_CONTINUE:
    case IR_RETURN: case IR_UNREACHABLE:
        return false;
    }
    return false;
}

static int loops; /* the loops around the statement being rewritten */
static bool only_loops; /* ir_inline_loop_calls: only functions holding a loop */

/* Whether e is a comprehension a body may return written in place
 * (comp_result): one clause over an array or a range, no filter, its
 * parts copyable. */
static bool copyable_comp(struct ir_node *e)
{
    return e && e->op == IR_LISTCOMP && !e->nclauses && !e->filter && !e->key && !e->pool && copyable(e->elem) &&
           copyable(e->iter.lo) && copyable(e->iter.hi) && copyable(e->iter.array);
}

/* Whether f returns a comprehension (after simple statements): `return [E
 * for x in xs]`, `return [E for k in lo..hi]`. Not for a comprehension
 * comploop writes as a loop (ir_inline_loop_calls: only_loops). */
static bool comp_result(struct ir_fn *f)
{
    struct ir_node *b = f->body;
    if (only_loops || f->ret->kind != T_ARRAY || !b || b->op != IR_BLOCK || !b->nkids) return false;
    struct ir_node *last = b->kids[b->nkids - 1];
    return last->op == IR_RETURN && copyable_comp(last->a);
}

/* Whether f's body can be written as statements: `return E` or if/return
 * (result_expr), or simple statements then `return E`, of a plain result,
 * small; or of a comprehension (comp_result). */
static bool hoistable(struct ir_fn *f)
{
    bool comp = comp_result(f);
    if (f == current || f->ret == ty_void || !(plain(f->ret) || comp) || fn_recursive(f)) return false;
    struct ir_node *e = result_expr(f);
    if (e) return ir_size(e) <= MAX_NODES && (comp ? e->op == IR_LISTCOMP : copyable_result(e)); /* not in a conditional */
    struct ir_node *b = f->body;
    if (!b || b->op != IR_BLOCK || b->nkids < 2 || ir_size(b) > MAX_BODY) return false;
    struct ir_node *last = b->kids[b->nkids - 1];
    if (last->op != IR_RETURN || !last->a || !(comp || copyable_result(last->a))) return false;
    for (int i = 0; i + 1 < b->nkids; i++)
        if (!simple_stmt(b->kids[i])) return false;
    return true;
}


static bool holds_loop(struct ir_node *s)
{
    if (!s || ir_is_expr(s)) return false;
    if (s->op == IR_FOR_RANGE || s->op == IR_FOR_ARRAY) return true;
    if (s->op == IR_RETURN && !copyable(s->a)) return true; /* a fold, written as a loop */
    for (int i = 0; i < s->nkids; i++)
        if (holds_loop(s->kids[i])) return true;
    return holds_loop(s->b) || holds_loop(s->c);
}

/* A call worth writing as statements: one in a loop (elsewhere the call
 * costs little and the copy only grows the code) that the in-place rewrite
 * (inline_expr) cannot take. */
static bool wants_hoist(struct ir_node *n)
{
    if (n->op != IR_CALL || !loops || !hoistable(n->fn)) return false;
    if (only_loops) return holds_loop(n->fn->body);
    if (!result_expr(n->fn) || !copyable(result_expr(n->fn))) return true;
    for (int i = 0; i < n->nkids; i++)
        if (!trivial(n->kids[i])) return true;
    return false;
}

/* The slot of the call that the statement's expression n evaluates first,
 * when everything evaluated before it is inert. */
static struct ir_node **leading(struct ir_node **slot)
{
    struct ir_node *n = *slot;
    if (!n || inert(n)) return NULL;
    struct ir_node **r = NULL;
    switch (n->eop) {
    case IR_UNARY: case IR_NOT: case IR_CONV: case IR_FIELD: case IR_AND: case IR_OR: case IR_COND:
        r = leading(&n->a); /* and/or/cond: the rest may not run */
        break;
    case IR_BINARY: case IR_INDEX:
        if (!(r = leading(&n->a)) && inert(n->a)) r = leading(&n->b);
        break;
    case IR_BUILTIN:
        if (n->nkids && n->builtin != BI_PANIC) r = leading(&n->kids[0]);
        break;
    case IR_CALL: case IR_ARRAY: case IR_TUPLE:
        /* arguments in order; a call written as statements binds them in
         * that order, so it may come after arguments that do something */
        for (int i = 0; i < n->nkids && !r; i++) {
            r = leading(&n->kids[i]);
            if (!r && !inert(n->kids[i])) break;
        }
        if (!r && wants_hoist(n)) r = slot;
        break;
    case IR_INT: case IR_FLOAT: case IR_BOOL: case IR_STR: case IR_VAR: case IR_GLOBAL: case IR_FSTRING:
    case IR_LISTCOMP: case IR_REDUCE: case IR_FNVAL: case IR_CALLV: case IR_GUARD_TEST:
        break;
    }
    return r;
}

struct hoist {
    struct subst s;       /* first: the hooks get it */
    struct ir_var **fresh; /* by f's variable id: the copy's variable */
    struct ir_var **vars;  /* f's variables with a fresh one, to clear */
    int nvars;
};

static struct ir_var *fresh_var(struct ir_var *v)
{
    struct ir_var *c = arena_alloc(sizeof *c);
    *c = *v;
    c->id = ++P->nvars;
    c->kind = IRV_LOCAL;
    return c;
}

static struct ir_var *hoist_rename(struct ir_copier *k, struct ir_var *v)
{
    struct hoist *h = (struct hoist *)k;
    for (int i = 0; i < h->nvars; i++)
        if (h->vars[i] == v) return h->fresh[i];
    /* a variable defined in f's body: a fresh one for this copy */
    h->vars = xrealloc(h->vars, (size_t)(h->nvars + 1) * sizeof *h->vars);
    h->fresh = xrealloc(h->fresh, (size_t)(h->nvars + 1) * sizeof *h->fresh);
    h->vars[h->nvars] = v;
    h->fresh[h->nvars] = fresh_var(v);
    return h->fresh[h->nvars++];
}

/* A read of a parameter bound to its argument's value in place (trivial,
 * never assigned) is a copy of the argument. */
static struct ir_node *hoist_read(struct ir_copier *k, const struct ir_node *n)
{
    struct hoist *h = (struct hoist *)k;
    for (int i = 0; i < h->s.f->nparams; i++)
        if (n->var == h->s.f->params[i] && h->s.args[i]) return ir_copy(NULL, h->s.args[i]);
    return NULL;
}

static struct ir_node *let_of(struct ir_var *v, struct ir_node *value)
{
    struct ir_node *l = ir_new(IR_LET, value->loc, ty_void);
    l->var = v;
    l->a = value;
    return l;
}

static void hoist_block(struct ir_node *b, int depth);

/* The call's arguments bound in order, appended to into: one that is a
 * variable or a literal, of a parameter the body never assigns, read in
 * place (and parameter keep's, which the body reads nowhere: step_call),
 * the others in fresh lets. An argument that does something (xs.pop())
 * may change an array read by a variable argument before it: such a
 * variable is bound too. */
static void bind_args(struct hoist *h, struct ir_node *into, int keep)
{
    struct ir_node *c = h->s.call;
    struct ir_fn *f = h->s.f;
    h->s.args = arena_alloc(sizeof *h->s.args * (size_t)(f->nparams + 1));
    bool effects = false;
    for (int i = 0; i < f->nparams; i++) effects = effects || !reads_only(c->kids[i]);
    for (int i = 0; i < f->nparams; i++) {
        struct ir_node *arg = c->kids[i];
        if (i == keep || (trivial(arg) && !assigns(f->body, f->params[i]) && (!effects || arg->op != IR_VAR || plain(arg->type)))) {
            h->s.args[i] = arg;
            continue;
        }
        h->s.args[i] = NULL;
        struct ir_var *v = hoist_rename(&h->s.k, f->params[i]);
        ir_push_kid(into, let_of(v, arg));
    }
}

/* A copied result r whose float sum or product over a range is evaluated
 * first (copyable_result): the fold written as `var s = 0.0 (1.0); for k in
 * lo..hi: s = s op E` (a left fold from the same start: the same bits; k
 * the copy's fresh variable) into `into`, with the call's frames, and r
 * reading s. */
static struct ir_node *folded_result(struct ir_node *r, struct ir_node *into)
{
    struct ir_node *fold = NULL;
    if (copyable(r) || !ir_around_fold(r, &fold, false) || !fold) return r;
    struct ir_node *read = ir_fold_as_loop(P, into, fold);
    if (fold == r) return read;
    *fold = *read;
    return r;
}

/* Writes the call at *slot (in a statement of current) as statements,
 * appended to out: its arguments bound in order, its body with fresh
 * variables, its result in a fresh let that *slot then reads. */
static void hoist_call(struct ir_node **slot, struct ir_node *into)
{
    struct ir_node *c = *slot;
    struct ir_fn *f = c->fn;
    struct hoist h = {{{hoist_read, hoist_rename, subst_site}, f, NULL, c, current->has_site, site_of(f, c->loc)},
                      NULL, NULL, 0};
    bind_args(&h, into, -1);
    struct ir_node *e = result_expr(f);
    struct ir_node *r;
    if (e) {
        r = ir_copy(&h.s.k, e);
    } else {
        struct ir_node *b = f->body;
        for (int i = 0; i + 1 < b->nkids; i++) {
            struct ir_node *s = ir_copy(&h.s.k, b->kids[i]);
            each_by_index(s);
            ir_push_kid(into, s);
        }
        r = ir_copy(&h.s.k, b->kids[b->nkids - 1]->a);
    }
    if (r->op == IR_LISTCOMP) ir_recapture(r); /* its captures: the caller's variables and fresh ones */
    else r = folded_result(r, into);
    struct ir_var tv = {0, IRV_LOCAL, "", f->ret, c->loc};
    struct ir_var *t = fresh_var(&tv);
    ir_push_kid(into, let_of(t, r));
    struct ir_node *read = ir_new(IR_VAR, c->loc, f->ret);
    read->var = t;
    *slot = read;
    free(h.vars);
    free(h.fresh);
    hoisted++;
    inlined++;
}

/* ---- a step: `xs = f(xs, ...)` of a function that stores into the array it returns ---- */

/* The parameter k of f's body `S0...; var ys = pk; S...; return ys` (ys an
 * array; S0 simple statements; S simple statements or stores into f's
 * locals, ys[i] = q, q.x = e, none reading pk; f never assigns pk), or -1;
 * *at: the let's index. Called as `xs = f(..., xs, ...)` with no other
 * argument reading xs, it is written in place with xs for ys (step_call). */
static int step_param(struct ir_fn *f, int *at)
{
    struct ir_node *b = f->body;
    if (f == current || f->ret->kind != T_ARRAY || fn_recursive(f)) return -1;
    if (!b || b->op != IR_BLOCK || b->nkids < 3 || ir_size(b) > MAX_BODY) return -1;
    int m = 0, k = -1;
    while (m + 1 < b->nkids && simple_stmt(b->kids[m])) m++; /* a let of an array is not simple */
    struct ir_node *let = b->kids[m], *last = b->kids[b->nkids - 1];
    if (m + 1 >= b->nkids || let->op != IR_LET || let->var->type != f->ret || !let->a || let->a->op != IR_VAR) return -1;
    if (last->op != IR_RETURN || !last->a || last->a->op != IR_VAR || last->a->var != let->var) return -1;
    for (int i = 0; i < f->nparams; i++)
        if (f->params[i] == let->a->var) k = i;
    if (k < 0 || assigns(b, f->params[k])) return -1;
    bool ok = true;
    step_fn = f;
    for (int i = m + 1; ok && i + 1 < b->nkids; i++)
        ok = simple_stmt(b->kids[i]) && !ir_stmt_reads(b->kids[i], f->params[k]);
    step_fn = NULL;
    *at = m;
    return ok ? k : -1;
}

/* Step statement `xs = f(args)` or `w = f(args)` (step_stmt: k, args[k]
 * the variable xs) written in place, appended to into: the arguments bound
 * as hoist_call binds them, then f's statements but the let of its array
 * ys (index at) and the return, with xs for ys and fresh variables for its
 * others; then `w = xs` (a let or an assignment, as s), or for xs nothing
 * (xs = xs). The same program: f's stores made ys unique first (a copy
 * where xs's array was shared) and changed only ys's array, which then
 * became the result; here they make xs unique first and change only its
 * array, which no one reads as xs again (s assigns it, or the statement
 * after does). Nothing after the let reads pk (the array before the
 * stores), nor any other name of xs's array (no other argument reads xs; a
 * body reads its own parameters and locals alone); a panic in between
 * ends the program, so no one sees xs half done. The copies carry the
 * call's frames as hoist_call's do. */
static void step_call(struct ir_node *s, int k, int at, struct ir_node *into)
{
    struct ir_node *c = s->a;
    struct ir_fn *f = c->fn;
    struct ir_node *b = f->body;
    struct hoist h = {{{hoist_read, hoist_rename, subst_site}, f, NULL, c, current->has_site, site_of(f, c->loc)},
                      NULL, NULL, 0};
    h.vars = xmalloc(sizeof *h.vars);
    h.fresh = xmalloc(sizeof *h.fresh);
    h.vars[0] = b->kids[at]->var;
    h.fresh[0] = c->kids[k]->var;
    h.nvars = 1;
    bind_args(&h, into, k);
    for (int i = 0; i + 1 < b->nkids; i++) {
        if (i == at) continue;
        struct ir_node *st = ir_copy(&h.s.k, b->kids[i]);
        each_by_index(st);
        ir_push_kid(into, st);
    }
    if (s->var != c->kids[k]->var) ir_push_kid(into, ir_mk_stmt(s->op, s->var, ir_mk_var(c->kids[k]->var, s->loc), s->loc));
    free(h.vars);
    free(h.fresh);
    hoisted++;
    inlined++;
}

/* Whether s is `xs = f(args)` or `w = f(args)` (an assignment or a let)
 * of a step f (step_param, *at its let) called with variable xs as its
 * parameter k, no other argument reading xs, and for w (another variable)
 * the statement after s, next, assigning xs a value that does not read it:
 * xs's array is then not read again, so the stores may change it, and w
 * takes it (step_call). k, or -1. */
static int step_stmt(struct ir_node *s, struct ir_node *next, int *at)
{
    if ((s->op != IR_ASSIGN && s->op != IR_LET) || !s->a || s->a->op != IR_CALL) return -1;
    struct ir_node *c = s->a;
    int k = step_param(c->fn, at);
    if (k < 0 || c->kids[k]->op != IR_VAR) return -1;
    struct ir_var *xs = c->kids[k]->var;
    if (xs != s->var && !(next && next->op == IR_ASSIGN && next->var == xs && !ir_reads(next->a, xs))) return -1;
    for (int i = 0; i < c->nkids; i++)
        if (i != k && ir_reads(c->kids[i], xs)) return -1;
    return k;
}

#define MAX_HOISTS 400 /* calls written as statements in one function, at most */

/* The first slot of statement s whose call can be written before s. */
static struct ir_node **stmt_leading(struct ir_node *s)
{
    struct ir_node **r = NULL;
    switch (s->sop) {
    /* a store evaluates its value first, then the indices (SPEC 2) */
    case IR_LET: case IR_ASSIGN: case IR_EXPR: case IR_RETURN: case IR_IF: case IR_STORE: return leading(&s->a);
    case IR_PUSH: /* xs.push(v): v is all it evaluates (a push into a row, xs[i].push(v), is left) */
        return s->nkids ? NULL : leading(&s->a);
    case IR_FOR_RANGE:
        if (!(r = leading(&s->iter.lo)) && inert(s->iter.lo)) r = leading(&s->iter.hi);
        return r;
    case IR_BLOCK: case IR_UNIQUE: case IR_WHILE: case IR_FOR_ARRAY: case IR_BREAK:
    case IR_CONTINUE: case IR_UNREACHABLE:
        return NULL;
    }
    return NULL;
}

/* Statement s of a block, with the statements its leading calls became
 * before it, appended to out; depth: how many calls deep s was written. */
static struct ir_node *following; /* the statement after the one hoist_block hands hoist_stmt */

static void hoist_stmt(struct ir_node *s, struct ir_node *out, int depth)
{
    struct ir_node *next = following;
    following = NULL;
    if (!s || ir_is_expr(s)) return;
    struct ir_node **slot;
    int k, at;
    if (loops && depth < MAX_ROUNDS && hoisted < MAX_HOISTS && (k = step_stmt(s, next, &at)) >= 0) {
        struct ir_node *tmp = ir_new(IR_BLOCK, s->loc, ty_void);
        step_call(s, k, at, tmp);
        for (int i = 0; i < tmp->nkids; i++) hoist_stmt(tmp->kids[i], out, depth + 1);
        return;
    }
    while (depth < MAX_ROUNDS && hoisted < MAX_HOISTS && (slot = stmt_leading(s))) {
        struct ir_node *tmp = ir_new(IR_BLOCK, s->loc, ty_void);
        hoist_call(slot, tmp);
        struct ir_node *last = tmp->kids[tmp->nkids - 1];
        if (slot == &s->a && (s->op == IR_LET || s->op == IR_ASSIGN) && last->op == IR_LET && last->a->op == IR_LISTCOMP) {
            /* `v = f(...)` of a comprehension: `v = [E for ...]` itself, evaluated where
             * the let of the result was, right before s (the later passes see the map) */
            s->a = last->a;
            tmp->nkids--;
        }
        for (int i = 0; i < tmp->nkids; i++) hoist_stmt(tmp->kids[i], out, depth + 1);
    }
    bool loop = s->op == IR_WHILE || s->op == IR_FOR_RANGE || s->op == IR_FOR_ARRAY;
    if (s->op == IR_IF || loop) {
        loops += loop;
        hoist_block(s->b, 0);
        hoist_block(s->c, 0);
        loops -= loop;
    }
    ir_push_kid(out, s);
}

static void hoist_block(struct ir_node *b, int depth)
{
    if (!b || b->op != IR_BLOCK) return;
    struct ir_node *out = ir_new(IR_BLOCK, b->loc, ty_void);
    for (int i = 0; i < b->nkids; i++) {
        struct ir_node *s = b->kids[i];
        if (s->op == IR_BLOCK) {
            hoist_block(s, depth);
            ir_push_kid(out, s);
        } else {
            following = i + 1 < b->nkids ? b->kids[i + 1] : NULL;
            hoist_stmt(s, out, depth);
        }
    }
    b->kids = out->kids;
    b->nkids = out->nkids;
}

/* A comprehension opt_comploop.c writes as a loop (after this pass): the
 * calls of functions holding a loop that its body's statements evaluate
 * first, written in place here as in any loop, so that the nest they make
 * is one interchange jams (dist(x[i], x[j]) in [[...] for j] for i]). */
int ir_inline_loop_calls(struct ir_program *ir, struct ir_fn *f, struct ir_node *b)
{
    P = ir;
    current = f;
    is_recursive = xmalloc((size_t)ir->fns.len + 1);
    memset(is_recursive, 0, (size_t)ir->fns.len + 1);
    inlined = hoisted = 0;
    loops = 1;
    only_loops = true;
    hoist_block(b, 0);
    only_loops = false;
    loops = 0;
    free(is_recursive);
    is_recursive = NULL;
    current = NULL;
    P = NULL;
    return inlined;
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
            hoisted = 0;
            hoist_block(current->body, 0);
            current->body = inline_expr(current->body);
        }
        if (!inlined) break;
    }
    free(is_recursive);
    current = NULL;
    P = NULL;
}
