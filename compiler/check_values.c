/*
 * check_values.c: the checker's tuples and structs (check.h): tuple
 * literals and fields, struct construction (positional and by name) and
 * field reads, and the declarations' own checks (a struct may not hold
 * itself; ordering only when every field is ordered), and Option: Some(x),
 * None (typed by its context) and the Option methods.
 */
#include "check.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* "lo, hi and depth": a struct's field names, for messages. */
static const char *field_list(struct type *t)
{
    struct buf b = {0};
    for (int i = 0; i < t->nfields; i++)
        bprintf(&b, "%s%s", i == 0 ? "" : i == t->nfields - 1 ? " and " : ", ", t->fnames[i]);
    const char *list = arena_strndup(b.p, b.len);
    free(b.p);
    return list;
}

/* "Seg(lo=..., hi=..., depth=...)": the fix shown with a struct's errors. */
static const char *ctor_shape(struct type *t)
{
    struct buf b = {0};
    bprintf(&b, "%s(", t->sname);
    for (int i = 0; i < t->nfields; i++)
        bprintf(&b, "%s%s=...", i ? ", " : "", t->fnames[i]);
    bputs(&b, ")");
    const char *r = arena_strndup(b.p, b.len);
    free(b.p);
    return r;
}

static int field_index(struct type *t, const char *name)
{
    for (int i = 0; i < t->nfields; i++)
        if (strcmp(t->fnames[i], name) == 0)
            return i;
    return -1;
}

static const char *field_suggest(struct type *t, const char *name)
{
    const char *best = NULL;
    int best_d = strlen(name) <= 4 ? 2 : 3;
    for (int i = 0; i < t->nfields; i++)
        consider(name, t->fnames[i], &best, &best_d);
    return best ? arena_printf("; did you mean '%s'?", best) : arena_printf("; its fields are %s", field_list(t));
}

/* Seg(0.0, 1.0, 3) or Seg(lo=0.0, hi=1.0, depth=3): positional values
 * first, then named ones, every field exactly once. The call becomes an
 * N_TUPLE of the values in field order (evaluated in that order). */
struct type *check_struct_ctor(struct node *n, struct type *t)
{
    struct nodes *args = &n->u.call.args;
    if (n->u.call.par)
        error_at(n->loc, "'par' applies only to reductions (sum, product, min, max, any, all) and "
                         "comprehensions, not to building a struct");
    if (n->u.call.gen)
        error_at(gen_loc(n->u.call.gen), "a generator cannot build struct '%s'; give its fields: %s", t->sname,
                 ctor_shape(t));
    struct node **vals = arena_alloc(sizeof *vals * (size_t)t->nfields);
    int npos = 0;
    bool named = false;
    for (int i = 0; i < args->len; i++) {
        struct node *a = args->items[i];
        if (a->kind != N_ASSIGN) {
            if (named)
                error_at(a->loc, "a positional value cannot follow a named field in '%s(...)'; name it too: %s",
                         t->sname, ctor_shape(t));
            if (npos >= t->nfields)
                error_at(a->loc, "struct '%s' has %d field%s (%s), but %d values were given", t->sname, t->nfields,
                         t->nfields == 1 ? "" : "s", field_list(t), args->len);
            vals[npos++] = a;
            continue;
        }
        named = true;
        struct node *f = a->u.assign.target;
        int k = field_index(t, f->u.name.name);
        if (k < 0)
            error_at(f->loc, "struct '%s' has no field '%s'%s", t->sname, f->u.name.name,
                     field_suggest(t, f->u.name.name));
        if (vals[k])
            error_at(f->loc, "field '%s' is given twice in '%s(...)'", f->u.name.name, t->sname);
        vals[k] = a->u.assign.value;
    }
    for (int i = 0; i < t->nfields; i++)
        if (!vals[i])
            error_at(n->loc, "missing field '%s' in '%s(...)'; give every field: %s", t->fnames[i], t->sname,
                     ctor_shape(t));
    for (int i = 0; i < t->nfields; i++) {
        check_value(vals[i], t->fields[i]);
        expect_type(vals[i], t->fields[i], "for field '%s' of '%s'", t->fnames[i], t->sname);
    }
    n->kind = N_TUPLE;
    memset(&n->u.array, 0, sizeof n->u.array);
    for (int i = 0; i < t->nfields; i++)
        nodes_push(&n->u.array, vals[i]);
    return t;
}

