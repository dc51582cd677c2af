/*
 * opt_bins.c: a float-to-int conversion's check made by the bounds check
 * of the index it gives.
 *
 *     let b = int(x * f)               let t = x * f
 *     counts[b] += 1                   let b = int(t)         unchecked
 *                                      counts[b] += 1         checks-conv
 *
 *     acc += table[int(x * s)]         let t = x * s
 *                                      acc += table[int(t)]   (the same marks)
 *
 * The fact: the conversion's instruction alone (brt_f2i_raw) gives the
 * least int, INT64_MIN, where the conversion fails (NaN, an infinity, out
 * of range), and so does a min of it with any int; a bounds check at
 * INT64_MIN fails, whatever the array. So where the index of a bounds
 * check carries a conversion's value (the conversion itself, a let of it,
 * copies of that let, min of it and a quiet value) and nothing between
 * the conversion and the check panics or has an effect, the conversion's
 * own check may be left to the bounds check: the check tests the
 * conversion first when it fails (brt_idx_n_f2i, runtime/brine_rt.h), so
 * the program panics with the conversion's message, at the conversion's
 * place and frames, after the same output, as before; a valid conversion
 * (the least int itself included) leaves the bounds check as it was. One
 * compare and branch less an element (histogram clamp_fn 16.0 -> 13.6 ms).
 *
 * The shapes (any block of any function, in or out of loops):
 *   - `let b = int(X)` or `let b = min(int(X), q)` (q quiet, either side),
 *     then only lets of quiet values or copies of b (and blocks of such),
 *     then a statement whose first check is at b: a store a[b] = V, or a
 *     let, assignment, return or store whose value V is quiet but for
 *     element reads at b (a store's value runs before its index's check);
 *   - a let, assignment, return or store whose value is quiet but for
 *     element reads a[int(X)] or a[min(int(X), q)] (a store a[int(X)] = V
 *     too): each conversion is its check's own index, made just before it.
 * X moves to a let of its own before the statement where it is not a
 * variable, for the check to name: in the let form it ran first there
 * too; in the direct form it is quiet, or its conversion is the
 * statement's only one (the rest, quiet, cannot tell it ran first).
 * A check is one the emitter writes at that place: an array of scalars
 * named by a variable, not proved (in_bounds, a guard's in_range_by), not
 * a carried slot, not in a swapped or jammed nest (rows in locals). The
 * conversion may be in a call written in place and its check in the
 * caller (a bin(x) helper, counts[bin(x)] += 1): the check panics with
 * the conversion's place, which names its calls (loc.inl), the frames it
 * panicked in before (histogram while_bin_fn 13.5 -> 11.2 ms).
 *
 * Where it runs: last, after version. Run before it, it would see the
 * checks version later removes in a loop's fast copy, and the conversion
 * there would lose its check with nothing to make it; after it, it sees
 * only the checks the emitter writes. The copies version makes share
 * statements: a conversion is made raw only where every place it occurs
 * (each copy) was found with its check, and a check marked only where
 * each of its places is one of those (bins_fuse); the places are those
 * the emitter writes, a loop on the pool's chunk copies included.
 */
#include "ir.h"

#include <string.h>

static struct ir_program *PP;

/* Whether e has no check and no effect (ir_quiet with the facts of its
 * place: it stays where it is). */
static bool quiet(const struct ir_node *e)
{
    return ir_quiet(e, IR_QUIET_FACTS, NULL, NULL);
}

/* Whether e has no effect but its checks' panics: quiet but for elements
 * read with their check (a statement's one conversion operand of this
 * kind may run before the statement's quiet rest). */
static bool reads_only(const struct ir_node *e)
{
    if (e->op == IR_INDEX) return e->a->op == IR_VAR && reads_only(e->b);
    if (e->op == IR_BINARY && (e->bop == OP_ADD || e->bop == OP_SUB || e->bop == OP_MUL) &&
        (e->optype == ty_float || (e->optype == ty_int && e->no_overflow)))
        return reads_only(e->a) && reads_only(e->b);
    if (e->op == IR_CONV && e->type == ty_float && e->optype == ty_int) return reads_only(e->a);
    return quiet(e);
}

static bool scalar_array(const struct type *t)
{
    return t->kind == T_ARRAY && !type_is_ref(t->elem);
}

/* A float-to-int conversion not yet made raw. */
static bool f2i(const struct ir_node *e)
{
    return e->op == IR_CONV && e->optype == ty_float && e->type == ty_int && !e->f2i_later;
}

