/*
 * emit_program.c: the whole translation unit. emit_program() is the door of
 * the C emitter's rooms (emit_c.h): it writes the prelude's types and
 * descriptors, every function (emit_fn: its header, locals, the chain's
 * frame record, the body and the single exit that releases what the
 * function owns), the helpers the reductions and lanes wrote on the side,
 * and main(); for a two-part release build it splits the helpers from the
 * functions (part_helpers).
 */
#include "emit_c.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static const char *fn_header(struct ir_fn *f)
{
    struct buf b = {0};
    bprintf(&b, "%s %s(", f->ret == ty_void ? "void" : ctype(f->ret), f->cname);
    for (int i = 0; i < f->nparams; i++) {
        debug_note_var(f->params[i]);
        bprintf(&b, "%s%s v%d", i ? ", " : "", ctype(f->params[i]->type), f->params[i]->id);
    }
    if (f->has_site) bprintf(&b, "%sconst brt_loc *site", f->nparams ? ", " : "");
    bprintf(&b, "%sconst brt_loc **fp_", f->nparams || f->has_site ? ", " : ""); /* its slot (runtime/frames.c) */
    bputs(&b, ")");
    return b.p;
}

/* A function's name in call chains: its own in the main module, module.name
 * in others; a lambda by where it is written. */
const char *frame_name(struct ir_fn *f)
{
    const char *known = map_get_ptr(&CG->frame_names, f);
    if (known) return known;
    const char *r = f->name;
    if (f->is_lambda) {
        const struct source *src = source_get(f->loc.file);
        r = arena_printf("a lambda at %s:%d:%d", src && src->name ? src->name : "?", f->loc.line, f->loc.col);
    } else if (f != CG->ir->main && strcmp(f->module, CG->ir->main->module) != 0) {
        r = arena_printf("%s.%s", f->module, f->name);
    }
    map_put_ptr(&CG->frame_names, f, (void *)r);
    return r;
}

/* fold_only: whether every innermost loop of a function (a statement loop
 * or a sequential comprehension or reduction with no loop inside) is an
 * in-order float fold: a sum or product of floats, or a loop whose body
 * assigns a float a step of its own fold (float_fold_of). Par constructs
 * and other loops (fills, maps, int counts) count against. */
static bool fo_loop; /* the node just scanned holds a loop */
static int fo_folds, fo_others;
static bool fo_step; /* fo_find_step: a fold step found */

static void fo_find_step(struct ir_node *n)
{
    if (!n || fo_step) return;
    if (n->op == IR_ASSIGN && map_get_ptr(&CG->fold_carried, n)) {
        fo_step = true;
        return;
    }
    ir_each_child(n, fo_find_step);
}

/* The steps of in-order float folds that a loop carries (CG->fold_carried):
 * v = x with float_fold_of(x, v), inside a loop that v is declared outside
 * of. Only those get BP_FOLD and count as a fold loop's: a sum a loop's
 * body starts afresh (`var s = 0.0`, then s += w[k] * img[i + k][j] written
 * out) is no reduction of that loop, whose iterations gcc may run in
 * vectors side by side (a 3x3 convolution with --cpu=native on a Rocket
 * Lake: 1.9 ms with the barriers, 1.07 without, the bits the same). */
static struct map cw_decl; /* var -> 1 + the loop depth of its let */
static int cw_depth;
static bool cw_small; /* the innermost loop around has a small step (FOLD_LOOP_WORK) */

/* The most work (ir_par_work) of a step of a fold loop that BP_FOLD_LOOP
 * unrolls: a dot product's step is 10, eight Horner steps written out 80. */
#define FOLD_LOOP_WORK 32

static void cw_walk(struct ir_node *n)
{
    if (!n) return;
    if (n->op == IR_LET && n->var) map_put_ptr(&cw_decl, n->var, (void *)(intptr_t)(cw_depth + 1));
    if (n->op == IR_ASSIGN && n->var->type == ty_float && n->a->op == IR_BINARY && float_fold_of(n->a, n->var)) {
        intptr_t d = (intptr_t)map_get_ptr(&cw_decl, n->var); /* 0: a parameter, at depth 0 */
        if ((d ? d - 1 : 0) < cw_depth && cw_small)
            map_put_ptr(&CG->fold_carried, n, n);
    }
    bool loop = n->op == IR_FOR_RANGE || n->op == IR_FOR_ARRAY || n->op == IR_WHILE;
    bool outer = cw_small;
    if (loop) cw_depth++, cw_small = ir_par_work(n->b) <= FOLD_LOOP_WORK; /* once a loop, not once a step */
    ir_each_child(n, cw_walk);
    cw_walk(n->chunk); /* a loop on the pool's: its copies' steps (opt_version.c) */
    if (loop) cw_depth--, cw_small = outer;
}

static void find_carried_folds(struct ir_program *ir)
{
    for (int i = 0; i < ir->fns.len; i++) {
        cw_depth = 0;
        cw_walk(((struct ir_fn *)ir->fns.items[i])->body);
        map_free(&cw_decl);
    }
}

static bool fo_is_loop(struct ir_node *n)
{
    return n->op == IR_WHILE || n->op == IR_FOR_RANGE || n->op == IR_FOR_ARRAY || n->op == IR_REDUCE ||
           n->op == IR_LISTCOMP;
}

/* Whether loop n's steps fold a float in order: a sum or product of floats,
 * or a statement loop assigning a float a step of its own fold. */
static bool fo_folds_float(struct ir_node *n)
{
    if (n->op == IR_REDUCE)
        return !n->user && n->elem_type == ty_float && (n->reducer == RED_SUM || n->reducer == RED_PRODUCT);
    if (n->op == IR_LISTCOMP || n->par) return false;
    fo_step = false;
    fo_find_step(n);
    return fo_step;
}

static void fo_scan(struct ir_node *n)
{
    if (!n) return;
    bool outer = fo_loop;
    fo_loop = false;
    ir_each_child(n, fo_scan);
    bool inner = fo_loop;
    bool loop = fo_is_loop(n);
    if (loop && !inner) {
        if (!n->par && fo_folds_float(n)) fo_folds++;
        else fo_others++;
    }
    fo_loop = outer || inner || loop;
}

/* fd_scan: the innermost loops of a function at its deepest level, and
 * the cost of a step of each: another loop's step its work (ir_par_work,
 * which gcc's vectors spread over lanes), a scalar in-order float fold's
 * step FOLD_STEP_WORK, as long as that much work takes in vectors while
 * the step waits on its add (a fold inside a swapped or jammed nest runs
 * in lanes: another loop). */
enum { FOLD_STEP_WORK = 32 };
static int fd_depth, fd_max, fd_jam;
static int64_t fd_fold_cost, fd_other_cost; /* at fd_max */
static bool fd_wide_call;
static bool fold_only(struct ir_fn *f);

/* The count of range it's literal bounds, or -1 where they are not both
 * literals (a count below 0 is a loop that runs no time). */
