/*
 * util.c: the compiler's small shared helpers, one per job (STYLE.md, "One
 * helper per job"): the whole-file reader. Each is written once here and
 * used by every phase and by the driver.
 *
 * They are safe to call from `brine test`'s worker threads: they use
 * xmalloc/xrealloc (plain malloc that dies on out-of-memory), never the
 * arena, and keep no state of their own.
 */
#include "brine.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

/* ---- files --------------------------------------------------------------- */

char *read_file(const char *path, size_t *len_out)
{
    /* O_CLOEXEC: `brine test` spawns children from other threads meanwhile. */
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    size_t cap = 1 << 16, len = 0;
    char *buf = xmalloc(cap + 1);
    for (;;) {
        if (len == cap) {
            cap *= 2;
            buf = xrealloc(buf, cap + 1);
        }
        ssize_t got = read(fd, buf + len, cap - len);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0) {
            int e = errno;
            close(fd);
            free(buf);
            errno = e;
            return NULL;
        }
        if (got == 0)
            break;
        len += (size_t)got;
    }
    close(fd);
    buf[len] = '\0';
    *len_out = len;
    return buf;
}
