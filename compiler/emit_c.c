/*
 * emit_c.c: the IR's statements and expressions -> C, in the translation
 * unit emit_program() (emit_program.c) writes. The other rooms are named in
 * emit_c.h: the floor of names, types and ownership (emit_base.c), loops
 * (emit_loops.c), reductions (emit_par.c, emit_scan.c), SIMD lanes
 * (emit_lane.c), builtins (emit_builtin.c), function values (emit_fnval.c).
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
 * frames: what each of them owns is listed in its brt_owner (emit_base.c own_record),
 * which the panic releases before it jumps.
 */
#include "emit_c.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static const char *spec_lit(const char *spec);

/* ---- expressions ---------------------------------------------------------- */


const char *float_lit(double d) { return float_bits_lit("bp_f64", d); }

/* The shift amount as brt_sh*'s int64_t (negative: out of range). */
static const char *shift_amount(const char *b, struct type *t)
{
    if (t == ty_u64) return arena_printf("bp_amt_u64(%s)", b);
    if (t == ty_i128) return arena_printf("bp_amt_i128(%s)", b);
    return b;
}


/* Whether every piece of f-string n is literal text or an int, u64, bool or
 * str without a spec: its length is known before its first byte. */
static bool fstring_sized(struct ir_node *n)
{
    for (int i = 0; i < n->nkids; i++) {
        struct type *t = n->kids[i]->type;
        if (!n->lit[i] && (n->specs[i] || !(t == ty_int || t == ty_u64 || t == ty_bool || t == ty_str))) return false;
    }
    return true;
}

/* Such an f-string: its pieces' values in order, their lengths summed, then
 * one str of that length written in place (a short literal byte by byte). */
static const char *emit_fstring_sized(struct ir_node *n)
{
    const char **x = arena_alloc(sizeof *x * (size_t)n->nkids);
    struct buf len = {0};
    size_t lits = 0;
    for (int i = 0; i < n->nkids; i++) {
        struct ir_node *k = n->kids[i];
        if (n->lit[i]) {
            lits += k->slen;
            continue;
        }
        x[i] = tmp(k->type, "%s", emit_expr(k));
        if (k->type == ty_str) bprintf(&len, " + %s->len", x[i]);
        else if (k->type == ty_bool) bprintf(&len, " + (%s ? 4 : 5)", x[i]);
        else bprintf(&len, " + brt_len_%s(%s)", k->type == ty_int ? "i64" : "u64", x[i]);
    }
    const char *d = new_temp();
    line("char *%s;", d);
    const char *r = tmp_owned(ty_str, "brt_str_make(%zuLL%s, &%s)", lits, len.p ? len.p : "", d);
    free(len.p);
    for (int i = 0; i < n->nkids; i++) {
        struct ir_node *k = n->kids[i];
        if (n->lit[i] && k->slen <= 8) {
            for (size_t j = 0; j < k->slen; j++) line("*%s++ = (char)%d;", d, (int)(signed char)k->str[j]);
        } else if (n->lit[i]) {
            struct buf lit = {0};
            c_string(&lit, k->str, k->slen);
            line("%s = brt_put_bytes(%s, %s, %zu);", d, d, lit.p, k->slen);
            free(lit.p);
        } else if (k->type == ty_str) {
            line("%s = brt_put_bytes(%s, %s->data, %s->len);", d, d, x[i], x[i]);
        } else if (k->type == ty_bool) {
            line("%s = brt_put_bytes(%s, %s ? \"true\" : \"false\", %s ? 4 : 5);", d, d, x[i], x[i]);
        } else {
            line("%s += brt_format_%s(%s, %s);", d, k->type == ty_int ? "i64" : "u64", x[i], d);
        }
    }
    return r;
}

