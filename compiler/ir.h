/*
 * ir.h: the IR between lowering (lower.c) and the emitters (emit_c.c now, a
 * pthread-pool emitter and a CUDA emitter later).
 *
 * A typed, structured tree. Compared with the checked AST:
 *   - every node has an opcode from the IR_EXPRS or IR_STMTS table, a loc
 *     and a type;
 *   - every local is a numbered ir_var (shadowing resolved), parameters too;
 *     top-level constants of all modules are ir_globals, initialised in
 *     order (imported modules first) before main runs;
 *   - literal types and conversions are explicit (IR_CONV);
 *   - binary and unary ops carry their operand type (optype);
 *   - compound assignment and elif are desugared; stores into arrays name
 *     the root variable and the index chain (IR_STORE, IR_PUSH);
 *   - for-over-array and ranges are separate statements (IR_FOR_ARRAY,
 *     IR_FOR_RANGE) with their bounds in an ir_iter;
 *   - comprehensions and reductions are explicit nodes (IR_LISTCOMP,
 *     IR_REDUCE) with their iteration source, loop variable, element,
 *     filter and the explicit list of captured variables (everything the
 *     element and filter read from outside), so a parallel emitter can
 *     build an environment without another analysis. A reduction over an
 *     array without a generator is lowered to the generator form with a
 *     synthetic loop variable.
 * The nodes live in the compiler's arena; ir_verify (ir.c) checks the
 * invariants above after lowering, in every build.
 */
#ifndef BRINE_IR_H
#define BRINE_IR_H
#include "brine.h"

/* The opcodes: two tables, expressions and statements, each row: enum,
 * printed name, and the fixed children the printer shows (a, b, c as
 * used). They are two enums with disjoint values, so a walker switches on
 * n->eop (expressions) or s->sop (statements) and lists every kind of its
 * own with no default: -Wswitch then names each walker that misses a new
 * kind; n->op is the same value as an int, for tests and tables. */
#define IR_EXPRS(X)                                                        \
    X(IR_INT, "int", 0)        /* ival, of type int/u64/i128 */            \
    X(IR_FLOAT, "float", 0)    /* fval */                                  \
    X(IR_BOOL, "bool", 0)      /* bval */                                  \
    X(IR_STR, "str", 0)        /* str, slen */                             \
    X(IR_VAR, "var", 0)        /* var */                                   \
    X(IR_GLOBAL, "global", 0)  /* global */                                \
    X(IR_UNARY, "unary", 1)    /* bop (OP_NEG, OP_BNOT) a */               \
    X(IR_NOT, "not", 1)        /* a */                                     \
    X(IR_BINARY, "binary", 2)  /* a bop b, operands of optype */           \
    X(IR_AND, "and", 2)        /* a and b (short-circuit) */               \
    X(IR_OR, "or", 2)          /* a or b */                                \
    X(IR_COND, "cond", 3)      /* b if a else c */                         \
    X(IR_CONV, "conv", 1)      /* a (optype) converted to type */          \
    X(IR_CALL, "call", 0)      /* fn(kids) */                              \
    X(IR_BUILTIN, "builtin", 0) /* builtin(kids); methods: recv first */   \
    X(IR_INDEX, "index", 2)    /* a[b] */                                  \
    X(IR_ARRAY, "array", 0)    /* [kids] */                                \
    X(IR_FSTRING, "fstring", 0) /* kids: IR_STR pieces and values */       \
    X(IR_LISTCOMP, "listcomp", 0) /* [elem for gen_var in iter if filter] */ \
    X(IR_REDUCE, "reduce", 0)  /* reducer(elem for gen_var in iter if filter) */ \
    X(IR_TUPLE, "tuple", 0)    /* (kids): a tuple value */                 \
    X(IR_FIELD, "field", 1)    /* a.field: a tuple's field */               \
    X(IR_FNVAL, "fnval", 0)    /* fn as a value; kids: a lambda's captured values */ \
    X(IR_CALLV, "callv", 1)    /* a(kids): a call through a function value */ \
    X(IR_GUARD_TEST, "guards", 0) /* a versioned if's test (opt_version.c): guards hold over \
                                  * var in kids[0]..kids[1] (iter.inclusive: ..=), or over \
                                  * the induction ind_var < kids[0] (<=) step kids[1], or \
                                  * over var in kids[0], a range(lo, hi, step) of values; \
                                  * guards_outside: over a non-empty inner range, tested \
                                  * before the outer loop (its range: clauses[0]), par: \
                                  * and the runtime would not split the inner loop; \
                                  * swapped: a swapped nest's (clauses[0] its outer \
                                  * range), with its swap_guards */

/* The statements' table has a fourth column: the first row's value, after
 * the last expression's. */
#define IR_STMTS(X)                                                        \
    X(IR_BLOCK, "block", 0, = IR_NEXPRS) /* kids */                       \
    X(IR_LET, "let", 1, )        /* var = a (a fresh variable) */          \
    X(IR_ASSIGN, "assign", 1, )  /* var = a */                             \
    X(IR_STORE, "store", 1, )    /* var[kids[0]][kids[1]].. = a; a step   \
                                   * may be a field: IR_FIELD, no operand */ \
    X(IR_PUSH, "push", 1, )      /* var[kids..].push(a) */                 \
    X(IR_EXPR, "expr", 1, )      /* a, for its effect */                   \
    X(IR_UNIQUE, "unique", 0, )  /* var[kids..] made unique: each array on \
                                   * the path and the last (opt_unique.c) */ \
    X(IR_IF, "if", 3, )          /* if a: b else c (c may be NULL) */      \
    X(IR_WHILE, "while", 2, )    /* while a: b */                          \
    X(IR_FOR_RANGE, "for_range", 0, ) /* for var in iter (range): b */     \
    X(IR_FOR_ARRAY, "for_array", 0, ) /* for var in iter (array snapshot): b */ \
    X(IR_BREAK, "break", 0, )                                              \
    X(IR_CONTINUE, "continue", 0, )                                        \
    X(IR_RETURN, "return", 1, )  /* a may be NULL */                       \
    X(IR_UNREACHABLE, "unreachable", 0, ) /* end of a value function the checker proved returns */

#define IR_COUNT_ONE_(k, s, n) +1
#define IR_NEXPRS (0 IR_EXPRS(IR_COUNT_ONE_))
enum ir_expr_op {
#define X(k, s, n) k,
    IR_EXPRS(X)
#undef X
};
enum ir_stmt_op {
#define X(k, s, n, first) k first,
    IR_STMTS(X)
#undef X
};
extern const char *const ir_op_name[]; /* by op, both tables */
#define ir_is_expr(n) ((n)->op < IR_NEXPRS)