static __int128 literal_trips(const struct ir_iter *it)
{
    if (!it->is_range || it->lo->op != IR_INT || it->hi->op != IR_INT) return -1;
    __int128 n = (__int128)(int64_t)(uint64_t)it->hi->ival - (__int128)(int64_t)(uint64_t)it->lo->ival +
                 (it->inclusive ? 1 : 0);
    return n < 0 ? 0 : n;
}

/* Whether loop n runs a short constant count (unroll_hint's): its steps
 * are written out in the loop around it. */
static bool fd_short(struct ir_node *n)
{
    __int128 c = n->op == IR_FOR_RANGE ? literal_trips(&n->iter) : -1;
    return c >= 0 && c <= IR_SHORT_TRIPS;
}

/* fd_find_loop: a loop anywhere in n (fd_loop) */
static bool fd_loop;
static void fd_find_loop(struct ir_node *n)
{
    if (!n || fd_loop) return;
    if (fo_is_loop(n)) fd_loop = true;
    else ir_each_child(n, fd_find_loop);
}

/* Whether a call of f may bring loops of another width into the caller:
 * f has loops and is no BP_FOLD256 function (never inlined). */
static bool fd_call_wide(struct ir_fn *f)
{
    fd_loop = false;
    fd_find_loop(f->body);
    if (!fd_loop) return false;
    bool saved = fo_loop;
    int folds = fo_folds, others = fo_others;
    bool only = fold_only(f);
    fo_loop = saved, fo_folds = folds, fo_others = others;
    return !only;
}

/* fd_chains: the steps of in-order float folds that a deepest loop
 * carries as scalar chains, of any size: v = x with float_fold_of(x, v)
 * where v is no let of the loop's (outside a jammed or swapped nest,
 * whose sums may run in lanes), and a jammed nest's element kept in a
 * slot, y[i] = y[i] + x, at an index that does not read the loop's
 * variable (one chain per row, in order; matmul's c[i][j] += ... in a
 * jam over k is a new element each step j). */
static int fd_nchains;
static struct map fd_lets;         /* the loop's lets */
static struct ir_var *fd_inner;    /* the loop's variable */
static bool fd_mentioned;
static struct ir_node *fd_let_seen;
static struct ir_var *fd_mention_of;
static void fd_find_mention(struct ir_node *n)
{
    if (!n || fd_mentioned) return;
    struct ir_node *let = n->op == IR_VAR ? map_get_ptr(&fd_lets, n->var) : NULL;
    if (n->op == IR_VAR && n->var == fd_mention_of) fd_mentioned = true;
    else if (let && let != fd_let_seen) { /* a let of the loop's: its value, once */
        fd_let_seen = let;
        fd_find_mention(let->a);
    } else ir_each_child(n, fd_find_mention);
}

/* Whether x reads v, itself or through a let of the loop's. */
static bool fd_mentions(struct ir_node *x, struct ir_var *v)
{
    fd_mentioned = false;
    fd_mention_of = v;
    fd_let_seen = NULL;
    if (v) fd_find_mention(x);
    return fd_mentioned;
}
static bool fd_slot_fold(struct ir_node *x, struct ir_node *s)
{
    if (x->op == IR_INDEX) return x->slot && x->slot == s->slot && x->a->op == IR_VAR && x->a->var == s->var;
    if (x->op != IR_BINARY || x->optype != ty_float) return false;
    if (x->bop != OP_ADD && x->bop != OP_SUB && x->bop != OP_MUL) return false;
    return fd_slot_fold(x->a, s) || fd_slot_fold(x->b, s);
}

static void fd_find_lets(struct ir_node *n)
{
    if (!n) return;
    if (n->op == IR_LET && n->var) map_put_ptr(&fd_lets, n->var, n);
    ir_each_child(n, fd_find_lets);
}

static void fd_find_chains(struct ir_node *n)
{
    if (!n) return;
    if (n->op == IR_ASSIGN && !fd_jam && n->var->type == ty_float && n->a->op == IR_BINARY
        && float_fold_of(n->a, n->var) && !map_get_ptr(&fd_lets, n->var))
        fd_nchains++;
    if (n->op == IR_STORE && n->slot && n->nkids == 1 && !fd_mentions(n->kids[0], fd_inner) && n->a->op == IR_BINARY
        && n->a->optype == ty_float && fd_slot_fold(n->a, n))
        fd_nchains++;
    ir_each_child(n, fd_find_chains);
}

static int fd_chains(struct ir_node *loop)
{
    fd_nchains = 0;
    fd_inner = loop->op == IR_WHILE ? NULL : loop->var;
    fd_find_lets(loop->b);
    fd_find_chains(loop->b);
    map_free(&fd_lets);
    return fd_nchains;
}

static void fd_scan(struct ir_node *n)
{
    if (!n) return;
    if (n->op == IR_CALL && n->fn && fd_call_wide(n->fn)) fd_wide_call = true;
    if (n->op == IR_IF && n->a->op == IR_GUARD_TEST) { /* a versioned loop: the copy that runs, its fast one */
        fd_scan(n->b);
        return;
    }
    bool outer = fo_loop;
    bool loop = fo_is_loop(n) && !fd_short(n);
    bool jam = n->swap || n->jam || n->nslots;
    fd_depth += loop, fd_jam += jam;
    fo_loop = false;
    ir_each_child(n, fd_scan);
    bool inner = fo_loop;
    fd_depth -= loop, fd_jam -= jam;
    if (loop && !inner) {
        bool fold = !fd_jam && !n->par && fo_folds_float(n);
        int d = fd_depth + 1;
        if (d > fd_max) fd_max = d, fd_fold_cost = fd_other_cost = 0;
        if (d == fd_max) {
            int64_t work = ir_par_work(n->op == IR_REDUCE || n->op == IR_LISTCOMP ? n->elem : n->b);
            int chains = fold || n->par || n->op == IR_REDUCE || n->op == IR_LISTCOMP ? 0 : fd_chains(n);
            if (fold) fd_fold_cost += FOLD_STEP_WORK;
            else fd_other_cost += work;
            fd_fold_cost += FOLD_STEP_WORK * chains;
        }
    }
    fo_loop = outer || inner || loop;
}

/* fo_find_loop: a loop, a call or a builtin but len in n (fo_loop) */
static void fo_find_loop(struct ir_node *n)
{
    if (!n || fo_loop) return;
    if (fo_is_loop(n) || n->op == IR_CALL || n->op == IR_CALLV || (n->op == IR_BUILTIN && n->builtin != BI_LEN))
        fo_loop = true;
    else ir_each_child(n, fo_find_loop);
}

/* inorder_fold_loop: whether loop n folds a float in order in each step
 * (a par reduction: each leaf's loop) with only loads and arithmetic
 * beside it: no loop, call or builtin but len in a step (its source may
 * be anything), so the chain of adds is what bounds it. */
