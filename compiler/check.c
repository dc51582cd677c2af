/*
 * check.c: names and types (SPEC sections 2, 3, 4, 5, 6.3, 11).
 *
 * The checker walks every module (imported ones first) and either reports
 * the compile errors it finds (diag_finish, exit 1) or leaves the AST fully
 * annotated for lowering: every expression has a type, every name its symbol,
 * every call its builtin or user function, reducer calls are rewritten into
 * N_REDUCE and module constants (math.pi) into plain N_NAME nodes.
 *
 * Recovery: each statement, condition, constant and function is checked
 * under a recovery point (attempt); an error abandons only that piece and
 * the checker goes on with the next. A let or constant whose initialiser
 * failed is still declared, but poisoned: a later use of it abandons its
 * statement without a message, so one mistake is reported once, not again
 * at every use.
 *
 * Warnings (never in the stdlib, never for a name starting with '_'): a let
 * or var whose value is never read, and a var that is never assigned.
 *
 * Passes over the whole program, so that imports in any order, functions
 * used before their definition and recursion all just work:
 *   1. declare: every module's functions, constants and imports;
 *   2. constants, in initialisation order (module by module, top to bottom),
 *      so a constant sees exactly the constants initialised before it;
 *   3. function bodies;
 *   4. constants that call functions: a function reached from a constant's
 *      initialiser must not read a constant that is not initialised yet;
 *   5. `fn main()` exists.
 *
 * Integer literals are typed bidirectionally: check_expr takes a hint (the
 * type the context wants, or NULL) and a literal takes the hint when it is an
 * integer type, else int. In a binary operation whose one side is "flexible"
 * (its type comes only from literals, like `1` or `2 * 3`), the other side is
 * checked first and lends its type. Consumers then compare types exactly:
 * there are no implicit conversions.
 *
 * Statements are checked in check_stmt.c; the messages' words: check_diag.c.
 *
 * Recursion follows the AST, whose depth the parser bounds (MAX_NESTING);
 * left-leaning operator chains are the exception (a + b + c + ... is not
 * "nesting"), so check_expr counts its depth and stops with an error long
 * before the C stack could run out.
 */
#include "check.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* ---- symbols ------------------------------------------------------------ */

static int next_id = 1;

struct xsym *xs(struct sym *s)
{
    return (struct xsym *)s;
}

struct sym *new_sym(enum sym_kind kind, const char *name, struct loc loc, struct type *type,
            struct node *decl, struct module *mod)
{
    struct xsym *x = arena_alloc(sizeof *x);
    x->s.kind = kind;
    x->s.name = name;
    x->s.loc = loc;
    x->s.type = type;
    x->s.decl = decl;
    x->s.module = mod;
    x->s.id = next_id++;
    return &x->s;
}

/* ---- checker state ------------------------------------------------------- */

struct checker C;
struct sym *os_sym;    /* the always-available module `os` */
struct sym *world_sym; /* and `world` (docs/world.md) */

struct modinfo *modinfo_of(struct module *m)
{
    for (int i = 0; i < C.nmods; i++)
        if (C.mods[i].m == m)
            return &C.mods[i];
    internal_error("module '%s' was not loaded", m ? m->name : "?");
}

static void scope_push(void)
{
    C.level++;
}

/* The warnings for a let or var going out of scope (docs/cli.md,
 * "Warnings"); the stdlib's own locals are not the user's to fix. */
static void warn_unused(struct sym *s)
{
    struct xsym *x = xs(s);
    if (s->kind != SYM_LOCAL || x->loop_var || x->poisoned || s->name[0] == '_' || !s->module ||
        s->module->in_stdlib)
        return;
    if (!x->read)
        warning_at(s->loc, "unused variable '%s'; if this is intentional, name it _%s", s->name, s->name);
    else if (s->is_var && !x->assigned)
        warning_at(s->loc, "'%s' is declared with var but never assigned; declare it with let", s->name);
}

static void scope_pop(void)
{
    while (C.bound.len > 0) {
        struct binding *b = C.bound.items[C.bound.len - 1];
        if (b->level < C.level)
            break;
        warn_unused(b->sym);
        C.bound.len--;
        map_put_str(&C.locals, b->sym->name, b->prev);
    }
    C.level--;
}

const char *line_ref(struct loc loc)
{
    return arena_printf("line %d", loc.line);
}

void declare_local(struct sym *s)
{
    struct binding *prev = map_get_str(&C.locals, s->name);
    if (prev && prev->level == C.level) {
        if (prev->sym->kind == SYM_PARAM)
            internal_error("parameters live in their own scope");
        error_at(s->loc, "'%s' is already declared in this block (%s); shadowing is allowed only in an inner block",
                 s->name, line_ref(prev->sym->loc));
    }
    struct binding *b = arena_alloc(sizeof *b);
    b->sym = s;
    b->prev = prev;
    b->level = C.level;
    map_put_str(&C.locals, s->name, b);
    vec_push(&C.bound, b);
}

void check_scope_push(void)
{
    scope_push();
}

void check_scope_pop(void)
{
    scope_pop();
}

struct sym *bind_local(const char *name, struct loc loc, struct type *t, struct node *owner)
{
    struct sym *s = new_sym(SYM_LOCAL, name, loc, t, owner, C.mi->m);
    xs(s)->loop_var = true; /* read or not, no warning (a lambda's parameter) */
    declare_local(s);
    return s;
}

/* Locals, then the module's globals, then `os`; NULL when undefined (the
 * caller then tries the builtins). */
struct sym *lookup_sym(const char *name)
{
    struct binding *b = map_get_str(&C.locals, name);
    if (b) {
        if (xs(b->sym)->poisoned)
            diag_abandon();
        return b->sym;
    }
    struct sym *s = map_get_str(&C.mi->globals, name);
    if (s) {
        if (xs(s)->poisoned)
            diag_abandon();
        return s;
    }
    if (strcmp(name, "os") == 0)
        return os_sym;
    if (strcmp(name, "world") == 0)
        return world_sym;
    return NULL;
}

/* ---- recovery ------------------------------------------------------------ */

/* Runs f(arg) under a recovery point. False when it met an error (kept by
 * diag.c), with the scopes and the counters put back as they were. */
bool attempt(void (*f)(void *), void *arg)
{
    int level = C.level, loop_depth = C.loop_depth, depth = C.depth, par_depth = C.par_depth;
    struct xsym *cnst = C.cnst, *fn_sym = C.fn_sym;
    struct node *fn = C.fn;
    struct diag_catch c;
    if (setjmp(c.jb)) {
        while (C.level > level)
            scope_pop();
        C.loop_depth = loop_depth;
        C.par_depth = par_depth;
        C.depth = depth;
        C.cnst = cnst;
        C.fn = fn;
        C.fn_sym = fn_sym;
        return false;
    }
    diag_catch_push(&c);
    f(arg);
    diag_catch_pop(&c);
    return true;
}

/* ---- messages ----------------------------------------------------------- */

static const char *suggest(const char *name, bool want_fn)
{
    const char *best = NULL;
    size_t len = strlen(name);
    if (len <= 2)
        return ""; /* every short name is one edit from another */
    int limit = len <= 4 ? 1 : 2;
    int best_d = limit + 1;
    /* consider() breaks ties by name, so the table's order does not show. */
    struct map_entry *e;
    for (size_t i = 0; (e = map_next(&C.locals, &i));) {
        struct binding *b = e->val;
        if (b && !want_fn)
            consider(name, b->sym->name, &best, &best_d);
    }
    for (size_t i = 0; (e = map_next(&C.mi->globals, &i));) {
        struct sym *s = e->val;
        if (s && (s->kind == SYM_FN) == want_fn && s->kind != SYM_MODULE)
            consider(name, s->name, &best, &best_d);
    }
    if (want_fn) {
        for (int b = BI_NONE + 1; b <= BI_LAST; b++)
            if (builtins[b].kind == BK_FN)
                consider(name, builtin_name[b], &best, &best_d);
        for (int r = RED_SUM; r <= RED_ALL; r++)
            consider(name, reducer_name[r], &best, &best_d);
    }
    return best ? arena_printf("; did you mean '%s'?", best) : "";
}

