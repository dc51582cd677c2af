/*
 * brine_rt.h: the manual of the runtime library that every Brine program links.
 *
 * The generated C includes this header and calls nothing else (besides libm's
 * sqrt/floor/ceil/trunc/round, which are exact). The runtime does not know
 * about the compiler.
 *
 * Two C compilers read this header: libtcc (dev builds) and gcc/cc (release
 * builds). The runtime's own .c files are always compiled by gcc into
 * libbrine_rt.a, which both link. Rules that follow from that:
 *   - no __int128 in anything the generated C sees: i128 is brt_i128, a
 *     struct of two 64-bit halves (two's complement), operated on by calls;
 *   - no __builtin_*_overflow under tcc: the inline checked operations below
 *     have a portable branch for __TINYC__;
 *   - no __thread in the runtime's .c files: tcc cannot link TLS
 *     relocations. Per-thread state goes through pthread_getspecific (the
 *     stack guard needs none: see brt_stack_check).
 *
 * Ownership: str and array values are reference counted (brt_str, brt_arr).
 * A function that returns one returns a new reference (+1) the caller owns;
 * arguments are borrowed unless the comment says "takes". Immortal objects
 * (string literals) have rc < 0 and are never freed. Refcounts are atomic,
 * because par code on the pool may share captured values.
 */
#ifndef BRINE_RT_H
#define BRINE_RT_H

#include <setjmp.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "brine_math.h"
#include "reduce_shape.h" /* the tree's numbers, shared with the GPU kernels */
#include "wrap_ovf.h"     /* the overflow tests, shared with the lanes and the GPU */

#if defined(__GNUC__) && !defined(__TINYC__)
#define BRT_GCC 1
#define BRT_LIKELY(x) __builtin_expect(!!(x), 1)
#define BRT_UNLIKELY(x) __builtin_expect(!!(x), 0)
/* At the head of a branch that must stay one (opt_records.c: an index
 * record's update): gcc makes no conditional move of a branch holding an
 * asm statement. */
#define BRT_KEEP_BRANCH() __asm__("")
#else
#define BRT_GCC 0
#define BRT_LIKELY(x) (x)
#define BRT_UNLIKELY(x) (x)
#define BRT_KEEP_BRANCH() ((void)0)
#endif
/* A loop storing at a computed index (a histogram's counts[b] += 1) runs one
 * element at a time, too many instructions each for the processor's window
 * to hold the stream's next lines in flight: the compiler's prefetch
 * (opt_prefetch.c) asks for the element BRT_PREFETCH_AHEAD bytes on, one
 * per iteration (clamp_fn: 90 -> 22 ms). A prefetch never faults, wherever
 * it points; the address is computed as an integer, past the array's end
 * too. */
#define BRT_PREFETCH_AHEAD 2048
/* The least count of iterations a marked loop prefetches for (512 KB of
 * 8-byte elements): a shorter stream a program walks again stays in
 * cache, where the prefetch only costs (a histogram of 4,096 doubles
 * 5,000 times: 57.5 -> 69.2 ms portable with one). */
#define BRT_PREFETCH_MIN 65536
#if BRT_GCC
#define BRT_PREFETCH(p) __builtin_prefetch((const void *)((uintptr_t)(p) + BRT_PREFETCH_AHEAD))
#else
#define BRT_PREFETCH(p) ((void)0)
#endif
/* The lines of the next n elements from p, BRT_PREFETCH_AHEAD bytes on: one
 * prefetch per 64 bytes (a block of a loop's iterations: emit_prefetch.c
 * pf_blocks). n is a constant: one prefetch for 8 elements of 8 bytes. */
#define BRT_PREFETCH_LINES(p, n)                                               \
    do {                                                                       \
        for (size_t pf_o_ = 0; pf_o_ < (size_t)(n) * sizeof *(p); pf_o_ += 64) \
            BRT_PREFETCH((const char *)(p) + pf_o_);                           \
    } while (0)
/* A panic is cold as well as noreturn: gcc then predicts every path into one
 * as never taken. __builtin_expect alone says 90% (its default), so a loop
 * of eight unproved checks looked as if it left by a panic in two
 * iterations, and the code after it (a stencil nest after its border loop)
 * counted as cold and was never vectorized (measured: new_grid_main 65 ->
 * 44 ms). Only the layout and the predictions change, never a value. */
#if BRT_GCC
#define BRT_NORETURN _Noreturn __attribute__((cold))
#else
#define BRT_NORETURN _Noreturn
#endif
/* The header's small helpers (the stack check, checked arithmetic, bounds
 * checks, conversions) are inlined even into a big caller: gcc's growth
 * limits otherwise leave them as calls in exactly the large, loop-heavy
 * functions that run them most (measured: a loop calling a small function
 * inlined into main kept brt_stack_check a call, 5.8x slower than C). */
#if BRT_GCC
#define BRT_INLINE static inline __attribute__((always_inline))
#else
#define BRT_INLINE static inline
#endif
/* A cold path kept out of its caller: the scalar fold behind a par
 * reduction's SIMD lanes. Inlined into the lane function, it left gcc's SLP
 * vectorizer unable to pack the lanes of some elements (a 3-parameter
 * integrand ran scalar, 3x slower). */
#if BRT_GCC
#define BRT_NOINLINE __attribute__((noinline))
#else
#define BRT_NOINLINE
#endif

/* ---- places and panics (SPEC section 7) ---------------------------------- */

/* Where an expression begins in the source, for panics: "--> file:line:col".
 * The generated C emits one static const brt_loc per place. */
typedef struct brt_loc {
    const char *file;
    int32_t line, col;
    const char *fn; /* the frame it is in, for call chains: "smooth", "main: a par element of f.br:9:13" */
    /* a place in a function written in place of its call: that call's
     * place, its frame in the chain just outside this one (NULL: none) */
    const struct brt_loc *site;
} brt_loc;

/* The panic messages, one table. */
#define BRT_PANICS(X)                                                 \
    X(BRT_OV_ADD, "integer overflow in addition")                     \
    X(BRT_OV_SUB, "integer overflow in subtraction")                  \
    X(BRT_OV_MUL, "integer overflow in multiplication")               \
    X(BRT_OV_DIV, "integer overflow in division")                     \
    X(BRT_OV_NEG, "integer overflow in negation")                     \
    X(BRT_OV_CONV, "integer overflow in conversion")                  \
    X(BRT_DIV_ZERO, "division by zero")                               \
    X(BRT_SHIFT, "shift amount out of range")                         \
    X(BRT_MIN_EMPTY, "min of an empty sequence")                      \
    X(BRT_MAX_EMPTY, "max of an empty sequence")                      \
    X(BRT_STACK, "stack overflow")                                    \
    X(BRT_RANGE_STEP, "range step must not be zero")                  \
    X(BRT_UNWRAP_NONE, "called unwrap on None")

typedef enum brt_panic_kind {
#define X(k, s) k,
    BRT_PANICS(X)
#undef X
} brt_panic_kind;

/* Flushes stdout, writes "panic: MSG\n  --> file:line:col\n" to stderr,
 * exits 101. Inside a par task on a worker the panic is recorded instead and
 * the one SPEC 5.3 picks is reported (runtime/pool.c). */
BRT_NORETURN void brt_panic(const brt_loc *loc, brt_panic_kind kind);
BRT_NORETURN void brt_panic_msg(const brt_loc *loc, const char *fmt, ...);
BRT_NORETURN void brt_panic_index(const brt_loc *loc, int64_t len, int64_t index);

/* A trap catches panics on one thread: while one is installed, brt_panic
 * records the message and place into it and longjmps to jb instead of
 * exiting. The pool (pool.c) installs one per task so that the caller can
 * pick the panic SPEC 5.3 reports. Traps nest: save brt_trap_get(), install
 * yours, restore the saved one afterwards. */
typedef struct brt_trap {
    jmp_buf jb;
    int panicked;
    const brt_loc *loc; /* NULL: a panic without a place */
    char *msg;          /* malloc'ed message, without "panic: " (its call chain after the text: panic.c) */
    const brt_loc **fbase; /* the thread's ftop when it was installed: the trapped code's first slot */
    struct brt_owner *owners; /* the thread's owners then: a panic releases those pushed since */
    int running;              /* and its count of par work open (brt_self.running) */
} brt_trap;

/* A fused region (opt_fuse.c): statements that read an array's elements
 * computed in place of the comprehension that built it, whose panics must
 * come after every panic that comprehension would have raised first. The
 * generated code installs a trap over the region, its chain starting at
 * the function's own slot fp:
 *
 *     brt_region r; brt_region_enter(&r, fp);
 *     if (setjmp(r.trap.jb)) { brt_region_caught(&r); CHECK; brt_region_rethrow(&r); }
 *     REGION; brt_region_leave(&r);
 *
 * CHECK (the comprehension as written, its result dropped) raises its own
 * first panic if it has one; else the region's panic is reported as it was
 * raised, its place and call chain unchanged. */
typedef struct brt_region {
    brt_trap trap;
    brt_trap *outer;
    const brt_loc **ftop; /* the thread's ftop before the region */
} brt_region;
void brt_region_enter(brt_region *r, const brt_loc **fp);
void brt_region_leave(brt_region *r);  /* the region ended: the outer trap and ftop back */
void brt_region_caught(brt_region *r); /* after the longjmp: the same, the panic kept */
BRT_NORETURN void brt_region_rethrow(brt_region *r);

/* ---- program start and end ------------------------------------------- */

/* Validates BRINE_THREADS and BRINE_GPU (SPEC section 8: a bad value prints
 * one line and exits 2), records argv for os.args(), sets up the stack
 * guard. The generated main() calls it first. */
void brt_start(int argc, char **argv);
/* Flushes stdout; returns the process exit status to return from main. */
int brt_finish(void);

/* Recursion guard: the generated C calls this at the top of every user
 * function; it panics "stack overflow" at loc when the stack is nearly used.
 * The fast path is inline, one compare and no TLS (design: runtime/os.c):
 * every stack Brine code runs on has a floor, and the floors are all
 * congruent modulo BRT_STACK_SPAN to brt_stack_band + BRT_STACK_BAND, so a
 * frame in the band just under a floor is one whose offset from
 * brt_stack_band, modulo the span, is below BRT_STACK_BAND. Such frames (the
 * one that went too deep, or on a main stack larger than the span one of a
 * few harmless bands) take the out-of-line slow path, which decides. */
#define BRT_STACK_SPAN ((uintptr_t)64 << 20) /* a pool worker's stack block; a power of two */
#define BRT_STACK_BAND ((uintptr_t)256 << 10) /* at least the largest generated frame */
extern uintptr_t brt_stack_band;
void brt_stack_check_slow(uintptr_t sp, const brt_loc *loc);
BRT_INLINE void brt_stack_check(const brt_loc *loc)
{
    uintptr_t sp;
#if BRT_GCC && defined(__x86_64__)
    __asm__("movq %%rsp, %0" : "=r"(sp));
#elif BRT_GCC && defined(__aarch64__)
    __asm__("mov %0, sp" : "=r"(sp));
#elif BRT_GCC
    sp = (uintptr_t)__builtin_frame_address(0);
#else
    volatile char probe; /* tcc: not inlined, so this is a frame of the caller's depth */
    sp = (uintptr_t)&probe;
#endif
    if (BRT_UNLIKELY(((sp - brt_stack_band) & (BRT_STACK_SPAN - 1)) < BRT_STACK_BAND))
        brt_stack_check_slow(sp, loc);
}

