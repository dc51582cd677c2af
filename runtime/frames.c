/*
 * frames.c: the call chain a panic prints (SPEC section 7).
 *
 * Every user function takes a hidden last parameter fp_, its slot in its
 * thread's array of call places (brt_tcache.fbase). A call writes the
 * call's place (a static brt_loc, which names the function it is in) into
 * fp_[0], passes fp_ + 1, and writes NULL after it returns: one store
 * before and one after, no TLS, no table lookup. So at any moment the live
 * chain of a thread is fbase[0], fbase[1], ... up to the first NULL,
 * outermost first, and the innermost frame is the panic's own place. A
 * call written in place (inlined) writes no slot: each place inside it
 * names the call's place as its site (brt_loc.site), which the chain
 * takes as the frame just outside, so it stays a frame at no cost while
 * it runs.
 *
 * par: the function that starts a par construct sets its thread's ftop to
 * its own free slot (brt_frames_at); a par helper starts its chain there
 * (brt_frames_here), on whatever thread runs it. A helper run on the
 * starting thread continues that thread's chain; one run as a pool task
 * runs under a trap, which records ftop when it is installed
 * (brt_trap_set; putting an outer trap back leaves its record alone), so
 * the task's chain is its slots from there, and the rethrow on the
 * starting thread appends that thread's own chain. The element's places
 * are named "f: a par element of FILE:L:C".
 *
 * ftop only ever moves forward inside a helper (a par construct in a
 * function the element calls), so a helper that may move it puts its own
 * back at its end (emit_par.c helper_end), and a trapped panic puts back
 * its trap's: the next helper run on that thread (the next element or
 * chunk, a stolen task) and the next trap then start at the right slot,
 * and a pool thread's ftop does not creep up task after task.
 *
 * The slots: one array per thread, mapped without reserving memory, of a
 * slot per 16 bytes of the thread's stack (no frame is smaller: a call
 * pushes 8 bytes and keeps 16-byte alignment), so the stack guard's
 * "stack overflow" always comes before the slots run out.
 *
 * BRINE_BACKTRACE=0 prints only the innermost place, as a panic without a
 * chain; unset or 1 prints the chain; anything else stops the program
 * before main (one line, exit 2).
 */
#define _GNU_SOURCE
#include "rt_internal.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int brt_backtrace = 1;

void brt_frames_init(brt_tcache *tc, size_t stack_bytes)
{
    if (!tc) return;
    size_t n = stack_bytes / 16 + 64;
    void *p = mmap(NULL, n * sizeof(brt_loc *), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                   -1, 0);
    if (p == MAP_FAILED) {
        fputs("brine: cannot map the call chain's slots\n", stderr);
        _exit(2);
    }
    tc->fbase = tc->ftop = p;
}

const brt_loc **brt_frames_main(void)
{
    return brt_tc_main.fbase;
}

void brt_backtrace_env(void)
{
    const char *b = getenv("BRINE_BACKTRACE");
    if (!b) return;
    if (strcmp(b, "0") == 0) brt_backtrace = 0;
    else if (strcmp(b, "1") == 0) brt_backtrace = 1;
    else brt_bad_env("BRINE_BACKTRACE must be 0 or 1", b);
}

/* A par element's place: its name reads "f: a par element of FILE:L:C". */
static bool par_element_place(const brt_loc *l)
{
    return l && l->fn && strstr(l->fn, ": a par element of ") != NULL;
}

/* A par element's place directly above the same place is one frame: each
 * level of a split par construct (halves of halves, tasks of the pool)
 * writes the element's place into its own slot, and a panic rethrown
 * through those levels walks each of them; a par construct cannot hold
 * itself without a call between, so two such frames in a row are one.
 * (Calls are never merged: a recursion from one call site is many frames.) */
static void chain_add(brt_chain *c, const brt_loc *l)
{
    if (c->n < BRT_CHAIN_KEEP) c->head[c->n] = l;
    c->tail[c->n % BRT_CHAIN_KEEP] = l;
    c->n++;
}

