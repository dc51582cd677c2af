/* bench.h: the two helpers every C workload shares: a monotonic clock and the
 * repetition count from BENCH_REPS (default 5). Each program runs its kernel once
 * untimed (warm-up), then REPS timed times, printing `seconds T` per rep and
 * `result ...` once, as the Brine and numba versions do. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

static int reps(void) {
    const char *r = getenv("BENCH_REPS");
    return r && *r ? atoi(r) : 5;
}
