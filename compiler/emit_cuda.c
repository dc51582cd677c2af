/*
 * emit_cuda.c: CUDA C kernels for eligible par reductions (SPEC 9).
 *
 * A par sum/product/min/max is eligible when its element and filter use only
 * integer/float arithmetic (bit operations, shifts and the wrapping methods
 * count as integer arithmetic: exact on every machine), comparisons, numeric
 * conversions, abs, min/max of two, sqrt, captured scalars, scalar
 * constants, reads and len() of captured [int]/[u64]/[float] arrays, and
 * calls of user functions whose bodies use the same (scalar parameters,
 * locals, if/while/for-over-a-range; no recursion). panic() in a library
 * function only raises the flag. i128, strings, arrays other than those
 * reads, allocation, printing and the other math functions stay on the CPU.
 * par reduce(f, start, gen) of int/u64/float (SPEC 15) is eligible when
 * its elements are and f's combine (rn->c, f applied to comb_l and comb_r,
 * resolved by the optimizer) reads only those two: brk_op runs in the tree
 * without the reduction's environment, so no captured value, array or
 * global there (nor in the functions it calls, which are generated first
 * for that reason). start is evaluated on the host and is a slot; the
 * leaves fold from it (BRK_START), nodes combine as f(left, right), the
 * host gives start when no node has a value (emit_par_reduce).
 * Deciding is generating: the generator walks the IR and gives up on the
 * first thing it cannot translate. A generator with several clauses (each
 * a range or such an array, none reading another's variable) runs as one
 * over its flat positions: brk_elem finds the clauses' positions of its
 * position, row-major, so the leaves and the tree are the flat sequence's.
 *
 * One CUDA module per reduction: a prelude (checked arithmetic that raises
 * a flag instead of panicking; a CPU shim under #ifndef __CUDACC__ so that
 * gcc runs the very same text, see docs/gpu.md), the environment read from
 * an array of 8-byte slots, the device functions, brk_elem (filter and
 * element of index k), brk_op (the combine of SPEC 5.2/5.5, or reduce's f),
 * and two fixed kernels: brk_leaves (block b folds leaves [256b, 256b+256),
 * each thread one leaf left to right, then combines them level by level in
 * shared memory)
 * and brk_combine (256 nodes of one level into one node of a level 8 higher,
 * by the same rule). A missing node (past the end, or a leaf the filter
 * emptied) has no value and its partner moves up, exactly as 5.2 says.
 * The prelude and the two kernels are kernel text in runtime-gpu/
 * (kernel_prelude.h, kernel_tree.h), embedded by the build.
 *
 * Device code is emitted as nested C expressions: which panic comes first
 * does not matter on the device (any flag means the CPU re-runs the
 * reduction and reports SPEC 5.3's panic), and C's && || ?: keep Brine's
 * short-circuit. Every loop also stops when the flag is up, so garbage
 * after a flagged operation cannot keep a thread looping.
 */
#include "emit_cuda.h"
#include "ctext.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* ---- the kernel being generated -------------------------------------------- */

struct dfn {
    struct ir_fn *fn;
    int state; /* 1: being generated (a call now is recursion), 2: done */
};

struct kctx {
    struct ir_node *rn;
    bool bad;
    struct buf protos, defs;
    struct dfn *fns;
    int nfns, capfns;
    struct ir_global **globals;
    int nglobals, capglobals;
    unsigned char *cused; /* several clauses: whether brk_elem reads clause c's variable */
    /* generating reduce's f (brk_op) and what it calls: no environment
     * there, so no captured values, arrays or globals */
    bool in_op;
};
static struct kctx *K;

/* The device function being generated (NULL: brk_elem). */
struct dctx {
    struct buf decl, body;
    unsigned char *declared; /* by var id (ids are program-wide) */
    int ndeclared;
    int ind;
};

static unsigned char *declared_slot(struct dctx *d, int id)
{
    if (id >= d->ndeclared) {
        int old = d->ndeclared;
        VEC_RESERVE(d->declared, d->ndeclared, (size_t)id + 1);
        memset(d->declared + old, 0, (size_t)(d->ndeclared - old));
    }
    return &d->declared[id];
}
static struct dctx *D;


static const char *fail(void)
{
    K->bad = true;
    return "0";
}

/* C type of a scalar on the device; NULL for anything else. */
static const char *dtype(struct type *t)
{
    switch (t->kind) {
    case T_INT: return "long long";
    case T_U64: return "unsigned long long";
    case T_FLOAT: return "double";
    case T_BOOL: return "int";
    case T_I128: case T_STR: case T_ARRAY: case T_TUPLE: case T_OPTION: case T_FN: case T_VOID: return NULL;
    }
    return NULL;
}

/* The suffix of a device form (brk_add_i64): NULL for what the device lacks. */
static const char *sfx(struct type *t)
{
    return dtype(t) && t != ty_bool ? num_suffix(t) : NULL;
}

/* The slot member that holds a scalar of type t. */
static const char *slot_member(struct type *t)
{
    return t == ty_u64 ? "u" : t == ty_float ? "f" : "i";
}

static bool is_num_array(struct type *t)
{
    return t->kind == T_ARRAY && (t->elem == ty_int || t->elem == ty_u64 || t->elem == ty_float);
}

