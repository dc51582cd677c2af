/*
 * paths.c: where brine's installation lives.
 *
 * The runtime, its header and the stdlib are found relative to this binary
 * (realpath of /proc/self/exe, then ../lib/brine), so the build tree
 * (build/bin/brine) and an installed tree (PREFIX/bin/brine) work alike and
 * nothing depends on the working directory.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "driver.h"

static char *xstrdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *p = xmalloc(n);
    memcpy(p, s, n);
    return p;
}

static char *path_join(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    char *p = xmalloc(la + lb + 2);
    memcpy(p, a, la);
    p[la] = '/';
    memcpy(p + la + 1, b, lb + 1);
    return p;
}

const struct brine_paths *brine_paths(void)
{
    static struct brine_paths paths;
    if (paths.exe)
        return &paths;
    /* The kernel's link already names the real file (symlinks resolved).
     * When a rebuild has replaced the binary while we run (brine test
     * spawns /proc/self/exe), it ends in " (deleted)"; the directory is
     * still the right one. */
    char buf[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
    if (n <= 0 || buf[0] != '/') {
        fprintf(stderr, "brine: internal error: cannot resolve /proc/self/exe: %s\n",
                n < 0 ? strerror(errno) : "not an absolute path");
        exit(EXIT_INTERNAL);
    }
    buf[n] = '\0';
    static const char deleted[] = " (deleted)";
    size_t dl = sizeof deleted - 1;
    if ((size_t)n > dl && strcmp(buf + n - dl, deleted) == 0)
        buf[n - dl] = '\0';
    paths.exe = xstrdup(buf);
    char *slash = strrchr(buf, '/');
    *slash = '\0'; /* buf: the bin directory */
    paths.libdir = path_join(buf, "../lib/brine");
    char norm[PATH_MAX];
    if (realpath(paths.libdir, norm))
        paths.libdir = xstrdup(norm);
    paths.incdir = path_join(paths.libdir, "include");
    paths.rtlib = path_join(paths.libdir, "libbrine_rt.a");
    paths.stdlib = path_join(paths.libdir, "stdlib");
    return &paths;
}

/* A broken installation is not the user's fault and not a compile error. */
void require_runtime(void)
{
    const struct brine_paths *p = brine_paths();
    if (access(p->rtlib, R_OK) != 0 || access(p->incdir, R_OK) != 0) {
        fprintf(stderr,
                "brine: internal error: the runtime is missing: expected %s and %s/brine_rt.h "
                "(is brine installed completely?)\n",
                p->rtlib, p->incdir);
        exit(EXIT_INTERNAL);
    }
}

