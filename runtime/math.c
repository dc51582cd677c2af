/*
 * math.c: brt_<name>, Brine's math functions (SPEC section 11), one per row
 * of BRT_MATH (brine_math.h), out of line so neither C compiler folds or
 * inlines them its own way. A row whose gpu column is 1 is brine's own,
 * correctly rounded brm_<name> (crmath/crmath.h, the same text the GPU
 * kernels compile); the others call the platform libm's <name>.
 */
#include "brine_rt.h"
#include "crmath/crmath.h"

#include <math.h>

/* Brine's gamma is the gamma function, C's tgamma (glibc's own gamma is
 * lgamma's old name). C's round is half away from zero, as Brine's is. */
#define gamma tgamma
#define BRT_MATH_ARGS_1 double x
#define BRT_MATH_ARGS_2 double x, double y
#define BRT_MATH_CALL_1 (x)
#define BRT_MATH_CALL_2 (x, y)
#define BRT_MATH_IMPL_0(name) name
#define BRT_MATH_IMPL_1(name) brm_##name
#define BRT_MATH_DEFINE(P, name, arity, gpu) \
    double brt_##name(BRT_MATH_ARGS_##arity) { return BRT_MATH_IMPL_##gpu(name) BRT_MATH_CALL_##arity; }
BRT_MATH(BRT_MATH_DEFINE, _)
