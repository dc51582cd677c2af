/*
 * kernel_prelude.h: the start of every GPU kernel module. emit_cuda.c writes
 * one module per eligible par reduction: this prelude, then the reduction's
 * own part, then kernel_tree.h (docs/gpu.md).
 *
 * Kernel text, not a header to include. The build embeds it as a string
 * (tools/embed.c writes build/gen/kernel_prelude.c: brine_kernel_prelude)
 * into the compiler, which copies it into each module; NVRTC compiles the
 * module for the device, and the CPU shim compiles the very same text with
 * the system C compiler (the #else branch below). NVRTC has no include path
 * to the runtime, so when embedding, the #include of reduce_shape.h below is
 * replaced by that file's #define lines, and this banner is left out; the
 * rest reaches every module byte for byte. A kernel is cached by a hash of
 * its text, so any edit here recompiles every kernel once.
 *
 * It defines BRK_KERNEL, BRK_FN, BRK_THREADS, BRK_SYNC, BRK_TID and BRK_BID
 * (CUDA's, or in the shim a call per block and a loop over its threads),
 * brk_f64 (a double from its bits), the tree's shape (BRK_B, BRK_LEAF),
 * checked integer arithmetic and conversions that raise *st instead of
 * panicking, min/max, bounds-checked reads of captured arrays, and brine's
 * math functions brm_<name> (runtime/crmath/crmath.h, embedded whole). It
 * compiles on its own as C (make check-gpu: cc -fsyntax-only).
 */

/* Checked arithmetic raises *st instead of panicking: the host then re-runs
 * the reduction on the CPU, which reports the exact panic (SPEC 5.3). */
#ifdef __CUDACC__
#define BRK_KERNEL extern "C" __global__ void __launch_bounds__(BRK_B)
/* not static: NVRTC warns about unused static functions */
#define BRK_FN __device__ __forceinline__
#define BRK_THREADS if (1)
#define BRK_SYNC __syncthreads();
#define BRK_TID ((int)threadIdx.x)
#define BRK_BID ((long long)blockIdx.x)
BRK_FN double brk_f64(unsigned long long u) { return __longlong_as_double((long long)u); }
#else
/* The CPU shim: gcc compiles this same text as C. A block is a call of the
 * kernel; each BRK_THREADS phase is a loop over the block's threads, so the
 * barrier between phases is the end of the loop; __shared__ is static. */
