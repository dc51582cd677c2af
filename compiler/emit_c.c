/*
 * emit_c.c: the IR -> one C translation unit that includes "brine_rt.h":
 * the program, functions, statements, expressions and ownership. The rooms
 * for reductions (emit_par.c) and SIMD lanes (emit_lane.c) are named in
 * emit_c.h; emit_program() is the door of all of them.
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
 * copy-on-write does not copy needlessly. A panic under a trap skips C
 * frames: what each of them owns is listed in its brt_owner (own_record),
 * which the panic releases before it jumps.
 */
#include "emit_c.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static bool in_guarded_loop(struct ir_node *n);
static const char *frame_name(struct ir_fn *f);
static const char *spec_lit(const char *spec);
static const struct view *view_of_var(struct ir_var *v);

/* Places are memoised (big programs have many): one L<n> per place. */
/* Whether l begins inside span. */
static bool loc_within(struct loc l, struct loc span)
{
    if (l.file != span.file || span.line <= 0) return false;
    if (l.line < span.line || (l.line == span.line && l.col < span.col)) return false;
    if (l.line > span.end_line || (l.line == span.end_line && l.col >= span.end_col)) return false;
    return true;
}

/* The frame's name of a place: a par element's own for the places of its
 * element and filter, else the function's. */
static const char *frame_of(struct loc l)
{
    if (!F) return NULL;
    /* inside the par construct, but not its own place (where its own
     * overflow is reported): the element or the filter */
    if (F->in_helper && loc_within(l, F->elem_span)
        && !(l.line == F->elem_span.line && l.col == F->elem_span.col))
        return F->elem_frame;
    return F->frame;
}

const char *frame_slot(void)
{
    return F->fdepth ? arena_printf("(fp_ + %d)", F->fdepth) : "fp_";
}

const char *frame_next(void)
{
    return arena_printf("fp_ + %d", F->fdepth + 1);
}

const char *loc_ref(struct loc l)
{
    struct { int file, line, col; const char *fn; } key;
    memset(&key, 0, sizeof key); /* the padding too: the map compares bytes */
    key.file = l.file, key.line = l.line, key.col = l.col, key.fn = frame_of(l);
    intptr_t known = (intptr_t)map_get(&CG->loc_ids, &key, sizeof key);
    if (known) return arena_printf("&L%d", (int)known);
    int id = ++CG->nlocs;
    map_put(&CG->loc_ids, &key, sizeof key, (void *)(intptr_t)id);
    const struct source *src = source_get(l.file);
    const char *name = src && src->name ? src->name : "?";
    bprintf(&CG->locs, "static const brt_loc L%d __attribute__((unused)) = {", id);
    c_string(&CG->locs, name, strlen(name));
    bprintf(&CG->locs, ", %d, %d, ", l.line, l.col);
    if (key.fn) c_string(&CG->locs, key.fn, strlen(key.fn));
    else bputs(&CG->locs, "NULL");
    bputs(&CG->locs, "};\n");
    return arena_printf("&L%d", id);
}

/* The C struct of a tuple type, bt<n>, written once into the types section
 * with its helpers: _eq, _lt, _le (lexicographic, as Python compares
 * tuples: the first field that differs decides) and, when it holds
 * references, _retain and _release (NULL-safe, so a zero tuple is fine). */
static const char *tuple_ctype(struct type *t)
{
    intptr_t known = (intptr_t)map_get_ptr(&CG->tuple_ids, t);
    if (known) return arena_printf("bt%d", (int)known);
    /* the struct first, then the array fields' descriptors (a struct may
     * hold an array of itself: its descriptor then names bt<n>) */
    const char **ft = arena_alloc(sizeof *ft * (size_t)t->nfields);
    for (int i = 0; i < t->nfields; i++) ft[i] = ctype(t->fields[i]);
    int id = ++CG->ntuples;
    map_put_ptr(&CG->tuple_ids, t, (void *)(intptr_t)id);
    struct buf *o = &CG->types;
    bprintf(o, "typedef struct bt%d {", id);
    for (int i = 0; i < t->nfields; i++) bprintf(o, " %s f%d;", ft[i], i);
    bprintf(o, " } bt%d; /* %s */\n", id, type_name(t));
    const char **fd = arena_alloc(sizeof *fd * (size_t)t->nfields);
    for (int i = 0; i < t->nfields; i++)
        fd[i] = t->fields[i]->kind == T_ARRAY ? tdesc(t->fields[i]) : NULL;
    bprintf(o, "static __attribute__((unused)) bool bt%d_eq(bt%d a, bt%d b)\n{\n", id, id, id);
    if (t->kind == T_OPTION) /* None == None; the value only of two Somes */
        bprintf(o, "    if (!(a.f0 && b.f0)) return a.f0 == b.f0;\n");
    for (int i = t->kind == T_OPTION ? 1 : 0; i < t->nfields; i++) {
        struct type *f = t->fields[i];
        const char *e;
        switch (f->kind) {
        case T_I128: e = arena_printf("a.f%d.lo == b.f%d.lo && a.f%d.hi == b.f%d.hi", i, i, i, i); break;
        case T_STR: e = arena_printf("brt_str_eq(a.f%d, b.f%d)", i, i); break;
        case T_ARRAY: e = arena_printf("brt_eq(%s, &a.f%d, &b.f%d)", fd[i], i, i); break;
        case T_TUPLE: case T_OPTION: e = arena_printf("%s_eq(a.f%d, b.f%d)", ft[i], i, i); break;
        case T_FN: e = "false"; break; /* the checker compares no functions */
        case T_INT: case T_U64: case T_FLOAT: case T_BOOL: case T_VOID:
        default: e = arena_printf("a.f%d == b.f%d", i, i); break;
        }
        bprintf(o, "    if (!(%s)) return false;\n", e);
    }
    bprintf(o, "    return true;\n}\n");
    if (type_is_ordered(t)) {
        for (int le = 0; le < 2; le++) {
            bprintf(o, "static __attribute__((unused)) bool bt%d_%s(bt%d a, bt%d b)\n{\n", id, le ? "le" : "lt", id, id);
            for (int i = 0; i < t->nfields; i++) {
                struct type *f = t->fields[i];
                const char *ne, *lt;
                switch (f->kind) {
                case T_I128:
                    ne = arena_printf("brt_cmp_i128(a.f%d, b.f%d) != 0", i, i);
                    lt = arena_printf("brt_cmp_i128(a.f%d, b.f%d) < 0", i, i);
                    break;
                case T_STR:
                    ne = arena_printf("brt_str_cmp(a.f%d, b.f%d) != 0", i, i);
                    lt = arena_printf("brt_str_cmp(a.f%d, b.f%d) < 0", i, i);
                    break;
                case T_TUPLE:
                    ne = arena_printf("!%s_eq(a.f%d, b.f%d)", ft[i], i, i);
                    lt = arena_printf("%s_lt(a.f%d, b.f%d)", ft[i], i, i);
                    break;
                case T_INT: case T_U64: case T_FLOAT: case T_BOOL: case T_ARRAY: case T_VOID:
                default:
                    ne = arena_printf("!(a.f%d == b.f%d)", i, i);
                    lt = arena_printf("a.f%d < b.f%d", i, i);
                    break;
                }
                bprintf(o, "    if (%s) return %s;\n", ne, lt);
            }
            bprintf(o, "    return %s;\n}\n", le ? "true" : "false");
        }
    }
    if (type_is_ref(t)) {
        for (int rel = 0; rel < 2; rel++) {
            bprintf(o, "static __attribute__((unused)) void bt%d_%s(bt%d x)\n{\n", id, rel ? "release" : "retain", id);
            for (int i = 0; i < t->nfields; i++)
                if (type_is_ref(t->fields[i]))
                    bprintf(o, "    %s(x.f%d);\n", rel ? release_fn(t->fields[i]) : retain_fn(t->fields[i]), i);
            bprintf(o, "}\n");
        }
    }
    return arena_printf("bt%d", id);
}

const char *ctype(struct type *t)
{
    switch (t->kind) {
    case T_INT: return "int64_t";
    case T_I128: return "brt_i128";
    case T_U64: return "uint64_t";
    case T_FLOAT: return "double";
    case T_BOOL: return "bool";
    case T_STR: return "brt_str *";
    case T_ARRAY: return "brt_arr *";
    case T_TUPLE: case T_OPTION: return tuple_ctype(t);
    case T_FN: return "brt_fn";
    case T_VOID: return "void";
    }
    internal_error("emit: bad type");
}

/* The runtime's name of a scalar type in its typed text functions
 * (brt_sb_int, brt_str_append_float, brt_str_of_bool), or NULL for a value
 * that goes through its descriptor (i128, arrays, tuples, functions). */
const char *text_kind(struct type *t)
{
    switch (t->kind) {
    case T_INT: return "int";
    case T_U64: return "u64";
    case T_FLOAT: return "float";
    case T_BOOL: return "bool";
    case T_STR: return "str";
    case T_I128: case T_FN: case T_ARRAY: case T_TUPLE: case T_OPTION: case T_VOID: break;
    }
    return NULL;
}