static bool inorder_fold_loop(struct ir_node *n)
{
    fo_loop = false;
    if (n->op == IR_REDUCE) { /* each step: the element and the filter */
        fo_find_loop(n->elem);
        fo_find_loop(n->filter);
    } else {
        fo_find_loop(n->b);
        if (n->op == IR_WHILE) fo_find_loop(n->a);
    }
    return !fo_loop && fo_folds_float(n);
}

/* Writes BP_UNROLL before the loop about to open over it when its trip
 * count is a constant from 2 to IR_SHORT_TRIPS (literal int bounds: written
 * so, or made so by opt_range.c) and its body (body, body2: statements or a
 * generator's element and filter) holds no loop and no call: gcc then
 * writes every step in place (no counter, no branch; a row's loads
 * hoisted where it can). The steps and their order are the loop's, so
 * every bit is. Whether it wrote the hint (else fold_unroll may). */
bool unroll_hint(struct ir_node *loop, const struct ir_iter *it, struct ir_node *body, struct ir_node *body2)
{
    if (loop->slow || loop->nguards) return false; /* the checked copy: it runs rarely */
    if (!it->is_range || it->lo->type != ty_int || it->hi->type != ty_int) return false;
    __int128 n = literal_trips(it);
    if (n < 2 || n > IR_SHORT_TRIPS || ir_loops_or_calls(body) || ir_loops_or_calls(body2)) return false;
    line("BP_UNROLL");
    return true;
}

/* bs_find: a branch in statements n (bs_if): an if statement, or a
 * variable assigned a choice (`count = count + 1 if c else count`, as
 * opt_cover.c writes a filter's append without its if) */
static bool bs_if;
static void bs_find(struct ir_node *n)
{
    if (!n || bs_if) return;
    if (n->op == IR_IF || (n->op == IR_ASSIGN && n->a && n->a->op == IR_COND)) bs_if = true;
    else ir_each_child(n, bs_find);
}

/* The most work (ir_par_work) of a step that BP_BRANCH_LOOP unrolls. */
#define BRANCH_LOOP_WORK 32

/* Before a statement loop whose small step holds an if statement and no
 * loop or call (a filter's push or store at a running count, a search's
 * break, a running record): unrolled by four (the prelude's
 * BP_BRANCH_LOOP). gcc keeps such a loop rolled and unvectorized, so each
 * step pays the loop's own compare and branch and a taken jump or two;
 * four steps in a row pay them once, as LLVM lays such a loop out (numba's).
 * Only the layout changes: the steps and their order are the loop's.
 * Where gcc vectorizes the loop after all, the factor is in steps and a
 * vector of four or more takes it. The checked copy of a versioned loop
 * runs rarely and stays rolled. Whether it wrote the hint. */
static bool branch_unroll(struct ir_node *loop)
{
    if (loop->slow || !(loop->op == IR_FOR_RANGE || loop->op == IR_FOR_ARRAY || loop->op == IR_WHILE)) return false;
    fo_loop = false;
    fo_find_loop(loop->b);
    if (loop->op == IR_WHILE) fo_find_loop(loop->a);
    bs_if = false;
    bs_find(loop->b);
    if (fo_loop || !bs_if || ir_par_work(loop->b) > BRANCH_LOOP_WORK) return false;
    line("BP_BRANCH_LOOP");
    return true;
}

/* Before a loop of inorder_fold_loop's whose steps carry BP_FOLD: unrolled
 * (the prelude's BP_FOLD_LOOP), when a step is small, so that the loop's
 * own instructions count against the chain of adds; eight copies of a
 * large step only fill the decoders (polynomials of eight coefficients
 * summed over points with --cpu=native on a Rocket Lake: 14.5 ms, 9.9
 * without the unroll, the portable build 8.4). */
void fold_unroll(struct ir_node *loop)
{
    if (branch_unroll(loop)) return;
    if (F->fold256 || !inorder_fold_loop(loop)) return;
    int64_t work = loop->op == IR_REDUCE ? ir_par_work(loop->elem) + ir_par_work(loop->filter) : ir_par_work(loop->b);
    if (work <= FOLD_LOOP_WORK) line("BP_FOLD_LOOP");
}

/* Whether f's deepest loops spend their time more in scalar in-order float
 * folds than in other work (fd_scan), and no call may bring loops into
 * it: BP_WIDTH256 then (gcc's 256-bit vectors, never inlined). A 512-bit
 * instruction lowers the core's clock for a while on the machines
 * measured; a fold's chain of adds, which no vector shortens, pays that in
 * full, while the other loops' vectors only lose half their lanes. In C:
 * a Gram-Schmidt's dot (scalar, in order) then update of v (vectors), 150
 * x 300, ran 2.51 ms at 512 bits and 1.93 at 256, and 2.31 against 1.79
 * with the dot reading another array than the update writes (so not the
 * forwarding of wide stores). A product of all lanes would go 1.45 -> 2.05
 * ms and is not marked; nor is a map of polynomials with a sum after it,
 * whose map's work outweighs the sum's chain. A deepest loop's folds of
 * any step size count too, one FOLD_STEP_WORK per chain (fd_chains),
 * against the step's own work: an n-body's three sums over a step with a
 * divide and a sqrt (work 76), 4.45 -> 3.46 ms. */
static bool fold_deepest(struct ir_fn *f)
{
    fo_loop = false;
    fd_depth = fd_max = fd_jam = 0;
    fd_fold_cost = fd_other_cost = 0;
    fd_wide_call = false;
    fd_scan(f->body);
    return !fd_wide_call && fd_fold_cost > fd_other_cost;
}

static bool fold_only(struct ir_fn *f)
{
    fo_loop = false;
    fo_folds = fo_others = 0;
    fo_scan(f->body);
    return fo_folds > 0 && fo_others == 0;
}

static void emit_fn(struct ir_fn *f)
{
    F = fctx_new();
    F->frame = frame_name(f);
    const char *as = map_get_ptr(&CG->frames_as, f);
    if (as) F->frame = as; /* a par row's function, its places named as its call's */
    F->site = f->has_site;
    F->owner = !quiet_fn(f);
    F->fold256 = fold_only(f);
    F->width256 = !F->fold256 && fold_deepest(f);
    for (int i = 0; i < f->nparams; i++) {
        F->vst[f->params[i]->id] = VS_BORROWED;
        if (f->owns && f->owns[i]) { /* its caller handed it over (opt_move.c): released at exit as a local */
            F->vst[f->params[i]->id] = VS_OWNED;
            VEC_GROW(F->locals, F->nlocals, F->caplocals);
            F->locals[F->nlocals++] = f->params[i];
        }
    }
    emit_block_stmts(f->body);
    struct buf *o = &CG->fns;
    debug_line(o, f->loc, true);
    /* a recursion's frames are C frames (emit_quiet.c); a function called
     * from a body the pool may run is called from its two copies (ir.h:
     * twice_called); BP_FOLD256: in-order float folds at 256 bits */
    const char *hint = fn_recursive(f) ? "BRT_NOINLINE " : f->twice_called ? "inline " : "";
    bprintf(o, "/* %s.%s */\nstatic %s%s%s\n{\n", f->module, f->name, hint,
            F->fold256 ? "BP_FOLD256 " : F->width256 ? "BP_WIDTH256 " : "", fn_header(f));
    if (f->ret != ty_void) bprintf(o, "    %s r_ = %s;\n", ctype(f->ret), zero_of(f->ret));
    if (F->decl.p) bputs(o, F->decl.p);
    if (!quiet_fn(f)) bprintf(o, "    brt_stack_check(%s);\n", loc_ref(f->loc)); /* emit_quiet.c */
    own_record(o);
    if (F->body.p) bputs(o, F->body.p);
    if (F->has_exit) bputs(o, "exit_:\n");
    own_record_end(o);
    for (int i = 0; i < F->nlocals; i++)
        bprintf(o, "    %s(v%d);\n", release_fn(F->locals[i]->type), F->locals[i]->id);
    for (int i = 0; i < F->nextra; i++) bprintf(o, "    %s(%s);\n", release_fn(F->extra[i].t), F->extra[i].name);
    if (f->ret != ty_void) bputs(o, "    return r_;\n");
    else if (F->has_exit || !F->nlocals) bputs(o, "    return;\n");
    bputs(o, "}\n\n");
    fctx_free(F);
    F = NULL;
}

