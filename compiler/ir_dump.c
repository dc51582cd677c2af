/*
 * ir_dump.c: the IR as text (--dump=ir, --dump=ir:PASS).
 *
 * The dump is deterministic (variables print as v<id>.name, globals as
 * g<id>.module.name, floats as %.17g) because golden tests pin it. A
 * proved fact prints beside its node (in-bounds, no-overflow, the guards a
 * loop's fast copy was proved under), so a pass's dump shows what it
 * rewrote and what it proved.
 */
#include "ir.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* ---- dump ---------------------------------------------------------------- */

static void dump_expr(FILE *out, struct ir_node *n);
static void dump_loop_facts(FILE *out, struct ir_node *s);
static void dump_guards(FILE *out, struct ir_guard *gs, int n);
static void dump_swap_guards(FILE *out, const char *what, struct ir_guard *gs, int n);

static void dump_i128(FILE *out, unsigned __int128 v, bool is_signed)
{
    char buf[48];
    int i = 47;
    buf[i] = 0;
    bool neg = is_signed && (__int128)v < 0;
    if (neg) v = (unsigned __int128)0 - v;
    do {
        buf[--i] = (char)('0' + (int)(v % 10));
        v /= 10;
    } while (v);
    if (neg) buf[--i] = '-';
    fputs(buf + i, out);
}

static void dump_str(FILE *out, const char *s, size_t len)
{
    fputc('"', out);
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\') fprintf(out, "\\%c", c);
        else if (c == '\n') fputs("\\n", out);
        else if (c < 32 || c >= 127) fprintf(out, "\\x%02x", c);
        else fputc(c, out);
    }
    fputc('"', out);
}

static void dump_var(FILE *out, struct ir_var *v)
{
    if (!v) { fputs("v?", out); return; }
    fprintf(out, "v%d", v->id);
    if (v->name && *v->name) fprintf(out, ".%s", v->name);
}

/* " NAME[v1 v2 ...]" when there are any. */
static void dump_var_list(FILE *out, const char *name, struct ir_var **vs, int n)
{
    if (!n) return;
    fprintf(out, " %s[", name);
    for (int i = 0; i < n; i++) {
        if (i) fputs(" ", out);
        dump_var(out, vs[i]);
    }
    fputs("]", out);
}

static void dump_iter(FILE *out, struct ir_iter *it)
{
    if (it->is_range) {
        dump_expr(out, it->lo);
        fputs(it->inclusive ? " ..= " : " .. ", out);
        dump_expr(out, it->hi);
    } else {
        dump_expr(out, it->array);
    }
}

static int cmp_int(int a, int b) { return (a > b) - (a < b); }

