/*
 * kernel_keyed.h: the end of a keyed reduction's kernel module (`by KEY in
 * 0..N`, SPEC 15), after kernel_tree.h. Key j's result is the reduction
 * with the filter `cond and KEY == j` over the one tree, so each node of
 * the tree holds, for every key with an element under it, that key's value
 * of the node: a list of (key, value) sorted by key, at most min(N, the
 * node's elements) long.
 *
 *   brk_by_leaves  a thread per leaf: its kept elements, each key's folded
 *                  left to right from the start value (min/max: from its
 *                  first element), sorted by key into the leaf's list at
 *                  out + leaf * cap(0), its length into offs[leaf]
 *   brk_by_level   a thread per node of the next level: node j's list is
 *                  the merge of the lists of nodes 2j and 2j + 1 of the
 *                  level below (vals), a key in both combined left op
 *                  right, a key in one side moving up as it is; written at
 *                  out + j * cap(h + 1), its length into offs[count + j]
 *                  (offs points at the level below's lengths)
 *
 * cap(h) = min(N, 16 * 2^h), so a level takes at most about as many
 * entries as there are elements. The host merges level after level to the
 * root and scatters its list into the N results. A key out of range, an
 * overflow or an element panic raises the flag and the CPU runs the
 * reduction again, which reports the panic SPEC 15 names. Kernel text,
 * embedded like kernel_tree.h (tools/embed.c: brine_kernel_keyed; this
 * banner is left out). It uses, besides kernel_tree.h's: brk_elem_key (the
 * filter, then the key, then the value) and the environment's nk (N).
 */

typedef struct brk_kv {
    long long k;
    BRK_T v;
} brk_kv;

/* The most entries a node of level h holds. */
BRK_FN long long brk_by_cap(long long nk, int h)
{
    long long c = h < 40 ? (long long)BRK_LEAF << h : (long long)BRK_LEAF << 40;
    return c < nk ? c : nk;
}

BRK_KERNEL brk_by_leaves(const brk_slot *A, long long nleaves, long long count, BRK_T *vals, unsigned char *has,
                         long long *offs, BRK_T *out, int *flag)
{
    struct brk_env E;
    brk_env_load(&E, A);
    (void)count;
    (void)vals;
    (void)has;
    long long cap = brk_by_cap(E.nk, 0);
    BRK_THREADS {
        long long leaf = BRK_BID * BRK_B + BRK_TID;
        if (leaf < nleaves) {
            long long kk[BRK_LEAF];
            BRK_T vv[BRK_LEAF];
            int st = 0, c = 0;
            long long b = leaf * BRK_LEAF;
            int m = E.n - b < BRK_LEAF ? (int)(E.n - b) : BRK_LEAF;
            for (int j = 0; j < m && !st; j++) {
                long long key = 0;
                BRK_T x;
                if (!brk_elem_key(&E, brk_gen(&E, b + j), &key, &x, &st) || st)
                    continue;
                if ((unsigned long long)key >= (unsigned long long)E.nk) {
                    st = 1;
                    break;
                }
                int i = 0;
                while (i < c && kk[i] != key)
                    i++;
                if (i < c) {
                    vv[i] = brk_op(&st, vv[i], x);
                } else {
                    kk[c] = key;
#if BRK_MINMAX
                    vv[c] = x;
#else
                    vv[c] = brk_op(&st, BRK_START, x);
#endif
                    c++;
                }
            }
            /* the keys are distinct: an insertion sort of at most 16 */
            for (int i = 1; i < c; i++) {
                long long k = kk[i];
                BRK_T v = vv[i];
                int p = i;
                while (p > 0 && kk[p - 1] > k) {
                    kk[p] = kk[p - 1];
                    vv[p] = vv[p - 1];
                    p--;
                }
                kk[p] = k;
                vv[p] = v;
            }
            brk_kv *o = (brk_kv *)out + leaf * cap;
            for (int i = 0; i < c; i++) {
                o[i].k = kk[i];
                o[i].v = vv[i];
            }
            offs[leaf] = c;
            if (st) *flag = 1;
        }
    }
}

BRK_KERNEL brk_by_level(const brk_slot *A, long long nleaves, long long count, BRK_T *vals, unsigned char *has,
                        long long *offs, BRK_T *out, int *flag)
{
    struct brk_env E;
    brk_env_load(&E, A);
    (void)has;
    /* the level below: the h with ceil(nleaves / 2^h) = count */
    int h = 0;
    while (h < 62 && ((nleaves + (1LL << h) - 1) >> h) > count)
        h++;
    long long ci = brk_by_cap(E.nk, h), co = brk_by_cap(E.nk, h + 1);
    const brk_kv *in = (const brk_kv *)vals;
    BRK_THREADS {
        long long j = BRK_BID * BRK_B + BRK_TID;
        if (j < (count + 1) / 2) {
            const brk_kv *l = in + 2 * j * ci, *r = in + (2 * j + 1) * ci;
            long long nl = offs[2 * j], nr = 2 * j + 1 < count ? offs[2 * j + 1] : 0;
            brk_kv *o = (brk_kv *)out + j * co;
            long long a = 0, b = 0, c = 0;
            int st = 0;
            while (a < nl && b < nr) {
                if (l[a].k < r[b].k) {
                    o[c++] = l[a++];
                } else if (r[b].k < l[a].k) {
                    o[c++] = r[b++];
                } else {
                    o[c].k = l[a].k;
                    o[c].v = brk_op(&st, l[a].v, r[b].v);
                    c++, a++, b++;
                }
            }
            while (a < nl)
                o[c++] = l[a++];
            while (b < nr)
                o[c++] = r[b++];
            offs[count + j] = c;
            if (st) *flag = 1;
        }
    }
}
