/*
 * gpu.c: where an eligible par reduction runs (SPEC 8, 9), and running it on
 * a device.
 *
 * Policy. BRINE_GPU (parsed by os.c) is off, on or auto. off: the CPU. on:
 * every eligible reduction on the device; without a usable one, the CPU and
 * one line on stderr saying why, once per process. auto: the device only
 * when its estimate beats the CPU's (below); silent unless BRINE_GPU_LOG=1.
 * The device is opened at most once per process, on the first reduction
 * that wants it ("ready in N ms" in the log).
 *
 * Cost model (auto). CPU: the reduction's own leaves() timed on a sample of
 * up to 64 leaves on this thread (the elements are pure, so evaluating them
 * twice is harmless; a panic in the sample means the CPU path, which reports
 * it), times n, divided by the pool's threads. GPU: device init (150 ms)
 * and kernel compile (100 ms) while not yet done, 0.01 ms per launch, the
 * bytes of copied arrays over the bus at 12 GB/s, and n times the device's
 * per-element time (0.002 ns until this kernel has run once; then what it
 * measured). Both estimates are logged with the decision.
 *
 * Running (run_device). Slots (the environment) and captured arrays are
 * copied to the device; ranges make their indices there. brk_leaves folds
 * 256 leaves per block and combines them level by level; brk_combine then
 * folds 256 block results per block by the same rule until one node is
 * left. That is the tree of SPEC 5.2, because node (level k, index j) always
 * covers leaves [j*2^k, (j+1)*2^k) and a missing node has no value. The
 * device raises a flag on an integer overflow or an element panic; then the
 * reduction is re-run on the CPU, which reports the exact panic of 5.3 (and,
 * were the flag ever raised wrongly, still returns the right value).
 *
 * One mutex serialises the device: reductions nested in par code on the
 * pool may reach here from several threads.
 *
 * This file is the dispatcher only: the devices (cuda.c, shim.c) are
 * reached through gpu_device and never call back into it; what all three
 * share (the clock, the cache, file helpers) is gpu_util.c.
 */
#define _GNU_SOURCE
#include "gpu_internal.h"

#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static pthread_mutex_t gpu_lock = PTHREAD_MUTEX_INITIALIZER;

enum dev_state { DEV_UNTRIED, DEV_READY, DEV_UNAVAILABLE };
static enum dev_state dev_state;
static const gpu_device *dev;
static char dev_why[256];
static int log_on = -1;

/* What this process learned about each kernel (by its source pointer). */
typedef struct kstate {
    const char *src;
    bool loaded, failed;
    gpu_module mod;
    double dev_ns_per_elem; /* 0: not measured yet */
} kstate;
static kstate *kstates;
static int nkstates, capkstates;

/* ---- the log ---------------------------------------------------------------- */

static bool logging(void)
{
    if (log_on < 0) {
        const char *v = getenv("BRINE_GPU_LOG");
        log_on = v && strcmp(v, "1") == 0;
    }
    return log_on;
}

/* One line on stderr, in one write so that threads do not interleave. */
__attribute__((format(printf, 1, 2))) static void say(const char *fmt, ...)
{
    char buf[1024];
    int n = snprintf(buf, sizeof buf, "brine gpu: ");
    va_list ap;
    va_start(ap, fmt);
    n += vsnprintf(buf + n, sizeof buf - (size_t)n - 1, fmt, ap);
    va_end(ap);
    if (n > (int)sizeof buf - 2)
        n = (int)sizeof buf - 2;
    buf[n++] = '\n';
    brt_flush(); /* keep stdout's order relative to stderr on a terminal */
    fwrite(buf, 1, (size_t)n, stderr);
    fflush(stderr);
}

static const char *where(const brt_loc *l, char *buf, size_t n)
{
    if (l)
        snprintf(buf, n, "%s:%d:%d", l->file ? l->file : "?", (int)l->line, (int)l->col);
    else
        snprintf(buf, n, "?");
    return buf;
}

/* BRINE_GPU_TALLY, a test hook: a line per device run appended to path
 * (when set), "FILE:LINE:COL n=N" and tail. */
static void tally_line(const char *path, const brt_loc *loc, int64_t n, const char *tail)
{
    if (!path || !*path)
        return;
    FILE *f = fopen(path, "a");
    if (!f)
        return;
    char w[512];
    fprintf(f, "%s n=%lld%s\n", where(loc, w, sizeof w), (long long)n, tail);
    fclose(f);
}

/* ---- the device --------------------------------------------------------------- */