const char *tdesc(struct type *t)
{
    switch (t->kind) {
    case T_INT: return "&brt_t_int";
    case T_I128: return "&brt_t_i128";
    case T_U64: return "&brt_t_u64";
    case T_FLOAT: return "&brt_t_float";
    case T_BOOL: return "&brt_t_bool";
    case T_STR: return "&brt_t_str";
    case T_FN: return "&brt_t_fn";
    case T_ARRAY: case T_TUPLE: case T_OPTION: break;
    case T_VOID: internal_error("emit: descriptor of nothing");
    }
    intptr_t known = (intptr_t)map_get_ptr(&CG->type_ids, t);
    if (known) return arena_printf("&T%d", (int)known);
    if (t->kind == T_TUPLE || t->kind == T_OPTION) {
        const char *ct = ctype(t);
        known = (intptr_t)map_get_ptr(&CG->type_ids, t); /* made by ctype: a struct holding [itself] */
        if (known) return arena_printf("&T%d", (int)known);
        int id = ++CG->ntypes;
        map_put_ptr(&CG->type_ids, t, (void *)(intptr_t)id);
        /* declared first: a field [Node] of struct Node names it */
        bprintf(&CG->types, "static const brt_type T%d;\n", id);
        const char **fd = arena_alloc(sizeof *fd * (size_t)t->nfields);
        for (int i = 0; i < t->nfields; i++) fd[i] = tdesc(t->fields[i]);
        bprintf(&CG->types, "static const brt_type *const T%d_f[] = {", id);
        for (int i = 0; i < t->nfields; i++) bprintf(&CG->types, "%s%s", i ? ", " : "", fd[i]);
        bprintf(&CG->types, "};\nstatic const size_t T%d_o[] = {", id);
        for (int i = 0; i < t->nfields; i++) bprintf(&CG->types, "%soffsetof(%s, f%d)", i ? ", " : "", ct, i);
        bprintf(&CG->types, "};\n");
        const char *names = "NULL", *sname = "NULL";
        if (t->sname) { /* a struct prints as Seg(lo=0.0, hi=1.0) */
            bprintf(&CG->types, "static const char *const T%d_n[] = {", id);
            for (int i = 0; i < t->nfields; i++) bprintf(&CG->types, "%s\"%s\"", i ? ", " : "", t->fnames[i]);
            bprintf(&CG->types, "};\n");
            names = arena_printf("T%d_n", id);
            sname = arena_printf("\"%s\"", t->sname);
        }
        bprintf(&CG->types, "static const brt_type T%d = {BRT_TUPLE, NULL, sizeof(%s), %d, T%d_f, T%d_o, %d, %s, %s%s}; /* %s */\n",
                id, ct, t->nfields, id, id, type_is_ref(t), sname, names, t->kind == T_OPTION ? ", true" : "",
                type_name(t));
        return arena_printf("&T%d", id);
    }
    const char *el = tdesc(t->elem);
    known = (intptr_t)map_get_ptr(&CG->type_ids, t); /* made by tdesc(elem): struct Node: kids: [Node] */
    if (known) return arena_printf("&T%d", (int)known);
    int id = ++CG->ntypes;
    map_put_ptr(&CG->type_ids, t, (void *)(intptr_t)id);
    bprintf(&CG->types, "static const brt_type T%d = {BRT_ARR, %s}; /* %s */\n", id, el, type_name(t));
    return arena_printf("&T%d", id);
}

const char *release_fn(struct type *t)
{
    if (t->kind == T_TUPLE || t->kind == T_OPTION) return arena_printf("%s_release", ctype(t));
    if (t->kind == T_FN) return "brt_fn_release";
    return t->kind == T_STR ? "brt_str_release" : "brt_arr_release";
}

const char *retain_fn(struct type *t)
{
    if (t->kind == T_TUPLE || t->kind == T_OPTION) return arena_printf("%s_retain", ctype(t));
    if (t->kind == T_FN) return "brt_fn_retain";
    return "brt_retain";
}

/* ---- the function being emitted ------------------------------------------------ */

struct fctx *fctx_new(void)
{
    struct fctx *f = xmalloc(sizeof *f);
    memset(f, 0, sizeof *f);
    f->vst = xmalloc((size_t)CG->ir->nvars + 2);
    memset(f->vst, 0, (size_t)CG->ir->nvars + 2);
    f->ind = 1;
    return f;
}

/* Frees what fctx_new and the emission made: vst alone is one byte per
 * variable of the program, so a context kept per function would make a
 * program of 100,000 functions take gigabytes. */
void fctx_free(struct fctx *f)
{
    free(f->vst);
    free(f->decl.p);
    free(f->body.p);
    free(f->locals);
    free(f->own);
    free(f->marks);
    free(f->extra);
    free(f);
}

void line(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    bvline(&F->body, F->ind, fmt, ap);
    va_end(ap);
}

const char *new_temp(void) { return arena_printf("t%d", ++CG->ntemps); }

const char *vname(struct ir_var *v)
{
    if (!F->vst[v->id]) internal_error("emit: variable v%d (%s) used before its declaration", v->id, v->name);
    return arena_printf("v%d", v->id);
}

const char *zero_of(struct type *t)
{
    switch (t->kind) {
    case T_I128: return "{0, 0}";
    case T_STR: case T_ARRAY: return "NULL";
    case T_TUPLE: case T_OPTION: return arena_printf("(%s){0}", ctype(t)); /* an Option's: None */
    case T_FN: return "(brt_fn){0}";
    case T_BOOL: return "false";
    case T_INT: case T_U64: case T_FLOAT: return "0";
    case T_VOID: break;
    }
    internal_error("emit: zero of nothing");
}

/* Declares a variable at the top of the current C function. */
const char *declare_var(struct ir_var *v, int state)
{
    if (F->vst[v->id]) return arena_printf("v%d", v->id);
    F->vst[v->id] = (unsigned char)state;
    debug_note_var(v);
    bprintf(&F->decl, "    %s v%d = %s; /* %s */\n", ctype(v->type), v->id, zero_of(v->type),
            *v->name ? v->name : "temp");
    if (state == VS_OWNED && type_is_ref(v->type)) {
        VEC_GROW(F->locals, F->nlocals, F->caplocals);
        F->locals[F->nlocals++] = v;
    }
    return arena_printf("v%d", v->id);
}

/* A function-level owned temporary (released at exit and where it ends). */
const char *declare_extra(struct type *t)
{
    const char *n = new_temp();
    bprintf(&F->decl, "    %s %s = %s;\n", ctype(t), n, zero_of(t));
    VEC_GROW(F->extra, F->nextra, F->capextra);
    F->extra[F->nextra++] = (struct owned){.name = n, .t = t};
    return n;
}

void scope_open(void)
{
    VEC_GROW(F->marks, F->nmarks, F->capmarks);
    F->marks[F->nmarks++] = F->nown;
}

void scope_close(void)
{
    int mark = F->marks[--F->nmarks];
    for (int i = F->nown - 1; i >= mark; i--)
        if (F->own[i].name) {
            if (F->own[i].t) line("%s(%s);", release_fn(F->own[i].t), F->own[i].name);
            if (F->own[i].cell) line("BRT_UNOWN(ob_ + %d);", i);
        }
    F->nown = mark;
}

/* An f-string's builder (brt_sb), whose buffer a panic between its init and
 * its finish frees (t NULL: nothing to release at the scope's end, where
 * brt_sb_finish has emptied it). */
static void own_sb(const char *sb)
{
    if (!F->owner) return;
    VEC_GROW(F->own, F->nown, F->capown);
    line("BRT_OWN(ob_ + %d, %s, &brt_t_sb);", F->nown, sb);
    F->own[F->nown++] = (struct owned){.name = sb, .cell = true, .from = F->body.len, .to = F->body.len};
    if (F->nown > F->maxown) F->maxown = F->nown;
}

void own(const char *name, struct type *t)
{
    if (!type_is_ref(t)) return;
    VEC_GROW(F->own, F->nown, F->capown);
    struct owned o = {.name = name, .t = t};
    if (F->owner) {
        o.cell = true;
        o.from = F->body.len;
        line("BRT_OWN(ob_ + %d, %s, %s);", F->nown, name, tdesc(t));
        o.to = F->body.len;
        o.maxown = F->maxown;
        if (F->nown + 1 > F->maxown) F->maxown = F->nown + 1;
    }
    F->own[F->nown++] = o;
}

/* The panic path (brine_rt.h, brt_owner): a panic under a trap skips the
 * frames between it and the trap, and releases what their owners list. A
 * function that can panic and owns values lists them: its owned variables
 * and function-level temporaries in its first ob_ cells (for its whole
 * run, NULL until assigned), then one cell per slot of the cleanup scopes'
 * stack (NULL at entry), set when a temporary is registered (own) and
 * cleared when it is handed over (take) or released (scope_close). A
 * temporary handed over right after it is made gets no cell (take takes
 * the line back), so a function whose values only pass through has no
 * owner. The cells hold addresses: the values are read where they are
 * when the panic comes. */
