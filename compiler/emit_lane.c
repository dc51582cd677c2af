/*
 * emit_lane.c: the lane vectoriser, the C emitter's third room (emit_c.h):
 * bp_leaves<n> of a par reduction with its leaves folded side by side.
 *
 * Float leaves() folds 4 full leaves at once: lane q takes leaf b+q and
 * folds it one element per step, left to right from the start value, so
 * every leaf sees exactly the operations of the one-leaf scalar fold, in the
 * same order; only independent leaves sit side by side. The lanes are
 * written out as scalar locals, one statement per lane per element: gcc -O2
 * keeps them in registers and its SLP pass pairs them in SSE2 registers
 * (addpd, divpd); tcc runs the same statements one by one, same bits.
 * Integer leaves over a range whose element reads no array go 16 per
 * block as a loop over the lanes (arrays acc_[q_], ov_[q_]), which gcc's
 * loop vectorizer turns into vector operations over the leaves; other
 * integer leaves go one per block (their wrapped fold is order-free, the
 * loop over the leaf's elements is vectorized). The lane code must not
 * panic: operations that can fail (checked integer +, -, *, unhoisted
 * indexing, conversions) compute a wrapped or clamped value and raise the
 * block's flag ovf_ (wide: the lane's ov_[q_]), or, affine in the range
 * variable, are checked once per call at the range's two ends (lane_span);
 * a flagged block is re-run by the scalar leaves function, which panics at
 * the exact place (or, for a conservative flag that was a false alarm, just
 * computes the same values). Anything else that could panic, allocate or
 * have an effect keeps the scalar form.
 *
 * Staged float leaves: an element that calls exp, exp2, log, log2, log10,
 * sin, cos or tan (brine_math.h's BRT_LANES_MATH), anywhere in the element (in a call
 * written in place, a branch, the filter), goes BRT_LANES leaves side
 * by side, and each step is cut into stages at those calls: a stage's
 * statements for every lane, then one brt_lanes_<name> call for all the
 * lanes' arguments (runtime/math_lanes.c: vector code, the scalar
 * function's bits in every lane), then the next stage. The lanes'
 * statements share one scope, their temporaries named per lane (t<n>_<q>).
 * Each leaf still folds its elements in order, so the bits are the scalar
 * fold's.
 *
 * Sequential elements (emit_lane_elems, for emit_par.c's sequential float
 * sums and products and the loops that accumulate one): the same staged
 * function over leaves of one element each (BRT_LEAF written 1), each leaf
 * the element's value alone (a sum's leaf starts from -0.0, x + -0.0 being
 * x for every double; a product's from 1.0), which the caller folds in
 * order. Its places are its caller's (a par element's only inside one).
 */
#include "emit_c.h"

#include <stdlib.h>
#include <string.h>

/* Leaves per block: floats 4 side by side (each must fold in order; gcc's
 * SLP packs them two per SSE2 register, and 8 lanes measured no faster: the
 * arrays are memory-bound, divisions divpd-bound), staged floats (calls of
 * math functions with a lanes form) BRT_LANES (32), the lanes calls' width:
 * the math's double-double steps are long dependency chains, and a call
 * over 32 lanes is a loop of eight independent AVX2 vectors the processor
 * overlaps (per element of a par sum of sin, against 8 lanes: 0.7 times
 * the time, exp 0.55, log 0.7); integers over a range
 * whose element reads no array 16 side by side, as a loop over the lanes
 * (wide, below); other integers one leaf per block (their wrapped fold is
 * order-free, the j loop has the parallelism). */
enum { WIDE_LANES = 16 };
static int lane_width(struct ir_node *rn, bool wide, bool staged)
{
    return wide ? WIDE_LANES : rn->type != ty_float ? 1 : staged ? BRT_LANES : 4;
}

/* Writes the template text for lane q: every `name[q_]` becomes `nameq`,
 * every `{q_}` q (an index into a staged call's arrays). */
static void lane_put(struct buf *out, const char *text, int q)
{
    if (!text) return;
    for (const char *p = text; *p;) {
        const char *m = strstr(p, "[q_]"), *c = strstr(p, "{q_}");
        if (c && (!m || c < m)) m = c;
        if (!m) {
            bputs(out, p);
            break;
        }
        bprintf(out, "%.*s%d", (int)(m - p), p, q);
        p = m + 4;
    }
}

struct lanes {
    struct ir_node *rn;
    bool fail;                   /* something that cannot run in lanes */
    /* wide: the lanes are a loop over WIDE_LANES leaves (acc_[q_], ov_[q_]
     * real arrays), the element's operations each one vector operation
     * over the leaves; reads: the element reads an array per element
     * (lanes of leaves 16 elements apart would gather it); novec: it has
     * an operation gcc does not vectorize (a 64-bit division by a constant
     * other than a power of two: no 64-bit high multiply; a libm call), so
     * the lanes would run one by one, where the narrow form's accumulator
     * in a register is cheaper than the wide one's arrays: not wide */
    bool wide, reads, novec;
    /* staged (float leaves, BRT_LANES of them): a call of a function with
     * a lanes form (brine_math.h's BRT_LANES_MATH) ends a stage, and one
     * brt_lanes_<name> call computes it for every lane (vec_fn[v], its
     * arguments vi<v>_, results vo<v>_); the lanes' statements sit side by
     * side, their temporaries named per lane. stage: an unstaged try met
     * such a call (try again staged). */
    bool staged, stage;
    int nvec;
    const char *vec_fn[16];
    const char *gv;              /* this lane's value of the generator variable
                                  * (with clauses: of the innermost clause's) */
    /* The variable that steps by one per element in a lane (the generator
     * variable, with clauses the innermost clause's) and its source's lo,
     * as C text (lane q's first position in that source is kb_<q>) */
    struct ir_var *aff_var;
    bool aff_range;
    const char *aff_lo;
    /* several clauses: ncl later ones; clause c < ncl is constant in a run
     * of lane blocks (they lie inside one row), its value cgv[c] */
    int ncl;
    const char *cgv[16];
    const char *lrow_key[16], *lrow_name[16]; /* rows a[i] of a run, i an outer clause's */
    int nlrows;
    struct buf rinits;           /* a run's declarations and checks (they raise rovf_) */
    struct buf checks;           /* call-level statements that may clear ok_ */
    struct buf inits, steps;     /* per-lane declarations and per-step updates, as templates */
    const char *off_key[16], *off_name[16];
    int noff;
    const char *ind_key[16], *ind_name[16];
    int nind;
    const char *row_key[16], *row_name[16]; /* invariant rows a[i], read at call level */
    int nrows;
    const char *inv_key[16], *inv_name[16]; /* invariant int expressions (i * n), at call level */
    int ninv;
    /* calls written in place: the callee's parameters and locals bound to
     * their lane values, innermost last */
    struct ir_var *sub_var[64];
    const char *sub_val[64];
    int nsub, depth;
    /* the condition under which the scalar code evaluates the expression
     * being written (the right of and/or, a branch of if/else): only then
     * may it raise the flag; NULL: always */
    const char *fguard;
    /* int lane values affine in the range variable (lane_span): the lane
     * text, its values at vmin_ and at vmax_ (call-level C), invariant? */
    const char *sp_key[64], *sp_at0[64], *sp_at1[64];
    bool sp_inv[64];
    int sp_def[64]; /* made by lane_span: op, operands' entries (reused) */
    int nsp;
};
static struct lanes *LC;
/* emit_lane_elems: leaves of one element, each its element's value */
static bool SEQ;

/* A leaf's start value: a sequential sum's -0.0 (x + -0.0 is x) */
static const char *leaf_start(struct ir_node *rn, struct type *t)
{
    return SEQ && t == ty_float && rn->reducer == RED_SUM ? "bp_f64(0x8000000000000000ULL)" : start_value(rn->reducer, t);
}

static const char *lane_expr(struct ir_node *n);

