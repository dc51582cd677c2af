/*
 * arena.c: the compiler's memory.
 *
 * One bump arena per compilation (the process): nodes, strings and types are
 * allocated here and never freed one by one, because the compiler runs once
 * and exits. xmalloc/xrealloc are for the few buffers that must grow (token
 * text, line tables); they die with exit 70 on out-of-memory since there is
 * nothing sensible to recover.
 */
#include "brine.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

static _Noreturn void out_of_memory(size_t size)
{
    fflush(stdout);
    fprintf(stderr, "brine: internal error: out of memory allocating %zu bytes\n", size);
    exit(70);
}

void *xmalloc(size_t size)
{
    void *p = malloc(size ? size : 1);
    if (!p)
        out_of_memory(size);
    return p;
}

void *xrealloc(void *p, size_t size)
{
    void *q = realloc(p, size ? size : 1);
    if (!q)
        out_of_memory(size);
    return q;
}

/* Chunks of 2 MiB, each its own mapping aligned to 2 MiB and offered to the
 * kernel as one huge page: a big program (or the language server's analysis
 * of one) touches tens of MiB, and one fault per 2 MiB instead of one per
 * 4 KiB is a quarter of its time. Fresh mappings start zeroed, so
 * arena_alloc need not clear. Anything larger than a quarter chunk gets its
 * own block so a few big strings do not waste the rest of a chunk. */
#define CHUNK_SIZE (2u << 20)
#define ALIGN 16

static char *chunk_ptr;
static size_t chunk_left;

static char *new_chunk(void)
{
    /* twice the size, then the aligned 2 MiB in the middle kept */
    char *m = mmap(NULL, 2 * CHUNK_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED)
        out_of_memory(CHUNK_SIZE);
    char *p = (char *)(((uintptr_t)m + CHUNK_SIZE - 1) & ~(uintptr_t)(CHUNK_SIZE - 1));
    if (p > m)
        munmap(m, (size_t)(p - m));
    munmap(p + CHUNK_SIZE, (size_t)(m + CHUNK_SIZE - p));
#ifdef MADV_HUGEPAGE
    madvise(p, CHUNK_SIZE, MADV_HUGEPAGE);
#endif
    return p;
}

void *arena_alloc(size_t size)
{
    size = (size + ALIGN - 1) & ~(size_t)(ALIGN - 1);
    if (size == 0)
        size = ALIGN;
    if (size > CHUNK_SIZE / 4) {
        void *p = xmalloc(size);
        memset(p, 0, size);
        return p;
    }
    if (size > chunk_left) {
        chunk_ptr = new_chunk();
        chunk_left = CHUNK_SIZE;
    }
    void *p = chunk_ptr;
    chunk_ptr += size;
    chunk_left -= size;
    return p;
}

char *arena_strndup(const char *s, size_t len)
{
    char *p = arena_alloc(len + 1);
    memcpy(p, s, len);
    p[len] = '\0';
    return p;
}

char *arena_printf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        internal_error("arena_printf: bad format '%s'", fmt);
    char *p = arena_alloc((size_t)n + 1);
    va_start(ap, fmt);
    vsnprintf(p, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return p;
}

/* ---- growable arrays -------------------------------------------------------- */

size_t grow_cap(size_t cap, size_t need)
{
    size_t c = cap ? cap : 16;
    while (c < need) {
        if (c > SIZE_MAX / 2)
            out_of_memory(need);
        c *= 2;
    }
    return c;
}

/* Arena arrays grow by doubling too; the old storage is simply left behind
 * (it is small next to the whole arena). */
void *arena_grow(const void *items, size_t len, size_t cap, size_t elem_size)
{
    void *p = arena_alloc(elem_size * cap);
    if (len)
        memcpy(p, items, elem_size * len);
    return p;
}

void vec_push(struct vec *v, void *item)
{
    ARENA_GROW(v->items, v->len, v->cap);
    v->items[v->len++] = item;
}

void nodes_push(struct nodes *list, struct node *n)
{
    ARENA_GROW(list->items, list->len, list->cap);
    list->items[list->len++] = n;
}

/* ---- text buffers ---------------------------------------------------------- */

void bputn(struct buf *b, const char *s, size_t n)
{
    VEC_RESERVE(b->p, b->cap, b->len + n + 1);
    memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = 0;
}

void bputs(struct buf *b, const char *s)
{
    bputn(b, s, strlen(s));
}

/* A decimal integer, without printf: the language server's index writes
 * hundreds of thousands of them per analysis. */
void bput_int(struct buf *b, long v)
{
    char tmp[24], *q = tmp + sizeof tmp;
    unsigned long u = v < 0 ? 0UL - (unsigned long)v : (unsigned long)v;
    do
        *--q = (char)('0' + u % 10);
    while (u /= 10);
    if (v < 0)
        *--q = '-';
    bputn(b, q, (size_t)(tmp + sizeof tmp - q));
}

void bprintf(struct buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char tmp[512];
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n < (int)sizeof tmp) {
        bputn(b, tmp, (size_t)n);
        return;
    }
    char *big = xmalloc((size_t)n + 1);
    va_start(ap, fmt);
    vsnprintf(big, (size_t)n + 1, fmt, ap);
    va_end(ap);
    bputn(b, big, (size_t)n);
    free(big);
}
