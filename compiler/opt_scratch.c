/*
 * opt_scratch.c: the elements of a scratch array that only the same
 * iteration reads back kept in a local, their stores dropped (the pass
 * `scratch`).
 *
 *   var col = [0.0] * n                    var col = [0.0] * n
 *   for i in 0..n:                         for i in 0..n:
 *       for j in i + 1..n:   (fused)           for j in i + 1..n:
 *           col[j] = b[j][i]         =>            let t = 0.0
 *           b[j][i] = b[i][j]                      t = b[j][i]
 *           b[i][j] = col[j]                       b[j][i] = b[i][j]
 *                                                  b[i][j] = t
 *
 * A local array used as scratch (a column saved before it is overwritten,
 * a row of temporaries) is stored and read back. Once fuseloops runs the
 * loop that fills it and the loop that reads it as one, each element is
 * read in the iteration that stored it, right after: the store and the
 * read cost a store and a load an element (more: gcc cannot tell the
 * array from the others the body stores into, so it reloads), and nothing
 * else ever reads what they pass.
 *
 * The fact: an array A (a let of this function, of plain scalars) that
 * the function uses only by its elements (`A[e]` read, `A[e] = v` stored:
 * never whole, never passed, returned, pushed, assigned or captured),
 * every read of which is *covered*:
 *   - forwarded: a store A[e] = v comes before it in the same run of
 *     statements (its block, through plain blocks, into an if's branches),
 *     at the same index (the same term, its variables unassigned since),
 *     nothing writing A between: the read gives v;
 *   - filled: it is A[w + c] in the body of a range loop over w, after a
 *     range loop over the same range (the same terms, unassigned since) in
 *     the same run of statements whose body stores A[v + c] (v its
 *     variable, c the same literal) on every iteration (no break,
 *     continue or return), nothing writing A between them or in the
 *     reading loop: it reads what that loop stored.
 * Then no read sees a value but its covering store's, so a store that
 * covers no filled read is never read through A: its value goes into a
 * local t (declared at the head of the statements it sits in) that the
 * reads it forwards read instead, and the store goes. Only a store whose
 * index is proved inside A (in-bounds) and is quiet (variables, literals,
 * + - * that cannot overflow, len of a variable) goes: it could not panic. Its value is still
 * evaluated, where it was; what A holds otherwise is read by nobody.
 * When any read of A is not covered, nothing of A changes.
 *
 * Runs after fuseloops (the fused body is where a read follows its store)
 * and before carry and version (a dropped store is no element to carry or
 * guard).
 */
#include "ir.h"

#include <string.h>

static struct ir_program *P;
static struct ir_var *A;          /* the array looked at */

/* ---- whether A is used only by its elements ---- */

static int NVARS, NELEMS;         /* reads of A as a variable; of those, A[e] or len(A) */
static bool BAD;                  /* a use of A that is no element's */

static void uses(struct ir_node *n)
{
    if (!n || BAD) return;
    if (n->op == IR_VAR && n->var == A) NVARS++;
    if (n->op == IR_INDEX && n->a->op == IR_VAR && n->a->var == A) NELEMS += n->slot ? 0 : 1;
    if (n->op == IR_BUILTIN && n->builtin == BI_LEN && n->nkids == 1 && n->kids[0]->op == IR_VAR && n->kids[0]->var == A)
        NELEMS++;
    if (!ir_is_expr(n) && n->var == A) {
        if (n->op == IR_STORE) BAD |= n->nkids != 1 || n->slot || n->kids[0]->op == IR_FIELD;
        else if (n->op != IR_LET && n->op != IR_UNIQUE) BAD = true;
    }
    ir_each_child(n, uses);
    if ((n->op == IR_FOR_RANGE || n->op == IR_FOR_ARRAY) && n->unfused) uses(n->unfused);
}

/* ---- which reads are covered ---- */

