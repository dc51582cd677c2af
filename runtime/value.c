/*
 * value.c: strings and arrays (SPEC section 3), reference counted.
 *
 * Ownership (see brine_rt.h): a function returning a str or array returns a
 * reference the caller owns; arguments are borrowed unless "takes" is said.
 * rc < 0 marks an immortal object (literals, the shared ""), which retain and
 * release ignore. Counts are atomic: par tasks on the pool share captured
 * values. Arrays and strings are values in Brine; copy-on-write makes that
 * cheap: brt_arr_unique copies only when someone else holds a reference.
 *
 * A str is one block: the header, then the bytes and a NUL. An array keeps
 * its elements unboxed; str and array elements each hold one reference,
 * released with the array.
 *
 * Small arrays. A function returning [x, y] would otherwise pay two mallocs
 * and two frees per call (header and data). Every array header lives in a
 * block of one of four size classes: a word holding the class, the header,
 * then room for 0, 16, 32 or 64 bytes of data. An array whose data fits is
 * one block with data pointing just past the header ("inline"); a larger
 * one takes a class-0 block and mallocs its data as before, and an inline
 * array that outgrows its room (push) moves its data to the heap. Freed
 * blocks go onto the freeing thread's cache (brt_tcache, rt_internal.h: one
 * list per class, at most CACHE_MAX blocks each, the rest back to free());
 * the cache is reached from sp with no lock, atomic or TLS, so par code on
 * the pool pays nothing for it, and a block allocated on one thread and
 * freed on another simply changes caches (every block is a malloc'ed one).
 * Cached blocks stay reachable at exit (the main cache is a global, a
 * worker's sits in its stack block), so valgrind counts them as "still
 * reachable", never as leaks. Copy-on-write is untouched: rc, len and data
 * mean what they meant.
 *
 * Middle-sized data. The data of an array of more than 64 and at most
 * DATA_MAX bytes (cap times the element size: every such buffer was
 * malloc'ed with exactly that many bytes, or realloc'ed to them) goes, when
 * the array is freed, onto the freeing thread's cache for the next array of
 * exactly that size (brt_tcache: BRT_TCACHE_SIZES sizes at once, at most
 * DATA_KEEP bytes of each, the rest back to free()). A program that builds a
 * new grid of rows each step and drops the last one (a stencil written as a
 * comprehension: 500 rows of 4000 bytes a step, 9,216 of 768 in 3-D) gets the same rows back
 * without a malloc and a free each. Bigger data: the thread keeps the last
 * buffer freed (big_keep, below). Such a row is taken (row_get_here) and
 * given back (row_put_here) with its block at one look at the thread's
 * cache, where block_get and data_at, block_put and data_put each find it
 * again (stencil3/fn_comp, 931,300 rows: 1,153M -> 1,041M instructions).
 *
 * Handed back. Such data, and array blocks, are kept by the thread that
 * allocated them: an array's block records its allocating thread
 * (arr_block.owner, a slot in the table of caches: main 1, pool worker
 * id + 1), and a thread that frees a block or data another thread allocated
 * pushes it onto that thread's hand-back list (brt_tcache.remote; word 1
 * tells a block's class from a buffer's size) instead of its own cache. The
 * allocating thread takes the whole list when its own has nothing of the
 * class or size it needs, sorting it onto its lists (or free() where they
 * are full). So rows that pool tasks
 * made and the main thread drops (a comprehension of rows on the pool
 * replacing a grid each step) come back to the core that wrote them, still
 * in its cache, instead of piling up on the main thread while each worker
 * mallocs fresh ones. Thread safety: the buffer is unreachable when it is
 * pushed (its array's count reached zero through an acq_rel decrement);
 * producers push with a release CAS, the owner takes the whole list with an
 * acquire exchange, so there is no ABA (nobody pops one node) and the
 * owner sees the links and tags written into the nodes (words 0 and 1;
 * a block has 48 bytes at least, a cached buffer more than 64). A slot's entry is written
 * once, by its thread before it allocates anything, so a block's owner is
 * always registered; workers never exit, so the list outlives every push.
 * A thread keeps what was handed back until its next miss: no more than it
 * allocated itself. Under AddressSanitizer nothing is cached or handed back.
 */
#include "rt_internal.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

const brt_type brt_t_int = { BRT_INT, NULL, 0, 0, NULL, NULL, false, NULL, NULL, false };
const brt_type brt_t_i128 = { BRT_I128, NULL, 0, 0, NULL, NULL, false, NULL, NULL, false };
const brt_type brt_t_u64 = { BRT_U64, NULL, 0, 0, NULL, NULL, false, NULL, NULL, false };
const brt_type brt_t_float = { BRT_FLOAT, NULL, 0, 0, NULL, NULL, false, NULL, NULL, false };
const brt_type brt_t_bool = { BRT_BOOL, NULL, 0, 0, NULL, NULL, false, NULL, NULL, false };
const brt_type brt_t_str = { BRT_STR, NULL, 0, 0, NULL, NULL, false, NULL, NULL, false };
const brt_type brt_t_fn = { BRT_FN, NULL, sizeof(brt_fn), 0, NULL, NULL, true, NULL, NULL, false };

brt_str brt_empty_str = BRT_STR_LIT("", 0);

/* ---- memory ----------------------------------------------------------------- */

BRT_NORETURN static void out_of_memory(void)
{
    brt_panic_text(NULL, "out of memory");
}

void *brt_xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p)
        out_of_memory();
    return p;
}

void *brt_xcalloc(size_t n)
{
    void *p = calloc(1, n ? n : 1);
    if (!p)
        out_of_memory();
    return p;
}

/* brt_xmalloc for a size the program computed ([x] * n, s * n): a failure
 * is the user's, reported at their place. */
static void *xmalloc_at(size_t n, const brt_loc *l)
{
    void *p = malloc(n ? n : 1);
    if (!p)
        brt_panic_text(l, "out of memory");
    return p;
}

/* Array data on a 64-byte line, as a vector unit reads it best (512-bit
 * loads and stores that cross two lines cost twice). Not aligned_alloc'ed:
 * glibc (before 2.38) cuts every aligned request from a block 96 bytes
 * larger than the one it hands out, and its leftovers sit in its small
 * lists, so a freed aligned buffer never served the next request of its
 * size. A grid rebuilt each step that the thread caches could not hold
 * (conv: 998 rows of 7984 bytes, 4 MiB kept) grew the heap for five steps
 * instead, a page fault per 4 KiB (3,800 faults, 4-8 ms a step against
 * 1.4 once it settled). So the data is malloc'ed LINE bytes larger and
 * starts at the first line past the block's start; the word before it says
 * how far in (16 to 64 bytes), and every free and realloc of array data
 * goes through line_free and line_realloc. A freed block is a plain block
 * of its size, which the next malloc of that size takes back. Under
 * AddressSanitizer the data is the block itself (LINE 0): an overflow by
 * one byte is still reported.
 *
 * A big array's data (BIG_DATA and up) in 2 MiB pages where the kernel
 * offers them (madvise): its first touch costs a fault per 2 MiB, not per
 * 4 KiB, which was most of the time of a pass that writes a fresh
 * 10^7-element array (a par scan, a comprehension). */
#define BIG_DATA ((size_t)16 << 20)
#define HUGE_PAGE ((size_t)2 << 20)
#if defined(__SANITIZE_ADDRESS__)
#define LINE 0
#else
#define LINE 64
#endif

/* The data in block p (of LINE bytes more than it needs), its offset noted. */
static void *line_in(char *p)
{
    if (!LINE)
        return p;
    char *d = (char *)(((uintptr_t)p + LINE) & ~(uintptr_t)(LINE - 1));
    ((size_t *)d)[-1] = (size_t)(d - p);
    return d;
}

