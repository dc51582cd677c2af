/* Program start and the environment (SPEC 8), the stack guard (deep
 * recursion ends in "panic: stack overflow", never SIGSEGV), os.*. */
#include <criterion/criterion.h>
#include <malloc.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "rt_internal.h"
#include "run_child.h"

struct env_case { const char *threads, *gpu; };

static void start_with(void *arg)
{
    const struct env_case *c = arg;
    if (c->threads) setenv("BRINE_THREADS", c->threads, 1); else unsetenv("BRINE_THREADS");
    if (c->gpu) setenv("BRINE_GPU", c->gpu, 1); else unsetenv("BRINE_GPU");
    char *argv[] = {"prog", NULL};
    brt_start(1, argv);
    brt_print_int(brt_os_thread_count());
    brt_print_end();
    _exit(brt_finish());
}

Test(start, brine_threads)
{
    struct { struct env_case c; int status; const char *out, *err; } cases[] = {
        {{"3", NULL}, 0, "3\n", ""},
        {{"1", "off"}, 0, "1\n", ""},
        {{"4096", "on"}, 0, "4096\n", ""},
        {{"007", "auto"}, 0, "7\n", ""},
        {{"0", NULL}, 2, "", "brine: BRINE_THREADS must be a whole number from 1 to 4096, got '0'\n"},
        {{"-3", NULL}, 2, "", "brine: BRINE_THREADS must be a whole number from 1 to 4096, got '-3'\n"},
        {{"abc", NULL}, 2, "", "brine: BRINE_THREADS must be a whole number from 1 to 4096, got 'abc'\n"},
        {{"", NULL}, 2, "", "brine: BRINE_THREADS must be a whole number from 1 to 4096, got ''\n"},
        {{"4097", NULL}, 2, "", "brine: BRINE_THREADS must be a whole number from 1 to 4096, got '4097'\n"},
        {{" 4", NULL}, 2, "", "brine: BRINE_THREADS must be a whole number from 1 to 4096, got ' 4'\n"},
        {{"99999999999999999999999", NULL}, 2, "",
         "brine: BRINE_THREADS must be a whole number from 1 to 4096, got '99999999999999999999999'\n"},
        {{"2", "x"}, 2, "", "brine: BRINE_GPU must be one of off, on, auto, got 'x'\n"},
        {{"2", "ON"}, 2, "", "brine: BRINE_GPU must be one of off, on, auto, got 'ON'\n"},
        {{"2", ""}, 2, "", "brine: BRINE_GPU must be one of off, on, auto, got ''\n"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct child_result r = run_child(start_with, &cases[i].c);
        cr_expect_eq(r.status, cases[i].status, "case %zu", i);
        cr_expect_str_eq(r.out, cases[i].out, "case %zu", i);
        cr_expect_str_eq(r.err, cases[i].err, "case %zu", i);
    }
    /* unset: the CPUs this process may run on, at least 1 */
    struct env_case unset = {NULL, NULL};
    struct child_result r = run_child(start_with, &unset);
    cr_expect_eq(r.status, 0);
    cr_expect_geq(atoi(r.out), 1);
}

static const brt_loc rec_loc = { "deep.br", 2, 5 };

static int64_t recurse(int64_t n)
{
    brt_stack_check(&rec_loc);
    volatile int64_t pad[4];
    pad[0] = n;
    if (n == 0)
        return 0;
    return recurse(n - 1) + pad[0] % 2; /* not a tail call */
}

static void deep(void *arg)
{
    char *argv[] = {"prog", NULL};
    brt_start(1, argv);
    brt_print_int(recurse(*(int64_t *)arg));
    brt_print_end();
    brt_finish();
}

Test(start, stack_overflow_is_a_panic)
{
    int64_t depth = 100000000; /* far beyond any default stack */
    struct child_result r = run_child(deep, &depth);
    cr_assert_eq(r.status, 101, "got status %d (139 would be SIGSEGV)", r.status);
    cr_assert_str_eq(r.err, "panic: stack overflow\n  --> deep.br:2:5\n");
}

Test(start, moderate_recursion_runs)
{
    int64_t depth = 50000;
    struct child_result r = run_child(deep, &depth);
    cr_assert_eq(r.status, 0);
    cr_assert_str_eq(r.out, "25000\n");
}

/* The guard works on threads other than main too: those created with
 * brt_stack_attr, as the pool creates its workers. */
static void *deep_thread(void *arg)
{
    recurse(*(int64_t *)arg);
    return NULL;
}

static void deep_on_thread(void *arg)
{
    char *argv[] = {"prog", NULL};
    brt_start(1, argv);
    pthread_t th;
    pthread_attr_t attr;
    if (!brt_stack_attr(&attr))
        abort();
    pthread_create(&th, &attr, deep_thread, arg);
    brt_stack_attr_destroy(&attr, false);
    pthread_join(th, NULL);
    brt_finish();
}

Test(start, stack_overflow_on_a_thread)
{
    int64_t depth = 100000000;
    struct child_result r = run_child(deep_on_thread, &depth);
    cr_assert_eq(r.status, 101, "got status %d", r.status);
    cr_assert_str_eq(r.err, "panic: stack overflow\n  --> deep.br:2:5\n");
}

static void os_stuff(void *unused)
{
    char *argv[] = {"prog", "a b", "", "c", NULL};
    unsetenv("BRINE_THREADS");
    unsetenv("BRINE_GPU");
    setenv("BRINE_TEST_VAR", "v=1", 1);
    brt_start(4, argv);
    static const brt_type T_arr_str = { BRT_ARR, &brt_t_str };
    brt_arr *args = brt_os_args();
    brt_print_val(&T_arr_str, &args);
    brt_print_end();
    brt_arr_release(args);
    brt_str *name = brt_str_new("BRINE_TEST_VAR", 14), *none = brt_str_new("BRINE_NOT_SET_X", 15);
    brt_str *v = brt_os_getenv(name), *w = brt_os_getenv(none);
    brt_print_str(v);
    brt_print_sep();
    brt_print_int(w->len);
    brt_print_end();
    double t0 = brt_os_clock(), t1 = brt_os_clock();
    brt_print_bool(t1 >= t0 && t0 > 0);
    brt_print_end();
    brt_os_exit(-2); /* & 255 = 254, after flushing */
}

Test(start, os_functions)
{
    struct child_result r = run_child(os_stuff, NULL);
    cr_assert_eq(r.status, 254);
    cr_assert_str_eq(r.out, "[\"a b\", \"\", \"c\"]\nv=1 0\ntrue\n");
    cr_assert_str_eq(r.err, "");
}

/* The heap's policy (os.c): 16 MiB of rows freed, the heap keeps its top
 * for the next ones (glibc alone gives back all but 128 KiB); a user's
 * GLIBC_TUNABLES leaves glibc's own policy. Prints the kept top in MiB. */
static void heap_kept(void *arg)
{
    if (arg) setenv("GLIBC_TUNABLES", "glibc.malloc.check=0", 1); else unsetenv("GLIBC_TUNABLES");
    unsetenv("MALLOC_TRIM_THRESHOLD_");
    unsetenv("MALLOC_MMAP_THRESHOLD_");
    unsetenv("MALLOC_TOP_PAD_");
    char *argv[] = {"prog", NULL};
    brt_start(1, argv);
    enum { N = 4096 };
    static void *rows[N];
    for (int i = 0; i < N; i++) rows[i] = malloc(4000);
    for (int i = N - 1; i >= 0; i--) free(rows[i]);
    brt_print_int((int64_t)(mallinfo2().keepcost >> 20));
    brt_print_end();
    _exit(brt_finish());
}

Test(start, heap_keeps_freed_top)
{
    struct child_result r = run_child(heap_kept, NULL);
    cr_assert_eq(r.status, 0);
    cr_expect_geq(atoi(r.out), 15, "kept %s MiB", r.out);
    r = run_child(heap_kept, "tunables");
    cr_assert_eq(r.status, 0);
    cr_expect_lt(atoi(r.out), 1, "kept %s MiB with GLIBC_TUNABLES set", r.out);
}