static bool lane_scalar(struct type *t) { return t == ty_int || t == ty_u64 || t == ty_float || t == ty_bool; }

/* Which clause binds v (0: the first, the generator variable), or -1. */
static int clause_of(struct ir_var *v)
{
    if (v == LC->rn->gen_var) return 0;
    for (int c = 0; c < LC->rn->nclauses; c++)
        if (LC->rn->clauses[c].var == v) return c + 1;
    return -1;
}

static const char *lane_fail(void)
{
    LC->fail = true;
    return "0";
}

/* Raises the block's flag when the C condition holds (and the scalar code
 * would get there). */
static void lane_flag(const char *cond)
{
    /* wide: a flag per lane, so the flag is no reduction inside the lane
     * loop (a vector OR per step, folded once per block) */
    const char *f = LC->wide ? "ov_[q_]" : "ovf_";
    if (LC->fguard) line("%s |= (uint64_t)(%s) & (uint64_t)(%s);", f, LC->fguard, cond);
    else line("%s |= (uint64_t)(%s);", f, cond);
}

/* The flag guard for a part evaluated only when c holds. */
static const char *guard_and(const char *c)
{
    return LC->fguard ? arena_printf("(%s) & (%s)", LC->fguard, c) : c;
}

/* The lane value bound to a parameter or local of a call written in place. */
static const char *bound(struct ir_var *v)
{
    for (int i = LC->nsub - 1; i >= 0; i--)
        if (LC->sub_var[i] == v) return LC->sub_val[i];
    return NULL;
}

static bool bind(struct ir_var *v, const char *val)
{
    if (LC->nsub == 64) return false;
    LC->sub_var[LC->nsub] = v;
    LC->sub_val[LC->nsub++] = val;
    return true;
}

/* ---- affine spans: overflow checked at the range's two ends ------------------
 *
 * An int value built from the range variable i and invariants by +, - and
 * * by an invariant is affine in i: a * i + b, exactly, as long as no
 * operation on the way overflows. An affine value's values over the call's
 * i in [vmin_, vmax_] lie between its values at vmin_ and at vmax_, so if
 * every operation, computed at those two ends, fits (checked once per call,
 * at call level, where a failure sends the whole call to the scalar path,
 * which panics where it must or computes the same values), no operation
 * overflows for any i of the call, and the lanes compute them wrapped with
 * no flag. 3 * k + 1, k - n, (k + 2) * c are; k * k is not. */

/* Records lane text v as affine with values at0, at1 at the two ends. */
static void span_put(const char *v, const char *at0, const char *at1, bool inv)
{
    if (LC->nsp == 64) return;
    LC->sp_def[LC->nsp] = 0;
    LC->sp_key[LC->nsp] = v;
    LC->sp_at0[LC->nsp] = at0;
    LC->sp_at1[LC->nsp] = at1;
    LC->sp_inv[LC->nsp++] = inv;
}

/* Whether int expression n, written as lane text v, is affine (its index
 * in the table): a value recorded already (the range variable, an
 * operation below, a parameter or let bound to one), or an invariant
 * (a literal, a captured variable, a constant), recorded here. */
static int span_of(struct ir_node *n, const char *v)
{
    if (n->type != ty_int) return -1;
    for (int i = 0; i < LC->nsp; i++)
        if (strcmp(LC->sp_key[i], v) == 0) return i;
    bool inv = n->op == IR_INT || n->op == IR_GLOBAL ||
               (n->op == IR_VAR && clause_of(n->var) < 0 && !bound(n->var) && F->vst[n->var->id]);
    if (!inv || LC->nsp == 64) return -1;
    span_put(v, v, v, true);
    return LC->nsp - 1;
}

/* a op b (+, -, *) of affine a and b (for *, one of them invariant): the
 * two ends checked at call level; records the lane result r. Returns
 * false (the lanes raise the flag) when it is not affine. */
static bool lane_span(struct ir_node *n, const char *a, const char *b, const char *r)
{
    enum op op = n->bop;
    int x = span_of(n->a, a), y = x >= 0 ? span_of(n->b, b) : -1;
    if (y < 0 || LC->nsp == 64) return false;
    bool inv = LC->sp_inv[x] && LC->sp_inv[y];
    if (op == OP_MUL && !LC->sp_inv[x] && !LC->sp_inv[y]) return false;
    /* the same operation of the same values (3 * k in each of three
     * calls): checked once */
    int def = ((int)op * 64 + x) * 64 + y + 1;
    for (int i = 0; i < LC->nsp; i++)
        if (LC->sp_def[i] == def) {
            span_put(r, LC->sp_at0[i], LC->sp_at1[i], inv);
            LC->sp_def[LC->nsp - 1] = def;
            return true;
        }
    const char *at0, *at1;
    if (inv) {
        at0 = at1 = arena_printf("sp%d_", LC->nsp);
    } else {
        at0 = arena_printf("sp%d_a", LC->nsp);
        at1 = arena_printf("sp%d_b", LC->nsp);
    }
    const char *ends[2][3] = {{at0, LC->sp_at0[x], LC->sp_at0[y]}, {at1, LC->sp_at1[x], LC->sp_at1[y]}};
    bprintf(&LC->checks, "        int64_t %s = 0;\n", at0);
    if (!inv) bprintf(&LC->checks, "        int64_t %s = 0;\n", at1);
    for (int e = 0; e < (inv ? 1 : 2); e++) {
        const char *v = ends[e][0], *p = ends[e][1], *q = ends[e][2];
        if (op == OP_MUL)
            /* the portable test (no builtins in tcc), once per call */
            bprintf(&LC->checks,
                    "        if (ok_ && %s != 0 && %s != 0 && (%s > 0 ? (%s > 0 ? %s > INT64_MAX / %s : %s < INT64_MIN / %s)\n"
                    "                                          : (%s > 0 ? %s < INT64_MIN / %s : %s < INT64_MAX / %s))) ok_ = 0;\n",
                    p, q, p, q, p, q, q, p, q, p, q, p, q);
        bprintf(&LC->checks, "        %s = (int64_t)((uint64_t)%s %s (uint64_t)%s);\n", v, p, op_c[op], q);
        if (op != OP_MUL)
            bprintf(&LC->checks, "        if (ok_ && BRT_%s_OVF_I64(%s, %s, %s)) ok_ = 0;\n", op == OP_ADD ? "ADD" : "SUB", p, q, v);
    }
    span_put(r, at0, at1, inv);
    LC->sp_def[LC->nsp - 1] = def;
    return true;
}

/* A loop-invariant int: a literal, a captured variable, a constant, or +, -,
 * * of those (computed at call level, where a possible overflow sends the
 * call to the scalar path). */
static const char *lane_inv(struct ir_node *n)
{
    if (n->type != ty_int) return NULL;
    if (n->op == IR_INT) return int_lit(ty_int, n->ival);
    if (n->op == IR_VAR && clause_of(n->var) < 0 && !bound(n->var) && F->vst[n->var->id]) return vname(n->var);
    if (n->op == IR_GLOBAL) return arena_printf("g%d", n->global->id);
    /* i * n, i + 1, ... of invariants: computed once per call, at call
     * level; where it could overflow the call takes the scalar path, which
     * panics where it must */
    if (n->op != IR_BINARY || n->optype != ty_int || (n->bop != OP_ADD && n->bop != OP_SUB && n->bop != OP_MUL))
        return NULL;
    const char *a = lane_inv(n->a), *b = a ? lane_inv(n->b) : NULL;
    if (!a || !b) return NULL;
    const char *key = arena_printf("(%s %s %s)", a, op_c[n->bop], b);
    for (int i = 0; i < LC->ninv; i++)
        if (strcmp(LC->inv_key[i], key) == 0) return LC->inv_name[i];
    if (LC->ninv == 16) return NULL;
    const char *v = arena_printf("iv%d_", LC->ninv);
    const char *fits = n->bop == OP_MUL
        ? arena_printf("((uint64_t)%s + 0x80000000ULL <= 0xFFFFFFFFULL) & ((uint64_t)%s + 0x80000000ULL <= 0xFFFFFFFFULL)", a, b)
        : arena_printf("!BRT_%s_OVF_I64(%s, %s, %s)", n->bop == OP_ADD ? "ADD" : "SUB", a, b, v);
    bprintf(&LC->checks, "        int64_t %s = (int64_t)((uint64_t)%s %s (uint64_t)%s);\n        if (!(%s)) ok_ = 0;\n", v, a,
            op_c[n->bop], b, fits);
    LC->inv_key[LC->ninv] = key;
    LC->inv_name[LC->ninv++] = v;
    return v;
}