static const char *prelude =
    "/* Generated by brine " BRINE_VERSION ". */\n"
    "#include \"brine_rt.h\"\n"
    "\n"
    "double fmod(double, double);\n"
    "/* Float literals from their bits: both C compilers read them exactly. */\n"
    "BRT_INLINE double bp_f64(uint64_t u) { union { uint64_t u; double d; } c; c.u = u; return c.d; }\n"
    "/* |x|: the sign bit cleared; gcc's own is one andpd, where the union's is\n"
    " * three moves through an integer register. */\n"
    "#if defined(__GNUC__) && !defined(__TINYC__)\n"
    "#define bp_fabs(x) __builtin_fabs(x)\n"
    "#else\n"
    "BRT_INLINE double bp_fabs(double x) { union { uint64_t u; double d; } c; c.d = x; c.u &= ~(1ULL << 63); return c.d; }\n"
    "#endif\n"
    "/* sqrt is correctly rounded (IEEE 754): the C compiler's own, one instruction\n"
    " * or a constant (-fno-math-errno: no call for errno), gives brt_sqrt's bits. */\n"
    "#if defined(__GNUC__) && !defined(__TINYC__)\n"
    "#define bp_sqrt(x) __builtin_sqrt(x)\n"
    "#else\n"
    "#define bp_sqrt(x) brt_sqrt(x)\n"
    "#endif\n"
    "BRT_INLINE int64_t bp_amt_u64(uint64_t s) { return s > (uint64_t)INT64_MAX ? -1 : (int64_t)s; }\n"
    "BRT_INLINE int64_t bp_amt_i128(brt_i128 s) { return s.hi != 0 || s.lo > (uint64_t)INT64_MAX ? -1 : (int64_t)s.lo; }\n"
    "/* A versioned statement's guard (ir.h: versioned), its value hidden from\n"
    " * gcc: jump threading from the guard's own tests into the fast copy would\n"
    " * give the fast loops a second entry, and gcc vectorizes no such loop. */\n"
    "BRT_INLINE int bp_opaque(int x) { __asm__(\"\" : \"+r\"(x)); return x; }\n"
    "/* A nest's inner bound handed to its nested function (emit_rows.c:\n"
    " * restrict_nest), a new value there that only the nest reads. */\n"
    "BRT_INLINE int64_t bp_opaque_i64(int64_t x) { __asm__(\"\" : \"+r\"(x)); return x; }\n"
    "/* An in-order float fold (s = s + e in a loop, a sequential sum): its\n"
    " * accumulator after each step, read by a statement gcc's vectorizer\n"
    " * cannot take. With AVX-512 gcc vectorizes such a loop as a fold-left\n"
    " * reduction in 512-bit vectors, each lane taken out one by one for its\n"
    " * add: slower than the scalar loop (and than the portable build). The\n"
    " * statement only reads the register: one that also wrote it (\"+x\") had\n"
    " * gcc copy the sum between two registers at every step, a move on the\n"
    " * chain of adds (a dot product 2.5x slower than the portable build on a\n"
    " * Rocket Lake). Any vector register (\"v\": xmm16-31 too; \"x\" is\n"
    " * xmm0-15 only, and a jam's 24 sums in xmm16-31 were each copied to a\n"
    " * low one at every step). No instruction; elsewhere nothing. */\n"
    "#if defined(__GNUC__) && !defined(__TINYC__) && defined(__AVX512F__)\n"
    "#define BP_FOLD(x) __asm__ volatile(\"\" : : \"v\"(x))\n"
    "#else\n"
    "#define BP_FOLD(x) ((void)0)\n"
    "#endif\n"
    "/* The loop of such a fold's steps: unrolled by eight, one chain of adds in\n"
    " * order still, the loop's own instructions paid once per eight steps (as\n"
    " * LLVM unrolls it: numba's loop). */\n"
    "#if defined(__GNUC__) && !defined(__TINYC__) && defined(__AVX512F__)\n"
    "#define BP_FOLD_LOOP _Pragma(\"GCC unroll 8\")\n"
    "#else\n"
    "#define BP_FOLD_LOOP\n"
    "#endif\n"
    "/* A loop whose small step branches (emit_program.c: branch_unroll):\n"
    " * unrolled by four, the loop's own compare and jumps paid once per four\n"
    " * steps, as LLVM lays it out (numba's loop). */\n"
    "#if defined(__GNUC__) && !defined(__clang__) && !defined(__TINYC__)\n"
    "#define BP_BRANCH_LOOP _Pragma(\"GCC unroll 4\")\n"
    "#else\n"
    "#define BP_BRANCH_LOOP\n"
    "#endif\n"
    "/* A function whose innermost loops all fold a float in order: gcc's\n"
    " * fold-left in 256-bit vectors (the products four at a time) beats the\n"
    " * scalar loop; its steps have no BP_FOLD. Never inlined: a copy in\n"
    " * another function would take that one's width, 512. */\n"
    "#if defined(__GNUC__) && !defined(__clang__) && !defined(__TINYC__) && defined(__AVX512F__)\n"
    "#define BP_FOLD256 __attribute__((target(\"prefer-vector-width=256\"), noinline))\n"
    "#else\n"
    "#define BP_FOLD256\n"
    "#endif\n"
    "/* A function whose deepest loops spend their time in in-order float\n"
    " * folds (emit_program.c: fold_deepest): 256-bit vectors, for the 512-bit\n"
    " * ones slow the clock that the folds' chains of adds wait on. Never\n"
    " * inlined: a copy in another function would take that one's width. */\n"
    "#if defined(__GNUC__) && !defined(__clang__) && !defined(__TINYC__) && defined(__AVX512F__)\n"
    "#define BP_WIDTH256 __attribute__((target(\"prefer-vector-width=256\"), noinline))\n"
    "#else\n"
    "#define BP_WIDTH256\n"
    "#endif\n"
    "/* A par float sum's or product's leaves, four side by side, each summed\n"
    " * in order (emit_lane.c): 128-bit vectors, two sums to a register, as\n"
    " * in the portable build; wider ones took each sum's steps four or eight\n"
    " * at a time and added their lanes one by one (2.1x the time). */\n"
    "#if defined(__GNUC__) && !defined(__clang__) && !defined(__TINYC__) && defined(__AVX__)\n"
    "#define BP_LEAVES128 __attribute__((target(\"prefer-vector-width=128\")))\n"
    "#else\n"
    "#define BP_LEAVES128\n"
    "#endif\n"
    "/* any and all in blocks of 16 tests ORed (emit_seqlanes.c): with AVX2\n"
    " * gcc makes them vector compares; without, the scalar tests cost more\n"
    " * than the loop as written, which runs alone. */\n"
    "#if defined(__GNUC__) && !defined(__clang__) && !defined(__TINYC__) && defined(__AVX2__)\n"
    "#define BP_TEST_BLOCKS 1\n"
    "#else\n"
    "#define BP_TEST_BLOCKS 0\n"
    "#endif\n"
    "/* Before a short innermost loop of a constant trip count (emit_program.c:\n"
    " * unroll_hint): gcc -O2 keeps it rolled, a compare and branch per\n"
    " * element; unrolled whole, its steps run as written, in order. */\n"
    "#if defined(__GNUC__) && !defined(__clang__) && !defined(__TINYC__)\n"
    "#define BP_UNROLL _Pragma(\"GCC unroll 16\")\n"
    "#else\n"
    "#define BP_UNROLL\n"
    "#endif\n"
    "/* A fact the emitter proved, told to gcc (a nest's inner loop that the\n"
    " * guards tested before it showed to run at least once, emit_guards.c:\n"
    " * gcc unrolls and jams only such a nest). Nothing elsewhere. */\n"
    "#if defined(__GNUC__) && !defined(__TINYC__)\n"
    "#define BP_ASSUME(c) do { if (!(c)) __builtin_unreachable(); } while (0)\n"
    "#else\n"
    "#define BP_ASSUME(c) ((void)0)\n"
    "#endif\n"
    "/* A field of a tuple that a recursive function returned: its call stays\n"
    " * a call, the field comes back in a register and is kept there as an\n"
    " * unknown value (which it is: nothing is lost), so that gcc's SLP does\n"
    " * not pair two results' fields through their stack slots (two 8-byte\n"
    " * stores read by one 16-byte load: a store-forwarding stall per call). */\n"
    "#define BP_KEEP_I(x) ((x) = bp_opaque_i64(x))\n"
    "#if defined(__GNUC__) && !defined(__TINYC__) && defined(__x86_64__)\n"
    "#define BP_KEEP_F(x) __asm__(\"\" : \"+x\"(x))\n"
    "#else\n"
    "#define BP_KEEP_F(x) ((void)0)\n"
    "#endif\n"
    "/* Between the field stores of a pushed tuple (emit_base.c:\n"
    " * push_elem_line): gcc does not pack the fields into a vector register. */\n"
    "#if defined(__GNUC__) && !defined(__TINYC__)\n"
    "#define BP_APART __asm__ volatile(\"\")\n"
    "#else\n"
    "#define BP_APART ((void)0)\n"
    "#endif\n"
    "/* A nest whose inner loop reads and stores flat arrays: written in a\n"
    " * nested function, the arrays' data its restrict parameters, where the\n"
    " * C compiler has them (emit_rows.c: restrict_nest); else a block. */\n"
    "#if defined(__GNUC__) && !defined(__clang__) && !defined(__TINYC__)\n"
    "#define BP_NEST 1\n"
    "#else\n"
    "#define BP_NEST 0\n"
    "#endif\n"
    "/* A jammed nest's dot-like inner loop (emit_jam.c): twelve sums as three\n"
    " * vectors of four, the rows each sum reads turned two steps at a time.\n"
    " * Lane-wise + - * /, in order per lane: the scalar loop's bits. */\n"
    "#if defined(__GNUC__) && !defined(__TINYC__) && defined(__AVX__) && (defined(__clang__) || __GNUC__ >= 12)\n"
    "#define BP_VDOT 4\n"
    "#include <immintrin.h>\n"
    "typedef double bp_v4d __attribute__((vector_size(32)));\n"
    "BRT_INLINE bp_v4d bp_v4_splat(double x) { return (bp_v4d){x, x, x, x}; }\n"
    "/* |x| per lane: the sign bit cleared, as fabs does (the same bits). */\n"
    "typedef int64_t bp_v4l __attribute__((vector_size(32)));\n"
    "BRT_INLINE bp_v4d bp_v4_abs(bp_v4d x) { return (bp_v4d)((bp_v4l)x & INT64_MAX); }\n"
    "/* *c0 = (p0[k], p1[k], p2[k], p3[k]), *c1 the same at k + 1. The upper\n"
    " * halves inserted from memory (a load, no shuffle): written as generic\n"
    " * vectors, gcc -march=native joined two loaded halves with vshuff64x2, a\n"
    " * second shuffle per vector on the one shuffle port. */\n"
    "BRT_INLINE void bp_v4_cols2(const double *p0, const double *p1, const double *p2, const double *p3, int64_t k,\n"
    "                            bp_v4d *c0, bp_v4d *c1)\n"
    "{\n"
    "    bp_v4d r02 = (bp_v4d)_mm256_insertf128_pd(_mm256_castpd128_pd256(_mm_loadu_pd(p0 + k)), _mm_loadu_pd(p2 + k), 1);\n"
    "    bp_v4d r13 = (bp_v4d)_mm256_insertf128_pd(_mm256_castpd128_pd256(_mm_loadu_pd(p1 + k)), _mm_loadu_pd(p3 + k), 1);\n"
    "    *c0 = __builtin_shufflevector(r02, r13, 0, 4, 2, 6);\n"
    "    *c1 = __builtin_shufflevector(r02, r13, 1, 5, 3, 7);\n"
    "}\n"
    "#elif defined(__GNUC__) && !defined(__TINYC__) && defined(__SSE2__) && (defined(__clang__) || __GNUC__ >= 12)\n"
    "/* Without AVX: the twelve sums as six vectors of two. */\n"
    "#define BP_VDOT 2\n"
    "typedef double bp_v2d __attribute__((vector_size(16)));\n"
    "typedef int64_t bp_v2l __attribute__((vector_size(16)));\n"
    "BRT_INLINE bp_v2d bp_v2_splat(double x) { return (bp_v2d){x, x}; }\n"
    "BRT_INLINE bp_v2d bp_v2_abs(bp_v2d x) { return (bp_v2d)((bp_v2l)x & INT64_MAX); }\n"
    "/* *c0 = (p0[k], p1[k]), *c1 the same at k + 1. */\n"
    "BRT_INLINE void bp_v2_cols2(const double *p0, const double *p1, int64_t k, bp_v2d *c0, bp_v2d *c1)\n"
    "{\n"
    "    bp_v2d x0, x1;\n"
    "    __builtin_memcpy(&x0, p0 + k, sizeof x0);\n"
    "    __builtin_memcpy(&x1, p1 + k, sizeof x1);\n"
    "    *c0 = __builtin_shufflevector(x0, x1, 0, 2);\n"
    "    *c1 = __builtin_shufflevector(x0, x1, 1, 3);\n"
    "}\n"
    "#else\n"
    "#define BP_VDOT 0\n"
    "#endif\n"
    "/* Element counts of ranges, at most INT64_MAX. */\n"
    "BRT_INLINE int64_t bp_count(uint64_t d) { return d > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)d; }\n"
    "BRT_INLINE int64_t bp_count_incl(uint64_t d) { return d >= (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)d + 1; }\n"
    "BRT_INLINE int64_t bp_count_mul(int64_t a, int64_t b) { return b != 0 && a > INT64_MAX / b ? INT64_MAX : a * b; }\n"
    "/* Lanes of par leaves: whether a + off .. b + off (a <= b) stay in [lo, hi]\n"
    " * without overflow; integers up to 2^53 are exact doubles. */\n"
    "BRT_INLINE int bp_span(int64_t a, int64_t b, int64_t off, int64_t lo, int64_t hi)\n"
    "{\n"
    "    if (off > 0 ? b > INT64_MAX - off : a < INT64_MIN - off) return 0;\n"
    "    return a + off >= lo && b + off <= hi;\n"
    "}\n"
    "/* A growth test (opt_growth.c): INT64_MAX - u - d * trips, *bad set when\n"
    " * c0 + d * trips + u does not fit (trips < 0: none run). */\n"
    "BRT_INLINE int64_t bp_pos(int64_t x) { return x > 0 ? x : 0; }\n"
    "BRT_INLINE int64_t bp_growth_lim(int64_t trips, int64_t d, int64_t u, int64_t c0, int *bad)\n"
    "{\n"
    "    if (trips < 0) trips = 0;\n"
    "    if (d > 0 && trips > (INT64_MAX - u) / d) { *bad = 1; return 0; }\n"
    "    int64_t l = INT64_MAX - u - d * trips; /* u, d >= 0 */\n"
    "    if (l < c0) { *bad = 1; return 0; }\n"
    "    return l;\n"
    "}\n"
    "/* Whether every element of a is at most lim (rows: of every row; no row yet: none). */\n"
    "static inline int bp_max_le(const brt_arr *a, int64_t lim)\n"
    "{\n"
    "    const int64_t *p = (const int64_t *)a->data;\n"
    "    int64_t m = INT64_MIN;\n"
    "    for (int64_t i = 0; i < a->len; i++) m = p[i] > m ? p[i] : m;\n"
    "    return m <= lim;\n"
    "}\n"
    "static inline int bp_rows_max_le(const brt_arr *a, int64_t lim)\n"
    "{\n"
    "    brt_arr *const *rows = (brt_arr *const *)a->data;\n"
    "    for (int64_t i = 0; i < a->len; i++)\n"
    "        if (rows[i] && !bp_max_le(rows[i], lim)) return 0;\n"
    "    return 1;\n"
    "}\n"
    "/* A swapped nest's guard: every row a[i + ro], i in ilo .. ihi (in range),\n"
    " * holds j + off for every j in jlo .. jhi (jlo <= jhi). */\n"
    "BRT_INLINE int bp_rows_span(const brt_arr *a, int64_t ilo, int64_t ihi, int64_t ro, int64_t jlo, int64_t jhi, int64_t off)\n"
    "{\n"
    "    if (!bp_span(jlo, jhi, off, 0, INT64_MAX)) return 0;\n"
    "    brt_arr *const *rows = (brt_arr *const *)a->data;\n"
    "    for (int64_t i = ilo; i <= ihi; i++)\n"
    "        if (jhi + off >= rows[i + ro]->len) return 0;\n"
    "    return 1;\n"
    "}\n"
    "/* A jammed nest's guard of one length (opt_interchange.c: same_len):\n"
    " * every row a[i + ro], i in lo .. last (lo <= last), as long as a[lo + ro]. */\n"
    "BRT_INLINE int bp_rows_same(const brt_arr *a, int64_t lo, int64_t last, int64_t ro)\n"
    "{\n"
    "    if (!bp_span(lo, last, ro, 0, a->len - 1)) return 0;\n"
    "    brt_arr *const *rows = (brt_arr *const *)a->data;\n"
    "    int64_t n = rows[lo + ro]->len;\n"
    "    for (int64_t i = lo + 1; i <= last; i++)\n"
    "        if (rows[i + ro]->len != n) return 0;\n"
    "    return 1;\n"
    "}\n"
    "/* A loop guard of a row: 0 <= r + ro < len(a), and that row holds\n"
    " * j + off for every j in jlo .. jhi (jlo <= jhi). */\n"
    "BRT_INLINE int bp_row_span(const brt_arr *a, int64_t r, int64_t ro, int64_t jlo, int64_t jhi, int64_t off)\n"
    "{\n"
    "    if (!bp_span(r, r, ro, 0, a->len - 1)) return 0;\n"
    "    return bp_span(jlo, jhi, off, 0, ((brt_arr *const *)a->data)[r + ro]->len - 1);\n"
    "}\n"
    "/* A loop over rows that walks a few elements of each (emit_rows.c:\n"
    " * rows_ahead): row r + k of rows[0 .. n - 1], when there is one, fetched\n"
    " * toward the cache, its header and the 64 bytes after (a short row's\n"
    " * data). A fetch never faults; elsewhere nothing. */\n"
    "#if defined(__GNUC__) && !defined(__TINYC__)\n"
    "BRT_INLINE void bp_row_ahead(brt_arr *const *rows, int64_t n, int64_t r, int64_t k)\n"
    "{\n"
    "    uint64_t a = (uint64_t)r + (uint64_t)k;\n"
    "    if (a < (uint64_t)n) {\n"
    "        const char *p = (const char *)rows[a];\n"
    "        __builtin_prefetch(p);\n"
    "        __builtin_prefetch(p + 64);\n"
    "    }\n"
    "}\n"
    "#else\n"
    "#define bp_row_ahead(rows, n, r, k) ((void)0)\n"
    "#endif\n"
    "/* A column guard's least length of the rows of one array scanned so far,\n"
    " * rows lo .. hi - 1 (none: lo == hi), which keep their lengths meanwhile;\n"
    " * with a table (data, emit_rows.c), also each of those rows' data. */\n"
    "typedef struct { int64_t lo, hi, min; void **data; } bp_rowmin;\n"
    "static inline BRT_NOINLINE void bp_rowmin_grow(const brt_arr *a, int64_t lo, int64_t hi, bp_rowmin *c)\n"
    "{\n"
    "    brt_arr *const *rows = (brt_arr *const *)a->data;\n"
    "    void **d = c->data;\n"
    "    if (c->lo == c->hi) c->lo = c->hi = lo, c->min = INT64_MAX;\n"
    "    for (; c->lo > lo; c->lo--) {\n"
    "        if (rows[c->lo - 1]->len < c->min) c->min = rows[c->lo - 1]->len;\n"
    "        if (d) d[c->lo - 1] = rows[c->lo - 1]->data;\n"
    "    }\n"
    "    for (; c->hi < hi; c->hi++) {\n"
    "        if (rows[c->hi]->len < c->min) c->min = rows[c->hi]->len;\n"
    "        if (d) d[c->hi] = rows[c->hi]->data;\n"
    "    }\n"
    "}\n"
    "/* A rowmin's table: *t (an [int], a function's temporary) with room for a\n"
    " * pointer per row of a, reused when it has it. */\n"
    "static inline void **bp_rowtab(brt_arr **t, const brt_arr *a)\n"
    "{\n"
    "    int64_t n = a ? a->len : 0;\n"
    "    if (!*t || (*t)->len < n) {\n"
    "        brt_arr_release(*t);\n"
    "        *t = brt_arr_new(&brt_t_int, n);\n"
    "    }\n"
    "    return (void **)(*t)->data;\n"
    "}\n"
    "/* A loop guard of a column: 0 <= i + ro < len(a) for every i in ilo .. ihi\n"
    " * (ilo <= ihi), and each of those rows holds j + off for every j in\n"
    " * jlo .. jhi (jlo <= jhi), tested against their least length (*c, grown\n"
    " * to those rows). */\n"
    "BRT_INLINE int bp_col_span(const brt_arr *a, int64_t ilo, int64_t ihi, int64_t ro, int64_t jlo, int64_t jhi, int64_t off, bp_rowmin *c)\n"
    "{\n"
    "    if (ilo > ihi || !bp_span(ilo, ihi, ro, 0, a->len - 1) || !bp_span(jlo, jhi, off, 0, INT64_MAX)) return 0;\n"
    "    if (ilo + ro < c->lo || ihi + ro >= c->hi) bp_rowmin_grow(a, ilo + ro, ihi + ro + 1, c);\n"
    "    return jhi + off < c->min;\n"
    "}\n"
    "/* A path guard's rows: the row a[r + ro] when 0 <= r + ro < len(a), else\n"
    " * NULL (a NULL a too); the last row's test fails on NULL. */\n"
    "BRT_INLINE const brt_arr *bp_row_at(const brt_arr *a, int64_t r, int64_t ro)\n"
    "{\n"
    "    if (!a || !bp_span(r, r, ro, 0, a->len - 1)) return NULL;\n"
    "    return ((brt_arr *const *)a->data)[r + ro];\n"
    "}\n"
    "BRT_INLINE int bp_path_span(const brt_arr *a, int64_t r, int64_t ro, int64_t jlo, int64_t jhi, int64_t off)\n"
    "{\n"
    "    return a && bp_row_span(a, r, ro, jlo, jhi, off);\n"
    "}\n"
    "/* A nest's guard of a column along a path (emit_guards.c): 0 <= j + ro <\n"
    " * len(a) for every j in jlo .. jhi (jlo <= jhi), and k + off for every k\n"
    " * in klo .. khi from 0 up (klo <= khi), no more than INT64_MAX: each\n"
    " * row's length is tested where the nest enters its inner loop. A NULL a\n"
    " * (a row on the way out of range) fails. */\n"
    "BRT_INLINE int bp_path_rows(const brt_arr *a, int64_t jlo, int64_t jhi, int64_t ro, int64_t klo, int64_t khi, int64_t off)\n"
    "{\n"
    "    return a && jlo <= jhi && bp_span(jlo, jhi, ro, 0, a->len - 1) && bp_span(klo, khi, off, 0, INT64_MAX);\n"
    "}\n"
    "/* A loop guard's base (opt_loops.c) computed without panicking: an\n"
    " * overflow sets *bad, and the guard fails. */\n"
    "BRT_INLINE int64_t bp_gadd(int64_t a, int64_t b, int *bad)\n"
    "{ int64_t r = (int64_t)((uint64_t)a + (uint64_t)b); *bad |= BRT_ADD_OVF_I64(a, b, r); return r; }\n"
    "BRT_INLINE int64_t bp_gsub(int64_t a, int64_t b, int *bad)\n"
    "{ int64_t r = (int64_t)((uint64_t)a - (uint64_t)b); *bad |= BRT_SUB_OVF_I64(a, b, r); return r; }\n"
    "BRT_INLINE int64_t bp_gmul(int64_t a, int64_t b, int *bad)\n"
    "{ int64_t r = (int64_t)((uint64_t)a * (uint64_t)b); *bad |= a != 0 && ((a == -1 && b == INT64_MIN) || r / a != b); return r; }\n"
    "#define BP_EXACT 9007199254740992LL\n"
    "/* --release may compile this text twice, in parallel (backend.c): with\n"
    " * -DBP_PART=1 main, the functions and the first par helpers, with\n"
    " * -DBP_PART=2 the other par helpers (and a copy of the static functions\n"
    " * they call). */\n"
    "/* Math lanes' leaves (emit_lane.c): a copy for AVX2 besides the\n"
    " * generic one, picked at load time (no other rounding: no FMA, no\n"
    " * contraction). Only on the definition: a declaration with it would\n"
    " * ask for the other part's local copies. */\n"
    "#if defined(__GNUC__) && !defined(__clang__) && !defined(__TINYC__) && defined(__x86_64__) && defined(__ELF__) && !defined(__AVX2__)\n"
    "#define BP_LANE_CLONES __attribute__((target_clones(\"avx2\", \"default\")))\n"
    "#else\n"
    "#define BP_LANE_CLONES\n"
    "#endif\n"
    "#ifndef BP_PART\n"
    "#define BP_PAR static\n"
    "#define BP_GLOB static\n"
    "#elif BP_PART == 1\n"
    "#define BP_PAR\n"
    "#define BP_GLOB\n"
    "#else\n"
    "#define BP_PAR\n"
    "#define BP_GLOB extern\n"
    "#endif\n"
    "\n";