static const char *emit_binary(struct ir_node *n)
{
    const char *a = emit_expr(n->a);
    const char *b = emit_expr(n->b);
    struct type *ot = n->optype, *bt = n->b->type;
    enum op op = n->bop;
    bool cmp = op_is_compare(op);

    if (ot == ty_str || (op == OP_MUL && bt == ty_str)) {
        /* a new string on the left (a call's, a join's) is extended in
         * place, its bytes not copied: its reference is ours to hand over */
        if (op == OP_ADD && takes_over(a, ty_str))
            return tmp_owned(ty_str, "brt_str_extend(%s, %s)", take(a, ty_str), b);
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
    bool proved = n->no_overflow || proved_by(n->no_overflow_in);
    if (proved && ot == ty_int && (op == OP_ADD || op == OP_SUB || op == OP_MUL || op == OP_DIV || op == OP_MOD))
        return tmp(ot, "%s %s %s", a, op_c[op], b); /* / and %: by a positive divisor (opt_range.c) */
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
    case OPC_SHIFT:
        if (n->no_overflow && ot == ty_int) /* the amount is in 0..63 (opt_range.c) */
            return op == OP_SHR ? tmp(ot, "%s >> %s", a, b) : tmp(ot, "(int64_t)((uint64_t)%s << %s)", a, b);
        if (n->no_overflow && ot == ty_u64) return tmp(ot, "%s %s %s", a, op_c[op], b);
        return tmp(ot, "brt_%s_%s(%s, %s, %s)", op_stem[op], sfx, a, shift_amount(b, bt), loc_ref(n->loc));
    case OPC_CMP: case OPC_UNARY: case OPC_NONE: break;
    }
    internal_error("emit: integer operator %s", op_spelling[op]);
}

/* The bounds check of n's index i into arr (or a view's length len): one
 * that tests a conversion first where opt_bins.c made it do so. */
static const char *idx_check(struct ir_node *n, const char *arr, const char *len, const char *i)
{
    const char *L = loc_ref(n->loc);
    if (n->f2i_conv) {
        const char *x = emit_expr(n->f2i_conv->a), *lc = loc_ref(n->f2i_conv->loc);
        if (arr) return arena_printf("brt_idx_f2i(%s, %s, %s, %s, %s)", arr, i, x, lc, L);
        return arena_printf("brt_idx_n_f2i(%s, %s, %s, %s, %s)", len, i, x, lc, L);
    }
    if (arr) return arena_printf("brt_idx(%s, %s, %s)", arr, i, L);
    return arena_printf("brt_idx_n(%s, %s, %s)", len, i, L);
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
        if (from == ty_float && n->f2i_later) return tmp(to, "brt_f2i_raw(%s)", a); /* opt_bins.c */
        if (from == ty_float) return tmp(to, "brt_f2i(%s, %s)", a, loc_ref(n->loc));
        if (from == ty_u64) return tmp(to, "brt_u64_to_i64(%s, %s)", a, loc_ref(n->loc));
        if (from == ty_i128) return tmp(to, "brt_i128_to_i64(%s, %s)", a, loc_ref(n->loc));
        if (from == ty_str) return tmp(to, "brt_parse_int(%s, %s)", a, loc_ref(n->loc));
        break;
    case T_U64:
        if (from == ty_float) return tmp(to, "brt_f2u64(%s, %s)", a, loc_ref(n->loc));
        if (from == ty_int && n->no_overflow) return tmp(to, "(uint64_t)%s", a); /* never negative */
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
    if (b == BI_sqrt) return "bp_sqrt"; /* the instruction under gcc and clang (emit_program.c's prelude) */
    switch (b) {
#define X(P, name, arity, gpu) case BI_##name: return "brt_" #name;
        BRT_MATH(X, _)
#undef X
    default: return NULL;
    }
}

/* An expression: its value's C (a temporary, a variable, a literal). Its
 * places name the calls written in place they are in themselves (loc.inl:
 * loc_ref writes the chain of frames), so nothing is entered here. */
