/*
 * opt_scanloop.c: a sequential scan that a statement evaluates first
 * written as the loop a person writes, before the statement (run by
 * opt_fill.c first, so that the loop's pushes are filled by index):
 *
 *     S(scan OP(E for x in src if F))   =>   var t = []
 *                                            var acc = START
 *                                            for x in src:
 *                                                if F:
 *                                                    acc = acc OP E
 *                                                    t.push(acc)
 *                                            S(t)
 *
 * OP is sum or product of int, u64 or float (START 0 or 1: the reducer's
 * start, the add or multiply checked at the scan's place, as the scan's
 * combine is), or the user's f of scan(f, start, gen) (`let l = acc; let r
 * = E; acc = f(l, r)`, the combine as the optimizer left it, over the
 * combine's own two variables), any element type. Each further clause of
 * the generator is a loop inside the one before, in order; the filter an
 * if around the step. The scan is the value of a let, an assignment, a
 * return, an expression statement or a push into a variable, or the first
 * operand evaluated of an operation or call there (print(scan sum(xs)),
 * scan sum(xs)[k]); the emitters evaluate operands left to right, so
 * nothing runs before it either way. A let's variable is t itself (its
 * initialiser cannot read it); elsewhere t is fresh and read in the scan's
 * place.
 *
 * Why it keeps the program's meaning: the sources, the filter and the
 * elements are evaluated in the same order, once each, and each entry is
 * the running value after its element, pushed in index order: the scan's
 * definition, the start evaluated once, first, as the scan does. min and
 * max, which start from the first element, keep the scan as written, and
 * so do par scans (the tree's order, runtime/scan.c).
 *
 * Why: the scan as written pushes each entry through the runtime into an
 * array grown from empty. As a loop, fill allocates the array once and
 * stores by index (or cursor keeps its length and room in locals), and the
 * loop's element reads get guards like any loop's.
 */
#include "ir.h"

static struct ir_program *P;

static bool number_start(struct type *t)
{
    return t == ty_int || t == ty_u64 || t == ty_float;
}

static bool taken(struct ir_node *n)
{
    if (!n || n->op != IR_REDUCE || !n->scan || n->par || n->world || n->key) return false;
    if (n->user) return n->a && n->c && n->comb_l && n->comb_r;
    return (n->reducer == RED_SUM || n->reducer == RED_PRODUCT) && number_start(n->elem_type);
}

static struct ir_node *start(struct ir_node *rn)
{
    return rn->user ? ir_copy(NULL, rn->a) : ir_mk_start(rn->reducer, rn->elem_type, rn->loc);
}

/* The step: acc = combine(acc, E), then t.push(acc). */
static struct ir_node *step(struct ir_node *rn, struct ir_var *acc, struct ir_var *t)
{
    struct loc at = rn->loc;
    struct ir_node *b = ir_new(IR_BLOCK, at, ty_void);
    if (rn->user) {
        ir_push_kid(b, ir_mk_stmt(IR_LET, rn->comb_l, ir_mk_var(acc, at), at));
        ir_push_kid(b, ir_mk_stmt(IR_LET, rn->comb_r, rn->elem, at));
        ir_push_kid(b, ir_mk_stmt(IR_ASSIGN, acc, rn->c, at));
    } else {
        struct ir_node *x = ir_mk_bin(rn->reducer == RED_SUM ? OP_ADD : OP_MUL, ir_mk_var(acc, at), rn->elem, rn->elem_type);
        x->loc = at;
        ir_push_kid(b, ir_mk_stmt(IR_ASSIGN, acc, x, at));
    }
    ir_push_kid(b, ir_mk_stmt(IR_PUSH, t, ir_mk_var(acc, at), at));
    if (!rn->filter) return b;
    struct ir_node *f = ir_new(IR_IF, at, ty_void);
    f->a = rn->filter;
    f->b = b;
    struct ir_node *w = ir_new(IR_BLOCK, at, ty_void);
    ir_push_kid(w, f);
    return w;
}

/* The loop of clause c (0: the first, over gen_var) around body. */
static struct ir_node *clause_loop(struct ir_node *rn, int c, struct ir_node *body)
{
    const struct ir_iter *it = c == 0 ? &rn->iter : &rn->clauses[c - 1].iter;
    struct ir_node *l = ir_new(it->is_range ? IR_FOR_RANGE : IR_FOR_ARRAY, rn->loc, ty_void);
    l->var = c == 0 ? rn->gen_var : rn->clauses[c - 1].var;
    l->iter = *it;
    l->b = body;
    return l;
}

/* The slot of the scan that statement s evaluates first, if it is one
 * taken: s's value, or the first operand evaluated (left to right, as the
 * emitters evaluate them) of an operation or a call there. */
static struct ir_node **head_scan(struct ir_node *s)
{
    if (s->op != IR_LET && s->op != IR_ASSIGN && s->op != IR_RETURN && s->op != IR_EXPR &&
        !(s->op == IR_PUSH && !s->nkids))
        return NULL;
    struct ir_node **at = &s->a;
    while (*at && !taken(*at)) {
        struct ir_node *n = *at;
        switch (n->eop) {
        case IR_UNARY: case IR_NOT: case IR_BINARY: case IR_CONV: case IR_INDEX: case IR_FIELD: case IR_AND: case IR_OR:
            at = &n->a;
            break;
        case IR_CALL: case IR_BUILTIN: case IR_ARRAY: case IR_TUPLE: case IR_FSTRING:
            if (!n->nkids) return NULL;
            at = &n->kids[0];
            break;
        default: return NULL;
        }
    }
    return *at ? at : NULL;
}

/* The statements replacing s (its first value the scan at slot), in a block
 * to splice. */
static struct ir_node *as_loop(struct ir_node *s, struct ir_node **slot)
{
    struct ir_node *rn = *slot;
    struct loc at = rn->loc;
    struct ir_node *r = ir_new(IR_BLOCK, at, ty_void);
    bool own = s->op == IR_LET && slot == &s->a; /* the let's variable is t itself */
    struct ir_var *t = own ? s->var : ir_new_temp(P, rn->type, at);
    ir_push_kid(r, ir_mk_stmt(IR_LET, t, ir_new(IR_ARRAY, at, rn->type), at));
    struct ir_var *acc = ir_new_temp(P, rn->elem_type, at);
    ir_push_kid(r, ir_mk_stmt(IR_LET, acc, start(rn), at));
    struct ir_node *body = step(rn, acc, t);
    for (int c = rn->nclauses; c >= 1; c--) {
        struct ir_node *l = clause_loop(rn, c, body);
        body = ir_new(IR_BLOCK, at, ty_void);
        ir_push_kid(body, l);
    }
    ir_push_kid(r, clause_loop(rn, 0, body));
    if (!own) {
        *slot = ir_mk_var(t, at);
        ir_push_kid(r, s);
    }
    return r;
}

static void scan_block(struct ir_node *b)
{
    for (int i = 0; i < b->nkids; i++) ir_stmt_blocks(b->kids[i], scan_block);
    for (int i = 0; i < b->nkids; i++) {
        struct ir_node **slot = head_scan(b->kids[i]);
        if (slot) i = ir_splice(b, i, as_loop(b->kids[i], slot));
    }
}

/* (ir.h) */
void ir_scan_loops(struct ir_program *ir)
{
    P = ir;
    for (int i = 0; i < ir->fns.len; i++) scan_block(((struct ir_fn *)ir->fns.items[i])->body);
    P = NULL;
}