/* A place in a function written in place of its call is a frame, and that
 * call's place another just outside it (its site, and the site's site):
 * the chain of a call written in place is the chain of the call, with no
 * slot written while it runs. */
void brt_chain_push(brt_chain *c, const brt_loc *l)
{
    if (c->n > 0 && par_element_place(l)) {
        const brt_loc *prev = c->last;
        if (prev == l || (par_element_place(prev) && prev->line == l->line && prev->col == l->col &&
                          strcmp(prev->fn, l->fn) == 0))
            return;
    }
    chain_add(c, l);
    c->last = l;
    for (const brt_loc *s = l ? l->site : NULL; s; s = s->site)
        chain_add(c, s);
}

/* The live slots from base (NULL: none), innermost first, onto c; then
 * clears them when clear (a trapped panic: the calls never returned). */
void brt_chain_walk(brt_chain *c, const brt_loc **base, bool clear)
{
    if (!base) return;
    const brt_loc **top = base;
    while (*top) top++;
    for (const brt_loc **p = top; p-- > base;) {
        /* a library function's place stands for its caller's call, which
         * is the slot below: the same place twice is one frame */
        brt_chain_push(c, *p);
        if (clear) *p = NULL;
    }
}

static int frame_line(char *buf, size_t cap, const brt_loc *l, bool named)
{
    const char *file = l && l->file ? l->file : "";
    if (named && l && l->fn)
        return snprintf(buf, cap, "  --> %s:%" PRId32 ":%" PRId32 " in %s\n", file, l->line, l->col, l->fn);
    return snprintf(buf, cap, "  --> %s:%" PRId32 ":%" PRId32 "\n", file, l ? l->line : 0, l ? l->col : 0);
}

/* The chain's lines: one frame as "  --> FILE:L:C" (no name), more as
 * "  --> FILE:L:C in NAME" each, innermost first; over 2 * KEEP frames the
 * first KEEP, "  ... N frames omitted" ("  ... frames omitted" when not
 * counted: a stack overflow's depth depends on the stack's size, so its
 * text would differ between builds and threads), the last KEEP.
 * Malloc'ed. */
char *brt_chain_text(const brt_chain *c, bool counted)
{
    size_t cap = 256;
    for (int64_t i = 0; i < c->n && i < BRT_CHAIN_KEEP; i++)
        cap += 64 + (c->head[i] && c->head[i]->file ? strlen(c->head[i]->file) : 0) +
               (c->head[i] && c->head[i]->fn ? strlen(c->head[i]->fn) : 0);
    for (int i = 0; i < BRT_CHAIN_KEEP; i++)
        cap += 64 + (c->tail[i] && c->tail[i]->file ? strlen(c->tail[i]->file) : 0) +
               (c->tail[i] && c->tail[i]->fn ? strlen(c->tail[i]->fn) : 0);
    char *buf = malloc(cap);
    if (!buf) return NULL;
    size_t len = 0;
    bool named = c->n > 1;
    int64_t n = c->n;
    for (int64_t i = 0; i < n; i++) {
        if (n > 2 * BRT_CHAIN_KEEP && i == BRT_CHAIN_KEEP) {
            if (counted)
                len += (size_t)snprintf(buf + len, cap - len, "  ... %" PRId64 " frames omitted\n",
                                        n - 2 * BRT_CHAIN_KEEP);
            else /* a stack overflow: how many depends on the stack's size */
                len += (size_t)snprintf(buf + len, cap - len, "  ... frames omitted\n");
            i = n - BRT_CHAIN_KEEP;
        }
        const brt_loc *l = i < BRT_CHAIN_KEEP ? c->head[i] : c->tail[i % BRT_CHAIN_KEEP];
        len += (size_t)frame_line(buf + len, cap - len, l, named);
    }
    return buf;
}
