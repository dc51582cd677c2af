/*
 * emit_cuda.h: GPU kernels for eligible par reductions (SPEC 9), see
 * emit_cuda.c and docs/gpu.md. emit_c.c calls emit_cuda_reduce once per par
 * sum/product/min/max; main.c asks for the collected sources for
 * `brine build --emit-cuda`.
 */
#ifndef BRINE_EMIT_CUDA_H
#define BRINE_EMIT_CUDA_H
#include "ir.h"

/* For the par reduction rn whose C helpers are numbered id (struct
 * bp_env<id> is already defined): NULL when the reduction is not eligible
 * for the GPU; else the name of a C function with brt_reduce_tree's
 * signature that tries the GPU first, and *aux receives the C text that
 * defines it (the kernel source embedded as a string), to be placed after
 * struct bp_env<id>. */
const char *emit_cuda_reduce(struct ir_node *rn, int id, char **aux);

/* Forgets the collected kernel sources (one compilation starts). */
void emit_cuda_reset(void);
/* Every kernel source emitted since the reset, each module after a line
 * "// ==== brine kernel <id> <file>:<line>:<col> ====", or NULL if none. */
const char *emit_cuda_sources(size_t *len);
/* How many reductions were eligible since the reset. */
int emit_cuda_count(void);

#endif
