/*
 * math_lanes_avx2.c: crmath/lanes.h's lanes compiled for x86-64 processors
 * with AVX2 and FMA (the Makefile: -O3 -mavx2 -mfma -fno-trapping-math),
 * where gcc makes each lanes loop one vector loop of four doubles;
 * math_lanes.c calls them when the processor has both. -fno-trapping-math
 * changes no value (brine reads no floating-point flags): it lets gcc
 * compute both arms of a select (trig.h's error bound) and so vectorize it.
 * The bits are the scalar functions' (lanes.h).
 */
#include "brine_rt.h"
#include "crmath/crmath.h"
#include "crmath/lanes.h"

_Static_assert(BRT_LANES == CRM_LANES, "brine_math.h's lanes are lanes.h's");

/* the lanes the scalar function is left (math_lanes.c computes them) */
#define BRT_LANES_AVX2(name)                                                \
    unsigned brt_avx2_lanes_##name(const double *x, double *y);             \
    unsigned brt_avx2_lanes_##name(const double *x, double *y) { return crm_lanes_##name(x, y); }
BRT_LANES_MATH(BRT_LANES_AVX2)