enum { MAX_SITES = 32 };
struct store_site {
    struct ir_node *store;
    struct ir_node *head;         /* the block whose head declares its local */
    struct ir_var *t;             /* the local its forwarded reads read (NULL: none yet) */
    bool fills;                   /* it covers a filled read: it stays */
};
static struct store_site SITES[MAX_SITES];
static int NSITES;
struct forward { struct ir_node *read; int site; };
static struct forward FWD[MAX_SITES * 4];
static int NFWD;
static struct ir_node **COVERED;  /* reads of A covered (forwarded or filled), each once */
static int NCOVERED, CAPCOVERED;

static void cover(struct ir_node *read)
{
    for (int i = 0; i < NCOVERED; i++)
        if (COVERED[i] == read) return;
    VEC_GROW(COVERED, NCOVERED, CAPCOVERED);
    COVERED[NCOVERED++] = read;
}

/* What the statements seen so far leave: the store whose value A's
 * element at its index holds (-1: none), and the fill loop whose range
 * A's elements hold (-1: none). */
struct state { int avail, fill; };

/* An index that cannot panic: variables, literals, + - * that cannot
 * overflow, len of a variable (ir_quiet, its elements aside). */
static bool quiet_index(const struct ir_node *e)
{
    return ir_quiet(e, IR_QUIET_NO_OVERFLOW, NULL, NULL);
}

/* Whether statement s assigns (or resizes) a variable term e reads. */
static bool writes_term(struct ir_node *s, const struct ir_node *e)
{
    if (!e) return false;
    if (e->op == IR_VAR) return ir_writes(s, e->var, false);
    if (writes_term(s, e->a) || writes_term(s, e->b) || writes_term(s, e->c)) return true;
    for (int i = 0; i < e->nkids; i++)
        if (writes_term(s, e->kids[i])) return true;
    return false;
}

/* Whether two loops' bounds are the same terms (len of a variable too:
 * writes_term sees a push or a method that changes it). */
static bool same_bound(const struct ir_node *a, const struct ir_node *b)
{
    return ir_same_expr(a, b, IR_SAME_LEN_VAR | IR_SAME_ARITH);
}

static int add_site(struct ir_node *store, struct ir_node *head)
{
    for (int i = 0; i < NSITES; i++)
        if (SITES[i].store == store) return i;
    if (NSITES == MAX_SITES) return -1;
    SITES[NSITES] = (struct store_site){.store = store, .head = head};
    return NSITES++;
}

/* The reads of A in expression n (not in a generator or a function value):
 * each forwarded from st->avail when it has its index. */
static struct state *ST;
static void forward_reads(struct ir_node *n)
{
    if (!n || n->op == IR_LISTCOMP || n->op == IR_REDUCE || n->op == IR_FNVAL) return;
    ir_each_child(n, forward_reads);
    if (n->op != IR_INDEX || n->a->op != IR_VAR || n->a->var != A || ST->avail < 0) return;
    if (!ir_same_term(n->b, SITES[ST->avail].store->kids[0]) || NFWD == MAX_SITES * 4) return;
    FWD[NFWD++] = (struct forward){n, ST->avail};
    cover(n);
}

/* The reads of A[w + c] in loop g's body, w its variable, c the fill
 * loop's store's offset: filled by that loop. */
static struct ir_var *FILLED_BY;
static int FILL_SITE;
static int64_t FILL_AT;

/* Whether index e is v + c (ir_var_plus: v plus or minus literals). */
static bool at_var(const struct ir_node *e, const struct ir_var *v, int64_t c)
{
    struct ir_var *x;
    int64_t k;
    return ir_var_plus(e, &x, &k) && x == v && k == c;
}
static void filled_reads(struct ir_node *n)
{
    if (!n || n->op == IR_LISTCOMP || n->op == IR_REDUCE || n->op == IR_FNVAL) return;
    ir_each_child(n, filled_reads);
    if ((n->op == IR_FOR_RANGE || n->op == IR_FOR_ARRAY) && n->unfused) filled_reads(n->unfused);
    if (n->op == IR_INDEX && n->a->op == IR_VAR && n->a->var == A && at_var(n->b, FILLED_BY, FILL_AT)) {
        cover(n);
        SITES[FILL_SITE].fills = true;
    }
}

