/* mini_criterion.h: just enough of Criterion's API to run a test file without
 * it, for `make check-tsan`: Criterion's own sandbox cannot start under
 * ThreadSanitizer ("Could not initialize inheritable arena"). Each Test runs
 * in a forked child, as under Criterion, so tests may set BRINE_THREADS. */
#ifndef MINI_CRITERION_H
#define MINI_CRITERION_H
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

struct mini_test { const char *name; void (*fn)(void); };
static struct mini_test mini_tests[256];
static int mini_ntests;

#define Test(suite, test, ...)                                                       \
    static void suite##_##test(void);                                                \
    __attribute__((constructor)) static void mini_reg_##suite##_##test(void)         \
    {                                                                                \
        mini_tests[mini_ntests].name = #suite "::" #test;                            \
        mini_tests[mini_ntests++].fn = suite##_##test;                               \
    }                                                                                \
    static void suite##_##test(void)

#define cr_assert(cond, ...)                                                         \
    do {                                                                             \
        if (!(cond)) {                                                               \
            fprintf(stderr, "%s:%d: assertion failed: %s\n", __FILE__, __LINE__, #cond); \
            exit(1);                                                                 \
        }                                                                            \
    } while (0)
#define cr_assert_eq(a, b, ...) cr_assert((a) == (b))
#define cr_assert_str_eq(a, b, ...) cr_assert(strcmp((a), (b)) == 0)
#define cr_assert_fail(...) cr_assert(0)

int main(void)
{
    int failed = 0;
    for (int i = 0; i < mini_ntests; i++) {
        fflush(NULL);
        pid_t pid = fork();
        if (pid == 0) {
            mini_tests[i].fn();
            exit(0);
        }
        int status;
        waitpid(pid, &status, 0);
        int ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
        printf("[%s] %s\n", ok ? "PASS" : "FAIL", mini_tests[i].name);
        failed += !ok;
    }
    printf("%d passed, %d failed\n", mini_ntests - failed, failed);
    return failed != 0;
}
#endif
