/*
 * pool.c: the work-stealing pool that runs par work (SPEC sections 5.5 and 8).
 *
 * Every thread that runs par work (the main thread and BRINE_THREADS - 1
 * workers) owns a deque of tasks (Chase-Lev: the owner pushes and takes at
 * the bottom, thieves steal at the top). The runtime's par code is
 * fork-join: brt_task_spawn pushes a task that someone may run, the spawner
 * carries on with its own part, and brt_task_join either takes the task back
 * (nobody wanted it: it runs inline, for about the price of two stores) or,
 * when a thief has it, steals and runs other tasks until it is done. So the
 * caller of a par helps instead of blocking, a thread waiting for a subtree
 * it split off keeps working, and nesting at any depth exposes its tasks to
 * idle threads and can never deadlock: a waited-for task is always being run
 * by a thread that is not waiting for its waiter.
 *
 * Who runs a task never matters: each task writes its result to its own
 * slot and the spawner combines the slots in the tree's fixed order
 * (reduce.c), so the bits depend on the element count alone.
 *
 * Idle workers steal from random victims, spin a while (a steal hand-off
 * costs well under a microsecond, a condvar wake tens of microseconds), then
 * sleep; a spawner wakes one sleeper only when no worker is searching, so a
 * busy pool pays nothing for wakes and an idle one uses no CPU.
 *
 * Panics never cross a task: brt_pool_run runs each task under a trap
 * (panic.c longjmps to it) and returns the lowest task that panicked; the
 * caller decides what SPEC 5.3 makes of it. No __thread: tcc cannot link
 * TLS, so "which worker am I" lives behind a pthread key, like the trap.
 *
 * Test hook: brt_pool_chaos(seed) makes spawners and thieves yield at random
 * and thieves pick random victims, so tests see many steal orders.
 */
#define _GNU_SOURCE /* CPU sets, sched_getcpu */
#include "rt_internal.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SPIN_ROUNDS 4000 /* failed steal rounds before a worker sleeps */
#define DEQ_CAP 1024      /* tasks per deque; a spawn into a full one runs inline */
#define MAX_HELP 48       /* nested helps per thread while joining (stack room) */

struct worker {
    brt_self self;  /* first: what reduce.c reads of its thread */
    _Alignas(64) atomic_int_fast64_t top;
    _Alignas(64) atomic_int_fast64_t bottom;
    brt_task *_Atomic buf[DEQ_CAP];
    uint64_t rng;
    int id, help;
};

static struct {
    pthread_once_t once;
    pthread_key_t self;
    int nthreads;                 /* workers + the main thread */
    int nslots;                   /* deques, fixed before any worker starts */
    int spin_rounds;              /* SPIN_ROUNDS, less with more threads than cores */
    bool yields;                  /* more threads than cores: a spinning thread yields now and then */
    struct worker *w;             /* nthreads of them; 0 is the main thread */
    pthread_mutex_t lock;
    pthread_cond_t wake;
    int tokens;                   /* wakes not yet consumed (under lock) */
    atomic_int waking;            /* tokens, readable without the lock */
    _Alignas(64) atomic_int sleepers; /* its own line: read by every spawn, written by sleeps */
    _Alignas(64) atomic_int searching; /* workers looking for a task */
    atomic_uint_fast64_t chaos;   /* 0, or the test hook's seed */
} pool = { .once = PTHREAD_ONCE_INIT, .lock = PTHREAD_MUTEX_INITIALIZER,
           .wake = PTHREAD_COND_INITIALIZER };

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

static uint64_t next_rand(uint64_t *s)
{
    uint64_t x = *s;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return *s = x;
}

static void chaos_yield(struct worker *w)
{
    if (atomic_load_explicit(&pool.chaos, memory_order_relaxed) && (next_rand(&w->rng) & 3) == 0)
        sched_yield();
}

