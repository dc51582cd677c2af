/*
 * reduce_shape.h: the shape of a par reduction's tree, the one place its
 * numbers are written. brine_rt.h (the CPU runtime and the generated C) and
 * runtime-gpu/kernel_prelude.h (the GPU kernels) both include it.
 *
 * NVRTC compiles a kernel from a string, with no include path, so the build
 * embeds this file's #define lines into the prelude's text in place of its
 * #include line (tools/embed.c); this file must therefore stay plain
 * one-line #defines and comments: no guard (identical redefinitions are
 * valid C), no other includes, no conditionals.
 */

/* Threads per block of the kernels: block b computes leaves [256b, 256b + 256),
 * and brk_combine folds 256 nodes of one level into one node 8 levels higher. */
#define BRK_B 256
/* Elements per leaf (SPEC 5.2): leaf L covers elements [16L, min(16L + 16, n)). */
#define BRK_LEAF 16