/* ---- expressions --------------------------------------------------------- */

/* Checks an expression that must have a value (not a call of a function
 * without result). */
struct type *check_value(struct node *n, struct type *hint)
{
    struct type *t = check_expr(n, hint);
    if (t == ty_void) {
        const char *who = "this call";
        if (n->kind == N_CALL && n->u.call.fn)
            who = arena_printf("'%s'", n->u.call.fn->name);
        else if (n->kind == N_CALL && n->u.call.builtin != BI_NONE)
            who = arena_printf("'%s'", builtin_name[n->u.call.builtin]);
        error_at(n->loc, "%s returns nothing, so it has no value to use here", who);
    }
    return t;
}

/* A method whose result has the receiver's type, on a receiver and with
 * arguments that are themselves literal expressions (the rotate amounts are
 * not tied to it): 54.wrapping_add(63) takes its context's type like 54. */
static bool is_literal_method(struct node *n)
{
    struct node *callee = n->u.call.callee;
    if (callee->kind != N_FIELD || n->u.call.gen || n->u.call.par)
        return false;
    static const char *const same_type[] = {"wrapping_add", "wrapping_sub", "wrapping_mul"};
    static const char *const keeps_type[] = {"wrapping_neg", "rotate_left", "rotate_right"};
    const char *name = callee->u.field.name;
    for (int i = 0; i < 3; i++)
        if (strcmp(name, keeps_type[i]) == 0)
            return true;
    for (int i = 0; i < 3; i++)
        if (strcmp(name, same_type[i]) == 0) {
            for (int k = 0; k < n->u.call.args.len; k++)
                if (n->u.call.args.items[k]->kind == N_ASSIGN || !is_flexible(n->u.call.args.items[k]))
                    return false;
            return true;
        }
    return false;
}

/* Is the type of n decided only by integer literals (and empty arrays), so
 * that it should take the type of its context? Follows the left spine
 * iteratively, so long operator chains cost no recursion. */
bool is_flexible(struct node *n)
{
    for (;;) {
        switch (n->ekind) {
        case N_INT:
            return true;
        case N_UNARY:
            n = n->u.bin.a;
            continue;
        case N_BINARY:
            switch (op_class[n->u.bin.op]) {
            case OPC_ARITH: case OPC_BITS:
                if (!is_flexible(n->u.bin.b))
                    return false;
                n = n->u.bin.a;
                continue;
            case OPC_SHIFT:
                n = n->u.bin.a;
                continue;
            case OPC_CMP: case OPC_UNARY: case OPC_NONE:
                return false;
            }
            return false;
        case N_COND:
            if (!is_flexible(n->u.cond.els))
                return false;
            n = n->u.cond.then;
            continue;
        case N_ARRAY:
        case N_TUPLE:
            for (int i = 0; i < n->u.array.len; i++)
                if (!is_flexible(n->u.array.items[i]))
                    return false;
            return true;
        case N_LAMBDA: /* its types come from the context */
            return true;
        case N_CALL: /* None takes its type from the context; Some(1) as its 1 does */
            if (is_none_lit(n))
                return true;
            if (is_literal_method(n)) { /* 5.wrapping_mul(3), (2 + 3).rotate_left(1) */
                n = n->u.call.callee->u.field.base;
                continue;
            }
            if (!is_some_call(n))
                return false;
            n = n->u.call.args.items[0];
            continue;
        case N_FLOAT: case N_STR: case N_BOOL: case N_FSTRING: case N_NAME: case N_AND:
        case N_OR: case N_NOT: case N_FIELD: case N_INDEX: case N_LISTCOMP:
        case N_REDUCE:
            return false;
        }
        return false;
    }
}

static void check_int_literal(struct node *n, struct type *t)
{
    unsigned __int128 v = n->u.ilit.value;
    bool neg = n->u.ilit.neg;
    unsigned __int128 one = 1;
    bool fits;
    const char *limit;
    if (n->u.ilit.too_big) {
        fits = false;
    } else if (t == ty_int) {
        fits = neg ? v <= (one << 63) : v < (one << 63);
    } else if (t == ty_u64) {
        fits = neg ? v == 0 : v < (one << 64);
    } else if (t == ty_i128) {
        fits = neg ? v <= (one << 127) : v < (one << 127);
    } else {
        internal_error("integer literal of type %s", tn(t));
    }
    n->type = t;
    if (fits)
        return;
    if (t == ty_int)
        limit = neg ? "the smallest int is -9223372036854775808" : "the largest int is 9223372036854775807";
    else if (t == ty_u64)
        limit = neg ? "u64 has no negative values" : "the largest u64 is 18446744073709551615";
    else
        limit = neg ? "the smallest i128 is -170141183460469231731687303715884105728"
                    : "the largest i128 is 170141183460469231731687303715884105727";
    error_at(n->loc, "integer literal %s does not fit in %s (%s)", loc_text(n->loc), tn(t), limit);
}

static const char *op_name(enum op op)
{
    return op_spelling[op];
}

/* The type of `ta OP tb` for arithmetic and bitwise operators, or NULL with
 * *why set when the operation is not defined. */
struct type *arith_result(enum op op, struct type *ta, struct type *tb, bool compound, const char **why)
{
    const char *sp = compound ? arena_printf("%s=", op_name(op)) : op_name(op);
    *why = NULL;
    switch (op) {
    case OP_SHL: case OP_SHR:
        if (type_is_integer(ta) && type_is_integer(tb))
            return ta;
        break;
    case OP_MUL:
        if ((ta == ty_str || ta->kind == T_ARRAY) && type_is_integer(tb)) {
            if (tb == ty_int)
                return ta;
            *why = arena_printf("the repeat count of '*' must be int, found %s", tn(tb));
            return NULL;
        }
        if (ta == tb && type_is_numeric(ta))
            return ta;
        break;
    case OP_ADD:
        if (ta == tb && (type_is_numeric(ta) || ta == ty_str || ta->kind == T_ARRAY))
            return ta;
        break;
    case OP_SUB: case OP_DIV: case OP_MOD:
        if (ta == tb && type_is_numeric(ta))
            return ta;
        break;
    case OP_BAND: case OP_BOR: case OP_BXOR:
        /* bool too: both sides always evaluated, unlike and/or */
        if (ta == tb && (type_is_integer(ta) || ta == ty_bool))
            return ta;
        break;
    case OP_EQ: case OP_NE: case OP_LT: case OP_LE: case OP_GT: case OP_GE:
    case OP_NEG: case OP_BNOT: case OP_NONE:
        internal_error("arith_result of '%s'", op_name(op));
    }
    bool same_kind = ta == tb || (op == OP_SHL || op == OP_SHR);
    if (!same_kind && !(op == OP_MUL && (ta == ty_str || ta->kind == T_ARRAY)))
        *why = arena_printf("mismatched types: %s %s %s", tn(ta), sp, tn(tb));
    else
        *why = arena_printf("unsupported operand types: %s %s %s ('%s' works on %s)", tn(ta), sp, tn(tb),
                            op_name(op), op_domain[op]);
    return NULL;
}

/* Whether a takes its type from b rather than b from a: a is a literal and b
 * is not (None == o, 1 + x), or a is None and b is Some(1). */
