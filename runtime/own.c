/*
 * own.c: ownership by type, written once. Every copy or drop of a value
 * the runtime makes (slices, concatenation, repeat, extend, copy on write,
 * sort, reverse, pairs of enumerate/zip, world broadcast, the release of an
 * array's elements) goes through the walkers here, driven by the value's
 * descriptor (brt_type): a str or an array holds one counted reference, a
 * function value its captures' block, a tuple, struct or Option whatever
 * its fields hold at their offsets (nested to any depth; an Option's value
 * is zero bits in a None, and every release accepts NULL). A type that owns
 * nothing (brt_type_owns false: the scalars, tuples of them) is plain
 * bytes: callers memcpy it and skip the walk, so arrays of scalars keep
 * their fast paths.
 *
 * The generated C has the same walk per tuple type (bt<n>_retain and
 * bt<n>_release, compiler/emit_base.c) for the values it holds in C locals;
 * both are derived from the same type, field by field.
 *
 * The panic path goes through the same walk: a panic under a trap releases,
 * before it jumps, what the frames it skips list in their owners
 * (brt_owners_unwind; brine_rt.h brt_owner, docs/internals.md).
 */
#include "rt_internal.h"

#include <stdlib.h>
#include <string.h>

static size_t value_size(const brt_type *t)
{
    return t->kind == BRT_TUPLE ? t->size : brt_type_size(t);
}

void brt_release_val(const brt_type *t, void *valp)
{
    switch (t->kind) {
    case BRT_INT: case BRT_I128: case BRT_U64: case BRT_FLOAT: case BRT_BOOL:
        return;
    case BRT_STR:
        brt_str_release(*(brt_str **)valp);
        return;
    case BRT_ARR:
        brt_arr_release(*(brt_arr **)valp);
        return;
    case BRT_TUPLE:
        if (t->refs)
            for (int i = 0; i < t->nfields; i++)
                brt_release_val(t->fields[i], (char *)valp + t->offsets[i]);
        return;
    case BRT_FN:
        brt_fn_release(*(brt_fn *)valp);
        return;
    }
}

void brt_retain_val(const brt_type *t, const void *valp)
{
    switch (t->kind) {
    case BRT_INT: case BRT_I128: case BRT_U64: case BRT_FLOAT: case BRT_BOOL:
        return;
    case BRT_STR: case BRT_ARR:
        brt_retain(*(void *const *)valp);
        return;
    case BRT_TUPLE:
        if (t->refs)
            for (int i = 0; i < t->nfields; i++)
                brt_retain_val(t->fields[i], (const char *)valp + t->offsets[i]);
        return;
    case BRT_FN:
        brt_fn_retain(*(const brt_fn *)valp);
        return;
    }
}

void brt_retain_n(const brt_type *t, const void *p, int64_t n)
{
    switch (t->kind) {
    case BRT_STR: case BRT_ARR: {
        void *const *e = p;
        for (int64_t i = 0; i < n; i++)
            brt_retain(e[i]);
        return;
    }
    case BRT_TUPLE: case BRT_FN:
        if (brt_type_owns(t)) {
            size_t es = value_size(t);
            for (int64_t i = 0; i < n; i++)
                brt_retain_val(t, (const char *)p + (size_t)i * es);
        }
        return;
    case BRT_INT: case BRT_I128: case BRT_U64: case BRT_FLOAT: case BRT_BOOL:
        return;
    }
}

/* The elements go last first. The thread caches (value.c) hand out the
 * buffer freed last first, so a grid of rows dropped and built again with
 * the same shape (h = a new grid each sweep, g = h) gets row i's buffer
 * back as its row i, still in the caches of the core that wrote row i
 * (when the pool splits the rows the same way each time); dropped first to
 * last, row i came back as row n - 1 - i, written by the other core
 * (stencil/new_grid_main at 2 threads). Nothing observes the order. */