/* Opens the device once (under gpu_lock). */
static bool device_ready(void)
{
    if (dev_state == DEV_READY) {
        dev->bind();
        return true;
    }
    if (dev_state == DEV_UNAVAILABLE)
        return false;
    double t0 = brt_gpu_now_ms();
    const char *shim = getenv("BRINE_GPU_SHIM");
    if (shim && strcmp(shim, "1") == 0)
        dev = brt_gpu_shim_open(dev_why, sizeof dev_why);
    else
        dev = brt_gpu_cuda_open(dev_why, sizeof dev_why);
    if (!dev) {
        __atomic_store_n(&dev_state, DEV_UNAVAILABLE, __ATOMIC_RELEASE);
        /* on: say why once, always (SPEC 8); auto: only into the log */
        if (brt_gpu_mode() == BRT_GPU_ON || logging())
            say("unavailable (%s); running on cpu", dev_why);
        return false;
    }
    __atomic_store_n(&dev_state, DEV_READY, __ATOMIC_RELEASE);
    dev->bind();
    if (logging())
        say("%s ready in %.0f ms", dev->name, brt_gpu_now_ms() - t0);
    return true;
}

static kstate *kernel_state(const brt_gpu_kernel *k)
{
    for (int i = 0; i < nkstates; i++)
        if (kstates[i].src == k->src)
            return &kstates[i];
    if (nkstates == capkstates) {
        capkstates = capkstates ? 2 * capkstates : 16;
        kstates = brt_xrealloc(kstates, (size_t)capkstates * sizeof *kstates);
    }
    kstate *s = &kstates[nkstates++];
    memset(s, 0, sizeof *s);
    s->src = k->src;
    return s;
}

static bool kernel_loaded(const brt_gpu_kernel *k, kstate *ks, const brt_loc *loc)
{
    if (ks->loaded)
        return true;
    if (ks->failed)
        return false;
    char *why = NULL;
    if (dev->load(k->src, k->len, &ks->mod, &why)) {
        ks->loaded = true;
        return true;
    }
    ks->failed = true;
    /* a kernel the compiler generated does not compile: a bug in brine */
    char w[512];
    say("internal error: the kernel for %s did not load (%s); running on cpu", where(loc, w, sizeof w),
        why ? why : "?");
    free(why);
    return false;
}

/* ---- one reduction on the device ------------------------------------------------ */

typedef struct run_result {
    bool ok;        /* false: a device error; the CPU runs it */
    bool flagged;   /* overflow or element panic: the CPU re-runs it */
    bool has;
    unsigned char val[8];
    double kernel_ms, copy_ms, mb;
} run_result;

#define MAX_BUFS 16

/* The device buffers of one run, freed together. */
typedef struct dev_bufs {
    gpu_ptr p[MAX_BUFS];
    int n;
} dev_bufs;

static bool buf_alloc(dev_bufs *b, gpu_ptr *p, size_t bytes)
{
    if (b->n == MAX_BUFS || !dev->alloc(p, bytes ? bytes : 8))
        return false;
    b->p[b->n++] = *p;
    return true;
}

static void bufs_free(dev_bufs *b)
{
    for (int i = 0; i < b->n; i++)
        dev->free(b->p[i]);
    b->n = 0;
}

/* The captured arrays to the device, then the slots, pointing at their
 * copies, into *dslots; a zeroed flag into *flag. */
static bool stage_inputs(dev_bufs *b, const brt_gpu_slot *slots, int nslots, const brt_gpu_copy *copies, int ncopies,
                         gpu_ptr *dslots, gpu_ptr *flag, double *mb)
{
    bool ok = true;
    brt_gpu_slot *ds = brt_xmalloc((size_t)nslots * sizeof *ds);
    memcpy(ds, slots, (size_t)nslots * sizeof *ds);
    for (int i = 0; i < ncopies && ok; i++) {
        size_t bytes = (size_t)copies[i].bytes;
        gpu_ptr p = 0;
        ok = buf_alloc(b, &p, bytes) && (!bytes || dev->h2d(p, slots[copies[i].slot].p, bytes));
        ds[copies[i].slot].u = p;
        *mb += (double)bytes / 1e6;
    }
    ok = ok && buf_alloc(b, dslots, (size_t)nslots * 8) && buf_alloc(b, flag, 8) &&
         dev->h2d(*dslots, ds, (size_t)nslots * 8) && dev->zero(*flag, 8);
    free(ds);
    return ok;
}