static void dump_expr(FILE *out, struct ir_node *n)
{
    if (!n) { fputs("<null>", out); return; }
    const char *tn = n->type ? type_name(n->type) : "?";
    if (!ir_is_expr(n)) {
        fprintf(out, "<statement %s in expression position>", ir_op_name[n->op]);
        return;
    }
    switch (n->eop) {
    case IR_INT:
        dump_i128(out, n->type == ty_u64 ? (uint64_t)n->ival : n->ival, n->type != ty_u64);
        fprintf(out, ":%s", tn);
        return;
    case IR_FLOAT: {
        char fb[40];
        snprintf(fb, sizeof fb, "%.17g", n->fval);
        fputs(fb, out);
        if (!strpbrk(fb, ".eni")) fputs(".0", out); /* 2.0, not 2: floats look like floats */
        return;
    }
    case IR_BOOL: fputs(n->bval ? "true" : "false", out); return;
    case IR_STR: dump_str(out, n->str, n->slen); return;
    case IR_VAR:
        if (n->moved) fputs("(moved ", out);
        dump_var(out, n->var);
        if (n->moved) fputs(")", out);
        return;
    case IR_GLOBAL: fprintf(out, "g%d.%s.%s", n->global->id, n->global->module, n->global->name); return;
    case IR_UNARY: case IR_NOT: case IR_BINARY: case IR_AND: case IR_OR: case IR_COND: case IR_CONV: case IR_CALL:
    case IR_BUILTIN: case IR_INDEX: case IR_ARRAY: case IR_FSTRING: case IR_LISTCOMP: case IR_REDUCE:
    case IR_TUPLE: case IR_FIELD: case IR_FNVAL: case IR_CALLV:
        break;
    case IR_GUARD_TEST: /* (guards i in lo..hi: xs+1 ys-1), (guards j < n step s: ...) */
        if (n->growth) { /* (growth c0 + d * trips + u: scan xs) */
            struct ir_growth *g = n->growth;
            fputs("(growth ", out);
            if (g->c0 == INT64_MIN) fputs("none", out);
            else fprintf(out, "%" PRId64, g->c0);
            fprintf(out, " + %" PRId64 " * ", g->d);
            if (g->trips) dump_expr(out, g->trips);
            else fputs("0", out);
            fprintf(out, " + %" PRId64, g->u);
            if (g->nscan) fputs(": scan", out);
            for (int i = 0; i < g->nscan; i++) fputs(" ", out), dump_var(out, g->scan[i]);
            fputs(")", out);
            return;
        }
        fputs("(guards ", out);
        dump_var(out, n->ind_var ? n->ind_var : n->var);
        if (n->nkids == 1) { /* over range(lo, hi, step)'s values */
            fputs(" in ", out);
            dump_expr(out, n->kids[0]);
            fputs(": ", out);
            dump_guards(out, n->guards, n->nguards);
            fputs(")", out);
            return;
        }
        fputs(n->ind_var ? n->ind_inclusive ? " <= " : " < " : " in ", out);
        dump_expr(out, n->kids[0]);
        fputs(n->ind_var ? " step " : n->iter.inclusive ? "..=" : "..", out);
        dump_expr(out, n->kids[1]);
        for (int i = 0; i < n->nclauses && !n->swapped && !n->jammed; i++) {
            fputs(" outside ", out);
            dump_var(out, n->clauses[i].var);
            fputs(" in ", out);
            dump_iter(out, &n->clauses[i].iter);
        }
        if (n->par) fputs(" unsplit", out);
        if (n->rows_only) fputs(" each-row", out); /* only the rows' lengths: a versioned nest's */
        if (n->narrowed) fputs(" narrowed", out);   /* before the loop around, over its narrowed range */
        if (n->narrow_flag) fputs(" narrowed-by ", out), dump_var(out, n->narrow_flag);
        if (n->swapped || n->jammed) { /* (guards i in ilo..ihi swapped j in lo..hi swap[x+0]: a+0) */
            fputs(n->jammed ? " jammed " : " swapped ", out);
            dump_var(out, n->clauses[0].var);
            fputs(" in ", out);
            dump_iter(out, &n->clauses[0].iter);
            dump_swap_guards(out, " swap", n->swap_guards, n->nswap_guards);
        }
        fputs(": ", out);
        dump_guards(out, n->guards, n->nguards);
        fputs(")", out);
        return;
    }
    fprintf(out, "(%s", ir_op_name[n->op]);
    switch (n->eop) {
    case IR_UNARY: case IR_BINARY: fprintf(out, " %s", op_spelling[n->bop]); break;
    case IR_CONV: fprintf(out, " %s->%s", n->optype ? type_name(n->optype) : "?", n->f2i_later ? " unchecked" : ""); break;
    case IR_CALL: case IR_FNVAL: fprintf(out, " %s", n->fn ? n->fn->cname : "?"); break;
    case IR_BUILTIN: fprintf(out, " %s", builtin_name[n->builtin]); break;
    case IR_REDUCE:
        fprintf(out, "%s%s %s", n->world ? " world" : n->par ? " par" : "", n->scan ? " scan" : "",
                n->user ? "user" : reducer_name[n->reducer]);
        break;
    case IR_LISTCOMP: if (n->par) fputs(" par", out); break;
    case IR_INDEX:
        if (n->in_range_by) fputs(" in-range", out);
        if (n->in_bounds) fputs(" in-bounds", out);
        if (n->slot) fputs(" slot", out);
        if (n->f2i_conv) fputs(" checks-conv", out);
        break;
    case IR_COND:
        if (n->versioned) fputs(" versioned", out);
        if (n->first_read) fputs(" first", out);
        break;
    case IR_AND: if (n->one_compare) fputs(" one-compare", out); break;
    case IR_INT: case IR_FLOAT: case IR_BOOL: case IR_STR: case IR_VAR: case IR_GLOBAL: case IR_NOT:
    case IR_OR: case IR_ARRAY: case IR_FSTRING: case IR_TUPLE: case IR_CALLV: case IR_GUARD_TEST:
        break;
    case IR_FIELD: fprintf(out, " .%d", n->field); break;
    }
    if (n->no_overflow) fputs(" no-overflow", out);
    if (n->no_overflow_in) fputs(" no-overflow-guarded", out);
    fprintf(out, ":%s", tn);
    if (n->op == IR_REDUCE || n->op == IR_LISTCOMP) {
        fputs(" ", out);
        dump_expr(out, n->elem);
        fputs(" for ", out);
        dump_var(out, n->gen_var);
        fputs(" in ", out);
        dump_iter(out, &n->iter);
        for (int i = 0; i < n->nclauses; i++) {
            fputs(" for ", out);
            dump_var(out, n->clauses[i].var);
            fputs(" in ", out);
            dump_iter(out, &n->clauses[i].iter);
        }
        if (n->filter) {
            fputs(" if ", out);
            dump_expr(out, n->filter);
        }
        if (n->key) {
            fputs(" by ", out);
            dump_expr(out, n->key);
            fputs(" in 0..", out);
            dump_expr(out, n->b);
        }
        if (n->user) {
            fputs(" start ", out);
            dump_expr(out, n->a);
            fputs(" combine ", out);
            dump_var(out, n->comb_l);
            fputs(" ", out);
            dump_var(out, n->comb_r);
            fputs(" -> ", out);
            dump_expr(out, n->c);
        }
        fputs(" captures[", out);
        for (int i = 0; i < n->ncaps; i++) {
            if (i) fputs(" ", out);
            dump_var(out, n->caps[i]);
        }
        fputs("]", out);
        if (n->nguards) dump_loop_facts(out, n); /* its loop's guards (opt_loops.c) */
        if (n->fast_gen) { /* its copy when they hold (opt_version.c): the element and filter */
            fputs(" fast ", out);
            dump_expr(out, n->fast_gen->elem);
            if (n->fast_gen->filter) {
                fputs(" if ", out);
                dump_expr(out, n->fast_gen->filter);
            }
        }
        fputs(")", out);
        return;
    }
    if (n->a) { fputs(" ", out); dump_expr(out, n->a); }
    if (n->b) { fputs(" ", out); dump_expr(out, n->b); }
    if (n->c) { fputs(" ", out); dump_expr(out, n->c); }
    for (int i = 0; i < n->nkids; i++) {
        fputs(" ", out);
        dump_expr(out, n->kids[i]);
        if (n->op == IR_FSTRING && n->specs && n->specs[i]) fprintf(out, ":%s", n->specs[i]);
    }
    fputs(")", out);
}

