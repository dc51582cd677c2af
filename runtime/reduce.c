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
 * Two ways through, one result:
 *   - exact: leaves() one leaf at a time, on the calling thread. Every leaf
 *     and combine runs in post-order, so the first panic met is SPEC 5.3's.
 *   - fast: leaves() for up to BRT_LEAF_CHUNK leaves per call (the emitter
 *     folds them in SIMD lanes, each leaf still left to right), and with
 *     enough leaves, aligned blocks of 2^k leaves as tasks on the pool, each
 *     result in its slot, the slots merged by the same stack in task order.
 *     Chunked calls evaluate later leaves before earlier combines, and tasks
 *     run in any order, so the fast way cannot tell which panic comes first:
 *     after any panic it is abandoned and the exact way runs from the start.
 * Task sizes depend on n alone, never on the thread count; and they could
 * not change the bits anyway, since every task is a subtree of the one tree.
 */
#include "rt_internal.h"

#include <stdlib.h>
#include <string.h>
#include <stdatomic.h>

#define MAX_LEVELS 64 /* leaves < 2^60, so the stack never holds more */

typedef struct node {
    _Alignas(16) unsigned char val[16];
    int64_t first; /* a unit's index (the unit ranges of reduce_fast) */
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

#define CHUNK_LEVEL 6 /* BRT_LEAF_CHUNK == 1 << CHUNK_LEVEL */

/* Folds BRT_LEAF_CHUNK leaf values in place into vals[0]/has[0]: pairs at
 * distance 1, then 2, 4, ...: the complete subtree's level rule. */
static void fold_chunk(const brt_reduce *r, unsigned char *vals, unsigned char *has)
{
    size_t vs = r->vsize;
    for (int step = 1; step < BRT_LEAF_CHUNK; step *= 2) {
        for (int j = 0; j < BRT_LEAF_CHUNK; j += 2 * step) {
            if (!has[j + step])
                continue;
            if (!has[j]) {
                memcpy(vals + j * vs, vals + (j + step) * vs, vs);
                has[j] = 1;
            } else {
                r->combine(r->env, vals + j * vs, vals + (j + step) * vs);
            }
        }
    }
}

/* The subtree over leaves [first, first + count): an aligned block when
 * count is a power of two, or the ragged tail of the tree. chunk is the
 * most leaves per leaves() call: 1 for the exact way. */
static void reduce_block(const brt_reduce *r, int64_t first, int64_t count, int64_t chunk, node *out)
{
    tree_stack st;
    st.sp = 0;
    _Alignas(16) unsigned char vals[BRT_LEAF_CHUNK * 16];
    unsigned char has[BRT_LEAF_CHUNK];
    for (int64_t k = 0; k < count; k += chunk) {
        int64_t c = count - k < chunk ? count - k : chunk;
        r->leaves(r->env, first + k, c, vals, has);
        if (c == BRT_LEAF_CHUNK && (first + k) % BRT_LEAF_CHUNK == 0) {
            /* A whole aligned chunk is a complete subtree: fold it in place,
             * level by level, and push it as one node. */
            if (r->fold)
                r->fold(r->env, vals, has);
            else
                fold_chunk(r, vals, has);
            node *sub = &st.n[st.sp];
            memcpy(sub->val, vals, r->vsize);
            sub->has = has[0] != 0;
            sub->level = CHUNK_LEVEL;
            push(r, &st);
            continue;
        }
        for (int64_t q = 0; q < c; q++) {
            node *leaf = &st.n[st.sp];
            memcpy(leaf->val, vals + q * r->vsize, r->vsize);
            leaf->has = has[q] != 0;
            leaf->level = 0;
            push(r, &st);
        }
    }
    finish(r, &st, out);
}

/* The exact way: one thread, one leaf per call, post-order. */
static bool reduce_exact(const brt_reduce *r, int64_t nleaves, void *out)
{
    node root;
    reduce_block(r, 0, nleaves, 1, &root);
    if (root.has)
        memcpy(out, root.val, r->vsize);
    return root.has;
}

#define MIN_TASK_LEAVES 64   /* 1,024 elements: smaller units cost more than they save */
#define BLOCK_TASKS 16       /* offers per range: halvings, so 2^16 units and more */
#define MAX_UNITS ((int64_t)1 << 30) /* a range's stack of aligned units fits MAX_LEVELS */

/* ---- many leaves: aligned units shared by lazy splitting -------------------------
 *
 * A reduction of many leaves is cut into units of 2^k leaves (k from what
 * its elements cost: about LEAF_TASK_NS per unit, at least MIN_TASK_LEAVES
 * leaves for cheap ones), each an aligned subtree. A thread works through
 * its range of units in order and offers nothing while every thread is
 * busy; when a thread is looking for work, it offers the upper half of the
 * units it has not started, which the thief works through the same way.
 * So an uneven reduction (elements whose cost grows with the index, a few
 * expensive ones among cheap ones) keeps every thread busy, and an even one
 * on a busy pool pays one load per unit.
 *
 * The bits are the tree's: every unit is node (k, u) of the one tree, and a
 * range's units merge only with their aligned siblings (push_unit), the
 * ranges' stacks in ascending order; who computed a unit never shows. A
 * panic stops the range that met it (the others run to their end or stop
 * at their own), and the caller runs the exact way from the start. */

/* Pushes unit node nd (first: its unit index, level: above the unit)
 * onto a range's stack, merging aligned siblings. */
static void push_unit(const brt_reduce *r, tree_stack *st, const node *nd)
{
    st->n[st->sp++] = *nd;
    while (st->sp >= 2) {
        node *left = &st->n[st->sp - 2], *right = &st->n[st->sp - 1];
        if (left->level != right->level || ((left->first >> left->level) & 1) != 0)
            break;
        merge(r, left, right);
        left->level++;
        st->sp--;
    }
}

struct blocks {
    const brt_reduce *r;
    int64_t nleaves, unit; /* leaves per unit, a power of two */
};

struct btask {
    brt_task t;
    const struct blocks *b;
    int64_t lo, hi;   /* units */
    tree_stack *st;   /* malloc'ed: its aligned nodes, in order */
    bool panicked;
};

/* One range's state, in memory (it survives the longjmp of a panic). */
struct brange {
    const struct blocks *b;
    brt_self *me;
    int64_t next, end;
    tree_stack *st;
    int ntasks;
    struct btask tasks[BLOCK_TASKS]; /* offered, in descending ranges */
};

static void btask_run(brt_task *t);

static __attribute__((noinline)) void brange_loop(struct brange *br)
{
    const struct blocks *b = br->b;
    while (br->next < br->end) {
        if (br->ntasks < BLOCK_TASKS && br->end - br->next > 1 && brt_pool_wanted(br->me)) {
            int64_t mid = br->end - (br->end - br->next) / 2;
            struct btask *bt = &br->tasks[br->ntasks];
            bt->t.run = btask_run;
            bt->b = b;
            bt->lo = mid;
            bt->hi = br->end;
            bt->st = NULL;
            bt->panicked = false;
            if (brt_task_spawn(&bt->t)) {
                br->ntasks++;
                br->end = mid;
            }
        }
        int64_t u = br->next++;
        int64_t first = u * b->unit;
        int64_t count = b->nleaves - first < b->unit ? b->nleaves - first : b->unit;
        node nd;
        reduce_block(b->r, first, count, BRT_LEAF_CHUNK, &nd);
        nd.level = 0;
        nd.first = u;
        push_unit(b->r, br->st, &nd);
    }
}

/* Units [lo, hi) onto st; false: a panic stopped this range or one it
 * offered (all of them have finished by then). */
static bool brange_run(const struct blocks *b, int64_t lo, int64_t hi, tree_stack *st)
{
    struct brange br;
    br.b = b;
    br.me = brt_pool_self();
    br.next = lo;
    br.end = hi;
    br.st = st;
    br.ntasks = 0;
    volatile bool ok = true;
    brt_trap trap, *outer = brt_trap_get();
    trap.panicked = 0;
    trap.msg = NULL;
    brt_trap_set(&trap);
    if (setjmp(trap.jb) == 0)
        brange_loop(&br);
    else
        ok = false; /* element frames below the trap were joined by the unwind */
    brt_trap_set(outer);
    free(trap.msg);
    /* Every offered range is joined, panic or not (they point into br); a
     * combine that panics while their nodes join ours stops the merging:
     * the caller re-runs the reduction the exact way. */
    for (volatile int i = br.ntasks - 1; i >= 0; i--) {
        struct btask *bt = &br.tasks[i];
        brt_task_join(&bt->t, true);
        ok = ok && !bt->panicked;
        if (ok) {
            trap.panicked = 0;
            trap.msg = NULL;
            brt_trap_set(&trap);
            if (setjmp(trap.jb) == 0) {
                for (int j = 0; j < bt->st->sp; j++)
                    push_unit(b->r, st, &bt->st->n[j]);
            } else {
                ok = false;
            }
            brt_trap_set(outer);
            free(trap.msg);
        }
        free(bt->st);
    }
    return ok;
}

static void btask_run(brt_task *t)
{
    struct btask *bt = (struct btask *)t;
    bt->st = brt_xmalloc(sizeof *bt->st);
    bt->st->sp = 0;
    bt->panicked = !brange_run(bt->b, bt->lo, bt->hi, bt->st);
}

/* The fast way. Returns false if a panic stopped it (nothing reported yet).
 * unit: the leaves per unit of work, a power of two. */
static bool reduce_fast(const brt_reduce *r, int64_t nleaves, int64_t unit, node *root)
{
    if (nleaves < 2 * unit || brt_pool_threads() == 1 || brt_pool_nested()) {
        brt_trap trap, *outer = brt_trap_get();
        trap.panicked = 0;
        trap.msg = NULL;
        brt_trap_set(&trap);
        if (setjmp(trap.jb) != 0) {
            brt_trap_set(outer);
            free(trap.msg);
            return false;
        }
        reduce_block(r, 0, nleaves, BRT_LEAF_CHUNK, root);
        brt_trap_set(outer);
        return true;
    }
    while ((nleaves + unit - 1) / unit > MAX_UNITS)
        unit *= 2;
    struct blocks b = { r, nleaves, unit };
    tree_stack st;
    st.sp = 0;
    brt_pool_rouse();
    if (!brange_run(&b, 0, (nleaves + unit - 1) / unit, &st))
        return false;
    /* the units' stack from 0 is the binary counter's: fold it from the right */
    finish(r, &st, root);
    return true;
}

/* ---- expensive elements ---------------------------------------------------------- */

/* A reduction of a few leaves whose elements are expensive (64 pieces of an
 * integral, the two halves of a recursive split) has too few leaves to
 * share, so its elements are shared instead (elem() evaluates one into a
 * buffer), by lazy splitting: a thread evaluates a frame's elements in order
 * and offers nothing while every thread is busy; when one is looking for
 * work and this thread has nothing on offer, the oldest open frame on this
 * thread (the biggest piece of work it knows of) gives the upper half of
 * the elements it has not started to a task, which a thief runs as a frame
 * of its own, and so on. The frames live on the threads' stacks, listed per
 * thread (brt_self).
 *
 * Exact by construction, so no second run: the reduction's own thread folds
 * each element into its leaf right after evaluating it (from the start
 * value, with combine: the value leaves() gives), pushing finished leaves
 * up the tree stack, so its part runs in exactly the sequential order and
 * its panics propagate as they come. Offered ranges lie above everything the
 * owner still evaluates; a task evaluates its range in order and stops at
 * its first panic, recording it. The owner, past its part, joins the tasks
 * in ascending order and folds their values; at a recorded panic it has
 * folded everything before that element, so the panic is the sequential
 * one, and it is rethrown. A panic that unwinds a frame first joins the
 * frame's tasks (brt_frames_unwind, called by panic.c before it longjmps),
 * so no thread ever writes into a dead frame. */
#define ELEM_MAX_LEAVES 64    /* at most 1,024 buffered elements */
#define HOT_ELEM_NS 200       /* sampled ns per element from which elements are shared */
#define EAGER_ELEM_NS 20000   /* and from which some are always on offer (frame_loop) */
#define LEAF_TASK_NS 50000    /* what one leaf-block task should cost */
#define SAMPLE_MEMORY 64      /* a site's mean follows its last ~64 samples */
#define FRAME_TASKS 12        /* halvings per frame: 2^12 > BRT_LEAF * ELEM_MAX_LEAVES */

struct eframe;
struct etask {
    brt_task t;
    struct eframe *f;
    int64_t lo, hi;
    int64_t stop;     /* elements [lo, stop) were evaluated; stop < hi: panicked at stop */
    const brt_loc *loc; /* that panic (no jmp_buf: frames stay small on deep recursions) */
    char *msg;
    bool joined;
};

struct eframe {
    struct eframe *outer; /* the next older frame on this thread */
    const brt_reduce *r;
    unsigned char *vals, *kept;
    int64_t next, end;    /* this thread evaluates [next, end) */
    brt_self *me;         /* this thread */
    struct etask *task;   /* a thief's frame: its task; NULL: the reduction's own */
    int ntasks;           /* offered, in descending ranges */
    bool linked;          /* on this thread's list (offers can take from it) */
    bool eager;           /* elements so costly that some are always on offer */
    struct etask tasks[FRAME_TASKS];
};

/* The reduction's own fold: the current leaf and the tree stack. */
struct efold {
    tree_stack st;
    node leaf;
};

static void fold_elem(const brt_reduce *r, struct efold *fs, int64_t k, const void *x, bool kept)
{
    if (k % BRT_LEAF == 0) {
        fs->leaf.has = false;
        fs->leaf.level = 0;
        if (r->start)
            memcpy(fs->leaf.val, r->start, r->vsize);
    }
    if (kept) {
        if (!fs->leaf.has && !r->start)
            memcpy(fs->leaf.val, x, r->vsize);
        else
            r->combine(r->env, fs->leaf.val, x);
        fs->leaf.has = true;
    }
    if ((k % BRT_LEAF == BRT_LEAF - 1 || k == r->n - 1) && r->n > BRT_LEAF) {
        fs->st.n[fs->st.sp] = fs->leaf;
        push(r, &fs->st);
    }
}

static void etask_run(brt_task *t);

/* Offers half of the oldest frame's unstarted elements on this thread. The
 * head frame is about to start element next, so it keeps that one; an older
 * frame is inside an element already, and may give all it has not started. */
static void offer(struct eframe *head)
{
    struct eframe *old = NULL;
    int64_t spare = 0;
    for (struct eframe *f = head; f; f = f->outer) {
        int64_t left = f->end - f->next - (f == head);
        if (left > 0 && f->ntasks < FRAME_TASKS) {
            old = f;
            spare = left;
        }
    }
    if (!old)
        return;
    int64_t mid = old->end - (spare + 1) / 2;
    struct etask *et = &old->tasks[old->ntasks];
    et->t.run = etask_run;
    et->f = old;
    et->lo = mid;
    et->hi = old->end;
    et->stop = mid;
    et->msg = NULL;
    et->joined = false;
    if (!brt_task_spawn(&et->t))
        return;
    old->ntasks++;
    old->end = mid;
}

static void frame_link(struct eframe *f)
{
    f->outer = f->me->frames;
    f->me->frames = f;
    f->linked = true;
}

static void frame_open(struct eframe *f, brt_self *me, const brt_reduce *r, unsigned char *vals,
                       unsigned char *kept, int64_t lo, int64_t hi, bool link)
{
    f->r = r;
    f->vals = vals;
    f->kept = kept;
    f->next = lo;
    f->end = hi;
    f->ntasks = 0;
    f->task = NULL;
    f->me = me;
    f->linked = false;
    const brt_site *s = r->site;
    f->eager = s && __atomic_load_n(&s->count, __ATOMIC_RELAXED) > 0 &&
               __atomic_load_n(&s->ns, __ATOMIC_RELAXED) >= EAGER_ELEM_NS;
    if (link)
        frame_link(f);
}

/* Whether the newest frame on this thread has elements after the one it is
 * evaluating: then an offer takes from it (or an older one), never from a
 * frame opened inside that element. */
static bool head_has_spare(const brt_self *me)
{
    const struct eframe *h = me->frames;
    return h && h->next < h->end && h->ntasks < FRAME_TASKS;
}

/* Evaluates the frame's own elements in order; fs: fold them too. Offers
 * when a thread is looking for work; with elements of tens of microseconds
 * (eager), also whenever this thread has nothing on offer: a thread that
 * runs out of work then takes some at once, instead of waiting for the end
 * of the element being evaluated here (the 64 pieces of an integral, 2 ms
 * each: waiting cost about a percent at 2 threads). An offer and its join
 * cost tens of nanoseconds, nothing beside such an element. */
static void frame_loop(struct eframe *f, struct efold *fs)
{
    const brt_reduce *r = f->r;
    while (f->next < f->end) {
        if (brt_pool_wanted(f->me) || (f->eager && !brt_pool_offering(f->me))) {
            if (!f->linked)
                frame_link(f); /* the newest now: its inner frames have closed */
            offer(f);
        }
        int64_t k = f->next++;
        if (f->task)
            f->task->stop = k; /* where a panic stops it */
        unsigned char *x = f->vals + (size_t)k * r->vsize;
        bool kept = r->elem(r->env, k, x);
        f->kept[k] = kept;
        if (fs)
            fold_elem(r, fs, k, x, kept);
    }
}

static void join_task(struct etask *et)
{
    brt_task_join(&et->t, true);
    et->joined = true;
}

void brt_frames_unwind(const void *mark)
{
    brt_self *me = brt_pool_self();
    if (!me)
        return;
    /* the stack grows down: frames below the trap opened after it */
    while (me->frames && (const char *)me->frames < (const char *)mark) {
        struct eframe *f = me->frames;
        me->frames = f->outer;
        for (int i = f->ntasks - 1; i >= 0; i--)
            if (!f->tasks[i].joined) {
                join_task(&f->tasks[i]);
                free(f->tasks[i].msg);
            }
    }
}

/* A thief's frame, opened below the task's trap (so that unwinding closes
 * it): evaluates [lo, hi) in order, then joins its own offers. */
static __attribute__((noinline)) void etask_body(struct etask *et, brt_self *me)
{
    struct eframe f;
    frame_open(&f, me, et->f->r, et->f->vals, et->f->kept, et->lo, et->hi, true);
    f.task = et;
    frame_loop(&f, NULL);
    me->frames = f.outer;
    et->stop = et->hi;
    for (int i = f.ntasks - 1; i >= 0; i--) {
        struct etask *sub = &f.tasks[i];
        join_task(sub);
        if (et->stop == et->hi && sub->stop < sub->hi) {
            et->stop = sub->stop;
            et->loc = sub->loc;
            et->msg = sub->msg;
        } else {
            free(sub->msg);
        }
    }
}

/* Runs a thief's frame, stopping at its first panic (et->stop records the
 * element being evaluated). */
static void etask_run(brt_task *t)
{
    struct etask *et = (struct etask *)t;
    brt_self *me = brt_pool_self();
    brt_trap trap, *outer = brt_trap_get();
    trap.panicked = 0;
    trap.msg = NULL;
    brt_trap_set(&trap);
    if (setjmp(trap.jb) != 0) {
        /* its frames were closed (their tasks joined) by brt_frames_unwind */
        brt_trap_set(outer);
        et->loc = trap.loc;
        et->msg = trap.msg;
        return;
    }
    etask_body(et, me);
    brt_trap_set(outer);
}

/* A malloc'ed block of a runtime frame: a panic that leaves the frame
 * frees it (after the frame's tasks are joined: panic.c). */
struct block_owner {
    brt_owner o;
    void *p;
};

static void block_drop(brt_owner *o)
{
    free(((struct block_owner *)o)->p);
}

/* The element way: the exact result, or the exact panic. */
static bool reduce_elems(const brt_reduce *r, brt_self *me, void *out)
{
    int64_t n = r->n;
    size_t vs = r->vsize;
    _Alignas(16) unsigned char vals_small[BRT_LEAF * 16], kept_small[BRT_LEAF];
    unsigned char *vals = vals_small, *kept = kept_small;
    struct block_owner bo;
    if (n > BRT_LEAF) {
        vals = brt_xmalloc((size_t)n * (vs + 1));
        kept = vals + (size_t)n * vs;
        brt_own_push_rt(&bo.o, NULL, 0);
        bo.o.drop = block_drop;
        bo.p = vals;
    }
    /* One leaf under a frame that still has elements to offer: an offer
     * would take from that frame first, so this one stays off the list (no
     * rouse, no links) until a thread is looking for work at one of its
     * element starts. */
    bool link = n > BRT_LEAF || !head_has_spare(me);
    if (link)
        brt_pool_rouse();
    struct eframe f;
    struct efold fs;
    fs.st.sp = 0;
    frame_open(&f, me, r, vals, kept, 0, n, link);
    frame_loop(&f, &fs);
    /* the offered ranges, ascending; the frame stays open (a panic joins the rest) */
    for (int i = f.ntasks - 1; i >= 0; i--) {
        struct etask *et = &f.tasks[i];
        join_task(et);
        for (int64_t k = et->lo; k < et->stop; k++)
            fold_elem(r, &fs, k, vals + (size_t)k * vs, kept[k]);
        if (et->stop < et->hi) {
            brt_trap p;
            p.loc = et->loc;
            p.msg = et->msg;
            et->msg = NULL;
            brt_trap_rethrow(&p); /* p.msg is freed by the trap that takes it */
        }
    }
    if (f.linked)
        me->frames = f.outer;
    node root;
    if (n <= BRT_LEAF)
        root = fs.leaf; /* one leaf is the root */
    else
        finish(r, &fs.st, &root);
    if (vals != vals_small) {
        brt_own_pop_rt(&bo.o);
        free(vals);
    }
    if (root.has)
        memcpy(out, root.val, vs);
    return root.has;
}

bool brt_reduce_inline(void)
{
    brt_self *me = brt_pool_self();
    return me && head_has_spare(me) && !brt_pool_wanted(me);
}

/* ---- call sites ------------------------------------------------------------------- */

static int64_t now_ns(void)
{
    return (int64_t)(brt_os_clock() * 1e9);
}

static void site_record(brt_site *s, int64_t ns, int64_t n)
{
    int64_t per = ns / n + 1;
    int64_t count = __atomic_load_n(&s->count, __ATOMIC_RELAXED);
    int64_t mean = __atomic_load_n(&s->ns, __ATOMIC_RELAXED);
    mean = count == 0 ? per : (mean * count + per) / (count + 1);
    __atomic_store_n(&s->ns, mean, __ATOMIC_RELAXED);
    if (count < SAMPLE_MEMORY)
        __atomic_store_n(&s->count, count + 1, __ATOMIC_RELAXED);
    /* a store only on a change: every thread reads it on every call */
    if (__atomic_load_n(&s->hot, __ATOMIC_RELAXED) != (mean >= HOT_ELEM_NS))
        __atomic_store_n(&s->hot, mean >= HOT_ELEM_NS, __ATOMIC_RELAXED);
}

/* The fast way at a measured site: which of the ways above, and how big the
 * tasks are, follows from what its elements cost. */
static bool reduce_site(const brt_reduce *r, int64_t nleaves, node *root)
{
    brt_site *s = r->site;
    int64_t ns = __atomic_load_n(&s->ns, __ATOMIC_RELAXED);
    bool known = __atomic_load_n(&s->count, __ATOMIC_RELAXED) > 0;

    int64_t task_leaves = MIN_TASK_LEAVES;
    if (known && ns >= HOT_ELEM_NS / 16) {
        /* expensive leaves: tasks of fewer leaves, about LEAF_TASK_NS each */
        task_leaves = 1;
        while (task_leaves < MIN_TASK_LEAVES && task_leaves * BRT_LEAF * ns < LEAF_TASK_NS)
            task_leaves *= 2;
    }
    if (nleaves < 8 && nleaves < 2 * task_leaves)
        return false; /* the exact way, which is as fast here */
    return reduce_fast(r, nleaves, task_leaves, root);
}

static bool reduce_tree(const brt_reduce *r, brt_self *me, void *out)
{
    if (r->n <= 0)
        return false;
    int64_t nleaves = (r->n + BRT_LEAF - 1) / BRT_LEAF;
    node root;
    brt_site *s = r->site;
    if (s && me) {
        /* Measure one call in 32, one in 128 at a hot site of one leaf (tiny
         * nested reductions: their calls are many), and every one the
         * generated one-leaf fold sends, which it already sampled: clock
         * reads cost ~50 ns. */
        bool hot = __atomic_load_n(&s->hot, __ATOMIC_RELAXED);
        bool measure = __atomic_load_n(&s->count, __ATOMIC_RELAXED) == 0 ||
                       (me->ticks++ & (r->n <= BRT_LEAF && hot ? 127 : 31)) == 0 || (r->n <= BRT_LEAF && !hot);
        int64_t t0 = measure ? now_ns() : 0;
        bool has;
        int64_t ns = __atomic_load_n(&s->ns, __ATOMIC_RELAXED);
        bool known = __atomic_load_n(&s->count, __ATOMIC_RELAXED) > 0;
        if (r->elem && r->n >= 2 && nleaves <= ELEM_MAX_LEAVES && (!known || ns >= HOT_ELEM_NS)) {
            has = reduce_elems(r, me, out);
        } else if (reduce_site(r, nleaves, &root)) {
            has = root.has;
            if (has)
                memcpy(out, root.val, r->vsize);
        } else {
            has = reduce_exact(r, nleaves, out); /* reports SPEC 5.3's panic */
        }
        if (measure)
            site_record(s, now_ns() - t0, r->n);
        return has;
    }
    /* A handful of leaves: the exact way costs less than setting a trap. */
    if (nleaves < 8)
        return reduce_exact(r, nleaves, out);
    if (!reduce_fast(r, nleaves, MIN_TASK_LEAVES, &root))
        return reduce_exact(r, nleaves, out); /* reports SPEC 5.3's panic */
    if (root.has)
        memcpy(out, root.val, r->vsize);
    return root.has;
}

/* ---- par comprehensions ---------------------------------------------------------- */

/* The array is the same however the indices are chunked, so chunks may follow
 * the thread count: enough of them to balance uneven elements (a row of a
 * matrix product each). */
struct collect_job {
    const brt_collect *c;
    int64_t chunk;
    brt_arr **parts;
};

/* The partial results are the frame's own until they are the array: a
 * panic that leaves the frame (the brt_owner pushed here, brine_rt.h)
 * releases them, and so does the rethrow of a task's panic. */
static const brt_type arr_any = { BRT_ARR, NULL, 0, 0, NULL, NULL, false, NULL, NULL, false };

struct parts_owner {
    brt_owner o;
    brt_arr **parts;
    int64_t n;
};

static void parts_drop(brt_owner *o)
{
    struct parts_owner *po = (struct parts_owner *)o;
    for (int64_t t = 0; t < po->n; t++)
        brt_arr_release(po->parts[t]);
    free(po->parts);
}

static void collect_task(void *arg, int64_t t)
{
    struct collect_job *job = arg;
    int64_t lo = t * job->chunk;
    int64_t hi = job->c->n - lo < job->chunk ? job->c->n : lo + job->chunk;
    job->parts[t] = brt_arr_new(job->c->elem, 0);
    job->c->body(job->c->env, lo, hi, &job->parts[t]);
}

static brt_arr *par_collect(const brt_collect *c)
{
    int threads = brt_pool_threads();
    if (c->n <= 1 || threads == 1 || brt_pool_nested()) {
        brt_arr *out = brt_arr_new(c->elem, 0);
        brt_owner o;
        brt_cell cell = { &out, &arr_any };
        brt_own_push_rt(&o, &cell, 1);
        if (c->n > 0)
            c->body(c->env, 0, c->n, &out);
        brt_own_pop_rt(&o);
        return out;
    }
    int64_t ntasks = (int64_t)threads * 8;
    if (ntasks > c->n)
        ntasks = c->n;
    int64_t chunk = (c->n + ntasks - 1) / ntasks;
    ntasks = (c->n + chunk - 1) / chunk;
    brt_arr **parts = brt_xmalloc((size_t)ntasks * sizeof *parts);
    memset(parts, 0, (size_t)ntasks * sizeof *parts);
    struct collect_job job = { c, chunk, parts };
    struct parts_owner po;
    brt_own_push_rt(&po.o, NULL, 0);
    po.o.drop = parts_drop;
    po.parts = parts;
    po.n = ntasks;
    brt_trap panic;
    /* Chunks before the lowest one that panicked ran to their end, so its
     * first panic is the one of the lowest index (SPEC 5.4). */
    if (brt_pool_run(ntasks, collect_task, &job, &panic) >= 0) {
        brt_own_pop_rt(&po.o);
        parts_drop(&po.o);
        brt_trap_rethrow(&panic);
    }
    brt_own_pop_rt(&po.o);
    int64_t total = 0;
    for (int64_t t = 0; t < ntasks; t++)
        total += parts[t]->len;
    brt_arr *out = brt_arr_new(c->elem, 0);
    if (total > 0) {
        /* Move the elements (and the references they hold) into one array. */
        size_t size = brt_type_size(c->elem);
        brt_arr_release(out);
        out = parts[0];
        parts[0] = NULL;
        out = brt_arr_unique(out);
        brt_arr_reserve(out, total);
        for (int64_t t = 1; t < ntasks; t++) {
            if (!parts[t]->len) continue; /* an empty part may have no data (memcpy of NULL) */
            memcpy((char *)out->data + (size_t)out->len * size, parts[t]->data,
                   (size_t)parts[t]->len * size);
            out->len += parts[t]->len;
            parts[t]->len = 0; /* moved, not copied: nothing to release */
        }
    }
    for (int64_t t = 0; t < ntasks; t++)
        brt_arr_release(parts[t]);
    free(parts);
    return out;
}

/* Unfiltered: every element has its slot, so tasks write straight into the
 * one array (no per-chunk arrays, no copy: the peak is the array itself). */
struct fill_job {
    const brt_fill *f;
    int64_t chunk;
    void *data;
};

static void fill_task(void *arg, int64_t t)
{
    struct fill_job *job = arg;
    int64_t lo = t * job->chunk;
    int64_t hi = job->f->n - lo < job->chunk ? job->f->n : lo + job->chunk;
    job->f->fill(job->f->env, lo, hi, job->data);
}

/* About eight chunks per thread (so a thread that finishes early steals the
 * rest of the work): the chunk's size, and their count into *ntasks. */
static int64_t pool_chunk(int64_t n, int threads, int64_t *ntasks)
{
    int64_t nt = (int64_t)threads * 8;
    if (nt > n)
        nt = n;
    int64_t chunk = (n + nt - 1) / nt;
    *ntasks = (n + chunk - 1) / chunk;
    return chunk;
}

/* Runs f's chunks into data (f->n slots): on the pool when it splits. A
 * panic comes back as the lowest chunk's; false then, with *panic set
 * (chunks before the lowest one that panicked ran to their end, so its
 * first panic is the lowest index's: SPEC 5.4). */
static bool fill_run(const brt_fill *f, void *data, brt_trap *panic)
{
    int threads = brt_pool_threads();
    if (f->n == 1 || threads == 1 || brt_pool_nested()) {
        f->fill(f->env, 0, f->n, data);
        return true;
    }
    int64_t ntasks, chunk = pool_chunk(f->n, threads, &ntasks);
    struct fill_job job = { f, chunk, data };
    return brt_pool_run(ntasks, fill_task, &job, panic) < 0;
}

static brt_arr *par_fill(const brt_fill *f)
{
    if (f->n <= 0)
        return brt_arr_new(f->elem, 0);
    size_t size = brt_type_size(f->elem);
    if ((uint64_t)f->n > SIZE_MAX / size)
        brt_panic_text(NULL, "out of memory");
    /* Every slot holds a value, or zero bits (which a release accepts) until
     * its element is stored: a panic that leaves the frame releases a whole
     * (its owner), and so does the rethrow of a task's panic. */
    brt_arr *a = brt_arr_alloc(f->elem, f->n, f->n);
    if (brt_type_owns(f->elem))
        memset(a->data, 0, (size_t)f->n * size);
    brt_owner o;
    brt_cell cell = { &a, &arr_any };
    brt_own_push_rt(&o, &cell, 1);
    brt_trap panic;
    if (!fill_run(f, a->data, &panic)) {
        brt_own_pop_rt(&o);
        brt_arr_release(a);
        brt_trap_rethrow(&panic);
    }
    brt_own_pop_rt(&o);
    return a;
}

/* ---- range loops on the pool (opt_parfor.c) ---------------------------------------- */

struct for_job {
    void *env;
    void (*body)(void *env, int64_t lo, int64_t hi);
    int64_t lo, n, chunk;
};

/* Task t's iterations of a loop of n from lo cut in chunks: [*a, *b) */
static void task_bounds(int64_t t, int64_t chunk, int64_t lo, int64_t n, int64_t *a, int64_t *b)
{
    int64_t k = t * chunk, end = n - k < chunk ? n : k + chunk;
    *a = (int64_t)((uint64_t)lo + (uint64_t)k);
    *b = (int64_t)((uint64_t)lo + (uint64_t)end);
}

static void for_task(void *arg, int64_t t)
{
    struct for_job *job = arg;
    int64_t a, b;
    task_bounds(t, job->chunk, job->lo, job->n, &a, &b);
    job->body(job->env, a, b);
}

static void par_for(int64_t lo, int64_t n, void *env, void (*body)(void *env, int64_t lo, int64_t hi))
{
    int64_t ntasks, chunk = pool_chunk(n, brt_pool_threads(), &ntasks);
    struct for_job job = { env, body, lo, n, chunk };
    brt_trap panic;
    /* Chunks before the lowest one that panicked ran to their end, so its
     * first panic is the lowest iteration's: the sequential loop's. */
    if (brt_pool_run(ntasks, for_task, &job, &panic) >= 0)
        brt_trap_rethrow(&panic);
}

/* ---- fold loops (opt_parfor.c, folds) ------------------------------------------------ */

struct fold_job {
    void *env;
    void (*body)(void *env, void *part, int64_t lo, int64_t hi);
    int64_t lo, n, chunk;
    char *parts;
    size_t size;
};

static void fold_task(void *arg, int64_t t)
{
    struct fold_job *job = arg;
    int64_t a, b;
    task_bounds(t, job->chunk, job->lo, job->n, &a, &b);
    job->body(job->env, job->parts + (size_t)t * job->size, a, b);
}

/* Each chunk folds its own iterations from the identities; the parts are
 * joined in chunk order, so the values are the sequential loop's. A panic
 * in any chunk is dropped: the loop runs again in order (the caller), since
 * an overflow of a sum in a chunk below it may come first. */
static bool par_fold(int64_t lo, int64_t n, void *env, size_t size, void (*body)(void *env, void *part, int64_t lo, int64_t hi),
                     bool (*join)(void *env, const void *part))
{
    int64_t ntasks, chunk = pool_chunk(n, brt_pool_threads(), &ntasks);
    char *parts = brt_xmalloc((size_t)ntasks * size);
    struct fold_job job = { env, body, lo, n, chunk, parts, size };
    brt_trap panic;
    bool ok = brt_pool_run(ntasks, fold_task, &job, &panic) < 0;
    if (!ok)
        free(panic.msg);
    for (int64_t t = 0; ok && t < ntasks; t++)
        ok = join(env, parts + (size_t)t * size);
    free(parts);
    return ok;
}

bool brt_fold_join_i64(int64_t *acc, int64_t sum, int64_t lo, int64_t hi, bool ov)
{
    int64_t x;
    if (ov || __builtin_add_overflow(*acc, lo, &x) || __builtin_add_overflow(*acc, hi, &x))
        return false;
    *acc += sum;
    return true;
}

/* ---- par any / par all ------------------------------------------------------------ */

#define FIND_CHUNK 2048

struct find_job {
    void *env;
    int64_t (*body)(void *env, int64_t lo, int64_t hi);
    int64_t n, chunk;
    atomic_int_fast64_t first_hit; /* lowest chunk that decided so far */
    int64_t *found;                /* per chunk: deciding index or -1 */
};

static void find_task(void *arg, int64_t t)
{
    struct find_job *job = arg;
    job->found[t] = -1;
    /* A chunk after one that decided cannot change the answer. */
    if (t > atomic_load_explicit(&job->first_hit, memory_order_relaxed))
        return;
    int64_t lo = t * job->chunk;
    int64_t hi = job->n - lo < job->chunk ? job->n : lo + job->chunk;
    int64_t at = job->body(job->env, lo, hi);
    job->found[t] = at;
    if (at >= 0) {
        int_fast64_t cur = atomic_load(&job->first_hit);
        while (t < cur && !atomic_compare_exchange_weak(&job->first_hit, &cur, t))
            ;
    }
}

static int64_t par_find(int64_t n, void *env, int64_t (*body)(void *env, int64_t lo, int64_t hi))
{
    if (n <= 0)
        return -1;
    if (n <= FIND_CHUNK || brt_pool_threads() == 1 || brt_pool_nested())
        return body(env, 0, n);
    int64_t ntasks = (n + FIND_CHUNK - 1) / FIND_CHUNK;
    int64_t *found = brt_xmalloc((size_t)ntasks * sizeof *found);
    struct find_job job;
    job.env = env;
    job.body = body;
    job.n = n;
    job.chunk = FIND_CHUNK;
    atomic_init(&job.first_hit, INT64_MAX);
    job.found = found;
    brt_trap panic;
    int64_t panicked = brt_pool_run(ntasks, find_task, &job, &panic);
    int64_t decided = atomic_load(&job.first_hit);
    /* The sequential walk meets whichever comes first: a panic in an earlier
     * chunk, or the deciding element (a chunk stops at its first one, and a
     * panic inside that chunk before it already won there). */
    if (panicked >= 0 && (decided == INT64_MAX || panicked < decided)) {
        free(found);
        brt_trap_rethrow(&panic);
    }
    if (panicked >= 0)
        free(panic.msg);
    int64_t at = decided == INT64_MAX ? -1 : found[decided];
    free(found);
    return at;
}

/* ---- the entry points: par work in progress ------------------------------------------ */

/* How many par reductions, comprehensions and searches are running, on any
 * thread. A world collective is refused while one is (world.c): the elements
 * run on any thread, on one rank only for a world reduction. Each pool thread
 * counts its own (a plain store to its own line: a shared counter costs a
 * cache-line transfer per reduction, a third of the work of tiny nested
 * ones); a thread without a deque counts in the shared one. A thread that
 * runs a stolen element sees its spawner's count: the count was written
 * before the task was pushed. A panic that leaves one skips the decrement:
 * the trap that catches it puts the count back (brt_par_open_set). */
static int par_running;

int brt_par_running(void)
{
    return __atomic_load_n(&par_running, __ATOMIC_RELAXED) + brt_pool_running();
}

int brt_par_open(void)
{
    brt_self *me = brt_pool_self();
    if (me)
        return atomic_load_explicit(&me->running, memory_order_relaxed);
    return brt_pool_threads() == 1 ? __atomic_load_n(&par_running, __ATOMIC_RELAXED) : 0;
}

/* (a thread without a deque among several shares the count: left alone) */
void brt_par_open_set(int n)
{
    brt_self *me = brt_pool_self();
    if (me)
        atomic_store_explicit(&me->running, n, memory_order_relaxed);
    else if (brt_pool_threads() == 1)
        __atomic_store_n(&par_running, n, __ATOMIC_RELAXED);
}

static brt_self *par_enter(void)
{
    brt_self *me = brt_pool_self();
    if (me)
        atomic_store_explicit(&me->running, atomic_load_explicit(&me->running, memory_order_relaxed) + 1,
                              memory_order_relaxed);
    else
        __atomic_add_fetch(&par_running, 1, __ATOMIC_RELAXED);
    return me;
}

static void par_leave(brt_self *me)
{
    if (me)
        atomic_store_explicit(&me->running, atomic_load_explicit(&me->running, memory_order_relaxed) - 1,
                              memory_order_relaxed);
    else
        __atomic_sub_fetch(&par_running, 1, __ATOMIC_RELAXED);
}

bool brt_reduce_tree(const brt_reduce *r, void *out)
{
    brt_self *me = par_enter();
    bool has = reduce_tree(r, me, out);
    par_leave(me);
    return has;
}

brt_arr *brt_par_collect(const brt_collect *c)
{
    brt_self *me = par_enter();
    brt_arr *a = par_collect(c);
    par_leave(me);
    return a;
}

brt_arr *brt_par_fill(const brt_fill *f)
{
    brt_self *me = par_enter();
    brt_arr *a = par_fill(f);
    par_leave(me);
    return a;
}

void brt_par_fill_into(const brt_fill *f, brt_arr *a)
{
    if (f->n <= 0)
        return;
    brt_self *me = par_enter();
    brt_trap panic;
    bool done = fill_run(f, a->data, &panic);
    par_leave(me);
    if (!done)
        brt_trap_rethrow(&panic);
}

bool brt_par_for_splits(int64_t lo, int64_t hi, int64_t least)
{
    /* not for fewer than 2 (or least) iterations, one thread, a thread
     * outside the pool, or a count past INT64_MAX (which no run finishes) */
    uint64_t n = lo < hi ? (uint64_t)hi - (uint64_t)lo : 0;
    return n >= 2 && n >= (uint64_t)least && n <= INT64_MAX && brt_pool_threads() > 1 && !brt_pool_nested();
}

void brt_par_for(int64_t lo, int64_t hi, void *env, void (*body)(void *env, int64_t lo, int64_t hi))
{
    if (!brt_par_for_splits(lo, hi, 2)) {
        if (lo < hi)
            body(env, lo, hi);
        return;
    }
    brt_self *me = par_enter();
    par_for(lo, (int64_t)((uint64_t)hi - (uint64_t)lo), env, body);
    par_leave(me);
}

bool brt_par_fold(int64_t lo, int64_t hi, void *env, size_t size, void (*body)(void *env, void *part, int64_t lo, int64_t hi),
                  bool (*join)(void *env, const void *part))
{
    brt_self *me = par_enter();
    bool ok = par_fold(lo, (int64_t)((uint64_t)hi - (uint64_t)lo), env, size, body, join);
    par_leave(me);
    return ok;
}

int64_t brt_par_find(int64_t n, void *env, int64_t (*body)(void *env, int64_t lo, int64_t hi))
{
    brt_self *me = par_enter();
    int64_t at = par_find(n, env, body);
    par_leave(me);
    return at;
}
