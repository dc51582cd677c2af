/*
 * opt.c: the optimizer, between ir_verify and the emitters.
 *
 * A pass rewrites the IR (unique statements before loops, opt_unique.c;
 * calls written as statements, opt_inline.c; guarded loops in two versions,
 * opt_version.c) or records facts on it (ir.h:
 * in_range_by, guards, unique_steps, no_overflow and in_bounds
 * (opt_range.c), swap) that let the emitter leave out a check. Every pass keeps the program's meaning exactly: a check is removed
 * only where it provably cannot fail, so every panic of the language stays
 * where and what it is, and the output is the same bytes. ir_verify runs
 * after each pass, in every build; `brine --dump=ir:PASS FILE.br` prints
 * the IR after PASS (`--dump=ir` is the IR as lowered).
 *
 * `--opt=PASSES` (opt_option) turns passes off: the unoptimized program is
 * a second oracle for the tests, and each pass alone off finds the pass a
 * difference comes from. Every pass may change which variables an element
 * reads (an inlined call that ignores a parameter reads one less), so the
 * capture lists are recomputed after each pass, not kept by each pass.
 */
#include "ir.h"

#include <string.h>

/* The passes, in the order they run: the name (--opt=-NAME, --dump=ir:NAME
 * prints the IR after it), the function, and what it does. */
#define OPT_PASSES(X)                                                                      \
    X(consts, opt_consts, "module constants with a literal value read as that literal")   \
    X(iters, opt_iters, "loops and generators over enumerate and zip of arrays, generators over range(lo, hi, step), run over an index range") \
    X(fnvals, opt_fnvals, "calls through known function values made direct")              \
    X(unroll, opt_unroll, "comprehensions over a few literal indices written as array literals") \
    X(inline, opt_inline, "calls of small functions written in place")                    \
    X(scalars, opt_scalars, "small arrays and tuples that never escape made scalars")   \
    X(counted, opt_counted, "while loops counting by one made range loops")              \
    X(shortfor, opt_shortfor, "short range loops of literal bounds written out, one copy of the body per value") \
    X(accum, opt_accum, "float sums over k inside loops over j run k outside, into a row of sums") \
    X(comploop, opt_comploop, "comprehensions whose element tests a condition written as loops") \
    X(fill, opt_fill, "loops pushing one value per iteration into an empty array fill it by index; sequential scans are such loops") \
    X(cover, opt_cover, "fresh arrays whose every element the next statements store made without their fill") \
    X(fuse, opt_fuse, "comprehensions a loop reads element by element computed where it reads them") \
    X(unswitch, opt_unswitch, "conditions a loop cannot change tested once, before it") \
    X(split, opt_split, "loops split at their first and last iteration where that settles a condition") \
    X(fission, opt_fission, "sums an outer loop cannot change split off their loop and run before it, once") \
    X(expand, opt_expand, "folds over the row a[j] that a loop around j computes again run once per row, before it") \
    X(extremes, opt_extremes, "loops that only keep a running least or greatest value made min/max folds from it") \
    X(unique, opt_unique, "copy-on-write tests made once, before the loops that cannot share") \
    X(lazycopy, opt_lazycopy, "copies made on write before a loop that writes the array in order made by the loop, element by element") \
    X(relations, opt_relations, "index checks that facts between variables prove (j - i + w in a band); nests whose arrays grow boundedly written twice, their adds unchecked behind one test") \
    X(loops, opt_loops, "bounds guards, views")                                           \
    X(range, opt_range, "integer ranges: overflow, shift and conversion checks they prove")   \
    X(borrow, opt_borrow, "lets that borrow an element")                                  \
    X(interchange, opt_interchange, "nests in another order: column walks swapped, stores jammed") \
    X(move, opt_move, "last uses hand their reference over; elements changed through a local taken out meanwhile") \
    X(parfor, opt_parfor, "range loops whose iterations are independent run on the pool") \
    X(fuseloops, opt_fuseloops, "adjacent loops over the same range whose order no iteration sees run as one") \
    X(scratch, opt_scratch, "elements of a scratch array read back only in the iteration that stored them kept in a local, their stores dropped") \
    X(carry, opt_carry, "elements a loop stores and reads back in its next iteration kept in a local") \
    X(hoist, opt_hoist, "values a loop cannot change that neither panic nor do anything made once, before it") \
    X(version, opt_version, "guarded loops written twice: without the checks their guards prove, else as written") \
    X(cursor, opt_cursor, "statements that only push into an array made unique keep its length and room in locals") \
    X(prefetch, opt_prefetch, "loops storing at a computed index read their arrays' elements ahead") \
    X(records, opt_records, "ifs in loops updating a running least or greatest value written as seldom taken") \
    X(bins, opt_bins, "float-to-int conversions whose index check follows checked by that check")