/* Loop guards (opt_loops.c), space-separated. */
static void dump_guards(FILE *out, struct ir_guard *gs, int n)
{
    for (int i = 0; i < n; i++) {
        if (i) fputs(" ", out);
        struct ir_guard *g = &gs[i];
        dump_var(out, g->arr);
        if (g->rows) {
            fputs("[", out);
            if (g->at_var) dump_var(out, g->at_var);
            fprintf(out, g->at_var ? "%+" PRId64 "]" : "%" PRId64 "]", g->row_off);
            for (int k = 0; k < g->npath; k++) {
                fputs("[", out);
                if (g->path_vars[k]) dump_var(out, g->path_vars[k]);
                fprintf(out, g->path_vars[k] ? "%+" PRId64 "]" : "%" PRId64 "]", g->path_offs[k]);
            }
        }
        if (g->cols) fprintf(out, "[%+" PRId64 "]", g->row_off); /* rows i + row_off, then the column */
        if (g->fixed) {
            fputs("@", out);
            if (g->idx_var) dump_var(out, g->idx_var);
        }
        if (g->base) {
            if (!g->fixed) fputs("+", out);
            dump_expr(out, g->base);
        }
        fprintf(out, g->fixed && !g->idx_var && !g->base ? "%" PRId64 : "%+" PRId64, g->off);
    }
}

/* A nest's swap guards (opt_interchange.c): what[g ...]. */
static void dump_swap_guards(FILE *out, const char *what, struct ir_guard *gs, int n)
{
    fputs(what, out);
    fputs("[", out);
    for (int i = 0; i < n; i++) {
        struct ir_guard *g = &gs[i];
        if (i) fputs(" ", out);
        dump_var(out, g->arr);
        if (g->same_len) {
            fprintf(out, "[len%+" PRId64 "]=len(", g->off);
            dump_expr(out, g->len_row);
            fputs(")", out);
            continue;
        }
        if (g->at) {
            fputs("[@", out);
            dump_expr(out, g->at);
            fputs("]", out);
            if (g->rows) fprintf(out, "%s%+" PRId64, g->at_outer ? "" : "in", g->off);
            continue;
        }
        if (g->rows) fprintf(out, "[%s%+" PRId64 "]", g->outer_rows ? "rows" : "", g->row_off);
        fprintf(out, "%+" PRId64, g->off);
    }
    fputs("]", out);
}