/* The parts of the two-part build (prelude, backend.c): worth it only when
 * both halves are big (small programs stay one unit, so their static
 * globals stay static to gcc). */
enum { SPLIT_MIN = 64 * 1024 };

/* The par helpers' text (cg.aux) made fit for both parts: each function
 * definition (a line "static <type> bp_...(...)" [" {"] at column 0, its
 * body up to the next "}" at column 0) becomes "BP_PAR ..." with its body
 * under #if (a prototype in the other part). Structs and the kernels'
 * strings stay as they are, in both.
 *
 * Which part: the lane leaves cost gcc about 1.6 times what the same bytes
 * of the functions cost (measured on bench/gen_program.py's program), so
 * the first families of helpers (a family starts at its struct bp_env<n>;
 * a family stays together, so its combine still inlines into its fold) go
 * into part 1 with the functions until the two weigh about the same. */
static bool helper_header(const char *p, size_t n)
{
    bool ends = (n > 0 && p[n - 1] == ')') || (n > 3 && strncmp(p + n - 3, ") {", 3) == 0);
    return ends && n > 7 && strncmp(p, "static ", 7) == 0 && memchr(p, '(', n) && !memchr(p, '=', n);
}

static void part_helpers(struct buf *out, const char *aux, size_t fns_len)
{
    size_t fn_bytes = 0;
    bool in_fn = false;
    for (const char *p = aux; *p;) {
        const char *e = strchr(p, '\n');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        if (!in_fn && helper_header(p, n)) in_fn = true;
        else if (in_fn && n == 1 && p[0] == '}') in_fn = false;
        if (in_fn) fn_bytes += n + 1;
        if (!e) break;
        p = e + 1;
    }
    double half = (1.6 * (double)fn_bytes + (double)fns_len) / 2;
    double to_part1 = half > (double)fns_len ? (half - (double)fns_len) / 1.6 : 0;

    int part = 1;
    size_t done = 0;
    in_fn = false;
    for (const char *p = aux; *p;) {
        const char *e = strchr(p, '\n');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        if (!in_fn && part == 1 && (double)done >= to_part1 && strncmp(p, "struct bp_env", 13) == 0) part = 2;
        if (!in_fn && n == 14 && strncmp(p, "BP_LANE_CLONES", 14) == 0) {
            /* the next definition's attribute, not its declaration's */
            bprintf(out, "#if BP_PART != %d\nBP_LANE_CLONES\n#endif\n", 3 - part);
        } else if (!in_fn && helper_header(p, n)) {
            bool brace = n > 2 && strncmp(p + n - 2, " {", 2) == 0;
            /* "static inline" loses its inline too: a C99 inline definition
             * gives no symbol, so a call gcc does not inline, or one from
             * the other part, would not link */
            size_t skip = strncmp(p + 7, "inline ", 7) == 0 ? 14 : 7;
            bputs(out, "BP_PAR ");
            bputn(out, p + skip, n - skip - (brace ? 2 : 0));
            bprintf(out, "\n#if BP_PART != %d\n", 3 - part);
            if (brace) bputs(out, "{\n");
            in_fn = true;
        } else if (in_fn && n == 1 && p[0] == '}') {
            bputs(out, "}\n#else\n;\n#endif\n");
            in_fn = false;
        } else {
            bputn(out, p, n);
            bputs(out, "\n");
        }
        if (in_fn) done += n + 1;
        if (!e) break;
        p = e + 1;
    }
    if (in_fn) internal_error("emit: a par helper without its closing brace");
}

