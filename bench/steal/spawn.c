/* spawn.c: what one spawn + join of an empty task costs in the runtime's
 * pool (runtime/pool.c), in ns, uncontended: the other worker (BRINE_THREADS=2)
 * is kept busy by a task of its own, so every task is taken back by its
 * spawner; flat, and 16 deep. Timed in the thread's CPU time (a shared VM
 * preempts).
 * Built by bench/steal/run.py against build/lib/brine/libbrine_rt.a. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "rt_internal.h"

static void empty(brt_task *t) { (void)t; }

/* Keeps the other worker busy, so that nobody steals (uncontended). */
static _Atomic int hog_started, hog_stop;
static void hog(brt_task *t)
{
    (void)t;
    hog_started = 1;
    while (!hog_stop)
        ;
}

static double now(void) { struct timespec t; clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t); return t.tv_sec + t.tv_nsec * 1e-9; }

/* Nested: each level spawns one empty task and recurses into the other side. */
static void nest(int depth)
{
    if (depth == 0)
        return;
    brt_task t = { empty, 0 };
    bool s = brt_task_spawn(&t);
    nest(depth - 1);
    brt_task_join(&t, s);
}

int main(void)
{
    setenv("BRINE_THREADS", "2", 0);
    brt_start(0, NULL);
    brt_pool_threads();
    brt_task h = { hog, 0 };
    bool hs = brt_task_spawn(&h);
    while (!hog_started)
        ;
    int n = 20000000;
    double t0 = now();
    for (int i = 0; i < n; i++) {
        brt_task t = { empty, 0 };
        bool s = brt_task_spawn(&t);
        brt_task_join(&t, s);
    }
    double flat = (now() - t0) / n * 1e9;
    t0 = now();
    for (int i = 0; i < n / 16; i++)
        nest(16);
    double nested = (now() - t0) / n * 1e9;
    hog_stop = 1;
    brt_task_join(&h, hs);
    printf("spawn+join ns (uncontended) %.1f\n", flat);
    printf("spawn+join ns (nested 16 deep, uncontended) %.1f\n", nested);
    return 0;
}