/* The conversion e is, or the one of min(conversion, quiet value) (either
 * order): a value that is INT64_MIN where the raw conversion fails. */
static struct ir_node *conv_of(struct ir_node *e)
{
    if (f2i(e)) return e;
    if (e->op == IR_BUILTIN && e->builtin == BI_MIN2 && e->nkids == 2 && e->type == ty_int) {
        if (f2i(e->kids[0]) && quiet(e->kids[1])) return e->kids[0];
        if (f2i(e->kids[1]) && quiet(e->kids[0])) return e->kids[1];
    }
    return NULL;
}

/* ---- the checks at a value carrying a conversion ---- */

enum { MAX_CARRY = 16, MAX_KEYED = 8 };
static struct ir_node *CONV;            /* the let form's conversion; NULL: the direct form */
static struct ir_var *CARRY[MAX_CARRY]; /* lets holding its value (or its min with a quiet value) */
static int NCARRY;

/* Whether e's value is CONV's, or min of it and a quiet value. */
static bool carries(const struct ir_node *e)
{
    if (!CONV) return false;
    if (e == CONV) return true;
    if (e->op == IR_VAR) {
        for (int i = 0; i < NCARRY; i++)
            if (CARRY[i] == e->var) return true;
        return false;
    }
    if (e->op == IR_BUILTIN && e->builtin == BI_MIN2 && e->nkids == 2 && e->type == ty_int)
        return (carries(e->kids[0]) && quiet(e->kids[1])) || (quiet(e->kids[0]) && carries(e->kids[1]));
    return false;
}

/* A bounds check the emitter writes where n is, of array type arr. In any
 * inlined call: the check names the conversion's own place, whose chain of
 * calls written in place is its loc's (loc.inl), so a conversion in a
 * callee's copy panics in the callee's frames wherever its check is. */
static bool checked(const struct ir_node *n, const struct type *arr)
{
    return !n->in_bounds && !n->in_range_by && !n->slot && !n->f2i_conv && scalar_array(arr);
}

/* The conversion whose check read e's check may make: CONV where its index
 * carries it; in the direct form, its index's own conversion of a quiet
 * operand. NULL: none. */
static struct ir_node *keyed_read(struct ir_node *e)
{
    if (e->op != IR_INDEX || e->a->op != IR_VAR) return NULL;
    struct ir_node *c = CONV ? (carries(e->b) ? CONV : NULL) : conv_of(e->b);
    if (!c || (!CONV && !reads_only(c->a))) return NULL;
    return checked(e, e->a->type) ? c : NULL;
}

struct mark {
    struct ir_node *check, *conv;
};
static struct mark MARKS[MAX_KEYED];
static int NMARKS; /* -1: too many */

/* Whether value e is quiet but for keyed reads, which it collects. */
static bool quiet_but_keyed(struct ir_node *e)
{
    struct ir_node *c = keyed_read(e);
    if (c) {
        if (NMARKS >= 0 && NMARKS < MAX_KEYED) MARKS[NMARKS++] = (struct mark){e, c};
        else NMARKS = -1;
        return true;
    }
    if (e->op == IR_BINARY && (e->bop == OP_ADD || e->bop == OP_SUB || e->bop == OP_MUL) &&
        (e->optype == ty_float || (e->optype == ty_int && e->no_overflow)))
        return quiet_but_keyed(e->a) && quiet_but_keyed(e->b);
    return quiet(e);
}

/* Whether statement u's first check is a keyed one, collecting the keyed
 * checks: a let, assignment or return of a value quiet but for keyed
 * reads, or a store of one index whose value is (it runs before the
 * index's check) and whose own check is keyed or comes after. */
static bool keyed_marks(struct ir_node *u)
{
    NMARKS = 0;
    if (u->op == IR_LET || u->op == IR_ASSIGN || (u->op == IR_RETURN && u->a)) return quiet_but_keyed(u->a) && NMARKS > 0;
    if (u->op != IR_STORE || u->nkids != 1 || !quiet_but_keyed(u->a) || NMARKS < 0) return false;
    struct ir_node *own = CONV ? (carries(u->kids[0]) ? CONV : NULL) : conv_of(u->kids[0]);
    if (own && (CONV || reads_only(own->a)) && checked(u, u->var->type)) {
        if (NMARKS >= MAX_KEYED) return false;
        MARKS[NMARKS++] = (struct mark){u, own};
        return true;
    }
    return NMARKS > 0 && quiet(u->kids[0]);
}