void own_record(struct buf *o)
{
    if (!F->owner) return;
    int nfix = F->nlocals + F->nextra;
    if (!nfix && !F->maxown) {
        F->owner = false;
        return;
    }
    bprintf(o, "    brt_cell oc_[%d];\n    brt_owner o_;\n    enum { ob_ = %d };\n    brt_own_push(&o_, oc_, %d);\n",
            nfix + F->maxown, nfix, nfix + F->maxown);
    for (int i = 0; i < F->nlocals; i++)
        bprintf(o, "    oc_[%d].p = &v%d; oc_[%d].t = %s;\n", i, F->locals[i]->id, i, tdesc(F->locals[i]->type));
    for (int i = 0; i < F->nextra; i++)
        bprintf(o, "    oc_[%d].p = &%s; oc_[%d].t = %s;\n", F->nlocals + i, F->extra[i].name, F->nlocals + i,
                tdesc(F->extra[i].t));
    for (int i = 0; i < F->maxown; i++) bprintf(o, "    oc_[%d].p = NULL;\n", nfix + i);
}

void own_record_end(struct buf *o)
{
    if (F->owner) bputs(o, "    brt_own_pop(&o_);\n");
}

/* A +1 reference to the operand's value: an owned temporary of the
 * innermost scope is handed over; anything else is retained. Scalars are
 * returned as they are. Use only where the code runs unconditionally within
 * the innermost scope. */
