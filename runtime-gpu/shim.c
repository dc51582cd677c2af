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
 *
 * The compiler is spawned without a shell (run_to_log, the runtime's one
 * spawner): $CC is split into words on spaces and tabs as brine --release
 * splits it, and no file name is ever re-parsed.
 */
#define _GNU_SOURCE
#include "gpu_internal.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

typedef void (*leaves_fn)(const void *, long long, void *, unsigned char *, int *);
typedef void (*combine_fn)(long long, const void *, const unsigned char *, void *, unsigned char *, int *);
typedef void (*block_fn)(long long);
typedef void (*aux_fn)(const void *, long long, long long, void *, unsigned char *, long long *, void *, int *);

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

static bool sh_aux(const gpu_module *m, enum gpu_aux_kernel which, int64_t grid, const gpu_aux_args *a)
{
    const shim_mod *sm = m->handle;
    aux_fn f = (aux_fn)m->aux[which];
    if (!f)
        return false;
    for (int64_t b = 0; b < grid; b++) {
        sm->block(b);
        f((const void *)(uintptr_t)a->slots, a->nleaves, a->count, (void *)(uintptr_t)a->vals,
          (unsigned char *)(uintptr_t)a->has, (long long *)(uintptr_t)a->offs, (void *)(uintptr_t)a->out,
          (int *)(uintptr_t)a->flag);
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

/* Appends the words of s (split on spaces and tabs, no quoting: "ccache
 * gcc", "gcc -m64") to argv[*n], at most max in all; malloc'ed copies. */
static void split_words(const char *s, char **argv, int *n, int max)
{
    while (*s) {
        while (*s == ' ' || *s == '\t')
            s++;
        if (!*s)
            break;
        const char *start = s;
        while (*s && *s != ' ' && *s != '\t')
            s++;
        if (*n < max) {
            size_t k = (size_t)(s - start);
            char *w = brt_xmalloc(k + 1);
            memcpy(w, start, k);
            w[k] = 0;
            argv[(*n)++] = w;
        }
    }
}

/* Runs argv (argv[0] looked up on PATH) with stdin from /dev/null and
 * stdout and stderr into the file log, and waits for it. Returns its exit
 * status, -1 when it was killed, or -2 with *err set when it could not
 * start. */
static int run_to_log(char *const *argv, const char *log, int *err)
{
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 1, log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_adddup2(&fa, 1, 2);
    pid_t pid;
    *err = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    if (*err != 0)
        return -2;
    int status;
    while (waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR) {
            *err = errno;
            return -2;
        }
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
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
        enum { MAXWORDS = 64 };
        char *argv[MAXWORDS + 16];
        int n = 0;
        split_words(cc, argv, &n, MAXWORDS);
        if (n == 0)
            split_words("cc", argv, &n, MAXWORDS);
        split_words(flags, argv, &n, MAXWORDS + 8);
        int nowned = n; /* the words are malloc'ed, the rest is not */
        argv[n++] = "-o";
        argv[n++] = part;
        argv[n++] = c;
        argv[n++] = "-lm";
        argv[n] = NULL;
        int err = 0;
        int rc = run_to_log(argv, log, &err);
        if (rc == -2) {
            const char *e = strerror(err);
            size_t wn = strlen(argv[0]) + strlen(e) + 64;
            *why = brt_xmalloc(wn);
            snprintf(*why, wn, "cannot run the C compiler '%s': %s", argv[0], e);
        }
        for (int i = 0; i < nowned; i++)
            free(argv[i]);
        if (rc == -2) {
            unlink(log);
            return false; /* the .c stays for reading */
        }
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
    for (int i = 0; i < GPU_NAUX; i++) /* a scan's or keyed reduction's module only */
        m->aux[i] = dlsym(h, brt_gpu_aux_names[i]);
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
    shim_dev.aux = sh_aux;
    shim_dev.sync = sh_sync;
    shim_dev.bind = sh_bind;
    return &shim_dev;
}