struct cgen *CG;
struct fctx *F;

struct emit_result emit_program(struct ir_program *ir)
{
    struct cgen cg = {0};
    cg.ir = ir;
    CG = &cg;
    for (int i = 0; i < ir->globals.len; i++) {
        struct ir_global *g = ir->globals.items[i];
        bprintf(&cg.globals, "BP_GLOB %s g%d; /* %s.%s */\n", ctype(g->type), g->id, g->module, g->name);
    }
    for (int i = 0; i < ir->fns.len; i++) bprintf(&cg.protos, "static %s;\n", fn_header(ir->fns.items[i]));
    find_carried_folds(ir);
    for (int i = 0; i < ir->fns.len; i++) emit_fn(ir->fns.items[i]);

    /* main(): the runtime, then the constants in order, then main() */
    F = fctx_new();
    F->frame = "main";
    bputs(&F->decl, "    const brt_loc **fp_ = NULL;\n");
    for (int i = 0; i < ir->globals.len; i++) {
        struct ir_global *g = ir->globals.items[i];
        scope_open();
        const char *x = take(emit_expr(g->init), g->type);
        line("g%d = %s;", g->id, x);
        scope_close();
    }
    struct buf mainb = {0};
    bputs(&mainb, "int main(int argc, char **argv)\n{\n");
    if (F->decl.p) bputs(&mainb, F->decl.p);
    bputs(&mainb, "    brt_start(argc, argv);\n    fp_ = brt_frames_main();\n");
    if (cg.uses_world) bputs(&mainb, "    brt_world_start();\n");
    if (F->body.p) bputs(&mainb, F->body.p);
    bprintf(&mainb, "    %s(fp_);\n", ir->main->cname);
    /* The constants die with the program: released here, each one is read
     * after main's call, so gcc keeps it where valgrind and LeakSanitizer
     * see it even when nothing else reads it (a panic's exit) */
    for (int i = ir->globals.len - 1; i >= 0; i--) {
        struct ir_global *g = ir->globals.items[i];
        if (type_is_ref(g->type)) bprintf(&mainb, "    %s(g%d);\n", release_fn(g->type), g->id);
    }
    bputs(&mainb, "    return brt_finish();\n}\n");