/* t.0, t.1: "a (float, int) tuple has fields .0 and .1" otherwise. */
static struct type *check_tuple_field(struct node *n, struct type *t)
{
    const char *f = n->u.field.name;
    int k = -1;
    if (f[0] >= '0' && f[0] <= '9')
        k = atoi(f);
    if (k < 0 || k >= t->nfields) {
        struct buf b = {0};
        for (int i = 0; i < t->nfields; i++)
            bprintf(&b, "%s.%d", i == 0 ? "" : i == t->nfields - 1 ? " and " : ", ", i);
        const char *list = arena_strndup(b.p, b.len);
        free(b.p);
        error_at(n->u.field.name_loc, "a %s tuple has fields %s", tn(t), list);
    }
    n->u.field.index = k;
    return t->fields[k];
}

/* (a, b, ...): each element takes its field of the hint when the hint is a
 * tuple of the same length. */
struct type *check_tuple(struct node *n, struct type *hint)
{
    struct nodes *el = &n->u.array;
    struct type **ft = arena_alloc(sizeof *ft * (size_t)el->len);
    bool fit = hint && hint->kind == T_TUPLE && !hint->sname && hint->nfields == el->len;
    for (int i = 0; i < el->len; i++) {
        ft[i] = check_value(el->items[i], fit ? hint->fields[i] : NULL);
        if (fit) /* as an array's elements take the array's: the element is where it goes wrong */
            expect_type(el->items[i], hint->fields[i], "for field .%d of the tuple", i);
    }
    return type_tuple(ft, el->len);
}

/* base.name outside a call: a module constant (math.pi), rewritten in place
 * into an N_NAME of the constant's symbol. */
struct type *check_field(struct node *n)
{
    struct node *base = n->u.field.base;
    const char *member = n->u.field.name;
    struct sym *ms = module_base(base);
    if (!ms) {
        struct type *t = check_value(base, NULL);
        if (t->kind == T_TUPLE && t->sname) {
            int k = field_index(t, member);
            if (k < 0)
                error_at(n->u.field.name_loc, "struct '%s' has no field '%s'%s", t->sname, member,
                         field_suggest(t, member));
            n->u.field.index = k;
            return t->fields[k];
        }
        if (t->kind == T_TUPLE)
            return check_tuple_field(n, t);
        const char *hint = find_builtin(member, BK_METHOD) ? arena_printf("; call the method: .%s(...)", member)
                           : strcmp(member, "len") == 0                    ? "; the length is len(...)"
                                                                           : "";
        error_at(n->loc, "%s has no field '%s'%s", tn(t), member, hint);
    }
    if (ms == world_sym) {
        if (find_builtin(arena_printf("world.%s", member), BK_WORLD) != BI_NONE)
            error_at(n->loc, "'world.%s' is a function, not a value; call it: world.%s(...)", member, member);
        error_at(n->loc, "module 'world' has no member '%s'", member);
    }
    if (ms == os_sym) {
        if (find_builtin(arena_printf("os.%s", member), BK_OS) != BI_NONE)
            error_at(n->loc, "'os.%s' is a function, not a value; call it: os.%s()", member, member);
        error_at(n->loc, "module 'os' has no member '%s'", member);
    }
    struct sym *s = map_get_str(&modinfo_of(ms->module)->globals, member);
    if (!s || s->kind == SYM_MODULE)
        error_at(n->loc, "module '%s' has no member '%s'", ms->name, member);
    n->kind = N_NAME;
    n->u.name.name = member;
    n->u.name.sym = s;
    if (s->kind == SYM_FN) /* m.f as a value */
        return check_fn_value(n, s);
    use_const(n, s);
    return s->type;
}

