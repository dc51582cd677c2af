/*
 * gpu_util.c: the helpers the GPU runtime's files share: a clock, the
 * on-disk cache's folder, a cache key, and whole-file reads and atomic
 * writes.
 *
 * They sit apart so that the dependencies run one way: gpu.c (the
 * dispatcher: BRINE_GPU, the cost model, the log, driving a device) uses
 * the devices through gpu_device (gpu_internal.h), and the devices, cuda.c
 * and shim.c, use only these helpers and that interface, never gpu.c. A
 * device compiles a kernel once and caches the result (a CUBIN, a shared
 * object) under brt_gpu_cache_dir(), named by brt_gpu_hash() of everything
 * the result depends on. Both devices find a module's aux kernels by the
 * names below.
 */
#define _GNU_SOURCE
#include "gpu_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

const char *const brt_gpu_aux_names[GPU_NAUX] = {
    [GPU_SCAN_LEAVES] = "brk_scan_leaves", [GPU_SCAN_LEVEL] = "brk_scan_level",
    [GPU_SCAN_ENTRIES] = "brk_scan_entries", [GPU_BY_LEAVES] = "brk_by_leaves",
    [GPU_BY_LEVEL] = "brk_by_level",
};

double brt_gpu_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

const char *brt_gpu_cache_dir(void)
{
    static char dir[4096];
    static int done;
    if (done)
        return dir[0] ? dir : NULL;
    done = 1;
    const char *x = getenv("XDG_CACHE_HOME");
    const char *h = getenv("HOME");
    int n;
    if (x && *x)
        n = snprintf(dir, sizeof dir, "%s/brine", x);
    else if (h && *h)
        n = snprintf(dir, sizeof dir, "%s/.cache/brine", h);
    else
        n = -1;
    if (n < 0 || (size_t)n >= sizeof dir) {
        dir[0] = 0;
        return NULL;
    }
    /* mkdir -p of the last two components is enough: $HOME exists */
    char parent[4096];
    snprintf(parent, sizeof parent, "%s", dir);
    char *slash = strrchr(parent, '/');
    if (slash && slash != parent) {
        *slash = 0;
        mkdir(parent, 0755);
    }
    if (mkdir(dir, 0755) != 0 && errno != EEXIST)
        dir[0] = 0;
    return dir[0] ? dir : NULL;
}

/* Two FNV-1a 64 hashes with different offsets: a cache key, not security. */
void brt_gpu_hash(const char *const *parts, const size_t *lens, int n, char out[33])
{
    uint64_t h1 = 0xcbf29ce484222325ULL, h2 = 0x84222325cbf29ce4ULL;
    for (int i = 0; i < n; i++) {
        for (size_t j = 0; j < lens[i]; j++) {
            unsigned char c = (unsigned char)parts[i][j];
            h1 = (h1 ^ c) * 0x100000001b3ULL;
            h2 = (h2 ^ c) * 0x100000001b3ULL;
            h2 ^= h2 >> 29;
        }
        h1 = (h1 ^ 0xff) * 0x100000001b3ULL; /* part separator */
        h2 = (h2 ^ 0xfe) * 0x100000001b3ULL;
    }
    snprintf(out, 33, "%016llx%016llx", (unsigned long long)h1, (unsigned long long)h2);
}

void *brt_gpu_read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *buf = NULL;
    size_t n = 0, cap = 0;
    for (;;) {
        if (n + 65536 > cap) {
            cap = cap ? 2 * cap : 1 << 17;
            char *nb = realloc(buf, cap);
            if (!nb) {
                free(buf);
                fclose(f);
                return NULL;
            }
            buf = nb;
        }
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (got == 0)
            break;
    }
    fclose(f);
    *len = n;
    return buf;
}

bool brt_gpu_write_file(const char *path, const void *data, size_t len)
{
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.%ld.tmp", path, (long)getpid());
    FILE *f = fopen(tmp, "wb");
    if (!f)
        return false;
    bool ok = fwrite(data, 1, len, f) == len;
    ok = fclose(f) == 0 && ok;
    if (ok && rename(tmp, path) == 0)
        return true;
    unlink(tmp);
    return false;
}
