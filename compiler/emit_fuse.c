/*
 * emit_fuse.c: a fused region (opt_fuse.c, ir_node.fused) in C. Its
 * statements but the last run under a trap (runtime brt_region) whose
 * chain starts at the function's free slot; a panic among them longjmps
 * back, the comprehension that opt_fuse.c did not build runs as written
 * (the check: the last statement's `then` block, its result dropped), which
 * reports its own first panic if it has one, and else the trapped panic is
 * reported as it was raised. After the trapped statements the last one
 * runs as any statement (the check again when the loop did not read every
 * element).
 *
 * The check reads only variables the region does not assign (opt_fuse.c's
 * conditions), so their values after the longjmp are the ones they had at
 * setjmp, as C guarantees for objects not modified in between.
 */
#include "emit_c.h"

void emit_fused(struct ir_node *s)
{
    struct ir_node *tail = s->nkids ? s->kids[s->nkids - 1] : NULL;
    if (!tail || tail->op != IR_IF || !tail->b) internal_error("a fused region without its check");
    const char *r = new_temp();
    line("{");
    F->ind++;
    line("brt_region %s;", r);
    line("brt_region_enter(&%s, %s);", r, frame_slot());
    line("if (setjmp(%s.trap.jb)) {", r);
    F->ind++;
    line("brt_region_caught(&%s);", r);
    emit_stmt(tail->b);
    line("brt_region_rethrow(&%s);", r);
    F->ind--;
    line("}");
    for (int i = 0; i < s->nkids - 1; i++) emit_stmt(s->kids[i]);
    line("brt_region_leave(&%s);", r);
    emit_stmt(tail);
    F->ind--;
    line("}");
}
