/*
 * kernel_tree.h: the end of every GPU kernel module, the same for every
 * reduction: brk_leaves (block b folds leaves [256b, 256b + 256), one per
 * thread, left to right, then combines them level by level in shared
 * memory) and brk_combine (256 nodes of one level into one node 8 levels
 * higher, by the same rule); docs/gpu.md says why that is the CPU's tree.
 *
 * Kernel text, embedded like kernel_prelude.h (tools/embed.c:
 * brine_kernel_tree; this banner is left out). It uses what the module
 * defines before it: BRK_T (the value type), BRK_GT (the generator
 * variable's type), BRK_ARRAY (the source is an array, staged through
 * shared memory with coalesced loads), BRK_MINMAX, BRK_START, BRK_RANGE_AT,
 * struct brk_env, brk_env_load, brk_elem and brk_op; so it compiles only as
 * part of a module (make check-gpu compiles every module with NVRTC and
 * runs it on the CPU shim).
 */

/* The generator's value number k (from 0): the source array's element, or
 * the range's (with clauses: the flat position). */
BRK_FN BRK_GT brk_gen(const struct brk_env *E, long long k)
{
#if BRK_ARRAY
    return E->arr[k];
#else
    return BRK_RANGE_AT(E->lo, k);
#endif
}

/* left = left op right; a side without a value lets the other move up. */
BRK_FN void brk_merge(int *st, BRK_T *lv, unsigned char *lh, BRK_T rv, unsigned char rh)
{
    if (!rh) return;
    if (!*lh) { *lv = rv; *lh = 1; return; }
    *lv = brk_op(st, *lv, rv);
}

/* The block's BRK_B nodes of one level, combined level by level (SPEC 5.2)
 * into sv[0]: at step s, node t (a multiple of 2s) takes node t + s. */
__device__ static void brk_tree(BRK_T *sv, unsigned char *sh, int *flag)
{
    for (int s = 1; s < BRK_B; s <<= 1) {
        BRK_THREADS {
            int t = BRK_TID;
            if ((t & (2 * s - 1)) == 0) {
                int st = 0;
                brk_merge(&st, &sv[t], &sh[t], sv[t + s], sh[t + s]);
                if (st) *flag = 1;
            }
        }
        BRK_SYNC
    }
}

/* Block b: leaves [b*BRK_B, b*BRK_B + BRK_B), one per thread, each folded
 * left to right from the start value (min/max: from its first kept
 * element); then their subtree. Out: vals[b], has[b]. */
BRK_KERNEL brk_leaves(const brk_slot *A, long long nleaves, BRK_T *vals, unsigned char *has, int *flag)
{
    __shared__ BRK_T sv[BRK_B];
    __shared__ unsigned char sh[BRK_B];
#if BRK_ARRAY
    __shared__ BRK_GT sx[BRK_B * (BRK_LEAF + 1)];
#endif
    struct brk_env E;
    brk_env_load(&E, A);
    long long first = BRK_BID * BRK_B;
#if BRK_ARRAY
    /* coalesced loads; leaf q's elements at sx[q*17 ..], padded against bank conflicts */
    BRK_THREADS {
        long long e0 = first * BRK_LEAF;
        for (int j = 0; j < BRK_LEAF; j++) {
            int e = BRK_TID + j * BRK_B;
            if (e0 + e < E.n) sx[e + e / BRK_LEAF] = E.arr[e0 + e];
        }
    }
    BRK_SYNC
#endif
    BRK_THREADS {
        int t = BRK_TID;
        long long leaf = first + t;
        int st = 0;
        BRK_T acc = BRK_START;
        unsigned char h = 0;
        if (leaf < nleaves) {
            long long b = leaf * BRK_LEAF;
            int m = E.n - b < BRK_LEAF ? (int)(E.n - b) : BRK_LEAF;
            for (int j = 0; j < m && !st; j++) {
#if BRK_ARRAY
                BRK_GT g = sx[t * (BRK_LEAF + 1) + j];
#else
                BRK_GT g = BRK_RANGE_AT(E.lo, b + j);
#endif
                BRK_T x;
                if (brk_elem(&E, g, &x, &st)) {
#if BRK_MINMAX
                    acc = h ? brk_op(&st, acc, x) : x;
#else
                    acc = brk_op(&st, acc, x);
#endif
                    h = 1;
                }
            }
        }
        if (st) *flag = 1;
        sv[t] = acc;
        sh[t] = h;
    }
    BRK_SYNC
    brk_tree(sv, sh, flag);
    BRK_THREADS {
        if (BRK_TID == 0) { vals[BRK_BID] = sv[0]; has[BRK_BID] = sh[0]; }
    }
}

/* count nodes of one level -> ceil(count / BRK_B) nodes of the level
 * log2(BRK_B) higher, by the same rule; nodes past count have no value. */
BRK_KERNEL brk_combine(long long count, const BRK_T *in, const unsigned char *inh, BRK_T *vals, unsigned char *has, int *flag)
{
    __shared__ BRK_T sv[BRK_B];
    __shared__ unsigned char sh[BRK_B];
    BRK_THREADS {
        long long i = BRK_BID * BRK_B + BRK_TID;
        if (i < count) { sv[BRK_TID] = in[i]; sh[BRK_TID] = inh[i]; }
        else { sv[BRK_TID] = BRK_START; sh[BRK_TID] = 0; }
    }
    BRK_SYNC
    brk_tree(sv, sh, flag);
    BRK_THREADS {
        if (BRK_TID == 0) { vals[BRK_BID] = sv[0]; has[BRK_BID] = sh[0]; }
    }
}