/* A thread's own words, touched only by it (but remote, below): no lock,
 * no atomics, no TLS.
 * brt_tcache_here finds the calling thread's from sp (layout: os.c): the
 * main thread's is a global; a pool worker's sits in the top
 * BRT_TCACHE_AREA bytes of its stack block. NULL before brt_start. Free
 * small-array blocks (value.c), one list per size class; the pool's record
 * of the thread (pool.c, NULL: none); and the counter by which the
 * generated one-leaf folds choose the calls the runtime samples
 * (brt_unsampled). */
#define BRT_TCACHE_CLASSES 4
#define BRT_TCACHE_SIZES 4
#define BRT_TCACHE_AREA ((uintptr_t)4096)
typedef struct brt_tcache {
    _Alignas(64) void *head[BRT_TCACHE_CLASSES]; /* a line of its own (os.c) */
    int32_t count[BRT_TCACHE_CLASSES];
    /* Freed array data of a middle size (value.c): per entry, a stack of
     * buffers of exactly dbytes[e] bytes, dcount[e] of them in
     * dstack[e][0 .. dcount[e]) (room for dcap[e]): the links out of the
     * buffers, so that keeping and taking one touches none of its lines. */
    void **dstack[BRT_TCACHE_SIZES];
    int64_t dbytes[BRT_TCACHE_SIZES];
    int32_t dcount[BRT_TCACHE_SIZES];
    int32_t dcap[BRT_TCACHE_SIZES];
    /* The last big array data this thread freed (value.c: more than the
     * middle sizes, at most BIG_KEEP bytes), bigbytes bytes, or NULL. */
    void *big;
    int64_t bigbytes;
    /* Runs (value.c): new middle-sized data of a size asked for often,
     * carved one after another from a chunk of the process's run room:
     * per slot (picked by the size's hash), the size, the requests of it
     * since the slot took it, and the chunk's unused part, rat[r] ..
     * rend[r]. */
    int64_t rbytes[BRT_TCACHE_SIZES];
    int32_t rasks[BRT_TCACHE_SIZES];
    char *rat[BRT_TCACHE_SIZES], *rend[BRT_TCACHE_SIZES];
    void *self;
    uint32_t tick;
    /* The call chain's slots (runtime/frames.c): each user function gets
     * fp_, its slot; a call writes the call's place there, passes fp_ + 1
     * and clears it after, so the live chain is base[0..] up to the first
     * NULL. top: where the par helpers run on this thread start theirs
     * (brt_frames_at, by the code that starts a par construct). */
    const brt_loc **fbase, **ftop;
    /* The owners on this thread's stack, innermost first (brt_owner). */
    struct brt_owner *owners;
    /* This thread's number in value.c's table of caches (0: none), which
     * array blocks record as their owner. */
    uint32_t slot;
    /* The one field other threads write: array data this thread allocated
     * and another freed, pushed with a CAS, taken whole with an exchange
     * (value.c); its own line, so pushes miss no other field. */
    _Alignas(64) void *remote;
} brt_tcache;
/* hidden: reached PC-relative, not through the GOT of the -fPIC archive */
#if BRT_GCC
#define BRT_HIDDEN __attribute__((visibility("hidden")))
#else
#define BRT_HIDDEN
#endif
extern BRT_HIDDEN uintptr_t brt_tc_main_lo, brt_tc_main_hi, brt_tc_block;
extern BRT_HIDDEN brt_tcache brt_tc_main;
BRT_INLINE brt_tcache *brt_tcache_here(void)
{
    uintptr_t sp;
#if BRT_GCC && defined(__x86_64__)
    __asm__("movq %%rsp, %0" : "=r"(sp)); /* no frame pointer needed, unlike the builtin */
#elif BRT_GCC && defined(__aarch64__)
    __asm__("mov %0, sp" : "=r"(sp));
#elif BRT_GCC
    sp = (uintptr_t)__builtin_frame_address(0);
#else
    volatile char probe; /* tcc: a frame on the calling thread's stack */
    sp = (uintptr_t)&probe;
#endif
    if (sp - brt_tc_main_lo < brt_tc_main_hi - brt_tc_main_lo)
        return &brt_tc_main;
    if (!brt_tc_main_hi)
        return (brt_tcache *)0;
    uintptr_t base = sp - ((sp - brt_tc_block) & (BRT_STACK_SPAN - 1));
    return (brt_tcache *)(base + BRT_STACK_SPAN - BRT_TCACHE_AREA);
}

/* The call chain (runtime/frames.c): a par helper's first slot, set by the
 * function that starts the par construct (its own free slot); the main
 * thread's first slot, for main(). */
BRT_INLINE const brt_loc **brt_frames_here(void) { return brt_tcache_here()->ftop; }
BRT_INLINE void brt_frames_at(const brt_loc **fp) { brt_tcache_here()->ftop = fp; }
const brt_loc **brt_frames_main(void);

/* ---- checked integer arithmetic (SPEC section 4) ----------------------- */

/* With a constant operand the overflow test reads the result alone: a
 * value that feeds only the add then has one use, and gcc's reassociation
 * of min/max/+ chains puts a loop-carried value last (its chain is one add
 * and one compare shorter).  a + k overflows exactly when the wrapped sum
 * falls below INT64_MIN + k (k > 0) or above INT64_MAX + k (k < 0). */
#define BRT_ADD_K_OVF(r, k) ((k) > 0 ? (r) < INT64_MIN + (k) : (k) < 0 && (r) > INT64_MAX + (k))
BRT_INLINE int64_t brt_add_i64(int64_t a, int64_t b, const brt_loc *l)
{
#if BRT_GCC
    int64_t r;
    if (__builtin_constant_p(b) || __builtin_constant_p(a)) {
        int64_t k = __builtin_constant_p(b) ? b : a;
        r = (int64_t)((uint64_t)a + (uint64_t)b);
        if (BRT_UNLIKELY(BRT_ADD_K_OVF(r, k))) brt_panic(l, BRT_OV_ADD);
        return r;
    }
    if (BRT_UNLIKELY(__builtin_add_overflow(a, b, &r))) brt_panic(l, BRT_OV_ADD);
    return r;
#else
    int64_t r = (int64_t)((uint64_t)a + (uint64_t)b);
    if (BRT_ADD_OVF_I64(a, b, r)) brt_panic(l, BRT_OV_ADD);
    return r;
#endif
}
BRT_INLINE int64_t brt_sub_i64(int64_t a, int64_t b, const brt_loc *l)
{
#if BRT_GCC
    int64_t r;
    if (__builtin_constant_p(b)) {
        /* a - k overflows exactly when the wrapped difference is above
         * INT64_MAX - k (k > 0) or below INT64_MIN - k (k < 0) */
        r = (int64_t)((uint64_t)a - (uint64_t)b);
        if (BRT_UNLIKELY(b > 0 ? r > INT64_MAX - b : b < 0 && r < INT64_MIN - b)) brt_panic(l, BRT_OV_SUB);
        return r;
    }
    if (BRT_UNLIKELY(__builtin_sub_overflow(a, b, &r))) brt_panic(l, BRT_OV_SUB);
    return r;
#else
    int64_t r = (int64_t)((uint64_t)a - (uint64_t)b);
    if (BRT_SUB_OVF_I64(a, b, r)) brt_panic(l, BRT_OV_SUB);
    return r;
#endif
}
int64_t brt_mul_i64_slow(int64_t a, int64_t b, const brt_loc *l); /* portable path */
BRT_INLINE int64_t brt_mul_i64(int64_t a, int64_t b, const brt_loc *l)
{
#if BRT_GCC
    int64_t r;
    if (BRT_UNLIKELY(__builtin_mul_overflow(a, b, &r))) brt_panic(l, BRT_OV_MUL);
    return r;
#else
    return brt_mul_i64_slow(a, b, l);
#endif
}
/* Truncating division; remainder takes the dividend's sign; MIN % -1 == 0. */
BRT_INLINE int64_t brt_div_i64(int64_t a, int64_t b, const brt_loc *l)
{
    if (BRT_UNLIKELY(b == 0)) brt_panic(l, BRT_DIV_ZERO);
    if (BRT_UNLIKELY(b == -1 && a == INT64_MIN)) brt_panic(l, BRT_OV_DIV);
    return a / b;
}
BRT_INLINE int64_t brt_mod_i64(int64_t a, int64_t b, const brt_loc *l)
{
    if (BRT_UNLIKELY(b == 0)) brt_panic(l, BRT_DIV_ZERO);
    if (BRT_UNLIKELY(b == -1)) return 0;
    return a % b;
}
BRT_INLINE int64_t brt_neg_i64(int64_t a, const brt_loc *l)
{
    if (BRT_UNLIKELY(a == INT64_MIN)) brt_panic(l, BRT_OV_NEG);
    return -a;
}
BRT_INLINE int64_t brt_abs_i64(int64_t a, const brt_loc *l)
{
    if (BRT_UNLIKELY(a == INT64_MIN)) brt_panic(l, BRT_OV_NEG);
    return a < 0 ? -a : a;
}
/* Shift amounts are int values of any integer type, passed as int64_t
 * (u64 amounts above INT64_MAX are passed as -1: out of range either way). */
BRT_INLINE int64_t brt_shl_i64(int64_t a, int64_t s, const brt_loc *l)
{
    if (BRT_UNLIKELY((uint64_t)s >= 64)) brt_panic(l, BRT_SHIFT);
    return (int64_t)((uint64_t)a << s);
}
BRT_INLINE int64_t brt_shr_i64(int64_t a, int64_t s, const brt_loc *l)
{
    if (BRT_UNLIKELY((uint64_t)s >= 64)) brt_panic(l, BRT_SHIFT);
    return a >> s; /* arithmetic on gcc and tcc */
}