static bool takes_type_from(struct node *a, struct node *b)
{
    return (is_flexible(a) && !is_flexible(b)) || (is_none_lit(a) && !is_none_lit(b));
}

/* Two operands of one type (a == b, min(a, b)): a literal takes the other
 * operand's type, so 1 == x and min(0, x) type the literal from x. */
void check_pair(struct node *a, struct node *b, struct type *hint, struct type **ta, struct type **tb)
{
    if (takes_type_from(a, b)) {
        *tb = check_value(b, hint);
        *ta = check_value(a, *tb);
    } else {
        *ta = check_value(a, hint);
        *tb = check_value(b, *ta);
    }
}

static struct type *check_binary(struct node *n, struct type *hint)
{
    enum op op = n->u.bin.op;
    struct node *a = n->u.bin.a, *b = n->u.bin.b;
    struct type *ta, *tb;
    if (op_is_compare(op)) {
        check_pair(a, b, NULL, &ta, &tb);
        if (ta != tb)
            error_at(n->loc, "mismatched types: %s %s %s%s", tn(ta), op_name(op), tn(tb), float_int_hint(a, ta, b, tb));
        no_fn_compared(n, ta, op_name(op));
        if (op != OP_EQ && op != OP_NE && ta->kind == T_OPTION)
            error_at(n->loc, "cannot order values of type %s: Options compare only with == and !=; compare "
                             "what they hold (a.unwrap() %s b.unwrap()) after testing is_some()", tn(ta), op_name(op));
        if (op != OP_EQ && op != OP_NE && ta->kind == T_TUPLE && ta->sname && !type_is_ordered(ta))
            error_at(n->loc, "cannot order values of type %s ('%s' works on structs whose fields are all numbers, "
                             "str, or tuples and structs of them)", tn(ta), op_name(op));
        if (op != OP_EQ && op != OP_NE && ta->kind == T_TUPLE && !type_is_ordered(ta))
            error_at(n->loc, "cannot order values of type %s ('%s' works on tuples whose fields are all numbers, "
                             "str or such tuples)", tn(ta), op_name(op));
        if (op != OP_EQ && op != OP_NE && !type_is_ordered(ta))
            error_at(n->loc, "cannot order values of type %s ('%s' works on numbers and str)", tn(ta),
                     op_name(op));
        return ty_bool;
    }
    if (op == OP_SHL || op == OP_SHR) {
        ta = check_value(a, hint);
        tb = check_value(b, NULL);
    } else if (op == OP_MUL && hint && (hint == ty_str || hint->kind == T_ARRAY)) {
        ta = check_value(a, hint);
        tb = check_value(b, ty_int);
    } else if (is_flexible(a) && !is_flexible(b)) {
        /* `1 + h` takes h's type; so does `[] + xs` (as `xs + []` does) */
        tb = check_value(b, hint);
        ta = check_value(a, type_is_numeric(tb) || (op == OP_ADD && tb->kind == T_ARRAY) ? tb : hint);
    } else {
        ta = check_value(a, hint);
        tb = check_value(b, op == OP_MUL && (ta == ty_str || ta->kind == T_ARRAY) ? ty_int : ta);
    }
    const char *why;
    struct type *t = arith_result(op, ta, tb, false, &why);
    if (!t)
        error_at(n->loc, "%s%s", why, strncmp(why, "mismatched", 10) == 0 ? float_int_hint(a, ta, b, tb) : "");
    return t;
}

/* range(lo, hi), range(lo, hi, step), enumerate(xs), zip(xs, ys) as the
 * iterable (unless a local or global has the name): range(lo, hi) becomes
 * lo..hi; the others an N_CALL of their BK_ITER builtin, whose array the
 * loop walks. Returns false when it is none of them. */
static struct node *int_literal(struct loc loc, int value)
{
    struct node *z = node_new(N_INT, loc);
    z->u.ilit.value = (unsigned)value;
    return z;
}

static bool check_iter_call(struct iterable *it)
{
    struct node *n = it->array;
    if (n->kind != N_CALL || n->u.call.callee->kind != N_NAME || n->u.call.gen || n->u.call.par)
        return false;
    const char *name = n->u.call.callee->u.name.name;
    struct nodes *args = &n->u.call.args;
    if (lookup_sym(name))
        return false;
    bool range = strcmp(name, "range") == 0;
    if (range ? args->len < 1 || args->len > 3
              : strcmp(name, "enumerate") == 0 ? args->len != 1 : strcmp(name, "zip") == 0 ? args->len != 2 : true)
        return false;
    for (int i = 0; i < args->len; i++)
        if (args->items[i]->kind == N_ASSIGN)
            return false; /* check_call says why */
    if (range && args->len <= 2) {
        it->is_range = true;
        it->inclusive = false;
        /* range(n) is 0..n: a literal 0 where the call begins, typed by n */
        it->lo = args->len == 2 ? args->items[0] : int_literal(n->loc, 0);
        it->hi = args->items[args->len - 1];
        it->array = NULL;
        return true;
    }
    n->u.call.callee->type = ty_void;
    if (range) {
        /* any integer type, the same for all three, as lo..hi: the first
         * argument that is not a literal decides (a literal takes its type) */
        static const char *const what[] = {"the start", "the end", "the step"};
        int first = 0;
        while (first < 2 && is_flexible(args->items[first])) first++;
        if (is_flexible(args->items[first])) first = 0;
        struct type *t = check_value(args->items[first], ty_int);
        if (!type_is_integer(t)) {
            expect_type(args->items[first], ty_int, "for %s of 'range'", what[first]);
            t = ty_int;
        }
        for (int i = 0; i < 3; i++) {
            if (i == first) continue;
            check_value(args->items[i], t);
            expect_type(args->items[i], t, "for %s of 'range' (%s is %s)", what[i], what[first], tn(t));
        }
        n->u.call.builtin = BI_RANGE_STEP;
        n->type = type_array(t);
        return true;
    }
    struct type *ft[2] = {ty_int, NULL};
    for (int i = 0; i < args->len; i++) {
        struct type *t = check_value(args->items[i], NULL);
        if (t->kind != T_ARRAY)
            error_at(args->items[i]->loc, "'%s' takes arrays, found %s", name, tn(t));
        ft[args->len == 1 ? 1 : i] = t->elem;
    }
    n->u.call.builtin = args->len == 1 ? BI_ENUMERATE : BI_ZIP;
    n->type = type_array(type_tuple(ft, 2));
    return true;
}

/* An iterable of for or a generator; returns the loop variable's type. */
struct type *check_iterable(struct iterable *it)
{
    if (!it->is_range && check_iter_call(it) && !it->is_range)
        return it->array->type->elem;
    if (it->is_range) {
        /* any integer type, the same at both ends; a literal end takes the
         * other end's type (`0..n` with n: u64), as in `1 + h` */
        struct node *first = is_flexible(it->lo) && !is_flexible(it->hi) ? it->hi : it->lo;
        struct node *second = first == it->lo ? it->hi : it->lo;
        struct type *t = check_value(first, ty_int);
        if (!type_is_integer(t))
            expect_type(first, ty_int, "for the %s of the range", first == it->lo ? "start" : "end");
        check_value(second, t);
        expect_type(second, t, "for the %s of the range", second == it->lo ? "start" : "end");
        return t;
    }
    struct type *t = check_value(it->array, NULL);
    if (t->kind != T_ARRAY)
        error_at(it->array->loc, "cannot iterate over %s; 'for' takes a range (a..b) or an array", tn(t));
    return t->elem;
}

