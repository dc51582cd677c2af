/*
 * brine.h: the compiler's one shared header, a table of contents.
 *
 * The pipeline (main.c, compile_file):
 *   source text -> lexer.re (tokens, INDENT/DEDENT) -> parser.y (AST)
 *   -> check.c (names, types; annotates the AST in place)
 *   -> lower.c (typed AST -> IR, ir.h) -> ir_verify (ir.c)
 *   -> optimize (opt.c: passes that remove provably redundant checks)
 *   -> emit_program (emit_c.c: IR -> C text and CUDA kernels)
 *   -> C back end (backend.c: libtcc or $CC)
 *
 * Memory: everything the compiler allocates comes from one arena per
 * compilation (arena.c) and is never freed piece by piece.
 * Errors: a user error prints a diagnostic in SPEC section 10's layout and
 * exits 1; the checker recovers and reports up to 20 errors a run (diag.c),
 * the lexer and the parser the first one. A bug in brine calls
 * internal_error(), which exits 70.
 */
#ifndef BRINE_H
#define BRINE_H

#include <setjmp.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "brine_math.h" /* BRT_MATH: the math functions, one table with the runtime */

#define BRINE_VERSION "0.1.0"
#define MAX_NESTING 256 /* SPEC section 2: deeper nesting is a compile error */
#define MAX_CHAIN 2000  /* operators in one flat chain (a + b + ...): not nesting, but bounded */

/* ---- arena.c: memory ---------------------------------------------------- */