/* What the optimizer proved about a loop (opt_loops.c). */
static void dump_loop_facts(FILE *out, struct ir_node *s)
{
    if (s->ind_var) {
        fputs(" induction[", out);
        dump_var(out, s->ind_var);
        fputs(s->ind_inclusive ? " <= " : " < ", out);
        dump_expr(out, s->ind_bound);
        fputs(" step ", out);
        dump_expr(out, s->ind_step);
        fputs("]", out);
    }
    if (s->nguards) {
        fputs(" guards[", out);
        dump_guards(out, s->guards, s->nguards);
        fputs("]", out);
    }
    if (s->guards_outside) fputs(" guards-outside", out);
    if (s->from_map) fputs(s->written_par ? " from-map written-par" : " from-map", out);
    if (s->fast_in) fputs(" fast", out);
    if (s->slow) fputs(" slow", out);
    if (s->swap) dump_swap_guards(out, s->jam ? " jam" : " swap", s->swap_guards, s->nswap_guards);
    if (s->nslots) {
        fputs(" slots[", out);
        for (int i = 0; i < s->nslots; i++) {
            if (i) fputs(" ", out);
            dump_var(out, s->slots[i].arr);
            fprintf(out, "%s%s%+" PRId64, s->slots[i].rows ? "[rows]" : "", s->slots[i].inner ? "[in]" : "",
                    s->slots[i].off);
        }
        fputs("]", out);
    }
    if (s->prefetch && !s->nstreams) fputs(" prefetch", out); /* an array loop: its snapshot */
    dump_var_list(out, "prefetch", s->streams, s->nstreams);
    dump_var_list(out, "views", s->views, s->nviews);
    dump_var_list(out, "rowmins", s->rowmins, s->nrowmins);
    if (s->op == IR_FOR_RANGE && s->par) {
        fputs(" par captures[", out);
        for (int i = 0; i < s->ncaps; i++) {
            if (i) fputs(" ", out);
            dump_var(out, s->caps[i]);
        }
        fputs("]", out);
    }
    if (s->op == IR_FOR_RANGE && s->nfolds) {
        static const char *const kinds[] = {"sum", "min", "max", "or", "and"};
        fputs(" folds[", out);
        for (int i = 0; i < s->nfolds; i++) {
            if (i) fputs(" ", out);
            dump_var(out, s->folds[i].var);
            fprintf(out, ":%s", kinds[s->folds[i].kind]);
        }
        fputs("]", out);
    }
}