/* A local variable, parameter or compiler temporary; id is unique in the
 * program (the C name is v<id>). */
enum ir_var_kind { IRV_LOCAL, IRV_PARAM, IRV_TEMP };
struct ir_var {
    int id;
    enum ir_var_kind kind;
    const char *name;   /* the Brine name ("" for temporaries) */
    struct type *type;
    struct loc loc;
};

/* A top-level constant (of any module). */
struct ir_global {
    int id;
    const char *module, *name;
    struct type *type;
    struct ir_node *init;
    struct loc loc;
};

/* An iteration source: a range lo..hi / lo..=hi, or an array. */
struct ir_iter {
    bool is_range, inclusive;
    struct ir_node *lo, *hi;  /* is_range */
    struct ir_node *array;    /* !is_range */
};

/* A generator's clause after the first: for var in iter. Its source may
 * read the earlier clauses' variables; a par one's never does (lowering
 * rewrites such a generator over the array of its variables' tuples). */
struct ir_clause {
    struct ir_iter iter;
    struct ir_var *var;
};

/* A call written in place (opt_inline.c): a node of the program's tree of
 * such calls. A place inside the copy of fn's body names it (loc.inl), so
 * a panic there reports the call as a frame of the call chain
 * (runtime/frames.c): fn's frame, then site's. site is the call's place,
 * whose own inl names the call the site is written in, if any (0: none).
 * One entry per (fn, site): two places in the same calls name the same. */
struct ir_site {
    struct ir_fn *fn;      /* the function written in place */
    struct loc site;       /* its call's place */
};

struct ir_node {
    union {
        int op;               /* either of: */
        enum ir_expr_op eop;  /* an expression (ir_is_expr) */
        enum ir_stmt_op sop;  /* a statement */
    };
    struct loc loc;
    struct type *type;          /* expressions: the value's type; statements: ty_void */

    struct ir_node *a, *b, *c;  /* fixed children, see IR_EXPRS / IR_STMTS */
    struct ir_node **kids;      /* args, elements, block statements, store indices */
    int nkids;
    const char **specs;         /* IR_FSTRING: spec of kids[i] (NULL: none) */
    bool *lit;                  /* IR_FSTRING: kids[i] is literal text */

    enum op bop;                /* IR_UNARY, IR_BINARY */
    struct type *optype;        /* IR_UNARY, IR_BINARY, IR_CONV: operand type */
    struct ir_var *var;         /* IR_VAR, IR_LET, IR_ASSIGN, IR_STORE, IR_PUSH, IR_FOR_* */
    struct ir_global *global;   /* IR_GLOBAL */
    struct ir_fn *fn;           /* IR_CALL, IR_FNVAL */
    enum builtin builtin;       /* IR_BUILTIN */
    int field;                  /* IR_FIELD: the field's index; IR_BUILTIN print/eprint: 1 + the values'
                                 * count when kids end with sep and end, else 0 */

    unsigned __int128 ival;     /* IR_INT: two's complement bits */
    double fval;                /* IR_FLOAT */
    bool bval;                  /* IR_BOOL */
    const char *str;            /* IR_STR */
    size_t slen;

    /* IR_FOR_RANGE / IR_FOR_ARRAY (iter, var, body in b); IR_REDUCE and
     * IR_LISTCOMP (iter, gen_var, elem, filter, caps). */
    struct ir_iter iter;
    enum reducer reducer;
    bool par;                   /* IR_REDUCE, IR_LISTCOMP: written par; IR_FOR_RANGE: its iterations
                                 * run on the pool (opt_parfor.c), capturing caps */
    bool pool;                  /* IR_LISTCOMP: par set by opt_parfor.c (split only with enough work,
                                 * its places the function's) */
    bool world;                 /* IR_REDUCE: spread over the ranks too (world.sum(gen)) */
    struct type *elem_type;     /* IR_REDUCE, IR_LISTCOMP: type of elem */
    struct ir_var *gen_var;
    struct ir_node *elem, *filter; /* filter may be NULL */
    struct ir_var **caps;       /* captured variables, ordered by id */
    int ncaps;
    struct ir_fold *folds;      /* IR_FOR_RANGE par: the outer variables its iterations fold into
                                 * (opt_parfor.c), not among caps */
    int nfolds;
    struct ir_clause *clauses;  /* IR_REDUCE, IR_LISTCOMP: the clauses after the first */
    /* IR_REDUCE of SPEC 15. user: reduce(f, start, gen) / scan(f, start, gen),
     * whose combine is c, an expression of comb_l and comb_r (f applied to
     * them, resolved and inlined by the optimizer like any call of a known
     * function value), and whose start value is a (evaluated once, first).
     * scan: the running values ([T]). key: by KEY in 0..N, the key (per
     * element, after the filter, before the value) and b = N (evaluated once,
     * after the sources). */
    bool user, scan;
    struct ir_node *key;
    struct loc by_loc;          /* the 'by': where a key out of range panics */
    struct ir_var *comb_l, *comb_r;
    int nclauses;               /* (iter, gen_var), outermost first: row-major order */

