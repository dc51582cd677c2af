/*
 * world.c: one program as R processes (ranks) on MPI (docs/world.md).
 *
 * MPI is loaded at run time, never linked: a program that names `world`
 * calls brt_world_start() after brt_start(), and only then, only when a
 * launcher started the process (mpirun's or PMI's variables are set), is
 * libmpi dlopen'ed: the launcher's own, libmpi.so.40 for Open MPI's
 * mpirun, libmpich.so.12 (Debian) or libmpi.so.12 for MPICH's hydra, as
 * both may be installed side by side (BRINE_MPI overrides the choice).
 * Without a launcher the program is rank 0 of 1 and never touches MPI, so
 * `./prog` and `brine run` behave exactly as one process.
 *
 * Only what can be called portably is used: MPI_Init, Comm_rank/size,
 * Allgather, Bcast and Barrier of MPI_BYTE on MPI_COMM_WORLD, Finalize and
 * Abort. The two ABIs differ in their handles: Open MPI's MPI_COMM_WORLD
 * and MPI_BYTE are the addresses of ompi_mpi_comm_world and ompi_mpi_byte
 * (looked up with dlsym); MPICH's are the ints 0x44000000 and 0x4c00010d.
 * Both are passed as intptr_t: an int argument reads the low half of the
 * register on x86-64 and aarch64, so one set of prototypes serves both.
 * Every value travels as bytes; folding is done here, in rank order, with
 * the runtime's own checked arithmetic, so the result never depends on the
 * MPI library's reduction order.
 *
 * Distributed reductions (world.sum(f(i) for i in ...)): the leaves [0, L)
 * of SPEC 5.2's tree are split into R contiguous ranges; a range decomposes
 * into maximal aligned blocks of 2^k leaves (each a node (k, j) of the one
 * tree), which the rank evaluates as par reductions of their own: with
 * brt_reduce_tree on its own pool, or, for a reduction the compiler made a
 * kernel for, through its way to the device (brt_gpu_fn), which decides
 * between the GPU and the pool as for any par reduction; the kernels
 * compute a block as the subtree it is.
 * The roots travel to every rank in rank order, and every rank pushes them
 * on the same binary-counter stack reduce.c uses: a block starting at a
 * multiple of 2^k is pushed onto subtrees of level >= k, exactly as its
 * leaves would have been, so the top of the tree is folded in the one
 * process's order and every rank holds the one process's bits.
 *
 * Panics. A panic every rank meets at once (a collective's overflow, a
 * distributed reduction's panic) is written once, by rank 0, without a
 * prefix, and every rank ends with 101 after a barrier. A distributed
 * reduction's share runs under a trap; if any rank's share panicked, rank 0
 * runs the whole reduction itself, which reports SPEC 5.3's panic exactly
 * as one process would. Any other panic is one rank's own: it is written
 * with the prefix "rank N: " (when R > 1) and MPI_Abort ends the job.
 */
#include "rt_internal.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

typedef intptr_t mpi_h; /* a communicator or datatype: a pointer (Open MPI) or an int (MPICH) */

static struct {
    int rank, size;
    bool on;       /* MPI_Init done, MPI_Finalize not yet */
    bool together; /* a panic now is met by every rank at once */
    mpi_h comm, byte;
    int (*init)(int *, char ***);
    int (*finalize)(void);
    int (*comm_rank)(mpi_h, int *);
    int (*comm_size)(mpi_h, int *);
    int (*allgather)(const void *, int, mpi_h, void *, int, mpi_h, mpi_h);
    int (*bcast)(void *, int, mpi_h, int, mpi_h);
    int (*barrier)(mpi_h);
    int (*abort)(mpi_h, int);
} W = {.rank = 0, .size = 1};

static void world_end(void)
{
    if (W.on) {
        W.on = false;
        W.finalize();
    }
}

BRT_NORETURN static void world_fail(const char *what)
{
    brt_flush_quiet();
    fprintf(stderr, "brine: world: %s\n", what);
    _exit(2);
}

/* The two implementations this runtime speaks to, and how to tell them apart. */
enum mpi_impl { MPI_NONE, MPI_OPEN, MPI_MPICH };

static const struct mpi_lib {
    const char *name;        /* BRINE_MPI's spelling */
    const char *libs[3];     /* dlopen'ed in this order */
} mpi_libs[] = {
    [MPI_OPEN] = { "openmpi", { "libmpi.so.40", NULL, NULL } },
    /* Debian names MPICH's library libmpich.so.12, MPICH's own install libmpi.so.12 */
    [MPI_MPICH] = { "mpich", { "libmpich.so.12", "libmpi.so.12", NULL } },
};

/* Which launcher started us: Open MPI's mpirun sets OMPI_COMM_WORLD_SIZE,
 * MPICH's hydra (mpiexec.mpich) sets PMI_SIZE; a bare PMIx launcher is taken
 * for Open MPI's. BRINE_MPI=openmpi|mpich overrides the choice of library. */
static enum mpi_impl pick_impl(const char **size_var)
{
    enum mpi_impl impl = MPI_NONE;
    *size_var = NULL;
    if (getenv("OMPI_COMM_WORLD_SIZE"))
        impl = MPI_OPEN, *size_var = "OMPI_COMM_WORLD_SIZE";
    else if (getenv("PMI_SIZE"))
        impl = MPI_MPICH, *size_var = "PMI_SIZE";
    else if (getenv("PMIX_RANK"))
        impl = MPI_OPEN;
    const char *v = getenv("BRINE_MPI");
    if (v) {
        if (strcmp(v, "openmpi") == 0)
            impl = impl == MPI_NONE ? MPI_NONE : MPI_OPEN;
        else if (strcmp(v, "mpich") == 0)
            impl = impl == MPI_NONE ? MPI_NONE : MPI_MPICH;
        else {
            brt_flush_quiet();
            fprintf(stderr, "brine: BRINE_MPI must be one of openmpi, mpich, got '%s'\n", v);
            _exit(2);
        }
    }
    return impl;
}

