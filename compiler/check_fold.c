/*
 * check_fold.c: integer literal expressions evaluated while checking
 * (SPEC section 3).
 *
 * An expression of integer literals alone (the operators + - * / % & | ^,
 * unary - and ~, parentheses) counts as a literal: it takes its context's
 * type like one, and like a literal that does not fit, one that overflows
 * that type is a compile error, at the operation that overflows, with the
 * panic's own words (SPEC section 4: "integer overflow in addition", "division
 * by zero"). So `let x: u64 = 18446744073709551615 + 1` is refused where a
 * program would otherwise panic on its first run.
 *
 * check_expr calls fold_literal on every integer literal, unary and binary
 * node after typing it, children first; the value of each folded node is
 * kept in a map from the node, so a chain of 100,000 additions is folded in
 * linear time and no recursion. A node whose operands are not all folded
 * (a name, a call, a shift) is not folded, and nor is anything above it:
 * `x + 1` and `(1 << 3) + 2` are checked at run time as before. The
 * wrapping methods on folded values fold too (they never fail), so
 * `5.wrapping_mul(3) + 18446744073709551601` with a u64 context is refused.
 * The values only decide errors: lowering still emits the expression, which
 * gives the same value at run time.
 */
#include "check.h"

#include <string.h>

static struct map folded; /* struct node * -> __int128 * (its value) */

static const __int128 *value_of(struct node *n)
{
    return map_get_ptr(&folded, n);
}

static void keep(struct node *n, __int128 v)
{
    __int128 *p = arena_alloc(sizeof *p);
    *p = v;
    map_put_ptr(&folded, n, p);
}

static bool fits(__int128 v, struct type *t)
{
    if (t == ty_int)
        return v >= INT64_MIN && v <= INT64_MAX;
    if (t == ty_u64)
        return v >= 0 && v <= (__int128)UINT64_MAX;
    return true; /* i128: every __int128 */
}

static const char *range_of(struct type *t)
{
    if (t == ty_int)
        return "int holds -9223372036854775808 to 9223372036854775807";
    if (t == ty_u64)
        return "u64 holds 0 to 18446744073709551615";
    return "i128 holds -170141183460469231731687303715884105728 to 170141183460469231731687303715884105727";
}

static _Noreturn void overflow(struct node *n, const char *what, struct type *t)
{
    error_at(n->loc, "integer overflow in %s: this literal expression does not fit in %s (%s)", what, tn(t),
             range_of(t));
}

/* v reduced modulo 2^bits of t, as t reads those bits. */
static __int128 wrap(unsigned __int128 v, struct type *t)
{
    if (t == ty_int)
        return (int64_t)(uint64_t)v;
    if (t == ty_u64)
        return (uint64_t)v;
    return (__int128)v;
}

/* x.wrapping_add(y) and its kin on folded values: never an error, but the
 * result is a literal value the expression around it may overflow with. */
static void fold_wrapping(struct node *n)
{
    enum builtin m = n->u.call.builtin;
    struct node *recv = n->u.call.recv;
    if (!recv || recv->type != n->type)
        return;
    if (m != M_WRAPPING_ADD && m != M_WRAPPING_SUB && m != M_WRAPPING_MUL && m != M_WRAPPING_NEG)
        return;
    const __int128 *a = value_of(recv);
    if (!a)
        return;
    unsigned __int128 ua = (unsigned __int128)*a;
    if (m == M_WRAPPING_NEG) {
        keep(n, wrap(0 - ua, n->type));
        return;
    }
    struct node *arg = n->u.call.args.len == 1 ? n->u.call.args.items[0] : NULL;
    const __int128 *b = arg && arg->type == n->type ? value_of(arg) : NULL;
    if (!b)
        return;
    unsigned __int128 ub = (unsigned __int128)*b;
    keep(n, wrap(m == M_WRAPPING_ADD ? ua + ub : m == M_WRAPPING_SUB ? ua - ub : ua * ub, n->type));
}

void fold_literal(struct node *n)
{
    struct type *t = n->type;
    if (!t || !type_is_integer(t))
        return;
    if (n->ekind == N_INT) {
        /* check_int_literal has refused one that does not fit */
        unsigned __int128 m = n->u.ilit.value;
        keep(n, n->u.ilit.neg ? (__int128)(0 - m) : (__int128)m);
        return;
    }
    if (n->ekind == N_UNARY) {
        const __int128 *a = value_of(n->u.bin.a);
        if (!a)
            return;
        __int128 r;
        if (n->u.bin.op == OP_NEG) {
            if (__builtin_sub_overflow((__int128)0, *a, &r) || !fits(r, t))
                overflow(n, "negation", t);
        } else { /* OP_BNOT */
            r = t == ty_u64 ? *a ^ (__int128)UINT64_MAX : ~*a;
        }
        keep(n, r);
        return;
    }
    if (n->ekind == N_CALL) {
        fold_wrapping(n);
        return;
    }
    if (n->ekind != N_BINARY)
        return;
    const __int128 *pa = value_of(n->u.bin.a), *pb = value_of(n->u.bin.b);
    if (!pa || !pb || n->u.bin.a->type != t || n->u.bin.b->type != t)
        return;
    __int128 a = *pa, b = *pb, r = 0;
    __int128 min = t == ty_int ? INT64_MIN : t == ty_u64 ? 0 : (__int128)((unsigned __int128)1 << 127);
    switch (n->u.bin.op) {
    case OP_ADD:
        if (__builtin_add_overflow(a, b, &r) || !fits(r, t))
            overflow(n, "addition", t);
        break;
    case OP_SUB:
        if (__builtin_sub_overflow(a, b, &r) || !fits(r, t))
            overflow(n, "subtraction", t);
        break;
    case OP_MUL:
        if (__builtin_mul_overflow(a, b, &r) || !fits(r, t))
            overflow(n, "multiplication", t);
        break;
    case OP_DIV: case OP_MOD:
        if (b == 0)
            error_at(n->loc, "division by zero in this literal expression");
        if (a == min && b == -1 && t != ty_u64) {
            if (n->u.bin.op == OP_DIV)
                overflow(n, "division", t);
            r = 0; /* MIN % -1 */
        } else {
            r = n->u.bin.op == OP_DIV ? a / b : a % b; /* toward zero; the dividend's sign */
        }
        break;
    case OP_BAND: r = a & b; break;
    case OP_BOR:  r = a | b; break;
    case OP_BXOR: r = a ^ b; break;
    case OP_SHL: case OP_SHR: /* not literal expressions: checked at run time */
    case OP_EQ: case OP_NE: case OP_LT: case OP_LE: case OP_GT: case OP_GE:
    case OP_NEG: case OP_BNOT: case OP_NONE:
        return;
    }
    keep(n, r);
}

