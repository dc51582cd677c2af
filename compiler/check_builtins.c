/*
 * check_builtins.c: the checker's builtins, os and world functions and
 * methods (check.h): each call's arity, argument types and result type, the
 * library's panics and the methods that change their array, resolved from
 * the BUILTINS table (brine.h).
 */
#include "check.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* The builtin of that kind and spelling (os functions are spelled "os.NAME"). */
enum builtin find_builtin(const char *name, enum builtin_kind kind)
{
    for (int b = BI_NONE + 1; b <= BI_LAST; b++)
        if (builtins[b].kind == kind && strcmp(builtin_name[b], name) == 0)
            return (enum builtin)b;
    return BI_NONE;
}

bool find_reducer(const char *name, enum reducer *r)
{
    for (int i = RED_SUM; i <= RED_ALL; i++)
        if (strcmp(reducer_name[i], name) == 0) {
            *r = (enum reducer)i;
            return true;
        }
    return false;
}

/* A call of a user function (possibly through a module: random.uniform). */
struct type *check_user_call(struct node *n, struct sym *f, const char *shown)
{
    struct node *decl = f->decl;
    int np = decl->u.fn.nparams;
    if (n->u.call.args.len != np)
        error_at(n->loc, "'%s' takes %d argument%s, found %d", shown, np, np == 1 ? "" : "s",
                 n->u.call.args.len);
    for (int i = 0; i < np; i++) {
        struct node *arg = n->u.call.args.items[i];
        struct type *pt = decl->u.fn.param_types[i];
        check_value(arg, pt);
        expect_type(arg, pt, "for parameter '%s' of '%s'", decl->u.fn.param_names[i], shown);
    }
    n->u.call.fn = f;
    if (C.par_depth > 0)
        vec_push(&C.par_calls, n);
    if (C.fn_sym)
        vec_push(&C.fn_sym->calls, f);
    else if (C.cnst)
        vec_push(&C.cnst->calls, n);
    return f->type;
}

static void arity(struct node *n, const char *name, int want)
{
    int got = n->u.call.args.len;
    if (got != want)
        error_at(n->loc, "'%s' takes %d argument%s, found %d", name, want, want == 1 ? "" : "s", got);
}

struct node *arg(struct node *n, int i)
{
    return n->u.call.args.items[i];
}

/* The source text under a location, over several lines too (assert's
 * default message). */
static const char *src_text(struct loc loc)
{
    const struct source *src = source_get(loc.file);
    if (loc.line < 1 || loc.end_line > src->nlines || loc.end_line < loc.line)
        return "?";
    size_t a = (size_t)src->line_starts[loc.line - 1] + (size_t)loc.col - 1;
    size_t b = (size_t)src->line_starts[loc.end_line - 1] + (size_t)loc.end_col - 1;
    if (b <= a)
        return "?";
    /* a line break and the indentation around it read as one space */
    char *t = arena_strndup(src->text + a, b - a), *o = t;
    for (const char *p = t; *p; p++) {
        if (*p == '\n' || *p == '\r') {
            while (o > t && (o[-1] == ' ' || o[-1] == '\t'))
                o--;
            while (p[1] == ' ' || p[1] == '\t' || p[1] == '\n' || p[1] == '\r')
                p++;
            *o++ = ' ';
            continue;
        }
        *o++ = *p;
    }
    *o = 0;
    return t;
}

/* Whether sort() and sorted() order this element type: by <, and bool
 * (false first). Arrays have no < of their own. */
static void expect_sortable(struct node *n, struct loc where, struct type *at, const char *what)
{
    struct type *e = at->elem;
    if (e->kind == T_TUPLE && !type_is_ordered(e))
        error_at(where, "cannot %s %s: its elements have no order%s; tuples and structs sort when every field is a "
                        "number, str, or a tuple or struct of them",
                 what, tn(at), why_unordered(e));
    if (!type_is_numeric(e) && e != ty_str && e != ty_bool && e->kind != T_TUPLE)
        error_at(where, "cannot %s %s: its elements have no order ('<' works on numbers and str)", what, tn(at));
}