struct loc gen_loc(struct gen *g)
{
    struct gen *lc = g;
    while (lc->next) lc = lc->next;
    struct node *last = g->cond ? g->cond : lc->iter.is_range ? lc->iter.hi : lc->iter.array;
    return loc_span(g->elem->loc, last->loc);
}

/* A tuple pattern names each variable once: (x, x) is an error. */
void no_repeated_names(struct nodes *pat)
{
    for (int i = 0; i < pat->len; i++) {
        struct node *nm = pat->items[i];
        for (int j = 0; j < i; j++)
            if (strcmp(pat->items[j]->u.name.name, nm->u.name.name) == 0)
                error_at(nm->loc, "'%s' appears twice in the pattern", nm->u.name.name);
    }
}

/* for (i, x) in ...: the loop's element is a tuple; each name a loop
 * variable of its field's type (lowering reads it as the field). */
void declare_loop_pattern(struct nodes *pat, struct loc at, struct type *t, struct node *owner)
{
    if (t->kind != T_TUPLE || t->sname)
        error_at(at, "cannot take the loop's elements apart into %d names: they are %s; only tuples can be "
                     "(for (i, x) in enumerate(xs), for (x, y) in zip(xs, ys))", pat->len, tn(t));
    if (t->nfields != pat->len)
        error_at(at, "the pattern has %d names, but the loop's elements are %s tuples of %d fields", pat->len, tn(t),
                 t->nfields);
    no_repeated_names(pat);
    for (int i = 0; i < pat->len; i++) {
        struct node *nm = pat->items[i];
        struct sym *v = new_sym(SYM_LOCAL, nm->u.name.name, nm->loc, t->fields[i], owner, C.mi->m);
        xs(v)->loop_var = true;
        nm->u.name.sym = v;
        nm->type = t->fields[i];
        declare_local(v);
    }
}

/* A generator in its own scope; returns the element type. par: its element
 * and filter run as par work (the source is evaluated once, before). */
int gen_depth; /* generators being checked: their elements may not mutate */

/* While a later clause's source is checked: that clause and those after
 * it, whose names it cannot see yet (for the undefined-name message). */
static struct gen *pending_clause;

/* A name an earlier clause of the same generator binds (NULL: none). */
static struct loc *clause_name(struct gen *g, struct gen *upto, const char *name)
{
    for (struct gen *c = g; c != upto; c = c->next) {
        if (!c->pat.len && strcmp(c->var, name) == 0) return &c->var_loc;
        for (int i = 0; i < c->pat.len; i++)
            if (strcmp(c->pat.items[i]->u.name.name, name) == 0) return &c->pat.items[i]->loc;
    }
    return NULL;
}

/* A later clause may not bind a name an earlier one binds: the inner one
 * would hide it from the element. */
static void no_clause_rebind(struct gen *g, struct gen *c)
{
    int n = c->pat.len ? c->pat.len : 1;
    for (int i = 0; i < n; i++) {
        const char *name = c->pat.len ? c->pat.items[i]->u.name.name : c->var;
        struct loc at = c->pat.len ? c->pat.items[i]->loc : c->var_loc;
        struct loc *prev = clause_name(g, c, name);
        if (prev)
            error_note_at(at, *prev, "an earlier clause binds it here",
                          "'%s' is already a variable of an earlier 'for' clause of this generator; give this "
                          "clause's variable another name",
                          name);
    }
}

static struct type *check_gen(struct gen *g, struct type *elem_hint, struct node *owner, bool par)
{
    struct gen *outer_pending = pending_clause;
    pending_clause = g;
    struct type *vt0 = check_iterable(&g->iter);
    pending_clause = outer_pending;
    if (g->key) check_by_count(g);
    gen_depth++;
    scope_push();
    for (struct gen *c = g; c; c = c->next) {
        if (c->early)
            error_at(c->early->loc, "a generator's 'if' filter stands after its last 'for' clause, found one "
                                    "after an earlier clause; move it to the end and join the conditions with "
                                    "'and' (for i in xs for j in ys if p(i) and q(i, j))");
        /* a later clause's iterable sees the earlier clauses' variables */
        struct gen *outer_pending = pending_clause;
        pending_clause = c;
        struct type *vt = c == g ? vt0 : check_iterable(&c->iter);
        pending_clause = outer_pending;
        no_clause_rebind(g, c);
        struct sym *v = new_sym(SYM_LOCAL, c->var, c->var_loc, vt, owner, C.mi->m);
        xs(v)->loop_var = true;
        c->var_sym = v;
        if (c->pat.len)
            declare_loop_pattern(&c->pat, c->var_loc, vt, owner);
        else
            declare_local(v);
    }
    C.par_depth += par;
    struct type *et = check_value(g->elem, elem_hint);
    if (g->cond) {
        check_value(g->cond, ty_bool);
        expect_bool(g->cond, "the generator's 'if' filter");
    }
    if (g->key) check_by_key(g);
    C.par_depth -= par;
    scope_pop();
    gen_depth--;
    return et;
}

struct type *check_gen_of(struct gen *g, struct type *elem_hint, struct node *owner, bool par)
{
    return check_gen(g, elem_hint, owner, par);
}

/* Rewrites a reducer call (sum, product, min, max, any, all with a
 * generator or one array) into N_REDUCE. */
struct type *check_reduce(struct node *n, enum reducer r, struct type *hint)
{
    const char *name = reducer_name[r];
    struct gen *g = n->u.call.gen;
    struct nodes args = n->u.call.args;
    bool par = n->u.call.par;
    if (g && args.len > 0)
        error_at(gen_loc(g), "a generator must be the only argument of '%s'", name);
    if (!g && args.len != 1) {
        if (r == RED_MIN || r == RED_MAX)
            error_at(n->loc, "'%s' takes two values, or one array or generator; found %d arguments", name,
                     args.len);
        error_at(n->loc, "'%s' takes one generator or one array; found %d arguments", name, args.len);
    }
    bool scan = n->u.call.scan;
    struct type *by_hint = hint;
    if (scan && (r == RED_ANY || r == RED_ALL))
        internal_error("check: scan of %s", name);
    struct type *elem_hint = NULL;
    if ((scan || (g && g->key)) && hint && hint->kind == T_ARRAY)
        hint = hint->elem->kind == T_OPTION ? hint->elem->fields[1] : hint->elem;
    if (r == RED_ANY || r == RED_ALL)
        elem_hint = ty_bool;
    else if (hint && (type_is_numeric(hint) || hint == ty_str))
        elem_hint = hint;
    struct type *et;
    struct node *arr = NULL;
    struct loc where;
    if (g) {
        et = check_gen(g, elem_hint, n, par);
        where = g->elem->loc;
    } else {
        arr = args.items[0];
        struct type *t = check_value(arr, elem_hint ? type_array(elem_hint) : NULL);
        if (t->kind != T_ARRAY)
            error_at(arr->loc, "expected an array or a generator for '%s', found %s", name, tn(t));
        et = t->elem;
        where = arr->loc;
    }
    switch (r) {
    case RED_SUM: case RED_PRODUCT:
        if (!type_is_numeric(et))
            error_at(where, "'%s' needs numbers, found elements of type %s", name, tn(et));
        break;
    case RED_MIN: case RED_MAX:
        if (!type_is_ordered(et))
            error_at(where, "'%s' needs ordered elements (numbers, str, or tuples and structs of them), found "
                            "elements of type %s%s",
                     name, tn(et), why_unordered(et));
        break;
    case RED_ANY: case RED_ALL:
        if (et != ty_bool)
            error_at(where, "'%s' needs bool elements, found %s", name, tn(et));
        break;
    }
    if (scan && g && g->key)
        error_at(g->by_loc, "'by' is not part of a scan: a scan gives one entry per element; a keyed reduction is "
                            "%s(x for x in xs by k in 0..n)", name);
    n->kind = N_REDUCE;
    memset(&n->u, 0, sizeof n->u);
    n->u.reduce.par = par;
    n->u.reduce.reducer = r;
    n->u.reduce.gen = g;
    n->u.reduce.array = arr;
    n->u.reduce.elem_type = et;
    n->u.reduce.scan = scan;
    if (scan) return type_array(et);
    if (g && g->key) return keyed_result(n, r, false, et, by_hint);
    return (r == RED_ANY || r == RED_ALL) ? ty_bool : et;
}

