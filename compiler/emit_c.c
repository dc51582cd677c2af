/*
 * emit_c.c: the IR -> one C translation unit that includes "brine_rt.h".
 *
 * The C must compile, and give the same bits, under tcc 0.9.27 and gcc, so
 * it stays plain: every intermediate value goes into a fresh temporary in
 * evaluation order (C leaves the order of function arguments unspecified,
 * and which panic a program reports depends on it), float literals are
 * written as their bit patterns, integer checks go through brt_*.
 *
 * Names cannot clash with C or the runtime: user functions bf_<module>_<name>,
 * variables v<id>, temporaries t<n>, places L<n>, string literals S<n>, array
 * type descriptors T<n>, globals g<id>, prelude helpers bp_*, par helpers
 * bp_env<n>/bp_leaves<n>/bp_leaves_s<n>/bp_combine<n>/bp_body<n>/bp_find<n>.
 *
 * Ownership (see docs/internals.md): a str/array value held by a variable is
 * owned (+1); parameters, globals, loop variables of comprehensions and
 * elements read by xs[i] are borrowed. Every expression that creates a
 * value puts it in an owned temporary registered in the innermost cleanup
 * scope; the scope's end (the end of a statement, of a branch, of one
 * iteration of an inlined reduction) releases what is still registered.
 * take() turns an operand into a +1 reference: it unregisters an owned
 * temporary of the innermost scope, or retains anything else. All Brine
 * locals are declared at the top of their C function (ref types = NULL) and
 * released at the single exit label, so break/continue/return need no
 * cleanup of their own; a block's end releases its lets early so that
 * copy-on-write does not copy needlessly.
 */
#include "ir.h"
#include "emit_cuda.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* ---- the translation unit's sections ---------------------------------------- */

static struct buf s_types, s_strs, s_locs, s_globals, s_protos, s_aux, s_fns;
static struct ir_program *IR;
static int ntemps, nlocs, nstrs, ntypes, naux;

/* Memo tables: places and array types. */
struct loc_memo { int file, line, col, id; };
static struct loc_memo *locs;
static int nlocmemo, caplocmemo;
struct type_memo { struct type *t; int id; };
static struct type_memo *tmemo;
static int ntmemo, captmemo;

static void c_string(struct buf *b, const char *s, size_t len)
{
    bputs(b, "\"");
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\') bprintf(b, "\\%c", c);
        else if (c >= 32 && c < 127 && c != '?') bputn(b, (const char *)&c, 1);
        else bprintf(b, "\\%03o", c);
    }
    bputs(b, "\"");
}

/* Places are memoised in an open-addressing table: big programs have many. */
static size_t loc_slot(int file, int line, int col)
{
    uint64_t h = ((uint64_t)(uint32_t)file * 0x9E3779B97F4A7C15ull) ^ ((uint64_t)(uint32_t)line << 20) ^ (uint64_t)(uint32_t)col;
    h *= 0xBF58476D1CE4E5B9ull;
    return (size_t)(h >> 20) & (size_t)(caplocmemo - 1);
}

static const char *loc_ref(struct loc l)
{
    if (caplocmemo) {
        for (size_t i = loc_slot(l.file, l.line, l.col); locs[i].id; i = (i + 1) & (size_t)(caplocmemo - 1))
            if (locs[i].file == l.file && locs[i].line == l.line && locs[i].col == l.col)
                return arena_printf("&L%d", locs[i].id);
    }
    if (2 * (nlocmemo + 1) > caplocmemo) {
        struct loc_memo *old = locs;
        int oldcap = caplocmemo;
        caplocmemo = caplocmemo ? 2 * caplocmemo : 256;
        locs = xmalloc((size_t)caplocmemo * sizeof *locs);
        memset(locs, 0, (size_t)caplocmemo * sizeof *locs);
        for (int i = 0; i < oldcap; i++)
            if (old[i].id) {
                size_t j = loc_slot(old[i].file, old[i].line, old[i].col);
                while (locs[j].id) j = (j + 1) & (size_t)(caplocmemo - 1);
                locs[j] = old[i];
            }
        free(old);
    }
    int id = ++nlocs;
    size_t j = loc_slot(l.file, l.line, l.col);
    while (locs[j].id) j = (j + 1) & (size_t)(caplocmemo - 1);
    locs[j] = (struct loc_memo){l.file, l.line, l.col, id};
    nlocmemo++;
    const struct source *src = source_get(l.file);
    const char *name = src && src->name ? src->name : "?";
    bprintf(&s_locs, "static const brt_loc L%d __attribute__((unused)) = {", id);
    c_string(&s_locs, name, strlen(name));
    bprintf(&s_locs, ", %d, %d};\n", l.line, l.col);
    return arena_printf("&L%d", id);
}

static const char *ctype(struct type *t)
{
    switch (t->kind) {
    case T_INT: return "int64_t";
    case T_I128: return "brt_i128";
    case T_U64: return "uint64_t";
    case T_FLOAT: return "double";
    case T_BOOL: return "bool";
    case T_STR: return "brt_str *";
    case T_ARRAY: return "brt_arr *";
    case T_VOID: return "void";
    }
    internal_error("emit: bad type");
}

static const char *tdesc(struct type *t)
{
    switch (t->kind) {
    case T_INT: return "&brt_t_int";
    case T_I128: return "&brt_t_i128";
    case T_U64: return "&brt_t_u64";
    case T_FLOAT: return "&brt_t_float";
    case T_BOOL: return "&brt_t_bool";
    case T_STR: return "&brt_t_str";
    case T_ARRAY: break;
    case T_VOID: internal_error("emit: descriptor of nothing");
    }
    for (int i = 0; i < ntmemo; i++)
        if (tmemo[i].t == t) return arena_printf("&T%d", tmemo[i].id);
    const char *el = tdesc(t->elem);
    if (ntmemo == captmemo) {
        captmemo = captmemo ? 2 * captmemo : 16;
        tmemo = xrealloc(tmemo, (size_t)captmemo * sizeof *tmemo);
    }
    int id = ++ntypes;
    tmemo[ntmemo++] = (struct type_memo){t, id};
    bprintf(&s_types, "static const brt_type T%d = {BRT_ARR, %s}; /* %s */\n", id, el, type_name(t));
    return arena_printf("&T%d", id);
}

static const char *release_fn(struct type *t)
{
    return t->kind == T_STR ? "brt_str_release" : "brt_arr_release";
}

/* ---- the function being emitted ------------------------------------------------ */

enum { VS_NONE, VS_OWNED, VS_BORROWED };

struct owned { const char *name; struct type *t; };

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
    const char **extra;          /* function-level owned temporaries (snapshots) */
    struct type **extra_t;
    int nextra, capextra;
    bool has_exit;               /* user functions: an exit label */
    bool site;                   /* a library function's body: `site` is the caller's place */
};

static struct fctx *F;

static struct fctx *fctx_new(void)
{
    struct fctx *f = xmalloc(sizeof *f);
    memset(f, 0, sizeof *f);
    f->vst = xmalloc((size_t)IR->nvars + 2);
    memset(f->vst, 0, (size_t)IR->nvars + 2);
    f->ind = 1;
    return f;
}

__attribute__((format(printf, 1, 2))) static void line(const char *fmt, ...)
{
    va_list ap;
    char tmp[1024];
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    for (int i = 0; i < F->ind; i++) bputs(&F->body, "    ");
    if (n < (int)sizeof tmp) {
        bputs(&F->body, tmp);
    } else {
        char *big = xmalloc((size_t)n + 1);
        va_start(ap, fmt);
        vsnprintf(big, (size_t)n + 1, fmt, ap);
        va_end(ap);
        bputs(&F->body, big);
        free(big);
    }
    bputs(&F->body, "\n");
}

static const char *new_temp(void) { return arena_printf("t%d", ++ntemps); }

static const char *vname(struct ir_var *v)
{
    if (!F->vst[v->id]) internal_error("emit: variable v%d (%s) used before its declaration", v->id, v->name);
    return arena_printf("v%d", v->id);
}

static const char *zero_of(struct type *t)
{
    switch (t->kind) {
    case T_I128: return "{0, 0}";
    case T_STR: case T_ARRAY: return "NULL";
    case T_BOOL: return "false";
    case T_INT: case T_U64: case T_FLOAT: return "0";
    case T_VOID: break;
    }
    internal_error("emit: zero of nothing");
}

/* Declares a variable at the top of the current C function. */
static const char *declare_var(struct ir_var *v, int state)
{
    if (F->vst[v->id]) return arena_printf("v%d", v->id);
    F->vst[v->id] = (unsigned char)state;
    bprintf(&F->decl, "    %s v%d = %s; /* %s */\n", ctype(v->type), v->id, zero_of(v->type),
            *v->name ? v->name : "temp");
    if (state == VS_OWNED && type_is_ref(v->type)) {
        if (F->nlocals == F->caplocals) {
            F->caplocals = F->caplocals ? 2 * F->caplocals : 16;
            F->locals = xrealloc(F->locals, (size_t)F->caplocals * sizeof *F->locals);
        }
        F->locals[F->nlocals++] = v;
    }
    return arena_printf("v%d", v->id);
}

/* A function-level owned temporary (released at exit and where it ends). */
static const char *declare_extra(struct type *t)
{
    const char *n = new_temp();
    bprintf(&F->decl, "    %s %s = NULL;\n", ctype(t), n);
    if (F->nextra == F->capextra) {
        F->capextra = F->capextra ? 2 * F->capextra : 8;
        F->extra = xrealloc(F->extra, (size_t)F->capextra * sizeof *F->extra);
        F->extra_t = xrealloc(F->extra_t, (size_t)F->capextra * sizeof *F->extra_t);
    }
    F->extra[F->nextra] = n;
    F->extra_t[F->nextra++] = t;
    return n;
}

static void scope_open(void)
{
    if (F->nmarks == F->capmarks) {
        F->capmarks = F->capmarks ? 2 * F->capmarks : 16;
        F->marks = xrealloc(F->marks, (size_t)F->capmarks * sizeof *F->marks);
    }
    F->marks[F->nmarks++] = F->nown;
}

static void scope_close(void)
{
    int mark = F->marks[--F->nmarks];
    for (int i = F->nown - 1; i >= mark; i--)
        if (F->own[i].name) line("%s(%s);", release_fn(F->own[i].t), F->own[i].name);
    F->nown = mark;
}

static void own(const char *name, struct type *t)
{
    if (!type_is_ref(t)) return;
    if (F->nown == F->capown) {
        F->capown = F->capown ? 2 * F->capown : 32;
        F->own = xrealloc(F->own, (size_t)F->capown * sizeof *F->own);
    }
    F->own[F->nown++] = (struct owned){name, t};
}

/* A +1 reference to the operand's value: an owned temporary of the
 * innermost scope is handed over; anything else is retained. Scalars are
 * returned as they are. Use only where the code runs unconditionally within
 * the innermost scope. */
