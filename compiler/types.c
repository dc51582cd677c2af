/*
 * types.c: interned types and the name tables made from brine.h's X-macros.
 *
 * Types are interned so that the checker compares them by pointer: the
 * scalar types are static singletons, and type_array keeps one array type
 * per element type (a short list hanging off the element type would do, but
 * a small hash-free list is plenty: programs name only a handful of array
 * types).
 */
#include "brine.h"

#include <stdlib.h>
#include <string.h>

static struct type t_int = {.kind = T_INT}, t_i128 = {.kind = T_I128},
                   t_u64 = {.kind = T_U64}, t_float = {.kind = T_FLOAT},
                   t_bool = {.kind = T_BOOL}, t_str = {.kind = T_STR},
                   t_void = {.kind = T_VOID};

struct type *ty_int = &t_int, *ty_i128 = &t_i128, *ty_u64 = &t_u64, *ty_float = &t_float,
            *ty_bool = &t_bool, *ty_str = &t_str, *ty_void = &t_void;

static struct vec array_types; /* every array type made so far */

struct type *type_array(struct type *elem)
{
    if (!elem)
        internal_error("type_array of NULL");
    for (int i = 0; i < array_types.len; i++) {
        struct type *t = array_types.items[i];
        if (t->elem == elem)
            return t;
    }
    struct type *t = arena_alloc(sizeof *t);
    t->kind = T_ARRAY;
    t->elem = elem;
    vec_push(&array_types, t);
    return t;
}

static struct vec tuple_types; /* every tuple type made so far */

struct type *type_tuple(struct type **fields, int n)
{
    if (n < 2)
        internal_error("type_tuple of %d fields", n);
    for (int i = 0; i < tuple_types.len; i++) {
        struct type *t = tuple_types.items[i];
        if (t->nfields == n && memcmp(t->fields, fields, sizeof *fields * (size_t)n) == 0)
            return t;
    }
    struct type *t = arena_alloc(sizeof *t);
    t->kind = T_TUPLE;
    t->nfields = n;
    t->fields = arena_alloc(sizeof *fields * (size_t)n);
    memcpy(t->fields, fields, sizeof *fields * (size_t)n);
    vec_push(&tuple_types, t);
    return t;
}

static struct vec fn_types; /* every function type made so far */

struct type *type_fn(struct type **params, int n, struct type *ret)
{
    for (int i = 0; i < fn_types.len; i++) {
        struct type *t = fn_types.items[i];
        if (t->nfields == n && t->elem == ret && (n == 0 || memcmp(t->fields, params, sizeof *params * (size_t)n) == 0))
            return t;
    }
    struct type *t = arena_alloc(sizeof *t);
    t->kind = T_FN;
    t->nfields = n;
    t->elem = ret;
    t->fields = arena_alloc(sizeof *params * (size_t)(n + 1));
    if (n) memcpy(t->fields, params, sizeof *params * (size_t)n);
    vec_push(&fn_types, t);
    return t;
}

static struct vec option_types; /* every Option type made so far */

struct type *type_option(struct type *inner)
{
    if (!inner)
        internal_error("type_option of NULL");
    for (int i = 0; i < option_types.len; i++) {
        struct type *t = option_types.items[i];
        if (t->fields[1] == inner)
            return t;
    }
    struct type *t = arena_alloc(sizeof *t);
    t->kind = T_OPTION;
    t->nfields = 2;
    t->fields = arena_alloc(sizeof *t->fields * 2);
    t->fields[0] = ty_bool;
    t->fields[1] = inner;
    vec_push(&option_types, t);
    return t;
}

struct vec type_structs; /* every struct type named so far */

struct type *type_find_struct(const char *name)
{
    for (int i = 0; i < type_structs.len; i++) {
        struct type *t = type_structs.items[i];
        if (strcmp(t->sname, name) == 0)
            return t;
    }
    return NULL;
}

struct type *type_struct(const char *name, struct loc use)
{
    struct type *t = type_find_struct(name);
    if (t)
        return t;
    t = arena_alloc(sizeof *t);
    t->kind = T_TUPLE;
    t->sname = name;
    t->sloc = use;
    vec_push(&type_structs, t);
    return t;
}

static const char *const type_kind_name[] = {
#define X(k, s) [k] = s,
    TYPE_KINDS(X)
#undef X
};