/* The variable at the root of an assignment target or push receiver (xs in
 * xs[i][j]) must be a var. verb: "assigned", "pushed to". */
void check_mutable_root(struct node *target, const char *verb)
{
    struct node *root = target;
    while (root->kind == N_INDEX || root->kind == N_FIELD)
        root = root->kind == N_INDEX ? root->u.index.base : root->u.field.base;
    if (root->kind != N_NAME)
        error_at(root->loc, "only variables can be %s, and this is a temporary value", verb);
    struct sym *s = lookup_sym(root->u.name.name);
    if (!s)
        return; /* check_expr reports the undefined name */
    switch (s->kind) {
    case SYM_LOCAL:
        if (xs(s)->loop_var)
            error_at(root->loc, "'%s' is a loop variable and cannot be %s; copy it into a var first", s->name, verb);
        if (!s->is_var)
            error_at(root->loc, "'%s' is a let binding and cannot be %s; declare it with var", s->name, verb);
        xs(s)->assigned = true;
        return;
    case SYM_PARAM:
        error_at(root->loc, "'%s' is a parameter and cannot be %s; parameters are immutable, copy it with var %s = %s",
                 s->name, verb, s->name, s->name);
    case SYM_CONST:
        error_at(root->loc, "'%s' is a constant and cannot be %s", s->name, verb);
    case SYM_FN:
    case SYM_MODULE:
        error_at(root->loc, "'%s' is %s and cannot be %s", s->name, sym_what(s), verb);
    }
}

/* Records what a function reads and calls, for the constant order check. */
static void note_const_read(struct sym *s)
{
    if (C.fn_sym)
        vec_push(&C.fn_sym->reads, s);
}

struct sym *use_const(struct node *n, struct sym *s)
{
    if (xs(s)->poisoned)
        diag_abandon();
    if (C.cnst && xs(s)->order >= C.cnst->order) {
        if (&C.cnst->s == s)
            error_at(n->loc, "constant '%s' is used in its own definition", s->name);
        error_at(n->loc, "constant '%s' is used before its definition (%s); constants are initialised in order",
                 s->name, line_ref(s->loc));
    }
    note_const_read(s);
    return s;
}

/* If base names a module (an import, or os), returns its symbol. */
struct sym *module_base(struct node *base)
{
    if (base->kind != N_NAME)
        return NULL;
    struct sym *s = lookup_sym(base->u.name.name);
    if (!s && map_get_str(&C.locals, base->u.name.name) == NULL && !map_get_str(&C.mi->globals, base->u.name.name))
        error_at(base->loc, "undefined name '%s'; to use a module, import it first: import %s", base->u.name.name,
                 base->u.name.name);
    return s && s->kind == SYM_MODULE ? s : NULL;
}

/* print(a, b, sep=",", end="") and eprint's: the named strings after the
 * values, as in Python. When either is given the args become the values,
 * then sep, then end (the defaults " " and "\n" filled in). */
static void print_named_args(struct node *n, const char *name)
{
    struct nodes *args = &n->u.call.args;
    struct node *named[2] = {NULL, NULL};
    int nvals = 0;
    for (int i = 0; i < args->len; i++) {
        struct node *a = args->items[i];
        if (a->kind != N_ASSIGN) {
            if (named[0] || named[1])
                error_at(a->loc, "a value cannot follow sep= or end= in '%s(...)': the named arguments come last",
                         name);
            nvals++;
            continue;
        }
        const char *key = a->u.assign.target->u.name.name;
        int k = strcmp(key, "sep") == 0 ? 0 : strcmp(key, "end") == 0 ? 1 : -1;
        if (k < 0 || a->u.assign.op != OP_NONE)
            error_at(a->u.assign.target->loc, "'%s' takes only the named arguments sep= and end= (strings), "
                                              "found '%s='", name, key);
        if (named[k])
            error_at(a->u.assign.target->loc, "'%s=' is given twice in '%s(...)'", key, name);
        named[k] = a->u.assign.value;
        check_value(named[k], ty_str);
        expect_type(named[k], ty_str, "for '%s=' of '%s'", key, name);
    }
    if (!named[0] && !named[1])
        return;
    static const char *const dflt[2] = {" ", "\n"};
    for (int k = 0; k < 2; k++)
        if (!named[k]) {
            named[k] = node_new(N_STR, n->loc);
            named[k]->u.slit.s = dflt[k];
            named[k]->u.slit.len = 1;
            check_value(named[k], ty_str);
        }
    args->len = nvals;
    nodes_push(args, named[0]);
    nodes_push(args, named[1]);
    n->u.call.print_vals = 1 + nvals;
}

static struct type *check_call(struct node *n, struct type *hint)
{
    struct node *callee = n->u.call.callee;
    struct gen *g = n->u.call.gen;
    const char *name = NULL;

    if (callee->kind == N_NAME) {
        name = callee->u.name.name;
        struct sym *s = lookup_sym(name);
        struct type *st = s ? NULL : type_find_struct(name);
        if (st && st->sdefined)
            return check_struct_ctor(n, st);
    }
    if (name && !lookup_sym(name) && (strcmp(name, "print") == 0 || strcmp(name, "eprint") == 0))
        print_named_args(n, name);
    for (int i = 0; i < n->u.call.args.len; i++) {
        struct node *a = n->u.call.args.items[i];
        if (a->kind == N_ASSIGN)
            error_at(a->u.assign.target->loc, "'%s=' names a field, but %s is not a struct; only a struct's "
                                              "constructor takes named values (Seg(lo=0.0, hi=1.0)): pass it by "
                                              "position",
                     a->u.assign.target->u.name.name, name ? arena_printf("'%s'", name) : "this");
    }

