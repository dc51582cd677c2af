/*
 * os.c: program start and end, the environment (SPEC section 8), the stack
 * guard, and os.* (the math wrappers are math.c).
 *
 * Stack guard. Every user function begins with brt_stack_check, inline in
 * brine_rt.h: one compare and branch, with no call and no TLS (tcc cannot
 * link __thread, and a pthread key costs a call). Each thread that runs
 * Brine code has a floor: the lowest address of its stack plus a safety
 * margin of 256 KiB, enough for the runtime's own calls (printing a panic,
 * formatting, libc) below the deepest user frame. For the main thread the
 * stack's extent comes from pthread_getattr_np, which glibc derives from
 * RLIMIT_STACK and the mapping below the stack; with an unlimited
 * RLIMIT_STACK the kernel keeps a 1 MiB guard gap under the stack, so the
 * margin grows by that, and the usable stack is capped at 1 GiB so that
 * runaway recursion still ends in a panic rather than in the OOM killer.
 *
 * The floors are made congruent modulo BRT_STACK_SPAN (64 MiB, a power of
 * two), so that one residue test finds a frame just below any thread's
 * floor without knowing the thread. brt_start sets the global
 * brt_stack_band to the main thread's floor minus BRT_STACK_BAND (256 KiB,
 * the margin); brt_stack_attr, with which the pool (pool.c) creates every
 * worker, maps a 64 MiB block at the address that puts the worker's floor
 * at the same residue: guard page, margin, stack. A frame is then in a
 * band when (sp - brt_stack_band) mod SPAN < BAND, and the first frame
 * past a floor always is (frames are smaller than the band: arrays live on
 * the heap). In a worker's block the only band is its margin; a main stack
 * larger than the span (ulimit -s above 64 MiB) also has harmless bands
 * every 64 MiB. The out-of-line brt_stack_check_slow tells them apart with
 * the main thread's range, two compares against globals: a frame in a band
 * and within the range goes on, any other panics. So runaway recursion ends
 * in "panic: stack overflow" at the call that would have gone too deep, on
 * the main thread and on pool workers alike, never in SIGSEGV. Only the
 * main thread and threads created with brt_stack_attr may run Brine code
 * (no other thread does), and only after brt_start.
 *
 * Per-thread caches (rt_internal.h, brt_tcache_here) ride on the same
 * layout, again without TLS: the top BRT_TCACHE_AREA bytes of a worker's
 * block are kept out of its pthread stack and hold its brt_tcache (zero, as
 * mmap leaves it: empty), found from sp by rounding down to the block; the
 * main thread's is a global, chosen when sp is in the main stack's whole
 * extent (margin and guard gap included, so runtime frames below the floor
 * still count as main).
 *
 * The heap's policy (heap_policy): glibc gives memory at the top of its heap
 * back to the system when more than 128 KiB of it is free, and serves
 * requests of 128 KiB or more (until its threshold adapts) by mmap, each
 * freed with munmap. A program that builds a new array each step (a grid of
 * rows, a temporary) then takes its pages from the kernel again every step,
 * a page fault per 4 KiB: 200 sweeps of a new 500 x 500 grid at two threads
 * took 204,000 faults and twice the one-thread time. brt_start sets both
 * thresholds once (up to 32 MiB from the heap, up to 64 MiB of free top
 * kept), unless the user set glibc's own malloc variables.
 */
#define _GNU_SOURCE
#include "rt_internal.h"

#include <math.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#define STACK_MARGIN ((uintptr_t)256 << 10)
#define GUARD_PAGE ((uintptr_t)4096)
#define KERNEL_GUARD_GAP (1u << 20)
#define STACK_CAP ((uintptr_t)1 << 30) /* with ulimit -s unlimited: runaway recursion stops at 1 GiB */

static int64_t thread_count;  /* 0 until chosen */
static enum brt_gpu_mode gpu_mode = BRT_GPU_AUTO;
static int saved_argc;
static char **saved_argv;
static brt_arr *args_cache;

/* ---- stack guard ------------------------------------------------------------- */

/* Read by every thread on every call (the stack check, brt_tcache_here),
 * written once by brt_start: a cache line of their own, and the main
 * thread's brt_tcache (written on every small array and every sampled
 * fold) on another. Sharing one, a pool worker's reads missed every time
 * the main thread wrote (measured: nested par at 2 threads ran at half
 * speed). */
