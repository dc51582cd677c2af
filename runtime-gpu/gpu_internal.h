/*
 * gpu_internal.h: what the GPU runtime's files share (runtime-gpu/).
 *
 * gpu.c decides (BRINE_GPU, the cost model), logs (BRINE_GPU_LOG) and drives
 * one reduction through a device: copies, the leaves kernel, the combine
 * passes, the result. A device is a table of operations; cuda.c implements
 * it with the CUDA driver API and NVRTC, both loaded with dlopen (no link
 * dependency on CUDA), shim.c with the CPU shim (the same kernel text
 * compiled by the system C compiler and loaded with dlopen; a test mode,
 * BRINE_GPU_SHIM=1). Both devices depend only on this interface and on the
 * shared helpers of gpu_util.c (declared at the end), never on gpu.c.
 */
#ifndef BRINE_GPU_INTERNAL_H
#define BRINE_GPU_INTERNAL_H
#include "../runtime/rt_internal.h"

/* NVRTC's options, shared with tests/gpu/nvrtc_check.c. Exact IEEE
 * arithmetic: no contraction into FMA, no flush to zero, IEEE division and
 * square root, no fast math. The architecture option comes first. */
#define BRT_NVRTC_OPTIONS "--fmad=false", "--ftz=false", "--prec-div=true", "--prec-sqrt=true", "-default-device"
#define BRT_NVRTC_NOPTIONS 5

/* A module: the two kernels of one reduction (emit_cuda.c's brk_leaves and
 * brk_combine), and a scan's three more (kernel_scan.h) or a keyed
 * reduction's two (kernel_keyed.h), NULL in other modules: the "aux"
 * kernels, which all take gpu_aux_args. */
enum gpu_aux_kernel { GPU_SCAN_LEAVES, GPU_SCAN_LEVEL, GPU_SCAN_ENTRIES, GPU_BY_LEAVES, GPU_BY_LEVEL, GPU_NAUX };
/* their names in a module, by enum gpu_aux_kernel (gpu_util.c) */
extern const char *const brt_gpu_aux_names[GPU_NAUX];
typedef struct gpu_module {
    void *handle;
    void *leaves, *combine;
    void *aux[GPU_NAUX]; /* by enum gpu_aux_kernel */
} gpu_module;

typedef uint64_t gpu_ptr; /* a device address (CUdeviceptr) */

/* The parameters every aux kernel takes, in its order (kernel_scan.h,
 * kernel_keyed.h say what each means to them). */
typedef struct gpu_aux_args {
    gpu_ptr slots;
    int64_t nleaves, count;
    gpu_ptr vals, has, offs, out, flag;
} gpu_aux_args;

typedef struct gpu_device {
    char name[256];
    /* Compiles and loads src (cache: in memory by the caller, on disk here);
     * on failure returns false with a malloc'ed reason in *why. */
    bool (*load)(const char *src, size_t len, gpu_module *m, char **why);
    bool (*alloc)(gpu_ptr *p, size_t bytes);
    void (*free)(gpu_ptr p);
    bool (*h2d)(gpu_ptr dst, const void *src, size_t bytes);
    bool (*d2h)(void *dst, gpu_ptr src, size_t bytes);
    bool (*zero)(gpu_ptr dst, size_t bytes);
    /* brk_leaves<<<grid, 256>>>(slots, nleaves, vals, has, flag) */
    bool (*leaves)(const gpu_module *m, int64_t grid, gpu_ptr slots, int64_t nleaves, gpu_ptr vals, gpu_ptr has,
                   gpu_ptr flag);
    /* brk_combine<<<grid, 256>>>(count, in, inh, vals, has, flag) */
    bool (*combine)(const gpu_module *m, int64_t grid, int64_t count, gpu_ptr in, gpu_ptr inh, gpu_ptr vals,
                    gpu_ptr has, gpu_ptr flag);
    /* an aux kernel<<<grid, 256>>>(the args, in their order); false when
     * the module lacks it */
    bool (*aux)(const gpu_module *m, enum gpu_aux_kernel which, int64_t grid, const gpu_aux_args *a);
    bool (*sync)(void);
    /* Makes the device current on the calling thread. */
    void (*bind)(void);
} gpu_device;

/* Opens the device once; NULL with a reason ("libcuda.so.1 not found"). */
const gpu_device *brt_gpu_cuda_open(char *why, size_t whylen);
const gpu_device *brt_gpu_shim_open(char *why, size_t whylen);
/* dlopen of libnvrtc by its usual names (also used by the NVRTC test). */
void *brt_gpu_open_nvrtc(void);

/* The block size of the kernels: 256 threads, one leaf each
 * (runtime/reduce_shape.h, which the kernel prelude shares). */
#define BRT_GPU_BLOCK BRK_B

/* ---- gpu_util.c: helpers shared by gpu.c and the devices ---------------- */

/* $XDG_CACHE_HOME/brine (else $HOME/.cache/brine), created on demand;
 * NULL when there is none. The returned string is static. */
const char *brt_gpu_cache_dir(void);
/* A 128-bit hash of the parts, as 32 hex digits into out[33]. */
void brt_gpu_hash(const char *const *parts, const size_t *lens, int n, char out[33]);
/* Reads a whole file (malloc'ed) or NULL. */
void *brt_gpu_read_file(const char *path, size_t *len);
/* Writes a file atomically (temporary + rename); false on failure. */
bool brt_gpu_write_file(const char *path, const void *data, size_t len);
/* A monotonic clock, in milliseconds. */
double brt_gpu_now_ms(void);

#endif