/* Whether n is `i`, `i + c`, `c + i` or `i - c` for the generator variable i
 * of an int range and an invariant c; returns the call-level variable
 * holding the offset (c or -c), or NULL. */
static const char *lane_affine(struct ir_node *n)
{
    struct ir_var *av = LC->aff_var;
    if (!LC->aff_range || av->type != ty_int) return NULL;
    const char *c = NULL;
    bool neg = false;
    if (n->op == IR_VAR && n->var == av) {
        c = "0";
    } else if (n->op == IR_BINARY && n->optype == ty_int && (n->bop == OP_ADD || n->bop == OP_SUB)) {
        bool agv = n->a->op == IR_VAR && n->a->var == av;
        bool bgv = n->b->op == IR_VAR && n->b->var == av;
        if (agv && (c = lane_inv(n->b))) neg = n->bop == OP_SUB;
        else if (bgv && n->bop == OP_ADD && (c = lane_inv(n->a))) neg = false;
        else c = NULL;
    }
    if (!c) return NULL;
    const char *key = arena_printf("%s%s", neg ? "-" : "+", c);
    for (int i = 0; i < LC->noff; i++)
        if (strcmp(LC->off_key[i], key) == 0) return LC->off_name[i];
    if (LC->noff == 16) return NULL;
    const char *o = arena_printf("o%d_", LC->noff);
    if (neg)
        /* -(c): c may be a negative literal, and --4LL is a decrement */
        bprintf(&LC->checks, "        int64_t %s = 0;\n        if (%s == INT64_MIN) ok_ = 0; else %s = -(%s);\n", o, c, o, c);
    else
        bprintf(&LC->checks, "        int64_t %s = %s;\n", o, c);
    LC->off_key[LC->noff] = key;
    LC->off_name[LC->noff++] = o;
    return o;
}

/* float(i + c) as a double induction value per lane: exact while every
 * value of the call lies in [-2^53, 2^53] (checked once per call; SSE2 has
 * no int64 -> double vector conversion). */
static const char *lane_induction(struct ir_node *n)
{
    /* wide lanes convert each value (a vector conversion where the target
     * has one; the same correctly rounded value) */
    if (LC->wide) return NULL;
    const char *o = lane_affine(n);
    if (!o) return NULL;
    for (int i = 0; i < LC->nind; i++)
        if (strcmp(LC->ind_key[i], o) == 0) return arena_printf("%s[q_]", LC->ind_name[i]);
    if (LC->nind == 16) return NULL;
    const char *fi = arena_printf("fi%d_", LC->nind);
    bprintf(&LC->checks, "        if (ok_ && !bp_span(vmin_, vmax_, %s, -BP_EXACT, BP_EXACT)) ok_ = 0;\n", o);
    /* lane q's start is lane 0's plus q BRT_LEAF, in double: exact, both
     * and the sum being integers in the span; the starts are then one
     * splat and a constant vector, which gcc's SLP takes on every target
     * (converted lane by lane they stayed scalar with AVX-512: every
     * lane's product stored 8 bytes at a time, --cpu=native par sums of
     * math lanes 10% slower than the generic build) */
    bprintf(&LC->inits, "                double %s[q_] = (double)((int64_t)((uint64_t)%s + (uint64_t)kb_0) + %s) + (double)({q_} * BRT_LEAF);\n",
            fi, LC->aff_lo, o);
    bprintf(&LC->steps, "                        %s[q_] = %s[q_] + 1.0;\n", fi, fi);
    LC->ind_key[LC->nind] = o;
    LC->ind_name[LC->nind++] = fi;
    return arena_printf("%s[q_]", fi);
}

/* An array the reduction only reads: captured, a constant, or reached from
 * one by loop-invariant indices (a[i] in a[i][j], i captured). Such an
 * a[i] is read once per call, at call level; an index out of range sends
 * the whole call to the scalar path, which panics where it must. */
static const char *lane_invariant_array(struct ir_node *a)
{
    if (a->type->kind != T_ARRAY) return NULL;
    if (a->op == IR_VAR && clause_of(a->var) < 0 && !bound(a->var) && F->vst[a->var->id]) return vname(a->var);
    if (a->op == IR_GLOBAL) return arena_printf("g%d", a->global->id);
    if (a->op != IR_INDEX) return NULL;
    const char *base = lane_invariant_array(a->a);
    const char *ix = lane_inv(a->b);
    if (!base || !ix) return NULL;
    const char *key = arena_printf("%s[%s]", base, ix);
    for (int i = 0; i < LC->nrows; i++)
        if (strcmp(LC->row_key[i], key) == 0) return LC->row_name[i];
    if (LC->nrows == 16) return NULL;
    const char *r = arena_printf("ra%d_", LC->nrows);
    bprintf(&LC->checks, "        brt_arr *%s = NULL;\n"
                         "        if (ok_ && (uint64_t)%s < (uint64_t)%s->len) %s = BRT_AT(brt_arr *, %s, %s);\n"
                         "        else ok_ = 0;\n",
            r, ix, base, r, base, ix);
    LC->row_key[LC->nrows] = key;
    LC->row_name[LC->nrows++] = r;
    return r;
}

/* A row a[i] of an invariant array, i an outer clause's variable (several
 * clauses): constant in a run, read once per run; an i out of range raises
 * the run's flag before any fold, and the run goes to the scalar path. */
static const char *lane_row(struct ir_node *a)
{
    if (a->op != IR_INDEX || a->b->op != IR_VAR) return NULL;
    int c = clause_of(a->b->var);
    if (c < 0 || c >= LC->ncl || a->b->type != ty_int) return NULL;
    const char *base = lane_invariant_array(a->a);
    if (!base) return NULL;
    const char *key = arena_printf("%s[%d]", base, c);
    for (int i = 0; i < LC->nlrows; i++)
        if (strcmp(LC->lrow_key[i], key) == 0) return LC->lrow_name[i];
    if (LC->nlrows == 16) return NULL;
    const char *r = arena_printf("lr%d_", LC->nlrows);
    bprintf(&LC->rinits, "                brt_arr *%s = (uint64_t)%s < (uint64_t)%s->len ? BRT_AT(brt_arr *, %s, %s) : NULL;\n"
                         "                rovf_ |= %s == NULL;\n",
            r, LC->cgv[c], base, base, LC->cgv[c], r);
    LC->lrow_key[LC->nlrows] = key;
    LC->lrow_name[LC->nlrows++] = r;
    return r;
}

static bool is_lane_row(const char *arr)
{
    for (int i = 0; i < LC->nlrows; i++)
        if (strcmp(LC->lrow_name[i], arr) == 0) return true;
    return false;
}

/* An array of scalars the reduction only reads. */
static const char *lane_array(struct ir_node *a)
{
    if (a->type->kind != T_ARRAY || !lane_scalar(a->type->elem)) return NULL;
    const char *r = lane_invariant_array(a);
    return r ? r : lane_row(a);
}