/* Runs: the rows of a grid side by side. Malloc'ed, each row's data sat in
 * a block of its own, 16 bytes of malloc's header and up to 64 of the
 * line's offset before it, its array's header (a class-0 block) between it
 * and the next: a 96^3 grid of floats, rows of 768 bytes, took 912 bytes
 * a row, and a sweep that streams two such grids through the caches moved
 * 14 lines a row where 12 hold it (stencil3: a 96^3 Jacobi sweep ran like
 * C's flat grid padded to 114 floats a row, 1.13x the unpadded one). So
 * the data of a middle size that a thread has asked for RUN_ASKS times
 * since its run slot took that size (a grid's rows, not a
 * one-off) is carved from a chunk of RUN_CHUNK bytes that the slot holds,
 * one buffer after the other, each rounded up to whole lines (64-aligned
 * as line_in's; 768 bytes a row of 96 floats). The chunks come from one
 * room of RUN_ROOM bytes that the process reserves at its first run
 * (untouched pages cost nothing) and hands out by an atomic add; once it
 * is used up, data is malloc'ed as before. A run's buffer is never given
 * to free(): freed, it goes onto the freeing thread's cache for its size
 * as any (data_keep, past DATA_KEEP: the room bounds them all), where the
 * next array of that size takes it; one that finds no entry for its size
 * stays where it is, unused (all of them at most RUN_ROOM bytes, which
 * bounds what a program that drops rows of one size and goes on with
 * another keeps of the first: glibc would have reused it). A size's slot
 * is the one its hash picks, one look (a program that makes arrays of 18
 * sizes in turn, none of them often enough for a run: a scan of the four
 * slots and the eviction of the oldest cost 33 instructions a new array,
 * 5.9 -> 6.6 ms; the look, 5.8 -> 6.25 ms against no runs, +2.3%
 * instructions); a size that takes a slot from another leaves the rest of
 * the other's chunk unused (a program of many sizes may use up the room,
 * then goes on malloc'ing). Under AddressSanitizer there are no runs (no
 * caches).
 *
 * Where a run's buffers lie decides how a walk down a column of the grid
 * (a[j][i] for j in a loop: a transpose, a column sum, column stores)
 * meets the caches. L1 has 64 sets of lines, picked by address bits 6-11
 * (L2's low set bits are the same bits): rows s lines apart put one
 * column's lines in 64 / gcd(s, 64) sets only. At 4 KiB a row (512
 * floats) that is one set of 12 ways for the whole column: a 512 x 512
 * in-place transpose in a function ran 6.3 ms, 6.6x the 0.95 it runs with
 * a line between the rows (n = 1024, 8 KiB rows: 26.9 -> 5.1). So a step
 * that is a multiple of 8 lines (512 bytes: 64, 128, ... floats a row)
 * gets one line more (run_step), spreading a column over all 64 sets; at
 * 768 bytes (stencil3's rows: 16 sets, 192 lines of L1 a column) the
 * rows stay side by side. Chunks do not break the run either: a slot's
 * new chunk that begins where its last one ends (one thread making a
 * grid: the room is handed out in order) continues it, buffer after
 * buffer; one that does not (another thread's chunk between, another
 * slot's) starts at a colour, 17 lines more per chunk of the room,
 * modulo 64, as a slab allocator colours its slabs. A chunk that began
 * each 32 rows of 8,000 bytes at the same offset of a page put rows
 * 32 apart in the same sets (a C program with that layout: 6.22 ms the
 * 1000 x 1000 in-place transpose, 5.95 without the breaks;
 * transpose/inplace_fn 6.40 -> 6.09 ms). The rows stay 64-aligned,
 * never 16 bytes off as malloc's are, though a column's loads like that
 * (the in-place transpose 5.5 ms in C at rows 8,016 bytes apart, 5.95 at
 * 8,000): column stores that miss the cache run 1.2-2.5x slower on rows
 * whose lines start at different offsets (C, out[j][i] = a[i][j]: n = 500
 * 2.1 -> 5.4 ms, n = 1000 14.7 -> 17.7), and vectorized loops over rows
 * split loads across lines (matmul's variants 1.45 -> 2.4 ms). */
#define RUN_ROOM ((size_t)64 << 20)
#define RUN_CHUNK ((size_t)256 << 10)
#define RUN_ASKS 4
static char *run_room;   /* reserved at the first run; RUN_NONE when that failed */
static size_t run_taken; /* bytes of the room handed out as chunks (atomic) */
#define RUN_NONE ((char *)-1)

static bool in_runs(const void *d)
{
    char *r = __atomic_load_n(&run_room, __ATOMIC_ACQUIRE);
    return r && r != RUN_NONE && (const char *)d >= r && (const char *)d < r + RUN_ROOM;
}