void *xmalloc(size_t size);              /* dies on out-of-memory (exit 70) */
void *xrealloc(void *p, size_t size);
void *arena_alloc(size_t size);          /* zeroed, lives until exit */
char *arena_strndup(const char *s, size_t len);
char *arena_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* A growable text buffer (malloc'ed, always NUL-terminated): the emitters
 * build their C and CUDA text in these. */
struct buf {
    char *p;
    size_t len, cap;
};
void bputn(struct buf *b, const char *s, size_t n);
void bputs(struct buf *b, const char *s);
void bput_int(struct buf *b, long v);
void bprintf(struct buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The one growth policy for arrays: the capacity after cap that holds need
 * elements (doubling, from 16). VEC_RESERVE makes room for need elements
 * in a malloc'ed array ptr of capacity cap (cap of any integer type; both
 * are lvalues, evaluated more than once); VEC_GROW makes room for one more
 * after len. ARENA_GROW is the same for arena arrays: a new block, the
 * old one left behind. Thread-safe apart from ARENA_GROW. */
size_t grow_cap(size_t cap, size_t need);
void *arena_grow(const void *items, size_t len, size_t cap, size_t elem_size);
#define VEC_RESERVE(ptr, cap, need)                                      \
    do {                                                                 \
        if ((size_t)(need) > (size_t)(cap)) {                            \
            size_t vec_cap_ = grow_cap((size_t)(cap), (size_t)(need));   \
            (ptr) = xrealloc((ptr), vec_cap_ * sizeof *(ptr));           \
            (cap) = vec_cap_;                                            \
        }                                                                \
    } while (0)
#define VEC_GROW(ptr, len, cap) VEC_RESERVE(ptr, cap, (size_t)(len) + 1)
#define ARENA_GROW(ptr, len, cap)                                                 \
    do {                                                                          \
        if ((size_t)(len) >= (size_t)(cap)) {                                     \
            size_t vec_cap_ = grow_cap((size_t)(cap), (size_t)(len) + 1);         \
            (ptr) = arena_grow((ptr), (size_t)(len), vec_cap_, sizeof *(ptr));    \
            (cap) = vec_cap_;                                                     \
        }                                                                         \
    } while (0)

/* A growable array of pointers, arena-backed: vec_push(&v, p). */
struct vec {
    void **items;
    int len, cap;
};
void vec_push(struct vec *v, void *item);

/* ---- util.c: shared helpers (thread-safe: malloc, never the arena) ------- */

/* Reads a whole file into a malloc'ed buffer with a NUL after its len_out
 * bytes (free() it); NULL with errno set when it cannot be opened or read. */
char *read_file(const char *path, size_t *len_out);
/* Splits s into words on spaces and tabs, no quoting ($CC, "# args:"):
 * *out a malloc'ed array of n malloc'ed words (never NULL). Returns n. */
int split_words(const char *s, char ***out);

/* A hash map from byte-string keys to pointers (malloc'ed; zero-initialise
 * it, map_free it when done, or let it live until exit). The map copies
 * each key, so a key may be a name, a pointer's identity (the _ptr pair:
 * the bytes of the pointer) or any struct without padding (a place). A
 * missing key reads as NULL, so store integers as (void *)(intptr_t)id with
 * id >= 1. Nothing may print in map_next's order: it is the table's. */
struct map_entry {
    const void *key;   /* NULL: an empty slot */
    size_t klen;
    uint64_t hash;
    void *val;
};
struct map {
    struct map_entry *e;
    size_t cap, len;
};
void *map_get(const struct map *m, const void *key, size_t klen);
void map_put(struct map *m, const void *key, size_t klen, void *val); /* adds or replaces */
void *map_get_str(const struct map *m, const char *key);
void map_put_str(struct map *m, const char *key, void *val);
void *map_get_ptr(const struct map *m, const void *key);
void map_put_ptr(struct map *m, const void *key, void *val);
/* Every entry, as for (size_t i = 0; (e = map_next(m, &i));) */
struct map_entry *map_next(const struct map *m, size_t *i);
void map_free(struct map *m);

/* The one process spawner, never a shell. stdin is /dev/null; stdout and
 * stderr go to the files out and err (truncated; NULL: ours), or with
 * to_fd both onto fd (a pipe's write end). Returns 0 or an errno. */
struct spawn {
    const char *path;    /* the program; NULL: argv[0] looked up on PATH */
    char *const *argv;   /* NULL-terminated */
    char *const *env;    /* NULL: this process's environment */
    const char *cwd;     /* NULL: ours */
    const char *out, *err;
    bool to_fd;
    int fd;
};
int spawn_proc(const struct spawn *sp, pid_t *pid);

/* A unified diff (diff -u, 3 lines of context) from a to b, appended to
 * out; nothing when they are the same. DIFF_REPORT (brine test's reports):
 * each line indented 4, control bytes escaped, long lines cut, at most 40
 * lines. DIFF_PATCH (brine fmt --check): the lines exactly, with "\ No
 * newline at end of file" where diff writes it, for patch(1); the caller
 * writes the ---/+++ lines. */
enum diff_form { DIFF_REPORT, DIFF_PATCH };
void text_diff(struct buf *out, const char *a, size_t na, const char *b, size_t nb, enum diff_form form);
/* The first max lines of s as context lines of a report. */
void report_lines(struct buf *out, const char *s, size_t len, int max);
/* Waits for pid; with timeout_s > 0 kills it (SIGKILL) after that many
 * seconds and sets *timed_out. *status: the exit status, or -signal. False
 * with errno set when waitpid fails. */
bool wait_proc(pid_t pid, int timeout_s, bool *timed_out, int *status);

/* ---- diag.c: sources, locations, diagnostics --------------------------- */

/* Every token, AST node and IR instruction carries one. Lines and columns
 * are 1-based; columns count bytes; end_col is exclusive. inl: the place
 * is in a function's body written in place of a call (opt_inline.c), the
 * call n of the program's table (ir_program.sites[n - 1]); 0: none. */
struct loc {
    int file;
    int line, col;
    int end_line, end_col;
    int inl;
};

struct source {
    const char *name;  /* as given on the command line (or stdlib path) */
    const char *text;  /* NUL-terminated, followed by extra NUL padding */
    size_t len;
    int *line_starts;  /* offset of each line's first byte */
    int nlines;
    bool ascii;        /* no byte above 0x7f: a byte column is a character column */
};

int source_add(const char *name, const char *text, size_t len); /* -> file id */
const struct source *source_get(int file);
struct loc loc_span(struct loc from, struct loc to); /* from's start, to's end */

/* Diagnostics in colour: COLOR_AUTO (the default) when stderr is a terminal
 * and NO_COLOR is unset or empty; --color=always|never decides instead. */
enum color_mode { COLOR_AUTO, COLOR_ALWAYS, COLOR_NEVER };
void diag_set_color(enum color_mode mode);
/* "error: MSG", the --> line, the source line and the ^^^ underline. With
 * a recovery point pushed it is kept and control jumps back to that point;
 * without one, everything kept is printed (diag_finish) and brine exits 1. */
_Noreturn void error_at(struct loc loc, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* error_at, then "note: NOTE" with its own --> line and underline at
 * note_loc (where the thing the error is about began). */
_Noreturn void error_note_at(struct loc loc, struct loc note_loc, const char *note, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* "warning: MSG", kept for diag_finish; an error under --deny-warnings. */
void warning_at(struct loc loc, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void diag_set_deny_warnings(bool deny);
/* A recovery point: setjmp(c.jb) returns 1 when an error (or
 * diag_abandon) came back to it, which has popped it already; on the way
 * out without an error, pop it. Innermost first. */
struct diag_catch {
    jmp_buf jb;
    struct diag_catch *prev;
};
void diag_catch_push(struct diag_catch *c);
void diag_catch_pop(struct diag_catch *c);
/* Back to the recovery point without a message: what failed follows from an
 * error already reported (a name whose declaration had an error). */
_Noreturn void diag_abandon(void);
int diag_errors(void); /* errors kept so far */
/* Prints the errors kept, in source order (at most 20, a blank line between
 * them, "could not compile 'FILE' due to N previous errors" after two or
 * more), and exits 1; with no errors, prints the warnings and returns. */
void diag_finish(void);
/* Diagnostics as data, for the language server (lsp.c): with a sink set,
 * diag_finish calls it (once; it must not return: it exits, or jumps out)
 * instead of printing and exiting, and diag_records copies out what was
 * kept so far, in source order (at most max; returns how many). The texts
 * belong to diag.c. */
struct diag_record {
    bool error;           /* else a warning */
    struct loc loc;
    const char *message;  /* "mismatched types: ..." without "error: " */
    const char *note;     /* NULL, or the note shown at note_loc */
    struct loc note_loc;
};
void diag_set_sink(void (*sink)(void));
int diag_records(struct diag_record *out, int max);
/* For errors that have no place (missing file): "brine: MSG", exit 2. */
_Noreturn void usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* A misused command line: "brine: MSG (see brine --help)", exit 2. */
_Noreturn void command_line_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
_Noreturn void internal_error_at(const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
#define internal_error(...) internal_error_at(__FILE__, __LINE__, __VA_ARGS__)

/* ---- types (check.c) ---------------------------------------------------- */

#define TYPE_KINDS(X) \
    X(T_INT, "int")   \
    X(T_I128, "i128") \
    X(T_U64, "u64")   \
    X(T_FLOAT, "float") \
    X(T_BOOL, "bool") \
    X(T_STR, "str")   \
    X(T_ARRAY, "array") \
    X(T_TUPLE, "tuple") \
    X(T_FN, "function") \
    X(T_VOID, "nothing") \
    X(T_OPTION, "Option")

enum type_kind {
#define X(k, s) k,
    TYPE_KINDS(X)
#undef X
};

/* Types are interned: two types are equal exactly when their pointers are. */
struct type {
    enum type_kind kind;
    struct type *elem; /* T_ARRAY: the element type; T_FN: the result (ty_void for none) */
    /* T_TUPLE: the field types, in order (two or more). T_OPTION: two,
     * bool (Some) and the value's type: its C struct is {bool, T}. T_FN:
     * the parameter types (nfields of them, maybe none) */
    struct type **fields;
    int nfields;
    /* A struct is a T_TUPLE with a name (nominal: one type per declaration,
     * never interned with tuples) and field names; NULL for a tuple. */
    const char *sname;
    const char **fnames;
    struct loc sloc;      /* the declaration, or the first use until declared */
    bool sdefined;        /* its `struct` declaration was parsed */
};

extern struct type *ty_int, *ty_i128, *ty_u64, *ty_float, *ty_bool, *ty_str, *ty_void;
struct type *type_array(struct type *elem);
struct type *type_tuple(struct type **fields, int n); /* interned; n >= 2 */
struct type *type_fn(struct type **params, int n, struct type *ret); /* interned; ret ty_void for none */
struct type *type_option(struct type *inner);          /* Option[inner], interned */
/* The struct type named name (made, undeclared, on first use); NULL-safe
 * lookup without making: type_find_struct. type_structs: all made so far. */
struct type *type_struct(const char *name, struct loc use);
struct type *type_find_struct(const char *name);
extern struct vec type_structs;
const char *type_name(struct type *t); /* "int", "[[float]]" */
bool type_is_integer(struct type *t);  /* int, i128, u64 */
bool type_is_numeric(struct type *t);  /* integers and float */
bool type_is_ref(struct type *t);      /* str, arrays and tuples holding them: values that own references */
bool type_is_ordered(struct type *t);  /* < <= > >= work: numbers, str, tuples of ordered fields */

/* ---- operators, builtins, reducers: one table each ---------------------- */

/* Operators. Every pass reads its cases from this one table (docs/internals.md):
 *   class   what kind of operator it is (OPC_*)
 *   c       the C operator of the plain form: floats, bool, the bitwise
 *           operators of int and u64, comparisons, and the wrapped lane and
 *           GPU forms (float % is fmod, the one exception)
 *   stem    the checked integer form: brt_<stem>_<i64|u64|i128>(a, b, place)
 *           in the runtime, brk_<stem>_<i64|u64>(st, a, b) in the GPU
 *           prelude; for the bitwise operators the i128 form
 *           brt_<stem>_i128(a, b); NULL: none
 *   domain  what it works on, as the checker's messages say it */
enum op_class { OPC_ARITH, OPC_BITS, OPC_SHIFT, OPC_CMP, OPC_UNARY, OPC_NONE };
#define OPS(X)                                                                              \
    X(OP_ADD, "+", OPC_ARITH, "+", "add", "numbers, str and arrays")                        \
    X(OP_SUB, "-", OPC_ARITH, "-", "sub", "numbers")                                        \
    X(OP_MUL, "*", OPC_ARITH, "*", "mul", "numbers, str * int and [T] * int")               \
    X(OP_DIV, "/", OPC_ARITH, "/", "div", "numbers")                                        \
    X(OP_MOD, "%", OPC_ARITH, "%", "mod", "numbers")                                        \
    X(OP_BAND, "&", OPC_BITS, "&", "and", "integer types and bool")                         \
    X(OP_BOR, "|", OPC_BITS, "|", "or", "integer types and bool")                           \
    X(OP_BXOR, "^", OPC_BITS, "^", "xor", "integer types and bool")                         \
    X(OP_SHL, "<<", OPC_SHIFT, "<<", "shl", "integer types")                                \
    X(OP_SHR, ">>", OPC_SHIFT, ">>", "shr", "integer types")                                \
    X(OP_EQ, "==", OPC_CMP, "==", NULL, "values of one type")                               \
    X(OP_NE, "!=", OPC_CMP, "!=", NULL, "values of one type")                               \
    X(OP_LT, "<", OPC_CMP, "<", NULL, "numbers and str")                                    \
    X(OP_LE, "<=", OPC_CMP, "<=", NULL, "numbers and str")                                  \
    X(OP_GT, ">", OPC_CMP, ">", NULL, "numbers and str")                                    \
    X(OP_GE, ">=", OPC_CMP, ">=", NULL, "numbers and str")                                  \
    X(OP_NEG, "-", OPC_UNARY, "-", "neg", "numbers")                                        \
    X(OP_BNOT, "~", OPC_UNARY, "~", "not", "integer types")                                 \
    X(OP_NONE, "=", OPC_NONE, NULL, NULL, "?")

enum op {
#define X(k, s, cls, c, stem, dom) k,
    OPS(X)
#undef X
};
extern const char *const op_spelling[];
extern const enum op_class op_class[];
extern const char *const op_c[];      /* the table's c column */
extern const char *const op_stem[];   /* the table's stem column */
extern const char *const op_domain[]; /* the table's domain column */
#define op_is_compare(op) (op_class[op] == OPC_CMP)
#define op_is_ordering(op) (op_is_compare(op) && (op) != OP_EQ && (op) != OP_NE)

/* Reducers: SPEC section 5. */
#define REDUCERS(X) X(RED_SUM, "sum") X(RED_PRODUCT, "product") X(RED_MIN, "min") \
    X(RED_MAX, "max") X(RED_ANY, "any") X(RED_ALL, "all")
enum reducer {
#define X(k, s) k,
    REDUCERS(X)
#undef X
};
extern const char *const reducer_name[];

/* Builtin functions, module functions of `os`, and methods: SPEC sections 3,
 * 4 and 11. The checker resolves every call to one of these or to a user
 * function. Columns:
 *   kind   BK_FN a function (print(x)), BK_OS a function of os (os.clock()),
 *          BK_WORLD a function of world (world.rank(), docs/world.md),
 *          BK_METHOD a method (x.wrapping_add(y)), BK_SYNTAX a form the
 *          parser makes (assert, slices), which no program can call by name
 *   sig    SIG_FLOATS: every argument and the result are float, and the C
 *          form is the runtime function brt_<name> (the math functions);
 *          SIG_OWN: the checker and the emitters give it its own case
 *   arity  the number of arguments (methods: besides the receiver)
 *   gpu    1 when a GPU kernel may compute it: exact on every machine (the
 *          emitters' GPU cases say how), 0 when it stays on the CPU (the
 *          conversions int(), float(), u64() are IR conversions by then)
 * The math functions come from the runtime's own table, BRT_MATH in
 * runtime/brine_math.h (name, arity, gpu), so adding one there adds it everywhere:
 * the enum is BI_<name> (BI_sqrt), the spelling its name. */
enum builtin_kind { BK_FN, BK_OS, BK_WORLD, BK_METHOD, BK_SYNTAX, BK_ITER };
enum builtin_sig { SIG_OWN, SIG_FLOATS };
#define BI_MATH_ROW(X, name, arity, gpu) X(BI_##name, #name, BK_FN, SIG_FLOATS, arity, gpu)
#define BUILTINS(X)                                                                        \
    X(BI_PRINT, "print", BK_FN, SIG_OWN, -1, 0)                                            \
    X(BI_LEN, "len", BK_FN, SIG_OWN, 1, 1)                                                 \
    X(BI_STR, "str", BK_FN, SIG_OWN, 1, 0)                                                 \
    X(BI_INT, "int", BK_FN, SIG_OWN, 1, 0)                                                 \
    X(BI_FLOAT, "float", BK_FN, SIG_OWN, 1, 0)                                             \
    X(BI_I128, "i128", BK_FN, SIG_OWN, 1, 0)                                               \
    X(BI_U64, "u64", BK_FN, SIG_OWN, 1, 0)                                                 \
    X(BI_ABS, "abs", BK_FN, SIG_OWN, 1, 1)                                                 \
    X(BI_MIN2, "min", BK_FN, SIG_OWN, 2, 1)                                                \
    X(BI_MAX2, "max", BK_FN, SIG_OWN, 2, 1)                                                \
    BRT_MATH(BI_MATH_ROW, X)                                                               \
    X(BI_OS_ARGS, "os.args", BK_OS, SIG_OWN, 0, 0)                                         \
    X(BI_OS_THREAD_COUNT, "os.thread_count", BK_OS, SIG_OWN, 0, 0)                         \
    X(BI_OS_CLOCK, "os.clock", BK_OS, SIG_OWN, 0, 0)                                       \
    X(BI_OS_EXIT, "os.exit", BK_OS, SIG_OWN, 1, 0)                                         \
    X(BI_OS_GETENV, "os.getenv", BK_OS, SIG_OWN, 1, 0)                                     \
    X(BI_WORLD_RANK, "world.rank", BK_WORLD, SIG_OWN, 0, 0)                                \
    X(BI_WORLD_SIZE, "world.size", BK_WORLD, SIG_OWN, 0, 0)                                \
    X(BI_WORLD_BARRIER, "world.barrier", BK_WORLD, SIG_OWN, 0, 0)                          \
    X(BI_WORLD_BROADCAST, "world.broadcast", BK_WORLD, SIG_OWN, 2, 0)                      \
    X(BI_WORLD_GATHER, "world.gather", BK_WORLD, SIG_OWN, 1, 0)                            \
    /* the scalar collectives; with a generator, world.sum etc. are N_REDUCE */           \
    X(BI_WORLD_SUM, "world.sum", BK_WORLD, SIG_OWN, 1, 0)                                  \
    X(BI_WORLD_PRODUCT, "world.product", BK_WORLD, SIG_OWN, 1, 0)                          \
    X(BI_WORLD_MIN, "world.min", BK_WORLD, SIG_OWN, 1, 0)                                  \
    X(BI_WORLD_MAX, "world.max", BK_WORLD, SIG_OWN, 1, 0)                                  \
    X(BI_WORLD_ANY, "world.any", BK_WORLD, SIG_OWN, 1, 0)                                  \
    X(BI_WORLD_ALL, "world.all", BK_WORLD, SIG_OWN, 1, 0)                                  \
    X(M_WRAPPING_ADD, "wrapping_add", BK_METHOD, SIG_OWN, 1, 1)                            \
    X(M_WRAPPING_SUB, "wrapping_sub", BK_METHOD, SIG_OWN, 1, 1)                            \
    X(M_WRAPPING_MUL, "wrapping_mul", BK_METHOD, SIG_OWN, 1, 1)                            \
    X(M_WRAPPING_NEG, "wrapping_neg", BK_METHOD, SIG_OWN, 0, 1)                            \
    X(M_ROTATE_LEFT, "rotate_left", BK_METHOD, SIG_OWN, 1, 0)                              \
    X(M_ROTATE_RIGHT, "rotate_right", BK_METHOD, SIG_OWN, 1, 0)                            \
    X(M_COUNT_ONES, "count_ones", BK_METHOD, SIG_OWN, 0, 0)                                \
    X(M_LEADING_ZEROS, "leading_zeros", BK_METHOD, SIG_OWN, 0, 0)                          \
    X(M_TRAILING_ZEROS, "trailing_zeros", BK_METHOD, SIG_OWN, 0, 0)                        \
    X(M_PUSH, "push", BK_METHOD, SIG_OWN, 1, 0)                                            \
    /* SPEC section 14: output, input, files, str and array methods.        */           \
    X(BI_EPRINT, "eprint", BK_FN, SIG_OWN, -1, 0)                                          \
    X(BI_READ_STDIN, "read_stdin", BK_FN, SIG_OWN, 0, 0)                                   \
    X(BI_SORTED, "sorted", BK_FN, SIG_OWN, 1, 0)                                           \
    X(BI_REVERSED, "reversed", BK_FN, SIG_OWN, 1, 0)                                       \
    X(BI_OS_READ_FILE, "os.read_file", BK_OS, SIG_OWN, 1, 0)                               \
    X(BI_OS_WRITE_FILE, "os.write_file", BK_OS, SIG_OWN, 2, 0)                             \
    X(BI_OS_APPEND_FILE, "os.append_file", BK_OS, SIG_OWN, 2, 0)                           \
    /* forms the parser makes: `assert c[, msg]` (the checker supplies the   */           \
    /* default message) and slices x[a:b] (x, a, b; a missing end: len(x))  */           \
    X(BI_ASSERT, "assert", BK_SYNTAX, SIG_OWN, 2, 0)                                       \
    X(BI_SLICE, "[:]", BK_SYNTAX, SIG_OWN, 3, 0)                                           \
    /* the optimizer's (opt_comploop.c): an array of n scalars, each stored   */           \
    /* before anything reads it, so left unset; n < 0 is 0                    */           \
    X(BI_UNSET, "[unset]", BK_SYNTAX, SIG_OWN, 1, 0)                                       \
    /* the optimizer's (opt_version.c, map_steps): xs (a variable) holds    */           \
    /* the only reference to its array, which is not empty, and (least > 0) */           \
    /* a par map over it would not split: its elements can be mapped in     */           \
    /* place, in order (xs, least)                                          */           \
    X(BI_IN_PLACE, "[in place]", BK_SYNTAX, SIG_OWN, 2, 0)                                 \
    /* the optimizer's (opt_prefetch.c): a loop runs BRT_PREFETCH_MIN times */           \
    /* or more: a range loop's bounds (lo, hi), its count (uint64_t)hi -    */           \
    /* (uint64_t)lo; an array loop's array (xs), its length                 */           \
    X(BI_RUNS_LONG, "[runs long]", BK_SYNTAX, SIG_OWN, -1, 0)                              \
    /* the optimizer's (opt_lazycopy.c): xs (a variable) holds the only     */           \
    /* reference to its array: copy on write would not copy it (xs)         */           \
    X(BI_SOLE, "[sole]", BK_SYNTAX, SIG_OWN, 1, 0)                                         \
    X(M_SPLIT, "split", BK_METHOD, SIG_OWN, -1, 0)                                         \
    X(M_STRIP, "strip", BK_METHOD, SIG_OWN, 0, 0)                                          \
    X(M_LINES, "lines", BK_METHOD, SIG_OWN, 0, 0)                                          \
    X(M_STARTSWITH, "startswith", BK_METHOD, SIG_OWN, 1, 0)                                \
    X(M_ENDSWITH, "endswith", BK_METHOD, SIG_OWN, 1, 0)                                    \
    X(M_REPLACE, "replace", BK_METHOD, SIG_OWN, 2, 0)                                      \
    X(M_UPPER, "upper", BK_METHOD, SIG_OWN, 0, 0)                                          \
    X(M_LOWER, "lower", BK_METHOD, SIG_OWN, 0, 0)                                          \
    X(M_JOIN, "join", BK_METHOD, SIG_OWN, 1, 0)                                            \
    X(M_CONTAINS, "contains", BK_METHOD, SIG_OWN, 1, 0)                                    \
    /* the mutating array methods: the receiver is a var's place (xs or     */           \
    /* xs[i]...), kids[0] of the IR_BUILTIN (builtin_mutates)               */           \
    X(M_POP, "pop", BK_METHOD, SIG_OWN, 0, 0)                                              \
    X(M_INSERT, "insert", BK_METHOD, SIG_OWN, 2, 0)                                        \
    X(M_REMOVE, "remove", BK_METHOD, SIG_OWN, 1, 0)                                        \
    X(M_EXTEND, "extend", BK_METHOD, SIG_OWN, 1, 0)                                        \
    /* the optimizer's (opt_fill.c): xs grown in place by n > 0 elements     */           \
    /* not yet set (null rows), each stored before anything reads it         */           \
    X(M_GROW_UNSET, "[grow unset]", BK_SYNTAX, SIG_OWN, 1, 0)                              \
    X(M_REVERSE, "reverse", BK_METHOD, SIG_OWN, 0, 0)                                      \
    X(M_SORT, "sort", BK_METHOD, SIG_OWN, 0, 0)                                            \
    /* panic(msg: str): emitted as brt_panic_msg(loc, msg) (in a stdlib     */           \
    /* function at the caller's place); on the GPU it raises the flag and   */           \
    /* the CPU re-run reports it.                                           */           \
    X(BI_PANIC, "panic", BK_FN, SIG_OWN, 1, 1)                                             \
    /* BK_ITER: only as the iterable of a for or a generator (check_iterable); */          \
    /* each builds the array of what it yields. range(lo, hi) is lo..hi.      */           \
    X(BI_RANGE_STEP, "range", BK_ITER, SIG_OWN, 3, 0)                                      \
    X(BI_ENUMERATE, "enumerate", BK_ITER, SIG_OWN, 1, 0)                                   \
    X(BI_ZIP, "zip", BK_ITER, SIG_OWN, 2, 0)                                               \
    /* SPEC section 13's Option: Some(x), the parser's None, the methods    */           \
    X(BI_SOME, "Some", BK_FN, SIG_OWN, 1, 0)                                               \
    X(BI_NONE_LIT, "None", BK_SYNTAX, SIG_OWN, 0, 0)                                       \
    X(M_IS_SOME, "is_some", BK_METHOD, SIG_OWN, 0, 0)                                      \
    X(M_IS_NONE, "is_none", BK_METHOD, SIG_OWN, 0, 0)                                      \
    X(M_UNWRAP, "unwrap", BK_METHOD, SIG_OWN, 0, 0)                                        \
    X(M_UNWRAP_OR, "unwrap_or", BK_METHOD, SIG_OWN, 1, 0)                                  \
    /* SPEC section 14's library that answers with an Option               */           \
    X(BI_INPUT, "input", BK_FN, SIG_OWN, 0, 0)                                             \
    X(M_FIND, "find", BK_METHOD, SIG_OWN, 1, 0)                                            \
    X(M_TO_INT, "to_int", BK_METHOD, SIG_OWN, 0, 0)                                        \
    X(M_TO_FLOAT, "to_float", BK_METHOD, SIG_OWN, 0, 0)                                    \
    X(M_INDEX, "index", BK_METHOD, SIG_OWN, 1, 0)

enum builtin {
    BI_NONE = 0,
#define X(k, s, kind, sig, arity, gpu) k,
    BUILTINS(X)
#undef X
};
struct builtin_info {
    const char *name;
    enum builtin_kind kind;
    enum builtin_sig sig;
    int arity;
    bool gpu;
};
#define BI_LAST M_INDEX                      /* the table's last row */
extern const struct builtin_info builtins[]; /* by enum builtin */
extern const char *const builtin_name[];
/* case labels for every math function: switch (b) { BI_MATH_CASES ...: } */
#define BI_MATH_CASE(X_, name, arity, gpu) case BI_##name:
#define BI_MATH_CASES BRT_MATH(BI_MATH_CASE, _)
/* The methods that change their receiver in place (pop, insert, ...). */
#define builtin_mutates(b) ((b) >= M_POP && (b) <= M_SORT)

/* ---- AST (parser.y builds it, ast.c prints it, check.c annotates it) ----- */

/* Node kinds: three tables, expressions, statements and top-level
 * declarations, as three enums with disjoint values (each table's second
 * column gives its first row's value). A walker switches on n->ekind,
 * n->skind or n->dkind and lists every kind of its own with no default, so
 * -Wswitch names each walker that misses a new kind; n->kind is the same
 * value as an int. */
#define EXPR_KINDS(X)                                                            \
    X(N_INT, = 0) X(N_FLOAT, ) X(N_STR, ) X(N_BOOL, ) X(N_FSTRING, ) X(N_NAME, )   \
    X(N_UNARY, ) X(N_BINARY, ) X(N_AND, ) X(N_OR, ) X(N_NOT, ) X(N_COND, )         \
    X(N_CALL, ) X(N_FIELD, ) X(N_INDEX, ) X(N_ARRAY, ) X(N_LISTCOMP, ) X(N_REDUCE, ) \
    X(N_TUPLE, ) X(N_LAMBDA, )
#define STMT_KINDS(X)                                                            \
    X(N_LET, = N_NEXPRS) X(N_ASSIGN, ) X(N_IF, ) X(N_WHILE, ) X(N_FOR, )          \
    X(N_BREAK, ) X(N_CONTINUE, ) X(N_PASS, ) X(N_RETURN, ) X(N_EXPR_STMT, )
#define DECL_KINDS(X) X(N_FN, = N_NEXPRS + N_NSTMTS) X(N_CONST, ) X(N_IMPORT, )
#define NODE_KINDS(X) EXPR_KINDS(X) STMT_KINDS(X) DECL_KINDS(X)

#define N_COUNT_ONE_(k, first) +1
#define N_NEXPRS (0 EXPR_KINDS(N_COUNT_ONE_))
#define N_NSTMTS (0 STMT_KINDS(N_COUNT_ONE_))
#define X(k, first) k first,
enum expr_kind { EXPR_KINDS(X) };
enum stmt_kind { STMT_KINDS(X) };
enum decl_kind { DECL_KINDS(X) };
#undef X
#define node_is_expr(n) ((n)->kind < N_NEXPRS)
#define node_is_stmt(n) ((n)->kind >= N_NEXPRS && (n)->kind < N_NEXPRS + N_NSTMTS)
extern const char *const node_kind_name[];

struct node;
struct sym;

/* A syntactic type annotation, resolved to a struct type by the parser. */

/* An ordered list of nodes: a block's statements, a call's arguments. */
struct nodes {
    struct node **items;
    int len, cap;
};
void nodes_push(struct nodes *list, struct node *n);

/* `for NAME in lo..hi`, `lo..=hi` or `for NAME in array_expr`. */
struct iterable {
    bool is_range;
    bool inclusive;       /* ..= */
    struct node *lo, *hi; /* is_range */
    struct node *array;   /* !is_range */
};

/* The generator of a comprehension or reduction: ELEM for NAME in ITER [if COND] */
struct gen {
    struct node *elem;
    const char *var;
    struct loc var_loc;
    struct iterable iter;
    struct node *cond;    /* NULL without a filter */
    struct sym *var_sym;  /* set by the checker */
    struct nodes pat;     /* for (x, y) in ...: N_NAME nodes (var is ""); else empty */
    /* Generators with several clauses: the next clause (for NAME in ITER;
     * elem and cond unused there), outermost first; the filter is the
     * first gen's cond. early: a filter written after a clause other than
     * the last, which the checker reports. */
    struct gen *next;
    struct node *early;
    /* by KEY in 0..N (SPEC 15): key and nkeys (N), or NULL; by_loc: the 'by' */
    struct node *key, *nkeys;
    struct loc by_loc;
};

/* One piece of an f-string: literal text, or {expr[:spec]}. */
struct fpart {
    bool is_expr;
    const char *text;     /* literal text, escapes already decoded */
    size_t len;
    struct node *expr;
    const char *spec;     /* the format spec text after ':', or NULL */
    struct loc spec_loc;
};

struct node {
    union {
        int kind;               /* one of: */
        enum expr_kind ekind;   /* an expression (node_is_expr) */
        enum stmt_kind skind;   /* a statement (node_is_stmt) */
        enum decl_kind dkind;   /* a top-level declaration */
    };
    struct loc loc;
    struct type *type; /* expressions: set by the checker */
    union {
        /* N_INT: the literal's magnitude; `neg` when a minus sign directly
         * before it was absorbed (SPEC section 4). `too_big` when the digits
         * exceed 2^128-1. The checker decides the type and range. */
        struct { unsigned __int128 value; bool neg, too_big; } ilit;
        struct { double value; } flit;                     /* N_FLOAT */
        struct { const char *s; size_t len; } slit;        /* N_STR: decoded bytes */
        bool blit;                                          /* N_BOOL */
        struct { struct fpart *parts; int nparts; } fstr;  /* N_FSTRING */
        struct { const char *name; struct sym *sym; } name; /* N_NAME */
        /* N_UNARY (OP_NEG, OP_BNOT; uses a), N_BINARY (arith, bitwise,
         * comparison), N_AND, N_OR, N_NOT (uses a). chain: the nodes of
         * this kind down the left spine, this one included (the parser's
         * bound on a + b + c ...). */
        struct { enum op op; struct node *a, *b; int chain; } bin;
        struct { struct node *then, *cond, *els; } cond;   /* N_COND: then if cond else els */
        /* N_CALL: callee(args). `gen` when the one argument is a generator.
         * `par` when written `par f(...)`. The checker fills the rest:
         * builtin (a BI_ or M_ value, with recv the value of a method call), or fn (a
         * user function's symbol), and may turn the node into N_REDUCE.
         * Neither: a call through a function value, the callee's value
         * (a struct field holding one: s.f(x)). */
        struct {
            struct node *callee;
            struct nodes args;
            struct gen *gen;
            bool par;
            bool scan; /* scan sum(...): written with 'scan' before the reducer */
            enum builtin builtin;
            struct node *recv;
            struct sym *fn;
            int print_vals; /* print/eprint with sep= or end=: 1 + the values' count; the args are
                             * then the values, the separator and the end (checker) */
        } call;
        /* N_FIELD: base.name (a module member or the callee of a method call),
         * or a tuple's field base.0 (index: set by the checker, else -1) */
        struct { struct node *base; const char *name; struct loc name_loc; int index; } field;
        struct { struct node *base, *index; } index;       /* N_INDEX */
        struct nodes array;                                 /* N_ARRAY, N_TUPLE (its elements) */
        struct { bool par; struct gen *gen; } listcomp;    /* N_LISTCOMP */
        /* N_LAMBDA: lambda names: body. The checker gives the parameters
         * their types from the expected fn type (syms). */
        struct {
            const char **names;
            struct loc *locs;
            int n;
            struct node *body;
            struct sym **syms;
        } lambda;
        /* N_REDUCE: made by the checker from an N_CALL of a reducer.
         * Either gen (a generator) or array (the elements of an array). */
        struct {
            bool par;
            bool world; /* world.sum(gen): spread over the ranks (par is set too) */
            enum reducer reducer;
            struct gen *gen;
            struct node *array;
            struct type *elem_type;
            /* SPEC 15: reduce(f, start, gen) (user: fnv and start set; the
             * reducer field is then unused), scan (the running values), and
             * the generator's by (gen->key, gen->nkeys) */
            bool user, scan;
            struct node *fnv, *start;
        } reduce;

        /* N_LET: let/var NAME [: annot] = init; also used for top-level N_CONST. */
        struct {
            bool is_var;
            const char *name;
            struct loc name_loc;
            struct type *annot; /* NULL without annotation */
            struct node *init;
            struct sym *sym;    /* set by the checker */
            struct nodes pat;   /* let (x, y) = e: N_NAME nodes (their syms set by the checker); else empty */
        } let;
        /* N_ASSIGN: target = value, or target OP= value (op != OP_NONE) */
        struct { enum op op; struct node *target, *value; } assign;
        /* N_IF: conds[i] guards blocks[i]; else_block may be empty. elif
         * chains are flattened into conds/blocks. */
        struct { struct nodes conds; struct nodes *blocks; struct nodes else_block; bool has_else; } if_;
        struct { struct node *cond; struct nodes body; } while_;          /* N_WHILE */
        struct { const char *var; struct loc var_loc; struct iterable iter;
                 struct nodes body; struct sym *var_sym;
                 struct nodes pat; /* for (i, x) in ...: N_NAME nodes (var is ""); else empty */
        } for_;                                                            /* N_FOR */
        struct { struct node *value; } ret;                               /* N_RETURN (value may be NULL) */
        struct { struct node *expr; } expr_stmt;                          /* N_EXPR_STMT */

        /* N_FN */
        struct {
            const char *name;
            struct loc name_loc;
            const char **param_names;
            struct loc *param_locs;
            struct type **param_types;
            int nparams;
            struct type *ret;   /* ty_void without -> */
            struct nodes body;
            struct sym *sym;    /* set by the checker */
            struct sym **param_syms; /* set by the checker: nparams SYM_PARAM symbols */
        } fn;
        /* N_IMPORT */
        struct { const char *name; struct module *module; } import;
    } u;
};

struct node *node_new(int kind, struct loc loc); /* kind: an expr_kind, stmt_kind or decl_kind */

/* ---- modules and symbols ----------------------------------------------- */

/* A parsed file: the main program, or a module loaded by `import`. */
struct module {
    const char *name;   /* "main" for the program, else the import name */
    const char *path;   /* the name shown in messages */
    const char *file_path; /* where it was read from (outputs.c: never overwrite it) */
    int file;
    struct nodes decls; /* N_IMPORT, N_FN, N_CONST in source order */
    struct vec syms;    /* its top-level symbols (check.c) */
    bool in_stdlib;     /* read from the stdlib directory: no warnings */
};

enum sym_kind { SYM_LOCAL, SYM_PARAM, SYM_CONST, SYM_FN, SYM_MODULE };

struct sym {
    enum sym_kind kind;
    const char *name;
    struct loc loc;
    struct type *type;      /* value type; a function's result type */
    bool is_var;            /* declared with var */
    int id;                 /* unique within the program: lowering names C variables by it */
    struct node *decl;      /* N_LET, N_FN, N_CONST, N_FOR ... */
    struct module *module;  /* where it is declared; SYM_MODULE: the module itself */
};

struct program {
    struct module *main;
    struct vec modules;     /* every module, imported ones first, main last */
};

/* ---- phases -------------------------------------------------------------- */

/* lexer.re + parser.y: parse one file into a module (exits 1 on a syntax
 * error). */
struct module *parse_file(int file, const char *module_name);
void dump_tokens(FILE *out, int file);            /* --dump=tokens */
void dump_ast(FILE *out, struct module *m);       /* --dump=ast (ast.c) */

/* Loads the program and every module it imports (recursively, once each).
 * stdlib_dir: where `import NAME` finds stdlib/NAME.br. */
struct program *load_program(const char *path, const char *stdlib_dir);
/* The same from a text in memory (`brine run -`), shown as display. */
struct program *load_program_text(const char *display, const char *text, size_t len, const char *stdlib_dir);

/* check.c: resolves names and types; annotates the AST; exits 1 on error. */
void check_program(struct program *prog);

/* check.c: the one terminator rule (docs/internals.md, "Terminators"): how
 * control leaves a checked block. os.exit(...) as a statement does not
 * return; ir_verify checks the same rule on the IR. */
enum flow {
    FLOW_RETURNS,   /* never reaches its end: every path returns or loops forever */
    FLOW_EXITS,     /* never reaches its end, but some path ends in os.exit */
    FLOW_FALLS_OFF, /* its end can be reached */
};
enum flow block_flow(struct nodes *b);

struct ir_program;
struct ir_program *lower_program(struct program *prog); /* lower.c */
void ir_verify(struct ir_program *ir);                  /* ir.c: internal_error on a bad IR */
void ir_dump(FILE *out, struct ir_program *ir);         /* ir.c: --dump=ir */
/* opt.c: the optimizer's passes in order, ir_verify after each; with
 * stop_after (a pass name) it returns after that pass. False when
 * stop_after names no pass. */
bool optimize(struct ir_program *ir, const char *stop_after);
extern const char *const opt_pass_names[]; /* NULL-terminated, for --dump=ir:PASS */
const char *opt_pass_list(void);             /* "consts, iters, ...": the passes, for messages */
/* --opt=PASSES (all, none, -PASS, +PASS, comma-separated) at arg: turns
 * passes off for optimize(); false when arg is not an --opt option. */
bool opt_option(const char *arg);
const char *opt_option_given(void); /* the last SPEC given, or NULL */
/* emit_program.c (and the rooms of emit_c.h): the whole program as one C
 * translation unit, and the CUDA source of every GPU kernel in it (each
 * module after a line "// ==== brine kernel <id> <file>:<line>:<col> ====",
 * for --emit-cuda; NULL when no reduction is eligible). malloc'ed. */
struct emit_result {
    char *c;
    size_t c_len;
    char *cuda;
    size_t cuda_len;
    int kernels;
    int parts; /* 2: a big program, built by a release build as two parts at once; else 1 */
};
struct emit_result emit_program(struct ir_program *ir);
/* brine build -g: #line directives and Brine names in the C written to
 * c_name (NULL: off, the default). */
void emit_set_debug(const char *c_name);

#endif
