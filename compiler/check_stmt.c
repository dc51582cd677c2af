/*
 * check_stmt.c: statements and blocks (SPEC sections 4, 6).
 *
 * let and var (with tuple patterns), assignments (plain, compound, to tuple
 * patterns, to indexed and field places), if/while/for, return, break and
 * continue, and the flow facts the function checks need: whether a block
 * always returns (block_flow), which loops break. Each statement is checked
 * under its own recovery point (check.c's attempt), so one error abandons
 * only that statement; a let whose initialiser failed is declared poisoned.
 */
#include "check.h"

#include <stdlib.h>
#include <string.h>

/* ---- statements ----------------------------------------------------------- */

/* let (x, y) = e / var (lo, hi) = e: one local per name, of its field's type. */
static void check_let_pattern(struct node *s)
{
    struct node *init = s->u.let.init;
    struct nodes *pat = &s->u.let.pat;
    struct type *t = check_value(init, NULL);
    if (t->kind != T_TUPLE || t->sname)
        error_at(init->loc, "cannot destructure %s into %d names; only a tuple can be destructured%s", tn(t), pat->len,
                 t->sname ? "; read a struct's fields by name: s.field" : "");
    if (t->nfields != pat->len)
        error_at(s->u.let.name_loc, "the pattern has %d names, but the value is a %s tuple of %d fields", pat->len,
                 tn(t), t->nfields);
    no_repeated_names(pat);
    for (int i = 0; i < pat->len; i++) {
        struct node *nm = pat->items[i];
        struct sym *v = new_sym(SYM_LOCAL, nm->u.name.name, nm->loc, t->fields[i], s, C.mi->m);
        v->is_var = s->u.let.is_var;
        nm->u.name.sym = v;
        nm->type = t->fields[i];
        declare_local(v);
    }
}

static void check_let(struct node *s)
{
    struct type *annot = s->u.let.annot;
    struct node *init = s->u.let.init;
    if (s->u.let.pat.len) {
        check_let_pattern(s);
        return;
    }
    if (!annot && is_none_lit(init))
        error_at(init->loc, "cannot infer the type of None; annotate it: %s %s: Option[int] = None",
                 s->u.let.is_var ? "var" : "let", s->u.let.name);
    check_value(init, annot);
    if (annot)
        expect_type(init, annot, "for '%s'", s->u.let.name);
    struct sym *v = new_sym(SYM_LOCAL, s->u.let.name, s->u.let.name_loc, annot ? annot : init->type, s, C.mi->m);
    v->is_var = s->u.let.is_var;
    s->u.let.sym = v;
    declare_local(v);
}

/* (a, b) = (b, a): each name a var; the right side is evaluated in full
 * before any name is assigned. */
static void check_tuple_assign(struct node *s)
{
    struct node *target = s->u.assign.target, *value = s->u.assign.value;
    struct nodes *el = &target->u.array;
    for (int i = 0; i < el->len; i++) {
        struct node *e = el->items[i];
        if (e->kind != N_NAME)
            error_at(e->loc, "cannot assign to %s in a tuple pattern; each target must be a variable's name",
                     e->kind == N_INDEX ? "an element" : "this expression");
        for (int j = 0; j < i; j++)
            if (strcmp(el->items[j]->u.name.name, e->u.name.name) == 0)
                error_at(e->loc, "'%s' appears twice in the pattern", e->u.name.name);
        check_mutable_root(e, "assigned");
    }
    /* `(a, b) = v` writes a and b without reading them */
    bool *was_read = arena_alloc(sizeof *was_read * (size_t)el->len);
    for (int i = 0; i < el->len; i++) {
        struct sym *v = lookup_sym(el->items[i]->u.name.name);
        was_read[i] = v && xs(v)->read;
    }
    struct type *tt = check_value(target, NULL);
    for (int i = 0; i < el->len; i++) {
        struct sym *v = lookup_sym(el->items[i]->u.name.name);
        if (v)
            xs(v)->read = was_read[i];
    }
    check_value(value, tt);
    expect_type(value, tt, "for the assigned names");
}

