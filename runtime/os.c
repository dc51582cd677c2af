/*
 * os.c: program start and end, the environment (SPEC section 8), the stack
 * guard, os.* and the math wrappers (SPEC section 11).
 *
 * Stack guard. Every user function calls brt_stack_check first. It compares
 * the address of its own frame with a limit recorded at start: the lowest
 * address of the thread's stack plus a safety margin of 256 KiB, enough for
 * the runtime's own calls (printing a panic, formatting, libc) below the
 * deepest user frame. For the main thread the stack's extent comes from
 * pthread_getattr_np, which glibc derives from RLIMIT_STACK and the mapping
 * below the stack; with an unlimited RLIMIT_STACK the kernel keeps a 1 MiB
 * guard gap under the stack, so the margin grows by that, and the usable
 * stack is capped at 1 GiB so that runaway recursion still ends in a panic
 * rather than in the OOM killer. The fast path is
 * two compares against globals (the main thread's range); any other thread
 * (pool workers) takes a slow path through a pthread key, because tcc cannot
 * link __thread. So runaway recursion ends in "panic: stack overflow" at the
 * call that would have gone too deep, never in SIGSEGV, as long as a single
 * frame is smaller than the margin (generated frames are small: arrays live
 * on the heap).
 */
#define _GNU_SOURCE
#include "rt_internal.h"

#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#define STACK_MARGIN (256u * 1024)
#define KERNEL_GUARD_GAP (1u << 20)
#define STACK_CAP ((uintptr_t)1 << 30) /* with ulimit -s unlimited: runaway recursion stops at 1 GiB */

static int64_t thread_count;  /* 0 until chosen */
static enum brt_gpu_mode gpu_mode = BRT_GPU_AUTO;
static int saved_argc;
static char **saved_argv;
static brt_arr *args_cache;

/* ---- stack guard ------------------------------------------------------------- */

static uintptr_t main_lo, main_hi; /* main thread: sp in [main_lo, main_hi) is fine */
static pthread_once_t stack_once = PTHREAD_ONCE_INIT;
static pthread_key_t stack_key;    /* other threads: their lowest safe address */

static void stack_key_make(void)
{
    if (pthread_key_create(&stack_key, free) != 0)
        abort();
}

/* The calling thread's stack as [lo, hi), with the margin already added. */
static void this_stack(bool is_main, uintptr_t *lo, uintptr_t *hi)
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
            *lo = base + STACK_MARGIN + (unlimited && is_main ? KERNEL_GUARD_GAP : 0);
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

void brt_thread_enter(void)
{
    pthread_once(&stack_once, stack_key_make);
    uintptr_t lo, hi;
    this_stack(false, &lo, &hi);
    uintptr_t *slot = pthread_getspecific(stack_key);
    if (!slot) {
        slot = brt_xmalloc(sizeof *slot);
        pthread_setspecific(stack_key, slot);
    }
    *slot = lo;
}

static pthread_t main_thread;

static void main_stack_enter(void)
{
    main_thread = pthread_self();
    this_stack(true, &main_lo, &main_hi);
}

BRT_NORETURN static void stack_overflow(const brt_loc *loc)
{
    brt_panic(loc, BRT_STACK);
}

static void stack_check_slow(uintptr_t sp, const brt_loc *loc)
{
    if (main_hi && pthread_equal(pthread_self(), main_thread))
        stack_overflow(loc); /* the main thread, past its limit */
    pthread_once(&stack_once, stack_key_make);
    uintptr_t *slot = pthread_getspecific(stack_key);
    if (!slot) {
        brt_thread_enter();
        slot = pthread_getspecific(stack_key);
    }
    if (sp < *slot)
        stack_overflow(loc);
}

void brt_stack_check(const brt_loc *loc)
{
    uintptr_t sp = (uintptr_t)__builtin_frame_address(0);
    if (BRT_LIKELY(sp >= main_lo && sp < main_hi))
        return;
    stack_check_slow(sp, loc);
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

BRT_NORETURN static void bad_env(const char *what, const char *value)
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

void brt_start(int argc, char **argv)
{
    main_stack_enter();
    saved_argc = argc;
    saved_argv = argv;
    const char *t = getenv("BRINE_THREADS");
    if (t) {
        thread_count = parse_threads(t);
        if (thread_count < 0)
            bad_env("BRINE_THREADS must be a whole number from 1 to 4096", t);
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
            bad_env("BRINE_GPU must be one of off, on, auto", g);
    }
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

/* ---- math: out of line so neither C compiler folds them its own way ---------- */

/* One definition per row of BRT_MATH (brine_math.h): brt_<name> calls libm's
 * <name>. C's round is half away from zero, as Brine's round is. */
#define BRT_MATH_ARGS_1 double x
#define BRT_MATH_ARGS_2 double x, double y
#define BRT_MATH_CALL_1 (x)
#define BRT_MATH_CALL_2 (x, y)
#define BRT_MATH_DEFINE(P, name, arity, gpu) \
    double brt_##name(BRT_MATH_ARGS_##arity) { return name BRT_MATH_CALL_##arity; }
BRT_MATH(BRT_MATH_DEFINE, _)