_Alignas(64) uintptr_t brt_stack_band; /* every floor is this + BRT_STACK_BAND, mod the span */
static uintptr_t main_lo, main_hi; /* main thread: sp in [main_lo, main_hi) is fine */

uintptr_t brt_tc_main_lo, brt_tc_main_hi; /* the main stack's whole extent; 0, 0 before brt_start */
uintptr_t brt_tc_block;                   /* a worker's block base, mod the span */
brt_tcache brt_tc_main = { .slot = 1 }; /* aligned to a cache line; slot: value.c */

/* The main thread's stack as [lo, hi), with the margin already added. */
static void main_stack(uintptr_t *lo, uintptr_t *hi)
{
    uintptr_t sp = (uintptr_t)__builtin_frame_address(0);
    struct rlimit rl;
    bool unlimited = getrlimit(RLIMIT_STACK, &rl) == 0 && rl.rlim_cur == RLIM_INFINITY;
    pthread_attr_t attr;
    void *addr;
    size_t size;
    if (pthread_getattr_np(pthread_self(), &attr) == 0) {
        int ok = pthread_attr_getstack(&attr, &addr, &size);
        pthread_attr_destroy(&attr);
        if (ok == 0 && size > 2 * STACK_MARGIN) {
            uintptr_t base = (uintptr_t)addr;
            *hi = base + size;
            *lo = base + STACK_MARGIN + (unlimited ? KERNEL_GUARD_GAP : 0);
            if (*hi - *lo > STACK_CAP)
                *lo = *hi - STACK_CAP;
            if (sp >= *lo && sp < *hi)
                return;
        }
    }
    /* no usable answer: assume the rlimit (or 8 MiB) below the current frame */
    size_t lim = (getrlimit(RLIMIT_STACK, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY) ? rl.rlim_cur : (8u << 20);
    if (lim < 4 * STACK_MARGIN)
        lim = 4 * STACK_MARGIN;
    *hi = sp + 4096;
    *lo = sp - lim + 2 * STACK_MARGIN;
}

static void main_stack_enter(void)
{
    main_stack(&main_lo, &main_hi);
    brt_stack_band = main_lo - BRT_STACK_BAND;
    uintptr_t floor = (brt_stack_band + BRT_STACK_BAND) & (BRT_STACK_SPAN - 1);
    brt_tc_block = (floor - GUARD_PAGE - STACK_MARGIN) & (BRT_STACK_SPAN - 1);
    brt_tc_main_lo = main_lo - 2 * STACK_MARGIN - KERNEL_GUARD_GAP;
    brt_tc_main_hi = main_hi;
}

/* A stack block of BRT_STACK_SPAN bytes (64 MiB: room for deep recursion
 * inside par elements): its lowest page is a guard page (glibc gives a stack
 * it did not allocate none), and its floor, past the guard page and the
 * margin, is congruent to the main thread's floor modulo the span. Its band
 * is then the margin itself, the only one in the block. Its top
 * BRT_TCACHE_AREA bytes are the thread's brt_tcache, not stack. */
bool brt_stack_attr(pthread_attr_t *attr)
{
    uintptr_t span = BRT_STACK_SPAN;
    void *m = mmap(NULL, 2 * span, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
    if (m == MAP_FAILED)
        return false;
    uintptr_t r = (uintptr_t)m;
    uintptr_t base = r + ((brt_tc_block - r) & (span - 1)); /* in [r, r + span) */
    if (base > r)
        munmap(m, base - r);
    munmap((void *)(base + span), r + span - base);
    if (mprotect((void *)base, GUARD_PAGE, PROT_NONE) != 0 || pthread_attr_init(attr) != 0) {
        munmap((void *)base, span);
        return false;
    }
    pthread_attr_setstack(attr, (void *)(base + GUARD_PAGE), span - GUARD_PAGE - BRT_TCACHE_AREA);
    return true;
}

void brt_stack_attr_destroy(pthread_attr_t *attr, bool unused)
{
    void *lo;
    size_t size;
    if (unused && pthread_attr_getstack(attr, &lo, &size) == 0)
        munmap((char *)lo - GUARD_PAGE, size + GUARD_PAGE + BRT_TCACHE_AREA);
    pthread_attr_destroy(attr);
}

/* A frame in a band: within the main thread's range it is one of the
 * harmless bands of a main stack larger than the span; anywhere else it is
 * the main thread just below its floor or a worker in the margin at the
 * bottom of its block. */
void brt_stack_check_slow(uintptr_t sp, const brt_loc *loc)
{
    if (sp >= main_lo && sp < main_hi)
        return;
    brt_panic(loc, BRT_STACK);
}

/* ---- start and end ----------------------------------------------------------- */

static int64_t cpus_allowed(void)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) == 0) {
        int n = CPU_COUNT(&set);
        if (n > 0)
            return n;
    }
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? n : 1;
}

