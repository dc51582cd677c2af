/*
 * wrap_ovf.h: the overflow tests of checked integer arithmetic, written
 * once. r is the wrapped (two's complement) result of the operation; each
 * test is true when the true result does not fit. Three readers use them:
 * brine_rt.h's portable checked operations (the tcc build; gcc's builtins
 * are its fast path), the lane code of par leaves (emit_lane.c, which
 * raises a block's flag with them), and the GPU prelude
 * (runtime-gpu/kernel_prelude.h, which gets this file's #define lines as
 * text: tools/embed.c). So, as reduce_shape.h: one-line #defines and
 * comments only, no guard, no includes; operands of the signed tests are
 * 64-bit signed integers, of the unsigned ones 64-bit unsigned.
 */

/* a + b: a and b have one sign, r the other. */
#define BRT_ADD_OVF_I64(a, b, r) ((((a) ^ (r)) & ((b) ^ (r))) < 0)
/* a - b: a and b differ in sign, and r differs from a. */
#define BRT_SUB_OVF_I64(a, b, r) ((((a) ^ (b)) & ((a) ^ (r))) < 0)
/* unsigned a + b: the sum wrapped below a. */
#define BRT_ADD_OVF_U64(a, b, r) ((r) < (a))
/* unsigned a - b: b is larger. */
#define BRT_SUB_OVF_U64(a, b, r) ((b) > (a))