void brt_world_start(void)
{
    const char *size_var;
    enum mpi_impl impl = pick_impl(&size_var);
    if (impl == MPI_NONE)
        return;
    const struct mpi_lib *lib = &mpi_libs[impl];
    void *h = NULL;
    for (int i = 0; i < 3 && lib->libs[i] && !h; i++)
        h = dlopen(lib->libs[i], RTLD_NOW | RTLD_GLOBAL); /* GLOBAL: Open MPI's plugins need libmpi's symbols */
    if (!h) {
        char msg[256];
        snprintf(msg, sizeof msg, "started by an MPI launcher, but %s's library could not be loaded (%s%s%s)",
                 impl == MPI_OPEN ? "Open MPI" : "MPICH", lib->libs[0], lib->libs[1] ? " or " : "",
                 lib->libs[1] ? lib->libs[1] : "");
        world_fail(msg);
    }
    void *comm = dlsym(h, "ompi_mpi_comm_world"), *byte = dlsym(h, "ompi_mpi_byte");
    if (impl == MPI_OPEN && comm && byte) {
        W.comm = (mpi_h)comm;
        W.byte = (mpi_h)byte;
    } else if (impl == MPI_MPICH && !comm) {
        W.comm = 0x44000000;  /* MPICH's MPI_COMM_WORLD */
        W.byte = 0x4c00010d;  /* MPICH's MPI_BYTE */
    } else {
        world_fail(impl == MPI_OPEN ? "the library loaded for Open MPI is not Open MPI"
                                    : "the library loaded for MPICH is not MPICH");
    }
#define LOAD(field, name)                                   \
    if (!(*(void **)&W.field = dlsym(h, name)))             \
        world_fail("the MPI library has no " name);
    LOAD(init, "MPI_Init")
    LOAD(finalize, "MPI_Finalize")
    LOAD(comm_rank, "MPI_Comm_rank")
    LOAD(comm_size, "MPI_Comm_size")
    LOAD(allgather, "MPI_Allgather")
    LOAD(bcast, "MPI_Bcast")
    LOAD(barrier, "MPI_Barrier")
    LOAD(abort, "MPI_Abort")
#undef LOAD
    if (W.init(NULL, NULL) != 0)
        world_fail("MPI_Init failed");
    W.on = true;
    W.comm_rank(W.comm, &W.rank);
    W.comm_size(W.comm, &W.size);
    atexit(world_end); /* after brt_finish's flush: main's return, os.exit */
    /* One launcher's job joined by the other's library runs every rank as a
     * singleton, each printing the one-process output: refuse it. */
    const char *want = size_var ? getenv(size_var) : NULL;
    if (want && strtol(want, NULL, 10) != W.size) {
        char msg[160];
        snprintf(msg, sizeof msg, "the launcher started %s ranks but the MPI library sees %d "
                 "(a launcher of one MPI with the library of another? see BRINE_MPI)", want, W.size);
        world_fail(msg);
    }
}

int64_t brt_world_rank(void) { return W.rank; }
int64_t brt_world_size(void) { return W.size; }

/* A collective reached inside the elements of a par or world reduction or
 * comprehension, through a path the compiler could not see: the elements run
 * on any thread (on one rank only, in a world reduction), so the ranks would
 * not make the same calls in the same order. Refused at every R alike. */
static void outside_par(const char *what, const brt_loc *loc)
{
    if (brt_par_running() > 0)
        brt_panic_msg(loc, "world.%s cannot run inside the elements of a par or world reduction or comprehension", what);
}

void brt_world_barrier(const brt_loc *loc)
{
    outside_par("barrier", loc);
    if (W.on)
        W.barrier(W.comm);
}

/* ---- panics (panic.c asks) ------------------------------------------------ */

const char *brt_world_panic_prefix(void)
{
    static char buf[32];
    if (!W.on || W.size == 1)
        return "";
    if (W.together)
        return W.rank == 0 ? "" : NULL;
    snprintf(buf, sizeof buf, "rank %d: ", W.rank);
    return buf;
}

/* Whether fd is a pipe holding bytes its reader has not read yet. */
static bool pipe_unread(int fd)
{
    struct stat st;
    int left = 0;
    return fstat(fd, &st) == 0 && S_ISFIFO(st.st_mode) && ioctl(fd, FIONREAD, &left) == 0 && left > 0;
}

void brt_world_panic_end(void)
{
    if (!W.on)
        return;
    if (W.together || W.size == 1) {
        /* rank 0 has written the panic; nobody leaves before it has */
        W.barrier(W.comm);
        world_end();
        _exit(101);
    }
    /* The panic is written; MPICH's MPI_Abort would add a note of its own
     * on stderr (Open MPI's comes from mpirun, which -q silences). The
     * launcher kills the job on the abort, maybe before it has read what
     * this rank wrote: wait (a second at most) until the pipes behind
     * stdout and stderr are drained. */
    brt_flush_quiet();
    for (int i = 0; i < 1000 && (pipe_unread(1) || pipe_unread(2)); i++)
        usleep(1000);
    int null = open("/dev/null", O_WRONLY);
    if (null >= 0)
        dup2(null, 2);
    W.abort(W.comm, 101);
    _exit(101);
}

/* A panic that every rank meets now, written once by rank 0. */
BRT_NORETURN static void together_panic(const brt_loc *loc, brt_panic_kind kind)
{
    W.together = true;
    brt_panic(loc, kind);
}