/* Which pass must run before which, and why; checked once, before the first
 * run (as Go's ssa passOrder): a reordered table fails at once, in every
 * build, instead of producing slower or wrong code somewhere. */
static const struct {
    const char *before, *after, *why;
} pass_order[] = {
    {"consts", "inline", "a literal written in place is what an inlined body folds"},
    {"iters", "inline", "a helper's loop over enumerate or zip runs over its range before it is written in place"},
    {"iters", "scalars", "the (index, element) tuple a rewritten loop binds is one to make two values"},
    {"iters", "loops", "the element reads a rewritten loop makes are ones to guard"},
    {"fnvals", "inline", "a call made direct is one the inliner can write in place"},
    {"unroll", "inline", "a function returning a small comprehension is small once it is a literal"},
    {"inline", "scalars", "a literal a call returns is seen where the call was written in place"},
    {"scalars", "loops", "the elements made scalars are no array reads to guard"},
    {"scalars", "range", "the elements made scalars are lets whose ranges it follows"},
    {"inline", "counted", "a loop written in place is one to count"},
    {"inline", "shortfor", "a call written in place is no call: its loop may be a short one, or hold one"},
    {"counted", "shortfor", "a while loop counted by one over literal bounds is a short loop to write out"},
    {"shortfor", "unswitch", "the loop around a short loop written out is innermost: one to unswitch and split"},
    {"shortfor", "loops", "a short loop's copies read elements the loop around it guards"},
    {"counted", "accum", "a while nest counted by one is a range nest to interchange"},
    {"counted", "extremes", "a while loop counted by one is a range loop whose running extreme is a fold"},
    {"extremes", "loops", "the fold's generator is one to guard, its element one to check once"},
    {"expand", "extremes", "a running extreme over a row is a loop expand runs once per row, then a fold"},
    {"fission", "extremes", "a running extreme an outer loop cannot change is a loop fission moves out, then a fold"},
    {"accum", "unique", "the row of sums is an array the later passes make unique, guard and jam"},
    {"accum", "comploop", "a comprehension of sums is accum's to interchange"},
    {"counted", "unswitch", "a while loop counted by one is a range loop to unswitch and split"},
    {"comploop", "unswitch", "a comprehension written as a loop is one to unswitch and split"},
    {"counted", "fill", "a while loop counted by one is a range loop whose pushes fill by index"},
    {"comploop", "fuse", "a comprehension comploop writes as a loop is built, not fused"},
    {"fuse", "loops", "the fused loop's reads of the source are ones to guard"},
    {"fill", "unique", "a loop's stores into the array it fills are ones to make unique before it"},
    {"counted", "cover", "a while loop counted by one is a range loop whose stores make a box"},
    {"cover", "unswitch", "a loop unswitch or split copies is no longer one loop whose stores make a box"},
    {"unswitch", "split", "the conditions the loop cannot change leave first, so the middle folds to no test"},
    {"split", "loops", "the middle loop, without its tests, is the one to guard"},
    {"split", "unique", "the loops split are ones to hoist copy-on-write tests out of"},
    {"split", "range", "the pieces' bounds are ranges the range facts follow"},
    {"inline", "fission", "a helper's sums written in place are the inner loop whose invariant sums move out"},
    {"counted", "fission", "a while loop counted by one is a range loop whose sums may move out"},
    {"fission", "unique", "the lets and loops moved out are statements to hoist copy-on-write tests past"},
    {"fission", "loops", "the loop moved out and the one left are loops to guard"},
    {"fission", "expand", "a fold over a[i] alone leaves the j loop whole; what stays in it over a[j] is expand's"},
    {"inline", "expand", "a helper's fold over its row written in place is the inner loop whose folds expand"},
    {"counted", "expand", "a while loop counted by one is a range loop whose folds may expand"},
    {"expand", "unique", "the rows of results are arrays the nest reads, after stores to make unique"},
    {"expand", "loops", "the loops computing the rows of results and the nest reading them are loops to guard"},
    {"expand", "interchange", "the inner loop without the fold is the smaller one to jam"},
    {"counted", "unique", "a range loop is what the later passes hoist out of, guard and swap"},
    {"unique", "loops", "views need the stores unique_steps marks (stores_unique)"},
    {"unique", "lazycopy", "the copy it makes as the loop goes is the one a unique statement before the loop makes"},
    {"lazycopy", "relations", "the loop copying as it goes is a loop whose indices relations proves"},
    {"lazycopy", "loops", "the loop copying as it goes and the one as written are loops to guard"},
    {"unique", "borrow", "a borrow must see the unique statements that may copy a row"},
    {"split", "relations", "the pieces' bounds are facts it follows"},
    {"inline", "relations", "a call written in place is code whose facts the caller's prove"},
    {"relations", "loops", "an index it proves needs no guard; one it bounds (idx_upper) is guarded once"},
    {"loops", "interchange", "a swap needs the inner loop's guards (in_range_by)"},
    {"range", "interchange", "a swap needs int arithmetic proved not to overflow (no_overflow)"},
    {"inline", "range", "a call written in place is code whose ranges the caller's facts prove"},
    {"borrow", "interchange", "a jam allows a row let before the inner loop only when it borrows"},
    {"unique", "parfor", "an outer array a loop on the pool stores into must already be unique (unique_steps)"},
    {"borrow", "parfor", "a borrowed let is an alias of an element the loop must not store into"},
    {"interchange", "parfor", "a nest's inner loop (swap) is written by its nest, never on the pool"},
    {"borrow", "move", "a borrowed let owns nothing to move or take"},
    {"inline", "move", "a call written in place is no call whose arguments a callee owns"},
    {"interchange", "move", "a jam keeps a row let before its inner loop only when it borrows, never a take"},
    {"move", "parfor", "a row taken out of slot i is iteration i's own: the loop may run on the pool"},
    {"parfor", "fuseloops", "a loop on the pool is left alone; the fused loop, sequential, is never put on it"},
    {"interchange", "fuseloops", "a swapped or jammed nest is left alone; a loop fused is no inner loop to swap"},
    {"move", "fuseloops", "a take or a moved read in a body is left alone; the fused body's last uses are the loops'"},
    {"range", "fuseloops", "a loop whose checks in_bounds and no_overflow prove needs no guard to fuse"},
    {"fuseloops", "scratch", "the fused body is where a read of a scratch element follows its store"},
    {"range", "scratch", "a store it drops is one whose index in_bounds proves inside the array"},
    {"relations", "scratch", "a store it drops is one whose index in_bounds proves inside the array"},
    {"interchange", "scratch", "a swapped or jammed nest runs its statements in its own order: left alone"},
    {"scratch", "carry", "a dropped store is no element to carry"},
    {"scratch", "version", "a dropped store is no element to guard"},
    {"fuseloops", "carry", "a fused loop is left alone; a loop carrying a local is one body, no longer two to fuse"},
    {"parfor", "carry", "a loop on the pool is left alone; a carried local would make its iterations depend"},
    {"interchange", "carry", "a swapped or jammed nest's inner loop is left as the nest needs it"},
    {"loops", "carry", "a carried read keeps its guard: the first iteration still reads the element"},
    {"range", "hoist", "an element proved in bounds (in_bounds) is a quiet value it may move"},
    {"relations", "hoist", "an element proved in bounds (in_bounds) is a quiet value it may move"},
    {"parfor", "hoist", "a loop on the pool is left alone: no value leaves a body other threads run"},
    {"interchange", "hoist", "a swapped, jammed or hoisting nest is sealed: no let goes between its loops"},
    {"fuseloops", "hoist", "a fused loop is sealed: its loops as written may share its statements"},
    {"carry", "hoist", "a carried read is an element of an array the loop stores into: it stays"},
    {"hoist", "version", "its copies share nodes and leave out checks of one copy: a value leaves the loop as written, once"},
    {"carry", "version", "the loop carrying a local is what the guards' two copies run"},
    {"fuseloops", "version", "the fused loop's guards are what it tests, the loops as written its else-branch"},
    {"loops", "version", "the guards and the nodes they prove are what it writes twice"},
    {"range", "version", "the overflows a guard rules out (no_overflow_in) are marks the fast copy keeps"},
    {"interchange", "version", "a swapped or jammed nest's inner loop keeps its guards for the nest"},
    {"parfor", "version", "a loop on the pool is versioned in its chunk; its work is the loop's once"},
    {"unique", "cursor", "a cursor keeps an array the unique statements made unique before the statement"},
    {"version", "cursor", "the statements a cursor wraps are those the emitter writes, each copy's"},
    {"version", "prefetch", "the loops it marks are those the emitter writes, each copy's"},
    {"cursor", "prefetch", "it marks loops and writes them twice: nothing after it may rewrite them"},
    {"version", "records", "the ifs it marks are those the emitter writes, each copy's"},
    {"cursor", "records", "it only marks ifs: nothing after it may rewrite them"},
    {"version", "bins", "it sees only the checks the emitter writes: before, a fast copy would lose the check a conversion leaves to one"},
    {"cursor", "bins", "the statements it finds are those the emitter writes; it only adds a let before one, where each copy allows"},
    {"prefetch", "bins", "it marks loops as written; the let bins adds before a statement is none it needs to see"},
    {"records", "bins", "it marks ifs as written; the let bins adds before a statement is none it needs to see"},
};