static const char *lane_binary(struct ir_node *n)
{
    struct type *ot = n->optype;
    enum op op = n->bop;
    if (!lane_scalar(ot) || !lane_scalar(n->b->type)) return lane_fail();
    bool cmp = op_is_compare(op);
    const char *a = lane_expr(n->a);
    if (op == OP_SHL || op == OP_SHR) {
        /* only literal amounts: the check is then done here */
        if (ot == ty_float || ot == ty_bool || n->b->op != IR_INT || n->b->type == ty_i128) return lane_fail();
        uint64_t sh = (uint64_t)n->b->ival;
        if (sh >= 64) return lane_fail();
        if (ot == ty_int)
            return op == OP_SHL ? tmp(ot, "(int64_t)((uint64_t)%s << %d)", a, (int)sh) : tmp(ot, "%s >> %d", a, (int)sh);
        return tmp(ot, "%s %s %d", a, op == OP_SHL ? "<<" : ">>", (int)sh);
    }
    const char *b = lane_expr(n->b);
    if (LC->fail) return "0";
    if (cmp) return tmp(ty_bool, "%s %s %s", a, op_c[op], b);
    if (ot == ty_bool) return op_class[op] == OPC_BITS ? tmp(ot, "%s %s %s", a, op_c[op], b) : lane_fail();
    if (ot == ty_float) {
        if (op == OP_MOD) {
            LC->novec = true;
            return tmp(ot, "fmod(%s, %s)", a, b);
        }
        return op_class[op] == OPC_ARITH ? tmp(ot, "%s %s %s", a, op_c[op], b) : lane_fail();
    }
    bool si = ot == ty_int;
    switch (op) {
    case OP_ADD: case OP_SUB: {
        /* the wrapped result, and wrap_ovf.h's test of it (none for an
         * affine span: checked at its ends, once per call) */
        const char *r = si ? tmp(ot, "(int64_t)((uint64_t)%s %s (uint64_t)%s)", a, op_c[op], b)
                           : tmp(ot, "%s %s %s", a, op_c[op], b);
        if (!si || !lane_span(n, a, b, r))
            lane_flag(arena_printf("BRT_%s_OVF_%s(%s, %s, %s)", op == OP_ADD ? "ADD" : "SUB", si ? "I64" : "U64", a, b, r));
        return r;
    }
    case OP_MUL:
        /* conservative: both factors small means no overflow; a false alarm
         * only sends the block to the scalar path (an affine span: checked
         * at its ends) */
        if (si) {
            const char *r = tmp(ot, "(int64_t)((uint64_t)%s * (uint64_t)%s)", a, b);
            if (!lane_span(n, a, b, r))
                lane_flag(arena_printf("((uint64_t)%s + 0x80000000ULL > 0xFFFFFFFFULL) | ((uint64_t)%s + 0x80000000ULL > 0xFFFFFFFFULL)", a, b));
            return r;
        }
        lane_flag(arena_printf("((%s | %s) >> 32) != 0", a, b));
        return tmp(ot, "%s * %s", a, b);
    case OP_DIV: case OP_MOD: {
        /* only by a literal that can neither be 0 nor -1 */
        if (n->b->op != IR_INT) return lane_fail();
        uint64_t d = (uint64_t)n->b->ival;
        if (d == 0 || (si && (int64_t)d == -1)) return lane_fail();
        uint64_t m = si && (int64_t)d < 0 ? 0 - d : d;
        if (m & (m - 1)) LC->novec = true;
        return tmp(ot, "%s %s %s", a, op_c[op], b);
    }
    case OP_BAND: case OP_BOR: case OP_BXOR: return tmp(ot, "%s %s %s", a, op_c[op], b);
    default: return lane_fail();
    }
}

/* The name of a math builtin with a lanes form, else NULL. */
static const char *lanes_math(enum builtin b)
{
#define LANES_MATH_NAME(name) if (b == BI_##name) return #name;
    BRT_LANES_MATH(LANES_MATH_NAME)
#undef LANES_MATH_NAME
    return NULL;
}

static const char *lane_builtin(struct ir_node *n)
{
    enum builtin b = n->builtin;
    struct type *t = n->type;
    if (b == BI_LEN) {
        const char *arr = n->nkids == 1 && n->kids[0]->op != IR_INDEX ? lane_invariant_array(n->kids[0]) : NULL;
        if (arr && !lane_scalar(n->kids[0]->type->elem)) arr = NULL;
        if (!arr) return lane_fail();
        return tmp(ty_int, "%s->len", arr);
    }
    if (!lane_scalar(t) || n->nkids < 1 || n->nkids > 2) return lane_fail();
    const char *arg[2];
    for (int i = 0; i < n->nkids; i++) {
        if (!lane_scalar(n->kids[i]->type)) return lane_fail();
        arg[i] = lane_expr(n->kids[i]);
    }
    if (LC->fail) return "0";
    struct type *t0 = n->kids[0]->type;
    const char *ln = lanes_math(b);
    if (ln && !LC->wide && LC->rn->type == ty_float) {
        if (!LC->staged) {
            LC->stage = true;
        } else if (LC->nvec < 16) {
            int v = LC->nvec++;
            LC->vec_fn[v] = ln;
            line("vi%d_[{q_}] = %s;", v, arg[0]);
            line("\x01%d", v); /* the stage ends here */
            return arena_printf("vo%d_[{q_}]", v);
        }
    }
    const char *m = math_fn(b);
    if (m && b != BI_sqrt && b != BI_floor && b != BI_ceil && b != BI_trunc) LC->novec = true;
    if (m) return n->nkids == 2 ? tmp(t, "%s(%s, %s)", m, arg[0], arg[1]) : tmp(t, "%s(%s)", m, arg[0]);
    switch (b) {
    case BI_ABS:
        if (t0 == ty_float) return tmp(t, "bp_fabs(%s)", arg[0]);
        if (t0 == ty_u64) return arg[0];
        if (t0 != ty_int) return lane_fail();
        lane_flag(arena_printf("%s == INT64_MIN", arg[0]));
        return tmp(t, "(int64_t)(%s < 0 ? 0 - (uint64_t)%s : (uint64_t)%s)", arg[0], arg[0], arg[0]);
    case BI_MIN2: case BI_MAX2:
        if (t0 == ty_bool) return lane_fail();
        return tmp(t, "%s %s %s ? %s : %s", arg[1], b == BI_MIN2 ? "<" : ">", arg[0], arg[1], arg[0]);
    case M_WRAPPING_ADD: case M_WRAPPING_SUB: case M_WRAPPING_MUL: {
        const char *o = b == M_WRAPPING_ADD ? "+" : b == M_WRAPPING_SUB ? "-" : "*";
        if (t0 == ty_u64) return tmp(t, "%s %s %s", arg[0], o, arg[1]);
        if (t0 == ty_int) return tmp(t, "(int64_t)((uint64_t)%s %s (uint64_t)%s)", arg[0], o, arg[1]);
        return lane_fail();
    }
    case M_WRAPPING_NEG:
        if (t0 == ty_u64) return tmp(t, "0 - %s", arg[0]);
        if (t0 == ty_int) return tmp(t, "(int64_t)(0 - (uint64_t)%s)", arg[0]);
        return lane_fail();
    default:
        return lane_fail();
    }
}

/* The value a straight-line function body returns, written in lanes (rt:
 * its type): lets and assignments of scalars bind their variables,
 * `if c: <straight-line, returning>` followed by the rest is c ? that :
 * the rest (both computed; each raises the flag only where the scalar code
 * runs it), return e ends it. NULL for a body with anything else. */