    if (callee->kind == N_NAME) {
        struct sym *s = lookup_sym(name);
        if (!s) {
            enum reducer r;
            bool two = (strcmp(name, "min") == 0 || strcmp(name, "max") == 0) && !g && n->u.call.args.len == 2;
            if (!two && find_reducer(name, &r))
                return check_reduce(n, r, hint);
            if ((g || n->u.call.args.len == 3) && (strcmp(name, "reduce") == 0 || strcmp(name, "scan") == 0))
                return check_user_reduce(n, name[0] == 's', hint);
            enum builtin bi = find_builtin(name, BK_FN);
            if (bi == BI_NONE) /* assert and slices: the parser's names, which no program can write */
                bi = find_builtin(name, BK_SYNTAX);
            if (bi == BI_NONE && strcmp(name, "exit") == 0)
                error_at(callee->loc, "undefined function 'exit'; to end the program, import os and call os.exit(code)");
            if (bi == BI_NONE && (strcmp(name, "zip") == 0 || strcmp(name, "enumerate") == 0))
                error_at(callee->loc, "'%s' makes an iterable, so it stands only after 'in': for (i, x) in "
                                      "enumerate(xs), for (x, y) in zip(xs, ys)", name);
            if (bi == BI_NONE && strcmp(name, "range") == 0 && n->u.call.args.len >= 1 && n->u.call.args.len <= 3)
                error_at(callee->loc, "'range' makes an iterable, so it stands only after 'in': for i in "
                                      "range(lo, hi, step); an array of it is [i for i in range(...)]");
            if (bi == BI_NONE && strcmp(name, "range") == 0)
                error_at(callee->loc, "undefined function 'range'; a range is written lo..hi (or lo..=hi), as in 'for i in 0..n'");
            if (bi == BI_NONE)
                error_at(callee->loc, "undefined function '%s'%s", name, suggest(name, true));
            if (n->u.call.par)
                error_at(n->loc, "'par' applies only to reductions (sum, product, min, max, any, all) and "
                                 "comprehensions%s",
                         two ? "; min and max with two arguments are plain functions" : "");
            if (g)
                error_at(gen_loc(g), "a generator can only be the argument of a reducer (sum, product, min, max, "
                                     "any, all), not of '%s'", name);
            return check_builtin(n, bi, hint);
        }
        callee->u.name.sym = s;
        if (s->kind != SYM_FN) {
            if (s->kind == SYM_MODULE)
                error_at(callee->loc, "'%s' is a module and cannot be called", name);
            if (s->type && s->type->kind != T_FN)
                error_at(callee->loc, "'%s' is %s of type %s, not a function", name, sym_what(s), tn(s->type));
            struct type *ft = check_value(callee, NULL);
            return check_value_call(n, ft, arena_printf("'%s'", name));
        }
        callee->type = s->type;
        if (n->u.call.par)
            error_at(n->loc, "'par' applies only to reductions (sum, product, min, max, any, all) and "
                             "comprehensions, not to a call of '%s'", name);
        if (g)
            error_at(gen_loc(g), "a generator can only be the argument of a reducer (sum, product, min, max, any, "
                                 "all), not of '%s'", name);
        return check_user_call(n, s, name);
    }

    if (callee->kind == N_FIELD) {
        struct node *base = callee->u.field.base;
        const char *member = callee->u.field.name;
        struct sym *ms = module_base(base);
        if (ms && ms == world_sym) {
            base->u.name.sym = ms;
            base->type = ty_void;
            callee->type = ty_void;
            return check_world(n, member, hint);
        }
        if (n->u.call.par)
            error_at(n->loc, "'par' applies only to reductions (sum, product, min, max, any, all) and comprehensions");
        if (g)
            error_at(gen_loc(g), "a generator can only be the argument of a reducer (sum, product, min, max, any, "
                                 "all), not of '%s'", member);
        if (ms) {
            base->u.name.sym = ms;
            base->type = ty_void;
            callee->type = ty_void;
            if (ms == os_sym) {
                const char *full = arena_printf("os.%s", member);
                enum builtin bi = find_builtin(full, BK_OS);
                if (bi == BI_NONE)
                    error_at(callee->loc, "module 'os' has no function '%s' (it has args, thread_count, clock, "
                                          "exit, getenv, read_file, write_file, append_file)", member);
                return check_builtin(n, bi, hint);
            }
            struct sym *f = map_get_str(&modinfo_of(ms->module)->globals, member);
            if (!f || f->kind == SYM_MODULE)
                error_at(callee->loc, "module '%s' has no function '%s'", ms->name, member);
            if (f->kind != SYM_FN)
                error_at(callee->loc, "'%s.%s' is a constant of type %s, not a function", ms->name, member,
                         tn(f->type));
            return check_user_call(n, f, arena_printf("%s.%s", ms->name, member));
        }
        callee->type = ty_void;
        return check_method(n, base, member, hint);
    }

    struct type *ct = check_value(callee, NULL);
    if (ct->kind == T_FN)
        return check_value_call(n, ct, "this function value");
    error_at(callee->loc, "this expression of type %s cannot be called; only functions and methods can", tn(ct));
}

static struct type *check_name(struct node *n)
{
    const char *name = n->u.name.name;
    struct sym *s = lookup_sym(name);
    if (!s) {
        enum reducer r;
        if (find_builtin(name, BK_FN) != BI_NONE || find_reducer(name, &r))
            error_at(n->loc, "'%s' is a builtin function, not a value; call it, or pass a lambda that calls it: "
                             "lambda x: %s(x)", name, name);
        if (strcmp(name, "True") == 0 || strcmp(name, "False") == 0)
            error_at(n->loc, "undefined name '%s'; Brine's booleans are written %s", name,
                     name[0] == 'T' ? "true" : "false");
        struct loc *later = pending_clause ? clause_name(pending_clause, NULL, name) : NULL;
        if (later)
            error_note_at(n->loc, *later, "a later clause binds it here",
                          "'%s' is not defined yet: a clause's source sees only the variables of the clauses "
                          "before it; put the clause that binds '%s' first",
                          name, name);
        error_at(n->loc, "undefined name '%s'%s", name, suggest(name, false));
    }
    n->u.name.sym = s;
    switch (s->kind) {
    case SYM_LOCAL:
        xs(s)->read = true;
        return s->type;
    case SYM_PARAM:
        return s->type;
    case SYM_CONST:
        use_const(n, s);
        return s->type;
    case SYM_FN:
        return check_fn_value(n, s);
    case SYM_MODULE:
        error_at(n->loc, "'%s' is a module, not a value", name);
    }
    internal_error("bad symbol kind");
}

static struct type *check_array(struct node *n, struct type *hint)
{
    struct nodes *el = &n->u.array;
    struct type *et = hint && hint->kind == T_ARRAY ? hint->elem : NULL;
    if (el->len == 0) {
        if (!et)
            error_at(n->loc, "cannot infer the element type of an empty array; annotate it, e.g. let xs: [int] = []");
        return type_array(et);
    }
    int first = 0;
    if (!et) {
        /* The first element that is not just literals decides the type. */
        for (first = 0; first < el->len; first++)
            if (!is_flexible(el->items[first]))
                break;
        if (first == el->len) /* only literals: the first that is not None ([None, Some(1)]) */
            for (first = 0; first < el->len - 1 && is_none_lit(el->items[first]); first++)
                ;
        et = check_value(el->items[first], NULL);
    }
    for (int i = 0; i < el->len; i++) {
        struct node *e = el->items[i];
        if (e->type == NULL)
            check_value(e, et);
        expect_type(e, et, "for the array element");
    }
    return type_array(et);
}

static struct type *check_fstring(struct node *n)
{
    for (int i = 0; i < n->u.fstr.nparts; i++) {
        struct fpart *p = &n->u.fstr.parts[i];
        if (!p->is_expr)
            continue;
        struct type *t = check_value(p->expr, NULL);
        no_fn_printed(p->expr);
        if (!p->spec)
            continue;
        brt_kind k = BRT_INT;
        switch (t->kind) {
        case T_INT: k = BRT_INT; break;
        case T_I128: k = BRT_I128; break;
        case T_U64: k = BRT_U64; break;
        case T_FLOAT: k = BRT_FLOAT; break;
        case T_BOOL: k = BRT_BOOL; break;
        case T_STR: k = BRT_STR; break;
        case T_ARRAY:
            error_at(p->spec_loc, "format spec '%s' is not valid for %s; arrays print without a spec", p->spec, tn(t));
        case T_TUPLE:
            error_at(p->spec_loc, "format spec '%s' is not valid for %s; %s print without a spec", p->spec, tn(t),
                     t->sname ? "structs" : "tuples");
        case T_FN:
            internal_error("a function value in an f-string");
        case T_OPTION:
            error_at(p->spec_loc, "format spec '%s' is not valid for %s; Options print without a spec (format "
                                  "what it holds: {o.unwrap():%s})", p->spec, tn(t), p->spec);
        case T_VOID:
            internal_error("void value in an f-string");
        }
        const char *msg = brt_spec_check(k, p->spec);
        if (msg)
            error_at(p->spec_loc, "%s", msg);
    }
    return ty_str;
}