/* ---- the deque (Chase-Lev, every top/bottom access seq_cst: the owner's
 * take and a thief's steal race for the last task like Dekker's algorithm,
 * and ThreadSanitizer understands seq_cst atomics without fences) ---------- */

static bool deq_push(struct worker *w, brt_task *t)
{
    int_fast64_t b = atomic_load_explicit(&w->bottom, memory_order_relaxed);
    int_fast64_t tp = atomic_load_explicit(&w->top, memory_order_acquire);
    if (b - tp >= DEQ_CAP)
        return false;
    atomic_store_explicit(&w->buf[b % DEQ_CAP], t, memory_order_relaxed);
    atomic_store(&w->bottom, b + 1);
    return true;
}

static brt_task *deq_take(struct worker *w)
{
    int_fast64_t b = atomic_load_explicit(&w->bottom, memory_order_relaxed) - 1;
    atomic_store(&w->bottom, b);
    int_fast64_t tp = atomic_load(&w->top);
    if (tp > b) {
        atomic_store(&w->bottom, b + 1);
        return NULL;
    }
    brt_task *t = atomic_load_explicit(&w->buf[b % DEQ_CAP], memory_order_relaxed);
    if (tp == b) {
        /* the last task: a thief may be stealing it right now */
        if (!atomic_compare_exchange_strong(&w->top, &tp, tp + 1))
            t = NULL;
        atomic_store(&w->bottom, b + 1);
    }
    return t;
}

static brt_task *deq_steal(struct worker *w)
{
    int_fast64_t tp = atomic_load(&w->top);
    int_fast64_t b = atomic_load(&w->bottom);
    if (tp >= b)
        return NULL;
    brt_task *t = atomic_load_explicit(&w->buf[tp % DEQ_CAP], memory_order_relaxed);
    if (!atomic_compare_exchange_strong(&w->top, &tp, tp + 1))
        return NULL;
    return t;
}

/* ---- running tasks ------------------------------------------------------- */

static void task_run(brt_task *t)
{
    t->run(t);
    atomic_store_explicit(&t->done, 1, memory_order_release);
}

/* One round over (at most STEAL_TRIES of) the other deques, from a random
 * start; a task or NULL. Before sleeping a worker looks at them all. */
#define STEAL_TRIES 16
static brt_task *steal_round(struct worker *self)
{
    int n = pool.nslots;
    int start = (int)(next_rand(&self->rng) % (uint64_t)n);
    for (int i = 0; i < n && i < STEAL_TRIES; i++) {
        struct worker *v = &pool.w[(start + i) % n];
        if (v == self)
            continue;
        chaos_yield(self);
        brt_task *t = deq_steal(v);
        if (t)
            return t;
    }
    return NULL;
}

static bool any_work(void)
{
    for (int i = 0; i < pool.nslots; i++)
        if (atomic_load(&pool.w[i].top) < atomic_load(&pool.w[i].bottom))
            return true;
    return false;
}

static void wake_one(void)
{
    pthread_mutex_lock(&pool.lock);
    if (atomic_load(&pool.sleepers) > pool.tokens) {
        pool.tokens++;
        atomic_store(&pool.waking, pool.tokens);
        pthread_cond_signal(&pool.wake);
    }
    pthread_mutex_unlock(&pool.lock);
}

/* Where each worker starts: the allowed CPUs after main's, in turn. A new
 * thread otherwise starts on its creator's CPU, and the kernel moves it
 * only at a later balancing: measured, 1 process in 4 ran its first pars
 * (up to 12 ms of them) with both threads on one core. A worker takes back
 * the whole mask as it starts, so the kernel moves it as usual after. */
static cpu_set_t allowed_cpus;
static bool allowed_known;

