/*
 * emit_builtin.c: the C emitter's calls of builtins, os and world functions
 * and methods (emit_c.h): printing, the library's runtime calls, the
 * methods that change their array in place, math through BRT_MATH.
 */
#include "emit_c.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* A rotate amount: only its value modulo 64/128 matters. */
static const char *rot_amount(const char *b, struct type *t)
{
    if (t == ty_i128) return arena_printf("(int64_t)%s.lo", b);
    return arena_printf("(int64_t)%s", b);
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
    case T_ARRAY: case T_TUPLE: case T_OPTION: line("brt_print_val(%s, &%s);", tdesc(t), lval(x, t)); return;
    case T_FN: case T_VOID: break; /* the checker prints no function */
    }
    internal_error("emit: print of nothing");
}

/* An Option from a runtime call that answers whether there is a value and
 * writes it through a pointer: call is a format with %%s where the result's
 * name goes (brt_str_to_int(s, &%%s.f1)); the value, when a reference, is owned. */
static const char *opt_result(struct type *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static const char *opt_result(struct type *t, const char *fmt, ...)
{
    char call[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(call, sizeof call, fmt, ap);
    va_end(ap);
    const char *r = tmp(t, "%s", zero_of(t));
    char *filled = arena_printf(call, r);
    line("%s.f0 = %s;", r, filled);
    own(r, t);
    return r;
}

/* The slot (a brt_arr ** C expression) of a mutating method's receiver: a
 * var, or an element xs[i]... of one, each array on the way made unique. */
static const char *emit_place(struct ir_node *p)
{
    if (p->op == IR_VAR) return arena_printf("&%s", vname(p->var));
    if (p->op == IR_FIELD) { /* s.xs.pop(), segs[i].xs.sort(): a pointer to the field */
        const char *outer = emit_place(p->a);
        const char *slot = new_temp();
        line("%s *%s = &(%s)->f%d;", ctype(p->type), slot, outer, p->field);
        return slot;
    }
    if (p->op != IR_INDEX) internal_error("emit: a method's receiver is not a place");
    const char *outer = emit_place(p->a);
    const char *i = emit_expr(p->b);
    const char *slot = new_temp();
    const char *et = ctype(p->type);
    line("BRT_UNIQUE(*%s);", outer);
    line("%s *%s = &BRT_AT(%s, *%s, brt_idx(*%s, %s, %s));", et, slot, et, outer, outer, i, loc_ref(p->loc));
    return slot;
}

/* eprint, assert, and the methods that change their array in place. */

static const char *emit_io_builtin(struct ir_node *n)
{
    enum builtin b = n->builtin;
    if (b == BI_EPRINT) {
        const char **xs = arena_alloc((size_t)(n->nkids + 1) * sizeof *xs);
        for (int i = 0; i < n->nkids; i++) xs[i] = lval(emit_expr(n->kids[i]), n->kids[i]->type);
        int nv = n->field ? n->field - 1 : n->nkids; /* then sep and end, when given */
        const char *sb = new_temp();
        line("brt_sb %s;", sb);
        line("brt_sb_init(&%s);", sb);
        for (int i = 0; i < nv; i++) {
            if (i && n->field) line("brt_sb_lit(&%s, %s->data, %s->len);", sb, xs[nv], xs[nv]);
            else if (i) line("brt_sb_lit(&%s, \" \", 1);", sb);
            line("brt_sb_val(&%s, %s, &%s, NULL);", sb, tdesc(n->kids[i]->type), xs[i]);
        }
        if (n->field) line("brt_sb_lit(&%s, %s->data, %s->len);", sb, xs[nv + 1], xs[nv + 1]);
        line(n->field ? "brt_eprint_write(&%s);" : "brt_eprint_finish(&%s);", sb);
        return "";
    }
    if (b == BI_ASSERT) {
        /* the message is evaluated only when the condition fails */
        const char *c = emit_expr(n->kids[0]);
        line("if (!(%s)) {", c);
        F->ind++;
        scope_open();
        const char *m = emit_expr(n->kids[1]);
        line("brt_panic_msg(%s, \"%%s\", %s->data);", loc_ref(n->loc), m);
        scope_close();
        F->ind--;
        line("}");
        return "";
    }
    /* the arguments first, then the receiver's place (as push does) */
    const char *arg[3] = {0};
    for (int i = 1; i < n->nkids && i < 3; i++) arg[i] = emit_expr(n->kids[i]);
    struct ir_node *recv = n->kids[0];
    struct type *et = recv->type->elem;
    const char *L = loc_ref(n->loc);
    const char *slot = emit_place(recv);
    switch (b) {
    case M_POP: case M_REMOVE: {
        const char *r = new_temp();
        line("%s %s;", ctype(et), r);
        if (b == M_POP && et->kind == T_TUPLE) /* read field by field (brine_rt.h) */
            line("BRT_POP_EACH(%s, %s, %s, %s, %s);", ctype(et), slot, r, L,
                 copy_fields(et, arena_printf("%s.", r), "pop_e_->", ""));
        else if (b == M_POP) line("BRT_POP(%s, %s, %s, %s);", ctype(et), slot, r, L);
        else line("brt_arr_remove(%s, %s, &%s, %s);", slot, arg[1], r, L);
        own(r, et);
        return r;
    }
    case M_INSERT: {
        const char *v = lval(take(arg[2], et), et);
        line("brt_arr_insert(%s, %s, &%s, %s);", slot, arg[1], v, L);
        return "";
    }
    case M_EXTEND: line("brt_arr_extend(%s, %s);", slot, arg[1]); return "";
    case M_GROW_UNSET: line("brt_arr_grow_unset(%s, %s);", slot, arg[1]); return "";
    case M_REVERSE: line("brt_arr_reverse(%s);", slot); return "";
    case M_SORT: line("brt_arr_sort(%s);", slot); return "";
    default: break;
    }
    internal_error("emit: builtin %s", builtin_name[b]);
}

/* A chain of min (or max) of ints, min(min(a, b), c): its operands are
 * evaluated in order, each into a temporary (a panic in one is where it
 * was), and then met with the operands that read no element last. An
 * int's min is the same value in any grouping. An operand that loads
 * nothing is made of locals, most often the value the loop carries from
 * its last iteration (a dynamic program's cur[j - 1] + 1, the cell kept in
 * a local); met last, it waits on one compare, not two, while the loaded
 * operands, which do not depend on the last iteration, meet early. */
static bool loads(struct ir_node *n)
{
    if (!n) return false;
    if (n->op == IR_INDEX || n->op == IR_FIELD || n->op == IR_CALL) return true;
    if (loads(n->a) || loads(n->b) || loads(n->c)) return true;
    for (int i = 0; i < n->nkids; i++)
        if (loads(n->kids[i])) return true;
    return false;
}

static void chain_operands(struct ir_node *n, enum builtin b, struct ir_node **ops, int *nops)
{
    for (int i = 0; i < 2; i++) {
        struct ir_node *k = n->kids[i];
        if (k->op == IR_BUILTIN && k->builtin == b && k->type == n->type && *nops < 14) chain_operands(k, b, ops, nops);
        else ops[(*nops)++] = k;
    }
}

static const char *int_extreme_chain(struct ir_node *n)
{
    struct ir_node *ops[16];
    const char *val[16];
    int nops = 0;
    chain_operands(n, n->builtin, ops, &nops);
    for (int i = 0; i < nops; i++) val[i] = emit_expr(ops[i]);
    const char *rel = n->builtin == BI_MIN2 ? "<" : ">", *acc = NULL;
    for (int pass = 0; pass < 2; pass++) /* the loaded operands, then the others */
        for (int i = 0; i < nops; i++) {
            if (loads(ops[i]) == (pass == 1)) continue;
            acc = acc ? tmp(n->type, "%s %s %s ? %s : %s", val[i], rel, acc, val[i], acc) : val[i];
        }
    return acc;
}

const char *emit_builtin(struct ir_node *n)
{
    enum builtin b = n->builtin;
    const char **arg = arena_alloc((size_t)(n->nkids + 1) * sizeof *arg);
    struct type **at = arena_alloc((size_t)(n->nkids + 1) * sizeof *at);
    if (b == BI_PRINT) {
        const char **xs = arena_alloc((size_t)(n->nkids + 1) * sizeof *xs);
        for (int i = 0; i < n->nkids; i++) xs[i] = emit_expr(n->kids[i]);
        int nv = n->field ? n->field - 1 : n->nkids; /* then sep and end, when given */
        line("brt_print_at(%s);", loc_ref(n->loc));
        for (int i = 0; i < nv; i++) {
            if (i && n->field) line("brt_print_str(%s);", xs[nv]);
            else if (i) line("brt_print_sep();");
            print_value(xs[i], n->kids[i]->type);
        }
        if (n->field) {
            line("brt_print_str(%s);", xs[nv + 1]);
            line("brt_print_done();");
        } else {
            line("brt_print_end();");
        }
        return "";
    }
    if (b == BI_EPRINT || b == BI_ASSERT || builtin_mutates(b)) return emit_io_builtin(n);
    if (b == M_JOIN) {
        const char *r = emit_join_stream(n);
        if (r) return r;
    }
    if ((b == BI_MIN2 || b == BI_MAX2) && (n->type == ty_int || n->type == ty_u64)) return int_extreme_chain(n);
    for (int i = 0; i < n->nkids; i++) {
        arg[i] = emit_expr(n->kids[i]);
        at[i] = n->kids[i]->type;
    }
    struct type *t = n->type;
    const char *m = math_fn(b);
    if (m) {
        if (n->nkids == 2) return tmp(t, "%s(%s, %s)", m, arg[0], arg[1]);
        return tmp(t, "%s(%s)", m, arg[0]);
    }
    struct type *t0 = n->nkids ? at[0] : NULL;
    switch (b) {
    case BI_LEN: {
        const struct view *vw = view_of(n->kids[0]);
        return tmp(ty_int, "%s", vw ? vw->len : arena_printf("%s->len", arg[0]));
    }
    case BI_STR:
        if (text_kind(t0) && t0 != ty_str) return tmp_owned(ty_str, "brt_str_of_%s(%s)", text_kind(t0), arg[0]);
        return tmp_owned(ty_str, "brt_to_str(%s, &%s)", tdesc(t0), lval(arg[0], t0));
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
        if (t0->kind == T_TUPLE) /* a result that borrows from the operands, as str's */
            return tmp(t, "%s_lt(%s, %s) ? %s : %s", ctype(t0), b == BI_MIN2 ? arg[1] : arg[0], b == BI_MIN2 ? arg[0] : arg[1],
                       arg[1], arg[0]);
        return tmp(t, "%s %s %s ? %s : %s", arg[1], rel, arg[0], arg[1], arg[0]);
    }
    case BI_OS_ARGS: return tmp_owned(t, "brt_os_args()");
    case BI_OS_THREAD_COUNT: return tmp(t, "brt_os_thread_count()");
    case BI_OS_CLOCK: return tmp(t, "brt_os_clock()");
    case BI_OS_EXIT: line("brt_os_exit(%s);", arg[0]); return "";
    case BI_OS_GETENV: return tmp_owned(t, "brt_os_getenv(%s)", arg[0]);
    case BI_RANGE_STEP:
        if (t->elem == ty_int)
            return tmp_owned(t, "brt_range_step(%s, %s, %s, %s)", arg[0], arg[1], arg[2], loc_ref(n->loc));
        if (t->elem == ty_u64) /* widened to i128 (runtime/value.c) */
            return tmp_owned(t, "brt_range_step_wide(%s, brt_i128_from_u64(%s), brt_i128_from_u64(%s), "
                                "brt_i128_from_u64(%s), %s)", tdesc(t->elem), arg[0], arg[1], arg[2], loc_ref(n->loc));
        return tmp_owned(t, "brt_range_step_wide(%s, %s, %s, %s, %s)", tdesc(t->elem), arg[0], arg[1], arg[2],
                         loc_ref(n->loc));
    case BI_ENUMERATE: return tmp_owned(t, "brt_enumerate(%s, %s)", tdesc(t->elem), arg[0]);
    case BI_ZIP: return tmp_owned(t, "brt_zip(%s, %s, %s)", tdesc(t->elem), arg[0], arg[1]);
    case BI_PANIC: line("brt_panic_msg(%s, \"%%s\", %s->data);", F->site ? "site" : loc_ref(n->loc), arg[0]); return "";
    case BI_WORLD_RANK: CG->uses_world = true; return tmp(t, "brt_world_rank()");
    case BI_WORLD_SIZE: CG->uses_world = true; return tmp(t, "brt_world_size()");
    case BI_WORLD_BARRIER: CG->uses_world = true; line("brt_world_barrier(%s);", loc_ref(n->loc)); return "";
    case BI_WORLD_SUM: case BI_WORLD_PRODUCT: case BI_WORLD_MIN: case BI_WORLD_MAX: case BI_WORLD_ANY:
    case BI_WORLD_ALL: {
        static const char *const op[] = {"BRT_W_SUM", "BRT_W_PRODUCT", "BRT_W_MIN", "BRT_W_MAX", "BRT_W_ANY", "BRT_W_ALL"};
        CG->uses_world = true;
        const char *v = tmp(t, "%s", arg[0]);
        line("brt_world_fold(%s, %s, &%s, %s);", op[b - BI_WORLD_SUM], tdesc(t), v, loc_ref(n->loc));
        return v;
    }
    case BI_WORLD_BROADCAST: {
        CG->uses_world = true;
        const char *in = lval(arg[0], t0), *o = tmp(t, "%s", zero_of(t));
        line("brt_world_broadcast(%s, &%s, &%s, %s, %s);", tdesc(t), in, o, arg[1], loc_ref(n->loc));
        if (type_is_ref(t)) own(o, t);
        return o;
    }
    case BI_WORLD_GATHER:
        CG->uses_world = true;
        return tmp_owned(t, "brt_world_gather(%s, &%s, %s)", tdesc(t0), lval(arg[0], t0), loc_ref(n->loc));
    case M_WRAPPING_ADD: case M_WRAPPING_SUB: case M_WRAPPING_MUL: {
        const char *nm = b == M_WRAPPING_ADD ? "add" : b == M_WRAPPING_SUB ? "sub" : "mul";
        if (t0 == ty_u64) return tmp(t, "%s %s %s", arg[0], b == M_WRAPPING_ADD ? "+" : b == M_WRAPPING_SUB ? "-" : "*", arg[1]);
        return tmp(t, "brt_wrapping_%s_%s(%s, %s)", nm, num_suffix(t0), arg[0], arg[1]);
    }
    case M_WRAPPING_NEG:
        if (t0 == ty_u64) return tmp(t, "0 - %s", arg[0]);
        return tmp(t, "brt_wrapping_neg_%s(%s)", num_suffix(t0), arg[0]);
    case M_ROTATE_LEFT: case M_ROTATE_RIGHT: {
        const char *dir = b == M_ROTATE_LEFT ? "rotl" : "rotr";
        const char *s = rot_amount(arg[1], at[1]);
        if (t0 == ty_i128) return tmp(t, "brt_%s_i128(%s, %s)", dir, arg[0], s);
        if (t0 == ty_u64) return tmp(t, "brt_%s_u64(%s, %s)", dir, arg[0], s);
        return tmp(t, "(int64_t)brt_%s_u64((uint64_t)%s, %s)", dir, arg[0], s);
    }
    case BI_READ_STDIN: return tmp_owned(t, "brt_read_stdin(%s)", loc_ref(n->loc));
    case BI_SORTED: return tmp_owned(t, "brt_arr_sorted(%s)", arg[0]);
    case BI_REVERSED: return tmp_owned(t, "brt_arr_reversed(%s)", arg[0]);
    case BI_OS_READ_FILE: return tmp_owned(t, "brt_os_read_file(%s, %s)", arg[0], loc_ref(n->loc));
    case BI_OS_WRITE_FILE: line("brt_os_write_file(%s, %s, %s);", arg[0], arg[1], loc_ref(n->loc)); return "";
    case BI_OS_APPEND_FILE: line("brt_os_append_file(%s, %s, %s);", arg[0], arg[1], loc_ref(n->loc)); return "";
    case BI_SLICE: {
        const char *hi = n->nkids == 3 ? arg[2] : arena_printf("%s->len", arg[0]);
        return tmp_owned(t, "brt_%s_slice(%s, %s, %s, %s)", t0 == ty_str ? "str" : "arr", arg[0], arg[1], hi,
                         loc_ref(n->loc));
    }
    case BI_UNSET: return tmp_owned(t, "brt_arr_unset(%s, %s, %s)", tdesc(t->elem), arg[0], loc_ref(n->loc));
    case BI_IN_PLACE: /* opt_version.c, map_steps: sole, not empty, not split (least > 0) */
        if (n->kids[1]->ival)
            return tmp(ty_bool, "brt_arr_sole(%s) && %s->len > 0 && !brt_par_for_splits(0, %s->len, %s)", arg[0], arg[0],
                       arg[0], arg[1]);
        return tmp(ty_bool, "brt_arr_sole(%s) && %s->len > 0", arg[0], arg[0]);
    case BI_RUNS_LONG: internal_error("emit: a loop's count tested outside its if (opt_prefetch.c)"); return "";
    case BI_SOLE: return tmp(ty_bool, "brt_arr_sole(%s)", arg[0]); /* opt_lazycopy.c */
    case M_SPLIT:
        if (n->nkids == 1) return tmp_owned(t, "brt_str_split_ws(%s)", arg[0]);
        return tmp_owned(t, "brt_str_split(%s, %s, %s)", arg[0], arg[1], loc_ref(n->loc));
    case M_STRIP: return tmp_owned(t, "brt_str_strip(%s)", arg[0]);
    case M_LINES: return tmp_owned(t, "brt_str_lines(%s)", arg[0]);
    case M_STARTSWITH: return tmp(t, "brt_str_startswith(%s, %s)", arg[0], arg[1]);
    case M_ENDSWITH: return tmp(t, "brt_str_endswith(%s, %s)", arg[0], arg[1]);
    case M_REPLACE: return tmp_owned(t, "brt_str_replace(%s, %s, %s)", arg[0], arg[1], arg[2]);
    case M_UPPER: return tmp_owned(t, "brt_str_upper(%s)", arg[0]);
    case M_LOWER: return tmp_owned(t, "brt_str_lower(%s)", arg[0]);
    case M_JOIN: return tmp_owned(t, "brt_str_join(%s, %s)", arg[0], arg[1]);
    case M_CONTAINS: return tmp(t, "brt_arr_contains(%s, &%s)", arg[0], lval(arg[1], at[1]));
    case BI_SOME: return tmp_owned(t, "(%s){true, %s}", ctype(t), take(arg[0], t0));
    case BI_NONE_LIT: return tmp(t, "%s", zero_of(t));
    case M_IS_SOME: return tmp(t, "%s.f0", arg[0]);
    case M_IS_NONE: return tmp(t, "!%s.f0", arg[0]);
    case M_UNWRAP: /* borrowed, as a field is: alive while the Option is */
        line("if (BRT_UNLIKELY(!%s.f0)) brt_panic(%s, BRT_UNWRAP_NONE);", arg[0], loc_ref(n->loc));
        return tmp(t, "%s.f1", arg[0]);
    case M_UNWRAP_OR: return tmp(t, "%s.f0 ? %s.f1 : %s", arg[0], arg[0], arg[1]); /* borrowed from either */
    case BI_INPUT: return opt_result(t, "brt_input(&%%s.f1, %s)", loc_ref(n->loc));
    case M_FIND: return opt_result(t, "brt_str_find(%s, %s, &%%s.f1)", arg[0], arg[1]);
    case M_TO_INT: return opt_result(t, "brt_str_to_int(%s, &%%s.f1)", arg[0]);
    case M_TO_FLOAT: return opt_result(t, "brt_str_to_float(%s, &%%s.f1)", arg[0]);
    case M_INDEX: return opt_result(t, "brt_arr_index(%s, &%s, &%%s.f1)", arg[0], lval(arg[1], at[1]));
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

