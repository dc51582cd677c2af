/*
 * cuda.c: the CUDA device: the driver API (libcuda.so.1) and NVRTC, both
 * loaded with dlopen, so neither a program nor brine itself needs CUDA to
 * build or to run (SPEC 9). The few types and entry points used are
 * declared here by hand (cuda.h is not needed either).
 *
 * Compiling: NVRTC with the options of BRT_NVRTC_OPTIONS (exact IEEE
 * arithmetic, --fmad=false) for the device's own architecture (sm_XY), to a
 * CUBIN loaded with cuModuleLoadData. CUBINs are cached on disk under
 * $XDG_CACHE_HOME/brine, keyed by a hash of the source, the architecture,
 * the device's name, the NVRTC version and the options; the caller keeps
 * loaded modules in memory.
 */
#define _GNU_SOURCE
#include "gpu_internal.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int CUresult;
typedef int CUdevice;
typedef void *CUcontext;
typedef void *CUmodule;
typedef void *CUfunction;
typedef void *CUstream;
typedef unsigned long long CUdeviceptr;
typedef void *nvrtcProgram;
typedef int nvrtcResult;

#define CU_ATTR_CC_MAJOR 75
#define CU_ATTR_CC_MINOR 76

static struct {
    CUresult (*Init)(unsigned);
    CUresult (*DeviceGetCount)(int *);
    CUresult (*DeviceGet)(CUdevice *, int);
    CUresult (*DeviceGetName)(char *, int, CUdevice);
    CUresult (*DeviceGetAttribute)(int *, int, CUdevice);
    CUresult (*DevicePrimaryCtxRetain)(CUcontext *, CUdevice);
    CUresult (*CtxSetCurrent)(CUcontext);
    CUresult (*CtxSynchronize)(void);
    CUresult (*ModuleLoadData)(CUmodule *, const void *);
    CUresult (*ModuleGetFunction)(CUfunction *, CUmodule, const char *);
    CUresult (*MemAlloc)(CUdeviceptr *, size_t);
    CUresult (*MemFree)(CUdeviceptr);
    CUresult (*MemcpyHtoD)(CUdeviceptr, const void *, size_t);
    CUresult (*MemcpyDtoH)(void *, CUdeviceptr, size_t);
    CUresult (*MemsetD8)(CUdeviceptr, unsigned char, size_t);
    CUresult (*LaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, CUstream,
                             void **, void **);
    CUresult (*GetErrorString)(CUresult, const char **);
} cu;

static struct {
    nvrtcResult (*Version)(int *, int *);
    nvrtcResult (*CreateProgram)(nvrtcProgram *, const char *, const char *, int, const char *const *,
                                 const char *const *);
    nvrtcResult (*CompileProgram)(nvrtcProgram, int, const char *const *);
    nvrtcResult (*GetProgramLogSize)(nvrtcProgram, size_t *);
    nvrtcResult (*GetProgramLog)(nvrtcProgram, char *);
    nvrtcResult (*GetCUBINSize)(nvrtcProgram, size_t *);
    nvrtcResult (*GetCUBIN)(nvrtcProgram, char *);
    nvrtcResult (*DestroyProgram)(nvrtcProgram *);
    const char *(*GetErrorString)(nvrtcResult);
} nv;

static CUcontext ctx;
static char arch[32];
static char nvrtc_version[32];
static gpu_device the_dev;

static bool sym(void *lib, const char *name, void *slot)
{
    void *p = dlsym(lib, name);
    memcpy(slot, &p, sizeof p);
    return p != NULL;
}

/* libnvrtc: the usual names, then the default toolkit location. */
void *brt_gpu_open_nvrtc(void)
{
    static const char *const names[] = {
        "libnvrtc.so", "libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so.11.2",
        "/usr/local/cuda/lib64/libnvrtc.so", "/usr/local/cuda/lib64/libnvrtc.so.13",
        "/usr/local/cuda/lib64/libnvrtc.so.12",
    };
    const char *env = getenv("BRINE_NVRTC");
    if (env && *env) {
        void *h = dlopen(env, RTLD_NOW | RTLD_LOCAL);
        if (h)
            return h;
    }
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        void *h = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
        if (h)
            return h;
    }
    return NULL;
}

