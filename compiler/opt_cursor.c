/*
 * opt_cursor.c: pushes into an array kept in locals.
 *
 *     unique out                        unique out
 *     (other unique statements)   =>    (other unique statements)
 *     S                                 block cursor out
 *                                           S    (its pushes into out: push cursor)
 *
 * when out's elements own nothing and S uses out only by pushes that the
 * unique statement covers (`out.push(E)`, unique_steps set, no index
 * path): no read of out, no assignment, store or other push. The emitter
 * writes a cursor block as a comprehension keeps the array it builds: the
 * data, length and room of out in locals while S runs (BRT_CURSOR), the
 * length written back after it (BRT_CURSOR_END), and each push of the
 * block as a store and a compare (BRT_CURSOR_PUSH), not three loads of
 * out's header that any store of the element type might have changed and
 * a store of its length (compact/push_fn: a filter's pushes).
 *
 * Why it keeps the program's meaning: nothing in S reads out, so nothing
 * sees its header's length behind while S runs, and the pushes append the
 * same values in the same order; a push that needs room grows the array as
 * any push does and the cursor takes the new data and room. A return or a
 * panic inside S leaves out's length behind: out is then only released,
 * which frees its data (the data and room its header holds, the ones a
 * growing push wrote) and releases nothing its elements own, as they own
 * nothing.
 *
 * A statement that pushes into several arrays (a partition's `lo.push(x)`
 * and `hi.push(x)`) gets a cursor block for each, one inside another, up
 * to IR_MAX_CURSORS; its pushes into one array are only pushes for the
 * others' blocks. The pass looks no further inside a cursor block: the
 * blocks of a statement are its chain. It runs last, on the statements
 * the emitter writes.
 */
#include "ir.h"

static struct ir_var *mark_var;

/* Marks n's pushes into mark_var: all of them, as ir_only_pushes said. */
static void mark_pushes(struct ir_node *n)
{
    if (!n) return;
    if (n->op == IR_PUSH && n->var == mark_var) n->cursor = true;
    ir_each_child(n, mark_pushes);
}

/* The depth of the chain of cursor blocks at s (s, its one statement, ...),
 * or -1 when one of them is v's. */
static int chain_depth(struct ir_node *s, struct ir_var *v)
{
    int d = 0;
    for (; s->op == IR_BLOCK && s->cursor; s = s->kids[0], d++)
        if (s->var == v) return -1;
    return d;
}

/* The statement of block b at i, `unique v` of a whole array, and the
 * first statement after it that is not a unique statement of another
 * array: its index when it uses v only by pushes, else -1 (also when it
 * is wrapped for v already: a statement met again, shared by two copies
 * of a loop, or when its chain is full). */
static int cursor_stmt(struct ir_node *b, int i)
{
    struct ir_node *u = b->kids[i];
    if (u->op != IR_UNIQUE || u->nkids || u->var->type->kind != T_ARRAY || type_is_ref(u->var->type->elem))
        return -1;
    int j = i + 1;
    while (j < b->nkids && b->kids[j]->op == IR_UNIQUE && b->kids[j]->var != u->var) j++;
    if (j >= b->nkids) return -1;
    int d = chain_depth(b->kids[j], u->var);
    if (d < 0 || d >= IR_MAX_CURSORS) return -1;
    return ir_only_pushes(b->kids[j], u->var) ? j : -1;
}

static void cursor_node(struct ir_node *n);

static void cursor_block(struct ir_node *b)
{
    for (int i = 0; i < b->nkids; i++) {
        int j = cursor_stmt(b, i);
        if (j < 0) {
            cursor_node(b->kids[i]);
            continue;
        }
        struct ir_node *s = b->kids[j], *c = ir_new(IR_BLOCK, s->loc, ty_void);
        c->cursor = true;
        c->var = b->kids[i]->var;
        ir_push_kid(c, s);
        mark_var = c->var;
        mark_pushes(s);
        b->kids[j] = c;
        /* the unique statements between are looked at next (one of another
         * array pushed by the statement wraps it again), then the chain at j,
         * which cursor_node leaves */
    }
}

/* Cursor blocks in every block inside n, except inside a cursor block. */
static void cursor_node(struct ir_node *n)
{
    if (!n) return;
    if (n->op == IR_BLOCK) {
        if (!n->cursor) cursor_block(n);
        return;
    }
    ir_each_child(n, cursor_node);
}

void opt_cursor(struct ir_program *ir)
{
    for (int i = 0; i < ir->fns.len; i++) cursor_node(((struct ir_fn *)ir->fns.items[i])->body);
}