static void check_assign(struct node *s)
{
    struct node *target = s->u.assign.target, *value = s->u.assign.value;
    enum op op = s->u.assign.op;
    if (target->kind == N_TUPLE && op == OP_NONE) {
        check_tuple_assign(s);
        return;
    }
    if (target->kind != N_NAME && target->kind != N_INDEX && target->kind != N_FIELD)
        error_at(target->loc, "cannot assign to this expression; only a variable or an element xs[i] can be assigned");
    check_mutable_root(target, "assigned");
    struct sym *plain = op == OP_NONE && target->kind == N_NAME ? lookup_sym(target->u.name.name) : NULL;
    bool was_read = plain && xs(plain)->read;
    struct type *tt = check_value(target, NULL);
    if (plain) /* `x = v` writes x without reading it */
        xs(plain)->read = was_read;
    if (op == OP_NONE) {
        check_value(value, tt);
        if (target->kind == N_NAME)
            expect_type(value, tt, "for '%s'", target->u.name.name);
        else if (target->kind == N_FIELD && target->u.field.base->type->sname)
            expect_type(value, tt, "for field '%s'", target->u.field.name);
        else
            expect_type(value, tt, "for the assigned element");
        return;
    }
    struct type *tv = check_value(value, op == OP_SHL || op == OP_SHR ? NULL
                                         : op == OP_MUL && (tt == ty_str || tt->kind == T_ARRAY) ? ty_int : tt);
    const char *why;
    struct type *r = arith_result(op, tt, tv, true, &why);
    if (!r) /* "mismatched types: int += float" */
        error_at(s->loc, "%s%s", why, tt == ty_float ? float_int_hint(target, tt, value, tv) : "");
    if (r != tt)
        internal_error("compound assignment changes the type");
}

/* Does a block contain a break that leaves the loop whose body it is? */
static bool has_break(struct nodes *b)
{
    for (int i = 0; i < b->len; i++) {
        struct node *s = b->items[i];
        if (!node_is_stmt(s))
            internal_error("%s in a block", node_kind_name[s->kind]);
        switch (s->skind) {
        case N_BREAK:
            return true;
        case N_IF:
            for (int j = 0; j < s->u.if_.conds.len; j++)
                if (has_break(&s->u.if_.blocks[j]))
                    return true;
            if (has_break(&s->u.if_.else_block))
                return true;
            break;
        case N_WHILE: case N_FOR: /* their breaks are their own */
        case N_LET: case N_ASSIGN: case N_CONTINUE: case N_PASS: case N_RETURN: case N_EXPR_STMT:
            break;
        }
    }
    return false;
}

/* The terminator rule (docs/internals.md, "Terminators"): how control
 * leaves one statement. The worst branch wins: FLOW_FALLS_OFF over
 * FLOW_EXITS over FLOW_RETURNS. */
static enum flow stmt_flow(struct node *s)
{
    switch (s->skind) {
    case N_RETURN:
        return FLOW_RETURNS;
    case N_IF: {
        if (!s->u.if_.has_else)
            return FLOW_FALLS_OFF;
        enum flow f = block_flow(&s->u.if_.else_block);
        for (int j = 0; j < s->u.if_.conds.len; j++) {
            enum flow g = block_flow(&s->u.if_.blocks[j]);
            if (g > f)
                f = g;
        }
        return f;
    }
    case N_WHILE: /* `while true:` without a break of its own never ends */
        return s->u.while_.cond->kind == N_BOOL && s->u.while_.cond->u.blit && !has_break(&s->u.while_.body)
                   ? FLOW_RETURNS
                   : FLOW_FALLS_OFF;
    case N_EXPR_STMT: { /* os.exit(...) ends the process: it does not return */
        struct node *e = s->u.expr_stmt.expr;
        return e->kind == N_CALL && e->u.call.builtin == BI_OS_EXIT ? FLOW_EXITS : FLOW_FALLS_OFF;
    }
    case N_LET: case N_ASSIGN: case N_FOR: case N_BREAK: case N_CONTINUE: case N_PASS:
        return FLOW_FALLS_OFF;
    }
    internal_error("%s in a block", node_kind_name[s->kind]);
    return FLOW_FALLS_OFF;
}

/* A block ends as its first statement that does not fall off: the rest is
 * unreachable. */
enum flow block_flow(struct nodes *b)
{
    for (int i = 0; i < b->len; i++) {
        enum flow f = stmt_flow(b->items[i]);
        if (f != FLOW_FALLS_OFF)
            return f;
    }
    return FLOW_FALLS_OFF;
}

/* A condition (of if, elif, while) under its own recovery point, so that an
 * error in it does not hide the errors in the blocks it guards. */
struct cond {
    struct node *n;
    const char *what;
};

static void check_cond(void *arg)
{
    struct cond *c = arg;
    check_value(c->n, ty_bool);
    expect_bool(c->n, c->what);
}

struct iter {
    struct iterable *it;
    struct type *elem;
};

static void check_iter(void *arg)
{
    struct iter *i = arg;
    i->elem = check_iterable(i->it);
}