static void start_cpu(pthread_attr_t *attr, int i)
{
    int ncpu = allowed_known ? CPU_COUNT(&allowed_cpus) : 0;
    if (ncpu < 2)
        return;
    int cpus[CPU_SETSIZE], n = 0, at = 0, here = sched_getcpu();
    for (int c = 0; c < CPU_SETSIZE && n < ncpu; c++)
        if (CPU_ISSET(c, &allowed_cpus)) {
            if (c == here)
                at = n;
            cpus[n++] = c;
        }
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(cpus[(at + i) % n], &one);
    pthread_attr_setaffinity_np(attr, sizeof one, &one);
}

static void *worker_main(void *arg)
{
    struct worker *self = arg;
    if (allowed_known)
        pthread_setaffinity_np(pthread_self(), sizeof allowed_cpus, &allowed_cpus);
    pthread_setspecific(pool.self, self);
    brt_tcache *tc = brt_tcache_here();
    if (tc) {
        tc->self = self;
        brt_tcache_register(tc, self->id);
    }
    brt_frames_init(tc, BRT_STACK_SPAN); /* the call chain's slots (frames.c) */
    atomic_fetch_add(&pool.searching, 1);
    int spins = 0;
    for (;;) {
        brt_task *t = steal_round(self);
        if (t) {
            /* the last searcher found work: another may find more */
            if (atomic_fetch_sub(&pool.searching, 1) == 1 && atomic_load(&pool.sleepers) > 0 && any_work())
                wake_one();
            task_run(t);
            atomic_fetch_add(&pool.searching, 1);
            spins = 0;
            continue;
        }
        if (++spins < pool.spin_rounds) {
            /* back off: every poll reads the victims' deque ends, and the
             * owners pay a cache miss for each read on their next push */
            for (int i = spins < 32 ? 1 : spins < 256 ? spins : 256; i > 0; i--)
                cpu_relax();
            if ((spins & 63) == 0 && pool.yields)
                sched_yield();
            continue;
        }
        /* Sleep. sleepers is raised before the deques are looked at again,
         * and a spawner pushes before it reads sleepers (all seq_cst), so a
         * task pushed meanwhile is seen by one side or the other. */
        pthread_mutex_lock(&pool.lock);
        atomic_fetch_add(&pool.sleepers, 1);
        atomic_fetch_sub(&pool.searching, 1);
        while (pool.tokens == 0 && !any_work())
            pthread_cond_wait(&pool.wake, &pool.lock);
        if (pool.tokens > 0)
            pool.tokens--;
        atomic_store(&pool.waking, pool.tokens);
        atomic_fetch_sub(&pool.sleepers, 1);
        atomic_fetch_add(&pool.searching, 1);
        pthread_mutex_unlock(&pool.lock);
        spins = 0;
    }
    return NULL;
}

static void pool_start(void)
{
    if (pthread_key_create(&pool.self, NULL) != 0)
        abort();
    int n = (int)brt_os_thread_count();
    if (n < 1)
        n = 1;
    pool.w = aligned_alloc(64, ((size_t)n * sizeof *pool.w + 63) / 64 * 64);
    if (!pool.w)
        abort();
    memset(pool.w, 0, (size_t)n * sizeof *pool.w);
    for (int i = 0; i < n; i++) {
        pool.w[i].id = i;
        pool.w[i].rng = 0x9E3779B97F4A7C15ull * (uint64_t)(i + 1);
    }
    pthread_setspecific(pool.self, &pool.w[0]); /* the thread that starts the pool: main */
    brt_tcache *tc = brt_tcache_here();
    if (tc)
        tc->self = &pool.w[0];
    pool.nslots = n; /* a slot without a thread has an empty deque: harmless */
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    pool.spin_rounds = SPIN_ROUNDS;
    if (cores > 0 && n > cores)
        pool.spin_rounds = (int)(SPIN_ROUNDS * cores / n) + 16;
    /* A thread that spins (searching, or joining a task another runs)
     * yields its core only when the pool's own threads outnumber the cores,
     * so that the one it waits for can run. With a core each, a yield hands
     * the core to another program's thread for its whole time slice
     * whenever the machine is busy: 200 sweeps of a 500 x 500 stencil at 2
     * threads on 2 busy cores took 12-40 ms with the yields, 10.5-13 ms
     * without (OpenMP's spin: 9.7 ms). */
    pool.yields = cores > 0 && n > cores;
    int started_threads = 1;
    allowed_known = sched_getaffinity(0, sizeof allowed_cpus, &allowed_cpus) == 0;
    for (int i = 1; i < n; i++) {
        pthread_t th;
        pthread_attr_t attr;
        bool ok = brt_stack_attr(&attr);
        if (ok) {
            start_cpu(&attr, i);
            ok = pthread_create(&th, &attr, worker_main, &pool.w[i]) == 0;
            brt_stack_attr_destroy(&attr, !ok);
        }
        if (!ok)
            break; /* run with the threads we got */
        pthread_detach(th);
        started_threads = i + 1;
    }
    pool.nthreads = started_threads;
}

