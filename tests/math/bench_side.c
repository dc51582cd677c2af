/*
 * bench_side.c: one side of `make bench-math-ab` (bench_math.c built with
 * BENCH_AB): SIDE_<name>, brm_<name> of the crmath found on the include
 * path, for each of its own functions. The Makefile compiles it twice, as
 * old_ against `git archive OLD runtime` and as new_ against the working
 * tree's, the same way (-mfma where the runtime's FMA copy has it, called
 * directly), so that bench_math times both and libm's in one process,
 * interleaved.
 */
#include "brine_rt.h"
#include "crmath/crmath.h"

#define SIDE_CAT(s, name) s##_##name
#define SIDE_NAME(s, name) SIDE_CAT(s, name)
#define SIDE_ARGS_1 double x
#define SIDE_ARGS_2 double x, double y
#define SIDE_CALL_1 (x)
#define SIDE_CALL_2 (x, y)
#define SIDE_DEF_0(name, arity)
#define SIDE_DEF_1(name, arity) \
    double SIDE_NAME(SIDE, name)(SIDE_ARGS_##arity); \
    double SIDE_NAME(SIDE, name)(SIDE_ARGS_##arity) { return brm_##name SIDE_CALL_##arity; }
#define SIDE_DEF(P, name, arity, gpu) SIDE_DEF_##gpu(name, arity)
BRT_MATH(SIDE_DEF, _)