    struct buf out = {0};
    bputs(&out, prelude);
    /* world.reduce of values holding references traps its rank's share */
    if (cg.uses_setjmp) bputs(&out, "#include <setjmp.h>\n");
    /* a big program: the release build compiles it as two parts at once
     * (emit_result.parts); the mark says so to a reader of the C */
    int parts = cg.aux.len >= SPLIT_MIN && cg.fns.len >= SPLIT_MIN ? 2 : 1;
    if (parts == 2) bputs(&out, "#define BP_PARTS 2\n\n");
    struct buf *secs[] = {&cg.types, &cg.strs, &cg.locs, &cg.globals, &cg.protos, &cg.aux, &cg.fns, &cg.fnvals};
    for (size_t i = 0; i < sizeof secs / sizeof *secs; i++) {
        if (secs[i]->p) {
            if (secs[i] == &cg.aux && cg.nkernels) emit_cuda_fixed(&out);
            if (secs[i] == &cg.aux) part_helpers(&out, secs[i]->p, cg.fns.len);
            else bputs(&out, secs[i]->p);
            bputs(&out, "\n");
            if (secs[i] == &cg.aux || secs[i] == &cg.fns) debug_back_to_c(&out);
        }
        free(secs[i]->p);
    }
    debug_back_to_c(&out);
    bputs(&out, "#if BP_PART != 2\n");
    bputs(&out, mainb.p);
    bputs(&out, "#endif\n");
    free(mainb.p);
    map_free(&cg.loc_ids);
    map_free(&cg.frame_names);
    map_free(&cg.type_ids);
    map_free(&cg.fold_ids);
    map_free(&cg.fold_carried);
    map_free(&cg.fnval_ids);
    map_free(&cg.quiet);
    map_free(&cg.recursive);
    debug_finish(&out);
    CG = NULL;
    F = NULL;
    return (struct emit_result){out.p, out.len, cg.kernels.p, cg.kernels.len, cg.nkernels, parts};
}
