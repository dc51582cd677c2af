/*
 * math_lanes.c: brt_lanes_<name> (brine_math.h's BRT_LANES_MATH), the
 * math functions over BRT_LANES lanes at once for the lane vectoriser
 * (compiler/emit_lane.c), each lane the bits of brt_<name>.
 *
 * crmath/lanes.h runs the scalar function's fast path in every lane as one
 * vector loop and redoes the rest with the scalar function. It pays where
 * fma is an instruction and the vectors are four doubles wide: on x86-64
 * math_lanes_avx2.c's copy (-mavx2 -mfma) is taken when the processor has
 * AVX2 and FMA (asked once, on the first call); otherwise each lane is one
 * scalar brt_<name> call, as the lanes made before (the same bits either
 * way). Other processors compile lanes.h here.
 */
#include "brine_rt.h"
#include "rt_internal.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <cpuid.h>

/* 0: not asked yet, 1: scalar calls, 2: the AVX2 copy. A race on the first
 * calls is harmless: every thread stores the same answer. */
static int brt_lanes_kind;

static int brt_lanes_ask(void)
{
    unsigned a, b, c, d;
    int avx2 = brt_math_has_fma() && __get_cpuid_count(7, 0, &a, &b, &c, &d) && (b & (1u << 5));
    int k = avx2 ? 2 : 1;
    __atomic_store_n(&brt_lanes_kind, k, __ATOMIC_RELAXED);
    return k;
}

#define BRT_LANES_DEFINE(name)                                                   \
    void brt_avx2_lanes_##name(const double *x, double *y);                      \
    void brt_lanes_##name(const double *x, double *y)                            \
    {                                                                            \
        int k = __atomic_load_n(&brt_lanes_kind, __ATOMIC_RELAXED);              \
        if (k == 2 || (k == 0 && brt_lanes_ask() == 2)) {                        \
            brt_avx2_lanes_##name(x, y);                                         \
            return;                                                              \
        }                                                                        \
        for (int q = 0; q < BRT_LANES; q++) y[q] = brt_##name(x[q]);             \
    }
BRT_LANES_MATH(BRT_LANES_DEFINE)
#else
#include "crmath/crmath.h"
#include "crmath/lanes.h"

#define BRT_LANES_DEFINE(name) \
    void brt_lanes_##name(const double *x, double *y) { crm_lanes_##name(x, y); }
BRT_LANES_MATH(BRT_LANES_DEFINE)
#endif