const char *take(const char *x, struct type *t)
{
    if (!type_is_ref(t)) return x;
    int mark = F->nmarks ? F->marks[F->nmarks - 1] : 0;
    for (int i = F->nown - 1; i >= mark; i--)
        if (F->own[i].name && strcmp(F->own[i].name, x) == 0) {
            struct owned *o = &F->own[i];
            o->name = NULL;
            if (o->cell && o->to == F->body.len) {
                /* nothing ran since it was registered: no cell at all */
                F->body.len = o->from;
                F->body.p[o->from] = 0;
                F->maxown = o->maxown;
                o->cell = false;
            } else if (o->cell) {
                line("BRT_UNOWN(ob_ + %d);", i);
                o->cell = false;
            }
            return x;
        }
    line("%s(%s);", retain_fn(t), x);
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

/* An addressable copy of a value (for &x arguments). A Brine variable is
 * copied too: taking its own address would make it escape, and gcc then
 * keeps it in memory across every call in its function (measured: a loop
 * accumulator printed by an f-string went through the stack each step). */
const char *lval(const char *x, struct type *t)
{
    if (is_ident(x) && *x != 'v') return x;
    const char *n = new_temp();
    line("%s %s = %s;", ctype(t), n, x);
    return n;
}

const char *tmp(struct type *t, const char *fmt, ...)
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

const char *owned_tmp_(struct type *t, const char *n)
{
    own(n, t);
    return n;
}

/* ---- expressions ---------------------------------------------------------- */


const char *float_lit(double d) { return float_bits_lit("bp_f64", d); }

/* The shift amount as brt_sh*'s int64_t (negative: out of range). */
static const char *shift_amount(const char *b, struct type *t)
{
    if (t == ty_u64) return arena_printf("bp_amt_u64(%s)", b);
    if (t == ty_i128) return arena_printf("bp_amt_i128(%s)", b);
    return b;
}


static const char *emit_binary(struct ir_node *n)
{
    const char *a = emit_expr(n->a);
    const char *b = emit_expr(n->b);
    struct type *ot = n->optype, *bt = n->b->type;
    enum op op = n->bop;
    bool cmp = op_is_compare(op);

    if (ot == ty_str || (op == OP_MUL && bt == ty_str)) {
        if (op == OP_ADD) return tmp_owned(ty_str, "brt_str_concat(%s, %s)", a, b);
        if (op == OP_MUL)
            return ot == ty_str ? tmp_owned(ty_str, "brt_str_repeat(%s, %s, %s)", a, b, loc_ref(n->loc))
                                : tmp_owned(ty_str, "brt_str_repeat(%s, %s, %s)", b, a, loc_ref(n->loc));
        if (op == OP_EQ) return tmp(ty_bool, "brt_str_eq(%s, %s)", a, b);
        if (op == OP_NE) return tmp(ty_bool, "!brt_str_eq(%s, %s)", a, b);
        if (cmp) return tmp(ty_bool, "brt_str_cmp(%s, %s) %s 0", a, b, op_c[op]);
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
    if (ot->kind == T_TUPLE || ot->kind == T_OPTION) {
        const char *ct = ctype(ot);
        switch (op) {
        case OP_EQ: return tmp(ty_bool, "%s_eq(%s, %s)", ct, a, b);
        case OP_NE: return tmp(ty_bool, "!%s_eq(%s, %s)", ct, a, b);
        case OP_LT: return tmp(ty_bool, "%s_lt(%s, %s)", ct, a, b);
        case OP_LE: return tmp(ty_bool, "%s_le(%s, %s)", ct, a, b);
        case OP_GT: return tmp(ty_bool, "%s_lt(%s, %s)", ct, b, a);
        case OP_GE: return tmp(ty_bool, "%s_le(%s, %s)", ct, b, a);
        default: internal_error("emit: tuple operator %s", op_spelling[op]);
        }
    }
    if (ot == ty_bool) {
        if (op == OP_EQ || op == OP_NE || op_class[op] == OPC_BITS) return tmp(ty_bool, "%s %s %s", a, op_c[op], b);
        internal_error("emit: bool operator %s", op_spelling[op]);
    }
    if (ot == ty_float) {
        if (op == OP_MOD) return tmp(ot, "fmod(%s, %s)", a, b);
        if (op_is_compare(op)) return tmp(ty_bool, "%s %s %s", a, op_c[op], b);
        if (op_class[op] == OPC_ARITH) return tmp(ot, "%s %s %s", a, op_c[op], b);
        internal_error("emit: float operator %s", op_spelling[op]);
    }
    /* integers: checked arithmetic and shifts in the runtime (brt_<stem>_<sfx>),
     * plain C where the optimizer proved the result fits (opt_loops.c) */
    bool proved = n->no_overflow || (n->no_overflow_in && n->no_overflow_in == CG->guarded);
    if (proved && ot == ty_int && (op == OP_ADD || op == OP_SUB || op == OP_MUL))
        return tmp(ot, "%s %s %s", a, op_c[op], b);
    const char *sfx = num_suffix(ot);
    if (cmp) {
        if (ot == ty_i128) return tmp(ty_bool, "brt_cmp_i128(%s, %s) %s 0", a, b, op_c[op]);
        return tmp(ty_bool, "%s %s %s", a, op_c[op], b);
    }
    switch (op_class[op]) {
    case OPC_ARITH: return tmp(ot, "brt_%s_%s(%s, %s, %s)", op_stem[op], sfx, a, b, loc_ref(n->loc));
    case OPC_BITS:
        if (ot == ty_i128) return tmp(ot, "brt_%s_i128(%s, %s)", op_stem[op], a, b);
        return tmp(ot, "%s %s %s", a, op_c[op], b);
    case OPC_SHIFT: return tmp(ot, "brt_%s_%s(%s, %s, %s)", op_stem[op], sfx, a, shift_amount(b, bt), loc_ref(n->loc));
    case OPC_CMP: case OPC_UNARY: case OPC_NONE: break;
    }
    internal_error("emit: integer operator %s", op_spelling[op]);
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

const char *math_fn(enum builtin b)
{
    switch (b) {
#define X(P, name, arity, gpu) case BI_##name: return "brt_" #name;
        BRT_MATH(X, _)
#undef X
    default: return NULL;
    }
}

static const char *emit_expr_here(struct ir_node *n);

/* An expression written in place of calls (opt_inline.c): each call's
 * place in its slot while it runs, as a real call's, and the places
 * inside named by the function they came from. */
const char *emit_expr(struct ir_node *n)
{
    if (!n->inl || !F || quiet_expr(n)) return emit_expr_here(n);
    const char *frame = F->frame;
    bool in_helper = F->in_helper;
    int depth = F->fdepth;
    for (struct ir_inline *in = n->inl; in; in = in->next) {
        line("%s[0] = %s;", frame_slot(), loc_ref(in->site));
        F->fdepth++;
        F->frame = frame_name(in->fn);
        F->in_helper = false; /* the callee's places are its own, not the element's */
    }
    const char *r = emit_expr_here(n);
    while (F->fdepth > depth) {
        F->fdepth--;
        line("%s[0] = NULL;", frame_slot());
    }
    F->frame = frame;
    F->in_helper = in_helper;
    return r;
}

static const char *emit_expr_here(struct ir_node *n)
{
    switch (n->eop) {
    case IR_INT: return int_lit(n->type, n->ival);
    case IR_FLOAT: return float_lit(n->fval);
    case IR_BOOL: return n->bval ? "true" : "false";
    case IR_STR: {
        int id = ++CG->nstrs;
        bprintf(&CG->strs, "static brt_str S%d = BRT_STR_LIT(", id);
        c_string(&CG->strs, n->str ? n->str : "", n->slen);
        bprintf(&CG->strs, ", %zu);\n", n->slen);
        return arena_printf("(&S%d)", id);
    }
    case IR_VAR:
        if (F->stmt && n->type->kind == T_ARRAY && stmt_mutates(F->stmt, n->var)) {
            /* the statement also changes this array in place (f(xs, xs.pop())):
             * a reference of its own keeps the value read here */
            const char *x = tmp_owned(n->type, "%s", vname(n->var));
            line("brt_retain(%s);", x);
            return x;
        }
        return vname(n->var);
    case IR_GLOBAL: return arena_printf("g%d", n->global->id);
    case IR_UNARY: {
        const char *a = emit_expr(n->a);
        struct type *t = n->optype;
        if (n->bop == OP_NEG) {
            if (t == ty_float) return tmp(t, "-(%s)", a);
            if (n->no_overflow && t == ty_int) return tmp(t, "-(%s)", a); /* a may be a negative literal */
            return tmp(t, "brt_%s_%s(%s, %s)", op_stem[OP_NEG], num_suffix(t), a, loc_ref(n->loc));
        }
        if (t == ty_i128) return tmp(t, "brt_%s_i128(%s)", op_stem[OP_BNOT], a);
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
        bool site = n->fn->has_site;
        if (site) {
            /* a library function's panics report at its caller's place */
            const char *s = n->site_set ? (n->site_is_param ? "site" : loc_ref(n->site_loc))
                                        : F->site ? "site" : loc_ref(n->loc);
            bprintf(&args, "%s%s", n->nkids ? ", " : "", s);
        }
        /* the call chain: the call's place in this frame's slot while it
         * runs (a library function, whose panics report at that place
         * already, takes this frame's slot for its own calls; a quiet one
         * cannot panic: emit_quiet.c) */
        bprintf(&args, "%s%s", n->nkids || site ? ", " : "", site ? frame_slot() : frame_next());
        bool slot = !site && !quiet_fn(n->fn);
        if (slot) line("%s[0] = %s;", frame_slot(), loc_ref(n->loc));
        const char *r = "";
        if (n->type == ty_void) line("%s(%s);", n->fn->cname, args.p);
        else r = tmp(n->type, "%s(%s)", n->fn->cname, args.p);
        if (slot) line("%s[0] = NULL;", frame_slot());
        return *r ? owned_tmp_(n->type, r) : r; /* after the slot's clear: a take just after owes no cell */
    }
    case IR_BUILTIN: return emit_builtin(n);
    case IR_FNVAL: return emit_fnval(n);
    case IR_CALLV: return emit_callv(n);
    case IR_INDEX: {
        if (n->slot && CG->slot_names) return tmp(n->type, "%s", CG->slot_names[n->slot - 1]);
        if (n->a->op == IR_INDEX && n->a->slot && CG->slot_names) {
            /* an element of a row the jam keeps the data of (proved in range) */
            const char *i = emit_expr(n->b);
            return tmp(n->type, "%s[%s]", CG->slot_names[n->a->slot - 1], i);
        }
        const struct view *vw = view_of(n->a);
        if (vw) {
            const char *i = emit_expr(n->b);
            if (in_guarded_loop(n)) return tmp(n->type, "%s[%s]", vw->data, i);
            return tmp(n->type, "%s[brt_idx_n(%s, %s, %s)]", vw->data, vw->len, i, loc_ref(n->loc));
        }
        const char *a = emit_expr(n->a);
        const char *i = emit_expr(n->b);
        if (in_guarded_loop(n)) return tmp(n->type, "BRT_AT(%s, %s, %s)", ctype(n->type), a, i);
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
        if (n->nkids == 1 && !n->lit[0] && n->kids[0]->type == ty_str && !n->specs[0])
            return emit_expr(n->kids[0]); /* f"{s}" is s */
        const char *sb = new_temp();
        line("brt_sb %s;", sb);
        line("brt_sb_init(&%s);", sb);
        own_sb(sb);
        for (int i = 0; i < n->nkids; i++) {
            struct ir_node *k = n->kids[i];
            if (n->lit[i]) {
                struct buf lit = {0};
                c_string(&lit, k->str ? k->str : "", k->slen);
                line("brt_sb_lit(&%s, %s, %zu);", sb, lit.p, k->slen);
                free(lit.p);
                continue;
            }
            const char *tk = n->specs[i] ? NULL : text_kind(k->type);
            if (tk) {
                line("brt_sb_%s(&%s, %s);", tk, sb, emit_expr(k));
                continue;
            }
            const char *x = lval(emit_expr(k), k->type);
            const char *spec = spec_lit(n->specs[i]);
            line("brt_sb_val(&%s, %s, &%s, %s);", sb, tdesc(k->type), x, spec);
        }
        return tmp_owned(ty_str, "brt_sb_finish(&%s)", sb);
    }
    case IR_LISTCOMP: return emit_listcomp(n);
    case IR_REDUCE: return emit_reduce(n);
    case IR_TUPLE: {
        const char **xs = arena_alloc((size_t)n->nkids * sizeof *xs);
        for (int i = 0; i < n->nkids; i++) xs[i] = emit_expr(n->kids[i]);
        struct buf b = {0};
        for (int i = 0; i < n->nkids; i++) bprintf(&b, "%s%s", i ? ", " : "", take(xs[i], n->kids[i]->type));
        const char *r = tmp_owned(n->type, "(%s){%s}", ctype(n->type), b.p);
        free(b.p);
        return r;
    }
    case IR_FIELD: {
        /* borrowed, like an element: alive while the tuple is */
        const char *a = emit_expr(n->a);
        return tmp(n->type, "%s.f%d", a, n->field);
    }
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
    if (s->unique_steps < 1) line("%s = brt_arr_unique(%s);", v, v);
    const char *cur = v;
    struct type *t = s->var->type;
    const struct view *vw = s->unique_steps >= 1 ? view_of_var(s->var) : NULL;
    bool proved = in_guarded_loop(s); /* every index of the store, rows too (opt_interchange.c) */
    for (int i = 0; i < nidx; i++) {
        const char *slot = new_temp();
        if (i == 0 && vw && proved)
            line("brt_arr **%s = &((brt_arr **)%s)[%s];", slot, vw->data, idx[i]);
        else if (i == 0 && vw)
            line("brt_arr **%s = &((brt_arr **)%s)[brt_idx_n(%s, %s, %s)];", slot, vw->data, vw->len, idx[i], L);
        else if (proved)
            line("brt_arr **%s = &BRT_AT(brt_arr *, %s, %s);", slot, cur, idx[i]);
        else
            line("brt_arr **%s = &BRT_AT(brt_arr *, %s, brt_idx(%s, %s, %s));", slot, cur, cur, idx[i], L);
        if (i + 1 >= s->unique_steps) line("*%s = brt_arr_unique(*%s);", slot, slot);
        cur = arena_printf("(*%s)", slot);
        t = t->elem;
    }
    return cur;
}

static bool is_field_step(struct ir_node *k)
{
    return k->op == IR_FIELD && !k->a;
}

/* Step i of s's path from the pointer p (to a value of type *t): a field of
 * the struct p points at, or an element of the array, made unique first
 * unless the step is among s's unique_steps. idx is the index's C, checked
 * against the length at L, or (L NULL) leaving the enclosing do-while when
 * out of range. Returns the new pointer; *t becomes its type. */
static const char *path_step(struct ir_node *s, int i, const char *p, struct type **t, const char *idx, const char *L)
{
    struct ir_node *k = s->kids[i];
    struct type *nt = is_field_step(k) ? k->type : (*t)->elem;
    const char *q = new_temp();
    if (is_field_step(k)) {
        line("%s *%s = &%s->f%d;", ctype(nt), q, p, k->field);
    } else {
        if (i >= s->unique_steps) line("*%s = brt_arr_unique(*%s);", p, p);
        if (!L) line("if ((uint64_t)%s >= (uint64_t)(*%s)->len) break;", idx, p);
        const char *at = L ? arena_printf("brt_idx(*%s, %s, %s)", p, idx, L) : idx;
        line("%s *%s = &BRT_AT(%s, *%s, %s);", ctype(nt), q, ctype(nt), p, at);
    }
    *t = nt;
    return q;
}

/* A store or push whose path has field steps (s.lo = v, segs[i].lo = v,
 * s.xs.push(v)): a pointer walks the path, each array on it made unique
 * before its slot is taken, each field a member of the struct pointed at. */
static void store_path(struct ir_node *s, const char **idx, const char *x, const char *L)
{
    struct type *t = s->var->type;
    /* the value as it is now: s.xs[0].kids.push(s) pushes the s before the store */
    const char *val = new_temp();
    line("%s %s = %s;", ctype(s->a->type), val, x);
    x = val;
    const char *p = new_temp();
    line("%s *%s = &%s;", ctype(t), p, vname(s->var));
    for (int i = 0; i < s->nkids; i++) p = path_step(s, i, p, &t, idx[i], L);
    if (s->op == IR_PUSH) {
        line("BRT_PUSH(%s, *%s, %s);", ctype(s->a->type), p, x);
    } else if (type_is_ref(t)) {
        const char *old = new_temp();
        line("%s %s = *%s;", ctype(t), old, p);
        line("*%s = %s;", p, x);
        line("%s(%s);", release_fn(t), old);
    } else {
        line("*%s = %s;", p, x);
    }
}

/* unique var[k0]..: each array on the path made unique (opt_unique.c),
 * stopping at an index out of range (the store after it panics there). */
static void emit_unique(struct ir_node *s)
{
    struct type *t = s->var->type;
    const char *p = new_temp();
    line("%s *%s = &%s;", ctype(t), p, vname(s->var));
    line("do {");
    F->ind++;
    for (int i = 0; i < s->nkids; i++)
        p = path_step(s, i, p, &t, is_field_step(s->kids[i]) ? NULL : emit_expr(s->kids[i]), NULL);
    if (s->nkids >= s->unique_steps) line("*%s = brt_arr_unique(*%s);", p, p);
    F->ind--;
    line("} while (0);");
}

/* A format spec as a C string literal, or NULL. */
static const char *spec_lit(const char *spec)
{
    if (!spec) return "NULL";
    struct buf sp = {0};
    c_string(&sp, spec, strlen(spec));
    const char *r = arena_strndup(sp.p, sp.len);
    free(sp.p);
    return r;
}

/* Whether n reads variable v anywhere. */
static bool reads_var(struct ir_node *n, struct ir_var *v)
{
    if (!n) return false;
    if (n->op == IR_VAR && n->var == v) return true;
    if (reads_var(n->a, v) || reads_var(n->b, v) || reads_var(n->c, v)) return true;
    for (int i = 0; i < n->nkids; i++)
        if (reads_var(n->kids[i], v)) return true;
    if (n->op == IR_REDUCE || n->op == IR_LISTCOMP)
        return reads_var(n->iter.lo, v) || reads_var(n->iter.hi, v) || reads_var(n->iter.array, v) ||
               reads_var(n->elem, v) || reads_var(n->filter, v) || reads_var(n->key, v);
    return false;
}

/* v = v + f"...": the f-string's pieces appended to v one by one, in order. */
static void emit_fstring_into(struct ir_node *n, const char *v)
{
    for (int i = 0; i < n->nkids; i++) {
        struct ir_node *k = n->kids[i];
        if (n->lit[i]) {
            struct buf lit = {0};
            c_string(&lit, k->str ? k->str : "", k->slen);
            line("%s = brt_str_append_lit(%s, %s, %zu);", v, v, lit.p, k->slen);
            free(lit.p);
            continue;
        }
        scope_open();
        const char *tk = n->specs[i] ? NULL : text_kind(k->type);
        if (tk) {
            const char *x = emit_expr(k);
            if (k->type == ty_str)
                line("%s = brt_str_append(%s, %s);", v, v, x);
            else
                line("%s = brt_str_append_%s(%s, %s);", v, tk, v, x);
        } else {
            const char *x = lval(emit_expr(k), k->type);
            const char *spec = spec_lit(n->specs[i]);
            line("%s = brt_str_append_val(%s, %s, &%s, %s);", v, v, tdesc(k->type), x, spec);
        }
        scope_close();
    }
}

static void range_loop(struct ir_node *s, const char *lo, const char *hi);

static void while_loop(struct ir_node *s)
{
    line("for (;;) {");
    F->ind++;
    scope_open();
    const char *c = lval(emit_expr(s->a), ty_bool);
    scope_close();
    line("if (!%s) break;", c);
    emit_stmt(s->b);
    F->ind--;
    line("}");
}

/* A loop with guards (opt_loops.c), written twice: without the checks they
 * prove when cond holds (tested once, before it), else as written. lo, hi:
 * a range loop's bounds (unused by a while loop). */
static void two_versions(struct ir_node *s, const char *cond, const char *lo, const char *hi)
{
    line("if (%s) {", cond);
    for (int version = 0; version < 2; version++) {
        F->ind++;
        struct ir_node *outer = CG->guarded;
        if (version == 0) CG->guarded = s;
        if (s->op == IR_WHILE) while_loop(s);
        else range_loop(s, lo, hi);
        CG->guarded = outer;
        F->ind--;
        line(version == 0 ? "} else {" : "}");
    }
}

/* Whether n's bounds check is proved by the loop whose guarded version is
 * being written (opt_loops.c). */
static bool in_guarded_loop(struct ir_node *n)
{
    return n->in_range_by && (n->in_range_by == CG->guarded || n->in_range_by == CG->swapped_inner);
}

/* The arrays a loop views (opt_loops.c); returns the views' mark for
 * close_views. */
static int open_views(struct ir_node *loop)
{
    int mark = CG->nviews;
    for (int i = 0; i < loop->nviews && CG->nviews < 64; i++) {
        struct ir_var *a = loop->views[i];
        const char *ct = ctype(a->type->elem), *d = new_temp(), *n = new_temp();
        line("%s *%s = (%s *)%s->data;", ct, d, ct, vname(a));
        line("int64_t %s = %s->len;", n, vname(a));
        CG->views[CG->nviews++] = (struct view){a, d, n, F};
    }
    return mark;
}

static void close_views(int mark) { CG->nviews = mark; }

static const struct view *view_of_var(struct ir_var *v)
{
    for (int i = CG->nviews - 1; i >= 0; i--)
        if (CG->views[i].var == v && CG->views[i].fn == F) return &CG->views[i];
    return NULL;
}

/* The view of an array read as a[i] or len(a), if a loop around holds one. */
const struct view *view_of(struct ir_node *a)
{
    return a->op == IR_VAR ? view_of_var(a->var) : NULL;
}

/* The head of for var in lo .. hi (or ..= hi), both already evaluated into
 * temporaries: the C loop opened, var set; range_end closes it. */
static void range_head(struct ir_node *s, const char *lo, const char *hi)
{
    const char *v = declare_var(s->var, VS_OWNED);
    const char *k = new_temp();
    const char *ct = ctype(s->iter.lo->type);
    if (s->iter.lo->type == ty_i128) {
        /* i128: an int count of the elements, each lo + k */
        const char *n = new_temp();
        line("for (int64_t %s = 0, %s = brt_range_count_i128(%s, %s, %d); %s < %s; %s++) {", k, n, lo, hi,
             s->iter.inclusive, k, n, k);
        F->ind++;
        line("%s = brt_wrapping_add_i128(%s, brt_i128_from_i64(%s));", v, lo, k);
        return;
    }
    if (s->iter.inclusive) {
        /* k never steps past hi, so hi == INT64_MAX cannot overflow */
        const char *go = new_temp();
        line("for (%s %s = %s, %s = %s <= %s; %s; %s = %s < %s, %s += %s) {", ct, k, lo, go, lo, hi, go, go, k, hi, k,
             go);
    } else {
        line("for (%s %s = %s; %s < %s; %s++) {", ct, k, lo, k, hi, k);
    }
    F->ind++;
    line("%s = %s;", v, k);
}

static void range_end(void)
{
    F->ind--;
    line("}");
}

static void range_loop(struct ir_node *s, const char *lo, const char *hi)
{
    range_head(s, lo, hi);
    emit_stmt(s->b);
    range_end();
}

/* The block of a swapped nest's outer loop that holds its lets and then the
 * inner loop (opt_interchange.c: blocks of one block are looked through). */
static struct ir_node *nest_block(struct ir_node *outer)
{
    struct ir_node *b = outer->b;
    while (b->nkids == 1 && b->kids[0]->op == IR_BLOCK) b = b->kids[0];
    return b;
}

/* The guard test that i + off stays in arr for every i in lo .. last. */
static const char *span_test(const char *lo, const char *last, int64_t off, const char *arr)
{
    return arena_printf("bp_span(%s, %s, %" PRId64 "LL, 0, %s->len - 1)", lo, last, off, arr);
}

/* A swap guard (ir.h) that needs only the outer range: tested before the
 * inner bounds are read. */
static bool outer_guard(const struct ir_guard *g)
{
    return !g->rows || (g->at && g->at_outer);
}

/* The C test of a swap guard over the outer range lo .. last and the inner
 * one ilo .. ilast (an outer_guard does not read those). */
static const char *swap_guard_test(const struct ir_guard *g, const char *lo, const char *last, const char *ilo,
                                   const char *ilast)
{
    const char *a = vname(g->arr);
    if (g->at) {
        const char *e = emit_expr(g->at); /* a literal or a variable */
        if (!g->rows) return arena_printf("(uint64_t)(%s) < (uint64_t)%s->len", e, a);
        const char *row = arena_printf("((brt_arr *const *)%s->data)[%s]", a, e);
        return span_test(g->at_outer ? lo : ilo, g->at_outer ? last : ilast, g->off, row);
    }
    if (!g->rows) return span_test(lo, last, g->off, a);
    if (g->outer_rows)
        return arena_printf("bp_rows_span(%s, %s, %s, %" PRId64 "LL, %s, %s, %" PRId64 "LL)", a, lo, last, g->row_off,
                            ilo, ilast, g->off);
    return arena_printf("bp_rows_span(%s, %s, %s, %" PRId64 "LL, %s, %s, %" PRId64 "LL)", a, ilo, ilast, g->row_off, lo,
                        last, g->off);
}

/* A nest opt_interchange.c swaps, written twice: the inner loop outside and
 * no bounds check, when every guard holds over both whole ranges (tested
 * once, before it), else the nest as written. lo, hi: the outer bounds.
 * The inner bounds are read once, where the first outer iteration would
 * read them (they do not change in the nest): only for a non-empty outer
 * range, after the guards of the lets before the inner loop (so those lets
 * cannot panic first). */
static void swapped_nest(struct ir_node *s, const char *lo, const char *hi)
{
    struct ir_node *in = s->swap;
    line("if (%s %s %s) {", lo, s->iter.inclusive ? "<=" : "<", hi);
    F->ind++;
    const char *last = s->iter.inclusive ? hi : arena_printf("%s - 1", hi);
    const char *go = new_temp(), *ilo = new_temp(), *ihi = new_temp();
    struct buf cond = {0};
    bputs(&cond, "1");
    for (int i = 0; i < s->nswap_guards; i++)
        if (outer_guard(&s->swap_guards[i]))
            bprintf(&cond, " && %s", swap_guard_test(&s->swap_guards[i], lo, last, NULL, NULL));
    line("int64_t %s = 0, %s = 0;", ilo, ihi);
    line("int %s = %s;", go, cond.p);
    cond.len = 0;
    line("if (%s) {", go);
    F->ind++;
    scope_open();
    line("%s = %s;", ilo, emit_expr(in->iter.lo));
    line("%s = %s;", ihi, emit_expr(in->iter.hi));
    scope_close();
    const char *ilast = in->iter.inclusive ? ihi : arena_printf("%s - 1", ihi);
    /* an empty inner range, or the inner loop's guards and the rows' */
    bprintf(&cond, "%s %s %s || (%s", ilo, in->iter.inclusive ? ">" : ">=", ihi, in->nguards ? "" : "1");
    for (int i = 0; i < in->nguards; i++)
        bprintf(&cond, "%s%s", i ? " && " : "", span_test(ilo, ilast, in->guards[i].off, vname(in->guards[i].arr)));
    for (int i = 0; i < s->nswap_guards; i++)
        if (!outer_guard(&s->swap_guards[i]))
            bprintf(&cond, " && %s", swap_guard_test(&s->swap_guards[i], lo, last, ilo, ilast));
    bputs(&cond, ")");
    line("%s = %s;", go, cond.p);
    free(cond.p);
    F->ind--;
    line("}");
    line("if (%s) {", go);
    F->ind++;
    struct ir_node *was = CG->guarded, *was_inner = CG->swapped_inner;
    CG->guarded = s;
    CG->swapped_inner = in;
    int views = open_views(in);
    range_head(in, ilo, ihi);
    range_head(s, lo, hi);
    struct ir_node *b = nest_block(s);
    for (int i = 0; i + 1 < b->nkids; i++) emit_stmt(b->kids[i]);
    emit_stmt(in->b);
    range_end();
    range_end();
    close_views(views);
    CG->guarded = was;
    CG->swapped_inner = was_inner;
    F->ind--;
    line("} else {");
    F->ind++;
    range_loop(s, lo, hi);
    F->ind--;
    line("}");
    F->ind--;
    line("}");
}

#define JAM 4      /* outer iterations a jammed nest runs at a time */
#define JAM_SUMS 8 /* the same when it carries sums through its inner loop */

/* Whether v is defined by one of the lets before a nest's inner loop. */
static bool nest_let_var(struct ir_node *b, struct ir_var *v)
{
    for (int i = 0; i < b->nkids && b->kids[i]->op == IR_LET; i++)
        if (b->kids[i]->var == v) return true;
    return false;
}

/* A jam slot's element y[k + u + off], its index proved by the swap guards. */
static const char *slot_elem(struct ir_guard *g, const char *k, int u)
{
    const struct view *vw = view_of_var(g->arr);
    const char *i = arena_printf("%s + %d + %" PRId64 "LL", k, u, g->off);
    if (vw) return arena_printf("%s[%s]", vw->data, i);
    return arena_printf("BRT_AT(%s, %s, %s)", ctype(g->arr->type->elem), vname(g->arr), i);
}

/* One copy of a jammed nest's inner body, for the outer iteration at ko:
 * the lets' values (and the carried sums) from and back to lets, the slots'
 * locals slot_names, the inner loop's views. */
static void jam_copy(struct ir_node *in, struct ir_node *b, int nlets, const char *v, const char *ko, const char **lets,
                     const char **slot_names, const struct view *views)
{
    line("%s = %s;", v, ko);
    for (int i = 0; i < nlets; i++) line("%s = %s;", vname(b->kids[i]->var), lets[i]);
    int mark = CG->nviews;
    for (int w = 0; w < in->nviews && CG->nviews < 64; w++) CG->views[CG->nviews++] = views[w];
    CG->slot_names = slot_names;
    emit_stmt(in->b);
    CG->slot_names = NULL;
    close_views(mark);
    /* the accumulators this iteration carries to the next step */
    for (int i = 0; i < nlets; i++)
        if (b->kids[i]->carried) line("%s = %s;", lets[i], vname(b->kids[i]->var));
}

/* A nest opt_interchange.c jams: JAM outer iterations at a time inside one
 * inner loop, without bounds checks, while JAM of them remain and the inner
 * loop's guards hold for each; from the first group where they do not (and
 * for the last few) the nest goes on one outer iteration at a time as
 * written. The lets before the inner loop are evaluated for the group
 * first (they cannot panic: their guards were tested over the whole outer
 * range) and kept in locals, one set per outer iteration; each copy of
 * the inner body sets the lets' variables (and views of the rows they name)
 * from its set. lo, hi: the outer bounds (exclusive). */
static void jammed_nest(struct ir_node *s, const char *lo, const char *hi)
{
    struct ir_node *in = s->swap, *b = nest_block(s);
    int nlets = 0; /* the lets before the inner loop; the statements after it follow */
    while (b->kids[nlets] != in)
        nlets++;
    /* accumulators: eight sums side by side (a vector of them), the inner
     * loop kept whole; stores: four outer iterations */
    bool sums = false;
    for (int i = 0; i < nlets; i++)
        sums |= b->kids[i]->carried;
    int jam = sums ? JAM_SUMS : JAM;
    line("if (%s < %s) {", lo, hi);
    F->ind++;
    const char *last = arena_printf("%s - 1", hi);
    const char *go = new_temp(), *ilo = new_temp(), *ihi = new_temp(), *k = new_temp();
    struct buf cond = {0};
    bputs(&cond, "1");
    for (int i = 0; i < s->nswap_guards; i++)
        if (outer_guard(&s->swap_guards[i]))
            bprintf(&cond, " && %s", swap_guard_test(&s->swap_guards[i], lo, last, NULL, NULL));
    line("int64_t %s = 0, %s = 0, %s = %s;", ilo, ihi, k, lo);
    line("int %s = %s;", go, cond.p);
    line("if (%s) {", go);
    F->ind++;
    scope_open();
    line("%s = %s;", ilo, emit_expr(in->iter.lo));
    line("%s = %s;", ihi, emit_expr(in->iter.hi));
    scope_close();
    const char *ilast = arena_printf("%s - 1", ihi);
    /* the guards that need the inner range: rows read along it, and before
     * them (they index those rows) the inner loop's guards of arrays the
     * nest does not define; its guards of rows a let names are tested per
     * group, below */
    cond.len = 0;
    bprintf(&cond, "%s >= %s || (1", ilo, ihi);
    for (int g = 0; g < in->nguards; g++)
        if (!nest_let_var(b, in->guards[g].arr))
            bprintf(&cond, " && %s", span_test(ilo, ilast, in->guards[g].off, vname(in->guards[g].arr)));
    for (int i = 0; i < s->nswap_guards; i++)
        if (!outer_guard(&s->swap_guards[i]))
            bprintf(&cond, " && %s", swap_guard_test(&s->swap_guards[i], lo, last, ilo, ilast));
    line("%s = %s);", go, cond.p);
    free(cond.p);
    F->ind--;
    line("}");
    struct ir_node *was = CG->guarded, *was_inner = CG->swapped_inner;
    CG->guarded = s;
    CG->swapped_inner = in;
    const char *v = declare_var(s->var, VS_OWNED);
    line("for (; %s && (uint64_t)%s - (uint64_t)%s >= %d; %s += %d) {", go, hi, k, jam, k, jam);
    F->ind++;
    /* Sums without views of rows a let names run the group's iterations as
     * a loop over lanes, u_: each let's values (and each slot) an array of
     * jam, so gcc's vectorizer makes the eight sums one vector (measured on
     * the ijk product: 7.6 ms as eight scalar copies, 3.5 as a lane loop). */
    bool lanes = sums;
    for (int w = 0; w < in->nviews; w++)
        if (nest_let_var(b, in->views[w])) lanes = false;
    /* rows read along the inner loop (a[k][i]) would be a gather across
     * the lanes (measured: row dots 0.85 ms as copies, 2.4 as lanes) */
    for (int i = 0; i < s->nslots; i++)
        if (s->slots[i].rows) lanes = false;
    const char **lane_arr = arena_alloc((size_t)(nlets + s->nslots + 1) * sizeof *lane_arr);
    if (lanes)
        for (int i = 0; i < nlets; i++) {
            lane_arr[i] = new_temp();
            line("%s %s[%d];", ctype(b->kids[i]->var->type), lane_arr[i], jam);
        }
    /* the lets of each outer iteration of the group, kept */
    const char **saved = arena_alloc((size_t)(jam * (nlets + 1)) * sizeof *saved);
    for (int u = 0; u < jam; u++) {
        line("%s = %s + %d;", v, k, u);
        for (int i = 0; i < nlets; i++) {
            struct ir_node *let = b->kids[i];
            emit_stmt(let);
            if (lanes) {
                const char *t = saved[u * nlets + i] = arena_printf("%s[%d]", lane_arr[i], u);
                line("%s = %s;", t, vname(let->var));
                continue;
            }
            const char *t = saved[u * nlets + i] = new_temp();
            line("%s %s = %s;", ctype(let->var->type), t, vname(let->var));
        }
    }
    /* the inner loop's guards for every iteration of the group */
    struct buf ok = {0};
    bprintf(&ok, "%s >= %s || (1", ilo, ihi);
    for (int u = 0; u < jam; u++) {
        for (int g = 0; g < in->nguards; g++) {
            struct ir_var *arr = in->guards[g].arr;
            const char *name = vname(arr);
            if (nest_let_var(b, arr)) {
                for (int i = 0; i < nlets; i++)
                    if (b->kids[i]->var == arr) name = saved[u * nlets + i];
            } else if (u > 0) {
                continue;
            }
            bprintf(&ok, " && %s", span_test(ilo, ilast, in->guards[g].off, name));
        }
    }
    bputs(&ok, ")");
    line("if (!(%s)) break;", ok.p);
    free(ok.p);
    /* views of the inner loop: per iteration for the rows the lets name */
    struct view *views = arena_alloc((size_t)(jam * (in->nviews + 1)) * sizeof *views);
    for (int w = 0; w < in->nviews; w++) {
        struct ir_var *a = in->views[w];
        const char *ct = ctype(a->type->elem);
        for (int u = 0; u < jam; u++) {
            const char *src = vname(a);
            if (nest_let_var(b, a)) {
                for (int i = 0; i < nlets; i++)
                    if (b->kids[i]->var == a) src = saved[u * nlets + i];
            } else if (u > 0) {
                views[u * in->nviews + w] = views[w];
                continue;
            }
            const char *d = new_temp(), *n = new_temp();
            line("%s *%s = (%s *)%s->data;", ct, d, ct, src);
            line("int64_t %s = %s->len;", n, src);
            views[u * in->nviews + w] = (struct view){a, d, n, F};
        }
    }
    /* the stored elements of each iteration, in locals through the inner
     * loop, and the data of the rows it reads along that loop */
    const char **slots = arena_alloc((size_t)(jam * (s->nslots + 1)) * sizeof *slots);
    const char **lane_slots = lane_arr + nlets;
    if (lanes)
        for (int i = 0; i < s->nslots; i++) {
            struct ir_guard *g = &s->slots[i];
            lane_slots[i] = new_temp();
            if (g->rows) line("%s *%s[%d];", ctype(g->arr->type->elem->elem), lane_slots[i], jam);
            else line("%s %s[%d];", ctype(g->arr->type->elem), lane_slots[i], jam);
        }
    for (int u = 0; u < jam; u++)
        for (int i = 0; i < s->nslots; i++) {
            struct ir_guard *g = &s->slots[i];
            const char *ct = ctype(g->arr->type->elem), *t = slots[u * s->nslots + i] = new_temp();
            if (lanes) t = slots[u * s->nslots + i] = arena_printf("%s[%d]", lane_slots[i], u);
            if (g->rows) {
                const char *et = ctype(g->arr->type->elem->elem);
                if (lanes) line("%s = (%s *)%s->data;", t, et, slot_elem(g, k, u));
                else line("%s *%s = (%s *)%s->data;", et, t, et, slot_elem(g, k, u));
            } else {
                if (lanes) line("%s = %s;", t, slot_elem(g, k, u));
                else line("%s %s = %s;", ct, t, slot_elem(g, k, u));
            }
        }
    range_head(in, ilo, ihi);
    /* With accumulators, gcc would vectorize this loop itself, across its
     * steps (gathers, and an in-order reduction that keeps each sum's
     * order): slower than scalar. The empty asm keeps the loop as it is,
     * so its vectorizer takes the lanes instead (the sums of eight outer
     * iterations in one vector). */
    if (sums) line("__asm__ volatile(\"\");");
    if (lanes) {
        const char *q = new_temp();
        line("for (int %s = 0; %s < %d; %s++) {", q, q, jam, q);
        F->ind++;
        const char **names = arena_alloc((size_t)(nlets + s->nslots + 1) * sizeof *names);
        for (int i = 0; i < nlets + s->nslots; i++) names[i] = arena_printf("%s[%s]", lane_arr[i], q);
        jam_copy(in, b, nlets, v, arena_printf("%s + %s", k, q), names, s->nslots ? names + nlets : NULL, views);
        F->ind--;
        line("}");
    }
    for (int u = 0; u < jam && !lanes; u++)
        jam_copy(in, b, nlets, v, arena_printf("%s + %d", k, u), &saved[u * nlets], s->nslots ? &slots[u * s->nslots] : NULL,
                 &views[u * in->nviews]);
    range_end();
    for (int u = 0; u < jam; u++)
        for (int i = 0; i < s->nslots; i++)
            if (!s->slots[i].rows) line("%s = %s;", slot_elem(&s->slots[i], k, u), slots[u * s->nslots + i]);
    CG->guarded = was;
    CG->swapped_inner = was_inner;
    /* the statements after the inner loop, each iteration's in turn, as
     * written (checked), with its lets and accumulators */
    if (b->kids[b->nkids - 1] != in)
        for (int u = 0; u < jam; u++) {
            line("%s = %s + %d;", v, k, u);
            for (int i = 0; i < nlets; i++) line("%s = %s;", vname(b->kids[i]->var), saved[u * nlets + i]);
            for (int i = nlets + 1; i < b->nkids; i++) emit_stmt(b->kids[i]);
        }
    F->ind--;
    line("}");
    /* the rest, and from a group whose guards failed: as written */
    line("for (; %s < %s; %s++) {", k, hi, k);
    F->ind++;
    line("%s = %s;", v, k);
    emit_stmt(s->b);
    F->ind--;
    line("}");
    F->ind--;
    line("}");
}

static void emit_block_stmts(struct ir_node *b)
{
    for (int i = 0; i < b->nkids; i++) emit_stmt(b->kids[i]);
    /* lets of this block end here: release early so copy-on-write sees
     * the true reference counts */
    for (int i = 0; i < b->nkids; i++) {
        struct ir_node *k = b->kids[i];
        if (k->op == IR_LET && type_is_ref(k->var->type) && !k->borrow)
            line("%s(v%d); v%d = %s;", release_fn(k->var->type), k->var->id, k->var->id, zero_of(k->var->type));
    }
}

/* Whether the expressions of statement s itself (not its inner
 * statements) change v's array in place. */
bool stmt_mutates(struct ir_node *s, struct ir_var *v)
{
    switch (s->sop) {
    case IR_IF: case IR_WHILE: return ir_mutates(s->a, v);
    case IR_FOR_RANGE: return ir_mutates(s->iter.lo, v) || ir_mutates(s->iter.hi, v);
    case IR_FOR_ARRAY: return ir_mutates(s->iter.array, v);
    case IR_LET: case IR_ASSIGN: case IR_EXPR: case IR_RETURN: case IR_STORE: case IR_PUSH: case IR_UNIQUE:
        if (ir_mutates(s->a, v)) return true;
        for (int i = 0; i < s->nkids; i++)
            if (ir_mutates(s->kids[i], v)) return true;
        return false;
    case IR_BLOCK: case IR_BREAK: case IR_CONTINUE: case IR_UNREACHABLE: return false;
    }
    return false;
}

static void emit_stmt_here(struct ir_node *s);

void emit_stmt(struct ir_node *s)
{
    struct ir_node *outer = F->stmt;
    F->stmt = s;
    if (s->sop != IR_BLOCK) debug_line(&F->body, s->loc, false);
    emit_stmt_here(s);
    F->stmt = outer;
}

static void emit_stmt_here(struct ir_node *s)
{
    switch (s->sop) {
    case IR_BLOCK:
        line("{");
        F->ind++;
        emit_block_stmts(s);
        F->ind--;
        line("}");
        return;
    case IR_LET: case IR_ASSIGN: {
        scope_open();
        if (s->op == IR_ASSIGN && s->var->type == ty_str && s->a->op == IR_BINARY && s->a->bop == OP_ADD &&
            s->a->a->op == IR_VAR && s->a->a->var == s->var) {
            /* s = s + e (and s += e): appended in place when s holds the
             * only reference, so a building loop is linear */
            const char *v = vname(s->var);
            if (s->a->b->op == IR_FSTRING && !reads_var(s->a->b, s->var)) {
                /* s += f"..": each piece appended as it is made, no string in between */
                emit_fstring_into(s->a->b, v);
                scope_close();
                return;
            }
            const char *b = emit_expr(s->a->b);
            line("%s = brt_str_append(%s, %s);", v, v, b);
            scope_close();
            return;
        }
        if (s->op == IR_ASSIGN && s->var->type->kind == T_ARRAY && s->a->op == IR_BINARY && s->a->bop == OP_ADD &&
            s->a->a->op == IR_VAR && s->a->a->var == s->var) {
            /* xs = xs + ys (and xs += ys): extended in place, as xs.extend(ys) */
            const char *b = emit_expr(s->a->b);
            const char *v = vname(s->var);
            line("%s = brt_arr_extend_take(%s, %s);", v, v, b);
            scope_close();
            return;
        }
        const char *x = emit_expr(s->a);
        if (s->borrow) {
            /* the element outlives the let (opt_borrow.c): no reference of its own */
            line("%s = %s;", declare_var(s->var, VS_BORROWED), x);
            scope_close();
            return;
        }
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
        bool fields = false;
        for (int i = 0; i < s->nkids; i++) {
            if (is_field_step(s->kids[i])) fields = true;
            else idx[i] = emit_expr(s->kids[i]);
        }
        struct type *et = s->a->type;
        x = take(x, et);
        x = lval(x, et);
        const char *L = loc_ref(s->loc);
        if (s->slot && CG->slot_names) {
            line("%s = %s;", CG->slot_names[s->slot - 1], x);
            scope_close();
            return;
        }
        if (fields) {
            store_path(s, idx, x, L);
            scope_close();
            return;
        }
        if (s->op == IR_PUSH) {
            if (s->nkids == 0) {
                const char *v = vname(s->var);
                line("BRT_PUSH(%s, %s, %s);", ctype(et), v, x);
            } else {
                const char *arr = unique_path(s, idx, s->nkids, L);
                line("BRT_PUSH(%s, %s, %s);", ctype(et), arr, x);
            }
        } else {
            const char *arr = unique_path(s, idx, s->nkids - 1, L);
            const char *slot = new_temp();
            const struct view *vw = s->nkids == 1 && s->unique_steps >= 1 ? view_of_var(s->var) : NULL;
            if (vw && in_guarded_loop(s))
                line("%s *%s = &%s[%s];", ctype(et), slot, vw->data, idx[0]);
            else if (vw)
                line("%s *%s = &%s[brt_idx_n(%s, %s, %s)];", ctype(et), slot, vw->data, vw->len, idx[0], L);
            else if (in_guarded_loop(s))
                line("%s *%s = &BRT_AT(%s, %s, %s);", ctype(et), slot, ctype(et), arr, idx[s->nkids - 1]);
            else
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
    case IR_UNIQUE:
        scope_open();
        emit_unique(s);
        scope_close();
        return;
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
        int views = open_views(s);
        if (!s->ind_var) {
            while_loop(s);
            close_views(views);
            return;
        }
        /* an induction loop (opt_loops.c): the version without the guarded
         * checks when j0 .. n (n - 1 for <) keeps every guarded index in its
         * array, the step is not negative and n + step fits, else as written */
        scope_open();
        const char *lo = vname(s->ind_var);
        const char *n = tmp(ty_int, "%s", emit_expr(s->ind_bound));
        const char *st = tmp(ty_int, "%s", emit_expr(s->ind_step));
        scope_close();
        const char *last = s->ind_inclusive ? n : arena_printf("(%s - 1)", n);
        struct buf cond = {0};
        bprintf(&cond, "%s %s %s || (%s >= 0 && %s <= INT64_MAX - %s", lo, s->ind_inclusive ? ">" : ">=", n, st, last,
                st);
        for (int i = 0; i < s->nguards; i++)
            bprintf(&cond, " && %s", span_test(lo, last, s->guards[i].off, vname(s->guards[i].arr)));
        bputs(&cond, ")");
        two_versions(s, cond.p, lo, n);
        free(cond.p);
        close_views(views);
        return;
    }
    case IR_FOR_RANGE: {
        struct type *it = s->iter.lo->type;
        if (!type_is_integer(it)) internal_error("emit: for over a range of %s", type_name(it));
        scope_open();
        /* copies: the body may assign the variables the bounds were read from */
        const char *lo = tmp(it, "%s", emit_expr(s->iter.lo));
        const char *hi = tmp(it, "%s", emit_expr(s->iter.hi));
        scope_close();
        int views = open_views(s);
        if (s->swap) {
            if (s->jam) jammed_nest(s, lo, hi);
            else swapped_nest(s, lo, hi);
            close_views(views);
            return;
        }
        if (!s->nguards) {
            range_loop(s, lo, hi);
            close_views(views);
            return;
        }
        /* the version without the guarded bounds checks, when every guard
         * holds for all of lo .. hi (opt_loops.c), else the loop as written */
        struct buf cond = {0};
        bprintf(&cond, "%s %s %s", lo, s->iter.inclusive ? ">" : ">=", hi);
        const char *last = s->iter.inclusive ? hi : arena_printf("%s - 1", hi);
        for (int i = 0; i < s->nguards; i++)
            bprintf(&cond, " %s %s", i ? "&&" : "|| (", span_test(lo, last, s->guards[i].off, vname(s->guards[i].arr)));
        bputs(&cond, ")");
        two_versions(s, cond.p, lo, hi);
        free(cond.p);
        close_views(views);
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
        int views = open_views(s);
        /* the loop variable borrows each element: a loop variable cannot be
         * assigned, and the snapshot holds the elements for the whole loop
         * (a value that escapes is retained where it escapes, by take()) */
        const char *v = declare_var(s->var, VS_BORROWED);
        const char *k = new_temp();
        line("for (int64_t %s = 0; %s < %s->len; %s++) {", k, k, snap, k);
        F->ind++;
        line("%s = BRT_AT(%s, %s, %s);", v, ctype(et), snap, k);
        emit_stmt(s->b);
        F->ind--;
        line("}");
        line("brt_arr_release(%s); %s = NULL;", snap, snap);
        if (type_is_ref(et)) line("%s = %s;", v, zero_of(et));
        close_views(views);
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
    }
    internal_error("emit: %s is not a statement", ir_op_name[s->op]);
}

/* ---- functions and the program --------------------------------------------- */

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
static const char *frame_name(struct ir_fn *f)
{
    if (f->is_lambda) {
        const struct source *src = source_get(f->loc.file);
        return arena_printf("a lambda at %s:%d:%d", src && src->name ? src->name : "?", f->loc.line, f->loc.col);
    }
    if (f == CG->ir->main || strcmp(f->module, CG->ir->main->module) == 0) return f->name;
    return arena_printf("%s.%s", f->module, f->name);
}

static void emit_fn(struct ir_fn *f)
{
    F = fctx_new();
    F->frame = frame_name(f);
    F->site = f->has_site;
    F->owner = !quiet_fn(f);
    for (int i = 0; i < f->nparams; i++) F->vst[f->params[i]->id] = VS_BORROWED;
    emit_block_stmts(f->body);
    struct buf *o = &CG->fns;
    debug_line(o, f->loc, true);
    bprintf(o, "/* %s.%s */\nstatic %s%s\n{\n", f->module, f->name, fn_recursive(f) ? "BRT_NOINLINE " : "",
            fn_header(f)); /* a recursion's frames are C frames (emit_quiet.c) */
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
    "BRT_INLINE double bp_fabs(double x) { union { uint64_t u; double d; } c; c.d = x; c.u &= ~(1ULL << 63); return c.d; }\n"
    "BRT_INLINE int64_t bp_amt_u64(uint64_t s) { return s > (uint64_t)INT64_MAX ? -1 : (int64_t)s; }\n"
    "BRT_INLINE int64_t bp_amt_i128(brt_i128 s) { return s.hi != 0 || s.lo > (uint64_t)INT64_MAX ? -1 : (int64_t)s.lo; }\n"
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
    "#define BP_EXACT 9007199254740992LL\n"
    "/* --release may compile this text twice, in parallel (backend.c): with\n"
    " * -DBP_PART=1 main, the functions and the first par helpers, with\n"
    " * -DBP_PART=2 the other par helpers (and a copy of the static functions\n"
    " * they call). */\n"
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
        if (!in_fn && helper_header(p, n)) {
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
    /* the mark backend.c looks for near the top */
    if (cg.aux.len >= SPLIT_MIN && cg.fns.len >= SPLIT_MIN) bputs(&out, "#define BP_PARTS 2\n\n");
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
    map_free(&cg.type_ids);
    map_free(&cg.fold_ids);
    map_free(&cg.fnval_ids);
    map_free(&cg.quiet);
    map_free(&cg.recursive);
    debug_finish(&out);
    CG = NULL;
    F = NULL;
    return (struct emit_result){out.p, out.len, cg.kernels.p, cg.kernels.len, cg.nkernels};
}
