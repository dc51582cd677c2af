/*
 * opt_relations.c: facts between int variables (relations, as the poset
 * of x <= y + c facts that Go's prove pass keeps), and the index checks
 * they prove. opt_range.c knows an interval of each variable; an index
 * such as band[i][j - i + w] with j in max(0, i - w) .. min(n - 1, i + w) + 1
 * needs what j is to i and w, not what j is alone.
 *
 * A fact bounds a variable by a linear form (c1 * a1 + ... + k) of atoms:
 * int variables the function never assigns (lets, parameters, range
 * variables its body never assigns) and len(xs) of an array it never
 * assigns or resizes. Such a variable has one value wherever its facts are
 * read, so a fact stays true in all its scope. A walk of each function in
 * execution order collects them:
 *   - `let v = e`: v >= each lower form of e, v <= each upper form (e
 *     linear: v = e; max(a, b) is at least a and at least b, min(a, b) at
 *     most each; + - and * by a literal combine them);
 *   - `for j in lo..hi` (a generator's too): j >= lo's lower forms, j <=
 *     hi's upper forms less 1 (hi's when inclusive);
 *   - an if's condition (and its right side of `and`, a while's body)
 *     `a < b`, `a >= b`, ...: bounds of a by b and of b by a, on the branch
 *     that knows them (its negation on the else branch).
 * The facts are popped where their scope ends.
 *
 * An index is proved `x >= 0` by substituting, term by term, a lower fact
 * of each atom of positive coefficient (an upper fact of one of negative
 * coefficient) until a literal is left (len(xs) >= 0 drops), a few steps
 * deep. An index of an array variable whose length is an atom, proved at
 * least 0 and at most len(xs) - 1, is in_bounds: no check, no guard. An
 * index proved at least 0 but not below the length (a row band[i], whose
 * length no fact knows) gets idx_upper, the form it is at most with the
 * outermost atoms found (2 * w, not hi - i + w): opt_loops.c guards the
 * loop by that one index, tested once per entry (ir.h: a fixed guard with
 * a base), instead of the whole span of i + base.
 */
#include "ir.h"

#include <stdlib.h>
#include <string.h>

#define MAXT 6               /* terms of a form */
#define MAXB 4               /* forms of a bound */
#define BIG ((int64_t)1 << 40) /* coefficients and literals stay far below overflow */
#define DEPTH 6              /* substitutions of one proof */
#define BUDGET 4000          /* steps of one proof */

/* A linear form: sum of c[i] * atom i, plus k; an atom is var v[i], or
 * len(v[i]) when len[i]. */
struct lin {
    int n;
    struct ir_var *v[MAXT];
    bool len[MAXT];
    int64_t c[MAXT];
    int64_t k;
};

struct bounds {
    int n;
    struct lin f[MAXB];
};

/* A fact: var <= f (upper), var >= f (else). */
struct fact {
    struct ir_var *var;
    bool upper;
    struct lin f;
};

static struct fact *FACTS;
static int NFACTS, CAPFACTS;
static unsigned char *CHANGED; /* by var id: assigned, or an array resized */
static int *LEVEL;             /* by var id: loops around its definition */
static int LOOPS;              /* loops around the walk's place */
static int STEPS;

static void note_changed(struct ir_var *v) { CHANGED[v->id] = 1; }

static bool int_atom(struct ir_var *v) { return v && v->type == ty_int && !CHANGED[v->id]; }

static bool len_atom(struct ir_var *v) { return v && v->type->kind == T_ARRAY && !CHANGED[v->id]; }

static bool small(int64_t x) { return x > -BIG && x < BIG; }

/* f + c * atom; false when too long or too large. */
static bool add_term(struct lin *f, struct ir_var *v, bool len, int64_t c)
{
    if (!small(c)) return false;
    for (int i = 0; i < f->n; i++)
        if (f->v[i] == v && f->len[i] == len) {
            f->c[i] += c;
            if (!small(f->c[i])) return false;
            if (f->c[i] == 0) {
                f->n--;
                f->v[i] = f->v[f->n], f->len[i] = f->len[f->n], f->c[i] = f->c[f->n];
            }
            return true;
        }
    if (c == 0) return true;
    if (f->n == MAXT) return false;
    f->v[f->n] = v, f->len[f->n] = len, f->c[f->n++] = c;
    return true;
}