    /* Facts the optimizer proved (opt_loops.c); none after lowering. Each
     * lets the emitter leave out a check that cannot fail. */
    struct ir_node *in_range_by; /* IR_INDEX, IR_STORE (its one index): the IR_FOR_RANGE
                                  * whose guarded version keeps the index inside the array, or
                                  * (opt_version.c) the versioned IR_IF whose then-branch it is in */
    struct ir_guard *guards;     /* IR_FOR_RANGE, IR_WHILE, a generator: the guarded version runs when all hold */
    int nguards;
    /* IR_FOR_RANGE (opt_interchange.c): the range loop directly inside it
     * that its swapped version runs outside it (or, jam, around four of its
     * own iterations at a time), when every swap guard holds
     * (the guards' `over` the outer loop's variable; in_range_by = this loop
     * marks the indices they prove) */
    struct ir_node *swap;
    bool jam;                    /* instead: four outer iterations at a time inside one inner loop */
    bool rows_only;              /* IR_GUARD_TEST (opt_version.c): in a versioned nest's fast copy, of its
                                  * inner loop's columns (ir_guard_outer): only the length of each row,
                                  * the rest held by the nest's test (ir_rows_if_of) */
    bool swapped;                /* IR_GUARD_TEST (opt_version.c): of a swapped nest, its then-branch
                                  * the inner loop outside, its else-branch the nest as written */
    bool jammed;                 /* IR_GUARD_TEST (opt_version.c): of a jammed nest, its then-branch
                                  * the nest jammed (its inner loop fast), its else-branch as written */
    struct ir_guard *slots;      /* jam: stored elements y[k + off] kept in locals through the inner loop,
                                  * and (rows) rows a[k + off] whose data pointers are */
    int nslots;
    int slot;                    /* IR_INDEX, IR_STORE: 1 + its element's (its row's) index in the jam's slots */
    struct ir_guard *swap_guards;
    int nswap_guards;
    /* IR_FOR_RANGE (opt_loops.c): its body is one guarded range loop whose
     * bounds and guards it cannot change: they are tested once, before it,
     * and the whole nest written twice (opt_version.c) */
    bool guards_outside;
    /* IR_FOR_RANGE with guards inside range loop narrow_in, under its ifs
     * (opt_loops.c): its guards marked narrow (ir_guard.narrow) select their
     * last row by narrow_in's variable and name nothing else narrow_in
     * changes; narrow_lo .. narrow_hi (opt_range.c: stable, NULL when none)
     * bound that variable where this loop runs (the branch's conditions:
     * `j != 0`, `j != n - 1`). opt_version.c tests those guards' rows once,
     * before narrow_in, over that range (IR_GUARD_TEST narrowed, the let of
     * narrow_flag), and each entry of this loop only the last rows' lengths
     * where the variable is inside it (narrow_test: that test). */
    struct ir_node *narrow_in, *narrow_lo, *narrow_hi, *narrow_test;
    bool narrowed;
    struct ir_var *narrow_flag;
    /* IR_WHILE with guards: the induction they were proved for, `while
     * ind_var < ind_bound` (<= when ind_inclusive) whose body ends with
     * `ind_var = ind_var + ind_step`; bound and step do not change in it */
    struct ir_var *ind_var;
    struct ir_node *ind_bound, *ind_step;
    bool ind_inclusive;
    struct ir_node *no_overflow_in; /* IR_BINARY: cannot overflow in this loop's guarded version */
    struct ir_growth *growth;   /* IR_GUARD_TEST of a nest of bounded growth (opt_growth.c) */
    /* IR_FOR_RANGE, IR_WHILE (opt_version.c): the then-branch of this versioned IR_IF, whose
     * guard test proves the nodes that name it in in_range_by / no_overflow_in (fast_in);
     * or its else-branch, the loop as written (slow): every check in it. IR_REDUCE,
     * IR_LISTCOMP with guards: fast_gen, its copy that runs when they hold (tested over
     * the values it takes, emit_gen_loop), whose proved nodes name that copy; the copy's
     * fast_in: the generator as written */
    struct ir_node *fast_in;
    struct ir_node *fast_gen;
    /* IR_FOR_RANGE (opt_fuseloops.c): the loops as written it fuses, a block of them
     * (adjacent, over its range): opt_version.c's else-branch instead of a copy of it */
    struct ir_node *unfused;
    bool slow;
    /* IR_FOR_RANGE par (opt_version.c): what runs for each chunk the runtime
     * hands out, chunk_lo .. chunk_hi (fresh variables the emitter sets to the
     * chunk's bounds): the versioned if of a sequential loop over them, its
     * else-branch the loop as written (its body b); NULL: the loop itself over
     * the chunk. */
    struct ir_node *chunk;
    struct ir_var *chunk_lo, *chunk_hi;
    /* IR_FOR_RANGE par (opt_parfor.c): the sequential range loop directly around it, whose
     * one statement it is, may run inside each chunk (its steps touch only the slots the
     * chunk's iterations own, and read nothing another step changes): opt_version.c makes
     * its hoisted guards' fast nest one loop on the pool whose chunk is that nest over the
     * chunk's slice, where the nest cannot panic */
    bool steps_in_chunk;
    /* IR_FOR_RANGE (opt_iters.c: map_loop): the store loop a comprehension mapping an array into
     * its own slots in a time loop was written as (from_map): not jammed (opt_interchange.c: the
     * steps as the map's, one pass over the array each); a par one's (written_par) left to parfor
     * whatever its work */
    bool from_map, written_par;
    /* IR_FOR_RANGE, IR_FOR_ARRAY (opt_prefetch.c): a scatter loop whose streams the emitter
     * prefetches ahead: an array loop's snapshot, a range loop's streams (arrays read as a[i]);
     * only the copy in the then-branch of the if [runs long] the pass writes it as (ir_verify) */
    bool prefetch;
    struct ir_var **streams;
    int nstreams;
    /* IR_IF without else (opt_records.c): a running record's update (a new least or greatest
     * value, or its index, replacing the old), which runs seldom: its branch is written unlikely;
     * rare_kept: an index record (the compared side reads the record through an element, a[m]):
     * the branch kept a branch, never made a conditional move */
    bool rare, rare_kept;
    /* IR_INDEX, IR_STORE of one index (opt_bins.c): the float-to-int conversion (an IR_CONV
     * of a variable) whose check this bounds check makes: when it fails, the conversion is
     * tested first (its panic, else this one); IR_CONV: f2i_later, its check made so */
    struct ir_node *f2i_conv;
    bool f2i_later;
    struct ir_var **views;       /* loops: arrays whose data and length the loop cannot change */
    int nviews;
    struct ir_var **rowmins;     /* loops: arrays of arrays none of whose rows changes length in it, whose
                                  * rows' least length the column guards inside keep (opt_loops.c) */
    int nrowmins;
    int unique_steps;            /* IR_STORE, IR_UNIQUE: how many steps of the path reach into an array
                                  * an IR_UNIQUE before it made unique (opt_unique.c): the arrays
                                  * var, var[k0], ..., var[k0]..[k(n-1)] for n = unique_steps need no
                                  * copy-on-write test (a field step's struct needs none anyway) */
    bool every;                  /* IR_UNIQUE: and every element of the array its path reaches (an
                                  * array of arrays), so the arrays var[k0]..[k(n-1)][x] for any x
                                  * too: `unique b[*]`, its steps nkids + 2 (opt_unique.c) */
    bool by_cols;                /* IR_INDEX m[i + c][k], IR_STORE of one: a column's element, the row
                                  * index proved by a column guard of in_range_by (opt_loops.c), so the
                                  * row is among those its test scanned (emit_rows.c: col_table) */
    bool in_bounds;              /* IR_INDEX of a variable, IR_STORE of one index: the index is always
                                  * inside the array (opt_range.c, opt_relations.c) */
    bool one_compare;            /* IR_AND of `a >= 0` and `a < b` (or <=; either order, 0 <= a, b > a
                                  * too), a a variable, b a literal, variable or len of one, proved
                                  * b >= 0 (opt_relations.c): one unsigned compare (ir_one_compare) */
    struct ir_node *idx_upper;   /* IR_INDEX (opt_relations.c): the index is at least 0 and at most this
                                  * int expression, + - * of literals and variables never assigned */
    bool no_overflow;            /* IR_BINARY, IR_UNARY of int: the result always fits; a shift
                                  * (int, u64): its amount is in 0..63; IR_CONV int to u64: the
                                  * value is never negative (opt_range.c) */
    bool borrow;                 /* IR_LET of an element: borrows it (opt_borrow.c) */
    bool in_place;               /* IR_ASSIGN xs = [e for x in xs] (opt_version.c, map_steps): the then-branch
                                  * of an if testing [in place](xs, least) holds it: each element stored back into
                                  * its slot, in order, with no test of its own */
    bool versioned;              /* IR_IF, IR_COND whose condition is a guard choosing between a fast copy of a
                                  * statement and the statement as written (opt_accum.c; opt_version.c:
                                  * an IR_GUARD_TEST, its test written as emit_guards.c writes guards): the C
                                  * emitter keeps its value opaque to gcc's jump threading, which
                                  * would otherwise give a fast loop inside a second entry */
    bool moved;                  /* IR_VAR: the variable's last use, where its value is kept: the read hands
                                  * its reference over and leaves the variable empty (opt_move.c) */
    bool take;                   /* IR_LET of an element var[k]: takes it out, leaving the slot empty until
                                  * a store of var[k] later in the block puts a value back (opt_move.c) */
    bool fused;                  /* IR_BLOCK (opt_fuse.c): a region whose last statement is `if not covered:
                                  * let t = [E for x in xs]` (a comprehension as written, its result
                                  * dropped); the emitter traps the statements before it, and on a
                                  * panic runs that comprehension first (its panic, if it has one) */
    bool cursor;                 /* IR_BLOCK (opt_cursor.c): one statement that uses var, an array
                                  * made unique before it, only by pushes (it may be the cursor
                                  * block of another array); IR_PUSH: one of those, into its
                                  * cursor's locals */
    bool carried;                /* IR_LET before a jammed nest's inner loop that the inner loop
                                  * assigns (an accumulator): one per outer iteration of a group */
    bool first_read;             /* IR_COND `t if has else A[v + c]` (opt_carry.c, an element read one
                                  * iteration back): has is false when the loop starts and true from its
                                  * second iteration, t then that element; nothing the first iteration runs
                                  * before the read changes it (opt_version.c: first_reads) */
    /* IR_CALL of a library function written in place in another
     * (opt_inline.c): the place its panics report, the enclosing library
     * function's `site` (site_is_param) or site_loc */
    bool site_set, site_is_param;
    struct loc site_loc;
};

