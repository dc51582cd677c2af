/*
 * text.c: str methods and slices, stdin, files and eprint (SPEC section 14).
 *
 * Strings are bytes that hold UTF-8 text; every index and length here is in
 * bytes, as len(s) is. A slice s[a:b] must cut at character boundaries: a
 * byte index inside a multi-byte sequence (a continuation byte, 10xxxxxx)
 * panics. Whitespace, for split() and strip(), is ASCII's: space, \t, \n,
 * \v, \f, \r. upper() and lower() change ASCII letters only; every other
 * byte, and so every non-ASCII character, is kept as it is.
 *
 * Files are read and written whole, with read(2)/write(2) retried on short
 * counts; a failure panics "cannot read 'PATH': <strerror>" (or "cannot
 * write"), at the call's place.
 */
#include "rt_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static bool is_space(unsigned char c)
{
    return c == ' ' || (c >= '\t' && c <= '\r');
}

static bool is_boundary(const brt_str *s, int64_t i)
{
    return i == 0 || i >= s->len || ((unsigned char)s->data[i] & 0xC0) != 0x80;
}

/* An array of str under construction: pushes a new str of n bytes at p. */
static brt_arr *push_piece(brt_arr *a, const char *p, int64_t n)
{
    brt_str *piece = brt_str_new(p, n);
    return brt_arr_push(a, &piece);
}

/* A substring as a new reference: the str itself when it is the whole. */
static brt_str *sub(brt_str *s, int64_t lo, int64_t hi)
{
    if (lo == 0 && hi == s->len) {
        brt_retain(s);
        return s;
    }
    return brt_str_new(s->data + lo, hi - lo);
}

/* memmem without the GNU extension. */
static const char *find_bytes(const char *h, int64_t hn, const char *n, int64_t nn)
{
    if (nn == 0)
        return h;
    if (nn > hn)
        return NULL;
    const char *end = h + (hn - nn);
    for (const char *p = h; p <= end; p++) {
        p = memchr(p, n[0], (size_t)(end - p + 1));
        if (!p)
            return NULL;
        if (memcmp(p, n, (size_t)nn) == 0)
            return p;
    }
    return NULL;
}

bool brt_str_find(brt_str *s, brt_str *sub, int64_t *at)
{
    const char *p = find_bytes(s->data, s->len, sub->data, sub->len);
    if (p)
        *at = p - s->data;
    return p != NULL;
}

brt_arr *brt_str_split(brt_str *s, brt_str *sep, const brt_loc *l)
{
    if (sep->len == 0)
        brt_panic_msg(l, "split: empty separator");
    brt_arr *a = brt_arr_new(&brt_t_str, 0);
    const char *p = s->data, *end = s->data + s->len;
    for (;;) {
        const char *q = find_bytes(p, end - p, sep->data, sep->len);
        if (!q) {
            a = push_piece(a, p, end - p);
            return a;
        }
        a = push_piece(a, p, q - p);
        p = q + sep->len;
    }
}

brt_arr *brt_str_split_ws(brt_str *s)
{
    brt_arr *a = brt_arr_new(&brt_t_str, 0);
    int64_t i = 0, n = s->len;
    const unsigned char *d = (const unsigned char *)s->data;
    for (;;) {
        while (i < n && is_space(d[i]))
            i++;
        if (i == n)
            return a;
        int64_t j = i;
        while (j < n && !is_space(d[j]))
            j++;
        a = push_piece(a, s->data + i, j - i);
        i = j;
    }
}

brt_str *brt_str_strip(brt_str *s)
{
    int64_t lo = 0, hi = s->len;
    const unsigned char *d = (const unsigned char *)s->data;
    while (lo < hi && is_space(d[lo]))
        lo++;
    while (hi > lo && is_space(d[hi - 1]))
        hi--;
    return sub(s, lo, hi);
}

brt_arr *brt_str_lines(brt_str *s)
{
    brt_arr *a = brt_arr_new(&brt_t_str, 0);
    const char *p = s->data, *end = s->data + s->len;
    while (p < end) {
        const char *q = memchr(p, '\n', (size_t)(end - p));
        const char *stop = q ? q : end;
        const char *cut = stop > p && stop[-1] == '\r' ? stop - 1 : stop;
        a = push_piece(a, p, cut - p);
        if (!q)
            break;
        p = q + 1;
    }
    return a;
}

bool brt_str_startswith(brt_str *s, brt_str *p)
{
    return p->len <= s->len && memcmp(s->data, p->data, (size_t)p->len) == 0;
}

bool brt_str_endswith(brt_str *s, brt_str *p)
{
    return p->len <= s->len && memcmp(s->data + (s->len - p->len), p->data, (size_t)p->len) == 0;
}