/* print(...) and eprint(...): any values that have a text form. */
static struct type *check_printed(struct node *n)
{
    int nvals = n->u.call.print_vals ? n->u.call.print_vals - 1 : n->u.call.args.len;
    for (int i = 0; i < nvals; i++) {
        check_value(arg(n, i), NULL);
        no_fn_printed(arg(n, i));
    }
    return ty_void;
}

/* SPEC section 14's functions: eprint, read_stdin, sorted, reversed, the
 * files of os, and the parser's forms assert and x[a:b]. */
static struct type *check_io_builtin(struct node *n, enum builtin bi)
{
    const char *name = builtin_name[bi];
    switch (bi) {
    case BI_EPRINT:
        return check_printed(n);
    case BI_READ_STDIN:
        arity(n, name, 0);
        return ty_str;
    case BI_SORTED: case BI_REVERSED: {
        arity(n, name, 1);
        struct type *t = check_value(arg(n, 0), NULL);
        if (t->kind != T_ARRAY)
            error_at(arg(n, 0)->loc, "'%s' takes an array, found %s", name, tn(t));
        if (bi == BI_SORTED)
            expect_sortable(n, arg(n, 0)->loc, t, "sort");
        return t;
    }
    case BI_OS_READ_FILE:
        arity(n, name, 1);
        check_value(arg(n, 0), ty_str);
        expect_type(arg(n, 0), ty_str, "for the path of '%s'", name);
        return ty_str;
    case BI_OS_WRITE_FILE: case BI_OS_APPEND_FILE:
        arity(n, name, 2);
        check_value(arg(n, 0), ty_str);
        expect_type(arg(n, 0), ty_str, "for the path of '%s'", name);
        check_value(arg(n, 1), ty_str);
        expect_type(arg(n, 1), ty_str, "for the text of '%s'", name);
        return ty_void;
    case BI_ASSERT: {
        struct node *c = arg(n, 0);
        check_value(c, ty_bool);
        expect_bool(c, "the 'assert' condition");
        if (n->u.call.args.len == 1) {
            struct node *m = node_new(N_STR, c->loc);
            m->u.slit.s = arena_printf("assertion failed: %s", src_text(c->loc));
            m->u.slit.len = strlen(m->u.slit.s);
            nodes_push(&n->u.call.args, m);
        }
        check_value(arg(n, 1), ty_str);
        expect_type(arg(n, 1), ty_str, "for the message of 'assert'");
        return ty_void;
    }
    case BI_SLICE: {
        struct type *t = check_value(arg(n, 0), NULL);
        if (t != ty_str && t->kind != T_ARRAY)
            error_at(arg(n, 0)->loc, "cannot slice %s; only str and arrays can be sliced", tn(t));
        for (int i = 1; i < n->u.call.args.len; i++) {
            check_value(arg(n, i), ty_int);
            expect_type(arg(n, i), ty_int, "for the %s of the slice", i == 1 ? "start" : "end");
        }
        return t;
    }
    default:
        break;
    }
    internal_error("check_io_builtin of '%s'", name);
}