static atomic_int started;

static void pool_start_once(void)
{
    pool_start();
    atomic_store_explicit(&started, 1, memory_order_release);
}

int brt_pool_threads(void)
{
    if (!atomic_load_explicit(&started, memory_order_acquire))
        pthread_once(&pool.once, pool_start_once);
    return pool.nthreads;
}

/* The calling thread's worker, or NULL (one thread, or not a pool thread). */
static struct worker *self_worker(void)
{
    if (brt_pool_threads() == 1)
        return NULL;
    /* from sp (brine_rt.h), else (a thread before brt_start: tests) the key */
    brt_tcache *tc = brt_tcache_here();
    if (tc && tc->self)
        return tc->self;
    return pthread_getspecific(pool.self);
}

bool brt_pool_nested(void)
{
    return self_worker() == NULL;
}

brt_self *brt_pool_self(void)
{
    return (brt_self *)self_worker();
}

int brt_pool_running(void)
{
    if (!atomic_load_explicit(&started, memory_order_acquire))
        return 0;
    int sum = 0;
    for (int i = 0; i < pool.nthreads; i++)
        sum += atomic_load_explicit(&pool.w[i].self.running, memory_order_relaxed);
    return sum;
}

bool brt_pool_wanted(brt_self *me)
{
    if (atomic_load_explicit(&pool.searching, memory_order_relaxed) == 0)
        return false;
    struct worker *w = (struct worker *)me;
    /* something offered already: let the thieves take that first */
    return atomic_load_explicit(&w->top, memory_order_relaxed) >=
           atomic_load_explicit(&w->bottom, memory_order_relaxed);
}

bool brt_pool_offering(brt_self *me)
{
    struct worker *w = (struct worker *)me;
    return atomic_load_explicit(&w->top, memory_order_relaxed) <
           atomic_load_explicit(&w->bottom, memory_order_relaxed);
}

void brt_pool_rouse(void)
{
    /* seq_cst (plain loads on x86): ordered after a spawn's push */
    if (atomic_load(&pool.sleepers) > 0 && atomic_load(&pool.searching) == 0 && atomic_load(&pool.waking) == 0)
        wake_one();
}

void brt_pool_chaos(uint64_t seed)
{
    atomic_store(&pool.chaos, seed);
}

bool brt_task_spawn(brt_task *t)
{
    struct worker *w = self_worker();
    atomic_init(&t->done, 0);
    if (!w || !deq_push(w, t))
        return false;
    /* A worker that found nothing may be going to sleep right now: it
     * raises sleepers, then looks at the deques once more (seq_cst, under
     * the lock). The push above is seq_cst, then sleepers is read: one side
     * sees the other, so a task is never left with every other thread
     * asleep (a rouse before the push, as brt_pool_run and reduce.c do,
     * can miss a thread that falls asleep in between). sleepers has its own
     * cache line, so this costs a load that hits while nobody sleeps. */
    if (atomic_load(&pool.sleepers) > 0)
        brt_pool_rouse();
    chaos_yield(w);
    return true;
}