const char *emit_expr(struct ir_node *n)
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
        if (n->moved && F->vst[n->var->id] == VS_OWNED) {
            /* its last use (opt_move.c): the reference handed over, the variable emptied */
            const char *x = tmp(n->type, "%s", vname(n->var));
            line("%s = %s;", vname(n->var), zero_of(n->type));
            return owned_tmp_(n->type, x);
        }
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
        struct ir_node *v, *w;
        bool incl = ir_one_compare(n, &v, &w);
        if (n->one_compare && w) /* 0 <= v < w, w >= 0 */
            return tmp(ty_bool, "(uint64_t)%s %s (uint64_t)%s", emit_expr(v), incl ? "<=" : "<", emit_expr(w));
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
        line(n->versioned ? "if (bp_opaque(%s)) {" : "if (%s) {", c);
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
        for (int i = 0; i < n->nkids; i++) /* a parameter the callee owns gets a +1 reference (opt_move.c) */
            if (n->fn->owns && n->fn->owns[i]) xs[i] = take(xs[i], n->kids[i]->type);
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
        bool frameless = n->fn->frameless;
        if (frameless) { /* a par row's function: its places are this one's */
            map_put_ptr(&CG->frames_as, n->fn, (void *)frame_of(n->loc));
        }
        bprintf(&args, "%s%s", n->nkids || site ? ", " : "", site || frameless ? frame_slot() : frame_next());
        bool slot = !site && !frameless && !quiet_fn(n->fn);
        if (slot) line("%s[0] = %s;", frame_slot(), loc_ref(n->loc));
        const char *r = "";
        if (n->type == ty_void) line("%s(%s);", n->fn->cname, args.p);
        else r = tmp(n->type, "%s(%s)", n->fn->cname, args.p);
        /* emit_program.c: BP_KEEP, for a result that comes back in two
         * registers (two 8-byte fields; a bigger one comes back in memory,
         * where forcing its fields into registers only adds moves) */
        if (n->type->kind == T_TUPLE && n->type->nfields == 2 && fn_recursive(n->fn))
            for (int i = 0; i < n->type->nfields; i++) {
                enum type_kind k = n->type->fields[i]->kind;
                if (k == T_FLOAT || k == T_INT) line("BP_KEEP_%c(%s.f%d);", k == T_FLOAT ? 'F' : 'I', r, i);
            }
        if (slot) line("%s[0] = NULL;", frame_slot());
        return *r ? owned_tmp_(n->type, r) : r; /* after the slot's clear: a take just after owes no cell */
    }
    case IR_BUILTIN: return emit_builtin(n);
    case IR_FNVAL: return emit_fnval(n);
    case IR_CALLV: return emit_callv(n);
    case IR_GUARD_TEST:
        if (!n->narrowed) internal_error("emit: a guard test outside its versioned if");
        return narrowed_test(n);
    case IR_INDEX: {
        if (n->f2i_conv && (row_local(n) || (n->slot && CG->slot_names)))
            internal_error("emit: a conversion's check on an element read without one");
        if (n->slot && CG->slot_names) return tmp(n->type, "%s", CG->slot_names[n->slot - 1]);
        if (n->a->op == IR_INDEX && n->a->slot && CG->slot_names) {
            /* an element of a row the jam keeps the data of (proved in range) */
            const char *i = emit_expr(n->b);
            return tmp(n->type, "%s[%s]", CG->slot_names[n->a->slot - 1], i);
        }
        const struct rowloc *row = row_local(n);
        if (row && row->elem) return tmp(n->type, "%s", row->elem);
        if (row) return tmp(n->type, "%s[%s]", row->name, emit_expr(n->b));
        const char *tab = n->a->op == IR_INDEX && n->a->a->op == IR_VAR ? col_table(n, n->a->a->var) : NULL;
        if (tab) { /* a column's row in a table (emit_rows.c) */
            const char *r = emit_expr(n->a->b);
            const char *i = emit_expr(n->b);
            return tmp(n->type, "((%s *)%s.data[%s])[%s]", ctype(n->type), tab, r, i);
        }
        const struct view *vw = view_of(n->a);
        if (vw) {
            const char *i = emit_expr(n->b);
            if (in_guarded_loop(n)) return tmp(n->type, "%s[%s]", vw->data, i);
            return tmp(n->type, "%s[%s]", vw->data, idx_check(n, NULL, vw->len, i));
        }
        const char *a = emit_expr(n->a);
        const char *i = emit_expr(n->b);
        if (in_guarded_loop(n)) return tmp(n->type, "BRT_AT(%s, %s, %s)", ctype(n->type), a, i);
        return tmp(n->type, "BRT_AT(%s, %s, %s)", ctype(n->type), a, idx_check(n, a, NULL, i));
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
        if (fstring_sized(n)) return emit_fstring_sized(n);
        /* built in a buffer on the stack (the heap only when it outgrows
         * it), so the str made of it is the one allocation */
        const char *sb = new_temp();
        line("char %s_room[128];", sb);
        line("brt_sb %s = {%s_room, 0, -128};", sb, sb);
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
void assign_var(const char *v, const char *x, struct type *t)
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
    if (s->unique_steps < 1) line("BRT_UNIQUE(%s);", v);
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
        if (i + 1 >= s->unique_steps) line("BRT_UNIQUE(*%s);", slot);
        cur = arena_printf("(*%s)", slot);
        t = t->elem;
    }
    return cur;
}