BRT_NORETURN void brt_world_panic(const brt_loc *loc, brt_panic_kind kind)
{
    together_panic(loc, kind);
}

/* Every rank's n bytes at src, in rank order, into a new block. */
static void *gather_bytes(const void *src, size_t n)
{
    unsigned char *all = brt_xmalloc(n * (size_t)W.size + 1);
    if (W.on && W.size > 1)
        W.allgather(src, (int)n, W.byte, all, (int)n, W.byte, W.comm);
    else
        memcpy(all, src, n);
    return all;
}

/* ---- scalar collectives ----------------------------------------------------- */

/* acc = acc op x for one scalar type, checked (SPEC 4, 5.1). */
static void fold_one(int op, const brt_type *t, void *acc, const void *x, const brt_loc *loc)
{
    switch (t->kind) {
    case BRT_INT: {
        int64_t a = *(int64_t *)acc, b = *(const int64_t *)x;
        *(int64_t *)acc = op == BRT_W_SUM ? brt_add_i64(a, b, loc) : op == BRT_W_PRODUCT ? brt_mul_i64(a, b, loc)
                        : (op == BRT_W_MIN ? b < a : b > a) ? b : a;
        return;
    }
    case BRT_U64: {
        uint64_t a = *(uint64_t *)acc, b = *(const uint64_t *)x;
        *(uint64_t *)acc = op == BRT_W_SUM ? brt_add_u64(a, b, loc) : op == BRT_W_PRODUCT ? brt_mul_u64(a, b, loc)
                         : (op == BRT_W_MIN ? b < a : b > a) ? b : a;
        return;
    }
    case BRT_I128: {
        brt_i128 a = *(brt_i128 *)acc, b = *(const brt_i128 *)x;
        int c = brt_cmp_i128(b, a);
        *(brt_i128 *)acc = op == BRT_W_SUM ? brt_add_i128(a, b, loc) : op == BRT_W_PRODUCT ? brt_mul_i128(a, b, loc)
                         : (op == BRT_W_MIN ? c < 0 : c > 0) ? b : a;
        return;
    }
    case BRT_FLOAT: {
        double a = *(double *)acc, b = *(const double *)x;
        *(double *)acc = op == BRT_W_SUM ? a + b : op == BRT_W_PRODUCT ? a * b
                       : (op == BRT_W_MIN ? b < a : b > a) ? b : a;
        return;
    }
    case BRT_BOOL: {
        bool a = *(bool *)acc, b = *(const bool *)x;
        *(bool *)acc = op == BRT_W_ANY ? (a || b) : (a && b);
        return;
    }
    case BRT_STR: case BRT_ARR: case BRT_TUPLE: case BRT_FN:
        break;
    }
    brt_panic_text(loc, "world: no collective for this type");
}

void brt_world_fold(int op, const brt_type *t, void *val, const brt_loc *loc)
{
    static const char *const names[] = { [BRT_W_SUM] = "sum", [BRT_W_PRODUCT] = "product", [BRT_W_MIN] = "min",
                                         [BRT_W_MAX] = "max", [BRT_W_ANY] = "any", [BRT_W_ALL] = "all" };
    outside_par(names[op], loc);
    if (W.size == 1)
        return;
    size_t n = brt_type_size(t);
    unsigned char *all = gather_bytes(val, n);
    memcpy(val, all, n);
    W.together = true; /* every rank folds the same values: an overflow is everyone's */
    for (int q = 1; q < W.size; q++)
        fold_one(op, t, val, all + (size_t)q * n, loc);
    W.together = false;
    free(all);
}

/* ---- broadcast and gather: values as bytes ------------------------------------ */

static void put(brt_sb *sb, const void *p, size_t n)
{
    brt_sb_reserve(sb, (int64_t)n);
    memcpy(sb->buf + sb->len, p, n);
    sb->len += (int64_t)n;
}

/* Appends the value at valp (of type t) to sb. */
static void encode(brt_sb *sb, const brt_type *t, const void *valp)
{
    if (t->kind == BRT_STR) {
        const brt_str *s = *(brt_str *const *)valp;
        put(sb, &s->len, sizeof s->len);
        put(sb, s->data, (size_t)s->len);
    } else if (t->kind == BRT_ARR) {
        const brt_arr *a = *(brt_arr *const *)valp;
        size_t es = brt_type_size(a->elem);
        put(sb, &a->len, sizeof a->len);
        for (int64_t i = 0; i < a->len; i++)
            encode(sb, t->elem, (const char *)a->data + (size_t)i * es);
    } else if (t->kind == BRT_TUPLE) {
        /* a None is its flag alone (its value is zero bits, no references) */
        int n = t->option && !*(const bool *)valp ? 1 : t->nfields;
        for (int i = 0; i < n; i++)
            encode(sb, t->fields[i], (const char *)valp + t->offsets[i]);
    } else {
        put(sb, valp, brt_type_size(t));
    }
}

/* Reads one value of type t from *p into valp (a new reference for str and
 * arrays). */
static void decode(const char **p, const brt_type *t, void *valp)
{
    if (t->kind == BRT_STR) {
        int64_t len;
        memcpy(&len, *p, sizeof len);
        *p += sizeof len;
        *(brt_str **)valp = brt_str_new(*p, len);
        *p += len;
    } else if (t->kind == BRT_ARR) {
        int64_t len;
        memcpy(&len, *p, sizeof len);
        *p += sizeof len;
        size_t es = brt_type_size(t->elem);
        char *elems = brt_xmalloc(es * (size_t)len + 1);
        for (int64_t i = 0; i < len; i++)
            decode(p, t->elem, elems + (size_t)i * es);
        *(brt_arr **)valp = brt_arr_from(t->elem, len, elems);
        free(elems);
    } else if (t->kind == BRT_TUPLE) {
        memset(valp, 0, t->size);
        for (int i = 0; i < t->nfields; i++) {
            decode(p, t->fields[i], (char *)valp + t->offsets[i]);
            if (t->option && !*(const bool *)valp)
                break; /* None: the flag alone */
        }
    } else {
        size_t n = brt_type_size(t);
        memcpy(valp, *p, n);
        *p += n;
    }
}