static bool cu_ok(CUresult r) { return r == 0; }

static bool dev_alloc(gpu_ptr *p, size_t bytes)
{
    CUdeviceptr d = 0;
    if (!cu_ok(cu.MemAlloc(&d, bytes ? bytes : 8)))
        return false;
    *p = d;
    return true;
}
static void dev_free(gpu_ptr p) { cu.MemFree((CUdeviceptr)p); }
static bool dev_h2d(gpu_ptr d, const void *s, size_t n) { return cu_ok(cu.MemcpyHtoD((CUdeviceptr)d, s, n)); }
static bool dev_d2h(void *d, gpu_ptr s, size_t n) { return cu_ok(cu.MemcpyDtoH(d, (CUdeviceptr)s, n)); }
static bool dev_zero(gpu_ptr d, size_t n) { return cu_ok(cu.MemsetD8((CUdeviceptr)d, 0, n)); }
static bool dev_sync(void) { return cu_ok(cu.CtxSynchronize()); }
/* The context is per thread: whatever thread reaches the device binds it. */
static void dev_bind(void) { cu.CtxSetCurrent(ctx); }

static bool launch(void *fn, int64_t grid, void **params)
{
    if (grid <= 0)
        return true;
    if (grid > 0x7fffffff)
        return false;
    return cu_ok(cu.LaunchKernel((CUfunction)fn, (unsigned)grid, 1, 1, BRT_GPU_BLOCK, 1, 1, 0, NULL, params, NULL));
}

static bool dev_leaves(const gpu_module *m, int64_t grid, gpu_ptr slots, int64_t nleaves, gpu_ptr vals, gpu_ptr has,
                       gpu_ptr flag)
{
    long long nl = nleaves;
    void *params[] = {&slots, &nl, &vals, &has, &flag};
    return launch(m->leaves, grid, params);
}

static bool dev_combine(const gpu_module *m, int64_t grid, int64_t count, gpu_ptr in, gpu_ptr inh, gpu_ptr vals,
                        gpu_ptr has, gpu_ptr flag)
{
    long long c = count;
    void *params[] = {&c, &in, &inh, &vals, &has, &flag};
    return launch(m->combine, grid, params);
}

static bool dev_aux(const gpu_module *m, enum gpu_aux_kernel which, int64_t grid, const gpu_aux_args *a)
{
    long long nl = a->nleaves, c = a->count;
    gpu_ptr slots = a->slots, vals = a->vals, has = a->has, offs = a->offs, out = a->out, flag = a->flag;
    void *params[] = {&slots, &nl, &c, &vals, &has, &offs, &out, &flag};
    return m->aux[which] && launch(m->aux[which], grid, params);
}

static char *xstrdup_printf(const char *fmt, const char *a, const char *b)
{
    size_t n = strlen(fmt) + (a ? strlen(a) : 0) + (b ? strlen(b) : 0) + 1;
    char *s = brt_xmalloc(n);
    snprintf(s, n, fmt, a ? a : "", b ? b : "");
    return s;
}