/* Pass 0: every struct named is declared, none holds itself (through
 * fields, tuples or structs; an array of it is fine: arrays are references),
 * and no function or constant has a struct's name. */
static bool holds(struct type *t, struct type *s, int depth)
{
    if ((t->kind != T_TUPLE && t->kind != T_OPTION) || depth > MAX_NESTING)
        return false;
    for (int i = 0; i < t->nfields; i++)
        if (t->fields[i] == s || holds(t->fields[i], s, depth + 1))
            return true;
    return false;
}

void check_struct(void *arg)
{
    struct type *t = arg;
    if (!t->sdefined) {
        const char *best = NULL;
        int best_d = strlen(t->sname) <= 4 ? 2 : 3;
        for (int i = 0; i < type_structs.len; i++) {
            struct type *o = type_structs.items[i];
            if (o->sdefined)
                consider(t->sname, o->sname, &best, &best_d);
        }
        if (best)
            error_at(t->sloc, "unknown type '%s'; did you mean '%s'?", t->sname, best);
        error_at(t->sloc, "unknown type '%s' (the types are int, i128, u64, float, bool, str, [T], tuples (T1, T2) "
                          "and structs declared with 'struct %s:')", t->sname, t->sname);
    }
    for (int i = 0; i < t->nfields; i++)
        if (t->fields[i] == t || holds(t->fields[i], t, 0))
            error_at(t->sloc, "struct '%s' holds itself through field '%s', so it would have no end; hold an array "
                              "of it instead: %s: [%s]", t->sname, t->fnames[i], t->fnames[i], t->sname);
    for (int i = 0; i < C.nmods; i++) {
        struct sym *g = map_get_str(&C.mods[i].globals, t->sname);
        if (g)
            error_at(g->loc, "'%s' is already defined as a struct (%s); rename one of them", t->sname, line_ref(t->sloc));
    }
}


/* ---- Option ----------------------------------------------------------------- */

/* The parser's None: a call of the builtin no program can name. */
bool is_none_lit(struct node *n)
{
    return n->kind == N_CALL && n->u.call.callee->kind == N_NAME && !n->u.call.gen &&
           strcmp(n->u.call.callee->u.name.name, "None") == 0;
}

bool is_some_call(struct node *n)
{
    return n->kind == N_CALL && n->u.call.callee->kind == N_NAME && !n->u.call.gen && n->u.call.args.len == 1 &&
           strcmp(n->u.call.callee->u.name.name, "Some") == 0;
}

/* Some(x) and None. None has the Option type its place expects (an
 * annotation, a parameter, a result, the other side of ==, ...). */
struct type *check_option_value(struct node *n, enum builtin bi, struct type *hint)
{
    bool fit = hint && hint->kind == T_OPTION;
    if (bi == BI_NONE_LIT) {
        if (fit)
            return hint;
        if (hint)
            error_at(n->loc, "mismatched types: expected %s, found None (None is a value of an Option type, "
                             "such as Option[%s])", tn(hint), tn(hint));
        error_at(n->loc, "cannot infer the type of None; give it an Option type where it goes, e.g. "
                         "let x: Option[int] = None");
    }
    if (n->u.call.args.len != 1)
        error_at(n->loc, "'Some' takes 1 argument, found %d%s", n->u.call.args.len,
                 n->u.call.args.len > 1 ? "; to hold several values, make them a tuple: Some((a, b))" : "");
    struct node *x = arg(n, 0);
    struct type *t = check_value(x, fit ? hint->fields[1] : NULL);
    if (fit) /* the value is where it goes wrong: Some(1) for an Option[float] */
        expect_type(x, hint->fields[1], "for the value of Some(...) in %s", tn(hint));
    return type_option(t);
}

/* Whether n is a name bound by let to the literal None (or is None): an
 * unwrap of it certainly panics. */