static void dump_stmt(FILE *out, struct ir_node *s, int ind)
{
    fprintf(out, "%*s", 2 * ind, "");
    if (!s) { fputs("<null>\n", out); return; }
    if (ir_is_expr(s)) {
        fputs("<expression in statement position> ", out);
        dump_expr(out, s);
        fputs("\n", out);
        return;
    }
    switch (s->sop) {
    case IR_BLOCK:
        fputs(s->fused ? "block fused" : s->cursor ? "block cursor " : "block", out);
        if (s->cursor) dump_var(out, s->var);
        fputs("\n", out);
        for (int i = 0; i < s->nkids; i++) dump_stmt(out, s->kids[i], ind + 1);
        return;
    case IR_LET: case IR_ASSIGN:
        fprintf(out, "%s%s%s%s%s ", ir_op_name[s->op], s->borrow ? " borrow" : "", s->take ? " take" : "",
                s->carried ? " carried" : "", s->in_place ? " in-place" : "");
        dump_var(out, s->var);
        fprintf(out, ": %s = ", s->var ? type_name(s->var->type) : "?");
        dump_expr(out, s->a);
        fputs("\n", out);
        return;
    case IR_STORE: case IR_PUSH: case IR_UNIQUE:
        fprintf(out, "%s ", ir_op_name[s->op]);
        dump_var(out, s->var);
        for (int i = 0; i < s->nkids; i++) {
            if (s->kids[i]->op == IR_FIELD && !s->kids[i]->a) {
                fprintf(out, ".%d", s->kids[i]->field);
                continue;
            }
            fputs("[", out);
            dump_expr(out, s->kids[i]);
            fputs("]", out);
        }
        if (s->every) fputs("[*]", out);
        if (s->op == IR_UNIQUE && s->unique_steps) fprintf(out, " from:%d", s->unique_steps);
        else if (s->unique_steps == 1) fputs(" unique", out);
        else if (s->unique_steps > 1) fprintf(out, " unique:%d", s->unique_steps);
        if (s->in_range_by) fputs(" in-range", out);
        if (s->in_bounds) fputs(" in-bounds", out);
        if (s->slot) fputs(" slot", out);
        if (s->f2i_conv) fputs(" checks-conv", out);
        if (s->cursor) fputs(" cursor", out);
        if (s->a) {
            fputs(" <- ", out);
            dump_expr(out, s->a);
        }
        fputs("\n", out);
        return;
    case IR_EXPR:
        fputs("expr ", out);
        dump_expr(out, s->a);
        fputs("\n", out);
        return;
    case IR_IF:
        fputs(s->versioned ? "if versioned " : s->rare_kept ? "if rare kept " : s->rare ? "if rare " : "if ", out);
        dump_expr(out, s->a);
        if (s->prefetch && !s->nstreams) fputs(" prefetch", out); /* an array loop: its snapshot */
    dump_var_list(out, "prefetch", s->streams, s->nstreams);
    dump_var_list(out, "views", s->views, s->nviews);
        dump_var_list(out, "rowmins", s->rowmins, s->nrowmins);
        fputs("\n", out);
        dump_stmt(out, s->b, ind + 1);
        if (s->c) {
            fprintf(out, "%*selse\n", 2 * ind, "");
            dump_stmt(out, s->c, ind + 1);
        }
        return;
    case IR_WHILE:
        fputs("while ", out);
        dump_expr(out, s->a);
        dump_loop_facts(out, s);
        fputs("\n", out);
        dump_stmt(out, s->b, ind + 1);
        return;
    case IR_FOR_RANGE: case IR_FOR_ARRAY:
        fprintf(out, "%s ", ir_op_name[s->op]);
        dump_var(out, s->var);
        fprintf(out, ": %s in ", s->var ? type_name(s->var->type) : "?");
        dump_iter(out, &s->iter);
        dump_loop_facts(out, s);
        if (s->chunk) { /* each chunk: its statement (its body is the loop's as written in it) */
            fputs(" chunk[", out);
            dump_var(out, s->chunk_lo);
            fputs(" .. ", out);
            dump_var(out, s->chunk_hi);
            fputs("]", out);
        }
        fputs("\n", out);
        dump_stmt(out, s->chunk ? s->chunk : s->b, ind + 1);
        if (s->unfused) { /* the loops it fuses, as written (opt_fuseloops.c) */
            fprintf(out, "%*sunfused\n", 2 * ind, "");
            dump_stmt(out, s->unfused, ind + 1);
        }
        return;
    case IR_RETURN:
        fputs("return", out);
        if (s->a) { fputs(" ", out); dump_expr(out, s->a); }
        fputs("\n", out);
        return;
    case IR_BREAK: case IR_CONTINUE: case IR_UNREACHABLE:
        fprintf(out, "%s\n", ir_op_name[s->op]);
        return;
    }
}

void ir_dump(FILE *out, struct ir_program *ir)
{
    for (int i = 0; i < ir->globals.len; i++) {
        struct ir_global *g = ir->globals.items[i];
        fprintf(out, "global g%d.%s.%s: %s = ", g->id, g->module, g->name, type_name(g->type));
        dump_expr(out, g->init);
        fputs("\n", out);
    }
    for (int i = 0; i < ir->fns.len; i++) {
        struct ir_fn *f = ir->fns.items[i];
        fprintf(out, "fn %s(", f->cname);
        for (int p = 0; p < f->nparams; p++) {
            if (p) fputs(", ", out);
            dump_var(out, f->params[p]);
            fprintf(out, ": %s%s", type_name(f->params[p]->type), f->owns && f->owns[p] ? " owned" : "");
        }
        fprintf(out, ") -> %s%s\n", type_name(f->ret), f->has_site ? " [site]" : "");
        dump_stmt(out, f->body, 1);
    }
    (void)cmp_int;
}
