/*
 * math.c: brt_<name>, Brine's math functions (SPEC section 11), one per row
 * of BRT_MATH (brine_math.h), out of line so neither C compiler folds or
 * inlines them its own way. A row whose gpu column is 1 is brine's own,
 * correctly rounded brm_<name> (crmath/crmath.h, the same text the GPU
 * kernels compile); the others call the platform libm's <name>.
 *
 * On x86-64, brine's own come in two copies with the same bits: this
 * file's, and math_fma.c's, where fma is an instruction rather than a libm
 * call. Built for a processor known to have FMA (-mfma, -march=native: the
 * compiler defines __FMA__), this file's copy is that already and is called
 * directly. Otherwise each brt_<name> is one indirect jump through a
 * pointer that starts at a resolver: the first call anywhere asks cpuid
 * once, points every function at the right copy, and goes on; later calls
 * cost the jump alone.
 */
#include "brine_rt.h"
#include "crmath/crmath.h"

#include <math.h>

/* C's round is half away from zero, as Brine's is. (Brine's gamma is the
 * gamma function, C's tgamma: brm_gamma, crmath/lgamma.h.) */
#define BRT_MATH_ARGS_1 double x
#define BRT_MATH_ARGS_2 double x, double y
#define BRT_MATH_CALL_1 (x)
#define BRT_MATH_CALL_2 (x, y)
#define BRT_MATH_IMPL_0(name) name
#define BRT_MATH_IMPL_1(name) brm_##name

#if defined(__x86_64__) && defined(__GNUC__)
#include <cpuid.h>

/* 1 when the processor has FMA and the OS saves the AVX registers (the
 * -mfma code is VEX-encoded); math_lanes.c asks it too */
int brt_math_has_fma(void)
{
    unsigned a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & (1u << 12)) || !(c & (1u << 27)) || !(c & (1u << 28))) return 0;
    unsigned lo, hi;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    return (lo & 6) == 6;
}
#endif

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__FMA__)

/* Per own function: math_fma.c's copy, this file's (brt_plain_<name>), the
 * pointer the calls jump through, and the resolver it starts at. A race
 * on the first calls is harmless: every thread stores the same pointers. */
#define BRT_MATH_DECL_0(name, arity)
#define BRT_MATH_DECL_1(name, arity)                                                            \
    double brt_fma_##name(BRT_MATH_PARAMS_##arity);                                             \
    static double brt_plain_##name(BRT_MATH_ARGS_##arity) { return brm_##name BRT_MATH_CALL_##arity; } \
    static double brt_first_##name(BRT_MATH_PARAMS_##arity);                                    \
    static double (*brt_impl_##name)(BRT_MATH_PARAMS_##arity) = brt_first_##name;
#define BRT_MATH_DECL(P, name, arity, gpu) BRT_MATH_DECL_##gpu(name, arity)
BRT_MATH(BRT_MATH_DECL, _)

static void brt_math_resolve(void)
{
    int fma = brt_math_has_fma();
#define BRT_MATH_POINT_0(name)
#define BRT_MATH_POINT_1(name) \
    __atomic_store_n(&brt_impl_##name, fma ? brt_fma_##name : brt_plain_##name, __ATOMIC_RELAXED);
#define BRT_MATH_POINT(P, name, arity, gpu) BRT_MATH_POINT_##gpu(name)
    BRT_MATH(BRT_MATH_POINT, _)
}

#define BRT_MATH_FIRST_0(name, arity)
#define BRT_MATH_FIRST_1(name, arity)                          \
    static double brt_first_##name(BRT_MATH_ARGS_##arity)      \
    {                                                          \
        brt_math_resolve();                                    \
        return brt_impl_##name BRT_MATH_CALL_##arity;          \
    }
#define BRT_MATH_FIRST(P, name, arity, gpu) BRT_MATH_FIRST_##gpu(name, arity)
BRT_MATH(BRT_MATH_FIRST, _)

#undef BRT_MATH_IMPL_1
#define BRT_MATH_IMPL_1(name) __atomic_load_n(&brt_impl_##name, __ATOMIC_RELAXED)
#endif

#define BRT_MATH_DEFINE(P, name, arity, gpu) \
    double brt_##name(BRT_MATH_ARGS_##arity) { return BRT_MATH_IMPL_##gpu(name) BRT_MATH_CALL_##arity; }
BRT_MATH(BRT_MATH_DEFINE, _)