/* A guard of a loop's checked-free version: for every value i of the loop
 * variable, 0 <= i + off < len(arr). arr's length does not change in the loop.
 * A swap guard with rows: the same for every row arr[k + row_off], k over
 * the values of the swapped inner loop's variable; outer_rows: rows over
 * the outer loop's values, the index over the inner loop's. With at (a
 * literal or a variable the nest does not change): 0 <= at < len(arr), and
 * with rows, the one row arr[at] holds i + off over the inner loop's range
 * (at_outer: j + off over the outer loop's). */
/* An accumulator of a loop on the pool (opt_parfor.c): every assignment of
 * var in the body is `var = var + E`, `var = E + var` or `var = var - E`
 * (sum, int), `var = min(var, E)` / max (int, u64; float only with var
 * first), or `var = var or E` / and, in either order (bool); nothing else
 * in the body reads var. */
enum ir_fold_kind { FOLD_SUM, FOLD_MIN, FOLD_MAX, FOLD_OR, FOLD_AND };
struct ir_fold {
    struct ir_var *var;
    enum ir_fold_kind kind;
};

struct ir_guard {
    struct ir_var *arr;
    /* A loop guard with rows (opt_loops.c): 0 <= at_var + row_off < len(arr)
     * (at_var NULL: the literal row_off), and that one row holds i + off;
     * at_var and arr do not change in the loop, nor does the row's length.
     * With npath: the guard's row is deeper, arr[at_var + row_off]
     * [path_vars[0] + path_offs[0]] ... (path_vars[k] NULL: the literal
     * path_offs[k]), each index tested before the row it selects is read,
     * none of them changing in the loop, nor any of those rows' lengths. */
    struct ir_var *at_var;
    struct ir_var **path_vars;
    int64_t *path_offs;
    int npath;
    /* A loop guard of an index the loop does not change (opt_loops.c):
     * idx_var + off (idx_var NULL: the literal off) instead of i + off. */
    bool fixed;
    struct ir_var *idx_var;
    /* A loop guard of an index i + base + off (opt_loops.c): base an int
     * expression of literals and variables the loop does not change (+ - *),
     * computed in the guard without panicking (an overflow fails it). With
     * fixed (idx_var NULL, rows or not): the one index base + off, the most
     * an index at least 0 is (opt_relations.c: idx_upper). */
    struct ir_node *base;
    int64_t off;
    bool rows;
    int64_t row_off;
    /* A loop guard of a column (opt_loops.c): every row arr[i + row_off]
     * over the range in arr, and each of those rows holding the column
     * idx_var + off (fixed) or i + off: tested against their least length,
     * kept by the loop around that lists arr in rowmins. */
    bool cols;
    bool outer_rows;
    struct ir_node *at;
    bool at_outer;
    /* A jam slot of the element y[i + off] (at: y[at][i + off]), i the
     * inner loop's variable: the one element of y each inner step reads
     * and stores, kept in a local through that step's copies (loaded
     * before the first, stored after the last). */
    bool inner;
    /* A swap guard of one length (opt_interchange.c): every row
     * arr[j + off], j over the outer range lo .. last, as long as
     * arr[lo + off], so an inner bound reading len(len_row), len_row that
     * row (a let's variable r = arr[j + off], or arr[j + off] itself),
     * reads the one len(arr[lo + off]) (the fast copy's bound, opt_version.c). */
    bool same_len;
    /* A column guard along the loop around (ir_node.narrow_in): its rows'
     * selection tested before that loop, over the branch's narrowed range. */
    bool narrow;
    struct ir_node *len_row;
};

/* A growth test (opt_growth.c): c0 + d * trips + u <= INT64_MAX, trips
 * computed without panicking (+ - * of literals, variables and len of
 * variables, max(x, 0); an overflow fails it; NULL: 0), and every element
 * of each scan array (an [int], or every row of an [[int]]) at most
 * INT64_MAX - u - d * trips. */