#define __device__
#define __shared__ static
#define BRK_KERNEL __attribute__((visibility("default"))) void
#define BRK_FN static inline
static int brk_tid_;
static long long brk_bid_;
#define BRK_THREADS for (brk_tid_ = 0; brk_tid_ < BRK_B; brk_tid_++)
#define BRK_SYNC
#define BRK_TID brk_tid_
#define BRK_BID brk_bid_
__attribute__((visibility("default"))) void brk_shim_block(long long b) { brk_bid_ = b; }
double fabs(double);
BRK_FN double brk_f64(unsigned long long u) { union { unsigned long long u; double d; } c; c.u = u; return c.d; }
#endif
#include "../runtime/reduce_shape.h"
#include "../runtime/wrap_ovf.h"
/* brine's correctly rounded math, brm_<name>: the runtime's own source */
#ifdef __CUDACC__
#define CRM_TABLE __device__ const
#else
#define CRM_TABLE static const
#endif
#define CRM_FN BRK_FN
#include "../runtime/crmath/crmath.h" /* text */
#define BRK_MIN64 (-9223372036854775807LL-1)
#define BRK_MAX64 9223372036854775807LL
typedef union brk_slot { long long i; unsigned long long u; double f; const void *p; } brk_slot;
BRK_FN long long brk_fail(int *st) { *st = 1; return 0; }
BRK_FN long long brk_add_i64(int *st, long long a, long long b)
{ long long r = (long long)((unsigned long long)a + (unsigned long long)b); if (BRT_ADD_OVF_I64(a, b, r)) *st = 1; return r; }
BRK_FN long long brk_sub_i64(int *st, long long a, long long b)
{ long long r = (long long)((unsigned long long)a - (unsigned long long)b); if (BRT_SUB_OVF_I64(a, b, r)) *st = 1; return r; }
BRK_FN long long brk_mul_i64(int *st, long long a, long long b)
{
    long long r = (long long)((unsigned long long)a * (unsigned long long)b);
    if (a == 0 || b == 0) return 0;
    if (b == -1) { if (a == BRK_MIN64) *st = 1; }
    else if (a == -1) { if (b == BRK_MIN64) *st = 1; }
    else if (r / b != a) *st = 1;
    return r;
}
BRK_FN long long brk_div_i64(int *st, long long a, long long b)
{ if (b == 0 || (b == -1 && a == BRK_MIN64)) { *st = 1; return 0; } return a / b; }
BRK_FN long long brk_mod_i64(int *st, long long a, long long b)
{ if (b == 0) { *st = 1; return 0; } if (b == -1) return 0; return a % b; }
BRK_FN long long brk_neg_i64(int *st, long long a) { if (a == BRK_MIN64) { *st = 1; return 0; } return -a; }
BRK_FN long long brk_abs_i64(int *st, long long a) { if (a == BRK_MIN64) { *st = 1; return 0; } return a < 0 ? -a : a; }
BRK_FN long long brk_shl_i64(int *st, long long a, long long s)
{ if ((unsigned long long)s >= 64) { *st = 1; return 0; } return (long long)((unsigned long long)a << s); }
BRK_FN long long brk_shr_i64(int *st, long long a, long long s)
{ if ((unsigned long long)s >= 64) { *st = 1; return 0; } return a >> s; }
BRK_FN unsigned long long brk_add_u64(int *st, unsigned long long a, unsigned long long b)
{ if (BRT_ADD_OVF_U64(a, b, a + b)) *st = 1; return a + b; }
BRK_FN unsigned long long brk_sub_u64(int *st, unsigned long long a, unsigned long long b)
{ if (BRT_SUB_OVF_U64(a, b, a - b)) *st = 1; return a - b; }
BRK_FN unsigned long long brk_mul_u64(int *st, unsigned long long a, unsigned long long b)
{ unsigned long long r = a * b; if (a != 0 && r / a != b) *st = 1; return r; }
BRK_FN unsigned long long brk_div_u64(int *st, unsigned long long a, unsigned long long b)
{ if (b == 0) { *st = 1; return 0; } return a / b; }
BRK_FN unsigned long long brk_mod_u64(int *st, unsigned long long a, unsigned long long b)
{ if (b == 0) { *st = 1; return 0; } return a % b; }
BRK_FN unsigned long long brk_neg_u64(int *st, unsigned long long a) { if (a != 0) *st = 1; return 0; }
BRK_FN unsigned long long brk_shl_u64(int *st, unsigned long long a, long long s)
{ if ((unsigned long long)s >= 64) { *st = 1; return 0; } return a << s; }
BRK_FN unsigned long long brk_shr_u64(int *st, unsigned long long a, long long s)
{ if ((unsigned long long)s >= 64) { *st = 1; return 0; } return a >> s; }
BRK_FN long long brk_amt_u64(unsigned long long s) { return s > (unsigned long long)BRK_MAX64 ? -1 : (long long)s; }
BRK_FN long long brk_f2i(int *st, double x)
{ if (!(x >= -9223372036854775808.0 && x < 9223372036854775808.0)) { *st = 1; return 0; } return (long long)x; }
BRK_FN unsigned long long brk_f2u(int *st, double x)
{ if (!(x > -1.0 && x < 18446744073709551616.0)) { *st = 1; return 0; } return (unsigned long long)x; }
BRK_FN unsigned long long brk_i2u(int *st, long long v) { if (v < 0) { *st = 1; return 0; } return (unsigned long long)v; }
BRK_FN long long brk_u2i(int *st, unsigned long long v) { if (v > (unsigned long long)BRK_MAX64) { *st = 1; return 0; } return (long long)v; }
/* Python's min(a, b): b only if strictly smaller (max: larger). */
BRK_FN long long brk_min_i64(long long a, long long b) { return b < a ? b : a; }
BRK_FN long long brk_max_i64(long long a, long long b) { return b > a ? b : a; }
BRK_FN unsigned long long brk_min_u64(unsigned long long a, unsigned long long b) { return b < a ? b : a; }
BRK_FN unsigned long long brk_max_u64(unsigned long long a, unsigned long long b) { return b > a ? b : a; }
BRK_FN double brk_min_f64(double a, double b) { return b < a ? b : a; }
BRK_FN double brk_max_f64(double a, double b) { return b > a ? b : a; }
/* Reads of captured arrays, bounds-checked. */
BRK_FN long long brk_ld_i64(int *st, const long long *p, long long n, long long i)
{ if ((unsigned long long)i >= (unsigned long long)n) { *st = 1; return 0; } return p[i]; }
BRK_FN unsigned long long brk_ld_u64(int *st, const unsigned long long *p, long long n, long long i)
{ if ((unsigned long long)i >= (unsigned long long)n) { *st = 1; return 0; } return p[i]; }
BRK_FN double brk_ld_f64(int *st, const double *p, long long n, long long i)
{ if ((unsigned long long)i >= (unsigned long long)n) { *st = 1; return 0; } return p[i]; }