BRT_NORETURN void brt_bad_env(const char *what, const char *value)
{
    fprintf(stderr, "brine: %s, got '%s'\n", what, value);
    exit(2);
}

/* BRINE_THREADS: decimal digits only, 1..4096 (leading zeros are fine). */
static int64_t parse_threads(const char *v)
{
    int64_t n = 0;
    if (!*v)
        return -1;
    for (const char *p = v; *p; p++) {
        if (*p < '0' || *p > '9')
            return -1;
        n = n * 10 + (*p - '0');
        if (n > 4096)
            return -1;
    }
    return n >= 1 ? n : -1;
}

/* glibc's heap thresholds fixed (the design comment above); a user's
 * GLIBC_TUNABLES or MALLOC_*_ variables win */
static void heap_policy(void)
{
#ifdef __GLIBC__
    if (getenv("GLIBC_TUNABLES") || getenv("MALLOC_TRIM_THRESHOLD_") || getenv("MALLOC_MMAP_THRESHOLD_") ||
        getenv("MALLOC_TOP_PAD_"))
        return;
    mallopt(M_MMAP_THRESHOLD, 32 << 20);
    mallopt(M_TRIM_THRESHOLD, 64 << 20);
#endif
}

void brt_start(int argc, char **argv)
{
    main_stack_enter();
    heap_policy();
    saved_argc = argc;
    saved_argv = argv;
    const char *t = getenv("BRINE_THREADS");
    if (t) {
        thread_count = parse_threads(t);
        if (thread_count < 0)
            brt_bad_env("BRINE_THREADS must be a whole number from 1 to 4096", t);
    } else {
        thread_count = cpus_allowed();
        if (thread_count > 4096)
            thread_count = 4096;
    }
    const char *g = getenv("BRINE_GPU");
    if (g) {
        if (strcmp(g, "off") == 0)
            gpu_mode = BRT_GPU_OFF;
        else if (strcmp(g, "on") == 0)
            gpu_mode = BRT_GPU_ON, brt_gpu_forced = true;
        else if (strcmp(g, "auto") == 0)
            gpu_mode = BRT_GPU_AUTO;
        else
            brt_bad_env("BRINE_GPU must be one of off, on, auto", g);
    }
    brt_backtrace_env();
    brt_frames_init(&brt_tc_main, main_hi - main_lo + 2 * STACK_MARGIN + KERNEL_GUARD_GAP);
}

int brt_finish(void)
{
    brt_flush();
    return 0;
}

bool brt_gpu_forced;

enum brt_gpu_mode brt_gpu_mode(void)
{
    return gpu_mode;
}

/* ---- os ------------------------------------------------------------------------ */

int64_t brt_os_thread_count(void)
{
    if (thread_count == 0) /* before brt_start (unit tests): the default */
        thread_count = cpus_allowed() > 4096 ? 4096 : cpus_allowed();
    return thread_count;
}

brt_arr *brt_os_args(void)
{
    if (!args_cache) {
        args_cache = brt_arr_new(&brt_t_str, 0);
        for (int i = 1; i < saved_argc; i++) {
            brt_str *s = brt_str_new(saved_argv[i], (int64_t)strlen(saved_argv[i]));
            args_cache = brt_arr_push(args_cache, &s);
        }
    }
    brt_retain(args_cache);
    return args_cache;
}

double brt_os_clock(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

BRT_NORETURN void brt_os_exit(int64_t code)
{
    brt_flush();
    exit((int)(code & 255));
}

brt_str *brt_os_getenv(brt_str *name)
{
    const char *v = getenv(name->data);
    if (!v)
        return &brt_empty_str;
    return brt_str_new(v, (int64_t)strlen(v));
}
