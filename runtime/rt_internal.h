/* rt_internal.h: what the runtime's own .c files share and programs never see. */
#ifndef BRINE_RT_INTERNAL_H
#define BRINE_RT_INTERNAL_H
#include "brine_rt.h"

#include <pthread.h>
#include <setjmp.h>
#include <string.h>

/* ---- memory (value.c) ---------------------------------------------------- */

/* malloc/realloc that never return NULL: out of memory is a panic without a
 * place ("panic: out of memory", exit 101). */
void *brt_xmalloc(size_t n);
void *brt_xcalloc(size_t n); /* n zero bytes (at least one) */
void *brt_xrealloc(void *p, size_t n);
/* Scratch for a big temporary (sort.c): in 2 MiB pages where the kernel
 * offers them; given back with brt_scratch_free (its size), which keeps a
 * few big blocks for the next request (their pages already touched). */
void *brt_scratch(size_t bytes);
void brt_scratch_free(void *p, size_t bytes);
/* world.reduce of values over 16 bytes (world.c): each rank its share. */
bool brt_world_fold_reduce_rows(const brt_fold *f, const brt_loc *loc, void *out);
/* A new array with room for cap elements, len of them counted (the caller
 * fills them in); and growing a's room to at least cap elements. Arrays are
 * allocated only by these (the header may share its block with the data). */
brt_arr *brt_arr_alloc(const brt_type *elem, int64_t len, int64_t cap);
void brt_arr_reserve(brt_arr *a, int64_t cap);
/* The release of rows e[0 .. n) whose elements (of type elem) own nothing (brt_release_n
 * of an array of such rows), last first; RELEASE_AHEAD rows ahead of the
 * one released, its count is fetched toward the cache. */
enum { RELEASE_AHEAD = 8 };
void brt_rows_release(brt_arr **e, int64_t n, const brt_type *elem);
/* The shared immortal "" (str elements of brt_arr_new, os.getenv misses). */
extern brt_str brt_empty_str;
/* A new str of len bytes (len > 0, its NUL written) for the caller to fill in at *data. */

/* ---- panics and traps (panic.c) ------------------------------------------ */

/* brt_trap (a trap that catches panics on one thread): brine_rt.h. */

/* Call chains (frames.c): the first and last KEEP frames pushed (innermost
 * first) and how many. */
#define BRT_CHAIN_KEEP 10
typedef struct brt_chain {
    const brt_loc *head[BRT_CHAIN_KEEP], *tail[BRT_CHAIN_KEEP];
    int64_t n;
    const brt_loc *last; /* the place pushed last, before the call sites it was written in place of */
} brt_chain;
extern int brt_backtrace; /* BRINE_BACKTRACE: 1 (default) the chain, 0 the innermost place */
void brt_frames_init(brt_tcache *tc, size_t stack_bytes); /* this thread's slots */
void brt_backtrace_env(void);                                /* BRINE_BACKTRACE, in brt_start */
void brt_chain_push(brt_chain *c, const brt_loc *l);
void brt_chain_walk(brt_chain *c, const brt_loc **base, bool clear);
char *brt_chain_text(const brt_chain *c, bool counted);      /* malloc'ed; NULL when out of memory */
BRT_NORETURN void brt_bad_env(const char *what, const char *value); /* "brine: WHAT, got 'V'", exit 2 */
brt_trap *brt_trap_get(void);
void brt_trap_set(brt_trap *t);
/* Reports a recorded panic as if it happened now (to the installed trap if
 * any, else stderr and exit 101). */
BRT_NORETURN void brt_trap_rethrow(const brt_trap *t);
/* brt_own_push / brt_own_pop for the runtime's frames (own.c): also on a
 * thread without a cache (before brt_start). */
void brt_own_push_rt(brt_owner *o, brt_cell *c, int64_t n);
void brt_own_pop_rt(brt_owner *o);
/* A panic with a preformatted message and an optional place. */
BRT_NORETURN void brt_panic_text(const brt_loc *loc, const char *msg);
BRT_NORETURN void brt_panic_owned(const brt_loc *loc, char *msg); /* msg: malloc'ed, taken */
/* brt_flush for the panic itself: returns the errno of a failed write (0 if
 * none) instead of panicking, so the first panic is the one reported. */
int brt_flush_quiet(void);

/* ---- threads (panic.c, os.c) --------------------------------------------- */

/* Every thread other than main that runs Brine code is created with this
 * attr: a stack placed so that the inline check sees its overflow (os.c).
 * No per-thread setup is needed after that.
 * Valid after brt_start. false: no memory (attr untouched). After
 * pthread_create, brt_stack_attr_destroy(attr, failed): failed frees the
 * stack too (a created thread keeps it for good). */
bool brt_stack_attr(pthread_attr_t *attr);
void brt_stack_attr_destroy(pthread_attr_t *attr, bool unused);

/* The per-thread caches (brt_tcache, brt_tcache_here) are in brine_rt.h:
 * the generated code reaches its thread's sampling tick there too. A pool
 * worker numbered id enters its cache in value.c's table before it runs a
 * task (the main thread's is there from the start). */
void brt_tcache_register(brt_tcache *tc, int id);

/* Values of BRINE_GPU (SPEC section 8). */
enum brt_gpu_mode { BRT_GPU_OFF, BRT_GPU_ON, BRT_GPU_AUTO };
enum brt_gpu_mode brt_gpu_mode(void);

/* The pool (pool.c): one work-stealing deque per thread; see there. */
int brt_pool_threads(void);
/* true: the calling thread has no deque (one thread, or not a pool thread):
 * par work runs on it, in order. */