static bool is_field_step(struct ir_node *k)
{
    return k->op == IR_FIELD && !k->a;
}

/* Step i of s's path from the C lvalue lv (of a value of type *t): a field
 * of the struct lv is, or an element of the array, made unique first
 * unless the step is among s's unique_steps. idx is the index's C, checked
 * against the length at L, or (L NULL) leaving the enclosing do-while when
 * out of range. Returns the new lvalue; *t becomes its type. A field, and
 * an element through a loop's view, stay one lvalue expression
 * (ps[i].vx = e, not a pointer to it stored through): gcc vectorizes a
 * loop of such stores, and of stores through the pointers not at all
 * (particles/inplace_main: 33 -> 13 ms). */
static const char *path_step(struct ir_node *s, int i, const char *lv, struct type **t, const char *idx, const char *L)
{
    struct ir_node *k = s->kids[i];
    struct type *nt = is_field_step(k) ? k->type : (*t)->elem;
    *t = nt;
    if (is_field_step(k)) return arena_printf("%s.f%d", lv, k->field);
    if (i == 0 && L && s->unique_steps >= 1 && view_of_var(s->var)) {
        /* the variable's array, unique, through the loop's view of it;
         * its one index checked unless the loop's guard or a range proves it */
        const struct view *vw = view_of_var(s->var);
        const char *at = in_guarded_loop(s) ? idx : arena_printf("brt_idx_n(%s, %s, %s)", vw->len, idx, L);
        return arena_printf("%s[%s]", vw->data, at);
    }
    if (i >= s->unique_steps) line("BRT_UNIQUE(%s);", lv);
    if (!L) line("if ((uint64_t)%s >= (uint64_t)(%s)->len) break;", idx, lv);
    bool proved = L && i == 0 && in_guarded_loop(s); /* a store's one index (ir_store_one_index) */
    const char *at = L && !proved ? arena_printf("brt_idx(%s, %s, %s)", lv, idx, L) : idx;
    const char *q = new_temp();
    line("%s *%s = &BRT_AT(%s, %s, %s);", ctype(nt), q, ctype(nt), lv, at);
    return arena_printf("(*%s)", q);
}

/* A store or push whose path has field steps (s.lo = v, segs[i].lo = v,
 * s.xs.push(v)): the path walked from the variable, each array on it made
 * unique before its slot is taken, each field a member of the struct. */
static void store_path(struct ir_node *s, const char **idx, const char *x, const char *L)
{
    struct type *t = s->var->type;
    /* the value as it is now: s.xs[0].kids.push(s) pushes the s before the store */
    const char *val = new_temp();
    line("%s %s = %s;", ctype(s->a->type), val, x);
    x = val;
    const char *lv = vname(s->var);
    for (int i = 0; i < s->nkids; i++) lv = path_step(s, i, lv, &t, idx[i], L);
    if (s->op == IR_PUSH) {
        push_elem_line(s->a->type, lv, x);
    } else if (type_is_ref(t)) {
        const char *old = new_temp();
        line("%s %s = %s;", ctype(t), old, lv);
        line("%s = %s;", lv, x);
        line("%s(%s);", release_fn(t), old);
    } else {
        line("%s = %s;", lv, x);
    }
}