/* A copy of the value at in (a new reference for str and arrays). */
static void copy_val(const brt_type *t, const void *in, void *out)
{
    brt_copy_n(t, out, in, 1);
}

void brt_world_broadcast(const brt_type *t, const void *in, void *out, int64_t root, const brt_loc *loc)
{
    outside_par("broadcast", loc);
    if (root < 0 || root >= W.size) {
        W.together = true;
        brt_panic_msg(loc, "world.broadcast: root must be from 0 to %d, got %lld", W.size - 1, (long long)root);
    }
    if (W.size == 1) {
        copy_val(t, in, out);
        return;
    }
    brt_sb sb = {0};
    if (W.rank == root)
        encode(&sb, t, in);
    int64_t len = sb.len;
    W.bcast(&len, (int)sizeof len, W.byte, (int)root, W.comm);
    if (len > 0x7fffffff)
        brt_panic_text(loc, "world.broadcast: a value over 2 GiB");
    if (W.rank != root)
        brt_sb_reserve(&sb, len);
    W.bcast(sb.buf, (int)len, W.byte, (int)root, W.comm);
    if (W.rank == root) {
        copy_val(t, in, out);
    } else {
        const char *p = sb.buf;
        decode(&p, t, out);
    }
    free(sb.buf);
}

brt_arr *brt_world_gather(const brt_type *t, const void *in, const brt_loc *loc)
{
    outside_par("gather", loc);
    size_t es = brt_type_size(t);
    char *elems = brt_xmalloc(es * (size_t)W.size + 1);
    if (W.size == 1) {
        copy_val(t, in, elems);
    } else if (t->kind != BRT_STR && t->kind != BRT_ARR && t->kind != BRT_TUPLE) {
        free(elems);
        elems = gather_bytes(in, es);
    } else {
        brt_sb sb = {0};
        encode(&sb, t, in);
        int64_t len = sb.len, *lens = gather_bytes(&len, sizeof len), most = 0;
        for (int q = 0; q < W.size; q++)
            most = lens[q] > most ? lens[q] : most;
        if (most * W.size > 0x7fffffff)
            brt_panic_text(NULL, "world.gather: values over 2 GiB");
        brt_sb_reserve(&sb, most - len + 1);
        char *all = brt_xmalloc((size_t)(most * W.size) + 1);
        W.allgather(sb.buf, (int)most, W.byte, all, (int)most, W.byte, W.comm);
        for (int q = 0; q < W.size; q++) {
            const char *p = all + q * most;
            decode(&p, t, elems + (size_t)q * es);
        }
        free(all);
        free(lens);
        free(sb.buf);
    }
    brt_arr *a = brt_arr_from(t, W.size, elems);
    free(elems);
    return a;
}

/* ---- distributed reductions ------------------------------------------------------ */

#define MAX_BLOCKS 128 /* a range of leaves < 2^62 splits into fewer aligned blocks */

struct wblock {
    _Alignas(16) unsigned char val[16];
    int32_t level, has;
};

struct wshare {
    int32_t panicked, nblocks;
    struct wblock b[MAX_BLOCKS];
};

int brt_world_blocks(int64_t nleaves, int ranks, int rank, int64_t *first, int *level)
{
    int64_t per = nleaves / ranks, extra = nleaves % ranks;
    int64_t a = per * rank + (rank < extra ? rank : extra);
    int64_t b = a + per + (rank < extra ? 1 : 0);
    int nb = 0;
    while (a < b) {
        int k = a == 0 ? 62 : __builtin_ctzll((unsigned long long)a);
        while (k > 0 && ((int64_t)1 << k) > b - a)
            k--;
        first[nb] = a;
        level[nb] = k;
        nb++;
        a += (int64_t)1 << k;
    }
    return nb;
}

/* Leaves [base, base + count) of an outer reduction, renumbered from 0. */
struct shifted {
    const brt_reduce *r;
    int64_t base;
};

static void shifted_leaves(void *env, int64_t first, int64_t count, void *vals, unsigned char *has)
{
    struct shifted *s = env;
    s->r->leaves(s->r->env, s->base + first, count, vals, has);
}

static void shifted_combine(void *env, void *left, const void *right)
{
    struct shifted *s = env;
    s->r->combine(s->r->env, left, right);
}

static void shifted_fold(void *env, void *vals, unsigned char *has)
{
    struct shifted *s = env;
    s->r->fold(s->r->env, vals, has);
}

/* Element k of the block is element base * BRT_LEAF + k of the whole. */
static bool shifted_elem(void *env, int64_t k, void *out)
{
    struct shifted *s = env;
    return s->r->elem(s->r->env, s->base * BRT_LEAF + k, out);
}

/* Evaluates rank's share of r's tree (its blocks' roots) into *sh, each
 * block on the pool, or through gpu (r's way to the device; NULL: none)
 * exactly as a par reduction of the block's leaves would be. */
