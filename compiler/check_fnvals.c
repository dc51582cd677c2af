/*
 * check_fnvals.c: the checker's function values (check.h): a top-level
 * function's name used as a value, `lambda` (its parameter and result
 * types come from the expected fn type), and calls through a value: a
 * local, a parameter, an element, a struct field (s.f(x)) or any
 * expression of a fn type.
 *
 * A lambda's body is checked in its own scope, its parameters immutable
 * locals; it reads the enclosing function's names freely (lowering
 * captures them by value) but may not change them, like a generator's
 * element.
 */
#include "check.h"

#include <stdlib.h>
#include <string.h>

int lambda_depth;

struct type *fn_type_of(struct sym *f)
{
    struct node *d = f->decl;
    return type_fn(d->u.fn.param_types, d->u.fn.nparams, d->u.fn.ret ? d->u.fn.ret : ty_void);
}

/* f used as a value (not called): its fn type. The reference counts as a
 * call for the order of constants (whoever holds f may call it). */
struct type *check_fn_value(struct node *n, struct sym *f)
{
    if (C.fn_sym) {
        vec_push(&C.fn_sym->calls, f);
    } else if (C.cnst) {
        struct node *call = node_new(N_CALL, n->loc);
        call->u.call.fn = f;
        vec_push(&C.cnst->calls, call);
    }
    n->u.name.sym = f;
    return fn_type_of(f);
}

/* "fn(float) -> float" written with k parameters of type float, for the
 * fix shown when a lambda has no expected type. */
static const char *example_type(int k)
{
    struct buf b = {0};
    bputs(&b, "fn(");
    for (int i = 0; i < k; i++)
        bprintf(&b, "%sfloat", i ? ", " : "");
    bputs(&b, ") -> float");
    const char *s = arena_strndup(b.p, b.len);
    free(b.p);
    return s;
}

struct type *check_lambda(struct node *n, struct type *hint)
{
    int k = n->u.lambda.n;
    if (!hint)
        error_at(n->loc, "cannot infer the types of this lambda's parameters and result; a lambda takes them from "
                         "the type expected where it stands: annotate it, e.g. let f: %s = %s",
                 example_type(k), loc_text(n->loc));
    if (hint->kind != T_FN)
        error_at(n->loc, "mismatched types: expected %s, found a lambda", tn(hint));
    if (hint->nfields != k)
        error_at(n->loc, "this lambda takes %d parameter%s, but the expected type %s takes %d", k, k == 1 ? "" : "s",
                 tn(hint), hint->nfields);
    n->u.lambda.syms = arena_alloc(sizeof(struct sym *) * (size_t)(k + 1));
    check_scope_push();
    for (int i = 0; i < k; i++) {
        for (int j = 0; j < i; j++)
            if (strcmp(n->u.lambda.names[i], n->u.lambda.names[j]) == 0)
                error_at(n->u.lambda.locs[i], "'%s' appears twice in the lambda's parameters", n->u.lambda.names[i]);
        n->u.lambda.syms[i] = bind_local(n->u.lambda.names[i], n->u.lambda.locs[i], hint->fields[i], n);
    }
    lambda_depth++;
    struct node *body = n->u.lambda.body;
    if (hint->elem == ty_void) {
        check_expr(body, NULL);
    } else {
        check_value(body, hint->elem);
        expect_type(body, hint->elem, "for the result of the lambda (its type is %s)", tn(hint));
    }
    lambda_depth--;
    check_scope_pop();
    return hint;
}

/* callee(args) where the callee's value has type ft (a fn type). */
struct type *check_value_call(struct node *n, struct type *ft, const char *shown)
{
    if (ft->kind != T_FN)
        error_at(n->u.call.callee->loc, "%s is %s, not a function, and cannot be called", shown, tn(ft));
    if (n->u.call.par)
        error_at(n->loc, "'par' applies only to reductions (sum, product, min, max, any, all) and "
                         "comprehensions, not to a call of %s", shown);
    if (n->u.call.gen)
        error_at(gen_loc(n->u.call.gen), "a generator can only be the argument of a reducer (sum, product, min, "
                                         "max, any, all), not of %s", shown);
    int np = ft->nfields;
    if (n->u.call.args.len != np)
        error_at(n->loc, "%s (of type %s) takes %d argument%s, found %d", shown, tn(ft), np, np == 1 ? "" : "s",
                 n->u.call.args.len);
    for (int i = 0; i < np; i++) {
        struct node *a = n->u.call.args.items[i];
        check_value(a, ft->fields[i]);
        expect_type(a, ft->fields[i], "for argument %d of %s", i + 1, shown);
    }
    n->u.call.fn = NULL;
    n->u.call.builtin = BI_NONE;
    return ft->elem;
}

/* Whether a value of t holds a function value (then it cannot be printed
 * or compared). A struct may hold an array of itself: past a few levels
 * the answer is no (its fields were looked at on the way down). */
static bool has_fn_at(struct type *t, int depth)
{
    while (t->kind == T_ARRAY)
        t = t->elem;
    if (t->kind == T_FN)
        return true;
    if ((t->kind != T_TUPLE && t->kind != T_OPTION) || depth > 16)
        return false;
    for (int i = 0; i < t->nfields; i++)
        if (has_fn_at(t->fields[i], depth + 1))
            return true;
    return false;
}

bool type_has_fn(struct type *t)
{
    return has_fn_at(t, 0);
}

void no_fn_printed(struct node *n)
{
    if (type_has_fn(n->type))
        error_at(n->loc, "cannot turn %s into text: %s", tn(n->type),
                 n->type->kind == T_FN ? "a function value has no text form; print what it returns, e.g. f(x)"
                                       : "it holds a function value, which has no text form");
}

void no_fn_compared(struct node *n, struct type *t, const char *op)
{
    if (type_has_fn(t))
        error_at(n->loc, "cannot compare values of type %s with '%s': %s", tn(t), op,
                 t->kind == T_FN ? "functions have no equality or order; compare what they return instead"
                                 : "they hold a function value, which has no equality or order");
}