struct pass {
    const char *name;
    void (*run)(struct ir_program *ir);
};

static const struct pass passes[] = {
#define X(name, fn, what) {#name, fn},
    OPT_PASSES(X)
#undef X
};

const char *const opt_pass_names[] = {
#define X(name, fn, what) #name,
    OPT_PASSES(X)
#undef X
    NULL};

#define NPASSES (sizeof passes / sizeof *passes)

static bool pass_off[NPASSES];  /* by index in passes: --opt turned it off */
static const char *opt_spec;    /* the last --opt=PASSES given, for child builds */

/* A pass's index by name, or -1. */
static int pass_index(const char *name, size_t len)
{
    for (size_t i = 0; i < NPASSES; i++)
        if (strlen(passes[i].name) == len && strncmp(passes[i].name, name, len) == 0) return (int)i;
    return -1;
}

/* "fnvals, inline, ...": the passes, for messages. */
const char *opt_pass_list(void)
{
    struct buf b = {0};
    for (size_t i = 0; i < NPASSES; i++) bprintf(&b, "%s%s", i ? ", " : "", passes[i].name);
    return b.p;
}

/* SPEC: comma-separated items applied left to right, starting from every
 * pass on: `all` (every pass on), `none` (every pass off), `-PASS` (that
 * pass off), `PASS` or `+PASS` (that pass on). */