struct type *check_expr(struct node *n, struct type *hint)
{
    if (n->type)
        internal_error("expression checked twice (%s)", node_kind_name[n->kind]);
    if (++C.depth > MAX_EXPR_DEPTH)
        error_at(n->loc, "expression nested deeper than %d levels", MAX_EXPR_DEPTH);
    struct type *t = NULL;
    if (!node_is_expr(n))
        internal_error("check_expr of %s", node_kind_name[n->kind]);
    switch (n->ekind) {
    case N_INT:
        check_int_literal(n, hint && type_is_integer(hint) ? hint : ty_int);
        t = n->type;
        break;
    case N_FLOAT:
        t = ty_float;
        break;
    case N_STR:
        t = ty_str;
        break;
    case N_BOOL:
        t = ty_bool;
        break;
    case N_FSTRING:
        t = check_fstring(n);
        break;
    case N_NAME:
        t = check_name(n);
        break;
    case N_UNARY: {
        struct type *ta = check_value(n->u.bin.a, hint);
        if (n->u.bin.op == OP_NEG ? !type_is_numeric(ta) : !type_is_integer(ta))
            error_at(n->loc, "unsupported operand type: %s%s ('%s' works on %s)", op_name(n->u.bin.op), tn(ta),
                     op_name(n->u.bin.op), op_domain[n->u.bin.op]);
        t = ta;
        break;
    }
    case N_BINARY:
        t = check_binary(n, hint);
        break;
    case N_AND:
    case N_OR: {
        const char *op = n->kind == N_AND ? "and" : "or";
        check_value(n->u.bin.a, ty_bool);
        if (n->u.bin.a->type != ty_bool)
            error_at(n->u.bin.a->loc, "expected bool for the left operand of '%s', found %s", op, tn(n->u.bin.a->type));
        check_value(n->u.bin.b, ty_bool);
        if (n->u.bin.b->type != ty_bool)
            error_at(n->u.bin.b->loc, "expected bool for the right operand of '%s', found %s", op,
                     tn(n->u.bin.b->type));
        t = ty_bool;
        break;
    }
    case N_NOT:
        check_value(n->u.bin.a, ty_bool);
        expect_bool(n->u.bin.a, "the operand of 'not'");
        t = ty_bool;
        break;
    case N_COND: {
        struct node *a = n->u.cond.then, *b = n->u.cond.els;
        struct type *ta, *tb;
        check_value(n->u.cond.cond, ty_bool);
        expect_bool(n->u.cond.cond, "the condition of 'if ... else'");
        if (takes_type_from(a, b)) {
            tb = check_value(b, hint);
            ta = check_value(a, tb);
        } else {
            ta = check_value(a, hint);
            tb = check_value(b, ta);
        }
        if (ta != tb)
            error_at(n->loc, "mismatched types: the branches of 'if ... else' are %s and %s", tn(ta), tn(tb));
        t = ta;
        break;
    }
    case N_CALL:
        t = check_call(n, hint);
        break;
    case N_FIELD:
        t = check_field(n);
        break;
    case N_INDEX: {
        struct type *bt = check_value(n->u.index.base, NULL);
        if (bt->kind != T_ARRAY)
            error_at(n->u.index.base->loc, "cannot index %s; only arrays can be indexed", tn(bt));
        check_value(n->u.index.index, ty_int);
        expect_type(n->u.index.index, ty_int, "for the index");
        t = bt->elem;
        break;
    }
    case N_ARRAY:
        t = check_array(n, hint);
        break;
    case N_TUPLE:
        t = check_tuple(n, hint);
        break;
    case N_LAMBDA:
        t = check_lambda(n, hint);
        break;
    case N_LISTCOMP: {
        struct type *eh = hint && hint->kind == T_ARRAY ? hint->elem : NULL;
        if (n->u.listcomp.gen->key)
            error_at(n->u.listcomp.gen->by_loc, "'by' belongs to a reduction (sum, product, min, max, any, all, reduce), "
                                                "not to a comprehension: par sum(x for x in xs by k in 0..n)");
        t = type_array(check_gen(n->u.listcomp.gen, eh, n, n->u.listcomp.par));
        break;
    }
    case N_REDUCE:
        internal_error("check_expr of %s", node_kind_name[n->kind]);
    }
    C.depth--;
    n->type = t;
    if (n->ekind == N_INT || n->ekind == N_UNARY || n->ekind == N_BINARY || n->ekind == N_CALL)
        fold_literal(n);
    return t;
}

/* ---- top level ------------------------------------------------------------- */

static void declare_global(struct modinfo *mi, struct sym *s)
{
    struct sym *old = map_get_str(&mi->globals, s->name);
    if (old)
        error_at(s->loc, "'%s' is already defined in this module (%s, as %s)", s->name, line_ref(old->loc),
                 sym_what(old));
    map_put_str(&mi->globals, s->name, s);
    if (s->kind == SYM_FN || s->kind == SYM_CONST)
        vec_push(&mi->m->syms, s);
}

static int const_order;

/* One top-level declaration of the module C.mi. */
static void declare_decl(void *arg)
{
    struct modinfo *mi = C.mi;
    struct module *m = mi->m;
    struct node *d = arg;
    {
        if (node_is_expr(d) || node_is_stmt(d))
            internal_error("%s at top level", node_kind_name[d->kind]);
        switch (d->dkind) {
        case N_IMPORT:
            /* os is always there; `import os` is allowed and does nothing. */
            if (strcmp(d->u.import.name, "os") == 0)
                break;
            if (!d->u.import.module)
                internal_error("import '%s' was not loaded", d->u.import.name);
            declare_global(mi, new_sym(SYM_MODULE, d->u.import.name, d->loc, NULL, d, d->u.import.module));
            break;
        case N_FN: {
            struct sym *f = new_sym(SYM_FN, d->u.fn.name, d->u.fn.name_loc, d->u.fn.ret, d, m);
            d->u.fn.sym = f;
            declare_global(mi, f);
            break;
        }
        case N_CONST: {
            struct sym *c = new_sym(SYM_CONST, d->u.let.name, d->u.let.name_loc, d->u.let.annot, d, m);
            xs(c)->order = ++const_order;
            d->u.let.sym = c;
            declare_global(mi, c);
            break;
        }
        }
    }
}

static void declare_module(struct modinfo *mi)
{
    for (int i = 0; i < mi->m->decls.len; i++)
        attempt(declare_decl, mi->m->decls.items[i]);
}

static void check_const(void *arg)
{
    struct node *d = arg;
    struct sym *c = d->u.let.sym;
    struct type *annot = d->u.let.annot;
    C.cnst = xs(c);
    check_value(d->u.let.init, annot);
    if (annot)
        expect_type(d->u.let.init, annot, "for '%s'", d->u.let.name);
    c->type = d->u.let.init->type;
    C.cnst = NULL;
}