/* a + m * b */
static bool combine(struct lin *r, const struct lin *a, int64_t m, const struct lin *b)
{
    *r = *a;
    for (int i = 0; i < b->n; i++)
        if (!small(b->c[i]) || !add_term(r, b->v[i], b->len[i], b->c[i] * m)) return false;
    r->k += m * b->k;
    return small(r->k);
}

static void put(struct bounds *bs, struct lin f)
{
    if (bs->n < MAXB) bs->f[bs->n++] = f;
}

static struct bounds forms(struct ir_node *e, bool upper);

/* The forms of a op b (op + or -) from each side's. */
static struct bounds cross(struct ir_node *a, struct ir_node *b, int64_t sign, bool upper)
{
    struct bounds x = forms(a, upper), y = forms(b, sign > 0 ? upper : !upper), r = {0};
    for (int i = 0; i < x.n; i++)
        for (int j = 0; j < y.n; j++) {
            struct lin f;
            if (combine(&f, &x.f[i], sign, &y.f[j])) put(&r, f);
        }
    return r;
}

/* Linear forms e is at most (upper) or at least: none where it knows none. */
static struct bounds forms(struct ir_node *e, bool upper)
{
    struct bounds r = {0};
    if (!e || e->type != ty_int) return r;
    struct lin f = {0};
    switch (e->op) {
    case IR_INT:
        f.k = (int64_t)(uint64_t)e->ival;
        if (small(f.k)) put(&r, f);
        return r;
    case IR_VAR:
        if (int_atom(e->var) && add_term(&f, e->var, false, 1)) put(&r, f);
        return r;
    case IR_BUILTIN:
        if (e->builtin == BI_LEN && e->nkids == 1 && e->kids[0]->op == IR_VAR && len_atom(e->kids[0]->var) &&
            add_term(&f, e->kids[0]->var, true, 1))
            put(&r, f);
        /* max(a, b) is at least each, min(a, b) at most each */
        if ((e->builtin == BI_MAX2 && !upper) || (e->builtin == BI_MIN2 && upper))
            for (int i = 0; i < e->nkids; i++) {
                struct bounds k = forms(e->kids[i], upper);
                for (int j = 0; j < k.n; j++) put(&r, k.f[j]);
            }
        return r;
    case IR_BINARY:
        if (e->optype != ty_int) return r;
        if (e->bop == OP_ADD || e->bop == OP_SUB) return cross(e->a, e->b, e->bop == OP_ADD ? 1 : -1, upper);
        if (e->bop == OP_MUL && (e->a->op == IR_INT || e->b->op == IR_INT)) {
            struct ir_node *lit = e->a->op == IR_INT ? e->a : e->b, *x = lit == e->a ? e->b : e->a;
            int64_t m = (int64_t)(uint64_t)lit->ival;
            if (!small(m)) return r;
            struct bounds k = forms(x, m >= 0 ? upper : !upper);
            struct lin zero = {0};
            for (int j = 0; j < k.n; j++)
                if (combine(&f, &zero, m, &k.f[j])) put(&r, f);
        }
        return r;
    default: return r;
    }
}

static void push_fact(struct ir_var *v, bool upper, struct lin f)
{
    if (NFACTS == CAPFACTS) {
        CAPFACTS = CAPFACTS ? 2 * CAPFACTS : 64;
        FACTS = xrealloc(FACTS, (size_t)CAPFACTS * sizeof *FACTS);
    }
    FACTS[NFACTS++] = (struct fact){v, upper, f};
}

/* v bounded by e's forms (less adj): v <= e + adj (upper), or v >= e + adj. */
static void bound_by(struct ir_var *v, bool upper, struct ir_node *e, int64_t adj)
{
    if (!int_atom(v)) return;
    struct bounds b = forms(e, upper);
    for (int i = 0; i < b.n; i++) {
        b.f[i].k += adj;
        push_fact(v, upper, b.f[i]);
    }
}

