/*
 * kernel_scan.h: the end of a par scan's kernel module (SPEC 15), after
 * kernel_tree.h; the numbers of runtime/scan.c on the device:
 *
 *   brk_scan_leaves   a thread per leaf: its fold from the start value
 *                     (min/max: from its first kept element), whether it
 *                     has a value, and its kept count into offs[leaf]
 *   brk_scan_level    a thread per node of one level: node j merges the
 *                     nodes 2j and 2j + 1 of the level below (a side
 *                     without a value, or past the end, lets the other
 *                     move up); vals/has point at the level below, the new
 *                     level follows it
 *   brk_scan_entries  a thread per leaf L: the carry, the nodes of L's
 *                     binary digits highest first folded from the start
 *                     value (min/max: from the first node with a value),
 *                     then the leaf's elements again from the carry, each
 *                     kept element's running value its entry, from
 *                     out[offs[L]] (the host made the counts offsets)
 *
 * The levels lie one after the other: level k, ceil(nleaves / 2^k) nodes,
 * starts at brk_level_at(nleaves, k). The three kernels take the same
 * parameters, so each device has one way to launch them. An overflow or an
 * element panic raises the flag and the CPU runs the scan again, in the
 * order of panics SPEC 15 names. Kernel text, embedded like kernel_tree.h
 * (tools/embed.c: brine_kernel_scan; this banner is left out).
 */

/* Where level k starts among the nodes. */
BRK_FN long long brk_level_at(long long nl, int k)
{
    long long at = 0;
    for (int i = 0; i < k; i++)
        at += (nl + (1LL << i) - 1) >> i;
    return at;
}

/* Leaf leaf's kept elements folded into *acc (*h: it holds a value), each
 * running value written to out[0], out[1], ... when out is not null; the
 * kept count. */
BRK_FN int brk_leaf_run(const struct brk_env *E, long long leaf, BRK_T *acc, unsigned char *h, BRK_T *out, int *st)
{
    long long b = leaf * BRK_LEAF;
    int m = E->n - b < BRK_LEAF ? (int)(E->n - b) : BRK_LEAF;
    int c = 0;
    for (int j = 0; j < m && !*st; j++) {
        BRK_T x;
        if (brk_elem(E, brk_gen(E, b + j), &x, st)) {
#if BRK_MINMAX
            *acc = *h ? brk_op(st, *acc, x) : x;
#else
            *acc = brk_op(st, *acc, x);
#endif
            *h = 1;
            if (out)
                out[c] = *acc;
            c++;
        }
    }
    return c;
}

BRK_KERNEL brk_scan_leaves(const brk_slot *A, long long nleaves, long long count, BRK_T *vals, unsigned char *has,
                           long long *offs, BRK_T *out, int *flag)
{
    struct brk_env E;
    brk_env_load(&E, A);
    (void)count;
    (void)out;
    BRK_THREADS {
        long long leaf = BRK_BID * BRK_B + BRK_TID;
        if (leaf < nleaves) {
            int st = 0;
            BRK_T acc = BRK_START;
            unsigned char h = 0;
            offs[leaf] = brk_leaf_run(&E, leaf, &acc, &h, 0, &st);
            vals[leaf] = acc;
            has[leaf] = h;
            if (st) *flag = 1;
        }
    }
}

BRK_KERNEL brk_scan_level(const brk_slot *A, long long nleaves, long long count, BRK_T *vals, unsigned char *has,
                          long long *offs, BRK_T *out, int *flag)
{
    (void)A;
    (void)nleaves;
    (void)offs;
    (void)out;
    BRK_THREADS {
        long long j = BRK_BID * BRK_B + BRK_TID;
        if (j < (count + 1) / 2) {
            int st = 0;
            BRK_T v = vals[2 * j];
            unsigned char h = has[2 * j];
            if (2 * j + 1 < count)
                brk_merge(&st, &v, &h, vals[2 * j + 1], has[2 * j + 1]);
            vals[count + j] = v;
            has[count + j] = h;
            if (st) *flag = 1;
        }
    }
}

BRK_KERNEL brk_scan_entries(const brk_slot *A, long long nleaves, long long count, BRK_T *vals,
                            unsigned char *has, long long *offs, BRK_T *out, int *flag)
{
    struct brk_env E;
    brk_env_load(&E, A);
    (void)count;
    /* the carries read levels 0 .. K - 1, K the bit length of nleaves - 1 */
    int K = 0;
    while (K < 62 && (1LL << K) < nleaves)
        K++;
    long long top = brk_level_at(nleaves, K);
    BRK_THREADS {
        long long L = BRK_BID * BRK_B + BRK_TID;
        if (L < nleaves) {
            int st = 0;
            BRK_T acc = BRK_START;
            unsigned char h = !BRK_MINMAX;
            long long at = top;
            for (int bit = K - 1; bit >= 0 && !st; bit--) {
                at -= (nleaves + (1LL << bit) - 1) >> bit;
                if ((L >> bit) & 1) {
                    long long j = at + (L >> bit) - 1;
                    brk_merge(&st, &acc, &h, vals[j], has[j]);
                }
            }
            if (!st)
                brk_leaf_run(&E, L, &acc, &h, out + offs[L], &st);
            if (st) *flag = 1;
        }
    }
}