static bool is_cap(struct ir_var *v)
{
    for (int i = 0; i < K->rn->ncaps; i++)
        if (K->rn->caps[i] == v) return true;
    return false;
}

static const char *global_ref(struct ir_global *g)
{
    if (!dtype(g->type) || K->in_op) return fail();
    for (int i = 0; i < K->nglobals; i++)
        if (K->globals[i] == g) return arena_printf("E->g%d", g->id);
    VEC_GROW(K->globals, K->nglobals, K->capglobals);
    K->globals[K->nglobals++] = g;
    return arena_printf("E->g%d", g->id);
}

static const char *dex(struct ir_node *n);
static const char *device_fn(struct ir_fn *f);

static const char *var_ref(struct ir_var *v)
{
    if (!dtype(v->type)) return fail();
    if (!D && K->in_op) { /* brk_op: f's two operands */
        if (v == K->rn->comb_l) return "a";
        if (v == K->rn->comb_r) return "b";
        return fail();
    }
    if (!D) {
        /* brk_elem: a clause's variable, or a captured scalar */
        for (int c = 0; c <= K->rn->nclauses; c++)
            if (v == (c ? K->rn->clauses[c - 1].var : K->rn->gen_var)) {
                if (K->cused) K->cused[c] = 1;
                return arena_printf("v%d", v->id);
            }
        if (is_cap(v)) return arena_printf("E->c%d", v->id);
        return fail();
    }
    return arena_printf("v%d", v->id);
}

/* A captured numeric array named by an IR_VAR (brk_elem only). */
static struct ir_var *cap_array(struct ir_node *a)
{
    if (D || K->in_op || a->op != IR_VAR || !is_cap(a->var) || !is_num_array(a->var->type)) return NULL;
    return a->var;
}

static const char *dbinary(struct ir_node *n)
{
    struct type *ot = n->optype, *bt = n->b->type;
    const char *a = dex(n->a), *b = dex(n->b);
    enum op op = n->bop;
    const char *cmp = op_is_compare(op) ? op_c[op] : NULL;
    if (ot == ty_bool) {
        if (op == OP_EQ || op == OP_NE || op_class[op] == OPC_BITS) return arena_printf("(%s %s %s)", a, op_c[op], b);
        return fail();
    }
    if (ot == ty_float) {
        if (op == OP_MOD) return arena_printf("fmod(%s, %s)", a, b);
        if (cmp || op_class[op] == OPC_ARITH) return arena_printf("(%s %s %s)", a, op_c[op], b);
        return fail();
    }
    /* integers: checked arithmetic and shifts in the prelude (brk_<stem>_<sfx>) */
    const char *s = sfx(ot);
    if (!s) return fail();
    if (cmp) return arena_printf("(%s %s %s)", a, cmp, b);
    switch (op_class[op]) {
    case OPC_ARITH: return arena_printf("brk_%s_%s(st_, %s, %s)", op_stem[op], s, a, b);
    case OPC_BITS: return arena_printf("(%s %s %s)", a, op_c[op], b);
    case OPC_SHIFT: {
        const char *amt = bt == ty_u64 ? arena_printf("brk_amt_u64(%s)", b) : bt == ty_int ? b : fail();
        return arena_printf("brk_%s_%s(st_, %s, %s)", op_stem[op], s, a, amt);
    }
    case OPC_CMP: case OPC_UNARY: case OPC_NONE: break;
    }
    return fail();
}

static const char *dconv(struct ir_node *n)
{
    struct type *from = n->optype, *to = n->type;
    const char *a = dex(n->a);
    if (!dtype(from) || !dtype(to)) return fail();
    if (from == to) return a;
    if (from == ty_bool) return arena_printf("((%s)%s)", dtype(to), a);
    if (to == ty_float) return arena_printf("((double)%s)", a); /* int, u64: round to nearest */
    if (to == ty_int) return from == ty_float ? arena_printf("brk_f2i(st_, %s)", a) : arena_printf("brk_u2i(st_, %s)", a);
    if (to == ty_u64) return from == ty_float ? arena_printf("brk_f2u(st_, %s)", a) : arena_printf("brk_i2u(st_, %s)", a);
    return fail();
}

static const char *dbuiltin(struct ir_node *n)
{
    struct type *t0 = n->nkids ? n->kids[0]->type : NULL;
    if (!builtins[n->builtin].gpu) return fail();
    switch (n->builtin) {
    case BI_PANIC: return "brk_fail(st_)"; /* the message is the CPU re-run's business */
    case BI_LEN: {
        struct ir_var *v = cap_array(n->kids[0]);
        return v ? arena_printf("E->c%d_len", v->id) : fail();
    }
    default: break;
    }
    const char **x = arena_alloc((size_t)(n->nkids + 1) * sizeof *x);
    for (int i = 0; i < n->nkids; i++) x[i] = dex(n->kids[i]);
    if (builtins[n->builtin].sig == SIG_FLOATS) /* brine's own, the same bits everywhere (crmath.h) */
        return n->nkids == 2 ? arena_printf("brm_%s(%s, %s)", builtin_name[n->builtin], x[0], x[1])
                             : arena_printf("brm_%s(%s)", builtin_name[n->builtin], x[0]);
    switch (n->builtin) {
    case BI_ABS:
        if (t0 == ty_int) return arena_printf("brk_abs_i64(st_, %s)", x[0]);
        if (t0 == ty_float) return arena_printf("fabs(%s)", x[0]);
        if (t0 == ty_u64) return x[0];
        return fail();
    case BI_MIN2: case BI_MAX2:
        if (!sfx(t0)) return fail();
        return arena_printf("brk_%s_%s(%s, %s)", n->builtin == BI_MIN2 ? "min" : "max", sfx(t0), x[0], x[1]);
    case M_WRAPPING_ADD: case M_WRAPPING_SUB: case M_WRAPPING_MUL: {
        const char *op = n->builtin == M_WRAPPING_ADD ? "+" : n->builtin == M_WRAPPING_SUB ? "-" : "*";
        if (t0 == ty_u64) return arena_printf("(%s %s %s)", x[0], op, x[1]);
        if (t0 == ty_int)
            return arena_printf("((long long)((unsigned long long)%s %s (unsigned long long)%s))", x[0], op, x[1]);
        return fail();
    }
    case M_WRAPPING_NEG:
        if (t0 == ty_u64) return arena_printf("(0ULL - %s)", x[0]);
        if (t0 == ty_int) return arena_printf("((long long)(0ULL - (unsigned long long)%s))", x[0]);
        return fail();
    default: return fail();
    }
}