static void eval_share(const brt_reduce *r, brt_gpu_fn gpu, int ranks, int rank, struct wshare *sh)
{
    int64_t nleaves = (r->n + BRT_LEAF - 1) / BRT_LEAF;
    int64_t first[MAX_BLOCKS];
    int level[MAX_BLOCKS];
    int nb = brt_world_blocks(nleaves, ranks, rank, first, level);
    sh->nblocks = nb;
    for (int i = 0; i < nb; i++) {
        struct shifted s = { r, first[i] };
        brt_reduce sub = *r;
        sub.env = &s;
        sub.leaves = shifted_leaves;
        sub.combine = shifted_combine;
        sub.fold = r->fold ? shifted_fold : NULL;
        sub.elem = r->elem ? shifted_elem : NULL; /* the pool's element path, renumbered too */
        sub.n = ((int64_t)1 << level[i]) * BRT_LEAF;
        /* the last block may hold the tree's short last leaf: it ends at n */
        if (first[i] * BRT_LEAF + sub.n > r->n)
            sub.n = r->n - first[i] * BRT_LEAF;
        sh->b[i].has = gpu ? gpu(r->env, &sub, first[i], sh->b[i].val) : brt_reduce_tree(&sub, sh->b[i].val);
        sh->b[i].level = level[i];
    }
}

/* left = left op right, a side without a value letting the other move up. */
static void merge(const brt_reduce *r, struct wblock *left, const struct wblock *right)
{
    if (!right->has)
        return;
    if (!left->has) {
        memcpy(left->val, right->val, r->vsize);
        left->has = 1;
        return;
    }
    r->combine(r->env, left->val, right->val);
}

/* The top of the tree: every share's blocks pushed in rank order on the
 * binary-counter stack (equal levels merge), then folded from the right. */
static bool finish_top(const brt_reduce *r, const struct wshare *shares, int ranks, void *out)
{
    struct wblock st[MAX_BLOCKS + 1];
    int sp = 0;
    for (int q = 0; q < ranks; q++)
        for (int i = 0; i < shares[q].nblocks; i++) {
            st[sp++] = shares[q].b[i];
            while (sp >= 2 && st[sp - 1].level == st[sp - 2].level) {
                merge(r, &st[sp - 2], &st[sp - 1]);
                st[sp - 2].level++;
                sp--;
            }
        }
    if (sp == 0)
        return false;
    struct wblock acc = st[sp - 1];
    for (int i = sp - 2; i >= 0; i--) {
        struct wblock left = st[i];
        merge(r, &left, &acc);
        acc = left;
    }
    if (acc.has)
        memcpy(out, acc.val, r->vsize);
    return acc.has != 0;
}

bool brt_world_reduce_split(const brt_reduce *r, int ranks, void *out)
{
    if (r->n <= 0)
        return false;
    struct wshare *shares = brt_xmalloc(sizeof *shares * (size_t)ranks);
    for (int q = 0; q < ranks; q++) {
        shares[q].panicked = 0;
        eval_share(r, NULL, ranks, q, &shares[q]);
    }
    bool has = finish_top(r, shares, ranks, out);
    free(shares);
    return has;
}

bool brt_world_reduce_tree(const brt_reduce *r, brt_gpu_fn gpu, void *out)
{
    outside_par("sum, product, min or max of a generator", r->loc);
    if (r->n <= 0)
        return false;
    if (W.size == 1)
        return gpu ? gpu(r->env, r, 0, out) : brt_reduce_tree(r, out);
    struct wshare *mine = brt_xmalloc(sizeof *mine);
    memset(mine, 0, sizeof *mine);
    brt_trap trap, *outer = brt_trap_get();
    trap.panicked = 0;
    trap.msg = NULL;
    brt_trap_set(&trap);
    if (setjmp(trap.jb) == 0) {
        eval_share(r, gpu, W.size, W.rank, mine);
    } else {
        free(trap.msg);
        mine->panicked = 1;
    }
    brt_trap_set(outer);
    struct wshare *shares = gather_bytes(mine, sizeof *mine);
    free(mine);
    bool panicked = false;
    for (int q = 0; q < W.size; q++)
        panicked |= shares[q].panicked != 0;
    W.together = true; /* from here on every rank meets the same panic */
    if (panicked) {
        free(shares);
        if (W.rank == 0) {
            brt_reduce_tree(r, out); /* SPEC 5.3's panic, as one process reports it */
            brt_panic_text(r->loc, "world: a rank's share of this reduction panicked");
        }
        brt_flush_quiet();
        brt_world_panic_end();
        _exit(101);
    }
    bool has = finish_top(r, shares, W.size, out);
    W.together = false;
    free(shares);
    return has;
}

/* ---- world.reduce(f, start, gen) of values holding references ----------------
 *
 * The generated code folds the elements in the tree's order on the calling
 * thread (emit_par.c, emit_seq_reduce), in blocks of BRT_WBLOCK leaves: a
 * rank evaluates the elements of blocks b with b % R == rank only (the
 * others' leaves are counted, their elements skipped) and keeps each of its
 * blocks' root, folded from the right inside the block. Its share runs
 * under a trap (brt_world_share_begin / _end): if any rank's share
 * panicked, rank 0 runs the whole reduction alone, as one process, and
 * writes its panic. Otherwise the roots travel to every rank, serialised as
 * world.gather's values are (brt_world_roots), and every rank folds them as
 * the top of the one tree: the same bits on every rank and every R. */

static brt_trap *share_trap, *share_outer;

void *brt_world_share_begin(const brt_loc *loc)
{
    outside_par("reduce", loc);
    if (share_trap)
        brt_panic_text(loc, "world.reduce cannot run inside the function of another world.reduce");
    share_trap = brt_xmalloc(sizeof *share_trap);
    memset(share_trap, 0, sizeof *share_trap);
    share_outer = brt_trap_get();
    brt_trap_set(share_trap);
    return share_trap->jb;
}

bool brt_world_share_end(bool panicked, const brt_loc *loc)
{
    (void)loc;
    brt_trap_set(share_outer);
    free(share_trap->msg);
    free(share_trap);
    share_trap = NULL;
    int32_t mine = panicked, *all = gather_bytes(&mine, sizeof mine);
    bool any = false;
    for (int q = 0; q < W.size; q++)
        any |= all[q] != 0;
    free(all);
    if (!any)
        return false;
    W.together = true; /* rank 0 writes the one-process panic */
    if (W.rank == 0)
        return true;
    brt_flush_quiet();
    brt_world_panic_end();
    _exit(101);
}