struct ir_growth {
    struct ir_node *trips;
    int64_t d, u, c0;
    struct ir_var **scan;
    int nscan;
};

struct ir_fn {
    const char *module, *name;
    const char *cname;          /* bf_<module>_<name>, unique */
    struct ir_var **params;
    int nparams;
    struct type *ret;           /* ty_void for none */
    struct ir_node *body;       /* IR_BLOCK */
    struct loc loc;
    /* A standard-library function (module path stdlib/...): it takes a
     * hidden last parameter, the place of the user's call, where panic()
     * inside it is reported (docs/stdlib.md). */
    bool has_site;
    /* A lambda, lifted: its first ncaps parameters are what it captured
     * (an IR_FNVAL of it lists their values), the rest its own. */
    bool is_lambda;
    int ncaps;
    /* By parameter (NULL: none): the callee owns it (opt_move.c): callers
     * hand over a +1 reference, and it is released at exit like a local. */
    bool *owns;
    /* Facts of opt_parfor.c (pool_calls): a call of it may run on the pool
     * (pure: it prints, draws and stores into no array it was handed, and
     * it ends: no while loop, no recursion, no function value), and its
     * body's work by ir_par_work's guess (0: not such a function). */
    bool pool_safe;
    int64_t pool_work;
    /* Called from a loop or comprehension that opt_parfor.c marked: the
     * emitter writes that body twice (the pool's helper and the in-order
     * path), so the C function gets two callers and loses gcc's inlining of
     * a function called once; it is written `inline` (a hint: gcc still
     * weighs its size) to keep a small one inlined in both. */
    bool twice_called;
    /* A par comprehension's row written as a function (opt_comploop.c),
     * after the functions it is called from: it has no frame in call
     * chains. Its one call writes no slot, and the emitter names its places
     * as the call's (the par element's frame and site, which it keeps where
     * the call is written: CG->frames_as), as when the row was the element. */
    bool frameless;
};

struct ir_program {
    struct vec globals;         /* struct ir_global *, in initialisation order */
    struct vec fns;             /* struct ir_fn *, modules in load order */
    struct ir_fn *main;         /* main module's main() */
    int nvars;                  /* ids are 1..nvars */
    bool versioned;             /* opt_version.c ran: no loop left that it rewrites (ir_verify) */
    struct ir_site *sites;      /* the calls written in place, named by loc.inl (1-based) */
    int nsites, capsites;
    struct map site_ids;        /* (fn, site) -> its index + 1 */
};

/* The passes of optimize() (opt.c). */
void opt_unique(struct ir_program *ir); /* opt_unique.c */
void opt_loops(struct ir_program *ir);  /* opt_loops.c */
/* Nests of bounded growth written twice, their int adds unchecked behind one test (opt_growth.c, run by relations). */
void opt_growth(struct ir_program *ir);
/* Its tests whose adds the range facts prove anyway dropped: the nest as written (opt_growth.c, run by range). */
void opt_growth_drop(struct ir_program *ir);
void opt_range(struct ir_program *ir);  /* opt_range.c */
void opt_relations(struct ir_program *ir); /* opt_relations.c */
void opt_interchange(struct ir_program *ir); /* opt_interchange.c */
void opt_borrow(struct ir_program *ir); /* opt_borrow.c */
void opt_inline(struct ir_program *ir); /* opt_inline.c */
void opt_fnvals(struct ir_program *ir); /* opt_fnvals.c */
void opt_consts(struct ir_program *ir); /* opt_consts.c */
void opt_iters(struct ir_program *ir);  /* opt_iters.c */
void opt_unroll(struct ir_program *ir);  /* opt_scalars.c */
void opt_scalars(struct ir_program *ir); /* opt_scalars.c */
void opt_counted(struct ir_program *ir); /* opt_counted.c */
void opt_shortfor(struct ir_program *ir); /* opt_shortfor.c */
void opt_accum(struct ir_program *ir);   /* opt_accum.c */
void opt_extremes(struct ir_program *ir); /* opt_extremes.c */
void opt_lazycopy(struct ir_program *ir); /* opt_lazycopy.c */
void opt_comploop(struct ir_program *ir); /* opt_comploop.c */
void opt_fill(struct ir_program *ir);     /* opt_fill.c */
/* Sequential scans that are the whole value of a let, assignment or return
 * written as loops pushing their running values (opt_scanloop.c, run by
 * opt_fill first). */
void ir_scan_loops(struct ir_program *ir);
void opt_cover(struct ir_program *ir);    /* opt_cover.c */
/* The blocks statement s reaches through statements (an if's branches, a
 * loop's body), not through expressions: block_fn(b) for each, which walks
 * on into b's statements with ir_stmt_blocks (the passes that rewrite a
 * block's statements: counted, fill, cover, fuse). */
void ir_stmt_blocks(struct ir_node *s, void (*block_fn)(struct ir_node *b));
/* How many times n (an expression or a statement, anything in it: a
 * variable read, a let, assignment, store or push of it, a loop's variable)
 * names v; ir_names: at least once (opt_fill.c, opt_fuse.c). */
int ir_mentions(struct ir_node *n, struct ir_var *v);
/* Whether comprehension c maps xs's own slots in order: for x in xs, its
 * element not reading xs, or for i in 0..len(xs), reading xs only as xs[i]
 * (and its length): xs = c can be written into xs's slots (emit_maps.c),
 * which comploop then leaves alone. */
bool ir_maps_own_slots(struct ir_node *c, struct ir_var *xs);
bool ir_names(struct ir_node *n, struct ir_var *v);
/* Whether statement s leaves a loop's iteration early: a return anywhere, a
 * break or continue of the loop whose body s is in (depth 0; a loop inside s
 * adds one) (opt_fill.c). */
bool ir_leaves(struct ir_node *s, int depth);
/* For-array loop s over a variable its body never writes (ir_writes),
 * rewritten in place as `for k in 0..len(xs): let v = xs[k]; body` (k a
 * fresh temporary): the same elements in the same order, none of the reads
 * out of range (opt_iters.c, for opt_inline.c). */
void ir_each_by_index(struct ir_program *ir, struct ir_node *s);
void opt_fuse(struct ir_program *ir);     /* opt_fuse.c */
/* A short loop: a range of 2 to IR_SHORT_TRIPS steps, its body (a loop's
 * statements, or a generator's element and filter) with no loop and no
 * call inside (ir_loops_or_calls: a callee may loop, and gcc may write it
 * in place). opt_range.c writes the bounds of a short loop that it
 * proves constant as literals; the C emitter has gcc unroll it whole. */