static const char *dex(struct ir_node *n)
{
    if (K->bad) return "0";
    switch (n->eop) {
    case IR_INT:
        if (n->type != ty_int && n->type != ty_u64) return fail();
        return int_lit(n->type, n->ival);
    case IR_FLOAT: return float_bits_lit("brk_f64", n->fval);
    case IR_BOOL: return n->bval ? "1" : "0";
    case IR_VAR: return var_ref(n->var);
    case IR_GLOBAL: return global_ref(n->global);
    case IR_UNARY: {
        const char *a = dex(n->a);
        struct type *t = n->optype;
        if (n->bop == OP_NEG) {
            if (t == ty_float) return arena_printf("(-%s)", a);
            if (t == ty_int || t == ty_u64) return arena_printf("brk_%s_%s(st_, %s)", op_stem[OP_NEG], sfx(t), a);
            return fail();
        }
        if (t == ty_int || t == ty_u64) return arena_printf("(~%s)", a);
        return fail();
    }
    case IR_NOT: return arena_printf("(!%s)", dex(n->a));
    case IR_BINARY: return dbinary(n);
    case IR_AND: return arena_printf("(%s && %s)", dex(n->a), dex(n->b));
    case IR_OR: return arena_printf("(%s || %s)", dex(n->a), dex(n->b));
    case IR_COND: {
        if (!dtype(n->type)) return fail();
        const char *c = dex(n->a), *x = dex(n->b), *y = dex(n->c);
        return arena_printf("(%s ? %s : %s)", c, x, y);
    }
    case IR_CONV: return dconv(n);
    case IR_CALL: {
        if (n->type != ty_void && !dtype(n->type)) return fail();
        const char *name = device_fn(n->fn);
        struct buf args = {0};
        /* brk_op has no environment; its functions read none */
        bputs(&args, !D && K->in_op ? "(const struct brk_env *)0, st_" : "E, st_");
        for (int i = 0; i < n->nkids; i++) bprintf(&args, ", %s", dex(n->kids[i]));
        const char *r = arena_printf("%s(%s)", name, args.p);
        free(args.p);
        return r;
    }
    case IR_BUILTIN: return dbuiltin(n);
    case IR_INDEX: {
        struct ir_var *v = cap_array(n->a);
        if (!v || n->b->type != ty_int) return fail();
        return arena_printf("brk_ld_%s(st_, E->c%d, E->c%d_len, %s)", sfx(v->type->elem), v->id, v->id, dex(n->b));
    }
    case IR_GUARD_TEST: /* a narrowed test's let (opt_version.c): read only by versioned ifs, written as written */
        return n->narrowed ? "0" : fail();
    case IR_STR: case IR_ARRAY: case IR_FSTRING: case IR_LISTCOMP: case IR_REDUCE: case IR_TUPLE: case IR_FIELD:
    case IR_FNVAL: case IR_CALLV:
        return fail();
    }
    return fail();
}

/* ---- device functions ------------------------------------------------------- */

__attribute__((format(printf, 1, 2))) static void dline(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    bvline(&D->body, D->ind, fmt, ap);
    va_end(ap);
}

static const char *dlocal(struct ir_var *v)
{
    const char *t = dtype(v->type);
    if (!t) return fail();
    unsigned char *dec = declared_slot(D, v->id);
    if (!*dec) {
        *dec = 1;
        bprintf(&D->decl, "    %s v%d = 0;\n", t, v->id);
    }
    return arena_printf("v%d", v->id);
}