static void check_stmt(struct node *s)
{
    switch (s->skind) {
    case N_LET:
        check_let(s);
        return;
    case N_ASSIGN:
        check_assign(s);
        return;
    case N_IF:
        for (int i = 0; i < s->u.if_.conds.len; i++) {
            struct cond c = {s->u.if_.conds.items[i], i == 0 ? "the 'if' condition" : "the 'elif' condition"};
            attempt(check_cond, &c);
            check_block(&s->u.if_.blocks[i]);
        }
        check_block(&s->u.if_.else_block);
        return;
    case N_WHILE: {
        struct cond c = {s->u.while_.cond, "the 'while' condition"};
        attempt(check_cond, &c);
        C.loop_depth++;
        check_block(&s->u.while_.body);
        C.loop_depth--;
        return;
    }
    case N_FOR: {
        struct iter it = {&s->u.for_.iter, NULL};
        bool ok = attempt(check_iter, &it);
        check_scope_push();
        struct sym *v = new_sym(SYM_LOCAL, s->u.for_.var, s->u.for_.var_loc, it.elem, s, C.mi->m);
        xs(v)->loop_var = true;
        xs(v)->poisoned = !ok;
        s->u.for_.var_sym = v;
        if (!s->u.for_.pat.len)
            declare_local(v);
        else if (ok)
            declare_loop_pattern(&s->u.for_.pat, s->u.for_.var_loc, it.elem, s);
        else /* the names exist, poisoned, so the body says nothing more */
            for (int i = 0; i < s->u.for_.pat.len; i++) {
                struct node *nm = s->u.for_.pat.items[i];
                struct sym *p = new_sym(SYM_LOCAL, nm->u.name.name, nm->loc, NULL, s, C.mi->m);
                xs(p)->loop_var = xs(p)->poisoned = true;
                nm->u.name.sym = p;
                declare_local(p);
            }
        C.loop_depth++;
        check_block(&s->u.for_.body);
        C.loop_depth--;
        check_scope_pop();
        return;
    }
    case N_BREAK:
    case N_CONTINUE:
        if (C.loop_depth == 0)
            error_at(s->loc, "'%s' outside a loop", s->kind == N_BREAK ? "break" : "continue");
        return;
    case N_PASS:
        return;
    case N_RETURN: {
        struct node *fn = C.fn;
        struct type *rt = fn->u.fn.ret;
        struct node *v = s->u.ret.value;
        if (!v) {
            if (rt != ty_void)
                error_at(s->loc, "'%s' returns %s, but this return has no value", fn->u.fn.name, tn(rt));
            return;
        }
        if (rt == ty_void) {
            check_expr(v, NULL);
            error_at(v->loc, "'%s' has no result type, so its return takes no value; declare one with -> %s",
                     fn->u.fn.name, v->type == ty_void ? "T" : tn(v->type));
        }
        check_value(v, rt);
        expect_type(v, rt, "for the result of '%s'", fn->u.fn.name);
        return;
    }
    case N_EXPR_STMT: {
        struct node *e = s->u.expr_stmt.expr;
        if (e->kind != N_CALL)
            error_at(e->loc, "this expression does nothing; only a call can stand as a statement");
        check_expr(e, NULL);
        return;
    }
    }
    internal_error("%s as a statement", node_kind_name[s->kind]);
}

static void check_stmt_thunk(void *s)
{
    check_stmt(s);
}

/* After an error in `let x = ...`: x is declared all the same, so that its
 * uses are not reported as undefined names: with its annotated type when it
 * has one, else poisoned. */
static void poison_let(struct node *s)
{
    if (s->u.let.pat.len) { /* let (x, y) = ...: each name not declared yet */
        for (int i = 0; i < s->u.let.pat.len; i++) {
            struct node *nm = s->u.let.pat.items[i];
            struct binding *b = map_get_str(&C.locals, nm->u.name.name);
            if (nm->u.name.sym || (b && b->level == C.level))
                continue;
            struct sym *v = new_sym(SYM_LOCAL, nm->u.name.name, nm->loc, NULL, s, C.mi->m);
            v->is_var = s->u.let.is_var;
            xs(v)->poisoned = true;
            nm->u.name.sym = v;
            declare_local(v);
        }
        return;
    }
    struct binding *prev = map_get_str(&C.locals, s->u.let.name);
    if (prev && prev->level == C.level)
        return; /* the error was the redeclaration: the first one stays */
    struct sym *v = new_sym(SYM_LOCAL, s->u.let.name, s->u.let.name_loc, s->u.let.annot, s, C.mi->m);
    v->is_var = s->u.let.is_var;
    xs(v)->poisoned = !s->u.let.annot;
    s->u.let.sym = v;
    declare_local(v);
}

void check_block(struct nodes *b)
{
    check_scope_push();
    for (int i = 0; i < b->len; i++) {
        struct node *s = b->items[i];
        if (!attempt(check_stmt_thunk, s) && s->skind == N_LET)
            poison_let(s);
    }
    check_scope_pop();
}
