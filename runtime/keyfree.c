/*
 * keyfree.c: reductions by key whose result cannot depend on the order of
 * their combines (SPEC 15's `by`), computed in any order.
 *
 * SPEC 15 gives each key the one tree over all elements. For exact integer
 * combines the tree's shape cannot change the value, only whether an
 * overflow panics: min and max of integers, any and all never panic, so any
 * order gives the tree's bits; every partial sum of an int sum, of any key
 * and in any order, is at most the sum of |v| over all the elements in
 * magnitude, so when that sum fits (the guard: one scalar per task, not per
 * key) no combine of the tree overflows and a wrapping sum in any order is
 * the tree's (u64: the sum itself, every value being >= 0).
 *
 * Each task folds its range of positions straight into its own array of
 * nkeys accumulators (the generated kfree: the element, its key, a[k] += v
 * and the guard, no buffer, no per-leaf rows; task 0 into the result
 * itself), and the arrays then merge key by key (kmerge, over key ranges on
 * the pool when there are many). The arrays are bounded (64 MiB, and a few
 * times the elements' bytes): fewer tasks, else one. A panic in an element
 * (a key out of range, a conversion) or a guard that overflows hands over
 * to the ordered ways (keyed.c), which evaluate the elements again and panic
 * or answer as SPEC 15 says; so the compiler offers kfree only for elements
 * without effects (ir_effect_free).
 */
#include "rt_internal.h"

#include <stdlib.h>
#include <string.h>

#define FREE_BYTES ((size_t)64 << 20) /* the tasks' own arrays, at most */
#define FREE_ELEMS 16384              /* elements a task, at least */
#define MERGE_KEYS 65536              /* keys a merge task, about */

typedef struct free_job {
    const brt_fold *f;
    int64_t n, nkeys, tasks, chunk, kchunk;
    size_t vs;
    unsigned char **acc, **has; /* per task; task 0's are the result's */
    uint64_t *guard;
    unsigned char *ok;
} free_job;

/* An array of nkeys accumulators at the start kident, and its flags. */
static void free_init(const brt_fold *f, unsigned char *acc, unsigned char *has, int64_t nkeys)
{
    size_t vs = f->vsize;
    bool zero = true;
    for (size_t i = 0; i < vs; i++)
        zero &= ((const unsigned char *)f->kident)[i] == 0;
    if (zero)
        memset(acc, 0, (size_t)nkeys * vs);
    else if (vs == 8)
        for (int64_t k = 0; k < nkeys; k++)
            memcpy(acc + (size_t)k * 8, f->kident, 8);
    else
        for (int64_t k = 0; k < nkeys; k++)
            memcpy(acc + (size_t)k * vs, f->kident, vs);
    memset(has, f->ident ? 1 : 0, (size_t)nkeys);
}

/* Task t: its positions into its own array (the run's memory: a panic
 * abandons the task, not the array). */
static void free_task(void *arg, int64_t t)
{
    free_job *d = arg;
    const brt_fold *f = d->f;
    int64_t lo = t * d->chunk, hi = lo + d->chunk < d->n ? lo + d->chunk : d->n;
    if (t > 0) {
        d->acc[t] = brt_xmalloc((size_t)d->nkeys * (d->vs + 1));
        d->has[t] = d->acc[t] + (size_t)d->nkeys * d->vs;
    }
    free_init(f, d->acc[t], d->has[t], d->nkeys);
    d->ok[t] = f->kfree(f->env, lo, hi, d->acc[t], d->has[t], &d->guard[t]);
}

/* Keys [c * kchunk, ...): every task's array merged into the result. */
static void free_merge(void *arg, int64_t c)
{
    free_job *d = arg;
    const brt_fold *f = d->f;
    int64_t lo = c * d->kchunk, cnt = lo + d->kchunk < d->nkeys ? d->kchunk : d->nkeys - lo;
    size_t at = (size_t)lo * d->vs;
    for (int64_t t = 1; t < d->tasks; t++)
        f->kmerge(f->env, d->acc[0] + at, d->has[0] + lo, d->acc[t] + at, d->has[t] + lo, cnt);
}

/* Whether the tasks' guards add up to at most kguard_max. */
static bool free_guard(const free_job *d)
{
    uint64_t sum = 0;
    for (int64_t t = 0; t < d->tasks; t++) {
        if (!d->ok[t] || __builtin_add_overflow(sum, d->guard[t], &sum))
            return false;
    }
    return sum <= d->f->kguard_max;
}

bool brt_keyed_free(const brt_fold *f, int64_t nkeys, void *out, unsigned char *has)
{
    if (!f->kfree || nkeys <= 0 || f->n <= 0 || (f->start && !f->ident))
        return false;
    free_job d = {.f = f, .n = f->n, .nkeys = nkeys, .vs = f->vsize};
    bool pool = f->par && brt_pool_threads() > 1 && !brt_pool_nested();
    int64_t tasks = pool ? brt_pool_threads() : 1;
    if (tasks > d.n / FREE_ELEMS)
        tasks = d.n / FREE_ELEMS > 1 ? d.n / FREE_ELEMS : 1;
    /* each task past the first: nkeys values and flags of its own */
    size_t per = (size_t)nkeys * (d.vs + 1), budget = (size_t)d.n * d.vs * 4;
    if (budget > FREE_BYTES)
        budget = FREE_BYTES;
    if (tasks > 1 && (size_t)(tasks - 1) * per > budget)
        tasks = 1 + (int64_t)(budget / per);
    d.tasks = tasks;
    d.chunk = (d.n + tasks - 1) / tasks;
    d.acc = brt_xcalloc((size_t)tasks * sizeof *d.acc);
    d.has = brt_xcalloc((size_t)tasks * sizeof *d.has);
    d.guard = brt_xcalloc((size_t)tasks * sizeof *d.guard);
    d.ok = brt_xcalloc((size_t)tasks);
    d.acc[0] = out;
    d.has[0] = has;
    /* one task runs on the calling thread, under the pool's trap too */
    bool ok = brt_pool_run(tasks, free_task, &d, NULL) < 0;
    ok = ok && (!f->kguard_max || free_guard(&d));
    /* the guard held: no merge can overflow, so none panics (nor can min,
     * max, any, all) */
    if (ok && tasks > 1) {
        d.kchunk = (nkeys + tasks - 1) / tasks;
        if (d.kchunk < MERGE_KEYS)
            d.kchunk = nkeys < MERGE_KEYS ? nkeys : MERGE_KEYS;
        int64_t parts = (nkeys + d.kchunk - 1) / d.kchunk;
        if (parts == 1)
            free_merge(&d, 0);
        else
            ok = brt_pool_run(parts, free_merge, &d, NULL) < 0; /* never false */
    }
    /* min and max: a key without an element holds zero bytes, as the
     * ordered ways leave it */
    if (ok && !f->start)
        for (int64_t k = 0; k < nkeys; k++)
            if (!has[k])
                memset((unsigned char *)out + (size_t)k * d.vs, 0, d.vs);
    for (int64_t t = 1; t < tasks; t++)
        free(d.acc[t]);
    free(d.acc);
    free(d.has);
    free(d.guard);
    free(d.ok);
    return ok;
}