static void dstmt(struct ir_node *s)
{
    if (K->bad) return;
    switch (s->sop) {
    case IR_BLOCK:
        dline("{");
        D->ind++;
        for (int i = 0; i < s->nkids; i++) dstmt(s->kids[i]);
        D->ind--;
        dline("}");
        return;
    case IR_LET: case IR_ASSIGN: {
        enum reducer red;
        struct ir_node *r = s->a;
        if (r->op == IR_REDUCE && ir_minmax_combine(r, &red) && r->iter.is_range && !r->nclauses && !ir_reads(r->elem, s->var) &&
            !(r->filter && ir_reads(r->filter, s->var))) {
            /* a min or max fold from a start (opt_extremes.c's running
             * extreme): v = start, then the loop it was, v = max(v, x) */
            struct loc at = r->loc;
            if (!(r->a->op == IR_VAR && r->a->var == s->var)) dline("%s = %s;", dlocal(s->var), dex(r->a));
            struct ir_node *step = ir_new(IR_BUILTIN, at, r->type);
            step->builtin = red == RED_MAX ? BI_MAX2 : BI_MIN2;
            ir_push_kid(step, ir_mk_var(s->var, at));
            ir_push_kid(step, r->elem);
            struct ir_node *body = ir_new(IR_BLOCK, at, ty_void), *set = ir_mk_stmt(IR_ASSIGN, s->var, step, at);
            if (r->filter) {
                struct ir_node *f = ir_new(IR_IF, at, ty_void);
                f->a = r->filter;
                f->b = ir_new(IR_BLOCK, at, ty_void);
                ir_push_kid(f->b, set);
                set = f;
            }
            ir_push_kid(body, set);
            struct ir_node *loop = ir_new(IR_FOR_RANGE, at, ty_void);
            loop->var = r->gen_var;
            loop->iter = r->iter;
            loop->b = body;
            dstmt(loop);
            return;
        }
        const char *x = dex(s->a);
        const char *v = dlocal(s->var);
        dline("%s = %s;", v, x);
        return;
    }
    case IR_EXPR:
        dline("(void)(%s);", dex(s->a));
        return;
    case IR_IF:
        /* a versioned loop (opt_version.c): the device checks every index; a
         * loop written twice (opt_prefetch.c): the device prefetches nothing */
        if (s->a->op == IR_GUARD_TEST || ir_runs_long_if(s)) {
            dstmt(s->c);
            return;
        }
        dline("if (%s) {", dex(s->a));
        D->ind++;
        dstmt(s->b);
        D->ind--;
        if (s->c) {
            dline("} else {");
            D->ind++;
            dstmt(s->c);
            D->ind--;
        }
        dline("}");
        return;
    case IR_WHILE:
        dline("while (!*st_ && %s) {", dex(s->a));
        D->ind++;
        dstmt(s->b);
        D->ind--;
        dline("}");
        return;
    case IR_FOR_RANGE: {
        struct type *it = s->iter.lo->type;
        const char *t = it == ty_int || it == ty_u64 ? dtype(it) : NULL;
        if (!t) {
            fail();
            return;
        }
        const char *v = dlocal(s->var);
        int k = s->var->id;
        /* bounds once; k never steps past hi, as in the C back end */
        dline("{");
        D->ind++;
        dline("%s lo%d = %s, hi%d = %s;", t, k, dex(s->iter.lo), k, dex(s->iter.hi));
        if (s->iter.inclusive)
            dline("for (%s k%d = lo%d, go%d = lo%d <= hi%d; go%d && !*st_; go%d = k%d < hi%d, k%d += go%d) {", t, k, k,
                  k, k, k, k, k, k, k, k, k);
        else
            dline("for (%s k%d = lo%d; k%d < hi%d && !*st_; k%d++) {", t, k, k, k, k, k);
        D->ind++;
        dline("%s = k%d;", v, k);
        dstmt(s->b);
        D->ind--;
        dline("}");
        D->ind--;
        dline("}");
        return;
    }
    case IR_BREAK: dline("break;"); return;
    case IR_CONTINUE: dline("continue;"); return;
    case IR_RETURN:
        if (s->a) dline("return %s;", dex(s->a));
        else dline("return;");
        return;
    case IR_UNREACHABLE:
        dline("*st_ = 1;");
        return;
    case IR_STORE: case IR_PUSH: case IR_UNIQUE: case IR_FOR_ARRAY:
        fail();
        return;
    }
}

/* The device function for f (generated once per kernel); its name. */
static const char *device_fn(struct ir_fn *f)
{
    for (int i = 0; i < K->nfns; i++)
        if (K->fns[i].fn == f) {
            if (K->fns[i].state == 1) fail(); /* recursion: the CPU's business */
            return f->cname;
        }
    if (f->ret != ty_void && !dtype(f->ret)) return fail();
    for (int i = 0; i < f->nparams; i++)
        if (!dtype(f->params[i]->type)) return fail();
    VEC_GROW(K->fns, K->nfns, K->capfns);
    int me = K->nfns++;
    K->fns[me] = (struct dfn){f, 1};

    struct buf hdr = {0};
    bprintf(&hdr, "__device__ static %s %s(const struct brk_env *E, int *st_", f->ret == ty_void ? "void" : dtype(f->ret),
              f->cname);
    for (int i = 0; i < f->nparams; i++) bprintf(&hdr, ", %s v%d", dtype(f->params[i]->type), f->params[i]->id);
    bputs(&hdr, ")");
    bprintf(&K->protos, "%s;\n", hdr.p);

    struct dctx *saved = D;
    struct dctx d = {0};
    for (int i = 0; i < f->nparams; i++) *declared_slot(&d, f->params[i]->id) = 1;
    d.ind = 1;
    D = &d;
    for (int i = 0; i < f->body->nkids; i++) dstmt(f->body->kids[i]);
    D = saved;

    bprintf(&K->defs, "/* %s.%s */\n%s\n{\n", f->module, f->name, hdr.p);
    bputs(&K->defs, "    (void)E;\n");
    if (d.decl.p) bputs(&K->defs, d.decl.p);
    if (d.body.p) bputs(&K->defs, d.body.p);
    if (f->ret != ty_void) bputs(&K->defs, "    return 0;\n");
    bputs(&K->defs, "}\n\n");
    free(hdr.p);
    free(d.decl.p);
    free(d.body.p);
    free(d.declared);
    K->fns[me].state = 2;
    return f->cname;
}

