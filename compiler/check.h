/*
 * check.h: what the checker's files share (check.c: names, scopes, types,
 * expressions, statements, the program; check_builtins.c: the builtins,
 * os, world and methods). Private to the checker: the rest of the compiler
 * sees check_program() and block_flow() in brine.h.
 */
#ifndef BRINE_CHECK_H
#define BRINE_CHECK_H
#include "brine.h"
#include "brine_rt.h"

#define MAX_EXPR_DEPTH 10000 /* far below the C stack's limit, far above real code */

/* Every symbol is allocated here with checker-private data after it, so a
 * struct sym * we handed out can be turned back into its xsym. */
struct xsym {
    struct sym s;
    int order;            /* SYM_CONST: global initialisation order, from 1 */
    bool loop_var;        /* SYM_LOCAL bound by for or a generator */
    struct vec reads;     /* SYM_FN: constants its body reads (struct sym *) */
    struct vec calls;     /* SYM_FN: functions it calls; SYM_CONST: N_CALL nodes in its initialiser */
    int max_read;         /* SYM_FN: highest order of a constant it reads, directly or through calls */
    struct sym *max_sym;  /* ... and that constant */
    bool poisoned;        /* its declaration had an error: uses are abandoned */
    bool read;            /* SYM_LOCAL: its value is read somewhere */
    bool assigned;        /* SYM_LOCAL: assigned or pushed to after its let */
    struct node *world_call;  /* SYM_FN: the first world collective its body makes, or NULL */
    struct xsym *world_via;   /* SYM_FN: else a function it calls that reaches one, or NULL */
};

struct modinfo {
    struct module *m;
    struct map globals;  /* name -> struct sym *: functions, constants, imports */
};

/* A local binding; shadowed bindings hang off prev. */
struct binding {
    struct sym *sym;
    struct binding *prev;
    int level;
};

struct checker {
    struct program *prog;
    struct modinfo *mods;
    int nmods;
    struct modinfo *mi;      /* the module being checked */
    struct map locals;       /* name -> innermost struct binding */
    struct vec bound;        /* bindings in push order, popped with their scope */
    int level;               /* scope nesting; 0 at top level */
    struct node *fn;         /* the function being checked, or NULL */
    struct xsym *fn_sym;
    struct xsym *cnst;       /* the constant being initialised, or NULL */
    int loop_depth;
    int par_depth;           /* inside the generator of a par or world reduction or comprehension */
    struct vec par_calls;    /* N_CALLs of user functions made there, checked for collectives at the end */
    int depth;               /* check_expr recursion */
};

extern struct checker C;
extern struct sym *os_sym;    /* the always-available module `os` */
extern struct sym *world_sym; /* and `world` (docs/world.md) */
extern int gen_depth;         /* generators being checked: their elements may not mutate */

/* ---- check.c ------------------------------------------------------------- */

struct xsym *xs(struct sym *s);
const char *tn(struct type *t);
/* Why an aggregate has no order: "(its field 'xs' is [int])", or "" when
 * t is ordered or not a tuple or struct. */
const char *why_unordered(struct type *t);
const char *loc_text(struct loc loc);
/* "mismatched types: expected float for 'x', found int" */
void expect_type(struct node *n, struct type *want, const char *forfmt, ...) __attribute__((format(printf, 3, 4)));
void expect_bool(struct node *n, const char *what);
struct type *check_expr(struct node *n, struct type *hint);
/* An expression that must have a value (not a call of a function without one). */
struct type *check_value(struct node *n, struct type *hint);
bool is_flexible(struct node *n); /* an untyped literal expression (takes the context's type) */
/* check_fold.c: after typing an integer literal, unary or binary node, its
 * value when it is a literal expression; overflow there is a compile error. */