void brt_task_join(brt_task *t, bool spawned)
{
    if (!spawned) {
        task_run(t);
        return;
    }
    struct worker *w = self_worker();
    /* Usually the bottom task is t. Above it there may be tasks that an
     * older frame on this thread offered meanwhile (reduce.c offers the
     * oldest work first): any thread may run any task, so run those too. */
    for (brt_task *mine; (mine = deq_take(w));) {
        task_run(mine);
        if (mine == t)
            return;
    }
    /* A joiner whose task was stolen is a thief too: counted as searching,
     * so the threads running its task's pieces offer it more. */
    atomic_fetch_add(&pool.searching, 1);
    int spins = 0;
    while (!atomic_load_explicit(&t->done, memory_order_acquire)) {
        if (w->help < MAX_HELP) {
            brt_task *other = steal_round(w);
            if (other) {
                atomic_fetch_sub(&pool.searching, 1);
                w->help++;
                task_run(other);
                w->help--;
                atomic_fetch_add(&pool.searching, 1);
                continue;
            }
        }
        cpu_relax();
        if ((++spins & 63) == 0 && pool.yields)
            sched_yield();
    }
    atomic_fetch_sub(&pool.searching, 1);
}

/* ---- brt_pool_run: tasks 0..ntasks-1 by binary splitting ----------------- */

struct job {
    void (*task)(void *arg, int64_t t);
    void *arg;
    pthread_mutex_t panic_lock;
    int64_t panic_task; /* lowest task that panicked, or -1 */
    brt_trap panic;     /* its panic (loc, msg) */
};

struct range_task {
    brt_task t;
    struct job *job;
    int64_t lo, hi;
};

static void run_one(struct job *job, int64_t i)
{
    brt_trap trap;
    trap.panicked = 0;
    trap.msg = NULL;
    brt_trap *outer = brt_trap_get();
    brt_trap_set(&trap);
    if (setjmp(trap.jb) == 0)
        job->task(job->arg, i);
    brt_trap_set(outer);
    if (!trap.panicked)
        return;
    pthread_mutex_lock(&job->panic_lock);
    if (job->panic_task < 0 || i < job->panic_task) {
        free(job->panic.msg);
        job->panic_task = i;
        job->panic.loc = trap.loc;
        job->panic.msg = trap.msg;
        job->panic.panicked = 1;
    } else {
        free(trap.msg);
    }
    pthread_mutex_unlock(&job->panic_lock);
}

static void run_range(struct job *job, int64_t lo, int64_t hi);

static void range_task_run(brt_task *t)
{
    struct range_task *rt = (struct range_task *)t;
    run_range(rt->job, rt->lo, rt->hi);
}

static void run_range(struct job *job, int64_t lo, int64_t hi)
{
    if (hi - lo == 1) {
        run_one(job, lo);
        return;
    }
    int64_t mid = lo + (hi - lo) / 2;
    struct range_task right = { { range_task_run, 0 }, job, mid, hi };
    bool spawned = brt_task_spawn(&right.t);
    run_range(job, lo, mid);
    brt_task_join(&right.t, spawned);
}

int64_t brt_pool_run(int64_t ntasks, void (*task)(void *arg, int64_t t), void *arg, brt_trap *first_panic)
{
    if (ntasks <= 0)
        return -1;
    struct job job;
    job.task = task;
    job.arg = arg;
    pthread_mutex_init(&job.panic_lock, NULL);
    job.panic_task = -1;
    job.panic.panicked = 0;
    job.panic.loc = NULL;
    job.panic.msg = NULL;
    if (ntasks > 1)
        brt_pool_rouse();
    run_range(&job, 0, ntasks);
    pthread_mutex_destroy(&job.panic_lock);
    if (job.panic_task >= 0) {
        if (first_panic)
            *first_panic = job.panic;
        else
            free(job.panic.msg);
    }
    return job.panic_task;
}