enum { IR_SHORT_TRIPS = 16 };
bool ir_loops_or_calls(struct ir_node *n); /* ir.c: n holds a loop, a generator, a comprehension or a call */
/* A fresh compiler temporary of type t (opt_comploop.c). */
struct ir_var *ir_new_temp(struct ir_program *ir, struct type *t, struct loc loc);
/* Block b with its statement i replaced by the statements of block r (in
 * b's scope); the index of the last of them (opt_comploop.c). */
int ir_splice(struct ir_node *b, int i, struct ir_node *r);
/* Whether int expression n is a bound that evaluated again gives the same
 * value and cannot panic: a literal, a variable or len of a variable
 * (opt_comploop.c). */
bool ir_repeatable(struct ir_node *n);
/* Whether int expression n is such a bound or a sum or difference of them
 * (`n - 1`, `len(a) + k`): evaluated again with its variables unchanged it
 * gives the same value, and it panics (an overflow) only where its first
 * evaluation already did. */
bool ir_repeatable_sum(struct ir_node *n);
/* `0 <= lo and lo < hi and hi - lo <= ROOM` (lo, hi repeatable; ROOM the
 * elements brt_arr_room makes first, 16 MiB of 8-byte ones): a range whose
 * array may be allocated whole before its first element (opt_comploop.c). */
struct ir_node *ir_fits_room(struct ir_node *lo, struct ir_node *hi, struct loc at);
/* Whether n is float arithmetic and the math of floats over one float sum
 * or product over a range (no filter, one clause, not par: *fold, NULL if
 * none), literals and variables: nothing that can panic or has an effect,
 * so the fold may run first; with reads, also element reads of variables
 * evaluated after the fold (x[i][j]: their panic comes after its either
 * way) (opt_comploop.c). */
bool ir_around_fold(struct ir_node *n, struct ir_node **fold, bool reads);
/* `all(len(xs[q]) == l for q in 0..len(xs))`: every row of xs (an array
 * of arrays) has length l; it cannot panic (opt_comploop.c). */
struct ir_node *ir_rows_of_length(struct ir_program *ir, struct ir_node *xs, struct ir_var *l);
/* `let l = len(xs[0]) if 0 < len(xs) else 0` into out, and the test that
 * every row of xs has that length (ir_rows_of_length): neither can panic
 * (opt_comploop.c). */
struct ir_node *ir_rows_alike(struct ir_program *ir, struct ir_node *out, struct ir_node *xs, struct ir_var *l);
/* Such a fold as `var s = 0.0 (1.0); for k in lo..hi: s = s op E` appended
 * to body (a left fold from the same start: the same bits); a read of s
 * (opt_comploop.c). */
struct ir_node *ir_fold_as_loop(struct ir_program *ir, struct ir_node *body, struct ir_node *fold);
/* The calls of functions holding a loop that the statements of block b (a
 * loop's body in f) evaluate first, written in place as opt_inline.c writes
 * a call in a loop; how many (opt_inline.c, for opt_comploop.c). */
int ir_inline_loop_calls(struct ir_program *ir, struct ir_fn *f, struct ir_node *b);
void opt_unswitch(struct ir_program *ir); /* opt_split.c */
void opt_split(struct ir_program *ir);    /* opt_split.c */
/* Whether opt_unswitch or opt_split would rewrite loop l (opt_split.c). */
bool opt_split_pays(struct ir_program *ir, struct ir_node *l);
/* A deep copy of n in which every variable n defines is a fresh one (opt_split.c). */
struct ir_node *ir_copy_fresh(struct ir_program *ir, struct ir_node *n);
void opt_fission(struct ir_program *ir); /* opt_fission.c */
/* Whether expression e has no effect and reads only its variables' values
 * (*panics: it may panic: int arithmetic that may overflow, a conversion
 * that may fail, an index x[i] for which inside(x[i], ctx) is false);
 * float arithmetic, the math of floats, comparisons, bit operations, len
 * of a variable (opt_fission.c, opt_expand.c). */
bool ir_pure_value(const struct ir_node *e, bool (*inside)(const struct ir_node *ix, const void *ctx), const void *ctx,
                   bool *panics);
/* Whether statement n defines v: a let of it or a loop over it. */
bool ir_defines(const struct ir_node *n, struct ir_var *v);
/* The groups of range loop L's body (a bit per statement each: statements
 * joined when one names a variable the other defines or assigns), in the
 * order of their first statements; how many (0: L's body is not lets and
 * assignments, or has over 31 statements). */
int ir_fold_groups(struct ir_node *L, unsigned *groups);
/* The statements of block b whose bit in mask is set (keep) or clear. */
void ir_filter_block(struct ir_node *b, unsigned mask, bool keep);
void opt_expand(struct ir_program *ir);  /* opt_expand.c */
void opt_parfor(struct ir_program *ir);  /* opt_parfor.c */
void opt_fuseloops(struct ir_program *ir); /* opt_fuseloops.c */
void opt_scratch(struct ir_program *ir); /* opt_scratch.c */
void opt_carry(struct ir_program *ir);   /* opt_carry.c */
/* n as v + c: a variable v plus or minus int literals (v NULL: n is the
 * literal c), |c| below 2^60 (opt_loops.c; opt_carry.c). */
bool ir_var_plus(const struct ir_node *n, struct ir_var **v, int64_t *off);
void opt_hoist(struct ir_program *ir);   /* opt_hoist.c */
void opt_version(struct ir_program *ir); /* opt_version.c */
/* Whether pass `name` runs (--opt did not turn it off) (opt.c). */
bool opt_pass_on(const char *name);
void opt_cursor(struct ir_program *ir);  /* opt_cursor.c */
enum { IR_MAX_CURSORS = 8 };              /* the most cursor blocks, one inside another */
void opt_prefetch(struct ir_program *ir); /* opt_prefetch.c */
void opt_records(struct ir_program *ir);  /* opt_records.c */
void opt_bins(struct ir_program *ir);     /* opt_bins.c */
/* Whether opt_version.c rewrites loop s as a versioned if (a sequential guarded range
 * or induction loop, not a swapped nest's nor a hoisting nest's inner loop: around,
 * the loop directly around it, or NULL; a sequential hoisting nest, guards_outside;
 * or a sequential swapped or jammed nest, not a jam's fast copy), or (a loop on the pool that would be
 * one were it sequential) gives it a chunk. */
bool ir_versions(const struct ir_node *s, const struct ir_node *around);
/* Whether evaluating n has no effect but its value and a panic (opt_parfor.c's
 * facts: calls of functions it found pure). */
