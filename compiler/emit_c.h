/*
 * emit_c.h: the rooms of the C emitter and what they share.
 *
 *   emit_c.c     the program, functions, statements, expressions and
 *                ownership (the scalar C); emit_program() is its door
 *   emit_par.c   reductions: the sequential loops, and the par helpers
 *                (environment, leaves, combine, fold) that the runtime's
 *                pool and tree call
 *   emit_listcomp.c  array comprehensions, sequential, par and on the pool
 *   emit_guards.c    loop guards' tests; nests tested outside their outer loop
 *   emit_maps.c  comprehensions mapping an array into its own slots, and the
 *                steps of such maps
 *   emit_lane.c  the lane vectoriser: par leaves folded side by side in
 *                SIMD lanes, with a scalar fallback for flagged blocks
 *   emit_jam.c   a jammed nest's inner loop: a scalar copy per outer
 *                iteration, or dot-like sums as 4-lane vectors (AVX)
 *   emit_cuda.c  GPU kernels (emit_cuda.h), called by emit_par.c
 *   emit_fnval.c function values: trampolines, lambdas' captures, calls
 *                through a value
 *   emit_quiet.c code that cannot panic, which costs the call chain nothing;
 *                recursive functions, never inlined by the C compiler
 *
 * One compilation's state is one struct cgen, made by emit_program() and
 * gone when it returns (CG points to it meanwhile); the function being
 * emitted is F. Nothing survives from one emit_program() to the next.
 */
#ifndef BRINE_EMIT_C_H
#define BRINE_EMIT_C_H
#include "ctext.h"
#include "emit_cuda.h"

/* ---- the translation unit (emit_c.c) ------------------------------------ */

struct cgen {
    struct ir_program *ir;
    /* the sections, in the order they are written out */
    struct buf types, strs, locs, globals, protos, aux, fns, fnvals;
    int ntemps, nlocs, nstrs, ntypes, naux;
    const char *temp_sfx;          /* appended to new temporaries' names (emit_lane.c's staged lanes) */
    struct map loc_ids;            /* place (file, line, col) -> n of L<n> */
    struct map type_ids;           /* array and tuple type -> n of T<n> */
    struct map tuple_ids;          /* tuple type -> n of its C struct bt<n> */
    struct map fnval_ids;          /* ir_fn -> its trampoline's name (emit_fnval.c) */
    struct map frames_as;          /* a frameless ir_fn (a par row's function) -> the frame of its
                                    * call, its places named as the call's */
    struct map frame_names;        /* ir_fn -> its name in call chains (frame_name), made once */
    int ntuples;
    struct map fold_ids;           /* par reduction shape -> n of its shared bp_combine<n>/bp_fold<n> */
    struct map fold_carried;       /* the steps of in-order float folds a loop carries (emit_program.c): BP_FOLD's */
    const char **slot_names;       /* in a copy of a jammed inner body (emit_jam_copy): the locals of its
                                    * slots (ir.h), read where a slot's read or store is written (emit_c.c,
                                    * emit_quiet.c); such a body holds no loop or comprehension (ir_verify) */
    /* arrays some enclosing loop keeps in locals (opt_loops.c views):
     * data pointer and length, valid in the C function fn */
    struct view { struct ir_var *var; const char *data, *len; struct fctx *fn; } views[64];
    int nviews;
    /* in a guarded loop's fast copy, the element accesses that index a
     * restrict local of their row (emit_rows.c), valid in the C function fn */
    struct rowloc { struct ir_node *n; const char *name, *elem; struct fctx *fn; } rowlocs[128];
    int nrowlocs;
    /* and the stored elements those loops keep in locals through an iteration */
    struct rowelem { struct ir_node *loop; const char *row, *name; struct ir_node *at; struct rscan *scan; const char *ct; struct fctx *fn; const char *at_c; } rowelems[16];
    int nrowelems;
    /* a nest whose inner loop takes its flat arrays' data from restrict
     * parameters of a nested C function (emit_rows.c: restrict_nest): the
     * inner loop, the C function, and the parameters its row locals asked for */
    struct ir_node *nest_inner;
    struct fctx *nest_fn;
    struct nestparam { struct ir_var *root; const char *name, *ct; } nestparams[16];
    int nnestparams;
    /* the least row lengths loops around keep for column guards (opt_loops.c
     * rowmins): the C name of each array's bp_rowmin, valid in the C function fn */
    struct rowmin { struct ir_var *var; const char *name; struct fctx *fn; bool tab; } rowmins[64];
    int nrowmins;
    struct buf kernels;            /* every GPU kernel's source, for --emit-cuda */
    int nkernels;
    bool uses_world;               /* main() joins the ranks first (brt_world_start) */
    bool uses_setjmp;              /* a world.reduce traps its rank's share: <setjmp.h> */
    const char **var_names;        /* -g: by var id, the Brine name (emit_debug.c) */
    struct map quiet;              /* ir_fn -> whether it can panic (emit_quiet.c) */
    struct map recursive;          /* ir_fn -> whether it is on a cycle of calls (emit_quiet.c) */
    bool recursive_done;
};
extern struct cgen *CG;
const char *frame_of(struct loc l);   /* the name of the frame a place is in */
const char *frame_own(struct loc l);  /* the same, a par element's aside: F's function's, or that of
                                       * the call written in place the place is in (loc.inl) */