/* NVRTC: source -> CUBIN for this device (malloc'ed). */
static void *nvrtc_compile(const char *src, size_t len, size_t *outlen, char **why)
{
    char *copy = brt_xmalloc(len + 1);
    memcpy(copy, src, len);
    copy[len] = 0;
    nvrtcProgram prog = NULL;
    nvrtcResult rc = nv.CreateProgram(&prog, copy, "brine_kernel.cu", 0, NULL, NULL);
    free(copy);
    if (rc != 0) {
        *why = xstrdup_printf("nvrtcCreateProgram: %s%s", nv.GetErrorString(rc), NULL);
        return NULL;
    }
    char archopt[64];
    snprintf(archopt, sizeof archopt, "--gpu-architecture=%s", arch);
    const char *opts[] = {archopt, BRT_NVRTC_OPTIONS};
    rc = nv.CompileProgram(prog, 1 + BRT_NVRTC_NOPTIONS, opts);
    if (rc != 0) {
        size_t ln = 0;
        nv.GetProgramLogSize(prog, &ln);
        char *log = brt_xmalloc(ln + 1);
        log[0] = 0;
        if (ln)
            nv.GetProgramLog(prog, log);
        *why = xstrdup_printf("NVRTC: %s", log, NULL);
        free(log);
        nv.DestroyProgram(&prog);
        return NULL;
    }
    size_t n = 0;
    void *bin = NULL;
    if (nv.GetCUBINSize(prog, &n) == 0 && n) {
        bin = brt_xmalloc(n);
        if (nv.GetCUBIN(prog, bin) != 0) {
            free(bin);
            bin = NULL;
        }
    }
    nv.DestroyProgram(&prog);
    if (!bin)
        *why = xstrdup_printf("NVRTC produced no CUBIN for %s%s", arch, NULL);
    *outlen = n;
    return bin;
}

static bool dev_load(const char *src, size_t len, gpu_module *m, char **why)
{
    /* the disk cache */
    static const char *const optv[] = {BRT_NVRTC_OPTIONS};
    char opts[256] = "";
    for (int i = 0; i < BRT_NVRTC_NOPTIONS; i++) {
        strncat(opts, optv[i], sizeof opts - strlen(opts) - 2);
        strcat(opts, " ");
    }
    const char *parts[] = {src, arch, the_dev.name, nvrtc_version, opts};
    size_t lens[] = {len, strlen(arch), strlen(the_dev.name), strlen(nvrtc_version), strlen(opts)};
    char key[33];
    brt_gpu_hash(parts, lens, 5, key);
    const char *dir = brt_gpu_cache_dir();
    char path[4200] = "";
    size_t binlen = 0;
    void *bin = NULL;
    if (dir) {
        snprintf(path, sizeof path, "%s/%s.cubin", dir, key);
        bin = brt_gpu_read_file(path, &binlen);
    }
    CUmodule mod = NULL;
    if (bin && !cu_ok(cu.ModuleLoadData(&mod, bin))) {
        free(bin); /* a stale or damaged file: compile again */
        bin = NULL;
    }
    if (!mod) {
        bin = nvrtc_compile(src, len, &binlen, why);
        if (!bin)
            return false;
        CUresult r = cu.ModuleLoadData(&mod, bin);
        if (!cu_ok(r)) {
            const char *e = NULL;
            cu.GetErrorString(r, &e);
            *why = xstrdup_printf("cuModuleLoadData: %s%s", e ? e : "error", NULL);
            free(bin);
            return false;
        }
        if (path[0])
            brt_gpu_write_file(path, bin, binlen);
    }
    free(bin);
    CUfunction fl = NULL, fc = NULL;
    if (!cu_ok(cu.ModuleGetFunction(&fl, mod, "brk_leaves")) || !cu_ok(cu.ModuleGetFunction(&fc, mod, "brk_combine"))) {
        *why = xstrdup_printf("the module has no brk_leaves/brk_combine%s%s", NULL, NULL);
        return false;
    }
    m->handle = mod;
    m->leaves = fl;
    m->combine = fc;
    /* a scan's or keyed reduction's module has more (absent: NULL) */
    for (int i = 0; i < GPU_NAUX; i++) {
        CUfunction f = NULL;
        m->aux[i] = cu_ok(cu.ModuleGetFunction(&f, mod, brt_gpu_aux_names[i])) ? f : NULL;
    }
    return true;
}