/* ---- the fixed parts of every module ----------------------------------------- */

/* The prelude (runtime-gpu/kernel_prelude.h: the shim's macros, the tree's
 * shape, checked arithmetic) and the two kernels (runtime-gpu/kernel_tree.h:
 * brk_leaves and brk_combine, the same for every reduction), embedded by the
 * build as text (tools/embed.c -> build/gen/kernel_prelude.c). The kernels use
 * BRK_T (the value type), BRK_GT (the generator variable's type), BRK_ARRAY
 * (source is an array, staged through shared memory with coalesced loads),
 * BRK_MINMAX, BRK_START, brk_env_load, brk_elem and brk_op, which
 * emit_cuda_reduce writes between the two. */
extern const char brine_kernel_prelude[], brine_kernel_tree[], brine_kernel_scan[], brine_kernel_keyed[];
extern const size_t brine_kernel_prelude_len, brine_kernel_tree_len, brine_kernel_scan_len, brine_kernel_keyed_len;

/* n bytes of s as C string literals, one per line */
static void string_part(struct buf *c, const char *s, size_t n)
{
    char *t = xmalloc(n + 1);
    memcpy(t, s, n);
    t[n] = 0;
    c_string_lines(c, t);
    free(t);
}

/* The kernels' fixed text as two string macros, written once before the
 * first bp_cu<n> (a 10,000-line program has hundreds of kernels; each
 * spelled out its own copy of the same ~230 lines). */
static void macro_string(struct buf *out, const char *name, const char *s, size_t n)
{
    struct buf lit = {0};
    string_part(&lit, s, n);
    bprintf(out, "#define %s \\\n", name);
    for (const char *p = lit.p; *p; p++) {
        if (*p == '\n') bputs(out, " \\\n");
        else bputn(out, p, 1);
    }
    bputs(out, "\n");
    free(lit.p);
}

void emit_cuda_fixed(struct buf *out)
{
    macro_string(out, "BP_CU_PRELUDE", brine_kernel_prelude, brine_kernel_prelude_len);
    macro_string(out, "BP_CU_TREE", brine_kernel_tree, brine_kernel_tree_len);
    macro_string(out, "BP_CU_SCAN", brine_kernel_scan, brine_kernel_scan_len);
    macro_string(out, "BP_CU_KEYED", brine_kernel_keyed, brine_kernel_keyed_len);
    bputs(out, "\n");
}

/* The combine of a built-in reducer, of a and b. */
static const char *builtin_op(enum reducer r, struct type *t)
{
    switch (r) {
    case RED_SUM: return t == ty_float ? "a + b" : arena_printf("brk_add_%s(st_, a, b)", sfx(t));
    case RED_PRODUCT: return t == ty_float ? "a * b" : arena_printf("brk_mul_%s(st_, a, b)", sfx(t));
    case RED_MIN: return "b < a ? b : a";
    case RED_MAX: return "b > a ? b : a";
    case RED_ANY: case RED_ALL: break;
    }
    internal_error("emit_cuda: no device combine for %s", reducer_name[r]);
}

/* ---- one reduction ------------------------------------------------------------ */