BRT_INLINE uint64_t brt_add_u64(uint64_t a, uint64_t b, const brt_loc *l)
{
    uint64_t r = a + b;
    if (BRT_UNLIKELY(BRT_ADD_OVF_U64(a, b, r))) brt_panic(l, BRT_OV_ADD);
    return r;
}
BRT_INLINE uint64_t brt_sub_u64(uint64_t a, uint64_t b, const brt_loc *l)
{
    if (BRT_UNLIKELY(BRT_SUB_OVF_U64(a, b, a - b))) brt_panic(l, BRT_OV_SUB);
    return a - b;
}
uint64_t brt_mul_u64_slow(uint64_t a, uint64_t b, const brt_loc *l);
BRT_INLINE uint64_t brt_mul_u64(uint64_t a, uint64_t b, const brt_loc *l)
{
#if BRT_GCC
    uint64_t r;
    if (BRT_UNLIKELY(__builtin_mul_overflow(a, b, &r))) brt_panic(l, BRT_OV_MUL);
    return r;
#else
    return brt_mul_u64_slow(a, b, l);
#endif
}
BRT_INLINE uint64_t brt_div_u64(uint64_t a, uint64_t b, const brt_loc *l)
{
    if (BRT_UNLIKELY(b == 0)) brt_panic(l, BRT_DIV_ZERO);
    return a / b;
}
BRT_INLINE uint64_t brt_mod_u64(uint64_t a, uint64_t b, const brt_loc *l)
{
    if (BRT_UNLIKELY(b == 0)) brt_panic(l, BRT_DIV_ZERO);
    return a % b;
}
/* -x on u64 overflows unless x == 0. */
BRT_INLINE uint64_t brt_neg_u64(uint64_t a, const brt_loc *l)
{
    if (BRT_UNLIKELY(a != 0)) brt_panic(l, BRT_OV_NEG);
    return 0;
}
BRT_INLINE uint64_t brt_shl_u64(uint64_t a, int64_t s, const brt_loc *l)
{
    if (BRT_UNLIKELY((uint64_t)s >= 64)) brt_panic(l, BRT_SHIFT);
    return a << s;
}
BRT_INLINE uint64_t brt_shr_u64(uint64_t a, int64_t s, const brt_loc *l)
{
    if (BRT_UNLIKELY((uint64_t)s >= 64)) brt_panic(l, BRT_SHIFT);
    return a >> s;
}

/* Wrapping and bit methods for int and u64 (rotate amounts mod 64). */
BRT_INLINE int64_t brt_wrapping_add_i64(int64_t a, int64_t b) { return (int64_t)((uint64_t)a + (uint64_t)b); }
BRT_INLINE int64_t brt_wrapping_sub_i64(int64_t a, int64_t b) { return (int64_t)((uint64_t)a - (uint64_t)b); }
BRT_INLINE int64_t brt_wrapping_mul_i64(int64_t a, int64_t b) { return (int64_t)((uint64_t)a * (uint64_t)b); }
BRT_INLINE int64_t brt_wrapping_neg_i64(int64_t a) { return (int64_t)(0 - (uint64_t)a); }
BRT_INLINE uint64_t brt_rotl_u64(uint64_t a, int64_t s) { s &= 63; return s ? (a << s) | (a >> (64 - s)) : a; }
BRT_INLINE uint64_t brt_rotr_u64(uint64_t a, int64_t s) { s &= 63; return s ? (a >> s) | (a << (64 - s)) : a; }
int64_t brt_count_ones_u64(uint64_t a);
int64_t brt_leading_zeros_u64(uint64_t a);   /* 64 for 0 */
int64_t brt_trailing_zeros_u64(uint64_t a);  /* 64 for 0 */
/* The bit counts as instructions where the C compiler has them (the keyed
 * stacks' helper); x != 0 for BRT_CLZ and BRT_CTZ. */
#ifdef __TINYC__
#define BRT_CLZ(x) ((int)brt_leading_zeros_u64(x))
#define BRT_CTZ(x) ((int)brt_trailing_zeros_u64(x))
#else
#define BRT_CLZ(x) __builtin_clzll(x)
#define BRT_CTZ(x) __builtin_ctzll(x)
#endif

/* i128: two's complement in two halves. All operations are out of line. */
typedef struct brt_i128 {
    uint64_t lo;
    uint64_t hi;
} brt_i128;
brt_i128 brt_i128_from_i64(int64_t v);
brt_i128 brt_i128_from_u64(uint64_t v);
/* Literal halves: the emitter writes brt_i128_make(lo, hi) for constants. */
BRT_INLINE brt_i128 brt_i128_make(uint64_t lo, uint64_t hi) { brt_i128 r; r.lo = lo; r.hi = hi; return r; }
brt_i128 brt_add_i128(brt_i128 a, brt_i128 b, const brt_loc *l);
brt_i128 brt_sub_i128(brt_i128 a, brt_i128 b, const brt_loc *l);
brt_i128 brt_mul_i128(brt_i128 a, brt_i128 b, const brt_loc *l);
brt_i128 brt_div_i128(brt_i128 a, brt_i128 b, const brt_loc *l);
brt_i128 brt_mod_i128(brt_i128 a, brt_i128 b, const brt_loc *l);
brt_i128 brt_neg_i128(brt_i128 a, const brt_loc *l);
brt_i128 brt_abs_i128(brt_i128 a, const brt_loc *l);
brt_i128 brt_shl_i128(brt_i128 a, int64_t s, const brt_loc *l);  /* 0 <= s < 128 */
brt_i128 brt_shr_i128(brt_i128 a, int64_t s, const brt_loc *l);  /* arithmetic */
brt_i128 brt_and_i128(brt_i128 a, brt_i128 b);
brt_i128 brt_or_i128(brt_i128 a, brt_i128 b);
brt_i128 brt_xor_i128(brt_i128 a, brt_i128 b);
brt_i128 brt_not_i128(brt_i128 a);
int brt_cmp_i128(brt_i128 a, brt_i128 b); /* -1, 0, 1 */
/* The elements of lo..hi (inclusive: lo..=hi) of i128s, at most INT64_MAX. */
int64_t brt_range_count_i128(brt_i128 lo, brt_i128 hi, int inclusive);
brt_i128 brt_wrapping_add_i128(brt_i128 a, brt_i128 b);
brt_i128 brt_wrapping_sub_i128(brt_i128 a, brt_i128 b);
brt_i128 brt_wrapping_mul_i128(brt_i128 a, brt_i128 b);
brt_i128 brt_wrapping_neg_i128(brt_i128 a);
brt_i128 brt_rotl_i128(brt_i128 a, int64_t s);
brt_i128 brt_rotr_i128(brt_i128 a, int64_t s);
int64_t brt_count_ones_i128(brt_i128 a);
int64_t brt_leading_zeros_i128(brt_i128 a);
int64_t brt_trailing_zeros_i128(brt_i128 a);

/* ---- conversions (SPEC section 3) ----------------------------------------- */

/* float -> int/u64 truncate toward zero; out of range or nan panics
 * "cannot convert nan to int" (the out-of-line brt_f2i_fail). The ranges are
 * half-open in powers of two, which doubles hold exactly, so the compares
 * are exact, and NaN fails every one. */
BRT_NORETURN void brt_f2i_fail(double x, const brt_loc *l);
BRT_NORETURN void brt_f2u64_fail(double x, const brt_loc *l);
/* x86-64 with gcc or clang: cvttsd2si gives INT64_MIN (the "integer
 * indefinite") for NaN and for every double outside the range, so one
 * compare of the result finds them all; -2^63, in range, also converts to
 * INT64_MIN, and a second compare, on that path only, tells it apart. One compare
 * and branch per conversion instead of two of each and two constants (a
 * histogram's bin loop, 17 instructions an element, 14). The same value
 * or the same panic as the portable test. The instruction is written in
 * asm: gcc's builtin for it is a plain conversion to gcc, which it folds
 * for a constant out of range to INT64_MAX (1e300 converted, no panic). */
/* The conversion's instruction alone: INT64_MIN where it fails (NaN, out
 * of range), as x86's gives and the portable form matches. */
BRT_INLINE int64_t brt_f2i_raw(double x)
{
#if BRT_GCC && defined(__x86_64__)
    int64_t r;
#ifdef __AVX__
    __asm__("vcvttsd2si %1, %0" : "=r"(r) : "x"(x));
#else
    __asm__("cvttsd2si %1, %0" : "=r"(r) : "x"(x));
#endif
    return r;
#else
    return x >= -0x1p63 && x < 0x1p63 ? (int64_t)x : INT64_MIN;
#endif
}
BRT_INLINE int64_t brt_f2i(double x, const brt_loc *l)
{
#if BRT_GCC && defined(__x86_64__)
    int64_t r = brt_f2i_raw(x);
    if (BRT_UNLIKELY(r == INT64_MIN)) {
        double y = x;
        __asm__ __volatile__("" : "+x"(y)); /* the test below stays on this path */
        if (y != -0x1p63) brt_f2i_fail(x, l);
    }
    return r;
#else
    if (BRT_UNLIKELY(!(x >= -0x1p63 && x < 0x1p63))) brt_f2i_fail(x, l);
    return (int64_t)x;
#endif
}
BRT_INLINE uint64_t brt_f2u64(double x, const brt_loc *l)
{
    /* (-1, 0) truncates to 0, which fits */
    if (BRT_UNLIKELY(!(x > -1.0 && x < 0x1p64))) brt_f2u64_fail(x, l);
    return (uint64_t)x;
}
brt_i128 brt_f2i128(double x, const brt_loc *l);
/* Nearest, ties to even: both compilers' casts are (at and above 2^63 too:
 * tests/golden/float/u64_conversions_high_bit pins dev and release). */
BRT_INLINE double brt_u64_to_f(uint64_t v) { return (double)v; }
double brt_i128_to_f(brt_i128 v);                  /* nearest */
/* "integer overflow in conversion" */
BRT_INLINE uint64_t brt_i64_to_u64(int64_t v, const brt_loc *l)
{
    if (BRT_UNLIKELY(v < 0)) brt_panic(l, BRT_OV_CONV);
    return (uint64_t)v;
}
BRT_INLINE int64_t brt_u64_to_i64(uint64_t v, const brt_loc *l)
{
    if (BRT_UNLIKELY(v > (uint64_t)INT64_MAX)) brt_panic(l, BRT_OV_CONV);
    return (int64_t)v;
}
int64_t brt_i128_to_i64(brt_i128 v, const brt_loc *l);
uint64_t brt_i128_to_u64(brt_i128 v, const brt_loc *l);

/* ---- values: strings and arrays ----------------------------------------- */

typedef enum brt_kind { BRT_INT, BRT_I128, BRT_U64, BRT_FLOAT, BRT_BOOL, BRT_STR, BRT_ARR, BRT_TUPLE, BRT_FN } brt_kind;

/* A runtime type descriptor. The runtime exports the scalar ones; the
 * generated C defines one static const per array type it uses, e.g.
 *   static const brt_type brt_T_arr_float = { BRT_ARR, &brt_t_float };   */
typedef struct brt_type {
    brt_kind kind;
    const struct brt_type *elem; /* BRT_ARR only */
    /* BRT_TUPLE: a C struct value (the generated C's bt<n>) of size bytes,
     * nfields fields of the given types at the given offsets; refs when some
     * field holds references (copies retain them, releases release them). */
    size_t size;
    int nfields;
    const struct brt_type *const *fields;
    const size_t *offsets;
    bool refs;
    /* a struct (a BRT_TUPLE with names): its name and field names, else NULL */
    const char *name;
    const char *const *fnames;
    /* an Option: a BRT_TUPLE of two fields, bool (Some) and the value, which
     * is all zero bits in a None (prints Some(3) / None; two Nones are equal) */
    bool option;
} brt_type;
extern const brt_type brt_t_int, brt_t_i128, brt_t_u64, brt_t_float, brt_t_bool, brt_t_str, brt_t_fn;
size_t brt_type_size(const brt_type *t); /* C size of one value: 8, 16, 8, 8, 1 (bool), 8 (pointer), a tuple's size */