const gpu_device *brt_gpu_cuda_open(char *why, size_t whylen)
{
    void *lc = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lc) {
        snprintf(why, whylen, "libcuda.so.1 not found");
        return NULL;
    }
    bool ok = sym(lc, "cuInit", &cu.Init) && sym(lc, "cuDeviceGetCount", &cu.DeviceGetCount) &&
              sym(lc, "cuDeviceGet", &cu.DeviceGet) && sym(lc, "cuDeviceGetName", &cu.DeviceGetName) &&
              sym(lc, "cuDeviceGetAttribute", &cu.DeviceGetAttribute) &&
              sym(lc, "cuDevicePrimaryCtxRetain", &cu.DevicePrimaryCtxRetain) &&
              sym(lc, "cuCtxSetCurrent", &cu.CtxSetCurrent) && sym(lc, "cuCtxSynchronize", &cu.CtxSynchronize) &&
              sym(lc, "cuModuleLoadData", &cu.ModuleLoadData) &&
              sym(lc, "cuModuleGetFunction", &cu.ModuleGetFunction) && sym(lc, "cuMemAlloc_v2", &cu.MemAlloc) &&
              sym(lc, "cuMemFree_v2", &cu.MemFree) && sym(lc, "cuMemcpyHtoD_v2", &cu.MemcpyHtoD) &&
              sym(lc, "cuMemcpyDtoH_v2", &cu.MemcpyDtoH) && sym(lc, "cuMemsetD8_v2", &cu.MemsetD8) &&
              sym(lc, "cuLaunchKernel", &cu.LaunchKernel) && sym(lc, "cuGetErrorString", &cu.GetErrorString);
    if (!ok) {
        snprintf(why, whylen, "libcuda.so.1 lacks %s", "the driver API it needs");
        return NULL;
    }
    CUresult r = cu.Init(0);
    if (r != 0) {
        snprintf(why, whylen, "cuInit failed with error %d", r);
        return NULL;
    }
    int count = 0;
    if (cu.DeviceGetCount(&count) != 0 || count < 1) {
        snprintf(why, whylen, "no CUDA device");
        return NULL;
    }
    CUdevice d;
    int maj = 0, min = 0;
    if (cu.DeviceGet(&d, 0) != 0 || cu.DeviceGetName(the_dev.name, sizeof the_dev.name, d) != 0 ||
        cu.DeviceGetAttribute(&maj, CU_ATTR_CC_MAJOR, d) != 0 || cu.DeviceGetAttribute(&min, CU_ATTR_CC_MINOR, d) != 0) {
        snprintf(why, whylen, "cannot query CUDA device 0");
        return NULL;
    }
    void *ln = brt_gpu_open_nvrtc();
    if (!ln) {
        snprintf(why, whylen, "libnvrtc not found");
        return NULL;
    }
    ok = sym(ln, "nvrtcVersion", &nv.Version) && sym(ln, "nvrtcCreateProgram", &nv.CreateProgram) &&
         sym(ln, "nvrtcCompileProgram", &nv.CompileProgram) &&
         sym(ln, "nvrtcGetProgramLogSize", &nv.GetProgramLogSize) && sym(ln, "nvrtcGetProgramLog", &nv.GetProgramLog) &&
         sym(ln, "nvrtcGetCUBINSize", &nv.GetCUBINSize) && sym(ln, "nvrtcGetCUBIN", &nv.GetCUBIN) &&
         sym(ln, "nvrtcDestroyProgram", &nv.DestroyProgram) && sym(ln, "nvrtcGetErrorString", &nv.GetErrorString);
    if (!ok) {
        snprintf(why, whylen, "libnvrtc lacks the entry points it needs");
        return NULL;
    }
    int vmaj = 0, vmin = 0;
    nv.Version(&vmaj, &vmin);
    snprintf(nvrtc_version, sizeof nvrtc_version, "%d.%d", vmaj, vmin);
    snprintf(arch, sizeof arch, "sm_%d%d", maj, min);
    if (cu.DevicePrimaryCtxRetain(&ctx, d) != 0 || cu.CtxSetCurrent(ctx) != 0) {
        snprintf(why, whylen, "cannot create a CUDA context");
        return NULL;
    }
    the_dev.load = dev_load;
    the_dev.alloc = dev_alloc;
    the_dev.free = dev_free;
    the_dev.h2d = dev_h2d;
    the_dev.d2h = dev_d2h;
    the_dev.zero = dev_zero;
    the_dev.leaves = dev_leaves;
    the_dev.combine = dev_combine;
    the_dev.aux = dev_aux;
    the_dev.sync = dev_sync;
    the_dev.bind = dev_bind;
    return &the_dev;
}