brt_str *brt_str_replace(brt_str *s, brt_str *a, brt_str *b)
{
    brt_sb sb;
    brt_sb_init(&sb);
    const char *p = s->data, *end = s->data + s->len;
    if (a->len == 0) {
        /* b before every character and at the end, as Python and Rust do */
        brt_sb_lit(&sb, b->data, b->len);
        while (p < end) {
            const char *q = p + 1;
            while (q < end && ((unsigned char)*q & 0xC0) == 0x80)
                q++;
            brt_sb_lit(&sb, p, q - p);
            brt_sb_lit(&sb, b->data, b->len);
            p = q;
        }
        return brt_sb_finish(&sb);
    }
    const char *first = find_bytes(p, end - p, a->data, a->len);
    if (!first) {
        free(sb.buf);
        brt_retain(s);
        return s;
    }
    for (const char *q = first; q; q = find_bytes(p, end - p, a->data, a->len)) {
        brt_sb_lit(&sb, p, q - p);
        brt_sb_lit(&sb, b->data, b->len);
        p = q + a->len;
    }
    brt_sb_lit(&sb, p, end - p);
    return brt_sb_finish(&sb);
}

static brt_str *map_case(brt_str *s, char from, char to)
{
    int64_t i = 0;
    while (i < s->len && !(s->data[i] >= from && s->data[i] <= to))
        i++;
    if (i == s->len) {
        brt_retain(s);
        return s;
    }
    brt_str *r = brt_str_new(s->data, s->len);
    char *d = (char *)r->data;
    for (; i < r->len; i++)
        if (d[i] >= from && d[i] <= to)
            d[i] = (char)(d[i] ^ 0x20);
    return r;
}

brt_str *brt_str_upper(brt_str *s)
{
    return map_case(s, 'a', 'z');
}

brt_str *brt_str_lower(brt_str *s)
{
    return map_case(s, 'A', 'Z');
}

brt_str *brt_str_join(brt_str *sep, brt_arr *xs)
{
    brt_str **e = xs->data;
    if (xs->len == 1) {
        brt_retain(e[0]);
        return e[0];
    }
    /* the lengths summed once, then each piece copied once, into the
     * result itself */
    int64_t total = 0;
    for (int64_t i = 0; i < xs->len; i++)
        total += e[i]->len + (i ? sep->len : 0);
    char *d;
    brt_str *s = brt_str_make(total, &d);
    for (int64_t i = 0; i < xs->len; i++) {
        if (i)
            d = brt_put_bytes(d, sep->data, sep->len);
        d = brt_put_bytes(d, e[i]->data, e[i]->len);
    }
    return s;
}

BRT_NORETURN void brt_panic_slice(const brt_loc *l, int64_t len, int64_t lo, int64_t hi)
{
    brt_panic_msg(l, "slice out of bounds: the len is %lld but the slice is %lld..%lld", (long long)len,
                  (long long)lo, (long long)hi);
}

brt_str *brt_str_slice(brt_str *s, int64_t lo, int64_t hi, const brt_loc *l)
{
    if (lo < 0 || lo > hi || hi > s->len)
        brt_panic_slice(l, s->len, lo, hi);
    if (!is_boundary(s, lo))
        brt_panic_msg(l, "byte index %lld is not a char boundary", (long long)lo);
    if (!is_boundary(s, hi))
        brt_panic_msg(l, "byte index %lld is not a char boundary", (long long)hi);
    return sub(s, lo, hi);
}

/* ---- stdin and files ------------------------------------------------------ */

/* Reads fd to its end into a new str; false with errno set on failure. */
static bool read_all(int fd, brt_str **out)
{
    brt_sb sb;
    brt_sb_init(&sb);
    for (;;) {
        brt_sb_reserve(&sb, 65536);
        ssize_t r = read(fd, sb.buf + sb.len, (size_t)(sb.cap - sb.len));
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            int e = errno;
            free(sb.buf);
            errno = e;
            return false;
        }
        if (r == 0)
            break;
        sb.len += r;
    }
    if (sb.len == 0) {
        free(sb.buf);
        *out = &brt_empty_str;
        return true;
    }
    /* the buffer becomes the str's block: header first, so no second copy */
    brt_str *s = brt_xrealloc(sb.buf, sizeof *s + (size_t)sb.len + 1);
    memmove(s + 1, s, (size_t)sb.len);
    char *d = (char *)(s + 1);
    d[sb.len] = 0;
    s->rc = 1;
    s->len = sb.len;
    s->data = d;
    s->cap = 0;
    *out = s;
    return true;
}

/* What input() has read from stdin and not yet handed out: lines come from
 * this buffer, refilled 64 KiB at a time; read_stdin() hands out the rest of
 * it before reading on. One lock: a par element may call input(). */
static struct {
    pthread_mutex_t lock;
    char *buf;
    size_t pos, len, cap;
    bool eof;
} in = {PTHREAD_MUTEX_INITIALIZER, NULL, 0, 0, 0, false};