/* The facts of condition c holding (truth) or not. */
static void assume(struct ir_node *c, bool truth)
{
    if (!c) return;
    if (c->op == IR_NOT) return assume(c->a, !truth);
    if (c->op == IR_AND && truth) {
        assume(c->a, true);
        assume(c->b, true);
        return;
    }
    if (c->op == IR_OR && !truth) {
        assume(c->a, false);
        assume(c->b, false);
        return;
    }
    if (c->op != IR_BINARY || c->optype != ty_int) return;
    enum op op = c->bop;
    if (op != OP_LT && op != OP_LE && op != OP_GT && op != OP_GE && op != OP_EQ && op != OP_NE) return;
    if (!truth)
        op = op == OP_LT ? OP_GE : op == OP_LE ? OP_GT : op == OP_GT ? OP_LE : op == OP_GE ? OP_LT : op == OP_EQ ? OP_NE : OP_EQ;
    struct ir_node *a = c->a, *b = c->b;
    if (op == OP_GT || op == OP_GE) { /* as b < a, b <= a */
        a = c->b, b = c->a;
        op = op == OP_GT ? OP_LT : OP_LE;
    }
    int64_t gap = op == OP_LT ? 1 : 0;
    if (op == OP_LT || op == OP_LE || op == OP_EQ) {
        /* a <= b - gap, b >= a + gap */
        if (a->op == IR_VAR) bound_by(a->var, true, b, -gap);
        if (b->op == IR_VAR) bound_by(b->var, false, a, gap);
    }
    if (op == OP_EQ) {
        if (a->op == IR_VAR) bound_by(a->var, false, b, 0);
        if (b->op == IR_VAR) bound_by(b->var, true, a, 0);
    }
}

/* Whether f >= 0 follows from the facts, substituting at most depth. */
static bool nonneg(const struct lin *f, int depth)
{
    if (f->n == 0) return f->k >= 0;
    if (depth == 0 || ++STEPS > BUDGET) return false;
    for (int t = 0; t < f->n; t++) {
        struct lin term = {0}, g;
        if (!add_term(&term, f->v[t], f->len[t], 1)) return false;
        if (f->len[t]) {
            /* len(xs) >= 0: drop a positive one */
            if (f->c[t] > 0 && combine(&g, f, -f->c[t], &term) && nonneg(&g, depth - 1)) return true;
            continue;
        }
        for (int i = NFACTS - 1; i >= 0; i--) {
            struct fact *x = &FACTS[i];
            if (x->var != f->v[t] || x->upper != (f->c[t] < 0)) continue;
            struct lin h;
            if (combine(&g, f, -f->c[t], &term) && combine(&h, &g, f->c[t], &x->f) && nonneg(&h, depth - 1)) return true;
        }
    }
    return false;
}

/* How deep f's atoms lie (the most loops around one's definition), or
 * INT32_MAX when it has a len: the guard's base reads variables only. */
static int depth_of(const struct lin *f)
{
    int d = -1;
    for (int i = 0; i < f->n; i++) {
        if (f->len[i]) return INT32_MAX;
        if (LEVEL[f->v[i]->id] > d) d = LEVEL[f->v[i]->id];
    }
    return d;
}

/* The best upper form of f by substitution: the outermost atoms, then the
 * fewest terms. */
static void best_upper(const struct lin *f, int depth, struct lin *best)
{
    int d = depth_of(f), bd = depth_of(best);
    if (d < bd || (d == bd && f->n < best->n)) *best = *f;
    if (depth == 0 || ++STEPS > BUDGET) return;
    for (int t = 0; t < f->n; t++) {
        if (f->len[t]) continue;
        struct lin term = {0}, g, h;
        if (!add_term(&term, f->v[t], false, 1)) return;
        for (int i = NFACTS - 1; i >= 0; i--) {
            struct fact *x = &FACTS[i];
            if (x->var != f->v[t] || x->upper != (f->c[t] > 0)) continue;
            if (combine(&g, f, -f->c[t], &term) && combine(&h, &g, f->c[t], &x->f)) best_upper(&h, depth - 1, best);
        }
    }
}