const char *type_name(struct type *t)
{
    if (!t)
        return "<no type>";
    switch (t->kind) {
    case T_INT:
    case T_I128:
    case T_U64:
    case T_FLOAT:
    case T_BOOL:
    case T_STR:
    case T_VOID:
        return type_kind_name[t->kind];
    case T_ARRAY: {
        /* Depth of nesting first, so the name is built in one allocation. */
        int depth = 0;
        struct type *e = t;
        while (e->kind == T_ARRAY) {
            depth++;
            e = e->elem;
        }
        const char *inner = type_name(e);
        size_t n = strlen(inner);
        char *s = arena_alloc(n + 2 * (size_t)depth + 1);
        memset(s, '[', (size_t)depth);
        memcpy(s + depth, inner, n);
        memset(s + depth + n, ']', (size_t)depth);
        return s;
    }
    case T_TUPLE: {
        if (t->sname)
            return t->sname;
        struct buf b = {0};
        bputs(&b, "(");
        for (int i = 0; i < t->nfields; i++) {
            if (i)
                bputs(&b, ", ");
            bputs(&b, type_name(t->fields[i]));
        }
        bputs(&b, ")");
        const char *s = arena_strndup(b.p, b.len);
        free(b.p);
        return s;
    }
    case T_FN: { /* fn(float, int) -> float */
        struct buf b = {0};
        bputs(&b, "fn(");
        for (int i = 0; i < t->nfields; i++)
            bprintf(&b, "%s%s", i ? ", " : "", type_name(t->fields[i]));
        bputs(&b, ")");
        if (t->elem != ty_void)
            bprintf(&b, " -> %s", type_name(t->elem));
        const char *s = arena_strndup(b.p, b.len);
        free(b.p);
        return s;
    }
    case T_OPTION:
        return arena_printf("Option[%s]", type_name(t->fields[1]));
    }
    return "<bad type>";
}

bool type_is_integer(struct type *t)
{
    return t == ty_int || t == ty_i128 || t == ty_u64;
}

bool type_is_numeric(struct type *t)
{
    return type_is_integer(t) || t == ty_float;
}

bool type_is_ref(struct type *t)
{
    if (t && (t->kind == T_TUPLE || t->kind == T_OPTION)) {
        for (int i = 0; i < t->nfields; i++)
            if (type_is_ref(t->fields[i]))
                return true;
        return false;
    }
    /* a function value may hold a lambda's captures (a counted block) */
    return t && (t->kind == T_STR || t->kind == T_ARRAY || t->kind == T_FN);
}

bool type_is_ordered(struct type *t)
{
    if (t->kind == T_TUPLE) {
        for (int i = 0; i < t->nfields; i++)
            if (!type_is_ordered(t->fields[i]))
                return false;
        return true;
    }
    return type_is_numeric(t) || t == ty_str;
}

const char *const op_spelling[] = {
#define X(k, s, cls, c, stem, dom) [k] = s,
    OPS(X)
#undef X
};
const enum op_class op_class[] = {
#define X(k, s, cls, c, stem, dom) [k] = cls,
    OPS(X)
#undef X
};
const char *const op_c[] = {
#define X(k, s, cls, c, stem, dom) [k] = c,
    OPS(X)
#undef X
};
const char *const op_stem[] = {
#define X(k, s, cls, c, stem, dom) [k] = stem,
    OPS(X)
#undef X
};
const char *const op_domain[] = {
#define X(k, s, cls, c, stem, dom) [k] = dom,
    OPS(X)
#undef X
};

const char *const reducer_name[] = {
#define X(k, s) [k] = s,
    REDUCERS(X)
#undef X
};

const char *const builtin_name[] = {
    [BI_NONE] = "",
#define X(k, s, kind, sig, arity, gpu) [k] = s,
    BUILTINS(X)
#undef X
};
const struct builtin_info builtins[] = {
    [BI_NONE] = {"", BK_FN, SIG_OWN, 0, 0},
#define X(k, s, kind, sig, arity, gpu) [k] = {s, kind, sig, arity, gpu},
    BUILTINS(X)
#undef X
};

const char *const node_kind_name[] = {
#define X(k, first) [k] = #k,
    NODE_KINDS(X)
#undef X
};
