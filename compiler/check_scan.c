/*
 * check_scan.c: the checker's part of SPEC 15: reduce(f, start, gen) and
 * scan(f, start, gen), `scan REDUCER(...)`, and a generator's
 * `by KEY in 0..N`.
 *
 * Each becomes an N_REDUCE (as sum(...) does): user (f and start),
 * scan (an array of the running values), and the generator keeps its key
 * and N. The types: reduce gives T, scan [T], by [T] ([Option[T]] for
 * min/max). The order of evaluation the lowering keeps: f, start, the
 * sources, N, then per element the filter, the key, the value.
 */
#include "check.h"

#include <string.h>

/* The key of `by`, inside the generator's scope (it reads the loop
 * variables): an int. */
void check_by_key(struct gen *g)
{
    struct type *kt = check_value(g->key, ty_int);
    if (kt != ty_int)
        error_at(g->key->loc, "the key of 'by' must be an int (0 <= key < N), found %s; convert it with int(...)",
                 tn(kt));
}

/* N of `by KEY in 0..N`, outside the generator's scope (evaluated once,
 * before the elements). */
void check_by_count(struct gen *g)
{
    struct type *nt = check_value(g->nkeys, ty_int);
    if (nt != ty_int)
        error_at(g->nkeys->loc, "the key count N of 'by KEY in 0..N' must be an int, found %s", tn(nt));
}

/* The element type of a keyed reduction's result array. */
struct type *keyed_result(struct node *n, enum reducer r, bool user, struct type *et, struct type *hint)
{
    struct gen *g = n->u.reduce.gen;
    bool opt = !user && (r == RED_MIN || r == RED_MAX);
    struct type *rt = user ? et : (r == RED_ANY || r == RED_ALL) ? ty_bool : et;
    if (opt) {
        if (hint && hint->kind == T_ARRAY && hint->elem == et)
            error_at(g->by_loc, "'%s ... by' gives [Option[%s]], one entry per key, None for a key without elements; "
                                "it is used here as %s: annotate [Option[%s]] and take .unwrap_or(d) of an entry",
                     reducer_name[r], tn(et), tn(hint), tn(et));
        rt = type_option(et);
    }
    return type_array(rt);
}

/* reduce(f, start, gen) / scan(f, start, gen): f: fn(T, T) -> T, start: T,
 * elements of T. */
struct type *check_user_reduce(struct node *n, bool scan, struct type *hint)
{
    const char *name = scan ? "scan" : "reduce";
    struct nodes args = n->u.call.args;
    struct gen *g = n->u.call.gen;
    bool par = n->u.call.par;
    if ((g && args.len != 2) || (!g && args.len != 3))
        error_at(n->loc, "'%s' takes a function, a start value and a generator or an array: %s(f, start, x for x in "
                         "xs); found %d argument%s",
                 name, name, args.len + (g != NULL), args.len + (g != NULL) == 1 ? "" : "s");
    struct node *arr = g ? NULL : args.items[2];
    struct node *f = args.items[0], *start = args.items[1];
    struct type *t = NULL, *ft = NULL;
    bool keyed = g && g->key;
    struct type *ehint = hint && !scan && !keyed ? hint : hint && hint->kind == T_ARRAY ? hint->elem : NULL;
    if (f->kind != N_LAMBDA) {
        ft = check_value(f, NULL);
        if (ft->kind != T_FN || ft->nfields != 2 || ft->fields[0] != ft->fields[1] || ft->elem != ft->fields[0])
            error_at(f->loc, "the first argument of '%s' combines two values into one: a function fn(T, T) -> T; found %s",
                     name, tn(ft));
        t = ft->fields[0];
        struct type *st = check_value(start, t);
        if (st != t)
            error_at(start->loc, "the start value of '%s' is %s, but its function combines %s values; they must be "
                                 "the same type",
                     name, tn(st), tn(t));
    } else {
        t = check_value(start, ehint);
    }
    struct type *et;
    if (g) {
        et = check_gen_of(g, t, n, par);
    } else {
        struct type *at = check_value(arr, type_array(t));
        if (at->kind != T_ARRAY)
            error_at(arr->loc, "expected an array or a generator for '%s', found %s", name, tn(at));
        et = at->elem;
    }
    if (et != t)
        error_at(g ? g->elem->loc : arr->loc, "the elements of '%s' are %s, but its start value and function are %s", name, tn(et),
                 tn(t));
    if (!ft) {
        struct type *ps[2] = {t, t};
        check_lambda(f, type_fn(ps, 2, t));
        f->type = type_fn(ps, 2, t);
    }
    /* par reduce and par scan of str, arrays and what holds them run in the
     * tree's order on the calling thread (emit_keyref.c) */
    if (scan && keyed)
        error_at(g->by_loc, "'by' is not part of a scan: a scan gives one entry per element; a keyed reduction is "
                            "reduce(f, start, x for x in xs by k in 0..n)");
    n->kind = N_REDUCE;
    memset(&n->u, 0, sizeof n->u);
    n->u.reduce.par = par;
    n->u.reduce.user = true;
    n->u.reduce.scan = scan;
    n->u.reduce.fnv = f;
    n->u.reduce.start = start;
    n->u.reduce.gen = g;
    n->u.reduce.array = arr;
    n->u.reduce.elem_type = t;
    if (scan) return type_array(t);
    if (keyed) return keyed_result(n, RED_SUM, true, t, hint);
    return t;
}