static const char *lane_stmts(struct ir_node *blk, int from, struct type *rt)
{
    if (!blk || blk->op != IR_BLOCK) return NULL;
    for (int i = from; i < blk->nkids && !LC->fail; i++) {
        struct ir_node *s = blk->kids[i];
        switch (s->sop) {
        case IR_LET: case IR_ASSIGN: {
            if (!lane_scalar(s->var->type)) return NULL;
            const char *v = lane_expr(s->a);
            if (LC->fail || !bind(s->var, v)) return NULL;
            span_of(s->a, v); /* an invariant bound to it stays one */
            continue;
        }
        case IR_RETURN:
            return s->a ? lane_expr(s->a) : NULL;
        case IR_IF: {
            if (s->c) return NULL;
            const char *c = lane_expr(s->a);
            const char *outer = LC->fguard;
            int mark = LC->nsub;
            LC->fguard = guard_and(c);
            const char *x = lane_stmts(s->b, 0, rt);
            LC->nsub = mark;
            LC->fguard = outer ? arena_printf("(%s) & (!%s)", outer, c) : arena_printf("!%s", c);
            const char *y = x ? lane_stmts(blk, i + 1, rt) : NULL;
            LC->fguard = outer;
            if (!x || !y || LC->fail) return NULL;
            return tmp(rt, "%s ? %s : %s", c, x, y);
        }
        case IR_BLOCK: case IR_STORE: case IR_PUSH: case IR_UNIQUE: case IR_EXPR: case IR_WHILE: case IR_FOR_RANGE:
        case IR_FOR_ARRAY: case IR_BREAK: case IR_CONTINUE: case IR_UNREACHABLE:
            return NULL;
        }
    }
    return NULL;
}

/* A call of a small function, written in place (the scalar code calls it;
 * the lanes compute the same values, with the flag for anything that could
 * fail, so a flagged block's scalar re-run panics inside the callee). */
static const char *lane_call(struct ir_node *n)
{
    struct ir_fn *f = n->fn;
    if (LC->depth >= 8 || !lane_scalar(n->type) || n->nkids > 16) return lane_fail();
    const char *args[16];
    for (int i = 0; i < n->nkids; i++) {
        if (!lane_scalar(n->kids[i]->type)) return lane_fail();
        args[i] = lane_expr(n->kids[i]);
        if (!LC->fail) span_of(n->kids[i], args[i]); /* an invariant bound to it stays one */
    }
    if (LC->fail) return "0";
    int mark = LC->nsub;
    for (int i = 0; i < f->nparams; i++)
        if (!bind(f->params[i], args[i])) return lane_fail();
    LC->depth++;
    const char *r = lane_stmts(f->body, 0, f->ret);
    LC->depth--;
    LC->nsub = mark;
    return r && !LC->fail ? r : lane_fail();
}

/* The lane form of an expression: a C expression (usually a temporary of
 * the lane loop's body) with the value the scalar code computes whenever
 * the block's flag stays clear. Sets LC->fail for what cannot run in lanes. */
static const char *lane_expr(struct ir_node *n)
{
    if (LC->fail) return "0";
    if (n->type->kind != T_ARRAY && !lane_scalar(n->type)) return lane_fail();
    switch (n->eop) {
    case IR_INT: return int_lit(n->type, n->ival);
    case IR_FLOAT: return float_lit(n->fval);
    case IR_BOOL: return n->bval ? "1" : "0";
    case IR_VAR: {
        int c = clause_of(n->var);
        if (c >= 0) return c == LC->ncl ? LC->gv : LC->cgv[c];
        const char *b = bound(n->var);
        if (b) return b;
        if (!lane_scalar(n->type) || !F->vst[n->var->id]) return lane_fail();
        return vname(n->var);
    }
    case IR_GLOBAL:
        if (!lane_scalar(n->type)) return lane_fail();
        return arena_printf("g%d", n->global->id);
    case IR_UNARY: {
        struct type *t = n->optype;
        const char *a = lane_expr(n->a);
        if (LC->fail) return "0";
        if (n->bop == OP_NEG) {
            if (t == ty_float) return tmp(t, "-(%s)", a);
            if (t == ty_int) {
                lane_flag(arena_printf("%s == INT64_MIN", a));
                return tmp(t, "(int64_t)(0 - (uint64_t)%s)", a);
            }
            if (t == ty_u64) {
                lane_flag(arena_printf("%s != 0", a));
                return "0ULL";
            }
            return lane_fail();
        }
        if (t == ty_int || t == ty_u64) return tmp(t, "~%s", a);
        return lane_fail();
    }
    case IR_NOT: return tmp(ty_bool, "!%s", lane_expr(n->a));
    case IR_BINARY: return lane_binary(n);
    case IR_AND: case IR_OR: {
        /* both sides are pure here and both are computed; the right one
         * raises the flag only where the scalar code evaluates it */
        const char *a = lane_expr(n->a);
        const char *outer = LC->fguard;
        LC->fguard = guard_and(n->op == IR_AND ? a : arena_printf("!%s", a));
        const char *b = lane_expr(n->b);
        LC->fguard = outer;
        if (LC->fail) return "0";
        return tmp(ty_bool, "%s %s %s", a, n->op == IR_AND ? "&" : "|", b);
    }
    case IR_COND: {
        const char *c = lane_expr(n->a);
        const char *outer = LC->fguard;
        LC->fguard = guard_and(c);
        const char *x = lane_expr(n->b);
        LC->fguard = outer ? arena_printf("(%s) & (!%s)", outer, c) : arena_printf("!%s", c);
        const char *y = lane_expr(n->c);
        LC->fguard = outer;
        if (LC->fail) return "0";
        return tmp(n->type, "%s ? %s : %s", c, x, y);
    }
    case IR_CONV: {
        struct type *from = n->optype, *to = n->type;
        if (!lane_scalar(from)) return lane_fail();
        if (from == to) return lane_expr(n->a);
        if (to == ty_float && from == ty_int) {
            /* under the call-level check i + c cannot overflow: no flag */
            const char *ind = lane_induction(n->a);
            if (ind) return ind;
            const char *a = lane_expr(n->a);
            if (LC->fail) return "0";
            return tmp(to, "(double)%s", a);
        }
        const char *a = lane_expr(n->a);
        if (LC->fail) return "0";
        if (from == ty_bool && to != ty_i128) return tmp(to, "(%s)%s", ctype(to), a);
        if (to == ty_float && from == ty_u64) return tmp(to, "brt_u64_to_f(%s)", a);
        if (to == ty_u64 && from == ty_int) {
            lane_flag(arena_printf("%s < 0", a));
            return tmp(to, "(uint64_t)%s", a);
        }
        if (to == ty_int && from == ty_u64) {
            lane_flag(arena_printf("%s > (uint64_t)INT64_MAX", a));
            return tmp(to, "(int64_t)%s", a);
        }
        return lane_fail();
    }
    case IR_INDEX: {
        LC->reads = true;
        const char *arr = lane_array(n->a);
        if (!arr || n->b->type != ty_int) return lane_fail();
        const char *ct = ctype(n->type);
        const char *o = lane_affine(n->b);
        const char *i = lane_expr(n->b);
        if (LC->fail) return "0";
        if (o) {
            /* i + c over the whole call checked against the length once
             * (a run's row: once per run, before its folds) */
            if (is_lane_row(arr))
                bprintf(&LC->rinits, "                rovf_ |= %s == NULL || !bp_span(vmin_, vmax_, %s, 0, %s->len - 1);\n", arr, o, arr);
            else
                bprintf(&LC->checks, "        if (ok_ && !bp_span(vmin_, vmax_, %s, 0, %s->len - 1)) ok_ = 0;\n", o, arr);
            return tmp(n->type, "BRT_AT(%s, %s, %s)", ct, arr, i);
        }
        if (is_lane_row(arr)) bprintf(&LC->rinits, "                rovf_ |= %s == NULL || %s->len == 0;\n", arr, arr);
        else bprintf(&LC->checks, "        if (ok_ && %s->len == 0) ok_ = 0;\n", arr);
        const char *in = tmp(ty_bool, "(uint64_t)%s < (uint64_t)%s->len", i, arr);
        lane_flag(arena_printf("!%s", in));
        return tmp(n->type, "BRT_AT(%s, %s, %s ? %s : 0)", ct, arr, in, i);
    }
    case IR_BUILTIN: return lane_builtin(n);
    case IR_CALL: return lane_call(n);
    case IR_STR: case IR_ARRAY: case IR_FSTRING: case IR_LISTCOMP: case IR_REDUCE: case IR_TUPLE: case IR_FIELD:
    case IR_FNVAL: case IR_CALLV: case IR_GUARD_TEST:
        return lane_fail();
    }
    return lane_fail();
}

