/*
 * emit_quiet.c: which code cannot panic, so that it costs the call chain
 * nothing (runtime/frames.c), and which functions recurse.
 *
 * A call writes its place into its frame's slot before it runs and clears
 * it after, so that a panic inside reads the chain. Nothing reads it when
 * nothing inside can panic, so the emitter (emit_c.c) leaves the stores out
 * for two kinds of code:
 *
 *   - a quiet expression: literals, variables, float arithmetic,
 *     comparisons, bitwise operators, conversions to float, the math
 *     functions, the wrapping and bit methods, tuples and their fields,
 *     integer arithmetic, shifts and conversions the optimizer proved
 *     cannot fail, and calls of quiet functions;
 *     and, where it is written (quiet_here: the stores around an expression
 *     written in place of a call), an element read that the loop version
 *     being written proves in range (in_guarded_loop, a jam's slot);
 *   - a quiet function: one whose every statement is quiet (no store into
 *     an array, no push, no par construct, no call of another kind), which
 *     calls no function that is not quiet, and is not recursive.
 *
 * A quiet function has no stack check either, which is what makes it truly
 * unable to panic: the stack it uses is bounded. Its caller passed its own
 * check, so it starts above the floor of the stack (os.c), and the quiet
 * calls below it (none recursive) end at most their frames deeper: a
 * budget of QUIET_BUDGET bytes of values along any path of quiet calls
 * (each IR node's value counted at its C size, at least 16 bytes, as tcc
 * keeps every temporary in a slot of its own) keeps that well inside the
 * 256 KiB margin under the floor, with room for the math functions they
 * call. A function over the budget keeps its check and its calls' stores.
 *
 * The other half (fn_recursive, below): the functions on a cycle of calls,
 * which the C compiler must not write in place, so that the slots last as
 * long as the stack does.
 */
#include "emit_c.h"

#define QUIET_BUDGET ((intptr_t)32 << 10)

/* The memo in CG->quiet, by function: */
enum { Q_UNKNOWN, Q_VISITING, Q_LOUD, Q_QUIET };

/* The bytes of values of n and what it holds (quiet code only). */
static intptr_t bytes(struct ir_node *n);
static intptr_t fn_cost(struct ir_fn *f);

static bool quiet_in(struct ir_node *n, bool here);

static bool quiet_kids(struct ir_node *n, bool here)
{
    if (!quiet_in(n->a, here) || !quiet_in(n->b, here) || !quiet_in(n->c, here)) return false;
    for (int i = 0; i < n->nkids; i++)
        if (!quiet_in(n->kids[i], here)) return false;
    return true;
}

bool quiet_expr(struct ir_node *n)
{
    return quiet_in(n, false);
}

/* here: also an element read whose index the code being written proves
 * (the guarded version of its loop, a jam's slot: in_guarded_loop), which
 * holds only where it is emitted, never for a whole function. */
bool quiet_here(struct ir_node *n)
{
    return quiet_in(n, true);
}

static bool quiet_in(struct ir_node *n, bool here)
{
    if (!n) return true;
    switch (n->eop) {
    case IR_INT: case IR_FLOAT: case IR_BOOL: case IR_VAR: case IR_GLOBAL: return true;
    case IR_NOT: case IR_AND: case IR_OR: case IR_COND: case IR_TUPLE: case IR_FIELD: break;
    case IR_UNARY:
        if (n->optype != ty_float && n->bop != OP_BNOT && !(n->no_overflow && n->optype == ty_int)) return false;
        break;
    case IR_BINARY:
        if (n->optype == ty_float) {
            if (n->bop == OP_MOD) return false; /* fmod: a call, harmless, but keep it plain */
        } else if (op_class[n->bop] != OPC_CMP && op_class[n->bop] != OPC_BITS
                   && !(n->no_overflow && n->optype == ty_int
                        && (n->bop == OP_ADD || n->bop == OP_SUB || n->bop == OP_MUL || n->bop == OP_DIV
                            || n->bop == OP_MOD))
                   && !(n->no_overflow && op_class[n->bop] == OPC_SHIFT && (n->optype == ty_int || n->optype == ty_u64))) {
            return false;
        }
        break;
    case IR_CONV:
        if (n->type != ty_float && n->type != n->optype && !(n->no_overflow && n->type == ty_u64 && n->optype == ty_int))
            return false;
        break;
    case IR_BUILTIN:
        switch (n->builtin) {
        /* the wrapping and bit methods of int and u64 cannot fail */
        case M_WRAPPING_ADD: case M_WRAPPING_SUB: case M_WRAPPING_MUL: case M_WRAPPING_NEG: case M_ROTATE_LEFT:
        case M_ROTATE_RIGHT: case M_COUNT_ONES: case M_LEADING_ZEROS: case M_TRAILING_ZEROS:
            break;
        default:
            if (!math_fn(n->builtin)) return false;
        }
        break;
    case IR_CALL: if (!quiet_fn(n->fn)) return false; break;
    case IR_INDEX:
        if (!here || !(in_guarded_loop(n) || (n->slot && CG->slot_names))) return false;
        break;
    case IR_STR: case IR_ARRAY: case IR_FSTRING: case IR_LISTCOMP: case IR_REDUCE:
    case IR_FNVAL: case IR_CALLV: case IR_GUARD_TEST:
        return false;
    }
    return quiet_kids(n, here);
}