/* Every rank's encoded roots (sb, freed here), each in a slot of *most
 * bytes, in rank order. */
static char *gather_roots(brt_sb *sb, int64_t *most)
{
    int64_t len = sb->len, *lens = gather_bytes(&len, sizeof len);
    *most = 0;
    for (int q = 0; q < W.size; q++)
        *most = lens[q] > *most ? lens[q] : *most;
    free(lens);
    if (*most * W.size > 0x7fffffff)
        brt_panic_text(NULL, "world.reduce: the roots of the ranks' shares are over 2 GiB");
    brt_sb_reserve(sb, *most - len + 1);
    char *all = brt_xmalloc((size_t)(*most * W.size) + 1);
    W.allgather(sb->buf, (int)*most, W.byte, all, (int)*most, W.byte, W.comm);
    free(sb->buf);
    return all;
}

void brt_world_roots(const brt_type *t, brt_arr **vals, brt_arr **has, int64_t nblocks)
{
    W.together = true; /* the top's combines are every rank's */
    if (W.size == 1)
        return;
    brt_sb sb = {0};
    const brt_arr *v = *vals, *h = *has;
    size_t es = brt_type_size(t);
    for (int64_t i = 0; i < v->len; i++) {
        put(&sb, (const bool *)h->data + i, 1);
        encode(&sb, t, (const char *)v->data + (size_t)i * es);
    }
    int64_t most;
    char *all = gather_roots(&sb, &most);
    const char **at = brt_xmalloc(sizeof *at * (size_t)W.size);
    for (int q = 0; q < W.size; q++)
        at[q] = all + q * most;
    char *ve = brt_xmalloc(es * (size_t)nblocks + 1);
    bool *he = brt_xmalloc((size_t)nblocks + 1);
    for (int64_t b = 0; b < nblocks; b++) { /* block b is rank b % R's */
        const char **p = &at[b % W.size];
        memcpy(&he[b], *p, 1);
        *p += 1;
        decode(p, t, ve + (size_t)b * es);
    }
    brt_arr_release(*vals);
    brt_arr_release(*has);
    *vals = brt_arr_from(t, nblocks, ve);
    *has = brt_arr_from(&brt_t_bool, nblocks, he);
    free(ve);
    free(he);
    free(at);
    free(all);
}

void brt_world_alone(void) { W.together = false; }
/* Orders the roots by (key, position): every block's position differs. */
static int kroot_cmp(const void *x, const void *y)
{
    const int64_t *a = x, *b = y;
    return a[0] != b[0] ? (a[0] < b[0] ? -1 : 1) : a[1] != b[1] ? (a[1] < b[1] ? -1 : 1) : 0;
}

void brt_world_keyed_roots(const brt_type *t, brt_arr **vals, brt_arr **kp)
{
    W.together = true; /* the top's combines are every rank's */
    if (W.size == 1)
        return;
    brt_sb sb = {0};
    const brt_arr *v = *vals, *k = *kp;
    size_t es = brt_type_size(t);
    put(&sb, &v->len, sizeof v->len);
    for (int64_t i = 0; i < v->len; i++) {
        put(&sb, (const int64_t *)k->data + 2 * i, 2 * sizeof(int64_t));
        encode(&sb, t, (const char *)v->data + (size_t)i * es);
    }
    int64_t most;
    char *all = gather_roots(&sb, &most);
    int64_t m = 0;
    for (int q = 0; q < W.size; q++) {
        int64_t c;
        memcpy(&c, all + q * most, sizeof c);
        m += c;
    }
    /* (key, position, index) triples sorted, the values decoded in place */
    int64_t *tri = brt_xmalloc(sizeof *tri * 3 * (size_t)m + 1);
    char *ve = brt_xmalloc(es * (size_t)m + 1);
    int64_t i = 0;
    for (int q = 0; q < W.size; q++) {
        const char *p = all + q * most;
        int64_t c;
        memcpy(&c, p, sizeof c);
        p += sizeof c;
        for (int64_t e = 0; e < c; e++, i++) {
            memcpy(&tri[3 * i], p, 2 * sizeof(int64_t));
            p += 2 * sizeof(int64_t);
            tri[3 * i + 2] = i;
            decode(&p, t, ve + (size_t)i * es);
        }
    }
    qsort(tri, (size_t)m, 3 * sizeof *tri, kroot_cmp);
    char *vs = brt_xmalloc(es * (size_t)m + 1);
    int64_t *ks = brt_xmalloc(sizeof *ks * 2 * (size_t)m + 1);
    for (i = 0; i < m; i++) {
        memcpy(vs + (size_t)i * es, ve + (size_t)tri[3 * i + 2] * es, es);
        ks[2 * i] = tri[3 * i];
        ks[2 * i + 1] = tri[3 * i + 1];
    }
    brt_arr_release(*vals);
    brt_arr_release(*kp);
    *vals = brt_arr_from(t, m, vs);
    *kp = brt_arr_from(&brt_t_int, 2 * m, ks);
    free(vs);
    free(ks);
    free(ve);
    free(tri);
    free(all);
}


/* ---- world.sum(... by KEY in 0..N) and the other keyed reductions --------
 *
 * Each rank computes its aligned blocks of leaves (brt_world_blocks), each
 * block a keyed reduction of its own on the pool (the block's node of
 * every key's tree: a row of N values and flags); the rows meet on every
 * rank, which merges them as the top of the tree (in rank order, equal
 * levels merging, then folded from the right). Any panic, in a share or in
 * those merges, is reported by rank 0 alone from the one-process run,
 * whose order is SPEC 15's. */

