/*
 * math_fma.c: brine's own math functions (crmath/crmath.h) compiled a
 * second time, for x86-64 processors with FMA, where the Makefile builds
 * this file with -mfma: each explicit fma() is then one instruction instead
 * of a call into libm. The results are the same bits (fma is correctly
 * rounded either way, and contraction stays off); math.c picks this copy
 * at run time when the processor and the OS support it. Built without
 * -mfma (other machines, the sanitizer builds) it is a plain second copy.
 */
#include "brine_rt.h"
#include "crmath/crmath.h"

#define BRT_MATH_FMA_ARGS_1 double x
#define BRT_MATH_FMA_ARGS_2 double x, double y
#define BRT_MATH_FMA_CALL_1 (x)
#define BRT_MATH_FMA_CALL_2 (x, y)
#define BRT_MATH_FMA_0(name, arity)
#define BRT_MATH_FMA_1(name, arity) \
    double brt_fma_##name(BRT_MATH_FMA_ARGS_##arity); \
    double brt_fma_##name(BRT_MATH_FMA_ARGS_##arity) { return brm_##name BRT_MATH_FMA_CALL_##arity; }
#define BRT_MATH_FMA_DEFINE(P, name, arity, gpu) BRT_MATH_FMA_##gpu(name, arity)
BRT_MATH(BRT_MATH_FMA_DEFINE, _)
