/*
 * emit_fnval.c: function values in C (emit_c.h).
 *
 * A function value is a brt_fn {code, env} (runtime/brine_rt.h): code is a
 * trampoline bfv_<f>(env, args...) that calls the function, env the
 * lambda's captures in one counted block (NULL when it captures nothing,
 * and for a top-level function), so a value of any fn type is two words
 * and copies retain only env. For a lambda bf_<m>_lambda<k> with captures:
 *
 *   struct bce_<f> { brt_env h; <T0> c0; ... };       captures (types section)
 *   static void bcd_<f>(brt_env *e);                  releases what they hold
 *   static R bfv_<f>(brt_env *e, P1 a1, ...)          calls f(c0, ..., a1, ...)
 *
 * A call through a value casts code to the trampoline's type. Calls the
 * optimizer resolved (opt_fnvals.c) are plain IR_CALLs and never get here.
 */
#include "emit_c.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* "R (*)(brt_env *, P1, ...)": the C type of f's trampoline, for a value of
 * fn type t. */
static const char *code_type(struct type *t)
{
    struct buf b = {0};
    bprintf(&b, "%s (*)(brt_env *", t->elem == ty_void ? "void" : ctype(t->elem));
    for (int i = 0; i < t->nfields; i++) bprintf(&b, ", %s", ctype(t->fields[i]));
    bputs(&b, ", const brt_loc **)");
    const char *s = arena_strndup(b.p, b.len);
    free(b.p);
    return s;
}

/* Writes f's trampoline (and a lambda's capture struct and release) once;
 * returns the trampoline's name. */
static const char *trampoline(struct ir_fn *f)
{
    const char *name = arena_printf("bfv_%s", f->cname + 3); /* bf_x -> bfv_x */
    if (map_get_ptr(&CG->fnval_ids, f)) return name;
    map_put_ptr(&CG->fnval_ids, f, (void *)name);
    int nc = f->ncaps;
    const char **ct = arena_alloc(sizeof *ct * (size_t)(f->nparams + 1));
    for (int i = 0; i < f->nparams; i++) ct[i] = ctype(f->params[i]->type);
    const char *rt = f->ret == ty_void ? "void" : ctype(f->ret);
    if (nc) {
        bprintf(&CG->types, "struct bce_%s { brt_env h;", f->cname);
        for (int i = 0; i < nc; i++) bprintf(&CG->types, " %s c%d;", ct[i], i);
        bprintf(&CG->types, " };\n");
        bprintf(&CG->protos, "static void bcd_%s(brt_env *e_);\n", f->cname);
        bprintf(&CG->fnvals, "static void bcd_%s(brt_env *e_)\n{\n", f->cname);
        bprintf(&CG->fnvals, "    struct bce_%s *c_ = (struct bce_%s *)e_;\n", f->cname, f->cname);
        bool any = false;
        for (int i = 0; i < nc; i++)
            if (type_is_ref(f->params[i]->type)) {
                bprintf(&CG->fnvals, "    %s(c_->c%d);\n", release_fn(f->params[i]->type), i);
                any = true;
            }
        if (!any) bputs(&CG->fnvals, "    (void)c_;\n");
        bputs(&CG->fnvals, "}\n");
    }
    struct buf h = {0};
    bprintf(&h, "static %s %s(brt_env *e_", rt, name);
    for (int i = nc; i < f->nparams; i++) bprintf(&h, ", %s a%d", ct[i], i);
    bputs(&h, ", const brt_loc **fp_)");
    bprintf(&CG->protos, "%s;\n", h.p);
    bprintf(&CG->fnvals, "%s\n{\n", h.p);
    free(h.p);
    if (nc) bprintf(&CG->fnvals, "    struct bce_%s *c_ = (struct bce_%s *)e_;\n", f->cname, f->cname);
    else bputs(&CG->fnvals, "    (void)e_;\n");
    struct buf call = {0};
    bprintf(&call, "%s(", f->cname);
    for (int i = 0; i < f->nparams; i++)
        bprintf(&call, i < nc ? "%sc_->c%d" : "%sa%d", i ? ", " : "", i);
    /* a library function's panics report where it was made a value */
    if (f->has_site) bprintf(&call, "%s%s", f->nparams ? ", " : "", loc_ref(f->loc));
    bprintf(&call, "%sfp_)", f->nparams || f->has_site ? ", " : "");
    bprintf(&CG->fnvals, "    %s%s;\n}\n", f->ret == ty_void ? "" : "return ", call.p);
    free(call.p);
    return name;
}

const char *emit_fnval(struct ir_node *n)
{
    struct ir_fn *f = n->fn;
    const char *code = trampoline(f);
    if (!n->nkids) return tmp(n->type, "(brt_fn){(brt_code)%s, NULL}", code);
    const char **xs = arena_alloc(sizeof *xs * (size_t)n->nkids);
    for (int i = 0; i < n->nkids; i++) xs[i] = emit_expr(n->kids[i]);
    const char *e = new_temp();
    line("struct bce_%s *%s = (struct bce_%s *)brt_env_new(sizeof *%s, bcd_%s);", f->cname, e, f->cname, e,
         f->cname);
    for (int i = 0; i < n->nkids; i++) line("%s->c%d = %s;", e, i, take(xs[i], n->kids[i]->type));
    return tmp_owned(n->type, "(brt_fn){(brt_code)%s, &%s->h}", code, e);
}

const char *emit_callv(struct ir_node *n)
{
    const char *f = emit_expr(n->a);
    struct buf args = {0};
    bprintf(&args, "%s.env", f);
    for (int i = 0; i < n->nkids; i++) bprintf(&args, ", %s", emit_expr(n->kids[i]));
    bprintf(&args, ", %s", frame_next()); /* the call chain, as a direct call's (emit_c.c) */
    const char *call = arena_printf("((%s)%s.code)(%s)", code_type(n->a->type), f, args.p);
    free(args.p);
    line("%s[0] = %s;", frame_slot(), loc_ref(n->loc));
    const char *r = "";
    if (n->type == ty_void) line("%s;", call);
    else r = tmp(n->type, "%s", call);
    line("%s[0] = NULL;", frame_slot());
    return *r ? owned_tmp_(n->type, r) : r; /* as a direct call's (emit_c.c) */
}