struct kshift {
    const brt_fold *f;
    int64_t base; /* the block's first element */
};

static void kshift_elems(void *env, int64_t lo, int64_t hi, void *vals, unsigned char *kept, int64_t *keys)
{
    struct kshift *s = env;
    s->f->elems(s->f->env, s->base + lo, s->base + hi, vals, kept, keys);
}

static void kshift_kleaf(void *env, int64_t lo, int64_t hi, void *accs, unsigned char *has, const void *start)
{
    struct kshift *s = env;
    s->f->kleaf(s->f->env, s->base + lo, s->base + hi, accs, has, start);
}

static void kshift_combine(void *env, void *l, const void *r)
{
    struct kshift *s = env;
    s->f->combine(s->f->env, l, r);
}

static int64_t kshift_lfold(void *env, const void *vals, const unsigned char *kept, int64_t cnt, void *acc, bool has)
{
    struct kshift *s = env;
    return s->f->lfold(s->f->env, vals, kept, cnt, acc, has);
}

static void kshift_kacc(void *env, const void *vals, const int64_t *keys, int64_t cnt, void *accs,
                        unsigned char *has, const void *start)
{
    struct kshift *s = env;
    s->f->kacc(s->f->env, vals, keys, cnt, accs, has, start);
}

static bool kshift_kfree(void *env, int64_t lo, int64_t hi, void *accs, unsigned char *has, uint64_t *guard)
{
    struct kshift *s = env;
    return s->f->kfree(s->f->env, s->base + lo, s->base + hi, accs, has, guard);
}

static bool kshift_gpu(void *env, const brt_fold *f, int64_t base, int64_t n, int64_t nkeys, void *out,
                       unsigned char *has)
{
    (void)f;
    struct kshift *s = env;
    return s->f->gpu(s->f->env, s->f, s->base + base, n, nkeys, out, has);
}

static void kshift_kmerge(void *env, void *l, unsigned char *lh, const void *r, const unsigned char *rh, int64_t cnt)
{
    struct kshift *s = env;
    s->f->kmerge(s->f->env, l, lh, r, rh, cnt);
}

/* The one-process run (rank 0 alone, after a panic somewhere), or a
 * block's share: a keyed reduction's row of nkeys values and flags, or a
 * reduce's one value and flag. */
static void rows_run(const brt_fold *f, bool keyed, int64_t nkeys, void *out, unsigned char *has)
{
    if (keyed)
        brt_keyed_run(f, nkeys, out, has);
    else
        *has = brt_fold_reduce(f, out);
}

/* l = l op r for each of cnt values, a side without a value letting the
 * other through. */
static void rows_merge(const brt_fold *f, bool keyed, int64_t cnt, unsigned char *l, unsigned char *lh,
                       const unsigned char *r, const unsigned char *rh)
{
    if (keyed) {
        f->kmerge(f->env, l, lh, r, rh, cnt);
        return;
    }
    if (!*rh)
        return;
    if (!*lh) {
        memcpy(l, r, f->vsize);
        *lh = 1;
        return;
    }
    f->combine(f->env, l, r);
}

/* Rank 0 runs the whole reduction alone (it panics, written once); every
 * rank then leaves as a panic met together does. */
BRT_NORETURN static void rows_panicked(const brt_fold *f, bool keyed, int64_t nkeys, void *out, unsigned char *has,
                                       const brt_loc *loc)
{
    W.together = true;
    if (W.rank == 0) {
        rows_run(f, keyed, nkeys, out, has);
        brt_panic_text(loc, "world: a rank's share of this reduction panicked");
    }
    brt_flush_quiet();
    brt_world_panic_end();
    _exit(101);
}

/* The split of a keyed reduction (keyed) or of a reduce whose values the
 * built-in driver cannot hold, over the ranks: out/has as rows_run's. */