static bool certainly_none(struct node *n)
{
    if (is_none_lit(n))
        return true;
    if (n->kind != N_NAME || !n->u.name.sym)
        return false;
    struct sym *s = n->u.name.sym;
    if (s->kind != SYM_LOCAL || s->is_var || !s->decl || s->decl->kind != N_LET)
        return false;
    struct node *init = s->decl->u.let.init;
    return init && !s->decl->u.let.pat.len && is_none_lit(init);
}

/* The receiver of an Option method when it is the literal None: its type
 * comes from the context (unwrap_or's argument, or the hint). */
struct type *check_option_recv(struct node *n, struct node *recv, enum builtin m, struct type *hint)
{
    if (m == M_UNWRAP && !hint)
        error_at(n->loc, "'unwrap' of None always panics ('called unwrap on None'); use a value, or "
                         "o.unwrap_or(default)");
    if (m == M_UNWRAP) { /* typed by the context: a warning, the panic comes at run time */
        warning_at(n->loc, "'unwrap' of None always panics ('called unwrap on None'); use a value, or "
                           "o.unwrap_or(default)");
        return check_value(recv, type_option(hint));
    }
    if (m == M_UNWRAP_OR && n->u.call.args.len == 1) {
        struct type *d = check_value(arg(n, 0), hint);
        return check_value(recv, type_option(d));
    }
    return check_value(recv, NULL);
}

/* o.is_some(), o.is_none(), o.unwrap(), o.unwrap_or(d). */
struct type *check_option_method(struct node *n, struct node *recv, struct type *rt, enum builtin m)
{
    const char *mname = builtin_name[m];
    struct loc name_loc = n->u.call.callee->u.field.name_loc;
    if (rt->kind != T_OPTION)
        error_at(name_loc, "%s has no method '%s'; only Option values do (Option[T]: is_some, is_none, unwrap, "
                           "unwrap_or)", tn(rt), mname);
    struct type *t = rt->fields[1];
    switch (m) {
    case M_IS_SOME: case M_IS_NONE:
        if (n->u.call.args.len != 0)
            error_at(n->loc, "'%s' takes 0 arguments, found %d", mname, n->u.call.args.len);
        return ty_bool;
    case M_UNWRAP:
        if (n->u.call.args.len != 0)
            error_at(n->loc, "'unwrap' takes 0 arguments, found %d%s", n->u.call.args.len,
                     n->u.call.args.len == 1 ? "; for a default, call unwrap_or(d)" : "");
        if (recv->kind == N_NAME && certainly_none(recv)) /* a warning: the program may test its own panic */
            warning_at(n->loc, "'%s' is None here ('%s' is a let bound to None), so 'unwrap' always panics "
                               "('called unwrap on None'); give it a value, or use unwrap_or(default)",
                       recv->u.name.name, recv->u.name.name);
        return t;
    case M_UNWRAP_OR:
        if (n->u.call.args.len != 1)
            error_at(n->loc, "'unwrap_or' takes 1 argument, found %d", n->u.call.args.len);
        if (!arg(n, 0)->type)
            check_value(arg(n, 0), t);
        expect_type(arg(n, 0), t, "for the default of 'unwrap_or' on %s", tn(rt));
        return t;
    default:
        break;
    }
    internal_error("check_option_method of '%s'", mname);
}

/* The first field, depth first, whose type has no order: "its field 'xs'
 * is [int]", "its field 'inner' is (int, [int]), whose field 1 is [int]". */
static const char *unordered_path(struct type *t, const char *its)
{
    for (int i = 0; i < t->nfields; i++) {
        struct type *f = t->fields[i];
        if (type_is_ordered(f)) continue;
        const char *name = t->fnames ? arena_printf("'%s'", t->fnames[i]) : arena_printf("%d", i);
        const char *here = arena_printf("%s field %s is %s", its, name, tn(f));
        if (f->kind == T_TUPLE) return arena_printf("%s, %s", here, unordered_path(f, "whose"));
        return here;
    }
    return "";
}

const char *why_unordered(struct type *t)
{
    if (t->kind != T_TUPLE || type_is_ordered(t)) return "";
    return arena_printf(" (%s, which has no order)", unordered_path(t, "its"));
}