/* SPEC section 14's methods of str and arrays. */
static struct type *check_lib_method(struct node *n, struct node *recv, struct type *rt, enum builtin m)
{
    const char *mname = builtin_name[m];
    struct loc name_loc = n->u.call.callee->u.field.name_loc;
    bool on_str = m <= M_JOIN || (m >= M_FIND && m <= M_TO_FLOAT);
    if (on_str && rt != ty_str)
        error_at(name_loc, "%s has no method '%s'; only str does", tn(rt), mname);
    if (!on_str && rt->kind != T_ARRAY)
        error_at(name_loc, "%s has no method '%s'; only arrays do", tn(rt), mname);
    if (builtin_mutates(m)) {
        check_mutable_root(recv, "changed");
        if (gen_depth > 0)
            error_at(name_loc, "'%s' changes its array, and the element of a comprehension or reduction cannot "
                               "change variables", mname);
        if (lambda_depth > 0)
            error_at(name_loc, "'%s' changes its array, and a lambda's body cannot change variables (it sees "
                               "copies of them)", mname);
    }
    switch (m) {
    case M_SPLIT:
        if (n->u.call.args.len > 1)
            error_at(n->loc, "'split' takes 0 or 1 arguments, found %d", n->u.call.args.len);
        if (n->u.call.args.len == 1) {
            check_value(arg(n, 0), ty_str);
            expect_type(arg(n, 0), ty_str, "for the separator of 'split'");
        }
        return type_array(ty_str);
    case M_STRIP: case M_UPPER: case M_LOWER:
        arity(n, mname, 0);
        return ty_str;
    case M_LINES:
        arity(n, mname, 0);
        return type_array(ty_str);
    case M_STARTSWITH: case M_ENDSWITH:
        arity(n, mname, 1);
        check_value(arg(n, 0), ty_str);
        expect_type(arg(n, 0), ty_str, "for the argument of '%s'", mname);
        return ty_bool;
    case M_REPLACE:
        arity(n, mname, 2);
        for (int i = 0; i < 2; i++) {
            check_value(arg(n, i), ty_str);
            expect_type(arg(n, i), ty_str, "for the %s argument of 'replace'", i ? "second" : "first");
        }
        return ty_str;
    case M_JOIN:
        arity(n, mname, 1);
        check_value(arg(n, 0), type_array(ty_str));
        expect_type(arg(n, 0), type_array(ty_str), "for the argument of 'join'");
        return ty_str;
    case M_CONTAINS:
        arity(n, mname, 1);
        no_fn_compared(n, rt->elem, "contains");
        check_value(arg(n, 0), rt->elem);
        expect_type(arg(n, 0), rt->elem, "for the argument of 'contains' on %s", tn(rt));
        return ty_bool;
    case M_POP:
        arity(n, mname, 0);
        return rt->elem;
    case M_INSERT:
        arity(n, mname, 2);
        check_value(arg(n, 0), ty_int);
        expect_type(arg(n, 0), ty_int, "for the index of 'insert'");
        check_value(arg(n, 1), rt->elem);
        expect_type(arg(n, 1), rt->elem, "for the value of 'insert' on %s", tn(rt));
        return ty_void;
    case M_REMOVE:
        arity(n, mname, 1);
        check_value(arg(n, 0), ty_int);
        expect_type(arg(n, 0), ty_int, "for the index of 'remove'");
        return rt->elem;
    case M_EXTEND:
        arity(n, mname, 1);
        check_value(arg(n, 0), rt);
        expect_type(arg(n, 0), rt, "for the argument of 'extend' on %s", tn(rt));
        return ty_void;
    case M_REVERSE:
        arity(n, mname, 0);
        return ty_void;
    case M_SORT:
        arity(n, mname, 0);
        expect_sortable(n, name_loc, rt, "sort");
        return ty_void;
    case M_FIND:
        arity(n, mname, 1);
        check_value(arg(n, 0), ty_str);
        expect_type(arg(n, 0), ty_str, "for the argument of 'find'");
        return type_option(ty_int);
    case M_TO_INT:
        arity(n, mname, 0);
        return type_option(ty_int);
    case M_TO_FLOAT:
        arity(n, mname, 0);
        return type_option(ty_float);
    case M_INDEX:
        arity(n, mname, 1);
        check_value(arg(n, 0), rt->elem);
        expect_type(arg(n, 0), rt->elem, "for the argument of 'index' on %s", tn(rt));
        return type_option(ty_int);
    default:
        break;
    }
    internal_error("check_lib_method of '%s'", mname);
}