/* Steps the digits (the names: fmt with the clause index; 0..L) by `by`
 * positions, row-major: a division only where a digit wraps. */
static void lanes_step(struct buf *out, int L, const char *fmt, const char *by)
{
    bprintf(out, "                %s += %s;\n", arena_printf(fmt, L), by);
    for (int c = L; c > 0; c--) {
        const char *d = arena_printf(fmt, c), *up = arena_printf(fmt, c - 1);
        bprintf(out, "                %*sif (%s >= env->n%d) { int64_t c_ = %s / env->n%d; %s -= c_ * env->n%d; %s += c_;\n",
                2 * (L - c), "", d, c, d, c, d, c, up);
    }
    bprintf(out, "                %*s", 2 * (L - 1), "");
    for (int c = L; c > 0; c--) bputs(out, "}");
    bputs(out, "\n");
}

/* The end of a lanes leaves function: its loops closed (rows: the loop over
 * a row's runs too), the ragged tail to the scalar fold. */
static void lanes_close(struct buf *out, int id, const char *ct, bool rows)
{
    bprintf(out, "            }\n%s        }\n    }\n", rows ? "            }\n" : "");
    bprintf(out, "    if (g_ < count) bp_leaves_s%d(envp, first + g_, count - g_, (%s *)vals + g_, has + g_);\n", id, ct);
    bputs(out, "}\n\n");
}

/* One step of staged lanes: body's stages, each for every lane (lane_put),
 * with the lanes call that ends a stage between them, then the steps. The
 * lanes' statements share one scope: each lane's names end in its number. */
/* One step j_ of every lane: the element at k_ = kb_q + j_ and its fold. */
static void lanes_plain(struct buf *out, const char *body, const char *steps, int W)
{
    for (int q = 0; q < W; q++) {
        bprintf(out, "                    { /* lane %d */\n                        int64_t k_ = kb_%d + j_;\n", q, q);
        lane_put(out, body, q);
        lane_put(out, steps, q);
        bprintf(out, "                    }\n");
    }
}

static void lanes_staged(struct buf *out, const char *body, const char *steps, int W)
{
    for (int q = 0; q < W; q++) bprintf(out, "                    int64_t k_%d = kb_%d + j_;\n", q, q);
    for (const char *p = body ? body : "";;) {
        const char *m = strchr(p, '\x01'), *ls = m ? m : p + strlen(p);
        while (ls > p && ls[-1] != '\n') ls--; /* the marker's line */
        const char *stage = arena_strndup(p, (size_t)(ls - p));
        for (int q = 0; q < W; q++) lane_put(out, stage, q);
        if (!m) break;
        int v = atoi(m + 1);
        bprintf(out, "                    brt_lanes_%s(vi%d_, vo%d_);\n", LC->vec_fn[v], v, v);
        p = strchr(m, '\n') + 1;
    }
    for (int q = 0; q < W; q++) lane_put(out, steps, q);
}

/* bp_leaves<id> in lanes into out: 1, or 0 (no lane form), or 2 (wide, but
 * the element reads arrays or would not vectorize: try again narrow), or 3
 * (it calls a function with a lanes form: try again staged). */