static void run_device(const brt_gpu_kernel *k, kstate *ks, const brt_reduce *r, brt_gpu_slot *slots, int nslots,
                       const brt_gpu_copy *copies, int ncopies, run_result *res)
{
    memset(res, 0, sizeof *res);
    dev_bufs bufs = {0};
    int64_t nleaves = (r->n + BRT_LEAF - 1) / BRT_LEAF;
    int64_t blocks = (nleaves + BRT_GPU_BLOCK - 1) / BRT_GPU_BLOCK;
    int64_t blocks2 = (blocks + BRT_GPU_BLOCK - 1) / BRT_GPU_BLOCK;
    size_t vs = 8;
    double t0 = brt_gpu_now_ms();

    gpu_ptr dslots = 0, va = 0, ha = 0, vb = 0, hb = 0, flag = 0;
    bool ok = stage_inputs(&bufs, slots, nslots, copies, ncopies, &dslots, &flag, &res->mb) &&
              buf_alloc(&bufs, &va, (size_t)blocks * vs) && buf_alloc(&bufs, &ha, (size_t)blocks) &&
              buf_alloc(&bufs, &vb, (size_t)blocks2 * vs) && buf_alloc(&bufs, &hb, (size_t)blocks2) && dev->sync();
    double t1 = brt_gpu_now_ms();

    /* the leaves and their block subtrees, then 256 nodes at a time */
    ok = ok && dev->leaves(&ks->mod, blocks, dslots, nleaves, va, ha, flag);
    int64_t count = blocks;
    gpu_ptr in_v = va, in_h = ha, out_v = vb, out_h = hb;
    while (ok && count > 1) {
        int64_t g = (count + BRT_GPU_BLOCK - 1) / BRT_GPU_BLOCK;
        ok = dev->combine(&ks->mod, g, count, in_v, in_h, out_v, out_h, flag);
        count = g;
        gpu_ptr tv = in_v, th = in_h;
        in_v = out_v, in_h = out_h, out_v = tv, out_h = th;
    }
    ok = ok && dev->sync();
    double t2 = brt_gpu_now_ms();

    int32_t fl = 0;
    unsigned char h = 0;
    ok = ok && dev->d2h(&fl, flag, 4) && dev->d2h(res->val, in_v, vs) && dev->d2h(&h, in_h, 1);
    double t3 = brt_gpu_now_ms();
    bufs_free(&bufs);
    res->ok = ok;
    res->flagged = fl != 0;
    res->has = h != 0;
    res->kernel_ms = t2 - t1;
    res->copy_ms = (t1 - t0) + (t3 - t2);
}

/* ---- the cost model (auto) --------------------------------------------------- */

#define EST_INIT_MS 150.0
#define EST_COMPILE_MS 100.0
#define EST_LAUNCH_MS 0.01
#define EST_BUS_BYTES_PER_MS 12e6
#define EST_DEV_NS_PER_ELEM 0.002
#define SAMPLE_LEAVES 64
#define SMALL_READY ((int64_t)1 << 15)
#define SMALL_UNTRIED ((int64_t)1 << 20)

/* Milliseconds that run(arg) takes on this thread; < 0 when it panicked. */
static double timed(void (*run)(void *), void *arg)
{
    brt_trap trap;
    memset(&trap, 0, sizeof trap);
    brt_trap *saved = brt_trap_get();
    brt_trap_set(&trap);
    double t0 = 0, t1 = 0;
    if (setjmp(trap.jb) == 0) {
        t0 = brt_gpu_now_ms();
        run(arg);
        t1 = brt_gpu_now_ms();
    }
    brt_trap_set(saved);
    if (trap.panicked) {
        free(trap.msg);
        return -1;
    }
    return t1 - t0;
}

/* The whole run's CPU milliseconds from a sample of `done` of its n
 * elements that took ms on this thread, shared by the pool's threads. */
static double scaled(double ms, int64_t done, int64_t n)
{
    if (ms < 0)
        return -1;
    double per = ms / (double)(done ? done : 1);
    int64_t th = brt_os_thread_count();
    return per * (double)n / (double)(th > 0 ? th : 1);
}

static void sample_leaves(void *arg)
{
    const brt_reduce *r = arg;
    int64_t nleaves = (r->n + BRT_LEAF - 1) / BRT_LEAF;
    int64_t m = nleaves < SAMPLE_LEAVES ? nleaves : SAMPLE_LEAVES;
    unsigned char val[16], has;
    for (int64_t q = 0; q < m; q++)
        r->leaves(r->env, q, 1, val, &has);
}

/* CPU milliseconds for the whole reduction from a timed sample of its
 * leaves on this thread; < 0 when the sample panicked. */
static double cpu_estimate(const brt_reduce *r)
{
    int64_t m = r->n < SAMPLE_LEAVES * BRT_LEAF ? r->n : SAMPLE_LEAVES * BRT_LEAF;
    return scaled(timed(sample_leaves, (void *)r), m, r->n);
}

/* A scan's sample: its first elements evaluated, folded by leaves and
 * scanned from the leaves' folds, as the CPU's two phases do. */
typedef struct scan_sample {
    const brt_fold *f;
    int64_t m;
    unsigned char *vals, *kept, *out;
} scan_sample;

static void sample_scan(void *arg)
{
    scan_sample *ss = arg;
    const brt_fold *f = ss->f;
    size_t vs = f->vsize;
    unsigned char acc[16];
    f->elems(f->env, 0, ss->m, ss->vals, ss->kept, NULL);
    for (int64_t lo = 0; lo < ss->m; lo += BRT_LEAF) {
        int64_t cnt = ss->m - lo < BRT_LEAF ? ss->m - lo : BRT_LEAF;
        const unsigned char *kp = ss->kept ? ss->kept + lo : NULL;
        if (f->start)
            memcpy(acc, f->start, vs);
        f->lfold(f->env, ss->vals + (size_t)lo * vs, kp, cnt, acc, f->start != NULL);
        f->lscan(f->env, ss->vals + (size_t)lo * vs, kp, cnt, acc, true, ss->out + (size_t)lo * vs);
    }
}