/* A function value: the code, called as ((R (*)(brt_env *, P...))code)(env,
 * args), and the captures of a lambda (NULL for a top-level function or a
 * lambda that captures nothing). The captures are one counted block: a
 * header, then the generated C's struct of captured values; drop releases
 * what they hold (the block itself is freed by brt_env_release). */
typedef void (*brt_code)(void);
typedef struct brt_env {
    int64_t rc;
    void (*drop)(struct brt_env *);
} brt_env;
typedef struct brt_fn {
    brt_code code;
    brt_env *env;
} brt_fn;
brt_env *brt_env_new(size_t size, void (*drop)(brt_env *)); /* rc 1 */
void brt_env_retain(brt_env *e);
void brt_env_release(brt_env *e);                           /* NULL-safe */
BRT_INLINE void brt_fn_retain(brt_fn f)
{
    if (f.env) brt_env_retain(f.env);
}
BRT_INLINE void brt_fn_release(brt_fn f)
{
    if (f.env) brt_env_release(f.env);
}

/* Immutable UTF-8 text. data is NUL-terminated (the NUL is not counted). */
typedef struct brt_str {
    int64_t rc;         /* < 0: immortal (literals) */
    int64_t len;        /* bytes */
    const char *data;
    int64_t cap;        /* > 0: a growable block made by brt_str_append, room for cap bytes */
} brt_str;
/* A literal: static brt_str S_3 = BRT_STR_LIT("hi", 2); used as &S_3. */
#define BRT_STR_LIT(s, n) { -1, (n), (s), 0 }

/* A growable array. Elements are stored unboxed: int64_t, brt_i128,
 * uint64_t, double, bool, or brt_str* / brt_arr* pointers (each holding one
 * reference). */
typedef struct brt_arr {
    int64_t rc;
    int64_t len, cap;
    const brt_type *elem;
    void *data;
} brt_arr;

void brt_retain(void *str_or_arr);      /* NULL-safe; no-op on immortals */
void brt_str_release(brt_str *s);       /* NULL-safe */
void brt_arr_release(brt_arr *a);       /* NULL-safe; releases elements too */
/* Ownership by type (own.c): the one walk that every copy and drop of a
 * value in the runtime takes, driven by the descriptor. A value owns
 * references when it is a str, an array, a function value (its captures) or
 * a tuple/struct/Option with such a field at any depth; one that owns none
 * is plain bytes (memcpy, no walk). */
BRT_INLINE bool brt_type_owns(const brt_type *t)
{
    return t->kind == BRT_STR || t->kind == BRT_ARR || t->kind == BRT_FN || (t->kind == BRT_TUPLE && t->refs);
}
/* Releases a value of any type (a no-op for scalars); for generic code. */
void brt_release_val(const brt_type *t, void *valp);
/* Retains the references a value holds (str, array, a tuple's fields). */
void brt_retain_val(const brt_type *t, const void *valp);
/* The same for n values of type t stored contiguously at p. */
void brt_retain_n(const brt_type *t, const void *p, int64_t n);
void brt_release_n(const brt_type *t, void *p, int64_t n);

/* The panic path's ownership (own.c). A panic under a trap (a par element's,
 * on a pool thread) longjmps to the trap past C frames. Each frame that owns
 * values and can be skipped so lists them in a brt_owner on its stack, one
 * cell (the value's address, its type) per value, pushed on its thread's
 * list at entry and popped at exit; the panic releases every owner pushed
 * after the trap before it jumps (brt_owners_unwind). The generated C names
 * its owner o_ and its cells oc_: a function's variables are its first ob_
 * cells, its owned temporaries the next ones, in the stack of the
 * emitter's cleanup scopes (BRT_OWN registers one, BRT_UNOWN clears it when
 * it is handed over or released). A runtime frame gives drop instead. */
typedef struct brt_cell {
    void *p; /* NULL: nothing (handed over) */
    const brt_type *t;
} brt_cell;
typedef struct brt_owner {
    struct brt_owner *up;
    brt_tcache *tc;
    brt_cell *c;                        /* NULL: a runtime frame's, released by drop */
    int64_t n;                          /* its cells */
    void (*drop)(struct brt_owner *o);
} brt_owner;
BRT_INLINE void brt_own_push(brt_owner *o, brt_cell *c, int64_t n)
{
    brt_tcache *tc = brt_tcache_here();
    o->tc = tc;
    o->up = tc->owners;
    o->c = c;
    o->n = n;
    tc->owners = o;
}
BRT_INLINE void brt_own_pop(brt_owner *o) { o->tc->owners = o->up; }
/* An owner of a run of values that grows and shrinks (the stack of finished
 * subtrees of a min/max of counted tuples, emit_par.c): the first *n values
 * of type t at p. Pushed by brt_own_vals, popped by brt_own_pop(&v->o). */
typedef struct brt_vals_owner {
    brt_owner o;
    const brt_type *t;
    void *p;
    const int *n;
} brt_vals_owner;
void brt_own_vals(brt_vals_owner *v, const brt_type *t, void *p, const int *n);
#define BRT_OWN(i, x, T) (oc_[i].p = &(x), oc_[i].t = (T))
#define BRT_UNOWN(i) (oc_[i].p = (void *)0)
/* Releases this thread's owners down to (not including) to, innermost first. */
void brt_owners_unwind(brt_tcache *tc, brt_owner *to);
/* The type of a cell that holds an f-string's builder (brt_sb, below): its
 * buffer is freed. */
extern const brt_type brt_t_sb;
/* Copies n values of type t from src to dst (not overlapping), each copy
 * holding references of its own. */
void brt_copy_n(const brt_type *t, void *dst, const void *src, int64_t n);
/* Swaps two values of size bytes (any size: a move of the references, no count changes). */
void brt_swap_vals(void *a, void *b, size_t size);

brt_str *brt_str_new(const char *bytes, int64_t len);
brt_str *brt_str_concat(brt_str *a, brt_str *b);
/* a + b where a is a new string (takes its reference): a block of ours
 * never grown is realloc'd to exactly a + b's length (a large one's pages
 * moved, not copied), so `join(parts) + ","` costs the join's; else as
 * brt_str_concat. A string it makes stays exact (no room): a chain of +
 * in an element keeps no slack. */
brt_str *brt_str_extend(brt_str *a, brt_str *b);
/* s = s + b for a variable s: takes a (the variable's reference) and
 * returns a + b. When the variable holds the only reference, the bytes are
 * appended in place (amortised doubling), so a loop of s += x is linear. */
brt_str *brt_str_append(brt_str *a, brt_str *b);
brt_str *brt_str_append_bytes(brt_str *a, const char *bytes, int64_t n); /* the same, from bytes */
brt_str *brt_str_fit(brt_str *s); /* a built string's room given back: cap 0, exact */
/* The same for bytes that are not a's (a literal part of an f-string),
 * inline: when a is the variable's own growable block with room, the bytes
 * are copied in place with no call (a byte loop: gcc makes it a move for a
 * short literal, and this header includes no <string.h>). */
BRT_INLINE brt_str *brt_str_append_lit(brt_str *a, const char *bytes, int64_t n)
{
    if (BRT_LIKELY(a->rc == 1 && a->cap - a->len >= n)) {
        char *d = (char *)a->data + a->len;
        for (int64_t i = 0; i < n; i++) d[i] = bytes[i];
        d[n] = 0;
        a->len += n;
        return a;
    }
    return brt_str_append_bytes(a, bytes, n);
}
brt_str *brt_str_repeat(brt_str *s, int64_t n, const brt_loc *l); /* n < 0: empty (as Python) */
bool brt_str_eq(brt_str *a, brt_str *b);
int brt_str_cmp(brt_str *a, brt_str *b); /* bytewise, -1/0/1 */

/* A new array of len elements, all zero (0, 0.0, false; str elements are
 * ""; array elements are empty arrays of their element type). */
brt_arr *brt_arr_new(const brt_type *elem, int64_t len);
/* An empty array with room for n elements (up to BRT_ROOM_BYTES of them): a
 * comprehension of n elements pushes into it without growing. */
#define BRT_ROOM_BYTES ((int64_t)16 << 20)
brt_arr *brt_arr_room(const brt_type *elem, int64_t n);
/* An array of n elements (n < 0: none) whose values are not set: the
 * optimizer's, for a loop that stores every element before anything reads
 * one (compiler/opt_comploop.c). Scalars are left as they are; elements
 * that hold a reference are null, which a release accepts. */
brt_arr *brt_arr_unset(const brt_type *elem, int64_t n, const brt_loc *l);
/* An array from n values stored contiguously at elems; takes the
 * references they hold. */
brt_arr *brt_arr_from(const brt_type *elem, int64_t n, const void *elems);
brt_arr *brt_arr_repeat(brt_arr *a, int64_t n, const brt_loc *l); /* [x] * n; n < 0: empty */
brt_arr *brt_arr_concat(brt_arr *a, brt_arr *b);
/* The iterables of for and generators (their arrays borrowed): range(lo, hi,
 * step)'s ints, as Python's (step 0 panics at l); enumerate(a)'s (int, T)
 * and zip(a, b)'s (A, B) tuples of descriptor tt (zip: the shorter length),
 * their fields retained. */
brt_arr *brt_range_step(int64_t lo, int64_t hi, int64_t step, const brt_loc *l);
/* How many values range(lo, hi, step) has; a zero step panics, and so does
 * a count no array could hold (out of memory), as brt_range_step. A for
 * loop over the range computes the values one by one from it. */
int64_t brt_range_step_count_any(int64_t lo, int64_t hi, int64_t step, const brt_loc *l);
/* The same, a positive step's count written in place (a loop over
 * range(i * i, n + 1, i) counts once per i): the rest, a panic included,
 * out of line. Below INT64_MAX / 16, the count fits any array. */
BRT_INLINE int64_t brt_range_step_count(int64_t lo, int64_t hi, int64_t step, const brt_loc *l)
{
    if (step > 0) {
        if (hi <= lo) return 0;
        uint64_t d = (uint64_t)hi - (uint64_t)lo, n = d / (uint64_t)step + (d % (uint64_t)step != 0);
        if (n <= (uint64_t)INT64_MAX / 16) return (int64_t)n;
    }
    return brt_range_step_count_any(lo, hi, step, l);
}
/* the same over t, u64 or i128, with the bounds and step as i128 */
brt_arr *brt_range_step_wide(const brt_type *t, brt_i128 lo, brt_i128 hi, brt_i128 step, const brt_loc *l);
brt_arr *brt_enumerate(const brt_type *tt, const brt_arr *a);
brt_arr *brt_zip(const brt_type *tt, const brt_arr *a, const brt_arr *b);
/* xs.push(v): takes a and the reference held by *elem; returns the new owner. */
brt_arr *brt_arr_push(brt_arr *a, const void *elem);
/* Whether a push can write in place: the only reference, and room left. */
BRT_INLINE bool brt_arr_push_fits(const brt_arr *a)
{
#if BRT_GCC
    return __atomic_load_n(&a->rc, __ATOMIC_ACQUIRE) == 1 && a->len < a->cap;
#else
    return *(const volatile int64_t *)&a->rc == 1 && a->len < a->cap;
#endif
}
/* The push the generated C writes: slot = slot.push(x) for an element of C
 * type ctype, x the value pushed (its reference taken). The common case
 * (brt_arr_push_fits) stores inline; copying and growing stay in
 * brt_arr_push. slot is a variable or *p, read more than once. */