/* Reads more of stdin into in.buf; false at the end (or with no stdin). */
static bool in_fill(const brt_loc *l)
{
    if (in.eof)
        return false;
    if (in.pos > 0) { /* drop what was handed out */
        memmove(in.buf, in.buf + in.pos, in.len - in.pos);
        in.len -= in.pos;
        in.pos = 0;
    }
    if (in.cap - in.len < 65536) {
        in.cap = in.cap ? in.cap * 2 : 65536;
        in.buf = brt_xrealloc(in.buf, in.cap);
    }
    for (;;) {
        ssize_t r = read(0, in.buf + in.len, in.cap - in.len);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0 && errno != EBADF) /* no stdin at all: nothing to read */
            brt_panic_msg(l, "cannot read stdin: %s", strerror(errno));
        if (r <= 0) {
            in.eof = true;
            return false;
        }
        in.len += (size_t)r;
        return true;
    }
}

bool brt_input(brt_str **out, const brt_loc *l)
{
    pthread_mutex_lock(&in.lock);
    size_t scanned = 0; /* bytes after pos known to hold no newline */
    const char *nl = NULL;
    for (;;) {
        if (in.len - in.pos > scanned && (nl = memchr(in.buf + in.pos + scanned, '\n', in.len - in.pos - scanned)))
            break;
        scanned = in.len - in.pos;
        if (!in_fill(l))
            break;
    }
    size_t avail = in.len - in.pos;
    if (!nl && avail == 0) {
        pthread_mutex_unlock(&in.lock);
        return false;
    }
    const char *p = in.buf + in.pos;
    size_t n = nl ? (size_t)(nl - p) : avail; /* the last line may lack its \n */
    size_t cut = n > 0 && p[n - 1] == '\r' ? n - 1 : n;
    *out = cut ? brt_str_new(p, (int64_t)cut) : &brt_empty_str;
    in.pos += nl ? n + 1 : n;
    pthread_mutex_unlock(&in.lock);
    return true;
}

brt_str *brt_read_stdin(const brt_loc *l)
{
    pthread_mutex_lock(&in.lock);
    brt_str *s = &brt_empty_str;
    if (!in.eof && !read_all(0, &s)) {
        if (errno != EBADF) /* no stdin at all: nothing to read */
            brt_panic_msg(l, "cannot read stdin: %s", strerror(errno));
        s = &brt_empty_str;
    }
    in.eof = true;
    if (in.pos < in.len) { /* what input() read ahead comes first */
        brt_str *rest = brt_str_new(in.buf + in.pos, (int64_t)(in.len - in.pos));
        brt_str *all = brt_str_concat(rest, s);
        brt_str_release(rest);
        brt_str_release(s);
        s = all;
        in.pos = in.len;
    }
    pthread_mutex_unlock(&in.lock);
    return s;
}

brt_str *brt_os_read_file(brt_str *path, const brt_loc *l)
{
    int fd = open(path->data, O_RDONLY | O_CLOEXEC);
    brt_str *s;
    if (fd < 0 || !read_all(fd, &s)) {
        int e = errno;
        if (fd >= 0)
            close(fd);
        brt_panic_msg(l, "cannot read '%s': %s", path->data, strerror(e));
    }
    close(fd);
    return s;
}

static void write_file(brt_str *path, brt_str *text, int flags, const brt_loc *l)
{
    int fd = open(path->data, O_WRONLY | O_CREAT | O_CLOEXEC | flags, 0666);
    if (fd < 0)
        brt_panic_msg(l, "cannot write '%s': %s", path->data, strerror(errno));
    const char *p = text->data;
    int64_t n = text->len;
    while (n > 0) {
        ssize_t w = write(fd, p, (size_t)n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            int e = w < 0 ? errno : EIO;
            close(fd);
            brt_panic_msg(l, "cannot write '%s': %s", path->data, strerror(e));
        }
        p += w;
        n -= w;
    }
    if (close(fd) != 0)
        brt_panic_msg(l, "cannot write '%s': %s", path->data, strerror(errno));
}

void brt_os_write_file(brt_str *path, brt_str *text, const brt_loc *l)
{
    write_file(path, text, O_TRUNC, l);
}

void brt_os_append_file(brt_str *path, brt_str *text, const brt_loc *l)
{
    write_file(path, text, O_APPEND, l);
}

/* ---- eprint ------------------------------------------------------------------ */

void brt_eprint_finish(brt_sb *sb)
{
    brt_sb_lit(sb, "\n", 1);
    brt_eprint_write(sb);
}

void brt_eprint_write(brt_sb *sb)
{
    const char *p = sb->buf;
    int64_t n = sb->len;
    while (n > 0) {
        ssize_t w = write(2, p, (size_t)n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            break; /* stderr is where failures would be reported: nothing to do */
        p += w;
        n -= w;
    }
    free(sb->buf);
    brt_sb_init(sb);
}
