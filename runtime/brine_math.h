/*
 * brine_math.h: Brine's math functions, one table shared by the runtime and
 * the compiler (brine_rt.h includes it; so does the compiler's brine.h).
 *
 * A row X(P, name, arity, gpu): Brine's `name(x)` (or `name(x, y)`), float
 * arguments, a float result, computed by the runtime's brt_<name> out of
 * line, so that neither C compiler folds or inlines it its own way (math.c
 * expands the definitions from this table). gpu is 1 when the function
 * gives the same bits on every machine: brine's own brm_<name>
 * (crmath/crmath.h: sqrt and the exact floor, ceil, round, trunc, fmod
 * are the platform's, which IEEE 754 and C pin down), correctly rounded
 * (all but gamma and lgamma, which are within a stated bound of it and
 * use only + - * /, fma and tables), the same text on the CPU and in GPU
 * kernels, so a kernel may compute it. A row with gpu 0 would call libm's
 * <name> and stay on the CPU (its last bit the platform libm's); none is
 * left. P is passed through to X.
 *
 * Adding a function is one row here, its brm_<name> when gpu is 1, its row
 * in tests/math/check_math.c, one golden test, and the docs.
 */
#ifndef BRINE_MATH_H
#define BRINE_MATH_H

#define BRT_MATH(X, P)                                                        \
    X(P, sqrt, 1, 1) X(P, floor, 1, 1) X(P, ceil, 1, 1) X(P, round, 1, 1)     \
    X(P, trunc, 1, 1) X(P, exp, 1, 1) X(P, log, 1, 1) X(P, log2, 1, 1)        \
    X(P, log10, 1, 1) X(P, pow, 2, 1) X(P, sin, 1, 1) X(P, cos, 1, 1)         \
    X(P, tan, 1, 1) X(P, asin, 1, 1) X(P, acos, 1, 1) X(P, atan, 1, 1)        \
    X(P, atan2, 2, 1) X(P, sinh, 1, 1) X(P, cosh, 1, 1) X(P, tanh, 1, 1)      \
    X(P, hypot, 2, 1) X(P, cbrt, 1, 1) X(P, exp2, 1, 1) X(P, expm1, 1, 1)      \
    X(P, log1p, 1, 1) X(P, erf, 1, 1) X(P, erfc, 1, 1) X(P, gamma, 1, 1)      \
    X(P, lgamma, 1, 1) X(P, fmod, 2, 1)

/* double brt_<name>(double[, double]) */
#define BRT_MATH_PARAMS_1 double
#define BRT_MATH_PARAMS_2 double, double
#define BRT_MATH_PROTO(P, name, arity, gpu) double brt_##name(BRT_MATH_PARAMS_##arity);

/* The functions with a lanes form: brt_lanes_<name>(x, y) sets y[q] to
 * brt_<name>(x[q]) for the BRT_LANES lanes q at once, the same bits
 * (runtime/math_lanes.c); the lane vectoriser calls it (compiler/emit_lane.c). */
#define BRT_LANES 32
#define BRT_LANES_MATH(X) X(exp) X(exp2) X(log) X(log2) X(log10) X(sin) X(cos) X(tan)
#define BRT_LANES_PROTO(name) void brt_lanes_##name(const double *x, double *y);

#endif
