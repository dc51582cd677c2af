/*
 * math.c: brt_<name>, Brine's math functions (SPEC section 11), one per row
 * of BRT_MATH (brine_math.h), out of line so neither C compiler folds or
 * inlines them its own way. A row whose gpu column is 1 is brine's own,
 * correctly rounded brm_<name> (crmath/crmath.h, the same text the GPU
 * kernels compile); the others call the platform libm's <name>. On x86-64
 * with FMA, brine's own come from math_fma.c's copy (the same bits, with
 * fma an instruction rather than a libm call), chosen once by cpuid.
 */
#include "brine_rt.h"
#include "crmath/crmath.h"

#include <math.h>

#if defined(__x86_64__) && defined(__GNUC__)
#include <cpuid.h>
#define BRT_MATH_DISPATCH 1
/* 1 when the processor has FMA and the OS saves the AVX registers (the
 * -mfma code is VEX-encoded); 0 when not; -1 before the first call. A race
 * on the first calls is harmless: every thread stores the same answer. */
static int brt_math_fma = -1;
static int brt_math_has_fma(void)
{
    unsigned a, b, c, d;
    int has = 0;
    if (__get_cpuid(1, &a, &b, &c, &d) && (c & (1u << 12)) && (c & (1u << 27)) && (c & (1u << 28))) {
        unsigned lo, hi;
        __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
        has = (lo & 6) == 6;
    }
    return __atomic_store_n(&brt_math_fma, has, __ATOMIC_RELAXED), has;
}
#define BRT_MATH_USE_FMA() \
    (__builtin_expect(__atomic_load_n(&brt_math_fma, __ATOMIC_RELAXED), 1) < 0 ? brt_math_has_fma() \
                                                                             : brt_math_fma)
#endif

/* Brine's gamma is the gamma function, C's tgamma (glibc's own gamma is
 * lgamma's old name). C's round is half away from zero, as Brine's is. */
#define gamma tgamma
#define BRT_MATH_ARGS_1 double x
#define BRT_MATH_ARGS_2 double x, double y
#define BRT_MATH_CALL_1 (x)
#define BRT_MATH_CALL_2 (x, y)
#define BRT_MATH_IMPL_0(name) name
#ifdef BRT_MATH_DISPATCH
#define BRT_MATH_IMPL_1(name) (BRT_MATH_USE_FMA() ? brt_fma_##name : brm_##name)
#define BRT_MATH_FMA_PROTO_0(name, arity)
#define BRT_MATH_FMA_PROTO_1(name, arity) double brt_fma_##name(BRT_MATH_PARAMS_##arity);
#define BRT_MATH_FMA_PROTO(P, name, arity, gpu) BRT_MATH_FMA_PROTO_##gpu(name, arity)
BRT_MATH(BRT_MATH_FMA_PROTO, _)
#else
#define BRT_MATH_IMPL_1(name) brm_##name
#endif
#define BRT_MATH_DEFINE(P, name, arity, gpu) \
    double brt_##name(BRT_MATH_ARGS_##arity) { return BRT_MATH_IMPL_##gpu(name) BRT_MATH_CALL_##arity; }
BRT_MATH(BRT_MATH_DEFINE, _)