bool ir_effect_free(const struct ir_node *n);
/* Sets (set) or clears every function's pool_safe facts (opt_parfor.c). */
void ir_pure_calls(struct ir_program *ir, bool set);
void opt_move(struct ir_program *ir);    /* opt_move.c */
/* Whether expressions a and b are the same, node by node (ir.c): literals,
 * variables, module constants, not, and, or and binary operators of such
 * (IR_SAME_TERMS), and as allow adds: len of a variable, only + - * among
 * the binary operators, any builtin of one argument, elements, fields,
 * if-else, len, min, max and range(lo, hi, step) (both NULL: the same), or
 * conversions and unary operators. One
 * equality for every pass: each says which nodes its terms may hold. */
enum {
    IR_SAME_TERMS = 0,
    IR_SAME_LEN_VAR = 1 << 0,  /* len(v) of a variable v */
    IR_SAME_ARITH = 1 << 1,    /* binary operators + - * only: no division, no comparison */
    IR_SAME_BUILTIN1 = 1 << 2, /* any builtin of one argument */
    IR_SAME_LOADS = 1 << 3,    /* elements, fields, if-else, len, min, max, range(lo, hi, step) */
    IR_SAME_CONV = 1 << 4,     /* conversions and unary operators */
};
bool ir_same_expr(const struct ir_node *a, const struct ir_node *b, unsigned allow);
/* Expressions standing for variables: vals[i] in place of vars[i]. */
struct ir_subst {
    struct ir_var **vars;
    struct ir_node **vals;
    int n;
};
/* Whether a, with sub's expressions in place of its variables, is b (as
 * ir_same_expr): what a comparison's side reads after assignments. */
bool ir_same_after(const struct ir_node *a, const struct ir_node *b, unsigned allow, const struct ir_subst *sub);
/* The same pure term: literals, variables and the operators of ints and
 * bools over them. */
#define ir_same_term(a, b) ir_same_expr((a), (b), IR_SAME_TERMS)
/* The least work, in IR nodes, worth a split on the pool; the work of one
 * iteration of a loop body by ir_par_work's guess; a fold loop with no loop
 * inside is marked when its body's is at least FOLD_WORK (opt_parfor.c). */
#define IR_PAR_GRAIN 16384
#define FOLD_WORK 24
int64_t ir_par_work(struct ir_node *body);
/* The least iteration count worth a split on the pool, for a loop or
 * comprehension whose one iteration is body (opt_parfor.c's marks). */
int64_t ir_par_least(struct ir_node *body);
/* Whether statement s (anything in it) assigns v, pushes to it or changes it
 * by a method, or (stores) stores into it (opt_counted.c). */
bool ir_writes(struct ir_node *s, struct ir_var *v, bool stores);
/* Whether statement s reads v, a for loop's bounds included (opt_counted.c). */
bool ir_stmt_reads(struct ir_node *s, struct ir_var *v);

/* Helpers shared by lower.c, ir.c and the emitters. */
/* Small builders for the passes (ir.c): a read of v; an int literal; a op b of
 * type t (optype a's); a and b (either NULL: the other); statement op of v = a. */
struct ir_node *ir_mk_var(struct ir_var *v, struct loc loc);
struct ir_node *ir_mk_int(int64_t v, struct loc loc);
struct ir_node *ir_mk_bin(enum op op, struct ir_node *a, struct ir_node *b, struct type *t);
/* The start of a sum (0) or product (1) of ints, u64 or floats, as a literal. */
struct ir_node *ir_mk_start(enum reducer r, struct type *t, struct loc loc);
struct ir_node *ir_mk_and(struct ir_node *a, struct ir_node *b);
struct ir_node *ir_mk_len(struct ir_node *a); /* len(a) */
struct ir_node *ir_mk_stmt(int op, struct ir_var *v, struct ir_node *a, struct loc loc);
struct ir_node *ir_new(int op, struct loc loc, struct type *type); /* op: an ir_expr_op or ir_stmt_op */
void ir_push_kid(struct ir_node *n, struct ir_node *kid);
/* A deep copy of n: every child, a generator's source, element, filter and
 * clauses. The hooks (k NULL, or any of them NULL: none) say what changes:
 * read: a replacement for a read of a variable (IR_VAR), else NULL to copy it;
 * rename: the variable a copied node names (defines or reads) instead of v;
 * done: called on each copy once its children are copied.
 * Facts of the optimizer are copied as they are (run copies before them). */
struct ir_copier {
    struct ir_node *(*read)(struct ir_copier *k, const struct ir_node *var_read);
    struct ir_var *(*rename)(struct ir_copier *k, struct ir_var *v);
    void (*done)(struct ir_copier *k, struct ir_node *copy);
};
struct ir_node *ir_copy(struct ir_copier *k, const struct ir_node *n);
/* A deep copy of n (ir_copy) naming `to` wherever n names `from` (opt_counted.c). */
struct ir_node *ir_copy_renamed(const struct ir_node *n, struct ir_var *from, struct ir_var *to);
/* The variables that elem and filter of a reduction or comprehension read
 * from outside them, ordered by id (gen_var excluded). */
void ir_free_vars(struct ir_node *rn, struct ir_var ***out, int *nout);
/* Whether reduction rn is a sequential reduce(f, start, gen) whose combine
 * is the built-in max(l, r) or min(l, r) of its two values, in that order,
 * of ints, u64s or floats: a min or max fold from start (opt_extremes.c
 * writes loops as such folds; the C emitter runs them in lanes). *red:
 * RED_MIN or RED_MAX. */
bool ir_minmax_combine(const struct ir_node *rn, enum reducer *red);
/* The statement block b holds through blocks of one statement each (b
 * itself when it is none; NULL for NULL). */
struct ir_node *ir_only_stmt(const struct ir_node *b);
/* Calls f on each direct child of n: a, b, c, the kids, the bounds or array
 * of its iter and of each clause's, elem, filter and key (a post-order walker
 * that rewrites in place calls this, then handles n). */
void ir_each_child(struct ir_node *n, void (*f)(struct ir_node *));
/* Calls f on n's children and on the copies the emitter writes beside them:
 * a loop on the pool's chunk (its versioned copies, opt_version.c) and a
 * guarded generator's fast_gen; a walk through it meets every place a node
 * is written (opt_version.c, opt_bins.c). */
void ir_each_written(struct ir_node *n, void (*f)(struct ir_node *));
/* Whether statement s uses array v at least once and only by pushes of a
 * whole array made unique before it (`v.push(E)`, unique_steps set): no
 * read, assignment, store or other push (a cursor's statement, opt_cursor.c). */
bool ir_only_pushes(struct ir_node *s, struct ir_var *v);
/* Recomputes every capture list in n (a pass changed which variables are read). */
void ir_recapture(struct ir_node *n);
/* Calls f on each variable n (or anything in it) assigns, pushes onto, or
 * whose array a method may resize (v.pop(), v[i].sort(): builtin_mutates). */