/* unique var[k0]..: each array on the path made unique (opt_unique.c),
 * stopping at an index out of range (the store after it panics there);
 * `unique var[k0]..[*]` then every element of the last one too. */
static void emit_unique(struct ir_node *s)
{
    struct type *t = s->var->type;
    const char *lv = vname(s->var);
    line("do {");
    F->ind++;
    for (int i = 0; i < s->nkids; i++)
        lv = path_step(s, i, lv, &t, is_field_step(s->kids[i]) ? NULL : emit_expr(s->kids[i]), NULL);
    if (s->nkids >= s->unique_steps) line("BRT_UNIQUE(%s);", lv);
    if (s->every) line("brt_arr_unique_rows(%s);", lv);
    F->ind--;
    line("} while (0);");
}

/* The variable at the root of an index path a[k0][k1].. (opt_move.c's takes). */
static struct ir_var *path_root(struct ir_node *n)
{
    while (n->op == IR_INDEX) n = n->a;
    return n->var;
}

/* Slot steps from p (a pointer to the root variable's array) down the
 * path n = a[k0]..[kj]: each array on the way made unique (but a, when a
 * loop's view says it is: root_unique), each index checked in the order
 * the expression checks them. Returns a pointer to the slot of the last. */
static const char *take_steps(struct ir_node *n, const char *p, bool root_unique)
{
    if (n->op != IR_INDEX) return p;
    p = take_steps(n->a, p, root_unique);
    const char *i = emit_expr(n->b), *q = new_temp();
    if (n->a->op != IR_VAR || !root_unique) line("BRT_UNIQUE(*%s);", p);
    line("brt_arr **%s = &BRT_AT(brt_arr *, *%s, brt_idx(*%s, %s, %s));", q, p, p, i, loc_ref(n->loc));
    return q;
}

/* let v = a[k0]..[kd] taking the element out (opt_move.c): each array on
 * the path made unique, the slot's value v's own reference, the slot left
 * empty until a store puts a value back. A loop's view of a (opt_loops.c)
 * means a is unique there: so a chunk of a loop on the pool, where a is
 * borrowed, takes through it. */