static void check_fn(void *arg)
{
    struct node *d = arg;
    C.fn = d;
    C.fn_sym = xs(d->u.fn.sym);
    C.loop_depth = 0;
    int np = d->u.fn.nparams;
    d->u.fn.param_syms = arena_alloc(sizeof(struct sym *) * (size_t)(np ? np : 1));
    scope_push(); /* parameters: the body is an inner block and may shadow them */
    for (int i = 0; i < np; i++) {
        const char *pn = d->u.fn.param_names[i];
        struct binding *b = map_get_str(&C.locals, pn);
        if (b && b->level == C.level)
            error_at(d->u.fn.param_locs[i], "parameter '%s' appears twice in '%s'", pn, d->u.fn.name);
        struct sym *p = new_sym(SYM_PARAM, pn, d->u.fn.param_locs[i], d->u.fn.param_types[i], d, C.mi->m);
        d->u.fn.param_syms[i] = p;
        declare_local(p);
    }
    check_block(&d->u.fn.body);
    scope_pop();
    /* os.exit terminates, but it is not a return: FLOW_EXITS is still a
     * missing return (docs/language.md, "Statements"). */
    if (d->u.fn.ret != ty_void && block_flow(&d->u.fn.body) != FLOW_RETURNS)
        error_at(d->u.fn.name_loc, "missing return in '%s': it returns %s, but the end of its body can be reached",
                 d->u.fn.name, tn(d->u.fn.ret));
    C.fn = NULL;
    C.fn_sym = NULL;
}

/* Pass 4: a constant's initialiser may call functions, but nothing those
 * reach may read a constant that is not initialised yet (itself included).
 * max_read is the highest constant order each function reads, directly or
 * through calls; a fixed point handles recursion. */
static void check_const_calls(void *unused)
{
    struct vec fns = {0}, consts = {0};
    for (int i = 0; i < C.nmods; i++) {
        struct module *m = C.mods[i].m;
        for (int j = 0; j < m->syms.len; j++) {
            struct sym *s = m->syms.items[j];
            vec_push(s->kind == SYM_FN ? &fns : &consts, s);
        }
    }
    for (int i = 0; i < fns.len; i++) {
        struct xsym *f = fns.items[i];
        for (int j = 0; j < f->reads.len; j++) {
            struct xsym *c = f->reads.items[j];
            if (c->order > f->max_read) {
                f->max_read = c->order;
                f->max_sym = &c->s;
            }
        }
    }
    for (bool changed = true; changed;) {
        changed = false;
        for (int i = 0; i < fns.len; i++) {
            struct xsym *f = fns.items[i];
            for (int j = 0; j < f->calls.len; j++) {
                struct xsym *g = f->calls.items[j];
                if (g->max_read > f->max_read) {
                    f->max_read = g->max_read;
                    f->max_sym = g->max_sym;
                    changed = true;
                }
            }
        }
    }
    for (int i = 0; i < consts.len; i++) {
        struct xsym *c = consts.items[i];
        for (int j = 0; j < c->calls.len; j++) {
            struct node *call = c->calls.items[j];
            struct xsym *f = xs(call->u.call.fn);
            if (f->max_read >= c->order)
                error_at(call->loc, "constant '%s' calls '%s', which reads constant '%s' before it is initialised "
                                    "(constants are initialised in order)",
                         c->s.name, f->s.name, f->max_sym->name);
        }
    }
}

/* Pass 4b: a function called inside the elements of a par or world
 * reduction or comprehension must not reach a world collective, through
 * any chain of calls (its direct ones are caught in check_world). */
static void check_par_call(void *arg)
{
    struct node *call = arg;
    struct xsym *f = xs(call->u.call.fn);
    if (!f->world_call && !f->world_via)
        return;
    const char *chain = arena_printf("'%s'", f->s.name);
    struct xsym *g = f;
    for (int shown = 0; !g->world_call; g = g->world_via, shown++)
        chain = shown < 8 ? arena_printf("%s calls '%s', which", chain, g->world_via->s.name)
                          : shown == 8 ? arena_printf("%s calls ... which", chain) : chain;
    struct node *w = g->world_call;
    error_note_at(call->loc, w->loc,
                  arena_printf("%s calls 'world.%s' here", chain, w->u.call.callee->u.field.name),
                  "'%s' makes world calls, so it cannot run inside the elements of a par or world reduction or "
                  "comprehension; every rank must make the same world calls in the same order: call it before",
                  f->s.name);
}

static void check_par_calls(void)
{
    struct vec fns = {0};
    for (int i = 0; i < C.nmods; i++) {
        struct module *m = C.mods[i].m;
        for (int j = 0; j < m->syms.len; j++)
            if (((struct sym *)m->syms.items[j])->kind == SYM_FN)
                vec_push(&fns, m->syms.items[j]);
    }
    /* world_via points only at a function that reached a collective
     * before, so following it always ends at a world_call. */
    for (bool changed = true; changed;) {
        changed = false;
        for (int i = 0; i < fns.len; i++) {
            struct xsym *f = fns.items[i];
            for (int j = 0; j < f->calls.len && !f->world_call && !f->world_via; j++) {
                struct xsym *g = f->calls.items[j];
                if (g->world_call || g->world_via) {
                    f->world_via = g;
                    changed = true;
                }
            }
        }
    }
    for (int i = 0; i < C.par_calls.len; i++)
        attempt(check_par_call, C.par_calls.items[i]);
}

/* Pass 5: `fn main()`, and its shape. */
static void check_main_decl(void *arg)
{
    struct program *prog = arg;
    struct sym *main_fn = map_get_str(&modinfo_of(prog->main)->globals, "main");
    if (main_fn && main_fn->kind != SYM_FN)
        error_at(main_fn->loc, "'main' must be a function: fn main():");
    if (main_fn && (main_fn->decl->u.fn.nparams != 0 || main_fn->decl->u.fn.ret != ty_void))
        error_at(main_fn->loc, "'main' must take no parameters and return nothing (arguments come from os.args())");
}

static void check_main_exists(void *arg)
{
    struct program *prog = arg;
    if (!map_get_str(&modinfo_of(prog->main)->globals, "main")) {
        struct loc start = {prog->main->file, 1, 1, 1, 1, 0};
        error_at(start, "no 'fn main()' in %s; the program starts there", source_get(prog->main->file)->name);
    }
}

void check_program(struct program *prog)
{
    memset(&C, 0, sizeof C);
    const_order = 0;
    C.prog = prog;
    C.nmods = prog->modules.len;
    C.mods = arena_alloc(sizeof *C.mods * (size_t)(C.nmods ? C.nmods : 1));
    struct loc nowhere = {0};
    nowhere.file = prog->main->file;
    os_sym = new_sym(SYM_MODULE, "os", nowhere, NULL, NULL, NULL);
    world_sym = new_sym(SYM_MODULE, "world", nowhere, NULL, NULL, NULL);

    for (int i = 0; i < C.nmods; i++) {
        C.mods[i].m = prog->modules.items[i];
        C.mi = &C.mods[i];
        declare_module(C.mi);
    }

    bool structs_ok = true;
    for (int i = 0; i < type_structs.len; i++)
        structs_ok &= attempt(check_struct, type_structs.items[i]);
    if (!structs_ok)
        diag_finish(); /* the types the rest would check are not whole */

    attempt(check_main_decl, prog);

    for (int i = 0; i < C.nmods; i++) {
        C.mi = &C.mods[i];
        struct module *m = C.mi->m;
        for (int j = 0; j < m->decls.len; j++) {
            struct node *d = m->decls.items[j];
            /* A constant whose value failed keeps its annotated type, or
             * is poisoned, as a failed let is. */
            if (d->kind == N_CONST && !attempt(check_const, d)) {
                d->u.let.sym->type = d->u.let.annot;
                xs(d->u.let.sym)->poisoned = !d->u.let.annot;
            }
        }
    }
    for (int i = 0; i < C.nmods; i++) {
        C.mi = &C.mods[i];
        struct module *m = C.mi->m;
        for (int j = 0; j < m->decls.len; j++)
            if (m->decls.items[j]->kind == N_FN)
                attempt(check_fn, m->decls.items[j]);
    }
    attempt(check_const_calls, NULL);
    check_par_calls();
    attempt(check_main_exists, prog);
    diag_finish(); /* exits 1 when there were errors; else prints the warnings */
}
