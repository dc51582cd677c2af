/*
 * math_lanes_avx512.c: crmath/lanes.h's lanes compiled for x86-64
 * processors with AVX-512 (F, DQ, BW, VL) as well as AVX2 and FMA (the
 * Makefile: -O3 -mavx512f -mavx512dq -mavx512bw -mavx512vl -mavx2 -mfma
 * -fno-trapping-math), where gcc makes of the same loops vectors of eight
 * doubles, with masks for the selects, 64-bit integer conversions and
 * shifts in one instruction each, and 32 vector registers (per element of
 * a par sum: exp 0.7 times the AVX2 copy's time, log 0.7, sin 0.7);
 * math_lanes.c calls them when the processor has all of them and the
 * system saves their registers. -fno-trapping-math: as in
 * math_lanes_avx2.c. The bits are the scalar functions' (lanes.h).
 */
#include "brine_rt.h"
#include "crmath/crmath.h"
#include "crmath/lanes.h"

_Static_assert(BRT_LANES == CRM_LANES, "brine_math.h's lanes are lanes.h's");

/* the lanes the scalar function is left (math_lanes.c computes them) */
#define BRT_LANES_AVX512(name)                                              \
    unsigned brt_avx512_lanes_##name(const double *x, double *y);           \
    unsigned brt_avx512_lanes_##name(const double *x, double *y) { return crm_lanes_##name(x, y); }
BRT_LANES_MATH(BRT_LANES_AVX512)