static double cpu_scan_estimate(const brt_fold *f)
{
    scan_sample ss = {f, f->n < SAMPLE_LEAVES * BRT_LEAF ? f->n : SAMPLE_LEAVES * BRT_LEAF, NULL, NULL, NULL};
    ss.vals = brt_xmalloc((size_t)ss.m * f->vsize);
    ss.out = brt_xmalloc((size_t)ss.m * f->vsize);
    ss.kept = f->filtered ? brt_xmalloc((size_t)ss.m) : NULL;
    double ms = timed(sample_scan, &ss);
    free(ss.vals);
    free(ss.out);
    free(ss.kept);
    return scaled(ms, ss.m, f->n);
}

/* The device's milliseconds for n elements in `launches` kernels with
 * `bytes` over the bus. */
static double gpu_estimate_ms(const kstate *ks, int64_t n, int launches, double bytes)
{
    double ms = 0;
    if (dev_state != DEV_READY)
        ms += EST_INIT_MS;
    if (!ks->loaded)
        ms += EST_COMPILE_MS;
    ms += EST_LAUNCH_MS * launches + bytes / EST_BUS_BYTES_PER_MS;
    ms += (double)n * (ks->dev_ns_per_elem > 0 ? ks->dev_ns_per_elem : EST_DEV_NS_PER_ELEM) * 1e-6;
    return ms;
}

static double gpu_estimate(const brt_reduce *r, const kstate *ks, const brt_gpu_copy *copies, int ncopies)
{
    int64_t nleaves = (r->n + BRT_LEAF - 1) / BRT_LEAF;
    int launches = 1;
    for (int64_t c = (nleaves + BRT_GPU_BLOCK - 1) / BRT_GPU_BLOCK; c > 1; c = (c + BRT_GPU_BLOCK - 1) / BRT_GPU_BLOCK)
        launches++;
    double bytes = 0;
    for (int i = 0; i < ncopies; i++)
        bytes += (double)copies[i].bytes;
    return gpu_estimate_ms(ks, r->n, launches, bytes);
}

/* The refusals decided without the lock (brt_gpu_reduce, gpu_take,
 * brt_gpu_keyed before it stages a block's slots): off, nothing to do, or
 * auto and a run too small ever to pay for a launch (a par reduction in a
 * hot loop, or nested in par elements on every worker) or no device at
 * all. */
static bool gpu_declined(int64_t n)
{
    enum brt_gpu_mode mode = brt_gpu_mode();
    if (mode == BRT_GPU_OFF || n <= 0)
        return true;
    return mode == BRT_GPU_AUTO && !logging() &&
           (n < SMALL_READY || __atomic_load_n(&dev_state, __ATOMIC_ACQUIRE) == DEV_UNAVAILABLE);
}

/* ---- the entry point ------------------------------------------------------------ */

/* The slots of the whole reduction made the slots of its n elements from
 * leaf first on, renumbered from 0 (brt_gpu_reduce, brt_gpu_keyed): the range starts
 * first * BRT_LEAF elements later (the kernel's BRK_RANGE_AT wraps like this
 * addition), or the source array does, and only r's part of it is copied
 * (its elements are 8 bytes, [int], [u64] or [float]). */
static void part_slots(const brt_gpu_kernel *k, int64_t n, int64_t first, brt_gpu_slot *slots, brt_gpu_copy *copies,
                       int ncopies)
{
    int64_t e0 = first * BRT_LEAF;
    slots[0].i = n;
    if (!k->array) {
        slots[1].u += (uint64_t)e0;
        return;
    }
    slots[1].p = (const char *)slots[1].p + e0 * 8;
    for (int i = 0; i < ncopies; i++)
        if (copies[i].slot == 1)
            copies[i].bytes = n * 8;
}