/* The store of A at loop l's variable v plus a literal (*c) that each
 * iteration of l makes (a statement of its body, through plain blocks), or
 * NULL. */
static struct ir_node *fill_store(struct ir_node *b, struct ir_var *v, int64_t *c)
{
    for (int i = 0; b && b->op == IR_BLOCK && i < b->nkids; i++) {
        struct ir_node *s = b->kids[i];
        struct ir_var *x;
        if (s->op == IR_STORE && s->var == A && ir_var_plus(s->kids[0], &x, c) && x == v) return s;
        if (s->op == IR_BLOCK) {
            struct ir_node *t = fill_store(s, v, c);
            if (t) return t;
        }
    }
    return NULL;
}

static void scan_list(struct ir_node *b, struct ir_node *head, struct state *st);

/* Statement s of the statements whose head block is head, in state st. */
static void scan_stmt(struct ir_node *s, struct ir_node *head, struct state *st)
{
    ST = st;
    switch (s->sop) {
    case IR_BLOCK: scan_list(s, head, st); return;
    case IR_IF: {
        forward_reads(s->a);
        struct state in = *st;
        if (s->b) scan_list(s->b, s->b, &(struct state){in.avail, in.fill});
        if (s->c) scan_list(s->c, s->c, &(struct state){in.avail, in.fill});
        break;
    }
    case IR_FOR_RANGE: case IR_FOR_ARRAY: case IR_WHILE: {
        ST = st;
        forward_reads(s->iter.lo), forward_reads(s->iter.hi), forward_reads(s->iter.array);
        struct ir_node *f = st->fill >= 0 ? SITES[st->fill].head : NULL; /* the fill loop */
        if (s->op == IR_FOR_RANGE && f && !ir_writes(s->b, A, true) && s->iter.inclusive == f->iter.inclusive &&
            same_bound(s->iter.lo, f->iter.lo) && same_bound(s->iter.hi, f->iter.hi)) {
            struct ir_var *x;
            FILLED_BY = s->var, FILL_SITE = st->fill;
            ir_var_plus(SITES[st->fill].store->kids[0], &x, &FILL_AT);
            filled_reads(s->b);
        }
        /* a nest its pass shaped runs its body's statements in its own order */
        if (s->b && !s->swap && !s->jam && !s->guards_outside) scan_list(s->b, s->b, &(struct state){-1, -1});
        if (s->op != IR_WHILE && s->unfused) scan_list(s->unfused, s->unfused, &(struct state){st->avail, st->fill});
        ST = st;
        break;
    }
    case IR_STORE:
        forward_reads(s->a);
        for (int i = 0; i < s->nkids; i++) forward_reads(s->kids[i]);
        break;
    default:
        forward_reads(s->a);
        break;
    }
    /* what s leaves */
    if (st->avail >= 0 && (ir_writes(s, A, true) || writes_term(s, SITES[st->avail].store->kids[0]))) st->avail = -1;
    if (st->fill >= 0) {
        struct ir_node *f = SITES[st->fill].head;
        if (ir_writes(s, A, true) || writes_term(s, f->iter.lo) || writes_term(s, f->iter.hi)) st->fill = -1;
    }
    if (s->op == IR_STORE && s->var == A && quiet_index(s->kids[0])) st->avail = add_site(s, head);
    /* a fused loop is no fill loop: its unfused copy's stores would have to stay too */
    if (s->op == IR_FOR_RANGE && !s->unfused && !s->swap && !s->jam && !ir_leaves(s->b, 0) && !writes_term(s, s->iter.lo) && !writes_term(s, s->iter.hi)) {
        int64_t c;
        struct ir_node *t = fill_store(s->b, s->var, &c);
        if (t) {
            /* its site's head: the loop, whose range the filled reads match */
            int k = NSITES < MAX_SITES ? NSITES : -1;
            if (k >= 0) SITES[NSITES++] = (struct store_site){.store = t, .head = s};
            st->fill = k;
        }
    }
}

static void scan_list(struct ir_node *b, struct ir_node *head, struct state *st)
{
    for (int i = 0; i < b->nkids; i++) scan_stmt(b->kids[i], head, st);
}