void ir_each_change(struct ir_node *n, void (*f)(struct ir_var *));
/* f on fn's parameters (fn may be NULL) and every variable body names or
 * defines, once per mention. */
void ir_each_var(struct ir_fn *fn, struct ir_node *body, void (*f)(struct ir_var *));
/* Whether n, or anything in it, calls a method that changes the array of
 * variable v in place (v.pop(), v[i].sort(): builtin_mutates). */
bool ir_mutates(struct ir_node *n, struct ir_var *v);
/* The number of nodes in n: an expression's or a statement's size. */
int ir_size(const struct ir_node *n);
/* Whether n is a builtin of float arguments with a float result that has no
 * effect and cannot panic: abs, min and max of floats and the math functions
 * (sqrt, exp, ...: IEEE gives NaN or an infinity, never a panic); its value
 * depends on its arguments alone, so it may run at another time. */
bool ir_float_math(const struct ir_node *n);
/* Whether value e neither panics nor does anything, and reads nothing but
 * the variables and elements it names: variables, literals, float + - * /
 * and negation, int-to-float conversions, the math of floats (ir_float_math),
 * len of a variable; as facts allows, int + - * proved not to
 * overflow (no_overflow) and elements of a variable proved in bounds
 * (in_bounds), facts that hold where e is, not necessarily elsewhere; and
 * any node also(node, ctx) accepts (also may be NULL). One predicate for
 * every pass that moves or speculates a value (opt_bins.c,
 * opt_cover.c, opt_hoist.c). */
enum { IR_QUIET_NO_OVERFLOW = 1 << 0, IR_QUIET_IN_BOUNDS = 1 << 1, IR_QUIET_FACTS = 3 };
bool ir_quiet(const struct ir_node *e, unsigned facts, bool (*also)(const struct ir_node *e, const void *ctx),
              const void *ctx);
/* Whether n, or anything in it, reads variable v. */
bool ir_reads(struct ir_node *n, struct ir_var *v);
/* Whether n reads v other than as the element v[i] (i a variable) or its
 * length. */
bool ir_reads_except_at(struct ir_node *n, struct ir_var *v, struct ir_var *i);
/* Whether statement s, run any number of times, keeps unique the arrays
 * that the first `steps` steps of any path from v reach into (v itself, v[i],
 * v[i][j], ... any indices; a field step's struct counts as a step): it never
 * assigns v or a variable of path, reads one of those arrays as a value
 * (only indexes or measures it), stores over one, or pushes into v
 * (opt_unique.c's hoisting condition and ir_verify's check of it). */
bool ir_keeps_unique(struct ir_node *s, struct ir_var *v, int steps, struct ir_node **path, int npath);
/* Whether for-array loop s is over range(lo, hi, step) of ints, not written
 * in place of a call: the C emitter computes its values one by one
 * (emit_loops.c), and opt_loops.c may guard it as a range loop. */
bool ir_range_values(const struct ir_node *s);
/* range(lo, hi, step) of int (a BI_RANGE_STEP call r) with lo a literal at
 * least 0, step a literal at least 1 and hi made of variables, literals,
 * len of a variable and int arithmetic: its values are lo + k * step for k
 * in 0 .. count, count (hi - lo - 1) / step + 1 where lo < hi, else 0, none
 * of which overflows (0 <= lo < hi). ir_step_count reads hi twice, both
 * before the first value, as range's arguments were: a panic in hi is the
 * one they gave. */
bool ir_step_literal(const struct ir_node *r);
struct ir_node *ir_step_count(const struct ir_node *r);
struct ir_node *ir_step_value(const struct ir_node *r, struct ir_var *k, struct loc at);
/* Whether for-array loop s reads its array from a variable, not as its last
 * use (moved), that its body never assigns, stores into, pushes into or
 * changes by a method (a unique statement comes only before a loop that
 * stores): the variable holds the array, its length and its elements for
 * the whole loop, so the C emitter takes no snapshot of it (emit_loops.c). */
bool ir_source_held(struct ir_node *s);
/* The range loop that is range loop s's whole body (blocks of one statement
 * looked through, and the unique statements before it: opt_unique.c's of
 * the row a store in it reaches), or NULL. Its guards, if any, are what guards_outside
 * tests before s, unless a later pass swapped the nest, put a loop on the
 * pool or dropped every guard (opt_range.c): then the nest is written as
 * that pass says. */
struct ir_node *ir_guards_outside_of(const struct ir_node *s);
/* Where loop guard g names variable v, the outer loop of a nest whose
 * inner loop g guards (guards_outside): 0 nowhere; 1 only as the index of
 * the last row, the row holding the index (a row guard m[v + c][k], a
 * path u[i][v + c][k]: a column of rows along the outer range, every one
 * holding the inner range); 2 only as the one index of a fixed guard
 * (m[r][v + c]: the index over the outer range); -1 elsewhere, more than
 * once or in a guard with a base (the guard depends on v otherwise: not
 * tested outside). */
int ir_guard_outer(const struct ir_guard *g, const struct ir_var *v);
/* The versioned if of a rows_only test that is range loop s's whole body
 * (as ir_guards_outside_of looks), or NULL: a versioned nest's fast copy
 * whose inner loop tests each row of its columns (opt_version.c). */
struct ir_node *ir_rows_if_of(const struct ir_node *s);
/* A loop opt_prefetch.c wrote twice, if [runs long](its bounds): the loop
 * prefetching else the loop as written: the if's loop as written (its
 * else-branch, whose bounds, views and marks the copies share); else s. */
bool ir_runs_long_if(const struct ir_node *s);
struct ir_node *ir_loop_of(struct ir_node *s);
/* A versioned if's then-branch b: the fast copy (ir_loop_of), or a block of
 * what runs before it (opt_version.c: first_reads) and then that copy. */
struct ir_node *ir_fast_of(struct ir_node *b);
/* Whether unique statement op made unique the arrays of s's first unique_steps steps. */
bool ir_unique_covers(const struct ir_node *op, const struct ir_node *s);
/* Whether store s reaches its slot through one index and then only field
 * steps (xs[i] = v, ps[i].x = v, ps[i].at.x = v): its in_range_by and
 * in_bounds speak of that index. */
bool ir_store_one_index(const struct ir_node *s);
/* An IR_AND marked one_compare: its a (a variable) and b, and whether the
 * test is a <= b (else a < b). */
bool ir_one_compare(const struct ir_node *n, struct ir_node **a, struct ir_node **b);

#endif