bool brt_gpu_reduce(const brt_gpu_kernel *k, const brt_reduce *r, int64_t first, brt_gpu_slot *slots, int nslots,
                    const brt_gpu_copy *whole_copies, int ncopies, void *out)
{
    if (gpu_declined(r->n))
        return brt_reduce_tree(r, out);
    enum brt_gpu_mode mode = brt_gpu_mode();
    brt_gpu_copy copies[ncopies > 0 ? ncopies : 1];
    memcpy(copies, whole_copies, (size_t)ncopies * sizeof *copies);
    part_slots(k, r->n, first, slots, copies, ncopies);
    char w[512];
    pthread_mutex_lock(&gpu_lock);
    kstate *ks = kernel_state(k);
    double cpu_ms = 0, gpu_ms = 0;
    if (mode == BRT_GPU_AUTO) {
        if (dev_state == DEV_UNAVAILABLE) {
            pthread_mutex_unlock(&gpu_lock);
            if (logging())
                say("%s par reduction n=%lld -> cpu (gpu unavailable)", where(r->loc, w, sizeof w), (long long)r->n);
            return brt_reduce_tree(r, out);
        }
        gpu_ms = gpu_estimate(r, ks, copies, ncopies);
        /* Small reductions never pay for a launch: skip the sample (auto is
         * the default, and a small par sum may sit in a hot loop) unless the
         * log wants both estimates. */
        int64_t floor_n = dev_state == DEV_READY ? SMALL_READY : SMALL_UNTRIED;
        if (r->n < floor_n && !logging()) {
            pthread_mutex_unlock(&gpu_lock);
            return brt_reduce_tree(r, out);
        }
        cpu_ms = cpu_estimate(r);
        if (cpu_ms < 0 || gpu_ms >= cpu_ms) {
            pthread_mutex_unlock(&gpu_lock);
            if (logging()) {
                if (cpu_ms < 0)
                    say("%s par reduction n=%lld -> cpu (an element panics)", where(r->loc, w, sizeof w),
                        (long long)r->n);
                else
                    say("%s par reduction n=%lld -> cpu (gpu estimate %.3f ms > cpu estimate %.3f ms)",
                        where(r->loc, w, sizeof w), (long long)r->n, gpu_ms, cpu_ms);
            }
            return brt_reduce_tree(r, out);
        }
    }
    if (!device_ready() || !kernel_loaded(k, ks, r->loc)) {
        pthread_mutex_unlock(&gpu_lock);
        if (logging())
            say("%s par reduction n=%lld -> cpu (gpu unavailable)", where(r->loc, w, sizeof w), (long long)r->n);
        return brt_reduce_tree(r, out);
    }
    run_result res;
    double t0 = brt_gpu_now_ms();
    run_device(k, ks, r, slots, nslots, copies, ncopies, &res);
    double total = brt_gpu_now_ms() - t0;
    if (res.ok && !res.flagged && r->n > 0)
        ks->dev_ns_per_elem = res.kernel_ms * 1e6 / (double)r->n;
    const char *tally = getenv("BRINE_GPU_TALLY");
    pthread_mutex_unlock(&gpu_lock);

    if (!res.ok || res.flagged) {
        if (logging())
            say("%s par reduction n=%lld -> cpu (%s)", where(r->loc, w, sizeof w), (long long)r->n,
                res.ok ? "the gpu flagged an overflow or a panic; the cpu re-runs it" : "a gpu error");
        return brt_reduce_tree(r, out);
    }
    /* a part of a tree (a world share's block): where it starts */
    char tail[40] = "";
    if (first > 0)
        snprintf(tail, sizeof tail, " first=%lld", (long long)first);
    tally_line(tally, r->loc, r->n, tail);
    if (logging())
        say("%s par reduction n=%lld -> gpu %.3f ms (kernels %.3f ms, copies %.3f ms, %.1f MB; cpu estimate %.3f ms)",
            where(r->loc, w, sizeof w), (long long)r->n, total, res.kernel_ms, res.copy_ms, res.mb, cpu_ms);
    if (res.has)
        memcpy(out, res.val, r->vsize);
    return res.has;
}

/* ---- scans and keyed reductions: the decision and the report ------------------- */

/* What one scan or keyed reduction offers the device: its name in the
 * log, its element count, and its two estimates for auto. */
typedef struct gpu_offer {
    const char *what;
    int64_t n;
    double (*gpu_ms)(const kstate *ks, const void *arg);
    double (*cpu_ms)(const void *arg); /* < 0: an element panicked */
    const void *arg;
    const brt_loc *loc;
} gpu_offer;

/* Whether the offer runs on the device (BRINE_GPU, the estimates): true
 * with gpu_lock held, *ksp the loaded kernel and *cpu_ms the CPU's estimate
 * (0 unless auto); false with the lock released and the reason logged. */
static bool gpu_take(const brt_gpu_kernel *k, const gpu_offer *o, kstate **ksp, double *cpu_ms)
{
    enum brt_gpu_mode mode = brt_gpu_mode();
    *cpu_ms = 0;
    if (gpu_declined(o->n))
        return false;
    char w[512], why[160] = "";
    pthread_mutex_lock(&gpu_lock);
    kstate *ks = kernel_state(k);
    if (mode == BRT_GPU_AUTO) {
        if (dev_state == DEV_UNAVAILABLE) {
            snprintf(why, sizeof why, "gpu unavailable");
        } else {
            double gpu_ms = o->gpu_ms(ks, o->arg);
            if (o->n < (dev_state == DEV_READY ? SMALL_READY : SMALL_UNTRIED) && !logging()) {
                pthread_mutex_unlock(&gpu_lock);
                return false;
            }
            *cpu_ms = o->cpu_ms(o->arg);
            if (*cpu_ms < 0)
                snprintf(why, sizeof why, "an element panics");
            else if (gpu_ms >= *cpu_ms)
                snprintf(why, sizeof why, "gpu estimate %.3f ms > cpu estimate %.3f ms", gpu_ms, *cpu_ms);
        }
    }
    if (!why[0] && (!device_ready() || !kernel_loaded(k, ks, o->loc)))
        snprintf(why, sizeof why, "gpu unavailable");
    if (why[0]) {
        pthread_mutex_unlock(&gpu_lock);
        if (logging())
            say("%s %s n=%lld -> cpu (%s)", where(o->loc, w, sizeof w), o->what, (long long)o->n, why);
        return false;
    }
    *ksp = ks;
    return true;
}