void fold_literal(struct node *n);
void check_pair(struct node *a, struct node *b, struct type *hint, struct type **ta, struct type **tb);
struct loc gen_loc(struct gen *g);
struct type *check_iterable(struct iterable *it);
struct type *check_reduce(struct node *n, enum reducer r, struct type *hint);
void check_mutable_root(struct node *target, const char *verb);
struct modinfo *modinfo_of(struct module *m);
const char *line_ref(struct loc loc);
/* "did you mean": keeps the closest candidate within the edit limit */
void consider(const char *name, const char *cand, const char **best, int *best_d);
struct sym *use_const(struct node *n, struct sym *s);
/* A scope of locals (a lambda's parameters), and an immutable local in it. */
void check_scope_push(void);
void check_scope_pop(void);
struct sym *bind_local(const char *name, struct loc loc, struct type *t, struct node *owner);
/* If base names a module (an import, os or world), its symbol. */
struct sym *module_base(struct node *base);

/* ---- check_values.c: tuples, structs and Option ------------------------------------ */

struct type *check_struct_ctor(struct node *n, struct type *t);
struct type *check_tuple(struct node *n, struct type *hint);
struct type *check_field(struct node *n);
void check_struct(void *arg); /* a struct declaration (run under attempt()) */
bool is_none_lit(struct node *n);  /* the literal None */
bool is_some_call(struct node *n); /* a call Some(x) */
struct type *check_option_value(struct node *n, enum builtin bi, struct type *hint); /* Some(x), None */
struct type *check_option_recv(struct node *n, struct node *recv, enum builtin m, struct type *hint);
struct type *check_option_method(struct node *n, struct node *recv, struct type *rt, enum builtin m);

/* ---- check.c: shared with check_stmt.c ----------------------------------- */

struct sym *new_sym(enum sym_kind kind, const char *name, struct loc loc, struct type *type,
                    struct node *decl, struct module *mod);
void declare_local(struct sym *s);          /* into the innermost scope; warns of shadowing */
struct sym *lookup_sym(const char *name);   /* innermost scope outwards, then the module */
bool attempt(void (*f)(void *), void *arg); /* run f under a recovery point: false if it failed */
struct type *arith_result(enum op op, struct type *ta, struct type *tb, bool compound, const char **why);
void no_repeated_names(struct nodes *pat);
void declare_loop_pattern(struct nodes *pat, struct loc at, struct type *t, struct node *owner);

/* ---- check_diag.c: the words of messages -------------------------------------- */

const char *sym_what(struct sym *s);        /* "a let binding", "a function", ... */
const char *float_int_hint(struct node *a, struct type *ta, struct node *b, struct type *tb);

/* ---- check_stmt.c: statements and blocks ------------------------------------ */

void check_block(struct nodes *b);          /* in a new scope; each statement under attempt() */

/* ---- check_fnvals.c: function values ---------------------------------------- */

extern int lambda_depth;    /* lambda bodies being checked: they may not mutate */
struct type *fn_type_of(struct sym *f);                  /* a top-level function's fn type */
struct type *check_fn_value(struct node *n, struct sym *f); /* N_NAME n names f, used as a value */
struct type *check_lambda(struct node *n, struct type *hint);
struct type *check_value_call(struct node *n, struct type *ft, const char *shown);
bool type_has_fn(struct type *t);                        /* holds a function value: not printed or compared */
void no_fn_printed(struct node *n);                      /* errors when n's value holds a function */
void no_fn_compared(struct node *n, struct type *t, const char *op);

/* ---- check_scan.c: reduce(f, start, gen), scans, by (SPEC 15) --------------- */

struct type *check_gen_of(struct gen *g, struct type *elem_hint, struct node *owner, bool par);
void check_by_key(struct gen *g);   /* inside the generator's scope */
void check_by_count(struct gen *g); /* outside it */
struct type *keyed_result(struct node *n, enum reducer r, bool user, struct type *et, struct type *hint);
struct type *check_user_reduce(struct node *n, bool scan, struct type *hint);

/* ---- check_builtins.c ------------------------------------------------------ */

enum builtin find_builtin(const char *name, enum builtin_kind kind);
bool find_reducer(const char *name, enum reducer *r);
struct type *check_user_call(struct node *n, struct sym *f, const char *shown);
struct node *arg(struct node *n, int i);
struct type *check_builtin(struct node *n, enum builtin bi, struct type *hint);
struct type *check_method(struct node *n, struct node *recv, const char *mname, struct type *hint);
struct type *check_world(struct node *n, const char *member, struct type *hint);

#endif