static const char *take(const char *x, struct type *t)
{
    if (!type_is_ref(t)) return x;
    int mark = F->nmarks ? F->marks[F->nmarks - 1] : 0;
    for (int i = F->nown - 1; i >= mark; i--)
        if (F->own[i].name && strcmp(F->own[i].name, x) == 0) {
            F->own[i].name = NULL;
            return x;
        }
    line("brt_retain(%s);", x);
    return x;
}

/* Whether x names one of our variables (v<id>, t<n>, g<id>): addressable. */
static bool is_ident(const char *s)
{
    if (*s != 't' && *s != 'v' && *s != 'g') return false;
    if (!s[1]) return false;
    for (s++; *s; s++)
        if (*s < '0' || *s > '9') return false;
    return true;
}

/* An addressable copy of a value (for &x arguments). */
static const char *lval(const char *x, struct type *t)
{
    if (is_ident(x)) return x;
    const char *n = new_temp();
    line("%s %s = %s;", ctype(t), n, x);
    return n;
}

/* A temporary holding a new value of type t computed by the C expression. */
__attribute__((format(printf, 2, 3))) static const char *tmp(struct type *t, const char *fmt, ...)
{
    char buf[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    const char *n = new_temp();
    line("%s %s = %s;", ctype(t), n, buf);
    return n;
}

/* Same, and the value is owned (+1). */
#define tmp_owned(t, ...) owned_tmp_(t, tmp(t, __VA_ARGS__))
static const char *owned_tmp_(struct type *t, const char *n)
{
    own(n, t);
    return n;
}

/* ---- expressions ---------------------------------------------------------- */

static const char *emit_expr(struct ir_node *n);
static void emit_stmt(struct ir_node *s);

static const char *int_lit(struct type *t, unsigned __int128 v)
{
    if (t == ty_u64) return arena_printf("%" PRIu64 "ULL", (uint64_t)v);
    if (t == ty_i128) return arena_printf("brt_i128_make(%" PRIu64 "ULL, %" PRIu64 "ULL)", (uint64_t)v, (uint64_t)(v >> 64));
    int64_t x = (int64_t)(uint64_t)v;
    if (x == INT64_MIN) return "(-9223372036854775807LL-1)";
    return arena_printf("%" PRId64 "LL", x);
}

static const char *float_lit(double d)
{
    uint64_t u;
    memcpy(&u, &d, sizeof u);
    return arena_printf("bp_f64(0x%016" PRIx64 "ULL)", u);
}

/* The shift amount as brt_sh*'s int64_t (negative: out of range). */
static const char *shift_amount(const char *b, struct type *t)
{
    if (t == ty_u64) return arena_printf("bp_amt_u64(%s)", b);
    if (t == ty_i128) return arena_printf("bp_amt_i128(%s)", b);
    return b;
}

/* A rotate amount: only its value modulo 64/128 matters. */
static const char *rot_amount(const char *b, struct type *t)
{
    if (t == ty_i128) return arena_printf("(int64_t)%s.lo", b);
    return arena_printf("(int64_t)%s", b);
}

static const char *cmp_op(enum op op)
{
    switch (op) {
    case OP_EQ: return "==";
    case OP_NE: return "!=";
    case OP_LT: return "<";
    case OP_LE: return "<=";
    case OP_GT: return ">";
    case OP_GE: return ">=";
    default: internal_error("emit: not a comparison");
    }
}

static const char *suffix(struct type *t)
{
    return t == ty_int ? "i64" : t == ty_u64 ? "u64" : "i128";
}

static const char *emit_binary(struct ir_node *n)
{
    const char *a = emit_expr(n->a);
    const char *b = emit_expr(n->b);
    struct type *ot = n->optype, *bt = n->b->type;
    enum op op = n->bop;
    bool cmp = op == OP_EQ || op == OP_NE || op == OP_LT || op == OP_LE || op == OP_GT || op == OP_GE;

    if (ot == ty_str || (op == OP_MUL && bt == ty_str)) {
        if (op == OP_ADD) return tmp_owned(ty_str, "brt_str_concat(%s, %s)", a, b);
        if (op == OP_MUL)
            return ot == ty_str ? tmp_owned(ty_str, "brt_str_repeat(%s, %s, %s)", a, b, loc_ref(n->loc))
                                : tmp_owned(ty_str, "brt_str_repeat(%s, %s, %s)", b, a, loc_ref(n->loc));
        if (op == OP_EQ) return tmp(ty_bool, "brt_str_eq(%s, %s)", a, b);
        if (op == OP_NE) return tmp(ty_bool, "!brt_str_eq(%s, %s)", a, b);
        if (cmp) return tmp(ty_bool, "brt_str_cmp(%s, %s) %s 0", a, b, cmp_op(op));
        internal_error("emit: str operator %s", op_spelling[op]);
    }
    if (ot->kind == T_ARRAY || (op == OP_MUL && bt->kind == T_ARRAY)) {
        if (op == OP_ADD) return tmp_owned(ot, "brt_arr_concat(%s, %s)", a, b);
        if (op == OP_MUL)
            return ot->kind == T_ARRAY ? tmp_owned(ot, "brt_arr_repeat(%s, %s, %s)", a, b, loc_ref(n->loc))
                                       : tmp_owned(bt, "brt_arr_repeat(%s, %s, %s)", b, a, loc_ref(n->loc));
        if (op == OP_EQ || op == OP_NE) {
            const char *la = lval(a, ot), *lb = lval(b, ot);
            return tmp(ty_bool, "%sbrt_eq(%s, &%s, &%s)", op == OP_NE ? "!" : "", tdesc(ot), la, lb);
        }
        internal_error("emit: array operator %s", op_spelling[op]);
    }
    if (ot == ty_bool) {
        switch (op) {
        case OP_EQ: case OP_NE: return tmp(ty_bool, "%s %s %s", a, cmp_op(op), b);
        case OP_BAND: return tmp(ty_bool, "%s & %s", a, b);
        case OP_BOR: return tmp(ty_bool, "%s | %s", a, b);
        case OP_BXOR: return tmp(ty_bool, "%s ^ %s", a, b);
        default: internal_error("emit: bool operator %s", op_spelling[op]);
        }
    }
    if (ot == ty_float) {
        switch (op) {
        case OP_ADD: return tmp(ot, "%s + %s", a, b);
        case OP_SUB: return tmp(ot, "%s - %s", a, b);
        case OP_MUL: return tmp(ot, "%s * %s", a, b);
        case OP_DIV: return tmp(ot, "%s / %s", a, b);
        case OP_MOD: return tmp(ot, "fmod(%s, %s)", a, b);
        default:
            if (cmp) return tmp(ty_bool, "%s %s %s", a, cmp_op(op), b);
            internal_error("emit: float operator %s", op_spelling[op]);
        }
    }
    const char *sfx = suffix(ot);
    if (ot == ty_i128) {
        if (cmp) return tmp(ty_bool, "brt_cmp_i128(%s, %s) %s 0", a, b, cmp_op(op));
        switch (op) {
        case OP_ADD: return tmp(ot, "brt_add_i128(%s, %s, %s)", a, b, loc_ref(n->loc));
        case OP_SUB: return tmp(ot, "brt_sub_i128(%s, %s, %s)", a, b, loc_ref(n->loc));
        case OP_MUL: return tmp(ot, "brt_mul_i128(%s, %s, %s)", a, b, loc_ref(n->loc));
        case OP_DIV: return tmp(ot, "brt_div_i128(%s, %s, %s)", a, b, loc_ref(n->loc));
        case OP_MOD: return tmp(ot, "brt_mod_i128(%s, %s, %s)", a, b, loc_ref(n->loc));
        case OP_BAND: return tmp(ot, "brt_and_i128(%s, %s)", a, b);
        case OP_BOR: return tmp(ot, "brt_or_i128(%s, %s)", a, b);
        case OP_BXOR: return tmp(ot, "brt_xor_i128(%s, %s)", a, b);
        case OP_SHL: return tmp(ot, "brt_shl_i128(%s, %s, %s)", a, shift_amount(b, bt), loc_ref(n->loc));
        case OP_SHR: return tmp(ot, "brt_shr_i128(%s, %s, %s)", a, shift_amount(b, bt), loc_ref(n->loc));
        default: internal_error("emit: i128 operator %s", op_spelling[op]);
        }
    }
    if (cmp) return tmp(ty_bool, "%s %s %s", a, cmp_op(op), b);
    switch (op) {
    case OP_ADD: return tmp(ot, "brt_add_%s(%s, %s, %s)", sfx, a, b, loc_ref(n->loc));
    case OP_SUB: return tmp(ot, "brt_sub_%s(%s, %s, %s)", sfx, a, b, loc_ref(n->loc));
    case OP_MUL: return tmp(ot, "brt_mul_%s(%s, %s, %s)", sfx, a, b, loc_ref(n->loc));
    case OP_DIV: return tmp(ot, "brt_div_%s(%s, %s, %s)", sfx, a, b, loc_ref(n->loc));
    case OP_MOD: return tmp(ot, "brt_mod_%s(%s, %s, %s)", sfx, a, b, loc_ref(n->loc));
    case OP_BAND: return tmp(ot, "%s & %s", a, b);
    case OP_BOR: return tmp(ot, "%s | %s", a, b);
    case OP_BXOR: return tmp(ot, "%s ^ %s", a, b);
    case OP_SHL: return tmp(ot, "brt_shl_%s(%s, %s, %s)", sfx, a, shift_amount(b, bt), loc_ref(n->loc));
    case OP_SHR: return tmp(ot, "brt_shr_%s(%s, %s, %s)", sfx, a, shift_amount(b, bt), loc_ref(n->loc));
    default: internal_error("emit: integer operator %s", op_spelling[op]);
    }
}

static const char *emit_conv(struct ir_node *n)
{
    const char *a = emit_expr(n->a);
    struct type *from = n->optype, *to = n->type;
    if (from == to) return a;
    if (from == ty_bool) {
        if (to == ty_i128) return tmp(to, "brt_i128_from_i64((int64_t)%s)", a);
        return tmp(to, "(%s)%s", ctype(to), a);
    }
    switch (to->kind) {
    case T_FLOAT:
        if (from == ty_int) return tmp(to, "(double)%s", a);
        if (from == ty_u64) return tmp(to, "brt_u64_to_f(%s)", a);
        if (from == ty_i128) return tmp(to, "brt_i128_to_f(%s)", a);
        if (from == ty_str) return tmp(to, "brt_parse_float(%s, %s)", a, loc_ref(n->loc));
        break;
    case T_INT:
        if (from == ty_float) return tmp(to, "brt_f2i(%s, %s)", a, loc_ref(n->loc));
        if (from == ty_u64) return tmp(to, "brt_u64_to_i64(%s, %s)", a, loc_ref(n->loc));
        if (from == ty_i128) return tmp(to, "brt_i128_to_i64(%s, %s)", a, loc_ref(n->loc));
        if (from == ty_str) return tmp(to, "brt_parse_int(%s, %s)", a, loc_ref(n->loc));
        break;
    case T_U64:
        if (from == ty_float) return tmp(to, "brt_f2u64(%s, %s)", a, loc_ref(n->loc));
        if (from == ty_int) return tmp(to, "brt_i64_to_u64(%s, %s)", a, loc_ref(n->loc));
        if (from == ty_i128) return tmp(to, "brt_i128_to_u64(%s, %s)", a, loc_ref(n->loc));
        if (from == ty_str) return tmp(to, "brt_i64_to_u64(brt_parse_int(%s, %s), %s)", a, loc_ref(n->loc), loc_ref(n->loc));
        break;
    case T_I128:
        if (from == ty_float) return tmp(to, "brt_f2i128(%s, %s)", a, loc_ref(n->loc));
        if (from == ty_int) return tmp(to, "brt_i128_from_i64(%s)", a);
        if (from == ty_u64) return tmp(to, "brt_i128_from_u64(%s)", a);
        if (from == ty_str) return tmp(to, "brt_i128_from_i64(brt_parse_int(%s, %s))", a, loc_ref(n->loc));
        break;
    default:
        break;
    }
    internal_error("emit: conversion %s -> %s", type_name(from), type_name(to));
}

static const char *math1(enum builtin b)
{
    switch (b) {
    case BI_SQRT: return "brt_sqrt";
    case BI_FLOOR: return "brt_floor";
    case BI_CEIL: return "brt_ceil";
    case BI_ROUND: return "brt_round";
    case BI_TRUNC: return "brt_trunc";
    case BI_EXP: return "brt_exp";
    case BI_LOG: return "brt_log";
    case BI_LOG2: return "brt_log2";
    case BI_LOG10: return "brt_log10";
    case BI_SIN: return "brt_sin";
    case BI_COS: return "brt_cos";
    case BI_TAN: return "brt_tan";
    case BI_ASIN: return "brt_asin";
    case BI_ACOS: return "brt_acos";
    case BI_ATAN: return "brt_atan";
    case BI_SINH: return "brt_sinh";
    case BI_COSH: return "brt_cosh";
    case BI_TANH: return "brt_tanh";
    case BI_CBRT: return "brt_cbrt";
    case BI_POW: return "brt_pow";
    case BI_ATAN2: return "brt_atan2";
    case BI_HYPOT: return "brt_hypot";
    default: return NULL;
    }
}

static void print_value(const char *x, struct type *t)
{
    switch (t->kind) {
    case T_INT: line("brt_print_int(%s);", x); return;
    case T_U64: line("brt_print_u64(%s);", x); return;
    case T_I128: line("brt_print_i128(%s);", x); return;
    case T_FLOAT: line("brt_print_float(%s);", x); return;
    case T_BOOL: line("brt_print_bool(%s);", x); return;
    case T_STR: line("brt_print_str(%s);", x); return;
    case T_ARRAY: line("brt_print_val(%s, &%s);", tdesc(t), lval(x, t)); return;
    case T_VOID: break;
    }
    internal_error("emit: print of nothing");
}

static const char *emit_builtin(struct ir_node *n)
{
    enum builtin b = n->builtin;
    const char **arg = arena_alloc((size_t)(n->nkids + 1) * sizeof *arg);
    struct type **at = arena_alloc((size_t)(n->nkids + 1) * sizeof *at);
    if (b == BI_PRINT) {
        const char **xs = arena_alloc((size_t)(n->nkids + 1) * sizeof *xs);
        for (int i = 0; i < n->nkids; i++) xs[i] = emit_expr(n->kids[i]);
        for (int i = 0; i < n->nkids; i++) {
            if (i) line("brt_print_sep();");
            print_value(xs[i], n->kids[i]->type);
        }
        line("brt_print_end();");
        return "";
    }
    for (int i = 0; i < n->nkids; i++) {
        arg[i] = emit_expr(n->kids[i]);
        at[i] = n->kids[i]->type;
    }
    struct type *t = n->type;
    const char *m = math1(b);
    if (m) {
        if (n->nkids == 2) return tmp(t, "%s(%s, %s)", m, arg[0], arg[1]);
        return tmp(t, "%s(%s)", m, arg[0]);
    }
    struct type *t0 = n->nkids ? at[0] : NULL;
    switch (b) {
    case BI_LEN: return tmp(ty_int, "%s->len", arg[0]);
    case BI_STR: return tmp_owned(ty_str, "brt_to_str(%s, &%s)", tdesc(t0), lval(arg[0], t0));
    case BI_ABS:
        if (t0 == ty_int) return tmp(t, "brt_abs_i64(%s, %s)", arg[0], loc_ref(n->loc));
        if (t0 == ty_i128) return tmp(t, "brt_abs_i128(%s, %s)", arg[0], loc_ref(n->loc));
        if (t0 == ty_float) return tmp(t, "bp_fabs(%s)", arg[0]);
        return arg[0]; /* u64 */
    case BI_MIN2: case BI_MAX2: {
        /* Python's min(a, b): b only if strictly smaller (larger). A str result
         * borrows from the operands, which live until the scope ends. */
        const char *rel = b == BI_MIN2 ? "<" : ">";
        if (t0 == ty_i128) return tmp(t, "brt_cmp_i128(%s, %s) %s 0 ? %s : %s", arg[1], arg[0], rel, arg[1], arg[0]);
        if (t0 == ty_str) return tmp(t, "brt_str_cmp(%s, %s) %s 0 ? %s : %s", arg[1], arg[0], rel, arg[1], arg[0]);
        return tmp(t, "%s %s %s ? %s : %s", arg[1], rel, arg[0], arg[1], arg[0]);
    }
    case BI_OS_ARGS: return tmp_owned(t, "brt_os_args()");
    case BI_OS_THREAD_COUNT: return tmp(t, "brt_os_thread_count()");
    case BI_OS_CLOCK: return tmp(t, "brt_os_clock()");
    case BI_OS_EXIT: line("brt_os_exit(%s);", arg[0]); return "";
    case BI_OS_GETENV: return tmp_owned(t, "brt_os_getenv(%s)", arg[0]);
    case BI_PANIC: line("brt_panic_msg(%s, \"%%s\", %s->data);", F->site ? "site" : loc_ref(n->loc), arg[0]); return "";
    case M_WRAPPING_ADD: case M_WRAPPING_SUB: case M_WRAPPING_MUL: {
        const char *nm = b == M_WRAPPING_ADD ? "add" : b == M_WRAPPING_SUB ? "sub" : "mul";
        if (t0 == ty_u64) return tmp(t, "%s %s %s", arg[0], b == M_WRAPPING_ADD ? "+" : b == M_WRAPPING_SUB ? "-" : "*", arg[1]);
        return tmp(t, "brt_wrapping_%s_%s(%s, %s)", nm, suffix(t0), arg[0], arg[1]);
    }
    case M_WRAPPING_NEG:
        if (t0 == ty_u64) return tmp(t, "0 - %s", arg[0]);
        return tmp(t, "brt_wrapping_neg_%s(%s)", suffix(t0), arg[0]);
    case M_ROTATE_LEFT: case M_ROTATE_RIGHT: {
        const char *dir = b == M_ROTATE_LEFT ? "rotl" : "rotr";
        const char *s = rot_amount(arg[1], at[1]);
        if (t0 == ty_i128) return tmp(t, "brt_%s_i128(%s, %s)", dir, arg[0], s);
        if (t0 == ty_u64) return tmp(t, "brt_%s_u64(%s, %s)", dir, arg[0], s);
        return tmp(t, "(int64_t)brt_%s_u64((uint64_t)%s, %s)", dir, arg[0], s);
    }
    case M_COUNT_ONES: case M_LEADING_ZEROS: case M_TRAILING_ZEROS: {
        const char *nm = b == M_COUNT_ONES ? "count_ones" : b == M_LEADING_ZEROS ? "leading_zeros" : "trailing_zeros";
        if (t0 == ty_i128) return tmp(t, "brt_%s_i128(%s)", nm, arg[0]);
        return tmp(t, "brt_%s_u64((uint64_t)%s)", nm, arg[0]);
    }
    default:
        break;
    }
    internal_error("emit: builtin %s", builtin_name[b]);
}

/* ---- comprehensions and reductions ----------------------------------------- */

/* The iteration source evaluated once in the current function: for a range
 * its bounds and its element count (without overflow: at most INT64_MAX),
 * for an array the array (borrowed or owned by the enclosing scope: element
 * expressions cannot assign variables, so no snapshot is needed). */
struct src {
    bool is_range;
    struct type *it;  /* range bound type */
    const char *lo, *n, *arr;
};

static struct src eval_source(struct ir_iter *it)
{
    struct src s = {0};
    s.is_range = it->is_range;
    if (it->is_range) {
        s.it = it->lo->type;
        if (s.it != ty_int && s.it != ty_u64) internal_error("emit: range of %s", type_name(s.it));
        s.lo = emit_expr(it->lo);
        const char *hi = emit_expr(it->hi);
        s.lo = lval(s.lo, s.it);
        const char *cast = s.it == ty_int ? "(uint64_t)" : "";
        if (it->inclusive)
            s.n = tmp(ty_int, "%s <= %s ? bp_count_incl(%s%s - %s%s) : 0", s.lo, hi, cast, hi, cast, s.lo);
        else
            s.n = tmp(ty_int, "%s < %s ? bp_count(%s%s - %s%s) : 0", s.lo, hi, cast, hi, cast, s.lo);
    } else {
        s.arr = emit_expr(it->array);
        s.n = tmp(ty_int, "%s->len", s.arr);
    }
    return s;
}

/* Sets the generator variable to element k (a C expression) of the source,
 * whose parts are reached through the prefix ("" or "env->"). */
static void set_gen_var(struct ir_node *rn, const char *pre, const char *lo, const char *arr, const char *k, bool is_range)
{
    const char *gv = vname(rn->gen_var);
    struct type *vt = rn->gen_var->type;
    if (is_range) {
        if (vt == ty_int) line("%s = (int64_t)((uint64_t)%s%s + (uint64_t)%s);", gv, pre, lo, k);
        else line("%s = %s%s + (uint64_t)%s;", gv, pre, lo, k);
    } else {
        line("%s = BRT_AT(%s, %s%s, %s);", gv, ctype(vt), pre, arr, k);
    }
}

static const char *start_value(enum reducer r, struct type *t)
{
    bool one = r == RED_PRODUCT;
    switch (t->kind) {
    case T_FLOAT: return one ? "1.0" : "0.0";
    case T_I128: return one ? "brt_i128_make(1, 0)" : "brt_i128_make(0, 0)";
    case T_BOOL: return r == RED_ALL ? "true" : "false";
    case T_INT: case T_U64: return one ? "1" : "0";
    case T_STR: case T_ARRAY: return "NULL";
    case T_VOID: break;
    }
    internal_error("emit: start value");
}

/* acc = acc OP x for sum/product (checked for integers). */
static void fold_arith(enum reducer r, struct type *t, const char *acc, const char *x, const char *L)
{
    const char *op = r == RED_SUM ? "add" : "mul";
    if (t == ty_float) line("%s = %s %s %s;", acc, acc, r == RED_SUM ? "+" : "*", x);
    else line("%s = brt_%s_%s(%s, %s, %s);", acc, op, suffix(t), acc, x, L);
}

/* The condition "x is strictly smaller (larger) than acc". */
static const char *better(enum reducer r, struct type *t, const char *x, const char *acc)
{
    const char *rel = r == RED_MIN ? "<" : ">";
    if (t == ty_i128) return arena_printf("brt_cmp_i128(%s, %s) %s 0", x, acc, rel);
    if (t == ty_str) return arena_printf("brt_str_cmp(%s, %s) %s 0", x, acc, rel);
    return arena_printf("%s %s %s", x, rel, acc);
}

/* One element of a reduction folded into acc (has: min/max's flag, stop:
 * any/all's). Runs inside the element's own scope. */
static void fold_elem(struct ir_node *rn, const char *acc, const char *has, const char *stop, const char *L)
{
    struct type *t = rn->elem_type;
    const char *x = emit_expr(rn->elem);
    switch (rn->reducer) {
    case RED_SUM: case RED_PRODUCT:
        fold_arith(rn->reducer, t, acc, x, L);
        if (has) line("%s = 1;", has);
        return;
    case RED_MIN: case RED_MAX:
        if (type_is_ref(t)) {
            /* the accumulator holds its own reference */
            line("if (!%s || %s) { brt_retain(%s); %s(%s); %s = %s; %s = 1; }", has, better(rn->reducer, t, x, acc), x,
                 release_fn(t), acc, acc, x, has);
        } else {
            line("if (!%s || %s) { %s = %s; %s = 1; }", has, better(rn->reducer, t, x, acc), acc, x, has);
        }
        return;
    case RED_ANY:
        line("if (%s) { %s = true; %s = 1; }", x, acc, stop);
        return;
    case RED_ALL:
        line("if (!%s) { %s = false; %s = 1; }", x, acc, stop);
        return;
    }
}

/* The body of one iteration: the generator variable is set; the filter,
 * then the element in its own scope. */
static void iteration(struct ir_node *rn, void (*elem)(struct ir_node *, void *), void *arg)
{
    scope_open();
    if (rn->filter) {
        const char *f = emit_expr(rn->filter);
        line("if (%s) {", f);
        F->ind++;
    }
    scope_open();
    elem(rn, arg);
    scope_close();
    if (rn->filter) {
        F->ind--;
        line("}");
    }
    scope_close();
}

struct fold_arg { const char *acc, *has, *stop, *L; };
static void fold_cb(struct ir_node *rn, void *p)
{
    struct fold_arg *a = p;
    fold_elem(rn, a->acc, a->has, a->stop, a->L);
}

struct push_arg { const char *out; bool indirect; };
static void push_cb(struct ir_node *rn, void *p)
{
    struct push_arg *a = p;
    const char *x = emit_expr(rn->elem);
    x = take(x, rn->elem_type);
    x = lval(x, rn->elem_type);
    if (a->indirect) line("*%s = brt_arr_push(*%s, &%s);", a->out, a->out, x);
    else line("%s = brt_arr_push(%s, &%s);", a->out, a->out, x);
}

/* par comprehensions without a filter: element k goes to its slot. */
struct store_arg { const char *ct, *k; };
static void store_cb(struct ir_node *rn, void *p)
{
    struct store_arg *a = p;
    const char *x = emit_expr(rn->elem);
    x = take(x, rn->elem_type);
    line("((%s *)data_)[%s] = %s;", a->ct, a->k, x);
}

/* A loop over k in [from, to) of the source, running body per element. */
static void source_loop(struct ir_node *rn, const char *pre, const char *lo, const char *arr, const char *from,
                        const char *to, bool is_range, void (*elem)(struct ir_node *, void *), void *arg,
                        const char *stop)
{
    const char *k = new_temp();
    line("for (int64_t %s = %s; %s < %s; %s++) {", k, from, k, to, k);
    F->ind++;
    set_gen_var(rn, pre, lo, arr, k, is_range);
    iteration(rn, elem, arg);
    if (stop) line("if (%s) break;", stop);
    F->ind--;
    line("}");
}

static const char *emit_seq_reduce(struct ir_node *rn)
{
    struct type *t = rn->type;
    const char *L = loc_ref(rn->loc);
    struct src s = eval_source(&rn->iter);
    declare_var(rn->gen_var, VS_BORROWED);
    const char *acc = new_temp();
    line("%s %s = %s;", ctype(t), acc, start_value(rn->reducer, t));
    const char *has = NULL, *stop = NULL;
    if (rn->reducer == RED_MIN || rn->reducer == RED_MAX) {
        has = new_temp();
        line("bool %s = 0;", has);
    }
    if (rn->reducer == RED_ANY || rn->reducer == RED_ALL) {
        stop = new_temp();
        line("bool %s = 0;", stop);
    }
    struct fold_arg fa = {acc, has, stop, L};
    source_loop(rn, "", s.lo, s.arr, "0", s.n, s.is_range, fold_cb, &fa, stop);
    if (has) line("if (!%s) brt_panic(%s, %s);", has, L, rn->reducer == RED_MIN ? "BRT_MIN_EMPTY" : "BRT_MAX_EMPTY");
    own(acc, t);
    return acc;
}

/* The environment of a par helper: the source and the captured variables
 * (scalars by value, str/arrays as borrowed pointers). */
static void env_struct(struct buf *b, int id, struct ir_node *rn, struct src *s)
{
    bprintf(b, "struct bp_env%d {\n    int64_t n;\n", id);
    if (s->is_range) bprintf(b, "    %s lo;\n", ctype(s->it));
    else bprintf(b, "    brt_arr *arr;\n");
    for (int i = 0; i < rn->ncaps; i++)
        bprintf(b, "    %s v%d; /* %s */\n", ctype(rn->caps[i]->type), rn->caps[i]->id, rn->caps[i]->name);
    bprintf(b, "};\n");
}

static const char *env_fill(int id, struct ir_node *rn, struct src *s)
{
    const char *e = new_temp();
    line("struct bp_env%d %s;", id, e);
    line("%s.n = %s;", e, s->n);
    if (s->is_range) line("%s.lo = %s;", e, s->lo);
    else line("%s.arr = %s;", e, s->arr);
    for (int i = 0; i < rn->ncaps; i++) line("%s.v%d = %s;", e, rn->caps[i]->id, vname(rn->caps[i]));
    return e;
}

/* Starts a helper function: a new context whose captured variables are
 * unpacked from env (borrowed). */
static struct fctx *helper_begin(int id, struct ir_node *rn)
{
    struct fctx *saved = F;
    F = fctx_new();
    bprintf(&F->decl, "    struct bp_env%d *env = envp;\n", id);
    for (int i = 0; i < rn->ncaps; i++) {
        struct ir_var *v = rn->caps[i];
        F->vst[v->id] = VS_BORROWED;
        bprintf(&F->decl, "    %s v%d = env->v%d;\n", ctype(v->type), v->id, v->id);
    }
    declare_var(rn->gen_var, VS_BORROWED);
    return saved;
}

/* Ends a helper: header + declarations + body + exit releases into out. */
static void helper_end(struct fctx *saved, struct buf *out, const char *header)
{
    bputs(out, header);
    bputs(out, " {\n");
    if (F->decl.p) bputs(out, F->decl.p);
    if (F->body.p) bputs(out, F->body.p);
    for (int i = 0; i < F->nlocals; i++)
        bprintf(out, "    %s(v%d);\n", release_fn(F->locals[i]->type), F->locals[i]->id);
    for (int i = 0; i < F->nextra; i++) bprintf(out, "    %s(%s);\n", release_fn(F->extra_t[i]), F->extra[i]);
    bputs(out, "}\n\n");
    F = saved;
}

/* ---- par leaves in SIMD lanes ------------------------------------------------ */

/* Float leaves() folds 4 full leaves at once: lane q takes leaf b+q and
 * folds it one element per step, left to right from the start value, so
 * every leaf sees exactly the operations of the one-leaf scalar fold, in the
 * same order; only independent leaves sit side by side. The lanes are
 * written out as scalar locals, one statement per lane per element: gcc -O2
 * keeps them in registers and its SLP pass pairs them in SSE2 registers
 * (addpd, divpd); tcc runs the same statements one by one, same bits.
 * Integer leaves go one per block: their wrapped fold is order-free. The lane
 * code must not panic: operations that can fail (checked integer +, -, *,
 * unhoisted indexing, conversions) compute a wrapped or clamped value and
 * raise the block's flag ovf_; a flagged block is re-run by the scalar
 * leaves function, which panics at the exact place (or, for a conservative
 * flag that was a false alarm, just computes the same values). Anything else
 * that could panic, allocate or have an effect keeps the scalar form. */
/* Leaves per block: floats 4 side by side (each must fold in order; gcc's
 * SLP packs them two per SSE2 register, and 8 lanes measured no faster: the
 * arrays are memory-bound, divisions divpd-bound), integers one leaf per
 * block (their wrapped fold is order-free, the j loop has the parallelism). */
static int lane_width(struct ir_node *rn)
{
    return rn->type == ty_float ? 4 : 1;
}

/* Writes the template text for lane q: every `name[q_]` becomes `nameq`. */
static void lane_put(struct buf *out, const char *text, int q)
{
    if (!text) return;
    for (const char *p = text; *p;) {
        const char *m = strstr(p, "[q_]");
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
    const char *gv;              /* this lane's value of the generator variable */
    struct buf checks;           /* call-level statements that may clear ok_ */
    struct buf inits, steps;     /* per-lane declarations and per-step updates, as templates */
    const char *off_key[16], *off_name[16];
    int noff;
    const char *ind_key[16], *ind_name[16];
    int nind;
};
static struct lanes *LC;

static const char *lane_expr(struct ir_node *n);

static bool lane_scalar(struct type *t) { return t == ty_int || t == ty_u64 || t == ty_float || t == ty_bool; }

static const char *lane_fail(void)
{
    LC->fail = true;
    return "0";
}

/* Raises the block's flag when the C condition holds. */
static void lane_flag(const char *cond) { line("ovf_ |= (uint64_t)(%s);", cond); }

/* A loop-invariant int that cannot fail: a literal, a captured variable, a
 * constant. */
static const char *lane_inv(struct ir_node *n)
{
    if (n->type != ty_int) return NULL;
    if (n->op == IR_INT) return int_lit(ty_int, n->ival);
    if (n->op == IR_VAR && n->var != LC->rn->gen_var) return vname(n->var);
    if (n->op == IR_GLOBAL) return arena_printf("g%d", n->global->id);
    return NULL;
}

/* Whether n is `i`, `i + c`, `c + i` or `i - c` for the generator variable i
 * of an int range and an invariant c; returns the call-level variable
 * holding the offset (c or -c), or NULL. */
static const char *lane_affine(struct ir_node *n)
{
    struct ir_node *rn = LC->rn;
    if (!rn->iter.is_range || rn->gen_var->type != ty_int) return NULL;
    const char *c = NULL;
    bool neg = false;
    if (n->op == IR_VAR && n->var == rn->gen_var) {
        c = "0";
    } else if (n->op == IR_BINARY && n->optype == ty_int && (n->bop == OP_ADD || n->bop == OP_SUB)) {
        bool agv = n->a->op == IR_VAR && n->a->var == rn->gen_var;
        bool bgv = n->b->op == IR_VAR && n->b->var == rn->gen_var;
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
        bprintf(&LC->checks, "        int64_t %s = 0;\n        if (%s == INT64_MIN) ok_ = 0; else %s = -%s;\n", o, c, o, c);
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
    const char *o = lane_affine(n);
    if (!o) return NULL;
    for (int i = 0; i < LC->nind; i++)
        if (strcmp(LC->ind_key[i], o) == 0) return arena_printf("%s[q_]", LC->ind_name[i]);
    if (LC->nind == 16) return NULL;
    const char *fi = arena_printf("fi%d_", LC->nind);
    bprintf(&LC->checks, "        if (ok_ && !bp_span(vmin_, vmax_, %s, -BP_EXACT, BP_EXACT)) ok_ = 0;\n", o);
    bprintf(&LC->inits, "                double %s[q_] = (double)((int64_t)((uint64_t)env->lo + (uint64_t)kb_[q_]) + %s);\n", fi, o);
    bprintf(&LC->steps, "                        %s[q_] = %s[q_] + 1.0;\n", fi, fi);
    LC->ind_key[LC->nind] = o;
    LC->ind_name[LC->nind++] = fi;
    return arena_printf("%s[q_]", fi);
}

/* A captured or constant array of scalars (read-only during the reduction). */
static const char *lane_array(struct ir_node *a)
{
    if (a->type->kind != T_ARRAY || !lane_scalar(a->type->elem)) return NULL;
    if (a->op == IR_VAR && a->var != LC->rn->gen_var) return vname(a->var);
    if (a->op == IR_GLOBAL) return arena_printf("g%d", a->global->id);
    return NULL;
}

static const char *lane_binary(struct ir_node *n)
{
    struct type *ot = n->optype;
    enum op op = n->bop;
    if (!lane_scalar(ot) || !lane_scalar(n->b->type)) return lane_fail();
    bool cmp = op == OP_EQ || op == OP_NE || op == OP_LT || op == OP_LE || op == OP_GT || op == OP_GE;
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
    if (cmp) return tmp(ty_bool, "%s %s %s", a, cmp_op(op), b);
    if (ot == ty_bool) {
        switch (op) {
        case OP_BAND: return tmp(ot, "%s & %s", a, b);
        case OP_BOR: return tmp(ot, "%s | %s", a, b);
        case OP_BXOR: return tmp(ot, "%s ^ %s", a, b);
        default: return lane_fail();
        }
    }
    if (ot == ty_float) {
        switch (op) {
        case OP_ADD: return tmp(ot, "%s + %s", a, b);
        case OP_SUB: return tmp(ot, "%s - %s", a, b);
        case OP_MUL: return tmp(ot, "%s * %s", a, b);
        case OP_DIV: return tmp(ot, "%s / %s", a, b);
        case OP_MOD: return tmp(ot, "fmod(%s, %s)", a, b);
        default: return lane_fail();
        }
    }
    bool si = ot == ty_int;
    switch (op) {
    case OP_ADD: {
        if (!si) {
            const char *r = tmp(ot, "%s + %s", a, b);
            lane_flag(arena_printf("%s < %s", r, a));
            return r;
        }
        const char *r = tmp(ot, "(int64_t)((uint64_t)%s + (uint64_t)%s)", a, b);
        lane_flag(arena_printf("(uint64_t)((%s ^ %s) & (%s ^ %s)) >> 63", a, r, b, r));
        return r;
    }
    case OP_SUB: {
        if (!si) {
            lane_flag(arena_printf("%s > %s", b, a));
            return tmp(ot, "%s - %s", a, b);
        }
        const char *r = tmp(ot, "(int64_t)((uint64_t)%s - (uint64_t)%s)", a, b);
        lane_flag(arena_printf("(uint64_t)((%s ^ %s) & (%s ^ %s)) >> 63", a, b, a, r));
        return r;
    }
    case OP_MUL:
        /* conservative: both factors small means no overflow; a false alarm
         * only sends the block to the scalar path */
        if (si) {
            lane_flag(arena_printf("((uint64_t)%s + 0x80000000ULL > 0xFFFFFFFFULL) | ((uint64_t)%s + 0x80000000ULL > 0xFFFFFFFFULL)", a, b));
            return tmp(ot, "(int64_t)((uint64_t)%s * (uint64_t)%s)", a, b);
        }
        lane_flag(arena_printf("((%s | %s) >> 32) != 0", a, b));
        return tmp(ot, "%s * %s", a, b);
    case OP_DIV: case OP_MOD: {
        /* only by a literal that can neither be 0 nor -1 */
        if (n->b->op != IR_INT) return lane_fail();
        uint64_t d = (uint64_t)n->b->ival;
        if (d == 0 || (si && (int64_t)d == -1)) return lane_fail();
        return tmp(ot, "%s %s %s", a, op == OP_DIV ? "/" : "%", b);
    }
    case OP_BAND: return tmp(ot, "%s & %s", a, b);
    case OP_BOR: return tmp(ot, "%s | %s", a, b);
    case OP_BXOR: return tmp(ot, "%s ^ %s", a, b);
    default: return lane_fail();
    }
}

static const char *lane_builtin(struct ir_node *n)
{
    enum builtin b = n->builtin;
    struct type *t = n->type;
    if (b == BI_LEN) {
        const char *arr = n->nkids == 1 && n->kids[0]->op != IR_INDEX ? lane_array(n->kids[0]) : NULL;
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
    const char *m = math1(b);
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

/* The lane form of an expression: a C expression (usually a temporary of
 * the lane loop's body) with the value the scalar code computes whenever
 * the block's flag stays clear. Sets LC->fail for what cannot run in lanes. */
static const char *lane_expr(struct ir_node *n)
{
    if (LC->fail) return "0";
    if (n->type->kind != T_ARRAY && !lane_scalar(n->type)) return lane_fail();
    switch (n->op) {
    case IR_INT: return int_lit(n->type, n->ival);
    case IR_FLOAT: return float_lit(n->fval);
    case IR_BOOL: return n->bval ? "1" : "0";
    case IR_VAR:
        if (n->var == LC->rn->gen_var) return LC->gv;
        if (!lane_scalar(n->type)) return lane_fail();
        return vname(n->var);
    case IR_GLOBAL:
        if (!lane_scalar(n->type)) return lane_fail();
        return arena_printf("g%d", n->global->id);
    case IR_UNARY: {
        struct type *t = n->optype;
        const char *a = lane_expr(n->a);
        if (LC->fail) return "0";
        if (n->bop == OP_NEG) {
            if (t == ty_float) return tmp(t, "-%s", a);
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
        /* both sides are pure here: evaluating the right one when the
         * scalar code would not can only raise a false alarm */
        const char *a = lane_expr(n->a);
        const char *b = lane_expr(n->b);
        if (LC->fail) return "0";
        return tmp(ty_bool, "%s %s %s", a, n->op == IR_AND ? "&" : "|", b);
    }
    case IR_COND: {
        const char *c = lane_expr(n->a);
        const char *x = lane_expr(n->b);
        const char *y = lane_expr(n->c);
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
        const char *arr = lane_array(n->a);
        if (!arr || n->b->type != ty_int) return lane_fail();
        const char *ct = ctype(n->type);
        const char *o = lane_affine(n->b);
        const char *i = lane_expr(n->b);
        if (LC->fail) return "0";
        if (o) {
            /* i + c over the whole call checked against the length once */
            bprintf(&LC->checks, "        if (ok_ && !bp_span(vmin_, vmax_, %s, 0, %s->len - 1)) ok_ = 0;\n", o, arr);
            return tmp(n->type, "BRT_AT(%s, %s, %s)", ct, arr, i);
        }
        bprintf(&LC->checks, "        if (%s->len == 0) ok_ = 0;\n", arr);
        const char *in = tmp(ty_bool, "(uint64_t)%s < (uint64_t)%s->len", i, arr);
        lane_flag(arena_printf("!%s", in));
        return tmp(n->type, "BRT_AT(%s, %s, %s ? %s : 0)", ct, arr, in, i);
    }
    case IR_BUILTIN: return lane_builtin(n);
    default:
        return lane_fail();
    }
}

/* Emits bp_leaves<id> in lanes, calling the scalar bp_leaves_s<id> for the
 * ragged tail, for leftovers and for flagged blocks. Returns false (and
 * emits nothing) when the element, filter or reducer cannot run in lanes. */
static bool emit_lane_leaves(struct ir_node *rn, int id, struct src *s, struct buf *out)
{
    struct type *t = rn->type;
    if (t != ty_int && t != ty_u64 && t != ty_float) return false;
    if (!s->is_range && !lane_scalar(rn->gen_var->type)) return false;
    struct lanes lc = {0};
    lc.rn = rn;
    LC = &lc;
    struct fctx *saved = helper_begin(id, rn);
    F->ind = 6;
    bool irange = s->is_range && s->it == ty_int;
    /* the generator variable of this lane */
    if (s->is_range) {
        if (s->it == ty_int) lc.gv = tmp(ty_int, "(int64_t)((uint64_t)env->lo + (uint64_t)k_)");
        else lc.gv = tmp(ty_u64, "env->lo + (uint64_t)k_");
    } else {
        lc.gv = tmp(rn->gen_var->type, "BRT_AT(%s, env->arr, k_)", ctype(rn->gen_var->type));
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
                /* Integers: one leaf per block (W == 1). The wrapped result
                 * does not depend on the order, and bounding every element
                 * bounds every partial result of the 16-element fold:
                 * |x| < 2^58 for sums (16 * 2^58 = 2^62), |x| <= 8 for
                 * products (8^16 = 2^48). Beyond that the scalar fold decides. */
                const char *w = t == ty_int ? "(int64_t)((uint64_t)acc_[q_] %s (uint64_t)%s)" : "acc_[q_] %s %s";
                line("acc_[q_] = %s;", arena_printf(w, sum ? "+" : "*", xm));
            }
            if (t != ty_float) {
                if (o)
                    bprintf(&lc.checks, "        if (ok_ && !bp_span(vmin_, vmax_, %s, -(1LL << 58), (1LL << 58) - 1)) ok_ = 0;\n", o);
                else if (sum) lane_flag(arena_printf(t == ty_int ? "((uint64_t)%s + (1ULL << 58)) >> 59" : "%s >> 59", xm));
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
    struct buf body = F->body;
    F->body = (struct buf){0};
    if (lc.fail) {
        F = saved;
        LC = NULL;
        return false;
    }
    bool hs_all = (!rn->filter || t != ty_float) && (rn->reducer == RED_SUM || rn->reducer == RED_PRODUCT);
    int W = lane_width(rn);
    const char *hdr = arena_printf("static void bp_leaves%d(void *envp, int64_t first, int64_t count, void *vals, unsigned char *has)", id);
    bputs(out, hdr);
    bputs(out, " {\n");
    if (F->decl.p) bputs(out, F->decl.p);
    bprintf(out, "    int64_t g_ = 0;\n");
    bprintf(out, "    if (count >= %d) {\n", W);
    bprintf(out, "        int64_t nf_ = env->n / BRT_LEAF - first; /* full leaves from first */\n");
    bprintf(out, "        if (nf_ > count) nf_ = count;\n");
    bprintf(out, "        int ok_ = nf_ >= %d;\n", W);
    if (irange)
        bprintf(out, "        int64_t vmin_ = (int64_t)((uint64_t)env->lo + (uint64_t)(first * BRT_LEAF));\n"
                     "        int64_t vmax_ = (int64_t)((uint64_t)env->lo + (uint64_t)((first + nf_) * BRT_LEAF - 1));\n"
                     "        (void)vmin_; (void)vmax_;\n");
    if (lc.checks.p) bputs(out, lc.checks.p);
    bprintf(out, "        if (ok_) {\n");
    bprintf(out, "            for (; g_ + %d <= nf_; g_ += %d) {\n", W, W);
    /* Lane q's state is plain locals (acc_q, kb_q, ...), one statement per
     * lane per element: gcc -O2 keeps them in registers (arrays indexed by
     * a loop counter stayed in memory: a store and a reload per element). */
    bprintf(out, "                uint64_t ovf_ = 0;\n");
    for (int q = 0; q < W; q++) {
        bprintf(out, "                int64_t kb_%d = (first + g_ + %d) * BRT_LEAF;\n", q, q);
        bprintf(out, "                %s acc_%d = %s;\n", ct, q, start_value(rn->reducer, t));
        if (!hs_all) bprintf(out, "                int hs_%d = 0;\n", q);
        lane_put(out, lc.inits.p, q);
    }
    /* One lane (integers): unrolled by gcc, the 16 steps need no loop
     * counter (tcc ignores the request; the steps are the same). */
    if (W == 1) bprintf(out, "#if BRT_GCC\n#pragma GCC unroll 16\n#endif\n");
    bprintf(out, "                for (int64_t j_ = 0; j_ < BRT_LEAF; j_++) {\n");
    for (int q = 0; q < W; q++) {
        bprintf(out, "                    { /* lane %d */\n                        int64_t k_ = kb_%d + j_;\n", q, q);
        lane_put(out, body.p, q);
        lane_put(out, lc.steps.p, q);
        bprintf(out, "                    }\n");
    }
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
    bprintf(out, "            }\n        }\n    }\n");
    bprintf(out, "    if (g_ < count) bp_leaves_s%d(envp, first + g_, count - g_, (%s *)vals + g_, has + g_);\n", id, ct);
    bputs(out, "}\n\n");
    free(body.p);
    F = saved;
    LC = NULL;
    return true;
}

static const char *emit_par_reduce(struct ir_node *rn)
{
    struct type *t = rn->type;
    const char *L = loc_ref(rn->loc);
    struct src s = eval_source(&rn->iter);
    int id = ++naux;
    struct buf aux = {0};
    env_struct(&aux, id, rn, &s);

    /* leaves(): each leaf folds from the start value; min/max from the
     * leaf's first kept element; has = 0 when the filter kept nothing. */
    struct fctx *saved = helper_begin(id, rn);
    const char *lf = new_temp(), *b = new_temp(), *e = new_temp();
    line("for (int64_t %s = 0; %s < count; %s++) {", lf, lf, lf);
    F->ind++;
    line("int64_t %s = (first + %s) * BRT_LEAF, %s = %s + BRT_LEAF;", b, lf, e, b);
    line("if (%s > env->n) %s = env->n;", e, e);
    const char *acc = new_temp(), *has = new_temp();
    line("%s %s = %s;", ctype(t), acc, start_value(rn->reducer, t));
    line("bool %s = 0;", has);
    struct fold_arg fa = {acc, has, NULL, L};
    source_loop(rn, "env->", "lo", "arr", b, e, s.is_range, fold_cb, &fa, NULL);
    line("((%s *)vals)[%s] = %s;", ctype(t), lf, acc);
    line("has[%s] = %s;", lf, has);
    F->ind--;
    line("}");
    /* with a lane form, this scalar fold is bp_leaves_s<id>: the lanes'
     * fallback for ragged tails, leftovers and flagged blocks */
    struct buf lanes = {0};
    bool laned = emit_lane_leaves(rn, id, &s, &lanes);
    helper_end(saved, &aux,
               arena_printf("static void bp_leaves%s%d(void *envp, int64_t first, int64_t count, void *vals, unsigned char *has)",
                            laned ? "_s" : "", id));
    if (laned) bputs(&aux, lanes.p);
    free(lanes.p);

    /* combine(): left = left OP right, in the tree's order */
    const char *ct = ctype(t);
    bprintf(&aux, "static void bp_combine%d(void *envp, void *l, const void *r)\n{\n", id);
    bprintf(&aux, "    %s a = *(%s *)l, b = *(const %s *)r;\n    (void)envp;\n", ct, ct, ct);
    switch (rn->reducer) {
    case RED_SUM: case RED_PRODUCT:
        if (t == ty_float) bprintf(&aux, "    *(double *)l = a %s b;\n", rn->reducer == RED_SUM ? "+" : "*");
        else bprintf(&aux, "    *(%s *)l = brt_%s_%s(a, b, %s);\n", ct, rn->reducer == RED_SUM ? "add" : "mul", suffix(t), L);
        break;
    case RED_MIN: case RED_MAX:
        bprintf(&aux, "    *(%s *)l = %s ? b : a;\n", ct, better(rn->reducer, t, "b", "a"));
        break;
    case RED_ANY: case RED_ALL:
        internal_error("emit: par any/all go sequential");
    }
    bprintf(&aux, "}\n\n");
    /* fold(): a whole aligned chunk of leaf values folded in place, level by
     * level (the runtime's generic fold with the combine inlined) */
    bprintf(&aux, "static void bp_fold%d(void *envp, void *vals, unsigned char *has)\n{\n", id);
    bprintf(&aux, "    %s *v = vals;\n", ct);
    bprintf(&aux, "    for (int s_ = 1; s_ < BRT_LEAF_CHUNK; s_ *= 2)\n");
    bprintf(&aux, "        for (int j_ = 0; j_ < BRT_LEAF_CHUNK; j_ += 2 * s_) {\n");
    bprintf(&aux, "            if (!has[j_ + s_]) continue;\n");
    bprintf(&aux, "            if (!has[j_]) { v[j_] = v[j_ + s_]; has[j_] = 1; continue; }\n");
    bprintf(&aux, "            bp_combine%d(envp, &v[j_], &v[j_ + s_]);\n", id);
    bprintf(&aux, "        }\n}\n\n");
    bputs(&s_aux, aux.p);
    bprintf(&s_protos, "struct bp_env%d;\n", id);
    /* GPU offload (emit_cuda.c): an eligible reduction tries the device first */
    char *gpu_aux = NULL;
    const char *tree = emit_cuda_reduce(rn, id, &gpu_aux);
    if (gpu_aux) bputs(&s_aux, gpu_aux), free(gpu_aux);
    if (!tree) tree = "brt_reduce_tree";

    const char *env = env_fill(id, rn, &s);
    const char *r = new_temp();
    line("brt_reduce %s = {%s, sizeof(%s), &%s, bp_leaves%d, bp_combine%d, %s, bp_fold%d};", r, s.n, ct, env, id, id, L, id);
    const char *res = new_temp(), *got = new_temp();
    line("%s %s;", ct, res);
    /* One leaf is the whole tree: fold it here, where gcc can inline it,
     * rather than through the runtime (tiny n in hot loops, SPEC 5.5). Under
     * BRINE_GPU=on an eligible reduction still goes to the device. */
    line("bool %s;", got);
    line("if (%s <= BRT_LEAF%s) {", s.n, strcmp(tree, "brt_reduce_tree") != 0 ? " && !brt_gpu_forced" : "");
    line("    unsigned char h_ = 0;");
    line("    if (%s > 0) bp_leaves%s%d(&%s, 0, 1, &%s, &h_);", s.n, laned ? "_s" : "", id, env, res);
    line("    %s = h_ != 0;", got);
    line("} else {");
    line("    %s = %s(&%s, &%s);", got, tree, r, res);
    line("}");
    if (rn->reducer == RED_MIN || rn->reducer == RED_MAX)
        line("if (!%s) brt_panic(%s, %s);", got, L,
             rn->reducer == RED_MIN ? "BRT_MIN_EMPTY" : "BRT_MAX_EMPTY");
    else
        line("if (!%s) %s = %s;", got, res, start_value(rn->reducer, t));
    return res;
}

static const char *emit_listcomp(struct ir_node *rn)
{
    struct type *t = rn->type;
    struct src s = eval_source(&rn->iter);
    if (!rn->par) {
        declare_var(rn->gen_var, VS_BORROWED);
        const char *out = tmp(t, "brt_arr_new(%s, 0)", tdesc(rn->elem_type));
        struct push_arg pa = {out, false};
        source_loop(rn, "", s.lo, s.arr, "0", s.n, s.is_range, push_cb, &pa, NULL);
        own(out, t);
        return out;
    }
    int id = ++naux;
    struct buf aux = {0};
    env_struct(&aux, id, rn, &s);
    struct fctx *saved = helper_begin(id, rn);
    if (!rn->filter) {
        /* no filter: every element has its slot, filled in place */
        const char *k = new_temp();
        struct store_arg sa = {ctype(rn->elem_type), k};
        line("for (int64_t %s = lo_; %s < hi_; %s++) {", k, k, k);
        F->ind++;
        set_gen_var(rn, "env->", "lo", "arr", k, s.is_range);
        iteration(rn, store_cb, &sa);
        F->ind--;
        line("}");
        helper_end(saved, &aux, arena_printf("static void bp_fill%d(void *envp, int64_t lo_, int64_t hi_, void *data_)", id));
        bputs(&s_aux, aux.p);
        const char *env = env_fill(id, rn, &s);
        const char *f = new_temp();
        line("brt_fill %s = {%s, %s, &%s, bp_fill%d};", f, s.n, tdesc(rn->elem_type), env, id);
        return tmp_owned(t, "brt_par_fill(&%s)", f);
    }
    struct push_arg pa = {"out", true};
    source_loop(rn, "env->", "lo", "arr", "lo_", "hi_", s.is_range, push_cb, &pa, NULL);
    helper_end(saved, &aux, arena_printf("static void bp_body%d(void *envp, int64_t lo_, int64_t hi_, brt_arr **out)", id));
    bputs(&s_aux, aux.p);
    const char *env = env_fill(id, rn, &s);
    const char *c = new_temp();
    line("brt_collect %s = {%s, %s, &%s, bp_body%d};", c, s.n, tdesc(rn->elem_type), env, id);
    return tmp_owned(t, "brt_par_collect(&%s)", c);
}

/* par any / par all: bp_find<n>(env, lo, hi) evaluates elements lo..hi-1 in
 * order, exactly as the sequential loop does, and returns the index of the
 * first deciding one (any: true, all: false) or -1; brt_par_find runs chunks
 * on the pool and keeps the lowest deciding index, reporting a chunk's panic
 * only when no earlier chunk decided (SPEC 5.3). */
struct find_arg { const char *k, *res, *stop; bool any; };
static void find_cb(struct ir_node *rn, void *p)
{
    struct find_arg *a = p;
    const char *x = emit_expr(rn->elem);
    line("if (%s%s) { %s = %s; %s = 1; }", a->any ? "" : "!", x, a->res, a->k, a->stop);
}

static const char *emit_par_find(struct ir_node *rn)
{
    struct src s = eval_source(&rn->iter);
    int id = ++naux;
    struct buf aux = {0};
    env_struct(&aux, id, rn, &s);
    struct fctx *saved = helper_begin(id, rn);
    const char *res = new_temp(), *stop = new_temp(), *k = new_temp();
    line("int64_t %s = -1;", res);
    line("bool %s = 0;", stop);
    line("for (int64_t %s = lo_; %s < hi_; %s++) {", k, k, k);
    F->ind++;
    set_gen_var(rn, "env->", "lo", "arr", k, s.is_range);
    struct find_arg fa = {k, res, stop, rn->reducer == RED_ANY};
    iteration(rn, find_cb, &fa);
    line("if (%s) break;", stop);
    F->ind--;
    line("}");
    /* helper_end with a result: the releases, then the return */
    bputs(&aux, arena_printf("static int64_t bp_find%d(void *envp, int64_t lo_, int64_t hi_)", id));
    bputs(&aux, " {\n");
    if (F->decl.p) bputs(&aux, F->decl.p);
    if (F->body.p) bputs(&aux, F->body.p);
    for (int i = 0; i < F->nlocals; i++)
        bprintf(&aux, "    %s(v%d);\n", release_fn(F->locals[i]->type), F->locals[i]->id);
    for (int i = 0; i < F->nextra; i++) bprintf(&aux, "    %s(%s);\n", release_fn(F->extra_t[i]), F->extra[i]);
    bprintf(&aux, "    return %s;\n}\n\n", res);
    F = saved;
    bputs(&s_aux, aux.p);
    bprintf(&s_protos, "struct bp_env%d;\n", id);
    const char *env = env_fill(id, rn, &s);
    const char *at = tmp(ty_int, "brt_par_find(%s, &%s, bp_find%d)", s.n, env, id);
    return tmp(ty_bool, "%s %s 0", at, rn->reducer == RED_ANY ? ">=" : "<");
}

static const char *emit_reduce(struct ir_node *rn)
{
    if (rn->par && (rn->reducer == RED_ANY || rn->reducer == RED_ALL)) return emit_par_find(rn);
    bool par = rn->par && !type_is_ref(rn->elem_type);
    return par ? emit_par_reduce(rn) : emit_seq_reduce(rn);
}

static const char *emit_expr(struct ir_node *n)
{
    switch (n->op) {
    case IR_INT: return int_lit(n->type, n->ival);
    case IR_FLOAT: return float_lit(n->fval);
    case IR_BOOL: return n->bval ? "true" : "false";
    case IR_STR: {
        int id = ++nstrs;
        bprintf(&s_strs, "static brt_str S%d = BRT_STR_LIT(", id);
        c_string(&s_strs, n->str ? n->str : "", n->slen);
        bprintf(&s_strs, ", %zu);\n", n->slen);
        return arena_printf("(&S%d)", id);
    }
    case IR_VAR: return vname(n->var);
    case IR_GLOBAL: return arena_printf("g%d", n->global->id);
    case IR_UNARY: {
        const char *a = emit_expr(n->a);
        struct type *t = n->optype;
        if (n->bop == OP_NEG) {
            if (t == ty_float) return tmp(t, "-%s", a);
            return tmp(t, "brt_neg_%s(%s, %s)", suffix(t), a, loc_ref(n->loc));
        }
        if (t == ty_i128) return tmp(t, "brt_not_i128(%s)", a);
        return tmp(t, "~%s", a);
    }
    case IR_NOT: return tmp(ty_bool, "!%s", emit_expr(n->a));
    case IR_BINARY: return emit_binary(n);
    case IR_AND: case IR_OR: {
        const char *a = emit_expr(n->a);
        const char *r = tmp(ty_bool, "%s", a);
        line("if (%s%s) {", n->op == IR_AND ? "" : "!", r);
        F->ind++;
        scope_open();
        const char *b = emit_expr(n->b);
        line("%s = %s;", r, b);
        scope_close();
        F->ind--;
        line("}");
        return r;
    }
    case IR_COND: {
        const char *c = emit_expr(n->a);
        const char *r = new_temp();
        line("%s %s;", ctype(n->type), r);
        line("if (%s) {", c);
        for (int br = 0; br < 2; br++) {
            F->ind++;
            scope_open();
            const char *x = emit_expr(br == 0 ? n->b : n->c);
            x = take(x, n->type);
            line("%s = %s;", r, x);
            scope_close();
            F->ind--;
            line(br == 0 ? "} else {" : "}");
        }
        own(r, n->type);
        return r;
    }
    case IR_CONV: return emit_conv(n);
    case IR_CALL: {
        const char **xs = arena_alloc((size_t)(n->nkids + 1) * sizeof *xs);
        struct buf args = {0};
        bputs(&args, "");
        for (int i = 0; i < n->nkids; i++) xs[i] = emit_expr(n->kids[i]);
        for (int i = 0; i < n->nkids; i++) bprintf(&args, "%s%s", i ? ", " : "", xs[i]);
        if (n->fn->has_site) bprintf(&args, "%s%s", n->nkids ? ", " : "", F->site ? "site" : loc_ref(n->loc));
        if (n->type == ty_void) {
            line("%s(%s);", n->fn->cname, args.p ? args.p : "");
            return "";
        }
        return tmp_owned(n->type, "%s(%s)", n->fn->cname, args.p ? args.p : "");
    }
    case IR_BUILTIN: return emit_builtin(n);
    case IR_INDEX: {
        const char *a = emit_expr(n->a);
        const char *i = emit_expr(n->b);
        return tmp(n->type, "BRT_AT(%s, %s, brt_idx(%s, %s, %s))", ctype(n->type), a, a, i, loc_ref(n->loc));
    }
    case IR_ARRAY: {
        struct type *et = n->type->elem;
        if (n->nkids == 0) return tmp_owned(n->type, "brt_arr_new(%s, 0)", tdesc(et));
        const char **xs = arena_alloc((size_t)n->nkids * sizeof *xs);
        for (int i = 0; i < n->nkids; i++) xs[i] = emit_expr(n->kids[i]);
        const char *el = new_temp();
        line("%s %s[%d];", ctype(et), el, n->nkids);
        for (int i = 0; i < n->nkids; i++) line("%s[%d] = %s;", el, i, take(xs[i], et));
        return tmp_owned(n->type, "brt_arr_from(%s, %d, %s)", tdesc(et), n->nkids, el);
    }
    case IR_FSTRING: {
        const char *sb = new_temp();
        line("brt_sb %s;", sb);
        line("brt_sb_init(&%s);", sb);
        for (int i = 0; i < n->nkids; i++) {
            struct ir_node *k = n->kids[i];
            if (n->lit[i]) {
                struct buf lit = {0};
                c_string(&lit, k->str ? k->str : "", k->slen);
                line("brt_sb_lit(&%s, %s, %zu);", sb, lit.p, k->slen);
                free(lit.p);
                continue;
            }
            const char *x = lval(emit_expr(k), k->type);
            const char *spec = "NULL";
            if (n->specs[i]) {
                struct buf sp = {0};
                c_string(&sp, n->specs[i], strlen(n->specs[i]));
                spec = arena_strndup(sp.p, sp.len);
                free(sp.p);
            }
            line("brt_sb_val(&%s, %s, &%s, %s);", sb, tdesc(k->type), x, spec);
        }
        return tmp_owned(ty_str, "brt_sb_finish(&%s)", sb);
    }
    case IR_LISTCOMP: return emit_listcomp(n);
    case IR_REDUCE: return emit_reduce(n);
    default: break;
    }
    internal_error("emit: %s is not an expression", ir_op_name[n->op]);
}

/* ---- statements ------------------------------------------------------------ */

/* Assigns the +1 value x to the variable (the old value released after). */
static void assign_var(const char *v, const char *x, struct type *t)
{
    if (type_is_ref(t)) {
        const char *old = new_temp();
        line("%s %s = %s;", ctype(t), old, v);
        line("%s = %s;", v, x);
        line("%s(%s);", release_fn(t), old);
    } else {
        line("%s = %s;", v, x);
    }
}

/* The slot of var[i0][i1]...[ik-1] after making each array on the way
 * unique; returns a C lvalue of the innermost array (the last index is the
 * caller's). */
static const char *unique_path(struct ir_node *s, const char **idx, int nidx, const char *L)
{
    const char *v = vname(s->var);
    line("%s = brt_arr_unique(%s);", v, v);
    const char *cur = v;
    struct type *t = s->var->type;
    for (int i = 0; i < nidx; i++) {
        const char *slot = new_temp();
        line("brt_arr **%s = &BRT_AT(brt_arr *, %s, brt_idx(%s, %s, %s));", slot, cur, cur, idx[i], L);
        line("*%s = brt_arr_unique(*%s);", slot, slot);
        cur = arena_printf("(*%s)", slot);
        t = t->elem;
    }
    return cur;
}

static void emit_block_stmts(struct ir_node *b)
{
    for (int i = 0; i < b->nkids; i++) emit_stmt(b->kids[i]);
    /* lets of this block end here: release early so copy-on-write sees
     * the true reference counts */
    for (int i = 0; i < b->nkids; i++) {
        struct ir_node *k = b->kids[i];
        if (k->op == IR_LET && type_is_ref(k->var->type))
            line("%s(v%d); v%d = NULL;", release_fn(k->var->type), k->var->id, k->var->id);
    }
}

static void emit_stmt(struct ir_node *s)
{
    switch (s->op) {
    case IR_BLOCK:
        line("{");
        F->ind++;
        emit_block_stmts(s);
        F->ind--;
        line("}");
        return;
    case IR_LET: case IR_ASSIGN: {
        scope_open();
        const char *x = emit_expr(s->a);
        x = take(x, s->a->type);
        const char *v = s->op == IR_LET ? declare_var(s->var, VS_OWNED) : vname(s->var);
        assign_var(v, x, s->var->type);
        scope_close();
        return;
    }
    case IR_STORE: case IR_PUSH: {
        scope_open();
        const char *x = emit_expr(s->a);
        const char **idx = arena_alloc((size_t)(s->nkids + 1) * sizeof *idx);
        for (int i = 0; i < s->nkids; i++) idx[i] = emit_expr(s->kids[i]);
        struct type *et = s->a->type;
        x = take(x, et);
        x = lval(x, et);
        const char *L = loc_ref(s->loc);
        if (s->op == IR_PUSH) {
            if (s->nkids == 0) {
                const char *v = vname(s->var);
                line("%s = brt_arr_push(%s, &%s);", v, v, x);
            } else {
                const char *arr = unique_path(s, idx, s->nkids, L);
                line("%s = brt_arr_push(%s, &%s);", arr, arr, x);
            }
        } else {
            const char *arr = unique_path(s, idx, s->nkids - 1, L);
            const char *slot = new_temp();
            line("%s *%s = &BRT_AT(%s, %s, brt_idx(%s, %s, %s));", ctype(et), slot, ctype(et), arr, arr,
                 idx[s->nkids - 1], L);
            if (type_is_ref(et)) {
                const char *old = new_temp();
                line("%s %s = *%s;", ctype(et), old, slot);
                line("*%s = %s;", slot, x);
                line("%s(%s);", release_fn(et), old);
            } else {
                line("*%s = %s;", slot, x);
            }
        }
        scope_close();
        return;
    }
    case IR_EXPR:
        scope_open();
        emit_expr(s->a);
        scope_close();
        return;
    case IR_IF: {
        scope_open();
        const char *c = emit_expr(s->a);
        c = lval(c, ty_bool);
        scope_close();
        line("if (%s) {", c);
        F->ind++;
        emit_stmt(s->b);
        F->ind--;
        if (s->c) {
            line("} else {");
            F->ind++;
            emit_stmt(s->c);
            F->ind--;
        }
        line("}");
        return;
    }
    case IR_WHILE: {
        line("for (;;) {");
        F->ind++;
        scope_open();
        const char *c = lval(emit_expr(s->a), ty_bool);
        scope_close();
        line("if (!%s) break;", c);
        emit_stmt(s->b);
        F->ind--;
        line("}");
        return;
    }
    case IR_FOR_RANGE: {
        struct type *it = s->iter.lo->type;
        if (it != ty_int && it != ty_u64) internal_error("emit: for over a range of %s", type_name(it));
        scope_open();
        /* copies: the body may assign the variables the bounds were read from */
        const char *lo = tmp(it, "%s", emit_expr(s->iter.lo));
        const char *hi = tmp(it, "%s", emit_expr(s->iter.hi));
        scope_close();
        const char *v = declare_var(s->var, VS_OWNED);
        const char *k = new_temp();
        const char *ct = ctype(it);
        if (s->iter.inclusive) {
            /* k never steps past hi, so hi == INT64_MAX cannot overflow */
            const char *go = new_temp();
            line("for (%s %s = %s, %s = %s <= %s; %s; %s = %s < %s, %s += %s) {", ct, k, lo, go, lo, hi, go, go, k, hi,
                 k, go);
        } else {
            line("for (%s %s = %s; %s < %s; %s++) {", ct, k, lo, k, hi, k);
        }
        F->ind++;
        line("%s = %s;", v, k);
        emit_stmt(s->b);
        F->ind--;
        line("}");
        return;
    }
    case IR_FOR_ARRAY: {
        struct type *et = s->var->type;
        scope_open();
        const char *a = emit_expr(s->iter.array);
        a = take(a, s->iter.array->type);
        const char *snap = declare_extra(s->iter.array->type);
        line("%s = %s;", snap, a);
        scope_close();
        const char *v = declare_var(s->var, VS_OWNED);
        const char *k = new_temp();
        line("for (int64_t %s = 0; %s < %s->len; %s++) {", k, k, snap, k);
        F->ind++;
        if (type_is_ref(et)) {
            line("brt_retain(BRT_AT(%s, %s, %s));", ctype(et), snap, k);
            line("%s(%s);", release_fn(et), v);
        }
        line("%s = BRT_AT(%s, %s, %s);", v, ctype(et), snap, k);
        emit_stmt(s->b);
        F->ind--;
        line("}");
        line("brt_arr_release(%s); %s = NULL;", snap, snap);
        if (type_is_ref(et)) line("%s(%s); %s = NULL;", release_fn(et), v, v);
        return;
    }
    case IR_BREAK: line("break;"); return;
    case IR_CONTINUE: line("continue;"); return;
    case IR_RETURN:
        if (s->a) {
            scope_open();
            const char *x = emit_expr(s->a);
            x = take(x, s->a->type);
            line("r_ = %s;", x);
            scope_close();
        }
        line("goto exit_;");
        F->has_exit = true;
        return;
    case IR_UNREACHABLE:
        line("brt_panic_msg(%s, \"internal error: the end of a function that returns a value\");", loc_ref(s->loc));
        return;
    default: break;
    }
    internal_error("emit: %s is not a statement", ir_op_name[s->op]);
}

/* ---- functions and the program --------------------------------------------- */

static const char *fn_header(struct ir_fn *f)
{
    struct buf b = {0};
    bprintf(&b, "%s %s(", f->ret == ty_void ? "void" : ctype(f->ret), f->cname);
    if (!f->nparams && !f->has_site) bputs(&b, "void");
    for (int i = 0; i < f->nparams; i++)
        bprintf(&b, "%s%s v%d", i ? ", " : "", ctype(f->params[i]->type), f->params[i]->id);
    if (f->has_site) bprintf(&b, "%sconst brt_loc *site", f->nparams ? ", " : "");
    bputs(&b, ")");
    return b.p;
}

static void emit_fn(struct ir_fn *f)
{
    F = fctx_new();
    F->site = f->has_site;
    for (int i = 0; i < f->nparams; i++) F->vst[f->params[i]->id] = VS_BORROWED;
    emit_block_stmts(f->body);
    struct buf *o = &s_fns;
    bprintf(o, "/* %s.%s */\nstatic %s\n{\n", f->module, f->name, fn_header(f));
    if (f->ret != ty_void) bprintf(o, "    %s r_ = %s;\n", ctype(f->ret), zero_of(f->ret));
    if (F->decl.p) bputs(o, F->decl.p);
    bprintf(o, "    brt_stack_check(%s);\n", loc_ref(f->loc));
    if (F->body.p) bputs(o, F->body.p);
    if (F->has_exit) bputs(o, "exit_:\n");
    for (int i = 0; i < F->nlocals; i++)
        bprintf(o, "    %s(v%d);\n", release_fn(F->locals[i]->type), F->locals[i]->id);
    for (int i = 0; i < F->nextra; i++) bprintf(o, "    %s(%s);\n", release_fn(F->extra_t[i]), F->extra[i]);
    if (f->ret != ty_void) bputs(o, "    return r_;\n");
    else if (F->has_exit || !F->nlocals) bputs(o, "    return;\n");
    bputs(o, "}\n\n");
}

static const char *prelude =
    "/* Generated by brine " BRINE_VERSION ". */\n"
    "#include \"brine_rt.h\"\n"
    "\n"
    "double fmod(double, double);\n"
    "/* Float literals from their bits: both C compilers read them exactly. */\n"
    "static inline double bp_f64(uint64_t u) { union { uint64_t u; double d; } c; c.u = u; return c.d; }\n"
    "static inline double bp_fabs(double x) { union { uint64_t u; double d; } c; c.d = x; c.u &= ~(1ULL << 63); return c.d; }\n"
    "static inline int64_t bp_amt_u64(uint64_t s) { return s > (uint64_t)INT64_MAX ? -1 : (int64_t)s; }\n"
    "static inline int64_t bp_amt_i128(brt_i128 s) { return s.hi != 0 || s.lo > (uint64_t)INT64_MAX ? -1 : (int64_t)s.lo; }\n"
    "/* Element counts of ranges, at most INT64_MAX. */\n"
    "static inline int64_t bp_count(uint64_t d) { return d > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)d; }\n"
    "static inline int64_t bp_count_incl(uint64_t d) { return d >= (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)d + 1; }\n"
    "/* Lanes of par leaves: whether a + off .. b + off (a <= b) stay in [lo, hi]\n"
    " * without overflow; integers up to 2^53 are exact doubles. */\n"
    "static inline int bp_span(int64_t a, int64_t b, int64_t off, int64_t lo, int64_t hi)\n"
    "{\n"
    "    if (off > 0 ? b > INT64_MAX - off : a < INT64_MIN - off) return 0;\n"
    "    return a + off >= lo && b + off <= hi;\n"
    "}\n"
    "#define BP_EXACT 9007199254740992LL\n"
    "\n";

char *emit_c(struct ir_program *ir, size_t *len_out)
{
    IR = ir;
    struct buf *secs[] = {&s_types, &s_strs, &s_locs, &s_globals, &s_protos, &s_aux, &s_fns};
    for (size_t i = 0; i < sizeof secs / sizeof *secs; i++) {
        free(secs[i]->p);
        *secs[i] = (struct buf){0};
    }
    ntemps = nlocs = nstrs = ntypes = naux = 0;
    nlocmemo = ntmemo = 0;
    free(locs);
    locs = NULL;
    caplocmemo = 0;

    for (int i = 0; i < ir->globals.len; i++) {
        struct ir_global *g = ir->globals.items[i];
        bprintf(&s_globals, "static %s g%d; /* %s.%s */\n", ctype(g->type), g->id, g->module, g->name);
    }
    for (int i = 0; i < ir->fns.len; i++) bprintf(&s_protos, "static %s;\n", fn_header(ir->fns.items[i]));
    for (int i = 0; i < ir->fns.len; i++) emit_fn(ir->fns.items[i]);

    /* main(): the runtime, then the constants in order, then main() */
    F = fctx_new();
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
    bputs(&mainb, "    brt_start(argc, argv);\n");
    if (F->body.p) bputs(&mainb, F->body.p);
    bprintf(&mainb, "    %s();\n    return brt_finish();\n}\n", ir->main->cname);

    struct buf out = {0};
    bputs(&out, prelude);
    for (size_t i = 0; i < sizeof secs / sizeof *secs; i++) {
        if (secs[i]->p) {
            bputs(&out, secs[i]->p);
            bputs(&out, "\n");
        }
    }
    bputs(&out, mainb.p);
    if (len_out) *len_out = out.len;
    return out.p;
}
