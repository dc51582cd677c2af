/* run_child.h: runs a function in a child process and captures what it
 * writes to stdout and stderr and how it exits, so tests can check panic
 * messages (SPEC section 7) byte for byte. */
#ifndef RUN_CHILD_H
#define RUN_CHILD_H
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

struct child_result {
    int status; /* exit status, or 128 + signal */
    char out[4096], err[4096];
};

static void read_all(int fd, char *buf, size_t cap)
{
    size_t n = 0;
    ssize_t r;
    while (n + 1 < cap && (r = read(fd, buf + n, cap - 1 - n)) > 0)
        n += (size_t)r;
    buf[n] = 0;
}

static struct child_result run_child(void (*fn)(void *), void *arg)
{
    struct child_result res;
    int po[2], pe[2];
    fflush(NULL);
    if (pipe(po) || pipe(pe))
        abort();
    pid_t pid = fork();
    if (pid == 0) {
        dup2(po[1], 1);
        dup2(pe[1], 2);
        close(po[0]);
        close(pe[0]);
        fn(arg);
        brt_flush();
        _exit(0);
    }
    close(po[1]);
    close(pe[1]);
    /* outputs here are small: read stdout fully, then stderr */
    read_all(po[0], res.out, sizeof res.out);
    read_all(pe[0], res.err, sizeof res.err);
    close(po[0]);
    close(pe[0]);
    int st;
    waitpid(pid, &st, 0);
    res.status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    return res;
}
#endif
