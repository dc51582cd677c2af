/*
 * opt_consts.c: the `consts` pass: a read of a module constant whose value
 * is a literal (an int of any width, a float, a bool; a negated float
 * literal too) becomes that literal.
 *
 * A constant is an ir_global, assigned once in main() before the program's
 * own main runs (emit_program.c); to the C compiler it is a variable that
 * any call may change, so `z * MIX1` loads MIX1 and multiplies, and
 * `seed * GOLDEN + 1` with a literal seed is never folded. Written in
 * place, the literal is what gcc folds and what the later passes (ranges,
 * guards) see. Reading a literal cannot fail, so no panic moves; the global
 * itself stays (its initialisation is unchanged) for every read left, such
 * as a function value's or a string's.
 */
#include "ir.h"

/* The literal g's value is, or NULL: a literal of g's own type, or -x of a
 * float literal x (lowering keeps the negation; negating is exact). */
static struct ir_node *literal_of(struct ir_global *g, double *neg)
{
    struct ir_node *v = g->init;
    if (!v || v->type != g->type) return NULL;
    if (v->op == IR_INT || v->op == IR_FLOAT || v->op == IR_BOOL) return v;
    if (v->op == IR_UNARY && v->bop == OP_NEG && v->type == ty_float && v->a && v->a->op == IR_FLOAT) {
        *neg = -v->a->fval;
        return v;
    }
    return NULL;
}

static void rewrite(struct ir_node *n)
{
    if (!n) return;
    ir_each_child(n, rewrite);
    if (n->op != IR_GLOBAL) return;
    double neg = 0;
    struct ir_node *v = literal_of(n->global, &neg);
    if (!v || n->type != v->type) return;
    if (v->op == IR_UNARY) {
        n->op = IR_FLOAT;
        n->fval = neg;
    } else {
        n->op = v->op;
        n->ival = v->ival;
        n->fval = v->fval;
        n->bval = v->bval;
    }
    n->global = NULL;
}

void opt_consts(struct ir_program *ir)
{
    /* the constants first, in order: `let B = A` is a literal for B's reads */
    for (int i = 0; i < ir->globals.len; i++) rewrite(((struct ir_global *)ir->globals.items[i])->init);
    for (int i = 0; i < ir->fns.len; i++) rewrite(((struct ir_fn *)ir->fns.items[i])->body);
}