static void opt_configure(const char *spec)
{
    if (!*spec) command_line_error("--opt needs all, none or passes to turn off (-inline): the passes are %s", opt_pass_list());
    for (size_t i = 0; i < NPASSES; i++) pass_off[i] = false;
    for (const char *p = spec; *p;) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (len == 3 && strncmp(p, "all", 3) == 0) {
            for (size_t i = 0; i < NPASSES; i++) pass_off[i] = false;
        } else if (len == 4 && strncmp(p, "none", 4) == 0) {
            for (size_t i = 0; i < NPASSES; i++) pass_off[i] = true;
        } else {
            bool off = *p == '-';
            size_t skip = *p == '-' || *p == '+';
            int k = pass_index(p + skip, len - skip);
            if (k < 0)
                command_line_error("unknown pass '%.*s' in --opt=%s: the passes are %s (or all, none)", (int)(len - skip),
                                   p + skip, spec, opt_pass_list());
            pass_off[k] = off;
        }
        p += len;
        if (*p == ',') {
            p++;
            if (!*p) command_line_error("--opt=%s ends with a comma", spec);
        }
    }
    opt_spec = spec;
}

bool opt_pass_on(const char *name)
{
    int k = pass_index(name, strlen(name));
    if (k < 0) internal_error("opt_pass_on: no pass %s", name);
    return !pass_off[k];
}