static int lane_leaves(struct ir_node *rn, int id, struct src *s, struct buf *out, bool wide, bool staged)
{
    struct type *t = rn->type;
    if (t != ty_int && t != ty_u64 && t != ty_float) return false;
    if (!lane_scalar(rn->gen_var->type)) return false; /* i128 ranges too */
    int L = s->ncl; /* several clauses: the innermost's index */
    if (L >= 16) return false;
    for (int c = 0; c < L; c++)
        if (!lane_scalar(rn->clauses[c].var->type)) return false;
    struct lanes lc = {0};
    lc.rn = rn;
    lc.ncl = L;
    lc.wide = wide;
    lc.staged = staged;
    LC = &lc;
    struct fctx *saved = helper_begin(id, rn);
    if (SEQ) helper_places(saved); /* the caller's places */
    F->ind = 6;
    /* staged: every lane's statements in one scope, each its own names */
    const char *kn = staged ? "k_[q_]" : "k_";
    if (staged) CG->temp_sfx = "_[q_]";
    /* The innermost source steps by one per element of a leaf. With several
     * clauses the lane blocks go in runs that lie inside one row (the outer
     * clauses' positions, the cursor cu<c>_, stay fixed in a run; a block
     * across two rows takes the scalar odometer), so the innermost variable
     * is lo + k_ as in the one-clause form, k_ = the lane's first position
     * in the row + j_. */
    struct src *in = L ? &s->cl[L - 1] : s;
    struct ir_var *inv = L ? rn->clauses[L - 1].var : rn->gen_var;
    const char *sfx = L ? arena_printf("%d", L) : "";
    lc.aff_var = inv;
    lc.aff_range = in->is_range;
    lc.aff_lo = arena_printf("env->lo%s", sfx);
    bool irange = in->is_range && in->it == ty_int;
    if (in->is_range) {
        if (in->it == ty_int) {
            lc.gv = tmp(ty_int, "(int64_t)((uint64_t)env->lo%s + (uint64_t)%s)", sfx, kn);
            span_put(lc.gv, "vmin_", "vmax_", false); /* every lane's value lies in [vmin_, vmax_] */
        }
        else lc.gv = tmp(ty_u64, "env->lo%s + (uint64_t)%s", sfx, kn);
    } else {
        lc.gv = tmp(inv->type, "BRT_AT(%s, env->arr%s, %s)", ctype(inv->type), sfx, kn);
    }
    /* the outer clauses' variables: constant in a run */
    for (int c = 0; c < L; c++) {
        struct src *cs = c ? &s->cl[c - 1] : s;
        struct ir_var *v = c ? rn->clauses[c - 1].var : rn->gen_var;
        const char *cx = c ? arena_printf("%d", c) : "";
        lc.cgv[c] = arena_printf("cv%d_", c);
        if (!cs->is_range)
            bprintf(&lc.rinits, "                %s %s = BRT_AT(%s, env->arr%s, cu%d_);\n", ctype(v->type), lc.cgv[c],
                    ctype(v->type), cx, c);
        else if (cs->it == ty_int)
            bprintf(&lc.rinits, "                int64_t %s = (int64_t)((uint64_t)env->lo%s + (uint64_t)cu%d_);\n", lc.cgv[c], cx, c);
        else
            bprintf(&lc.rinits, "                uint64_t %s = env->lo%s + (uint64_t)cu%d_;\n", lc.cgv[c], cx, c);
    }
    const char *kept = "1";
    if (rn->filter) kept = lane_expr(rn->filter);
    const char *x = lane_expr(rn->elem);
    const char *ct = ctype(t);
    if (!lc.fail) {
        /* the fold of this lane's leaf, masked by the filter */
        bool f = rn->filter != NULL;
        switch (rn->reducer) {
        case RED_SUM: case RED_PRODUCT: {
            /* a filtered-out element becomes the operation's identity:
             * x + -0.0 and x * 1.0 are x for every double, -0.0 included */
            bool sum = rn->reducer == RED_SUM;
            const char *id0 = t == ty_float ? (sum ? "bp_f64(0x8000000000000000ULL)" : "1.0") : (sum ? "0" : "1");
            /* an element i + c of the range is bounded once per call */
            const char *o = sum && t == ty_int ? lane_affine(rn->elem) : NULL;
            const char *xm = !f || (o && t == ty_int) ? x
                             : t == ty_int && sum ? tmp(t, "%s & -(int64_t)%s", x, kept) /* branch-free */
                             : tmp(t, "%s ? %s : %s", kept, x, id0);
            if (o && f) {
                /* Bounded elements need no masked value for the overflow
                 * flag: skip a filtered-out one (gcc makes it a cmov). */
                line("if (%s) acc_[q_] = (int64_t)((uint64_t)acc_[q_] + (uint64_t)%s);", kept, x);
            } else if (t == ty_float) {
                line("acc_[q_] = acc_[q_] %s %s;", sum ? "+" : "*", xm);
            } else {
                /* Integers: one leaf per lane (16 lanes when wide, else
                 * one). The wrapped result
                 * does not depend on the order, and bounding every element
                 * bounds every partial result of the 16-element fold:
                 * |x| < 2^58 for sums (16 * 2^58 = 2^62), |x| <= 8 for
                 * products (8^16 = 2^48). Beyond that the scalar fold decides. */
                const char *w = t == ty_int ? "(int64_t)((uint64_t)acc_[q_] %s (uint64_t)%s)" : "acc_[q_] %s %s";
                line("acc_[q_] = %s;", arena_printf(w, sum ? "+" : "*", xm));
            }
            if (t != ty_float) {
                int sx;
                if (o)
                    bprintf(&lc.checks, "        if (ok_ && !bp_span(vmin_, vmax_, %s, -(1LL << 58), (1LL << 58) - 1)) ok_ = 0;\n", o);
                else if ((sx = t == ty_int ? span_of(rn->elem, x) : -1) >= 0) {
                    /* an affine element: the bound at its two ends, once
                     * per call (a masked element is 0 or 1, inside) */
                    const char *b0 = sum ? "-(1LL << 58)" : "-8", *b1 = sum ? "(1LL << 58) - 1" : "8";
                    bprintf(&lc.checks, "        if (ok_ && !(%s >= %s && %s <= %s && %s >= %s && %s <= %s)) ok_ = 0;\n",
                            lc.sp_at0[sx], b0, lc.sp_at0[sx], b1, lc.sp_at1[sx], b0, lc.sp_at1[sx], b1);
                } else if (sum) lane_flag(arena_printf(t == ty_int ? "((uint64_t)%s + (1ULL << 58)) >> 59" : "%s >> 59", xm));
                else lane_flag(arena_printf(t == ty_int ? "(uint64_t)%s + 8 > 16" : "%s > 8", xm));
            }
            /* an integer leaf where the filter kept nothing holds the
             * identity, which no combine changes: has can stay 1 */
            if (f && t == ty_float) line("hs_[q_] |= %s;", kept);
            break;
        }
        case RED_MIN: case RED_MAX: {
            const char *tk = tmp(ty_bool, "%s & (!hs_[q_] | (%s %s acc_[q_]))", kept, x, rn->reducer == RED_MIN ? "<" : ">");
            line("acc_[q_] = %s ? %s : acc_[q_];", tk, x);
            line("hs_[q_] |= %s;", kept);
            break;
        }
        case RED_ANY: case RED_ALL:
            lc.fail = true;
            break;
        }
    }
    CG->temp_sfx = NULL;
    struct buf body = F->body;
    F->body = (struct buf){0};
    if (lc.fail || (lc.wide && (lc.reads || lc.novec)) || (lc.stage && !lc.wide)) {
        free(body.p);
        free(lc.rinits.p);
        F = saved;
        LC = NULL;
        return lc.fail ? 0 : lc.wide ? 2 : 3;
    }
    bool hs_all = (!rn->filter || t != ty_float) && (rn->reducer == RED_SUM || rn->reducer == RED_PRODUCT);
    int W = lane_width(rn, wide, staged);
    /* four float leaves side by side: BP_LEAVES128 (the prelude's), so
     * that gcc packs the four in-order sums two to a register (SLP) as
     * the portable build does, not one sum's steps into a wide vector
     * whose lanes are then added one by one */
    const char *hdr = arena_printf("static %svoid bp_leaves%d(void *envp, int64_t first, int64_t count, void *vals, unsigned char *has)",
                                   W == 4 && t == ty_float ? "BP_LEAVES128 " : "", id);
    /* math lanes: an AVX2 copy of the caller too (the prelude's
     * BP_LANE_CLONES), its 32 inputs, sums and counters four to an
     * operation around every brt_lanes_<name> call */
    if (lc.nvec > 0) bputs(out, "BP_LANE_CLONES\n");
    bputs(out, hdr);
    bputs(out, " {\n");
    if (F->decl.p) bputs(out, F->decl.p);
    bprintf(out, "    int64_t g_ = 0;\n");
    bprintf(out, "    if (count >= %d) {\n", W);
    bprintf(out, "        int64_t nf_ = env->n / BRT_LEAF - first; /* full leaves from first */\n");
    bprintf(out, "        if (nf_ > count) nf_ = count;\n");
    bprintf(out, "        int ok_ = nf_ >= %d;\n", W);
    if (irange && L)
        /* every value of the innermost clause (nf_ >= 1: its count is too) */
        bprintf(out, "        int64_t vmin_ = env->lo%d;\n"
                     "        int64_t vmax_ = (int64_t)((uint64_t)env->lo%d + (uint64_t)(env->n%d - 1));\n"
                     "        (void)vmin_; (void)vmax_;\n", L, L, L);
    else if (irange)
        bprintf(out, "        int64_t vmin_ = (int64_t)((uint64_t)env->lo + (uint64_t)(first * BRT_LEAF));\n"
                     "        int64_t vmax_ = (int64_t)((uint64_t)env->lo + (uint64_t)((first + nf_) * BRT_LEAF - 1));\n"
                     "        (void)vmin_; (void)vmax_;\n");
    if (lc.checks.p) bputs(out, lc.checks.p);
    bprintf(out, "        if (ok_) {\n");
    if (L) {
        /* the cursor: the digits of the block's first position, found with
         * one division per clause per call, then stepped (lanes_step) */
        for (int c = 0; c <= L; c++) bprintf(out, "            int64_t cu%d_;\n", c);
        bprintf(out, "            {\n                uint64_t t_ = (uint64_t)(first * BRT_LEAF);\n");
        for (int c = L; c > 0; c--)
            bprintf(out, "                cu%d_ = (int64_t)(t_ %% (uint64_t)env->n%d);\n                t_ /= (uint64_t)env->n%d;\n", c, c, c);
        bprintf(out, "                cu0_ = (int64_t)t_;\n            }\n");
        /* a run: the whole blocks from the cursor to the row's end */
        bprintf(out, "            while (g_ + %d <= nf_) {\n", W);
        bprintf(out, "                int64_t nb_ = (env->n%d - cu%d_) / (%d * BRT_LEAF), mb_ = (nf_ - g_) / %d;\n", L, L, W, W);
        bprintf(out, "                if (nb_ > mb_) nb_ = mb_;\n");
        bprintf(out, "                if (nb_ == 0) { /* a block across rows */\n"
                     "                    bp_leaves_s%d(envp, first + g_, %d, (%s *)vals + g_, has + g_);\n"
                     "                    g_ += %d;\n", id, W, ct, W);
        lanes_step(out, L, "cu%d_", arena_printf("%d * BRT_LEAF", W));
        bprintf(out, "                    continue;\n                }\n");
        bprintf(out, "                uint64_t rovf_ = 0;\n");
        if (lc.rinits.p) bputs(out, lc.rinits.p);
        bprintf(out, "                if (rovf_) { /* a row out of range or too short: the scalar path */\n"
                     "                    bp_leaves_s%d(envp, first + g_, nb_ * %d, (%s *)vals + g_, has + g_);\n"
                     "                    g_ += nb_ * %d;\n", id, W, ct, W);
        lanes_step(out, L, "cu%d_", arena_printf("nb_ * %d * BRT_LEAF", W));
        bprintf(out, "                    continue;\n                }\n");
        bprintf(out, "                int64_t e_ = g_ + nb_ * %d, kr_ = cu%d_;\n", W, L);
        lanes_step(out, L, "cu%d_", arena_printf("nb_ * %d * BRT_LEAF", W));
        bprintf(out, "            for (; g_ < e_; g_ += %d, kr_ += %d * BRT_LEAF) {\n", W, W);
    } else {
        bprintf(out, "            for (; g_ + %d <= nf_; g_ += %d) {\n", W, W);
    }
    if (wide) {
        /* Wide: lane q is leaf g_ + q, the lanes a loop inside the step
         * loop, over arrays: gcc's loop vectorizer makes each operation of
         * the element one vector operation over the leaves (16 of them:
         * two 8-lane registers with AVX-512, which gcc picks for 16 and not
         * for 8), and each leaf's fold, flag and has stay a lane of their
         * own, so no step sums across lanes (a leaf of one lane, W == 1,
         * summed its 8 lanes twice per 16 elements). tcc runs the loops as
         * they are, same values. */
        bprintf(out, "                %s acc_[%d];\n                uint64_t ov_[%d];\n", ct, W, W);
        if (!hs_all) bprintf(out, "                int hs_[%d];\n", W);
        bprintf(out, "                for (int q_ = 0; q_ < %d; q_++) {\n", W);
        bprintf(out, "                    acc_[q_] = %s;\n                    ov_[q_] = 0;\n", leaf_start(rn, t));
        if (!hs_all) bprintf(out, "                    hs_[q_] = 0;\n");
        bprintf(out, "                }\n");
        bprintf(out, "                int64_t kb_ = (first + g_) * BRT_LEAF;\n");
        bprintf(out, "                for (int64_t j_ = 0; j_ < BRT_LEAF; j_++) {\n");
        bprintf(out, "                    for (int q_ = 0; q_ < %d; q_++) {\n", W);
        bprintf(out, "                        int64_t k_ = kb_ + q_ * BRT_LEAF + j_;\n");
        bputs(out, body.p);
        bprintf(out, "                    }\n                }\n");
        bprintf(out, "                uint64_t ovf_ = 0;\n");
        bprintf(out, "                for (int q_ = 0; q_ < %d; q_++) ovf_ |= ov_[q_];\n", W);
        bprintf(out, "                if (ovf_) { /* the exact panic, or a false alarm's same values */\n"
                     "                    bp_leaves_s%d(envp, first + g_, %d, (%s *)vals + g_, has + g_);\n"
                     "                    continue;\n                }\n", id, W, ct);
        bprintf(out, "                for (int q_ = 0; q_ < %d; q_++) {\n", W);
        bprintf(out, "                    ((%s *)vals)[g_ + q_] = acc_[q_];\n", ct);
        if (hs_all) bprintf(out, "                    has[g_ + q_] = 1;\n");
        else bprintf(out, "                    has[g_ + q_] = hs_[q_] != 0;\n");
        bprintf(out, "                }\n");
        lanes_close(out, id, ct, false);
        free(body.p);
        free(lc.rinits.p);
        F = saved;
        LC = NULL;
        return 1;
    }
    /* Lane q's state is plain locals (acc_q, kb_q, ...), one statement per
     * lane per element: gcc -O2 keeps them in registers (arrays indexed by
     * a loop counter stayed in memory: a store and a reload per element). */
    bprintf(out, "                uint64_t ovf_ = 0;\n");
    for (int q = 0; q < W; q++) {
        if (L) bprintf(out, "                int64_t kb_%d = kr_ + %d * BRT_LEAF;\n", q, q);
        else bprintf(out, "                int64_t kb_%d = (first + g_ + %d) * BRT_LEAF;\n", q, q);
        bprintf(out, "                %s acc_%d = %s;\n", ct, q, leaf_start(rn, t));
        if (!hs_all) bprintf(out, "                int hs_%d = 0;\n", q);
        lane_put(out, lc.inits.p, q);
    }
    /* One lane (integers): the 16 steps stay a loop, which gcc's loop
     * vectorizer can spread over vector lanes (the wrapped sum and the
     * flag are order-free): measured, a Monte Carlo leaf of calls went from
     * 75 to 15 ms with -march=native and 85 to 75 ms without; unrolling it
     * (as before) only left SLP, which found nothing. */
    for (int v = 0; v < lc.nvec; v++) bprintf(out, "                double vi%d_[%d], vo%d_[%d];\n", v, W, v, W);
    /* A min or max without a filter: each leaf's first step written apart,
     * after which gcc knows every hs_q set, so the step is the compare and
     * select alone (par max of 10^6 floats at one thread 2.66 -> 1.58 ms) */
    bool peel = !staged && !rn->filter && (rn->reducer == RED_MIN || rn->reducer == RED_MAX);
    if (peel) {
        bprintf(out, "                {\n                    const int64_t j_ = 0;\n");
        lanes_plain(out, body.p, lc.steps.p, W);
        bprintf(out, "                }\n");
    }
    bprintf(out, "                for (int64_t j_ = %d; j_ < BRT_LEAF; j_++) {\n", peel);
    if (staged) lanes_staged(out, body.p, lc.steps.p, W);
    else lanes_plain(out, body.p, lc.steps.p, W);
    bprintf(out, "                }\n");
    bprintf(out, "                if (ovf_) { /* the exact panic, or a false alarm's same values */\n"
                 "                    bp_leaves_s%d(envp, first + g_, %d, (%s *)vals + g_, has + g_);\n"
                 "                    continue;\n                }\n", id, W, ct);
    /* the stores side by side: gcc's SLP pairs lanes from this store group
     * back up through the loop's accumulators (divpd, addpd for floats) */
    for (int q = 0; q < W; q++)
        bprintf(out, "                ((%s *)vals)[g_ + %d] = acc_%d;\n", ct, q, q);
    for (int q = 0; q < W; q++) {
        if (hs_all) bprintf(out, "                has[g_ + %d] = 1;\n", q);
        else bprintf(out, "                has[g_ + %d] = hs_%d != 0;\n", q, q);
    }
    lanes_close(out, id, ct, L != 0);
    free(body.p);
    free(lc.rinits.p);
    F = saved;
    LC = NULL;
    return 1;
}