static void world_rows(const brt_fold *f, bool keyed, int64_t nkeys, void *out, unsigned char *has,
                       const brt_loc *loc)
{
    int64_t nleaves = f->n > 0 ? (f->n + BRT_LEAF - 1) / BRT_LEAF : 0;
    if (W.size == 1 || nleaves == 0 || (keyed && !f->kmerge)) {
        rows_run(f, keyed, nkeys, out, has);
        return;
    }
    size_t vs = f->vsize, nk = nkeys > 0 ? (size_t)nkeys : 0, rowb = nk * (vs + 1);
    int64_t first[MAX_BLOCKS];
    int level[MAX_BLOCKS], nbq[256], maxnb = 0;
    int ranks = W.size;
    int *nbs = ranks <= 256 ? nbq : brt_xmalloc((size_t)ranks * sizeof *nbs);
    for (int q = 0; q < ranks; q++) {
        nbs[q] = brt_world_blocks(nleaves, ranks, q, first, level);
        if (nbs[q] > maxnb)
            maxnb = nbs[q];
    }
    int nb = brt_world_blocks(nleaves, ranks, W.rank, first, level);
    /* this rank's payload: a panicked flag, then maxnb rows of values and flags */
    size_t pay = 8 + (size_t)maxnb * rowb;
    unsigned char *mine = brt_xmalloc(pay);
    memset(mine, 0, pay);
    brt_trap trap, *outer = brt_trap_get();
    trap.panicked = 0;
    trap.msg = NULL;
    brt_trap_set(&trap);
    if (setjmp(trap.jb) == 0) {
        for (int i = 0; i < nb; i++) {
            struct kshift ks = {f, first[i] * BRT_LEAF};
            brt_fold sub = *f;
            sub.env = &ks;
            sub.elems = kshift_elems;
            sub.gpu = f->gpu ? kshift_gpu : NULL; /* the rank's block on the device */
            sub.kleaf = f->kleaf ? kshift_kleaf : NULL;
            sub.combine = kshift_combine;
            sub.lfold = kshift_lfold;
            sub.lscan = NULL;
            sub.kacc = f->kacc ? kshift_kacc : NULL;
            sub.kmerge = f->kmerge ? kshift_kmerge : NULL;
            sub.src = NULL;
            sub.kstk = NULL;
            sub.kroots = NULL;
            sub.kstamp = NULL;
            sub.kcoll = NULL;
            sub.kfree = f->kfree ? kshift_kfree : NULL;
            sub.lfolds = NULL;
            sub.lscans = NULL;
            sub.n = ((int64_t)1 << level[i]) * BRT_LEAF;
            if (ks.base + sub.n > f->n)
                sub.n = f->n - ks.base;
            unsigned char *row = mine + 8 + (size_t)i * rowb;
            rows_run(&sub, keyed, nkeys, row, row + nk * vs);
        }
    } else {
        free(trap.msg);
        mine[0] = 1;
    }
    brt_trap_set(outer);
    unsigned char *all = gather_bytes(mine, pay);
    free(mine);
    bool panicked = false;
    for (int q = 0; q < ranks; q++)
        panicked |= all[(size_t)q * pay] != 0;
    if (panicked) {
        free(all);
        rows_panicked(f, keyed, nkeys, out, has, loc);
    }
    /* the top of the tree: every share's rows in rank order on a
     * binary-counter stack (equal levels merge), then folded from the
     * right; a panic in a merge is everyone's, reported from the exact way */
    trap.panicked = 0;
    trap.msg = NULL;
    brt_trap_set(&trap);
    if (setjmp(trap.jb) != 0) {
        brt_trap_set(outer);
        free(trap.msg);
        free(all);
        rows_panicked(f, keyed, nkeys, out, has, loc);
    }
    unsigned char *st[MAX_BLOCKS + 2];
    int lv[MAX_BLOCKS + 2], sp = 0;
    for (int q = 0; q < ranks; q++) {
        brt_world_blocks(nleaves, ranks, q, first, level);
        for (int i = 0; i < nbs[q]; i++) {
            st[sp] = all + (size_t)q * pay + 8 + (size_t)i * rowb;
            lv[sp++] = level[i];
            while (sp >= 2 && lv[sp - 1] == lv[sp - 2]) {
                rows_merge(f, keyed, (int64_t)nk, st[sp - 2], st[sp - 2] + nk * vs, st[sp - 1], st[sp - 1] + nk * vs);
                lv[sp - 2]++;
                sp--;
            }
        }
    }
    for (int i = sp - 2; i >= 0; i--)
        rows_merge(f, keyed, (int64_t)nk, st[i], st[i] + nk * vs, st[i + 1], st[i + 1] + nk * vs);
    brt_trap_set(outer);
    memcpy(out, st[0], nk * vs);
    memcpy(has, st[0] + nk * vs, nk);
    free(all);
    if (nbs != nbq)
        free(nbs);
}

void brt_world_keyed_run(const brt_fold *f, int64_t nkeys, void *out, unsigned char *has, const brt_loc *loc)
{
    outside_par("sum, product, min, max, any, all or reduce with by", loc);
    world_rows(f, true, nkeys, out, has, loc);
}

bool brt_world_fold_reduce_rows(const brt_fold *f, const brt_loc *loc, void *out)
{
    outside_par("reduce", loc);
    unsigned char h = 0;
    world_rows(f, false, 1, out, &h, loc);
    return h != 0;
}

/* world.any / world.all with a generator: each rank looks for the first
 * deciding element in its own contiguous range; the first rank whose range
 * decided or panicked decides for all (as the sequential walk would). */
struct wfind {
    void *env;
    int64_t (*body)(void *env, int64_t lo, int64_t hi);
    int64_t base;
};

static int64_t shifted_find(void *env, int64_t lo, int64_t hi)
{
    struct wfind *f = env;
    int64_t at = f->body(f->env, f->base + lo, f->base + hi);
    return at;
}

int64_t brt_world_find(int64_t n, void *env, int64_t (*body)(void *env, int64_t lo, int64_t hi), const brt_loc *loc)
{
    outside_par("any or all of a generator", loc);
    if (W.size == 1 || n <= 0)
        return brt_par_find(n, env, body);
    int64_t per = n / W.size, extra = n % W.size;
    int64_t lo = per * W.rank + (W.rank < extra ? W.rank : extra);
    int64_t cnt = per + (W.rank < extra ? 1 : 0);
    struct { int64_t at, panicked; } mine = { -1, 0 };
    struct wfind f = { env, body, lo };
    brt_trap trap, *outer = brt_trap_get();
    trap.panicked = 0;
    trap.msg = NULL;
    brt_trap_set(&trap);
    if (setjmp(trap.jb) == 0) {
        mine.at = brt_par_find(cnt, &f, shifted_find);
    } else {
        free(trap.msg);
        mine.panicked = 1;
    }
    brt_trap_set(outer);
    struct { int64_t at, panicked; } *all = gather_bytes(&mine, sizeof mine);
    int64_t at = -1;
    bool panicked = false;
    for (int q = 0; q < W.size; q++) {
        if (all[q].panicked) {
            panicked = true;
            break;
        }
        if (all[q].at >= 0) {
            at = all[q].at;
            break;
        }
    }
    free(all);
    if (panicked) {
        W.together = true;
        if (W.rank == 0) {
            brt_par_find(n, env, body); /* the sequential walk's panic */
            brt_panic_text(loc, "world: a rank's share of this reduction panicked");
        }
        brt_flush_quiet();
        brt_world_panic_end();
        _exit(101);
    }
    return at;
}