#define BRT_PUSH(ctype, slot, x) BRT_PUSH_EACH(ctype, slot, x, *push_e_ = (x);)
/* BRT_PUSH with the element's store spelled out: COPY writes x into
 * *push_e_, the slot taken. For a tuple element x (a variable) the
 * compiler stores it field by field (push_e_->f0 = x.f0; ...): a work
 * list pushes a tuple built from values in registers, which gcc would
 * first pack into vector registers (with --cpu=native a 256-bit one) to
 * store it in one or two moves. */
#define BRT_PUSH_EACH(ctype, slot, x, COPY)                  \
    do {                                                     \
        brt_arr *push_a_ = (slot);                           \
        if (BRT_LIKELY(brt_arr_push_fits(push_a_))) {        \
            ctype *push_e_ = &((ctype *)push_a_->data)[push_a_->len++]; \
            COPY                                             \
        } else {                                             \
            ctype push_x_ = (x);                             \
            (slot) = brt_arr_push(push_a_, &push_x_);        \
        }                                                    \
    } while (0)
/* Whether a holds the only reference (rc 1: not shared, not immortal), an
 * acquire load as in brt_arr_push_fits: an array a comprehension over it
 * may write in place (emit_c.c: map_in_place). */
BRT_INLINE bool brt_arr_sole(const brt_arr *a)
{
#if BRT_GCC
    return __atomic_load_n(&a->rc, __ATOMIC_ACQUIRE) == 1;
#else
    return *(const volatile int64_t *)&a->rc == 1;
#endif
}
/* The pop the generated C writes: out = slot.pop() for an element of C
 * type ctype, slotp the array's place (its reference moves to out). The
 * common case (not empty, the only reference) takes the last element
 * inline; the copy on write and the panic of an empty array stay in
 * brt_arr_pop (a work list popped per step: 12% of adaptive/worklist's
 * time was the call, its size lookup and its memcpy). */
#define BRT_POP(ctype, slotp, out, l) BRT_POP_EACH(ctype, slotp, out, l, (out) = *pop_e_;)
/* BRT_POP with the element's copy spelled out: COPY reads *pop_e_, the
 * last slot (or, on the slow path, the copy brt_arr_pop made) into out. For
 * a tuple element the compiler copies field by field (out.f0 =
 * pop_e_->f0; ...): copied as one block, a tuple the loop pushed an
 * iteration before is read with two wide loads across the push's
 * field-sized stores, which the CPU cannot forward (a stall per pop:
 * adaptive/worklist's 56-byte segments); each field's load reads one store. */
#define BRT_POP_EACH(ctype, slotp, out, l, COPY)                                   \
    do {                                                                           \
        brt_arr **pop_s_ = (slotp), *pop_a_ = *pop_s_;                             \
        ctype pop_t_;                                                              \
        const ctype *pop_e_ = &pop_t_;                                             \
        if (BRT_LIKELY(pop_a_->len > 0 && brt_arr_sole(pop_a_)))                   \
            pop_e_ = &((const ctype *)pop_a_->data)[--pop_a_->len];                \
        else                                                                       \
            brt_arr_pop(pop_s_, &pop_t_, (l));                                     \
        COPY                                                                       \
    } while (0)
/* Copy on write: takes a (a var's reference) and returns an array with
 * rc == 1 holding the same elements; the caller stores it back in the var.
 * The test is inline (a row made unique per iteration of a loop over rows,
 * h[k][0] = x, costs no call when it is, as it almost always is, already
 * unique); the copy is brt_arr_unique_copy. */
brt_arr *brt_arr_unique_copy(brt_arr *a);
BRT_INLINE brt_arr *brt_arr_unique(brt_arr *a)
{
    return BRT_LIKELY(brt_arr_sole(a)) ? a : brt_arr_unique_copy(a);
}
/* Copy on write of the array in slot (an lvalue without side effects), the
 * generated C's per-store test: the slot is written only when the array is
 * copied. `slot = brt_arr_unique(slot)` stored the row back at every store,
 * and gcc then reloaded the rows and their data after it (an in-place
 * transpose's b[j][i] = t with the test per store: 262M -> 162M
 * instructions for 20 transposes of 1000 x 1000). */
#define BRT_UNIQUE(slot)                                   \
    do {                                                   \
        if (BRT_UNLIKELY(!brt_arr_sole(slot)))             \
            (slot) = brt_arr_unique_copy(slot);            \
    } while (0)
/* Every element of a (an array of arrays that the caller made unique) made
 * unique, an empty slot (a take's, opt_move.c) left as it is: the rows a
 * loop nest stores into by a row index that changes per iteration, tested
 * once each before the nest instead of at every store (opt_unique.c's
 * `unique b[*]`). */
void brt_arr_unique_rows(brt_arr *a);
/* The push of a comprehension into the array it is building: no one else
 * holds that array, so only its room is tested. Without BRT_PUSH's atomic
 * load of the reference count (an acquire: no load after it moves above),
 * gcc keeps the element's loop-invariant loads (rows, lengths) out of the
 * loop. */
#define BRT_COLLECT(ctype, slot, x)                       \
    do {                                                  \
        brt_arr *push_a_ = (slot);                        \
        if (BRT_LIKELY(push_a_->len < push_a_->cap))      \
            ((ctype *)push_a_->data)[push_a_->len++] = (x); \
        else {                                            \
            ctype push_x_ = (x);                          \
            (slot) = brt_arr_push(push_a_, &push_x_);     \
        }                                                 \
    } while (0)
/* A comprehension's cursor: the fresh array slot's data, length and room in
 * locals (the compiler keeps them in registers; BRT_COLLECT reloads them
 * from the array after every element store of the same type). For
 * elements that own nothing: until BRT_CURSOR_END the array's len is
 * stale, so a panic meanwhile frees it as if empty. */
#define BRT_CURSOR(ctype, cur, slot)                    \
    ctype *cur##_d = (ctype *)(slot)->data;             \
    int64_t cur##_n = (slot)->len, cur##_c = (slot)->cap