/* ---- the rewrite ---- */

static int NREADS;
static void count_reads(struct ir_node *n)
{
    if (!n) return;
    if (n->op == IR_INDEX && n->a->op == IR_VAR && n->a->var == A) NREADS++;
    ir_each_child(n, count_reads);
    if ((n->op == IR_FOR_RANGE || n->op == IR_FOR_ARRAY) && n->unfused) count_reads(n->unfused);
}

/* Whether store s (a fill loop's site or a forwarding one) fills reads. */
static bool fills(const struct ir_node *s)
{
    for (int i = 0; i < NSITES; i++)
        if (SITES[i].store == s && SITES[i].fills) return true;
    return false;
}

static struct ir_node *zero_of(struct type *t, struct loc loc)
{
    struct ir_node *z = ir_new(t == ty_float ? IR_FLOAT : t == ty_bool ? IR_BOOL : IR_INT, loc, t);
    return z;
}

static void declare_at_head(struct ir_node *head, struct ir_var *t, struct loc loc)
{
    struct ir_node **kids = arena_alloc((size_t)(head->nkids + 1) * sizeof *kids);
    kids[0] = ir_mk_stmt(IR_LET, t, zero_of(t->type, loc), loc);
    memcpy(kids + 1, head->kids, (size_t)head->nkids * sizeof *kids);
    head->kids = kids;
    head->nkids++;
}

/* Drops the stores of A that fill no read and cannot panic, their
 * forwarded reads reading their locals. Whether any store went. */
static bool rewrite(void)
{
    bool any = false;
    for (int i = 0; i < NSITES; i++) {
        struct store_site *x = &SITES[i];
        struct ir_node *s = x->store;
        if (x->head->op != IR_BLOCK || fills(s) || !s->in_bounds || !quiet_index(s->kids[0])) continue;
        struct type *et = A->type->elem;
        bool forwards = false;
        for (int k = 0; k < NFWD; k++) forwards |= FWD[k].site == i;
        if (forwards) {
            x->t = ir_new_temp(P, et, s->loc);
            declare_at_head(x->head, x->t, s->loc);
            for (int k = 0; k < NFWD; k++)
                if (FWD[k].site == i) {
                    struct ir_node *r = FWD[k].read;
                    struct loc loc = r->loc;
                    *r = *ir_mk_var(x->t, loc);
                }
            struct ir_node *v = s->a;
            *s = *ir_mk_stmt(IR_ASSIGN, x->t, v, s->loc);
        } else {
            struct ir_node *v = s->a;
            *s = *ir_mk_stmt(IR_EXPR, NULL, v, s->loc);
        }
        any = true;
    }
    return any;
}

/* A let of a scratch array in function body fb: its stores dropped where
 * the fact holds. */
static void scratch_array(struct ir_node *fb, struct ir_var *v)
{
    A = v;
    NVARS = NELEMS = 0, BAD = false;
    uses(fb);
    if (BAD || NVARS != NELEMS) return;
    NSITES = NFWD = NCOVERED = NREADS = 0;
    scan_list(fb, fb, &(struct state){-1, -1});
    count_reads(fb);
    if (NREADS == 0 || NCOVERED != NREADS) return;
    rewrite();
}

static struct ir_node *FB;
static void lets_of(struct ir_node *n)
{
    if (!n) return;
    ir_each_child(n, lets_of);
    if ((n->op == IR_FOR_RANGE || n->op == IR_FOR_ARRAY) && n->unfused) lets_of(n->unfused);
    if (n->op == IR_LET && n->var->type->kind == T_ARRAY && !type_is_ref(n->var->type->elem) &&
        (n->var->type->elem == ty_float || n->var->type->elem == ty_int || n->var->type->elem == ty_bool))
        scratch_array(FB, n->var);
}

void opt_scratch(struct ir_program *ir)
{
    P = ir;
    for (int i = 0; i < ir->fns.len; i++) {
        struct ir_fn *f = ir->fns.items[i];
        if (f->body && f->body->op == IR_BLOCK) FB = f->body, lets_of(f->body);
    }
    P = NULL;
}