/* Form f as an int expression (+ - * of its variables and literals). */
static struct ir_node *form_expr(const struct lin *f, struct loc loc)
{
    struct ir_node *e = NULL;
    int order[MAXT], no = 0;
    for (int i = 0; i < f->n; i++) /* the positive terms first: hi - lo - 1, not 0 - lo + hi - 1 */
        if (f->c[i] > 0) order[no++] = i;
    for (int i = 0; i < f->n; i++)
        if (f->c[i] < 0) order[no++] = i;
    for (int o = 0; o < no; o++) {
        int i = order[o];
        int64_t c = f->c[i];
        struct ir_node *t = ir_mk_var(f->v[i], loc);
        int64_t m = c < 0 ? -c : c;
        if (m != 1) t = ir_mk_bin(OP_MUL, t, ir_mk_int(m, loc), ty_int);
        if (!e) e = c < 0 ? ir_mk_bin(OP_SUB, ir_mk_int(0, loc), t, ty_int) : t;
        else e = ir_mk_bin(c < 0 ? OP_SUB : OP_ADD, e, t, ty_int);
    }
    if (!e) return ir_mk_int(f->k, loc);
    if (f->k) e = ir_mk_bin(f->k < 0 ? OP_SUB : OP_ADD, e, ir_mk_int(f->k < 0 ? -f->k : f->k, loc), ty_int);
    return e;
}

/* The index idx into arr (an array variable, or NULL: another array, a
 * row): in_bounds when proved inside arr, else idx_upper when proved at
 * least 0 (node n: the index or store that gets the mark). */
static void prove_index(struct ir_node *n, struct ir_var *arr, struct ir_node *idx)
{
    if (n->in_bounds || idx->type != ty_int) return;
    struct bounds lo = forms(idx, false), hi = forms(idx, true);
    bool low = false;
    for (int i = 0; i < lo.n && !low; i++) {
        STEPS = 0;
        low = nonneg(&lo.f[i], DEPTH);
    }
    if (!low) return;
    if (arr && len_atom(arr))
        for (int i = 0; i < hi.n; i++) {
            /* len(arr) - 1 - idx >= 0 */
            struct lin len = {0}, g;
            STEPS = 0;
            if (add_term(&len, arr, true, 1) && combine(&g, &len, -1, &hi.f[i]) && (g.k -= 1, true) &&
                nonneg(&g, DEPTH)) {
                n->in_bounds = true;
                return;
            }
        }
    if (n->op != IR_INDEX || hi.n == 0) return;
    struct lin best = hi.f[0];
    for (int i = 0; i < hi.n; i++) {
        STEPS = 0;
        best_upper(&hi.f[i], DEPTH, &best);
    }
    /* a form of the index itself saves nothing over the span guard */
    if (depth_of(&best) < depth_of(&hi.f[0]) || best.n < hi.f[0].n) n->idx_upper = form_expr(&best, idx->loc);
}

/* `j >= 0 and j < n` with n >= 0: one unsigned compare (ir.h: one_compare);
 * both sides are reads of variables, so neither order nor panics change. */
static void one_compare(struct ir_node *n)
{
    struct ir_node *a, *b;
    ir_one_compare(n, &a, &b);
    if (!b) return;
    struct bounds lo = forms(b, false);
    for (int i = 0; i < lo.n && !n->one_compare; i++) {
        STEPS = 0;
        n->one_compare = nonneg(&lo.f[i], DEPTH);
    }
}

static void walk(struct ir_node *n);

static void walk_kid(struct ir_node *n) { walk(n); }

/* Variable v defined here, bounded by its range lo .. hi (a loop's). */
static void range_facts(struct ir_var *v, struct ir_iter *it)
{
    if (!it->is_range) return;
    bound_by(v, false, it->lo, 0);
    bound_by(v, true, it->hi, it->inclusive ? 0 : -1);
}

