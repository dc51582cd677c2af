/*
 * opt.c: the optimizer, between ir_verify and the emitters.
 *
 * A pass rewrites the IR or records facts on it (ir.h: in_range_by,
 * guards, uniq, known_unique, no_overflow, swap) that let the emitter leave out a
 * check. Every pass keeps the program's meaning exactly: a check is removed
 * only where it provably cannot fail, so every panic of the language stays
 * where and what it is, and the output is the same bytes. ir_verify runs
 * after each pass, in every build; `brine --dump=ir:PASS FILE.br` prints
 * the IR after PASS (`--dump=ir` is the IR as lowered).
 */
#include "ir.h"

#include <string.h>

struct pass {
    const char *name;
    void (*run)(struct ir_program *ir);
};

static const struct pass passes[] = {
    {"fnvals", opt_fnvals}, /* calls through known function values made direct */
    {"inline", opt_inline}, /* calls of small functions written in place */
    {"loops", opt_loops},   /* copy-on-write hoisting, bounds guards, overflow ranges */
    {"borrow", opt_borrow}, /* lets that borrow an element */
    {"interchange", opt_interchange}, /* nests in another order: column walks swapped, stores jammed */
};

const char *const opt_pass_names[] = {"fnvals", "inline", "loops", "borrow", "interchange", NULL};

bool optimize(struct ir_program *ir, const char *stop_after)
{
    for (size_t i = 0; i < sizeof passes / sizeof *passes; i++) {
        passes[i].run(ir);
        ir_verify(ir);
        if (stop_after && strcmp(stop_after, passes[i].name) == 0) return true;
    }
    return !stop_after;
}