bool brt_pool_nested(void);
/* Par reductions, comprehensions and searches running now, on any thread (reduce.c). */
int brt_par_running(void);
/* This thread's share of that count (a trap saves it, a trapped panic puts
 * it back: the par work the skipped frames had open is over). */
int brt_par_open(void);
void brt_par_open_set(int n);
/* Runs task(arg, t) for t in 0..ntasks-1, the caller included, and returns
 * when all have finished. Each task runs under a trap: a panic stops that
 * task, and the call returns the lowest task that panicked (its panic copied
 * to *first_panic, msg malloc'ed; NULL to discard), else -1. Tasks that can
 * be run elsewhere are split off in halves; nested calls do the same. */
int64_t brt_pool_run(int64_t ntasks, void (*task)(void *arg, int64_t t), void *arg,
                     brt_trap *first_panic);

/* Fork-join below brt_pool_run: brt_task_spawn offers t to idle threads
 * (false: it could not, and join will simply run it); the spawner does its
 * own part, then brt_task_join(t, spawned) runs t itself if nobody took it,
 * or runs other tasks until the thief has finished it. Joins are LIFO. A
 * task must not let a panic escape (run its user code under a trap). */
typedef struct brt_task {
    void (*run)(struct brt_task *t);
    _Atomic int done;
} brt_task;
bool brt_task_spawn(brt_task *t);
void brt_task_join(brt_task *t, bool spawned);
/* Lazy splitting (reduce.c's element frames). brt_pool_self: the calling
 * thread's record (NULL: no deque): its list of open frames and a sample
 * counter. brt_pool_wanted: a thread is looking for work and nothing is on
 * offer on this one yet. brt_pool_rouse: wakes a sleeping worker when none
 * is searching (before work that is worth sharing). */
typedef struct brt_self {
    void *frames;
    uint32_t ticks;
    _Atomic int running; /* par work open on this thread (written by it alone) */
} brt_self;
brt_self *brt_pool_self(void);
/* The sum of every pool thread's brt_self.running. */
int brt_pool_running(void);
bool brt_pool_wanted(brt_self *me);
/* Whether this thread has a task on offer (in its deque, not yet taken). */
bool brt_pool_offering(brt_self *me);
void brt_pool_rouse(void);
/* Before a panic longjmps to the trap at mark: the element frames opened
 * on this thread since (below mark on the stack) join their tasks and close
 * (reduce.c). */
void brt_frames_unwind(const void *mark);
/* Test hook: nonzero makes spawners and thieves yield at random (more steal
 * orders); 0 turns it off. */
void brt_pool_chaos(uint64_t seed);

/* brt_keyed_run's order-free way (keyfree.c); false: not taken, or an
 * element panicked or the guard overflowed (out and has then hold nothing
 * the caller keeps: the ordered ways run). */
bool brt_keyed_free(const brt_fold *f, int64_t nkeys, void *out, unsigned char *has);

/* ---- several processes (world.c) ------------------------------------------ */

/* What a panic writes before "panic: ": "" (one process, or a panic every
 * rank meets, which rank 0 writes), "rank N: ", or NULL (this rank stays
 * silent: rank 0 reports). */
const char *brt_world_panic_prefix(void);
/* After a panic is written: ends the whole job (returns without MPI). */
void brt_world_panic_end(void);
/* The leaf blocks of rank's share of a tree of nleaves leaves split among
 * ranks: block i is leaves [first[i], first[i] + 2^level[i]), aligned.
 * Returns the count (at most 128). */
int brt_world_blocks(int64_t nleaves, int ranks, int rank, int64_t *first, int *level);
/* The distributed reduction with ranks simulated in this process, one share
 * after another (the unit tests). */
bool brt_world_reduce_split(const brt_reduce *r, int ranks, void *out);

/* ---- stdout (print.c) ---------------------------------------------------- */

/* Appends bytes to the runtime's stdout buffer (thread-safe). */
void brt_out_write(const char *p, size_t n);

/* ---- 128-bit helpers (arith.c) --------------------------------------------
 * gcc lowers __int128 division, popcount and __int128 <-> double conversion
 * to libgcc calls (__udivti3, __popcountdi2, __floattidf, ...) that tcc does
 * not link. The runtime uses these instead, so libbrine_rt.a needs nothing
 * from libgcc and dev builds link. */
typedef unsigned __int128 brt_u128;
brt_u128 brt_u128_divmod(brt_u128 n, brt_u128 d, brt_u128 *rem); /* d != 0 */
int brt_popcount64(uint64_t x);

/* ---- text (format.c) ----------------------------------------------------- */

/* Decimal digits of an unsigned 128-bit magnitude given as halves; returns
 * the length, buf needs 40 bytes. */
int brt_format_u128(uint64_t lo, uint64_t hi, char *buf);
/* Appends s quoted and escaped as Rust's Debug prints a str ("a\"b\n"). */
void brt_sb_debug_str(brt_sb *sb, const char *s, int64_t len);
/* Appends the text print writes for a value (the text of brt_to_str). */
void brt_sb_plain(brt_sb *sb, const brt_type *t, const void *valp);
void brt_sb_reserve(brt_sb *sb, int64_t extra);

/* x86-64: whether the processor has FMA and the OS saves the AVX registers (math.c) */
int brt_math_has_fma(void);
/* x86-64: which copy of the math lanes the processor runs: 2 AVX-512, 1 AVX2, 0 none (math_lanes.c) */
int brt_lanes_level(void);

/* A value copy (scan.c, keyed.c); the common sizes as constants, which
 * the C compiler inlines. */
static inline void brt_vcopy(void *d, const void *src, size_t vs)
{
    if (vs == 8)
        memcpy(d, src, 8);
    else if (vs == 16)
        memcpy(d, src, 16);
    else
        memcpy(d, src, vs);
}

#endif
