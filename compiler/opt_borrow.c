/*
 * opt_borrow.c: lets that borrow an element instead of holding it.
 *
 * `let row = a[i]` holds a reference to an element of a: the emitter
 * retains it and releases it at the end of the block, two atomic operations
 * each time the let runs (once per iteration of the loop around it). When
 * nothing in the rest of the let's block can replace or free that element
 * (no assignment, store or push to a's variable) and the let's own variable
 * is never written, the element outlives the let, so the let borrows it
 * (IR_LET borrow: no retain, no release). A borrowed value that escapes
 * (returned, stored, assigned, captured by a var) is retained where it
 * escapes, as every borrowed value is (emit_c.c take()), so the program's
 * values and their lifetimes are unchanged.
 */
#include "ir.h"

/* The variable at the root of an index chain a[i][j]..., or NULL. */
static struct ir_var *index_root(struct ir_node *n)
{
    if (n->op != IR_INDEX) return NULL;
    while (n->op == IR_INDEX) n = n->a;
    return n->op == IR_VAR ? n->var : NULL;
}

/* Whether statement s (or anything in it) assigns, stores into or pushes to v. */
static bool writes(struct ir_node *s, struct ir_var *v)
{
    if (!s) return false;
    if (ir_is_expr(s)) return ir_mutates(s, v);
    if (s->op != IR_BLOCK && (ir_mutates(s->a, v) || (s->op != IR_IF && s->op != IR_WHILE && ir_mutates(s->b, v)) ||
                              (s->op == IR_FOR_RANGE && (ir_mutates(s->iter.lo, v) || ir_mutates(s->iter.hi, v))) ||
                              (s->op == IR_FOR_ARRAY && ir_mutates(s->iter.array, v))))
        return true;
    if (s->op == IR_STORE || s->op == IR_PUSH)
        for (int i = 0; i < s->nkids; i++)
            if (ir_mutates(s->kids[i], v)) return true;
    switch (s->sop) {
    case IR_ASSIGN: case IR_STORE: case IR_PUSH: case IR_UNIQUE: /* a unique statement may copy v's rows */
        return s->var == v;
    case IR_BLOCK:
        for (int i = 0; i < s->nkids; i++)
            if (writes(s->kids[i], v)) return true;
        return false;
    case IR_IF: return writes(s->b, v) || writes(s->c, v);
    case IR_WHILE: return ir_mutates(s->a, v) || writes(s->b, v);
    case IR_FOR_RANGE: case IR_FOR_ARRAY: return writes(s->b, v);
    case IR_LET: case IR_EXPR: case IR_RETURN: case IR_BREAK: case IR_CONTINUE: case IR_UNREACHABLE:
        return false;
    }
    return false;
}

static void borrow_in(struct ir_node *s)
{
    if (!s || ir_is_expr(s)) return;
    switch (s->sop) {
    case IR_BLOCK:
        for (int i = 0; i < s->nkids; i++) {
            struct ir_node *k = s->kids[i];
            struct ir_var *root = k->op == IR_LET && type_is_ref(k->var->type) ? index_root(k->a) : NULL;
            if (root && root != k->var) {
                bool safe = true;
                for (int j = i + 1; j < s->nkids && safe; j++)
                    safe = !writes(s->kids[j], root) && !writes(s->kids[j], k->var);
                k->borrow = safe;
            }
            borrow_in(k);
        }
        return;
    case IR_IF:
        borrow_in(s->b);
        borrow_in(s->c);
        return;
    case IR_WHILE: case IR_FOR_RANGE: case IR_FOR_ARRAY:
        borrow_in(s->b);
        return;
    case IR_LET: case IR_ASSIGN: case IR_STORE: case IR_PUSH: case IR_UNIQUE: case IR_EXPR: case IR_RETURN:
    case IR_BREAK: case IR_CONTINUE: case IR_UNREACHABLE:
        return;
    }
}

void opt_borrow(struct ir_program *ir)
{
    for (int i = 0; i < ir->fns.len; i++) borrow_in(((struct ir_fn *)ir->fns.items[i])->body);
}