const char *loc_ref(struct loc l);    /* &L<n>, a static brt_loc of the place (and its frame's name) */
const char *frame_slot(void);         /* "fp_" or "fp_ + k": the current frame's free slot */
const char *frame_next(void);         /* the slot a callee gets */
const char *ctype(struct type *t);    /* the C type of a Brine value */
const char *text_kind(struct type *t); /* "int", "float", ...: the runtime's typed text functions; NULL: by descriptor */
void append_text(struct ir_node *x, const char *v); /* v = v + x, x's text appended where it is made */
const char *emit_join_stream(struct ir_node *n); /* sep.join([e for ...]) built as it goes, or NULL */
const char *tdesc(struct type *t);    /* &brt_t_int, &T<n>: the runtime's type descriptor */
const char *release_fn(struct type *t);
const char *retain_fn(struct type *t); /* brt_retain, or a tuple's bt<n>_retain */
const char *zero_of(struct type *t);
const char *float_lit(double d);      /* bp_f64(bits) */
const char *math_fn(enum builtin b);  /* brt_<name> of a math builtin, else NULL */

/* Told each par reduction's ways as it is emitted (emit_par.c): the SIMD
 * lane form, the GPU kernel. The language server's par hint sets it; NULL
 * otherwise. */
extern void (*emit_par_seen)(struct loc at, bool lanes, bool gpu);
/* ---- the function being emitted (emit_c.c) ------------------------------ */

enum { VS_NONE, VS_OWNED, VS_BORROWED };

/* A value to release: cell, when the function has an owner (own_record):
 * whether it has a cell (set by the text from..to of the body, its
 * registration; maxown: F's before it) */
struct owned { const char *name; struct type *t; bool cell; size_t from, to; int maxown; };

