/*
 * nvrtc_check.c: compiles GPU kernels with NVRTC, exactly as the runtime
 * does (runtime-gpu/cuda.c: the same dlopen, the same options), and fails on
 * any NVRTC error or warning (a non-empty log). No GPU is needed.
 *
 *   nvrtc_check [--arch sm_90] FILE.cu...
 *
 * Each FILE.cu is what `brine build --emit-cuda` writes: one module per
 * reduction, each after a line "// ==== brine kernel ...". Prints one line per
 * module and "N kernels compiled, N failed"; exit 0 when none failed, 1 when
 * some did, 77 when libnvrtc cannot be loaded (a skip).
 */
#include "../../runtime-gpu/gpu_internal.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef void *nvrtcProgram;
typedef int (*create_fn)(nvrtcProgram *, const char *, const char *, int, const char *const *, const char *const *);
typedef int (*compile_fn)(nvrtcProgram, int, const char *const *);
typedef int (*logsize_fn)(nvrtcProgram, size_t *);
typedef int (*log_fn)(nvrtcProgram, char *);
typedef int (*size_fn)(nvrtcProgram, size_t *);
typedef int (*destroy_fn)(nvrtcProgram *);
typedef int (*version_fn)(int *, int *);

static create_fn create;
static compile_fn compile;
static logsize_fn logsize;
static log_fn getlog;
static size_fn cubinsize;
static destroy_fn destroy;

static const char MARK[] = "// ==== brine kernel ";

/* 0 ok, 1 failed */
static int check(const char *name, const char *src, const char *arch)
{
    nvrtcProgram p = NULL;
    if (create(&p, src, "brine_kernel.cu", 0, NULL, NULL) != 0) {
        printf("FAIL %s: nvrtcCreateProgram\n", name);
        return 1;
    }
    char archopt[64];
    snprintf(archopt, sizeof archopt, "--gpu-architecture=%s", arch);
    const char *opts[] = {archopt, BRT_NVRTC_OPTIONS};
    int rc = compile(p, 1 + BRT_NVRTC_NOPTIONS, opts);
    size_t n = 0;
    logsize(p, &n);
    char *log = calloc(1, n + 1);
    if (n)
        getlog(p, log);
    size_t bin = 0;
    if (rc == 0)
        cubinsize(p, &bin);
    destroy(&p);
    /* an empty log is "" or a lone NUL */
    bool quiet = log[0] == 0;
    if (rc != 0 || !quiet || bin == 0) {
        printf("FAIL %s (%s, %zu bytes of CUBIN):\n%s\n", name, rc ? "error" : "warnings", bin, log);
        free(log);
        return 1;
    }
    printf("ok   %s (%zu bytes of CUBIN)\n", name, bin);
    free(log);
    return 0;
}

int main(int argc, char **argv)
{
    const char *arch = "sm_90";
    int first = 1;
    if (argc > 2 && strcmp(argv[1], "--arch") == 0) {
        arch = argv[2];
        first = 3;
    }
    void *h = brt_gpu_open_nvrtc();
    if (!h) {
        printf("nvrtc_check: libnvrtc not found: skipped\n");
        return 77;
    }
    *(void **)&create = dlsym(h, "nvrtcCreateProgram");
    *(void **)&compile = dlsym(h, "nvrtcCompileProgram");
    *(void **)&logsize = dlsym(h, "nvrtcGetProgramLogSize");
    *(void **)&getlog = dlsym(h, "nvrtcGetProgramLog");
    *(void **)&cubinsize = dlsym(h, "nvrtcGetCUBINSize");
    *(void **)&destroy = dlsym(h, "nvrtcDestroyProgram");
    version_fn version;
    *(void **)&version = dlsym(h, "nvrtcVersion");
    if (!create || !compile || !logsize || !getlog || !cubinsize || !destroy || !version) {
        printf("nvrtc_check: libnvrtc lacks entry points\n");
        return 1;
    }
    int vmaj = 0, vmin = 0;
    version(&vmaj, &vmin);
    printf("NVRTC %d.%d, --gpu-architecture=%s\n", vmaj, vmin, arch);
    int total = 0, failed = 0;
    for (int i = first; i < argc; i++) {
        size_t len;
        char *text = brt_gpu_read_file(argv[i], &len);
        if (!text) {
            printf("FAIL %s: cannot read\n", argv[i]);
            failed++;
            continue;
        }
        text = realloc(text, len + 1);
        text[len] = 0;
        char *p = strstr(text, MARK);
        while (p) {
            char *next = strstr(p + 1, MARK);
            char *eol = strchr(p, '\n');
            if (!eol)
                break;
            char name[512];
            int nl = (int)(eol - p - (sizeof MARK - 1));
            if (nl >= 5 && strncmp(eol - 5, " ====", 5) == 0)
                nl -= 5;
            snprintf(name, sizeof name, "%s: %.*s", argv[i], nl, p + sizeof MARK - 1);
            size_t n = next ? (size_t)(next - (eol + 1)) : strlen(eol + 1);
            char *src = malloc(n + 1);
            memcpy(src, eol + 1, n);
            src[n] = 0;
            total++;
            failed += check(name, src, arch);
            free(src);
            p = next;
        }
        free(text);
    }
    printf("%d kernels compiled, %d failed\n", total, failed);
    return failed ? 1 : 0;
}
