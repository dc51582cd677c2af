/*
 * shim.c: the CPU shim device (BRINE_GPU_SHIM=1, a test mode; docs/gpu.md).
 *
 * The kernel text the compiler embedded, unchanged, is compiled by the
 * system C compiler ($CC, else cc) as a shared object: under #ifndef
 * __CUDACC__ its prelude turns __device__ into nothing, __shared__ into
 * static, and each BRK_THREADS phase into a loop over the block's threads,
 * the barrier between phases being the loop's end. A launch is a loop over
 * the blocks. Device memory is host memory. So everything but the CUDA
 * driver itself (the kernels' arithmetic and tree, the slots, the copies,
 * the combine passes, the flag and the CPU re-run) runs and can be compared
 * bit for bit with the CPU path on a machine without a GPU. The shared
 * objects are cached on disk like CUBINs.
 */
#define _GNU_SOURCE
#include "gpu_internal.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef void (*leaves_fn)(const void *, long long, void *, unsigned char *, int *);
typedef void (*combine_fn)(long long, const void *, const unsigned char *, void *, unsigned char *, int *);
typedef void (*block_fn)(long long);

/* handle -> its brk_shim_block */
typedef struct shim_mod {
    void *so;
    block_fn block;
} shim_mod;

static gpu_device shim_dev;

static bool sh_alloc(gpu_ptr *p, size_t bytes)
{
    void *m = malloc(bytes ? bytes : 8);
    *p = (gpu_ptr)(uintptr_t)m;
    return m != NULL;
}
static void sh_free(gpu_ptr p) { free((void *)(uintptr_t)p); }
static bool sh_h2d(gpu_ptr d, const void *s, size_t n)
{
    memcpy((void *)(uintptr_t)d, s, n);
    return true;
}
static bool sh_d2h(void *d, gpu_ptr s, size_t n)
{
    memcpy(d, (const void *)(uintptr_t)s, n);
    return true;
}
static bool sh_zero(gpu_ptr d, size_t n)
{
    memset((void *)(uintptr_t)d, 0, n);
    return true;
}
static bool sh_sync(void) { return true; }
static void sh_bind(void) {}

static bool sh_leaves(const gpu_module *m, int64_t grid, gpu_ptr slots, int64_t nleaves, gpu_ptr vals, gpu_ptr has,
                      gpu_ptr flag)
{
    const shim_mod *sm = m->handle;
    leaves_fn f = (leaves_fn)m->leaves;
    for (int64_t b = 0; b < grid; b++) {
        sm->block(b);
        f((const void *)(uintptr_t)slots, nleaves, (void *)(uintptr_t)vals, (unsigned char *)(uintptr_t)has,
          (int *)(uintptr_t)flag);
    }
    return true;
}

static bool sh_combine(const gpu_module *m, int64_t grid, int64_t count, gpu_ptr in, gpu_ptr inh, gpu_ptr vals,
                       gpu_ptr has, gpu_ptr flag)
{
    const shim_mod *sm = m->handle;
    combine_fn f = (combine_fn)m->combine;
    for (int64_t b = 0; b < grid; b++) {
        sm->block(b);
        f(count, (const void *)(uintptr_t)in, (const unsigned char *)(uintptr_t)inh, (void *)(uintptr_t)vals,
          (unsigned char *)(uintptr_t)has, (int *)(uintptr_t)flag);
    }
    return true;
}

static char *dupf(const char *fmt, const char *a)
{
    size_t n = strlen(fmt) + strlen(a) + 1;
    char *s = brt_xmalloc(n);
    snprintf(s, n, fmt, a);
    return s;
}

static bool sh_load(const char *src, size_t len, gpu_module *m, char **why)
{
    const char *cc = getenv("CC");
    if (!cc || !*cc)
        cc = "cc";
    static const char flags[] = "-std=gnu11 -O2 -ffp-contract=off -fno-fast-math -fPIC -shared";
    const char *parts[] = {src, "shim", cc, flags};
    size_t lens[] = {len, 4, strlen(cc), sizeof flags - 1};
    char key[33];
    brt_gpu_hash(parts, lens, 4, key);
    const char *dir = brt_gpu_cache_dir();
    char so[4200], c[4200], log[4200];
    bool tmp = !dir;
    if (!dir)
        dir = getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    snprintf(so, sizeof so, "%s/%s%s.shim.so", dir, key, tmp ? "-tmp" : "");
    void *h = access(so, R_OK) == 0 ? dlopen(so, RTLD_NOW | RTLD_LOCAL) : NULL;
    if (!h) {
        /* compile into a private name, then rename: concurrent runs are fine */
        snprintf(c, sizeof c, "%s/%s.%ld.c", dir, key, (long)getpid());
        snprintf(log, sizeof log, "%s/%s.%ld.log", dir, key, (long)getpid());
        char part[4300];
        snprintf(part, sizeof part, "%s.%ld", so, (long)getpid());
        if (!brt_gpu_write_file(c, src, len)) {
            *why = dupf("cannot write %s", c);
            return false;
        }
        size_t cmdn = strlen(cc) + strlen(part) + strlen(c) + strlen(log) + 128;
        char *cmd = brt_xmalloc(cmdn);
        snprintf(cmd, cmdn, "%s %s -o '%s' '%s' -lm >'%s' 2>&1", cc, flags, part, c, log);
        int rc = system(cmd);
        free(cmd);
        if (rc != 0) {
            size_t ln = 0;
            char *text = brt_gpu_read_file(log, &ln);
            char *t = brt_xmalloc(ln + 1);
            if (text)
                memcpy(t, text, ln);
            t[ln] = 0;
            free(text);
            *why = dupf("the C compiler rejected the kernel text: %s", t);
            free(t);
            unlink(log);
            unlink(part);
            return false; /* the .c stays for reading */
        }
        unlink(c);
        unlink(log);
        rename(part, so);
        h = dlopen(so, RTLD_NOW | RTLD_LOCAL);
        if (tmp)
            unlink(so);
        if (!h) {
            *why = dupf("dlopen: %s", dlerror());
            return false;
        }
    }
    shim_mod *sm = brt_xmalloc(sizeof *sm);
    sm->so = h;
    void *b = dlsym(h, "brk_shim_block");
    memcpy(&sm->block, &b, sizeof b);
    m->handle = sm;
    m->leaves = dlsym(h, "brk_leaves");
    m->combine = dlsym(h, "brk_combine");
    if (!sm->block || !m->leaves || !m->combine) {
        *why = dupf("%s lacks the kernels", so);
        return false;
    }
    return true;
}

const gpu_device *brt_gpu_shim_open(char *why, size_t whylen)
{
    (void)why;
    (void)whylen;
    snprintf(shim_dev.name, sizeof shim_dev.name, "cpu shim");
    shim_dev.load = sh_load;
    shim_dev.alloc = sh_alloc;
    shim_dev.free = sh_free;
    shim_dev.h2d = sh_h2d;
    shim_dev.d2h = sh_d2h;
    shim_dev.zero = sh_zero;
    shim_dev.leaves = sh_leaves;
    shim_dev.combine = sh_combine;
    shim_dev.sync = sh_sync;
    shim_dev.bind = sh_bind;
    return &shim_dev;
}