struct fctx {
    struct buf decl, body;
    int ind;
    unsigned char *vst;          /* by var id: VS_* */
    struct ir_var **locals;      /* VS_OWNED ref variables, released at exit */
    int nlocals, caplocals;
    struct owned *own;           /* the cleanup scopes' temporaries */
    int nown, capown;
    int *marks;
    int nmarks, capmarks;
    struct owned *extra;         /* function-level owned temporaries (snapshots) */
    int nextra, capextra;
    /* The panic path (emit_base.c own_record): whether the function lists what
     * it owns in a brt_owner, and the most cleanup-scope temporaries live
     * at once (its cells after the variables') */
    bool owner;
    int maxown;
    bool has_exit;               /* user functions: an exit label */
    bool site;                   /* a library function's body: `site` is the caller's place */
    struct ir_node *stmt;        /* the statement being emitted (emit_stmt) */
    int debug_line, debug_file;  /* -g: the place of the last #line written */
    /* Call chains (runtime/frames.c): the frame the places belong to (its
     * name in each brt_loc), and in a par helper the element's own frame
     * for the places inside the construct but its own (a place in a call
     * written in place names that call's frame and its call's place as
     * its site, brt_loc.site, from its loc.inl: emit_base.c loc_ref; no
     * slot is written); frame_used:
     * the code uses its slots (a call that is not quiet, a par construct),
     * so a par helper puts its thread's ftop back at its end (emit_par.c
     * helper_end). */
    const char *frame, *elem_frame;
    struct loc elem_span;
    bool in_helper, frame_used;
    struct ir_node *fold;        /* a fold loop's chunk helper: the loop (its sums' steps, fold_step) */
    bool fold256;                /* BP_FOLD256: its folds' steps without BP_FOLD (emit_program.c) */
    bool width256;               /* BP_WIDTH256: its deepest loops in-order float folds (emit_program.c) */
    bool in_lanes;               /* in a jammed nest's loop over lanes (emit_loops.c): the lanes' sums are
                                  * separate folds, each in order in its lane, so their steps get no
                                  * BP_FOLD, and gcc may run the lanes in one vector */
};
/* In-order float folds (emit_c.c): whether x is v combined with other values
 * by + - * (v = x is a step of a fold of v), and the barrier after a step. */
bool float_fold_of(struct ir_node *x, struct ir_var *v);
/* emit_program.c: BP_FOLD_LOOP (unrolled) before a loop with no loop
 * inside whose steps fold a float in order with BP_FOLD. */
void fold_unroll(struct ir_node *loop);
void fold_barrier(const char *acc);
extern struct fctx *F;

/* Code that cannot panic writes no slot of the call chain, and such a
 * function no stack check (emit_quiet.c). */
bool quiet_expr(struct ir_node *n);
/* The same, where it is being written: an element read proved in range there is quiet too. */
bool quiet_here(struct ir_node *n);
bool quiet_fn(struct ir_fn *f);
/* Whether f is on a cycle of calls: its C is never written in place (BRT_NOINLINE). */
bool fn_recursive(struct ir_fn *f);

/* brine build -g (emit_debug.c): #line directives and Brine names. */
bool emit_debug_on(void);
void debug_note_var(struct ir_var *v);           /* its C name becomes <name>_v<id> */
void debug_line(struct buf *b, struct loc l, bool force); /* #line of l, unless already there */
void debug_back_to_c(struct buf *b);              /* what follows is the C file's own */
void debug_finish(struct buf *out);               /* the renames, the C file's line numbers */

struct fctx *fctx_new(void);
void fctx_free(struct fctx *f);
void line(const char *fmt, ...) __attribute__((format(printf, 1, 2))); /* a statement into F */
const char *new_temp(void);
const char *vname(struct ir_var *v);
const char *declare_var(struct ir_var *v, int state);
const char *declare_extra(struct type *t);
void scope_open(void);
void scope_close(void);
void block_close(void);
/* The owner's declarations, push and variables' cells (after the
 * function's declarations), and its pop (before the exit's releases). */