bool emit_lane_leaves(struct ir_node *rn, int id, struct src *s, struct buf *out)
{
    /* wide: integers over one range (the lanes' elements are 16 apart, so
     * an array read per element would gather), whose element vectorizes */
    bool wide = (rn->type == ty_int || rn->type == ty_u64) && s->is_range && s->ncl == 0;
    int temps = CG->ntemps;
    int r = lane_leaves(rn, id, s, out, wide, false);
    if (r == 2) {
        CG->ntemps = temps; /* the same names as a narrow first try */
        r = lane_leaves(rn, id, s, out, false, false);
    }
    if (r == 3) {
        CG->ntemps = temps;
        r = lane_leaves(rn, id, s, out, false, true);
    }
    return r == 1;
}


/* Sequential elements: bp_leaves<id>(env, first, count, vals, has) over
 * leaves of one element each (the element first + g alone in vals[g], has[g]
 * 0 when the filter drops it), staged at the calls of math functions with a
 * lanes form; its fallback bp_leaves_s<id> (the caller's) takes the same
 * leaves. Only a float sum or product of one source whose element calls
 * such a function (without one, lanes of single elements gain nothing). */
bool emit_lane_elems(struct ir_node *rn, int id, struct src *s, struct buf *out)
{
    if (rn->type != ty_float || s->ncl || (rn->reducer != RED_SUM && rn->reducer != RED_PRODUCT)) return false;
    int temps = CG->ntemps;
    struct buf first = {0}, b = {0};
    SEQ = true;
    int r = lane_leaves(rn, id, s, &first, false, false);
    free(first.p);
    CG->ntemps = temps;
    bool ok = r == 3 && lane_leaves(rn, id, s, &b, false, true) == 1;
    SEQ = false;
    if (!ok) {
        CG->ntemps = temps;
        free(b.p);
        return false;
    }
    /* BRT_LEAF (and only it: no element's text has that name) written 1 */
    for (const char *p = b.p;;) {
        const char *m = strstr(p, "BRT_LEAF");
        if (!m) {
            bputs(out, p);
            break;
        }
        bputn(out, p, (size_t)(m - p));
        bputs(out, "1");
        p = m + 8;
    }
    free(b.p);
    return true;
}