static bool quiet_stmt(struct ir_node *s)
{
    if (!s) return true;
    switch (s->sop) {
    case IR_BLOCK:
        for (int i = 0; i < s->nkids; i++)
            if (!quiet_stmt(s->kids[i])) return false;
        return true;
    case IR_LET: case IR_ASSIGN: case IR_EXPR: case IR_RETURN: return quiet_expr(s->a);
    case IR_IF: return quiet_expr(s->a) && quiet_stmt(s->b) && quiet_stmt(s->c);
    case IR_WHILE: return quiet_expr(s->a) && quiet_stmt(s->b);
    case IR_FOR_RANGE:
        return quiet_expr(s->iter.lo) && quiet_expr(s->iter.hi) && quiet_stmt(s->b);
    case IR_BREAK: case IR_CONTINUE: return true;
    /* the end of a function the checker proved returns: never reached */
    case IR_UNREACHABLE: return true;
    case IR_STORE: case IR_PUSH: case IR_UNIQUE: case IR_FOR_ARRAY: return false;
    }
    return false;
}

/* A for loop that accumulates a math element (in it, or in a function
 * written in place) may run in lanes (emit_loops.c's
 * accumulate_in_lanes): its buffer and the lanes functions' frames (about
 * 2 KiB) are counted as this much. */
#define LANES_STACK 4096
static bool calls_lanes_math(struct ir_node *n)
{
    if (!n) return false;
    if ((n->op == IR_BUILTIN && math_fn(n->builtin)) || n->op == IR_CALL) return true;
    if (calls_lanes_math(n->a) || calls_lanes_math(n->b) || calls_lanes_math(n->c)) return true;
    for (int i = 0; i < n->nkids; i++)
        if (calls_lanes_math(n->kids[i])) return true;
    return false;
}

static intptr_t bytes(struct ir_node *n)
{
    if (!n) return 0;
    intptr_t b = 16;
    if (n->op == IR_FOR_RANGE && calls_lanes_math(n->b)) b += LANES_STACK;
    if (n->type && n->type != ty_void && n->type->kind == T_TUPLE) {
        size_t s = c_size(n->type, NULL);
        if ((intptr_t)s > b) b = (intptr_t)s;
    }
    b += bytes(n->a) + bytes(n->b) + bytes(n->c);
    for (int i = 0; i < n->nkids; i++) b += bytes(n->kids[i]);
    if (n->op == IR_FOR_RANGE) b += bytes(n->iter.lo) + bytes(n->iter.hi);
    return b;
}

/* The most bytes of quiet callees' values below a frame of n. */
static intptr_t deepest_call(struct ir_node *n)
{
    if (!n) return 0;
    intptr_t d = 0, x;
    if (n->op == IR_CALL) d = fn_cost(n->fn);
    struct ir_node *ch[] = {n->a, n->b, n->c, n->op == IR_FOR_RANGE ? n->iter.lo : NULL,
                            n->op == IR_FOR_RANGE ? n->iter.hi : NULL};
    for (size_t i = 0; i < sizeof ch / sizeof ch[0]; i++)
        if ((x = deepest_call(ch[i])) > d) d = x;
    for (int i = 0; i < n->nkids; i++)
        if ((x = deepest_call(n->kids[i])) > d) d = x;
    return d;
}

/* A quiet function's bytes of values, its own and its deepest quiet
 * callees' (known quiet: the memo holds its cost). */
static intptr_t fn_cost(struct ir_fn *f)
{
    intptr_t v = (intptr_t)map_get_ptr(&CG->quiet, f);
    return v >= Q_QUIET ? v - Q_QUIET : 0;
}

bool quiet_fn(struct ir_fn *f)
{
    intptr_t v = (intptr_t)map_get_ptr(&CG->quiet, f);
    if (v == Q_VISITING || v == Q_LOUD) return false; /* recursive, or not quiet */
    if (v >= Q_QUIET) return true;
    map_put_ptr(&CG->quiet, f, (void *)(intptr_t)Q_VISITING);
    bool q = quiet_stmt(f->body);
    intptr_t cost = q ? bytes(f->body) + 64 * (f->nparams + 1) + deepest_call(f->body) : 0;
    q = q && cost <= QUIET_BUDGET;
    map_put_ptr(&CG->quiet, f, (void *)(q ? Q_QUIET + cost : (intptr_t)Q_LOUD));
    return q;
}

/* ---- recursion: each of its frames a C frame of its own ------------------- */