/* Builtin functions and os.*: SPEC sections 3 and 11. */
struct type *check_builtin(struct node *n, enum builtin bi, struct type *hint)
{
    const char *name = builtin_name[bi];
    n->u.call.builtin = bi;
    if (builtins[bi].sig == SIG_FLOATS) {
        /* the math functions: floats in, a float out */
        int k = builtins[bi].arity;
        arity(n, name, k);
        for (int i = 0; i < k; i++) {
            check_value(arg(n, i), ty_float);
            if (k == 1)
                expect_type(arg(n, i), ty_float, "for the argument of '%s'", name);
            else
                expect_type(arg(n, i), ty_float, "for the %s argument of '%s'", i ? "second" : "first", name);
        }
        return ty_float;
    }
    switch (bi) {
    case BI_PRINT:
        return check_printed(n);
    case BI_LEN: {
        arity(n, name, 1);
        struct type *t = check_value(arg(n, 0), NULL);
        if (t != ty_str && t->kind != T_ARRAY)
            error_at(arg(n, 0)->loc, "'len' takes a str or an array, found %s", tn(t));
        return ty_int;
    }
    case BI_STR:
        arity(n, name, 1);
        check_value(arg(n, 0), NULL);
        no_fn_printed(arg(n, 0));
        return ty_str;
    case BI_INT: case BI_I128: case BI_U64: {
        arity(n, name, 1);
        struct type *to = bi == BI_INT ? ty_int : bi == BI_I128 ? ty_i128 : ty_u64;
        /* A literal argument takes the target type: u64(18446744073709551615). */
        struct type *t = check_value(arg(n, 0), to);
        bool ok = type_is_integer(t) || t == ty_float || (bi == BI_INT && t == ty_str);
        if (!ok)
            error_at(arg(n, 0)->loc, "'%s' takes %s, found %s", name,
                     bi == BI_INT ? "an integer, a float or a str" : "an integer or a float", tn(t));
        return to;
    }
    case BI_FLOAT: {
        arity(n, name, 1);
        struct type *t = check_value(arg(n, 0), NULL);
        if (!type_is_numeric(t) && t != ty_str)
            error_at(arg(n, 0)->loc, "'float' takes a number or a str, found %s", tn(t));
        return ty_float;
    }
    case BI_ABS: {
        arity(n, name, 1);
        struct type *t = check_value(arg(n, 0), hint);
        if (!type_is_numeric(t))
            error_at(arg(n, 0)->loc, "'abs' takes a number, found %s", tn(t));
        return t;
    }
    case BI_MIN2: case BI_MAX2: {
        arity(n, name, 2);
        struct node *a = arg(n, 0), *b = arg(n, 1);
        struct type *ta, *tb;
        check_pair(a, b, hint, &ta, &tb);
        if (ta != tb)
            error_at(n->loc, "mismatched types: '%s' of %s and %s", name, tn(ta), tn(tb));
        if (!type_is_ordered(ta))
            error_at(n->loc, "'%s' takes two numbers, two str, or two tuples or structs whose fields are ordered; "
                             "found %s%s",
                     name, tn(ta), why_unordered(ta));
        return ta;
    }
    case BI_OS_ARGS:
        arity(n, name, 0);
        return type_array(ty_str);
    case BI_OS_THREAD_COUNT:
        arity(n, name, 0);
        return ty_int;
    case BI_OS_CLOCK:
        arity(n, name, 0);
        return ty_float;
    case BI_OS_EXIT:
        arity(n, name, 1);
        check_value(arg(n, 0), ty_int);
        expect_type(arg(n, 0), ty_int, "for the exit code of 'os.exit'");
        return ty_void;
    case BI_OS_GETENV:
        arity(n, name, 1);
        check_value(arg(n, 0), ty_str);
        expect_type(arg(n, 0), ty_str, "for the variable name of 'os.getenv'");
        return ty_str;
    case BI_EPRINT: case BI_READ_STDIN: case BI_SORTED: case BI_REVERSED: case BI_OS_READ_FILE:
    case BI_OS_WRITE_FILE: case BI_OS_APPEND_FILE: case BI_ASSERT: case BI_SLICE:
        return check_io_builtin(n, bi);
    case BI_WORLD_RANK: case BI_WORLD_SIZE:
        arity(n, name, 0);
        return ty_int;
    case BI_WORLD_BARRIER:
        arity(n, name, 0);
        return ty_void;
    case BI_WORLD_SUM: case BI_WORLD_PRODUCT: case BI_WORLD_MIN: case BI_WORLD_MAX: case BI_WORLD_ANY:
    case BI_WORLD_ALL: {
        arity(n, name, 1);
        bool logic = bi == BI_WORLD_ANY || bi == BI_WORLD_ALL;
        struct node *a = arg(n, 0);
        struct type *t = check_value(a, logic ? ty_bool : hint);
        if (t->kind == T_ARRAY) {
            const char *xs = a->kind == N_NAME ? a->u.name.name : "xs";
            error_at(a->loc, "'%s' of an array needs a generator, so that each rank evaluates only its share: "
                             "%s(x for x in %s)", name, name, xs);
        }
        if (logic)
            expect_type(a, ty_bool, "for the argument of '%s'", name);
        else if (!type_is_numeric(t))
            error_at(a->loc, "'%s' takes a number (int, i128, u64 or float), found %s", name, tn(t));
        return t;
    }
    case BI_WORLD_BROADCAST: {
        arity(n, name, 2);
        struct type *t = check_value(arg(n, 0), hint);
        if (t == ty_void)
            error_at(arg(n, 0)->loc, "'%s' needs a value, found nothing", name);
        if (type_has_fn(t))
            error_at(arg(n, 0)->loc, "'%s' cannot send %s to other processes: a function value lives in one "
                                     "process", name, tn(t));
        check_value(arg(n, 1), ty_int);
        expect_type(arg(n, 1), ty_int, "for the root rank of '%s'", name);
        return t;
    }
    case BI_WORLD_GATHER: {
        arity(n, name, 1);
        struct type *t = check_value(arg(n, 0), hint && hint->kind == T_ARRAY ? hint->elem : NULL);
        if (t == ty_void)
            error_at(arg(n, 0)->loc, "'%s' needs a value, found nothing", name);
        if (type_has_fn(t))
            error_at(arg(n, 0)->loc, "'%s' cannot send %s to other processes: a function value lives in one "
                                     "process", name, tn(t));
        return type_array(t);
    }
    case BI_PANIC:
        arity(n, name, 1);
        check_value(arg(n, 0), ty_str);
        expect_type(arg(n, 0), ty_str, "for the message of 'panic'");
        return ty_void;
    case BI_SOME: case BI_NONE_LIT:
        return check_option_value(n, bi, hint);
    case BI_INPUT:
        arity(n, name, 0);
        return type_option(ty_str);
    case BI_NONE:
    BI_MATH_CASES
    case M_WRAPPING_ADD: case M_WRAPPING_SUB: case M_WRAPPING_MUL: case M_WRAPPING_NEG:
    case M_ROTATE_LEFT: case M_ROTATE_RIGHT: case M_COUNT_ONES: case M_LEADING_ZEROS:
    case M_TRAILING_ZEROS: case M_PUSH: case M_SPLIT: case M_STRIP: case M_LINES: case M_STARTSWITH:
    case M_ENDSWITH: case M_REPLACE: case M_UPPER: case M_LOWER: case M_JOIN: case M_CONTAINS: case M_POP:
    case M_INSERT: case M_REMOVE: case M_EXTEND: case M_REVERSE: case M_SORT:
    case M_GROW_UNSET: /* the optimizer's */
    case BI_RANGE_STEP: case BI_ENUMERATE: case BI_ZIP: /* check_iterable */
    case M_IS_SOME: case M_IS_NONE: case M_UNWRAP: case M_UNWRAP_OR: case M_FIND: case M_TO_INT:
    case M_TO_FLOAT: case M_INDEX:
    case BI_UNSET: case BI_IN_PLACE: case BI_RUNS_LONG: case BI_SOLE: /* the optimizer's */
        break;
    }
    internal_error("check_builtin of '%s'", name);
}

