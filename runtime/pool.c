/*
 * pool.c: the pthread pool that runs par work (SPEC sections 5.5 and 8).
 *
 * One job at a time: brt_pool_run(ntasks, task, arg) publishes a job, the
 * calling thread and the workers take task indices from one atomic counter,
 * and the caller returns when every task has finished. Who runs a task never
 * matters: each task writes its result to its own slot, and the caller
 * combines the slots in a fixed order (reduce.c), so the bits depend on the
 * element count alone.
 *
 * Nesting: a par inside a task (an element expression that calls a function
 * using par) finds a job already active and runs its tasks on the calling
 * thread, in order. That can never deadlock, and gives the same bits.
 *
 * Waiting: a worker spins briefly for the next job (a spin hand-off costs
 * about 0.1 us, a condvar wake about 45 us on small VMs), then sleeps on a
 * condition variable, so an idle pool burns no CPU. Spins yield the CPU, so
 * BRINE_THREADS=64 on 2 cores still makes progress.
 *
 * Panics: on the pool a panic inside a task is trapped (panic.c longjmps to
 * the trap this file installs), the task stops, and brt_pool_run reports the
 * panic of the lowest-numbered task that panicked; the caller decides what
 * SPEC 5.3 makes of it. Run inline (nested, or one thread), tasks are not
 * trapped: the first panic in task order simply propagates. No __thread:
 * tcc cannot link TLS, so the per-thread trap pointer lives behind a
 * pthread key (panic.c).
 */
#include "rt_internal.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#define SPIN_ROUNDS 4000        /* polls before a worker sleeps */

struct job {
    void (*task)(void *arg, int64_t t);
    void *arg;
    int64_t ntasks;
    atomic_int_fast64_t next;   /* the next task index to take */
    atomic_int_fast64_t done;   /* tasks finished */
    pthread_mutex_t panic_lock;
    int64_t panic_task;         /* lowest task that panicked, or -1 */
    brt_trap panic;             /* its panic (loc, msg) */
};

static struct {
    pthread_once_t once;
    int nthreads;                 /* workers + the caller */
    pthread_mutex_t lock;
    pthread_cond_t wake;
    atomic_uint_fast64_t generation; /* bumped for every job */
    atomic_int sleepers;
    struct job *_Atomic current;
    atomic_int active;            /* a job is running: nested calls run inline */
    atomic_int busy;              /* workers that may be looking at current */
    pthread_mutex_t run_lock;     /* one top-level job at a time */
} pool = { .once = PTHREAD_ONCE_INIT, .lock = PTHREAD_MUTEX_INITIALIZER,
           .wake = PTHREAD_COND_INITIALIZER, .run_lock = PTHREAD_MUTEX_INITIALIZER };

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

/* Takes and runs tasks of job until none are left. */
static void work_on(struct job *job)
{
    for (;;) {
        int64_t t = atomic_fetch_add_explicit(&job->next, 1, memory_order_relaxed);
        if (t >= job->ntasks)
            return;
        brt_trap trap;
        trap.panicked = 0;
        trap.msg = NULL;
        brt_trap *outer = brt_trap_get();
        brt_trap_set(&trap);
        if (setjmp(trap.jb) == 0)
            job->task(job->arg, t);
        brt_trap_set(outer);
        if (trap.panicked) {
            pthread_mutex_lock(&job->panic_lock);
            if (job->panic_task < 0 || t < job->panic_task) {
                free(job->panic.msg);
                job->panic_task = t;
                job->panic.loc = trap.loc;
                job->panic.msg = trap.msg;
                job->panic.panicked = 1;
            } else {
                free(trap.msg);
            }
            pthread_mutex_unlock(&job->panic_lock);
        }
        atomic_fetch_add_explicit(&job->done, 1, memory_order_release);
    }
}

