/*
 * opt_consts.c: the `consts` pass: a read of a module constant whose value
 * is a literal (an int of any width, a float, a bool; a negated float
 * literal too) becomes that literal; and an operator of int or float
 * literals that cannot panic (`1 << 20`, `2.0 * HALF`, `float(N) / 3.0`)
 * becomes its value, so `let M = 1 << 20` is a literal to its readers too.
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
#include <math.h>

/* Folding computes what the generated code would: int results as the
 * runtime's checked operators give them, and only where they give a value
 * (an overflow, a zero divisor or a shift out of 0..63 stays for the
 * program to panic at its place); one IEEE operation at a time on doubles
 * (this file, like all of brine, is compiled without contraction), so a
 * folded float has the bits the running program would compute. u64 and
 * i128 stay as written. */
static bool is_int_lit(struct ir_node *n, int64_t *v)
{
    if (!n || n->op != IR_INT || n->type != ty_int) return false;
    *v = (int64_t)(uint64_t)n->ival;
    return true;
}

static bool is_float_lit(struct ir_node *n, double *v)
{
    if (!n || n->op != IR_FLOAT || n->type != ty_float) return false;
    *v = n->fval;
    return true;
}

static void become_int(struct ir_node *n, int64_t v)
{
    n->op = IR_INT;
    n->ival = (unsigned __int128)(__int128)v;
    n->a = n->b = NULL;
}

static void become_float(struct ir_node *n, double v)
{
    n->op = IR_FLOAT;
    n->fval = v;
    n->a = n->b = NULL;
}

static void become_bool(struct ir_node *n, bool v)
{
    n->op = IR_BOOL;
    n->bval = v;
    n->a = n->b = NULL;
}

static bool compare(enum op op, int c) /* c: -1, 0, 1 (a against b) */
{
    switch (op) {
    case OP_EQ: return c == 0;
    case OP_NE: return c != 0;
    case OP_LT: return c < 0;
    case OP_LE: return c <= 0;
    case OP_GT: return c > 0;
    default: return c >= 0; /* OP_GE */
    }
}

static void fold_int_binary(struct ir_node *n, int64_t a, int64_t b)
{
    int64_t r;
    if (op_is_compare(n->bop)) {
        if (n->type == ty_bool) become_bool(n, compare(n->bop, (a > b) - (a < b)));
        return;
    }
    if (n->type != ty_int) return;
    switch (n->bop) {
    case OP_ADD: if (__builtin_add_overflow(a, b, &r)) return; break;
    case OP_SUB: if (__builtin_sub_overflow(a, b, &r)) return; break;
    case OP_MUL: if (__builtin_mul_overflow(a, b, &r)) return; break;
    case OP_DIV:
        if (b == 0 || (b == -1 && a == INT64_MIN)) return;
        r = a / b;
        break;
    case OP_MOD:
        if (b == 0) return;
        r = b == -1 ? 0 : a % b;
        break;
    case OP_BAND: r = a & b; break;
    case OP_BOR: r = a | b; break;
    case OP_BXOR: r = a ^ b; break;
    case OP_SHL:
        if ((uint64_t)b >= 64) return;
        r = (int64_t)((uint64_t)a << b);
        break;
    case OP_SHR:
        if ((uint64_t)b >= 64) return;
        r = a >> b;
        break;
    default: return;
    }
    become_int(n, r);
}

static void fold_float_binary(struct ir_node *n, double a, double b)
{
    if (op_is_compare(n->bop)) {
        if (n->type != ty_bool) return;
        switch (n->bop) {
        case OP_EQ: become_bool(n, a == b); return;
        case OP_NE: become_bool(n, a != b); return;
        case OP_LT: become_bool(n, a < b); return;
        case OP_LE: become_bool(n, a <= b); return;
        case OP_GT: become_bool(n, a > b); return;
        default: become_bool(n, a >= b); return;
        }
    }
    if (n->type != ty_float) return;
    switch (n->bop) {
    case OP_ADD: become_float(n, a + b); return;
    case OP_SUB: become_float(n, a - b); return;
    case OP_MUL: become_float(n, a * b); return;
    case OP_DIV: become_float(n, a / b); return;
    default: return; /* % is fmod: left to the runtime's */
    }
}

/* n, whose operands are folded already: its value when they are literals. */
static void fold(struct ir_node *n)
{
    int64_t a, b;
    double x, y;
    switch (n->op) {
    case IR_BINARY:
        if (is_int_lit(n->a, &a) && is_int_lit(n->b, &b)) fold_int_binary(n, a, b);
        else if (is_float_lit(n->a, &x) && is_float_lit(n->b, &y)) fold_float_binary(n, x, y);
        return;
    case IR_UNARY:
        if (is_int_lit(n->a, &a) && n->type == ty_int) {
            if (n->bop == OP_NEG && a != INT64_MIN) become_int(n, -a);
            else if (n->bop == OP_BNOT) become_int(n, ~a);
        } else if (is_float_lit(n->a, &x) && n->type == ty_float && n->bop == OP_NEG) {
            become_float(n, -x);
        }
        return;
    case IR_CONV: /* float(i): to nearest, as C's conversion */
        if (is_int_lit(n->a, &a) && n->type == ty_float) become_float(n, (double)a);
        return;
    default: return;
    }
}

/* The literal g's value is, or NULL: a literal of g's own type (its
 * initialiser was folded first: `-2.5` and `1 << 20` are literals by then). */
static struct ir_node *literal_of(struct ir_global *g)
{
    struct ir_node *v = g->init;
    if (!v || v->type != g->type) return NULL;
    if (v->op == IR_INT || v->op == IR_FLOAT || v->op == IR_BOOL) return v;
    return NULL;
}

static void rewrite(struct ir_node *n)
{
    if (!n) return;
    ir_each_child(n, rewrite);
    if (n->op != IR_GLOBAL) {
        fold(n);
        return;
    }
    struct ir_node *v = literal_of(n->global);
    if (!v || n->type != v->type) return;
    n->op = v->op;
    n->ival = v->ival;
    n->fval = v->fval;
    n->bval = v->bval;
    n->global = NULL;
}

void opt_consts(struct ir_program *ir)
{
    /* the constants first, in order: `let B = A` is a literal for B's reads */
    for (int i = 0; i < ir->globals.len; i++) rewrite(((struct ir_global *)ir->globals.items[i])->init);
    for (int i = 0; i < ir->fns.len; i++) rewrite(((struct ir_fn *)ir->fns.items[i])->body);
}