/* Methods: x.wrapping_add(y) and friends on integers, xs.push(v). */
struct type *check_method(struct node *n, struct node *recv, const char *mname, struct type *hint)
{
    enum builtin m = find_builtin(mname, BK_METHOD);
    struct type *rt;
    /* A literal receiver takes the argument's type: 1.wrapping_add(x); with
     * a literal argument too (or none), the context's integer type:
     * ys[i] = 0xf_4240.wrapping_add(-53) for ys: [i128]. */
    bool same_type = m == M_WRAPPING_ADD || m == M_WRAPPING_SUB || m == M_WRAPPING_MUL;
    bool keeps_type = same_type || m == M_WRAPPING_NEG || m == M_ROTATE_LEFT || m == M_ROTATE_RIGHT;
    bool on_option = m >= M_IS_SOME && m <= M_UNWRAP_OR;
    if (on_option && is_none_lit(recv)) {
        rt = check_option_recv(n, recv, m, hint);
    } else if (on_option && (m == M_UNWRAP || m == M_UNWRAP_OR) && hint && is_flexible(recv)) {
        /* Some(1).unwrap_or(2) where a u64 is expected */
        rt = check_value(recv, type_option(hint));
    } else if (same_type && n->u.call.args.len == 1 && is_flexible(recv) && !is_flexible(arg(n, 0))) {
        struct type *ta = check_value(arg(n, 0), NULL);
        rt = check_value(recv, ta);
    } else if (keeps_type && is_flexible(recv) && hint && type_is_integer(hint)) {
        rt = check_value(recv, hint);
    } else {
        rt = check_value(recv, NULL);
    }
    if (rt->kind == T_TUPLE) { /* s.f(x), t.0(x): a field holding a function */
        struct node *callee = n->u.call.callee;
        for (int k = 0; k < rt->nfields; k++)
            if ((rt->sname ? strcmp(rt->fnames[k], mname) == 0 : atoi(mname) == k && mname[0] >= '0' && mname[0] <= '9')
                && rt->fields[k]->kind == T_FN) {
                callee->u.field.index = k;
                callee->type = rt->fields[k];
                return check_value_call(n, rt->fields[k],
                                        rt->sname ? arena_printf("field '%s' of %s", mname, rt->sname)
                                                  : arena_printf("field %d of %s", k, tn(rt)));
            }
    }
    if (m == BI_NONE) {
        const char *have = rt->kind == T_ARRAY ? "; arrays have the methods push, pop, insert, remove, extend, "
                                                 "reverse, sort, contains, index"
                           : rt == ty_str ? "; its methods are split, strip, lines, startswith, endswith, replace, "
                                            "upper, lower, join, find, to_int, to_float"
                           : rt->kind == T_OPTION ? "; its methods are is_some, is_none, unwrap, unwrap_or"
                           : type_is_integer(rt)
                               ? "; its methods are wrapping_add, wrapping_sub, wrapping_mul, wrapping_neg, "
                                 "rotate_left, rotate_right, count_ones, leading_zeros, trailing_zeros"
                               : arena_printf("; %s has no methods", tn(rt));
        if (strcmp(mname, "len") == 0 && (rt->kind == T_ARRAY || rt == ty_str)) {
            const char *text = recv->loc.line == recv->loc.end_line ? loc_text(recv->loc) : "?";
            have = arena_printf("; the length is a function: len(%s)", strlen(text) <= 40 ? text : "...");
        }
        error_at(n->u.call.callee->u.field.name_loc, "%s has no method '%s'%s", tn(rt), mname, have);
    }
    n->u.call.builtin = m;
    n->u.call.recv = recv;
    if ((m >= M_SPLIT && m <= M_SORT) || (m >= M_FIND && m <= M_INDEX))
        return check_lib_method(n, recv, rt, m);
    if (on_option)
        return check_option_method(n, recv, rt, m);
    if (m == M_PUSH) {
        if (rt->kind != T_ARRAY)
            error_at(n->u.call.callee->u.field.name_loc, "%s has no method 'push'; only arrays do", tn(rt));
        check_mutable_root(recv, "pushed to");
        if (lambda_depth > 0)
            error_at(n->u.call.callee->u.field.name_loc, "'push' changes its array, and a lambda's body cannot "
                                                         "change variables (it sees copies of them)");
        arity(n, mname, 1);
        check_value(arg(n, 0), rt->elem);
        expect_type(arg(n, 0), rt->elem, "for the argument of 'push' on %s", tn(rt));
        return ty_void;
    }
    if (!type_is_integer(rt))
        error_at(n->u.call.callee->u.field.name_loc, "%s has no method '%s'; it works on int, i128 and u64", tn(rt),
                 mname);
    switch (m) {
    case M_WRAPPING_ADD: case M_WRAPPING_SUB: case M_WRAPPING_MUL:
        arity(n, mname, 1);
        if (!arg(n, 0)->type)
            check_value(arg(n, 0), rt);
        expect_type(arg(n, 0), rt, "for the argument of '%s'", mname);
        return rt;
    case M_WRAPPING_NEG:
        arity(n, mname, 0);
        return rt;
    case M_ROTATE_LEFT: case M_ROTATE_RIGHT:
        arity(n, mname, 1);
        check_value(arg(n, 0), ty_int);
        expect_type(arg(n, 0), ty_int, "for the rotate amount of '%s'", mname);
        return rt;
    case M_COUNT_ONES: case M_LEADING_ZEROS: case M_TRAILING_ZEROS:
        arity(n, mname, 0);
        return ty_int;
    case M_PUSH:
    case BI_NONE: case BI_PRINT: case BI_LEN: case BI_STR: case BI_INT: case BI_FLOAT: case BI_I128:
    case BI_U64: case BI_ABS: case BI_MIN2: case BI_MAX2: BI_MATH_CASES case BI_OS_ARGS:
    case BI_OS_THREAD_COUNT: case BI_OS_CLOCK: case BI_OS_EXIT: case BI_OS_GETENV: case BI_PANIC:
    case BI_EPRINT: case BI_READ_STDIN: case BI_SORTED: case BI_REVERSED: case BI_OS_READ_FILE:
    case BI_OS_WRITE_FILE: case BI_OS_APPEND_FILE: case BI_ASSERT: case BI_SLICE: case M_SPLIT: case M_STRIP:
    case M_LINES: case M_STARTSWITH: case M_ENDSWITH: case M_REPLACE: case M_UPPER: case M_LOWER: case M_JOIN:
    case M_CONTAINS: case M_POP: case M_INSERT: case M_REMOVE: case M_EXTEND: case M_REVERSE: case M_SORT:
    case BI_WORLD_RANK: case BI_WORLD_SIZE: case BI_WORLD_BARRIER: case BI_WORLD_BROADCAST: case BI_WORLD_GATHER:
    case BI_WORLD_SUM: case BI_WORLD_PRODUCT: case BI_WORLD_MIN: case BI_WORLD_MAX: case BI_WORLD_ANY: case BI_WORLD_ALL:
    case BI_RANGE_STEP: case BI_ENUMERATE: case BI_ZIP:
    case BI_SOME: case BI_NONE_LIT: case M_IS_SOME: case M_IS_NONE: case M_UNWRAP: case M_UNWRAP_OR:
    case BI_INPUT: case M_FIND: case M_TO_INT: case M_TO_FLOAT: case M_INDEX: case BI_UNSET: case M_GROW_UNSET:
    case BI_IN_PLACE: case BI_RUNS_LONG: case BI_SOLE:
        break;
    }
    internal_error("check_method of '%s'", mname);
}