const char *emit_cuda_reduce(struct ir_node *rn, int id, struct buf *sources, int *nkernels, char **aux)
{
    *aux = NULL;
    /* a par scan too (kernel_scan.h), not a world one (ranks scan on the
     * CPU), and a keyed reduction (kernel_keyed.h), world ones too (each
     * rank's blocks) */
    if (!rn->par || rn->op != IR_REDUCE || (rn->scan && rn->world)) return NULL;
    /* reduce(f, start, gen): f's combine is brk_op (below) */
    if (!rn->user && rn->reducer != RED_SUM && rn->reducer != RED_PRODUCT && rn->reducer != RED_MIN &&
        rn->reducer != RED_MAX)
        return NULL;
    struct type *t = rn->elem_type;
    if (t != ty_int && t != ty_u64 && t != ty_float) return NULL;
    /* each clause (several: the kernel's element is the flat position, its
     * digits found per element, row-major) a range or a numeric array */
    int L = rn->nclauses;
    for (int c = 0; c <= L; c++) {
        struct ir_iter *it = c ? &rn->clauses[c - 1].iter : &rn->iter;
        struct type *vt = c ? rn->clauses[c - 1].var->type : rn->gen_var->type;
        if (it->is_range) {
            if (vt != ty_int && vt != ty_u64) return NULL;
        } else if (!is_num_array(it->array->type) || vt != it->array->type->elem) {
            return NULL;
        }
    }
    struct type *gt = L ? ty_int : rn->gen_var->type;
    bool arr_src = !L && !rn->iter.is_range;
    for (int i = 0; i < rn->ncaps; i++)
        if (!dtype(rn->caps[i]->type) && !is_num_array(rn->caps[i]->type)) return NULL;

    struct kctx k = {0};
    k.rn = rn;
    if (L) k.cused = calloc((size_t)L + 1, 1);
    K = &k;
    D = NULL;
    /* f first: the device functions it makes read no environment, so the
     * elements may call them too */
    const char *comb = NULL;
    if (rn->user) {
        k.in_op = true;
        comb = dex(rn->c);
        k.in_op = false;
    }
    const char *filter = rn->filter ? dex(rn->filter) : NULL;
    const char *key = rn->key ? dex(rn->key) : NULL;
    const char *elem = dex(rn->elem);
    K = NULL;
    if (k.bad) {
        free(k.protos.p);
        free(k.defs.p);
        free(k.fns);
        free(k.globals);
        free(k.cused);
        return NULL;
    }

    const char *T = dtype(t), *GT = dtype(gt);
    const struct source *src = source_get(rn->loc.file);
    const char *file = src && src->name ? src->name : "?";
    struct buf cu = {0};
    bprintf(&cu, "/* brine kernel: %s:%d:%d %s %s%s of %s%s. Generated by brine " BRINE_VERSION ". */\n", file,
              rn->loc.line, rn->loc.col, rn->world ? "world" : "par", rn->scan ? "scan " : "",
              rn->user ? (rn->scan ? "(f)" : "reduce") : reducer_name[rn->reducer], type_name(t),
              key ? " by key" : "");
    size_t head_len = cu.len;
    bputn(&cu, brine_kernel_prelude, brine_kernel_prelude_len);
    bprintf(&cu, "typedef %s BRK_T;\ntypedef %s BRK_GT;\n", T, GT);
    bprintf(&cu, "#define BRK_ARRAY %d\n#define BRK_MINMAX %d\n", arr_src,
              !rn->user && (rn->reducer == RED_MIN || rn->reducer == RED_MAX));
    if (rn->user) /* the host's start value, a slot; see brk_op */
        bputs(&cu, "#define BRK_START (E.st)\n");
    else
        bprintf(&cu, "#define BRK_START %s\n",
                  rn->reducer == RED_PRODUCT ? (t == ty_float ? "1.0" : "1") : (t == ty_float ? "0.0" : "0"));
    if (L)
        /* the flat position: lo is 0, or a world block's first element */
        bputs(&cu, "#define BRK_RANGE_AT(lo, k) ((long long)(lo) + (long long)(k))\n");
    else if (gt == ty_int)
        bputs(&cu, "#define BRK_RANGE_AT(lo, k) ((long long)((unsigned long long)(lo) + (unsigned long long)(k)))\n");
    else
        bputs(&cu, "#define BRK_RANGE_AT(lo, k) ((lo) + (unsigned long long)(k))\n");

    /* the environment: slot 0 n, slot 1 lo or the array (2: its length),
     * then the captured variables, then the constants */
    struct buf env = {0}, load = {0}, host = {0};
    int ns = 0, ncopies = 0;
    bputs(&env, "struct brk_env {\n    long long n;\n");
    bputs(&load, "__device__ static void brk_env_load(struct brk_env *E, const brk_slot *A)\n{\n    E->n = A[0].i;\n");
    bprintf(&host, "    s[%d].i = env->n;\n", ns++);
    if (L) {
        /* the flat positions from 0; then each clause's count and source */
        bprintf(&env, "    long long lo;\n");
        bprintf(&load, "    E->lo = A[1].i;\n");
        bprintf(&host, "    s[%d].i = 0;\n", ns++);
        for (int c = 0; c <= L; c++) {
            struct ir_iter *it = c ? &rn->clauses[c - 1].iter : &rn->iter;
            struct type *vt = c ? rn->clauses[c - 1].var->type : rn->gen_var->type;
            const char *cx = c ? arena_printf("%d", c) : "";
            bprintf(&env, "    long long cn%d;\n", c);
            bprintf(&load, "    E->cn%d = A[%d].i;\n", c, ns);
            bprintf(&host, "    s[%d].i = env->n%s;\n", ns++, c ? cx : "0");
            if (it->is_range) {
                bprintf(&env, "    %s clo%d;\n", dtype(vt), c);
                bprintf(&load, "    E->clo%d = A[%d].%s;\n", c, ns, slot_member(vt));
                bprintf(&host, "    s[%d].%s = env->lo%s;\n", ns++, slot_member(vt), cx);
            } else {
                bprintf(&env, "    const %s *carr%d;\n", dtype(vt), c);
                bprintf(&load, "    E->carr%d = (const %s *)A[%d].p;\n", c, dtype(vt), ns);
                bprintf(&host, "    s[%d].p = env->arr%s->data;\n    s[%d].i = env->arr%s->len;\n", ns, cx, ns + 1, cx);
                bprintf(&host, "    c[%d].slot = %d; c[%d].bytes = env->arr%s->len * 8;\n", ncopies, ns, ncopies, cx);
                ncopies++;
                ns += 2;
            }
        }
    } else if (rn->iter.is_range) {
        bprintf(&env, "    %s lo;\n", GT);
        bprintf(&load, "    E->lo = A[1].%s;\n", slot_member(gt));
        bprintf(&host, "    s[%d].%s = env->lo;\n", ns++, slot_member(gt));
    } else {
        bprintf(&env, "    const %s *arr;\n", GT);
        bprintf(&load, "    E->arr = (const %s *)A[1].p;\n", GT);
        bprintf(&host, "    s[%d].p = env->arr->data;\n    s[%d].i = env->arr->len;\n", ns, ns + 1);
        bprintf(&host, "    c[%d].slot = %d; c[%d].bytes = env->arr->len * 8;\n", ncopies, ns, ncopies);
        ncopies++;
        ns += 2;
    }
    for (int i = 0; i < rn->ncaps; i++) {
        struct ir_var *v = rn->caps[i];
        if (is_num_array(v->type)) {
            const char *et = dtype(v->type->elem);
            bprintf(&env, "    const %s *c%d;\n    long long c%d_len;\n", et, v->id, v->id);
            bprintf(&load, "    E->c%d = (const %s *)A[%d].p;\n    E->c%d_len = A[%d].i;\n", v->id, et, ns, v->id, ns + 1);
            bprintf(&host, "    s[%d].p = env->v%d->data;\n    s[%d].i = env->v%d->len;\n", ns, v->id, ns + 1, v->id);
            bprintf(&host, "    c[%d].slot = %d; c[%d].bytes = env->v%d->len * 8;\n", ncopies, ns, ncopies, v->id);
            ncopies++;
            ns += 2;
        } else {
            bprintf(&env, "    %s c%d; /* %s */\n", dtype(v->type), v->id, v->name);
            bprintf(&load, "    E->c%d = A[%d].%s;\n", v->id, ns, slot_member(v->type));
            bprintf(&host, "    s[%d].%s = env->v%d;\n", ns, slot_member(v->type), v->id);
            ns++;
        }
    }
    for (int i = 0; i < k.nglobals; i++) {
        struct ir_global *g = k.globals[i];
        bprintf(&env, "    %s g%d; /* %s.%s */\n", dtype(g->type), g->id, g->module, g->name);
        bprintf(&load, "    E->g%d = A[%d].%s;\n", g->id, ns, slot_member(g->type));
        bprintf(&host, "    s[%d].%s = g%d;\n", ns, slot_member(g->type), g->id);
        ns++;
    }
    if (key) {
        bputs(&env, "    long long nk; /* the keys: 0 .. nk - 1 */\n");
        bprintf(&load, "    E->nk = A[%d].i;\n", ns);
        bprintf(&host, "    s[%d].i = env->nk;\n", ns);
        ns++;
    }
    if (rn->user) {
        bprintf(&env, "    %s st; /* reduce's start */\n", T);
        bprintf(&load, "    E->st = A[%d].%s;\n", ns, slot_member(t));
        bprintf(&host, "    s[%d].%s = env->st_;\n", ns, slot_member(t));
        ns++;
    }
    bputs(&env, "};\n");
    bputs(&load, "}\n\n");
    bputs(&cu, env.p);
    bputs(&cu, load.p);
    if (k.protos.p) bputs(&cu, k.protos.p), bputs(&cu, "\n");
    if (k.defs.p) bputs(&cu, k.defs.p);

    /* brk_elem: the filter, then element k's value (keyed: brk_elem_key,
     * the filter, the key into *key_, the value) */
    if (key)
        bprintf(&cu, "/* element: 1, *key_ and *x_ when kept by the filter, else 0 */\n"
                       "__device__ static int brk_elem_key(const struct brk_env *E, BRK_GT %s, long long *key_, "
                       "BRK_T *x_, int *st_)\n{\n    (void)E;\n",
                  L ? "k_" : arena_printf("v%d", rn->gen_var->id));
    else
        bprintf(&cu, "/* element: 1 and *x_ when kept by the filter, else 0 */\n"
                       "__device__ static int brk_elem(const struct brk_env *E, BRK_GT %s, BRK_T *x_, int *st_)\n{\n"
                       "    (void)E;\n",
                  L ? "k_" : arena_printf("v%d", rn->gen_var->id));
    if (L) {
        /* the clauses' positions of flat position k_ (row-major), only
         * those the element reads (NVRTC warns of a variable never used) */
        int top = L + 1; /* the outermost clause read */
        for (int c = L; c >= 0; c--)
            if (k.cused[c]) top = c;
        if (top <= L) bputs(&cu, "    unsigned long long q_ = (unsigned long long)k_;\n");
        for (int c = L; c >= top; c--) {
            struct ir_iter *it = c ? &rn->clauses[c - 1].iter : &rn->iter;
            struct ir_var *v = c ? rn->clauses[c - 1].var : rn->gen_var;
            if (c && k.cused[c]) bprintf(&cu, "    long long d%d_ = (long long)(q_ %% (unsigned long long)E->cn%d);\n", c, c);
            if (c && c > top) bprintf(&cu, "    q_ /= (unsigned long long)E->cn%d;\n", c);
            if (!k.cused[c]) continue;
            if (!c) bputs(&cu, "    long long d0_ = (long long)q_;\n");
            if (!it->is_range)
                bprintf(&cu, "    %s v%d = E->carr%d[d%d_];\n", dtype(v->type), v->id, c, c);
            else if (v->type == ty_int)
                bprintf(&cu, "    long long v%d = (long long)((unsigned long long)E->clo%d + (unsigned long long)d%d_);\n", v->id, c, c);
            else
                bprintf(&cu, "    unsigned long long v%d = E->clo%d + (unsigned long long)d%d_;\n", v->id, c, c);
        }
    }
    if (filter) bprintf(&cu, "    if (!%s) return 0;\n", filter);
    if (key) {
        bprintf(&cu, "    *key_ = %s;\n    if (*st_) return 0;\n", key);
        bprintf(&cu, "    *x_ = %s;\n    return 1;\n}\n\n", elem);
        /* kernel_tree.h's kernels, unused here, call brk_elem */
        bputs(&cu, "__device__ static int brk_elem(const struct brk_env *E, BRK_GT g, BRK_T *x, int *st)\n"
                   "{\n    long long k;\n    return brk_elem_key(E, g, &k, x, st);\n}\n\n");
    } else {
        bprintf(&cu, "    *x_ = %s;\n    return 1;\n}\n\n", elem);
    }

    /* brk_op: the combine (and the fold of one element) */
    bputs(&cu, "BRK_FN BRK_T brk_op(int *st_, BRK_T a, BRK_T b)\n{\n");
    if (rn->user) {
        /* f(a, b), which reads a and b alone: no environment */
        bprintf(&cu, "    (void)st_;\n    return %s;\n}\n\n", comb);
        /* BRK_START is E.st: brk_leaves' own E; in brk_combine this empty
         * one, the value of a node without a value, never combined */
        bputs(&cu, "/* brk_combine's placeholder for a node without a value (BRK_START) */\n"
                   "__device__ static struct brk_env E;\n\n");
    } else {
        bprintf(&cu, "    (void)st_;\n    return %s;\n}\n\n", builtin_op(rn->reducer, t));
    }
    size_t mid_end = cu.len;
    bputn(&cu, brine_kernel_tree, brine_kernel_tree_len);
    if (rn->scan) bputn(&cu, brine_kernel_scan, brine_kernel_scan_len);
    if (key) bputn(&cu, brine_kernel_keyed, brine_kernel_keyed_len);

    /* for --emit-cuda */
    bprintf(sources, "// ==== brine kernel %d %s:%d:%d ====\n", id, file, rn->loc.line, rn->loc.col);
    bputs(sources, cu.p);
    (*nkernels)++;

    /* the host side: the source, and bp_gpu<id> filling the slots */
    struct buf c = {0};
    bprintf(&c, "/* GPU offload of the reduction at %s:%d:%d (emit_cuda.c) */\nstatic const char bp_cu%d[] =\n", file,
              rn->loc.line, rn->loc.col, id);
    /* the fixed parts by name (emit_cuda_fixed): the same bytes, written once */
    string_part(&c, cu.p, head_len);
    bputs(&c, "\n    BP_CU_PRELUDE\n");
    size_t mid = head_len + brine_kernel_prelude_len;
    string_part(&c, cu.p + mid, mid_end - mid);
    bputs(&c, rn->scan ? "\n    BP_CU_TREE\n    BP_CU_SCAN;\n" : key ? "\n    BP_CU_TREE\n    BP_CU_KEYED;\n" : "\n    BP_CU_TREE;\n");
    bprintf(&c, "static const brt_gpu_kernel bp_gk%d = {bp_cu%d, sizeof bp_cu%d - 1, %d, %d, %d};\n", id, id, id,
              t == ty_int ? 0 : t == ty_u64 ? 1 : 2 /* brt_gpu_kernel.vkind */, (int)rn->reducer,
              arr_src);
    if (rn->scan)
        /* the entries from the device, or else from the CPU */
        bprintf(&c, "static brt_arr *bp_gpu%d(void *envp, const brt_fold *f, const brt_type *elem, const brt_loc *loc)\n{\n", id);
    else if (key)
        /* brt_fold.gpu's, and the place: true when the device filled out
         * and has (elements base .. base + n - 1); else the CPU is to */
        bprintf(&c, "static bool bp_gpu%d(void *envp, const brt_fold *f, int64_t base, int64_t n, int64_t nkeys, void *out, "
                    "unsigned char *has, const brt_loc *loc)\n{\n", id);
    else
        bprintf(&c, "static bool bp_gpu%d(void *envp, const brt_reduce *part, int64_t first, void *out)\n{\n", id);
    bprintf(&c, "    struct bp_env%d *env = envp;\n    brt_gpu_slot s[%d];\n    brt_gpu_copy c[%d];\n", id, ns,
              ncopies ? ncopies : 1);
    bputs(&c, host.p);
    if (rn->scan)
        bprintf(&c, "    brt_arr *a = brt_gpu_scan(&bp_gk%d, f, elem, s, %d, c, %d, loc);\n"
                    "    return a ? a : brt_scan_run(f, elem);\n}\n\n",
                id, ns, ncopies);
    else if (key)
        bprintf(&c, "    return brt_gpu_keyed(&bp_gk%d, f, base, n, nkeys, s, %d, c, %d, out, has, loc);\n}\n\n", id, ns,
                ncopies);
    else
        bprintf(&c, "    return brt_gpu_reduce(&bp_gk%d, part, first, s, %d, c, %d, out);\n}\n\n", id, ns, ncopies);
    *aux = c.p;

    free(cu.p);
    free(env.p);
    free(load.p);
    free(host.p);
    free(k.protos.p);
    free(k.defs.p);
    free(k.fns);
    free(k.globals);
    free(k.cused);
    return arena_printf("bp_gpu%d", id);
}
