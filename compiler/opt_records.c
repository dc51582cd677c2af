/*
 * opt_records.c: the update of a running record written as the branch
 * seldom taken (the pass `records`).
 *
 *     for j in i + 1..n:                 for j in i + 1..n:
 *         if a[j] < a[m]:          =>        if rare a[j] < a[m]:
 *             m = j                              m = j
 *
 * An if in a loop, without else, that compares two values and, when the
 * comparison holds, assigns variables so that the side it read them in
 * becomes the other side: after `m = j` the side a[m] is a[j]; after
 * `best = d; bi = k` the side best is d. That is a record: a least or
 * greatest value so far (or where it is) replaced by a new one, as in a
 * minimum or maximum search, an argmin, a selection sort's inner loop, a
 * nearest centre. Among n values in random order a new record comes
 * about ln n times (the harmonic number H(n)), so the branch runs seldom
 * after the first iterations; on sorted input it runs every time or never.
 *
 * gcc, without a profile, lays such an if out as often taken: the
 * iteration that keeps the record jumps over the update and then back to
 * the loop's head, two taken jumps an iteration, where the processor
 * takes about one a cycle (selection sort of 8,000 ints: 23 ms; the same
 * loop laid out with the update out of line, one taken jump an iteration:
 * 9 ms). The emitter writes a rare if's condition as BRT_UNLIKELY, which
 * gcc lays out so that keeping the record falls through.
 *
 * An index record (the compared side reads the record through an element:
 * a[m], where the branch assigns m) is marked kept too (`if rare kept`):
 * the emitter opens its branch with BRT_KEEP_BRANCH (an empty asm), so that
 * gcc keeps it a branch. Without it gcc made the argmin of floats a
 * conditional move, and each iteration then waited on the last: the
 * move, the load of a[m] at the new m, the compare (9 cycles an element:
 * 10^7 floats 27.1 ms; kept a branch, predicted, 6.0). A value record
 * (best = x) is left to gcc, which makes some a vector min.
 *
 * Why it keeps the program's meaning: it only marks the if; the condition
 * is evaluated as before, the branch taken when it holds (a hint to the C
 * compiler's layout, not a change of the test).
 *
 * Which ifs: no else; the condition a comparison < <= > >= whose one side
 * reads a variable the branch assigns and is the other side once the
 * branch's values stand in for its variables (ir_same_after, with
 * elements, fields and len allowed); the branch only assignments of
 * scalars (ints, floats, bools), none of whose values reads a variable the
 * branch assigns. The pass runs last, on the loops the emitter writes.
 */
#include "ir.h"

enum { MAX_ASSIGNS = 8 };

static int loop_depth; /* loops around the node being looked at */

/* Whether if s updates a record (the file's comment). */
static bool is_record(struct ir_node *s)
{
    struct ir_node *c = s->a;
    if (s->versioned || s->c || !s->b || c->op != IR_BINARY ||
        (c->bop != OP_LT && c->bop != OP_LE && c->bop != OP_GT && c->bop != OP_GE))
        return false;
    struct ir_node *one[1] = {s->b};
    int n = 1;
    struct ir_node **stmts = s->b->op == IR_BLOCK ? (n = s->b->nkids, s->b->kids) : one;
    if (n < 1 || n > MAX_ASSIGNS) return false;
    struct ir_var *vars[MAX_ASSIGNS];
    struct ir_node *vals[MAX_ASSIGNS];
    for (int i = 0; i < n; i++) {
        if (stmts[i]->op != IR_ASSIGN || type_is_ref(stmts[i]->var->type)) return false;
        vars[i] = stmts[i]->var;
        vals[i] = stmts[i]->a;
    }
    bool reads_own = false;
    for (int k = 0; k < n; k++) {
        for (int i = 0; i < n; i++)
            if (ir_reads(vals[i], vars[k])) return false;
        reads_own |= ir_reads(c, vars[k]);
    }
    struct ir_subst sub = {vars, vals, n};
    return reads_own && (ir_same_after(c->a, c->b, IR_SAME_LOADS, &sub) || ir_same_after(c->b, c->a, IR_SAME_LOADS, &sub));
}

/* Whether record s's condition reads an assigned variable other than as a
 * side of its own (a[m], where the record is m): an index record. */
static bool index_record(const struct ir_node *s)
{
    const struct ir_node *c = s->a;
    for (int k = 0; k < 2; k++) {
        const struct ir_node *side = k ? c->b : c->a;
        if (side->op == IR_VAR) continue;
        struct ir_node *b = s->b;
        int n = b->op == IR_BLOCK ? b->nkids : 1;
        for (int i = 0; i < n; i++)
            if (ir_reads((struct ir_node *)side, (b->op == IR_BLOCK ? b->kids[i] : b)->var)) return true;
    }
    return false;
}

static void mark(struct ir_node *n)
{
    if (!n) return;
    bool loop = n->op == IR_FOR_RANGE || n->op == IR_FOR_ARRAY || n->op == IR_WHILE;
    if (n->op == IR_IF && loop_depth && is_record(n)) {
        n->rare = true;
        n->rare_kept = index_record(n);
    }
    loop_depth += loop;
    ir_each_child(n, mark);
    loop_depth -= loop;
}

void opt_records(struct ir_program *ir)
{
    for (int i = 0; i < ir->fns.len; i++) mark(((struct ir_fn *)ir->fns.items[i])->body);
}
