/*
 * reduce.c: the driver of par reductions and par comprehensions (SPEC 5).
 *
 * The tree (SPEC 5.2): leaves of 16 elements; node (k, j) covers leaves
 * [j*2^k, (j+1)*2^k); a node without a partner moves up unchanged; a leaf
 * without a value keeps its place and its partner moves up unchanged.
 *
 * Memory is O(log n), never O(leaves): leaves are folded in order and pushed
 * on a binary-counter stack of completed aligned subtrees (a subtree of 2^k
 * leaves sits at level k; pushing a leaf merges the top two entries while
 * their levels are equal, like carrying in binary addition). With L leaves
 * the stack ends holding the complete subtrees of L's binary digits, largest
 * first: C1, C2, ..., Cm. In the level-by-level tree the root's left child
 * is C1 and its right child is the rest of the leaves, recursively, so the
 * result is C1 op (C2 op (... op Cm)): fold the stack from the right. Every
 * merge happens right after its right child completes, so the combines run
 * in post-order (SPEC 5.3), and the first panic met, whether in an element
 * or in a combine, is the one SPEC 5.3 reports.
 *
 * leaves() is called for one leaf at a time. Calling it for many leaves at
 * once would evaluate later leaves before the combines of earlier ones, and
 * an element panic there would be reported instead of an earlier combine's
 * overflow. One indirect call per 16 elements is cheap.
 *
 * Shape for the pool: reduce_block() computes any aligned block of 2^k
 * leaves into one slot; the parallel driver will run blocks as tasks and
 * merge the slots with the same stack, in the same order.
 */
#include "rt_internal.h"

#include <stdlib.h>
#include <string.h>

#define MAX_LEVELS 64 /* leaves < 2^60, so the stack never holds more */

typedef struct node {
    _Alignas(16) unsigned char val[16];
    int level;
    bool has;
} node;

typedef struct tree_stack {
    node n[MAX_LEVELS + 1];
    int sp;
} tree_stack;

/* left = left op right, where a side without a value lets the other move up. */
static void merge(const brt_reduce *r, node *left, const node *right)
{
    if (!right->has)
        return;
    if (!left->has) {
        memcpy(left->val, right->val, r->vsize);
        left->has = true;
        return;
    }
    r->combine(r->env, left->val, right->val);
}

/* Pushes the completed subtree already written at st->n[st->sp]; merges
 * equal levels (post-order). */
static void push(const brt_reduce *r, tree_stack *st)
{
    st->sp++;
    while (st->sp >= 2 && st->n[st->sp - 1].level == st->n[st->sp - 2].level) {
        node *left = &st->n[st->sp - 2];
        merge(r, left, &st->n[st->sp - 1]);
        left->level++;
        st->sp--;
    }
}

/* Folds the stack from the right into *out; returns whether it has a value. */
static bool finish(const brt_reduce *r, tree_stack *st, node *out)
{
    if (st->sp == 0) {
        out->has = false;
        return false;
    }
    node acc = st->n[st->sp - 1];
    for (int i = st->sp - 2; i >= 0; i--) {
        node left = st->n[i];
        merge(r, &left, &acc);
        acc = left;
    }
    *out = acc;
    return acc.has;
}

/* The subtree over leaves [first, first + count): an aligned block when
 * count is a power of two, or the ragged tail of the tree. */
static void reduce_block(const brt_reduce *r, int64_t first, int64_t count, node *out)
{
    tree_stack st;
    st.sp = 0;
    for (int64_t k = 0; k < count; k++) {
        node *leaf = &st.n[st.sp]; /* folded in place: no copy */
        unsigned char has = 0;
        r->leaves(r->env, first + k, 1, leaf->val, &has);
        leaf->has = has != 0;
        leaf->level = 0;
        push(r, &st);
    }
    finish(r, &st, out);
}

bool brt_reduce_tree(const brt_reduce *r, void *out)
{
    if (r->n <= 0)
        return false;
    int64_t nleaves = (r->n + BRT_LEAF - 1) / BRT_LEAF;
    node root;
    reduce_block(r, 0, nleaves, &root);
    if (root.has)
        memcpy(out, root.val, r->vsize);
    return root.has;
}

/* ---- par comprehensions ---------------------------------------------------------- */

#define COLLECT_CHUNK 4096

brt_arr *brt_par_collect(const brt_collect *c)
{
    brt_arr *out = brt_arr_new(c->elem, 0);
    /* Sequential for now: chunks in index order append to one array, which
     * is the concatenation the pool will build from per-chunk arrays. */
    for (int64_t lo = 0; lo < c->n; lo += COLLECT_CHUNK) {
        int64_t hi = c->n - lo > COLLECT_CHUNK ? lo + COLLECT_CHUNK : c->n;
        c->body(c->env, lo, hi, &out);
    }
    return out;
}