/* The same, and in the direct form a conversion's operand that is not
 * quiet only where it is the statement's one conversion (the operands
 * move before the statement: the rest, quiet, cannot tell that it ran
 * first; another conversion, failing, could). */
static bool keyed_stmt(struct ir_node *u)
{
    if (!keyed_marks(u)) return false;
    for (int i = 0; i < NMARKS && !CONV; i++)
        if (!quiet(MARKS[i].conv->a) && NMARKS > 1) return false;
    return true;
}

/* From statement k of block b on: lets of quiet values or of copies of a
 * carrying variable (which then carries too), blocks of such, then a
 * statement whose first check is keyed. Returns it, or NULL. */
static struct ir_node *find_check(struct ir_node *b, int k, bool *stop)
{
    for (; k < b->nkids && !*stop; k++) {
        struct ir_node *u = b->kids[k];
        if (u->op == IR_LET && (quiet(u->a) || carries(u->a))) {
            if (carries(u->a) && NCARRY < MAX_CARRY) CARRY[NCARRY++] = u->var;
            continue;
        }
        if (u->op == IR_BLOCK) {
            struct ir_node *t = find_check(u, 0, stop);
            if (t) return t;
            continue;
        }
        if (keyed_stmt(u) && NMARKS > 0) return u;
        *stop = true;
    }
    return NULL;
}

/* ---- the sites found, made once all are known ---- */

/* A conversion found with its check, at one place it occurs: its operand
 * moves to a let before statement at (in block) where it is not a
 * variable. The versions of a loop may share statements, so a place may
 * be met more than once (a shared block), and one node occur in places
 * where it was not found (another copy): bins_fuse counts them. */
struct site {
    struct ir_node *block, *at, *conv;
    struct mark marks[MAX_KEYED];
    int nmarks;
};
static struct site *SITES;
static int NSITES, CAPSITES;

static void add_site(struct ir_node *b, struct ir_node *at, struct ir_node *conv)
{
    VEC_GROW(SITES, NSITES, CAPSITES);
    struct site *s = &SITES[NSITES++];
    *s = (struct site){.block = b, .at = at, .conv = conv};
    for (int i = 0; i < NMARKS; i++)
        if (MARKS[i].conv == conv) s->marks[s->nmarks++] = MARKS[i];
}

/* The sites of block b's statements (not its inner blocks'). */
static void find_sites(struct ir_node *b)
{
    for (int k = 0; k < b->nkids; k++) {
        struct ir_node *u = b->kids[k];
        /* the let form: let b = int(X), its checks further on */
        struct ir_node *conv = u->op == IR_LET && u->var->type == ty_int ? conv_of(u->a) : NULL;
        if (conv) {
            CONV = conv, NCARRY = 0;
            CARRY[NCARRY++] = u->var;
            bool stop = false;
            if (find_check(b, k + 1, &stop)) add_site(b, u, conv);
            continue;
        }
        /* the direct form: a statement reading a[int(X)] */
        CONV = NULL;
        if (keyed_stmt(u))
            for (int i = 0; i < NMARKS; i++) {
                bool seen = false;
                for (int j = 0; j < i; j++) seen |= MARKS[j].conv == MARKS[i].conv;
                if (!seen) add_site(b, u, MARKS[i].conv);
            }
    }
}

/* Collects the sites of every block under n but a swapped or jammed nest's
 * (whose rows the emitter may keep in locals). */
static void walk(struct ir_node *n)
{
    if (!n) return;
    if ((n->op == IR_FOR_RANGE || n->op == IR_FOR_ARRAY) && (n->swap || n->jam)) return;
    if (n->op == IR_BLOCK) find_sites(n);
    ir_each_written(n, walk);
}

static struct ir_node *COUNTED;
static int NCOUNT;

static void count_node(struct ir_node *n)
{
    if (!n) return;
    if (n == COUNTED) NCOUNT++;
    ir_each_written(n, count_node);
}

/* How many places n occurs in under fb (a shared subtree's, each). */
static int places(struct ir_node *fb, struct ir_node *n)
{
    COUNTED = n, NCOUNT = 0;
    count_node(fb);
    return NCOUNT;
}

static bool marks(const struct site *s, const struct ir_node *check)
{
    for (int m = 0; m < s->nmarks; m++)
        if (s->marks[m].check == check) return true;
    return false;
}

/* Whether sites i and j are of one fusion: the same conversion, or a check
 * both mark (a copy's store shared by the copies' conversions). */
static bool linked(int i, int j)
{
    if (SITES[i].conv == SITES[j].conv) return true;
    for (int m = 0; m < SITES[i].nmarks; m++)
        if (marks(&SITES[j], SITES[i].marks[m].check)) return true;
    return false;
}

