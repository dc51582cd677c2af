/*
 * emit_base.c: the floor under the C emitter's rooms (emit_c.h): the names
 * every emitter writes with and nothing that walks the IR.
 *
 *   - places: one memoised L<n> per source location, and the chain's frame
 *     slot a call writes its place into;
 *   - C types of Brine types (ctype), their print kinds and array
 *     descriptors (tdesc), and their retain and release functions;
 *   - the function being emitted (struct fctx): lines, temporaries, local
 *     declarations;
 *   - cleanup scopes and ownership: own() registers an owned temporary in
 *     the innermost scope, take() turns an operand into a +1 reference,
 *     scope_close() releases what is still registered.
 */
#include "emit_c.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* Whether l begins inside span. */
static bool loc_within(struct loc l, struct loc span)
{
    if (l.file != span.file || span.line <= 0) return false;
    if (l.line < span.line || (l.line == span.line && l.col < span.col)) return false;
    if (l.line > span.end_line || (l.line == span.end_line && l.col >= span.end_col)) return false;
    return true;
}

/* The frame's name of a place: that of the call written in place it is
 * in (loc.inl), else the function's (opt_inline.c). */
const char *frame_own(struct loc l)
{
    return l.inl ? frame_name(CG->ir->sites[l.inl - 1].fn) : F->frame;
}

/* The frame's name of a place: a par element's own for the places of its
 * element and filter (in the calls the construct is in: a call written in
 * place inside the element has its own frame), else frame_own's. */
const char *frame_of(struct loc l)
{
    if (!F) return NULL;
    /* inside the par construct, but not its own place (where its own
     * overflow is reported): the element or the filter */
    if (F->in_helper && l.inl == F->elem_span.inl && loc_within(l, F->elem_span)
        && !(l.line == F->elem_span.line && l.col == F->elem_span.col))
        return F->elem_frame;
    return frame_own(l);
}

const char *frame_slot(void)
{
    F->frame_used = true;
    return "fp_";
}

const char *frame_next(void)
{
    F->frame_used = true;
    return "fp_ + 1";
}

/* Places are memoised (big programs have many): one L<n> per place, its
 * frame's name and its site. A place in a call written in place (loc.inl)
 * names the call's place as its site (runtime/frames.c: the chain's frame
 * just outside, no slot is written while it runs), whose own L<n> names
 * the calls around it: the chain is the place's own, whatever the emitter
 * is writing around it. */
static int loc_id(struct loc l);

static int site_ref(struct loc l)
{
    return F && l.inl ? loc_id(CG->ir->sites[l.inl - 1].site) : 0;
}

const char *loc_ref(struct loc l) { return arena_printf("&L%d", loc_id(l)); }

/* n of the place's L<n> */
static int loc_id(struct loc l)
{
    struct { int file, line, col, site; const char *fn; } key;
    memset(&key, 0, sizeof key); /* the padding too: the map compares bytes */
    key.site = site_ref(l); /* first: a site's L<n> before its places' */
    key.file = l.file, key.line = l.line, key.col = l.col, key.fn = frame_of(l);
    intptr_t known = (intptr_t)map_get(&CG->loc_ids, &key, sizeof key);
    if (known) return (int)known;
    int id = ++CG->nlocs;
    map_put(&CG->loc_ids, &key, sizeof key, (void *)(intptr_t)id);
    const struct source *src = source_get(l.file);
    const char *name = src && src->name ? src->name : "?";
    bprintf(&CG->locs, "static const brt_loc L%d __attribute__((unused)) = {", id);
    c_string(&CG->locs, name, strlen(name));
    bprintf(&CG->locs, ", %d, %d, ", l.line, l.col);
    if (key.fn) c_string(&CG->locs, key.fn, strlen(key.fn));
    else bputs(&CG->locs, "NULL");
    if (key.site) bprintf(&CG->locs, ", &L%d", key.site);
    bputs(&CG->locs, "};\n");
    return id;
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

const char *new_temp(void) { return arena_printf("t%d%s", ++CG->ntemps, CG->temp_sfx ? CG->temp_sfx : ""); }

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

/* The end of a block the emitter opened with its own scope: the scope's
 * releases, then the brace. */
void block_close(void)
{
    scope_close();
    F->ind--;
    line("}");
}

/* An f-string's builder (brt_sb), whose buffer a panic between its init and
 * its finish frees (t NULL: nothing to release at the scope's end, where
 * brt_sb_finish has emptied it). */
void own_sb(const char *sb)
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

/* The index in F->own of x, an owned temporary of the innermost scope; -1: none. */
static int own_index(const char *x)
{
    int mark = F->nmarks ? F->marks[F->nmarks - 1] : 0;
    for (int i = F->nown - 1; i >= mark; i--)
        if (F->own[i].name && strcmp(F->own[i].name, x) == 0) return i;
    return -1;
}

/* Whether take would hand x over (its reference nobody else's to keep). */
bool takes_over(const char *x, struct type *t)
{
    return type_is_ref(t) && own_index(x) >= 0;
}

/* A +1 reference to the operand's value: an owned temporary of the
 * innermost scope is handed over; anything else is retained. Scalars are
 * returned as they are. Use only where the code runs unconditionally within
 * the innermost scope. */
const char *take(const char *x, struct type *t)
{
    if (!type_is_ref(t)) return x;
    int i = own_index(x);
    if (i >= 0) {
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

/* slot.push(x) for an element of type et: BRT_PUSH, or for a tuple held in
 * a variable BRT_PUSH_EACH, its fields stored one by one with BP_APART
 * between them (emit_program.c), which gcc does not pack into one vector
 * store: a tuple pushed and popped the next iteration (a work list) is
 * otherwise built in a vector register (256 bits with --cpu=native), which
 * slowed the out-of-line math such a loop calls by a fifth. */
void push_elem_line(struct type *et, const char *slot, const char *x)
{
    if (et->kind != T_TUPLE || !is_ident(x)) {
        line("BRT_PUSH(%s, %s, %s);", ctype(et), slot, x);
        return;
    }
    line("BRT_PUSH_EACH(%s, %s, %s, %s);", ctype(et), slot, x,
         copy_fields(et, "push_e_->", arena_printf("%s.", x), " BP_APART; "));
}

/* The statements that copy a tuple of type t field by field, from (each
 * field's place is from and the field's name: "p->", "t3.") to to, sep
 * between them: a macro's COPY argument (BRT_POP_EACH, BRT_PUSH_EACH). */
const char *copy_fields(struct type *t, const char *to, const char *from, const char *sep)
{
    const char *copy = "";
    for (int i = 0; i < t->nfields; i++)
        copy = arena_printf("%s%s%sf%d = %sf%d;", copy, i ? sep : "", to, i, from, i);
    return copy;
}