/* After a device run of the offer (done: its result is taken): the
 * device's time per element learned, gpu_lock released, the run reported
 * (the log, the tally with tail). */
static void gpu_ran(const gpu_offer *o, kstate *ks, bool done, const run_result *res, double total, double cpu_ms,
                    const char *tail)
{
    char w[512];
    if (done)
        ks->dev_ns_per_elem = res->kernel_ms * 1e6 / (double)o->n;
    const char *tally = getenv("BRINE_GPU_TALLY");
    pthread_mutex_unlock(&gpu_lock);
    if (!done) {
        if (logging())
            say("%s %s n=%lld -> cpu (%s)", where(o->loc, w, sizeof w), o->what, (long long)o->n,
                res->ok && res->flagged ? "the gpu flagged an overflow or a panic; the cpu re-runs it" : "a gpu error");
        return;
    }
    tally_line(tally, o->loc, o->n, tail);
    if (logging())
        say("%s %s n=%lld -> gpu %.3f ms (kernels %.3f ms, copies %.3f ms, %.1f MB; cpu estimate %.3f ms)",
            where(o->loc, w, sizeof w), o->what, (long long)o->n, total, res->kernel_ms, res->copy_ms, res->mb, cpu_ms);
}

/* ---- a par scan on the device (SPEC 15) ---------------------------------------- */

/* The scan's kernels (kernel_scan.h): the leaves, levels 1 .. K - 1 of the
 * nodes (K the bit length of nleaves - 1: the carries' levels), the counts
 * made offsets here, then the entries; NULL when the device failed or
 * flagged (res says which). */
static brt_arr *run_scan_device(const kstate *ks, const brt_fold *f, const brt_type *elem, const brt_gpu_slot *slots,
                                int nslots, const brt_gpu_copy *copies, int ncopies, run_result *res)
{
    memset(res, 0, sizeof *res);
    dev_bufs bufs = {0};
    size_t vs = f->vsize;
    int64_t nl = (f->n + BRT_LEAF - 1) / BRT_LEAF;
    int K = 0;
    while (K < 62 && ((int64_t)1 << K) < nl)
        K++;
    int64_t nodes = 0; /* levels 0 .. K - 1 */
    for (int i = 0; i < K || i == 0; i++)
        nodes += (nl + ((int64_t)1 << i) - 1) >> i;
    double t0 = brt_gpu_now_ms();
    gpu_aux_args a = {0};
    a.nleaves = nl;
    bool ok = stage_inputs(&bufs, slots, nslots, copies, ncopies, &a.slots, &a.flag, &res->mb) &&
              buf_alloc(&bufs, &a.vals, (size_t)nodes * vs) && buf_alloc(&bufs, &a.has, (size_t)nodes) &&
              buf_alloc(&bufs, &a.offs, (size_t)nl * 8) && dev->sync();
    double t1 = brt_gpu_now_ms(), tk = 0;
    int64_t grid = (nl + BRT_GPU_BLOCK - 1) / BRT_GPU_BLOCK;
    ok = ok && dev->aux(&ks->mod, GPU_SCAN_LEAVES, grid, &a);
    gpu_aux_args lv = a;
    for (int k = 1; ok && k < K; k++) {
        lv.count = (nl + ((int64_t)1 << (k - 1)) - 1) >> (k - 1); /* the level below */
        ok = dev->aux(&ks->mod, GPU_SCAN_LEVEL, ((lv.count + 1) / 2 + BRT_GPU_BLOCK - 1) / BRT_GPU_BLOCK, &lv);
        lv.vals += (gpu_ptr)((size_t)lv.count * vs);
        lv.has += (gpu_ptr)lv.count;
    }
    ok = ok && dev->sync();
    tk += brt_gpu_now_ms() - t1;
    /* each leaf's first entry */
    int64_t *off = ok ? brt_xmalloc((size_t)nl * 8) : NULL, total = 0;
    ok = ok && dev->d2h(off, a.offs, (size_t)nl * 8);
    for (int64_t L = 0; ok && L < nl; L++) {
        int64_t c = off[L];
        off[L] = total;
        total += c;
    }
    ok = ok && dev->h2d(a.offs, off, (size_t)nl * 8) && buf_alloc(&bufs, &a.out, (size_t)total * vs);
    free(off);
    double t2 = brt_gpu_now_ms();
    ok = ok && dev->aux(&ks->mod, GPU_SCAN_ENTRIES, grid, &a) && dev->sync();
    double t3 = brt_gpu_now_ms();
    tk += t3 - t2;
    int32_t fl = 0;
    ok = ok && dev->d2h(&fl, a.flag, 4);
    brt_arr *arr = NULL;
    if (ok && !fl) {
        arr = brt_arr_new(elem, total);
        ok = dev->d2h(arr->data, a.out, (size_t)total * vs);
        if (!ok) {
            brt_arr_release(arr);
            arr = NULL;
        }
    }
    bufs_free(&bufs);
    res->ok = ok;
    res->flagged = fl != 0;
    res->kernel_ms = tk;
    res->copy_ms = brt_gpu_now_ms() - t0 - tk;
    return arr;
}

