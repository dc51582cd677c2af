/*
 * math_lanes.c: brt_lanes_<name> (brine_math.h's BRT_LANES_MATH), the
 * math functions over BRT_LANES lanes at once for the lane vectoriser
 * (compiler/emit_lane.c), each lane the bits of brt_<name>.
 *
 * crmath/lanes.h runs the scalar function's fast path in every lane as one
 * vector loop and returns the lanes it leaves to the scalar function (a
 * special input, or a rounding test that failed), which brt_lanes_<name>
 * then computes with brt_<name>. It pays where fma is an instruction and
 * vectors hold four doubles: on x86-64 math_lanes_avx512.c's copy runs
 * when the processor has AVX-512 (F, DQ, BW, VL), AVX2 and FMA and the
 * system saves the AVX-512 registers, else math_lanes_avx2.c's (-mavx2
 * -mfma) when it has AVX2 and FMA; otherwise every lane is one scalar
 * brt_<name> call, as the lanes made before (the same bits every way). As in math.c, each function jumps through a pointer that
 * starts at a resolver: the first call asks cpuid once and points every
 * function at its copy. Other processors compile lanes.h here.
 */
#include "brine_rt.h"
#include "rt_internal.h"

/* the lanes m names (bit q: lane q) by the scalar function */
static void brt_lanes_redo(unsigned m, const double *x, double *y, double (*f)(double))
{
    for (int q = 0; q < BRT_LANES; q++)
        if (m >> q & 1) y[q] = f(x[q]);
}

#if defined(__x86_64__) && defined(__GNUC__)
#include <cpuid.h>

/* Per function: the AVX2 copy, the scalar one, the pointer and its
 * resolver. A race on the first calls is harmless: every thread stores the
 * same pointers. */
#define BRT_LANES_DECL(name)                                                    \
    unsigned brt_avx2_lanes_##name(const double *x, double *y);                 \
    unsigned brt_avx512_lanes_##name(const double *x, double *y);               \
    static unsigned brt_plain_lanes_##name(const double *x, double *y)          \
    {                                                                           \
        for (int q = 0; q < BRT_LANES; q++) y[q] = brt_##name(x[q]);            \
        return 0;                                                               \
    }                                                                           \
    static unsigned brt_first_lanes_##name(const double *x, double *y);         \
    static unsigned (*brt_lanes_impl_##name)(const double *, double *) = brt_first_lanes_##name;
BRT_LANES_MATH(BRT_LANES_DECL)

/* 2: AVX-512 F, DQ, BW and VL with AVX2 and FMA, their registers saved
 * (XCR0: the SSE, AVX, opmask and both upper ZMM states); 1: AVX2 and FMA;
 * 0: neither */
int brt_lanes_level(void)
{
    unsigned a, b, c, d;
    if (!brt_math_has_fma() || !__get_cpuid_count(7, 0, &a, &b, &c, &d) || !(b & (1u << 5))) return 0;
    const unsigned f512 = 1u << 16 | 1u << 17 | 1u << 30 | 1u << 31; /* F, DQ, BW, VL */
    if ((b & f512) != f512) return 1;
    unsigned lo, hi;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    return (lo & 0xe6) == 0xe6 ? 2 : 1;
}

static void brt_lanes_resolve(void)
{
    int level = brt_lanes_level();
#define BRT_LANES_POINT(name)                                                                   \
    __atomic_store_n(&brt_lanes_impl_##name,                                                    \
                     level == 2 ? brt_avx512_lanes_##name : level ? brt_avx2_lanes_##name : brt_plain_lanes_##name, \
                     __ATOMIC_RELAXED);
    BRT_LANES_MATH(BRT_LANES_POINT)
}

#define BRT_LANES_FIRST(name)                                                   \
    static unsigned brt_first_lanes_##name(const double *x, double *y)          \
    {                                                                           \
        brt_lanes_resolve();                                                    \
        return brt_lanes_impl_##name(x, y);                                     \
    }
BRT_LANES_MATH(BRT_LANES_FIRST)
#define BRT_LANES_FAST(name) __atomic_load_n(&brt_lanes_impl_##name, __ATOMIC_RELAXED)
#else
#include "crmath/crmath.h"
#include "crmath/lanes.h"
#define BRT_LANES_FAST(name) crm_lanes_##name
#endif

#define BRT_LANES_DEFINE(name)                                                  \
    void brt_lanes_##name(const double *x, double *y)                           \
    {                                                                           \
        unsigned m = BRT_LANES_FAST(name)(x, y);                                \
        if (m) brt_lanes_redo(m, x, y, brt_##name);                             \
    }
BRT_LANES_MATH(BRT_LANES_DEFINE)