/* world.NAME(...): a distributed reduction with a generator, else one of
 * the BK_WORLD rows (docs/world.md). */
struct type *check_world(struct node *n, const char *member, struct type *hint)
{
    struct gen *g = n->u.call.gen;
    enum reducer r = RED_SUM;
    bool red = find_reducer(member, &r);
    if (n->u.call.par)
        error_at(n->loc, "'par' does not apply to 'world.%s'; a world reduction already runs on every rank's pool",
                 member);
    /* The elements run on any thread and, in a world reduction, on one rank
     * only: a collective there would leave the other ranks waiting. */
    bool collective = strcmp(member, "rank") != 0 && strcmp(member, "size") != 0;
    if (collective && C.fn_sym && !C.fn_sym->world_call)
        C.fn_sym->world_call = n; /* for calls of this function inside elements (check_par_calls) */
    if (collective && C.par_depth > 0)
        error_at(n->loc, "'world.%s' cannot run inside the elements of a par or world reduction or comprehension; "
                         "every rank must make the same world calls in the same order: compute it before",
                 member);
    if (g && strcmp(member, "reduce") == 0) {
        n->u.call.par = true;
        struct type *t = check_user_reduce(n, false, hint);
        n->u.reduce.world = true;
        return t;
    }
    if (g) {
        if (!red)
            error_at(gen_loc(g), "a generator can only be the argument of a reducer (world.sum, world.product, "
                                 "world.min, world.max, world.any, world.all), not of 'world.%s'", member);
        struct loc where = g->elem->loc;
        n->u.call.par = true;
        struct type *t = check_reduce(n, r, hint);
        n->u.reduce.world = true;
        if ((r == RED_MIN || r == RED_MAX) && !type_is_numeric(n->u.reduce.elem_type))
            error_at(where, "'world.%s' of a generator needs numbers, found elements of type %s", member,
                     tn(n->u.reduce.elem_type));
        return t;
    }
    enum builtin bi = find_builtin(arena_printf("world.%s", member), BK_WORLD);
    if (bi == BI_NONE)
        error_at(n->u.call.callee->loc, "module 'world' has no function '%s' (it has rank, size, sum, product, min, "
                                        "max, any, all, broadcast, gather, barrier)", member);
    return check_builtin(n, bi, hint);
}