/* a scan's device estimate: the inputs in, the counts out and back as
 * offsets, the entries out; a launch per level */
typedef struct scan_offer {
    const brt_fold *f;
    const brt_gpu_copy *copies;
    int ncopies;
} scan_offer;

static double scan_gpu_ms(const kstate *ks, const void *arg)
{
    const scan_offer *so = arg;
    int64_t nl = (so->f->n + BRT_LEAF - 1) / BRT_LEAF;
    double bytes = (double)nl * 16 + (double)so->f->n * (double)so->f->vsize;
    for (int i = 0; i < so->ncopies; i++)
        bytes += (double)so->copies[i].bytes;
    int launches = 2;
    for (int64_t c = nl; c > 1; c = (c + 1) / 2)
        launches++;
    return gpu_estimate_ms(ks, so->f->n, launches, bytes);
}

static double scan_cpu_ms(const void *arg)
{
    return cpu_scan_estimate(((const scan_offer *)arg)->f);
}

brt_arr *brt_gpu_scan(const brt_gpu_kernel *k, const brt_fold *f, const brt_type *elem, const brt_gpu_slot *slots,
                      int nslots, const brt_gpu_copy *copies, int ncopies, const brt_loc *loc)
{
    scan_offer so = {f, copies, ncopies};
    gpu_offer o = {"par scan", f->n, scan_gpu_ms, scan_cpu_ms, &so, loc};
    kstate *ks;
    double cpu_ms;
    if (!gpu_take(k, &o, &ks, &cpu_ms))
        return NULL;
    run_result res;
    double t0 = brt_gpu_now_ms();
    brt_arr *arr = run_scan_device(ks, f, elem, slots, nslots, copies, ncopies, &res);
    gpu_ran(&o, ks, arr != NULL, &res, brt_gpu_now_ms() - t0, cpu_ms, " scan");
    return arr;
}

/* ---- a keyed reduction on the device (SPEC 15) ---------------------------------- */

/* One entry of a node's list (kernel_keyed.h's brk_kv). */
typedef struct gpu_kv {
    int64_t k;
    unsigned char v[8];
} gpu_kv;

/* kernel_keyed.h's brk_by_cap: the most entries a node of level h holds. */
static int64_t by_cap(int64_t nk, int h)
{
    int64_t c = (int64_t)BRT_LEAF << (h < 40 ? h : 40);
    return c < nk ? c : nk;
}

/* The keyed kernels: each leaf's list, then level after level of merged
 * lists to the root, whose entries fill out and has (a key without an
 * element keeps what the caller put there). false when the device failed
 * or flagged (res says which). */
static bool run_keyed_device(const kstate *ks, const brt_fold *f, int64_t n, int64_t nk, const brt_gpu_slot *slots,
                             int nslots, const brt_gpu_copy *copies, int ncopies, void *out, unsigned char *has,
                             run_result *res)
{
    memset(res, 0, sizeof *res);
    dev_bufs bufs = {0};
    int64_t nl = (n + BRT_LEAF - 1) / BRT_LEAF;
    /* the biggest level's entries, and all levels' lengths */
    int64_t maxent = 0, lens = 0;
    int h = 0;
    for (int64_t c = nl;; c = (c + 1) / 2, h++) {
        int64_t e = c * by_cap(nk, h);
        maxent = e > maxent ? e : maxent;
        lens += c;
        if (c == 1)
            break;
    }
    double t0 = brt_gpu_now_ms();
    gpu_aux_args a = {0};
    gpu_ptr other = 0;
    a.nleaves = nl;
    bool ok = stage_inputs(&bufs, slots, nslots, copies, ncopies, &a.slots, &a.flag, &res->mb) &&
              buf_alloc(&bufs, &a.out, (size_t)maxent * sizeof(gpu_kv)) &&
              buf_alloc(&bufs, &other, (size_t)maxent * sizeof(gpu_kv)) &&
              buf_alloc(&bufs, &a.offs, (size_t)lens * 8) && dev->sync();
    double t1 = brt_gpu_now_ms();
    ok = ok && dev->aux(&ks->mod, GPU_BY_LEAVES, (nl + BRT_GPU_BLOCK - 1) / BRT_GPU_BLOCK, &a);
    /* each level reads the one below from vals and its lengths from offs */
    for (a.count = nl; ok && a.count > 1; a.count = (a.count + 1) / 2) {
        a.vals = a.out;
        a.out = other;
        other = a.vals;
        ok = dev->aux(&ks->mod, GPU_BY_LEVEL, ((a.count + 1) / 2 + BRT_GPU_BLOCK - 1) / BRT_GPU_BLOCK, &a);
        a.offs += (gpu_ptr)(a.count * 8);
    }
    ok = ok && dev->sync();
    double t2 = brt_gpu_now_ms();
    int32_t fl = 0;
    int64_t m = 0;
    ok = ok && dev->d2h(&fl, a.flag, 4) && dev->d2h(&m, a.offs, 8);
    gpu_kv *root = NULL;
    if (ok && !fl && m > 0) {
        root = brt_xmalloc((size_t)m * sizeof *root);
        ok = dev->d2h(root, a.out, (size_t)m * sizeof *root);
    }
    bufs_free(&bufs);
    if (ok && !fl) {
        for (int64_t i = 0; i < m; i++) {
            memcpy((unsigned char *)out + (size_t)root[i].k * f->vsize, root[i].v, f->vsize);
            has[root[i].k] = 1;
        }
    }
    free(root);
    res->ok = ok;
    res->flagged = fl != 0;
    res->kernel_ms = t2 - t1;
    res->copy_ms = brt_gpu_now_ms() - t0 - res->kernel_ms;
    return ok && !fl;
}