static void emit_take(struct ir_node *s)
{
    struct ir_node *ix = s->a;
    struct type *et = s->var->type;
    struct ir_var *root = path_root(ix);
    const char *L = loc_ref(ix->loc), *slot = new_temp();
    const struct view *vw = ix->a->op == IR_VAR ? view_of_var(root) : NULL;
    if (vw) {
        const char *i = emit_expr(ix->b);
        line("%s *%s = &((%s *)%s)[brt_idx_n(%s, %s, %s)];", ctype(et), slot, ctype(et), vw->data, vw->len, i, L);
    } else {
        const char *p = new_temp();
        line("brt_arr **%s = &%s;", p, vname(root));
        p = take_steps(ix->a, p, view_of_var(root) != NULL);
        const char *i = emit_expr(ix->b);
        line("BRT_UNIQUE(*%s);", p);
        line("%s *%s = &BRT_AT(%s, *%s, brt_idx(*%s, %s, %s));", ctype(et), slot, ctype(et), p, p, i, L);
    }
    const char *x = tmp(et, "*%s", slot);
    line("*%s = %s;", slot, zero_of(et));
    assign_var(declare_var(s->var, VS_OWNED), x, et);
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

/* v = v + the literal text k (an IR_STR, or an f-string's literal piece):
 * its bytes appended inline while they fit (brt_str_append_lit). */
static void append_lit(struct ir_node *k, const char *v)
{
    struct buf lit = {0};
    c_string(&lit, k->str ? k->str : "", k->slen);
    line("%s = brt_str_append_lit(%s, %s, %zu);", v, v, lit.p, k->slen);
    free(lit.p);
}

/* v = v + f"...": the f-string's pieces appended to v one by one, in order. */
static void emit_fstring_into(struct ir_node *n, const char *v)
{
    for (int i = 0; i < n->nkids; i++) {
        struct ir_node *k = n->kids[i];
        if (n->lit[i]) {
            append_lit(k, v);
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

/* v = v + x (v a str variable or temp that x does not read): x's text
 * appended to v where it is made: a + b as a's then b's, an f-string piece
 * by piece, a literal's bytes (inline while they fit), a str() of a number
 * or bool written in place, any other str appended whole. (b is made after a is appended: only a panic could tell,
 * and it ends the program.) */
void append_text(struct ir_node *x, const char *v)
{
    if (x->op == IR_BINARY && x->bop == OP_ADD && x->type == ty_str) {
        append_text(x->a, v);
        append_text(x->b, v);
        return;
    }
    if (x->op == IR_FSTRING) {
        emit_fstring_into(x, v);
        return;
    }
    if (x->op == IR_STR) {
        append_lit(x, v);
        return;
    }
    struct ir_node *k = x->op == IR_BUILTIN && x->builtin == BI_STR && x->nkids == 1 ? x->kids[0] : NULL;
    const char *tk = k && k->type != ty_str ? text_kind(k->type) : NULL;
    if (tk) {
        line("%s = brt_str_append_%s(%s, %s);", v, tk, v, emit_expr(k));
        return;
    }
    const char *b = emit_expr(x);
    line("%s = brt_str_append(%s, %s);", v, v, b);
}

void emit_block_stmts(struct ir_node *b)
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

/* Whether float expression x is v combined by +, - and * with other values
 * (s = s + e, s = e * s, s = (s + a) + b): v = x is a step of an in-order
 * fold of v. */
bool float_fold_of(struct ir_node *x, struct ir_var *v)
{
    if (x->op == IR_VAR) return x->var == v;
    if (x->op != IR_BINARY || x->optype != ty_float) return false;
    if (x->bop != OP_ADD && x->bop != OP_SUB && x->bop != OP_MUL) return false;
    return float_fold_of(x->a, v) || float_fold_of(x->b, v);
}

/* After a step of an in-order float fold of acc: the barrier, unless the
 * function is one of BP_FOLD256's (emit_program.c: fold_only) or the step
 * is a lane's (F->in_lanes). */
void fold_barrier(const char *acc)
{
    if (!F->fold256 && !F->in_lanes) line("BP_FOLD(%s);", acc);
}

/* A loop, or opt_prefetch.c's if [runs long] of a loop written twice: its
 * loop as written's rowmins, then the loop's writer, which evaluates the
 * bounds once for the test and the copy that runs. */
static void emit_loop(struct ir_node *s)
{
    struct ir_node *l = ir_loop_of(s);
    int rowmins = open_rowmins(l);
    if (l->op == IR_WHILE) emit_while(l);
    else if (l->op == IR_FOR_RANGE) emit_for_range(s);
    else emit_for_array(s);
    close_rowmins(rowmins);
}

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
        if (s->fused) {
            emit_fused(s);
            return;
        }
        line("{");
        F->ind++;
        if (s->cursor) { /* opt_cursor.c: the array's data, length and room in locals */
            line("BRT_CURSOR(%s, cu%d, %s);", ctype(s->var->type->elem), s->var->id, vname(s->var));
        }
        emit_block_stmts(s);
        if (s->cursor) line("BRT_CURSOR_END(%s, cu%d);", vname(s->var), s->var->id);
        F->ind--;
        line("}");
        return;
    case IR_LET: case IR_ASSIGN: {
        if (s->op == IR_ASSIGN && F->fold && fold_step(s)) return;
        scope_open();
        if (s->op == IR_ASSIGN && s->var->type == ty_str && s->a->op == IR_BINARY && s->a->bop == OP_ADD &&
            s->a->a->op == IR_VAR && s->a->a->var == s->var) {
            /* s = s + e (and s += e): appended in place when s holds the
             * only reference, so a building loop is linear */
            const char *v = vname(s->var);
            if (!reads_var(s->a->b, s->var)) {
                /* s += f"..", s += str(n): appended as made, no string in between */
                append_text(s->a->b, v);
            } else {
                const char *b = emit_expr(s->a->b);
                line("%s = brt_str_append(%s, %s);", v, v, b);
            }
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
        if (s->op == IR_ASSIGN && emit_map_in_place(s)) {
            scope_close();
            return;
        }
        if (s->take && (F->vst[path_root(s->a)->id] == VS_OWNED || view_of_var(path_root(s->a)))) {
            emit_take(s);
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
        if (s->op == IR_ASSIGN && map_get_ptr(&CG->fold_carried, s))
            fold_barrier(v); /* a step of an in-order float fold a loop carries (emit_program.c's prelude) */
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
        /* a store written in place of a call checks its indices in the
         * callee's frame: its place names the call (loc.inl, opt_inline.c) */
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
                /* made unique before the loop (opt_unique.c): only its room
                 * tested, in its cursor's locals where it has one */
                const char *v = vname(s->var);
                if (s->cursor)
                    line("BRT_CURSOR_PUSH(%s, %s, cu%d, %s);", ctype(et), v, s->var->id, x);
                else if (s->unique_steps)
                    line("BRT_COLLECT(%s, %s, %s);", ctype(et), v, x);
                else
                    push_elem_line(et, v, x);
            } else {
                const char *arr = unique_path(s, idx, s->nkids, L);
                push_elem_line(et, arr, x);
            }
        } else if (row_local(s) && row_local(s)->elem) {
            line("%s = %s;", row_local(s)->elem, x);
        } else if (row_local(s)) {
            line("%s[%s] = %s;", row_local(s)->name, idx[s->nkids - 1], x);
        } else {
            const char *tab = s->nkids == 2 ? col_table(s, s->var) : NULL; /* a column's row in a table */
            const char *arr = tab ? NULL : unique_path(s, idx, s->nkids - 1, L);
            const char *slot = new_temp();
            const struct view *vw = s->nkids == 1 && s->unique_steps >= 1 ? view_of_var(s->var) : NULL;
            if (tab)
                line("%s *%s = &((%s *)%s.data[%s])[%s];", ctype(et), slot, ctype(et), tab, idx[0], idx[1]);
            else if (vw && in_guarded_loop(s))
                line("%s *%s = &%s[%s];", ctype(et), slot, vw->data, idx[0]);
            else if (vw)
                line("%s *%s = &%s[%s];", ctype(et), slot, vw->data, idx_check(s, NULL, vw->len, idx[0]));
            else if (in_guarded_loop(s))
                line("%s *%s = &BRT_AT(%s, %s, %s);", ctype(et), slot, ctype(et), arr, idx[s->nkids - 1]);
            else
                line("%s *%s = &BRT_AT(%s, %s, %s);", ctype(et), slot, ctype(et), arr,
                     idx_check(s, arr, NULL, idx[s->nkids - 1]));
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
        if (s->a->op == IR_GUARD_TEST) {
            emit_versioned(s);
            return;
        }
        if (ir_runs_long_if(s)) { /* a loop written twice (opt_prefetch.c) */
            emit_loop(s);
            return;
        }
        scope_open();
        const char *c = emit_expr(s->a);
        c = lval(c, ty_bool);
        scope_close();
        line(s->versioned ? "if (bp_opaque(%s)) {" : s->rare ? "if (BRT_UNLIKELY(%s)) {" : "if (%s) {", c); /* rare: opt_records.c */
        F->ind++;
        if (s->rare_kept) line("BRT_KEEP_BRANCH();");
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
    case IR_WHILE: case IR_FOR_RANGE: case IR_FOR_ARRAY: emit_loop(s); return;
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