/* The chain's slots (runtime/frames.c) are one per 16 bytes of a thread's
 * stack, as no C frame is smaller, so the stack check panics before they
 * run out. A C compiler that writes a recursive call in place breaks that:
 * gcc -O2 writes a small recursion 8 levels deep into one C frame of 32
 * bytes, 9 Brine frames and slots, and the slots ran out first (a crash
 * where "stack overflow" was due). So a function on a cycle of calls is
 * never written in place by the C compiler (BRT_NOINLINE): every frame of a
 * recursion is a C frame, with its own stack check. A call through a
 * function value may reach any function whose value is taken. */

struct calls {
    struct vec callees;  /* struct ir_fn * */
    bool through_values; /* an IR_CALLV */
};

static void collect_calls(struct ir_node *n, struct calls *c, struct vec *taken)
{
    if (!n) return;
    if (n->op == IR_CALL) vec_push(&c->callees, n->fn);
    if (n->op == IR_CALLV) c->through_values = true;
    if (n->op == IR_FNVAL) vec_push(taken, n->fn);
    collect_calls(n->a, c, taken), collect_calls(n->b, c, taken), collect_calls(n->c, c, taken);
    for (int i = 0; i < n->nkids; i++) collect_calls(n->kids[i], c, taken);
    if (n->op == IR_FOR_RANGE || n->op == IR_FOR_ARRAY || n->op == IR_REDUCE || n->op == IR_LISTCOMP) {
        collect_calls(n->iter.lo, c, taken), collect_calls(n->iter.hi, c, taken);
        collect_calls(n->iter.array, c, taken);
    }
    if (n->op == IR_REDUCE || n->op == IR_LISTCOMP) {
        collect_calls(n->elem, c, taken), collect_calls(n->filter, c, taken), collect_calls(n->key, c, taken);
        for (int i = 0; i < n->nclauses; i++) {
            struct ir_iter *it = &n->clauses[i].iter;
            collect_calls(it->lo, c, taken), collect_calls(it->hi, c, taken), collect_calls(it->array, c, taken);
        }
    }
}

/* Tarjan's strongly connected components over the call graph. */
struct tarjan {
    struct ir_fn **fns;
    struct calls *calls;
    struct vec taken;
    int *index, *low, *stack, nstack, next;
    bool *on, *cycle;
};

static int fn_index(struct ir_fn *f)
{
    return (int)(intptr_t)map_get_ptr(&CG->recursive, f) - 1;
}

static void strong(struct tarjan *t, int v)
{
    t->index[v] = t->low[v] = ++t->next;
    t->stack[t->nstack++] = v;
    t->on[v] = true;
    struct calls *c = &t->calls[v];
    int nout = c->callees.len + (c->through_values ? t->taken.len : 0);
    bool self = false;
    for (int k = 0; k < nout; k++) {
        struct ir_fn *g = k < c->callees.len ? c->callees.items[k] : t->taken.items[k - c->callees.len];
        int w = fn_index(g);
        if (w < 0) continue;
        if (w == v) self = true;
        if (!t->index[w]) {
            strong(t, w);
            if (t->low[w] < t->low[v]) t->low[v] = t->low[w];
        } else if (t->on[w] && t->index[w] < t->low[v]) {
            t->low[v] = t->index[w];
        }
    }
    if (t->low[v] != t->index[v]) return;
    int first = t->nstack;
    do first--; while (t->stack[first] != v);
    bool cycle = self || t->nstack - first > 1;
    for (int i = first; i < t->nstack; i++) {
        t->on[t->stack[i]] = false;
        t->cycle[t->stack[i]] = cycle;
    }
    t->nstack = first;
}

bool fn_recursive(struct ir_fn *f)
{
    struct vec *fns = &CG->ir->fns;
    if (!CG->recursive_done) {
        /* CG->recursive: ir_fn -> 1 + its index, then -1 - index when on a cycle */
        struct tarjan t = {0};
        int n = fns->len;
        t.calls = arena_alloc(((size_t)n + 1) * sizeof *t.calls);
        t.index = arena_alloc(((size_t)n + 1) * sizeof(int));
        t.low = arena_alloc(((size_t)n + 1) * sizeof(int));
        t.stack = arena_alloc(((size_t)n + 1) * sizeof(int));
        t.on = arena_alloc(((size_t)n + 1) * sizeof(bool));
        t.cycle = arena_alloc(((size_t)n + 1) * sizeof(bool));
        for (int i = 0; i < n; i++) map_put_ptr(&CG->recursive, fns->items[i], (void *)(intptr_t)(i + 1));
        for (int i = 0; i < n; i++) collect_calls(((struct ir_fn *)fns->items[i])->body, &t.calls[i], &t.taken);
        for (int i = 0; i < n; i++)
            if (!t.index[i]) strong(&t, i);
        for (int i = 0; i < n; i++)
            if (t.cycle[i]) map_put_ptr(&CG->recursive, fns->items[i], (void *)(intptr_t)-(i + 1));
        CG->recursive_done = true;
    }
    return (intptr_t)map_get_ptr(&CG->recursive, f) < 0;
}
