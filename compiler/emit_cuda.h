/*
 * emit_cuda.h: GPU kernels for eligible par reductions (SPEC 9), see
 * emit_cuda.c and docs/gpu.md. The C emitter (emit_par.c) calls
 * emit_cuda_reduce once per par sum/product/min/max/reduce/scan.
 */
#ifndef BRINE_EMIT_CUDA_H
#define BRINE_EMIT_CUDA_H
#include "ir.h"

/* For the par reduction rn whose C helpers are numbered id (struct
 * bp_env<id> is already defined): NULL when the reduction is not eligible
 * for the GPU; else the name of a C function with brt_reduce_tree's
 * signature that tries the GPU first (a par scan's: (env, brt_fold *,
 * element type, brt_loc *) -> its entries, from the GPU or else from
 * brt_scan_run), and *aux receives the C text that
 * defines it (the kernel source embedded as a string), to be placed after
 * struct bp_env<id>. The kernel's source is also appended to *sources, after
 * a line "// ==== brine kernel <id> <file>:<line>:<col> ====", and
 * *nkernels counts it. */
const char *emit_cuda_reduce(struct ir_node *rn, int id, struct buf *sources, int *nkernels, char **aux);
/* The text every bp_cu<n> shares, as the macros BP_CU_PRELUDE and
 * BP_CU_TREE: written once, before the first kernel, when there is one. */
void emit_cuda_fixed(struct buf *out);

#endif
