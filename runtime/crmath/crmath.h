/*
 * crmath.h: brine's own math functions, brm_<name> for each row of
 * runtime/brine_math.h whose gpu column is 1: correctly rounded to nearest
 * for every binary64 input (gamma and lgamma: within a stated bound of it,
 * lgamma.h), so every machine, the GPU included, gives the same bits
 * (docs/stdlib.md). The runtime's brt_<name> (runtime/math.c)
 * and the GPU kernels (runtime-gpu/kernel_prelude.h embeds this text, and
 * each file it includes, whole) call them.
 *
 * Each function is a fast path with a proven error bound, a rounding test,
 * and an accurate path (triple-double) for the rare inputs that fail it.
 * Tables and coefficients are tools/gen_crmath.py's and tools/crmath/'s. sqrt and the exact functions
 * (floor ceil round trunc fmod) are the platform's: IEEE 754 and C define
 * them exactly, so they agree everywhere already.
 *
 * Adding a function: its file here, included below, its brm_<name>, the
 * gpu column of its row, and its row in tests/math/check_math.c.
 */
#ifndef CRM_CRMATH_H
#define CRM_CRMATH_H

#include "dd.h" /* text */
#include "exp.h" /* text */
#include "log.h" /* text */
#include "hyp.h" /* text */
#include "cbrt.h" /* text */
#include "hypot.h" /* text */
#include "trig.h" /* text */
#include "atan.h" /* text */
#include "asin.h" /* text */
#include "pow.h" /* text */
#include "erf.h" /* text */
#include "lgamma.h" /* text */

#ifndef __CUDACC__
double floor(double);
double ceil(double);
double round(double);
double trunc(double);
double fmod(double, double);
#endif

CRM_FN double brm_sqrt(double x) { return sqrt(x); }
CRM_FN double brm_floor(double x) { return floor(x); }
CRM_FN double brm_ceil(double x) { return ceil(x); }
CRM_FN double brm_round(double x) { return round(x); }
CRM_FN double brm_trunc(double x) { return trunc(x); }
CRM_FN double brm_fmod(double x, double y) { return fmod(x, y); }

#endif