void brt_release_n(const brt_type *t, void *p, int64_t n)
{
    switch (t->kind) {
    case BRT_STR: {
        brt_str **e = p;
        for (int64_t i = n - 1; i >= 0; i--)
            brt_str_release(e[i]);
        return;
    }
    case BRT_ARR: {
        /* Each release reads its row's count, a line the work since the
         * row was last used (a new grid as large as the old) has most
         * likely evicted: a stalled load per row, one after the other.
         * The counts RELEASE_AHEAD rows ahead are fetched meanwhile. */
        brt_arr **e = p;
        if (!brt_type_owns(t->elem)) { /* rows of scalars: value.c */
            brt_rows_release(e, n, t->elem);
            return;
        }
        for (int64_t i = n - 1; i >= 0; i--) {
#if BRT_GCC
            if (i >= RELEASE_AHEAD && e[i - RELEASE_AHEAD])
                __builtin_prefetch(e[i - RELEASE_AHEAD], 1);
#endif
            brt_arr_release(e[i]);
        }
        return;
    }
    case BRT_TUPLE: case BRT_FN:
        if (brt_type_owns(t)) {
            size_t es = value_size(t);
            for (int64_t i = n - 1; i >= 0; i--)
                brt_release_val(t, (char *)p + (size_t)i * es);
        }
        return;
    case BRT_INT: case BRT_I128: case BRT_U64: case BRT_FLOAT: case BRT_BOOL:
        return;
    }
}

void brt_copy_n(const brt_type *t, void *dst, const void *src, int64_t n)
{
    if (n <= 0)
        return;
    memcpy(dst, src, (size_t)n * value_size(t));
    brt_retain_n(t, dst, n);
}

void brt_swap_vals(void *a, void *b, size_t size)
{
    unsigned char *x = a, *y = b, tmp[64];
    while (size) {
        size_t k = size < sizeof tmp ? size : sizeof tmp;
        memcpy(tmp, x, k);
        memcpy(x, y, k);
        memcpy(y, tmp, k);
        x += k, y += k, size -= k;
    }
}

/* The panic path (brine_rt.h, brt_owner): a trapped panic skips the frames
 * between it and its trap; each of them that owns values pushed an owner,
 * and these are released here, innermost first, before the jump. An owner
 * is popped before its values are released, so the list is whole whatever
 * a release does. */
/* The runtime's own frames push owners here: also before brt_start (the
 * unit tests), when the thread has no cache and nothing is listed. */
void brt_own_push_rt(brt_owner *o, brt_cell *c, int64_t n)
{
    brt_tcache *tc = brt_tcache_here();
    o->tc = tc;
    o->c = c;
    o->n = n;
    if (tc) {
        o->up = tc->owners;
        tc->owners = o;
    }
}

void brt_own_pop_rt(brt_owner *o)
{
    if (o->tc)
        o->tc->owners = o->up;
}

static void vals_drop(brt_owner *o)
{
    brt_vals_owner *v = (brt_vals_owner *)o;
    brt_release_n(v->t, v->p, *v->n);
}

void brt_own_vals(brt_vals_owner *v, const brt_type *t, void *p, const int *n)
{
    v->t = t;
    v->p = p;
    v->n = n;
    brt_own_push_rt(&v->o, NULL, 0);
    v->o.drop = vals_drop;
}

/* An f-string's builder (brt_sb) in a cell: its buffer is freed. */
const brt_type brt_t_sb = { BRT_BOOL, NULL, 0, 0, NULL, NULL, false, NULL, NULL, false };

void brt_owners_unwind(brt_tcache *tc, brt_owner *to)
{
    if (!tc)
        return;
    while (tc->owners && tc->owners != to) {
        brt_owner *o = tc->owners;
        tc->owners = o->up;
        if (!o->c) {
            o->drop(o);
            continue;
        }
        for (int64_t i = o->n; i-- > 0;) {
            brt_cell *c = &o->c[i];
            if (!c->p)
                continue;
            if (c->t == &brt_t_sb) {
                brt_sb *sb = c->p;
                if (sb->cap > 0)
                    free(sb->buf);
                continue;
            }
            brt_release_val(c->t, c->p);
        }
    }
}