/* A new chunk of the room, or NULL (none reserved, or used up). */
static char *run_chunk(void)
{
    char *r = __atomic_load_n(&run_room, __ATOMIC_ACQUIRE);
    if (!r) {
        void *m = mmap(NULL, RUN_ROOM, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        char *want = m == MAP_FAILED ? RUN_NONE : m;
        if (!__atomic_compare_exchange_n(&run_room, &r, want, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
            if (want != RUN_NONE) munmap(want, RUN_ROOM); /* another thread reserved it first: r is its room */
        } else {
            r = want;
        }
    }
    if (r == RUN_NONE) return NULL;
    size_t at = __atomic_fetch_add(&run_taken, RUN_CHUNK, __ATOMIC_RELAXED);
    return at + RUN_CHUNK <= RUN_ROOM ? r + at : NULL;
}

/* The distance from one buffer of bytes bytes to the next in a run: whole
 * lines, one more where they are a multiple of 8 (see Runs, above). */
static size_t run_step(size_t bytes)
{
    size_t step = (bytes + 63) & ~(size_t)63;
    return step % 512 ? step : step + 64;
}

/* New data of bytes bytes (a middle size, none cached) from tc's run of
 * that size, or NULL: the size not asked for often enough yet, or no
 * room. A fresh buffer is all zero (a run's pages are used once). */
_Static_assert(BRT_TCACHE_SIZES == 4, "run_get's hash picks one of four slots");
static void *run_get(brt_tcache *tc, size_t bytes)
{
    int r = (int)(((uint64_t)bytes * 0x9E3779B97F4A7C15ULL) >> 62); /* the size's slot: one look */
    if (tc->rbytes[r] != (int64_t)bytes) { /* the size takes its slot */
        tc->rbytes[r] = (int64_t)bytes;
        tc->rasks[r] = 1;
        tc->rat[r] = tc->rend[r] = NULL;
        return NULL;
    }
    if (tc->rasks[r] < RUN_ASKS) {
        tc->rasks[r]++;
        return NULL;
    }
    size_t step = run_step(bytes);
    if ((size_t)(tc->rend[r] - tc->rat[r]) < step) {
        char *c = run_chunk();
        if (!c) return NULL;
        if (c != tc->rend[r]) /* not the run's next chunk: a new run, coloured */
            tc->rat[r] = c + (((size_t)(c - run_room) / RUN_CHUNK * 17 % 64) << 6);
        tc->rend[r] = c + RUN_CHUNK;
    }
    void *d = tc->rat[r];
    tc->rat[r] += step;
    return d;
}

static void line_free(void *d)
{
    if (d && !in_runs(d)) /* a run's buffer stays in its run */
        free(LINE ? (char *)d - ((size_t *)d)[-1] : d);
}

/* d's block (d not NULL) grown or shrunk to hold n bytes of data, d's first n bytes
 * kept: realloc moves the block's bytes, and the data moves to the new
 * block's line when its offset changed. */
static void *line_realloc(void *d, size_t n)
{
    size_t off = LINE ? ((size_t *)d)[-1] : 0;
    char *p = realloc((char *)d - off, n + LINE);
    if (!p)
        out_of_memory();
    if (!LINE)
        return p;
    char *nd = (char *)(((uintptr_t)p + LINE) & ~(uintptr_t)(LINE - 1));
    if ((size_t)(nd - p) != off)
        memmove(nd, p + off, n);
    ((size_t *)nd)[-1] = (size_t)(nd - p);
    return nd;
}

static void *data_get(size_t bytes);
static void *big_get(size_t bytes);
static bool data_cached(size_t bytes);

/* n bytes (more than 64) of new array data, all zero when zero: a buffer
 * the thread kept of that size, else a new block (calloc'ed when zero:
 * fresh pages need no pass to clear them). */
static void *data_at(size_t n, bool zero, const brt_loc *l)
{
    void *c = data_get(n);
    if (!c)
        c = big_get(n);
    if (c) {
        if (zero)
            memset(c, 0, n);
        return c;
    }
    brt_tcache *tc = data_cached(n) ? brt_tcache_here() : NULL;
    if (tc && (c = run_get(tc, n)))
        return c;
    char *p;
    if (n >= BIG_DATA && !zero) {
        size_t rounded = (n + LINE + HUGE_PAGE - 1) / HUGE_PAGE * HUGE_PAGE;
        p = aligned_alloc(HUGE_PAGE, rounded);
        if (p)
            madvise(p, rounded, MADV_HUGEPAGE);
    } else {
        p = n > SIZE_MAX - LINE ? NULL : zero ? calloc(1, n + LINE) : malloc(n + LINE);
    }
    if (!p)
        brt_panic_text(l, "out of memory");
    return line_in(p);
}

void *brt_xrealloc(void *p, size_t n)
{
    p = realloc(p, n ? n : 1);
    if (!p)
        out_of_memory();
    return p;
}

/* brt_type_size without the call, for the hot paths below: one load. */
static const uint8_t kind_size[] = {
    [BRT_INT] = sizeof(int64_t), [BRT_I128] = sizeof(brt_i128), [BRT_U64] = sizeof(uint64_t),
    [BRT_FLOAT] = sizeof(double), [BRT_BOOL] = sizeof(bool), [BRT_STR] = sizeof(brt_str *),
    [BRT_ARR] = sizeof(brt_arr *), [BRT_FN] = sizeof(brt_fn),
};
#define TYPE_SIZE(t) ((t)->kind == BRT_TUPLE ? (t)->size : (size_t)kind_size[(t)->kind])

size_t brt_type_size(const brt_type *t)
{
    switch (t->kind) {
    case BRT_INT: return sizeof(int64_t);
    case BRT_I128: return sizeof(brt_i128);
    case BRT_U64: return sizeof(uint64_t);
    case BRT_FLOAT: return sizeof(double);
    case BRT_BOOL: return sizeof(bool);
    case BRT_STR: return sizeof(brt_str *);
    case BRT_ARR: return sizeof(brt_arr *);
    case BRT_TUPLE: return t->size;
    case BRT_FN: return sizeof(brt_fn);
    }
    return 0;
}

/* n * size, or a panic at l when that does not fit (a [x] * n gone wild). */
static size_t size_mul(int64_t n, size_t size, const brt_loc *l)
{
    size_t r;
    if (n < 0 || __builtin_mul_overflow((size_t)n, size, &r) || r > (size_t)INT64_MAX / 2)
        brt_panic_msg(l, "out of memory");
    return r;
}

/* ---- array blocks ------------------------------------------------------------------ */

/* 16384 blocks a class (at most 1.8 MiB a class): a grid of 96 x 96 rows
 * dropped each step as a new one is built (stencil3/fn_comp) comes back
 * whole; with 1024, 8,000 of its 9,312 headers went to free() and came
 * back from malloc each step. */
#define CACHE_MAX 16384
/* A block: the class, the header, then class_room[class] bytes of data. The
 * header is 40 bytes, so data past it is 16-aligned like malloc's. */
typedef struct arr_block {
    int32_t cls;
    uint32_t owner; /* the allocating thread's slot (0: none) */
    brt_arr a;
} arr_block;
static const size_t class_room[BRT_TCACHE_CLASSES] = { 0, 16, 32, 64 };

static int class_of(size_t bytes)
{
    return bytes == 0 ? 0 : bytes <= 16 ? 1 : bytes <= 32 ? 2 : bytes <= 64 ? 3 : 0;
}

/* Under AddressSanitizer (make asan-runtime) no block is cached: each one
 * goes back to free(), so a use after the last release is reported, and
 * LeakSanitizer (which does not scan a worker's cache at the top of its
 * stack block) sees no cached block as lost. */
#if defined(__SANITIZE_ADDRESS__)
#define BLOCK_CACHE 0
#else
#define BLOCK_CACHE 1
#endif

/* The caches by slot (brt_tcache.slot): 1 is the main thread's, id + 1 a
 * pool worker's. An entry is written once, before its thread allocates
 * anything, and read only for a block that thread allocated (so after it). */
#define SLOTS 256
static brt_tcache *slots[SLOTS] = { [1] = &brt_tc_main };

void brt_tcache_register(brt_tcache *tc, int id)
{
    if (id + 1 < SLOTS && id >= 0) {
        tc->slot = (uint32_t)(id + 1);
        __atomic_store_n(&slots[id + 1], tc, __ATOMIC_RELEASE);
    }
}

/* The cache of the thread that allocated what records owner, when that is
 * another thread than tc's. */
static brt_tcache *owner_cache(brt_tcache *tc, uint32_t owner)
{
    return owner && owner != tc->slot && owner < SLOTS ? __atomic_load_n(&slots[owner], __ATOMIC_ACQUIRE) : NULL;
}

/* node onto to's hand-back list; tag: a data buffer's size (more than 64)
 * or an array block's class (less than BRT_TCACHE_CLASSES). */
static void hand_back(brt_tcache *to, void *node, size_t tag)
{
    void **n = node;
    n[1] = (void *)tag;
    void *head = __atomic_load_n((void **)&to->remote, __ATOMIC_RELAXED);
    do
        n[0] = head;
    while (!__atomic_compare_exchange_n((void **)&to->remote, &head, node, true, __ATOMIC_RELEASE, __ATOMIC_RELAXED));
}

static void remote_drain(brt_tcache *tc);

static brt_arr *block_get(int cls)
{
    brt_tcache *tc = BLOCK_CACHE ? brt_tcache_here() : NULL;
    arr_block *b;
    if (tc && !tc->head[cls] && __atomic_load_n((void **)&tc->remote, __ATOMIC_RELAXED))
        remote_drain(tc);
    if (tc && tc->head[cls]) {
        b = tc->head[cls];
        tc->head[cls] = *(void **)&b->a; /* the link is kept where rc goes */
        tc->count[cls]--;
    } else {
        b = brt_xmalloc(sizeof *b + class_room[cls]);
        b->cls = cls;
    }
    b->owner = tc ? tc->slot : 0;
    return &b->a;
}

static void block_put(brt_arr *a)
{
    arr_block *b = (arr_block *)((char *)a - offsetof(arr_block, a));
    int cls = (int)b->cls;
    brt_tcache *tc = BLOCK_CACHE ? brt_tcache_here() : NULL;
    brt_tcache *to = tc ? owner_cache(tc, b->owner) : NULL;
    if (to) {
        hand_back(to, b, (size_t)cls);
        return;
    }
    if (tc && tc->count[cls] < CACHE_MAX) {
        *(void **)&b->a = tc->head[cls];
        tc->head[cls] = b;
        tc->count[cls]++;
    } else {
        free(b);
    }
}

static bool is_inline(const brt_arr *a)
{
    return a->data == (void *)(a + 1);
}

/* ---- middle-sized data ---------------------------------------------------------- */

#define DATA_MAX ((size_t)64 << 10)
/* 16 MiB of each size (64 MiB at most a thread, of buffers the program
 * had in use at once, which glibc's lists would keep as well): a 96^3 grid
 * of floats (7 MiB of 768-byte rows) rebuilt each step gets its rows back;
 * with 4 MiB, 3,755 of its 9,216 rows went to free() and came back from
 * aligned_alloc each step (stencil3/fn_comp 1,414M -> 816M instructions,
 * 820M of them malloc and free). */
#define DATA_KEEP ((size_t)16 << 20)
/* brt_arr_unset's rows of at most this many elements: their bytes
 * (times a type's size, far below 2^47) need no size_mul. */
#define ROW_MOST ((int64_t)DATA_MAX)

static bool data_cached(size_t bytes)
{
    return BLOCK_CACHE && bytes > 64 && bytes <= DATA_MAX;
}

/* Room in entry e's stack for one more buffer (grown by doubling; at most
 * DATA_KEEP / 65 of them): whether there is. The stack holds the links, not
 * the buffers: a row released on one thread after another wrote it costs
 * no transfer of its first line back (the link once written into it), and
 * taking one reads nothing in it (the next link, once read from it: a
 * dependent miss per row when another core or the eviction of a whole grid
 * had it). A 500 x 500 stencil building a new grid of 500 rows each step
 * (stencil/if_border_fn, medians of the steps): the release of the old
 * grid 3.7 -> 2.8 us, the allocation of the new 2.3 -> 1.9 at one thread;
 * 7.3-8.0 -> 5.9-6.6 and 4.1-4.5 -> 3.5-4.0 at two. A step that then
 * writes each new row's first element on the main thread (a border copied
 * by a loop: new_grid_main) pays that line there instead. */
static bool stack_grow(brt_tcache *tc, int e)
{
    int32_t cap = tc->dcap[e] ? tc->dcap[e] * 2 : 256;
    void **s = realloc(tc->dstack[e], (size_t)cap * sizeof *s);
    if (!s)
        return false;
    tc->dstack[e] = s;
    tc->dcap[e] = cap;
    return true;
}

static inline bool stack_room(brt_tcache *tc, int e)
{
    return tc->dcount[e] < tc->dcap[e] || stack_grow(tc, e);
}

/* p (bytes bytes) onto tc's lists when its size has an entry (or a free
 * one) with room: whether it went. */
static bool data_keep(brt_tcache *tc, void *p, size_t bytes)
{
    int free_e = -1;
    for (int e = 0; e < BRT_TCACHE_SIZES; e++) {
        if (tc->dbytes[e] == (int64_t)bytes) {
            free_e = e;
            break;
        }
        if (free_e < 0 && tc->dcount[e] == 0)
            free_e = e;
    }
    if (free_e < 0 || ((size_t)(tc->dcount[free_e] + 1) * bytes > DATA_KEEP && !in_runs(p)) || !stack_room(tc, free_e))
        return false;
    tc->dbytes[free_e] = (int64_t)bytes;
    tc->dstack[free_e][tc->dcount[free_e]++] = p;
    return true;
}

/* The buffers other threads handed back (tc->remote) onto tc's lists, or
 * to free() where they have no room. */
static void remote_drain(brt_tcache *tc)
{
    void **n = __atomic_exchange_n((void **)&tc->remote, NULL, __ATOMIC_ACQUIRE);
    while (n) {
        void **next = n[0];
        size_t tag = (size_t)n[1];
        if (tag < BRT_TCACHE_CLASSES) {
            arr_block *b = (arr_block *)n;
            b->cls = (int32_t)tag;
            if (tc->count[tag] < CACHE_MAX) {
                *(void **)&b->a = tc->head[tag];
                tc->head[tag] = b;
                tc->count[tag]++;
            } else {
                free(b);
            }
        } else if (!data_keep(tc, n, tag)) {
            line_free(n);
        }
        n = next;
    }
}

/* A cached buffer of exactly bytes bytes, or NULL. */
static void *data_get(size_t bytes)
{
    brt_tcache *tc = data_cached(bytes) ? brt_tcache_here() : NULL;
    if (!tc)
        return NULL;
    for (int pass = 0; pass < 2; pass++) {
        for (int e = 0; e < BRT_TCACHE_SIZES; e++)
            if (tc->dbytes[e] == (int64_t)bytes && tc->dcount[e] > 0)
                return tc->dstack[e][--tc->dcount[e]];
        if (pass || !__atomic_load_n((void **)&tc->remote, __ATOMIC_RELAXED))
            break;
        remote_drain(tc);
    }
    return NULL;
}

/* Big data (more than DATA_MAX, at most BIG_KEEP bytes): the thread keeps
 * the last buffer it freed, and an array of exactly that size takes it
 * back. A loop that builds an array of the same size on each pass and
 * drops the last one (ps = [move(p) for p in ps], a row of bins per pass)
 * writes the buffer it just freed, still in the core's caches, instead of
 * fresh pages from the kernel: glibc returned the freed top of its heap or
 * the mapping each time, and each pass faulted its pages in again
 * (particles/comp_move: 516 faults a step, sys time twice the user time).
 * One buffer per thread, the newest: the one before it goes to free(). An
 * array of up to twice the size takes it too (the array's cap stays what
 * it asked for, and so does the size it frees): a comprehension of more
 * than BRT_ROOM_BYTES starts at that room and grows by realloc, which
 * keeps a buffer in place while it fits (histogram/ints_main: 4 * 10^6
 * bins a pass); a comprehension past that room takes it at up to 8 times
 * its ask (big_take). */
#define BIG_KEEP ((size_t)64 << 20)

/* The kept buffer when it holds at least bytes (more than DATA_MAX) and at
 * most grow times that (its size into *got when got), else NULL. */
static void *big_from(size_t bytes, size_t grow, size_t *got)
{
    brt_tcache *tc = BLOCK_CACHE && bytes > DATA_MAX ? brt_tcache_here() : NULL;
    if (!tc || !tc->big || tc->bigbytes < (int64_t)bytes || (size_t)tc->bigbytes / grow > bytes)
        return NULL;
    void *p = tc->big;
    if (got)
        *got = (size_t)tc->bigbytes;
    tc->big = NULL;
    return p;
}

static void *big_get(size_t bytes)
{
    return big_from(bytes, 2, NULL);
}

/* The kept buffer for an array that is to hold at least bytes (more than
 * DATA_MAX) and will grow to whatever the buffer holds: a comprehension
 * past its room (brt_arr_room: its length is known). Taken whatever its
 * size above bytes, up to BIG_GROW times: *got is its size, which the
 * array's cap then covers, so the array grows into it with no realloc.
 * Not for a push that outgrows its data (brt_arr_reserve), whose final
 * size is unknown: it took the buffer the next array of that size would
 * have (strings/push_join: 10^6 pieces pushed, then joined, 19.6 -> 22.9
 * ms a pass, the same instructions). The 2x of
 * big_get missed those: a comprehension of 6 * 10^6 floats starts at 16
 * MiB of room and doubles to 64, and the 64 MiB it freed a step before
 * was four times its first ask; past glibc's mmap threshold (32 MiB,
 * os.c) each step mapped 48 MiB of fresh pages again (12,000 faults a
 * step, 3x the step's time). The buffer was held already: no more
 * memory. */
#define BIG_GROW 8
static void *big_take(size_t bytes, size_t *got)
{
    return big_from(bytes, BIG_GROW, got);
}

/* Whether p (bytes bytes, big) stays as this thread's kept buffer. */
static bool big_keep(void *p, size_t bytes)
{
    brt_tcache *tc = BLOCK_CACHE && bytes > DATA_MAX && bytes <= BIG_KEEP ? brt_tcache_here() : NULL;
    if (!tc)
        return false;
    line_free(tc->big);
    tc->big = p;
    tc->bigbytes = (int64_t)bytes;
    return true;
}

/* Frees p, the data of bytes bytes of an array whose block records owner:
 * back to the thread that allocated it when that is another one (its cache
 * holds it, in its core's cache still), else onto this thread's cache when
 * its size has room, else free(). */
static void data_put(void *p, size_t bytes, uint32_t owner)
{
    brt_tcache *tc = p && data_cached(bytes) ? brt_tcache_here() : NULL;
    if (!tc) {
        if (!p || !big_keep(p, bytes))
            line_free(p);
        return;
    }
    brt_tcache *to = owner_cache(tc, owner);
    if (to) {
        hand_back(to, p, bytes);
        return;
    }
    if (!data_keep(tc, p, bytes))
        line_free(p);
}

/* ---- reference counts --------------------------------------------------------- */

/* str and array both start with int64_t rc. */
void brt_retain(void *p)
{
    if (!p)
        return;
    int64_t *rc = p;
    /* a relaxed load (a plain mov): another thread may change the count meanwhile */
    if (__atomic_load_n(rc, __ATOMIC_RELAXED) >= 0)
        __atomic_fetch_add(rc, 1, __ATOMIC_RELAXED);
}

/* Returns true when the caller dropped the last reference. A count of 1
 * is the caller's own reference, the only one: no other thread can take
 * or drop one meanwhile, so it is freed without the locked subtract (whose
 * cost, on a row released each step of a 3-D stencil, was most of the
 * release). The acquire load pairs with the acq_rel subtract that brought
 * the count to 1 on another thread: what that thread did with the object
 * happens before it is freed here. A freed object keeps its count: every
 * allocation sets it. */
static bool drop_ref(int64_t *rc)
{
    int64_t n = __atomic_load_n(rc, __ATOMIC_ACQUIRE);
    if (n < 0)
        return false;
    if (n == 1)
        return true;
    return __atomic_sub_fetch(rc, 1, __ATOMIC_ACQ_REL) == 0;
}

void brt_str_release(brt_str *s)
{
    if (s && drop_ref(&s->rc))
        free(s);
}

/* The freeing of a row whose block and data both go back onto this
 * thread's caches, at one look at them: a class-0 block this thread
 * allocated, data of a middle size whose entry has room (block_put and
 * data_put do the same in two calls, each finding the cache again). */
BRT_INLINE bool row_put_tc(brt_tcache *tc, brt_arr *a, size_t bytes)
{
    arr_block *b = (arr_block *)((char *)a - offsetof(arr_block, a));
    if (!tc || !data_cached(bytes) || b->cls != 0 || b->owner != tc->slot || tc->count[0] >= CACHE_MAX)
        return false;
    for (int e = 0; e < BRT_TCACHE_SIZES; e++)
        if (tc->dbytes[e] == (int64_t)bytes) { /* data_keep's entry for this size */
            if (((size_t)(tc->dcount[e] + 1) * bytes > DATA_KEEP && !in_runs(a->data)) || !stack_room(tc, e))
                return false;
            tc->dstack[e][tc->dcount[e]++] = a->data;
            *(void **)&b->a = tc->head[0];
            tc->head[0] = b;
            tc->count[0]++;
            return true;
        }
    return false;
}

static bool row_put_here(brt_arr *a, size_t bytes)
{
    return data_cached(bytes) && row_put_tc(brt_tcache_here(), a, bytes);
}

/* The freeing of rows e[0 .. n) of scalars (own.c: brt_release_n, an array
 * of rows whose elements, of type elem, own nothing), last first: each row whose count
 * drops to zero goes back as brt_arr_release would put it, the thread's
 * cache found once for them all rather than twice a row, and nothing asked
 * of a row that only a row of rows needs (rows_made_on_pool, its
 * elements' release). A 96^3 grid of 9,216 rows of 96 floats rebuilt each
 * step (stencil3/fn_comp): ~113 -> ~62 instructions a row. The counts
 * RELEASE_AHEAD rows ahead are fetched meanwhile (own.c). */
void brt_rows_release(brt_arr **e, int64_t n, const brt_type *elem)
{
    size_t es = TYPE_SIZE(elem);
    brt_tcache *tc = BLOCK_CACHE ? brt_tcache_here() : NULL;
    for (int64_t i = n - 1; i >= 0; i--) {
#if BRT_GCC
        if (i >= RELEASE_AHEAD && e[i - RELEASE_AHEAD])
            __builtin_prefetch(e[i - RELEASE_AHEAD], 1);
#endif
        brt_arr *a = e[i];
        if (!a || !drop_ref(&a->rc))
            continue;
        if (!is_inline(a)) {
            size_t bytes = (size_t)a->cap * es;
            if (row_put_tc(tc, a, bytes))
                continue;
            data_put(a->data, bytes, ((arr_block *)((char *)a - offsetof(arr_block, a)))->owner);
        }
        block_put(a);
    }
}

/* Rows made on the pool, released on it. An array of at least ROWS_ON_POOL
 * rows of which another thread allocated some (one of ROW_SAMPLES rows
 * spread over it: a comprehension of rows filled on the pool, each chunk's
 * rows made by the thread that ran it, whichever ran the chunk) is
 * released by a loop on the pool: each thread releases a range of
 * rows, those it made going straight back onto its own caches, instead of
 * the thread that drops the array releasing them all, handing each of the
 * others' back to its maker, while they wait. A stencil that builds its
 * next grid as a comprehension each step, at 2 threads: 22.9 -> 13.2 ms
 * (500 rows of 500 floats a step; the C, two grids swapped, 11.0). Rows one
 * thread made (`[[0.0] * n for ...]` in main) are released where they are
 * dropped: released on the pool, half of them were handed back to it, and
 * such a stencil ran 1.7x slower. The rows are counted beneath a grid of
 * planes too (a 96^3 grid rebuilt as a comprehension each step: 96 planes
 * of 96 rows, at 2 threads 48 -> 37 ms). */
#define ROWS_ON_POOL 128
#define ROW_SAMPLES 8 /* rows whose makers are looked at, spread over the array */

static uint32_t row_owner(const brt_arr *r)
{
    /* a counted array's header is in a block (immortal ones are not) */
    return r && __atomic_load_n(&r->rc, __ATOMIC_RELAXED) > 0
               ? ((const arr_block *)((const char *)r - offsetof(arr_block, a)))->owner
               : 0;
}

/* The rows beneath array a of arrays, estimated from its middle element:
 * its own length, times the middle element's length when the elements are
 * arrays of arrays too (a grid of planes: each plane's rows are released
 * with it), saturating. */
static int64_t rows_beneath(const brt_arr *a)
{
    if (a->elem->elem->kind != BRT_ARR || a->len < 2)
        return a->len;
    const brt_arr *mid = ((brt_arr *const *)a->data)[a->len / 2];
    int64_t per = mid ? 1 + mid->len : 1;
    return per > INT64_MAX / a->len ? INT64_MAX : a->len * per;
}

static bool rows_made_on_pool(const brt_arr *a)
{
    if (a->elem->kind != BRT_ARR || rows_beneath(a) < ROWS_ON_POOL)
        return false;
    brt_tcache *tc = BLOCK_CACHE ? brt_tcache_here() : NULL;
    if (!tc || !brt_par_for_splits(0, a->len, 2))
        return false;
    brt_arr *const *e = a->data;
    for (int k = 0; k < ROW_SAMPLES; k++) {
        uint32_t o = row_owner(e[(a->len * (2 * k + 1)) / (2 * ROW_SAMPLES)]);
        if (o && o != tc->slot)
            return true;
    }
    return false;
}

/* Rows lo .. hi of array a (a chunk of the release on the pool). */
static void release_rows(void *a, int64_t lo, int64_t hi)
{
    const brt_arr *rows = a;
    brt_release_n(rows->elem, (brt_arr **)rows->data + lo, hi - lo);
}

void brt_arr_release(brt_arr *a)
{
    if (!a || !drop_ref(&a->rc))
        return;
    if (rows_made_on_pool(a))
        brt_par_for(0, a->len, a, release_rows);
    else if (brt_type_owns(a->elem))
        brt_release_n(a->elem, a->data, a->len);
    if (!is_inline(a) && row_put_here(a, (size_t)a->cap * TYPE_SIZE(a->elem)))
        return;
    if (!is_inline(a))
        data_put(a->data, (size_t)a->cap * TYPE_SIZE(a->elem),
                 ((arr_block *)((char *)a - offsetof(arr_block, a)))->owner);
    block_put(a);
}

/* ---- strings ------------------------------------------------------------------ */

brt_str *brt_str_new(const char *bytes, int64_t len)
{
    if (len <= 0)
        return &brt_empty_str;
    brt_str *s = brt_xmalloc(sizeof *s + (size_t)len + 1);
    char *d = (char *)(s + 1);
    memcpy(d, bytes, (size_t)len);
    d[len] = 0;
    s->rc = 1;
    s->len = len;
    s->data = d;
    s->cap = 0;
    return s;
}

/* A new str of len bytes to fill in; len > 0. Out of memory panics at l. */
static brt_str *str_alloc(int64_t len, char **data, const brt_loc *l)
{
    brt_str *s = xmalloc_at(sizeof *s + (size_t)len + 1, l);
    char *d = (char *)(s + 1);
    d[len] = 0;
    s->rc = 1;
    s->len = len;
    s->data = d;
    s->cap = 0;
    *data = d;
    return s;
}

brt_str *brt_str_make(int64_t len, char **data)
{
    if (len <= 0) {
        /* every piece empty: nothing is written at *data */
        static char none[1];
        *data = none;
        return &brt_empty_str;
    }
    return str_alloc(len, data, NULL);
}

char *brt_put_bytes(char *d, const char *bytes, int64_t n)
{
    if (n > 0)
        memcpy(d, bytes, (size_t)n);
    return d + n;
}

brt_str *brt_str_concat(brt_str *a, brt_str *b)
{
    if (b->len == 0) {
        brt_retain(a);
        return a;
    }
    if (a->len == 0) {
        brt_retain(b);
        return b;
    }
    char *d;
    brt_str *s = str_alloc(a->len + b->len, &d, NULL);
    memcpy(d, a->data, (size_t)a->len);
    memcpy(d + a->len, b->data, (size_t)b->len);
    return s;
}

brt_str *brt_str_extend(brt_str *a, brt_str *b)
{
    bool own_bytes = b->data >= a->data && b->data <= a->data + a->len;
    if (a->rc != 1 || a->cap != 0 || a->data != (const char *)(a + 1) || own_bytes || b->len == 0) {
        brt_str *s = brt_str_concat(a, b);
        brt_str_release(a);
        return s;
    }
    int64_t len = a->len + b->len;
    if (len < a->len)
        out_of_memory();
    brt_str *s = realloc(a, sizeof *s + (size_t)len + 1);
    if (!s)
        out_of_memory();
    char *d = (char *)(s + 1);
    memcpy(d + s->len, b->data, (size_t)b->len);
    d[len] = 0;
    s->len = len;
    s->data = d;
    return s;
}

brt_str *brt_str_append(brt_str *a, brt_str *b)
{
    return brt_str_append_bytes(a, b->data, b->len);
}

brt_str *brt_str_append_bytes(brt_str *a, const char *bytes, int64_t n)
{
    if (n == 0)
        return a;
    int64_t len = a->len + n;
    /* the only reference, and the bytes not its own (s + s): a's bytes are
     * nobody else's, so growing them in place is invisible */
    bool own_bytes = bytes >= a->data && bytes <= a->data + a->len;
    bool mine = a->rc == 1 && !own_bytes;
    if (mine && a->cap >= len) {
        memcpy((char *)a->data + a->len, bytes, (size_t)n);
        ((char *)a->data)[len] = 0;
        a->len = len;
        return a;
    }
    /* a block of ours, the bytes after its header (every counted str), is
     * realloc'd; one not yet grown (cap 0: made whole, by a join or a
     * format) to the length asked: `join(parts) + ","` adds once, and a
     * second append finds it full and grows it by half. A new block (a's
     * shared, or immortal: the "" a building loop starts from) has room. */
    bool grow = mine && (a->cap > 0 || a->data == (const char *)(a + 1));
    int64_t cap = grow && a->cap == 0 ? len : len < 16 ? 32 : len + len / 2;
    if (cap < len || (uint64_t)cap > (uint64_t)INT64_MAX / 2)
        out_of_memory();
    brt_str *s;
    char *d;
    if (grow) {
        /* realloc keeps the bytes (b is not a), and moves a large block's
         * pages without copying them */
        s = realloc(a, sizeof *s + (size_t)cap + 1);
        if (!s)
            out_of_memory();
        d = (char *)(s + 1);
        memcpy(d + (len - n), bytes, (size_t)n);
    } else {
        s = brt_xmalloc(sizeof *s + (size_t)cap + 1);
        d = (char *)(s + 1);
        memcpy(d, a->data, (size_t)a->len);
        memcpy(d + a->len, bytes, (size_t)n); /* before a goes: the bytes may be a's */
        s->rc = 1;
        brt_str_release(a);
    }
    d[len] = 0;
    s->len = len;
    s->data = d;
    s->cap = cap;
    return s;
}

/* s made exact: a growable block of ours (cap > 0, one reference) realloc'd
 * to its length, its cap 0 again (as a join or a format makes it), so a
 * string a loop built holds no room it will not use. */
brt_str *brt_str_fit(brt_str *s)
{
    if (s->rc != 1 || s->cap <= 0 || s->data != (const char *)(s + 1))
        return s;
    if (s->cap > s->len) {
        brt_str *r = realloc(s, sizeof *r + (size_t)s->len + 1);
        if (!r)
            return s; /* not given back: its room stays usable */
        s = r;
        s->data = (const char *)(s + 1);
    }
    s->cap = 0;
    return s;
}

brt_str *brt_str_repeat(brt_str *s, int64_t n, const brt_loc *l)
{
    if (n <= 0 || s->len == 0)
        return &brt_empty_str;
    if (n == 1) {
        brt_retain(s);
        return s;
    }
    size_t total = size_mul(n, (size_t)s->len, l);
    char *d;
    brt_str *r = str_alloc((int64_t)total, &d, l);
    for (int64_t i = 0; i < n; i++)
        memcpy(d + i * s->len, s->data, (size_t)s->len);
    return r;
}

bool brt_str_eq(brt_str *a, brt_str *b)
{
    return a == b || (a->len == b->len && memcmp(a->data, b->data, (size_t)a->len) == 0);
}

int brt_str_cmp(brt_str *a, brt_str *b)
{
    int64_t n = a->len < b->len ? a->len : b->len;
    int c = memcmp(a->data, b->data, (size_t)n);
    if (c)
        return c < 0 ? -1 : 1;
    return a->len < b->len ? -1 : a->len > b->len;
}

/* ---- arrays ---------------------------------------------------------------------- */

/* A row of bytes bytes of data (a middle size) from a block and a buffer
 * that this thread's caches hold, at one look at them; NULL when either
 * has none (block_get and data_at then take the long way: the hand-back
 * list, malloc). A comprehension of rows takes each of its rows here. */
static inline brt_arr *row_get_here(size_t bytes)
{
    brt_tcache *tc = data_cached(bytes) ? brt_tcache_here() : NULL;
    if (!tc || !tc->head[0])
        return NULL;
    for (int e = 0; e < BRT_TCACHE_SIZES; e++)
        if (tc->dbytes[e] == (int64_t)bytes && tc->dcount[e] > 0) {
            void *p = tc->dstack[e][--tc->dcount[e]];
            arr_block *b = tc->head[0];
            tc->head[0] = *(void **)&b->a;
            tc->count[0]--;
            b->owner = tc->slot;
            b->a.data = p;
            return &b->a;
        }
    return NULL;
}

static brt_arr *arr_alloc(const brt_type *elem, int64_t len, int64_t cap, const brt_loc *l)
{
    size_t es = TYPE_SIZE(elem);
    size_t bytes = (uint64_t)cap <= 8 ? (size_t)cap * es : size_mul(cap, es, l);
    int cls = class_of(bytes);
    brt_arr *a = cls ? NULL : row_get_here(bytes); /* an inline array: no look at the row cache */
    if (a) {
        a->rc = 1;
        a->len = len;
        a->cap = cap;
        a->elem = elem;
        return a;
    }
    a = block_get(cls);
    a->rc = 1;
    a->len = len;
    a->cap = cap;
    a->elem = elem;
    a->data = cls ? (void *)(a + 1) : bytes ? data_at(bytes, false, l) : NULL;
    return a;
}

/* An array of len elements whose data are all zero bits: data_at's zero
 * data (a kept buffer cleared, or calloc's fresh pages). */
static brt_arr *arr_alloc_zero(const brt_type *elem, int64_t len, const brt_loc *l)
{
    size_t es = TYPE_SIZE(elem);
    size_t bytes = (uint64_t)len <= 8 ? (size_t)len * es : size_mul(len, es, l);
    int cls = class_of(bytes);
    if (cls || !bytes) {
        brt_arr *a = arr_alloc(elem, len, len, l);
        if (bytes)
            memset(a->data, 0, bytes);
        return a;
    }
    void *d = data_at(bytes, true, l);
    brt_arr *a = block_get(0);
    a->rc = 1;
    a->len = len;
    a->cap = len;
    a->elem = elem;
    a->data = d;
    return a;
}

brt_arr *brt_arr_alloc(const brt_type *elem, int64_t len, int64_t cap)
{
    return arr_alloc(elem, len, cap, NULL);
}

void brt_arr_reserve(brt_arr *a, int64_t cap)
{
    if (cap <= a->cap)
        return;
    size_t es = TYPE_SIZE(a->elem);
    size_t bytes = size_mul(cap, es, NULL);
    if (is_inline(a)) {
        arr_block *b = (arr_block *)((char *)a - offsetof(arr_block, a));
        if (bytes > class_room[b->cls]) {
            void *d = data_at(bytes, false, NULL);
            memcpy(d, a->data, (size_t)a->len * es);
            a->data = d;
        }
    } else if (a->data && in_runs(a->data)) { /* a run's buffer: moved, the old one kept here (or left) */
        void *d = data_at(bytes, false, NULL);
        memcpy(d, a->data, (size_t)a->len * es);
        brt_tcache *tc = brt_tcache_here();
        if (tc)
            data_keep(tc, a->data, (size_t)a->cap * es);
        a->data = d;
    } else {
        a->data = a->data ? line_realloc(a->data, bytes) : data_at(bytes, false, NULL);
    }
    a->cap = cap;
}

/* The zero value of a tuple's ref fields: "" and empty arrays. */
static void zero_fields(const brt_type *t, void *p)
{
    if (!t->refs || t->option) /* the zero Option is None: its value stays zero bits */
        return;
    for (int i = 0; i < t->nfields; i++) {
        void *f = (char *)p + t->offsets[i];
        const brt_type *ft = t->fields[i];
        if (ft->kind == BRT_STR)
            *(brt_str **)f = &brt_empty_str;
        else if (ft->kind == BRT_ARR)
            *(brt_arr **)f = brt_arr_new(ft->elem, 0);
        else if (ft->kind == BRT_TUPLE)
            zero_fields(ft, f);
    }
}

/* An empty array with room for n elements, at most BRT_ROOM_BYTES of them
 * (brine_rt.h): a comprehension's result whose length is known. Past that
 * room it grows as any push does, so an element that panics early (or a
 * count too large to hold) costs no more than this. */
brt_arr *brt_arr_room(const brt_type *elem, int64_t n)
{
    int64_t es = (int64_t)TYPE_SIZE(elem);
    int64_t most = es ? BRT_ROOM_BYTES / es : 8;
    size_t bytes, got;
    if (n > most && !__builtin_mul_overflow((size_t)n, (size_t)es, &bytes)) {
        void *d = big_take(bytes, &got); /* the kept buffer holds all n: room for them all */
        if (d) {
            brt_arr *a = block_get(0);
            a->rc = 1;
            a->len = 0;
            a->cap = (int64_t)(got / (size_t)es);
            a->elem = elem;
            a->data = d;
            return a;
        }
    }
    return arr_alloc(elem, 0, n < 0 ? 0 : n < most ? n : most, NULL);
}

static __attribute__((noinline)) brt_arr *unset_slow(const brt_type *elem, int64_t n, const brt_loc *l)
{
    brt_arr *a = arr_alloc(elem, n < 0 ? 0 : n, n < 0 ? 0 : n, l);
    if (brt_type_owns(elem) && a->len)
        memset(a->data, 0, (size_t)a->len * TYPE_SIZE(elem)); /* null: released as nothing */
    return a;
}

/* A row of plain scalars (kinds up to BRT_BOOL) is taken from the thread's
 * cache inline, the rest (a miss, a tuple, an array of owned values) in
 * unset_slow: the common path saves and restores no registers (a
 * comprehension's 9,216 rows a step, stencil3/fn_comp). */
brt_arr *brt_arr_unset(const brt_type *elem, int64_t n, const brt_loc *l)
{
    if (n > 8 && n <= ROW_MOST && elem->kind <= BRT_BOOL) { /* a row of scalars: arr_alloc's first try, inline */
        brt_arr *a = row_get_here((size_t)n * kind_size[elem->kind]);
        if (a) {
            a->rc = 1;
            a->len = a->cap = n;
            a->elem = elem;
            return a;
        }
    }
    return unset_slow(elem, n, l);
}

brt_arr *brt_arr_new(const brt_type *elem, int64_t len)
{
    if (len < 0)
        len = 0;
    brt_arr *a = arr_alloc(elem, len, len, NULL);
    switch (elem->kind) {
    case BRT_INT: case BRT_I128: case BRT_U64: case BRT_FLOAT: case BRT_BOOL:
        if (len)
            memset(a->data, 0, (size_t)len * brt_type_size(elem)); /* all-zero bits are 0, 0.0, false */
        break;
    case BRT_STR:
        for (int64_t i = 0; i < len; i++)
            ((brt_str **)a->data)[i] = &brt_empty_str;
        break;
    case BRT_ARR:
        for (int64_t i = 0; i < len; i++)
            ((brt_arr **)a->data)[i] = brt_arr_new(elem->elem, 0);
        break;
    case BRT_TUPLE:
        if (len)
            memset(a->data, 0, (size_t)len * elem->size);
        for (int64_t i = 0; i < len; i++)
            zero_fields(elem, (char *)a->data + (size_t)i * elem->size);
        break;
    case BRT_FN: /* filled before any element is read */
        if (len)
            memset(a->data, 0, (size_t)len * sizeof(brt_fn));
        break;
    }
    return a;
}

brt_arr *brt_arr_from(const brt_type *elem, int64_t n, const void *elems)
{
    brt_arr *a = arr_alloc(elem, n, n, NULL);
    size_t es = TYPE_SIZE(elem);
    if (es == 8 && n <= 8) { /* [x, y]: a few words, not a call to memcpy */
        for (int64_t i = 0; i < n; i++)
            ((uint64_t *)a->data)[i] = ((const uint64_t *)elems)[i];
    } else if (n) {
        memcpy(a->data, elems, (size_t)n * es);
    }
    return a;
}

/* Whether n bytes at p are all zero. */
static bool all_zero_bytes(const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++)
        if (b[i])
            return false;
    return true;
}

/* Whether the n values of type t at p are all zero bits, a tuple field by
 * field: its padding is never written, so it is not looked at. */
static bool zero_values(const brt_type *t, const unsigned char *p, int64_t n)
{
    if (t->kind != BRT_TUPLE)
        return all_zero_bytes(p, (size_t)n * brt_type_size(t));
    for (int64_t k = 0; k < n; k++, p += t->size)
        for (int i = 0; i < t->nfields; i++)
            if (!zero_values(t->fields[i], p + t->offsets[i], 1))
                return false;
    return true;
}

brt_arr *brt_arr_repeat(brt_arr *a, int64_t n, const brt_loc *l)
{
    if (n < 0 || a->len == 0)
        n = 0;
    int64_t len = (int64_t)(size_mul(n, (size_t)a->len, l));
    size_t es = brt_type_size(a->elem);
    size_t chunk = (size_t)a->len * es, total = (size_t)len * es;
    brt_arr *r;
    if (len > 0 && zero_values(a->elem, a->data, a->len)) {
        /* [false] * n, [0] * n, [0.0] * n: calloc's zero bits, which for a large
         * block are fresh pages, not a pass over them (as C's calloc) */
        r = arr_alloc_zero(a->elem, len, l);
    } else {
        /* the first copy, then the filled part doubled: a few long memcpys, not
         * one per copy (one byte each for [true] * n) */
        r = arr_alloc(a->elem, len, len, l);
        if (total) {
            memcpy(r->data, a->data, chunk);
            for (size_t done = chunk; done < total;) {
                size_t k = done < total - done ? done : total - done;
                memcpy((char *)r->data + done, r->data, k);
                done += k;
            }
        }
    }
    brt_retain_n(a->elem, r->data, len);
    return r;
}

brt_arr *brt_arr_concat(brt_arr *a, brt_arr *b)
{
    size_t es = brt_type_size(a->elem);
    brt_arr *r = arr_alloc(a->elem, a->len + b->len, a->len + b->len, NULL);
    if (a->len)
        memcpy(r->data, a->data, (size_t)a->len * es);
    if (b->len)
        memcpy((char *)r->data + (size_t)a->len * es, b->data, (size_t)b->len * es);
    brt_retain_n(a->elem, r->data, r->len);
    return r;
}

brt_arr *brt_arr_unique_copy(brt_arr *a)
{
    if (__atomic_load_n(&a->rc, __ATOMIC_ACQUIRE) == 1)
        return a;
    size_t es = brt_type_size(a->elem);
    brt_arr *r = arr_alloc(a->elem, a->len, a->len, NULL);
    if (a->len)
        memcpy(r->data, a->data, (size_t)a->len * es);
    brt_retain_n(a->elem, r->data, r->len);
    brt_arr_release(a);
    return r;
}

void brt_arr_unique_rows(brt_arr *a)
{
    brt_arr **rows = (brt_arr **)a->data;
    for (int64_t i = 0; i < a->len; i++)
        if (rows[i]) rows[i] = brt_arr_unique(rows[i]);
}

brt_arr *brt_arr_push(brt_arr *a, const void *elem)
{
    a = brt_arr_unique(a);
    size_t es = TYPE_SIZE(a->elem);
    if (a->len == a->cap)
        brt_arr_reserve(a, a->cap < 4 ? 4 : a->cap * 2);
    memcpy((char *)a->data + (size_t)a->len * es, elem, es);
    a->len++;
    return a;
}

/* Whether a value of type t can hold a float (then a == a may be false). */
/* A struct may hold arrays of itself (struct Node: kids: [Node]): past a
 * few levels, say yes, which only skips the identity shortcut. */
static bool has_float_at(const brt_type *t, int depth)
{
    while (t->kind == BRT_ARR)
        t = t->elem;
    if (t->kind == BRT_TUPLE) {
        if (depth > 16)
            return true;
        for (int i = 0; i < t->nfields; i++)
            if (has_float_at(t->fields[i], depth + 1))
                return true;
        return false;
    }
    return t->kind == BRT_FLOAT;
}

static bool has_float(const brt_type *t)
{
    return has_float_at(t, 0);
}

bool brt_eq(const brt_type *t, const void *a, const void *b)
{
    switch (t->kind) {
    case BRT_INT: return *(const int64_t *)a == *(const int64_t *)b;
    case BRT_U64: return *(const uint64_t *)a == *(const uint64_t *)b;
    case BRT_I128: {
        const brt_i128 *x = a, *y = b;
        return x->lo == y->lo && x->hi == y->hi;
    }
    case BRT_FLOAT: return *(const double *)a == *(const double *)b;
    case BRT_BOOL: return *(const bool *)a == *(const bool *)b;
    case BRT_STR: return brt_str_eq(*(brt_str *const *)a, *(brt_str *const *)b);
    case BRT_ARR: {
        const brt_arr *x = *(brt_arr *const *)a, *y = *(brt_arr *const *)b;
        if (x->len != y->len)
            return false;
        if (x == y && !has_float(x->elem))
            return true;
        const brt_type *e = t->elem ? t->elem : x->elem;
        size_t es = brt_type_size(e);
        switch (e->kind) {
        case BRT_INT: case BRT_U64: case BRT_I128: case BRT_BOOL:
            return x->len == 0 || memcmp(x->data, y->data, (size_t)x->len * es) == 0;
        case BRT_FLOAT: case BRT_STR: case BRT_ARR: case BRT_TUPLE: case BRT_FN:
            for (int64_t i = 0; i < x->len; i++)
                if (!brt_eq(e, (const char *)x->data + (size_t)i * es, (const char *)y->data + (size_t)i * es))
                    return false;
            return true;
        }
        return false;
    }
    case BRT_TUPLE:
        /* None == None whatever the (zero) value; None != Some(x) */
        if (t->option && !(*(const bool *)a && *(const bool *)b))
            return *(const bool *)a == *(const bool *)b;
        for (int i = 0; i < t->nfields; i++)
            if (!brt_eq(t->fields[i], (const char *)a + t->offsets[i], (const char *)b + t->offsets[i]))
                return false;
        return true;
    case BRT_FN: /* the checker compares no function values */
        return false;
    }
    return false;
}

/* ---- function values ---------------------------------------------------- */

brt_env *brt_env_new(size_t size, void (*drop)(brt_env *))
{
    brt_env *e = brt_xmalloc(size);
    e->rc = 1;
    e->drop = drop;
    return e;
}

void brt_env_retain(brt_env *e)
{
    __atomic_add_fetch(&e->rc, 1, __ATOMIC_RELAXED);
}

void brt_env_release(brt_env *e)
{
    if (e && drop_ref(&e->rc)) {
        e->drop(e);
        free(e);
    }
}