/* A keyed reduction's sample: its first m elements and keys evaluated */
typedef struct keyed_sample {
    const brt_fold *f;
    int64_t m;
    void *vals;
    int64_t *keys;
} keyed_sample;

static void sample_keyed(void *arg)
{
    keyed_sample *ks = arg;
    ks->f->elems(ks->f->env, 0, ks->m, ks->vals, NULL, ks->keys);
}

/* a keyed reduction's device estimate: the inputs in, the root's list
 * back; each level a launch, and its longest merge (a thread's, ~5 ns an
 * entry) on top */
typedef struct keyed_offer {
    const brt_fold *f;
    int64_t n, nkeys;
    const brt_gpu_copy *copies;
    int ncopies;
} keyed_offer;

static double keyed_gpu_ms(const kstate *ks, const void *arg)
{
    const keyed_offer *ko = arg;
    int64_t nl = (ko->n + BRT_LEAF - 1) / BRT_LEAF;
    double bytes = (double)ko->nkeys * 16;
    for (int i = 0; i < ko->ncopies; i++)
        bytes += (double)ko->copies[i].bytes;
    int launches = 1, h = 0;
    double serial_ms = 0;
    for (int64_t c = nl; c > 1; c = (c + 1) / 2, h++) {
        launches++;
        serial_ms += 2.0 * (double)by_cap(ko->nkeys, h + 1) * 5e-6;
    }
    return gpu_estimate_ms(ks, ko->n, launches, bytes) + serial_ms;
}

/* the CPU's estimate: twice the sample's time (the keyed ways fold each
 * element about once more), for the offer's n elements */
static double keyed_cpu_ms(const void *arg)
{
    const keyed_offer *ko = arg;
    const brt_fold *f = ko->f;
    keyed_sample ks = {f, f->n < SAMPLE_LEAVES * BRT_LEAF ? f->n : SAMPLE_LEAVES * BRT_LEAF, NULL, NULL};
    ks.vals = brt_xmalloc((size_t)ks.m * f->vsize);
    ks.keys = brt_xmalloc((size_t)ks.m * sizeof *ks.keys);
    double ms = timed(sample_keyed, &ks);
    free(ks.vals);
    free(ks.keys);
    return ms < 0 ? ms : 2 * scaled(ms, ks.m, ko->n);
}

bool brt_gpu_keyed(const brt_gpu_kernel *k, const brt_fold *f, int64_t base, int64_t n, int64_t nkeys,
                   const brt_gpu_slot *whole_slots, int nslots, const brt_gpu_copy *whole_copies, int ncopies, void *out,
                   unsigned char *has, const brt_loc *loc)
{
    if (nkeys <= 0 || f->vsize > 8 || base % BRT_LEAF != 0 || gpu_declined(n))
        return false;
    /* the block's slots: its n elements from base */
    brt_gpu_slot slots[nslots > 0 ? nslots : 1];
    brt_gpu_copy copies[ncopies > 0 ? ncopies : 1];
    memcpy(slots, whole_slots, (size_t)nslots * sizeof *slots);
    memcpy(copies, whole_copies, (size_t)ncopies * sizeof *copies);
    part_slots(k, n, base / BRT_LEAF, slots, copies, ncopies);
    keyed_offer ko = {f, n, nkeys, copies, ncopies};
    gpu_offer o = {"par reduction by key", n, keyed_gpu_ms, keyed_cpu_ms, &ko, loc};
    kstate *ks;
    double cpu_ms;
    if (!gpu_take(k, &o, &ks, &cpu_ms))
        return false;
    /* a key without an element holds the start (zero bytes for min/max) */
    for (int64_t j = 0; j < nkeys; j++) {
        if (f->start)
            memcpy((unsigned char *)out + (size_t)j * f->vsize, f->start, f->vsize);
        else
            memset((unsigned char *)out + (size_t)j * f->vsize, 0, f->vsize);
    }
    memset(has, 0, (size_t)nkeys);
    run_result res;
    double t0 = brt_gpu_now_ms();
    bool done = run_keyed_device(ks, f, n, nkeys, slots, nslots, copies, ncopies, out, has, &res);
    char tail[48] = " by";
    if (base > 0) /* a part of the tree (a world share's block): where it starts */
        snprintf(tail, sizeof tail, " by first=%lld", (long long)(base / BRT_LEAF));
    gpu_ran(&o, ks, done, &res, brt_gpu_now_ms() - t0, cpu_ms, tail);
    return done;
}