bool opt_option(const char *arg)
{
    if (strncmp(arg, "--opt=", 6) != 0) {
        if (strcmp(arg, "--opt") == 0)
            command_line_error("write --opt=none, --opt=all or --opt=-PASS (the passes are %s)", opt_pass_list());
        return false;
    }
    opt_configure(arg + 6);
    return true;
}

const char *opt_option_given(void)
{
    return opt_spec;
}

/* Every capture list of the program, recomputed. */
static void recapture_all(struct ir_program *ir)
{
    for (int i = 0; i < ir->fns.len; i++) ir_recapture(((struct ir_fn *)ir->fns.items[i])->body);
    for (int i = 0; i < ir->globals.len; i++) ir_recapture(((struct ir_global *)ir->globals.items[i])->init);
}

/* Every pass_order rule holds in passes[]. */
static void check_pass_order(void)
{
    static bool checked;
    if (checked) return;
    checked = true;
    for (size_t i = 0; i < sizeof pass_order / sizeof *pass_order; i++) {
        int a = pass_index(pass_order[i].before, strlen(pass_order[i].before));
        int b = pass_index(pass_order[i].after, strlen(pass_order[i].after));
        if (a < 0 || b < 0) internal_error("pass order names an unknown pass: %s before %s", pass_order[i].before, pass_order[i].after);
        if (a >= b)
            internal_error("pass %s must run before %s (%s)", pass_order[i].before, pass_order[i].after, pass_order[i].why);
    }
    /* its fast copies share subtrees with the loops as written: no pass may
     * rewrite the IR after it but cursor, which only wraps a statement in a
     * block and marks pushes, and leaves a statement it wrapped as it is when
     * it meets it again through a shared subtree, prefetch, which marks
     * loops and writes each loop it marked twice (a new if in the loop's
     * place, one for a loop met twice: the loop as written its else-branch,
     * a new copy sharing its body its then-branch), records, which only
     * marks ifs (the same mark, met twice), and bins, which writes a
     * conversion raw where an index check makes its check (only where every
     * copy sharing the conversion allows it) and adds the let its operand
     * moves to (once in a shared block) */
    if (strcmp(passes[NPASSES - 5].name, "version") != 0 || strcmp(passes[NPASSES - 4].name, "cursor") != 0 ||
        strcmp(passes[NPASSES - 3].name, "prefetch") != 0 || strcmp(passes[NPASSES - 2].name, "records") != 0 ||
        strcmp(passes[NPASSES - 1].name, "bins") != 0)
        internal_error("passes version, cursor, prefetch, records and bins must run last");
}

bool optimize(struct ir_program *ir, const char *stop_after)
{
    check_pass_order();
    for (size_t i = 0; i < NPASSES; i++) {
        if (!pass_off[i]) {
            passes[i].run(ir);
            recapture_all(ir);
            ir_verify(ir);
        }
        if (stop_after && strcmp(stop_after, passes[i].name) == 0) return true;
    }
    return !stop_after;
}