void own_record(struct buf *o);
void own_record_end(struct buf *o);
void own(const char *name, struct type *t);
/* An f-string builder (brt_sb) a panic before its finish must free. */
void own_sb(const char *sb);
const char *take(const char *x, struct type *t);
bool takes_over(const char *x, struct type *t); /* take hands x over: an owned temporary of the innermost scope */
/* Assigns the +1 value x to the variable v of type t (the old value released after). */
void assign_var(const char *v, const char *x, struct type *t);
const char *lval(const char *x, struct type *t);
void push_elem_line(struct type *et, const char *slot, const char *x);
const char *copy_fields(struct type *t, const char *to, const char *from, const char *sep);
/* A temporary holding a new value of type t computed by the C expression. */
const char *tmp(struct type *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Same, and the value is owned (+1). */
#define tmp_owned(t, ...) owned_tmp_(t, tmp(t, __VA_ARGS__))
const char *owned_tmp_(struct type *t, const char *n);

const char *emit_expr(struct ir_node *n);
void emit_stmt(struct ir_node *s);
/* A block's statements, then its lets released early (copy-on-write sees
 * the true reference counts). */
void emit_block_stmts(struct ir_node *b);
void emit_fused(struct ir_node *s); /* emit_fuse.c: a fused region under its trap */
/* The name of f's frame record in a panic's call chain (emit_program.c). */
const char *frame_name(struct ir_fn *f);
/* Whether statement s changes array variable v (a method in place). */
bool stmt_mutates(struct ir_node *s, struct ir_var *v);
/* The view of an array read as a[i] or len(a), if a loop around holds one
 * (opt_loops.c's views: its data and length in locals). */
const struct view *view_of(struct ir_node *a);

/* ---- loops (emit_loops.c) ------------------------------------------------ */

void emit_while(struct ir_node *s);
/* while c: body, as written (a versioned copy's too). */
void while_loop(struct ir_node *s);
void emit_for_range(struct ir_node *s);
void emit_for_array(struct ir_node *s);
/* Whether n's bounds check is proved: in the fast copy of a versioned loop
 * or generator (opt_version.c), or everywhere. */
bool proved_by(const struct ir_node *by);
bool in_guarded_loop(struct ir_node *n);
bool fold_step(struct ir_node *s); /* emit_loops.c: a fold loop's int sum step in its chunk */
/* The view (data pointer and length in locals) of v held by a loop around. */
const struct view *view_of_var(struct ir_var *v);
int open_cap_views(struct ir_node *rn); /* emit_loops.c; close_views(mark) after */
int open_views(struct ir_node *loop);   /* a loop's (a versioned if's) views; close_views(mark) after */
void close_views(int mark);
/* emit_rows.c; close_row_locals(mark) after; *ivdep: the loop carries no
 * dependence through memory (its head after `#pragma GCC ivdep`) */
int open_row_locals(struct ir_node *s, const char *lo, const char *hi, bool *ivdep);
void close_row_locals(int mark);
const struct rowloc *row_local(struct ir_node *n); /* the local of the row element access n indexes, or NULL */
/* emit_rows.c: a rowmin's initializer for host loop s, with a table of its rows' data when they
 * keep it there; and the rowmin whose table holds the row of column access n (NULL: none) */
const char *rowmin_init(struct ir_node *s, struct ir_var *m, bool *tab);
const char *col_table(struct ir_node *n, struct ir_var *m);
void restrict_nest(struct ir_node *outer, const char *lo, const char *hi); /* a guards_outside nest's fast copy */
void open_row_elems(struct ir_node *s);  /* in loop s's iteration: its stored elements' locals */
void close_row_elems(struct ir_node *s); /* and at its end, stored back */
void rows_ahead(struct ir_node *s);      /* at its head: the row AHEAD rows on fetched toward the cache */
void gen_rows_ahead(struct ir_node *rn); /* the same at a generator's iteration */
/* ---- a jammed nest's inner loop (emit_jam.c) ----------------------------- */

/* One copy of the inner body in of a jammed nest (block b, nlets lets
 * before in), for the outer iteration at ko (the outer variable v). */
void emit_jam_copy(struct ir_node *in, struct ir_node *b, int nlets, const char *v, const char *ko, const char **lets,
                   const char **slot_names, const struct view *views);

/* Whether a jammed nest's sums are such: its groups then run VDOT_JAM outer
 * iterations (three vectors of four sums, or six of two). */
enum { VDOT_JAM = 12 };
bool emit_vdot_fits(struct ir_node *s, struct ir_node *b, int nlets);
/* When it fits, writes "#if BP_VDOT == 4", the loop in 4-lane vectors,
 * "#elif BP_VDOT == 2", the same in 2-lane ones, "#else" and returns true:
 * the caller writes the scalar loop, then "#endif". */
bool emit_vdot_loop(struct ir_node *s, struct ir_node *b, int nlets, int jam, const char *ilo, const char *ihi,
                    const char **saved, const struct view *views, const char **slots);
/* ---- in-place maps (emit_maps.c) ----------------------------------------- */

/* xs = [e for x in xs] (or for i in 0..len(xs)) written into xs's own slots
 * when it holds the only reference; false when s is not such a statement. */
bool emit_map_in_place(struct ir_node *s);

/* A range loop over lo .. hi as written (its views and versions aside). */
void range_loop(struct ir_node *s, const char *lo, const char *hi);
/* A loop over range(lo, .., step)'s n values (evaluated), v its variable. */
void values_loop(struct ir_node *s, const char *v, const char *n, const char *lo, const char *step);

/* ---- prefetching loops (emit_prefetch.c) ---------------------------------- */

/* A loop opt_prefetch.c wrote twice, s the if [runs long] of the copies
 * (ir_runs_long_if), n the count its test reads, over the loop's bounds or
 * snapshot evaluated once (for the test and the copy that runs): the copy
 * prefetching, else the loop as written (one: the loop's writer). from: the
 * variable the copy as written starts at (pf_blocks), else lo or 0. */
struct pf_loop { const char *lo, *hi, *v, *n, *snap, *k, *from; };
/* The if [runs long] s of a loop's two copies, printed by one (its writer). */
void pf_runs_long(struct ir_node *s, const char *n, const struct pf_loop *a,
                  void (*one)(struct ir_node *, const struct pf_loop *));
/* The data pointer of stream a of a prefetching loop, typed (a view's where one is open). */
const char *stream_data(struct ir_var *a);

/* ---- guard tests (emit_guards.c) ------------------------------------------ */

/* What joins guard test i to the ones before it. */
const char *guard_join(int i);
/* The test that i + off stays in arr for every i in lo .. last. */
const char *span_test(const char *lo, const char *last, int64_t off, const char *arr);
/* The test of loop guard g over lo .. last (hi: the bound, inclusive or not). */
const char *loop_guard_test(const struct ir_guard *g, const char *lo, const char *last, const char *hi,
                            bool inclusive);
/* The test that range loop s's guards hold over lo .. hi, empty or (nonempty)
 * not; free .p after. */
struct buf range_guard_cond(struct ir_node *s, const char *lo, const char *hi, bool nonempty);
/* A narrowed guard test (opt_version.c: narrow_before), a let's value before the loop around. */
const char *narrowed_test(struct ir_node *t);
/* A versioned loop (opt_version.c): if its guard test holds, the fast copy,
 * else the loop as written. */
void emit_versioned(struct ir_node *s);
/* A swapped or jammed nest's guards (opt_interchange.c): whether the inner
 * loop's guard g is one the nest tests, whether swap guard g needs only the
 * outer range, its test over the outer range lo .. last and the inner one
 * ilo .. ilast, the inner bounds evaluated into ilo and ihi, and a swapped
 * nest's whole test t (after `if (lo < hi) {`, left open): its flag. */
bool nest_needs(const struct ir_guard *g);
bool outer_guard(const struct ir_guard *g);
const char *swap_guard_test(const struct ir_guard *g, const char *lo, const char *last, const char *ilo,
                            const char *ilast);
void inner_bounds(struct ir_node *lo, struct ir_node *hi, const char *ilo, const char *ihi);
const char *swap_go(const struct ir_node *t, const char *lo, const char *hi, const char **ilo, const char **ihi,
                    const char **k);
/* A swapped nest opt_version.c wrote as IR: its versioned if over lo .. hi (emit_loops.c). */
void emit_swapped(struct ir_node *s, const char *lo, const char *hi);
/* A jammed nest opt_version.c wrote as IR (versioned if s over lo .. hi): the
 * groups of outer iterations in one inner loop, then the rest as written,
 * else the nest as written. */
void emit_jammed(struct ir_node *s, const char *lo, const char *hi);
/* The least row lengths loop s keeps (rowmins), declared before it; returns
 * the mark for close_rowmins, after it. */
int open_rowmins(struct ir_node *s);
void close_rowmins(int mark);

/* ---- builtins, os, world and methods (emit_builtin.c) -------------------- */

const char *emit_builtin(struct ir_node *n);

/* ---- function values (emit_fnval.c) -------------------------------------- */

const char *emit_fnval(struct ir_node *n); /* IR_FNVAL: a brt_fn, owned when it captured */
const char *emit_callv(struct ir_node *n); /* IR_CALLV: a call through one */

/* ---- comprehensions and reductions (emit_par.c) -------------------------- */

const char *emit_reduce(struct ir_node *rn);
const char *emit_seq_lanes(struct ir_node *rn, const char *start);
const char *emit_listcomp(struct ir_node *rn); /* emit_listcomp.c */
/* A par comprehension, or one on the pool, without a filter, filled into
 * the array into: its elements stored into into's own slots (map_in_place). */
void emit_fill_into(struct ir_node *rn, const char *into);

/* The iteration source evaluated once in the current function: for a range
 * its bounds and its element count (without overflow: at most INT64_MAX),
 * for an array the array (borrowed or owned by the enclosing scope: element
 * expressions cannot assign variables, so no snapshot is needed). */
struct src {
    bool is_range;
    struct type *it;  /* range bound type */
    const char *lo, *n, *arr;
    /* a par generator's later clauses (their own lo, n, arr; none reads a
     * clause variable), ncl of them; then n is the product of the counts */
    struct src *cl;
    int ncl;
    const char *n0;   /* with clauses: the first clause's count */
    const char *nk;   /* by KEY in 0..N: N, evaluated after the sources */
};
const char *start_value(enum reducer r, struct type *t);
/* A par helper's new context (F) whose captured variables caps are unpacked
 * from its struct bp_env<id> *env (borrowed); returns the one it replaces. */
struct fctx *helper_open(int id, struct ir_var **caps, int ncaps);
struct fctx *helper_begin(int id, struct ir_node *rn);
/* A par construct's element places named by its own frame while a loop of it
 * is written in the function itself (emit_maps.c: a par map on one thread) */
struct par_places {
    bool in_helper;
    const char *elem_frame;
    struct loc elem_span;
};
struct par_places par_places_open(struct ir_node *rn);
void par_places_close(struct par_places was);
void helper_places(struct fctx *caller);
/* emit_par.c's pieces that emit_scan.c builds on */
struct src eval_source(struct ir_iter *it);
struct src eval_sources(struct ir_node *rn);
void iteration(struct ir_node *rn, void (*elem)(struct ir_node *, void *), void *arg);
void chunk_loop(struct ir_node *rn, struct src *s, const char *k, void (*elem)(struct ir_node *, void *), void *arg,
                const char *stop);
/* A par helper's loop over the flat positions [from, to) of a generator
 * with several clauses (kout: the position's name, or NULL). */
void flat_loop(struct ir_node *rn, struct src *s, const char *from, const char *to,
               void (*elem)(struct ir_node *, void *), void *arg, const char *stop, const char *kout);
void seq_loops(struct ir_node *rn, int c, void (*elem)(struct ir_node *, void *), void *arg, const char *stop);
void seq_loops_from(struct ir_node *rn, const struct src *s, void (*elem)(struct ir_node *, void *), void *arg);
void emit_gen_loop(struct ir_node *rn, const struct src *s, void (*elem)(struct ir_node *, void *), void *arg,
                   const char *stop); /* source_loop, in two versions behind its guards (opt_loops.c) */
/* What a loop over a generator's source runs per element (emit_gen_loop's
 * and emit_seqlanes.c's loops): elem(rn, arg), and the flag that stops it. */
struct gen_elem {
    void (*elem)(struct ir_node *, void *);
    void *arg;
    const char *stop;
};
/* loop(version, s, ctx) for the generator's checked version and, when opt_loops.c made one, its
 * fast version behind the guards that prove it */
void emit_gen_versions(struct ir_node *rn, const struct src *s,
                       void (*loop)(struct ir_node *version, const struct src *s, void *ctx), void *ctx);
bool unroll_hint(struct ir_node *loop, const struct ir_iter *it, struct ir_node *body, struct ir_node *body2);
void source_loop(struct ir_node *rn, const char *pre, const char *lo, const char *arr, const char *from,
                 const char *to, bool is_range, void (*elem)(struct ir_node *, void *), void *arg, const char *stop);
void helper_end(struct fctx *saved, struct buf *out, const char *header, const char *result);
int par_env(struct ir_node *rn, struct src *s, struct buf *aux);
const char *env_fill(int id, struct ir_node *rn, struct src *s);
/* emit_minmax.c: min and max's compare ("x replaces acc"), one element folded
 * into the record, and a par leaves() call's range folded as one pass (its
 * flag: the fold was done), where minmax_whole_fits */
const char *better(enum reducer r, struct type *t, const char *x, const char *acc);
void fold_minmax(struct ir_node *rn, const char *x, const char *acc, const char *has);
bool minmax_whole_fits(struct ir_node *rn);
const char *emit_minmax_whole(struct ir_node *rn, struct src *s);
/* The generator's variable at element k (a C expression) of its source. */
void set_gen_var(struct ir_node *rn, const char *pre, const char *lo, const char *arr, const char *k, bool is_range);
/* emit_seqlanes.c: a sequential min or max of numbers folded in lanes, any and all in blocks */
bool minmax_lanes_fit(struct ir_node *rn);
void emit_minmax_lanes(struct ir_node *rn, const struct src *s, void (*elem)(struct ir_node *, void *), void *arg,
                       const char *acc, const char *has, const char *start);
bool anyall_blocks_fit(struct ir_node *rn);
void emit_anyall_blocks(struct ir_node *rn, const struct src *s, void (*elem)(struct ir_node *, void *), void *arg,
                        const char *stop);
size_t c_size(struct type *t, size_t *align);

/* ---- reduce(f, start, gen), scans, by (emit_scan.c) ---------------------- */

const char *emit_fold(struct ir_node *rn);
/* emit_keyref.c: keyed reductions and par scan(f, ...) of counted values */
const char *emit_keyed_ref(struct ir_node *rn);
const char *emit_scan_ref(struct ir_node *rn);
/* acc = the reduction's combine of acc and b (emit_scan.c) */
void combine_into(struct ir_node *rn, const char *acc, const char *b);
/* A par reduction on the runtime's tree of values up to 16 bytes
 * (emit_par.c): the built-in reducers, and reduce(f, start, gen); lanes:
 * f is the built-in reducer's operation (reducer), so the lanes may fold
 * the leaves and the checked integer sum its fast way */
const char *emit_par_reduce(struct ir_node *rn, bool lanes);
const char *emit_seq_reduce(struct ir_node *rn, bool tree); /* tree: the par order on this thread */

/* ---- the lane vectoriser (emit_lane.c) ----------------------------------- */

/* Emits bp_leaves<id> in lanes into out, calling the scalar bp_leaves_s<id>
 * for the ragged tail, for leftovers and for flagged blocks. Returns false
 * (and emits nothing) when the element, filter or reducer cannot run in
 * lanes. */
bool emit_lane_leaves(struct ir_node *rn, int id, struct src *s, struct buf *out);
bool emit_lane_elems(struct ir_node *rn, int id, struct src *s, struct buf *out);

#endif
