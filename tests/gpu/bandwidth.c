/*
 * bandwidth.c: the device's copy bandwidth, for device-check.sh: a 1 GiB
 * device-to-device copy (cuMemcpyDtoD), best of 10 after a warm-up, counted
 * as bytes read plus bytes written per second. libcuda.so.1 is dlopen'ed as
 * the runtime does. Prints "copy_gbps <X>"; exit 77 without a device.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

typedef int CUresult;
typedef unsigned long long CUdeviceptr;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(void)
{
    void *h = dlopen("libcuda.so.1", RTLD_NOW);
    if (!h) {
        printf("bandwidth: libcuda.so.1 not found: skipped\n");
        return 77;
    }
    CUresult (*init)(unsigned), (*devget)(int *, int), (*retain)(void **, int), (*setcur)(void *);
    CUresult (*alloc)(CUdeviceptr *, size_t), (*copy)(CUdeviceptr, CUdeviceptr, size_t), (*sync)(void);
    CUresult (*memset8)(CUdeviceptr, unsigned char, size_t);
    *(void **)&init = dlsym(h, "cuInit");
    *(void **)&devget = dlsym(h, "cuDeviceGet");
    *(void **)&retain = dlsym(h, "cuDevicePrimaryCtxRetain");
    *(void **)&setcur = dlsym(h, "cuCtxSetCurrent");
    *(void **)&alloc = dlsym(h, "cuMemAlloc_v2");
    *(void **)&copy = dlsym(h, "cuMemcpyDtoD_v2");
    *(void **)&sync = dlsym(h, "cuCtxSynchronize");
    *(void **)&memset8 = dlsym(h, "cuMemsetD8_v2");
    int dev;
    void *ctx;
    CUdeviceptr a, b;
    size_t n = (size_t)1 << 30;
    if (!init || init(0) || devget(&dev, 0) || retain(&ctx, dev) || setcur(ctx) || alloc(&a, n) || alloc(&b, n) ||
        memset8(a, 1, n) || memset8(b, 2, n) || sync()) {
        printf("bandwidth: no usable CUDA device\n");
        return 77;
    }
    double best = 1e9;
    for (int i = 0; i < 11; i++) {
        double t0 = now();
        if (copy(b, a, n) || sync()) {
            printf("bandwidth: copy failed\n");
            return 1;
        }
        double t = now() - t0;
        if (i > 0 && t < best)
            best = t;
    }
    printf("copy_gbps %.1f\n", 2.0 * (double)n / best / 1e9);
    return 0;
}