static void define(struct ir_var *v)
{
    if (v) LEVEL[v->id] = LOOPS;
}

/* An if's or a conditional's branches: b knows its condition a, c its
 * negation (mark: the facts before it). */
static void branches(struct ir_node *n, int mark)
{
    walk(n->a);
    assume(n->a, true);
    walk(n->b);
    NFACTS = mark;
    assume(n->a, false);
    walk(n->c);
}

static void walk(struct ir_node *n)
{
    if (!n) return;
    int mark = NFACTS;
    if (ir_is_expr(n)) {
        switch (n->eop) {
        case IR_INDEX:
            walk(n->a);
            walk(n->b);
            prove_index(n, n->a->op == IR_VAR ? n->a->var : NULL, n->b);
            return;
        case IR_AND:
        case IR_OR:
            if (n->op == IR_AND) one_compare(n); /* by the facts before it: its own hold only where it is true */
            walk(n->a);
            assume(n->a, n->op == IR_AND);
            walk(n->b);
            break;
        case IR_COND: branches(n, mark); break;
        case IR_LISTCOMP:
        case IR_REDUCE:
            if (n->nclauses || n->user || n->key) {
                ir_each_child(n, walk_kid);
                break;
            }
            walk(n->iter.lo);
            walk(n->iter.hi);
            walk(n->iter.array);
            LOOPS++;
            define(n->gen_var);
            range_facts(n->gen_var, &n->iter);
            walk(n->filter);
            assume(n->filter, true);
            walk(n->elem);
            LOOPS--;
            break;
        default: ir_each_child(n, walk_kid); break;
        }
        NFACTS = mark;
        return;
    }
    switch (n->sop) {
    case IR_LET:
        walk(n->a);
        define(n->var);
        if (int_atom(n->var)) {
            bound_by(n->var, false, n->a, 0);
            bound_by(n->var, true, n->a, 0);
        }
        return; /* its facts hold to the end of the block */
    case IR_BLOCK:
        for (int i = 0; i < n->nkids; i++) walk(n->kids[i]);
        break;
    case IR_IF: branches(n, mark); break;
    case IR_WHILE:
        walk(n->a);
        LOOPS++;
        assume(n->a, true);
        walk(n->b);
        LOOPS--;
        break;
    case IR_FOR_RANGE:
    case IR_FOR_ARRAY:
        walk(n->iter.lo);
        walk(n->iter.hi);
        walk(n->iter.array);
        LOOPS++;
        define(n->var);
        if (n->op == IR_FOR_RANGE) range_facts(n->var, &n->iter);
        walk(n->b);
        LOOPS--;
        break;
    case IR_STORE:
        ir_each_child(n, walk_kid);
        if (ir_store_one_index(n)) prove_index(n, n->var, n->kids[0]);
        break;
    case IR_ASSIGN: case IR_PUSH: case IR_UNIQUE: case IR_EXPR: case IR_RETURN: case IR_BREAK: case IR_CONTINUE:
    case IR_UNREACHABLE:
        ir_each_child(n, walk_kid);
        break;
    }
    NFACTS = mark;
}

void opt_relations(struct ir_program *ir)
{
    opt_growth(ir); /* its copies' facts are this pass's and the later ones' */
    size_t nv = (size_t)ir->nvars + 2;
    CHANGED = xmalloc(nv);
    LEVEL = xmalloc(nv * sizeof *LEVEL);
    for (int i = 0; i < ir->fns.len; i++) {
        struct ir_fn *f = ir->fns.items[i];
        memset(CHANGED, 0, nv);
        memset(LEVEL, 0, nv * sizeof *LEVEL);
        ir_each_change(f->body, note_changed);
        NFACTS = LOOPS = 0;
        walk(f->body);
    }
    free(CHANGED);
    free(LEVEL);
    free(FACTS);
    FACTS = NULL;
    NFACTS = CAPFACTS = 0;
}