#define BRT_CURSOR_PUSH(ctype, slot, cur, x)            \
    do {                                                \
        if (BRT_LIKELY(cur##_n < cur##_c))              \
            cur##_d[cur##_n++] = (x);                   \
        else {                                          \
            ctype push_x_ = (x);                        \
            (slot)->len = cur##_n;                      \
            (slot) = brt_arr_push((slot), &push_x_);    \
            cur##_d = (ctype *)(slot)->data;            \
            cur##_n = (slot)->len;                      \
            cur##_c = (slot)->cap;                      \
        }                                               \
    } while (0)
/* A push into room made for every element (brt_arr_room of the count). */
#define BRT_CURSOR_PUT(cur, x) (cur##_d[cur##_n++] = (x))
#define BRT_CURSOR_END(slot, cur) ((slot)->len = cur##_n)
/* Bounds check: returns i, or panics "index out of bounds: the len is 3 but the index is 5". */
BRT_INLINE int64_t brt_idx(const brt_arr *a, int64_t i, const brt_loc *l)
{
    if (BRT_UNLIKELY((uint64_t)i >= (uint64_t)a->len)) brt_panic_index(l, a->len, i);
    return i;
}
/* The same for an array whose length the caller holds in a local (a loop's
 * view of it: the data and length read once, before the loop). */
BRT_INLINE int64_t brt_idx_n(int64_t len, int64_t i, const brt_loc *l)
{
    if (BRT_UNLIKELY((uint64_t)i >= (uint64_t)len)) brt_panic_index(l, len, i);
    return i;
}
/* A bin's conversion and bounds check as one (opt_bins.c): the
 * conversion's instruction alone (brt_f2i_raw, above), and a bounds check
 * of the index it gives (or a min of it) that tests the conversion first
 * when it fails: the conversion's panic where it was invalid, else this
 * one. A compare and branch an element less. */
BRT_INLINE int64_t brt_idx_n_f2i(int64_t len, int64_t i, double x, const brt_loc *lx, const brt_loc *l)
{
    if (BRT_UNLIKELY((uint64_t)i >= (uint64_t)len)) {
        (void)brt_f2i(x, lx);
        brt_panic_index(l, len, i);
    }
    return i;
}
BRT_INLINE int64_t brt_idx_f2i(const brt_arr *a, int64_t i, double x, const brt_loc *lx, const brt_loc *l)
{
    return brt_idx_n_f2i(a->len, i, x, lx, l);
}
#define BRT_AT(ctype, arr, i) (((ctype *)(arr)->data)[i])

/* == on any type (arrays element by element; floats by value, so nan != nan) */
bool brt_eq(const brt_type *t, const void *a, const void *b);

/* ---- text: str(), print, f-strings (SPEC section 6) ----------------------- */

/* The shortest text that reads back to the same double, as Python's repr:
 * "2.0", "0.1", "1e+16", "1.5e-07", "-0.0", "inf", "nan". Returns length;
 * buf needs 32 bytes. */
int brt_format_float(double x, char *buf);
int brt_format_i128(brt_i128 v, char *buf); /* buf needs 48 bytes */
/* Decimal digits and a NUL, as printf's %lld/%llu; returns the length (buf
 * needs 21 bytes). */
int brt_format_i64(int64_t v, char *buf);
int brt_format_u64(uint64_t v, char *buf);
/* How many bytes brt_format_i64 / brt_format_u64 write (without the NUL). */
int brt_len_i64(int64_t v);
int brt_len_u64(uint64_t v);
/* An f-string whose length is known before its first byte (compiler/
 * emit_c.c: pieces of literal text, int, u64, bool and str without a
 * spec): a new str of len bytes (the empty str for 0) with *data where the
 * bytes go. brt_format_* may write their NUL at the end: the str has a byte
 * for its own NUL there. */
brt_str *brt_str_make(int64_t len, char **data);
/* Writes n bytes at d; returns d + n. */
char *brt_put_bytes(char *d, const char *bytes, int64_t n);

/* str(x) for any printable value: the text print writes. */
brt_str *brt_to_str(const brt_type *t, const void *valp);

/* print: stdout is buffered by the runtime; flushed at exit and before a
 * panic. print(a, b) emits at(place) val(a) sep() val(b) end(); with end=E,
 * ... str(E) done(). Thread-safe, and each print's line is written whole:
 * at() takes stdout for the calling thread, end() and done() give it back.
 * brt_print_at records the print's place: a failed write panics there (at
 * the last print run when the final flush fails). */
void brt_print_at(const brt_loc *loc);
void brt_print_int(int64_t v);
void brt_print_u64(uint64_t v);
void brt_print_i128(brt_i128 v);
void brt_print_float(double v);
void brt_print_bool(bool v);
void brt_print_str(brt_str *s);
void brt_print_val(const brt_type *t, const void *valp); /* any type, arrays too */
void brt_print_sep(void);
void brt_print_end(void);   /* newline, then done */
void brt_print_done(void);  /* the print is over: stdout back to the other threads */
void brt_flush(void); /* a failed write is a panic: "cannot write to stdout: ..." */

/* f-strings: a growable byte buffer (cap < 0: buf is the caller's buffer
 * of -cap bytes, left for the heap when it outgrows it). */
typedef struct brt_sb {
    char *buf;
    int64_t len, cap;
} brt_sb;
void brt_sb_init(brt_sb *sb);
void brt_sb_lit(brt_sb *sb, const char *bytes, int64_t len);
/* Appends a value; spec is the text after ':' in {x:spec}, or NULL for none. */
void brt_sb_val(brt_sb *sb, const brt_type *t, const void *valp, const char *spec);
brt_str *brt_sb_finish(brt_sb *sb); /* the text as a new str; sb is reset */
/* s = s + f"...{x:spec}...": the value's text appended to the variable's
 * string (taken and returned, as brt_str_append), formatted in a stack
 * buffer, so a building loop allocates nothing in steady state. */
brt_str *brt_str_append_val(brt_str *s, const brt_type *t, const void *valp, const char *spec);
/* The same for a piece of known type and no spec (the compiler picks them
 * by the value's type; text the same as brt_sb_val's): digits written
 * straight into the string or the buffer. A str piece appended to a var
 * is brt_str_append. */
brt_str *brt_str_append_int(brt_str *s, int64_t v);
brt_str *brt_str_append_u64(brt_str *s, uint64_t v);
brt_str *brt_str_append_float(brt_str *s, double v);
brt_str *brt_str_append_bool(brt_str *s, bool v);
void brt_sb_int(brt_sb *sb, int64_t v);
void brt_sb_u64(brt_sb *sb, uint64_t v);
void brt_sb_float(brt_sb *sb, double v);
void brt_sb_bool(brt_sb *sb, bool v);
void brt_sb_str(brt_sb *sb, brt_str *v);
/* str(x) of a known type: brt_to_str without the descriptor. */
brt_str *brt_str_of_int(int64_t v);
brt_str *brt_str_of_u64(uint64_t v);
brt_str *brt_str_of_float(double v);
brt_str *brt_str_of_bool(bool v);

/* Format specs (SPEC 6.3): the compiler calls this to reject a bad spec at
 * compile time. Returns NULL if spec is valid for a value of kind k, else a
 * message ("format spec 'q' is not valid for float"). */
const char *brt_spec_check(brt_kind k, const char *spec);

/* ---- conversions from text ------------------------------------------------ */

int64_t brt_parse_int(brt_str *s, const brt_loc *l);   /* "cannot convert \"12x\" to int" */
double brt_parse_float(brt_str *s, const brt_loc *l);  /* "cannot convert \"x\" to float" */
/* s.to_int(), s.to_float(): the same text int(s)/float(s) accept; false
 * (None) where they would panic. */
bool brt_str_to_int(brt_str *s, int64_t *out);
bool brt_str_to_float(brt_str *s, double *out);

/* ---- str methods, slices, stdin, files (SPEC section 14; text.c) ----------- */

/* Indices are bytes. Whitespace is ASCII's (space, \t, \n, \v, \f, \r);
 * upper/lower change ASCII letters only. All return new references. */
brt_arr *brt_str_split(brt_str *s, brt_str *sep, const brt_loc *l); /* "split: empty separator" */
brt_arr *brt_str_split_ws(brt_str *s);  /* on runs of whitespace, no empty pieces */
brt_str *brt_str_strip(brt_str *s);
brt_arr *brt_str_lines(brt_str *s);     /* split on \n, a \r before it dropped; no last empty line */
bool brt_str_startswith(brt_str *s, brt_str *p);
bool brt_str_endswith(brt_str *s, brt_str *p);
brt_str *brt_str_replace(brt_str *s, brt_str *a, brt_str *b);
brt_str *brt_str_upper(brt_str *s);
brt_str *brt_str_lower(brt_str *s);
brt_str *brt_str_join(brt_str *sep, brt_arr *xs); /* xs: [str] */
/* s[lo:hi]: "slice out of bounds: the len is 3 but the slice is 2..5", or
 * "byte index 3 is not a char boundary". */
brt_str *brt_str_slice(brt_str *s, int64_t lo, int64_t hi, const brt_loc *l);
BRT_NORETURN void brt_panic_slice(const brt_loc *l, int64_t len, int64_t lo, int64_t hi);
brt_str *brt_read_stdin(const brt_loc *l);           /* the rest of stdin (after what input() read) */
/* input(): the next line of stdin, its \n (and a \r before it) dropped, as
 * a new reference in *out; false (None) at the end of stdin. */
bool brt_input(brt_str **out, const brt_loc *l);
/* s.find(sub): the byte index of the first sub in s (0 for ""); false: none */
bool brt_str_find(brt_str *s, brt_str *sub, int64_t *at);
/* "cannot read 'data.txt': No such file or directory", "cannot write ..." */
brt_str *brt_os_read_file(brt_str *path, const brt_loc *l);
void brt_os_write_file(brt_str *path, brt_str *text, const brt_loc *l);
void brt_os_append_file(brt_str *path, brt_str *text, const brt_loc *l);
/* eprint: the line built in sb (values as print writes them), a newline,
 * one write to stderr; sb is reset. */
void brt_eprint_finish(brt_sb *sb); /* a newline, then sb to stderr in one write; frees sb */
void brt_eprint_write(brt_sb *sb);  /* sb as it is (eprint with end=) */

/* ---- array methods (SPEC section 14; sort.c) ------------------------------- */

/* xs[lo:hi] (0 <= lo <= hi <= len, else the slice panic), sorted(xs),
 * reversed(xs): new arrays. contains: == on the element type. */
brt_arr *brt_arr_slice(brt_arr *a, int64_t lo, int64_t hi, const brt_loc *l);
bool brt_arr_contains(brt_arr *a, const void *v);
bool brt_arr_index(brt_arr *a, const void *v, int64_t *at); /* the first i with xs[i] == v; false: none */
brt_arr *brt_arr_sorted(brt_arr *a);
brt_arr *brt_arr_reversed(brt_arr *a);
/* The mutating methods take the slot of a var: the array is made unique,
 * then changed. pop and remove move the element (its reference) to *out;
 * insert takes the reference held by *elem. */
void brt_arr_pop(brt_arr **slot, void *out, const brt_loc *l); /* "pop from an empty array" */
void brt_arr_insert(brt_arr **slot, int64_t i, const void *elem, const brt_loc *l); /* 0 <= i <= len */
void brt_arr_remove(brt_arr **slot, int64_t i, void *out, const brt_loc *l);       /* 0 <= i < len */
void brt_arr_extend(brt_arr **slot, brt_arr *ys);
brt_arr *brt_arr_extend_take(brt_arr *a, brt_arr *ys); /* xs += ys: takes a, returns the owner */
/* The optimizer's (opt_fill.c): xs grown in place by n elements not yet set
 * (null where the elements own), each stored before anything reads it;
 * n <= 0 does nothing. xs.extend([unset] * n) without the array made and
 * copied. */
void brt_arr_grow_unset(brt_arr **slot, int64_t n);
void brt_arr_reverse(brt_arr **slot);
/* Stable, ascending by <; floats: -0.0 before 0.0, every NaN last in its
 * order. Elements: numbers, bool (false first), str. */
void brt_arr_sort(brt_arr **slot);
/* The float order as u64 keys (exposed for tests and benchmarks): unsigned
 * order of brt_float_key is the sort order of non-NaN doubles. */
uint64_t brt_float_key(double x);
double brt_float_unkey(uint64_t k);
void brt_sort_keys(uint64_t *k, int64_t n);   /* ascending, stable */
void brt_sort_floats(double *x, int64_t n);   /* the float sort in place */

/* ---- math and os (SPEC section 11) ----------------------------------------- */

/* The math functions: brt_sqrt(x), brt_pow(x, y), ... one per row of
 * BRT_MATH in brine_math.h; out of line so that neither C compiler folds
 * them differently. brt_round rounds half away from zero (C's round). */
BRT_MATH(BRT_MATH_PROTO, _)
BRT_LANES_MATH(BRT_LANES_PROTO)

brt_arr *brt_os_args(void);          /* [str], the program's arguments after its name */
int64_t brt_os_thread_count(void);
double brt_os_clock(void);           /* monotonic seconds */
BRT_NORETURN void brt_os_exit(int64_t code); /* flushes; exit(code & 255) */
brt_str *brt_os_getenv(brt_str *name);

/* ---- reductions (SPEC section 5) ------------------------------------------ */

/* The leaves of par reductions: 16 elements each (SPEC 5.2; reduce_shape.h). */
#define BRT_LEAF BRK_LEAF
/* The most leaves one leaves() call is asked for. */
#define BRT_LEAF_CHUNK 64

/* A par reduction over n elements. The generated C provides:
 *   leaves(env, first, count, vals, has): folds leaves first..first+count-1,
 *     writing leaf k's value to vals + k*vsize and has[k] = 1, or has[k] = 0
 *     when every element of the leaf was filtered out. Leaf L covers
 *     elements [16L, min(16L+16, n)). Element panics happen inside.
 *   combine(env, left, right): *left = *left OP *right, with overflow checks.
 * leaves() is called with count from 1 up to BRT_LEAF_CHUNK, for any aligned
 * or unaligned run of leaves; it must give every leaf exactly the value a
 * count == 1 call gives (lane q of a SIMD fold takes leaf first+q, one
 * element per step, so each leaf still folds left to right), except that a
 * min or max under a total order (whose record no grouping changes) may
 * give the run's record as its first leaf's value and no value to the
 * others (emit_minmax.c). It may panic;
 * after any panic on the fast path the runtime re-runs the whole reduction on
 * one thread, leaf by leaf in post-order, so the panic reported is exactly
 * SPEC 5.3's (element side effects before a panic may then repeat).
 * brt_reduce_tree computes the tree of SPEC 5.2 and returns whether there is
 * a value (false: every element was filtered out, or n == 0); the value goes
 * to out. Which thread computes which aligned subtree is the runtime's
 * business; the order, and so the bits, depend on n only. */
typedef struct brt_reduce {
    int64_t n;
    size_t vsize; /* bytes per value, at most 16 */
    void *env;
    void (*leaves)(void *env, int64_t first, int64_t count, void *vals, unsigned char *has);
    void (*combine)(void *env, void *left, const void *right);
    const brt_loc *loc; /* the reduction's place (the column of par) */
    /* Optional (NULL: the runtime's own): folds BRT_LEAF_CHUNK leaf values
     * in place into vals[0]/has[0], pairs at distance 1, 2, 4, ...: one
     * complete aligned subtree, with combine inlined. */
    void (*fold)(void *env, void *vals, unsigned char *has);
    /* Optional, for expensive elements (NULL: leaves only): elem(env, k, out)
     * evaluates element k alone into out and returns whether the filter kept
     * it; start is the fold's start value (NULL: min/max, which start from
     * the first kept element); site is the call site's cost record. With
     * them the runtime may evaluate the elements of a few leaves on many
     * threads and fold each leaf from its buffered values, left to right
     * with combine: the same leaf values, so the same bits. */
    bool (*elem)(void *env, int64_t k, void *out);
    const void *start;
    struct brt_site *site;
} brt_reduce;

/* A par reduction's call site (a static in the generated C, zeroed): what
 * its elements cost, measured by sampling calls. hot: elements cost enough
 * that the runtime evaluates them in parallel, so the generated code's
 * one-leaf inline fold (n <= BRT_LEAF) goes to brt_reduce_tree instead;
 * while not hot, that fold sends about one call in 128 to the runtime to be
 * measured (brt_unsampled). The runtime writes the fields atomically; the
 * generated code only reads them (a counter here, written by every thread
 * on every call, kept the threads of nested par waiting on its cache line). */
typedef struct brt_site {
    int32_t hot;
    int64_t ns, count; /* sampled inclusive nanoseconds per element, and samples */
} brt_site;
/* Whether the calling thread's one-leaf fold keeps this call (true about 127
 * times in 128) rather than sending it to be measured. The thread's own
 * counter, hashed (Fibonacci), so that sites called in turn are each sampled. */
BRT_INLINE int brt_unsampled(void)
{
    brt_tcache *tc = brt_tcache_here();
    uint32_t t = ++tc->tick;
    return (uint32_t)(t * 2654435769u) >> 25 != 0;
}
bool brt_reduce_tree(const brt_reduce *r, void *out);
/* Whether a one-leaf reduction at a hot site may fold in place, in order, on
 * the calling thread: it runs inside the elements of a par whose later
 * elements are still on offer here (a thread looking for work takes those,
 * the bigger piece), and no thread is looking for work now. */
bool brt_reduce_inline(void);

/* ---- scans and keyed reductions (SPEC 15; scan.c, keyed.c) ----------------- */

/* A scan or keyed reduction over n elements of vsize bytes (no references).
 * The generated C provides:
 *   elems(env, lo, hi, vals, kept, keys): evaluates elements lo..hi-1 in
 *     order, element k's value to vals + (k - lo) * vsize; a scan with a
 *     filter sets kept[k - lo] (kept NULL: no filter); a keyed one sets
 *     keys[k - lo] (-1: filtered out), panicking on a key out of range;
 *   combine(env, l, r): *l = f(*l, *r);
 *   lfold(env, vals, kept, cnt, acc, has): folds the kept ones of cnt
 *     values into *acc (has: acc holds a value; else the first kept value
 *     starts it) and returns how many were kept;
 *   lscan(env, vals, kept, cnt, acc, has, out): the same fold, writing each
 *     kept value's running result to out, one after another.
 * start: the start value (NULL: min/max, from the first element). par: the
 * tree of SPEC 5.2 and the pool; else the sequential definition. */
typedef struct brt_fold brt_fold;
struct brt_fold {
    int64_t n;
    size_t vsize;
    void *env;
    const void *start;
    bool par, filtered;
    void (*elems)(void *env, int64_t lo, int64_t hi, void *vals, unsigned char *kept, int64_t *keys);
    void (*combine)(void *env, void *l, const void *r);
    int64_t (*lfold)(void *env, const void *vals, const unsigned char *kept, int64_t cnt, void *acc, bool has);
    void (*lscan)(void *env, const void *vals, const unsigned char *kept, int64_t cnt, void *acc, bool has,
                  void *out);
    /* keyed: each of cnt values into accs[keys[i]] (keys[i] < 0: skipped;
     * has[k] = 0: that accumulator starts from start, or min/max from the
     * value), setting has[k] */
    void (*kacc)(void *env, const void *vals, const int64_t *keys, int64_t cnt, void *accs, unsigned char *has,
                 const void *start);
    /* keyed, without the buffers: evaluates elements lo..hi-1 and folds
     * each kept one into accs[key] as kacc does, setting has[key] (with a
     * start, accs already hold it) */
    void (*kleaf)(void *env, int64_t lo, int64_t hi, void *accs, unsigned char *has, const void *start);
    /* for each of cnt keys: l = l op r, a side without a value (lh, rh)
     * letting the other through */
    void (*kmerge)(void *env, void *l, unsigned char *lh, const void *r, const unsigned char *rh, int64_t cnt);
    /* not NULL: element k is src[k] (an array's own elements, no filter),
     * read in place without elems */
    const void *src;
    /* keyed: cnt buffered elements onto per-key stacks; items holds them
     * one after the other, each a u64 kl then the value, the item padded
     * to a multiple of 8 bytes (narrow: a u32 kl then the value, 4 + its
     * size bytes, unaligned): the element's key is kl & (2^kbits - 1)
     * (its record: stride bytes from recs) and its leaf kl >> kbits,
     * leaves ascending per key; a record holds the key's last leaf, a
     * mask of stack levels, that leaf's value, then one value per level
     * 0..dl-1, a slot dl for the first push and the start in slot dl + 1
     * (keyed.c's rec_init) */
    void (*kstk)(void *env, const void *items, int kbits, bool narrow, int64_t cnt, void *recs, int64_t stride,
                 int dl, const void *start);
    /* nl whole leaves of 16 unfiltered values from start: their folds into
     * lv (lfolds), or their running values from carries cars into out
     * (lscans; out may be vals) */
    void (*lfolds)(void *env, const void *vals, int64_t nl, void *lv, const void *start);
    void (*lscans)(void *env, const void *vals, int64_t nl, const void *cars, void *out);
    /* keyed: the start is the combine's exact identity (sum, product, any,
     * all): a key without a value may hold it and be combined like any
     * other; kleaf then sets no flags, and has may be set for a key
     * without an element (which holds the start) */
    bool ident;
    /* scan: cnt nodes of a level whose children all have a value:
     * parent[j] = child[2j] op child[2j + 1] (the combine inlined) */
    void (*lpairs)(void *env, const void *child, int64_t cnt, void *parent);
    /* keyed: cnt stack records (stride bytes apart, rec_init's dl and a)
     * folded into out[0..cnt) and has[0..cnt) (the combine inlined); a key
     * without an element gets has 0 and the start (zero bytes without one) */
    void (*kroots)(void *env, const void *recs, int64_t stride, int64_t cnt, int dl, int64_t a, void *out,
                   unsigned char *has, const void *start);
    /* keyed, a combine whose result cannot depend on the order (keyfree.c):
     * evaluates elements lo..hi-1 and combines each kept one into
     * accs[key] unchecked, setting has[key] unless ident; with kguard_max,
     * *guard gets the sum of |v| over them (at most 2^63 - 1 for int,
     * 2^64 - 1 for u64; false: it was more). The accumulators start at
     * kident (for ident, the start). NULL: no such way. */
    bool (*kfree)(void *env, int64_t lo, int64_t hi, void *accs, unsigned char *has, uint64_t *guard);
    const void *kident;
    /* 0: no guard (min, max, any, all); else the largest sum of |v| over all
     * elements for which no combine of the tree can overflow */
    uint64_t kguard_max;
    /* keyed, a block of 2^blev leaves by stamps (keyed.c's unit_stamps):
     * kstamp evaluates elements lo..hi-1 (lo the block's first position)
     * and folds each kept one whose key's last leaf ll[key] (leaves as
     * uint32, all of one unit) is its own leaf or lies before the block
     * into row[key] (the start there for a key without an element yet: a
     * new leaf combines onto it; without a start, a key's first element
     * is its value), setting ll[key] to its leaf and has[key] unless
     * ident; the others (a later leaf of its key in the block: collisions)
     * go in position order to cp (pairs: position - lo, key) and cv (the
     * value); returns how many. kcoll then puts the collisions onto their
     * keys' stacks (records of stride bytes: a u64 mask of waiting levels,
     * from byte 16 a slot per level 0..blev-1 and the start in slot blev;
     * masks 0 before and after), their last leaf in ll and value in row,
     * and folds each key that had one into row[key]; fix: room for nc
     * keys */
    int64_t (*kstamp)(void *env, int64_t lo, int64_t hi, void *row, unsigned char *has, uint32_t *ll, int blev,
                      uint32_t *cp, void *cv);
    void (*kcoll)(void *env, int64_t lo, const uint32_t *cp, const void *cv, int64_t nc, void *row, uint32_t *ll,
                  void *recs, int64_t stride, int blev, uint32_t *fix, const void *start);
    /* keyed, NULL or the GPU's way (compiler/emit_cuda.c): elements base ..
     * base + n - 1 (base a multiple of the leaf, the block aligned in the
     * tree) as brt_keyed_run computes them into out and has, on the device
     * when BRINE_GPU says so; false: not there (the CPU's ways then run).
     * Set apart from the initializer, so it stays last. */
    bool (*gpu)(void *env, const brt_fold *f, int64_t base, int64_t n, int64_t nkeys, void *out, unsigned char *has);
};
/* par scan: the array of running values of elem type (SPEC 15). */
brt_arr *brt_scan_run(const brt_fold *f, const brt_type *elem);
/* by KEY in 0..nkeys: out (nkeys values) and has (nkeys flags: whether the
 * key had an element; a key without one holds the start value). */
void brt_keyed_run(const brt_fold *f, int64_t nkeys, void *out, unsigned char *has);
/* A keyed reduction of counted values: m (key, position) pairs in kp sorted
 * stably by key into out (nkeys + 1 firsts, then m indices; keyed.c). */
void brt_key_order(const int64_t *kp, int64_t m, int64_t nkeys, int64_t *out);
/* par reduce(f, start, gen): the tree's value into out; false: no element
 * was kept (the caller gives start). */
bool brt_fold_reduce(const brt_fold *f, void *out);
/* world.reduce(f, start, gen): every rank gets the one-process bits. */
bool brt_world_fold_reduce(const brt_fold *f, const brt_loc *loc, void *out);
/* world.sum(... by KEY in 0..nkeys) and the other keyed world reductions:
 * as brt_keyed_run, each rank computing its share. */
void brt_world_keyed_run(const brt_fold *f, int64_t nkeys, void *out, unsigned char *has, const brt_loc *loc);

/* ---- several processes: world (world.c, docs/world.md) -------------------- */

/* Called by main() after brt_start in a program that names world: under an
 * MPI launcher, loads libmpi and joins the job; otherwise one rank. */
void brt_world_start(void);
int64_t brt_world_rank(void);
int64_t brt_world_size(void);
void brt_world_barrier(const brt_loc *loc);
/* The scalar collectives' operations, in the order of the reducers. */
enum { BRT_W_SUM, BRT_W_PRODUCT, BRT_W_MIN, BRT_W_MAX, BRT_W_ANY, BRT_W_ALL };
/* *val = every rank's *val folded left to right in rank order (checked: an
 * overflow is a panic every rank meets, reported once, at loc). */
void brt_world_fold(int op, const brt_type *t, void *val, const brt_loc *loc);
/* *out = root's *in (any type; str and arrays: a new reference). */
void brt_world_broadcast(const brt_type *t, const void *in, void *out, int64_t root, const brt_loc *loc);
/* [x0, x1, ..., x(R-1)]: every rank's *in, in rank order. */
brt_arr *brt_world_gather(const brt_type *t, const void *in, const brt_loc *loc);
/* An eligible reduction's way to the device (the generated bp_gpu<id>,
 * emit_cuda.c): computes part, the leaves [first, first + part's leaves)
 * of the tree of the reduction whose environment is env, renumbered from 0
 * (a par reduction: first 0 and part the whole; a world share: one aligned
 * block), through brt_gpu_reduce: on the device when BRINE_GPU says so,
 * else brt_reduce_tree(part). */
typedef bool (*brt_gpu_fn)(void *env, const brt_reduce *part, int64_t first, void *out);
/* brt_reduce_tree spread over the ranks: every rank gets the one-process
 * bits; a panic is the one-process one, written once, by rank 0. gpu: the
 * reduction's way to the device (NULL: not eligible); each block of a
 * rank's share takes it, as a par reduction does. */
bool brt_world_reduce_tree(const brt_reduce *r, brt_gpu_fn gpu, void *out);
/* brt_par_find spread over the ranks, with the same result and panic. */
int64_t brt_world_find(int64_t n, void *env, int64_t (*body)(void *env, int64_t lo, int64_t hi),
                       const brt_loc *loc);
/* world.reduce(f, start, gen) of values holding references (world.c): the
 * generated code runs its rank's share under the trap whose jmp_buf
 * brt_world_share_begin returns (setjmp it at once), then calls
 * brt_world_share_end with whether it panicked (the trap fired): true on
 * rank 0 when any share panicked (it runs the whole reduction alone, then
 * panics), false when none did; the other ranks end with the panic. Then
 * brt_world_roots replaces this rank's block roots (vals, has) by all
 * nblocks blocks' (block b is rank b % R's), every rank alike, and from
 * there a panic is every rank's until brt_world_alone. */
void *brt_world_share_begin(const brt_loc *loc);
bool brt_world_share_end(bool panicked, const brt_loc *loc);
void brt_world_roots(const brt_type *t, brt_arr **vals, brt_arr **has, int64_t nblocks);
void brt_world_alone(void);
/* The same for world.reduce(f, start, gen by ...): this rank's roots (vals)
 * with their (key, block's first position) pairs (kp) replaced by every
 * rank's, ordered by key, then position. */
void brt_world_keyed_roots(const brt_type *t, brt_arr **vals, brt_arr **kp);
/* A panic every rank meets at once (world.min of an empty generator):
 * written once, by rank 0, without the rank prefix. */
BRT_NORETURN void brt_world_panic(const brt_loc *loc, brt_panic_kind kind);

/* A par comprehension: body(env, lo, hi, out) evaluates elements lo..hi-1
 * (indices into the iteration) and pushes the kept ones onto *out in index
 * order. The runtime splits 0..n into chunks, runs them, and concatenates. */
typedef struct brt_collect {
    int64_t n;
    const brt_type *elem;
    void *env;
    void (*body)(void *env, int64_t lo, int64_t hi, brt_arr **out);
} brt_collect;
brt_arr *brt_par_collect(const brt_collect *c);

/* A par comprehension without a filter: its length is known, so the array
 * is allocated once and filled in place: fill(env, lo, hi, data) stores
 * elements lo..hi-1 at their slots in data (each slot then holds one
 * reference). Chunks run on the pool; a panic reports the lowest index's. */
typedef struct brt_fill {
    int64_t n;
    const brt_type *elem;
    void *env;
    void (*fill)(void *env, int64_t lo, int64_t hi, void *data);
} brt_fill;
brt_arr *brt_par_fill(const brt_fill *f);
/* The same fill into a's own slots (a->len == f->n), the caller's array
 * that it alone holds: each element k may read a's slot k, and no other,
 * before its value is stored there (emit_c.c: map_in_place). Elements own
 * nothing: an old value is overwritten, not released. */
void brt_par_fill_into(const brt_fill *f, brt_arr *a);

/* A range loop lo..hi whose iterations are independent (compiler/
 * opt_parfor.c): body(env, a, b) runs the iterations a..b-1 in order.
 * Chunks run on the pool; a panic reports the lowest chunk's, the lowest
 * iteration's. When brt_par_for_splits(lo, hi, least) is false (one
 * thread, fewer than 2 or least iterations, a thread outside the pool),
 * body(env, lo, hi) on the calling thread: the generated C then runs its
 * own copy of the loop instead. */
bool brt_par_for_splits(int64_t lo, int64_t hi, int64_t least);
void brt_par_for(int64_t lo, int64_t hi, void *env, void (*body)(void *env, int64_t lo, int64_t hi));

/* A range loop lo..hi whose iterations fold into accumulators (compiler/
 * opt_parfor.c, folds): body(env, part, a, b) runs the iterations a..b-1
 * in order, each accumulator starting from its fold's identity, and writes
 * its values (size bytes) to part; join(env, part) then folds each chunk's
 * part into env's accumulators, lowest chunk first, and returns false when
 * the loop must run again in order (an int sum that leaves the int range).
 * Returns false also when a chunk panicked (the panic is dropped): the
 * generated C then runs the loop as written from the start, meeting the
 * sequential loop's first panic. Called only where brt_par_for_splits holds. */
bool brt_par_fold(int64_t lo, int64_t hi, void *env, size_t size, void (*body)(void *env, void *part, int64_t lo, int64_t hi),
                  bool (*join)(void *env, const void *part));

/* An int sum's step in a fold loop's chunk: *acc + b (a - for sub), never a
 * panic: an overflow sets *ov (the chunk's sum is then useless and the loop
 * runs again in order); *lo and *hi follow the least and greatest running
 * value, from the start 0. */
BRT_INLINE void brt_fold_add_i64(int64_t *acc, int64_t b, int64_t *lo, int64_t *hi, bool *ov)
{
    int64_t r = (int64_t)((uint64_t)*acc + (uint64_t)b);
    *ov |= BRT_ADD_OVF_I64(*acc, b, r);
    *acc = r;
    *lo = r < *lo ? r : *lo;
    *hi = r > *hi ? r : *hi;
}
BRT_INLINE void brt_fold_sub_i64(int64_t *acc, int64_t b, int64_t *lo, int64_t *hi, bool *ov)
{
    int64_t r = (int64_t)((uint64_t)*acc - (uint64_t)b);
    *ov |= BRT_SUB_OVF_I64(*acc, b, r);
    *acc = r;
    *lo = r < *lo ? r : *lo;
    *hi = r > *hi ? r : *hi;
}
/* Joins a chunk's int sum (its running values within lo..hi, ov: one left
 * int) to *acc, the sum of the iterations before it: false when *acc + lo
 * or *acc + hi leaves int (the sequential loop overflows in this chunk, or
 * may) or ov; else *acc += sum. */
bool brt_fold_join_i64(int64_t *acc, int64_t sum, int64_t lo, int64_t hi, bool ov);

/* par any / par all (SPEC 5.3: exactly the sequential result, including which
 * panic comes before the deciding element). body(env, lo, hi) evaluates
 * elements lo..hi-1 in order and returns the index of the first deciding
 * element (any: the first true; all: the first false), or -1 when none in
 * lo..hi decides. brt_par_find returns the lowest deciding index over 0..n,
 * or -1; chunks run on the pool and may stop early; a panic in a chunk is
 * reported only when no earlier chunk decided. */
int64_t brt_par_find(int64_t n, void *env, int64_t (*body)(void *env, int64_t lo, int64_t hi));

/* ---- GPU offload (SPEC 9; runtime-gpu/, docs/gpu.md) ---------------------- */

/* An eligible par reduction's kernel: CUDA C generated by the compiler
 * (compiler/emit_cuda.c), embedded in the program. vkind: 0 int, 1 u64,
 * 2 float; reducer: 0 sum, 1 product, 2 min, 3 max; array: the source is an
 * array (its elements are copied) rather than a range. */
typedef struct brt_gpu_kernel {
    const char *src;
    size_t len;
    int vkind, reducer, array;
} brt_gpu_kernel;
/* The kernel's environment: 8-byte slots (slot 0 the element count, slot 1
 * the range start or the array, then captured values and constants). */
typedef union brt_gpu_slot {
    int64_t i;
    uint64_t u;
    double f;
    const void *p;
} brt_gpu_slot;
/* An array to copy to the device: slots[slot].p points at bytes bytes. */
typedef struct brt_gpu_copy {
    int slot;
    int64_t bytes;
} brt_gpu_copy;
/* BRINE_GPU=on: every eligible reduction goes to brt_gpu_reduce, even one
 * of a single leaf, which the generated C otherwise folds in place. */
extern bool brt_gpu_forced;
/* Runs part (leaves [first, ...) of the reduction whose slots these are,
 * renumbered from 0; see brt_gpu_fn) on the GPU when BRINE_GPU says so and a
 * device is usable, else (or when the device flags an overflow or an element
 * panic) brt_reduce_tree(part, out). Same result, same bits, same panic
 * either way. The slots and copies describe the whole reduction; the device
 * gets slot 0 = part's n and slot 1 (the range start, or the source array
 * and its copy) moved on by first * BRT_LEAF elements: an aligned block is a
 * subtree of the one tree, so the kernels compute it as they compute any
 * tree. */
bool brt_gpu_reduce(const brt_gpu_kernel *k, const brt_reduce *part, int64_t first, brt_gpu_slot *slots,
                    int nslots, const brt_gpu_copy *copies, int ncopies, void *out);
/* A par scan's entries (SPEC 15) computed on the GPU when BRINE_GPU says so
 * and a device is usable; NULL otherwise, or when the device flags an
 * overflow or an element panic: the caller then runs brt_scan_run, which
 * gives the same entries, or the panic SPEC 15 names. */
brt_arr *brt_gpu_scan(const brt_gpu_kernel *k, const brt_fold *f, const brt_type *elem, const brt_gpu_slot *slots,
                      int nslots, const brt_gpu_copy *copies, int ncopies, const brt_loc *loc);
/* A keyed reduction (by KEY in 0..nkeys, SPEC 15), or its elements base ..
 * base + n - 1 (an aligned block of leaves: a world rank's share), computed
 * on the GPU when BRINE_GPU says so and a device is usable: true with out
 * and has filled as brt_keyed_run fills them; false otherwise, or when the device
 * flags a key out of range, an overflow or an element panic: the caller
 * then runs brt_keyed_run, which gives the same results, or the panic
 * SPEC 15 names. */
bool brt_gpu_keyed(const brt_gpu_kernel *k, const brt_fold *f, int64_t base, int64_t n, int64_t nkeys,
                   const brt_gpu_slot *slots, int nslots, const brt_gpu_copy *copies, int ncopies, void *out,
                   unsigned char *has, const brt_loc *loc);

#endif