static int *GROUP; /* each site's fusion: the least site linked to it, through others */

/* Groups the sites into fusions. */
static void group_sites(void)
{
    GROUP = arena_alloc((size_t)(NSITES + 1) * sizeof *GROUP);
    for (int i = 0; i < NSITES; i++) GROUP[i] = i;
    for (bool changed = true; changed;) {
        changed = false;
        for (int i = 0; i < NSITES; i++)
            for (int j = i + 1; j < NSITES; j++)
                if (GROUP[i] != GROUP[j] && linked(i, j)) {
                    int lo = GROUP[i] < GROUP[j] ? GROUP[i] : GROUP[j];
                    GROUP[i] = GROUP[j] = lo;
                    changed = true;
                }
    }
}

/* Whether fusion g is made: its conversions (copies of one: the same place
 * and inlined call) were found at each place each occurs, and each check
 * they mark is marked at each place it occurs. */
static bool all_places(struct ir_node *fb, int g)
{
    struct ir_node *conv = SITES[g].conv;
    for (int j = 0; j < NSITES; j++) {
        if (GROUP[j] != g) continue;
        const struct ir_node *c = SITES[j].conv;
        if (memcmp(&c->loc, &conv->loc, sizeof c->loc) != 0) return false;
        int found = 0;
        for (int h = 0; h < NSITES; h++) found += SITES[h].conv == c;
        if (found != places(fb, SITES[j].conv)) return false;
        for (int m = 0; m < SITES[j].nmarks; m++) {
            struct ir_node *check = SITES[j].marks[m].check;
            int marked = 0;
            for (int h = 0; h < NSITES; h++) marked += marks(&SITES[h], check);
            if (marked != places(fb, check)) return false;
        }
    }
    return true;
}

/* Inserts `let x = X` before statement at of block b, unless there. */
static void insert_let(struct ir_node *b, struct ir_node *at, struct ir_var *x, struct ir_node *X, struct loc loc)
{
    int k = 0;
    while (k < b->nkids && b->kids[k] != at) k++;
    if (k == b->nkids) internal_error("bins: a site's statement not in its block");
    if (k > 0 && b->kids[k - 1]->op == IR_LET && b->kids[k - 1]->var == x) return; /* a shared block, met again */
    struct ir_node **kids = arena_alloc((size_t)(b->nkids + 1) * sizeof *kids);
    memcpy(kids, b->kids, (size_t)k * sizeof *kids);
    kids[k] = ir_mk_stmt(IR_LET, x, X, loc);
    memcpy(kids + k + 1, b->kids + k, (size_t)(b->nkids - k) * sizeof *kids);
    b->kids = kids;
    b->nkids++;
}

/* Makes the fusions of function body fb found at all their places: each
 * conversion's operand in a let of its own (one variable for a fusion's
 * copies) unless all are one variable, the conversions raw, the checks
 * testing one of them (the copies print the same panic). */
static void bins_fuse(struct ir_node *fb)
{
    group_sites();
    for (int g = 0; g < NSITES; g++) {
        if (GROUP[g] != g || !all_places(fb, g)) continue;
        struct ir_node *conv = SITES[g].conv, *X = conv->a;
        bool one_var = X->op == IR_VAR;
        for (int j = g; j < NSITES && one_var; j++)
            if (GROUP[j] == g) one_var = SITES[j].conv->a->op == IR_VAR && SITES[j].conv->a->var == X->var;
        struct ir_var *x = one_var ? NULL : ir_new_temp(PP, ty_float, conv->loc);
        for (int j = g; j < NSITES; j++) {
            struct site *s = &SITES[j];
            if (GROUP[j] != g) continue;
            if (x) insert_let(s->block, s->at, x, s->conv->a, s->conv->loc);
            for (int m = 0; m < s->nmarks; m++) s->marks[m].check->f2i_conv = conv;
        }
        for (int j = g; j < NSITES; j++) {
            struct ir_node *c = SITES[j].conv;
            if (GROUP[j] != g || c->f2i_later) continue;
            if (x) {
                c->a = ir_mk_var(x, c->loc);
            }
            c->f2i_later = true;
        }
    }
    NSITES = 0;
}

void opt_bins(struct ir_program *ir)
{
    PP = ir;
    for (int i = 0; i < ir->fns.len; i++) {
        struct ir_node *body = ((struct ir_fn *)ir->fns.items[i])->body;
        walk(body);
        bins_fuse(body);
    }
}