static void *worker_main(void *unused)
{
    /* 0, not the current generation: a worker that starts after the first
     * job was published still joins it (the pool starts before any job). */
    uint64_t seen = 0;
    for (;;) {
        uint64_t gen;
        int spins = 0;
        while ((gen = atomic_load_explicit(&pool.generation, memory_order_acquire)) == seen) {
            if (++spins < SPIN_ROUNDS) {
                cpu_relax();
                if ((spins & 63) == 0)
                    sched_yield();
                continue;
            }
            pthread_mutex_lock(&pool.lock);
            atomic_fetch_add(&pool.sleepers, 1);
            while (atomic_load(&pool.generation) == seen)
                pthread_cond_wait(&pool.wake, &pool.lock);
            atomic_fetch_sub(&pool.sleepers, 1);
            pthread_mutex_unlock(&pool.lock);
            spins = 0;
        }
        seen = gen;
        /* busy is raised before current is read, and the caller clears
         * current before it waits for busy to drop (both seq_cst), so a job
         * (on the caller's stack) is never touched after brt_pool_run returns. */
        atomic_fetch_add(&pool.busy, 1);
        struct job *job = atomic_load(&pool.current);
        if (job)
            work_on(job);
        atomic_fetch_sub(&pool.busy, 1);
    }
    return NULL;
}

static void pool_start(void)
{
    pool.nthreads = (int)brt_os_thread_count();
    for (int i = 1; i < pool.nthreads; i++) {
        pthread_t th;
        pthread_attr_t attr;
        bool ok = brt_stack_attr(&attr);
        if (ok) {
            ok = pthread_create(&th, &attr, worker_main, NULL) == 0;
            brt_stack_attr_destroy(&attr, !ok);
        }
        if (!ok) {
            pool.nthreads = i; /* run with the threads we got */
            break;
        }
        pthread_detach(th);
    }
}

int brt_pool_threads(void)
{
    pthread_once(&pool.once, pool_start);
    return pool.nthreads;
}

bool brt_pool_nested(void)
{
    return atomic_load_explicit(&pool.active, memory_order_acquire) != 0;
}

int64_t brt_pool_run(int64_t ntasks, void (*task)(void *arg, int64_t t), void *arg, brt_trap *first_panic)
{
    if (ntasks <= 0)
        return -1;
    if (brt_pool_threads() == 1 || brt_pool_nested()) {
        /* On the calling thread, in order; panics pass straight through to
         * whatever trap (or none) is already installed. */
        for (int64_t t = 0; t < ntasks; t++)
            task(arg, t);
        return -1;
    }
    pthread_mutex_lock(&pool.run_lock);
    struct job job;
    job.task = task;
    job.arg = arg;
    job.ntasks = ntasks;
    atomic_init(&job.next, 0);
    atomic_init(&job.done, 0);
    pthread_mutex_init(&job.panic_lock, NULL);
    job.panic_task = -1;
    job.panic.panicked = 0;
    job.panic.loc = NULL;
    job.panic.msg = NULL;
    atomic_store(&pool.active, 1);
    atomic_store_explicit(&pool.current, &job, memory_order_release);
    pthread_mutex_lock(&pool.lock);
    atomic_fetch_add_explicit(&pool.generation, 1, memory_order_release);
    if (atomic_load(&pool.sleepers) > 0)
        pthread_cond_broadcast(&pool.wake);
    pthread_mutex_unlock(&pool.lock);

    work_on(&job);
    int spins = 0;
    while (atomic_load_explicit(&job.done, memory_order_acquire) < ntasks) {
        cpu_relax();
        if ((++spins & 63) == 0)
            sched_yield();
    }
    atomic_store(&pool.current, NULL);
    while (atomic_load(&pool.busy) > 0)
        cpu_relax();
    atomic_store(&pool.active, 0);
    pthread_mutex_unlock(&pool.run_lock);
    pthread_mutex_destroy(&job.panic_lock);
    if (job.panic_task >= 0) {
        if (first_panic)
            *first_panic = job.panic;
        else
            free(job.panic.msg);
    }
    return job.panic_task;
}
